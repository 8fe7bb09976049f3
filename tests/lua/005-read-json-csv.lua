-- spark.read: json, csv, text; options; schemas; the three malformed-record
-- modes (PERMISSIVE with _corrupt_record, DROPMALFORMED, FAILFAST with
-- file:line); df.write round trips.
local T = require("tap")

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "'"))
local function write(name, text)
  local f = assert(io.open(dir .. "/" .. name, "w"))
  f:write(text)
  f:close()
  return dir .. "/" .. name
end

-- JSON lines
local good = write("good.json",
  '{"id": 1, "product": "apple", "amount": 3.5}\n' ..
  '{"id": 2, "product": "pear"}\n' ..
  '{"id": 3, "product": "fig", "amount": 1}\n')
local j = spark.read:json(good)
T.is(tostring(j), "DataFrame[amount: double, id: bigint, product: string]",
  "json schema inference: fields sorted by name, integers bigint")
T.is(T.rows(j), {{3.5, 1, "apple"}, {nil, 2, "pear"}, {1.0, 3, "fig"}}, "json values; a missing field is NULL")
local js = spark.read:schema("id INT, product STRING"):json(good)
T.is(T.rows(js), {{1, "apple"}, {2, "pear"}, {3, "fig"}}, "json with a schema reads only its columns")
T.is(spark.read:format("json"):load(good):count(), 3, "format():load()")
T.is(spark.read:format("json"):option("path", good):load():count(), 3, "load() with the path option")

-- a directory of files
local sub = dir .. "/events"
os.execute("mkdir -p '" .. sub .. "'")
write("events/a.json", '{"v": 1}\n{"v": 2}\n')
write("events/b.json", '{"v": 3}\n')
write("events/_ignored.json", '{"v": 100}\n')
T.is(T.rows(spark.read:schema("v INT"):json(sub):orderBy("v")), {{1}, {2}, {3}},
  "a directory: every data file; _ and . files skipped")

-- malformed records
local bad = write("bad.json",
  '{"id": 1, "product": "apple"}\n' ..
  '{"id": 2, "product": \n' ..
  '{"id": 3, "product": "fig"}\n')
local perm = spark.read:schema("id INT, product STRING, _corrupt_record STRING"):json(bad)
T.is(T.rows(perm), {{1, "apple", nil}, {nil, nil, '{"id": 2, "product": '}, {3, "fig", nil}},
  "PERMISSIVE: the bad line goes to _corrupt_record")
T.is(spark.read:schema("id INT, product STRING"):json(bad):count(), 3,
  "PERMISSIVE without _corrupt_record keeps a row of NULLs")
T.is(T.rows(spark.read:schema("id INT, product STRING"):option("mode", "DROPMALFORMED"):json(bad)),
  {{1, "apple"}, {3, "fig"}}, "DROPMALFORMED drops the bad line")
T.errors(function()
  spark.read:schema("id INT, product STRING"):option("mode", "FAILFAST"):json(bad)
end, "json: malformed record at .*bad%.json:2: ", "FAILFAST names file and line")
local e = T.errors(function()
  spark.read:schema("id INT"):option("mode", "FAILFAST"):json(bad)
end, "^.-005%-read%-json%-csv%.lua:%d+: json: ", "the error says where in the script it happened")
T.is(type(e) == "table" and e.code, "MalformedRecordException", "the error object has a code")
T.errors(function()
  spark.read:option("mode", "STRICT"):schema("id INT"):json(bad)
end, "STRICT", "an unknown mode is an error")

-- CSV
local csv = write("sales.csv",
  "id,product,amount,price\n" ..
  "1,apple,3,1.5\n" ..
  "2,pear,,0.25\n" ..
  "3,\"fig, dried\",7,2\n")
local c1 = spark.read:option("header", true):csv(csv)
T.is(c1.columns, {"id", "product", "amount", "price"}, "csv header names")
T.is(tostring(c1), "DataFrame[id: string, product: string, amount: string, price: string]",
  "csv without inferSchema: all strings")
