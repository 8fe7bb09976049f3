-- Bounded state (LESSONS.md L7): 10 keys, one event per key per minute, in
-- order, for 120 minutes, one batch per minute; tumbling 10-minute counts
-- per key.  With a watermark the state stays bounded (peak 20, 30, 40 rows
-- for delays 0, 10, 20 minutes; with delay 10 it oscillates between 20 and
-- 30 after warm-up); without one it grows by 10 rows every 10 minutes to
-- 120.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local BASE = 1767268800 -- 2026-01-01 12:00:00 UTC

local function run(delay, mode)
  local ms = spark.memoryStream("ts TIMESTAMP, key STRING")
  local df = ms:toDF()
  if delay then df = df:withWatermark("ts", delay) end
  local emitted = 0
  local q = df:groupBy(F.window("ts", "10 minutes"), "key"):count()
    .writeStream:outputMode(mode)
    :foreachBatch(function(d) emitted = emitted + d:count() end):start()
  local seen, series, peak = -1, {}, 0
  for minute = 0, 119 do
    local rows = {}
    for k = 0, 9 do
      rows[#rows + 1] = {os.date("!%Y-%m-%d %H:%M:%S", BASE + minute * 60), "k" .. k}
    end
    ms:addData(rows)
    q:processAllAvailable()
    for _, p in ipairs(q.recentProgress) do
      if p.batchId > seen then
        seen = p.batchId
        local total = p.stateOperators[1].numRowsTotal
        if total > peak then peak = total end
        if p.numInputRows > 0 then series[#series + 1] = total end
      end
    end
  end
  local final = q.lastProgress.stateOperators[1].numRowsTotal
  q:stop()
  return {peak = peak, final = final, series = series, emitted = emitted}
end

local function range(t, from, to)
  local lo, hi = math.huge, -math.huge
  for i = from, to do
    lo = math.min(lo, t[i])
    hi = math.max(hi, t[i])
  end
  return {lo, hi}
end

local r0 = run("0 minutes", "append")
T.is(r0.peak, 20, "delay 0: peak 20 state rows")
T.is(r0.final, 10, "delay 0: 10 rows at the end (the open window)")
T.is(r0.emitted, 110, "delay 0: 11 closed windows x 10 keys written once each")

local r10 = run("10 minutes", "append")
T.is(r10.peak, 30, "delay 10 minutes: peak 30 state rows")
T.is(range(r10.series, 31, 120), {20, 30}, "delay 10 minutes: after warm-up the data batches see 20 to 30 rows")
T.is(r10.emitted, 100, "delay 10 minutes: 10 closed windows written")

local r20 = run("20 minutes", "append")
T.is(r20.peak, 40, "delay 20 minutes: peak 40 state rows")

local r20u = run("20 minutes", "update")
T.is(r20u.peak, 40, "delay 20 minutes, update mode: eviction bounds it the same way")

local rn = run(nil, "update")
T.is(rn.final, 120, "no watermark: 120 rows at the end (12 windows x 10 keys)")
T.is(rn.series[10], 10, "no watermark: 10 rows after 10 minutes")
T.is(rn.series[60], 60, "no watermark: 60 rows after an hour")
T.is(rn.series[120], 120, "no watermark: grows by 10 every 10 minutes")

T.done()
