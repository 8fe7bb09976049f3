-- Lesson 15: SQL over streams (issue 19 item 6): the windowed count of
-- lesson 3, written twice, once with the DataFrame API and once in SQL
-- over a temp view of the same stream; the two queries run side by side
-- on the same arrivals, and the panes, the plans and the sinks agree.
local L = require("lesson")
local say, code, pause, expect, view, exercise =
  L.begin(15, "SQL over streams: the same query, written twice")
L.leave_hint("try :sql, then SELECT window(event_time, '10 minutes'), word, count(*) FROM events GROUP BY 1, 2;")

say [[
Spark has two ways to write a query, and one engine under both.  A
streaming DataFrame can be given a name, createOrReplaceTempView("events"),
and spark.sql reads that name like any table: what it gives back is a
DataFrame, streaming because its view is, whose writeStream works as any
other.  Both ways end in the same logical plan, so they compute the same
thing, batch by batch.  We check it: the windowed word count of lesson 3,
once with groupBy(F.window(...)), once in SQL.]]

code [[
spark.clock:manual("2026-01-01 12:05:00")
events = spark.memoryStream("event_time TIMESTAMP, word STRING")
arrivals = {
  {{"12:07", "dog"}, {"12:08", "owl"}},                                 -- by 12:10
  {{"12:14", "dog"}, {"12:09", "cat"}},                                 -- by 12:15
  {{"12:15", "cat"}, {"12:08", "dog"}, {"12:13", "owl"}, {"12:21", "owl"}}, -- by 12:20
}
function feed(stream, batch)
  local rows = {}
  for _, a in ipairs(batch) do rows[#rows + 1] = {"2026-01-01 " .. a[1] .. ":00", a[2]} end
  stream:addData(rows)
end
stamped = events:toDF():withWatermark("event_time", "10 minutes")
]]
pause()

say [[
The DataFrame API, as in lesson 3 (with a watermark this time):]]
code [[
by_api = stamped:groupBy(F.window("event_time", "10 minutes"), "word"):count()
]]
say [[
And SQL: the stream becomes the view "events"; window() is the same
function in SQL, and GROUP BY 1, 2 groups by the first two columns.]]
code [==[
stamped:createOrReplaceTempView("events")
by_sql = spark.sql([[
  SELECT window(event_time, '10 minutes'), word, count(*) AS count
  FROM events
  GROUP BY 1, 2]])
print(by_api)
print(by_sql)
print("streaming:", by_api.isStreaming, by_sql.isStreaming)
]==]
expect("both are streaming DataFrames", {by_api.isStreaming, by_sql.isStreaming}, {true, true})
expect("with the same columns and types", tostring(by_sql), tostring(by_api))
pause()

say [[
Two queries, one per DataFrame, to two memory sinks, on one 5-minute
trigger.  Each query reads the stream from its start, so both see every
arrival.]]
code [[
function start(df, name)
  return df.writeStream:outputMode("update"):format("memory"):queryName(name)
    :trigger{processingTime = "5 minutes"}:start()
end
q_api = start(by_api, "counts_api")
q_sql = start(by_sql, "counts_sql")
for _, batch in ipairs(arrivals) do
  feed(events, batch)
  spark.clock:advance("5 minutes")
end
]]
L.focus(q_api)
view("main")
say [[
The panes show counts_api: the windows pane holds its state rows, the
checkpoint pane its three batches.]]
pause()
L.focus(q_sql)
say [[
Now the panes show counts_sql (the strip marks it): the same windows, the
same counts, the same batches.]]
pause()

exercise("Do the two queries agree, and on what plan?", function()
  code [[
q_api:explain()
q_sql:explain()
spark.sql("SELECT * FROM counts_api ORDER BY window, word, count"):show(20, false)
spark.sql("SELECT * FROM counts_sql ORDER BY window, word, count"):show(20, false)
]]
  local api_rows, sql_rows = L.table("counts_api"), L.table("counts_sql")
  expect("every row each sink got, in every batch, the same", L.same(api_rows, sql_rows), true)
  expect("the rows written (update mode: a row per change)", #sql_rows, 8)
  expect("the state both keep, per operator",
    q_sql.lastProgress.stateOperators[1].numRowsTotal,
    q_api.lastProgress.stateOperators[1].numRowsTotal)
  say [[
One plan, printed twice: HashAggregate over window(event_time, '10
minutes') and word, over the watermark, over the stream.  SQL is another
way to write it, not another engine.  And the memory sink's table is a
table like any other, so SQL reads it too (the last statement).

At the prompt, :sql switches to SQL: a statement ends with ';', a batch
result is a table, and a streaming SELECT starts its own query to a
memory sink whose table stays live above the progress line (Ctrl-C
stops it).  :lua comes back.]]
end)
code [[q_api:stop() q_sql:stop()]]
L.focus()
