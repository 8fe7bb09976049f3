/*
 * timeutil: civil-calendar arithmetic (Howard Hinnant's algorithms),
 * timestamp text, and interval parsing with Spark's unit rules.
 */
#include "timeutil.h"

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

bool sl_ts_parse(const char *s, size_t n, int64_t *us)
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
	while (p < e && isdigit((unsigned char)*p)) /* years past 9999 */
		y = y * 10 + (*p++ - '0');
	if (neg)
		y = -y;
	if (p >= e || *p++ != '-' || !digits(&p, e, 2, &mo) || p >= e ||
	    *p++ != '-' || !digits(&p, e, 2, &d))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
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
			off = sign * ((int64_t)oh * 3600 + om * 60) * SL_US_PER_SEC;
		}
	}
	if (p != e)
		return false;
	*us = sl_days_from_civil(y, mo, d) * SL_US_PER_DAY +
	      (int64_t)h * SL_US_PER_HOUR + (int64_t)mi * SL_US_PER_MIN +
	      (int64_t)sec * SL_US_PER_SEC + frac - off;
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

void sl_ts_format(int64_t us, sl_buf *out)
{
	int64_t y, frac;
	int mo, d, h, mi, s;
	split(us, &y, &mo, &d, &h, &mi, &s, &frac);
	sl_buf_printf(out, "%04lld-%02d-%02d %02d:%02d:%02d", (long long)y, mo,
		      d, h, mi, s);
	if (frac != 0) {
		char f[8];
		int k;
		snprintf(f, sizeof f, "%06lld", (long long)frac);
		for (k = 5; k > 0 && f[k] == '0'; k--)
			f[k] = '\0';
		sl_buf_printf(out, ".%s", f);
	}
}

void sl_ts_iso(int64_t us, sl_buf *out)
{
	int64_t y, frac;
	int mo, d, h, mi, s;
	split(us, &y, &mo, &d, &h, &mi, &s, &frac);
	sl_buf_printf(out, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ",
		      (long long)y, mo, d, h, mi, s, (int)(frac / 1000));
}

static const struct {
	const char *name;
	int64_t us;
} units[] = {
	{"microseconds", 1},
	{"microsecond", 1},
	{"us", 1},
	{"milliseconds", 1000},
	{"millisecond", 1000},
	{"ms", 1000},
	{"seconds", SL_US_PER_SEC},
	{"second", SL_US_PER_SEC},
	{"secs", SL_US_PER_SEC},
	{"sec", SL_US_PER_SEC},
	{"s", SL_US_PER_SEC},
	{"minutes", SL_US_PER_MIN},
	{"minute", SL_US_PER_MIN},
	{"mins", SL_US_PER_MIN},
	{"min", SL_US_PER_MIN},
	{"m", SL_US_PER_MIN},
	{"hours", SL_US_PER_HOUR},
	{"hour", SL_US_PER_HOUR},
	{"h", SL_US_PER_HOUR},
	{"days", SL_US_PER_DAY},
	{"day", SL_US_PER_DAY},
	{"d", SL_US_PER_DAY},
	{"weeks", 7 * SL_US_PER_DAY},
	{"week", 7 * SL_US_PER_DAY},
	{"w", 7 * SL_US_PER_DAY},
	{"months", 31 * SL_US_PER_DAY},
	{"month", 31 * SL_US_PER_DAY},
	{"years", 12 * 31 * SL_US_PER_DAY},
	{"year", 12 * 31 * SL_US_PER_DAY},
};

/* "interval '1 2:3:4' day to second" */
static int parse_day_to_second(const char *q, int64_t *us)
{
	long long dd = 0, hh = 0, mm = 0;
	double ss = 0;
	int sign = 1;
	while (isspace((unsigned char)*q))
		q++;
	if (*q == '-') {
		sign = -1;
		q++;
	}
	if (sscanf(q, "%lld %lld:%lld:%lf", &dd, &hh, &mm, &ss) != 4)
		return -1;
	*us = sign * (dd * SL_US_PER_DAY + hh * SL_US_PER_HOUR +
		      mm * SL_US_PER_MIN + (int64_t)(ss * 1e6 + 0.5));
	return 0;
}

int sl_duration_parse(const char *s, int64_t *us, sl_err *err)
{
	const char *p = s;
	int64_t total = 0;
	int parts = 0;
	while (isspace((unsigned char)*p))
		p++;
	if (strncasecmp(p, "interval", 8) == 0 &&
	    (p[8] == '\0' || isspace((unsigned char)p[8]))) {
		p += 8;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\'') {
			const char *q = strchr(p + 1, '\'');
			if (q != NULL && strstr(q, "to second") != NULL) {
				char tmp[64];
				size_t n = (size_t)(q - p - 1);
				if (n >= sizeof tmp)
					n = sizeof tmp - 1;
				memcpy(tmp, p + 1, n);
				tmp[n] = '\0';
				if (parse_day_to_second(tmp, us) == 0)
					return 0;
			}
			return sl_err_set(err, SL_EPARSE,
					  "invalid interval '%s'", s);
		}
	}
	while (*p != '\0') {
		char *end;
		double v;
		char unit[32];
		size_t k = 0, i;
		bool found = false;
		v = strtod(p, &end);
		if (end == p)
			return sl_err_set(err, SL_EPARSE,
					  "invalid interval '%s': expected a number at col %d",
					  s, (int)(p - s) + 1);
		p = end;
		while (isspace((unsigned char)*p))
			p++;
		while (isalpha((unsigned char)*p) && k + 1 < sizeof unit)
			unit[k++] = (char)tolower((unsigned char)*p++);
		unit[k] = '\0';
		if (k == 0)
			return sl_err_set(err, SL_EPARSE,
					  "invalid interval '%s': missing unit at col %d",
					  s, (int)(p - s) + 1);
		for (i = 0; i < sizeof units / sizeof units[0]; i++) {
			if (strcmp(unit, units[i].name) == 0) {
				total += (int64_t)(v * (double)units[i].us +
						   (v < 0 ? -0.5 : 0.5));
				found = true;
				break;
			}
		}
		if (!found)
			return sl_err_set(err, SL_EPARSE,
					  "invalid interval '%s': unknown unit '%s'",
					  s, unit);
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
	} u[] = {{"day", SL_US_PER_DAY},
		 {"hour", SL_US_PER_HOUR},
		 {"minute", SL_US_PER_MIN},
		 {"second", SL_US_PER_SEC},
		 {"millisecond", 1000},
		 {"microsecond", 1}};
	size_t i;
	bool first = true;
	if (us == 0) {
		sl_buf_adds(out, "0 seconds");
		return;
	}
	if (us < 0) {
		sl_buf_addc(out, '-');
		us = -us;
	}
	for (i = 0; i < sizeof u / sizeof u[0]; i++) {
		int64_t n = us / u[i].us;
		if (n == 0)
			continue;
		us -= n * u[i].us;
		sl_buf_printf(out, "%s%lld %s%s", first ? "" : " ",
			      (long long)n, u[i].name, n == 1 ? "" : "s");
		first = false;
	}
}
