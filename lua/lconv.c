/*
 * lconv: Lua tables in, Lua tables out.
 *
 * Into the engine, one column at a time: build() turns a Lua array of n
 * values (nil allowed) into a column of the wanted type.  A STRUCT splits
 * its values into one Lua array per field and recurses; an ARRAY flattens
 * its elements into one Lua array and recurses.  Each column under
 * construction sits in a guard userdata whose __gc frees it, so Lua errors
 * (only memory errors can happen here) never leak.  Type errors are
 * returned as sl_err, not raised, and name the top-level row: nested
 * values carry a position -> row map along.
 *
 * Out of the engine: Rows keep their field order in a weak-keyed registry
 * table (row -> array of names), so the row table itself holds only its
 * named fields and pairs()/row[i]/tostring follow the schema order.
 */
#include "lconv.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "lerr.h"
#include "lua_int.h"
#include "core/timeutil.h"

#define MT_GUARD "streamlab.ColGuard"
#define ROWNAMES "streamlab.Row.names"

typedef struct guard {
	sl_col *c;
} guard;

typedef struct ctx {
	const char *who;
	sl_err *err;
} ctx;

static int l_guard_gc(lua_State *L)
{
	guard *g = lua_touserdata(L, 1);
	sl_col_free(g->c);
	g->c = NULL;
	return 0;
}

static guard *newguard(lua_State *L)
{
	guard *g = lua_newuserdatauv(L, sizeof *g, 0);
	g->c = NULL;
	luaL_setmetatable(L, MT_GUARD);
	return g;
}

static void nomem(lua_State *L)
{
	sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
}

/* Top-level row number (1-based) of position i. */
static lua_Integer rowof(lua_State *L, int rowsmap, int64_t i)
{
	lua_Integer r;
	if (rowsmap == 0)
		return (lua_Integer)i + 1;
	lua_rawgeti(L, rowsmap, (lua_Integer)i + 1);
	r = lua_tointeger(L, -1);
	lua_pop(L, 1);
	return r;
}

/* "who: row R, field 'path': expected TYPE, got DESC" for the value on top. */
static int bad_value(lua_State *L, const ctx *cx, int rowsmap, int64_t i,
		     const char *path, const sl_type *t)
{
	char got[96];
	sl_buf tn;
	sl_buf_init(&tn);
	sl_type_sql(t, &tn);
	sl_lerr_describe(L, -1, got, sizeof got);
	sl_err_set(cx->err, SL_EINVAL,
		   "%s: row %lld, field '%s': expected %s, got %s", cx->who,
		   (long long)rowof(L, rowsmap, i), path, sl_buf_cstr(&tn),
		   got);
	if (t->kind == SL_TIMESTAMP)
		sl_err_hint(cx->err, "a timestamp is a string like "
				     "'2026-01-01 12:00:00' or a number of "
				     "seconds since the epoch");
	if (t->kind == SL_DATE)
		sl_err_hint(cx->err, "a date is a string like '2026-01-01'");
	sl_buf_release(&tn);
	return -1;
}

static int integral(lua_State *L, lua_Integer *out)
{
	if (lua_isinteger(L, -1)) {
		*out = lua_tointeger(L, -1);
		return 1;
	}
	if (lua_type(L, -1) == LUA_TNUMBER) {
		double d = lua_tonumber(L, -1);
		if (d == floor(d) && d >= -9.2e18 && d <= 9.2e18) {
			*out = (lua_Integer)d;
			return 1;
		}
	}
	return 0;
}

