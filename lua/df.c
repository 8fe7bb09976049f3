/*
 * df: the DataFrame and GroupedData userdata.
 *
 * A DataFrame holds one reference to an immutable sl_plan; every
 * transformation makes a new DataFrame (PySpark semantics: df:filter(...)
 * never changes df).  Plans analyse eagerly, so a wrong column name fails at
 * the method that used it, with the engine's message ("filter: cannot
 * resolve 'prise' ...") raised as an error object (lerr.h).
 *
 * The pattern of every method, so a longjmp never leaks: check and coerce
 * the arguments (Lua errors possible), push the result DataFrame in its
 * empty state, gather expression references into a temporary userdata
 * array, then call the engine (no Lua error between the references and the
 * call, since the engine takes ownership), then sl_ldf_finish.
 *
 * Actions (show, collect, count, ...) run the plan with sl_plan_collect.  On
 * a streaming plan they raise Spark's "Queries with streaming sources must
 * be executed with writeStream.start()" before anything runs;
 * df.writeStream on a batch plan raises the Dataset API's sentence.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lconv.h"
#include "lerr.h"
#include "lua_int.h"
#include "plan/catalog.h"
#include "expr/sqlexpr.h"

typedef struct l_grouped {
	sl_plan *p;
	int nkeys;
	sl_expr **keys;
} l_grouped;

/* ---- helpers ---- */

static int l_df_gc(lua_State *L)
{
	l_df *d = luaL_checkudata(L, 1, SL_MT_DATAFRAME);
	sl_plan_free(d->p);
	d->p = NULL;
	return 0;
}

l_df *sl_ldf_new(lua_State *L)
{
	l_df *d = lua_newuserdatauv(L, sizeof *d, 0);
	d->p = NULL;
	luaL_setmetatable(L, SL_MT_DATAFRAME);
	return d;
}

int sl_ldf_finish(lua_State *L, int ud, sl_plan *p, sl_err *err)
{
	l_df *d = lua_touserdata(L, ud);
	if (p == NULL)
		return sl_lerr_raise(L, err);
	d->p = p;
	lua_pushvalue(L, ud);
	return 1;
}

sl_plan *sl_ldf_test(lua_State *L, int idx)
{
	l_df *d = luaL_testudata(L, idx, SL_MT_DATAFRAME);
	return d != NULL ? d->p : NULL;
}

static sl_plan *self(lua_State *L, const char *method)
{
	l_df *d = sl_lerr_checkself(L, SL_MT_DATAFRAME, method);
	if (d->p == NULL)
		sl_lerr_raisef(L, SL_ESTATE, NULL, "%s: DataFrame is empty",
			       method);
	return d->p;
}

static sl_plan *other_df(lua_State *L, int arg, const char *method)
{
	sl_plan *p = sl_ldf_test(L, arg);
	char got[96];
	if (p == NULL) {
		sl_lerr_describe(L, arg, got, sizeof got);
		sl_lerr_argerror(L, arg, method, "DataFrame expected, got %s",
				 got);
	}
	return p;
}

static int is_plain_table(lua_State *L, int idx)
{
	return lua_type(L, idx) == LUA_TTABLE && lua_getmetatable(L, idx) == 0;
}

/* select({"a", "b"}) as select("a", "b"): spread a lone array argument. */
static void spread(lua_State *L, int first)
{
	lua_Integer n;
	if (lua_gettop(L) != first || !is_plain_table(L, first))
		return;
	n = (lua_Integer)lua_rawlen(L, first);
	luaL_checkstack(L, (int)n + 8, "too many arguments");
	for (lua_Integer i = 1; i <= n; i++)
		lua_rawgeti(L, first, i);
	lua_remove(L, first);
}

/* Names at first.. (strings) as a temporary array of borrowed pointers
 * (valid while the arguments stay on the stack); pushed on the top. */
static const char **names_arg(lua_State *L, int first, int n,
			      const char *method)
{
	const char **v =
	    lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof *v, 0);
	for (int i = 0; i < n; i++)
		v[i] = sl_lerr_checkstr(L, first + i, method, "column name");
	return v;
}

/* A SQL string argument parsed into a Column in place; errors prefixed with
 * the method name. */
static void sql_arg(lua_State *L, int idx, const char *method)
{
	sl_err err;
	sl_expr *e = sl_sqlexpr_parse(lua_tostring(L, idx), &err);
	if (e == NULL) {
		sl_err_prefix(&err, method);
		sl_lerr_raise(L, &err);
	}
	sl_lcol_push(L, e);
	lua_replace(L, idx);
}

/* ---- transformations ---- */

static int l_df_select(lua_State *L)
{
	sl_plan *in = self(L, "select");
	int n, ud;
	sl_expr **a;
	sl_err err;
	spread(L, 2);
	n = lua_gettop(L) - 1;
	sl_ldf_new(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 2, n, SL_AS_COLNAME, "select");
	return sl_ldf_finish(L, ud, sl_plan_project(in, a, n, &err), &err);
}

static int l_df_selectexpr(lua_State *L)
{
	sl_plan *in = self(L, "selectExpr");
	int n, ud;
	sl_expr **a;
	sl_err err;
	spread(L, 2);
	n = lua_gettop(L) - 1;
	for (int i = 0; i < n; i++) {
		sl_lerr_checkstr(L, 2 + i, "selectExpr", "SQL string");
		sql_arg(L, 2 + i, "selectExpr");
	}
	sl_ldf_new(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 2, n, SL_AS_COLNAME, "selectExpr");
	return sl_ldf_finish(L, ud, sl_plan_project(in, a, n, &err), &err);
}

