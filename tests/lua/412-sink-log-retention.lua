-- The file sink's retention option (Spark's FileStreamSinkLog.shouldRetain,
-- issue 16 finding 10): without it every compact lists every part file
-- ever written (~200 bytes each, Spark's format), so _spark_metadata grows
-- with the batches whatever is deleted (408: 4.5 MB after 2,000 batches,
-- ~25 MB after 10,000); with it a compact leaves out the files older than
-- the retention and the log stays small.  Readers, as Spark's, read the
-- latest compact and what follows, so a file a compact left out is no
-- longer listed.  "Now" is the newest part file's modification time (the
-- engine reads no wall clock; sink_file.c).  1,000 batches by default,
-- STREAMLAB_LONG=1 runs 10,000.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function meta_bytes(dir)
  local bytes, n = 0, 0
  for _, f in ipairs(T.ls(dir .. "/_spark_metadata")) do
    if not f:match("^%.") then
      local h = assert(io.open(dir .. "/_spark_metadata/" .. f, "rb"))
      bytes, n = bytes + h:seek("end"), n + 1
      h:close()
    end
  end
  return bytes, n
end

local function ids(dir)
  local out = {}
  for _, r in ipairs(T.rows(spark.read:schema("id INT"):json(dir):orderBy("id"))) do out[#out + 1] = r[1] end
  return out
end

-- option errors, as Spark's Utils.timeStringAsMs
local ms0 = spark.memoryStream("id INT")
T.errors(function()
  ms0:toDF().writeStream:format("json"):option("path", T.tempdir()):option("retention", "soon")
    :option("checkpointLocation", T.tempdir()):start()
end, "option 'retention': Time must be specified as seconds %(s%)", "retention 'soon' is refused")

-- semantics: files two hours older than the newest leave the next compact
local out, ck = T.tempdir(), T.tempdir()
local ms = spark.memoryStream("id INT")
local q = ms:toDF().writeStream:format("json"):option("path", out):option("retention", "1h")
  :option("checkpointLocation", ck):start()
for i = 0, 14 do
  ms:addData{ { i } }
  q:processAllAvailable()
end
T.is(#ids(out), 15, "15 batches, 15 rows read back")
-- age the log entries of batches 0-4 by two hours in 9.compact (the
-- modificationTime the sink logged is what the retention looks at)
local c9 = out .. "/_spark_metadata/9.compact"
local h = assert(io.open(c9))
local text = h:read("a")
h:close()
local old = 0
text = text:gsub("[^\n]+", function(line)
  local b = tonumber(line:match("%-(%d+)%.c000%.json"))
  if b and b < 5 then
    old = old + 1
    return (line:gsub('"modificationTime":(%d+)', function(t) return '"modificationTime":' .. (tonumber(t) - 7200000) end))
  end
end)
h = assert(io.open(c9, "w"))
h:write(text)
h:close()
T.is(old, 5, "the entries of batches 0-4 made two hours older")
for i = 15, 19 do -- batch 19 writes 19.compact
  ms:addData{ { i } }
  q:processAllAvailable()
end
q:stop()
local want = {}
for i = 5, 19 do want[#want + 1] = i end
T.is(ids(out), want, "19.compact leaves out the files older than the retention: rows 5..19 are read")
h = assert(io.open(out .. "/_spark_metadata/19.compact"))
text = h:read("a")
h:close()
local _, lines = text:gsub("\n", "")
T.is(lines, 1 + 15, "19.compact: the version line and 15 entries")

-- the bound: many small batches, a short retention
local N = os.getenv("STREAMLAB_LONG") and 10000 or 1000
local out2 = T.tempdir()
local ms2 = spark.memoryStream("id INT")
local q2 = ms2:toDF().writeStream:format("json"):option("path", out2):option("retention", "50ms")
  :option("checkpointLocation", T.tempdir()):start()
local most = 0
for i = 0, N - 1 do
  ms2:addData{ { i } }
  q2:processAllAvailable()
  if i % 50 == 49 then
    local b = meta_bytes(out2)
    if b > most then most = b end
  end
end
q2:stop()
local bytes, files = meta_bytes(out2)
T.ok(most < 256 * 1024, ("%d batches with retention 50ms: _spark_metadata at most %d bytes (< 256 KB; 1 MB is the target)")
  :format(N, most))
T.diag(("after %d batches with retention 50ms: %d files, %d bytes in _spark_metadata (peak %d)"):format(N, files, bytes, most))
local got = ids(out2)
T.ok(#got >= 1 and got[#got] == N - 1, "the newest rows are read back (" .. #got .. " rows within the retention)")
T.ok(got[1] ~= 0 or N < 100, "the oldest rows have left the log")
T.done()
