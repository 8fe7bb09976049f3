-- session_window with a gap given per row (SPARK-36465, issue 17 item 4):
-- the gap is a string Column, a row whose gap is NULL, not a duration or
-- <= 0 has no session (Spark drops it), and sessions merge over each
-- row's own [ts, ts + gap).  Expected rows: DataFrameSessionWindowingSuite
-- ("SPARK-36465: time window in SQL with dynamic string expression", "...
-- conditional expression as gap duration", "... filter out events with
-- negative/zero gap duration", "... invalid gap duration", "Unsupported
-- dynamic gap datatype") and StreamingSessionWindowSuite "SPARK-36465:
-- dynamic gap duration" (its UDF written as F.when).
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local tbl = spark.createDataFrame({
  {"2016-03-27 19:39:34", 1, "10 seconds"},
  {"2016-03-27 19:39:56", 2, "20 seconds"},
  {"2016-03-27 19:39:27", 4, "30 seconds"}}, "time STRING, value INT, duration STRING")
local function se(df, extra)
  return T.sorted(T.rows(df:select(F.col("session_window.start"):cast("string"),
                                   F.col("session_window.end"):cast("string"), extra)))
end

T.check(function() return se(tbl:select(F.session_window("time", F.col("duration")), "value"), "value") end,
  T.sorted{{"2016-03-27 19:39:27", "2016-03-27 19:39:57", 4},
           {"2016-03-27 19:39:34", "2016-03-27 19:39:44", 1},
           {"2016-03-27 19:39:56", "2016-03-27 19:40:16", 2}},
  "time window in SQL with dynamic string expression")
T.check(function() return se(tbl:select(F.expr(
    "session_window(time, case when value = 1 then '2 seconds' when value = 2 then '10 seconds' else '20 seconds' end)"),
    "value"), "value") end,
  T.sorted{{"2016-03-27 19:39:27", "2016-03-27 19:39:47", 4},
           {"2016-03-27 19:39:34", "2016-03-27 19:39:36", 1},
           {"2016-03-27 19:39:56", "2016-03-27 19:40:06", 2}},
  "time window in SQL with conditional expression as gap duration")
local gap = F.when(F.col("value"):eq(1), "0 seconds"):when(F.col("value"):eq(2), "-10 seconds"):otherwise("5 seconds")
T.check(function() return se(tbl:groupBy(F.session_window("time", gap)):agg(F.count("*"):alias("counts")), "counts") end,
  {{"2016-03-27 19:39:27", "2016-03-27 19:39:32", 1}}, "filter out events with negative/zero gap duration")
T.check(function() return se(tbl:groupBy(F.session_window("time", F.expr(
    "case when value = 1 then '2 seconds' when value = 2 then 'invalid gap duration' else '20 seconds' end")))
    :agg(F.count("*"):alias("counts")), "counts") end,
  T.sorted{{"2016-03-27 19:39:27", "2016-03-27 19:39:47", 2}},
  "an invalid gap drops the row: 19:39:34 + 2 s merges into 19:39:27 + 20 s")
T.errors(function() return tbl:select(F.session_window("time", F.col("value") * 1.0)):collect() end,
  "Gap duration expression used in session window must be CalendarIntervalType, but got DoubleType",
  "Unsupported dynamic gap datatype (Spark names the type; its test has a decimal 1.0)")

-- StreamingSessionWindowSuite "SPARK-36465: dynamic gap duration"
local input = spark.memoryStream("value STRING, timestamp BIGINT")
local events = input:toDF()
  :withColumn("eventTime", F.col("timestamp"):cast("timestamp"))
  :withWatermark("eventTime", "30 seconds")
  :selectExpr("explode(split(value, ' ')) AS sessionId", "eventTime")
local udf = F.when(F.col("sessionId"):eq("hello"), "1 second")
  :when(F.col("sessionId"):eq("structured"), "0 second")
  :when(F.col("sessionId"):eq("world"), "-10 seconds")
  :otherwise("10 seconds")
local sessions = events:groupBy(F.session_window("eventTime", udf):alias("session"), "sessionId")
  :agg(F.count("*"):alias("numEvents"))
  :selectExpr("sessionId", "CAST(session.start AS LONG)", "CAST(session.end AS LONG)",
              "CAST(session.end AS LONG) - CAST(session.start AS LONG) AS durationMs", "numEvents")
local s = T.stream(sessions)
s:add(input, {{"hello world spark streaming", 40}, {"world hello structured streaming", 41}})
T.is(s:new(), {}, "40, 41: hello [40, 42) 2, streaming [40, 51) 2, spark [40, 50) 1; world and structured dropped")
s:add(input, {{"spark streaming", 25}})
T.is(s:new(), {}, "25: new sessions before the previous ones")
s:add(input, {{"spark streaming", 0}})
T.is(s:new(), {}, "0: late (its sessions end at 10 <= watermark 11)")
T.is(T.progress_with_data(s.q).stateOperators[1].numRowsDroppedByWatermark, 2, "two rows dropped by watermark")
s:add(input, {{"spark streaming", 30}})
T.is(s:new(), {}, "30 joins the sessions: spark [25, 50) 3, streaming [25, 51) 4")
s:add(input, {{"hello apache spark", 60}})
T.is(s:new(), {}, "60: sessions after the previous ones")
s:add(input, {{"structured streaming", 90}})
T.is(s:new(), T.sorted{{"spark", 25, 50, 25, 3}, {"streaming", 25, 51, 26, 4}, {"hello", 40, 42, 2, 2}},
  "90: watermark 60 closes spark [25, 50), streaming [25, 51) and hello [40, 42)")
T.like(s.q:toPySpark(), 'F%.session_window%("eventTime", F%.expr%("CASE WHEN %(sessionId = \'hello\'%) THEN \'1 second\'',
  "toPySpark writes the gap Column")
s.q:stop()

-- the same steps with a stop and a restart from the checkpoint after each
-- (the sessions' ends, made of per-row gaps, come back from the state)
do
  local dir = T.tempdir()
  local inp = spark.memoryStream("value STRING, timestamp BIGINT")
  local q2 = inp:toDF()
    :withColumn("eventTime", F.col("timestamp"):cast("timestamp"))
    :withWatermark("eventTime", "30 seconds")
    :selectExpr("explode(split(value, ' ')) AS sessionId", "eventTime")
    :groupBy(F.session_window("eventTime", udf):alias("session"), "sessionId")
    :agg(F.count("*"):alias("numEvents"))
    :selectExpr("sessionId", "CAST(session.start AS LONG)", "CAST(session.end AS LONG)",
                "CAST(session.end AS LONG) - CAST(session.start AS LONG) AS durationMs", "numEvents")
  local got = {}
  local function run(block)
    local q = q2.writeStream:option("checkpointLocation", dir)
      :foreachBatch(function(d) for _, r in ipairs(T.rows(d)) do got[#got + 1] = r end end):start()
    inp:addData(block)
    q:processAllAvailable()
    q:stop()
    local out = T.sorted(got)
    got = {}
    return out
  end
  run({{"hello world spark streaming", 40}, {"world hello structured streaming", 41}})
  run({{"spark streaming", 25}})
  run({{"spark streaming", 0}})
  run({{"spark streaming", 30}})
  run({{"hello apache spark", 60}})
  T.is(run({{"structured streaming", 90}}),
    T.sorted{{"spark", 25, 50, 25, 3}, {"streaming", 25, 51, 26, 4}, {"hello", 40, 42, 2, 2}},
    "restarted after every step: the same three sessions at watermark 60")
end

-- a constant gap that is not a duration, <= 0 or NULL: Spark casts it to an
-- interval (NULL when it does not parse) and SessionWindowing's filter
-- (session end > start, "filter out events with negative or zero or
-- invalid gap duration") drops every row: no rows, no analysis error
for _, g in ipairs({ "bogus", "0 seconds", "-5 seconds" }) do
  T.check(function() return T.rows(tbl:groupBy(F.session_window("time", g)):agg(F.count("*"))) end, {},
    ("a constant gap '%s': every row dropped"):format(g))
end
T.check(function() return T.rows(tbl:select(F.session_window("time", F.lit("ten seconds")):alias("s"), "value")
  :where("s IS NULL"):select("value"):orderBy("value")) end, { { 1 }, { 2 }, { 4 } },
  "select: session_window of an unparsable constant gap is NULL for every row")
T.check(function() return T.rows(tbl:selectExpr("session_window(time, CAST(NULL AS STRING)) IS NULL AS n"):limit(1)) end,
  { { true } }, "a NULL constant gap: NULL")
T.errors(function() return tbl:select(F.session_window("time", F.lit(5))):collect() end,
  "Gap duration expression used in session window must be CalendarIntervalType, but got IntegerType",
  "a constant that is not a string stays an analysis error, as Spark")
do
  local inp = spark.memoryStream("value STRING, timestamp BIGINT")
  local st = T.stream(inp:toDF():withColumn("eventTime", F.col("timestamp"):cast("timestamp"))
    :withWatermark("eventTime", "10 seconds")
    :groupBy(F.session_window("eventTime", "nonsense"), "value"):agg(F.count("*"):alias("n")))
  st:add(inp, { { "a", 1 }, { "b", 2 } })
  T.is(st:new(), {}, "a stream with an unparsable constant gap starts and drops its rows")
  st:add(inp, { { "a", 100 } })
  T.is(st:new(), {}, "no session ever closes")
  st.q:stop()
end

T.done()
