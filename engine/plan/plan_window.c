/*
 * plan_window: sliding time windows (Spark's TimeWindowing rule), the
 * planner's side: the rewrite into an EXPAND node and which aggregates
 * may take slices.  The EXPAND operator and the event-time index are
 * exec/window.c.
 *
 * window(ts, size, slide, startTime) with slide < size puts a row into
 * ceil(size / slide) candidate windows; the planner rewrites such a call
 * (sl_window_rewrite, called by the project and aggregate constructors)
 * into an EXPAND node below the node that used it, which adds the
 * `window` struct column (start, end) with one output row per window that
 * holds the row, and the call becomes a reference to that column.  So a
 * sliding window is a column like any other for the operators above it,
 * in batch and streaming plans alike.  Tumbling windows (slide == size)
 * are evaluated in place by func.c; the rewrite puts a FILTER
 * isnotnull(time) below the node instead, as Spark's rule does, so a row
 * without a time has no window in select/withColumn/groupBy alike.  Two
 * different window specs in one node are Spark's "cartesian product"
 * error.
 *
 * Windows are half-open [start, end), aligned to the epoch shifted by
 * startTime: the latest start for ts is ts - floormod(ts - startTime,
 * slide), and the candidates go back by slide; a candidate is kept when
 * start <= ts < end.  Null timestamps give no row (Spark filters them).
 * Everything is in microseconds, so negative times and sub-millisecond
 * windows work.
 *
 * Under a streaming aggregate that slices (op_stream.c), the EXPAND emits
 * each row once with its slice [latest start, + slide) instead, and
 * sl_window_merge_slices turns the aggregate's slice groups into window
 * groups.
 */
#include "plan/plan_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/timeutil.h"

int64_t sl_window_first_start(int64_t ts, int64_t slide, int64_t start)
{
	return ts - sl_floormod(ts - start, slide);
}

/* ------------------------------------------------------------- node */

static bool is_window_call(const sl_expr *e)
{
	return e->kind == SL_X_CALL && e->name != NULL &&
	       strcmp(e->name, "window") == 0 && e->nargs >= 2;
}

/* The first window() call in e (unresolved), resolved, or NULL; only a
 * sliding one when `sliding`.  *rc < 0 on a resolution error. */
static sl_expr *find_window(const sl_expr *e, const sl_type *st,
			    const char *method, bool sliding, int *rc,
			    sl_err *err)
{
	sl_expr *r;
	int64_t size, slide, start;
	int i;
	if (e == NULL || *rc < 0)
		return NULL;
	if (is_window_call(e)) {
		if ((r = sl_plan_resolve(e, st, method, err)) == NULL) {
			*rc = err ? err->code : SL_EANALYSIS;
			return NULL;
		}
		if (sl_window_params(r, &size, &slide, &start, NULL) == 0 &&
		    (!sliding || slide < size))
			return r;
		sl_expr_free(r);
		return NULL;
	}
	for (i = 0; i < e->nargs; i++) {
		r = find_window(e->args[i], st, method, sliding, rc, err);
		if (r != NULL || *rc < 0)
			return r;
	}
	return NULL;
}

static sl_expr *find_sliding(const sl_expr *e, const sl_type *st,
			     const char *method, int *rc, sl_err *err)
{
	return find_window(e, st, method, true, rc, err);
}

static void expand_release(sl_plan *p)
{
	(void)p; /* exprs[0] (the time expression) is freed by plan.c */
}

