-- A file sink's _spark_metadata entry that names a file outside the sink
-- directory is refused when reading, naming the entry (issue 16 finding
-- 13: an entry "file:///etc/passwd" came back from spark.read).  Spark
-- trusts its log; streamlab reads only what the sink could have written.
local T = require("tap")

local dir = T.tempdir()
local function log(id, ...)
  os.execute("mkdir -p '" .. dir .. "/_spark_metadata'")
  local h = assert(io.open(dir .. "/_spark_metadata/" .. id, "w"))
  h:write("v1\n")
  for _, p in ipairs{...} do
    h:write(string.format('{"path":"%s","size":1,"isDir":false,"modificationTime":0,"blockReplication":1,"blockSize":1,"action":"add"}\n', p))
  end
  h:close()
end
local function part(name, text)
  local h = assert(io.open(dir .. "/" .. name, "w")); h:write(text); h:close()
end

part("part-0.txt", "inside\n")
log(0, "file://" .. dir .. "/part-0.txt")
T.is(#spark.read:text(dir):collect(), 1, "an entry inside the sink directory reads")

log(1, "file:///etc/passwd")
T.errors(function() return spark.read:text(dir):collect() end,
  "_spark_metadata/1: entry '/etc/passwd' is outside the sink directory", "an absolute path outside is refused, named")
os.remove(dir .. "/_spark_metadata/1")

log(1, "file://" .. dir .. "/../passwd")
T.errors(function() return spark.read:text(dir):collect() end,
  "entry '.*/%.%./passwd' is outside the sink directory", "a '..' that leaves the directory is refused")
os.remove(dir .. "/_spark_metadata/1")

log(1, "part-0.txt")
T.is(#spark.read:text(dir):collect(), 1, "a relative entry resolves inside the directory (the last word per file)")
T.done()
