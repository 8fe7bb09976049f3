/*
 * session: sl_lua_open and the `spark` global (the SparkSession).
 *
 * `spark` is a table whose metatable has a C __index, so PySpark's
 * properties behave as properties: `spark.read` builds a new
 * DataFrameReader at each access (spark.read == spark.read is false, as in
 * PySpark), and a misspelt field is an error with a hint instead of a
 * silent nil: "spark has no field 'readStrem' (did you mean 'readStream'?)".
 * The metatable's `fields` array lists the names, for completion and help.
 *
 * Functions on the session (createDataFrame, table) accept both
 * spark.createDataFrame(rows, ddl) (API.md's form) and
 * spark:createDataFrame(rows, ddl) (what a Lua user may type).
 *
 * `spark` owns one engine session (engine/session.h): the clock, the confs,
 * the catalog spark.table reads, and the active streaming queries.  It lives
 * in a registry userdata whose __gc frees it when the state closes (after
 * every other userdata: it is created first, and Lua finalizes in reverse
 * order).  spark.conf delegates to the engine's confs; known keys are
 * checked here first, with the messages the batch milestone had.
 *
 * Callbacks from the engine (console output, foreachBatch, listeners) need
 * a Lua thread to run on: the binding that enters the engine records its
 * own (sl_lsess_enter) and restores the previous one after
 * (sl_lsess_leave), so a callback never runs on a coroutine that is not
 * the running one.  Every callback runs under lua_pcall: a Lua error must
 * never longjmp through engine frames.
 */
#include "sl_lua.h"

#include <ctype.h>
#include <lauxlib.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plan/catalog.h"
#include "sql/sql.h"
#include "expr/expr.h"
#include "lconv.h"
#include "lerr.h"
#include "lua_int.h"
#include "driver/query.h"

#define MT_SESSION  "streamlab.SparkSession"
#define MT_CONF     "streamlab.RuntimeConfig"
#define MT_SESSHOLD "streamlab.EngineSession"

/* Registry key (its address) of the l_sess userdata. */
static const char sess_key = 's';

/* ---- shared helpers ---- */

void sl_lua_print(lua_State *L, const char *text, size_t len)
{
	if (len > 0 && text[len - 1] == '\n')
		len--;
	lua_getglobal(L, "print");
	lua_pushlstring(L, text, len);
	lua_call(L, 1, 0);
}

int sl_lua_nofield(lua_State *L, const char *what, const char *name,
		   const char *const *names, int n)
{
	const char *near = sl_nearest_name(name, names, n);
	char hint[300];
	int method = strcmp(what, "spark") != 0 && strcmp(what, "Row") != 0;
	if (near != NULL)
		snprintf(hint, sizeof hint, "did you mean '%s'?", near);
	if (strcmp(what, "DataFrame") == 0)
		return sl_lerr_raisef(L, SL_EANALYSIS, near ? hint : NULL,
				      "DataFrame has no column or method '%s'",
				      name);
	if (strcmp(what, "F") == 0)
		return sl_lerr_raisef(L, SL_EINVAL, near ? hint : NULL,
				      "F has no function '%s'", name);
	return sl_lerr_raisef(L, SL_EINVAL, near ? hint : NULL,
			      "%s has no %s '%s'", what,
			      method ? "method" : "field", name);
}

/* Skip the receiver when a session function was called with ':'. */
static void drop_self(lua_State *L)
{
	if (lua_gettop(L) >= 1 && lua_istable(L, 1) &&
	    luaL_getmetafield(L, 1, "__name") == LUA_TSTRING) {
		if (strcmp(lua_tostring(L, -1), MT_SESSION) == 0) {
			lua_pop(L, 1);
			lua_remove(L, 1);
			return;
		}
		lua_pop(L, 1);
	}
}

/* ---- spark.createDataFrame / spark.table ---- */

static int l_type_guard_gc(lua_State *L)
{
	sl_type **t = lua_touserdata(L, 1);
	sl_type_free(*t);
	*t = NULL;
	return 0;
}

