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

#include "expr.h"
#include "plan.h"

#define SL_MT_DATAFRAME "streamlab.DataFrame"
#define SL_MT_COLUMN "streamlab.Column"
#define SL_MT_GROUPED "streamlab.GroupedData"
#define SL_MT_READER "streamlab.DataFrameReader"
#define SL_MT_WRITER "streamlab.DataFrameWriter"
#define SL_MT_ROW "streamlab.Row"

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

/* ---- session.c ---- */
/* Print text through the global `print` (so the REPL can capture it);
 * a trailing newline is dropped since print adds one. */
void sl_lua_print(lua_State *L, const char *text, size_t len);
/* Raise "<what> has no field/method 'name'" with a did-you-mean over
 * names[0..n). Never returns. */
int sl_lua_nofield(lua_State *L, const char *what, const char *name,
		   const char *const *names, int n);

#endif
