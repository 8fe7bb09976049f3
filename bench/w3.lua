-- W3 of BENCH.md on the user's path: JSON events (~74 B, as kafka_bench's)
-- through the embedded Kafka cluster (one partition) -> the Kafka source
-- (maxOffsetsPerTrigger = one round) -> from_json(CAST(value AS STRING))
-- -> W1's aggregation (watermark 5 s, 60 s window count + sum) -> noop,
-- append mode.  Rounds of 40 000 records (the mock trims a partition past
-- 5 MiB): produce a round (untimed), then one processing-time trigger
-- reads it (timed).  One untimed warm-up round first, as kafka_bench's.
-- Wall time per batch comes from two clock reads around it (B.mono: the
-- kernel's monotonic clock through /proc/timer_list, no fork), less their
-- own cost (the median of back-to-back pairs, measured after the
-- warm-up).  `date` (B.wall, a fork) is the fallback without root; a fork
-- of this process, with the cluster's and the source's threads busy,
-- costs 2-10 ms under load and varies by as much, more than the batch.
--   streamlab run bench/w3.lua [EVENTS=2000000]
local here = arg[0]:match("^(.*)/") or "."
local B = dofile(here .. "/lib.lua")
local total = tonumber(arg[1]) or 2000000
local ROUND = 40000

spark.clock:manual("2026-01-01 12:00:00")
kafka.createTopic("w3", 1)
local function produce(first)
  local v = {}
  for i = 0, ROUND - 1 do
    local k = first + i
    local s = k // 10000
    v[i + 1] = string.format('{"ts":"2026-01-01 %02d:%02d:%02d","product_id":"p%d","amount":%d}',
      12 + s // 3600, s // 60 % 60, s % 60, k % 1000, k % 100)
  end
  kafka.produce("w3", v, { partition = 0 })
end

local src = spark.readStream:format("kafka"):option("subscribe", "w3")
  :option("startingOffsets", "earliest"):option("maxOffsetsPerTrigger", ROUND):load()
local ev = src:selectExpr("from_json(CAST(value AS STRING), 'ts TIMESTAMP, product_id STRING, amount INT') AS j")
  :selectExpr("j.ts AS ts", "j.product_id AS product_id", "j.amount AS amount")
produce(0)
local q = B.w1_agg(ev, "ts").writeStream:format("noop"):outputMode("append")
  :trigger{processingTime = "1 second"}:start()
-- rows read by the batches since the last call (a trigger may also run a
-- no-data batch that only moves the watermark)
local seen = -1
local function rows_read()
  local n = 0
  for _, p in ipairs(q.recentProgress) do
    if p.batchId > seen then n, seen = n + p.numInputRows, p.batchId end
  end
  return n
end
-- warm-up: the first round, read by batch 0 or the next ones
local warm = rows_read()
for _ = 1, 20 do
  if warm >= ROUND then break end
  spark.clock:advance("1 second")
  warm = warm + rows_read()
end
assert(warm == ROUND, string.format("warm-up round: read %d of %d", warm, ROUND))
local cal = {}
for i = 1, 9 do local a = B.mono(); cal[i] = B.mono() - a end
table.sort(cal)
local overhead = cal[5]

local fig = { events = 0, cpu_s = 0, wall_s = 0, batch_wall_max_ms = 0 }
local walls = {}
for first = ROUND, total, ROUND do
  produce(first)
  local c, w = os.clock(), B.mono()
  spark.clock:advance("1 second")
  local dw = math.max(0, B.mono() - w - overhead)
  fig.cpu_s = fig.cpu_s + os.clock() - c
  fig.wall_s = fig.wall_s + dw
  fig.batch_wall_max_ms = math.max(fig.batch_wall_max_ms, dw * 1e3)
  walls[#walls + 1] = dw * 1e3
  local n = rows_read()
  assert(n == ROUND, string.format("a round read %d of %d records", n, ROUND))
  fig.events = fig.events + n
end
fig.clock_overhead_ms = overhead * 1e3
table.sort(walls)
fig.batch_wall_p50_ms = walls[(#walls + 1) // 2]
fig.batch_wall_p99_ms = walls[math.max(1, math.ceil(#walls * 0.99))]
q:stop()
B.report("W3-kafka", fig)
