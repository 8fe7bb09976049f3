-- tap: a small Test Anything Protocol helper for streamlab's Lua script
-- tests (tests/lua/NNN-*.lua, run by `streamlab run FILE` under prove).
--
--   local T = require("tap")
--   T.is(df:count(), 3, "three rows")
--   T.done()
--
-- T.is compares deeply (tables key by key, so key order never matters) and
-- prints got/want as diagnostics on failure.  T.done() prints the plan (when
-- T.plan was not called) and exits non-zero if anything failed.
-- Output goes to stdout through print, as TAP wants.

local T = {}

local count, failures, planned = 0, 0, nil

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  return keys
end

-- A deterministic one-line rendering for diagnostics.
local function repr(v, depth)
  depth = depth or 0
  local tv = type(v)
  if tv == "string" then return string.format("%q", v) end
  if tv ~= "table" then return tostring(v) end
  local mt = getmetatable(v)
  if mt and mt.__tostring then return tostring(v) end
  if depth > 6 then return "{...}" end
  local parts, n = {}, #v
  for i = 1, n do parts[#parts + 1] = repr(v[i], depth + 1) end
  for _, k in ipairs(sorted_keys(v)) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then
      parts[#parts + 1] = "[" .. repr(k, depth + 1) .. "]=" .. repr(v[k], depth + 1)
    end
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end
T.repr = repr

local function deep_eq(a, b)
  if type(a) == "number" and type(b) == "number" then
    -- 1 and 1.0 are equal to Lua, but a BIGINT column must not come back as
    -- a float (nor a DOUBLE as an integer): compare the subtypes too.
    return a == b and math.type(a) == math.type(b)
  end
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do
    if not deep_eq(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

local function report(pass, name)
  count = count + 1
  if pass then
    print(string.format("ok %d - %s", count, name or ""))
  else
    failures = failures + 1
    print(string.format("not ok %d - %s", count, name or ""))
    local info = debug.getinfo(3, "Sl")
    if info then
      print(string.format("#   Failed test at %s line %d.", info.short_src,
                          info.currentline))
    end
  end
  return pass
end

function T.diag(msg)
  for line in (tostring(msg) .. "\n"):gmatch("(.-)\n") do
    print("# " .. line)
  end
end

function T.plan(n)
  planned = n
  print("1.." .. n)
end

function T.ok(v, name)
  return report(v and true or false, name)
end

function T.is(got, want, name)
  local pass = deep_eq(got, want)
  report(pass, name)
  if not pass then
    T.diag("     got: " .. repr(got))
    T.diag("    want: " .. repr(want))
  end
  return pass
end

function T.isnt(got, want, name)
  local pass = not deep_eq(got, want)
  report(pass, name)
  if not pass then T.diag("     got: " .. repr(got) .. " (should differ)") end
  return pass
end

-- |got - want| <= tol * max(1, |want|)
function T.near(got, want, tol, name)
  local pass = type(got) == "number" and type(want) == "number" and
    math.abs(got - want) <= (tol or 1e-9) * math.max(1, math.abs(want))
  report(pass, name)
  if not pass then
    T.diag("     got: " .. repr(got))
    T.diag("    want: " .. repr(want))
  end
  return pass
end

function T.like(str, pattern, name)
  local pass = type(str) == "string" and str:find(pattern) ~= nil
  report(pass, name)
  if not pass then
    T.diag("     got: " .. repr(str))
    T.diag("    want: match of " .. repr(pattern))
  end
  return pass
end

-- fn must raise an error whose tostring matches the Lua pattern.  Returns
-- the error value (or nil).
function T.errors(fn, pattern, name)
  local ok, err = pcall(fn)
  if ok then
    report(false, name)
    T.diag("    no error was raised")
    return nil
  end
  local text = tostring(err)
  local pass = text:find(pattern) ~= nil
  report(pass, name)
  if not pass then
    T.diag("   error: " .. text)
    T.diag("    want: match of " .. repr(pattern))
  end
  return err
end

-- fn must run without error; returns its results.
function T.lives(fn, name)
  local res = table.pack(pcall(fn))
  report(res[1], name)
  if not res[1] then T.diag("   error: " .. tostring(res[2])) end
  return table.unpack(res, 2, res.n)
end

-- Everything fn prints (through the global print), as one string with a
-- "\n" after each print call.
function T.capture(fn)
  local saved, out = print, {}
  print = function(...)
    local parts = table.pack(...)
    for i = 1, parts.n do parts[i] = tostring(parts[i]) end
    out[#out + 1] = table.concat(parts, "\t", 1, parts.n) .. "\n"
  end
  local ok, err = pcall(fn)
  print = saved
  if not ok then error(err, 0) end
  return table.concat(out)
end

-- The rows of df as plain arrays in schema order (NULL stays nil).
function T.rows(df)
  local cols, out = df.columns, {}
  for i, row in ipairs(df:collect()) do
    local r = {}
    for j, c in ipairs(cols) do r[j] = row[c] end
    out[i] = r
  end
  return out
end

-- Rows (arrays) sorted by their repr, the order sorted_rows gives, so an
-- expected answer can be written in any order: T.sorted{{10}, {2}}.
function T.sorted(rows)
  table.sort(rows, function(a, b) return repr(a) < repr(b) end)
  return rows
end

-- The same, sorted by their repr (for unordered results).
function T.sorted_rows(df)
  return T.sorted(T.rows(df))
end

-- ---- StreamTest-style helpers for streaming tests ----

-- A fresh empty directory under $TMPDIR (or /tmp), removed by T.done().
local tempdirs = {}
function T.tempdir()
  local base = os.tmpname()
  os.remove(base)
  assert(os.execute("mkdir -p '" .. base .. "'"), "cannot create " .. base)
  tempdirs[#tempdirs + 1] = base
  return base
end

-- Write text to dir/name the way a producer must for a file source: into a
-- hidden temporary name first, then rename (sources ignore names starting
-- with '.' or '_', so they never see half a file).  mtime (optional,
-- "2026-01-01 12:00:01") sets the modification time, which orders files.
function T.put(dir, name, text, mtime)
  local tmp = dir .. "/." .. name .. ".tmp"
  local f = assert(io.open(tmp, "w"))
  f:write(text)
  f:close()
  if mtime then
    assert(os.execute("touch -d '" .. mtime .. "' '" .. tmp .. "'"), "touch failed")
  end
  assert(os.rename(tmp, dir .. "/" .. name))
end

-- Names in dir (not starting with '.'), sorted.
function T.ls(dir)
  local names = {}
  local p = io.popen("ls -1 '" .. dir .. "' 2>/dev/null")
  for line in p:lines() do names[#names + 1] = line end
  p:close()
  table.sort(names)
  return names
end

-- Run fn(df, batchId)-style checks of each micro-batch: returns a function
-- for foreachBatch and a table holding every batch's sorted rows by id.
function T.batches()
  local seen = {}
  return function(df, id) seen[#seen + 1] = {id = id, rows = T.sorted_rows(df)} end, seen
end

function T.done()
  for _, d in ipairs(tempdirs) do os.execute("rm -rf '" .. d .. "'") end
  if planned == nil then
    print("1.." .. count)
  elseif planned ~= count then
    T.diag(string.format("planned %d tests but ran %d", planned, count))
    failures = failures + 1
  end
  if failures > 0 then
    T.diag(string.format("failed %d of %d tests", failures, count))
  end
  os.exit(failures == 0 and 0 or 1)
end

return T
