-- spark.read:parquet and df.write:parquet (issue 15): Spark's default file
-- format.  The schema comes back from the footer (nullability too), every
-- type and NULL round trips, a schema given to the reader reads only its
-- columns (a column the files lack is NULL), part files are named as
-- Spark names them, the compression option picks the codec, and a file
-- that is not Parquet fails naming the file.  DuckDB checks the bytes
-- themselves: tests/repl/040-parquet-duckdb.t.
local T = require("tap")

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "'"))

local src = spark.createDataFrame({
  {1, 10000000000, 0.5, true, "apple", "2026-01-01 12:05:00"},
  {2, nil, 1.5, false, nil, "2026-01-01 12:06:30.25"},
  {nil, 3, nil, nil, "fig", nil},
}, "id INT, big BIGINT, x DOUBLE, ok BOOLEAN, s STRING, ts TIMESTAMP")
src.write:parquet(dir .. "/p")
local back = spark.read:parquet(dir .. "/p")
T.is(back.schema, src.schema, "the schema comes back from the footer")
T.is(T.rows(back:orderBy("id")), T.rows(src:orderBy("id")), "every type and NULL round trips")

local names = {}
for f in io.popen("ls '" .. dir .. "/p'"):lines() do names[#names + 1] = f end
T.like(table.concat(names, " "), "^_SUCCESS part%-00000%-[%x-]+%-c000%.snappy%.parquet$",
  "Spark's part-file name; snappy by default")

T.is(T.rows(spark.read:schema("s STRING, id INT, gone STRING"):parquet(dir .. "/p"):orderBy("id")),
  {{"fig", nil, nil}, {"apple", 1, nil}, {nil, 2, nil}},
  "a reader schema picks columns by name; a missing column is NULL")
T.is(spark.read:format("parquet"):load(dir .. "/p"):count(), 3, "format(\"parquet\"):load()")

src.write:option("compression", "zstd"):parquet(dir .. "/z")
names = {}
for f in io.popen("ls '" .. dir .. "/z'"):lines() do names[#names + 1] = f end
T.like(table.concat(names, " "), "%.zstd%.parquet$", "compression zstd")
T.is(spark.read:parquet(dir .. "/z"):count(), 3, "zstd files read back")
T.errors(function() src.write:option("compression", "lzo"):parquet(dir .. "/l") end,
  "compression 'lzo' is not supported", "an unknown codec is refused")

-- the window struct, as a windowed aggregation writes it
local ev = spark.createDataFrame({{"2026-01-01 12:01:00", "a"}, {"2026-01-01 12:07:00", "b"},
  {"2026-01-01 12:08:00", "a"}}, "t TIMESTAMP, k STRING")
local w = ev:groupBy(F.window("t", "5 minutes")):count()
w.write:parquet(dir .. "/w")
local wb = spark.read:parquet(dir .. "/w")
T.is(wb.schema, w.schema, "a window struct column round trips as a group")
T.is(T.rows(wb:orderBy("window")), T.rows(w:orderBy("window")), "window rows")

-- an empty DataFrame still leaves a part file: its footer keeps the schema
src:where("id > 100").write:parquet(dir .. "/empty")
local e = spark.read:parquet(dir .. "/empty")
T.is(e.schema, src.schema, "an empty write keeps its schema in the footer")
T.is(e:count(), 0, "and reads back no rows")

local bad = io.open(dir .. "/bad.parquet", "w")
bad:write("this is not parquet\n")
bad:close()
T.errors(function() spark.read:parquet(dir .. "/bad.parquet") end,
  "parquet: '.*bad%.parquet' is not a Parquet file", "a bad file is named")
os.execute("cp '" .. dir .. "/bad.parquet' '" .. dir .. "/p/part-00001-bad.parquet'")
T.errors(function() spark.read:parquet(dir .. "/p") end,
  "part%-00001%-bad%.parquet' is not a Parquet file", "a corrupt file among good ones fails the read")
T.is(spark.read:option("ignoreCorruptFiles", true):parquet(dir .. "/p"):count(), 3,
  "ignoreCorruptFiles skips it, as Spark")

-- no format named: Parquet, Spark's spark.sql.sources.default
src.write:save(dir .. "/default")
local dflt = spark.read:load(dir .. "/default")
T.is(dflt.schema, src.schema, "save() and load() without a format are Parquet")
T.is(T.sorted_rows(spark.read:parquet(dir .. "/default")), T.sorted_rows(src),
  "save() wrote Parquet files that parquet() reads")
T.errors(function() spark.read:load(dir .. "/bad.parquet") end,
  "parquet: '.*bad%.parquet' is not a Parquet file", "load() without a format reads a file as Parquet")

os.execute("rm -rf '" .. dir .. "'")
T.done()
