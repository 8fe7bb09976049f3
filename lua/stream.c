/*
 * stream: DataStreamReader (spark.readStream), DataStreamWriter
 * (df.writeStream) and MemoryStream (spark.memoryStream), as PySpark's
 * pyspark.sql.streaming.readwriter and Spark's test MemoryStream.
 *
 * The reader and writer are mutable builders like their batch cousins in
 * reader.c: each method changes the object and returns it, so calls chain.
 * Nothing reaches the engine until load() (which validates the source
 * options, as Spark's analysis does) or start() (which checks the query
 * against the output mode, opens source and sink, and registers the query
 * with the session; nothing runs until a trigger is due).
 *
 * foreachBatch: the writer keeps the Lua function in the registry; start()
 * gives the query its own reference inside a small C record that the
 * foreachBatch sink frees (releasing the reference) when it closes.  The
 * engine calls fe_call per micro-batch; it runs the function under
 * lua_pcall with a traceback handler, so a Lua error becomes the batch's
 * SL_EUSER error "foreachBatch (batch N): <the Lua message>" with the
 * traceback on the lines below (q.exception shows both) and never
 * longjmps through the engine.  Ctrl-C while the function runs is no
 * error: SL_EINTR, and the engine aborts the batch (sl_lua.h).
 *
 * Bounds (sl_lua.h): while the function runs, a count hook (fe_hook)
 * stops it when the wait that runs it times out or a stop is asked for,
 * by the same road as Ctrl-C (SL_EINTR: aborted, re-run later).  Lua has
 * one hook per thread, so fe_hook calls the hook it found (the
 * workbench's redraw, lstop, os.exit's) and puts it back after; in the
 * idle loop, where nobody set one, it lends the console's idle function
 * so the workbench keeps drawing and reading keys.  Once it fires it
 * fires at every instruction, as os.exit's hook does, so a pcall inside
 * the function cannot keep it running.  Out of Lua memory
 * (streamlab.lua.memoryLimit) the batch aborts the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/clock.h"
#include "console.h"
#include "lconv.h"
#include "lerr.h"
#include "lua_int.h"
#include "driver/query.h"
#include "formats/partition.h"
#include "sinks/sink.h"
#include "sources/source.h"
#include "plan/stream.h"
#include "core/timeutil.h"
#include "sl_lua.h"

typedef struct l_sreader {
	char *format;
	sl_type *schema;
	sl_options opts;
} l_sreader;

typedef struct l_swriter {
	sl_plan *p;
	char *format;
	char *name;
	sl_outmode mode;
	sl_trigger trigger;
	sl_options opts;
	int fe_ref; /* foreachBatch function, or LUA_NOREF */
	bool continuous; /* trigger{continuous = ...}: refused by start() */
} l_swriter;

typedef struct l_memstream {
	sl_memstream *m;
} l_memstream;

static void nomem(lua_State *L)
{
	sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
}

static void set_str(lua_State *L, char **slot, const char *s)
{
	char *c = strdup(s);
	if (c == NULL)
		nomem(L);
	free(*slot);
	*slot = c;
}

/* Plan of a new streaming DataFrame over desc (consumed), finished at ud. */
static int finish_stream(lua_State *L, int ud, sl_source_desc *d, sl_err *err)
{
	sl_plan *p;
	if (d == NULL)
		return sl_lerr_raise(L, err);
	p = sl_plan_stream(d, err);
	sl_source_desc_free(d);
	return sl_ldf_finish(L, ud, p, err);
}

/* ---- DataStreamReader ---- */

static int l_sreader_gc(lua_State *L)
{
	l_sreader *r = luaL_checkudata(L, 1, SL_MT_SREADER);
	free(r->format);
	r->format = NULL;
	sl_type_free(r->schema);
	r->schema = NULL;
	sl_options_release(&r->opts);
	return 0;
}

void sl_lsreader_push(lua_State *L)
{
	l_sreader *r = lua_newuserdatauv(L, sizeof *r, 0);
	r->format = NULL;
	r->schema = NULL;
	sl_options_init(&r->opts);
	luaL_setmetatable(L, SL_MT_SREADER);
}