static int filter_as(lua_State *L, const char *method)
{
	sl_plan *in = self(L, method);
	int ud;
	sl_expr **a;
	sl_err err;
	lua_settop(L, 2);
	if (lua_type(L, 2) == LUA_TSTRING)
		sql_arg(L, 2, method);
	else if (lua_type(L, 2) == LUA_TBOOLEAN)
		return sl_lerr_raisef(
		    L, SL_EINVAL,
		    "use col:eq(x), col:gt(x), ... to build a "
		    "condition Column, or a SQL string",
		    "%s: condition is a Lua boolean, not a "
		    "Column (Lua's ==, <, > always give "
		    "booleans)",
		    method);
	else if (sl_lcol_test(L, 2) == NULL) {
		char got[96];
		sl_lerr_describe(L, 2, got, sizeof got);
		return sl_lerr_argerror(
		    L, 2, method, "Column or SQL string expected, got %s", got);
	}
	sl_ldf_new(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 2, 1, SL_AS_COLNAME, method);
	return sl_ldf_finish(L, ud, sl_plan_filter(in, a[0], &err), &err);
}

static int l_df_filter(lua_State *L)
{
	return filter_as(L, "filter");
}
static int l_df_where(lua_State *L)
{
	return filter_as(L, "where");
}

static int l_df_withcolumn(lua_State *L)
{
	sl_plan *in = self(L, "withColumn");
	const char *name = sl_lerr_checkstr(L, 2, "withColumn", "column name");
	int ud;
	sl_expr **a;
	sl_err err;
	lua_settop(L, 3);
	if (sl_lcol_test(L, 3) == NULL) {
		char got[96];
		sl_lerr_describe(L, 3, got, sizeof got);
		return sl_lerr_argerror(L, 3, "withColumn",
					"Column expected, got %s (use F.lit(v) "
					"for a constant)",
					got);
	}
	sl_ldf_new(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 3, 1, SL_AS_COLNAME, "withColumn");
	return sl_ldf_finish(L, ud, sl_plan_with_column(in, name, a[0], &err),
			     &err);
}

static int l_df_withcolumnrenamed(lua_State *L)
{
	sl_plan *in = self(L, "withColumnRenamed");
	const char *from =
	    sl_lerr_checkstr(L, 2, "withColumnRenamed", "column name");
	const char *to =
	    sl_lerr_checkstr(L, 3, "withColumnRenamed", "new column name");
	int ud;
	sl_err err;
	sl_ldf_new(L);
	ud = lua_gettop(L);
	return sl_ldf_finish(L, ud, sl_plan_rename(in, from, to, &err), &err);
}

static int l_df_drop(lua_State *L)
{
	sl_plan *in = self(L, "drop");
	int n, ud;
	const char **names;
	sl_err err;
	spread(L, 2);
	n = lua_gettop(L) - 1;
	/* drop(F.col("a")) as PySpark: a plain column reference. */
	for (int i = 0; i < n; i++) {
		sl_expr *e = sl_lcol_test(L, 2 + i);
		if (e != NULL && e->kind == SL_X_COL) {
			lua_pushstring(L, e->name);
			lua_replace(L, 2 + i);
		}
	}
	names = names_arg(L, 2, n, "drop");
	sl_ldf_new(L);
	ud = lua_gettop(L);
	return sl_ldf_finish(L, ud, sl_plan_drop(in, names, n, &err), &err);
}

static int l_df_limit(lua_State *L)
{
	sl_plan *in = self(L, "limit");
	lua_Integer n = luaL_checkinteger(L, 2);
	int ud;
	sl_err err;
	if (n < 0)
		return sl_lerr_argerror(L, 2, "limit",
					"the limit must be >= 0, got %lld",
					(long long)n);
	sl_ldf_new(L);
	ud = lua_gettop(L);
	return sl_ldf_finish(L, ud, sl_plan_limit(in, n, &err), &err);
}

static int union_as(lua_State *L, const char *method)
{
	sl_plan *a = self(L, method), *b = other_df(L, 2, method);
	int ud;
	sl_err err;
	sl_ldf_new(L);
	ud = lua_gettop(L);
	return sl_ldf_finish(L, ud, sl_plan_union(a, b, &err), &err);
}

static int l_df_union(lua_State *L)
{
	return union_as(L, "union");
}
static int l_df_unionall(lua_State *L)
{
	return union_as(L, "unionAll");
}

