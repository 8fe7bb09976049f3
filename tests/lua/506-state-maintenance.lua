-- State maintenance, as Spark's HDFS state store provider does it: a
-- snapshot (<version>.snapshot) is written by a maintenance pass, which
-- runs every spark.sql.streaming.stateStore.maintenanceInterval (60 s by
-- default; here on the engine's clock, counted from the first batch),
-- once minDeltasForSnapshot (10) deltas follow the last snapshot.  With
-- the interval 0 a pass comes every batch: versions 10, 20, ...  The
-- conf takes Spark's time strings; a bad one is refused with its name.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function snapshots(ck)
  local got = {}
  for _, f in ipairs(T.ls(ck .. "/state/0/0")) do
    local v = f:match("^(%d+)%.snapshot$")
    if v then got[#got + 1] = tonumber(v) end
  end
  table.sort(got)
  return got
end

-- batches of one row, `step` of the clock apart, n of them (ms: the
-- stream a restart goes on reading)
local runs = 0
local function run(ck, n, step, ms)
  ms = ms or spark.memoryStream("k INT")
  runs = runs + 1
  local q = ms:toDF():groupBy("k"):count().writeStream:format("memory")
    :queryName("m" .. runs):outputMode("complete")
    :option("checkpointLocation", ck):start()
  for i = 1, n do
    ms:addData{i % 3}
    q:processAllAvailable()
    spark.clock:advance(step)
  end
  q:stop()
  return ms
end

-- the default: one pass a minute of the clock
local ck = T.tempdir() .. "/default"
run(ck, 75, "1 second")
T.is(snapshots(ck), {61}, "60 s apart: one snapshot, at the first pass past 60 s (batch 60 = version 61)")

-- one batch a minute: every pass finds fewer than 10 deltas until the 10th
ck = T.tempdir() .. "/minute"
run(ck, 25, "1 minute")
T.is(snapshots(ck), {10, 20}, "a batch a minute: a snapshot every 10 versions")

-- the interval 0: a pass every batch
spark.conf:set("spark.sql.streaming.stateStore.maintenanceInterval", "0")
ck = T.tempdir() .. "/zero"
local ms = run(ck, 25, "1 second")
T.is(snapshots(ck), {10, 20}, "interval 0: versions 10, 20")
-- a restart counts from the snapshot it loaded
run(ck, 12, "1 second", ms)
T.is(snapshots(ck), {10, 20, 30}, "after a restart at version 25: the next at 30")

-- Spark's time strings
spark.conf:set("spark.sql.streaming.stateStore.maintenanceInterval", "30s")
ck = T.tempdir() .. "/thirty"
run(ck, 50, "1 second")
T.is(snapshots(ck), {31}, "30s: a pass at 30 s of the clock (version 31), the next at 60 s after the last batch")
spark.conf:unset("spark.sql.streaming.stateStore.maintenanceInterval")

T.errors(function()
  spark.conf:set("spark.sql.streaming.stateStore.maintenanceInterval", "ten seconds")
end, "spark%.sql%.streaming%.stateStore%.maintenanceInterval should be a time %(.*%), but was ten seconds",
  "a bad interval is refused, naming the conf and the value")
T.is(spark.conf:get("spark.sql.streaming.stateStore.maintenanceInterval"), "60s",
  "and the conf keeps its value")

T.done()
