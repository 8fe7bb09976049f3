/*
 * pane_windows: the focused query's result/state rows (LESSONS.md 5 V2):
 * window, key, value (the aggregates as the engine's Row text), and the
 * row's state: UPDATED (changed in this batch), OPEN, EMITTED, EVICTED;
 * then the late-dropped count of each window that lost rows.  Rows are
 * sorted by window start, then key, so the picture does not jump.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pane.h"

static int row_cmp(const void *a, const void *b)
{
	const model_row *x = *(model_row *const *)a;
	const model_row *y = *(model_row *const *)b;

	if (x->wstart_us != y->wstart_us)
		return x->wstart_us < y->wstart_us ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int state_attr(const char *st)
{
	if (strcmp(st, "UPDATED") == 0)
		return UI_WARN;
	if (strcmp(st, "EVICTED") == 0)
		return UI_DIM;
	if (strcmp(st, "EMITTED") == 0)
		return UI_GOOD;
	return UI_NORMAL;
}

static int64_t late_of(const model_query *q, const model_row *r)
{
	for (int i = 0; i < q->nwlate; i++)
		if (q->wlate[i].start_us == r->wstart_us &&
		    q->wlate[i].end_us == r->wend_us)
			return q->wlate[i].count;
	return 0;
}

/* "late dropped: [12:00:00,12:10:00) 1 ...", flowing (each window and
 * its count whole); drawn from row y, or measured.  Its rows. */
static int late_line(ui_rect in, int y, const model_query *q, bool draw)
{
	static char text[MODEL_MAX_WLATE][48];
	pane_seg seg[MODEL_MAX_WLATE + 1];
	int n = 0;

	seg[n++] = (pane_seg){ "late dropped:", UI_BAD, 0 };
	for (int i = 0; i < q->nwlate; i++) {
		char a[16], b[16];
		sl_model_hms(q->wlate[i].start_us, a, sizeof a);
		sl_model_hms(q->wlate[i].end_us, b, sizeof b);
		snprintf(text[i], sizeof text[i], "[%s,%s) %lld", a, b,
			 (long long)q->wlate[i].count);
		seg[n++] = (pane_seg){ text[i], UI_NORMAL, 0 };
	}
	return pane_flow(in, y, 2, seg, n, draw, NULL);
}

/* s in at most w bytes (ASCII widths: keys and values are Row text),
 * "..." at the end when it was longer. */
static void abbrev(const char *s, int w, char *out, size_t n)
{
	if (w < 4 || (int)strlen(s) <= w)
		snprintf(out, n, "%.*s", w, s);
	else
		snprintf(out, n, "%.*s...", w - 3, s);
}

/* Every window starts and ends on a whole minute. */
static bool all_minutes(const model_query *q)
{
	for (int i = 0; i < q->nrows; i++)
		if (q->rows[i].wstart_us != MODEL_NONE &&
		    (q->rows[i].wstart_us % 60000000 != 0 ||
		     q->rows[i].wend_us % 60000000 != 0))
			return false;
	return true;
}

void pane_windows(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	model_row *sorted[MODEL_MAX_ROWS];
	char title[120], line[400], wm[32];
	int y = in.y, kw = 3, vw = 5, ww = 17, n, bottom = in.y + in.h;

	snprintf(title, sizeof title, "windows%s%s",
		 q && q->watermark ? "  watermark " : "",
		 q && q->watermark ? pane_short_time(q->watermark, wm) : "");
	ui_box(r, title);
	if (q == NULL || (q->nrows == 0 && q->nwlate == 0)) {
		pane_empty(in, NULL);
		return;
	}
	n = q->nrows;
	for (int i = 0; i < n; i++) {
		sorted[i] = &q->rows[i];
		if ((int)strlen(q->rows[i].key) > kw)
			kw = (int)strlen(q->rows[i].key);
		if ((int)strlen(q->rows[i].value) > vw)
			vw = (int)strlen(q->rows[i].value);
	}
	/* narrow: "12:00-12:10" when the windows are on whole minutes */
	if (ww + kw + vw + 3 + 8 > in.w && all_minutes(q))
		ww = 11;
	/* the room the key and value share: the key first (it is what a
	 * row is), then the value; what is longer is abbreviated "..." */
	{
		int room = in.w - ww - 3 - 8;
		if (vw > 14)
			vw = 14;
		if (kw > room - vw)
			kw = room - vw > 8 ? room - vw : 8;
		if (vw > room - kw)
			vw = room - kw > 5 ? room - kw : 5;
	}
	qsort(sorted, (size_t)n, sizeof sorted[0], row_cmp);
	snprintf(line, sizeof line, "%-*s %-*s %-*s %-8s late", ww, "window",
		 kw, "key", vw, "value", "state");
	ui_put(y++, in.x, UI_BOLD, line, in.w);
	if (q->nwlate > 0)
		bottom -= late_line(in, 0, q, false);
	/* more rows than room: keep the newest windows (the end) */
	for (int i = n - (bottom - y) > 0 ? n - (bottom - y) : 0;
	     i < n && y < bottom; i++) {
		const model_row *w = sorted[i];
		int64_t late = late_of(q, w);
		int x;

		char win[24];
		if (ww == 11 && strlen(w->window) == 17)
			snprintf(win, sizeof win, "%.5s-%.5s", w->window,
				 w->window + 9);
		else
			snprintf(win, sizeof win, "%s",
				 w->window[0] ? w->window : "-");
		char key[80], val[80];
		abbrev(w->key, kw, key, sizeof key);
		abbrev(w->value, vw, val, sizeof val);
		snprintf(line, sizeof line, "%-*s %-*s %-*s ", ww, win, kw, key,
			 vw, val);
		x = ui_put(y, in.x, UI_NORMAL, line, in.w);
		x += ui_printf(y, in.x + x, state_attr(w->state), in.w - x,
			       "%-8s", w->state);
		if (late > 0)
			ui_printf(y, in.x + x, UI_BAD, in.w - x, " %lld",
				  (long long)late);
		y++;
	}
	if (q->nwlate > 0)
		late_line(in, bottom, q, true);
}
