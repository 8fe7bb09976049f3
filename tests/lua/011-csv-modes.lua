-- CSV as Spark 3.5 reads it (issue 15 item 4): one record per line unless
-- multiLine; a record whose token count differs from the schema or whose
-- value does not convert is malformed; PERMISSIVE keeps what converts and
-- fills _corrupt_record, DROPMALFORMED drops, FAILFAST fails naming the
-- file and line; show() escapes a newline inside a value.
--
-- The expected rows follow Spark's code (see test_issue15 in
-- tests/unit/t400-csv.c for the walk through UnivocityParser.convert,
-- parseIterator and univocity's handleEOF): with multiLine=false the line
-- `2,"unterminated` is the two tokens 2 and `unterminated` (an open quote
-- closes at the line's end; nothing in Spark fails on it), `3,c,extra` has
-- one token too many, `four,d` has an id that is not an INT.
local T = require("tap")

local dir = T.tempdir()
local function put(name, text)
  local f = assert(io.open(dir .. "/" .. name, "w"))
  f:write(text)
  f:close()
  return dir .. "/" .. name
end
local bad = put("bad.csv", 'id,name\n1,a\n2,"unterminated\n3,c,extra\nfour,d\n')
local function read(mode, schema, extra)
  local r = spark.read:option("header", true):option("mode", mode):schema(schema)
  for k, v in pairs(extra or {}) do r = r:option(k, v) end
  return r:csv(bad)
end
local plain, withc = "id INT, name STRING", "id INT, name STRING, _corrupt_record STRING"

for _, fast in ipairs({ "true", "false" }) do
  local o = { fastPath = fast }
  local tag = " (fastPath " .. fast .. ")"
  T.is(T.capture(function() read("PERMISSIVE", plain, o):show() end), [[
+----+------------+
|  id|        name|
+----+------------+
|   1|           a|
|   2|unterminated|
|   3|           c|
|null|           d|
+----+------------+
]], "PERMISSIVE: every line a row, what converts is kept" .. tag)
  T.is(T.capture(function() read("PERMISSIVE", withc, o):show() end), [[
+----+------------+---------------+
|  id|        name|_corrupt_record|
+----+------------+---------------+
|   1|           a|           null|
|   2|unterminated|           null|
|   3|           c|      3,c,extra|
|null|           d|         four,d|
+----+------------+---------------+
]], "PERMISSIVE: _corrupt_record holds the bad lines" .. tag)
  T.is(T.rows(read("DROPMALFORMED", plain, o)), { { 1, "a" }, { 2, "unterminated" } },
    "DROPMALFORMED drops the line with an extra token and the one with a bad id" .. tag)
  T.is(T.rows(read("DROPMALFORMED", withc, o)), { { 1, "a", nil }, { 2, "unterminated", nil } },
    "DROPMALFORMED with _corrupt_record in the schema" .. tag)
  T.errors(function() read("FAILFAST", plain, o):show() end,
    "csv: malformed record at .*bad%.csv:4: expected 2 fields, got 3$",
    "FAILFAST names file and line of the first bad record" .. tag)
  T.errors(function() read("FAILFAST", withc, o):show() end,
    "csv: malformed record at .*bad%.csv:4: ", "FAILFAST with _corrupt_record too" .. tag)
end

-- multiLine=true: univocity reads the stream; the open quote runs to the
-- end of the file, so there are two well-formed records and show() prints
-- the newlines as \n (Spark's showString escapes them before cutting).
local ml = read("FAILFAST", withc, { multiLine = true })
T.is(T.rows(ml), { { 1, "a", nil }, { 2, "unterminated\n3,c,extra\nfour,d\n", nil } },
  "multiLine=true: the quoted value spans the remaining lines")
T.is(T.capture(function() ml:show() end), [[
+---+--------------------+---------------+
| id|                name|_corrupt_record|
+---+--------------------+---------------+
|  1|                   a|           null|
|  2|unterminated\n3,c...|           null|
+---+--------------------+---------------+
]], "show(): a newline in a value is the two characters \\n, the table stays whole")
T.is(T.capture(function() ml:where("id = 2"):select("name"):show(1, false) end), [[
+---------------------------------+
|name                             |
+---------------------------------+
|unterminated\n3,c,extra\nfour,d\n|
+---------------------------------+
]], "show(n, false): escaped, not cut")

-- a closed quoted newline: one record with multiLine, two without
local q = put("q.csv", 'id,note\n1,"two\nlines"\n2,x\n')
local function note(multi, mode)
  return spark.read:option("header", true):option("multiLine", multi)
    :option("mode", mode or "PERMISSIVE"):schema("id INT, note STRING, _corrupt_record STRING"):csv(q)
end
T.is(T.rows(note(true)), { { 1, "two\nlines", nil }, { 2, "x", nil } },
  "multiLine=true keeps a quoted newline in the value")
T.is(T.rows(note(false)), { { 1, "two", nil }, { nil, nil, 'lines"' }, { 2, "x", nil } },
  "multiLine=false: the line ends the record; the rest is its own (malformed) record")
T.errors(function() note(false, "FAILFAST") end,
  "csv: malformed record at .*q%.csv:3: expected 2 fields, got 1$",
  "FAILFAST: the fragment's own line")

-- token counts both ways, a value that does not convert, without a header
local t = put("t.csv", "1,a\n2\n3,c,d\nx,e\n\n   \n5,f\n")
local s = "id INT, s STRING, _corrupt_record STRING"
T.is(T.rows(spark.read:schema(s):csv(t)),
  { { 1, "a", nil }, { 2, nil, "2" }, { 3, "c", "3,c,d" }, { nil, "e", "x,e" }, { 5, "f", nil } },
  "fewer tokens: nulls padded; more: the first kept; a bad INT null; blank lines skipped")
T.is(T.rows(spark.read:schema("id INT, s STRING"):option("mode", "DROPMALFORMED"):csv(t)),
  { { 1, "a" }, { 5, "f" } }, "DROPMALFORMED keeps only the good records")
T.errors(function() spark.read:schema("id INT, s STRING"):option("mode", "FAILFAST"):csv(t) end,
  "csv: malformed record at .*t%.csv:2: expected 2 fields, got 1$", "FAILFAST: fewer tokens, line 2")
local t2 = put("t2.csv", "1,a\n4,b\nx,e\n")
T.errors(function() spark.read:schema("id INT, s STRING"):option("mode", "FAILFAST"):csv(t2) end,
  "csv: malformed record at .*t2%.csv:3: field 'id': cannot parse 'x' as INT$",
  "FAILFAST: a value that does not convert")
T.is(T.rows(spark.read:schema("id INT, s STRING, bad STRING")
    :option("columnNameOfCorruptRecord", "bad"):csv(t2)),
  { { 1, "a", nil }, { 4, "b", nil }, { nil, "e", "x,e" } }, "columnNameOfCorruptRecord")

-- the file source reads the same way
local src = T.tempdir()
T.put(src, "a.csv", 'id,name\n1,a\n2,"unterminated\n3,c,extra\nfour,d\n', "2026-01-01 11:00:01")
local sq = spark.readStream:schema(withc):option("header", true):csv(src)
  .writeStream:format("memory"):queryName("csvmodes"):start()
sq:processAllAvailable()
T.is(T.rows(spark.table("csvmodes")),
  { { 1, "a", nil }, { 2, "unterminated", nil }, { 3, "c", "3,c,extra" }, { nil, "d", "four,d" } },
  "readStream csv: the same rows as spark.read")
sq:stop()
local fq = spark.readStream:schema(plain):option("header", true):option("mode", "FAILFAST"):csv(src)
  .writeStream:format("memory"):queryName("csvfail"):start()
T.errors(function() fq:processAllAvailable() end,
  "csv: malformed record at .*a%.csv:4: expected 2 fields, got 3",
  "readStream FAILFAST: the query fails naming file and line")
T.is(fq.isActive, false, "and it is no longer active")

T.done()
