/*
 * sql_subq: uncorrelated IN / NOT IN / EXISTS / NOT EXISTS subqueries in
 * a WHERE condition (sql_int.h), planned as Spark's
 * RewritePredicateSubquery plans them:
 *
 *   x IN (SELECT s ...)         left semi join ON x = s
 *   x NOT IN (SELECT s ...)     left anti join ON x = s OR isnull(x = s)
 *                               (null-aware: a NULL in s, or a NULL x
 *                               against a non-empty s, is never true)
 *   EXISTS (SELECT ...)         left semi join ON true
 *   NOT EXISTS (SELECT ...)     left anti join ON true
 *
 * While a WHERE condition is parsed, the cursor's hook (sql_subquery)
 * parses each subquery as a query of its own, keeps its plan in
 * t->subq[k] and stands for it with the call __subquery(x, k) (IN) or
 * __subquery(k) (EXISTS).  After the condition is rewritten over the FROM
 * scope, sql_where_subqueries takes the top-level AND terms that are such
 * calls (or NOT of one) off the condition and joins.  A subquery anywhere
 * else (under OR, in the SELECT list, HAVING, ON) is refused with one
 * line: Spark plans those with an existence join, which streamlab does
 * not have.  Correlated subqueries (naming the outer query's columns)
 * fail as an unknown column: the subquery's names resolve in its own FROM.
 * Streaming: the join is the engine's (a streaming left side against a
 * static subquery is a stream-static join, as Spark allows).
 */
#include "sql/sql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBQ_FN "__subquery"

static bool is_subq(const sl_expr *e)
{
	return e->kind == SL_X_CALL && strcmp(e->name, SUBQ_FN) == 0;
}

static int subq_refuse(sql_tr *t, int off, const char *where)
{
	int line, pos;
	sql_linepos(t, off, &line, &pos);
	t->subq_err = true;
	return sl_err_set(t->err, SL_EANALYSIS,
			  "IN/EXISTS subquery %s is not supported in "
			  "streamlab: only as a condition of WHERE, joined "
			  "by AND; line %d pos %d",
			  where, line, pos);
}

sl_expr *sql_subquery(void *ctx, int kind, sl_expr *l, int start)
{
	sql_tr *t = ctx;
	sql_rel r;
	sl_expr *args[2], *e;
	int n = 0;
	if (!t->in_where) {
		sl_expr_free(l);
		subq_refuse(t, start, "outside WHERE");
		return NULL;
	}
	if (t->nsubq == SQL_MAX_SUBQ) {
		sl_expr_free(l);
		t->subq_err = true;
		sl_err_set(t->err, SL_EPARSE,
			   "sql: more than %d subqueries in a statement",
			   SQL_MAX_SUBQ);
		return NULL;
	}
	t->in_where = false; /* the subquery's own clauses decide */
	if (sql_query(t, &r) < 0) {
		t->in_where = true;
		t->subq_err = true;
		sl_expr_free(l);
		return NULL;
	}
	t->in_where = true;
	sql_scope_release(&r.s);
	if (kind == SL_SUBQ_IN)
		args[n++] = l;
	args[n++] = sl_expr_lit_int(t->nsubq);
	t->subq[t->nsubq++] = r.p;
	e = sl_expr_call(SUBQ_FN, args, n);
	if (e == NULL) {
		t->subq_err = true;
		sl_err_nomem(t->err);
		return NULL;
	}
	e->pos = start + 1;
	return e;
}

void sql_subq_release(sql_tr *t)
{
	while (t->nsubq > 0)
		sl_plan_free(t->subq[--t->nsubq]);
}

/* Is there a subquery call anywhere in e? */
static const sl_expr *find_subq(const sl_expr *e)
{
	const sl_expr *f;
	int i;
	if (is_subq(e))
		return e;
	for (i = 0; i < e->nargs; i++)
		if ((f = find_subq(e->args[i])) != NULL)
			return f;
	return NULL;
}

