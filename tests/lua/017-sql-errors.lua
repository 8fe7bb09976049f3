-- spark.sql's errors: Spark's error classes and sentences, with the line
-- and position of the problem (Spark's pos is 0-based), and hostile text
-- that must fail cleanly (depth limits, stray bytes), never crash.
local T = require("tap")

spark.createDataFrame({{1, "a", 2.5}}, "id int, name string, price double"):createOrReplaceTempView("items")
spark.createDataFrame({{1, "x"}}, "id int, tag string"):createOrReplaceTempView("tags")

local function sqlerr(text)
  local ok, e = pcall(spark.sql, text)
  if ok then return "no error" end
  return type(e) == "table" and e.message or tostring(e)
end
local function lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

T.is(sqlerr("SELECT nmae FROM items"),
  "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `nmae` cannot be resolved. " ..
  "Did you mean one of the following? [`items`.`name`, `items`.`id`, `items`.`price`].; line 1 pos 7",
  "an unknown column: suggestions by similarity, qualified by the view")
T.is(sqlerr("SELECT i.id\nFROM items i\nWHERE i.prize > 1"),
  "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `i`.`prize` cannot be resolved. " ..
  "Did you mean one of the following? [`i`.`price`, `i`.`id`, `i`.`name`].; line 3 pos 6",
  "a qualified unknown column on line 3")
T.is(sqlerr("SELECT id FROM items JOIN tags ON items.id = tags.id"),
  "[AMBIGUOUS_REFERENCE] Reference `id` is ambiguous, could be: [`items`.`id`, `tags`.`id`].; line 1 pos 7",
  "an ambiguous column after a join")
T.like(sqlerr("SELECT * FROM itemz"),
  "^" .. lit("[TABLE_OR_VIEW_NOT_FOUND] The table or view `itemz` cannot be found.") .. ".*; line 1 pos 14$",
  "an unknown view, with its position")
T.is(sqlerr("SELECT * FROM range(1, 2, 3, 4, 5)"),
  "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `range` requires [1, 2, 3, 4] parameters but the actual number is 5.; line 1 pos 14",
  "range with too many arguments: Spark's error class")
T.is(sqlerr("SELECT * FROM range(0, 10, 0)"), "range: requirement failed: step (0) cannot be 0",
  "range with step 0")
T.is(sqlerr("SELECT * FROM range(20000000)"),
  "range: 20000000 rows is more than 10000000 (streamlab keeps a range in memory)",
  "a range too large for memory is refused, not allocated")
T.like(sqlerr("SELECT * FROM range(id)"), "^range: argument 1 must be an integer literal", "range of a column")
local ok, e = pcall(spark.sql, "SELECT * FROM itemz")
T.is(not ok and e.hint, "did you mean 'items'?", "with a did-you-mean hint")
T.is(sqlerr("SELECT id FROM items WHERE"),
  "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input.(line 1, pos 26)", "a missing condition")
T.is(sqlerr("SELEC id FROM items"),
  "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.(line 1, pos 0)", "a misspelt keyword")
T.is(sqlerr("SELECT id,\n  FROM items"),
  "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'.(line 2, pos 2)", "a trailing comma, on line 2")
T.is(sqlerr("SELECT id FROM items LIMIT x"),
  "[PARSE_SYNTAX_ERROR] Syntax error at or near 'x'.(line 1, pos 27)", "LIMIT needs a number")
T.is(sqlerr("SELECT id FROM items garbage more"),
  "[PARSE_SYNTAX_ERROR] Syntax error at or near 'more'.(line 1, pos 29)", "text after the statement")
T.is(sqlerr("SELECT id FROM items; SELECT 1"),
  "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELECT'.(line 1, pos 22)", "one statement at a time")
T.like(sqlerr("SELECT 'abc FROM items"), "^" .. lit("[PARSE_SYNTAX_ERROR] Syntax error at or near"),
  "an unterminated string")
T.like(sqlerr("SELECT id + FROM items"), "^" .. lit("[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'.(line 1, pos 12)"),
  "a missing operand")
local ok2, e2 = pcall(spark.sql, "SELECT id,\n  id + ,\n  name FROM items")
T.is(not ok2 and e2.message .. " | " .. e2.hint,
  "[PARSE_SYNTAX_ERROR] Syntax error at or near ','.(line 2, pos 7) | expected expression at 'id +'",
  "the expression parser's why is the hint, without its column counted across lines")
T.is(T.rows(spark.sql("SELECT 1 /* a /* nested; */ comment */ AS one -- to the end\n")), {{1}},
  "bracketed comments nest, as Spark's lexer reads them")
T.like(sqlerr("SELECT 1 /* /* */ AS one"), "^" .. lit("[PARSE_SYNTAX_ERROR] Syntax error at or near '/'.(line 1, pos 9)"),
  "a nested comment left open is unterminated")
T.is(sqlerr("SELECT id FROM items GROUP BY 3"),
  "[GROUP_BY_POS_OUT_OF_RANGE] GROUP BY position 3 is not in select list (valid range is [1, 1]).",
  "GROUP BY ordinal out of range")
T.is(sqlerr("SELECT id FROM items ORDER BY 2"),
  "[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position 2 is not in select list (valid range is [1, 1]).",
  "ORDER BY ordinal out of range")
T.like(sqlerr("SELECT name, count(*) FROM items GROUP BY id"),
  "neither present in the group by, nor is it an aggregate function", "a column neither grouped nor aggregated")
T.like(sqlerr("SELECT uper(name) FROM items"), "uper", "an unknown function is named")
T.like(sqlerr("SELECT x.* FROM items"), lit("[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve `x`.*"),
  "t.* of an unknown qualifier")
T.like(sqlerr("SELECT id FROM items UNION SELECT id, name FROM items"), "Union can only be performed on tables with the same number of columns", "UNION of different widths")
T.is(sqlerr("SELECT id FROM items WHERE id > 1 OR id IN (SELECT id FROM tags)"),
  "IN/EXISTS subquery inside an expression or under OR is not supported in streamlab: only as a condition of WHERE, " ..
  "joined by AND; line 1 pos 37", "an IN subquery under OR: named as not supported, where it is")
T.like(sqlerr("SELECT id IN (SELECT id FROM tags) FROM items"), "^" .. lit("IN/EXISTS subquery outside WHERE is not supported"),
  "an IN subquery in the SELECT list: not supported")
T.like(sqlerr("SELECT id FROM items WHERE id IN (SELECT id, tag FROM tags)"),
  "^" .. lit("[DATATYPE_MISMATCH.INVALID_IN_SUBQUERY_NUMBER_OF_COLUMNS]") .. ".*length: 2%).; line 1 pos 27$",
  "an IN subquery of two columns: Spark's error class")
T.like(sqlerr("SELECT id FROM items i WHERE EXISTS (SELECT 1 FROM tags t WHERE t.id = i.id)"),
  "^" .. lit("[UNRESOLVED_COLUMN.WITH_SUGGESTION]") .. ".*`i`.`id`",
  "a correlated subquery: the outer column is unknown inside it")
T.like(sqlerr("SELECT id FROM items WHERE id IN (SELECT nope FROM tags)"),
  "^" .. lit("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `nope`") .. ".*; line 1 pos 41$",
  "an error inside the subquery: its own, at its place in the statement")
T.like(sqlerr("SELECT id FROM items WHERE id IN (SELECT id FROM tags"), "^" .. lit("[PARSE_SYNTAX_ERROR] Syntax error at or near end of input"),
  "an unclosed subquery")

local ok2, e2 = pcall(spark.sql, "SELECT nope FROM items")
T.is(ok2 == false and e2.code, "AnalysisException", "analysis errors are AnalysisException")
ok2, e2 = pcall(spark.sql, "SELEC 1")
T.is(ok2 == false and e2.code, "ParseException", "syntax errors are ParseException")
T.errors(function() spark.sql(42) end, "bad argument #1 to 'sql'", "the text must be a string")

-- hostile text: limits, not crashes
T.like(sqlerr(string.rep("SELECT * FROM (", 200) .. "SELECT 1" .. string.rep(")", 200)),
  "nested deeper than 64", "subqueries nested 200 deep")
T.like(sqlerr("SELECT " .. string.rep("(", 5000) .. "1" .. string.rep(")", 5000)),
  "^" .. lit("[PARSE_SYNTAX_ERROR]"), "an expression nested 5000 deep")
T.is(sqlerr("SELECT count(*) FROM items" .. string.rep(", items", 300)),
  "sql: more than 256 joins in one FROM (line 1, pos 1820)", "300 joins: a limit, not minutes of planning")
T.like(sqlerr("SELECT 1" .. string.rep(" UNION ALL SELECT 1", 2000)), "more than 1024 set operations",
  "2000 UNIONs")
T.like(sqlerr("SELECT \1\2 FROM items"), "^" .. lit("[PARSE_SYNTAX_ERROR]"), "control bytes")
T.is(sqlerr(""), "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input.(line 1, pos 0)", "empty text")
T.like(sqlerr(string.rep("WITH a AS (SELECT 1) ", 3) .. "SELECT 1"), "^" .. lit("[PARSE_SYNTAX_ERROR]"),
  "WITH twice in a row")
T.is(T.rows(spark.sql("SELECT id FROM items")), {{1}}, "the session still works")

T.done()
