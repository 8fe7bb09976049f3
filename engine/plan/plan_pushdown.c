/*
 * plan_pushdown: the filters a streaming join puts on its inputs, as
 * Spark's optimizer does (PushPredicateThroughJoin, InferFiltersFrom-
 * Constraints, and PushPredicateThroughNonJoin's EventTimeWatermark case).
 *
 * Why a workbench that has no optimizer needs this: a stream's state
 * metrics and watermarks are those of Spark's *optimized* plan.  In
 * StreamingLeftSemiJoinSuite's "self left semi join" the left side holds
 * only even ids because Spark infers `leftId % 2 = 0` from the right
 * side's filter and `leftId = rightId`; in StreamingOuterJoinSuite's
 * "left outer join with non-key condition violated" the right-only
 * conjunct `(rightValue < 300 OR rightValue > 1000)` runs below the right
 * side's withWatermark, so right rows it drops never advance the right
 * watermark (and the [70, 80) window stays held).
 *
 * What goes where, by join type (Spark's two rules):
 *   inner, cross, left semi: each one-side conjunct of the condition to
 *       its side; inferred filters on both sides
 *   left outer, left anti:   right-only conjuncts to the right side;
 *       inferred filters on the right side only
 *   right outer:             the mirror image
 *   full outer:              nothing
 * Inference: for an equi-key pair `a = b` of plain columns of one type,
 * every known predicate over column a alone (a FILTER below the side,
 * reached through projections, filters, withWatermark, sort, limit and
 * dropDuplicates, or a conjunct of the join condition) is copied with b
 * in place of a onto b's side, unless that side already has it.  One
 * substitution per equality, as Spark: a predicate over two key columns
 * is not carried over.  Spark's isnotnull(key) filters are not needed: a
 * NULL key is never held or matched (op_ssjoin.c, op_join.c).
 *
 * Placement: a pushed filter goes below the side's withWatermark (through
 * projections, substituting computed columns, and filters) unless it
 * reads the event-time column; otherwise it sits on top of the side.
 *
 * The join keeps its whole condition (a pushed conjunct is true for every
 * row that reaches it), so the join line of explain() and toPySpark stay
 * as written; the FILTER nodes made here are marked `pushed` and
 * toPySpark skips them.  Batch joins are left alone: their rows are the
 * same either way.  Deviation (NEEDSWORK): a user's filter written after
 * withWatermark, `df.withWatermark(...).where(...)`, is not moved below it
 * as Spark moves it.
 *
 * Everything here is best effort: out of memory while inferring leaves
 * the join as it was, never a wrong plan.
 */
#include "plan/plan_int.h"

#include <stdlib.h>
#include <string.h>

/* A predicate over the side's output that reads column `col` alone. */
typedef struct cons {
	sl_expr *e;
	int col;
} cons;
typedef struct conslist {
	cons *v;
	int n;
} conslist;

