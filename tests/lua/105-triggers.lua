-- Triggers on a manual clock: processingTime (nothing before the interval,
-- one batch at it), once, availableNow with maxFilesPerTrigger over a file
-- source, and the default trigger.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
T.is(spark.clock:now(), "2026-01-01 12:00:00", "spark.clock:now() on a manual clock")

-- processingTime = 1 minute
local ms = spark.memoryStream("value INT")
local q = ms:toDF():withColumn("ts", F.current_timestamp()).writeStream
  :format("memory"):queryName("pt"):trigger{processingTime = "1 minute"}:start()
ms:addData{1, 2}
spark.clock:advance("30 seconds")
T.is(spark.clock:now(), "2026-01-01 12:00:30", "advance moves the clock")
T.is(q.lastProgress, nil, "no batch before the interval")
spark.clock:advance("30 seconds")
T.is(q.lastProgress and q.lastProgress.batchId, 0, "one batch at the interval")
T.is(q.lastProgress and q.lastProgress.timestamp, "2026-01-01T12:01:00.000Z", "the batch ran at 12:01:00")
T.is(T.rows(spark.table("pt")), {{1, "2026-01-01 12:01:00"}, {2, "2026-01-01 12:01:00"}},
  "current_timestamp() is the batch timestamp")
spark.clock:advance("1 minute")
T.is(#T.ran(q), 1, "a tick without new data runs no batch")
ms:addData{3}
spark.clock:advance("59 seconds")
T.is(#T.ran(q), 1, "new data waits for the next multiple of the interval")
spark.clock:advance("1 second")
T.is(#T.ran(q), 2, "and runs at 12:03:00")
T.is(T.ran(q)[2].timestamp, "2026-01-01T12:03:00.000Z", "batch timestamp 12:03:00")
ms:addData{4}
spark.clock:advance("5 minutes")
T.is(#T.ran(q), 3, "advancing over several intervals runs the one batch that has data")
T.is(T.ran(q)[3].timestamp, "2026-01-01T12:04:00.000Z", "at the first due instant")
T.is(q:awaitTermination(1), false, "awaitTermination(timeout) on a running query: false")
q:stop()

-- Trigger.Once: one batch with everything, then the query stops
local ms2 = spark.memoryStream("value INT")
ms2:addData{1}
ms2:addData{2, 3}
q = ms2:toDF().writeStream:format("memory"):queryName("once"):trigger{once = true}:start()
T.is(q:awaitTermination(), true, "once: awaitTermination returns true after the batch")
T.is(q.isActive, false, "once: the query stopped by itself")
T.is(#q.recentProgress, 1, "once: exactly one batch")
T.is(T.rows(spark.table("once")), {{1}, {2}, {3}}, "once: with all the data")

-- Trigger.AvailableNow with maxFilesPerTrigger: rate-limited batches, then stop
local dir = T.tempdir()
T.put(dir, "a.json", '{"n":1}\n{"n":2}\n', "2026-01-01 11:00:01")
T.put(dir, "b.json", '{"n":3}\n', "2026-01-01 11:00:02")
T.put(dir, "c.json", '{"n":4}\n', "2026-01-01 11:00:03")
local files = spark.readStream:schema("n INT"):option("maxFilesPerTrigger", 1):json(dir)
local collect, seen = T.batches()
q = files.writeStream:trigger{availableNow = true}:foreachBatch(collect):start()
T.is(q:awaitTermination(), true, "availableNow: terminates")
T.is(#seen, 3, "availableNow: one batch per file (maxFilesPerTrigger = 1)")
T.is(seen, {{id = 0, rows = {{1}, {2}}}, {id = 1, rows = {{3}}}, {id = 2, rows = {{4}}}},
  "availableNow: the files in modification-time order")
T.is(q.isActive, false, "availableNow: stopped")

-- Trigger.Once over the same directory ignores the rate limit
collect, seen = T.batches()
q = files.writeStream:trigger{once = true}:foreachBatch(collect):start()
q:awaitTermination()
T.is(#seen, 1, "once ignores maxFilesPerTrigger: one batch")
T.is(seen[1] and #seen[1].rows, 4, "with every file")

-- the default trigger: a batch whenever there is new data
local ms3 = spark.memoryStream("value INT")
q = ms3:toDF().writeStream:format("memory"):queryName("dflt"):start()
ms3:addData{7}
spark.clock:advance("1 second")
T.is(T.rows(spark.table("dflt")), {{7}}, "default trigger: the next tick runs the new data")
ms3:addData{8}
T.is(q:awaitTermination(0), false, "awaitTermination(0) ticks, the query stays active")
T.is(T.rows(spark.table("dflt")), {{7}, {8}}, "and ran the new batch")
q:stop()

-- the clock itself
spark.clock:manual(0)
T.is(spark.clock:now(), "1970-01-01 00:00:00", "manual(seconds)")
spark.clock:manual("2026-01-01 12:00:00")
T.errors(function() spark.clock:advance("-1 minute") end, "time only moves forward", "no going back")
T.errors(function() spark.clock:advance("1 fortnight") end, "fortnight", "a bad duration")
T.errors(function() spark.clock:manual("soon") end, "cannot read 'soon' as a timestamp", "a bad instant")
spark.clock:real()
T.errors(function() spark.clock:advance("1 minute") end, "the clock is real time", "advance needs a manual clock")
local wall = os.time()
local now = spark.clock:now():sub(1, 19)
T.ok(now == os.date("!%Y-%m-%d %H:%M:%S", wall) or now == os.date("!%Y-%m-%d %H:%M:%S", wall + 1),
  "real() goes back to wall time")

T.done()
