/*
 * screen: the workbench loop (see screen.h).  Ties together the model
 * (model.c: what to draw), the panes (pane_*.c: how), the input line
 * (rl.c: readline), the commands (cmd.c) and curses (ui.c).
 *
 * Why a pipe behind fd 1 and 2: curses draws to a duplicate of the
 * terminal, and anything else that writes to stdout or stderr (a C
 * library's log line, Lua's io.write) goes into the pipe and from there,
 * line by line, into the Output pane.  The write end is non-blocking: a
 * flood that fills the pipe while Lua runs loses bytes instead of hanging
 * the program that is the pipe's only reader.
 *
 * Resize: curses turns SIGWINCH into UI_KEY_RESIZE; the layout is
 * recomputed and everything redrawn from the model (no text lives only in
 * curses).  While Lua runs the hook polls for it too.
 *
 * Keys: bytes go to readline as they come, except the escape sequences
 * the screen owns (F6, and Esc alone while a pane is zoomed), which are
 * read whole first (read_escape), and every key while the pager is open.
 * A sequence that is not ours goes on to readline byte for byte, so its
 * own bindings (PgUp/PgDn, F2..F5, Alt-B) work as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cmd.h"
#include "model.h"
#include "pane.h"
#include "rewind.h"
#include "rl.h"
#include "screen.h"
#include "sqlmode.h"
#include "driver/session.h"
#include "sl_lua.h"
#include "ui.h"

#define TICK_MS    100
#define HOOK_COUNT 10000
#define KEYQ       4096

typedef struct screen {
	sl_console *con;
	lua_State *L;
	sl_model *m;
	sl_rl *rl;
	pane_view view;
	pane_layout lay;
	int rows, cols;
	int64_t next_tick_ms;
	int pipe_rd; /* stdout/stderr of the process, or -1 */
	int saved_out, saved_err;
	FILE *tty;                /* where curses draws */
	unsigned char keyq[KEYQ]; /* bytes typed while Lua ran */
	int kq_head, kq_n;
	bool busy;
	char hint[200];    /* shown on the input line while waitkey waits */
	pane_pager pager;  /* over the last command's result, when open */
	int64_t busy_mark; /* scrollback mark when the command started */
	bool paced;        /* waitkey ran during the command (a lesson) */
	int zoom;          /* ZOOM_NONE or the pane on the whole screen */
	bool auto_zoom;    /* the Output pane zoomed for a tall result */
} screen;

/* :zoom and F6: one pane on the whole screen (strip, progress and input
 * lines stay). */
enum {
	ZOOM_NONE = 0,
	ZOOM_WATERMARK,
	ZOOM_WINDOWS,
	ZOOM_CKPT,
	ZOOM_LATE,
	ZOOM_OUTPUT,
	ZOOM_RESULT, /* the SQL mode's live result */
	ZOOM_COUNT
};
static const char *const zoom_names[ZOOM_COUNT] = {
	"", "watermark", "windows", "checkpoint", "late", "output", "result"
};

/* The smallest terminal the frame is drawn in (issue 13 item 6). */
#define MIN_COLS 80
#define MIN_ROWS 24

static screen *the_screen;
static volatile sig_atomic_t idle_sigint;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- drawing ---- */

static void relayout(screen *s)
{
	ui_size(&s->rows, &s->cols);
	pane_layout_for(s->rows, s->cols, &s->lay);
	/* Not rl_set_screen_size: it rewrites the size in the terminfo data
	 * curses shares (measured: after a resize curses saw 3 rows).  Our
	 * redisplay draws the line, so readline needs no width. */
}

static bool too_small(const screen *s)
{
	return s->rows < MIN_ROWS || s->cols < MIN_COLS;
}

/* Below the minimum: one centred line and nothing else. */
static void draw_small(screen *s)
{
	char msg[80];
	int w;

	snprintf(msg, sizeof msg, "streamlab needs at least %dx%d (now %dx%d)",
		 MIN_COLS, MIN_ROWS, s->cols, s->rows);
	w = (int)strlen(msg);
	ui_put(s->rows / 2, w < s->cols ? (s->cols - w) / 2 : 0, UI_BOLD, msg,
	       s->cols);
	ui_cursor(s->rows / 2, 0);
}

