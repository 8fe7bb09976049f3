-- The source's consumer stays assigned between batches and fetches ahead
-- (kafka_source.c); records popped past a batch's end wait for the next
-- batch.  Whatever is prefetched, every batch reads exactly its planned
-- offsets: maxOffsetsPerTrigger slices with data arriving between
-- triggers, a partition that does not move in a batch, and a restart
-- from the checkpoint, each record counted once.
local T = require("tap")
spark.clock:manual("2026-01-01 12:00:00")

kafka.createTopic("k306", 2)
local n = 0
local function produce(p, k)
  for _ = 1, k do
    kafka.produce("k306", "v" .. n, {partition = p})
    n = n + 1
  end
end
produce(0, 30)

local ck = T.tempdir() .. "/ck"
local function start()
  return spark.readStream:format("kafka"):option("subscribe", "k306")
    :option("startingOffsets", "earliest"):option("maxOffsetsPerTrigger", "7"):load()
    :selectExpr("CAST(value AS STRING) AS v", "partition", "offset")
    .writeStream:format("memory"):queryName("k306")
    :option("checkpointLocation", ck):start()
end
local q = start()
local sizes = {}
local function step()
  local before = spark.table("k306"):count()
  q:step()
  sizes[#sizes + 1] = spark.table("k306"):count() - before
end
step(); step()
produce(0, 5)             -- arrives while the consumer is ahead
step()
produce(1, 4)             -- partition 1 starts moving
step(); step()
-- one partition: 7 a batch; then Spark's proration over both partitions
-- (floor of 7 * share): 5 + 1 from 14 and 4 waiting
T.is(sizes, {7, 7, 7, 6, 6}, "every batch reads exactly its planned slice")
q:processAllAvailable()
T.is(spark.table("k306"):count(), n, "all " .. n .. " records after processAllAvailable")
local rows = spark.table("k306"):collect()
q:stop()

-- restart from the checkpoint: the new consumer starts where the log says
produce(0, 3)
produce(1, 3)
q = start()
q:processAllAvailable()
-- the restarted query's memory sink is a fresh table (as Spark's)
for _, r in ipairs(spark.table("k306"):collect()) do rows[#rows + 1] = r end
table.sort(rows, function(a, b)
  if a.partition ~= b.partition then return a.partition < b.partition end
  return a.offset < b.offset
end)
local seen, dup = {}, 0
local last = {[0] = -1, [1] = -1}
local ordered = true
for _, r in ipairs(rows) do
  if seen[r.v] then dup = dup + 1 end
  seen[r.v] = true
end
for _, r in ipairs(rows) do
  if r.offset ~= last[r.partition] + 1 then ordered = false end
  last[r.partition] = r.offset
end
local lost = 0
for i = 0, n - 1 do if not seen["v" .. i] then lost = lost + 1 end end
T.is({lost = lost, dup = dup}, {lost = 0, dup = 0}, "after a restart: nothing lost, nothing twice")
T.ok(ordered, "each partition's offsets are contiguous from 0")
T.is({last[0], last[1]}, {37, 6}, "both partitions read to their ends")
q:stop()
T.done()
