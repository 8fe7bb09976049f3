-- crashcase: the in-process crash/restart scenario shared by
-- tests/lua/401..404 (RELIABILITY.md 3.2, 3.3; lessons/08).
--
-- The query: json files dropped one at a time into a directory, a 10-minute
-- tumbling count per word with a 10-minute watermark, append mode, into one
-- of three sinks: the json file sink, the memory sink, or foreachBatch.
-- The manual clock moves one second before each file; every file is followed by
-- q:step() until no batch runs, so the batch boundaries (a data batch per
-- file, then a no-data batch when the watermark moved) are a function of
-- the input and two runs can be compared batch by batch.
--
--   local C = require("crashcase")
--   local ref = C.run{sink = "file"}                         -- no crash
--   local got = C.run{sink = "file", point = "after-sink", batch = 5}
--
-- A run returns what the checks need: the sink's rows (sorted), the final
-- watermark, the checkpoint table of the finished query, the crash it saw
-- (message, the dead query's checkpoint table, ids), stray temp files, the
-- part files per batch (file sink) and the foreachBatch calls.
local T = require("tap")

local C = {}

C.POINTS = {"after-offsets", "mid-state", "after-state", "mid-sink",
            "after-sink", "before-commit", "mid-commit", "after-commit"}

-- Batch 0: file 1; 1: no-data (watermark 11:52); 2: file 2; 3: no-data;
-- 4: file 3 (a data batch: 12:03 still joins the open 12:00 window);
-- 5: no-data batch that closes [12:00, 12:10) and writes rows; ...
-- the last file (14:00) pushes the watermark past every other window.
C.FILES = {
  '{"word":"a","t":"2026-01-01 12:01:00"}\n{"word":"b","t":"2026-01-01 12:02:00"}\n',
  '{"word":"a","t":"2026-01-01 12:07:00"}\n{"word":"a","t":"2026-01-01 12:12:00"}\n',
  '{"word":"b","t":"2026-01-01 12:25:00"}\n{"word":"a","t":"2026-01-01 12:03:00"}\n',
  '{"word":"c","t":"2026-01-01 12:31:00"}\n{"word":"b","t":"2026-01-01 12:24:00"}\n',
  '{"word":"c","t":"2026-01-01 12:33:00"}\n{"word":"a","t":"2026-01-01 12:41:00"}\n',
  '{"word":"z","t":"2026-01-01 14:00:00"}\n',
}

-- Files under dir (recursively) named like a temp file: ".*.tmp".
function C.stray_temps(dir)
  local found = {}
  local p = io.popen("find '" .. dir .. "' -name '.*.tmp' 2>/dev/null")
  for line in p:lines() do found[#found + 1] = line end
  p:close()
  table.sort(found)
  return found
end

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- The rows of batch N's part files (file sink), as sorted lines.
function C.part_lines(dir)
  local per = {}
  for _, name in ipairs(T.ls(dir)) do
    local n = name:match("^part%-.*%-(%d+)%.c000%.json$")
    if n then
      local lines = per[tonumber(n)] or {}
      for line in (slurp(dir .. "/" .. name) or ""):gmatch("[^\n]+") do
        lines[#lines + 1] = line
      end
      table.sort(lines)
      per[tonumber(n)] = lines
    end
  end
  return per
end

local counter = 0

local function query(sink, ctx)
  local df = spark.readStream:format("json"):schema("word STRING, t TIMESTAMP"):load(ctx.src)
    :withWatermark("t", "10 minutes")
    :groupBy(F.window("t", "10 minutes"), "word"):count()
    :select(F.col("window"):getField("start"):cast("string"):alias("start"), "word", "count")
  local w = df.writeStream:outputMode("append"):option("checkpointLocation", ctx.ck)
  if sink == "file" then
    return w:format("json"):start(ctx.out)
  elseif sink == "memory" then
    return w:format("memory"):queryName(ctx.name):start()
  end
  return w:foreachBatch(function(d, id)
    local rows = T.sorted(T.rows(d))
    ctx.calls[#ctx.calls + 1] = {id = id, rows = rows, run = ctx.runs}
  end):start()
end

local function rows_of(sink, ctx)
  if sink == "file" then
    return T.sorted_rows(spark.read:schema("start STRING, word STRING, count BIGINT"):json(ctx.out))
  elseif sink == "memory" then
    return T.sorted_rows(spark.table(ctx.name))
  end
  -- foreachBatch: the last call per batch id wins (what an idempotent
  -- writer keyed by batch id keeps)
  local last, rows = {}, {}
  for _, c in ipairs(ctx.calls) do last[c.id] = c.rows end
  for _, rs in pairs(last) do
    for _, r in ipairs(rs) do rows[#rows + 1] = r end
  end
  return T.sorted(rows)
end

-- The crash: one pcall'd step failed with the simulated crash.
local function on_crash(ctx, q, msg, opts)
  local crash = {message = msg, isActive = q.isActive, id = q.id, runId = q.runId,
                 exception = q.exception}
  crash.batch = tonumber(tostring(msg):match("simulated crash at '[%w-]+' in batch (%d+)"))
  local okc, ck = pcall(q.checkpoint, q)
  crash.checkpoint = okc and ck or nil
  crash.checkpoint_error = not okc and tostring(ck) or nil
  crash.sink_after = opts.sink == "file" and C.part_lines(ctx.out) or nil
  local okr, n = pcall(q.restart, q)
  if not okr then error("restart after the crash failed: " .. tostring(n), 0) end
  crash.newId, crash.newRunId = n.id, n.runId
  crash.oldRunIdAfter, crash.oldActiveAfter = q.runId, q.isActive
  ctx.runs = ctx.runs + 1
  return crash, n
end

-- opts: sink ("file"|"memory"|"foreach"), point, batch (arm before the
-- step that would run this batch id), again (arm the same point once more
-- right after the restart: a crash during recovery).
function C.run(opts)
  counter = counter + 1
  local ctx = {src = T.tempdir(), out = T.tempdir(), ck = T.tempdir() .. "/ck",
               name = "crashcase" .. counter, calls = {}, runs = 1}
  local res = {crashes = {}, ctx = ctx}
  spark.clock:manual("2026-01-01 12:00:00")
  local q = query(opts.sink, ctx)
  local nextid, armed, again = 0, false, opts.again
  for i, text in ipairs(C.FILES) do
    -- the clock first: advance() runs the triggers that became due, and
    -- the batches must run from the steps below
    spark.clock:advance("1 second")
    T.put(ctx.src, string.format("%02d.json", i), text, string.format("2026-01-01 11:00:%02d", i))
    local guard = 0
    while true do
      guard = guard + 1
      assert(guard < 50, "too many steps after file " .. i)
      if opts.point and not armed and nextid == opts.batch then
        q:crash(opts.point)
        armed = true
      end
      local ok, ran = pcall(q.step, q)
      if not ok then
        if not tostring(ran):match("simulated crash") then
          error("step failed: " .. tostring(ran), 0)
        end
        local crash
        crash, q = on_crash(ctx, q, tostring(ran), opts)
        res.crashes[#res.crashes + 1] = crash
        if again then
          q:crash(opts.point)
          again = nil
        end
      elseif not ran then
        break
      else
        local p = q.lastProgress
        if #res.crashes > 0 and res.first_after == nil then res.first_after = p.batchId end
        nextid = p.batchId + 1
      end
    end
  end
  res.watermark = q.lastProgress and q.lastProgress.eventTime.watermark
  res.checkpoint = q:checkpoint()
  res.location = q.checkpointLocation
  res.rows = rows_of(opts.sink, ctx)
  res.id = q.id
  res.progress = q.recentProgress
  q:stop()
  res.temps = C.stray_temps(ctx.ck)
  if opts.sink == "file" then
    for _, f in ipairs(C.stray_temps(ctx.out)) do res.temps[#res.temps + 1] = f end
    res.parts = C.part_lines(ctx.out)
  end
  res.calls = ctx.calls
  return res
end

-- (start, word) pairs that occur more than once.
function C.duplicates(rows)
  local seen, dup = {}, {}
  for _, r in ipairs(rows) do
    local k = T.repr(r[1]) .. "|" .. T.repr(r[2])
    if seen[k] then dup[#dup + 1] = k end
    seen[k] = true
  end
  return dup
end

-- The checkpoint table without what differs between two runs (location,
-- query id), for comparing a crashed run with the uncrashed one.
function C.comparable(ck)
  if type(ck) ~= "table" or type(ck.batches) ~= "table" then return ck end
  local out = {}
  for i, b in ipairs(ck.batches) do
    out[i] = {batchId = b.batchId, offsets = b.offsets, watermarkMs = b.watermarkMs,
              timestampMs = b.timestampMs, stateVersion = b.stateVersion,
              sinkLog = b.sinkLog, committed = b.committed}
  end
  return out
end

-- Checks shared by every sink: the crash happened where armed, the old
-- handle is a dead query, the restarted one keeps the id, and after the
-- drain the output, watermark and checkpoint equal the uncrashed run's.
function C.check_common(tag, ref, got, point, batch)
  local c = got.crashes[1]
  if not T.ok(c ~= nil, tag .. "the armed crash happened") then return end
  T.like(c.message, "simulated crash at '" .. point:gsub("%-", "%%-") .. "' in batch %d+",
    tag .. "the step fails with the simulated crash")
  T.is(c.batch, batch, tag .. "in the armed batch " .. batch)
  T.is(c.isActive, false, tag .. "the crashed query is not active")
  T.is(c.newId, c.id, tag .. "restart keeps the query id")
  T.ok(c.newRunId ~= nil and c.newRunId ~= c.runId, tag .. "restart gives a new runId")
  T.is(c.oldRunIdAfter, c.runId, tag .. "the old handle keeps its runId")
  T.is(c.oldActiveAfter, false, tag .. "the old handle stays a dead query")
  local committed = point == "after-commit"
  local last = c.checkpoint and c.checkpoint.batches and c.checkpoint.batches[#c.checkpoint.batches]
  T.ok(last ~= nil, tag .. "the dead query's q:checkpoint() lists batches" ..
    (c.checkpoint_error and (" (" .. c.checkpoint_error .. ")") or ""))
  if last then
    T.is({last.batchId, last.committed}, {batch, committed},
      tag .. "the dead checkpoint ends with batch " .. batch .. (committed and " committed" or " uncommitted"))
  end
  T.is(got.first_after, committed and batch + 1 or batch,
    tag .. (committed and "the restarted query goes on with the next batch"
      or "the restarted query re-runs the crashed batch first"))
  T.is(got.rows, ref.rows, tag .. "the sink holds the uncrashed run's rows")
  T.is(C.duplicates(got.rows), {}, tag .. "no (window, word) written twice")
  T.is(got.watermark, ref.watermark, tag .. "the final watermark is the uncrashed run's")
  T.is(C.comparable(got.checkpoint), C.comparable(ref.checkpoint),
    tag .. "checkpoint log: same offsets, watermarks, timestamps, state versions, all committed")
  T.is(got.temps, {}, tag .. "no stray temp files in the checkpoint or sink directory")
end

return C
