-- Lesson 4: sliding windows (LESSONS.md L4; the guide's figures 1.3(b) and
-- 1.3(c)).
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(4, "Sliding windows")

say [[
window("event_time", "10 minutes", "5 minutes") makes windows 10 minutes
long that start every 5 minutes: [12:00, 12:10), [12:05, 12:15), ...  They
overlap, so every event falls into 10 / 5 = 2 windows.

This is the programming guide's windowed word count: lines of words, a
trigger every 5 minutes, complete mode (the whole result table each time).]]

code [[
spark.clock:manual("2026-01-01 12:00:00")
lines = spark.memoryStream("event_time TIMESTAMP, value STRING")
function sliding(stream)
  return stream:toDF()
    :select("event_time", F.explode(F.split("value", " ")):alias("word"))
    :groupBy(F.window("event_time", "10 minutes", "5 minutes"), "word"):count()
    :select(F.concat(F.date_format("window.start", "HH:mm"), F.lit("-"),
                     F.date_format("window.end", "HH:mm")):alias("window"), "word", "count")
end
function rows_of(name)
  local t = {}
  for _, r in ipairs(spark.table(name):orderBy("window", "word"):collect()) do
    t[#t + 1] = r.window .. " " .. r.word .. " " .. r.count
  end
  return t
end
q = sliding(lines).writeStream:outputMode("complete"):format("memory")
  :queryName("figure_b"):trigger{processingTime = "5 minutes"}:start()
lines:addData{{"2026-01-01 12:02:00", "cat dog"}, {"2026-01-01 12:03:00", "dog dog"}}
spark.clock:advance("5 minutes")                                     -- 12:05
print(table.concat(rows_of("figure_b"), "\n"))
]]
expect("12:05: the figure's [12:00-12:10) and also [11:55-12:05)", rows_of("figure_b"),
  {"11:55-12:05 cat 1", "11:55-12:05 dog 3", "12:00-12:10 cat 1", "12:00-12:10 dog 3"})
view("main")
pause()

say [[
The guide's picture shows only [12:00-12:10) at 12:05.  But 12:02 also
belongs to [11:55, 12:05): windows that started *before* the first event
exist too.  Let two more triggers run.]]

code [[
lines:addData{{"2026-01-01 12:07:00", "owl cat"}}
spark.clock:advance("5 minutes")                                     -- 12:10
lines:addData{{"2026-01-01 12:11:00", "dog"}, {"2026-01-01 12:13:00", "owl"}}
spark.clock:advance("5 minutes")                                     -- 12:15
print(table.concat(rows_of("figure_b"), "\n"))
]]
pause()

exercise([[
How many (window, word) rows exist after the 12:15 trigger, and which does
the Spark figure leave out?]], function()
  code [[print(#rows_of("figure_b") .. " rows")]]
  expect("rows after 12:15", #rows_of("figure_b"), 10)
  expect("the whole 12:15 table", rows_of("figure_b"), {
    "11:55-12:05 cat 1", "11:55-12:05 dog 3",
    "12:00-12:10 cat 2", "12:00-12:10 dog 3", "12:00-12:10 owl 1",
    "12:05-12:15 cat 1", "12:05-12:15 dog 1", "12:05-12:15 owl 2",
    "12:10-12:20 dog 1", "12:10-12:20 owl 1"})
  say [[
10 rows; the figure draws 8 and omits [11:55-12:05) cat 1, dog 3.]]
end)
pause()

say [[
The guide's next figure (late data, no watermark): the 12:11 "dog" is
replaced by a "dog" that happened at 12:04 and arrives at about 12:11.
Without a watermark nothing is ever too late: the dog is counted in both
of its windows, even though [12:00, 12:10) "ended" long ago.]]

code [[
q:stop()
spark.clock:manual("2026-01-01 12:00:00")
lines = spark.memoryStream("event_time TIMESTAMP, value STRING")
q = sliding(lines).writeStream:outputMode("complete"):format("memory")
  :queryName("figure_c"):trigger{processingTime = "5 minutes"}:start()
lines:addData{{"2026-01-01 12:02:00", "cat dog"}, {"2026-01-01 12:03:00", "dog dog"}}
spark.clock:advance("5 minutes")
lines:addData{{"2026-01-01 12:07:00", "owl cat"}}
spark.clock:advance("5 minutes")
lines:addData{{"2026-01-01 12:04:00", "dog"}, {"2026-01-01 12:13:00", "owl"}}
spark.clock:advance("5 minutes")
print(table.concat(rows_of("figure_c"), "\n"))
]]
expect("late dog, no watermark: counted in both its windows", rows_of("figure_c"), {
  "11:55-12:05 cat 1", "11:55-12:05 dog 4",
  "12:00-12:10 cat 2", "12:00-12:10 dog 4", "12:00-12:10 owl 1",
  "12:05-12:15 cat 1", "12:05-12:15 owl 2",
  "12:10-12:20 owl 1"})

say [[
The figure's caption says the late dog "incremented only 12:00-12:10"; it
also belongs to the omitted [11:55-12:05) (dog 3 -> 4).  Next: how Spark
decides a window is finished, the watermark.]]
code [[q:stop()]]
