#!/usr/bin/perl
# Parquet against DuckDB (issue 15, item 5): DuckDB reads the files
# streamlab's writer makes, row for row, and streamlab's reader reads the
# files DuckDB makes (dictionary, several row groups, nulls, snappy, zstd,
# gzip, none, data page V2).  DuckDB is npm's @duckdb/node-api, which
# `make duckdb` (part of `make test`) installs under $BUILD/node_modules;
# without node, or without the package, the test says why it skips.
# The work is in lib/duckdb-parquet.js, which prints the TAP.
use strict;
use warnings;
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/lib";
use DuckTest;

my ($api, $build) = duckdb_api();
my $tool = "$build/tests/tools/parquet-tool";
if (!-x $tool) {
	print "1..1\nnot ok 1 - $tool is built (make units)\n";
	exit 1;
}
my $dir = tempdir("pq-duckdb-XXXXXX", TMPDIR => 1, CLEANUP => 1);
if (system($tool, "write", $dir) != 0) {
	print "1..1\nnot ok 1 - parquet-tool write $dir\n";
	exit 1;
}
my $rc = system("node", "$FindBin::Bin/lib/duckdb-parquet.js", $api, $tool, $dir);
exit($rc == 0 ? 0 : 1);
