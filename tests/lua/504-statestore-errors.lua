-- The state data source's errors, one line each and naming the option, as
-- Spark 4.0's StateDataSourceErrors / StateSourceOptions checks
-- (StateDataSourceReadSuite "ERROR: ..." tests): a batch that is not
-- committed (a crash after offsets/N), a batch retention already purged
-- (minBatchesToRetain), an operator that does not exist, a folder that is
-- not a checkpoint, negative or non-numeric ids, conflicting options, the
-- change feed options without readChangeFeed.  And a checkpoint written
-- before streamlab recorded state schemas (tests/fixtures/state-v1): a
-- clear error until its query starts on it once, then its old batches read.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local reader = require("statestore").reader

local function counting(ck)
  local ms = spark.memoryStream("k INT")
  local q = ms:toDF():groupBy("k"):count().writeStream:format("memory")
    :queryName("c" .. tostring(math.random(1e9))):outputMode("complete")
    :option("checkpointLocation", ck):start()
  return ms, q
end

-- retention: with minBatchesToRetain 2 and a snapshot every 2 versions
-- only the last batches stay readable
do
  spark.conf:set("spark.sql.streaming.minBatchesToRetain", "2")
  spark.conf:set("spark.sql.streaming.stateStore.minDeltasForSnapshot", "2")
  spark.conf:set("spark.sql.streaming.stateStore.maintenanceInterval", "0")
  local ck = T.tempdir() .. "/retain"
  local ms, q = counting(ck)
  for i = 1, 8 do
    ms:addData{i % 3}
    q:processAllAvailable()
  end
  q:stop()
  spark.conf:unset("spark.sql.streaming.minBatchesToRetain")
  spark.conf:unset("spark.sql.streaming.stateStore.minDeltasForSnapshot")
  spark.conf:unset("spark.sql.streaming.stateStore.maintenanceInterval")
  local meta = T.rows(spark.read:format("state-metadata"):load(ck):selectExpr("minBatchId", "maxBatchId"))
  local lo, hi = meta[1][1], meta[1][2]
  T.is(hi, 7, "state-metadata: maxBatchId is the last committed batch")
  T.ok(lo > 0 and lo < hi, "state-metadata: minBatchId is the oldest batch retention kept (" .. tostring(lo) .. ")")
  T.is(T.sorted_rows(reader{batchId = lo}:load(ck):selectExpr("key.k", "value.count")),
    T.sorted((function()
      local n = {}
      for i = 1, lo + 1 do n[i % 3] = (n[i % 3] or 0) + 1 end
      local t = {}
      for k, c in pairs(n) do t[#t + 1] = {k, c} end
      return t
    end)()), "the oldest kept batch reads (counts of its first " .. (lo + 1) .. " rows)")
  T.errors(function() return reader{batchId = 0}:load(ck) end,
    ": statestore: invalid value for source option 'batchId': batch 0 is already purged from checkpoint '.*' %(it keeps batches "
      .. lo .. "%.%.7%) %(spark%.sql%.streaming%.minBatchesToRetain", "a purged batch, and the hint")
  T.errors(function() return reader{readChangeFeed = true, changeStartBatchId = 0}:load(ck) end,
    "source option 'changeStartBatchId': batch 0 is already purged", "a purged change feed start")
end

-- not committed: a crash right after offsets/2
do
  local ck = T.tempdir() .. "/crashed"
  local ms, q = counting(ck)
  for i = 1, 2 do
    ms:addData{i}
    q:processAllAvailable()
  end
  q:crash("after-offsets")
  ms:addData{9}
  T.errors(function() q:processAllAvailable() end, "simulated crash", "the crash after offsets/2")
  T.errors(function() return reader{batchId = 2}:load(ck) end,
    ": statestore: invalid value for source option 'batchId': batch 2 is not committed, checkpoint location: '.*' %(the last committed batch is 1;",
    "batch 2 has offsets but no commit: not committed")
  T.errors(function() return reader{batchId = 3}:load(ck) end,
    "source option 'batchId': the offset log for batch 3 does not exist", "batch 3 was never planned")
  T.is(T.sorted_rows(reader():load(ck):selectExpr("key.k", "value.count")), {{1, 1}, {2, 1}},
    "the default batchId is the last committed (1), not the crashed batch")
  T.errors(function() return reader{readChangeFeed = true, changeStartBatchId = 0, changeEndBatchId = 2}:load(ck) end,
    "source option 'changeEndBatchId': batch 2 is not committed", "a change feed past the last commit")
  pcall(function() q:stop() end)
end

-- options and checkpoints
do
  local ck = T.tempdir() .. "/ok"
  local ms, q = counting(ck)
  ms:addData{1}
  q:processAllAvailable()
  q:stop()
  local cases = {
    {{batchId = -1}, "invalid value for source option 'batchId': cannot be negative"},
    {{batchId = "one"}, "invalid value for source option 'batchId': 'one' is not an integer"},
    {{operatorId = 4}, "invalid value for source option 'operatorId': checkpoint '.*' has no stateful operator 4 %(operators 0%.%.0%)"},
    {{storeName = "  "}, "invalid value for source option 'storeName': cannot be empty"},
    {{storeName = "other"}, "source option 'storeName': operator 0 %('stateStoreSave'%) has no store 'other'"},
    {{joinSide = "left"}, "source option 'joinSide': operator 0 %('stateStoreSave'%) is not a stream%-stream join"},
    {{readChangeFeed = "yes"}, "source option 'readChangeFeed': 'yes' is not a boolean"},
    {{readChangeFeed = true}, "'changeStartBatchId' must be specified with readChangeFeed"},
    {{readChangeFeed = true, changeStartBatchId = 0, batchId = 0}, "the options %['batchId', 'readChangeFeed'%] cannot be specified together"},
    {{changeStartBatchId = 0}, "source option 'changeStartBatchId': only specify this option when readChangeFeed is set to true"},
    {{readChangeFeed = true, changeStartBatchId = 3, changeEndBatchId = 1},
      "source option 'changeEndBatchId': 1 cannot be smaller than changeStartBatchId 3"},
    {{batchID = 7}, "the offset log for batch 7 does not exist"}, -- names are case-insensitive
    {{bathcId = 0}, "unknown option 'bathcId'"},
  }
  for _, c in ipairs(cases) do
    local desc = {}
    for k, v in pairs(c[1]) do desc[#desc + 1] = k .. "=" .. tostring(v) end
    table.sort(desc)
    T.errors(function() return reader(c[1]):load(ck) end, ": statestore: .-" .. c[2],
      table.concat(desc, ", "))
  end
  local ok, e = pcall(function() return reader{bathcId = 0}:load(ck) end)
  T.is(not ok and e.hint, "did you mean 'batchId'?", "an unknown option: did you mean")
  T.errors(function() return reader():load(T.tempdir() .. "/none") end, "statestore: checkpoint '.*/none' does not exist",
    "a checkpoint that does not exist")
  T.errors(function() return reader():load(T.tempdir()) end,
    "statestore: '.*' is not a streaming checkpoint %(no offsets, commits or state in it%)", "a folder that is not a checkpoint")
  -- damaged files: the schema, a delta
  local sp = ck .. "/state/0/0/_metadata/schema"
  local f = assert(io.open(sp))
  local good = f:read("a")
  f:close()
  f = assert(io.open(sp, "w"))
  f:write("v1\noperator stateStoreSave\nkey `k` INT\n")
  f:close()
  T.errors(function() return reader():load(ck) end, "statestore: state schema file '.*/state/0/0/_metadata/schema' is corrupt",
    "a corrupt schema file")
  f = assert(io.open(sp, "w"))
  f:write(good)
  f:close()
  f = assert(io.open(ck .. "/state/0/0/1.delta", "w"))
  f:write("SLSD torn")
  f:close()
  T.errors(function() return reader():load(ck) end,
    "statestore: cannot load the state of batch 0: state file '.*/state/0/0/1%.delta' is corrupt", "a torn delta")
  T.errors(function() return reader{readChangeFeed = true, changeStartBatchId = 0}:load(ck) end,
    "statestore: state file '.*/state/0/0/1%.delta' is corrupt", "a torn delta in the change feed")
  T.errors(function() return spark.read:format("statestore"):schema("a INT"):load(ck) end,
    "statestore does not support a user%-specified schema", "a user schema")
  -- a checkpoint without state
  local ck2 = T.tempdir() .. "/stateless"
  local ms2 = spark.memoryStream("k INT")
  local q2 = ms2:toDF().writeStream:format("memory"):queryName("stateless"):option("checkpointLocation", ck2):start()
  ms2:addData{1}
  q2:processAllAvailable()
  q2:stop()
  T.errors(function() return reader():load(ck2) end, "checkpoint '.*' has no state %(its query has no stateful operator%)",
    "a query without stateful operators")
  T.is(spark.read:format("state-metadata"):load(ck2):count(), 0, "state-metadata of a stateless query: no rows")
  local empty = T.tempdir() .. "/fresh"
  local ms3, q3 = counting(empty)
  q3:stop()
  T.errors(function() return reader():load(empty) end, "no committed batch found, checkpoint location: '.*'",
    "a checkpoint without a committed batch")
end

-- the older layout: no schema recorded
do
  local here = debug.getinfo(1, "S").source:match("^[@=]?(.*)/[^/]*$") or "."
  local ck = T.tempdir() .. "/v1"
  assert(os.execute("cp -r '" .. here .. "/../fixtures/state-v1' '" .. ck .. "'"), "copy the fixture")
  T.errors(function() return reader():load(ck) end,
    ": statestore: failed to read the state schema of operator 0: '.*/state/0/0/_metadata/schema' does not exist",
    "state-v1: no schema, a clear error")
  local ok, e = pcall(function() return reader():load(ck) end)
  T.like(not ok and e.hint or "", "start its query on it once", "state-v1: the hint says what to do")
  T.is(T.rows(spark.read:format("state-metadata"):load(ck)),
    {{0, "unknown", "default", 1, 0, 25}}, "state-v1: state-metadata lists the operator, its name unknown")
  spark.clock:manual("2026-01-01 12:00:13")
  local df = spark.readStream:format("rate"):option("rowsPerSecond", 4):load()
    :selectExpr("timestamp AS t", "value % 3 AS k", "CAST(value AS DOUBLE) / 4 AS amount", "value")
    :withWatermark("t", "5 seconds")
    :groupBy(F.window("t", "10 seconds"), "k")
    :agg(F.count("*"):alias("n"), F.sum("amount"):alias("total"), F.sum("value"):alias("vsum"),
         F.max("value"):alias("vmax"))
  local q = df.writeStream:format("memory"):queryName("v1"):outputMode("append")
    :option("checkpointLocation", ck):start()
  q:stop()
  local rows = T.rows(reader{batchId = 25}:load(ck)
    :selectExpr("CAST(key.window.start AS STRING)", "key.k", "value.count", "value.sum", "value.sum_2", "value.max"))
  T.is(#rows, 6, "state-v1 after a start: batch 25 (written by the old layout) reads its six groups")
  local want = {}
  for _, w in ipairs{0, 1} do
    for k = 0, 2 do
      local n, total, vsum, vmax = 0, 0.0, 0, nil
      for v = 40 * w, math.min(40 * w + 39, 51) do
        if v % 3 == k then n, total, vsum, vmax = n + 1, total + v / 4, vsum + v, v end
      end
      want[#want + 1] = {string.format("2026-01-01 12:00:%02d", 10 * w), k, n, total, vsum, vmax}
    end
  end
  T.is(rows, want, "state-v1: the groups' counts and sums are the rate rows 0..51 by window and key")
  T.is(T.rows(spark.read:format("state-metadata"):load(ck):selectExpr("operatorName")), {{"stateStoreSave"}},
    "state-v1 after a start: the operator metadata is written")
end

T.done()
