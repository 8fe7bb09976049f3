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

static const model_batch *last_batch(const model_query *q)
{
	return q->nbatches ? sl_model_batch(q, q->nbatches - 1) : NULL;
}

static bool axis_for(const model_query *q, axis *a)
{
	const model_batch *b = last_batch(q);
	int64_t lo = MODEL_NONE, hi = MODEL_NONE, pad;

	for (int i = 0; i < q->nrows; i++) {
		widen(&lo, &hi, q->rows[i].wstart_us);
		widen(&lo, &hi, q->rows[i].wend_us);
	}
	if (b) {
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
		int c0, c1;

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
		ui_put(y, c1 + 2, UI_DIM, r->window, a->x + a->w - c1 - 2);
		y++;
	}
}

static void events_line(int y, const axis *a, const model_query *q)
{
	const model_batch *b = last_batch(q);

	if (b == NULL)
		return;
	if (b->ev_min_us != MODEL_NONE && b->ev_max_us != MODEL_NONE) {
		int c0 = col(a, b->ev_min_us), c1 = col(a, b->ev_max_us);
		ui_hline(y, c0, UI_GOOD, "-", c1 - c0 + 1);
		ui_put(y, c0, UI_GOOD, "o", 1);
		ui_put(y, c1, UI_GOOD, "o", 1);
	}
	for (int i = 0; i < q->nlate; i++) {
		const model_late *l = sl_model_late(q, i);
		if (l->batch != b->id)
			break;
		if (l->event_us != MODEL_NONE)
			ui_put(y, col(a, l->event_us), UI_BAD, "x", 1);
	}
}

void pane_watermark(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	axis a;
	char t0[16], t1[16], wm[16], lc[16], mx[16];
	int y = in.y, bottom = in.y + in.h;

	ui_box(r, "watermark (event time)");
	if (q == NULL || !axis_for(q, &a)) {
		pane_empty(in, q && q->watermark
				   ? "(no event-time data yet)"
				   : "(no data yet: withWatermark + a window)");
		return;
	}
	a.x = in.x + 1;
	a.w = in.w - 2;
	sl_model_hms(q->max_event_us, mx, sizeof mx);
	sl_model_hms(q->wm_evict_us > 0 ? q->wm_evict_us : MODEL_NONE, wm,
		     sizeof wm);
	sl_model_hms(q->wm_late_us > 0 ? q->wm_late_us : MODEL_NONE, lc,
		     sizeof lc);
	if (q->wm_late_us != q->wm_evict_us && q->wm_late_us > 0)
		ui_printf(y++, in.x, UI_NORMAL, in.w,
			  "M max event %s  W eviction wm %s  L late cutoff %s",
			  mx, wm, lc);
	else
		ui_printf(y++, in.x, UI_NORMAL, in.w,
			  "M max event time %s  W watermark %s (next batch)",
			  mx, wm);
	sl_model_hms(a.lo, t0, sizeof t0);
	sl_model_hms(a.hi, t1, sizeof t1);
	ui_put(y, a.x, UI_DIM, t0, a.w);
	ui_put(y++, a.x + a.w - (int)strlen(t1), UI_DIM, t1, (int)strlen(t1));
	ui_hline(y, a.x, UI_DIM, "-", a.w);
	marks_line(y++, &a, q, a.w);
	events_line(y++, &a, q);
	bands(y, bottom - 1, &a, q);
	ui_put(bottom - 1, in.x, UI_DIM,
	       "o..o batch's event times  x dropped late  [==) windows", in.w);
}