static int l_sreader_format(lua_State *L)
{
	l_sreader *r = sl_lerr_checkself(L, SL_MT_SREADER, "format");
	set_str(L, &r->format, sl_lerr_checkstr(L, 2, "format", "format name"));
	lua_settop(L, 1);
	return 1;
}

static int l_sreader_option(lua_State *L)
{
	l_sreader *r = sl_lerr_checkself(L, SL_MT_SREADER, "option");
	sl_lopt_set(L, &r->opts, 2, 3, "option");
	lua_settop(L, 1);
	return 1;
}

static int l_sreader_options(lua_State *L)
{
	l_sreader *r = sl_lerr_checkself(L, SL_MT_SREADER, "options");
	sl_lopt_setall(L, &r->opts, 2, "options");
	lua_settop(L, 1);
	return 1;
}

static void reader_schema(lua_State *L, l_sreader *r, int idx,
			  const char *method)
{
	sl_err err;
	sl_type *t = sl_type_parse_ddl(
	    sl_lerr_checkstr(L, idx, method, "DDL string"), &err);
	if (t == NULL)
		sl_lerr_raise(L, &err);
	sl_type_free(r->schema);
	r->schema = t;
}

static int l_sreader_schema(lua_State *L)
{
	l_sreader *r = sl_lerr_checkself(L, SL_MT_SREADER, "schema");
	reader_schema(L, r, 2, "schema");
	lua_settop(L, 1);
	return 1;
}

/* load(path?); fmt overrides the reader's format (json()/csv()/text()). */
static int sreader_load(lua_State *L, const char *fmt, const char *method)
{
	l_sreader *r = sl_lerr_checkself(L, SL_MT_SREADER, method);
	const char *path = NULL, *inf;
	int ud;
	sl_err err;
	if (!lua_isnoneornil(L, 2))
		path = sl_lerr_checkstr(L, 2, method, "path");
	else
		path = sl_options_get(&r->opts, "path");
	if (fmt == NULL)
		fmt = r->format;
	if (fmt == NULL)
		fmt = "parquet"; /* spark.sql.sources.default */
	inf = sl_session_conf_get(sl_lsess_of(L)->s,
				  "spark.sql.streaming.schemaInference");
	sl_ldf_new(L);
	ud = lua_gettop(L);
	return finish_stream(
	    L, ud,
	    sl_source_desc_new_infer(fmt, path, r->schema, &r->opts,
				     inf != NULL && strcasecmp(inf, "true") == 0,
				     &err),
	    &err);
}

/* json(path, {opts}) etc.: keyword options (schema included) first. */
static int sreader_shorthand(lua_State *L, const char *fmt)
{
	l_sreader *r = sl_lerr_checkself(L, SL_MT_SREADER, fmt);
	if (lua_type(L, 3) == LUA_TTABLE) {
		lua_pushnil(L);
		while (lua_next(L, 3) != 0) {
			int v = lua_gettop(L);
			if (lua_type(L, v - 1) != LUA_TSTRING)
				return sl_lerr_raisef(
				    L, SL_EINVAL, NULL,
				    "%s: option names must be "
				    "strings",
				    fmt);
			if (strcmp(lua_tostring(L, v - 1), "schema") == 0)
				reader_schema(L, r, v, fmt);
			else
				sl_lopt_set(L, &r->opts, v - 1, v, fmt);
			lua_pop(L, 1);
		}
		lua_settop(L, 2);
	}
	if (lua_isnoneornil(L, 2))
		return sl_lerr_argerror(L, 2, fmt, "path expected");
	return sreader_load(L, fmt, fmt);
}

static int l_sreader_load(lua_State *L)
{
	return sreader_load(L, NULL, "load");
}
static int l_sreader_json(lua_State *L)
{
	return sreader_shorthand(L, "json");
}
static int l_sreader_csv(lua_State *L)
{
	return sreader_shorthand(L, "csv");
}
static int l_sreader_text(lua_State *L)
{
	return sreader_shorthand(L, "text");
}
static int l_sreader_parquet(lua_State *L)
{
	return sreader_shorthand(L, "parquet");
}

static int l_sreader_tostring(lua_State *L)
{
	l_sreader *r = luaL_checkudata(L, 1, SL_MT_SREADER);
	return sl_lopt_tostring(L, "DataStreamReader", r->format, &r->opts);
}

