/*
 * t406-json-fast: the JSON-lines reader's fast path (jsonscan.c) must give
 * exactly what the general parser gives.  Every case is read twice, with
 * the fast path (the default) and with option fastPath=false (general
 * parser only), in the three modes, and the batches are compared value by
 * value (null bits, raw bits of numbers, string bytes) along with the
 * error messages.  A differential test then does the same over thousands
 * of generated and mutated lines, where lines the fast path takes and
 * lines it hands over alternate within one buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "tap.h"

#define FP_FORMAT "json"
#define FP_FILE	  "data/f.json"
static void fp_options(sl_options *o)
{
	(void)o;
}
#include "fastpath.h"

#define W2 "ts TIMESTAMP, product_id STRING, amount INT"
#define ALL "ts TIMESTAMP, s STRING, i INT, l BIGINT, d DOUBLE, b BOOLEAN, " \
	    "_corrupt_record STRING"

static void test_cases(void)
{
	both("{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p17\",\"amount\":12}\n"
	     "{\"ts\":\"2026-01-01 12:00:04\",\"product_id\":\"p18\",\"amount\":13}\n",
	     W2, "plain lines");
	both("{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p\\\"1\",\"amount\":1}\n"
	     "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p\\u00e9\\ud83d\\ude00\",\"amount\":2}\n"
	     "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"\\n\\t\\/\",\"amount\":3}\n",
	     W2, "escapes and unicode escapes");
	both("{\"amount\":1,\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"a\"}\n"
	     "{\"product_id\":\"b\",\"amount\":2,\"ts\":\"2026-01-02 00:00:00\"}\n"
	     "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"c\",\"amount\":3}\n",
	     W2, "out-of-order fields");
	both("{\"ts\":\"2026-01-01 12:00:03\"}\n{\"amount\":7}\n{}\n"
	     "{\"product_id\":null,\"amount\":null,\"ts\":null}\n",
	     W2, "missing fields and nulls");
	both("{\"ts\":\"2026-01-01 12:00:03\",\"x\":{\"a\":[1,2,{\"b\":3}]},"
	     "\"product_id\":\"p\",\"amount\":1,\"y\":\"z\"}\n",
	     W2, "unknown fields, nested");
	both("{\"amount\":1,\"amount\":2}\n{\"amount\":3,\"amount\":null}\n"
	     "{\"product_id\":\"a\",\"product_id\":\"b\"}\n",
	     W2, "duplicate keys");
	both("{\"i\":1e2}\n{\"d\":1e2}\n{\"d\":1.5E-3}\n{\"d\":-0.0}\n{\"d\":-0}\n"
	     "{\"d\":0.1}\n{\"d\":123456789012345678}\n{\"d\":1234567890.12345678}\n"
	     "{\"d\":9007199254740993.5}\n{\"d\":NaN}\n{\"d\":\"-Infinity\"}\n"
	     "{\"l\":9223372036854775807}\n{\"l\":-9223372036854775808}\n"
	     "{\"l\":9223372036854775808}\n{\"i\":2147483648}\n{\"i\":-2147483648}\n"
	     "{\"i\":012}\n{\"i\":-}\n{\"i\":1.}\n{\"i\":+1}\n",
	     ALL, "numbers: exponents, limits, overflow, malformed");
	both("{ \"s\" : \"a\" , \"i\" : 1 }\n{\"s\":\"a\",\t\"i\":1}\n"
	     "  {\"s\":\"b\"}\n{\"s\":\"c\"}   \n{\"s\":\"d\"}\r\n{\"s\":\"e\"}\t\n"
	     "\n\n{\"s\":\"f\"} trailing\n",
	     ALL, "whitespace");
	both("{\"s\":\"a\"\n{\"s\":}\n{\"s\":\"a\",}\n{\"s\":\"a\" \"i\":1}\n"
	     "[1,2]\n{\"s\":\"a\"}}\n{\"s\":'q'}\n{'s':\"q\"}\n{\"b\":tru}\n"
	     "{\"b\":true}\n{\"b\":falsey}\n{\"i\":\"1\"}\n{\"s\":1}\n{\"s\":[1, 2]}\n"
	     "{\"ts\":\"2026-02-30 00:00:00\"}\n{\"ts\":\"2026-01-01 24:00:00\"}\n"
	     "{\"ts\":\"2026-01-01T01:02:03\"}\n{\"ts\":\"2026-01-01 01:02:03.5\"}\n"
	     "{\"ts\":1700000000}\n{\"ts\":\"2026-01-01\"}\n{\"s\":\"x\x01y\"}\n",
	     ALL, "malformed lines and wrong types");
	both("{\"ts\":\"2026-01-01 12:00:03\"}\n{\"ts\":\"2026-01-01 12:00:0a\"}\n"
	     "{\"ts\":\"2026-01-01 12:0a:00\"}\n{\"ts\":\"2026-01-01 1a:00:00\"}\n"
	     "{\"ts\":\"2026-01-01 12:00:60\"}\n{\"ts\":\"2026-01-01 12:60:00\"}\n"
	     "{\"ts\":\"2026-01-01 12-00:00\"}\n{\"ts\":\"2026-01-01x12:00:00\"}\n"
	     "{\"ts\":\"2026-01-01 12:00:00Z\"}\n{\"ts\":\"2026-01-02 00:00:01\"}\n"
	     "{\"ts\":\"2026-01-01 12:00:0\\\"\"}\n{\"ts\":\"2026-01-01 12:00\\\"0\"}\n",
	     ALL, "timestamps next to the cached date");
	both("{\"_corrupt_record\":\"x\",\"s\":\"a\"}\n{\"s\":\"b\"}\n{\"s\":\n",
	     ALL, "a key naming the corrupt-record column");
	both("{\"a\":{\"x\":1},\"b\":[1,2],\"c\":3}\n{\"c\":4}\n{\"a\":null,\"c\":5}\n"
	     "{\"b\":null,\"c\":6}\n{\"c\":7,\"a\":{\"x\":2}}\n",
	     "a STRUCT<x: INT>, b ARRAY<INT>, c INT", "struct and array columns");
	both("{\"s\":\"no newline at the end\"}", ALL, "last line without newline");
	both("{\"s\":\"abcdefghijklmnopqrstuvwxyz0123456789\",\"i\":1}\n"
	     "{\"s\":\"abcdefg\\\"hijklmnop\",\"i\":2}\n",
	     ALL, "long strings, escape after 8 bytes");
	both("{\"a_rather_long_field_name_here\":1,\"b\":2}\n"
	     "{\"a_rather_long_field_name_herf\":1,\"b\":3}\n",
	     "a_rather_long_field_name_here INT, b INT", "long key names");
}

/* ---- differential test over generated and mutated lines ---- */

