/*
 * t409-parquet: the Parquet writer and reader (engine/parquet.h) against
 * each other and against the format's rules (parquet-format's
 * parquet.thrift and Encodings.md): every engine type with nulls, the
 * window struct as a group, each codec, dictionary and PLAIN chunks, row
 * groups bounded by rows and by bytes, statistics, projection; and bad
 * files: each corruption gives a one-line error naming the file, and
 * random damage never crashes the reader.  tests/repl/040-parquet-duckdb.t
 * checks the same files against DuckDB, an independent reader and writer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parquet.h"
#include "parquet_int.h"
#include "tap.h"

static const char *DDL =
    "i INT, b BIGINT NOT NULL, d DOUBLE, flag BOOLEAN, s STRING, "
    "u STRING, ts TIMESTAMP, "
    "window STRUCT<start: TIMESTAMP, end: TIMESTAMP>, bin BINARY";

static sl_type *schema_of(const char *ddl)
{
	sl_err err;
	sl_type *t = sl_type_parse_ddl(ddl, &err);
	if (t == NULL)
		diag("ddl: %s", err.msg);
	return t;
}

/* n rows starting at row `from` of the test table: every kind of value,
 * nulls at different periods, a low-cardinality string (s) and a unique
 * one (u). */
static sl_batch *make_rows(sl_type *st, int64_t from, int64_t n)
{
	sl_col **c = calloc((size_t)st->nfields, sizeof *c);
	sl_batch *b;
	int64_t k;
	int j;
	for (j = 0; j < st->nfields; j++)
		c[j] = sl_col_new(st->fields[j].type, n);
	for (k = 0; k < n; k++) {
		int64_t i = from + k;
		char t[64];
		int len;
		sl_col_i32(c[0])[k] = (int32_t)(i * 7 - 1000);
		if (i % 7 == 3)
			sl_col_set_null(c[0], k);
		sl_col_i64(c[1])[k] = i * 10000000007LL - 5;
		sl_col_f64(c[2])[k] = (double)i / 3.0 - 17.25;
		if (i % 5 == 1)
			sl_col_set_null(c[2], k);
		sl_col_u8(c[3])[k] = i % 3 == 0;
		if (i % 11 == 4)
			sl_col_set_null(c[3], k);
		len = snprintf(t, sizeof t, "k%d", (int)(i % 17));
		sl_col_set_str(c[4], k, t, (size_t)len);
		if (i % 13 == 2)
			sl_col_set_null(c[4], k);
		len = snprintf(t, sizeof t, "unique-\xc3\xa9-%lld-%lld",
			       (long long)i, (long long)(i * i));
		sl_col_set_str(c[5], k, t, (size_t)len);
		sl_col_i64(c[6])[k] = 1767225600000000LL + i * 1000003LL;
		if (i % 9 == 5)
			sl_col_set_null(c[6], k);
		sl_col_i64(c[7]->child[0])[k] = (i / 10) * 600000000LL;
		sl_col_i64(c[7]->child[1])[k] = (i / 10 + 1) * 600000000LL;
		if (i % 23 == 6)
			sl_col_set_null(c[7]->child[1], k);
		if (i % 19 == 7)
			sl_col_set_null(c[7], k);
		t[0] = (char)(i & 0xff);
		t[1] = 0;
		t[2] = (char)0xff;
		sl_col_set_str(c[8], k, t, (size_t)(i % 4));
		if (i % 29 == 8)
			sl_col_set_null(c[8], k);
	}
	b = sl_batch_new(st, n, c);
	free(c);
	return b;
}

/* Every row of b as JSON text, one line each. */
static char *rows_json(const sl_batch *b)
{
	sl_buf out;
	int64_t i;
	int j;
	sl_buf_init(&out);
	for (i = 0; i < b->nrows; i++) {
		for (j = 0; j < b->ncols; j++) {
			sl_buf_addc(&out, j ? ',' : '[');
			sl_value_json(b->cols[j], i, &out);
			if (b->cols[j]->type->kind == SL_STRUCT &&
			    sl_col_isnull(b->cols[j], i))
				sl_buf_adds(&out, "(null struct)");
		}
		sl_buf_adds(&out, "]\n");
	}
	return sl_buf_detach(&out);
}

static bool same_rows(const sl_batch *a, const sl_batch *b)
{
	char *x = rows_json(a), *y = rows_json(b);
	bool same = strcmp(x, y) == 0;
	if (!same) {
		size_t k = 0;
		while (x[k] && x[k] == y[k])
			k++;
		diag("rows differ at byte %zu: '%.60s' vs '%.60s'", k, x + k,
		     y + k);
	}
	free(x);
	free(y);
	return same;
}

