/*
 * ui: the drawing API of the workbench screen, and the only door to
 * curses (STYLE.md: one file includes <curses.h>).  Panes draw through
 * these few calls into one virtual screen; ui_flush sends the difference
 * to the terminal (curses' own diffing), so redrawing every pane from the
 * model on every frame costs only what changed.
 *
 * Coordinates are screen cells (row y, column x), 0-based.  Text is UTF-8
 * and is clipped by display columns (wcwidth), never by bytes.
 *
 * Keys: the screen reads raw bytes (keypad off) so that readline decodes
 * arrows and editing keys itself (TERMINAL-LUA-KAFKA.md 1.4 P2); the only
 * non-byte key is UI_KEY_RESIZE.  cbreak, not raw: Ctrl-C stays SIGINT.
 */
#ifndef SL_UI_H
#define SL_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ui_rect {
	int y, x, h, w;
} ui_rect;

/* Cell attributes (colours when the terminal has them). */
enum {
	UI_NORMAL = 0,
	UI_TITLE, /* pane titles */
	UI_DIM,   /* axis, hints, "(no data yet)" */
	UI_BOLD,
	UI_GOOD,    /* on time, committed */
	UI_WARN,    /* watermark, updated rows */
	UI_BAD,     /* dropped, crash, errors */
	UI_REVERSE, /* the progress line, selections */
	UI_ATTR_COUNT
};

enum { UI_KEY_NONE = -1, UI_KEY_RESIZE = -2 };

/* Take the terminal, drawing to out and reading stdin (setlocale must
 * have run).  false when the terminal cannot host the screen (no terminfo
 * entry, not a tty). */
bool ui_open(FILE *out);
/* Give the terminal back (idempotent). */
void ui_close(void);
/* Current size in cells. */
void ui_size(int *rows, int *cols);
/* Start a frame: the virtual screen becomes blank. */
void ui_clear(void);
/* Write s (at most n bytes, or to its NUL when n < 0) at (y, x), clipped
 * to maxw columns; returns the columns used. */
int ui_putn(int y, int x, int attr, const char *s, int n, int maxw);
int ui_put(int y, int x, int attr, const char *s, int maxw);
/* printf into (y, x), clipped to maxw. */
int ui_printf(int y, int x, int attr, int maxw, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A frame around r with the title on its top edge ("+-- title ---+"). */
void ui_box(ui_rect r, const char *title);
/* Repeat the one-column character ch (ASCII or UTF-8) n times. */
void ui_hline(int y, int x, int attr, const char *ch, int n);
/* Where the terminal cursor rests after ui_flush. */
void ui_cursor(int y, int x);
void ui_flush(void);
/* Wait up to timeout_ms for a key: a byte 0..255, UI_KEY_RESIZE or
 * UI_KEY_NONE. */
int ui_getkey(int timeout_ms);

/* Draw into text instead of the terminal (line mode's :rewind prints the
 * panes): from ui_text_begin until ui_text_end the calls above fill a
 * rows x cols grid (no terminal needed, none touched; attributes are
 * dropped), and ui_text_end returns it as rows lines, trailing blanks cut
 * (malloc'd, the caller frees; NULL when out of memory) and goes back to
 * the terminal.  false: out of memory, or a grid is already open. */
bool ui_text_begin(int rows, int cols);
char *ui_text_end(void);

/* Display columns of the first n bytes of s (n < 0: to the NUL). */
int ui_width(const char *s, int n);

#endif
