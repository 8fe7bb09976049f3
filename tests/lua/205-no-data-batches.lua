-- No-data micro-batches (SPARK-SEMANTICS.md 3.4): after input stops, a batch
-- with no new rows still runs when the watermark would evict or emit, so an
-- append-mode window appears without waiting for more data.  With
-- spark.sql.streaming.noDataMicroBatches.enabled=false it waits for the next
-- data (EventTimeWatermarkSuite and StreamingDeduplicationSuite "test no-data
-- flag").  Trigger.Once runs none; AvailableNow runs one before stopping.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local FLAG = "spark.sql.streaming.noDataMicroBatches.enabled"

local function windowed(ms)
  return ms:toDF():withColumn("eventTime", F.timestamp_seconds("value"))
    :withWatermark("eventTime", "10 seconds")
    :groupBy(F.window("eventTime", "5 seconds"):alias("window"))
    :agg(F.count("*"):alias("count"))
    :select(F.col("window"):getField("start"):cast("long"), "count")
end

T.each_conf(FLAG, {"true", "false"}, function(flag)
  local on = flag == "true"
  local tag = "noDataMicroBatches=" .. flag .. ": "
  local ms = spark.memoryStream("value INT")
  local s = T.stream(windowed(ms))
  s:add(ms, {10, 11, 12, 13, 14, 15})
  T.is(s:new(), {}, tag .. "AddData(10..15) -> nothing")
  local before = #s.q.recentProgress
  s:add(ms, {25})
  if on then
    T.is(s:new(), {{10, 5}}, tag .. "AddData(25) -> (10, 5), written by a no-data batch")
    local rp = s.q.recentProgress
    local last = rp[#rp]
    T.is(#rp - before, 2, tag .. "two batches: the data batch and a no-data batch")
    T.is(last.numInputRows, 0, tag .. "the last batch read no rows")
    T.is(last.eventTime.watermark, "1970-01-01T00:00:15.000Z", tag .. "and used the new watermark 15")
    T.is(last.batchId, rp[#rp - 1].batchId + 1, tag .. "a no-data batch has its own batch id")
    T.is(last.sink.numOutputRows, 1, tag .. "the sink took the one row from the no-data batch")
  else
    T.is(s:new(), {}, tag .. "AddData(25) -> nothing: the watermark moved but no batch runs")
    T.is(#s.q.recentProgress - before, 1, tag .. "only the data batch ran")
    T.is(s.q.lastProgress.sink.numOutputRows, 0, tag .. "its sink took no rows")
    s:add(ms, {26})
    T.is(s:new(), {{10, 5}}, tag .. "the next data batch (AddData(26)) writes (10, 5)")
  end
  -- after input stops nothing more is due
  local n = #s.q.recentProgress
  s.q:processAllAvailable()
  T.is(#s.q.recentProgress, n, tag .. "no batch runs while the watermark stays put")
  s.q:stop()
end)

-- dropDuplicates with a watermark: the no-data batch cleans state
T.each_conf(FLAG, {"true", "false"}, function(flag)
  local ms = spark.memoryStream("value INT")
  local dedup = ms:toDF():withColumn("eventTime", F.timestamp_seconds("value"))
    :withWatermark("eventTime", "10 seconds"):dropDuplicates()
    :select(F.col("eventTime"):cast("long"))
  local s = T.stream(dedup)
  local m = T.state_rows(s.q)
  s:add(ms, {10, 11, 12, 13, 14, 15})
  T.is(s:new(), {{10}, {11}, {12}, {13}, {14}, {15}}, "dedup, flag " .. flag .. ": 10..15")
  T.is({m().total}, {6}, "dedup, flag " .. flag .. ": 6 state rows")
  s:add(ms, {25})
  T.is(s:new(), {{25}}, "dedup, flag " .. flag .. ": (25)")
  local r = m()
  T.is({r.total, r.updated}, flag == "true" and {1, 1} or {7, 1},
    "dedup, flag " .. flag .. ": state " .. (flag == "true" and "cleaned (total 1)" or "not cleaned (total 7)"))
  if flag == "true" then
    T.is(s.q.lastProgress.sink.numOutputRows, 0, "dedup, flag true: the last batch (no-data) wrote nothing")
  end
  s.q:stop()
end)

-- Trigger.Once: one batch, never a no-data batch
local ms = spark.memoryStream("value INT")
ms:addData{10, 11, 12, 13, 14, 15}
ms:addData{25}
local s = T.stream(windowed(ms), {trigger = {once = true}})
T.is(s.q:awaitTermination(), true, "once: terminates")
T.is(#s.q.recentProgress, 1, "once: exactly one batch")
T.is(s:new(), {}, "once: the watermark it computes is not used: nothing written")
T.is(s.q.lastProgress.eventTime.watermark, "1970-01-01T00:00:00.000Z", "once: the batch ran with watermark 0")

-- AvailableNow: the data, then one no-data batch, then stop
ms = spark.memoryStream("value INT")
ms:addData{10, 11, 12, 13, 14, 15}
ms:addData{25}
s = T.stream(windowed(ms), {trigger = {availableNow = true}})
T.is(s.q:awaitTermination(), true, "availableNow: terminates")
T.is(s:new(), {{10, 5}}, "availableNow: the final no-data batch writes (10, 5)")
local rp = s.q.recentProgress
T.is(#rp, 2, "availableNow: a data batch and one no-data batch")
T.is(rp[2] and rp[2].numInputRows, 0, "availableNow: the second batch read nothing")
T.is(rp[2] and rp[2].eventTime.watermark, "1970-01-01T00:00:15.000Z", "availableNow: with watermark 15")
T.is(s.q.isActive, false, "availableNow: stopped")

-- ProcessingTime: the no-data batch runs at the next tick, not at once
spark.clock:manual("2026-01-01 12:00:00")
ms = spark.memoryStream("value INT")
s = T.stream(windowed(ms), {trigger = {processingTime = "10 seconds"}})
ms:addData{10, 11, 12, 13, 14, 15, 25}
spark.clock:advance("10 seconds")
T.is(#s.q.recentProgress, 1, "processingTime: one batch at 12:00:10")
T.is(s:new(), {}, "processingTime: nothing written yet")
spark.clock:advance("10 seconds")
T.is(#s.q.recentProgress, 2, "processingTime: the no-data batch runs at the next tick (12:00:20)")
T.is(s:new(), {{10, 5}}, "processingTime: and writes (10, 5)")
T.is(s.q.lastProgress.timestamp, "2026-01-01T12:00:20.000Z", "processingTime: at 12:00:20")
spark.clock:advance("30 seconds")
T.is(#T.ran(s.q), 2, "processingTime: then nothing while the watermark stays")
s.q:stop()

-- complete mode and stateless queries never run no-data batches
ms = spark.memoryStream("value INT")
s = T.stream(windowed(ms), {mode = "complete"})
s:add(ms, {10})
s:add(ms, {40})
T.is(#s.q.recentProgress, 2, "complete mode: no no-data batches")
s.q:stop()
ms = spark.memoryStream("value INT")
local stateless = ms:toDF():withColumn("eventTime", F.timestamp_seconds("value"))
  :withWatermark("eventTime", "10 seconds")
s = T.stream(stateless)
s:add(ms, {20})
s:add(ms, {40})
T.is(#s.q.recentProgress, 2, "stateless query: no no-data batches")
T.is(s.q.lastProgress.eventTime.watermark, "1970-01-01T00:00:10.000Z",
  "stateless query: the watermark is still computed and reported (20 - 10, used by batch 1)")
s.q:stop()

T.done()
