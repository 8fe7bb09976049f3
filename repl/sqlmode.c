/*
 * sqlmode: the SQL mode of the prompt and `streamlab sql` (see sqlmode.h).
 *
 * Why statements go through Lua: a statement is what the learner could
 * type at the Lua prompt (spark.sql(text), then show() or writeStream to
 * the memory sink), so it runs on the same plans with the same errors, and
 * Ctrl-C interrupts it as any Lua.  cmd.c runs its commands the same way.
 *
 * The live result is read in C, from the session's catalog (the memory
 * sink's table), never through Lua: the screen may draw it from a Lua hook
 * while a batch runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <lauxlib.h>

#include "core/batch.h"
#include "core/buf.h"
#include "driver/query.h"
#include "driver/session.h"
#include "plan/catalog.h"
#include "cmd.h"
#include "sl_lua.h"
#include "sqlmode.h"

static struct {
	bool on;
	sl_buf stmt;  /* the unfinished input, lines joined by '\n' */
	sl_buf last;  /* what the last complete input consumed */
	sl_buf table; /* the live table's text, sorted */
	sl_buf scratch;
	/* the statement running: the file it is read from (or "") and
	 * where in the input it starts, so an error's (line N, pos P),
	 * relative to the text spark.sql got, names the input's place */
	char file[256];
	int at_line, at_col;       /* its first token, 1-based */
	int start_line, start_col; /* its first non-blank (a comment too) */
	bool failed;     /* sql_fail ran during the statement */
	int next_no;     /* sql_1, sql_2, ... */
	/* the live result */
	sl_query *live; /* referenced */
	char live_name[32];
	char live_mode[16];  /* complete or append */
	int64_t live_batch;  /* batch of the table in `table` */
	int64_t shown_batch; /* batch the line modes printed last */
	bool table_ok;
} sm = { .live_batch = -2, .shown_batch = -2 };

static void unlive(void);

void sl_sqlmode_release(void)
{
	unlive();
	sm.on = false;
	sl_buf_release(&sm.stmt);
	sl_buf_release(&sm.last);
	sl_buf_release(&sm.table);
	sl_buf_release(&sm.scratch);
}

bool sl_sqlmode_on(void)
{
	return sm.on;
}

void sl_sqlmode_set(bool on)
{
	sm.on = on;
	sl_buf_clear(&sm.stmt);
}

bool sl_sqlmode_pending(void)
{
	return sm.stmt.len > 0;
}

const char *sl_sqlmode_prompt(void)
{
	return sl_sqlmode_pending() ? "  -> " : "sql> ";
}

void sl_sqlmode_cancel(void)
{
	sl_buf_clear(&sm.stmt);
}

const char *sl_sqlmode_pending_text(void)
{
	return sm.stmt.len ? sl_buf_cstr(&sm.stmt) : "";
}

const char *sl_sqlmode_chunk(void)
{
	return sm.last.len ? sl_buf_cstr(&sm.last) : "";
}

/* ---- reading statements ---- */

/* Past a quoted text that starts at s[i] (its quote q); a backslash
 * escapes in '...' and "..." as Spark's lexer reads them, a doubled quote
 * is the quote itself.  Returns n when the text does not end. */
static size_t skip_quoted(const char *s, size_t n, size_t i)
{
	char q = s[i++];

	while (i < n) {
		if (s[i] == '\\' && q != '`' && i + 1 < n) {
			i += 2;
		} else if (s[i] == q) {
			if (i + 1 < n && s[i + 1] == q)
				i += 2;
			else
				return i + 1;
		} else {
			i++;
		}
	}
	return n;
}

/* Past a bracketed comment at s[i] ("/" "*"), nested as Spark's are;
 * n + 1 when it does not end in s[0..n). */
static size_t skip_comment(const char *s, size_t n, size_t i)
{
	int depth = 0;

	while (i + 1 < n) {
		if (s[i] == '/' && s[i + 1] == '*') {
			depth++;
			i += 2;
		} else if (s[i] == '*' && s[i + 1] == '/') {
			i += 2;
			if (--depth == 0)
				return i;
		} else {
			i++;
		}
	}
	return n + 1;
}

