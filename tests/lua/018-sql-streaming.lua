-- spark.sql over streaming views (issue 19): a view of a streaming
-- DataFrame is kept as its plan, so spark.sql over it is a streaming
-- DataFrame whose writeStream works as any other, and it must emit the
-- same rows, batch by batch, as the same query written in the DataFrame
-- API (both read one memory stream; Spark's StreamTest style: add data,
-- process, compare every micro-batch).
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local ms = spark.memoryStream("ts INT, product STRING, qty INT")
local orders = ms:toDF():withColumn("event_time", F.timestamp_seconds("ts"))
  :withWatermark("event_time", "10 seconds")
orders:createOrReplaceTempView("orders")
spark.createDataFrame({{"apple", "fruit"}, {"kale", "leaf"}}, "product string, kind string")
  :createOrReplaceTempView("kinds")

T.is(spark.sql("SELECT * FROM orders").isStreaming, true, "a query over a streaming view is streaming")
T.is(spark.table("orders").isStreaming, true, "spark.table of a streaming view is streaming")
T.is(spark.sql("SELECT * FROM kinds").isStreaming, false, "a batch view stays batch")

local blocks = {
  {{1, "apple", 2}, {3, "kale", 1}, {7, "apple", 5}},
  {{12, "apple", 1}, {14, "pear", 2}},
  {{2, "apple", 9}},              -- late for the windowed queries
  {{31, "kale", 4}, {33, "apple", 1}},
  {{60, "pear", 1}},
}

-- Both queries on the same input; every batch (id and sorted rows) must match.
local added = 0
local function same(name, sql_df, api_df, mode)
  local a = T.stream(sql_df, {mode = mode})
  local b = T.stream(api_df, {mode = mode})
  for _, block in ipairs(blocks) do
    ms:addData(block)
    added = added + #block
    a.q:processAllAvailable()
    b.q:processAllAvailable()
  end
  a.q:stop()
  b.q:stop()
  T.is(a.batches, b.batches, name)
  local rows = 0
  for _, bt in ipairs(a.batches) do rows = rows + #bt.rows end
  T.ok(rows > 0, name .. ": some rows came out")
  return a.batches
end

local function start_int(df) return df:withColumn("start", F.col("window.start"):cast("int")) end

same("windowed count, append: GROUP BY ordinals",
  spark.sql([[SELECT CAST(w.start AS INT) AS start, product, n FROM
    (SELECT window(event_time, '10 seconds') AS w, product, count(*) AS n FROM orders GROUP BY 1, 2)]]),
  orders:groupBy(F.window("event_time", "10 seconds"), "product"):agg(F.count("*"):alias("n"))
    :select(F.col("window.start"):cast("int"):alias("start"), "product", "n"),
  "append")

same("windowed sum, update mode",
  start_int(spark.sql([[SELECT window(event_time, '10 seconds'), sum(qty) AS total FROM orders
    GROUP BY window(event_time, '10 seconds')]])):drop("window"),
  start_int(orders:groupBy(F.window("event_time", "10 seconds")):agg(F.sum("qty"):alias("total")))
    :drop("window"),
  "update")

same("sliding windows, append",
  start_int(spark.sql([[SELECT window(event_time, '20 seconds', '10 seconds') AS window, count(*) AS n
    FROM orders GROUP BY 1]])):drop("window"),
  start_int(orders:groupBy(F.window("event_time", "20 seconds", "10 seconds")):agg(F.count("*"):alias("n")))
    :drop("window"),
  "append")

same("session_window, append",
  spark.sql([[SELECT CAST(session_window.start AS INT) AS s, CAST(session_window.end AS INT) AS e,
    product, n FROM (SELECT session_window(event_time, '5 seconds'), product, count(*) AS n
    FROM orders GROUP BY session_window(event_time, '5 seconds'), product)]]),
  orders:groupBy(F.session_window("event_time", "5 seconds"), "product"):agg(F.count("*"):alias("n"))
    :select(F.col("session_window.start"):cast("int"):alias("s"),
            F.col("session_window.end"):cast("int"):alias("e"), "product", "n"),
  "append")

