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
#define SQL_MAX_SUBQ 64 /* IN / EXISTS subqueries in one statement */

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
	/* IN / EXISTS subqueries (sql_subq.c): their plans, by number */
	sl_plan *subq[SQL_MAX_SUBQ];
	int nsubq;
	bool in_where; /* parsing a WHERE condition: subqueries allowed */
	bool subq_err; /* a subquery failed: its error stands as it is */
} sql_tr;

/* A select item: its expression over the FROM scope (plan names, no
 * alias) and its output name; hidden items serve HAVING and ORDER BY. */
typedef struct sql_item {
	sl_expr *e;
	char *name;
	bool hidden;
	int key; /* the GROUP BY key it names, -1 */
} sql_item;

typedef struct sql_order {
	sl_expr *e; /* unresolved, as parsed */
	int flags;
} sql_order;

/* Everything a SELECT's clauses parsed, before planning. */
typedef struct sql_sel {
	bool distinct;
	int nraw;
	sl_expr **raw; /* select list as parsed */
	char **alias;
	int ngroup;
	sl_expr **group;
	sl_expr *where, *having;
	int norder;
	sql_order *order;
	int64_t limit; /* -1 none */
	/* planning */
	int nit, capit;
	sql_item *it;
	int nhidden;
} sql_sel;


/* ---- sql.c: tokens and the statement grammar ---- */
const sl_sqltok *sql_tk(const sql_tr *t, int ahead);
void sql_skip(sql_tr *t, int n);
bool sql_kw_at(const sql_tr *t, int ahead, const char *kw);
bool sql_is_kw(const sql_tr *t, const char *kw);
bool sql_accept_kw(sql_tr *t, const char *kw);
bool sql_is_op(const sql_tr *t, const char *op);
bool sql_accept_op(sql_tr *t, const char *op);
/* [PARSE_SYNTAX_ERROR] at the current token; returns SL_EPARSE. */
int sql_syntax(sql_tr *t);
bool sql_expect_kw(sql_tr *t, const char *kw);
bool sql_expect_op(sql_tr *t, const char *op);
/* A name token (an identifier that is no keyword, or `quoted`). */
bool sql_name_at(const sql_tr *t, int ahead);
/* [AS] alias: a copy, or NULL when there is none (*fail on error). */
char *sql_opt_alias(sql_tr *t, bool *fail);
/* One expression at the cursor (sqlexpr's grammar); its syntax errors
 * become [PARSE_SYNTAX_ERROR] where the grammar stopped. */
sl_expr *sql_expr(sql_tr *t);
/* NULL, with t->err set to out of memory unless already set. */
sl_plan *sql_fail_plan(sql_tr *t);
void sql_rel_release(sql_rel *r);
/* Replace *p by next (*p's reference dropped); -1 when next is NULL. */
int sql_step(sl_plan **p, sl_plan *next);
/* e (taken) named `name`: e itself when that is its automatic name. */
sl_expr *sql_named(sl_expr *e, const char *name);
void sql_free_exprs(sl_expr **e, int n);
/* A CTE or catalog view by name (off: its offset, for the error). */
sl_plan *sql_lookup_view(sql_tr *t, const char *name, int off);
int sql_query(sql_tr *t, sql_rel *out);
sl_plan *sql_statement(sql_tr *t);

/* ---- sql_select.c ---- */
void sql_sel_release(sql_sel *q);
int sql_parse_select_list(sql_tr *t, sql_sel *q);
int sql_parse_group(sql_tr *t, sql_sel *q);
int sql_parse_order(sql_tr *t, int *n, sql_order **keys);
int sql_parse_limit(sql_tr *t, int64_t *limit);
/* The parsed SELECT q over the FROM relation: its plan (new reference). */
sl_plan *sql_plan_select(sql_tr *t, sql_sel *q, sql_rel *from);
/* Sort *p by over[0..n) (taken) with ok's flags. */
int sql_plan_sort(sql_tr *t, sl_plan **p, sl_expr **over, int n,
		  const sql_order *ok);
/* ORDER BY k, a 1-based ordinal of out's first nvis columns: a reference
 * to that column; NULL when e is no ordinal (err unset) or out of range
 * (err set). */
sl_expr *sql_ordinal(sql_tr *t, const sl_expr *e, const sl_type *out,
		     int nvis);

/* ---- sql_subq.c: IN / EXISTS subqueries in WHERE ---- */
/* The cursor's subquery hook (sqlexpr.h), ctx the sql_tr. */
sl_expr *sql_subquery(void *ctx, int kind, sl_expr *l, int start);
/* Apply WHERE's subquery conditions to *p: *cond (taken; rewritten over
 * the FROM scope) loses its top-level AND terms that are subqueries, each
 * becoming a join of *p; *cond is NULL when nothing else is left.  -1
 * with t->err set (a subquery elsewhere than an AND term of WHERE). */
int sql_where_subqueries(sql_tr *t, sl_plan **p, sl_expr **cond);
void sql_subq_release(sql_tr *t);

/* ---- sql_cmd.c ---- */
sl_plan *sql_show_tables(sql_tr *t, bool views);
sl_plan *sql_describe(sql_tr *t);
sl_plan *sql_explain(sql_tr *t);
sl_plan *sql_create_view(sql_tr *t);
sl_plan *sql_drop_view(sql_tr *t);

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