static int l_spark_createdataframe(lua_State *L)
{
	sl_err err;
	sl_type *st;
	sl_batch *b;
	int ud;
	drop_self(L);
	if (lua_type(L, 1) != LUA_TTABLE) {
		char got[96];
		sl_lerr_describe(L, 1, got, sizeof got);
		return sl_lerr_argerror(L, 1, "createDataFrame",
					"array of rows expected, got %s", got);
	}
	lua_settop(L, 2);
	sl_ldf_new(L);
	ud = lua_gettop(L);
	if (lua_type(L, 2) == LUA_TSTRING)
		st = sl_type_parse_ddl(lua_tostring(L, 2), &err);
	else if (lua_isnil(L, 2) || lua_type(L, 2) == LUA_TTABLE)
		st = sl_lconv_infer(L, 1, lua_isnil(L, 2) ? 0 : 2,
				    "createDataFrame", &err);
	else
		return sl_lerr_argerror(L, 2, "createDataFrame",
					"schema string expected");
	if (st == NULL)
		return sl_lerr_raise(L, &err);
	/* the schema lives in a guard while Lua code may raise */
	*(sl_type **)lua_newuserdatauv(L, sizeof st, 0) = st;
	lua_newtable(L);
	lua_pushcfunction(L, l_type_guard_gc);
	lua_setfield(L, -2, "__gc");
	lua_setmetatable(L, -2);
	b = sl_lconv_batch(L, 1, st, "createDataFrame", &err);
	if (b == NULL)
		return sl_lerr_raise(L, &err);
	{
		sl_plan *p = sl_plan_local(b, &err);
		sl_batch_free(b);
		return sl_ldf_finish(L, ud, p, &err);
	}
}

static int l_spark_table(lua_State *L)
{
	const char *name;
	sl_err err;
	sl_plan *p;
	int ud;
	drop_self(L);
	name = sl_lerr_checkstr(L, 1, "table", "table name");
	sl_ldf_new(L);
	ud = lua_gettop(L);
	/* a view of a streaming DataFrame reads as that (streaming) plan */
	p = sl_catalog_plan(sl_session_catalog(sl_lua_session(L)), name, &err);
	return sl_ldf_finish(L, ud, p, &err);
}

/* spark.sql(text): the statement's plan (sql/sql.h), streaming when a
 * view it reads is. */
static int l_spark_sql(lua_State *L)
{
	const char *text;
	sl_err err;
	sl_plan *p;
	int ud;
	drop_self(L);
	text = sl_lerr_checkstr(L, 1, "sql", "SQL text");
	sl_ldf_new(L);
	ud = lua_gettop(L);
	p = sl_sql_plan(text, sl_session_catalog(sl_lua_session(L)), &err);
	return sl_ldf_finish(L, ud, p, &err);
}

/* ---- spark.conf ---- */

typedef struct confkey {
	const char *key;
	const char *def;
	const char *kind; /* "bool", "int", "policy", "string" */
} confkey;

static const confkey known_conf[] = {
	{ "spark.sql.streaming.multipleWatermarkPolicy", "min", "policy" },
	{ "spark.sql.streaming.noDataMicroBatches.enabled", "true", "bool" },
	{ "spark.sql.streaming.statefulOperator.allowMultiple", "true",
	  "bool" },
	{ "spark.sql.streaming.minBatchesToRetain", "100", "int" },
	{ "spark.sql.session.timeZone", "UTC", "string" },
	{ "spark.sql.shuffle.partitions", "200", "int" },
	{ "spark.sql.caseSensitive", "false", "bool" },
	/* ours: what Lua may hold (sl_lua.h); engine memory is not counted */
	{ "streamlab.lua.memoryLimit", "1g", "bytes" },
	{ NULL, NULL, NULL }
};

static const confkey *find_conf(const char *k)
{
	for (const confkey *c = known_conf; c->key; c++)
		if (strcmp(c->key, k) == 0)
			return c;
	return NULL;
}

/* A size as Spark's byteStringAsBytes reads one: an integer and a unit,
 * b k kb m mb g gb t tb (any case; none: bytes).  Returns false when v is
 * not one or does not fit in size_t. */
