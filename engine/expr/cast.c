/*
 * cast: whole-column casts with Spark's non-ANSI rules (spark.sql.ansi.
 * enabled=false, the 3.5 default): a string that does not parse becomes
 * NULL instead of failing the query, TIMESTAMP <-> numbers are seconds,
 * DOUBLE -> INT truncates toward zero and saturates like Java's (int).
 *
 * Every loop is specialised by (from, to) outside the row loop.  Null rows
 * stay null; the result's null slots are zeroed (col.h invariant).
 * Ownership: the input column is borrowed; the result is a new reference
 * (the input itself, referenced again, when the types are equal).
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "expr/expr_int.h"
#include "expr/func.h"
#include "core/timeutil.h"

/* ---------------------------------------------------------- to STRING */

static int put_text(sl_col *o, int64_t i, sl_buf *b)
{
	if (sl_buf_failed(b))
		return SL_ENOMEM;
	return sl_col_set_str(o, i, b->len ? b->p : "", b->len);
}

static void row_text(const sl_col *c, int64_t i, sl_buf *b)
{
	switch (c->type->kind) {
	case SL_BOOLEAN:
		sl_buf_adds(b, sl_col_u8(c)[i] ? "true" : "false");
		break;
	case SL_INT: sl_buf_printf(b, "%d", sl_col_i32(c)[i]); break;
	case SL_BIGINT:
		sl_buf_printf(b, "%lld", (long long)sl_col_i64(c)[i]);
		break;
	case SL_DOUBLE: sl_fmt_double(sl_col_f64(c)[i], b); break;
	case SL_TIMESTAMP: sl_ts_format(sl_col_i64(c)[i], b); break;
	case SL_DATE: sl_date_format(sl_col_i32(c)[i], b); break;
	default: /* STRUCT, ARRAY print as show() does: {a, b}, [a, b] */
		sl_value_show(c, i, b);
		break;
	}
}

/* BINARY <-> STRING: the same bytes, as Spark's UTF8String.fromBytes and
 * getBytes (no UTF-8 check: invalid bytes stay as they are); a view of
 * the input, nothing copied (col.h). */
