/*
 * column: the Column userdata and the F table (pyspark.sql.functions).
 *
 * A Column wraps one unresolved sl_expr (a counted reference).  Columns are
 * values: every method returns a new Column and never changes its receiver.
 * They are resolved only when a DataFrame method uses them (plan.h), which
 * is where unknown names are reported.
 *
 * Lua forces ==, <, <= to return booleans, so comparisons are the methods
 * :eq :ne :lt :le :gt :ge (API.md).  The __eq/__lt/__le metamethods raise an
 * error that says so, rather than silently yielding a boolean.
 *
 * Argument conventions follow PySpark: where a PySpark function takes
 * "ColumnOrName", a Lua string is a column name; where it takes a literal
 * (a window duration, a JSON schema, a date format), a string is a literal.
 * Numbers and booleans are always literals.  See the F table below.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lerr.h"
#include "lua_int.h"
#include "expr/sqlexpr.h"

/* ---- Column basics ---- */

static int l_column_gc(lua_State *L)
{
	l_column *c = luaL_checkudata(L, 1, SL_MT_COLUMN);
	sl_expr_free(c->e);
	c->e = NULL;
	return 0;
}

/* A new empty Column on the stack top. */
static l_column *newcol(lua_State *L)
{
	l_column *c = lua_newuserdatauv(L, sizeof *c, 0);
	c->e = NULL;
	luaL_setmetatable(L, SL_MT_COLUMN);
	return c;
}

static void nomem(lua_State *L)
{
	sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
}

void sl_lcol_push(lua_State *L, sl_expr *e)
{
	l_column *c;
	if (e == NULL)
		nomem(L);
	/* lua_newuserdatauv can raise a memory error: do not leak e. */
	lua_pushlightuserdata(L, e);
	c = lua_newuserdatauv(L, sizeof *c, 0);
	c->e = e;
	luaL_setmetatable(L, SL_MT_COLUMN);
	lua_remove(L, -2);
}

sl_expr *sl_lcol_test(lua_State *L, int idx)
{
	l_column *c = luaL_testudata(L, idx, SL_MT_COLUMN);
	return c != NULL ? c->e : NULL;
}

sl_expr *sl_lcol_literal(lua_State *L, int idx)
{
	switch (lua_type(L, idx)) {
	case LUA_TNIL:
	case LUA_TNONE: return sl_expr_lit_null();
	case LUA_TBOOLEAN: return sl_expr_lit_bool(lua_toboolean(L, idx));
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			lua_Integer v = lua_tointeger(L, idx);
			if (v >= INT32_MIN && v <= INT32_MAX)
				return sl_expr_lit_int((int32_t)v);
			return sl_expr_lit_bigint(v);
		}
		return sl_expr_lit_double(lua_tonumber(L, idx));
	case LUA_TSTRING: {
		size_t n;
		const char *s = lua_tolstring(L, idx, &n);
		return sl_expr_lit_string(s, n);
	}
	default: return NULL;
	}
}

static sl_expr *from_name(const char *s)
{
	size_t n = strlen(s);
	if (strcmp(s, "*") == 0)
		return sl_expr_star(NULL);
	if (n > 2 && strcmp(s + n - 2, ".*") == 0) {
		char q[256];
		if (n - 2 >= sizeof q)
			return sl_expr_col(s);
		memcpy(q, s, n - 2);
		q[n - 2] = '\0';
		return sl_expr_star(q);
	}
	return sl_expr_col(s);
}

sl_expr *sl_lcol_coerce(lua_State *L, int idx, int how, const char *method)
{
	l_column *c;
	sl_expr *e = sl_lcol_test(L, idx);
	char got[96];
	if (e != NULL)
		return e;
	idx = lua_absindex(L, idx);
	if (how == SL_AS_COLNAME && lua_type(L, idx) == LUA_TSTRING) {
		c = newcol(L);
		c->e = from_name(lua_tostring(L, idx));
	} else if (lua_type(L, idx) == LUA_TTABLE ||
		   lua_type(L, idx) == LUA_TFUNCTION ||
		   lua_type(L, idx) == LUA_TUSERDATA ||
		   lua_type(L, idx) == LUA_TTHREAD) {
		sl_lerr_describe(L, idx, got, sizeof got);
		sl_lerr_argerror(L, idx, method, "%s expected, got %s",
				 how == SL_AS_COLNAME ? "Column or column name"
						      : "Column or literal",
				 got);
		return NULL;
	} else {
		c = newcol(L);
		c->e = sl_lcol_literal(L, idx);
	}
	if (c->e == NULL)
		nomem(L);
	lua_replace(L, idx);
	return c->e;
}

