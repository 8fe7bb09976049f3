-- Kafka source restarts from its checkpoint (the embedded cluster):
-- startingOffsets is resolved once and kept in <checkpoint>/sources/0/0
-- (Spark's KafkaSourceInitialOffsetWriter: a zero byte, "v1\n", the JSON),
-- re-read on restart ("latest" is not resolved again), and a crash at every
-- crash point followed by q:restart() gives exactly the uncrashed run's
-- output: Kafka -> groupBy count -> memory sink (complete) and Kafka ->
-- map -> json file sink (append); 0 lost, 0 duplicated.
local T = require("tap")
local C = require("crashcase")
spark.clock:manual("2026-01-01 12:00:00")

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function spit(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

-- 1. "latest" resolved once, written, re-read on restart
kafka.createTopic("k302l", 1)
for i = 0, 4 do kafka.produce("k302l", "old" .. i) end
local ck = T.tempdir() .. "/ck"
local function latest_query()
  return spark.readStream:format("kafka"):option("subscribe", "k302l")
    :option("startingOffsets", "latest"):load()
    :selectExpr("CAST(value AS STRING) AS v")
    .writeStream:format("memory"):queryName("k302l")
    :option("checkpointLocation", ck):start()
end
local q = latest_query()
q:crash("after-offsets")
local ok, e = pcall(q.step, q)
T.ok(not ok and tostring(e):find("simulated crash at 'after%-offsets' in batch 0"),
  "batch 0 crashes after its offsets are logged")
local init = ck .. "/sources/0/0"
T.is(slurp(init), "\0v1\n{\"k302l\":{\"0\":5}}", "latest resolved once to 5 and written to sources/0/0")
-- the log moves on; a re-resolved "latest" would now be 8
for i = 0, 2 do kafka.produce("k302l", "new" .. i) end
-- prove the file is what restart reads: point it at offset 2
spit(init, "\0v1\n{\"k302l\":{\"0\":2}}")
q = q:restart()
q:processAllAvailable()
local vs = {}
for _, r in ipairs(T.sorted_rows(spark.table("k302l"))) do vs[#vs + 1] = r[1] end
T.is(vs, {"new0", "new1", "new2", "old2", "old3", "old4"},
  "restart re-runs batch 0 from the kept start (2), not a new latest; then 5..7 once")
T.is(slurp(init), "\0v1\n{\"k302l\":{\"0\":2}}", "restart did not rewrite sources/0/0")
q:stop()

-- a fresh query with latest and no checkpoint data reads nothing old
kafka.createTopic("k302m", 2)
for i = 0, 5 do kafka.produce("k302m", "x" .. i, {partition = i % 2}) end
local ck2 = T.tempdir() .. "/ck"
local function q2f()
  return spark.readStream:format("kafka"):option("subscribe", "k302m")
    :option("startingOffsets", "latest"):load()
    :selectExpr("CAST(value AS STRING) AS v")
    .writeStream:format("memory"):queryName("k302m")
    :option("checkpointLocation", ck2):start()
end
local q2 = q2f()
q2:processAllAvailable()
T.is(spark.table("k302m"):count(), 0, "latest: nothing old read")
q2:stop()
kafka.produce("k302m", "y0", {partition = 0})
kafka.produce("k302m", "y1", {partition = 1})
q2 = q2f()
q2:processAllAvailable()
local ys = {}
for _, r in ipairs(T.sorted_rows(spark.table("k302m"))) do ys[#ys + 1] = r[1] end
T.is(ys, {"y0", "y1"}, "stop, produce, start again: exactly the new records")
q2:stop()

-- 2. crash at every point, restart, compare with the uncrashed run
local PARTS = 3
local counter = 0

local function run(sink, point, batch)
  counter = counter + 1
  local topic = "k302c" .. counter
  kafka.createTopic(topic, PARTS)
  local function produce(from, to)
    for i = from, to do kafka.produce(topic, "v" .. i, {partition = i % PARTS}) end
  end
  produce(0, 29)
  local ctx = {ck = T.tempdir() .. "/ck", out = T.tempdir(), name = "k302c" .. counter}
  local function start()
    local df = spark.readStream:format("kafka"):option("subscribe", topic)
      :option("startingOffsets", "earliest"):option("maxOffsetsPerTrigger", "7"):load()
      :selectExpr("CAST(value AS STRING) AS v", "partition")
    if sink == "memory" then
      return df:groupBy("partition"):count().writeStream:outputMode("complete")
        :format("memory"):queryName(ctx.name):option("checkpointLocation", ctx.ck):start()
    end
    return df.writeStream:format("json"):option("checkpointLocation", ctx.ck):start(ctx.out)
  end
  local qq = start()
  local crashes, nextid, armed = 0, 0, false
  local function drain()
    for _ = 1, 40 do
      if point and not armed and nextid == batch then qq:crash(point); armed = true end
      local okk, ran = pcall(qq.step, qq)
      if not okk then
        assert(tostring(ran):match("simulated crash"), "step failed: " .. tostring(ran))
        crashes = crashes + 1
        qq = qq:restart()
      elseif not ran then
        return
      else
        nextid = qq.lastProgress.batchId + 1
      end
    end
    error("too many steps")
  end
  drain()
  produce(30, 44)
  drain()
  local rows
  if sink == "memory" then
    rows = T.sorted_rows(spark.table(ctx.name))
  else
    rows = T.sorted_rows(spark.read:schema("v STRING, partition INT"):json(ctx.out))
  end
  local ckt = qq:checkpoint()
  qq:stop()
  -- each run has its own topic: key the logged offsets by "topic"
  local cmp = C.comparable(ckt)
  for _, b in ipairs(type(cmp) == "table" and cmp or {}) do
    for i, o in ipairs(b.offsets or {}) do
      if type(o) == "table" then b.offsets[i] = {topic = o[topic]} end
    end
  end
  return {rows = rows, crashes = crashes, checkpoint = cmp,
          temps = C.stray_temps(ctx.ck)}
end

local function dup_values(rows)
  local seen, dup = {}, {}
  for _, r in ipairs(rows) do
    if seen[r[1]] then dup[#dup + 1] = r[1] end
    seen[r[1]] = true
  end
  return dup
end

for _, sink in ipairs{"memory", "file"} do
  local ref = run(sink)
  if sink == "memory" then
    T.is(ref.rows, {{0, 15}, {1, 15}, {2, 15}}, "memory, uncrashed: 45 records counted 15/15/15")
  else
    T.is(#ref.rows, 45, "file, uncrashed: 45 rows")
    T.is(dup_values(ref.rows), {}, "file, uncrashed: no value twice")
  end
  for _, point in ipairs(C.POINTS) do
    local tag = sink .. " " .. point .. "@2: "
    local got = run(sink, point, 2)
    T.is(got.crashes, 1, tag .. "crashed once")
    T.is(got.rows, ref.rows, tag .. "output equals the uncrashed run's (0 lost, 0 duplicated)")
    if sink == "file" then T.is(dup_values(got.rows), {}, tag .. "no value twice") end
    T.is(got.checkpoint, ref.checkpoint, tag .. "same offsets log, all committed")
    T.is(got.temps, {}, tag .. "no stray temp files")
  end
end

T.done()
