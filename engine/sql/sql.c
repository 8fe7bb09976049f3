/*
 * sql: the statement grammar (sql.h): tokens over sqlexpr's cursor, the
 * FROM clause (views, CTEs, subqueries, joins), a SELECT's clauses
 * (planned by sql_select.c), UNION, WITH, and sl_sql_plan.  The commands
 * that are no query are sql_cmd.c's; names are sql_scope.c's.
 *
 * One pass, recursive descent, one function per clause: each clause is
 * parsed into unresolved expressions, rewritten over the FROM scope and
 * handed to the plan constructors.  The translator owns what it builds
 * until it returns a plan; every error path frees it.  Errors go to
 * t->err, a local sl_err that sl_sql_plan copies out on failure.
 */
#include "sql/sql_int.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------- tokens */

const sl_sqltok *sql_tk(const sql_tr *t, int ahead)
{
	return sl_sqlexpr_tok(t->x, ahead);
}

void sql_skip(sql_tr *t, int n)
{
	sl_sqlexpr_seek(t->x, sl_sqlexpr_at(t->x) + n);
}

bool sql_kw_at(const sql_tr *t, int ahead, const char *kw)
{
	const sl_sqltok *k = sql_tk(t, ahead);
	return k->kind == SL_TOK_IDENT && strcasecmp(k->text, kw) == 0;
}

bool sql_is_kw(const sql_tr *t, const char *kw)
{
	return sql_kw_at(t, 0, kw);
}

bool sql_accept_kw(sql_tr *t, const char *kw)
{
	if (!sql_is_kw(t, kw))
		return false;
	sql_skip(t, 1);
	return true;
}

bool sql_is_op(const sql_tr *t, const char *op)
{
	const sl_sqltok *k = sql_tk(t, 0);
	return k->kind == SL_TOK_OP && strcmp(k->text, op) == 0;
}

bool sql_accept_op(sql_tr *t, const char *op)
{
	if (!sql_is_op(t, op))
		return false;
	sql_skip(t, 1);
	return true;
}

