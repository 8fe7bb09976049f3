-- ckrun: the program the real-process recovery tests (tests/repl/02N-*.t)
-- run with `streamlab run ckrun.lua SRC OUT CKPT [hold STOPFILE READYFILE]`.
--
-- Records {"id":N,"word":"kN","t":"2026-01-01 12:..."} in json files under
-- SRC go one file per batch (maxFilesPerTrigger 1) through a 1-minute
-- tumbling count and sum(id) per word with a 30-second watermark, append
-- mode, into the json file sink at OUT, checkpoint at CKPT.  The clock is
-- manual and never moves, so the batches (and their logged timestamps)
-- are a function of the input: a run that was killed and restarted must
-- end with exactly the files an uncrashed run writes.
-- It processes everything available, then stops and exits 0.  With
-- "hold STOPFILE" it then keeps the query (and the checkpoint lock) open
-- until STOPFILE exists (the lock test), after creating READYFILE.
local src, out, ck, mode, stopfile, readyfile = ...
assert(src and out and ck, "usage: ckrun.lua SRC OUT CKPT [hold STOPFILE READYFILE]")

spark.clock:manual("2026-01-01 15:00:00")
-- CKRUN_RETAIN / CKRUN_SNAPSHOT: a short retention and frequent snapshots,
-- so the crash tests also cover purges and the spare files they leave
if os.getenv("CKRUN_RETAIN") then
  spark.conf:set("spark.sql.streaming.minBatchesToRetain", os.getenv("CKRUN_RETAIN"))
end
-- the clock never moves, so a state maintenance pass (a snapshot's
-- chance) comes every batch, not every 60 s of it (Spark's default)
spark.conf:set("spark.sql.streaming.stateStore.maintenanceInterval", "0")
if os.getenv("CKRUN_SNAPSHOT") then
  spark.conf:set("spark.sql.streaming.stateStore.minDeltasForSnapshot", os.getenv("CKRUN_SNAPSHOT"))
end
local df = spark.readStream:format("json"):schema("id BIGINT, word STRING, t TIMESTAMP")
  :option("maxFilesPerTrigger", 1):load(src)
  :withWatermark("t", "30 seconds")
  :groupBy(F.window("t", "1 minute"), "word")
  :agg(F.count("*"):alias("cnt"), F.sum("id"):alias("sm"))
  :select(F.col("window"):getField("start"):cast("string"):alias("start"), "word", "cnt", "sm")
local q = df.writeStream:format("json"):outputMode("append")
  :option("checkpointLocation", ck):start(out)
q:processAllAvailable()
print("done batch " .. tostring(q.lastProgress and q.lastProgress.batchId))
io.stdout:flush()
if mode == "hold" then
  assert(io.open(readyfile, "w")):close()
  while true do
    local f = io.open(stopfile)
    if f then f:close() break end
    os.execute("sleep 0.05")
  end
end
q:stop()
