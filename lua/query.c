/*
 * query: the StreamingQuery userdata, spark.streams (the
 * StreamingQueryManager) and spark.clock (ext), over engine/query.h and
 * engine/session.h.
 *
 * Queries run on the program's one Lua thread: nothing here starts a
 * thread.  Batches run when Lua asks for them (q:step(),
 * q:processAllAvailable(), q:awaitTermination(), spark.clock:advance(),
 * spark.streams:awaitAnyTermination()) or when the REPL's idle loop calls
 * sl_lua_tick.  On a manual clock the waits run what is due and return at
 * once (a manual clock never moves by itself, so waiting longer could not
 * change anything); on a real clock they tick with short sleeps until done
 * or timed out.
 *
 * Ctrl-C stops the wait, not the query (sl_lua.h's sl_lua_interrupt):
 * q:processAllAvailable() and q:awaitTermination() end with one line
 * "interrupted: ..." (an error object with code "Interrupted", which the
 * console prints without a traceback) and the query stays active.  A
 * foreachBatch function interrupted mid-batch makes the engine abort that
 * batch (query.h: state back, nothing committed, re-run at the next batch
 * asked for); the line says so.
 *
 * Identity: one userdata per engine query, remembered in a weak registry
 * table keyed by the query's address, so spark.streams.active[1] == q.  The
 * userdata holds a reference; the query cannot be freed (and its address
 * reused) while the userdata lives.
 *
 * Progress, status and listener events are the engine's JSON decoded by
 * json.c, so their fields are Spark's names (q.lastProgress.numInputRows,
 * q.lastProgress.sources[1].endOffset).
 *
 * Crash and restart (ext; lessons/08, RELIABILITY.md 3.2): q:crash(point)
 * arms an in-process crash point; the batch that reaches it fails the
 * query as a killed process would.  q:restart() returns a new userdata for
 * the new run (same id, new runId); the old one stays bound to the dead
 * run, so its fields still tell what happened (exception, runId), and its
 * q:checkpoint() still reads the directory.  q:checkpoint() is the
 * engine's checkpoint JSON decoded (tests/lua/401-404).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "console.h"
#include "lconv.h"
#include "lerr.h"
#include "lua_int.h"
#include "driver/query.h"
#include "core/timeutil.h"
#include "sl_lua.h"

#define MT_STREAMS    "streamlab.StreamingQueryManager"
#define MT_CLOCK      "streamlab.Clock"
#define REG_QUERIES   "streamlab.queries"   /* weak: query address -> ud */
#define REG_LISTENERS "streamlab.listeners" /* listener table -> handle */

typedef struct l_query {
	sl_query *q;
} l_query;

/* ---- helpers ---- */

/* Skip the receiver when called with ':' on spark.streams/spark.clock. */
static void drop_obj(lua_State *L, const char *mt)
{
	if (lua_gettop(L) >= 1 && lua_istable(L, 1) &&
	    luaL_getmetafield(L, 1, "__name") == LUA_TSTRING) {
		int is = strcmp(lua_tostring(L, -1), mt) == 0;
		lua_pop(L, 1);
		if (is)
			lua_remove(L, 1);
	}
}

/* Optional timeout in seconds at idx: < 0 when absent. */
static double opt_timeout(lua_State *L, int idx, const char *method)
{
	double t;
	if (lua_isnoneornil(L, idx))
		return -1;
	if (!lua_isnumber(L, idx))
		return sl_lerr_argerror(L, idx, method,
					"timeout in seconds expected");
	t = lua_tonumber(L, idx);
	if (t < 0)
		return sl_lerr_argerror(L, idx, method,
					"timeout must be >= 0, got %g", t);
	return t;
}

/* Set by the console's SIGINT handler, cleared by a new call into Lua
 * or by the wait that reports it. */
static volatile sig_atomic_t interrupt_flag;

void sl_lua_interrupt(int on)
{
	interrupt_flag = on ? 1 : 0;
}

bool sl_lua_interrupt_pending(void)
{
	return interrupt_flag != 0;
}

bool sl_lua_interrupt_take(void)
{
	bool was = interrupt_flag != 0;
	interrupt_flag = 0;
	return was;
}

/* The bounds on a running foreachBatch function (sl_lua.h; stream.c's
 * hook reads them): the deadline of the wait that runs it, a stop asked
 * for, and why the last batch a wait asked for was aborted. */
static int64_t batch_deadline = INT64_MAX;
static volatile sig_atomic_t batch_stop;
static const char *abort_why;

int64_t sl_lua_batch_deadline(void)
{
	return batch_deadline;
}

int64_t sl_lua_set_batch_deadline(int64_t mono_us)
{
	int64_t was = batch_deadline;
	batch_deadline = mono_us;
	return was;
}

