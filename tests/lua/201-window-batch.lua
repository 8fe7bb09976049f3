-- window() on batch DataFrames: the expected answers of Spark's
-- DataFrameTimeWindowingSuite (tumbling, startTime, negative startTime,
-- sliding windows where a row lands in several windows, negative times,
-- null timestamps, window.start / window.end selection, millisecond
-- precision), timestamps printed as "2016-03-27 19:39:30".
local T = require("tap")

local function three()
  return spark.createDataFrame({
    {"2016-03-27 19:39:34", 1, "a"},
    {"2016-03-27 19:39:56", 2, "a"},
    {"2016-03-27 19:39:27", 4, "b"}}, "time STRING, value INT, id STRING")
end
-- the suite runs each case on a string column (implicitly cast) and on a
-- timestamp column
local function both(df)
  return {string = df, timestamp = df:withColumn("time", F.col("time"):cast("timestamp"))}
end
-- string first, then timestamp: a stable test order
local function ordered(t)
  local keys, i = {"string", "timestamp"}, 0
  return function()
    i = i + 1
    if keys[i] then return keys[i], t[keys[i]] end
  end
end
local function start_end(df, extra)
  local cols = {F.col("window.start"):cast("string"), F.col("window.end"):cast("string")}
  for _, c in ipairs(extra) do cols[#cols + 1] = c end
  return T.rows(df:orderBy(F.col("window.start"):asc()):select(table.unpack(cols)))
end

for kind, df in ordered(both(spark.createDataFrame({{"2016-03-27 19:39:30", 1, "a"}},
                                                   "time STRING, value INT, id STRING"))) do
  T.check(function() return start_end(df:groupBy(F.window("time", "10 seconds")):agg(F.count("*"):alias("counts")), {"counts"}) end,
    {{"2016-03-27 19:39:30", "2016-03-27 19:39:40", 1}},
    kind .. ": simple tumbling window with record at window start (start inclusive)")
end

for kind, df in ordered(both(spark.createDataFrame({{"2016-03-27 19:39:30", 1, "a"}, {"2016-03-27 19:39:25", 2, "a"}},
                                                   "time STRING, value INT, id STRING"))) do
  T.check(function() return start_end(df:groupBy(F.window("time", "10 seconds", "10 seconds", "-5 seconds"))
      :agg(F.count("*"):alias("counts")), {"counts"}) end,
    {{"2016-03-27 19:39:25", "2016-03-27 19:39:35", 2}},
    kind .. ": SPARK-21590 tumbling window using negative start time")
end

for kind, df in ordered(both(three())) do
  T.check(function() return T.rows(df:groupBy(F.window("time", "10 seconds")):agg(F.count("*"):alias("counts"))
      :orderBy(F.col("window.start"):asc()):select("counts")) end, {{1}, {1}, {1}},
    kind .. ": tumbling window groupBy statement")
  T.check(function() return T.rows(df:groupBy(F.window("time", "10 seconds", "10 seconds", "5 seconds"), "id")
      :agg(F.count("*"):alias("counts")):orderBy(F.col("window.start"):asc()):select("counts")) end, {{1}, {1}, {1}},
    kind .. ": tumbling window groupBy statement with startTime")
  T.check(function() return T.rows(df:groupBy(F.window("time", "10 seconds", "10 seconds", "-5 seconds"), "id")
      :agg(F.count("*"):alias("counts")):orderBy(F.col("window.start"):asc()):select("counts")) end, {{1}, {1}, {1}},
    kind .. ": SPARK-21590 tumbling window groupBy statement with negative startTime")
  T.check(function() return start_end(df:select(F.window("time", "10 seconds"), "value"), {"value"}) end,
    {{"2016-03-27 19:39:20", "2016-03-27 19:39:30", 4},
     {"2016-03-27 19:39:30", "2016-03-27 19:39:40", 1},
     {"2016-03-27 19:39:50", "2016-03-27 19:40:00", 2}},
    kind .. ": tumbling window with multi-column projection")
  T.check(function() return start_end(df:groupBy(F.window("time", "10 seconds", "3 seconds", "0 second"))
      :agg(F.count("*"):alias("counts")), {"counts"}) end,
    {{"2016-03-27 19:39:18", "2016-03-27 19:39:28", 1},
     {"2016-03-27 19:39:21", "2016-03-27 19:39:31", 1},
     {"2016-03-27 19:39:24", "2016-03-27 19:39:34", 1},
     {"2016-03-27 19:39:27", "2016-03-27 19:39:37", 2},
     {"2016-03-27 19:39:30", "2016-03-27 19:39:40", 1},
     {"2016-03-27 19:39:33", "2016-03-27 19:39:43", 1},
     {"2016-03-27 19:39:48", "2016-03-27 19:39:58", 1},
     {"2016-03-27 19:39:51", "2016-03-27 19:40:01", 1},
     {"2016-03-27 19:39:54", "2016-03-27 19:40:04", 1}},
    kind .. ": sliding window grouping (19:39:27 in 4 windows, 19:39:34 and 19:39:56 in 3)")
  T.check(function() return T.rows(df:select(F.window("time", "10 seconds", "3 seconds", "0 second"), "value")
      :orderBy(F.col("window.start"):asc(), F.col("value"):desc()):select("value")) end,
    {{4}, {4}, {4}, {4}, {1}, {1}, {1}, {2}, {2}, {2}},
    kind .. ": sliding window projection expands each row into its windows")
  T.check(function() return T.rows(df:select(F.window("time", "10 seconds"):alias("time_window"), "value")
      :orderBy(F.col("time_window.start"):asc()):select("value")) end, {{4}, {1}, {2}},
    kind .. ": aliased windows")
end

-- PySpark's slideDuration=None with a startTime: tumbling windows shifted
for _, df in ordered(both(three())) do
  T.check(function() return T.rows(df:select(F.window("time", "10 seconds", nil, "5 seconds"), "value")
      :orderBy(F.col("window.start"):asc(), F.col("value"):desc())
      :select(F.col("window.start"):cast("string"), F.col("window.end"):cast("string"), "value")) end,
    {{"2016-03-27 19:39:25", "2016-03-27 19:39:35", 4},
     {"2016-03-27 19:39:25", "2016-03-27 19:39:35", 1},
     {"2016-03-27 19:39:55", "2016-03-27 19:40:05", 2}},
    "F.window(col, size, nil, start): a nil slide means tumbling")
  break
end

for kind, df in ordered(both(spark.createDataFrame({{"1970-01-01 00:00:02", 1}, {"1970-01-01 00:00:12", 2}},
                                                   "time STRING, value INT"))) do
  T.check(function() return start_end(df:select(F.window("time", "10 seconds", "10 seconds", "5 seconds"), "value"), {"value"}) end,
    {{"1969-12-31 23:59:55", "1970-01-01 00:00:05", 1},
     {"1970-01-01 00:00:05", "1970-01-01 00:00:15", 2}},
    kind .. ": negative timestamps")
end

for kind, df in ordered(both(spark.createDataFrame({{"2016-03-27 09:00:05", 1}, {"2016-03-27 09:00:32", 2},
                                                    {nil, 3}, {nil, 4}}, "time STRING, value INT"))) do
  T.check(function() return T.rows(df:select(F.window("time", "10 seconds"), "value"):orderBy(F.col("window.start"):asc())
      :select("value")) end, {{1}, {2}}, kind .. ": null timestamps get no window (rows dropped)")
end

for kind, df in ordered(both(spark.createDataFrame({
    {"2016-03-27 09:00:00.41", 3}, {"2016-03-27 09:00:00.62", 6}, {"2016-03-27 09:00:00.715", 8}},
    "time STRING, value INT"))) do
  T.check(function() return start_end(df:groupBy(F.window("time", "200 milliseconds", "40 milliseconds", "0 milliseconds"))
      :agg(F.count("*"):alias("counts")), {"counts"}) end,
    {{"2016-03-27 09:00:00.24", "2016-03-27 09:00:00.44", 1},
     {"2016-03-27 09:00:00.28", "2016-03-27 09:00:00.48", 1},
     {"2016-03-27 09:00:00.32", "2016-03-27 09:00:00.52", 1},
     {"2016-03-27 09:00:00.36", "2016-03-27 09:00:00.56", 1},
     {"2016-03-27 09:00:00.4", "2016-03-27 09:00:00.6", 1},
     {"2016-03-27 09:00:00.44", "2016-03-27 09:00:00.64", 1},
     {"2016-03-27 09:00:00.48", "2016-03-27 09:00:00.68", 1},
     {"2016-03-27 09:00:00.52", "2016-03-27 09:00:00.72", 2},
     {"2016-03-27 09:00:00.56", "2016-03-27 09:00:00.76", 2},
     {"2016-03-27 09:00:00.6", "2016-03-27 09:00:00.8", 2},
     {"2016-03-27 09:00:00.64", "2016-03-27 09:00:00.84", 1},
     {"2016-03-27 09:00:00.68", "2016-03-27 09:00:00.88", 1}},
    kind .. ": millisecond precision sliding windows")
end

-- the window struct: window.start / window.end, printed as Spark prints them
local w = three():withColumn("time", F.col("time"):cast("timestamp"))
  :groupBy(F.window("time", "10 seconds")):agg(F.sum("value"):alias("total"))
local rows = w:orderBy(F.col("window.start"):asc()):collect()
T.is(rows[1].window, {start = "2016-03-27 19:39:20", ["end"] = "2016-03-27 19:39:30"},
  "collect(): the window column is a table {start, end} of timestamp strings")
T.is(w.dtypes[1], {"window", "struct<start:timestamp,end:timestamp>"}, "window's type is struct<start:timestamp,end:timestamp>")
T.check(function() return T.rows(w:select("window.start", "window.end", "total"):orderBy("start")) end,
  {{"2016-03-27 19:39:20", "2016-03-27 19:39:30", 4},
   {"2016-03-27 19:39:30", "2016-03-27 19:39:40", 1},
   {"2016-03-27 19:39:50", "2016-03-27 19:40:00", 2}},
  "select('window.start', 'window.end') gives columns start and end")
local out = T.capture(function() w:orderBy(F.col("window.start"):asc()):show(20, false) end)
T.ok(out:find("|{2016-03-27 19:39:20, 2016-03-27 19:39:30}|4    |", 1, true), "show(): the window struct as {start, end}")

-- argument errors (Spark's wording)
local ts = three():withColumn("time", F.col("time"):cast("timestamp"))
T.errors(function() ts:select(F.window("time", "10 seconds", "20 seconds")) end,
  "the slide duration %(20 seconds%) must be less than or equal to the windowDuration %(10 seconds%)",
  "slide longer than the window")
T.errors(function() ts:select(F.window("time", "10 seconds", "10 seconds", "10 seconds")) end,
  "the absolute value of start time must be less than the slideDuration",
  "startTime not smaller than the slide")
T.errors(function() ts:select(F.window("time", "0 seconds")) end,
  "the window duration %(0 seconds%) must be greater than 0", "zero-length window")

T.done()
