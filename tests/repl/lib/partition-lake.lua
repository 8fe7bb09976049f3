-- partition-lake.lua DIR: the partitioned lake tests/repl/042 gives DuckDB
-- (issue 15 item 2).  DIR/batch: df.write:partitionBy("day", "country")
-- as Parquet; DIR/stream: writeStream:format("parquet"):partitionBy
-- ("country") over three batches with a stop and a restart in the middle.
-- DIR/rows.json holds the rows given to streamlab (the oracle: the input,
-- not anything streamlab read back), one JSON array per line:
-- "batch" or "stream", id, day, country (null), n.
local dir = assert(arg and arg[1], "usage: partition-lake.lua DIR")
spark.clock:manual("2026-01-01 12:00:00")

local rows = {
  {1, "2026-01-01", "fr", 1.5}, {2, "2026-01-01", "de", 2.5}, {3, "2026-01-02", "fr", 3.5},
  {4, "2026-01-02", nil, 4.5}, {5, "2026-01-02", "a b", 5.5}, {6, "2026-01-03", "x/y", 6.5},
  {7, "2026-01-03", "c:d=e", 7.5}, {8, "2026-01-03", "", 8.5}, {9, "2026-01-03", "100%", 9.5},
}
local oracle = assert(io.open(dir .. "/rows.json", "w"))
local function note(kind, r)
  local c = r[3]
  if c == nil or c == "" then c = "null" else c = '"' .. c .. '"' end
  oracle:write(string.format('["%s",%d,"%s",%s,%s]\n', kind, r[1], r[2], c, tostring(r[4])))
end

spark.createDataFrame(rows, "id INT, day STRING, country STRING, n DOUBLE")
  .write:partitionBy("day", "country"):parquet(dir .. "/batch")
for _, r in ipairs(rows) do note("batch", r) end

local ms = spark.memoryStream("id INT, day STRING, country STRING, n DOUBLE")
local function start()
  return ms:toDF().writeStream:format("parquet"):partitionBy("country")
    :option("checkpointLocation", dir .. "/ck"):start(dir .. "/stream")
end
local q = start()
ms:addData{rows[1], rows[2], rows[3]}
q:processAllAvailable()
ms:addData{rows[4], rows[5], rows[6]}
q:processAllAvailable()
q:stop()
q = start()
ms:addData{rows[7], rows[8], rows[9]}
q:processAllAvailable()
q:stop()
for _, r in ipairs(rows) do note("stream", r) end
oracle:close()