static const luaL_Reg sreader_methods[] = {
	{ "format", l_sreader_format },   { "option", l_sreader_option },
	{ "options", l_sreader_options }, { "schema", l_sreader_schema },
	{ "load", l_sreader_load },       { "json", l_sreader_json },
	{ "csv", l_sreader_csv },         { "text", l_sreader_text },
	{ "parquet", l_sreader_parquet }, { NULL, NULL }
};

/* ---- foreachBatch: the sink callback ---- */

typedef struct l_foreach {
	l_sess *x;
	int ref; /* the function, in the registry */
} l_foreach;

/* Message handler: the error's text (error objects via __tostring) and
 * the Lua traceback, as the console shows them. */
static int fe_msgh(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (msg == NULL) {
		if (luaL_callmeta(L, 1, "__tostring") &&
		    lua_type(L, -1) == LUA_TSTRING)
			msg = lua_tostring(L, -1);
		else
			msg = lua_pushfstring(L, "(error object is a %s value)",
					      luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	{
		/* keep the frames of the user's function: cut at fe_body's
		 * "[C]: in ?", below which is whoever drove the batch */
		size_t n;
		const char *t = lua_tolstring(L, -1, &n);
		const char *cut = strstr(t, "\n\t[C]: in ?");
		if (cut != NULL)
			lua_pushlstring(L, t, (size_t)(cut - t));
	}
	return 1;
}

/* fn(df, batchId) with the batch as a DataFrame. */
static int fe_body(lua_State *L)
{
	l_foreach *fe = lua_touserdata(L, 1);
	sl_batch *data = lua_touserdata(L, 2);
	lua_Integer id = lua_tointeger(L, 3);
	l_df *d;
	sl_err err;
	lua_rawgeti(L, LUA_REGISTRYINDEX, fe->ref);
	d = sl_ldf_new(L);
	if ((d->p = sl_plan_local(data, &err)) == NULL)
		return sl_lerr_raise(L, &err);
	lua_pushinteger(L, id);
	lua_call(L, 2, 0);
	return 0;
}

/* One running foreachBatch call's bound (nested calls: a function that
 * runs another query's batch stack them). */
enum { FE_RUNS, FE_TIMED_OUT, FE_STOPPED, FE_INTERRUPTED };
typedef struct fe_bound {
	lua_Hook saved; /* the hook found, put back after */
	int saved_mask, saved_count;
	lua_Hook chain; /* the hook fe_hook calls (never fe_hook) */
	bool idle;      /* the idle loop's batch: lend the console's idle */
	int cause;      /* FE_* */
	struct fe_bound *outer;
} fe_bound;

static fe_bound *fe_now;

static void fe_hook(lua_State *L, lua_Debug *ar)
{
	fe_bound *b = fe_now;
	int64_t d = sl_lua_batch_deadline();

	if (b == NULL) { /* a coroutine kept from a batch that ended */
		lua_sethook(L, NULL, 0, 0);
		return;
	}
	if (b->chain != NULL)
		b->chain(L, ar);
	else if (b->idle)
		sl_console_idle(L);
	if (b->cause == FE_RUNS && sl_lua_interrupt_pending())
		b->cause = FE_INTERRUPTED; /* Ctrl-C: lstop put us back */
	if (b->cause == FE_RUNS && sl_lua_stop_batch_pending())
		b->cause = FE_STOPPED;
	if (b->cause == FE_RUNS && d != INT64_MAX &&
	    sl_clock_monotonic_us() >= d)
		b->cause = FE_TIMED_OUT;
	if (b->cause == FE_RUNS)
		return;
	lua_sethook(L, fe_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
	luaL_error(L, "foreachBatch stopped: %s",
		   b->cause == FE_TIMED_OUT ? "the wait timed out"
		   : b->cause == FE_STOPPED ? "a stop was asked for"
					    : "interrupted");
}

static void fe_bound_begin(lua_State *L, fe_bound *b, bool idle)
{
	memset(b, 0, sizeof *b);
	b->saved = lua_gethook(L);
	b->saved_mask = lua_gethookmask(L);
	b->saved_count = lua_gethookcount(L);
	b->outer = fe_now;
	b->chain = b->saved == fe_hook ? (b->outer ? b->outer->chain : NULL)
				       : b->saved;
	b->idle = idle || (b->outer != NULL && b->outer->idle);
	if (b->outer == NULL)
		sl_lua_stop_batch(0);
	fe_now = b;
	lua_sethook(L, fe_hook, LUA_MASKCOUNT, SL_LUA_HOOK_COUNT);
}

/* Put the hook found back, unless another took its place meanwhile (Ctrl-C's
 * lstop, os.exit's: theirs to remove). */
static void fe_bound_end(lua_State *L, fe_bound *b)
{
	lua_Hook h = lua_gethook(L);

	if (h == fe_hook || h == NULL)
		lua_sethook(L, b->saved, b->saved ? b->saved_mask : 0,
			    b->saved_count);
	fe_now = b->outer;
	if (fe_now == NULL)
		sl_lua_stop_batch(0);
}

static int fe_call(void *ud, sl_batch *data, int64_t batch_id, sl_err *err)
{
	l_foreach *fe = ud;
	lua_State *L = sl_lsess_thread(fe->x);
	int base, status;
	bool guarded, intr;
	fe_bound bound;
	if (L == NULL)
		return sl_err_set(err, SL_ESTATE,
				  "foreachBatch: the Lua state is closing");
	if (!lua_checkstack(L, 8))
		return sl_err_nomem(err);
	base = lua_gettop(L);
	lua_pushcfunction(L, fe_msgh);
	lua_pushcfunction(L, fe_body);
	lua_pushlightuserdata(L, fe);
	lua_pushlightuserdata(L, data);
	lua_pushinteger(L, (lua_Integer)batch_id);
	/* run by the idle loop: Ctrl-C must still reach the function */
	guarded = sl_lua_guard_arm(L);
	fe_bound_begin(L, &bound, guarded);
	status = lua_pcall(L, 3, 0, base + 1);
	fe_bound_end(L, &bound);
	intr = sl_lua_interrupt_pending();
	if (guarded)
		sl_lua_guard_disarm(L);
	if (status != LUA_OK && (intr || bound.cause != FE_RUNS)) {
		/* Ctrl-C, a timeout or a stop, not the function's fault: the
		 * engine aborts the batch and the query goes on (query.h) */
		lua_settop(L, base);
		return sl_err_set(err, SL_EINTR,
				  "foreachBatch %s in batch %lld",
				  bound.cause == FE_TIMED_OUT ? "timed out"
				  : bound.cause == FE_STOPPED ? "stopped"
							      : "interrupted",
				  (long long)batch_id);
	}
	if (status == LUA_ERRMEM) {
		/* over streamlab.lua.memoryLimit: what the function built is
		 * garbage now; the batch re-runs when asked for */
		lua_settop(L, base);
		sl_lua_batch_aborted("not enough memory in foreachBatch");
		return sl_err_set(err, SL_EINTR,
				  "foreachBatch: not enough memory in batch "
				  "%lld",
				  (long long)batch_id);
	}
	if (status != LUA_OK) {
		/* one prefix, ours: the message already starts with the
		 * function's own chunk and line ("[5]:2: ...") */
		const char *m = lua_tostring(L, -1);
		sl_err_set(err, SL_EUSER, "foreachBatch (batch %lld): %s",
			   (long long)batch_id, m ? m : "the function failed");
	}
	lua_settop(L, base);
	return status == LUA_OK ? 0 : SL_EUSER;
}

static void fe_free(void *ud)
{
	l_foreach *fe = ud;
	if (fe == NULL)
		return;
	if (!fe->x->closing && fe->x->main != NULL)
		luaL_unref(fe->x->main, LUA_REGISTRYINDEX, fe->ref);
	free(fe);
}

/* ---- DataStreamWriter ---- */

static int l_swriter_gc(lua_State *L)
{
	l_swriter *w = luaL_checkudata(L, 1, SL_MT_SWRITER);
	sl_plan_free(w->p);
	w->p = NULL;
	free(w->format);
	w->format = NULL;
	free(w->name);
	w->name = NULL;
	sl_options_release(&w->opts);
	luaL_unref(L, LUA_REGISTRYINDEX, w->fe_ref);
	w->fe_ref = LUA_NOREF;
	return 0;
}

void sl_lswriter_push(lua_State *L, sl_plan *p)
{
	l_swriter *w = lua_newuserdatauv(L, sizeof *w, 0);
	memset(w, 0, sizeof *w);
	w->mode = SL_MODE_APPEND;
	w->trigger.kind = SL_TRIGGER_DEFAULT;
	w->fe_ref = LUA_NOREF;
	sl_options_init(&w->opts);
	luaL_setmetatable(L, SL_MT_SWRITER);
	w->p = sl_plan_ref(p);
}

static int l_swriter_format(lua_State *L)
{
	static const char *const sinks[] = { "console", "memory",  "json",
					     "csv",     "parquet", "noop" };
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "format");
	const char *f = sl_lerr_checkstr(L, 2, "format", "format name");
	if (!sl_sink_known(f)) {
		const char *near = sl_nearest_name(f, sinks, 6);
		char hint[96];
		snprintf(hint, sizeof hint, "did you mean '%s'?",
			 near ? near : "");
		return sl_lerr_raisef(L, SL_EINVAL, near ? hint : NULL,
				      "unknown sink format '%s' (expected "
				      "console, memory, json, csv, parquet, "
				      "noop)",
				      f);
	}
	set_str(L, &w->format, f);
	lua_settop(L, 1);
	return 1;
}

static int l_swriter_outputmode(lua_State *L)
{
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "outputMode");
	const char *m = sl_lerr_checkstr(L, 2, "outputMode", "output mode");
	sl_err err;
	if (sl_outmode_parse(m, &w->mode, &err) < 0)
		return sl_lerr_raise(L, &err);
	lua_settop(L, 1);
	return 1;
}

static int l_swriter_option(lua_State *L)
{
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "option");
	sl_lopt_set(L, &w->opts, 2, 3, "option");
	lua_settop(L, 1);
	return 1;
}

