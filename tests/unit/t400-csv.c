/*
 * t400-csv: the CSV reader (quoting, header, options, modes), inference and
 * the writer.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/fileformat.h"
#include "tap.h"

static char out[8192];

static const char *dump(const sl_batch *b)
{
	sl_buf s;
	int64_t i;
	int k;
	sl_buf_init(&s);
	for (i = 0; i < b->nrows; i++) {
		for (k = 0; k < b->ncols; k++) {
			if (k)
				sl_buf_addc(&s, '|');
			sl_value_show(b->cols[k], i, &s);
		}
		sl_buf_addc(&s, ';');
	}
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&s));
	sl_buf_release(&s);
	return out;
}

/* opts: "k=v,k=v" */
static void set_opts(sl_options *o, const char *kv)
{
	char buf[256], *save = NULL, *tok;
	sl_options_init(o);
	if (kv == NULL)
		return;
	snprintf(buf, sizeof buf, "%s", kv);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		*eq = '\0';
		sl_options_set(o, tok, eq + 1);
	}
}

static const char *rd(const char *text, const char *ddl, const char *kv)
{
	sl_options o;
	sl_err err;
	sl_type *t = sl_type_parse_ddl(ddl, NULL);
	sl_batch *b;
	set_opts(&o, kv);
	sl_err_clear(&err);
	b = sl_format_read_buf("csv", "data/a.csv", text, strlen(text), t, &o, &err);
	if (b == NULL)
		snprintf(out, sizeof out, "ERR %s", err.msg);
	else
		dump(b);
	sl_batch_free(b);
	sl_type_free(t);
	sl_options_release(&o);
	return out;
}

static void test_read(void)
{
	is_str(rd("p1,12,1.5\np2,-3,2e2\n", "id STRING, n INT, d DOUBLE", NULL),
	       "p1|12|1.5;p2|-3|200.0;", "plain");
	is_str(rd("\"a,b\",\"say \"\"hi\"\"\",\"x\\\"y\"\n", "a STRING, b STRING, c STRING", NULL),
	       "a,b|say \"hi\"|x\"y;", "quotes: separator, doubled, escaped");
	is_str(rd("\"line1\nline2\",2\nz,3\n", "a STRING, b INT", NULL),
	       "line1\nline2|2;z|3;", "newline inside quotes");
	is_str(rd("a,1\r\nb,2\r\n", "a STRING, b INT", NULL), "a|1;b|2;",
	       "trailing \\r stripped");
	is_str(rd("a,,\"\"\n", "a STRING, b STRING, c STRING", NULL),
	       "a|null|null;", "empty fields are null (nullValue \"\")");
	is_str(rd("a,NA\n", "a STRING, b INT", "nullValue=NA"), "a|null;",
	       "nullValue option");
	is_str(rd("h1,h2\nx,1\n\ny,2", "a STRING, b INT", "header=true"),
	       "x|1;y|2;", "header skipped, blank line skipped, no final newline");
	is_str(rd("x;1\n#c\ny;2\n", "a STRING, b INT", "sep=;,comment=#"),
	       "x|1;y|2;", "sep and comment");
	is_str(rd("x\t1\n", "a STRING, b INT", "delimiter=\\t"), "x|1;",
	       "delimiter tab");
	is_str(rd("true,2026-01-01 12:00:00,9000000000\nFALSE,2026-01-01T12:00:00.500Z,1\n",
		  "b BOOLEAN, t TIMESTAMP, l BIGINT", NULL),
	       "true|2026-01-01 12:00:00|9000000000;false|2026-01-01 12:00:00.5|1;",
	       "boolean, timestamp, bigint");
}

static void test_modes(void)
{
	const char *data = "a,1\nb,abc\nc\nd,4,extra\ne,5\n";
	is_str(rd(data, "s STRING, n INT", NULL),
	       "a|1;b|null;c|null;d|4;e|5;",
	       "PERMISSIVE: bad and missing fields null, extra ignored");
	is_str(rd(data, "s STRING, n INT, _corrupt_record STRING", NULL),
	       "a|1|null;b|null|b,abc;c|null|c;d|4|d,4,extra;e|5|null;",
	       "PERMISSIVE fills _corrupt_record");
	is_str(rd(data, "s STRING, n INT", "mode=DROPMALFORMED"), "a|1;e|5;",
	       "DROPMALFORMED");
	is_str(rd(data, "s STRING, amount INT", "mode=FAILFAST"),
	       "ERR csv: malformed record at data/a.csv:2: field 'amount': "
	       "cannot parse 'abc' as INT", "FAILFAST message");
	is_str(rd("a,1\n\"x\ny\",2\nc\n", "s STRING, n INT", "mode=failfast"),
	       "ERR csv: malformed record at data/a.csv:4: expected 2 fields, got 1",
	       "FAILFAST token count, line after a multi-line record");
	is_str(rd(data, "s STRING, n INT", "mode=nope"),
	       "ERR option 'mode': expected 'PERMISSIVE', 'DROPMALFORMED' or "
	       "'FAILFAST', got 'nope'", "bad mode");
	is_str(rd("x\n", "s STRUCT<a: INT>", NULL),
	       "ERR [UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The CSV datasource "
	       "doesn't support the column `s` of the type \"STRUCT<a: INT>\".",
	       "struct column refused");
}

