-- Update mode eviction through the event-time index (op_stream_evict.c
-- remove_due): every due group leaves the state, not only the first.  The
-- index is the byte store's way when the keys are not one window
-- (an event-time column as a key) or when more than SCAN_ENDS windows are
-- open at once (a sliding window with a short slide); Update mode without
-- a feed wants no evicted rows, and a removal's return value (1) used to
-- stop every later removal of the batch, so the state grew without bound.
-- The shape of the differential test's seeds 57 and 117 (031): a 10-second
-- window sliding by 2 seconds, a 10-second delay, first and count, Update;
-- a STRING key keeps the plan off the live table, so the byte store runs
-- it here.  The numbers are worked out by hand (Spark: a row is in every
-- sliding window containing it; the state keeps a group until the
-- eviction watermark passes its window end; the key order does not
-- matter).
local T = require("tap")
spark.clock:manual("2026-01-01 12:00:00")

local function state(q)
  local so = q.lastProgress.stateOperators[1]
  return {so.numRowsTotal, so.numRowsRemoved}
end

local function sliding(keys, name)
  local ms = spark.memoryStream("s STRING, sec BIGINT, v BIGINT")
  local df = ms:toDF():withColumn("t", F.timestamp_seconds("sec")):withWatermark("t", "10 seconds")
  local q = df:groupBy(table.unpack(keys)):agg(F.first("v"):alias("f"), F.count("*"):alias("n"))
    .writeStream:format("memory"):queryName(name):outputMode("update"):start()
  local rows = {}
  for sec = 0, 39 do rows[#rows + 1] = {"a", sec, sec} end
  ms:addData(rows)
  q:processAllAvailable()
  -- windows [-8, 2) .. [38, 48): 24 ends, more than SCAN_ENDS; watermark
  -- 29 s: the 14 ending by 28 s leave, the 10 ending 30 .. 48 s stay
  T.is(state(q), {10, 14}, name .. ": watermark 29 s, 14 of 24 sliding windows removed, 10 left")
  T.is(spark.table(name):count(), 24, name .. ": the first batch updated all 24 windows")
  ms:addData{{"a", 100, 100}}
  q:processAllAvailable()
  -- windows [92, 102) .. [100, 110) new; watermark 90 s: the 10 older leave
  T.is(state(q), {5, 10}, name .. ": watermark 90 s, the 10 older windows removed, the 5 of 100 s left")
  local late = spark.table(name):where("n = 1 AND f = 100"):count()
  T.is(late, 5, name .. ": the row at 100 s updated its 5 windows")
  q:stop()
end

local w = F.window("t", "10 seconds", "2 seconds")
sliding({"s", w}, "win_last")
sliding({w, "s"}, "win_first")

-- an event-time column as a key (no window): the index always (times
-- away from 0, the first batch's eviction watermark)
local ms = spark.memoryStream("s STRING, sec BIGINT")
local q = ms:toDF():withColumn("t", F.timestamp_seconds("sec")):withWatermark("t", "10 seconds")
  :groupBy("s", "t"):count().writeStream:format("memory"):queryName("etkey")
  :outputMode("update"):start()
local rows = {}
for sec = 1000, 1039 do rows[#rows + 1] = {"b", sec} end
ms:addData(rows)
q:processAllAvailable()
T.is(state(q), {10, 30}, "event-time key: watermark 1029 s, the 30 groups at <= 1029 s removed, 10 left")
ms:addData{{"b", 1100}}
q:processAllAvailable()
T.is(state(q), {1, 10}, "event-time key: watermark 1090 s, only the group at 1100 s left")
q:stop()
T.done()
