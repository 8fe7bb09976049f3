-- q:checkpoint(), q.checkpointLocation, q:crash / q:restart argument and
-- state errors, restarting a stopped query, a second crash during the
-- recovery itself (RELIABILITY.md 3.2 P18), and the checkpoint log agreeing
-- with the progress reports (watermark and timestamp per batch).
local T = require("tap")
local C = require("crashcase")

spark.clock:manual("2026-01-01 12:00:00")

local function ms_of(iso)
  local y, mo, d, h, mi, s, f = iso:match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)%.(%d+)Z$")
  local days = os.time{year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = 12} // 86400
  return ((days * 24 + tonumber(h)) * 60 + tonumber(mi)) * 60000 + tonumber(s) * 1000 + tonumber(f)
end

-- a memory source into the memory sink, with a checkpoint location
local ck = T.tempdir() .. "/ck"
local ms = spark.memoryStream("v INT")
local q = ms:toDF().writeStream:format("memory"):queryName("nums"):option("checkpointLocation", ck):start()
T.is(type(q.checkpointLocation), "string", "q.checkpointLocation is a string")
T.like(q.checkpointLocation or "", "/ck$", "q.checkpointLocation is the checkpointLocation given")
local c0 = q:checkpoint()
T.is(c0 and c0.batches, {}, "before the first batch: no batches")
T.is(c0 and c0.id, q.id, "the checkpoint table carries the query id")
ms:addData{1, 2}
q:processAllAvailable()
spark.clock:advance("1 minute")
ms:addData{3}
q:processAllAvailable()
local c1 = q:checkpoint()
T.is(c1.location, q.checkpointLocation, "location is q.checkpointLocation")
T.is(#c1.batches, 2, "two batches")
local b0, b1 = c1.batches[1], c1.batches[2]
T.is({b0.batchId, b1.batchId}, {0, 1}, "batch ids 0 and 1, in order")
T.is({b0.offsets, b1.offsets}, {{0}, {1}}, "offsets: the memory source's offsets 0 then 1")
T.is({b0.committed, b1.committed}, {true, true}, "both committed")
T.is(math.type(b0.timestampMs), "integer", "timestampMs is an integer")
T.is(b1.timestampMs - b0.timestampMs, 60000, "the batch timestamps are the clock's (one minute apart)")
T.is(b0.timestampMs, ms_of(q.recentProgress[1].timestamp), "timestampMs = the progress timestamp")
T.is(type(b0.sinkLog), "boolean", "sinkLog is a boolean")
T.is(type(b0.watermarkMs), "number", "watermarkMs is a number")

-- argument and state errors
T.errors(function() q:crash("nowhere") end, "after%-offsets", "q:crash(unknown point) lists the known points")
T.errors(function() q:crash() end, "bad argument #1 to 'crash'", "q:crash() needs a point")
T.errors(function() q:crash(42) end, "bad argument #1 to 'crash'", "q:crash(42): a string is expected")
T.errors(function() q:restart() end, ".", "q:restart() of an active query is an error")
T.is(q.isActive, true, "the active query is untouched by the refused restart")

-- restart a stopped query: same id, new run, goes on from the checkpoint
local id, run1 = q.id, q.runId
q:stop()
local q2 = q:restart()
T.is(q2.id, id, "restart of a stopped query: same id")
T.isnt(q2.runId, run1, "restart of a stopped query: new runId")
T.is(q.isActive, false, "the old handle stays inactive")
T.is(q.runId, run1, "the old handle keeps its runId")
T.is(q2.isActive, true, "the new query is active")
local active = {}
for _, a in ipairs(spark.streams.active) do active[#active + 1] = a.runId end
T.is(active, {q2.runId}, "spark.streams.active holds the new run only")
T.is(q2:step(), false, "nothing to re-run: batch 1 was committed")
ms:addData{4}
q2:processAllAvailable()
-- a new run's memory sink starts empty, as Spark's (a MemorySink per start;
-- a crash restart keeps it: 402)
T.is(T.sorted_rows(spark.table("nums")), {{4}}, "the new run reads only the new data (a new memory sink)")
T.is(q2.lastProgress.batchId, 2, "the new run goes on with batch 2")
T.is(#q2:checkpoint().batches, 3, "the checkpoint lists batches 0..2")
T.errors(function() q:restart() end, ".", "restarting the old handle while its new run is active is an error")
q2:stop()

-- a query without checkpointLocation still has one (temporary)
local ms2 = spark.memoryStream("v INT")
local q3 = ms2:toDF().writeStream:format("memory"):queryName("tmpck"):start()
T.is(type(q3.checkpointLocation), "string", "no checkpointLocation: a temporary one")
ms2:addData{7}
q3:processAllAvailable()
T.is(#q3:checkpoint().batches, 1, "the temporary checkpoint logs the batch")
q3:stop()

-- the windowed file query: the checkpoint agrees with the progress reports
local ref = C.run{sink = "file"}
local bs = ref.checkpoint.batches
T.ok(#bs >= 10, "windowed run: " .. #bs .. " batches logged")
local contiguous, monotone, versions = true, true, true
for i, b in ipairs(bs) do
  if b.batchId ~= i - 1 then contiguous = false end
  if i > 1 and b.watermarkMs < bs[i - 1].watermarkMs then monotone = false end
  if b.stateVersion ~= b.batchId + 1 then versions = false end
end
T.ok(contiguous, "batch ids contiguous from 0")
T.ok(monotone, "the logged watermark never decreases")
T.ok(versions, "stateVersion = batchId + 1 (Spark's state version)")
local agree = 0
for _, p in ipairs(ref.progress) do
  local b = bs[p.batchId + 1]
  if b and b.watermarkMs == ms_of(p.eventTime.watermark) and b.timestampMs == ms_of(p.timestamp) then
    agree = agree + 1
  end
end
T.is(agree, #ref.progress, "every progress report's watermark and timestamp are its batch's logged ones")
T.is(bs[#bs].watermarkMs, ms_of("2026-01-01T13:50:00.000Z") - 0, "the last batch ran with watermark 13:50")

-- a second crash during the recovery of the first (P18): same outcome
for _, point in ipairs{"mid-state", "after-sink", "mid-commit"} do
  local got = C.run{sink = "file", point = point, batch = 5, again = true}
  local tag = point .. " twice: "
  T.is(#got.crashes, 2, tag .. "crashed again while re-running batch 5")
  T.is(got.crashes[2] and got.crashes[2].batch, 5, tag .. "the second crash is in the re-run of batch 5")
  T.is(got.rows, ref.rows, tag .. "the sink holds the uncrashed run's rows")
  T.is(got.parts, ref.parts, tag .. "every batch's part file equals the uncrashed run's")
  T.is(C.comparable(got.checkpoint), C.comparable(ref.checkpoint), tag .. "the same checkpoint log")
  T.is(got.temps, {}, tag .. "no stray temp files")
end

T.done()
