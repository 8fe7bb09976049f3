/*
 * plan_agg: the AGGREGATE node (groupBy().agg(), global aggregates): its
 * analysis.  The hash aggregate operator that runs it is exec/op_agg.c.
 *
 * An agg expression may mix group keys, aggregate calls and scalar
 * functions around them: `(sum(a) + 1) AS s`, `k || count(*)`.  Each
 * expression is rewritten over an intermediate row (keys then aggregate
 * results, named _k0.. and _a0..): every aggregate call becomes a
 * reference to its _aN column (its arguments resolved against the input),
 * every subtree equal to a key becomes _kN, and a column left over is
 * Spark's error "expression 'x' is neither present in the group by, nor is
 * it an aggregate function".  The rewritten expressions are resolved
 * against the intermediate schema and evaluated once at the end (by the
 * operator).  A sliding window() among the keys or aggregates becomes an
 * EXPAND node below the aggregate (plan_window.c).
 */
#include "plan/plan_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/aggfunc.h"

/* ------------------------------------------------------- rewriting */

typedef struct rw {
	sl_plan *p;
	const sl_type *in;
	char **key_sql; /* resolved SQL text of each key */
	const char *method;
	int cap;
} rw;

/* count(*) -> count(1), as Spark names and runs it. */
static sl_expr *normalize(const sl_expr *e)
{
	sl_expr *a[64], *o;
	int i;
	if (e->kind == SL_X_CALL && strcasecmp(e->name, "count") == 0 &&
	    e->nargs == 1 && e->args[0]->kind == SL_X_STAR) {
		a[0] = sl_expr_lit_int(1);
		return a[0] ? sl_expr_call("count", a, 1) : NULL;
	}
	if (e->nargs == 0 || e->nargs > 64)
		return sl_expr_ref((sl_expr *)e);
	for (i = 0; i < e->nargs; i++) {
		a[i] = normalize(e->args[i]);
		if (a[i] == NULL) {
			while (i-- > 0)
				sl_expr_free(a[i]);
			return NULL;
		}
	}
	o = sl_expr_rebuild(e, a);
	return o;
}

static char *sql_of(const sl_expr *e)
{
	sl_buf b;
	sl_buf_init(&b);
	sl_expr_sql(e, &b);
	return sl_buf_detach(&b);
}

static const char *canon(const char *f, bool *distinct)
{
	if (strcasecmp(f, "mean") == 0)
		return "avg";
	if (strcasecmp(f, "count_distinct") == 0) {
		*distinct = true;
		return "count";
	}
	return f;
}

static int spec_args(rw *r, sl_aggspec *s, const sl_expr *e, sl_err *err)
{
	int i, want = strcmp(s->fname, "approx_count_distinct") == 0 ? 2 : 1;
	bool by =
	    strcmp(s->fname, "min_by") == 0 || strcmp(s->fname, "max_by") == 0;
	if (by && e->nargs != 2)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "%s: invalid number of arguments for function '%s': expected %d; found %d",
		    r->method, e->name, 2, e->nargs);
	if (strcmp(s->fname, "count") != 0 && !by &&
	    (e->nargs < 1 || e->nargs > want)) {
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "%s: invalid number of arguments for function '%s': expected %d; found %d",
		    r->method, e->name, 1, e->nargs);
	}
	s->count_rows =
	    strcmp(s->fname, "count") == 0 &&
	    (e->nargs == 0 || (e->args[0]->kind == SL_X_LIT &&
			       !e->args[0]->lit.null && !s->distinct));
	s->nargs = s->count_rows ? 0 : (want == 2 ? 1 : e->nargs);
	s->args = calloc((size_t)e->nargs + 1, sizeof *s->args);
	if (s->args == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < s->nargs; i++) {
		if (sl_expr_has_agg(e->args[i]))
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "%s: it is not allowed to use an aggregate function in the argument of another aggregate function",
			    r->method);
		s->args[i] = sl_plan_resolve(e->args[i], r->in, r->method, err);
		if (s->args[i] == NULL)
			return err ? err->code : SL_EANALYSIS;
	}
	if (want == 2 && e->nargs == 2) {
		sl_expr *x = sl_plan_resolve(e->args[1], r->in, r->method, err);
		sl_value v;
		memset(&v, 0, sizeof v);
		if (x == NULL || sl_expr_eval_const(x, &v, err) < 0) {
			sl_expr_free(x);
			return err ? err->code : SL_EANALYSIS;
		}
		s->rsd = x->rtype->kind == SL_DOUBLE ? v.d : (double)v.i;
		sl_value_release(&v);
		sl_expr_free(x);
	}
	return 0;
}

