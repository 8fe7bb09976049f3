// duckdb-tap.js: what the DuckDB checkers (duckdb-parquet.js,
// duckdb-lake.js, duckdb-partition.js) share: a TAP printer, a file
// sink's _spark_metadata listing, a list of files as DuckDB SQL, and the
// runner that ends the plan.
//   const t = require('./duckdb-tap.js');
//   t.run(async () => { ... t.ok(...); t.same(...); ... });
'use strict';
const fs = require('fs');
const path = require('path');

let n = 0, failed = 0;

function ok(cond, name, diag) {
  n++;
  console.log(`${cond ? '' : 'not '}ok ${n} - ${name}`);
  if (!cond) {
    failed++;
    if (diag) console.log(diag.split('\n').map((l) => '#   ' + l).join('\n'));
  }
}

// got and want equal as JSON; the first 3000 characters of each on failure
function same(got, want, name) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  ok(g === w, name, g === w ? '' : `got:  ${g.slice(0, 3000)}\nwant: ${w.slice(0, 3000)}`);
}

// The files a sink's _spark_metadata log adds (every entry of every batch
// file, URIs decoded once as Hadoop's Path does; a compacted log is not
// expected at these batch counts), sorted.
function listed(sink) {
  const log = path.join(sink, '_spark_metadata');
  const files = [];
  for (const b of fs.readdirSync(log).filter((f) => /^\d+$/.test(f))) {
    const lines = fs.readFileSync(path.join(log, b), 'utf8').split('\n');
    if (lines[0] !== 'v1') throw new Error(`${log}/${b}: not a v1 sink log`);
    for (const l of lines.slice(1)) {
      if (l.trim() === '') continue;
      const e = JSON.parse(l);
      if (e.action === 'add') files.push(decodeURIComponent(e.path.replace(/^file:\/\//, '')));
    }
  }
  return files.sort();
}

// A DuckDB list literal of file names: ['a', 'b']
const sqlFiles = (files) => '[' + files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ') + ']';

// Run the async checks, print the plan, exit 0 only when every check held;
// an exception is one more failing check.
function run(main) {
  main().then(() => {
    console.log(`1..${n}`);
    process.exitCode = failed ? 1 : 0;
  }, (e) => {
    ok(false, 'DuckDB run', String((e && e.stack) || e));
    console.log(`1..${n}`);
    process.exitCode = 1;
  });
}

module.exports = { ok, same, listed, sqlFiles, run };
