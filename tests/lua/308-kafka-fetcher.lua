-- The Kafka source's fetcher thread (engine/sources/kafka_fetch.c) turns
-- records into rows as they arrive, in chunks of 8 192 rows; a read takes
-- exactly its planned offsets from them (Spark's KafkaMicroBatchStream:
-- each batch reads [start, end) of every partition, maxOffsetsPerTrigger
-- prorated by partition size), whatever chunk a row came in, and rows
-- past a batch's end wait for the next one.  The data-loss check of a
-- partition the consumer goes on reading uses the log start its last fetch
-- reported (no round trip), raised by a simulated retention.
local T = require("tap")
spark.clock:manual("2026-01-01 12:00:00")

kafka.createTopic("k308", 2)
local function produce(p, first, n)
  local v = {}
  for i = 1, n do v[i] = string.format("p%d-%d", p, first + i - 1) end
  kafka.produce("k308", v, { partition = p })
end
-- 24 000 + 8 000: shares 3/4 and 1/4 (exact in binary), slices of 8 000
-- that cross the fetcher's chunk boundaries
produce(0, 0, 24000)
produce(1, 0, 8000)

local q = spark.readStream:format("kafka"):option("subscribe", "k308")
  :option("startingOffsets", "earliest"):option("maxOffsetsPerTrigger", "8000"):load()
  :selectExpr("CAST(value AS STRING) AS v", "partition", "offset")
  .writeStream:format("memory"):queryName("k308"):start()
local sizes, ends = {}, {}
local function step()
  local before = spark.table("k308"):count()
  q:step()
  sizes[#sizes + 1] = spark.table("k308"):count() - before
  ends[#ends + 1] = q.lastProgress.sources[1].endOffset
end
step(); step()
T.is(sizes, { 8000, 8000 }, "maxOffsetsPerTrigger 8000, prorated 6000 + 2000 a batch")
T.is(ends[2], { k308 = { ["0"] = 12000, ["1"] = 4000 } }, "the second batch ends at 12000 and 4000")
-- more records for partition 1 while the consumer is ahead of the query
produce(1, 8000, 3000)
q:processAllAvailable()
T.is(spark.table("k308"):count(), 35000, "all 35 000 records after processAllAvailable")

local rows = spark.table("k308"):collect()
local last, dup, ordered, named = { [0] = -1, [1] = -1 }, 0, true, true
local seen = {}
table.sort(rows, function(a, b)
  if a.partition ~= b.partition then return a.partition < b.partition end
  return a.offset < b.offset
end)
for _, r in ipairs(rows) do
  if seen[r.v] then dup = dup + 1 end
  seen[r.v] = true
  if r.offset ~= last[r.partition] + 1 then ordered = false end
  if r.v ~= string.format("p%d-%d", r.partition, r.offset) then named = false end
  last[r.partition] = r.offset
end
T.is(dup, 0, "no record twice")
T.ok(ordered, "each partition's offsets contiguous from 0")
T.ok(named, "every row's value is its own record's")
T.is({ last[0], last[1] }, { 23999, 10999 }, "both partitions read to their ends")
q:stop()

-- failOnDataLoss=true (the default): retention passes the position of a
-- consumer that has fetched ahead; the next batch fails naming the range
kafka.createTopic("k308d", 1)
local v = {}
for i = 1, 100 do v[i] = "d" .. (i - 1) end
kafka.produce("k308d", v, { partition = 0 })
local qd = spark.readStream:format("kafka"):option("subscribe", "k308d")
  :option("startingOffsets", "earliest"):option("maxOffsetsPerTrigger", "40"):load()
  :selectExpr("CAST(value AS STRING) AS v").writeStream:format("memory")
  :queryName("k308d"):start()
qd:step()
T.is(spark.table("k308d"):count(), 40, "first batch: offsets 0..39")
kafka.deleteRecords("k308d", 0, 60)
local ok, e = pcall(function() qd:step() end)
T.ok(not ok and tostring(e):find("data loss: wanted offsets %[40, 80%) of topic 'k308d' partition 0, but the earliest available is 60"),
  "retention past the kept consumer's position fails the batch") -- e
if ok or not tostring(e):find("data loss") then T.diag(tostring(e)) end
T.is(spark.table("k308d"):count(), 40, "nothing of the failed batch reached the sink")
T.done()
