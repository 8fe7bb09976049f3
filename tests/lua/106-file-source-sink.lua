-- File sources (json, csv with a header, text) over directories that grow,
-- and the json file sink read back with spark.read.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

-- json: files dropped in (write, then rename) are picked up in order
local src = T.tempdir()
local df = spark.readStream:format("json"):schema("id INT, name STRING"):load(src)
T.is(df.isStreaming, true, "readStream:load gives a streaming DataFrame")
local q = df.writeStream:format("memory"):queryName("people"):start()
q:processAllAvailable()
T.is(#T.ran(q), 0, "an empty directory: no batch (only an idle progress, as Spark)")
T.put(src, "1.json", '{"id":1,"name":"ann"}\n{"id":2,"name":"bob"}\n', "2026-01-01 11:00:01")
q:processAllAvailable()
T.is(T.rows(spark.table("people")), {{1, "ann"}, {2, "bob"}}, "the first file")
T.is(q.lastProgress.sources[1].endOffset, {logOffset = 0}, "file source offset {logOffset: 0}")
T.like(q.lastProgress.sources[1].description, "^FileStreamSource%[", "file source description")
T.put(src, "2.json", '{"id":3,"name":"cid"}\n', "2026-01-01 11:00:02")
T.put(src, "3.json", '{"id":4,"name":"dan"}\n', "2026-01-01 11:00:03")
q:processAllAvailable()
T.is(T.rows(spark.table("people")), {{1, "ann"}, {2, "bob"}, {3, "cid"}, {4, "dan"}},
  "two new files in one batch, in modification-time order")
T.is(q.lastProgress.numInputRows, 2, "two rows read")
T.is(q.lastProgress.sources[1].startOffset, {logOffset = 0}, "start offset of the second batch")
T.is(q.lastProgress.sources[1].endOffset, {logOffset = 1}, "end offset of the second batch")
q:processAllAvailable()
T.is(#T.ran(q), 2, "files already read are not read again")
q:stop()

-- csv with a header
local csvdir = T.tempdir()
T.put(csvdir, "a.csv", "id,city\n1,Paris\n2,Oslo\n", "2026-01-01 11:00:01")
q = spark.readStream:schema("id INT, city STRING"):option("header", true):csv(csvdir)
  .writeStream:format("memory"):queryName("cities"):start()
q:processAllAvailable()
T.put(csvdir, "b.csv", "id,city\n3,Lima\n", "2026-01-01 11:00:02")
q:processAllAvailable()
T.is(T.rows(spark.table("cities")), {{1, "Paris"}, {2, "Oslo"}, {3, "Lima"}}, "csv with header, two files")
q:stop()

-- text: one row per line in a `value` column, schema implied
local txtdir = T.tempdir()
T.put(txtdir, "log1.txt", "hello world\nbye\n", "2026-01-01 11:00:01")
local lines = spark.readStream:text(txtdir)
T.is(lines.schema, "value STRING", "text source schema")
q = lines:select(F.length(F.col("value")):alias("n")).writeStream:format("memory"):queryName("lens"):start()
q:processAllAvailable()
T.is(T.rows(spark.table("lens")), {{11}, {3}}, "text lines")
q:stop()

-- the json file sink; its directory read back as a batch
local out, ckpt = T.tempdir(), T.tempdir()
local ms = spark.memoryStream("k STRING, v INT")
q = ms:toDF():where("v > 0").writeStream:format("json"):option("path", out)
  :option("checkpointLocation", ckpt):start()
ms:addData{{"a", 1}, {"b", -1}}
q:processAllAvailable()
ms:addData{{"c", 3}}
q:processAllAvailable()
T.is(T.sorted_rows(spark.read:schema("k STRING, v INT"):json(out)), {{"a", 1}, {"c", 3}},
  "spark.read of the sink's directory sees both batches")
T.ok(#T.ls(out .. "/_spark_metadata") >= 2, "the file sink keeps a _spark_metadata log")
T.like(q.lastProgress.sink.description, "^FileSink%[", "file sink description")
q:stop()

-- start(path) is the same as option("path", path); csv sink
local out2, ckpt2 = T.tempdir(), T.tempdir()
q = ms:toDF().writeStream:format("csv"):option("checkpointLocation", ckpt2):start(out2)
q:processAllAvailable()
T.is(T.sorted_rows(spark.read:schema("k STRING, v INT"):csv(out2)), {{"a", 1}, {"b", -1}, {"c", 3}},
  "csv file sink via start(path)")
q:stop()

-- the file sink is append only
local counts = ms:toDF():groupBy("k"):count()
T.errors(function()
  counts.writeStream:format("json"):option("checkpointLocation", T.tempdir()):outputMode("update"):start(T.tempdir())
end, "%[STREAMING_OUTPUT_MODE%.UNSUPPORTED_DATASOURCE%] Invalid streaming output mode: update%. " ..
  "This output mode is not supported in Data Source json%. SQLSTATE: 42KDE",
  "update mode into the file sink: Spark's error")
T.errors(function() ms:toDF().writeStream:format("json"):option("checkpointLocation", T.tempdir()):start() end,
  "'path' is not specified", "the file sink needs a path")

T.done()
