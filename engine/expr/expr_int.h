/*
 * expr_int: what the evaluator's files share (expr_eval.c, the node by
 * node evaluator and its column kernels; expr_fuse.c, the fused path that
 * runs the same kernels over chunks of rows; cast.c and func_math.c, the
 * double to integer conversion).  Engine-internal: included by files of
 * expr/ only.
 *
 * The kernels below work on plain arrays: xa (or, when xa is NULL, the
 * scalar xs) op ya (or ys) into o[0..n).  They write every slot, know
 * nothing of nulls, and never trap: integer arithmetic wraps as Java's
 * (through unsigned), an integer % by 0 or -1 gives 0 and a double / or %
 * by 0 gives 0 (the caller marks those rows NULL, as Spark's non-ANSI
 * arithmetic does).  At most one of xa, ya is NULL.
 */
#ifndef SL_EXPR_INT_H
#define SL_EXPR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "expr/expr.h"

/* True if e has no column reference (and no aggregate or generator): it
 * has the same value on every row. */
bool sl_expr_const_tree(const sl_expr *e);

/* Arithmetic (SL_OP_ADD .. SL_OP_MOD; DIV for doubles only). */
void sl_arith_i32(int op, const int32_t *xa, int32_t xs, const int32_t *ya,
		  int32_t ys, int32_t *o, int64_t n);
void sl_arith_i64(int op, const int64_t *xa, int64_t xs, const int64_t *ya,
		  int64_t ys, int64_t *o, int64_t n);
void sl_arith_f64(int op, const double *xa, double xs, const double *ya,
		  double ys, double *o, int64_t n);

/* o[i] = (double)x[i] for i in [0, n), faster (exact as the cast). */
void sl_conv_i64_f64(const int64_t *x, double *o, int64_t n);

/* Comparisons (SL_OP_EQ .. SL_OP_GE, SL_OP_EQNS as EQ) into 0/1 bytes. */
void sl_cmp_i32(int op, const int32_t *xa, int32_t xs, const int32_t *ya,
		int32_t ys, uint8_t *o, int64_t n);
void sl_cmp_i64(int op, const int64_t *xa, int64_t xs, const int64_t *ya,
		int64_t ys, uint8_t *o, int64_t n);
void sl_cmp_f64(int op, const double *xa, double xs, const double *ya,
		double ys, uint8_t *o, int64_t n);

/* The fused path (expr_fuse.c): when e's root is an arithmetic,
 * comparison, negation or cast node over INT, BIGINT or DOUBLE values,
 * evaluate the whole region of such nodes under it in one pass over b's
 * rows into *out (a new column) and return 1; return 0 (nothing done)
 * when e is not such a node, < 0 with err set on failure.  Subtrees of
 * other kinds are evaluated whole with sl_expr_eval and read as columns. */
int sl_expr_fuse(const sl_expr *e, const sl_batch *b, sl_col **out,
		 sl_err *err);
/* True if sl_expr_fuse takes e (without evaluating anything). */
bool sl_expr_fuse_root(const sl_expr *e);

/* Java's (long) / (int) of a double: NaN -> 0, saturating at the ends. */
static inline int64_t sl_d2l(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

static inline int32_t sl_d2i(double x)
{
	if (x != x)
		return 0;
	if (x >= 2147483647.0)
		return INT32_MAX;
	if (x <= -2147483648.0)
		return INT32_MIN;
	return (int32_t)x;
}

#endif
