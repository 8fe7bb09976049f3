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
use FindBin;
use lib "$FindBin::Bin/lib";
use DuckTest;

duckdb_run("partition-lake", "partition-lake.lua", "duckdb-partition.js");
