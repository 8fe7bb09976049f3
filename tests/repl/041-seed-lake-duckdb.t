#!/usr/bin/perl
# The seed's lake (issue 15 "Done when"): lib/seed-lake.lua runs the seed's
# three blocks in Lua (Kafka -> CAST(value AS STRING) -> from_json ->
# withWatermark + window + count -> writeStream.format("parquet") with a
# checkpoint and processingTime), plus a raw sink of the parsed orders,
# each query crashed after its sink and restarted in the middle; then
# DuckDB (npm @duckdb/node-api, `make duckdb`) reads the part files the
# _spark_metadata logs list and lib/duckdb-lake.js compares them with an
# oracle computed from the orders produced: every order once in the raw
# sink, the count of every closed window once in the lake.  Without node,
# or without the package, the test says why it skips.
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
my $dir = tempdir("seed-lake-XXXXXX", TMPDIR => 1, CLEANUP => 1);
if (system($bin, "run", "$FindBin::Bin/lib/seed-lake.lua", $dir) != 0) {
	print "1..1\nnot ok 1 - streamlab run seed-lake.lua $dir\n";
	exit 1;
}
my $rc = system("node", "$FindBin::Bin/lib/duckdb-lake.js", $api, $dir);
exit($rc == 0 ? 0 : 1);
