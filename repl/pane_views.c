/*
 * pane_views: the views on F3..F5 / :view (LESSONS.md 5 V1, V5, V7).
 *
 *  scatter  Spark's orientation: X = processing time (one column group
 *           per batch, in batch order, labelled with its id and its
 *           timestamp), Y = event time.  One mark per input row (the
 *           feed's EVENT_TIMES, the newest 64 batches, at most 400 rows
 *           a batch), spread across its batch's group in arrival order:
 *           o on time, + late but counted (below the max event time seen
 *           before it, in earlier batches or earlier in its own), x
 *           dropped as late (the batch's LATE_ROW events, matched to its
 *           rows by event time; unmatched ones at the group's right edge).
 *           = the watermark as a step line (the value each batch used),
 *           : the max event time seen by the end of each batch (a step
 *           line too), window boundaries as dim stripes on the left axis.
 *           Batches whose rows the feed did not list (detail off, or
 *           older than the ring) show o at their min/avg/max event time.
 *           Without withWatermark there is no event time: the pane says so.
 *  state    state rows per batch as bars, the watermark under each.
 *  kafka    one lane per topic/partition: end offset and the rows the
 *           last batch read from it; names whole (a table while every
 *           lane fits a row, else each lane flowed by pane_flow).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pane.h"

static int yrow(int64_t t, int64_t lo, int64_t hi, int top, int h)
{
	double f = (double)(t - lo) / (double)(hi - lo);
	int k = (int)(f * (h - 1) + 0.5);

	if (k < 0)
		k = 0;
	if (k > h - 1)
		k = h - 1;
	return top + (h - 1 - k); /* later event time is higher up */
}

static void widen(int64_t v, int64_t *lo, int64_t *hi)
{
	if (v == MODEL_NONE)
		return;
	if (*lo == MODEL_NONE || v < *lo)
		*lo = v;
	if (*hi == MODEL_NONE || v > *hi)
		*hi = v;
}

static void et_range(const model_query *q, int first, int64_t *lo, int64_t *hi)
{
	*lo = *hi = MODEL_NONE;
	for (int i = first; i < q->nbatches; i++) {
		const model_batch *b = sl_model_batch(q, i);
		const model_pts *p = sl_model_pts(q, b->id);
		widen(b->ev_min_us, lo, hi);
		widen(b->ev_max_us, lo, hi);
		if (b->wm_us > 0)
			widen(b->wm_us, lo, hi);
		for (int k = 0; p != NULL && k < p->n; k++)
			widen(p->us[k], lo, hi);
	}
	for (int i = 0; i < q->nlate && *lo != MODEL_NONE; i++)
		widen(sl_model_late(q, i)->event_us, lo, hi);
	if (*lo != MODEL_NONE && *hi - *lo < 1000000)
		*hi = *lo + 1000000;
}

/* The plot: where it is and what range it shows. */
typedef struct plot {
	int x0, top, h, step; /* x0: the first group's column */
	int64_t lo, hi;
} plot;

/* Columns a batch group of step columns gives its marks (a blank column
 * on each side), and the column of row k of n. */
static int mark_x(const plot *pl, int gx, int k, int n)
{
	int w = pl->step - 2;
	return n <= w ? gx + 1 + k : gx + 1 + (int)((int64_t)k * w / n);
}

/* The x marks: flag the rows of p that batch b dropped (the first
 * unflagged row with the late row's event time, to the millisecond);
 * late rows no listed row matches are drawn at the group's edge. */
static void mark_dropped(const plot *pl, const model_query *q,
			 const model_batch *b, const model_pts *p,
			 bool *dropped, int gx)
{
	for (int k = 0; k < q->nlate; k++) {
		const model_late *l = sl_model_late(q, k);
		int i = 0;
		if (l->batch != b->id || l->bad || l->event_us == MODEL_NONE)
			continue;
		while (p != NULL && i < p->n &&
		       (dropped[i] || p->us[i] == MODEL_NONE ||
			p->us[i] / 1000 != l->event_us / 1000))
			i++;
		if (p != NULL && i < p->n)
			dropped[i] = true;
		else
			ui_put(
			    yrow(l->event_us, pl->lo, pl->hi, pl->top, pl->h),
			    gx + pl->step - 2, UI_BAD, "x", 1);
	}
}

/* One batch's marks: its rows in arrival order (o first, then +, then x,
 * so the rarer marks win a shared cell), or its min/avg/max. */
static void draw_rows(const plot *pl, const model_query *q,
		      const model_batch *b, int gx)
{
	const model_pts *p = sl_model_pts(q, b->id);
	bool dropped[MODEL_PTS_MAX];
	static const char *const glyph[3] = { "o", "+", "x" };
	static const int attr[3] = { UI_GOOD, UI_WARN, UI_BAD };

	if (p == NULL && b->ev_min_us != MODEL_NONE) {
		int64_t v[3] = { b->ev_min_us, b->ev_avg_us, b->ev_max_us };
		for (int k = 0; k < 3; k++)
			if (v[k] != MODEL_NONE)
				ui_put(
				    yrow(v[k], pl->lo, pl->hi, pl->top, pl->h),
				    gx + 2, UI_GOOD, "o", 1);
	}
	memset(dropped, 0, sizeof dropped);
	mark_dropped(pl, q, b, p, dropped, gx);
	for (int pass = 0; p != NULL && pass < 3; pass++)
		for (int k = 0; k < p->n; k++) {
			int g = dropped[k] ? 2 : p->behind[k] ? 1 : 0;
			if (g != pass || p->us[k] == MODEL_NONE)
				continue;
			ui_put(yrow(p->us[k], pl->lo, pl->hi, pl->top, pl->h),
			       mark_x(pl, gx, k, p->n), attr[g], glyph[g], 1);
		}
}