/* An aggregate call: add a spec, return the reference to its column. */
static sl_expr *add_spec(rw *r, const sl_expr *e, sl_err *err)
{
	sl_plan *p = r->p;
	sl_aggspec *s;
	sl_type **at;
	char name[32];
	int i;
	if (p->naggs == r->cap) {
		int cap = r->cap ? 2 * r->cap : 8;
		sl_aggspec *m = realloc(p->aggs, (size_t)cap * sizeof *m);
		if (m == NULL) {
			sl_err_nomem(err);
			return NULL;
		}
		p->aggs = m;
		r->cap = cap;
	}
	s = &p->aggs[p->naggs++];
	memset(s, 0, sizeof *s);
	s->distinct = e->distinct;
	s->fname = strdup(canon(e->name, &s->distinct));
	s->sql = sql_of(e);
	if (s->fname == NULL || s->sql == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; s->fname[i]; i++)
		s->fname[i] = (char)tolower((unsigned char)s->fname[i]);
	if (spec_args(r, s, e, err) < 0)
		return NULL;
	at = calloc((size_t)s->nargs + 1, sizeof *at);
	if (at == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < s->nargs; i++)
		at[i] = s->args[i]->rtype;
	s->type = sl_aggfn_result_type(s->fname, at, s->nargs, s->sql, err);
	free(at);
	if (s->type == NULL) {
		sl_err_prefix(err, r->method);
		return NULL;
	}
	snprintf(name, sizeof name, "_a%d", p->naggs - 1);
	return sl_expr_col(name);
}

static int key_match(rw *r, const sl_expr *e)
{
	sl_expr *x;
	char *s;
	int k, hit = -1;
	if (r->p->nkeys == 0 || e->kind == SL_X_LIT || sl_expr_has_agg(e))
		return -1;
	x = sl_expr_resolve(e, r->in, NULL);
	if (x == NULL)
		return -1;
	s = sql_of(x);
	for (k = 0; s != NULL && k < r->p->nkeys && hit < 0; k++)
		if (strcmp(s, r->key_sql[k]) == 0)
			hit = k;
	free(s);
	sl_expr_free(x);
	return hit;
}

static sl_expr *not_grouped(rw *r, const sl_expr *e, sl_err *err)
{
	sl_expr *x = sl_plan_resolve(e, r->in, r->method, err);
	char *s;
	if (x == NULL)
		return NULL;
	sl_expr_free(x);
	s = sql_of(e);
	if (r->p->nkeys == 0)
		sl_err_set(
		    err, SL_EANALYSIS,
		    "%s: [MISSING_GROUP_BY] The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window functions using OVER clauses ('%s' is not an aggregate function)",
		    r->method, s ? s : "?");
	else
		sl_err_set(
		    err, SL_EANALYSIS,
		    "%s: expression '%s' is neither present in the group by, nor is it an aggregate function",
		    r->method, s ? s : "?");
	sl_err_hint(
	    err,
	    "add it to groupBy, or wrap it in first() if any value will do");
	free(s);
	return NULL;
}

