/*
 * op_sort: the SORT operator (orderBy / sort).
 *
 * Blocking: buffers every input batch, and on finish concatenates them,
 * evaluates the sort keys once, sorts an index array and gathers the rows.
 * Order is Spark's: ascending puts NULLs first, descending puts them last
 * (unless nulls_first/nulls_last says otherwise); NaN sorts above every
 * double; strings compare bytewise (UTF-8 code point order); structs field
 * by field, arrays element by element.  Equal keys keep their input order
 * (the comparator breaks ties by row index, so the sort is stable whatever
 * qsort_r does).
 */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

typedef struct sortctx {
	int nkeys;
	sl_col **kc;
	const int *flags;
} sortctx;

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const sortctx *s = arg;
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	int k, r;
	for (k = 0; k < s->nkeys; k++) {
		const sl_col *c = s->kc[k];
		bool na = sl_col_isnull(c, a), nb = sl_col_isnull(c, b);
		int fl = s->flags[k];
		if (na || nb) {
			if (na && nb)
				continue;
			r = na ? -1 : 1;
			return fl & SL_SORT_NULLS_LAST ? -r : r;
		}
		r = sl_col_cmp_value(c, a, c, b);
		if (r != 0)
			return fl & SL_SORT_DESC ? -r : r;
	}
	return cmp_i64(a, b);
}

/* Sort all rows of b by the plan's keys: a new batch. */
static sl_batch *sort_batch(const sl_plan *p, sl_batch *b, sl_err *err)
{
	sortctx s;
	int64_t *idx = malloc((size_t)(b->nrows + 1) * sizeof *idx), i;
	sl_batch *o = NULL;
	int k;
	s.nkeys = p->nsort;
	s.flags = p->sort_flags;
	s.kc = calloc((size_t)p->nsort + 1, sizeof *s.kc);
	if (idx == NULL || s.kc == NULL) {
		sl_err_nomem(err);
		goto out;
	}
	for (k = 0; k < p->nsort; k++)
		if ((s.kc[k] = sl_expr_eval(p->sort_keys[k], b, err)) == NULL)
			goto out;
	for (i = 0; i < b->nrows; i++)
		idx[i] = i;
	qsort_r(idx, (size_t)b->nrows, sizeof *idx, row_cmp, &s);
	o = sl_batch_take(b, idx, b->nrows);
	if (o == NULL)
		sl_err_nomem(err);
out:
	for (k = 0; s.kc && k < p->nsort; k++)
		sl_col_free(s.kc[k]);
	free(s.kc);
	free(idx);
	return o;
}

typedef struct sortst {
	int n, cap;
	sl_batch **bs;
} sortst;

static int sort_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	sortst *st = op->state;
	(void)side;
	if (st->n == st->cap) {
		int cap = st->cap ? 2 * st->cap : 8;
		sl_batch **m = realloc(st->bs, (size_t)cap * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(err);
		st->bs = m;
		st->cap = cap;
	}
	st->bs[st->n++] = sl_batch_ref(in);
	return 0;
}

static int sort_finish(sl_op *op, int side, sl_err *err)
{
	sortst *st = op->state;
	sl_batch *all, *o;
	int rc, i;
	(void)side;
	all = sl_batch_concat(st->bs, st->n, op->plan->schema, err);
	for (i = 0; i < st->n; i++)
		sl_batch_free(st->bs[i]);
	st->n = 0;
	if (all == NULL)
		return err ? err->code : SL_ENOMEM;
	o = sort_batch(op->plan, all, err);
	sl_batch_free(all);
	if (o == NULL)
		return err ? err->code : SL_ENOMEM;
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc < 0 ? rc : sl_op_finish_parent(op, err);
}

static void sort_free(sl_op *op)
{
	sortst *st = op->state;
	int i;
	if (st == NULL)
		return;
	for (i = 0; i < st->n; i++)
		sl_batch_free(st->bs[i]);
	free(st->bs);
	free(st);
}

/* Streaming: drop what a failed micro-batch buffered. */
static void sort_reset(sl_op *op)
{
	sortst *st = op->state;
	int i;
	for (i = 0; i < st->n; i++)
		sl_batch_free(st->bs[i]);
	st->n = 0;
}

static const struct sl_op_ops sort_ops = {
	.name = "Sort",
	.push = sort_push,
	.finish = sort_finish,
	.free = sort_free,
	.reset = sort_reset,
};

sl_op *sl_op_sort_new(const sl_plan *p, sl_err *err)
{
	sl_op *op = sl_op_new(&sort_ops, p, err);
	if (op == NULL)
		return NULL;
	op->state = calloc(1, sizeof(sortst));
	if (op->state == NULL) {
		free(op);
		sl_err_nomem(err);
		return NULL;
	}
	return op;
}
