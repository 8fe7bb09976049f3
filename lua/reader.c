/*
 * reader: DataFrameReader (spark.read) and DataFrameWriter (df.write).
 *
 * Both are small mutable builders, as in PySpark: each builder method
 * changes the object and returns it, so calls chain
 * (spark.read:format("csv"):option("header", true):load(path)).  They own
 * their strings, options and schema; __gc releases them.  Option values
 * may be strings, numbers or booleans and are stored in Spark's string form
 * ("true", "5", "0.5").
 *
 * Batch only: the streaming counterparts (DataStreamReader/Writer) are in
 * stream.c and share the option helpers below.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "driver/state_read.h"
#include "formats/fileformat.h"
#include "formats/partition.h"
#include "lconv.h"
#include "lerr.h"
#include "lua_int.h"
#include "core/options.h"

typedef struct l_reader {
	char *format;
	sl_type *schema;
	sl_options opts;
} l_reader;

typedef struct l_writer {
	sl_plan *p;
	char *format;
	char *mode;
	sl_options opts;
} l_writer;

static const char *const formats[] = {
	"json", "csv", "text", "parquet", "statestore", "state-metadata"
};

static void nomem(lua_State *L)
{
	sl_lerr_raisef(L, SL_ENOMEM, NULL, "out of memory");
}

/* Replace *slot by a copy of s. */
static void set_str(lua_State *L, char **slot, const char *s)
{
	char *c = strdup(s);
	if (c == NULL)
		nomem(L);
	free(*slot);
	*slot = c;
}

/* Spark 4.0's state sources (driver/state_read.h): read only. */
static bool state_format(const char *f)
{
	return strcasecmp(f, "statestore") == 0 ||
	       strcasecmp(f, "state-metadata") == 0;
}

/* The format at arg 2, checked against json/csv/text/parquet (and, for a
 * reader, the state sources). */
static const char *check_format(lua_State *L, const char *method, bool read)
{
	const char *f = sl_lerr_checkstr(L, 2, method, "format name");
	if (!sl_format_known(f) && !(read && state_format(f))) {
		const char *near = sl_nearest_name(f, formats, read ? 6 : 4);
		char hint[96];
		snprintf(hint, sizeof hint, "did you mean '%s'?",
			 near ? near : "");
		sl_lerr_raisef(L, SL_EINVAL, near ? hint : NULL,
			       "%s: unknown format '%s' (expected json, csv, "
			       "text or parquet)",
			       method, f);
		return NULL;
	}
	return f;
}

void sl_lopt_set(lua_State *L, sl_options *o, int kidx, int vidx,
		 const char *method)
{
	char buf[64], got[96];
	const char *k = sl_lerr_checkstr(L, kidx, method, "option name");
	const char *v = sl_lconv_optstr(L, vidx, buf, sizeof buf);
	if (v == NULL) {
		sl_lerr_describe(L, vidx, got, sizeof got);
		sl_lerr_argerror(L, vidx, method,
				 "string, number or boolean expected, got %s",
				 got);
	}
	if (sl_options_set(o, k, v) < 0)
		nomem(L);
}

/* options{k=v, ...}: lua_next order; each key appears once in a table. */
void sl_lopt_setall(lua_State *L, sl_options *o, int idx, const char *method)
{
	luaL_checktype(L, idx, LUA_TTABLE);
	lua_pushnil(L);
	while (lua_next(L, idx) != 0) {
		int v = lua_gettop(L);
		if (lua_type(L, v - 1) != LUA_TSTRING)
			sl_lerr_raisef(L, SL_EINVAL, NULL,
				       "%s: option names must be strings",
				       method);
		sl_lopt_set(L, o, v - 1, v, method);
		lua_pop(L, 1);
	}
}

/* ---- DataFrameReader ---- */

static int l_reader_gc(lua_State *L)
{
	l_reader *r = luaL_checkudata(L, 1, SL_MT_READER);
	free(r->format);
	r->format = NULL;
	sl_type_free(r->schema);
	r->schema = NULL;
	sl_options_release(&r->opts);
	return 0;
}

void sl_lreader_push(lua_State *L)
{
	l_reader *r = lua_newuserdatauv(L, sizeof *r, 0);
	r->format = NULL;
	r->schema = NULL;
	sl_options_init(&r->opts);
	luaL_setmetatable(L, SL_MT_READER);
}

static int l_reader_format(lua_State *L)
{
	l_reader *r = sl_lerr_checkself(L, SL_MT_READER, "format");
	set_str(L, &r->format, check_format(L, "format", true));
	lua_settop(L, 1);
	return 1;
}

