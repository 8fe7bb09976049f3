/*
 * lua_int: internals shared by the files of the Lua binding (session.c,
 * column.c, df.c, reader.c, lconv.c).  Never included from outside lua/.
 *
 * Userdata layouts are one pointer to a counted engine object, NULL in the
 * "safe empty state" between creation and the engine call; __gc drops the
 * reference (NULL is fine).
 */
#ifndef SL_LUA_INT_H
#define SL_LUA_INT_H

#include <lua.h>
#include <lauxlib.h>

#include <stdbool.h>

#include "core/buf.h"
#include "expr/expr.h"
#include "core/options.h"
#include "plan/plan.h"
#include "driver/session.h"

#define SL_MT_DATAFRAME "streamlab.DataFrame"
#define SL_MT_COLUMN    "streamlab.Column"
#define SL_MT_GROUPED   "streamlab.GroupedData"
#define SL_MT_READER    "streamlab.DataFrameReader"
#define SL_MT_WRITER    "streamlab.DataFrameWriter"
#define SL_MT_ROW       "streamlab.Row"
#define SL_MT_SREADER   "streamlab.DataStreamReader"
#define SL_MT_SWRITER   "streamlab.DataStreamWriter"
#define SL_MT_MEMSTREAM "streamlab.MemoryStream"
#define SL_MT_QUERY     "streamlab.StreamingQuery"

typedef struct l_column {
	sl_expr *e;
} l_column;

typedef struct l_df {
	sl_plan *p;
} l_df;

/* ---- column.c ---- */
/* Register the Column metatable and set the global F. */
void sl_lcol_open(lua_State *L);
/* Push a Column owning e (ownership taken).  e NULL = out of memory: the
 * Column is still pushed empty and an error raised. */
void sl_lcol_push(lua_State *L, sl_expr *e);
/* The expression of a Column at idx, or NULL when it is not one.  Borrowed. */
sl_expr *sl_lcol_test(lua_State *L, int idx);
/* How a non-Column Lua value at idx becomes an expression. */
enum { SL_AS_COLNAME = 0, SL_AS_LITERAL = 1 };
/* Replace the value at idx by a Column: a Column stays; a string is a column
 * name (SL_AS_COLNAME; "*" is a star) or a literal; other values are
 * literals.  Raises a bad argument naming `method` for tables/functions.
 * Returns the (borrowed) expression. */
sl_expr *sl_lcol_coerce(lua_State *L, int idx, int how, const char *method);
/* A literal expression for the Lua value at idx (nil, boolean, integer,
 * number, string), or NULL if the type has no literal form.  New ref. */
sl_expr *sl_lcol_literal(lua_State *L, int idx);

/* Turn arguments first..first+n-1 into Columns in place (see coerce), then
 * return an array of n new references in a temporary userdata pushed on the
 * stack top.  After this returns, raise no Lua error before handing the
 * array to the engine (which takes ownership). */
sl_expr **sl_lcol_args(lua_State *L, int first, int n, int how,
		       const char *method);

/* ---- df.c ---- */
void sl_ldf_open(lua_State *L);
/* Push a new DataFrame userdata in the safe empty state. */
l_df *sl_ldf_new(lua_State *L);
/* Store p into the DataFrame at index ud and leave it on the stack top, or
 * raise err if p is NULL.  Returns 1 (values to return). */
int sl_ldf_finish(lua_State *L, int ud, sl_plan *p, sl_err *err);
/* The plan of the DataFrame at idx (borrowed) or NULL. */
sl_plan *sl_ldf_test(lua_State *L, int idx);

/* ---- reader.c ---- */
void sl_lreader_open(lua_State *L);
/* Push a new DataFrameReader (spark.read). */
void sl_lreader_push(lua_State *L);
/* Push a new DataFrameWriter over p (df.write); takes a reference. */
void sl_lwriter_push(lua_State *L, sl_plan *p);

/* Set option k (arg kidx) = v (arg vidx) in o, values in Spark's string
 * form; options{...} (the table at idx) in key order.  Raise on bad
 * arguments; `method` names the caller. */
void sl_lopt_set(lua_State *L, sl_options *o, int kidx, int vidx,
		 const char *method);
void sl_lopt_setall(lua_State *L, sl_options *o, int idx, const char *method);
/* partitionBy(cols...) of both writers: the names from arg 2 on (strings,
 * or one table of strings, as PySpark's *cols or a list) stored as the
 * option formats/partition.h names.  Raises on bad arguments. */
void sl_lpartition_by(lua_State *L, sl_options *o, const char *kind);
/* Push "Kind(format=f, k=v, ...)": the __tostring of readers. */
int sl_lopt_tostring(lua_State *L, const char *kind, const char *format,
		     const sl_options *opts);

