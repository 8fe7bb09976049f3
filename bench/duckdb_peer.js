// duckdb_peer.js: DuckDB on one thread, the peer of `make bench`
// (bench/run.pl; not a test).  The same rows and the same query as the
// Lua workloads, timed around the query only; prints the line run.pl reads:
//   result duckdb events=N cpu_s=S wall_s=S groups=G
// CPU is process.cpuUsage() (user + system, every thread of node).
//   node duckdb_peer.js NODE_API_DIR rate KEYS SLIDE_S EVENTS
//       an in-memory table of W1's rows as the rate source makes them
//       (built untimed), then time_bucket(60 s) GROUP BY window, product_id
//       with count(*), sum(amount); SLIDE_S < 60: each row in the 60/SLIDE_S
//       windows holding it (a join with range())
//   node duckdb_peer.js NODE_API_DIR json|csv|parquet DIR
//       read_json / read_csv / read_parquet over DIR's files in the query
'use strict';
const fs = require('fs');
const path = require('path');
const [apiDir, mode, ...rest] = process.argv.slice(2);
const { DuckDBInstance } = require(apiDir);

const W1_SELECT = 'count(*) AS n, sum(amount) AS total';

(async () => {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await db.connect();
  await con.run("SET TimeZone = 'UTC'");
  await con.run('SET threads = 1');
  let sql, events;
  if (mode === 'rate') {
    const [keys, slide, n] = rest.map(Number);
    events = n;
    await con.run(`CREATE TABLE t AS SELECT
        TIMESTAMP '2026-01-01 12:00:00' + to_microseconds(i * 10) AS event_time,
        i % ${keys} AS product_id,
        CAST(i % 10000 AS DOUBLE) / 100 AS amount
      FROM range(${n}) r(i)`);
    if (slide >= 60)
      sql = `SELECT time_bucket(INTERVAL 60 SECOND, event_time) AS w, product_id, ${W1_SELECT}
             FROM t GROUP BY ALL`;
    else
      sql = `SELECT time_bucket(INTERVAL ${slide} SECOND, event_time) - to_seconds(k * ${slide}) AS w,
               product_id, ${W1_SELECT}
             FROM t, range(${60 / slide}) s(k) GROUP BY ALL`;
  } else {
    const dir = rest[0];
    const files = fs.readdirSync(dir).filter((f) => !f.startsWith('_') && !f.startsWith('.'))
      .map((f) => `'${path.join(dir, f)}'`).join(', ');
    const cols = "{ts: 'TIMESTAMP', product_id: 'VARCHAR', amount: 'INTEGER'}";
    const from = {
      json: `read_json([${files}], format = 'newline_delimited', columns = ${cols})`,
      csv: `read_csv([${files}], header = false, columns = ${cols})`,
      parquet: `read_parquet([${files}])`,
    }[mode];
    if (!from) throw new Error(`duckdb_peer: unknown mode '${mode}'`);
    const r = await con.runAndReadAll(`SELECT count(*) FROM ${from}`);
    events = Number(r.getRows()[0][0]); // untimed: warms the page cache
    sql = `SELECT time_bucket(INTERVAL 60 SECOND, ts) AS w, product_id, ${W1_SELECT}
           FROM ${from} GROUP BY ALL`;
  }
  const c0 = process.cpuUsage(), w0 = process.hrtime.bigint();
  const res = await con.runAndReadAll(`SELECT count(*) FROM (${sql})`);
  const w = Number(process.hrtime.bigint() - w0) / 1e9, c = process.cpuUsage(c0);
  const groups = Number(res.getRows()[0][0]);
  console.log(`result duckdb events=${events} cpu_s=${((c.user + c.system) / 1e6).toFixed(6)} ` +
    `wall_s=${w.toFixed(6)} groups=${groups}`);
})().catch((e) => { console.error(`duckdb_peer: ${e.message}`); process.exit(1); });
