-- W2 of BENCH.md on the user's path (and W2-csv, W2-parquet, issue 15
-- item 7): a file source over DIR (json, csv or parquet files of
-- "ts TIMESTAMP, product_id STRING, amount INT", written by
-- `peer_loop gen` and bench/gen_parquet.lua) with maxFilesPerTrigger 1 ->
-- W1's aggregation (watermark 5 s, 60 s window count + sum by product_id)
-- -> noop, append mode; one processing-time trigger per file, the first
-- at start().
--   streamlab run bench/w2.lua FORMAT DIR LINES [NAME]
local here = arg[0]:match("^(.*)/") or "."
local B = dofile(here .. "/lib.lua")
local format, dir = assert(arg[1], "usage: w2.lua FORMAT DIR LINES [NAME]"), assert(arg[2])
local lines = assert(tonumber(arg[3]), "LINES")
local name = arg[4] or "W2-" .. format

local files = 0
local p = assert(io.popen("ls '" .. dir .. "'"))
for f in p:lines() do
  if f:sub(1, 1) ~= "_" and f:sub(1, 1) ~= "." then files = files + 1 end
end
p:close()

spark.clock:manual("2026-01-01 13:00:00")
local src = spark.readStream:schema("ts TIMESTAMP, product_id STRING, amount INT")
  :option("maxFilesPerTrigger", 1):format(format):load(dir)
local w = B.w1_agg(src, "ts").writeStream:format("noop"):outputMode("append")
  :trigger{processingTime = "1 second"}
-- timed from start(): its batch 0 reads the first file
local q
local fig = B.timed(files + 1, function(i)
  if i == 1 then q = w:start() else spark.clock:advance("1 second") end
end)
local read = 0
for _, pr in ipairs(q.recentProgress) do read = read + pr.numInputRows end
assert(read == lines, string.format("%s: read %d of %d lines", format, read, lines))
fig.events = lines
B.state(q, fig)
q:stop()
B.report(name, fig)