/* ---- stream.c ---- */
void sl_lstream_open(lua_State *L);
/* Push a new DataStreamReader (spark.readStream). */
void sl_lsreader_push(lua_State *L);
/* Push a new DataStreamWriter over the streaming plan p (takes a ref). */
void sl_lswriter_push(lua_State *L, sl_plan *p);
/* spark.memoryStream(ddl) */
int sl_lmemstream_new(lua_State *L);

/* ---- query.c ---- */
void sl_lquery_open(lua_State *L);
/* Push a StreamingQuery userdata in the safe empty state. */
void sl_lquery_new(lua_State *L);
/* Give the userdata at idx the query q (takes ownership of the caller's
 * reference) and remember it as q's userdata. */
void sl_lquery_bind(lua_State *L, int idx, sl_query *q);
/* Push q's StreamingQuery userdata (the remembered one, or a new one
 * holding a new reference). */
void sl_lquery_push(lua_State *L, sl_query *q);
/* Push spark.streams and spark.clock (shared objects). */
void sl_lquery_push_streams(lua_State *L);
void sl_lquery_push_clock(lua_State *L);
/* Raise q's failure as a StreamingQueryException error object. */
int sl_lquery_raise_exception(lua_State *L, const char *exception);

/* ---- json.c ---- */
/* Push the Lua value of JSON text (objects -> tables, arrays -> arrays,
 * null -> absent key / nil, integers -> integers).  Pushes nil and returns
 * 0 when the text is not JSON. */
int sl_ljson_push(lua_State *L, const char *json);

/* ---- session.c: the engine session behind `spark` ---- */
/* Callbacks from the engine (console output, foreachBatch, listeners) run
 * on the Lua thread that entered the engine.  Bindings that may run
 * batches bracket the engine call with enter/leave (no Lua error between
 * them); leave also flushes buffered console output. */
typedef struct l_sess {
	sl_session *s;   /* owned; freed by the registry userdata's __gc */
	lua_State *L;    /* the thread callbacks use now */
	lua_State *main; /* the main thread */
	sl_buf out;      /* console output not yet ended by a newline */
	/* awaitAnyTermination: a query terminated since resetTerminated */
	bool any_terminated;
	char *any_exception; /* that query's failure (malloc'd) or NULL */
	bool closing;        /* lua_close: call no Lua any more */
} l_sess;
/* The session of L's `spark` (never NULL after sl_lua_open). */
l_sess *sl_lsess_of(lua_State *L);
/* Before a batch action: current_timestamp() is the session clock's now. */
void sl_lsess_batch_now(lua_State *L);
lua_State *sl_lsess_enter(l_sess *x, lua_State *L);
void sl_lsess_leave(l_sess *x, lua_State *prev);
/* The thread callbacks must use now. */
lua_State *sl_lsess_thread(l_sess *x);
/* Write text through the session's output (print, line-buffered). */
void sl_lsess_write(l_sess *x, const char *s, size_t n);
/* Shorthand: the engine session of L's `spark`. */
sl_session *sl_lua_session(lua_State *L);

/* ---- session.c ---- */
/* Print text through the global `print` (so the REPL can capture it);
 * a trailing newline is dropped since print adds one. */
void sl_lua_print(lua_State *L, const char *text, size_t len);
/* Raise "<what> has no field/method 'name'" with a did-you-mean over
 * names[0..n). Never returns. */
int sl_lua_nofield(lua_State *L, const char *what, const char *name,
		   const char *const *names, int n);

/* ---- pyspark.c: q:toPySpark() and df:toPySpark() ---- */
struct sl_query_opts;
/* Called by writeStream.start() once q is bound: writes q's PySpark
 * program (plan p and the writer's settings o, both borrowed) and keeps
 * it by q's id; honours STREAMLAB_PYSPARK_DIR.  Raises no Lua error. */
void sl_lpyspark_started(lua_State *L, sl_query *q, sl_plan *p,
			 const struct sl_query_opts *o);
/* The methods StreamingQuery.toPySpark and DataFrame.toPySpark. */
int sl_lpyspark_query(lua_State *L);
int sl_lpyspark_df(lua_State *L);

/* The `kafka` global (kafka.c). */
void sl_lkafka_open(lua_State *L);

/* A class's metatable, as every binding writes it (lclass.c): the
 * metamethods given (NULL: none) and the methods under "methods", which
 * __index and Tab completion look up.  Leaves nothing on the stack. */
typedef struct sl_lua_class {
	const char *name; /* "streamlab.Query" */
	lua_CFunction gc, index, newindex, tostring;
	const luaL_Reg *methods;
} sl_lua_class;
void sl_lua_class_open(lua_State *L, const sl_lua_class *c);

#endif
