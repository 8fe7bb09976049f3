-- Watermarks on a windowed aggregation: Spark's EventTimeWatermarkSuite
-- ("event time and watermark metrics", "append mode", "update mode",
-- "complete mode", "group by on raw timestamp", "delay in months and years
-- handled correctly"), run under both watermark modes:
-- spark.sql.streaming.statefulOperator.allowMultiple = true (Spark 3.4+,
-- the default: late rows judged by the previous batch's watermark) and false
-- (one watermark).  The suite's answers are the same in both, because a
-- no-data batch runs between the data batches.  ("recovery" needs the
-- checkpoint milestone.)
-- Progress checks read the last progress that had input, as the suite's
-- assertEventStats / assertNumRowsDroppedByWatermark do.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local ALLOW = "spark.sql.streaming.statefulOperator.allowMultiple"

-- value seconds -> eventTime, 5-second windows, start as seconds, count
local function windowed(ms, delay)
  local df = ms:toDF():withColumn("eventTime", F.timestamp_seconds("value"))
  if delay then df = df:withWatermark("eventTime", delay) end
  return df:groupBy(F.window("eventTime", "5 seconds"):alias("window"))
    :agg(F.count("*"):alias("count"))
    :select(F.col("window"):getField("start"):cast("long"), "count")
end

local function event_stats(q)
  local p = T.progress_with_data(q)
  return p and p.eventTime
end
local function stats(min, max, avg, wm)
  return {min = T.iso(min), max = T.iso(max), avg = T.iso(avg), watermark = T.iso(wm)}
end

T.each_conf(ALLOW, {"true", "false"}, function(allow)
  local tag = "allowMultiple=" .. allow .. ": "

  -- event time and watermark metrics: none without a watermark
  local ms = spark.memoryStream("value INT")
  local s = T.stream(windowed(ms), {mode = "complete"})
  s:add(ms, {15})
  T.is(s:last(), {{15, 1}}, tag .. "metrics, no watermark: CheckAnswer((15, 1))")
  local e = event_stats(s.q)
  T.ok(e == nil or next(e) == nil, tag .. "metrics, no watermark: eventTime is empty")
  s:add(ms, {10, 12, 14})
  T.is(s:last(), {{10, 3}, {15, 1}}, tag .. "metrics, no watermark: CheckAnswer((10, 3), (15, 1))")
  e = event_stats(s.q)
  T.ok(e == nil or next(e) == nil, tag .. "metrics, no watermark: still no eventTime")
  s.q:stop()

  -- event time and watermark metrics: with withWatermark
  ms = spark.memoryStream("value INT")
  s = T.stream(windowed(ms, "10 seconds"))
  s:add(ms, {15})
  T.is(s:new(), {}, tag .. "metrics: AddData(15) -> nothing")
  T.is(event_stats(s.q), stats(15, 15, 15, 0), tag .. "metrics: min=max=avg=15, watermark 0")
  s:add(ms, {10, 12, 14})
  T.is(s:new(), {}, tag .. "metrics: AddData(10, 12, 14) -> nothing")
  T.is(event_stats(s.q), stats(10, 14, 12, 5), tag .. "metrics: min 10, max 14, avg 12, watermark 5")
  s:add(ms, {25})
  T.is(s:new(), {{10, 3}}, tag .. "metrics: AddData(25) -> (10, 3)")
  T.is(event_stats(s.q), stats(25, 25, 25, 5), tag .. "metrics: min=max=avg=25, watermark 5 (used by that batch)")
  T.is(s.q.lastProgress.eventTime.watermark, "1970-01-01T00:00:15.000Z",
    tag .. "metrics: the no-data batch after it uses watermark 15")
  T.is(s.q.lastProgress.numInputRows, 0, tag .. "metrics: that last batch read no rows")
  s.q:stop()

  -- append mode
  ms = spark.memoryStream("value INT")
  s = T.stream(windowed(ms, "10 seconds"))
  s:add(ms, {10, 11, 12, 13, 14, 15})
  T.is(s:new(), {}, tag .. "append: AddData(10..15) -> nothing")
  s:add(ms, {25})
  T.is(s:new(), {{10, 5}}, tag .. "append: AddData(25) advances the watermark to 15 -> (10, 5)")
  T.is(s.q.lastProgress.stateOperators[1].numRowsTotal, 2, tag .. "append: numRowsTotal 2")
  T.is(T.progress_with_data(s.q).stateOperators[1].numRowsDroppedByWatermark, 0,
    tag .. "append: numRowsDroppedByWatermark 0")
  s:add(ms, {10})
  T.is(s:new(), {}, tag .. "append: AddData(10) is behind the watermark -> nothing")
  T.is(s.q.lastProgress.stateOperators[1].numRowsTotal, 2, tag .. "append: numRowsTotal still 2")
  T.is(T.progress_with_data(s.q).stateOperators[1].numRowsDroppedByWatermark, 1,
    tag .. "append: numRowsDroppedByWatermark 1")
  s.q:stop()

  -- update mode
  ms = spark.memoryStream("value INT")
  s = T.stream(windowed(ms, "10 seconds"), {mode = "update"})
  s:add(ms, {10, 11, 12, 13, 14, 15})
  T.is(s:new(), {{10, 5}, {15, 1}}, tag .. "update: AddData(10..15) -> (10, 5), (15, 1)")
  s:add(ms, {25})
  T.is(s:new(), {{25, 1}}, tag .. "update: AddData(25) -> (25, 1)")
  T.is(s.q.lastProgress.stateOperators[1].numRowsTotal, 2, tag .. "update: numRowsTotal 2 after eviction")
  T.is(T.progress_with_data(s.q).stateOperators[1].numRowsDroppedByWatermark, 0,
    tag .. "update: numRowsDroppedByWatermark 0")
  s:add(ms, {10, 25})
  T.is(s:new(), {{25, 2}}, tag .. "update: AddData(10, 25) ignores 10 -> (25, 2)")
  T.is(s.q.lastProgress.stateOperators[1].numRowsTotal, 2, tag .. "update: numRowsTotal 2")
  T.is(T.progress_with_data(s.q).stateOperators[1].numRowsDroppedByWatermark, 1,
    tag .. "update: numRowsDroppedByWatermark 1")
  s:add(ms, {10})
  T.is(s:new(), {}, tag .. "update: AddData(10) -> nothing")
  T.is(s.q.lastProgress.stateOperators[1].numRowsTotal, 2, tag .. "update: numRowsTotal 2")
  T.is(T.progress_with_data(s.q).stateOperators[1].numRowsDroppedByWatermark, 1,
    tag .. "update: numRowsDroppedByWatermark 1")
  s.q:stop()

  -- complete mode: no eviction, nothing dropped
  ms = spark.memoryStream("value INT")
  s = T.stream(windowed(ms, "10 seconds"), {mode = "complete"})
  s:add(ms, {10, 11, 12})
  T.is(s:last(), {{10, 3}}, tag .. "complete: (10, 3)")
  s:add(ms, {25})
  T.is(s:last(), {{10, 3}, {25, 1}}, tag .. "complete: (10, 3), (25, 1)")
  s:add(ms, {25})
  T.is(s:last(), {{10, 3}, {25, 2}}, tag .. "complete: (10, 3), (25, 2)")
  s:add(ms, {10})
  T.is(s:last(), {{10, 4}, {25, 2}}, tag .. "complete: a row behind the watermark still counts: (10, 4)")
  s:add(ms, {25})
  T.is(s:last(), {{10, 4}, {25, 3}}, tag .. "complete: (10, 4), (25, 3)")
  s.q:stop()

  -- group by on raw timestamp
  ms = spark.memoryStream("value INT")
  local raw = ms:toDF():withColumn("eventTime", F.timestamp_seconds("value"))
    :withWatermark("eventTime", "10 seconds"):groupBy("eventTime")
    :agg(F.count("*"):alias("count")):select(F.col("eventTime"):cast("long"), "count")
  s = T.stream(raw)
  s:add(ms, {10})
  T.is(s:new(), {}, tag .. "raw timestamp key: AddData(10) -> nothing")
  s:add(ms, {25})
  T.is(s:new(), {{10, 1}}, tag .. "raw timestamp key: AddData(25) -> (10, 1)")
  s.q:stop()

  -- delay in months and years: a month is 31 days (SPARK-35815)
  local ms2 = spark.memoryStream("value BIGINT")
  s = T.stream(windowed(ms2, "2 years 5 months"))
  local now = 1767268800 -- 2026-01-01 12:00:00
  s:add(ms2, {now})
  s:add(ms2, {now})
  e = event_stats(s.q)
  T.is(e and e.max, "2026-01-01T12:00:00.000Z", tag .. "months: max is the event time")
  T.is(e and e.watermark, T.iso(now - 29 * 31 * 86400),
    tag .. "months: watermark = max - 29 x 31 days (2023-07-17T12:00:00.000Z)")
  s.q:stop()
end)

T.is(spark.conf:get(ALLOW), "true", "allowMultiple is back to its default")
T.done()
