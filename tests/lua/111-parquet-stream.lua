-- Parquet as a streaming source and sink (issue 15): readStream:parquet
-- over a directory that grows (a schema is required, as Spark's file
-- source asks for one unless schemaInference is on), and
-- writeStream:format("parquet") with the json/csv sinks' exactly-once
-- _spark_metadata log: a restart from the checkpoint leaves every row in
-- the lake once, and the window struct of a watermarked aggregation lands
-- as a Parquet group.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

-- the source: Parquet part files moved into the watched directory
local src, stage = T.tempdir(), T.tempdir()
local function drop(rows, name, mtime)
  local d = stage .. "/" .. name
  spark.createDataFrame(rows, "id INT, name STRING").write:parquet(d)
  for _, f in ipairs(T.ls(d)) do
    if f:match("%.parquet$") then
      assert(os.execute("touch -d '" .. mtime .. "' '" .. d .. "/" .. f .. "'"))
      assert(os.rename(d .. "/" .. f, src .. "/" .. name .. ".parquet"))
    end
  end
end
T.errors(function() spark.readStream:parquet(src) end,
  "Schema must be specified when creating a streaming source DataFrame",
  "a parquet stream needs a schema, as Spark's")
local q = spark.readStream:schema("id INT, name STRING"):parquet(src)
  .writeStream:format("memory"):queryName("people"):start()
drop({{1, "ann"}, {2, "bob"}}, "a", "2026-01-01 11:00:01")
q:processAllAvailable()
drop({{3, nil}}, "b", "2026-01-01 11:00:02")
q:processAllAvailable()
T.is(T.rows(spark.table("people")), {{1, "ann"}, {2, "bob"}, {3, nil}},
  "parquet files read as they arrive, in order")
q:stop()

-- the sink: a checkpoint, a stop, a restart; each row once
local out, ckpt = T.tempdir(), T.tempdir()
local ms = spark.memoryStream("k STRING, v INT")
local function start()
  return ms:toDF().writeStream:format("parquet"):option("path", out)
    :option("checkpointLocation", ckpt):start()
end
q = start()
ms:addData{{"a", 1}, {"b", 2}}
q:processAllAvailable()
ms:addData{{"c", 3}}
q:processAllAvailable()
q:stop()
q = start()
ms:addData{{"d", 4}}
q:processAllAvailable()
q:stop()
T.is(T.sorted_rows(spark.read:parquet(out)), {{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}},
  "after a restart the lake holds every row once")
local parts = 0
for _, f in ipairs(T.ls(out)) do
  if f:match("^part%-00000%-.*%.c000%.snappy%.parquet$") then parts = parts + 1 end
end
T.is(parts, 3, "one snappy part file per batch with rows")
T.ok(#T.ls(out .. "/_spark_metadata") >= 3, "the parquet sink keeps a _spark_metadata log")

-- windowed counts with a watermark, appended as each window closes
local ev = spark.memoryStream("t TIMESTAMP, product STRING")
local lake, ck2 = T.tempdir(), T.tempdir()
local agg = ev:toDF():withWatermark("t", "1 minute"):groupBy(F.window("t", "5 minutes"), "product"):count()
q = agg.writeStream:format("parquet"):outputMode("append"):option("compression", "zstd")
  :option("checkpointLocation", ck2):start(lake)
ev:addData{{"2026-01-01 12:01:00", "apple"}, {"2026-01-01 12:02:00", "apple"}, {"2026-01-01 12:03:00", "fig"}}
q:processAllAvailable()
ev:addData{{"2026-01-01 12:20:00", "pear"}}
q:processAllAvailable()
q:stop()
local w = spark.read:parquet(lake)
T.is(w.schema, agg.schema, "the schema, nullability too, comes back from the footer")
T.like(w.schema, "^window STRUCT<start: TIMESTAMP, end: TIMESTAMP>", "the window struct is a Parquet group")
T.is(T.sorted_rows(w:select(F.col("window"):getField("start"):cast("string"), "product", "count")),
  {{"2026-01-01 12:00:00", "apple", 2}, {"2026-01-01 12:00:00", "fig", 1}},
  "closed windows only, each once")

-- no format named, in both directions: Parquet (spark.sql.sources.default)
local dsrc, dout, dck = T.tempdir(), T.tempdir(), T.tempdir()
spark.createDataFrame({{7, "gil"}}, "id INT, name STRING").write:save(dsrc .. "/x")
local dq = spark.readStream:schema("id INT, name STRING"):load(dsrc .. "/x")
  .writeStream:option("checkpointLocation", dck):start(dout)
dq:processAllAvailable()
dq:stop()
T.is(T.rows(spark.read:parquet(dout)), {{7, "gil"}},
  "readStream:load(path) and writeStream:start(path) without a format are Parquet")

T.done()