/* The offset of the ';' that ends the statement starting at from, or n
 * when it does not end in s[0..n).  *blank says whether what came before
 * it is only blanks and comments. */
static size_t stmt_end(const char *s, size_t n, size_t from, bool *blank)
{
	size_t i = from;

	*blank = true;
	while (i < n) {
		char ch = s[i];

		if (ch == ';')
			return i;
		if (ch == '\'' || ch == '"' || ch == '`') {
			i = skip_quoted(s, n, i);
		} else if (ch == '-' && i + 1 < n && s[i + 1] == '-') {
			i += strcspn(s + i, "\n");
			continue;
		} else if (ch == '/' && i + 1 < n && s[i + 1] == '*') {
			/* an unfinished comment is input still to come */
			if ((i = skip_comment(s, n, i)) > n) {
				*blank = false;
				return n;
			}
			continue;
		} else {
			i++;
		}
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			*blank = false;
	}
	return n;
}

/* Past blanks and comments from s[i]: where a statement's text starts. */
static size_t skip_blank(const char *s, size_t n, size_t i)
{
	for (;;) {
		i += strspn(s + i, " \t\r\n");
		if (i + 1 < n && s[i] == '-' && s[i + 1] == '-')
			i += strcspn(s + i, "\n");
		else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
			if ((i = skip_comment(s, n, i)) > n)
				return n;
		} else
			return i < n ? i : n;
	}
}

/* Does the statement (leading blanks skipped) start with word? */
static bool starts_with_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	s += strspn(s, " \t\r\n");
	return strncasecmp(s, word, n) == 0 &&
	       (s[n] == '\0' || strchr(" \t\r\n(", s[n]) != NULL);
}

/* ---- running one statement ---- */

/* Spark's position in msg: "(line N, pos P)" (parse errors) or "; line
 * N pos P" (analysis errors).  *from and *to bracket "N, pos P". */
static bool find_pos(const char *msg, int *n, int *p, size_t *from,
		     size_t *to)
{
	for (const char *s = strstr(msg, "line "); s; s = strstr(s + 1, "line ")) {
		int len = 0;

		if (s == msg || (s[-1] != '(' && s[-1] != ' '))
			continue;
		if (sscanf(s, "line %d, pos %d%n", n, p, &len) == 2 ||
		    sscanf(s, "line %d pos %d%n", n, p, &len) == 2) {
			*from = (size_t)(s - msg) + 5;
			*to = (size_t)(s - msg) + (size_t)len;
			return *n >= 1 && *p >= 0;
		}
	}
	return false;
}

/* The error's prefix and message, with its position made the input's:
 * in a file, "q.sql:7:3: " names the file's line and column (Spark's
 * text stays as Spark gives it, relative to the statement); typed, the
 * line and pos count from the statement's first line as typed (a comment
 * before it included), so "line 3" is the third line of what the learner
 * typed for it. */
static void locate(sl_buf *b, const char *msg)
{
	int n, p, line, col;
	size_t from, to;

	if (!find_pos(msg, &n, &p, &from, &to)) {
		if (sm.file[0])
			sl_buf_printf(b, "%s:%d: ", sm.file, sm.at_line);
		sl_buf_adds(b, msg);
		return;
	}
	line = sm.at_line + n - 1;
	col = n == 1 ? sm.at_col + p : p + 1;
	if (sm.file[0]) {
		sl_buf_printf(b, "%s:%d:%d: %s", sm.file, line, col, msg);
		return;
	}
	sl_buf_add(b, msg, from);
	sl_buf_printf(b, "%d%s%d", line - sm.start_line + 1,
		      msg[from + strspn(msg + from, "0123456789")] == ','
			  ? ", pos " : " pos ",
		      line == sm.start_line ? col - sm.start_col : col - 1);
	sl_buf_adds(b, msg + to);
}

/* W.sql_fail(e): the statement's error as one line; an interrupt goes on
 * as the interrupt it is. */