/* [PARSE_SYNTAX_ERROR] at the current token; returns SL_EPARSE. */
int sql_syntax(sql_tr *t)
{
	const sl_sqltok *k = sql_tk(t, 0);
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

bool sql_expect_kw(sql_tr *t, const char *kw)
{
	if (sql_accept_kw(t, kw))
		return true;
	sql_syntax(t);
	return false;
}

bool sql_expect_op(sql_tr *t, const char *op)
{
	if (sql_accept_op(t, op))
		return true;
	sql_syntax(t);
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
	"null",	  "true",   "false", "except",    "intersect", "minus", "asc",
	"desc",	  "nulls",  "natural", "lateral", NULL
};

static bool reserved_at(const sql_tr *t, int ahead)
{
	const sl_sqltok *k = sql_tk(t, ahead);
	int i;
	if (k->kind != SL_TOK_IDENT)
		return false;
	for (i = 0; reserved[i] != NULL; i++)
		if (strcasecmp(k->text, reserved[i]) == 0)
			return true;
	return false;
}

/* A name token (an identifier that is no keyword, or `quoted`). */
bool sql_name_at(const sql_tr *t, int ahead)
{
	const sl_sqltok *k = sql_tk(t, ahead);
	return k->kind == SL_TOK_QIDENT ||
	       (k->kind == SL_TOK_IDENT && !reserved_at(t, ahead));
}

/* [AS] alias: a copy, or NULL when there is none (*fail on error). */
char *sql_opt_alias(sql_tr *t, bool *fail)
{
	char *a;
	bool as = sql_accept_kw(t, "as");
	if (!sql_name_at(t, 0)) {
		if (as) {
			sql_syntax(t);
			*fail = true;
		}
		return NULL;
	}
	a = strdup(sql_tk(t, 0)->text);
	if (a == NULL) {
		sl_err_nomem(t->err);
		*fail = true;
	}
	sql_skip(t, 1);
	return a;
}

/* Where the last `tail` in s starts if all after it is digits and then
 * `close` ("" or ")"), else NULL. */
static const char *col_suffix(const char *s, const char *tail,
			      const char *close)
{
	const char *c = NULL, *f, *d;
	for (f = strstr(s, tail); f != NULL; f = strstr(f + 1, tail))
		c = f;
	if (c == NULL)
		return NULL;
	d = c + strlen(tail);
	if (*d < '0' || *d > '9')
		return NULL;
	d += strspn(d, "0123456789");
	return strcmp(d, close) == 0 ? c : NULL;
}

/* The expression parser's message as the hint of a PARSE_SYNTAX_ERROR,
 * without its " at col N" / " (col N)": that column counts from the
 * statement's start across its lines, and the message already says
 * (line L, pos P). */
static void why_hint(sl_err *err, const char *why)
{
	const char *c = col_suffix(why, " at col ", "");
	if (c == NULL)
		c = col_suffix(why, " (col ", ")");
	sl_err_hint(err, "%.*s", c ? (int)(c - why) : (int)strlen(why), why);
}

/* One expression at the cursor; a syntax error inside it becomes
 * [PARSE_SYNTAX_ERROR] at the token where the grammar stopped. */
sl_expr *sql_expr(sql_tr *t)
{
	sl_expr *e = sl_sqlexpr_next(t->x, t->err);
	if (e == NULL && t->err->code == SL_EPARSE && !t->subq_err) {
		char why[SL_ERR_MSG];
		snprintf(why, sizeof why, "%s", t->err->msg);
		sql_syntax(t);
		why_hint(t->err, why);
	}
	return e;
}

/* ------------------------------------------------------------- helpers */

sl_plan *sql_fail_plan(sql_tr *t)
{
	if (t->err->code == 0)
		sl_err_nomem(t->err);
	return NULL;
}

void sql_rel_release(sql_rel *r)
{
	sl_plan_free(r->p);
	r->p = NULL;
	sql_scope_release(&r->s);
}

/* Replace *p by f(*p) (NULL: *p freed, failure). */
int sql_step(sl_plan **p, sl_plan *next)
{
	sl_plan_free(*p);
	*p = next;
	return next ? 0 : -1;
}

/* e named `name`: e itself when that is its automatic name. */
sl_expr *sql_named(sl_expr *e, const char *name)
{
	char *n = sql_name_of(e);
	bool same = n != NULL && strcmp(n, name) == 0;
	free(n);
	return same ? e : sl_expr_alias(e, name);
}

void sql_free_exprs(sl_expr **e, int n)
{
	while (n > 0)
		sl_expr_free(e[--n]);
}

/* ----------------------------------------------------------- FROM */

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

sl_plan *sql_lookup_view(sql_tr *t, const char *name, int off)
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

/* An integer literal argument of a table-valued function: [+|-]INT. */
static bool int_arg(sql_tr *t, int64_t *v)
{
	const sl_sqltok *k;
	bool neg = false;
	char *end;
	unsigned long long x;
	if (sql_accept_op(t, "-"))
		neg = true;
	else
		(void)sql_accept_op(t, "+");
	k = sql_tk(t, 0);
	if (k->kind != SL_TOK_INT)
		return false;
	errno = 0;
	x = strtoull(k->text, &end, 10);
	if (errno != 0 || *end != '\0' ||
	    x > (neg ? (unsigned long long)INT64_MAX + 1 : INT64_MAX))
		return false;
	*v = neg ? (int64_t)(0 - (uint64_t)x) : (int64_t)x;
	sql_skip(t, 1);
	return true;
}

/* range(end) | range(start, end [, step [, numPartitions]]): Spark's
 * table-valued function, a column id (sl_plan_range).  Arguments are
 * integer literals (Spark folds any constant expression: a deviation);
 * numPartitions is accepted and ignored (one partition here). */
static int range_item(sql_tr *t, sql_rel *r, int off)
{
	int64_t a[16] = { 0 };
	int n = 0, line, pos;
	bool fail = false;
	char *alias;
	sql_skip(t, 2); /* range ( */
	if (!sql_is_op(t, ")"))
		do {
			if (n == 16 || !int_arg(t, &a[n])) {
				sql_linepos(t, sql_tk(t, 0)->start, &line, &pos);
				return sl_err_set(
				    t->err, SL_EANALYSIS,
				    "range: argument %d must be an integer literal (streamlab does not fold expressions here); line %d pos %d",
				    n + 1, line, pos);
			}
			n++;
		} while (sql_accept_op(t, ","));
	if (!sql_expect_op(t, ")"))
		return -1;
	if (n == 0 || n > 4) { /* Spark's words */
		sql_linepos(t, off, &line, &pos);
		return sl_err_set(t->err, SL_EANALYSIS,
				  "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `range` requires [1, 2, 3, 4] parameters but the actual number is %d.; line %d pos %d",
				  n, line, pos);
	}
	r->p = n == 1 ? sl_plan_range(0, a[0], 1, t->err)
		      : sl_plan_range(a[0], a[1], n >= 3 ? a[2] : 1, t->err);
	if (r->p == NULL)
		return -1;
	alias = sql_opt_alias(t, &fail);
	if (fail || sql_scope_of(&r->s, r->p, alias ? alias : "range") < 0) {
		free(alias);
		if (!fail)
			sl_err_nomem(t->err);
		sql_rel_release(r);
		return -1;
	}
	free(alias);
	return 0;
}

/* view [[AS] alias] | (query) [[AS] alias] | range(...) [[AS] alias] */
static int from_item(sql_tr *t, sql_rel *r)
{
	bool fail = false;
	char *alias, name[512];
	const char *qual;
	int off = sql_tk(t, 0)->start;
	memset(r, 0, sizeof *r);
	if (sql_accept_op(t, "(")) {
		if (sql_query(t, r) < 0)
			return -1;
		if (!sql_expect_op(t, ")"))
			goto fail;
		alias = sql_opt_alias(t, &fail);
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
	if (!sql_name_at(t, 0))
		return sql_syntax(t);
	if (sql_tk(t, 0)->kind == SL_TOK_IDENT &&
	    strcasecmp(sql_tk(t, 0)->text, "range") == 0 &&
	    sql_tk(t, 1)->kind == SL_TOK_OP &&
	    strcmp(sql_tk(t, 1)->text, "(") == 0)
		return range_item(t, r, off);
	snprintf(name, sizeof name, "%s", sql_tk(t, 0)->text);
	sql_skip(t, 1);
	qual = name;
	if (sql_is_op(t, ".") && sql_name_at(t, 1)) { /* global_temp.v */
		size_t n = strlen(name);
		snprintf(name + n, sizeof name - n, ".%s", sql_tk(t, 1)->text);
		qual = name + n + 1;
		sql_skip(t, 2);
	}
	if ((r->p = sql_lookup_view(t, name, off)) == NULL)
		return -1;
	alias = sql_opt_alias(t, &fail);
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
	sql_rel_release(r);
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
			sql_free_exprs(ex, i);
			free(ex);
			return sl_err_nomem(t->err);
		}
	}
	if (renamed == 0) {
		sql_free_exprs(ex, r->s.n);
		free(ex);
		return 0;
	}
	np = sl_plan_project(r->p, ex, r->s.n, t->err);
	free(ex);
	return sql_step(&r->p, np);
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
	if (!sql_expect_op(t, "("))
		return -1;
	do {
		char **m;
		if (!sql_name_at(t, 0))
			return sql_syntax(t);
		m = realloc(*cols, (size_t)(*n + 1) * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(t->err);
		*cols = m;
		if (((*cols)[*n] = strdup(sql_tk(t, 0)->text)) == NULL)
			return sl_err_nomem(t->err);
		(*n)++;
		sql_skip(t, 1);
	} while (sql_accept_op(t, ","));
	return sql_expect_op(t, ")") ? 0 : -1;
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
	if (sql_accept_op(t, ",")) {
		*comma = true;
		return "cross";
	}
	for (k = 0; k < sizeof forms / sizeof *forms; k++) {
		int w = forms[k].w3 ? 3 : forms[k].w2 ? 2 : 1;
		if (sql_kw_at(t, 0, forms[k].w1) &&
		    (w < 2 || sql_kw_at(t, 1, forms[k].w2)) &&
		    (w < 3 || sql_kw_at(t, 2, forms[k].w3))) {
			sql_skip(t, w);
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
	if (!comma && sql_accept_kw(t, "on")) {
		if ((cond = sql_expr(t)) == NULL)
			goto out;
	} else if (!comma && sql_accept_kw(t, "using")) {
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
	sql_rel_release(l);
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
	sql_rel_release(&r);
	for (i = 0; i < nu; i++)
		free(u[i]);
	free(u);
	return rc;
}

/* Hostile text stops at a limit (a clear error) instead of planning for
 * minutes: each join copies the scope. */
static bool too_many(sql_tr *t, int n, int max, const char *what)
{
	int line, pos;
	if (n <= max)
		return false;
	sql_linepos(t, sql_tk(t, 0)->start, &line, &pos);
	sl_err_set(t->err, SL_EPARSE,
		   "sql: more than %d %s (line %d, pos %d)", max, what, line,
		   pos);
	return true;
}

static int from_clause(sql_tr *t, sql_rel *out)
{
	const char *how;
	bool comma;
	int n = 0;
	if (from_item(t, out) < 0)
		return -1;
	while ((how = join_kind(t, &comma)) != NULL)
		if (too_many(t, ++n, SL_SQL_MAX_JOINS, "joins in one FROM") ||
		    join_one(t, out, how, comma) < 0) {
			sql_rel_release(out);
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
	return out->p ? 0 : (sql_fail_plan(t), -1);
}

/* SELECT ... [ORDER BY ...] [LIMIT n]: ORDER BY and LIMIT (which may
 * read the FROM scope) only when `tail`, i.e. not on the right of a
 * UNION, where they belong to the whole union (query_tail). */
static int select_core(sql_tr *t, sql_rel *out, bool tail)
{
	sql_sel q;
	sql_rel from;
	int rc = -1;
	memset(&q, 0, sizeof q);
	memset(&from, 0, sizeof from);
	memset(out, 0, sizeof *out);
	q.limit = -1;
	if (sql_accept_op(t, "(")) {
		if (sql_query(t, out) < 0)
			return -1;
		if (!sql_expect_op(t, ")")) {
			sql_rel_release(out);
			return -1;
		}
		return 0;
	}
	if (!sql_expect_kw(t, "select"))
		return -1;
	if (sql_accept_kw(t, "distinct"))
		q.distinct = true;
	else
		sql_accept_kw(t, "all");
	if (sql_parse_select_list(t, &q) < 0)
		goto out;
	if (sql_accept_kw(t, "from") ? from_clause(t, &from) < 0
				 : one_row(t, &from) < 0)
		goto out;
	if (sql_accept_kw(t, "where")) {
		bool was = t->in_where;
		t->in_where = true; /* IN / EXISTS subqueries: sql_subq.c */
		q.where = sql_expr(t);
		t->in_where = was;
		if (q.where == NULL)
			goto out;
	}
	if (sql_is_kw(t, "group") && sql_kw_at(t, 1, "by")) {
		sql_skip(t, 2);
		if (sql_parse_group(t, &q) < 0)
			goto out;
	}
	if (sql_accept_kw(t, "having") && (q.having = sql_expr(t)) == NULL)
		goto out;
	if (tail && sql_is_kw(t, "order") && sql_kw_at(t, 1, "by")) {
		sql_skip(t, 2);
		if (sql_parse_order(t, &q.norder, &q.order) < 0)
			goto out;
	}
	if (tail && sql_accept_kw(t, "limit") && sql_parse_limit(t, &q.limit) < 0)
		goto out;
	if ((out->p = sql_plan_select(t, &q, &from)) == NULL)
		goto out;
	{
		const sl_type *st = sl_plan_schema(out->p);
		if (sql_scope_of(&out->s, out->p, NULL) < 0) {
			sl_err_nomem(t->err);
			sql_rel_release(out);
			goto out;
		}
		(void)st;
	}
	rc = 0;
out:
	if (rc < 0 && t->err->code == 0)
		sl_err_nomem(t->err);
	sql_sel_release(&q);
	sql_rel_release(&from);
	return rc;
}

/* A query's own ORDER BY / LIMIT after a UNION: over its output. */
static int query_tail(sql_tr *t, sql_rel *r)
{
	if (sql_is_kw(t, "order") && sql_kw_at(t, 1, "by")) {
		sql_order *ok = NULL;
		sl_expr **over = NULL;
		int n = 0, i, rc = -1;
		sql_skip(t, 2);
		if (sql_parse_order(t, &n, &ok) < 0)
			goto done;
		if ((over = calloc((size_t)n, sizeof *over)) == NULL) {
			sl_err_nomem(t->err);
			goto done;
		}
		for (i = 0; i < n; i++) {
			const sl_type *st = sl_plan_schema(r->p);
			over[i] = sql_ordinal(t, ok[i].e, st, st->nfields);
			if (over[i] == NULL && t->err->code == 0)
				over[i] = sql_rewrite(t, &r->s, ok[i].e, false);
			if (over[i] == NULL)
				goto done;
		}
		rc = sql_plan_sort(t, &r->p, over, n, ok);
done:
		for (i = 0; i < n; i++)
			sl_expr_free(ok[i].e);
		if (over != NULL)
			sql_free_exprs(over, n);
		free(over);
		free(ok);
		if (rc < 0)
			return -1;
	}
	if (sql_accept_kw(t, "limit")) {
		int64_t lim;
		if (sql_parse_limit(t, &lim) < 0 ||
		    sql_step(&r->p, sl_plan_limit(r->p, lim, t->err)) < 0)
			return -1;
	}
	return 0;
}

/* Do both sides of an INTERSECT (EXCEPT) have as many columns?  If not,
 * Spark's error. */
static bool same_width(sql_tr *t, const sql_rel *l, const sql_rel *r,
		       bool intersect)
{
	int a = sl_plan_schema(l->p)->nfields, b = sl_plan_schema(r->p)->nfields;
	if (a == b)
		return true;
	sl_err_set(t->err, SL_EANALYSIS,
		   "[NUM_COLUMNS_MISMATCH] %s can only be performed on inputs "
		   "with the same number of columns, but the first input has "
		   "%d columns and the second input has %d columns.",
		   intersect ? "INTERSECT" : "EXCEPT", a, b);
	return false;
}

/* INTERSECT / EXCEPT (DISTINCT; the caller dedups): a left semi / anti
 * join of the two sides on every column by position, NULL matching NULL
 * (<=>), as Spark's ReplaceIntersectWithSemiJoin and
 * ReplaceExceptWithAntiJoin.  A new plan (l->p stays the caller's). */
static sl_plan *set_op(sql_tr *t, sql_rel *l, sql_rel *r, const char *how)
{
	const sl_type *a = sl_plan_schema(l->p);
	sl_expr *cond = NULL;
	int i;
	if (!same_width(t, l, r, strcmp(how, "left_semi") == 0))
		return NULL;
	if (rename_clashes(t, l, r, NULL, 0) < 0)
		return NULL;
	for (i = 0; i < a->nfields; i++) {
		sl_expr *e = sl_expr_binop(SL_OP_EQNS,
					   sl_expr_col(l->s.c[i].in),
					   sl_expr_col(r->s.c[i].in));
		if (e == NULL) {
			sl_expr_free(cond);
			return sql_fail_plan(t);
		}
		cond = cond ? sl_expr_binop(SL_OP_AND, cond, e) : e;
		if (cond == NULL)
			return sql_fail_plan(t);
	}
	return sl_plan_join(l->p, r->p, cond, NULL, 0, how, t->err);
}

/* "__set_c<i>", the name column i has inside set_op_all. */
static sl_expr *set_col(int i)
{
	char name[32];
	snprintf(name, sizeof name, "__set_c%d", i);
	return sl_expr_col(name);
}

/* Are e[0..n) all built?  If one is not (no memory), all are freed and
 * t->err says so. */
static bool exprs_ok(sql_tr *t, sl_expr **e, int n)
{
	int i;
	for (i = 0; i < n; i++)
		if (e[i] == NULL)
			break;
	if (i == n)
		return true;
	for (i = 0; i < n; i++) {
		sl_expr_free(e[i]);
		e[i] = NULL;
	}
	sl_err_nomem(t->err);
	return false;
}

/* One side of set_op_all: its columns by position as __set_c<i>, and
 * __set_l (1 on the left, 0 on the right). */
static sl_plan *set_side(sql_tr *t, const sql_rel *s, int n, int left)
{
	sl_expr **e = calloc((size_t)n + 1, sizeof *e);
	char name[32];
	int i;
	if (e == NULL)
		return sql_fail_plan(t);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "__set_c%d", i);
		e[i] = sl_expr_alias(sl_expr_col(s->s.c[i].in), name);
	}
	e[n] = sl_expr_alias(sl_expr_lit_int(left), "__set_l");
	sl_plan *p = exprs_ok(t, e, n + 1)
			 ? sl_plan_project(s->p, e, n + 1, t->err)
			 : NULL;
	free(e);
	return p;
}

/* INTERSECT ALL / EXCEPT ALL: multisets, a row that is m times on the
 * left and k times on the right is min(m, k) times in INTERSECT ALL and
 * max(m - k, 0) times in EXCEPT ALL, NULLs equal (Spark's
 * RewriteIntersectAll / RewriteExceptAll).  Spark counts both sides per
 * row in an aggregate and replicates rows with replicate_rows; here the
 * aggregate keeps the left side's rows as collect_list(true) (NULLs are
 * not collected), so posexplode gives positions 0..m-1, and the filter
 * keeps positions below k (INTERSECT ALL) or from k on (EXCEPT ALL):
 *
 *   SELECT c.. FROM (SELECT c.., k, posexplode(ls) FROM (SELECT c..,
 *     collect_list(if(l = 1, true, NULL)) AS ls, sum(1 - l) AS k FROM
 *     (SELECT c.., 1 AS l FROM left UNION ALL SELECT c.., 0 FROM right)
 *     GROUP BY c..)) WHERE pos < k            -- >= k for EXCEPT ALL
 *
 * Batch only (a streaming side is an error: Spark's plan would be a
 * streaming aggregation over the union of both sides). */
static sl_plan *set_op_all(sql_tr *t, sql_rel *l, sql_rel *r, bool intersect)
{
	const char *what = intersect ? "INTERSECT ALL" : "EXCEPT ALL";
	int n = sl_plan_schema(l->p)->nfields, i;
	sl_plan *a = NULL, *b = NULL, *p = NULL;
	sl_expr **e = NULL, *agg[2], *arg[3];
	if (!same_width(t, l, r, intersect))
		return NULL;
	if (sl_plan_is_streaming(l->p) || sl_plan_is_streaming(r->p)) {
		sl_err_set(t->err, SL_EANALYSIS,
			   "%s is not supported on streaming "
			   "DataFrames/Datasets in streamlab",
			   what);
		sl_err_hint(t->err, "INTERSECT and EXCEPT (distinct) are: a "
				    "left semi / anti join");
		return NULL;
	}
	if ((e = calloc((size_t)n + 2, sizeof *e)) == NULL)
		return sql_fail_plan(t);
	if ((a = set_side(t, l, n, 1)) == NULL ||
	    (b = set_side(t, r, n, 0)) == NULL ||
	    sql_step(&a, sl_plan_union(a, b, t->err)) < 0)
		goto out;
	for (i = 0; i < n; i++)
		e[i] = set_col(i);
	arg[0] = sl_expr_binop(SL_OP_EQ, sl_expr_col("__set_l"),
			       sl_expr_lit_int(1));
	arg[1] = sl_expr_lit_bool(true);
	arg[2] = sl_expr_lit_null();
	arg[0] = sl_expr_call("if", arg, 3);
	agg[0] = sl_expr_alias(sl_expr_call("collect_list", arg, 1),
			       "__set_ls");
	arg[0] = sl_expr_binop(SL_OP_SUB, sl_expr_lit_int(1),
			       sl_expr_col("__set_l"));
	agg[1] = sl_expr_alias(sl_expr_call("sum", arg, 1), "__set_k");
	if (!exprs_ok(t, agg, 2)) {
		sql_free_exprs(e, n);
		goto out;
	}
	if (!exprs_ok(t, e, n)) {
		sql_free_exprs(agg, 2);
		goto out;
	}
	if (sql_step(&a, sl_plan_aggregate(a, e, n, agg, 2, t->err)) < 0)
		goto out;
	for (i = 0; i < n; i++)
		e[i] = set_col(i);
	e[n] = sl_expr_col("__set_k");
	arg[0] = sl_expr_col("__set_ls");
	e[n + 1] = sl_expr_call("posexplode", arg, 1);
	if (!exprs_ok(t, e, n + 2) ||
	    sql_step(&a, sl_plan_project(a, e, n + 2, t->err)) < 0)
		goto out;
	e[0] = sl_expr_binop(intersect ? SL_OP_LT : SL_OP_GE,
			     sl_expr_col("pos"), sl_expr_col("__set_k"));
	if (!exprs_ok(t, e, 1) ||
	    sql_step(&a, sl_plan_filter(a, e[0], t->err)) < 0)
		goto out;
	for (i = 0; i < n; i++)
		e[i] = sl_expr_alias(set_col(i), l->s.c[i].in);
	if (exprs_ok(t, e, n))
		p = sl_plan_project(a, e, n, t->err);
out:
	sl_plan_free(a);
	sl_plan_free(b);
	free(e);
	return p ? p : sql_fail_plan(t);
}

/* WITH name AS (query), ...: the slot is taken once its query is
 * planned (the query may hold a WITH of its own, which uses the slots
 * above and frees them when it ends). */
static int with_clause(sql_tr *t)
{
	do {
		sql_rel r;
		char *name;
		if (!sql_name_at(t, 0))
			return sql_syntax(t);
		if ((name = strdup(sql_tk(t, 0)->text)) == NULL)
			return sl_err_nomem(t->err);
		sql_skip(t, 1);
		if (!sql_expect_kw(t, "as") || !sql_expect_op(t, "(") ||
		    sql_query(t, &r) < 0) {
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
		if (!sql_expect_op(t, ")"))
			return -1;
	} while (sql_accept_op(t, ","));
	return 0;
}

/* out = out <op> [ALL|DISTINCT] r for the set operator op ("union",
 * "intersect", "except"); r is released. */
static int set_apply(sql_tr *t, sql_rel *out, sql_rel *r, const char *op,
		     bool all)
{
	sl_plan *p;
	if (strcmp(op, "union") == 0)
		p = sl_plan_union(out->p, r->p, t->err);
	else if (all)
		p = set_op_all(t, out, r, strcmp(op, "intersect") == 0);
	else
		p = set_op(t, out, r, strcmp(op, "intersect") == 0
					  ? "left_semi" : "left_anti");
	sql_rel_release(r);
	if (sql_step(&out->p, p) < 0)
		return -1;
	if (!all &&
	    sql_step(&out->p, sl_plan_dedup(out->p, NULL, 0, t->err)) < 0)
		return -1;
	return 0;
}

/* The set operator at the cursor ("union", "intersect", "except";
 * MINUS is EXCEPT), NULL if none; intersect_only: only INTERSECT. */
static const char *set_op_at(const sql_tr *t, bool intersect_only)
{
	if (sql_is_kw(t, "intersect"))
		return "intersect";
	if (intersect_only)
		return NULL;
	if (sql_is_kw(t, "union"))
		return "union";
	if (sql_is_kw(t, "except") || sql_is_kw(t, "minus"))
		return "except";
	return NULL;
}

/* Operands of set operators, as Spark's (ANSI) grammar binds them:
 * INTERSECT tighter than UNION and EXCEPT, which go left to right, so
 * a UNION b INTERSECT c is a UNION (b INTERSECT c).  intersect_only:
 * one INTERSECT chain (a term); first: the query's first operand, whose
 * SELECT may carry ORDER BY / LIMIT (select_core's tail). */
static int set_level(sql_tr *t, sql_rel *out, int *nset, bool intersect_only,
		     bool first)
{
	const char *op;
	if (intersect_only ? select_core(t, out, first) < 0
			   : set_level(t, out, nset, true, first) < 0)
		return -1;
	while ((op = set_op_at(t, intersect_only)) != NULL) {
		sql_rel r;
		bool all;
		if (too_many(t, ++*nset, SL_SQL_MAX_SETOPS, "set operations"))
			goto fail;
		sql_skip(t, 1);
		all = sql_accept_kw(t, "all");
		if (!all)
			sql_accept_kw(t, "distinct");
		if ((intersect_only ? select_core(t, &r, false)
				    : set_level(t, &r, nset, true, false)) < 0)
			goto fail;
		if (set_apply(t, out, &r, op, all) < 0)
			goto fail;
	}
	return 0;
fail:
	sql_rel_release(out);
	return -1;
}

static int set_expr(sql_tr *t, sql_rel *out, int *nset)
{
	return set_level(t, out, nset, false, true);
}

int sql_query(sql_tr *t, sql_rel *out)
{
	int ncte = t->ncte, rc = -1, nset = 0;
	memset(out, 0, sizeof *out);
	if (++t->depth > SL_SQL_MAX_DEPTH) {
		int line, pos;
		sql_linepos(t, sql_tk(t, 0)->start, &line, &pos);
		sl_err_set(t->err, SL_EPARSE,
			   "sql: queries nested deeper than %d (line %d, pos "
			   "%d)",
			   SL_SQL_MAX_DEPTH, line, pos);
		goto out;
	}
	if (sql_accept_kw(t, "with") && with_clause(t) < 0)
		goto out;
	if (set_expr(t, out, &nset) < 0)
		goto fail;
	if (query_tail(t, out) < 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	sql_rel_release(out);
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

static bool query_starts(const sql_tr *t)
{
	return sql_is_kw(t, "select") || sql_is_kw(t, "with") || sql_is_op(t, "(");
}

sl_plan *sql_statement(sql_tr *t)
{
	if (query_starts(t)) {
		sql_rel r;
		if (sql_query(t, &r) < 0)
			return NULL;
		sql_scope_release(&r.s);
		return r.p;
	}
	if (sql_accept_kw(t, "show")) {
		if (sql_accept_kw(t, "views"))
			return sql_show_tables(t, true);
		if (!sql_expect_kw(t, "tables"))
			return NULL;
		return sql_show_tables(t, false);
	}
	if (sql_accept_kw(t, "describe") || sql_accept_kw(t, "desc"))
		return sql_describe(t);
	if (sql_accept_kw(t, "explain"))
		return sql_explain(t);
	if (sql_accept_kw(t, "create"))
		return sql_create_view(t);
	if (sql_accept_kw(t, "drop"))
		return sql_drop_view(t);
	sql_syntax(t);
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
			return sql_fail_plan(t);
	}
	assert(p->sql == NULL);
	if ((t->origin->text = strdup(t->src)) == NULL) {
		sl_plan_free(p);
		return sql_fail_plan(t);
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
	if (t.x != NULL)
		sl_sqlexpr_on_subquery(t.x, sql_subquery, &t);
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
			why_hint(&local, why);
		}
		goto out;
	}
	p = sql_statement(&t);
	if (p != NULL) {
		sql_accept_op(&t, ";");
		if (sql_tk(&t, 0)->kind != SL_TOK_EOF) {
			sql_syntax(&t);
			sl_plan_free(p);
			p = NULL;
		} else {
			p = with_origin(&t, p);
		}
	} else if (local.code == 0) {
		sl_err_nomem(&local);
	}
out:
	sql_subq_release(&t);
	sl_sqlexpr_close(t.x);
	sl_plan_sql_free(t.origin);
	if (p == NULL && err != NULL)
		*err = local;
	return p;
}
