-- The json file sink's _spark_metadata stays bounded in files over a long
-- run (issue 16 finding 10: 300 files after 300 batches), as Spark's
-- CompactibleFileStreamLog.deleteExpiredLog: with compactInterval 10 and
-- minBatchesToRetain 100, never more than 100 + 10 + 1 log files, the
-- files below the rule's minCompactionBatchId gone, the sink read back
-- with every row once, and a restart in the middle continuing the log.
-- 2,000 tiny batches by default; STREAMLAB_LONG=1 runs 10,000.  The
-- compacts still hold every entry (as Spark's), so the bytes grow with
-- the batches: the total is printed, not bounded.
local T = require("tap")

local N = os.getenv("STREAMLAB_LONG") and 10000 or 2000
local CI, RETAIN = 10, 100
spark.clock:manual("2026-01-01 12:00:00")
local out, ckpt = T.tempdir(), T.tempdir()
local meta = out .. "/_spark_metadata"

local function logfiles()
  local names, bytes = {}, 0
  for _, n in ipairs(T.ls(meta)) do
    if not n:match("^%.") then
      names[#names + 1] = n
      local h = assert(io.open(meta .. "/" .. n, "rb"))
      bytes = bytes + h:seek("end")
      h:close()
    end
  end
  return names, bytes
end

-- Spark's rule after batch `last`: the lowest batch id still logged
local function floor_after(last)
  local min_batch = last + 1 - RETAIN
  if CI > min_batch then return 0 end
  return min_batch - min_batch % CI - 1
end

local ms = spark.memoryStream("id INT")
local function start()
  return ms:toDF().writeStream:format("json"):option("path", out)
    :option("checkpointLocation", ckpt):start()
end

local q = start()
local most, wrong, restart_at = 0, 0, N // 2
for i = 0, N - 1 do
  if i == restart_at then
    q:stop()
    q = start()
  end
  ms:addData{{i}}
  q:processAllAvailable()
  spark.clock:advance("1 second")
  if i % 97 == 0 or i == N - 1 then
    local names = logfiles()
    if #names > most then most = #names end
    local low = math.huge
    for _, n in ipairs(names) do
      local id = tonumber(n:match("^(%d+)"))
      if id and id < low then low = id end
    end
    if low ~= floor_after(i) or #names ~= i - floor_after(i) + 1 then
      wrong = wrong + 1
      T.diag(string.format("after batch %d: %d files from %s, Spark keeps from %d",
        i, #names, tostring(low), floor_after(i)))
    end
  end
end
-- the checkpoint keeps minBatchesToRetain batches too: each has its sink
-- log entry, N or N.compact
local unlogged, compacts = 0, 0
for _, b in ipairs(q:checkpoint().batches) do
  if not b.sinkLog then unlogged = unlogged + 1 end
  if (b.batchId + 1) % CI == 0 then compacts = compacts + 1 end
end
T.ok(compacts > 0, "the checkpoint table shows compaction batches (" .. compacts .. ")")
T.is(unlogged, 0, "every batch the checkpoint keeps has its sink log entry (sinkLog), compacts too")
q:stop()

local names, bytes = logfiles()
T.is(q.lastProgress.batchId, N - 1, N .. " batches ran, a restart at " .. restart_at .. " continuing")
T.is(wrong, 0, "every sampled batch: the log files are exactly those Spark's deleteExpiredLog keeps")
T.ok(most <= RETAIN + CI + 1, "_spark_metadata never above minBatchesToRetain + compactInterval + 1 files (at most " .. most .. ")")
T.ok(#names <= RETAIN + CI + 1 and #names >= RETAIN, "after the run " .. #names .. " log files")
T.diag(string.format("after %d batches: %d files in _spark_metadata, %d bytes (the compacts still list every part file, as Spark's)",
  N, #names, bytes))
local rows = spark.read:schema("id INT"):json(out):collect()
local seen, dup = {}, 0
for _, r in ipairs(rows) do
  if seen[r[1]] then dup = dup + 1 end
  seen[r[1]] = true
end
T.is(#rows, N, "the sink reads back " .. N .. " rows")
T.is(dup, 0, "none twice")
T.ok(seen[0] and seen[N - 1], "the first and the last batch's rows among them")

-- with fileSink.log.deletion false every log file stays
spark.conf:set("spark.sql.streaming.fileSink.log.deletion", "false")
local out2 = T.tempdir()
local ms2 = spark.memoryStream("id INT")
local q2 = ms2:toDF().writeStream:format("json"):option("path", out2)
  :option("checkpointLocation", T.tempdir()):start()
for i = 1, 2 * RETAIN do ms2:addData{{i}}; q2:processAllAvailable() end
q2:stop()
local kept = 0
for _, n in ipairs(T.ls(out2 .. "/_spark_metadata")) do
  if not n:match("^%.") then kept = kept + 1 end
end
T.is(kept, 2 * RETAIN, "fileSink.log.deletion false: all " .. 2 * RETAIN .. " log files stay")
T.done()