/* orderBy(cols..., {ascending=bool|{bool...}}), also orderBy{cols...}. */
static int sort_as(lua_State *L, const char *method)
{
	sl_plan *in = self(L, method);
	int top, n, ud;
	sl_expr **a;
	sl_err err;
	lua_pushnil(L); /* slot 2: the ascending option */
	lua_insert(L, 2);
	top = lua_gettop(L);
	if (top >= 3 && is_plain_table(L, top)) {
		if (lua_getfield(L, top, "ascending") != LUA_TNIL) {
			lua_replace(L, 2);
			if (lua_rawlen(L, top) == 0)
				lua_settop(L, top - 1);
		} else {
			lua_pop(L, 1);
		}
	}
	spread(L, 3);
	n = lua_gettop(L) - 2;
	if (n == 0)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "%s: give at least one column", method);
	for (int i = 0; i < n; i++) {
		int at = 3 + i, asc = 1;
		sl_expr *e = sl_lcol_coerce(L, at, SL_AS_COLNAME, method);
		if (lua_type(L, 2) == LUA_TTABLE) {
			lua_rawgeti(L, 2, i + 1);
			asc = lua_isnil(L, -1) || lua_toboolean(L, -1);
			lua_pop(L, 1);
		} else if (!lua_isnil(L, 2)) {
			asc = lua_toboolean(L, 2);
		}
		if (!asc && e->kind != SL_X_SORT) {
			sl_lcol_push(
			    L, sl_expr_sort(sl_expr_ref(e), SL_SORT_DESC));
			lua_replace(L, at);
		}
	}
	sl_ldf_new(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 3, n, SL_AS_COLNAME, method);
	return sl_ldf_finish(L, ud, sl_plan_sort(in, a, n, &err), &err);
}

static int l_df_orderby(lua_State *L)
{
	return sort_as(L, "orderBy");
}
static int l_df_sort(lua_State *L)
{
	return sort_as(L, "sort");
}

/* join(other, on?, how?) and join(other, {on=..., how=...}) */
static int l_df_join(lua_State *L)
{
	sl_plan *l = self(L, "join"), *r = other_df(L, 2, "join");
	const char *how = "inner";
	const char **using = NULL;
	int nusing = 0, ud;
	sl_expr **on = NULL;
	sl_err err;
	lua_settop(L, 4);
	if (is_plain_table(L, 3) && lua_rawlen(L, 3) == 0 && lua_isnil(L, 4)) {
		lua_getfield(L, 3, "how");
		lua_replace(L, 4);
		lua_getfield(L, 3, "on");
		lua_replace(L, 3);
	}
	if (!lua_isnil(L, 4))
		how = sl_lerr_checkstr(L, 4, "join", "join type string");
	if (lua_type(L, 3) == LUA_TSTRING) {
		using = names_arg(L, 3, 1, "join");
		nusing = 1;
	} else if (is_plain_table(L, 3)) {
		nusing = (int)lua_rawlen(L, 3);
		for (int i = 1; i <= nusing; i++)
			lua_rawgeti(L, 3, i);
		using =
		    names_arg(L, lua_gettop(L) - nusing + 1, nusing, "join");
	} else if (!lua_isnil(L, 3) && sl_lcol_test(L, 3) == NULL) {
		char got[96];
		sl_lerr_describe(L, 3, got, sizeof got);
		return sl_lerr_argerror(L, 3, "join",
					"column name, array of names or Column "
					"expected, got %s",
					got);
	}
	sl_ldf_new(L);
	ud = lua_gettop(L);
	if (sl_lcol_test(L, 3) != NULL)
		on = sl_lcol_args(L, 3, 1, SL_AS_COLNAME, "join");
	return sl_ldf_finish(
	    L, ud,
	    sl_plan_join(l, r, on ? on[0] : NULL, using, nusing, how, &err),
	    &err);
}

/* dropDuplicates("a", "b") or dropDuplicates{"a", "b"}; no names = all
 * columns.  within: dropDuplicatesWithinWatermark (state kept until the
 * watermark passes each key's event time + delay). */
static int dedup_as(lua_State *L, const char *method, bool within)
{
	sl_plan *in = self(L, method);
	int n, ud;
	const char **names;
	sl_plan *p;
	sl_err err;
	spread(L, 2);
	n = lua_gettop(L) - 1;
	names = names_arg(L, 2, n, method);
	sl_ldf_new(L);
	ud = lua_gettop(L);
	p = within ? sl_plan_dedup_within_watermark(in, names, n, &err)
		   : sl_plan_dedup(in, names, n, &err);
	return sl_ldf_finish(L, ud, p, &err);
}

static int l_df_dropduplicates(lua_State *L)
{
	return dedup_as(L, "dropDuplicates", false);
}
static int l_df_drop_duplicates(lua_State *L)
{
	return dedup_as(L, "drop_duplicates", false);
}
static int l_df_dropduplicates_ww(lua_State *L)
{
	return dedup_as(L, "dropDuplicatesWithinWatermark", true);
}
static int l_df_distinct(lua_State *L)
{
	self(L, "distinct");
	lua_settop(L, 1);
	return dedup_as(L, "distinct", false);
}

/* withWatermark(eventTime, delayThreshold): both strings, as PySpark.  The
 * engine checks the column (unknown, not a timestamp) and the delay
 * (negative, unparsable) with Spark's sentences. */
static int l_df_withwatermark(lua_State *L)
{
	sl_plan *in = self(L, "withWatermark");
	const char *col =
	    sl_lerr_checkstr(L, 2, "withWatermark", "column name");
	const char *delay = sl_lerr_checkstr(
	    L, 3, "withWatermark", "delay string such as '10 minutes'");
	int ud;
	sl_err err;
	sl_ldf_new(L);
	ud = lua_gettop(L);
	return sl_ldf_finish(L, ud, sl_plan_watermark(in, col, delay, &err),
			     &err);
}

