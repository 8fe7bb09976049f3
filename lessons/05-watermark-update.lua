-- Lesson 5: late data and the watermark, update mode (LESSONS.md L5; the
-- guide's figure 1.3(d)).  One watermark per batch, as the guide draws it
-- (spark.sql.streaming.statefulOperator.allowMultiple=false); lesson 13
-- shows what Spark 3.4+'s default of two watermarks changes.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(5, "Late data and the watermark (update mode)")

say [[
Without a watermark every window stays open forever (lesson 3).  A
watermark is Spark's running guess of how late data can be:

    watermark = (largest event time seen so far) - delay

computed at the end of a batch and used by the *next* batch.  A window
whose end is <= the watermark is finished: its state is dropped, and a row
that would only land in finished windows is dropped as too late.

The guide's figure: 10-minute windows sliding every 5 minutes, a 10-minute
delay, a trigger every 5 minutes.  We ask for one watermark per batch, the
rule the guide's figures draw (lesson 13 explains Spark 3.4+'s two).]]

code [[
spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "false")
arrivals = {
  {},                                                                    -- by 12:05
  {{"12:07", "dog"}, {"12:08", "owl"}},                                  -- by 12:10
  {{"12:14", "dog"}, {"12:09", "cat"}},                                  -- by 12:15
  {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}}, -- by 12:20
  {{"12:04", "donkey"}, {"12:17", "owl"}},                               -- by 12:25
}
-- Run the figure's query; returns the rows written at each trigger and the query.
function run_figure(mode, delay, batches)
  spark.clock:manual("2026-01-01 12:00:00")
  local events = spark.memoryStream("event_time TIMESTAMP, word STRING")
  local written = {}
  local q = events:toDF():withWatermark("event_time", delay)
    :groupBy(F.window("event_time", "10 minutes", "5 minutes"), "word"):count()
    :select(F.concat(F.date_format("window.start", "HH:mm"), F.lit("-"),
                     F.date_format("window.end", "HH:mm")):alias("window"), "word", "count")
    .writeStream:outputMode(mode):trigger{processingTime = "5 minutes"}
    :queryName("delay " .. delay:match("%d+") .. "m")
    :foreachBatch(function(df, id)
      local t = {}
      for _, r in ipairs(df:orderBy("window", "word"):collect()) do
        t[#t + 1] = r.window .. " " .. r.word .. " " .. r.count
      end
      written[spark.clock:now():sub(12, 16)] = t
    end):start()
  for _, b in ipairs(batches) do
    local rows = {}
    for _, a in ipairs(b) do rows[#rows + 1] = {"2026-01-01 " .. a[1] .. ":00", a[2]} end
    if #rows > 0 then events:addData(rows) end
    spark.clock:advance("5 minutes")
  end
  return written, q
end
]]
view("main")
pause()

exercise([[
Predict the rows written at each trigger (12:10, 12:15, 12:20, 12:25), and
the watermark the 12:25 batch runs with.  A key runs the figure's query.]], function()
  code [[
written, q = run_figure("update", "10 minutes", arrivals)
for _, at in ipairs{"12:10", "12:15", "12:20", "12:25"} do
  print(at .. ": " .. table.concat(written[at] or {}, ", "))
end
print("watermark now:", q.lastProgress.eventTime.watermark)
]]
  L.focus(q)   -- the panes stay on the figure's query
  expect("12:10", written["12:10"], {"12:00-12:10 dog 1", "12:00-12:10 owl 1",
                                     "12:05-12:15 dog 1", "12:05-12:15 owl 1"})
  expect("12:15", written["12:15"], {"12:00-12:10 cat 1", "12:05-12:15 cat 1",
                                     "12:05-12:15 dog 2", "12:10-12:20 dog 1"})
  expect("12:20", written["12:20"], {"12:00-12:10 dog 2", "12:05-12:15 dog 3", "12:05-12:15 owl 2",
                                     "12:10-12:20 cat 1", "12:10-12:20 owl 1",
                                     "12:15-12:25 cat 1", "12:15-12:25 owl 1", "12:20-12:30 owl 1"})
  expect("12:25 (watermark 12:11): donkey dropped", written["12:25"],
    {"12:10-12:20 owl 2", "12:15-12:25 owl 2"})
  expect("the 12:25 batch used watermark 12:21 - 10 min", q.lastProgress.eventTime.watermark,
    "2026-01-01T12:11:00.000Z")
  say [[
The watermark was 11:58 after 12:10 (12:08 - 10), 12:04 after 12:15, 12:11
after 12:20 (the 12:21 owl).  At 12:25 the donkey (12:04) belongs to
[11:55, 12:05) and [12:00, 12:10): both end <= 12:11, so it is dropped.
The (12:17, owl) is late too, but its windows are still open: counted.]]
end)
say [[
q:lateRows() is the log of rows dropped as late: the row, its event time,
the window(s) it missed and the watermark that closed them.]]
code [[
late_words = {}
for _, r in ipairs(q:lateRows()) do
  local ws = {}
  for _, w in ipairs(r.windows) do ws[#ws + 1] = "[" .. w.start:sub(12, 16) .. ", " .. w["end"]:sub(12, 16) .. ")" end
  print(r.eventTime:sub(12, 16) .. " " .. r.row.word .. " DROPPED: " .. table.concat(ws, " ") ..
        " end <= watermark " .. r.watermark:sub(12, 16))
  late_words[r.eventTime:sub(12, 16) .. " " .. r.row.word] = true
end
]]
expect("the donkey is the only row dropped as late", late_words, {["12:04 donkey"] = true})
expect("numRowsDroppedByWatermark counts the donkey's 2 late groups",
  q.lastProgress.stateOperators[1].numRowsDroppedByWatermark, 2)
pause()

exercise([[
The guide's figure prints 12:05-12:15 cat 2 at 12:20.  Is it right?]], function()
  local cat
  for _, r in ipairs(written["12:20"]) do if r:find("^12:05%-12:15 cat") then cat = r end end
  expect("12:05-12:15 cat was not written at 12:20", cat, nil)
  say [[
No.  (12:15, cat) is outside [12:05, 12:15): windows are half-open, so it
belongs to [12:10, 12:20) and [12:15, 12:25).  12:05-12:15 cat stays 1 (it
was written at 12:15 and did not change at 12:20).]]
end)
pause()

exercise([[
What is the smallest whole-minute delay that keeps (12:04, donkey)?]], function()
  code [[
q:stop()
for _, d in ipairs{11, 12, 17} do
  local w, qd = run_figure("update", d .. " minutes", arrivals)
  local kept = table.concat(w["12:25"] or {}, ", "):find("donkey") ~= nil
  print(d .. " minutes: donkey " .. (kept and "counted" or "dropped"))
  donkey_kept = donkey_kept or {}
  donkey_kept[d] = kept
  qd:stop()
end
]]
  expect("11 minutes drops it, 12 keeps it", {donkey_kept[11], donkey_kept[12]}, {false, true})
  say [[
12 minutes, not 17.  With d = 12 the watermark at 12:25 is 12:21 - 12 =
12:09 < 12:10, so [12:00, 12:10) is still open and the donkey counts there
(though not in [11:55, 12:05)).  Lateness is judged per window, not per
event: a row is dropped only when *all* its windows are closed.]]
end)

say [[
Rules to keep: the watermark comes from the previous batch; a window is
closed when end <= watermark (equality is late); a row is dropped only
when all its windows are closed.  Next: append mode.]]
code [[spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "true")]]
