-- Chained window aggregations (Spark 3.4+ multiple stateful operators,
-- issue 17 item 3): window(window, ...) and window(window_time(window),
-- ...) take the window's end - 1 microsecond as the time (Spark's
-- window_time), and the watermark passes through the first aggregation.
-- Expected rows: MultiStatefulOperatorsSuite "window agg -> window agg,
-- append mode" and "agg -> agg -> agg, append mode".
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function range(a, b)
  local t = {}
  for i = a, b do t[#t + 1] = {i} end
  return t
end

-- window_time on a batch DataFrame: end - 1 microsecond, NULL stays NULL
local df = spark.createDataFrame({{"2016-03-27 19:39:34"}, {"2016-03-27 19:39:56"}}, "time STRING")
T.check(function() return T.rows(df:select(F.window_time(F.window("time", "10 seconds")):cast("string"))
    :orderBy(1)) end,
  {{"2016-03-27 19:39:39.999999"}, {"2016-03-27 19:39:59.999999"}}, "window_time(window) is end - 1 microsecond")
T.check(function() return T.rows(df:groupBy(F.window("time", "10 seconds")):count()
    :groupBy(F.window("window", "1 minute")):agg(F.sum("count"):alias("n"))
    :select(F.col("window.start"):cast("string"), F.col("window.end"):cast("string"), "n")) end,
  {{"2016-03-27 19:39:00", "2016-03-27 19:40:00", 2}}, "batch: a window of windows")
T.check(function() return T.rows(df:groupBy(F.window("time", "10 seconds")):count()
    :groupBy(F.window("window", "20 seconds", "10 seconds")):agg(F.sum("count"):alias("n"))
    :select(F.col("window.start"):cast("string"), "n"):orderBy("start")) end,
  {{"2016-03-27 19:39:20", 1}, {"2016-03-27 19:39:30", 1}, {"2016-03-27 19:39:40", 1}, {"2016-03-27 19:39:50", 1}},
  "batch: a sliding window of windows (the new window column hides the input's)")
T.errors(function() return df:select(F.window_time("time")):collect() end,
  "window_time: argument 1 requires a window column", "window_time of a string is refused")

-- MultiStatefulOperatorsSuite "window agg -> window agg, append mode"
local input = spark.memoryStream("value INT")
local stream = input:toDF()
  :withColumn("eventTime", F.timestamp_seconds("value"))
  :withWatermark("eventTime", "0 seconds")
  :groupBy(F.window("eventTime", "5 seconds"):alias("window"))
  :agg(F.count("*"):alias("count"))
  :groupBy(F.window("window", "10 seconds"))
  :agg(F.count("*"):alias("count"), F.sum("count"):alias("sum"))
  :select(F.col("window"):getField("start"):cast("long"), "count", "sum")
local s = T.stream(stream)
local m = T.state_rows(s.q)
s:add(input, range(10, 21))
T.is(s:new(), {{10, 2, 10}}, "10..21: op1 emits [10, 15) 5 and [15, 20) 5 at watermark 21; op2 emits [10, 20) (2, 10)")
local r = m()
T.is(r.total, {0, 1}, "state rows Seq(0, 1), top first as Spark: op2 nothing, op1 keeps [20, 25)")
T.is(r.dropped, {0, 0}, "nothing dropped")
s:add(input, range(10, 29))
T.is(s:new(), {}, "10..29: [20, 25) 7 goes to op2, which keeps [20, 30) (1, 7)")
r = m()
T.is(r.total, {1, 1}, "state rows Seq(1, 1): op2 [20, 30) (1, 7), op1 [25, 30) 5")
T.is(r.dropped, {0, 2}, "Seq(0, 2): op1 drops the late partial rows [10, 15) and [15, 20)")
s:add(input, {{30}, {31}})
T.is(s:new(), {{20, 2, 12}}, "30, 31: op1 emits [25, 30) 5; op2 emits [20, 30) (2, 12)")
r = m()
T.is(r.total, {0, 1}, "state rows Seq(0, 1)")
T.is(r.dropped, {0, 0}, "nothing dropped")
s.q:stop()

-- The same steps with a stop and a restart from the checkpoint between
-- them: both aggregations' state comes back (StreamTest's
-- StopStream/StartStream)
do
  local dir = T.tempdir()
  local inp = spark.memoryStream("value INT")
  local df2 = inp:toDF()
    :withColumn("eventTime", F.timestamp_seconds("value"))
    :withWatermark("eventTime", "0 seconds")
    :groupBy(F.window("eventTime", "5 seconds"):alias("window"))
    :agg(F.count("*"):alias("count"))
    :groupBy(F.window("window", "10 seconds"))
    :agg(F.count("*"):alias("count"), F.sum("count"):alias("sum"))
    :select(F.col("window"):getField("start"):cast("long"), "count", "sum")
  local got = {}
  local function run(block)
    local q = df2.writeStream:option("checkpointLocation", dir)
      :foreachBatch(function(d) for _, r in ipairs(T.rows(d)) do got[#got + 1] = r end end):start()
    inp:addData(block)
    q:processAllAvailable()
    q:stop()
    local out = T.sorted(got)
    got = {}
    return out
  end
  T.is(run(range(10, 21)), {{10, 2, 10}}, "restarts: 10..21 gives [10, 20) (2, 10)")
  T.is(run(range(10, 29)), {}, "restarts: 10..29 gives nothing")
  T.is(run({{30}, {31}}), {{20, 2, 12}}, "restarts: 30, 31 give [20, 30) (2, 12): op2's state came back")
end

-- MultiStatefulOperatorsSuite "agg -> agg -> agg, append mode"
input = spark.memoryStream("value INT")
stream = input:toDF()
  :withColumn("eventTime", F.timestamp_seconds("value"))
  :withWatermark("eventTime", "0 seconds")
  :groupBy(F.window("eventTime", "5 seconds"):alias("window"))
  :agg(F.count("*"):alias("count"))
  :groupBy(F.window(F.window_time("window"), "10 seconds"))
  :agg(F.count("*"):alias("count"), F.sum("count"):alias("sum"))
  :groupBy(F.window(F.window_time("window"), "20 seconds"))
  :agg(F.count("*"):alias("count"), F.sum("sum"):alias("sum"))
  :select(F.col("window"):getField("start"):cast("long"), F.col("window"):getField("end"):cast("long"),
          "count", "sum")
s = T.stream(stream)
m = T.state_rows(s.q)
s:add(input, range(0, 37))
T.is(s:new(), {{0, 20, 2, 20}}, "0..37: op3 emits [0, 20) (2, 20)")
r = m()
T.is(r.total, {1, 1, 1}, "state rows Seq(1, 1, 1)")
T.is(r.dropped, {0, 0, 0}, "nothing dropped")
s:add(input, range(30, 60))
T.is(s:new(), {{20, 40, 2, 23}, {40, 60, 2, 20}}, "30..60: op3 emits [20, 40) (2, 23) and [40, 60) (2, 20)")
r = m()
T.is(r.total, {0, 0, 1}, "state rows Seq(0, 0, 1): op1 keeps [60, 65)")
T.is(r.dropped, {0, 0, 1}, "Seq(0, 0, 1): op1 drops the late [30, 35)")
s.q:stop()

-- A sliding window of windows, streaming (hand-computed: 1, 2, 6, 12 make
-- [0, 5) 2, [5, 10) 1, [10, 15) 1; their window_times 4.999999, 9.999999
-- and 14.999999 fall in the 10-second windows sliding by 5 seconds).
input = spark.memoryStream("value INT")
stream = input:toDF()
  :withColumn("eventTime", F.timestamp_seconds("value"))
  :withWatermark("eventTime", "0 seconds")
  :groupBy(F.window("eventTime", "5 seconds")):count()
  :groupBy(F.window("window", "10 seconds", "5 seconds")):agg(F.sum("count"):alias("n"))
  :select(F.col("window.start"):cast("long"), "n")
s = T.stream(stream)
s:add(input, {{1}, {2}, {6}, {12}})
T.is(s:new(), {{-5, 2}, {0, 3}}, "watermark 12: [-5, 5) 2 and [0, 10) 3 are complete")
s:add(input, {{30}})
T.is(s:new(), T.sorted{{5, 2}, {10, 1}}, "watermark 30: [5, 15) 2 and [10, 20) 1")
T.like(s.q:toPySpark(), 'groupBy%(F%.window%(F%.window_time%("window"%), "10 seconds", "5 seconds"%)%)',
  "toPySpark writes the window of windows with window_time")
s.q:stop()

T.done()