static int l_df_todf(lua_State *L)
{
	sl_plan *in = self(L, "toDF");
	sl_type *st = sl_plan_schema(in);
	int n, ud;
	sl_expr **a;
	sl_err err;
	spread(L, 2);
	n = lua_gettop(L) - 1;
	if (n != st->nfields)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "toDF: %d names for %d columns", n,
				      st->nfields);
	for (int i = 0; i < n; i++) {
		const char *to =
		    sl_lerr_checkstr(L, 2 + i, "toDF", "column name");
		sl_expr *c = sl_expr_col(st->fields[i].name);
		sl_lcol_push(L, c ? sl_expr_alias(c, to) : NULL);
		lua_replace(L, 2 + i);
	}
	sl_ldf_new(L);
	ud = lua_gettop(L);
	a = sl_lcol_args(L, 2, n, SL_AS_COLNAME, "toDF");
	return sl_ldf_finish(L, ud, sl_plan_project(in, a, n, &err), &err);
}

/* ---- GroupedData ---- */

static int l_grouped_gc(lua_State *L)
{
	l_grouped *g = luaL_checkudata(L, 1, SL_MT_GROUPED);
	for (int i = 0; i < g->nkeys; i++)
		sl_expr_free(g->keys[i]);
	free(g->keys);
	g->keys = NULL;
	g->nkeys = 0;
	sl_plan_free(g->p);
	g->p = NULL;
	return 0;
}

static int group_as(lua_State *L, const char *method)
{
	sl_plan *in = self(L, method);
	int n;
	sl_expr **a, **keys;
	l_grouped *g;
	spread(L, 2);
	n = lua_gettop(L) - 1;
	/* Resolve the keys now (PySpark waits until agg) so a misspelt key
	 * fails at the groupBy that names it. */
	for (int i = 0; i < n; i++) {
		sl_err err;
		sl_expr *r = sl_expr_resolve(
		    sl_lcol_coerce(L, 2 + i, SL_AS_COLNAME, method),
		    sl_plan_schema(in), &err);
		if (r == NULL) {
			sl_err_prefix(&err, method);
			return sl_lerr_raise(L, &err);
		}
		sl_expr_free(r);
	}
	g = lua_newuserdatauv(L, sizeof *g, 0);
	g->p = NULL;
	g->nkeys = 0;
	g->keys = NULL;
	luaL_setmetatable(L, SL_MT_GROUPED);
	lua_insert(L, 2);
	a = sl_lcol_args(L, 3, n, SL_AS_COLNAME, method);
	keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys);
	if (keys == NULL) {
		for (int i = 0; i < n; i++)
			sl_expr_free(a[i]);
		return sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
	}
	memcpy(keys, a, (size_t)n * sizeof *keys);
	g->keys = keys;
	g->nkeys = n;
	g->p = sl_plan_ref(in);
	lua_pushvalue(L, 2);
	return 1;
}

static int l_df_groupby(lua_State *L)
{
	return group_as(L, "groupBy");
}
static int l_df_groupby_lc(lua_State *L)
{
	return group_as(L, "groupby");
}

/* Aggregate with the Columns at first..first+n-1 (already Columns).  The
 * GroupedData is at 1. */
static int run_agg(lua_State *L, int first, int n, const char *method)
{
	l_grouped *g = lua_touserdata(L, 1);
	sl_expr **a, **keys;
	int ud;
	sl_err err;
	sl_ldf_new(L);
	ud = lua_gettop(L);
	keys = lua_newuserdatauv(L, (size_t)(g->nkeys + 1) * sizeof *keys, 0);
	a = sl_lcol_args(L, first, n, SL_AS_COLNAME, method);
	for (int i = 0; i < g->nkeys; i++)
		keys[i] = sl_expr_ref(g->keys[i]);
	return sl_ldf_finish(
	    L, ud, sl_plan_aggregate(g->p, keys, g->nkeys, a, n, &err), &err);
}

static l_grouped *gself(lua_State *L, const char *method)
{
	l_grouped *g = sl_lerr_checkself(L, SL_MT_GROUPED, method);
	if (g->p == NULL)
		sl_lerr_raisef(L, SL_ESTATE, NULL, "%s: GroupedData is empty",
			       method);
	return g;
}

/* agg({amount="sum", price="max"}): PySpark's dict form, in key order. */
static void agg_dict(lua_State *L, int t)
{
	int n = 0, names;
	lua_newtable(L);
	names = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, t) != 0) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			sl_lerr_raisef(L, SL_EINVAL, NULL,
				       "agg: dict keys must be column names");
		lua_pushvalue(L, -1);
		lua_rawseti(L, names, ++n);
	}
	lua_getglobal(L, "table");
	lua_getfield(L, -1, "sort");
	lua_pushvalue(L, names);
	lua_call(L, 1, 0);
	lua_pop(L, 1);
	for (int i = 1; i <= n; i++) {
		const char *col, *fn;
		sl_expr *arg[1];
		lua_rawgeti(L, names, i);
		col = lua_tostring(L, -1);
		lua_pushvalue(L, -1);
		lua_rawget(L, t);
		if (lua_type(L, -1) != LUA_TSTRING)
			sl_lerr_raisef(L, SL_EINVAL, NULL,
				       "agg: the value for '%s' must be a "
				       "function name such as \"sum\"",
				       col);
		fn = lua_tostring(L, -1);
		if (strcasecmp(fn, "mean") == 0)
			fn = "avg";
		arg[0] = strcmp(col, "*") == 0 ? sl_expr_lit_int(1)
					       : sl_expr_col(col);
		if (arg[0] == NULL)
			sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
		sl_lcol_push(L, sl_expr_call(fn, arg, 1));
		lua_replace(L, -3);
		lua_pop(L, 1);
	}
	lua_remove(L, names);
}

