-- Lesson 14: the past of a query, read back from its checkpoint (issue
-- 20): the workbench rewound to a committed batch (:rewind N) and the
-- state data source (Spark 4.0's spark.read.format("statestore"),
-- experimental there).  Lesson 8's crash and restart, looked at from
-- afterwards: what did the restart read back?
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(14, "Rewind: the state at any committed batch")
L.leave_hint("try :rewind 3, Alt-Left / Alt-Right, :live, state(dirs, 2):show() (lessons/README.md)")

say [[
The panes show a query as it is now.  Its checkpoint remembers more: for
every batch retention keeps, offsets/N (what it read, the watermark it
ran with), commits/N (done, and the watermark for the next batch) and
the state as the batch left it, state version N+1.  Two ways to look at
the past:

  :rewind N      the panes as they were after batch N, rebuilt from the
                 checkpoint (Alt-Left / Alt-Right step, :live returns)
  spark.read:format("statestore"):option("batchId", N):load(checkpoint)
                 the state of batch N as a DataFrame (Spark 4.0's state
                 data source; experimental there)

We replay lesson 8: the append-mode window count over json files, a
crash after the sink wrote batch 5 and before its commit, a restart.]]

code [[
spark.clock:manual("2026-01-01 12:00:00")
function tempdir()
  local d = os.tmpname(); os.remove(d); os.execute("mkdir -p '" .. d .. "'"); return d
end
files = {                               -- lesson 8's first three files
  {{"12:07", "dog"}, {"12:08", "owl"}},
  {{"12:14", "dog"}, {"12:09", "cat"}},
  {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}},
}
function new_dirs()
  return {inbox = tempdir(), out = tempdir(), checkpoint = tempdir() .. "/ck"}
end
function start_query(d, name)
  return spark.readStream:schema("event_time TIMESTAMP, word STRING"):json(d.inbox)
    :withWatermark("event_time", "10 minutes")
    :groupBy(F.window("event_time", "10 minutes", "5 minutes"), "word"):count()
    .writeStream:outputMode("append"):format("json"):queryName(name)
    :trigger{processingTime = "1 minute"}
    :option("checkpointLocation", d.checkpoint):start(d.out)
end
function drop_file(d, i)
  local lines = {}
  for _, e in ipairs(files[i]) do
    lines[#lines + 1] = string.format('{"event_time":"2026-01-01 %s:00","word":"%s"}', e[1], e[2])
  end
  local h = assert(io.open(d.inbox .. "/.f" .. i, "w"))
  h:write(table.concat(lines, "\n"), "\n"); h:close()
  os.rename(d.inbox .. "/.f" .. i, string.format("%s/%02d.json", d.inbox, i))
end
-- the state of batch n of checkpoint d, as Spark 4.0 reads it
function state(d, n)
  return spark.read:format("statestore"):option("batchId", n):load(d.checkpoint)
end
-- lesson 8's batches 0..4: two files, then the third file's batch
function to_batch_4(d, qq)
  for i = 1, 2 do spark.clock:advance("1 minute"); drop_file(d, i); while qq:step() do end end
  spark.clock:advance("1 minute"); drop_file(d, 3); qq:step()
end
-- without a crash: the reference, batches 0..5
ref = new_dirs()
reference = start_query(ref, "reference")
to_batch_4(ref, reference)
reference:step()                        -- batch 5: the watermark closes [12:00, 12:10)
reference:stop()
-- the query we crash: batches 0..4, then batch 5 dies after its sink
dirs = new_dirs()
q = start_query(dirs, "checkpoints")
to_batch_4(dirs, q)
q:crash("after-sink")
print(pcall(q.step, q))                 -- batch 5: the sink wrote, no commit
q = q:restart()
q:step()                                -- batch 5 again, from the checkpoint
print("batch " .. q.lastProgress.batchId .. " committed after the restart")
]]
L.focus(q)
expect("the restarted query committed batch 5", q.lastProgress.batchId, 5)
pause()

say [[
The panes show the query now, after batch 5.  Rewind them to batch 4, the
last batch before the crash: the windows it held, the watermark it
left for the next batch (12:11: the 12:21 owl minus 10 minutes), its
checkpoint row.  Nothing is re-run: the screen is rebuilt from offsets/4,
commits/4 and state version 5.]]
code [[
L = require("lesson")
L.rewind(4)
]]
pause()

say [[
The same state as a DataFrame.  A key per group (the window and the
word), a value with its aggregation buffer (count), one partition.]]
code [[
before = state(dirs, 4)
before:show(20, false)
]]
expect("batch 4 held 12 groups: the windows still open", before:count(), 12)
pause()

exercise([[
The restart re-ran batch 5 on the state it found in the checkpoint.
Which state was that, and was it exactly what batch 4 left?]], function()
  code [[
same_as_ref = L.same(L.rows(state(dirs, 4)), L.rows(state(ref, 4)))
after_same = L.same(L.rows(state(dirs, 5)), L.rows(state(ref, 5)))
changes = spark.read:format("statestore"):option("readChangeFeed", true)
  :option("changeStartBatchId", 5):option("changeEndBatchId", 5):load(dirs.checkpoint)
changes:show(20, false)
print("state of batch 4 = the run without a crash: " .. tostring(same_as_ref))
print("state of batch 5 = the run without a crash: " .. tostring(after_same))
]]
  expect("the restart read back batch 4's state, the same as without a crash", same_as_ref, true)
  expect("and batch 5 left the same state as without a crash", after_same, true)
  expect("batch 5 deleted the three groups of [12:00, 12:10) it emitted",
    changes:filter("change_type = 'delete'"):count(), 3)
  say [[
State version 5 (after batch 4) is what the restart loaded: a batch
that did not commit never becomes a state version, so batch 5 ran again
on exactly what batch 4 left, and its own change feed deletes the three
windows of [12:00, 12:10) that it emitted to the sink: once, as the
sink log shows (lesson 8).  Alt-Left / Alt-Right step the panes through
the batches; :live returns to the query as it is now.]]
end)
L.live()
