/*
 * func: the function registry and the scalar function library.
 *
 * A table, not a switch: each row names a function, its argument counts,
 * its kind, a resolve hook (types, implicit casts, result type) and an
 * eval hook over whole columns.  Adding a function is adding a row.
 *
 * Every eval hook loops over rows with the argument types fixed by resolve
 * (resolve inserted the casts), so a hook never inspects types per row.
 * NULL in gives NULL out unless Spark says otherwise (coalesce, concat_ws,
 * isnull, ...).  Aggregates and generators resolve here but are evaluated
 * by the aggregate and project operators.
 *
 * The rows live with their functions, one file a family: func_agg.c,
 * func_string.c, func_null.c, func_json.c, func_time.c, func_window.c,
 * func_math.c (the JSON path walker is jsonpath.c).  This file holds the
 * helpers the families share and the lookup over their rows, in a fixed
 * order.
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

/* -------------------------------------------------------- null bitmaps */

static size_t bitmap_bytes(int64_t len)
{
	return (size_t)((len + 7) >> 3) + 1; /* col.c allocates one spare */
}

int sl_func_nulls_merge(sl_col *out, sl_col *const *ins, int k)
{
	size_t nb = bitmap_bytes(out->len), j;
	int i;
	for (i = 0; i < k; i++) {
		const sl_col *c = ins[i];
		if (c == NULL)
			continue;
		if (c->type->kind == SL_NULLTYPE) {
			if (out->nulls == NULL &&
			    (out->nulls = malloc(nb)) == NULL)
				return SL_ENOMEM;
			memset(out->nulls, 0xff, nb);
			return 0;
		}
		if (c->nulls == NULL)
			continue;
		if (out->nulls == NULL) {
			out->nulls = malloc(nb);
			if (out->nulls == NULL)
				return SL_ENOMEM;
			memcpy(out->nulls, c->nulls, nb);
			continue;
		}
		for (j = 0; j < nb; j++)
			out->nulls[j] |= c->nulls[j];
	}
	return 0;
}

void sl_func_zero_nulls(sl_col *c)
{
	int64_t i, byte, nbytes;
	int w = sl_type_width(c->type);
	if (c->nulls == NULL || c->data == NULL || w <= 0)
		return;
	nbytes = (c->len + 7) >> 3;
	for (byte = 0; byte < nbytes; byte++) {
		if (c->nulls[byte] == 0)
			continue;
		for (i = byte * 8; i < byte * 8 + 8 && i < c->len; i++)
			if (sl_col_isnull(c, i))
				memset((char *)c->data + i * w, 0, (size_t)w);
	}
}

int sl_func_mark_null(sl_col *c, int64_t i)
{
	if (c->nulls == NULL) {
		c->nulls = calloc(bitmap_bytes(c->len), 1);
		if (c->nulls == NULL)
			return SL_ENOMEM;
	}
	c->nulls[i >> 3] |= (uint8_t)(1u << (i & 7));
	return 0;
}

/* ------------------------------------------------------ shared helpers */

sl_col *sl_func_out(const sl_expr *call, int64_t n, sl_err *err)
{
	sl_col *o = sl_col_new(call->rtype, n);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

sl_col *sl_func_oom(sl_col *o, sl_err *err)
{
	sl_col_free(o);
	sl_err_nomem(err);
	return NULL;
}

int sl_func_rtype(sl_expr *call, sl_kind k, bool nullable)
{
	call->rtype = sl_type_ref(sl_type_prim(k));
	call->nullable = nullable;
	return 0;
}

bool sl_func_any_nullable(const sl_expr *call)
{
	int i;
	for (i = 0; i < call->nargs; i++)
		if (call->args[i]->nullable)
			return true;
	return false;
}

/* All args to kind k, result kind r, nullable if any arg is. */
int sl_func_all_args(sl_expr *call, sl_kind k, sl_kind r, sl_err *err)
{
	int i;
	for (i = 0; i < call->nargs; i++)
		if (sl_expr_arg_kind(call, i, k, err) < 0)
			return err ? err->code : SL_EANALYSIS;
	return sl_func_rtype(call, r, sl_func_any_nullable(call));
}

bool sl_func_row_null(sl_col *const *args, int nargs, int64_t i)
{
	int k;
	for (k = 0; k < nargs; k++)
		if (args[k]->type->kind == SL_NULLTYPE ||
		    sl_col_isnull(args[k], i))
			return true;
	return false;
}

/* A literal argument's string (the pattern of date_format, the regex of
 * split, a window duration), or NULL when the argument is not constant. */
const char *sl_func_lit_str(const sl_expr *call, int i)
{
	const sl_expr *a = call->args[i];
	while (a->kind == SL_X_CAST && a->op == 1)
		a = a->args[0];
	if (a->kind != SL_X_LIT || a->lit.null || a->lit.s == NULL)
		return NULL;
	return a->lit.s;
}

/* ------------------------------------------------------------ registry */

/* The families' rows, in this order (lookup and "did you mean" scan it). */
static const struct {
	const sl_func *rows;
	const int *n;
} families[] = {
	{ sl_func_agg_rows, &sl_func_agg_nrows },
	{ sl_func_string_rows, &sl_func_string_nrows },
	{ sl_func_null_rows, &sl_func_null_nrows },
	{ sl_func_json_rows, &sl_func_json_nrows },
	{ sl_func_time_rows, &sl_func_time_nrows },
	{ sl_func_window_rows, &sl_func_window_nrows },
	{ sl_func_math_rows, &sl_func_math_nrows },
	{ sl_func_session_rows, &sl_func_session_nrows },
	{ sl_func_array_rows, &sl_func_array_nrows },
	{ sl_func_struct_rows, &sl_func_struct_nrows },
};

#define NFAMILIES ((int)(sizeof families / sizeof families[0]))

const sl_func *sl_func_lookup(const char *name)
{
	int f, i;
	for (f = 0; f < NFAMILIES; f++)
		for (i = 0; i < *families[f].n; i++)
			if (strcasecmp(families[f].rows[i].name, name) == 0)
				return &families[f].rows[i];
	return NULL;
}

const char *sl_func_nearest(const char *name)
{
	const char *names[SL_FUNC_MAX];
	int f, i, n = 0;
	for (f = 0; f < NFAMILIES; f++)
		for (i = 0; i < *families[f].n && n < SL_FUNC_MAX; i++)
			names[n++] = families[f].rows[i].name;
	return sl_nearest_name(name, names, n);
}