static uint64_t rng = 88172645463325252u;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static const char *const pieces[] = {
	"\"ts\":\"2026-01-01 12:00:03\"", "\"ts\":\"2026-03-04 23:59:59\"",
	"\"ts\":null", "\"s\":\"p17\"", "\"s\":\"\"", "\"s\":\"a\\\"b\"",
	"\"s\":\"\\u0041\"", "\"s\":null", "\"i\":12", "\"i\":-7", "\"i\":0",
	"\"i\":2147483647", "\"i\":99999999999", "\"l\":-123456789012",
	"\"l\":123456789012345678", "\"l\":1234567890123456789",
	"\"d\":1.25", "\"d\":-0.5", "\"d\":3", "\"d\":1e3", "\"d\":0.1234567",
	"\"b\":true", "\"b\":false", "\"b\":null", "\"x\":[1,{\"y\":2}]",
	"\"z\":\"unknown\"",
};

/* Values at the edges: timestamps in and out of the fixed layouts (leap
 * days, Feb 30, offsets, fractions past six digits, 24:00), numbers at
 * the limits of each type, raw and escaped UTF-8, keys in any order. */
static const char *const edges[] = {
	"\"ts\":\"2024-02-29 00:00:00\"", "\"ts\":\"2023-02-29 00:00:00\"",
	"\"ts\":\"2026-02-30T10:00:00\"", "\"ts\":\"2000-02-29T23:59:59.999999Z\"",
	"\"ts\":\"1900-02-29 12:00:00\"", "\"ts\":\"2026-01-01T00:00:00+01:00\"",
	"\"ts\":\"2026-01-01T00:00:00-02:30\"", "\"ts\":\"2026-01-01 00:00:00.1234567\"",
	"\"ts\":\"2026-01-01 00:00:00.123+05:45\"", "\"ts\":\"2026-01-01 00:00:00.\"",
	"\"ts\":\"2026-01-01 24:00:00\"", "\"ts\":\"2026-12-31 23:59:60\"",
	"\"ts\":\"2026-01-01T00:00:00+0100\"", "\"ts\":\"2026-01-01T00:00:00z\"",
	"\"ts\":\"2026-1-01 00:00:00\"", "\"ts\":\" 2026-01-01 00:00:00\"",
	"\"ts\":\"2026-01-01 00:00\"", "\"ts\":\"2026-01-01\"",
	"\"ts\":\"12026-01-01 00:00:00\"", "\"ts\":\"2026-01-01 00:00:00+01:00:00\"",
	"\"ts\":\"2026-01-01T00:00:00\\u002b01:00\"", "\"ts\":\"1969-12-31 23:59:59.5\"",
	"\"s\":\"caf\xc3\xa9\"", "\"s\":\"\xf0\x9f\x98\x80\"", "\"s\":\"\\u00e9\"",
	"\"s\":\"\\ud83d\\ude00\"", "\"s\":\"\xe2\x82\xac 1\"", "\"s\":\"a\\/b\"",
	"\"i\":2147483647", "\"i\":-2147483648", "\"i\":2147483648",
	"\"i\":-2147483649", "\"i\":-0", "\"i\":01", "\"i\":1.0", "\"i\":-",
	"\"l\":9223372036854775807", "\"l\":-9223372036854775808",
	"\"l\":9223372036854775808", "\"l\":999999999999999999",
	"\"l\":1000000000000000000", "\"l\":-999999999999999999",
	"\"d\":1e308", "\"d\":1e309", "\"d\":4.9e-324", "\"d\":-0.0",
	"\"d\":0.1", "\"d\":123456789012345678", "\"d\":1234567890123456789",
	"\"d\":9007199254740993", "\"d\":0.30000000000000004", "\"d\":1.",
	"\"b\":true", "\"b\":false", "\"b\":TRUE",
};

