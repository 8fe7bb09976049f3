/*
 * t412-ts-fixed: the fixed-layout timestamp parser (sl_ts_parse_fixed,
 * and the readers' cached form sl_format_parse_ts / sl_format_ts_cached)
 * against the general rules (sl_ts_parse_general) and against libc's
 * timegm as an independent oracle: known cases (leap days, offsets,
 * fractions past six digits, both separators), then generated texts in and
 * near the fixed layout, and byte mutations of them.  Whatever the fixed
 * parser takes must equal the general parser's value; whatever it leaves
 * must be what the general parser decides; the cached reader form must
 * agree with sl_ts_parse over runs of texts that share or change dates.
 * Spark: DateTimeUtils.stringToTimestamp (DateTimeUtilsSuite "string to
 * timestamp"): an invalid day of month (LocalDate.of throws) is None.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/timeutil.h"
#include "formats/fileformat.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int pick(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

/* Parse with every entry point; 1 if all agree (value and verdict). */
static int agree(const char *s, size_t n, sl_format_tscache *c, int *took,
		 int64_t *val)
{
	int64_t a = 0, b = 0, d = 0, e = 0;
	bool fa = sl_ts_parse_fixed(s, n, &a);
	bool gb = sl_ts_parse_general(s, n, &b);
	bool pd = sl_ts_parse(s, n, &d);
	bool rc = sl_format_parse_ts(s, n, &e, c);
	*took = fa;
	*val = b;
	if (fa && (!gb || a != b))
		return 0;
	if (pd != gb || (gb && d != b))
		return 0;
	if (rc != gb || (gb && e != b))
		return 0;
	if (n == 19) {
		int64_t f = 0;
		if (sl_format_ts_cached(s, &f, c) && (!gb || f != b))
			return 0;
	}
	return 1;
}

static void known(void)
{
	static const struct {
		const char *s;
		int ok;
		const char *iso; /* expected, as sl_ts_format prints it */
	} cases[] = {
		{ "2024-02-29 00:00:00", 1, "2024-02-29 00:00:00" },
		{ "2023-02-29 00:00:00", 0, NULL },
		{ "2000-02-29T12:00:00", 1, "2000-02-29 12:00:00" },
		{ "1900-02-29 12:00:00", 0, NULL },
		{ "2026-02-30 00:00:00", 0, NULL },
		{ "2026-04-31 00:00:00", 0, NULL },
		{ "2026-04-31", 0, NULL },
		{ "2026-02-30 00:00:00+01:00", 0, NULL },
		{ "2026-04-30 23:59:59", 1, "2026-04-30 23:59:59" },
		{ "2026-12-31T23:59:59.999999Z", 1, "2026-12-31 23:59:59.999999" },
		{ "2026-01-01T00:00:00.1234567", 1, "2026-01-01 00:00:00.123456" },
		{ "2026-01-01 00:00:00.5", 1, "2026-01-01 00:00:00.5" },
		{ "2026-01-01 00:00:00.", 0, NULL },
		{ "2026-01-01T01:00:00+01:00", 1, "2026-01-01 00:00:00" },
		{ "2026-01-01T00:00:00-02:30", 1, "2026-01-01 02:30:00" },
		{ "2026-01-01T00:30:00.25+00:30", 1, "2026-01-01 00:00:00.25" },
		{ "2026-03-01 00:00:00+01:00", 1, "2026-02-28 23:00:00" },
		{ "2024-03-01 00:00:00+01:00", 1, "2024-02-29 23:00:00" },
		{ "2026-01-01 24:00:00", 0, NULL },
		{ "2026-01-01 23:60:00", 0, NULL },
		{ "2026-01-01 23:00:60", 0, NULL },
		{ "2026-00-01 00:00:00", 0, NULL },
		{ "2026-13-01 00:00:00", 0, NULL },
		{ "2026-01-00 00:00:00", 0, NULL },
		{ "2026-01-01x00:00:00", 0, NULL },
		{ "2026-01-01 00:00:00Q", 0, NULL },
		/* the general rules beyond the fixed layouts */
		{ " 2026-01-01 00:00:00 ", 1, "2026-01-01 00:00:00" },
		{ "2026-01-01 00:00", 1, "2026-01-01 00:00:00" },
		{ "2026-01-01T00:00:00+0100", 1, "2025-12-31 23:00:00" },
		{ "2026-01-01T00:00:00z", 1, "2026-01-01 00:00:00" },
		{ "12026-01-01 00:00:00", 1, "12026-01-01 00:00:00" },
		{ "1969-12-31 23:59:59.999999", 1, "1969-12-31 23:59:59.999999" },
		{ "0000-02-29 00:00:00", 1, "0000-02-29 00:00:00" },
		{ "0000-01-01 00:00:00", 1, "0000-01-01 00:00:00" },
		{ "0000-03-01T00:00:00.000001", 1, "0000-03-01 00:00:00.000001" },
		{ "9999-12-31 23:59:59.999999", 1, "9999-12-31 23:59:59.999999" },
		{ "1970-01-01 00:00:00.000000", 1, "1970-01-01 00:00:00" },
		{ "1600-02-29 00:00:00", 1, "1600-02-29 00:00:00" },
		/* java.time.ZoneOffset's range, as Spark's getZoneId: minutes
		 * 0-59, at most 18:00 either way; past it null */
		{ "2026-01-01 00:00:00+18:00", 1, "2025-12-31 06:00:00" },
		{ "2026-01-01 00:00:00-18:00", 1, "2026-01-01 18:00:00" },
		{ "2026-01-01 00:00:00+18:01", 0, NULL },
		{ "2026-01-01 00:00:00+19:00", 0, NULL },
		{ "2026-01-01 00:00:00-19:00", 0, NULL },
		{ "2026-01-01 00:00:00+01:99", 0, NULL },
		{ "2026-01-01 00:00:00+01:60", 0, NULL },
		{ "2026-01-01T00:00:00+0199", 0, NULL },
		{ "2026-01-01T00:00:00+1900", 0, NULL },
		{ "2026-01-01T00:00:00+99", 0, NULL },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		sl_format_tscache c = { 0 };
		const char *s = cases[k].s;
		int took;
		int64_t v;
		sl_buf b;
		ok(agree(s, strlen(s), &c, &took, &v), "all parsers agree: '%s'",
		   s);
		if (cases[k].ok) {
			int64_t us = 0;
			sl_buf_init(&b);
			ok(sl_ts_parse(s, strlen(s), &us), "'%s' parses", s);
			sl_ts_format(us, &b);
			is_str(sl_buf_cstr(&b), cases[k].iso, "'%s' value", s);
			sl_buf_release(&b);
		} else {
			ok(!sl_ts_parse(s, strlen(s), &v), "'%s' is null", s);
		}
	}
}

