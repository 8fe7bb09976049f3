// duckdb-parquet.js: DuckDB, an independent Parquet implementation, holds
// streamlab's Parquet writer and reader to the format (issue 15, item 5).
//   node duckdb-parquet.js NODE_API_DIR PARQUET_TOOL DIR
// 1. DIR/sl-*.parquet (written by `parquet-tool write DIR`) are read by
//    DuckDB: types as Spark writes them and every row equal to
//    DIR/expected.jsonl, row for row.
// 2. DuckDB writes Parquet (dictionary, several row groups, nulls, snappy,
//    zstd, gzip, none, data page V2); `parquet-tool cat` must give the rows
//    DuckDB reads back from the same file, and damaged copies of each file
//    (`parquet-tool fuzz`) must fail with one-line errors, never crash.
// Prints TAP.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const [apiDir, tool, dir] = process.argv.slice(2);
const { DuckDBInstance } = require(apiDir);
const { ok, run } = require('./duckdb-tap.js');

// SQL expressions giving a column in parquet-tool's canonical form.
function canon(expr, type) {
  type = type.trim();
  if (type.startsWith('STRUCT(')) {
    const inner = type.slice(7, -1);
    const fields = [];
    let depth = 0, start = 0;
    for (let i = 0; i <= inner.length; i++) {
      const c = inner[i];
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if ((c === ',' && depth === 0) || i === inner.length) {
        fields.push(inner.slice(start, i).trim());
        start = i + 1;
      }
    }
    const out = [`(${expr}) IS NULL`];
    for (const f of fields) {
      const m = f.match(/^"?([^" ]+)"?\s+(.*)$/);
      out.push(...canon(`(${expr})."${m[1]}"`, m[2]));
    }
    return out;
  }
  if (/^(INTEGER|SMALLINT|TINYINT|UTINYINT|USMALLINT)$/.test(type)) return [`CAST(${expr} AS INTEGER)`];
  if (/^(BIGINT|UINTEGER)$/.test(type)) return [`CAST(${expr} AS VARCHAR)`];
  if (/^(DOUBLE|FLOAT|DECIMAL.*)$/.test(type)) return [`CAST(${expr} AS DOUBLE)`];
  if (type === 'BOOLEAN' || type === 'VARCHAR') return [expr];
  if (type === 'BLOB') return [`hex(${expr})`];
  if (type === 'DATE') return [`CAST(epoch_us(CAST(${expr} AS TIMESTAMP)) AS VARCHAR)`];
  if (type.startsWith('TIMESTAMP')) return [`CAST(epoch_us(${expr}) AS VARCHAR)`];
  throw new Error('no canonical form for ' + type);
}

async function duckRows(con, file) {
  const desc = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).getRows();
  const exprs = [];
  for (const [name, type] of desc) exprs.push(...canon(`"${name}"`, type));
  const rows = (await con.runAndReadAll(`SELECT ${exprs.join(', ')} FROM read_parquet('${file}')`)).getRows();
  return { desc, rows: rows.map((r) => r.map((v) => (typeof v === 'bigint' ? String(v) : v))) };
}

function sameValue(a, b) {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a));
  return a === b;
}

function compare(name, want, got) {
  if (want.length !== got.length) {
    ok(false, name, `DuckDB has ${want.length} rows, streamlab ${got.length}`);
    return;
  }
  for (let i = 0; i < want.length; i++) {
    const w = want[i], g = got[i];
    if (w.length !== g.length || w.some((v, k) => !sameValue(v, g[k]))) {
      ok(false, name, `row ${i} differs\nDuckDB:    ${JSON.stringify(w)}\nstreamlab: ${JSON.stringify(g)}`);
      return;
    }
  }
  ok(true, name);
}

