-- spark.sql: each statement form of a SELECT gives the rows Spark gives
-- (issue 19; engine/sql/sql.h has the grammar).  The queries run on the
-- plans the DataFrame API builds, so the same query written both ways
-- must agree too.
local T = require("tap")

spark.createDataFrame({
  {1, "apple", 3, 1.5}, {2, "pear", 1, 2.0}, {3, "apple", 5, 1.5},
  {4, "fig", nil, 4.0}, {5, nil, 2, 0.5}, {6, "pear", 4, 2.0},
}, "id int, product string, qty int, price double"):createOrReplaceTempView("sales")
spark.createDataFrame({
  {"apple", "fruit"}, {"pear", "fruit"}, {"kale", "leaf"},
}, "product string, kind string"):createOrReplaceTempView("kinds")

local function q(text) return T.rows(spark.sql(text)) end
local function qs(text) return T.sorted_rows(spark.sql(text)) end
local function cols(text) return spark.sql(text).columns end

-- projection, aliases, *, t.*
T.check(function() return q("SELECT id, qty * 2 AS dbl FROM sales WHERE id <= 2") end,
  {{1, 6}, {2, 2}}, "expressions and AS aliases")
T.check(function() return cols("SELECT id, qty * 2 dbl, price + 1, upper(product) FROM sales") end,
  {"id", "dbl", "(price + 1)", "upper(product)"}, "Spark's automatic names, alias without AS")
T.check(function() return cols("SELECT * FROM sales") end, {"id", "product", "qty", "price"}, "*")
T.check(function() return cols("SELECT s.*, k.kind FROM sales s JOIN kinds k ON s.product = k.product") end,
  {"id", "product", "qty", "price", "kind"}, "t.* and a qualified column")
T.check(function() return q("SELECT s.id FROM sales AS s WHERE s.qty IS NULL") end, {{4}},
  "a view alias qualifies columns")
T.check(function() return q("SELECT 1 + 1 AS two, 'x' || 'y' AS xy") end, {{2, "xy"}},
  "SELECT without FROM reads one row")

-- WHERE, CASE, CAST, INTERVAL, functions
T.check(function() return q([[SELECT id, CASE WHEN qty > 3 THEN 'many' WHEN qty IS NULL THEN 'none'
  ELSE 'few' END AS c FROM sales WHERE id BETWEEN 2 AND 4 ORDER BY id]]) end,
  {{2, "few"}, {3, "many"}, {4, "none"}}, "CASE and BETWEEN")
T.check(function() return q("SELECT CAST(price AS INT) AS p, CAST(id AS STRING) AS s FROM sales WHERE id = 4") end,
  {{4, "4"}}, "CAST")
T.check(function() return q([[SELECT CAST(TIMESTAMP '2026-01-01 12:00:00' + INTERVAL 90 MINUTES AS STRING) AS t]]) end,
  {{"2026-01-01 13:30:00"}}, "TIMESTAMP and INTERVAL literals")
T.check(function() return q("SELECT coalesce(product, 'none') AS p, length(coalesce(product, '')) AS n FROM sales WHERE id = 5") end,
  {{"none", 0}}, "functions")
T.check(function() return q("SELECT id FROM sales WHERE product IN ('fig', 'pear') AND NOT qty > 3 ORDER BY id") end,
  {{2}}, "IN, AND, NOT (NULL qty drops the fig)")
T.check(function() return q("SELECT id FROM sales WHERE product LIKE 'ap%' -- a comment\n ORDER BY id /* another */") end,
  {{1}, {3}}, "LIKE; -- and /* */ comments")

-- DISTINCT
T.check(function() return qs("SELECT DISTINCT product FROM sales WHERE product IS NOT NULL") end,
  {{"apple"}, {"fig"}, {"pear"}}, "SELECT DISTINCT")

-- GROUP BY: expressions, ordinals, aliases; HAVING
T.check(function() return qs("SELECT product, sum(qty) AS total, count(*) AS n FROM sales GROUP BY product") end,
  T.sorted{{nil, 2, 1}, {"apple", 8, 2}, {"fig", nil, 1}, {"pear", 5, 2}}, "GROUP BY a column")
T.check(function() return cols("SELECT product, count(*), avg(price) FROM sales GROUP BY product") end,
  {"product", "count(1)", "avg(price)"}, "count(*) is named count(1), as Spark")
T.check(function() return qs("SELECT count(*) AS n, product FROM sales GROUP BY 2") end,
  T.sorted{{1, nil}, {1, "fig"}, {2, "apple"}, {2, "pear"}}, "GROUP BY an ordinal; a key after the aggregate")