static int l_sql_fail(lua_State *L)
{
	const char *msg = NULL, *hint = NULL, *code = NULL;
	sl_buf *b = &sm.scratch;

	lua_settop(L, 1);
	if (lua_istable(L, 1)) {
		lua_getfield(L, 1, "code");
		lua_getfield(L, 1, "message");
		lua_getfield(L, 1, "hint");
		code = lua_tostring(L, 2);
		msg = lua_tostring(L, 3);
		hint = lua_tostring(L, 4);
	} else {
		msg = lua_tostring(L, 1);
	}
	if ((code && strcmp(code, "Interrupted") == 0) ||
	    (msg && strstr(msg, "interrupted!") != NULL)) {
		lua_settop(L, 1);
		return lua_error(L);
	}
	if (msg == NULL)
		msg = luaL_tolstring(L, 1, NULL);
	/* a plain Lua error names our chunk: "(sql):3: ", not the learner's */
	if (strncmp(msg, "(sql):", 6) == 0 && strstr(msg, ": ") != NULL)
		msg = strstr(msg, ": ") + 2;
	sl_buf_clear(b);
	sl_buf_adds(b, "error: ");
	locate(b, msg);
	if (hint && hint[0])
		sl_buf_printf(b, " (%s)", hint);
	sl_buf_addc(b, '\n');
	sl_console_write(L, SL_CONSOLE_ERR, b->p, b->len);
	sm.failed = true;
	return 0;
}

static void unlive(void)
{
	sl_query_free(sm.live);
	sm.live = NULL;
	sm.live_name[0] = '\0';
	sm.live_batch = sm.shown_batch = -2;
	sm.table_ok = false;
}

/* Sort the data rows of a show() table (between the third line and the
 * last border) as text: a streaming result's rows come in no order. */
static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_rows(sl_buf *t)
{
	char **rows = NULL, *p = t->p, *copy;
	size_t n = 0, cap = 0, lines = 0, start = 0, end = 0;
	sl_buf out;

	if (t->len == 0)
		return;
	/* the rows: from line 3 up to the border after them */
	for (size_t i = 0; i < t->len; i++)
		if (p[i] == '\n' && ++lines == 3)
			start = i + 1;
	for (end = start; end < t->len && p[end] != '+';)
		end += strcspn(p + end, "\n") + 1;
	if (lines < 4 || end <= start ||
	    (copy = strndup(p + start, end - start)) == NULL)
		return;
	for (char *s = strtok(copy, "\n"); s; s = strtok(NULL, "\n")) {
		if (n == cap) {
			char **v = realloc(rows, (cap = cap ? 2 * cap : 64) *
						     sizeof *v);
			if (v == NULL)
				goto out;
			rows = v;
		}
		rows[n++] = s;
	}
	qsort(rows, n, sizeof *rows, line_cmp);
	sl_buf_init(&out);
	sl_buf_add(&out, p, start);
	for (size_t i = 0; i < n; i++) {
		sl_buf_adds(&out, rows[i]);
		sl_buf_addc(&out, '\n');
	}
	sl_buf_add(&out, p + end, t->len - end);
	if (!sl_buf_failed(&out)) {
		sl_buf_release(t);
		*t = out;
	} else {
		sl_buf_release(&out);
	}
out:
	free(rows);
	free(copy);
}

/* The memory table name as show() draws it, rows sorted, into out. */
static void table_text(lua_State *L, const char *name, sl_buf *out)
{
	sl_catalog *cat = sl_session_catalog(sl_lua_session(L));
	sl_batch *b = sl_catalog_get(cat, name, NULL);

	sl_buf_clear(out);
	if (b == NULL) {
		sl_buf_adds(out, "(no rows yet: no batch has run)\n");
		return;
	}
	sl_batch_show(b, b->nrows, 0, out);
	sl_batch_free(b);
	sort_rows(out);
}

/* W.sql_table(name): the memory table's text, rows sorted. */
static int l_sql_table(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	sl_buf t;

	sl_buf_init(&t);
	table_text(L, name, &t);
	lua_pushlstring(L, t.p ? t.p : "", t.len);
	sl_buf_release(&t);
	return 1;
}

/* W.sql_took(): the name sql_N was given to a query; the next is N+1. */
static int l_sql_took(lua_State *L)
{
	(void)L;
	sm.next_no++;
	return 0;
}