static bool parse_bytes(const char *v, size_t *out)
{
	static const char *const units[] = { "b", "k", "m", "g", "t" };
	unsigned long long n = 0;
	const char *p = v;
	int shift = -1;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (ULLONG_MAX - 9) / 10)
			return false;
		n = n * 10 + (unsigned long long)(*p - '0');
	}
	if (*p == '\0')
		shift = 0;
	for (int i = 0; shift < 0 && i < 5; i++)
		if (strcasecmp(p, units[i]) == 0 ||
		    (i > 0 && tolower((unsigned char)p[0]) == units[i][0] &&
		     strcasecmp(p + 1, "b") == 0))
			shift = 10 * i;
	if (shift < 0 || (shift > 0 && n > (SIZE_MAX >> shift)) || n > SIZE_MAX)
		return false;
	*out = (size_t)n << shift;
	return true;
}

/* streamlab.lua.memoryLimit: a size, at least 1 MiB and above what Lua
 * holds now (a limit below it would fail the next allocation, this
 * spark.conf:set's own return included). */
static size_t check_memory_limit(lua_State *L, const char *key, const char *v)
{
	size_t n = 0, used = sl_lua_memory_used(L);

	if (!parse_bytes(v, &n))
		sl_lerr_raisef(L, SL_EINVAL, "for example '64m' or '2g'",
			       "%s should be a size in bytes, but was '%s'",
			       key, v);
	if (n < ((size_t)1 << 20) || n <= used + (used >> 3))
		sl_lerr_raisef(L, SL_EINVAL, NULL,
			       "%s: '%s' is too small: Lua holds %.1f MiB now",
			       key, v, (double)used / (1 << 20));
	return n;
}

static void check_conf_value(lua_State *L, const confkey *c, const char *v)
{
	if (c == NULL)
		return;
	if (strcmp(c->kind, "bool") == 0 && strcmp(v, "true") != 0 &&
	    strcmp(v, "false") != 0)
		sl_lerr_raisef(L, SL_EINVAL, NULL,
			       "%s should be boolean, but was %s", c->key, v);
	/* Spark's tests look for "valid values are 'min' and 'max'"
	 * (EventTimeWatermarkSuite). */
	if (strcmp(c->kind, "policy") == 0 && strcasecmp(v, "min") != 0 &&
	    strcasecmp(v, "max") != 0)
		sl_lerr_raisef(L, SL_EINVAL, NULL,
			       "%s should be one of min, max, but was '%s'. "
			       "Valid values are 'min' and 'max'",
			       c->key, v);
	if (strcmp(c->kind, "bytes") == 0)
		(void)check_memory_limit(L, c->key, v);
	if (strcmp(c->kind, "int") == 0) {
		char *end;
		long long n = strtoll(v, &end, 10);
		if (*v == '\0' || *end != '\0' || n < 0)
			sl_lerr_raisef(L, SL_EINVAL, NULL,
				       "%s should be int, but was %s", c->key,
				       v);
	}
	if (strcmp(c->key, "spark.sql.session.timeZone") == 0 &&
	    strcmp(v, "UTC") != 0)
		sl_lerr_raisef(
		    L, SL_EINVAL, "streamlab keeps all timestamps in UTC",
		    "%s: only 'UTC' is supported, got '%s'", c->key, v);
}

/* The receiver must be spark.conf: a '.' call gets the ':' hint. */
static void check_conf(lua_State *L, const char *method)
{
	if (lua_istable(L, 1) &&
	    luaL_getmetafield(L, 1, "__name") == LUA_TSTRING &&
	    strcmp(lua_tostring(L, -1), MT_CONF) == 0) {
		lua_pop(L, 1);
		return;
	}
	luaL_where(L, 1);
	lua_pushfstring(L,
			"bad argument #1 to '%s' (" MT_CONF
			" expected, got %s; "
			"use ':' not '.' to call methods)",
			method, luaL_typename(L, 1));
	lua_concat(L, 2);
	lua_error(L);
}