/* One record: a few pieces of p[0..np) in random order, sometimes with
 * spaces. */
static void gen_from(sl_buf *out, const char *const *p, unsigned np)
{
	int n = 1 + (int)rnd(7);
	sl_buf_addc(out, '{');
	for (int k = 0; k < n; k++) {
		if (k > 0)
			sl_buf_adds(out, rnd(10) == 0 ? ", " : ",");
		sl_buf_adds(out, p[rnd(np)]);
	}
	sl_buf_adds(out, "}");
}

static void gen_line(sl_buf *out)
{
	gen_from(out, pieces, sizeof pieces / sizeof pieces[0]);
}

/* Damage the line in [start, len): flip, delete, insert or duplicate. */
static void mutate(sl_buf *b, size_t start)
{
	static const char ins[] = "\"\\{}[],: \t0-.eE\x01nul";
	size_t n = b->len - start, at;
	if (n == 0)
		return;
	at = start + rnd((unsigned)n);
	switch (rnd(4)) {
	case 0:
		b->p[at] = ins[rnd(sizeof ins - 1)];
		break;
	case 1:
		memmove(b->p + at, b->p + at + 1, b->len - at - 1);
		b->len--;
		break;
	case 2:
		sl_buf_addc(b, ' ');
		memmove(b->p + at + 1, b->p + at, b->len - at - 1);
		b->p[at] = ins[rnd(sizeof ins - 1)];
		break;
	default: { /* repeat up to 6 bytes: room first, the source is b */
		size_t k = b->len - at > 6 ? 6 : b->len - at;
		if (sl_buf_reserve(b, k)) {
			memcpy(b->p + b->len, b->p + at, k);
			b->len += k;
			b->p[b->len] = '\0';
		}
		break;
	}
	}
}

static void test_differential(void)
{
	char why[512];
	int bad[3] = {0, 0, 0}, round;
	for (round = 0; round < 60; round++) {
		sl_buf b;
		sl_buf_init(&b);
		for (int k = 0; k < 200; k++) {
			size_t start = b.len;
			gen_line(&b);
			if (rnd(8) == 0)
				mutate(&b, start);
			sl_buf_addc(&b, '\n');
		}
		for (int m = 0; m < 3; m++)
			if (!same(b.p, b.len, ALL, modes[m], why, sizeof why) &&
			    bad[m]++ == 0)
				printf("#   round %d %s: %s\n", round, modes[m], why);
		sl_buf_release(&b);
	}
	for (int m = 0; m < 3; m++)
		is_int(bad[m], 0, "differential, %s: 60 buffers of 200 lines",
		       modes[m]);
}

