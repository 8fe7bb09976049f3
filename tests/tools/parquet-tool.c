/*
 * parquet-tool: streamlab's Parquet writer and reader from the command
 * line, for tests/repl/040-parquet-duckdb.t, which holds their output
 * against DuckDB's.
 *
 *   parquet-tool write DIR   writes DIR/sl-<variant>.parquet (codecs,
 *                            dictionary on and off, row groups) from one
 *                            generated table, and DIR/expected.jsonl
 *   parquet-tool cat FILE    prints "schema: <DDL>" and the rows
 *   parquet-tool fuzz FILE N reads N damaged copies of FILE (bytes
 *                            changed, or cut short); prints "ok" when every
 *                            read either worked or failed with a one-line
 *                            "parquet: " error, else the first bad one
 *
 * Rows are JSON arrays in a canonical form both sides can produce: INT a
 * number, BIGINT and TIMESTAMP (microseconds) strings (JSON numbers lose
 * 64-bit precision), DOUBLE a number, BINARY upper-case hex, a STRUCT its
 * "is null" flag followed by its fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet.h"

static void value(const sl_col *c, int64_t i, bool null, sl_buf *out)
{
	int k;
	null = null || sl_col_isnull(c, i);
	if (c->type->kind == SL_STRUCT) {
		sl_buf_adds(out, null ? "true" : "false");
		for (k = 0; k < c->nchild; k++) {
			sl_buf_addc(out, ',');
			value(c->child[k], i, null, out);
		}
		return;
	}
	if (null) {
		sl_buf_adds(out, "null");
		return;
	}
	switch (c->type->kind) {
	case SL_INT: sl_buf_printf(out, "%d", sl_col_i32(c)[i]); break;
	case SL_BIGINT:
	case SL_TIMESTAMP:
		sl_buf_printf(out, "\"%lld\"", (long long)sl_col_i64(c)[i]);
		break;
	case SL_DATE: /* as the microseconds of its midnight, DuckDB's canon */
		sl_buf_printf(out, "\"%lld\"",
			      (long long)sl_col_i32(c)[i] * 86400000000LL);
		break;
	case SL_DOUBLE: sl_buf_printf(out, "%.17g", sl_col_f64(c)[i]); break;
	case SL_BOOLEAN:
		sl_buf_adds(out, sl_col_u8(c)[i] ? "true" : "false");
		break;
	case SL_STRING:
		sl_buf_json_str(out, sl_col_str(c)[i].p, sl_col_str(c)[i].len);
		break;
	case SL_BINARY: {
		sl_str s = sl_col_str(c)[i];
		uint32_t j;
		sl_buf_addc(out, '"');
		for (j = 0; j < s.len; j++)
			sl_buf_printf(out, "%02X", (uint8_t)s.p[j]);
		sl_buf_addc(out, '"');
		break;
	}
	default: sl_buf_adds(out, "\"?\"");
	}
}

static void rows(const sl_batch *b, FILE *fp)
{
	sl_buf out;
	int64_t i;
	int j;
	sl_buf_init(&out);
	for (i = 0; i < b->nrows; i++) {
		sl_buf_clear(&out);
		for (j = 0; j < b->ncols; j++) {
			sl_buf_addc(&out, j ? ',' : '[');
			value(b->cols[j], i, false, &out);
		}
		sl_buf_adds(&out, "]\n");
		fputs(sl_buf_cstr(&out), fp);
	}
	sl_buf_release(&out);
}

static sl_batch *table(sl_type *st, int64_t n)
{
	sl_col *c[9];
	int64_t i;
	int j;
	for (j = 0; j < 9; j++)
		c[j] = sl_col_new(st->fields[j].type, n);
	for (i = 0; i < n; i++) {
		char t[64];
		int len;
		sl_col_i32(c[0])[i] = (int32_t)(i * 7 - 1000);
		if (i % 7 == 3)
			sl_col_set_null(c[0], i);
		sl_col_i64(c[1])[i] = i * 10000000007LL - 5;
		sl_col_f64(c[2])[i] = (double)i / 3.0 - 17.25;
		if (i % 5 == 1)
			sl_col_set_null(c[2], i);
		sl_col_u8(c[3])[i] = i % 3 == 0;
		if (i % 11 == 4)
			sl_col_set_null(c[3], i);
		len = snprintf(t, sizeof t, "k%d", (int)(i % 17));
		sl_col_set_str(c[4], i, t, (size_t)len);
		if (i % 13 == 2)
			sl_col_set_null(c[4], i);
		len =
		    snprintf(t, sizeof t, "unique-\xc3\xa9-%lld", (long long)i);
		sl_col_set_str(c[5], i, t, (size_t)len);
		sl_col_i64(c[6])[i] = 1767225600000000LL + i * 1000003LL;
		if (i % 9 == 5)
			sl_col_set_null(c[6], i);
		sl_col_i64(c[7]->child[0])[i] = (i / 10) * 600000000LL;
		sl_col_i64(c[7]->child[1])[i] = (i / 10 + 1) * 600000000LL;
		if (i % 23 == 6)
			sl_col_set_null(c[7]->child[1], i);
		if (i % 19 == 7)
			sl_col_set_null(c[7], i);
		t[0] = (char)(i & 0xff);
		t[1] = 0;
		t[2] = (char)0xff;
		sl_col_set_str(c[8], i, t, (size_t)(i % 4));
		if (i % 29 == 8)
			sl_col_set_null(c[8], i);
	}
	return sl_batch_new(st, n, c);
}

