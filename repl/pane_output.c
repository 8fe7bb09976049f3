/*
 * pane_output: the layout, the queries strip, the progress line, the
 * Output pane (scrollback from the model; a line wider than the pane
 * wraps onto the rows below, as in a terminal) and the input line.  The
 * strip and the progress line show each item whole or leave it out.
 *
 * Layout, top to bottom: strip (1 row); the four panes (Watermark |
 * Windows over Checkpoint | Late) or one view; progress (1 row); Output
 * (a quarter of the screen, at least 5 rows); input (1 row).  At 120x40
 * every pane has room for its title and a dozen rows; at 80x24 all still
 * fit, smaller.
 */
#include <stdio.h>
#include <string.h>

#include "pane.h"

/* The four panes (and the other views) in area_h rows from row 1. */
static void place_panes(pane_layout *l, int area_h, int cols)
{
	int top_h = (area_h + 1) / 2, left_w = cols * 52 / 100;

	l->view = (ui_rect){ 1, 0, area_h, cols };
	l->watermark = (ui_rect){ 1, 0, top_h, left_w };
	l->windows = (ui_rect){ 1, left_w, top_h, cols - left_w };
	l->ckpt = (ui_rect){ 1 + top_h, 0, area_h - top_h, left_w };
	l->late = (ui_rect){ 1 + top_h, left_w, area_h - top_h, cols - left_w };
}

void pane_layout_for(int rows, int cols, pane_layout *l)
{
	int out_h = rows / 4 < 5 ? 5 : rows / 4;
	int area_h = rows - 3 - out_h;

	if (area_h < 4) { /* tiny terminal: output and input only */
		area_h = 0;
		out_h = rows - 3 > 1 ? rows - 3 : 1;
	}
	memset(l, 0, sizeof *l);
	l->strip = (ui_rect){ 0, 0, 1, cols };
	place_panes(l, area_h, cols);
	l->progress = (ui_rect){ 1 + area_h, 0, 1, cols };
	l->output = (ui_rect){ 2 + area_h, 0, out_h, cols };
	l->input = (ui_rect){ rows - 1, 0, 1, cols };
}

void pane_layout_live(pane_layout *l, int want)
{
	int area = l->view.h, h = want < area / 2 ? want : area / 2;

	if (h < 3)
		return;
	place_panes(l, area - h, l->view.w);
	l->live = (ui_rect){ 1 + area - h, 0, h, l->view.w };
}

ui_rect pane_inner(ui_rect r)
{
	return (ui_rect){ r.y + 1, r.x + 1, r.h - 2 > 0 ? r.h - 2 : 0,
			  r.w - 2 > 0 ? r.w - 2 : 0 };
}

const char *pane_short_time(const char *iso, char *out)
{
	int64_t us = sl_model_parse_time(iso);

	if (us == MODEL_NONE)
		snprintf(out, 32, "%s", iso ? iso : "-");
	else
		sl_model_hms(us, out, 32);
	return out;
}

void pane_empty(ui_rect r, const char *why)
{
	if (why == NULL || ui_width(why, -1) > r.w - 1)
		why = "(no data yet)"; /* the reason whole, or not at all */
	ui_put(r.y, r.x + 1, UI_DIM, why, r.w - 1);
}

/* One query of the strip: "3* name [active] batch 7" into item. */
static int strip_item(sl_model *m, int i, char *item, size_t n)
{
	model_query *q = sl_model_query(m, i), *f = sl_model_focus(m);
	if (q->name)
		snprintf(item, n, "%d%s %.40s", i + 1, q == f ? "*" : "",
			 q->name);
	else
		snprintf(item, n, "%d%s %.8s", i + 1, q == f ? "*" : "", q->id);
	snprintf(item + strlen(item), n - strlen(item), " [%s] batch %lld",
		 q->failed   ? "failed"
		 : q->active ? "active"
			     : "stopped",
		 (long long)q->batch);
	return ui_width(item, -1);
}

/* The queries strip: each query whole (name, or its id's first 8
 * characters).  When they do not all fit, the focused query is always
 * among those shown, with "+N earlier" before and "+N more" after (a
 * lesson's sixth run is the one its panes show). */
void pane_strip(ui_rect r, sl_model *m)
{
	static const char hint[] = "  :help  Tab  F2-F6";
	model_query *f = sl_model_focus(m);
	int x = r.x, n = sl_model_count(m), end = r.x + r.w - 20;
	int w[MODEL_MAX_QUERIES], fi = -1, first = 0, i;
	char item[160], tag[24];

	x += ui_put(r.y, x, UI_TITLE, "queries:", r.w);
	if (n == 0) {
		const char *none =
		    "(none yet: start one with df.writeStream...:start())";
		if (ui_width(none, -1) > end - x - 1)
			none = "(none yet)";
		ui_put(r.y, x + 1, UI_DIM, none, end - x - 1);
	}
	if (n > MODEL_MAX_QUERIES)
		n = MODEL_MAX_QUERIES;
	for (i = 0; i < n; i++) {
		w[i] = strip_item(m, i, item, sizeof item);
		if (sl_model_query(m, i) == f)
			fi = i;
	}
	/* the first query shown: the earliest from which the focused one
	 * still fits, with room for the tags */
	for (;;) {
		int need = first > 0 ? 14 : 0, k;
		for (k = first; k <= fi; k++)
			need += 1 + w[k];
		if (fi < 0 || first >= fi || x + need + (fi + 1 < n ? 10 : 0) <= end)
			break;
		first++;
	}
	if (first > 0) {
		snprintf(tag, sizeof tag, " +%d earlier", first);
		x += ui_put(r.y, x, UI_DIM, tag, end - x);
	}
	for (i = first; i < n; i++) {
		model_query *q = sl_model_query(m, i);
		int attr = q == f ? UI_REVERSE : q->failed ? UI_BAD : UI_NORMAL;
		strip_item(m, i, item, sizeof item);
		snprintf(tag, sizeof tag, " +%d more", n - i);
		if (x + 1 + w[i] > end - (i + 1 < n ? (int)strlen(tag) : 0)) {
			ui_put(r.y, x, UI_DIM, tag, end - x);
			break;
		}
		x += 1;
		x += ui_put(r.y, x, attr, item, w[i]);
	}
	ui_put(r.y, r.w - 20 > x ? r.w - 20 : r.w, UI_DIM, hint, 20);
}

