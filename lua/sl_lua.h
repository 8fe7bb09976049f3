/*
 * sl_lua: the Lua 5.4 face of the engine, as ../shared/spec/API.md names it.
 *
 * sl_lua_open installs the globals `spark`, `F` (and later `kafka`) into L.
 * Everything user-visible follows PySpark name for name; methods are called
 * with `:`; keyword arguments are one table argument.
 *
 * Errors: a bad argument raises luaL_argerror's "bad argument #n to
 * 'method' (...)" with a hint "(use ':' not '.')" when a method was called
 * with '.'; an engine error raises an error object (table with code,
 * message, hint and a __tostring giving "message (hint)").
 */
#ifndef SL_LUA_H
#define SL_LUA_H

#include <lua.h>

#include <stdbool.h>
#include <stdint.h>

/* Install the streamlab globals and create the engine session `spark`
 * owns (freed when L closes).  Returns 0. */
int sl_lua_open(lua_State *L);

/* The REPL's idle loop: run every streaming trigger that is due now
 * (real-clock ProcessingTime queries run in the background this way).
 * Callbacks and console-sink output run protected; nothing raises.
 * Returns the number of micro-batches run.  Plain and run modes never
 * call it, so they stay deterministic. */
int sl_lua_tick(lua_State *L);
/* True when a tick may have work: some query is active (a default
 * trigger polls its sources; a ProcessingTime one waits for its instant). */
bool sl_lua_tick_due(lua_State *L);

/* Ctrl-C.  The console's SIGINT handler calls sl_lua_interrupt(1) (it is
 * async-signal-safe) as it sets the hook that stops Lua; a new call into
 * Lua clears it.  The bindings read it to tell an interrupt from an
 * error: a foreachBatch function stopped by Ctrl-C aborts its batch (the
 * query goes on), and a wait (processAllAvailable, awaitTermination)
 * ends with one line "interrupted: ..." and takes the interrupt
 * (sl_lua_interrupt_take), so the hook raises nothing more. */
void sl_lua_interrupt(int on);
bool sl_lua_interrupt_pending(void);
bool sl_lua_interrupt_take(void);
/* A callback the idle loop runs (a background batch's foreachBatch) is
 * outside every call the console armed Ctrl-C for.  The console lends its
 * handling: arm(L) arms it for L and returns true, or returns false when
 * a call is armed already; disarm(L) undoes a true arm.  The bindings call
 * them through sl_lua_guard_arm/_disarm (no guard set: nothing happens). */
void sl_lua_set_interrupt_guard(bool (*arm)(lua_State *L),
				void (*disarm)(lua_State *L));
bool sl_lua_guard_arm(lua_State *L);
void sl_lua_guard_disarm(lua_State *L);

/* Bounds on a running foreachBatch function.  While one runs, a count
 * hook (stream.c, every SL_LUA_HOOK_COUNT instructions, chained after the
 * hook already set: the workbench's redraw) stops it the way Ctrl-C does
 * (the batch aborts, nothing committed, the query stays active and held,
 * the batch re-runs when asked for) when
 *  - the deadline passed: a wait with a timeout (awaitTermination(t),
 *    awaitAnyTermination(t)) sets it, on the monotonic clock, µs
 *    (INT64_MAX: none); set_ returns the one before, to put back;
 *  - a stop is asked for (sl_lua_stop_batch(1)): the workbench asks when
 *    the learner types a line while a background batch runs, so the line
 *    (q:stop()) runs next.  Each batch starts with none asked for.
 * sl_lua_batch_aborted(why): the reason (a static string, e.g. "not enough
 * memory") the wait's one line gives instead of "interrupted". */
#define SL_LUA_HOOK_COUNT 10000
int64_t sl_lua_batch_deadline(void);
int64_t sl_lua_set_batch_deadline(int64_t mono_us);
void sl_lua_stop_batch(int on);
bool sl_lua_stop_batch_pending(void);
void sl_lua_batch_aborted(const char *why);

/* Lua's memory bound, spark.conf's streamlab.lua.memoryLimit (console.c).
 * The console creates its state with a counting allocator: an allocation
 * that would take what Lua holds past the limit fails, Lua collects once
 * in an emergency and, if still short, raises "not enough memory" (the
 * input fails, or a foreachBatch batch is aborted, nothing committed, and
 * re-runs later); the REPL goes on.  Only Lua's own allocations count, not
 * the engine's batches or state.  set_limit: false when L was not created
 * by the console (no count; the limit does nothing).  used/limit: bytes,
 * 0 when not counted. */
#define SL_LUA_MEMORY_LIMIT_DEFAULT ((size_t)1 << 30)
bool sl_lua_memory_set_limit(lua_State *L, size_t bytes);
size_t sl_lua_memory_used(lua_State *L);
size_t sl_lua_memory_limit(lua_State *L);

/* The engine session behind L's `spark` (borrowed; owned by the state).
 * For the REPL's screen, which draws the session's queries.  Raises a Lua
 * error only when the state is closing. */
struct sl_session;
struct sl_session *sl_lua_session(lua_State *L);
/* Back at the prompt (or idle): every active query's checkpoint writes
 * are durable when it returns (sl_session_sync).  Never raises. */
void sl_lua_sync(lua_State *L);

#endif