static const char *const variants[][7] = {
	{ "sl-snappy", NULL },
	{ "sl-zstd-groups", "compression", "zstd", "parquet.block.rows", "700",
	  NULL },
	{ "sl-gzip-pages", "compression", "gzip", "parquet.page.size", "3000",
	  NULL },
	{ "sl-none-plain", "compression", "none", "parquet.enable.dictionary",
	  "false", NULL },
};

static int write_all(const char *dir)
{
	sl_err err;
	sl_type *st = sl_type_parse_ddl(
	    "i INT, b BIGINT, d DOUBLE, flag BOOLEAN, s STRING, u STRING, "
	    "ts TIMESTAMP, window STRUCT<start: TIMESTAMP, end: TIMESTAMP>, "
	    "bin BINARY",
	    &err);
	sl_batch *b = table(st, 5000);
	char path[4096];
	size_t v;
	FILE *fp;
	for (v = 0; v < sizeof variants / sizeof variants[0]; v++) {
		sl_options o;
		int k;
		sl_options_init(&o);
		for (k = 1; variants[v][k]; k += 2)
			sl_options_set(&o, variants[v][k], variants[v][k + 1]);
		snprintf(path, sizeof path, "%s/%s.parquet", dir,
			 variants[v][0]);
		if (sl_parquet_write_file(path, b, &o, &err) != 0) {
			fprintf(stderr, "parquet-tool: %s\n", err.msg);
			return 1;
		}
		sl_options_release(&o);
	}
	snprintf(path, sizeof path, "%s/expected.jsonl", dir);
	fp = fopen(path, "w");
	if (fp == NULL)
		return 1;
	rows(b, fp);
	fclose(fp);
	sl_batch_free(b);
	sl_type_free(st);
	return 0;
}

static int cat(const char *file)
{
	sl_err err;
	sl_parquet_file *f = sl_parquet_open(file, &err);
	sl_batch *b;
	sl_buf ddl;
	if (f == NULL) {
		fprintf(stderr, "parquet-tool: %s\n", err.msg);
		return 1;
	}
	b = sl_parquet_read_all(f, NULL, &err);
	if (b == NULL) {
		fprintf(stderr, "parquet-tool: %s\n", err.msg);
		sl_parquet_file_free(f);
		return 1;
	}
	sl_buf_init(&ddl);
	sl_type_ddl(sl_parquet_file_schema(f), &ddl);
	printf("schema: %s\n", sl_buf_cstr(&ddl));
	printf("row groups: %d\n", sl_parquet_file_row_groups(f));
	rows(b, stdout);
	sl_buf_release(&ddl);
	sl_batch_free(b);
	sl_parquet_file_free(f);
	return 0;
}

static int fuzz(const char *file, int n)
{
	sl_err err;
	char *data = NULL;
	size_t len = 0, cap = 0, got;
	FILE *fp = fopen(file, "rb");
	int k, bad = 0;
	if (fp == NULL)
		return 1;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			data = realloc(data, cap);
		}
		got = fread(data + len, 1, cap - len, fp);
		len += got;
	} while (got > 0);
	fclose(fp);
	srand(15);
	for (k = 0; k < n && !bad; k++) {
		char *p = malloc(len);
		size_t l = len;
		int j;
		sl_parquet_file *f;
		sl_batch *b = NULL;
		memcpy(p, data, len);
		if (k % 5 == 4) {
			l = (size_t)rand() % len;
		} else {
			for (j = 0; j < 1 + rand() % 8; j++)
				p[(size_t)rand() % len] = (char)rand();
		}
		f = sl_parquet_open_buf("fuzz.parquet", p, l, &err);
		if (f != NULL)
			b = sl_parquet_read_all(f, NULL, &err);
		if (b == NULL && (strncmp(err.msg, "parquet: ", 9) != 0 ||
				  strchr(err.msg, '\n') != NULL)) {
			printf("damaged copy %d: '%s'\n", k, err.msg);
			bad = 1;
		}
		sl_batch_free(b);
		sl_parquet_file_free(f);
		free(p);
	}
	free(data);
	if (!bad)
		printf("ok\n");
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "fuzz") == 0)
		return fuzz(argv[2], atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "write") == 0)
		return write_all(argv[2]);
	if (argc == 3 && strcmp(argv[1], "cat") == 0)
		return cat(argv[2]);
	fprintf(stderr,
		"usage: parquet-tool write DIR | cat FILE | fuzz FILE N\n");
	return 2;
}
