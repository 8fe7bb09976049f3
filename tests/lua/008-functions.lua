-- F functions from Lua and the same names inside SQL strings; casts;
-- Column reprs.
local T = require("tap")

local df = spark.createDataFrame({
  {"2026-01-01 12:05:00", "Apple", '{"a": 1, "b": "x"}', -2.5},
  {"2026-01-01 12:17:30", "pear", '{"a": 2}', 3.25},
}, "ts TIMESTAMP, name STRING, js STRING, x DOUBLE")

local function col1(d) local r = T.rows(d); local o = {} for i, v in ipairs(r) do o[i] = v[1] end return o end

-- Column reprs (Spark's Column<'...'>)
T.is(tostring(F.col("a") + 1), "Column<'(a + 1)'>", "Column repr")
T.is(tostring(F.col("a"):gt(2):_and(F.col("b"):isNull())), "Column<'((a > 2) AND (b IS NULL))'>",
  "repr of a condition")
T.is(tostring(F.sum("amount")), "Column<'sum(amount)'>", "string arguments of F.sum are column names")
T.is(tostring(F.count("*")), "Column<'count(1)'>", "F.count('*') is count(1), as PySpark")
T.is(tostring(F.lit("x")), "Column<''x''>", "F.lit of a string is a literal")
T.is(tostring(F.col("window.start")), "Column<'window.start'>", "a dotted column name")

-- string functions
T.is(col1(df:select(F.upper("name"))), {"APPLE", "PEAR"}, "F.upper")
T.is(col1(df:select(F.lower(F.col("name")))), {"apple", "pear"}, "F.lower of a Column")
T.is(col1(df:select(F.length("name"))), {5, 4}, "F.length")
T.is(col1(df:select(F.concat("name", F.lit("!")))), {"Apple!", "pear!"}, "F.concat with a literal")
T.is(col1(df:selectExpr("concat(lower(name), '-', upper(name))")), {"apple-APPLE", "pear-PEAR"},
  "the same functions in SQL")
T.is(col1(df:select(F.split(F.lit("a,b,c"), ","):alias("parts")):limit(1)), {{"a", "b", "c"}},
  "F.split: the pattern is a literal")
T.is(col1(df:select(F.coalesce(F.lit(nil), "name"))), {"Apple", "pear"}, "F.coalesce")
T.is(col1(df:filter(F.col("name"):startswith("A")):select("name")), {"Apple"}, "col:startswith")
T.is(col1(df:filter(F.col("name"):contains("ea")):select("name")), {"pear"}, "col:contains")
T.is(col1(df:filter(F.col("name"):like("%pp%")):select("name")), {"Apple"}, "col:like")

-- math
T.is(col1(df:select(F.abs("x"))), {2.5, 3.25}, "F.abs")
T.is(col1(df:select(F.round(F.col("x") * 10 / 3, 1))), {-8.3, 10.8}, "F.round with a scale literal")
T.is(col1(df:select((F.col("x") * 2):cast("int"))), {-5, 6}, "cast to int truncates toward zero")

-- timestamps
T.is(col1(df:select(F.col("ts"):cast("bigint"))), {1767269100, 1767269850},
  "TIMESTAMP -> BIGINT gives seconds")
T.is(col1(df:selectExpr("CAST(ts AS BIGINT) % 60")), {0, 30}, "the same cast in SQL")
T.is(col1(df:select(F.timestamp_seconds(F.lit(60)))), {"1970-01-01 00:01:00", "1970-01-01 00:01:00"},
  "timestamp_seconds")
T.is(col1(df:select(F.date_format("ts", "HH:mm:ss"))), {"12:05:00", "12:17:30"},
  "date_format with Spark's pattern letters")
T.is(col1(df:select(F.to_timestamp(F.lit("2026-02-03 04:05:06"))):limit(1)), {"2026-02-03 04:05:06"},
  "to_timestamp")
T.is(col1(df:select(F.unix_timestamp("ts"))), {1767269100, 1767269850}, "unix_timestamp")
-- the fixed layouts and the general rules give Spark's cast (DateTimeUtils.
-- stringToTimestamp): an offset is subtracted, a day the month lacks is null
T.is(T.rows(df:selectExpr("CAST('2024-02-29T10:00:00.5+01:00' AS TIMESTAMP)",
    "CAST('2026-02-30 00:00:00' AS TIMESTAMP)", "CAST('2026-02-30 00:00:00+01:00' AS TIMESTAMP)",
    "CAST(' 2026-01-01 00:00 ' AS TIMESTAMP)"):limit(1)),
  {{"2024-02-29 09:00:00.5", nil, nil, "2026-01-01 00:00:00"}},
  "CAST string AS TIMESTAMP: offsets, Feb 30 null, the general rules' forms")

