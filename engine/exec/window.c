/*
 * window: the sliding-window EXPAND operator.  The planner's side (the
 * rewrite of a sliding window() call into an EXPAND node, Spark's
 * TimeWindowing rule, and which aggregates may take slices) is
 * plan/plan_window.c.
 *
 * The event-time index (sl_win_index, window.h) is win_index.c.
 *
 * EXPAND adds the `window` struct column (start, end) with one output row
 * per window that holds the row: windows are half-open [start, end),
 * aligned to the epoch shifted by startTime, a candidate is kept when
 * start <= ts < end, and null timestamps give no row.  Under a streaming
 * aggregate that slices (op_stream.c), the EXPAND emits each row once with
 * its slice [latest start, + slide) instead, and sl_window_merge_slices
 * turns the aggregate's slice groups into window groups.
 */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

#include "exec/agg.h"
#include "exec/hash.h"
#include "core/timeutil.h"
#include "exec/window.h"

/* --------------------------------------------------------- operator */

/* Slicing (the parent streaming aggregate asked for it,
 * sl_stream_agg_slices): each row with a time once, its `window` the
 * slide-long slice [latest start, + slide) that all its windows hold; the
 * aggregate expands its groups of slices into windows.  The other columns
 * are shared, not copied (unless NULL times must go). */
static int slice_push(sl_op *op, sl_batch *in, const sl_col *tc, sl_err *err)
{
	const sl_plan *p = op->plan;
	const int64_t *t = sl_col_i64(tc), slide = p->win_slide,
		      start = p->win_start;
	int64_t n = in->nrows, m = 0, i, *idx = NULL, *s, *e;
	sl_col **cols = calloc((size_t)in->ncols + 2, sizeof *cols), *wc;
	sl_batch *o;
	int c, rc = SL_ENOMEM;
	if (cols == NULL)
		return sl_err_nomem(err);
	if (tc->nulls != NULL) {
		if ((idx = malloc((size_t)n * sizeof *idx + 1)) == NULL)
			goto out;
		for (i = 0; i < n; i++)
			if (!sl_col_isnull(tc, i))
				idx[m++] = i;
	} else {
		m = n;
	}
	wc = sl_col_new_raw(p->schema->fields[in->ncols].type, m);
	if (wc == NULL || wc->nchild < 2) {
		sl_col_free(wc);
		goto out;
	}
	s = sl_col_i64(wc->child[0]);
	e = sl_col_i64(wc->child[1]);
	for (i = 0; i < m; i++) {
		int64_t ts = t[idx != NULL ? idx[i] : i];
		s[i] = ts - sl_floormod(ts - start, slide);
		e[i] = s[i] + slide;
	}
	cols[in->ncols] = wc;
	for (c = 0; c < in->ncols; c++)
		if ((cols[c] = idx != NULL ? sl_col_take(in->cols[c], idx, m)
					   : sl_col_ref(in->cols[c])) == NULL)
			goto out;
	o = sl_batch_new(p->schema, m, cols); /* owns the columns now */
	memset(cols, 0, ((size_t)in->ncols + 1) * sizeof *cols);
	rc = o == NULL ? SL_ENOMEM : sl_op_emit(op, o, err);
	sl_batch_free(o);
out:
	for (c = 0; cols != NULL && c <= in->ncols; c++)
		sl_col_free(cols[c]);
	free(cols);
	free(idx);
	return rc == SL_ENOMEM ? sl_err_nomem(err) : rc;
}

/* One input batch: the time column, then rows x windows. */
static int expand_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	sl_col *tc = sl_expr_eval(p->exprs[0], in, err), *wc = NULL, **cols;
	int64_t n = in->nrows,
		k = (p->win_size + p->win_slide - 1) / p->win_slide, i, j,
		m = 0;
	int64_t *idx = NULL, *ws = NULL;
	sl_batch *o = NULL;
	int c, rc = SL_ENOMEM;
	(void)side;
	if (tc == NULL)
		return err ? err->code : SL_EINTERNAL;
	if (op->parent != NULL && sl_stream_agg_slices(op->parent)) {
		rc = slice_push(op, in, tc, err);
		sl_col_free(tc);
		return rc;
	}
	cols = calloc((size_t)in->ncols + 2, sizeof *cols);
	idx = malloc((size_t)(n * k + 1) * sizeof *idx);
	ws = malloc((size_t)(n * k + 1) * sizeof *ws);
	if (cols == NULL || idx == NULL || ws == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		int64_t ts = sl_col_i64(tc)[i], last;
		if (sl_col_isnull(tc, i))
			continue;
		last = sl_window_first_start(ts, p->win_slide, p->win_start);
		for (j = 0; j < k; j++) {
			int64_t s = last - j * p->win_slide;
			if (ts < s + p->win_size) {
				idx[m] = i;
				ws[m++] = s;
			}
		}
	}
	wc = sl_col_new(p->schema->fields[in->ncols].type, m);
	if (wc == NULL || wc->nchild < 2)
		goto out;
	for (i = 0; i < m; i++) {
		sl_col_i64(wc->child[0])[i] = ws[i];
		sl_col_i64(wc->child[1])[i] = ws[i] + p->win_size;
	}
	for (c = 0; c < in->ncols; c++)
		if ((cols[c] = sl_col_take(in->cols[c], idx, m)) == NULL)
			goto out;
	cols[c] = wc;
	wc = NULL;
	o = sl_batch_new(p->schema, m, cols);
	if (o == NULL) /* sl_batch_new owns cols now */
		goto out2;
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	goto out2;
out:
	for (c = 0; cols != NULL && c <= in->ncols; c++)
		sl_col_free(cols[c]);