same("a filter and projection, append",
  spark.sql("SELECT upper(product) AS p, qty * 10 AS q10 FROM orders WHERE qty > 1"),
  orders:filter("qty > 1"):select(F.upper("product"):alias("p"), (F.col("qty") * 10):alias("q10")),
  "append")

same("count per product, complete mode",
  spark.sql("SELECT product, count(*) AS n, max(qty) AS m FROM orders GROUP BY product"),
  orders:groupBy("product"):agg(F.count("*"):alias("n"), F.max("qty"):alias("m")),
  "complete")

same("stream-static LEFT JOIN ... ON",
  spark.sql("SELECT o.ts, o.product, k.kind FROM orders o LEFT JOIN kinds k ON o.product = k.product"),
  orders:join(spark.table("kinds"), "product", "left"):select("ts", "product", "kind"),
  "append")

same("stream-static JOIN ... USING",
  spark.sql("SELECT ts, product, kind FROM orders JOIN kinds USING (product)"),
  orders:join(spark.table("kinds"), "product"):select("ts", "product", "kind"),
  "append")

same("IN (SELECT ...) of a static view: a stream-static left semi join, append",
  spark.sql("SELECT ts, product FROM orders WHERE product IN (SELECT product FROM kinds WHERE kind = 'fruit')"),
  orders:join(spark.table("kinds"):filter("kind = 'fruit'"), "product", "left_semi"):select("ts", "product"),
  "append")

same("NOT EXISTS (SELECT ...) of a static view, append",
  spark.sql("SELECT ts, product FROM orders WHERE qty > 1 AND NOT EXISTS (SELECT 1 FROM kinds WHERE kind = 'none')"),
  orders:filter("qty > 1"):select("ts", "product"),
  "append")

same("dropDuplicates as SELECT DISTINCT, append",
  spark.sql("SELECT DISTINCT product FROM orders"),
  orders:select("product"):dropDuplicates(),
  "append")

-- a stream-stream inner join of two views, with watermarks on both
local l = spark.memoryStream("k INT, t INT")
local r = spark.memoryStream("k INT, t INT")
l:toDF():select("k", F.timestamp_seconds("t"):alias("lt")):withWatermark("lt", "10 seconds")
  :createOrReplaceTempView("lefts")
r:toDF():select(F.col("k"):alias("rk"), F.timestamp_seconds("t"):alias("rt")):withWatermark("rt", "10 seconds")
  :createOrReplaceTempView("rights")
local s = T.stream(spark.sql([[SELECT a.k, CAST(a.lt AS INT) AS lt, CAST(b.rt AS INT) AS rt
  FROM lefts a JOIN rights b ON a.k = b.rk AND a.lt < b.rt - INTERVAL 5 SECONDS]]))
s:add(l, {{1, 5}})
T.is(s:new(), {}, "stream-stream: left (1, 5) waits")
s:add(r, {{1, 11}})
T.is(s:new(), {{1, 5, 11}}, "stream-stream: right (1, 11) matches left (1, 5)")
s:add(r, {{1, 10}})
T.is(s:new(), {}, "stream-stream: 5 is not < 10 - 5")
s.q:stop()

-- the view is the plan, not a copy: data added later shows in a new query
local q = spark.sql("SELECT count(*) AS n FROM orders")
local c = T.stream(q, {mode = "complete"})
ms:addData({{100, "fig", 1}})
c.q:processAllAvailable()
T.is(c:last(), {{added + 1}}, "a new query over the view reads the whole stream")
c.q:stop()

-- a batch action on a streaming SQL query: Spark's sentence
T.errors(function() return spark.sql("SELECT * FROM orders"):count() end,
  "Queries with streaming sources must be executed with writeStream.start", "count of a streaming SQL query")
-- Spark's streaming analysis applies as to the DataFrame API
T.errors(function()
  spark.sql("SELECT product, count(*) FROM orders GROUP BY product").writeStream:outputMode("append")
    :format("memory"):queryName("bad"):start()
end, "Append output mode not supported", "an aggregate without watermark in append mode")

T.done()
