/*
 * cmd: the ':' command table and its dispatcher (see cmd.h).
 *
 * A command line is ":name args"; names may be abbreviated to any unique
 * prefix (":h" is ":help").  Adding a command is adding a row.
 *
 * Commands that act on a query (:step, :crash, :restart) run as Lua
 * through the console, exactly what the learner could type (q:step(),
 * q:crash("after-sink"), q:restart()), so errors read the same and Ctrl-C
 * interrupts them.  The Lua handles of the queries the commands have seen
 * are kept in package.loaded["streamlab.workbench"].queries (not a global:
 * completion stays clean), so :restart still finds a query that crashed.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "core/buf.h"
#include "cmd.h"
#include "lesson.h"
#include "rewind.h"
#include "driver/query.h"
#include "driver/session.h"
#include "sl_lua.h"
#include "sqlmode.h"

typedef struct cmd_entry {
	const char *name; /* with its ':' */
	const char *args;
	const char *help;
	int (*fn)(sl_console *c, const char *args);
} cmd_entry;

static int cmd_help(sl_console *c, const char *args);
static int cmd_lessons(sl_console *c, const char *args);
static int cmd_lesson(sl_console *c, const char *args);
static int cmd_load(sl_console *c, const char *args);
static int cmd_queries(sl_console *c, const char *args);
static int cmd_focus(sl_console *c, const char *args);
static int cmd_step(sl_console *c, const char *args);
static int cmd_tick(sl_console *c, const char *args);
static int cmd_crash(sl_console *c, const char *args);
static int cmd_restart(sl_console *c, const char *args);
static int cmd_view(sl_console *c, const char *args);
static int cmd_zoom(sl_console *c, const char *args);
static int cmd_pyspark(sl_console *c, const char *args);
static int cmd_sql(sl_console *c, const char *args);
static int cmd_lua(sl_console *c, const char *args);
static int cmd_quit(sl_console *c, const char *args);

static const cmd_entry cmd_table[] = {
	{ ":help", "[topic]",
	  "this help; topics: input, keys, views, formats, or a Lua name",
	  cmd_help },
	{ ":lessons", "", "list the lessons", cmd_lessons },
	{ ":lesson", "N", "run lesson N", cmd_lesson },
	{ ":load", "FILE", "run a Lua file in this session", cmd_load },
	{ ":queries", "", "the streaming queries, * marks the focused one",
	  cmd_queries },
	{ ":focus", "Q", "focus query Q (number, name or id prefix)",
	  cmd_focus },
	{ ":step", "", "run one micro-batch of the focused query", cmd_step },
	{ ":tick", "DURATION",
	  "advance the manual clock, e.g. :tick 10 seconds", cmd_tick },
	{ ":crash", "POINT",
	  "arm a crash at POINT (after-sink, ...); :step runs it", cmd_crash },
	{ ":restart", "", "restart the crashed query from its checkpoint",
	  cmd_restart },
	{ ":rewind", "[N]",
	  "the panes as after batch N, from the checkpoint (Alt-Left/Right "
	  "step)",
	  sl_rewind_cmd_rewind },
	{ ":live", "", "back from :rewind or :open to the live panes",
	  sl_rewind_cmd_live },
	{ ":open", "CKPT [SINK]",
	  "a checkpoint folder of another session, rewound (:rewind N)",
	  sl_rewind_cmd_open },
	{ ":view", "NAME", "main, scatter, state or kafka (or F2..F5)",
	  cmd_view },
	{ ":zoom", "[PANE]",
	  "PANE on the whole screen (F6 cycles, Esc or :zoom: back)",
	  cmd_zoom },
	{ ":pyspark", "", "the focused query as a PySpark program (for Spark)",
	  cmd_pyspark },
	{ ":sql", "[STATEMENT]",
	  "SQL mode, statements end with ';' (:lua back; :help sql)", cmd_sql },
	{ ":lua", "", "back to Lua from the SQL mode", cmd_lua },
	{ ":quit", "", "leave streamlab (Ctrl-D on an empty line does too)",
	  cmd_quit },
};
#define CMD_COUNT ((int)(sizeof cmd_table / sizeof cmd_table[0]))

