/*
 * lconv: Lua values <-> engine values and rows.
 *
 * Into the engine: createDataFrame's rows (and later MemoryStream.addData)
 * become one sl_batch of a given schema.  A row is an array ({1, "x"}, nil
 * = NULL, positions by the schema's field count, not #row), a map
 * ({a=1, b="x"}), a Row from collect(), or, for a one-field schema, a bare
 * value.  Values convert to the field's type: a Lua integer into DOUBLE, a
 * string into TIMESTAMP (sl_ts_parse), a number into TIMESTAMP as seconds,
 * tables into STRUCT and ARRAY.  A wrong value is an error naming row and
 * field: "createDataFrame: row 3, field 'amount': expected INT, got string 'x'".
 *
 * Out of the engine: rows become tables with metatable "streamlab.Row":
 * fields by name (row.product_id), positional access (row[1]), #row, pairs()
 * in schema order, __tostring "Row(a=1, b='x')", and a did-you-mean error
 * for an unknown field name.  Timestamps are strings "2026-01-01 12:05:00",
 * BIGINT/INT Lua integers, DOUBLE floats, NULL nil, structs nested Rows,
 * arrays plain Lua arrays.
 *
 * Memory: conversions into the engine keep partial columns in guard
 * userdata (freed by __gc), so a Lua error raised midway never leaks.
 */
#ifndef SL_LCONV_H
#define SL_LCONV_H

#include <lua.h>

#include "core/batch.h"
#include "core/err.h"
#include "core/type.h"

/* Register the Row metatable. */
void sl_lconv_open(lua_State *L);

/* Build a batch of `schema` (a STRUCT) from the Lua array of rows at idx.
 * who prefixes errors ("createDataFrame").  New batch, or NULL with err. */
sl_batch *sl_lconv_batch(lua_State *L, int idx, sl_type *schema,
			 const char *who, sl_err *err);

/* Infer a schema from the first row of the array at idx (PySpark's rules:
 * integer -> BIGINT, float -> DOUBLE, string -> STRING, boolean ->
 * BOOLEAN).  names_idx (0 for none) is an array of column names; without
 * it a map row gives its keys sorted, an array row _1, _2, ...
 * New STRUCT or NULL with err. */
sl_type *sl_lconv_infer(lua_State *L, int idx, int names_idx, const char *who,
			sl_err *err);

/* Push an array of Rows for every row of b. */
void sl_lconv_push_rows(lua_State *L, const sl_batch *b);
/* Push row i of b as a Row. */
void sl_lconv_push_row(lua_State *L, const sl_batch *b, int64_t i);
/* Push value i of column c (nil for NULL). */
void sl_lconv_push_value(lua_State *L, const sl_col *c, int64_t i);

/* The Spark string form of an option value at idx (string; integer;
 * number; boolean "true"/"false"), written to buf when not a string.
 * NULL if the value has no string form. */
const char *sl_lconv_optstr(lua_State *L, int idx, char *buf, size_t size);

#endif