static const char *infer(const char *text, const char *kv)
{
	sl_options o;
	sl_csv_infer *ci;
	sl_type *t;
	sl_buf s;
	set_opts(&o, kv);
	ci = sl_csv_infer_new(&o, NULL);
	sl_csv_infer_add(ci, "f", text, strlen(text), NULL);
	t = sl_csv_infer_finish(ci, NULL);
	sl_buf_init(&s);
	sl_type_ddl(t, &s);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&s));
	sl_buf_release(&s);
	sl_type_free(t);
	sl_options_release(&o);
	return out;
}

static void test_infer(void)
{
	is_str(infer("1,x\n2,y\n", NULL), "_c0 STRING, _c1 STRING", "no header");
	is_str(infer("id,name\n1,x\n", "header=true"), "id STRING, name STRING",
	       "header names");
	is_str(infer("a,b,a,\n1,2,3,4\n", "header=true"),
	       "a0 STRING, b STRING, a2 STRING, _c3 STRING",
	       "duplicate and empty header names");
	is_str(infer("A,b,a,B,c\n1,2,3,4,5\n", "header=true"),
	       "A0 STRING, b1 STRING, a2 STRING, B3 STRING, c STRING",
	       "duplicates are case insensitive, as makeSafeHeader");
	{
		/* issue 16 finding 9: 100,000 columns, half of them repeated,
		 * once ran for minutes in a pairwise de-duplication */
		sl_buf h;
		sl_csv_infer *ci;
		sl_options o;
		sl_type *t;
		clock_t t0 = clock();
		sl_buf_init(&h);
		for (int k = 0; k < 100000; k++)
			sl_buf_printf(&h, "%sc%d", k ? "," : "", k % 50000);
		sl_buf_adds(&h, "\n");
		sl_options_init(&o);
		sl_options_set(&o, "header", "true");
		ci = sl_csv_infer_new(&o, NULL);
		sl_csv_infer_add(ci, "f", h.p, h.len, NULL);
		t = sl_csv_infer_finish(ci, NULL);
		ok(t != NULL && t->nfields == 100000 &&
			   strcmp(t->fields[0].name, "c00") == 0 &&
			   strcmp(t->fields[99999].name, "c4999999999") == 0,
		   "a 100,000 column header: every name made unique");
		ok((double)(clock() - t0) / CLOCKS_PER_SEC < 10,
		   "and in n log n, not n^2");
		sl_type_free(t);
		sl_options_release(&o);
		sl_buf_release(&h);
	}
	is_str(infer("i,l,d,b,t,s,n,m\n"
		     "1,1,1,true,2026-01-01 12:00:00,x,,1\n"
		     "2,9000000000,1.5,False,2026-01-02T00:00:00Z,1,,true\n",
		     "header=true,inferSchema=true"),
	       "i INT, l BIGINT, d DOUBLE, b BOOLEAN, t TIMESTAMP, s STRING, "
	       "n STRING, m STRING", "inferSchema: narrowest type per column");
}

static void test_write(void)
{
	sl_type *t = sl_type_parse_ddl("s STRING, n INT, t TIMESTAMP, d DOUBLE", NULL);
	const char *src = "\"a,b\",1,2026-01-01 12:00:00,0.5\n\"q\"\"x\",,,\n"
			  "\"multi\nline\",3,,-1.0E10\n";
	sl_options o;
	sl_batch *b = sl_format_read_buf("csv", "x", src, strlen(src), t, NULL, NULL);
	sl_batch *b2;
	sl_buf s;
	char first[8192];
	set_opts(&o, "header=true");
	sl_buf_init(&s);
	is_int(sl_csv_write(b, &o, &s, NULL), 0, "write csv");
	is_str(sl_buf_cstr(&s),
	       "s,n,t,d\n\"a,b\",1,2026-01-01T12:00:00.000Z,0.5\n\"q\\\"x\",,,\n"
	       "\"multi\nline\",3,,-1.0E10\n",
	       "header, quoting, escaped quote, nulls empty, ISO timestamps");
	snprintf(first, sizeof first, "%s", dump(b));
	b2 = sl_format_read_buf("csv", "y", s.p, s.len, t, &o, NULL);
	is_str(dump(b2), first, "round trip");
	sl_batch_free(b);
	sl_batch_free(b2);
	sl_buf_release(&s);
	sl_options_release(&o);
	sl_type_free(t);
}

int main(void)
{
	test_read();
	test_modes();
	test_infer();
	test_write();
	return done_testing();
}
