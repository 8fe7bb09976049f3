-- kafka.produce(topic, {v1, v2, ...}, opts): many values in one call
-- (the benchmarks' producer, bench/w3.lua), each with the same options,
-- in array order; a value that is not a string is refused by position and
-- nothing of that call is produced.
local T = require("tap")
spark.clock:manual("2026-01-01 12:00:00")

kafka.createTopic("k307", 2)
local vs = {}
for i = 1, 1000 do vs[i] = "m" .. i end
kafka.produce("k307", vs, {partition = 1, key = "k"})
kafka.produce("k307", {}, {partition = 0})
local o = kafka.offsets("k307")
T.is({o[1].high, o[2].high}, {0, 1000}, "1000 records, all on partition 1; {} produces none")

T.errors(function() kafka.produce("k307", {"a", 2, "c"}, {partition = 0}) end,
  "kafka.produce.*value 2 is not a string", "a number in the array is refused by position")
T.is(kafka.offsets("k307")[1].high, 0, "and nothing of that call was produced")

local q = spark.readStream:format("kafka"):option("subscribe", "k307")
  :option("startingOffsets", "earliest"):load()
  :selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "partition", "offset")
  .writeStream:format("memory"):queryName("k307"):start()
q:processAllAvailable()
q:stop()
T.is(spark.table("k307"):count(), 1000, "the source reads all 1000")
T.is(T.rows(spark.table("k307"):where("offset IN (0, 999)"):orderBy("offset")),
  {{"k", "m1", 1, 0}, {"k", "m1000", 1, 999}}, "in array order, with the shared key")
T.done()