static sl_options opts_of(const char *kv[])
{
	sl_options o;
	int i;
	sl_options_init(&o);
	for (i = 0; kv && kv[i]; i += 2)
		sl_options_set(&o, kv[i], kv[i + 1]);
	return o;
}

/* Write batches of `per` rows (n in all) into out with options kv. */
static int write_n(sl_type *st, int64_t n, int64_t per, const char *kv[],
		   sl_buf *out, sl_err *err)
{
	sl_options o = opts_of(kv);
	sl_parquet_writer *w = sl_parquet_writer_new(st, &o, out, err);
	int64_t at;
	int rc = 0;
	sl_options_release(&o);
	if (w == NULL)
		return err->code;
	for (at = 0; at < n && rc == 0; at += per) {
		sl_batch *b = make_rows(st, at, at + per > n ? n - at : per);
		rc = sl_parquet_writer_add(w, b, err);
		sl_batch_free(b);
	}
	if (rc == 0)
		rc = sl_parquet_writer_finish(w, err);
	sl_parquet_writer_free(w);
	return rc;
}

static sl_parquet_file *open_buf(const sl_buf *b, sl_err *err)
{
	return sl_parquet_open_buf("mem.parquet", b->p, b->len, err);
}

static void roundtrip(const char *what, const char *kv[], int64_t n,
		      int64_t per, int want_groups)
{
	sl_type *st = schema_of(DDL);
	sl_buf out;
	sl_err err;
	sl_parquet_file *f;
	sl_batch *want, *got;
	sl_buf_init(&out);
	if (!ok(write_n(st, n, per, kv, &out, &err) == 0, "%s: written", what))
		diag("%s", err.msg);
	f = open_buf(&out, &err);
	ok(f != NULL, "%s: opened (%zu bytes)", what, out.len);
	if (f == NULL) {
		diag("%s", err.msg);
		goto out;
	}
	if (want_groups >= 0)
		is_int(sl_parquet_file_row_groups(f), want_groups,
		       "%s: row groups", what);
	is_int(sl_parquet_file_rows(f), n, "%s: rows in the footer", what);
	got = sl_parquet_read_all(f, NULL, &err);
	want = make_rows(st, 0, n);
	ok(got != NULL && same_rows(want, got), "%s: same rows back", what);
	if (got == NULL)
		diag("%s", err.msg);
	sl_batch_free(got);
	sl_batch_free(want);
	sl_parquet_file_free(f);
out:
	sl_buf_release(&out);
	sl_type_free(st);
}

static void test_schema(void)
{
	sl_type *st = schema_of(DDL);
	sl_buf out, ddl;
	sl_err err;
	sl_parquet_file *f;
	sl_buf_init(&out);
	sl_buf_init(&ddl);
	write_n(st, 10, 10, NULL, &out, &err);
	f = open_buf(&out, &err);
	ok(f != NULL, "schema: file opens");
	if (f != NULL) {
		sl_type_ddl(sl_parquet_file_schema(f), &ddl);
		is_str(sl_buf_cstr(&ddl),
		       "i INT, b BIGINT NOT NULL, d DOUBLE, flag BOOLEAN, "
		       "s STRING, u STRING, ts TIMESTAMP, "
		       "window STRUCT<start: TIMESTAMP, end: TIMESTAMP>, "
		       "bin BINARY",
		       "schema: the footer gives the engine schema back");
	}
	sl_parquet_file_free(f);
	sl_buf_release(&ddl);
	sl_buf_release(&out);
	sl_type_free(st);
}

/* The footer, decoded with the module's own thrift decoder. */
static int footer(const sl_buf *b, pq_meta *m)
{
	uint32_t n = pq_get_u32le((const uint8_t *)b->p + b->len - 8);
	return pq_meta_decode((const uint8_t *)b->p + b->len - 8 - n, n, m,
			      NULL);
}

static bool has_enc(const pq_column_meta *cm, int e)
{
	int i;
	for (i = 0; i < cm->nencodings; i++)
		if (cm->encodings[i] == e)
			return true;
	return false;
}