/* Store the Lua value on the stack top into row i of primitive column c. */
static int put_prim(lua_State *L, const ctx *cx, sl_col *c, int64_t i,
		    int rowsmap, const char *path)
{
	int lt = lua_type(L, -1);
	lua_Integer v;
	if (lt == LUA_TNIL)
		return sl_col_set_null(c, i) < 0 ? sl_err_nomem(cx->err) : 0;
	switch (c->type->kind) {
	case SL_BOOLEAN:
		if (lt != LUA_TBOOLEAN)
			break;
		sl_col_u8(c)[i] = (uint8_t)lua_toboolean(L, -1);
		return 0;
	case SL_INT:
		if (!integral(L, &v) || v < INT32_MIN || v > INT32_MAX)
			break;
		sl_col_i32(c)[i] = (int32_t)v;
		return 0;
	case SL_BIGINT:
		if (!integral(L, &v))
			break;
		sl_col_i64(c)[i] = v;
		return 0;
	case SL_DOUBLE:
		if (lt != LUA_TNUMBER)
			break;
		sl_col_f64(c)[i] = lua_tonumber(L, -1);
		return 0;
	case SL_STRING:
	case SL_BINARY: {
		size_t n;
		const char *s;
		if (lt != LUA_TSTRING)
			break;
		s = lua_tolstring(L, -1, &n);
		return sl_col_set_str(c, i, s, n) < 0 ? sl_err_nomem(cx->err)
						      : 0;
	}
	case SL_TIMESTAMP: {
		int64_t us;
		if (lt == LUA_TSTRING) {
			size_t n;
			const char *s = lua_tolstring(L, -1, &n);
			if (!sl_ts_parse(s, n, &us))
				break;
			sl_col_i64(c)[i] = us;
			return 0;
		}
		if (lt != LUA_TNUMBER)
			break;
		if (lua_isinteger(L, -1))
			us = (int64_t)lua_tointeger(L, -1) * SL_US_PER_SEC;
		else
			us = (int64_t)llround(lua_tonumber(L, -1) * 1e6);
		sl_col_i64(c)[i] = us;
		return 0;
	}
	case SL_DATE: {
		size_t n;
		const char *s;
		if (lt != LUA_TSTRING)
			break;
		s = lua_tolstring(L, -1, &n);
		if (!sl_date_parse(s, n, &sl_col_i32(c)[i]))
			break;
		return 0;
	}
	default: break;
	}
	return bad_value(L, cx, rowsmap, i, path, c->type);
}

static guard *build(lua_State *L, const ctx *cx, sl_type *t, int vals,
		    int64_t n, int rowsmap, const char *path, int top);

static void child_path(char *out, size_t size, const char *path,
		       const char *name)
{
	if (path[0])
		snprintf(out, size, "%s.%s", path, name);
	else
		snprintf(out, size, "%s", name);
}

enum { M_NULL, M_MAP, M_POS, M_BARE };

/* Decide how the struct value on the stack top is read: by name, by
 * position or (one-field struct) as a bare value.  Checks unknown names and
 * extra positions. */
