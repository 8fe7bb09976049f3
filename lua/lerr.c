/*
 * lerr: engine errors as Lua error objects, and argument checks with hints.
 *
 * Why a table and not a string: scripts can test err.code ("ParseException")
 * and err.hint without parsing text, while tostring(err) (what the REPL and
 * pcall users print) still reads as one line "FILE:LINE: message (hint)".
 * The location is captured when the error is raised (luaL_where), because a
 * table error object does not get the "chunk:line:" prefix that luaL_error
 * adds to strings.
 */
#include "lerr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int l_error_tostring(lua_State *L)
{
	luaL_Buffer b;
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_buffinit(L, &b);
	if (lua_getfield(L, 1, "where") == LUA_TSTRING)
		luaL_addvalue(&b);
	else
		lua_pop(L, 1);
	if (lua_getfield(L, 1, "message") == LUA_TSTRING)
		luaL_addvalue(&b);
	else
		lua_pop(L, 1);
	if (lua_getfield(L, 1, "hint") == LUA_TSTRING &&
	    lua_rawlen(L, -1) > 0) {
		luaL_addstring(&b, " (");
		luaL_addvalue(&b);
		luaL_addstring(&b, ")");
	} else {
		lua_pop(L, 1);
	}
	luaL_pushresult(&b);
	return 1;
}

void sl_lerr_open(lua_State *L)
{
	if (luaL_newmetatable(L, SL_MT_ERROR)) {
		lua_pushcfunction(L, l_error_tostring);
		lua_setfield(L, -2, "__tostring");
	}
	lua_pop(L, 1);
}

void sl_lerr_push(lua_State *L, const sl_err *err, int level)
{
	lua_createtable(L, 0, 4);
	lua_pushstring(L, sl_err_codename(err->code));
	lua_setfield(L, -2, "code");
	lua_pushstring(L, err->msg[0] ? err->msg : "unknown error");
	lua_setfield(L, -2, "message");
	if (err->hint[0]) {
		lua_pushstring(L, err->hint);
		lua_setfield(L, -2, "hint");
	}
	luaL_where(L, level);
	lua_setfield(L, -2, "where");
	luaL_setmetatable(L, SL_MT_ERROR);
}

int sl_lerr_raise(lua_State *L, const sl_err *err)
{
	sl_lerr_push(L, err, 1);
	return lua_error(L);
}

int sl_lerr_raisef(lua_State *L, int code, const char *hint, const char *fmt,
		   ...)
{
	sl_err e;
	va_list ap;
	va_start(ap, fmt);
	sl_err_vset(&e, code, fmt, ap);
	va_end(ap);
	if (hint != NULL)
		snprintf(e.hint, sizeof e.hint, "%s", hint);
	return sl_lerr_raise(L, &e);
}

void sl_lerr_describe(lua_State *L, int idx, char *out, size_t size)
{
	const char *tn;
	switch (lua_type(L, idx)) {
	case LUA_TSTRING: {
		size_t n;
		const char *s = lua_tolstring(L, idx, &n);
		snprintf(out, size, "string '%.*s%s'", n > 40 ? 40 : (int)n, s,
			 n > 40 ? "..." : "");
		return;
	}
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			snprintf(out, size, "number %lld",
				 (long long)lua_tointeger(L, idx));
		else
			snprintf(out, size, "number %.14g",
				 lua_tonumber(L, idx));
		return;
	case LUA_TBOOLEAN:
		snprintf(out, size, "boolean %s",
			 lua_toboolean(L, idx) ? "true" : "false");
		return;
	case LUA_TNONE: snprintf(out, size, "no value"); return;
	default: break;
	}
	if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING) {
		snprintf(out, size, "%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return;
	}
	tn = luaL_typename(L, idx);
	snprintf(out, size, "%s", tn);
}

void *sl_lerr_checkself(lua_State *L, const char *tname, const char *method)
{
	const char *got;
	void *p = luaL_testudata(L, 1, tname);
	if (p != NULL)
		return p;
	if (luaL_getmetafield(L, 1, "__name") == LUA_TSTRING)
		got = lua_tostring(L, -1);
	else
		got = luaL_typename(L, 1);
	luaL_where(L, 1);
	lua_pushfstring(L,
			"bad argument #1 to '%s' (%s expected, got %s; "
			"use ':' not '.' to call methods)",
			method, tname, got);
	lua_concat(L, 2);
	lua_error(L);
	return NULL;
}

int sl_lerr_argerror(lua_State *L, int arg, const char *method, const char *fmt,
		     ...)
{
	char msg[400];
	va_list ap;
	lua_Debug ar;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* Called with ':' the receiver is not counted, as luaL_argerror does. */
	if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) &&
	    ar.namewhat != NULL && strcmp(ar.namewhat, "method") == 0)
		arg--;
	luaL_where(L, 1);
	lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg, method, msg);
	lua_concat(L, 2);
	return lua_error(L);
}

const char *sl_lerr_checkstr(lua_State *L, int arg, const char *method,
			     const char *what)
{
	char got[96];
	if (lua_type(L, arg) == LUA_TSTRING)
		return lua_tostring(L, arg);
	sl_lerr_describe(L, arg, got, sizeof got);
	sl_lerr_argerror(L, arg, method, "%s expected, got %s", what, got);
	return NULL;
}
