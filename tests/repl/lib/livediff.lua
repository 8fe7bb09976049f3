-- livediff: one random streaming aggregation for the differential test of
-- the state providers (tests/repl/031-live-state-diff.t runs it under
-- STREAMLAB_STATE_PROVIDER=bytes and without, and compares).  arg[1] is
-- the seed, arg[2] the checkpointLocation, arg[3] a crash point for a
-- crash in the middle (then q:restart: the store is restored from the
-- checkpoint files), arg[4] the batch to fail in foreachBatch (the
-- batch's stores abort, then q:restart).
-- The seed picks: a window (tumbling, or sliding with first/last so it is
-- not sliced) at any position among the group keys, group columns (INT,
-- BOOLEAN, BIGINT, DOUBLE with -0.0; NULLs), aggregates, the output
-- mode, the watermark delay; then batches of rows, some late, some with
-- NULL keys.  Prints every row foreachBatch is handed, in the order
-- given, and each batch's state numbers.
local seed = tonumber(arg[1]) or 1
local ck = arg[2]
local point = arg[3] ~= "" and arg[3] or nil
local failb = tonumber(arg[4] or "")
math.randomseed(seed)
local R = math.random

local size = ({10, 20, 60})[R(3)]
local sliding = seed % 5 == 2 or R(10) <= 2
-- two windows a row, or five (the live table probes each with one hash)
local slide = sliding and (seed % 3 == 0 and size // 5 or size // 2) or nil
local delay = ({0, 5, 10})[R(3)]
local mode = seed % 2 == 0 and "append" or "update"
local cols = {}
for _, c in ipairs{"k", "b", "g", "dk"} do
  if R(2) == 1 then cols[#cols + 1] = c end
end
local aggs = {}
local menu = {
  {"count(*)", F.count("*")}, {"sum(v)", F.sum("v")}, {"sum(d)", F.sum("d")},
  {"max(v)", F.max("v")}, {"min(k)", F.min("k")}, {"avg(d)", F.avg("d")},
  {"count(d)", F.count("d")}, {"max(t)", F.max("t")},
}
if sliding then
  menu = {{"first(v)", F.first("v")}, {"last(d)", F.last("d")}, {"count(*)", F.count("*")}}
end
local names = {}
for _, m in ipairs(menu) do
  if R(2) == 1 or #aggs == 0 and _ == #menu then
    aggs[#aggs + 1] = m[2]:alias("a" .. #aggs)
    names[#names + 1] = m[1]
  end
end

spark.clock:manual("2026-01-01 12:00:00")
-- a maintenance pass every batch (not every 60 s of the clock): both
-- providers then write snapshots (every 10 versions) to compare
spark.conf:set("spark.sql.streaming.stateStore.maintenanceInterval", "0")
local ms = spark.memoryStream("ts STRING, k INT, b BOOLEAN, g BIGINT, dk DOUBLE, v BIGINT, d DOUBLE, nk INT")
local df = ms:toDF():selectExpr(
  "IF(nk = 9, NULL, CAST(ts AS TIMESTAMP)) AS t",
  "IF(nk = 1, NULL, k) AS k", "IF(nk = 2, NULL, b) AS b", "IF(nk = 3, NULL, g) AS g",
  "IF(nk = 4, NULL, dk) AS dk", "IF(nk = 5, NULL, v) AS v", "IF(nk = 6, NULL, d) AS d")
  :withWatermark("t", delay .. " seconds")
-- the window at any position among the group keys (key order must not
-- matter: the live table and the byte store find it by its index)
local keys = {}
for _, c in ipairs(cols) do keys[#keys + 1] = c end
local wpos = R(#keys + 1)
table.insert(keys, wpos, slide and F.window("t", size .. " seconds", slide .. " seconds") or F.window("t", size .. " seconds"))
print(string.format("query seed=%d window=%ds slide=%s delay=%ds mode=%s keys=[%s] window at %d aggs=[%s]",
  seed, size, tostring(slide), delay, mode, table.concat(cols, ","), wpos, table.concat(names, ",")))
local agg = df:groupBy(table.unpack(keys)):agg(table.unpack(aggs))

local failed = false
local function start()
  return agg.writeStream:outputMode(mode):option("checkpointLocation", ck)
    :foreachBatch(function(out, id)
      if failb ~= nil and id == failb and not failed then
        failed = true
        error("failing batch " .. id .. " on purpose")
      end
      for _, r in ipairs(out:collect()) do
        local f = {}
        for i = 1, #r do f[i] = tostring(r[i]) end
        print("B" .. id .. " " .. table.concat(f, " "))
      end
    end):start()
end

local function ts(sec)
  if sec < 0 then sec = 0 end
  return string.format("2026-01-01 12:%02d:%02d", sec // 60 % 60, sec % 60)
end

local q = start()
local base = 30
local nb = 12 + R(8)
for b = 1, nb do
  local rows = {}
  for _ = 1, R(0, 40) do
    local late = R(8) == 1
    local sec = late and base - delay - size - R(0, 30) or base + R(-delay - 5, 8)
    rows[#rows + 1] = {ts(sec), R(0, 4), R(2) == 1, R(-2, 2) * 1000000007,
      ({0.0, -0.0, 1.5, 2.25})[R(4)], R(-1000, 1000000), R(0, 8000) / 8,
      R(1, 40) <= 9 and R(1, 9) or 0}
  end
  base = base + R(0, 12)
  if #rows > 0 then ms:addData(rows) end
  spark.clock:advance("1 second")
  if point ~= nil and b == nb // 2 then q:crash(point) end
  local ok, e = pcall(q.processAllAvailable, q)
  if not ok or q.exception ~= nil then
    print("restart after: " .. tostring(q.exception or e):gsub("\n.*", ""))
    local rok, nq = pcall(q.restart, q)
    q = rok and nq or start() -- a failed foreachBatch: a new query on the checkpoint
    q:processAllAvailable()
  end
  local p = q.lastProgress
  local so = p and p.stateOperators and p.stateOperators[1]
  if so then
    print(string.format("P%d total=%d updated=%d removed=%d dropped=%d", p.batchId,
      so.numRowsTotal, so.numRowsUpdated, so.numRowsRemoved, so.numRowsDroppedByWatermark))
  end
end
-- the late-row log (a row once, with every window it missed), keys sorted
local function dump(v)
  if type(v) ~= "table" then return tostring(v) end
  local ks, f = {}, {}
  for k in pairs(v) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(ks) do f[#f + 1] = tostring(k) .. "=" .. dump(v[k]) end
  return "{" .. table.concat(f, ",") .. "}"
end
for i, l in ipairs(q:lateRows()) do print("L" .. i .. " " .. dump(l)) end
q:stop()
