-- W2-parquet's input (bench/run.pl): the CSV files of `peer_loop gen`
-- rewritten as Parquet by a streaming query, one part file per CSV file
-- (Spark's names, snappy), as the seed's lake is written.
--   streamlab run bench/gen_parquet.lua CSV_DIR OUT_DIR CHECKPOINT_DIR
local src_dir, out, ck = assert(arg[1]), assert(arg[2]), assert(arg[3])
spark.clock:manual("2026-01-01 13:00:00")
local q = spark.readStream:schema("ts TIMESTAMP, product_id STRING, amount INT")
  :option("maxFilesPerTrigger", 1):csv(src_dir)
  .writeStream:format("parquet"):option("path", out):option("checkpointLocation", ck)
  :trigger{availableNow = true}:start()
q:awaitTermination()
