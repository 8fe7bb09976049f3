// duckdb-partition.js: DuckDB reads the partitioned lake partition-lake.lua
// wrote (issue 15 item 2), with read_parquet(..., hive_partitioning =
// true), and compares it row for row with the rows given to streamlab.
//   node duckdb-partition.js NODE_API_DIR DIR
// DIR/batch: every part file below the directory; DIR/stream: the files
// the sink's _spark_metadata log lists (their URIs decoded once, as
// Hadoop's Path does), which must be every part file there is.  DuckDB
// decodes the %XX of the directory names and reads
// __HIVE_DEFAULT_PARTITION__ as NULL, so the values must come back as given
// (an empty string as NULL, as Spark's writer stores it).  Prints TAP.
'use strict';
const fs = require('fs');
const path = require('path');
const [apiDir, dir] = process.argv.slice(2);
const { DuckDBInstance } = require(apiDir);
const { ok, same, listed, sqlFiles, run } = require('./duckdb-tap.js');

function walk(d) {
  let out = [];
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory() && e.name !== '_spark_metadata') out = out.concat(walk(p));
    else if (e.isFile() && /^part-.*\.parquet$/.test(e.name)) out.push(p);
  }
  return out.sort();
}
const num = (v) => (typeof v === 'bigint' ? Number(v) : v);

run(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const oracle = fs.readFileSync(path.join(dir, 'rows.json'), 'utf8')
    .split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const want = (kind) => oracle.filter((r) => r[0] === kind).map((r) => r.slice(1))
    .sort((a, b) => a[0] - b[0]);
  const sql = sqlFiles;

  // 1. the batch lake: day=.../country=.../part-*.parquet
  const bfiles = walk(path.join(dir, 'batch'));
  ok(bfiles.length === 9, `batch: ${bfiles.length} part files, one per (day, country)`);
  const dirs = bfiles.map((f) => path.relative(path.join(dir, 'batch'), path.dirname(f)));
  same(dirs, ['day=2026-01-01/country=de', 'day=2026-01-01/country=fr',
    'day=2026-01-02/country=__HIVE_DEFAULT_PARTITION__', 'day=2026-01-02/country=a b',
    'day=2026-01-02/country=fr', 'day=2026-01-03/country=100%25',
    'day=2026-01-03/country=__HIVE_DEFAULT_PARTITION__', 'day=2026-01-03/country=c%3Ad%3De',
    'day=2026-01-03/country=x%2Fy'].sort(), 'batch: the Hive directories, escaped as Spark escapes them');
  const cols = (await con.runAndReadAll(
    `DESCRIBE SELECT * FROM read_parquet(${sql(bfiles)}, hive_partitioning = false)`)).getRows()
    .map((r) => `${r[0]} ${r[1]}`);
  same(cols, ['id INTEGER', 'n DOUBLE'], 'batch: the files hold the data columns only');
  const got = (await con.runAndReadAll(
    `SELECT id, day, country, n FROM read_parquet(${sql(bfiles)}, hive_partitioning = true,
       hive_types = {'day': VARCHAR, 'country': VARCHAR}) ORDER BY id`)).getRows()
    .map((r) => r.map(num));
  same(got, want('batch'), 'batch: DuckDB reads every row with its partition values');

  // 2. the stream lake: country=.../part-00000-<id>-<batch>.c000.snappy.parquet
  const sfiles = listed(path.join(dir, 'stream'));
  same(walk(path.join(dir, 'stream')), sfiles, 'stream: every part file is in _spark_metadata');
  ok(sfiles.length === 8, `stream: ${sfiles.length} files over three batches (2 + 3 + 3 partitions)`);
  const sgot = (await con.runAndReadAll(
    `SELECT id, day, country, n FROM read_parquet(${sql(sfiles)}, hive_partitioning = true,
       hive_types = {'country': VARCHAR}) ORDER BY id`)).getRows().map((r) => r.map(num));
  same(sgot, want('stream'), 'stream: every row once across the restart, country from the directory');
});
