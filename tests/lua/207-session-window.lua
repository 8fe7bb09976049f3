-- session_window: Spark's StreamingSessionWindowSuite in complete and append
-- mode (sessions before and after earlier ones, sessions bridged and merged
-- by a new event, late rows counted per input row), the update-mode and
-- global-session errors, and session_window on batch DataFrames
-- (DataFrameSessionWindowingSuite).
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

-- sessionWindowQuery: words of a line are session ids; gap 10 s, delay 30 s
local function sessions(ms)
  return ms:toDF():select(F.col("_1"):alias("value"), F.col("_2"):alias("timestamp"))
    :withColumn("eventTime", F.col("timestamp"):cast("timestamp"))
    :withWatermark("eventTime", "30 seconds")
    :selectExpr("explode(split(value, ' ')) AS sessionId", "eventTime")
    :groupBy(F.session_window("eventTime", "10 seconds"):alias("session"), "sessionId")
    :agg(F.count("*"):alias("numEvents"))
    :selectExpr("sessionId", "CAST(session.start AS LONG)", "CAST(session.end AS LONG)",
      "CAST(session.end AS LONG) - CAST(session.start AS LONG) AS durationMs", "numEvents")
end
local function new_input() return spark.memoryStream("_1 STRING, _2 BIGINT") end

-- complete mode
local ms = new_input()
local s = T.stream(sessions(ms), {mode = "complete"})
s:add(ms, {{"hello world spark streaming", 40}, {"world hello structured streaming", 41}})
T.is(s:last(), T.sorted{{"hello", 40, 51, 11, 2}, {"world", 40, 51, 11, 2}, {"streaming", 40, 51, 11, 2},
                        {"spark", 40, 50, 10, 1}, {"structured", 41, 51, 10, 1}},
  "complete: two lines, overlapping events merge into one session per word")
s:add(ms, {{"spark streaming", 25}})
T.is(s:last(), T.sorted{{"spark", 25, 35, 10, 1}, {"streaming", 25, 35, 10, 1},
                        {"hello", 40, 51, 11, 2}, {"world", 40, 51, 11, 2}, {"streaming", 40, 51, 11, 2},
                        {"spark", 40, 50, 10, 1}, {"structured", 41, 51, 10, 1}},
  "complete: new sessions placed before the previous ones")
s:add(ms, {{"spark streaming", 30}})
T.is(s:last(), T.sorted{{"spark", 25, 50, 25, 3}, {"streaming", 25, 51, 26, 4},
                        {"hello", 40, 51, 11, 2}, {"world", 40, 51, 11, 2}, {"structured", 41, 51, 10, 1}},
  "complete: an event at 30 bridges [25, 35) and [40, ...) into one session")
s:add(ms, {{"hello apache spark", 60}})
T.is(s:last(), T.sorted{{"spark", 25, 50, 25, 3}, {"streaming", 25, 51, 26, 4},
                        {"hello", 40, 51, 11, 2}, {"world", 40, 51, 11, 2}, {"structured", 41, 51, 10, 1},
                        {"hello", 60, 70, 10, 1}, {"apache", 60, 70, 10, 1}, {"spark", 60, 70, 10, 1}},
  "complete: new sessions placed after the previous ones")
s:add(ms, {{"structured streaming", 90}})
T.is(s:last(), T.sorted{{"spark", 25, 50, 25, 3}, {"streaming", 25, 51, 26, 4},
                        {"hello", 40, 51, 11, 2}, {"world", 40, 51, 11, 2}, {"structured", 41, 51, 10, 1},
                        {"hello", 60, 70, 10, 1}, {"apache", 60, 70, 10, 1}, {"spark", 60, 70, 10, 1},
                        {"structured", 90, 100, 10, 1}, {"streaming", 90, 100, 10, 1}},
  "complete: everything is kept (complete mode ignores the watermark)")
s.q:stop()

-- append mode
ms = new_input()
s = T.stream(sessions(ms))
s:add(ms, {{"hello world spark streaming", 40}, {"world hello structured streaming", 41}})
T.is(s:new(), {}, "append: nothing yet (watermark 11)")
s:add(ms, {{"spark streaming", 25}})
T.is(s:new(), {}, "append: sessions at 25 before the others: nothing")
s:add(ms, {{"spark streaming", 0}})
T.is(s:new(), {}, "append: the late event at 0 (session end 10 <= watermark 11) is dropped")
T.is(T.progress_with_data(s.q).stateOperators[1].numRowsDroppedByWatermark, 2,
  "append: numRowsDroppedByWatermark 2 (session windows count input rows)")
s:add(ms, {{"spark streaming", 30}})
T.is(s:new(), {}, "append: 30 merges sessions: nothing yet")
s:add(ms, {{"hello apache spark", 60}})
T.is(s:new(), {}, "append: watermark 30: nothing yet")
s:add(ms, {{"structured streaming", 90}})
T.is(s:new(), T.sorted{{"spark", 25, 50, 25, 3}, {"streaming", 25, 51, 26, 4},
                       {"hello", 40, 51, 11, 2}, {"world", 40, 51, 11, 2}, {"structured", 41, 51, 10, 1}},
  "append: watermark 60 closes the sessions ending <= 60, each written once")
