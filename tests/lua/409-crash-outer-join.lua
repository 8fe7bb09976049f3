-- The state of a stream-stream left outer join (op_ssjoin.c: held rows
-- with their matched flags) across a crash at every crash point
-- (RELIABILITY.md 3.2; engine/crash.h) and an in-process restart from the
-- checkpoint: the scenario of Spark's "left outer with watermark range
-- condition" (StreamingOuterJoinSuite) and two more batches after it,
-- into foreachBatch (the last call per batch id wins).  Every crashed run
-- must emit exactly the uncrashed run's rows, among them the NULL-padded
-- (3, nil, 5, nil), never a NULL-padded row for a left row that matched
-- before the crash, and end with the same state and watermark.
local T = require("tap")

local STEPS = {
  {"l", {{1, 5}, {3, 5}}},
  {"r", {{1, 10}, {2, 5}}},
  {"r", {{1, 11}}},
  {"l", {{1, 7}, {1, 30}}},
  {"r", {{0, 30}}},          -- watermark 20: (3, 5) comes out NULL-padded
  {"l", {{4, 40}, {5, 41}}},
  {"r", {{5, 44}, {9, 70}}}, -- 5 matches; the watermark stays 31 (left's)
  {"l", {{9, 75}}},          -- watermark 60: (1, 30), (4, 40) NULL-padded
  {"l", {{7, 1}}},           -- a late row: one more batch, nothing changes
}

local POINTS = {"after-offsets", "mid-state", "after-state", "mid-sink",
                "after-sink", "before-commit", "mid-commit", "after-commit"}

local function run(point, batch)
  spark.clock:manual("2026-01-01 12:00:00")
  local ms = {l = spark.memoryStream("leftKey INT, time INT"),
              r = spark.memoryStream("rightKey INT, time INT")}
  local df1 = ms.l:toDF():select("leftKey", F.timestamp_seconds("time"):alias("leftTime"))
    :withWatermark("leftTime", "10 seconds")
  local df2 = ms.r:toDF():select("rightKey", F.timestamp_seconds("time"):alias("rightTime"))
    :withWatermark("rightTime", "10 seconds")
  local j = df1:join(df2, F.expr("leftKey = rightKey AND " ..
      "leftTime BETWEEN rightTime - interval 5 seconds AND rightTime + interval 5 seconds"), "left_outer")
    :select("leftKey", "rightKey", F.col("leftTime"):cast("int"), F.col("rightTime"):cast("int"))
  local calls = {}
  local res = {crashes = 0}
  local q = j.writeStream:option("checkpointLocation", T.tempdir() .. "/ck")
    :foreachBatch(function(d, id) calls[id] = T.sorted(T.rows(d)) end):start()
  local nextid, armed = 0, false
  for _, st in ipairs(STEPS) do
    spark.clock:advance("1 second")
    ms[st[1]]:addData(st[2])
    local guard = 0
    while true do
      guard = guard + 1
      assert(guard < 50, "too many steps")
      if point and not armed and nextid == batch then
        q:crash(point)
        armed = true
      end
      local ok, ran = pcall(q.step, q)
      if not ok then
        if not tostring(ran):match("simulated crash") then error("step failed: " .. tostring(ran), 0) end
        res.crashes = res.crashes + 1
        q = q:restart()
      elseif not ran then
        break
      else
        nextid = q.lastProgress.batchId + 1
      end
    end
  end
  local rows = {}
  for _, rs in pairs(calls) do
    for _, r in ipairs(rs) do rows[#rows + 1] = r end
  end
  res.rows = T.sorted(rows)
  for id, rs in pairs(calls) do
    for _, r in ipairs(rs) do
      if r[1] == 4 then res.evicts4 = id end
    end
  end
  local so = q.lastProgress.stateOperators[1]
  res.state = {so.numRowsTotal, q.lastProgress.eventTime.watermark}
  res.batches = nextid
  q:stop()
  return res
end

local ref = run()
T.is(ref.rows, T.sorted{{1, 1, 5, 10}, {1, 1, 7, 10}, {1, 1, 7, 11}, {3, nil, 5, nil},
                        {1, nil, 30, nil}, {4, nil, 40, nil}, {5, 5, 41, 44}, {9, 9, 75, 70}},
  "uncrashed run: Spark's rows, the unmatched (3, 5), (1, 30), (4, 40) NULL-padded")
T.is(ref.state, {2, "1970-01-01T00:01:00.000Z"}, "uncrashed run: 2 rows held at watermark 60")
T.ok(ref.evicts4 ~= nil, "uncrashed run: batch " .. tostring(ref.evicts4) .. " evicts (4, 40)")

-- batch 4 is the (0, 30) data batch, 5 the no-data batch that evicts
-- (3, 5) and emits it; then the batch that evicts (4, 40)
for _, batch in ipairs{4, 5, ref.evicts4} do
  for _, point in ipairs(POINTS) do
    local got = run(point, batch)
    local tag = point .. "@" .. batch .. ": "
    T.is(got.crashes, 1, tag .. "crashed once")
    T.is(got.rows, ref.rows, tag .. "the rows of the uncrashed run, none twice, none lost")
    T.is(got.state, ref.state, tag .. "the same state rows and watermark")
  end
end

T.done()