/* The progress line: the fields in order, each whole or not at all (a
 * field that does not fit is left out, never cut). */
void pane_progress(ui_rect r, model_query *q)
{
	char f[10][200], wm[32];
	int x = r.x, n = 0;

	ui_hline(r.y, r.x, UI_REVERSE, " ", r.w);
	if (q == NULL) {
		ui_put(r.y, r.x, UI_REVERSE, " progress: no query", r.w);
		return;
	}
	snprintf(f[n++], sizeof f[0], "%s", q->name ? q->name : "query");
	snprintf(f[n++], sizeof f[0], "%.8s", q->id);
	snprintf(f[n++], sizeof f[0], "batch %lld", (long long)q->batch);
	snprintf(f[n++], sizeof f[0], "in %lld rows", (long long)q->in_rows);
	snprintf(f[n++], sizeof f[0], "wm %s",
		 pane_short_time(q->watermark, wm));
	snprintf(f[n++], sizeof f[0], "late dropped %lld",
		 (long long)q->late_total);
	snprintf(f[n++], sizeof f[0], "bad %lld", (long long)q->bad_total);
	snprintf(f[n++], sizeof f[0], "%.1f rows/s", q->rows_per_s);
	snprintf(f[n++], sizeof f[0], "state %lld rows",
		 (long long)q->state_rows);
	snprintf(f[n++], sizeof f[0], "%.190s",
		 q->failed && q->exception ? q->exception
		 : q->status               ? q->status
					   : "");
	for (int i = 0; i < n; i++) {
		int w = ui_width(f[i], -1);
		if (w == 0 || x + 2 + w > r.x + r.w) {
			if (i == n - 1 && w > 0 && x + 3 < r.x + r.w)
				x += 2 + ui_put(r.y, x + 2, UI_REVERSE, f[i],
						r.x + r.w - x - 2);
			continue; /* the status may be cut: it is last */
		}
		x += 1 + (i > 0);
		x += ui_put(r.y, x, UI_REVERSE, f[i], w);
	}
}

/* The scrollback from the bottom up (scroll lines above the end); a line
 * wider than the pane wraps instead of being cut (an error message says
 * what failed first, and its end says where). */
void pane_output(ui_rect r, sl_model *m)
{
	ui_rect in = pane_inner(r);
	int n = sl_model_out_count(m), scroll = sl_model_out_scroll(m);
	int y = in.y + in.h; /* the next row up is y - 1 */
	char title[80];

	if (scroll > 0)
		snprintf(title, sizeof title,
			 "output (%d lines up: PgDn goes back)", scroll);
	else
		snprintf(title, sizeof title, "output");
	ui_box(r, title);
	if (in.w <= 0)
		return;
	for (int i = n - scroll - 1; i >= 0 && y > in.y; i--) {
		bool err = false;
		const char *s = sl_model_out_line(m, i, &err);
		int start[PANE_WRAP_MAX], rows;

		if (s == NULL)
			continue;
		rows = pane_wrap(s, in.w, start);
		for (int k = rows - 1; k >= 0 && y > in.y; k--) {
			int end = k + 1 < rows ? start[k + 1] : (int)strlen(s);
			ui_putn(--y, in.x, err ? UI_BAD : UI_NORMAL,
				s + start[k], end - start[k], in.w);
		}
	}
}

void pane_input(ui_rect r, const char *prompt, const char *text, int point)
{
	int pw = ui_width(prompt, -1), cw = ui_width(text, point);
	int room = r.w - pw - 1, skip = 0;
	const char *shown = text;

	ui_put(r.y, r.x, UI_BOLD, prompt, r.w);
	/* scroll sideways: show the tail so the cursor stays on screen */
	if (room > 2 && cw > room) {
		while (*shown && ui_width(shown, point - (int)(shown - text)) >
				     room - 1) {
			shown++;
			while ((*shown & 0xC0) == 0x80)
				shown++;
		}
		skip = 1;
		ui_put(r.y, r.x + pw, UI_DIM, "<", 1);
	}
	ui_put(r.y, r.x + pw + skip, UI_NORMAL, shown, r.w - pw - skip);
	ui_cursor(r.y, r.x + pw + skip +
			   ui_width(shown, point - (int)(shown - text)));
}