const char *const sl_cmd_views[] = { "main", "scatter", "state", "kafka",
				     NULL };

static const sl_cmd_screen *screen;

void sl_cmd_set_screen(const sl_cmd_screen *s)
{
	screen = s;
}

static void say(sl_console *c, int stream, const char *s)
{
	sl_console_write(sl_console_state(c), stream, s, strlen(s));
}

static int fail(sl_console *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(sl_console *c, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	say(c, SL_CONSOLE_ERR, msg);
	return SL_CMD_ERROR;
}

/* Append s as a Lua string literal. */
static void lua_quote(sl_buf *b, const char *s)
{
	sl_buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sl_buf_addc(b, '\\');
		if (*s == '\n')
			sl_buf_adds(b, "\\n");
		else
			sl_buf_addc(b, *s);
	}
	sl_buf_addc(b, '"');
}

/* Run chunk through the console as the command's Lua. */
static int run_lua(sl_console *c, sl_buf *chunk)
{
	int st =
	    sl_buf_failed(chunk)
		? SL_CONSOLE_ERROR
		: sl_console_eval_chunk(c, sl_buf_cstr(chunk), "=(command)");
	sl_buf_release(chunk);
	if (st == SL_CONSOLE_EXIT)
		return SL_CMD_QUIT;
	return st == SL_CONSOLE_OK ? SL_CMD_OK : SL_CMD_ERROR;
}

/* ---- :help ---- */

static void help_add(void *ud, const char *cand)
{
	sl_buf *b = ud;
	sl_buf_printf(b, "%s%s", b->len ? "  " : "  ", cand);
	sl_buf_addc(b, '\n');
}

