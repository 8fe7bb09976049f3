-- The state data source over dropDuplicates and
-- dropDuplicatesWithinWatermark (Spark 4.0's StateDataSourceReadSuite
-- "dropDuplicates" / "dropDuplicatesWithinWatermark"): the key is the
-- deduplication columns; dropDuplicates' value is Spark's
-- {__dummy__: null}, within watermark's {expiresAtMicros} = the first
-- event time of the key + the watermark delay (SPARK-SEMANTICS.md 3.2).
-- Expected rows come from what the query emitted: every row the query
-- let through is a key in the state until the watermark evicts it, and
-- the change feed deletes each key in the batch whose watermark passes it.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local reader = require("statestore").reader

local feeds = {
  {{"a", "2026-01-01 12:00:01"}, {"a", "2026-01-01 12:00:01"}, {"b", "2026-01-01 12:00:02"}},
  {{"a", "2026-01-01 12:00:01"}, {"c", "2026-01-01 12:00:12"}, {"b", "2026-01-01 12:00:03"}},
  {{"a", "2026-01-01 12:00:25"}, {"d", "2026-01-01 12:00:26"}},
  {{"e", "2026-01-01 12:00:40"}},
}

local function run(build, ck)
  local ms = spark.memoryStream("k STRING, t TIMESTAMP")
  local out = {}
  local q = build(ms:toDF():withWatermark("t", "5 seconds")).writeStream
    :option("checkpointLocation", ck)
    :foreachBatch(function(df, id)
      out[id] = T.sorted_rows(df:selectExpr("k", "CAST(t AS STRING)"))
    end):start()
  for _, rows in ipairs(feeds) do
    ms:addData(rows)
    q:processAllAvailable()
  end
  local last = q.lastProgress.batchId
  q:stop()
  return out, last
end

-- dropDuplicates("k", "t"): a key stays until its time <= the watermark
do
  local ck = T.tempdir() .. "/dedup"
  local out, last = run(function(df) return df:dropDuplicates("k", "t") end, ck)
  local df = reader():load(ck)
  T.is(df.schema, "key STRUCT<k: STRING, t: TIMESTAMP>, value STRUCT<__dummy__: VOID>, partition_id INT",
    "dropDuplicates: key = the columns, value = Spark's __dummy__")
  local feed = reader{readChangeFeed = true, changeStartBatchId = 0}:load(ck)
  local held = {}
  for b = 0, last do
    for _, r in ipairs(out[b] or {}) do held[r[1] .. r[2]] = r end
    for _, r in ipairs(T.rows(feed:where("batch_id = " .. b .. " AND change_type = 'delete'")
      :selectExpr("key.k", "CAST(key.t AS STRING)"))) do
      T.ok(held[r[1] .. r[2]] ~= nil, "dropDuplicates: batch " .. b .. " deletes a key it had let through: " .. r[1])
      held[r[1] .. r[2]] = nil
    end
    local want = {}
    for _, r in pairs(held) do want[#want + 1] = r end
    T.is(T.sorted_rows(reader{batchId = b}:load(ck):selectExpr("key.k", "CAST(key.t AS STRING)")),
      T.sorted(want), "dropDuplicates: the state of batch " .. b .. " is the rows let through, not yet evicted")
  end
  T.is(T.rows(reader{batchId = 0}:load(ck):selectExpr("value.__dummy__")), {{nil}, {nil}},
    "dropDuplicates: __dummy__ is null")
end

-- dropDuplicatesWithinWatermark("k"): expiresAtMicros = first time + 5 s
do
  local ck = T.tempdir() .. "/within"
  local out, last = run(function(df) return df:dropDuplicatesWithinWatermark("k") end, ck)
  local first = {}
  for b = 0, last do
    for _, r in ipairs(out[b] or {}) do first[r[1]] = r[2] end
  end
  local noon = 1767268800 * 1000000 -- 2026-01-01 12:00:00 UTC in microseconds
  local rows = T.rows(reader{batchId = 0}:load(ck):selectExpr("key.k", "value.expiresAtMicros"))
  T.is(rows, {{"a", noon + 6000000}, {"b", noon + 7000000}},
    "within watermark, batch 0: expiresAtMicros = first event time + the 5 s delay")
  T.is(first.a, "2026-01-01 12:00:25", "within watermark: 'a' passes again once its entry expired")
  local want = {}
  for k, t in pairs(first) do want[#want + 1] = {k} end
  local ever = T.sorted_rows(reader{readChangeFeed = true, changeStartBatchId = 0}:load(ck)
    :where("change_type = 'update'"):selectExpr("key.k"):distinct())
  T.is(ever, T.sorted(want), "within watermark: the keys the change feed puts are the keys let through")
  local bd
  for b = 0, last do
    for _, r in ipairs(out[b] or {}) do if r[1] == "d" then bd = b end end
  end
  T.is(T.rows(reader{readChangeFeed = true, changeStartBatchId = bd, changeEndBatchId = bd}:load(ck)
    :where("change_type = 'update'"):selectExpr("change_type", "key.k")), {{"update", "a"}, {"update", "d"}},
    "within watermark: the batch that lets 'd' through puts 'a' again and 'd' (" .. tostring(bd) .. ")")
end

T.done()
