/*
 * op_join: the JOIN node's operator, a broadcast hash join that builds on
 * the right side (the node's analysis: plan/plan_join.c).
 *
 * The right (build) side is buffered until its finish, its keys go into a
 * group table (hash.c) with chains of right rows per key (rows with a NULL
 * key never match and are left out).  Each pushed left batch is probed:
 * candidate (left row, right row) pairs, the residual evaluated over them
 * in one batch, then the join type decides what is emitted.  Right and
 * full joins remember matched right rows and emit the unmatched ones,
 * null-extended, when the left side finishes.
 */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/func.h"
#include "exec/hash.h"

/* ------------------------------------------------------------ operator */

typedef struct joinst {
	int bside; /* the build side: 1 (right), or 0 for the
				 static left of a stream-static join */
	int nb, cap;
	sl_batch **bs;   /* right batches until the build */
	sl_batch *right; /* the build side, all rows */
	sl_col **rkc;    /* its evaluated keys */
	sl_hash_groups *tab;
	int32_t *head, *next; /* chains of right rows per key */
	uint8_t *matched;     /* right rows matched (right/full joins) */
} joinst;

/* "left"/"right" in the code below mean probe/build side; with the build
 * on the plan's left (bside 0) the plan's sides and the join type swap. */
static bool swapped(const sl_op *op)
{
	return ((const joinst *)op->state)->bside == 0;
}

static sl_join_type eff_type(const sl_op *op)
{
	sl_join_type t = op->plan->jtype;
	if (!swapped(op))
		return t;
	return t == SL_JOIN_RIGHT  ? SL_JOIN_LEFT
	       : t == SL_JOIN_LEFT ? SL_JOIN_RIGHT
				   : t;
}

static sl_expr **probe_keys(const sl_op *op)
{
	return swapped(op) ? op->plan->rkeys : op->plan->lkeys;
}

static sl_expr **build_keys(const sl_op *op)
{
	return swapped(op) ? op->plan->lkeys : op->plan->rkeys;
}

/* Pairs being built for one left batch. */
typedef struct pairs {
	int64_t n, cap;
	int64_t *l, *r;
} pairs;

static int pairs_add(pairs *pr, int64_t l, int64_t r)
{
	if (pr->n == pr->cap) {
		int64_t cap = pr->cap ? 2 * pr->cap : 1024;
		int64_t *a = realloc(pr->l, (size_t)cap * sizeof *a), *b;
		if (a != NULL)
			pr->l = a;
		b = realloc(pr->r, (size_t)cap * sizeof *b);
		if (b != NULL)
			pr->r = b;
		if (a == NULL || b == NULL)
			return SL_ENOMEM;
		pr->cap = cap;
	}
	pr->l[pr->n] = l;
	pr->r[pr->n++] = r;
	return 0;
}

static int build(sl_op *op, sl_err *err)
{
	const sl_plan *p = op->plan;
	joinst *st = op->state;
	int32_t *gids = NULL;
	int64_t i, n;
	sl_type **kt;
	int k, rc = SL_ENOMEM;
	st->right =
	    sl_batch_concat(st->bs, st->nb, p->child[st->bside]->schema, err);
	for (k = 0; k < st->nb; k++)
		sl_batch_free(st->bs[k]);
	st->nb = 0;
	if (st->right == NULL)
		return err ? err->code : SL_ENOMEM;
	n = st->right->nrows;
	st->matched = calloc((size_t)n + 1, 1);
	if (st->matched == NULL)
		return sl_err_nomem(err);
	if (p->njkeys == 0)
		return 0;
	st->rkc = sl_expr_eval_n(build_keys(op), p->njkeys, st->right, err);
	kt = calloc((size_t)p->njkeys + 1, sizeof *kt);
	if (st->rkc == NULL || kt == NULL) {
		free(kt);
		return st->rkc ? sl_err_nomem(err)
			       : (err ? err->code : SL_ENOMEM);
	}
	for (k = 0; k < p->njkeys; k++)
		kt[k] = build_keys(op)[k]->rtype;
	st->tab = sl_hash_groups_new(kt, p->njkeys, err);
	free(kt);
	gids = malloc((size_t)(n + 1) * sizeof *gids);
	st->next = malloc((size_t)(n + 1) * sizeof *st->next);
	if (st->tab == NULL || gids == NULL || st->next == NULL)
		goto out;
	if ((rc = sl_hash_groups_insert(st->tab, st->rkc, n, true, gids, err)) <
	    0)
		goto out;
	rc = SL_ENOMEM;
	st->head = malloc((size_t)(sl_hash_groups_count(st->tab) + 1) *
			  sizeof *st->head);
	if (st->head == NULL)
		goto out;
	memset(st->head, 0xff,
	       (size_t)(sl_hash_groups_count(st->tab) + 1) * sizeof *st->head);
	for (i = n - 1; i >= 0; i--) { /* chains in right-row order */
		if (gids[i] < 0)
			continue;
		st->next[i] = st->head[gids[i]];
		st->head[gids[i]] = (int32_t)i;
	}
	rc = 0;
out:
	free(gids);
	if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	return rc;
}

