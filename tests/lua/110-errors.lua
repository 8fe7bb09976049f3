-- Streaming errors, each sentence verbatim (Spark's wording where Spark has
-- one): batch actions on a stream, writeStream on a batch DataFrame,
-- output modes, triggers, source options.
local T = require("tap")

-- escape a sentence for T.errors (which takes a Lua pattern)
local function lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

spark.clock:manual("2026-01-01 12:00:00")
local ms = spark.memoryStream("value INT")
local sdf = ms:toDF()
local bdf = spark.createDataFrame({{1}}, "value INT")

-- batch actions on a streaming DataFrame
local BATCH = "Queries with streaming sources must be executed with writeStream.start()"
for _, action in ipairs({"show", "collect", "count", "first", "head", "isEmpty"}) do
  local e = T.errors(function() return sdf[action](sdf) end, "^[^:]*:%d+: " .. lit(BATCH), action .. " on a stream")
  T.is(type(e) == "table" and e.code, "AnalysisException", action .. ": an AnalysisException")
end
T.errors(function() return sdf:take(1) end, lit(BATCH), "take on a stream")
T.errors(function() return sdf:select("value"):filter("value > 1"):count() end, lit(BATCH),
  "after transformations too")
-- Spark accepts a view of a stream (issue 19); reading it as rows does not
T.lives(function() sdf:createOrReplaceTempView("v") end, "createOrReplaceTempView of a stream")
T.errors(function() return spark.table("v"):count() end, lit(BATCH), "count of the stream's view")
T.lives(function() T.capture(function() sdf:printSchema() end) end, "printSchema is fine on a stream")
T.errors(function() return sdf.write end, lit("'write' can not be called on streaming Dataset/DataFrame"),
  "df.write on a stream")

-- writeStream on a batch DataFrame
local e = T.errors(function() return bdf.writeStream end,
  lit("'writeStream' can be called only on streaming Dataset/DataFrame"), "writeStream on a batch DataFrame")
T.is(type(e) == "table" and e.code, "AnalysisException", "an AnalysisException")
T.is(bdf.isStreaming, false, "a batch DataFrame is not streaming")

-- output modes
T.errors(function() sdf.writeStream:outputMode("upsert") end,
  lit("Unknown output mode upsert. Accepted output modes are 'append', 'complete', 'update'"), "unknown output mode")
T.lives(function() sdf.writeStream:outputMode("Update") end, "output modes are case-insensitive")

-- triggers (PySpark 3.5's checks)
T.errors(function() sdf.writeStream:trigger{processingTime = "1 minute", once = true} end,
  lit("[ONLY_ALLOW_SINGLE_TRIGGER] Only a single trigger is allowed."), "two triggers at once")
T.errors(function() sdf.writeStream:trigger{} end,
  lit("[ONLY_ALLOW_SINGLE_TRIGGER] Only a single trigger is allowed."), "no trigger")
T.errors(function() sdf.writeStream:trigger{once = false} end,
  lit("[VALUE_NOT_TRUE] Value for `once` must be True, got 'False'."), "once = false")
T.errors(function() sdf.writeStream:trigger{availableNow = false} end,
  lit("[VALUE_NOT_TRUE] Value for `availableNow` must be True, got 'False'."), "availableNow = false")
T.errors(function() sdf.writeStream:trigger{processingTime = ""} end,
  lit("[VALUE_NOT_NON_EMPTY_STR] Value for `processingTime` must be a non empty string, got ''."),
  "empty processingTime")
T.errors(function() sdf.writeStream:trigger{processingTime = "1 fortnight"} end, "fortnight", "bad interval")
T.errors(function() sdf.writeStream:trigger{processingtime = "1 minute"} end,
  "trigger: unknown trigger 'processingtime' %(expected processingTime, once or availableNow%) " ..
  "%(did you mean 'processingTime'%?%)", "misspelt trigger")
T.errors(function() sdf.writeStream:trigger("1 minute") end,
  "bad argument #1 to 'trigger' %(table expected", "trigger takes a table")

-- sinks
T.errors(function() sdf.writeStream:format("consle") end,
  "unknown sink format 'consle' %(expected console, memory, json, csv, parquet, noop%) %(did you mean 'console'%?%)",
  "unknown sink format")
T.errors(function() sdf.writeStream:format("memory"):start() end,
  lit("queryName must be specified for memory sink"), "memory sink without queryName")
-- no format: spark.sql.sources.default, parquet, a file sink that needs
-- its path (asked first, as Spark's createSink does) and its checkpoint
T.errors(function() sdf.writeStream:start() end, lit("'path' is not specified"),
  "start without a format is a parquet sink, which needs a path")
T.errors(function() sdf.writeStream:start(T.tempdir()) end, "checkpointLocation must be specified",
  "start(path) without a format is a parquet sink, which needs a checkpoint")
local q = sdf.writeStream:format("memory"):queryName("dup"):start()
T.errors(function() sdf.writeStream:format("memory"):queryName("dup"):start() end,
  "dup", "a second active query with the same name")
q:stop()

-- sources
local dir = T.tempdir()
T.errors(function() spark.readStream:schema("a INT"):option("maxFilesPerTrigger", 0):json(dir) end,
  lit("Invalid value '0' for option 'maxFilesPerTrigger', must be a positive integer"), "maxFilesPerTrigger 0")
T.errors(function() spark.readStream:format("rate"):schema("value BIGINT"):load() end,
  lit("The rate source does not support a user-specified schema."), "rate with a schema")
T.errors(function() spark.readStream:json(dir) end,
  lit("Schema must be specified when creating a streaming source DataFrame. If some files already exist " ..
    "in the directory, then depending on the file format you may be able to create a static DataFrame on " ..
    "that directory with 'spark.read.load(directory)' and infer schema from it."), "file stream without schema")
T.errors(function() spark.readStream:csv(dir) end, "Schema must be specified", "csv stream without schema")
T.errors(function() spark.readStream:load() end, lit("'path' is not specified"),
  "load without a format is a parquet file source, which needs a path")
T.errors(function() spark.readStream:load(dir) end, "Schema must be specified",
  "load(dir) without a format is a parquet file source, which needs a schema")
T.errors(function() spark.readStream:format("rate"):option("rowsPerSecond", {}) end,
  "bad argument #2 to 'option'", "option values are strings, numbers or booleans")
T.errors(function() spark.memoryStream("value INTEGR") end, "INTEGR", "memoryStream with a bad DDL")
T.errors(function() ms:addData() end, "bad argument #1 to 'addData' %(rows expected%)", "addData with nothing")

-- misspelt members
T.errors(function() return spark.readStream:formt("rate") end,
  "DataStreamReader has no method 'formt' %(did you mean 'format'%?%)", "misspelt reader method")
T.errors(function() return sdf.writeStream:outputmode("append") end,
  "DataStreamWriter has no method 'outputmode' %(did you mean 'outputMode'%?%)", "misspelt writer method")
q = sdf.writeStream:format("noop"):start()
T.errors(function() return q.lastprogress end,
  "StreamingQuery has no method 'lastprogress' %(did you mean 'lastProgress'%?%)", "misspelt query field")
T.errors(function() q.stop() end, "bad argument #1 to 'stop' %(streamlab%.StreamingQuery expected",
  "q.stop() with '.'")
T.errors(function() q:awaitTermination(-1) end, "timeout must be >= 0", "negative timeout")
q:stop()

T.done()