static sl_expr *rewrite(rw *r, const sl_expr *e, sl_err *err)
{
	sl_expr *a[64], *o;
	char name[32];
	int i, k;
	if (e->kind == SL_X_CALL && sl_func_is_agg(e->name))
		return add_spec(r, e, err);
	if ((k = key_match(r, e)) >= 0) {
		snprintf(name, sizeof name, "_k%d", k);
		return sl_expr_col(name);
	}
	if (e->kind == SL_X_COL || e->kind == SL_X_FIELD)
		return not_grouped(r, e, err);
	if (e->kind == SL_X_STAR) {
		sl_err_set(err, SL_EANALYSIS,
			   "%s: invalid usage of '*' in expression", r->method);
		return NULL;
	}
	if (e->nargs == 0 || e->kind == SL_X_LIT)
		return sl_expr_ref((sl_expr *)e);
	if (e->nargs > 64) {
		sl_err_set(err, SL_EANALYSIS, "%s: expression too large",
			   r->method);
		return NULL;
	}
	for (i = 0; i < e->nargs; i++) {
		a[i] = rewrite(r, e->args[i], err);
		if (a[i] == NULL) {
			while (i-- > 0)
				sl_expr_free(a[i]);
			return NULL;
		}
	}
	o = sl_expr_rebuild(e, a);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

/* ------------------------------------------------------ construction */

static int build_keys(rw *r, sl_expr **keys, int nkeys, sl_err *err)
{
	sl_plan *p = r->p;
	int k;
	p->keys = calloc((size_t)nkeys + 1, sizeof *p->keys);
	r->key_sql = calloc((size_t)nkeys + 1, sizeof *r->key_sql);
	if (p->keys == NULL || r->key_sql == NULL)
		return sl_err_nomem(err);
	for (k = 0; k < nkeys; k++) {
		if (sl_expr_has_agg(keys[k])) {
			char *s = sql_of(keys[k]);
			sl_err_set(
			    err, SL_EANALYSIS,
			    "groupBy: aggregate functions are not allowed in GROUP BY, but found %s",
			    s ? s : "?");
			free(s);
			return SL_EANALYSIS;
		}
		p->keys[k] = sl_plan_resolve(keys[k], r->in, "groupBy", err);
		if (p->keys[k] == NULL)
			return err ? err->code : SL_EANALYSIS;
		p->nkeys = k + 1;
		if (!sl_type_keyable(p->keys[k]->rtype)) {
			char *s = sql_of(keys[k]);
			sl_err_set(
			    err, SL_EANALYSIS,
			    "groupBy: grouping by the ARRAY expression '%s' is not supported",
			    s ? s : "?");
			free(s);
			return SL_EANALYSIS;
		}
		r->key_sql[k] = sql_of(p->keys[k]);
		if (r->key_sql[k] == NULL)
			return sl_err_nomem(err);
	}
	return 0;
}

static sl_type *inter_schema(sl_plan *p, sl_err *err)
{
	int n = p->nkeys + p->naggs, i;
	char **names = calloc((size_t)n + 1, sizeof *names);
	sl_type **types = calloc((size_t)n + 1, sizeof *types);
	sl_type *st = NULL;
	char buf[32];
	if (names == NULL || types == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof buf, i < p->nkeys ? "_k%d" : "_a%d",
			 i < p->nkeys ? i : i - p->nkeys);
		names[i] = strdup(buf);
		types[i] = i < p->nkeys ? p->keys[i]->rtype
					: p->aggs[i - p->nkeys].type;
		if (names[i] == NULL)
			goto out;
	}
	st = sl_plan_struct(n, names, types, NULL, err);
out:
	if (names == NULL || types == NULL || (st == NULL && n > 0))
		sl_err_nomem(err);
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(types);
	return st;
}

/* Rewrite the outputs (keys first, then aggs) and resolve them. */
static int build_outputs(rw *r, sl_expr **aggs, int naggs, char **names,
			 sl_err *err)
{
	sl_plan *p = r->p;
	sl_expr **pre = calloc((size_t)naggs + 1, sizeof *pre);
	int i, rc = 0;
	if (pre == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < naggs && rc == 0; i++) {
		sl_expr *nm = normalize(aggs[i]);
		const sl_expr *body = nm;
		if (nm == NULL) {
			rc = sl_err_nomem(err);
			break;
		}
		names[p->nkeys + i] = sl_plan_expr_name(nm);
		while (body->kind == SL_X_ALIAS)
			body = body->args[0];
		pre[i] = rewrite(r, body, err);
		sl_expr_free(nm);
		if (pre[i] == NULL)
			rc = err ? err->code : SL_EANALYSIS;
	}
	if (rc == 0 && (p->inter = inter_schema(p, err)) == NULL)
		rc = SL_ENOMEM;
	for (i = 0; i < p->nkeys && rc == 0; i++) {
		names[i] = sl_plan_expr_name(p->keys[i]);
		p->post[i] = sl_plan_colref(p->inter, i, err);
		if (p->post[i] == NULL)
			rc = SL_ENOMEM;
	}
	for (i = 0; i < naggs && rc == 0; i++) {
		p->post[p->nkeys + i] =
		    sl_plan_resolve(pre[i], p->inter, r->method, err);
		if (p->post[p->nkeys + i] == NULL)
			rc = err ? err->code : SL_EANALYSIS;
	}
	for (i = 0; i < naggs; i++)
		sl_expr_free(pre[i]);
	free(pre);
	return rc;
}

static int build_schema(sl_plan *p, char **names, sl_err *err)
{
	int i, n = p->npost;
	sl_type **types = calloc((size_t)n + 1, sizeof *types);
	bool *nul = calloc((size_t)n + 1, sizeof *nul);
	if (types == NULL || nul == NULL) {
		free(types);
		free(nul);
		return sl_err_nomem(err);
	}
	for (i = 0; i < n; i++) {
		types[i] = p->post[i]->rtype;
		nul[i] = i < p->nkeys ? p->keys[i]->nullable : true;
	}
	for (i = p->nkeys; i < n; i++) { /* count is never NULL */
		int a = p->post[i]->kind == SL_X_COL
			    ? p->post[i]->idx - p->nkeys
			    : -1;
		if (a >= 0 && strcmp(p->aggs[a].fname, "count") == 0)
			nul[i] = false;
	}
	p->schema = sl_plan_struct(n, names, types, nul, err);
	free(types);
	free(nul);
	return p->schema ? 0 : SL_ENOMEM;
}

