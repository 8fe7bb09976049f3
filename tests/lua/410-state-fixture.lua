-- Recovery from a checkpoint written before issue 18's state work: the
-- fixture tests/fixtures/state-v1 (made by gen-state-v1.lua with the
-- streamlab of commit c3a0f27: a snapshot at version 20, deltas up to 26,
-- LZ4 payloads) must load into today's state store and the windowed
-- aggregation must go on from it.  Every window below was opened before
-- the checkpoint was taken and closes after the restart, so each emitted
-- row holds rows counted by the old process; without the restored state
-- the counts would be short.  Expected rows are computed here from the
-- rate source's formula (value v at creation + v / 4 seconds), not from a
-- run: Spark's RateStreamProvider and StreamingAggregationSuite's
-- "state store recovery" style restart.
local T = require("tap")

local here = debug.getinfo(1, "S").source:match("^[@=]?(.*)/[^/]*$") or "."
local ck = T.tempdir() .. "/ck"
assert(os.execute("cp -r '" .. here .. "/../fixtures/state-v1' '" .. ck .. "'"), "copy the fixture")

-- the clock where the old run stopped: 13 triggers of 1 s after 12:00:00
spark.clock:manual("2026-01-01 12:00:13")
local df = spark.readStream:format("rate"):option("rowsPerSecond", 4):load()
  :selectExpr("timestamp AS t", "value % 3 AS k", "CAST(value AS DOUBLE) / 4 AS amount", "value")
  :withWatermark("t", "5 seconds")
  :groupBy(F.window("t", "10 seconds"), "k")
  :agg(F.count("*"):alias("n"), F.sum("amount"):alias("total"), F.sum("value"):alias("vsum"),
       F.max("value"):alias("vmax"))
local q = df.writeStream:format("memory"):queryName("w"):outputMode("append")
  :option("checkpointLocation", ck):start()
spark.clock:advance("1 second") -- rows of 12:00:13 .. 12:00:13.75: window 12:00:10
q:processAllAvailable()
local p = q.recentProgress[1]
T.is(p and p.batchId, 26, "the restarted query goes on with the batch after the fixture's last (25)")
T.is(p and p.numInputRows, 4, "that batch reads the four rows of one second")
T.is(p and p.stateOperators[1].numRowsTotal, 6,
  "the fixture's six groups (two windows x three keys) are in the state after the restart")
for _ = 1, 26 do
  spark.clock:advance("1 second")
  q:processAllAvailable()
end
q:stop()

local want = {}
for w = 0, 2 do
  for k = 0, 2 do
    local n, total, vsum, vmax = 0, 0.0, 0, -1
    for v = 40 * w, 40 * w + 39 do
      if v % 3 == k then
        n, total, vsum, vmax = n + 1, total + v / 4, vsum + v, v
      end
    end
    want[#want + 1] = {string.format("2026-01-01 12:00:%02d", 10 * w), k, n, total, vsum, vmax}
  end
end
local got = T.rows(spark.table("w"):selectExpr("CAST(window.start AS STRING) AS s", "k", "n", "total", "vsum", "vmax")
  :orderBy("s", "k"))
T.is(got, want, "windows 12:00:00, :10 and :20 by key: counts and sums over rows before and after the restart")
T.done()
