/*
 * op_stream_live: the streaming aggregate's live path (op_stream.c is the
 * operator; exec/livetab.h the table).  For an eligible plan (a watermarked
 * time window + fixed-width group columns, fixed-size aggregation buffers,
 * Append or Update mode) the operator's store is a typed live
 * table, and a micro-batch's rows probe it once each and fold straight
 * into the aggregation buffers that live across batches: no batch-local
 * hash aggregate, no per-group encode / hash / find / merge / put.  What
 * the user sees is the byte store path's: the same rows in the same order
 * (Update: the batch's groups by encoded key; Append: a closing window's
 * groups by encoded key), the same late-row handling and counts, the same
 * progress numbers (numRowsUpdated: the groups the batch changed), the same
 * STATE_ROW feed events, and checkpoint files with the same records
 * (livetab.h: their order differs), so either path restores the other's.
 *
 * A sliding window (size a multiple of the slide, at most 64 windows a
 * row, the window read by no other key or aggregate) is not expanded: the
 * EXPAND hands each row once with its slice and the table folds it into
 * each window (slices_fold below), whatever the aggregates.
 *
 * Test switch: STREAMLAB_STATE_PROVIDER=bytes keeps every aggregation on
 * the byte store (the differential tests run both; README's test notes).
 *
 * Late rows: a row whose window end is <= the late watermark is dropped;
 * the batch's distinct late groups are counted in a small group table
 * (Spark counts after its partial aggregate, as the byte store path does
 * from its batch-local groups) and the rows logged as there.
 */
#include "exec/op_stream_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/feed.h"
#include "exec/agg.h"
#include "exec/stream_int.h"

int sl_sagg_live_setup(sl_op *op, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	const char *sw = getenv("STREAMLAB_STATE_PROVIDER");
	sl_type *kt[32];
	sl_agg **aggs;
	sl_livetab *lt;
	int64_t nw = st->wslide > 0 ? st->wsize / st->wslide : 0;
	bool rows = (st->slicing || st->rowslice) && nw >= 1 && nw <= 64;
	int k;
	if ((sw != NULL && strcmp(sw, "bytes") == 0) || !st->evicts ||
	    (st->slicing && !rows) || p->nkeys > 31 || p->nkeys < 1 ||
	    (st->et.kind != SL_ET_WCOL && st->et.kind != SL_ET_WCALL) ||
	    (st->ctx->mode != SL_MODE_APPEND &&
	     st->ctx->mode != SL_MODE_UPDATE))
		return 0;
	for (k = 0; k < p->nkeys; k++)
		kt[k] = p->keys[k]->rtype;
	if ((aggs = sl_sagg_new_aggs(p, err)) == NULL)
		return err ? err->code : SL_ENOMEM;
	if (!sl_livetab_eligible(kt, p->nkeys, st->et.key, aggs, p->naggs)) {
		for (k = 0; k < p->naggs; k++)
			sl_agg_free(aggs[k]);
		free(aggs);
		return 0;
	}
	if ((lt = sl_livetab_new(kt, p->nkeys, st->et.key, aggs, p->naggs,
				 err)) == NULL)
		return err ? err->code : SL_ENOMEM;
	sl_state_free(st->sf.store);
	st->sf.store = sl_livetab_store(lt);
	st->live = lt;
	st->scan_evict = false;
	st->rowslices = rows; /* the rows' slices, folded row by row */
	st->slicing = false;
	return 0;
}

void sl_sagg_live_clear(saggst *st)
{
	if (st->late != NULL && sl_hash_groups_clear(st->late) < 0) {
		sl_hash_groups_free(st->late);
		st->late = NULL;
	}
}

/* Key column k of `in` (a new reference). */
static sl_col *eval_col(const sl_expr *x, sl_batch *in, sl_err *err)
{
	sl_col *c = x->kind == SL_X_COL ? sl_col_ref(in->cols[x->idx])
					: sl_expr_eval(x, in, err);
	if (c == NULL && err != NULL && err->code == 0)
		sl_err_nomem(err);
	return c;
}

