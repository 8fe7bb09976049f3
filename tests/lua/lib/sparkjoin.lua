-- sparkjoin: the query setups of Spark 3.5's StreamingJoinSuite that more
-- than one test file runs (211-outer-join.lua, 230-join-pushdown.lua).
local M = {}

-- setupSelfJoin(joinType): one memory stream (a INT, b BIGINT seconds) on
-- both sides, the right side only its even values; 5-second watermarks and
-- rightTime within [leftTime, leftTime + 5 seconds].  Returns the stream
-- and the joined rows (leftId, leftTime[, rightId, rightTime] as ints).
function M.selfjoin(how)
  local ms = spark.memoryStream("a INT, b BIGINT")
  local df = ms:toDF():select(F.col("a"):alias("value"), F.timestamp_seconds("b"):alias("timestamp"))
  local ls = df:select(F.col("value"):alias("leftId"), F.col("timestamp"):alias("leftTime"))
  local rs = df:where(F.expr("value % 2 = 0"))
    :select(F.col("value"):alias("rightId"), F.col("timestamp"):alias("rightTime"))
  local j = ls:withWatermark("leftTime", "5 seconds"):join(rs:withWatermark("rightTime", "5 seconds"),
    F.expr("leftId = rightId AND rightTime >= leftTime AND rightTime <= leftTime + interval 5 seconds"), how)
  if how == "left_semi" then
    return ms, j:select("leftId", F.col("leftTime"):cast("int"))
  end
  return ms, j:select("leftId", F.col("leftTime"):cast("int"), "rightId", F.col("rightTime"):cast("int"))
end

return M
