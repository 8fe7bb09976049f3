/*
 * func_time: the date/time functions (year..second, date_format, to_timestamp,
 * unix_timestamp, timestamp_seconds, current_timestamp/now).
 * Rows of the function registry (func.c).
 */
#include "expr/func_int.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "core/timeutil.h"
#include "core/utf8.h"

/* ------------------------------------------------------------ datetime */

static int64_t now_us;

void sl_func_set_now(int64_t us)
{
	now_us = us;
}

struct civil {
	int64_t y;
	int mo, d, h, mi, s, us, dow, doy;
};

static void civil_of(int64_t t, struct civil *c)
{
	int64_t days = sl_floordiv(t, SL_US_PER_DAY);
	int64_t rem = t - days * SL_US_PER_DAY;
	sl_civil_from_days(days, &c->y, &c->mo, &c->d);
	c->h = (int)(rem / SL_US_PER_HOUR);
	c->mi = (int)(rem / SL_US_PER_MIN % 60);
	c->s = (int)(rem / SL_US_PER_SEC % 60);
	c->us = (int)(rem % SL_US_PER_SEC);
	c->dow = (int)sl_floormod(
	    days + 3, 7); /* 0 = Monday; 1970-01-01 was a Thursday */
	c->doy = (int)(days - sl_days_from_civil(c->y, 1, 1)) + 1;
}

static const char *const month_names[] = { "January", "February", "March",
					   "April",   "May",      "June",
					   "July",    "August",   "September",
					   "October", "November", "December" };
static const char *const day_names[] = { "Monday",   "Tuesday", "Wednesday",
					 "Thursday", "Friday",  "Saturday",
					 "Sunday" };

/* Length of the run of letter c at p. */
static int run_len(const char *p)
{
	int n = 1;
	while (p[n] == p[0])
		n++;
	return n;
}

static const char pattern_letters[] = "yMLdDHhkKmsSaEzZX";

/* Spark's datetime patterns: unsupported letters fail at resolve. */
static int pattern_check(const char *pat, sl_err *err)
{
	const char *p;
	for (p = pat; *p; p++) {
		if (*p == '\'') {
			for (p++; *p && !(*p == '\'' && p[1] != '\''); p++)
				if (*p == '\'')
					p++;
			if (*p == '\0')
				return sl_err_set(
				    err, SL_EANALYSIS,
				    "unterminated quote in datetime pattern '%s'",
				    pat);
			continue;
		}
		if (isalpha((unsigned char)*p) &&
		    strchr(pattern_letters, *p) == NULL)
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "unsupported datetime pattern letter '%c' in '%s'",
			    *p, pat);
	}
	return 0;
}

static void pad_num(sl_buf *out, int64_t v, int width)
{
	sl_buf_printf(out, "%0*lld", width, (long long)v);
}

static void format_field(char c, int n, const struct civil *t, sl_buf *out)
{
	int k, h12 = t->h % 12 ? t->h % 12 : 12;
	switch (c) {
	case 'y':
		if (n == 2)
			pad_num(out, sl_floormod(t->y, 100), 2);
		else
			pad_num(out, t->y, n);
		break;
	case 'M':
	case 'L':
		if (n >= 4)
			sl_buf_adds(out, month_names[t->mo - 1]);
		else if (n == 3)
			sl_buf_add(out, month_names[t->mo - 1], 3);
		else
			pad_num(out, t->mo, n);
		break;
	case 'd': pad_num(out, t->d, n); break;
	case 'D': pad_num(out, t->doy, n); break;
	case 'H': pad_num(out, t->h, n); break;
	case 'h': pad_num(out, h12, n); break;
	case 'k': pad_num(out, t->h ? t->h : 24, n); break;
	case 'K': pad_num(out, t->h % 12, n); break;
	case 'm': pad_num(out, t->mi, n); break;
	case 's': pad_num(out, t->s, n); break;
	case 'S': {
		char frac[8];
		snprintf(frac, sizeof frac, "%06d", t->us);
		for (k = 0; k < n; k++)
			sl_buf_addc(out, k < 6 ? frac[k] : '0');
		break;
	}
	case 'a': sl_buf_adds(out, t->h < 12 ? "AM" : "PM"); break;
	case 'E':
		if (n >= 4)
			sl_buf_adds(out, day_names[t->dow]);
		else
			sl_buf_add(out, day_names[t->dow], 3);
		break;
	case 'z': sl_buf_adds(out, "UTC"); break;
	case 'Z': sl_buf_adds(out, "+0000"); break;
	case 'X': sl_buf_adds(out, "Z"); break;
	default: break;
	}
}