static int help_topic(sl_console *c, const char *topic)
{
	sl_buf b;
	char word[200];
	int n;

	if (strcmp(topic, "keys") == 0) {
		say(c, SL_CONSOLE_OUT,
		    "Keys: Tab completes names (after '.' and ':' too), Up/Down recall\n"
		    "  history, Ctrl-A/E/K/U/W and Alt-B/F edit, Ctrl-C cancels the line\n"
		    "  or stops running Lua (never exits), Ctrl-D quits, PgUp/PgDn\n"
		    "  scroll the output, F2 main view, F3 scatter, F4 state, F5 kafka,\n"
		    "  F6 one pane on the whole screen (again: the next; Esc: all),\n"
		    "  Alt-Left/Alt-Right the batch before/after (:rewind; :live back).\n"
		    "A result taller than the output pane takes the screen until the next\n"
		    "  line (Esc: the panes); one taller than the screen opens the pager:\n"
		    "  PgUp/PgDn or space/b,\n"
		    "  Home/End or g/G, Up/Down, / search, n/N next/previous match,\n"
		    "  q or Esc back to the prompt; typing a line goes to the prompt too.\n");
		return SL_CMD_OK;
	}
	if (strcmp(topic, "input") == 0) {
		say(c, SL_CONSOLE_OUT,
		    "Input: an expression shows its value (1+1 shows 2); an\n"
		    "  unfinished line waits for more (>> prompt).  Every input is\n"
		    "  numbered: an error at [12]:3 is line 3 of input 12.\n"
		    "  A line starting with ':name(' or '.name' continues the input\n"
		    "  above it, which already ran: it applies to that input's value,\n"
		    "  so 'df = spark.readStream...' then '  :select(\"a\")' makes\n"
		    "  df = df:select(\"a\").  Nothing runs twice.  Other ':' lines are\n"
		    "  commands.  A paste is one input (in the workbench it runs\n"
		    "  at once when it ends in a newline, else on Enter).  A\n"
		    "  top-level 'local x' lasts for the session (a global; in\n"
		    "  lua.c it would end with the line).  More: README.md.\n");
		return SL_CMD_OK;
	}
	if (strcmp(topic, "formats") == 0 || strcmp(topic, "files") == 0) {
		say(c, SL_CONSOLE_OUT,
		    "Formats: parquet (the default when none is named, as Spark's\n"
		    "  spark.sql.sources.default), json, csv, text.\n"
		    "  spark.read:parquet(path)  :json  :csv  :text  :format(f):load(path)\n"
		    "  spark.read:load(path)     Parquet; df.write:save(path) too\n"
		    "  df.write:parquet(path)    :json  :csv  :mode(\"overwrite\")\n"
		    "  spark.readStream:schema(ddl):parquet(dir)  or :load(dir);\n"
		    "    format(\"rate\"), \"rate-micro-batch\" (rowsPerBatch,\n"
		    "    startTimestamp, advanceMillisPerBatch), \"socket\", \"kafka\"\n"
		    "  df.writeStream:format(\"parquet\"):option(\"path\", dir)\n"
		    "    :option(\"checkpointLocation\", chk):start()  (start(dir) with\n"
		    "    no format writes Parquet); option compression: snappy\n"
		    "    (default), zstd, none; ignoreCorruptFiles on reads.\n"
		    "  Sinks keep _spark_metadata: each batch's files once.  Outside\n"
		    "  tools read the files: DuckDB read_parquet('dir/*.parquet').\n"
		    "  partitionBy(\"day\", ...) on df.write and writeStream: Hive\n"
		    "    directories day=2026-01-01/ (null: __HIVE_DEFAULT_PARTITION__);\n"
		    "    reads find them again (option basePath; recursiveFileLookup\n"
		    "    true turns that off).  DuckDB: hive_partitioning=true.\n"
		    "  File streams: option cleanSource archive (with sourceArchiveDir)\n"
		    "    or delete, after each batch commits; spark.conf:set(\n"
		    "    \"spark.sql.streaming.schemaInference\", true) lets\n"
		    "    readStream infer the schema from the files present.\n");
		return SL_CMD_OK;
	}
	if (strcmp(topic, "types") == 0 || strcmp(topic, "dates") == 0 ||
	    strcmp(topic, "date") == 0) {
		say(c, SL_CONSOLE_OUT,
		    "Types (DDL \"id INT, day DATE\", cast(\"...\")): BOOLEAN, INT,\n"
		    "  BIGINT, DOUBLE, STRING, BINARY, TIMESTAMP (microseconds, UTC),\n"
		    "  DATE (a day, no time), STRUCT<...>, ARRAY<...>.\n"
		    "  DATE literals: DATE '2026-01-01' in F.expr; a string compared with\n"
		    "    a DATE column is read as a date; cast(\"timestamp\") gives its\n"
		    "    midnight, cast(\"date\") a timestamp's UTC day.\n"
		    "  F.to_date(col[, fmt])  F.current_date()  F.date_add(d, n)\n"
		    "  F.date_sub(d, n)  F.datediff(end, start)  F.date_format(d, fmt)\n"
		    "  F.year / F.month / F.dayofmonth; Parquet DATE, json/csv with a\n"
		    "  DATE schema, and partition directories day=2026-01-01 read as DATE.\n"
		    "  Time: F.current_timestamp(), F.to_timestamp, F.timestamp_seconds,\n"
		    "    INTERVAL '3:30' MINUTE TO SECOND, F.window, F.session_window.\n");
		return SL_CMD_OK;
	}
	if (strcmp(topic, "sql") == 0 || strcmp(topic, ":sql") == 0) {
		say(c, SL_CONSOLE_OUT,
		    "SQL: df:createOrReplaceTempView(\"events\") names a DataFrame\n"
		    "  (a streaming one too); spark.sql(\"SELECT ... FROM events\") gives\n"
		    "  a DataFrame, streaming when a view it reads is.\n"
		    "  :sql          the SQL prompt (sql>): a statement ends with ';' and\n"
		    "                may span lines (  ->); :lua goes back; Up recalls\n"
		    "                this mode's statements; Tab: tables, columns, keywords\n"
		    "  :sql STMT     one statement from the Lua prompt\n"
		    "  A batch result is a table (the pager when tall).  A streaming\n"
		    "  SELECT starts a query to the memory sink sql_N (complete mode when\n"
		    "  it aggregates, else append); its table stays live above the\n"
		    "  progress line (:zoom result: the whole screen); Ctrl-C stops it;\n"
		    "  SELECT * FROM sql_N; reads what it left.\n"
		    "  streamlab sql [--init F.lua] -e STMT | FILE.sql: headless, the\n"
		    "  first error stops (file:line, exit 1).  TUTORIAL.md chapter 12.\n");
		return SL_CMD_OK;
	}
	if (strcmp(topic, "views") == 0 || strcmp(topic, "view") == 0) {
		say(c, SL_CONSOLE_OUT,
		    "Views (:view NAME):\n"
		    "  main     Watermark (W watermark, M max event time, x rows dropped\n"
		    "           in the last three batches that read rows), Windows,\n"
		    "           Checkpoint (batch, offsets per source, wm, state version,\n"
		    "           sink rows, commit or CRASH point) and Late (batch, event\n"
		    "           time, the row's fields, windows missed, wm) panes;\n"
		    "           :zoom NAME or F6: one of them on the whole screen\n"
		    "  scatter  event time vs processing time, one mark per row\n"
		    "           (needs withWatermark): o on time, + late but counted\n"
		    "           (below the max event time seen before it), x dropped,\n"
		    "           = the watermark, : max event time (step lines)\n"
		    "  state    state rows per batch, with the watermark\n"
		    "  kafka    per-partition lanes of Kafka sources\n");
		return SL_CMD_OK;
	}
	for (int i = 0; i < CMD_COUNT; i++)
		if (strcmp(cmd_table[i].name + 1, topic + (topic[0] == ':')) ==
		    0) {
			snprintf(word, sizeof word, "%s %s: %s\n",
				 cmd_table[i].name, cmd_table[i].args,
				 cmd_table[i].help);
			say(c, SL_CONSOLE_OUT, word);
			return SL_CMD_OK;
		}
	/* A Lua name: its fields, then its methods, from completion's data. */
	sl_buf_init(&b);
	snprintf(word, sizeof word, "%s.", topic);
	n = sl_console_complete(c, word, help_add, &b);
	snprintf(word, sizeof word, "%s:", topic);
	n += sl_console_complete(c, word, help_add, &b);
	if (n == 0) {
		sl_buf_release(&b);
		return fail(c, "error: no help for '%s' (try :help)\n", topic);
	}
	say(c, SL_CONSOLE_OUT, sl_buf_cstr(&b));
	sl_buf_release(&b);
	return SL_CMD_OK;
}

