/*
 * func_null: the conditional functions: coalesce/nvl/ifnull, if,
 * isnull/isnotnull, greatest/least, and the common type of several
 * arguments.
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

/* --------------------------------------------------------- null helpers */

int sl_func_res_common(sl_expr *call, int from, bool nested, sl_err *err)
{
	sl_type *t = sl_type_prim(SL_NULLTYPE), *nt;
	int i;
	for (i = from; i < call->nargs; i++) {
		nt = sl_expr_common_type(t, call->args[i]->rtype);
		if (nt == NULL || (!nested && (nt->kind == SL_STRUCT ||
					       nt->kind == SL_ARRAY)))
			return sl_expr_mismatch(
			    err, call,
			    "input to function %s should all be the same type",
			    call->name);
		t = nt;
	}
	if (t->kind == SL_NULLTYPE)
		t = sl_type_prim(SL_STRING);
	for (i = from; i < call->nargs; i++) {
		call->args[i] = sl_expr_implicit_cast(call->args[i], t);
		if (call->args[i] == NULL)
			return sl_err_nomem(err);
	}
	call->rtype = sl_type_ref(t);
	return 0;
}

static int res_coalesce(sl_expr *call, sl_err *err)
{
	int i;
	if (sl_func_res_common(call, 0, true, err) < 0)
		return SL_EANALYSIS;
	call->nullable = true;
	for (i = 0; i < call->nargs; i++)
		if (!call->args[i]->nullable)
			call->nullable = false;
	return 0;
}

static sl_col *ev_coalesce(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	int *pick = malloc((size_t)(n + 1) * sizeof *pick);
	sl_col *o = NULL;
	int64_t i;
	int k;
	if (pick != NULL) {
		for (i = 0; i < n; i++) {
			for (k = 0; k < call->nargs - 1; k++)
				if (!sl_func_row_null(args + k, 1, i))
					break;
			pick[i] = k;
		}
		o = sl_col_pick(call->rtype, args, call->nargs, pick, n);
	}
	free(pick);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

static int res_if(sl_expr *call, sl_err *err)
{
	if (sl_expr_arg_kind(call, 0, SL_BOOLEAN, err) < 0 ||
	    sl_func_res_common(call, 1, true, err) < 0)
		return SL_EANALYSIS;
	call->nullable = call->args[1]->nullable || call->args[2]->nullable;
	return 0;
}

static sl_col *ev_if(const sl_expr *call, sl_col *const *args, int64_t n,
		     sl_err *err)
{
	int *pick = malloc((size_t)(n + 1) * sizeof *pick);
	sl_col *o = NULL;
	int64_t i;
	if (pick != NULL) {
		for (i = 0; i < n; i++)
			pick[i] = !sl_func_row_null(args, 1, i) &&
					  sl_col_u8(args[0])[i]
				      ? 1
				      : 2;
		o = sl_col_pick(call->rtype, args, 3, pick, n);
	}
	free(pick);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

static int res_isnull(sl_expr *call, sl_err *err)
{
	(void)err;
	return sl_func_rtype(call, SL_BOOLEAN, false);
}

static sl_col *ev_isnull(const sl_expr *call, sl_col *const *args, int64_t n,
			 sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	bool want = strcmp(call->name, "isnull") == 0;
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sl_col_u8(o)[i] = sl_func_row_null(args, 1, i) == want;
	return o;
}

/* greatest / least: NULLs skipped; NULL only when every argument is. */
static sl_col *extreme(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err, int sign)
{
	sl_col *o = sl_func_out(call, n, err);
	sl_kind kd = call->rtype->kind;
	int64_t i;
	int k, best;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		best = -1;
		for (k = 0; k < call->nargs; k++) {
			int c;
			if (sl_func_row_null(args + k, 1, i))
				continue;
			if (best < 0) {
				best = k;
				continue;
			}
			switch (kd) {
			case SL_DOUBLE: {
				double a = sl_col_f64(args[k])[i],
				       b = sl_col_f64(args[best])[i];
				c = (a > b) - (a < b);
				break;
			}
			case SL_INT:
			case SL_DATE: {
				int32_t a = sl_col_i32(args[k])[i],
					b = sl_col_i32(args[best])[i];
				c = (a > b) - (a < b);
				break;
			}
			case SL_BOOLEAN:
				c = sl_col_u8(args[k])[i] -
				    sl_col_u8(args[best])[i];
				break;
			case SL_STRING:
			case SL_BINARY: {
				sl_str a = sl_col_str(args[k])[i],
				       b = sl_col_str(args[best])[i];
				uint32_t m = a.len < b.len ? a.len : b.len;
				c = m ? memcmp(a.p, b.p, m) : 0;
				if (c == 0)
					c = (a.len > b.len) - (a.len < b.len);
				break;
			}
			default: {
				int64_t a = sl_col_i64(args[k])[i],
					b = sl_col_i64(args[best])[i];
				c = (a > b) - (a < b);
				break;
			}
			}
			if (c * sign > 0)
				best = k;
		}
		if (sl_col_copy_row(o, i, best < 0 ? args[0] : args[best], i) <
		    0)
			return sl_func_oom(o, err);
	}
	return o;
}

static sl_col *ev_greatest(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	return extreme(call, args, n, err, 1);
}

static sl_col *ev_least(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	return extreme(call, args, n, err, -1);
}

static int res_greatest(sl_expr *call, sl_err *err)
{
	int i;
	if (sl_func_res_common(call, 0, false, err) < 0)
		return SL_EANALYSIS;
	call->nullable = true;
	for (i = 0; i < call->nargs; i++)
		if (!call->args[i]->nullable)
			call->nullable = false;
	return 0;
}

/* ------------------------------------------------------------ rows */

const sl_func sl_func_null_rows[] = {
	{ "coalesce", 1, -1, SL_FN_SCALAR, res_coalesce, ev_coalesce },
	{ "nvl", 2, 2, SL_FN_SCALAR, res_coalesce, ev_coalesce },
	{ "ifnull", 2, 2, SL_FN_SCALAR, res_coalesce, ev_coalesce },
	{ "if", 3, 3, SL_FN_SCALAR, res_if, ev_if },
	{ "isnull", 1, 1, SL_FN_SCALAR, res_isnull, ev_isnull },
	{ "isnotnull", 1, 1, SL_FN_SCALAR, res_isnull, ev_isnull },
	{ "greatest", 2, -1, SL_FN_SCALAR, res_greatest, ev_greatest },
	{ "least", 2, -1, SL_FN_SCALAR, res_greatest, ev_least },
};
const int sl_func_null_nrows =
    (int)(sizeof sl_func_null_rows / sizeof sl_func_null_rows[0]);
