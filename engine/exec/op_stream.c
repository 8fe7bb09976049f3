/*
 * op_stream: streaming aggregation, the operator that keeps aggregates
 * across micro-batches (Spark's StateStoreSave, progress name
 * "stateStoreSave").  Its eviction is op_stream_evict.c; the streaming
 * leaf is stream_leaf.c, the feed events the stateful operators share
 * stream_feed.c; dropDuplicates is op_sdedup.c, the limit over the whole
 * stream op_slimit.c.
 *
 * Streaming aggregation, per micro-batch:
 *  1. the batch's rows go through the ordinary hash aggregate (op_agg.c)
 *     into partial states, one group per key of this batch;
 *  2. at the end of the batch each group is merged with its stored buffer
 *     (key = sl_hash_key_encode of the group key, value = the aggregates'
 *     buffers, agg.h) and written back: only the batch's groups are
 *     touched, so the cost is O(groups of the batch), not O(state);
 *  3. output by ctx->mode: Update emits the groups of this batch, Complete
 *     every group in the store; both sorted by encoded key, which is the
 *     ascending key order with NULLs first (deterministic; Spark's order is
 *     unspecified).  Append (watermarked keys only) emits the groups the
 *     eviction watermark closes, once, as they leave the store.
 * With a watermarked grouping key (window end / event time, see
 * sl_plan_agg_event_time) and not in Complete mode, rows whose compared
 * value is <= ctx->wm_late_us are dropped: the compared value is part of
 * the group key, so late rows make late groups of the batch's hash
 * aggregate, which are counted (numRowsDroppedByWatermark, as Spark
 * counts after its partial aggregate) and neither merged nor output; the
 * rows are logged (sl_stream_late: one entry per input row, listing every
 * window it missed).
 * Sliding windows by slices (Flink/RisingWave "slicing"): when the
 * aggregate groups by a sliding window whose size is a multiple of its
 * slide and every aggregate is order-free (slicing_setup), its EXPAND
 * child hands over each row once with the slide-long slice holding it as
 * `window` (sl_stream_agg_slices); the batch's hash aggregate groups by
 * slice, then each slice group is merged into the size/slide windows that
 * hold its slice (sl_window_merge_slices: partial buffers, so O(groups x
 * windows), not O(rows x windows)), and everything below goes on over
 * those window groups as before.  Late rows are found by their slice's end
 * (their earliest window's) and logged once, with all their windows.
 * At the end of the batch entries <= ctx->wm_evict_us leave the store
 * (op_stream_evict.c): for windowed keys, one pass over the store once the
 * watermark passes the smallest live window end (read from the key bytes;
 * a window's groups all leave at once, so the passes are rare), else an
 * sl_win_index (window.h) finds them without scanning the store.
 * Eligible plans (a watermarked window + fixed-width columns, fixed-size
 * buffers, Append or Update) take the live path instead, op_stream_live.c:
 * the store is a typed live table the rows probe once each, and steps 1-2
 * and the eviction above are its; there a sliding window's rows come once
 * each with their slice too (rowslices, any aggregate: each row is folded
 * into each of its windows in the expanded order).
 * The store's pending version is made permanent by sl_exec_stream_commit
 * after the sink took the rows, or thrown away by sl_exec_stream_abort:
 * a failed batch re-runs exactly on the totals it started from.
 *
 * Ownership: operators own their stores; ctx and the plan are borrowed.
 * Never prints; per-row feed events only when sl_feed_wants says so.
 */
#include "exec/op_stream_int.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg.h"
#include "core/feed.h"
#include "exec/hash.h"
#include "exec/stream_int.h"
#include "core/timeutil.h"

/* ------------------------------------------------------ aggregation */

/* Late rows logged per operator and batch (numRowsDroppedByWatermark
 * still counts them all): the log is a ring of 1000, and formatting 10,000
 * rows a batch to keep a few was most of W5's time (7 -> 20 M events/s
 * measured with 200). */
#define LATE_LOG_MAX 200

/* A hash aggregate for this batch: the last batch's, emptied, when there
 * is one (growing its arrays and table again every batch was a tenth of
 * W1-100k's time), else a new one. */
static sl_op *part_get(sl_op *op, sl_op **spare, sl_err *err)
{
	sl_op *part = *spare;
	*spare = NULL;
	return part != NULL ? part : sl_op_agg_new(op->plan, err);
}

/* Empty a batch's hash aggregate for the next batch, keeping its
 * capacity; NULL (freed) when it holds what cannot be emptied. */
static sl_op *part_recycle(const sl_plan *p, sl_op *part)
{
	sl_agg **aggs;
	sl_hash_groups *t;
	int64_t n;
	int i;
	if (part == NULL)
		return NULL;
	aggs = sl_op_agg_states(part);
	t = sl_op_agg_table(part);
	n = sl_op_agg_ngroups(part);
	for (i = 0; i < p->naggs; i++)
		if (!sl_agg_clear(aggs[i], n))
			goto drop;
	if (t != NULL && sl_hash_groups_clear(t) < 0)
		goto drop;
	return part;
drop:
	sl_op_free(part);
	return NULL;
}