static int l_grouped_agg(lua_State *L)
{
	int n;
	gself(L, "agg");
	if (lua_gettop(L) == 2 && is_plain_table(L, 2) &&
	    lua_rawlen(L, 2) == 0) {
		agg_dict(L, 2);
		lua_remove(L, 2);
	} else {
		spread(L, 2);
	}
	n = lua_gettop(L) - 1;
	if (n == 0)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "agg: give at least one aggregate");
	for (int i = 0; i < n; i++)
		if (sl_lcol_test(L, 2 + i) == NULL) {
			char got[96];
			sl_lerr_describe(L, 2 + i, got, sizeof got);
			return sl_lerr_argerror(L, 2 + i, "agg",
						"Column expected, got %s (e.g. "
						"F.sum(\"x\"))",
						got);
		}
	return run_agg(L, 2, n, "agg");
}

static int l_grouped_count(lua_State *L)
{
	sl_expr *one[1];
	gself(L, "count");
	lua_settop(L, 1);
	one[0] = sl_expr_lit_int(1);
	if (one[0] == NULL)
		return sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
	{
		sl_expr *c = sl_expr_call("count", one, 1);
		sl_lcol_push(L, c ? sl_expr_alias(c, "count") : NULL);
	}
	return run_agg(L, 2, 1, "count");
}

/* sum/avg/mean/min/max(cols...); no columns = every numeric non-key column. */
static int simple_agg(lua_State *L, const char *method, const char *fn)
{
	l_grouped *g = gself(L, method);
	int n;
	spread(L, 2);
	if (lua_gettop(L) == 1) {
		sl_type *st = sl_plan_schema(g->p);
		for (int f = 0; f < st->nfields; f++) {
			int key = 0;
			if (!sl_type_is_numeric(st->fields[f].type))
				continue;
			for (int k = 0; k < g->nkeys; k++)
				if (g->keys[k]->kind == SL_X_COL &&
				    strcasecmp(g->keys[k]->name,
					       st->fields[f].name) == 0)
					key = 1;
			if (!key)
				lua_pushstring(L, st->fields[f].name);
		}
	}
	n = lua_gettop(L) - 1;
	for (int i = 0; i < n; i++) {
		sl_expr *arg[1];
		const char *c =
		    sl_lerr_checkstr(L, 2 + i, method, "column name");
		sl_type *st = sl_plan_schema(g->p);
		int f = sl_type_field_index(st, c);
		if (f >= 0 && !sl_type_is_numeric(st->fields[f].type))
			return sl_lerr_raisef(
			    L, SL_EANALYSIS, NULL,
			    "%s: \"%s\" is not a numeric column. "
			    "Aggregation function can only be "
			    "applied on a numeric column.",
			    method, c);
		if ((arg[0] = sl_expr_col(c)) == NULL)
			return sl_lerr_raisef(L, SL_ENOMEM, NULL,
					      "out of memory");
		sl_lcol_push(L, sl_expr_call(fn, arg, 1));
		lua_replace(L, 2 + i);
	}
	return run_agg(L, 2, n, method);
}

static int l_grouped_sum(lua_State *L)
{
	return simple_agg(L, "sum", "sum");
}
static int l_grouped_avg(lua_State *L)
{
	return simple_agg(L, "avg", "avg");
}
static int l_grouped_mean(lua_State *L)
{
	return simple_agg(L, "mean", "avg");
}
static int l_grouped_min(lua_State *L)
{
	return simple_agg(L, "min", "min");
}
static int l_grouped_max(lua_State *L)
{
	return simple_agg(L, "max", "max");
}

static int l_grouped_tostring(lua_State *L)
{
	l_grouped *g = luaL_checkudata(L, 1, SL_MT_GROUPED);
	sl_buf b;
	sl_buf_init(&b);
	sl_buf_adds(&b, "GroupedData[grouping expressions: [");
	for (int i = 0; i < g->nkeys; i++) {
		if (i)
			sl_buf_adds(&b, ", ");
		sl_expr_sql(g->keys[i], &b);
	}
	sl_buf_adds(&b, "]]");
	lua_pushstring(L, sl_buf_cstr(&b));
	sl_buf_release(&b);
	return 1;
}

/* df:agg(...) = df:groupBy():agg(...) */
static int l_df_agg(lua_State *L)
{
	int n = lua_gettop(L);
	self(L, "agg");
	lua_pushcfunction(L, l_df_groupby);
	lua_pushvalue(L, 1);
	lua_call(L, 1, 1);
	lua_replace(L, 1);
	lua_pushcfunction(L, l_grouped_agg);
	lua_insert(L, 1);
	lua_call(L, n, 1);
	return 1;
}

/* ---- actions ---- */

