-- lesson: the helper every lesson is written with (lessons/NN-name.lua).
--
--   local L = require("lesson")
--   local say, code, pause, expect, view, exercise =
--     L.begin(1, "A stream is a table that keeps growing")
--   say [[ text the learner reads ]]
--   code [[ lua the learner sees, then runs (in _G, as if typed) ]]
--   pause()                        -- wait for a key (workbench) or Enter
--   expect("name", got, want)      -- the checkable answer
--   view("scatter")                -- ask the workbench for a view
--   L.focus(q)                     -- keep the panes on q (nothing headless)
--   exercise("question?", function() ... expect(...) end)
--
-- Modes (package.loaded["streamlab.lessonmode"], set by `streamlab lesson`):
--   "check"  headless: say/code/pause print nothing, code still runs,
--            expect prints TAP ("ok 3 - name" / "not ok ..." with got and
--            want); L.finish() raises an error naming the failed checks, so
--            `streamlab lesson N --check` exits non-zero on a mismatch.
--   "screen" the workbench: output goes to the Output pane, pause() waits
--            for a key through the screen (q stops the lesson), view()
--            switches the screen's view.
--   "plain"  (also `streamlab run lessons/NN-*.lua`): everything printed,
--            pause() waits for Enter on stdin (end of input: no wait).
--
-- Leaving: at the end, or when q is pressed at a pause (pause() raises
-- L.STOP, which the chunk that runs the lesson catches and hands to
-- L.stopped()), the lesson says so in one line, and its queries and
-- variables stay for the teacher:
--   L.leave_hint("try :crash after-sink, :step, :restart")
-- sets what that line suggests.  In the workbench every query started
-- from begin() on is kept in package.loaded["streamlab.workbench"].queries
-- by id, so :step, :crash and :restart act on a lesson's query after the
-- lesson ended (or after the query stopped).
--
-- code(chunk, {fails = "pattern"}) shows a chunk that is meant to fail: the
-- error must match the pattern (a check), and is shown as the learner sees
-- it.  Any other error in a chunk stops the lesson (and fails --check).
local M = {}

local mode = package.loaded["streamlab.lessonmode"] or "plain"
local checks, failures, failed_names = 0, 0, {}
local step, lesson_name = 0, "lesson"
local hint = "try :queries, :focus N, :step"

-- What pause() raises when the learner presses q: not an error.
M.STOP = setmetatable({}, {__tostring = function() return "lesson stopped" end})

local function workbench()
  local W = package.loaded["streamlab.workbench"]
  if mode == "screen" and type(W) == "table" then return W end
  return nil
end

local function out(s)
  if mode ~= "check" then print(s) end
end

-- ---- values: a deterministic rendering and a deep comparison ----

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
M.repr = repr

