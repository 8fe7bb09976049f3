-- Lesson 13: the two watermarks of Spark 3.4+ vs the guide's picture
-- (SPARK-SEMANTICS.md 3; LESSONS.md 1.3(d) and (e)).
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(13, "Two watermarks: Spark 3.4+ vs the guide's picture")

say [[
Lessons 5 and 6 used one watermark per batch, the rule the programming
guide's figures draw.  Since Spark 3.4 (so that several stateful operators
can be chained) every batch has two:
  - the watermark for *late rows*: the previous batch's eviction watermark;
  - the watermark for *eviction* (and append output): this batch's.
The setting spark.sql.streaming.statefulOperator.allowMultiple picks the
rule: true (the default, two watermarks) or false (one, the old picture).
The only difference: a row arriving in the batch right after the
watermark moved is judged by the older, lower watermark.]]

code [[
arrivals = {
  {},                                                                    -- by 12:05
  {{"12:07", "dog"}, {"12:08", "owl"}},                                  -- by 12:10
  {{"12:14", "dog"}, {"12:09", "cat"}},                                  -- by 12:15
  {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}}, -- by 12:20
  {{"12:04", "donkey"}, {"12:17", "owl"}},                               -- by 12:25
}
-- The figure's query under one rule; fig:trigger(i) adds arrivals i and
-- lets the 5-minute trigger run; fig:stop() ends it.
function start_figure(mode, allow, batches)
  spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", allow)
  spark.clock:manual("2026-01-01 12:00:00")
  local fig = {events = spark.memoryStream("event_time TIMESTAMP, word STRING"),
               written = {}, batches = batches, next = 1}
  fig.q = fig.events:toDF():withWatermark("event_time", "10 minutes")
    :groupBy(F.window("event_time", "10 minutes", "5 minutes"), "word"):count()
    :select(F.concat(F.date_format("window.start", "HH:mm"), F.lit("-"),
                     F.date_format("window.end", "HH:mm")):alias("window"), "word", "count")
    .writeStream:outputMode(mode):trigger{processingTime = "5 minutes"}
    :queryName(mode .. (allow == "true" and ", two watermarks" or ", one watermark"))
    :foreachBatch(function(df)
      local t = {}
      for _, r in ipairs(df:orderBy("window", "word"):collect()) do
        t[#t + 1] = r.window .. " " .. r.word .. " " .. r.count
      end
      fig.written[spark.clock:now():sub(12, 16)] = t
    end):start()
  function fig:trigger()
    local rows = {}
    for _, a in ipairs(self.batches[self.next]) do rows[#rows + 1] = {"2026-01-01 " .. a[1] .. ":00", a[2]} end
    if #rows > 0 then self.events:addData(rows) end
    self.next = self.next + 1
    spark.clock:advance("5 minutes")
  end
  function fig:stop()
    self.q:stop()
    spark.conf:set("spark.sql.streaming.statefulOperator.allowMultiple", "true")
  end
  return fig
end
-- The whole run: the rows written at each trigger.
function run_figure(mode, allow, batches)
  local fig = start_figure(mode, allow, batches)
  for _ = 1, #batches do fig:trigger() end
  fig:stop()
  return fig.written, fig.q
end
one = run_figure("update", "false", arrivals)
two_fig = start_figure("update", "true", arrivals)
for _ = 1, 4 do two_fig:trigger() end                 -- up to the 12:20 trigger
et = two_fig.q.lastProgress.eventTime
print("the 12:20 batch ran with watermark " .. et.watermark:sub(12, 16) ..
      "; max event time now " .. et.max:sub(12, 16))
]]
expect("12:20: watermark 12:04, max event time 12:21",
  {et.watermark:sub(12, 16), et.max:sub(12, 16)}, {"12:04", "12:21"})
view("main")
L.focus(two_fig.q)   -- the panes: the two-watermark query, both watermarks
pause()

say [[
The watermark pane shows both: W, the eviction watermark the next batch
uses (12:11, from the 12:21 owl), and L, the late cutoff (12:04, the
previous batch's).  Now the 12:25 trigger, with the donkey (12:04).]]

code [[
two_fig:trigger()                                       -- 12:25
two = two_fig.written
two_fig:stop()
print("12:25, one watermark:  " .. table.concat(one["12:25"], ", "))
print("12:25, two watermarks: " .. table.concat(two["12:25"], ", "))
]]
pause()

exercise([[
Why does the donkey (12:04, arriving at 12:25) count with two watermarks?]], function()
  expect("one watermark: donkey dropped", one["12:25"], {"12:10-12:20 owl 2", "12:15-12:25 owl 2"})
  expect("two watermarks: donkey counted in both its windows", two["12:25"],
    {"11:55-12:05 donkey 1", "12:00-12:10 donkey 1", "12:10-12:20 owl 2", "12:15-12:25 owl 2"})
  say [[
At 12:25 the eviction watermark is 12:11 (from the 12:21 owl), but late
rows are judged by the previous batch's, 12:04.  Both donkey windows end
after 12:04, and the 12:20 batch evicted only up to 12:04, so their state
is still there: the donkey counts, the rows are written, and then both
windows are evicted by 12:11.]]
end)
pause()

exercise([[
In append mode (the guide's figure (e)), what is written for
[12:05-12:15) at 12:30 under each rule?]], function()
  code [[
e_arrivals = {arrivals[1], arrivals[2], arrivals[3], arrivals[4],
  {{"12:04", "donkey"}, {"12:17", "owl"}, {"12:26", "owl"}}, {{"12:09", "cat"}}}
e_one = run_figure("append", "false", e_arrivals)
e_two = run_figure("append", "true", e_arrivals)
print("12:30, one watermark:  " .. table.concat(e_one["12:30"], ", "))
print("12:30, two watermarks: " .. table.concat(e_two["12:30"], ", "))
]]
  expect("one watermark: (12:09, cat) dropped", e_one["12:30"],
    {"12:05-12:15 cat 1", "12:05-12:15 dog 3", "12:05-12:15 owl 2"})
  expect("two watermarks: (12:09, cat) judged by 12:11 still counts", e_two["12:30"],
    {"12:05-12:15 cat 2", "12:05-12:15 dog 3", "12:05-12:15 owl 2"})
  say [[
With two watermarks the (12:09, cat) of the 12:30 batch is judged by 12:11
(the previous batch's), and [12:05, 12:15) ends after 12:11: counted, cat 2,
which happens to be the number the figure prints (for the wrong reason:
the figure counted (12:15, cat) there).  The guarantee Spark gives is the
same under both rules: data less late than the delay is never dropped;
later data may or may not be.]]
end)