-- windows: the duration strings are literals
local w = df:groupBy(F.window("ts", "10 minutes")):count():orderBy("window")
T.is(w.columns, {"window", "count"}, "window() column is named 'window'")
local rows = w:collect()
T.is(rows[1].window.start, "2026-01-01 12:00:00", "window start as a nested field")
T.is(rows[1].window["end"], "2026-01-01 12:10:00", "window end")
T.is(rows[2].window.start, "2026-01-01 12:10:00", "second window")
T.is(T.rows(w:select("window.start", "count")), {{"2026-01-01 12:00:00", 1}, {"2026-01-01 12:10:00", 1}},
  "select window.start")

-- JSON
T.is(T.rows(df:select(F.from_json("js", "a INT, b STRING"):alias("j")):select("j.a", "j.b")),
  {{1, "x"}, {2, nil}}, "from_json with a DDL schema literal")
T.is(col1(df:select(F.get_json_object("js", "$.a"))), {"1", "2"}, "get_json_object")
T.is(col1(df:select(F.to_json(F.from_json("js", "a INT")))), {'{"a":1}', '{"a":2}'}, "to_json")

-- explode
local ex = spark.createDataFrame({{1, {"a", "b"}}, {2, {}}}, "id INT, xs ARRAY<STRING>")
T.is(T.rows(ex:select("id", F.explode("xs"):alias("x"))), {{1, "a"}, {1, "b"}}, "explode drops empty arrays")
T.is(T.rows(ex:select("id", F.explode_outer("xs"))), {{1, "a"}, {1, "b"}, {2, nil}},
  "explode_outer keeps an empty array as one NULL row")
T.is(T.rows(ex:selectExpr("id", "explode(xs) AS x")), {{1, "a"}, {1, "b"}}, "explode in SQL")

-- when / CASE
T.is(col1(df:select(F.when(F.col("x"):lt(0), "neg"):otherwise("pos"))), {"neg", "pos"}, "F.when")
T.is(col1(df:selectExpr("CASE WHEN x < 0 THEN 'neg' ELSE 'pos' END")), {"neg", "pos"}, "CASE WHEN in SQL")

-- F.expr
T.is(col1(df:select(F.expr("length(name) * 2"))), {10, 8}, "F.expr")

-- current_timestamp() of a batch query: the session clock's now when the
-- action runs, the same value on every row (Spark: the query's start)
spark.clock:manual("2026-03-04 05:06:07.25")
local now = spark.createDataFrame({{1}, {2}, {3}}, "n INT")
  :select(F.current_timestamp():cast("string"):alias("t"))
T.is(col1(now), {"2026-03-04 05:06:07.25", "2026-03-04 05:06:07.25", "2026-03-04 05:06:07.25"},
  "current_timestamp() in a batch query: the clock's now, on every row")
spark.clock:advance("1 day")
T.is(col1(now), {"2026-03-05 05:06:07.25", "2026-03-05 05:06:07.25", "2026-03-05 05:06:07.25"},
  "the next action reads the clock again")

-- INTERVAL 'x' unit TO unit: Spark's day-time forms (IntervalUtils
-- fromDayTimeString; ExpressionParserSuite "intervals", literals.sql)
local t0 = spark.createDataFrame({{"2026-01-01 00:00:00"}}, "ts TIMESTAMP")
local function iv(e) return col1(t0:selectExpr("cast(ts + " .. e .. " as string)"))[1] end
T.is(iv("INTERVAL '3:30' MINUTE TO SECOND"), "2026-01-01 00:03:30", "INTERVAL '3:30' MINUTE TO SECOND")
T.is(iv("INTERVAL '100:05.5' MINUTE TO SECOND"), "2026-01-01 01:40:05.5", "the leading field is unbounded; a fraction")
T.is(iv("INTERVAL '1 2:03:04.123456789' DAY TO SECOND"), "2026-01-02 02:03:04.123456",
  "DAY TO SECOND: nanoseconds truncate to microseconds")
