/*
 * sql: the statement grammar and a query's plan (sql.h).
 *
 * One pass, recursive descent, one function per clause.  A SELECT is
 * planned in Spark's order: FROM (views, subqueries, joins) -> WHERE
 * (filter) -> GROUP BY/aggregates (aggregate) or the select list
 * (project) -> HAVING (filter) -> DISTINCT (dedup) -> ORDER BY (sort) ->
 * LIMIT.  HAVING and ORDER BY see the select list's names; an expression
 * over anything else (an input column, an aggregate not selected) becomes
 * a hidden column (__h0, __o1, ...) of the projection or aggregate,
 * dropped after use, as Spark's analyzer adds missing attributes.
 *
 * GROUP BY keys are expressions, 1-based ordinals of the select list, or
 * its aliases; a select item equal to a key names the key, so
 * `SELECT window(ts, '5 minutes'), k, count(*) FROM v GROUP BY 1, 2` is
 * the AGGREGATE node groupBy(window(...), "k"):agg(count("*")) builds, and
 * streams the same (plan_agg.c finds its event time through the window
 * key).  Everything else about aggregates (keys inside expressions,
 * "neither present in the group by") is plan_agg.c's.
 *
 * The translator owns what it builds until it returns a plan; every
 * error path frees it.  Errors go to t->err (always set, see sql_plan).
 */
#include "sql/sql_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/col.h"

/* ------------------------------------------------------------- tokens */

static const sl_sqltok *tk(const sql_tr *t, int ahead)
{
	return sl_sqlexpr_tok(t->x, ahead);
}

static void skip(sql_tr *t, int n)
{
	sl_sqlexpr_seek(t->x, sl_sqlexpr_at(t->x) + n);
}

static bool kw_at(const sql_tr *t, int ahead, const char *kw)
{
	const sl_sqltok *k = tk(t, ahead);
	return k->kind == SL_TOK_IDENT && strcasecmp(k->text, kw) == 0;
}

static bool is_kw(const sql_tr *t, const char *kw)
{
	return kw_at(t, 0, kw);
}

static bool accept_kw(sql_tr *t, const char *kw)
{
	if (!is_kw(t, kw))
		return false;
	skip(t, 1);
	return true;
}

static bool is_op(const sql_tr *t, const char *op)
{
	const sl_sqltok *k = tk(t, 0);
	return k->kind == SL_TOK_OP && strcmp(k->text, op) == 0;
}

static bool accept_op(sql_tr *t, const char *op)
{
	if (!is_op(t, op))
		return false;
	skip(t, 1);
	return true;
}

/* [PARSE_SYNTAX_ERROR] at the current token; returns SL_EPARSE. */
static int syntax(sql_tr *t)
{
	const sl_sqltok *k = tk(t, 0);
	int line, pos;
	sql_linepos(t, k->start, &line, &pos);
	if (k->kind == SL_TOK_EOF)
		return sl_err_set(t->err, SL_EPARSE,
				  "[PARSE_SYNTAX_ERROR] Syntax error at or "
				  "near end of input.(line %d, pos %d)",
				  line, pos);
	return sl_err_set(t->err, SL_EPARSE,
			  "[PARSE_SYNTAX_ERROR] Syntax error at or near "
			  "'%.*s'.(line %d, pos %d)",
			  k->end - k->start, t->src + k->start, line, pos);
}

static bool expect_kw(sql_tr *t, const char *kw)
{
	if (accept_kw(t, kw))
		return true;
	syntax(t);
	return false;
}

static bool expect_op(sql_tr *t, const char *op)
{
	if (accept_op(t, op))
		return true;
	syntax(t);
	return false;
}

/* Words that end an expression or a clause: never an alias. */
static const char *const reserved[] = {
	"select", "from",   "where", "group",     "by",	     "having",
	"order",  "limit",  "union", "all",	      "join",    "inner",
	"left",   "right",  "full",  "outer",     "cross",   "semi",
	"anti",   "on",	    "using", "as",	      "with",    "and",
	"or",	  "not",    "distinct", "case",   "when",    "then",
	"else",	  "end",    "is",    "in",	      "like",    "between",
	"null",	  "true",   "false", "except",    "intersect", "asc",
	"desc",	  "nulls",  "natural", "lateral", NULL
};

static bool reserved_at(const sql_tr *t, int ahead)
{
	const sl_sqltok *k = tk(t, ahead);
	int i;
	if (k->kind != SL_TOK_IDENT)
		return false;
	for (i = 0; reserved[i] != NULL; i++)
		if (strcasecmp(k->text, reserved[i]) == 0)
			return true;
	return false;
}

/* A name token (an identifier that is no keyword, or `quoted`). */
static bool name_at(const sql_tr *t, int ahead)
{
	const sl_sqltok *k = tk(t, ahead);
	return k->kind == SL_TOK_QIDENT ||
	       (k->kind == SL_TOK_IDENT && !reserved_at(t, ahead));
}

/* [AS] alias: a copy, or NULL when there is none (*fail on error). */
static char *opt_alias(sql_tr *t, bool *fail)
{
	char *a;
	bool as = accept_kw(t, "as");
	if (!name_at(t, 0)) {
		if (as) {
			syntax(t);
			*fail = true;
		}
		return NULL;
	}
	a = strdup(tk(t, 0)->text);
	if (a == NULL) {
		sl_err_nomem(t->err);
		*fail = true;
	}
	skip(t, 1);
	return a;
}

/* One expression at the cursor; a syntax error inside it becomes
 * [PARSE_SYNTAX_ERROR] at the token where the grammar stopped. */
static sl_expr *expr(sql_tr *t)
{
	sl_expr *e = sl_sqlexpr_next(t->x, t->err);
	if (e == NULL && t->err->code == SL_EPARSE) {
		char why[SL_ERR_MSG];
		snprintf(why, sizeof why, "%s", t->err->msg);
		syntax(t);
		sl_err_hint(t->err, "%s", why);
	}
	return e;
}

/* ------------------------------------------------------------- helpers */

static sl_plan *fail_plan(sql_tr *t)
{
	if (t->err->code == 0)
		sl_err_nomem(t->err);
	return NULL;
}

static void rel_release(sql_rel *r)
{
	sl_plan_free(r->p);
	r->p = NULL;
	sql_scope_release(&r->s);
}

/* Replace *p by f(*p) (NULL: *p freed, failure). */
static int step(sl_plan **p, sl_plan *next)
{
	sl_plan_free(*p);
	*p = next;
	return next ? 0 : -1;
}

/* e named `name`: e itself when that is its automatic name. */
static sl_expr *named(sl_expr *e, const char *name)
{
	char *n = sql_name_of(e);
	bool same = n != NULL && strcmp(n, name) == 0;
	free(n);
	return same ? e : sl_expr_alias(e, name);
}

static void free_exprs(sl_expr **e, int n)
{
	while (n > 0)
		sl_expr_free(e[--n]);
}

/* A local relation with string columns names[0..ncols) and rows cells
 * (row-major, NULL cells are NULL); bool_col >= 0 is a BOOLEAN column
 * ("true"/"false" cells). */