static int l_conf_set(lua_State *L)
{
	char buf[64], got[96];
	const char *k, *v;
	check_conf(L, "set");
	k = sl_lerr_checkstr(L, 2, "set", "config key");
	v = sl_lconv_optstr(L, 3, buf, sizeof buf);
	if (v == NULL) {
		sl_lerr_describe(L, 3, got, sizeof got);
		return sl_lerr_argerror(L, 3, "set",
					"string, number or boolean expected, "
					"got %s",
					got);
	}
	check_conf_value(L, find_conf(k), v);
	{
		sl_err err;
		if (sl_session_conf_set(sl_lua_session(L), k, v, &err) < 0)
			return sl_lerr_raise(L, &err);
	}
	if (strcmp(k, "streamlab.lua.memoryLimit") == 0)
		sl_lua_memory_set_limit(L, check_memory_limit(L, k, v));
	return 0;
}

static int l_conf_get(lua_State *L)
{
	const char *k;
	const confkey *c;
	const char *v;
	check_conf(L, "get");
	k = sl_lerr_checkstr(L, 2, "get", "config key");
	lua_settop(L, 3); /* 3: the default, maybe nil */
	if ((v = sl_session_conf_get(sl_lua_session(L), k)) != NULL) {
		lua_pushstring(L, v);
		return 1;
	}
	if (!lua_isnil(L, 3)) {
		lua_pushvalue(L, 3);
		return 1;
	}
	if ((c = find_conf(k)) != NULL) {
		lua_pushstring(L, c->def);
		return 1;
	}
	return sl_lerr_raisef(L, SL_EINVAL, NULL,
			      "[SQL_CONF_NOT_FOUND] The SQL config \"%s\" "
			      "cannot be found",
			      k);
}

static int l_conf_unset(lua_State *L)
{
	const char *k;
	check_conf(L, "unset");
	k = sl_lerr_checkstr(L, 2, "unset", "config key");
	sl_session_conf_unset(sl_lua_session(L), k);
	if (strcmp(k, "streamlab.lua.memoryLimit") == 0 &&
	    sl_lua_memory_used(L) < SL_LUA_MEMORY_LIMIT_DEFAULT)
		sl_lua_memory_set_limit(L, SL_LUA_MEMORY_LIMIT_DEFAULT);
	return 0;
}

static int l_conf_tostring(lua_State *L)
{
	lua_pushliteral(L, "RuntimeConfig");
	return 1;
}

static void push_conf(lua_State *L)
{
	static const luaL_Reg conf_methods[] = { { "set", l_conf_set },
						 { "get", l_conf_get },
						 { "unset", l_conf_unset },
						 { NULL, NULL } };
	lua_newtable(L);
	if (luaL_newmetatable(L, MT_CONF)) {
		luaL_newlib(L, conf_methods);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, l_conf_tostring);
		lua_setfield(L, -2, "__tostring");
	}
	lua_setmetatable(L, -2);
}

/* ---- the spark table ---- */

static const char *const spark_fields[] = {
	"read",  "readStream",   "conf", "createDataFrame", "table", "streams",
	"clock", "memoryStream", "sql", "range", NULL
};

/* Argument arg as an integer (a float with an integral value too). */
static int64_t range_arg(lua_State *L, int arg)
{
	char d[64];
	if (lua_isinteger(L, arg))
		return (int64_t)lua_tointeger(L, arg);
	sl_lerr_describe(L, arg, d, sizeof d);
	return sl_lerr_argerror(L, arg, "range", "integer expected, got %s", d);
}

/* spark.range(end) / spark.range(start, end [, step [, numPartitions]]):
 * PySpark's, a DataFrame of one BIGINT column id (plan.h's
 * sl_plan_range: in memory, at most SL_RANGE_MAX rows). */
static int l_spark_range(lua_State *L)
{
	int64_t a = 0, b, step = 1;
	int n, ud;
	sl_err err;
	sl_plan *p;
	drop_self(L);
	n = lua_gettop(L);
	while (n > 0 && lua_isnil(L, n)) /* range(10, nil): PySpark's None */
		n--;
	if (n < 1 || n > 4)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "range: expects 1 to 4 arguments (end, or start, end [, step [, numPartitions]]), got %d",
				      n);
	if (n == 1)
		b = range_arg(L, 1);
	else {
		a = range_arg(L, 1);
		b = range_arg(L, 2);
	}
	if (n >= 3)
		step = range_arg(L, 3);
	if (n == 4)
		(void)range_arg(L, 4); /* numPartitions: one partition here */
	sl_ldf_new(L);
	ud = lua_gettop(L);
	p = sl_plan_range(a, b, step, &err);
	return sl_ldf_finish(L, ud, p, &err);
}

