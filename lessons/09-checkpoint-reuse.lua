-- Lesson 9: what deleting or reusing a checkpoint does (LESSONS.md L9).
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(9, "Deleting or reusing a checkpoint")

say [[
"Just delete the checkpoint and start again" is the most common way to
break a streaming pipeline.  The checkpoint holds *where the query is*
(offsets, commits) and *what it knows* (state); without it, a query starts
from scratch.  Three experiments on a copy query: 1,000 records in ten
json files, copied to a sink.]]

code [[
spark.clock:manual("2026-01-01 12:00:00")
function tempdir()
  local d = os.tmpname(); os.remove(d); os.execute("mkdir -p '" .. d .. "'"); return d
end
inbox, checkpoint = tempdir(), tempdir() .. "/ck"
function add_file(n, first, count)
  local h = assert(io.open(inbox .. "/.tmp", "w"))
  for id = first, first + count - 1 do h:write(string.format('{"id":%d,"shop":"s%d"}\n', id, id % 3)) end
  h:close()
  os.rename(inbox .. "/.tmp", string.format("%s/%02d.json", inbox, n))
end
for f = 0, 9 do add_file(f, f * 100 + 1, 100) end
source = spark.readStream:schema("id INT, shop STRING"):option("maxFilesPerTrigger", "2"):json(inbox)
-- a plain append-only sink with no log of its own: every row it is given is kept
raw = {}
function raw_sink(df)
  return df.writeStream:queryName("copy"):option("checkpointLocation", checkpoint)
    :foreachBatch(function(d) for _, r in ipairs(d:collect()) do raw[#raw + 1] = r.id end end):start()
end
q = raw_sink(source)
q:processAllAvailable()
q:stop()
ids = {}
for i = 1, 1000 do ids[i] = i end
print(select(2, require("lesson").oracle(ids, raw)))
]]
pause()

exercise([[
(a) Delete the checkpoint and start the same query again, into the same
plain sink.  How many duplicates?]], function()
  code [[
os.execute("rm -rf '" .. checkpoint .. "'")
q = raw_sink(source)
q:processAllAvailable()
q:stop()
verdict_a, line = require("lesson").oracle(ids, raw)
print(line)
]]
  expect("(a) every committed record written again", verdict_a.duplicates, 1000)
  say [[
1,000 duplicates: without offsets the new query does not know the ten files
were read; it reads them all again.]]
end)
pause()

exercise([[
(b) Start a *different* query (a count per shop) on the old checkpoint.]], function()
  code([[
q:stop()
counts = source:groupBy("shop"):count().writeStream:outputMode("complete")
  :format("memory"):queryName("per_shop"):option("checkpointLocation", checkpoint):start()
]], {fails = "plan fingerprint mismatch"})
  say [[
Refused, and the checkpoint is left untouched.  Spark allows only some
changes between restarts (adding a filter: yes; changing the grouping keys
or aggregates of a stateful operator: no, its state would not match).]]
end)
pause()

exercise([[
(c) The exactly-once json file sink keeps its own log, _spark_metadata,
keyed by batch id.  Run into it, delete only the checkpoint, let two new
files arrive, and restart the query (without maxFilesPerTrigger) into the
same sink directory.  What does the sink hold?]], function()
  code [[
out, checkpoint = tempdir(), tempdir() .. "/ck2"
function file_copy(src)
  return src.writeStream:format("json"):queryName("file_copy"):option("checkpointLocation", checkpoint):start(out)
end
q = file_copy(source)
q:processAllAvailable()
q:stop()
os.execute("rm -rf '" .. checkpoint .. "'")
add_file(10, 1001, 100)
add_file(11, 1101, 100)
q = file_copy(spark.readStream:schema("id INT, shop STRING"):json(inbox))
q:processAllAvailable()
q:stop()
got = {}
for _, r in ipairs(spark.read:schema("id INT, shop STRING"):json(out):collect()) do got[#got + 1] = r.id end
all_ids = {}
for i = 1, 1200 do all_ids[i] = i end
verdict_c, line = require("lesson").oracle(all_ids, got)
print(line)
]]
  expect("(c) the new batch 0 is skipped as already committed: 200 lost",
    {verdict_c.got, verdict_c.duplicates, verdict_c.missing}, {1000, 0, 200})
  say [[
Silent loss.  The new query's batch 0 read all twelve files, but the file
sink found _spark_metadata/0 (written by the *old* query) and skipped the
batch as "already committed".  The two new files are never written, and no
error says so.  That is Spark's behaviour (FileStreamSink); the cure is
never to point a new checkpoint at an old sink directory: delete both or
neither.]]
end)
code [[os.execute("rm -rf '" .. inbox .. "' '" .. out .. "'")]]
