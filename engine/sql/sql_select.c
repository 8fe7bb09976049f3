/*
 * sql_select: a SELECT's plan (sql_int.h), in Spark's order: WHERE
 * (filter) -> GROUP BY/aggregates (aggregate) or the select list
 * (project) -> HAVING (filter) -> DISTINCT (dedup) -> ORDER BY (sort) ->
 * LIMIT, and the parsing of its lists.  HAVING and ORDER BY see the
 * select list's names; an expression over anything else (an input
 * column, an aggregate not selected) becomes a hidden column (__h0,
 * __o1, ...) of the projection or aggregate, dropped after use, as
 * Spark's analyzer adds missing attributes.
 *
 * GROUP BY keys are expressions, 1-based ordinals of the select list, or
 * its aliases; a select item equal to a key names the key, so
 * `SELECT window(ts, '5 minutes'), k, count(*) FROM v GROUP BY 1, 2` is
 * the AGGREGATE node groupBy(window(...), "k"):agg(count("*")) builds, and
 * streams the same (plan_agg.c finds its event time through the window
 * key).  Everything else about aggregates (keys inside expressions,
 * "neither present in the group by") is plan_agg.c's.
 */
#include "sql/sql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --------------------------------------------------------- SELECT */

void sql_sel_release(sql_sel *q)
{
	int i;
	sql_free_exprs(q->raw, q->nraw);
	for (i = 0; i < q->nraw; i++)
		free(q->alias[i]);
	free(q->raw);
	free(q->alias);
	sql_free_exprs(q->group, q->ngroup);
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
static int add_item(sql_tr *t, sql_sel *q, sl_expr *e, const char *name,
		    bool hidden)
{
	sql_item *m;
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

int sql_parse_select_list(sql_tr *t, sql_sel *q)
{
	do {
		sl_expr *e = sql_expr(t);
		char *a;
		char **m;
		bool fail = false;
		if (e == NULL)
			return -1;
		a = sql_opt_alias(t, &fail);
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
	} while (sql_accept_op(t, ","));
	return 0;
}

int sql_parse_group(sql_tr *t, sql_sel *q)
{
	do {
		sl_expr *g = sql_expr(t);
		if (g == NULL)
			return -1;
		if (push_expr(&q->group, &q->ngroup, g) < 0)
			return sl_err_nomem(t->err);
	} while (sql_accept_op(t, ","));
	return 0;
}

int sql_parse_order(sql_tr *t, int *n, sql_order **keys)
{
	do {
		sql_order *m;
		sl_expr *e = sql_expr(t);
		int flags = 0;
		if (e == NULL)
			return -1;
		if (sql_accept_kw(t, "desc"))
			flags |= SL_SORT_DESC;
		else
			sql_accept_kw(t, "asc");
		if (sql_accept_kw(t, "nulls")) {
			if (sql_accept_kw(t, "first"))
				flags |= SL_SORT_NULLS_FIRST;
			else if (sql_accept_kw(t, "last"))
				flags |= SL_SORT_NULLS_LAST;
			else {
				sl_expr_free(e);
				return sql_syntax(t);
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
	} while (sql_accept_op(t, ","));
	return 0;
}

int sql_parse_limit(sql_tr *t, int64_t *limit)
{
	const sl_sqltok *k = sql_tk(t, 0);
	char *end;
	long long v;
	if (k->kind != SL_TOK_INT)
		return sql_syntax(t);
	v = strtoll(k->text, &end, 10);
	if (*end != '\0' || v < 0)
		return sql_syntax(t);
	*limit = v;
	sql_skip(t, 1);
	return 0;
}

/* The select list over the scope: stars expanded, names given. */
static int expand_items(sql_tr *t, sql_sel *q, const sql_scope *s)
{
	int i, j;
	for (i = 0; i < q->nraw; i++) {
		const sl_expr *r = q->raw[i];
		if (r->kind == SL_X_STAR) {
			int hits = 0;
			for (j = 0; j < s->n; j++) {
				const sql_col *c = &s->c[j];
				sl_expr *e;
				/* t.* keeps t's copy of a USING column */
				if ((c->hidden && r->name == NULL) ||
				    (r->name != NULL &&
				     (c->qual == NULL ||
				      strcasecmp(c->qual, r->name) != 0)))
					continue;
				if ((e = sl_expr_col(c->in)) == NULL ||
				    add_item(t, q, e, c->name, false) < 0)
					return sql_fail_plan(t), -1;
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
				return sql_fail_plan(t), -1;
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
static sl_expr *over_output(sql_tr *t, sql_sel *q, const sql_scope *s,
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

static bool has_agg_items(const sql_sel *q)
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
static sl_expr *group_key(sql_tr *t, sql_sel *q, const sql_scope *s,
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
static sl_plan *plan_aggregate(sql_tr *t, sql_sel *q, const sql_scope *s,
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
		keys[k] = sql_named(keys[k], kname[k]);
		if (keys[k] == NULL)
			goto nomem;
	}
	for (i = 0; i < q->nit; i++)
		if (q->it[i].key < 0) {
			aggs[na] = sql_named(sl_expr_ref(q->it[i].e), q->it[i].name);
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
				sql_free_exprs(cols, i);
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
		sql_free_exprs(keys, nk);
	sql_free_exprs(aggs, na);
	for (k = 0; kname != NULL && k < nk; k++)
		free(kname[k]);
	free(kname);
	free(keys);
	free(aggs);
	free(order);
	return p;
}

/* The select list as a projection (none when it is the input as is). */
static sl_plan *plan_project(sql_tr *t, sql_sel *q, sl_plan *in)
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
		return sql_fail_plan(t);
	for (i = 0; i < q->nit; i++)
		if ((ex[i] = sql_named(sl_expr_ref(q->it[i].e), q->it[i].name)) ==
		    NULL) {
			sql_free_exprs(ex, i);
			free(ex);
			return sql_fail_plan(t);
		}
	p = sl_plan_project(in, ex, q->nit, t->err);
	free(ex);
	return p;
}

int sql_plan_sort(sql_tr *t, sl_plan **p, sl_expr **over, int n,
		     const sql_order *ok)
{
	sl_expr **keys = calloc((size_t)n + 1, sizeof *keys);
	int i;
	if (keys == NULL)
		return sl_err_nomem(t->err);
	for (i = 0; i < n; i++) {
		keys[i] = sl_expr_sort(over[i], ok[i].flags);
		over[i] = NULL;
		if (keys[i] == NULL) {
			sql_free_exprs(keys, i);
			free(keys);
			return sl_err_nomem(t->err);
		}
	}
	i = sql_step(p, sl_plan_sort(*p, keys, n, t->err));
	free(keys);
	return i;
}

/* ORDER BY k (a 1-based ordinal of the output) -> its name */
sl_expr *sql_ordinal(sql_tr *t, const sl_expr *e, const sl_type *out,
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

sl_plan *sql_plan_select(sql_tr *t, sql_sel *q, sql_rel *from)
{
	sl_plan *p = sl_plan_ref(from->p);
	sl_expr *having = NULL, **ord = NULL;
	int nvis, i;
	bool agg;
	if (q->where != NULL) {
		sl_expr *c = sql_rewrite(t, &from->s, q->where, false);
		if (c == NULL || sql_where_subqueries(t, &p, &c) < 0 ||
		    (c != NULL &&
		     sql_step(&p, sl_plan_filter(p, c, t->err)) < 0))
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
	if (sql_step(&p, agg ? plan_aggregate(t, q, &from->s, p, nvis)
			 : plan_project(t, q, p)) < 0)
		goto fail;
	if (having != NULL) {
		i = sql_step(&p, sl_plan_filter(p, having, t->err));
		having = NULL;
		if (i < 0)
			goto fail;
	}
	if (q->distinct) {
		const char *names[256];
		int n = 0;
		for (i = 0; i < nvis && n < 256; i++)
			names[n++] = q->it[i].name;
		if (sql_step(&p, sl_plan_dedup(p, names, q->nit > nvis ? n : 0,
					   t->err)) < 0)
			goto fail;
	}
	for (i = 0; i < q->norder; i++)
		if (ord[i] == NULL &&
		    (ord[i] = sql_ordinal(t, q->order[i].e, sl_plan_schema(p),
				      nvis)) == NULL)
			goto fail;
	if (q->norder > 0 && sql_plan_sort(t, &p, ord, q->norder, q->order) < 0)
		goto fail;
	if (q->nit > nvis) {
		const char *names[256];
		int n = 0;
		for (i = nvis; i < q->nit && n < 256; i++)
			names[n++] = q->it[i].name;
		if (sql_step(&p, sl_plan_drop(p, names, n, t->err)) < 0)
			goto fail;
	}
	if (q->limit >= 0 &&
	    sql_step(&p, sl_plan_limit(p, q->limit, t->err)) < 0)
		goto fail;
	sql_free_exprs(ord, q->norder);
	free(ord);
	return p;
nomem:
	sl_err_nomem(t->err);
fail:
	sl_expr_free(having);
	if (ord != NULL)
		sql_free_exprs(ord, q->norder);
	free(ord);
	sl_plan_free(p);
	return sql_fail_plan(t);
}

