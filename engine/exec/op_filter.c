/*
 * op_filter: the FILTER operator (filter/where).  Stateless.
 *
 * The condition is evaluated once per batch into a BOOLEAN column; a row
 * passes when the value is true and not NULL (SQL's three-valued logic:
 * NULL filters out, as Spark).  A batch whose every row passes is handed on
 * as is (no copy); otherwise the passing rows are gathered.  A NULL test of
 * a column without NULLs (window aggregates filter `ts IS NOT NULL`) is
 * decided from the column's bitmap alone, without a pass over the rows.
 */
#include "exec/exec.h"

#include <stdlib.h>

/* `c IS NOT NULL` (the filter Spark's TimeWindowing puts under every
 * window aggregate) or `c IS NULL` over a column of the batch that has no
 * NULL row decides every row at once: 1 all pass, 0 none; -1 when cond is
 * not such a test or the column has NULLs (then rows are looked at). */
static int null_test(const sl_expr *cond, const sl_batch *in)
{
	const sl_expr *a;
	const sl_col *c;
	if (cond->kind != SL_X_ISNOTNULL && cond->kind != SL_X_ISNULL)
		return -1;
	for (a = cond->args[0]; a->kind == SL_X_ALIAS; a = a->args[0])
		;
	if (a->kind != SL_X_COL || a->idx < 0 || a->idx >= in->ncols)
		return -1;
	c = in->cols[a->idx];
	if (c->nulls != NULL || c->type->kind == SL_NULLTYPE)
		return -1;
	return cond->kind == SL_X_ISNOTNULL;
}

sl_batch *sl_op_filter_batch(const sl_expr *cond, sl_batch *in, sl_err *err)
{
	sl_col *c;
	uint8_t *sel;
	const uint8_t *v;
	int64_t i, n = in->nrows, k = 0;
	int all;
	sl_batch *o;
	if (cond->rtype->kind == SL_NULLTYPE)
		return sl_batch_slice(in, 0, 0);
	if ((all = null_test(cond, in)) >= 0) {
		o = all ? sl_batch_ref(in) : sl_batch_slice(in, 0, 0);
		if (o == NULL)
			sl_err_nomem(err);
		return o;
	}
	c = sl_expr_eval(cond, in, err);
	if (c == NULL)
		return NULL;
	sel = malloc((size_t)(n > 0 ? n : 1));
	if (sel == NULL) {
		sl_col_free(c);
		sl_err_nomem(err);
		return NULL;
	}
	v = sl_col_u8(c);
	if (c->nulls == NULL) {
		for (i = 0; i < n; i++) {
			sel[i] = v[i] != 0;
			k += sel[i];
		}
	} else {
		for (i = 0; i < n; i++) {
			sel[i] = v[i] != 0 && !sl_col_isnull(c, i);
			k += sel[i];
		}
	}
	o = k == n ? sl_batch_ref(in) : sl_batch_filter(in, sel, k);
	if (o == NULL)
		sl_err_nomem(err);
	free(sel);
	sl_col_free(c);
	return o;
}

static int filter_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	sl_batch *o = sl_op_filter_batch(op->plan->cond, in, err);
	int rc;
	(void)side;
	if (o == NULL)
		return err ? err->code : SL_EINTERNAL;
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

static const struct sl_op_ops filter_ops = {
	.name = "Filter",
	.push = filter_push,
	.finish = sl_op_finish_default,
	.free = NULL,
};

sl_op *sl_op_filter_new(const sl_plan *p, sl_err *err)
{
	return sl_op_new(&filter_ops, p, err);
}
