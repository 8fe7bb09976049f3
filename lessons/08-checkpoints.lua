-- Lesson 8: checkpoints, offsets, commits and exactly-once, with a crash
-- and a restart (LESSONS.md L8).  The query of lesson 6 over the file
-- source, written by the exactly-once json file sink.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(8, "Checkpoints: offsets, state, commits, exactly-once")

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
function start_query(dirs)
  return spark.readStream:schema("event_time TIMESTAMP, word STRING"):json(dirs.inbox)
    :withWatermark("event_time", "10 minutes")
    :groupBy(F.window("event_time", "10 minutes", "5 minutes"), "word"):count()
    :selectExpr("date_format(window.start, 'HH:mm') AS start", "word", "count")
    .writeStream:outputMode("append"):format("json")
    :option("checkpointLocation", dirs.checkpoint):start(dirs.out)
end
-- Write files[i] into the inbox (hidden name, then rename).
function drop_file(dirs, i)
  local lines = {}
  for _, e in ipairs(files[i]) do
    lines[#lines + 1] = string.format('{"event_time":"2026-01-01 %s:00","word":"%s"}', e[1], e[2])
  end
  local h = assert(io.open(dirs.inbox .. "/.f" .. i, "w"))
  h:write(table.concat(lines, "\n"), "\n"); h:close()
  os.rename(dirs.inbox .. "/.f" .. i, string.format("%s/%02d.json", dirs.inbox, i))
end
-- Drop file i, then run batches until none is due (data, then no-data).
-- crash = {point=, batch=} arms q:crash before that batch; returns the
-- (possibly restarted) query and what happened.
function run_all(crash)
  local dirs = {inbox = tempdir(), out = tempdir(), checkpoint = tempdir() .. "/ck"}
  local q, events = start_query(dirs), {}
  for i, f in ipairs(files) do
    spark.clock:advance("1 minute")
    drop_file(dirs, i)
    while true do
      local next_id = q.lastProgress and q.lastProgress.batchId + 1 or 0
      if crash and not crash.armed and next_id == crash.batch then
        q:crash(crash.point); crash.armed = true
      end
      local ok, ran = pcall(q.step, q)
      if not ok then
        events[#events + 1] = tostring(ran)
        dirs.dead = q:checkpoint()
        q = q:restart()
        events[#events + 1] = "restarted: same id " .. tostring(q.id == dirs.dead.id)
      elseif not ran then
        break
      end
    end
  end
  dirs.q = q
  return dirs, events
end
function sink_rows(dirs)
  local t = {}
  for _, r in ipairs(spark.read:schema("start STRING, word STRING, count BIGINT"):json(dirs.out):collect()) do
    t[#t + 1] = r.start .. " " .. r.word .. " " .. r.count
  end
  table.sort(t)
  return t
end
reference = run_all(nil)
want = sink_rows(reference)
reference.q:stop()
print(#want .. " rows in the sink without a crash:")
print(table.concat(want, "\n"))
]]
view("main")
pause()

say [[
q:checkpoint() shows the logs as data: per batch its offsets, the
watermark it ran with, the state version, the sink log entry and whether it
was committed.]]

code [[
for _, b in ipairs(reference.q:checkpoint().batches) do
  local wm = b.watermarkMs and b.watermarkMs > 0 and os.date("!%H:%M", b.watermarkMs // 1000) or "-"
  print(string.format("batch %2d  watermark %-5s  state v%-2s  sink log %-5s  committed %s",
    b.batchId, wm, tostring(b.stateVersion), tostring(b.sinkLog), tostring(b.committed)))
end
]]
pause()

say [[
Now the same run, crashed on purpose.  q:crash(point) arms a crash in the
next batch: the query dies as a process would (its memory is gone, its
files stay); q:restart() starts it again from the checkpoint.  Three
points: after-offsets (nothing processed yet), after-sink (the sink wrote,
the commit did not), before-commit.]]

code [[
verdicts = {}
for _, point in ipairs{"after-offsets", "after-sink", "before-commit"} do
  local dirs, events = run_all({point = point, batch = 5})
  local got = sink_rows(dirs)
  local r, line = require("lesson").oracle(want, got)
  verdicts[point] = {r.got, r.duplicates, r.missing}
  print(point .. ": " .. (events[1] or "no crash"))
  print("  " .. line)
  dirs.q:stop()
end
]]
for _, point in ipairs{"after-offsets", "after-sink", "before-commit"} do
  expect("crash " .. point .. ": oracle", verdicts[point], {#want, 0, 0})
end
pause()

exercise([[
A checkpoint shows offsets 0..5, commits 0..4 and sink log 0..5 (a crash
after the sink wrote batch 5).  What happens on restart, and how many
duplicate rows appear?]], function()
  code [[
crashed, events = run_all({point = "after-sink", batch = 5})
last = crashed.dead.batches[#crashed.dead.batches]
print("dead checkpoint, last batch: " .. last.batchId .. ", sink log " .. tostring(last.sinkLog) ..
      ", committed " .. tostring(last.committed))
_, line = require("lesson").oracle(want, sink_rows(crashed))
print(line)
]]
  expect("the dead checkpoint: batch 5 in the sink log, not committed",
    {last.batchId, last.sinkLog, last.committed}, {5, true, false})
  local after = crashed.q:checkpoint().batches
  expect("after the restart every batch is committed", after[#after].committed, true)
  local r = L.oracle(want, sink_rows(crashed))
  expect("0 duplicates", r.duplicates, 0)
  say [[
Batch 5 re-runs with the offsets in offsets/5 and the watermark logged
with it; the file sink finds _spark_metadata/5 and skips the write;
commits/5 is written.  0 duplicates: a reader of the sink directory
(spark.read:json) trusts _spark_metadata, so a half-written or repeated
part file is never read.]]
  code [[crashed.q:stop()]]
end)
pause()

exercise([[
Variant: a crash after offsets/N was written, and then someone deletes
commits/N-1 by hand: offsets 0..N, commits 0..N-2.  What does a restart
do?]], function()
  code([[
spark.clock:manual("2026-01-01 12:00:00")
dirs = {inbox = tempdir(), out = tempdir(), checkpoint = tempdir() .. "/ck"}
qv = start_query(dirs)
for i = 1, 5 do
  spark.clock:advance("1 minute"); drop_file(dirs, i)
  while qv:step() do end
end
last_id = qv.lastProgress.batchId
spark.clock:advance("1 minute"); drop_file(dirs, 6)
qv:crash("after-offsets")
print(pcall(qv.step, qv))                              -- offsets/N written, then the crash
os.remove(dirs.checkpoint .. "/commits/" .. last_id)   -- someone deletes the last commit
qv:restart()
]], {fails = "is inconsistent: batches %d+%.%.%d+ are planned but only %d+ is committed"})
  say [[
streamlab refuses to start and names the gap: two batches planned but not
committed cannot happen in a healthy checkpoint, so someone edited it.
(Spark only logs a warning there and re-runs from its logs; deleting files
under commits/ or offsets/ by hand is how people get duplicates or gaps.)]]
end)
