/*
 * expr: column expressions, as Spark's Column / SQL expressions.
 *
 * An sl_expr is an immutable, reference-counted tree.  Trees come from the
 * builders below (the Lua F.* functions and Column methods) or from the SQL
 * expression parser (sqlexpr.h).  Before evaluation a tree is *resolved*
 * against an input schema (sl_expr_resolve): names become column indexes,
 * function names become implementations, every node gets its result type,
 * and implicit casts are inserted (INT + DOUBLE -> DOUBLE, as Spark).
 * A resolved tree is evaluated a whole column batch at a time
 * (sl_expr_eval), never row by row through a generic interpreter; a
 * region of arithmetic, comparisons and casts over numbers is compiled to
 * a small register program and run in one pass over the rows, a chunk at
 * a time (expr_fuse.c).
 *
 * The node struct is transparent so the planner can walk trees (find
 * aggregates, generators, column references); only the expr module builds
 * nodes: expr.c (builders, names, SQL text), expr_resolve.c (the
 * resolver), expr_eval.c (the evaluator).
 *
 * Ownership: builders *take ownership* of the child expressions passed to
 * them (like lua_pushvalue semantics reversed: the caller's pointer is given
 * away, set it to NULL); pass sl_expr_ref(x) to keep your own.  On failure a
 * builder frees its children and returns NULL.
 */
#ifndef SL_EXPR_H
#define SL_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/batch.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/type.h"

typedef enum sl_expr_kind {
	SL_X_COL,   /* name: "a" or "window.start" (dots = struct fields) */
	SL_X_STAR,  /* * (name NULL) or s.* (name "s") */
	SL_X_LIT,   /* type + lit */
	SL_X_CALL,  /* name: lower-case function name; args */
	SL_X_BINOP, /* op: SL_OP_*; args[0], args[1] */
	SL_X_NOT,   /* NOT args[0] */
	SL_X_NEG,   /* - args[0] */
	SL_X_CAST,  /* args[0]; type = target */
	SL_X_ALIAS, /* args[0] AS name */
	SL_X_CASE, /* args: when0, then0, when1, then1, ..., [else] (nargs odd => else) */
	SL_X_ISNULL, /* args[0] IS NULL */
	SL_X_ISNOTNULL,
	SL_X_IN,    /* args[0] IN (args[1..]) */
	SL_X_FIELD, /* args[0].name (getField) */
	SL_X_SORT   /* args[0]; op: SL_SORT_* flags */
} sl_expr_kind;

enum {
	SL_OP_ADD = 1,
	SL_OP_SUB,
	SL_OP_MUL,
	SL_OP_DIV,
	SL_OP_MOD,
	SL_OP_EQ,
	SL_OP_NE,
	SL_OP_LT,
	SL_OP_LE,
	SL_OP_GT,
	SL_OP_GE,
	SL_OP_EQNS, /* <=> null-safe equality */
	SL_OP_AND,
	SL_OP_OR,
	SL_OP_CONCAT /* || */
};

enum { SL_SORT_DESC = 1, SL_SORT_NULLS_LAST = 2, SL_SORT_NULLS_FIRST = 4 };

typedef struct sl_value {
	bool null;
	int64_t i; /* BOOLEAN (0/1), INT, BIGINT, TIMESTAMP */
	double d;  /* DOUBLE */
	char *s;   /* STRING/BINARY bytes (owned, NUL-terminated) */
	size_t n;  /* length of s */
} sl_value;

typedef struct sl_func sl_func; /* function implementation (func.c) */

typedef struct sl_expr sl_expr;
struct sl_expr {
	sl_expr_kind kind;
	int refs;
	char *name;    /* see kinds above */
	int op;        /* BINOP operator, SORT flags */
	bool distinct; /* count(DISTINCT x) */
	int nargs;
	sl_expr **args;
	sl_type *type; /* LIT value type, CAST target type */
	sl_value lit;
	/* set by resolve: */
	sl_type *rtype; /* result type */
	bool nullable;
	int idx; /* COL: input column index; FIELD: field index */
	const sl_func *fn;
	int pos; /* column of this node in the SQL text, 0 if unknown */
};

/* ---- builders (return a new reference or NULL on out of memory) ---- */
sl_expr *sl_expr_col(const char *name);
sl_expr *sl_expr_star(const char *qualifier /* may be NULL */);
sl_expr *sl_expr_lit_null(void);
sl_expr *sl_expr_lit_bool(bool v);
sl_expr *sl_expr_lit_int(int32_t v);
sl_expr *sl_expr_lit_bigint(int64_t v);
sl_expr *sl_expr_lit_double(double v);
sl_expr *sl_expr_lit_string(const char *s, size_t n);
sl_expr *sl_expr_lit_timestamp(int64_t us);
sl_expr *sl_expr_lit_date(int32_t days); /* DATE, days since the epoch */
sl_expr *sl_expr_call(const char *fname, sl_expr **args, int nargs);
sl_expr *sl_expr_call_distinct(const char *fname, sl_expr **args, int nargs);
sl_expr *sl_expr_binop(int op, sl_expr *a, sl_expr *b);
sl_expr *sl_expr_unary(sl_expr_kind kind,
		       sl_expr *a); /* NOT, NEG, ISNULL, ISNOTNULL */
sl_expr *sl_expr_cast(sl_expr *a, sl_type *to); /* takes a reference of `to` */
sl_expr *sl_expr_alias(sl_expr *a, const char *name);
sl_expr *sl_expr_field(sl_expr *a, const char *name);
sl_expr *sl_expr_sort(sl_expr *a, int flags);
sl_expr *sl_expr_in(sl_expr *a, sl_expr **list, int n);
sl_expr *sl_expr_case(sl_expr **args, int nargs);
/* A node like e (unresolved: kind, name, operator, cast type) over the new
 * children args[0..e->nargs) (taken; freed when e's kind takes none).
 * Rewrites use it to copy a tree with some subtrees replaced.  NULL when
 * out of memory. */