function readJsonl(text) {
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

async function main() {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run("SET TimeZone = 'UTC'");

  // 1. streamlab writes, DuckDB reads
  const expected = readJsonl(fs.readFileSync(`${dir}/expected.jsonl`, 'utf8'));
  const files = fs.readdirSync(dir).filter((f) => /^sl-.*\.parquet$/.test(f)).sort();
  ok(files.length >= 4, `streamlab wrote ${files.length} files`);
  for (const f of files) {
    const { desc, rows } = await duckRows(con, `${dir}/${f}`);
    const types = desc.map(([nm, t]) => `${nm} ${t}`).join(', ');
    ok(types === 'i INTEGER, b BIGINT, d DOUBLE, flag BOOLEAN, s VARCHAR, u VARCHAR, ' +
       'ts TIMESTAMP WITH TIME ZONE, window STRUCT("start" TIMESTAMP WITH TIME ZONE, "end" TIMESTAMP WITH TIME ZONE), bin BLOB',
       `${f}: DuckDB sees Spark's types`, types);
    compare(`${f}: DuckDB reads every row streamlab wrote`, expected, rows);
  }
  const meta = (await con.runAndReadAll(
    `SELECT DISTINCT path_in_schema, encodings, compression FROM parquet_metadata('${dir}/sl-snappy.parquet') WHERE path_in_schema = 's'`)).getRows();
  ok(meta.length === 1 && /RLE_DICTIONARY/.test(String(meta[0][1])) && /SNAPPY/i.test(String(meta[0][2])),
     'sl-snappy.parquet: DuckDB finds column s dictionary encoded, snappy', JSON.stringify(meta, (k, v) => typeof v === 'bigint' ? String(v) : v));
  const stats = (await con.runAndReadAll(
    `SELECT path_in_schema, stats_min_value, stats_max_value, CAST(stats_null_count AS VARCHAR)
       FROM parquet_metadata('${dir}/sl-snappy.parquet') WHERE path_in_schema IN ('i', 's') ORDER BY 1`)).getRows();
  ok(JSON.stringify(stats) === JSON.stringify([['i', '-1000', '33993', '714'], ['s', 'k0', 'k9', '385']]),
     'sl-snappy.parquet: DuckDB reads the min/max/null_count statistics', JSON.stringify(stats));
  const groups = (await con.runAndReadAll(
    `SELECT count(DISTINCT row_group_id) FROM parquet_metadata('${dir}/sl-zstd-groups.parquet')`)).getRows();
  ok(Number(groups[0][0]) === 8, 'sl-zstd-groups.parquet: 8 row groups of at most 700 rows', String(groups[0][0]));

  // 2. DuckDB writes, streamlab reads
  await con.run(`CREATE TABLE t AS SELECT
      CASE WHEN i % 7 = 3 THEN NULL ELSE CAST(i * 7 - 1000 AS INTEGER) END AS i,
      CAST(i * 10000000007 - 5 AS BIGINT) AS b,
      CASE WHEN i % 5 = 1 THEN NULL ELSE i / 3.0 - 17.25 END AS d,
      CASE WHEN i % 11 = 4 THEN NULL ELSE i % 3 = 0 END AS flag,
      CASE WHEN i % 13 = 2 THEN NULL ELSE 'k' || (i % 17) END AS s,
      'unique-é-' || i AS u,
      CASE WHEN i % 9 = 5 THEN NULL ELSE make_timestamp(1767225600000000 + i * 1000003) END AS ts,
      CAST(make_timestamp(1767225600000000 + i * 7) AS TIMESTAMPTZ) AS tstz,
      CASE WHEN i % 19 = 7 THEN NULL ELSE {'start': make_timestamp((i // 10) * 600000000),
                                          'end': make_timestamp((i // 10 + 1) * 600000000)} END AS "window",
      CAST(i % 100 AS SMALLINT) AS small,
      CAST(i % 50 AS TINYINT) AS tiny,
      CAST(i / 8.0 AS FLOAT) AS f,
      CAST(i / 100.0 AS DECIMAL(9, 2)) AS dec9,
      CAST(i / 1000.0 AS DECIMAL(18, 3)) AS dec18,
      DATE '2026-01-01' + CAST(i % 400 AS INTEGER) AS day,
      CASE WHEN i % 3 = 0 THEN NULL ELSE CAST('b' || (i % 5) AS BLOB) END AS bin,
      CAST(NULL AS VARCHAR) AS nothing
    FROM range(5000) r(i)`);
  const outs = [
    ['dd-snappy', "CODEC 'snappy', ROW_GROUP_SIZE 1000"],
    ['dd-zstd', "CODEC 'zstd', ROW_GROUP_SIZE 2048"],
    ['dd-gzip', "CODEC 'gzip'"],
    ['dd-none', "CODEC 'uncompressed', ROW_GROUP_SIZE 700"],
    ['dd-v2', "CODEC 'snappy', PARQUET_VERSION V2, ROW_GROUP_SIZE 1500"],
    ['dd-v2-zstd', "CODEC 'zstd', PARQUET_VERSION V2"],
  ];
  for (const [name, opts] of outs) {
    const file = `${dir}/${name}.parquet`;
    await con.run(`COPY t TO '${file}' (FORMAT parquet, ${opts})`);
    const { rows } = await duckRows(con, file);
    let out;
    try {
      out = execFileSync(tool, ['cat', file], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      ok(false, `${name}: streamlab reads DuckDB's file`, String(e.stderr || e.message));
      continue;
    }
    const lines = out.split('\n');
    ok(lines[0] === 'schema: i INT, b BIGINT, d DOUBLE, flag BOOLEAN, s STRING, u STRING, ts TIMESTAMP, ' +
       'tstz TIMESTAMP, window STRUCT<start: TIMESTAMP, end: TIMESTAMP>, small INT, tiny INT, f DOUBLE, ' +
       'dec9 DOUBLE, dec18 DOUBLE, day DATE, bin BINARY, nothing STRING',
       `${name}: the schema from DuckDB's footer`, lines[0]);
    compare(`${name}: streamlab reads every row DuckDB wrote (${lines[1]})`, rows, readJsonl(lines.slice(2).join('\n')));
    const fz = execFileSync(tool, ['fuzz', file, '300'], { encoding: 'utf8' }).trim();
    ok(fz === 'ok', `${name}: 300 damaged copies never crash the reader, errors are one line`, fz);
  }
  const v2 = (await con.runAndReadAll(
    `SELECT string_agg(DISTINCT encodings, ',') FROM parquet_metadata('${dir}/dd-v2.parquet')`)).getRows();
  ok(/DELTA_BINARY_PACKED/.test(v2[0][0]) && /DELTA_LENGTH_BYTE_ARRAY/.test(v2[0][0]) &&
     /BYTE_STREAM_SPLIT/.test(v2[0][0]) && /RLE_DICTIONARY/.test(v2[0][0]),
     'dd-v2.parquet exercised the delta, byte-stream-split and dictionary decoders', String(v2[0][0]));
}

run(main);