sl_expr **sl_lcol_args(lua_State *L, int first, int n, int how,
		       const char *method)
{
	sl_expr **a;
	for (int i = 0; i < n; i++)
		sl_lcol_coerce(L, first + i, how, method);
	a = lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof *a, 0);
	for (int i = 0; i < n; i++)
		a[i] = sl_expr_ref(sl_lcol_test(L, first + i));
	return a;
}

/* Finish a method: the new Column `ud` gets e (NULL = out of memory). */
static int done(lua_State *L, int ud, sl_expr *e)
{
	l_column *c = lua_touserdata(L, ud);
	if (e == NULL)
		nomem(L);
	c->e = e;
	lua_pushvalue(L, ud);
	return 1;
}

/* ---- operators and comparison methods ---- */

static int binop(lua_State *L, int op, const char *name)
{
	int ud;
	sl_expr **a;
	lua_settop(L, 2);
	sl_lcol_coerce(L, 1, SL_AS_LITERAL, name);
	sl_lcol_coerce(L, 2, SL_AS_LITERAL, name);
	newcol(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 1, 2, SL_AS_LITERAL, name);
	return done(L, ud, sl_expr_binop(op, a[0], a[1]));
}

/* Receiver-checked form of binop, for col:gt(x) and friends. */
static int method_binop(lua_State *L, int op, const char *name)
{
	sl_lerr_checkself(L, SL_MT_COLUMN, name);
	if (lua_gettop(L) < 2)
		sl_lerr_argerror(L, 2, name,
				 "value or Column expected, got no value");
	return binop(L, op, name);
}

static int l_column_add(lua_State *L)
{
	return binop(L, SL_OP_ADD, "+");
}
static int l_column_sub(lua_State *L)
{
	return binop(L, SL_OP_SUB, "-");
}
static int l_column_mul(lua_State *L)
{
	return binop(L, SL_OP_MUL, "*");
}
static int l_column_div(lua_State *L)
{
	return binop(L, SL_OP_DIV, "/");
}
static int l_column_mod(lua_State *L)
{
	return binop(L, SL_OP_MOD, "%");
}
static int l_column_gt(lua_State *L)
{
	return method_binop(L, SL_OP_GT, "gt");
}
static int l_column_ge(lua_State *L)
{
	return method_binop(L, SL_OP_GE, "ge");
}
static int l_column_lt(lua_State *L)
{
	return method_binop(L, SL_OP_LT, "lt");
}
static int l_column_le(lua_State *L)
{
	return method_binop(L, SL_OP_LE, "le");
}
static int l_column_eq(lua_State *L)
{
	return method_binop(L, SL_OP_EQ, "eq");
}
static int l_column_ne(lua_State *L)
{
	return method_binop(L, SL_OP_NE, "ne");
}
static int l_column_and(lua_State *L)
{
	return method_binop(L, SL_OP_AND, "_and");
}
static int l_column_or(lua_State *L)
{
	return method_binop(L, SL_OP_OR, "_or");
}
static int l_column_eqns(lua_State *L)
{
	return method_binop(L, SL_OP_EQNS, "eqNullSafe");
}

static int l_column_pow(lua_State *L)
{
	int ud;
	sl_expr **a;
	lua_settop(L, 2);
	sl_lcol_coerce(L, 1, SL_AS_LITERAL, "^");
	sl_lcol_coerce(L, 2, SL_AS_LITERAL, "^");
	newcol(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 1, 2, SL_AS_LITERAL, "^");
	return done(L, ud, sl_expr_call("pow", a, 2));
}

static int unary(lua_State *L, sl_expr_kind k, const char *name)
{
	int ud;
	l_column *self = sl_lerr_checkself(L, SL_MT_COLUMN, name);
	newcol(L);
	ud = lua_gettop(L);
	return done(L, ud, sl_expr_unary(k, sl_expr_ref(self->e)));
}

static int l_column_unm(lua_State *L)
{
	return unary(L, SL_X_NEG, "-");
}
static int l_column_not(lua_State *L)
{
	return unary(L, SL_X_NOT, "_not");
}
static int l_column_isnull(lua_State *L)
{
	return unary(L, SL_X_ISNULL, "isNull");
}
static int l_column_isnotnull(lua_State *L)
{
	return unary(L, SL_X_ISNOTNULL, "isNotNull");
}