static int cmd_help(sl_console *c, const char *args)
{
	char line[160];

	if (args[0])
		return help_topic(c, args);
	say(c, SL_CONSOLE_OUT,
	    "Type Lua: an expression shows its value, e.g. 1+1 or spark.\n"
	    "  df = spark.createDataFrame({{1, \"a\"}, {2, \"b\"}}, \"id INT, name STRING\")\n"
	    "  df:show()\n"
	    "A line starting with ':name(' or '.name' continues the one above (:help input).\n"
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
	    "  Ctrl-C cancels the line or stops running code, Ctrl-D quits;\n"
	    "  F6 or :zoom: one pane on the whole screen; a result taller than\n"
	    "  the screen opens a pager (q back).  More keys: :help keys.\n"
	    "Files: parquet (the default), json, csv, text: :help formats.\n"
	    "Types: INT, BIGINT, DOUBLE, STRING, TIMESTAMP, DATE, ...: :help types.\n"
	    "Scripts: streamlab run FILE.lua.  More: README.md, TUTORIAL.md.\n");
	return SL_CMD_OK;
}

/* ---- lessons and files ---- */

static int lesson_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lessons (lessons/NN-name.lua), sorted; returns the count. */
static int lesson_dirs(char **out, int max)
{
	DIR *d = opendir("lessons");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && n < max)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' &&
		    e->d_name[1] >= '0' && e->d_name[1] <= '9' &&
		    e->d_name[2] == '-')
			out[n++] = strdup(e->d_name);
	closedir(d);
	qsort(out, (size_t)n, sizeof *out, lesson_cmp);
	return n;
}

