/*
 * pyspark: q:toPySpark() and df:toPySpark() (API.md, **ext**), over
 * engine/pyspark.h: the PySpark program that runs the same query on a
 * Spark cluster.
 *
 * A query's program needs the DataStreamWriter's settings (sink format and
 * options, mode, trigger, name), which the engine query does not keep.  So
 * writeStream.start() calls sl_lpyspark_started once the query is bound,
 * and the program is written then, with the confs as they were at start
 * (Spark fixes them at start too), and kept in a registry table keyed by
 * the query's id.  The id is stable across q:restart(), so a restarted
 * query answers with the same program.
 *
 * STREAMLAB_PYSPARK_DIR: when set, every started query's program is also
 * written there as NNN-<queryName>.py (the first free NNN), so a script or
 * a lesson run headless leaves the programs of all its queries behind
 * (tests/repl/030-pyspark.t compiles them with python3 -m py_compile).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lerr.h"
#include "lua_int.h"
#include "driver/pyspark.h"
#include "driver/query.h"

#define REG_PYSPARK "streamlab.pyspark" /* query id -> program text */

/* Write text to the first free dir/NNN-name.py; a failure is a warning
 * (the query runs on: the export is a by-product). */
static void export_file(const char *dir, const char *name, const char *text,
			size_t len)
{
	char path[4096], base[64];
	int i, fd = -1;
	size_t k;
	snprintf(base, sizeof base, "%s", name ? name : "query");
	for (k = 0; base[k]; k++)
		if (!(base[k] == '-' || base[k] == '_' ||
		      (base[k] >= '0' && base[k] <= '9') ||
		      (base[k] >= 'a' && base[k] <= 'z') ||
		      (base[k] >= 'A' && base[k] <= 'Z')))
			base[k] = '_';
	for (i = 1; i < 10000 && fd < 0; i++) {
		snprintf(path, sizeof path, "%s/%03d-%s.py", dir, i, base);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		fprintf(stderr,
			"streamlab: STREAMLAB_PYSPARK_DIR: cannot write "
			"'%s': %s\n",
			path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
}

static void push_registry(lua_State *L)
{
	if (lua_getfield(L, LUA_REGISTRYINDEX, REG_PYSPARK) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, REG_PYSPARK);
	}
}

void sl_lpyspark_started(lua_State *L, sl_query *q, sl_plan *p,
			 const sl_query_opts *o)
{
	sl_pyspark_sink w;
	const char *dir = getenv("STREAMLAB_PYSPARK_DIR");
	sl_buf out;
	memset(&w, 0, sizeof w);
	w.format = o->format;
	w.foreach_batch = o->foreach_fn != NULL;
	w.mode = o->mode;
	w.trigger = o->trigger;
	w.name = o->name;
	w.opts = o->sink_opts;
	sl_buf_init(&out);
	if (sl_pyspark_query(p, &w, sl_lua_session(L), &out, NULL) < 0) {
		sl_buf_release(&out); /* out of memory: no program, no error */
		return;
	}
	push_registry(L);
	lua_pushlstring(L, out.p, out.len);
	lua_setfield(L, -2, sl_query_id(q));
	lua_pop(L, 1);
	if (dir != NULL && dir[0] != '\0')
		export_file(dir, o->name, out.p, out.len);
	sl_buf_release(&out);
}

/* q:toPySpark() -> the program (a string). */
int sl_lpyspark_query(lua_State *L)
{
	sl_query **u = luaL_checkudata(L, 1, SL_MT_QUERY);
	if (*u == NULL)
		return sl_lerr_raisef(L, SL_ESTATE, NULL,
				      "toPySpark: the query is empty");
	push_registry(L);
	if (lua_getfield(L, -1, sl_query_id(*u)) != LUA_TSTRING)
		return sl_lerr_raisef(L, SL_ESTATE, NULL,
				      "toPySpark: no program for query '%s' "
				      "(it was not started by writeStream "
				      "start())",
				      sl_query_id(*u));
	return 1;
}

/* df:toPySpark() -> the program of the DataFrame's transformations. */
int sl_lpyspark_df(lua_State *L)
{
	sl_plan *p = sl_ldf_test(L, 1);
	sl_err err;
	sl_buf out;
	if (p == NULL)
		return sl_lerr_argerror(L, 1, "toPySpark",
					"DataFrame expected");
	sl_buf_init(&out);
	if (sl_pyspark_dataframe(p, sl_lua_session(L), &out, &err) < 0) {
		sl_buf_release(&out);
		return sl_lerr_raise(L, &err);
	}
	lua_pushlstring(L, out.p, out.len);
	sl_buf_release(&out);
	return 1;
}