void sl_lua_stop_batch(int on)
{
	batch_stop = on ? 1 : 0;
}

bool sl_lua_stop_batch_pending(void)
{
	return batch_stop != 0;
}

void sl_lua_batch_aborted(const char *why)
{
	abort_why = why;
}

/* A wait's deadline bounds the batches it runs (an outer wait's, if
 * sooner, stays).  Returns the one to put back. */
static int64_t bound_batches(int64_t deadline)
{
	int64_t was = batch_deadline;
	if (deadline < was)
		batch_deadline = deadline;
	return was;
}

static bool (*guard_arm)(lua_State *L);
static void (*guard_disarm)(lua_State *L);

void sl_lua_set_interrupt_guard(bool (*arm)(lua_State *L),
				void (*disarm)(lua_State *L))
{
	guard_arm = arm;
	guard_disarm = disarm;
}

bool sl_lua_guard_arm(lua_State *L)
{
	return guard_arm != NULL && guard_arm(L);
}

void sl_lua_guard_disarm(lua_State *L)
{
	if (guard_disarm != NULL)
		guard_disarm(L);
}

/* Ctrl-C came: the flag the console's SIGINT handler sets, or its lstop
 * hook armed (console.c), or os.exit is unwinding.  Any other hook (the
 * workbench's redraw hook, a debugger) is not a Ctrl-C: a wait that took
 * every hook for one returned at once in the workbench. */
static bool interrupted(lua_State *L, l_sess *x)
{
	(void)x;
	return sl_lua_interrupt_pending() || sl_console_interrupted(L);
}

/* A wait ended by Ctrl-C: one line, code "Interrupted", no location (the
 * console prints it without a traceback), short enough for the output
 * pane: "interrupted: batch 3 aborted, nothing committed; the query is
 * still active and re-runs it next".  The query is untouched. */
static int raise_interrupted(lua_State *L, sl_query *q, const char *what)
{
	const char *name = q != NULL ? sl_query_name(q) : NULL;
	const char *why = abort_why != NULL ? abort_why : "interrupted";
	sl_lua_interrupt_take();
	abort_why = NULL;
	lua_createtable(L, 0, 2);
	lua_pushliteral(L, "Interrupted");
	lua_setfield(L, -2, "code");
	if (what != NULL && strncmp(what, "batch ", 6) == 0)
		lua_pushfstring(L,
				"%s: %s; the query is still active "
				"and re-runs it next",
				why, what);
	else if (name != NULL)
		lua_pushfstring(L,
				"interrupted: %s; query '%s' is still active",
				what ? what : "stopped waiting", name);
	else
		lua_pushfstring(L, "interrupted: %s; the %s still active",
				what ? what : "stopped waiting",
				q != NULL ? "query is" : "queries are");
	lua_setfield(L, -2, "message");
	luaL_setmetatable(L, SL_MT_ERROR);
	return lua_error(L);
}

static void sleep_us(int64_t us)
{
	struct timespec ts;
	if (us <= 0)
		return;
	ts.tv_sec = (time_t)(us / 1000000);
	ts.tv_nsec = (long)(us % 1000000) * 1000;
	nanosleep(&ts, NULL); /* EINTR: the caller checks and loops */
}

/* How long a real-clock wait may sleep before ticking again. */
static int64_t nap_us(l_sess *x, int64_t deadline_mono)
{
	int64_t now = sl_clock_now(sl_session_clock(x->s)), nap = 50000;
	for (int i = 0; i < sl_session_active_count(x->s); i++) {
		int64_t due = sl_query_next_due(sl_session_active(x->s, i));
		if (due != INT64_MAX && due - now < nap)
			nap = due - now;
	}
	if (deadline_mono != INT64_MAX &&
	    deadline_mono - sl_clock_monotonic_us() < nap)
		nap = deadline_mono - sl_clock_monotonic_us();
	return nap < 1000 ? 1000 : nap;
}

/* One tick of the session on L's behalf. */
static void tick(lua_State *L, l_sess *x)
{
	lua_State *prev = sl_lsess_enter(x, L);
	sl_err err;
	sl_session_tick(x->s, &err);
	sl_session_sync(x->s); /* a real-clock wait: not the hot path */
	sl_lsess_leave(x, prev);
}

/* The exception's first line is the message; what follows (a Lua
 * traceback of the foreachBatch function) goes to the field "traceback",
 * which the console prints once, in place of its own frames' header.  No
 * "where": the message names its own line ("foreachBatch (batch 3):
 * [5]:2: ..."), a second location would only repeat the caller's. */
