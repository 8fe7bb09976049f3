/*
 * pane: layout and drawing of the workbench's panes, one file each
 * (pane_windows.c, pane_watermark.c, pane_late.c, pane_ckpt.c,
 * pane_output.c, pane_views.c).  A pane reads the model and draws inside
 * its rectangle through ui.h; it never calls the engine or Lua, so the
 * screen can redraw at any moment (a resize, a Lua hook).
 *
 * Titles are the names the issue and the lessons use ("windows",
 * "watermark", "late / bad records", "checkpoint"): tests look for them.
 */
#ifndef SL_PANE_H
#define SL_PANE_H

#include "model.h"
#include "ui.h"

/* The views :view and F2..F5 switch between. */
typedef enum pane_view {
	VIEW_MAIN = 0,
	VIEW_SCATTER,
	VIEW_STATE,
	VIEW_KAFKA
} pane_view;

/* Where every pane goes for a terminal of rows x cols. */
typedef struct pane_layout {
	ui_rect strip;                          /* the queries strip, one row */
	ui_rect windows, watermark, late, ckpt; /* VIEW_MAIN */
	ui_rect view;     /* the other views: the four panes' area */
	ui_rect live;     /* the SQL mode's live result, or h 0 (none) */
	ui_rect progress; /* one row */
	ui_rect output;
	ui_rect input; /* one row */
} pane_layout;

void pane_layout_for(int rows, int cols, pane_layout *l);
/* Make room for the live result (want rows, at most half the panes'
 * area) between the panes and the progress line. */
void pane_layout_live(pane_layout *l, int want);

void pane_strip(ui_rect r, sl_model *m);
void pane_windows(ui_rect r, model_query *q);
void pane_watermark(ui_rect r, model_query *q);
void pane_late(ui_rect r, model_query *q);
void pane_ckpt(ui_rect r, model_query *q);
void pane_progress(ui_rect r, model_query *q);
void pane_output(ui_rect r, sl_model *m);
/* The input line; places the cursor.  point is a byte offset in text. */
void pane_input(ui_rect r, const char *prompt, const char *text, int point);
void pane_scatter(ui_rect r, model_query *q);
void pane_state(ui_rect r, model_query *q);
void pane_kafka(ui_rect r, model_query *q);
/* The SQL mode's live result (pane_live.c): a box titled title holding
 * the table's lines (text, as show() draws it) from its top; lines that
 * do not fit are counted on the last row. */
void pane_live(ui_rect r, const char *title, const char *table);

/* Shared helpers (pane_output.c). */
/* "(no data yet)" (or why) inside r, dimmed. */
void pane_empty(ui_rect r, const char *why);
/* "2026-01-01T12:15:00.000Z" -> "12:15:00" into out (32 bytes); "-"
 * for NULL. */
const char *pane_short_time(const char *iso, char *out);
/* The inside of a boxed pane. */
ui_rect pane_inner(ui_rect r);

/* Flowing a line of segments (pane_flow.c). */
typedef struct pane_seg {
	const char *s; /* borrowed; NULL or "" is skipped */
	int attr;
	int pad; /* table column width (0: none), when the row has room */
} pane_seg;
/* Lay seg[0..n) from row y of in, one space apart; a segment that does
 * not fit moves whole to the next row (indented by indent columns); only
 * a segment wider than a row is broken (at spaces, long words split).
 * Draws when draw is true.  Returns the rows the line takes (drawn or
 * not); *cut (may be NULL) says some of it fell below in. */
int pane_flow(ui_rect in, int y, int indent, const pane_seg *seg, int n,
	      bool draw, bool *cut);
/* A line of text wrapped as a terminal wraps (by characters) at w
 * columns: the byte offset where each row starts into start[]; returns
 * the rows, 1 to PANE_WRAP_MAX (the last row holds the rest, clipped). */
#define PANE_WRAP_MAX 64
int pane_wrap(const char *s, int w, int *start);

/* ---- the pager (pane_pager.c) ---- */
/* Keys beyond bytes, decoded by the screen from escape sequences. */
enum {
	PK_PGUP = 0x100,
	PK_PGDN,
	PK_HOME,
	PK_END,
	PK_UP,
	PK_DOWN,
	PK_ESC, /* Esc alone */
	PK_F6,
	PK_ALT_LEFT, /* the batch before (:rewind) */
	PK_ALT_RIGHT /* the batch after */
};
enum { PAGER_KEEP, PAGER_CLOSE, PAGER_PASS };

typedef struct pane_pager {
	bool open;
	int64_t start, end; /* the result: absolute scrollback lines */
	int64_t top;        /* absolute line at the top */
	int64_t hit;        /* the last search match */
	bool searching;     /* typing after '/' */
	int w, page;        /* the last frame's width and text rows */
	int shown;          /* lines the last frame showed */
	char search[128];
	char msg[160];
} pane_pager;

/* Open p on the scrollback's absolute lines [start, end). */
void pane_pager_open(pane_pager *p, const sl_model *m, int64_t start,
		     int64_t end);
/* A key (byte or PK_*) with page rows of text on screen; burst: more keys
 * came with it.  PAGER_KEEP, PAGER_CLOSE, or PAGER_PASS (closes; the key
 * belongs to the input line). */
int pane_pager_key(pane_pager *p, const sl_model *m, int key, int page,
		   bool burst);
/* The pager over all of r (the terminal). */
void pane_pager_draw(ui_rect r, pane_pager *p, const sl_model *m);

#endif