static int l_column_cmp_error(lua_State *L)
{
	return sl_lerr_raisef(L, SL_EINVAL,
			      "use col:eq(x), col:ne(x), col:lt(x), col:le(x), "
			      "col:gt(x), col:ge(x)",
			      "cannot compare Columns with Lua's ==, < or <= "
			      "(they always give a boolean)");
}

static int l_column_isin(lua_State *L)
{
	int n, ud;
	sl_expr **a;
	sl_lerr_checkself(L, SL_MT_COLUMN, "isin");
	/* isin{...} and isin(a, b, c) alike: spread a single table. */
	if (lua_gettop(L) == 2 && lua_type(L, 2) == LUA_TTABLE &&
	    sl_lcol_test(L, 2) == NULL) {
		lua_Integer len = luaL_len(L, 2);
		luaL_checkstack(L, (int)len + 4, "isin: too many values");
		for (lua_Integer i = 1; i <= len; i++)
			lua_geti(L, 2, i);
		lua_remove(L, 2);
	}
	n = lua_gettop(L) - 1;
	for (int i = 0; i < n; i++)
		sl_lcol_coerce(L, 2 + i, SL_AS_LITERAL, "isin");
	newcol(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 2, n, SL_AS_LITERAL, "isin");
	return done(L, ud, sl_expr_in(sl_expr_ref(sl_lcol_test(L, 1)), a, n));
}

static int l_column_between(lua_State *L)
{
	int ud;
	sl_expr **a;
	sl_expr *lo, *hi, *self;
	sl_lerr_checkself(L, SL_MT_COLUMN, "between");
	lua_settop(L, 3);
	newcol(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 2, 2, SL_AS_LITERAL, "between");
	self = sl_lcol_test(L, 1);
	lo = sl_expr_binop(SL_OP_GE, sl_expr_ref(self), a[0]);
	hi = sl_expr_binop(SL_OP_LE, sl_expr_ref(self), a[1]);
	if (lo == NULL || hi == NULL) {
		sl_expr_free(lo);
		sl_expr_free(hi);
		return done(L, ud, NULL);
	}
	return done(L, ud, sl_expr_binop(SL_OP_AND, lo, hi));
}

/* col:like(p), col:contains(s) ...: a SQL function of (self, literal). */
static int call2(lua_State *L, const char *method, const char *fname)
{
	int ud;
	sl_expr **a;
	sl_lerr_checkself(L, SL_MT_COLUMN, method);
	if (lua_isnoneornil(L, 2))
		sl_lerr_argerror(L, 2, method, "value expected, got no value");
	lua_settop(L, 2);
	sl_lcol_coerce(L, 2, SL_AS_LITERAL, method);
	newcol(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 1, 2, SL_AS_LITERAL, method);
	return done(L, ud, sl_expr_call(fname, a, 2));
}

static int l_column_like(lua_State *L)
{
	return call2(L, "like", "like");
}
static int l_column_rlike(lua_State *L)
{
	return call2(L, "rlike", "rlike");
}

/* contains/startswith/endswith of a literal string become LIKE patterns
 * (the pattern's own % _ \ escaped), which the registry evaluates a column
 * at a time; a Column argument calls Spark's SQL function of that name. */
static int like_affix(lua_State *L, const char *method, const char *fname,
		      int pre, int post)
{
	luaL_Buffer b;
	size_t n;
	const char *s;
	sl_lerr_checkself(L, SL_MT_COLUMN, method);
	if (lua_type(L, 2) != LUA_TSTRING)
		return call2(L, method, fname);
	s = lua_tolstring(L, 2, &n);
	luaL_buffinit(L, &b);
	if (pre)
		luaL_addchar(&b, '%');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' || s[i] == '_' || s[i] == '\\')
			luaL_addchar(&b, '\\');
		luaL_addchar(&b, s[i]);
	}
	if (post)
		luaL_addchar(&b, '%');
	luaL_pushresult(&b);
	lua_replace(L, 2);
	return call2(L, method, "like");
}

static int l_column_contains(lua_State *L)
{
	return like_affix(L, "contains", "contains", 1, 1);
}
static int l_column_startswith(lua_State *L)
{
	return like_affix(L, "startswith", "startswith", 0, 1);
}
static int l_column_endswith(lua_State *L)
{
	return like_affix(L, "endswith", "endswith", 1, 0);
}

