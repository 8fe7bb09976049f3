/*
 * op_limit: GLOBAL LIMIT and UNION, the two remaining stateless operators.
 *
 * Limit passes batches through until n rows have gone out, slicing the
 * batch that crosses the line, and drops the rest.  NEEDSWORK: upstream
 * work is not stopped early; the rest of the input is read and ignored.  Union re-labels each side's batches to the union schema,
 * casting the columns whose type was widened (INT ∪ BIGINT -> BIGINT).
 */
#include "exec/exec.h"

#include <stdlib.h>

/* ------------------------------------------------------------- limit */

static int limit_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	int64_t left = op->plan->limit - op->rows_out;
	sl_batch *o;
	int rc;
	(void)side;
	if (left <= 0)
		return 0;
	if (in->nrows <= left)
		return sl_op_emit(op, in, err);
	o = sl_batch_slice(in, 0, left);
	if (o == NULL)
		return sl_err_nomem(err);
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

static const struct sl_op_ops limit_ops = {
	.name = "GlobalLimit",
	.push = limit_push,
	.finish = sl_op_finish_default,
	.free = NULL,
};

sl_op *sl_op_limit_new(const sl_plan *p, sl_err *err)
{
	return sl_op_new(&limit_ops, p, err);
}

/* ------------------------------------------------------------- union */

static int union_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	sl_type *st = op->plan->schema;
	sl_col **cols = calloc((size_t)st->nfields + 1, sizeof *cols);
	sl_batch *o;
	int i, rc;
	(void)side;
	if (cols == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < st->nfields; i++) {
		sl_col *c = in->cols[i];
		cols[i] = sl_type_equal(c->type, st->fields[i].type)
			      ? sl_col_ref(c)
			      : sl_cast_col(c, st->fields[i].type, err);
		if (cols[i] == NULL) {
			while (i-- > 0)
				sl_col_free(cols[i]);
			free(cols);
			return err ? err->code : SL_ENOMEM;
		}
	}
	o = sl_batch_new(st, in->nrows, cols);
	free(cols);
	if (o == NULL)
		return sl_err_nomem(err);
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

static const struct sl_op_ops union_ops = {
	.name = "Union",
	.push = union_push,
	.finish = sl_op_finish_default,
	.free = NULL,
};

sl_op *sl_op_union_new(const sl_plan *p, sl_err *err)
{
	return sl_op_new(&union_ops, p, err);
}
