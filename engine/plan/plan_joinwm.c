/*
 * plan_joinwm: what bounds a stream-stream join's state, read from the
 * JOIN node (Spark's StreamingJoinHelper and
 * StreamingSymmetricHashJoinHelper.getStateWatermarkPredicates).  Shared
 * by the analysis (plan_analysis.c: Spark's checkForStreamStreamJoinWatermark
 * refuses an outer or semi join whose state cannot be bounded) and by the
 * operator (exec/op_ssjoin.c: which rows leave the state when).
 *
 *  - a join key carrying a watermark (the event time itself, or a window
 *    over it, on either side): both sides drop rows whose key time (window
 *    end) <= the eviction watermark (sl_join_wm.wkey);
 *  - else a side gets a *value* watermark solved from the time-range
 *    conjuncts of the condition (StreamingJoinHelper.getStateValueWatermark):
 *    from `otherTime + c < thisTime`, where otherTime is the other side's
 *    watermarked column, the side keeps rows with thisTime > wm + c (one
 *    millisecond less for <= / >=); the minimum over conjuncts.  The
 *    bounds are solved whether or not the side has a watermark of its own
 *    (the analysis needs them so); the operator uses them only for a side
 *    that has one.
 *
 * Reads only the plan; never prints.
 */
#include "plan/plan_int.h"

#include <stdlib.h>

typedef struct term {
	int col; /* wide column, -1: constant */
	int sign;
	int64_t v;
} term;

/* Linear terms of a time expression: timestamp columns, interval and
 * timestamp literals, + and -.  Returns the new count or -1. */
static int collect(const sl_expr *e, int sign, term *t, int n, int max)
{
	switch (e->kind) {
	case SL_X_ALIAS: return collect(e->args[0], sign, t, n, max);
	case SL_X_NEG: return collect(e->args[0], -sign, t, n, max);
	case SL_X_CAST:
		if (e->rtype->kind != SL_TIMESTAMP ||
		    e->args[0]->rtype->kind != SL_TIMESTAMP)
			return -1;
		return collect(e->args[0], sign, t, n, max);
	case SL_X_BINOP:
		if (e->op != SL_OP_ADD && e->op != SL_OP_SUB)
			return -1;
		n = collect(e->args[0], sign, t, n, max);
		return n < 0 ? n
			     : collect(e->args[1],
				       e->op == SL_OP_SUB ? -sign : sign, t, n,
				       max);
	case SL_X_COL:
		if (n >= max || e->rtype->kind != SL_TIMESTAMP)
			return -1;
		t[n].col = e->idx;
		t[n].sign = sign;
		t[n].v = 0;
		return n + 1;
	case SL_X_LIT:
		if (n >= max || e->lit.null ||
		    !(e->op == 1 || e->rtype->kind == SL_TIMESTAMP))
			return -1;
		t[n].col = -1;
		t[n].sign = sign;
		t[n].v = e->lit.i;
		return n + 1;
	default: return -1;
	}
}

static bool on_side(int col, int s, int nl)
{
	return s == 0 ? col < nl : col >= nl;
}

/* One conjunct `l < r` (canonical: l - r < 0) solved for side s's time
 * (StreamingJoinHelper.getStateWatermarkFromLessThenPredicate): the side's
 * column must appear once, negated; the other side's column is a
 * watermarked timestamp (replaced by the watermark). */
static bool solve(const sl_expr *l, const sl_expr *r, int s, int nl,
		  int other_et, sl_join_bound *b)
{
	term t[16];
	int n = collect(l, 1, t, 0, 16), i, mine = 0, sc = -1, oc = -1;
	if (n >= 0)
		n = collect(r, -1, t, n, 16);
	if (n < 0)
		return false;
	b->coef = 0;
	b->c_us = 0;
	for (i = 0; i < n; i++) {
		if (t[i].col < 0) {
			b->c_us += t[i].sign * t[i].v;
			continue;
		}
		if (on_side(t[i].col, s, nl)) {
			if (sc >= 0 && sc != t[i].col)
				return false;
			sc = t[i].col;
			mine++;
			if (t[i].sign > 0)
				return false;
			continue;
		}
		if ((oc >= 0 && oc != t[i].col) || t[i].col != other_et)
			return false;
		oc = t[i].col;
		b->coef += t[i].sign;
	}
	return mine == 1;
}

