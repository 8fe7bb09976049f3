-- The state data source over a streaming aggregation's checkpoint, in each
-- output mode (Spark 4.0's spark.read.format("statestore"),
-- StateDataSourceReadSuite's "aggregation" tests): the state of batch B is
-- state version B + 1; key is the group columns (the window struct among
-- them), value the aggregation buffers named as Spark names them (count,
-- sum, avg's sum and count, max).  Every expectation comes from the rows
-- the query emitted: in complete mode the state of batch B is batch B's
-- output; in update mode it is the latest output of every group so far; in
-- append mode a window leaves the state (a change-feed delete) in exactly
-- the batch that emits it, with the values the state held the batch before.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local reader = require("statestore").reader

-- the query over a memory stream, its output per batch id
local function run(mode, agg, feeds, ck)
  local ms = spark.memoryStream("k STRING, v INT, t TIMESTAMP")
  local out = {}
  local q = agg(ms:toDF()).writeStream:outputMode(mode)
    :option("checkpointLocation", ck)
    :foreachBatch(function(df, id) out[id] = T.sorted_rows(df) end):start()
  for _, rows in ipairs(feeds) do
    ms:addData(rows)
    q:processAllAvailable()
  end
  local last = q.lastProgress.batchId
  q:stop()
  return out, last
end

local feeds = {
  {{"a", 1, "2026-01-01 12:00:01"}, {"b", 2, "2026-01-01 12:00:02"}, {"a", 3, "2026-01-01 12:00:04"}},
  {{"b", 10, "2026-01-01 12:00:05"}, {"c", 5, "2026-01-01 12:00:06"}},
  {{"a", 7, "2026-01-01 12:00:07"}, {"c", 1, "2026-01-01 12:00:08"}, {"d", 4, "2026-01-01 12:00:09"}},
}

local function by_key(df)
  return F.count("*"):alias("n"), F.sum("v"):alias("s"), F.avg("v"):alias("m"), F.max("v"):alias("mx")
end
local plain = function(df) return df:groupBy("k"):agg(by_key()) end
local cols = {"key.k", "value.count", "value.sum", "value.sum_2", "value.count_2", "value.max"}
-- an output row {k, n, s, m, mx} as the state holds it
local function as_state(r) return {r[1], r[2], r[3], r[4] * r[2], r[2], r[5]} end

-- complete mode: the state of every batch is that batch's output
do
  local ck = T.tempdir() .. "/complete"
  local out, last = run("complete", plain, feeds, ck)
  T.is(last, 2, "complete: three batches")
  for b = 0, last do
    local want = {}
    for i, r in ipairs(out[b]) do want[i] = as_state(r) end
    T.is(T.sorted_rows(reader{batchId = b}:load(ck):selectExpr(table.unpack(cols))), want,
      "complete: the state of batch " .. b .. " is its output")
  end
  T.is(T.sorted_rows(reader():load(ck):selectExpr(table.unpack(cols))),
    T.sorted_rows(reader{batchId = last}:load(ck):selectExpr(table.unpack(cols))),
    "complete: batchId defaults to the last committed batch")
  local df = reader():load(ck)
  T.is(df.columns, {"key", "value", "partition_id"}, "columns key, value, partition_id")
  T.is(T.rows(df:selectExpr("partition_id"):distinct()), {{0}}, "one partition: partition_id 0")
  T.is(df.schema,
    "key STRUCT<k: STRING>, value STRUCT<count: BIGINT, sum: BIGINT, sum_2: DOUBLE, count_2: BIGINT, max: INT>, partition_id INT",
    "value: count, sum, avg's sum and count (a repeated name gets _2), max")
end

-- update mode: the state is the last output row of every group so far
do
  local ck = T.tempdir() .. "/update"
  local out, last = run("update", plain, feeds, ck)
  local latest = {}
  for b = 0, last do
    for _, r in ipairs(out[b] or {}) do latest[r[1]] = as_state(r) end
    local want = {}
    for _, r in pairs(latest) do want[#want + 1] = r end
    T.is(T.sorted_rows(reader{batchId = b}:load(ck):selectExpr(table.unpack(cols))), T.sorted(want),
      "update: the state of batch " .. b .. " is the latest output of each group")
  end
  -- the change feed of each batch is that batch's output (every changed group)
  local feed = reader{readChangeFeed = true, changeStartBatchId = 0}:load(ck)
  T.is(feed.columns, {"batch_id", "change_type", "key", "value", "partition_id"}, "change feed columns")
  for b = 0, last do
    local want = {}
    for i, r in ipairs(out[b]) do want[i] = {b, "update", table.unpack(as_state(r))} end
    T.is(T.sorted_rows(feed:where("batch_id = " .. b):selectExpr("batch_id", "change_type", table.unpack(cols))),
      want, "update: the change feed of batch " .. b .. " is its output")
  end
  T.is(T.rows(reader{readChangeFeed = true, changeStartBatchId = 1, changeEndBatchId = 1}:load(ck)
    :selectExpr("batch_id"):distinct()), {{1}}, "changeStartBatchId..changeEndBatchId bound the feed")
end

-- append mode with a watermark: a window leaves the state when it is emitted
do
  local ck = T.tempdir() .. "/append"
  local windowed = function(df)
    return df:withWatermark("t", "2 seconds"):groupBy(F.window("t", "3 seconds"), "k"):agg(by_key())
  end
  local out, last = run("append", windowed, feeds, ck)
  local wcols = {"CAST(key.window.start AS STRING)", "key.k", "value.count", "value.sum", "value.max"}
  local emitted = 0
  local feed = reader{readChangeFeed = true, changeStartBatchId = 0}:load(ck)
  for b = 1, last do
    local want, before = {}, {}
    for i, r in ipairs(out[b] or {}) do
      want[i] = {r[1].start, r[2]}
      before[i] = {r[1].start, r[2], r[3], r[4], r[6]}
      emitted = emitted + 1
    end
    T.is(T.sorted_rows(feed:where("batch_id = " .. b .. " AND change_type = 'delete'")
      :selectExpr("CAST(key.window.start AS STRING)", "key.k")), T.sorted(want),
      "append: the windows batch " .. b .. " deletes are the ones it emits")
    local held = T.rows(reader{batchId = b - 1}:load(ck):selectExpr(table.unpack(wcols)))
    local keep = {}
    for _, h in ipairs(held) do
      for _, e in ipairs(before) do
        if h[1] == e[1] and h[2] == e[2] then keep[#keep + 1] = h end
      end
    end
    T.is(T.sorted(keep), T.sorted(before),
      "append: batch " .. (b - 1) .. "'s state holds what batch " .. b .. " emits")
  end
  T.ok(emitted >= 3, "append: windows were emitted (" .. emitted .. ")")
  local open = reader():load(ck):count()
  T.ok(open > 0, "append: the last batch's state holds the open windows (" .. open .. ")")
  -- every window the state held at some batch is emitted or still open
  local seen = feed:where("change_type = 'update'"):select("key"):distinct():count()
  T.is(seen, emitted + open, "append: every window in the change feed is emitted or still open")
end

-- sliding windows (merged by slices) and the other buffers: last with
-- valueSet, approx_count_distinct's registers (2^9 bytes at rsd 0.05)
do
  local ck = T.tempdir() .. "/sliding"
  local sliding = function(df)
    return df:groupBy(F.window("t", "4 seconds", "2 seconds"), "k")
      :agg(F.sum("v"):alias("s"), F.last("v"):alias("l"), F.approx_count_distinct("v"):alias("d"))
  end
  local out, last = run("complete", sliding, feeds, ck)
  for b = 0, last do
    local want = {}
    for i, r in ipairs(out[b]) do want[i] = {r[1].start, r[2], r[3], r[4], true, 512} end
    T.is(T.sorted_rows(reader{batchId = b}:load(ck):selectExpr("CAST(key.window.start AS STRING)", "key.k",
      "value.sum", "value.last", "value.valueSet", "length(value.registers)")), T.sorted(want),
      "sliding windows, batch " .. b .. ": sum and last as emitted, 512 registers")
  end
end

-- the source in explain's and toPySpark's words
do
  local ck = T.tempdir() .. "/py"
  run("complete", plain, {feeds[1]}, ck)
  local py = reader{batchId = 0}:load(ck):toPySpark()
  T.like(py, 'spark%.read%.format%("statestore"%)', "toPySpark: Spark 4.0's reader")
  T.like(py, '%.option%("batchId", "0"%)', "toPySpark: with its options")
  T.like(py, "experimental", "toPySpark: says the source is experimental in Spark 4.0")
end

T.done()
