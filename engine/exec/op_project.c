/*
 * op_project: the PROJECT operator (select, withColumn, withColumnRenamed,
 * drop) and its generator (explode, explode_outer, posexplode).
 *
 * Stateless: one output batch per input batch.  A passed-through column is
 * shared by reference (no copy); computed columns come from sl_expr_eval a
 * whole batch at a time.  With a generator the other columns are gathered
 * once with a repeat index (row i repeated len(array i) times) and the
 * element column is a gather of the array's element vector, so explode
 * costs two index passes and no per-row allocation.
 */
#include "exec/exec.h"

#include <stdlib.h>

/* Repeat indexes for the generator: rows[k] is the input row of output row
 * k, elem[k] its element index (or -1 for explode_outer's null row). */
static int64_t gen_index(const sl_plan *p, const sl_col *arr, int64_t n,
			 int64_t **rows, int64_t **elem, int32_t **pos)
{
	int64_t i, k = 0, total = 0, e;
	for (i = 0; i < n; i++) {
		int64_t len = sl_col_isnull(arr, i)
				  ? 0
				  : arr->offsets[i + 1] - arr->offsets[i];
		total += len == 0 && p->gen_outer ? 1 : len;
	}
	*rows = malloc((size_t)(total + 1) * sizeof **rows);
	*elem = malloc((size_t)(total + 1) * sizeof **elem);
	*pos = malloc((size_t)(total + 1) * sizeof **pos);
	if (*rows == NULL || *elem == NULL || *pos == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		int64_t lo = arr->offsets[i], hi = arr->offsets[i + 1];
		if (sl_col_isnull(arr, i))
			hi = lo;
		if (hi == lo && p->gen_outer) {
			(*rows)[k] = i;
			(*pos)[k] = -1;
			(*elem)[k++] = -1;
		}
		for (e = lo; e < hi; e++) {
			(*rows)[k] = i;
			(*pos)[k] = (int32_t)(e - lo);
			(*elem)[k++] = e;
		}
	}
	return total;
}

static int explode(const sl_plan *p, sl_batch *in, sl_col **cols, int64_t *nout,
		   sl_err *err)
{
	int64_t *rows = NULL, *elem = NULL, total, i;
	int32_t *pos = NULL;
	sl_col *arr = sl_expr_eval(p->gen_arg, in, err), *c;
	int k, at = p->gen_at, rc = SL_ENOMEM;
	if (arr == NULL)
		return err ? err->code : SL_EINTERNAL;
	total = gen_index(p, arr, in->nrows, &rows, &elem, &pos);
	if (total < 0)
		goto out;
	for (k = 0; k < p->nexprs; k++) {
		if (k == at || (p->gen_pos && k == at + 1))
			continue;
		c = sl_col_take(cols[k], rows, total);
		sl_col_free(cols[k]);
		cols[k] = c;
		if (c == NULL)
			goto out;
	}
	if (p->gen_pos) {
		cols[at] = sl_col_new(sl_type_prim(SL_INT), total);
		if (cols[at] == NULL)
			goto out;
		for (i = 0; i < total; i++) {
			sl_col_i32(cols[at])[i] = pos[i];
			if (pos[i] < 0 && sl_col_set_null(cols[at], i) < 0)
				goto out;
		}
		at++;
	}
	cols[at] = sl_col_take(arr->child[0], elem, total);
	if (cols[at] == NULL)
		goto out;
	*nout = total;
	rc = 0;
out:
	if (rc < 0)
		sl_err_nomem(err);
	sl_col_free(arr);
	free(rows);
	free(elem);
	free(pos);
	return rc;
}

sl_batch *sl_op_project_batch(const sl_plan *p, sl_batch *in, sl_err *err)
{
	sl_col **cols = calloc((size_t)p->nexprs + 1, sizeof *cols);
	int64_t n = in->nrows;
	sl_batch *o = NULL;
	int k;
	if (cols == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (k = 0; k < p->nexprs; k++) {
		if (p->gen_at >= 0 &&
		    (k == p->gen_at || (p->gen_pos && k == p->gen_at + 1)))
			continue;
		if (p->src[k] >= 0)
			cols[k] = sl_col_ref(in->cols[p->src[k]]);
		else
			cols[k] = sl_expr_eval(p->exprs[k], in, err);
		if (cols[k] == NULL)
			goto fail;
	}
	if (p->gen_at >= 0 && explode(p, in, cols, &n, err) < 0)
		goto fail;
	o = sl_batch_new(p->schema, n, cols);
	if (o == NULL)
		sl_err_nomem(err);
	free(cols);
	return o;
fail:
	for (k = 0; k < p->nexprs; k++)
		sl_col_free(cols[k]);
	free(cols);
	return NULL;
}

static int project_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	sl_batch *o = sl_op_project_batch(op->plan, in, err);
	int rc;
	(void)side;
	if (o == NULL)
		return err ? err->code : SL_EINTERNAL;
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

static const struct sl_op_ops project_ops = {
	.name = "Project",
	.push = project_push,
	.finish = sl_op_finish_default,
	.free = NULL,
};

sl_op *sl_op_project_new(const sl_plan *p, sl_err *err)
{
	return sl_op_new(&project_ops, p, err);
}
