-- Bad records on the feed (issue 16 finding 11): the file source's readers
-- (json, csv, text; parquet with ignoreCorruptFiles) report every malformed
-- record with its reason, file and line as an SL_EV_BAD_RECORD event (what
-- the workbench's bad records pane counts; q:badRecords() reads them), in
-- PERMISSIVE and DROPMALFORMED.  Ill-formed UTF-8 in json, csv and text is
-- read as U+FFFD, one per maximal subpart (what Java's UTF-8 decoder gives,
-- which Spark's CSV and text readers go through), the row kept, reason
-- utf8; well-formed multi-byte text is untouched.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local FFFD = "\xef\xbf\xbd"

-- the reports of q, oldest first, without the path's directory
local function bad(q)
  local out = {}
  for _, e in ipairs(q:badRecords()) do
    table.insert(out, 1, { e.reason, e.file and e.file:match("[^/]+$") or nil, e.line, e.count })
  end
  return out
end

-- json, PERMISSIVE: a syntax error, a too-long line, ill-formed UTF-8
local src = T.tempdir()
local q = spark.readStream:format("json"):schema("a INT, s STRING, _corrupt_record STRING")
  :option("maxLineBytes", 40):load(src)
  .writeStream:format("memory"):queryName("j"):start()
T.put(src, "1.json", table.concat({
  '{"a":1,"s":"ok"}',
  '{"a":2,"s":"caf\xc3\xa9 \xf0\x9f\x98\x80"}', -- well-formed: kept as is
  '{"a":3 "s":"x"}',                           -- malformed
  '{"a":4,"s":"' .. ("y"):rep(50) .. '"}',      -- too_long
  '{"a":5,"s":"a\xffb"}',                       -- utf8
  '{"a":6,"s":"\xe2\x82x\xc0\xaf"}',            -- utf8: truncated, overlong
}, "\n") .. "\n", "2026-01-01 11:00:01")
q:processAllAvailable()
local rows = spark.table("j"):collect()
T.is(#rows, 6, "json PERMISSIVE keeps every record")
T.is(rows[2].s, "caf\xc3\xa9 \xf0\x9f\x98\x80", "well-formed UTF-8 is untouched")
T.is({ rows[3].a, rows[3]._corrupt_record }, { nil, '{"a":3 "s":"x"}' }, "the malformed line: nulls, raw text kept")
T.is(rows[4].a, nil, "the too-long line: nulls")
T.is({ rows[5].a, rows[5].s, rows[5]._corrupt_record }, { 5, "a" .. FFFD .. "b", nil },
  "0xFF reads as one U+FFFD, the row is not malformed")
T.is(rows[6].s, FFFD .. "x" .. FFFD .. FFFD,
  "E2 82 (cut short) is one U+FFFD, C0 AF (overlong) two: maximal subparts")
local got = bad(q)
table.sort(got, function(x, y) return x[3] < y[3] end)
T.is(got, {
  { "malformed", "1.json", 3, 1 },
  { "too_long", "1.json", 4, 1 },
  { "utf8", "1.json", 5, 1 },
  { "utf8", "1.json", 6, 1 },
}, "json: one report per bad record, with reason, file and line (one per line for utf8)")
T.is(q:badRecords()[1].batchId, 0, "the report names its batch")
T.like(q:badRecords(1)[1].reason, "^%a", "badRecords(n) takes the newest n")
T.is(#q:badRecords(1), 1, "badRecords(1): one")
q:stop()

-- csv, DROPMALFORMED: the dropped records are counted too
local csvdir = T.tempdir()
q = spark.readStream:schema("id INT, city STRING"):option("mode", "DROPMALFORMED"):csv(csvdir)
  .writeStream:format("memory"):queryName("c"):start()
T.put(csvdir, "a.csv", "1,Paris\n2,Oslo,extra\nthree,Lima\n4,K\xf8benhavn\n", "2026-01-01 11:00:01")
q:processAllAvailable()
T.is(T.rows(spark.table("c")), { { 1, "Paris" }, { 4, "K" .. FFFD .. "benhavn" } },
  "csv DROPMALFORMED drops the malformed records; a Latin-1 byte reads as U+FFFD")
got = bad(q)
table.sort(got, function(x, y) return x[3] < y[3] end)
T.is(got, {
  { "malformed", "a.csv", 2, 1 },
  { "malformed", "a.csv", 3, 1 },
  { "utf8", "a.csv", 4, 1 },
}, "csv: the dropped records and the repaired one are reported")
q:stop()

-- text: surrogates and past-U+10FFFF; a too-long line (maxLineBytes counts
-- the bytes after the repair: 4 bytes F4 90 80 80 become 12)
local txtdir = T.tempdir()
q = spark.readStream:option("maxLineBytes", 12):text(txtdir)
  .writeStream:format("memory"):queryName("t"):start()
T.put(txtdir, "a.txt", "\xed\xa0\x80\n\xf4\x90\x80\x80\nok\n1234567890123\n", "2026-01-01 11:00:01")
q:processAllAvailable()
T.is(T.rows(spark.table("t")), { { FFFD:rep(3) }, { FFFD:rep(4) }, { "ok" }, { nil } },
  "text: ED A0 80 (a surrogate) and F4 90 80 80 (past U+10FFFF) read as U+FFFD per byte")
T.is(bad(q), { { "utf8", "a.txt", 1, 1 }, { "utf8", "a.txt", 2, 1 }, { "too_long", "a.txt", 4, 1 } },
  "text: utf8 and too_long reported")
q:stop()

-- parquet with ignoreCorruptFiles: a file that is not Parquet is skipped
local pq, stage = T.tempdir(), T.tempdir()
spark.createDataFrame({ { 1 } }, "id INT").write:parquet(stage .. "/x")
for _, f in ipairs(T.ls(stage .. "/x")) do
  if f:match("%.parquet$") then
    assert(os.execute("touch -d '2026-01-01 11:00:01' '" .. stage .. "/x/" .. f .. "'"))
    assert(os.rename(stage .. "/x/" .. f, pq .. "/a.parquet"))
  end
end
T.put(pq, "b.parquet", "not parquet at all\n", "2026-01-01 11:00:02")
q = spark.readStream:schema("id INT"):option("ignoreCorruptFiles", "true"):parquet(pq)
  .writeStream:format("memory"):queryName("p"):start()
q:processAllAvailable()
T.is(T.rows(spark.table("p")), { { 1 } }, "parquet: the good file's rows")
got = bad(q)
T.is({ got[1][1], got[1][2], got[1][3] }, { "corrupt_file", "b.parquet", 0 }, "parquet: the skipped file is reported")
q:stop()

-- a batch with more bad records than the feed lists: one summary event
local many = T.tempdir()
q = spark.readStream:format("json"):schema("a INT"):option("mode", "DROPMALFORMED"):load(many)
  .writeStream:format("memory"):queryName("m"):start()
T.put(many, "a.json", ("{oops\n"):rep(250) .. '{"a":1}\n', "2026-01-01 11:00:01")
q:processAllAvailable()
local total, listed, summary = 0, 0, nil
for _, e in ipairs(q:badRecords()) do
  total = total + e.count
  if e.reason == "more" then summary = e.count else listed = listed + 1 end
end
T.is({ listed, summary, total }, { 200, 50, 250 },
  "250 bad records: 200 listed, one event counts the other 50")
T.is(T.rows(spark.table("m")), { { 1 } }, "the good record")
q:stop()

-- batch reads validate UTF-8 the same way
local bd = T.tempdir()
T.put(bd, "a.txt", "x\x80y\n")
T.is(T.rows(spark.read:text(bd .. "/a.txt")), { { "x" .. FFFD .. "y" } }, "spark.read: a stray continuation byte is U+FFFD")

T.done()
