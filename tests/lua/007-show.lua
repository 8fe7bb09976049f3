-- show(), printSchema() and explain() print through the global print, so a
-- script (and the REPL) can capture the text.  T.capture swaps print.
local T = require("tap")

local df = spark.createDataFrame({
  {1, "apple", 1.5, "2026-01-01 12:05:00"},
  {2, "a much longer product name", nil, "2026-01-01 12:06:30.25"},
  {3, nil, 1e10, nil},
}, "id INT, product STRING, price DOUBLE, ts TIMESTAMP")

T.is(T.capture(function() df:show() end), [[
+---+--------------------+------+--------------------+
| id|             product| price|                  ts|
+---+--------------------+------+--------------------+
|  1|               apple|   1.5| 2026-01-01 12:05:00|
|  2|a much longer pro...|  null|2026-01-01 12:06:...|
|  3|                null|1.0E10|                null|
+---+--------------------+------+--------------------+
]], "show(): Spark's table; any cell over 20 characters (a timestamp too) is cut to 17 + '...'")

T.is(T.capture(function() df:select("id", "product"):show(2, false) end), [[
+---+--------------------------+
|id |product                   |
+---+--------------------------+
|1  |apple                     |
|2  |a much longer product name|
+---+--------------------------+
only showing top 2 rows
]], "show(2, false): left-aligned, untruncated, 'only showing top 2 rows'")

T.is(T.capture(function() df:select("product"):show{n = 1, truncate = 3} end), [[
+---+
|pro|
+---+
|app|
+---+
only showing top 1 row
]], "show{n=1, truncate=3}: keyword form; below 4 Spark cuts without '...', header too")

-- Spark's showString appends the separator after the header and again
-- after the (here absent) data rows.
T.is(T.capture(function() df:filter("id > 9"):select("id"):show() end), [[
+---+
| id|
+---+
+---+
]], "show() of no rows")

T.is(T.capture(function()
  spark.createDataFrame({{{start = "2026-01-01 12:00:00", ["end"] = "2026-01-01 12:10:00"}, {1, 2}}},
    "window STRUCT<start: TIMESTAMP, end: TIMESTAMP>, xs ARRAY<INT>"):show(20, false)
end), [[
+------------------------------------------+------+
|window                                    |xs    |
+------------------------------------------+------+
|{2026-01-01 12:00:00, 2026-01-01 12:10:00}|[1, 2]|
+------------------------------------------+------+
]], "structs and arrays as Spark renders them")

T.is(T.capture(function() df:printSchema() end), [[
root
 |-- id: integer (nullable = true)
 |-- product: string (nullable = true)
 |-- price: double (nullable = true)
 |-- ts: timestamp (nullable = true)
]], "printSchema()")

local plan = T.capture(function() df:filter("id > 1"):select("id"):explain() end)
T.like(plan, "== Physical Plan ==", "explain() prints the physical plan")
T.like(T.capture(function() df:filter("id > 1"):explain(true) end), "== Analyzed Logical Plan ==",
  "explain(true) prints the logical plans too")

-- show returns nothing, so a REPL line `df:show()` prints only the table
local nres
T.capture(function() nres = select("#", df:limit(1):show()) end)
T.is(nres, 0, "show() returns no values")
T.errors(function() df:show{vertical = true} end, "vertical output is not supported", "vertical")

T.done()