/* Where a zoomed pane goes: everything between the strip and the
 * progress line. */
static ui_rect zoom_rect(const screen *s)
{
	return (ui_rect){ 1, 0, s->rows - 3 > 1 ? s->rows - 3 : 1, s->cols };
}

/* The Output pane's rectangle now (zoomed or not). */
static ui_rect out_rect(const screen *s)
{
	return s->zoom == ZOOM_OUTPUT ? zoom_rect(s) : s->lay.output;
}

/* The live result's table and its box title, or NULL when none. */
static const char *live_table(screen *s, char *title, size_t n, int *lines)
{
	int64_t batch;
	bool changed;
	const char *t = sl_sqlmode_live_table(s->con, &batch, &changed);

	*lines = 0;
	if (t == NULL)
		return NULL;
	for (const char *p = t; *p; p++)
		*lines += *p == '\n';
	if (batch < 0)
		snprintf(title, n,
			 "result %s (%s mode), no batch yet: Ctrl-C "
			 "stops it",
			 sl_sqlmode_live(), sl_sqlmode_live_mode());
	else
		snprintf(title, n,
			 "result %s (%s mode) after batch %lld: "
			 "Ctrl-C stops it",
			 sl_sqlmode_live(), sl_sqlmode_live_mode(),
			 (long long)batch);
	return t;
}

static void draw_zoomed(screen *s, model_query *q)
{
	ui_rect z = zoom_rect(s);
	char title[200];
	const char *t;
	int lines;

	switch (s->zoom) {
	case ZOOM_RESULT:
		if ((t = live_table(s, title, sizeof title, &lines)) != NULL)
			pane_live(z, title, t);
		else
			pane_live(z, "result",
				  "(no live result: a streaming SELECT in the "
				  "SQL mode (:sql) makes one)\n");
		break;
	case ZOOM_WATERMARK: pane_watermark(z, q); break;
	case ZOOM_WINDOWS: pane_windows(z, q); break;
	case ZOOM_CKPT: pane_ckpt(z, q); break;
	case ZOOM_LATE: pane_late(z, q); break;
	default: pane_output(z, s->m); break;
	}
	ui_put(z.y, z.w - 29 > 0 ? z.w - 29 : 0, UI_DIM,
	       " F6 next pane, Esc: all ", 24);
}

static void draw_input(screen *s)
{
	const char *prompt, *text;
	int point;

	if (s->busy) {
		ui_put(s->lay.input.y, 0, s->hint[0] ? UI_BOLD : UI_DIM,
		       s->hint[0] ? s->hint : "(running: Ctrl-C stops it)",
		       s->cols);
		ui_cursor(s->lay.input.y, 0);
	} else {
		sl_rl_view(s->rl, &prompt, &text, &point);
		pane_input(s->lay.input, prompt, text, point);
	}
}

/* Rewound: the banner where the queries strip was (the panes below are
 * historical, the screen says so first). */
static void draw_strip(screen *s)
{
	char banner[400];

	if (!sl_model_rewound(s->m, NULL, NULL, NULL)) {
		pane_strip(s->lay.strip, s->m);
		return;
	}
	sl_rewind_banner(s->m, banner, sizeof banner);
	ui_hline(s->lay.strip.y, 0, UI_REVERSE, " ", s->cols);
	ui_put(s->lay.strip.y, 0, UI_REVERSE, banner, s->cols);
}

