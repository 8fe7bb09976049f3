/*
 * pane_live: the SQL mode's live result (sqlmode.h), the changing table of
 * a streaming SELECT as Flink's SQL client shows one in its table mode:
 * the memory sink's rows after the last batch, drawn as show() draws them
 * (the screen reads the text; this pane only lays it out).  The table's
 * head stays; rows that do not fit are counted on the last line, and
 * `:zoom result` (or F6) gives the table the whole screen.
 */
#include <stdio.h>
#include <string.h>

#include "pane.h"

void pane_live(ui_rect r, const char *title, const char *table)
{
	ui_rect in = pane_inner(r);
	int lines = 0, y = in.y;
	const char *p;

	ui_box(r, title);
	if (in.h <= 0 || in.w <= 0)
		return;
	for (p = table; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
		lines++;
	for (p = table; *p && y < in.y + in.h; y++) {
		size_t n = strcspn(p, "\n");
		if (y == in.y + in.h - 1 && lines > in.h) {
			char more[80];
			snprintf(more, sizeof more,
				 "... %d more lines (:zoom result shows them)",
				 lines - (in.h - 1));
			ui_put(y, in.x, UI_DIM, more, in.w);
			break;
		}
		ui_putn(y, in.x, UI_NORMAL, p, (int)n, in.w);
		p += n + (p[n] != 0);
	}
}
