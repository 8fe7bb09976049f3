-- Lesson 6: append mode and "why is my output empty?" (LESSONS.md L6; the
-- guide's figure 1.3(e)).  One watermark per batch, as the guide draws it.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(6, "Append mode, or: why is my output empty?")

say [[
Append mode writes each result row once, when it is final.  For a window
that means: when the watermark has passed its end (end <= watermark).
Until then the sink gets nothing at all, which is the most common surprise
of Structured Streaming: "my query runs but writes nothing".

Same query as lesson 5, in append mode.  The arrivals are the guide's
figure: lesson 5's, plus (12:26, owl) before 12:25 and a very late
(12:09, cat) after 12:25.]]

code [[
spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "false")
arrivals = {
  {},                                                                    -- by 12:05
  {{"12:07", "dog"}, {"12:08", "owl"}},                                  -- by 12:10
  {{"12:14", "dog"}, {"12:09", "cat"}},                                  -- by 12:15
  {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}}, -- by 12:20
  {{"12:04", "donkey"}, {"12:17", "owl"}, {"12:26", "owl"}},             -- by 12:25
  {{"12:09", "cat"}},                                                    -- by 12:30
}
-- The figure's query; trigger(fig, arrivals) adds them and lets the
-- 5-minute trigger run.
function start_figure(mode, delay)
  spark.clock:manual("2026-01-01 12:00:00")
  local fig = {events = spark.memoryStream("event_time TIMESTAMP, word STRING"), written = {}}
  fig.q = fig.events:toDF():withWatermark("event_time", delay)
    :groupBy(F.window("event_time", "10 minutes", "5 minutes"), "word"):count()
    :select(F.concat(F.date_format("window.start", "HH:mm"), F.lit("-"),
                     F.date_format("window.end", "HH:mm")):alias("window"), "word", "count")
    .writeStream:outputMode(mode):trigger{processingTime = "5 minutes"}
    :queryName(mode)
    :foreachBatch(function(df, id)
      local t = {}
      for _, r in ipairs(df:orderBy("window", "word"):collect()) do
        t[#t + 1] = r.window .. " " .. r.word .. " " .. r.count
      end
      fig.written[spark.clock:now():sub(12, 16)] = t
    end):start()
  return fig
end
function trigger(fig, b)
  local rows = {}
  for _, a in ipairs(b or {}) do rows[#rows + 1] = {"2026-01-01 " .. a[1] .. ":00", a[2]} end
  if #rows > 0 then fig.events:addData(rows) end
  spark.clock:advance("5 minutes")
end
function show(written, at)
  print(at .. ": " .. (written[at] and #written[at] > 0 and table.concat(written[at], ", ") or "(nothing)"))
end
-- The whole run: the rows written at each trigger, and the query.
function run_figure(mode, delay, batches, extra_triggers)
  local fig = start_figure(mode, delay)
  for _, b in ipairs(batches) do trigger(fig, b) end
  for _ = 1, extra_triggers or 0 do trigger(fig) end
  return fig.written, fig.q
end
fig = start_figure("append", "10 minutes")
for i = 1, 4 do trigger(fig, arrivals[i]) end         -- up to 12:20
written, q = fig.written, fig.q
for _, at in ipairs{"12:10", "12:15", "12:20"} do show(written, at) end
]]
view("main")
pause()

exercise([[
Three triggers and the sink has nothing.  At which trigger is
[12:00-12:10) written, with what counts?  When is [12:05-12:15) written?
A key runs the 12:25 and 12:30 triggers.]], function()
  code [[
trigger(fig, arrivals[5])                               -- 12:25
trigger(fig, arrivals[6])                               -- 12:30
for _, at in ipairs{"12:25", "12:30"} do show(written, at) end
]]
  expect("nothing before 12:25", {#(written["12:10"] or {}), #(written["12:15"] or {}),
                                  #(written["12:20"] or {})}, {0, 0, 0})
  expect("12:25 writes [12:00-12:10)", written["12:25"],
    {"12:00-12:10 cat 1", "12:00-12:10 dog 2", "12:00-12:10 owl 1"})
  expect("12:30 writes [12:05-12:15); (12:09, cat) is dropped", written["12:30"],
    {"12:05-12:15 cat 1", "12:05-12:15 dog 3", "12:05-12:15 owl 2"})
  say [[
The watermark steps 12:04 (after 12:15), 12:11 (after 12:20), 12:16 (after
12:25, from the 12:26 owl).  [12:00, 12:10) is final once 12:10 <= 12:11:
written at 12:25.  [12:05, 12:15) once 12:15 <= 12:16: written at 12:30.
The figure prints cat 2 there; with half-open windows (12:15, cat) is not
in [12:05, 12:15), and (12:09, cat) arrived when 12:05-12:15 was closed.

Output latency = window length + delay + one trigger.  A 10-minute window
with a 10-minute delay appears 15 to 20 minutes after its last event.]]
end)
pause()

exercise([[
If no input arrives after 12:20, is [12:00-12:10) still written at 12:25?]], function()
  code [[
q:stop()
quiet, q2 = run_figure("append", "10 minutes", {arrivals[1], arrivals[2], arrivals[3], arrivals[4]}, 1)
print("12:25: " .. table.concat(quiet["12:25"] or {}, ", "))
print("rows read by that batch:", q2.lastProgress.numInputRows)
]]
  expect("a no-data batch at 12:25 writes it", quiet["12:25"],
    {"12:00-12:10 cat 1", "12:00-12:10 dog 2", "12:00-12:10 owl 1"})
  expect("that batch read no rows", q2.lastProgress.numInputRows, 0)
  say [[
Yes: the watermark (12:11) was computed at 12:20; Spark runs a *no-data
batch* at the next trigger because the watermark would close a window.
But the last windows of a stream that stops for good are never written:
no new event ever moves the watermark past their end.]]
end)
pause()

say [[
Dataflow's vocabulary for the same thing: update mode writes *early and
late panes* (a new value each time a window changes), append writes the
*on-time pane* only.  Update mode's panes *accumulate*: each one is the
whole count so far.  A *discarding* sink would receive only what is new.]]

exercise([[
For window [12:10-12:20) owl in lesson 5's update-mode run, which panes
are written, accumulating and discarding?]], function()
  code [[
q2:stop()
upd = run_figure("update", "10 minutes", {arrivals[1], arrivals[2], arrivals[3], arrivals[4],
                                          {{"12:04", "donkey"}, {"12:17", "owl"}}})
accumulating, discarding, before = {}, {}, 0
for _, at in ipairs{"12:10", "12:15", "12:20", "12:25"} do
  for _, r in ipairs(upd[at] or {}) do
    local n = tonumber(r:match("^12:10%-12:20 owl (%d+)$"))
    if n then
      accumulating[#accumulating + 1] = at .. " " .. n
      discarding[#discarding + 1] = at .. " " .. (n - before)
      before = n
    end
  end
end
print("accumulating: " .. table.concat(accumulating, ", "))
print("discarding:   " .. table.concat(discarding, ", "))
]]
  expect("accumulating panes", accumulating, {"12:20 1", "12:25 2"})
  expect("discarding panes", discarding, {"12:20 1", "12:25 1"})
end)

code [[spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "true")]]
say [[
Next: what the watermark buys you, state that stays bounded.]]