static void cl_release(conslist *l)
{
	int i;
	for (i = 0; i < l->n; i++)
		sl_expr_free(l->v[i].e);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* Add e (taken) to l; SL_ENOMEM frees it. */
static int cl_add(conslist *l, sl_expr *e, int col)
{
	cons *v;
	if (e == NULL)
		return SL_ENOMEM;
	v = realloc(l->v, (size_t)(l->n + 1) * sizeof *v);
	if (v == NULL) {
		sl_expr_free(e);
		return SL_ENOMEM;
	}
	l->v = v;
	v[l->n].e = e;
	v[l->n++].col = col;
	return 0;
}

/* The one column e reads: >= 0, -1 none, -2 several. */
static int one_col(const sl_expr *e)
{
	int i, c, r = -1;
	if (e->kind == SL_X_COL)
		return e->idx;
	for (i = 0; i < e->nargs; i++) {
		c = one_col(e->args[i]);
		if (c == -2 || (c >= 0 && r >= 0 && c != r))
			return -2;
		if (c >= 0)
			r = c;
	}
	return r;
}

static bool reads_col(const sl_expr *e, int col)
{
	int i;
	if (e->kind == SL_X_COL)
		return e->idx == col;
	for (i = 0; i < e->nargs; i++)
		if (reads_col(e->args[i], col))
			return true;
	return false;
}

int sl_plan_join_sides(const sl_expr *e, int nl)
{
	int i, m = 0;
	if (e->kind == SL_X_COL)
		return e->idx < nl ? 1 : 2;
	for (i = 0; i < e->nargs; i++)
		m |= sl_plan_join_sides(e->args[i], nl);
	return m;
}

static bool same_text(const sl_expr *a, const sl_expr *b)
{
	sl_buf x, y;
	bool eq;
	sl_buf_init(&x);
	sl_buf_init(&y);
	sl_expr_sql(a, &x);
	sl_expr_sql(b, &y);
	eq = !sl_buf_failed(&x) && !sl_buf_failed(&y) && x.len == y.len &&
	     memcmp(sl_buf_cstr(&x), sl_buf_cstr(&y), x.len) == 0;
	sl_buf_release(&x);
	sl_buf_release(&y);
	return eq;
}

static bool cl_has(const conslist *l, const sl_expr *e)
{
	int i;
	for (i = 0; i < l->n; i++)
		if (same_text(l->v[i].e, e))
			return true;
	return false;
}

/* e (borrowed, over `from`) with column `col` replaced by column `to` of
 * schema `into`; NULL when out of memory. */
static sl_expr *retarget(const sl_expr *e, int nfrom, int col,
			 const sl_type *into, int to)
{
	sl_expr **by = calloc((size_t)nfrom + 1, sizeof *by), *r = NULL;
	if (by == NULL)
		return NULL;
	by[col] = sl_plan_colref(into, to, NULL);
	if (by[col] != NULL)
		r = sl_expr_subst_cols(e, by, nfrom);
	sl_expr_free(by[col]);
	free(by);
	return r;
}

static int collect(const sl_plan *p, conslist *out);

/* The input column output k of projection p passes through (renamed or
 * not), or -1. */
static int passed(const sl_plan *p, int k)
{
	const sl_expr *x = p->exprs[k];
	if (p->src[k] >= 0)
		return p->src[k];
	while (x != NULL && x->kind == SL_X_ALIAS)
		x = x->args[0];
	return x != NULL && x->kind == SL_X_COL ? x->idx : -1;
}

/* A projection's constraints: its input's, on every column passed
 * through. */
static int collect_project(const sl_plan *p, conslist *out)
{
	const sl_plan *in = p->child[0];
	conslist below = { NULL, 0 };
	int i, k, rc = collect(in, &below);
	for (i = 0; i < below.n && rc == 0; i++)
		for (k = 0; k < p->nexprs && rc == 0; k++)
			if (passed(p, k) == below.v[i].col)
				rc = cl_add(out,
					    retarget(below.v[i].e,
						     in->schema->nfields,
						     below.v[i].col, p->schema,
						     k),
					    k);
	cl_release(&below);
	return rc;
}

/* The known one-column predicates over p's output (Spark's
 * plan.constraints, the part this engine can carry). */
static int collect(const sl_plan *p, conslist *out)
{
	const sl_expr **conj = NULL;
	int n = 0, i, c, rc;
	switch (p->kind) {
	case SL_P_FILTER:
		if ((rc = collect(p->child[0], out)) < 0 ||
		    (rc = sl_plan_split_and(p->cond, &conj, &n)) < 0)
			break;
		for (i = 0; i < n && rc == 0; i++)
			if ((c = one_col(conj[i])) >= 0)
				rc = cl_add(out, sl_expr_ref((sl_expr *)conj[i]),
					    c);
		break;
	case SL_P_WATERMARK:
	case SL_P_SORT:
	case SL_P_LIMIT:
	case SL_P_DEDUP: rc = collect(p->child[0], out); break;
	case SL_P_PROJECT:
		rc = p->gen_at < 0 ? collect_project(p, out) : 0;
		break;
	default: rc = 0; break;
	}
	free(conj);
	return rc;
}

/* ------------------------------------------------------ placement */

/* A withWatermark is reachable through filters and projections. */
static bool wm_path(const sl_plan *p)
{
	for (;;) {
		if (p->kind == SL_P_WATERMARK)
			return true;
		if (p->kind != SL_P_FILTER &&
		    !(p->kind == SL_P_PROJECT && p->gen_at < 0))
			return false;
		p = p->child[0];
	}
}

static sl_plan *filter_node(sl_plan *in, sl_expr *pred)
{
	sl_plan *f = sl_plan_node_new(SL_P_FILTER, NULL);
	if (f == NULL) {
		sl_expr_free(pred);
		return NULL;
	}
	f->nchild = 1;
	f->child[0] = sl_plan_ref(in);
	f->streaming = in->streaming;
	f->schema = sl_type_ref(in->schema);
	f->cond = pred;
	f->pushed = true;
	return f;
}

/* A copy of FILTER / PROJECT / WATERMARK node p over child c (taken). */
static sl_plan *clone_over(const sl_plan *p, sl_plan *c)
{
	sl_plan *q;
	int i;
	if (c == NULL || (q = sl_plan_node_new(p->kind, NULL)) == NULL) {
		sl_plan_free(c);
		return NULL;
	}
	q->nchild = 1;
	q->child[0] = c;
	q->streaming = p->streaming;
	q->schema = sl_type_ref(p->schema);
	q->cond = sl_expr_ref(p->cond);
	q->pushed = p->pushed;
	q->wm_col = p->wm_col;
	q->wm_delay_us = p->wm_delay_us;
	if (p->kind != SL_P_PROJECT)
		return q;
	q->exprs = calloc((size_t)p->nexprs + 1, sizeof *q->exprs);
	q->src = calloc((size_t)p->nexprs + 1, sizeof *q->src);
	if (q->exprs == NULL || q->src == NULL) {
		sl_plan_free(q);
		return NULL;
	}
	q->nexprs = p->nexprs;
	for (i = 0; i < p->nexprs; i++) {
		q->exprs[i] = sl_expr_ref(p->exprs[i]);
		q->src[i] = p->src[i];
	}
	return q;
}

/* pred (taken) over a projection's output, rewritten over its input. */
static sl_expr *below_project(const sl_plan *p, sl_expr *pred)
{
	sl_expr **by = calloc((size_t)p->nexprs + 1, sizeof *by), *r = NULL;
	int k;
	bool ok = by != NULL;
	for (k = 0; ok && k < p->nexprs; k++) {
		const sl_expr *x = p->exprs[k];
		while (x != NULL && x->kind == SL_X_ALIAS)
			x = x->args[0];
		by[k] = p->src[k] >= 0
			    ? sl_plan_colref(p->child[0]->schema, p->src[k],
					     NULL)
			    : sl_expr_ref((sl_expr *)x);
		ok = p->src[k] < 0 || by[k] != NULL;
	}
	if (ok)
		r = sl_expr_subst_cols(pred, by, p->nexprs);
	for (k = 0; by != NULL && k < p->nexprs; k++)
		sl_expr_free(by[k]);
	free(by);
	sl_expr_free(pred);
	return r;
}

/* p with pred (taken, over p's output) applied: a new reference, NULL
 * when out of memory. */
static sl_plan *push(sl_plan *p, sl_expr *pred)
{
	if (pred == NULL)
		return NULL;
	if (!wm_path(p))
		return filter_node(p, pred);
	switch (p->kind) {
	case SL_P_WATERMARK:
		if (reads_col(pred, p->wm_col))
			return filter_node(p, pred);
		return clone_over(p, filter_node(p->child[0], pred));
	case SL_P_FILTER: return clone_over(p, push(p->child[0], pred));
	default: /* PROJECT */
		return clone_over(p, push(p->child[0], below_project(p, pred)));
	}
}

/* ------------------------------------------------------ the join */

typedef struct jctx {
	const sl_plan *p;
	int nl;
	bool to[2];      /* side s may take filters */
	conslist know[2]; /* what is known of each side */
	conslist put[2];  /* what to push onto each side */
} jctx;

/* Conjunct e (borrowed, over left ++ right) reads side s alone: note it
 * as known, and to push where the join type lets it. */
static int one_side(jctx *j, const sl_expr *e, int s)
{
	const sl_type *ss = j->p->child[s]->schema;
	sl_expr **by, *x;
	int i, c, rc = 0;
	if (s == 0) {
		x = sl_expr_ref((sl_expr *)e);
	} else {
		by = calloc((size_t)j->nl + (size_t)ss->nfields + 1,
			    sizeof *by);
		if (by == NULL)
			return SL_ENOMEM;
		for (i = 0; i < ss->nfields && rc == 0; i++)
			if ((by[j->nl + i] = sl_plan_colref(ss, i, NULL)) ==
			    NULL)
				rc = SL_ENOMEM;
		x = rc == 0 ? sl_expr_subst_cols(e, by, j->nl + ss->nfields)
			    : NULL;
		for (i = 0; i < ss->nfields; i++)
			sl_expr_free(by[j->nl + i]);
		free(by);
	}
	if (x == NULL)
		return SL_ENOMEM;
	if ((c = one_col(x)) >= 0 &&
	    cl_add(&j->know[s], sl_expr_ref(x), c) < 0) {
		sl_expr_free(x);
		return SL_ENOMEM;
	}
	if (j->to[s] && x->rtype->kind == SL_BOOLEAN)
		return cl_add(&j->put[s], x, one_col(x));
	sl_expr_free(x);
	return 0;
}

static int condition(jctx *j)
{
	const sl_expr **conj = NULL;
	int n = 0, i, m, rc = 0;
	if (j->p->residual == NULL)
		return 0;
	if (sl_plan_split_and(j->p->residual, &conj, &n) < 0)
		rc = SL_ENOMEM;
	for (i = 0; i < n && rc == 0; i++) {
		m = sl_plan_join_sides(conj[i], j->nl);
		if (m == 1 || m == 2)
			rc = one_side(j, conj[i], m - 1);
	}
	free(conj);
	return rc;
}

/* Key pair k: what is known of one key column, onto the other side. */
static int infer_pair(jctx *j, int k)
{
	const sl_expr *key[2] = { j->p->lkeys[k], j->p->rkeys[k] };
	int s, i, t;
	if (key[0]->kind != SL_X_COL || key[1]->kind != SL_X_COL ||
	    !sl_type_equal(key[0]->rtype, key[1]->rtype))
		return 0;
	for (s = 0; s < 2; s++) {
		const conslist *from = &j->know[s];
		t = 1 - s;
		if (!j->to[t])
			continue;
		for (i = 0; i < from->n; i++) {
			sl_expr *x;
			if (from->v[i].col != key[s]->idx)
				continue;
			x = retarget(from->v[i].e,
				     j->p->child[s]->schema->nfields,
				     key[s]->idx, j->p->child[t]->schema,
				     key[t]->idx);
			if (x == NULL)
				return SL_ENOMEM;
			if (cl_has(&j->know[t], x) || cl_has(&j->put[t], x)) {
				sl_expr_free(x);
				continue;
			}
			if (cl_add(&j->put[t], x, key[t]->idx) < 0)
				return SL_ENOMEM;
		}
	}
	return 0;
}

/* Side s with every filter of j->put[s]; false when out of memory. */
static bool place(jctx *j, sl_plan *p, int s)
{
	sl_plan *side = sl_plan_ref(p->child[s]), *next;
	int i;
	for (i = 0; i < j->put[s].n; i++) {
		next = push(side, sl_expr_ref(j->put[s].v[i].e));
		sl_plan_free(side);
		if ((side = next) == NULL)
			return false;
	}
	sl_plan_free(p->child[s]);
	p->child[s] = side;
	return true;
}

int sl_plan_join_pushdown(sl_plan *p)
{
	jctx j;
	int s, k, rc;
	if (!p->streaming || p->jtype == SL_JOIN_FULL)
		return 0;
	memset(&j, 0, sizeof j);
	j.p = p;
	j.nl = p->child[0]->schema->nfields;
	j.to[0] = p->jtype != SL_JOIN_LEFT && p->jtype != SL_JOIN_ANTI;
	j.to[1] = p->jtype != SL_JOIN_RIGHT;
	rc = collect(p->child[0], &j.know[0]);
	if (rc == 0)
		rc = collect(p->child[1], &j.know[1]);
	if (rc == 0)
		rc = condition(&j);
	for (k = 0; k < p->njkeys && rc == 0; k++)
		rc = infer_pair(&j, k);
	for (s = 0; s < 2 && rc == 0; s++)
		if (j.put[s].n > 0 && !place(&j, p, s))
			rc = SL_ENOMEM;
	for (s = 0; s < 2; s++) {
		cl_release(&j.know[s]);
		cl_release(&j.put[s]);
	}
	return rc;
}