/* Columns per batch: room for the widest batch's rows, 6 to 16. */
static int group_step(const model_query *q, int avail)
{
	int most = 0,
	    first = q->nbatches > avail / 6 ? q->nbatches - avail / 6 : 0;
	for (int i = first; i < q->nbatches; i++) {
		const model_pts *p = sl_model_pts(q, sl_model_batch(q, i)->id);
		if (p != NULL && p->n > most)
			most = p->n;
	}
	most += 2;
	return most < 6 ? 6 : most > 16 ? 16 : most;
}

/* Event-time labels at round times (1 s .. 1 day apart) at least three
 * rows apart, besides the top and bottom ones. */
static void draw_ticks(const plot *pl, int x)
{
	static const int64_t iv_s[] = { 1,    2,    5,     10,    15,   30,
					60,   120,  300,   600,   900,  1800,
					3600, 7200, 21600, 43200, 86400 };
	int64_t iv = 0, t;
	char lbl[32];

	for (size_t i = 0; i < sizeof iv_s / sizeof iv_s[0] && iv == 0; i++)
		if ((double)iv_s[i] * 1e6 * (pl->h - 1) /
			(double)(pl->hi - pl->lo) >=
		    3.0)
			iv = iv_s[i] * 1000000;
	if (iv == 0)
		return;
	t = pl->lo / iv * iv;
	for (t = t < pl->lo ? t + iv : t; t <= pl->hi; t += iv) {
		int y = yrow(t, pl->lo, pl->hi, pl->top, pl->h);
		if (y <= pl->top + 1 || y >= pl->top + pl->h - 2)
			continue;
		sl_model_hms(t, lbl, sizeof lbl);
		ui_put(y, x, UI_DIM, lbl, 8);
	}
}

/* The event-time axis: labels, the window boundaries (- beside the
 * labels), the | line; the processing-time legend under the plot. */
static void draw_axes(const plot *pl, ui_rect in, int axis_w,
		      const model_query *q)
{
	char t[32];

	for (int y = 0; y < pl->h; y++)
		ui_put(pl->top + y, in.x + axis_w - 1, UI_DIM, "|", 1);
	sl_model_hms(pl->hi, t, sizeof t);
	ui_put(pl->top, in.x, UI_DIM, t, axis_w - 2);
	sl_model_hms(pl->lo, t, sizeof t);
	ui_put(pl->top + pl->h - 1, in.x, UI_DIM, t, axis_w - 2);
	draw_ticks(pl, in.x);
	for (int i = 0; i < q->nrows; i++) /* window boundaries */
		if (q->rows[i].wstart_us >= pl->lo &&
		    q->rows[i].wstart_us <= pl->hi)
			ui_put(yrow(q->rows[i].wstart_us, pl->lo, pl->hi,
				    pl->top, pl->h),
			       in.x + axis_w - 2, UI_DIM, "-", 1);
	ui_put(pl->top + pl->h + 2, in.x + axis_w, UI_DIM,
	       "processing time (batch, mm:ss) ->", in.w - axis_w);
}

void pane_scatter(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	int axis_w = 10, nb, first;
	int64_t maxev = MODEL_NONE;
	plot pl;
	char t[32];

	static const char long_title[] =
	    "event time vs processing time (o on time, + late but "
	    "counted, x dropped, = watermark, : max event)";
	/* the legend whole in the title, or the short one (:help views) */
	ui_box(r, (int)sizeof long_title - 1 + 8 <= r.w
		      ? long_title
		      : "event time vs processing time (:help views)");
	if (q == NULL || q->nbatches == 0) {
		pane_empty(in, NULL);
		return;
	}
	pl.top = in.y;
	pl.h = in.h - 3;
	pl.x0 = in.x + axis_w;
	pl.step = group_step(q, in.w - axis_w - 1);
	nb = (in.w - axis_w - 1) / pl.step;
	first = q->nbatches > nb ? q->nbatches - nb : 0;
	et_range(q, first, &pl.lo, &pl.hi);
	if (pl.lo == MODEL_NONE || pl.h < 3) {
		pane_empty(in, "(no event-time data yet: add withWatermark)");
		return;
	}
	draw_axes(&pl, in, axis_w, q);
	for (int i = 0; i < q->nbatches; i++) {
		const model_batch *b = sl_model_batch(q, i);
		int gx = pl.x0 + (i - first) * pl.step;
		if (b->ev_max_us != MODEL_NONE &&
		    (maxev == MODEL_NONE || b->ev_max_us > maxev))
			maxev = b->ev_max_us;
		if (i < first)
			continue;
		if (maxev != MODEL_NONE)
			ui_hline(yrow(maxev, pl.lo, pl.hi, pl.top, pl.h), gx,
				 UI_DIM, ":", pl.step);
		if (b->wm_us > 0)
			ui_hline(yrow(b->wm_us, pl.lo, pl.hi, pl.top, pl.h), gx,
				 UI_WARN, "=", pl.step);
		draw_rows(&pl, q, b, gx);
		sl_model_hms(b->ts_us, t, sizeof t);
		ui_printf(pl.top + pl.h, gx + 1, UI_DIM, pl.step - 1, "b%lld",
			  (long long)b->id);
		ui_put(pl.top + pl.h + 1, gx + 1, UI_DIM, t + 3, pl.step - 1);
	}
}

