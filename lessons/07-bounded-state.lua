-- Lesson 7: state, bounded and unbounded (LESSONS.md L7).
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(7, "State: bounded vs unbounded")

say [[
A streaming aggregation keeps one state row per group (here: per window
and key) between batches.  Without a watermark Spark can never forget a
window, since a late row might still arrive for it: the state grows for as
long as the query runs.  With a watermark, a window whose end is <= the
watermark is evicted.

Data: 10 keys, one event per key per minute, in order, for two hours; one
batch per minute; a 10-minute tumbling count per key.]]

code [[
function run_stream(delay, minutes)
  spark.clock:manual("2026-01-01 12:00:00")
  local ev = spark.memoryStream("event_time TIMESTAMP, key STRING")
  local df = ev:toDF()
  if delay then df = df:withWatermark("event_time", delay) end
  local q = df:groupBy(F.window("event_time", "10 minutes"), "key"):count()
    .writeStream:outputMode("update"):format("noop")
    :queryName(delay and ("state, delay " .. delay) or "state, no watermark")
    :trigger{processingTime = "1 minute"}:start()
  local sizes = {}
  for m = 0, minutes - 1 do
    local rows = {}
    for k = 1, 10 do
      rows[k] = {string.format("2026-01-01 %02d:%02d:00", 12 + m // 60, m % 60), "k" .. k}
    end
    ev:addData(rows)
    spark.clock:advance("1 minute")
    sizes[#sizes + 1] = q.lastProgress.stateOperators[1].numRowsTotal
  end
  return sizes, q
end
function peak(sizes)
  local p = 0
  for _, s in ipairs(sizes) do p = math.max(p, s) end
  return p
end
unbounded, q_none = run_stream(nil, 120)
print("no watermark, state rows every 10 minutes:")
for m = 10, 120, 10 do io.write(unbounded[m], " ") end
print()
]]
view("state")
expect("no watermark: 120 state rows at the end", unbounded[120], 120)
pause()

say [[
12 windows x 10 keys = 120 rows, growing by 10 every 10 minutes, forever.
A query that runs for a year would hold 52,560 windows x 10 keys = 525,600
rows, and the year after twice that.
Now the same stream with watermarks.]]

exercise([[
What is the peak number of state rows with a delay of 0, 10 and 20
minutes?  (One hour of the same stream is enough to see it.)]], function()
  code [[
q_none:stop()
peaks = {}
for _, d in ipairs{0, 10, 20} do
  local sizes, qd = run_stream(d .. " minutes", 60)
  peaks[#peaks + 1] = peak(sizes)
  print(string.format("delay %2d minutes: peak %d rows, minutes 49..60: %s", d, peaks[#peaks],
    table.concat(sizes, " ", 49, 60)))
  if d == 10 then with10 = sizes end
  qd:stop()
end
]]
  expect("peaks with delays 0, 10, 20 minutes", peaks, {20, 30, 40})
  local lo, hi = math.huge, 0
  for m = 30, 60 do lo, hi = math.min(lo, with10[m]), math.max(hi, with10[m]) end
  expect("delay 10: oscillates between 20 and 30 rows after warm-up", {lo, hi}, {20, 30})
  say [[
20, 30, 40.  With delay d the open windows are the current one plus those
whose end is within d of the newest event: the state depends on the delay
and the number of keys, not on how long the query has run.]]
end)

say [[
The watermark is what makes a query that runs forever possible.  Its price:
rows later than the delay are dropped (lesson 5).  Complete mode keeps all
state anyway (it must print every row every time), so it never evicts.
Next: what survives a crash.]]