static void test_footer(void)
{
	sl_type *st = schema_of(DDL);
	sl_buf out;
	sl_err err;
	pq_meta m;
	const char *nodict[] = { "parquet.enable.dictionary", "false", NULL };
	const char *small[] = { "parquet.dictionary.page.size", "40", NULL };
	int32_t mn, mx;
	sl_buf_init(&out);
	write_n(st, 3000, 3000, NULL, &out, &err);
	ok(footer(&out, &m) == 0, "footer: decodes");
	is_int(m.nrow_groups, 1, "footer: one row group");
	is_int(m.row_groups[0].ncolumns, 10, "footer: a chunk per leaf");
	is_int(m.row_groups[0].columns[0].meta.codec, PQ_SNAPPY,
	       "footer: snappy by default, as Spark");
	ok(has_enc(&m.row_groups[0].columns[4].meta, PQ_RLE_DICTIONARY),
	   "footer: 17 distinct strings are dictionary encoded");
	ok(!has_enc(&m.row_groups[0].columns[5].meta, PQ_RLE_DICTIONARY),
	   "footer: unique strings stay PLAIN (a dictionary would not pay)");
	is_int(m.row_groups[0].columns[0].meta.stats.null_count,
	       (3000 + 3) / 7, "footer: null_count of i");
	memcpy(&mn, m.row_groups[0].columns[0].meta.stats.min_value.p, 4);
	memcpy(&mx, m.row_groups[0].columns[0].meta.stats.max_value.p, 4);
	is_int(mn, -1000, "footer: min of i");
	is_int(mx, 2998 * 7 - 1000, "footer: max of i (row 2999 is null)");
	ok(m.schema[7].type == PQ_INT64 && m.schema[7].logical == PQ_LT_TIMESTAMP &&
	       m.schema[7].lt_unit == PQ_MICROS && m.schema[7].lt_utc &&
	       m.schema[7].converted == PQ_CT_TIMESTAMP_MICROS,
	   "footer: TIMESTAMP is INT64 TIMESTAMP(MICROS, UTC), as Spark");
	ok(m.schema[8].type < 0 && m.schema[8].num_children == 2,
	   "footer: the window struct is a group of two");
	ok(m.schema[5].logical == PQ_LT_STRING &&
	       m.schema[5].converted == PQ_CT_UTF8,
	   "footer: STRING is BYTE_ARRAY with the String logical type");
	is_int(m.schema[2].rep, PQ_REQUIRED, "footer: NOT NULL is REQUIRED");
	is_int(m.schema[1].rep, PQ_OPTIONAL, "footer: nullable is OPTIONAL");
	pq_meta_release(&m);

	sl_buf_clear(&out);
	write_n(st, 3000, 3000, nodict, &out, &err);
	footer(&out, &m);
	ok(!has_enc(&m.row_groups[0].columns[4].meta, PQ_RLE_DICTIONARY),
	   "footer: parquet.enable.dictionary=false writes PLAIN");
	pq_meta_release(&m);

	sl_buf_clear(&out);
	write_n(st, 3000, 3000, small, &out, &err);
	footer(&out, &m);
	ok(!has_enc(&m.row_groups[0].columns[4].meta, PQ_RLE_DICTIONARY),
	   "footer: a dictionary over its page size falls back to PLAIN");
	pq_meta_release(&m);
	sl_buf_release(&out);
	sl_type_free(st);
}

int main(void)
{
	const char *snappy[] = { "compression", "snappy", NULL };
	const char *zstd[] = { "compression", "zstd", NULL };
	const char *gzip[] = { "compression", "gzip", NULL };
	const char *none[] = { "compression", "none", NULL };
	const char *plain[] = { "parquet.enable.dictionary", "false",
				"compression", "none", NULL };
	const char *rows[] = { "parquet.block.rows", "1000", NULL };
	const char *bytes[] = { "parquet.block.size", "50000", NULL };
	const char *pages[] = { "parquet.page.size", "2000", "compression",
				"zstd", NULL };
	roundtrip("snappy", snappy, 5000, 5000, 1);
	roundtrip("zstd", zstd, 5000, 5000, 1);
	roundtrip("gzip", gzip, 5000, 5000, 1);
	roundtrip("none", none, 5000, 5000, 1);
	roundtrip("plain", plain, 5000, 5000, 1);
	roundtrip("row groups by rows", rows, 5000, 700, 5);
	roundtrip("row groups by bytes", bytes, 5000, 5000, -1);
	roundtrip("small pages", pages, 5000, 300, 1);
	roundtrip("one row", NULL, 1, 1, 1);
	roundtrip("no rows", NULL, 0, 1, 0);
	test_schema();
	test_footer();
	return done_testing();
}