T.check(function() return qs("SELECT upper(product) AS up, max(qty) AS m FROM sales WHERE product IS NOT NULL GROUP BY up") end,
  {{"APPLE", 5}, {"FIG", nil}, {"PEAR", 4}}, "GROUP BY a select alias")
T.check(function() return qs("SELECT qty % 2 AS odd, count(*) AS n FROM sales WHERE qty IS NOT NULL GROUP BY qty % 2") end,
  {{0, 2}, {1, 3}}, "GROUP BY an expression")
T.check(function() return qs("SELECT product FROM sales GROUP BY product HAVING count(*) > 1") end,
  {{"apple"}, {"pear"}}, "HAVING over an aggregate not selected")
T.check(function() return qs("SELECT product, sum(qty) AS s FROM sales GROUP BY product HAVING s >= 5") end,
  {{"apple", 8}, {"pear", 5}}, "HAVING over a select alias")
T.check(function() return q("SELECT count(*) AS n, sum(qty) AS s, min(price) AS lo FROM sales") end,
  {{6, 15, 0.5}}, "a global aggregate")
T.check(function() return q("SELECT count(DISTINCT product) AS n FROM sales") end, {{3}}, "count(DISTINCT x)")

-- ORDER BY, LIMIT
T.check(function() return q("SELECT id FROM sales ORDER BY qty DESC NULLS LAST, id LIMIT 3") end,
  {{3}, {6}, {1}}, "ORDER BY ... DESC NULLS LAST, LIMIT")
T.check(function() return q("SELECT id FROM sales ORDER BY qty") end,
  {{4}, {2}, {5}, {1}, {6}, {3}}, "ORDER BY ascending puts NULL first, as Spark")
T.check(function() return q("SELECT id, qty FROM sales WHERE qty > 2 ORDER BY 2 DESC") end,
  {{3, 5}, {6, 4}, {1, 3}}, "ORDER BY an ordinal")
T.check(function() return q("SELECT product FROM sales WHERE qty > 0 ORDER BY price DESC, id") end,
  {{"pear"}, {"pear"}, {"apple"}, {"apple"}, {nil}}, "ORDER BY a column not selected")
T.check(function() return q("SELECT product, count(*) AS n FROM sales WHERE product IS NOT NULL GROUP BY product ORDER BY sum(qty) DESC") end,
  {{"apple", 2}, {"pear", 2}, {"fig", 1}}, "ORDER BY an aggregate not selected")

-- joins
T.check(function() return qs("SELECT s.id, k.kind FROM sales s JOIN kinds k ON s.product = k.product") end,
  {{1, "fruit"}, {2, "fruit"}, {3, "fruit"}, {6, "fruit"}}, "INNER JOIN ... ON")
T.check(function() return qs("SELECT s.id, k.kind FROM sales s LEFT JOIN kinds k ON s.product = k.product WHERE s.id > 3") end,
  {{4, nil}, {5, nil}, {6, "fruit"}}, "LEFT JOIN")
T.check(function() return qs("SELECT k.product, s.id FROM sales s RIGHT OUTER JOIN kinds k ON s.product = k.product WHERE k.kind = 'leaf'") end,
  {{"kale", nil}}, "RIGHT OUTER JOIN")
T.check(function() return qs("SELECT s.id, k.product FROM sales s FULL JOIN kinds k ON s.product = k.product WHERE s.id IS NULL OR s.id = 4") end,
  T.sorted{{nil, "kale"}, {4, nil}}, "FULL JOIN")
T.check(function() return qs("SELECT * FROM kinds k LEFT SEMI JOIN sales s ON k.product = s.product") end,
  {{"apple", "fruit"}, {"pear", "fruit"}}, "LEFT SEMI JOIN keeps the left's columns")
T.check(function() return qs("SELECT * FROM kinds LEFT ANTI JOIN sales USING (product)") end,
  {{"kale", "leaf"}}, "LEFT ANTI JOIN ... USING")
T.check(function() return cols("SELECT * FROM sales JOIN kinds USING (product)") end,
  {"product", "id", "qty", "price", "kind"}, "USING keeps one copy of the key, first")
T.check(function() return cols("SELECT k.* FROM sales s JOIN kinds k USING (product)") end,
  {"product", "kind"}, "t.* of a USING join keeps t's key")
T.check(function() return cols("SELECT * FROM kinds a JOIN kinds b ON a.kind = b.kind") end,
  {"product", "kind", "product", "kind"}, "ON keeps both sides' columns under their names")
T.check(function() return qs("SELECT a.product, b.product AS other FROM kinds a JOIN kinds b ON a.kind = b.kind AND a.product < b.product") end,
  {{"apple", "pear"}}, "a self join: qualifiers pick the side")
