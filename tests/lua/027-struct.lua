-- struct() and named_struct(), Spark's struct constructors
-- (engine/expr/func_struct.c): field names by Spark's rule, struct(*)
-- over every column (to_json(struct(*)), how a row becomes a Kafka
-- value), AS inside struct's arguments, Spark's errors; in a streaming
-- query as in a batch one.
local T = require("tap")

local df = spark.createDataFrame({{1, "a"}, {2, nil}}, "x INT, s STRING")

T.check(function() return T.rows(df:selectExpr("to_json(struct(*)) AS value")) end,
  {{'{"x":1,"s":"a"}'}, {'{"x":2}'}}, "to_json(struct(*)): every column, NULL fields left out")
T.check(function() return T.rows(df:select(F.to_json(F.struct("*")))) end,
  {{'{"x":1,"s":"a"}'}, {'{"x":2}'}}, "F.struct('*') as in PySpark")
T.check(function() return df:selectExpr("struct(x, s AS t, x + 1)", "named_struct('k', x)").columns end,
  {"struct(x, s AS t, (x + 1))", "named_struct(k, x)"}, "Spark's column names")
T.is(tostring(df:selectExpr("struct(x, s AS t, x + 1) AS st").schema),
  "st STRUCT<x: INT, t: STRING, col3: INT> NOT NULL",
  "field names: the column, the alias, col<N> by position; never NULL")
T.check(function() return T.rows(df:select(F.struct(F.col("x"):alias("a"), "s"):alias("st")):selectExpr("st.a", "st.s")) end,
  {{1, "a"}, {2, nil}}, "F.struct with an alias, then its fields read back")
T.check(function() return T.rows(df:selectExpr("to_json(named_struct('id', x, 'name', upper(s))) AS j")) end,
  {{'{"id":1,"name":"A"}'}, {'{"id":2}'}}, "named_struct names its fields")

local function err(expr)
  local ok, e = pcall(function() return df:selectExpr(expr) end)
  return ok and "no error" or (type(e) == "table" and e.message or tostring(e))
end
T.like(err("named_struct(x, 1)"), "%[DATATYPE_MISMATCH%.CREATE_NAMED_STRUCT_WITHOUT_FOLDABLE_STRING%]",
  "named_struct's names must be string literals")
T.like(err("named_struct('a', 1, 'b')"), "%[WRONG_NUM_ARGS%.WITHOUT_SUGGESTION%] The `named_struct` requires 2n",
  "named_struct takes pairs")
T.like(err("struct(x AS)"), "expected a field name", "struct(x AS) without a name")

-- streaming: the Kafka-sink idiom over a memory stream
spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("id INT, word STRING")
local q = ms:toDF():selectExpr("CAST(id AS STRING) AS key", "to_json(struct(*)) AS value")
  .writeStream:format("memory"):queryName("structs"):outputMode("append"):start()
ms:addData({{1, "cat"}, {2, "dog"}})
q:processAllAvailable()
T.check(function() return T.rows(spark.table("structs")) end,
  {{"1", '{"id":1,"word":"cat"}'}, {"2", '{"id":2,"word":"dog"}'}}, "to_json(struct(*)) in a stream")
q:stop()

-- CASE, IF, coalesce/nvl over structs and arrays (Spark: any type with a
-- common type; a NULL branch takes it), and a NULL struct apart from a
-- struct of NULLs as a group key, in the batch and across a stream's state
T.check(function() return T.rows(spark.sql([[SELECT CASE WHEN id % 2 = 0 THEN array(id)
  ELSE array(id, id) END AS a, if(id < 2, named_struct('k', id), NULL) AS s,
  coalesce(if(id = 1, NULL, named_struct('k', id)), named_struct('k', CAST(-1 AS BIGINT))) AS c
  FROM range(3)]])) end,
  {{{0}, {k = 0}, {k = 0}}, {{1, 1}, {k = 1}, {k = -1}}, {{2}, nil, {k = 2}}},
  "CASE over arrays, IF and coalesce over structs")
T.check(function() return T.rows(df:selectExpr("nvl(IF(x = 1, NULL, array(x)), array(0)) AS a")) end,
  {{{0}}, {{2}}}, "nvl over arrays")
T.like(err("IF(x = 1, named_struct('a', 1), array(1))"), "should all be the same type",
  "IF over a struct and an array: no common type")

-- CAST between structs (field by field by position, the target's names)
-- and between arrays (element by element); array() of structs
T.check(function() return T.rows(spark.sql([[SELECT CAST(named_struct('k', 1, 's', '2') AS
  STRUCT<a: BIGINT, b: INT>) AS s, CAST(array(1.5, NULL) AS ARRAY<INT>) AS a,
  CAST(array(named_struct('q', 1)) AS ARRAY<STRUCT<q: STRING>>) AS aa]])) end,
  {{{a = 1, b = 2}, {1, nil}, {{q = "1"}}}}, "nested casts")
T.is(tostring(spark.sql("SELECT CAST(named_struct('k', 1) AS STRUCT<a: BIGINT>) AS s").schema),
  "s STRUCT<a: BIGINT> NOT NULL", "the target's field names and types")
local function sqlerr(q)
  local ok, e = pcall(spark.sql, q)
  return ok and "no error" or (type(e) == "table" and e.message or tostring(e))
end
T.like(sqlerr("SELECT CAST(named_struct('k', 1) AS STRUCT<a: INT, b: INT>)"),
  "cannot cast struct<k: int> to struct<a: int, b: int>", "structs of different widths do not cast")
T.like(sqlerr("SELECT CAST(array(1) AS STRUCT<a: INT>)"),
  "cannot cast array<int> to struct<a: int>", "an array is not a struct")

local ms2 = spark.memoryStream("a INT, b INT")
local q2 = ms2:toDF():selectExpr("CASE WHEN a = 1 THEN NULL WHEN a = 4 THEN named_struct('x', 7) " ..
  "ELSE named_struct('x', b) END AS s"):groupBy("s"):count()
  .writeStream:format("memory"):queryName("nullstructs"):outputMode("complete"):start()
ms2:addData({{1, 5}, {2, nil}, {3, nil}, {4, 1}})
q2:processAllAvailable()
T.check(function() return T.rows(spark.sql("SELECT * FROM nullstructs ORDER BY count, s")) end,
  {{nil, 1}, {{x = 7}, 1}, {{}, 2}}, "NULL, {7} and {NULL}: three groups")
ms2:addData({{1, 5}, {2, nil}, {4, 0}, {5, 7}})
q2:processAllAvailable()
T.check(function() return T.rows(spark.sql("SELECT * FROM nullstructs ORDER BY count, s")) end,
  {{nil, 2}, {{}, 3}, {{x = 7}, 3}}, "the second batch merges into each group's state")
q2:stop()
T.done()