static int l_swriter_options(lua_State *L)
{
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "options");
	sl_lopt_setall(L, &w->opts, 2, "options");
	lua_settop(L, 1);
	return 1;
}

static int l_swriter_partitionby(lua_State *L)
{
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "partitionBy");
	sl_lpartition_by(L, &w->opts, "DataStreamWriter");
	return 1;
}

static int l_swriter_queryname(lua_State *L)
{
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "queryName");
	const char *n = sl_lerr_checkstr(L, 2, "queryName", "query name");
	if (n[strspn(n, " \t")] == '\0')
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "[VALUE_NOT_NON_EMPTY_STR] Value for "
				      "`queryName` must be a non empty string, "
				      "got '%s'.",
				      n);
	set_str(L, &w->name, n);
	lua_settop(L, 1);
	return 1;
}

/* trigger{processingTime="1 minute"} | {once=true} | {availableNow=true}:
 * PySpark 3.5's checks and messages. */
static int l_swriter_trigger(lua_State *L)
{
	static const char *const kinds[] = { "processingTime", "once",
					     "continuous", "availableNow" };
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "trigger");
	int given = 0, which = -1;
	char got[96];
	if (lua_type(L, 2) != LUA_TTABLE) {
		sl_lerr_describe(L, 2, got, sizeof got);
		return sl_lerr_argerror(L, 2, "trigger",
					"table expected (e.g. {processingTime="
					"\"1 minute\"}), got %s",
					got);
	}
	lua_settop(L, 2);
	lua_pushnil(L);
	while (lua_next(L, 2) != 0) {
		const char *k =
		    lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
		int i;
		lua_pop(L, 1);
		for (i = 0; i < 4; i++)
			if (strcmp(k, kinds[i]) == 0)
				break;
		if (i == 4) {
			const char *near = sl_nearest_name(k, kinds, 4);
			char hint[96];
			snprintf(hint, sizeof hint, "did you mean '%s'?",
				 near ? near : "");
			return sl_lerr_raisef(L, SL_EINVAL, near ? hint : NULL,
					      "trigger: unknown trigger '%s' "
					      "(expected processingTime, once "
					      "or availableNow)",
					      k);
		}
		given++;
		which = i;
	}
	if (given != 1)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "[ONLY_ALLOW_SINGLE_TRIGGER] Only a "
				      "single trigger is allowed.");
	lua_getfield(L, 2, kinds[which]);
	sl_lerr_describe(L, -1, got, sizeof got);
	if (which == 0) {
		const char *s = lua_tostring(L, -1);
		int64_t us;
		sl_err err;
		if (lua_type(L, -1) != LUA_TSTRING ||
		    s[strspn(s, " \t")] == '\0')
			return sl_lerr_raisef(
			    L, SL_EINVAL, NULL,
			    "[VALUE_NOT_NON_EMPTY_STR] Value "
			    "for `processingTime` must be a "
			    "non empty string, got '%s'.",
			    lua_type(L, -1) == LUA_TSTRING ? s : got);
		if (sl_duration_parse(s, &us, &err) < 0)
			return sl_lerr_raise(L, &err);
		if (us < 0)
			return sl_lerr_raisef(L, SL_EINVAL, NULL,
					      "Interval value must be "
					      "non-negative, got '%s'",
					      s);
		w->trigger.kind = SL_TRIGGER_PROCESSING;
		w->trigger.interval_us = us;
		w->continuous = false;
	} else if (which == 2) {
		/* start() refuses it, with Spark's sentence for foreachBatch
		 * (DataStreamWriter checks the sink first) */
		w->continuous = true;
	} else {
		if (lua_type(L, -1) != LUA_TBOOLEAN || !lua_toboolean(L, -1))
			return sl_lerr_raisef(
			    L, SL_EINVAL, NULL,
			    "[VALUE_NOT_TRUE] Value for `%s` "
			    "must be True, got '%s'.",
			    kinds[which],
			    lua_type(L, -1) == LUA_TBOOLEAN ? "False" : got);
		w->trigger.kind =
		    which == 1 ? SL_TRIGGER_ONCE : SL_TRIGGER_AVAILABLE_NOW;
		w->trigger.interval_us = 0;
		w->continuous = false;
	}
	lua_settop(L, 1);
	return 1;
}

