// duckdb-lake.js: DuckDB reads the lake seed-lake.lua left (issue 15
// "Done when") and compares it with an oracle computed here from the
// orders produced, not from anything streamlab computed.
//   node duckdb-lake.js NODE_API_DIR DIR
// DuckDB does not read Spark's _spark_metadata log, so it is given the
// part files the log lists; the directory must hold no other part file.
// 1. DIR/raw (the parsed orders): every order exactly once, every column.
// 2. DIR/lake (windowed counts, append mode, watermark 10 minutes): the
//    counts of every closed window (end <= max(event_time) - 10 minutes),
//    each (window, product) once, and no window still open.
// Prints TAP.
'use strict';
const fs = require('fs');
const path = require('path');
const [apiDir, dir] = process.argv.slice(2);
const { DuckDBInstance } = require(apiDir);
const { ok, same, listed, sqlFiles, run } = require('./duckdb-tap.js');

function parts(sink) {
  return fs.readdirSync(sink).filter((f) => /^part-.*\.parquet$/.test(f))
    .map((f) => path.join(sink, f)).sort();
}
const us = (s) => Date.parse(s.replace(' ', 'T') + 'Z') * 1000;

run(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run("SET TimeZone = 'UTC'");
  const orders = fs.readFileSync(path.join(dir, 'orders.jsonl'), 'utf8')
    .split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  ok(orders.length > 100, `${orders.length} orders produced`);

  // 1. the raw sink
  const rawFiles = listed(path.join(dir, 'raw'));
  same(parts(path.join(dir, 'raw')), rawFiles, 'raw: every part file in the directory is in _spark_metadata');
  const sql = sqlFiles;
  const raw = (await con.runAndReadAll(
    `SELECT order_id, product_id, amount, CAST(epoch_us(event_time) AS VARCHAR)
       FROM read_parquet(${sql(rawFiles)}) ORDER BY order_id`)).getRows()
    .map((r) => [Number(r[0]), r[1], Number(r[2]), r[3]]);
  const wantRaw = orders.map((o) => [o.order_id, o.product_id, o.amount, String(us(o.event_time))])
    .sort((a, b) => a[0] - b[0]);
  ok(raw.length === orders.length, `raw: DuckDB reads ${raw.length} orders, ${orders.length} produced`);
  same(raw, wantRaw, 'raw: every order exactly once, with its columns');

  // 2. the windowed counts
  const lakeFiles = listed(path.join(dir, 'lake'));
  same(parts(path.join(dir, 'lake')), lakeFiles, 'lake: every part file in the directory is in _spark_metadata');
  const desc = (await con.runAndReadAll(
    `DESCRIBE SELECT * FROM read_parquet(${sql(lakeFiles)})`)).getRows().map((r) => `${r[0]} ${r[1]}`);
  same(desc, ['window STRUCT("start" TIMESTAMP WITH TIME ZONE, "end" TIMESTAMP WITH TIME ZONE)',
    'product_id VARCHAR', 'count BIGINT'], 'lake: the schema DuckDB sees');
  const got = (await con.runAndReadAll(
    `SELECT CAST(epoch_us("window"."start") AS VARCHAR), CAST(epoch_us("window"."end") AS VARCHAR),
            product_id, CAST(count AS VARCHAR)
       FROM read_parquet(${sql(lakeFiles)}) ORDER BY 1, 3`)).getRows();
  const watermark = Math.max(...orders.map((o) => us(o.event_time))) - 10 * 60e6;
  const win = 5 * 60e6;
  const counts = new Map();
  for (const o of orders) {
    const start = Math.floor(us(o.event_time) / win) * win;
    if (start + win > watermark) continue; /* still open: not emitted in append mode */
    const k = `${start}|${o.product_id}`;
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  const want = [...counts.entries()].map(([k, c]) => {
    const [s, p] = k.split('|');
    return [s, String(Number(s) + win), p, String(c)];
  }).sort((a, b) => (a[0] === b[0] ? (a[2] < b[2] ? -1 : 1) : Number(a[0]) - Number(b[0])));
  ok(want.length >= 8, `the oracle has ${want.length} (window, product) counts of closed windows`);
  same(got, want, 'lake: the counts of every closed window, each exactly once, as the oracle');
});