static void pattern_format(const char *pat, int64_t ts, sl_buf *out)
{
	struct civil t;
	const char *p = pat;
	civil_of(ts, &t);
	while (*p) {
		if (*p == '\'') {
			if (p[1] == '\'') { /* '' is a quote */
				sl_buf_addc(out, '\'');
				p += 2;
				continue;
			}
			for (p++; *p; p++) {
				if (*p == '\'' && p[1] == '\'') {
					sl_buf_addc(out, '\'');
					p++;
				} else if (*p == '\'') {
					p++;
					break;
				} else {
					sl_buf_addc(out, *p);
				}
			}
			continue;
		}
		if (isalpha((unsigned char)*p)) {
			int n = run_len(p);
			format_field(*p, n, &t, out);
			p += n;
			continue;
		}
		sl_buf_addc(out, *p++);
	}
}

static bool read_digits(const char **s, const char *e, int min, int max,
			int64_t *v)
{
	int k = 0;
	*v = 0;
	while (*s < e && k < max && isdigit((unsigned char)**s)) {
		*v = *v * 10 + (**s - '0');
		(*s)++;
		k++;
	}
	return k >= min;
}

static bool read_name(const char **s, const char *e, const char *const *names,
		      int count, bool full, int64_t *v)
{
	int k;
	for (k = 0; k < count; k++) {
		size_t n = full ? strlen(names[k]) : 3;
		if ((size_t)(e - *s) >= n &&
		    strncasecmp(*s, names[k], n) == 0) {
			*s += n;
			*v = k + 1;
			return true;
		}
	}
	return false;
}

/* Parse text by a datetime pattern (to_timestamp, unix_timestamp). */
static bool pattern_parse(const char *pat, const char *s, size_t len,
			  int64_t *us)
{
	const char *e = s + len, *p = pat;
	int64_t y = 1970, mo = 1, d = 1, h = 0, mi = 0, sec = 0, frac = 0, v;
	bool pm = false, ampm = false;
	while (*p) {
		int n = isalpha((unsigned char)*p) ? run_len(p) : 1;
		bool okf = true;
		if (*p == '\'') {
			const char *q = p + 1;
			if (*q == '\'') {
				okf = s < e && *s++ == '\'';
				p += 2;
			} else {
				for (; *q && *q != '\''; q++)
					if (s >= e || *s++ != *q)
						return false;
				p = *q ? q + 1 : q;
			}
			if (!okf)
				return false;
			continue;
		}
		switch (*p) {
		case 'y':
			okf = read_digits(&s, e, n == 2 ? 2 : 1, n == 2 ? 2 : 9,
					  &y);
			if (n == 2)
				y += 2000;
			break;
		case 'M':
		case 'L':
			if (n >= 3)
				okf = read_name(&s, e, month_names, 12, n >= 4,
						&mo);
			else
				okf = read_digits(&s, e, n, 2, &mo);
			break;
		case 'd': okf = read_digits(&s, e, n, 2, &d); break;
		case 'H':
		case 'k': okf = read_digits(&s, e, n, 2, &h); break;
		case 'h':
		case 'K':
			okf = read_digits(&s, e, n, 2, &h);
			ampm = true;
			break;
		case 'm': okf = read_digits(&s, e, n, 2, &mi); break;
		case 's': okf = read_digits(&s, e, n, 2, &sec); break;
		case 'S': {
			int k;
			okf = read_digits(&s, e, n, n, &frac);
			for (k = n; k < 6; k++)
				frac *= 10;
			for (k = 6; k < n; k++)
				frac /= 10;
			break;
		}
		case 'a':
			if (e - s >= 2 && strncasecmp(s, "PM", 2) == 0)
				pm = true;
			else if (!(e - s >= 2 && strncasecmp(s, "AM", 2) == 0))
				return false;
			s += 2;
			break;
		case 'E':
			okf = read_name(&s, e, day_names, 7, n >= 4, &v);
			break;
		case 'X':
		case 'Z':
		case 'z':
			if (s < e && (*s == 'Z' || *s == 'z'))
				s++;
			break;
		default:
			if (isalpha((unsigned char)*p))
				return false;
			okf = s < e && *s++ == *p;
		}
		if (!okf)
			return false;
		p += n;
	}
	if (s != e || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 59)
		return false;
	if (ampm) {
		if (h < 1 || h > 12)
			return false;
		h = h % 12 + (pm ? 12 : 0);
	}
	{ /* reject dates that do not exist (31/02) */
		int64_t yy;
		int m2, d2;
		sl_civil_from_days(sl_days_from_civil(y, (int)mo, (int)d), &yy,
				   &m2, &d2);
		if (m2 != mo || d2 != d)
			return false;
	}
	*us = sl_days_from_civil(y, (int)mo, (int)d) * SL_US_PER_DAY +
	      h * SL_US_PER_HOUR + mi * SL_US_PER_MIN + sec * SL_US_PER_SEC +
	      frac;
	return true;
}

