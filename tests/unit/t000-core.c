/* t000-core: types, DDL, columns, batches, show(), timestamps, durations. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "tap.h"
#include "core/timeutil.h"
#include "core/type.h"
#include "core/utf8.h"
#include "formats/badrec.h"

static const char *ddl_of(const char *src)
{
	static char out[1024];
	sl_err err;
	sl_type *t = sl_type_parse_ddl(src, &err);
	sl_buf b;
	if (t == NULL) {
		snprintf(out, sizeof out, "error: %s", err.msg);
		return out;
	}
	sl_buf_init(&b);
	sl_type_ddl(t, &b);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	sl_type_free(t);
	return out;
}

static const char *dbl(double d)
{
	static char out[64];
	sl_buf b;
	sl_buf_init(&b);
	sl_fmt_double(d, &b);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	return out;
}

static void test_ddl(void)
{
	is_str(ddl_of("a INT, b STRING"), "a INT, b STRING", "ddl simple");
	is_str(ddl_of("a long,b  double, c timestamp"),
	       "a BIGINT, b DOUBLE, c TIMESTAMP", "ddl aliases");
	is_str(ddl_of("`my col` int not null"), "my col INT NOT NULL",
	       "ddl backquotes + not null");
	is_str(ddl_of("s STRUCT<x: INT, y STRING>, arr ARRAY<STRING>"),
	       "s STRUCT<x: INT, y: STRING>, arr ARRAY<STRING>", "ddl nested");
	is_str(ddl_of("a INT, b STRNG"),
	       "error: schema: unknown type 'STRNG' at col 10", "ddl bad type");
	is_str(ddl_of("a INT b STRING"), "error: schema: expected ',' at col 7",
	       "ddl missing comma");
}

static void test_tree(void)
{
	sl_type *t = sl_type_parse_ddl("a INT, w STRUCT<start: TIMESTAMP>", NULL);
	sl_buf b;
	sl_buf_init(&b);
	sl_type_tree(t, &b);
	is_str(sl_buf_cstr(&b),
	       "root\n |-- a: integer (nullable = true)\n"
	       " |-- w: struct (nullable = true)\n"
	       " |    |-- start: timestamp (nullable = true)\n",
	       "printSchema tree");
	sl_buf_release(&b);
	sl_type_free(t);
}

static void test_double(void)
{
	is_str(dbl(1.0), "1.0", "double 1.0");
	is_str(dbl(0.1), "0.1", "double 0.1");
	is_str(dbl(2.5), "2.5", "double 2.5");
	is_str(dbl(1e7), "1.0E7", "double 1e7");
	is_str(dbl(1234567.0), "1234567.0", "double 1234567");
	is_str(dbl(0.001), "0.001", "double 0.001");
	is_str(dbl(0.0001), "1.0E-4", "double 1e-4");
	is_str(dbl(-3.25), "-3.25", "double negative");
	is_str(dbl(1.0 / 3), "0.3333333333333333", "double 1/3");
}

/* The printf + strtod search sl_fmt_double had before its short-decimal
 * fast path: the reference the fast path must agree with on every value. */