static int cmd_lessons(sl_console *c, const char *args)
{
	char *dirs[64];
	int n = lesson_dirs(dirs, 64);

	(void)args;
	if (n == 0) {
		say(c, SL_CONSOLE_OUT,
		    "no lessons here (lessons/NN-name.lua under the current "
		    "directory; see "
		    "lessons/README.md)\n");
		return SL_CMD_OK;
	}
	for (int i = 0; i < n; i++) {
		char line[300];
		snprintf(line, sizeof line, "  %s\n", dirs[i]);
		say(c, SL_CONSOLE_OUT, line);
		free(dirs[i]);
	}
	return SL_CMD_OK;
}

static int load_file(sl_console *c, const char *path)
{
	sl_buf b;

	sl_buf_init(&b);
	sl_buf_adds(&b, "dofile(");
	lua_quote(&b, path);
	sl_buf_adds(&b, ")");
	return run_lua(c, &b);
}

/* The lesson runs as `streamlab lesson N` runs it (lesson.h). */
static int cmd_lesson(sl_console *c, const char *args)
{
	char msg[300], *path;
	sl_buf b;

	if (args[0] == '\0')
		return fail(c, "error: :lesson needs a lesson number%s\n",
			    " (try :lessons)");
	if ((path = sl_lesson_find(args, msg, sizeof msg)) == NULL)
		return fail(c, "error: %s\n", msg);
	sl_buf_init(&b);
	sl_lesson_chunk(path, screen ? "screen" : "plain", &b);
	free(path);
	return run_lua(c, &b);
}

static int cmd_load(sl_console *c, const char *args)
{
	if (args[0] == '\0')
		return fail(c, "error: :load needs a FILE%s\n", "");
	return load_file(c, args);
}

/* ---- queries ---- */

void sl_cmd_push_workbench(lua_State *L)
{
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
	if (lua_getfield(L, -1, "streamlab.workbench") != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_newtable(L);
		lua_setfield(L, -2, "queries");
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, "streamlab.workbench");
	}
	lua_remove(L, -2);
}

/* The focused query's id: the screen's choice, else the newest active. */
static const char *focus_id(sl_console *c)
{
	sl_session *s = sl_lua_session(sl_console_state(c));
	int n = sl_session_active_count(s);

	if (screen && screen->focus_id)
		return screen->focus_id(screen->ud);
	return n > 0 ? sl_query_id(sl_session_active(s, n - 1)) : NULL;
}

static int cmd_queries(sl_console *c, const char *args)
{
	sl_session *s = sl_lua_session(sl_console_state(c));
	int n = sl_session_active_count(s);
	const char *fid = focus_id(c);
	char line[300];

	(void)args;
	if (n == 0) {
		say(c, SL_CONSOLE_OUT, "no active queries\n");
		return SL_CMD_OK;
	}
	for (int i = 0; i < n; i++) {
		sl_query *q = sl_session_active(s, i);
		const char *name = sl_query_name(q);
		snprintf(line, sizeof line, "%s%d  %.8s  %-16s batch %lld\n",
			 fid && strcmp(fid, sl_query_id(q)) == 0 ? "*" : " ",
			 i + 1, sl_query_id(q), name ? name : "(unnamed)",
			 (long long)sl_query_last_batch_id(q));
		say(c, SL_CONSOLE_OUT, line);
	}
	return SL_CMD_OK;
}

static int cmd_focus(sl_console *c, const char *args)
{
	if (screen == NULL || screen->focus == NULL)
		return fail(
		    c, "error: :focus works in the workbench screen%s\n", "");
	if (!screen->focus(screen->ud, args))
		return fail(c, "error: no query '%s' (try :queries)\n", args);
	return SL_CMD_OK;
}

/* The chunk prologue: W.queries[id] for every active query, then `q` the
 * focused one (by id), or an error naming what is missing. */
