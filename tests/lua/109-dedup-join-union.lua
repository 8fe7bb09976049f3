-- dropDuplicates across batches (Spark's DeduplicateSuite "deduplicate
-- with all columns"), a stream-static join, and a union of two streams.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

-- dropDuplicates() over all columns, append mode
local ms = spark.memoryStream("value STRING")
local collect, seen = T.batches()
local q = ms:toDF():dropDuplicates().writeStream:foreachBatch(collect):start()
local function so() return q.lastProgress.stateOperators[1] end
ms:addData{"a"}
q:processAllAvailable()
T.is(seen[#seen].rows, {{"a"}}, "AddData(a) -> a")
T.is({so().numRowsTotal, so().numRowsUpdated}, {1, 1}, "state: total 1, updated 1")
ms:addData{"a"}
q:processAllAvailable()
T.is(seen[#seen].rows, {}, "AddData(a) again -> nothing")
T.is({so().numRowsTotal, so().numRowsUpdated}, {1, 0}, "state: total 1, updated 0")
ms:addData{"b"}
q:processAllAvailable()
T.is(seen[#seen].rows, {{"b"}}, "AddData(b) -> b")
T.is(so().numRowsTotal, 2, "state: total 2")
T.is(so().operatorName, "dedupe", "operatorName dedupe")
q:stop()

-- dropDuplicates on some columns keeps the first row of each key
local ms2 = spark.memoryStream("id INT, v STRING")
q = ms2:toDF():dropDuplicates{"id"}.writeStream:format("memory"):queryName("firsts"):start()
ms2:addData{{1, "x"}, {2, "y"}}
q:processAllAvailable()
ms2:addData{{1, "z"}, {3, "w"}}
q:processAllAvailable()
T.is(T.rows(spark.table("firsts")), {{1, "x"}, {2, "y"}, {3, "w"}}, "dropDuplicates{'id'} across batches")
q:stop()

-- stream-static join: each batch joins the static table
local products = spark.createDataFrame({{1, "apple"}, {2, "pear"}}, "pid INT, pname STRING")
local orders = spark.memoryStream("pid INT, qty INT")
q = orders:toDF():join(products, "pid").writeStream:format("memory"):queryName("joined"):start()
orders:addData{{1, 5}, {3, 1}}
q:processAllAvailable()
orders:addData{{2, 7}, {1, 1}}
q:processAllAvailable()
T.is(T.sorted_rows(spark.table("joined")), {{1, 1, "apple"}, {1, 5, "apple"}, {2, 7, "pear"}},
  "inner stream-static join")
q:stop()

local lj = orders:toDF():join(products, "pid", "left")
q = lj.writeStream:format("memory"):queryName("leftjoined"):start()
q:processAllAvailable()
T.is(T.sorted_rows(spark.table("leftjoined")),
  {{1, 1, "apple"}, {1, 5, "apple"}, {2, 7, "pear"}, {3, 1, nil}}, "left outer stream-static join")
q:stop()

-- union of two streams
local a, b = spark.memoryStream("value INT"), spark.memoryStream("value INT")
q = a:toDF():union(b:toDF()).writeStream:format("memory"):queryName("both"):start()
a:addData{1, 2}
b:addData{10}
q:processAllAvailable()
T.is(T.sorted_rows(spark.table("both")), T.sorted{{1}, {2}, {10}}, "union reads both streams")
T.is(#q.lastProgress.sources, 2, "two sources in progress")
b:addData{20}
q:processAllAvailable()
T.is(T.sorted_rows(spark.table("both")), T.sorted{{1}, {2}, {10}, {20}}, "a batch with data on one side only")
T.is({q.lastProgress.sources[1].numInputRows, q.lastProgress.sources[2].numInputRows}, {0, 1},
  "per-source row counts")
q:stop()

-- union of a stream and a batch DataFrame is not supported
T.errors(function()
  a:toDF():union(products:select("pid")).writeStream:format("console"):start()
end, "Union between streaming and batch DataFrames/Datasets is not supported", "stream + batch union")

T.done()
