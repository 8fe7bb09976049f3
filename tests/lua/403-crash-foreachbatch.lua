-- Crash and restart in process at every crash point with foreachBatch
-- (RELIABILITY.md 3.2; Spark's at-least-once foreachBatch with a batch id
-- to make writes idempotent).  The function is called again for the
-- re-run batch with the same batch id and the same rows; a writer that
-- keeps the last rows per batch id ends with the uncrashed run's output.
local T = require("tap")
local C = require("crashcase")

local ref = C.run{sink = "foreach"}
local ref_by_id = {}
for _, c in ipairs(ref.calls) do ref_by_id[c.id] = c.rows end
T.ok(#ref.rows >= 6, "uncrashed run: foreachBatch saw rows (" .. #ref.rows .. ")")
local ids = {}
for _, c in ipairs(ref.calls) do ids[#ids + 1] = c.id end
local want_ids = {}
for i = 0, #ids - 1 do want_ids[#want_ids + 1] = i end
T.is(ids, want_ids, "uncrashed run: one call per batch, ids 0.." .. (#ids - 1))

-- Is the crash point before, at, or after the sink of the batch?
local before_sink = {["after-offsets"] = true, ["mid-state"] = true, ["after-state"] = true}

for _, batch in ipairs{4, 5} do
  for _, point in ipairs(C.POINTS) do
    local tag = point .. "@" .. batch .. ": "
    local got = C.run{sink = "foreach", point = point, batch = batch}
    C.check_common(tag, ref, got, point, batch)
    local first_run, second_run = {}, {}
    for _, c in ipairs(got.calls) do
      if c.run == 1 then first_run[#first_run + 1] = c else second_run[#second_run + 1] = c end
    end
    local seen_first = {}
    for _, c in ipairs(first_run) do seen_first[c.id] = true end
    if point == "after-commit" then
      T.is(second_run[1] and second_run[1].id, batch + 1,
        tag .. "the restarted query's first call is the next batch id")
    else
      T.is(second_run[1] and second_run[1].id, batch,
        tag .. "the restarted query's first call is the re-run batch id " .. batch)
    end
    if before_sink[point] then
      T.ok(not seen_first[batch], tag .. "the crashed run never called the function for batch " .. batch)
    elseif point ~= "mid-sink" then
      T.ok(seen_first[batch], tag .. "the crashed run had called the function for batch " .. batch)
    end
    local same = true
    for _, c in ipairs(got.calls) do
      if T.repr(c.rows) ~= T.repr(ref_by_id[c.id] or {}) then same = false end
    end
    T.ok(same, tag .. "every call (re-runs too) saw the uncrashed run's rows for its batch id")
  end
end

T.done()
