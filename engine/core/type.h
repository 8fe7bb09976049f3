/*
 * type: Spark SQL data types and schemas.
 *
 * A schema is a STRUCT type; a DataFrame's output, a batch's layout and a
 * window column's type are all sl_type.  Primitive types are immortal
 * singletons (sl_type_prim); struct and array types are reference counted
 * and immutable once built.  sl_type_ref/sl_type_free are no-ops on
 * singletons, so code never needs to know which kind it holds.
 *
 * The DDL parser accepts Spark's table-schema DDL: "a INT, b STRING",
 * backquoted names, NOT NULL, COMMENT '...', STRUCT<x: INT, y STRING>,
 * ARRAY<T>, and the aliases LONG, INTEGER, SHORT, SMALLINT, TINYINT, BYTE,
 * FLOAT, REAL, BOOL, TEXT, DATE (the narrow ints become INT, FLOAT becomes DOUBLE).
 */
#ifndef SL_TYPE_H
#define SL_TYPE_H

#include <stdbool.h>

#include "core/buf.h"
#include "core/err.h"

typedef enum sl_kind {
	SL_NULLTYPE = 0, /* type of the NULL literal before coercion */
	SL_BOOLEAN,
	SL_INT,
	SL_BIGINT,
	SL_DOUBLE,
	SL_STRING,
	SL_BINARY,
	SL_TIMESTAMP, /* int64 microseconds since 1970-01-01T00:00:00Z */
	SL_DATE,      /* int32 days since 1970-01-01 (Spark's DateType) */
	SL_STRUCT,
	SL_ARRAY
} sl_kind;

typedef struct sl_type sl_type;

typedef struct sl_field {
	char *name;
	sl_type *type;
	bool nullable;
} sl_field;

/* Transparent on purpose: operators read kinds and fields in hot setup code. */
struct sl_type {
	sl_kind kind;
	int refs;    /* -1 for immortal singletons */
	int nfields; /* STRUCT */
	sl_field *fields;
	sl_type *elem; /* ARRAY element type */
};

/* The immortal singleton for a primitive kind (not STRUCT/ARRAY). */
sl_type *sl_type_prim(sl_kind kind);
sl_type *sl_type_ref(sl_type *t);
void sl_type_free(sl_type *t);

/* New struct type with n fields, names NULL and types NULL: fill with
 * sl_type_set_field.  Returns NULL on out of memory. */
sl_type *sl_type_struct_new(int n);
/* Copies name, takes ownership of ftype.  Returns 0 or SL_ENOMEM. */
int sl_type_set_field(sl_type *st, int i, const char *name, sl_type *ftype,
		      bool nullable);
/* New array type; takes ownership of elem. */
sl_type *sl_type_array_new(sl_type *elem);

/* Parse Spark DDL into a new STRUCT type.  Errors name the column of the
 * problem: "schema: unknown type 'STRNG' at col 7 (did you mean 'STRING'?)". */
sl_type *sl_type_parse_ddl(const char *ddl, sl_err *err);
/* Parse one type name ("double", "array<int>"); used by CAST. */
sl_type *sl_type_parse(const char *s, sl_err *err);

bool sl_type_equal(const sl_type *a, const sl_type *b);
/* Index of field name in a STRUCT (case-insensitive, as Spark's default
 * resolver), or -1. */
int sl_type_field_index(const sl_type *st, const char *name);

/* SQL names: INT, BIGINT, ..., STRUCT<a: INT, b: STRING>, ARRAY<STRING>. */
void sl_type_sql(const sl_type *t, sl_buf *out);
/* Spark's simpleString names used by printSchema: integer, long, double,
 * string, binary, boolean, timestamp, date, struct, array. */
const char *sl_type_simple_name(const sl_type *t);
/* Spark's catalogString (dtypes, DESCRIBE): int, bigint, array<string>,
 * struct<a:int,b:string>.  Appends. */
void sl_type_catalog_string(const sl_type *t, sl_buf *out);
/* DDL of a struct: "a INT, b STRING". */
void sl_type_ddl(const sl_type *st, sl_buf *out);
/* printSchema() text, Spark's format ("root\n |-- a: integer (nullable = true)\n"). */
void sl_type_tree(const sl_type *st, sl_buf *out);

bool sl_type_is_numeric(const sl_type *t); /* INT, BIGINT, DOUBLE */
/* True when a column of type t can be a group or state key (no ARRAY at
 * any depth): the hash group table and the state key encoding take it. */
bool sl_type_keyable(const sl_type *t);
/* Width in bytes of one value in a column's data array (0 for STRUCT). */
int sl_type_width(const sl_type *t);
/* Whether t's values are one fixed-width scalar that fits a machine word
 * (BOOLEAN, INT, DATE, BIGINT, TIMESTAMP, DOUBLE): the live table's key
 * words and its aggregates' fixed-width results. */
bool sl_type_is_word(const sl_type *t);

#endif