static sl_plan *local_rows(sql_tr *t, const char *const *names, int ncols,
			   int bool_col, char *const *cells, int nrows)
{
	sl_type *st = sl_type_struct_new(ncols);
	sl_col *cols[8] = { 0 };
	sl_batch *b;
	sl_plan *p = NULL;
	int c, r;
	if (st == NULL || ncols > 8)
		goto out;
	for (c = 0; c < ncols; c++) {
		sl_type *ty = sl_type_prim(c == bool_col ? SL_BOOLEAN : SL_STRING);
		if (ty == NULL || sl_type_set_field(st, c, names[c], ty, true) < 0)
			goto out;
		cols[c] = sl_col_new(st->fields[c].type, nrows);
		if (cols[c] == NULL)
			goto out;
		for (r = 0; r < nrows; r++) {
			const char *v = cells[r * ncols + c];
			if (v == NULL)
				sl_col_set_null(cols[c], r);
			else if (c == bool_col)
				sl_col_u8(cols[c])[r] = strcmp(v, "true") == 0;
			else if (sl_col_set_str(cols[c], r, v, strlen(v)) < 0)
				goto out;
		}
	}
	b = sl_batch_new(st, nrows, cols);
	memset(cols, 0, sizeof cols); /* taken, also on failure */
	if (b != NULL) {
		p = sl_plan_local(b, t->err);
		sl_batch_free(b);
	}
out:
	for (c = 0; c < 8; c++)
		sl_col_free(cols[c]);
	sl_type_free(st);
	return p ? p : fail_plan(t);
}

/* ----------------------------------------------------------- FROM */

static int query(sql_tr *t, sql_rel *out);

/* Note a catalog view the statement reads (once), for toPySpark. */
static int remember_view(sql_tr *t, const char *name, sl_plan *p)
{
	sl_plan_sql *o = t->origin;
	char **nn;
	sl_plan **np;
	int i;
	for (i = 0; i < o->nviews; i++)
		if (strcasecmp(o->names[i], name) == 0)
			return 0;
	nn = realloc(o->names, (size_t)(o->nviews + 1) * sizeof *nn);
	if (nn == NULL)
		return sl_err_nomem(t->err);
	o->names = nn;
	np = realloc(o->plans, (size_t)(o->nviews + 1) * sizeof *np);
	if (np == NULL)
		return sl_err_nomem(t->err);
	o->plans = np;
	if ((nn[o->nviews] = strdup(name)) == NULL)
		return sl_err_nomem(t->err);
	np[o->nviews++] = sl_plan_ref(p);
	return 0;
}

static sl_plan *lookup_view(sql_tr *t, const char *name, int off)
{
	sl_plan *p;
	int i, line, pos;
	if (strchr(name, '.') == NULL)
		for (i = t->ncte - 1; i >= 0; i--)
			if (strcasecmp(t->cte[i].name, name) == 0)
				return sl_plan_ref(t->cte[i].p);
	p = sl_catalog_plan(t->cat, name, t->err);
	if (p == NULL) {
		sql_linepos(t, off, &line, &pos);
		if (t->err->code == SL_EANALYSIS &&
		    strncmp(t->err->msg, "[TABLE_OR_VIEW", 14) == 0) {
			char hint[SL_ERR_HINT];
			snprintf(hint, sizeof hint, "%s", t->err->hint);
			sl_err_set(t->err, SL_EANALYSIS,
				   "[TABLE_OR_VIEW_NOT_FOUND] The table or "
				   "view `%s` cannot be found. Verify the "
				   "spelling and correctness of the schema and "
				   "catalog.; line %d pos %d",
				   name, line, pos);
			if (hint[0])
				sl_err_hint(t->err, "%s", hint);
		}
		return NULL;
	}
	if (remember_view(t, name, p) < 0) {
		sl_plan_free(p);
		return NULL;
	}
	return p;
}

/* view [[AS] alias] | (query) [[AS] alias] */
static int from_item(sql_tr *t, sql_rel *r)
{
	bool fail = false;
	char *alias, name[512];
	const char *qual;
	int off = tk(t, 0)->start;
	memset(r, 0, sizeof *r);
	if (accept_op(t, "(")) {
		if (query(t, r) < 0)
			return -1;
		if (!expect_op(t, ")"))
			goto fail;
		alias = opt_alias(t, &fail);
		if (fail)
			goto fail;
		if (alias != NULL) {
			int i;
			for (i = 0; i < r->s.n; i++) {
				free(r->s.c[i].qual);
				r->s.c[i].qual = strdup(alias);
			}
			free(alias);
		}
		return 0;
	}
	if (!name_at(t, 0))
		return syntax(t);
	snprintf(name, sizeof name, "%s", tk(t, 0)->text);
	skip(t, 1);
	qual = name;
	if (is_op(t, ".") && name_at(t, 1)) { /* global_temp.v */
		size_t n = strlen(name);
		snprintf(name + n, sizeof name - n, ".%s", tk(t, 1)->text);
		qual = name + n + 1;
		skip(t, 2);
	}
	if ((r->p = lookup_view(t, name, off)) == NULL)
		return -1;
	alias = opt_alias(t, &fail);
	if (fail)
		goto fail;
	if (sql_scope_of(&r->s, r->p, alias ? alias : qual) < 0) {
		free(alias);
		sl_err_nomem(t->err);
		goto fail;
	}
	free(alias);
	return 0;
fail:
	rel_release(r);
	return -1;
}

/* Rename the right side's columns whose plan names the left uses (but
 * for the USING columns): name#N, in one projection, so the join's
 * output names are unique and each side's references stay exact.  A
 * FROM item's scope is its schema, column for column. */
static int rename_clashes(sql_tr *t, const sql_rel *l, sql_rel *r,
			  char *const *using_cols, int nusing)
{
	const sl_type *st = sl_plan_schema(r->p);
	sl_expr **ex;
	sl_plan *np;
	int i, j, k, renamed = 0;
	assert(r->s.n == st->nfields);
	if ((ex = calloc((size_t)r->s.n + 1, sizeof *ex)) == NULL)
		return sl_err_nomem(t->err);
	for (i = 0; i < r->s.n; i++) {
		sql_col *c = &r->s.c[i];
		bool clash = false;
		char fresh[300];
		for (k = 0; k < nusing; k++)
			if (strcasecmp(c->in, using_cols[k]) == 0)
				break;
		for (j = 0; j < l->s.n && !clash && k == nusing; j++)
			clash = strcasecmp(l->s.c[j].in, c->in) == 0;
		ex[i] = sl_expr_col(c->in);
		if (ex[i] != NULL && clash) {
			snprintf(fresh, sizeof fresh, "%s#%d", c->name,
				 ++t->uniq);
			ex[i] = sl_expr_alias(ex[i], fresh);
			free(c->in);
			c->in = strdup(fresh);
			renamed++;
			if (c->in == NULL)
				ex[i] = (sl_expr_free(ex[i]), NULL);
		}
		if (ex[i] == NULL) {
			free_exprs(ex, i);
			free(ex);
			return sl_err_nomem(t->err);
		}
	}
	if (renamed == 0) {
		free_exprs(ex, r->s.n);
		free(ex);
		return 0;
	}
	np = sl_plan_project(r->p, ex, r->s.n, t->err);
	free(ex);
	return step(&r->p, np);
}

