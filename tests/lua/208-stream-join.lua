-- Stream-stream inner join with watermarks on both sides and a time-range
-- condition: Spark's StreamingJoinSuite ("stream stream inner join with time
-- range - with watermark", "... - two side conditions"): rows per step and
-- the state rows shrinking as the watermark passes; append mode only.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local function sides(ldelay, rdelay)
  local left = spark.memoryStream("leftKey INT, time INT")
  local right = spark.memoryStream("rightKey INT, time INT")
  local df1 = left:toDF():select("leftKey", F.timestamp_seconds("time"):alias("leftTime"),
                                 (F.col("leftKey") * 2):alias("leftValue"))
    :withWatermark("leftTime", ldelay)
  local df2 = right:toDF():select("rightKey", F.timestamp_seconds("time"):alias("rightTime"),
                                  (F.col("rightKey") * 3):alias("rightValue"))
    :withWatermark("rightTime", rdelay)
  return left, right, df1, df2
end
local function out(joined)
  return joined:select("leftKey", F.col("leftTime"):cast("int"), F.col("rightTime"):cast("int"))
end

-- time range, one side condition
local left, right, df1, df2 = sides("10 seconds", "10 seconds")
local s = T.stream(out(df1:join(df2, F.expr("leftKey = rightKey AND leftTime < rightTime - interval 5 seconds"))))
local m = T.state_rows(s.q)
T.is(s.q.lastProgress, nil, "no batch before data")
s:add(left, {{1, 5}})
T.is(s:new(), {}, "left (1, 5): no match yet")
s:add(right, {{1, 11}})
T.is(s:new(), {{1, 5, 11}}, "right (1, 11) matches left (1, 5)")
s:add(right, {{1, 10}})
T.is(s:new(), {}, "right (1, 10): no match, 5 is not < 10 - 5")
T.is(m(), {total = 3, updated = 3, dropped = 0, removed = 0}, "three rows in state")
T.is(s.q.lastProgress.stateOperators[1].operatorName, "symmetricHashJoin", "the operator is symmetricHashJoin")

s:add(left, {{1, 3}, {1, 30}})
T.is(s:new(), {{1, 3, 10}, {1, 3, 11}}, "left (1, 3) matches both right rows; (1, 30) matches none")
local r = m()
T.is({r.total, r.updated}, {5, 2}, "state 5, updated 2")
s:add(right, {{0, 30}})
T.is(s:new(), {}, "right (0, 30): no key 0 on the left")
r = m()
T.is({r.total, r.updated}, {4, 1},
  "watermark 20: right rows with rightTime <= 25 ((1, 10), (1, 11)) leave the state; (0, 30) joins it")

s:add(right, {{1, 20}, {1, 21}, {1, 28}})
T.is(s:new(), {{1, 3, 21}, {1, 3, 28}, {1, 5, 21}, {1, 5, 28}},
  "right (1, 20) is behind the watermark; (1, 21) and (1, 28) match left (1, 3), (1, 5)")
r = m()
T.is({r.total, r.updated, r.dropped}, {5, 1, 1}, "(1, 21) is not kept (below the state watermark 25), (1, 28) is")
s:add(left, {{1, 20}, {1, 21}})
T.is(s:new(), {{1, 21, 28}}, "left (1, 20) is behind the watermark; (1, 21) matches right (1, 28)")
r = m()
T.is({r.total, r.updated, r.dropped}, {6, 1, 1}, "state 6, updated 1, dropped 1")
s.q:stop()

-- time range, two side conditions
left, right, df1, df2 = sides("20 seconds", "30 seconds")
s = T.stream(out(df1:join(df2, F.expr(
  "leftKey = rightKey AND leftTime BETWEEN rightTime - interval 10 seconds AND rightTime + interval 5 seconds"))))
m = T.state_rows(s.q)
s:add(left, {{1, 20}})
T.is(s:new(), {}, "between: left (1, 20)")
s:add(right, {{1, 14}, {1, 15}, {1, 25}, {1, 26}, {1, 30}, {1, 31}})
T.is(s:new(), {{1, 20, 15}, {1, 20, 25}, {1, 20, 26}, {1, 20, 30}}, "between: leftTime 20 matches rightTime 15..30")
r = m()
T.is({r.total, r.updated}, {7, 7}, "between: 7 rows in state")
s:add(right, {{1, 60}})
T.is(s:new(), {}, "between: right (1, 60) matches nothing on the left")
s:add(left, {{1, 49}, {1, 50}, {1, 65}, {1, 66}})
T.is(s:new(), {{1, 50, 60}, {1, 65, 60}}, "between: rightTime 60 matches leftTime 50..65")
r = m()
T.is({r.total, r.updated}, {10, 5}, "between: watermark 30 removes right 14 and 15 (12 - 2)")
s:add(left, {{1, 30}, {1, 31}})
T.is(s:new(), {{1, 31, 26}, {1, 31, 30}, {1, 31, 31}}, "between: left 30 is behind the watermark, 31 matches")
r = m()
T.is({r.total, r.updated, r.dropped}, {11, 1, 1}, "between: only 31 added")
s:add(right, {{1, 80}})
T.is(s:new(), {}, "between: right (1, 80)")
r = m()
T.is({r.total, r.updated}, {6, 1}, "between: watermark 46 removes left 20, 31 and right 25, 26, 30, 31")
s:add(right, {{1, 46}, {1, 50}})
T.is(s:new(), {{1, 49, 50}, {1, 50, 50}}, "between: right 46 is behind the watermark; 50 matches 49 and 50")
r = m()
T.is({r.total, r.updated, r.dropped}, {7, 1, 1}, "between: 50 added")
s.q:stop()

-- only append mode
left, right, df1, df2 = sides("10 seconds", "10 seconds")
local joined = out(df1:join(df2, F.expr("leftKey = rightKey AND leftTime < rightTime - interval 5 seconds")))
T.errors(function() joined.writeStream:outputMode("update"):format("memory"):queryName("ju"):start() end,
  "Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode",
  "update mode: Spark's sentence")
T.errors(function() joined.writeStream:outputMode("complete"):format("memory"):queryName("jc"):start() end,
  "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets",
  "complete mode: no aggregation")
T.is(#spark.streams.active, 0, "no query left running")

T.done()