-- Numbers compare by value (3 == 3.0): an answer is a count, not a type.
local function same(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do
    if not same(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end
M.same = same

-- ---- rows: what the lessons compare ----

-- The rows of a (batch) DataFrame as arrays in column order, sorted by
-- their rendering, so an answer can be written in any order.
function M.rows(df)
  local cols, rows = df.columns, {}
  for i, row in ipairs(df:collect()) do
    local r = {}
    for j, c in ipairs(cols) do r[j] = row[c] end
    rows[i] = r
  end
  return M.sorted(rows)
end

function M.sorted(rows)
  table.sort(rows, function(a, b) return repr(a) < repr(b) end)
  return rows
end

-- The rows of a memory sink's table (spark.table(name)), sorted.
function M.table(name)
  return M.rows(spark.table(name))
end

-- The oracle: compare what a sink holds with what it should hold.
-- expected and got are arrays of record keys (strings or numbers); returns
-- {expected=, got=, duplicates=, missing=, extra=} and the one-line verdict
-- "expected N rows, got N, duplicates 0, missing 0".
function M.oracle(expected, got)
  local want, seen = {}, {}
  for _, k in ipairs(expected) do want[k] = true end
  local r = {expected = #expected, got = #got, duplicates = 0, missing = 0, extra = 0}
  for _, k in ipairs(got) do
    if seen[k] then r.duplicates = r.duplicates + 1
    elseif not want[k] then r.extra = r.extra + 1 end
    seen[k] = true
  end
  for _, k in ipairs(expected) do
    if not seen[k] then r.missing = r.missing + 1 end
  end
  local line = string.format("expected %d rows, got %d, duplicates %d, missing %d",
    r.expected, r.got, r.duplicates, r.missing)
  if r.extra > 0 then line = line .. string.format(", unexpected %d", r.extra) end
  return r, line
end

-- ---- the narrative ----

-- Strip the first newline of a [[ ]] block and the trailing blanks.
local function trim(text)
  text = tostring(text):gsub("^\n", "")
  return (text:gsub("%s+$", ""))
end

function M.say(text)
  text = trim(text)
  out(text)
  out("")
end

-- Show the chunk (indented, with a '|' rail so it stands out from output),
-- then run it in _G, as if the learner had typed it at the prompt.
function M.code(chunk, opts)
  opts = opts or {}
  chunk = trim(chunk)
  step = step + 1
  local lines = {}
  for line in (chunk .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = "  | " .. line end
  out(table.concat(lines, "\n"))
  local name = "=" .. lesson_name .. " step " .. step
  local fn, cerr = load(chunk, name, "t", _G)
  if not fn then error(cerr, 0) end
  local res = table.pack(pcall(fn))
  if opts.fails then
    if res[1] then
      M.expect("step " .. step .. " fails", "no error", "an error matching " .. opts.fails)
      out("")
      return nil
    end
    local text = tostring(res[2])
    out("  error: " .. text)
    M.expect("step " .. step .. " fails as it should",
      text:find(opts.fails, 1, opts.plain) ~= nil, true)
    out("")
    return res[2]
  end
  if not res[1] then
    error(tostring(res[2]), 0)
  end
  out("")
  return table.unpack(res, 2, res.n)
end

function M.pause(msg)
  if mode == "check" then return end
  local W = workbench()
  if W and W.waitkey then
    local k
    repeat
      k = W.waitkey(msg or "-- a key goes on, PgUp/PgDn scroll the output, q stops the lesson --")
    until k
    if k == "q" then error(M.STOP, 0) end
    return
  end
  io.write(msg or "-- press Enter to go on --")
  io.flush()
  local line = io.read("L")
  if line == nil then io.write("\n") end
end

function M.view(name)
  local W = workbench()
  if W and W.view then W.view(name) end
end

-- Rewind the workbench's panes to batch n of the focused query (the
-- workbench's :rewind n): what they showed after it, rebuilt from its
-- checkpoint; L.live() returns.  Elsewhere a line says what :rewind shows.
function M.rewind(n)
  local W = workbench()
  if W and W.rewind then
    local ok, err = W.rewind(n)
    if not ok then error(err, 2) end
  elseif mode ~= "check" then
    print(string.format("(in the workbench the panes now show batch %d: :rewind %d)", n, n))
  end
end

function M.live()
  local W = workbench()
  if W and W.live then W.live() end
end

-- Keep the panes on query q (a handle, or its name) while other queries
-- run (the workbench's :focus); L.focus() goes back to the newest active.
local pinned   -- the id of the query L.focus kept the panes on, or nil
function M.focus(q)
  local W = workbench()
  pinned = type(q) == "userdata" and q.id or nil
  if W and W.focus then
    if type(q) == "string" or q == nil then return W.focus(q) end
    return W.focus(q.id)
  end
end

-- Leaving: the panes stay on the pinned query only while it runs (lesson
-- 8's, for the live crash demo); otherwise they follow the newest active
-- query again, the learner's next one included.
local function release_focus()
  if pinned == nil then return end
  -- by id: a restart (same id, a new run) keeps it running
  if spark.streams:get(pinned) == nil then M.focus() end
end

function M.expect(name, got, want)
  checks = checks + 1
  local pass = same(got, want)
  if mode == "check" then
    print(string.format("%s %d - %s", pass and "ok" or "not ok", checks, name))
    if not pass then
      print("#      got: " .. repr(got))
      print("#     want: " .. repr(want))
    end
  elseif pass then
    print(string.format("  [check %s: %s  ok]", name, repr(got)))
  else
    print(string.format("  [check %s: MISMATCH\n     got: %s\n    want: %s]",
      name, repr(got), repr(want)))
  end
  if not pass then
    failures = failures + 1
    failed_names[#failed_names + 1] = name
  end
  return pass
end

function M.exercise(question, answer_fn)
  M.say("Exercise: " .. trim(question))
  M.pause(workbench() and "-- think, then a key shows the answer (PgUp scrolls back, q stops) --"
    or "-- think (or try it at the prompt later), then press Enter for the answer --")
  out("Answer:")
  answer_fn()
  out("")
end

-- ---- start and end ----

-- The workbench's table of query handles by id (cmd.c's :step, :crash and
-- :restart look there): every query that starts goes in, so a lesson's
-- query is found after it stopped, crashed or the lesson ended.  One
-- listener per session.
local function track_queries()
  local W = workbench()
  if W == nil or W.lesson_listener then return end
  W.queries = W.queries or {}
  W.lesson_listener = {
    onQueryStarted = function(e)
      local q = spark.streams:get(e.id)
      if q then W.queries[e.id] = q end
    end,
  }
  spark.streams:addListener(W.lesson_listener)
end

-- Start lesson n: stops queries left running by an earlier lesson in the
-- same session, prints the title, and returns the narrative functions.
function M.begin(n, title)
  lesson_name = string.format("lesson %02d", n)
  checks, failures, failed_names, step = 0, 0, {}, 0
  hint = "try :queries, :focus N, :step"
  for _, q in ipairs(spark.streams.active) do q:stop() end
  track_queries()
  M.focus()
  out(string.format("== Lesson %d: %s ==", n, title))
  out("")
  return M.say, M.code, M.pause, M.expect, M.view, M.exercise
end

-- The end: in check mode a summary line, and an error when a check failed.
function M.finish()
  if mode == "check" then
    print("1.." .. checks)
    if failures > 0 then
      error(string.format("%s: %d of %d checks failed: %s", lesson_name, failures,
        checks, table.concat(failed_names, "; ")), 0)
    end
    if checks == 0 then error(lesson_name .. ": no checks ran", 0) end
  else
    out(string.format("== end of %s (%d checks, %d mismatches) ==", lesson_name,
      checks, failures))
    out(string.format("%s ended; its queries and variables stay: %s", lesson_name, hint))
    release_focus()
  end
end

-- What the teacher can try once the lesson is left (the line printed at
-- the end and on q).
function M.leave_hint(text) hint = text end

-- q at a pause: one plain line, no error.
function M.stopped()
  out(string.format("%s stopped at step %d; its queries and variables stay: %s",
    lesson_name, step, hint))
  release_focus()
end

function M.mode() return mode end

return M
