-- Streaming aggregation in update and complete mode: the expected answers
-- of Spark's StreamingAggregationSuite ("simple count, update mode",
-- "simple count, complete mode"), checked batch by batch as CheckLastBatch
-- does; and the output-mode AnalysisExceptions verbatim.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

-- CheckLastBatch: collect each micro-batch's output through foreachBatch
local function start_counting(mode)
  local ms = spark.memoryStream("value INT")
  local agg = ms:toDF():groupBy("value"):agg(F.count("*"):alias("count"))
  local last
  local q = agg.writeStream:outputMode(mode):foreachBatch(function(df, id)
    last = T.sorted_rows(df)
  end):start()
  local function check(rows, want, name)
    ms:addData(rows)
    last = nil
    q:processAllAvailable()
    table.sort(want, function(a, b) return T.repr(a) < T.repr(b) end)
    T.is(last, want, name)
  end
  return q, check, ms
end

-- update mode
local q, check = start_counting("update")
check({3}, {{3, 1}}, "update: AddData(3) -> (3,1)")
check({3, 2}, {{3, 2}, {2, 1}}, "update: AddData(3,2) -> (3,2),(2,1)")
check({3, 2, 1}, {{3, 3}, {2, 2}, {1, 1}}, "update: AddData(3,2,1) -> (3,3),(2,2),(1,1)")
check({4, 4, 4, 4}, {{4, 4}}, "update: AddData(4,4,4,4) -> only the changed group (4,4)")
local so = q.lastProgress.stateOperators[1]
T.is(so.numRowsTotal, 4, "stateOperators[1].numRowsTotal: four groups in state")
T.is(so.numRowsUpdated, 1, "stateOperators[1].numRowsUpdated: one group changed")
T.is(type(so.memoryUsedBytes), "number", "stateOperators[1].memoryUsedBytes is reported")
q:stop()

-- complete mode
q, check = start_counting("complete")
check({3}, {{3, 1}}, "complete: AddData(3) -> (3,1)")
check({2}, {{3, 1}, {2, 1}}, "complete: AddData(2) -> the whole table (3,1),(2,1)")
check({3, 2, 1}, {{3, 2}, {2, 2}, {1, 1}}, "complete: AddData(3,2,1) -> (3,2),(2,2),(1,1)")
check({4, 4, 4, 4}, {{4, 4}, {3, 2}, {2, 2}, {1, 1}}, "complete: AddData(4,4,4,4) -> all four groups")
q:stop()

-- complete mode into the memory sink: the table is replaced each batch
local ms = spark.memoryStream("word STRING")
local counts = ms:toDF():groupBy("word"):count()
q = counts.writeStream:format("memory"):queryName("words"):outputMode("complete"):start()
ms:addData{"a", "b", "a"}
q:processAllAvailable()
T.is(T.sorted_rows(spark.table("words")), {{"a", 2}, {"b", 1}}, "memory sink, complete: first table")
ms:addData{"b", "c"}
q:processAllAvailable()
T.is(T.sorted_rows(spark.table("words")), {{"a", 2}, {"b", 2}, {"c", 1}}, "memory sink, complete: replaced by the new table")
q:stop()

-- aggregate functions over a stream, update mode
local ms2 = spark.memoryStream("k STRING, v INT")
local stats = ms2:toDF():groupBy("k"):agg(F.sum("v"):alias("s"), F.max("v"):alias("m"))
q = stats.writeStream:format("memory"):queryName("stats"):outputMode("update"):start()
ms2:addData{{"x", 1}, {"y", 5}, {"x", 2}}
q:processAllAvailable()
ms2:addData{{"x", 10}}
q:processAllAvailable()
T.is(T.rows(spark.table("stats")), {{"x", 3, 2}, {"y", 5, 5}, {"x", 13, 10}},
  "memory sink, update: each batch appends its changed groups")
q:stop()

-- unsupported combinations: Spark's sentences, at start()
local agg = ms:toDF():groupBy("word"):count()
T.errors(function() agg.writeStream:format("memory"):queryName("x"):outputMode("append"):start() end,
  "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark",
  "append + aggregation without watermark")
local e = T.errors(function() agg.writeStream:format("console"):start() end,
  "Append output mode not supported when there are streaming aggregations", "append is the default mode")
T.is(type(e) == "table" and e.code, "AnalysisException", "it is an AnalysisException")
T.errors(function() ms:toDF().writeStream:format("console"):outputMode("complete"):start() end,
  "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets",
  "complete without aggregation")
T.is(#spark.streams.active, 0, "a query that failed analysis is not active")

T.done()