/* The edge values, alone and mixed with the common ones: one buffer
 * mostly of plain lines (the fast path's run) with edges among them. */
static void test_edges(void)
{
	char why[512];
	int bad[3] = { 0, 0, 0 }, round;
	for (round = 0; round < 60; round++) {
		sl_buf b;
		sl_buf_init(&b);
		for (int k = 0; k < 200; k++) {
			size_t start = b.len;
			if (rnd(3) == 0)
				gen_line(&b);
			else
				gen_from(&b, edges,
					 sizeof edges / sizeof edges[0]);
			if (rnd(10) == 0)
				mutate(&b, start);
			sl_buf_addc(&b, '\n');
		}
		for (int m = 0; m < 3; m++)
			if (!same(b.p, b.len, ALL, modes[m], why, sizeof why) &&
			    bad[m]++ == 0)
				printf("#   round %d %s: %s\n", round, modes[m], why);
		sl_buf_release(&b);
	}
	for (int m = 0; m < 3; m++)
		is_int(bad[m], 0, "differential, edge values, %s: 60 x 200 lines",
		       modes[m]);
}

/* Values per key for lines of one shape (the fast path's template). */
static const char *const shaped[][6] = {
	{ "\"ts\":\"2026-01-01 12:00:03\"", "\"ts\":\"2026-01-01 12:00:04\"",
	  "\"ts\":\"2026-01-01 12:00:0\"", "\"ts\":null",
	  "\"ts\":\"2026-01-01T12:00:03\"", "\"ts\":\"2026-01-01 12:00:03.5\"" },
	{ "\"s\":\"p17\"", "\"s\":\"p1\"", "\"s\":\"a\\\"b\"", "\"s\":null",
	  "\"s\":12", "\"s\":\"\"" },
	{ "\"i\":12", "\"i\":-7", "\"i\":2147483648", "\"i\":null",
	  "\"i\":1.5", "\"i\":\"3\"" },
	{ "\"b\":true", "\"b\":false", "\"b\":null", "\"b\":tru",
	  "\"b\":true", "\"b\":false" },
};

/* One record of the round's shape (keys in order), sometimes not: a key
 * left out or repeated, spaces, or the keys swapped. */
static void gen_shaped(sl_buf *out)
{
	int n = 4, order[5] = { 0, 1, 2, 3, 0 }, r = (int)rnd(24);
	if (r == 0)
		n = 3;
	else if (r == 1)
		n = 5;
	else if (r == 2) {
		order[1] = 2;
		order[2] = 1;
	}
	sl_buf_addc(out, '{');
	for (int k = 0; k < n; k++) {
		if (k > 0)
			sl_buf_adds(out, r == 3 ? ", " : ",");
		sl_buf_adds(out, shaped[order[k]][rnd(rnd(2) ? 2 : 6)]);
	}
	sl_buf_adds(out, r == 4 ? "} \r" : "}");
}

static void test_shaped(void)
{
	char why[512];
	int bad[3] = {0, 0, 0}, round;
	for (round = 0; round < 60; round++) {
		sl_buf b;
		sl_buf_init(&b);
		for (int k = 0; k < 300; k++) {
			size_t start = b.len;
			gen_shaped(&b);
			if (rnd(16) == 0)
				mutate(&b, start);
			sl_buf_addc(&b, '\n');
		}
		for (int m = 0; m < 3; m++)
			if (!same(b.p, b.len, ALL, modes[m], why, sizeof why) &&
			    bad[m]++ == 0)
				printf("#   round %d %s: %s\n", round, modes[m], why);
		sl_buf_release(&b);
	}
	for (int m = 0; m < 3; m++)
		is_int(bad[m], 0, "differential, one shape, %s: 60 x 300 lines",
		       modes[m]);
}

/* The template's inline values (jsonscan.c tpl_value: integers parsed
 * as scanned with no check of the byte after them, the last timestamp
 * text, plain strings) and its line end without a call, on a schema with
 * no corrupt-record column: lines of one shape, integers at the edges
 * (leading zeros, -0, fractions, exponents, signs alone, 18 to 20
 * digits, the int32 limits), and text after the '}'. */