static int sagg_part(sl_op *op, sl_err *err)
{
	saggst *st = op->state;
	if (st->part == NULL)
		st->part = part_get(op, &st->spare, err);
	return st->part ? 0 : (err ? err->code : SL_ENOMEM);
}

/* The compared value of every row of `in` (window end, or the event
 * time); valid[i] = 0 for a NULL.  Returns the number of rows whose value
 * is <= wm (late). */
int64_t sl_sagg_row_times(const saggst *st, const sl_batch *in, int64_t wm,
			  int64_t *v, uint8_t *late)
{
	const sl_agg_et *et = &st->et;
	const sl_col *c = in->cols[et->col];
	int64_t i, n = in->nrows, nlate = 0;
	bool wstruct = et->kind == SL_ET_WCOL || et->wend;
	if (wstruct)
		c = c->child[1];
	for (i = 0; i < n; i++) {
		int64_t t = sl_col_i64(c)[i] - (et->wend ? 1 : 0);
		if (et->kind == SL_ET_WCALL)
			t = sl_window_first_start(t, et->slide, et->start) +
			    et->size;
		v[i] = t;
		late[i] = t <= wm;
	}
	if (c->nulls != NULL || (wstruct && in->cols[et->col]->nulls != NULL))
		for (i = 0; i < n; i++)
			if (sl_col_isnull(c, i) ||
			    sl_col_isnull(in->cols[et->col], i))
				late[i] = 0;
	for (i = 0; i < n; i++)
		nlate += late[i];
	return nlate;
}

/* The event time of row i for the late log: the timestamp the window was
 * made of (a sliding window's EXPAND keeps it), else the compared value. */
static int64_t row_event_time(const sl_op *op, const sl_batch *in, int64_t i,
			      int64_t v)
{
	const saggst *st = op->state;
	const sl_plan *c = op->plan->child[0];
	int ts = st->et.kind == SL_ET_WCALL ? st->et.col
		 : st->et.kind == SL_ET_WCOL && c->kind == SL_P_EXPAND
		     ? c->win_ts
		     : -1;
	if (ts >= 0 && ts < in->ncols && !sl_col_isnull(in->cols[ts], i))
		return st->et.wend /* window_time of the input window */
			   ? sl_col_i64(in->cols[ts]->child[1])[i] - 1
			   : sl_col_i64(in->cols[ts])[i];
	return v;
}

/* The EXPAND right below a window-column aggregate, when it made the
 * windows from a plain time column (so its rows can be told apart). */
static const sl_plan *expand_child(const sl_op *op)
{
	const saggst *st = op->state;
	const sl_plan *c = op->plan->child[0];
	return st->et.kind == SL_ET_WCOL && c->kind == SL_P_EXPAND &&
		       c->win_ts >= 0 && st->et.col == c->schema->nfields - 1
		   ? c
		   : NULL;
}

/* Rows [i, end) of an EXPAND's output that come from one input row: its
 * windows are emitted together, the latest start first, each one slide
 * before the previous, all with the row's time. */
static int64_t segment_end(const sl_plan *x, const sl_batch *in, int64_t i)
{
	const sl_col *ts = in->cols[x->win_ts];
	const int64_t *s =
	    sl_col_i64(in->cols[x->schema->nfields - 1]->child[0]);
	int64_t j = i + 1;
	while (j < in->nrows && sl_col_i64(ts)[j] == sl_col_i64(ts)[i] &&
	       s[j] == s[j - 1] - x->win_slide)
		j++;
	return j;
}

/* The windows of a sliced row i (its slice ends at v[i]) into win, the
 * earliest first, as log_late lists an EXPAND's rows. */
static void slice_late_windows(const saggst *st, const int64_t *v, int64_t i,
			       sl_buf *win)
{
	int64_t k = st->wsize / st->wslide, j,
		s0 = v[i] - st->wslide - (k - 1) * st->wslide;
	for (j = 0; j < k; j++) {
		sl_buf_adds(win, j ? ",{\"start\":\"" : "{\"start\":\"");
		sl_ts_format(s0 + j * st->wslide, win);
		sl_buf_adds(win, "\",\"end\":\"");
		sl_ts_format(s0 + j * st->wslide + st->wsize, win);
		sl_buf_adds(win, "\"}");
	}
}

/* One dropped input row into the late log: the row, every window it
 * missed (rows i..j-1 of `in`, one per window: a sliding window's EXPAND
 * made them, or row i's slice when slicing; the row is shown without that
 * generated column), and the watermark. */
