-- W4 of BENCH.md on the user's path: W1 (bench/w1.lua) with a
-- checkpointLocation, so every batch writes its offsets, state delta and
-- commit durably (fsync).  DIR must not exist yet or be empty.
--   streamlab run bench/w4.lua DIR [KEYS=1000] [EVENTS=10000000] [NAME]
local here = arg[0]:match("^(.*)/") or "."
local dir = assert(arg[1], "usage: w4.lua DIR [KEYS] [EVENTS] [NAME]")
arg = { [0] = here .. "/w1.lua", arg[2] or "1000", "-", arg[3] or "10000000", arg[4] or "W4", dir }
dofile(here .. "/w1.lua")
