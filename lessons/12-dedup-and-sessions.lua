-- Lesson 12: deduplication and session windows.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(12, "Duplicates and session windows")

say [[
Producers retry, so streams carry duplicates: the same event_id twice.
dropDuplicates keeps the first row of each key and remembers every key it
has seen, in state.  Put the event time in the key and add a watermark,
and Spark can forget keys older than the watermark: a duplicate that old
is dropped as late anyway.]]

code [[
spark.clock:manual("2026-01-01 12:00:00")
clicks = spark.memoryStream("event_id STRING, event_time TIMESTAMP")
unique = clicks:toDF():withWatermark("event_time", "10 minutes")
  :dropDuplicates("event_id", "event_time")
dq = unique.writeStream:format("memory"):queryName("unique_clicks"):start()
function send(rows)
  clicks:addData(rows)
  dq:processAllAvailable()
  local ids = {}
  for _, r in ipairs(require("lesson").table("unique_clicks")) do ids[#ids + 1] = r[1] end
  print("sink now holds: " .. table.concat(ids, " ") .. "   state rows: " ..
        dq.lastProgress.stateOperators[1].numRowsTotal)
end
send{{"e1", "2026-01-01 12:00:00"}, {"e2", "2026-01-01 12:01:00"}, {"e1", "2026-01-01 12:00:00"}}
send{{"e2", "2026-01-01 12:01:00"}, {"e3", "2026-01-01 12:05:00"}}
send{{"e4", "2026-01-01 12:20:00"}}
send{{"e1", "2026-01-01 12:00:00"}}
send{{"e1", "2026-01-01 12:00:00"}}
]]
expect("every id written once", L.rows(spark.table("unique_clicks"):select("event_id")),
  {{"e1"}, {"e2"}, {"e3"}, {"e4"}})
expect("state keeps only keys newer than the watermark (12:10)", dq.lastProgress.stateOperators[1].numRowsTotal, 1)
pause()

say [[
e4 at 12:20 moved the watermark to 12:10, and the keys of 12:00..12:05
were evicted: the state holds only e4.  The resent e1 (12:00) is not a
"new" event: it is older than the watermark and dropped as late.
Without the watermark the state would hold every id ever seen.]]
pause()

say [[
Session windows: a session is a burst of activity; it ends after a gap
with no events.  session_window("event_time", "5 minutes") gives each
user's events a window [first event, last event + gap); an event that
falls inside or touches a session extends it, and one event can *bridge*
two sessions into one.  Complete mode shows every session each time.]]

code [[
spark.clock:manual("2026-01-01 12:00:00")
visits = spark.memoryStream("user STRING, event_time TIMESTAMP")
sessions = visits:toDF():withWatermark("event_time", "10 minutes")
  :groupBy("user", F.session_window("event_time", "5 minutes"):alias("session")):count()
  :select("user", F.date_format("session.start", "HH:mm"):alias("start"),
          F.date_format("session.end", "HH:mm"):alias("end"), "count")
sq = sessions.writeStream:outputMode("complete"):format("memory"):queryName("sessions"):start()
function visit(rows)
  visits:addData(rows)
  sq:processAllAvailable()
  local t = {}
  for _, r in ipairs(require("lesson").table("sessions")) do t[#t + 1] = r[1] .. " " .. r[2] .. "-" .. r[3] .. " x" .. r[4] end
  print(table.concat(t, ", "))
  return t
end
visit{{"a", "2026-01-01 12:00:00"}, {"a", "2026-01-01 12:02:00"}, {"b", "2026-01-01 12:01:00"}}
visit{{"a", "2026-01-01 12:04:00"}, {"b", "2026-01-01 12:10:00"}}
]]
pause()

exercise([[
b has two sessions, [12:01, 12:06) and [12:10, 12:15).  An event of b at
12:05 arrives.  What are b's sessions now?]], function()
  code [[after_bridge = visit{{"b", "2026-01-01 12:05:00"}}]]
  expect("one session for b, bridged by 12:05", after_bridge,
    {"a 12:00-12:09 x3", "b 12:01-12:15 x3"})
  say [[
[12:05, 12:10) overlaps [12:01, 12:06) and touches [12:10, 12:15): the
three merge into one session of 3 events, [12:01, 12:15).]]
end)

say [[
Session windows work in append and complete mode.  Update mode is refused,
because a session that merges would have to retract rows already written:]]
code([[
sq:stop()
sessions.writeStream:outputMode("update"):format("memory"):queryName("s_update"):start()
]], {fails = "[Uu]pdate"})
code [[dq:stop()]]
