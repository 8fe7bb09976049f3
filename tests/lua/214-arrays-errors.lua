-- F.array with size, element_at and explode (issue 17 item 5), and error
-- sentences as Spark's: ForeachBatchSinkSuite "throws errors in invalid
-- situations" (a nil function, a continuous trigger) and
-- KafkaSourceProviderSuite / KafkaMicroBatchSourceSuite "bad source
-- options" (assign "" -> "no topicpartitions to assign").
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local df = spark.createDataFrame({{1, 2}, {3, nil}}, "a INT, b INT")
T.check(function() return T.rows(df:select(F.array("a", "b"), F.size(F.array("a", "b")))) end,
  {{{1, 2}, 2}, {{3, nil}, 2}}, "array(a, b) keeps a NULL element; size counts it")
T.is(df:select(F.array("a", "b")).columns, {"array(a, b)"}, "Spark's column name array(a, b)")
T.check(function() return T.rows(df:select(F.explode(F.array("a", "b")):alias("x"))) end,
  {{1}, {2}, {3}, {nil}}, "explode(array(a, b)): one row per element")
T.check(function() return T.rows(df:select(F.element_at(F.array("a", "b"), 1), F.element_at(F.array("a", "b"), -1),
    F.element_at(F.array("a", "b"), 3))) end,
  {{1, 2, nil}, {3, nil, nil}}, "element_at: 1-based, negative from the end, NULL past the end")
T.check(function() return T.rows(df:selectExpr("size(cast(null as array<int>))", "cardinality(array(a, a, a))")) end,
  {{-1, 3}, {-1, 3}}, "size(NULL) is -1 (spark.sql.legacy.sizeOfNull)")
T.check(function() return T.rows(df:selectExpr("array(a, 1.5)")) end,
  {{{1.0, 1.5}}, {{3.0, 1.5}}}, "array() widens to the common type")
T.errors(function() return df:select(F.element_at(F.array("a"), 0)):collect() end,
  "%[INVALID_INDEX_OF_ZERO%] The index 0 is invalid", "element_at(arr, 0) is Spark's error")
T.errors(function() return df:select(F.size("a")):collect() end,
  "argument 1 requires array type, however, 'a' is of int type", "size of an int")

-- streaming: explode(array(...)) per micro-batch
local ms = spark.memoryStream("a INT, b INT")
local s = T.stream(ms:toDF():select(F.explode(F.array("a", "b")):alias("x")))
s:add(ms, {{1, 2}, {5, 6}})
T.is(s:new(), {{1}, {2}, {5}, {6}}, "a stream explodes array(a, b)")
T.like(s.q:toPySpark(), '"explode%(array%(a, b%)%) AS x"', "toPySpark writes the generator with array(a, b)")
s.q:stop()

-- ForeachBatchSinkSuite "throws errors in invalid situations"
local w = spark.memoryStream("value INT"):toDF().writeStream
T.errors(function() return w:foreachBatch(nil) end, ": foreachBatch function cannot be null$",
  "foreachBatch(nil)")
T.errors(function() return w:foreachBatch(function() end):trigger{continuous = "1 second"}:start() end,
  ": 'foreachBatch' is not supported with continuous trigger$", "foreachBatch with a continuous trigger")
w = spark.memoryStream("value INT"):toDF().writeStream
T.errors(function() return w:format("memory"):queryName("c214"):trigger{continuous = "1 second"}:start() end,
  "continuous processing is not supported by streamlab", "other sinks: streamlab has no continuous mode")
T.is(#spark.streams.active, 0, "no query was started")

-- KafkaMicroBatchSourceSuite "bad source options"
T.errors(function()
  return spark.readStream:format("kafka"):option("kafka.bootstrap.servers", "localhost:9092")
    :option("assign", ""):load().writeStream:format("memory"):queryName("k214"):start()
end, "No topicpartitions to assign as specified value for option 'assign' is ''", "assign \"\"")

T.done()
