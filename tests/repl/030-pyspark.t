#!/usr/bin/perl
# q:toPySpark(), df:toPySpark(), :pyspark and STREAMLAB_PYSPARK_DIR: the
# PySpark program of a representative query of every feature kind (sources
# memory, rate, socket, file json/csv/text, kafka; sinks console, memory,
# json, csv, kafka, foreachBatch, noop; windows, watermark, session windows,
# dedup, joins, union, triggers) compiles with `python3 -m py_compile` and
# says what it must; so does the program of every query every lesson starts.
use strict;
use warnings;
use Test::More;
use IPC::Open3;
use File::Temp qw(tempfile tempdir);
use Cwd qw(getcwd);

my $bin = $ENV{STREAMLAB} // './streamlab';
my $dir = tempdir(CLEANUP => 1);
my $have_py = system('python3 -c "import py_compile" >/dev/null 2>&1') == 0;

sub run_sl {
	my ($in, $env, @args) = @_;
	my ($ifh, $iname) = tempfile(DIR => $dir);
	print $ifh $in // '';
	close $ifh;
	my $efh = tempfile(DIR => $dir);
	local %ENV = (%ENV, %{$env // {}});
	open(my $stdin, '<', $iname) or die;
	my $pid = open3('<&' . fileno($stdin), my $out, '>&' . fileno($efh), $bin, @args);
	my $stdout = do { local $/; <$out> } // '';
	waitpid($pid, 0);
	my $st = $? >> 8;
	seek($efh, 0, 0);
	my $stderr = do { local $/; <$efh> } // '';
	return ($stdout, $stderr, $st);
}

sub slurp { my ($p) = @_; open(my $fh, '<', $p) or return ''; local $/; return <$fh>; }

sub compiles {
	my ($path, $what) = @_;
	SKIP: {
		skip 'python3 not installed', 1 unless $have_py;
		my $msg = `python3 -m py_compile '$path' 2>&1`;
		is($?, 0, "$what: python3 -m py_compile") or diag($msg);
	}
}

my $out = "$dir/py";
mkdir $out or die;
open(my $fh, '>', "$dir/rep.lua") or die;
print $fh <<'LUA';
local out = arg[1]
local function save(name, text)
  local f = assert(io.open(out .. "/" .. name .. ".py", "w"))
  f:write(text)
  f:close()
end
local tmp = arg[2]
os.execute("mkdir -p " .. tmp .. "/in " .. tmp .. "/csv " .. tmp .. "/txt")
spark.clock:manual("2026-01-01 12:00:00")
spark.conf:set("spark.sql.streaming.multipleWatermarkPolicy", "max")

local ms = spark.memoryStream("event_time TIMESTAMP, product_id STRING, amount DOUBLE")
local q = ms:toDF():withWatermark("event_time", "10 minutes")
  :groupBy(F.window("event_time", "10 minutes", "5 minutes"), "product_id")
  :agg(F.sum("amount"):alias("total"), F.count("*"), F.avg("amount"))
  .writeStream:format("console"):outputMode("update"):option("truncate", "false")
  :trigger{processingTime = "1 minute"}:start()
save("memory-console-window", q:toPySpark()); q:stop()

q = spark.readStream:format("rate"):option("rowsPerSecond", "10"):option("rampUpTime", "5s"):load()
  :withWatermark("timestamp", "30 seconds")
  :groupBy(F.window("timestamp", "1 minute")):count()
  .writeStream:format("memory"):queryName("rate_counts"):outputMode("append"):trigger{once = true}:start()
save("rate-memory-once", q:toPySpark()); q:stop()

save("socket-df", spark.readStream:format("socket"):option("host", "localhost"):option("port", 9999):load()
  :selectExpr("explode(split(value, ' ')) AS word"):groupBy("word"):count():toPySpark())

q = spark.readStream:schema("id INT, name STRING, ts TIMESTAMP"):json(tmp .. "/in")
  :filter(F.col("id"):gt(1)):select("id", F.upper(F.col("name")):alias("NAME"), "ts")
  .writeStream:format("json"):option("path", tmp .. "/out-json")
  :option("checkpointLocation", tmp .. "/ck-json"):trigger{availableNow = true}:start()
save("json-json-availablenow", q:toPySpark()); q:stop()
q = spark.readStream:format("csv"):schema("a INT, b DOUBLE"):option("header", "true")
  :option("maxFilesPerTrigger", "1"):load(tmp .. "/csv")
  :withColumn("c", F.col("a") * 2 + F.col("b")):withColumnRenamed("b", "bee")
  .writeStream:format("csv"):option("checkpointLocation", tmp .. "/ck-csv"):start(tmp .. "/out-csv")
save("csv-csv", q:toPySpark()); q:stop()
q = spark.readStream:text(tmp .. "/txt"):selectExpr("length(value) AS len", "value")
  .writeStream:format("noop"):start()
save("text-noop", q:toPySpark()); q:stop()

kafka.createTopic("pys_in", 2); kafka.createTopic("pys_out", 1)
q = spark.readStream:format("kafka"):option("subscribe", "pys_in"):option("startingOffsets", "earliest")
  :option("maxOffsetsPerTrigger", "100"):load()
  :selectExpr("CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value")
  :selectExpr("key", "upper(value) AS value")
  .writeStream:format("kafka"):option("topic", "pys_out")
  :option("checkpointLocation", tmp .. "/ck-kafka"):start()
save("kafka-kafka", q:toPySpark()); q:stop()

q = ms:toDF():select("product_id", "amount").writeStream
  :foreachBatch(function(df, id) end):queryName("fe"):start()
save("foreachbatch", q:toPySpark()); q:stop()

local ss = spark.memoryStream("sessionId STRING, eventTime TIMESTAMP")
q = ss:toDF():withWatermark("eventTime", "10 seconds")
  :groupBy(F.session_window("eventTime", "10 seconds"):alias("session"), "sessionId")
  :agg(F.count("*"):alias("numEvents"))
  .writeStream:format("memory"):queryName("sessions"):outputMode("append"):start()
save("session-window", q:toPySpark()); q:stop()

q = ms:toDF():withWatermark("event_time", "5 minutes"):dropDuplicatesWithinWatermark{"product_id"}
  .writeStream:format("console"):start()
save("dedup-within-watermark", q:toPySpark()); q:stop()
q = ms:toDF():dropDuplicates{"product_id", "event_time"}
  .writeStream:format("console"):start()
save("dedup", q:toPySpark()); q:stop()

local static = spark.createDataFrame({{"p1", "Pen", 1.5}, {"p2", "Ink", 2}}, "product_id STRING, title STRING, price DOUBLE")
q = ms:toDF():join(static, "product_id", "left")
  .writeStream:format("console"):start()
save("stream-static-join", q:toPySpark()); q:stop()
local ms2 = spark.memoryStream("event_time TIMESTAMP, product_id STRING, amount DOUBLE")
q = ms:toDF():union(ms2:toDF()):groupBy("product_id"):agg(F.max("amount"), F.min("event_time"))
  .writeStream:format("console"):outputMode("complete"):start()
save("union-complete", q:toPySpark()); q:stop()

local imp = spark.memoryStream("adId INT, impTime TIMESTAMP")
local clk = spark.memoryStream("clickAdId INT, clickTime TIMESTAMP")
q = imp:toDF():withWatermark("impTime", "2 hours")
  :join(clk:toDF():withWatermark("clickTime", "3 hours"),
        F.expr("clickAdId = adId AND clickTime >= impTime AND clickTime <= impTime + interval 1 hour"))
  .writeStream:format("memory"):queryName("joined"):start()
save("stream-stream-join", q:toPySpark()); q:stop()
q = imp:toDF():withWatermark("impTime", "2 hours")
  :join(clk:toDF():withWatermark("clickTime", "3 hours"),
        F.expr("clickAdId = adId AND clickTime >= impTime AND clickTime <= impTime + interval 1 hour"), "left_outer")
  .writeStream:format("memory"):queryName("ljoined"):start()
save("stream-stream-left-outer", q:toPySpark()); q:stop()
q = imp:toDF():withWatermark("impTime", "2 hours")
  :join(clk:toDF():withWatermark("clickTime", "3 hours"),
        F.expr("clickAdId = adId AND clickTime >= impTime AND clickTime <= impTime + interval 1 hour"), "left_semi")
  .writeStream:format("memory"):queryName("sjoined"):start()
save("stream-stream-left-semi", q:toPySpark()); q:stop()

save("batch-df", spark.createDataFrame({{1, "2026-01-01 12:00:00.25", true}, {2, nil, false}}, "id INT, ts TIMESTAMP, ok BOOLEAN")
  :where("ok"):orderBy(F.col("id"):desc()):limit(1):toPySpark())
LUA
close $fh;

my ($so, $se, $st) = run_sl('', {}, 'run', "$dir/rep.lua", $out, "$dir/data");
is($st, 0, 'the representative queries run') or diag($se);

# what each program must say (beyond compiling)
my %must = (
	'memory-console-window' => [
		qr/^from pyspark\.sql import SparkSession, functions as F, types as T$/m,
		qr/\.config\("spark\.sql\.streaming\.multipleWatermarkPolicy", "max"\)/,
		qr/TODO: read your real source here/,
		qr/\.schema\("event_time TIMESTAMP, product_id STRING, amount DOUBLE"\)/,
		qr/^    \.withWatermark\("event_time", "10 minutes"\)$/m,
		qr/^    \.groupBy\(F\.window\("event_time", "10 minutes", "5 minutes"\), "product_id"\)$/m,
		qr/F\.sum\("amount"\)\.alias\("total"\)/, qr/F\.count\(F\.lit\(1\)\)/, qr/F\.avg\("amount"\)/,
		qr/^    \.outputMode\("update"\)$/m, qr/\.option\("truncate", "false"\)/,
		qr/\.option\("checkpointLocation", "\/tmp\/checkpoints\/query"\)/,
		qr/^    \.trigger\(processingTime="1 minute"\)$/m,
		qr/^query\.awaitTermination\(\)$/m],
	'rate-memory-once' => [qr/\.format\("rate"\)\n    \.option\("rowsPerSecond", "10"\)/,
		qr/\.groupBy\(F\.window\("timestamp", "1 minute"\)\)/, qr/\.alias\("count"\)/,
		qr/\.queryName\("rate_counts"\)/, qr/\.trigger\(once=True\)/],
	'socket-df' => [qr/\.format\("socket"\)/, qr/\.option\("port", "9999"\)/,
		qr/\.selectExpr\("explode\(split\(value, ' '\)\) AS word"\)/,
		qr/# result is a streaming DataFrame/],
	'json-json-availablenow' => [qr/\.schema\("id INT, name STRING, ts TIMESTAMP"\)/,
		qr/\.filter\("id > 1"\)/, qr/\.selectExpr\("id", "upper\(name\) AS NAME", "ts"\)/,
		qr/\.trigger\(availableNow=True\)/, qr/\.format\("json"\)\n    \.outputMode\("append"\)/],
	'csv-csv' => [qr/\.option\("header", "true"\)/, qr/\.option\("maxFilesPerTrigger", "1"\)/,
		qr/\.withColumn\("c", F\.expr\("\(a \* 2\) \+ b"\)\)/,
		qr/\.withColumnRenamed\("b", "bee"\)/, qr/\.option\("path", "[^"]*out-csv"\)/],
	'text-noop' => [qr/\.format\("text"\)/, qr/\.format\("noop"\)/],
	'kafka-kafka' => [qr/spark-sql-kafka-0-10_2\.12:3\.5\.0/,
		qr/\.option\("kafka\.bootstrap\.servers", "localhost:9092"\)/,
		qr/\.option\("subscribe", "pys_in"\)/, qr/CAST\(value AS STRING\)/,
		qr/\.option\("topic", "pys_out"\)/],
	'foreachbatch' => [qr/^def process_batch\(batch_df, batch_id\):$/m,
		qr/\.foreachBatch\(process_batch\)/],
	'session-window' => [qr/F\.session_window\("eventTime", "10 seconds"\)\.alias\("session"\)/],
	'dedup-within-watermark' => [qr/\.dropDuplicatesWithinWatermark\(\["product_id"\]\)/],
	'dedup' => [qr/\.dropDuplicates\(\["product_id", "event_time"\]\)/],
	'stream-static-join' => [qr/spark\.createDataFrame\(/, qr/\("p2", "Ink", 2\.0\),/,
		qr/memory_stream\.join\(static_df, \["product_id"\], "left"\)/],
	'union-complete' => [qr/memory_stream\.union\(memory_stream_2\)/,
		qr/\/tmp\/streamlab\/input\/memory_stream_2/, qr/\.outputMode\("complete"\)/],
	'stream-stream-join' => [qr/\(left\["adId"\] == right\["clickAdId"\]\)/,
		qr/INTERVAL '1 hour'/, qr/\.withWatermark\("clickTime", "3 hours"\)/],
	'stream-stream-left-outer' => [qr/\(left\["adId"\] == right\["clickAdId"\]\)/,
		qr/^\s+"left",$/m, qr/\.withWatermark\("impTime", "2 hours"\)/],
	'stream-stream-left-semi' => [qr/^\s+"left_semi",$/m],
	'batch-df' => [qr/^import datetime$/m,
		qr/datetime\.datetime\(2026, 1, 1, 12, 0, 0, 250000, tzinfo=UTC\)/,
		qr/\(2, None, False\)/, qr/\.orderBy\(F\.col\("id"\)\.desc\(\)\)/,
		qr/\.limit\(1\)/, qr/^result\.show\(\)$/m],
);
for my $name (sort keys %must) {
	my $text = slurp("$out/$name.py");
	ok(length $text, "$name: exported");
	like($text, $_, "$name: $_") for @{$must{$name}};
	compiles("$out/$name.py", $name);
}

# STREAMLAB_PYSPARK_DIR: every started query leaves its program there
my $exp = "$dir/exp";
mkdir $exp or die;
($so, $se, $st) = run_sl('', {STREAMLAB_PYSPARK_DIR => $exp}, '-e',
	'local ms = spark.memoryStream("v INT") '
	. 'local a = ms:toDF().writeStream:format("memory"):queryName("one"):start() a:stop() '
	. 'local b = ms:toDF().writeStream:format("memory"):queryName("one"):start() '
	. 'local c = ms:toDF().writeStream:format("console"):start() '
	. 'assert(a:toPySpark() == io.open(os.getenv("STREAMLAB_PYSPARK_DIR") .. "/001-one.py"):read("a"))');
is($st, 0, 'STREAMLAB_PYSPARK_DIR: the script runs') or diag($se);
is(join(' ', sort map { s{.*/}{}r } glob("$exp/*.py")), '001-one.py 001-query.py 002-one.py',
   'STREAMLAB_PYSPARK_DIR: one NNN-name.py per started query');

# :pyspark prints the focused query's program
($so, $se, $st) = run_sl("ms = spark.memoryStream(\"v INT\")\n"
	. "q = ms:toDF():selectExpr(\"v + 1 AS w\").writeStream:format(\"memory\"):queryName(\"pq\"):start()\n"
	. ":pyspark\n", {}, '--plain');
like($so, qr/\.selectExpr\("v \+ 1 AS w"\)\n\)\n\nquery = \(\n    result\.writeStream\n    \.format\("memory"\)/,
     ':pyspark prints the program');
($so, $se, $st) = run_sl(":pyspark\n", {}, '--plain');
like($so . $se, qr/:pyspark: no query to act on/, ':pyspark without a query says so');

# every lesson: the program of every query it starts compiles
my @lessons = sort glob('lessons/[0-9][0-9]-*.lua');
for my $l (@lessons) {
	(my $n = $l) =~ s{.*/(\d\d)-.*}{$1};
	my $ld = "$dir/lesson$n";
	mkdir $ld or die;
	($so, $se, $st) = run_sl('', {STREAMLAB_PYSPARK_DIR => $ld}, 'lesson', $l, '--check');
	is($st, 0, "lesson $n runs") or diag($se);
	compiles($_, "lesson $n: " . ($_ =~ s{.*/}{}r)) for sort glob("$ld/*.py");
}

done_testing();
