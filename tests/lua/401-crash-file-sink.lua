-- Crash and restart in process, at every crash point, with the json file
-- sink (RELIABILITY.md 3.2/3.3; lessons/08): a windowed count with a
-- watermark in append mode over json files, crashed with q:crash(point)
-- at a data batch (4: reads file 3) and at a no-data batch that writes
-- rows (5), restarted with q:restart() and drained.  Then the sink read
-- back with spark.read:json(dir) equals the uncrashed run's (same rows,
-- none twice), every batch's part file is byte for byte the uncrashed
-- run's, the final watermark and the checkpoint log (offsets, watermark,
-- timestamp, state version per batch, all committed) are the same, and
-- no temp file is left behind.
local T = require("tap")
local C = require("crashcase")

local ref = C.run{sink = "file"}
T.ok(#ref.rows >= 6, "uncrashed run: the sink has rows (" .. #ref.rows .. ")")
T.is(C.duplicates(ref.rows), {}, "uncrashed run: no (window, word) twice")
T.is(ref.watermark, "2026-01-01T13:50:00.000Z", "uncrashed run: final watermark 13:50")
T.ok(ref.parts[5] ~= nil and #ref.parts[5] > 0, "uncrashed run: batch 5 writes rows")
T.is(ref.temps, {}, "uncrashed run: no temp files")

for _, batch in ipairs{4, 5} do
  for _, point in ipairs(C.POINTS) do
    local tag = point .. "@" .. batch .. ": "
    local got = C.run{sink = "file", point = point, batch = batch}
    C.check_common(tag, ref, got, point, batch)
    T.is(got.parts, ref.parts, tag .. "every batch's part file equals the uncrashed run's")
    local c = got.crashes[1]
    local last = c and c.checkpoint and c.checkpoint.batches and c.checkpoint.batches[#c.checkpoint.batches]
    if last then
      local logged = ({["after-sink"] = true, ["before-commit"] = true, ["mid-commit"] = true,
                       ["after-commit"] = true})[point] or false
      T.is(last.sinkLog, logged, tag .. "the dead checkpoint's last batch " ..
        (logged and "has" or "has no") .. " _spark_metadata entry")
    end
  end
end

T.done()
