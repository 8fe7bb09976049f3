/*
 * pane_late: the rows dropped as late (newest first), each as one flowing
 * line (pane_flow.c): the batch, the row's event time, the row's own
 * fields (`word=donkey`; the event-time column is the time already shown),
 * the windows it missed and the watermark that excluded it (LESSONS.md 5
 * V3); then bad records with their reasons.  What matters comes first and
 * wraps rather than being cut at the edge; when rows do not fit, the
 * oldest are left out and the last row says how many (F6 or :zoom late
 * shows them).  Everything comes from the feed's LATE_ROW and BAD_RECORD
 * events.
 */
#include <stdio.h>
#include <string.h>

#include "pane.h"

#define SEGS 24

/* The segments of late row l into seg (text in buf); returns the count. */
static int late_segs(const model_late *l, pane_seg *seg, char *buf, size_t bn)
{
	char *p = buf, *end = buf + bn;
	int n = 0;

	snprintf(p, (size_t)(end - p), "b%lld", (long long)l->batch);
	seg[n++] = (pane_seg){ p, UI_BOLD, 0 };
	p += strlen(p) + 1;
	if (l->bad) {
		seg[n++] = (pane_seg){ "BAD", UI_BAD, 0 };
		seg[n++] = (pane_seg){ l->text ? l->text : "", UI_NORMAL, 0 };
		return n;
	}
	sl_model_hms(l->event_us, p, (size_t)(end - p));
	seg[n++] = (pane_seg){ p, UI_NORMAL, 0 };
	p += strlen(p) + 1;
	if (l->fields) {
		snprintf(p, (size_t)(end - p), "%s", l->fields);
		for (char *f = p; f && n < SEGS - 2;) {
			char *tab = strchr(f, '\t');
			if (tab)
				*tab = '\0';
			seg[n++] = (pane_seg){ f, UI_BAD, 0 };
			f = tab ? tab + 1 : NULL;
		}
		p += strlen(l->fields) + 1;
	} else {
		seg[n++] = (pane_seg){ l->row ? l->row : "", UI_BAD, 0 };
	}
	if (p < end) {
		snprintf(p, (size_t)(end - p), "missed %s",
			 l->windows && l->windows[0] ? l->windows
						     : "(no window)");
		seg[n++] = (pane_seg){ p, UI_NORMAL, 0 };
		p += strlen(p) + 1;
	}
	if (p < end) {
		snprintf(p, (size_t)(end - p), "wm %s",
			 l->watermark ? l->watermark : "-");
		seg[n++] = (pane_seg){ p, UI_WARN, 0 };
	}
	return n;
}

void pane_late(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	char title[80], buf[1200];
	pane_seg seg[SEGS];
	int y = in.y, shown = 0;

	snprintf(title, sizeof title, "late / bad records%s",
		 q && q->nlate && r.w >= 46 ? "  (newest first)" : "");
	ui_box(r, title);
	if (q == NULL || q->nlate == 0) {
		pane_empty(in,
			   q ? "(no data yet: no row dropped as late)" : NULL);
		return;
	}
	for (int i = 0; i < q->nlate && y < in.y + in.h; i++) {
		const model_late *l = sl_model_late(q, i);
		int n = late_segs(l, seg, buf, sizeof buf);
		int rows = pane_flow(in, y, 3, seg, n, false, NULL);
		bool last = i + 1 < q->nlate;

		/* a row that would be cut is left out, and so are the
		 * older ones; the last line says so */
		if (y + rows + (last ? 1 : 0) > in.y + in.h &&
		    !(shown == 0 && rows >= in.h))
			break;
		pane_flow(in, y, 3, seg, n, true, NULL);
		y += rows;
		shown++;
	}
	if (shown < q->nlate && y < in.y + in.h)
		ui_printf(y, in.x, UI_DIM, in.w, "+%d older (F6 zooms)",
			  q->nlate - shown);
}