/* W.sql_live(id, name, mode): the query just started is the live result. */
static int l_sql_live(lua_State *L)
{
	const char *id = luaL_checkstring(L, 1);
	const char *name = luaL_checkstring(L, 2);
	const char *mode = luaL_checkstring(L, 3);
	sl_query *q = sl_session_find(sl_lua_session(L), id);

	unlive();
	if (q == NULL)
		return 0;
	sm.live = sl_query_ref(q);
	snprintf(sm.live_name, sizeof sm.live_name, "%s", name);
	snprintf(sm.live_mode, sizeof sm.live_mode, "%s", mode);
	return 0;
}

/* The Lua half: spark.sql, then show or start (sqlmode.h says what). */
static const char sql_lua[] =
    "local W = ...\n"
    "W.queries = W.queries or {}\n"
    "local function start(df, name, mode)\n"
    "  return df.writeStream:format('memory'):queryName(name)"
    ":outputMode(mode):start()\n"
    "end\n"
    "function W.sql_run(text, name, how, explain)\n"
    "  local ok, df = pcall(function() return spark.sql(text) end)\n"
    "  if not ok then return W.sql_fail(df) end\n"
    "  if df == nil then return end\n"
    "  local ok2, streaming = pcall(function() return df.isStreaming end)\n"
    "  if not ok2 then return W.sql_fail(streaming) end\n"
    "  if not streaming then\n"
    "    if explain then\n"
    "      for _, r in ipairs(df:collect()) do print(r[1]) end\n"
    "    elseif #df.columns > 0 then\n"
    "      df:show("
    "1000"
    ", false)\n"
    "    end\n"
    "    return\n"
    "  end\n"
    "  local prev = W.sql_live_id and W.queries[W.sql_live_id]\n"
    "  if prev and prev.isActive then prev:stop() end\n"
    "  local mode = 'complete'\n"
    "  local ok3, q = pcall(start, df, name, mode)\n"
    "  if not ok3 and tostring(q):find('Complete output mode not "
    "supported', 1, true) then\n"
    "    mode = 'append'\n"
    "    ok3, q = pcall(start, df, name, mode)\n"
    "  end\n"
    "  if not ok3 then return W.sql_fail(q) end\n"
    "  W.sql_took()\n"
    "  W.queries[q.id] = q\n"
    "  if how == 'headless' then\n"
    "    local ok4, e = pcall(function() q:processAllAvailable() end)\n"
    "    if ok4 then io.write(W.sql_table(name)) end\n"
    "    q:stop()\n"
    "    if not ok4 then return W.sql_fail(e) end\n"
    "    return\n"
    "  end\n"
    "  W.sql_live_id = q.id\n"
    "  W.sql_live(q.id, name, mode)\n"
    "  print(string.format('streaming query %s: memory sink %s, %s mode; "
    "its table is live (Ctrl-C stops it; SELECT * FROM %s reads it)', "
    "name, name, mode, name))\n"
    "end\n";

/* Install W.sql_run and its C helpers once per state. */
static bool ensure_lua(sl_console *c)
{
	lua_State *L = sl_console_state(c);
	bool have;

	sl_cmd_push_workbench(L);
	have = lua_getfield(L, -1, "sql_run") == LUA_TFUNCTION;
	lua_pop(L, 1);
	if (have) {
		lua_pop(L, 1);
		return true;
	}
	lua_pushcfunction(L, l_sql_fail);
	lua_setfield(L, -2, "sql_fail");
	lua_pushcfunction(L, l_sql_table);
	lua_setfield(L, -2, "sql_table");
	lua_pushcfunction(L, l_sql_live);
	lua_setfield(L, -2, "sql_live");
	lua_pushcfunction(L, l_sql_took);
	lua_setfield(L, -2, "sql_took");
	if (luaL_loadbuffer(L, sql_lua, sizeof sql_lua - 1, "=(sql)") !=
	    LUA_OK) {
		lua_pop(L, 2);
		return false;
	}
	lua_insert(L, -2);
	if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
		lua_pop(L, 1);
		return false;
	}
	return true;
}

/* Append s as a Lua long string whose brackets s does not contain. */
static void lua_long_string(sl_buf *b, const char *s)
{
	char close[16];
	int level = 0;

	for (;;) {
		snprintf(close, sizeof close, "]%.*s]", level, "==========");
		if (strstr(s, close) == NULL || level == 10)
			break;
		level++;
	}
	sl_buf_printf(b, "[%.*s[\n%s]%.*s]", level, "==========", s, level,
		      "==========");
}

