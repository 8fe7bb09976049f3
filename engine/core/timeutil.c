/*
 * timeutil: civil-calendar arithmetic (Howard Hinnant's algorithms),
 * timestamp text, and interval parsing with Spark's unit rules.
 */
#include "core/timeutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int64_t sl_days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void sl_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;
	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static bool digits(const char **p, const char *e, int n, int *out)
{
	int v = 0, k;
	for (k = 0; k < n; k++) {
		if (*p >= e || !isdigit((unsigned char)**p))
			return false;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	*out = v;
	return true;
}

static bool leap(int64_t y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* Days in month mo (1..12) of year y, proleptic Gregorian. */
static int month_days(int64_t y, int mo)
{
	static const unsigned char md[13] = { 0,  31, 28, 31, 30, 31, 30,
					      31, 31, 30, 31, 30, 31 };
	return md[mo] + (mo == 2 && leap(y));
}

/* Two digits at p, or 100 when either is not a digit. */
static inline unsigned dig2(const char *p)
{
	unsigned a = (unsigned)(unsigned char)p[0] - '0';
	unsigned b = (unsigned)(unsigned char)p[1] - '0';
	return a > 9 || b > 9 ? 100 : a * 10 + b;
}

/* Microseconds of a fraction's digits from s[*i] (after the '.') up to
 * the first non-digit before n: the first six count, later ones are
 * dropped (Spark keeps microseconds).  -1 if there is no digit. */
static inline int64_t fraction(const char *s, size_t n, size_t *i)
{
	static const int64_t scale[6] = { 100000, 10000, 1000, 100, 10, 1 };
	int64_t f = 0;
	size_t k = 0, j = *i;
	for (; j < n && (unsigned)(unsigned char)s[j] - '0' < 10; j++, k++)
		if (k < 6)
			f += (s[j] - '0') * scale[k];
	*i = j;
	return k == 0 ? -1 : f;
}

/* Eight bytes at p as a little-endian word (byte k is bits 8k..8k+7). */
static inline uint64_t le64(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* x: eight text bytes XOR a pattern holding '0' where a digit belongs and
 * the separator elsewhere.  True if each digit byte was '0'..'9' (now
 * 0..9) and each separator byte (0xff in sepm) matched (now 0). */
static inline bool swar_ok(uint64_t x, uint64_t sepm)
{
	const uint64_t high = UINT64_C(0x8080808080808080);
	return ((x | (x + UINT64_C(0x7676767676767676))) & high) == 0 &&
	       (x & sepm) == 0;
}

/* The number whose decimal digits are the bytes of x (values 0..9 or
 * ASCII digits), byte 0 the most significant: three multiplies. */
static inline uint32_t eight_digits(uint64_t x)
{
	x = ((x & UINT64_C(0x0f0f0f0f0f0f0f0f)) * 2561) >> 8;
	x = ((x & UINT64_C(0x00ff00ff00ff00ff)) * 6553601) >> 16;
	return (uint32_t)(((x & UINT64_C(0x0000ffff0000ffff)) *
			   UINT64_C(42949672960001)) >>
			  32);
}

#define BYTE(x, k) ((unsigned)((x) >> (8 * (k))) & 0xffu)
/* "00:00:00", "0000-00-" and "0.000000" as little-endian words */
#define TIME_PAT UINT64_C(0x30303a30303a3030)
#define TIME_SEP UINT64_C(0x0000ff0000ff0000)
#define DATE_PAT UINT64_C(0x2d30302d30303030)
#define DATE_SEP UINT64_C(0xff0000ff00000000)
#define FRAC_PAT UINT64_C(0x3030303030302e30)
#define FRAC_SEP UINT64_C(0x000000000000ff00)

bool sl_ts_fixed_time(const char *s, size_t n, int64_t *tod)
{
	unsigned h, mi, sec;
	int64_t frac = 0, off = 0;
	size_t i = 19;
	uint64_t x;
	if (n < 19 || (s[10] != ' ' && s[10] != 'T') ||
	    !swar_ok(x = le64(s + 11) ^ TIME_PAT, TIME_SEP))
		return false;
	h = BYTE(x, 0) * 10 + BYTE(x, 1);
	mi = BYTE(x, 3) * 10 + BYTE(x, 4);
	sec = BYTE(x, 6) * 10 + BYTE(x, 7);
	if (h > 23 || mi > 59 || sec > 59)
		return false;
	if (i < n && s[i] == '.') {
		/* six digits at once (s[18] is a digit already), the rest
		 * one by one; digits past six are dropped */
		if (n - i >= 7 &&
		    swar_ok(x = le64(s + i - 1) ^ FRAC_PAT, FRAC_SEP)) {
			frac = (int64_t)eight_digits(
			    x & UINT64_C(0xffffffffffff0000));
			for (i += 7;
			     i < n && (unsigned)(unsigned char)s[i] - '0' < 10;
			     i++)
				;
		} else {
			i++;
			if ((frac = fraction(s, n, &i)) < 0)
				return false;
		}
	}
	if (i < n) {
		if (s[i] == 'Z') {
			i++;
		} else if ((s[i] == '+' || s[i] == '-') && n - i == 6 &&
			   s[i + 3] == ':') {
			/* the general parser's rule: java.time.ZoneOffset's
			 * range, minutes 0-59 and at most 18:00 either way */
			unsigned oh = dig2(s + i + 1), om = dig2(s + i + 4);
			if (oh > 99 || om > 59 || oh * 60 + om > 18 * 60)
				return false;
			off = ((int64_t)oh * 3600 + om * 60) * SL_US_PER_SEC;
			if (s[i] == '-')
				off = -off;
			i = n;
		}
	}
	if (i != n)
		return false;
	*tod = (int64_t)h * SL_US_PER_HOUR + (int64_t)mi * SL_US_PER_MIN +
	       (int64_t)sec * SL_US_PER_SEC + frac - off;
	return true;
}

bool sl_ts_fixed_date(const char *s, int64_t *days)
{
	unsigned mo, d;
	int y;
	uint64_t x;
	if (!swar_ok(x = le64(s) ^ DATE_PAT, DATE_SEP))
		return false;
	y = (int)(BYTE(x, 0) * 1000 + BYTE(x, 1) * 100 + BYTE(x, 2) * 10 +
		  BYTE(x, 3));
	mo = BYTE(x, 5) * 10 + BYTE(x, 6);
	d = dig2(s + 8);
	if (mo < 1 || mo > 12 || d < 1 || (int)d > month_days(y, (int)mo))
		return false;
	{
		/* sl_days_from_civil for 0 <= y <= 9999, in unsigned
		 * arithmetic: 400 years (146097 days) added keep y - 1 of
		 * January and February of year 0 from going negative */
		unsigned yy = (unsigned)y + 400 - (mo <= 2);
		unsigned era = yy / 400, yoe = yy - era * 400;
		unsigned doy =
		    (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
		unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
		*days = (int64_t)era * 146097 + doe - 719468 - 146097;
	}
	return true;
}

bool sl_ts_parse_fixed(const char *s, size_t n, int64_t *us)
{
	int64_t days, tod;
	if (n < 19 || !sl_ts_fixed_date(s, &days) ||
	    !sl_ts_fixed_time(s, n, &tod))
		return false;
	*us = days * SL_US_PER_DAY + tod;
	return true;
}

bool sl_ts_parse(const char *s, size_t n, int64_t *us)
{
	return sl_ts_parse_fixed(s, n, us) || sl_ts_parse_general(s, n, us);
}

bool sl_ts_parse_general(const char *s, size_t n, int64_t *us)
{
	const char *p = s, *e = s + n;
	int y, mo, d, h = 0, mi = 0, sec = 0, k;
	int64_t frac = 0, off = 0;
	bool neg = false;
	while (p < e && isspace((unsigned char)*p))
		p++;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	if (p < e && *p == '-') {
		neg = true;
		p++;
	}
	if (!digits(&p, e, 4, &y))
		return false;
	/* Years past 9999: Spark's stringToTimestamp takes 4 to 6 year
	 * digits, so y stays far inside an int. */
	for (k = 4; p < e && isdigit((unsigned char)*p); k++) {
		if (k == 6)
			return false;
		y = y * 10 + (*p++ - '0');
	}
	if (neg)
		y = -y;
	if (p >= e || *p++ != '-' || !digits(&p, e, 2, &mo) || p >= e ||
	    *p++ != '-' || !digits(&p, e, 2, &d))
		return false;
	/* Feb 30 and friends are not dates (Spark: LocalDate.of throws,
	 * stringToTimestamp gives None) */
	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo))
		return false;
	if (p < e && (*p == ' ' || *p == 'T')) {
		p++;
		if (!digits(&p, e, 2, &h) || p >= e || *p++ != ':' ||
		    !digits(&p, e, 2, &mi))
			return false;
		if (p < e && *p == ':') {
			p++;
			if (!digits(&p, e, 2, &sec))
				return false;
			if (p < e && *p == '.') {
				int nd = 0;
				p++;
				while (p < e && isdigit((unsigned char)*p)) {
					if (nd < 6) {
						frac = frac * 10 + (*p - '0');
						nd++;
					}
					p++;
				}
				if (nd == 0)
					return false;
				for (k = nd; k < 6; k++)
					frac *= 10;
			}
		}
		if (h > 23 || mi > 59 || sec > 59)
			return false;
		if (p < e && (*p == 'Z' || *p == 'z')) {
			p++;
		} else if (p < e && (*p == '+' || *p == '-')) {
			int oh, om = 0, sign = *p == '-' ? -1 : 1;
			p++;
			if (!digits(&p, e, 2, &oh))
				return false;
			if (p < e && *p == ':')
				p++;
			if (p < e && !digits(&p, e, 2, &om))
				return false;
			/* java.time.ZoneOffset: minutes 0-59, at most 18:00
			 * either way ("+19:00", "+01:99": null, as Spark) */
			if (om > 59 || oh * 60 + om > 18 * 60)
				return false;
			off = sign * ((int64_t)oh * 3600 + om * 60) *
			      SL_US_PER_SEC;
		}
	}
	if (p != e)
		return false;
	/* Microseconds past the int64 range are null, as Spark's
	 * Math.multiplyExact failing inside stringToTimestamp. */
	{
		int64_t t, day_us;
		if (__builtin_mul_overflow(sl_days_from_civil(y, mo, d),
					   SL_US_PER_DAY, &day_us) ||
		    __builtin_add_overflow(day_us,
					   (int64_t)h * SL_US_PER_HOUR +
					       (int64_t)mi * SL_US_PER_MIN +
					       (int64_t)sec * SL_US_PER_SEC +
					       frac - off,
					   &t))
			return false;
		*us = t;
	}
	return true;
}

static void split(int64_t us, int64_t *y, int *mo, int *d, int *h, int *mi,
		  int *s, int64_t *frac)
{
	int64_t days = sl_floordiv(us, SL_US_PER_DAY);
	int64_t rem = us - days * SL_US_PER_DAY;
	sl_civil_from_days(days, y, mo, d);
	*h = (int)(rem / SL_US_PER_HOUR);
	rem %= SL_US_PER_HOUR;
	*mi = (int)(rem / SL_US_PER_MIN);
	rem %= SL_US_PER_MIN;
	*s = (int)(rem / SL_US_PER_SEC);
	*frac = rem % SL_US_PER_SEC;
}

/* "YYYY-MM-DD?HH:MM:SS" of a year 0..9999 into p (19 bytes, sep between
 * the date and the time) by hand: printf was most of a small batch's
 * timestamp formatting (7,600 instructions a call).  False for other
 * years, which go through printf. */
static bool ts_digits(int64_t y, int mo, int d, int h, int mi, int s,
		      char sep, char *p)
{
	if (y < 0 || y > 9999)
		return false;
	p[0] = (char)('0' + y / 1000);
	p[1] = (char)('0' + y / 100 % 10);
	p[2] = (char)('0' + y / 10 % 10);
	p[3] = (char)('0' + y % 10);
	p[4] = '-';
	p[5] = (char)('0' + mo / 10);
	p[6] = (char)('0' + mo % 10);
	p[7] = '-';
	p[8] = (char)('0' + d / 10);
	p[9] = (char)('0' + d % 10);
	p[10] = sep;
	p[11] = (char)('0' + h / 10);
	p[12] = (char)('0' + h % 10);
	p[13] = ':';
	p[14] = (char)('0' + mi / 10);
	p[15] = (char)('0' + mi % 10);
	p[16] = ':';
	p[17] = (char)('0' + s / 10);
	p[18] = (char)('0' + s % 10);
	return true;
}

void sl_ts_format(int64_t us, sl_buf *out)
{
	int64_t y, frac;
	int mo, d, h, mi, s;
	char t[32];
	split(us, &y, &mo, &d, &h, &mi, &s, &frac);
	if (ts_digits(y, mo, d, h, mi, s, ' ', t))
		sl_buf_add(out, t, 19);
	else
		sl_buf_printf(out, "%04lld-%02d-%02d %02d:%02d:%02d",
			      (long long)y, mo, d, h, mi, s);
	if (frac != 0) { /* ".ffffff" without its trailing zeros */
		int k = 7;
		t[0] = '.';
		for (int64_t f = frac, j = 6; j >= 1; j--, f /= 10)
			t[j] = (char)('0' + f % 10);
		while (t[k - 1] == '0')
			k--;
		sl_buf_add(out, t, (size_t)k);
	}
}

void sl_date_format(int32_t days, sl_buf *out)
{
	int64_t y;
	int mo, d;
	sl_civil_from_days(days, &y, &mo, &d);
	sl_buf_printf(out, y > 9999 ? "+%lld-%02d-%02d" : "%04lld-%02d-%02d",
		      (long long)y, mo, d);
}

/* Spark's DateTimeUtils.stringToDate: segments year (4 to 7 digits),
 * month and day (1 or 2 digits) split by '-'; after the day a ' ' or 'T'
 * ends the date and the rest is not looked at. */
bool sl_date_parse(const char *s, size_t n, int32_t *days)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30,
				     31, 31, 30, 31, 30, 31 };
	int64_t seg[3] = { 0, 1, 1 }, v;
	size_t i = 0, digits;
	int k = 0, sign = 1;
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		sign = s[i++] == '-' ? -1 : 1;
	for (;;) {
		v = 0;
		digits = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9' && digits < 8) {
			v = v * 10 + (s[i++] - '0');
			digits++;
		}
		if (k == 0 ? (digits < 4 || digits > 7)
			   : (digits < 1 || digits > 2))
			return false;
		seg[k] = v;
		if (i == n)
			break;
		if (k == 2) {
			if (s[i] != ' ' && s[i] != 'T')
				return false;
			break;
		}
		if (s[i] != '-')
			return false;
		i++;
		k++;
	}
	if (seg[1] < 1 || seg[1] > 12 || seg[2] < 1 ||
	    seg[2] > mdays[seg[1] - 1])
		return false;
	v = sign * seg[0];
	if (seg[1] == 2 && seg[2] == 29 &&
	    !((v % 4 == 0 && v % 100 != 0) || v % 400 == 0))
		return false;
	v = sl_days_from_civil(v, (int)seg[1], (int)seg[2]);
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	*days = (int32_t)v;
	return true;
}

