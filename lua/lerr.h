/*
 * lerr: the Lua face of engine errors and of argument checking.
 *
 * Engine errors (sl_err) become a Lua error *object*: a table
 *   { code = "AnalysisException", message = "...", hint = "..." or nil,
 *     where = "stdin:1: " }
 * whose metatable "streamlab.Error" has a __tostring giving
 * "where message" or "where message (hint)".  The REPL's message handler
 * calls __tostring, so a learner sees "stdin:1: filter: cannot resolve ...".
 *
 * Argument helpers raise luaL_argerror's "bad argument #n to 'method' (...)";
 * a receiver of the wrong type (a method called with '.' instead of ':')
 * adds "use ':' not '.' to call methods".
 *
 * Rule for every binding (STYLE.md): check arguments first, create result
 * userdata in a safe empty state, and only then call the engine, so a
 * longjmp never leaks engine memory.  The raisers below never return.
 */
#ifndef SL_LERR_H
#define SL_LERR_H

#include <lua.h>
#include <lauxlib.h>

#include "core/err.h"

#define SL_MT_ERROR "streamlab.Error"

/* Install the error metatable (idempotent). */
void sl_lerr_open(lua_State *L);

/* Push a new error object for err (code, message, hint, where at `level`,
 * as luaL_where). */
void sl_lerr_push(lua_State *L, const sl_err *err, int level);
/* Raise err as an error object located at the Lua caller. Never returns. */
int sl_lerr_raise(lua_State *L, const sl_err *err);
/* Raise an error object built from a code and a formatted message, with an
 * optional hint (NULL for none).  Never returns. */
int sl_lerr_raisef(lua_State *L, int code, const char *hint, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));

/* The userdata of type tname at argument 1, or a "bad argument #1 to
 * 'method' (tname expected, got T; use ':' not '.' to call methods)". */
void *sl_lerr_checkself(lua_State *L, const char *tname, const char *method);
/* Argument `arg` must be a string: returns it, or raises a bad argument
 * naming `method` and what was expected. */
const char *sl_lerr_checkstr(lua_State *L, int arg, const char *method,
			     const char *what);
/* "bad argument #arg to 'method' (msg)", with the argument number adjusted
 * for the receiver.  Never returns. */
int sl_lerr_argerror(lua_State *L, int arg, const char *method, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));

/* Short description of the value at idx for messages: "string 'x'",
 * "number 1.5", "boolean true", "table", "nil", "streamlab.Column". */
void sl_lerr_describe(lua_State *L, int idx, char *out, size_t size);

#endif