static void test_template_values(void)
{
	static const char *const ints[] = {
		"12", "0", "-0", "01", "-01", "00", "1.5", "0.5", "1e3", "0e1",
		"-", "2147483647", "2147483648", "-2147483648", "-2147483649",
		"999999999999999999", "1000000000000000000",
		"-9223372036854775808", "9223372036854775808", "1E2", "12 ",
		"null", "nul", "\"3\"", "+1", "--1", "7}x", "[1]",
	};
	static const char *const tail[] = { "}", "}", "}", "} ", "}\r", "}x",
					    "},", "}}" };
	char why[512];
	int bad[3] = { 0, 0, 0 };
	for (int round = 0; round < 40; round++) {
		sl_buf b;
		sl_buf_init(&b);
		for (int k = 0; k < 300; k++) {
			bool odd = rnd(6) == 0;
			sl_buf_printf(&b,
				      "{\"ts\":\"2026-01-01 12:00:0%u\","
				      "\"s\":\"p%u\",\"i\":%s,\"l\":%s%s\n",
				      rnd(3), rnd(100),
				      odd ? ints[rnd(sizeof ints / sizeof *ints)]
					  : "42",
				      rnd(6) == 0
					  ? ints[rnd(sizeof ints / sizeof *ints)]
					  : "-123456789012",
				      rnd(10) == 0
					  ? tail[rnd(sizeof tail / sizeof *tail)]
					  : "}");
		}
		for (int m = 0; m < 3; m++)
			if (!same(b.p, b.len,
				  "ts TIMESTAMP, s STRING, i INT, l BIGINT",
				  modes[m], why, sizeof why) &&
			    bad[m]++ == 0)
				printf("#   round %d %s: %s\n", round, modes[m],
				       why);
		sl_buf_release(&b);
	}
	for (int m = 0; m < 3; m++)
		is_int(bad[m], 0,
		       "template values, no corrupt column, %s: 40 x 300 lines",
		       modes[m]);
}

/* The fast path's answers are right, not only the same as the other's. */
static void test_values(void)
{
	const char *text =
		"{\"ts\":\"2026-01-01 12:00:03\",\"s\":\"p17\",\"i\":-12,"
		"\"l\":123456789012,\"d\":0.1,\"b\":true}\n"
		"{\"ts\":\"2026-01-01 12:00:04\",\"s\":\"p18\",\"i\":5,"
		"\"l\":-1,\"d\":-2.5,\"b\":false}\n";
	sl_err err;
	sl_batch *b = rd(text, strlen(text), ALL, "PERMISSIVE", true, &err);
	ok(b != NULL && b->nrows == 2, "two rows");
	if (b == NULL)
		return;
	is_int(sl_col_i64(b->cols[0])[1], 1767268804000000LL, "timestamp us");
	ok(sl_col_str(b->cols[1])[0].len == 3 &&
	   memcmp(sl_col_str(b->cols[1])[0].p, "p17", 3) == 0, "string");
	is_int(sl_col_i32(b->cols[2])[0], -12, "int");
	is_int(sl_col_i64(b->cols[3])[0], 123456789012LL, "bigint");
	ok(sl_col_f64(b->cols[4])[0] == 0.1 && sl_col_f64(b->cols[4])[1] == -2.5,
	   "doubles");
	ok(sl_col_u8(b->cols[5])[0] == 1 && sl_col_u8(b->cols[5])[1] == 0,
	   "booleans");
	ok(sl_col_isnull(b->cols[6], 0) && sl_col_isnull(b->cols[6], 1),
	   "corrupt record null on good lines");
	sl_batch_free(b);
}

/* The reader sizes its columns from the first 64 KiB and grows them when
 * the rest has shorter lines: long lines first, then many short ones, some
 * malformed, some with nested values, across both paths. */