void sl_ts_iso(int64_t us, sl_buf *out)
{
	int64_t y, frac;
	int mo, d, h, mi, s, ms;
	char t[32];
	split(us, &y, &mo, &d, &h, &mi, &s, &frac);
	ms = (int)(frac / 1000);
	if (!ts_digits(y, mo, d, h, mi, s, 'T', t)) {
		sl_buf_printf(out, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ",
			      (long long)y, mo, d, h, mi, s, ms);
		return;
	}
	t[19] = '.';
	t[20] = (char)('0' + ms / 100);
	t[21] = (char)('0' + ms / 10 % 10);
	t[22] = (char)('0' + ms % 10);
	t[23] = 'Z';
	sl_buf_add(out, t, 24);
}

static const struct {
	const char *name;
	int64_t us;
} units[] = {
	{ "microseconds", 1 },
	{ "microsecond", 1 },
	{ "us", 1 },
	{ "milliseconds", 1000 },
	{ "millisecond", 1000 },
	{ "ms", 1000 },
	{ "seconds", SL_US_PER_SEC },
	{ "second", SL_US_PER_SEC },
	{ "secs", SL_US_PER_SEC },
	{ "sec", SL_US_PER_SEC },
	{ "s", SL_US_PER_SEC },
	{ "minutes", SL_US_PER_MIN },
	{ "minute", SL_US_PER_MIN },
	{ "mins", SL_US_PER_MIN },
	{ "min", SL_US_PER_MIN },
	{ "m", SL_US_PER_MIN },
	{ "hours", SL_US_PER_HOUR },
	{ "hour", SL_US_PER_HOUR },
	{ "h", SL_US_PER_HOUR },
	{ "days", SL_US_PER_DAY },
	{ "day", SL_US_PER_DAY },
	{ "d", SL_US_PER_DAY },
	{ "weeks", 7 * SL_US_PER_DAY },
	{ "week", 7 * SL_US_PER_DAY },
	{ "w", 7 * SL_US_PER_DAY },
	{ "months", 31 * SL_US_PER_DAY },
	{ "month", 31 * SL_US_PER_DAY },
	{ "years", 12 * 31 * SL_US_PER_DAY },
	{ "year", 12 * 31 * SL_US_PER_DAY },
};

