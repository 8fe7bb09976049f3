/*
 * op_sdedup: dropDuplicates on a stream (Spark's StreamingDeduplicateExec,
 * progress name "dedupe") and dropDuplicatesWithinWatermark (Spark 3.5's
 * StreamingDeduplicateWithinWatermarkExec, "dedupeWithinWatermark").
 *
 * The keys seen so far live in the operator's state store; a row passes
 * the first time its key is seen (the store's reads see this batch's own
 * puts, so duplicates inside one batch are dropped too).
 *
 * With a watermark (Spark 3.5, SPARK-SEMANTICS.md 3.2):
 *  - late rows: when the input has an event-time column, a row whose
 *    event time (a window's end) <= the late-row watermark is dropped
 *    before deduplication, counted in numRowsDroppedByWatermark and
 *    recorded (q:lateRows), whether or not that column is a key, as
 *    Spark's watermarkPredicateForDataForLateEvents;
 *  - dropDuplicates: the value of an entry is the key's event time when
 *    the event-time column is among the keys; entries whose time <= the
 *    eviction watermark are removed at the end of the batch.  When it is
 *    not a key the state never shrinks (the value is empty);
 *  - within watermark: the key is the chosen columns only, the value the
 *    expiry time (first event time + the watermark delay); an entry is
 *    removed once expiry <= the eviction watermark, so a key seen again
 *    after that passes again.
 * Store layout: key = sl_hash_key_encode of the key columns, value = 8
 * bytes (int64 microseconds, native order) or empty.
 *
 * On a batch DataFrame dropDuplicatesWithinWatermark is refused by the
 * batch operator (op_dedup.c) with Spark's sentence.  Never prints.
 */
#include "exec/exec.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg.h"
#include "core/feed.h"
#include "exec/hash.h"
#include "exec/stream_int.h"
#include "core/timeutil.h"

typedef struct sdedupst {
	sl_op_stateful sf;
	sl_stream_ctx *ctx;
	int et_col;       /* input event-time column, -1 none */
	bool et_window;   /* a window struct: its end */
	bool evicts;      /* entries carry a time and are evicted */
	int64_t delay_us; /* within watermark: expiry = time + delay */
	sl_buf kb;
	uint8_t *sel;
	int64_t cap;
} sdedupst;

static const char *op_name(const sl_plan *p)
{
	return p->within_wm ? "dedupeWithinWatermark" : "dedupe";
}

/* Event time of row i of c (a timestamp or a window's end); false when
 * NULL. */
static bool time_of(const sl_col *c, bool window, int64_t i, int64_t *out)
{
	if (sl_col_isnull(c, i))
		return false;
	if (window) {
		c = c->child[1];
		if (sl_col_isnull(c, i))
			return false;
	}
	*out = sl_col_i64(c)[i];
	return true;
}

static void dedup_event(sl_op *op, sl_col *const *kc, int64_t i,
			const char *val)
{
	sdedupst *st = op->state;
	sl_buf k;
	sl_buf_init(&k);
	sl_stream_row_text(kc, op->plan->ndedup, i, &k);
	if (!sl_buf_failed(&k))
		sl_stream_state_event(st->ctx, op_name(op->plan),
				      sl_buf_cstr(&k), val, "UPDATED");
	sl_buf_release(&k);
}

/* sel[i] = 0 for late rows (counted and recorded); returns how many. */
static int64_t drop_late(sl_op *op, const sl_batch *in)
{
	sdedupst *st = op->state;
	int64_t wm = st->ctx->wm_late_us, i, t, n = 0;
	sl_buf j;
	if (wm == INT64_MIN || st->et_col < 0)
		return 0;
	sl_buf_init(&j);
	for (i = 0; i < in->nrows; i++) {
		if (!time_of(in->cols[st->et_col], st->et_window, i, &t) ||
		    t > wm)
			continue;
		st->sel[i] = 0;
		n++;
		sl_buf_clear(&j);
		sl_batch_row_json(in, i, &j);
		if (!sl_buf_failed(&j))
			sl_stream_late(st->ctx, op_name(op->plan),
				       sl_buf_cstr(&j), t, "[]", wm);
	}
	sl_buf_release(&j);
	st->sf.dropped += n;
	return n;
}

/* The value stored for row i: its event time, or its expiry. */
static size_t entry_value(const sdedupst *st, const sl_batch *in, int64_t i,
			  int64_t *v)
{
	if (!st->evicts || !time_of(in->cols[st->et_col], st->et_window, i, v))
		return 0;
	*v += st->delay_us;
	return sizeof *v;
}

/* sel[i] (already 0 for late rows): row i's key was never seen (in
 * earlier batches or this one). */
