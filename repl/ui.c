/*
 * ui: the curses side of the workbench (see ui.h).  The only file of the
 * project that includes <curses.h>.
 *
 * Everything is drawn on stdscr: the panes are regions of one virtual
 * screen, not separate WINDOWs, so a resize only needs a new layout and a
 * redraw from the model (nothing lives in curses that the model does not
 * have: TERMINAL-LUA-KAFKA.md 1.4 P7).  wgetch on stdscr refreshes it
 * first, so the cursor the input line placed is where the terminal shows
 * it (P4).
 */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/utf8.h"
#include "ui.h"

static bool ui_is_open;
static attr_t ui_attrs[UI_ATTR_COUNT];

/* The text grid of ui_text_begin: rows x cols cells, each one character's
 * UTF-8 bytes ("" for the right half of a wide one), or NULL when the
 * calls draw on the terminal. */
#define CELL 5
static char (*txt)[CELL];
static int txt_rows, txt_cols;

static void ui_colors(void)
{
	static const struct {
		int attr, fg;
		attr_t extra;
	} map[] = {
		{ UI_TITLE, COLOR_CYAN, A_BOLD },
		{ UI_GOOD, COLOR_GREEN, 0 },
		{ UI_WARN, COLOR_YELLOW, A_BOLD },
		{ UI_BAD, COLOR_RED, A_BOLD },
	};
	size_t i;

	ui_attrs[UI_NORMAL] = A_NORMAL;
	ui_attrs[UI_TITLE] = A_BOLD;
	ui_attrs[UI_DIM] = A_DIM;
	ui_attrs[UI_BOLD] = A_BOLD;
	ui_attrs[UI_GOOD] = A_NORMAL;
	ui_attrs[UI_WARN] = A_BOLD;
	ui_attrs[UI_BAD] = A_BOLD | A_UNDERLINE;
	ui_attrs[UI_REVERSE] = A_REVERSE;
	if (!has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	for (i = 0; i < sizeof map / sizeof map[0]; i++) {
		init_pair((short)(i + 1), (short)map[i].fg, -1);
		ui_attrs[map[i].attr] = COLOR_PAIR((int)i + 1) | map[i].extra;
	}
}

bool ui_open(FILE *out)
{
	if (ui_is_open)
		return true;
	/* newterm, not initscr: initscr exits the process on a bad TERM. */
	if (newterm(NULL, out, stdin) == NULL)
		return false;
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, FALSE);
	ui_colors();
	ui_is_open = true;
	return true;
}

void ui_close(void)
{
	if (!ui_is_open)
		return;
	endwin();
	ui_is_open = false;
}

void ui_size(int *rows, int *cols)
{
	if (txt != NULL) {
		*rows = txt_rows;
		*cols = txt_cols;
		return;
	}
	getmaxyx(stdscr, *rows, *cols);
}

void ui_clear(void)
{
	if (txt != NULL) {
		for (int i = 0; i < txt_rows * txt_cols; i++)
			memcpy(txt[i], " ", 2);
		return;
	}
	werase(stdscr);
}

bool ui_text_begin(int rows, int cols)
{
	if (txt != NULL || rows <= 0 || cols <= 0 ||
	    (txt = malloc((size_t)rows * (size_t)cols * CELL)) == NULL)
		return false;
	txt_rows = rows;
	txt_cols = cols;
	ui_clear();
	return true;
}

char *ui_text_end(void)
{
	size_t cap = (size_t)txt_rows * ((size_t)txt_cols * (CELL - 1) + 1) + 1;
	char *out = txt ? malloc(cap) : NULL, *p = out;

	for (int y = 0; out && y < txt_rows; y++) {
		char *line = p;
		for (int x = 0; x < txt_cols; x++) {
			size_t k = strlen(txt[y * txt_cols + x]);
			memcpy(p, txt[y * txt_cols + x], k);
			p += k;
		}
		while (p > line && p[-1] == ' ') /* trailing blanks */
			p--;
		*p++ = '\n';
	}
	if (p)
		*p = '\0';
	free(txt);
	txt = NULL;
	return out;
}

/* ui_putn into the text grid: the same clipping by display columns, but
 * UTF-8 by the engine's tables, not the locale's (a pipe in the C locale
 * still gets the em dash of the banner). */
