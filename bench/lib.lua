-- bench/lib.lua: what the workload scripts of `make bench` share (loaded
-- with dofile by bench/wN.lua; benchmarks only, never by a test).
--   B.wall()        wall seconds, sub-microsecond (date +%s.%N: one fork,
--                   so only at the start and end of the timed part)
--   B.tick()        wall seconds at 10 ms (/proc/uptime, no fork): per batch
--   B.mono()        monotonic seconds, nanosecond (the kernel's "now at"
--                   line of /proc/timer_list: no fork, 20-50 us a read; it
--                   needs root: B.wall() where it cannot be read)
--   B.rss_mib()     the process's peak RSS (VmHWM)
--   B.w1_agg(df, ts) W1's aggregation: withWatermark(ts, 5 s) ->
--                   groupBy(window(ts, 60 s [, slide]), product_id)
--                   .agg(count(*), sum(amount))
--   B.timed(q, n, step) runs step(i) n times, returns the figures
--   B.report(name, fig) prints the one line bench/run.pl reads:
--     result NAME events=N cpu_s=S wall_s=S k=v ...
-- CPU is os.clock(): the process's CPU time, every thread included.
local B = {}

function B.wall()
  local p = assert(io.popen("date +%s.%N"))
  local s = p:read("l")
  p:close()
  return assert(tonumber(s), "date +%s.%N")
end

-- /proc/timer_list: "Timer List Version...", "HRTIMER_MAX_CLOCK_BASES...",
-- then "now at N nsecs" (ktime_get, CLOCK_MONOTONIC)
local function timer_list()
  local f = io.open("/proc/timer_list")
  if not f then return nil end
  local ns
  for _ = 1, 4 do
    local l = f:read("l")
    ns = l and l:match("^now at (%d+) nsecs")
    if ns or not l then break end
  end
  f:close()
  return ns and tonumber(ns) / 1e9
end

function B.mono()
  return timer_list() or B.wall()
end

function B.tick()
  local f = assert(io.open("/proc/uptime"))
  local s = f:read("n")
  f:close()
  return s
end

function B.rss_mib()
  local f = io.open("/proc/self/status")
  if not f then return 0 end
  local t = f:read("a")
  f:close()
  return (tonumber(t:match("VmHWM:%s*(%d+)")) or 0) / 1024
end

function B.w1_agg(df, ts, slide)
  local w = slide and F.window(ts, "60 seconds", slide) or F.window(ts, "60 seconds")
  return df:withWatermark(ts, "5 seconds")
    :groupBy(w, "product_id")
    :agg(F.count("*"):alias("n"), F.sum("amount"):alias("total"))
end

local function pct(xs, p)
  if #xs == 0 then return 0 end
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  return s[math.max(1, math.ceil(#s * p))]
end

-- step(i) runs batch i (1..n); returns the figures of the timed part:
-- cpu_s, wall_s, per-batch CPU p50/p99 and the slowest batch's wall time
-- (10 ms resolution).
function B.timed(n, step)
  local cpus, walls = {}, {}
  local c0, w0 = os.clock(), B.wall()
  for i = 1, n do
    local c, t = os.clock(), B.tick()
    step(i)
    cpus[i] = os.clock() - c
    walls[i] = B.tick() - t
  end
  local fig = { cpu_s = os.clock() - c0, wall_s = B.wall() - w0 }
  fig.batch_cpu_p50_ms = pct(cpus, 0.5) * 1e3
  fig.batch_cpu_p99_ms = pct(cpus, 0.99) * 1e3
  fig.batch_wall_max_ms = pct(walls, 1) * 1e3
  return fig
end

-- The state figures of the query's recent batches: peak state rows and
-- the bytes per row at that peak; rows the sink took.
function B.state(q, fig)
  local peak, bytes, out = 0, 0, 0
  for _, p in ipairs(q.recentProgress) do
    local rows, mem = 0, 0
    for _, s in ipairs(p.stateOperators or {}) do
      rows = rows + (s.numRowsTotal or 0)
      mem = mem + (s.memoryUsedBytes or 0)
    end
    if rows > peak then peak, bytes = rows, mem end
    out = out + ((p.sink and p.sink.numOutputRows) or 0)
  end
  fig.peak_groups = peak
  fig.state_b_per_group = peak > 0 and bytes / peak or 0
  fig.emitted_recent = out
end

function B.report(name, fig)
  local keys = {}
  for k in pairs(fig) do
    if k ~= "events" and k ~= "cpu_s" and k ~= "wall_s" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  local parts = { string.format("result %s events=%d cpu_s=%.6f wall_s=%.6f",
    name, fig.events, fig.cpu_s, fig.wall_s) }
  for _, k in ipairs(keys) do
    local v = fig[k]
    parts[#parts + 1] = string.format(math.type(v) == "integer" and "%s=%d" or "%s=%.3f", k, v)
  end
  parts[#parts + 1] = string.format("rss_mib=%.1f", B.rss_mib())
  print(table.concat(parts, " "))
end

return B