static void log_late(sl_op *op, const sl_batch *in, int64_t i, int64_t j,
		     const int64_t *v, sl_buf *row, sl_buf *win)
{
	saggst *st = op->state;
	int k, skip = expand_child(op) != NULL ? st->et.col : -1;
	bool sliced = st->slicing || st->rowslices;
	int64_t r;
	sl_buf_clear(row);
	sl_buf_clear(win);
	sl_buf_addc(row, '{');
	for (k = 0; k < in->ncols; k++) {
		const char *name = in->schema->fields[k].name;
		if (k == skip)
			continue;
		if (row->len > 1)
			sl_buf_addc(row, ',');
		sl_buf_json_str(row, name, strlen(name));
		sl_buf_addc(row, ':');
		sl_value_json(in->cols[k], i, row);
	}
	sl_buf_addc(row, '}');
	sl_buf_addc(win, '[');
	if (sliced)
		slice_late_windows(st, v, i, win);
	for (r = j - 1; !sliced && st->et.kind != SL_ET_RAW && r >= i;
	     r--) {
		int64_t s = st->et.kind == SL_ET_WCALL
				? v[r] - st->et.size
				: sl_col_i64(in->cols[st->et.col]->child[0])[r];
		sl_buf_adds(win,
			    r < j - 1 ? ",{\"start\":\"" : "{\"start\":\"");
		sl_ts_format(s, win);
		sl_buf_adds(win, "\",\"end\":\"");
		sl_ts_format(v[r], win);
		sl_buf_adds(win, "\"}");
	}
	sl_buf_addc(win, ']');
	if (!sl_buf_failed(row) && !sl_buf_failed(win))
		sl_stream_late(st->ctx, st->sf.name, sl_buf_cstr(row),
			       row_event_time(op, in, i, v[i]),
			       sl_buf_cstr(win), st->ctx->wm_late_us);
}

/* Log the late rows of `in`: one entry per input row, and with sliding
 * windows only for a row whose every window is late (a row still counted
 * in an open window was not dropped).  Slicing: a row of `in` is an input
 * row, late[i] when its earliest window is. */
void sl_sagg_log_late_rows(sl_op *op, const sl_batch *in, const int64_t *v,
			   const uint8_t *late)
{
	saggst *st = op->state;
	const sl_plan *x = expand_child(op);
	bool sliced = st->slicing || st->rowslices;
	sl_buf row, win;
	int64_t i, j, r;
	sl_buf_init(&row);
	sl_buf_init(&win);
	for (i = 0; i < in->nrows && st->logged < LATE_LOG_MAX; i = j) {
		bool all = true;
		j = x != NULL && !sliced ? segment_end(x, in, i) : i + 1;
		for (r = i; r < j; r++)
			all = all && late[r];
		if (sliced) /* its latest window: the slice's start + size */
			all = late[i] && v[i] - st->wslide + st->wsize <=
					     st->ctx->wm_late_us;
		if (all) {
			log_late(op, in, i, j, v, &row, &win);
			st->logged++;
		}
	}
	sl_buf_release(&row);
	sl_buf_release(&win);
}

/* The smallest compared value of the batch (INT64_MAX: none), or no
 * more than it: a window's end grows with its time, so the smallest time
 * gives the smallest end.  A column whose writer worked out its event-time
 * statistics (col.h sl_col_tstats: the rate source's timestamps, window()
 * ends) gives it without a pass, as a bound: the smallest value / 1000 is
 * min_ms, so the value is at least min_ms * 1000 (less 999 when min_ms is
 * not positive: the division truncates toward zero).  Otherwise one tight
 * pass.  Most batches have no late row and stop here. */
int64_t sl_sagg_min_time(const saggst *st, const sl_batch *in)
{
	const sl_col *c = in->cols[st->et.col];
	const int64_t *v;
	int64_t i, n = in->nrows, mn = INT64_MAX;
	if (st->et.kind == SL_ET_WCOL || st->et.wend) {
		if (c->nulls != NULL)
			return INT64_MIN; /* let row_times look */
		c = c->child[1];
	}
	v = sl_col_i64(c);
	if (c->tstats.set && c->len == n && n > 0 && c->tstats.count == n &&
	    c->tstats.min_ms > INT64_MIN / 1000 + 1) {
		mn = c->tstats.min_ms * 1000 - (c->tstats.min_ms > 0 ? 0 : 999);
	} else if (c->nulls == NULL) {
		for (i = 0; i < n; i++)
			mn = v[i] < mn ? v[i] : mn;
	} else {
		for (i = 0; i < n; i++)
			if (!sl_col_isnull(c, i) && v[i] < mn)
				mn = v[i];
	}
	if (mn != INT64_MAX && st->et.kind == SL_ET_WCALL)
		mn = sl_window_first_start(mn - (st->et.wend ? 1 : 0),
					   st->et.slide, st->et.start) +
		     st->et.size;
	return mn;
}