static int l_swriter_foreachbatch(lua_State *L)
{
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "foreachBatch");
	char got[96];
	if (lua_isnoneornil(L, 2)) /* Spark's DataStreamWriter.foreachBatch */
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "foreachBatch function cannot be null");
	if (lua_type(L, 2) != LUA_TFUNCTION) {
		sl_lerr_describe(L, 2, got, sizeof got);
		return sl_lerr_argerror(
		    L, 2, "foreachBatch",
		    "function(df, batchId) expected, got %s", got);
	}
	lua_settop(L, 2);
	luaL_unref(L, LUA_REGISTRYINDEX, w->fe_ref);
	w->fe_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_settop(L, 1);
	return 1;
}

/* The foreachBatch record for one query (a fresh registry reference). */
static l_foreach *new_foreach(lua_State *L, l_swriter *w)
{
	l_foreach *fe;
	int ref;
	lua_rawgeti(L, LUA_REGISTRYINDEX, w->fe_ref);
	ref = luaL_ref(L, LUA_REGISTRYINDEX);
	if ((fe = malloc(sizeof *fe)) == NULL) {
		luaL_unref(L, LUA_REGISTRYINDEX, ref);
		nomem(L);
	}
	fe->x = sl_lsess_of(L);
	fe->ref = ref;
	return fe;
}

