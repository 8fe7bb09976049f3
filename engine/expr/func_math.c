/*
 * func_math: the math functions (abs, round, floor, ceil, sqrt, pow).
 * Rows of the function registry (func.c).
 */
#include "expr/func_int.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_int.h" /* sl_d2l */
#include "formats/fileformat.h"
#include "core/timeutil.h"
#include "core/utf8.h"

/* ---------------------------------------------------------------- math */

static int res_abs(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k != SL_INT && k != SL_BIGINT)
		k = SL_DOUBLE;
	if (sl_expr_arg_kind(call, 0, k, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, k, call->args[0]->nullable);
}

static sl_col *ev_abs(const sl_expr *call, sl_col *const *args, int64_t n,
		      sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	switch (call->rtype->kind) {
	case SL_INT:
		for (i = 0; i < n; i++) {
			int32_t x = sl_col_i32(args[0])[i];
			sl_col_i32(o)[i] =
			    x < 0 ? (int32_t)(0u - (uint32_t)x) : x;
		}
		break;
	case SL_BIGINT:
		for (i = 0; i < n; i++) {
			int64_t x = sl_col_i64(args[0])[i];
			sl_col_i64(o)[i] =
			    x < 0 ? (int64_t)(0u - (uint64_t)x) : x;
		}
		break;
	default:
		for (i = 0; i < n; i++)
			sl_col_f64(o)[i] = fabs(sl_col_f64(args[0])[i]);
	}
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	return o;
}

static int res_round(sl_expr *call, sl_err *err)
{
	if (call->nargs > 1 && sl_expr_arg_kind(call, 1, SL_INT, err) < 0)
		return SL_EANALYSIS;
	return res_abs(call, err);
}

/* Spark rounds BigDecimal(x.toString) HALF_UP: work on the shortest
 * decimal digits that print x, so round(2.675, 2) is 2.68. */
static double round_half_up(double x, int d)
{
	char buf[64], *e;
	int prec, exp10, nd, keep, k;
	char digits[32];
	bool neg = x < 0;
	if (isnan(x) || isinf(x) || d > 300)
		return x;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec - 1, fabs(x));
		if (strtod(buf, NULL) == fabs(x))
			break;
	}
	e = strchr(buf, 'e');
	exp10 = atoi(e + 1);
	for (nd = 0, k = 0; buf + k < e; k++)
		if (isdigit((unsigned char)buf[k]))
			digits[nd++] = buf[k];
	/* value = 0.d1d2... * 10^(exp10+1); keep digits up to 10^-d */
	keep = exp10 + 1 + d;
	if (keep >= nd)
		return x;
	if (keep < 0)
		return neg ? -0.0 : 0.0;
	{
		double v = 0;
		bool up = digits[keep] >= '5';
		char out[64];
		int m = 0;
		out[m++] = '0';
		for (k = 0; k < keep; k++)
			out[m++] = digits[k];
		out[m] = '\0';
		/* add one ulp of the kept digits when rounding up */
		if (up) {
			for (k = m - 1; k >= 0; k--) {
				if (out[k] == '9') {
					out[k] = '0';
					continue;
				}
				out[k]++;
				break;
			}
		}
		{
			char nb[128];
			snprintf(nb, sizeof nb, "%se%d", out, exp10 + 1 - keep);
			v = strtod(nb, NULL);
		}
		return neg ? -v : v;
	}
}

static int64_t pow10i(int k)
{
	int64_t p = 1;
	while (k-- > 0 && p < INT64_C(1000000000000000000))
		p *= 10;
	return p;
}

static int64_t round_int(int64_t x, int d)
{
	int64_t p, r, q;
	if (d >= 0)
		return x;
	if (-d > 18)
		return 0;
	p = pow10i(-d);
	q = x / p;
	r = x % p;
	if (r >= p / 2 + (p % 2))
		q++;
	else if (-r >= p / 2 + (p % 2))
		q--;
	return (int64_t)((uint64_t)q * (uint64_t)p);
}

static sl_col *ev_round(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int d = call->nargs > 1 ? sl_col_i32(args[1])[i] : 0;
		switch (call->rtype->kind) {
		case SL_INT:
			sl_col_i32(o)[i] =
			    (int32_t)round_int(sl_col_i32(args[0])[i], d);
			break;
		case SL_BIGINT:
			sl_col_i64(o)[i] = round_int(sl_col_i64(args[0])[i], d);
			break;
		default:
			sl_col_f64(o)[i] =
			    round_half_up(sl_col_f64(args[0])[i], d);
		}
	}
	if (sl_func_nulls_merge(o, args, call->nargs) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

static int res_floor(sl_expr *call, sl_err *err)
{
	if (res_abs(call, err) < 0)
		return SL_EANALYSIS;
	sl_type_free(call->rtype);
	return sl_func_rtype(call, SL_BIGINT, call->args[0]->nullable);
}

static sl_col *floor_ceil(const sl_expr *call, sl_col *const *args, int64_t n,
			  sl_err *err, bool up)
{
	sl_col *o = sl_func_out(call, n, err);
	const sl_col *a = args[0];
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		switch (a->type->kind) {
		case SL_INT: sl_col_i64(o)[i] = sl_col_i32(a)[i]; break;
		case SL_BIGINT: sl_col_i64(o)[i] = sl_col_i64(a)[i]; break;
		default:
			sl_col_i64(o)[i] =
			    sl_d2l(up ? ceil(sl_col_f64(a)[i])
				       : floor(sl_col_f64(a)[i]));
		}
	}
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	return o;
}

static sl_col *ev_floor(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	return floor_ceil(call, args, n, err, false);
}

static sl_col *ev_ceil(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err)
{
	return floor_ceil(call, args, n, err, true);
}

static int res_double(sl_expr *call, sl_err *err)
{
	return sl_func_all_args(call, SL_DOUBLE, SL_DOUBLE, err);
}

static sl_col *ev_sqrt(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sl_col_f64(o)[i] = sqrt(sl_col_f64(args[0])[i]);
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

static sl_col *ev_pow(const sl_expr *call, sl_col *const *args, int64_t n,
		      sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sl_col_f64(o)[i] =
		    pow(sl_col_f64(args[0])[i], sl_col_f64(args[1])[i]);
	if (sl_func_nulls_merge(o, args, 2) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

/* ------------------------------------------------------------ rows */

const sl_func sl_func_math_rows[] = {
	{ "abs", 1, 1, SL_FN_SCALAR, res_abs, ev_abs },
	{ "round", 1, 2, SL_FN_SCALAR, res_round, ev_round },
	{ "floor", 1, 1, SL_FN_SCALAR, res_floor, ev_floor },
	{ "ceil", 1, 1, SL_FN_SCALAR, res_floor, ev_ceil },
	{ "ceiling", 1, 1, SL_FN_SCALAR, res_floor, ev_ceil },
	{ "sqrt", 1, 1, SL_FN_SCALAR, res_double, ev_sqrt },
	{ "pow", 2, 2, SL_FN_SCALAR, res_double, ev_pow },
	{ "power", 2, 2, SL_FN_SCALAR, res_double, ev_pow },
};
const int sl_func_math_nrows =
    (int)(sizeof sl_func_math_rows / sizeof sl_func_math_rows[0]);
