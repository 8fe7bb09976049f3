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

/* Install the streamlab globals.  Returns 0. */
int sl_lua_open(lua_State *L);

#endif
