/*
 * t408-csv-fast: the CSV reader's fast path (unquoted single-line records,
 * csv.c) must give exactly what the tokenizer gives.  Every case is read
 * with the fast path (the default) and with option fastPath=false, in the
 * three modes, with and without a header and a nullValue, and the batches
 * are compared value by value along with the error messages; then the
 * same over generated and mutated lines.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "tap.h"

static const char *opt_header, *opt_null, *opt_comment, *opt_sep, *opt_quote;

#define FP_FORMAT "csv"
#define FP_FILE	  "data/f.csv"
static void fp_options(sl_options *o)
{
	if (opt_header)
		sl_options_set(o, "header", opt_header);
	if (opt_null)
		sl_options_set(o, "nullValue", opt_null);
	if (opt_comment)
		sl_options_set(o, "comment", opt_comment);
	if (opt_sep)
		sl_options_set(o, "sep", opt_sep);
	if (opt_quote)
		sl_options_set(o, "quote", opt_quote);
}
#include "fastpath.h"

#define W2 "ts TIMESTAMP, product_id STRING, amount INT"
#define ALL "ts TIMESTAMP, s STRING, i INT, l BIGINT, d DOUBLE, b BOOLEAN, " \
	    "_corrupt_record STRING"

static void all_opts(const char *text, const char *ddl, const char *name)
{
	opt_header = NULL;
	opt_null = NULL;
	both(text, ddl, name);
	opt_header = "true";
	both(text, ddl, name);
	opt_header = NULL;
	opt_null = "NA";
	both(text, ddl, name);
	opt_null = "0";
	both(text, ddl, name);
	opt_null = NULL;
	opt_comment = "#";
	both(text, ddl, name);
	opt_comment = NULL;
}

/* Timestamp tokens the fast path takes without scanning them (19 bytes
 * of the cached date before the separator): separators a timestamp holds
 * (' ', ':', '-', 'T'), a 19-byte nullValue equal to one, '\r\n' after the
 * last field, a repeated text after a different one. */
static void test_ts_tokens(void)
{
	static const char *const seps[] = { ",", " ", ":", "-", "T", ";" };
	const char *text =
	    "2026-01-01 12:00:03,p17,12\n2026-01-01 12:00:03,p18,13\n"
	    "2026-01-01 12:00:04,p18,13\n2026-01-01 12:00:03,p1,1\n"
	    "2026-01-01 12:00:03\n2026-01-01 12:00:035,p,1\n"
	    "2026-01-01T12:00:03,p,2\n2026-01-02 00:00:00,q,3\n";
	for (size_t k = 0; k < sizeof seps / sizeof seps[0]; k++) {
		char t[512];
		size_t n = 0;
		for (const char *c = text; *c; c++)
			t[n++] = *c == ',' ? seps[k][0] : *c;
		t[n] = '\0';
		opt_sep = seps[k];
		all_opts(t, W2, "timestamp first, sep");
	}
	opt_sep = NULL;
	opt_null = "2026-01-01 12:00:03";
	both("2026-01-01 12:00:03,p17,12\n2026-01-01 12:00:03,p18,13\n",
	     W2, "a nullValue of 19 bytes");
	opt_null = NULL;
	all_opts("p17,12,2026-01-01 12:00:03\np18,13,2026-01-01 12:00:03\r\n"
		 "p19,14,2026-01-01 12:00:03\n p,1,2026-01-01 12:00:03\n"
		 "p20,15,2026-01-01 12:00:03,\n",
		 "product_id STRING, amount INT, ts TIMESTAMP",
		 "timestamp last");
}