T.is(iv("INTERVAL '1 2:03' DAY TO MINUTE"), "2026-01-02 02:03:00", "DAY TO MINUTE")
T.is(iv("INTERVAL '-1 2' DAY TO HOUR"), "2025-12-30 22:00:00", "DAY TO HOUR, negative: -(1 day 2 hours)")
T.is(iv("interval '2:30' hour to minute"), "2026-01-01 02:30:00", "HOUR TO MINUTE, lower case")
T.errors(function() iv("interval '2:30' hours to minutes") end, "Intervals FROM hours TO minutes are not supported%.",
  "plural units make no unit-to-unit form (Spark's grammar: SECOND | MINUTE | HOUR | DAY | MONTH | YEAR)")
T.is(iv("INTERVAL -'1:30' HOUR TO MINUTE"), "2025-12-31 22:30:00", "the sign outside the quotes")
T.is(iv("INTERVAL -'-1:30' HOUR TO MINUTE"), "2026-01-01 01:30:00", "two minus signs make a plus (AstBuilder)")
T.is(iv("INTERVAL +'1 2' DAY TO HOUR"), "2026-01-02 02:00:00", "a plus outside the quotes")
T.is(iv("INTERVAL -'5' MINUTE"), "2025-12-31 23:55:00", "a signed string with one unit")
T.is(iv("INTERVAL '+2:30:15' HOUR TO SECOND"), "2026-01-01 02:30:15", "HOUR TO SECOND with a '+'")
T.is(iv("INTERVAL '3' HOUR"), "2026-01-01 03:00:00", "a single unit still reads as before")
T.is(col1(t0:selectExpr("INTERVAL '1:30' HOUR TO MINUTE = INTERVAL 90 MINUTES")), {true},
  "the same microseconds as INTERVAL 90 MINUTES")
T.errors(function() iv("INTERVAL '3:60' MINUTE TO SECOND") end,
  "interval: '3:60' does not match the day%-time format `%[%+|%-%]m:s%.n` of INTERVAL MINUTE TO SECOND at col 11",
  "second 60 is outside [0, 59]: an error naming the format and the column")
T.errors(function() iv("INTERVAL '1 24' DAY TO HOUR") end, "`%[%+|%-%]d h` of INTERVAL DAY TO HOUR",
  "hour 24 is outside [0, 23]")
T.errors(function() iv("INTERVAL '1:2:3' HOUR TO MINUTE") end, "`%[%+|%-%]h:m` of INTERVAL HOUR TO MINUTE",
  "too many fields")
T.errors(function() iv("INTERVAL '1-2' YEAR TO MONTH") end,
  "interval: year TO month %(a year%-month interval%) is not supported", "year-month intervals are not supported: said so")
T.errors(function() iv("INTERVAL '1' SECOND TO MINUTE") end, "Intervals FROM second TO minute are not supported%. at col 11",
  "a backwards range: Spark's sentence")
T.errors(function() iv("INTERVAL 3 MINUTE TO SECOND") end, "The value of from%-to unit must be a string%.",
  "a number before a unit range: Spark's sentence")
T.is(col1(spark.createDataFrame({{7}}, "interval INT"):selectExpr("interval - 1")), {6},
  "a column named interval minus a number is still an expression")

-- zone offsets past java.time.ZoneOffset's range are null (Spark's
-- stringToTimestamp: getZoneId throws, the cast gives null)
T.is(T.rows(t0:selectExpr("cast(cast('2026-01-01 00:00:00+18:00' as timestamp) as string)",
  "cast('2026-01-01 00:00:00+19:00' as timestamp) is null", "cast('2026-01-01 00:00:00+01:99' as timestamp) is null",
  "cast('2026-01-01T00:00:00-1801' as timestamp) is null")),
  { { "2025-12-31 06:00:00", true, true, true } }, "+18:00 is the last offset; +19:00, +01:99, -1801 are null")

T.done()