static int l_column_substr(lua_State *L)
{
	int ud;
	sl_expr **a;
	sl_lerr_checkself(L, SL_MT_COLUMN, "substr");
	luaL_checkinteger(L, 2);
	luaL_checkinteger(L, 3);
	lua_settop(L, 3);
	newcol(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 1, 3, SL_AS_LITERAL, "substr");
	return done(L, ud, sl_expr_call("substring", a, 3));
}

static int with_name(lua_State *L, const char *method)
{
	int ud;
	l_column *self = sl_lerr_checkself(L, SL_MT_COLUMN, method);
	const char *n = sl_lerr_checkstr(L, 2, method, "string");
	newcol(L);
	ud = lua_gettop(L);
	return done(L, ud, sl_expr_alias(sl_expr_ref(self->e), n));
}

static int l_column_alias(lua_State *L)
{
	return with_name(L, "alias");
}
static int l_column_name(lua_State *L)
{
	return with_name(L, "name");
}

static int l_column_getfield(lua_State *L)
{
	int ud;
	l_column *self = sl_lerr_checkself(L, SL_MT_COLUMN, "getField");
	const char *n = sl_lerr_checkstr(L, 2, "getField", "field name");
	newcol(L);
	ud = lua_gettop(L);
	return done(L, ud, sl_expr_field(sl_expr_ref(self->e), n));
}

static int cast_as(lua_State *L, const char *method)
{
	int ud;
	sl_err err;
	sl_type *t;
	sl_expr *e;
	l_column *self = sl_lerr_checkself(L, SL_MT_COLUMN, method);
	const char *tn = sl_lerr_checkstr(L, 2, method, "type name");
	newcol(L);
	ud = lua_gettop(L);
	t = sl_type_parse(tn, &err);
	if (t == NULL) {
		sl_err_prefix(&err, method);
		return sl_lerr_raise(L, &err);
	}
	e = sl_expr_cast(sl_expr_ref(self->e), t);
	sl_type_free(t);
	return done(L, ud, e);
}

static int l_column_cast(lua_State *L)
{
	return cast_as(L, "cast");
}
static int l_column_astype(lua_State *L)
{
	return cast_as(L, "astype");
}

static int sort(lua_State *L, int flags, const char *method)
{
	int ud;
	l_column *self = sl_lerr_checkself(L, SL_MT_COLUMN, method);
	newcol(L);
	ud = lua_gettop(L);
	return done(L, ud, sl_expr_sort(sl_expr_ref(self->e), flags));
}

static int l_column_asc(lua_State *L)
{
	return sort(L, 0, "asc");
}
static int l_column_desc(lua_State *L)
{
	return sort(L, SL_SORT_DESC, "desc");
}
static int l_column_asc_nf(lua_State *L)
{
	return sort(L, SL_SORT_NULLS_FIRST, "asc_nulls_first");
}
static int l_column_asc_nl(lua_State *L)
{
	return sort(L, SL_SORT_NULLS_LAST, "asc_nulls_last");
}
static int l_column_desc_nf(lua_State *L)
{
	return sort(L, SL_SORT_DESC | SL_SORT_NULLS_FIRST, "desc_nulls_first");
}
static int l_column_desc_nl(lua_State *L)
{
	return sort(L, SL_SORT_DESC | SL_SORT_NULLS_LAST, "desc_nulls_last");
}

/* ---- CASE: F.when(c, v):when(c2, v2):otherwise(v3) ---- */

/* A new CASE from the receiver's branches (when `self` is not NULL) plus
 * the Lua values cond (a Column) and value at 2 and 3, or an else value. */
static int build_case(lua_State *L, const sl_expr *self, int has_cond,
		      const char *method)
{
	int nold = self ? self->nargs : 0, nnew = has_cond ? 2 : 1, ud;
	sl_expr **a, **all;
	if (has_cond && sl_lcol_test(L, 2) == NULL) {
		char got[96];
		sl_lerr_describe(L, 2, got, sizeof got);
		sl_lerr_argerror(L, 2, method,
				 "condition should be a Column, got %s", got);
	}
	newcol(L);
	ud = lua_gettop(L);
	all = lua_newuserdatauv(L, (size_t)(nold + nnew) * sizeof *all, 0);
	a = sl_lcol_args(L, 2, nnew, SL_AS_LITERAL, method);
	for (int i = 0; i < nold; i++)
		all[i] = sl_expr_ref(self->args[i]);
	for (int i = 0; i < nnew; i++)
		all[nold + i] = a[i];
	return done(L, ud, sl_expr_case(all, nold + nnew));
}

