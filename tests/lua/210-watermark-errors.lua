-- Errors around watermarks, by Spark's sentences or by the phrases Spark's
-- tests check (EventTimeWatermarkSuite, StreamingDeduplicationWithin-
-- WatermarkSuite, UnsupportedOperationChecker): withWatermark on an unknown
-- or non-timestamp column, negative and unparsable delays, append mode
-- without a usable watermark, dropDuplicatesWithinWatermark without one,
-- redefining a watermark, the multipleWatermarkPolicy conf.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("value INT")
local input = ms:toDF()

-- error on bad column
local e = T.errors(function() input:withWatermark("badColumn", "1 minute") end, "badColumn",
  "unknown column: the message names it")
T.is(type(e) == "table" and e.code, "AnalysisException", "unknown column: an AnalysisException")
-- error on wrong type
e = T.errors(function() input:withWatermark("value", "1 minute") end, "value",
  "non-timestamp column: the message names the column")
T.like(type(e) == "table" and e.message or tostring(e), "int", "non-timestamp column: and its type (int)")
T.is(type(e) == "table" and e.code, "AnalysisException", "non-timestamp column: an AnalysisException")
T.like(type(e) == "table" and e.message or tostring(e),
  "Event time must be defined on a window or a timestamp, but value is of type int",
  "non-timestamp column: Spark's CheckAnalysis sentence")

-- delay threshold should not be negative.  (Spark checks the sign before the
-- column, so these run on the INT column as the suite does.)
for _, d in ipairs{"-1 year", "1 year -13 months", "1 month -40 days", "-10 seconds"} do
  T.errors(function() input:withWatermark("value", d) end, "should not be negative%.",
    "negative delay '" .. d .. "': ... should not be negative.")
end

-- SPARK-35815: interval forms Spark accepts, and ones it rejects
local timed = input:withColumn("eventTime", F.timestamp_seconds("value"))
for _, d in ipairs{"3 days", "Interval 3 day", "inTerval '3' day", " 5 hours", "INTERVAL 5 hour",
                   "interval '5' hour", "\t8 minutes", "interval 8 minute", "10 seconds",
                   "interval 10 second", "interval '10' second", "1 years", "interval 1 year",
                   "1 months", "interval 1 month", "1 day 2 hours 3 minutes 4 seconds",
                   " interval 1 day 2 hours 3 minutes 4 seconds",
                   "\tinterval '1' day '2' hours '3' minutes '4' seconds",
                   "interval '1 2:3:4' day to second", " 1 year 2 months", "interval 1 year 2 month",
                   "interval '1' year '2' month", "\tinterval '1-2' year to month"} do
  T.lives(function() timed:withWatermark("eventTime", d) end,
    string.format("delay %q is accepted", d))
end
for _, d in ipairs{"1 foo", "interva 2 day", "intrval '3' day", "interval 4 foo", "interval '5' foo",
                   "interval '1 2:3:4' day to hour", "interval '1 2' year to month"} do
  e = T.errors(function() timed:withWatermark("eventTime", d) end, ".",
    string.format("delay %q is rejected", d))
  T.is(type(e) == "table" and e.code, "AnalysisException", string.format("delay %q: an AnalysisException", d))
end

-- the delay's value: interval '1 2:3:4' day to second = 93784 s
local s = T.stream(timed:withWatermark("eventTime", "interval '1 2:3:4' day to second")
  :groupBy(F.window("eventTime", "5 seconds")):count())
s:add(ms, {100000})
s:add(ms, {100001})
local p = T.progress_with_data(s.q)
T.is(p and p.eventTime.watermark, T.iso(100000 - 93784), "interval '1 2:3:4' day to second is 93784 seconds")
s.q:stop()

-- withWatermark on a batch DataFrame is a no-op
local batch = spark.createDataFrame({{1}, {2}}, "key INT"):withColumn("eventTime", F.timestamp_seconds("key"))
T.check(function() return T.rows(batch:withWatermark("eventTime", "1 minute"):select(F.col("eventTime"):cast("long"))) end,
  {{1}, {2}}, "batch: withWatermark is ignored")

