-- Small micro-batches on the user's path (issue 18 item 2): a query
-- started without checkpointLocation (a temporary checkpoint), 100
-- triggers of 10 rows each from a MemoryStream into the memory sink.
-- Prints process CPU (os.clock: every thread) for q:start() through the
-- first batch and per batch after it.
--   streamlab run bench/w_small_batches.lua [batches]
local nb = tonumber(arg and arg[1]) or 100
spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("value INT")
local df = ms:toDF():select((F.col("value") * 2):alias("v"))
local rows = {}
for i = 1, 10 do rows[i] = i end

local t0 = os.clock()
local q = df.writeStream:format("memory"):queryName("small"):outputMode("append"):start()
ms:addData(rows)
q:processAllAvailable()
local t_first = os.clock() - t0

local t1 = os.clock()
for _ = 2, nb do
  ms:addData(rows)
  q:processAllAvailable()
end
local per = (os.clock() - t1) / (nb - 1)
assert(q.lastProgress.batchId == nb - 1, "every trigger ran a batch")
q:stop()
print(string.format("start_to_first_batch_cpu_us %.0f", t_first * 1e6))
print(string.format("cpu_us_per_batch %.1f (%d batches of 10 rows)", per * 1e6, nb - 1))