static bool query_prologue(sl_console *c, sl_buf *b, const char *cmd)
{
	const char *id = focus_id(c);

	if (id == NULL) {
		fail(c,
		     "error: %s: no query to act on (start one with "
		     "writeStream...start())\n",
		     cmd);
		return false;
	}
	sl_buf_init(b);
	sl_buf_adds(b, "local W = package.loaded['streamlab.workbench'] or "
		       "{queries = {}}\n"
		       "package.loaded['streamlab.workbench'] = W\n"
		       "for _, a in ipairs(spark.streams.active) do "
		       "W.queries[a.id] = a end\n"
		       "local q = W.queries[");
	lua_quote(b, id);
	sl_buf_adds(b, "]\nif q == nil then error('no query with id ' .. ");
	lua_quote(b, id);
	sl_buf_adds(b, ", 0) end\n");
	return true;
}

static int cmd_step(sl_console *c, const char *args)
{
	sl_buf b;

	(void)args;
	if (!query_prologue(c, &b, ":step"))
		return SL_CMD_ERROR;
	sl_buf_adds(&b, "if not q:step() then print('step: no new data, no "
			"batch ran') end\n");
	return run_lua(c, &b);
}

static int cmd_tick(sl_console *c, const char *args)
{
	sl_buf b;

	if (args[0] == '\0')
		return fail(c, "error: :tick needs a DURATION%s\n",
			    " (e.g. :tick 10 seconds)");
	sl_buf_init(&b);
	sl_buf_adds(&b, "spark.clock:advance(");
	lua_quote(&b, args);
	sl_buf_adds(&b, ")\nprint('clock: ' .. spark.clock:now())\n");
	return run_lua(c, &b);
}

/* Has the StreamingQuery binding got this method yet? */
#define METHOD_CHECK                                                           \
	"local ok, f = pcall(function() return q.%s end)\n"                    \
	"if not ok or type(f) ~= 'function' then\n"                            \
	"  print(':%s: not available yet (q:%s comes with the checkpoint "     \
	"milestone)')\n"                                                       \
	"  return\n"                                                           \
	"end\n"

static int cmd_crash(sl_console *c, const char *args)
{
	sl_buf b;

	if (args[0] == '\0')
		return fail(
		    c, "error: :crash needs a POINT%s\n",
		    " (after-offsets, mid-state, mid-state-flush, "
		    "after-state, mid-sink, "
		    "after-sink, before-commit, mid-commit, "
		    "after-commit)");
	if (!query_prologue(c, &b, ":crash"))
		return SL_CMD_ERROR;
	sl_buf_printf(&b, METHOD_CHECK, "crash", "crash", "crash");
	sl_buf_adds(&b, "q:crash(");
	lua_quote(&b, args);
	sl_buf_adds(&b, ")\nprint('crash armed at ");
	sl_buf_adds(&b, "' .. ");
	lua_quote(&b, args);
	sl_buf_adds(&b, " .. ' for the next batch (it waits for :step)')\n");
	return run_lua(c, &b);
}

static int cmd_restart(sl_console *c, const char *args)
{
	sl_buf b;

	(void)args;
	if (!query_prologue(c, &b, ":restart"))
		return SL_CMD_ERROR;
	sl_buf_printf(&b, METHOD_CHECK, "restart", "restart", "restart");
	sl_buf_adds(&b,
		    "local n = q:restart()\n"
		    "W.queries[n.id] = n\n"
		    "for k, v in pairs(_G) do if rawequal(v, q) then "
		    "_G[k] = n end end\n"
		    "print('restarted ' .. (n.name or n.id) .. ': new run ' .. "
		    "n.runId)\n");
	return run_lua(c, &b);
}

static int cmd_view(sl_console *c, const char *args)
{
	if (screen == NULL || screen->view == NULL)
		return fail(c, "error: :view works in the workbench screen%s\n",
			    "");
	if (!screen->view(screen->ud, args[0] ? args : "main"))
		return fail(c,
			    "error: unknown view '%s' (main, scatter, state, "
			    "kafka)\n",
			    args);
	return SL_CMD_OK;
}

