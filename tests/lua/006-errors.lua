-- Error messages a learner meets: what failed, where (FILE:LINE), and a hint.
-- Engine errors are error objects {code, message, hint, where} whose
-- tostring is "FILE:LINE: message (hint)".
local T = require("tap")

local df = spark.createDataFrame({{1, 2.5, "a"}}, "id INT, amount DOUBLE, product STRING")

-- unknown columns, with did-you-mean
T.errors(function() return df:select("amout") end,
  "select: cannot resolve 'amout' given input columns: %[id, amount, product%] %(did you mean 'amount'%?%)",
  "select of a misspelt column")
T.errors(function() return df:filter(F.col("prodct"):eq("a")) end,
  "filter: cannot resolve 'prodct'.*did you mean 'product'", "filter with a misspelt column")
T.errors(function() return df:withColumn("x", F.upper("prodcut")) end,
  "cannot resolve 'prodcut'.*did you mean 'product'", "withColumn with a misspelt column")
T.errors(function() return df.amout end,
  "DataFrame has no column or method 'amout' %(did you mean 'amount'%?%)", "df.<misspelt>")
T.errors(function() return df:selct("id") end,
  "DataFrame has no column or method 'selct' %(did you mean 'select'%?%)", "a misspelt method")

-- error objects
local ok, e = pcall(function() return df:select("nope") end)
T.is(type(e), "table", "engine errors are tables")
T.is(e.code, "AnalysisException", "code names the Spark exception")
T.like(e.message, "^select: cannot resolve 'nope'", "message")
T.like(e.where, "^.-006%-errors%.lua:%d+: $", "where is FILE:LINE of the call")
T.like(tostring(e), "^.-006%-errors%.lua:%d+: select: cannot resolve 'nope'", "tostring puts where first")
T.is(getmetatable(e).__name, "streamlab.Error", "error metatable")

-- bad SQL strings point at the column
T.errors(function() return df:filter("amount >") end,
  "filter: expected expression at 'amount >' %(col 9%)", "incomplete SQL in filter")
T.errors(function() return df:where("amount >") end,
  "where: expected expression at 'amount >' %(col 9%)", "the same through where")
T.errors(function() return df:selectExpr("id +") end, "^.-006%-errors%.lua:%d+: selectExpr: ",
  "selectExpr errors are prefixed 'selectExpr: '")
T.errors(function() return F.expr("'open") end, "expr: unterminated string", "F.expr parse errors")
T.errors(function() return df:selectExpr("uper(product)") end,
  "undefined function 'uper'.*did you mean 'upper'", "an unknown SQL function")

-- '.' instead of ':'
T.errors(function() return spark.read.format("json") end,
  "bad argument #1 to 'format' %(streamlab%.DataFrameReader expected, got string; use ':' not '%.' to call methods%)",
  "reader method called with '.'")
T.errors(function() return df.select("id") end,
  "bad argument #1 to 'select' %(streamlab%.DataFrame expected, got string; use ':' not '%.'",
  "DataFrame method called with '.'")
T.errors(function() return df.count() end,
  "bad argument #1 to 'count' %(streamlab%.DataFrame expected, got no value; use ':'",
  "a method called with '.' and no arguments")
T.errors(function() return F.col("a").alias("b") end,
  "bad argument #1 to 'alias' %(streamlab%.Column expected, got string; use ':'", "Column method with '.'")
T.errors(function() return df:groupBy("id").count() end,
  "streamlab%.GroupedData expected, got no value; use ':'", "GroupedData method with '.'")

-- bad arguments
T.errors(function() return df:limit("ten") end, "bad argument #1 to 'limit'", "limit of a string")
T.errors(function() return F.col(1) end, "bad argument #1 to 'col' %(column name expected, got number 1%)",
  "F.col of a number")
T.errors(function() return F.col("a"):cast("strng") end, "cast: .*strng", "cast to an unknown type")
T.errors(function() return F.upper() end, "F%.upper takes 1 argument, got 0", "wrong argument count for F")
T.errors(function() return F.uper("a") end, "F has no function 'uper' %(did you mean 'upper'%?%)",
  "a misspelt F function")
T.errors(function() return F.col("a"):isNul() end, "Column has no method 'isNul' %(did you mean 'isNull'%?%)",
  "a misspelt Column method")

-- bad DDL
T.errors(function() spark.createDataFrame({}, "a INTEGR") end, "INTEGR", "bad type name in DDL")
T.errors(function() spark.createDataFrame({}, "a INT,") end, "schema", "trailing comma in DDL")

-- the session
T.errors(function() return spark.readStrem end,
  "spark has no field 'readStrem' %(did you mean 'readStream'%?%)", "a misspelt spark field")
T.is(spark.read == spark.read, false, "spark.read is a new reader at each access")
T.errors(function() spark.read = 1 end, "spark fields cannot be assigned", "spark is read-only")
T.errors(function() return spark.table("nope") end, "The table or view `nope` cannot be found", "spark.table of nothing")

-- streaming: a batch DataFrame cannot be written as a stream (more in 110-errors.lua)
T.is(getmetatable(spark.readStream).__name, "streamlab.DataStreamReader", "spark.readStream is a DataStreamReader")
T.errors(function() return df.writeStream end, "'writeStream' can be called only on streaming Dataset/DataFrame",
  "df.writeStream on a batch DataFrame")

-- conf
spark.conf:set("spark.sql.streaming.multipleWatermarkPolicy", "max")
T.is(spark.conf:get("spark.sql.streaming.multipleWatermarkPolicy"), "max", "conf set/get")
T.is(spark.conf:get("spark.sql.session.timeZone"), "UTC", "conf defaults")
spark.conf:set("my.key", 5)
T.is(spark.conf:get("my.key"), "5", "conf values are strings, as Spark")
spark.conf:set("spark.sql.streaming.noDataMicroBatches.enabled", false)
T.is(spark.conf:get("spark.sql.streaming.noDataMicroBatches.enabled"), "false", "a boolean becomes 'false'")
T.is(spark.conf:get("missing.key", "dflt"), "dflt", "get with a default")
T.errors(function() spark.conf.set("a", "b") end,
  "bad argument #1 to 'set' %(streamlab%.RuntimeConfig expected, got string; use ':'", "conf.set with '.'")
T.errors(function() spark.conf:get("missing.key") end, 'The SQL config "missing.key" cannot be found',
  "an unknown key without a default")
T.errors(function() spark.conf:set("spark.sql.streaming.multipleWatermarkPolicy", "avg") end,
  "should be one of min, max", "a bad value for a known key")

T.done()
