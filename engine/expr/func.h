/*
 * func: the function registry behind sl_expr CALL nodes (internal to the
 * engine; the planner reads e->fn, everyone else goes through expr.h).
 *
 * One table row per function, as tmux keeps its commands in a table:
 * name, argument counts, kind (scalar / aggregate / generator), a resolve
 * hook that checks argument types (inserting implicit casts) and sets the
 * result type, and an eval hook that turns whole argument columns into a
 * result column.  Aggregates and generators have no eval hook: the
 * aggregate and project operators evaluate their arguments and do the rest.
 *
 * Also the small shared internals of expr.c / cast.c / func.c (null bitmap
 * helpers, implicit casts, type-mismatch errors).  Never include this from
 * outside the engine.
 */
#ifndef SL_FUNC_H
#define SL_FUNC_H

#include <stdarg.h>

#include "expr/expr.h"

typedef enum sl_func_kind {
	SL_FN_SCALAR,
	SL_FN_AGG,
	SL_FN_GENERATOR
} sl_func_kind;

/* call: a fresh CALL node owned by the resolver whose args are resolved.
 * The hook checks the args (it may replace call->args[i] by an implicit
 * cast), and sets call->rtype (a counted reference) and call->nullable. */
typedef int (*sl_func_resolve_fn)(sl_expr *call, sl_err *err);
/* args[0..call->nargs) are the evaluated arguments (borrowed), n rows.
 * Returns a new column of call->rtype, or NULL with err set. */
typedef sl_col *(*sl_func_eval_fn)(const sl_expr *call, sl_col *const *args,
				   int64_t n, sl_err *err);

struct sl_func {
	const char *name;
	int min_args, max_args; /* max -1: variadic */
	sl_func_kind kind;
	sl_func_resolve_fn resolve;
	sl_func_eval_fn eval;
};

/* The registry entry for a lower-case name, or NULL. */
const sl_func *sl_func_lookup(const char *name);
/* Nearest registered name (for "did you mean"), or NULL. */
const char *sl_func_nearest(const char *name);
/* True when the resolved call's eval hook reads argument i from the call
 * node (a literal checked at resolve time, e.g. window()'s durations, a
 * session_window() gap that reads no column) and never from its column:
 * the evaluator passes NULL for it instead of materialising n copies of
 * the literal every batch. */
bool sl_func_const_arg(const sl_expr *call, int i);

/* ---- shared internals (expr.c, expr_resolve.c, expr_eval.c) ---- */
/* A new node of kind with a copy of name and room for nargs children
 * (builders; the resolver makes nodes with it too).  NULL when out of
 * memory. */
sl_expr *sl_expr_node_named(sl_expr_kind kind, const char *name, int nargs);
/* Wrap a resolved expression in an implicit (name-transparent) cast to
 * `to`; takes ownership of e.  NULL on out of memory. */
sl_expr *sl_expr_implicit_cast(sl_expr *e, sl_type *to);
/* Make call->args[i] of kind k (primitive) by an implicit cast where Spark
 * allows one, else SL_EANALYSIS "... argument 2 requires string type ...". */
int sl_expr_arg_kind(sl_expr *call, int i, sl_kind k, sl_err *err);
/* SL_EANALYSIS "cannot resolve '<sql of e>' due to data type mismatch: ...". */
int sl_expr_mismatch(sl_err *err, const sl_expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Spark's catalog name of a type ("int", "bigint", "struct<a:int>"). */
void sl_expr_type_name(const sl_type *t, sl_buf *out);
/* Wider common type of a and b (NULLTYPE yields the other), or NULL.
 * Borrowed singleton or one of the inputs. */
sl_type *sl_expr_common_type(sl_type *a, sl_type *b);
/* A column of n copies of a literal node's value (typed e->rtype). */
sl_col *sl_expr_lit_col(const sl_expr *lit, int64_t n);

/* ---- null bitmaps (defined in func.c) ---- */
/* out->nulls = union of the nulls of ins[0..k) (NULL entries skipped).
 * Returns 0 or SL_ENOMEM. */
int sl_func_nulls_merge(sl_col *out, sl_col *const *ins, int k);
/* Zero the value slots of null rows (the col.h invariant) for fixed-width
 * columns after a kernel computed every row. */
void sl_func_zero_nulls(sl_col *c);
/* Set the row bit in a bitmap allocated on demand (no slot zeroing). */
int sl_func_mark_null(sl_col *c, int64_t i);

/* ---- helpers for eval/resolve hooks (defined in func.c) ---- */
sl_col *sl_func_out(const sl_expr *call, int64_t n, sl_err *err);
/* Free o, set SL_ENOMEM, return NULL. */
sl_col *sl_func_oom(sl_col *o, sl_err *err);
int sl_func_rtype(sl_expr *call, sl_kind k, bool nullable);
bool sl_func_any_nullable(const sl_expr *call);
/* Cast every argument to kind k; result kind r. */
int sl_func_all_args(sl_expr *call, sl_kind k, sl_kind r, sl_err *err);
/* True if any of args[0..nargs) is NULL at row i. */
bool sl_func_row_null(sl_col *const *args, int nargs, int64_t i);
/* String of a literal (constant) argument i, or NULL. */
const char *sl_func_lit_str(const sl_expr *call, int i);

/* ---- JSON path (jsonpath.c) ---- */
/* get_json_object: the value at path ("$.a.b[0]", "$['a']") in json[0..n)
 * appended to out: strings unquoted, objects and arrays as compact JSON,
 * numbers and booleans as written.  False when the text is not JSON, the
 * path is invalid or matches nothing, or the value is null. */
bool sl_jsonpath_get(const char *json, size_t n, const char *path, sl_buf *out);

#endif