static int sagg_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	saggst *st = op->state;
	int64_t *v, nlate;
	uint8_t *late;
	int rc;
	(void)side;
	if (st->live != NULL)
		return sl_sagg_live_push(op, in, err);
	if ((rc = sagg_part(op, err)) < 0)
		return rc;
	if (!st->evicts || st->ctx->wm_late_us == INT64_MIN ||
	    sl_sagg_min_time(st, in) > st->ctx->wm_late_us)
		return st->part->ops->push(st->part, 0, in, err);
	v = malloc((size_t)in->nrows * sizeof *v + 1);
	late = malloc((size_t)in->nrows + 1);
	if (v == NULL || late == NULL) {
		free(v);
		free(late);
		return sl_err_nomem(err);
	}
	nlate = sl_sagg_row_times(st, in, st->ctx->wm_late_us, v, late);
	rc = st->part->ops->push(st->part, 0, in, err);
	if (rc == 0 && nlate > 0) {
		st->late_rows = true;
		sl_sagg_log_late_rows(op, in, v, late);
	}
	free(v);
	free(late);
	return rc;
}

void sl_sagg_free_cols(sl_col **c, int n)
{
	int k;
	for (k = 0; c && k < n; k++)
		sl_col_free(c[k]);
	free(c);
}

/* The batch's key columns (st->kc), made when first needed: a batch
 * whose groups are all in the store already, without late rows, feed or
 * Update output, needs none (making them was 4% of W1-100k). */
static int key_cols(sl_op *op, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	sl_hash_groups *t = sl_op_agg_table(st->part);
	int k;
	if (st->kc != NULL)
		return 0;
	if ((st->kc = calloc((size_t)p->nkeys + 1, sizeof *st->kc)) == NULL)
		return sl_err_nomem(err);
	for (k = 0; k < p->nkeys; k++)
		if ((st->kc[k] =
			 sl_hash_groups_key(t, k, 0, st->ngroups, err)) == NULL)
			return err ? err->code : SL_ENOMEM;
	return 0;
}

/* The encodings of the batch's keys (st->keys) and their hashes. */
static int encode_keys(sl_op *op, int64_t n, sl_err *err)
{
	saggst *st = op->state;
	sl_hash_groups *t = sl_op_agg_table(st->part);
	int64_t g;
	int rc;
	st->ngroups = n;
	if (n + 1 > st->kcap) {
		free(st->koff);
		free(st->khash);
		free(st->isnew);
		free(st->glate);
		st->koff = malloc((size_t)(n + 1) * sizeof *st->koff);
		st->khash = malloc((size_t)(n + 1) * sizeof *st->khash);
		st->isnew = malloc((size_t)(n + 1));
		st->glate = malloc((size_t)(n + 1));
		st->kcap =
		    st->koff && st->khash && st->isnew && st->glate ? n + 1 : 0;
	}
	if (st->kcap == 0)
		return sl_err_nomem(err);
	sl_buf_clear(&st->keys);
	for (g = 0; t == NULL && g <= n; g++) /* global: the empty key */
		st->koff[g] = 0;
	if (t != NULL &&
	    (rc = sl_hash_groups_encode(t, 0, n, &st->keys, st->koff, err)) < 0)
		return rc;
	for (g = 0; g < n; g++)
		st->khash[g] =
		    sl_state_hash(st->keys.p ? st->keys.p + st->koff[g] : "",
				  (size_t)(st->koff[g + 1] - st->koff[g]));
	return 0;
}

/* The compared value of row r of key columns kc, or false for NULL. */
bool sl_sagg_key_time(const saggst *st, sl_col *const *kc, int64_t r,
		      int64_t *t)
{
	const sl_col *c = kc[st->et.key];
	if (sl_col_isnull(c, r))
		return false;
	if (c->type->kind == SL_STRUCT)
		c = c->child[1];
	if (sl_col_isnull(c, r))
		return false;
	*t = sl_col_i64(c)[r];
	return true;
}

/* The batch's late groups: a row is late when its group's compared value
 * (window end, event time: part of the key) is <= the late watermark, so
 * its group is late as a whole.  They are counted (Spark's
 * numRowsDroppedByWatermark counts the late groups after its partial
 * aggregate) and neither merged nor output: late rows went through the
 * batch's one hash aggregate with the others instead of a filtered copy
 * of the batch into an aggregate of their own (half of W5's time). */
static int64_t mark_late(saggst *st, int64_t n)
{
	int64_t g, t, nlate = 0;
	for (g = 0; g < n; g++) {
		st->glate[g] = st->late_rows &&
			       sl_sagg_key_time(st, st->kc, g, &t) &&
			       t <= st->ctx->wm_late_us;
		nlate += st->glate[g];
	}
	return nlate;
}

/* Merge group g with its stored buffer and store the result (one
 * lookup: put_at reuses find's position); a new group of a watermarked
 * aggregation enters the eviction index. */