int sl_lquery_raise_exception(lua_State *L, const char *exception)
{
	const char *nl = strchr(exception, '\n');
	lua_createtable(L, 0, 3);
	lua_pushliteral(L, "StreamingQueryException");
	lua_setfield(L, -2, "code");
	if (nl != NULL) {
		lua_pushlstring(L, exception, (size_t)(nl - exception));
		lua_setfield(L, -2, "message");
		lua_pushstring(L, nl + 1);
		lua_setfield(L, -2, "traceback");
	} else {
		lua_pushstring(L, exception);
		lua_setfield(L, -2, "message");
	}
	luaL_setmetatable(L, SL_MT_ERROR);
	return lua_error(L);
}

/* ---- the userdata ---- */

static int l_query_gc(lua_State *L)
{
	l_query *u = luaL_checkudata(L, 1, SL_MT_QUERY);
	sl_query_free(u->q);
	u->q = NULL;
	return 0;
}

void sl_lquery_new(lua_State *L)
{
	l_query *u = lua_newuserdatauv(L, sizeof *u, 0);
	u->q = NULL;
	luaL_setmetatable(L, SL_MT_QUERY);
}

void sl_lquery_bind(lua_State *L, int idx, sl_query *q)
{
	l_query *u = lua_touserdata(L, idx);
	idx = lua_absindex(L, idx);
	u->q = q;
	lua_getfield(L, LUA_REGISTRYINDEX, REG_QUERIES);
	lua_pushvalue(L, idx);
	lua_rawsetp(L, -2, q);
	lua_pop(L, 1);
}

void sl_lquery_push(lua_State *L, sl_query *q)
{
	lua_getfield(L, LUA_REGISTRYINDEX, REG_QUERIES);
	if (lua_rawgetp(L, -1, q) != LUA_TNIL) {
		lua_remove(L, -2);
		return;
	}
	lua_pop(L, 2);
	sl_lquery_new(L);
	sl_lquery_bind(L, -1, sl_query_ref(q));
}

static sl_query *qself(lua_State *L, const char *method)
{
	l_query *u = sl_lerr_checkself(L, SL_MT_QUERY, method);
	if (u->q == NULL)
		sl_lerr_raisef(L, SL_ESTATE, NULL,
			       "%s: StreamingQuery is empty", method);
	return u->q;
}

/* Raise the query's failure (after a wait) if it failed. */
static void check_failed(lua_State *L, sl_query *q)
{
	const char *exc = sl_query_exception(q);
	if (exc != NULL && !sl_query_is_active(q))
		sl_lquery_raise_exception(L, exc);
}

/* ---- methods ---- */

static int l_query_stop(lua_State *L)
{
	sl_query *q = qself(L, "stop");
	l_sess *x = sl_lsess_of(L);
	lua_State *prev = sl_lsess_enter(x, L);
	sl_query_stop(q);
	sl_lsess_leave(x, prev);
	return 0;
}

/* q:awaitTermination([timeout]): Spark's.  Without a timeout, block until
 * the query stops or fails (raising its exception), on the real clock;
 * Ctrl-C ends the wait.  On the manual clock nothing would ever happen
 * while it waits, so instead of hanging it says what to do.  With a
 * timeout (seconds): true when the query terminated within it. */
static int l_query_awaittermination(lua_State *L)
{
	sl_query *q = qself(L, "awaitTermination");
	double t = opt_timeout(L, 2, "awaitTermination");
	l_sess *x = sl_lsess_of(L);
	bool manual = sl_clock_is_manual(sl_session_clock(x->s));
	int64_t deadline = INT64_MAX, outer;
	if (t >= 0)
		deadline = sl_clock_monotonic_us() + (int64_t)(t * 1e6);
	if (sl_query_is_active(q))
		sl_query_resume(q); /* waiting on it: its trigger runs again */
	/* a foreachBatch still running at the timeout is stopped there */
	outer = bound_batches(deadline);
	tick(L, x);
	if (manual && t < 0 && sl_query_is_active(q)) {
		sl_lua_set_batch_deadline(outer);
		return sl_lerr_raisef(
		    L, SL_ESTATE,
		    "run what is there with q:processAllAvailable(), or move "
		    "time with spark.clock:advance(\"10 seconds\")",
		    "awaitTermination: on the manual clock this would wait "
		    "forever");
	}
	while (sl_query_is_active(q) && !manual &&
	       sl_clock_monotonic_us() < deadline && !interrupted(L, x)) {
		sleep_us(nap_us(x, deadline));
		tick(L, x);
		sl_console_idle(L); /* the workbench redraws meanwhile */
	}
	sl_lua_set_batch_deadline(outer);
	abort_why = NULL; /* a batch stopped at the timeout: nothing to say */
	check_failed(L, q);
	if (sl_query_is_active(q) && sl_lua_interrupt_pending())
		return raise_interrupted(L, q,
					 "awaitTermination stopped waiting");
	lua_pushboolean(L, !sl_query_is_active(q));
	return 1;
}

