-- Memory bounded by the chunk, not the batch (issue 16 finding 7): a
-- source's batch reaches the operators chunk by chunk (the rate source
-- makes 65,536-row chunks; the file source one file at a time) and the noop
-- sink keeps only the count, so a 100-million-row rate batch into noop runs
-- in a few MB (before: ~320 MB for 10 million rows, 24 GB a minute at 1e9).
-- Chunking changes when rows reach the operators, never which: offsets,
-- row counts and aggregates are those of the whole batch, and a crashed
-- batch re-runs with the same rows (exactly-once).
local T = require("tap")

local function hwm_kb()
  local f = assert(io.open("/proc/self/status"))
  local s = f:read("a")
  f:close()
  return tonumber(s:match("VmHWM:%s*(%d+)")), tonumber(s:match("VmRSS:%s*(%d+)"))
end

spark.clock:manual("2026-01-01 12:00:00")

-- 1e8 rows in one batch into noop
local before = hwm_kb()
local q = spark.readStream:format("rate"):option("rowsPerSecond", 100000000):load()
  .writeStream:format("noop"):start()
q:processAllAvailable()
spark.clock:advance("1 second")
q:processAllAvailable()
local p = q.lastProgress
local hwm, rss = hwm_kb()
T.is({ p.numInputRows, p.sink.numOutputRows }, { 100000000, 100000000 },
  "rate 1e8 rows/s, one second into noop: 1e8 rows in, 1e8 counted by the sink")
T.is({ p.sources[1].startOffset, p.sources[1].endOffset }, { 0, 1 }, "the offsets are the batch's, unchanged")
-- under ASan freed chunks sit in its quarantine (256 MB): no RSS bound
local maps = assert(io.open("/proc/self/maps")):read("a")
if maps:find("asan", 1, true) then
  T.diag("AddressSanitizer build: the RSS checks are skipped (its quarantine holds freed chunks)")
else
  T.ok(hwm < 200 * 1024, ("peak RSS %d kB < 200 MB (was %d kB before the query)"):format(hwm, before))
  T.ok(hwm - before < 64 * 1024, ("the batch grew the peak RSS by %d kB (< 64 MB; 1e8 rows are 1.6 GB)"):format(hwm - before))
end
T.diag(("rate 1e8 rows: peak RSS %d kB, RSS %d kB"):format(hwm, rss))
q:stop()

-- chunks and an aggregation: the counts of the whole batch
q = spark.readStream:format("rate"):option("rowsPerSecond", 200000):option("numPartitions", 3):load()
  :groupBy((F.col("value") % 4):alias("k")):agg(F.count("*"):alias("n"), F.sum("value"):alias("s"))
  .writeStream:format("memory"):outputMode("update"):queryName("agg"):start()
q:processAllAvailable()
spark.clock:advance("1 second")
q:processAllAvailable()
-- values 0..199999: 50000 per residue, sum of the residue r: 50000*r + 4*(0+..+49999)
local want = {}
for r = 0, 3 do want[#want + 1] = { r, 50000, 50000 * r + 4 * (49999 * 50000 // 2) } end
T.is(T.rows(spark.table("agg"):orderBy("k")), want, "200,000 rows in 4 chunks over 3 partitions: exact counts and sums")
q:stop()

-- rows, not chunks, reach the memory sink: order and values as one batch
q = spark.readStream:format("rate"):option("rowsPerSecond", 140000):load()
  .writeStream:format("memory"):queryName("raw"):start()
q:processAllAvailable()
spark.clock:advance("1 second")
q:processAllAvailable()
local t = spark.table("raw")
T.is(T.rows(t:agg(F.count("*"), F.min("value"), F.max("value"), F.countDistinct("value"))),
  { { 140000, 0, 139999, 140000 } }, "140,000 rows (3 chunks) reach the memory sink once each")
T.is(T.rows(t:where("value = 65535 or value = 65536"):select("value")), { { 65535 }, { 65536 } },
  "the rows either side of a chunk edge, in order")
q:stop()

-- a crash after the sink of a chunked batch: the re-run gives the same rows
local ck = T.tempdir() .. "/ck"
local seen = {}
local function sink(df, id)
  local r = T.rows(df:agg(F.count("*"), F.sum("value")))[1]
  seen[#seen + 1] = { id, r[1], r[2] }
end
q = spark.readStream:format("rate"):option("rowsPerSecond", 100000):load()
  .writeStream:foreachBatch(sink):option("checkpointLocation", ck):start()
q:processAllAvailable()
q:crash("before-commit")
pcall(spark.clock.advance, spark.clock, "1 second") -- may run the trigger
pcall(q.step, q)
T.ok(not q.isActive, "the armed crash stops batch 1")
q = q:restart()
q:processAllAvailable()
T.is(seen, { { 0, 0 }, { 1, 100000, 100000 * 99999 // 2 }, { 1, 100000, 100000 * 99999 // 2 } },
  "batch 0 (no rows yet), then batch 1 re-runs after the crash with the same 100,000 rows (2 chunks)")
q:stop()

-- the socket source hands 65,536 lines at a time: 150,000 lines, one batch
if os.execute("command -v python3 >/dev/null 2>&1") then
  local d = T.tempdir()
  local f = assert(io.open(d .. "/w.py", "w"))
  f:write([[
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
c.sendall(b"".join(b"%d\n" % i for i in range(150000)))
c.close()
]])
  f:close()
  local srv = assert(io.popen("python3 " .. d .. "/w.py"))
  local port = srv:read("l")
  local n, sum, batches = 0, 0, 0
  q = spark.readStream:format("socket"):options{ host = "127.0.0.1", port = port }:load()
    .writeStream:foreachBatch(function(df)
      local r = T.rows(df:agg(F.count("*"), F.sum(F.col("value"):cast("BIGINT"))))[1]
      n, sum, batches = n + r[1], sum + (r[2] or 0), batches + 1
    end):start()
  local t0 = os.time()
  while n < 150000 and os.time() - t0 < 60 do
    q:processAllAvailable()
    os.execute("sleep 0.05")
  end
  q:stop()
  srv:close()
  T.is({ n, sum }, { 150000, 149999 * 150000 // 2 }, "socket: 150,000 lines (3 chunks per full batch) read once each, in "
    .. batches .. " batches")
else
  T.diag("no python3: socket part skipped")
end

T.done()
