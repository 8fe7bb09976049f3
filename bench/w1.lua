-- W1 of BENCH.md on the user's path (issue 18 item 1), and its variants:
-- rate 100 000 rows/s -> selectExpr(event_time, product_id = value % KEYS,
-- amount = CAST(value % 10000 AS DOUBLE) / 100) -> withWatermark 5 s ->
-- 60 s window (sliding by SLIDE when given) count + sum -> noop sink,
-- append mode, one processing-time trigger per second of the manual
-- clock (100 000 rows each) until EVENTS rows.  No checkpointLocation: the
-- query writes its temporary checkpoint, as a learner's does.
--   streamlab run bench/w1.lua [KEYS=1000] [SLIDE|-] [EVENTS=10000000] [NAME]
-- bench/w4.lua runs the same query with a checkpointLocation.
local here = arg[0]:match("^(.*)/") or "."
local B = dofile(here .. "/lib.lua")
local keys = tonumber(arg[1]) or 1000
local slide = arg[2] ~= nil and arg[2] ~= "-" and arg[2] or nil
local events = tonumber(arg[3]) or 10000000
local name = arg[4] or "W1"
local ckpt = arg[5] -- w4.lua: a checkpointLocation

spark.clock:manual("2026-01-01 12:00:00")
local rate = spark.readStream:format("rate"):option("rowsPerSecond", 100000):load()
local df = B.w1_agg(rate:selectExpr("timestamp AS event_time",
  string.format("value %% %d AS product_id", keys),
  "CAST(value % 10000 AS DOUBLE) / 100 AS amount"), "event_time", slide)
local w = df.writeStream:format("noop"):outputMode("append"):trigger{processingTime = "1 second"}
if ckpt then w = w:option("checkpointLocation", ckpt) end
local q = w:start()
local n = events // 100000
local fig = B.timed(n, function() spark.clock:advance("1 second") end)
assert(q.lastProgress.batchId == n and q.lastProgress.numInputRows == 100000,
  "one batch of 100 000 rows per trigger (batch 0, at start, reads none)")
fig.events = n * 100000
B.state(q, fig)
q:stop()
B.report(name, fig)