static int l_column_when(lua_State *L)
{
	l_column *self = sl_lerr_checkself(L, SL_MT_COLUMN, "when");
	lua_settop(L, 3);
	if (self->e->kind != SL_X_CASE || self->e->nargs % 2 != 0)
		return sl_lerr_raisef(
		    L, SL_EINVAL, NULL,
		    "when() can only be applied on a Column "
		    "previously generated by when() function");
	return build_case(L, self->e, 1, "when");
}

static int l_column_otherwise(lua_State *L)
{
	l_column *self = sl_lerr_checkself(L, SL_MT_COLUMN, "otherwise");
	lua_settop(L, 2);
	if (self->e->kind != SL_X_CASE)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "otherwise() can only be applied on a "
				      "Column previously generated by when() "
				      "function");
	if (self->e->nargs % 2 != 0)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "otherwise() can only be applied once on "
				      "a Column previously generated by when() "
				      "function");
	return build_case(L, self->e, 0, "otherwise");
}

static int l_column_tostring(lua_State *L)
{
	l_column *self = luaL_checkudata(L, 1, SL_MT_COLUMN);
	sl_buf b;
	sl_buf_init(&b);
	sl_buf_adds(&b, "Column<'");
	if (self->e != NULL)
		sl_expr_sql(self->e, &b);
	sl_buf_adds(&b, "'>");
	lua_pushlstring(L, b.p ? b.p : "", b.len);
	sl_buf_release(&b);
	return 1;
}

static const luaL_Reg column_methods[] = {
	{ "gt", l_column_gt },
	{ "ge", l_column_ge },
	{ "lt", l_column_lt },
	{ "le", l_column_le },
	{ "eq", l_column_eq },
	{ "ne", l_column_ne },
	{ "eqNullSafe", l_column_eqns },
	{ "_and", l_column_and },
	{ "_or", l_column_or },
	{ "_not", l_column_not },
	{ "isNull", l_column_isnull },
	{ "isNotNull", l_column_isnotnull },
	{ "isin", l_column_isin },
	{ "between", l_column_between },
	{ "like", l_column_like },
	{ "rlike", l_column_rlike },
	{ "contains", l_column_contains },
	{ "startswith", l_column_startswith },
	{ "endswith", l_column_endswith },
	{ "substr", l_column_substr },
	{ "alias", l_column_alias },
	{ "name", l_column_name },
	{ "cast", l_column_cast },
	{ "astype", l_column_astype },
	{ "getField", l_column_getfield },
	{ "asc", l_column_asc },
	{ "desc", l_column_desc },
	{ "asc_nulls_first", l_column_asc_nf },
	{ "asc_nulls_last", l_column_asc_nl },
	{ "desc_nulls_first", l_column_desc_nf },
	{ "desc_nulls_last", l_column_desc_nl },
	{ "when", l_column_when },
	{ "otherwise", l_column_otherwise },
	{ NULL, NULL }
};

static int l_column_index(lua_State *L)
{
	const char *names[64];
	int n = 0;
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "methods");
	lua_pushvalue(L, 2);
	if (lua_rawget(L, -2) != LUA_TNIL)
		return 1;
	for (const luaL_Reg *r = column_methods; r->name && n < 64; r++)
		names[n++] = r->name;
	if (lua_type(L, 2) != LUA_TSTRING)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "Column has no field of type %s",
				      luaL_typename(L, 2));
	return sl_lua_nofield(L, "Column", lua_tostring(L, 2), names, n);
}

static const luaL_Reg column_meta[] = {
	{ "__gc", l_column_gc },        { "__tostring", l_column_tostring },
	{ "__index", l_column_index },  { "__add", l_column_add },
	{ "__sub", l_column_sub },      { "__mul", l_column_mul },
	{ "__div", l_column_div },      { "__mod", l_column_mod },
	{ "__unm", l_column_unm },      { "__pow", l_column_pow },
	{ "__eq", l_column_cmp_error }, { "__lt", l_column_cmp_error },
	{ "__le", l_column_cmp_error }, { NULL, NULL }
};

/* ---- F ---- */

/* How F.<name> maps its Lua arguments: spec[i] is 'c' (a string is a
 * column name) or 'l' (a string is a literal) for argument i; past the end
 * the last letter repeats.  max -1 = variadic. */
typedef struct fspec {
	const char *lname; /* F.<lname> */
	const char *sqlname;
	const char *spec;
	int min, max;
	int distinct;
} fspec;

