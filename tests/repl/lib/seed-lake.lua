-- seed-lake.lua: the seed's three blocks, name for name (issue 15 "Done
-- when"), on the embedded Kafka cluster and the manual clock:
--   Kafka -> CAST(value AS STRING) AS json -> from_json(orders schema)
--   -> withWatermark + window + count -> writeStream.format("parquet")
--   with a checkpoint and processingTime = 1 minute,
-- and a second query writing the parsed orders to Parquet (the raw sink).
-- Each query is crashed once (after-sink), stepped into the crash,
-- restarted from its checkpoint, and fed more orders after.
--   streamlab run seed-lake.lua DIR
-- leaves DIR/lake, DIR/raw (the two sinks), DIR/chk, DIR/rawchk and
-- DIR/orders.jsonl: every order produced, one JSON object a line, for an
-- oracle outside streamlab (duckdb-lake.js).
local dir = assert(arg[1], "usage: seed-lake.lua DIR")
local lake, chk = dir .. "/lake", dir .. "/chk"
local raw, rawchk = dir .. "/raw", dir .. "/rawchk"
spark.clock:manual("2026-01-01 12:00:00")

kafka.createTopic("orders", 3)
local produced = assert(io.open(dir .. "/orders.jsonl", "w"))
local products = {"apple", "fig", "pear", "plum"}
local next_id = 1
-- n orders with event times from minute `from` on, one every `step` seconds
local function produce(n, from, step)
  for _ = 1, n do
    local secs = from * 60 + (next_id * step) % 300
    local json = string.format(
      '{"order_id":%d,"product_id":"%s","amount":%d,"event_time":"2026-01-01 %02d:%02d:%02d"}',
      next_id, products[next_id * 7 % #products + 1], next_id * 3 % 50 + 1,
      12 + secs // 3600, secs // 60 % 60, secs % 60)
    kafka.produce("orders", json, {partition = next_id % 3})
    produced:write(json, "\n")
    next_id = next_id + 1
  end
end

-- block 1: read the topic, parse the JSON
local orders = spark.readStream:format("kafka")
  :option("subscribe", "orders")
  :option("startingOffsets", "earliest")
  :load()
local parsed = orders
  :selectExpr("CAST(value AS STRING) AS json")
  :select(F.from_json(F.col("json"),
    "order_id INT, product_id STRING, amount INT, event_time TIMESTAMP"):alias("o"))
  :select("o.*")
-- block 2: windowed counts with a watermark
local counts = parsed
  :withWatermark("event_time", "10 minutes")
  :groupBy(F.window("event_time", "5 minutes"), "product_id")
  :count()
-- block 3: the lake
local function start_counts()
  return counts.writeStream:format("parquet")
    :option("path", lake)
    :option("checkpointLocation", chk)
    :outputMode("append")
    :trigger{processingTime = "1 minute"}
    :start()
end
local function start_raw()
  return parsed.writeStream:format("parquet")
    :option("path", raw)
    :option("checkpointLocation", rawchk)
    :trigger{processingTime = "1 minute"}
    :start()
end
local q, qr = start_counts(), start_raw()

produce(40, 0, 7)                  -- 12:00 .. 12:05
spark.clock:advance("1 minute")
produce(30, 5, 11)                 -- 12:05 .. 12:10
spark.clock:advance("1 minute")
produce(20, 20, 13)                -- 12:20 ..: the watermark passes 12:10
spark.clock:advance("1 minute")    -- the batch that reads them
-- the raw query: crash the batch that reads the next orders
qr:crash("after-sink")
produce(15, 21, 5)
-- the counts query: crash the no-data batch that closes 12:00 - 12:10
q:crash("after-sink")
spark.clock:advance("1 minute")    -- both armed: the batches wait for a step
local ok, err = pcall(q.step, q)
assert(not ok and tostring(err):match("simulated crash at 'after%-sink'"), tostring(err))
io.stderr:write("# counts: ", tostring(err), "\n")
ok, err = pcall(qr.step, qr)
assert(not ok and tostring(err):match("simulated crash at 'after%-sink'"), tostring(err))
io.stderr:write("# raw: ", tostring(err), "\n")
q, qr = q:restart(), qr:restart()
produce(25, 40, 3)                 -- 12:40 ..: closes everything before 12:30
for _ = 1, 4 do spark.clock:advance("1 minute") end
q:processAllAvailable()
qr:processAllAvailable()
q:stop()
qr:stop()
produced:close()
