/*
 * pane_flow: lay a line of segments into a pane so nothing is cut at its
 * edge (issue 13 item 4: "panes never cut the fact").
 *
 * A line is a list of segments ("b4", "12:04:00", "word=donkey",
 * "missed [12:00:00,12:10:00)", "wm 12:15:00"), the one that matters most
 * first.  Segments are units: they are separated by one space (or padded
 * to a column width in a table) and a segment that does not fit in what is
 * left of the row moves whole to the next row, indented.  Only a segment
 * wider than a whole row is broken, at its spaces, and a word wider than
 * a row is split across rows.  So a value (a time, a key) is either on the
 * screen whole or, when the pane has no more rows, not at all; the caller
 * then says how many items did not fit.
 *
 * Pads (a table's column widths) count only when the whole line fits on
 * one row; a wrapped line is packed.
 *
 * The same walk measures (draw false) and draws, so a pane can plan how
 * many items fit before it draws the newest ones.
 */
#include <string.h>

#include "pane.h"

typedef struct flow {
	ui_rect in;
	int y, x, indent, rows;
	bool draw, cut;
	bool used; /* the current row holds something */
} flow;

static void newline(flow *f)
{
	f->y++;
	f->rows++;
	f->x = f->indent;
	f->used = false;
}

static bool room(const flow *f)
{
	return f->y < f->in.y + f->in.h;
}

static void put(flow *f, const char *s, int n, int attr)
{
	if (f->draw && room(f))
		ui_putn(f->y, f->in.x + f->x, attr, s, n, f->in.w - f->x);
	else if (!room(f))
		f->cut = true;
	f->x += ui_width(s, n);
	f->used = true;
}

/* Length in bytes of the longest prefix of s (n bytes) at most w columns. */
static int fit_bytes(const char *s, int n, int w)
{
	int i = 0, used = 0;

	while (i < n) {
		int k = 1, cw;
		while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80)
			k++;
		cw = ui_width(s + i, k);
		if (used + cw > w)
			break;
		used += cw;
		i += k;
	}
	return i;
}

/* A segment wider than a row: its words, wrapped; long words split. */
static void put_words(flow *f, const char *s, int attr)
{
	while (*s) {
		int n = (int)strcspn(s, " "), w = ui_width(s, n);

		if (f->used && f->x + 1 + w > f->in.w)
			newline(f);
		else if (f->used)
			put(f, " ", 1, attr);
		while (w > f->in.w - f->x && f->in.w - f->x > 0) {
			int k = fit_bytes(s, n, f->in.w - f->x);
			if (k == 0)
				break;
			put(f, s, k, attr);
			s += k;
			n -= k;
			w = ui_width(s, n);
			newline(f);
		}
		put(f, s, n, attr);
		s += n;
		s += strspn(s, " ");
	}
}

int pane_flow(ui_rect in, int y, int indent, const pane_seg *seg, int n,
	      bool draw, bool *cut)
{
	flow f = { in, y, 0, indent, 1, draw, false, false };
	int total = 0;
	bool pads;

	if (f.indent > in.w / 2)
		f.indent = in.w / 2;
	for (int i = 0; i < n; i++) { /* pads only when one row holds all */
		int w = seg[i].s ? ui_width(seg[i].s, -1) : 0;
		if (w > 0)
			total +=
			    (total ? 1 : 0) + (seg[i].pad > w ? seg[i].pad : w);
	}
	pads = total <= in.w;
	for (int i = 0; i < n; i++) {
		const char *s = seg[i].s ? seg[i].s : "";
		int w = ui_width(s, -1);

		if (s[0] == '\0')
			continue;
		if (f.used && f.x + 1 + w > in.w)
			newline(&f);
		else if (f.used)
			put(&f, " ", 1, UI_NORMAL);
		if (f.x + w > in.w)
			put_words(&f, s, seg[i].attr);
		else
			put(&f, s, -1, seg[i].attr);
		f.used = true;
		if (pads && seg[i].pad > w)
			f.x += seg[i].pad - w;
	}
	if (cut)
		*cut = f.cut;
	return f.rows;
}

int pane_wrap(const char *s, int w, int *start)
{
	int n = 0, i = 0, len = (int)strlen(s);

	start[n++] = 0;
	while (i < len && n < PANE_WRAP_MAX) {
		int used = 0;
		while (i < len) {
			int k = 1, cw;
			while (i + k < len &&
			       ((unsigned char)s[i + k] & 0xC0) == 0x80)
				k++;
			cw = ui_width(s + i, k);
			if (used + cw > w && used > 0)
				break;
			used += cw;
			i += k;
		}
		if (i < len)
			start[n++] = i;
	}
	return n;
}
