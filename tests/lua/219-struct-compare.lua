-- Struct equality and ordering (issue 17 item 2): `=`, `<=>`, `!=`, `<`
-- ... on structs of one type compare field by field (Spark's interpreted
-- ordering; a NULL struct gives NULL, `<=>` never does), so the window
-- column can be a filter and a join key.  The stream-stream rows are
-- StreamingJoinSuite "stream stream inner join on windows - with
-- watermark", written once with Seq("key", "window") and once with
-- `key = rkey AND window = rwindow` (the suite's StopStream/StartStream
-- steps are left out: 208 covers the join state's recovery).
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local df = spark.createDataFrame({{"2016-03-27 19:39:34", 1}, {"2016-03-27 19:39:56", 2},
                                  {"2016-03-27 19:39:31", 3}}, "time STRING, value INT")
local w = df:select(F.window("time", "10 seconds"), "value")
local l = w:select(F.col("value"):alias("k"), "window")
local r = w:select(F.col("value"):alias("rk"), F.col("window"):alias("rwindow"))

T.check(function() return T.rows(w:select("value", F.expr("window = window"), F.expr("window <=> window"),
    F.expr("window != window"), F.expr("window < window"), F.expr("window >= window")):orderBy("value")) end,
  {{1, true, true, false, false, true}, {2, true, true, false, false, true}, {3, true, true, false, false, true}},
  "window = window is true (a NULL time has no window: DataFrameTimeWindowingSuite drops it)")
-- a left join pads rwindow with NULL where k + 1 has no row
local padded = l:join(r, F.expr("k + 1 = rk"), "left")
T.check(function() return T.rows(padded:select("k", F.expr("window = rwindow"), F.expr("window <=> rwindow"),
    F.expr("rwindow <=> rwindow"), F.expr("window > rwindow")):orderBy("k")) end,
  {{1, false, false, true, false}, {2, false, false, true, true}, {3, nil, false, true, nil}},
  "a NULL struct: = and > give NULL, <=> gives false against a value and true against NULL")
T.check(function() return T.sorted(T.rows(l:join(r, F.expr("window < rwindow")):select("k", "rk"))) end,
  {{1, 2}, {3, 2}}, "window < rwindow orders by start then end (nested loop join)")
T.check(function() return T.sorted(T.rows(l:join(r, F.expr("window = rwindow")):select("k", "rk"))) end,
  {{1, 1}, {1, 3}, {2, 2}, {3, 1}, {3, 3}}, "window = rwindow as a join key: 19:39:30 holds 1 and 3, NULL matches nothing")
T.check(function() return T.sorted(T.rows(l:join(r, F.expr("k = rk AND window = rwindow")):select("k", "rk"))) end,
  {{1, 1}, {2, 2}, {3, 3}}, "k = rk AND window = rwindow")
T.check(function() return T.sorted(T.rows(l:join(r, F.expr("window <=> rwindow")):select("k", "rk"))) end,
  {{1, 1}, {1, 3}, {2, 2}, {3, 1}, {3, 3}}, "window <=> rwindow as a join condition")
T.check(function() return T.rows(w:filter(F.col("window"):eq(F.col("window"))):orderBy("value"):select("value")) end,
  {{1}, {2}, {3}}, "filter on window = window drops the NULL window")
T.errors(function() return l:join(r, F.expr("window = k")):collect() end,
  "differing types in '%(window = k%)' %(struct<start: timestamp, end: timestamp> and int%)",
  "a struct against an int is still refused, naming both types")

-- StreamingJoinSuite "stream stream inner join on windows - with watermark"
local function windows(on_form)
  local input1, input2 = spark.memoryStream("value INT"), spark.memoryStream("value INT")
  local df1 = input1:toDF():select(F.col("value"):alias("key"), F.timestamp_seconds("value"):alias("timestamp"),
                                   (F.col("value") * 2):alias("leftValue"))
    :withWatermark("timestamp", "10 seconds")
    :select("key", F.window("timestamp", "10 second"), "leftValue")
  local df2 = input2:toDF():select(F.col("value"):alias("key"), F.timestamp_seconds("value"):alias("timestamp"),
                                   (F.col("value") * 3):alias("rightValue"))
    :select("key", F.window("timestamp", "10 second"), "rightValue")
  local joined
  if on_form then
    df2 = df2:select(F.col("key"):alias("rkey"), F.col("window"):alias("rwindow"), "rightValue")
    joined = df1:join(df2, F.expr("key = rkey AND window = rwindow"))
  else
    joined = df1:join(df2, {"key", "window"})
  end
  return input1, input2, joined:select("key", F.col("window.end"):cast("long"), "leftValue", "rightValue")
end

for _, on_form in ipairs{false, true} do
  local tag = on_form and "on key = rkey AND window = rwindow: " or "using (key, window): "
  local input1, input2, joined = windows(on_form)
  local s = T.stream(joined)
  local m = T.state_rows(s.q)
  s:add(input1, {1})
  T.is(s:new(), {}, tag .. "left 1: no answer")
  T.is(m(), {total = 1, updated = 1, dropped = 0, removed = 0}, tag .. "state total 1, updated 1")
  s:add(input2, {1})
  T.is(s:new(), {{1, 10, 2, 3}}, tag .. "right 1 joins window [0, 10)")
  local st = m()
  T.is({st.total, st.updated}, {2, 1}, tag .. "state total 2, updated 1")
  s:add(input1, {25})
  T.is(s:new(), {}, tag .. "left 25: watermark 15, the no-data batch removes window [0, 10)")
  st = m()
  T.is({st.total, st.updated}, {1, 1}, tag .. "state total 1, updated 1")
  s:add(input2, {25})
  T.is(s:new(), {{25, 30, 50, 75}}, tag .. "right 25 joins window [20, 30)")
  st = m()
  T.is({st.total, st.updated}, {2, 1}, tag .. "state total 2, updated 1")
  s:add(input2, {1})
  T.is(s:new(), {}, tag .. "right 1: window [0, 10) was removed")
  st = m()
  T.is({st.total, st.updated}, {2, 0}, tag .. "not added: below the state key watermark 15")
  s:add(input1, {5})
  T.is(s:new(), {}, tag .. "left 5: behind the watermark")
  st = m()
  T.is({st.total, st.updated, st.dropped}, {2, 0, 1}, tag .. "dropped by watermark 1")
  s.q:stop()
end

T.done()
