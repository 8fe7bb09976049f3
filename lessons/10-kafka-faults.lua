-- Lesson 10: the Kafka source under faults (LESSONS.md L10), on the
-- embedded cluster (librdkafka's mock cluster: no broker to install).
-- Scaled down from the plan's 3,000 records / 500 lost to 300 / 50 so the
-- lesson runs in a second; the arithmetic is the same.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(10, "Kafka under faults")

say [[
Kafka keeps a log per partition; a record's address is (partition,
offset).  The Kafka source plans each batch as an offset range per
partition, [start, end), writes it to the checkpoint's offset log first,
and reads exactly that range.  That is why it can replay a batch after a
crash, and why it notices when records it needs are gone.

streamlab embeds a small Kafka cluster.  `kafka.produce` writes to it; the
source reads from it when kafka.bootstrap.servers is "embedded" or absent.]]

code [[
spark.clock:manual("2026-01-01 12:00:00")
kafka.createTopic("clicks", 3)
for i = 0, 299 do kafka.produce("clicks", "click-" .. i, {partition = i % 3}) end
for _, o in ipairs(kafka.offsets("clicks")) do
  print("partition " .. o.partition .. ": offsets [" .. o.low .. ", " .. o.high .. ")")
end
function reader(fail_on_loss)
  return spark.readStream:format("kafka"):option("subscribe", "clicks")
    :option("startingOffsets", "earliest"):option("maxOffsetsPerTrigger", "60")
    :option("failOnDataLoss", fail_on_loss):load()
    :selectExpr("CAST(value AS STRING) AS click", "partition", "offset")
end
strict = reader("true").writeStream:format("memory"):queryName("strict"):start()
lenient = reader("false").writeStream:format("memory"):queryName("lenient"):start()
strict:step()
lenient:step()
print("after one batch:", spark.table("strict"):count(), "rows")
print("offsets read:", strict.lastProgress.sources[1].endOffset)
]]
view("kafka")
expect("maxOffsetsPerTrigger 60: the first batch reads 60 rows", spark.table("strict"):count(), 60)
pause()

say [[
Now the faults of a real cluster: a broker goes down in the middle of the
run, comes back, and the leader of partition 0 moves to another broker.
The source retries; the offsets in the log do not change, so nothing is
read twice and nothing is skipped.]]

code [[
kafka.brokerDown(1)
strict:step()
lenient:step()
kafka.brokerUp(1)
kafka.setLeader("clicks", 0, 2)
strict:processAllAvailable()
lenient:processAllAvailable()
function clicks_of(name)
  local t = {}
  for _, r in ipairs(spark.table(name):collect()) do t[#t + 1] = r.click end
  return t
end
expected = {}
for i = 0, 299 do expected[#expected + 1] = "click-" .. i end
verdict, line = require("lesson").oracle(expected, clicks_of("strict"))
print(line)
]]
local r = L.oracle(expected, clicks_of("strict"))
expect("after the faults: every record once", {r.got, r.duplicates, r.missing}, {300, 0, 0})
pause()

say [[
Retention: Kafka deletes old records whatever the consumers did.  We add
150 records to partition 0 (offsets 100..249) and, before the queries read
them, retention deletes everything below offset 150: 50 records the
queries never saw are gone.]]

exercise([[
With failOnDataLoss on (the default), what happens at the retention fault?
With it off, how many records are reported lost?]], function()
  code([[
for i = 300, 449 do kafka.produce("clicks", "click-" .. i, {partition = 0}) end
kafka.deleteRecords("clicks", 0, 150)
strict:processAllAvailable()
]], {fails = "data loss: wanted offsets %[100, 250%) of topic 'clicks' partition 0, but the earliest available is 150"})
  code [[
lenient:processAllAvailable()
for i = 300, 449 do expected[#expected + 1] = "click-" .. i end
verdict, line = require("lesson").oracle(expected, clicks_of("lenient"))
print(line)
]]
  expect("failOnDataLoss=false: 50 lost, 0 duplicated",
    {verdict.got, verdict.duplicates, verdict.missing}, {400, 0, 50})
  say [[
The strict query stops with a data-loss error naming the partition and the
range; `strict.exception` keeps it.  The lenient one logs the gap, goes on
from offset 150 and only the records after the gap are counted: 50 lost,
0 duplicated.  Choose failOnDataLoss=false only when losing data is
better than stopping.]]
end)
code [[lenient:stop()]]
