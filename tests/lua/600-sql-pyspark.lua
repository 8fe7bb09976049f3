-- toPySpark of a spark.sql query (issue 19 item 5): the program registers
-- the same views (each view's own DataFrame program, then
-- createOrReplaceTempView / createOrReplaceGlobalTempView) and runs
-- spark.sql with the same text; DataFrame methods after spark.sql start
-- from it.  With python3 present the programs must compile.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("ts long, product string")
ms:toDF():withColumn("event_time", F.timestamp_seconds("ts")):withWatermark("event_time", "10 minutes")
  :createOrReplaceTempView("orders")
spark.createDataFrame({{"a", "fruit"}}, "product string, kind string"):createOrReplaceGlobalTempView("kinds")

local text = "SELECT window(event_time, '5 minutes'), o.product, count(*) AS n\n" ..
  "FROM orders o JOIN global_temp.kinds k ON o.product = k.product GROUP BY 1, 2"
local df = spark.sql(text)
local py = df:toPySpark()
local function has(s, what, name) T.ok(py:find(s, 1, true) ~= nil, name or what) end
has('.withWatermark("event_time", "10 minutes")', "the view's own transformations")
has('orders_view.createOrReplaceTempView("orders")', "the view registered under its name")
has('.createOrReplaceGlobalTempView("kinds")', "a global temp view registered as one")
has('result = spark.sql("SELECT window(event_time, \'5 minutes\'), o.product, count(*) AS n\\n' ..
  'FROM orders o JOIN global_temp.kinds k ON o.product = k.product GROUP BY 1, 2")', "spark.sql with the same text")
T.ok(py:find("createOrReplaceTempView", 1, true) < py:find("spark.sql(", 1, true), "views before the query")

local q = df:filter("n > 1").writeStream:outputMode("append"):format("memory"):queryName("wc"):start()
local qpy = q:toPySpark()
T.ok(qpy:find('sql_df = spark.sql("SELECT', 1, true) ~= nil, "a query's program: spark.sql as a variable")
T.ok(qpy:find('.filter("n > 1")', 1, true) ~= nil, "then the DataFrame methods")
T.ok(qpy:find('.queryName("wc")', 1, true) ~= nil, "and the writer")
q:stop()

local once = spark.sql("SELECT o.product FROM orders o JOIN orders p ON o.ts = p.ts"):toPySpark()
local _, n = once:gsub('createOrReplaceTempView%("orders"%)', "")
T.is(n, 1, "a view read twice is registered once")
T.like(spark.sql("SHOW TABLES"):toPySpark(), 'spark%.sql%("SHOW TABLES"%)', "a command is spark.sql too")
T.is(spark.table("orders"):toPySpark():find("spark.sql(", 1, true), nil, "spark.table is no SQL")

if os.execute("command -v python3 >/dev/null 2>&1") then
  local dir = T.tempdir()
  for i, prog in ipairs{py, qpy, once} do
    local f = assert(io.open(dir .. "/p" .. i .. ".py", "w"))
    f:write(prog)
    f:close()
    T.ok(os.execute("python3 -m py_compile '" .. dir .. "/p" .. i .. ".py'"), "program " .. i .. " compiles")
  end
else
  for i = 1, 3 do T.ok(true, "# SKIP python3 not installed") end
end

T.done()