/* Emit n output rows: left row li[k] (or NULLs) with right row ri[k]. */
static int emit_rows(sl_op *op, sl_batch *left, sl_col **lkc, const int64_t *li,
		     const int64_t *ri, int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	joinst *st = op->state;
	sl_col **cols = calloc((size_t)p->nout + 1, sizeof *cols);
	/* plan-left / plan-right batches, keys and row indexes */
	bool sw = swapped(op);
	sl_batch *pl = sw ? st->right : left, *pr = sw ? left : st->right, *o;
	sl_col **plk = sw ? st->rkc : lkc, **prk = sw ? lkc : st->rkc;
	const int64_t *pli = sw ? ri : li, *pri = sw ? li : ri;
	int j, rc;
	if (cols == NULL)
		return sl_err_nomem(err);
	for (j = 0; j < p->nout; j++) {
		const sl_join_out *x = &p->out[j];
		sl_col *a, *b;
		switch (x->src) {
		case SL_JO_LEFT:
			cols[j] = sl_col_take(pl->cols[x->idx], pli, n);
			break;
		case SL_JO_RIGHT:
			cols[j] = sl_col_take(pr->cols[x->idx], pri, n);
			break;
		case SL_JO_LKEY:
			cols[j] = sl_col_take(plk[x->idx], pli, n);
			break;
		case SL_JO_RKEY:
			cols[j] = sl_col_take(prk[x->idx], pri, n);
			break;
		case SL_JO_COALESCE:
			a = sl_col_take(plk[x->idx], pli, n);
			b = sl_col_take(prk[x->idx], pri, n);
			cols[j] = a && b ? sl_col_coalesce(a, b) : NULL;
			sl_col_free(a);
			sl_col_free(b);
			break;
		}
		if (cols[j] == NULL) {
			while (j-- > 0)
				sl_col_free(cols[j]);
			free(cols);
			return sl_err_nomem(err);
		}
	}
	o = sl_batch_new(p->schema, n, cols);
	free(cols);
	if (o == NULL)
		return sl_err_nomem(err);
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

/* Candidate pairs for left rows [lo, hi). */
static int candidates(sl_op *op, const int32_t *gids, int64_t lo, int64_t hi,
		      pairs *pr)
{
	joinst *st = op->state;
	int64_t i, r, nr = st->right->nrows;
	for (i = lo; i < hi; i++) {
		if (op->plan->njkeys == 0) {
			for (r = 0; r < nr; r++)
				if (pairs_add(pr, i, r) < 0)
					return SL_ENOMEM;
			continue;
		}
		if (gids[i] < 0)
			continue;
		for (r = st->head[gids[i]]; r >= 0; r = st->next[r])
			if (pairs_add(pr, i, r) < 0)
				return SL_ENOMEM;
	}
	return 0;
}

/* keep[k] for each candidate: the residual condition holds. */
static int residual(sl_op *op, sl_batch *left, const pairs *pr, uint8_t *keep,
		    sl_err *err)
{
	const sl_plan *p = op->plan;
	joinst *st = op->state;
	int nl = left->ncols, nr = st->right->ncols, j;
	sl_col **cols = calloc((size_t)(nl + nr) + 1, sizeof *cols), *c;
	sl_batch *w;
	int64_t k;
	if (cols == NULL)
		return sl_err_nomem(err);
	for (j = 0; j < nl + nr; j++) {
		int at = swapped(op) ? (j < nr ? j + nl : j - nr) : j;
		cols[at] =
		    j < nl ? sl_col_take(left->cols[j], pr->l, pr->n)
			   : sl_col_take(st->right->cols[j - nl], pr->r, pr->n);
		if (cols[at] == NULL) {
			for (j = 0; j < nl + nr; j++)
				sl_col_free(cols[j]);
			free(cols);
			return sl_err_nomem(err);
		}
	}
	w = sl_batch_new(p->wide, pr->n, cols);
	free(cols);
	if (w == NULL)
		return sl_err_nomem(err);
	c = sl_expr_eval(p->residual, w, err);
	sl_batch_free(w);
	if (c == NULL)
		return err ? err->code : SL_ENOMEM;
	for (k = 0; k < pr->n; k++)
		keep[k] = c->type->kind == SL_BOOLEAN && sl_col_u8(c)[k] &&
			  !sl_col_isnull(c, k);
	sl_col_free(c);
	return 0;
}

/* Decide the output rows of left rows [lo, hi) by join type. */
static int select_rows(sl_op *op, const pairs *pr, const uint8_t *keep,
		       int64_t lo, int64_t hi, pairs *out)
{
	joinst *st = op->state;
	sl_join_type t = eff_type(op);
	int64_t i, k = 0, j;
	for (j = 0; j < pr->n; j++)
		if (keep[j])
			st->matched[pr->r[j]] = 1;
	for (i = lo; i < hi; i++) {
		bool any = false;
		for (; k < pr->n && pr->l[k] == i; k++) {
			if (!keep[k])
				continue;
			any = true;
			if (t != SL_JOIN_SEMI && t != SL_JOIN_ANTI &&
			    pairs_add(out, i, pr->r[k]) < 0)
				return SL_ENOMEM;
		}
		if ((t == SL_JOIN_SEMI && any) || (t == SL_JOIN_ANTI && !any) ||
		    (!any && (t == SL_JOIN_LEFT || t == SL_JOIN_FULL)))
			if (pairs_add(out, i, -1) < 0)
				return SL_ENOMEM;
	}
	return 0;
}

static int probe_range(sl_op *op, sl_batch *left, sl_col **lkc,
		       const int32_t *gids, int64_t lo, int64_t hi, sl_err *err)
{
	pairs pr, out;
	uint8_t *keep = NULL;
	int rc = SL_ENOMEM;
	memset(&pr, 0, sizeof pr);
	memset(&out, 0, sizeof out);
	if (candidates(op, gids, lo, hi, &pr) < 0)
		goto out;
	keep = malloc((size_t)pr.n + 1);
	if (keep == NULL)
		goto out;
	memset(keep, 1, (size_t)pr.n + 1);
	if (op->plan->residual != NULL && pr.n > 0 &&
	    (rc = residual(op, left, &pr, keep, err)) < 0)
		goto out;
	rc = SL_ENOMEM;
	if (select_rows(op, &pr, keep, lo, hi, &out) < 0)
		goto out;
	rc = out.n ? emit_rows(op, left, lkc, out.l, out.r, out.n, err) : 0;
out:
	if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	free(pr.l);
	free(pr.r);
	free(out.l);
	free(out.r);
	free(keep);
	return rc;
}

static int join_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	joinst *st = op->state;
	sl_col **lkc = NULL;
	int32_t *gids = NULL;
	int64_t lo, step;
	int rc = 0;
	if (side == st->bside) { /* build side: buffer until its finish */
		if (st->nb == st->cap) {
			int cap = st->cap ? 2 * st->cap : 8;
			sl_batch **m = realloc(st->bs, (size_t)cap * sizeof *m);
			if (m == NULL)
				return sl_err_nomem(err);
			st->bs = m;
			st->cap = cap;
		}
		st->bs[st->nb++] = sl_batch_ref(in);
		return 0;
	}
	if (st->right == NULL)
		return sl_err_set(
		    err, SL_EINTERNAL,
		    "join: probe batch before the build side finished");
	if (p->njkeys > 0) {
		lkc = sl_expr_eval_n(probe_keys(op), p->njkeys, in, err);
		gids = malloc((size_t)(in->nrows + 1) * sizeof *gids);
		if (lkc == NULL || gids == NULL) {
			rc = lkc ? sl_err_nomem(err)
				 : (err ? err->code : SL_ENOMEM);
			goto out;
		}
		if ((rc = sl_hash_groups_find(st->tab, lkc, in->nrows, true,
					      gids, err)) < 0)
			goto out;
	}
	/* nested loops: bound the pairs held at once to about 1M */
	step = p->njkeys > 0 || st->right->nrows == 0
		   ? in->nrows
		   : (1 << 20) / st->right->nrows + 1;
	for (lo = 0; lo < in->nrows && rc == 0; lo += step)
		rc = probe_range(op, in, lkc, gids, lo,
				 lo + step < in->nrows ? lo + step : in->nrows,
				 err);
out:
	sl_cols_free(lkc, p->njkeys);
	free(gids);
	return rc;
}