static const fspec ftab[] = {
	/* aggregates */
	{ "count", "count", "c", 1, 1, 0 },
	{ "sum", "sum", "c", 1, 1, 0 },
	{ "avg", "avg", "c", 1, 1, 0 },
	{ "mean", "avg", "c", 1, 1, 0 },
	{ "min", "min", "c", 1, 1, 0 },
	{ "max", "max", "c", 1, 1, 0 },
	{ "first", "first", "cl", 1, 2, 0 },
	{ "last", "last", "cl", 1, 2, 0 },
	{ "approx_count_distinct", "approx_count_distinct", "cl", 1, 2, 0 },
	{ "approxCountDistinct", "approx_count_distinct", "cl", 1, 2, 0 },
	{ "countDistinct", "count", "c", 1, -1, 1 },
	{ "count_distinct", "count", "c", 1, -1, 1 },
	{ "sumDistinct", "sum", "c", 1, 1, 1 },
	{ "sum_distinct", "sum", "c", 1, 1, 1 },
	{ "collect_list", "collect_list", "c", 1, 1, 0 },
	{ "collect_set", "collect_set", "c", 1, 1, 0 },
	{ "stddev", "stddev", "c", 1, 1, 0 },
	{ "stddev_samp", "stddev_samp", "c", 1, 1, 0 },
	{ "stddev_pop", "stddev_pop", "c", 1, 1, 0 },
	{ "variance", "variance", "c", 1, 1, 0 },
	{ "var_samp", "var_samp", "c", 1, 1, 0 },
	{ "var_pop", "var_pop", "c", 1, 1, 0 },
	{ "max_by", "max_by", "cc", 2, 2, 0 },
	{ "min_by", "min_by", "cc", 2, 2, 0 },
	/* time */
	{ "window", "window", "cl", 2, 4, 0 },
	{ "session_window", "session_window", "cl", 2, 2, 0 },
	{ "window_time", "window_time", "c", 1, 1, 0 },
	{ "to_timestamp", "to_timestamp", "cl", 1, 2, 0 },
	{ "timestamp_seconds", "timestamp_seconds", "c", 1, 1, 0 },
	{ "current_timestamp", "current_timestamp", "c", 0, 0, 0 },
	{ "current_date", "current_date", "c", 0, 0, 0 },
	{ "date_format", "date_format", "cl", 2, 2, 0 },
	{ "unix_timestamp", "unix_timestamp", "cl", 0, 2, 0 },
	{ "from_unixtime", "from_unixtime", "cl", 1, 2, 0 },
	{ "to_date", "to_date", "cl", 1, 2, 0 },
	{ "date_trunc", "date_trunc", "lc", 2, 2, 0 },
	{ "year", "year", "c", 1, 1, 0 },
	{ "month", "month", "c", 1, 1, 0 },
	{ "dayofmonth", "dayofmonth", "c", 1, 1, 0 },
	{ "dayofweek", "dayofweek", "c", 1, 1, 0 },
	{ "dayofyear", "dayofyear", "c", 1, 1, 0 },
	{ "hour", "hour", "c", 1, 1, 0 },
	{ "minute", "minute", "c", 1, 1, 0 },
	{ "second", "second", "c", 1, 1, 0 },
	{ "date_add", "date_add", "cl", 2, 2, 0 },
	{ "date_sub", "date_sub", "cl", 2, 2, 0 },
	{ "datediff", "datediff", "cc", 2, 2, 0 },
	/* json */
	{ "from_json", "from_json", "cl", 2, 2, 0 },
	{ "to_json", "to_json", "c", 1, 1, 0 },
	{ "get_json_object", "get_json_object", "cl", 2, 2, 0 },
	/* strings */
	{ "upper", "upper", "c", 1, 1, 0 },
	{ "lower", "lower", "c", 1, 1, 0 },
	{ "length", "length", "c", 1, 1, 0 },
	{ "trim", "trim", "c", 1, 1, 0 },
	{ "ltrim", "ltrim", "c", 1, 1, 0 },
	{ "rtrim", "rtrim", "c", 1, 1, 0 },
	{ "initcap", "initcap", "c", 1, 1, 0 },
	{ "reverse", "reverse", "c", 1, 1, 0 },
	{ "concat", "concat", "c", 0, -1, 0 },
	{ "concat_ws", "concat_ws", "lc", 1, -1, 0 },
	{ "split", "split", "cl", 2, 3, 0 },
	{ "substring", "substring", "cl", 3, 3, 0 },
	{ "lpad", "lpad", "cl", 3, 3, 0 },
	{ "rpad", "rpad", "cl", 3, 3, 0 },
	{ "regexp_replace", "regexp_replace", "cl", 3, 3, 0 },
	{ "regexp_extract", "regexp_extract", "cl", 3, 3, 0 },
	{ "instr", "instr", "cl", 2, 2, 0 },
	{ "locate", "locate", "lcl", 2, 3, 0 },
	{ "translate", "translate", "cl", 3, 3, 0 },
	{ "repeat", "repeat", "cl", 2, 2, 0 },
	{ "format_number", "format_number", "cl", 2, 2, 0 },
	{ "format_string", "format_string", "lc", 1, -1, 0 },
	{ "ascii", "ascii", "c", 1, 1, 0 },
	{ "base64", "base64", "c", 1, 1, 0 },
	{ "unbase64", "unbase64", "c", 1, 1, 0 },
	{ "md5", "md5", "c", 1, 1, 0 },
	{ "sha1", "sha1", "c", 1, 1, 0 },
	{ "sha2", "sha2", "cl", 2, 2, 0 },
	{ "crc32", "crc32", "c", 1, 1, 0 },
	{ "hash", "hash", "c", 1, -1, 0 },
	{ "xxhash64", "xxhash64", "c", 1, -1, 0 },
	/* math */
	{ "abs", "abs", "c", 1, 1, 0 },
	{ "round", "round", "cl", 1, 2, 0 },
	{ "bround", "bround", "cl", 1, 2, 0 },
	{ "floor", "floor", "c", 1, 1, 0 },
	{ "ceil", "ceil", "c", 1, 1, 0 },
	{ "sqrt", "sqrt", "c", 1, 1, 0 },
	{ "exp", "exp", "c", 1, 1, 0 },
	{ "log10", "log10", "c", 1, 1, 0 },
	{ "log2", "log2", "c", 1, 1, 0 },
	{ "pow", "pow", "c", 2, 2, 0 },
	{ "power", "power", "c", 2, 2, 0 },
	{ "signum", "signum", "c", 1, 1, 0 },
	{ "greatest", "greatest", "c", 2, -1, 0 },
	{ "least", "least", "c", 2, -1, 0 },
	/* nulls */
	{ "coalesce", "coalesce", "c", 1, -1, 0 },
	{ "isnull", "isnull", "c", 1, 1, 0 },
	{ "isnan", "isnan", "c", 1, 1, 0 },
	{ "nanvl", "nanvl", "c", 2, 2, 0 },
	/* collections */
	{ "explode", "explode", "c", 1, 1, 0 },
	{ "explode_outer", "explode_outer", "c", 1, 1, 0 },
	{ "posexplode", "posexplode", "c", 1, 1, 0 },
	{ "posexplode_outer", "posexplode_outer", "c", 1, 1, 0 },
	{ "size", "size", "c", 1, 1, 0 },
	{ "array", "array", "c", 0, -1, 0 },
	{ "array_contains", "array_contains", "cl", 2, 2, 0 },
	{ "element_at", "element_at", "cl", 2, 2, 0 },
	{ "sort_array", "sort_array", "cl", 1, 2, 0 },
	{ "array_distinct", "array_distinct", "c", 1, 1, 0 },
	{ "struct", "struct", "c", 0, -1, 0 },
	{ "monotonically_increasing_id", "monotonically_increasing_id", "c", 0,
	  0, 0 },
	{ NULL, NULL, NULL, 0, 0, 0 }
};