/* Spark's UnsupportedOperationChecker.checkForBatch sentence. */
static void batch_only(lua_State *L, sl_plan *p)
{
	if (sl_plan_is_streaming(p))
		sl_lerr_raisef(
		    L, SL_EANALYSIS,
		    "start a query: df.writeStream:format(\"console\")"
		    ":start()",
		    "Queries with streaming sources must be executed "
		    "with writeStream.start()");
}

static sl_batch *run(lua_State *L, sl_plan *p)
{
	sl_err err;
	sl_batch *b;
	batch_only(L, p);
	sl_lsess_batch_now(L);
	b = sl_plan_collect(p, &err);
	if (b == NULL)
		sl_lerr_raise(L, &err);
	return b;
}

/* Run p, keep the batch alive in a guard while converting (the conversion
 * may raise memory errors). */
typedef struct bguard {
	sl_batch *b;
} bguard;

static int l_bguard_gc(lua_State *L)
{
	bguard *g = lua_touserdata(L, 1);
	sl_batch_free(g->b);
	g->b = NULL;
	return 0;
}

static sl_batch *run_guarded(lua_State *L, sl_plan *p)
{
	bguard *g = lua_newuserdatauv(L, sizeof *g, 0);
	g->b = NULL;
	lua_newtable(L);
	lua_pushcfunction(L, l_bguard_gc);
	lua_setfield(L, -2, "__gc");
	lua_setmetatable(L, -2);
	g->b = run(L, p);
	return g->b;
}

/* The plan limited to n rows (for first/head/take/isEmpty). */
static sl_plan *limited(lua_State *L, sl_plan *p, lua_Integer n)
{
	sl_err err;
	sl_plan *q;
	l_df *holder;
	batch_only(L, p);
	holder = sl_ldf_new(L); /* owns q while we run it */
	q = sl_plan_limit(p, n, &err);
	if (q == NULL)
		sl_lerr_raise(L, &err);
	holder->p = q;
	return q;
}

static int l_df_collect(lua_State *L)
{
	sl_plan *p = self(L, "collect");
	sl_batch *b = run_guarded(L, p);
	sl_lconv_push_rows(L, b);
	return 1;
}

static int l_df_count(lua_State *L)
{
	sl_plan *p = self(L, "count");
	sl_batch *b = run(L, p);
	lua_pushinteger(L, b->nrows);
	sl_batch_free(b);
	return 1;
}

static int l_df_take(lua_State *L)
{
	sl_plan *p = self(L, "take");
	lua_Integer n = luaL_checkinteger(L, 2);
	sl_batch *b = run_guarded(L, limited(L, p, n < 0 ? 0 : n));
	sl_lconv_push_rows(L, b);
	return 1;
}

/* head() -> a Row (or nil); head(n) -> array of Rows, as PySpark. */
static int l_df_head(lua_State *L)
{
	sl_plan *p = self(L, "head");
	sl_batch *b;
	if (!lua_isnoneornil(L, 2))
		return l_df_take(L);
	b = run_guarded(L, limited(L, p, 1));
	if (b->nrows == 0)
		return 0;
	sl_lconv_push_row(L, b, 0);
	return 1;
}

static int l_df_first(lua_State *L)
{
	sl_plan *p = self(L, "first");
	sl_batch *b = run_guarded(L, limited(L, p, 1));
	if (b->nrows == 0)
		return 0;
	sl_lconv_push_row(L, b, 0);
	return 1;
}

static int l_df_isempty(lua_State *L)
{
	sl_plan *p = self(L, "isEmpty");
	sl_batch *b = run_guarded(L, limited(L, p, 1));
	lua_pushboolean(L, b->nrows == 0);
	return 1;
}

/* show(n?, truncate?) or show{n=, truncate=, vertical=} */
static int l_df_show(lua_State *L)
{
	sl_plan *p = self(L, "show");
	lua_Integer n = 20;
	int truncate = 20;
	sl_batch *b;
	sl_buf out;
	lua_settop(L, 3);
	if (is_plain_table(L, 2)) {
		lua_getfield(L, 2, "vertical");
		if (lua_toboolean(L, -1))
			return sl_lerr_raisef(L, SL_EINVAL, NULL,
					      "show: vertical output is not "
					      "supported");
		lua_getfield(L, 2, "truncate");
		lua_replace(L, 3);
		lua_getfield(L, 2, "n");
		lua_replace(L, 2);
		lua_settop(L, 3);
	}
	if (!lua_isnil(L, 2))
		n = luaL_checkinteger(L, 2);
	if (lua_type(L, 3) == LUA_TBOOLEAN)
		truncate = lua_toboolean(L, 3) ? 20 : 0;
	else if (!lua_isnil(L, 3))
		truncate = (int)luaL_checkinteger(L, 3);
	/* one row more than shown, so show() can say "only showing top n" */
	b = run_guarded(L, limited(L, p, n < 0 ? 1 : n + 1));
	sl_buf_init(&out);
	sl_batch_show(b, n < 0 ? 0 : n, truncate, &out);
	if (sl_buf_failed(&out)) {
		sl_buf_release(&out);
		return sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
	}
	/* copy into Lua before printing, so print's errors cannot leak out */
	lua_pushlstring(L, out.p ? out.p : "", out.len);
	sl_buf_release(&out);
	sl_lua_print(L, lua_tostring(L, -1), lua_rawlen(L, -1));
	return 0;
}

