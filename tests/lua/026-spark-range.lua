-- spark.range, PySpark's: one BIGINT column id (engine/plan/plan.h
-- sl_plan_range), the same rows as SQL's range() table-valued function,
-- Spark's Range in explain and spark.range in toPySpark; bad arguments
-- are one-line errors, a range too large for memory is refused.
local T = require("tap")

T.check(function() return T.rows(spark.range(3)) end, {{0}, {1}, {2}}, "range(end)")
T.check(function() return T.rows(spark.range(10, 0, -3)) end, {{10}, {7}, {4}, {1}},
  "range(start, end, negative step)")
T.check(function() return T.rows(spark:range(2, 4, 1, 8)) end, {{2}, {3}},
  "spark:range with numPartitions (ignored: one partition)")
T.check(function() return T.rows(spark.range(4, nil)) end, {{0}, {1}, {2}, {3}},
  "range(end, None) as PySpark")
T.is(spark.range(0).columns[1], "id", "its column is id")
T.is(spark.range(0):count(), 0, "an empty range")
T.check(function() return T.rows(spark.range(5):filter("id % 2 = 0")) end,
  T.rows(spark.sql("SELECT * FROM range(5) WHERE id % 2 = 0")), "the same rows as SQL's range()")

local function err(...)
  local ok, e = pcall(spark.range, ...)
  return ok and "no error" or (type(e) == "table" and e.message or tostring(e))
end
T.is(err(), "range: expects 1 to 4 arguments (end, or start, end [, step [, numPartitions]]), got 0",
  "no arguments")
T.like(err("x"), "bad argument #1 to 'range' %(integer expected, got string 'x'%)", "a string argument")
T.like(err(1.5), "integer expected, got number 1.5", "a fractional argument")
T.is(err(0, 10, 0), "range: requirement failed: step (0) cannot be 0", "step 0")
T.is(err(0, 20000000), "range: 20000000 rows is more than 10000000 (streamlab keeps a range in memory)",
  "a range too large is refused before any allocation")

local d = spark.range(1, 4):filter("id > 1")
T.like(d:toPySpark(), "range_df = spark%.range%(1, 4, 1%)", "toPySpark writes spark.range")
T.done()