/* PySpark's window(timeColumn, windowDuration, slideDuration=None,
 * startTime=None): trailing nils are absent arguments, and a nil slide
 * before a startTime means "tumbling" (slide = windowDuration). */
static void window_defaults(lua_State *L)
{
	while (lua_gettop(L) > 2 && lua_isnil(L, -1))
		lua_pop(L, 1);
	if (lua_gettop(L) == 4 && lua_isnil(L, 3)) {
		lua_pushvalue(L, 2);
		lua_replace(L, 3);
	}
}

static int l_F_call(lua_State *L)
{
	const fspec *f = lua_touserdata(L, lua_upvalueindex(1));
	int n, ud;
	if (strcmp(f->lname, "window") == 0)
		window_defaults(L);
	n = lua_gettop(L);
	size_t sl = strlen(f->spec);
	sl_expr **a;
	char where[64];
	snprintf(where, sizeof where, "%s", f->lname);
	if (n < f->min || (f->max >= 0 && n > f->max)) {
		if (f->min == f->max)
			return sl_lerr_raisef(
			    L, SL_EINVAL, NULL,
			    "F.%s takes %d argument%s, got %d", f->lname,
			    f->min, f->min == 1 ? "" : "s", n);
		return sl_lerr_raisef(
		    L, SL_EINVAL, NULL, "F.%s takes %d to %d arguments, got %d",
		    f->lname, f->min, f->max < 0 ? 99 : f->max, n);
	}
	/* count("*") is count(1), as PySpark. */
	if (strcmp(f->lname, "count") == 0 && lua_type(L, 1) == LUA_TSTRING &&
	    strcmp(lua_tostring(L, 1), "*") == 0) {
		lua_pushinteger(L, 1);
		lua_replace(L, 1);
	}
	for (int i = 0; i < n; i++) {
		char k = f->spec[(size_t)i < sl ? (size_t)i : sl - 1];
		sl_lcol_coerce(L, i + 1,
			       k == 'c' ? SL_AS_COLNAME : SL_AS_LITERAL, where);
	}
	newcol(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 1, n, SL_AS_LITERAL, where);
	return done(L, ud,
		    f->distinct ? sl_expr_call_distinct(f->sqlname, a, n)
				: sl_expr_call(f->sqlname, a, n));
}

