/*
 * pane_late: the rows dropped as late (newest first): the batch, the
 * row's event time, the row, the windows it missed and the watermark that
 * excluded it (LESSONS.md 5 V3); then bad records with their reasons.
 * Everything comes from the feed's LATE_ROW and BAD_RECORD events.
 */
#include <stdio.h>

#include "pane.h"

void pane_late(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	char title[80], line[700], t[16];
	int y = in.y;

	snprintf(title, sizeof title, "late / bad records%s",
		 q && q->nlate ? "  (newest first)" : "");
	ui_box(r, title);
	if (q == NULL || q->nlate == 0) {
		pane_empty(in,
			   q ? "(no data yet: no row dropped as late)" : NULL);
		return;
	}
	for (int i = 0; i < q->nlate && y < in.y + in.h; i++) {
		const model_late *l = sl_model_late(q, i);

		if (l->bad) {
			snprintf(line, sizeof line, "b%lld BAD %s",
				 (long long)l->batch, l->text ? l->text : "");
			ui_put(y++, in.x, UI_BAD, line, in.w);
			continue;
		}
		sl_model_hms(l->event_us, t, sizeof t);
		snprintf(line, sizeof line, "b%lld %s DROPPED %s",
			 (long long)l->batch, t, l->row ? l->row : "");
		ui_put(y++, in.x, UI_BAD, line, in.w);
		if (y >= in.y + in.h)
			break;
		snprintf(line, sizeof line, "   missed %s  wm %s",
			 l->windows && l->windows[0] ? l->windows
						     : "(no window)",
			 l->watermark ? l->watermark : "-");
		ui_put(y++, in.x, UI_NORMAL, line, in.w);
	}
}