-- append mode needs the watermark on a grouping key
local append_msg = "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark"
T.errors(function()
  input:groupBy("value"):count().writeStream:outputMode("append"):format("memory"):queryName("a1"):start()
end, append_msg, "append + aggregation without watermark: Spark's sentence")
T.errors(function()
  timed:withWatermark("eventTime", "10 seconds"):groupBy("value"):count()
    .writeStream:outputMode("append"):format("memory"):queryName("a2"):start()
end, append_msg, "append + aggregation whose keys do not carry the watermark: the same sentence")

-- dropDuplicatesWithinWatermark
local within = "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark"
local ms2 = spark.memoryStream("value STRING")
T.errors(function()
  ms2:toDF():dropDuplicatesWithinWatermark().writeStream:format("memory"):queryName("d1"):start()
end, within, "dropDuplicatesWithinWatermark() without a watermark: Spark's sentence")
T.errors(function()
  ms2:toDF():withColumn("newcol", F.col("value")):dropDuplicatesWithinWatermark("newcol")
    .writeStream:format("memory"):queryName("d2"):start()
end, within, "dropDuplicatesWithinWatermark('newcol') without a watermark")
local ms3 = spark.memoryStream("_1 STRING, _2 INT")
local other = ms3:toDF():select(F.col("_1"):alias("key"), F.timestamp_seconds("_2"):alias("time"))
  :withWatermark("time", "10 seconds")
T.errors(function()
  ms2:toDF():select(F.col("value"):alias("key")):dropDuplicatesWithinWatermark():join(other, "key")
    .writeStream:format("memory"):queryName("d3"):start()
end, within, "the watermark only on the other side of a join does not count")
e = T.errors(function()
  T.rows(spark.createDataFrame({{1}, {2}}, "id INT"):dropDuplicatesWithinWatermark())
end, "dropDuplicatesWithinWatermark is not supported", "batch: dropDuplicatesWithinWatermark fails when run")
T.like(type(e) == "table" and e.message or tostring(e), "batch DataFrames/DataSets", "batch: ... batch DataFrames/DataSets")
T.errors(function() input:dropDuplicatesWithinWatermark("nope") end, "nope",
  "dropDuplicatesWithinWatermark('nope'): unknown column")

-- redefining a watermark (Spark 3.4+)
local ms4 = spark.memoryStream("a BIGINT, b BIGINT")
local twice = ms4:toDF():withColumn("first", F.timestamp_seconds("a")):withColumn("second", F.timestamp_seconds("b"))
  :withWatermark("first", "1 minute"):select("*"):withWatermark("second", "2 minutes")
  :groupBy(F.window("second", "1 minute")):count()
local function run_twice()
  local q = twice.writeStream:outputMode("append"):format("memory"):queryName("twice"):start()
  ms4:addData{{100, 200}}
  local ok, err = pcall(function() q:processAllAvailable() end)
  return q, ok, err
end
e = T.errors(function()
  local q, ok, err = run_twice()
  q:stop()
  if not ok then error(err, 0) end
end, "Redefining watermark is disallowed%.", "redefining a watermark is disallowed by default")
T.like(tostring(e), "spark%.sql%.streaming%.statefulOperator%.allowMultiple", "the message names the conf")
spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "false")
local q, ok = run_twice()
T.ok(ok, "allowMultiple=false: redefining a watermark runs (compatibility mode)")
q:stop()
spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "true")

-- MultipleWatermarkPolicy: fail on incorrect conf values
for _, v in ipairs{"", "random"} do
  e = T.errors(function() spark.conf:set("spark.sql.streaming.multipleWatermarkPolicy", v) end, ".",
    string.format("multipleWatermarkPolicy = %q is rejected", v))
  T.ok(tostring(e):lower():find("valid values are 'min' and 'max'", 1, true),
    string.format("multipleWatermarkPolicy = %q: ... valid values are 'min' and 'max'", v))
end

T.done()
