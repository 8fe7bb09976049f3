/*
 * plain: the line-mode loop (see plain.h).  The same console evaluation as
 * the REPL, minus the terminal.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cmd.h"
#include "plain.h"
#include "rewind.h"
#include "sqlmode.h"

/* Both streams to stdout: the reader of a pipe sees one ordered text. */
static void plain_write(void *ud, int stream, const char *s, size_t n)
{
	(void)ud;
	(void)stream;
	fwrite(s, 1, n, stdout);
}

int sl_plain_run(sl_console *c, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int code = 0;
	bool done = false;

	sl_rewind_text_begin(c); /* :rewind prints the panes */
	sl_console_set_writer(c, plain_write, NULL);
	while (!done && (n = getline(&line, &cap, in)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		if (sl_sqlmode_on() && sl_cmd_is(line)) {
			done = sl_cmd_run(c, line) == SL_CMD_QUIT;
		} else if (sl_sqlmode_on()) {
			if (sl_sqlmode_line(c, line) == SL_CONSOLE_EXIT) {
				code = sl_console_exit_code(c);
				done = true;
			}
		} else if (!sl_console_pending(c) && sl_cmd_is(line) &&
			   !sl_console_continues(c, line)) {
			done = sl_cmd_run(c, line) == SL_CMD_QUIT;
		} else if (sl_console_eval_line(c, line) == SL_CONSOLE_EXIT) {
			code = sl_console_exit_code(c);
			done = true;
		}
		if (!done)
			sl_sqlmode_poll(c, true);
		fflush(stdout);
	}
	free(line);
	if (!done && sl_sqlmode_pending()) {
		fputs("error: the input ends inside a SQL statement (its ';' "
		      "is missing)\n",
		      stdout);
		sl_sqlmode_cancel();
		code = 1;
	}
	if (!done && sl_console_finish(c) == SL_CONSOLE_ERROR)
		code = 1;
	fflush(stdout);
	sl_console_set_writer(c, NULL, NULL);
	sl_rewind_text_end(c);
	return code;
}