static void draw(screen *s)
{
	model_query *q = sl_model_shown(s->m);
	const char *live;
	char title[200];
	int lines;

	ui_clear();
	if (too_small(s)) {
		draw_small(s);
		ui_flush();
		return;
	}
	if (s->pager.open) {
		pane_pager_draw((ui_rect){ 0, 0, s->rows, s->cols }, &s->pager,
				s->m);
		ui_flush();
		return;
	}
	draw_strip(s);
	pane_layout_for(s->rows, s->cols, &s->lay);
	if (s->zoom == ZOOM_NONE &&
	    (live = live_table(s, title, sizeof title, &lines)) != NULL) {
		pane_layout_live(&s->lay, lines + 2);
		if (s->lay.live.h > 0)
			pane_live(s->lay.live, title, live);
	}
	if (s->zoom != ZOOM_NONE) {
		draw_zoomed(s, q);
	} else if (s->lay.view.h > 0) {
		switch (s->view) {
		case VIEW_SCATTER: pane_scatter(s->lay.view, q); break;
		case VIEW_STATE: pane_state(s->lay.view, q); break;
		case VIEW_KAFKA: pane_kafka(s->lay.view, q); break;
		default:
			pane_watermark(s->lay.watermark, q);
			pane_windows(s->lay.windows, q);
			pane_ckpt(s->lay.ckpt, q);
			pane_late(s->lay.late, q);
		}
	}
	if (s->zoom == ZOOM_NONE) {
		pane_progress(s->lay.progress, q);
		pane_output(s->lay.output, s->m);
	} else { /* under the zoomed pane */
		pane_progress((ui_rect){ s->rows - 2, 0, 1, s->cols }, q);
	}
	draw_input(s);
	ui_flush();
}

/* ---- output ---- */

static void out_write(void *ud, int stream, const char *str, size_t n)
{
	screen *s = ud;
	sl_model_out(s->m, stream, str, n);
}

