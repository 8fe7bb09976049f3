-- Lesson 11: bad input and poisoned watermarks (LESSONS.md L11).  Spark has
-- no future-skew guard: one event from 2099 moves the watermark and later
-- events are dropped; the fix Spark users apply is a filter on implausible
-- timestamps before withWatermark.  Bad lines go through the file source's
-- PERMISSIVE mode into _corrupt_record.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(11, "Bad input and poisoned watermarks")

say [[
Real input is dirty: a producer writes half a line, another forgets a
field, a device with a broken clock says it is 2099.  We read JSON files
with the file source.  Its default mode, PERMISSIVE, never fails on a bad
line: the line becomes a row of nulls, and if the schema has a
_corrupt_record column, the raw text lands there.]]

code [[
spark.clock:manual("2026-01-01 12:05:00")
inbox = os.tmpname(); os.remove(inbox); os.execute("mkdir -p '" .. inbox .. "'")
-- a producer writes a file under a hidden name, then renames it: the
-- source ignores names starting with '.', so it never sees half a file
function drop_file(name, lines)
  local f = assert(io.open(inbox .. "/." .. name, "w"))
  f:write(table.concat(lines, "\n"), "\n")
  f:close()
  assert(os.rename(inbox .. "/." .. name, inbox .. "/" .. name))
end
files = {
  {'{"event_time":"2026-01-01 12:01:00","word":"a"}', '{"event_time":"2026-01-01 12:03:00","word":"b"}'},
  {'{"event_time":"2026-01-01 12:06:00","word":"c"}', '{"event_time":"2099-01-01 00:00:00","word":"d"}',
   '{"event_time":"2026-01-01 12:0',             -- cut in the middle
   '{"word":"e"}'},                               -- no event_time
  {'{"event_time":"2026-01-01 12:08:00","word":"f"}', '{"event_time":"2026-01-01 12:12:00","word":"g"}'},
  {'{"event_time":"2026-01-01 12:15:00","word":"h"}', '{"event_time":"2026-01-01 12:18:00","word":"i"}'},
}
source = spark.readStream:schema("event_time TIMESTAMP, word STRING, _corrupt_record STRING")
  :option("mode", "PERMISSIVE"):json(inbox)
good = source:where("_corrupt_record IS NULL AND event_time IS NOT NULL")
bad = source:where("_corrupt_record IS NOT NULL OR event_time IS NULL")
  :selectExpr("CASE WHEN _corrupt_record IS NOT NULL THEN 'parse' ELSE 'missing_event_time' END AS reason",
              "coalesce(_corrupt_record, concat('word=', word)) AS record")
]]
pause()

say [[
Two queries on the same source: bad records go to a table of their own,
good ones into a 10-minute count with a 10-minute watermark.  One file
arrives before each 5-minute trigger.]]

code [[
function run_counts(df)
  local latest = {}
  local q = df:withWatermark("event_time", "10 minutes")
    :groupBy(F.window("event_time", "10 minutes")):count()
    :select(F.date_format("window.start", "yyyy-MM-dd HH:mm"):alias("window"), "count")
    .writeStream:outputMode("update"):trigger{processingTime = "5 minutes"}
    :foreachBatch(function(d) for _, r in ipairs(d:collect()) do latest[r.window] = r.count end end)
    :start()
  return q, latest
end
function summary(q, latest)
  local counted, dropped = 0, 0
  for _, n in pairs(latest) do counted = counted + n end
  dropped = #q:lateRows()
  return counted, dropped
end
q, latest = run_counts(good)
qbad = bad.writeStream:format("memory"):queryName("bad_records"):start()
for i, f in ipairs(files) do
  drop_file("part-" .. i .. ".json", f)
  spark.clock:advance("5 minutes")
  qbad:processAllAvailable()
  print("trigger " .. i .. ": watermark " .. q.lastProgress.eventTime.watermark)
end
spark.table("bad_records"):show(10, false)
counted, dropped = summary(q, latest)
]]
view("main")
L.focus(q)   -- the panes show the count (its watermark, its late rows)
expect("2 bad records: parse and missing_event_time",
  L.rows(spark.table("bad_records"):select("reason")), {{"missing_event_time"}, {"parse"}})
pause()

say [[
After the second file the watermark is 2099-01-01 00:00 - 10 minutes: the
2099 event *poisoned* it.  Every later window of 2026 now ends far below
the watermark, so everything that follows is dropped as late.]]

exercise([[
Without a guard, how many valid events are counted and how many dropped
as late?  (Spark 3.5 judges late rows by the previous batch's watermark.)]], function()
  code [[
print("counted " .. counted .. ", dropped as late " .. dropped)
for _, r in ipairs(q:lateRows()) do   -- the log of late rows says why
  print(r.eventTime .. " " .. r.row.word .. " DROPPED: watermark " .. r.watermark)
end
]]
  expect("Spark 3.4+ (two watermarks): 6 counted, 2 dropped", {counted, dropped}, {6, 2})
  say [[
Six: 12:01, 12:03, 12:06, the 2099 event, and 12:08, 12:12 (the file right
after the poison is still judged by the watermark from *before* it, 11:53:
Spark 3.4+ uses two watermarks, lesson 13).  Then 12:15 and 12:18 are
dropped.  With one watermark per batch, the rule the guide draws, the
poison bites a batch earlier: 4 counted, 4 dropped.]]
  code [[
q:stop(); qbad:stop()
spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "false")
spark.clock:manual("2026-01-01 12:05:00")
os.execute("rm -f '" .. inbox .. "'/*.json")
q, latest = run_counts(good)
for i, f in ipairs(files) do drop_file("part-" .. i .. ".json", f); spark.clock:advance("5 minutes") end
counted1, dropped1 = summary(q, latest)
print("one watermark: counted " .. counted1 .. ", dropped as late " .. dropped1)
spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "true")
]]
  L.focus(q)
  expect("one watermark: 4 counted, 4 dropped", {counted1, dropped1}, {4, 4})
end)
pause()

say [[
Spark has no "max future skew" option.  The fix Spark users apply: throw
away implausible timestamps *before* withWatermark, so they never reach
the watermark.  current_timestamp() is the batch's time:

    good:where("event_time <= current_timestamp() + INTERVAL 1 HOUR")]]

exercise("With that filter, how many events are counted and dropped?", function()
  code [[
q:stop()
spark.clock:manual("2026-01-01 12:05:00")
os.execute("rm -f '" .. inbox .. "'/*.json")
guarded = good:where("event_time <= current_timestamp() + INTERVAL 1 HOUR")
q, latest = run_counts(guarded)
for i, f in ipairs(files) do drop_file("part-" .. i .. ".json", f); spark.clock:advance("5 minutes") end
counted2, dropped2 = summary(q, latest)
print("guarded: counted " .. counted2 .. ", dropped as late " .. dropped2 ..
      ", watermark " .. q.lastProgress.eventTime.watermark)
]]
  L.focus(q)
  expect("guarded: all 7 valid on-time events counted, 0 late", {counted2, dropped2}, {7, 0})
  say [[
All 7 plausible events count and nothing is late.  The 2099 event is gone
from the count; if you need to keep it, write the rows the filter rejects
to a table of their own, as we did with the bad records.]]
end)
code [[q:stop(); os.execute("rm -rf '" .. inbox .. "'")]]
