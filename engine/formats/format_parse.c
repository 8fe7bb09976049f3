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

bool sl_format_parse_ts(const char *s, size_t n, int64_t *us,
			sl_format_tscache *c)
{
	int64_t tod;
	if (n < 19 || !sl_ts_fixed_time(s, n, &tod))
		return sl_ts_parse(s, n, us);
	if (!c->valid || memcmp(c->date, s, 10) != 0) {
		int64_t days;
		if (!sl_ts_fixed_date(s, &days))
			return sl_ts_parse(s, n, us);
		memcpy(c->date, s, 10);
		c->days = days;
		c->valid = true;
	}
	*us = c->days * SL_US_PER_DAY + tod;
	return true;
}
