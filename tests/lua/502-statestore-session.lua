-- The state data source over session windows (Spark 4.0's
-- StateDataSourceReadSuite "session window aggregation"; operator
-- sessionWindowStateStoreSaveExec): the key is the other group columns
-- and the session_window struct {start, end}, the value the aggregation
-- buffers.  Expectations from the rows emitted: in complete mode the
-- state of batch B is batch B's output; in append mode a session leaves
-- the state in the batch that emits it, and a row that bridges two
-- sessions shows in the change feed as the later session's delete.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local reader = require("statestore").reader

local feeds = {
  {{"u1", 1, "2026-01-01 12:00:01"}, {"u2", 2, "2026-01-01 12:00:02"}, {"u1", 3, "2026-01-01 12:00:09"}},
  {{"u1", 4, "2026-01-01 12:00:05"}, {"u2", 5, "2026-01-01 12:00:20"}},
  {{"u3", 6, "2026-01-01 12:00:40"}},
}

local function run(mode, ck)
  local ms = spark.memoryStream("u STRING, v INT, t TIMESTAMP")
  local out = {}
  local q = ms:toDF():withWatermark("t", "5 seconds")
    :groupBy(F.session_window("t", "5 seconds"), "u")
    :agg(F.sum("v"):alias("s"), F.count("*"):alias("n"))
    .writeStream:outputMode(mode):option("checkpointLocation", ck)
    :foreachBatch(function(df, id)
      out[id] = T.sorted_rows(df:selectExpr("CAST(session_window.start AS STRING)",
        "CAST(session_window.end AS STRING)", "u", "s", "n"))
    end):start()
  for _, rows in ipairs(feeds) do
    ms:addData(rows)
    q:processAllAvailable()
  end
  local last = q.lastProgress.batchId
  q:stop()
  return out, last
end

local cols = {"CAST(key.session_window.start AS STRING)", "CAST(key.session_window.end AS STRING)",
              "key.u", "value.sum", "value.count"}

do
  local ck = T.tempdir() .. "/complete"
  local out, last = run("complete", ck)
  local df = reader():load(ck)
  T.is(df.schema, "key STRUCT<session_window: STRUCT<start: TIMESTAMP, end: TIMESTAMP>, u: STRING>, "
    .. "value STRUCT<sum: BIGINT, count: BIGINT>, partition_id INT", "session: key and value schema")
  for b = 0, last do
    T.is(T.sorted_rows(reader{batchId = b}:load(ck):selectExpr(table.unpack(cols))), out[b],
      "complete: the state of batch " .. b .. " is its output")
  end
  T.is(T.sorted_rows(reader{batchId = 0}:load(ck):selectExpr(table.unpack(cols))),
    {{"2026-01-01 12:00:01", "2026-01-01 12:00:06", "u1", 1, 1},
     {"2026-01-01 12:00:02", "2026-01-01 12:00:07", "u2", 2, 1},
     {"2026-01-01 12:00:09", "2026-01-01 12:00:14", "u1", 3, 1}}, "complete: batch 0's three sessions")
  -- batch 1's u1 row at :05 bridges [:01, :06) and [:09, :14): one session.
  -- The operator removes both stored sessions and puts the merged one, so
  -- the feed has the :01 key removed and put again (in that order) and the
  -- :09 key removed
  local ch = T.rows(reader{readChangeFeed = true, changeStartBatchId = 1, changeEndBatchId = 1}:load(ck)
    :selectExpr("change_type", "CAST(key.session_window.start AS STRING)", "key.u", "value.sum"))
  T.is(ch, {{"delete", "2026-01-01 12:00:01", "u1", nil},
            {"update", "2026-01-01 12:00:01", "u1", 8},
            {"delete", "2026-01-01 12:00:09", "u1", nil},
            {"update", "2026-01-01 12:00:20", "u2", 5}},
    "change feed: the bridging row merges u1's sessions (one updated, one deleted); u2 opens one")
end

do
  local ck = T.tempdir() .. "/append"
  local out, last = run("append", ck)
  local feed = reader{readChangeFeed = true, changeStartBatchId = 0}:load(ck)
  local emitted = 0
  for b = 0, last do
    local want = {}
    for i, r in ipairs(out[b] or {}) do want[i] = {r[1], r[3]}; emitted = emitted + 1 end
    local got = T.sorted_rows(feed:where("batch_id = " .. b .. " AND change_type = 'delete'")
      :selectExpr("CAST(key.session_window.start AS STRING)", "key.u"))
    -- a merge deletes a session that is not emitted: keep the deletes of emitted ones
    local keep = {}
    for _, g in ipairs(got) do
      for _, w in ipairs(want) do
        if g[1] == w[1] and g[2] == w[2] then keep[#keep + 1] = g end
      end
    end
    T.is(keep, T.sorted(want), "append: every session batch " .. b .. " emits leaves the state in it")
    if b > 0 and #want > 0 then
      local before = {}
      for i, r in ipairs(out[b]) do before[i] = r end
      local held = T.sorted_rows(reader{batchId = b - 1}:load(ck):selectExpr(table.unpack(cols)))
      local found = {}
      for _, h in ipairs(held) do
        for _, e in ipairs(before) do
          if T.repr(h) == T.repr(e) then found[#found + 1] = h end
        end
      end
      T.is(T.sorted(found), T.sorted(before),
        "append: batch " .. (b - 1) .. " holds the sessions batch " .. b .. " emits, values and all")
    end
  end
  T.ok(emitted >= 2, "append: sessions were emitted (" .. emitted .. ")")
end

T.done()