/* Right and full joins: the right rows nothing matched, left NULLs. */
static int emit_unmatched(sl_op *op, sl_err *err)
{
	const sl_plan *p = op->plan;
	joinst *st = op->state;
	int64_t n = st->right->nrows, i, k = 0;
	int64_t *li = malloc((size_t)(n + 1) * sizeof *li);
	int64_t *ri = malloc((size_t)(n + 1) * sizeof *ri);
	sl_batch *left = sl_batch_empty(p->child[1 - st->bside]->schema);
	sl_col **lkc = calloc((size_t)p->njkeys + 1, sizeof *lkc);
	int j, rc = SL_ENOMEM;
	if (li == NULL || ri == NULL || left == NULL || lkc == NULL)
		goto out;
	for (j = 0; j < p->njkeys; j++)
		if ((lkc[j] = sl_col_new(probe_keys(op)[j]->rtype, 0)) == NULL)
			goto out;
	for (i = 0; i < n; i++)
		if (!st->matched[i]) {
			li[k] = -1;
			ri[k++] = i;
		}
	rc = k ? emit_rows(op, left, lkc, li, ri, k, err) : 0;
out:
	if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	sl_cols_free(lkc, p->njkeys);
	sl_batch_free(left);
	free(li);
	free(ri);
	return rc;
}

