-- The DATE type (issue 15 item 1): days since 1970-01-01 as Spark's
-- DateType.  Expected values follow Spark 3.5: CastSuite / DateTimeUtilsSuite
-- "string to date" (yyyy, yyyy-[m]m, yyyy-[m]m-[d]d, then ' ' or 'T' and
-- anything; an invalid text is NULL), DateFunctionsSuite "function to_date",
-- "function date_add", "function date_sub", "function datediff".
local T = require("tap")

spark.clock:manual("2026-03-04 23:59:59")

local df = spark.createDataFrame({{"2026-01-31", 1}, {"1969-12-31", 2}, {nil, 3}},
                                 "d DATE, k INT")
T.is(T.capture(function() df:printSchema() end), [[
root
 |-- d: date (nullable = true)
 |-- k: integer (nullable = true)
]], "printSchema names date")
T.is(T.capture(function() df:orderBy("k"):show() end), [[
+----------+---+
|         d|  k|
+----------+---+
|2026-01-31|  1|
|1969-12-31|  2|
|      null|  3|
+----------+---+
]], "show() prints yyyy-MM-dd and null")
T.check(function() return T.rows(df:orderBy("d"):select("k")) end, {{3}, {2}, {1}},
  "orderBy a date: NULL first, then by day")
T.check(function() return T.rows(df:filter(F.expr("d > DATE '2000-01-01'")):select("k")) end, {{1}},
  "DATE literal in a comparison")
T.check(function() return T.rows(df:filter(F.expr("d = '2026-01-31'")):select("k")) end, {{1}},
  "a string compared with a date is cast to a date")

-- CastSuite / DateTimeUtilsSuite "string to date"
local texts = {"2015", "2015-03", "2015-3", "2015-03-18", "2015-3-8", "2015-03-18 ", "2015-03-18 123142",
               "2015-03-18T123123", "2015-03-18T", " 2015-03-18 ", "2015-02-29", "2016-02-29",
               "2015-13-01", "2015-03-32", "015-03-18", "2015-03-18X", "2015/03/18", "", "abc"}
