-- Kafka source and sink against the embedded cluster (librdkafka's mock):
-- Spark's KafkaSourceSuite maxOffsetsPerTrigger split, startingOffsets,
-- failOnDataLoss, the kafka sink, CAST(value AS STRING).
local t = require("tap")
spark.clock:manual("2026-01-01 12:00:00")

kafka.createTopic("k301", 3)
for i = 0, 100 do kafka.produce("k301", "a" .. i, {partition = 0}) end
for i = 0, 10 do kafka.produce("k301", "b" .. i, {partition = 1}) end
kafka.produce("k301", "c0", {partition = 2})
local o = kafka.offsets("k301")
t.is(o[1].high + o[2].high + o[3].high, 113, "113 records produced")

local df = spark.readStream:format("kafka")
  :option("subscribe", "k301")
  :option("startingOffsets", "earliest")
  :option("maxOffsetsPerTrigger", "10")
  :load()
t.is(df.schema, "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, timestampType INT", "Spark's fixed schema")
local q = df:selectExpr("CAST(value AS STRING) AS v", "partition")
  .writeStream:format("memory"):queryName("k301"):start()
q:step()
local rows = spark.table("k301"):collect()
t.is(#rows, 10, "first batch: 10 rows")
local per = {0, 0, 0}
for _, r in ipairs(rows) do per[r.partition + 1] = per[r.partition + 1] + 1 end
t.is(table.concat(per, "/"), "8/1/1", "split 8/1/1 as Spark")
q:processAllAvailable()
t.is(spark.table("k301"):count(), 113, "all 113 rows, none twice")
local seen = {}
for _, r in ipairs(spark.table("k301"):collect()) do seen[r.v] = (seen[r.v] or 0) + 1 end
t.is(seen["a0"], 1, "CAST(value AS STRING) gives the text")
q:stop()

-- retention with failOnDataLoss
kafka.createTopic("k301r", 1)
for i = 0, 9 do kafka.produce("k301r", "r" .. i) end
local q2 = spark.readStream:format("kafka"):option("subscribe", "k301r")
  :option("startingOffsets", "earliest"):option("failOnDataLoss", "false"):load()
  :selectExpr("CAST(value AS STRING) AS v").writeStream:format("memory")
  :queryName("k301r"):start()
q2:processAllAvailable()
for i = 10, 19 do kafka.produce("k301r", "r" .. i) end
kafka.deleteRecords("k301r", 0, 15)
q2:processAllAvailable()
t.is(spark.table("k301r"):count(), 15, "failOnDataLoss=false: 10 + offsets 15..19, lost 10..14")
q2:stop()

local q3 = spark.readStream:format("kafka"):option("subscribe", "k301r")
  :option("startingOffsets", "{\"k301r\":{\"0\":2}}"):load()
  .writeStream:format("memory"):queryName("k301f"):start()
local ok, e = pcall(function() q3:processAllAvailable() end)
t.ok(not ok and tostring(e):find("data loss: wanted offsets %[2, 20%) of topic 'k301r' partition 0, but the earliest available is 15"), "failOnDataLoss=true stops the query naming the range")

-- the sink, then read back
kafka.createTopic("k301out", 1)
local ms = spark.memoryStream("value STRING")
local qs = ms:toDF().writeStream:format("kafka"):option("topic", "k301out")
  :option("checkpointLocation", os.tmpname() .. ".d"):start()
ms:addData{"x", "y"}
qs:processAllAvailable()
qs:stop()
local ko = kafka.offsets("k301out")
t.is(ko[1].high, 2, "kafka sink wrote 2 records")

local ok2, e2 = pcall(function()
  spark.readStream:format("kafka"):option("subscribe", "a"):option("assign", "{\"a\":[0]}"):load()
end)
t.ok(not ok2 and tostring(e2):find("Only one of the following options can be specified for Kafka source"), "two strategies rejected at load()")
t.done()
