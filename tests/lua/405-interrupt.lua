-- Ctrl-C stops what the learner waits on, not the query (issue 13, item
-- 7).  The interrupt is a real SIGINT: a background shell sends it to this
-- very process (its pid read from /proc/self/stat) while a foreachBatch
-- function spins, or while awaitTermination waits.  The batch it hits is
-- aborted: the state goes back to the version before it, nothing is
-- committed, the query stays active, and the next batch asked for re-runs
-- the same batch id with the same rows (exactly-once: the counts are
-- right, and stay right after a restart from the checkpoint).  An error
-- inside foreachBatch reads "foreachBatch (batch N): <chunk>:<line>: ..."
-- with one location and, printed by the console, one traceback.
local T = require("tap")

local function mypid()
  local f = assert(io.open("/proc/self/stat"))
  local s = f:read("l")
  f:close()
  return assert(s:match("^(%d+)"))
end
local PID = mypid()

-- SIGINT to us in a little while, from a shell that does not wait for it
-- (os.execute's system() ignores SIGINT while it waits for its child).
local function interrupt_soon()
  os.execute("(sleep 0.3; kill -INT " .. PID .. ") >/dev/null 2>&1 &")
end

-- Spin until interrupted; an error if no interrupt comes in 20 s.
local function spin()
  local t0 = os.clock()
  while os.clock() - t0 < 20 do end
  error("no interrupt came")
end

local ck = T.tempdir() .. "/ck"
local ms = spark.memoryStream("k STRING")
local calls, out = {}, {}
local function counts(df, id)
  calls[#calls + 1] = id
  if #calls == 2 then
    interrupt_soon()
    spin()
  end
  local rows = {}
  for _, r in ipairs(df:orderBy("k"):collect()) do rows[#rows + 1] = r.k .. "=" .. r.count end
  out[id] = table.concat(rows, " ")
end
local function start()
  return ms:toDF():groupBy("k"):count().writeStream:outputMode("complete")
    :option("checkpointLocation", ck):foreachBatch(counts):start()
end
local q = start()
ms:addData({"a", "b"})
q:processAllAvailable()
T.is(out[0], "a=1 b=1", "batch 0 ran")

-- batch 1: Ctrl-C while the function spins
ms:addData({"a", "c"})
local ok, e = pcall(q.processAllAvailable, q)
T.is(ok, false, "processAllAvailable ends at Ctrl-C")
T.is(type(e) == "table" and e.code, "Interrupted", "with an Interrupted error, not the query's failure")
T.like(tostring(e), "^interrupted: batch 1 aborted, nothing committed; the query is still active and re%-runs it next$",
  "one line: the batch aborted, the query still active")
T.is(q.isActive, true, "the query is still active")
T.is(q.exception, nil, "and has no exception")
T.is(q.lastProgress.batchId, 0, "the last completed batch is still 0")
local cp = q:checkpoint().batches
T.is(#cp, 2, "offsets/1 is logged")
T.is(cp[2] and cp[2].committed, false, "batch 1 is not committed")
T.is(calls, {0, 1}, "the function was in batch 1 when interrupted")
T.is(out[1], nil, "and wrote nothing for it")

-- held: the session's ticks (awaitAnyTermination ticks every query while
-- it waits) do not re-run it behind the learner's back
T.is(spark.streams:awaitAnyTermination(0.3), false, "awaitAnyTermination times out")
T.is(#calls, 2, "ticks do not re-run the interrupted batch")

-- the next batch asked for re-runs batch 1 with the same rows
q:processAllAvailable()
T.is(calls, {0, 1, 1}, "the re-run calls the function again with batch id 1")
T.is(out[1], "a=2 b=1 c=1", "state went back to version 1 before the re-run: a counted twice, not three times")
T.is(q.lastProgress.batchId, 1, "batch 1 completed")
T.is(q:checkpoint().batches[2].committed, true, "and committed")
T.is(q.isActive, true, "the query goes on")
ms:addData({"b"})
q:processAllAvailable()
T.is(out[2], "a=2 b=2 c=1", "batch 2 builds on the re-run's state")
q:stop()

-- what was committed is right on disk too: a restart from the checkpoint
calls = {}
local q2 = start()
ms:addData({"c"})
q2:processAllAvailable()
T.is(out[3], "a=2 b=2 c=2", "restarted from the checkpoint: the state has each row once")
q2:stop()

-- awaitTermination: Ctrl-C ends the wait, the query stays
local ms2 = spark.memoryStream("v INT")
local q3 = ms2:toDF().writeStream:format("memory"):queryName("i405"):start()
interrupt_soon()
local t0 = os.time()
ok, e = pcall(q3.awaitTermination, q3, 15)
T.is(ok, false, "awaitTermination ends at Ctrl-C")
T.ok(os.time() - t0 < 10, "well before its timeout")
T.is(type(e) == "table" and e.code, "Interrupted", "as an Interrupted error")
T.like(tostring(e), "^interrupted: awaitTermination stopped waiting; query 'i405' is still active$", "one line")
T.is(q3.isActive, true, "the query is still active")
ms2:addData({7})
q3:processAllAvailable()
T.is(T.rows(spark.table("i405")), {{7}}, "and still runs")
q3:stop()

-- awaitAnyTermination too
local q6 = ms2:toDF().writeStream:format("memory"):queryName("i405any"):start()
spark.streams:resetTerminated()
interrupt_soon()
ok, e = pcall(spark.streams.awaitAnyTermination, spark.streams, 15)
T.is(ok, false, "awaitAnyTermination ends at Ctrl-C")
T.like(tostring(e), "^interrupted: awaitAnyTermination stopped waiting; the queries are still active$", "one line")
T.is(q6.isActive, true, "the query is still active")
q6:stop()

-- between batches: five files, one a batch; Ctrl-C while a listener of
-- batch 1 runs ends processAllAvailable after batch 1, nothing aborted
local inbox = T.tempdir()
for i = 1, 5 do T.put(inbox, i .. ".json", '{"n":' .. i .. '}\n', string.format("2026-01-01 11:00:%02d", i)) end
local q5 = spark.readStream:schema("n INT"):option("maxFilesPerTrigger", 1):json(inbox)
  .writeStream:format("memory"):queryName("i405files"):start()
local stopper = {onQueryProgress = function(ev)
  if ev.progress.id == q5.id and ev.progress.batchId == 1 then
    interrupt_soon()
    spin()
  end
end}
spark.streams:addListener(stopper)
ok, e = pcall(q5.processAllAvailable, q5)
T.is(ok, false, "Ctrl-C between batches ends processAllAvailable")
T.like(tostring(e), "^interrupted: stopped waiting; query 'i405files' is still active$", "one line")
T.is(q5.lastProgress.batchId, 1, "after batch 1: the batches done stay done, the rest wait")
T.is(#spark.table("i405files"):collect(), 2, "two files' rows in the table")
spark.streams:removeListener(stopper)
q5:processAllAvailable()
T.is(q5.lastProgress.batchId, 4, "processAllAvailable again runs the other three")
T.is(#spark.table("i405files"):collect(), 5, "every row once")
q5:stop()

-- an error inside foreachBatch: one prefix (ours), then the function's line
local ms3 = spark.memoryStream("v INT")
local q4 = ms3:toDF().writeStream:foreachBatch(function(df, id)
  local x = nil
  return x .. "a"
end):start()
ms3:addData({1})
ok, e = pcall(q4.processAllAvailable, q4)
T.is(ok, false, "a failing function fails processAllAvailable")
T.like(tostring(e), "^foreachBatch %(batch 0%): tests/lua/405%-interrupt%.lua:%d+: attempt to concatenate a nil value %(local 'x'%)$",
  "the message: batch id, then the learner's line, once")
T.like(e.traceback, "^stack traceback:\n\ttests/lua/405%-interrupt%.lua:%d+: in function", "the function's traceback rides along")
T.like(q4.exception, "^foreachBatch %(batch 0%): [^\n]*\nstack traceback:", "q.exception: the line, then the traceback")

-- as the console prints it: one message, one traceback
local dir = T.tempdir()
local f = assert(io.open(dir .. "/boom.lua", "w"))
f:write([[
ms = spark.memoryStream("v INT")
q = ms:toDF().writeStream:foreachBatch(function(df, id)
  local x = nil
  return x .. "a"
end):start()
ms:addData({1})
q:processAllAvailable()
]])
f:close()
local bin = os.getenv("STREAMLAB") or (os.getenv("PWD") .. "/streamlab")
local p = assert(io.popen("cd '" .. dir .. "' && '" .. bin .. "' run boom.lua 2>&1"))
local text = p:read("a")
p:close()
local function count(s, pat)
  local n = 0
  for _ in s:gmatch(pat) do n = n + 1 end
  return n
end
T.like(text, "^error: foreachBatch %(batch 0%): boom%.lua:4: attempt to concatenate a nil value %(local 'x'%)\n",
  "the console's first line: error, batch id, the learner's line")
T.is(count(text, "attempt to concatenate"), 1, "the message once")
T.is(count(text, "stack traceback:"), 1, "one traceback")
T.like(text, "\n\tboom%.lua:4: in function <boom%.lua:2>\n\t%[C%]: in method 'processAllAvailable'\n\tboom%.lua:7: in main chunk",
  "the function's frames, then the caller's")

T.done()
