-- The programming guide's windowed-count figures (LESSONS.md 1.3): 10-minute
-- windows sliding every 5 minutes, a trigger every 5 minutes on a manual
-- clock, rows written per trigger.
--   (b) no watermark, complete mode: the 12:15 table (10 rows: the figure
--       omits the [11:55, 12:05) windows).
--   (d) watermark 10 minutes, update mode; (e) the same in append mode.
-- With allowMultiple=false (one watermark, the guide's picture) the rows are
-- LESSONS.md's "what a faithful engine prints".  With the default (Spark
-- 3.4+: late rows judged by the previous batch's watermark, state evicted
-- by this batch's) the rows differ at 12:25 and 12:30, derived here from
-- Spark 3.5's rule:
--   (d) 12:25: late rows are judged by 12:04, not 12:11, so (12:04, donkey)
--       is NOT dropped: it is counted in [11:55, 12:05) and [12:00, 12:10)
--       (both still in state: the 12:20 batch evicted with 12:04) and
--       written, then evicted by 12:11.
--   (e) 12:25 also writes the donkey windows; 12:30 judges (12:09, cat) by
--       12:11, so it still counts in [12:05, 12:15): cat 2 (which happens to
--       be the figure's number).
local T = require("tap")

local ALLOW = "spark.sql.streaming.statefulOperator.allowMultiple"

local function words(ms, delay)
  local df = ms:toDF()
  if delay then df = df:withWatermark("ts", delay) end
  return df:groupBy(F.window("ts", "10 minutes", "5 minutes"), "word"):count()
    :select(F.date_format("window.start", "HH:mm"), F.date_format("window.end", "HH:mm"),
            "word", "count")
end

-- Feed arrivals per trigger: arrivals[i] is added, then the clock moves
-- 5 minutes to the next trigger; returns the rows written at each trigger.
local function run(df_of, mode, arrivals, extra_ticks)
  spark.clock:manual("2026-01-01 12:00:00")
  local ms = spark.memoryStream("ts TIMESTAMP, word STRING")
  local s = T.stream(df_of(ms), {mode = mode, trigger = {processingTime = "5 minutes"}})
  local out = {}
  for i, batch in ipairs(arrivals) do
    local rows = {}
    for _, a in ipairs(batch) do rows[#rows + 1] = {"2026-01-01 " .. a[1] .. ":00", a[2]} end
    if #rows > 0 then ms:addData(rows) end
    spark.clock:advance("5 minutes")
    out[i] = s:new()
  end
  for i = 1, extra_ticks or 0 do
    spark.clock:advance("5 minutes")
    out[#arrivals + i] = s:new()
  end
  local q = s.q
  q:stop()
  return out, q
end

-- (b) windowed counts, complete mode, no watermark
local b = run(function(ms) return words(ms) end, "complete", {
  {{"12:02", "cat"}, {"12:02", "dog"}, {"12:03", "dog"}, {"12:03", "dog"}},
  {{"12:07", "owl"}, {"12:07", "cat"}},
  {{"12:11", "dog"}, {"12:13", "owl"}}})
T.is(b[1], T.sorted{{"11:55", "12:05", "cat", 1}, {"11:55", "12:05", "dog", 3},
                    {"12:00", "12:10", "cat", 1}, {"12:00", "12:10", "dog", 3}},
  "(b) 12:05: [12:00, 12:10) cat 1, dog 3 and the omitted [11:55, 12:05)")
T.is(b[3], T.sorted{{"11:55", "12:05", "cat", 1}, {"11:55", "12:05", "dog", 3},
                    {"12:00", "12:10", "cat", 2}, {"12:00", "12:10", "dog", 3}, {"12:00", "12:10", "owl", 1},
                    {"12:05", "12:15", "cat", 1}, {"12:05", "12:15", "owl", 2}, {"12:05", "12:15", "dog", 1},
                    {"12:10", "12:20", "dog", 1}, {"12:10", "12:20", "owl", 1}},
  "(b) 12:15: the 8 rows of the figure plus the 2 of [11:55, 12:05)")

-- (d) and (e): arrivals by trigger
local d_arrivals = {
  {},                                                          -- 12:05
  {{"12:07", "dog"}, {"12:08", "owl"}},                        -- 12:10
  {{"12:14", "dog"}, {"12:09", "cat"}},                        -- 12:15
  {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}}, -- 12:20
  {{"12:04", "donkey"}, {"12:17", "owl"}},                     -- 12:25
}
local e_arrivals = {
  {}, d_arrivals[2], d_arrivals[3], d_arrivals[4],
  {{"12:04", "donkey"}, {"12:17", "owl"}, {"12:26", "owl"}},   -- 12:25
  {{"12:09", "cat"}},                                          -- 12:30
}

local d_common = {
  {},
  T.sorted{{"12:00", "12:10", "dog", 1}, {"12:00", "12:10", "owl", 1},
           {"12:05", "12:15", "dog", 1}, {"12:05", "12:15", "owl", 1}},
  T.sorted{{"12:00", "12:10", "cat", 1}, {"12:05", "12:15", "cat", 1},
           {"12:05", "12:15", "dog", 2}, {"12:10", "12:20", "dog", 1}},
  T.sorted{{"12:00", "12:10", "dog", 2}, {"12:05", "12:15", "dog", 3}, {"12:05", "12:15", "owl", 2},
           {"12:10", "12:20", "cat", 1}, {"12:10", "12:20", "owl", 1},
           {"12:15", "12:25", "cat", 1}, {"12:15", "12:25", "owl", 1}, {"12:20", "12:30", "owl", 1}},
}
local trig = {"12:05", "12:10", "12:15", "12:20", "12:25", "12:30", "12:35"}

T.each_conf(ALLOW, {"false", "true"}, function(allow)
  local one = allow == "false"
  local tag = one and "one watermark: " or "two watermarks (default): "

  -- (d) update mode
  local d, q = run(function(ms) return words(ms, "10 minutes") end, "update", d_arrivals)
  for i = 1, 4 do
    T.is(d[i], d_common[i], tag .. "(d) update, rows written at " .. trig[i])
  end
  if one then
    T.is(d[5], T.sorted{{"12:10", "12:20", "owl", 2}, {"12:15", "12:25", "owl", 2}},
      tag .. "(d) update at 12:25 (watermark 12:11): donkey dropped, owl 2 twice")
  else
    T.is(d[5], T.sorted{{"11:55", "12:05", "donkey", 1}, {"12:00", "12:10", "donkey", 1},
                        {"12:10", "12:20", "owl", 2}, {"12:15", "12:25", "owl", 2}},
      tag .. "(d) update at 12:25: late rows judged by 12:04, so the donkey counts")
  end
  local p = q.lastProgress
  T.is(p.eventTime.watermark, "2026-01-01T12:11:00.000Z", tag .. "(d) the 12:25 batch's watermark is 12:11")
  T.is(p.stateOperators[1].numRowsDroppedByWatermark, one and 2 or 0,
    tag .. "(d) numRowsDroppedByWatermark at 12:25 (donkey's two windows are the late groups)")
  T.is(#q:lateRows(), one and 1 or 0, tag .. "(d) lateRows: " .. (one and "the donkey" or "none"))

  -- (e) append mode
  local e = run(function(ms) return words(ms, "10 minutes") end, "append", e_arrivals)
  for i = 1, 4 do
    T.is(e[i], {}, tag .. "(e) append writes nothing at " .. trig[i])
  end
  if one then
    T.is(e[5], T.sorted{{"12:00", "12:10", "cat", 1}, {"12:00", "12:10", "dog", 2}, {"12:00", "12:10", "owl", 1}},
      tag .. "(e) append at 12:25: [12:00, 12:10) cat 1, dog 2, owl 1")
    T.is(e[6], T.sorted{{"12:05", "12:15", "cat", 1}, {"12:05", "12:15", "dog", 3}, {"12:05", "12:15", "owl", 2}},
      tag .. "(e) append at 12:30 (watermark 12:16): (12:09, cat) dropped; cat 1, dog 3, owl 2")
  else
    T.is(e[5], T.sorted{{"11:55", "12:05", "donkey", 1}, {"12:00", "12:10", "cat", 1}, {"12:00", "12:10", "dog", 2},
                        {"12:00", "12:10", "donkey", 1}, {"12:00", "12:10", "owl", 1}},
      tag .. "(e) append at 12:25: the donkey windows are written too")
    T.is(e[6], T.sorted{{"12:05", "12:15", "cat", 2}, {"12:05", "12:15", "dog", 3}, {"12:05", "12:15", "owl", 2}},
      tag .. "(e) append at 12:30: (12:09, cat) judged by 12:11 still counts in [12:05, 12:15)")
  end

  -- L6 follow-up: no input after 12:20; the 12:25 trigger runs a no-data
  -- batch that writes [12:00, 12:10)
  local f, fq = run(function(ms) return words(ms, "10 minutes") end, "append",
                    {d_arrivals[1], d_arrivals[2], d_arrivals[3], d_arrivals[4]}, 1)
  T.is(f[5], T.sorted{{"12:00", "12:10", "cat", 1}, {"12:00", "12:10", "dog", 2}, {"12:00", "12:10", "owl", 1}},
    tag .. "no input after 12:20: the 12:25 no-data batch writes [12:00, 12:10)")
  T.is(fq.lastProgress.numInputRows, 0, tag .. "that batch read no rows")
  T.is(fq.lastProgress.timestamp, "2026-01-01T12:25:00.000Z", tag .. "and ran at the 12:25 trigger")
end)

T.done()