/* Run one statement (text, no ';'); how is "live" or "headless". */
static int run_stmt(sl_console *c, const char *text, const char *how)
{
	sl_buf chunk;
	int st;

	if (!ensure_lua(c)) {
		sl_console_write(sl_console_state(c), SL_CONSOLE_ERR,
				 "error: sql: cannot set up the SQL mode\n",
				 39);
		return SL_CONSOLE_ERROR;
	}
	sl_buf_init(&chunk);
	sl_buf_adds(&chunk, "package.loaded['streamlab.workbench'].sql_run(");
	lua_long_string(&chunk, text);
	sl_buf_printf(&chunk, ", 'sql_%d', '%s', %s)\n", sm.next_no + 1, how,
		      starts_with_word(text, "EXPLAIN") ? "true" : "false");
	sm.failed = false;
	st = sl_buf_failed(&chunk)
		 ? SL_CONSOLE_ERROR
		 : sl_console_eval_chunk(c, sl_buf_cstr(&chunk), "=(sql)");
	sl_buf_release(&chunk);
	if (st == SL_CONSOLE_OK && sm.failed)
		st = SL_CONSOLE_ERROR;
	return st;
}

/* The 1-based line and column of buf[off]. */
static void line_col(const char *buf, size_t off, int *line, int *col)
{
	size_t bol = 0;

	*line = 1;
	for (size_t i = 0; i < off; i++)
		if (buf[i] == '\n') {
			++*line;
			bol = i + 1;
		}
	*col = (int)(off - bol) + 1;
}

/* Note where the statement whose text starts at buf[at] is (see sm). */
static void mark_stmt(const char *buf, size_t from, size_t at,
		      const char *where_file)
{
	snprintf(sm.file, sizeof sm.file, "%s", where_file ? where_file : "");
	line_col(buf, at, &sm.at_line, &sm.at_col);
	line_col(buf, from + strspn(buf + from, " \t\r\n"), &sm.start_line,
		 &sm.start_col);
}

/* The statements of buf[0..len) that end, in order; *used is how much of
 * buf they took.  where_file != NULL: errors say the statement's line. */
static int run_complete(sl_console *c, const char *buf, size_t len,
			size_t *used, const char *how, const char *where_file)
{
	size_t from = 0;
	int st = SL_CONSOLE_OK;

	*used = 0;
	while (from < len) {
		bool blank;
		size_t end = stmt_end(buf, len, from, &blank);
		char *text;

		if (end == len) {
			if (blank)
				*used = len; /* only blanks and comments */
			break;
		}
		*used = end + 1;
		if (!blank) {
			size_t at = skip_blank(buf, end, from);
			size_t e = end;

			mark_stmt(buf, from, at, where_file);
			while (e > at && strchr(" \t\r\n", buf[e - 1]))
				e--;
			if ((text = strndup(buf + at, e - at)) == NULL)
				return SL_CONSOLE_ERROR;
			st = run_stmt(c, text, how);
			free(text);
			sm.file[0] = '\0';
			if (st != SL_CONSOLE_OK) {
				*used =
				    len; /* the first error drops the rest */
				break;
			}
		}
		from = end + 1;
	}
	return st;
}

int sl_sqlmode_line(sl_console *c, const char *line)
{
	size_t used;
	int st;

	sl_buf_clear(&sm.last);
	if (sm.stmt.len > 0)
		sl_buf_addc(&sm.stmt, '\n');
	else if (line[strspn(line, " \t\r")] == '\0')
		return SL_CONSOLE_OK; /* a blank line is no input */
	sl_buf_adds(&sm.stmt, line);
	if (sl_buf_failed(&sm.stmt)) {
		sl_buf_clear(&sm.stmt);
		return SL_CONSOLE_ERROR;
	}
	st = run_complete(c, sm.stmt.p, sm.stmt.len, &used, "live", NULL);
	if (used == 0)
		return SL_CONSOLE_MORE;
	sl_buf_clear(&sm.last);
	sl_buf_add(&sm.last, sm.stmt.p, used);
	/* what follows the last ';' starts the next statement */
	{
		size_t rest = sm.stmt.len - used;
		const char *r = sm.stmt.p + used;
		size_t skip = strspn(r, " \t\r\n");

		if (skip >= rest) {
			sl_buf_clear(&sm.stmt);
		} else {
			char *keep = strndup(r + skip, rest - skip);
			sl_buf_clear(&sm.stmt);
			if (keep)
				sl_buf_adds(&sm.stmt, keep);
			free(keep);
		}
	}
	return st;
}