static int l_query_processallavailable(lua_State *L)
{
	sl_query *q = qself(L, "processAllAvailable");
	l_sess *x = sl_lsess_of(L);
	lua_State *prev;
	sl_err err;
	int rc;
	abort_why = NULL; /* only this call's batches say why they stopped */
	prev = sl_lsess_enter(x, L);
	rc = sl_query_process_all_available(q, &err);
	sl_lsess_leave(x, prev);
	if (rc == SL_EINTR ||
	    (rc == 0 && sl_query_is_active(q) && sl_lua_interrupt_pending()))
		return raise_interrupted(L, q, rc == SL_EINTR ? err.msg : NULL);
	if (rc < 0) {
		if (sl_query_exception(q) != NULL)
			return sl_lquery_raise_exception(L,
							 sl_query_exception(q));
		return sl_lerr_raise(L, &err);
	}
	return 0;
}

static int l_query_step(lua_State *L)
{
	sl_query *q = qself(L, "step");
	l_sess *x = sl_lsess_of(L);
	lua_State *prev;
	bool ran = false;
	sl_err err;
	int rc;
	abort_why = NULL;
	prev = sl_lsess_enter(x, L);
	rc = sl_query_step(q, &ran, &err);
	/* back at the prompt: the batch's checkpoint is on disk */
	if (rc == 0)
		rc = sl_query_sync(q, &err);
	sl_lsess_leave(x, prev);
	if (rc == SL_EINTR)
		return raise_interrupted(L, q, err.msg);
	if (rc < 0) {
		if (sl_query_exception(q) != NULL)
			return sl_lquery_raise_exception(L,
							 sl_query_exception(q));
		return sl_lerr_raise(L, &err);
	}
	lua_pushboolean(L, ran);
	return 1;
}

static int l_query_explain(lua_State *L)
{
	sl_query *q = qself(L, "explain");
	bool extended = false;
	sl_buf out;
	if (lua_type(L, 2) == LUA_TBOOLEAN)
		extended = lua_toboolean(L, 2);
	else if (lua_type(L, 2) == LUA_TSTRING)
		extended = strcmp(lua_tostring(L, 2), "extended") == 0;
	else if (!lua_isnoneornil(L, 2))
		return sl_lerr_argerror(L, 2, "explain", "boolean expected");
	sl_buf_init(&out);
	sl_query_explain(q, extended, &out);
	lua_pushlstring(L, out.p ? out.p : "", out.len);
	sl_buf_release(&out);
	sl_lua_print(L, lua_tostring(L, -1), lua_rawlen(L, -1));
	return 0;
}

/* The newest n events of kind in feed f (all it holds when n is absent),
 * newest first, each the table of its json. */
static int push_events(lua_State *L, sl_feed *f, sl_event_kind kind,
		       const char *fn)
{
	lua_Integer n = LUA_MAXINTEGER, k = 0;
	uint64_t first, last;
	if (!lua_isnoneornil(L, 2)) {
		if (!lua_isinteger(L, 2) || lua_tointeger(L, 2) < 0)
			return sl_lerr_argerror(
			    L, 2, fn, "non-negative integer expected");
		n = lua_tointeger(L, 2);
	}
	lua_newtable(L);
	if (f == NULL)
		return 1;
	sl_feed_range(f, &first, &last);
	for (uint64_t seq = last; seq != 0 && seq >= first && k < n; seq--) {
		const sl_event *e = sl_feed_get(f, seq);
		if (e == NULL || e->kind != kind || e->json == NULL)
			continue;
		if (!sl_ljson_push(L, e->json)) {
			lua_pop(L, 1);
			continue;
		}
		lua_rawseti(L, -2, ++k);
	}
	return 1;
}

/* q:lateRows(n?): the newest n rows dropped as late (all the log holds when
 * n is absent), newest first, each the table of its late-row event:
 * {row=, eventTime=, windows={{start=, end=}...}, watermark=, batchId=,
 * operator=}. */
static int l_query_laterows(lua_State *L)
{
	sl_query *q = qself(L, "lateRows");
	return push_events(L, sl_query_late(q), SL_EV_LATE_ROW, "lateRows");
}

/* q:badRecords(n?): the newest n malformed input records the query's
 * event feed still holds (what the workbench's bad records pane shows),
 * newest first: {reason=, file=, line=, count=, batchId=} (reason
 * malformed, too_long, utf8, corrupt_file; "more" with the count of a
 * busy batch's records not listed one by one; source.h). */
static int l_query_badrecords(lua_State *L)
{
	sl_query *q = qself(L, "badRecords");
	return push_events(L, sl_query_feed(q), SL_EV_BAD_RECORD, "badRecords");
}

/* ---- checkpoint and crash (ext) ---- */