T.check(function() return #q("SELECT * FROM kinds a CROSS JOIN kinds b") end, 9, "CROSS JOIN")
T.check(function() return #q("SELECT a.kind FROM kinds a, kinds b WHERE a.product = b.product") end, 3,
  "a comma join with the condition in WHERE")

-- subqueries, WITH, UNION
T.check(function() return qs("SELECT t.p, t.n FROM (SELECT product AS p, count(*) AS n FROM sales GROUP BY product) t WHERE t.n > 1") end,
  {{"apple", 2}, {"pear", 2}}, "a subquery in FROM with an alias")
T.check(function() return qs([[WITH big AS (SELECT * FROM sales WHERE qty >= 3),
  names AS (SELECT DISTINCT product FROM big) SELECT product FROM names]]) end,
  {{"apple"}, {"pear"}}, "WITH: two CTEs, the second reading the first")
T.check(function() return q("SELECT product FROM kinds UNION ALL SELECT product FROM kinds WHERE kind = 'leaf' ORDER BY product") end,
  {{"apple"}, {"kale"}, {"kale"}, {"pear"}}, "UNION ALL keeps duplicates, ORDER BY over the union")
T.check(function() return q("SELECT kind FROM kinds UNION SELECT 'leaf' UNION SELECT 'root' ORDER BY 1 LIMIT 2") end,
  {{"fruit"}, {"leaf"}}, "UNION removes duplicates; ORDER BY an ordinal; LIMIT")
T.check(function() return q("SELECT product FROM sales INTERSECT SELECT product FROM kinds ORDER BY product") end,
  {{"apple"}, {"pear"}}, "INTERSECT: distinct rows in both")
T.check(function() return q("SELECT product FROM sales EXCEPT SELECT product FROM kinds ORDER BY 1") end,
  {{nil}, {"fig"}}, "EXCEPT: distinct rows of the first not in the second (NULL is a value here)")
-- INTERSECT binds tighter than UNION and EXCEPT (Spark's ANSI grammar)
T.check(function() return q("SELECT product FROM kinds UNION SELECT product FROM sales INTERSECT SELECT 'fig' ORDER BY 1") end,
  {{"apple"}, {"fig"}, {"kale"}, {"pear"}}, "a UNION b INTERSECT c is a UNION (b INTERSECT c)")
T.check(function() return q("SELECT product FROM sales EXCEPT SELECT product FROM kinds INTERSECT SELECT 'apple' ORDER BY 1") end,
  {{nil}, {"fig"}, {"pear"}}, "a EXCEPT b INTERSECT c is a EXCEPT (b INTERSECT c)")
T.check(function() return q("SELECT product FROM sales EXCEPT SELECT 'fig' UNION SELECT 'fig' ORDER BY 1") end,
  {{nil}, {"apple"}, {"fig"}, {"pear"}}, "UNION and EXCEPT go left to right")
T.check(function() return q("(SELECT product FROM kinds UNION SELECT product FROM sales) INTERSECT SELECT 'fig'") end,
  {{"fig"}}, "parentheses group as written")
-- INTERSECT ALL / EXCEPT ALL: multisets (min(m, k) and max(m - k, 0) copies)
T.check(function() return q("SELECT product FROM sales INTERSECT ALL " ..
    "(SELECT product FROM sales UNION ALL SELECT product FROM kinds) ORDER BY 1") end,
  {{nil}, {"apple"}, {"apple"}, {"fig"}, {"pear"}, {"pear"}}, "INTERSECT ALL: each row min(m, k) times, NULL equal to NULL")
T.check(function() return q("SELECT product FROM sales EXCEPT ALL SELECT product FROM kinds ORDER BY 1") end,
  {{nil}, {"apple"}, {"fig"}, {"pear"}}, "EXCEPT ALL: each row m - k times")
T.check(function() return q("SELECT product, qty > 2 AS big FROM sales MINUS ALL SELECT product, qty > 2 FROM sales WHERE id > 1 ORDER BY 1") end,
  {{"apple", true}}, "MINUS ALL is EXCEPT ALL; rows of two columns")
T.check(function() return q("SELECT 'x' UNION ALL SELECT product FROM sales INTERSECT ALL SELECT product FROM kinds ORDER BY 1") end,
  {{"apple"}, {"pear"}, {"x"}}, "INTERSECT ALL binds tighter than UNION ALL")
T.check(function() return cols("SELECT id AS n, product FROM sales INTERSECT ALL SELECT qty, product FROM sales") end,
  {"n", "product"}, "the left side's names")
T.errors(function() spark.sql("SELECT id FROM sales EXCEPT ALL SELECT id, qty FROM sales") end,
  "NUM_COLUMNS_MISMATCH%] EXCEPT can only be performed on inputs with the same number of columns",
  "EXCEPT ALL of different widths: Spark's error")
do
  local ms = spark.memoryStream("product STRING")
  ms:toDF():createOrReplaceTempView("live")
  T.errors(function() spark.sql("SELECT product FROM live INTERSECT ALL SELECT product FROM kinds") end,
    "INTERSECT ALL is not supported on streaming", "INTERSECT ALL over a stream: named as not supported")
  spark.sql("DROP VIEW live")
end
T.check(function() return q("(SELECT id FROM sales WHERE id < 2) UNION ALL (SELECT id FROM sales WHERE id > 5)") end,
  {{1}, {6}}, "parenthesized queries")
T.check(function() return q("SELECT id FROM sales WHERE id = 1;") end, {{1}}, "a trailing ';'")

-- uncorrelated IN / NOT IN / EXISTS subqueries in WHERE (Spark: left semi / anti joins)
spark.createDataFrame({{"apple"}, {nil}}, "product string"):createOrReplaceTempView("withnull")
T.check(function() return q("SELECT id FROM sales WHERE product IN (SELECT product FROM kinds WHERE kind = 'fruit') ORDER BY id") end,
  {{1}, {2}, {3}, {6}}, "x IN (SELECT ...)")
T.check(function() return q("SELECT id FROM sales WHERE product NOT IN (SELECT product FROM kinds) ORDER BY id") end,
  {{4}}, "x NOT IN (SELECT ...): a NULL x is never in or not in")
T.check(function() return q("SELECT id FROM sales WHERE product NOT IN (SELECT product FROM withnull)") end,
  {}, "NOT IN a subquery holding NULL: never true (null-aware, as Spark)")
T.check(function() return q("SELECT id FROM sales WHERE product NOT IN (SELECT product FROM kinds WHERE kind = 'none') ORDER BY id") end,
  {{1}, {2}, {3}, {4}, {5}, {6}}, "NOT IN an empty subquery: always true, NULL x too")
T.check(function() return q("SELECT id FROM sales WHERE qty > 2 AND EXISTS (SELECT 1 FROM kinds WHERE kind = 'leaf') ORDER BY id") end,
  {{1}, {3}, {6}}, "EXISTS (SELECT ...) that has rows, ANDed with a filter")
T.check(function() return q("SELECT id FROM sales WHERE EXISTS (SELECT 1 FROM kinds WHERE kind = 'none')") end,
  {}, "EXISTS of no rows")
T.check(function() return q("SELECT count(*) FROM sales WHERE NOT EXISTS (SELECT * FROM kinds WHERE kind = 'none')") end,
  {{6}}, "NOT EXISTS of no rows")
T.check(function() return q("SELECT id FROM sales WHERE id + 1 IN (SELECT qty FROM sales WHERE qty IN (SELECT qty FROM sales WHERE id > 4)) ORDER BY id") end,
  {{1}, {3}}, "an IN subquery of an expression, nested in another")
T.check(function() return q("WITH f AS (SELECT product FROM kinds WHERE kind = 'fruit') " ..
    "SELECT product, count(*) AS n FROM sales WHERE product IN (SELECT * FROM f) GROUP BY product ORDER BY product") end,
  {{"apple", 2}, {"pear", 2}}, "IN a CTE, then GROUP BY")

-- range(), Spark's table-valued function: a BIGINT column id
T.check(function() return q("SELECT * FROM range(3)") end, {{0}, {1}, {2}}, "range(end)")
T.check(function() return q("SELECT sum(id), count(*) FROM range(10, 0, -3)") end, {{22, 4}},
  "range(start, end, step) counts down: 10, 7, 4, 1")
T.check(function() return q("SELECT r.id FROM range(2, 5, 1, 8) AS r WHERE r.id > 2") end, {{3}, {4}},
  "range with numPartitions and an alias")
T.check(function() return q("SELECT count(*), min(id) FROM range(-9223372036854775808, 9223372036854775807, 4611686018427387904)") end,
  {{4, math.mininteger}}, "range over the whole BIGINT span: no overflow")
T.check(function() return q("SELECT count(*) FROM range(5, 5)") end, {{0}}, "an empty range")
T.check(function() return cols("SELECT * FROM range(1)") end, {"id"}, "its column is id")

-- the same query through the DataFrame API
local df = spark.table("sales"):filter("qty > 1"):groupBy("product"):agg(F.sum("qty"):alias("s"))
T.check(function() return T.sorted_rows(df) end,
  qs("SELECT product, sum(qty) AS s FROM sales WHERE qty > 1 GROUP BY product"),
  "the DataFrame API's groupBy agrees")
T.is(spark.sql("SELECT product, sum(qty) AS s FROM sales WHERE qty > 1 GROUP BY product"):toPySpark() ~= nil, true,
  "a SQL DataFrame has toPySpark")

T.done()