static int res_ts_field(sl_expr *call, sl_err *err)
{
	return sl_func_all_args(call, SL_TIMESTAMP, SL_INT, err);
}

static sl_col *ev_ts_field(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	const char *nm = call->name;
	char which = strcmp(nm, "year") == 0     ? 'y'
		     : strcmp(nm, "month") == 0  ? 'M'
		     : strcmp(nm, "hour") == 0   ? 'h'
		     : strcmp(nm, "minute") == 0 ? 'm'
		     : strcmp(nm, "second") == 0 ? 's'
						 : 'd';
	int64_t i;
	struct civil t;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		civil_of(sl_col_i64(args[0])[i], &t);
		sl_col_i32(o)[i] = which == 'y'   ? (int32_t)t.y
				   : which == 'M' ? t.mo
				   : which == 'd' ? t.d
				   : which == 'h' ? t.h
				   : which == 'm' ? t.mi
						  : t.s;
	}
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

static int res_date_format(sl_expr *call, sl_err *err)
{
	const char *pat;
	if (sl_expr_arg_kind(call, 0, SL_TIMESTAMP, err) < 0 ||
	    sl_expr_arg_kind(call, 1, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	pat = sl_func_lit_str(call, 1);
	if (pat != NULL && pattern_check(pat, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, SL_STRING, sl_func_any_nullable(call));
}

static sl_col *ev_date_format(const sl_expr *call, sl_col *const *args,
			      int64_t n, sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	sl_buf b, pat;
	int64_t i;
	int rc = 0;
	if (o == NULL)
		return NULL;
	sl_buf_init(&b);
	sl_buf_init(&pat);
	for (i = 0; i < n && rc == 0; i++) {
		const sl_str *ps = &sl_col_str(args[1])[i];
		if (sl_func_row_null(args, 2, i)) {
			rc = sl_col_set_null(o, i);
			continue;
		}
		sl_buf_clear(&pat);
		sl_buf_add(&pat, ps->p ? ps->p : "", ps->len);
		sl_buf_clear(&b);
		pattern_format(sl_buf_cstr(&pat), sl_col_i64(args[0])[i], &b);
		rc = sl_buf_failed(&b)
			 ? SL_ENOMEM
			 : sl_col_set_str(o, i, b.len ? b.p : "", b.len);
	}
	sl_buf_release(&b);
	sl_buf_release(&pat);
	return rc < 0 ? sl_func_oom(o, err) : o;
}

/* to_timestamp(x[, fmt]) and unix_timestamp([x[, fmt]]): x a TIMESTAMP
 * passes through, anything else is read as a string. */
static int res_parse_ts(sl_expr *call, sl_err *err)
{
	bool unix = call->name[0] == 'u';
	const char *pat;
	if (call->nargs > 0 && call->args[0]->rtype->kind != SL_TIMESTAMP &&
	    sl_expr_arg_kind(call, 0, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	if (call->nargs > 1) {
		if (sl_expr_arg_kind(call, 1, SL_STRING, err) < 0)
			return SL_EANALYSIS;
		pat = sl_func_lit_str(call, 1);
		if (pat != NULL && pattern_check(pat, err) < 0)
			return SL_EANALYSIS;
	}
	return sl_func_rtype(call, unix ? SL_BIGINT : SL_TIMESTAMP,
			     call->nargs > 0);
}

static bool parse_ts_row(const sl_expr *call, sl_col *const *args, int64_t i,
			 sl_buf *pat, int64_t *us)
{
	const sl_str *s;
	if (args[0]->type->kind == SL_TIMESTAMP) {
		*us = sl_col_i64(args[0])[i];
		return true;
	}
	s = &sl_col_str(args[0])[i];
	if (call->nargs < 2 && call->name[0] != 'u')
		return sl_ts_parse(s->p ? s->p : "", s->len, us);
	sl_buf_clear(pat);
	if (call->nargs < 2) {
		sl_buf_adds(pat, "yyyy-MM-dd HH:mm:ss");
	} else {
		const sl_str *ps = &sl_col_str(args[1])[i];
		sl_buf_add(pat, ps->p ? ps->p : "", ps->len);
	}
	return pattern_parse(sl_buf_cstr(pat), s->p ? s->p : "", s->len, us);
}

static sl_col *ev_parse_ts(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	bool unix = call->name[0] == 'u';
	sl_buf pat;
	int64_t i, us;
	if (o == NULL)
		return NULL;
	sl_buf_init(&pat);
	for (i = 0; i < n; i++) {
		if (call->nargs == 0) {
			us = now_us;
		} else if (sl_func_row_null(args, call->nargs, i) ||
			   !parse_ts_row(call, args, i, &pat, &us)) {
			if (sl_col_set_null(o, i) < 0) {
				sl_buf_release(&pat);
				return sl_func_oom(o, err);
			}
			continue;
		}
		sl_col_i64(o)[i] = unix ? sl_floordiv(us, SL_US_PER_SEC) : us;
	}
	sl_buf_release(&pat);
	return o;
}

static int res_ts_seconds(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k != SL_INT && k != SL_BIGINT)
		k = SL_DOUBLE;
	if (sl_expr_arg_kind(call, 0, k, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, SL_TIMESTAMP, true);
}

static sl_col *ev_ts_seconds(const sl_expr *call, sl_col *const *args,
			     int64_t n, sl_err *err)
{
	sl_col *o = sl_cast_col(args[0], call->rtype, err);
	(void)n;
	return o;
}

/* current_timestamp() / now(): a TIMESTAMP; current_date() / curdate():
 * a DATE, the UTC day (the session time zone is UTC).  Both read the
 * engine clock's instant for this query (sl_func_set_now), so a manual
 * clock makes them deterministic. */
static int res_clock(sl_expr *call, sl_err *err)
{
	bool day = strstr(call->name, "date") != NULL;
	(void)err;
	return sl_func_rtype(call, day ? SL_DATE : SL_TIMESTAMP, false);
}

static sl_col *ev_clock(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int32_t day = (int32_t)sl_floordiv(now_us, SL_US_PER_DAY);
	bool date = call->rtype->kind == SL_DATE;
	int64_t i;
	(void)args;
	for (i = 0; o != NULL && i < n; i++)
		if (date)
			sl_col_i32(o)[i] = day;
		else
			sl_col_i64(o)[i] = now_us;
	return o;
}

/* ------------------------------------------------------------ dates */

/* to_date(x[, fmt]): a DATE passes, a TIMESTAMP gives its UTC day, a
 * string is read by Spark's stringToDate or, with fmt, by the pattern
 * (a row that does not parse is NULL). */
static int res_to_date(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	const char *pat;
	if (k != SL_DATE && k != SL_TIMESTAMP &&
	    sl_expr_arg_kind(call, 0, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	if (call->nargs > 1) {
		if (sl_expr_arg_kind(call, 1, SL_STRING, err) < 0)
			return SL_EANALYSIS;
		pat = sl_func_lit_str(call, 1);
		if (pat != NULL && pattern_check(pat, err) < 0)
			return SL_EANALYSIS;
	}
	return sl_func_rtype(call, SL_DATE, true);
}

static bool to_date_row(const sl_expr *call, sl_col *const *args, int64_t i,
			sl_buf *pat, int32_t *days)
{
	const sl_str *s, *ps;
	int64_t us;
	switch (args[0]->type->kind) {
	case SL_DATE: *days = sl_col_i32(args[0])[i]; return true;
	case SL_TIMESTAMP: us = sl_col_i64(args[0])[i]; break;
	default:
		s = &sl_col_str(args[0])[i];
		if (call->nargs < 2)
			return sl_date_parse(s->p ? s->p : "", s->len, days);
		ps = &sl_col_str(args[1])[i];
		sl_buf_clear(pat);
		sl_buf_add(pat, ps->p ? ps->p : "", ps->len);
		if (!pattern_parse(sl_buf_cstr(pat), s->p ? s->p : "", s->len,
				   &us))
			return false;
		break;
	}
	*days = (int32_t)sl_floordiv(us, SL_US_PER_DAY);
	return true;
}

static sl_col *ev_to_date(const sl_expr *call, sl_col *const *args, int64_t n,
			  sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	sl_buf pat;
	int64_t i;
	if (o == NULL)
		return NULL;
	sl_buf_init(&pat);
	for (i = 0; i < n; i++)
		if ((sl_func_row_null(args, call->nargs, i) ||
		     !to_date_row(call, args, i, &pat, &sl_col_i32(o)[i])) &&
		    sl_col_set_null(o, i) < 0) {
			sl_buf_release(&pat);
			return sl_func_oom(o, err);
		}
	sl_buf_release(&pat);
	return o;
}

/* date_add(d, n), date_sub(d, n): DATE; datediff(end, start): INT days. */
static int res_date_arith(sl_expr *call, sl_err *err)
{
	bool diff = call->name[4] == 'd';
	if (sl_expr_arg_kind(call, 0, SL_DATE, err) < 0 ||
	    sl_expr_arg_kind(call, 1, diff ? SL_DATE : SL_INT, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, diff ? SL_INT : SL_DATE,
			     call->args[0]->nullable ||
				 call->args[1]->nullable);
}

static sl_col *ev_date_arith(const sl_expr *call, sl_col *const *args,
			     int64_t n, sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	const int32_t *a, *b;
	int sign = call->name[5] == 's' ? -1 : 1; /* date_sub */
	bool diff = call->name[4] == 'd';
	int64_t i;
	if (o == NULL)
		return NULL;
	a = sl_col_i32(args[0]);
	b = sl_col_i32(args[1]);
	for (i = 0; i < n; i++) {
		if (sl_func_row_null(args, 2, i)) {
			if (sl_col_set_null(o, i) < 0)
				return sl_func_oom(o, err);
			continue;
		}
		/* wraps as Spark's int arithmetic does */
		sl_col_i32(o)[i] =
		    (int32_t)(diff ? (uint32_t)a[i] - (uint32_t)b[i]
				   : (uint32_t)a[i] +
					 (uint32_t)(sign * (int64_t)b[i]));
	}
	return o;
}

/* ------------------------------------------------------------ rows */

const sl_func sl_func_time_rows[] = {
	{ "year", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "month", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "dayofmonth", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "day", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "hour", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "minute", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "second", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "date_format", 2, 2, SL_FN_SCALAR, res_date_format, ev_date_format },
	{ "to_timestamp", 1, 2, SL_FN_SCALAR, res_parse_ts, ev_parse_ts },
	{ "unix_timestamp", 0, 2, SL_FN_SCALAR, res_parse_ts, ev_parse_ts },
	{ "timestamp_seconds", 1, 1, SL_FN_SCALAR, res_ts_seconds,
	  ev_ts_seconds },
	{ "current_timestamp", 0, 0, SL_FN_SCALAR, res_clock, ev_clock },
	{ "now", 0, 0, SL_FN_SCALAR, res_clock, ev_clock },
	{ "to_date", 1, 2, SL_FN_SCALAR, res_to_date, ev_to_date },
	{ "current_date", 0, 0, SL_FN_SCALAR, res_clock, ev_clock },
	{ "curdate", 0, 0, SL_FN_SCALAR, res_clock, ev_clock },
	{ "date_add", 2, 2, SL_FN_SCALAR, res_date_arith, ev_date_arith },
	{ "date_sub", 2, 2, SL_FN_SCALAR, res_date_arith, ev_date_arith },
	{ "datediff", 2, 2, SL_FN_SCALAR, res_date_arith, ev_date_arith },
};
const int sl_func_time_nrows =
    (int)(sizeof sl_func_time_rows / sizeof sl_func_time_rows[0]);