static int l_spark_memorystream(lua_State *L)
{
	drop_self(L);
	return sl_lmemstream_new(L);
}

static int l_spark_index(lua_State *L)
{
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "read") == 0) {
		sl_lreader_push(L);
		return 1;
	}
	if (strcmp(k, "readStream") == 0) {
		sl_lsreader_push(L);
		return 1;
	}
	if (strcmp(k, "streams") == 0) {
		sl_lquery_push_streams(L);
		return 1;
	}
	if (strcmp(k, "clock") == 0) {
		sl_lquery_push_clock(L);
		return 1;
	}
	if (strcmp(k, "memoryStream") == 0) {
		lua_pushcfunction(L, l_spark_memorystream);
		return 1;
	}
	if (strcmp(k, "conf") == 0) {
		lua_getfield(L, lua_upvalueindex(1), "conf");
		return 1;
	}
	if (strcmp(k, "createDataFrame") == 0) {
		lua_pushcfunction(L, l_spark_createdataframe);
		return 1;
	}
	if (strcmp(k, "table") == 0) {
		lua_pushcfunction(L, l_spark_table);
		return 1;
	}
	if (strcmp(k, "sql") == 0) {
		lua_pushcfunction(L, l_spark_sql);
		return 1;
	}
	if (strcmp(k, "range") == 0) {
		lua_pushcfunction(L, l_spark_range);
		return 1;
	}
	{
		int n = 0;
		while (spark_fields[n])
			n++;
		return sl_lua_nofield(L, "spark", k, spark_fields, n);
	}
}

static int l_spark_newindex(lua_State *L)
{
	return sl_lerr_raisef(L, SL_EINVAL, NULL,
			      "spark fields cannot be assigned ('%s')",
			      luaL_checkstring(L, 2));
}

static int l_spark_tostring(lua_State *L)
{
	lua_pushliteral(L, "SparkSession(streamlab)");
	return 1;
}