/* EXPAND over in for the resolved sliding call w (borrowed). */
static sl_plan *expand_node(sl_plan *in, const sl_expr *w, sl_err *err)
{
	sl_plan *p = sl_plan_node_new(SL_P_EXPAND, err);
	const sl_type *st = in->schema;
	sl_type *t;
	int i;
	if (p == NULL)
		return NULL;
	p->release = expand_release;
	p->nchild = 1;
	p->child[0] = sl_plan_ref(in);
	p->streaming = in->streaming;
	sl_window_params(w, &p->win_size, &p->win_slide, &p->win_start, NULL);
	p->exprs = calloc(1, sizeof *p->exprs);
	t = sl_type_struct_new(st->nfields + 1);
	if (p->exprs == NULL || t == NULL)
		goto oom;
	p->exprs[0] = sl_expr_ref(w->args[0]);
	p->nexprs = 1;
	p->win_ts = w->args[0]->kind == SL_X_COL ? w->args[0]->idx : -1;
	p->schema = t;
	/* A window of windows (window(window, ...), sliding): the input's
	 * own `window` column is hidden under another name, so `window`
	 * above names the new one (Spark tells them apart by exprId). */
	for (i = 0; i < st->nfields; i++)
		if (sl_type_set_field(t, i,
				      strcasecmp(st->fields[i].name, "window")
					      ? st->fields[i].name
					      : "__input_window",
				      sl_type_ref(st->fields[i].type),
				      st->fields[i].nullable) < 0)
			goto oom;
	if (sl_type_set_field(t, i, "window", sl_type_ref(w->rtype), false) < 0)
		goto oom;
	return p;
oom:
	sl_plan_free(p);
	sl_err_nomem(err);
	return NULL;
}

/* Same spec (size, slide, start and the same time column)? */
static bool same_window(const sl_expr *a, const sl_expr *b)
{
	int64_t s1, l1, t1, s2, l2, t2;
	sl_buf x, y;
	bool eq;
	sl_window_params(a, &s1, &l1, &t1, NULL);
	sl_window_params(b, &s2, &l2, &t2, NULL);
	if (s1 != s2 || l1 != l2 || t1 != t2)
		return false;
	sl_buf_init(&x);
	sl_buf_init(&y);
	sl_expr_sql(a->args[0], &x);
	sl_expr_sql(b->args[0], &y);
	eq = strcmp(sl_buf_cstr(&x), sl_buf_cstr(&y)) == 0;
	sl_buf_release(&x);
	sl_buf_release(&y);
	return eq;
}

/* e with every sliding window() call replaced by the column `window`
 * (new reference), or NULL (out of memory / unsupported node). */
static sl_expr *replace(const sl_expr *e, const sl_type *st, sl_err *err)
{
	sl_expr *a[2] = { NULL, NULL }, **args, *r = NULL;
	int i, rc = 0;
	sl_expr *w = NULL;
	if (is_window_call(e) &&
	    (w = find_sliding(e, st, NULL, &rc, NULL)) != NULL) {
		sl_expr_free(w);
		return sl_expr_col("window");
	}
	w = find_sliding(e, st, NULL, &rc, NULL);
	if (w == NULL)
		return sl_expr_ref((sl_expr *)e);
	sl_expr_free(w);
	switch (e->kind) {
	case SL_X_ALIAS:
	case SL_X_FIELD:
	case SL_X_CAST:
	case SL_X_NOT:
	case SL_X_NEG:
	case SL_X_ISNULL:
	case SL_X_ISNOTNULL:
	case SL_X_SORT:
		if ((a[0] = replace(e->args[0], st, err)) == NULL)
			return NULL;
		r = e->kind == SL_X_ALIAS   ? sl_expr_alias(a[0], e->name)
		    : e->kind == SL_X_FIELD ? sl_expr_field(a[0], e->name)
		    : e->kind == SL_X_CAST  ? sl_expr_cast(a[0], e->type)
		    : e->kind == SL_X_SORT  ? sl_expr_sort(a[0], e->op)
					    : sl_expr_unary(e->kind, a[0]);
		break;
	case SL_X_BINOP:
		if ((a[0] = replace(e->args[0], st, err)) == NULL)
			return NULL;
		if ((a[1] = replace(e->args[1], st, err)) == NULL) {
			sl_expr_free(a[0]);
			return NULL;
		}
		r = sl_expr_binop(e->op, a[0], a[1]);
		break;
	case SL_X_CALL:
		if ((args = calloc((size_t)e->nargs + 1, sizeof *args)) == NULL)
			break;
		for (i = 0; i < e->nargs; i++)
			if ((args[i] = replace(e->args[i], st, err)) == NULL) {
				while (i-- > 0)
					sl_expr_free(args[i]);
				free(args);
				return NULL;
			}
		r = e->distinct ? sl_expr_call_distinct(e->name, args, e->nargs)
				: sl_expr_call(e->name, args, e->nargs);
		free(args);
		break;
	default:
		sl_err_set(
		    err, SL_EANALYSIS,
		    "window: a sliding window() is not supported inside this expression");
		return NULL;
	}
	if (r == NULL && (err == NULL || err->code == 0))
		sl_err_nomem(err);
	return r;
}

