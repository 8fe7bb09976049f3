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

#include "formats/parquet.h"
#include "formats/parquet_int.h"
#include "rows.h"
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
	is_int(m.row_groups[0].columns[0].meta.stats.null_count, (3000 + 3) / 7,
	       "footer: null_count of i");
	memcpy(&mn, m.row_groups[0].columns[0].meta.stats.min_value.p, 4);
	memcpy(&mx, m.row_groups[0].columns[0].meta.stats.max_value.p, 4);
	is_int(mn, -1000, "footer: min of i");
	is_int(mx, 2998 * 7 - 1000, "footer: max of i (row 2999 is null)");
	ok(m.schema[7].type == PQ_INT64 &&
	       m.schema[7].logical == PQ_LT_TIMESTAMP &&
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

/* ---- bad files ---- */

static sl_buf base;        /* a good file: 300 rows, no compression */
static sl_buf base_snappy; /* 3 row groups, snappy */

/* Read every row of data[0..len); the error message or "OK". */
static const char *try_read(const void *data, size_t len, sl_type *want)
{
	static char msg[SL_ERR_MSG];
	sl_err err;
	sl_parquet_file *f;
	sl_batch *b = NULL;
	sl_err_clear(&err);
	f = sl_parquet_open_buf("bad.parquet", data, len, &err);
	if (f != NULL)
		b = sl_parquet_read_all(f, want, &err);
	snprintf(msg, sizeof msg, "%s", b != NULL ? "OK" : err.msg);
	sl_batch_free(b);
	sl_parquet_file_free(f);
	return msg;
}

static void like(const char *got, const char *want, const char *what)
{
	if (!ok(strstr(got, want) != NULL && strstr(got, "'bad.parquet'") &&
		    strchr(got, '\n') == NULL,
		"%s", what))
		diag("got '%s', want it to contain '%s' and the file name", got,
		     want);
}

/* A copy of the base file to damage. */
static uint8_t *copy_base(void)
{
	uint8_t *p = malloc(base.len);
	memcpy(p, base.p, base.len);
	return p;
}

static const pq_column_meta *chunk_meta(pq_meta *m, int rg, int col)
{
	footer(&base, m);
	return &m->row_groups[rg].columns[col].meta;
}

/* Rewrite the page header at off with edit() applied; the new header must
 * keep its length. */
static bool edit_header(uint8_t *p, int64_t off, void (*edit)(pq_page_header *))
{
	pq_page_header h;
	size_t used;
	sl_buf nb;
	bool same;
	if (pq_page_header_decode(p + off, base.len - (size_t)off, &h, &used,
				  NULL) != 0)
		return false;
	edit(&h);
	sl_buf_init(&nb);
	pq_page_header_encode(&h, &nb);
	same = nb.len == used;
	if (same)
		memcpy(p + off, nb.p, nb.len);
	sl_buf_release(&nb);
	return same;
}

static void dict_one(pq_page_header *h)
{
	h->num_values = 1;
}

static void enc_gvi(pq_page_header *h)
{
	h->encoding = 1; /* GROUP_VAR_INT: never used by any writer */
}

static size_t header_len(const uint8_t *p, int64_t off)
{
	pq_page_header h;
	size_t used = 0;
	pq_page_header_decode(p + off, base.len - (size_t)off, &h, &used, NULL);
	return used;
}

static void test_bad_files(void)
{
	static const uint8_t many[] = { 'P',  'A',  'R',  '1',  0x15, 0x02,
					0x19, 0xfc, 0xff, 0xff, 0xff, 0xff,
					0x0f, 9,    0,    0,    0,    'P',
					'A',  'R',  '1' };
	uint8_t deep[4 + 40 + 8], *p;
	pq_meta m;
	const pq_column_meta *cm;
	uint32_t big = 0x7fffffff;
	int k;
	sl_type *only_i = schema_of("i INT");
	like(try_read(base.p, base.len - 10, NULL), "bad magic at the end",
	     "truncated file: bad magic at the end");
	p = copy_base();
	p[1] = 'X';
	like(try_read(p, base.len, NULL), "bad magic at the start",
	     "bad magic at the start");
	free(p);
	like(try_read("PAR1PAR1", 8, NULL), "too short",
	     "an 8-byte file is too short");
	p = copy_base();
	memcpy(p + base.len - 8, &big, 4);
	like(try_read(p, base.len, NULL), "footer length 2147483647 is past",
	     "footer length past the start of the file");
	free(p);
	like(try_read(many, sizeof many, NULL),
	     "list of 4294967295 schema elements is longer than the data",
	     "a list count of 2^32-1 is refused before allocating");
	memcpy(deep, "PAR1", 4);
	memset(deep + 4, 0xfc, 40); /* unknown struct field 15, 40 deep */
	pq_put_u32le(deep + 44, 40);
	memcpy(deep + 48, "PAR1", 4);
	like(try_read(deep, sizeof deep, NULL), "nest too deep",
	     "structs nested 40 deep hit the depth limit");

	/* column s (leaf 4) is dictionary encoded: claim 1 value in its
	 * dictionary, so the ids 1..16 of its data pages are out of range */
	p = copy_base();
	cm = chunk_meta(&m, 0, 4);
	ok(cm->dictionary_page_offset > 0 &&
	       edit_header(p, cm->dictionary_page_offset, dict_one),
	   "damage: dictionary of column s shrunk to 1 value");
	like(try_read(p, base.len, NULL),
	     "column 's': dictionary index 1 out of range (dictionary has 1 "
	     "values)",
	     "bad dictionary index");
	ok(strcmp(try_read(p, base.len, only_i), "OK") == 0,
	   "projection: reading only 'i' never touches column s");
	free(p);

	/* the bit width byte of s's first data page, after the levels */
	p = copy_base();
	{
		int64_t off = cm->data_page_offset;
		size_t at = (size_t)off + header_len(p, off);
		at += 4 + pq_get_u32le(p + at);
		p[at] = 40;
	}
	like(try_read(p, base.len, NULL), "column 's': bad bit width 40",
	     "bit width above 32");
	free(p);

	p = copy_base();
	cm = &m.row_groups[0].columns[0].meta;
	ok(edit_header(p, cm->data_page_offset, enc_gvi),
	   "damage: column i's page says GROUP_VAR_INT");
	like(try_read(p, base.len, NULL),
	     "unsupported encoding GROUP_VAR_INT in column 'i'",
	     "unsupported encoding named with its column");
	free(p);
	pq_meta_release(&m);

	/* snappy page bytes overwritten */
	footer(&base_snappy, &m);
	cm = &m.row_groups[1].columns[5].meta;
	p = malloc(base_snappy.len);
	memcpy(p, base_snappy.p, base_snappy.len);
	{
		int64_t off = cm->data_page_offset;
		size_t at = (size_t)off + header_len(p, off);
		memset(p + at, 0xfe, 16);
	}
	like(try_read(p, base_snappy.len, NULL),
	     "column 'u': corrupt snappy page", "corrupt snappy page");
	free(p);
	pq_meta_release(&m);

	/* random damage: flips and truncations never crash, and every
	 * failure is one line naming the file */
	srand(409);
	for (k = 0; k < 400; k++) {
		size_t len = base_snappy.len, j;
		const char *r;
		p = malloc(len);
		memcpy(p, base_snappy.p, len);
		if (k % 4 == 3) {
			len = (size_t)rand() % len;
		} else {
			int flips = 1 + rand() % 6;
			for (j = 0; j < (size_t)flips; j++)
				p[(size_t)rand() % len] = (uint8_t)rand();
		}
		r = try_read(p, len, NULL);
		free(p);
		if (strcmp(r, "OK") != 0 &&
		    (strncmp(r, "parquet: ", 9) != 0 || strchr(r, '\n'))) {
			ok(0, "random damage %d: '%s'", k, r);
			break;
		}
	}
	if (k == 400)
		ok(1, "400 randomly damaged files: no crash, one-line errors");
	sl_type_free(only_i);
}

static void test_projection(void)
{
	sl_type *st = schema_of(DDL);
	sl_type *want = schema_of("ts TIMESTAMP, missing STRING, I INT, "
				  "window STRUCT<start: TIMESTAMP, end: "
				  "TIMESTAMP>");
	sl_type *wrong = schema_of("i BIGINT");
	sl_err err;
	sl_parquet_file *f = open_buf(&base, &err);
	sl_batch *got = sl_parquet_read_all(f, want, &err), *all;
	sl_batch *src = make_rows(st, 0, 300);
	int64_t r;
	int bad = 0;
	ok(got != NULL && got->ncols == 4 && got->nrows == 300,
	   "projection: 4 columns in the order asked");
	for (r = 0; got != NULL && r < 300; r++) {
		bool n1 = sl_col_isnull(src->cols[6], r),
		     n2 = sl_col_isnull(got->cols[0], r);
		if (n1 != n2 || (!n1 && sl_col_i64(src->cols[6])[r] !=
					    sl_col_i64(got->cols[0])[r]))
			bad++;
		if (!sl_col_isnull(got->cols[1], r))
			bad++;
		if (sl_col_isnull(src->cols[0], r) !=
			sl_col_isnull(got->cols[2], r) ||
		    sl_col_i32(src->cols[0])[r] != sl_col_i32(got->cols[2])[r])
			bad++;
		if (sl_col_isnull(src->cols[7], r) !=
		    sl_col_isnull(got->cols[3], r))
			bad++;
	}
	is_int(bad, 0, "projection: values, nulls, a missing column as nulls");
	sl_batch_free(got);
	all = sl_parquet_read_row_group(f, 0, wrong, &err);
	ok(all == NULL && strstr(err.msg, "column 'i' cannot be converted: "
					  "expected BIGINT, found INT"),
	   "projection: a type the file does not have is refused");
	if (all == NULL)
		diag("%s", err.msg);
	sl_batch_free(all);
	sl_batch_free(src);
	sl_parquet_file_free(f);
	sl_type_free(want);
	sl_type_free(wrong);
	sl_type_free(st);
}

static void test_writer_errors(void)
{
	sl_type *arr = schema_of("a ARRAY<INT>"), *st = schema_of("a INT");
	sl_options o;
	sl_buf out;
	sl_err err;
	sl_parquet_writer *w;
	sl_buf_init(&out);
	w = sl_parquet_writer_new(arr, NULL, &out, &err);
	ok(w == NULL &&
	       strcmp(err.msg, "parquet: column 'a' of type "
			       "ARRAY<INT> cannot be written yet") == 0,
	   "writer: ARRAY columns are refused by name");
	sl_options_init(&o);
	sl_options_set(&o, "compression", "lz4");
	w = sl_parquet_writer_new(st, &o, &out, &err);
	ok(w == NULL && strstr(err.msg, "compression 'lz4' is not supported"),
	   "writer: an unknown codec is refused");
	sl_options_release(&o);
	sl_buf_release(&out);
	sl_type_free(arr);
	sl_type_free(st);
}

static void test_files(void)
{
	char dir[] = "/tmp/t409-XXXXXX", path[64];
	sl_type *st = schema_of(DDL);
	sl_batch *b, *got;
	sl_err err;
	sl_type *t;
	char *files[1];
	if (mkdtemp(dir) == NULL)
		return;
	snprintf(path, sizeof path, "%s/part-00000.parquet", dir);
	b = make_rows(st, 0, 100);
	ok(sl_parquet_write_file(path, b, NULL, &err) == 0,
	   "file: written atomically");
	ok(sl_parquet_write_file(path, b, NULL, &err) != 0 &&
	       strstr(err.msg, "exists"),
	   "file: an existing file is never replaced");
	got = sl_parquet_read_file(path, NULL, NULL, &err);
	ok(got != NULL && same_rows(b, got), "file: read back");
	sl_batch_free(got);
	{
		/* opened, then cut short by someone else: only the footer was
		 * read at open, the chunks are read later and found missing */
		sl_parquet_file *f = sl_parquet_open(path, &err);
		sl_batch *r = NULL;
		if (f != NULL && truncate(path, 2000) == 0)
			r = sl_parquet_read_all(f, NULL, &err);
		ok(f != NULL && r == NULL &&
		       strstr(err.msg, "is shorter than when it was opened"),
		   "file: truncated after opening: an error, not a crash");
		if (r == NULL)
			diag("%s", err.msg);
		sl_batch_free(r);
		sl_parquet_file_free(f);
		unlink(path);
		sl_parquet_write_file(path, b, NULL, &err);
	}
	files[0] = path;
	t = sl_parquet_infer(files, 1, NULL, &err);
	ok(t != NULL && sl_type_equal(t, st), "file: schema from the footer");
	sl_type_free(t);
	unlink(path);
	got = sl_parquet_read_file(path, NULL, NULL, &err);
	ok(got == NULL && strstr(err.msg, path), "file: a missing file named");
	rmdir(dir);
	sl_batch_free(b);
	sl_type_free(st);
}

static void to_plain_dictionary(pq_page_header *h)
{
	if (h->encoding == PQ_RLE_DICTIONARY || h->encoding == PQ_PLAIN)
		h->encoding = PQ_PLAIN_DICTIONARY;
}

/* parquet-mr's V1 writer (Spark's) marks dictionary pages and the pages
 * that use them PLAIN_DICTIONARY; the bytes are those of RLE_DICTIONARY. */
static void test_plain_dictionary(void)
{
	sl_type *st = schema_of(DDL);
	uint8_t *p = copy_base();
	pq_meta m;
	const pq_column_meta *cm = chunk_meta(&m, 0, 4);
	sl_err err;
	sl_parquet_file *f;
	sl_batch *got, *want = make_rows(st, 0, 300);
	ok(edit_header(p, cm->dictionary_page_offset, to_plain_dictionary) &&
	       edit_header(p, cm->data_page_offset, to_plain_dictionary),
	   "PLAIN_DICTIONARY: pages relabelled");
	f = sl_parquet_open_buf("pd.parquet", p, base.len, &err);
	got = f ? sl_parquet_read_all(f, NULL, &err) : NULL;
	ok(got != NULL && same_rows(want, got),
	   "PLAIN_DICTIONARY: same rows as RLE_DICTIONARY");
	if (got == NULL)
		diag("%s", err.msg);
	sl_batch_free(got);
	sl_batch_free(want);
	sl_parquet_file_free(f);
	pq_meta_release(&m);
	free(p);
	sl_type_free(st);
}

/* A one-column file made by hand around one uncompressed data page:
 * for page kinds our writer never makes.  leaf: the column's schema
 * element (REQUIRED, so the page has no levels).  Returns the rows as
 * batch_text gives them, or the error. */
static const char *handmade(pq_schema_el leaf, int enc, const uint8_t *body,
			    size_t nbody, int nvalues)
{
	static char text[8192];
	pq_schema_el els[2];
	pq_column_chunk cc;
	pq_row_group rg;
	pq_page_header h;
	pq_meta m;
	sl_buf out;
	sl_err err;
	size_t at;
	uint8_t tail[8];
	sl_parquet_file *f;
	sl_batch *b;
	memset(els, 0, sizeof els);
	els[0].type = -1;
	els[0].rep = -1;
	els[0].name = (pq_bytes){ (const uint8_t *)"schema", 6, true };
	els[0].num_children = 1;
	els[0].converted = PQ_CT_NONE;
	els[1] = leaf;
	sl_buf_init(&out);
	sl_buf_add(&out, "PAR1", 4);
	memset(&h, 0, sizeof h);
	h.type = PQ_DATA_PAGE;
	h.uncompressed_size = h.compressed_size = (int32_t)nbody;
	h.num_values = nvalues;
	h.encoding = enc;
	h.def_encoding = h.rep_encoding = PQ_RLE;
	pq_page_header_encode(&h, &out);
	sl_buf_add(&out, body, nbody);
	memset(&cc, 0, sizeof cc);
	cc.file_offset = 4;
	cc.has_meta = true;
	cc.meta.type = leaf.type;
	cc.meta.nencodings = 1;
	cc.meta.encodings[0] = enc;
	cc.meta.npath = 1;
	cc.meta.path[0] = leaf.name;
	cc.meta.num_values = nvalues;
	cc.meta.total_compressed_size = cc.meta.total_uncompressed_size =
	    (int64_t)out.len - 4;
	cc.meta.data_page_offset = 4;
	cc.meta.dictionary_page_offset = -1;
	memset(&rg, 0, sizeof rg);
	rg.ncolumns = 1;
	rg.columns = &cc;
	rg.num_rows = nvalues;
	memset(&m, 0, sizeof m);
	m.version = 1;
	m.nschema = 2;
	m.schema = els;
	m.num_rows = nvalues;
	m.nrow_groups = 1;
	m.row_groups = &rg;
	at = out.len;
	pq_meta_encode(&m, &out);
	pq_put_u32le(tail, (uint32_t)(out.len - at));
	memcpy(tail + 4, "PAR1", 4);
	sl_buf_add(&out, tail, 8);
	f = sl_parquet_open_buf("hand.parquet", out.p, out.len, &err);
	b = f ? sl_parquet_read_all(f, NULL, &err) : NULL;
	snprintf(text, sizeof text, "%s", b ? batch_text(b) : err.msg);
	sl_parquet_file_free(f);
	sl_buf_release(&out);
	return text;
}

static pq_schema_el leaf_el(const char *name, int type, int converted)
{
	pq_schema_el e;
	memset(&e, 0, sizeof e);
	e.type = type;
	e.rep = PQ_REQUIRED;
	e.name =
	    (pq_bytes){ (const uint8_t *)name, (uint32_t)strlen(name), true };
	e.num_children = -1;
	e.converted = converted;
	return e;
}

/* DELTA_BYTE_ARRAY (Encodings.md: prefix lengths and suffix lengths, each
 * DELTA_BINARY_PACKED, then the suffix bytes), which DuckDB does not
 * write.  Values: apple, apply (prefix 4 + "y"), banana. */
static void test_delta_byte_array(void)
{
	static const uint8_t body[] = {
		/* prefix lengths 0,4,0: block 128, 4 miniblocks, 3 values,
		 * first 0; min delta -4, widths 4,0,0,0; deltas 8,0 */
		0x80, 0x01, 0x04, 0x03, 0x00, 0x07, 0x04, 0, 0, 0, 0x08, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* suffix lengths 5,1,6: first 5; min -4; deltas 0,9 */
		0x80, 0x01, 0x04, 0x03, 0x0a, 0x07, 0x04, 0, 0, 0, 0x90, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'a', 'p', 'p', 'l', 'e',
		'y', 'b', 'a', 'n', 'a', 'n', 'a'
	};
	is_str(handmade(leaf_el("s", PQ_BYTE_ARRAY, PQ_CT_UTF8),
			PQ_DELTA_BYTE_ARRAY, body, sizeof body, 3),
	       "apple;apply;banana",
	       "DELTA_BYTE_ARRAY: prefixes and suffixes put together");
}

/* INT96, the timestamps Spark (spark.sql.parquet.outputTimestampType's
 * default) and Hive write: nanoseconds of the day, then the Julian day,
 * little-endian.  Julian day 2461042 is 2026-01-01. */
static void test_int96(void)
{
	uint8_t body[24];
	int64_t nanos[2] = { 1500000000LL, 86399999999000LL };
	uint32_t day[2] = { 2461042, 2440587 };
	int k;
	for (k = 0; k < 2; k++) {
		memcpy(body + 12 * k, &nanos[k], 8);
		pq_put_u32le(body + 12 * k + 8, day[k]);
	}
	is_str(handmade(leaf_el("ts", PQ_INT96, PQ_CT_NONE), PQ_PLAIN, body,
			sizeof body, 2),
	       "2026-01-01 00:00:01.5;1969-12-31 23:59:59.999999",
	       "INT96: Spark's legacy timestamps read as TIMESTAMP");
}

/* DECIMAL in a FIXED_LEN_BYTE_ARRAY (big-endian two's complement), as
 * Spark writes decimals: read as DOUBLE. */
static void test_flba_decimal(void)
{
	static const uint8_t body[] = { 0x00, 0x30, 0x39, 0xff, 0xcf, 0xc7 };
	pq_schema_el e = leaf_el("price", PQ_FLBA, PQ_CT_DECIMAL);
	e.type_length = 3;
	e.scale = 2;
	e.precision = 6;
	is_str(handmade(e, PQ_PLAIN, body, sizeof body, 2), "123.45;-123.45",
	       "FIXED_LEN_BYTE_ARRAY DECIMAL(6, 2) read as DOUBLE");
}

/* Structs inside structs: a definition level per optional level of the
 * path, a NULL at each level coming back at that level. */
static void test_nested(void)
{
	sl_type *st = schema_of("o STRUCT<a: STRUCT<b: INT, c: STRING>, "
				"d DOUBLE NOT NULL>, k INT NOT NULL");
	sl_col *c[2];
	sl_batch *b, *got = NULL;
	sl_buf out;
	sl_err err;
	sl_parquet_file *f;
	int64_t i, n = 50;
	c[0] = sl_col_new(st->fields[0].type, n);
	c[1] = sl_col_new(st->fields[1].type, n);
	for (i = 0; i < n; i++) {
		sl_col *a = c[0]->child[0];
		sl_col_i32(a->child[0])[i] = (int32_t)i;
		sl_col_set_str(a->child[1], i, "xyz", (size_t)(i % 4));
		sl_col_f64(c[0]->child[1])[i] = i * 0.5;
		sl_col_i32(c[1])[i] = (int32_t)(i * 3);
		if (i % 5 == 1)
			sl_col_set_null(c[0], i);
		if (i % 5 == 2)
			sl_col_set_null(a, i);
		if (i % 5 == 3)
			sl_col_set_null(a->child[0], i);
		if (i % 7 == 4)
			sl_col_set_null(a->child[1], i);
	}
	b = sl_batch_new(st, n, c);
	sl_buf_init(&out);
	ok(sl_parquet_write_buf(b, NULL, &out, &err) == 0, "nested: written");
	f = open_buf(&out, &err);
	if (f != NULL)
		got = sl_parquet_read_all(f, NULL, &err);
	ok(got != NULL && same_rows(b, got) &&
	       sl_type_equal(sl_parquet_file_schema(f), st),
	   "nested: struct in struct, NULL at every level, back as written");
	for (i = 0; got != NULL && i < n; i++)
		if (sl_col_isnull(got->cols[0]->child[0], i) !=
		    (i % 5 == 1 || i % 5 == 2))
			break;
	ok(got != NULL && i == n, "nested: the inner struct's NULLs");
	sl_batch_free(got);
	sl_parquet_file_free(f);
	sl_batch_free(b);
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
	test_nested();
	test_footer();
	{
		sl_type *st = schema_of(DDL);
		sl_err err;
		const char *kv[] = { "parquet.block.rows", "100", NULL };
		sl_buf_init(&base);
		sl_buf_init(&base_snappy);
		write_n(st, 300, 300, none, &base, &err);
		write_n(st, 300, 300, kv, &base_snappy, &err);
		sl_type_free(st);
	}
	test_bad_files();
	test_projection();
	test_plain_dictionary();
	test_delta_byte_array();
	test_int96();
	test_flba_decimal();
	test_writer_errors();
	test_files();
	sl_buf_release(&base);
	sl_buf_release(&base_snappy);
	return done_testing();
}