static int join_finish(sl_op *op, int side, sl_err *err)
{
	joinst *st = op->state;
	sl_join_type t = eff_type(op);
	int rc;
	if (side == st->bside)
		return build(op, err);
	if (st->right == NULL && (rc = build(op, err)) < 0)
		return rc;
	if ((t == SL_JOIN_RIGHT || t == SL_JOIN_FULL) &&
	    (rc = emit_unmatched(op, err)) < 0)
		return rc;
	return sl_op_finish_parent(op, err);
}

static void join_free(sl_op *op)
{
	joinst *st = op->state;
	int i;
	if (st == NULL)
		return;
	for (i = 0; i < st->nb; i++)
		sl_batch_free(st->bs[i]);
	free(st->bs);
	sl_batch_free(st->right);
	sl_cols_free(st->rkc, op->plan->njkeys);
	sl_hash_groups_free(st->tab);
	free(st->head);
	free(st->next);
	free(st->matched);
	free(st);
}

static const struct sl_op_ops join_ops = {
	.name = "BroadcastHashJoin",
	.push = join_push,
	.finish = join_finish,
	.free = join_free,
};

sl_op *sl_op_join_side_new(const sl_plan *p, int build_side, sl_err *err)
{
	sl_op *op = sl_op_new(&join_ops, p, err);
	joinst *st;
	if (op == NULL)
		return NULL;
	op->state = st = calloc(1, sizeof(joinst));
	if (op->state == NULL) {
		free(op);
		sl_err_nomem(err);
		return NULL;
	}
	st->bside = build_side ? 1 : 0;
	return op;
}

sl_op *sl_op_join_new(const sl_plan *p, sl_err *err)
{
	return sl_op_join_side_new(p, 1, err);
}
