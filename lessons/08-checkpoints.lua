-- Lesson 8: checkpoints, offsets, commits and exactly-once, with a crash
-- and a restart (LESSONS.md L8).  The query of lesson 6 over the file
-- source, written by the exactly-once json file sink.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(8, "Checkpoints: offsets, state, commits, exactly-once")
L.leave_hint("try more(), :step, :crash after-sink, :step, :restart (lessons/README.md)")

say [[
A streaming query must survive a crash.  Spark orders every micro-batch
the same way, and writes down each step in the checkpoint directory:

  1. plan the batch: the end offsets of every source -> offsets/N
  2. read exactly [start, end), run the operators
  3. save the new state version                       -> state/
  4. write the sink (the file sink logs the batch)    -> _spark_metadata/N
  5. mark the batch done                              -> commits/N

On restart Spark reads the logs: a batch with offsets/N but no commits/N
is run again with the *same* offsets and the *same* watermark.  The file
sink sees _spark_metadata/N and skips a batch it already wrote.  Records
may be processed twice; each changes the result once: exactly-once.]]

code [[
spark.clock:manual("2026-01-01 12:00:00")
function tempdir()
  local d = os.tmpname(); os.remove(d); os.execute("mkdir -p '" .. d .. "'"); return d
end
-- lesson 6's arrivals, one json file per trigger
files = {
  {{"12:07", "dog"}, {"12:08", "owl"}},
  {{"12:14", "dog"}, {"12:09", "cat"}},
  {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}},
  {{"12:04", "donkey"}, {"12:17", "owl"}, {"12:26", "owl"}},
  {{"12:09", "cat"}},
  {{"12:45", "owl"}},
}
function new_dirs()
  return {inbox = tempdir(), out = tempdir(), checkpoint = tempdir() .. "/ck"}
end
function start_query(dirs, name)
  return spark.readStream:schema("event_time TIMESTAMP, word STRING"):json(dirs.inbox)
    :withWatermark("event_time", "10 minutes")
    :groupBy(F.window("event_time", "10 minutes", "5 minutes"), "word"):count()
    :selectExpr("date_format(window.start, 'HH:mm') AS start", "word", "count")
    .writeStream:outputMode("append"):format("json"):queryName(name)
    :trigger{processingTime = "1 minute"}
    :option("checkpointLocation", dirs.checkpoint):start(dirs.out)
end
-- Write files[i] (or the given events) into the inbox: a hidden name, then
-- a rename, so the source never sees half a file.
function drop_file(dirs, i, events)
  local lines = {}
  for _, e in ipairs(events or files[i]) do
    lines[#lines + 1] = string.format('{"event_time":"2026-01-01 %s:00","word":"%s"}', e[1], e[2])
  end
  local h = assert(io.open(dirs.inbox .. "/.f" .. i, "w"))
  h:write(table.concat(lines, "\n"), "\n"); h:close()
  os.rename(dirs.inbox .. "/.f" .. i, string.format("%s/%02d.json", dirs.inbox, i))
end
-- One trigger: a minute passes, file i arrives, batches run until none is
-- due (its data batch, then the no-data batch the watermark asks for).
function arrive(q, dirs, i)
  spark.clock:advance("1 minute")
  drop_file(dirs, i)
  while q:step() do end
end
-- The next file for the query `checkpoints`, twenty minutes after the
-- last (for the live demo at the end).
extra = 0
function more()
  if dirs == nil then print("more(): the query checkpoints starts at the lesson's second step") return end
  extra = extra + 1
  spark.clock:advance("1 minute")
  local m = 12 * 60 + 45 + 20 * extra
  local t = string.format("%02d:%02d", m // 60, m % 60)
  drop_file(dirs, #files + extra, {{t, "owl"}, {t, "cat"}})
  print("dropped " .. string.format("%02d.json", #files + extra) .. ": " .. t .. " owl, " .. t .. " cat")
end
function sink_rows(dirs)
  local t = {}
  for _, r in ipairs(spark.read:schema("start STRING, word STRING, count BIGINT"):json(dirs.out):collect()) do
    t[#t + 1] = r.start .. " " .. r.word .. " " .. r.count
  end
  table.sort(t)
  return t
end
-- The answer without a crash: every file, to the end.
ref = new_dirs()
reference = start_query(ref, "reference")
for i = 1, #files do arrive(reference, ref, i) end
want = sink_rows(ref)
reference:stop()
print(#want .. " rows in the sink without a crash: " .. table.concat(want, ", "))
]]
view("main")
pause()

say [[
Now the query we crash, on the panes: `checkpoints`.  Two files arrive,
then the third file's batch runs (batch 4).  The checkpoint pane has one
row per batch: its offsets, the watermark it ran with, the state version,
what the sink wrote and the commit.  q:checkpoint() gives the same logs
as data.]]

code [[
dirs = new_dirs()
q = start_query(dirs, "checkpoints")
arrive(q, dirs, 1)
arrive(q, dirs, 2)
spark.clock:advance("1 minute")
drop_file(dirs, 3)
q:step()                                  -- batch 4 reads file 3
function show_checkpoint(cp)
  for _, b in ipairs(cp.batches) do
    local wm = b.watermarkMs and b.watermarkMs > 0 and os.date("!%H:%M", b.watermarkMs // 1000) or "-"
    print(string.format("batch %2d  watermark %-5s  state v%-2s  sink log %-5s  committed %s",
      b.batchId, wm, tostring(b.stateVersion), tostring(b.sinkLog), tostring(b.committed)))
  end
end
show_checkpoint(q:checkpoint())
local et = q.lastProgress.eventTime
print("batch 4 ran with watermark " .. et.watermark:sub(12, 16) .. "; max event time now " ..
      et.max:sub(12, 16) .. ", so the next batch runs with " .. et.max:sub(12, 16) .. " - 10 min")
]]
expect("batches 0..4 ran and committed", q.lastProgress.batchId, 4)
L.focus(q)   -- the panes stay on it while other queries run
pause()

say [[
The 12:21 owl moved the watermark to 12:11, so the next batch (a no-data
batch) closes [12:00, 12:10) and writes it to the sink: 3 rows.  We arm a
crash in that batch, after the sink wrote and before the commit:
q:crash(point) makes the query die as a process would (its memory is
gone, its files stay).  Watch the checkpoint pane: batch 5 says CRASH.]]

code [[
q:crash("after-sink")
print(pcall(q.step, q))                   -- batch 5: sink written, then the crash
dead = q:checkpoint()
last = dead.batches[#dead.batches]
print("batch " .. last.batchId .. ": sink log " .. tostring(last.sinkLog) ..
      ", committed " .. tostring(last.committed))
]]
expect("the dead checkpoint: batch 5 in the sink log, not committed",
  {last.batchId, last.sinkLog, last.committed}, {5, true, false})
pause()

exercise([[
The checkpoint shows offsets 0..5, commits 0..4 and sink log 0..5 (the
crash after the sink wrote batch 5).  What happens on restart, and how
many duplicate rows will the sink hold?]], function()
  code [[
q = q:restart()                           -- same id, a new run, from the checkpoint
q:step()                                  -- batch 5 again: same offsets, same watermark
show_checkpoint(q:checkpoint())
]]
  local after = q:checkpoint().batches
  expect("after the restart batch 5 is committed", {after[#after].batchId, after[#after].committed}, {5, true})
  say [[
Batch 5 re-ran with the offsets in offsets/5 and the watermark logged with
it; the file sink found _spark_metadata/5 and skipped the write; commits/5
is written.  On the checkpoint pane: batch 5 "skipped", "commit (re-run)",
the replay line, and the sink check: no duplicates.]]
end)
pause()

say [[
Now the rest of the files, and the sink check: what the sink directory
holds against the run without a crash.]]
code [[
for i = 4, #files do arrive(q, dirs, i) end
_, line = require("lesson").oracle(want, sink_rows(dirs))
print("sink check: " .. line)
]]
local r = L.oracle(want, sink_rows(dirs))
expect("0 duplicates, 0 missing", {r.got, r.duplicates, r.missing}, {#want, 0, 0})
say [[
0 duplicates: a reader of the sink directory (spark.read:json) trusts
_spark_metadata, so a half-written or repeated part file is never read.
Records may be processed twice; each changes the result once.]]
pause()

say [[
The same run crashed at three points of batch 5: after-offsets (nothing
processed yet), after-sink (the sink wrote, the commit did not),
before-commit.  Each is restarted and run to the end.]]

code [[
-- Every file; crash at point in batch 5 and restart there.
function run_crashed(point)
  local d = new_dirs()
  local qc = start_query(d, "crash " .. point)
  for i, f in ipairs(files) do
    spark.clock:advance("1 minute")
    drop_file(d, i)
    while true do
      local next_id = qc.lastProgress and qc.lastProgress.batchId + 1 or 0
      if next_id == 5 and not d.crashed then qc:crash(point); d.crashed = true end
      local ok, ran = pcall(qc.step, qc)
      if not ok then d.event = tostring(ran); qc = qc:restart()
      elseif not ran then break end
    end
  end
  qc:stop()
  return d
end
verdicts = {}
for _, point in ipairs{"after-offsets", "after-sink", "before-commit"} do
  local d = run_crashed(point)
  local r, line = require("lesson").oracle(want, sink_rows(d))
  verdicts[point] = {r.got, r.duplicates, r.missing}
  print(point .. ": " .. (d.event or "no crash") .. "\n  " .. line)
end
]]
for _, point in ipairs{"after-offsets", "after-sink", "before-commit"} do
  expect("crash " .. point .. ": oracle", verdicts[point], {#want, 0, 0})
end
pause()

exercise([[
Variant: a crash after offsets/N was written, and then someone deletes
commits/N-1 by hand: offsets 0..N, commits 0..N-2.  What does a restart
do?]], function()
  code([[
vdirs = new_dirs()
qv = start_query(vdirs, "variant")
for i = 1, 5 do arrive(qv, vdirs, i) end
last_id = qv.lastProgress.batchId
spark.clock:advance("1 minute"); drop_file(vdirs, 6)
qv:crash("after-offsets")
print(pcall(qv.step, qv))                              -- offsets/N written, then the crash
os.remove(vdirs.checkpoint .. "/commits/" .. last_id)  -- someone deletes the last commit
qv:restart()
]], {fails = "is inconsistent: batches %d+%.%.%d+ are planned but only %d+ is committed"})
  say [[
streamlab refuses to start and names the gap: two batches planned but not
committed cannot happen in a healthy checkpoint, so someone edited it.
(Spark only logs a warning there and re-runs from its logs; deleting files
under commits/ or offsets/ by hand is how people get duplicates or gaps.)]]
end)

say [[
The query `checkpoints` is still running, and focused.  Its trigger is
once a minute of the manual clock, so nothing runs until you say so
(:step, or :tick 1 minute).  Crash it yourself: more() drops the next
file (twenty minutes later each time).

  more()              -- a file arrives
  :step               -- its batch: the watermark moves on
  :crash after-sink   -- arm a crash in the next batch
  :step               -- the no-data batch writes the windows it closed, then dies
  :restart            -- from the checkpoint: the batch re-runs at its first
                         trigger (:step if it has not), the sink skips it,
                         and the sink check says 0 duplicates]]
