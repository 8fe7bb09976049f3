-- The filters Spark's optimizer puts on a streaming join's inputs
-- (plan/plan_pushdown.c): PushPredicateThroughJoin moves a one-side
-- conjunct of the condition onto its side, InferFiltersFromConstraints
-- copies a side's filter on a join key onto the other key, each only where
-- the join type allows (never onto a preserved side of an outer join), and
-- PushPredicateThroughNonJoin puts them below withWatermark, so rows they
-- drop never advance that side's watermark.  The state counts and the
-- watermark are Spark's; the rows are the same either way.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function plan(df)
  return T.capture(function() df:explain() end)
end
local function count(s, pat)
  local n = 0
  for _ in s:gmatch(pat) do n = n + 1 end
  return n
end

-- setupSelfJoin with an inner join (StreamingInnerJoinSuite "SPARK-26187
-- restore the stream-stream inner join query from Spark 2.4": batch 2
-- updates 6 rows, as the odd left rows are filtered by the inferred
-- `leftId % 2 = 0`)
do
  local name = "self inner join"
  local ms, j = require("sparkjoin").selfjoin("inner")
  local text = plan(j)
  T.like(text, "EventTimeWatermark leftTime, 5 seconds\n[: ]*%+%- Filter %(%(leftId %% 2%) = 0%)",
    name .. ": the inferred filter sits below the left withWatermark")
  local s = T.stream(j)
  local m = T.state_rows(s.q)
  s:add(ms, {{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}})
  T.is(s:new(), {{2, 2, 2, 2}, {4, 4, 4, 4}}, name .. ": batch 1")
  local x = m()
  T.is({x.total, x.updated}, {4, 4}, name .. ": batch 1 holds left 2, 4 and right 2, 4")
  s:add(ms, {{6, 6}, {7, 7}, {8, 8}, {9, 9}, {10, 10}})
  T.is(s:new(), T.sorted{{6, 6, 6, 6}, {8, 8, 8, 8}, {10, 10, 10, 10}}, name .. ": batch 2")
  x = m()
  T.is({x.total, x.updated}, {8, 6}, name .. ": batch 2 updates 6 (Spark's), right 2, 4 evicted")
  s.q:stop()
end

-- which side takes what, by join type
do
  local l = spark.memoryStream("lk INT, lt TIMESTAMP")
  local r = spark.memoryStream("rk INT, rt TIMESTAMP")
  local ldf = l:toDF():withWatermark("lt", "10 seconds")
  local rdf = r:toDF():withWatermark("rt", "10 seconds")
  local cond = "lk = rk AND lt BETWEEN rt - interval 5 seconds AND rt + interval 5 seconds"
  local function j(lside, rside, how)
    return plan(lside:join(rside, F.expr(cond), how))
  end
  local lf, rf = ldf:where("lk > 2"), rdf:where("rk < 9")
  -- {join type, filters inferred onto the right (rk > 2), onto the left (lk < 9)}
  for _, c in ipairs{
    {"inner", 1, 1, "each side's key filter is copied onto the other side"},
    {"left_outer", 1, 0, "onto the right side only (the left is preserved)"},
    {"right_outer", 0, 1, "onto the left side only"},
    {"full_outer", 0, 0, "nothing is inferred"},
    {"left_semi", 1, 1, "both sides, as inner"},
  } do
    local t = j(lf, rf, c[1])
    T.is({count(t, "Filter %(rk > 2%)"), count(t, "Filter %(lk < 9%)")}, {c[2], c[3]},
      c[1]:gsub("_", " ") .. ": " .. c[4])
  end
  local t
  t = plan(ldf:join(rdf, F.expr(cond .. " AND rk % 3 = 1 AND lk % 5 = 0"), "left_outer"))
  T.is({count(t, "Filter %(%(rk %% 3%) = 1%)"), count(t, "Filter %(%(lk %% 5%) = 0%)")}, {1, 0},
    "left outer: a right-only conjunct moves onto the right side, a left-only one stays in the join")
  T.like(t, "%(%(lk %% 5%) = 0%)", "the join keeps its whole condition")
  t = plan(ldf:join(rdf, F.expr(cond .. " AND rt > timestamp'2026-01-01 00:00:00'"), "inner"))
  T.like(t, "Filter %(rt > TIMESTAMP[^\n]*\n[: ]*%+%- EventTimeWatermark rt",
    "a conjunct on the event-time column stays above withWatermark")
  t = plan(ldf:where("lk * 2 > lk + 1"):join(rdf, F.expr(cond)))
  T.like(t, "Filter %(%(rk %* 2%) > %(rk %+ 1%)%)", "a filter reading the key twice is inferred")
  T.is(count(plan(ldf:join(rdf, F.expr("lk = rk AND lk + rk > 3 AND " ..
      "lt BETWEEN rt - interval 5 seconds AND rt + interval 5 seconds"))), "Filter"), 0,
    "a conjunct over both key columns is not (one substitution per equality, as Spark)")
end

-- stream-static: the static side's filter reaches the stream side below its
-- watermark, so a row it drops does not move the watermark
do
  local ms = spark.memoryStream("k INT, t BIGINT")
  local st = spark.createDataFrame({{1, "one"}, {2, "two"}, {5, "five"}}, "k2 INT, name STRING")
    :where("k2 < 3")
  local j = ms:toDF():select("k", F.timestamp_seconds("t"):alias("ts")):withWatermark("ts", "0 seconds")
    :join(st, F.expr("k = k2")):select("k", "name")
  local s = T.stream(j)
  s:add(ms, {{1, 10}, {5, 100}})
  T.is(s:new(), {{1, "one"}}, "stream-static: the rows")
  s:add(ms, {{2, 20}})
  T.is(s:new(), {{2, "two"}}, "stream-static: 2 joins")
  T.is(s.q.lastProgress.eventTime.watermark, T.iso(10),
    "stream-static: the watermark is 10 s: (5, 100) never reached withWatermark (Spark's inferred k < 3)")
  s.q:stop()
  T.ok(not s.q:toPySpark():find("k < 3", 1, true), "toPySpark leaves the inferred filter out")
end

-- the batch join is unchanged
do
  local a = spark.createDataFrame({{1}, {2}, {3}}, "x INT")
  local b = spark.createDataFrame({{2}, {3}, {4}}, "y INT"):where("y > 2")
  T.is(count(plan(a:join(b, F.expr("x = y"))), "Filter"), 1, "a batch join gets no inferred filter")
  T.is(T.rows(a:join(b, F.expr("x = y"))), {{3, 3}}, "batch rows")
end

T.done()