static void drain_pipe(screen *s)
{
	char buf[4096];
	ssize_t n;

	if (s->pipe_rd < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	while ((n = read(s->pipe_rd, buf, sizeof buf)) > 0)
		sl_model_out(s->m, SL_CONSOLE_OUT, buf, (size_t)n);
}

static void log_line(void *ud, const char *line)
{
	screen *s = ud;
	sl_model_out(s->m, SL_CONSOLE_ERR, line, strlen(line));
	sl_model_out(s->m, SL_CONSOLE_ERR, "\n", 1);
}

static void refresh(screen *s)
{
	drain_pipe(s);
	sl_model_refresh(s->m, sl_lua_session(s->L));
}

/* Every query that starts is on the screen from its start, even one that
 * starts and stops inside one chunk before any refresh (a lesson's). */
static void on_query_event(void *ud, int event, sl_query *q, const char *json)
{
	screen *s = ud;

	(void)json;
	if (event == SL_LISTEN_STARTED)
		sl_model_adopt(s->m, q);
}

/* ---- Lua running: keep the panes alive ---- */

static void queue_key(screen *s, int c)
{
	if (s->kq_n < KEYQ)
		s->keyq[(s->kq_head + s->kq_n++) % KEYQ] = (unsigned char)c;
}

static void pump(lua_State *L, lua_Debug *ar)
{
	screen *s = the_screen;
	bool bg;
	int c;

	(void)L;
	(void)ar;
	if (s == NULL || now_ms() < s->next_tick_ms)
		return;
	s->next_tick_ms = now_ms() + TICK_MS;
	bg = !s->busy; /* a background batch's foreachBatch (sl_lua.h) */
	while ((c = ui_getkey(0)) != UI_KEY_NONE)
		if (c == UI_KEY_RESIZE)
			relayout(s);
		else {
			queue_key(s, c);
			/* a line typed: the batch yields to it (q:stop()) */
			if (bg && (c == '\r' || c == '\n'))
				sl_lua_stop_batch(1);
		}
	refresh(s);
	if (bg) {
		s->busy = true;
		snprintf(s->hint, sizeof s->hint, "%s",
			 "(a background batch is running: Enter or Ctrl-C "
			 "stops it)");
	}
	draw(s);
	if (bg) {
		s->busy = false;
		s->hint[0] = '\0';
	}
}

/* A wait in C (awaitTermination) is no Lua instruction: it calls this. */
static void wait_idle(void *ud)
{
	screen *s = ud;
	pump(s->L, NULL);
}

/* ---- readline hooks ---- */

static void h_redisplay(void *ud)
{
	(void)ud;
}

static void h_matches(void *ud, char **m, int n)
{
	screen *s = ud;
	sl_buf b;

	sl_buf_init(&b);
	for (int i = 0; i < n; i++) {
		if (b.len > 0 &&
		    (int)(b.len + strlen(m[i]) + 2) > s->cols - 2) {
			sl_model_out(s->m, SL_CONSOLE_OUT, b.p, b.len);
			sl_model_out(s->m, SL_CONSOLE_OUT, "\n", 1);
			sl_buf_clear(&b);
		}
		sl_buf_printf(&b, "%s%s", b.len ? "  " : "", m[i]);
	}
	if (b.len > 0) {
		sl_model_out(s->m, SL_CONSOLE_OUT, b.p, b.len);
		sl_model_out(s->m, SL_CONSOLE_OUT, "\n", 1);
	}
	sl_buf_release(&b);
}

static bool set_view(void *ud, const char *name)
{
	screen *s = ud;

	for (int i = 0; sl_cmd_views[i]; i++)
		if (strcmp(sl_cmd_views[i], name) == 0) {
			s->view = (pane_view)i;
			return true;
		}
	return false;
}

static void h_key(void *ud, const char *name)
{
	screen *s = ud;
	ui_rect o = out_rect(s);
	int page = o.h - 2 > 1 ? o.h - 3 : 1;

	if (strcmp(name, "PgUp") == 0)
		sl_model_out_scroll_by(s->m, page, o.h - 2);
	else if (strcmp(name, "PgDn") == 0)
		sl_model_out_scroll_by(s->m, -page, o.h - 2);
	else if (name[0] == 'F')
		s->view = (pane_view)(name[1] - '2');
}

/* Rows the result [start, end) takes at w columns, counted up to limit. */
static int result_rows(screen *s, int64_t start, int64_t end, int w, int limit)
{
	int rows = 0, wrap[PANE_WRAP_MAX];
	bool err;

	for (int64_t a = start; a < end && rows <= limit; a++) {
		const char *l =
		    sl_model_out_line(s->m, sl_model_out_index(s->m, a), &err);
		rows += pane_wrap(l ? l : "", w > 1 ? w : 1, wrap);
	}
	return rows;
}

/* A command ended.  Its result (from the echoed line on) taller than the
 * Output pane: the Output pane takes the whole screen until the next line
 * is entered (the prompt stays live: nothing typed is lost), and a result
 * taller than that opens the pager on its first line, as psql's opens
 * when a result does not fit the terminal.  Neither when the learner is
 * already typing the next line (keys waiting), nor after a lesson's chunk
 * that waited for keys (it was read as it ran). */
static void maybe_page(screen *s)
{
	ui_rect o = s->lay.output, z = zoom_rect(s);
	int64_t end, start = s->busy_mark > 0 ? s->busy_mark - 1 : 0;
	int rows;

	drain_pipe(s);
	end = sl_model_out_mark(s->m);
	if (s->paced || s->kq_n > 0)
		return;
	rows = result_rows(s, start, end, o.w - 2, z.h - 2);
	if (rows <= o.h - 2)
		return;
	/* a SQL result is a table: the pager at once, as psql's */
	if (rows <= z.h - 2 && !sl_sqlmode_on()) {
		if (s->zoom == ZOOM_NONE) {
			s->zoom = ZOOM_OUTPUT;
			s->auto_zoom = true;
		}
		return;
	}
	pane_pager_open(&s->pager, s->m, start, end);
}

static void h_busy(void *ud, bool running)
{
	screen *s = ud;

	s->busy = running;
	s->hint[0] = '\0'; /* a lesson's "press a key" ends with its chunk */
	if (running) {
		sl_model_out_scroll_by(s->m, -sl_model_out_scroll(s->m), 1);
		s->next_tick_ms = now_ms() + TICK_MS;
		s->busy_mark = sl_model_out_mark(s->m);
		s->paced = false;
		lua_sethook(s->L, pump, LUA_MASKCOUNT, HOOK_COUNT);
		return;
	}
	if (lua_gethook(s->L) == pump)
		lua_sethook(s->L, NULL, 0, 0);
	maybe_page(s);
}

static void h_echo(void *ud, const char *text)
{
	screen *s = ud;

	sl_model_out_scroll_by(s->m, -sl_model_out_scroll(s->m), 1);
	sl_model_out(s->m, SL_CONSOLE_OUT, text, strlen(text));
	sl_model_out(s->m, SL_CONSOLE_OUT, "\n", 1);
	if (s->auto_zoom) { /* the next line: the panes come back */
		s->zoom = ZOOM_NONE;
		s->auto_zoom = false;
	}
}

static int h_running(void *ud)
{
	screen *s = ud;
	return sl_session_active_count(sl_lua_session(s->L));
}

/* ---- :focus / :view ---- */

static bool c_focus(void *ud, const char *which)
{
	screen *s = ud;
	refresh(s);
	return sl_model_set_focus(s->m, which);
}

static const char *c_focus_id(void *ud)
{
	screen *s = ud;
	model_query *q;

	refresh(s);
	q = sl_model_focus(s->m);
	return q ? q->id : NULL;
}

/* :zoom NAME (a unique prefix); "" or the zoomed name again: all panes.
 * The zoomed name ("" for none), or NULL for an unknown one. */
static const char *c_zoom(void *ud, const char *name)
{
	screen *s = ud;
	size_t n = strlen(name);
	int found = -1;

	s->auto_zoom = false;
	if (n == 0 || (s->zoom != ZOOM_NONE &&
		       strncmp(zoom_names[s->zoom], name, n) == 0)) {
		s->zoom = ZOOM_NONE;
		return "";
	}
	if (strcmp(name, "ckpt") == 0)
		name = "checkpoint", n = strlen(name);
	for (int i = 1; i < ZOOM_COUNT; i++)
		if (strncmp(zoom_names[i], name, n) == 0) {
			if (found >= 0)
				return NULL; /* ambiguous */
			found = i;
		}
	if (found < 0)
		return NULL;
	s->zoom = found;
	return zoom_names[found];
}

/* ---- Lua's side of the screen: waitkey and view (for lessons) ---- */

/* After ESC: read the rest of the sequence; PgUp/PgDn scroll the Output
 * pane, F6 zooms, Esc unzooms (true: keep waiting); any other sequence is
 * one key. */
static int read_escape(screen *s, unsigned char *raw, int *n);
static void rewind_key(screen *s, int key);

static bool waitkey_escape(screen *s)
{
	ui_rect o = out_rect(s);
	unsigned char raw[16];
	int n, page = o.h - 2 > 1 ? o.h - 3 : 1;

	switch (read_escape(s, raw, &n)) {
	case PK_PGUP: sl_model_out_scroll_by(s->m, page, o.h - 2); break;
	case PK_PGDN: sl_model_out_scroll_by(s->m, -page, o.h - 2); break;
	case PK_F6: /* a teacher zooms a pane while the lesson waits */
		s->zoom = (s->zoom + 1) % ZOOM_COUNT;
		s->auto_zoom = false;
		break;
	case PK_ALT_LEFT: /* or steps a rewound screen */
		rewind_key(s, PK_ALT_LEFT);
		break;
	case PK_ALT_RIGHT: rewind_key(s, PK_ALT_RIGHT); break;
	case PK_ESC:
		if (s->zoom == ZOOM_NONE)
			return false;
		s->zoom = ZOOM_NONE;
		break;
	default: return false;
	}
	draw(s);
	return true;
}

static int l_waitkey(lua_State *L)
{
	screen *s = the_screen;
	int c = UI_KEY_NONE;
	char k[2];

	if (s == NULL)
		return 0;
	snprintf(s->hint, sizeof s->hint, "%s", luaL_optstring(L, 1, ""));
	s->paced = true;
	if (s->kq_n > 0) {
		c = s->keyq[s->kq_head];
		s->kq_head = (s->kq_head + 1) % KEYQ;
		s->kq_n--;
	} else {
		drain_pipe(s);
		refresh(s);
		draw(s);
		c = ui_getkey(TICK_MS);
		if (c == UI_KEY_RESIZE)
			relayout(s);
	}
	s->next_tick_ms = now_ms() + TICK_MS;
	if (c < 0)
		return 0;
	if (c == 27 && waitkey_escape(s))
		return 0; /* PgUp/PgDn scrolled the Output pane */
	sl_model_out_scroll_by(s->m, -sl_model_out_scroll(s->m), 1);
	s->hint[0] = '\0';
	k[0] = (char)c;
	k[1] = '\0';
	lua_pushstring(L, k);
	return 1;
}

static int l_view(lua_State *L)
{
	screen *s = the_screen;
	bool ok;

	if (s == NULL)
		return 0;
	ok = set_view(s, luaL_checkstring(L, 1));
	if (ok) {
		refresh(s);
		draw(s);
	}
	lua_pushboolean(L, ok);
	return 1;
}

/* W.focus(name or id) focuses that query, as :focus does (a lesson keeps
 * the panes on the query it teaches); W.focus() goes back to the newest
 * active one.  Returns whether a query matched. */
static int l_focus(lua_State *L)
{
	screen *s = the_screen;
	bool ok;

	if (s == NULL)
		return 0;
	refresh(s);
	ok = sl_model_set_focus(s->m, luaL_optstring(L, 1, NULL));
	if (ok)
		draw(s);
	lua_pushboolean(L, ok);
	return 1;
}

/* W.rewind(n) rewinds the panes to batch n of the focused query, as
 * :rewind n does (true, or nil and the one-line error); W.live() returns
 * to the live panes.  For lessons (L.rewind). */
static int l_rewind(lua_State *L)
{
	screen *s = the_screen;
	char msg[600];
	lua_Integer n = luaL_checkinteger(L, 1);

	if (s == NULL)
		return 0;
	refresh(s);
	if (sl_model_rewind(s->m, n < 0 ? -1 : (int64_t)n, msg, sizeof msg) <
	    0) {
		luaL_pushfail(L);
		lua_pushstring(L, msg);
		return 2;
	}
	draw(s);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_live(lua_State *L)
{
	screen *s = the_screen;

	(void)L;
	if (s == NULL)
		return 0;
	sl_model_live(s->m);
	draw(s);
	return 0;
}

/* W.waitkey, W.view and W.focus in package.loaded["streamlab.workbench"]. */
static void register_lua(lua_State *L)
{
	sl_cmd_push_workbench(L);
	lua_pushcfunction(L, l_waitkey);
	lua_setfield(L, -2, "waitkey");
	lua_pushcfunction(L, l_view);
	lua_setfield(L, -2, "view");
	lua_pushcfunction(L, l_focus);
	lua_setfield(L, -2, "focus");
	lua_pushcfunction(L, l_rewind);
	lua_setfield(L, -2, "rewind");
	lua_pushcfunction(L, l_live);
	lua_setfield(L, -2, "live");
	lua_pop(L, 1);
}

/* Run the start-up chunk as if typed, the panes alive meanwhile. */
static bool run_start(screen *s, const char *chunk)
{
	int st;

	h_busy(s, true);
	s->paced =
	    true; /* the start-up chunk is not a typed command: no pager */
	st = sl_console_eval_chunk(s->con, chunk, "=(lesson)");
	h_busy(s, false);
	s->hint[0] = '\0';
	refresh(s);
	draw(s);
	return st != SL_CONSOLE_EXIT;
}

/* ---- setup ---- */

static void on_sigint(int sig)
{
	(void)sig;
	idle_sigint = 1;
}

/* fd 1 and 2 into a pipe; curses gets a duplicate of the terminal. */
static bool capture_output(screen *s)
{
	int p[2], fd;

	s->pipe_rd = s->saved_out = s->saved_err = -1;
	fflush(stdout);
	fflush(stderr);
	if ((fd = dup(1)) < 0 || (s->tty = fdopen(fd, "w")) == NULL)
		return false;
	if (pipe(p) < 0)
		return true; /* draw anyway; stray output may show */
	s->saved_out = dup(1);
	s->saved_err = dup(2);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	dup2(p[1], 1);
	dup2(p[1], 2);
	close(p[1]);
	s->pipe_rd = p[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	return true;
}

static void release_output(screen *s)
{
	fflush(stdout);
	fflush(stderr);
	if (s->saved_out >= 0) {
		dup2(s->saved_out, 1);
		dup2(s->saved_err, 2);
		close(s->saved_out);
		close(s->saved_err);
	}
	if (s->pipe_rd >= 0)
		close(s->pipe_rd);
	if (s->tty)
		fclose(s->tty);
}

static char *history_path(void)
{
	const char *home = getenv("HOME");
	char *p;

	if (home == NULL || home[0] == '\0')
		return NULL;
	if (asprintf(&p, "%s/.streamlab_history", home) < 0)
		return NULL;
	return p;
}

static const char welcome[] =
    "streamlab 0.1.0: Spark Structured Streaming, in Lua. Try:\n"
    "  df = spark.createDataFrame({{1, \"a\"}, {2, \"b\"}}, \"id INT, name STRING\")\n"
    "  df:show()\n"
    "Type :help for help, Tab to complete, Ctrl-D to quit.\n";

/* The next input byte: the ones typed while Lua ran come first. */
static int next_byte(screen *s, int timeout_ms)
{
	int c;

	if (s->kq_n > 0) {
		c = s->keyq[s->kq_head];
		s->kq_head = (s->kq_head + 1) % KEYQ;
		s->kq_n--;
		return c;
	}
	c = ui_getkey(timeout_ms);
	if (c == UI_KEY_RESIZE) {
		relayout(s);
		return UI_KEY_NONE;
	}
	return c;
}

/* After ESC: the rest of its sequence into raw (ESC first, *n bytes);
 * the key it names (PK_*), PK_ESC for Esc alone, 0 for a sequence that is
 * not ours (readline's: Alt-B, a bracketed paste's start, ...). */
static int read_escape(screen *s, unsigned char *raw, int *n)
{
	static const struct {
		const char *seq;
		int key;
	} keys[] = {
		{ "[5~", PK_PGUP },        { "[6~", PK_PGDN },
		{ "[H", PK_HOME },         { "[1~", PK_HOME },
		{ "[7~", PK_HOME },        { "OH", PK_HOME },
		{ "[F", PK_END },          { "[4~", PK_END },
		{ "[8~", PK_END },         { "OF", PK_END },
		{ "[A", PK_UP },           { "OA", PK_UP },
		{ "[B", PK_DOWN },         { "OB", PK_DOWN },
		{ "[17~", PK_F6 },         { "[1;3D", PK_ALT_LEFT },
		{ "[1;3C", PK_ALT_RIGHT },
	};
	int c = next_byte(s, 30);

	*n = 1;
	raw[0] = 27;
	if (c < 0)
		return PK_ESC;
	raw[(*n)++] = (unsigned char)c;
	if (c == 'O') {
		if ((c = next_byte(s, 30)) >= 0)
			raw[(*n)++] = (unsigned char)c;
	} else if (c == '[') {
		while (*n < 15 && (c = next_byte(s, 30)) >= 0) {
			raw[(*n)++] = (unsigned char)c;
			if (c >= 0x40 && c <= 0x7e)
				break;
		}
	}
	raw[*n] = '\0';
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp((const char *)raw + 1, keys[i].seq) == 0)
			return keys[i].key;
	return 0;
}

/* Alt-Left / Alt-Right: the batch before or after the one shown (from
 * the live panes, Alt-Left rewinds to the last committed batch).  An
 * error (no checkpoint, the first batch) is a line in the Output pane;
 * the screen stays as it was. */
static void rewind_key(screen *s, int key)
{
	char msg[600];

	refresh(s);
	if (sl_model_rewind_step(s->m, key == PK_ALT_LEFT ? -1 : 1, msg,
				 sizeof msg) < 0) {
		sl_model_out(s->m, SL_CONSOLE_ERR, msg, strlen(msg));
		sl_model_out(s->m, SL_CONSOLE_ERR, "\n", 1);
	}
}

/* A key for the open pager; true when the pager took it. */
static bool pager_key(screen *s, int key)
{
	bool burst = s->kq_n > 0;
	int r, d;

	if (!burst && key >= 0x20 && key < 0x7f &&
	    (d = ui_getkey(0)) != UI_KEY_NONE) {
		if (d == UI_KEY_RESIZE)
			relayout(s);
		else {
			queue_key(s, d);
			burst = true;
		}
	}
	r = key == 0 ? PAGER_PASS
		     : pane_pager_key(&s->pager, s->m, key, s->rows - 2, burst);
	if (r == PAGER_KEEP)
		return true;
	s->pager.open = false;
	return r == PAGER_CLOSE;
}

/* One key from the terminal (c, a byte); false when the session ended. */
static bool handle_key(screen *s, int c)
{
	unsigned char raw[16];
	int n = 1, key = c;

	raw[0] = (unsigned char)c;
	if (c == 27)
		key = read_escape(s, raw, &n);
	if (s->pager.open && pager_key(s, key))
		return true;
	if (key == PK_F6) {
		s->zoom = (s->zoom + 1) % ZOOM_COUNT;
		s->auto_zoom = false;
		return true;
	}
	if (key == PK_ALT_LEFT || key == PK_ALT_RIGHT) {
		rewind_key(s, key);
		return true;
	}
	if (key == PK_ESC && s->zoom != ZOOM_NONE) {
		s->zoom = ZOOM_NONE;
		s->auto_zoom = false;
		return true;
	}
	for (int i = 0; i < n; i++)
		if (!sl_rl_feed_byte(s->rl, raw[i]))
			return false;
	return true;
}

/* One pass of the loop; false when the session ended. */
static bool step(screen *s)
{
	int c = UI_KEY_NONE;
	int64_t wait = s->next_tick_ms - now_ms();

	if (idle_sigint) {
		idle_sigint = 0;
		s->kq_n = 0;
		s->pager.open = false;
		sl_rl_interrupt(s->rl);
		return true;
	}
	if (s->kq_n > 0) {
		c = next_byte(s, 0);
	} else {
		c = ui_getkey(wait < 0         ? 0
			      : wait > TICK_MS ? TICK_MS
					       : (int)wait);
	}
	if (c == UI_KEY_RESIZE)
		relayout(s);
	else if (c >= 0 && !handle_key(s, c))
		return false;
	if (now_ms() >= s->next_tick_ms) {
		s->next_tick_ms = now_ms() + TICK_MS;
		if (sl_lua_tick_due(s->L))
			sl_lua_tick(s->L);
		refresh(s);
		sl_sqlmode_poll(s->con, false); /* the live query ended? */
	} else if (c >= 0) {
		refresh(s);
	}
	if (s->kq_n == 0)
		draw(s);
	return true;
}

static const sl_rl_hooks *hooks_for(screen *s)
{
	static sl_rl_hooks h;

	h = (sl_rl_hooks){ s,      h_redisplay, h_matches, h_key,
			   h_busy, h_echo,      h_running };
	return &h;
}

int sl_screen_run(sl_console *c)
{
	return sl_screen_run_chunk(c, NULL);
}

int sl_screen_run_chunk(sl_console *c, const char *chunk)
{
	static screen s;
	static sl_cmd_screen cs;
	struct sigaction sa, old;
	char *hist;
	int code, listener;

	memset(&s, 0, sizeof s);
	s.con = c;
	s.L = sl_console_state(c);
	if (!capture_output(&s) || (s.m = sl_model_new()) == NULL ||
	    !ui_open(s.tty)) {
		release_output(&s);
		sl_model_free(s.m);
		return sl_rl_run(c);
	}
	the_screen = &s;
	/* bracketed paste: a pasted block is one input (rl.c) */
	fputs("\033[?2004h", s.tty);
	fflush(s.tty);
	sl_model_set_log(s.m, log_line, &s);
	listener = sl_session_add_listener(sl_lua_session(s.L), on_query_event,
					   &s, NULL);
	sl_console_set_writer(c, out_write, &s);
	sl_console_set_idle(c, wait_idle, &s);
	cs = (sl_cmd_screen){ &s, c_focus, set_view, c_focus_id, c_zoom };
	sl_cmd_set_screen(&cs);
	sl_rewind_attach(s.m, false);
	sl_model_out(s.m, SL_CONSOLE_OUT, welcome, strlen(welcome));
	hist = history_path();
	s.rl = sl_rl_open_screen(c, hist, hooks_for(&s));
	free(hist);
	relayout(&s);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	register_lua(s.L);
	refresh(&s);
	draw(&s);
	if (s.rl && chunk && !run_start(&s, chunk))
		code = sl_console_exit_code(c);
	else {
		while (s.rl && step(&s))
			;
		code = s.rl ? sl_rl_exit_code(s.rl) : 1;
	}
	sigaction(SIGINT, &old, NULL);
	sl_rl_close(s.rl);
	sl_cmd_set_screen(NULL);
	sl_rewind_attach(NULL, false);
	if (listener > 0)
		sl_session_remove_listener(sl_lua_session(s.L), listener);
	sl_console_set_writer(c, NULL, NULL);
	sl_console_set_idle(c, NULL, NULL);
	fputs("\033[?2004l", s.tty);
	ui_close();
	release_output(&s);
	sl_model_free(s.m);
	the_screen = NULL;
	return code;
}