static int l_df_printschema(lua_State *L)
{
	sl_plan *p = self(L, "printSchema");
	sl_buf out;
	sl_buf_init(&out);
	sl_type_tree(sl_plan_schema(p), &out);
	lua_pushlstring(L, out.p ? out.p : "", out.len);
	sl_buf_release(&out);
	sl_lua_print(L, lua_tostring(L, -1), lua_rawlen(L, -1));
	return 0;
}

static int l_df_explain(lua_State *L)
{
	sl_plan *p = self(L, "explain");
	bool extended = false;
	sl_buf out;
	if (lua_type(L, 2) == LUA_TBOOLEAN) {
		extended = lua_toboolean(L, 2);
	} else if (lua_type(L, 2) == LUA_TSTRING) {
		const char *m = lua_tostring(L, 2);
		if (strcmp(m, "extended") == 0)
			extended = true;
		else if (strcmp(m, "simple") != 0)
			return sl_lerr_raisef(L, SL_EINVAL,
					      "expected 'simple' or 'extended'",
					      "explain: unknown mode '%s'", m);
	} else if (!lua_isnoneornil(L, 2)) {
		return sl_lerr_argerror(L, 2, "explain",
					"boolean or mode string expected");
	}
	sl_buf_init(&out);
	sl_plan_explain(p, extended, &out);
	lua_pushlstring(L, out.p ? out.p : "", out.len);
	sl_buf_release(&out);
	sl_lua_print(L, lua_tostring(L, -1), lua_rawlen(L, -1));
	return 0;
}

/* createOrReplaceTempView: a batch DataFrame runs once and its rows are
 * the view; a streaming one is kept as its plan, which spark.table and
 * spark.sql read (a streaming DataFrame again), as Spark allows.  Global
 * views live under "global_temp.", as Spark's global_temp database. */
static int tempview(lua_State *L, const char *method, bool global)
{
	sl_plan *p = self(L, method);
	const char *name = sl_lerr_checkstr(L, 2, method, "view name");
	sl_catalog *cat = sl_session_catalog(sl_lua_session(L));
	sl_err err;
	int rc;
	if (global) {
		lua_pushfstring(L, "global_temp.%s", name);
		name = lua_tostring(L, -1);
	}
	if (sl_plan_is_streaming(p)) {
		rc = sl_catalog_put_plan(cat, name, p, &err);
	} else {
		sl_batch *b = run_guarded(L, p);
		rc = sl_catalog_put(cat, name, b, &err);
	}
	if (rc < 0)
		return sl_lerr_raise(L, &err);
	return 0;
}

static int l_df_tempview(lua_State *L)
{
	return tempview(L, "createOrReplaceTempView", false);
}

static int l_df_globaltempview(lua_State *L)
{
	return tempview(L, "createOrReplaceGlobalTempView", true);
}

static int l_df_writestream(lua_State *L, sl_plan *p)
{
	if (!sl_plan_is_streaming(p))
		return sl_lerr_raisef(L, SL_EANALYSIS,
				      "writeStream needs a DataFrame from "
				      "spark.readStream or ms:toDF(); batch "
				      "DataFrames use df.write",
				      "'writeStream' can be called only on "
				      "streaming Dataset/DataFrame");
	sl_lswriter_push(L, p);
	return 1;
}

/* ---- fields, __index, __tostring ---- */

static const luaL_Reg df_methods[] = {
	{ "select", l_df_select },
	{ "selectExpr", l_df_selectexpr },
	{ "filter", l_df_filter },
	{ "where", l_df_where },
	{ "withColumn", l_df_withcolumn },
	{ "withColumnRenamed", l_df_withcolumnrenamed },
	{ "drop", l_df_drop },
	{ "groupBy", l_df_groupby },
	{ "groupby", l_df_groupby_lc },
	{ "agg", l_df_agg },
	{ "orderBy", l_df_orderby },
	{ "sort", l_df_sort },
	{ "limit", l_df_limit },
	{ "union", l_df_union },
	{ "unionAll", l_df_unionall },
	{ "join", l_df_join },
	{ "dropDuplicates", l_df_dropduplicates },
	{ "drop_duplicates", l_df_drop_duplicates },
	{ "dropDuplicatesWithinWatermark", l_df_dropduplicates_ww },
	{ "distinct", l_df_distinct },
	{ "toDF", l_df_todf },
	{ "withWatermark", l_df_withwatermark },
	{ "show", l_df_show },
	{ "collect", l_df_collect },
	{ "count", l_df_count },
	{ "first", l_df_first },
	{ "head", l_df_head },
	{ "take", l_df_take },
	{ "isEmpty", l_df_isempty },
	{ "printSchema", l_df_printschema },
	{ "explain", l_df_explain },
	{ "createOrReplaceTempView", l_df_tempview },
	{ "createOrReplaceGlobalTempView", l_df_globaltempview },
	{ "toPySpark", sl_lpyspark_df },
	{ NULL, NULL }
};

static const char *const df_fields[] = { "schema", "columns",
					 "dtypes", "isStreaming",
					 "write",  "writeStream",
					 NULL };