static void test_grow(void)
{
	const char *ddl = "s STRING, i INT, a ARRAY<INT>, st STRUCT<x: INT>, "
			  "_corrupt_record STRING";
	char why[512], line[160];
	sl_buf b;
	sl_err err;
	sl_batch *r;
	int64_t n = 0;
	sl_buf_init(&b);
	for (int k = 0; k < 100; k++, n++) {
		sl_buf_add(&b, "{\"s\":\"", 6);
		for (int j = 0; j < 700; j++)
			sl_buf_addc(&b, 'x');
		snprintf(line, sizeof line, "\",\"i\":%d}\n", k);
		sl_buf_add(&b, line, strlen(line));
	}
	for (int k = 0; k < 30000; k++, n++) {
		if (k % 7 == 3)
			snprintf(line, sizeof line, "{bad %d\n", k);
		else if (k % 11 == 5)
			snprintf(line, sizeof line,
				 "{\"i\":%d,\"a\":[1,%d],\"st\":{\"x\":%d}}\n",
				 k, k, k);
		else
			snprintf(line, sizeof line, "{\"i\":%d}\n", k);
		sl_buf_add(&b, line, strlen(line));
	}
	for (int m = 0; m < 3; m++)
		if (!ok(same(b.p, b.len, ddl, modes[m], why, sizeof why),
			"grown columns, both paths (%s)", modes[m]))
			printf("#   %s\n", why);
	r = rd(b.p, b.len, ddl, "PERMISSIVE", true, &err);
	ok(r != NULL && r->nrows == n, "grown columns: every row");
	if (r != NULL && r->nrows == n) {
		int64_t last = n - 1, bad = 100 + 7 * 4000 + 3,
			nest = 100 + 11 * 2000 + 5;
		const sl_col *st = r->cols[3];
		is_int(sl_col_i32(r->cols[1])[last], 29999, "last row's int");
		ok(sl_col_str(r->cols[0])[99].len == 700 &&
		   sl_col_isnull(r->cols[0], last), "long string, then nulls");
		ok(sl_col_isnull(r->cols[1], bad) &&
		   sl_col_str(r->cols[4])[bad].len == 10 &&
		   memcmp(sl_col_str(r->cols[4])[bad].p, "{bad 28003", 10) == 0,
		   "malformed line past the guess: null, corrupt record kept");
		ok(!sl_col_isnull(st, nest) &&
		   sl_col_i32(st->child[0])[nest] == 22005 &&
		   r->cols[2]->offsets[nest + 1] - r->cols[2]->offsets[nest] == 2,
		   "nested values past the guess");
		ok(sl_col_isnull(st, last) && sl_col_isnull(r->cols[2], last),
		   "missing nested values are null");
	}
	sl_batch_free(r);
	sl_buf_release(&b);
}

/* The shape (jsonscan.c shape_run: W2's schema, no corrupt-record
 * column, every field a timestamp, string or integer) hands each line it
 * does not fit to the template and the general parser.  Each deviant
 * line sits after a run of shape lines and again after a new timestamp
 * text; the result must be the general parser's (three modes) and, in
 * PERMISSIVE, the values written here (NULL: a null string). */
