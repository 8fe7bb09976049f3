-- Spark's trigger slot after a restart (issue 17 item 5): the re-run batch
-- is the restarted query's first trigger; when processAllAvailable drives
-- it, the next processing-time batch waits for the next slot (Spark's
-- ProcessingTimeExecutor: now / interval * interval + interval) instead
-- of running again at the same instant.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local dir = T.tempdir()
local ms = spark.memoryStream("value INT")
local q = ms:toDF().writeStream:format("memory"):queryName("slot217"):option("checkpointLocation", dir)
  :trigger{processingTime = "10 seconds"}:start()
ms:addData{1}
spark.clock:advance("10 seconds")
T.is(#T.ran(q), 1, "batch 0 at 12:00:10")
ms:addData{2}
q:crash("after-offsets")
spark.clock:advance("10 seconds") -- an armed crash holds the background trigger
local ok = pcall(q.step, q)
T.is(q.isActive, false, "batch 1 crashed at 12:00:20 after its offsets were logged")
spark.clock:advance("3 seconds") -- 12:00:23
local r = q:restart()
r:processAllAvailable()
local ran = T.ran(r)
T.is(#ran, 1, "processAllAvailable re-ran batch 1")
T.is({ran[1].batchId, ran[1].timestamp}, {1, "2026-01-01T12:00:23.000Z"}, "at 12:00:23")
ms:addData{3}
spark.clock:advance("1 second") -- 12:00:24: the slot of 12:00:23 is taken
T.is(#T.ran(r), 1, "no second batch in the same slot")
spark.clock:advance("6 seconds") -- 12:00:30
ran = T.ran(r)
T.is(#ran, 2, "the next batch runs at the next slot")
T.is({ran[2].batchId, ran[2].timestamp}, {2, "2026-01-01T12:00:30.000Z"}, "batch 2 at 12:00:30")
T.is(T.sorted_rows(spark.table("slot217")), {{1}, {2}, {3}}, "every row once")
r:stop()
T.is(ok, false, "the step hit the crash")

T.done()
