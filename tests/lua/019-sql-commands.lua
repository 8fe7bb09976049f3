-- spark.sql's commands: SHOW TABLES, DESCRIBE, EXPLAIN, CREATE/DROP TEMP
-- VIEW, and global temp views (Spark's global_temp database), with
-- Spark's result columns.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
spark.createDataFrame({{1, "a"}, {2, "b"}}, "id int, name string"):createOrReplaceTempView("items")
spark.createDataFrame({{7}}, "n bigint"):createOrReplaceGlobalTempView("shared")
local ms = spark.memoryStream("ts INT, word STRING")
ms:toDF():withColumn("t", F.timestamp_seconds("ts")):createOrReplaceTempView("words")

T.is(spark.sql("SHOW TABLES").columns, {"namespace", "tableName", "isTemporary"}, "SHOW TABLES's columns")
T.is(T.sorted_rows(spark.sql("SHOW TABLES")), {{"", "items", true}, {"", "words", true}},
  "SHOW TABLES lists the temp views, not the global ones")
T.is(T.sorted_rows(spark.sql("show tables in global_temp")),
  {{"", "items", true}, {"", "words", true}, {"global_temp", "shared", true}},
  "SHOW TABLES IN global_temp adds the global temp views")
spark.createDataFrame({{1}}, "n int"):createOrReplaceTempView("Orders_2026")
T.is(T.sorted_rows(spark.sql("SHOW TABLES LIKE 'it*'")), {{"", "items", true}}, "SHOW TABLES LIKE: '*' is any text")
T.is(T.sorted_rows(spark.sql("SHOW TABLES 'ORD*|wor*'")), {{"", "Orders_2026", true}, {"", "words", true}},
  "LIKE is optional; '|' separates alternatives; case-insensitive both ways")
T.is(T.sorted_rows(spark.sql("SHOW TABLES FROM global_temp LIKE 'sh*|items'")),
  {{"", "items", true}, {"global_temp", "shared", true}}, "FROM global_temp with a pattern: each namespace's names")
T.is(T.sorted_rows(spark.sql("SHOW TABLES IN default LIKE ' items '")), {{"", "items", true}},
  "IN default is the session's views; the pattern is trimmed, as Spark's")
T.is(T.rows(spark.sql("SHOW TABLES LIKE 'it'")), {}, "a pattern matches the whole name")
T.is(T.rows(spark.sql("SHOW TABLES LIKE '[x'")), {}, "a pattern that is no regex matches nothing (Spark drops it)")
T.is(spark.sql("SHOW VIEWS").columns, {"namespace", "viewName", "isTemporary"}, "SHOW VIEWS's columns")
T.is(T.sorted_rows(spark.sql("show views in global_temp like '*s*'")),
  {{"", "Orders_2026", true}, {"", "items", true}, {"", "words", true}, {"global_temp", "shared", true}},
  "SHOW VIEWS IN global_temp LIKE: the same views and pattern")
T.errors(function() spark.sql("SHOW TABLES IN nodb") end, "SCHEMA_NOT_FOUND%] The schema `nodb` cannot be found",
  "an unknown schema: Spark's SCHEMA_NOT_FOUND")
T.errors(function() spark.sql("SHOW TABLES LIKE") end, "PARSE_SYNTAX_ERROR", "LIKE needs its pattern")
spark.sql("DROP VIEW Orders_2026")

T.is(T.rows(spark.sql("DESCRIBE items")), {{"id", "int"}, {"name", "string"}},
  "DESCRIBE: col_name, data_type (comment NULL)")
T.is(spark.sql("DESCRIBE TABLE words").columns, {"col_name", "data_type", "comment"}, "DESCRIBE TABLE's columns")
T.is(T.rows(spark.sql("DESCRIBE words")), {{"ts", "int"}, {"word", "string"}, {"t", "timestamp"}},
  "DESCRIBE a streaming view")
T.is(T.rows(spark.sql("SELECT n FROM global_temp.shared")), {{7}}, "global_temp.name reads a global temp view")
T.errors(function() spark.sql("SELECT * FROM shared") end, "TABLE_OR_VIEW_NOT_FOUND",
  "a global temp view needs its global_temp qualifier")

local plan = T.rows(spark.sql("EXPLAIN SELECT name FROM items WHERE id > 1"))[1][1]
local want = T.capture(function() spark.table("items"):filter("id > 1"):select("name"):explain() end)
T.is(plan, want, "EXPLAIN gives the DataFrame API's plan for the same query")
T.like(T.rows(spark.sql("EXPLAIN EXTENDED SELECT * FROM words"))[1][1], "StreamingRelation",
  "EXPLAIN EXTENDED of a streaming query")

T.is(T.rows(spark.sql("CREATE OR REPLACE TEMP VIEW big AS SELECT id * 10 AS x FROM items")), {},
  "CREATE TEMP VIEW returns no rows")
T.is(T.rows(spark.sql("SELECT x FROM big ORDER BY x")), {{10}, {20}}, "and the view reads")
T.is(T.rows(spark.table("big"):orderBy("x")), {{10}, {20}}, "spark.table reads it too")
spark.sql("CREATE TEMPORARY VIEW upper_words AS SELECT upper(word) AS w, t FROM words")
T.is(spark.table("upper_words").isStreaming, true, "a view over a streaming view is streaming")
spark.sql("CREATE GLOBAL TEMP VIEW g2 AS SELECT 1 AS one")
T.is(T.rows(spark.sql("SELECT one FROM global_temp.g2")), {{1}}, "CREATE GLOBAL TEMP VIEW")

spark.sql("DROP VIEW big")
T.errors(function() spark.sql("SELECT * FROM big") end, "TABLE_OR_VIEW_NOT_FOUND", "DROP VIEW removes it")
T.errors(function() spark.sql("DROP VIEW big") end, "TABLE_OR_VIEW_NOT_FOUND", "dropping it again fails")
T.lives(function() spark.sql("DROP VIEW IF EXISTS big") end, "DROP VIEW IF EXISTS tolerates it")

-- a streaming view feeds a memory sink whose table SQL reads as a batch
local q = spark.sql("SELECT w FROM upper_words WHERE w <> 'B'").writeStream
  :format("memory"):queryName("seen"):start()
ms:addData({{1, "a"}, {2, "b"}, {3, "c"}})
q:processAllAvailable()
T.is(T.rows(spark.sql("SELECT w FROM seen ORDER BY w")), {{"A"}, {"C"}}, "SQL over a memory sink's table")
q:stop()

T.done()