sl_expr *sl_expr_rebuild(const sl_expr *e, sl_expr **args);
/* A copy of the *resolved* tree e in which each column reference to
 * column i (0 <= i < n) is replaced by by[i]: a resolved tree of the same
 * type, usually over another schema (borrowed, a reference taken).
 * Subtrees without column references are shared.  The planner uses it to
 * move a predicate across a projection or onto the other side of a join
 * (plan/plan_pushdown.c).  NULL when out of memory or when e references a
 * column with no replacement (by[i] NULL, or i out of range). */
sl_expr *sl_expr_subst_cols(const sl_expr *e, sl_expr *const *by, int n);

sl_expr *sl_expr_ref(sl_expr *e);
void sl_expr_free(sl_expr *e);

/* Spark's automatic column name for an expression: "a", "start" for
 * window.start, "(a + 1)", "count(1)" for count(*), "sum(amount)",
 * "CAST(x AS DOUBLE)", "upper(name)", the alias for ALIAS.  Appends. */
void sl_expr_name(const sl_expr *e, sl_buf *out);
/* SQL-ish text of the whole tree, for explain() and errors. */
void sl_expr_sql(const sl_expr *e, sl_buf *out);

/* True if the tree contains an aggregate function call. */
bool sl_expr_has_agg(const sl_expr *e);
/* True if name is an aggregate function (count, sum, avg, mean, min, max,
 * first, last, approx_count_distinct, count_distinct, collect_list). */
bool sl_func_is_agg(const char *fname);
/* True if name is a generator (explode, explode_outer, posexplode). */
bool sl_func_is_generator(const char *fname);

/* Resolve e against schema: returns a new resolved tree (e is borrowed).
 * Errors (SL_EANALYSIS), Spark-like, with the nearest name as hint:
 *   "cannot resolve 'prise' given input columns: [price, qty]"
 *   hint "did you mean 'price'?"
 *   "undefined function 'uper'" hint "did you mean 'upper'?"
 *   "cannot resolve '(a + b)' due to data type mismatch: ..." */
sl_expr *sl_expr_resolve(const sl_expr *e, const sl_type *schema, sl_err *err);

/* Evaluate a resolved scalar expression over all rows of b: a new column of
 * e->rtype with b->nrows rows.  Aggregates and generators are not scalar:
 * the operators evaluate their arguments with this and do the rest. */
sl_col *sl_expr_eval(const sl_expr *e, const sl_batch *b, sl_err *err);
/* sl_expr_eval with every node through its own column kernel: never the
 * fused path that sl_expr_eval takes for regions of arithmetic,
 * comparisons and casts over INT, BIGINT and DOUBLE values (expr_fuse.c,
 * one pass over the rows, no column per node).  The differential tests
 * (tests/unit/t103-fuse.c) compare the two. */
sl_col *sl_expr_eval_unfused(const sl_expr *e, const sl_batch *b,
			     sl_err *err);
/* True if sl_expr_eval takes the fused path at e's root. */
bool sl_expr_fused(const sl_expr *e);
/* sl_expr_eval of e[0..n) over b: a new array of n new columns (free it
 * with sl_cols_free), or NULL with err set (nothing left allocated). */
sl_col **sl_expr_eval_n(sl_expr *const *e, int n, const sl_batch *b,
			sl_err *err);

/* Constant-fold helper: evaluate a resolved expression that references no
 * columns into a value (owned by *out; release with sl_value_release). */
int sl_expr_eval_const(const sl_expr *e, sl_value *out, sl_err *err);
void sl_value_release(sl_value *v);

/* Cast a whole column to `to` with Spark's (non-ANSI) cast rules: bad
 * strings -> NULL, TIMESTAMP -> BIGINT seconds, BIGINT -> TIMESTAMP from
 * seconds, DOUBLE -> INT truncates, STRING -> TIMESTAMP parses. */
sl_col *sl_cast_col(const sl_col *c, sl_type *to, sl_err *err);

/* Nearest of names[0..n) to `name` by edit distance (case-insensitive), or
 * NULL when nothing is close.  For "did you mean" hints everywhere. */
const char *sl_nearest_name(const char *name, const char *const *names, int n);

/* The value current_timestamp() returns: the query driver sets the batch
 * timestamp (microseconds) before each micro-batch; 0 until set. */
void sl_func_set_now(int64_t us);

/* Parameters of a resolved window(timeCol, size[, slide[, start]]) call, in
 * microseconds, for the operator that expands sliding windows (a row falls
 * in size/slide windows).  Returns 0 or SL_EINVAL when e is not a resolved
 * window call. */
int sl_window_params(const sl_expr *resolved_window_call, int64_t *size,
		     int64_t *slide, int64_t *start, sl_err *err);
/* The gap of a resolved session_window(timeCol, gap) call, microseconds
 * (func.c; for op_session.c): 0, or 1 when the gap is an expression over
 * the row (SPARK-36465, *gap = 0: each row's session end is in the
 * evaluated session_window column, NULL for a gap that is NULL, not a
 * duration, or <= 0: Spark drops those rows), or 2 when the gap is such a
 * constant (*gap = 0: every row's session_window is NULL, no row has a
 * session, as Spark).  < 0: an analysis error (a gap not a string). */
int sl_session_gap(const sl_expr *resolved_session_call, int64_t *gap,
		   sl_err *err);

#endif