local rows = {}
for i, s in ipairs(texts) do rows[i] = {i, s} end
local tdf = spark.createDataFrame(rows, "i INT, s STRING")
T.check(function()
  local got = {}
  for _, r in ipairs(T.rows(tdf:select("i", F.col("s"):cast("date"):cast("string")):orderBy("i"))) do
    got[#got + 1] = r[2] == nil and "null" or r[2]
  end
  return got
end, {"2015-01-01", "2015-03-01", "2015-03-01", "2015-03-18", "2015-03-08", "2015-03-18", "2015-03-18",
      "2015-03-18", "2015-03-18", "2015-03-18", "null", "2016-02-29", "null", "null", "null", "null",
      "null", "null", "null"}, "CAST(string AS DATE): Spark's stringToDate forms, invalid text is NULL")

local ts = spark.createDataFrame({{"2026-01-31 23:59:59"}, {"1969-12-31 00:00:01"}}, "t TIMESTAMP")
T.check(function() return T.rows(ts:select(F.col("t"):cast("date"):cast("string"):alias("d"),
                                            F.col("t"):cast("date"):cast("timestamp"):cast("string"):alias("m"))) end,
  {{"2026-01-31", "2026-01-31 00:00:00"}, {"1969-12-31", "1969-12-31 00:00:00"}},
  "timestamp -> date is the UTC day; date -> timestamp its midnight")
T.check(function() return T.rows(ts:select(F.to_date("t"), F.to_date(F.lit("2026-03-04")),
                                            F.to_date(F.lit("04/03/2026"), "dd/MM/yyyy"),
                                            F.to_date(F.lit("nope")))) end,
  {{"2026-01-31", "2026-03-04", "2026-03-04", nil}, {"1969-12-31", "2026-03-04", "2026-03-04", nil}},
  "to_date of a timestamp, a string, a string with a pattern; unparsable is NULL")
T.check(function() return T.rows(ts:select(F.current_date()):limit(1)) end, {{"2026-03-04"}},
  "current_date() is the engine clock's UTC day")
T.check(function() return T.rows(df:orderBy("k"):select(F.date_add("d", 1), F.date_sub("d", 31),
                                                       F.datediff("d", F.lit("2026-01-01")))) end,
  {{"2026-02-01", "2025-12-31", 30}, {"1970-01-01", "1969-11-30", -20455}, {nil, nil, nil}},
  "date_add, date_sub, datediff (DateFunctionsSuite)")
T.check(function() return T.rows(df:filter(F.expr("d < TIMESTAMP '2026-01-31 00:00:01'")):orderBy("k"):select("k")) end,
  {{1}, {2}}, "a date against a timestamp compares its midnight")
T.check(function() return T.rows(df:groupBy("d"):count():orderBy("d")) end,
  {{nil, 1}, {"1969-12-31", 1}, {"2026-01-31", 1}}, "a date as a group key")
T.check(function() return T.rows(df:orderBy("k"):select(F.year("d"), F.month("d"), F.dayofmonth("d"))) end,
  {{2026, 1, 31}, {1969, 12, 31}, {nil, nil, nil}}, "year/month/dayofmonth of a date")
T.check(function() return T.rows(df:agg(F.min("d"), F.max("d"))) end, {{"1969-12-31", "2026-01-31"}},
  "min/max of a date column")
T.check(function() return T.rows(df:orderBy("k"):select(F.greatest("d", F.expr("DATE '2000-01-01'")))) end,
  {{"2026-01-31"}, {"2000-01-01"}, {"2000-01-01"}}, "greatest of dates skips NULL")
T.errors(function() return spark.createDataFrame({{"2026-02-30"}}, "d DATE"):collect() end,
  "expected DATE", "an impossible date in createDataFrame is an error naming the type")
T.errors(function() return df:select(F.expr("DATE '2026-13-01'")):collect() end,
  "invalid date literal '2026%-13%-01'", "a bad DATE literal")
T.errors(function() return df:select(F.col("k"):cast("date")):collect() end,
  "cannot cast int to date", "int -> date is refused")

-- Parquet (step 2): DATE is INT32 with the DATE logical type, as Spark's
-- ParquetSchemaConverter writes DateType; read back as a DATE.
local dir = T.tempdir()
df.write:parquet(dir .. "/p")
local back = spark.read:parquet(dir .. "/p")
T.is(T.capture(function() back:printSchema() end), [[
root
 |-- d: date (nullable = true)
 |-- k: integer (nullable = true)
]], "parquet: a DATE column reads back as date")
T.check(function() return T.rows(back:orderBy("k")) end,
  {{"2026-01-31", 1}, {"1969-12-31", 2}, {nil, 3}}, "parquet: DATE values and NULL round-trip")

-- json/csv (step 3): a field declared DATE parses Spark's default
-- dateFormat (yyyy-MM-dd, with stringToDate's forms); writing formats it
-- the same way.  Inference never gives DATE (Spark 3.5's inferDate and
-- prefersDate are off by default).
local jd, cd = T.tempdir(), T.tempdir()
T.put(jd, "a.json", '{"d":"2026-02-03","k":1}\n{"d":"2026-2-3 10:00","k":2}\n{"d":null,"k":3}\n')
T.check(function() return T.rows(spark.read:schema("d DATE, k INT"):json(jd):orderBy("k")) end,
  {{"2026-02-03", 1}, {"2026-02-03", 2}, {nil, 3}}, "json: a DATE field parses yyyy-MM-dd")
T.put(cd, "a.csv", "d,k\n2026-02-03,1\n,2\n")
T.check(function() return T.rows(spark.read:option("header", true):schema("d DATE, k INT"):csv(cd):orderBy("k")) end,
  {{"2026-02-03", 1}, {nil, 2}}, "csv: a DATE field parses yyyy-MM-dd")
T.check(function() return spark.read:option("header", true):option("inferSchema", true):csv(cd).schema end,
  "d TIMESTAMP, k INT", "csv inferSchema never infers DATE (inferDate off); Spark 3.5's default timestamp parser takes the text")
T.check(function() return spark.read:json(jd).schema end,
  "d STRING, k BIGINT", "json inference keeps dates strings")
df.write:json(dir .. "/jo")
T.check(function() return T.rows(spark.read:schema("d DATE, k INT"):json(dir .. "/jo"):orderBy("k")) end,
  {{"2026-01-31", 1}, {"1969-12-31", 2}, {nil, 3}}, "json: DATE written as \"yyyy-MM-dd\" reads back")
df.write:option("header", true):csv(dir .. "/co")
T.check(function() return T.rows(spark.read:option("header", true):csv(dir .. "/co"):orderBy("k")) end,
  {{"2026-01-31", "1"}, {"1969-12-31", "2"}, {nil, "3"}}, "csv: DATE written as yyyy-MM-dd")

-- q:toPySpark() (step 5): dates in local rows are datetime.date, the
-- date functions keep their PySpark names
local qp = spark.memoryStream("k INT"):toDF():join(df, "k")
  :select("k", F.date_add("d", 1):alias("n"), F.expr("d > DATE '2026-01-01'"):alias("late"))
  .writeStream:format("memory"):queryName("dates"):start()
local py = qp:toPySpark()
qp:stop()
T.like(py, "%(datetime%.date%(2026, 1, 31%), 1%)", "toPySpark: a DATE row value is datetime.date(...)")
T.like(py, "import datetime", "toPySpark imports datetime for it")
T.like(py, "date_add%(d, 1%)", "toPySpark: date_add")
T.like(py, "DATE '2026%-01%-01'", "toPySpark: a DATE literal")
T.done()
