-- statestore: what the state data source tests (500-504) share.
local M = {}

-- spark.read:format("statestore") with each option of opts set.
function M.reader(opts)
  local r = spark.read:format("statestore")
  for k, v in pairs(opts or {}) do r = r:option(k, v) end
  return r
end

return M