static void side_bounds(sl_join_side_wm *js, int s, int nl, int other_et,
			const sl_expr *const *conj, int nconj)
{
	int i;
	js->nbounds = 0;
	for (i = 0; i < nconj && js->nbounds < SL_JOIN_MAX_BOUNDS; i++) {
		const sl_expr *e = conj[i];
		sl_join_bound b;
		bool ok = false;
		if (e->kind != SL_X_BINOP)
			continue;
		switch (e->op) {
		case SL_OP_LT:
		case SL_OP_LE:
			ok = solve(e->args[0], e->args[1], s, nl, other_et, &b);
			break;
		case SL_OP_GT:
		case SL_OP_GE:
			ok = solve(e->args[1], e->args[0], s, nl, other_et, &b);
			break;
		default: break;
		}
		if (!ok)
			continue;
		b.incl = e->op == SL_OP_LE || e->op == SL_OP_GE;
		js->bounds[js->nbounds++] = b;
	}
}

int sl_plan_split_and(const sl_expr *e, const sl_expr ***a, int *n)
{
	const sl_expr **m;
	int rc;
	if (e->kind == SL_X_BINOP && e->op == SL_OP_AND) {
		rc = sl_plan_split_and(e->args[0], a, n);
		return rc < 0 ? rc : sl_plan_split_and(e->args[1], a, n);
	}
	m = realloc(*a, (size_t)(*n + 1) * sizeof *m);
	if (m == NULL)
		return SL_ENOMEM;
	*a = m;
	m[(*n)++] = e;
	return 0;
}

static const sl_expr *strip(const sl_expr *e)
{
	while (e->kind == SL_X_CAST || e->kind == SL_X_ALIAS)
		e = e->args[0];
	return e;
}

/* First et entry of a side; the join key carrying a watermark. */
static void event_times(const sl_plan *p, sl_join_wm *w)
{
	sl_plan_et et[2][SL_PLAN_MAX_ET];
	int net[2], s, k, i;
	w->wkey = -1;
	for (s = 0; s < 2; s++) {
		net[s] = sl_plan_event_time(p->child[s], et[s], SL_PLAN_MAX_ET);
		w->side[s].et_col = net[s] > 0 ? et[s][0].col : -1;
		w->side[s].et_window = net[s] > 0 && et[s][0].window;
	}
	for (s = 0; s < 2 && w->wkey < 0; s++)
		for (k = 0; k < p->njkeys && w->wkey < 0; k++) {
			const sl_expr *e = strip(s ? p->rkeys[k] : p->lkeys[k]);
			for (i = 0; e->kind == SL_X_COL && i < net[s]; i++)
				if (et[s][i].col == e->idx)
					w->wkey = k;
		}
	for (s = 0; s < 2 && w->wkey >= 0; s++) {
		const sl_type *t = (s ? p->rkeys : p->lkeys)[w->wkey]->rtype;
		w->side[s].key_window = t->kind == SL_STRUCT;
	}
}

int sl_plan_join_wm(const sl_plan *p, sl_join_wm *w, sl_err *err)
{
	const sl_expr **conj = NULL;
	int nconj = 0, nl = p->child[0]->schema->nfields, s;
	*w = (sl_join_wm){ 0 };
	event_times(p, w);
	if (p->residual != NULL &&
	    sl_plan_split_and(p->residual, &conj, &nconj) < 0) {
		free(conj);
		return sl_err_nomem(err);
	}
	for (s = 0; s < 2 && w->wkey < 0; s++) {
		int oet = w->side[1 - s].et_col;
		if (oet >= 0 && !w->side[1 - s].et_window)
			side_bounds(&w->side[s], s, nl, s ? oet : oet + nl,
				    conj, nconj);
	}
	free(conj);
	return 0;
}
