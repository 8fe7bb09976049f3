-- from_json(CAST(value AS STRING)) over Kafka values scans them where the
-- fetcher laid them out (each followed by '\n', back to back: json.c's
-- in-place path) and CAST binary -> string shares the value bytes (a
-- view).  Values a JSON-lines file cannot hold must still give what the
-- copying decoder gives over the same texts (createDataFrame strings):
-- a second record after a newline inside a value (Jackson reads the
-- first), a newline as whitespace, a lone newline, empty values, NULL
-- values, invalid UTF-8; each between well-formed records, so the fast
-- path runs before and after them.  The decoded strings are read after
-- the source's batch is gone (the memory sink keeps copies; the state of
-- a count by product_id keeps its keys).
local T = require("tap")
spark.clock:manual("2026-01-01 12:00:00")

local DDL = "ts TIMESTAMP, product_id STRING, amount INT"
local odd = {
  '{"amount":1}\n{"amount":2}',
  '{"amount":\n3,"product_id":"q3"}',
  '\n',
  '',
  '{"amount":4}\n',
  '\n{"amount":5}',
  '{"product_id":"\255\195(","amount":6}',
  '{"product_id":"a\\nb","amount":7}',
  '{"amount":8',
  '{"amount":9}{"amount":10}',
}
local all = {}
for i = 1, 300 do
  all[#all + 1] = string.format('{"ts":"2026-01-01 12:00:%02d","product_id":"p%d","amount":%d}',
    i % 60, i % 7, i)
  if i % 10 == 0 then all[#all + 1] = odd[i // 10 % #odd + 1] end
end

kafka.createTopic("k309", 1)
kafka.produce("k309", all, { partition = 0 })
kafka.produce("k309", "", { partition = 0 })
local q = spark.readStream:format("kafka"):option("subscribe", "k309")
  :option("startingOffsets", "earliest"):load()
  :selectExpr("offset", "from_json(CAST(value AS STRING), '" .. DDL .. "') AS j",
              "length(CAST(value AS STRING)) AS n")
  :selectExpr("offset", "j.ts AS ts", "j.product_id AS product_id", "j.amount AS amount", "n")
  .writeStream:format("memory"):queryName("k309"):start()
q:processAllAvailable()
q:stop()
all[#all + 1] = ""

local rows = {}
for i, t in ipairs(all) do rows[i] = { t } end
local want = spark.createDataFrame(rows, "s STRING")
  :selectExpr("from_json(s, '" .. DDL .. "') AS j", "length(s) AS n")
  :selectExpr("j.ts AS ts", "j.product_id AS product_id", "j.amount AS amount", "n"):collect()
local got = spark.table("k309"):orderBy("offset"):collect()
T.is(#got, #all, #all .. " records through the Kafka source")
local bad = {}
for i = 1, #all do
  for _, c in ipairs({ "ts", "product_id", "amount", "n" }) do
    local a, b = got[i] and got[i][c], want[i] and want[i][c]
    if tostring(a) ~= tostring(b) then
      bad[#bad + 1] = string.format("record %d %s: kafka %s, copied %s (%q)", i, c,
        tostring(a), tostring(b), all[i])
    end
  end
end
T.is(bad, {}, "in place over Kafka values = the copying decoder, field by field")
local function find(text)
  for i, t in ipairs(all) do if t == text then return got[i] end end
end
T.is(find(odd[1]).amount, 1, "a newline inside a value: the first record, as Jackson")
T.is(find(odd[2]).product_id, "q3", "a newline as whitespace inside a value")
T.is(find(odd[7]).product_id, "\255\195(", "invalid UTF-8 kept byte for byte")
T.is(got[#all].n, 0, "an empty value is an empty string")
T.is(got[#all].amount, nil, "and decodes to nulls")
T.done()