static int dedup_select(sl_op *op, const sl_batch *in, sl_col *const *kc,
			int64_t *k, sl_err *err)
{
	const sl_plan *p = op->plan;
	sdedupst *st = op->state;
	bool feed = sl_stream_wants_rows(st->ctx);
	int64_t i, v = 0;
	size_t vlen;
	int rc;
	*k = 0;
	for (i = 0; i < in->nrows; i++) {
		if (!st->sel[i])
			continue;
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
		vlen = entry_value(st, in, i, &v);
		if ((rc = sl_state_put(st->sf.store, st->kb.p, st->kb.len, &v,
				       vlen, err)) < 0)
			return rc;
		if (feed) {
			sl_buf t;
			sl_buf_init(&t);
			if (vlen > 0)
				sl_ts_format(v, &t);
			dedup_event(op, kc, i, sl_buf_cstr(&t));
			sl_buf_release(&t);
		}
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
	memset(st->sel, 1, (size_t)in->nrows);
	drop_late(op, in);
	for (j = 0; j < p->ndedup; j++)
		kc[j] = in->cols[p->dedup_cols[j]];
	rc = dedup_select(op, in, kc, &k, err);
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

typedef struct evict {
	sl_op *op;
	int64_t wm;
	bool feed;
} evict;

static int evict_pred(void *ud, const void *key, size_t klen, const void *val,
		      size_t vlen)
{
	const evict *ev = ud;
	int64_t t;
	(void)key;
	(void)klen;
	if (vlen != sizeof t)
		return 0;
	memcpy(&t, val, sizeof t);
	return t <= ev->wm;
}

static int evict_one(void *ud, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	const evict *ev = ud;
	const sl_plan *p = ev->op->plan;
	sdedupst *st = ev->op->state;
	sl_col **c = calloc((size_t)p->ndedup + 1, sizeof *c);
	sl_buf k, v;
	int64_t t;
	int j, ok = c != NULL;
	for (j = 0; ok && j < p->ndedup; j++)
		ok = (c[j] = sl_col_new(
			  p->schema->fields[p->dedup_cols[j]].type, 1)) != NULL;
	sl_buf_init(&k);
	sl_buf_init(&v);
	if (ok && vlen == sizeof t &&
	    sl_hash_key_decode(c, p->ndedup, 0, key, klen, NULL, NULL) == 0) {
		memcpy(&t, val, sizeof t);
		sl_stream_row_text(c, p->ndedup, 0, &k);
		sl_ts_format(t, &v);
		if (!sl_buf_failed(&k) && !sl_buf_failed(&v))
			sl_stream_state_event(st->ctx, op_name(p),
					      sl_buf_cstr(&k), sl_buf_cstr(&v),
					      "EVICTED");
	}
	sl_buf_release(&k);
	sl_buf_release(&v);
	for (j = 0; c != NULL && j < p->ndedup; j++)
		sl_col_free(c[j]);
	free(c);
	return 0;
}

/* End of a micro-batch: evict by the watermark, then finish. */
static int sdedup_finish(sl_op *op, int side, sl_err *err)
{
	sdedupst *st = op->state;
	evict ev;
	(void)side;
	if (++op->nfinished < (op->nchild > 0 ? op->nchild : 1))
		return 0;
	op->nfinished = 0;
	if (st->evicts && st->ctx->wm_evict_us != INT64_MIN) {
		int64_t n;
		ev.op = op;
		ev.wm = st->ctx->wm_evict_us;
		ev.feed = sl_stream_wants_rows(st->ctx);
		n = sl_state_remove_if(st->sf.store, evict_pred, &ev,
				       ev.feed ? evict_one : NULL, &ev, err);
		if (n < 0)
			return (int)n;
	}
	return sl_op_finish_parent(op, err);
}

/* Spark's shouldRunAnotherBatch: the watermark moved past the one this
 * batch evicted with. */
static bool sdedup_wants_no_data(sl_op *op, int64_t new_wm_us)
{
	const sdedupst *st = op->state;
	int64_t cur = st->ctx->wm_evict_us;
	return new_wm_us != INT64_MIN && (cur == INT64_MIN || new_wm_us > cur);
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
	.finish = sdedup_finish,
	.free = sdedup_free,
	.wants_no_data = sdedup_wants_no_data,
};

/* Where the event time is: the input's first event-time column; whether
 * entries are evicted (a key, or within watermark). */
static void event_time(const sl_plan *p, sdedupst *st)
{
	sl_plan_et et[SL_PLAN_MAX_ET];
	int n = sl_plan_event_time(p->child[0], et, SL_PLAN_MAX_ET), j;
	st->et_col = n > 0 ? et[0].col : -1;
	st->et_window = n > 0 && et[0].window;
	if (n == 0)
		return;
	if (p->within_wm) {
		st->evicts = true;
		st->delay_us = et[0].delay_us;
		return;
	}
	for (j = 0; j < p->ndedup; j++)
		if (p->dedup_cols[j] == st->et_col)
			st->evicts = true;
}

sl_op *sl_op_stream_dedup_new(const sl_plan *p, sl_stream_ctx *ctx, sl_err *err)
{
	sl_op *op;
	sdedupst *st;
	int j;
	for (j = 0; j < p->ndedup; j++)
		if (!sl_type_keyable(
			p->schema->fields[p->dedup_cols[j]].type)) {
			sl_err_set(
			    err, SL_EANALYSIS,
			    "dropDuplicates: column '%s' is an ARRAY, which cannot be a streaming deduplication key",
			    p->schema->fields[p->dedup_cols[j]].name);
			return NULL;
		}
	op = sl_op_stateful_new(&sdedup_ops, p, sizeof *st,
				offsetof(sdedupst, sf), op_name(p), err);
	if (op == NULL)
		return NULL;
	st = op->state;
	st->ctx = ctx;
	sl_buf_init(&st->kb);
	event_time(p, st);
	return op;
}