/* ---- Spark's interval literal (IntervalUtils.fromIntervalString) ----
 *
 * Without the INTERVAL keyword the text is a unit list ("1 day 2 hours").
 * With it, the SQL literal forms are accepted too: every value of a unit
 * list may be quoted ("interval '1' day '2' hours"), and a quoted string
 * followed by "<unit> to <unit>" is the ANSI unit-to-unit form ("interval
 * '1-2' year to month", "interval '1 2:3:4' day to second"), whose string
 * must have exactly the fields the two units name. */

static const char *skip_ws(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* A lower-case word of letters at p into w (n bytes); returns past it. */
static const char *read_word(const char *p, char *w, size_t n)
{
	size_t k = 0;
	while (isalpha((unsigned char)*p) && k + 1 < n)
		w[k++] = (char)tolower((unsigned char)*p++);
	w[k] = '\0';
	return isalpha((unsigned char)*p) ? p - k : p; /* too long: no word */
}

/* Digits at *pp into *v (at most 18 of them); false when there are none. */
static bool read_digits(const char **pp, int64_t *v)
{
	const char *p = *pp;
	int64_t x = 0;
	int k = 0;
	while (isdigit((unsigned char)*p)) {
		if (++k > 18)
			return false;
		x = x * 10 + (*p++ - '0');
	}
	*v = x;
	*pp = p;
	return k > 0;
}

/* The ANSI field units in order; -1 for another word. */
static int ansi_unit(const char *w)
{
	static const char *const names[] = { "year", "month",  "day",
					     "hour", "minute", "second" };
	int i;
	for (i = 0; i < 6; i++)
		if (strcmp(w, names[i]) == 0)
			return i;
	return -1;
}

/* "[+|-]y-m" (YEAR TO MONTH, months 0..11), months as 31 days. */
static int parse_year_month(const char *q, int64_t *us)
{
	int64_t y, m, sign = 1;
	q = skip_ws(q);
	if (*q == '+' || *q == '-')
		sign = *q++ == '-' ? -1 : 1;
	if (!read_digits(&q, &y) || *q++ != '-' || !read_digits(&q, &m) ||
	    m > 11 || *skip_ws(q) != '\0' || y > 178956970 /* INT_MAX / 12 */ ||
	    __builtin_mul_overflow(y * 12 + m, 31 * SL_US_PER_DAY, us))
		return -1; /* past the range: found by tests/fuzz/fuzz_time.c */
	*us *= sign;
	return 0;
}

/* "[+|-]d h:m:s.f" cut to the fields from..to (2 = day .. 5 = second);
 * the leading field is unbounded, the others must be in range. */
static int parse_day_time(const char *q, int from, int to, int64_t *us)
{
	static const int64_t mul[] = { SL_US_PER_DAY, SL_US_PER_HOUR,
				       SL_US_PER_MIN, SL_US_PER_SEC };
	static const int64_t lim[] = { 0, 23, 59, 59 };
	int64_t total = 0, sign = 1, v;
	int f;
	q = skip_ws(q);
	if (*q == '+' || *q == '-')
		sign = *q++ == '-' ? -1 : 1;
	for (f = from - 2; f <= to - 2; f++) {
		if (f > from - 2) {
			if (f == 1 && *q == ' ')
				q = skip_ws(q);
			else if (f > 1 && *q == ':')
				q++;
			else
				return -1;
		}
		if (!read_digits(&q, &v) || (f > from - 2 && v > lim[f]) ||
		    v > INT64_MAX / mul[f] / 2)
			return -1;
		total += v * mul[f];
	}
	if (to == 5 && *q == '.') {
		int64_t frac = 0, scale = 100000;
		q++;
		if (!isdigit((unsigned char)*q))
			return -1;
		for (; isdigit((unsigned char)*q); q++, scale /= 10)
			frac += scale > 0 ? (*q - '0') * scale : 0;
		total += frac;
	}
	if (*skip_ws(q) != '\0')
		return -1;
	*us = sign * total;
	return 0;
}

/* p just past a quote: the quoted text into buf (n bytes) and *after past
 * the closing quote.  Returns -1 without a closing quote. */
static int read_quoted(const char *p, char *buf, size_t n, const char **after)
{
	const char *q = strchr(p, '\'');
	size_t len;
	if (q == NULL || (len = (size_t)(q - p)) >= n)
		return -1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	*after = q + 1;
	return 0;
}

/* After INTERVAL: "[+|-]'str' unit TO unit".  1 when p has that form (*us
 * set), 0 when it has not, -1 when it has but the string does not fit. */
static int parse_unit_to_unit(const char *p, int64_t *us)
{
	char str[128], w1[16], w2[16], w3[16];
	const char *q;
	int64_t sign = 1;
	int from, to;
	if (*p == '+' || *p == '-') {
		sign = *p == '-' ? -1 : 1;
		p = skip_ws(p + 1);
	}
	if (*p != '\'' || read_quoted(p + 1, str, sizeof str, &q) < 0)
		return 0;
	q = read_word(skip_ws(q), w1, sizeof w1);
	q = read_word(skip_ws(q), w2, sizeof w2);
	if (strcmp(w2, "to") != 0)
		return 0;
	q = read_word(skip_ws(q), w3, sizeof w3);
	from = ansi_unit(w1);
	to = ansi_unit(w3);
	if (*skip_ws(q) != '\0' || from < 0 || to <= from ||
	    (from <= 1) != (to <= 1))
		return -1;
	if ((from == 0 ? parse_year_month(str, us)
		       : parse_day_time(str, from, to, us)) < 0)
		return -1;
	*us *= sign;
	return 1;
}

/* A number as Spark's interval strings write it: [+|-]digits[.digits]
 * (no hex, no exponent, no nan or inf, which strtod would take), as an
 * integer part of at most 18 digits and a fraction in [0, 1).  false when
 * there is none or it is too long. */
static bool read_number(const char **pp, int64_t *ip, double *frac, int *sign)
{
	const char *p = *pp;
	int nd = 0;
	double f = 0, scale = 0.1;
	*sign = 1;
	if (*p == '+' || *p == '-')
		*sign = *p++ == '-' ? -1 : 1;
	*ip = 0;
	while (isdigit((unsigned char)*p)) {
		if (++nd > 18)
			return false;
		*ip = *ip * 10 + (*p++ - '0');
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			f += (*p++ - '0') * scale;
			scale /= 10;
			nd++;
		}
	}
	if (nd == 0)
		return false;
	*frac = f;
	*pp = p;
	return true;
}

