/*
 * pane_views: the views on F3..F5 / :view (LESSONS.md 5 V1, V5, V7).
 *
 *  scatter  Spark's orientation: X = processing time (one column group
 *           per batch, at its timestamp), Y = event time.  o marks the
 *           batch's min/avg/max event time (the feed gives these, not
 *           every row), x the rows it dropped as late, = the watermark as
 *           a step line (the value each batch used, held until the next),
 *           : the max event time seen, and the window boundaries as dim
 *           stripes on the left axis.
 *  state    state rows per batch as bars, the watermark under each.
 *  kafka    one lane per topic/partition: end offset and the rows the
 *           last batch read from it.
 */
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

static void et_range(const model_query *q, int first, int64_t *lo, int64_t *hi)
{
	*lo = *hi = MODEL_NONE;
	for (int i = first; i < q->nbatches; i++) {
		const model_batch *b = sl_model_batch(q, i);
		int64_t v[4] = { b->ev_min_us, b->ev_max_us,
				 b->wm_us > 0 ? b->wm_us : MODEL_NONE,
				 MODEL_NONE };
		for (int k = 0; k < 3; k++) {
			if (v[k] == MODEL_NONE)
				continue;
			if (*lo == MODEL_NONE || v[k] < *lo)
				*lo = v[k];
			if (*hi == MODEL_NONE || v[k] > *hi)
				*hi = v[k];
		}
	}
	for (int i = 0; i < q->nlate; i++) {
		int64_t t = sl_model_late(q, i)->event_us;
		if (t != MODEL_NONE && *lo != MODEL_NONE && t < *lo)
			*lo = t;
	}
	if (*lo != MODEL_NONE && *hi - *lo < 1000000)
		*hi = *lo + 1000000;
}

void pane_scatter(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	int axis_w = 9, plot_h = in.h - 3, step, nb, first;
	int64_t lo, hi;
	char t[16];

	ui_box(
	    r,
	    "event time vs processing time (o on time, x dropped, = watermark, : max event)");
	if (q == NULL || q->nbatches == 0) {
		pane_empty(in, NULL);
		return;
	}
	step = 6;
	nb = (in.w - axis_w - 1) / step;
	first = q->nbatches > nb ? q->nbatches - nb : 0;
	et_range(q, first, &lo, &hi);
	if (lo == MODEL_NONE || plot_h < 3) {
		pane_empty(in, "(no event-time data yet: add withWatermark)");
		return;
	}
	for (int y = 0; y < plot_h; y++)
		ui_put(in.y + y, in.x + axis_w - 1, UI_DIM, "|", 1);
	sl_model_hms(hi, t, sizeof t);
	ui_put(in.y, in.x, UI_DIM, t, axis_w - 1);
	sl_model_hms(lo, t, sizeof t);
	ui_put(in.y + plot_h - 1, in.x, UI_DIM, t, axis_w - 1);
	for (int i = 0; i < q->nrows; i++) /* window boundaries */
		if (q->rows[i].wstart_us >= lo && q->rows[i].wstart_us <= hi)
			ui_put(yrow(q->rows[i].wstart_us, lo, hi, in.y, plot_h),
			       in.x + axis_w - 2, UI_DIM, "-", 1);
	if (q->max_event_us != MODEL_NONE && q->max_event_us <= hi)
		ui_hline(yrow(q->max_event_us, lo, hi, in.y, plot_h),
			 in.x + axis_w, UI_DIM, ":", in.w - axis_w);
	for (int i = first; i < q->nbatches; i++) {
		const model_batch *b = sl_model_batch(q, i);
		int x = in.x + axis_w + (i - first) * step + 1;
		if (b->wm_us > 0)
			ui_hline(yrow(b->wm_us, lo, hi, in.y, plot_h), x,
				 UI_WARN, "=", step);
		if (b->ev_min_us != MODEL_NONE) {
			ui_put(yrow(b->ev_min_us, lo, hi, in.y, plot_h), x + 2,
			       UI_GOOD, "o", 1);
			ui_put(yrow(b->ev_avg_us, lo, hi, in.y, plot_h), x + 2,
			       UI_GOOD, "o", 1);
			ui_put(yrow(b->ev_max_us, lo, hi, in.y, plot_h), x + 2,
			       UI_GOOD, "o", 1);
		}
		for (int k = 0; k < q->nlate; k++) {
			const model_late *l = sl_model_late(q, k);
			if (l->batch == b->id && l->event_us != MODEL_NONE)
				ui_put(yrow(l->event_us, lo, hi, in.y, plot_h),
				       x + 3, UI_BAD, "x", 1);
		}
		sl_model_hms(b->ts_us, t, sizeof t);
		ui_printf(in.y + plot_h, x, UI_DIM, step, "b%lld",
			  (long long)b->id);
		ui_put(in.y + plot_h + 1, x, UI_DIM, t + 3, step - 1);
	}
	ui_put(in.y + plot_h + 2, in.x + axis_w, UI_DIM,
	       "processing time (batch, mm:ss) ->", in.w - axis_w);
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

void pane_kafka(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	int64_t max = 1;

	ui_box(r, "kafka partitions");
	if (q == NULL || q->nlanes == 0) {
		pane_empty(in, "(no data yet: no Kafka source in this query)");
		return;
	}
	for (int i = 0; i < q->nlanes; i++)
		if (q->lanes[i].end > max)
			max = q->lanes[i].end;
	for (int i = 0; i < q->nlanes && i < in.h; i++) {
		const model_lane *l = &q->lanes[i];
		int bar = (int)(l->end * (in.w - 50) / max);
		int x = ui_printf(in.y + i, in.x, UI_NORMAL, in.w,
				  "%-20.20s end %-8lld +%-6lld b%-4lld ",
				  l->name, (long long)l->end,
				  (long long)l->rows, (long long)l->batch);
		ui_hline(in.y + i, in.x + x, l->rows ? UI_GOOD : UI_DIM, "#",
			 bar);
	}
}
