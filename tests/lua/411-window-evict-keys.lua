-- Window eviction with keys before the window and NULLs (issue 18: windowed
-- aggregations find the window end in each state key's bytes and evict by
-- one pass over the store, op_stream_evict.c).  Keys of every encoded
-- shape come before the window: a string with a zero byte, a NULL
-- string, a double, a NULL int.  A row with a NULL event time has no
-- window and is left out (Spark's TimeWindowing filters
-- isnotnull(timeColumn)), as before this change.  Append mode emits each window once,
-- when the watermark passes its end (EventTimeWatermarkSuite "append
-- mode"), Update mode removes it then; the expected rows are worked out
-- by hand from the 10-second windows and the 5-second delay.
local T = require("tap")
spark.clock:manual("2026-01-01 12:00:00")

local function query(ms)
  return ms:toDF():withColumn("t", F.timestamp_seconds("sec")):withWatermark("t", "5 seconds")
    :groupBy("s", "d", "i", F.window("t", "10 seconds"))
    :agg(F.count("*"):alias("n"), F.sum("sec"):alias("total"))
    :select("s", "d", "i", F.col("window"):getField("start"):cast("long"):alias("w"),
            "n", "total")
end

local schema = "s STRING, d DOUBLE, i INT, sec BIGINT"
local ms = spark.memoryStream(schema)
local s = T.stream(query(ms))
s:add(ms, {{"a\0b", 1.5, 1, 1}, {"a\0b", 1.5, 1, 2}, {nil, -0.0, nil, 3}, {"z", 2.5, 7, 12}, {"a", 1.5, 1, nil}})
T.is(s:new(), {}, "nothing is due before the watermark passes a window end")
s:add(ms, {{"a\0b", 1.5, 1, 16}})
T.is(s:new(), {{"a\0b", 1.5, 1, 0, 2, 3}, {nil, 0.0, nil, 0, 1, 3}},
  "watermark 11 s: window [0, 10) of both keys, the zero byte and the NULLs read back")
s:add(ms, {{"q", 0.0, 0, 40}})
T.is(s:new(), {{"a\0b", 1.5, 1, 10, 1, 16}, {"z", 2.5, 7, 10, 1, 12}},
  "watermark 35 s: window [10, 20) of two keys")
s:add(ms, {{"q", 0.0, 0, 41}, {"late", 0.0, 0, 5}})
T.is(s:new(), {}, "a late row changes nothing and nothing else is due")
local p = s.q.lastProgress
T.is(p.stateOperators[1].numRowsTotal, 1, "left in the state: window [40, 50) of key q")
s.q:stop()

-- Update mode: the same rows, the state shrinks as windows close
ms = spark.memoryStream(schema)
local q = query(ms).writeStream:format("memory"):queryName("u"):outputMode("update"):start()
ms:addData{{"x", 1.0, 1, 1}, {"y", 1.0, 1, 2}, {"y", 1.0, 1, 11}, {"x", 1.0, 1, nil}}
q:processAllAvailable()
T.is(q.lastProgress.stateOperators[1].numRowsTotal, 3, "update mode: three groups (the NULL time has none)")
ms:addData{{"x", 1.0, 1, 16}}
q:processAllAvailable()
T.is(q.lastProgress.stateOperators[1].numRowsTotal, 2,
  "update mode, watermark 11 s: both groups of window [0, 10) removed, [10, 20) of y kept, x's new")
ms:addData{{"x", 1.0, 1, 40}}
q:processAllAvailable()
T.is(q.lastProgress.stateOperators[1].numRowsTotal, 1, "watermark 35 s: only [40, 50) left")
T.is(T.rows(spark.table("u"):where("w = 10"):orderBy("s")), {{"x", 1.0, 1, 10, 1, 16}, {"y", 1.0, 1, 10, 1, 11}},
  "update mode emitted window [10, 20)'s groups with their counts")
q:stop()

-- 1-second windows under a 30-second delay: 40 windows open at once, more
-- than the pass over the store is for (SCAN_ENDS), so the operator goes
-- over to the event-time index mid-batch; the answer is the same
local ms2 = spark.memoryStream("k INT, sec BIGINT")
local s2 = T.stream(ms2:toDF():withColumn("t", F.timestamp_seconds("sec")):withWatermark("t", "30 seconds")
  :groupBy("k", F.window("t", "1 second")):agg(F.count("*"):alias("n"))
  :select("k", F.col("window"):getField("start"):cast("long"):alias("w"), "n"))
local rows, want = {}, {}
for sec = 0, 39 do
  rows[#rows + 1] = {sec % 2, sec}
  want[#want + 1] = {sec % 2, sec, 1}
end
s2:add(ms2, rows)
local first = s2:new()
T.is(first, T.sorted({table.unpack(want, 1, 9)}), "watermark 9 s: the nine windows ending by then, each once")
s2:add(ms2, {{0, 100}})
T.is(s2:new(), T.sorted({table.unpack(want, 10, 40)}), "watermark 70 s: the other 31")
T.is(s2.q.lastProgress.stateOperators[1].numRowsTotal, 1, "only the window of 100 s is left")
s2.q:stop()
T.done()