static sl_col *same_bytes(const sl_col *c, sl_type *to, sl_err *err)
{
	sl_col *o = sl_col_view(c, to);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

static sl_col *to_string(const sl_col *c, sl_err *err)
{
	sl_col *o;
	sl_buf b;
	int64_t i;
	int rc = 0;
	if (c->type->kind == SL_BINARY)
		return same_bytes(c, sl_type_prim(SL_STRING), err);
	if ((o = sl_col_new(sl_type_prim(SL_STRING), c->len)) == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	sl_buf_init(&b);
	for (i = 0; i < c->len && rc == 0; i++) {
		if (sl_col_isnull(c, i)) {
			rc = sl_col_set_null(o, i);
			continue;
		}
		sl_buf_clear(&b);
		row_text(c, i, &b);
		rc = put_text(o, i, &b);
	}
	sl_buf_release(&b);
	if (rc < 0) {
		sl_col_free(o);
		sl_err_nomem(err);
		return NULL;
	}
	return o;
}

/* -------------------------------------------------------- from STRING */

/* Spark trims ASCII whitespace and control characters around numbers. */
static void trim(const char **p, const char **e)
{
	while (*p < *e && (unsigned char)**p <= ' ')
		(*p)++;
	while (*e > *p && (unsigned char)(*e)[-1] <= ' ')
		(*e)--;
}

/* UTF8String.toLong: [+-]digits[.digits], the fraction dropped. */
static bool parse_long(const char *p, const char *e, int64_t lo, int64_t hi,
		       int64_t *out)
{
	bool neg = false, any = false;
	uint64_t v = 0, lim;
	trim(&p, &e);
	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	lim = neg ? (uint64_t)0 - (uint64_t)lo : (uint64_t)hi;
	for (; p < e && isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
		any = true;
	}
	if (p < e && *p == '.') {
		for (p++; p < e && isdigit((unsigned char)*p); p++)
			any = true;
	}
	if (!any || p != e)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static bool ieq(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(p, w, n) == 0;
}

static bool parse_double(const char *p, const char *e, double *out)
{
	char tmp[128], *end;
	size_t n;
	trim(&p, &e);
	n = (size_t)(e - p);
	if (n == 0 || n >= sizeof tmp)
		return false;
	if (ieq(p, n, "nan")) {
		*out = NAN;
		return true;
	}
	if (ieq(p, n, "infinity") || ieq(p, n, "+infinity") ||
	    ieq(p, n, "inf") || ieq(p, n, "+inf")) {
		*out = INFINITY;
		return true;
	}
	if (ieq(p, n, "-infinity") || ieq(p, n, "-inf")) {
		*out = -INFINITY;
		return true;
	}
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	/* Java's parseDouble: decimal only (no hex, no "inf" spelled by C),
	 * an optional d/f suffix */
	if (strpbrk(tmp, "xXnN") != NULL)
		return false;
	if (n > 1 && strchr("dDfF", tmp[n - 1]) != NULL)
		tmp[--n] = '\0';
	*out = strtod(tmp, &end);
	return end == tmp + n;
}

static bool parse_bool(const char *p, const char *e, uint8_t *out)
{
	size_t n;
	trim(&p, &e);
	n = (size_t)(e - p);
	if (ieq(p, n, "true") || ieq(p, n, "t") || ieq(p, n, "yes") ||
	    ieq(p, n, "y") || ieq(p, n, "1")) {
		*out = 1;
		return true;
	}
	if (ieq(p, n, "false") || ieq(p, n, "f") || ieq(p, n, "no") ||
	    ieq(p, n, "n") || ieq(p, n, "0")) {
		*out = 0;
		return true;
	}
	return false;
}

static bool parse_row(const sl_str *s, sl_col *o, int64_t i)
{
	const char *p = s->p ? s->p : "", *e = p + s->len;
	int64_t v;
	switch (o->type->kind) {
	case SL_BOOLEAN: return parse_bool(p, e, &sl_col_u8(o)[i]);
	case SL_INT:
		if (!parse_long(p, e, INT32_MIN, INT32_MAX, &v))
			return false;
		sl_col_i32(o)[i] = (int32_t)v;
		return true;
	case SL_BIGINT:
		return parse_long(p, e, INT64_MIN, INT64_MAX,
				  &sl_col_i64(o)[i]);
	case SL_DOUBLE: return parse_double(p, e, &sl_col_f64(o)[i]);
	case SL_TIMESTAMP: return sl_ts_parse(p, s->len, &sl_col_i64(o)[i]);
	case SL_DATE: return sl_date_parse(p, s->len, &sl_col_i32(o)[i]);
	default: return false;
	}
}

static sl_col *from_string(const sl_col *c, sl_type *to, sl_err *err)
{
	sl_col *o;
	const sl_str *s = sl_col_str(c);
	int64_t i;
	if (to->kind == SL_BINARY)
		return same_bytes(c, to, err);
	if ((o = sl_col_new(to, c->len)) == NULL)
		goto oom;
	for (i = 0; i < c->len; i++)
		if ((sl_col_isnull(c, i) || !parse_row(&s[i], o, i)) &&
		    sl_col_set_null(o, i) < 0)
			goto oom;
	return o;
oom:
	sl_col_free(o);
	sl_err_nomem(err);
	return NULL;
}

/* ------------------------------------------------- between fixed types */

#define CONV(ST, SRC, DT, DST, EX)                                             \
	do {                                                                   \
		const ST *src_ = (const ST *)(SRC);                            \
		DT *dst_ = (DT *)(DST);                                        \
		for (i = 0; i < n; i++) {                                      \
			ST x = src_[i];                                        \
			dst_[i] = (DT)(EX);                                    \
		}                                                              \
	} while (0)

/* Every source read as int64 (BOOLEAN, INT, BIGINT, TIMESTAMP) or as
 * double; then one loop per target. */
static int conv_from_int(sl_kind f, const void *src, sl_kind t, void *dst,
			 int64_t n)
{
	int64_t i;
	int64_t *tmp = NULL;
	const int64_t *v = src;
	if (f == SL_BOOLEAN || f == SL_INT) {
		tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
		if (tmp == NULL)
			return SL_ENOMEM;
		if (f == SL_BOOLEAN)
			CONV(uint8_t, src, int64_t, tmp, x);
		else
			CONV(int32_t, src, int64_t, tmp, x);
		v = tmp;
	}
	if (f == SL_TIMESTAMP && t != SL_DOUBLE && t != SL_BOOLEAN) {
		if (tmp == NULL && (tmp = malloc((size_t)(n > 0 ? n : 1) *
						 sizeof *tmp)) == NULL)
			return SL_ENOMEM;
		CONV(int64_t, src, int64_t, tmp, sl_floordiv(x, SL_US_PER_SEC));
		v = tmp;
	}
	switch (t) {
	case SL_BOOLEAN: CONV(int64_t, v, uint8_t, dst, x != 0); break;
	case SL_INT:
		CONV(int64_t, v, int32_t, dst, (int32_t)(uint32_t)(uint64_t)x);
		break;
	case SL_BIGINT: CONV(int64_t, v, int64_t, dst, x); break;
	case SL_DOUBLE:
		if (f == SL_TIMESTAMP)
			CONV(int64_t, v, double, dst, (double)x / 1e6);
		else /* the fused path's kernel too (expr_fuse.c) */
			sl_conv_i64_f64(v, dst, n);
		break;
	case SL_TIMESTAMP:
		if (f == SL_BOOLEAN) /* Spark: true is 1 microsecond */
			CONV(int64_t, v, int64_t, dst, x);
		else
			CONV(int64_t, v, int64_t, dst,
			     (int64_t)((uint64_t)x * (uint64_t)SL_US_PER_SEC));
		break;
	default: break;
	}
	free(tmp);
	return 0;
}

static int conv_from_double(const double *src, sl_col *o, int64_t n)
{
	int64_t i;
	void *dst = o->data;
	switch (o->type->kind) {
	case SL_BOOLEAN: CONV(double, src, uint8_t, dst, x != 0); break;
	case SL_INT: CONV(double, src, int32_t, dst, sl_d2i(x)); break;
	case SL_BIGINT: CONV(double, src, int64_t, dst, sl_d2l(x)); break;
	case SL_TIMESTAMP:
		for (i = 0; i < n; i++) {
			double x = src[i];
			if (isnan(x) || isinf(x)) {
				if (sl_col_set_null(o, i) < 0)
					return SL_ENOMEM;
				continue;
			}
			sl_col_i64(o)[i] = sl_d2l(x * 1e6);
		}
		break;
	default: break;
	}
	return 0;
}

static bool fixed(sl_kind k)
{
	return k == SL_BOOLEAN || k == SL_INT || k == SL_BIGINT ||
	       k == SL_DOUBLE || k == SL_TIMESTAMP;
}

/* Every slot is written below (NULL rows zeroed after): no zeroing first. */
static sl_col *fixed_cast(const sl_col *c, sl_type *to, sl_err *err)
{
	sl_col *o = sl_col_new_raw(to, c->len);
	if (o == NULL)
		goto oom;
	if (sl_func_nulls_merge(o, (sl_col *const *)&c, 1) < 0)
		goto oom;
	if (c->type->kind == SL_DOUBLE) {
		if (conv_from_double(c->data, o, c->len) < 0)
			goto oom;
	} else {
		if (conv_from_int(c->type->kind, c->data, to->kind, o->data,
				  c->len) < 0)
			goto oom;
	}
	sl_func_zero_nulls(o);
	return o;
oom:
	sl_col_free(o);
	sl_err_nomem(err);
	return NULL;
}

/* DATE <-> TIMESTAMP: a date is its UTC midnight (the session time zone
 * is UTC), a timestamp's date the UTC day it falls in. */
static sl_col *date_cast(const sl_col *c, sl_type *to, sl_err *err)
{
	sl_col *o = sl_col_new(to, c->len);
	int64_t i;
	if (o == NULL || sl_func_nulls_merge(o, (sl_col *const *)&c, 1) < 0) {
		sl_col_free(o);
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < c->len; i++)
		if (to->kind == SL_DATE)
			sl_col_i32(o)[i] = (int32_t)sl_floordiv(
			    sl_col_i64(c)[i], SL_US_PER_DAY);
		else
			sl_col_i64(o)[i] =
			    (int64_t)sl_col_i32(c)[i] * SL_US_PER_DAY;
	sl_func_zero_nulls(o);
	return o;
}

/* STRUCT -> STRUCT field by field (by position; the target's names) and
 * ARRAY -> ARRAY element by element; the rows' NULLs stay. */
static sl_col *nested_cast(const sl_col *c, sl_type *to, sl_err *err)
{
	sl_col *o = NULL, *el;
	int64_t i;
	int k;
	if (to->kind == SL_ARRAY) {
		if ((el = sl_cast_col(c->child[0], to->elem, err)) == NULL)
			return NULL;
		o = sl_col_array_new(to, c->len, c->offsets, el);
		if (o == NULL)
			goto oom;
	} else {
		if ((o = sl_col_new(to, c->len)) == NULL)
			goto oom;
		for (k = 0; k < o->nchild; k++) {
			el = sl_cast_col(c->child[k], to->fields[k].type, err);
			if (el == NULL) {
				sl_col_free(o);
				return NULL;
			}
			sl_col_free(o->child[k]);
			o->child[k] = el;
		}
	}
	for (i = 0; i < c->len; i++)
		if (sl_col_isnull(c, i) && sl_col_set_null(o, i) < 0) {
			sl_col_free(o);
			goto oom;
		}
	return o;
oom:
	sl_err_nomem(err);
	return NULL;
}

sl_col *sl_cast_col(const sl_col *c, sl_type *to, sl_err *err)
{
	sl_kind f = c->type->kind, t = to->kind;
	sl_col *o;
	sl_buf a, b;
	if (sl_type_equal(c->type, to))
		return sl_col_ref((sl_col *)c);
	if (f == SL_NULLTYPE) {
		o = sl_col_new_null(to, c->len);
		if (o == NULL)
			sl_err_nomem(err);
		return o;
	}
	if (t == SL_STRING)
		return to_string(c, err);
	if (f == SL_STRING && (fixed(t) || t == SL_BINARY || t == SL_DATE))
		return from_string(c, to, err);
	if ((f == SL_DATE && t == SL_TIMESTAMP) ||
	    (f == SL_TIMESTAMP && t == SL_DATE))
		return date_cast(c, to, err);
	if (fixed(f) && fixed(t))
		return fixed_cast(c, to, err);
	if (f == t && (f == SL_STRUCT || f == SL_ARRAY) &&
	    (f == SL_ARRAY || c->nchild == to->nfields))
		return nested_cast(c, to, err);
	sl_buf_init(&a);
	sl_buf_init(&b);
	sl_expr_type_name(c->type, &a);
	sl_expr_type_name(to, &b);
	sl_err_set(err, SL_EANALYSIS, "cannot cast %s to %s", sl_buf_cstr(&a),
		   sl_buf_cstr(&b));
	sl_buf_release(&a);
	sl_buf_release(&b);
	return NULL;
}
