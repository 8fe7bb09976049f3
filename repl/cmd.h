/*
 * cmd: the REPL's ':' commands, one table of entries as tmux keeps them
 * (name, arguments, help text, function).  Shared by the readline REPL and
 * plain line mode.
 *
 * Commands write through the console's writer (sl_console_write), so they
 * land wherever the mode sends Lua output.
 */
#ifndef SL_CMD_H
#define SL_CMD_H

#include <stdbool.h>

#include "console.h"

enum {
	SL_CMD_OK = 0,
	SL_CMD_ERROR = 1, /* unknown command or bad arguments (written) */
	SL_CMD_QUIT = 2   /* the loop should end with exit code 0 */
};

/* What only the workbench screen can do (:focus, :view, which query is
 * focused).  Registered by the screen; NULL in plain mode, where those
 * commands say they need the screen and the focus is the newest active
 * query. */
typedef struct sl_cmd_screen {
	void *ud;
	/* Focus by index, id prefix or name; false when none matches. */
	bool (*focus)(void *ud, const char *which);
	/* Switch the view; false for an unknown name. */
	bool (*view)(void *ud, const char *name);
	/* The focused query's id, or NULL. */
	const char *(*focus_id)(void *ud);
	/* :zoom: the pane named (a prefix) fills the screen; "" or the same
	 * name again: back to all panes.  Returns the zoomed name ("" for
	 * none), NULL for an unknown name. */
	const char *(*zoom)(void *ud, const char *name);
} sl_cmd_screen;

/* Push the workbench's Lua table, package.loaded["streamlab.workbench"]
 * (W.queries: the query handles the commands keep; the screen's and the
 * SQL mode's functions), creating it with an empty queries table. */
struct lua_State;
void sl_cmd_push_workbench(struct lua_State *L);

/* Borrowed until replaced; NULL unregisters. */
void sl_cmd_set_screen(const sl_cmd_screen *s);
/* The view names :view accepts, NULL-terminated. */
extern const char *const sl_cmd_views[];

/* Is line a command (its first non-blank character is ':', not "::", a
 * Lua label)?  Only asked when no Lua chunk is pending; a ':name(' line is
 * a continuation instead (sl_console_continues). */
bool sl_cmd_is(const char *line);
/* Run the command line (borrowed). */
int sl_cmd_run(sl_console *c, const char *line);
/* The i-th command name with its ':' ("":help"), or NULL past the end;
 * for completion. */
const char *sl_cmd_name(int i);

#endif