/* The rows of lb (late) into the batch's late groups. */
static int late_groups(sl_op *op, sl_batch *lb, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	int64_t m = lb->nrows;
	int32_t *g = malloc((size_t)m * sizeof *g + 1);
	sl_col *kc[32] = { 0 };
	int k, rc = 0;
	if (g == NULL)
		return sl_err_nomem(err);
	if (st->late == NULL) {
		sl_type *kt[32];
		for (k = 0; k < p->nkeys; k++)
			kt[k] = p->keys[k]->rtype;
		if ((st->late = sl_hash_groups_new(kt, p->nkeys, err)) ==
		    NULL) {
			rc = err ? err->code : SL_ENOMEM;
			goto out;
		}
	}
	for (k = 0; k < p->nkeys && rc == 0; k++)
		if ((kc[k] = eval_col(p->keys[k], lb, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	if (rc == 0)
		rc = sl_hash_groups_insert(st->late, kc, m, false, g, err);
out:
	for (k = 0; k < p->nkeys; k++)
		sl_col_free(kc[k]);
	free(g);
	return rc;
}

/* The late rows of `in` (late[i]) into the batch's late groups. */
static int count_late(sl_op *op, sl_batch *in, const uint8_t *late,
		      int64_t nlate, sl_err *err)
{
	int64_t *idx = malloc((size_t)nlate * sizeof *idx + 1), i, m = 0;
	sl_batch *lb = NULL;
	int rc;
	if (idx == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < in->nrows; i++)
		if (late[i])
			idx[m++] = i;
	lb = sl_batch_take(in, idx, m);
	rc = lb == NULL ? sl_err_nomem(err) : late_groups(op, lb, err);
	sl_batch_free(lb);
	free(idx);
	return rc;
}

/* Probe the rows of `in` and fold them into the table's aggregates. */
static int live_fold(sl_op *op, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	sl_agg **aggs = sl_livetab_aggs(st->live);
	sl_col *kc[32] = { 0 }, *args[8];
	int i, j, k, rc = 0;
	if (in->nrows == 0)
		return 0;
	if (in->nrows > st->gcap) {
		free(st->gids);
		st->gids = malloc((size_t)in->nrows * sizeof *st->gids);
		st->gcap = st->gids ? in->nrows : 0;
		if (st->gids == NULL)
			return sl_err_nomem(err);
	}
	for (k = 0; k < p->nkeys && rc == 0; k++)
		if ((kc[k] = eval_col(p->keys[k], in, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	if (rc == 0)
		rc = sl_livetab_probe(st->live, kc, in->nrows, st->gids, err);
	for (k = 0; k < p->nkeys; k++)
		sl_col_free(kc[k]);
	for (i = 0; i < p->naggs && rc == 0; i++) {
		const sl_aggspec *s = &p->aggs[i];
		for (j = 0; j < s->nargs && j < 8 && rc == 0; j++)
			if ((args[j] = eval_col(s->args[j], in, err)) == NULL) {
				while (j-- > 0)
					sl_col_free(args[j]);
				return err ? err->code : SL_ENOMEM;
			}
		rc = sl_agg_update(aggs[i], st->gids, in->nrows,
				   sl_livetab_cap(st->live), args, err);
		for (j = 0; j < s->nargs && j < 8; j++)
			sl_col_free(args[j]);
	}
	return rc;
}

/* ---- a sliding window's rows, once each ---- */

/* With rowslices the window EXPAND hands each row once, its `window`
 * the slice [s, s + slide) whose s is its latest window's start; the row
 * belongs to the k = size/slide windows [s - j*slide, + size).  The
 * table probes each of them with the row's key words and hash made once
 * (sl_livetab_probe_slices), and the aggregates fold each (row, window)
 * pair in the order the EXPAND's rows came before: rows in order, each
 * row's latest window first, so every group sees its rows in the same
 * order (a floating sum rounds the same) and the dirty list, the feed
 * and the late log are as they were.  Materialising k rows of every
 * column per event, then hashing each, was most of W1-slide's time. */

static int grow_pairs(saggst *st, int64_t m, sl_err *err)
{
	if (m <= st->gcap && m <= st->prcap)
		return 0;
	free(st->gids);
	free(st->prow);
	st->gids = malloc((size_t)m * sizeof *st->gids);
	st->prow = malloc((size_t)m * sizeof *st->prow);
	st->gcap = st->prcap = st->gids && st->prow ? m : 0;
	return st->gcap ? 0 : sl_err_nomem(err);
}

/* The (row, window) pairs' values of column c, m of them (k a row):
 * row[0..m) their rows when *have, else every row in all its k windows
 * and row[] made here when needed (sl_col_take: NULLs, or not 8 bytes
 * wide); the values alone are a gather, or each row k times over. */
static sl_col *pair_col(const sl_col *c, int64_t *row, bool *have, int64_t m,
			int k)
{
	const int64_t *src;
	int64_t *dst, q;
	sl_col *o;
	int j;
	bool take = c->nulls != NULL || c->nchild > 0 ||
		    (c->type->kind != SL_DOUBLE && c->type->kind != SL_BIGINT &&
		     c->type->kind != SL_TIMESTAMP);
	if (take && !*have) {
		for (q = 0; q < m; q++)
			row[q] = q / k;
		*have = true;
	}
	if (take)
		return sl_col_take(c, row, m);
	if ((o = sl_col_new_raw(c->type, m)) == NULL)
		return NULL;
	src = (const int64_t *)c->data;
	dst = (int64_t *)o->data;
	if (!*have)
		for (q = 0; q < m / k; q++)
			for (j = 0; j < k; j++)
				*dst++ = src[q];
	else
		for (q = 0; q < m; q++)
			dst[q] = src[row[q]];
	return o;
}

/* Fold the rows of `in` into their windows (the first cnt[i] of row i;
 * cnt NULL: all k). */
static int slices_fold(sl_op *op, sl_batch *in, const int32_t *cnt,
		       sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	sl_agg **aggs = sl_livetab_aggs(st->live);
	int k = (int)(st->wsize / st->wslide), i, j, q, rc = 0;
	sl_col *kc[32] = { 0 }, *args[8], *xa;
	int64_t n = in->nrows, m = 0, r, o;
	bool have = cnt != NULL; /* st->prow holds each pair's row */
	if (n == 0)
		return 0;
	if ((rc = grow_pairs(st, n * k, err)) < 0)
		return rc;
	for (q = 0; q < p->nkeys && rc == 0; q++)
		if ((kc[q] = eval_col(p->keys[q], in, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	if (rc == 0)
		rc = sl_livetab_probe_slices(st->live, kc, n, k, st->wslide,
					     st->wsize, cnt, st->gids, &m, err);
	for (q = 0; q < p->nkeys; q++)
		sl_col_free(kc[q]);
	for (r = 0, o = 0; r < n && rc == 0 && have; r++)
		for (q = cnt != NULL ? cnt[r] : k; q > 0; q--)
			st->prow[o++] = r; /* each pair's row */
	for (i = 0; i < p->naggs && rc == 0; i++) {
		const sl_aggspec *s = &p->aggs[i];
		int na = s->count_rows ? 0 : s->nargs;
		for (j = 0; j < na && j < 8 && rc == 0; j++) {
			if ((xa = eval_col(s->args[j], in, err)) == NULL ||
			    (args[j] = pair_col(xa, st->prow, &have, m, k)) ==
				NULL)
				rc = xa == NULL ? (err ? err->code : SL_ENOMEM)
						: sl_err_nomem(err);
			sl_col_free(xa);
			if (rc < 0) {
				while (j-- > 0)
					sl_col_free(args[j]);
				return rc;
			}
		}
		rc = sl_agg_update(aggs[i], st->gids, m,
				   sl_livetab_cap(st->live), args, err);
		for (j = 0; j < na && j < 8; j++)
			sl_col_free(args[j]);
	}
	return rc;
}

/* The late (row, window) pairs of `in` (row i's windows cnt[i]..k-1)
 * into the batch's late groups: their rows with each pair's window. */
static int slices_late(sl_op *op, sl_batch *in, const int32_t *cnt,
		       sl_err *err)
{
	saggst *st = op->state;
	int k = (int)(st->wsize / st->wslide), c = st->et.col, j;
	int64_t n = in->nrows, m = 0, i, *idx = malloc((size_t)(n * k + 1) * 8);
	const int64_t *s0 = sl_col_i64(in->cols[c]->child[0]);
	sl_batch *lb = NULL;
	sl_col *wc = NULL;
	int rc = SL_ENOMEM;
	if (idx == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < n; i++)
		for (j = cnt[i]; j < k; j++)
			idx[m++] = i;
	if ((lb = sl_batch_take(in, idx, m)) == NULL ||
	    (wc = sl_col_new(in->cols[c]->type, m)) == NULL ||
	    wc->nchild < 2)
		goto out;
	for (i = 0, m = 0; i < n; i++)
		for (j = cnt[i]; j < k; j++, m++) {
			int64_t s = s0[i] - (int64_t)j * st->wslide;
			sl_col_i64(wc->child[0])[m] = s;
			sl_col_i64(wc->child[1])[m] = s + st->wsize;
		}
	sl_col_free(lb->cols[c]);
	lb->cols[c] = wc;
	wc = NULL;
	rc = late_groups(op, lb, err);
out:
	sl_col_free(wc);
	sl_batch_free(lb);
	free(idx);
	return rc == SL_ENOMEM ? sl_err_nomem(err) : rc;
}

static int slices_push(sl_op *op, sl_batch *in, sl_err *err)
{
	saggst *st = op->state;
	int64_t wm = st->ctx->wm_late_us, n = in->nrows, nlate, i, *v;
	int k = (int)(st->wsize / st->wslide), rc;
	uint8_t *late;
	int32_t *cnt;
	if (wm == INT64_MIN || sl_sagg_min_time(st, in) > wm)
		return slices_fold(op, in, NULL, err);
	v = malloc((size_t)n * sizeof *v + 1);
	late = malloc((size_t)n + 1);
	cnt = malloc((size_t)n * sizeof *cnt + 1);
	if (v == NULL || late == NULL || cnt == NULL) {
		rc = sl_err_nomem(err);
		goto out;
	}
	/* v[i]: the slice's end, the earliest window's; late[i]: that one
	 * is late.  A row's windows not late are its latest cnt[i]. */
	nlate = sl_sagg_row_times(st, in, wm, v, late);
	for (i = 0; i < n; i++) {
		int c = 0;
		while (c < k && v[i] - st->wslide - (int64_t)c * st->wslide +
				    st->wsize >
				wm)
			c++;
		cnt[i] = c;
	}
	rc = slices_fold(op, in, nlate > 0 ? cnt : NULL, err);
	if (rc == 0 && nlate > 0)
		rc = slices_late(op, in, cnt, err);
	if (rc == 0 && nlate > 0) {
		st->late_rows = true;
		sl_sagg_log_late_rows(op, in, v, late);
	}
out:
	free(v);
	free(late);
	free(cnt);
	return rc;
}

int sl_sagg_live_push(sl_op *op, sl_batch *in, sl_err *err)
{
	saggst *st = op->state;
	int64_t *v, nlate, i, m = 0, *keep;
	uint8_t *late;
	sl_batch *kept;
	int rc;
	if (st->rowslices)
		return slices_push(op, in, err);
	if (st->ctx->wm_late_us == INT64_MIN ||
	    sl_sagg_min_time(st, in) > st->ctx->wm_late_us)
		return live_fold(op, in, err);
	v = malloc((size_t)in->nrows * sizeof *v + 1);
	late = malloc((size_t)in->nrows + 1);
	keep = malloc((size_t)in->nrows * sizeof *keep + 1);
	if (v == NULL || late == NULL || keep == NULL) {
		free(v);
		free(late);
		free(keep);
		return sl_err_nomem(err);
	}
	nlate = sl_sagg_row_times(st, in, st->ctx->wm_late_us, v, late);
	if (nlate == 0) {
		rc = live_fold(op, in, err);
		goto out;
	}
	for (i = 0; i < in->nrows; i++)
		if (!late[i])
			keep[m++] = i;
	kept = sl_batch_take(in, keep, m);
	rc = kept == NULL ? sl_err_nomem(err) : live_fold(op, kept, err);
	sl_batch_free(kept);
	if (rc == 0)
		rc = count_late(op, in, late, nlate, err);
	if (rc == 0) {
		st->late_rows = true;
		sl_sagg_log_late_rows(op, in, v, late);
	}
out:
	free(v);
	free(late);
	free(keep);
	return rc;
}

/* ---- entries as rows ---- */

/* Entries ids[0..n) as kents over keys (encoded) and vals (their
 * buffers, vmax bytes apart). */
static int live_kents(saggst *st, const int32_t *ids, int64_t n, sl_buf *keys,
		      sl_buf *vals, kents *l, sl_err *err)
{
	size_t vmax = sl_livetab_vmax(st->live);
	int64_t *off = malloc((size_t)(n + 1) * sizeof *off), i;
	int rc;
	if (off == NULL)
		return sl_err_nomem(err);
	rc = sl_livetab_encode(st->live, ids, n, keys, off, err);
	if (rc == 0 && !sl_buf_reserve(vals, (size_t)n * vmax + 1))
		rc = sl_err_nomem(err);
	for (i = 0; i < n && rc == 0; i++) {
		unsigned char *vp = (unsigned char *)vals->p + (size_t)i * vmax;
		size_t vl = sl_livetab_value(st->live, ids[i], vp);
		if (sl_sagg_kents_add(l, keys->p + off[i],
				      (size_t)(off[i + 1] - off[i]), vp,
				      vl) < 0)
			rc = sl_err_nomem(err);
		else
			l->e[l->n - 1].g = ids[i];
	}
	free(off);
	return rc;
}

/* STATE_ROW events for the batch's first groups (as feed_groups): their
 * keys and aggregates decoded from the table, OPEN for a new one. */
static int live_feed(sl_op *op, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	int64_t n, r;
	const int32_t *ids = sl_livetab_dirty(st->live, &n);
	sl_col **kc = calloc((size_t)p->nkeys + 1, sizeof *kc), **ac = NULL;
	sl_agg **aggs = NULL;
	sl_buf keys, vals, k, v;
	kents l;
	int i, rc = 0;
	memset(&l, 0, sizeof l);
	sl_buf_init(&keys);
	sl_buf_init(&vals);
	sl_buf_init(&k);
	sl_buf_init(&v);
	if (n > SL_FEED_ROWS_PER_BATCH)
		n = SL_FEED_ROWS_PER_BATCH;
	if (kc == NULL ||
	    (ac = calloc((size_t)p->naggs + 1, sizeof *ac)) == NULL) {
		rc = sl_err_nomem(err);
		goto out;
	}
	if ((aggs = sl_sagg_new_aggs(p, err)) == NULL) {
		rc = err ? err->code : SL_ENOMEM;
		goto out;
	}
	if ((rc = live_kents(st, ids, n, &keys, &vals, &l, err)) < 0)
		goto out;
	for (i = 0; i < p->nkeys && rc == 0; i++)
		if ((kc[i] = sl_col_new(p->keys[i]->rtype, n)) == NULL)
			rc = sl_err_nomem(err);
	for (r = 0; r < n && rc == 0; r++) {
		size_t at = 0, used;
		rc = sl_hash_key_decode(kc, p->nkeys, r, l.e[r].k, l.e[r].klen,
					NULL, err);
		for (i = 0; i < p->naggs && rc == 0; i++) {
			rc = sl_agg_merge(aggs[i], r, l.e[r].v + at,
					  l.e[r].vlen - at, &used, err);
			at += used;
		}
	}
	for (i = 0; i < p->naggs && rc == 0; i++)
		if ((ac[i] = sl_agg_result(aggs[i], 0, n, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	for (r = 0; r < n && rc == 0; r++) {
		sl_buf_clear(&k);
		sl_buf_clear(&v);
		sl_stream_row_text(kc, p->nkeys, r, &k);
		sl_stream_row_text(ac, p->naggs, r, &v);
		sl_stream_state_event(
		    st->ctx, st->sf.name, sl_buf_cstr(&k), sl_buf_cstr(&v),
		    sl_livetab_is_new(st->live, ids[r]) ? "OPEN" : "UPDATED");
	}
out:
	sl_sagg_free_cols(kc, kc ? p->nkeys : 0);
	sl_sagg_free_cols(ac, ac ? p->naggs : 0);
	for (i = 0; aggs && i < p->naggs; i++)
		sl_agg_free(aggs[i]);
	free(aggs);
	free(l.e);
	sl_buf_release(&keys);
	sl_buf_release(&vals);
	sl_buf_release(&k);
	sl_buf_release(&v);
	return rc;
}

/* Update mode: the batch's groups, in key order. */
static int live_update_rows(sl_op *op, sl_batch **o, sl_err *err)
{
	saggst *st = op->state;
	int64_t n;
	const int32_t *ids = sl_livetab_dirty(st->live, &n);
	sl_buf keys, vals;
	kents l;
	int rc;
	if (n == 0)
		return 0;
	memset(&l, 0, sizeof l);
	sl_buf_init(&keys);
	sl_buf_init(&vals);
	rc = live_kents(st, ids, n, &keys, &vals, &l, err);
	if (rc == 0) {
		qsort(l.e, (size_t)l.n, sizeof *l.e, sl_sagg_kent_cmp);
		if ((*o = sl_sagg_decode_rows(op, l.e, l.n, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	}
	free(l.e);
	sl_buf_release(&keys);
	sl_buf_release(&vals);
	return rc;
}

/* ---- eviction ---- */

static bool live_due(void *ud, int64_t start, int64_t end)
{
	(void)start;
	return end <= *(const int64_t *)ud;
}

/* The bytes of a value of a fixed-width result type, or 0. */
static size_t fixed_width(const sl_type *t)
{
	return sl_type_is_word(t) ? (size_t)sl_type_width(t) : 0;
}

/* Rows of a result column for groups [0, m) of aggs copied into res at
 * row `at` (fixed-width types). */
static int put_results(sl_agg **aggs, int naggs, int64_t m, sl_col **res,
		       int64_t at, sl_err *err)
{
	int i;
	int64_t r;
	for (i = 0; i < naggs; i++) {
		sl_col *c = sl_agg_result(aggs[i], 0, m, err);
		size_t w = fixed_width(res[i]->type);
		if (c == NULL)
			return err ? err->code : SL_ENOMEM;
		memcpy((char *)res[i]->data + (size_t)at * w, c->data,
		       (size_t)m * w);
		for (r = 0; c->nulls != NULL && r < m; r++)
			if (sl_col_isnull(c, r) &&
			    sl_col_set_null(res[i], at + r) < 0) {
				sl_col_free(c);
				return sl_err_nomem(err);
			}
		sl_col_free(c);
	}
	return 0;
}

/* The aggregates' results of entries ids[0..n) into res[0..naggs) (new
 * columns), a chunk of entries at a time through fresh aggregates of
 * EVICT_CHUNK groups; 1 (nothing made) when a result type is not fixed
 * width. */
#define EVICT_CHUNK 65536

static int chunked_results(sl_op *op, const int32_t *ids, int64_t n,
			   sl_col **res, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	sl_agg **aggs = NULL;
	int64_t at, m;
	int i, rc = 0;
	for (i = 0; i < p->naggs; i++)
		res[i] = NULL;
	if ((aggs = sl_sagg_new_aggs(p, err)) == NULL)
		return err ? err->code : SL_ENOMEM;
	for (i = 0; i < p->naggs && rc == 0; i++) {
		sl_type *rt = (sl_type *)sl_agg_result_type(aggs[i]);
		if (fixed_width(rt) == 0 || !sl_agg_clear(aggs[i], 0))
			rc = 1;
		else if ((res[i] = sl_col_new_raw(rt, n)) == NULL)
			rc = sl_err_nomem(err);
	}
	for (at = 0; rc == 0 && at < n; at += m) {
		m = n - at < EVICT_CHUNK ? n - at : EVICT_CHUNK;
		/* every group's state is overwritten: no clearing */
		rc = sl_livetab_rows(st->live, ids + at, m, NULL, aggs, err);
		if (rc == 0)
			rc = put_results(aggs, p->naggs, m, res, at, err);
	}
	for (i = 0; i < p->naggs; i++) {
		sl_agg_free(aggs[i]);
		if (rc != 0) {
			sl_col_free(res[i]);
			res[i] = NULL;
		}
	}
	free(aggs);
	return rc;
}

/* The n entries the pending version evicted as output rows, in key
 * order: read from the table (its evicted windows' entries stay until
 * the version ends), nothing copied out but the rows themselves (4
 * bytes an entry to sort them by; the aggregates' results a chunk of
 * groups at a time). */
static sl_batch *evicted_rows(sl_op *op, int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	int32_t *ids = malloc((size_t)n * sizeof *ids + 1);
	sl_col **kc = calloc((size_t)p->nkeys + 1, sizeof *kc);
	sl_col **res = calloc((size_t)p->naggs + 1, sizeof *res);
	sl_agg **aggs = NULL;
	sl_batch *o = NULL;
	int i, rc = 0;
	if (ids == NULL || kc == NULL || res == NULL)
		rc = sl_err_nomem(err);
	if (rc == 0)
		rc = sl_livetab_evicted(st->live, ids, n, err);
	if (rc == 0)
		rc = sl_livetab_rows(st->live, ids, n, kc, NULL, err);
	if (rc == 0)
		rc = chunked_results(op, ids, n, res, err);
	if (rc == 1) { /* a result not of fixed width: all groups at once */
		rc = 0;
		if ((aggs = sl_sagg_new_aggs(p, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
		for (i = 0; rc == 0 && i < p->naggs; i++)
			sl_agg_set_big(aggs[i]); /* back when freed */
		if (rc == 0)
			rc = sl_livetab_rows(st->live, ids, n, NULL, aggs, err);
	}
	free(ids);
	if (rc == 0)
		o = aggs != NULL ? sl_op_agg_output(p, kc, aggs, n, err)
				 : sl_op_agg_output_res(p, kc, res, n, err);
	sl_sagg_free_cols(kc, kc ? p->nkeys : 0);
	sl_sagg_free_cols(res, res ? p->naggs : 0);
	for (i = 0; aggs && i < p->naggs; i++)
		sl_agg_free(aggs[i]);
	free(aggs);
	return o;
}

/* The windows the eviction watermark closes leave the table whole;
 * with out (Append) their groups are the output, in key order. */
static int live_evict(sl_op *op, sl_batch **out, sl_err *err)
{
	saggst *st = op->state;
	int64_t lim = st->ctx->wm_evict_us, n;
	bool want = out != NULL || sl_stream_wants_rows(st->ctx);
	sl_batch *o;
	if (lim == INT64_MIN)
		return 0;
	st->last_evict_us = lim;
	if (sl_livetab_min_end(st->live) > lim)
		return 0;
	n = sl_livetab_evict(st->live, live_due, &lim, NULL, NULL, err);
	if (n <= 0 || !want)
		return n < 0 ? (int)n : 0;
	if ((o = evicted_rows(op, n, err)) == NULL)
		return err ? err->code : SL_ENOMEM;
	sl_sagg_evicted_out(op, o, out);
	return 0;
}

int sl_sagg_live_finish(sl_op *op, sl_batch **o, sl_err *err)
{
	saggst *st = op->state;
	int rc = 0;
	*o = NULL;
	st->nlate = st->late != NULL ? sl_hash_groups_count(st->late) : 0;
	st->sf.dropped += st->nlate;
	if (sl_stream_wants_rows(st->ctx) && (rc = live_feed(op, err)) < 0)
		return rc;
	if (st->ctx->mode == SL_MODE_UPDATE) {
		if ((rc = live_update_rows(op, o, err)) < 0)
			return rc;
		return live_evict(op, NULL, err);
	}
	return live_evict(op, o, err);
}
