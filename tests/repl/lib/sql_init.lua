-- The session the SQL mode tests start with (streamlab sql --init):
-- the spark.sql stand-in, a manual clock, a stream and two tables.
local dir = debug.getinfo(1, "S").source:match("^[@=](.*)/[^/]*$") or "."
dofile(dir .. "/sql_fake.lua")
ms = spark.memoryStream("word STRING")
FAKE_VIEWS.words = ms:toDF()
ms:toDF():createOrReplaceTempView("words") -- for completion: a streaming view's columns
spark.createDataFrame({{1, "apple"}, {2, "pear"}}, "id INT, fruit STRING")
  :createOrReplaceTempView("fruits")
local rows = {}
for i = 1, 60 do rows[i] = {i} end
spark.createDataFrame(rows, "n INT"):createOrReplaceTempView("nums")