/* The join for one subquery term s (NOT s when neg): *p joined. */
static int subq_join(sql_tr *t, sl_plan **p, const sl_expr *s, bool neg)
{
	bool in = s->nargs == 2;
	sl_plan *q = t->subq[s->args[in ? 1 : 0]->lit.i];
	const sl_type *st = sl_plan_schema(q);
	sl_expr *on, *x;
	char name[32];
	int line, pos;
	if (!in) {
		on = sl_expr_lit_bool(true);
		return on ? sql_step(p, sl_plan_join(*p, q, on, NULL, 0,
						      neg ? "left_anti"
							  : "left_semi",
						      t->err))
			  : sl_err_nomem(t->err);
	}
	if (st->nfields != 1) {
		sql_linepos(t, s->pos > 0 ? s->pos - 1 : 0, &line, &pos);
		return sl_err_set(t->err, SL_EANALYSIS,
				  "[DATATYPE_MISMATCH.INVALID_IN_SUBQUERY_"
				  "NUMBER_OF_COLUMNS] The number of columns "
				  "in the left hand side of an IN subquery "
				  "does not match the number of columns in "
				  "the output of subquery. Left hand side "
				  "columns(length: 1), right hand side "
				  "columns(length: %d).; line %d pos %d",
				  st->nfields, line, pos);
	}
	/* the subquery's column under a name no FROM scope has */
	snprintf(name, sizeof name, "__subq%d", (int)s->args[1]->lit.i);
	x = sl_expr_alias(sl_expr_col(st->fields[0].name), name);
	if (x == NULL)
		return sl_err_nomem(t->err);
	q = sl_plan_project(q, &x, 1, t->err);
	if (q == NULL)
		return -1;
	on = sl_expr_binop(SL_OP_EQ, sl_expr_ref(s->args[0]),
			   sl_expr_col(name));
	if (neg && on != NULL) /* null-aware, as Spark's NOT IN */
		on = sl_expr_binop(SL_OP_OR, on,
				   sl_expr_unary(SL_X_ISNULL,
						 sl_expr_binop(SL_OP_EQ,
							       sl_expr_ref(s->args[0]),
							       sl_expr_col(name))));
	if (on == NULL) {
		sl_plan_free(q);
		return sl_err_nomem(t->err);
	}
	int rc = sql_step(p, sl_plan_join(*p, q, on, NULL, 0,
					  neg ? "left_anti" : "left_semi",
					  t->err));
	sl_plan_free(q);
	return rc;
}

/* Walk the AND terms of e (borrowed): subquery terms become joins of *p,
 * the others are ANDed into *rest (a new reference). */
static int split_terms(sql_tr *t, const sl_expr *e, sl_plan **p,
		       sl_expr **rest)
{
	const sl_expr *f;
	if (e->kind == SL_X_BINOP && e->op == SL_OP_AND)
		return split_terms(t, e->args[0], p, rest) < 0 ? -1
			: split_terms(t, e->args[1], p, rest);
	if (is_subq(e) && (e->nargs == 1 || find_subq(e->args[0]) == NULL))
		return subq_join(t, p, e, false) < 0 ? -1 : 0;
	if (e->kind == SL_X_NOT && is_subq(e->args[0]) &&
	    (e->args[0]->nargs == 1 || find_subq(e->args[0]->args[0]) == NULL))
		return subq_join(t, p, e->args[0], true) < 0 ? -1 : 0;
	if ((f = find_subq(e)) != NULL) {
		subq_refuse(t, f->pos > 0 ? f->pos - 1 : 0,
			    "inside an expression or under OR");
		return -1;
	}
	*rest = *rest ? sl_expr_binop(SL_OP_AND, *rest, sl_expr_ref((sl_expr *)e))
		      : sl_expr_ref((sl_expr *)e);
	return *rest ? 0 : sl_err_nomem(t->err);
}

int sql_where_subqueries(sql_tr *t, sl_plan **p, sl_expr **cond)
{
	sl_expr *rest = NULL;
	int rc;
	if (find_subq(*cond) == NULL)
		return 0;
	rc = split_terms(t, *cond, p, &rest);
	sl_expr_free(*cond);
	*cond = rest;
	if (rc < 0) {
		sl_expr_free(rest);
		*cond = NULL;
	}
	return rc < 0 ? -1 : 0;
}
