-- livecross: a windowed aggregation over a rate source on a checkpoint,
-- triggers arg[2]..arg[3] of one second each (the manual clock starts at
-- 12:00:00 + arg[2] s), printing every emitted row; a later process goes
-- on from the checkpoint (tests/repl/031-live-state-diff.t runs the two
-- halves on different state providers).
local ck, from, to = arg[1], tonumber(arg[2]), tonumber(arg[3])
spark.clock:manual(string.format("2026-01-01 12:00:%02d", from))
local df = spark.readStream:format("rate"):option("rowsPerSecond", 7):load()
  :selectExpr("timestamp AS t", "value % 5 AS k", "CAST(value % 9 AS DOUBLE) / 4 AS amount", "value")
  :withWatermark("t", "3 seconds")
  :groupBy(F.window("t", "10 seconds"), "k")
  :agg(F.count("*"):alias("n"), F.sum("value"):alias("s"), F.max("amount"):alias("mx"),
       F.avg("amount"):alias("m"))
local q = df.writeStream:outputMode("append"):option("checkpointLocation", ck)
  :foreachBatch(function(out)
    for _, r in ipairs(out:collect()) do
      local f = {}
      for i = 1, #r do f[i] = tostring(r[i]) end
      print("B " .. table.concat(f, " "))
    end
  end):start()
for _ = from + 1, to do
  spark.clock:advance("1 second")
  q:processAllAvailable()
end
q:stop()
