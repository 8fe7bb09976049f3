-- Lesson 1: a stream is a table that keeps growing (LESSONS.md L1, the
-- programming guide's quick example, figure 1.3(a)).
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(1, "A stream is a table that keeps growing")

say [[
Spark's model of a stream: the input is a table that gains rows at every
trigger, and your query is written once, as if over a static table.  Spark
runs it again on each micro-batch and keeps the result table up to date.

We use a manual clock so every run is the same, and a MemoryStream: a
stream you feed by hand with addData, one offset per call.]]

code [[
spark.clock:manual("2026-01-01 12:00:00")
lines = spark.memoryStream("value STRING")
words = lines:toDF():select(F.explode(F.split("value", " ")):alias("word"))
counts = words:groupBy("word"):count()
print(counts.isStreaming, counts.schema)
]]
pause()

say [[
Nothing has run yet: `counts` is a plan.  writeStream starts a query.  In
complete mode the sink gets the whole result table after every trigger.
The memory sink keeps it as a table called "wordcounts".]]

code [[
q = counts.writeStream:outputMode("complete"):format("memory")
  :queryName("wordcounts"):start()
lines:addData{"cat dog", "dog dog"}           -- t=1
q:processAllAvailable()
spark.table("wordcounts"):orderBy("word"):show()
]]
expect("t=1 result table", L.table("wordcounts"), {{"cat", 1}, {"dog", 3}})
pause()

say [[
t=2: one more line arrives.  The input table now has 3 rows; the result
table is recomputed from the state Spark kept (the counts), not from the
whole input again.]]

code [[
lines:addData{"owl cat"}                      -- t=2
q:processAllAvailable()
spark.table("wordcounts"):orderBy("word"):show()
]]
expect("t=2 result table", L.table("wordcounts"), {{"cat", 2}, {"dog", 3}, {"owl", 1}})
pause()

code [[
lines:addData{"dog", "owl"}                   -- t=3
q:processAllAvailable()
spark.table("wordcounts"):orderBy("word"):show()
print("batches run:", q.lastProgress.batchId + 1, "rows in the last one:", q.lastProgress.numInputRows)
]]
expect("t=3 result table", L.table("wordcounts"), {{"cat", 2}, {"dog", 4}, {"owl", 2}})
expect("t=3 was batch 2 and read 2 lines", {q.lastProgress.batchId, q.lastProgress.numInputRows}, {2, 2})
pause()

say [[
The output mode decides what the sink gets at each trigger:
  complete  the whole result table, every time
  update    only the rows that changed in this trigger
  append    only rows that are final and will never change again]]

exercise([[
Replay the same three triggers into a query in update mode.  What does it
write at t=3?  And what happens if you ask for append mode on this query?]], function()
  code [[
q:stop()
lines2 = spark.memoryStream("value STRING")
counts2 = lines2:toDF():select(F.explode(F.split("value", " ")):alias("word"))
  :groupBy("word"):count()
updates = {}
q2 = counts2.writeStream:outputMode("update"):foreachBatch(function(df, id)
  local t = {}
  for _, r in ipairs(df:orderBy("word"):collect()) do t[#t + 1] = r.word .. " " .. r.count end
  updates[id + 1] = table.concat(t, ", ")
  print("trigger t=" .. (id + 1) .. " writes: " .. updates[id + 1])
end):start()
for _, arrivals in ipairs{{"cat dog", "dog dog"}, {"owl cat"}, {"dog", "owl"}} do
  lines2:addData(arrivals)
  q2:processAllAvailable()
end
]]
  expect("update mode writes at t=1, t=2, t=3", updates,
    {"cat 1, dog 3", "cat 2, owl 1", "dog 4, owl 2"})
  say [[
Update mode wrote only the changed rows: at t=3, `dog 4` and `owl 2`.
Append mode would have to write a count once and never change it, but a
word's count can always grow.  Without a watermark (lesson 5) Spark cannot
know a row is final, so it refuses the query before it starts:]]
  code([[
q2:stop()
q3 = counts.writeStream:outputMode("append"):format("memory"):queryName("app"):start()
]], {fails = "Append output mode not supported when there are streaming aggregations"})
end)

say [[
What to remember: one query, written as if the table were static; the
output mode only decides which rows of the result table leave at each
trigger.  Next: event time, the time written in the data.]]