/* One value of a unit list at *pp: a number, or with INTERVAL also a
 * [+|-]'quoted number'.  false when there is none. */
static bool read_value(const char **pp, bool quoted_ok, int64_t *ip,
		       double *frac, int *sign)
{
	const char *p = *pp;
	char str[64];
	int qsign = 1;
	if (quoted_ok && (*p == '+' || *p == '-') && *skip_ws(p + 1) == '\'') {
		qsign = *p == '-' ? -1 : 1;
		p = skip_ws(p + 1);
	}
	if (quoted_ok && *p == '\'') {
		const char *after, *q = str;
		if (read_quoted(p + 1, str, sizeof str, &after) < 0 ||
		    !read_number(&q, ip, frac, sign) || *skip_ws(q) != '\0')
			return false;
		*sign *= qsign;
		*pp = after;
		return true;
	}
	return read_number(pp, ip, frac, sign);
}

/* The microseconds of a unit word, or -1. */
static int64_t unit_us(const char *unit)
{
	size_t i;
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(unit, units[i].name) == 0)
			return units[i].us;
	return -1;
}

int sl_duration_parse(const char *s, int64_t *us, sl_err *err)
{
	const char *p = skip_ws(s);
	int64_t total = 0;
	int parts = 0, rc;
	bool prefixed = false;
	if (strncasecmp(p, "interval", 8) == 0 &&
	    (p[8] == '\0' || isspace((unsigned char)p[8]) || p[8] == '\'')) {
		p = skip_ws(p + 8);
		prefixed = true;
		if ((rc = parse_unit_to_unit(p, us)) != 0)
			return rc > 0
				   ? 0
				   : sl_err_set(
					 err, SL_EPARSE,
					 "invalid interval '%s': the string does not match the unit-to-unit form",
					 s);
	}
	while (*p != '\0') {
		double frac;
		int64_t ip, u, v;
		int sign;
		const char *at = p;
		char unit[32];
		if (!read_value(&p, prefixed, &ip, &frac, &sign))
			return sl_err_set(
			    err, SL_EPARSE,
			    "invalid interval '%s': expected a number at col %d",
			    s, (int)(p - s) + 1);
		p = read_word(skip_ws(p), unit, sizeof unit);
		if (unit[0] == '\0')
			return sl_err_set(
			    err, SL_EPARSE,
			    "invalid interval '%s': missing unit at col %d", s,
			    (int)(p - s) + 1);
		if ((u = unit_us(unit)) < 0)
			return sl_err_set(
			    err, SL_EPARSE,
			    "invalid interval '%s': unknown unit '%s'", s,
			    unit);
		/* Spark's intervals are exact: a value past the range is an
		 * error naming it, never a wrapped number. */
		if (__builtin_mul_overflow(ip, u, &v) ||
		    __builtin_add_overflow(v, (int64_t)(frac * (double)u + 0.5),
					   &v) ||
		    __builtin_add_overflow(total, sign * v, &total))
			return sl_err_set(
			    err, SL_EPARSE,
			    "invalid interval '%s': '%.*s' is out of range", s,
			    (int)(p - at), at);
		parts++;
		while (isspace((unsigned char)*p) || *p == ',')
			p++;
	}
	if (parts == 0)
		return sl_err_set(err, SL_EPARSE, "invalid interval '%s'", s);
	*us = total;
	return 0;
}

