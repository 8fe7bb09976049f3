-- W1 through the public API (issue 18): rate 100k rows/s -> selectExpr ->
-- withWatermark 5 s -> 60 s window count + sum(amount) -> noop sink, on the
-- manual clock.  Prints events/s of process CPU, peak live groups and RSS.
--   streamlab run bench/state_w1.lua [keys] [triggers] [rows_per_s]
-- Env: TRACE=1 prints batch id, state rows, state bytes and RSS (KiB) per
-- trigger; SNAP=n sets minDeltasForSnapshot (default 10).
local keys = tonumber(arg and arg[1]) or 1000
local nb = tonumber(arg and arg[2]) or 100
local rps = tonumber(arg and arg[3]) or 100000
spark.conf:set("spark.sql.streaming.stateStore.minDeltasForSnapshot", os.getenv("SNAP") or "10")
spark.clock:manual("2026-01-01 12:00:00")
local df = spark.readStream:format("rate"):option("rowsPerSecond", rps):load()
  :selectExpr("timestamp AS event_time", "value % " .. keys .. " AS product_id",
              "CAST(value % 10000 AS DOUBLE) / 100 AS amount")
  :withWatermark("event_time", "5 seconds")
  :groupBy(F.window("event_time", "60 seconds"), "product_id")
  :agg(F.count("*"):alias("n"), F.sum("amount"):alias("total"))
local q = df.writeStream:format("noop"):outputMode("append"):start()
local function rss()
  local f = io.open("/proc/self/status")
  if not f then return 0 end
  local s = f:read("a"); f:close()
  return tonumber(s:match("VmRSS:%s*(%d+)")) or 0
end
local rss0 = rss()
local peak_groups, peak_rss, events = 0, 0, 0
local t0 = os.clock()
for _ = 1, nb do
  spark.clock:advance("1 second")
  q:processAllAvailable()
  local p = q.lastProgress
  local so = p.stateOperators and p.stateOperators[1]
  if so and so.numRowsTotal > peak_groups then peak_groups = so.numRowsTotal end
  local r = rss(); if r > peak_rss then peak_rss = r end
  if os.getenv("TRACE") then print(p.batchId, so and so.numRowsTotal, so and so.memoryUsedBytes, r) end
end
local cpu = os.clock() - t0
events = rps * nb -- the rate source's rows up to the clock (no-data batches hide them in lastProgress)
q:stop()
print(string.format("keys %d events %d cpu_s %.3f events_per_s %.2fM peak_groups %d rss_kb %d rss0_kb %d B_per_group %.0f",
  keys, events, cpu, events / cpu / 1e6, peak_groups, peak_rss, rss0,
  peak_groups > 0 and (peak_rss - rss0) * 1024 / peak_groups or 0))
