/*
 * format_parse: text to values as Spark's CSV and JSON readers do (Java's
 * Long.parseLong, Double.parseDouble with its "NaN"/"Infinity" words,
 * Boolean.parseBoolean, the timestamp pattern), for the readers in
 * csv.c and json*.c (fileformat.h).
 */
#include "formats/fileformat.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/timeutil.h"

bool sl_format_parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0, lim = (uint64_t)INT64_MAX;
	size_t k = 0;
	bool neg = false;
	if (n > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		k = 1;
		if (neg)
			lim++;
	}
	if (k == n)
		return false;
	for (; k < n; k++) {
		unsigned d = (unsigned)(s[k] - '0');
		if (d > 9 || v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static locale_t c_locale(void)
{
	static locale_t loc;
	if (loc == (locale_t)0)
		loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return loc;
}

double sl_format_strtod(const char *s, char **end)
{
	locale_t loc = c_locale();
	if (loc == (locale_t)0)
		return strtod(s, end);
	return strtod_l(s, end, loc);
}

/* Double.parseDouble: trims, [+-]NaN|Infinity, decimal with optional
 * exponent and a trailing f/F/d/D; no hex here. */
bool sl_format_parse_double(const char *s, size_t n, double *out)
{
	char tmp[128], *end;
	size_t k, digits = 0;
	const char *b = s, *e = s + n;
	bool neg = false;
	while (b < e && (unsigned char)*b <= ' ')
		b++;
	while (e > b && (unsigned char)e[-1] <= ' ')
		e--;
	n = (size_t)(e - b);
	if (n > 0 && (b[0] == '-' || b[0] == '+')) {
		neg = b[0] == '-';
		if (n == 4 && memcmp(b + 1, "NaN", 3) == 0)
			return *out = NAN, true;
		if (n == 9 && memcmp(b + 1, "Infinity", 8) == 0)
			return *out = neg ? -INFINITY : INFINITY, true;
	}
	if (n == 3 && memcmp(b, "NaN", 3) == 0)
		return *out = NAN, true;
	if (n == 8 && memcmp(b, "Infinity", 8) == 0)
		return *out = INFINITY, true;
	if (n > 0 && strchr("fFdD", e[-1]) != NULL)
		n--;
	if (n == 0 || n >= sizeof tmp)
		return false;
	for (k = 0; k < n; k++) {
		if (b[k] >= '0' && b[k] <= '9')
			digits++;
		else if (strchr(".eE+-", b[k]) == NULL)
			return false;
	}
	if (digits == 0)
		return false;
	memcpy(tmp, b, n);
	tmp[n] = '\0';
	errno = 0;
	*out = sl_format_strtod(tmp, &end);
	return end == tmp + n;
}

bool sl_format_parse_bool(const char *s, size_t n, bool *out)
{
	if (n == 4 && strncasecmp(s, "true", 4) == 0)
		return *out = true, true;
	if (n == 5 && strncasecmp(s, "false", 5) == 0)
		return *out = false, true;
	return false;
}

static inline int d2(const char *p)
{
	unsigned a = (unsigned)(p[0] - '0'), b = (unsigned)(p[1] - '0');
	return a > 9 || b > 9 ? -1 : (int)(a * 10 + b);
}

bool sl_format_parse_ts(const char *s, size_t n, int64_t *us,
			sl_format_tscache *c)
{
	int h, mi, sec, mo, d, y1, y2, k;
	int64_t frac = 0, scale = 100000;
	size_t i = 19;
	if (n < 19 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
		return sl_ts_parse(s, n, us);
	h = d2(s + 11);
	mi = d2(s + 14);
	sec = d2(s + 17);
	if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
		return sl_ts_parse(s, n, us);
	if (i < n && s[i] == '.') {
		for (i++, k = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++, k++)
			if (k < 6) {
				frac += (s[i] - '0') * scale;
				scale /= 10;
			}
		if (k == 0)
			return sl_ts_parse(s, n, us);
	}
	if (i < n && s[i] == 'Z')
		i++;
	if (i != n)
		return sl_ts_parse(s, n, us);
	if (!c->valid || memcmp(c->date, s, 10) != 0) {
		y1 = d2(s);
		y2 = d2(s + 2);
		mo = d2(s + 5);
		d = d2(s + 8);
		if (y1 < 0 || y2 < 0 || mo < 1 || mo > 12 || d < 1 || d > 31)
			return sl_ts_parse(s, n, us);
		{
			int64_t days, t2;
			int yy;
			int mo2, dd2;
			days = sl_days_from_civil(y1 * 100 + y2, mo, d);
			sl_civil_from_days(days, &t2, &mo2, &dd2);
			yy = (int)t2;
			if (yy != y1 * 100 + y2 || mo2 != mo || dd2 != d)
				return false; /* Feb 30 and friends */
			memcpy(c->date, s, 10);
			c->days = days;
			c->valid = true;
		}
	}
	*us = c->days * SL_US_PER_DAY + (int64_t)h * SL_US_PER_HOUR +
	      (int64_t)mi * SL_US_PER_MIN + (int64_t)sec * SL_US_PER_SEC + frac;
	return true;
}