void sl_duration_format(int64_t us, sl_buf *out)
{
	static const struct {
		const char *name;
		int64_t us;
	} u[] = { { "day", SL_US_PER_DAY },    { "hour", SL_US_PER_HOUR },
		  { "minute", SL_US_PER_MIN }, { "second", SL_US_PER_SEC },
		  { "millisecond", 1000 },     { "microsecond", 1 } };
	size_t i;
	bool first = true, neg = us < 0;
	if (us == 0) {
		sl_buf_adds(out, "0 seconds");
		return;
	}
	/* every part carries the sign ("-1 hour -30 minutes", as Spark's
	 * CalendarInterval prints it), so the text parses back to us */
	for (i = 0; i < sizeof u / sizeof u[0]; i++) {
		int64_t n = us / u[i].us;
		if (n == 0)
			continue;
		us -= n * u[i].us;
		sl_buf_printf(out, "%s%s%llu %s%s", first ? "" : " ",
			      neg ? "-" : "",
			      (unsigned long long)(neg ? 0 - (uint64_t)n
						       : (uint64_t)n),
			      u[i].name, n == 1 || n == -1 ? "" : "s");
		first = false;
	}
}

int sl_time_conf_parse(const char *key, const char *s, int64_t *us,
		       sl_err *err)
{
	static const struct {
		const char *name;
		int64_t us;
	} tunits[] = { { "us", 1 },
		      { "ms", 1000 },
		      { "s", SL_US_PER_SEC },
		      { "m", SL_US_PER_MIN },
		      { "min", SL_US_PER_MIN },
		      { "h", SL_US_PER_HOUR },
		      { "d", SL_US_PER_DAY } };
	const char *p = skip_ws(s), *u;
	int64_t v = 0, mul = 1000; /* a bare number: milliseconds */
	size_t i, n;
	bool digits = false;
	for (; *p >= '0' && *p <= '9'; p++, digits = true)
		if (v > (INT64_MAX - 9) / 10)
			goto bad;
		else
			v = v * 10 + (*p - '0');
	for (u = p; isalpha((unsigned char)*p); p++)
		;
	n = (size_t)(p - u);
	if (!digits || *skip_ws(p) != '\0')
		goto bad;
	if (n > 0) {
		for (i = 0; i < sizeof tunits / sizeof tunits[0]; i++)
			if (strlen(tunits[i].name) == n &&
			    strncasecmp(u, tunits[i].name, n) == 0)
				break;
		if (i == sizeof tunits / sizeof tunits[0])
			goto bad;
		mul = tunits[i].us;
	}
	if (v > INT64_MAX / mul)
		goto bad;
	*us = v * mul;
	return 0;
bad:
	return sl_err_set(err, SL_EINVAL,
			  "%s should be a time (a whole number and a unit us, "
			  "ms, s, m, min, h or d; a bare number is "
			  "milliseconds), but was %s",
			  key, s);
}
