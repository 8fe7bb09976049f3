/*
 * cmd: the REPL's ':' commands, one table of entries as tmux keeps them
 * (name, arguments, help text, function).  Shared by the readline REPL and
 * plain line mode; later milestones add :lesson, :queries, :step, ... here.
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

/* Is line a command (its first non-blank character is ':')?  Only asked
 * when no Lua chunk is pending. */
bool sl_cmd_is(const char *line);
/* Run the command line (borrowed). */
int sl_cmd_run(sl_console *c, const char *line);
/* The i-th command name with its ':' ("":help"), or NULL past the end;
 * for completion. */
const char *sl_cmd_name(int i);

#endif