static int push_field(lua_State *L, sl_plan *p, const char *k)
{
	sl_type *st = sl_plan_schema(p);
	sl_buf b;
	if (strcmp(k, "schema") == 0) {
		sl_buf_init(&b);
		sl_type_ddl(st, &b);
		lua_pushstring(L, sl_buf_cstr(&b));
		sl_buf_release(&b);
	} else if (strcmp(k, "columns") == 0) {
		lua_createtable(L, st->nfields, 0);
		for (int f = 0; f < st->nfields; f++) {
			lua_pushstring(L, st->fields[f].name);
			lua_rawseti(L, -2, f + 1);
		}
	} else if (strcmp(k, "dtypes") == 0) {
		lua_createtable(L, st->nfields, 0);
		for (int f = 0; f < st->nfields; f++) {
			lua_createtable(L, 2, 0);
			lua_pushstring(L, st->fields[f].name);
			lua_rawseti(L, -2, 1);
			sl_buf_init(&b);
			sl_type_catalog_string(st->fields[f].type, &b);
			lua_pushstring(L, sl_buf_cstr(&b));
			sl_buf_release(&b);
			lua_rawseti(L, -2, 2);
			lua_rawseti(L, -2, f + 1);
		}
	} else if (strcmp(k, "isStreaming") == 0) {
		lua_pushboolean(L, sl_plan_is_streaming(p));
	} else if (strcmp(k, "write") == 0) {
		if (sl_plan_is_streaming(p))
			return sl_lerr_raisef(L, SL_EANALYSIS,
					      "use df.writeStream",
					      "'write' can not be called on "
					      "streaming Dataset/DataFrame");
		sl_lwriter_push(L, p);
	} else if (strcmp(k, "writeStream") == 0) {
		return l_df_writestream(L, p);
	} else {
		return 0;
	}
	return 1;
}

static int l_df_index(lua_State *L)
{
	l_df *d = luaL_checkudata(L, 1, SL_MT_DATAFRAME);
	const char *k, *names[300];
	sl_type *st;
	int n = 0, f;
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "methods");
	lua_pushvalue(L, 2);
	if (lua_rawget(L, -2) != LUA_TNIL)
		return 1;
	if (lua_type(L, 2) != LUA_TSTRING)
		return sl_lerr_raisef(L, SL_EINVAL, NULL,
				      "DataFrame has no field of type %s",
				      luaL_typename(L, 2));
	k = lua_tostring(L, 2);
	if (d->p == NULL)
		return 0;
	if (push_field(L, d->p, k))
		return 1;
	st = sl_plan_schema(d->p);
	if ((f = sl_type_field_index(st, k)) >= 0) {
		sl_lcol_push(L, sl_expr_col(st->fields[f].name));
		return 1;
	}
	for (const luaL_Reg *r = df_methods; r->name; r++)
		names[n++] = r->name;
	for (const char *const *x = df_fields; *x; x++)
		names[n++] = *x;
	for (f = 0; f < st->nfields && n < 300; f++)
		names[n++] = st->fields[f].name;
	return sl_lua_nofield(L, "DataFrame", k, names, n);
}

static int l_df_tostring(lua_State *L)
{
	l_df *d = luaL_checkudata(L, 1, SL_MT_DATAFRAME);
	sl_type *st;
	sl_buf b;
	if (d->p == NULL) {
		lua_pushliteral(L, "DataFrame[]");
		return 1;
	}
	st = sl_plan_schema(d->p);
	sl_buf_init(&b);
	sl_buf_adds(&b, "DataFrame[");
	for (int f = 0; f < st->nfields; f++) {
		if (f)
			sl_buf_adds(&b, ", ");
		sl_buf_printf(&b, "%s: ", st->fields[f].name);
		sl_type_catalog_string(st->fields[f].type, &b);
	}
	sl_buf_addc(&b, ']');
	lua_pushstring(L, sl_buf_cstr(&b));
	sl_buf_release(&b);
	return 1;
}

static const luaL_Reg grouped_methods[] = {
	{ "agg", l_grouped_agg },   { "count", l_grouped_count },
	{ "sum", l_grouped_sum },   { "avg", l_grouped_avg },
	{ "mean", l_grouped_mean }, { "min", l_grouped_min },
	{ "max", l_grouped_max },   { NULL, NULL }
};

static int l_grouped_index(lua_State *L)
{
	const char *names[16];
	int n = 0;
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "methods");
	lua_pushvalue(L, 2);
	if (lua_rawget(L, -2) != LUA_TNIL)
		return 1;
	for (const luaL_Reg *r = grouped_methods; r->name; r++)
		names[n++] = r->name;
	return sl_lua_nofield(L, "GroupedData", luaL_checkstring(L, 2), names,
			      n);
}

void sl_ldf_open(lua_State *L)
{
	sl_lua_class_open(L, &(sl_lua_class){ .name = SL_MT_DATAFRAME,
					      .gc = l_df_gc,
					      .index = l_df_index,
					      .tostring = l_df_tostring,
					      .methods = df_methods });
	luaL_getmetatable(L, SL_MT_DATAFRAME);
	/* the property names, for completion and help */
	lua_createtable(L, 8, 0);
	for (int i = 0; df_fields[i]; i++) {
		lua_pushstring(L, df_fields[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "fields");
	lua_pop(L, 1);

	sl_lua_class_open(L, &(sl_lua_class){ .name = SL_MT_GROUPED,
					      .gc = l_grouped_gc,
					      .index = l_grouped_index,
					      .tostring = l_grouped_tostring,
					      .methods = grouped_methods });
}