/* A text in or near the fixed layout; *exp_ok / *exp_us the oracle's
 * answer by timegm when the text is plainly in the layout, else
 * *exp_ok = -1 (no oracle). */
static size_t gen(char *out, size_t cap, int *exp_ok, int64_t *exp_us)
{
	int y = pick(2) ? 1900 + pick(300) : pick(10000), mo = pick(14), d = pick(33), h = pick(25),
	    mi = pick(61), s = pick(61), nf = pick(4) ? 0 : 1 + pick(9);
	/* offsets past java.time.ZoneOffset's range too (19:xx, mm >= 60) */
	int zone = pick(4), oh = pick(20), om = pick(5) ? pick(60) : 60 + pick(40);
	char frac[16] = "", z[16] = "";
	int64_t fus = 0;
	struct tm tm;
	size_t n;
	if (pick(4) == 0) { /* leap-day hunting */
		mo = 2;
		d = 28 + pick(3);
	}
	for (int k = 0; k < nf; k++) {
		int dg = pick(10);
		frac[k] = (char)('0' + dg);
		if (k < 6) {
			int64_t sc = 1;
			for (int j = k; j < 5; j++)
				sc *= 10;
			fus += dg * sc;
		}
	}
	frac[nf] = '\0';
	if (zone == 1)
		strcpy(z, "Z");
	else if (zone == 2 || zone == 3)
		snprintf(z, sizeof z, "%c%02d:%02d", zone == 2 ? '+' : '-',
			 oh, om);
	n = (size_t)snprintf(out, cap, "%04d-%02d-%02d%c%02d:%02d:%02d%s%s%s",
			     y, mo, d, pick(2) ? ' ' : 'T', h, mi, s,
			     nf ? "." : "", frac, z);
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	{
		time_t t = timegm(&tm);
		bool valid = mo >= 1 && mo <= 12 && d >= 1 && h <= 23 &&
			     mi <= 59 && s <= 59 && tm.tm_mday == d &&
			     tm.tm_mon == mo - 1 &&
			     (zone < 2 || (om <= 59 && oh * 60 + om <= 18 * 60));
		int64_t off = (zone >= 2 ? (oh * 3600 + om * 60) : 0) *
			      (zone == 3 ? -1 : 1);
		*exp_ok = valid;
		*exp_us = ((int64_t)t - off) * SL_US_PER_SEC + fus;
	}
	return n;
}

static void generated(void)
{
	char t[64];
	int bad = 0, oracle_bad = 0, took = 0, mut_bad = 0;
	sl_format_tscache c = { 0 };
	for (int k = 0; k < 200000; k++) {
		int exp_ok, tk;
		int64_t exp_us, v;
		size_t n = gen(t, sizeof t, &exp_ok, &exp_us);
		if (!agree(t, n, &c, &tk, &v) && bad++ < 5)
			diag("disagree: '%s'", t);
		took += tk;
		{
			int64_t us = 0;
			bool got = sl_ts_parse(t, n, &us);
			if ((got != (exp_ok == 1) || (got && us != exp_us)) &&
			    oracle_bad++ < 5)
				diag("oracle: '%s' got %d %lld want %d %lld", t,
				     got, (long long)us, exp_ok,
				     (long long)exp_us);
		}
		/* the same date again, another time of day: the cache */
		if (pick(2) && n >= 19) {
			t[11] = (char)('0' + pick(3));
			t[15] = (char)('0' + pick(6));
			if (!agree(t, n, &c, &tk, &v) && bad++ < 5)
				diag("disagree (cached date): '%s'", t);
		}
		/* a mutation: a byte replaced, dropped or cut */
		{
			static const char pool[] = "0123456789-:T .Z+z\"x\t";
			size_t at = (size_t)pick((int)n);
			switch (pick(3)) {
			case 0: t[at] = pool[pick((int)sizeof pool - 1)]; break;
			case 1:
				memmove(t + at, t + at + 1, n - at);
				n--;
				break;
			default: n = at; break;
			}
			if (!agree(t, n, &c, &tk, &v) && mut_bad++ < 5)
				diag("disagree (mutated): '%.*s'", (int)n, t);
		}
	}
	is_int(bad, 0, "generated texts: fixed, general and cached agree");
	is_int(mut_bad, 0, "mutated texts: fixed, general and cached agree");
	is_int(oracle_bad, 0, "generated texts: the value timegm gives");
	ok(took > 50000, "the fixed parser took most valid texts (%d)", took);
}

int main(void)
{
	known();
	generated();
	return done_testing();
}
