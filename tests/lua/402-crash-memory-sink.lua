-- Crash and restart in process at every crash point with the memory sink:
-- the same windowed count as 401 into spark.table(name); the restarted
-- query (same queryName) adds to the same table and skips a batch the
-- table already holds, so after the drain the table equals the uncrashed
-- run's, with no row twice, and the watermark and checkpoint log match.
local T = require("tap")
local C = require("crashcase")

local ref = C.run{sink = "memory"}
T.ok(#ref.rows >= 6, "uncrashed run: the table has rows (" .. #ref.rows .. ")")
T.is(C.duplicates(ref.rows), {}, "uncrashed run: no (window, word) twice")

for _, batch in ipairs{4, 5} do
  for _, point in ipairs(C.POINTS) do
    local got = C.run{sink = "memory", point = point, batch = batch}
    C.check_common(point .. "@" .. batch .. ": ", ref, got, point, batch)
  end
end

T.done()