static int l_swriter_start(lua_State *L)
{
	l_swriter *w = sl_lerr_checkself(L, SL_MT_SWRITER, "start");
	l_sess *x = sl_lsess_of(L);
	sl_query_opts o;
	sl_query *q;
	lua_State *prev;
	sl_err err;
	int ud;
	if (!lua_isnoneornil(L, 2)) {
		sl_lerr_checkstr(L, 2, "start", "path");
		lua_settop(L, 2);
		lua_pushliteral(L, "path");
		sl_lopt_set(L, &w->opts, 3, 2, "start");
	}
	lua_settop(L, 1);
	if (w->continuous && w->fe_ref != LUA_NOREF)
		return sl_lerr_raisef(
		    L, SL_EANALYSIS, NULL,
		    "'foreachBatch' is not supported with continuous trigger");
	if (w->continuous)
		return sl_lerr_raisef(
		    L, SL_EINVAL, "use processingTime, once or availableNow",
		    "trigger: continuous processing is not "
		    "supported by streamlab");
	memset(&o, 0, sizeof o);
	o.name = w->name;
	o.mode = w->mode;
	o.trigger = w->trigger;
	o.checkpoint = sl_options_get(&w->opts, "checkpointLocation");
	o.sink_opts = &w->opts;
	/* no format and no foreachBatch: spark.sql.sources.default */
	o.format = w->format != NULL ? w->format : "parquet";
	/* Spark creates a file sink, which needs its path, before it looks
	 * for the checkpoint */
	if (w->fe_ref == LUA_NOREF &&
	    (strcmp(o.format, "parquet") == 0 ||
	     strcmp(o.format, "json") == 0 || strcmp(o.format, "csv") == 0) &&
	    sl_options_get(&w->opts, "path") == NULL)
		return sl_lerr_raisef(L, SL_EINVAL,
				      "give the directory: start(path) or "
				      "option(\"path\", dir)",
				      "'path' is not specified");
	/* Spark's DataStreamWriter.assertNotPartitioned */
	{
		const char *pc = sl_options_get(&w->opts, SL_PART_OPTION);
		const char *what = w->fe_ref != LUA_NOREF ? "foreachBatch"
				   : strcmp(o.format, "memory") == 0 ? "memory"
								       : NULL;
		if (what != NULL && pc != NULL && strcmp(pc, "[]") != 0)
			return sl_lerr_raisef(L, SL_EANALYSIS, NULL,
					      "'%s' does not support "
					      "partitioning",
					      what);
	}
	sl_lquery_new(L); /* the result, empty until the engine answers */
	ud = lua_gettop(L);
	if (w->fe_ref != LUA_NOREF) {
		o.format = NULL;
		o.foreach_fn = fe_call;
		o.foreach_ud = new_foreach(L, w);
		o.foreach_free = fe_free;
	}
	/* no Lua error from here until the query is bound to ud */
	prev = sl_lsess_enter(x, L);
	q = sl_query_start(x->s, w->p, &o, &err);
	sl_lsess_leave(x, prev);
	if (q == NULL)
		return sl_lerr_raise(L, &err);
	sl_lquery_bind(L, ud, q);
	sl_lpyspark_started(L, q, w->p, &o);
	return 1;
}

