-- foreachBatch(function(df, batchId)): batch ids, each batch as a batch
-- DataFrame, and an error inside the function failing the query with the
-- Lua traceback in q.exception while the program carries on.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("id INT, amount DOUBLE")
local seen = {}
local q = ms:toDF():withColumn("twice", F.col("amount") * 2).writeStream
  :foreachBatch(function(df, batchId)
    seen[#seen + 1] = {
      id = batchId, idtype = math.type(batchId), streaming = df.isStreaming,
      n = df:count(), rows = T.rows(df:orderBy("id")),
    }
  end):start()

ms:addData{{1, 1.5}, {2, 2.0}}
q:processAllAvailable()
ms:addData{{3, 0.25}}
q:processAllAvailable()
T.is(#seen, 2, "the function ran once per batch")
T.is(seen[1].id, 0, "first batchId is 0")
T.is(seen[2].id, 1, "second batchId is 1")
T.is(seen[1].idtype, "integer", "batchId is a Lua integer")
T.is(seen[1].streaming, false, "df inside foreachBatch is a batch DataFrame")
T.is(seen[1].n, 2, "batch actions work on it")
T.is(seen[1].rows, {{1, 1.5, 3.0}, {2, 2.0, 4.0}}, "batch 0 rows, transformed")
T.is(seen[2].rows, {{3, 0.25, 0.5}}, "batch 1 has only the new rows")
T.is(q.lastProgress.sink.description, "ForeachBatchSink", "sink description")
q:stop()

-- the batch DataFrame can be written anywhere: here into a temp view
local ms2 = spark.memoryStream("w STRING")
q = ms2:toDF():groupBy("w"):count().writeStream:outputMode("complete")
  :foreachBatch(function(df, id) df:createOrReplaceTempView("latest_counts") end):start()
ms2:addData{"x", "y", "x"}
q:processAllAvailable()
T.is(T.sorted_rows(spark.table("latest_counts")), {{"x", 2}, {"y", 1}}, "foreachBatch can save each batch")
q:stop()

-- an error inside the function
local ms3 = spark.memoryStream("value INT")
local calls = 0
local function boom(df, id)
  calls = calls + 1
  if df:count() > 1 then
    error("too many rows in batch " .. id)
  end
end
q = ms3:toDF().writeStream:foreachBatch(boom):start()
ms3:addData{1}
q:processAllAvailable()
T.is(q.exception, nil, "no exception while the function succeeds")
ms3:addData{2, 3}
local err = T.errors(function() q:processAllAvailable() end, "too many rows in batch 1",
  "processAllAvailable raises the query's failure")
T.is(type(err) == "table" and err.code, "StreamingQueryException", "as a StreamingQueryException")
T.is(q.isActive, false, "the failed query is no longer active")
T.like(q.exception, "104%-foreachbatch%.lua:%d+: too many rows in batch 1", "q.exception has the Lua message")
T.like(q.exception, "stack traceback:", "q.exception has the Lua traceback")
T.like(q.exception, "in function <tests/lua/104%-foreachbatch%.lua:44>", "the traceback points at the function")
T.is(q.exception:find("processAllAvailable", 1, true), nil, "and stops at the function (not the caller that drove the batch)")
T.errors(function() q:awaitTermination() end, "too many rows in batch 1",
  "awaitTermination raises it too")
T.is(calls, 2, "the function ran twice")
T.is(#spark.streams.active, 0, "the failed query left spark.streams.active")

-- the program is still fine: another query runs
local q2 = ms3:toDF().writeStream:format("memory"):queryName("after"):start()
q2:processAllAvailable()
T.is(T.rows(spark.table("after")), {{1}, {2}, {3}}, "a new query runs after the failure")
q2:stop()

-- an error object (engine error raised inside the function)
local ms4 = spark.memoryStream("value INT")
q = ms4:toDF().writeStream:foreachBatch(function(df) df:select("nope") end):start()
ms4:addData{1}
T.errors(function() q:processAllAvailable() end, "nope", "an engine error inside foreachBatch fails the query")
T.like(q.exception, "stack traceback:", "with a traceback")

-- argument checks
T.errors(function() ms4:toDF().writeStream:foreachBatch("f") end,
  "bad argument #1 to 'foreachBatch' %(function%(df, batchId%) expected, got string", "foreachBatch needs a function")

T.done()