static int struct_mode(lua_State *L, const ctx *cx, const sl_type *t, int64_t i,
		       int rowsmap, const char *path, int top, char *mode)
{
	int v = lua_gettop(L), has_name = 0, maxpos = 0;
	if (lua_isnil(L, v)) {
		*mode = M_NULL;
		if (!top)
			return 0;
	} else if (lua_type(L, v) != LUA_TTABLE ||
		   luaL_testudata(L, v, SL_MT_COLUMN) != NULL) {
		if (t->nfields == 1) {
			*mode = M_BARE;
			return 0;
		}
	} else {
		lua_pushnil(L);
		while (lua_next(L, v) != 0) {
			lua_pop(L, 1);
			if (lua_type(L, -1) == LUA_TSTRING) {
				const char *k = lua_tostring(L, -1);
				int f;
				for (f = 0; f < t->nfields; f++)
					if (strcmp(t->fields[f].name, k) == 0)
						break;
				if (f == t->nfields)
					goto unknown;
				has_name = 1;
			} else if (lua_isinteger(L, -1) &&
				   lua_tointeger(L, -1) > maxpos) {
				lua_Integer k = lua_tointeger(L, -1);
				maxpos = k > 1000000 ? 1000000 : (int)k;
			}
		}
		if (!has_name && maxpos > t->nfields) {
			sl_err_set(
			    cx->err, SL_EINVAL,
			    "%s: row %lld: %d values for %d fields%s%s%s",
			    cx->who, (long long)rowof(L, rowsmap, i), maxpos,
			    t->nfields, path[0] ? " of '" : "", path,
			    path[0] ? "'" : "");
			return -1;
		}
		*mode = has_name ? M_MAP : M_POS;
		return 0;
	}
	{
		char got[96];
		sl_lerr_describe(L, v, got, sizeof got);
		sl_err_set(
		    cx->err, SL_EINVAL,
		    "%s: row %lld%s%s%s: expected a table (array or map), got %s",
		    cx->who, (long long)rowof(L, rowsmap, i),
		    path[0] ? ", field '" : "", path, path[0] ? "'" : "", got);
		return -1;
	}
unknown : {
	const char *names[256];
	const char *k = lua_tostring(L, -1), *near;
	int nn = t->nfields < 256 ? t->nfields : 256;
	for (int f = 0; f < nn; f++)
		names[f] = t->fields[f].name;
	sl_err_set(cx->err, SL_EINVAL, "%s: row %lld: unknown field '%s%s%s'",
		   cx->who, (long long)rowof(L, rowsmap, i), path,
		   path[0] ? "." : "", k);
	near = sl_nearest_name(k, names, nn);
	if (near != NULL)
		sl_err_hint(cx->err, "did you mean '%s'?", near);
	return -1;
}
}

static guard *build_struct(lua_State *L, const ctx *cx, sl_type *t, int vals,
			   int64_t n, int rowsmap, const char *path, int top)
{
	guard *g = newguard(L);
	char *mode = lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1), 0);
	char cpath[256];
	if ((g->c = sl_col_new(t, n)) == NULL)
		nomem(L);
	for (int64_t i = 0; i < n; i++) {
		lua_rawgeti(L, vals, i + 1);
		if (struct_mode(L, cx, t, i, rowsmap, path, top, &mode[i]) < 0)
			return NULL;
		lua_pop(L, 1);
		if (mode[i] == M_NULL && sl_col_set_null(g->c, i) < 0)
			nomem(L);
	}
	for (int f = 0; f < t->nfields; f++) {
		int fv;
		guard *cg;
		lua_createtable(L, (int)(n < 1 << 20 ? n : 1 << 20), 0);
		fv = lua_gettop(L);
		for (int64_t i = 0; i < n; i++) {
			if (mode[i] == M_NULL)
				continue;
			lua_rawgeti(L, vals, i + 1);
			if (mode[i] == M_MAP) {
				lua_pushstring(L, t->fields[f].name);
				lua_rawget(L, -2);
			} else if (mode[i] == M_POS)
				lua_rawgeti(L, -1, f + 1);
			else
				lua_pushvalue(L, -1);
			lua_rawseti(L, fv, i + 1);
			lua_pop(L, 1);
		}
		child_path(cpath, sizeof cpath, path, t->fields[f].name);
		cg = build(L, cx, t->fields[f].type, fv, n, rowsmap, cpath, 0);
		if (cg == NULL)
			return NULL;
		sl_col_free(g->c->child[f]);
		g->c->child[f] = cg->c;
		cg->c = NULL;
		lua_pop(L, 2);
	}
	lua_pop(L, 1); /* mode */
	return g;
}