/* q:crash(point): arm a simulated crash at point for the next batch that
 * reaches it (engine/crash.h lists the points; an unknown one is an error
 * naming them).  The batch that hits it fails the query with "simulated
 * crash at 'P' in batch N"; its files stay as a real crash leaves them. */
static int l_query_crash(lua_State *L)
{
	sl_query *q = qself(L, "crash");
	const char *point =
	    sl_lerr_checkstr(L, 2, "crash", "crash point (\"after-sink\")");
	sl_err err;
	if (sl_query_crash(q, point, &err) < 0)
		return sl_lerr_raise(L, &err);
	return 0;
}

/* q:restart() -> the new StreamingQuery (same id, new runId) from the
 * checkpoint.  q stays what it is: a terminated query. */
static int l_query_restart(lua_State *L)
{
	sl_query *q = qself(L, "restart"), *n;
	l_sess *x = sl_lsess_of(L);
	lua_State *prev;
	sl_err err;
	int ud;
	sl_lquery_new(L); /* the result, empty until the engine answers */
	ud = lua_gettop(L);
	/* no Lua error from here until the query is bound to ud */
	prev = sl_lsess_enter(x, L);
	n = sl_query_restart(q, &err);
	sl_lsess_leave(x, prev);
	if (n == NULL)
		return sl_lerr_raise(L, &err);
	sl_lquery_bind(L, ud, n);
	return 1;
}

/* q:checkpoint() -> {location=, id=, batches={{batchId=, offsets=,
 * watermarkMs=, timestampMs=, stateVersion=, sinkLog=, committed=}...}},
 * the engine's JSON decoded; nil when the query has no checkpoint. */
static int l_query_checkpoint(lua_State *L)
{
	sl_query *q = qself(L, "checkpoint");
	sl_ljson_push(L, sl_query_checkpoint_json(q)); /* nil for NULL */
	return 1;
}

static const luaL_Reg query_methods[] = {
	{ "stop", l_query_stop },
	{ "awaitTermination", l_query_awaittermination },
	{ "processAllAvailable", l_query_processallavailable },
	{ "explain", l_query_explain },
	{ "step", l_query_step },
	{ "lateRows", l_query_laterows },
	{ "badRecords", l_query_badrecords },
	{ "toPySpark", sl_lpyspark_query },
	{ "crash", l_query_crash },
	{ "restart", l_query_restart },
	{ "checkpoint", l_query_checkpoint },
	{ NULL, NULL }
};

static const char *const query_fields[] = { "id",
					    "runId",
					    "name",
					    "isActive",
					    "status",
					    "lastProgress",
					    "recentProgress",
					    "exception",
					    "checkpointLocation",
					    NULL };

static int push_recent(lua_State *L, sl_query *q)
{
	int n = sl_query_recent_count(q);
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		sl_ljson_push(L, sl_query_recent_json(q, i));
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

static int push_query_field(lua_State *L, sl_query *q, const char *k)
{
	if (strcmp(k, "id") == 0)
		lua_pushstring(L, sl_query_id(q));
	else if (strcmp(k, "runId") == 0)
		lua_pushstring(L, sl_query_run_id(q));
	else if (strcmp(k, "name") == 0)
		lua_pushstring(L, sl_query_name(q)); /* NULL -> nil */
	else if (strcmp(k, "isActive") == 0)
		lua_pushboolean(L, sl_query_is_active(q));
	else if (strcmp(k, "status") == 0)
		sl_ljson_push(L, sl_query_status_json(q));
	else if (strcmp(k, "lastProgress") == 0)
		sl_ljson_push(L, sl_query_last_progress_json(q));
	else if (strcmp(k, "recentProgress") == 0)
		push_recent(L, q);
	else if (strcmp(k, "exception") == 0)
		lua_pushstring(L, sl_query_exception(q));
	else if (strcmp(k, "checkpointLocation") == 0)
		lua_pushstring(L, sl_query_checkpoint_dir(q)); /* NULL -> nil */
	else
		return 0;
	return 1;
}

static int l_query_index(lua_State *L)
{
	l_query *u = luaL_checkudata(L, 1, SL_MT_QUERY);
	const char *k, *names[24];
	int n = 0;
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "methods");
	lua_pushvalue(L, 2);
	if (lua_rawget(L, -2) != LUA_TNIL)
		return 1;
	k = luaL_checkstring(L, 2);
	if (u->q != NULL && push_query_field(L, u->q, k))
		return 1;
	for (const luaL_Reg *r = query_methods; r->name; r++)
		names[n++] = r->name;
	for (const char *const *f = query_fields; *f; f++)
		names[n++] = *f;
	return sl_lua_nofield(L, "StreamingQuery", k, names, n);
}

