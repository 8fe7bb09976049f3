-- spark.createDataFrame: row forms, type conversion, nested values, errors,
-- and what collect() gives back (Rows).
local T = require("tap")

-- array rows; nil is NULL and positions follow the schema, not #row
local df = spark.createDataFrame({{1, "x"}, {2, nil}, {nil, "z"}}, "a INT, b STRING")
T.is(tostring(df), "DataFrame[a: int, b: string]", "__tostring is Spark's repr")
T.is(df.schema, "a INT, b STRING", "schema is the DDL string")
T.is(df.columns, {"a", "b"}, "columns")
T.is(df.isStreaming, false, "a batch DataFrame is not streaming")
T.is(T.rows(df), {{1, "x"}, {2, nil}, {nil, "z"}}, "array rows with NULLs")
T.is(df:count(), 3, "count")

-- map rows, and a Row from collect() as input
local m = spark.createDataFrame({{b = "p", a = 7}, {a = 8}}, "a INT, b STRING")
T.is(T.rows(m), {{7, "p"}, {8, nil}}, "map rows; a missing key is NULL")
local again = spark.createDataFrame(m:collect(), "a INT, b STRING")
T.is(T.rows(again), {{7, "p"}, {8, nil}}, "Rows from collect() are valid rows")

-- conversions to the field type
local c = spark.createDataFrame({{1, 2, "2026-01-01 12:05:00", true, 10}},
  "d DOUBLE, big BIGINT, ts TIMESTAMP, ok BOOLEAN, ts2 TIMESTAMP")
local r = c:first()
T.is(r.d, 1.0, "a Lua integer into DOUBLE is a float")
T.is(math.type(r.d), "float", "DOUBLE comes back as a float")
T.is(math.type(r.big), "integer", "BIGINT comes back as an integer")
T.is(r.ts, "2026-01-01 12:05:00", "a string into TIMESTAMP is parsed; comes back as text")
T.is(r.ok, true, "BOOLEAN")
T.is(r.ts2, "1970-01-01 00:00:10", "a number into TIMESTAMP is seconds")
T.is(spark.createDataFrame({{1.5}}, "ts TIMESTAMP"):first().ts,
  "1970-01-01 00:00:01.5", "fractional seconds keep their fraction")

-- nested STRUCT and ARRAY
local n = spark.createDataFrame({
  {w = {start = "2026-01-01 12:00:00", ["end"] = "2026-01-01 12:10:00"}, tags = {"a", "b"}},
  {w = nil, tags = {}},
}, "w STRUCT<start: TIMESTAMP, end: TIMESTAMP>, tags ARRAY<STRING>")
local rows = n:collect()
T.is(rows[1].w.start, "2026-01-01 12:00:00", "nested struct fields as tables: row.w.start")
T.is(rows[1].tags, {"a", "b"}, "arrays come back as Lua arrays")
T.is(rows[2].w, nil, "a NULL struct is nil")
T.is(rows[2].tags, {}, "an empty array")
T.is(tostring(rows[1]),
  "Row(w=Row(start='2026-01-01 12:00:00', end='2026-01-01 12:10:00'), tags=['a', 'b'])",
  "Row __tostring in schema order, nested")

-- Row access
local row = df:collect()[1]
T.is(row[1], 1, "positional access row[1]")
T.is(row[2], "x", "positional access row[2]")
T.is(#row, 2, "#row is the number of fields")
local names = {}
for k, v in pairs(row) do names[#names + 1] = k .. "=" .. tostring(v) end
T.is(names, {"a=1", "b=x"}, "pairs() walks the fields in schema order")
T.is(tostring(df:collect()[2]), "Row(a=2, b=nil)", "a NULL field prints as nil")
T.is(getmetatable(row).__name, "streamlab.Row", "rows have the streamlab.Row metatable")
T.errors(function() return row.bb end, "Row has no field 'bb'", "an unknown field is an error")
T.is(df:collect()[2].b, nil, "a NULL field is nil, not an error")

-- one-field schema: bare values
T.is(T.rows(spark.createDataFrame({10, 11}, "v INT")), {{10}, {11}}, "bare values for a one-column schema")

-- both call forms
T.is(spark:createDataFrame({{1}}, "a INT"):count(), 1, "spark:createDataFrame works too")

-- schema inference from the first row (optional in API.md)
local inf = spark.createDataFrame({{name = "a", n = 1, x = 1.5}})
T.is(tostring(inf), "DataFrame[n: bigint, name: string, x: double]",
  "inferred from a map row: sorted keys, integer -> bigint")
T.is(tostring(spark.createDataFrame({{1, "a"}})), "DataFrame[_1: bigint, _2: string]",
  "inferred from an array row: _1, _2")
T.is(spark.createDataFrame({{1, "a"}}, {"id", "s"}).columns, {"id", "s"},
  "a names array names the columns")

-- errors name the row and the field
T.errors(function()
  spark.createDataFrame({{1, 2}, {2, 3}, {3, "x"}}, "id INT, amount INT")
end, "createDataFrame: row 3, field 'amount': expected INT, got string 'x'",
  "a wrong type names row and field")
T.errors(function()
  spark.createDataFrame({{1.5}}, "a INT")
end, "row 1, field 'a': expected INT, got number 1.5", "no silent truncation into INT")
T.errors(function()
  spark.createDataFrame({{3000000000}}, "a INT")
end, "expected INT, got number 3000000000", "INT range is checked")
T.errors(function()
  spark.createDataFrame({{"yesterday"}}, "ts TIMESTAMP")
end, "field 'ts': expected TIMESTAMP, got string 'yesterday'.*a timestamp is", "a bad timestamp, with a hint")
T.errors(function()
  spark.createDataFrame({{w = {start = "x"}}}, "w STRUCT<start: INT>")
end, "field 'w.start': expected INT", "nested fields are named by path")
T.errors(function()
  spark.createDataFrame({{1, "x", 3}}, "a INT, b STRING")
end, "row 1: 3 values for 2 fields", "too many values")
T.errors(function()
  spark.createDataFrame({{a = 1, amout = 2}}, "a INT, amount INT")
end, "row 1: unknown field 'amout' %(did you mean 'amount'%?%)", "an unknown map key, with a hint")
T.errors(function()
  spark.createDataFrame({{1}, 5}, "a INT, b INT")
end, "row 2: expected a table", "a row that is not a table")
T.errors(function()
  spark.createDataFrame({{1}}, "a INTT")
end, "schema", "a bad DDL string")
T.errors(function()
  spark.createDataFrame("rows", "a INT")
end, "bad argument #1 to 'createDataFrame' %(array of rows expected, got string", "rows must be a table")

T.done()
