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
use FindBin;
use lib "$FindBin::Bin/lib";
use DuckTest;

duckdb_run("seed-lake", "seed-lake.lua", "duckdb-lake.js");
