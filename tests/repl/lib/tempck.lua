-- tempck: a stateful query on a checkpoint (temporary unless arg[1] names
-- a checkpointLocation): 6 batches of a grouped count into the memory
-- sink, a crash at arg[2] (a crash point) in batch 3, restart, drain.
-- Prints the final table and the checkpoint's batch count
-- (tests/repl/027-temp-ckpt-nosync.t).
local ckloc, point = arg[1], arg[2] or "mid-commit"
if ckloc == "" then ckloc = nil end
spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("v INT")
local w = ms:toDF():groupBy("v"):count().writeStream:format("memory")
  :queryName("counts"):outputMode("complete")
if ckloc then w = w:option("checkpointLocation", ckloc) end
local q = w:start()
local temp = q.checkpointLocation
local crashed = false
for b = 0, 5 do
  ms:addData{b % 3, b % 2, 7}
  if b == 3 then q:crash(point) end
  local ok, e = pcall(q.processAllAvailable, q)
  if not ok or q.exception ~= nil then
    crashed = true
    print("crashed: " .. tostring(q.exception or e):gsub("\n.*", ""))
    q = q:restart()
    q:processAllAvailable()
  end
end
local rows = {}
for _, r in ipairs(spark.table("counts"):collect()) do
  rows[#rows + 1] = string.format("%s=%s", tostring(r[1]), tostring(r[2]))
end
table.sort(rows)
print("crashed " .. tostring(crashed))
print("rows " .. table.concat(rows, " "))
print("batches " .. #q:checkpoint().batches)
q:stop()
local f = io.open(temp .. "/metadata")
print("left " .. tostring(f ~= nil and ckloc == nil))
if f then f:close() end