static guard *build_array(lua_State *L, const ctx *cx, sl_type *t, int vals,
			  int64_t n, int rowsmap, const char *path)
{
	guard *g = newguard(L), *eg;
	int32_t *off = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *off, 0);
	int ev, emap;
	int64_t total = 0;
	char epath[256];
	lua_newtable(L);
	ev = lua_gettop(L);
	lua_newtable(L);
	emap = lua_gettop(L);
	off[0] = 0;
	for (int64_t i = 0; i < n; i++) {
		lua_rawgeti(L, vals, i + 1);
		if (lua_type(L, -1) == LUA_TTABLE) {
			lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
			lua_Integer r = rowof(L, rowsmap, i);
			for (lua_Integer j = 1; j <= len; j++) {
				lua_rawgeti(L, -1, j);
				lua_rawseti(L, ev, ++total);
				lua_pushinteger(L, r);
				lua_rawseti(L, emap, total);
			}
		} else if (!lua_isnil(L, -1)) {
			bad_value(L, cx, rowsmap, i, path, t);
			return NULL;
		}
		lua_pop(L, 1);
		if (total > INT32_MAX) {
			sl_err_set(cx->err, SL_EINVAL,
				   "%s: too many array elements", cx->who);
			return NULL;
		}
		off[i + 1] = (int32_t)total;
	}
	snprintf(epath, sizeof epath, "%s[]", path);
	eg = build(L, cx, t->elem, ev, total, emap, epath, 0);
	if (eg == NULL)
		return NULL;
	g->c = sl_col_array_new(t, n, off, eg->c);
	eg->c = NULL;
	if (g->c == NULL)
		nomem(L);
	for (int64_t i = 0; i < n; i++) {
		lua_rawgeti(L, vals, i + 1);
		if (lua_isnil(L, -1) && sl_col_set_null(g->c, i) < 0)
			nomem(L);
		lua_pop(L, 1);
	}
	lua_pop(L, 4); /* eg, emap, ev, off */
	return g;
}

/* Push a guard holding a new column of type t from vals[1..n]; NULL with
 * cx->err set on a conversion error (the stack is then left as is). */
static guard *build(lua_State *L, const ctx *cx, sl_type *t, int vals,
		    int64_t n, int rowsmap, const char *path, int top)
{
	guard *g;
	luaL_checkstack(L, 8, "createDataFrame: nesting too deep");
	if (t->kind == SL_STRUCT)
		return build_struct(L, cx, t, vals, n, rowsmap, path, top);
	if (t->kind == SL_ARRAY)
		return build_array(L, cx, t, vals, n, rowsmap, path);
	g = newguard(L);
	if ((g->c = sl_col_new(t, n)) == NULL)
		nomem(L);
	for (int64_t i = 0; i < n; i++) {
		lua_rawgeti(L, vals, i + 1);
		if (t->kind == SL_NULLTYPE) {
			if (!lua_isnil(L, -1)) {
				bad_value(L, cx, rowsmap, i, path, t);
				return NULL;
			}
		} else if (put_prim(L, cx, g->c, i, rowsmap, path) < 0) {
			return NULL;
		}
		lua_pop(L, 1);
	}
	return g;
}

sl_batch *sl_lconv_batch(lua_State *L, int idx, sl_type *schema,
			 const char *who, sl_err *err)
{
	int top = lua_gettop(L), nf = schema->nfields;
	ctx cx = { who, err };
	guard *g;
	sl_col **cols;
	lua_Integer n;
	sl_batch *b;
	idx = lua_absindex(L, idx);
	luaL_checktype(L, idx, LUA_TTABLE);
	n = luaL_len(L, idx);
	/* A plain copy so rows are read with raw access (no metamethods). */
	lua_createtable(L, (int)(n < 1 << 20 ? n : 1 << 20), 0);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, idx, i);
		lua_rawseti(L, -2, i);
	}
	g = build(L, &cx, schema, lua_gettop(L), n, 0, "", 1);
	if (g == NULL) {
		lua_settop(L, top);
		return NULL;
	}
	cols = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *cols);
	if (cols == NULL) {
		lua_settop(L, top);
		sl_err_nomem(err);
		return NULL;
	}
	for (int f = 0; f < nf; f++)
		cols[f] = sl_col_ref(g->c->child[f]);
	b = sl_batch_new(schema, n, cols);
	free(cols);
	lua_settop(L, top);
	if (b == NULL)
		sl_err_nomem(err);
	return b;
}