static void ref_fmt_double(double d, sl_buf *out)
{
	char tmp[40], digs[24];
	int prec, exp10, nd = 0, k;
	const char *p;
	if (isnan(d)) {
		sl_buf_adds(out, "NaN");
		return;
	}
	if (isinf(d)) {
		sl_buf_adds(out, d < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (d == 0) {
		sl_buf_adds(out, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	p = tmp;
	if (*p == '-') {
		sl_buf_addc(out, '-');
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digs[nd++] = *p;
	exp10 = atoi(p + 1);
	while (nd > 1 && digs[nd - 1] == '0')
		nd--;
	if (fabs(d) >= 1e-3 && fabs(d) < 1e7) {
		if (exp10 >= 0) {
			for (k = 0; k <= exp10; k++)
				sl_buf_addc(out, k < nd ? digs[k] : '0');
			sl_buf_addc(out, '.');
			if (nd > exp10 + 1)
				sl_buf_add(out, digs + exp10 + 1,
					   (size_t)(nd - exp10 - 1));
			else
				sl_buf_addc(out, '0');
		} else {
			sl_buf_adds(out, "0.");
			for (k = 0; k < -exp10 - 1; k++)
				sl_buf_addc(out, '0');
			sl_buf_add(out, digs, (size_t)nd);
		}
	} else {
		sl_buf_addc(out, digs[0]);
		sl_buf_addc(out, '.');
		if (nd > 1)
			sl_buf_add(out, digs + 1, (size_t)(nd - 1));
		else
			sl_buf_addc(out, '0');
		sl_buf_printf(out, "E%d", exp10);
	}
}

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The fast path against the reference: short decimals (sums of amounts,
 * n / 10^k), decimals of every digit count, random bit patterns in and around [1e-3, 1e7), neighbours of
 * the range's edges and of powers of ten, negatives. */
static void test_double_fast(void)
{
	static const double edges[] = {1e-3, 1e7, 1.0, 10.0, 0.01, 9999999.5,
				       0.1 + 0.2, 1e6, 123456.78, 0.00125};
	uint64_t seed = 88172645463325252ull;
	sl_buf a, b;
	long i, bad = 0, n = 0;
	char first[160] = "";
	sl_buf_init(&a);
	sl_buf_init(&b);
	for (i = 0; i < 200000; i++) {
		uint64_t r = rnd_next(&seed);
		double d;
		int k = (int)(r % 10);
		static const double p10[] = {1,   1e1, 1e2, 1e3, 1e4,
					     1e5, 1e6, 1e7, 1e8, 1e9};
		switch (i % 5) {
		case 4: { /* a decimal of 1..17 random digits, any exponent */
			char txt[40];
			int nd = 1 + (int)(r % 17), j;
			for (j = 0; j < nd; j++)
				txt[j] = (char)('0' + rnd_next(&seed) % 10);
			snprintf(txt + nd, sizeof txt - (size_t)nd, "e%d",
				 (int)(rnd_next(&seed) % 40) - 25);
			d = strtod(txt, NULL);
			break;
		}
		case 0: d = (double)(r >> 20 & 0xffffffffff) / p10[k]; break;
		case 1: d = (double)(rnd_next(&seed) % 1000000000) / 100.0;
			for (k = 0; k < (int)(r % 50); k++)
				d += (double)(rnd_next(&seed) % 10000) / 100.0;
			break;
		case 2: {
			uint64_t bits = (r & 0x000fffffffffffffull) |
					((uint64_t)(1013 + r % 34) << 52);
			memcpy(&d, &bits, sizeof d);
			break;
		}
		default:
			d = nextafter(edges[r % 10], (r >> 8) & 1 ? 0 : 1e300);
			for (k = 0; k < (int)(r >> 9 & 3); k++)
				d = nextafter(d, (r >> 8) & 1 ? 0 : 1e300);
			if (r >> 11 & 1)
				d = edges[r % 10];
		}
		if (r >> 63)
			d = -d;
		sl_buf_clear(&a);
		sl_buf_clear(&b);
		sl_fmt_double(d, &a);
		ref_fmt_double(d, &b);
		n++;
		if (strcmp(sl_buf_cstr(&a), sl_buf_cstr(&b)) != 0 && bad++ == 0)
			snprintf(first, sizeof first, "%.17g: %s vs %s", d,
				 sl_buf_cstr(&a), sl_buf_cstr(&b));
	}
	is_int(bad, 0, "sl_fmt_double = the printf search on %ld values %s",
	       n, first);
	sl_buf_release(&a);
	sl_buf_release(&b);
}

static void test_time(void)
{
	int64_t us = 0;
	sl_buf b;
	sl_err err;
	ok(sl_ts_parse("2026-01-01 12:05:00", 19, &us), "parse ts");
	sl_buf_init(&b);
	sl_ts_format(us, &b);
	is_str(sl_buf_cstr(&b), "2026-01-01 12:05:00", "format ts");
	sl_buf_clear(&b);
	sl_ts_format(us + 500000, &b);
	is_str(sl_buf_cstr(&b), "2026-01-01 12:05:00.5", "format fraction");
	sl_buf_clear(&b);
	sl_ts_iso(5 * SL_US_PER_SEC, &b);
	is_str(sl_buf_cstr(&b), "1970-01-01T00:00:05.000Z", "iso");
	sl_buf_clear(&b);
	sl_ts_format(-1, &b);
	is_str(sl_buf_cstr(&b), "1969-12-31 23:59:59.999999", "negative ts");
	sl_buf_release(&b);
	ok(!sl_ts_parse("2026-13-01", 10, &us), "bad month rejected");
	ok(sl_duration_parse("10 minutes", &us, NULL) == 0 &&
		   us == 10 * SL_US_PER_MIN,
	   "duration minutes");
	ok(sl_duration_parse("interval 1 day 2 hours", &us, NULL) == 0 &&
		   us == SL_US_PER_DAY + 2 * SL_US_PER_HOUR,
	   "duration interval");
	ok(sl_duration_parse("1 month", &us, NULL) == 0 &&
		   us == 31 * SL_US_PER_DAY,
	   "month is 31 days");
	ok(sl_duration_parse("-10 seconds", &us, NULL) == 0 &&
		   us == -10 * SL_US_PER_SEC,
	   "negative duration parses");
	/* Spark's time confs (JavaUtils.timeStringAs): a bare number is ms */
	ok(sl_time_conf_parse("k", "60s", &us, NULL) == 0 &&
		   us == 60 * SL_US_PER_SEC,
	   "time conf 60s");
	ok(sl_time_conf_parse("k", " 500 ", &us, NULL) == 0 && us == 500000,
	   "time conf: a bare number is milliseconds");
	ok(sl_time_conf_parse("k", "2MIN", &us, NULL) == 0 &&
		   us == 2 * SL_US_PER_MIN,
	   "time conf: units case-insensitive");
	ok(sl_time_conf_parse("k", "0", &us, NULL) == 0 && us == 0,
	   "time conf 0");
	ok(sl_time_conf_parse("k", "1d", &us, NULL) == 0 &&
		   us == SL_US_PER_DAY,
	   "time conf 1d");
	ok(sl_time_conf_parse("k", "-1s", &us, NULL) == SL_EINVAL &&
		   sl_time_conf_parse("k", "10 sec", &us, NULL) == SL_EINVAL &&
		   sl_time_conf_parse("k", "s", &us, NULL) == SL_EINVAL &&
		   sl_time_conf_parse("k", "99999999999999999999", &us,
				      NULL) == SL_EINVAL &&
		   sl_time_conf_parse("k", "9999999999999d", &us, NULL) ==
		       SL_EINVAL,
	   "time conf: negative, unknown unit, no number, overflow refused");
	ok(sl_time_conf_parse("spark.x", "ten", &us, &err) == SL_EINVAL,
	   "time conf error");
	is_str(err.msg,
	       "spark.x should be a time (a whole number and a unit us, ms, s, "
	       "m, min, h or d; a bare number is milliseconds), but was ten",
	       "time conf error message names the key and the value");
	ok(sl_duration_parse("1 foo", &us, &err) == SL_EPARSE, "bad unit");
	is_str(err.msg, "invalid interval '1 foo': unknown unit 'foo'",
	       "bad unit message");
	/* issue 16 finding 5: a year past Spark's 6 digits, or micros past
	 * int64, is null (not a wrapped year) */
	ok(!sl_ts_parse("4294967296-01-01", 16, &us), "year 4294967296 null");
	ok(!sl_ts_parse("2700000000-01-01", 16, &us), "year 2700000000 null");
	ok(!sl_ts_parse("294248-01-01", 12, &us), "past the int64 micros null");
	ok(sl_ts_parse("294247-01-01", 12, &us) && us > 0, "year 294247 fits");
	ok(sl_ts_parse("-290000-01-01", 13, &us) && us < 0, "year -290000");
	/* finding 6: interval strings as Spark's CalendarInterval: no hex,
	 * nan, inf or exponent; overflow names the value */
	ok(sl_duration_parse("999999999999 days", &us, &err) == SL_EPARSE,
	   "days overflow refused");
	is_str(err.msg,
	       "invalid interval '999999999999 days': '999999999999 days' is "
	       "out of range",
	       "overflow message names the value");
	ok(sl_duration_parse("0x10 minutes", &us, &err) == SL_EPARSE,
	   "hex refused");
	ok(sl_duration_parse("nan seconds", &us, &err) == SL_EPARSE,
	   "nan refused");
	ok(sl_duration_parse("inf seconds", &us, &err) == SL_EPARSE,
	   "inf refused");
	ok(sl_duration_parse("1e308 seconds", &us, &err) == SL_EPARSE,
	   "exponent refused");
	ok(sl_duration_parse("1.5 seconds", &us, NULL) == 0 && us == 1500000,
	   "fraction of a second");
	ok(sl_duration_parse("interval '-2' hours", &us, NULL) == 0 &&
		   us == -2 * SL_US_PER_HOUR,
	   "quoted value with a sign");
	ok(sl_duration_parse("106751 days 1 day", &us, NULL) == 0,
	   "a sum inside the range");
	ok(sl_duration_parse("106751991 days 106751991 days", &us, &err) ==
		   SL_EPARSE,
	   "a sum past the range refused");
}

/* DateTimeUtilsSuite "string to date" and DateFormatterSuite's output. */
static void test_date(void)
{
	int32_t d = 0;
	sl_buf b;
	sl_err err;
	sl_type *t;
	ok(sl_date_parse("2015-03-18", 10, &d) && d == 16512, "2015-03-18 is day 16512");
	ok(sl_date_parse("2015", 4, &d) && d == 16436, "yyyy is January 1st");
	ok(sl_date_parse("2015-3", 6, &d) && d == 16495, "yyyy-m");
	ok(sl_date_parse("2015-03-18T12:00", 16, &d) && d == 16512, "T and anything after the day");
	ok(sl_date_parse("1969-12-31", 10, &d) && d == -1, "the day before the epoch is -1");
	ok(!sl_date_parse("2015-02-29", 10, &d), "no February 29th in 2015");
	ok(sl_date_parse("2000-02-29", 10, &d), "2000 is a leap year");
	ok(!sl_date_parse("1900-02-29", 10, &d), "1900 is not");
	ok(!sl_date_parse("2015-03-18X", 11, &d), "text glued to the day");
	ok(!sl_date_parse("15-03-18", 8, &d), "a 2-digit year");
	ok(!sl_date_parse("", 0, &d), "empty");
	ok(!sl_date_parse("2015-03", 8, &d), "a NUL inside the length");
	sl_buf_init(&b);
	sl_date_format(16512, &b);
	sl_buf_addc(&b, ' ');
	sl_date_format(-1, &b);
	sl_buf_addc(&b, ' ');
	sl_date_format(2932897, &b);
	is_str(sl_buf_cstr(&b), "2015-03-18 1969-12-31 +10000-01-01", "yyyy-MM-dd, + past year 9999");
	sl_buf_release(&b);
	sl_err_clear(&err);
	t = sl_type_parse_ddl("d DATE, e date", &err);
	ok(t != NULL && t->fields[0].type->kind == SL_DATE && t->fields[1].type->kind == SL_DATE,
	   "DDL DATE");
	sl_buf_init(&b);
	if (t != NULL) {
		sl_type_ddl(t, &b);
		sl_buf_adds(&b, " ");
		sl_buf_adds(&b, sl_type_simple_name(t->fields[0].type));
	}
	is_str(sl_buf_cstr(&b), "d DATE, e DATE date", "DDL and simpleString names");
	sl_buf_release(&b);
	sl_type_free(t);
}

static void test_show(void)
{
	sl_type *t = sl_type_parse_ddl("word STRING, n BIGINT, d DOUBLE", NULL);
	sl_col *cols[3];
	sl_batch *b;
	sl_buf out;
	cols[0] = sl_col_new(t->fields[0].type, 2);
	cols[1] = sl_col_new(t->fields[1].type, 2);
	cols[2] = sl_col_new(t->fields[2].type, 2);
	sl_col_set_str(cols[0], 0, "cat", 3);
	sl_col_set_str(cols[0], 1, "a very long word indeed", 23);
	sl_col_i64(cols[1])[0] = 1;
	sl_col_set_null(cols[1], 1);
	sl_col_f64(cols[2])[0] = 2.5;
	sl_col_f64(cols[2])[1] = 3;
	b = sl_batch_new(t, 2, cols);
	sl_buf_init(&out);
	sl_batch_show(b, 20, 20, &out);
	is_str(sl_buf_cstr(&out),
	       "+--------------------+----+---+\n"
	       "|                word|   n|  d|\n"
	       "+--------------------+----+---+\n"
	       "|                 cat|   1|2.5|\n"
	       "|a very long word ...|null|3.0|\n"
	       "+--------------------+----+---+\n",
	       "show truncated, right aligned");
	sl_buf_clear(&out);
	sl_batch_show(b, 1, 0, &out);
	is_str(sl_buf_cstr(&out),
	       "+----+---+---+\n"
	       "|word|n  |d  |\n"
	       "+----+---+---+\n"
	       "|cat |1  |2.5|\n"
	       "+----+---+---+\n"
	       "only showing top 1 row\n",
	       "show untruncated, left aligned, top 1");
	sl_buf_release(&out);
	sl_batch_free(b);
	sl_type_free(t);
}

/* Repairs s as the readers do, "?" for each U+FFFD; *nrep reports. */
static int nrep;
static void count_rep(void *ctx, const char *file, int64_t line,
		      const char *reason, const char *why)
{
	(void)ctx;
	(void)file;
	(void)why;
	nrep += strcmp(reason, "utf8") == 0 ? (int)line * 100 + 1 : 0;
}

static const char *repaired(const char *s)
{
	static char out[256];
	sl_arena *a = sl_arena_new();
	const char *d = s;
	size_t n = strlen(s), k, o = 0;
	sl_format_bad bad = { count_rep, NULL };
	nrep = 0;
	if (sl_format_utf8_repair("x", 0, a, &d, &n, &bad, NULL) != 0)
		snprintf(out, sizeof out, "ERR");
	else {
		for (k = 0; k < n && o + 1 < sizeof out; k++) {
			if (k + 2 < n && memcmp(d + k, "\xef\xbf\xbd", 3) == 0) {
				out[o++] = '?';
				k += 2;
			} else {
				out[o++] = d[k];
			}
		}
		out[o] = '\0';
	}
	sl_arena_free(a);
	return out;
}

/* Unicode 15, 3.9 Table 3-8 and the W3C examples: one U+FFFD per maximal
 * subpart, as Java's decoder gives them. */
static void test_utf8(void)
{
	size_t bad = 0;
	is_int((long long)sl_utf8_valid("\xc3\xa9", 2, &bad), 2, "utf8: e-acute is 2 bytes");
	is_int((long long)sl_utf8_valid("\xf0\x9f\x98\x80", 4, &bad), 4, "utf8: an emoji is 4");
	is_int((long long)sl_utf8_valid("\xe2\x82", 2, &bad), 0, "utf8: cut short is ill-formed");
	is_int((long long)bad, 2, "utf8: its maximal subpart is both bytes");
	is_int((long long)sl_utf8_valid("\xc0\xaf", 2, &bad), 0, "utf8: C0 never starts a character");
	is_int((long long)bad, 1, "utf8: C0 alone");
	is_int((long long)sl_utf8_check("abcdefghij\xffk", 12), 10, "utf8: check finds the first bad byte past 8-byte words");
	is_int((long long)sl_utf8_check("abc\xc3\xa9", 5), 5, "utf8: check: all well-formed");
	is_str(repaired("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64"),
	       "a???b?c??d", "utf8: Table 3-8's example");
	is_str(repaired("\xed\xa0\x80|\xf4\x90\x80\x80|\xe0\x80\xaf|\xf0\x80\x80\xaf"),
	       "???|????|???|????", "utf8: surrogate, past U+10FFFF, overlong: one per byte");
	is_str(repaired("ok\xc3\xa9"), "ok\xc3\xa9", "utf8: well-formed text is left as is");
	is_int(nrep, 0, "utf8: and not reported");
	is_str(repaired("a\n\xff\xfe\nb\n\x80"), "a\n??\nb\n?", "utf8: over lines");
	is_int(nrep, 201 + 401, "utf8: one report per line (lines 2 and 4)");
}

int main(void)
{
	test_utf8();
	test_ddl();
	test_tree();
	test_double();
	test_double_fast();
	test_time();
	test_date();
	test_show();
	return done_testing();
}
