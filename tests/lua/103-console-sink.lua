-- The console sink: Spark's "Batch: N" block and a show()-style table,
-- written through print (so the REPL and T.capture see it), with the
-- numRows and truncate options.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("id INT, name STRING")
local q = ms:toDF().writeStream:format("console"):start()

ms:addData{{1, "ann"}, {2, "bob"}}
local out = T.capture(function() q:processAllAvailable() end)
T.is(out, table.concat({
  "-------------------------------------------",
  "Batch: 0",
  "-------------------------------------------",
  "+---+----+",
  "| id|name|",
  "+---+----+",
  "|  1| ann|",
  "|  2| bob|",
  "+---+----+",
  "",
  ""}, "\n"), "the exact Batch: 0 block")

ms:addData{{3, "cid"}}
out = T.capture(function() q:processAllAvailable() end)
T.like(out, "^%-+\nBatch: 1\n%-+\n", "the next batch is Batch: 1")
T.like(out, "|  3| cid|", "with only the new rows (append)")
T.like(q.lastProgress.sink.description, "^org%.apache%.spark%.sql%.execution%.streaming%.ConsoleTable%$",
  "console sink description")
out = T.capture(function() q:processAllAvailable() end)
T.is(out, "", "no new data: nothing printed")
q:stop()

-- numRows and truncate
local ms2 = spark.memoryStream("s STRING")
q = ms2:toDF().writeStream:format("console"):option("numRows", 2):option("truncate", false):start()
ms2:addData{"a", "b", "a very long string that show() would cut at twenty characters"}
out = T.capture(function() q:processAllAvailable() end)
T.like(out, "only showing top 2 rows", "numRows limits the rows shown")
T.is(select(2, out:gsub("\n|[ab]", "")), 2, "two rows printed")
q:stop()

local ms3 = spark.memoryStream("s STRING")
q = ms3:toDF().writeStream:format("console"):options{truncate = true}:start()
ms3:addData{"a very long string that show() would cut at twenty characters"}
out = T.capture(function() q:processAllAvailable() end)
T.like(out, "|a very long strin...|", "truncate=true cuts at 20 characters")
q:stop()

-- an aggregation in complete mode prints the whole table each batch
local ms4 = spark.memoryStream("value INT")
q = ms4:toDF():groupBy("value"):count():orderBy("value").writeStream
  :format("console"):outputMode("complete"):start()
ms4:addData{2, 1, 2}
T.capture(function() q:processAllAvailable() end)
ms4:addData{3}
out = T.capture(function() q:processAllAvailable() end)
T.is(out, table.concat({
  "-------------------------------------------",
  "Batch: 1",
  "-------------------------------------------",
  "+-----+-----+",
  "|value|count|",
  "+-----+-----+",
  "|    1|    1|",
  "|    2|    2|",
  "|    3|    1|",
  "+-----+-----+",
  "",
  ""}, "\n"), "complete mode with a sort after the aggregation: the full sorted table")
q:stop()

T.done()