T.is(T.rows(c1:select("product", "amount")), {{"apple", "3"}, {"pear", nil}, {"fig, dried", "7"}},
  "quoted field with a comma; an empty field is NULL")
local c2 = spark.read:options{header = true, inferSchema = true}:csv(csv)
T.is(tostring(c2), "DataFrame[id: int, product: string, amount: int, price: double]",
  "options{} with inferSchema")
local c3 = spark.read:format("csv"):schema("id INT, product STRING, amount INT, price DOUBLE")
  :option("header", "true"):load(csv)
T.is(T.rows(c3:select("amount", "price")), {{3, 1.5}, {nil, 0.25}, {7, 2.0}}, "csv with a schema")
T.is(spark.read:csv(csv).columns, {"_c0", "_c1", "_c2", "_c3"}, "csv without header: _c0, _c1, ...")
T.is(spark.read:csv(csv, {header = true, inferSchema = true}).columns[3], "amount",
  "keyword options as a trailing table")
local badcsv = write("bad.csv", "a,b\n1,2\n3\n4,5\n")
T.is(T.rows(spark.read:schema("a INT, b INT"):option("header", true):option("mode", "DROPMALFORMED"):csv(badcsv)),
  {{1, 2}, {4, 5}}, "csv DROPMALFORMED drops a short record")
T.errors(function()
  spark.read:schema("a INT, b INT"):option("header", true):option("mode", "FAILFAST"):csv(badcsv)
end, "csv: malformed record at .*bad%.csv:3: ", "csv FAILFAST names file and line")

-- text
local txt = write("lines.txt", "hello\nworld\n")
local t = spark.read:text(txt)
T.is(tostring(t), "DataFrame[value: string]", "text has one column 'value'")
T.is(T.rows(t), {{"hello"}, {"world"}}, "one row per line")

-- reader errors
T.errors(function() spark.read:format("orc") end,
  "format: unknown format 'orc' %(expected json, csv, text or parquet%)", "unknown format")
T.errors(function() spark.read:format("jsn") end, "did you mean 'json'%?", "a near miss gets a hint")
T.errors(function() spark.read:load(good) end, "parquet: '.*good", "load without format reads parquet")
T.errors(function() spark.read:json(dir .. "/nope.json") end, "nope%.json", "a missing file is named")
T.errors(function() spark.read:schema("id INTT") end, "INTT", "a bad schema DDL")
T.errors(function() spark.read:option("k", {}) end,
  "bad argument #2 to 'option' %(string, number or boolean expected, got table", "option values")
T.errors(function() spark.read:jsn(good) end,
  "DataFrameReader has no method 'jsn' %(did you mean 'json'%?%)", "a misspelt reader method")
T.like(tostring(spark.read:format("csv"):option("header", true):option("n", 5)),
  "^DataFrameReader%(format=csv, header=true, n=5%)$", "option values in Spark's string form")

-- write: round trips through json and csv
local out = dir .. "/out"
local src = spark.createDataFrame({{1, "a", 0.5}, {2, nil, 1.5}}, "id INT, s STRING, x DOUBLE")
src.write:format("json"):save(out .. "/j")
T.is(T.rows(spark.read:schema(src.schema):json(out .. "/j"):orderBy("id")), T.rows(src),
  "write json then read it back")
src.write:option("header", true):csv(out .. "/c")
T.is(T.rows(spark.read:schema(src.schema):option("header", true):csv(out .. "/c"):orderBy("id")),
  T.rows(src), "write csv then read it back")
T.errors(function() src.write:json(out .. "/j") end, "already exists", "the default mode refuses an existing path")
src.write:mode("overwrite"):json(out .. "/j")
T.is(spark.read:schema(src.schema):json(out .. "/j"):count(), 2, "mode overwrite replaces")
src.write:mode("append"):json(out .. "/j")
T.is(spark.read:schema(src.schema):json(out .. "/j"):count(), 4, "mode append adds")
T.errors(function() src.write:mode("merge") end, "unknown save mode 'merge'", "unknown save mode")

os.execute("rm -rf '" .. dir .. "'")
T.done()
