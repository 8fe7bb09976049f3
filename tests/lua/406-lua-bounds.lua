-- Lua without bounds (issue 16, finding 8): a runaway foreachBatch hung
-- the query for good and awaitTermination(5) never returned; a script
-- allocating in a loop grew to gigabytes.  Now a count hook stops a
-- foreachBatch function still running when the wait's timeout passes (the
-- batch aborts as with Ctrl-C: nothing committed, the query active and
-- held, the batch re-run when asked for), and Lua's allocations are
-- bounded by streamlab.lua.memoryLimit: past it, "not enough memory", the
-- script goes on and gets the memory back once the garbage is collected.
local T = require("tap")

local function now()
  local f = assert(io.open("/proc/uptime"))
  local s = f:read("n")
  f:close()
  return s
end

-- ---- awaitTermination(2) with a runaway foreachBatch ----
local ms = spark.memoryStream("v INT")
local calls, got = 0, {}
local q = ms:toDF().writeStream:queryName("runaway"):foreachBatch(function(df, id)
  calls = calls + 1
  if calls == 1 then
    -- a pcall inside the function cannot keep it running
    while true do pcall(function() while true do end end) end
  end
  for _, r in ipairs(df:collect()) do got[#got + 1] = r.v end
end):start()
ms:addData({1, 2})
local t0, c0 = now(), os.clock()
local ok, r = pcall(q.awaitTermination, q, 2)
local wall = now() - t0
T.is(ok, true, "awaitTermination(2) returns, no error")
T.is(r, false, "false: the query did not terminate")
T.ok(wall >= 1.9 and wall < 3, string.format("within 3 s (%.2f s)", wall))
T.ok(os.clock() - c0 < 3, "the spinning stopped (cpu time under 3 s)")
T.is(calls, 1, "the function ran once, in batch 0")
T.is(q.isActive, true, "the query is still active")
T.is(q.exception, nil, "with no exception")
T.like(q.status.message, "^Waiting for a step %(re%-runs interrupted batch 0%)", "held: it waits for the learner")
T.is(q.lastProgress, nil, "nothing committed")
q:processAllAvailable()
T.is(calls, 2, "processAllAvailable re-runs batch 0")
T.is(got, {1, 2}, "with its rows, once")
T.is(q.lastProgress.batchId, 0, "batch 0 completed")

-- awaitAnyTermination's timeout bounds a batch too
local n2 = 0
local q2 = ms:toDF().writeStream:foreachBatch(function(df, id)
  n2 = n2 + 1
  if n2 == 1 then while true do end end
end):start()
ms:addData({3})
t0 = now()
spark.streams:resetTerminated()
T.is(spark.streams:awaitAnyTermination(1), false, "awaitAnyTermination(1) times out")
T.ok(now() - t0 < 2.5, "within its timeout and a little")
T.is(q2.isActive, true, "that query is still active")
q2:processAllAvailable()
T.is(n2, 2, "and re-runs the batch when asked")
q2:stop()

-- Ctrl-C (a real SIGINT to this process) on a function that catches
-- errors in a loop: lstop raises once, then hands back to the bound, which
-- keeps raising until the function is gone
local function mypid()
  local f = assert(io.open("/proc/self/stat"))
  local s = f:read("l")
  f:close()
  return assert(s:match("^(%d+)"))
end
local n5 = 0
local q5 = ms:toDF().writeStream:foreachBatch(function(df, id)
  n5 = n5 + 1
  if n5 == 1 then
    os.execute("(sleep 0.3; kill -INT " .. mypid() .. ") >/dev/null 2>&1 &")
    local c = os.clock()
    while os.clock() - c < 20 do pcall(function() while os.clock() - c < 20 do end end) end
  end
end):start()
ms:addData({6})
t0 = now()
ok, r = pcall(q5.processAllAvailable, q5)
T.is(ok, false, "Ctrl-C ends processAllAvailable, a pcall loop in the function notwithstanding")
T.like(tostring(r), "^interrupted: batch 0 aborted, nothing committed", "one line: interrupted, batch 0 aborted")
T.ok(now() - t0 < 5, "at once, not after the function's 20 s")
T.is(q5.isActive, true, "the query is still active")
q5:processAllAvailable()
T.is(n5, 2, "the next processAllAvailable re-runs the batch")
q5:stop()

-- no timeout: the hook leaves a slow but finite function alone
local n3 = 0
local q3 = ms:toDF().writeStream:foreachBatch(function(df, id)
  local c = os.clock() while os.clock() - c < 0.3 do end
  n3 = n3 + 1
end):start()
ms:addData({4})
q3:processAllAvailable()
T.is(n3, 1, "processAllAvailable has no deadline: a 0.3 s function completes")
T.is(q3.lastProgress.batchId, 0, "and its batch commits")
q3:stop()

-- ---- the memory limit ----
T.is(spark.conf:get("streamlab.lua.memoryLimit"), "1g", "the default limit is 1 GiB")
ok, r = pcall(spark.conf.set, spark.conf, "streamlab.lua.memoryLimit", "lots")
T.like(tostring(r), "^streamlab%.lua%.memoryLimit should be a size in bytes, but was 'lots' %(for example '64m' or '2g'%)$",
  "a bad value: one line")
ok, r = pcall(spark.conf.set, spark.conf, "streamlab.lua.memoryLimit", "4k")
T.like(tostring(r), "^streamlab%.lua%.memoryLimit: '4k' is too small: Lua holds [%d.]+ MiB now$", "too small: one line")
T.is(spark.conf:get("streamlab.lua.memoryLimit"), "1g", "a refused value is not kept")
spark.conf:set("streamlab.lua.memoryLimit", "64m")
T.is(spark.conf:get("streamlab.lua.memoryLimit"), "64m", "set at run time")

local t = {}
ok, r = pcall(function()
  for i = 1, 1e9 do t[i] = ("x"):rep(100) .. i end
end)
T.is(ok, false, "allocating past the limit fails")
T.is(r, "not enough memory", "with Lua's 'not enough memory'")
T.ok(#t > 100000 and #t < 1000000, "after some rows, not a billion (" .. #t .. ")")
T.ok(collectgarbage("count") <= 64 * 1024 + 1, "Lua holds no more than the limit")
t = nil
collectgarbage()
T.ok(collectgarbage("count") < 8 * 1024, "the memory is back once collected")
local u = {}
for i = 1, 200000 do u[i] = ("y"):rep(100) .. i end
T.is(#u, 200000, "and usable again")
u = nil
collectgarbage()

-- a foreachBatch out of memory: the batch aborts and re-runs, the query lives
local big = true
local n4 = 0
local q4 = ms:toDF().writeStream:foreachBatch(function(df, id)
  n4 = n4 + 1
  if big then
    local w = {}
    for i = 1, 1e9 do w[i] = ("z"):rep(100) .. i end
  end
end):start()
ms:addData({5})
ok, r = pcall(q4.processAllAvailable, q4)
T.is(ok, false, "processAllAvailable ends")
T.is(type(r) == "table" and r.code, "Interrupted", "not the query's failure")
T.like(tostring(r), "^not enough memory in foreachBatch: batch 0 aborted, nothing committed; the query is still active and re%-runs it next$",
  "one line: the batch aborted for memory")
T.is(q4.isActive, true, "the query is still active")
T.is(q4.exception, nil, "with no exception")
big = false
q4:processAllAvailable()
T.is(n4, 2, "the batch re-ran")
T.is(q4.lastProgress.batchId, 0, "and committed")
q4:stop()

spark.conf:unset("streamlab.lua.memoryLimit")
T.is(spark.conf:get("streamlab.lua.memoryLimit"), "1g", "unset: the default again")
q:stop()
T.done()