/* Every window() call in e against the first one found (*w resolved,
 * *orig the unresolved call): Spark's error for a second, different spec
 * (TimeWindowing would need a cartesian product). */
static int collect(const sl_expr *e, const sl_type *st, const char *method,
		   sl_expr **w, const sl_expr **orig, sl_err *err)
{
	int i, rc = 0;
	sl_expr *x;
	if (e == NULL)
		return 0;
	if (!is_window_call(e)) {
		for (i = 0; i < e->nargs && rc == 0; i++)
			rc = collect(e->args[i], st, method, w, orig, err);
		return rc;
	}
	if ((x = find_window(e, st, method, false, &rc, err)) == NULL)
		return rc;
	if (*w == NULL) {
		*w = x;
		*orig = e;
		return 0;
	}
	rc =
	    same_window(*w, x)
		? 0
		: sl_err_set(
		      err, SL_EANALYSIS,
		      "Multiple time/session window expressions would result in a cartesian product of rows, therefore they are currently not supported.");
	sl_expr_free(x);
	return rc;
}

/* Tumbling: a FILTER isnotnull(time) over *in (Spark's TimeWindowing
 * keeps the call and drops rows without a time "for backwards
 * compatibility"); func.c evaluates the window() in place.  The time is
 * filtered as the window sees it: a string cast to a timestamp. */
static int tumbling_filter(sl_plan **in, const sl_expr *w, const sl_expr *orig,
			   sl_err *err)
{
	const sl_expr *t = w->args[0];
	sl_expr *a = sl_expr_ref(orig->args[0]), *cond;
	sl_plan *f;
	if (a != NULL && t->kind == SL_X_CAST && t->op == 1) /* implicit */
		a = sl_expr_cast(a, sl_type_prim(SL_TIMESTAMP));
	cond = a ? sl_expr_unary(SL_X_ISNOTNULL, a) : NULL;
	if (cond == NULL)
		return sl_err_nomem(err);
	if ((f = sl_plan_filter(*in, cond, err)) == NULL)
		return err && err->code ? err->code : SL_ENOMEM;
	sl_plan_free(*in);
	*in = f;
	return 0;
}

int sl_window_rewrite(sl_plan **in, sl_expr **exprs, int n, const char *method,
		      sl_err *err)
{
	sl_expr *w = NULL, *x;
	const sl_expr *orig = NULL;
	const sl_type *st = (*in)->schema;
	int64_t size, slide, start;
	sl_plan *ex;
	int i, rc = 0;
	for (i = 0; i < n && rc == 0; i++)
		rc = collect(exprs[i], st, method, &w, &orig, err);
	if (rc < 0 || w == NULL) {
		sl_expr_free(w);
		return rc;
	}
	sl_window_params(w, &size, &slide, &start, NULL);
	if (slide >= size) {
		rc = tumbling_filter(in, w, orig, err);
		sl_expr_free(w);
		return rc;
	}
	/* replace against the input schema before the node exists */
	for (i = 0; i < n; i++) {
		if ((x = replace(exprs[i], st, err)) == NULL) {
			sl_expr_free(w);
			return err && err->code ? err->code : SL_ENOMEM;
		}
		sl_expr_free(exprs[i]);
		exprs[i] = x;
	}
	ex = expand_node(*in, w, err);
	sl_expr_free(w);
	if (ex == NULL)
		return err ? err->code : SL_ENOMEM;
	sl_plan_free(*in);
	*in = ex;
	return 0;
}

