-- spark.streams: active, get, awaitAnyTermination, resetTerminated, and
-- listeners (onQueryStarted / onQueryProgress / onQueryTerminated) with
-- their events in order.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
T.is(spark.streams.active, {}, "no active queries at first")

local events = {}
local listener = {
  onQueryStarted = function(e) events[#events + 1] = {"started", e.id, e.runId, e.name, e.timestamp} end,
  onQueryProgress = function(e)
    events[#events + 1] = {"progress", e.progress.id, e.progress.batchId, e.progress.numInputRows}
  end,
  onQueryTerminated = function(e) events[#events + 1] = {"terminated", e.id, e.runId, e.exception} end,
}
spark.streams:addListener(listener)

local ms = spark.memoryStream("value INT")
local q1 = ms:toDF().writeStream:format("memory"):queryName("one"):start()
local q2 = ms:toDF().writeStream:format("noop"):start()
T.is(#spark.streams.active, 2, "two active queries")
T.ok(spark.streams.active[1] == q1 and spark.streams.active[2] == q2, "active lists them in start order, the same objects")
T.ok(spark.streams:get(q1.id) == q1, "streams:get(id)")
T.ok(spark.streams.get(q2.id) == q2, "streams.get(id) with '.' too")
T.is(spark.streams:get("00000000-0000-0000-0000-000000000000"), nil, "get of an unknown id is nil")
T.is(q2.name, nil, "an unnamed query has name nil")

ms:addData{1, 2}
q1:processAllAvailable()
T.is(spark.streams:awaitAnyTermination(0), false, "awaitAnyTermination(timeout): nothing terminated yet")
q1:stop()
T.is(#spark.streams.active, 1, "a stopped query leaves active")
T.is(spark.streams:awaitAnyTermination(), true, "awaitAnyTermination after a stop")
spark.streams:resetTerminated()
T.is(spark.streams:awaitAnyTermination(0), false, "resetTerminated forgets it")

T.is(events, {
  {"started", q1.id, q1.runId, "one", "2026-01-01T12:00:00.000Z"},
  {"started", q2.id, q2.runId, nil, "2026-01-01T12:00:00.000Z"},
  {"progress", q1.id, 0, 2},
  -- awaitAnyTermination ticks the session: q2's default trigger runs
  {"progress", q2.id, 0, 2},
  {"terminated", q1.id, q1.runId, nil},
}, "listener events in order, with Spark's fields")

-- a listener that fails is reported and does not break the query
local bad = {onQueryProgress = function() error("listener broke") end}
spark.streams:addListener(bad)
ms:addData{3}
local out = T.capture(function() q2:processAllAvailable() end)
T.like(out, "onQueryProgress: .*listener broke", "a failing listener is reported")
T.is(q2.isActive, true, "the query carries on")
T.is(events[#events][1], "progress", "other listeners still ran")
spark.streams:removeListener(bad)
spark.streams:removeListener(listener)
local n = #events
ms:addData{4}
q2:processAllAvailable()
T.is(#events, n, "a removed listener hears nothing")

-- a failing query terminates with its exception in the event and in
-- awaitAnyTermination
local failed
spark.streams:addListener{onQueryTerminated = function(e) failed = e end}
local q3 = ms:toDF().writeStream:foreachBatch(function() error("bad batch") end):start()
pcall(function() q3:processAllAvailable() end)
T.like(failed and failed.exception, "bad batch", "onQueryTerminated carries the exception")
T.errors(function() spark.streams:awaitAnyTermination() end, "bad batch",
  "awaitAnyTermination raises the failure of the query that ended")
q2:stop()
T.is(spark.streams.active, {}, "all stopped")

T.errors(function() spark.streams:addListener{onQueryStarted = 1} end, "'onQueryStarted' must be a function",
  "listener methods must be functions")
T.errors(function() return spark.streams.actives end,
  "StreamingQueryManager has no method 'actives' %(did you mean 'active'%?%)", "a misspelt member")

T.done()
