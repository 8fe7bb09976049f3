-- orderBy / sort / limit / union / join / dropDuplicates / distinct /
-- first / head / take / isEmpty.
local T = require("tap")

local df = spark.createDataFrame({
  {3, "c", 1.0}, {1, "a", nil}, {2, "b", 3.0}, {5, "e", 2.0}, {4, "d", nil},
}, "id INT, s STRING, x DOUBLE")

-- ordering
T.is(T.rows(df:orderBy("id"):select("id")), {{1}, {2}, {3}, {4}, {5}}, "orderBy a name")
T.is(T.rows(df:sort(F.col("id"):desc()):select("id")), {{5}, {4}, {3}, {2}, {1}}, "sort col:desc()")
T.is(T.rows(df:orderBy("id", {ascending = false}):select("id")), {{5}, {4}, {3}, {2}, {1}},
  "orderBy(..., {ascending=false}) as PySpark")
T.is(T.rows(df:orderBy({"s"}, {ascending = {false}}):select("s"):limit(2)), {{"e"}, {"d"}},
  "ascending as a list")
T.is(T.rows(df:orderBy("x", "id"):select("id")), {{1}, {4}, {3}, {5}, {2}},
  "ascending puts NULLs first (Spark's default)")
T.is(T.rows(df:orderBy(F.col("x"):desc(), "id"):select("id")), {{2}, {5}, {3}, {1}, {4}},
  "descending puts NULLs last (Spark's default)")
T.is(T.rows(df:orderBy(F.col("x"):asc_nulls_last(), "id"):select("id")), {{3}, {5}, {2}, {1}, {4}},
  "asc_nulls_last")
T.is(T.rows(df:orderBy(F.col("x"):desc_nulls_first(), "id"):select("id")), {{1}, {4}, {2}, {5}, {3}},
  "desc_nulls_first")
T.is(T.rows(df:orderBy(F.col("id") % 2, F.col("id"):desc()):select("id")), {{4}, {2}, {5}, {3}, {1}},
  "order by an expression, then a second key")

-- limit, first, head, take, isEmpty
T.is(T.rows(df:orderBy("id"):limit(2):select("id")), {{1}, {2}}, "limit")
T.is(df:limit(0):count(), 0, "limit(0)")
T.is(df:orderBy("id"):first().s, "a", "first() is a Row")
T.is(df:orderBy("id"):head().id, 1, "head() is a Row")
T.is(#df:head(3), 3, "head(n) is an array of Rows")
T.is(#df:take(2), 2, "take(n)")
T.is(df:isEmpty(), false, "isEmpty on rows")
T.is(df:filter("id > 100"):isEmpty(), true, "isEmpty on no rows")
T.is(df:filter("id > 100"):first(), nil, "first() of nothing is nil")
T.errors(function() return df:limit(-1) end, "limit must be >= 0", "negative limit")

-- union (by position, duplicates kept)
local u = df:select("id"):union(spark.createDataFrame({{9}, {1}}, "k INT"))
T.is(u.columns, {"id"}, "union keeps the first side's names")
T.is(u:count(), 7, "union keeps duplicates (UNION ALL)")
T.is(df:select("id"):unionAll(df:select("id")):count(), 10, "unionAll is union")
T.errors(function() return df:union(df:select("id")) end, "union", "union with a different column count")
T.errors(function() return df:union("x") end, "bad argument #1 to 'union' %(DataFrame expected, got string",
  "union needs a DataFrame")

-- dropDuplicates / distinct
local dup = spark.createDataFrame({{1, "a"}, {1, "a"}, {1, "b"}, {2, "a"}}, "k INT, v STRING")
T.is(dup:distinct():count(), 3, "distinct")
T.is(dup:dropDuplicates():count(), 3, "dropDuplicates()")
T.is(T.sorted_rows(dup:dropDuplicates{"k"}:select("k")), {{1}, {2}}, "dropDuplicates{cols}")
T.is(dup:dropDuplicates("v"):count(), 2, "dropDuplicates(name)")

-- joins
local people = spark.createDataFrame({{1, "ann"}, {2, "bob"}, {3, "cid"}}, "id INT, name STRING")
local orders = spark.createDataFrame({{1, 10}, {1, 20}, {3, 5}, {4, 7}}, "id INT, amount INT")
local j = people:join(orders, "id")
T.is(j.columns, {"id", "name", "amount"}, "join on a name keeps one id column")
T.is(T.sorted_rows(j), {{1, "ann", 10}, {1, "ann", 20}, {3, "cid", 5}}, "inner join by default")
T.is(T.sorted_rows(people:join(orders, {"id"}, "left")),
  {{1, "ann", 10}, {1, "ann", 20}, {2, "bob", nil}, {3, "cid", 5}}, "left join on an array of names")
T.is(T.sorted_rows(people:join(orders, "id", "full")),
  {{1, "ann", 10}, {1, "ann", 20}, {2, "bob", nil}, {3, "cid", 5}, {4, nil, 7}}, "full outer join")
T.is(T.sorted_rows(people:join(orders, "id", "left_anti")), {{2, "bob"}}, "left_anti")
T.is(T.sorted_rows(people:join(orders, "id", "left_semi")), {{1, "ann"}, {3, "cid"}}, "left_semi")
local o2 = orders:withColumnRenamed("id", "pid")
local jc = people:join(o2, F.col("id"):eq(F.col("pid")))
T.is(jc.columns, {"id", "name", "pid", "amount"}, "join on a Column keeps both sides")
T.is(T.sorted_rows(jc:select("name", "amount")), {{"ann", 10}, {"ann", 20}, {"cid", 5}},
  "join on a Column condition")
T.is(T.sorted_rows(people:join(o2, {on = F.col("id"):eq(F.col("pid")), how = "right"}):select("pid", "name")),
  {{1, "ann"}, {1, "ann"}, {3, "cid"}, {4, nil}}, "keyword form {on=..., how=...}")
T.errors(function() return people:join(orders, "id", "sideways") end, "sideways", "unknown join type")

-- named tables: createOrReplaceTempView and spark.table (the memory sink
-- will register its results the same way)
people:createOrReplaceTempView("people")
T.is(T.rows(spark.table("people"):orderBy("id"):select("name")), {{"ann"}, {"bob"}, {"cid"}},
  "spark.table reads a registered view")
people:filter("id = 1"):createOrReplaceTempView("people")
T.is(spark.table("PEOPLE"):count(), 1, "createOrReplaceTempView replaces; names are case-insensitive")
T.errors(function() return spark.table("peple") end,
  "%[TABLE_OR_VIEW_NOT_FOUND%] The table or view `peple` cannot be found%. %(did you mean 'people'%?%)",
  "an unknown table, with a hint")

T.done()
