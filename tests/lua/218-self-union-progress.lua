-- One source read twice (a self-union, a self-join) is one source in
-- progress with the rows of both scans (issue 17 item 5).  Expected:
-- StreamingQuerySuite "input row calculation with same V2 source used
-- twice in self-union" and "... in self-join".
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

local input = spark.memoryStream("value INT")
local s = T.stream(input:toDF():union(input:toDF()))
s:add(input, {{1}, {2}, {3}})
T.is(s:new(), {{1}, {1}, {2}, {2}, {3}, {3}}, "CheckAnswer(1, 1, 2, 2, 3, 3)")
local p = T.progress_with_data(s.q)
T.is({p.numInputRows, #p.sources, p.sources[1].numInputRows}, {6, 1, 6},
  "self-union: numInputRows 6, one source, of 6 rows")
s:add(input, {{4}})
p = T.progress_with_data(s.q)
T.is({p.numInputRows, p.sources[1].startOffset, p.sources[1].endOffset}, {2, 0, 1},
  "the next batch: 2 rows, offsets 0 -> 1 of the one source")
s.q:stop()

input = spark.memoryStream("value INT")
local df = input:toDF()
s = T.stream(df:join(df, {"value"}))
s:add(input, {{1}, {2}, {3}})
T.is(s:new(), {{1}, {2}, {3}}, "self-join: CheckAnswer(1, 2, 3)")
p = T.progress_with_data(s.q)
T.is({p.numInputRows, #p.sources, p.sources[1].numInputRows}, {6, 1, 6},
  "self-join: numInputRows 6, one source, of 6 rows")
s.q:stop()

-- two different memory streams stay two sources
local a, b = spark.memoryStream("value INT"), spark.memoryStream("value INT")
s = T.stream(a:toDF():union(b:toDF()))
a:addData{1}
b:addData{2, 3}
s.q:processAllAvailable()
p = T.progress_with_data(s.q)
T.is({p.numInputRows, #p.sources, p.sources[1].numInputRows, p.sources[2].numInputRows}, {3, 2, 1, 2},
  "two streams: two sources")
s.q:stop()

T.done()
