-- Hostile expression and schema text gets a one-line error, never a crash
-- or a hang (issue 16 findings 1-3; RELIABILITY.md "bad inputs").
--  1. DDL nested deeper than 100 STRUCT</ARRAY< levels is refused with its
--     column; each level's buffers are on the heap (250 nested STRUCT< once
--     overflowed the C stack, 50,000 ARRAY< too).
--  2. A SQL expression nested deeper than 1000 (parentheses, unary minus,
--     function calls, NOT, or a left-deep chain of operators) is refused
--     with its column (100,000 levels were a SIGSEGV).
--  3. A constant subtree is evaluated once per node: 1+1+...+1 of 60 terms
--     once took 2^60 steps (0.11 s at 18 terms, x1.7 per term).
local T = require("tap")

local df = spark.createDataFrame({{1}, {2}}, "x INT")
local function sel(text) return df:selectExpr(text):collect() end

T.errors(function() return sel(("("):rep(1e5) .. "1" .. (")"):rep(1e5)) end,
  "selectExpr: expression nested deeper than 1000 at col 1002", "100,000 nested '('")
T.errors(function() return sel(("-"):rep(1e5) .. "1") end,
  "expression nested deeper than 1000 at col 1002", "100,000 unary minus")
T.errors(function() return sel(("1+"):rep(1e5) .. "1") end,
  "expression nested deeper than 1000 at col 2001", "a chain of 100,000 '+'")
T.errors(function() return sel(("abs("):rep(1e5) .. "1" .. (")"):rep(1e5)) end,
  "expression nested deeper than 1000 at col 4005", "100,000 nested abs(")
T.errors(function() return sel(("not "):rep(1e5) .. "true") end,
  "expression nested deeper than 1000", "100,000 NOT")
T.errors(function() return sel(("x = 1 and "):rep(2000) .. "true") end,
  "expression nested deeper than 1000", "a chain of 2,000 AND")
T.is(sel(("("):rep(990) .. "x" .. (")"):rep(990))[2].x, 2, "990 parentheses are fine")
T.is(sel(("x+"):rep(900) .. "0 AS s")[2].s, 1800, "a 900-term sum is fine")

local t0 = os.clock()
local r = sel(("1+"):rep(60) .. "1 AS s")
T.is(r[1].s, 61, "1+1+...+1 of 61 terms is 61")
T.ok(os.clock() - t0 < 5, "a constant chain of 61 terms is linear, not 2^61")
T.is(df:selectExpr("2 * 3 + x AS a", "(1 + 2) * (3 + 4) AS b", "NULL + 1 AS n", "1 / 0 AS z")
  :collect()[2], {a = 8, b = 21}, "constant subtrees beside columns, NULL and 1/0 (null)")

local function ddl(text) return spark.createDataFrame({{1}}, text) end
T.errors(function() return ddl(("a STRUCT<"):rep(300) .. "b INT" .. (">"):rep(300)) end,
  "schema: nesting deeper than 100 levels at col 909", "300 nested STRUCT<")
T.errors(function() return ddl("a " .. ("ARRAY<"):rep(50000) .. "INT" .. (">"):rep(50000)) end,
  "schema: nesting deeper than 100 levels at col 608", "50,000 nested ARRAY<")
local s = ("a STRUCT<"):rep(99) .. "b INT" .. (">"):rep(99)
T.ok(pcall(spark.read.schema, spark.read, s), "99 levels of STRUCT< are fine")
T.done()
