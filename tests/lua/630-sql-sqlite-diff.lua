-- A differential test of spark.sql (issue 19): a few hundred random batch
-- SELECTs (filters, projections, CASE, group-bys with HAVING, joins of
-- every kind, LEFT SEMI/ANTI (EXISTS in SQLite), DISTINCT, UNION [ALL],
-- INTERSECT, EXCEPT, three of them (INTERSECT binds tighter in Spark; the
-- SQLite text groups it, as SQLite goes left to right; SQLite has no
-- INTERSECT ALL / EXCEPT ALL: tests/lua/016 checks those),
-- subqueries, WITH, ORDER BY + LIMIT)
-- over small random tables with NULLs run through spark.sql and through
-- sqlite3, and the results must agree.  Only constructs on which Spark SQL
-- and SQLite mean the same are generated (no '/', which is integer
-- division in SQLite; no boolean outputs, which SQLite prints as 0/1).
-- Rows compare as a multiset unless the query orders them totally;
-- doubles with a relative tolerance of 1e-9.  Fixed seed: a failure names
-- its query and reproduces.
local T = require("tap")

if not os.execute("command -v sqlite3 >/dev/null 2>&1") then
  print("1..0 # SKIP sqlite3 not installed")
  os.exit(0)
end

local seed = 630
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return (seed // 65536) % n
end
local function pick(t) return t[rand(#t) + 1] end

local dir = T.tempdir()
local groups = {"p", "q", "r", "s"}

-- a(id, g, x, y) and b(id, g, z): ids unique, the rest small with NULLs
local load = {"CREATE TABLE a (id INTEGER, g TEXT, x INTEGER, y INTEGER);",
              "CREATE TABLE b (id INTEGER, g TEXT, z INTEGER);"}
local function maybe(v) if rand(7) == 0 then return nil end return v end
local function sqlv(v) if v == nil then return "NULL" end
  if type(v) == "string" then return "'" .. v .. "'" end return tostring(v) end
local arows, brows = {}, {}
for id = 1, 24 do
  local r = {id, maybe(pick(groups)), maybe(rand(11) - 3), maybe(rand(7))}
  arows[#arows + 1] = r
  load[#load + 1] = string.format("INSERT INTO a VALUES (%s, %s, %s, %s);", sqlv(r[1]), sqlv(r[2]), sqlv(r[3]), sqlv(r[4]))
end
for id = 1, 18 do
  local r = {id * 2 - rand(2), maybe(pick(groups)), maybe(rand(9) - 2)}
  r[1] = id + rand(3) * 20 -- unique: id in 1..18 plus 0, 20 or 40
  brows[#brows + 1] = r
  load[#load + 1] = string.format("INSERT INTO b VALUES (%s, %s, %s);", sqlv(r[1]), sqlv(r[2]), sqlv(r[3]))
end
spark.createDataFrame(arows, "id int, g string, x int, y int"):createOrReplaceTempView("a")
spark.createDataFrame(brows, "id int, g string, z int"):createOrReplaceTempView("b")

-- ---- the query generator ----
local function const() return tostring(rand(9) - 3) end
local function atom(t)
  local forms = {
    function() return t .. "x > " .. const() end,
    function() return t .. "y <= " .. const() end,
    function() return t .. "g = '" .. pick(groups) .. "'" end,
    function() return t .. "x IS NULL" end,
    function() return t .. "g IS NOT NULL" end,
    function() return t .. "x + " .. t .. "y > " .. const() end,
    function() local lo = rand(5) - 2 return t .. "x BETWEEN " .. lo .. " AND " .. (lo + rand(4)) end,
    function() return t .. "g IN ('" .. pick(groups) .. "', '" .. pick(groups) .. "')" end,
    function() return t .. "x * 2 <> " .. t .. "y" end,
    function() return "coalesce(" .. t .. "x, 0) >= " .. const() end,
  }
  return pick(forms)()
end
local function pred(t, depth)
  depth = depth or 0
  local k = rand(depth > 1 and 2 or 5)
  if k <= 1 then return atom(t) end
  if k == 2 then return "(" .. pred(t, depth + 1) .. " AND " .. pred(t, depth + 1) .. ")" end
  if k == 3 then return "(" .. pred(t, depth + 1) .. " OR " .. pred(t, depth + 1) .. ")" end
  return "NOT (" .. pred(t, depth + 1) .. ")"
end
local function aexpr()
  return pick{"x", "y", "x + y", "x - y", "x * y", "coalesce(x, y)", "abs(x)", "x % 3", "-x",
              "CASE WHEN x > y THEN 1 WHEN x = y THEN 0 ELSE -1 END"}
end
local function agg(arg)
  return pick{"count(*)", "count(" .. arg .. ")", "sum(" .. arg .. ")", "min(" .. arg .. ")",
              "max(" .. arg .. ")", "avg(" .. arg .. ")", "count(DISTINCT " .. arg .. ")"}
end
local function join_kind() return pick{"JOIN", "INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN", "LEFT JOIN"} end

local templates = {
  function() -- projection and filter
    return string.format("SELECT id, %s AS e1, %s AS e2 FROM a WHERE %s", aexpr(), aexpr(), pred(""))
  end,
  function() -- group by a column, HAVING
    local h = rand(2) == 0 and (" HAVING count(*) > " .. rand(4)) or ""
    return string.format("SELECT g, %s AS m1, %s AS m2 FROM a WHERE %s GROUP BY g%s", agg(aexpr()), agg("y"), pred(""), h)
  end,
  function() -- group by an expression, by ordinal
    return string.format("SELECT x %% 3 AS k, %s AS m FROM a GROUP BY 1", agg(aexpr()))
  end,
  function() -- a global aggregate
    return string.format("SELECT %s AS m1, %s AS m2, count(*) AS n FROM a WHERE %s", agg(aexpr()), agg("x"), pred(""))
  end,
  function() -- joins
    local on = pick{"a.g = b.g", "a.id = b.id", "a.id = b.id AND a.x < b.z", "a.g = b.g AND a.y = b.z"}
    return string.format("SELECT a.id AS aid, b.id AS bid, a.x, b.z FROM a %s b ON %s WHERE %s",
      join_kind(), on, pick{"a.id > 3", "b.z IS NOT NULL", "a.x IS NULL OR b.z > 1", "a.id IS NULL OR a.id < 20", "1 = 1"})
  end,
  function() -- join then group by
    return string.format("SELECT a.g, count(*) AS n, %s AS s FROM a %s b ON a.g = b.g GROUP BY a.g",
      pick{"sum(b.z)", "max(a.x)", "min(b.z)", "count(b.id)"}, pick{"JOIN", "LEFT JOIN"})
  end,
  function() -- join USING
    return string.format("SELECT g, a.id AS aid, b.id AS bid FROM a JOIN b USING (g) WHERE %s", pred("a."))
  end,
  function() -- order by a total order, limit
    return string.format("SELECT id, x, y FROM a WHERE %s ORDER BY %s, id LIMIT %d",
      pred(""), pick{"x", "x DESC", "y DESC", "x + y", "g DESC"}, rand(8) + 1), true
  end,
  function() -- distinct
    return string.format("SELECT DISTINCT g, %s AS e FROM a WHERE %s", pick{"x % 2", "y", "coalesce(x, -9)"}, pred(""))
  end,
  function() -- union
    return string.format("SELECT g, x AS v FROM a WHERE %s %s SELECT g, z FROM b WHERE %s",
      pred(""), pick{"UNION", "UNION ALL"}, pick{"z > 0", "g = 'p'", "z IS NULL", "id < 10"})
  end,
  function() -- INTERSECT / EXCEPT (NULL equals NULL in both)
    return string.format("SELECT g, x %% 2 AS e FROM a WHERE %s %s SELECT g, z %% 2 FROM b WHERE %s",
      pred(""), pick{"INTERSECT", "EXCEPT"}, pick{"z > 0", "g = 'p'", "z IS NULL", "id < 10", "1 = 1"})
  end,
  function() -- three set operations: INTERSECT binds tighter (Spark), SQLite goes left to right
    local p2 = pick{"z > 0", "g = 'p'", "z IS NULL", "id < 10", "1 = 1"}
    local op = pick{"UNION", "UNION ALL", "EXCEPT", "INTERSECT"}
    local l = string.format("SELECT g, x %% 2 AS e FROM a WHERE %s", pred(""))
    local m = string.format("SELECT g, z %% 2 FROM b WHERE %s", p2)
    local r = string.format("SELECT g, y %% 2 FROM a WHERE %s", pred(""))
    if rand(2) == 0 then -- l op (m INTERSECT r)
      return string.format("%s %s %s INTERSECT %s", l, op, m, r), false,
        string.format("%s %s SELECT * FROM (%s INTERSECT %s)", l, op, m, r)
    end
    return string.format("%s INTERSECT %s %s %s", l, m, op, r) -- (l INTERSECT m) op r in both
  end,
  function() -- a subquery in FROM
    return string.format("SELECT t.g, t.n FROM (SELECT g, count(*) AS n, %s AS m FROM a GROUP BY g) t WHERE t.n > %d",
      agg("x"), rand(5))
  end,
  function() -- WITH
    return string.format("WITH f AS (SELECT * FROM a WHERE %s) SELECT f.g, count(*) AS n FROM f GROUP BY f.g", pred(""))
  end,
  function() -- LEFT SEMI JOIN (sqlite: EXISTS)
    local c, p = const(), pred("a.")
    return string.format("SELECT a.id, a.g FROM a LEFT SEMI JOIN b ON a.g = b.g AND b.z > %s WHERE %s", c, p),
      false, string.format("SELECT a.id, a.g FROM a WHERE EXISTS (SELECT 1 FROM b WHERE a.g = b.g AND b.z > %s) AND %s",
        c, p)
  end,
  function() -- LEFT ANTI JOIN (sqlite: NOT EXISTS)
    local c = const()
    return string.format("SELECT a.id, a.x FROM a LEFT ANTI JOIN b ON a.id = b.id OR b.z = %s", c), false,
      string.format("SELECT a.id, a.x FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE a.id = b.id OR b.z = %s)", c)
  end,
  function() -- an aggregate subquery joined to a table
    return string.format([[SELECT t.g, t.n, b.z FROM (SELECT g, count(*) AS n, %s AS m FROM a GROUP BY g) t
      %s b ON t.g = b.g]], agg("x"), join_kind())
  end,
  function() -- UNION ALL ordered as a whole, limited
    return string.format("SELECT id, g FROM a WHERE %s UNION ALL SELECT id, g FROM b ORDER BY id DESC, g LIMIT %d",
      pred(""), rand(12) + 1), true
  end,
  function() -- HAVING over an alias, ORDER BY an aggregate, two keys
    return string.format([[SELECT g, x %% 2 AS odd, count(*) AS n, %s AS s FROM a GROUP BY g, x %% 2
      HAVING count(*) >= %d ORDER BY n DESC, g, odd]], agg("y"), rand(3)), true
  end,
  function() -- a CASE key, GROUP BY an ordinal
    return string.format("SELECT CASE WHEN x > %s THEN 'hi' ELSE 'lo' END AS band, %s AS m FROM a GROUP BY 1",
      const(), agg(aexpr()))
  end,
  function() -- CASE over a join
    return string.format([[SELECT a.id AS aid, CASE WHEN b.z IS NULL THEN 'none' WHEN b.z > a.x THEN 'more'
      ELSE 'less' END AS c FROM a LEFT JOIN b ON a.id = b.id WHERE %s]], pred("a."))
  end,
}

local queries = {}
for i = 1, 300 do
  local text, ordered, lite = templates[(i - 1) % #templates + 1]()
  queries[i] = {text = text, ordered = ordered, lite = lite or text}
end

-- ---- sqlite3: all queries in one run, separated by markers ----
local f = assert(io.open(dir .. "/q.sql", "w"))
f:write(".mode list\n.separator |\n.nullvalue NULL\n", table.concat(load, "\n"), "\n")
for i, q in ipairs(queries) do
  f:write(string.format("SELECT '@@%d';\n%s;\n", i, q.lite))
end
f:close()
local theirs, cur = {}, nil
local p = assert(io.popen("sqlite3 :memory: < '" .. dir .. "/q.sql' 2>&1"))
for line in p:lines() do
  local n = line:match("^@@(%d+)$")
  if n then cur = tonumber(n) theirs[cur] = {}
  elseif cur then
    local r = {}
    for c in (line .. "|"):gmatch("([^|]*)|") do r[#r + 1] = c end
    table.insert(theirs[cur], r)
  end
end
p:close()

local function cell(v)
  if v == nil then return "NULL" end
  if math.type(v) == "float" and v == math.floor(v) and math.abs(v) < 1e15 then
    return string.format("%.1f", v)
  end
  return tostring(v)
end
local function same_cell(a, b)
  if a == b then return true end
  local x, y = tonumber(a), tonumber(b)
  if not x or not y then return false end
  return math.abs(x - y) <= 1e-9 * math.max(1, math.abs(x), math.abs(y))
end
local function sort_rows(rows)
  table.sort(rows, function(r, s) return table.concat(r, "|") < table.concat(s, "|") end)
  return rows
end

local failed, nonempty = 0, 0
for i, q in ipairs(queries) do
  local ok, df = pcall(spark.sql, q.text)
  local mine = {}
  if ok then
    local width = #df.columns
    ok, df = pcall(T.rows, df)
    if ok then
      for k, r in ipairs(df) do
        local row = {}
        for j = 1, width do row[j] = cell(r[j]) end -- NULL is nil in r
        mine[k] = row
      end
    end
  end
  local want = theirs[i] or {}
  local agree = ok and #mine == #want
  if agree then
    if not q.ordered then sort_rows(mine) sort_rows(want) end
    for k = 1, #mine do
      for j = 1, math.max(#mine[k], #want[k]) do
        if not same_cell(mine[k][j], want[k][j]) then agree = false end
      end
    end
  end
  if #want > 0 then nonempty = nonempty + 1 end
  if not agree then
    failed = failed + 1
    if failed <= 5 then
      T.diag("query " .. i .. ": " .. q.text)
      if not ok then T.diag("  error: " .. tostring(df)) end
      T.diag(string.format("  streamlab %d rows, sqlite %d rows", #mine, #want))
      for k = 1, math.min(4, math.max(#mine, #want)) do
        T.diag(string.format("  %s   |   %s", mine[k] and table.concat(mine[k], ",") or "-",
          want[k] and table.concat(want[k], ",") or "-"))
      end
    end
  end
end
T.is(#queries, 300, "300 queries generated")
T.is(#templates, 21, "from 21 templates")
T.is(failed, 0, "spark.sql and sqlite3 agree on every query")
T.ok(nonempty > 200, "most queries return rows (" .. nonempty .. ")")

T.done()
