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
 * spark.conf keeps string values in a registry table; known keys have
 * Spark's defaults and are validated on set.
 */
#include "sl_lua.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lconv.h"
#include "lerr.h"
#include "lua_int.h"
#include "tables.h"

#define MT_SESSION "streamlab.SparkSession"
#define MT_CONF "streamlab.RuntimeConfig"
#define CONF_VALUES "streamlab.conf"

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
	sl_batch *b;
	sl_plan *p;
	int ud;
	drop_self(L);
	name = sl_lerr_checkstr(L, 1, "table", "table name");
	sl_ldf_new(L);
	ud = lua_gettop(L);
	b = sl_tables_get(name, &err);
	if (b == NULL)
		return sl_lerr_raise(L, &err);
	p = sl_plan_local(b, &err);
	sl_batch_free(b);
	return sl_ldf_finish(L, ud, p, &err);
}

/* ---- spark.conf ---- */

typedef struct confkey {
	const char *key;
	const char *def;
	const char *kind; /* "bool", "int", "policy", "string" */
} confkey;

static const confkey known_conf[] = {
	{"spark.sql.streaming.multipleWatermarkPolicy", "min", "policy"},
	{"spark.sql.streaming.noDataMicroBatches.enabled", "true", "bool"},
	{"spark.sql.streaming.statefulOperator.allowMultiple", "true", "bool"},
	{"spark.sql.streaming.minBatchesToRetain", "100", "int"},
	{"spark.sql.session.timeZone", "UTC", "string"},
	{"spark.sql.shuffle.partitions", "200", "int"},
	{"spark.sql.caseSensitive", "false", "bool"},
	{NULL, NULL, NULL}
};

static const confkey *find_conf(const char *k)
{
	for (const confkey *c = known_conf; c->key; c++)
		if (strcmp(c->key, k) == 0)
			return c;
	return NULL;
}

static void check_conf_value(lua_State *L, const confkey *c, const char *v)
{
	if (c == NULL)
		return;
	if (strcmp(c->kind, "bool") == 0 && strcmp(v, "true") != 0 &&
	    strcmp(v, "false") != 0)
		sl_lerr_raisef(L, SL_EINVAL, NULL,
			       "%s should be boolean, but was %s", c->key, v);
	if (strcmp(c->kind, "policy") == 0 && strcasecmp(v, "min") != 0 &&
	    strcasecmp(v, "max") != 0)
		sl_lerr_raisef(L, SL_EINVAL, NULL,
			       "%s should be one of min, max, but was %s",
			       c->key, v);
	if (strcmp(c->kind, "int") == 0) {
		char *end;
		long long n = strtoll(v, &end, 10);
		if (*v == '\0' || *end != '\0' || n < 0)
			sl_lerr_raisef(L, SL_EINVAL, NULL,
				       "%s should be int, but was %s", c->key, v);
	}
	if (strcmp(c->key, "spark.sql.session.timeZone") == 0 &&
	    strcmp(v, "UTC") != 0)
		sl_lerr_raisef(L, SL_EINVAL,
			       "streamlab keeps all timestamps in UTC",
			       "%s: only 'UTC' is supported, got '%s'", c->key,
			       v);
}

/* The receiver must be spark.conf: a '.' call gets the ':' hint. */
static void check_conf(lua_State *L, const char *method)
{
	if (lua_istable(L, 1) && luaL_getmetafield(L, 1, "__name") == LUA_TSTRING &&
	    strcmp(lua_tostring(L, -1), MT_CONF) == 0) {
		lua_pop(L, 1);
		return;
	}
	luaL_where(L, 1);
	lua_pushfstring(L,
			"bad argument #1 to '%s' (" MT_CONF " expected, got %s; "
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
					"got %s", got);
	}
	check_conf_value(L, find_conf(k), v);
	lua_getfield(L, LUA_REGISTRYINDEX, CONF_VALUES);
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
	return 0;
}

static int l_conf_get(lua_State *L)
{
	const char *k;
	const confkey *c;
	check_conf(L, "get");
	k = sl_lerr_checkstr(L, 2, "get", "config key");
	lua_settop(L, 3); /* 3: the default, maybe nil */
	lua_getfield(L, LUA_REGISTRYINDEX, CONF_VALUES);
	if (lua_getfield(L, -1, k) != LUA_TNIL)
		return 1;
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
			      "cannot be found", k);
}

static int l_conf_unset(lua_State *L)
{
	const char *k;
	check_conf(L, "unset");
	k = sl_lerr_checkstr(L, 2, "unset", "config key");
	lua_getfield(L, LUA_REGISTRYINDEX, CONF_VALUES);
	lua_pushnil(L);
	lua_setfield(L, -2, k);
	return 0;
}

static int l_conf_tostring(lua_State *L)
{
	lua_pushliteral(L, "RuntimeConfig");
	return 1;
}

static void push_conf(lua_State *L)
{
	static const luaL_Reg conf_methods[] = {
		{"set", l_conf_set}, {"get", l_conf_get},
		{"unset", l_conf_unset}, {NULL, NULL}
	};
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
	"read", "readStream", "conf", "createDataFrame", "table", NULL
};

static int l_spark_index(lua_State *L)
{
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "read") == 0) {
		sl_lreader_push(L);
		return 1;
	}
	if (strcmp(k, "readStream") == 0)
		return sl_lerr_raisef(L, SL_ESTATE,
				      "streaming arrives in a later milestone",
				      "readStream: streaming is not available "
				      "yet");
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
	lua_createtable(L, 6, 0);
	for (int i = 0; spark_fields[i]; i++) {
		lua_pushstring(L, spark_fields[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "fields");
	lua_setmetatable(L, -2);
}

int sl_lua_open(lua_State *L)
{
	sl_lerr_open(L);
	sl_lconv_open(L);
	sl_lcol_open(L);
	sl_ldf_open(L);
	sl_lreader_open(L);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, CONF_VALUES);
	push_spark(L);
	lua_setglobal(L, "spark");
	return 0;
}
