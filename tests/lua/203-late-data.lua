-- Late rows: numRowsDroppedByWatermark counts late GROUPS (Spark filters
-- after the partial aggregation: three late rows of one window count 1,
-- SPARK-SEMANTICS.md 3.2), and q:lateRows(n) keeps every dropped row with
-- its event time, the windows it missed and the watermark that excluded it
-- (newest first).  Equality is late: a window ending exactly at the
-- watermark is closed.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function windowed(ms, size, slide, delay)
  return ms:toDF():withColumn("eventTime", F.timestamp_seconds("value"))
    :withWatermark("eventTime", delay)
    :groupBy(F.window("eventTime", size, slide):alias("window"))
    :agg(F.count("*"):alias("count"))
    :select(F.col("window"):getField("start"):cast("long"), "count")
end
local function dropped(q)
  local p = T.progress_with_data(q)
  return p and p.stateOperators[1].numRowsDroppedByWatermark
end
local function ts(sec) return os.date("!%Y-%m-%d %H:%M:%S", sec) end
local function win(a, b) return {start = ts(a), ["end"] = ts(b)} end
-- the parts of a late-row entry this test pins down (row: the input value)
local function summary(e)
  return {value = e.row and e.row.value, eventTime = e.eventTime, windows = e.windows,
          watermark = e.watermark, batchId = e.batchId}
end
local function summaries(list)
  local out = {}
  for i, e in ipairs(list) do out[i] = summary(e) end
  return out
end

-- tumbling 5-second windows, watermark 10 seconds, append mode
local ms = spark.memoryStream("value INT")
local s = T.stream(windowed(ms, "5 seconds", nil, "10 seconds"))
T.is(s.q:lateRows(), {}, "lateRows() before any batch: empty")
s:add(ms, {10, 11, 12, 13, 14, 15})
s:add(ms, {25})
T.is(s:new(), {{10, 5}}, "watermark 15 emitted [10, 15)")
T.is(s.q:lateRows(), {}, "nothing late so far")

s:add(ms, {10, 11, 12})
T.is(s:new(), {}, "three rows of the closed window [10, 15): nothing emitted")
T.is(dropped(s.q), 1, "numRowsDroppedByWatermark = 1: one late group, not three rows")
local bid = T.progress_with_data(s.q).batchId
local late = s.q:lateRows()
T.is(#late, 3, "lateRows(): all three dropped rows are logged")
T.is(summaries(late), {
  {value = 12, eventTime = ts(12), windows = {win(10, 15)}, watermark = ts(15), batchId = bid},
  {value = 11, eventTime = ts(11), windows = {win(10, 15)}, watermark = ts(15), batchId = bid},
  {value = 10, eventTime = ts(10), windows = {win(10, 15)}, watermark = ts(15), batchId = bid}},
  "each entry: the row, its event time, the window it missed, the watermark, the batch (newest first)")
T.is(late[1] and late[1].row and late[1].row.eventTime, "1970-01-01T00:00:12.000Z",
  "the row carries its columns, as JSON (a timestamp as to_json writes it)")
T.is(type(late[1] and late[1].operator), "string", "the entry names the operator that dropped it")
T.is(#s.q:lateRows(2), 2, "lateRows(2): the newest two")
T.is(summary(s.q:lateRows(1)[1] or {}).value, 12, "lateRows(1): the newest")

s:add(ms, {10, 16, 16})
T.is(s:new(), {}, "10 is late, 16 joins the open window [15, 20)")
T.is(dropped(s.q), 1, "numRowsDroppedByWatermark = 1")
T.is(#s.q:lateRows(), 4, "one more late row logged")
T.is(s.q.lastProgress.stateOperators[1].numRowsTotal, 2, "state: [15, 20) and [25, 30)")

s:add(ms, {5, 10, 14})
bid = T.progress_with_data(s.q).batchId
T.is(dropped(s.q), 2, "late rows in two closed windows ([5, 10) and [10, 15)): 2 groups")
T.is(summaries(s.q:lateRows(3)), {
  {value = 14, eventTime = ts(14), windows = {win(10, 15)}, watermark = ts(15), batchId = bid},
  {value = 10, eventTime = ts(10), windows = {win(10, 15)}, watermark = ts(15), batchId = bid},
  {value = 5, eventTime = ts(5), windows = {win(5, 10)}, watermark = ts(15), batchId = bid}},
  "the newest three entries")

s:add(ms, {40})
T.is(s:new(), {{15, 3}, {25, 1}}, "watermark 30 emits [15, 20) (15, 16, 16) and [25, 30)")
s:add(ms, {30, 29})
T.is(s:new(), {}, "30 joins [30, 35); 29 is late: its window ends at 30 = the watermark (equality is late)")
bid = T.progress_with_data(s.q).batchId
T.is(dropped(s.q), 1, "the window ending exactly at the watermark counts as late")
T.is(summary(s.q:lateRows(1)[1] or {}),
  {value = 29, eventTime = ts(29), windows = {win(25, 30)}, watermark = ts(30), batchId = bid},
  "29 missed [25, 30) with watermark 30")
s.q:stop()

-- update mode counts late groups the same way
ms = spark.memoryStream("value INT")
s = T.stream(windowed(ms, "5 seconds", nil, "10 seconds"), {mode = "update"})
s:add(ms, {10, 11, 12, 13, 14, 15})
s:add(ms, {25})
s:new()
s:add(ms, {10, 11, 12, 25})
T.is(s:new(), {{25, 2}}, "update: only (25, 2)")
T.is(dropped(s.q), 1, "update: three late rows of one window count 1")
T.is(#s.q:lateRows(), 3, "update: three late rows logged")
s.q:stop()

-- sliding windows: a row is dropped only when every window it belongs to
-- is closed; it still counts in those of its windows that are open
ms = spark.memoryStream("value INT")
s = T.stream(windowed(ms, "10 seconds", "5 seconds", "5 seconds"), {mode = "update"})
s:add(ms, {30})
T.is(s:new(), {{25, 1}, {30, 1}}, "sliding: 30 is in [25, 35) and [30, 40)")
s:add(ms, {22})
T.is(s:new(), {{20, 1}}, "sliding: 22 counts in the open [20, 30); [15, 25) ended at the watermark 25")
T.is(dropped(s.q), 1, "sliding: one late group ([15, 25))")
s:add(ms, {12})
T.is(s:new(), {}, "sliding: 12's windows [5, 15) and [10, 20) are both closed")
T.is(dropped(s.q), 2, "sliding: two late groups for one row")
local e = s.q:lateRows(1)[1] or {}
T.is(summary(e), {value = 12, eventTime = ts(12), windows = {win(5, 15), win(10, 20)},
  watermark = ts(25), batchId = summary(e).batchId},
  "sliding: the log lists every window the row missed")
s.q:stop()

-- complete mode never drops rows
ms = spark.memoryStream("value INT")
s = T.stream(windowed(ms, "5 seconds", nil, "10 seconds"), {mode = "complete"})
s:add(ms, {10})
s:add(ms, {40})
s:add(ms, {10})
T.is(s:last(), {{10, 2}, {40, 1}}, "complete: the old row counts")
T.is(dropped(s.q), 0, "complete: numRowsDroppedByWatermark 0")
T.is(s.q:lateRows(), {}, "complete: nothing logged")
s.q:stop()

T.errors(function() s.q:lateRows(-1) end, "lateRows", "lateRows(-1) is a bad argument")
T.done()