static int l_query_tostring(lua_State *L)
{
	l_query *u = luaL_checkudata(L, 1, SL_MT_QUERY);
	const char *name;
	if (u->q == NULL) {
		lua_pushliteral(L, "<StreamingQuery>");
		return 1;
	}
	name = sl_query_name(u->q);
	lua_pushfstring(L, "<StreamingQuery %s%sid=%s runId=%s>",
			name ? name : "", name ? " " : "", sl_query_id(u->q),
			sl_query_run_id(u->q));
	return 1;
}

/* ---- listeners ---- */

typedef struct l_listener {
	l_sess *x;
	int ref; /* the listener table */
} l_listener;

static int listen_msgh(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (msg == NULL) {
		if (luaL_callmeta(L, 1, "__tostring") &&
		    lua_type(L, -1) == LUA_TSTRING)
			msg = lua_tostring(L, -1);
		else
			msg = "(error object is not a string)";
	}
	lua_pushstring(L, msg);
	return 1;
}

static const char *event_method(int event)
{
	switch (event) {
	case SL_LISTEN_STARTED: return "onQueryStarted";
	case SL_LISTEN_PROGRESS: return "onQueryProgress";
	case SL_LISTEN_IDLE: return "onQueryIdle";
	default: return "onQueryTerminated";
	}
}

/* listener[method](event): event tables as PySpark's event objects. */
static int listen_body(lua_State *L)
{
	l_listener *rec = lua_touserdata(L, 1);
	int event = (int)lua_tointeger(L, 2);
	const char *json = lua_touserdata(L, 3);
	lua_rawgeti(L, LUA_REGISTRYINDEX, rec->ref);
	if (lua_getfield(L, -1, event_method(event)) != LUA_TFUNCTION)
		return 0;
	if (event == SL_LISTEN_PROGRESS) {
		lua_createtable(L, 0, 1);
		sl_ljson_push(L, json);
		lua_setfield(L, -2, "progress");
	} else {
		sl_ljson_push(L, json);
	}
	lua_call(L, 1, 0);
	return 0;
}

static void listen_cb(void *ud, int event, sl_query *q, const char *json)
{
	l_listener *rec = ud;
	lua_State *L = sl_lsess_thread(rec->x);
	int base;
	(void)q;
	if (L == NULL || !lua_checkstack(L, 8))
		return;
	base = lua_gettop(L);
	lua_pushcfunction(L, listen_msgh);
	lua_pushcfunction(L, listen_body);
	lua_pushlightuserdata(L, rec);
	lua_pushinteger(L, event);
	lua_pushlightuserdata(L, (void *)json);
	if (lua_pcall(L, 3, 0, base + 1) != LUA_OK &&
	    !sl_lua_interrupt_pending()) {
		/* Spark logs a failing listener and carries on; so do we,
		 * where the learner can see it (Ctrl-C is not its failure:
		 * the wait that drove it reports that) */
		size_t n;
		const char *m = lua_tolstring(L, -1, &n);
		const char *what = event_method(event);
		sl_lsess_write(rec->x, what, strlen(what));
		sl_lsess_write(rec->x, ": ", 2);
		if (m != NULL)
			sl_lsess_write(rec->x, m, n);
		sl_lsess_write(rec->x, "\n", 1);
	}
	lua_settop(L, base);
}

static void listen_free(void *ud)
{
	l_listener *rec = ud;
	if (rec == NULL)
		return;
	if (!rec->x->closing && rec->x->main != NULL)
		luaL_unref(rec->x->main, LUA_REGISTRYINDEX, rec->ref);
	free(rec);
}

static int l_streams_addlistener(lua_State *L)
{
	static const char *const methods[] = { "onQueryStarted",
					       "onQueryProgress", "onQueryIdle",
					       "onQueryTerminated" };
	l_sess *x = sl_lsess_of(L);
	l_listener *rec;
	int handle;
	drop_obj(L, MT_STREAMS);
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	for (int i = 0; i < 4; i++) {
		int t = lua_getfield(L, 1, methods[i]);
		lua_pop(L, 1);
		if (t != LUA_TNIL && t != LUA_TFUNCTION)
			return sl_lerr_raisef(L, SL_EINVAL, NULL,
					      "addListener: '%s' must be a "
					      "function",
					      methods[i]);
	}
	lua_getfield(L, LUA_REGISTRYINDEX, REG_LISTENERS);
	lua_pushvalue(L, 1);
	if (lua_rawget(L, -2) != LUA_TNIL)
		return 0; /* already added */
	lua_pop(L, 1);
	if ((rec = malloc(sizeof *rec)) == NULL)
		return sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
	rec->x = x;
	lua_pushvalue(L, 1);
	rec->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	handle = sl_session_add_listener(x->s, listen_cb, rec, listen_free);
	if (handle <= 0) {
		listen_free(rec);
		return sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
	}
	lua_pushvalue(L, 1);
	lua_pushinteger(L, handle);
	lua_rawset(L, -3);
	return 0;
}

