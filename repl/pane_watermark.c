/*
 * pane_watermark: an event-time axis (left = earlier) with the window
 * bands of the focused query, the max event time seen (M), the watermark
 * (W; and L for the late cutoff when it differs from the eviction
 * watermark, as it does with allowMultiple: late rows are judged by the
 * previous batch's watermark), the last batch's events (o at its min and
 * max event time, the range between them) and its rows dropped as late
 * (x).  LESSONS.md 6: the half-open window rule and "dropped only if all
 * its windows are closed" are visible here: a band ends at its end time,
 * and an x sits left of W.
 *
 * The events lines are the last few batches that read rows (newest at
 * the bottom, each labelled with its batch id), so a dropped row's x stays
 * while no-data batches run (they read nothing and get no line).  The
 * header says W's and M's values first and wraps (pane_flow.c) rather
 * than cut a time at the pane's edge.
 *
 * The feed gives per batch the min/avg/max event time, not every row, so
 * on-time rows are drawn as that range (NEEDSWORK: per-row marks need a
 * per-row event from the engine).
 */
#include <stdio.h>
#include <string.h>

#include "pane.h"

typedef struct axis {
	int64_t lo, hi;
	int x, w;
} axis;

static void widen(int64_t *lo, int64_t *hi, int64_t t)
{
	if (t == MODEL_NONE)
		return;
	if (*lo == MODEL_NONE || t < *lo)
		*lo = t;
	if (*hi == MODEL_NONE || t > *hi)
		*hi = t;
}

static int col(const axis *a, int64_t t)
{
	double f = (double)(t - a->lo) / (double)(a->hi - a->lo);
	int c = (int)(f * (a->w - 1) + 0.5);

	return a->x + (c < 0 ? 0 : c >= a->w ? a->w - 1 : c);
}

static bool axis_for(const model_query *q, axis *a)
{
	int64_t lo = MODEL_NONE, hi = MODEL_NONE, pad;

	for (int i = 0; i < q->nrows; i++) {
		widen(&lo, &hi, q->rows[i].wstart_us);
		widen(&lo, &hi, q->rows[i].wend_us);
	}
	for (int i = q->nbatches - 1; i >= 0 && i >= q->nbatches - 8; i--) {
		const model_batch *b = sl_model_batch(q, i);
		widen(&lo, &hi, b->ev_min_us);
		widen(&lo, &hi, b->ev_max_us);
	}
	for (int i = 0; i < q->nlate && i < 8; i++)
		widen(&lo, &hi, sl_model_late(q, i)->event_us);
	widen(&lo, &hi, q->max_event_us);
	if (lo == MODEL_NONE)
		return false;
	if (q->wm_evict_us > 0)
		widen(&lo, &hi, q->wm_evict_us);
	if (q->wm_late_us > 0)
		widen(&lo, &hi, q->wm_late_us);
	pad = (hi - lo) / 20 + 1000000;
	a->lo = lo - pad;
	a->hi = hi + pad;
	return true;
}

static void marks_line(int y, const axis *a, const model_query *q, int w)
{
	if (q->max_event_us != MODEL_NONE)
		ui_put(y, col(a, q->max_event_us), UI_GOOD, "M", 1);
	if (q->wm_late_us > 0 && q->wm_late_us != q->wm_evict_us)
		ui_put(y, col(a, q->wm_late_us), UI_BAD, "L", 1);
	if (q->wm_evict_us > 0)
		ui_put(y, col(a, q->wm_evict_us), UI_WARN, "W", 1);
	(void)w;
}

static void bands(int y, int bottom, const axis *a, const model_query *q)
{
	int64_t seen[64];
	int nseen = 0;

	for (int i = 0; i < q->nrows && y < bottom; i++) {
		const model_row *r = &q->rows[i];
		bool dup = false, upd = false;
		int c0, c1, lw = ui_width(r->window, -1);

		if (r->wstart_us == MODEL_NONE)
			continue;
		for (int k = 0; k < nseen; k++)
			dup |= seen[k] == r->wstart_us;
		if (dup || nseen == 64)
			continue;
		seen[nseen++] = r->wstart_us;
		for (int k = 0; k < q->nrows; k++)
			upd |= q->rows[k].wstart_us == r->wstart_us &&
			       strcmp(q->rows[k].state, "UPDATED") == 0;
		c0 = col(a, r->wstart_us);
		c1 = col(a, r->wend_us);
		ui_put(y, c0, upd ? UI_WARN : UI_DIM, "[", 1);
		ui_hline(y, c0 + 1, upd ? UI_WARN : UI_DIM, "=", c1 - c0 - 1);
		ui_put(y, c1, upd ? UI_WARN : UI_DIM, ")", 1);
		/* the label whole, right of the band or left of it, or none */
		if (c1 + 2 + lw <= a->x + a->w)
			ui_put(y, c1 + 2, UI_DIM, r->window, lw);
		else if (c0 - 1 - lw >= a->x)
			ui_put(y, c0 - 1 - lw, UI_DIM, r->window, lw);
		y++;
	}
}

/* Does batch b have anything to draw on an events line? */
static bool has_events(const model_query *q, const model_batch *b)
{
	if (b->ev_min_us != MODEL_NONE || b->late > 0)
		return true;
	for (int i = 0; i < q->nlate && i < 32; i++)
		if (sl_model_late(q, i)->batch == b->id)
			return true;
	return false;
}