int sl_sqlmode_run_text(sl_console *c, const char *text, const char *where)
{
	size_t used, len = strlen(text);
	bool blank;
	int st = run_complete(c, text, len, &used, "headless", where);

	/* a last statement without its ';' runs too, as Flink's -f does */
	if (st == SL_CONSOLE_OK && used < len &&
	    (stmt_end(text, len, used, &blank), !blank)) {
		size_t at = skip_blank(text, len, used);

		mark_stmt(text, used, at, where);
		st = run_stmt(c, text + at, "headless");
		sm.file[0] = '\0';
	}
	return st;
}

/* ---- the live result ---- */

const char *sl_sqlmode_live(void)
{
	return sm.live ? sm.live_name : NULL;
}

const char *sl_sqlmode_live_mode(void)
{
	return sm.live ? sm.live_mode : NULL;
}

const char *sl_sqlmode_live_table(sl_console *c, int64_t *batch, bool *changed)
{
	int64_t b;

	*changed = false;
	if (sm.live == NULL)
		return NULL;
	b = sl_query_last_batch_id(sm.live);
	if (!sm.table_ok || b != sm.live_batch) {
		table_text(sl_console_state(c), sm.live_name, &sm.table);
		sm.table_ok = !sl_buf_failed(&sm.table);
		*changed = true;
		sm.live_batch = b;
	}
	*batch = b;
	return sl_buf_cstr(&sm.table);
}

/* The table, headed by what it is, to the output. */
static void write_table(sl_console *c, const char *head)
{
	lua_State *L = sl_console_state(c);
	int64_t batch;
	bool changed;
	const char *t = sl_sqlmode_live_table(c, &batch, &changed);
	sl_buf *b = &sm.scratch;

	if (t == NULL)
		return;
	sl_buf_clear(b);
	if (batch < 0)
		sl_buf_printf(b, "%s %s, before its first batch:\n",
			      sm.live_name, head);
	else
		sl_buf_printf(b, "%s %s batch %lld:\n", sm.live_name, head,
			      (long long)batch);
	sl_buf_adds(b, t);
	sl_console_write(L, SL_CONSOLE_OUT, b->p, b->len);
	sm.shown_batch = batch;
}

void sl_sqlmode_poll(sl_console *c, bool print_batches)
{
	const char *exc;

	if (sm.live == NULL)
		return;
	if (!sl_query_is_active(sm.live)) {
		exc = sl_query_exception(sm.live);
		write_table(c, exc ? "failed after" : "stopped after");
		if (exc) {
			sl_buf *b = &sm.scratch;
			sl_buf_clear(b);
			sl_buf_printf(b, "error: %s: %.*s\n", sm.live_name,
				      (int)strcspn(exc, "\n"), exc);
			sl_console_write(sl_console_state(c), SL_CONSOLE_ERR,
					 b->p, b->len);
		}
		unlive();
		return;
	}
	if (print_batches &&
	    sl_query_last_batch_id(sm.live) != sm.shown_batch &&
	    sl_query_last_batch_id(sm.live) >= 0)
		write_table(c, "after");
}

bool sl_sqlmode_stop_live(sl_console *c)
{
	sl_buf chunk;

	if (sm.live == NULL)
		return false;
	sl_buf_init(&chunk);
	sl_buf_printf(&chunk,
		      "local W = package.loaded['streamlab.workbench']\n"
		      "local q = W and W.queries['%s']\n"
		      "if q then q:stop() end\n",
		      sl_query_id(sm.live));
	if (!sl_buf_failed(&chunk))
		sl_console_eval_chunk(c, sl_buf_cstr(&chunk), "=(sql)");
	sl_buf_release(&chunk);
	sl_sqlmode_poll(c, false);
	return true;
}