#define TS3 1767268803000000LL /* 2026-01-01 12:00:03 */
#define NUL_I INT64_MIN
static const struct {
	const char *line, *what;
	bool check; /* check the values below (else differential only) */
	int64_t ts;
	const char *pid;
	int64_t amount;
} deviants[] = {
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p\\\"1\",\"amount\":1}",
	  "escape", true, TS3, "p\"1", 1 },
	{ "{\"product_id\":\"p1\",\"ts\":\"2026-01-01 12:00:03\",\"amount\":1}",
	  "reordered keys", true, TS3, "p1", 1 },
	{ "{\"ts\": \"2026-01-01 12:00:03\" , \"product_id\":\"p1\",\"amount\":1}",
	  "spaces", true, TS3, "p1", 1 },
	{ "{\t\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":1}",
	  "a tab", true, TS3, "p1", 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":1} ",
	  "a space after the '}'", true, TS3, "p1", 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":1}\r",
	  "CRLF", true, TS3, "p1", 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"amount\":1}", "missing key", true,
	  TS3, NULL, 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\"}",
	  "missing last key", true, TS3, "p1", NUL_I },
	{ "{\"ts\":null,\"product_id\":\"p1\",\"amount\":1}", "null timestamp",
	  true, -1, "p1", 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":null,\"amount\":1}",
	  "null string", true, TS3, NULL, 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":null}",
	  "null integer", true, TS3, "p1", NUL_I },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":\"3\"}",
	  "wrong type: a string for an INT", true, TS3, "p1", NUL_I },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":1.5}",
	  "wrong type: a fraction for an INT", false, 0, NULL, 0 },
	{ "{\"ts\":12,\"product_id\":\"p1\",\"amount\":1}",
	  "wrong type: a number for a TIMESTAMP", false, 0, NULL, 0 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":12,\"amount\":1}",
	  "a number for a STRING (its text)", true, TS3, "12", 1 },
	{ "{\"ts\":\"2026-01-02 00:00:00\",\"product_id\":\"p1\",\"amount\":1}",
	  "another date", true, 1767312000000000LL, "p1", 1 },
	{ "{\"ts\":\"2026-01-01T12:00:03\",\"product_id\":\"p1\",\"amount\":1}",
	  "a 'T' timestamp", true, TS3, "p1", 1 },
	{ "{\"ts\":\"2026-01-01 25:00:00\",\"product_id\":\"p1\",\"amount\":1}",
	  "a bad hour", false, 0, NULL, 0 },
	{ "{\"ts\":\"2026-01-01 12:00:03.5\",\"product_id\":\"p1\",\"amount\":1}",
	  "a fraction of a second", true, TS3 + 500000, "p1", 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":2147483648}",
	  "INT overflow", false, 0, NULL, 0 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":-2147483648}",
	  "INT minimum", true, TS3, "p1", INT32_MIN },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":012}",
	  "a leading zero", false, 0, NULL, 0 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":-0}",
	  "-0", true, TS3, "p1", 0 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":1,\"x\":[1]}",
	  "an unknown key", true, TS3, "p1", 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":1,\"amount\":2}",
	  "a duplicate key", true, TS3, "p1", 2 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"\",\"amount\":1}",
	  "an empty string", true, TS3, "", 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"abcdefghijklmnopqrst\\\\uvw\",\"amount\":1}",
	  "an escape after 20 bytes", true, TS3, "abcdefghijklmnopqrst\\uvw", 1 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p\x01\",\"amount\":1}",
	  "a control byte", false, 0, NULL, 0 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":1}x",
	  "text after the '}'", false, 0, NULL, 0 },
	{ "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p1\",\"amount\":1",
	  "no '}'", false, 0, NULL, 0 },
};

static void shape_text(sl_buf *b, const char *dev)
{
	for (int k = 0; k < 6; k++)
		sl_buf_printf(b, "{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":"
				 "\"p%d\",\"amount\":%d}\n", k, k * 7);
	sl_buf_printf(b, "%s\n", dev);
	for (int k = 0; k < 3; k++)
		sl_buf_printf(b, "{\"ts\":\"2026-01-01 12:00:04\",\"product_id\":"
				 "\"q%d\",\"amount\":-%d}\n", k, k);
	sl_buf_printf(b, "%s\n", dev);
	sl_buf_adds(b, "{\"ts\":\"2026-01-01 12:00:04\",\"product_id\":\"r\","
		       "\"amount\":9}\n");
}

static bool row_is(const sl_batch *b, int64_t i, int64_t ts, const char *pid,
		   int64_t amount)
{
	const sl_str *s = &sl_col_str(b->cols[1])[i];
	if (ts < 0 ? !sl_col_isnull(b->cols[0], i)
		   : sl_col_isnull(b->cols[0], i) ||
			 sl_col_i64(b->cols[0])[i] != ts)
		return false;
	if (pid == NULL ? !sl_col_isnull(b->cols[1], i)
			: sl_col_isnull(b->cols[1], i) ||
			      s->len != strlen(pid) ||
			      memcmp(s->p, pid, s->len) != 0)
		return false;
	return amount == NUL_I ? sl_col_isnull(b->cols[2], i)
			       : !sl_col_isnull(b->cols[2], i) &&
				     sl_col_i32(b->cols[2])[i] == amount;
}

static void test_shape_fallbacks(void)
{
	char why[512];
	for (size_t d = 0; d < sizeof deviants / sizeof *deviants; d++) {
		sl_buf b;
		sl_err err;
		sl_batch *r;
		bool good;
		sl_buf_init(&b);
		shape_text(&b, deviants[d].line);
		for (int m = 0; m < 3; m++)
			if (!ok(same(b.p, b.len, W2, modes[m], why, sizeof why),
				"shape, then %s (%s)", deviants[d].what,
				modes[m]))
				printf("#   %s\n", why);
		sl_err_clear(&err);
		r = rd(b.p, b.len, W2, "PERMISSIVE", true, &err);
		good = r != NULL && r->nrows == 12 &&
		       row_is(r, 5, TS3, "p5", 35) &&
		       row_is(r, 9, TS3 + 1000000, "q2", -2) &&
		       row_is(r, 11, TS3 + 1000000, "r", 9);
		if (good && deviants[d].check)
			good = row_is(r, 6, deviants[d].ts, deviants[d].pid,
				      deviants[d].amount) &&
			       row_is(r, 10, deviants[d].ts, deviants[d].pid,
				      deviants[d].amount);
		ok(good, "shape, then %s: the values", deviants[d].what);
		sl_batch_free(r);
		sl_buf_release(&b);
	}
}