static int l_reader_option(lua_State *L)
{
	l_reader *r = sl_lerr_checkself(L, SL_MT_READER, "option");
	sl_lopt_set(L, &r->opts, 2, 3, "option");
	lua_settop(L, 1);
	return 1;
}

static int l_reader_options(lua_State *L)
{
	l_reader *r = sl_lerr_checkself(L, SL_MT_READER, "options");
	sl_lopt_setall(L, &r->opts, 2, "options");
	lua_settop(L, 1);
	return 1;
}

static int l_reader_schema(lua_State *L)
{
	l_reader *r = sl_lerr_checkself(L, SL_MT_READER, "schema");
	const char *ddl = sl_lerr_checkstr(L, 2, "schema", "DDL string");
	sl_err err;
	sl_type *t = sl_type_parse_ddl(ddl, &err);
	if (t == NULL)
		return sl_lerr_raise(L, &err);
	sl_type_free(r->schema);
	r->schema = t;
	lua_settop(L, 1);
	return 1;
}

/* format("statestore") / format("state-metadata"): the checkpoint at
 * path read now (driver/state_read.h), as a local relation that
 * remembers the read for explain and toPySpark. */
static int load_state(lua_State *L, l_reader *r, const char *fmt,
		      const char *path, const char *method)
{
	sl_state_read_opts o;
	sl_state_read *sr;
	sl_batch *b = NULL;
	sl_plan *p;
	sl_err err;
	int ud;
	bool meta = strcasecmp(fmt, "state-metadata") == 0;
	if (r->schema != NULL)
		return sl_lerr_raisef(L, SL_EANALYSIS, NULL,
				      "%s: %s does not support a "
				      "user-specified schema",
				      method, fmt);
	sl_ldf_new(L);
	ud = lua_gettop(L);
	sl_state_read_opts_init(&o);
	if ((sr = sl_state_read_open(path, &err)) != NULL) {
		if (meta)
			b = sl_state_read_metadata(sr, &err);
		else if (sl_state_read_opts_from(&o, &r->opts, &err) == 0)
			b = sl_state_read_rows(sr, &o, &err);
		sl_state_read_free(sr);
	}
	if (b == NULL) {
		sl_err_prefix(&err, meta ? "state-metadata" : "statestore");
		return sl_lerr_raise(L, &err);
	}
	p = sl_plan_local_source(b, meta ? "state-metadata" : "statestore",
				 path, meta ? NULL : &r->opts, &err);
	sl_batch_free(b);
	return sl_ldf_finish(L, ud, p, &err);
}

/* load(path?) with the reader's format; fmt overrides (json()/csv()/text()). */
static int do_load(lua_State *L, const char *fmt, const char *method)
{
	l_reader *r = sl_lerr_checkself(L, SL_MT_READER, method);
	const char *path;
	int ud;
	sl_err err;
	if (!lua_isnoneornil(L, 2))
		path = sl_lerr_checkstr(L, 2, method, "path");
	else if ((path = sl_options_get(&r->opts, "path")) == NULL)
		return sl_lerr_raisef(L, SL_EINVAL, NULL, "%s: no path given",
				      method);
	if (fmt == NULL)
		fmt = r->format;
	if (fmt == NULL)
		fmt = "parquet"; /* spark.sql.sources.default */
	if (state_format(fmt))
		return load_state(L, r, fmt, path, method);
	sl_ldf_new(L);
	ud = lua_gettop(L);
	return sl_ldf_finish(
	    L, ud, sl_plan_read(fmt, path, r->schema, &r->opts, &err), &err);
}

/* json(path, {opts}) / csv(path, {opts}): keyword options first. */
static int shorthand(lua_State *L, const char *fmt)
{
	l_reader *r = sl_lerr_checkself(L, SL_MT_READER, fmt);
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
			if (strcmp(lua_tostring(L, v - 1), "schema") == 0) {
				sl_err err;
				sl_type *t = sl_type_parse_ddl(
				    sl_lerr_checkstr(L, v, fmt, "DDL string"),
				    &err);
				if (t == NULL)
					return sl_lerr_raise(L, &err);
				sl_type_free(r->schema);
				r->schema = t;
			} else {
				sl_lopt_set(L, &r->opts, v - 1, v, fmt);
			}
			lua_pop(L, 1);
		}
		lua_settop(L, 2);
	}
	return do_load(L, fmt, fmt);
}

