-- groupBy / agg in all of PySpark's forms.  Group order is not defined, so
-- results are sorted before comparing (STYLE.md: Determinism).
local T = require("tap")

local sales = spark.createDataFrame({
  {"apple", 3, 1.5},
  {"pear", 10, 0.5},
  {"apple", 5, 2.5},
  {"fig", nil, 4.0},
  {"pear", 2, nil},
  {"apple", 1, 1.0},
}, "product STRING, qty INT, price DOUBLE")

local function sorted(df) return T.sorted_rows(df) end

local g = sales:groupBy("product")
T.is(getmetatable(g).__name, "streamlab.GroupedData", "groupBy gives GroupedData")

T.is(sorted(g:count()), {{"apple", 3}, {"fig", 1}, {"pear", 2}}, "count() per group")
T.is(g:count().columns, {"product", "count"}, "count() names its column 'count'")

T.is(sorted(g:sum("qty")), {{"apple", 9}, {"fig", nil}, {"pear", 12}},
  "sum of INT is BIGINT; all-NULL group gives NULL")
T.is(g:sum("qty").columns, {"product", "sum(qty)"}, "sum names its column sum(qty)")
T.is(sorted(g:avg("price")), {{"apple", 5.0 / 3}, {"fig", 4.0}, {"pear", 0.5}},
  "avg skips NULLs")
T.is(g:mean("price").columns, {"product", "avg(price)"}, "mean is avg")
T.is(sorted(g:min("qty")), {{"apple", 1}, {"fig", nil}, {"pear", 2}}, "min")
T.is(sorted(g:max("price")), {{"apple", 2.5}, {"fig", 4.0}, {"pear", 0.5}}, "max")
T.is(g:sum().columns, {"product", "sum(qty)", "sum(price)"}, "sum() with no columns: every numeric column")

-- agg with Columns
local a = g:agg(F.sum("qty"):alias("units"), F.count("*"), F.max(F.col("price") * 2))
T.is(a.columns, {"product", "units", "count(1)", "max((price * 2))"}, "agg column names")
T.is(sorted(a), {{"apple", 9, 3, 5.0}, {"fig", nil, 1, 8.0}, {"pear", 12, 2, 1.0}}, "agg values")
T.is(sorted(g:agg(F.count("qty"))), {{"apple", 3}, {"fig", 0}, {"pear", 2}},
  "count(col) skips NULLs, count('*') does not")
T.is(sorted(g:agg(F.countDistinct("qty"))), {{"apple", 3}, {"fig", 0}, {"pear", 2}},
  "countDistinct")

-- PySpark's dict form
local d = g:agg({qty = "sum", price = "max"})
T.is(d.columns, {"product", "max(price)", "sum(qty)"}, "agg{col='func'}: one column per entry, in key order")
T.is(sorted(d), {{"apple", 2.5, 9}, {"fig", 4.0, nil}, {"pear", 0.5, 12}}, "dict form values")

-- global aggregation
T.is(T.rows(sales:agg(F.sum("qty"), F.min("product"))), {{21, "apple"}}, "df:agg without groupBy")
T.is(T.rows(sales:groupBy():count()), {{6}}, "groupBy() with no keys is one group")

-- grouping by expressions and several keys
T.is(sorted(sales:groupBy(F.col("qty"):isNull():alias("noqty")):count()),
  {{false, 5}, {true, 1}}, "groupBy an expression")
T.is(sorted(sales:groupBy("product", F.col("price"):gt(1)):count():filter(F.col("product"):eq("apple"))),
  {{"apple", false, 1}, {"apple", true, 2}}, "two grouping keys")

-- group result feeds further transformations
T.is(T.rows(g:agg(F.sum("qty"):alias("n")):filter("n > 9"):select("product")),
  {{"pear"}}, "filter after agg (HAVING)")

-- errors
T.errors(function() return g:agg("qty") end, "bad argument #1 to 'agg' %(Column expected",
  "agg needs Columns")
T.errors(function() return sales:groupBy("prodcut") end,
  "cannot resolve 'prodcut'.*did you mean 'product'", "unknown grouping column, with a hint")
T.errors(function() return g:sum("product") end,
  'sum: "product" is not a numeric column%. Aggregation function can only be applied on a numeric column%.',
  "GroupedData.sum of a string column: Spark's message")
T.errors(function() return g:summ("qty") end, "GroupedData has no method 'summ' %(did you mean 'sum'%?%)",
  "a misspelt GroupedData method")

T.done()
