-- Lesson 10: the Kafka source under faults (LESSONS.md L10), on the
-- embedded cluster (librdkafka's mock cluster: no broker to install).
-- Scaled down from the plan's 3,000 records / 500 lost to 150 + 100 / 50 so
-- the lesson runs in about a second; the arithmetic is the same.
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
for i = 0, 149 do kafka.produce("clicks", "click-" .. i, {partition = i % 3}) end
for _, o in ipairs(kafka.offsets("clicks")) do
  print("partition " .. o.partition .. ": offsets [" .. o.low .. ", " .. o.high .. ")")
end
function reader(fail_on_loss)
  return spark.readStream:format("kafka"):option("subscribe", "clicks")
    :option("startingOffsets", "earliest"):option("maxOffsetsPerTrigger", "30")
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
expect("maxOffsetsPerTrigger 30: the first batch reads 30 rows", spark.table("strict"):count(), 30)
pause()

say [[
Now the faults of a real cluster: broker 1 goes down in the middle of the
run.  The cluster's controller moves the leadership of its partitions to
the brokers still up (here we play the controller with setLeader); the
source finds the new leaders and goes on.  Then broker 1 comes back and
partition 0's leader moves back to it.  The offsets in the log do not
change, so nothing is read twice and nothing is skipped.]]

code [[
kafka.brokerDown(1)
for p = 0, 2 do kafka.setLeader("clicks", p, 2 + p % 2) end   -- failover to 2 and 3
strict:step()
lenient:step()
kafka.brokerUp(1)
kafka.setLeader("clicks", 0, 1)
strict:processAllAvailable()
lenient:processAllAvailable()
function clicks_of(name)
  local t = {}
  for _, r in ipairs(spark.table(name):collect()) do t[#t + 1] = r.click end
  return t
end
expected = {}
for i = 0, 149 do expected[#expected + 1] = "click-" .. i end
verdict, line = require("lesson").oracle(expected, clicks_of("strict"))
print(line)
]]
local r = L.oracle(expected, clicks_of("strict"))
expect("after the faults: every record once", {r.got, r.duplicates, r.missing}, {150, 0, 0})
pause()

say [[
Retention: Kafka deletes old records whatever the consumers did.  We add
100 records to partition 0 (offsets 50..149) and, before the queries read
them, retention deletes everything below offset 100: 50 records the
queries never saw are gone.]]

exercise([[
With failOnDataLoss on (the default), what happens at the retention fault?
With it off, how many records are reported lost?]], function()
  code([[
for i = 150, 249 do kafka.produce("clicks", "click-" .. i, {partition = 0}) end
kafka.deleteRecords("clicks", 0, 100)
strict:processAllAvailable()
]], {fails = "data loss: wanted offsets %[50, 80%) of topic 'clicks' partition 0, but the earliest available is 100"})
  code [[
lenient:processAllAvailable()
for i = 150, 249 do expected[#expected + 1] = "click-" .. i end
verdict, line = require("lesson").oracle(expected, clicks_of("lenient"))
print(line)
]]
  expect("failOnDataLoss=false: 50 lost, 0 duplicated",
    {verdict.got, verdict.duplicates, verdict.missing}, {200, 0, 50})
  say [[
The strict query stops with a data-loss error naming the partition and the
range it planned to read (the batch's [start, end) from the offset log);
`strict.exception` keeps it.  The lenient one logs the gap, goes on
from offset 100 and only the records after the gap are counted: 50 lost,
0 duplicated.  Choose failOnDataLoss=false only when losing data is
better than stopping.]]
end)
code [[lenient:stop()]]
