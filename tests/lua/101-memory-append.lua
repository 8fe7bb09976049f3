-- StreamTest style: a stateless map/filter over a MemoryStream into the
-- memory sink, several addData rounds, the exact table after each
-- processAllAvailable, and the progress of each batch.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("value INT")
local df = ms:toDF()
T.is(df.isStreaming, true, "ms:toDF() is a streaming DataFrame")
T.is(df.schema, "value INT", "its schema is the memory stream's")

local mapped = df:filter((F.col("value") % 2):eq(0))
  :select((F.col("value") * 10):alias("v"))
T.is(mapped.isStreaming, true, "transformations keep a DataFrame streaming")

local q = mapped.writeStream:format("memory"):queryName("evens"):outputMode("append"):start()
T.is(getmetatable(q).__name, "streamlab.StreamingQuery", "start() gives a StreamingQuery")
T.is(q.name, "evens", "q.name is the queryName")
T.is(q.isActive, true, "a started query is active")
T.is(q.lastProgress, nil, "no progress before the first batch")
T.is(q.recentProgress, {}, "recentProgress starts empty")
T.like(tostring(q), "^<StreamingQuery evens id=[%x-]+ runId=[%x-]+>$", "__tostring")
T.like(q.id, "^%x+%-%x+%-%x+%-%x+%-%x+$", "q.id is a UUID")

ms:addData{1, 2, 3, 4}
q:processAllAvailable()
T.is(T.rows(spark.table("evens")), {{20}, {40}}, "batch 0: the even values times ten")
local p = q.lastProgress
T.is(p.batchId, 0, "lastProgress.batchId of the first batch")
T.is(p.numInputRows, 4, "numInputRows counts rows read, before the filter")
T.is(p.sources[1].startOffset, nil, "the first batch has no start offset (JSON null)")
T.is(p.sources[1].endOffset, 0, "memory offset after one addData is 0")
T.is(p.sources[1].numInputRows, 4, "per-source numInputRows")
T.is(p.sink.numOutputRows, 2, "sink.numOutputRows")
T.is(p.sink.description, "MemorySink", "sink description")
T.like(p.sources[1].description, "^MemoryStream%[", "source description")
T.is(p.id, q.id, "progress id is the query id")
T.is(p.runId, q.runId, "progress runId is the run id")
T.is(p.name, "evens", "progress name")
T.is(p.timestamp, "2026-01-01T12:00:00.000Z", "progress timestamp is the manual clock, ISO with millis")

-- two addData calls before one batch: the batch takes both blocks
ms:addData{6}
ms:addData{7, 8}
q:processAllAvailable()
T.is(T.rows(spark.table("evens")), {{20}, {40}, {60}, {80}}, "batch 1 appends rows of both blocks")
p = q.lastProgress
T.is(p.batchId, 1, "second batch id")
T.is(p.numInputRows, 3, "three rows read")
T.is(p.sources[1].startOffset, 0, "start offset is the previous end")
T.is(p.sources[1].endOffset, 2, "end offset counts blocks (0-based)")
T.is(#q.recentProgress, 2, "recentProgress holds both batches")
T.is(q.recentProgress[1].batchId, 0, "recentProgress is oldest first")

-- nothing new: no batch
q:processAllAvailable()
T.is(q.lastProgress.batchId, 1, "processAllAvailable without new data runs no batch")
T.is(q:step(), false, "q:step() without new data runs nothing")

ms:addData{10}
T.is(q:step(), true, "q:step() runs one batch when data is there")
T.is(T.rows(spark.table("evens")), {{20}, {40}, {60}, {80}, {100}}, "step's batch reached the sink")

T.is(q.status.isTriggerActive, false, "status table: isTriggerActive")
T.is(type(q.status.message), "string", "status table: message")

q:stop()
T.is(q.isActive, false, "stopped")
T.lives(function() q:stop() end, "stop is idempotent")
T.is(q:awaitTermination(), true, "awaitTermination of a stopped query returns true")

-- start again: a new run without a checkpoint reads the stream from the
-- beginning (Spark: a new query over a MemoryStream starts at offset -1)
local q2 = mapped.writeStream:format("memory"):queryName("evens2"):start()
T.isnt(q2.id, q.id, "a new query without a checkpoint has a new id")
q2:processAllAvailable()
T.is(T.rows(spark.table("evens2")), {{20}, {40}, {60}, {80}, {100}}, "the restarted query sees every block")
T.is(q2.lastProgress.sources[1].endOffset, 3, "four addData calls: offset 3")
q2:stop()

-- a map with withColumn and a SQL filter over a two-column stream
local ms2 = spark.memoryStream("id INT, name STRING")
local q3 = ms2:toDF():where("id > 1"):withColumn("upper", F.upper(F.col("name")))
  .writeStream:format("memory"):queryName("names"):start()
ms2:addData{{1, "ann"}, {2, "bob"}}
ms2:addData{{id = 3, name = "cid"}}
q3:processAllAvailable()
T.is(T.rows(spark.table("names")), {{2, "bob", "BOB"}, {3, "cid", "CID"}}, "map rows and array rows, filtered")
T.errors(function() ms2:addData{{"x", "y"}} end, "addData: row 1, field 'id'", "addData checks values like createDataFrame")
q3:stop()

T.done()