/* x at the event times of the rows batch b dropped. */
static void late_marks(int y, const axis *a, const model_query *q,
		       const model_batch *b)
{
	for (int i = 0; i < q->nlate; i++) {
		const model_late *l = sl_model_late(q, i);
		if (l->batch == b->id && l->event_us != MODEL_NONE)
			ui_put(y, col(a, l->event_us), UI_BAD, "x", 1);
	}
}

/* One batch's events: o..o its event-time range, x its dropped rows. */
static void events_line(int y, int lx, const axis *a, const model_query *q,
			const model_batch *b)
{
	char id[16];

	snprintf(id, sizeof id, "b%lld", (long long)b->id);
	ui_put(y, lx, UI_DIM, id, a->x - lx - 1);
	if (b->ev_min_us != MODEL_NONE && b->ev_max_us != MODEL_NONE) {
		int c0 = col(a, b->ev_min_us), c1 = col(a, b->ev_max_us);
		ui_hline(y, c0, UI_GOOD, "-", c1 - c0 + 1);
		ui_put(y, c0, UI_GOOD, "o", 1);
		ui_put(y, c1, UI_GOOD, "o", 1);
	}
	late_marks(y, a, q, b);
}

/* The last n batches that read rows, oldest first, into out. */
static int event_batches(const model_query *q, const model_batch **out, int n)
{
	int k = 0;

	for (int i = q->nbatches - 1; i >= 0 && k < n; i--) {
		const model_batch *b = sl_model_batch(q, i);
		if (has_events(q, b))
			out[k++] = b;
	}
	for (int i = 0; i < k / 2; i++) {
		const model_batch *t = out[i];
		out[i] = out[k - 1 - i];
		out[k - 1 - i] = t;
	}
	return k;
}

#define EVENT_LINES 3

void pane_watermark(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	axis a;
	char t0[16], t1[16], wm[40], lc[40], mx[40];
	const model_batch *eb[EVENT_LINES];
	int y = in.y, bottom = in.y + in.h, ne, gutter;
	pane_seg seg[3];

	ui_box(r, "watermark (event time)");
	if (q == NULL || !axis_for(q, &a)) {
		pane_empty(in, q && q->watermark
				   ? "(no event-time data yet)"
				   : "(no data yet: withWatermark + a window)");
		return;
	}
	ne = event_batches(q, eb, EVENT_LINES);
	snprintf(t0, sizeof t0, "b%lld", ne ? (long long)eb[ne - 1]->id : 0LL);
	gutter = ui_width(t0, -1) + 1;
	a.x = in.x + gutter;
	a.w = in.w - gutter - 1;
	sl_model_hms(q->max_event_us, t0, sizeof t0);
	snprintf(mx, sizeof mx, "M max event %s", t0);
	sl_model_hms(q->wm_evict_us > 0 ? q->wm_evict_us : MODEL_NONE, t0,
		     sizeof t0);
	snprintf(wm, sizeof wm, "W watermark %s", t0);
	seg[0] = (pane_seg){ wm, UI_WARN, 0 };
	seg[1] = (pane_seg){ mx, UI_GOOD, 0 };
	seg[2] = (pane_seg){ "(for the next batch)", UI_DIM, 0 };
	if (q->wm_late_us != q->wm_evict_us && q->wm_late_us > 0) {
		sl_model_hms(q->wm_late_us, t0, sizeof t0);
		snprintf(lc, sizeof lc, "L late cutoff %s", t0);
		seg[2] = (pane_seg){ lc, UI_BAD, 0 };
	}
	if (pane_flow(in, y, 2, seg, 3, false, NULL) > 1 && seg[2].s != lc)
		seg[2].s = NULL;
	if (pane_flow(in, y, 2, seg, 3, false, NULL) > 1) {
		/* short forms before wrapping: the values matter, the words
		 * are in the legend and in :help views */
		memmove(wm + 2, wm + 12, strlen(wm + 12) + 1);
		memmove(mx + 2, mx + 12, strlen(mx + 12) + 1);
		if (seg[2].s == lc)
			memmove(lc + 2, lc + 14, strlen(lc + 14) + 1);
	}
	y += pane_flow(in, y, 2, seg, 3, true, NULL);
	sl_model_hms(a.lo, t0, sizeof t0);
	sl_model_hms(a.hi, t1, sizeof t1);
	ui_put(y, a.x, UI_DIM, t0, a.w);
	ui_put(y++, a.x + a.w - (int)strlen(t1), UI_DIM, t1, (int)strlen(t1));
	ui_hline(y, a.x, UI_DIM, "-", a.w);
	marks_line(y++, &a, q, a.w);
	/* a line per batch when there is room; else the newest, with the
	 * x marks of the others on it too (they stay for EVENT_LINES) */
	int lines = in.h >= 10 ? ne : ne > 0;
	for (int i = ne - lines; i < ne && y < bottom - 1; i++) {
		if (i == ne - 1)
			for (int k = 0; k < ne - lines; k++)
				late_marks(y, &a, q, eb[k]);
		events_line(y++, in.x, &a, q, eb[i]);
	}
	bands(y, bottom - 1, &a, q);
	pane_seg legend[3] = { { "o..o a batch's event times", UI_DIM, 0 },
			       { "x dropped late", UI_DIM, 0 },
			       { "[==) windows", UI_DIM, 0 } };
	if (pane_flow(in, 0, 0, legend, 3, false, NULL) == 1)
		pane_flow(in, bottom - 1, 0, legend, 3, true, NULL);
}