static int merge_group(sl_op *op, sl_agg **aggs, int64_t g, size_t vmax,
		       sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	const char *key = st->keys.p ? st->keys.p + st->koff[g] : "";
	size_t klen = (size_t)(st->koff[g + 1] - st->koff[g]), vlen = 0, at = 0;
	sl_state_pos pos;
	const unsigned char *old =
	    sl_state_find(st->sf.store, st->khash[g], key, klen, &vlen, &pos);
	int64_t t;
	int i, rc;
	st->isnew[g] = old == NULL;
	sl_buf_clear(&st->vb);
	if (vmax > 0) { /* fixed-size buffers: merged and written at once */
		unsigned char *b = (unsigned char *)st->vb.p;
		for (i = 0; i < p->naggs; i++) {
			size_t used = 0;
			if (old == NULL)
				rc = (int)sl_agg_save_raw(aggs[i], g,
							  b + st->vb.len);
			else if ((rc = sl_agg_merge_raw(
				      aggs[i], g, old + at, vlen - at, &used,
				      b + st->vb.len, err)) < 0)
				return rc;
			st->vb.len += (size_t)rc;
			at += used;
		}
	}
	for (i = 0; vmax == 0 && old != NULL && i < p->naggs; i++) {
		size_t used;
		if ((rc = sl_agg_merge(aggs[i], g, old + at, vlen - at, &used,
				       err)) < 0)
			return rc;
		at += used;
	}
	for (i = 0; vmax == 0 && i < p->naggs; i++)
		if ((rc = sl_agg_save(aggs[i], g, &st->vb, err)) < 0)
			return rc;
	if (old == NULL && st->scan_evict && st->ix.valid &&
	    sl_sagg_entry_time(op, key, klen, &t))
		sl_sagg_note_end(st, t);
	if (old == NULL && st->evicts && !st->scan_evict && st->ix.valid &&
	    (rc = key_cols(op, err)) < 0)
		return rc;
	if (old == NULL && st->evicts && !st->scan_evict && st->ix.valid &&
	    sl_sagg_key_time(st, st->kc, g, &t) &&
	    (rc = sl_win_index_push(&st->ix, t, key, klen, err)) < 0)
		return rc;
	return sl_state_put_at(st->sf.store, &pos, key, klen,
			       st->vb.p ? st->vb.p : "", st->vb.len, err);
}

static int merge_groups(sl_op *op, int64_t n, sl_err *err)
{
	saggst *st = op->state;
	sl_agg **aggs = sl_op_agg_states(st->part);
	const sl_state *s = st->sf.store;
	size_t vmax = 0, m;
	int64_t g;
	int i, rc;
	for (i = 0; i < op->plan->naggs; i++) {
		if ((m = sl_agg_save_max(aggs[i])) == 0) {
			vmax = 0;
			break;
		}
		vmax += m;
	}
	if (vmax > 0 && !sl_buf_reserve(&st->vb, vmax))
		return sl_err_nomem(err);
	for (i = 0; vmax > 0 && i < op->plan->naggs; i++)
		if ((rc = sl_agg_reserve(aggs[i], n, err)) < 0)
			return rc;
	for (g = 0; g < n && g < 2 * MERGE_AHEAD; g++)
		sl_state_prefetch(s, st->khash[g]);
	for (g = 0; g < n; g++) {
		if (g + 2 * MERGE_AHEAD < n)
			sl_state_prefetch(s, st->khash[g + 2 * MERGE_AHEAD]);
		if (g + MERGE_AHEAD < n)
			sl_state_prefetch_entry(s, st->khash[g + MERGE_AHEAD]);
		if (!st->glate[g] &&
		    (rc = merge_group(op, aggs, g, vmax, err)) < 0)
			return rc;
	}
	return 0;
}

/* One feed event per group of the batch: its key and new aggregates;
 * a window (watermarked aggregation) seen for the first time is OPEN. */
