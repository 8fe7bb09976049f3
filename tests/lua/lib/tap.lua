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

-- T.is on the result of fn(), where fn may raise: an error is a failed
-- test (with the error as a diagnostic), not the end of the script.
function T.check(fn, want, name)
  local ok, got = pcall(fn)
  if not ok then
    report(false, name)
    T.diag("   error: " .. tostring(got))
    T.diag("    want: " .. repr(want))
    return false
  end
  local pass = deep_eq(got, want)
  report(pass, name)
  if not pass then
    T.diag("     got: " .. repr(got))
    T.diag("    want: " .. repr(want))
  end
  return pass
end

-- ---- StreamTest-style runners for the event-time tests (2NN) ----

local function copy_rows(rows)
  local out = {}
  for i, r in ipairs(rows) do out[i] = r end
  return out
end

-- Start df.writeStream with a foreachBatch that keeps every row the sink
-- takes.  opts: mode ("append"), trigger (a table for :trigger), name.
-- Returns s with s.q (the query), s:new() (sorted rows emitted since the
-- last s:new(), Spark's CheckNewAnswer), s:last() (sorted rows of the last
-- batch, CheckLastBatch), s.batches ({id=, rows=} per batch, in order).
function T.stream(df, opts)
  opts = opts or {}
  local s = {batches = {}, pending = {}}
  local w = df.writeStream:outputMode(opts.mode or "append")
  if opts.trigger then w = w:trigger(opts.trigger) end
  if opts.name then w = w:queryName(opts.name) end
  w = w:foreachBatch(function(d, id)
    local rows = T.rows(d)
    s.batches[#s.batches + 1] = {id = id, rows = T.sorted(copy_rows(rows))}
    for _, r in ipairs(rows) do s.pending[#s.pending + 1] = r end
  end)
  s.q = w:start()
  function s:new()
    local r = T.sorted(self.pending)
    self.pending = {}
    return r
  end
  function s:last()
    local b = self.batches[#self.batches]
    return b and copy_rows(b.rows) or {}
  end
  -- AddData + processAllAvailable: add each block to its stream, then run
  -- everything due (data and no-data batches).
  function s:add(ms, ...)
    for _, block in ipairs{...} do ms:addData(block) end
    self.q:processAllAvailable()
    return self
  end
  return s
end

-- The last progress that read input (Spark's tests skip no-data batches:
-- "recentProgress.filter(_.numInputRows > 0).lastOption").
function T.progress_with_data(q)
  local rp, found = q.recentProgress, nil
  for _, p in ipairs(rp) do
    if (p.numInputRows or 0) > 0 then found = p end
  end
  return found
end

-- The progresses of the batches that ran: recentProgress without the idle
-- ones a trigger with nothing to do reports every
-- noDataProgressEventInterval (their durationMs has no addBatch).
function T.ran(q)
  local out = {}
  for _, p in ipairs(q.recentProgress) do
    if p.durationMs and p.durationMs.addBatch ~= nil then out[#out + 1] = p end
  end
  return out
end

-- StateStoreMetricsTest.assertNumStateRows: numRowsTotal of the last
-- progress; numRowsUpdated, numRowsDroppedByWatermark and numRowsRemoved
-- summed over the progresses since the previous check.  Spark's test reads
-- recentProgress.last after processAllAvailable, so a no-data batch that
-- ran is the one whose total counts, here too (where a Spark suite's
-- total looks like the data batch's, look at its watermark: Spark's
-- optimizer may have kept rows out of it, plan/plan_pushdown.c).  Returns a function
-- giving {total=, updated=, dropped=, removed=} (numbers for one stateful
-- operator, arrays in plan order for several).
function T.state_rows(q)
  local seen = -1
  return function()
    local rp = q.recentProgress
    local lastp = rp[#rp]
    if not lastp then return nil end
    local ops = lastp.stateOperators or {}
    local r = {total = {}, updated = {}, dropped = {}, removed = {}}
    for i, so in ipairs(ops) do
      r.total[i] = so.numRowsTotal
      r.updated[i], r.dropped[i], r.removed[i] = 0, 0, 0
    end
    for _, p in ipairs(rp) do
      if p.batchId > seen then
        for i, so in ipairs(p.stateOperators or {}) do
          if r.updated[i] then
            r.updated[i] = r.updated[i] + (so.numRowsUpdated or 0)
            r.dropped[i] = r.dropped[i] + (so.numRowsDroppedByWatermark or 0)
            r.removed[i] = r.removed[i] + (so.numRowsRemoved or 0)
          end
        end
      end
    end
    seen = lastp.batchId
    if #ops == 1 then
      return {total = r.total[1], updated = r.updated[1],
              dropped = r.dropped[1], removed = r.removed[1]}
    end
    return r
  end
end

-- Spark's watermark text for a number of seconds since the epoch, as the
-- progress prints it: 5 -> "1970-01-01T00:00:05.000Z".
function T.iso(sec)
  return os.date("!%Y-%m-%dT%H:%M:%S", sec) .. ".000Z"
end

-- Run body(conf_value) once per value of a boolean conf, restoring it.
function T.each_conf(key, values, body)
  local saved = spark.conf:get(key)
  for _, v in ipairs(values) do
    spark.conf:set(key, v)
    body(v)
  end
  spark.conf:set(key, saved)
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
