-- format("state-metadata") (Spark 4.0's StateMetadataSource,
-- StateMetadataSourceSuite): one row per stateful operator and store,
-- columns operatorId, operatorName, stateStoreName, numPartitions,
-- minBatchId, maxBatchId, with Spark's operator names; and a query with
-- two stateful operators read by operatorId (ids as the progress lists
-- stateOperators: the operator nearest the sink is 0).  Also: reading the
-- checkpoint of a query that is still running (read-only, no lock), and a
-- checkpoint the state of whose last batch is the query's output.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local ck = T.tempdir() .. "/two"
local ms = spark.memoryStream("k STRING, t TIMESTAMP")
local df = ms:toDF():withWatermark("t", "10 seconds"):dropDuplicates("k", "t")
  :groupBy("k"):count()
local q = df.writeStream:format("memory"):queryName("two"):outputMode("complete")
  :option("checkpointLocation", ck):start()
ms:addData{{"a", "2026-01-01 12:00:01"}, {"a", "2026-01-01 12:00:01"}, {"b", "2026-01-01 12:00:02"},
           {"a", "2026-01-01 12:00:03"}}
q:processAllAvailable()
T.like(q:toPySpark(), '# spark%.read%.format%("statestore"%)%.option%("batchId", 0%)%.load%("' .. ck:gsub("%p", "%%%0") .. '"%)',
  "q:toPySpark() of a stateful query: where Spark 4.0's state data source reads its state")
T.like(q:toPySpark(), "experimental there", "q:toPySpark(): the source is experimental in Spark 4.0")
local names = {}
for i, so in ipairs(q.lastProgress.stateOperators) do names[i] = so.operatorName end
T.is(names, {"stateStoreSave", "dedupe"}, "the progress lists the aggregation, then the dedup")

local meta = spark.read:format("state-metadata"):load(ck)
T.is(meta.columns, {"operatorId", "operatorName", "stateStoreName", "numPartitions", "minBatchId", "maxBatchId"},
  "state-metadata: Spark's columns")
local last = q.lastProgress.batchId
T.is(T.rows(meta), {{0, "stateStoreSave", "default", 1, 0, last}, {1, "dedupe", "default", 1, 0, last}},
  "state-metadata of a running query: both operators, batches 0.." .. last)

-- read while the query runs: the memory sink's table is the state's
T.is(T.sorted_rows(spark.read:format("statestore"):load(ck):selectExpr("key.k", "value.count")),
  T.sorted_rows(spark.table("two")), "operator 0 while running: the counts the query emitted")
T.is(T.sorted_rows(spark.read:format("statestore"):option("operatorId", 1):load(ck)
  :selectExpr("key.k", "CAST(key.t AS STRING)")),
  {{"a", "2026-01-01 12:00:01"}, {"a", "2026-01-01 12:00:03"}, {"b", "2026-01-01 12:00:02"}},
  "operator 1 (dedupe): the distinct (k, t) rows")
ms:addData{{"c", "2026-01-01 12:00:30"}}
q:processAllAvailable()
q:stop()
local meta2 = T.rows(spark.read:format("state-metadata"):load(ck):selectExpr("operatorId", "maxBatchId"))
T.is(meta2, {{0, q.lastProgress.batchId}, {1, q.lastProgress.batchId}}, "state-metadata after more batches")
T.is(T.sorted_rows(spark.read:format("statestore"):option("operatorId", 1):load(ck):selectExpr("key.k")),
  {{"c"}}, "the watermark (12:00:20) evicted the dedup keys of :01..:03")
T.is(T.sorted_rows(spark.read:format("statestore"):load(ck):selectExpr("key.k", "value.count")),
  {{"a", 2}, {"b", 1}, {"c", 1}}, "operator 0 at the last batch")
T.like(spark.read:format("state-metadata"):load(ck):toPySpark(), 'spark%.read%.format%("state%-metadata"%)',
  "toPySpark names Spark 4.0's state-metadata source")

T.done()
