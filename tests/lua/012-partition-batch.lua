-- partitionBy on df.write and partition discovery in spark.read (issue 15
-- item 2), as Spark's PartitioningUtils and ExternalCatalogUtils do it.
-- Expected rows follow Spark's ParquetPartitionDiscoverySuite ("parse
-- partition", "read partitioned table - normal case", "read partitioned
-- table - with nulls", "escapePathName", "SPARK-11678 Partition discovery
-- stops at the root path of the dataset", "basePath option") and
-- FileStreamSinkSuite ("partitioned writing and batch reading").
local T = require("tap")

local function find(dir)
  local p = io.popen("cd '" .. dir .. "' && find . -type f ! -name '_SUCCESS' | sort")
  local out = {}
  for l in p:lines() do out[#out + 1] = (l:gsub("part%-00000%-[%x%-]+%.c000", "part")) end
  p:close()
  return out
end

local function put(dir, name, text)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  T.put(dir, name, text)
end

local base = T.tempdir()
local df = spark.createDataFrame({
  {1, "a", 10}, {2, "b/c", 20}, {3, nil, 10}, {4, "", 30}, {5, "x:y=z %#", 20},
}, "id INT, s STRING, n INT")

-- 1. the layout: one directory per value, Spark's escaping, Hive's null
df.write:partitionBy("s"):json(base .. "/j")
T.is(find(base .. "/j"), {
  "./s=__HIVE_DEFAULT_PARTITION__/part.json",
  "./s=a/part.json",
  "./s=b%2Fc/part.json",
  "./s=x%3Ay%3Dz %25%23/part.json",
}, "one directory per value: '/', ':', '=', '%', '#' escaped, null and '' as __HIVE_DEFAULT_PARTITION__")
local f = io.open(base .. "/j/s=a/" .. T.ls(base .. "/j/s=a")[1])
T.is(f:read("a"), '{"id":1,"n":10}\n', "the partition column is not in the file")
f:close()

-- 2. read back: partition columns appended after the data columns, typed
local j = spark.read:json(base .. "/j")
T.is(j.schema, "id BIGINT, n BIGINT, s STRING", "data columns (json infers BIGINT), then the partition column")
T.is(T.sorted_rows(j), {{1, 10, "a"}, {2, 20, "b/c"}, {3, 10, nil}, {4, 30, nil}, {5, 20, "x:y=z %#"}},
  "values unescaped; the default partition reads as null")

-- 3. two levels, Parquet; integer partition values infer INT
df.write:partitionBy("n", "s"):parquet(base .. "/p")
local p = spark.read:parquet(base .. "/p")
T.is(p.schema, "id INT, n INT, s STRING", "n inferred INT (Integer.parseInt), s STRING")
T.is(T.rows(p:orderBy("id")), {{1, 10, "a"}, {2, 20, "b/c"}, {3, 10, nil}, {4, 30, nil}, {5, 20, "x:y=z %#"}},
  "two partition levels read back")
T.is(T.rows(p:where("n = 10"):orderBy("id")), {{1, 10, "a"}, {3, 10, nil}}, "partition columns filter like any")

-- many partitions (the split's key table grows): rows keep their order
local many = {}
for i = 1, 600 do many[i] = {i, i % 150} end
spark.createDataFrame(many, "id INT, k INT").write:partitionBy("k"):parquet(base .. "/many")
local m = spark.read:parquet(base .. "/many")
T.is(#T.ls(base .. "/many"), 151, "150 partition directories and _SUCCESS")
T.is(T.rows(m:where("k = 7")), {{7, 7}, {157, 7}, {307, 7}, {457, 7}}, "a directory's rows in input order")
T.is(T.rows(m:groupBy():agg(F.count("*"), F.sum("id"), F.sum("k"))), {{600, 180300, 44700}},
  "every row once, with its own k")

-- 4. one partition directory: no column without basePath, with it the column
T.is(spark.read:parquet(base .. "/p/n=20").schema, "id INT, s STRING",
  "reading n=20 directly: its own root, n is not a column (Spark's SPARK-11678)")
T.is(T.sorted_rows(spark.read:option("basePath", base .. "/p"):parquet(base .. "/p/n=20")),
  {{2, 20, "b/c"}, {5, 20, "x:y=z %#"}}, "basePath: n comes back from the directory name")
T.errors(function() spark.read:option("basePath", base .. "/j"):parquet(base .. "/p") end,
  "Wrong basePath .* for the root path: file:", "a basePath above the path only (Spark's sentence)")
T.errors(function() spark.read:option("basePath", base .. "/p/n=10/s=a/" .. T.ls(base .. "/p/n=10/s=a")[1])
  :parquet(base .. "/p") end, "Option 'basePath' must be a directory", "basePath must be a directory")

-- 5. recursiveFileLookup: every file, no partition inference
local r = spark.read:option("recursiveFileLookup", "true"):parquet(base .. "/p")
T.is(r.schema, "id INT", "recursiveFileLookup=true: no partition columns")
T.is(T.sorted_rows(r), {{1}, {2}, {3}, {4}, {5}}, "recursiveFileLookup=true reads every file below")

-- 6. a user schema naming the partition column gives its type; it goes last
local u = spark.read:schema("n STRING, id INT"):parquet(base .. "/p")
T.is(u.schema, "id INT, n STRING, s STRING", "user type for n; partition columns after the data columns")
T.is(T.rows(u:orderBy("id"):select("n")), {{"10"}, {"20"}, {"10"}, {"30"}, {"20"}}, "n as the user's STRING")
T.errors(function() spark.read:schema("id INT, s INT"):parquet(base .. "/p"):collect() end,
  "Failed to cast value `a` to `IntegerType` for partition column `s`", "a value the user type cannot hold")

-- 7. inference across directories (PartitioningUtils.inferPartitionColumnValue
-- and the widening of resolvePartitions)
local d = base .. "/types"
local function putp(sub, id)
  put(d .. "/" .. sub, "part-0.json", '{"id":' .. id .. "}\n")
end
putp("i=1/l=1/x=1/t=2026-01-01 10%3A00%3A00/s=2026-01-31", 1)
putp("i=2/l=9999999999/x=1.5/t=2026-01-01 10%3A00%3A00.25/s=2026-02-01", 2)
putp("i=__HIVE_DEFAULT_PARTITION__/l=3/x=2/t=__HIVE_DEFAULT_PARTITION__/s=__HIVE_DEFAULT_PARTITION__", 3)
local t = spark.read:json(d)
T.is(t.schema, "id BIGINT, i INT, l BIGINT, x DOUBLE, t TIMESTAMP, s DATE",
  "INT; INT+BIGINT is BIGINT; INT+DOUBLE is DOUBLE; 'yyyy-MM-dd HH:mm:ss[.S]' is TIMESTAMP; yyyy-MM-dd is DATE")
T.is(T.rows(t:orderBy("id"):select("i", "l", "x", F.col("t"):cast("string"), "s")), {
  {1, 1, 1.0, "2026-01-01 10:00:00", "2026-01-31"},
  {2, 9999999999, 1.5, "2026-01-01 10:00:00.25", "2026-02-01"},
  {nil, 3, 2.0, nil, nil},
}, "values converted to the widened types")
-- a DATE next to a TIMESTAMP widens to TIMESTAMP, next to anything else to STRING
-- (PartitioningUtils.findWiderTypeForPartitionColumn)
local d2 = base .. "/dates"
put(d2 .. "/a=2026-01-31/b=2026-01-31", "part-0.json", '{"id":1}\n')
put(d2 .. "/a=2026-01-01 10%3A00%3A00/b=7", "part-0.json", '{"id":2}\n')
local t2 = spark.read:json(d2)
T.is(t2.schema, "id BIGINT, a TIMESTAMP, b STRING", "DATE+TIMESTAMP is TIMESTAMP; DATE+INT is STRING")
T.is(T.rows(t2:orderBy("id"):select(F.col("a"):cast("string"), "b")),
  {{"2026-01-31 00:00:00", "2026-01-31"}, {"2026-01-01 10:00:00", "7"}}, "a date widened to its midnight")

local d2 = base .. "/types2"
put(d2 .. "/e=1E3/big=12345678901234567890", "part-0.json", '{"id":1}\n')
local t2 = spark.read:json(d2)
T.is(t2.schema, "id BIGINT, e DOUBLE, big STRING",
  "1E3 is DOUBLE (DecimalType refuses a negative scale); a 20-digit integer, DECIMAL in Spark, STRING here")
T.is(T.rows(t2), {{1, 1000.0, "12345678901234567890"}}, "their values")

-- a file that also holds the partition column (Spark's
-- mergeDataAndPartitionSchema): it keeps its place, the directory's value
-- and type win
put(base .. "/overlap/p=1", "f.json", '{"p":"zz","x":1}\n')
local o = spark.read:json(base .. "/overlap")
T.is(o.schema, "p INT, x BIGINT", "an inferred data column named like the partition column keeps its place")
T.is(T.rows(o), {{1, 1}}, "its value is the directory's")

-- 8. what Spark refuses
T.errors(function() df.write:partitionBy("zz"):json(base .. "/e1") end,
  "Partition column `zz` not found in schema struct<id:int,s:string,n:int>", "unknown partition column")
T.errors(function() df.write:partitionBy("id", "s", "n"):json(base .. "/e2") end,
  "Cannot use all columns for partition columns", "all columns")
T.errors(function()
  spark.createDataFrame({{1, {2}}}, "id INT, w STRUCT<a: INT>").write:partitionBy("w"):json(base .. "/e3")
end, "Cannot use struct<a:int> for partition column", "a struct column")
T.errors(function() df.write:partitionBy(1) end, "partitionBy: argument 1: expected a column name",
  "partitionBy takes names")
local c = base .. "/conflict"
put(c .. "/a=1", "x.json", '{"id":1}\n')
put(c .. "/b=1", "x.json", '{"id":2}\n')
T.errors(function() spark.read:json(c) end, "Conflicting partition column names detected",
  "a=1/ beside b=1/ (Spark's resolvePartitions)")
local c2 = base .. "/conflict2"
put(c2 .. "/a=1", "x.json", '{"id":1}\n')
put(c2 .. "/other", "x.json", '{"id":2}\n')
T.errors(function() spark.read:json(c2) end, "Conflicting directory structures detected",
  "a=1/ beside a plain directory")

-- 9. a plain subdirectory is read too (Spark lists leaf files recursively)
local sub = base .. "/nested"
put(sub, "a.json", '{"id":1}\n')
put(sub .. "/deeper", "b.json", '{"id":2}\n')
put(sub .. "/_hidden", "c.json", '{"id":3}\n')
put(sub .. "/.dot", "d.json", '{"id":4}\n')
T.is(T.sorted_rows(spark.read:json(sub)), {{1}, {2}},
  "files in subdirectories count; '_' and '.' directories do not")

T.done()