static int l_swriter_tostring(lua_State *L)
{
	l_swriter *w = luaL_checkudata(L, 1, SL_MT_SWRITER);
	lua_pushfstring(L, "DataStreamWriter(format=%s, outputMode=%s)",
			w->fe_ref != LUA_NOREF ? "foreachBatch"
			: w->format            ? w->format
					       : "?",
			sl_outmode_name(w->mode));
	return 1;
}

static const luaL_Reg swriter_methods[] = {
	{ "format", l_swriter_format },
	{ "outputMode", l_swriter_outputmode },
	{ "option", l_swriter_option },
	{ "options", l_swriter_options },
	{ "queryName", l_swriter_queryname },
	{ "partitionBy", l_swriter_partitionby },
	{ "trigger", l_swriter_trigger },
	{ "foreachBatch", l_swriter_foreachbatch },
	{ "start", l_swriter_start },
	{ NULL, NULL }
};

/* ---- MemoryStream ---- */

static int l_memstream_gc(lua_State *L)
{
	l_memstream *u = luaL_checkudata(L, 1, SL_MT_MEMSTREAM);
	sl_memstream_free(u->m);
	u->m = NULL;
	return 0;
}

int sl_lmemstream_new(lua_State *L)
{
	const char *ddl =
	    sl_lerr_checkstr(L, 1, "memoryStream", "schema DDL string");
	l_memstream *u;
	sl_type *t;
	sl_err err;
	u = lua_newuserdatauv(L, sizeof *u, 0);
	u->m = NULL;
	luaL_setmetatable(L, SL_MT_MEMSTREAM);
	if ((t = sl_type_parse_ddl(ddl, &err)) == NULL)
		return sl_lerr_raise(L, &err);
	u->m = sl_memstream_new(t, &err);
	sl_type_free(t);
	if (u->m == NULL)
		return sl_lerr_raise(L, &err);
	return 1;
}

