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

#include "fileformat.h"
#include "tap.h"

static const char *const modes[] = {"PERMISSIVE", "DROPMALFORMED", "FAILFAST"};

static sl_batch *rd(const char *text, size_t len, const char *ddl,
		    const char *mode, bool fast, sl_err *err)
{
	sl_options o;
	sl_type *t = sl_type_parse_ddl(ddl, err);
	sl_batch *b;
	if (t == NULL)
		return NULL;
	sl_options_init(&o);
	sl_options_set(&o, "mode", mode);
	if (!fast)
		sl_options_set(&o, "fastPath", "false");
	b = sl_format_read_buf("json", "data/f.json", text, len, t, &o, err);
	sl_options_release(&o);
	sl_type_free(t);
	return b;
}

/* Column equality, down into structs and arrays; why says where not. */
static bool col_eq(const sl_col *a, const sl_col *b, int64_t n, char *why,
		   size_t wn)
{
	int64_t i;
	int w = sl_type_width(a->type);
	for (i = 0; i < n; i++) {
		bool na = sl_col_isnull(a, i), nb = sl_col_isnull(b, i);
		if (na != nb) {
			snprintf(why, wn, "row %lld: null %d vs %d", (long long)i,
				 na, nb);
			return false;
		}
		if (na)
			continue;
		switch (a->type->kind) {
		case SL_STRING:
		case SL_BINARY: {
			sl_str x = sl_col_str(a)[i], y = sl_col_str(b)[i];
			if (x.len != y.len || memcmp(x.p, y.p, x.len) != 0) {
				snprintf(why, wn, "row %lld: '%.*s' vs '%.*s'",
					 (long long)i, (int)x.len, x.p, (int)y.len,
					 y.p);
				return false;
			}
			break;
		}
		case SL_STRUCT:
		case SL_ARRAY:
		case SL_NULLTYPE:
			break;
		default:
			if (memcmp((const char *)a->data + i * w,
				   (const char *)b->data + i * w, (size_t)w) != 0) {
				snprintf(why, wn, "row %lld: value bits differ",
					 (long long)i);
				return false;
			}
		}
	}
	if (a->type->kind == SL_STRUCT)
		for (int k = 0; k < a->nchild; k++)
			if (!col_eq(a->child[k], b->child[k], n, why, wn))
				return false;
	if (a->type->kind == SL_ARRAY) {
		if (memcmp(a->offsets, b->offsets, (size_t)(n + 1) * 4) != 0) {
			snprintf(why, wn, "array offsets differ");
			return false;
		}
		return col_eq(a->child[0], b->child[0], a->offsets[n], why, wn);
	}
	return true;
}

/* Read text both ways in mode; true if the results are identical. */
static bool same(const char *text, size_t len, const char *ddl,
		 const char *mode, char *why, size_t wn)
{
	sl_err e1, e2;
	sl_batch *a, *b;
	bool eq = true;
	sl_err_clear(&e1);
	sl_err_clear(&e2);
	a = rd(text, len, ddl, mode, true, &e1);
	b = rd(text, len, ddl, mode, false, &e2);
	why[0] = '\0';
	if ((a == NULL) != (b == NULL) || strcmp(e1.msg, e2.msg) != 0) {
		snprintf(why, wn, "fast: %.200s / general: %.200s",
			 a ? "ok" : e1.msg, b ? "ok" : e2.msg);
		eq = false;
	} else if (a != NULL && a->nrows != b->nrows) {
		snprintf(why, wn, "rows %lld vs %lld", (long long)a->nrows,
			 (long long)b->nrows);
		eq = false;
	} else if (a != NULL) {
		for (int k = 0; k < a->ncols && eq; k++) {
			eq = col_eq(a->cols[k], b->cols[k], a->nrows, why, wn);
			if (!eq) {
				size_t u = strlen(why);
				snprintf(why + u, wn - u, " (column %s)",
					 a->schema->fields[k].name);
			}
		}
	}
	sl_batch_free(a);
	sl_batch_free(b);
	return eq;
}

static void both(const char *text, const char *ddl, const char *name)
{
	char why[512];
	for (int m = 0; m < 3; m++)
		if (!ok(same(text, strlen(text), ddl, modes[m], why, sizeof why),
			"%s (%s)", name, modes[m]))
			printf("#   %s\n", why);
}

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

/* One record: a few pieces in random order, sometimes with spaces. */
static void gen_line(sl_buf *out)
{
	int n = 1 + (int)rnd(7);
	sl_buf_addc(out, '{');
	for (int k = 0; k < n; k++) {
		if (k > 0)
			sl_buf_adds(out, rnd(10) == 0 ? ", " : ",");
		sl_buf_adds(out, pieces[rnd(sizeof pieces / sizeof pieces[0])]);
	}
	sl_buf_adds(out, "}");
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
	default:
		sl_buf_add(b, b->p + at, b->len - at > 6 ? 6 : b->len - at);
		break;
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

int main(void)
{
	test_cases();
	test_values();
	test_differential();
	return done_testing();
}
