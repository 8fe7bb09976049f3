-- W2 / W2-csv on the user's path (issue 18 item 5): a file source of
-- JSON lines or CSV -> 60 s tumbling count + sum(amount) by product_id,
-- watermark 5 s, append mode -> noop; or, with "parse", the source alone
-- into noop (what the reader costs).  The files are written first (not
-- timed) the way bench/stream_bench.c writes W2's: ts advances 10 000
-- lines a second, product_id p0..p999, amount 0..99.  Prints process CPU
-- (os.clock, every thread) of the query from start to termination.
-- Shape "iso" writes ISO-8601 timestamps with a fraction and an offset
-- whose date changes every line (2026-01-DDTHH:mm:ss.ffffff+01:00): the
-- timestamp parser without its date cache.
--   streamlab run bench/parse_files.lua [json|csv] [agg|parse] [lines] [w2|iso]
local fmt = arg and arg[1] or "json"
local what = arg and arg[2] or "agg"
local nlines = tonumber(arg and arg[3]) or 2000000
local shape = arg and arg[4] or "w2"
assert(shape == "w2" or shape == "iso", "shape: w2 or iso")
local per_file = 100000
assert(fmt == "json" or fmt == "csv", "format: json or csv")
assert(what == "agg" or what == "parse", "agg or parse")

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "/in'"))
local nfiles = 0
for f0 = 0, nlines - 1, per_file do
  local out, n = {}, 0
  for i = f0, math.min(f0 + per_file, nlines) - 1 do
    local s = i // 10000
    local ts
    if shape == "iso" then
      ts = string.format("2026-01-%02dT12:%02d:%02d.%06d+01:00", 1 + i % 28, s // 60 % 60, s % 60, i % 1000000)
    else
      ts = string.format("2026-01-01 12:%02d:%02d", s // 60, s % 60)
    end
    n = n + 1
    if fmt == "csv" then
      out[n] = string.format("%s,p%d,%d\n", ts, i % 1000, i % 100)
    else
      out[n] = string.format('{"ts":"%s","product_id":"p%d","amount":%d}\n', ts, i % 1000, i % 100)
    end
  end
  local name = string.format("%s/in/in-%03d.%s", dir, nfiles, fmt)
  local fp = assert(io.open(name, "w"))
  fp:write(table.concat(out))
  fp:close()
  -- modification times in file order
  assert(os.execute(string.format("touch -d '2026-01-01 11:%02d:%02d' '%s'", nfiles // 60, nfiles % 60, name)))
  nfiles = nfiles + 1
end

spark.clock:manual("2026-01-01 12:00:00")
local src = spark.readStream:schema("ts TIMESTAMP, product_id STRING, amount INT")
  :option("maxFilesPerTrigger", 1):format(fmt):load(dir .. "/in")
local df = src
if what == "agg" then
  df = src:withWatermark("ts", "5 seconds")
    :groupBy(F.window("ts", "60 seconds"), "product_id")
    :agg(F.count("*"):alias("n"), F.sum("amount"):alias("s"))
end
local c0 = os.clock()
local q = df.writeStream:format("noop"):outputMode("append")
  :trigger{availableNow = true}:start()
q:awaitTermination()
local cpu = os.clock() - c0
local rows, batches = 0, 0
for _, pr in ipairs(q.recentProgress) do
  rows = rows + pr.numInputRows
  batches = batches + 1
end
q:stop()
assert(rows == nlines, string.format("read %d of %d lines", rows, nlines))
os.execute("rm -rf '" .. dir .. "'")
print(string.format("%s %s %s: %d lines in %d files, %d batches, cpu %.3f s, %.2f M lines/s of cpu",
  fmt, what, shape, nlines, nfiles, batches, cpu, nlines / cpu / 1e6))
