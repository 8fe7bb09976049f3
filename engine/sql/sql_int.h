/*
 * sql_int: what sql.c (the statement grammar and the query's plan) and
 * sql_scope.c (names: the FROM clause's scope, column references, Spark's
 * errors) share.  Never include from outside engine/sql/.
 *
 * The translator parses and plans in one pass: each clause is parsed into
 * unresolved expressions (sqlexpr), which are rewritten over the scope
 * (qualified and plain names become the plan's own column names) and
 * handed to the plan constructors, which resolve and type them.
 */
#ifndef SL_SQL_INT_H
#define SL_SQL_INT_H

#include <stdbool.h>

#include "expr/sqlexpr.h"
#include "plan/plan_int.h"
#include "sql/sql.h"

/* One column of a scope: its qualifier (the view name or alias, NULL for
 * none), its name as the user writes it, and its name in the plan `in`
 * (different when a join renamed it).  `hidden`: not part of * (the right
 * side's copy of a USING column). */
typedef struct sql_col {
	char *qual, *name, *in;
	bool hidden;
} sql_col;

typedef struct sql_scope {
	int n, cap;
	sql_col *c;
} sql_scope;

/* A relation of the FROM clause: its plan (a reference) and scope. */
typedef struct sql_rel {
	sl_plan *p;
	sql_scope s;
} sql_rel;

typedef struct sql_cte {
	char *name;
	sl_plan *p;
} sql_cte;

#define SQL_MAX_CTE 32

typedef struct sql_tr {
	sl_sqlexpr *x;
	const char *src;
	sl_catalog *cat;
	sl_err *err; /* never NULL */
	sql_cte cte[SQL_MAX_CTE];
	int ncte;
	int depth;
	int uniq; /* the N of the next name#N */
	sl_plan_sql *origin; /* the text and the views read (plan_int.h) */
} sql_tr;

/* ---- sql_scope.c ---- */
void sql_scope_release(sql_scope *s);
/* Append a column (strings copied).  0 or SL_ENOMEM. */
int sql_scope_add(sql_scope *s, const char *qual, const char *name,
		  const char *in, bool hidden);
/* The scope of plan p's output under qualifier qual (may be NULL). */
int sql_scope_of(sql_scope *s, const sl_plan *p, const char *qual);
/* e (borrowed) rewritten over the scope: each column reference becomes
 * the plan's name (display: the user's column name without qualifier,
 * for Spark's automatic names).  NULL with t->err set. */
sl_expr *sql_rewrite(sql_tr *t, const sql_scope *s, const sl_expr *e,
		     bool display);
/* True when every column e reads is one of names[0..n) (unqualified)
 * and e holds no aggregate: e can be evaluated over a query's output. */
bool sql_over_names(const sl_expr *e, char *const *names, int n);
/* Line (1-based) and pos (0-based) of byte offset off in t->src. */
void sql_linepos(const sql_tr *t, int off, int *line, int *pos);
/* Spark's automatic name of e (malloc'd; NULL when out of memory). */
char *sql_name_of(const sl_expr *e);

#endif