/* The scope after a join: ON: left ++ right (left only for semi/anti);
 * USING: the using columns, the left's others, the right's others, as
 * the JOIN node's output (plan_join.c). */
static int join_scope(sql_scope *s, const sql_rel *l, const sql_rel *r,
		      char *const *u, int nu, bool left_only)
{
	int i, k, pass;
	for (k = 0; k < nu; k++)
		for (i = 0; i < l->s.n; i++)
			if (strcasecmp(l->s.c[i].in, u[k]) == 0 &&
			    sql_scope_add(s, l->s.c[i].qual, l->s.c[i].name,
					  l->s.c[i].in, l->s.c[i].hidden) < 0)
				return SL_ENOMEM;
	for (pass = 0; pass < 2; pass++) {
		const sql_rel *x = pass ? r : l;
		if (pass && left_only)
			break;
		for (i = 0; i < x->s.n; i++) {
			const sql_col *c = &x->s.c[i];
			bool is_u = false;
			const char *in = c->in;
			for (k = 0; k < nu && !is_u; k++)
				if (strcasecmp(c->in, u[k]) == 0) {
					is_u = true;
					in = u[k];
				}
			if (is_u && !pass)
				continue;
			if (sql_scope_add(s, c->qual, c->name, in,
					  c->hidden || is_u) < 0)
				return SL_ENOMEM;
		}
	}
	return 0;
}