static int l_reader_load(lua_State *L)
{
	return do_load(L, NULL, "load");
}
static int l_reader_json(lua_State *L)
{
	return shorthand(L, "json");
}
static int l_reader_csv(lua_State *L)
{
	return shorthand(L, "csv");
}
static int l_reader_text(lua_State *L)
{
	return shorthand(L, "text");
}
static int l_reader_parquet(lua_State *L)
{
	return shorthand(L, "parquet");
}

static int l_reader_tostring(lua_State *L)
{
	l_reader *r = luaL_checkudata(L, 1, SL_MT_READER);
	return sl_lopt_tostring(L, "DataFrameReader", r->format, &r->opts);
}

int sl_lopt_tostring(lua_State *L, const char *kind, const char *format,
		     const sl_options *opts)
{
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	luaL_addstring(&b, kind);
	luaL_addstring(&b, "(format=");
	luaL_addstring(&b, format ? format : "?");
	for (int i = 0; i < opts->n; i++) {
		luaL_addstring(&b, ", ");
		luaL_addstring(&b, opts->keys[i]);
		luaL_addchar(&b, '=');
		luaL_addstring(&b, opts->vals[i]);
	}
	luaL_addchar(&b, ')');
	luaL_pushresult(&b);
	return 1;
}

static const luaL_Reg reader_methods[] = {
	{ "format", l_reader_format },   { "option", l_reader_option },
	{ "options", l_reader_options }, { "schema", l_reader_schema },
	{ "load", l_reader_load },       { "json", l_reader_json },
	{ "csv", l_reader_csv },         { "text", l_reader_text },
	{ "parquet", l_reader_parquet }, { NULL, NULL }
};

/* ---- DataFrameWriter ---- */

static int l_writer_gc(lua_State *L)
{
	l_writer *w = luaL_checkudata(L, 1, SL_MT_WRITER);
	sl_plan_free(w->p);
	w->p = NULL;
	free(w->format);
	w->format = NULL;
	free(w->mode);
	w->mode = NULL;
	sl_options_release(&w->opts);
	return 0;
}

void sl_lwriter_push(lua_State *L, sl_plan *p)
{
	l_writer *w = lua_newuserdatauv(L, sizeof *w, 0);
	w->p = NULL;
	w->format = NULL;
	w->mode = NULL;
	sl_options_init(&w->opts);
	luaL_setmetatable(L, SL_MT_WRITER);
	w->p = sl_plan_ref(p);
}

static int l_writer_format(lua_State *L)
{
	l_writer *w = sl_lerr_checkself(L, SL_MT_WRITER, "format");
	set_str(L, &w->format, check_format(L, "format", false));
	lua_settop(L, 1);
	return 1;
}

static int l_writer_mode(lua_State *L)
{
	static const char *const modes[] = { "error", "errorifexists",
					     "overwrite", "append", "ignore" };
	l_writer *w = sl_lerr_checkself(L, SL_MT_WRITER, "mode");
	const char *m = sl_lerr_checkstr(L, 2, "mode", "save mode");
	int i;
	for (i = 0; i < 5; i++)
		if (strcasecmp(m, modes[i]) == 0)
			break;
	if (i == 5) {
		const char *near = sl_nearest_name(m, modes, 5);
		char hint[64];
		snprintf(hint, sizeof hint, "did you mean '%s'?",
			 near ? near : "");
		return sl_lerr_raisef(L, SL_EINVAL, near ? hint : NULL,
				      "mode: unknown save mode '%s' (expected "
				      "error, errorifexists, overwrite, append "
				      "or ignore)",
				      m);
	}
	set_str(L, &w->mode, modes[i]);
	lua_settop(L, 1);
	return 1;
}

static int l_writer_option(lua_State *L)
{
	l_writer *w = sl_lerr_checkself(L, SL_MT_WRITER, "option");
	sl_lopt_set(L, &w->opts, 2, 3, "option");
	lua_settop(L, 1);
	return 1;
}

static int l_writer_options(lua_State *L)
{
	l_writer *w = sl_lerr_checkself(L, SL_MT_WRITER, "options");
	sl_lopt_setall(L, &w->opts, 2, "options");
	lua_settop(L, 1);
	return 1;
}