static void test_cases(void)
{
	all_opts("2026-01-01 12:00:03,p17,12\n2026-01-01 12:00:04,p18,13\n",
		 W2, "plain lines");
	all_opts("2026-01-01 12:00:03,\"p,17\",12\n\"2026-01-01 12:00:04\",p18,13\n"
		 "2026-01-01 12:00:03,p\"1,1\n2026-01-01 12:00:03,\"a\"\"b\",2\n"
		 "2026-01-01 12:00:03,\"multi\nline\",3\n",
		 W2, "quotes");
	all_opts("2026-01-01 12:00:03,p17\n2026-01-01 12:00:03,p17,1,2\n"
		 ",,\n,p,\n2026-01-01 12:00:03,,5\nNA,NA,NA\n0,0,0\n\n\r\n"
		 "2026-01-01 12:00:03,p17,12\r\n2026-01-01 12:00:03,p17\r,12\n",
		 W2, "token counts, empty tokens, null values, crlf");
	all_opts("x,a,1,1,1.5,true\nx,a,+1,-0,-0,FALSE\nx,a,1.0,1e3,1e3,yes\n"
		 "x,a,2147483648,9223372036854775807,.5,TRUE\n"
		 "x,a,-2147483648,9223372036854775808,5.,t\n"
		 "x,a, 1,1 ,-.5, true\nx,a,0x1,1,1.5d,false\n"
		 "x,a,1,123456789012345678,0.1234567890123456789,true\n"
		 "x,a,1,1,9007199254740993,true\nx,a,1,1,NaN,true\n"
		 "x,a,1,1,-Infinity,true\nx,a,1,1,1.2.3,true\nx,a,1,1,-,true\n",
		 ALL, "numbers and booleans");
	all_opts("2026-01-01 12:00:03,a\n2026-01-01 12:00:0a,a\n"
		 "2026-01-01 12:60:00,a\n2026-01-01T12:00:00,a\n"
		 "2026-01-01 12:00:00.5,a\n2026-02-30 00:00:00,a\n"
		 "2026-01-02 00:00:00,a\n2026-01-01,a\n 2026-01-01 12:00:03,a\n",
		 "ts TIMESTAMP, s STRING", "timestamps");
	all_opts("a,1\n#c,2\nb,3", "s STRING, i INT", "last line without newline");
	all_opts("1,a\r\n2,b\r\n3,\r\n4,c\r\r\n", "i INT, s STRING",
		 "crlf after a string token");
	all_opts("1,9999999999999999999\n2,-9223372036854775809\n"
		 "3,18446744073709551617\n4,-9223372036854775808\n",
		 "i INT, l BIGINT", "19 and 20 digit integers");
}

/* The per-field ops (csv.c fast_prog): integers parsed as they are
 * scanned only when no separator, quote or nullValue can be made of
 * digits and signs; otherwise, and for every token they do not take, the
 * general token rules.  Separators, quotes and null values of digits and
 * signs, integers at the limits, signs alone, leading zeros, '\r\n',
 * empty and extra tokens. */
static void test_field_ops(void)
{
	static const char *const seps[] = { ",", "-", "+", "1", "0", ";" };
	static const char *const quotes[] = { NULL, "1", "-", "" };
	static const char *const nulls[] = { NULL, "12", "-", "+0", "x" };
	const char *text =
	    "12,34,p\n-5,+6,q\n2147483647,9223372036854775807,r\n"
	    "2147483648,-9223372036854775808,s\n-2147483648,-0,t\n"
	    "-,+,u\n007,0012,v\n1-2,3+4,w\n12,34\n12,34,p,q\n,,\n"
	    "12,34,p\r\n\"12\",\"-3\",\"x\"\n1\"2,3,y\n"
	    "123456789012345678,1234567890123456789,z\n12, 3,a\n"
	    "12,3 ,b\n99999999999,12345678901234567890,c\n";
	for (size_t k = 0; k < sizeof seps / sizeof seps[0]; k++) {
		char t[1024];
		size_t n = 0;
		for (const char *c = text; *c; c++)
			t[n++] = *c == ',' ? seps[k][0] : *c;
		t[n] = '\0';
		opt_sep = seps[k];
		for (size_t q = 0; q < sizeof quotes / sizeof quotes[0]; q++) {
			opt_quote = quotes[q];
			for (size_t z = 0; z < sizeof nulls / sizeof nulls[0];
			     z++) {
				opt_null = nulls[z];
				both(t, "i INT, l BIGINT, s STRING",
				     "integer ops");
				both(t, "s STRING, i INT, l BIGINT",
				     "integer ops, string first");
			}
		}
	}
	opt_sep = opt_quote = opt_null = NULL;
}