static int cmd_zoom(sl_console *c, const char *args)
{
	const char *z;

	if (screen == NULL || screen->zoom == NULL)
		return fail(c, "error: :zoom works in the workbench screen%s\n",
			    "");
	if ((z = screen->zoom(screen->ud, args)) == NULL)
		return fail(c,
			    "error: unknown pane '%s' (watermark, windows, "
			    "checkpoint, late, output, result)\n",
			    args);
	return SL_CMD_OK;
}

/* q:toPySpark() into the Output pane. */
static int cmd_pyspark(sl_console *c, const char *args)
{
	sl_buf b;

	(void)args;
	if (!query_prologue(c, &b, ":pyspark"))
		return SL_CMD_ERROR;
	sl_buf_adds(&b, "print(q:toPySpark())\n");
	return run_lua(c, &b);
}

/* :sql switches the prompt (sqlmode.h); :sql STATEMENT runs one from
 * either mode, its ';' optional. */
static int cmd_sql(sl_console *c, const char *args)
{
	bool was = sl_sqlmode_on();
	sl_buf b;
	int st;

	if (args[0] == '\0') {
		sl_sqlmode_set(true);
		say(c, SL_CONSOLE_OUT,
		    "SQL mode: a statement ends with ';' and may span lines; "
		    "Tab completes; :lua goes back\n");
		return SL_CMD_OK;
	}
	sl_buf_init(&b);
	sl_buf_adds(&b, args);
	if (args[strlen(args) - 1] != ';')
		sl_buf_addc(&b, ';');
	sl_sqlmode_set(true);
	st = sl_buf_failed(&b) ? SL_CONSOLE_ERROR
			       : sl_sqlmode_line(c, sl_buf_cstr(&b));
	sl_buf_release(&b);
	sl_sqlmode_set(was);
	if (st == SL_CONSOLE_EXIT)
		return SL_CMD_QUIT;
	if (st == SL_CONSOLE_MORE)
		return fail(c, "error: :sql: the statement does not end%s\n",
			    " (a quote or comment is open)");
	return st == SL_CONSOLE_OK ? SL_CMD_OK : SL_CMD_ERROR;
}

static int cmd_lua(sl_console *c, const char *args)
{
	(void)args;
	if (sl_sqlmode_on())
		say(c, SL_CONSOLE_OUT, "Lua mode (:sql for SQL)\n");
	sl_sqlmode_set(false);
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
	return line[0] == ':' && line[1] != ':'; /* "::label::" is Lua */
}

const char *sl_cmd_name(int i)
{
	return i >= 0 && i < CMD_COUNT ? cmd_table[i].name : NULL;
}

int sl_cmd_run(sl_console *c, const char *line)
{
	const cmd_entry *found = NULL, *alias = NULL;
	size_t n;
	char msg[200], args[600];

	sl_console_forget(c); /* a chain does not continue past a command */
	line += strspn(line, " \t");
	n = strcspn(line, " \t");
	/* the short forms people type without thinking */
	if (n == 2 && (line[1] == 'q' || line[1] == 'h'))
		alias = &cmd_table[line[1] == 'q' ? CMD_COUNT - 1 : 0];
	for (int i = 0; i < CMD_COUNT && alias == NULL; i++) {
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
	if (alias)
		found = alias;
	if (found == NULL || n < 2) {
		/* the one-line hint: a command, or a chain's next method? */
		snprintf(msg, sizeof msg,
			 "error: unknown command '%.*s' (try :help; a method "
			 "call continuing the line above is '%.*s(...)')\n",
			 (int)n, line, (int)strcspn(line, " \t("), line);
		say(c, SL_CONSOLE_ERR, msg);
		return SL_CMD_ERROR;
	}
	line += n;
	line += strspn(line, " \t");
	/* arguments without trailing blanks */
	snprintf(args, sizeof args, "%s", line);
	for (n = strlen(args);
	     n > 0 && (args[n - 1] == ' ' || args[n - 1] == '\t');)
		args[--n] = '\0';
	return found->fn(c, args);
}
