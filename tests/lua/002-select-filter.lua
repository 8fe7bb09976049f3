-- select / selectExpr / filter / where / withColumn / withColumnRenamed /
-- drop, with Columns, column names and SQL strings.
--
-- Note: Lua's == and < always return booleans, so Column comparisons are
-- methods: col:eq(x), col:ne(x), col:lt(x), col:le(x), col:gt(x), col:ge(x),
-- and logic is col:_and(c), col:_or(c), col:_not().
local T = require("tap")

local df = spark.createDataFrame({
  {1, "apple", 3, 1.5},
  {2, "pear", 10, 0.25},
  {3, "fig", nil, 4.0},
  {4, "kiwi", 7, 2.0},
}, "id INT, product STRING, qty INT, price DOUBLE")

-- select by names, Columns, "*" and expressions
T.is(df:select("id", "product").columns, {"id", "product"}, "select by names")
T.is(df:select("*").columns, {"id", "product", "qty", "price"}, "select *")
T.is(df:select({"id", "qty"}).columns, {"id", "qty"}, "select of an array of names")
T.is(T.rows(df:select(F.col("id"), (F.col("qty") * 2):alias("q2"))),
  {{1, 6}, {2, 20}, {3, nil}, {4, 14}}, "select Columns with arithmetic and alias")
T.is(df:select(F.col("qty") + 1).columns, {"(qty + 1)"}, "automatic name of an expression")
T.is(T.rows(df:select(1 + F.col("id"), 10 - F.col("id"), F.col("id") % 2, -F.col("id"))),
  {{2, 9, 1, -1}, {3, 8, 0, -2}, {4, 7, 1, -3}, {5, 6, 0, -4}},
  "a Lua number on either side of an operator is a literal")
T.is(T.rows(df:select(F.col("price") / 2):limit(1)), {{0.75}}, "division gives a double")
T.is(T.rows(df:select(df.id, df["product"]):limit(1)), {{1, "apple"}}, "df.col and df['col'] are Columns")

-- selectExpr
T.is(T.rows(df:selectExpr("id * 10 AS x", "upper(product) p"):limit(2)),
  {{10, "APPLE"}, {20, "PEAR"}}, "selectExpr with alias forms")
T.is(df:selectExpr("CAST(qty AS DOUBLE)").columns, {"qty"}, "CAST keeps the column name, as Spark")

-- filter / where, with Columns and SQL strings
T.is(T.rows(df:filter(F.col("qty"):gt(5)):select("id")), {{2}, {4}}, "filter with a Column")
T.is(T.rows(df:where("qty > 5 AND price < 1"):select("id")), {{2}}, "where with a SQL string")
T.is(T.rows(df:filter(F.col("qty"):isNull()):select("id")), {{3}}, "isNull")
T.is(T.rows(df:filter(F.col("qty"):isNotNull():_and(F.col("price"):ge(2))):select("id")),
  {{4}}, "_and")
T.is(T.rows(df:filter(F.col("id"):eq(1):_or(F.col("id"):eq(4))):select("id")),
  {{1}, {4}}, "_or")
T.is(T.rows(df:filter(F.col("id"):le(2):_not()):select("id")), {{3}, {4}}, "_not")
T.is(T.rows(df:filter(F.col("product"):isin{"fig", "kiwi"}):select("id")), {{3}, {4}}, "isin{...}")
T.is(T.rows(df:filter(F.col("product"):isin("apple", "fig")):select("id")), {{1}, {3}}, "isin(a, b)")
T.is(T.rows(df:filter(F.col("id"):between(2, 3)):select("id")), {{2}, {3}}, "between")
T.is(T.rows(df:filter(F.col("id"):ne(2)):filter(F.col("id"):lt(4)):select("id")),
  {{1}, {3}}, "ne and lt, chained filters")
T.is(T.rows(df:filter("product IN ('pear', 'kiwi')"):select("id")), {{2}, {4}}, "IN in SQL")
T.is(T.rows(df:filter("qty IS NULL"):select("product")), {{"fig"}}, "IS NULL in SQL")
T.errors(function() return df:filter(df.id == 1) end,
  "filter: condition is a Lua boolean.*use col:eq", "Lua's == gives a boolean: a clear error")
T.errors(function() return F.col("a") == F.col("b") end,
  "cannot compare Columns with Lua's ==", "== between Columns explains the methods")

-- withColumn / withColumnRenamed / drop
local w = df:withColumn("total", F.col("qty") * F.col("price"))
T.is(w.columns, {"id", "product", "qty", "price", "total"}, "withColumn appends")
T.is(T.rows(w:select("total")), {{4.5}, {2.5}, {nil}, {14.0}}, "withColumn values")
T.is(df:withColumn("qty", F.lit(0)).columns, {"id", "product", "qty", "price"},
  "withColumn replaces a column of the same name in place")
T.is(T.rows(df:withColumn("qty", F.lit(0)):select("qty"):limit(1)), {{0}}, "replaced value")
T.is(df:withColumnRenamed("qty", "quantity").columns, {"id", "product", "quantity", "price"},
  "withColumnRenamed")
T.is(df:withColumnRenamed("nope", "x").columns, {"id", "product", "qty", "price"},
  "renaming a missing column is a no-op, as Spark")
T.is(df:drop("qty", "price").columns, {"id", "product"}, "drop names")
T.is(df:drop(F.col("id")).columns, {"product", "qty", "price"}, "drop a Column")
T.is(df:drop("nope").columns, {"id", "product", "qty", "price"}, "drop of a missing name is ignored")
T.errors(function() return df:withColumn("x", 5) end,
  "Column expected, got number 5 %(use F.lit", "withColumn needs a Column")

-- DataFrames are immutable: every method returns a new one
local before = df.columns
df:withColumn("z", F.lit(1))
T.is(df.columns, before, "the receiver is unchanged")

-- toDF and the when/otherwise chain
T.is(df:select("id", "product"):toDF("a", "b").columns, {"a", "b"}, "toDF renames all columns")
T.is(T.rows(df:select(F.when(F.col("qty"):gt(5), "many"):when(F.col("qty"):gt(0), "few")
  :otherwise("none"):alias("n"))), {{"few"}, {"many"}, {"none"}, {"many"}}, "when/otherwise chain")
T.is(T.rows(df:select(F.when(F.col("id"):eq(1), 100):alias("w")):limit(2)), {{100}, {nil}},
  "when without otherwise gives NULL")
T.errors(function() return F.col("a"):otherwise(1) end,
  "otherwise%(%) can only be applied on a Column previously generated by when%(%)",
  "otherwise on a plain Column")

T.done()
