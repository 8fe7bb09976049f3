/*
 * cmd: the ':' command table and its dispatcher (see cmd.h).
 *
 * A command line is ":name args"; names may be abbreviated to any unique
 * prefix (":h" is ":help").  Adding a command is adding a row.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

typedef struct cmd_entry {
	const char *name; /* with its ':' */
	const char *args;
	const char *help;
	int (*fn)(sl_console *c, const char *args);
} cmd_entry;

static int cmd_help(sl_console *c, const char *args);
static int cmd_quit(sl_console *c, const char *args);

static const cmd_entry cmd_table[] = {
	{ ":help", "", "show this help", cmd_help },
	{ ":quit", "", "leave streamlab (Ctrl-D on an empty line does too)",
	  cmd_quit },
};
#define CMD_COUNT ((int)(sizeof cmd_table / sizeof cmd_table[0]))

static void say(sl_console *c, int stream, const char *s)
{
	sl_console_write(sl_console_state(c), stream, s, strlen(s));
}

static int cmd_help(sl_console *c, const char *args)
{
	char line[160];

	(void)args;
	say(c, SL_CONSOLE_OUT,
	    "Type Lua: an expression shows its value, e.g. 1+1 or spark.\n"
	    "  df = spark.createDataFrame({{1, \"a\"}, {2, \"b\"}}, \"id INT, name STRING\")\n"
	    "  df:show()\n"
	    "Commands:\n");
	for (int i = 0; i < CMD_COUNT; i++) {
		const cmd_entry *e = &cmd_table[i];
		char head[40];

		snprintf(head, sizeof head, "%s%s%s", e->name,
			 e->args[0] ? " " : "", e->args);
		snprintf(line, sizeof line, "  %-14s %s\n", head, e->help);
		say(c, SL_CONSOLE_OUT, line);
	}
	say(c, SL_CONSOLE_OUT,
	    "Keys: Tab completes names (after '.' and ':' too), Up/Down recall "
	    "history,\n"
	    "  Ctrl-C cancels the line or stops running code, Ctrl-D quits.\n"
	    "Scripts: streamlab run FILE.lua.  More: README.md, TUTORIAL.md.\n");
	return SL_CMD_OK;
}

static int cmd_quit(sl_console *c, const char *args)
{
	(void)c;
	(void)args;
	return SL_CMD_QUIT;
}

bool sl_cmd_is(const char *line)
{
	line += strspn(line, " \t");
	return line[0] == ':';
}

const char *sl_cmd_name(int i)
{
	return i >= 0 && i < CMD_COUNT ? cmd_table[i].name : NULL;
}

int sl_cmd_run(sl_console *c, const char *line)
{
	const cmd_entry *found = NULL;
	size_t n;
	char msg[200];

	line += strspn(line, " \t");
	n = strcspn(line, " \t");
	for (int i = 0; i < CMD_COUNT; i++) {
		if (strncmp(cmd_table[i].name, line, n) != 0)
			continue;
		if (cmd_table[i].name[n] == '\0') {
			found = &cmd_table[i]; /* exact beats prefix */
			break;
		}
		if (found) {
			snprintf(
			    msg, sizeof msg,
			    "error: ambiguous command '%.*s' (try :help)\n",
			    (int)n, line);
			say(c, SL_CONSOLE_ERR, msg);
			return SL_CMD_ERROR;
		}
		found = &cmd_table[i];
	}
	if (found == NULL || n < 2) {
		snprintf(msg, sizeof msg,
			 "error: unknown command '%.*s' (try :help)\n", (int)n,
			 line);
		say(c, SL_CONSOLE_ERR, msg);
		return SL_CMD_ERROR;
	}
	line += n;
	return found->fn(c, line + strspn(line, " \t"));
}
