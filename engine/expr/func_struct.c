/*
 * func_struct: struct(a, b, ...) and named_struct('n1', v1, ...), the
 * struct constructors (Spark's CreateNamedStruct).  Rows of the function
 * registry (func.c).  `struct(*)` is expanded to every input column by
 * the resolver (expr_resolve.c), so `to_json(struct(*))`, the way a
 * Kafka sink's value is written, works as in Spark.
 *
 * Semantics are Spark 3.5's: the result is never NULL (its fields may
 * be); struct() names a field after a column reference, a struct field
 * or an alias, else col1, col2, ... by position; named_struct's names are
 * string literals (Spark's "Only foldable STRING expressions are allowed
 * to appear at odd position"), an even number of arguments.  The fields
 * share the argument columns: nothing is copied.
 */
#include "expr/func_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/type.h"

/* The field name struct() gives argument a (resolved), 1-based k. */
static void field_name(const sl_expr *a, int k, char *out, size_t n)
{
	const char *dot;
	if ((a->kind == SL_X_COL || a->kind == SL_X_ALIAS ||
	     a->kind == SL_X_FIELD) &&
	    a->name != NULL) {
		dot = a->kind == SL_X_COL ? strrchr(a->name, '.') : NULL;
		snprintf(out, n, "%s", dot ? dot + 1 : a->name);
		return;
	}
	snprintf(out, n, "col%d", k);
}

/* A struct type of the values args[first], args[first + step], ...
 * named by names[] (NULL: struct()'s rule). */
static int struct_type(sl_expr *call, int first, int step, sl_err *err)
{
	int nf = (call->nargs - first + step - 1) / step, k;
	sl_type *st = sl_type_struct_new(nf);
	if (st == NULL)
		return sl_err_nomem(err);
	for (k = 0; k < nf; k++) {
		const sl_expr *v = call->args[first + k * step];
		char name[256];
		if (step == 2) {
			const sl_expr *nm = call->args[k * 2];
			snprintf(name, sizeof name, "%s", nm->lit.s);
		} else
			field_name(v, k + 1, name, sizeof name);
		if (sl_type_set_field(st, k, name, sl_type_ref(v->rtype),
				      v->nullable) < 0) {
			sl_type_free(st);
			return sl_err_nomem(err);
		}
	}
	call->rtype = st;
	call->nullable = false;
	return 0;
}

static int res_struct(sl_expr *call, sl_err *err)
{
	return struct_type(call, 0, 1, err);
}

static int res_named_struct(sl_expr *call, sl_err *err)
{
	int k;
	if (call->nargs % 2 != 0)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `named_struct` requires 2n (n > 0) parameters but the actual number is %d.",
		    call->nargs);
	for (k = 0; k < call->nargs; k += 2) {
		const sl_expr *nm = call->args[k];
		if (nm->kind != SL_X_LIT || nm->lit.null ||
		    nm->rtype->kind != SL_STRING)
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "[DATATYPE_MISMATCH.CREATE_NAMED_STRUCT_WITHOUT_FOLDABLE_STRING] Cannot resolve \"named_struct(...)\" due to data type mismatch: Only foldable `STRING` expressions are allowed to appear at odd position, got: argument %d.",
			    k + 1);
	}
	return struct_type(call, 1, 2, err);
}

/* The fields are the argument columns (references, not copies). */
static sl_col *make_struct(const sl_expr *call, sl_col *const *args,
			   int64_t n, int first, int step, sl_err *err)
{
	sl_col *o = sl_col_new(call->rtype, 0);
	int k;
	if (o == NULL)
		return sl_func_oom(NULL, err);
	for (k = 0; k < o->nchild; k++) {
		sl_col_free(o->child[k]);
		o->child[k] = sl_col_ref(args[first + k * step]);
	}
	o->len = n;
	return o;
}

static sl_col *ev_struct(const sl_expr *call, sl_col *const *args, int64_t n,
			 sl_err *err)
{
	return make_struct(call, args, n, 0, 1, err);
}

static sl_col *ev_named_struct(const sl_expr *call, sl_col *const *args,
			       int64_t n, sl_err *err)
{
	return make_struct(call, args, n, 1, 2, err);
}

const sl_func sl_func_struct_rows[] = {
	{ "struct", 1, -1, SL_FN_SCALAR, res_struct, ev_struct },
	{ "named_struct", 2, -1, SL_FN_SCALAR, res_named_struct,
	  ev_named_struct },
};
const int sl_func_struct_nrows =
    (int)(sizeof sl_func_struct_rows / sizeof sl_func_struct_rows[0]);
