/*
 * op_slimit: limit on a stream (Spark's StreamingGlobalLimitExec).
 * Split out of op_stream.c; see there for the batch protocol.
 */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

#include "exec/agg.h"
#include "core/feed.h"
#include "exec/hash.h"
#include "exec/stream_int.h"

/* ------------------------------------------------------------ limit */

/* Above a streaming aggregation (Complete mode: the analysis refuses
 * Update) the limit applies to each micro-batch's result table; otherwise
 * (Append) to the whole stream, the count kept in a store as Spark's
 * StreamingGlobalLimitExec does, so an aborted batch gives its rows back. */
typedef struct slimitst {
	sl_op_stateful sf; /* store NULL when per batch */
	int64_t base;      /* rows let through by committed batches */
	int64_t taken;     /* this batch */
	bool started;
} slimitst;

static const char limit_key[] = "";

static int slimit_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	slimitst *st = op->state;
	int64_t left;
	sl_batch *o;
	int rc;
	(void)side;
	if (!st->started && st->sf.store != NULL) {
		size_t vlen;
		const void *v = sl_state_get(st->sf.store, limit_key, 0, &vlen);
		st->base = 0;
		if (v != NULL && vlen == 8)
			memcpy(&st->base, v, 8);
	}
	st->started = true;
	left = op->plan->limit - st->base - st->taken;
	if (left <= 0)
		return 0;
	o = in->nrows <= left ? sl_batch_ref(in) : sl_batch_slice(in, 0, left);
	if (o == NULL)
		return sl_err_nomem(err);
	st->taken += o->nrows;
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

static void slimit_reset(sl_op *op)
{
	slimitst *st = op->state;
	st->taken = 0;
	st->started = false;
}

static int slimit_finish(sl_op *op, int side, sl_err *err)
{
	slimitst *st = op->state;
	int64_t total = st->base + st->taken;
	int rc = 0;
	(void)side;
	if (st->sf.store != NULL && st->taken > 0)
		rc = sl_state_put(st->sf.store, limit_key, 0, &total, 8, err);
	slimit_reset(op);
	return rc < 0 ? rc : sl_op_finish_parent(op, err);
}

static void slimit_free(sl_op *op)
{
	slimitst *st = op->state;
	if (st == NULL)
		return;
	sl_state_free(st->sf.store);
	free(st);
}

static const struct sl_op_ops slimit_ops = {
	.name = "StreamingGlobalLimit",
	.push = slimit_push,
	.finish = slimit_finish,
	.free = slimit_free,
	.reset = slimit_reset,
};

static bool has_stream_agg(const sl_plan *p)
{
	int i;
	if (p->kind == SL_P_AGGREGATE && p->streaming)
		return true;
	for (i = 0; i < p->nchild; i++)
		if (has_stream_agg(p->child[i]))
			return true;
	return false;
}

sl_op *sl_op_stream_limit_new(const sl_plan *p, sl_stream_ctx *ctx, sl_err *err)
{
	sl_op *op = sl_op_new(&slimit_ops, p, err);
	slimitst *st;
	(void)ctx;
	if (op == NULL)
		return NULL;
	op->state = st = calloc(1, sizeof *st);
	if (st == NULL) {
		sl_op_free(op);
		sl_err_nomem(err);
		return NULL;
	}
	if (!has_stream_agg(p)) {
		if ((st->sf.store = sl_state_new()) == NULL) {
			sl_op_free(op);
			sl_err_nomem(err);
			return NULL;
		}
		st->sf.name = "globalLimit";
		op->sf = &st->sf;
	}
	return op;
}
