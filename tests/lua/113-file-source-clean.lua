-- The file source's remaining options (issue 15 item 3): cleanSource and
-- spark.sql.streaming.schemaInference.  Expected behaviour follows Spark's
-- FileStreamSourceSuite ("remove completed files when remove option is
-- enabled", "move completed files to archive directory when archive option
-- is enabled", "Throw UnsupportedOperationException on configuring
-- cleanSource when source path refers the output dir of FileStreamSink",
-- "SourceFileArchiver - fail when base archive path matches source
-- pattern", "FileStreamSource schema: json, existing files, no schema",
-- "FileStreamSource schema: parquet, existing files, no schema",
-- "FileStreamSource schema: path doesn't exist (without schema) should
-- throw exception") and FileStreamOptions.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function put(dir, name, text, mtime)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  T.put(dir, name, text, mtime)
end
local function find(dir)
  local p = io.popen("cd '" .. dir .. "' 2>/dev/null && find . -type f | sort")
  local out = {}
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end

local root = T.tempdir()

-- 1. delete: a batch's files go once the batch commits
local src = root .. "/del"
put(src, "a.json", '{"id":1}\n', "2026-01-01 11:00:01")
put(src .. "/sub", "b.json", '{"id":2}\n', "2026-01-01 11:00:02")
local q = spark.readStream:schema("id INT"):option("cleanSource", "delete"):option("maxFilesPerTrigger", 1)
  :json(src).writeStream:format("memory"):queryName("del"):start()
q:processAllAvailable()
T.is(T.rows(spark.table("del")), {{1}, {2}}, "both files read, one a batch")
T.is(find(src), {}, "cleanSource=delete: every committed batch's files are gone")
put(src, "c.json", '{"id":3}\n', "2026-01-01 11:00:03")
q:processAllAvailable()
q:stop()
T.is(T.rows(spark.table("del")), {{1}, {2}, {3}}, "a later file is read, then deleted")
T.is(find(src), {}, "the later file deleted too")

-- 2. archive: moved to sourceArchiveDir + its own absolute path
local asrc, arch = root .. "/arc/in", root .. "/archive"
put(asrc, "a.json", '{"id":1}\n', "2026-01-01 11:00:01")
put(asrc .. "/day=2", "b.json", '{"id":2}\n', "2026-01-01 11:00:02")
local real = io.popen("cd '" .. asrc .. "' && pwd -P"):read("l")
q = spark.readStream:schema("id INT"):option("cleanSource", "archive"):option("sourceArchiveDir", arch)
  :json(asrc).writeStream:format("memory"):queryName("arc"):start()
q:processAllAvailable()
q:stop()
T.is(T.rows(spark.table("arc")), {{1, nil}, {2, 2}}, "read as usual (day from the directory, null outside)")
T.is(find(asrc), {}, "the source directory is empty")
T.is(find(arch .. real), {"./a.json", "./day=2/b.json"},
  "each file moved to <sourceArchiveDir><its absolute path>")

-- a restart reads nothing again (the files are logged, and gone)
local ck = root .. "/arc-ck"
local asrc2 = root .. "/arc2/in"
put(asrc2, "a.json", '{"id":1}\n', "2026-01-01 11:00:01")
local function astart()
  return spark.readStream:schema("id INT"):option("cleanSource", "archive")
    :option("sourceArchiveDir", root .. "/archive2"):json(asrc2)
    .writeStream:format("json"):option("checkpointLocation", ck):start(root .. "/arc2-out")
end
q = astart()
q:processAllAvailable()
q:stop()
put(asrc2, "b.json", '{"id":2}\n', "2026-01-01 11:00:02")
q = astart()
q:processAllAvailable()
q:stop()
T.is(T.sorted_rows(spark.read:json(root .. "/arc2-out")), {{1}, {2}}, "each row once across the restart")
T.is(find(asrc2), {}, "the file of the batch after the restart is archived too")

-- 3. what Spark refuses
T.errors(function() spark.readStream:schema("id INT"):option("cleanSource", "bogus"):json(asrc) end,
  "Invalid mode for clean source option Some%(bogus%)%. Must be one of ARCHIVE,DELETE,OFF",
  "an unknown cleanSource mode (FileStreamOptions)")
T.errors(function() spark.readStream:schema("id INT"):option("cleanSource", "archive"):json(asrc) end,
  "Archive mode must be used with 'sourceArchiveDir' option%.", "archive without sourceArchiveDir")
for _, a in ipairs({ asrc .. "/archived", root .. "/arc" }) do
  local s = spark.readStream:schema("id INT"):option("cleanSource", "archive"):option("sourceArchiveDir", a):json(asrc)
  T.errors(function() s.writeStream:format("memory"):queryName("bad"):start() end,
    "requirement failed: Base archive path cannot be set to the path where archived path can possibly "
      .. "match with source pattern", "archive dir " .. a:sub(#root + 1) .. " matches the source in depth")
end
local sink = root .. "/arc2-out"
local s = spark.readStream:schema("id INT"):option("cleanSource", "delete"):json(sink)
T.errors(function() s.writeStream:format("memory"):queryName("bad2"):start() end,
  "Clean up source files is not supported when reading from the output directory of FileStreamSink%.",
  "cleanSource over a file sink's output")
T.ok(#T.ls(sink) > 1, "and the sink's files are still there")

-- 4. schemaInference: off by default, Spark's sentence
local js = root .. "/infer-json"
put(js, "a.json", '{"id":1,"name":"ann","score":1.5}\n')
T.errors(function() spark.readStream:json(js) end,
  "Schema must be specified when creating a streaming source DataFrame%. If some files already exist",
  "no schema, no inference: Spark's sentence")
spark.conf:set("spark.sql.streaming.schemaInference", "true")
local sj = spark.readStream:json(js)
T.is(sj.schema, "id BIGINT, name STRING, score DOUBLE", "json: the batch reader's inference (fields sorted)")
q = sj.writeStream:format("memory"):queryName("ij"):start()
put(js, "b.json", '{"id":2,"name":"bob","extra":true}\n')
q:processAllAvailable()
q:stop()
T.is(T.rows(spark.table("ij")), {{1, "ann", 1.5}, {2, "bob", nil}},
  "the schema is fixed at load(): a later file's new field is not a column")

local cs = root .. "/infer-csv"
put(cs, "a.csv", "id,name\n1,ann\n")
local sc = spark.readStream:option("header", true):option("inferSchema", true):csv(cs)
T.is(sc.schema, "id INT, name STRING", "csv: header names, inferSchema types")
local sc2 = spark.readStream:option("header", true):csv(cs)
T.is(sc2.schema, "id STRING, name STRING", "csv without inferSchema: STRING columns")

local pq = root .. "/infer-pq"
spark.createDataFrame({{1, "a", "2026-01-01 10:00:00"}}, "id INT, s STRING, t TIMESTAMP").write:parquet(pq)
local sp = spark.readStream:parquet(pq)
T.is(sp.schema, "id INT, s STRING, t TIMESTAMP", "parquet: the footer's schema")
q = sp.writeStream:format("memory"):queryName("ip"):start()
q:processAllAvailable()
q:stop()
T.is(T.rows(spark.table("ip"):select("id", "s", F.col("t"):cast("string"))), {{1, "a", "2026-01-01 10:00:00"}},
  "and its rows")
T.errors(function() spark.readStream:json(root .. "/empty-" .. tostring(os.time())) end,
  "PATH_NOT_FOUND", "a missing path")
assert(os.execute("mkdir -p '" .. root .. "/empty'"))
T.errors(function() spark.readStream:json(root .. "/empty") end,
  "UNABLE_TO_INFER_SCHEMA", "an empty directory gives nothing to infer from")
T.like(sp.writeStream:format("console"):start():toPySpark(),
  '%.config%("spark%.sql%.streaming%.schemaInference", "true"%)', "toPySpark carries the conf")
spark.conf:set("spark.sql.streaming.schemaInference", "false")
for _, qq in ipairs(spark.streams.active) do qq:stop() end

T.done()
