#!/usr/bin/perl
# A partitioned lake read by DuckDB (issue 15 item 2): lib/partition-lake.lua
# writes df.write:partitionBy("day", "country") and a partitioned Parquet
# stream (three batches, a stop and a restart); lib/duckdb-partition.js
# reads both with DuckDB's read_parquet(..., hive_partitioning = true) and
# compares them row for row with the rows streamlab was given: the Hive
# directories escaped as Spark's escapePathName, __HIVE_DEFAULT_PARTITION__
# for null, the partition columns only in the directory names, every
# stream file in _spark_metadata.  DuckDB is npm's @duckdb/node-api (`make
# duckdb`); without node, or without the package, the test says why it
# skips.
use strict;
use warnings;
use File::Temp qw(tempdir);
use FindBin;

my $top = "$FindBin::Bin/../..";
my $bin = $ENV{STREAMLAB} // "$top/streamlab";
my $build = $ENV{BUILD} || "build";
$build = "$top/$build" unless $build =~ m{^/};
my $api = "$build/node_modules/\@duckdb/node-api";

if (system("command -v node >/dev/null 2>&1") != 0) {
	print "1..0 # SKIP node not found\n";
	exit 0;
}
if (!-f "$api/package.json") {
	print "1..0 # SKIP \@duckdb/node-api not installed (make duckdb)\n";
	exit 0;
}
my $dir = tempdir("partition-lake-XXXXXX", TMPDIR => 1, CLEANUP => 1);
if (system($bin, "run", "$FindBin::Bin/lib/partition-lake.lua", $dir) != 0) {
	print "1..1\nnot ok 1 - streamlab run partition-lake.lua $dir\n";
	exit 1;
}
my $rc = system("node", "$FindBin::Bin/lib/duckdb-partition.js", $api, $dir);
exit($rc == 0 ? 0 : 1);
