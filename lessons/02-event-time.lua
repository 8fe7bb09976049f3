-- Lesson 2: event time is not processing time (LESSONS.md L2).  The ten
-- arrivals of the guide's watermark figure (1.3(d)), in arrival order.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(2, "Event time is not processing time")

say [[
Every event carries the time it happened: its *event time*, written in the
data by whoever produced it.  Spark sees it later, at *processing time*:
the trigger that reads it.  On a phone in a tunnel the two can be minutes
or hours apart.

Ten events of (event time, word) arrive over four 5-minute triggers.  The
query does no aggregation: it tags every row with the trigger time
(current_timestamp() is the batch's timestamp, from our manual clock).
withWatermark tells Spark, and the scatter view, which column is the event
time; with no aggregation it drops nothing (lesson 5 shows what it does).]]

code [[
spark.clock:manual("2026-01-01 12:05:00")
events = spark.memoryStream("event_time TIMESTAMP, word STRING")
arrivals = {   -- what arrives before each trigger
  ["12:10"] = {{"12:07", "dog"}, {"12:08", "owl"}},
  ["12:15"] = {{"12:14", "dog"}, {"12:09", "cat"}},
  ["12:20"] = {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}},
  ["12:25"] = {{"12:04", "donkey"}, {"12:17", "owl"}},
}
triggers = {"12:10", "12:15", "12:20", "12:25"}
function feed(stream, at)
  local rows = {}
  for _, a in ipairs(arrivals[at]) do rows[#rows + 1] = {"2026-01-01 " .. a[1] .. ":00", a[2]} end
  stream:addData(rows)
end
]]
pause()

code [[
seen = {}
q = events:toDF()
  :withWatermark("event_time", "10 minutes")   -- names the event-time column
  :select(F.date_format(F.current_timestamp(), "HH:mm"):alias("arrive"),
          F.date_format("event_time", "HH:mm"):alias("event"), "word")
  .writeStream:trigger{processingTime = "5 minutes"}
  :foreachBatch(function(df, id)
    for _, r in ipairs(df:collect()) do seen[#seen + 1] = r end
    df:show()
  end):start()
for _, at in ipairs(triggers) do
  feed(events, at)
  spark.clock:advance("5 minutes")   -- the trigger at `at` runs
end
]]
view("scatter")
expect("ten rows read, in four batches", {#seen, q.lastProgress.batchId}, {10, 3})
pause()

say [[
The scatter view plots event time against arrival time.  On an ideal
network every point would sit on the diagonal; here points fall below it:
the event happened well before Spark saw it.  The `:` line is the largest
event time seen so far.  A point below that line arrived *out of order*.]]

exercise([[
How many events have an event time below the largest event time seen
before them?  What is the largest such gap, in minutes?]], function()
  code [[
local max_seen, late, gap = nil, {}, 0
for _, r in ipairs(seen) do
  if max_seen and r.event < max_seen then
    late[#late + 1] = r.event .. " " .. r.word
    local function mins(hhmm) return tonumber(hhmm:sub(1, 2)) * 60 + tonumber(hhmm:sub(4, 5)) end
    gap = math.max(gap, mins(max_seen) - mins(r.event))
  end
  if not max_seen or r.event > max_seen then max_seen = r.event end
end
out_of_order, largest_gap = late, gap
print(#late .. " out of order: " .. table.concat(late, ", ") .. "; largest gap " .. gap .. " minutes")
]]
  expect("events behind the max seen before them", out_of_order,
    {"12:09 cat", "12:08 dog", "12:13 owl", "12:04 donkey", "12:17 owl"})
  expect("largest gap (donkey after 12:21)", largest_gap, 17)
end)

say [[
Half the events arrived after a later one.  That is normal, not an error.
Processing time says *when Spark computed*; event time says *when it
happened*, and it is the one your answers should be about.  The next
lessons put event time into windows.]]
code [[q:stop()]]
