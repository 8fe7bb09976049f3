/*
 * pane_pager: the pager over one command's result, as psql and DuckDB
 * open one for a result taller than the screen (less can't run inside
 * curses, so this is a small less): the whole terminal shows the result's
 * lines from its first, the command line; PgUp/PgDn (space, b), Home/End
 * (g, G), Up/Down (k, j) move; `/` searches forward, `n` and `N` find the
 * next and previous match; q or Esc go back to the prompt.
 *
 * The result is a range of the scrollback's absolute line numbers
 * (model.h), so output that arrives while the pager is open (a query's
 * console sink) does not move it, and lines that gave way to newer ones
 * (a result beyond MODEL_OUT_LINES) are simply not there.
 *
 * A key the pager does not know closes it and goes on to the input line
 * (PAGER_PASS): typing the next command just works.  So does a command
 * key that comes in one burst with more keys (the screen tells: pasted or
 * typed-ahead text, not a key pressed in the pager).
 */
#include <stdio.h>
#include <string.h>

#include "pane.h"

static int64_t first_line(const pane_pager *p, const sl_model *m)
{
	int64_t kept = sl_model_out_mark(m) - sl_model_out_count(m);

	return p->start > kept ? p->start : kept;
}

static const char *line_at(const sl_model *m, int64_t abs, bool *err)
{
	const char *s = sl_model_out_line(m, sl_model_out_index(m, abs), err);
	return s ? s : "";
}

/* Rows line abs takes on screen (it wraps at the last frame's width). */
static int rows_of(const pane_pager *p, const sl_model *m, int64_t abs)
{
	int start[PANE_WRAP_MAX];
	bool err;

	if (p->w <= 0)
		return 1;
	return pane_wrap(line_at(m, abs, &err), p->w, start);
}

/* The top line of the page that ends just before line `before`. */
static int64_t page_above(const pane_pager *p, const sl_model *m,
			  int64_t before, int page)
{
	int64_t t = before, f = first_line(p, m);
	int rows = 0;

	while (t > f && rows + rows_of(p, m, t - 1) <= page)
		rows += rows_of(p, m, --t);
	return t < before ? t : (before > f ? before - 1 : f);
}

/* The top of the last page: the result's end at the bottom. */
static int64_t last_top(const pane_pager *p, const sl_model *m, int page)
{
	return page_above(p, m, p->end, page);
}

static void clamp(pane_pager *p, const sl_model *m, int page)
{
	int64_t f = first_line(p, m), l = last_top(p, m, page);

	if (p->top > l)
		p->top = l;
	if (p->top < f)
		p->top = f;
}

void pane_pager_open(pane_pager *p, const sl_model *m, int64_t start,
		     int64_t end)
{
	memset(p, 0, sizeof *p);
	p->open = true;
	p->start = start;
	p->end = end;
	p->top = start;
	clamp(p, m, 1);
}

/* From the line after (or before) the top, the next line holding the
 * search text, wrapping around the result once; the top moves there. */
static void find(pane_pager *p, const sl_model *m, int dir)
{
	int64_t f = first_line(p, m), n = p->end - f;
	bool err;

	if (p->search[0] == '\0') {
		snprintf(p->msg, sizeof p->msg, "no search yet: / then text");
		return;
	}
	for (int64_t k = 1; k <= n; k++) {
		int64_t a = f + (((p->top - f) + dir * k) % n + n) % n;
		if (strstr(line_at(m, a, &err), p->search)) {
			bool wrapped = dir > 0 ? a < p->top : a > p->top;
			snprintf(p->msg, sizeof p->msg, "%s",
				 wrapped ? "search wrapped around" : "");
			p->top = a;
			p->hit = a;
			return;
		}
	}
	snprintf(p->msg, sizeof p->msg, "pattern not found: %.100s", p->search);
}

