-- The rate source on a manual clock (Spark's row formula, ramp-up
-- included) and the socket source's option errors.  (A live socket needs a
-- server; Lua has none, so the C tests cover that.)
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")

-- rowsPerSecond = 10, rampUpTime = 4s: Spark's example, end values per
-- second 0, 2, 6, 12, 20, 30, 40
local rate = spark.readStream:format("rate"):option("rowsPerSecond", 10):option("rampUpTime", "4s"):load()
T.is(rate.schema, "timestamp TIMESTAMP, value BIGINT", "rate source schema")
local q = rate.writeStream:format("memory"):queryName("rate"):start()
local totals = {}
for s = 1, 6 do
  spark.clock:advance("1 second")
  q:processAllAvailable()
  totals[s] = spark.table("rate"):count()
end
T.is(totals, {2, 6, 12, 20, 30, 40}, "rows after each second follow Spark's ramp-up formula")
local values = {}
for i, r in ipairs(T.rows(spark.table("rate"):select("value"):orderBy("value"))) do values[i] = r[1] end
local want = {}
for i = 1, 40 do want[i] = i - 1 end
T.is(values, want, "values are 0..39 without gaps or repeats")
local first = spark.table("rate"):orderBy("value"):first()
T.is(first.timestamp, "2026-01-01 12:00:00", "the first row is stamped at the start")
T.like(q.lastProgress.sources[1].description, "^RateStreamV2%[rowsPerSecond=10, rampUpTimeSeconds=4",
  "rate source description")
q:stop()

-- steady rate, several seconds in one batch
spark.clock:manual("2026-01-01 12:10:00")
local rate2 = spark.readStream:format("rate"):option("rowsPerSecond", 3):load()
q = rate2.writeStream:format("memory"):queryName("rate2"):start()
spark.clock:advance("5 seconds")
q:processAllAvailable()
T.is(spark.table("rate2"):count(), 15, "5 seconds at 3 rows per second")
T.is(T.rows(spark.table("rate2"):where("value = 3"):select("timestamp")), {{"2026-01-01 12:10:01"}},
  "row 3 is the first of second 1")
q:stop()

-- rate option errors (at load, as Spark's analysis)
T.errors(function() spark.readStream:format("rate"):schema("a INT"):load() end,
  "The rate source does not support a user%-specified schema%.", "rate with a schema")
T.errors(function() spark.readStream:format("rate"):option("rowsPerSecond", 0):load() end,
  "rowsPerSecond", "rowsPerSecond must be positive")

-- socket option errors, Spark's sentences
T.errors(function() spark.readStream:format("socket"):option("port", 9999):load() end,
  'Set a host to read from with option%("host", %.%.%.%)%.', "socket without host")
T.errors(function() spark.readStream:format("socket"):option("host", "localhost"):load() end,
  'Set a port to read from with option%("port", %.%.%.%)%.', "socket without port")
T.errors(function()
  spark.readStream:format("socket"):option("host", "localhost"):option("port", 9999)
    :option("includeTimestamp", "maybe"):load()
end, 'includeTimestamp must be set to either "true" or "false"', "socket includeTimestamp")
local sock = spark.readStream:format("socket"):option("host", "localhost"):option("port", 9999):load()
T.is(sock.schema, "value STRING", "socket source schema")
local sockts = spark.readStream:format("socket"):options{host = "localhost", port = 9999, includeTimestamp = true}:load()
T.is(sockts.schema, "value STRING, timestamp TIMESTAMP", "socket with includeTimestamp")

T.done()