static uint64_t rng = 88172645463325252u;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static const char *const tss[] = {"2026-01-01 12:00:03", "2026-03-04 23:59:59",
	"", "NA", "x"};
static const char *const strs[] = {"p17", "", "\"q,x\"", "NA", "a b", "\"\""};
static const char *const ints[] = {"12", "-7", "0", "2147483647", "99999999999",
	"", "+3", "1.5"};
static const char *const longs[] = {"-123456789012", "123456789012345678",
	"1234567890123456789", "", "0", "x"};
static const char *const dbls[] = {"1.25", "-0.5", "3", "1e3", "0.1234567",
	"", ".5", "NaN", "-0"};
static const char *const bools[] = {"true", "false", "", "TRUE", "no"};

#define PICK(a) a[rnd(sizeof a / sizeof a[0])]

static void gen_line(sl_buf *out)
{
	int n = 6 + (rnd(12) == 0 ? (int)rnd(3) - 1 : 0);
	for (int k = 0; k < n; k++) {
		if (k > 0)
			sl_buf_addc(out, ',');
		switch (k) {
		case 0: sl_buf_adds(out, PICK(tss)); break;
		case 1: sl_buf_adds(out, PICK(strs)); break;
		case 2: sl_buf_adds(out, PICK(ints)); break;
		case 3: sl_buf_adds(out, PICK(longs)); break;
		case 4: sl_buf_adds(out, PICK(dbls)); break;
		default: sl_buf_adds(out, PICK(bools)); break;
		}
	}
}

static void mutate(sl_buf *b, size_t start)
{
	static const char ins[] = "\",\r 0-.eE#x";
	size_t n = b->len - start, at;
	if (n == 0)
		return;
	at = start + rnd((unsigned)n);
	if (rnd(2) == 0) {
		b->p[at] = ins[rnd(sizeof ins - 1)];
	} else {
		memmove(b->p + at, b->p + at + 1, b->len - at - 1);
		b->len--;
	}
}

static void test_differential(void)
{
	char why[512];
	int bad[3] = {0, 0, 0}, round;
	for (round = 0; round < 60; round++) {
		sl_buf b;
		sl_buf_init(&b);
		opt_header = round % 3 == 1 ? "true" : NULL;
		opt_null = round % 3 == 2 ? "NA" : NULL;
		for (int k = 0; k < 200; k++) {
			size_t start = b.len;
			gen_line(&b);
			if (rnd(8) == 0)
				mutate(&b, start);
			sl_buf_adds(&b, rnd(20) == 0 ? "\r\n" : "\n");
		}
		for (int m = 0; m < 3; m++)
			if (!same(b.p, b.len, ALL, modes[m], why, sizeof why) &&
			    bad[m]++ == 0)
				printf("#   round %d %s: %s\n", round, modes[m], why);
		sl_buf_release(&b);
	}
	opt_header = opt_null = NULL;
	for (int m = 0; m < 3; m++)
		is_int(bad[m], 0, "differential, %s: 60 buffers of 200 lines",
		       modes[m]);
}

/* Each line the fast path hands to the tokenizer, after a run of plain
 * W2 lines and again after a new timestamp text: the same result as the
 * tokenizer's (every option set of all_opts, three modes) and, with the
 * default options in PERMISSIVE, the values written here (NULL: a null
 * string, NUL_I a null integer). */
