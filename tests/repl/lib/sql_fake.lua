-- A stand-in for spark.sql, so the tests of the SQL mode of the prompt
-- (repl/sqlmode.c: reading statements, batch and live results, errors,
-- history, completion) test the mode and nothing else, whatever the SQL
-- front end (engine/sql) accepts.  It knows four statement shapes, enough
-- for each path of the mode: SELECT * FROM v (a batch result, or a
-- streaming projection: append mode), SELECT k, count(*) AS n FROM v
-- GROUP BY k (a streaming aggregation: complete mode), ECHO ... (one row:
-- the statement text exactly as the mode passed it), and anything else is
-- Spark's PARSE_SYNTAX_ERROR.  Views are FAKE_VIEWS[name] (streaming or
-- batch) or the session's tables (spark.table).  Only tests load it.
FAKE_VIEWS = FAKE_VIEWS or {}
local function view(name)
  return FAKE_VIEWS[name:lower()] or spark.table(name)
end
rawset(spark, "sql", function(text)
  local t = text:match("^%s*[Ss][Ee][Ll][Ee][Cc][Tt]%s+%*%s+[Ff][Rr][Oo][Mm]%s+([%w_]+)%s*$")
  if t then return view(t) end
  local k, v = text:match("^%s*SELECT%s+([%w_]+),%s*count%(%*%)%s+AS%s+n%s+FROM%s+([%w_]+)%s+GROUP%s+BY%s+[%w_]+%s*$")
  if k then return view(v):groupBy(k):agg(F.count("*"):alias("n")) end
  if text:match("^ECHO") then
    return spark.createDataFrame({{text}}, "stmt STRING")
  end
  error("[PARSE_SYNTAX_ERROR] Syntax error at or near '" .. (text:match("^%s*(%S+)") or "") .. "'.", 0)
end)