static int l_streams_removelistener(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	drop_obj(L, MT_STREAMS);
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	lua_getfield(L, LUA_REGISTRYINDEX, REG_LISTENERS);
	lua_pushvalue(L, 1);
	if (lua_rawget(L, -2) == LUA_TNUMBER)
		sl_session_remove_listener(x->s, (int)lua_tointeger(L, -1));
	lua_pop(L, 1);
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	lua_rawset(L, -3);
	return 0;
}

/* ---- spark.streams ---- */

static int l_streams_get(lua_State *L)
{
	sl_session *s = sl_lua_session(L);
	sl_query *q;
	drop_obj(L, MT_STREAMS);
	q = sl_session_find(s, sl_lerr_checkstr(L, 1, "get", "query id"));
	if (q == NULL)
		return 0;
	sl_lquery_push(L, q);
	return 1;
}

static int l_streams_awaitany(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	double t;
	int64_t deadline = INT64_MAX, outer;
	drop_obj(L, MT_STREAMS);
	t = opt_timeout(L, 1, "awaitAnyTermination");
	if (t >= 0)
		deadline = sl_clock_monotonic_us() + (int64_t)(t * 1e6);
	outer = bound_batches(deadline);
	tick(L, x);
	while (!x->any_terminated &&
	       !sl_clock_is_manual(sl_session_clock(x->s)) &&
	       sl_session_active_count(x->s) > 0 &&
	       sl_clock_monotonic_us() < deadline && !interrupted(L, x)) {
		sleep_us(nap_us(x, deadline));
		tick(L, x);
	}
	sl_lua_set_batch_deadline(outer);
	abort_why = NULL;
	if (x->any_terminated && x->any_exception != NULL)
		return sl_lquery_raise_exception(L, x->any_exception);
	if (!x->any_terminated && sl_lua_interrupt_pending())
		return raise_interrupted(L, NULL,
					 "awaitAnyTermination stopped waiting");
	lua_pushboolean(L, x->any_terminated);
	return 1;
}

static int l_streams_resetterminated(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	x->any_terminated = false;
	free(x->any_exception);
	x->any_exception = NULL;
	return 0;
}

static const luaL_Reg streams_methods[] = {
	{ "get", l_streams_get },
	{ "awaitAnyTermination", l_streams_awaitany },
	{ "resetTerminated", l_streams_resetterminated },
	{ "addListener", l_streams_addlistener },
	{ "removeListener", l_streams_removelistener },
	{ NULL, NULL }
};

static int l_streams_index(lua_State *L)
{
	const char *k = luaL_checkstring(L, 2), *names[8];
	int n = 0;
	if (strcmp(k, "active") == 0) {
		sl_session *s = sl_lua_session(L);
		int na = sl_session_active_count(s);
		lua_createtable(L, na, 0);
		for (int i = 0; i < na; i++) {
			sl_lquery_push(L, sl_session_active(s, i));
			lua_rawseti(L, -2, i + 1);
		}
		return 1;
	}
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "methods");
	if (lua_getfield(L, -1, k) != LUA_TNIL)
		return 1;
	names[n++] = "active";
	for (const luaL_Reg *r = streams_methods; r->name; r++)
		names[n++] = r->name;
	return sl_lua_nofield(L, "StreamingQueryManager", k, names, n);
}

/* ---- spark.clock (ext) ---- */

static sl_clock *the_clock(lua_State *L)
{
	return sl_session_clock(sl_lua_session(L));
}

static int l_clock_manual(lua_State *L)
{
	sl_clock *c = the_clock(L);
	int64_t us;
	drop_obj(L, MT_CLOCK);
	if (lua_isnoneornil(L, 1)) {
		us = sl_clock_now(c); /* freeze now */
	} else if (lua_type(L, 1) == LUA_TNUMBER) {
		if (lua_isinteger(L, 1))
			us = (int64_t)lua_tointeger(L, 1) * 1000000;
		else
			us = (int64_t)(lua_tonumber(L, 1) * 1e6);
	} else {
		size_t n;
		const char *s = lua_tolstring(L, 1, &n);
		if (lua_type(L, 1) != LUA_TSTRING || !sl_ts_parse(s, n, &us))
			return sl_lerr_raisef(
			    L, SL_EINVAL,
			    "e.g. spark.clock:manual(\"2026-01-01 "
			    "12:00:00\") or seconds since 1970",
			    "clock:manual: cannot read '%s' as "
			    "a timestamp",
			    luaL_tolstring(L, 1, NULL));
	}
	sl_clock_set_manual(c, us);
	return 0;
}