void pane_state(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	int plot_h = in.h - 3, step = 7, nb, first;
	int64_t max = 1;

	ui_box(r, "state rows per batch");
	if (q == NULL || q->nbatches == 0) {
		pane_empty(in, NULL);
		return;
	}
	nb = in.w / step;
	first = q->nbatches > nb ? q->nbatches - nb : 0;
	for (int i = first; i < q->nbatches; i++)
		if (sl_model_batch(q, i)->state_rows > max)
			max = sl_model_batch(q, i)->state_rows;
	for (int i = first; i < q->nbatches; i++) {
		const model_batch *b = sl_model_batch(q, i);
		int x = in.x + (i - first) * step;
		int h =
		    b->state_rows > 0
			? (int)((b->state_rows * (plot_h - 1) + max - 1) / max)
			: 0;
		const char *wm =
		    b->watermark ? strchr(b->watermark, 'T') : NULL;

		for (int k = 0; k < h; k++)
			ui_put(in.y + plot_h - 1 - k, x + 1, UI_GOOD, "###", 3);
		if (b->state_rows >= 0)
			ui_printf(in.y + plot_h - 1 - h, x + 1, UI_NORMAL, step,
				  "%lld", (long long)b->state_rows);
		ui_printf(in.y + plot_h, x, UI_DIM, step, "b%lld",
			  (long long)b->id);
		ui_put(in.y + plot_h + 1, x, UI_WARN, wm ? wm + 1 : "-",
		       step - 1);
	}
	ui_put(
	    in.y + plot_h + 2, in.x, UI_DIM,
	    "bars: state rows after the batch; under them: the watermark it used",
	    in.w);
}

/* One lane's text: "end N", "+rows", "bN" */
typedef struct lane_text {
	char end[32], rows[32], batch[32];
} lane_text;

static void lane_fmt(const model_lane *l, lane_text *t)
{
	snprintf(t->end, sizeof t->end, "end %lld", (long long)l->end);
	snprintf(t->rows, sizeof t->rows, "+%lld", (long long)l->rows);
	snprintf(t->batch, sizeof t->batch, "b%lld", (long long)l->batch);
}

static int max_i(int a, int b)
{
	return a > b ? a : b;
}

/* A lane per topic/partition: its name whole (a table when every lane's
 * line fits one row, else flowed over rows as pane_flow lays it), then its
 * bar in what is left of the row. */
void pane_kafka(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	int64_t max = 1;
	int pad[4] = { 0, 12, 7, 5 }, total = 0, y = 0;

	ui_box(r, "kafka partitions");
	if (q == NULL || q->nlanes == 0) {
		pane_empty(in, "(no data yet: no Kafka source in this query)");
		return;
	}
	for (int i = 0; i < q->nlanes; i++) {
		lane_text t;
		lane_fmt(&q->lanes[i], &t);
		if (q->lanes[i].end > max)
			max = q->lanes[i].end;
		pad[0] = max_i(pad[0], ui_width(q->lanes[i].name, -1));
		pad[1] = max_i(pad[1], ui_width(t.end, -1));
		pad[2] = max_i(pad[2], ui_width(t.rows, -1));
		pad[3] = max_i(pad[3], ui_width(t.batch, -1));
	}
	for (int k = 0; k < 4; k++)
		total += (k ? 1 : 0) + pad[k];
	for (int i = 0; i < q->nlanes && y < in.h; i++) {
		const model_lane *l = &q->lanes[i];
		lane_text t;
		pane_seg seg[4];
		int rows;

		lane_fmt(l, &t);
		seg[0] = (pane_seg){ l->name, UI_NORMAL, pad[0] };
		seg[1] = (pane_seg){ t.end, UI_NORMAL, pad[1] };
		seg[2] = (pane_seg){ t.rows, UI_NORMAL, pad[2] };
		seg[3] = (pane_seg){ t.batch, UI_NORMAL, pad[3] };
		rows = pane_flow(in, in.y + y, 2, seg, 4, true, NULL);
		if (rows == 1 && total + 1 < in.w)
			ui_hline(in.y + y, in.x + total + 1,
				 l->rows ? UI_GOOD : UI_DIM, "#",
				 (int)(l->end * (in.w - total - 1) / max));
		y += rows;
	}
}