static sl_plan *agg_build(sl_plan *in, sl_expr **keys, int nkeys,
			  sl_expr **aggs, int naggs, const char *method,
			  sl_err *err)
{
	rw r;
	sl_plan *p = sl_plan_node_new(SL_P_AGGREGATE, err);
	char **names = calloc((size_t)(nkeys + naggs) + 1, sizeof *names);
	int i, rc = SL_ENOMEM;
	memset(&r, 0, sizeof r);
	if (p == NULL || names == NULL)
		goto out;
	p->nchild = 1;
	p->child[0] = sl_plan_ref(in);
	p->streaming = in->streaming;
	r.p = p;
	r.in = in->schema;
	r.method = method;
	p->post = calloc((size_t)(nkeys + naggs) + 1, sizeof *p->post);
	if (p->post == NULL)
		goto out;
	p->npost = nkeys + naggs;
	if ((rc = build_keys(&r, keys, nkeys, err)) < 0 ||
	    (rc = build_outputs(&r, aggs, naggs, names, err)) < 0 ||
	    (rc = build_schema(p, names, err)) < 0)
		goto out;
out:
	if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	if (rc < 0) {
		sl_plan_free(p);
		p = NULL;
	}
	for (i = 0; names && i < nkeys + naggs; i++)
		free(names[i]);
	free(names);
	for (i = 0; r.key_sql && i < nkeys; i++)
		free(r.key_sql[i]);
	free(r.key_sql);
	for (i = 0; i < nkeys; i++)
		sl_expr_free(keys[i]);
	for (i = 0; i < naggs; i++)
		sl_expr_free(aggs[i]);
	return p;
}

/* A sliding window() among the keys or aggregates becomes an EXPAND node
 * below the aggregate (plan_window.c). */
sl_plan *sl_plan_agg_build(sl_plan *in, sl_expr **keys, int nkeys,
			   sl_expr **aggs, int naggs, const char *method,
			   sl_err *err)
{
	int n = nkeys + naggs, i, rc;
	sl_expr **all = calloc((size_t)n + 1, sizeof *all);
	sl_plan *in2 = sl_plan_ref(in), *p = NULL;
	for (i = 0; all != NULL && i < n; i++)
		all[i] = i < nkeys ? keys[i] : aggs[i - nkeys];
	rc = all == NULL ? sl_err_nomem(err)
			 : sl_window_rewrite(&in2, all, n, method, err);
	for (i = 0; all != NULL && i < n; i++) {
		if (i < nkeys)
			keys[i] = all[i];
		else
			aggs[i - nkeys] = all[i];
	}
	free(all);
	if (rc == 0)
		p = agg_build(in2, keys, nkeys, aggs, naggs, method, err);
	else
		for (i = 0; i < n; i++) {
			sl_expr_free(i < nkeys ? keys[i] : aggs[i - nkeys]);
			if (i < nkeys)
				keys[i] = NULL;
			else
				aggs[i - nkeys] = NULL;
		}
	sl_plan_free(in2);
	return p;
}

sl_plan *sl_plan_aggregate(sl_plan *in, sl_expr **keys, int nkeys,
			   sl_expr **aggs, int naggs, sl_err *err)
{
	return sl_plan_agg_build(in, keys, nkeys, aggs, naggs, "agg", err);
}

void sl_plan_agg_release(sl_plan *p)
{
	int i, j;
	for (i = 0; p->keys && i < p->nkeys; i++)
		sl_expr_free(p->keys[i]);
	free(p->keys);
	for (i = 0; p->aggs && i < p->naggs; i++) {
		sl_aggspec *s = &p->aggs[i];
		for (j = 0; s->args && j < s->nargs; j++)
			sl_expr_free(s->args[j]);
		free(s->args);
		free(s->fname);
		free(s->sql);
		sl_type_free(s->type);
	}
	free(p->aggs);
	sl_type_free(p->inter);
	for (i = 0; p->post && i < p->npost; i++)
		sl_expr_free(p->post[i]);
	free(p->post);
}

/* The index of the session_window() key (plan_int.h). */
int sl_plan_session_key(const sl_plan *p)
{
	int k;
	for (k = 0; p->kind == SL_P_AGGREGATE && k < p->nkeys; k++) {
		const sl_expr *e = p->keys[k];
		while (e->kind == SL_X_ALIAS)
			e = e->args[0];
		if (e->kind == SL_X_CALL &&
		    strcmp(e->name, "session_window") == 0)
			return k;
	}
	return -1;
}