out2:
	if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	sl_col_free(wc);
	sl_col_free(tc);
	free(cols);
	free(idx);
	free(ws);
	return rc;
}

/* The window key column of n slice groups times k windows each: group
 * g's row g*k + j is the window starting j slides before its slice, the
 * latest start first (the order an EXPAND gives a row's windows). */
static sl_col *slice_windows(const sl_col *sc, int64_t n, int64_t k,
			     int64_t size, int64_t slide)
{
	sl_col *wc = sl_col_new_raw(sc->type, n * k);
	const int64_t *ss = sl_col_i64(sc->child[0]);
	int64_t *s, *e, g, j;
	if (wc == NULL || wc->nchild < 2) {
		sl_col_free(wc);
		return NULL;
	}
	s = sl_col_i64(wc->child[0]);
	e = sl_col_i64(wc->child[1]);
	for (g = 0; g < n; g++)
		for (j = 0; j < k; j++) {
			s[g * k + j] = ss[g] - j * slide;
			e[g * k + j] = ss[g] - j * slide + size;
		}
	return wc;
}

/* Each aggregate's buffer of slice group g merged into its k windows'
 * groups gid[g*k ..): partial buffers in, so one save per slice group. */
static int merge_into_windows(const sl_plan *p, sl_agg **sa, sl_agg **wa,
			      int64_t n, int64_t k, const int32_t *gid,
			      sl_err *err)
{
	sl_buf b;
	int64_t g, j;
	int i, rc = 0;
	sl_buf_init(&b);
	for (i = 0; i < p->naggs && rc == 0; i++)
		for (g = 0; g < n && rc == 0; g++) {
			sl_buf_clear(&b);
			if ((rc = sl_agg_save(sa[i], g, &b, err)) < 0)
				break;
			if (sl_buf_failed(&b)) {
				rc = sl_err_nomem(err);
				break;
			}
			for (j = 0; j < k && rc == 0; j++)
				rc = sl_agg_merge(wa[i], gid[g * k + j],
						  b.p ? b.p : "", b.len, NULL,
						  err);
		}
	sl_buf_release(&b);
	return rc;
}

int sl_window_merge_slices(sl_op *wins, const sl_op *slices, int wkey,
			   int64_t size, int64_t slide, sl_err *err)
{
	const sl_plan *p = slices->plan;
	const sl_hash_groups *st = sl_op_agg_table(slices);
	int64_t n = sl_op_agg_ngroups(slices), k = size / slide, m = n * k, r;
	sl_col **kc = calloc((size_t)p->nkeys + 1, sizeof *kc), *c;
	int64_t *idx = malloc((size_t)m * sizeof *idx + 1);
	int32_t *gid = malloc((size_t)m * sizeof *gid + 1);
	int i, rc = 0;
	if (kc == NULL || idx == NULL || gid == NULL || st == NULL)
		rc = st == NULL ? SL_EINTERNAL : SL_ENOMEM;
	for (r = 0; rc == 0 && r < m; r++)
		idx[r] = r / k;
	for (i = 0; rc == 0 && i < p->nkeys; i++) {
		if ((c = sl_hash_groups_key(st, i, 0, n, err)) == NULL) {
			rc = err && err->code ? err->code : SL_ENOMEM;
			break;
		}
		kc[i] = i == wkey ? slice_windows(c, n, k, size, slide)
				  : sl_col_take(c, idx, m);
		sl_col_free(c);
		if (kc[i] == NULL)
			rc = SL_ENOMEM;
	}
	if (rc == 0)
		rc = sl_hash_groups_insert(sl_op_agg_table(wins), kc, m, false,
					   gid, err);
	if (rc == 0)
		rc = merge_into_windows(p, sl_op_agg_states(slices),
					sl_op_agg_states(wins), n, k, gid, err);
	for (i = 0; kc != NULL && i < p->nkeys; i++)
		sl_col_free(kc[i]);
	free(kc);
	free(idx);
	free(gid);
	if (rc == SL_ENOMEM)
		return sl_err_nomem(err);
	if (rc == SL_EINTERNAL)
		return sl_err_set(err, SL_EINTERNAL,
				  "window: slices without a group table");
	return rc;
}

static const struct sl_op_ops expand_ops = {
	.name = "Expand",
	.push = expand_push,
	.finish = sl_op_finish_default,
	.free = NULL,
};

sl_op *sl_op_expand_new(const sl_plan *p, sl_err *err)
{
	return sl_op_new(&expand_ops, p, err);
}
