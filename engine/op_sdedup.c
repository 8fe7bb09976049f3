/*
 * op_sdedup: dropDuplicates on a stream (Spark's StreamingDeduplicateExec,
 * progress name "dedupe"): the keys seen so far live in the operator's
 * state store; a row passes the first time its key is seen in any batch.
 * Split out of op_stream.c; see there for the batch protocol.
 */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "feed.h"
#include "hash.h"
#include "stream_int.h"

/* ------------------------------------------------------------ dedup */

typedef struct sdedupst {
	sl_op_stateful sf;
	sl_stream_ctx *ctx;
	sl_buf kb;
	uint8_t *sel;
	int64_t cap;
} sdedupst;

static void dedup_event(sl_op *op, sl_col *const *kc, int64_t i)
{
	sdedupst *st = op->state;
	sl_buf k;
	sl_buf_init(&k);
	sl_stream_row_text(kc, op->plan->ndedup, i, &k);
	if (!sl_buf_failed(&k))
		sl_stream_state_event(st->ctx, "dedupe", sl_buf_cstr(&k), "", "UPDATED");
	sl_buf_release(&k);
}

/* sel[i]: row i's key was never seen (in earlier batches or this one);
 * the store's reads see this batch's own puts. */
static int dedup_select(sl_op *op, sl_col *const *kc, int64_t n, int64_t *k,
			sl_err *err)
{
	const sl_plan *p = op->plan;
	sdedupst *st = op->state;
	bool feed = sl_stream_wants_rows(st->ctx);
	int64_t i;
	int rc;
	*k = 0;
	for (i = 0; i < n; i++) {
		size_t vlen;
		sl_buf_clear(&st->kb);
		sl_hash_key_encode(kc, p->ndedup, i, &st->kb);
		if (sl_buf_failed(&st->kb))
			return sl_err_nomem(err);
		st->sel[i] = sl_state_get(st->sf.store, st->kb.p, st->kb.len,
					  &vlen) == NULL;
		if (!st->sel[i]) {
			st->sf.dup_dropped++;
			continue;
		}
		if ((rc = sl_state_put(st->sf.store, st->kb.p, st->kb.len, "",
				       0, err)) < 0)
			return rc;
		if (feed)
			dedup_event(op, kc, i);
		(*k)++;
	}
	return 0;
}

static int sdedup_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	sdedupst *st = op->state;
	sl_col **kc = calloc((size_t)p->ndedup + 1, sizeof *kc);
	sl_batch *o;
	int64_t k;
	int j, rc;
	(void)side;
	if (kc == NULL)
		return sl_err_nomem(err);
	if (in->nrows > st->cap) {
		free(st->sel);
		st->sel = malloc((size_t)in->nrows);
		st->cap = st->sel ? in->nrows : 0;
	}
	if (st->sel == NULL) {
		free(kc);
		return sl_err_nomem(err);
	}
	for (j = 0; j < p->ndedup; j++)
		kc[j] = in->cols[p->dedup_cols[j]];
	rc = dedup_select(op, kc, in->nrows, &k, err);
	free(kc);
	if (rc < 0 || k == 0)
		return rc;
	o = k == in->nrows ? sl_batch_ref(in) : sl_batch_filter(in, st->sel, k);
	if (o == NULL)
		return sl_err_nomem(err);
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

static void sdedup_free(sl_op *op)
{
	sdedupst *st = op->state;
	if (st == NULL)
		return;
	sl_state_free(st->sf.store);
	sl_buf_release(&st->kb);
	free(st->sel);
	free(st);
}

static const struct sl_op_ops sdedup_ops = {
	.name = "StreamingDeduplicate",
	.push = sdedup_push,
	.finish = sl_op_finish_default,
	.free = sdedup_free,
};

sl_op *sl_op_stream_dedup_new(const sl_plan *p, sl_stream_ctx *ctx,
			      sl_err *err)
{
	sl_op *op = sl_op_new(&sdedup_ops, p, err);
	sdedupst *st;
	int j;
	if (op == NULL)
		return NULL;
	for (j = 0; j < p->ndedup; j++)
		if (!sl_hash_key_type_ok(p->schema->fields[p->dedup_cols[j]].type)) {
			sl_err_set(err, SL_EANALYSIS,
				   "dropDuplicates: column '%s' is an ARRAY, which cannot be a streaming deduplication key",
				   p->schema->fields[p->dedup_cols[j]].name);
			sl_op_free(op);
			return NULL;
		}
	op->state = st = calloc(1, sizeof *st);
	if (st == NULL || (st->sf.store = sl_state_new()) == NULL) {
		sl_op_free(op);
		sl_err_nomem(err);
		return NULL;
	}
	st->sf.name = "dedupe";
	st->ctx = ctx;
	sl_buf_init(&st->kb);
	op->sf = &st->sf;
	return op;
}

