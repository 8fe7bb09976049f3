-- The state data source over a stream-stream join (Spark 4.0's
-- StateDataSourceReadSuite "stream-stream join" tests; operator
-- symmetricHashJoin): joinSide 'left'/'right' gives the rows each side
-- holds, as the side's input columns plus partition_id; the stores by
-- Spark's names give <side>-keyWithIndexToValue (key field0.. and index,
-- value the row and matched) and <side>-keyToNumValues (the count of rows
-- per join key).  Expectations from the inputs and the joined rows the
-- query emitted: every input row is held until the state watermark passes
-- it; a held left row is matched exactly when a joined row used it; the
-- change feed of keyWithIndexToValue puts each held row in the batch that
-- added it and deletes it in the batch that evicted it.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local reader = require("statestore").reader

local ck = T.tempdir() .. "/join"
local left = spark.memoryStream("id INT, lt TIMESTAMP, lv STRING")
local right = spark.memoryStream("rid INT, rt TIMESTAMP")
local joined = left:toDF():withWatermark("lt", "5 seconds")
  :join(right:toDF():withWatermark("rt", "5 seconds"),
        F.expr("id = rid AND rt BETWEEN lt AND lt + interval 5 seconds"), "leftOuter")
local out = {}
local q = joined.writeStream:option("checkpointLocation", ck)
  :foreachBatch(function(df, id)
    out[id] = T.sorted_rows(df:selectExpr("id", "lv", "CAST(rt AS STRING)"))
  end):start()
local steps = {
  {left = {{1, "2026-01-01 12:00:01", "x"}, {2, "2026-01-01 12:00:02", "y"}}, right = {{1, "2026-01-01 12:00:03"}}},
  {left = {{3, "2026-01-01 12:00:04", "z"}}, right = {{3, "2026-01-01 12:00:20"}}},
  {left = {{4, "2026-01-01 12:00:30", "w"}}, right = {{4, "2026-01-01 12:00:31"}}},
}
for _, st in ipairs(steps) do
  left:addData(st.left)
  right:addData(st.right)
  q:processAllAvailable()
end
local last = q.lastProgress.batchId
q:stop()

-- which left rows a joined (non-NULL right) row used, per batch
local matched_by = {}
for b = 0, last do
  for _, r in ipairs(out[b] or {}) do
    if r[3] ~= nil then matched_by[r[1]] = matched_by[r[1]] or b end
  end
end

T.is(reader{joinSide = "left"}:load(ck).columns, {"id", "lt", "lv", "partition_id"},
  "joinSide left: the left input's columns and partition_id")
T.is(reader{joinSide = "right"}:load(ck).columns, {"rid", "rt", "partition_id"},
  "joinSide right: the right input's columns and partition_id")
T.is(T.rows(reader{joinSide = "left", batchId = 0}:load(ck):selectExpr("id", "CAST(lt AS STRING)", "lv")),
  {{1, "2026-01-01 12:00:01", "x"}, {2, "2026-01-01 12:00:02", "y"}}, "batch 0: the left side holds both rows")
T.is(T.rows(reader{joinSide = "right", batchId = 0}:load(ck):selectExpr("rid", "CAST(rt AS STRING)")),
  {{1, "2026-01-01 12:00:03"}}, "batch 0: the right side holds its row")

-- every batch: the left rows held are the inputs so far not yet evicted;
-- matched is true exactly for the ids a joined row used by then
local kwi = reader{storeName = "left-keyWithIndexToValue", readChangeFeed = true, changeStartBatchId = 0}:load(ck)
local held = {}
for b = 0, last do
  for _, r in ipairs(T.rows(kwi:where("batch_id = " .. b):selectExpr("change_type", "key.field0"))) do
    held[r[2]] = r[1] == "update" or nil
  end
  local want = {}
  for id in pairs(held) do
    want[#want + 1] = {id, matched_by[id] ~= nil and matched_by[id] <= b}
  end
  T.is(T.sorted_rows(reader{storeName = "left-keyWithIndexToValue", batchId = b}:load(ck)
    :selectExpr("key.field0", "value.matched")), T.sorted(want),
    "left-keyWithIndexToValue, batch " .. b .. ": the rows held, matched as the output says")
  T.is(T.sorted_rows(reader{joinSide = "left", batchId = b}:load(ck):selectExpr("id")),
    T.sorted((function() local t = {} for _, w in ipairs(want) do t[#t + 1] = {w[1]} end return t end)()),
    "joinSide left, batch " .. b .. ": the same rows")
end
local evicted = T.rows(kwi:where("change_type = 'delete'"):selectExpr("key.field0"))
T.ok(#evicted >= 2, "the state watermark evicted left rows (" .. #evicted .. ")")
-- an evicted unmatched left row is the NULL-padded row of the batch that evicts it
for _, r in ipairs(T.rows(kwi:where("change_type = 'delete'"):selectExpr("batch_id", "key.field0"))) do
  if matched_by[r[2]] == nil then
    local padded = false
    for _, o in ipairs(out[r[1]] or {}) do
      if o[1] == r[2] and o[3] == nil then padded = true end
    end
    T.ok(padded, "left id " .. r[2] .. " leaves the state in batch " .. r[1] .. ", which emits it with NULLs")
  end
end

T.is(T.sorted_rows(reader{storeName = "left-keyToNumValues", batchId = 0}:load(ck)
  :selectExpr("key.field0", "value.value")), {{1, 1}, {2, 1}}, "left-keyToNumValues: one row per key")
T.is(reader{storeName = "right-keyWithIndexToValue", batchId = 0}:load(ck).schema,
  "key STRUCT<field0: INT, index: BIGINT>, value STRUCT<rid: INT, rt: TIMESTAMP, matched: BOOLEAN>, partition_id INT",
  "right-keyWithIndexToValue: key field0 and index, value the row and matched")

local meta = T.rows(spark.read:format("state-metadata"):load(ck):selectExpr("operatorName", "stateStoreName"))
T.is(meta, {{"symmetricHashJoin", "left-keyToNumValues"}, {"symmetricHashJoin", "left-keyWithIndexToValue"},
            {"symmetricHashJoin", "right-keyToNumValues"}, {"symmetricHashJoin", "right-keyWithIndexToValue"}},
  "state-metadata: the join's four stores, as Spark lists them")

T.errors(function() return reader():load(ck) end,
  "statestore: invalid value for source option 'joinSide': operator 0 is a stream%-stream join",
  "a join without joinSide or a store name: the stores are named")
T.errors(function() return reader{joinSide = "left", readChangeFeed = true, changeStartBatchId = 0}:load(ck) end,
  "the options %['joinSide', 'readChangeFeed'%] cannot be specified together", "joinSide with readChangeFeed: Spark's conflict")
T.errors(function() return reader{joinSide = "middle"}:load(ck) end,
  "invalid value for source option 'joinSide': 'middle' %(valid values are left,right,none%)", "a bad joinSide")

T.done()