static void push_spark(lua_State *L)
{
	int state;
	lua_newtable(L); /* spark: stays empty; everything is in __index */
	luaL_newmetatable(L, MT_SESSION);
	lua_newtable(L); /* state shared by __index: conf */
	state = lua_gettop(L);
	push_conf(L);
	lua_setfield(L, state, "conf");
	lua_pushcclosure(L, l_spark_index, 1);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, l_spark_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushcfunction(L, l_spark_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_createtable(L, 8, 0);
	for (int i = 0; spark_fields[i]; i++) {
		lua_pushstring(L, spark_fields[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "fields");
	lua_setmetatable(L, -2);
}

/* ---- the engine session and its callbacks ---- */

l_sess *sl_lsess_of(lua_State *L)
{
	l_sess *x;
	lua_rawgetp(L, LUA_REGISTRYINDEX, &sess_key);
	x = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return x;
}

void sl_lsess_batch_now(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	/* Spark: current_timestamp() of a batch query is the time the query
	 * started, the same for every row; the session clock's now */
	if (x != NULL && x->s != NULL)
		sl_func_set_now(sl_clock_now(sl_session_clock(x->s)));
}

sl_session *sl_lua_session(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	if (x == NULL || x->s == NULL)
		sl_lerr_raisef(L, SL_ESTATE, NULL,
			       "spark: the session is closed");
	return x->s;
}

lua_State *sl_lsess_thread(l_sess *x)
{
	return x->closing ? NULL : x->L;
}

lua_State *sl_lsess_enter(l_sess *x, lua_State *L)
{
	lua_State *prev = x->L;
	x->L = L;
	return prev;
}

/* print(text) with text a light pointer and a length: runs protected. */
static int print_k(lua_State *L)
{
	const char *s = lua_touserdata(L, 1);
	size_t n = (size_t)lua_tointeger(L, 2);
	sl_lua_print(L, s, n);
	return 0;
}

static void print_protected(l_sess *x, const char *s, size_t n)
{
	lua_State *L = sl_lsess_thread(x);
	if (L == NULL || !lua_checkstack(L, 4))
		return;
	lua_pushcfunction(L, print_k);
	lua_pushlightuserdata(L, (void *)s);
	lua_pushinteger(L, (lua_Integer)n);
	if (lua_pcall(L, 2, 0, 0) != LUA_OK)
		lua_pop(L, 1); /* a broken print loses the text, nothing else */
}

/* Print every complete line buffered; keep a partial last line. */
static void flush_lines(l_sess *x, bool all)
{
	size_t end = x->out.len;
	if (!all)
		while (end > 0 && x->out.p[end - 1] != '\n')
			end--;
	if (end == 0)
		return;
	print_protected(x, x->out.p, end);
	memmove(x->out.p, x->out.p + end, x->out.len - end);
	x->out.len -= end;
}

void sl_lsess_write(l_sess *x, const char *s, size_t n)
{
	sl_buf_add(&x->out, s, n);
	if (sl_buf_failed(&x->out)) {
		sl_buf_clear(&x->out);
		return;
	}
	flush_lines(x, false);
}

void sl_lsess_leave(l_sess *x, lua_State *prev)
{
	flush_lines(x, true);
	x->L = prev;
}

static void out_write(void *ud, const char *s, size_t n)
{
	sl_lsess_write(ud, s, n);
}

/* Remembers terminations for spark.streams:awaitAnyTermination. */
static void on_terminated(void *ud, int event, sl_query *q, const char *json)
{
	l_sess *x = ud;
	const char *exc;
	(void)json;
	if (event != SL_LISTEN_TERMINATED)
		return;
	x->any_terminated = true;
	exc = sl_query_exception(q);
	if (exc != NULL) {
		free(x->any_exception);
		x->any_exception = strdup(exc);
	}
}

static int l_sesshold_gc(lua_State *L)
{
	l_sess *x = lua_touserdata(L, 1);
	x->closing = true;
	x->L = x->main;
	sl_session_free(x->s);
	x->s = NULL;
	sl_buf_release(&x->out);
	free(x->any_exception);
	x->any_exception = NULL;
	return 0;
}

static void open_session(lua_State *L)
{
	l_sess *x = lua_newuserdatauv(L, sizeof *x, 0);
	memset(x, 0, sizeof *x);
	sl_buf_init(&x->out);
	lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
	x->main = x->L = lua_tothread(L, -1);
	lua_pop(L, 1);
	luaL_newmetatable(L, MT_SESSHOLD);
	lua_pushcfunction(L, l_sesshold_gc);
	lua_setfield(L, -2, "__gc");
	lua_setmetatable(L, -2);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &sess_key);
	if ((x->s = sl_session_new()) == NULL)
		luaL_error(L, "spark: out of memory creating the session");
	sl_session_set_output(x->s, out_write, x);
	if (sl_session_add_listener(x->s, on_terminated, x, NULL) <= 0)
		luaL_error(L, "spark: out of memory creating the session");
}

void sl_lua_sync(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	if (x != NULL && x->s != NULL)
		sl_session_sync(x->s);
}

int sl_lua_tick(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	lua_State *prev;
	sl_err err;
	int n;
	if (x == NULL || x->s == NULL)
		return 0;
	prev = sl_lsess_enter(x, L);
	n = sl_session_tick(x->s, &err);
	/* the screen's idle tick: what it draws next is on disk */
	sl_session_sync(x->s);
	sl_lsess_leave(x, prev);
	return n < 0 ? 0 : n;
}

bool sl_lua_tick_due(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	return x != NULL && x->s != NULL && sl_session_active_count(x->s) > 0;
}

int sl_lua_open(lua_State *L)
{
	sl_lerr_open(L);
	sl_lconv_open(L);
	open_session(L);
	sl_lcol_open(L);
	sl_ldf_open(L);
	sl_lreader_open(L);
	sl_lstream_open(L);
	sl_lquery_open(L);
	push_spark(L);
	lua_setglobal(L, "spark");
	sl_lkafka_open(L);
	return 0;
}