/* USING (a, b): the names, malloc'd. */
static int using_list(sql_tr *t, char ***cols, int *n)
{
	if (!expect_op(t, "("))
		return -1;
	do {
		char **m;
		if (!name_at(t, 0))
			return syntax(t);
		m = realloc(*cols, (size_t)(*n + 1) * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(t->err);
		*cols = m;
		if (((*cols)[*n] = strdup(tk(t, 0)->text)) == NULL)
			return sl_err_nomem(t->err);
		(*n)++;
		skip(t, 1);
	} while (accept_op(t, ","));
	return expect_op(t, ")") ? 0 : -1;
}

/* The join keyword at the cursor: how (plan.h's names), or NULL. */
static const char *join_kind(sql_tr *t, bool *comma)
{
	static const struct {
		const char *w1, *w2, *w3, *how;
	} forms[] = {
		{ "join", NULL, NULL, "inner" },
		{ "inner", "join", NULL, "inner" },
		{ "cross", "join", NULL, "cross" },
		{ "left", "semi", "join", "left_semi" },
		{ "left", "anti", "join", "left_anti" },
		{ "left", "outer", "join", "left" },
		{ "left", "join", NULL, "left" },
		{ "right", "outer", "join", "right" },
		{ "right", "join", NULL, "right" },
		{ "full", "outer", "join", "full" },
		{ "full", "join", NULL, "full" },
	};
	size_t k;
	*comma = false;
	if (accept_op(t, ",")) {
		*comma = true;
		return "cross";
	}
	for (k = 0; k < sizeof forms / sizeof *forms; k++) {
		int w = forms[k].w3 ? 3 : forms[k].w2 ? 2 : 1;
		if (kw_at(t, 0, forms[k].w1) &&
		    (w < 2 || kw_at(t, 1, forms[k].w2)) &&
		    (w < 3 || kw_at(t, 2, forms[k].w3))) {
			skip(t, w);
			return forms[k].how;
		}
	}
	return NULL;
}

static int join_one(sql_tr *t, sql_rel *l, const char *how, bool comma)
{
	sql_rel r;
	sql_scope s = { 0 };
	char **u = NULL;
	int nu = 0, rc = -1, i;
	sl_expr *cond = NULL, *on = NULL;
	sl_plan *j = NULL;
	bool semi = strcmp(how, "left_semi") == 0 ||
		    strcmp(how, "left_anti") == 0;
	if (from_item(t, &r) < 0)
		return -1;
	if (!comma && accept_kw(t, "on")) {
		if ((cond = expr(t)) == NULL)
			goto out;
	} else if (!comma && accept_kw(t, "using")) {
		if (using_list(t, &u, &nu) < 0)
			goto out;
	}
	if (rename_clashes(t, l, &r, u, nu) < 0 ||
	    join_scope(&s, l, &r, u, nu, false) < 0)
		goto out;
	if (cond != NULL && (on = sql_rewrite(t, &s, cond, false)) == NULL)
		goto out;
	if (cond == NULL && nu == 0 && strcmp(how, "inner") == 0)
		how = "cross";
	j = sl_plan_join(l->p, r.p, on, (const char *const *)u, nu, how,
			 t->err);
	on = NULL;
	if (j == NULL)
		goto out;
	sql_scope_release(&s);
	if (join_scope(&s, l, &r, u, nu, semi) < 0) {
		sl_plan_free(j);
		goto out;
	}
	rel_release(l);
	l->p = j;
	l->s = s;
	memset(&s, 0, sizeof s);
	rc = 0;
out:
	if (rc < 0 && t->err->code == 0)
		sl_err_nomem(t->err);
	sl_expr_free(cond);
	sl_expr_free(on);
	sql_scope_release(&s);
	rel_release(&r);
	for (i = 0; i < nu; i++)
		free(u[i]);
	free(u);
	return rc;
}

static int from_clause(sql_tr *t, sql_rel *out)
{
	const char *how;
	bool comma;
	if (from_item(t, out) < 0)
		return -1;
	while ((how = join_kind(t, &comma)) != NULL)
		if (join_one(t, out, how, comma) < 0) {
			rel_release(out);
			return -1;
		}
	return 0;
}

/* SELECT without FROM reads one row of no columns (OneRowRelation). */
static int one_row(sql_tr *t, sql_rel *out)
{
	sl_type *st = sl_type_struct_new(0);
	sl_batch *b = st ? sl_batch_new(st, 1, NULL) : NULL;
	memset(out, 0, sizeof *out);
	if (b != NULL)
		out->p = sl_plan_local(b, t->err);
	sl_batch_free(b);
	sl_type_free(st);
	return out->p ? 0 : (fail_plan(t), -1);
}

/* --------------------------------------------------------- SELECT */

/* A select item: its expression over the FROM scope (plan names, no
 * alias) and its output name; hidden items serve HAVING and ORDER BY. */
typedef struct item {
	sl_expr *e;
	char *name;
	bool hidden;
	int key; /* the GROUP BY key it names, -1 */
} item;

typedef struct order_key {
	sl_expr *e; /* unresolved, as parsed */
	int flags;
} order_key;

/* Everything a SELECT's clauses parsed, before planning. */
typedef struct sel {
	bool distinct;
	int nraw;
	sl_expr **raw; /* select list as parsed */
	char **alias;
	int ngroup;
	sl_expr **group;
	sl_expr *where, *having;
	int norder;
	order_key *order;
	int64_t limit; /* -1 none */
	/* planning */
	int nit, capit;
	item *it;
	int nhidden;
} sel;

static void sel_release(sel *q)
{
	int i;
	free_exprs(q->raw, q->nraw);
	for (i = 0; i < q->nraw; i++)
		free(q->alias[i]);
	free(q->raw);
	free(q->alias);
	free_exprs(q->group, q->ngroup);
	free(q->group);
	sl_expr_free(q->where);
	sl_expr_free(q->having);
	for (i = 0; i < q->norder; i++)
		sl_expr_free(q->order[i].e);
	free(q->order);
	for (i = 0; i < q->nit; i++) {
		sl_expr_free(q->it[i].e);
		free(q->it[i].name);
	}
	free(q->it);
}

static int push_expr(sl_expr ***a, int *n, sl_expr *e)
{
	sl_expr **m = realloc(*a, (size_t)(*n + 1) * sizeof *m);
	if (m == NULL) {
		sl_expr_free(e);
		return SL_ENOMEM;
	}
	*a = m;
	m[(*n)++] = e;
	return 0;
}

/* Take e (owned) and name (copied) as the next item. */
static int add_item(sql_tr *t, sel *q, sl_expr *e, const char *name,
		    bool hidden)
{
	item *m;
	if (q->nit == q->capit) {
		int cap = q->capit ? 2 * q->capit : 8;
		m = realloc(q->it, (size_t)cap * sizeof *m);
		if (m == NULL) {
			sl_expr_free(e);
			return sl_err_nomem(t->err);
		}
		q->it = m;
		q->capit = cap;
	}
	m = &q->it[q->nit];
	m->e = e;
	m->name = strdup(name);
	m->hidden = hidden;
	m->key = -1;
	q->nit++;
	return m->name ? 0 : sl_err_nomem(t->err);
}

static int parse_select_list(sql_tr *t, sel *q)
{
	do {
		sl_expr *e = expr(t);
		char *a;
		char **m;
		bool fail = false;
		if (e == NULL)
			return -1;
		a = opt_alias(t, &fail);
		if (fail) {
			sl_expr_free(e);
			return -1;
		}
		if (push_expr(&q->raw, &q->nraw, e) < 0) { /* e freed */
			free(a);
			return sl_err_nomem(t->err);
		}
		m = realloc(q->alias, (size_t)q->nraw * sizeof *m);
		if (m == NULL) {
			free(a);
			q->nraw--;
			sl_expr_free(e);
			return sl_err_nomem(t->err);
		}
		q->alias = m;
		m[q->nraw - 1] = a;
	} while (accept_op(t, ","));
	return 0;
}

static int parse_order(sql_tr *t, int *n, order_key **keys)
{
	do {
		order_key *m;
		sl_expr *e = expr(t);
		int flags = 0;
		if (e == NULL)
			return -1;
		if (accept_kw(t, "desc"))
			flags |= SL_SORT_DESC;
		else
			accept_kw(t, "asc");
		if (accept_kw(t, "nulls")) {
			if (accept_kw(t, "first"))
				flags |= SL_SORT_NULLS_FIRST;
			else if (accept_kw(t, "last"))
				flags |= SL_SORT_NULLS_LAST;
			else {
				sl_expr_free(e);
				return syntax(t);
			}
		}
		m = realloc(*keys, (size_t)(*n + 1) * sizeof *m);
		if (m == NULL) {
			sl_expr_free(e);
			return sl_err_nomem(t->err);
		}
		*keys = m;
		m[*n].e = e;
		m[*n].flags = flags;
		(*n)++;
	} while (accept_op(t, ","));
	return 0;
}

static int parse_limit(sql_tr *t, int64_t *limit)
{
	const sl_sqltok *k = tk(t, 0);
	char *end;
	long long v;
	if (k->kind != SL_TOK_INT)
		return syntax(t);
	v = strtoll(k->text, &end, 10);
	if (*end != '\0' || v < 0)
		return syntax(t);
	*limit = v;
	skip(t, 1);
	return 0;
}

/* The select list over the scope: stars expanded, names given. */
static int expand_items(sql_tr *t, sel *q, const sql_scope *s)
{
	int i, j;
	for (i = 0; i < q->nraw; i++) {
		const sl_expr *r = q->raw[i];
		if (r->kind == SL_X_STAR) {
			int hits = 0;
			for (j = 0; j < s->n; j++) {
				const sql_col *c = &s->c[j];
				sl_expr *e;
				if (c->hidden ||
				    (r->name != NULL &&
				     (c->qual == NULL ||
				      strcasecmp(c->qual, r->name) != 0)))
					continue;
				if ((e = sl_expr_col(c->in)) == NULL ||
				    add_item(t, q, e, c->name, false) < 0)
					return fail_plan(t), -1;
				hits++;
			}
			if (hits == 0 && r->name != NULL) {
				int line, pos;
				sql_linepos(t, r->pos > 0 ? r->pos - 1 : 0,
					    &line, &pos);
				return sl_err_set(
				    t->err, SL_EANALYSIS,
				    "[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve "
				    "`%s`.* given input columns ; line %d pos %d",
				    r->name, line, pos);
			}
			continue;
		}
		{
			sl_expr *e = sql_rewrite(t, s, r, false), *d;
			char *name;
			if (e == NULL)
				return -1;
			if (q->alias[i] != NULL) {
				if (add_item(t, q, e, q->alias[i], false) < 0)
					return -1;
				continue;
			}
			d = sql_rewrite(t, s, r, true);
			name = d ? sql_name_of(d) : NULL;
			sl_expr_free(d);
			if (name == NULL) {
				sl_expr_free(e);
				return fail_plan(t), -1;
			}
			j = add_item(t, q, e, name, false);
			free(name);
			if (j < 0)
				return -1;
		}
	}
	return 0;
}

/* An expression of HAVING / ORDER BY: over the output names when it
 * reads only those, else a new hidden item; a new expression over the
 * output (the hidden item by name). */
static sl_expr *over_output(sql_tr *t, sel *q, const sql_scope *s,
			    const sl_expr *e, char tag)
{
	char *names[256], h[32];
	int i, n = 0;
	sl_expr *x;
	for (i = 0; i < q->nit && n < 256; i++)
		if (!q->it[i].hidden)
			names[n++] = q->it[i].name;
	if (sql_over_names(e, names, n))
		return sl_expr_ref((sl_expr *)e);
	if ((x = sql_rewrite(t, s, e, false)) == NULL)
		return NULL;
	snprintf(h, sizeof h, "__%c%d", tag, q->nhidden++);
	if (add_item(t, q, x, h, true) < 0)
		return NULL;
	x = sl_expr_col(h);
	if (x == NULL)
		sl_err_nomem(t->err);
	return x;
}

static bool has_agg_items(const sel *q)
{
	int i;
	for (i = 0; i < q->nit; i++)
		if (sl_expr_has_agg(q->it[i].e))
			return true;
	return false;
}

static char *sql_text(const sl_expr *e)
{
	sl_buf b;
	char *s;
	sl_buf_init(&b);
	sl_expr_sql(e, &b);
	s = sl_buf_failed(&b) ? NULL : strdup(sl_buf_cstr(&b));
	sl_buf_release(&b);
	return s;
}

/* GROUP BY item g: an ordinal or an alias of the select list, or an
 * expression over the scope. */
static sl_expr *group_key(sql_tr *t, sel *q, const sql_scope *s,
			  const sl_expr *g, int nvis)
{
	int i;
	if (g->kind == SL_X_LIT && g->type != NULL &&
	    (g->type->kind == SL_INT || g->type->kind == SL_BIGINT)) {
		int64_t k = g->lit.i;
		if (k < 1 || k > nvis) {
			sl_err_set(t->err, SL_EANALYSIS,
				   "[GROUP_BY_POS_OUT_OF_RANGE] GROUP BY "
				   "position %lld is not in select list (valid "
				   "range is [1, %d]).",
				   (long long)k, nvis);
			return NULL;
		}
		if (sl_expr_has_agg(q->it[k - 1].e)) {
			sl_err_set(t->err, SL_EANALYSIS,
				   "[GROUP_BY_POS_AGGREGATE] GROUP BY %lld "
				   "refers to an expression that contains an "
				   "aggregate function.",
				   (long long)k);
			return NULL;
		}
		return sl_expr_ref(q->it[k - 1].e);
	}
	if (g->kind == SL_X_COL && strchr(g->name, '.') == NULL) {
		bool in_scope = false;
		for (i = 0; i < s->n && !in_scope; i++)
			in_scope = strcasecmp(s->c[i].name, g->name) == 0;
		for (i = 0; i < nvis && !in_scope; i++)
			if (strcasecmp(q->it[i].name, g->name) == 0)
				return sl_expr_ref(q->it[i].e);
	}
	return sql_rewrite(t, s, g, false);
}

/* GROUP BY / aggregates: the AGGREGATE node, then a projection when the
 * select list is not its keys-then-aggregates. */
static sl_plan *plan_aggregate(sql_tr *t, sel *q, const sql_scope *s,
			       sl_plan *in, int nvis)
{
	int nk = q->ngroup, i, k, na = 0, *order = NULL;
	sl_expr **keys = calloc((size_t)nk + 1, sizeof *keys);
	sl_expr **aggs = calloc((size_t)q->nit + 1, sizeof *aggs);
	char **kname = calloc((size_t)nk + 1, sizeof *kname);
	bool reorder = false, dup = false;
	sl_plan *p = NULL;
	if (keys == NULL || aggs == NULL || kname == NULL)
		goto nomem;
	for (k = 0; k < nk; k++)
		if ((keys[k] = group_key(t, q, s, q->group[k], nvis)) == NULL)
			goto out;
	for (i = 0; i < q->nit; i++)
		for (k = i + 1; k < q->nit; k++)
			dup = dup || strcasecmp(q->it[i].name,
						 q->it[k].name) == 0;
	/* a select item equal to a key names it */
	for (k = 0; k < nk; k++) {
		char *ks = sql_text(keys[k]);
		for (i = 0; ks != NULL && i < nvis && kname[k] == NULL; i++) {
			char *is;
			if (q->it[i].key >= 0)
				continue;
			is = sql_text(q->it[i].e);
			if (is != NULL && strcmp(is, ks) == 0) {
				q->it[i].key = k;
				kname[k] = strdup(q->it[i].name);
			}
			free(is);
		}
		free(ks);
		if (kname[k] == NULL) {
			char h[32];
			snprintf(h, sizeof h, "__g%d", k);
			kname[k] = strdup(h);
			reorder = true;
		}
		if (kname[k] == NULL)
			goto nomem;
	}
	/* the aggregate's output order, against the wanted one */
	order = calloc((size_t)q->nit + 1, sizeof *order);
	if (order == NULL)
		goto nomem;
	{
		int at = 0;
		for (k = 0; k < nk; k++)
			for (i = 0; i < q->nit; i++)
				if (q->it[i].key == k)
					order[at++] = i;
		for (i = 0; i < q->nit; i++)
			if (q->it[i].key < 0)
				order[at++] = i;
		for (i = 0; i < q->nit; i++)
			reorder = reorder || order[i] != i;
	}
	if (reorder && dup) {
		sl_err_set(t->err, SL_EANALYSIS,
			   "sql: two select items named alike need GROUP BY "
			   "keys in select-list order");
		sl_err_hint(t->err, "give the items distinct aliases");
		goto out;
	}
	for (k = 0; k < nk; k++) {
		keys[k] = named(keys[k], kname[k]);
		if (keys[k] == NULL)
			goto nomem;
	}
	for (i = 0; i < q->nit; i++)
		if (q->it[i].key < 0) {
			aggs[na] = named(sl_expr_ref(q->it[i].e), q->it[i].name);
			if (aggs[na++] == NULL)
				goto nomem;
		}
	p = sl_plan_aggregate(in, keys, nk, aggs, na, t->err);
	memset(keys, 0, (size_t)nk * sizeof *keys);
	na = 0;
	if (p != NULL && reorder) {
		sl_expr **cols = calloc((size_t)q->nit + 1, sizeof *cols);
		sl_plan *pr = NULL;
		if (cols == NULL)
			goto nomem;
		for (i = 0; i < q->nit; i++)
			if ((cols[i] = sl_expr_col(q->it[i].name)) == NULL) {
				free_exprs(cols, i);
				free(cols);
				goto nomem;
			}
		pr = sl_plan_project(p, cols, q->nit, t->err);
		free(cols);
		sl_plan_free(p);
		p = pr;
	}
	goto out;
nomem:
	sl_err_nomem(t->err);
	sl_plan_free(p);
	p = NULL;
out:
	if (keys != NULL)
		free_exprs(keys, nk);
	free_exprs(aggs, na);
	for (k = 0; kname != NULL && k < nk; k++)
		free(kname[k]);
	free(kname);
	free(keys);
	free(aggs);
	free(order);
	return p;
}

/* The select list as a projection (none when it is the input as is). */
static sl_plan *plan_project(sql_tr *t, sel *q, sl_plan *in)
{
	const sl_type *st = sl_plan_schema(in);
	sl_expr **ex;
	sl_plan *p;
	int i;
	bool same = q->nit == st->nfields;
	for (i = 0; same && i < q->nit; i++)
		same = q->it[i].e->kind == SL_X_COL &&
		       strcmp(q->it[i].e->name, st->fields[i].name) == 0 &&
		       strcmp(q->it[i].name, st->fields[i].name) == 0;
	if (same)
		return sl_plan_ref(in);
	if ((ex = calloc((size_t)q->nit + 1, sizeof *ex)) == NULL)
		return fail_plan(t);
	for (i = 0; i < q->nit; i++)
		if ((ex[i] = named(sl_expr_ref(q->it[i].e), q->it[i].name)) ==
		    NULL) {
			free_exprs(ex, i);
			free(ex);
			return fail_plan(t);
		}
	p = sl_plan_project(in, ex, q->nit, t->err);
	free(ex);
	return p;
}

static int plan_sort(sql_tr *t, sl_plan **p, sl_expr **over, int n,
		     const order_key *ok)
{
	sl_expr **keys = calloc((size_t)n + 1, sizeof *keys);
	int i;
	if (keys == NULL)
		return sl_err_nomem(t->err);
	for (i = 0; i < n; i++) {
		keys[i] = sl_expr_sort(over[i], ok[i].flags);
		over[i] = NULL;
		if (keys[i] == NULL) {
			free_exprs(keys, i);
			free(keys);
			return sl_err_nomem(t->err);
		}
	}
	i = step(p, sl_plan_sort(*p, keys, n, t->err));
	free(keys);
	return i;
}

/* ORDER BY k (a 1-based ordinal of the output) -> its name */
static sl_expr *ordinal(sql_tr *t, const sl_expr *e, const sl_type *out,
			int nvis)
{
	if (e->kind == SL_X_LIT && e->type != NULL &&
	    (e->type->kind == SL_INT || e->type->kind == SL_BIGINT)) {
		if (e->lit.i < 1 || e->lit.i > nvis) {
			sl_err_set(t->err, SL_EANALYSIS,
				   "[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY "
				   "position %lld is not in select list (valid "
				   "range is [1, %d]).",
				   (long long)e->lit.i, nvis);
			return NULL;
		}
		return sl_expr_col(out->fields[e->lit.i - 1].name);
	}
	return NULL;
}

static sl_plan *plan_select(sql_tr *t, sel *q, sql_rel *from)
{
	sl_plan *p = sl_plan_ref(from->p);
	sl_expr *having = NULL, **ord = NULL;
	int nvis, i;
	bool agg;
	if (q->where != NULL) {
		sl_expr *c = sql_rewrite(t, &from->s, q->where, false);
		if (c == NULL || step(&p, sl_plan_filter(p, c, t->err)) < 0)
			goto fail;
	}
	if (expand_items(t, q, &from->s) < 0)
		goto fail;
	nvis = q->nit;
	agg = q->ngroup > 0 || q->having != NULL || has_agg_items(q);
	if (q->having != NULL &&
	    (having = over_output(t, q, &from->s, q->having, 'h')) == NULL)
		goto fail;
	if (q->norder > 0 &&
	    (ord = calloc((size_t)q->norder, sizeof *ord)) == NULL)
		goto nomem;
	for (i = 0; i < q->norder; i++) {
		const sl_expr *e = q->order[i].e;
		bool is_ord = e->kind == SL_X_LIT && e->type != NULL &&
			      (e->type->kind == SL_INT ||
			       e->type->kind == SL_BIGINT);
		if (!is_ord &&
		    (ord[i] = over_output(t, q, &from->s, e, 'o')) == NULL)
			goto fail;
	}
	if (step(&p, agg ? plan_aggregate(t, q, &from->s, p, nvis)
			 : plan_project(t, q, p)) < 0)
		goto fail;
	if (having != NULL) {
		i = step(&p, sl_plan_filter(p, having, t->err));
		having = NULL;
		if (i < 0)
			goto fail;
	}
	if (q->distinct) {
		const char *names[256];
		int n = 0;
		for (i = 0; i < nvis && n < 256; i++)
			names[n++] = q->it[i].name;
		if (step(&p, sl_plan_dedup(p, names, q->nit > nvis ? n : 0,
					   t->err)) < 0)
			goto fail;
	}
	for (i = 0; i < q->norder; i++)
		if (ord[i] == NULL &&
		    (ord[i] = ordinal(t, q->order[i].e, sl_plan_schema(p),
				      nvis)) == NULL)
			goto fail;
	if (q->norder > 0 && plan_sort(t, &p, ord, q->norder, q->order) < 0)
		goto fail;
	if (q->nit > nvis) {
		const char *names[256];
		int n = 0;
		for (i = nvis; i < q->nit && n < 256; i++)
			names[n++] = q->it[i].name;
		if (step(&p, sl_plan_drop(p, names, n, t->err)) < 0)
			goto fail;
	}
	if (q->limit >= 0 &&
	    step(&p, sl_plan_limit(p, q->limit, t->err)) < 0)
		goto fail;
	free_exprs(ord, q->norder);
	free(ord);
	return p;
nomem:
	sl_err_nomem(t->err);
fail:
	sl_expr_free(having);
	if (ord != NULL)
		free_exprs(ord, q->norder);
	free(ord);
	sl_plan_free(p);
	return fail_plan(t);
}

/* SELECT ... [ORDER BY ...] [LIMIT n]: ORDER BY and LIMIT (which may
 * read the FROM scope) only when `tail`, i.e. not on the right of a
 * UNION, where they belong to the whole union (query_tail). */
static int select_core(sql_tr *t, sql_rel *out, bool tail)
{
	sel q;
	sql_rel from;
	int rc = -1;
	memset(&q, 0, sizeof q);
	memset(&from, 0, sizeof from);
	memset(out, 0, sizeof *out);
	q.limit = -1;
	if (accept_op(t, "(")) {
		if (query(t, out) < 0)
			return -1;
		if (!expect_op(t, ")")) {
			rel_release(out);
			return -1;
		}
		return 0;
	}
	if (!expect_kw(t, "select"))
		return -1;
	if (accept_kw(t, "distinct"))
		q.distinct = true;
	else
		accept_kw(t, "all");
	if (parse_select_list(t, &q) < 0)
		goto out;
	if (accept_kw(t, "from") ? from_clause(t, &from) < 0
				 : one_row(t, &from) < 0)
		goto out;
	if (accept_kw(t, "where") && (q.where = expr(t)) == NULL)
		goto out;
	if (is_kw(t, "group") && kw_at(t, 1, "by")) {
		skip(t, 2);
		do {
			sl_expr *g = expr(t);
			if (g == NULL || push_expr(&q.group, &q.ngroup, g) < 0)
				goto out;
		} while (accept_op(t, ","));
	}
	if (accept_kw(t, "having") && (q.having = expr(t)) == NULL)
		goto out;
	if (tail && is_kw(t, "order") && kw_at(t, 1, "by")) {
		skip(t, 2);
		if (parse_order(t, &q.norder, &q.order) < 0)
			goto out;
	}
	if (tail && accept_kw(t, "limit") && parse_limit(t, &q.limit) < 0)
		goto out;
	if ((out->p = plan_select(t, &q, &from)) == NULL)
		goto out;
	{
		const sl_type *st = sl_plan_schema(out->p);
		if (sql_scope_of(&out->s, out->p, NULL) < 0) {
			sl_err_nomem(t->err);
			rel_release(out);
			goto out;
		}
		(void)st;
	}
	rc = 0;
out:
	if (rc < 0 && t->err->code == 0)
		sl_err_nomem(t->err);
	sel_release(&q);
	rel_release(&from);
	return rc;
}

/* A query's own ORDER BY / LIMIT after a UNION: over its output. */
static int query_tail(sql_tr *t, sql_rel *r)
{
	if (is_kw(t, "order") && kw_at(t, 1, "by")) {
		order_key *ok = NULL;
		sl_expr **over = NULL;
		int n = 0, i, rc = -1;
		skip(t, 2);
		if (parse_order(t, &n, &ok) < 0)
			goto done;
		if ((over = calloc((size_t)n, sizeof *over)) == NULL) {
			sl_err_nomem(t->err);
			goto done;
		}
		for (i = 0; i < n; i++) {
			const sl_type *st = sl_plan_schema(r->p);
			over[i] = ordinal(t, ok[i].e, st, st->nfields);
			if (over[i] == NULL && t->err->code == 0)
				over[i] = sql_rewrite(t, &r->s, ok[i].e, false);
			if (over[i] == NULL)
				goto done;
		}
		rc = plan_sort(t, &r->p, over, n, ok);
done:
		for (i = 0; i < n; i++)
			sl_expr_free(ok[i].e);
		if (over != NULL)
			free_exprs(over, n);
		free(over);
		free(ok);
		if (rc < 0)
			return -1;
	}
	if (accept_kw(t, "limit")) {
		int64_t lim;
		if (parse_limit(t, &lim) < 0 ||
		    step(&r->p, sl_plan_limit(r->p, lim, t->err)) < 0)
			return -1;
	}
	return 0;
}

/* WITH name AS (query), ...: the slot is taken once its query is
 * planned (the query may hold a WITH of its own, which uses the slots
 * above and frees them when it ends). */
static int with_clause(sql_tr *t)
{
	do {
		sql_rel r;
		char *name;
		if (!name_at(t, 0))
			return syntax(t);
		if ((name = strdup(tk(t, 0)->text)) == NULL)
			return sl_err_nomem(t->err);
		skip(t, 1);
		if (!expect_kw(t, "as") || !expect_op(t, "(") ||
		    query(t, &r) < 0) {
			free(name);
			return -1;
		}
		sql_scope_release(&r.s);
		if (t->ncte == SQL_MAX_CTE) {
			free(name);
			sl_plan_free(r.p);
			return sl_err_set(t->err, SL_EPARSE,
					  "sql: more than %d WITH queries",
					  SQL_MAX_CTE);
		}
		t->cte[t->ncte].name = name;
		t->cte[t->ncte].p = r.p;
		t->ncte++;
		if (!expect_op(t, ")"))
			return -1;
	} while (accept_op(t, ","));
	return 0;
}

static int query(sql_tr *t, sql_rel *out)
{
	int ncte = t->ncte, rc = -1;
	memset(out, 0, sizeof *out);
	if (++t->depth > SL_SQL_MAX_DEPTH) {
		int line, pos;
		sql_linepos(t, tk(t, 0)->start, &line, &pos);
		sl_err_set(t->err, SL_EPARSE,
			   "sql: queries nested deeper than %d (line %d, pos "
			   "%d)",
			   SL_SQL_MAX_DEPTH, line, pos);
		goto out;
	}
	if (accept_kw(t, "with") && with_clause(t) < 0)
		goto out;
	if (select_core(t, out, true) < 0)
		goto out;
	while (is_kw(t, "union")) {
		sql_rel r;
		bool all;
		skip(t, 1);
		all = accept_kw(t, "all");
		if (!all)
			accept_kw(t, "distinct");
		if (select_core(t, &r, false) < 0)
			goto fail;
		if (step(&out->p, sl_plan_union(out->p, r.p, t->err)) < 0) {
			rel_release(&r);
			goto fail;
		}
		rel_release(&r);
		if (!all &&
		    step(&out->p, sl_plan_dedup(out->p, NULL, 0, t->err)) < 0)
			goto fail;
	}
	if (query_tail(t, out) < 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	rel_release(out);
out:
	while (t->ncte > ncte) {
		t->ncte--;
		free(t->cte[t->ncte].name);
		sl_plan_free(t->cte[t->ncte].p);
	}
	t->depth--;
	if (rc < 0 && t->err->code == 0)
		sl_err_nomem(t->err);
	return rc;
}

/* ------------------------------------------------------ statements */

static bool query_starts(const sql_tr *t)
{
	return is_kw(t, "select") || is_kw(t, "with") || is_op(t, "(");
}

static sl_plan *show_tables(sql_tr *t)
{
	static const char *const cols[] = { "namespace", "tableName",
					    "isTemporary" };
	int n = sl_catalog_count(t->cat), i, k = 0;
	bool global = false;
	char **cells = calloc((size_t)n * 3 + 1, sizeof *cells);
	sl_plan *p;
	if ((accept_kw(t, "in") || accept_kw(t, "from"))) {
		if (!name_at(t, 0) ||
		    strcasecmp(tk(t, 0)->text, "global_temp") != 0) {
			free(cells);
			syntax(t);
			return NULL;
		}
		skip(t, 1);
		global = true;
	}
	if (cells == NULL)
		return fail_plan(t);
	for (i = 0; i < n; i++) {
		const char *name = sl_catalog_name(t->cat, i);
		bool g = strncasecmp(name, "global_temp.", 12) == 0;
		if (g && !global)
			continue;
		cells[3 * k] = (char *)(g ? "global_temp" : "");
		cells[3 * k + 1] = (char *)(g ? name + 12 : name);
		cells[3 * k + 2] = (char *)"true";
		k++;
	}
	p = local_rows(t, cols, 3, 2, cells, k);
	free(cells);
	return p;
}

static sl_plan *describe(sql_tr *t)
{
	static const char *const cols[] = { "col_name", "data_type",
					    "comment" };
	char name[512];
	sl_plan *v, *p = NULL;
	const sl_type *st;
	char **cells = NULL, **types = NULL;
	int i, off;
	accept_kw(t, "table");
	off = tk(t, 0)->start;
	if (!name_at(t, 0))
		return syntax(t), NULL;
	snprintf(name, sizeof name, "%s", tk(t, 0)->text);
	skip(t, 1);
	if (is_op(t, ".") && name_at(t, 1)) {
		size_t n = strlen(name);
		snprintf(name + n, sizeof name - n, ".%s", tk(t, 1)->text);
		skip(t, 2);
	}
	if ((v = lookup_view(t, name, off)) == NULL)
		return NULL;
	st = sl_plan_schema(v);
	cells = calloc((size_t)st->nfields * 3 + 1, sizeof *cells);
	types = calloc((size_t)st->nfields + 1, sizeof *types);
	if (cells == NULL || types == NULL)
		goto out;
	for (i = 0; i < st->nfields; i++) {
		sl_buf b;
		sl_buf_init(&b);
		sl_type_catalog_string(st->fields[i].type, &b);
		types[i] = sl_buf_failed(&b) ? NULL : strdup(sl_buf_cstr(&b));
		sl_buf_release(&b);
		if (types[i] == NULL)
			goto out;
		cells[3 * i] = st->fields[i].name;
		cells[3 * i + 1] = types[i];
	}
	p = local_rows(t, cols, 3, -1, cells, st->nfields);
out:
	for (i = 0; types != NULL && i < st->nfields; i++)
		free(types[i]);
	free(types);
	free(cells);
	sl_plan_free(v);
	return p ? p : fail_plan(t);
}

static sl_plan *statement(sql_tr *t);

static sl_plan *explain(sql_tr *t)
{
	static const char *const cols[] = { "plan" };
	bool ext = accept_kw(t, "extended");
	sl_plan *q, *p;
	sl_buf b;
	char *cell;
	if (!ext && !accept_kw(t, "formatted"))
		accept_kw(t, "simple");
	if ((q = statement(t)) == NULL)
		return NULL;
	sl_buf_init(&b);
	sl_plan_explain(q, ext, &b);
	sl_plan_free(q);
	cell = sl_buf_failed(&b) ? NULL : (char *)sl_buf_cstr(&b);
	p = cell ? local_rows(t, cols, 1, -1, &cell, 1) : fail_plan(t);
	sl_buf_release(&b);
	return p;
}

/* The empty result of a command (Spark's empty DataFrame). */
static sl_plan *empty_result(sql_tr *t)
{
	return local_rows(t, NULL, 0, -1, NULL, 0);
}

/* CREATE [OR REPLACE] [GLOBAL] TEMP[ORARY] VIEW name AS query */
static sl_plan *create_view(sql_tr *t)
{
	char name[512];
	sql_rel r;
	bool global;
	int rc;
	if (accept_kw(t, "or") && !expect_kw(t, "replace"))
		return NULL;
	global = accept_kw(t, "global");
	if (!accept_kw(t, "temp") && !accept_kw(t, "temporary"))
		return syntax(t), NULL;
	if (!expect_kw(t, "view"))
		return NULL;
	if (!name_at(t, 0))
		return syntax(t), NULL;
	snprintf(name, sizeof name, "%s%s", global ? "global_temp." : "",
		 tk(t, 0)->text);
	skip(t, 1);
	if (!expect_kw(t, "as") || query(t, &r) < 0)
		return NULL;
	if (sl_plan_is_streaming(r.p)) {
		rc = sl_catalog_put_plan(t->cat, name, r.p, t->err);
	} else {
		sl_batch *b = sl_plan_collect(r.p, t->err);
		rc = b ? sl_catalog_put(t->cat, name, b, t->err) : -1;
		sl_batch_free(b);
	}
	rel_release(&r);
	return rc < 0 ? NULL : empty_result(t);
}

/* DROP VIEW [IF EXISTS] name */
static sl_plan *drop_view(sql_tr *t)
{
	char name[512];
	bool if_exists;
	int off;
	if (!expect_kw(t, "view"))
		return NULL;
	if_exists = is_kw(t, "if") && kw_at(t, 1, "exists");
	if (if_exists)
		skip(t, 2);
	off = tk(t, 0)->start;
	if (!name_at(t, 0))
		return syntax(t), NULL;
	snprintf(name, sizeof name, "%s", tk(t, 0)->text);
	skip(t, 1);
	if (is_op(t, ".") && name_at(t, 1)) {
		size_t n = strlen(name);
		snprintf(name + n, sizeof name - n, ".%s", tk(t, 1)->text);
		skip(t, 2);
	}
	if (!sl_catalog_drop(t->cat, name) && !if_exists) {
		int line, pos;
		sql_linepos(t, off, &line, &pos);
		sl_err_set(t->err, SL_EANALYSIS,
			   "[TABLE_OR_VIEW_NOT_FOUND] The table or view `%s` "
			   "cannot be found. Verify the spelling and "
			   "correctness of the schema and catalog.; line %d "
			   "pos %d",
			   name, line, pos);
		sl_err_hint(t->err, "DROP VIEW IF EXISTS tolerates it");
		return NULL;
	}
	return empty_result(t);
}

static sl_plan *statement(sql_tr *t)
{
	if (query_starts(t)) {
		sql_rel r;
		if (query(t, &r) < 0)
			return NULL;
		sql_scope_release(&r.s);
		return r.p;
	}
	if (accept_kw(t, "show")) {
		if (!expect_kw(t, "tables"))
			return NULL;
		return show_tables(t);
	}
	if (accept_kw(t, "describe") || accept_kw(t, "desc"))
		return describe(t);
	if (accept_kw(t, "explain"))
		return explain(t);
	if (accept_kw(t, "create"))
		return create_view(t);
	if (accept_kw(t, "drop"))
		return drop_view(t);
	syntax(t);
	return NULL;
}

/* The plan spark.sql returns is a node of its own (not a view's, which
 * others share), holding the statement's origin. */
static sl_plan *with_origin(sql_tr *t, sl_plan *p)
{
	if (p->refs > 1) {
		sl_expr *star = sl_expr_star(NULL);
		sl_plan *q = star ? sl_plan_project(p, &star, 1, t->err) : NULL;
		sl_plan_free(p);
		if ((p = q) == NULL)
			return fail_plan(t);
	}
	assert(p->sql == NULL);
	if ((t->origin->text = strdup(t->src)) == NULL) {
		sl_plan_free(p);
		return fail_plan(t);
	}
	p->sql = t->origin;
	t->origin = NULL;
	return p;
}

sl_plan *sl_sql_plan(const char *text, sl_catalog *cat, sl_err *err)
{
	sql_tr t;
	sl_err local;
	sl_plan *p = NULL;
	memset(&t, 0, sizeof t);
	sl_err_clear(&local);
	t.src = text;
	t.cat = cat;
	t.err = &local;
	if ((t.origin = calloc(1, sizeof *t.origin)) == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	t.x = sl_sqlexpr_open(text, &local);
	if (t.x == NULL) {
		/* a lexical error: "unterminated string at col 5" */
		char why[SL_ERR_MSG];
		int line, pos, col = 1;
		const char *c = strstr(local.msg, " at col ");
		if (local.code == SL_EPARSE) {
			if (c != NULL)
				col = atoi(c + 8);
			snprintf(why, sizeof why, "%s", local.msg);
			sql_linepos(&t, col - 1, &line, &pos);
			sl_err_set(&local, SL_EPARSE,
				   "[PARSE_SYNTAX_ERROR] Syntax error at or "
				   "near '%.1s'.(line %d, pos %d)",
				   text + col - 1, line, pos);
			sl_err_hint(&local, "%s", why);
		}
		goto out;
	}
	p = statement(&t);
	if (p != NULL) {
		accept_op(&t, ";");
		if (tk(&t, 0)->kind != SL_TOK_EOF) {
			syntax(&t);
			sl_plan_free(p);
			p = NULL;
		} else {
			p = with_origin(&t, p);
		}
	} else if (local.code == 0) {
		sl_err_nomem(&local);
	}
out:
	sl_sqlexpr_close(t.x);
	sl_plan_sql_free(t.origin);
	if (p == NULL && err != NULL)
		*err = local;
	return p;
}
