/*
 * op_watermark: the withWatermark operator (the node and the event-time
 * metadata are plan/plan_watermark.c).  It passes every batch through
 * unchanged and records this micro-batch's min / max / sum / count of the
 * event-time column in milliseconds, as Spark's EventTimeStats (nulls
 * ignored; rows a stateful operator later drops as late are still
 * counted).  The driver (query_batch.c) reads the statistics at the end of
 * the batch and computes the next watermark (SPARK-SEMANTICS.md 3.1).
 * A column whose writer already summed them in its own loop carries them
 * (col.h sl_col_tstats: the rate source's timestamps); then no row is
 * read here.
 *
 * In a streaming query whose feed wants per-row detail (the workbench;
 * benchmarks turn detail off and pay one branch per batch), the operator
 * also lists the batch's event times in arrival order, every input row
 * including the ones an operator above drops as late, capped at
 * SL_FEED_TIMES_PER_BATCH, in one sl_buf, and sends them as ONE
 * SL_EV_EVENT_TIMES event when the micro-batch finishes (the scatter view
 * draws a mark per row from it; feed.h has the format).
 *
 * Ownership: the operator borrows its plan.
 */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

#include "core/feed.h"
#include "core/timeutil.h"

/* --------------------------------------------------------- operator */

typedef struct wmst {
	sl_wm_stats st;
	const sl_stream_ctx *ctx; /* borrowed; NULL outside a streaming query */
	/* this micro-batch's event times for SL_EV_EVENT_TIMES (detail on
	 * only): the JSON list body, "1767268020000,null,..." */
	sl_buf times;
	int64_t nrows;  /* input rows this batch */
	int64_t listed; /* of them in `times` (<= SL_FEED_TIMES_PER_BATCH) */
} wmst;

/* A window struct is observed by its end (NULL when it has none). */
static const sl_col *et_col(const sl_col *c)
{
	if (c->type->kind != SL_STRUCT)
		return c;
	return c->nchild < 2 ? NULL : c->child[1];
}

static void wm_observe(wmst *w, const sl_col *c, int64_t n)
{
	const int64_t *v;
	int64_t i, mn = w->st.min_ms, mx = w->st.max_ms, sum = 0, cnt = 0;
	if ((c = et_col(c)) == NULL)
		return;
	if (c->tstats.set && c->len == n) {
		/* worked out by the column's writer in its own loop */
		const sl_col_tstats *t = &c->tstats;
		w->st.min_ms = t->min_ms < mn ? t->min_ms : mn;
		w->st.max_ms = t->max_ms > mx ? t->max_ms : mx;
		w->st.sum_ms += t->sum_ms;
		w->st.count += t->count;
		return;
	}
	v = sl_col_i64(c);
	for (i = 0; i < n; i++) {
		int64_t ms;
		if (sl_col_isnull(c, i))
			continue;
		ms = v[i] / 1000; /* Java's truncating division, as Spark */
		mn = ms < mn ? ms : mn;
		mx = ms > mx ? ms : mx;
		sum += ms;
		cnt++;
	}
	w->st.min_ms = mn;
	w->st.max_ms = mx;
	w->st.sum_ms += sum;
	w->st.count += cnt;
}

static bool wants_times(const wmst *w)
{
	return w->ctx != NULL && w->ctx->feed != NULL &&
	       sl_feed_wants(w->ctx->feed, SL_EV_EVENT_TIMES);
}

/* Append the first rows' event times (ms, arrival order) to w->times. */
static void wm_list(wmst *w, const sl_col *c, int64_t n)
{
	const int64_t *v;
	int64_t i, k;
	w->nrows += n;
	k = SL_FEED_TIMES_PER_BATCH - w->listed;
	if (k > n)
		k = n;
	if (k <= 0 || (c = et_col(c)) == NULL)
		return;
	v = sl_col_i64(c);
	for (i = 0; i < k; i++) {
		if (w->listed + i > 0)
			sl_buf_addc(&w->times, ',');
		if (sl_col_isnull(c, i))
			sl_buf_adds(&w->times, "null");
		else
			sl_buf_printf(&w->times, "%lld",
				      (long long)(v[i] / 1000));
	}
	w->listed += k;
}

