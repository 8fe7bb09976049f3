-- from_json(CAST(value AS STRING)) over Kafka records (W3's query) takes
-- the JSON reader's fast path (jsonscan.c) where it can and the general
-- parser elsewhere; both must give what the general parser alone gives.
-- Differential check: the same texts as a JSON-lines file read with
-- fastPath=false, record by record, over well-formed, reordered,
-- partial, mistyped, escaped, nested and malformed records.
local T = require("tap")
spark.clock:manual("2026-01-01 12:00:00")

local DDL = "ts TIMESTAMP, product_id STRING, amount INT, price DOUBLE, ok BOOLEAN, n BIGINT"
local texts = {
  '{"ts":"2026-01-01 12:00:03","product_id":"p17","amount":12,"price":1.5,"ok":true,"n":7}',
  '{"ts":"2026-01-01 12:00:04","product_id":"p18","amount":-3,"price":-0.25,"ok":false,"n":-9}',
  '{"product_id":"p19","ts":"2026-01-01 12:00:05","amount":1}',
  '{"ts":"2026-01-01 12:00:06"}',
  '{}',
  '{"ts":"2026-01-01 12:00:07","product_id":"p20","amount":12,"extra":"x"}',
  '{"amount":1,"amount":2}',
  '{"product_id":"p\\"q","amount":5}',
  '{"product_id":"\\u0041B","amount":6}',
  '{"product_id":{"a":1},"amount":7}',
  '{"amount":"12"}',
  '{"amount":1.5}',
  '{"amount":3000000000}',
  '{"n":9223372036854775807,"price":1e3}',
  '{"n":92233720368547758070}',
  '{"ok":"true","price":"x"}',
  '{"ts":null,"product_id":null,"amount":null}',
  '{ "amount" : 8 , "product_id" : "p21" }',
  '{"amount":\t9}',
  '{"ts":"2026-01-01T12:00:08Z","amount":10}',
  '{"ts":"2026-01-01 12:00:09.5","amount":11}',
  '{"ts":"2026-13-01 12:00:00","amount":12}',
  '{"amount":13} x',
  '{"amount":14',
  'not json',
  '[1,2]',
  '{"product_id":"caf\195\169","amount":15}',
  '{"ts":"2026-01-01 12:00:10","product_id":"p22","amount":16,"price":2,"ok":true,"n":1}',
}
-- the well-formed shape again between the odd ones, so the fast path's
-- key order prediction is exercised after every miss
local all = {}
for i, t in ipairs(texts) do
  all[#all + 1] = t
  all[#all + 1] = texts[1]:gsub("p17", "p" .. (100 + i))
end

kafka.createTopic("k305", 1)
for _, t in ipairs(all) do kafka.produce("k305", t) end
local q = spark.readStream:format("kafka"):option("subscribe", "k305")
  :option("startingOffsets", "earliest"):load()
  :selectExpr("offset", "from_json(CAST(value AS STRING), '" .. DDL .. "') AS j")
  :selectExpr("offset", "j.ts AS ts", "j.product_id AS product_id", "j.amount AS amount",
              "j.price AS price", "j.ok AS ok", "j.n AS n")
  .writeStream:format("memory"):queryName("k305"):start()
q:processAllAvailable()
q:stop()

local path = T.tempdir() .. "/texts.json"
local f = assert(io.open(path, "w"))
for _, t in ipairs(all) do f:write(t, "\n") end
f:close()
local want = spark.read:schema(DDL):option("fastPath", "false"):json(path)
  :selectExpr("ts", "product_id", "amount", "price", "ok", "n"):collect()

local got = spark.table("k305"):orderBy("offset"):collect()
T.is(#got, #all, #all .. " records through the Kafka source")
T.is(#want, #all, #all .. " records through the general parser")
local cols = {"ts", "product_id", "amount", "price", "ok", "n"}
local bad = {}
for i = 1, #all do
  for _, c in ipairs(cols) do
    local a, b = got[i] and got[i][c], want[i] and want[i][c]
    if tostring(a) ~= tostring(b) then
      bad[#bad + 1] = string.format("record %d %s: from_json %s, reader %s (%s)",
        i, c, tostring(a), tostring(b), all[i])
    end
  end
end
T.is(bad, {}, "from_json over Kafka values equals the general parser, field by field")
T.is(got[1].product_id, "p17", "a well-formed record's string")
T.is(got[1].amount, 12, "a well-formed record's int")

-- texts a JSON-lines file cannot hold: a newline inside, an empty value
local df = spark.createDataFrame({{'{"amount":\n1,"product_id":"p1"}'}, {""}, {'{"amount":2}'}}, "s STRING")
  :selectExpr("from_json(s, 'amount INT, product_id STRING') AS j")
  :selectExpr("j.amount AS amount", "j.product_id AS product_id")
local rows = df:collect()
T.is({rows[1].amount, rows[1].product_id}, {1, "p1"}, "a record with a newline inside parses (general parser)")
T.is({rows[2].amount, rows[2].product_id}, {nil, nil}, "an empty text gives nulls")
T.is(rows[3].amount, 2, "the next record is not disturbed")
T.done()
