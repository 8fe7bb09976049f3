-- Partitioned streams (issue 15 item 2): writeStream:partitionBy and the
-- file source over partition directories.  Expected rows follow Spark's
-- FileStreamSinkSuite ("partitioned writing and batch reading",
-- "FileStreamSink.ancestorIsMetadataDirectory()") and FileStreamSourceSuite
-- ("read from json files inside partitioned directory", "when schema
-- inference is turned on, should read partition data", "read data from
-- outputs of another streaming query").
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function put(dir, name, text, mtime)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  T.put(dir, name, text, mtime)
end
local function logged(path)
  local out = {}
  for _, n in ipairs(T.ls(path .. "/_spark_metadata")) do
    local f = io.open(path .. "/_spark_metadata/" .. n)
    for l in f:lines() do
      local p = l:match('"path":"file://[^"]*/out/([^"]*)"')
      if p then out[#out + 1] = n .. ":" .. (p:gsub("part%-00000%-[%x%-]+%-(%d+)%.c000", "part-%1")) end
    end
    f:close()
  end
  table.sort(out)
  return out
end

-- 1. the sink: rows split by k, each batch's files in its log entry
local root = T.tempdir()
local out, ck = root .. "/out", root .. "/ck"
local ms = spark.memoryStream("id INT, k STRING, v DOUBLE")
local function start()
  return ms:toDF().writeStream:format("json"):partitionBy("k")
    :option("checkpointLocation", ck):start(out)
end
local q = start()
ms:addData{{1, "a", 1.5}, {2, "b/c", 2.5}, {3, nil, 3.5}}
q:processAllAvailable()
q:stop()
q = start()
ms:addData{{4, "a", 4.5}}
q:processAllAvailable()
q:stop()
T.is(logged(out), {
  "0:k=__HIVE_DEFAULT_PARTITION__/part-0.json",
  "0:k=a/part-0.json",
  "0:k=b%252Fc/part-0.json",
  "1:k=a/part-1.json",
}, "batch 0 logs its three partition files, batch 1 (after the restart) its one; paths as URIs")
T.is(T.sorted_rows(spark.read:json(out)), {{1, 1.5, "a"}, {2, 2.5, "b/c"}, {3, 3.5, nil}, {4, 4.5, "a"}},
  "the batch reader finds k again from the directories of the logged files")

-- a part file no log entry names stays invisible (the reader uses the log)
put(out .. "/k=z", "part-stray.json", '{"id":99,"v":0}\n')
T.is(#T.rows(spark.read:json(out)), 4, "a partition directory's unlogged file is not read")

-- partitionBy is checked against the output schema at start()
T.errors(function()
  ms:toDF().writeStream:format("json"):partitionBy("nope")
    :option("checkpointLocation", root .. "/ck2"):start(root .. "/out2")
end, "Partition column `nope` not found in schema struct<id:int,k:string,v:double>",
  "an unknown partition column fails start()")

-- the memory sink and foreachBatch refuse it (DataStreamWriter.assertNotPartitioned)
T.errors(function() ms:toDF().writeStream:format("memory"):queryName("m"):partitionBy("k"):start() end,
  "'memory' does not support partitioning", "memory sink")
T.errors(function() ms:toDF().writeStream:foreachBatch(function() end):partitionBy("k"):start() end,
  "'foreachBatch' does not support partitioning", "foreachBatch")

-- 2. the source: partition columns from the files present at load(),
-- each file's values from its own directories
local src = root .. "/src"
put(src .. "/day=1", "a.json", '{"id":1}\n', "2026-01-01 11:00:01")
put(src .. "/day=2", "b.json", '{"id":2}\n', "2026-01-01 11:00:02")
local s = spark.readStream:schema("id INT"):json(src)
T.is(s.schema, "id INT, day INT", "a user schema without the partition column: day inferred INT, appended")
q = s.writeStream:format("memory"):queryName("days"):start()
q:processAllAvailable()
put(src .. "/day=3", "c.json", '{"id":3}\n', "2026-01-01 11:00:03")
put(src .. "/day=1", "d.json", '{"id":4}\n', "2026-01-01 11:00:04")
q:processAllAvailable()
q:stop()
T.is(T.rows(spark.table("days")), {{1, 1}, {2, 2}, {3, 3}, {4, 1}},
  "files in new and old partition directories, in modification order, each with its own day")

local s2 = spark.readStream:schema("day STRING, id INT"):json(src)
T.is(s2.schema, "id INT, day STRING", "a user schema naming the partition column gives its type")

-- FileStreamSourceSuite "read new files in partitioned table without
-- globbing, should read partition data": the directory is empty at load(),
-- the user schema names the partition column, each batch's files give it
local src2 = root .. "/src2"
assert(os.execute("mkdir -p '" .. src2 .. "'"))
q = spark.readStream:schema("value STRING, partition STRING"):json(src2)
  :filter(F.col("value"):contains("keep")).writeStream:format("memory"):queryName("nog"):start()
put(src2 .. "/partition=foo", "1.json", '{"value":"drop1"}\n{"value":"keep2"}\n', "2026-01-01 11:00:01")
q:processAllAvailable()
T.is(T.rows(spark.table("nog")), {{"keep2", "foo"}}, "partition=foo: the value comes from the directory")
put(src2 .. "/partition=foo", "2.json", '{"value":"keep3"}\n', "2026-01-01 11:00:02")
put(src2 .. "/partition=bar", "3.json", '{"value":"keep4"}\n', "2026-01-01 11:00:03")
q:processAllAvailable()
q:stop()
T.is(T.rows(spark.table("nog")), {{"keep2", "foo"}, {"keep3", "foo"}, {"keep4", "bar"}},
  "a new partition directory after the start too")

-- schema inference on: data and partition columns from the files present
spark.conf:set("spark.sql.streaming.schemaInference", "true")
local s3 = spark.readStream:json(src)
T.is(s3.schema, "id BIGINT, day INT", "schemaInference: id from the json, day from the directories")
spark.conf:set("spark.sql.streaming.schemaInference", "false")

-- 3. a stream over another query's partitioned output reads its log
local s4 = spark.readStream:schema("id INT, v DOUBLE, k STRING"):json(out)
q = s4.writeStream:format("memory"):queryName("chained"):start()
q:processAllAvailable()
q:stop()
T.is(T.sorted_rows(spark.table("chained")), {{1, 1.5, "a"}, {2, 2.5, "b/c"}, {3, 3.5, nil}, {4, 4.5, "a"}},
  "the sink's logged files with k from their directories; the stray file is not read")

-- 3b. a crash half way through a partitioned batch's files (RELIABILITY.md
-- 3.2, crash point mid-sink: the first partition file half written, no log
-- entry), a restart: every row once, every file on disk in the log
local csrc, cout = root .. "/csrc", root .. "/cout"
assert(os.execute("mkdir -p '" .. csrc .. "'"))
local function cstart()
  return spark.readStream:schema("id INT, k STRING"):json(csrc)
    .writeStream:format("json"):partitionBy("k"):option("checkpointLocation", root .. "/cck"):start(cout)
end
q = cstart()
T.put(csrc, "1.json", '{"id":1,"k":"a"}\n', "2026-01-01 11:00:01")
q:processAllAvailable()
T.put(csrc, "2.json", '{"id":2,"k":"a"}\n{"id":3,"k":"b"}\n{"id":4,"k":"c"}\n', "2026-01-01 11:00:02")
q:crash("mid-sink")
local okc, msg = pcall(q.step, q)
T.ok(not okc and tostring(msg):match("simulated crash at 'mid%-sink' in batch 1"), "the crash hits batch 1's sink")
q = q:restart()
q:processAllAvailable()
q:stop()
T.is(T.sorted_rows(spark.read:json(cout)), {{1, "a"}, {2, "a"}, {3, "b"}, {4, "c"}}, "every row once after the restart")
local ondisk = {}
local pf = io.popen("cd '" .. cout .. "' && find . -name 'part-*' | sort")
for l in pf:lines() do ondisk[#ondisk + 1] = l:sub(3) end
pf:close()
local inlog = {}
for _, n in ipairs(T.ls(cout .. "/_spark_metadata")) do
  for l in io.lines(cout .. "/_spark_metadata/" .. n) do
    local path = l:match('"path":"file://[^"]*/cout/([^"]*)"')
    if path then inlog[#inlog + 1] = path end
  end
end
table.sort(inlog)
T.is(ondisk, inlog, "the re-run replaced the half-written file: every part file on disk is logged, once")
T.is(#inlog, 4, "batch 0: k=a; batch 1: k=a, k=b, k=c")

-- 4. toPySpark names partitionBy
local ms2 = spark.memoryStream("id INT, k STRING, v INT")
q = ms2:toDF().writeStream:format("parquet"):partitionBy("k", "id")
  :option("checkpointLocation", root .. "/ck3"):start(root .. "/out3")
T.like(q:toPySpark(), '\n    %.partitionBy%("k", "id"%)\n', "toPySpark writes .partitionBy(\"k\", \"id\")")
T.ok(not q:toPySpark():find("__partition_columns", 1, true), "and not the internal option")
q:stop()

T.done()