/* ---- schema inference (createDataFrame without a DDL string) ---- */

static sl_type *infer_value(lua_State *L, int v, sl_err *err);

/* STRUCT from the map at v (keys sorted) or the names array at names. */
static sl_type *infer_struct(lua_State *L, int v, int names, sl_err *err)
{
	int n = 0, top = lua_gettop(L);
	sl_type *st;
	if (names == 0) {
		lua_newtable(L);
		names = lua_gettop(L);
		lua_pushnil(L);
		while (lua_next(L, v) != 0) {
			lua_pop(L, 1);
			if (lua_type(L, -1) == LUA_TSTRING) {
				lua_pushvalue(L, -1);
				lua_rawseti(L, names, ++n);
			}
		}
		/* table.sort(names) */
		lua_getglobal(L, "table");
		lua_getfield(L, -1, "sort");
		lua_pushvalue(L, names);
		lua_call(L, 1, 0);
		lua_pop(L, 1);
	}
	n = (int)lua_rawlen(L, names);
	if ((st = sl_type_struct_new(n)) == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (int f = 0; f < n; f++) {
		sl_type *ft;
		lua_rawgeti(L, names, f + 1);
		if (lua_type(L, -1) != LUA_TSTRING) {
			sl_err_set(err, SL_EINVAL,
				   "column names must be strings");
			goto fail;
		}
		lua_pushvalue(L, -1);
		if (lua_rawget(L, v) == LUA_TNIL) {
			lua_pop(L, 1);
			lua_rawgeti(L, v, f + 1);
		}
		ft = infer_value(L, lua_gettop(L), err);
		if (ft == NULL ||
		    sl_type_set_field(st, f, lua_tostring(L, -2), ft, true) < 0)
			goto fail;
		lua_pop(L, 2);
	}
	lua_settop(L, top);
	return st;
fail:
	lua_settop(L, top);
	sl_type_free(st);
	if (err && err->code == SL_OK)
		sl_err_nomem(err);
	return NULL;
}

static sl_type *infer_value(lua_State *L, int v, sl_err *err)
{
	switch (lua_type(L, v)) {
	case LUA_TBOOLEAN: return sl_type_prim(SL_BOOLEAN);
	case LUA_TNUMBER:
		return sl_type_prim(lua_isinteger(L, v) ? SL_BIGINT
							: SL_DOUBLE);
	case LUA_TSTRING: return sl_type_prim(SL_STRING);
	case LUA_TTABLE:
		if (lua_rawlen(L, v) > 0) {
			sl_type *e;
			lua_rawgeti(L, v, 1);
			e = infer_value(L, lua_gettop(L), err);
			lua_pop(L, 1);
			return e ? sl_type_array_new(e) : NULL;
		}
		return infer_struct(L, v, 0, err);
	default:
		sl_err_set(err, SL_EINVAL,
			   "cannot infer a type from a %s value; give a schema "
			   "string such as \"a INT, b STRING\"",
			   luaL_typename(L, v));
		return NULL;
	}
}

sl_type *sl_lconv_infer(lua_State *L, int idx, int names_idx, const char *who,
			sl_err *err)
{
	int top = lua_gettop(L), row;
	sl_type *st = NULL;
	idx = lua_absindex(L, idx);
	if (names_idx)
		names_idx = lua_absindex(L, names_idx);
	if (lua_rawgeti(L, idx, 1) != LUA_TTABLE) {
		sl_err_set(err, SL_EINVAL,
			   "%s: cannot infer a schema from %s; give a schema "
			   "string such as \"a INT, b STRING\"",
			   who,
			   lua_isnil(L, -1) ? "no rows" : "a non-table row");
		goto out;
	}
	row = lua_gettop(L);
	if (names_idx == 0 && lua_rawlen(L, row) > 0) {
		/* array rows without names: _1, _2, ... as PySpark */
		lua_Integer n = (lua_Integer)lua_rawlen(L, row);
		lua_createtable(L, (int)n, 0);
		for (lua_Integer i = 1; i <= n; i++) {
			lua_pushfstring(L, "_%d", (int)i);
			lua_rawseti(L, -2, i);
		}
		names_idx = lua_gettop(L);
	}
	st = infer_struct(L, row, names_idx, err);
	if (st == NULL && err != NULL)
		sl_err_prefix(err, who);
out:
	lua_settop(L, top);
	return st;
}

/* ---- rows out ---- */

static void push_names(lua_State *L, const sl_type *st)
{
	lua_createtable(L, st->nfields, 0);
	for (int f = 0; f < st->nfields; f++) {
		lua_pushstring(L, st->fields[f].name);
		lua_rawseti(L, -2, f + 1);
	}
}

/* New Row table on the top, remembering the names array at `names`. */
static void new_row(lua_State *L, int names, int nfields)
{
	lua_createtable(L, 0, nfields);
	luaL_setmetatable(L, SL_MT_ROW);
	lua_getfield(L, LUA_REGISTRYINDEX, ROWNAMES);
	lua_pushvalue(L, -2);
	lua_pushvalue(L, names);
	lua_rawset(L, -3);
	lua_pop(L, 1);
}

static void push_struct(lua_State *L, const sl_col *c, int64_t i, int names)
{
	const sl_type *t = c->type;
	new_row(L, names, t->nfields);
	for (int f = 0; f < t->nfields; f++) {
		sl_lconv_push_value(L, c->child[f], i);
		lua_setfield(L, -2, t->fields[f].name);
	}
}

void sl_lconv_push_value(lua_State *L, const sl_col *c, int64_t i)
{
	luaL_checkstack(L, 6, "value nesting too deep");
	if (sl_col_isnull(c, i) || c->type->kind == SL_NULLTYPE) {
		lua_pushnil(L);
		return;
	}
	switch (c->type->kind) {
	case SL_BOOLEAN: lua_pushboolean(L, sl_col_u8(c)[i]); return;
	case SL_INT: lua_pushinteger(L, sl_col_i32(c)[i]); return;
	case SL_BIGINT: lua_pushinteger(L, sl_col_i64(c)[i]); return;
	case SL_DOUBLE: lua_pushnumber(L, sl_col_f64(c)[i]); return;
	case SL_STRING:
	case SL_BINARY:
		lua_pushlstring(L, sl_col_str(c)[i].p ? sl_col_str(c)[i].p : "",
				sl_col_str(c)[i].len);
		return;
	case SL_TIMESTAMP: {
		char tmp[64];
		sl_buf b;
		sl_buf_init(&b);
		sl_ts_format(sl_col_i64(c)[i], &b);
		snprintf(tmp, sizeof tmp, "%s", sl_buf_cstr(&b));
		sl_buf_release(&b);
		lua_pushstring(L, tmp);
		return;
	}
	case SL_DATE: {
		char tmp[32];
		sl_buf b;
		sl_buf_init(&b);
		sl_date_format(sl_col_i32(c)[i], &b);
		snprintf(tmp, sizeof tmp, "%s", sl_buf_cstr(&b));
		sl_buf_release(&b);
		lua_pushstring(L, tmp);
		return;
	}
	case SL_STRUCT: {
		push_names(L, c->type);
		push_struct(L, c, i, lua_gettop(L));
		lua_remove(L, -2);
		return;
	}
	case SL_ARRAY: {
		int32_t a = c->offsets[i], z = c->offsets[i + 1];
		lua_createtable(L, z - a, 0);
		for (int32_t j = a; j < z; j++) {
			sl_lconv_push_value(L, c->child[0], j);
			lua_rawseti(L, -2, j - a + 1);
		}
		return;
	}
	default: lua_pushnil(L); return;
	}
}

void sl_lconv_push_row(lua_State *L, const sl_batch *b, int64_t i)
{
	push_names(L, b->schema);
	new_row(L, lua_gettop(L), b->ncols);
	for (int f = 0; f < b->ncols; f++) {
		sl_lconv_push_value(L, b->cols[f], i);
		lua_setfield(L, -2, b->schema->fields[f].name);
	}
	lua_remove(L, -2);
}

void sl_lconv_push_rows(lua_State *L, const sl_batch *b)
{
	int rows, names;
	int64_t n = b->nrows;
	lua_createtable(L, (int)(n < 1 << 24 ? n : 1 << 24), 0);
	rows = lua_gettop(L);
	push_names(L, b->schema);
	names = lua_gettop(L);
	for (int64_t i = 0; i < n; i++) {
		new_row(L, names, b->ncols);
		lua_rawseti(L, rows, i + 1);
	}
	/* Column at a time: one type dispatch per column, not per value. */
	for (int f = 0; f < b->ncols; f++) {
		const sl_col *c = b->cols[f];
		const char *name = b->schema->fields[f].name;
		lua_pushstring(L, name);
		for (int64_t i = 0; i < n; i++) {
			if (sl_col_isnull(c, i))
				continue;
			lua_rawgeti(L, rows, i + 1);
			lua_pushvalue(L, -2);
			switch (c->type->kind) {
			case SL_INT:
				lua_pushinteger(L, sl_col_i32(c)[i]);
				break;
			case SL_BIGINT:
				lua_pushinteger(L, sl_col_i64(c)[i]);
				break;
			case SL_DOUBLE:
				lua_pushnumber(L, sl_col_f64(c)[i]);
				break;
			default: sl_lconv_push_value(L, c, i); break;
			}
			lua_rawset(L, -3);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1); /* names */
}

/* ---- the Row metatable ---- */

/* Push the names array of Row t (at idx); returns its length. */
static int row_names(lua_State *L, int idx)
{
	lua_getfield(L, LUA_REGISTRYINDEX, ROWNAMES);
	lua_pushvalue(L, idx);
	lua_rawget(L, -2);
	lua_remove(L, -2);
	if (!lua_istable(L, -1))
		return 0;
	return (int)lua_rawlen(L, -1);
}

static int l_row_index(lua_State *L)
{
	int n = row_names(L, 1);
	if (lua_isinteger(L, 2)) {
		lua_Integer k = lua_tointeger(L, 2);
		if (k < 1 || k > n)
			return 0;
		lua_rawgeti(L, -1, k);
		lua_rawget(L, 1);
		return 1;
	}
	if (lua_type(L, 2) == LUA_TSTRING && n > 0) {
		const char *k = lua_tostring(L, 2);
		const char *names[256];
		int nn = n < 256 ? n : 256;
		for (int i = 1; i <= n; i++) {
			lua_rawgeti(L, 3, i);
			if (strcmp(lua_tostring(L, -1), k) == 0)
				return 0; /* a NULL field */
			if (i <= nn)
				names[i - 1] = lua_tostring(L, -1);
			lua_pop(L, 1);
		}
		/* names stay alive: they are in the names array at 3 */
		return sl_lua_nofield(L, "Row", k, names, nn);
	}
	return 0;
}

static int l_row_len(lua_State *L)
{
	lua_pushinteger(L, row_names(L, 1));
	return 1;
}

static int l_row_next(lua_State *L)
{
	int n = row_names(L, 1), names = lua_gettop(L), at = 0;
	if (!lua_isnil(L, 2)) {
		for (at = 1; at <= n; at++) {
			lua_rawgeti(L, names, at);
			if (lua_rawequal(L, -1, 2)) {
				lua_pop(L, 1);
				break;
			}
			lua_pop(L, 1);
		}
	}
	if (at >= n)
		return 0;
	lua_rawgeti(L, names, at + 1);
	lua_pushvalue(L, -1);
	lua_rawget(L, 1);
	return 2;
}

static int l_row_pairs(lua_State *L)
{
	lua_pushcfunction(L, l_row_next);
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

static void add_repr(lua_State *L, luaL_Buffer *b, int v)
{
	if (lua_type(L, v) == LUA_TSTRING) {
		luaL_addchar(b, '\'');
		lua_pushvalue(L, v);
		luaL_addvalue(b);
		luaL_addchar(b, '\'');
	} else if (lua_type(L, v) == LUA_TTABLE &&
		   !luaL_getmetafield(L, v, "__name")) {
		lua_Integer n = (lua_Integer)lua_rawlen(L, v);
		luaL_addchar(b, '[');
		for (lua_Integer i = 1; i <= n; i++) {
			if (i > 1)
				luaL_addstring(b, ", ");
			lua_rawgeti(L, v, i);
			add_repr(L, b, lua_gettop(L));
			lua_pop(L, 1);
		}
		luaL_addchar(b, ']');
	} else {
		if (lua_type(L, v) == LUA_TTABLE)
			lua_pop(L, 1); /* the __name */
		luaL_tolstring(L, v, NULL);
		luaL_addvalue(b);
	}
}

static int l_row_tostring(lua_State *L)
{
	luaL_Buffer b;
	int n, names;
	luaL_checkstack(L, 10, "Row nesting too deep");
	n = row_names(L, 1);
	names = lua_gettop(L);
	luaL_buffinit(L, &b);
	luaL_addstring(&b, "Row(");
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addstring(&b, ", ");
		lua_rawgeti(L, names, i);
		lua_pushvalue(L, -1);
		luaL_addvalue(&b);
		luaL_addchar(&b, '=');
		lua_rawget(L, 1);
		add_repr(L, &b, lua_gettop(L));
		lua_pop(L, 1);
	}
	luaL_addchar(&b, ')');
	luaL_pushresult(&b);
	return 1;
}

void sl_lconv_open(lua_State *L)
{
	static const luaL_Reg row_meta[] = { { "__index", l_row_index },
					     { "__len", l_row_len },
					     { "__pairs", l_row_pairs },
					     { "__tostring", l_row_tostring },
					     { NULL, NULL } };
	luaL_newmetatable(L, SL_MT_ROW);
	luaL_setfuncs(L, row_meta, 0);
	lua_pop(L, 1);
	luaL_newmetatable(L, MT_GUARD);
	lua_pushcfunction(L, l_guard_gc);
	lua_setfield(L, -2, "__gc");
	lua_pop(L, 1);
	/* row -> names, weak keys so rows are collected normally */
	lua_newtable(L);
	lua_newtable(L);
	lua_pushstring(L, "k");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, ROWNAMES);
}

const char *sl_lconv_optstr(lua_State *L, int idx, char *buf, size_t size)
{
	switch (lua_type(L, idx)) {
	case LUA_TSTRING: return lua_tostring(L, idx);
	case LUA_TBOOLEAN:
		snprintf(buf, size, "%s",
			 lua_toboolean(L, idx) ? "true" : "false");
		return buf;
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			snprintf(buf, size, "%lld",
				 (long long)lua_tointeger(L, idx));
		else {
			double d = lua_tonumber(L, idx);
			if (d == floor(d) && fabs(d) < 1e15) {
				snprintf(buf, size, "%.1f", d);
			} else {
				/* shortest text that reads back the same */
				for (int p = 15; p <= 17; p++) {
					snprintf(buf, size, "%.*g", p, d);
					if (strtod(buf, NULL) == d)
						break;
				}
			}
		}
		return buf;
	default: return NULL;
	}
}