static int l_F_col(lua_State *L)
{
	const char *name = sl_lerr_checkstr(L, 1, "col", "column name");
	l_column *c = newcol(L);
	c->e = from_name(name);
	if (c->e == NULL)
		nomem(L);
	return 1;
}

static int l_F_lit(lua_State *L)
{
	l_column *c;
	char got[96];
	lua_settop(L, 1);
	if (sl_lcol_test(L, 1) != NULL)
		return 1;
	c = newcol(L);
	c->e = sl_lcol_literal(L, 1);
	if (c->e == NULL) {
		if (lua_type(L, 1) == LUA_TNIL)
			nomem(L);
		sl_lerr_describe(L, 1, got, sizeof got);
		return sl_lerr_argerror(L, 1, "lit",
					"literal value expected, got %s", got);
	}
	return 1;
}

static int l_F_expr(lua_State *L)
{
	const char *sql = sl_lerr_checkstr(L, 1, "expr", "SQL string");
	sl_err err;
	l_column *c = newcol(L);
	c->e = sl_sqlexpr_parse(sql, &err);
	if (c->e == NULL) {
		sl_err_prefix(&err, "expr");
		return sl_lerr_raise(L, &err);
	}
	return 1;
}

static int l_F_when(lua_State *L)
{
	lua_settop(L, 2);
	lua_pushnil(L);
	lua_insert(L, 1); /* no receiver: args at 2, 3 */
	return build_case(L, NULL, 1, "when");
}

static int l_F_index(lua_State *L)
{
	const char *names[200];
	int n = 0;
	const char *k = luaL_checkstring(L, 2);
	for (const fspec *f = ftab; f->lname && n < 190; f++)
		names[n++] = f->lname;
	names[n++] = "col";
	names[n++] = "lit";
	names[n++] = "expr";
	names[n++] = "when";
	names[n++] = "column";
	return sl_lua_nofield(L, "F", k, names, n);
}

void sl_lcol_open(lua_State *L)
{
	luaL_newmetatable(L, SL_MT_COLUMN);
	luaL_setfuncs(L, column_meta, 0);
	luaL_newlib(L, column_methods);
	lua_setfield(L, -2, "methods");
	lua_pop(L, 1);

	lua_newtable(L);
	for (const fspec *f = ftab; f->lname; f++) {
		lua_pushlightuserdata(L, (void *)f);
		lua_pushcclosure(L, l_F_call, 1);
		lua_setfield(L, -2, f->lname);
	}
	lua_pushcfunction(L, l_F_col);
	lua_setfield(L, -2, "col");
	lua_pushcfunction(L, l_F_col);
	lua_setfield(L, -2, "column");
	lua_pushcfunction(L, l_F_lit);
	lua_setfield(L, -2, "lit");
	lua_pushcfunction(L, l_F_expr);
	lua_setfield(L, -2, "expr");
	lua_pushcfunction(L, l_F_when);
	lua_setfield(L, -2, "when");
	lua_newtable(L);
	lua_pushcfunction(L, l_F_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
	lua_setglobal(L, "F");
}