#define TS3 1767268803000000LL /* 2026-01-01 12:00:03 */
#define NUL_I INT64_MIN
static const struct {
	const char *line, *what;
	bool check;
	int64_t ts;
	const char *pid;
	int64_t amount;
} deviants[] = {
	{ "2026-01-01 12:00:03,\"p,1\",1", "a quoted field", true, TS3, "p,1", 1 },
	{ "2026-01-01 12:00:03,\"p\"\"1\",1", "a doubled quote", false, TS3,
	  "p\"1", 1 },
	{ "2026-01-01 12:00:03,p1,1\r", "CRLF", true, TS3, "p1", 1 },
	{ "2026-01-01 12:00:03,p1", "a missing field", true, TS3, "p1", NUL_I },
	{ "2026-01-01 12:00:03,p1,1,x", "an extra field", false, 0, NULL, 0 },
	{ "2026-01-01 12:00:03,,1", "an empty string field", true, TS3, NULL, 1 },
	{ ",p1,1", "an empty timestamp", true, -1, "p1", 1 },
	{ "2026-01-01 12:00:03,p1,", "an empty integer", true, TS3, "p1", NUL_I },
	{ "2026-01-01 12:00:03,p1,x", "wrong type: INT", true, TS3, "p1", NUL_I },
	{ "2026-01-01 12:00:03,p1,1.5", "a fraction for an INT", false, 0, NULL,
	  0 },
	{ "2026-01-01 12:00:03,p1,2147483648", "INT overflow", false, 0, NULL, 0 },
	{ "2026-01-01 12:00:03,p1,+7", "a plus sign", true, TS3, "p1", 7 },
	{ "2026-01-01 12:00:03,p1, 7", "a space before an INT", false, 0, NULL, 0 },
	{ "2026-01-02 00:00:00,p1,1", "another date", true, 1767312000000000LL,
	  "p1", 1 },
	{ "2026-01-01T12:00:03,p1,1", "a 'T' timestamp", true, TS3, "p1", 1 },
	{ "2026-01-01 25:00:00,p1,1", "a bad hour", false, 0, NULL, 0 },
	{ "2026-01-01 12:00:03.5,p1,1", "a fraction of a second", true,
	  TS3 + 500000, "p1", 1 },
	{ "2026-01-01 12:00:03,abcdefghijklmnopqrstuvwxyz0123456789,1",
	  "a string of 36 bytes", true, TS3,
	  "abcdefghijklmnopqrstuvwxyz0123456789", 1 },
	{ "2026-01-01 12:00:03,abcdefghijklmnopqrst\"uv,1",
	  "a quote inside after 20 bytes", false, 0, NULL, 0 },
	{ "2026-01-01 12:00:03, p1 ,1", "spaces around a string", true, TS3,
	  " p1 ", 1 },
	{ "NA,NA,NA", "NA tokens", true, -1, "NA", NUL_I },
	{ "#2026-01-01 12:00:03,p1,1", "a comment character", false, 0, NULL, 0 },
	{ "", "an empty line", false, 0, NULL, 0 },
};

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

static void test_fallbacks(void)
{
	for (size_t d = 0; d < sizeof deviants / sizeof *deviants; d++) {
		sl_buf b;
		sl_err err;
		sl_batch *r;
		bool good;
		sl_buf_init(&b);
		for (int k = 0; k < 6; k++)
			sl_buf_printf(&b, "2026-01-01 12:00:03,p%d,%d\n", k, k * 7);
		sl_buf_printf(&b, "%s\n", deviants[d].line);
		for (int k = 0; k < 3; k++)
			sl_buf_printf(&b, "2026-01-01 12:00:04,q%d,-%d\n", k, k);
		sl_buf_printf(&b, "%s\n", deviants[d].line);
		sl_buf_adds(&b, "2026-01-01 12:00:04,r,9\n");
		all_opts(b.p, W2, deviants[d].what);
		opt_header = opt_null = opt_comment = NULL;
		sl_err_clear(&err);
		r = rd(b.p, b.len, W2, "PERMISSIVE", true, &err);
		good = r != NULL && row_is(r, 5, TS3, "p5", 35);
		if (good && deviants[d].check)
			good = r->nrows == 12 &&
			       row_is(r, 6, deviants[d].ts, deviants[d].pid,
				      deviants[d].amount) &&
			       row_is(r, 10, deviants[d].ts, deviants[d].pid,
				      deviants[d].amount) &&
			       row_is(r, 9, TS3 + 1000000, "q2", -2) &&
			       row_is(r, 11, TS3 + 1000000, "r", 9);
		ok(good, "after plain lines, %s: the values", deviants[d].what);
		sl_batch_free(r);
		sl_buf_release(&b);
	}
}

int main(void)
{
	test_ts_tokens();
	test_cases();
	test_field_ops();
	test_differential();
	test_fallbacks();
	return done_testing();
}
