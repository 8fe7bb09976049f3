-- The rate-micro-batch source (issue 17 item 5): rowsPerBatch rows per
-- micro-batch, each stamped with the batch's time, which advances by
-- advanceMillisPerBatch from startTimestamp; restarts continue from the
-- checkpoint.  Expected rows: RatePerMicroBatchProviderSuite "basic",
-- "restart", "Trigger.Once" / "Trigger.AvailableNow" and "illegal option
-- values".
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function values(rows, ts)
  local out = {}
  for i, r in ipairs(rows) do out[i] = ts and {r[1], r[2]} or {r[2]} end
  return out
end
local function expect(a, b, ts)
  local out = {}
  for v = a, b - 1 do out[#out + 1] = ts and {ts, v} or {v} end
  return T.sorted(out)
end

-- "basic" (the suite's manual clock and 10 ms trigger become
-- processAllAvailable, one batch each: every trigger has data)
local input = spark.readStream:format("rate-micro-batch"):option("rowsPerBatch", "10")
  :option("startTimestamp", "1000"):option("advanceMillisPerBatch", "50"):load()
T.is(input.columns, {"timestamp", "value"}, "schema: timestamp, value")
local s = T.stream(input:select(F.col("timestamp"):cast("double"), "value"))
s.q:processAllAvailable()
T.is(s:last(), expect(0, 10, 1.0), "batch 0: values 0..9 at 1000 ms")
s.q:processAllAvailable()
T.is(s:last(), expect(10, 20, 1.05), "batch 1: values 10..19 at 1050 ms")
s.q:processAllAvailable()
T.is(s:last(), expect(20, 30, 1.1), "batch 2: values 20..29 at 1100 ms")
T.is(#s.batches, 3, "three batches, no more")
local p = s.q.lastProgress.sources[1]
T.is({p.description, p.startOffset, p.endOffset, p.numInputRows},
  {"RatePerMicroBatchStream[rowsPerBatch=10, numPartitions=1, startTimestamp=1000, advanceMillisPerBatch=50]",
   {offset = 20, timestamp = 1100}, {offset = 30, timestamp = 1150}, 10},
  "progress: Spark's offsets {offset, timestamp} and description")
s.q:stop()

-- "Trigger.Once" / "Trigger.AvailableNow": a restart continues from the
-- checkpoint, one batch per run
for _, trig in ipairs{{once = true}, {availableNow = true}} do
  local name = trig.once and "Trigger.Once" or "Trigger.AvailableNow"
  local dir = T.tempdir()
  local src = spark.readStream:format("rate-micro-batch"):option("rowsPerBatch", "10"):load():select("value")
  local got = {}
  local function run(t)
    local rows = {}
    local q = src.writeStream:option("checkpointLocation", dir):trigger(t)
      :foreachBatch(function(df) for _, r in ipairs(T.rows(df)) do rows[#rows + 1] = r end end):start()
    q:processAllAvailable()
    q:stop()
    return T.sorted(rows)
  end
  T.is(run{processingTime = "10 milliseconds"}, expect(0, 10), name .. ": first run 0..9")
  T.is(run(trig), expect(10, 20), name .. ": restarted with it, 10..19")
  T.is(run{processingTime = "10 milliseconds"}, expect(20, 30), name .. ": then 20..29 (resumed after a committed batch)")
end

-- processAllAvailable runs one batch (every trigger has data)
local ms = spark.readStream:format("rate-micro-batch"):option("rowsPerBatch", "3")
  :option("numPartitions", "2"):load()
s = T.stream(ms:select("value"))
s.q:processAllAvailable()
T.is(s:new(), {{0}, {1}, {2}}, "processAllAvailable: one batch of 3 rows (2 partitions)")
s.q:processAllAvailable()
T.is(s:new(), {{3}, {4}, {5}}, "and the next")
T.like(s.q:toPySpark(), '%.format%("rate%-micro%-batch"%)\n%s*%.option%("rowsPerBatch", "3"%)', "toPySpark keeps the source")
s.q:stop()

-- "illegal option values"
local function bad(opt, v, pat)
  T.errors(function()
    local r = spark.readStream:format("rate-micro-batch"):option(opt, v)
    if opt ~= "rowsPerBatch" then r = r:option("rowsPerBatch", "1") end
    return r:load()
  end, pat, opt .. " = " .. v)
end
bad("rowsPerBatch", "-1", "Invalid value '%-1'%. The option 'rowsPerBatch' must be positive")
bad("rowsPerBatch", "0", "Invalid value '0'%. The option 'rowsPerBatch' must be positive")
bad("numPartitions", "0", "Invalid value '0'%. The option 'numPartitions' must be positive")
bad("advanceMillisPerBatch", "-1", "Invalid value '%-1'%. The option 'advanceMillisPerBatch' must be non%-negative")
bad("startTimestamp", "-1", "Invalid value '%-1'%. The option 'startTimestamp' must be non%-negative")
T.errors(function() return spark.readStream:format("rate-micro-batch"):schema("value BIGINT")
  :option("rowsPerBatch", "1"):load() end,
  "RatePerMicroBatchProvider source does not support user%-specified schema", "user-specified schema given")

T.done()
