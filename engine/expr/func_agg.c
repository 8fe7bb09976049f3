/*
 * func_agg: the aggregate and generator functions' resolve hooks (count,
 * sum, avg, min, max, first, last, approx_count_distinct, collect_list;
 * explode, posexplode): they are evaluated by the aggregate and project
 * operators, not here.
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

/* ---------------------------------------------------------- aggregates */

static int res_count(sl_expr *call, sl_err *err)
{
	(void)err;
	return sl_func_rtype(call, SL_BIGINT, false);
}

static int res_sum(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k == SL_STRING || k == SL_NULLTYPE)
		k = SL_DOUBLE;
	if (k != SL_INT && k != SL_BIGINT && k != SL_DOUBLE)
		return sl_expr_arg_kind(call, 0, SL_DOUBLE, err);
	if (sl_expr_arg_kind(call, 0, k, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, k == SL_DOUBLE ? SL_DOUBLE : SL_BIGINT,
			     true);
}

static int res_avg(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k != SL_INT && k != SL_BIGINT && k != SL_DOUBLE &&
	    sl_expr_arg_kind(call, 0, SL_DOUBLE, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, SL_DOUBLE, true);
}

static int res_same(sl_expr *call, sl_err *err)
{
	sl_type *t = call->args[0]->rtype;
	if (call->nargs > 1 && sl_expr_arg_kind(call, 1, SL_BOOLEAN, err) < 0)
		return SL_EANALYSIS;
	call->rtype = sl_type_ref(t);
	call->nullable = true;
	return 0;
}

static int res_collect(sl_expr *call, sl_err *err)
{
	call->rtype = sl_type_array_new(sl_type_ref(call->args[0]->rtype));
	call->nullable = false;
	return call->rtype ? 0 : sl_err_nomem(err);
}

/* ---------------------------------------------------------- generators */

static int res_explode(sl_expr *call, sl_err *err)
{
	sl_type *t = call->args[0]->rtype, *st;
	if (t->kind != SL_ARRAY)
		return sl_expr_mismatch(
		    err, call, "input to function %s should be array type",
		    call->name);
	if (strcmp(call->name, "posexplode") != 0) {
		call->rtype = sl_type_ref(t->elem);
		call->nullable = true;
		return 0;
	}
	st = sl_type_struct_new(2);
	if (st == NULL ||
	    sl_type_set_field(st, 0, "pos", sl_type_prim(SL_INT), false) < 0 ||
	    sl_type_set_field(st, 1, "col", sl_type_ref(t->elem), true) < 0) {
		sl_type_free(st);
		return sl_err_nomem(err);
	}
	call->rtype = st;
	call->nullable = false;
	return 0;
}

/* ------------------------------------------------------------ rows */

const sl_func sl_func_agg_rows[] = {
	{ "count", 1, -1, SL_FN_AGG, res_count, NULL },
	{ "count_distinct", 1, -1, SL_FN_AGG, res_count, NULL },
	{ "approx_count_distinct", 1, 2, SL_FN_AGG, res_count, NULL },
	{ "sum", 1, 1, SL_FN_AGG, res_sum, NULL },
	{ "avg", 1, 1, SL_FN_AGG, res_avg, NULL },
	{ "mean", 1, 1, SL_FN_AGG, res_avg, NULL },
	{ "min", 1, 1, SL_FN_AGG, res_same, NULL },
	{ "max", 1, 1, SL_FN_AGG, res_same, NULL },
	{ "first", 1, 2, SL_FN_AGG, res_same, NULL },
	{ "last", 1, 2, SL_FN_AGG, res_same, NULL },
	{ "collect_list", 1, 1, SL_FN_AGG, res_collect, NULL },
	{ "explode", 1, 1, SL_FN_GENERATOR, res_explode, NULL },
	{ "explode_outer", 1, 1, SL_FN_GENERATOR, res_explode, NULL },
	{ "posexplode", 1, 1, SL_FN_GENERATOR, res_explode, NULL },
};
const int sl_func_agg_nrows =
    (int)(sizeof sl_func_agg_rows / sizeof sl_func_agg_rows[0]);