static int feed_groups(sl_op *op, int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	sl_agg **aggs = sl_op_agg_states(st->part);
	sl_hash_groups *t = sl_op_agg_table(st->part);
	sl_col **ac = calloc((size_t)p->naggs + 1, sizeof *ac), **kc = st->kc,
	       **own = NULL;
	sl_buf k, v;
	int64_t g, m, shown = 0;
	int i, rc = 0;
	if (ac == NULL)
		return sl_err_nomem(err);
	/* The ring keeps a few hundred events: formatting 100k rows a batch to
	 * keep 200 of them was most of W1-100k's time.  Show the first ones:
	 * groups [0, m), whose results (and keys, unless the merge made them
	 * all) are the only ones made. */
	for (m = 0; m < n && shown < SL_FEED_ROWS_PER_BATCH; m++)
		shown += !st->glate[m];
	for (i = 0; i < p->naggs && rc == 0; i++)
		if ((ac[i] = sl_agg_result(aggs[i], 0, m, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	if (rc == 0 && kc == NULL) {
		kc = own = calloc((size_t)p->nkeys + 1, sizeof *own);
		if (own == NULL)
			rc = sl_err_nomem(err);
		for (i = 0; rc == 0 && i < p->nkeys; i++)
			if ((own[i] = sl_hash_groups_key(t, i, 0, m, err)) ==
			    NULL)
				rc = err ? err->code : SL_ENOMEM;
	}
	sl_buf_init(&k);
	sl_buf_init(&v);
	for (g = 0; g < m && rc == 0; g++) {
		if (st->glate[g])
			continue;
		sl_buf_clear(&k);
		sl_buf_clear(&v);
		sl_stream_row_text(kc, p->nkeys, g, &k);
		sl_stream_row_text(ac, p->naggs, g, &v);
		sl_stream_state_event(
		    st->ctx, st->sf.name, sl_buf_cstr(&k), sl_buf_cstr(&v),
		    st->evicts && st->isnew[g] ? "OPEN" : "UPDATED");
	}
	sl_buf_release(&k);
	sl_buf_release(&v);
	sl_sagg_free_cols(ac, p->naggs);
	sl_sagg_free_cols(own, own ? p->nkeys : 0);
	return rc;
}

int sl_sagg_kent_cmp(const void *a, const void *b)
{
	const kent *x = a, *y = b;
	size_t m = x->klen < y->klen ? x->klen : y->klen;
	int r = m ? memcmp(x->k, y->k, m) : 0;
	return r ? r : (x->klen > y->klen) - (x->klen < y->klen);
}

/* A DOUBLE group column's -0.0 as 0.0: Spark groups them as one key and
 * shows it as 0.0 (its NormalizeFloatingNumbers rule); the batch's table
 * keeps the first value seen, Append's decoded keys are 0.0 already. */
static void normalize_zeros(sl_col *const *kc, int n)
{
	int k;
	int64_t i;
	for (k = 0; k < n; k++) {
		double *d = sl_col_f64(kc[k]);
		if (kc[k]->type->kind != SL_DOUBLE)
			continue;
		for (i = 0; i < kc[k]->len; i++)
			if (d[i] == 0)
				d[i] = 0;
	}
}

/* Update mode: the batch's groups (already merged), in key order. */
static sl_batch *update_rows(sl_op *op, int64_t n, sl_err *err)
{
	saggst *st = op->state;
	kent *e = malloc((size_t)(n + 1) * sizeof *e);
	int64_t *idx = malloc((size_t)(n + 1) * sizeof *idx), g, m = 0;
	sl_batch *all = NULL, *o = NULL;
	if (e == NULL || idx == NULL) {
		sl_err_nomem(err);
		goto out;
	}
	if (key_cols(op, err) < 0)
		goto out;
	normalize_zeros(st->kc, op->plan->nkeys);
	for (g = 0; g < n; g++) {
		if (st->glate[g])
			continue;
		e[m].k = (const unsigned char *)(st->keys.p ? st->keys.p : "") +
			 st->koff[g];
		e[m].klen = (size_t)(st->koff[g + 1] - st->koff[g]);
		e[m++].g = g;
	}
	if (m > 0)
		qsort(e, (size_t)m, sizeof *e, sl_sagg_kent_cmp);
	for (g = 0; g < m; g++)
		idx[g] = e[g].g;
	all = sl_op_agg_output(op->plan, st->kc, sl_op_agg_states(st->part), n,
			       err);
	if (all != NULL && (o = sl_batch_take(all, idx, m)) == NULL)
		sl_err_nomem(err);
out:
	sl_batch_free(all);
	free(e);
	free(idx);
	return o;
}

int sl_sagg_kents_add(kents *l, const void *key, size_t klen, const void *val,
		      size_t vlen)
{
	if (l->n == l->cap) {
		int64_t cap = l->cap ? 2 * l->cap : 256;
		kent *m = realloc(l->e, (size_t)cap * sizeof *m);
		if (m == NULL)
			return SL_ENOMEM;
		l->e = m;
		l->cap = cap;
	}
	l->e[l->n].k = key;
	l->e[l->n].klen = klen;
	l->e[l->n].v = val;
	l->e[l->n].vlen = vlen;
	l->e[l->n].g = l->n;
	l->n++;
	return 0;
}

static int collect_entry(void *ud, const void *key, size_t klen,
			 const void *val, size_t vlen)
{
	return sl_sagg_kents_add(ud, key, klen, val, vlen);
}

/* Fresh, empty aggregates of p's functions (for decoding buffers). */
sl_agg **sl_sagg_new_aggs(const sl_plan *p, sl_err *err)
{
	sl_agg **aggs = calloc((size_t)p->naggs + 1, sizeof *aggs);
	sl_type *at[8];
	int i, j;
	if (aggs == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < p->naggs; i++) {
		const sl_aggspec *s = &p->aggs[i];
		for (j = 0; j < s->nargs && j < 8; j++)
			at[j] = s->args[j]->rtype;
		aggs[i] = sl_agg_new(s->fname, s->distinct, s->count_rows, at,
				     s->nargs, s->rsd, err);
		if (aggs[i] == NULL) {
			while (i-- > 0)
				sl_agg_free(aggs[i]);
			free(aggs);
			return NULL;
		}
	}
	return aggs;
}

/* Decode entries into key columns and fresh aggregates, then output. */
sl_batch *sl_sagg_decode_rows(sl_op *op, const kent *e, int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	sl_col **kc = calloc((size_t)p->nkeys + 1, sizeof *kc);
	sl_agg **aggs = sl_sagg_new_aggs(p, err);
	sl_batch *o = NULL;
	int64_t r;
	int i, rc = 0;
	if (kc == NULL || aggs == NULL)
		rc = kc == NULL ? sl_err_nomem(err)
				: (err ? err->code : SL_ENOMEM);
	for (i = 0; i < p->nkeys && rc == 0; i++)
		if ((kc[i] = sl_col_new(p->keys[i]->rtype, n)) == NULL)
			rc = sl_err_nomem(err);
	for (r = 0; r < n && rc == 0; r++) {
		size_t at2 = 0, used;
		rc = sl_hash_key_decode(kc, p->nkeys, r, e[r].k, e[r].klen,
					NULL, err);
		for (i = 0; i < p->naggs && rc == 0; i++) {
			rc = sl_agg_merge(aggs[i], r, e[r].v + at2,
					  e[r].vlen - at2, &used, err);
			at2 += used;
		}
	}
	if (rc == 0)
		o = sl_op_agg_output(p, kc, aggs, n, err);
	sl_sagg_free_cols(kc, kc ? p->nkeys : 0);
	for (i = 0; aggs && i < p->naggs; i++)
		sl_agg_free(aggs[i]);
	free(aggs);
	return o;
}

/* Complete mode: every group in the store, in key order. */
static sl_batch *complete_rows(sl_op *op, sl_err *err)
{
	saggst *st = op->state;
	kents l;
	sl_batch *o;
	memset(&l, 0, sizeof l);
	if (sl_state_foreach(st->sf.store, collect_entry, &l) != 0) {
		free(l.e);
		sl_err_nomem(err);
		return NULL;
	}
	if (l.n > 0) /* an empty store: l.e is NULL, which qsort may not get */
		qsort(l.e, (size_t)l.n, sizeof *l.e, sl_sagg_kent_cmp);
	o = sl_sagg_decode_rows(op, l.e, l.n, err);
	free(l.e);
	return o;
}

/* ------------------------------------------------------ micro-batch */

static void sagg_clear(sl_op *op)
{
	saggst *st = op->state;
	sl_sagg_free_cols(st->kc, op->plan->nkeys);
	st->kc = NULL;
	if (st->part != NULL) {
		sl_op_free(st->spare);
		st->spare = part_recycle(op->plan, st->part);
		st->part = NULL;
	}
	st->late_rows = false;
	st->nlate = 0;
	st->logged = 0;
	sl_sagg_live_clear(st);
}

/* After an abort the store went back a version: the index must be
 * rebuilt from it. */
static void sagg_reset(sl_op *op)
{
	saggst *st = op->state;
	sagg_clear(op);
	st->ix.valid = false;
}

/* Slicing: st->part (one group per slice and keys) becomes the window
 * groups' aggregate; the slices' one is emptied for later. */
static int slices_to_windows(sl_op *op, sl_err *err)
{
	saggst *st = op->state;
	sl_op *w = part_get(op, &st->wspare, err);
	int rc;
	if (w == NULL)
		return err ? err->code : SL_ENOMEM;
	rc = sl_window_merge_slices(w, st->part, st->wkey, st->wsize,
				    st->wslide, err);
	if (rc < 0) {
		sl_op_free(w);
		return rc;
	}
	st->wspare = part_recycle(op->plan, st->part);
	st->part = w;
	return 0;
}

static int sagg_merge_all(sl_op *op, int64_t *ngroups, sl_err *err)
{
	saggst *st = op->state;
	int64_t n;
	int rc;
	/* a global aggregate has its one group even in an empty batch */
	if (st->part == NULL && op->plan->nkeys > 0) {
		*ngroups = 0;
		return 0;
	}
	if ((rc = sagg_part(op, err)) < 0)
		return rc;
	if (st->slicing && (rc = slices_to_windows(op, err)) < 0)
		return rc;
	if (st->evicts && !st->ix.valid &&
	    (rc = sl_sagg_rebuild_index(op, err)) < 0)
		return rc;
	n = *ngroups = sl_op_agg_ngroups(st->part);
	if ((rc = encode_keys(op, n, err)) < 0)
		return rc;
	if (st->late_rows && (rc = key_cols(op, err)) < 0)
		return rc;
	st->nlate = mark_late(st, n);
	st->sf.dropped += st->nlate;
	if ((rc = merge_groups(op, n, err)) < 0)
		return rc;
	return sl_stream_wants_rows(st->ctx) ? feed_groups(op, n, err) : 0;
}

/* Output by mode: Update the batch's groups, Complete everything, Append
 * the groups the watermark closes; then eviction (not Complete). */
static int sagg_output(sl_op *op, int64_t n, sl_batch **o, sl_err *err)
{
	saggst *st = op->state;
	int rc = 0;
	*o = NULL;
	switch (st->ctx->mode) {
	case SL_MODE_COMPLETE:
		if ((*o = complete_rows(op, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
		break;
	case SL_MODE_UPDATE:
		if (n > st->nlate && (*o = update_rows(op, n, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
		if (rc == 0 && st->evicts)
			rc = sl_sagg_evict(op, NULL, err);
		break;
	case SL_MODE_APPEND:
	default: rc = sl_sagg_evict(op, o, err); break;
	}
	return rc;
}

static int sagg_finish(sl_op *op, int side, sl_err *err)
{
	saggst *st = op->state;
	sl_batch *o = NULL;
	int64_t n = 0;
	int rc;
	(void)side;
	if (st->ctx->mode == SL_MODE_APPEND && !st->evicts) {
		sagg_clear(op);
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark");
	}
	if (st->live != NULL) {
		rc = sl_sagg_live_finish(op, &o, err);
	} else {
		rc = sagg_merge_all(op, &n, err);
		if (rc == 0)
			rc = sagg_output(op, n, &o, err);
	}
	sagg_clear(op);
	if (rc == 0 && o != NULL)
		rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc < 0 ? rc : sl_op_finish_parent(op, err);
}

/* Spark's StateStoreSaveExec.shouldRunAnotherBatch. */
static bool sagg_wants_no_data(sl_op *op, int64_t new_wm_us)
{
	saggst *st = op->state;
	return st->evicts && new_wm_us > st->last_evict_us;
}

static void sagg_free(sl_op *op)
{
	saggst *st = op->state;
	if (st == NULL)
		return;
	sagg_clear(op);
	sl_op_free(st->spare);
	sl_op_free(st->wspare);
	sl_state_free(st->sf.store);
	sl_buf_release(&st->kb);
	sl_buf_release(&st->vb);
	sl_buf_release(&st->keys);
	sl_win_index_release(&st->ix);
	sl_hash_groups_free(st->late);
	free(st->gids);
	free(st->prow);
	free(st->koff);
	free(st->khash);
	free(st->isnew);
	free(st->glate);
	free(st);
}

static const struct sl_op_ops sagg_ops = {
	.name = "StateStoreSave",
	.push = sagg_push,
	.finish = sagg_finish,
	.free = sagg_free,
	.reset = sagg_reset,
	.wants_no_data = sagg_wants_no_data,
};

bool sl_stream_agg_slices(const sl_op *op)
{
	const saggst *st = op->state;
	return op->ops == &sagg_ops && (st->slicing || st->rowslices);
}

/* Slicing (sl_stream_agg_slices) when window.c says the plan allows it;
 * else whether the live path may take slices (rowslice). */
static void slicing_setup(const sl_plan *p, saggst *st)
{
	st->wkey = sl_window_slice_key(p, &st->et);
	if (st->wkey >= 0)
		st->slicing = true;
	else if ((st->wkey = sl_window_row_slice_key(p, &st->et)) >= 0)
		st->rowslice = true;
	else
		return;
	st->wsize = p->child[0]->win_size;
	st->wslide = p->child[0]->win_slide;
}

/* collect_list and DISTINCT aggregates have no streaming buffer. */
static int sagg_supported(const sl_plan *p, sl_err *err)
{
	int i;
	for (i = 0; i < p->naggs; i++) {
		if (p->aggs[i].distinct)
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.");
		if (strcmp(p->aggs[i].fname, "collect_list") == 0) {
			sl_err_set(
			    err, SL_EANALYSIS,
			    "agg: collect_list is not supported in a streaming aggregation in streamlab");
			sl_err_hint(
			    err,
			    "aggregate with count/sum/min/max/first/last, or collect in foreachBatch");
			return SL_EANALYSIS;
		}
	}
	return 0;
}

sl_op *sl_op_stream_agg_new(const sl_plan *p, sl_stream_ctx *ctx, sl_err *err)
{
	sl_op *op;
	saggst *st;
	if (sagg_supported(p, err) < 0)
		return NULL;
	op = sl_op_stateful_new(&sagg_ops, p, sizeof *st, offsetof(saggst, sf),
				"stateStoreSave", err);
	if (op == NULL)
		return NULL;
	st = op->state;
	st->ctx = ctx;
	sl_plan_agg_event_time(p, &st->et);
	slicing_setup(p, st);
	st->evicts = st->et.kind != SL_ET_NONE &&
		     st->et.kind != SL_ET_SESSION &&
		     ctx->mode != SL_MODE_COMPLETE;
	st->last_evict_us = INT64_MIN;
	st->scan_evict = st->evicts && sl_sagg_can_scan(st, p);
	st->nends = 0;
	sl_win_index_init(&st->ix); /* invalid: built from the store */
	sl_buf_init(&st->kb);
	sl_buf_init(&st->vb);
	sl_buf_init(&st->keys);
	if (sl_sagg_live_setup(op, err) < 0) {
		sl_op_free(op);
		return NULL;
	}
	return op;
}
