-- A stray name in the file source's log (CHK/sources/0/) is refused by
-- name at restart, before anything is sized by it (issue 16 finding 4: a
-- name of 20 digits made groups_reserve double a capacity past INT64_MAX
-- and spin forever; 100000000 allocated 2.1 GB).  The log's ids are 0..n-1
-- (one entry per batch that took files, none deleted), so an id at or past
-- the entry count cannot be the engine's own.  Removing the stray file
-- lets the query restart where it was.
local T = require("tap")

local root = T.tempdir()
os.execute("mkdir -p '" .. root .. "/in'")
local function drop(name, x)
  local h = assert(io.open(root .. "/in/" .. name, "w"))
  h:write(string.format('{"x":%d}\n', x)); h:close()
end
spark.clock:manual("2026-01-01 00:00:00")
local function start()
  return spark.readStream:schema("x INT"):json(root .. "/in")
    .writeStream:format("memory"):queryName("xs")
    :option("checkpointLocation", root .. "/ck"):start()
end
drop("a.json", 1)
local q = start(); q:processAllAvailable(); q:stop()

for _, name in ipairs{"99999999999999999999", "100000000", "7x"} do
  local f = assert(io.open(root .. "/ck/sources/0/" .. name, "w")); f:write("v1\n"); f:close()
  local t0 = os.clock()
  local ok, e = pcall(start)
  if name == "7x" then
    -- not a log name at all: ignored, as before
    T.ok(ok, "a name that is not a number is not an entry: " .. tostring(e))
    if ok then e:stop() end
  else
    T.ok(not ok, "stray entry " .. name .. " refused")
    T.like(tostring(e), "file source log '.*/sources/0/" .. name .. "': not an entry id %(the log has 2 files, so its ids run 0..1%)",
      "the error names the file and the log's size")
  end
  T.ok(os.clock() - t0 < 2, "refused at once, no allocation or spin (" .. name .. ")")
  os.remove(root .. "/ck/sources/0/" .. name)
end

drop("b.json", 2)
q = start(); q:processAllAvailable()
local xs = {}
for _, r in ipairs(spark.table("xs"):collect()) do xs[#xs + 1] = r.x end
table.sort(xs)
T.is(xs, {2}, "after removing the stray file the query restarts and reads only the new file")
q:stop()
T.done()