void sl_lpartition_by(lua_State *L, sl_options *o, const char *kind)
{
	int top = lua_gettop(L), n = 0;
	const char **names;
	char *json;
	if (top == 2 && lua_type(L, 2) == LUA_TTABLE) {
		int len = (int)luaL_len(L, 2);
		for (int k = 1; k <= len; k++)
			lua_geti(L, 2, k);
		lua_remove(L, 2);
		top = lua_gettop(L);
	}
	names = lua_newuserdatauv(L, (size_t)(top > 1 ? top : 1) *
					 sizeof *names, 0);
	for (int k = 2; k <= top; k++) {
		if (lua_type(L, k) != LUA_TSTRING)
			sl_lerr_raisef(L, SL_EINVAL, NULL,
				       "%s.partitionBy: argument %d: expected "
				       "a column name (string), got %s",
				       kind, k - 1, luaL_typename(L, k));
		names[n++] = lua_tostring(L, k);
	}
	json = sl_part_cols_json(names, n);
	if (json == NULL)
		luaL_error(L, "out of memory");
	if (sl_options_set(o, SL_PART_OPTION, json) != 0) {
		free(json);
		luaL_error(L, "out of memory");
	}
	free(json);
	lua_settop(L, 1);
}

static int l_writer_partitionby(lua_State *L)
{
	l_writer *w = sl_lerr_checkself(L, SL_MT_WRITER, "partitionBy");
	sl_lpartition_by(L, &w->opts, "DataFrameWriter");
	return 1;
}

static int do_save(lua_State *L, const char *fmt, const char *method)
{
	l_writer *w = sl_lerr_checkself(L, SL_MT_WRITER, method);
	const char *path;
	sl_err err;
	if (lua_type(L, 3) == LUA_TTABLE) {
		/* json(path, {mode="overwrite", ...}) */
		lua_pushnil(L);
		while (lua_next(L, 3) != 0) {
			int v = lua_gettop(L);
			if (lua_type(L, v - 1) == LUA_TSTRING &&
			    strcmp(lua_tostring(L, v - 1), "mode") == 0) {
				lua_pushcfunction(L, l_writer_mode);
				lua_pushvalue(L, 1);
				lua_pushvalue(L, v);
				lua_call(L, 2, 0);
			} else {
				sl_lopt_set(L, &w->opts, v - 1, v, method);
			}
			lua_pop(L, 1);
		}
	}
	if (!lua_isnoneornil(L, 2))
		path = sl_lerr_checkstr(L, 2, method, "path");
	else if ((path = sl_options_get(&w->opts, "path")) == NULL)
		return sl_lerr_raisef(L, SL_EINVAL, NULL, "%s: no path given",
				      method);
	if (fmt == NULL)
		fmt = w->format;
	if (fmt == NULL)
		fmt = "parquet"; /* spark.sql.sources.default */
	sl_lsess_batch_now(L);
	if (sl_plan_write(w->p, fmt, path, w->mode, &w->opts, &err) < 0)
		return sl_lerr_raise(L, &err);
	return 0;
}

static int l_writer_save(lua_State *L)
{
	return do_save(L, NULL, "save");
}
static int l_writer_json(lua_State *L)
{
	return do_save(L, "json", "json");
}
static int l_writer_csv(lua_State *L)
{
	return do_save(L, "csv", "csv");
}
static int l_writer_text(lua_State *L)
{
	return do_save(L, "text", "text");
}
static int l_writer_parquet(lua_State *L)
{
	return do_save(L, "parquet", "parquet");
}

static int l_writer_tostring(lua_State *L)
{
	l_writer *w = luaL_checkudata(L, 1, SL_MT_WRITER);
	lua_pushfstring(L, "DataFrameWriter(format=%s, mode=%s)",
			w->format ? w->format : "?",
			w->mode ? w->mode : "errorifexists");
	return 1;
}

static const luaL_Reg writer_methods[] = {
	{ "format", l_writer_format },   { "mode", l_writer_mode },
	{ "option", l_writer_option },   { "options", l_writer_options },
	{ "save", l_writer_save },       { "json", l_writer_json },
	{ "csv", l_writer_csv },         { "text", l_writer_text },
	{ "parquet", l_writer_parquet }, { "partitionBy", l_writer_partitionby },
	{ NULL, NULL }
};

/* __index: methods, else "DataFrameReader has no method 'x'". */
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
	reg = strcmp(what, SL_MT_READER) == 0 ? reader_methods : writer_methods;
	for (; reg->name; reg++)
		names[n++] = reg->name;
	return sl_lua_nofield(L, strchr(what, '.') + 1, luaL_checkstring(L, 2),
			      names, n);
}

void sl_lreader_open(lua_State *L)
{
	sl_lua_class_open(L, &(sl_lua_class){ .name = SL_MT_READER,
					      .gc = l_reader_gc,
					      .index = l_builder_index,
					      .tostring = l_reader_tostring,
					      .methods = reader_methods });
	sl_lua_class_open(L, &(sl_lua_class){ .name = SL_MT_WRITER,
					      .gc = l_writer_gc,
					      .index = l_builder_index,
					      .tostring = l_writer_tostring,
					      .methods = writer_methods });
}
