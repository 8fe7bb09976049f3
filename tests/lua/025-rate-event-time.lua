-- The rate source works out its timestamp column's event-time statistics
-- in the loop that writes the rows (engine/core/col.h sl_col_tstats), and
-- withWatermark takes them instead of reading the rows again
-- (engine/exec/op_watermark.c).  The figures must be the ones the row by
-- row pass gives: Spark's EventTimeStats over value / 1000 milliseconds
-- (SPARK-SEMANTICS.md 3.1), shown in progress as eventTime min, max, avg
-- and the watermark.  The same query over `timestamp + INTERVAL 0
-- SECONDS` (a computed column, without the statistics) is the reference;
-- ramp-up and several partitions vary the rows.  (Times before 1970 would
-- try the rate source's other rounding branch, but a manual clock set
-- before 1970 hangs the rate query already on main: NEEDSWORK.)
local T = require("tap")

local function event_times(q)
  local out = {}
  for _, p in ipairs(q.recentProgress) do
    local e = p.eventTime
    if e and e.min then
      out[#out + 1] = string.format("%d rows: %s %s %s %s", p.numInputRows,
        e.min, e.max, e.avg, e.watermark)
    end
  end
  return out
end

local function pair(start, opts, tag)
  spark.clock:manual(start)
  local r = spark.readStream:format("rate")
  for k, v in pairs(opts) do r = r:option(k, v) end
  r = r:load()
  local fast = r:withWatermark("timestamp", "1 second")
    .writeStream:format("noop"):start()
  local ref = r:selectExpr("timestamp + INTERVAL 0 SECONDS AS timestamp", "value")
    :withWatermark("timestamp", "1 second")
    .writeStream:format("noop"):start()
  for _ = 1, 6 do spark.clock:advance("1 second") end
  local a, b = event_times(fast), event_times(ref)
  fast:stop()
  ref:stop()
  T.ok(#a >= 5, tag .. ": batches with event times (" .. #a .. ")")
  T.is(a, b, tag .. ": statistics from the writer = the row by row pass")
  return a
end

local a = pair("2026-01-01 12:00:00", {rowsPerSecond = 4}, "4 rows/s")
T.is(a[1], "4 rows: 2026-01-01T12:00:00.000Z 2026-01-01T12:00:00.750Z "
  .. "2026-01-01T12:00:00.375Z 1970-01-01T00:00:00.000Z",
  "4 rows/s: the first second's rows at .000 .250 .500 .750, avg .375")
pair("2026-01-01 12:00:00", {rowsPerSecond = 7, rampUpTime = "3 seconds",
  numPartitions = 3}, "7 rows/s, ramp-up 3 s, 3 partitions")
pair("2026-06-30 23:59:58", {rowsPerSecond = 3000, numPartitions = 2},
  "3000 rows/s, 2 partitions")

T.done()
