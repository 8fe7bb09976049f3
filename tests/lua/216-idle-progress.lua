-- Progress while idle (issue 17 item 5): a trigger that runs no batch still
-- reports a progress once spark.sql.streaming.noDataProgressEventInterval
-- has passed since the last one: the next batch id, numInputRows 0, the
-- state operators' totals with nothing updated, sink rows 0.  Expected:
-- StreamingQueryStatusAndProgressSuite "SPARK-19378: Continue reporting
-- stateOp metrics even if there is no active trigger" and
-- StreamingQueryListenerSuite "only one progress event per interval when
-- no data".
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

-- SPARK-19378
spark.conf:set("spark.sql.streaming.noDataProgressEventInterval", "10")
local input = spark.memoryStream("value INT")
local q = input:toDF():groupBy("value"):agg(F.count("*")).writeStream
  :queryName("metric_continuity"):format("memory"):outputMode("complete")
  :trigger{processingTime = "1 second"}:start()
input:addData{1, 2}
q:processAllAvailable()
local progress = q.lastProgress
T.is(#progress.stateOperators > 0, true, "the batch reports its state operator")
spark.clock:advance("1 second")
local next = q.lastProgress
T.isnt(next.timestamp, progress.timestamp, "a new progress though no batch ran")
T.is({next.batchId, next.numInputRows, next.stateOperators[1].numRowsTotal,
      next.stateOperators[1].numRowsUpdated, next.sink.numOutputRows},
  {1, 0, 2, 0, 0}, "next batch id, numInputRows 0, numRowsTotal 2, numRowsUpdated 0, sink rows 0")
T.is({next.sources[1].startOffset, next.sources[1].endOffset, next.sources[1].numInputRows},
  {0, 0, 0}, "the source where it is, no rows")
q:stop()

-- "only one progress event per interval when no data": 100 triggers of 10 ms
spark.conf:set("spark.sql.streaming.noDataProgressEventInterval", "100ms")
local n = 0
local listener = {onQueryProgress = function() n = n + 1 end}
spark.streams:addListener(listener)
input = spark.memoryStream("value INT")
q = input:toDF().writeStream:format("memory"):queryName("idle216")
  :trigger{processingTime = "10 milliseconds"}:start()
for _ = 1, 100 do spark.clock:advance("10 milliseconds") end
T.ok(#q.recentProgress > 1 and #q.recentProgress <= 11,
  "recentProgress holds at most one idle progress per 100 ms (" .. #q.recentProgress .. ")")
T.is(n, #q.recentProgress, "one onQueryProgress per idle progress")
T.is(q.lastProgress.numInputRows, 0, "idle progress: numInputRows 0")
spark.streams:removeListener(listener)
q:stop()

-- the default interval is 10 seconds
spark.conf:set("spark.sql.streaming.noDataProgressEventInterval", "10000")
input = spark.memoryStream("value INT")
q = input:toDF().writeStream:format("memory"):queryName("idle216b")
  :trigger{processingTime = "1 second"}:start()
input:addData{1}
spark.clock:advance("1 second")
T.is(#q.recentProgress, 1, "one batch")
for _ = 1, 9 do spark.clock:advance("1 second") end
T.is(#q.recentProgress, 1, "9 idle seconds: nothing yet")
spark.clock:advance("1 second")
T.is(#q.recentProgress, 2, "10 seconds after the batch: an idle progress")
T.is(q.lastProgress.batchId, 1, "for the next batch id")
q:stop()
T.errors(function()
  spark.conf:set("spark.sql.streaming.noDataProgressEventInterval", "soon")
  return spark.memoryStream("value INT"):toDF().writeStream:format("memory"):queryName("bad216"):start()
end, "noDataProgressEventInterval: bad time 'soon'", "a bad interval is refused at start")

T.done()
