/*
 * rewind: :rewind, :live, :open (see rewind.h).
 *
 * Line mode has no screen, so it keeps a model of its own (plain.c
 * attaches it and adopts every query that starts), and a command prints
 * the four main panes, stacked, drawn by the same pane code into a text
 * grid (ui_text_begin): what the workbench would show, as lines a pipe
 * can compare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "pane.h"
#include "rewind.h"
#include "sl_lua.h"
#include "ui.h"

static sl_model *model;
static bool text_mode;
static sl_model *own; /* line modes' model */
static int listener;

void sl_rewind_attach(sl_model *m, bool text)
{
	model = m;
	text_mode = text;
}

/* Every query that starts is known to the line-mode model (:rewind acts
 * on it even once it stopped). */
static void on_query_event(void *ud, int event, sl_query *q, const char *json)
{
	(void)json;
	if (event == SL_LISTEN_STARTED)
		sl_model_adopt(ud, q);
}

void sl_rewind_text_begin(sl_console *c)
{
	if (own != NULL || (own = sl_model_new()) == NULL)
		return;
	listener = sl_session_add_listener(sl_lua_session(sl_console_state(c)),
					   on_query_event, own, NULL);
	sl_rewind_attach(own, true);
}

void sl_rewind_text_end(sl_console *c)
{
	if (own == NULL)
		return;
	if (listener > 0)
		sl_session_remove_listener(sl_lua_session(sl_console_state(c)),
					   listener);
	listener = 0;
	if (model == own)
		sl_rewind_attach(NULL, false);
	sl_model_free(own);
	own = NULL;
}

static void say(sl_console *c, int stream, const char *s)
{
	sl_console_write(sl_console_state(c), stream, s, strlen(s));
}

void sl_rewind_banner(const sl_model *m, char *out, size_t n)
{
	int64_t batch = -1, last = -1;
	const char *what = NULL, *mode;

	if (!sl_model_rewound(m, &batch, &last, &what)) {
		snprintf(out, n, "live");
		return;
	}
	mode = sl_model_rewound_mode(m);
	snprintf(out, n,
		 "REWOUND to batch %lld of %lld%s%s \xe2\x80\x94 :live to "
		 "return  (Alt-Left/Alt-Right: step)  %s",
		 (long long)batch, (long long)last, mode ? ", " : "",
		 mode ? mode : "", what ? what : "");
}

/* Rows a pane needs to show everything it holds (a guess from the
 * model, bounded: the text is for reading, not for a full history). */
static int rows_for(const model_query *q, int which)
{
	int n;

	switch (which) {
	/* the box's 2 rows, a header, the rows, the lines under them */
	case 0: n = q->nrows + 3 + 2 * (q->nwlate > 0); break;   /* windows */
	case 1: n = 12 + (q->nrows < 12 ? q->nrows : 12); break; /* wm */
	case 2: n = q->nbatches + 5 + 3 * q->nnotes; break; /* checkpoint */
	default: n = 2 * q->nlate + 2; break;               /* late */
	}
	return n < 4 ? 4 : n > 60 ? 60 : n;
}

void sl_rewind_print(sl_console *c, sl_model *m, int cols)
{
	model_query *q = sl_model_shown(m);
	int h[4], total = 2, y = 2;
	char banner[400], *text;

	if (q == NULL)
		return;
	for (int i = 0; i < 4; i++)
		total += (h[i] = rows_for(q, i));
	if (!ui_text_begin(total, cols)) {
		say(c, SL_CONSOLE_ERR, ":rewind: out of memory\n");
		return;
	}
	sl_rewind_banner(m, banner, sizeof banner);
	ui_put(0, 0, UI_BOLD, banner, cols);
	pane_progress((ui_rect){ 1, 0, 1, cols }, q);
	pane_windows((ui_rect){ y, 0, h[0], cols }, q);
	y += h[0];
	pane_watermark((ui_rect){ y, 0, h[1], cols }, q);
	y += h[1];
	pane_ckpt((ui_rect){ y, 0, h[2], cols }, q);
	y += h[2];
	pane_late((ui_rect){ y, 0, h[3], cols }, q);
	if ((text = ui_text_end()) != NULL)
		say(c, SL_CONSOLE_OUT, text);
	free(text);
}

/* After a command changed what is shown: line mode prints it. */
static int shown(sl_console *c, const char *line)
{
	say(c, SL_CONSOLE_OUT, line);
	if (text_mode)
		sl_rewind_print(c, model, 100);
	return SL_CMD_OK;
}

static int fail(sl_console *c, const char *msg)
{
	char line[700];

	snprintf(line, sizeof line, "error: %.600s\n", msg);
	say(c, SL_CONSOLE_ERR, line);
	return SL_CMD_ERROR;
}

static bool ready(sl_console *c, const char *cmd)
{
	char msg[120];

	if (model == NULL) {
		snprintf(msg, sizeof msg,
			 "%s: needs the workbench or line mode", cmd);
		fail(c, msg);
		return false;
	}
	if (text_mode) /* line mode: the model reads the feeds now */
		sl_model_refresh(model, sl_lua_session(sl_console_state(c)));
	return true;
}

static void rewound_line(char *line, size_t n)
{
	int64_t batch = -1, last = -1;
	const char *what = NULL;

	sl_model_rewound(model, &batch, &last, &what);
	snprintf(line, n,
		 "rewound %s to batch %lld of %lld: the panes as they were "
		 "after it (Alt-Left/Alt-Right step, :live returns)\n",
		 what ? what : "", (long long)batch, (long long)last);
}

int sl_rewind_cmd_rewind(sl_console *c, const char *args)
{
	char msg[600], line[400], *end;
	long long n = -1;

	if (!ready(c, ":rewind"))
		return SL_CMD_ERROR;
	if (args[0] != '\0') {
		n = strtoll(args, &end, 10);
		if (*end != '\0' || n < 0)
			return fail(c, ":rewind: N must be a batch id (0, 1, "
				       "...), e.g. :rewind 3");
	}
	if (sl_model_rewind(model, n, msg, sizeof msg) < 0)
		return fail(c, msg);
	rewound_line(line, sizeof line);
	return shown(c, line);
}

int sl_rewind_cmd_live(sl_console *c, const char *args)
{
	(void)args;
	if (!ready(c, ":live"))
		return SL_CMD_ERROR;
	if (!sl_model_rewound(model, NULL, NULL, NULL)) {
		say(c, SL_CONSOLE_OUT,
		    "live: the panes already follow the "
		    "queries\n");
		return SL_CMD_OK;
	}
	sl_model_live(model);
	say(c, SL_CONSOLE_OUT, "live: the panes follow the queries again\n");
	return SL_CMD_OK;
}

int sl_rewind_cmd_open(sl_console *c, const char *args)
{
	char dir[4096], msg[600], line[400];
	const char *sink;
	size_t k;

	if (!ready(c, ":open"))
		return SL_CMD_ERROR;
	if (args[0] == '\0')
		return fail(c, ":open needs a CHECKPOINT folder (and the file "
			       "sink's folder, for its log)");
	k = strcspn(args, " \t");
	snprintf(dir, sizeof dir, "%.*s", (int)k, args);
	sink = args + k + strspn(args + k, " \t");
	if (sl_model_open(model, dir, sink[0] ? sink : NULL, msg, sizeof msg) <
	    0)
		return fail(c, msg);
	rewound_line(line, sizeof line);
	return shown(c, line);
}