static sl_memstream *mself(lua_State *L, const char *method)
{
	l_memstream *u = sl_lerr_checkself(L, SL_MT_MEMSTREAM, method);
	if (u->m == NULL)
		sl_lerr_raisef(L, SL_ESTATE, NULL, "%s: MemoryStream is empty",
			       method);
	return u->m;
}

/* addData{rows} as createDataFrame's rows; addData(v1, v2, ...) as
 * Spark's addData(data: A*) (each argument one row). */
static int l_memstream_adddata(lua_State *L)
{
	sl_memstream *m = mself(L, "addData");
	int n = lua_gettop(L) - 1;
	sl_batch *b;
	sl_err err;
	int64_t off;
	if (n == 0)
		return sl_lerr_argerror(L, 2, "addData", "rows expected");
	if (n > 1 || lua_type(L, 2) != LUA_TTABLE ||
	    lua_getmetatable(L, 2) != 0) {
		lua_createtable(L, n, 0);
		for (int i = 1; i <= n; i++) {
			lua_pushvalue(L, 1 + i);
			lua_rawseti(L, -2, i);
		}
		lua_replace(L, 2);
		lua_settop(L, 2);
	}
	b = sl_lconv_batch(L, 2, sl_memstream_schema(m), "addData", &err);
	if (b == NULL)
		return sl_lerr_raise(L, &err);
	off = sl_memstream_add(m, b, &err);
	sl_batch_free(b);
	if (off < 0)
		return sl_lerr_raise(L, &err);
	return 0;
}

static int l_memstream_todf(lua_State *L)
{
	sl_memstream *m = mself(L, "toDF");
	sl_err err;
	int ud;
	sl_ldf_new(L);
	ud = lua_gettop(L);
	return finish_stream(L, ud, sl_source_desc_memory(m, &err), &err);
}

static int l_memstream_tostring(lua_State *L)
{
	l_memstream *u = luaL_checkudata(L, 1, SL_MT_MEMSTREAM);
	sl_buf b;
	if (u->m == NULL) {
		lua_pushliteral(L, "MemoryStream[]");
		return 1;
	}
	sl_buf_init(&b);
	sl_buf_adds(&b, "MemoryStream[");
	sl_type_ddl(sl_memstream_schema(u->m), &b);
	sl_buf_printf(&b, "] (%lld blocks)",
		      (long long)sl_memstream_count(u->m));
	lua_pushstring(L, sl_buf_cstr(&b));
	sl_buf_release(&b);
	return 1;
}

static const luaL_Reg memstream_methods[] = { { "addData",
						l_memstream_adddata },
					      { "toDF", l_memstream_todf },
					      { NULL, NULL } };

/* ---- metatables ---- */

static int l_builder_index(lua_State *L)
{
	const char *names[16], *what;
	const luaL_Reg *reg;
	int n = 0;
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "methods");
	lua_pushvalue(L, 2);
	if (lua_rawget(L, -2) != LUA_TNIL)
		return 1;
	lua_getfield(L, -3, "__name");
	what = lua_tostring(L, -1);
	reg = strcmp(what, SL_MT_SREADER) == 0   ? sreader_methods
	      : strcmp(what, SL_MT_SWRITER) == 0 ? swriter_methods
						 : memstream_methods;
	for (; reg->name; reg++)
		names[n++] = reg->name;
	return sl_lua_nofield(L, strchr(what, '.') + 1, luaL_checkstring(L, 2),
			      names, n);
}

static void new_mt(lua_State *L, const char *name, lua_CFunction gc,
		   lua_CFunction tostr, const luaL_Reg *methods)
{
	sl_lua_class_open(L, &(sl_lua_class){ .name = name,
					      .gc = gc,
					      .index = l_builder_index,
					      .tostring = tostr,
					      .methods = methods });
}

void sl_lstream_open(lua_State *L)
{
	new_mt(L, SL_MT_SREADER, l_sreader_gc, l_sreader_tostring,
	       sreader_methods);
	new_mt(L, SL_MT_SWRITER, l_swriter_gc, l_swriter_tostring,
	       swriter_methods);
	new_mt(L, SL_MT_MEMSTREAM, l_memstream_gc, l_memstream_tostring,
	       memstream_methods);
}
