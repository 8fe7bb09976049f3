/*
 * func_array: array(a, b, ...), size(arr) and element_at(arr, i), the
 * array functions beside split() (func_string.c) and explode()
 * (func_agg.c, a generator).  Rows of the function registry (func.c).
 *
 * Semantics are Spark 3.5's with ANSI off: array() casts its arguments to
 * their common type and is never NULL (its elements may be); size(NULL) is
 * -1 (spark.sql.legacy.sizeOfNull, true by default); element_at counts
 * from 1, from the end when negative, and gives NULL past either end; an
 * index of 0 is an error.
 */
#include "expr/func_int.h"

#include <stdlib.h>

#include "core/type.h"

/* ---------------------------------------------------------------- array */

static int res_array(sl_expr *call, sl_err *err)
{
	sl_type *e;
	if (sl_func_res_common(call, 0, true, err) < 0)
		return SL_EANALYSIS;
	e = call->rtype;
	call->rtype = sl_type_array_new(e); /* takes e's reference */
	call->nullable = false;
	return call->rtype ? 0 : sl_err_nomem(err);
}

static sl_col *ev_array(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	int k = call->nargs, j;
	int64_t i;
	int32_t *off = malloc(((size_t)n + 1) * sizeof *off);
	sl_col *elems = NULL, *o;
	sl_kind ek = call->rtype->elem->kind;
	if (off != NULL && (ek == SL_STRUCT || ek == SL_ARRAY)) {
		/* nested elements: row i's j-th is row i of args[j], gathered
		 * from the arguments laid end to end (each of the elements'
		 * type: res_array cast them) */
		sl_col *all = sl_col_concat(args, k);
		int64_t *idx = malloc(((size_t)(n * k) + 1) * sizeof *idx);
		if (all != NULL && idx != NULL)
			for (i = 0; i < n; i++)
				for (j = 0; j < k; j++)
					idx[i * k + j] = (int64_t)j * n + i;
		elems = all != NULL && idx != NULL ? sl_col_take(all, idx, n * k)
						   : NULL;
		sl_col_free(all);
		free(idx);
		if (elems == NULL) {
			free(off);
			return sl_func_oom(NULL, err);
		}
		for (i = 0; i <= n; i++)
			off[i] = (int32_t)(i * k);
		goto made;
	}
	elems = off ? sl_col_new(call->rtype->elem, n * k) : NULL;
	if (elems == NULL) {
		free(off);
		return sl_func_oom(NULL, err);
	}
	for (i = 0; i < n; i++) {
		off[i] = (int32_t)(i * k);
		for (j = 0; j < k; j++)
			if (sl_col_copy_row(elems, i * k + j, args[j], i) < 0) {
				free(off);
				return sl_func_oom(elems, err);
			}
	}
	off[n] = (int32_t)(n * k);
made:
	o = sl_col_array_new(call->rtype, n, off, elems);
	free(off);
	return o ? o : sl_func_oom(NULL, err);
}

/* ----------------------------------------------------------------- size */

static int array_arg(sl_expr *call, sl_err *err)
{
	sl_buf a, t;
	if (call->args[0]->rtype->kind == SL_ARRAY)
		return 0;
	sl_buf_init(&a);
	sl_buf_init(&t);
	sl_expr_sql(call->args[0], &a);
	sl_expr_type_name(call->args[0]->rtype, &t);
	sl_expr_mismatch(
	    err, call,
	    "argument 1 requires array type, however, '%s' is of %s type",
	    sl_buf_cstr(&a), sl_buf_cstr(&t));
	sl_buf_release(&a);
	sl_buf_release(&t);
	return SL_EANALYSIS;
}

static int res_size(sl_expr *call, sl_err *err)
{
	if (array_arg(call, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, SL_INT, false);
}

static sl_col *ev_size(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err)
{
	const sl_col *a = args[0];
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sl_col_i32(o)[i] = sl_col_isnull(a, i)
				       ? -1
				       : a->offsets[i + 1] - a->offsets[i];
	return o;
}

/* ----------------------------------------------------------- element_at */

static int res_element_at(sl_expr *call, sl_err *err)
{
	if (array_arg(call, err) < 0 ||
	    sl_expr_arg_kind(call, 1, SL_INT, err) < 0)
		return SL_EANALYSIS;
	call->rtype = sl_type_ref(call->args[0]->rtype->elem);
	call->nullable = true;
	return 0;
}

static sl_col *ev_element_at(const sl_expr *call, sl_col *const *args,
			     int64_t n, sl_err *err)
{
	const sl_col *a = args[0], *ix = args[1];
	int64_t *idx = malloc(((size_t)n + 1) * sizeof *idx), i;
	sl_col *o;
	(void)call;
	if (idx == NULL)
		return sl_func_oom(NULL, err);
	for (i = 0; i < n; i++) {
		int64_t len, k;
		idx[i] = -1;
		if (sl_col_isnull(a, i) || sl_col_isnull(ix, i))
			continue;
		len = a->offsets[i + 1] - a->offsets[i];
		k = sl_col_i32(ix)[i];
		if (k == 0) {
			free(idx);
			sl_err_set(
			    err, SL_EINVAL,
			    "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).");
			return NULL;
		}
		if (k > 0 && k <= len)
			idx[i] = a->offsets[i] + k - 1;
		else if (k < 0 && -k <= len)
			idx[i] = a->offsets[i + 1] + k;
	}
	o = sl_col_take(a->child[0], idx, n);
	free(idx);
	return o ? o : sl_func_oom(NULL, err);
}

/* ------------------------------------------------------------ rows */

const sl_func sl_func_array_rows[] = {
	{ "array", 1, -1, SL_FN_SCALAR, res_array, ev_array },
	{ "size", 1, 1, SL_FN_SCALAR, res_size, ev_size },
	{ "cardinality", 1, 1, SL_FN_SCALAR, res_size, ev_size },
	{ "element_at", 2, 2, SL_FN_SCALAR, res_element_at, ev_element_at },
};
const int sl_func_array_nrows =
    (int)(sizeof sl_func_array_rows / sizeof sl_func_array_rows[0]);