static int wm_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	wmst *w = op->state;
	(void)side;
	if (op->plan->wm_col < in->ncols) {
		wm_observe(w, in->cols[op->plan->wm_col], in->nrows);
		if (in->nrows > 0 && wants_times(w))
			wm_list(w, in->cols[op->plan->wm_col], in->nrows);
	}
	return sl_op_emit(op, in, err);
}

static void times_clear(wmst *w)
{
	if (w->times.oom) { /* a failed growth is sticky: start over */
		sl_buf_release(&w->times);
		sl_buf_init(&w->times);
	}
	sl_buf_clear(&w->times);
	w->nrows = w->listed = 0;
}

/* One SL_EV_EVENT_TIMES event for the batch's rows, then forget them. */
static void wm_times_event(sl_op *op)
{
	wmst *w = op->state;
	const char *name = op->plan->schema->fields[op->plan->wm_col].name;
	sl_buf t, j;
	if (w->nrows == 0 || !wants_times(w))
		goto out;
	sl_buf_init(&t);
	sl_buf_init(&j);
	sl_buf_printf(&t, "event times of %lld rows (%s)", (long long)w->nrows,
		      name);
	if (w->listed < w->nrows)
		sl_buf_printf(&t, ", the first %lld listed",
			      (long long)w->listed);
	sl_buf_adds(&j, "{\"column\":");
	sl_buf_json_str(&j, name, strlen(name));
	sl_buf_printf(&j, ",\"count\":%lld,\"ms\":[", (long long)w->nrows);
	sl_buf_add(&j, sl_buf_cstr(&w->times), w->times.len);
	sl_buf_adds(&j, "]}");
	if (!sl_buf_failed(&t) && !sl_buf_failed(&j) &&
	    !sl_buf_failed(&w->times))
		sl_feed_add(w->ctx->feed, SL_EV_EVENT_TIMES, w->ctx->batch_id,
			    w->ctx->batch_ts_us, sl_buf_cstr(&t),
			    sl_buf_cstr(&j));
	sl_buf_release(&t);
	sl_buf_release(&j);
out:
	times_clear(w);
}

static int wm_finish(sl_op *op, int side, sl_err *err)
{
	wm_times_event(op);
	return sl_op_finish_default(op, side, err);
}

static void wm_reset(sl_op *op)
{
	wmst *w = op->state;
	memset(&w->st, 0, sizeof w->st);
	w->st.delay_us = op->plan->wm_delay_us;
	w->st.min_ms = INT64_MAX;
	w->st.max_ms = INT64_MIN;
	times_clear(w);
}

static void wm_free(sl_op *op)
{
	wmst *w = op->state;
	if (w != NULL)
		sl_buf_release(&w->times);
	free(w);
}

static const struct sl_op_ops wm_ops = {
	.name = "EventTimeWatermark",
	.push = wm_push,
	.finish = wm_finish,
	.free = wm_free,
	.reset = wm_reset,
};

sl_op *sl_op_watermark_new(const sl_plan *p, sl_err *err)
{
	sl_op *op = sl_op_new(&wm_ops, p, err);
	wmst *w;
	if (op == NULL)
		return NULL;
	if ((w = calloc(1, sizeof(wmst))) == NULL) {
		free(op);
		sl_err_nomem(err);
		return NULL;
	}
	sl_buf_init(&w->times);
	op->state = w;
	wm_reset(op);
	return op;
}

sl_op *sl_op_watermark_stream_new(const sl_plan *p, const sl_stream_ctx *ctx,
				  sl_err *err)
{
	sl_op *op = sl_op_watermark_new(p, err);
	if (op != NULL)
		((wmst *)op->state)->ctx = ctx;
	return op;
}

bool sl_op_is_watermark(const sl_op *op)
{
	return op != NULL && op->ops == &wm_ops;
}

void sl_op_watermark_stats(const sl_op *op, sl_wm_stats *out)
{
	const wmst *w = op->state;
	*out = w->st;
}