/* The shape's variants (jsonscan.c shape_lines, specialised on the kinds
 * of its first three separators; the rest, and shapes of one or two, by
 * kind at run time): every order of timestamp, string, INT and BIGINT
 * fields over the first three, with and without further fields, and
 * shapes of one and two fields, each over lines of its shape with values
 * of every kind there (mostly the common ones) and a few mutated lines,
 * read both ways in the three modes. */
static const char *const kind_ddl[] = { "TIMESTAMP", "STRING", "INT",
					"BIGINT" };

static void shape_value(sl_buf *b, int kind)
{
	static const char *const odd[] = { "null", "\"x\"", "1.5", "-0", "012",
					   "2147483648", "\"a\\\"b\"", "true",
					   "\"2026-01-01T12:00:03\"", "" };
	if (rnd(12) == 0) {
		sl_buf_adds(b, odd[rnd(sizeof odd / sizeof *odd)]);
		return;
	}
	switch (kind) {
	case 0:
		sl_buf_printf(b, "\"2026-01-0%u 12:00:0%u\"", 1 + rnd(2),
			      rnd(3));
		break;
	case 1: sl_buf_printf(b, "\"p%u\"", rnd(rnd(2) ? 10 : 100000)); break;
	case 2: sl_buf_printf(b, "%d", (int)rnd(2000) - 1000); break;
	default:
		sl_buf_printf(b, "%lld", (long long)rnd(1000000) * 1000003 -
					     500000000000LL);
		break;
	}
}

static void test_shape_variants(void)
{
	char why[512], ddl[256];
	int bad[3] = { 0, 0, 0 }, schemas = 0;
	for (int c = 0; c < 27 * 3 + 6; c++) {
		int kinds[5], nf;
		sl_buf b;
		if (c < 81) { /* a prefix of three; 3, 4 or 5 fields */
			nf = 3 + c / 27;
			kinds[0] = c % 3;
			kinds[1] = c / 3 % 3;
			kinds[2] = c / 9 % 3;
			for (int k = 0; k < 3; k++)
				if (kinds[k] == 2 && rnd(2))
					kinds[k] = 3; /* BIGINT */
			for (int k = 3; k < nf; k++)
				kinds[k] = (int)rnd(4);
		} else { /* one or two fields */
			nf = 1 + (c - 81) % 2;
			for (int k = 0; k < nf; k++)
				kinds[k] = (int)rnd(4);
		}
		ddl[0] = '\0';
		for (int k = 0; k < nf; k++)
			snprintf(ddl + strlen(ddl), sizeof ddl - strlen(ddl),
				 "%sf%d %s", k ? ", " : "", k,
				 kind_ddl[kinds[k]]);
		sl_buf_init(&b);
		for (int r = 0; r < 300; r++) {
			size_t start = b.len;
			sl_buf_addc(&b, '{');
			for (int k = 0; k < nf; k++) {
				sl_buf_printf(&b, "%s\"f%d\":", k ? "," : "", k);
				shape_value(&b, kinds[k]);
			}
			sl_buf_addc(&b, '}');
			if (rnd(20) == 0)
				mutate(&b, start);
			sl_buf_addc(&b, '\n');
		}
		for (int m = 0; m < 3; m++)
			if (!same(b.p, b.len, ddl, modes[m], why, sizeof why) &&
			    bad[m]++ == 0)
				printf("#   %s, %s: %s\n", ddl, modes[m], why);
		sl_buf_release(&b);
		schemas++;
	}
	for (int m = 0; m < 3; m++)
		is_int(bad[m], 0,
		       "shape variants, %d schemas x 300 lines, %s: as the "
		       "general parser",
		       schemas, modes[m]);
}

int main(void)
{
	test_cases();
	test_values();
	test_grow();
	test_differential();
	test_edges();
	test_shaped();
	test_template_values();
	test_shape_fallbacks();
	test_shape_variants();
	return done_testing();
}
