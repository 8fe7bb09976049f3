-- The same queries in streamlab and in SQLite (the sqlite3 CLI) over one
-- generated CSV must agree: group-by, aggregates, filters, NULL handling,
-- ordering.  Rows are sorted by their key columns before comparing;
-- doubles compare with a relative tolerance of 1e-9.
local T = require("tap")

if not os.execute("command -v sqlite3 >/dev/null 2>&1") then
  print("1..0 # SKIP sqlite3 not installed")
  os.exit(0)
end

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "'"))

-- a fixed-seed generator of our own, so data never depends on the libc
local seed = 20260101
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return (seed // 65536) % n
end

local products = {"apple", "pear", "fig", "kiwi", "plum", "lime", "date", "yuzu", "nut", "bean", "corn", "rice"}
local N = 5000
local csv = assert(io.open(dir .. "/sales.csv", "w"))
local sql = assert(io.open(dir .. "/load.sql", "w"))
csv:write("id,product,amount,price\n")
sql:write("CREATE TABLE t (id INTEGER, product TEXT, amount INTEGER, price REAL);\nBEGIN;\n")
for id = 1, N do
  -- (not `c and nil or x`: that is always x in Lua)
  local product, amount, price
  if rand(40) ~= 0 then product = products[rand(#products) + 1] end
  if rand(25) ~= 0 then amount = rand(200) - 20 end
  if rand(30) ~= 0 then price = rand(100000) / 100 + 0.01 end
  csv:write(string.format("%d,%s,%s,%s\n", id, product or "", amount or "",
    price and string.format("%.2f", price) or ""))
  sql:write(string.format("INSERT INTO t VALUES (%d, %s, %s, %s);\n", id,
    product and ("'" .. product .. "'") or "NULL", amount or "NULL",
    price and string.format("%.2f", price) or "NULL"))
end
sql:write("COMMIT;\n")
csv:close()
sql:close()

local sales = spark.read:option("header", true)
  :schema("id INT, product STRING, amount INT, price DOUBLE"):csv(dir .. "/sales.csv")
T.is(sales:count(), N, "all rows read")

-- run one query in sqlite3; returns rows of strings ("" for NULL)
local function sqlite(query)
  local qf = assert(io.open(dir .. "/q.sql", "w"))
  qf:write(".read " .. dir .. "/load.sql\n.mode csv\n.nullvalue ''\n" .. query .. ";\n")
  qf:close()
  local p = assert(io.popen("sqlite3 :memory: < '" .. dir .. "/q.sql'"))
  local rows = {}
  for line in p:lines() do
    line = line:gsub("\r$", "") -- .mode csv ends lines with CRLF
    local r = {}
    for cell in (line .. ","):gmatch('("?[^",]*"?),') do r[#r + 1] = cell:gsub('^"(.*)"$', "%1") end
    rows[#rows + 1] = r
  end
  p:close()
  return rows
end

local function cell(v)
  if v == nil then return "" end
  return tostring(v)
end

local function close_enough(a, b)
  if a == b then return true end
  local x, y = tonumber(a), tonumber(b)
  if not x or not y then return false end
  return math.abs(x - y) <= 1e-9 * math.max(1, math.abs(x), math.abs(y))
end

-- compare a DataFrame with a SQLite query; nkeys leading columns are keys
local function agree(df, query, nkeys, name)
  local mine = {}
  for i, r in ipairs(T.rows(df)) do
    local row = {}
    for j = 1, #df.columns do row[j] = cell(r[j]) end
    mine[i] = row
  end
  local theirs = sqlite(query)
  local function key(r)
    local k = {}
    for j = 1, nkeys do k[j] = r[j] end
    return table.concat(k, "\1")
  end
  table.sort(mine, function(a, b) return key(a) < key(b) end)
  table.sort(theirs, function(a, b) return key(a) < key(b) end)
  if #mine ~= #theirs then
    T.ok(false, name)
    T.diag(string.format("streamlab gave %d rows, sqlite %d", #mine, #theirs))
    return
  end
  for i = 1, #mine do
    for j = 1, math.max(#mine[i], #theirs[i]) do
      if not close_enough(mine[i][j], theirs[i][j] or "") then
        T.ok(false, name)
        T.diag(string.format("row %d column %d: streamlab %q, sqlite %q", i, j, mine[i][j] or "", theirs[i][j] or ""))
        return
      end
    end
  end
  T.ok(#mine > 0, name)
end

agree(sales:groupBy("product"):agg(F.count("*"), F.sum("amount"), F.min("price"), F.max("price"), F.avg("price")),
  "SELECT product, count(*), sum(amount), min(price), max(price), avg(price) FROM t GROUP BY product",
  1, "group by with count/sum/min/max/avg, NULL key group included")

agree(sales:filter("amount > 50"):agg(F.count("*"), F.count("amount"), F.sum(F.col("amount") * F.col("price"))),
  "SELECT count(*), count(amount), sum(amount * price) FROM t WHERE amount > 50",
  0, "filter then global aggregates over an INT * DOUBLE expression")

agree(sales:where(F.col("price"):lt(100)):groupBy("product"):agg(F.sum("amount"):alias("s"))
    :filter(F.col("s"):gt(2000)),
  "SELECT product, sum(amount) AS s FROM t WHERE price < 100 GROUP BY product HAVING sum(amount) > 2000",
  1, "where, group by, having")

agree(sales:groupBy(F.expr("id % 7")):agg(F.countDistinct("product"), F.avg("amount")),
  "SELECT id % 7, count(DISTINCT product), avg(amount) FROM t GROUP BY id % 7",
  1, "group by an expression with count(DISTINCT) and avg of INT")

agree(sales:filter(F.col("product"):isNull():_or(F.col("amount"):isNull())):select("id", "product", "amount"),
  "SELECT id, product, amount FROM t WHERE product IS NULL OR amount IS NULL",
  1, "NULL tests")

agree(sales:filter("price IS NOT NULL"):orderBy(F.col("price"):desc(), "id"):limit(10):select("id", "price"),
  "SELECT id, price FROM t WHERE price IS NOT NULL ORDER BY price DESC, id LIMIT 10",
  1, "order by and limit")

agree(sales:groupBy("product", F.col("amount"):ge(100):alias("big")):count()
    :withColumn("big", F.col("big"):cast("int")),
  "SELECT product, amount >= 100, count(*) FROM t GROUP BY product, amount >= 100",
  2, "two grouping keys, one a boolean expression")

-- an order-sensitive check: the sorted output must match without re-sorting
local top = T.rows(sales:groupBy("product"):agg(F.sum("amount"):alias("s"))
  :filter("product IS NOT NULL"):orderBy(F.col("s"):desc(), "product"))
local ref = sqlite("SELECT product, sum(amount) AS s FROM t WHERE product IS NOT NULL GROUP BY product ORDER BY s DESC, product")
local same = #top == #ref
for i = 1, math.min(#top, #ref) do
  if top[i][1] ~= ref[i][1] or cell(top[i][2]) ~= ref[i][2] then same = false end
end
T.ok(same, "orderBy over an aggregate gives SQLite's order")

os.execute("rm -rf '" .. dir .. "'")
T.done()
