/*
 * plain: the line-mode loop (see plain.h).  The same console evaluation as
 * the REPL, minus the terminal.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cmd.h"
#include "model.h"
#include "plain.h"
#include "rewind.h"
#include "sl_lua.h"

/* Both streams to stdout: the reader of a pipe sees one ordered text. */
static void plain_write(void *ud, int stream, const char *s, size_t n)
{
	(void)ud;
	(void)stream;
	fwrite(s, 1, n, stdout);
}

/* Every query that starts is known to the line-mode model (:rewind acts
 * on it even once it stopped). */
static void on_query_event(void *ud, int event, sl_query *q, const char *json)
{
	(void)json;
	if (event == SL_LISTEN_STARTED)
		sl_model_adopt(ud, q);
}

int sl_plain_run(sl_console *c, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int code = 0, listener = 0;
	bool done = false;
	sl_session *sess = sl_lua_session(sl_console_state(c));
	sl_model *m = sl_model_new(); /* for :rewind (rewind.h) */

	if (m != NULL) {
		listener = sl_session_add_listener(sess, on_query_event, m,
						   NULL);
		sl_rewind_attach(m, true);
	}
	sl_console_set_writer(c, plain_write, NULL);
	while (!done && (n = getline(&line, &cap, in)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		if (!sl_console_pending(c) && sl_cmd_is(line) &&
		    !sl_console_continues(c, line)) {
			done = sl_cmd_run(c, line) == SL_CMD_QUIT;
		} else if (sl_console_eval_line(c, line) == SL_CONSOLE_EXIT) {
			code = sl_console_exit_code(c);
			done = true;
		}
		fflush(stdout);
	}
	free(line);
	if (!done && sl_console_finish(c) == SL_CONSOLE_ERROR)
		code = 1;
	fflush(stdout);
	sl_console_set_writer(c, NULL, NULL);
	sl_rewind_attach(NULL, false);
	if (listener > 0)
		sl_session_remove_listener(sess, listener);
	sl_model_free(m);
	return code;
}
