-- The session the SQL mode tests start with (streamlab sql --init): a
-- stream registered as the streaming view `words`, and two tables.  The
-- statements the tests type run through the real spark.sql, as a
-- learner's do.
ms = spark.memoryStream("word STRING")
ms:toDF():createOrReplaceTempView("words")
spark.createDataFrame({{1, "apple"}, {2, "pear"}}, "id INT, fruit STRING")
  :createOrReplaceTempView("fruits")
local rows = {}
for i = 1, 60 do rows[i] = {i} end
spark.createDataFrame(rows, "n INT"):createOrReplaceTempView("nums")