/* ------------------------------------------------------------ slicing */

/* Does expression e read input column col? */
static bool reads_col(const sl_expr *e, int col)
{
	int i;
	if (e == NULL)
		return false;
	if (e->kind == SL_X_COL && e->idx == col)
		return true;
	for (i = 0; i < e->nargs; i++)
		if (reads_col(e->args[i], col))
			return true;
	return false;
}

/* Gives aggregate s the row-by-row result whatever the order its rows'
 * partial buffers are merged in?  count; sum of integers (wrapping adds
 * commute); avg of INT (its double sum is exact below 2^53); min/max of
 * non-floating values (a -0.0 and a 0.0 tie); approx_count_distinct
 * (registers take the max).  Not first/last/min_by/max_by (row order),
 * nor floating sums (rounding). */
static bool order_free(const sl_aggspec *s)
{
	const char *f = s->fname;
	sl_kind k = s->nargs > 0 ? s->args[0]->rtype->kind : SL_NULLTYPE;
	if (s->distinct)
		return false;
	if (strcmp(f, "count") == 0 || strcmp(f, "approx_count_distinct") == 0)
		return true;
	if (strcmp(f, "sum") == 0)
		return k == SL_INT || k == SL_BIGINT;
	if (strcmp(f, "avg") == 0 || strcmp(f, "mean") == 0)
		return k == SL_INT;
	if (strcmp(f, "min") == 0 || strcmp(f, "max") == 0)
		return k == SL_BOOLEAN || k == SL_INT || k == SL_BIGINT ||
		       k == SL_STRING || k == SL_BINARY || k == SL_TIMESTAMP;
	return false;
}

/* Slicing's conditions (window.h); order_free aggregates only when
 * mergeable (the byte path's slices merge partial buffers; the live
 * table folds each row into each of its windows in the expanded order,
 * so any aggregate does). */
static int slice_key(const sl_plan *p, const sl_agg_et *et, bool mergeable)
{
	const sl_plan *c = p->nchild == 1 ? p->child[0] : NULL;
	int wcol, k, i, j, wkey = -1;
	if (p->kind != SL_P_AGGREGATE || c == NULL || c->kind != SL_P_EXPAND ||
	    c->win_ts < 0 || c->win_slide <= 0 ||
	    c->win_size % c->win_slide != 0)
		return -1;
	wcol = c->schema->nfields - 1;
	for (k = 0; k < p->nkeys; k++) {
		const sl_expr *e = p->keys[k];
		while (e->kind == SL_X_ALIAS)
			e = e->args[0];
		if (e->kind == SL_X_COL && e->idx == wcol && wkey < 0)
			wkey = k;
		else if (reads_col(e, wcol))
			return -1;
	}
	for (i = 0; i < p->naggs; i++) {
		if (mergeable && !order_free(&p->aggs[i]))
			return -1;
		for (j = 0; j < p->aggs[i].nargs; j++)
			if (reads_col(p->aggs[i].args[j], wcol))
				return -1;
	}
	if (wkey < 0 || (et->kind != SL_ET_NONE &&
			 (et->kind != SL_ET_WCOL || et->col != wcol)))
		return -1;
	return wkey;
}

int sl_window_slice_key(const sl_plan *p, const sl_agg_et *et)
{
	return slice_key(p, et, true);
}

int sl_window_row_slice_key(const sl_plan *p, const sl_agg_et *et)
{
	return slice_key(p, et, false);
}