s.q:stop()

-- session window with min_by / max_by (first/last are non-deterministic)
T.check(function()
  local got = {}
  ms = new_input()
  local agg = ms:toDF():select(F.col("_1"):alias("value"), F.col("_2"):alias("timestamp"))
    :withColumn("eventTime", F.col("timestamp"):cast("timestamp"))
    :withWatermark("eventTime", "30 seconds")
    :selectExpr("explode(split(value, ' ')) AS sessionId", "eventTime")
    :groupBy(F.session_window("eventTime", "10 seconds"):alias("session"), "sessionId")
    :agg(F.min_by("eventTime", "eventTime"):alias("minTime"), F.max_by("eventTime", "eventTime"):alias("maxTime"))
    :selectExpr("sessionId", "CAST(session.start AS LONG)", "CAST(session.end AS LONG)",
      "CAST(minTime AS LONG)", "CAST(maxTime AS LONG)")
  local st = T.stream(agg)
  ms:addData{{"a", 41}}
  ms:addData{{"a", 42}}
  ms:addData{{"a", 40}}
  st.q:processAllAvailable()
  got[1] = st:new()
  ms:addData{{"b", 100}}
  ms:addData{{"b", 101}}
  st.q:processAllAvailable()
  got[2] = st:new()
  st.q:stop()
  return got
end, {{}, {{"a", 40, 52, 40, 42}}}, "min_by/max_by: nothing, then (a, 40, 52, 40, 42) once the watermark passes")

-- update mode is rejected; a session window as the only key is rejected
ms = new_input()
T.errors(function() sessions(ms).writeStream:outputMode("update"):format("memory"):queryName("u"):start() end,
  "Update output mode not supported for session window on streaming DataFrames/DataSets",
  "update mode: Spark's AnalysisException")
local ms1 = spark.memoryStream("value INT")
local global = ms1:toDF():withColumn("eventTime", F.col("value"):cast("timestamp"))
  :withWatermark("eventTime", "10 seconds")
  :groupBy(F.session_window("eventTime", "5 seconds"):alias("session"))
  :agg(F.count("*"):alias("count"), F.sum("value"):alias("sum"))
T.errors(function() global.writeStream:outputMode("update"):format("memory"):queryName("g"):start() end,
  "Update output mode not supported for session window", "update mode, no key: the update-mode error first")
for _, mode in ipairs{"complete", "append"} do
  T.errors(function()
    local q = global.writeStream:outputMode(mode):format("memory"):queryName("g" .. mode):start()
    ms1:addData{40}
    local ok, err = pcall(function() q:processAllAvailable() end)
    q:stop()
    if not ok then error(err, 0) end
  end, "Global aggregation with session window in streaming query is not supported",
    mode .. " mode, session window as the only key: Spark's sentence")
end

-- batch DataFrames (DataFrameSessionWindowingSuite)
local df = spark.createDataFrame({{"2016-03-27 19:39:30", 1, "a"}}, "time STRING, value INT, id STRING")
  :withColumn("time", F.col("time"):cast("timestamp"))
T.check(function() return T.rows(df:groupBy(F.session_window("time", "10 seconds"))
    :agg(F.count("*"):alias("counts"))
    :select(F.col("session_window.start"):cast("string"), F.col("session_window.end"):cast("string"), "counts")) end,
  {{"2016-03-27 19:39:30", "2016-03-27 19:39:40", 1}}, "batch: simple session window with record at window start")
local three = spark.createDataFrame({
  {"2016-03-27 19:39:34", 1, "a"}, {"2016-03-27 19:39:56", 2, "a"}, {"2016-03-27 19:39:27", 4, "b"}},
  "time STRING, value INT, id STRING"):withColumn("time", F.col("time"):cast("timestamp"))
T.check(function() return T.rows(three:groupBy(F.session_window("time", "10 seconds"))
    :agg(F.count("*"):alias("counts")):orderBy(F.col("session_window.start"):asc())
    :select(F.col("session_window.start"):cast("string"), F.col("session_window.end"):cast("string"), "counts")) end,
  {{"2016-03-27 19:39:27", "2016-03-27 19:39:44", 2}, {"2016-03-27 19:39:56", "2016-03-27 19:40:06", 1}},
  "batch: 19:39:27 and 19:39:34 merge (gap 10 s); a global session is fine on a batch")
T.check(function() return T.rows(three:groupBy(F.session_window("time", "10 seconds"), "id")
    :agg(F.sum("value"):alias("total")):orderBy(F.col("session_window.start"):asc())
    :select(F.col("session_window.start"):cast("string"), F.col("session_window.end"):cast("string"), "id", "total")) end,
  {{"2016-03-27 19:39:27", "2016-03-27 19:39:37", "b", 4},
   {"2016-03-27 19:39:34", "2016-03-27 19:39:44", "a", 1},
   {"2016-03-27 19:39:56", "2016-03-27 19:40:06", "a", 2}},
  "batch: sessions per key")
T.check(function() return three.dtypes[1] and
    three:groupBy(F.session_window("time", "10 seconds")):count().dtypes[1] end,
  {"session_window", "struct<start:timestamp,end:timestamp>"}, "batch: the column session_window is a struct")

T.done()
