/*
 * op_dedup: the DEDUP operator (dropDuplicates / distinct).
 *
 * Keeps the set of keys seen so far in a group table (hash.c); a row passes
 * when its key gets a new group id, i.e. the first occurrence wins and the
 * output keeps input order.  The set lives as long as the operator, so the
 * same code deduplicates across micro-batches later (Spark's
 * StreamingDeduplicate; a watermark will bound it).
 * dropDuplicatesWithinWatermark is refused on batch DataFrames, as Spark
 * 3.5 does when the batch query runs.
 */
#include "exec/exec.h"

#include <stdlib.h>

#include "exec/hash.h"

typedef struct dedupst {
	sl_hash_groups *seen;
	int32_t *ids;
	uint8_t *sel;
	int64_t cap;
} dedupst;

static int dedup_grow(dedupst *st, int64_t n, sl_err *err)
{
	if (n <= st->cap)
		return 0;
	free(st->ids);
	free(st->sel);
	st->ids = malloc((size_t)n * sizeof *st->ids);
	st->sel = malloc((size_t)n);
	st->cap = st->ids && st->sel ? n : 0;
	return st->cap ? 0 : sl_err_nomem(err);
}

static int dedup_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	dedupst *st = op->state;
	sl_col **kc = calloc((size_t)p->ndedup + 1, sizeof *kc);
	int64_t next = sl_hash_groups_count(st->seen), i, k = 0;
	sl_batch *o;
	int j, rc;
	(void)side;
	if (kc == NULL || dedup_grow(st, in->nrows, err) < 0) {
		free(kc);
		return sl_err_nomem(err);
	}
	for (j = 0; j < p->ndedup; j++)
		kc[j] = in->cols[p->dedup_cols[j]];
	rc =
	    sl_hash_groups_insert(st->seen, kc, in->nrows, false, st->ids, err);
	free(kc);
	if (rc < 0)
		return rc;
	for (i = 0; i < in->nrows; i++) {
		st->sel[i] = st->ids[i] == next;
		if (st->sel[i]) {
			next++;
			k++;
		}
	}
	o = k == in->nrows ? sl_batch_ref(in) : sl_batch_filter(in, st->sel, k);
	if (o == NULL)
		return sl_err_nomem(err);
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

static void dedup_free(sl_op *op)
{
	dedupst *st = op->state;
	if (st == NULL)
		return;
	sl_hash_groups_free(st->seen);
	free(st->ids);
	free(st->sel);
	free(st);
}

static const struct sl_op_ops dedup_ops = {
	.name = "Deduplicate",
	.push = dedup_push,
	.finish = sl_op_finish_default,
	.free = dedup_free,
};

sl_op *sl_op_dedup_new(const sl_plan *p, sl_err *err)
{
	sl_op *op = sl_op_new(&dedup_ops, p, err);
	dedupst *st;
	sl_type **kt;
	int j;
	if (op == NULL)
		return NULL;
	if (p->within_wm) {
		/* Spark's UnsupportedOperationChecker.checkForBatch */
		sl_err_set(
		    err, SL_EANALYSIS,
		    "dropDuplicatesWithinWatermark is not supported with batch DataFrames/DataSets");
		sl_op_free(op);
		return NULL;
	}
	st = op->state = calloc(1, sizeof *st);
	kt = calloc((size_t)p->ndedup + 1, sizeof *kt);
	if (st == NULL || kt == NULL) {
		free(kt);
		sl_op_free(op);
		sl_err_nomem(err);
		return NULL;
	}
	for (j = 0; j < p->ndedup; j++)
		kt[j] = p->schema->fields[p->dedup_cols[j]].type;
	st->seen = sl_hash_groups_new(kt, p->ndedup, err);
	free(kt);
	if (st->seen == NULL) {
		sl_op_free(op);
		return NULL;
	}
	return op;
}
