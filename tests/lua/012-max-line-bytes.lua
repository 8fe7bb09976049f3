-- maxLineBytes (issue 16 finding 7; streamlab's cap, Spark has none): a
-- line longer than the cap is malformed with reason too_long in json, csv
-- and text: PERMISSIVE gives nulls (json/csv: the first maxLineBytes bytes
-- as _corrupt_record), DROPMALFORMED drops it, FAILFAST names file and line;
-- reading goes on at the next newline.  The option must be a positive
-- integer.  The socket source under a 50 MB line keeps its RSS bounded.
local T = require("tap")

local dir = T.tempdir()
local function put(name, text)
  local f = assert(io.open(dir .. "/" .. name, "w"))
  f:write(text)
  f:close()
  return dir .. "/" .. name
end
local long = string.rep("y", 3 * 1048576) -- over the 1 MiB default
local js = put("a.json", '{"a":1}\n{"a":2,"b":"' .. long .. '"}\n{"a":3}\n')
local cs = put("a.csv", "1,x\n2," .. long .. "\n3,z\n")
local tx = put("a.txt", "ab\n" .. long .. "\ncd\n")
local withc = "a INT, b STRING, _corrupt_record STRING"

local function rd(fmt, path, mode, schema, extra)
  local r = spark.read:format(fmt):option("mode", mode)
  if schema then r = r:schema(schema) end
  for k, v in pairs(extra or {}) do r = r:option(k, v) end
  return r:load(path)
end

for _, f in ipairs({ { "json", js }, { "csv", cs } }) do
  local fmt, path = f[1], f[2]
  for _, fast in ipairs({ "true", "false" }) do
    local tag = fmt .. " (fastPath " .. fast .. ")"
    local rows = rd(fmt, path, "PERMISSIVE", withc, { fastPath = fast }):collect()
    T.is(#rows, 3, tag .. " PERMISSIVE keeps a row for the long line")
    T.is(rows[1].a, 1, tag .. " row before it")
    T.is(rows[2].a, nil, tag .. " the long line's a is null")
    T.is(rows[2].b, nil, tag .. " the long line's b is null")
    T.is(#rows[2]._corrupt_record, 1048576, tag .. " corrupt record: the first 1 MiB")
    T.is(rows[2]._corrupt_record:sub(1, 2), fmt == "json" and '{"' or "2,", tag .. " from the line's start")
    T.is(rows[3].a, 3, tag .. " the reader goes on at the next newline")
    rows = rd(fmt, path, "DROPMALFORMED", withc, { fastPath = fast }):collect()
    T.is(#rows, 2, tag .. " DROPMALFORMED drops it")
    T.is(rows[2].a, 3, tag .. " and keeps the next line")
    T.errors(function() rd(fmt, path, "FAILFAST", withc, { fastPath = fast }):collect() end,
      fmt .. ": malformed record at [^:]*a%." .. fmt .. ":2: line longer than maxLineBytes %(1048576%)",
      tag .. " FAILFAST names file and line")
  end
  local rows = rd(fmt, path, "PERMISSIVE", withc, { maxLineBytes = 4 * 1048576 }):collect()
  T.is(rows[2].a, 2, fmt .. ": a larger maxLineBytes takes the line")
  T.is(#rows[2].b, 3 * 1048576, fmt .. ": whole value")
end

local rows = rd("text", tx, "PERMISSIVE"):collect()
T.is(#rows, 3, "text PERMISSIVE: three rows")
T.is(rows[2].value, nil, "text PERMISSIVE: the long line is null")
T.is(rows[3].value, "cd", "text: goes on at the next newline")
rows = rd("text", tx, "DROPMALFORMED"):collect()
T.is(#rows, 2, "text DROPMALFORMED drops it")
T.errors(function() rd("text", tx, "FAILFAST"):collect() end,
  "text: malformed record at [^:]*a%.txt:2: line longer than maxLineBytes %(1048576%)",
  "text FAILFAST")
rows = rd("text", tx, "PERMISSIVE", nil, { maxLineBytes = 2 }):collect()
T.is(#rows, 3, "text: maxLineBytes 2")
T.is(rows[1].value, "ab", "text: two bytes fit")

for _, fmt in ipairs({ "json", "csv", "text" }) do
  for _, v in ipairs({ "0", "-1", "abc", "1.5" }) do
    T.errors(function()
      rd(fmt, fmt == "json" and js or fmt == "csv" and cs or tx, "PERMISSIVE",
        fmt ~= "text" and "a INT" or nil, { maxLineBytes = v }):collect()
    end, "option 'maxLineBytes': expected a positive integer %(at most 4294967295%), got '" .. v:gsub("%p", "%%%0") .. "'",
      fmt .. ": maxLineBytes " .. v .. " refused")
  end
end
T.errors(function()
  spark.readStream:format("socket"):options{ host = "localhost", port = 9999, maxLineBytes = "x" }:load()
end, "option 'maxLineBytes': expected a positive integer", "socket: maxLineBytes checked at load")

-- The socket source and a 50 MB line from a python3 writer (skipped
-- without python3): the engine's RSS stays far below the line's size.
local function rss_kb()
  local f = io.open("/proc/self/status")
  local kb
  for l in f:lines() do kb = kb or tonumber(l:match("^VmRSS:%s*(%d+)")) end
  f:close()
  return kb
end
local py = [[
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
c.sendall(b"before\n")
chunk = b"y" * 65536
for i in range(800):
    c.sendall(chunk)
c.sendall(b"\nafter\n")
c.close()
]]
if os.execute("command -v python3 >/dev/null 2>&1") then
  local pyf = put("w.py", py)
  local srv = assert(io.popen("python3 " .. pyf))
  local port = srv:read("l")
  local got = {}
  local df = spark.readStream:format("socket"):options{ host = "127.0.0.1", port = port }:load()
  local q = df.writeStream:foreachBatch(function(d)
    for _, r in ipairs(d:collect()) do got[#got + 1] = r.value == nil and "<null>" or r.value end
  end):start()
  local before, peak, t0 = rss_kb(), 0, os.time()
  while #got < 3 and os.time() - t0 < 120 do
    q:processAllAvailable()
    local r = rss_kb()
    if r > peak then peak = r end
    os.execute("sleep 0.02")
  end
  q:stop()
  srv:close()
  T.is(table.concat(got, ","), "before,<null>,after", "socket: the 50 MB line reads as one null value")
  T.ok(peak - before < 20 * 1024, ("socket: RSS grew %d kB (the line is 51200 kB)"):format(peak - before))
  local br = q:badRecords()
  T.is(#br == 1 and { br[1].reason, br[1].file, br[1].line } or br,
    { "too_long", "socket 127.0.0.1:" .. port, 2 }, "socket: the long line is a too_long bad record (line 2)")
else
  T.diag("no python3: socket part skipped")
end

T.done()