static int search_key(pane_pager *p, const sl_model *m, int key)
{
	size_t n = strlen(p->search);

	if (key == '\r' || key == '\n') {
		p->searching = false;
		find(p, m, 1);
	} else if (key == PK_ESC || key == 3 /* Ctrl-C */) {
		p->searching = false;
		p->search[0] = '\0';
	} else if (key == 127 || key == 8) {
		if (n > 0)
			p->search[n - 1] = '\0';
		else
			p->searching = false;
	} else if (key >= 0x20 && key < 0x100 && n + 1 < sizeof p->search) {
		p->search[n] = (char)key;
		p->search[n + 1] = '\0';
	}
	return PAGER_KEEP;
}

int pane_pager_key(pane_pager *p, const sl_model *m, int key, int page,
		   bool burst)
{
	if (page < 1)
		page = 1;
	if (p->searching)
		return search_key(p, m, key);
	/* a printable command key in a burst of typing is typing; but '/'
	 * starts no Lua line, so it always starts a search */
	if (burst && key >= 0x20 && key < 0x7f && key != '/')
		return PAGER_PASS;
	p->msg[0] = '\0';
	switch (key) {
	case 'q':
	case 'Q':
	case PK_ESC: return PAGER_CLOSE;
	case PK_PGDN:
	case ' ':
	case 'f':
	case 6: p->top += p->shown > 0 ? p->shown : page; break;
	case PK_PGUP:
	case 'b':
	case 2: p->top = page_above(p, m, p->top, page); break;
	case PK_DOWN:
	case 'j': p->top++; break;
	case PK_UP:
	case 'k': p->top--; break;
	case PK_HOME:
	case 'g':
	case '<': p->top = first_line(p, m); break;
	case PK_END:
	case 'G':
	case '>': p->top = last_top(p, m, page); break;
	case '/':
		p->searching = true;
		p->search[0] = '\0';
		return PAGER_KEEP;
	case 'n': find(p, m, 1); break;
	case 'N': find(p, m, -1); break;
	default: return PAGER_PASS;
	}
	clamp(p, m, page);
	return PAGER_KEEP;
}

void pane_pager_draw(ui_rect r, pane_pager *p, const sl_model *m)
{
	int page = r.h - 2 > 1 ? r.h - 2 : 1, y = r.y + 1;
	int64_t f, total, a;
	char head[200];
	bool err;

	p->w = r.w;
	p->page = page;
	clamp(p, m, page);
	f = first_line(p, m);
	total = p->end - f;
	for (a = p->top; a < p->end && y < r.y + 1 + page; a++) {
		const char *s = line_at(m, a, &err);
		int start[PANE_WRAP_MAX], rows = pane_wrap(s, r.w, start);
		int attr = a == p->hit && p->search[0] ? UI_WARN
			   : err                       ? UI_BAD
						       : UI_NORMAL;
		if (a > p->top && y + rows > r.y + 1 + page)
			break; /* the next line whole on the next page */
		for (int k = 0; k < rows && y < r.y + 1 + page; k++) {
			int e = k + 1 < rows ? start[k + 1] : (int)strlen(s);
			ui_putn(y++, r.x, attr, s + start[k], e - start[k],
				r.w);
		}
	}
	p->shown = (int)(a - p->top);
	ui_hline(r.y, r.x, UI_REVERSE, " ", r.w);
	snprintf(
	    head, sizeof head,
	    " output: lines %lld-%lld of %lld   PgUp/PgDn Home/End  / search  "
	    "n next  q back",
	    (long long)(p->top - f + 1), (long long)(a - f), (long long)total);
	ui_put(r.y, r.x, UI_REVERSE, head, r.w);
	if (p->searching) {
		ui_printf(r.y + r.h - 1, r.x, UI_BOLD, r.w, "/%s", p->search);
		ui_cursor(r.y + r.h - 1, r.x + 1 + ui_width(p->search, -1));
		return;
	}
	if (p->msg[0])
		ui_put(r.y + r.h - 1, r.x, UI_BAD, p->msg, r.w);
	else
		ui_put(r.y + r.h - 1, r.x, UI_REVERSE,
		       a >= p->end
			   ? "(END) q back to the prompt"
			   : "-- more -- PgDn/space on, q back to the prompt",
		       r.w);
	ui_cursor(r.y + r.h - 1, r.x);
}