static int text_putn(int y, int x, const char *s, size_t len, int maxw)
{
	size_t i = 0;
	int used = 0;

	while (i < len) {
		size_t k = sl_utf8_valid(s + i, len - i, NULL);
		char *c = txt[y * txt_cols + x + used];
		int w;

		if (k == 0 || (unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			if (used + 1 > maxw)
				break;
			memcpy(c, s[i] == '\t' || k > 0 ? " " : "?", 2);
			used++;
			i += k ? k : 1;
			continue;
		}
		w = (int)sl_utf8_width(s + i, k);
		if (w == 0) { /* a combining mark: not kept */
			i += k;
			continue;
		}
		if (used + w > maxw)
			break;
		memcpy(c, s + i, k);
		c[k] = '\0';
		if (w == 2)
			txt[y * txt_cols + x + used + 1][0] = '\0';
		used += w;
		i += k;
	}
	return used;
}

int ui_width(const char *s, int n)
{
	mbstate_t st;
	size_t len = n < 0 ? strlen(s) : (size_t)n, i = 0;
	int cols = 0;

	memset(&st, 0, sizeof st);
	while (i < len) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s + i, len - i, &st);
		int w;

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof st);
			k = 1;
			w = 1;
		} else {
			w = wcwidth(wc);
			if (w < 0)
				w = 0;
		}
		cols += w;
		i += k;
	}
	return cols;
}

int ui_putn(int y, int x, int attr, const char *s, int n, int maxw)
{
	mbstate_t st;
	size_t len = n < 0 ? strlen(s) : (size_t)n, i = 0;
	int rows, cols, used = 0;

	ui_size(&rows, &cols);
	if (y < 0 || y >= rows || x < 0 || x >= cols || maxw <= 0)
		return 0;
	if (maxw > cols - x)
		maxw = cols - x;
	if (txt != NULL)
		return text_putn(y, x, s, len, maxw);
	(void)attr;
	memset(&st, 0, sizeof st);
	wattrset(stdscr, ui_attrs[attr]);
	wmove(stdscr, y, x);
	while (i < len) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s + i, len - i, &st);
		int w;

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof st);
			if (used + 1 > maxw)
				break;
			waddch(stdscr, '?');
			used++;
			i++;
			continue;
		}
		w = wcwidth(wc);
		if (wc == L'\t' || (w < 0 && wc < 0x20))
			wc = L' ', w = 1;
		if (w < 0)
			w = 0;
		if (used + w > maxw)
			break;
		waddnstr(stdscr, s + i, (int)k);
		used += w;
		i += k;
	}
	wattrset(stdscr, A_NORMAL);
	return used;
}

int ui_put(int y, int x, int attr, const char *s, int maxw)
{
	return ui_putn(y, x, attr, s, -1, maxw);
}

int ui_printf(int y, int x, int attr, int maxw, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return ui_put(y, x, attr, buf, maxw);
}

void ui_hline(int y, int x, int attr, const char *ch, int n)
{
	for (int i = 0; i < n; i++)
		ui_put(y, x + i, attr, ch, 1);
}

void ui_box(ui_rect r, const char *title)
{
	if (r.h < 2 || r.w < 2)
		return;
	ui_put(r.y, r.x, UI_DIM, "+", 1);
	ui_hline(r.y, r.x + 1, UI_DIM, "-", r.w - 2);
	ui_put(r.y, r.x + r.w - 1, UI_DIM, "+", 1);
	for (int i = 1; i < r.h - 1; i++) {
		ui_put(r.y + i, r.x, UI_DIM, "|", 1);
		ui_put(r.y + i, r.x + r.w - 1, UI_DIM, "|", 1);
	}
	ui_put(r.y + r.h - 1, r.x, UI_DIM, "+", 1);
	ui_hline(r.y + r.h - 1, r.x + 1, UI_DIM, "-", r.w - 2);
	ui_put(r.y + r.h - 1, r.x + r.w - 1, UI_DIM, "+", 1);
	if (title && title[0] && r.w > 6) {
		int used =
		    ui_printf(r.y, r.x + 3, UI_TITLE, r.w - 6, " %s ", title);
		(void)used;
	}
}

void ui_cursor(int y, int x)
{
	if (txt == NULL)
		wmove(stdscr, y, x);
}

void ui_flush(void)
{
	if (txt == NULL)
		wrefresh(stdscr);
}

int ui_getkey(int timeout_ms)
{
	int c;

	wtimeout(stdscr, timeout_ms);
	c = wgetch(stdscr);
	if (c == KEY_RESIZE)
		return UI_KEY_RESIZE;
	if (c == ERR || c < 0 || c > 255)
		return UI_KEY_NONE;
	return c;
}