static int l_clock_advance(lua_State *L)
{
	l_sess *x = sl_lsess_of(L);
	sl_clock *c = the_clock(L);
	lua_State *prev;
	int64_t us;
	sl_err err;
	int rc;
	drop_obj(L, MT_CLOCK);
	if (lua_type(L, 1) == LUA_TNUMBER) {
		us = (int64_t)(lua_tonumber(L, 1) * 1e6);
	} else {
		const char *s = sl_lerr_checkstr(L, 1, "advance",
						 "duration (\"1 minute\")");
		if (sl_duration_parse(s, &us, &err) < 0)
			return sl_lerr_raise(L, &err);
	}
	if (us < 0)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "clock:advance: time only moves forward, "
				      "got %s",
				      luaL_tolstring(L, 1, NULL));
	if (!sl_clock_is_manual(c))
		return sl_lerr_raisef(L, SL_ESTATE,
				      "call spark.clock:manual(...) first",
				      "clock:advance: the clock is real time");
	prev = sl_lsess_enter(x, L);
	rc = sl_session_advance(x->s, us, &err);
	sl_lsess_leave(x, prev);
	if (rc < 0)
		return sl_lerr_raise(L, &err);
	return 0;
}

static int l_clock_now(lua_State *L)
{
	sl_buf b;
	sl_buf_init(&b);
	sl_ts_format(sl_clock_now(the_clock(L)), &b);
	lua_pushstring(L, sl_buf_cstr(&b));
	sl_buf_release(&b);
	return 1;
}

static int l_clock_real(lua_State *L)
{
	sl_clock_set_real(the_clock(L));
	return 0;
}

static const luaL_Reg clock_methods[] = { { "manual", l_clock_manual },
					  { "advance", l_clock_advance },
					  { "now", l_clock_now },
					  { "real", l_clock_real },
					  { NULL, NULL } };

static int l_clock_index(lua_State *L)
{
	const char *k = luaL_checkstring(L, 2), *names[8];
	int n = 0;
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "methods");
	if (lua_getfield(L, -1, k) != LUA_TNIL)
		return 1;
	for (const luaL_Reg *r = clock_methods; r->name; r++)
		names[n++] = r->name;
	return sl_lua_nofield(L, "clock", k, names, n);
}

static int l_clock_tostring(lua_State *L)
{
	sl_clock *c = the_clock(L);
	sl_buf b;
	sl_buf_init(&b);
	sl_buf_adds(&b,
		    sl_clock_is_manual(c) ? "Clock(manual, " : "Clock(real, ");
	sl_ts_format(sl_clock_now(c), &b);
	sl_buf_addc(&b, ')');
	lua_pushstring(L, sl_buf_cstr(&b));
	sl_buf_release(&b);
	return 1;
}

static int l_readonly(lua_State *L)
{
	return sl_lerr_raisef(L, SL_EINVAL, NULL,
			      "fields cannot be assigned ('%s')",
			      luaL_tolstring(L, 2, NULL));
}

static int l_streams_tostring(lua_State *L)
{
	lua_pushfstring(L, "StreamingQueryManager(%d active)",
			sl_session_active_count(sl_lua_session(L)));
	return 1;
}

/* The shared object (one per state) kept at registry[mt .. ".obj"]. */
static void push_shared(lua_State *L, const char *mt)
{
	lua_pushfstring(L, "%s.obj", mt);
	if (lua_rawget(L, LUA_REGISTRYINDEX) != LUA_TNIL)
		return;
	lua_pop(L, 1);
	lua_newtable(L);
	luaL_setmetatable(L, mt);
	lua_pushfstring(L, "%s.obj", mt);
	lua_pushvalue(L, -2);
	lua_rawset(L, LUA_REGISTRYINDEX);
}

void sl_lquery_push_streams(lua_State *L)
{
	push_shared(L, MT_STREAMS);
}

void sl_lquery_push_clock(lua_State *L)
{
	push_shared(L, MT_CLOCK);
}

static void object_mt(lua_State *L, const char *mt, lua_CFunction index,
		      lua_CFunction tostr, const luaL_Reg *methods)
{
	sl_lua_class_open(L, &(sl_lua_class){ .name = mt,
					      .index = index,
					      .newindex = l_readonly,
					      .tostring = tostr,
					      .methods = methods });
}

void sl_lquery_open(lua_State *L)
{
	sl_query_set_interrupt_check(sl_lua_interrupt_pending);
	sl_lua_class_open(L, &(sl_lua_class){ .name = SL_MT_QUERY,
					      .gc = l_query_gc,
					      .index = l_query_index,
					      .tostring = l_query_tostring,
					      .methods = query_methods });
	object_mt(L, MT_STREAMS, l_streams_index, l_streams_tostring,
		  streams_methods);
	object_mt(L, MT_CLOCK, l_clock_index, l_clock_tostring, clock_methods);

	lua_newtable(L); /* query address -> userdata, weak values */
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "v");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_QUERIES);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_LISTENERS);
}
