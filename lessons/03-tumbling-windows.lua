-- Lesson 3: where in event time: tumbling windows (LESSONS.md L3).
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(3, "Where in event time: tumbling windows")

say [[
A window groups events by *event time*: window("event_time", "10 minutes")
puts every event into the 10-minute bucket that holds it, [12:00, 12:10),
[12:10, 12:20), ...  Buckets are half-open: 12:10 belongs to [12:10, 12:20),
not to [12:00, 12:10).  Windows are aligned to the epoch, not to the first
event.

Same ten events as lesson 2, same four triggers, counted per window and
word, in update mode, with no watermark.]]

code [[
spark.clock:manual("2026-01-01 12:05:00")
events = spark.memoryStream("event_time TIMESTAMP, word STRING")
arrivals = {
  {{"12:07", "dog"}, {"12:08", "owl"}},                                 -- by 12:10
  {{"12:14", "dog"}, {"12:09", "cat"}},                                 -- by 12:15
  {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}}, -- by 12:20
  {{"12:04", "donkey"}, {"12:17", "owl"}},                              -- by 12:25
}
function feed(stream, batch)
  local rows = {}
  for _, a in ipairs(batch) do rows[#rows + 1] = {"2026-01-01 " .. a[1] .. ":00", a[2]} end
  stream:addData(rows)
end
windowed = events:toDF()
  :groupBy(F.window("event_time", "10 minutes"), "word"):count()
  :select(F.concat(F.date_format("window.start", "HH:mm"), F.lit("-"),
                   F.date_format("window.end", "HH:mm")):alias("window"), "word", "count")
]]
pause()

code [[
latest = {}   -- (window, word) -> the last count written
q = windowed.writeStream:outputMode("update"):trigger{processingTime = "5 minutes"}
  :foreachBatch(function(df, id)
    print("trigger " .. spark.clock:now() .. " writes:")
    df:orderBy("window", "word"):show()
    for _, r in ipairs(df:collect()) do latest[r.window .. " " .. r.word] = r.count end
  end):start()
for _, batch in ipairs(arrivals) do
  feed(events, batch)
  spark.clock:advance("5 minutes")
end
]]
view("main")
pause()

say [[
Look at the last trigger: the donkey happened at 12:04 but arrived at
12:25.  It still went into [12:00, 12:10): nothing told Spark that window
was finished, so every window stays open, in memory, forever.]]

exercise("What are the final counts of every window?", function()
  code [[
final = {}
for k, n in pairs(latest) do final[#final + 1] = k .. " " .. n end
table.sort(final)
print(table.concat(final, "\n"))
]]
  expect("final counts", final, {
    "12:00-12:10 cat 1", "12:00-12:10 dog 2", "12:00-12:10 donkey 1", "12:00-12:10 owl 1",
    "12:10-12:20 cat 1", "12:10-12:20 dog 1", "12:10-12:20 owl 2",
    "12:20-12:30 owl 1"})
  code [[
print("state rows kept:", q.lastProgress.stateOperators[1].numRowsTotal)
]]
  expect("every (window, word) is still in state", q.lastProgress.stateOperators[1].numRowsTotal, 8)
end)

say [[
Triggers decide *when* Spark computes; windows decide *where in event time*
a row counts.  A 5-minute trigger does not make 5-minute windows.  Next:
windows that overlap.]]
code [[q:stop()]]
