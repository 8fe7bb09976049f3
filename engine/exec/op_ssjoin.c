/*
 * op_ssjoin: the stream-stream inner join (Spark's
 * StreamingSymmetricHashJoinExec, progress name "symmetricHashJoin").
 *
 * Both inputs are streams.  Every row that reaches the join is first
 * joined with the rows the *other* side holds, then kept on its own side,
 * so whichever row of a matching pair arrives second produces the pair:
 * each pair is emitted exactly once, across micro-batches and within one
 * (Spark joins this batch's left rows with the right state, stores them,
 * then joins the right rows with the left state; the order of pushes
 * within a batch does not change the set of pairs).
 *
 * State.  One state store holds both sides, one entry per held row:
 *   key   = side byte (0 left, 1 right) ++ join key (sl_hash_key_encode)
 *           ++ row number (8 bytes big-endian, unique per operator run)
 *   value = eviction time (int64, INT64_MIN: never) ++ the row's columns
 *           (sl_hash_key_encode of every column)
 * so numRowsTotal is the rows held on both sides, numRowsUpdated the rows
 * added this batch and numRowsRemoved the rows evicted, as Spark counts
 * its keyWithIndexToValue store.  Finding the rows of one join key needs
 * an index (side ++ key -> row numbers); the store has no prefix scan, so
 * the index is a cache derived from the store: rebuilt from it after an
 * abort (ops->reset) and whenever it is marked stale.
 *
 * Cleanup (StreamingSymmetricHashJoinHelper.getStateWatermarkPredicates):
 *  - a join key carrying a watermark (the event time itself, or a window
 *    over it, on either side): both sides drop rows whose key time (window
 *    end) <= the eviction watermark;
 *  - else a side with a watermark gets a *value* watermark solved from
 *    the time-range conjuncts of the condition (StreamingJoinHelper.
 *    getStateValueWatermark): from `otherTime + c < thisTime` the side
 *    keeps rows with thisTime > wm + c, in Spark's milliseconds, one
 *    millisecond less for <= / >=; the minimum over conjuncts;
 *  - else the side's state grows (allowed for inner joins).
 * A new row already below its side's state watermark joins but is not
 * kept.  Late rows (the side's event time <= the late watermark) are
 * dropped before joining, recorded with sl_stream_late and counted in
 * numRowsDroppedByWatermark.  Conjuncts over one side only filter that
 * side's rows before they join or are kept (Spark's preJoinFilter).
 *
 * Limits: columns of ARRAY type cannot be held in the state (refused at
 * start).  Never prints; the state changes go to the feed.
 */
#include "exec/exec.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/hash.h"
#include "exec/stream_int.h"

#define MAX_BOUNDS 8

/* thisTime > coef * wm + c (Spark's state value watermark of one side). */
typedef struct bound {
	int coef;
	int64_t c_us;
	bool incl; /* from <= / >=: one millisecond less */
} bound;

typedef struct jside {
	int et_col;      /* the side's watermarked column, -1 none */
	bool et_window;  /* a window struct: compared by its end */
	bool key_window; /* the watermarked join key is a window struct */
	int nbounds;
	bound bounds[MAX_BOUNDS];
	int nconj; /* conjuncts over this side only */
	const sl_expr **conj;
} jside;

/* The index: side ++ encoded key -> the row numbers held. */
typedef struct ixent {
	uint64_t h;
	char *key;
	size_t klen;
	int64_t *seq;
	int32_t n, cap;
	int64_t stamp, dbase; /* decoded rows of this push */
} ixent;

typedef struct ssjoinst {
	sl_op_stateful sf;
	sl_stream_ctx *ctx;
	jside side[2];
	int wkey; /* join key ordinal carrying a watermark, -1 */
	int nboth;
	const sl_expr **both; /* conjuncts over both sides */
	ixent **slot;
	size_t cap, nent;
	bool stale;
	int64_t next_seq, stamp;
	sl_buf kb, vb;
} ssjoinst;

/* ----------------------------------------------------------- index */

static uint64_t ix_hash(const char *k, size_t n)
{
	return sl_hash_xxh64(k, n, 0x5eed);
}

static size_t ix_pos(const ssjoinst *st, const char *k, size_t n, uint64_t h)
{
	size_t i = (size_t)h & (st->cap - 1);
	while (st->slot[i] != NULL &&
	       !(st->slot[i]->h == h && st->slot[i]->klen == n &&
		 memcmp(st->slot[i]->key, k, n) == 0))
		i = (i + 1) & (st->cap - 1);
	return i;
}

static ixent *ix_find(const ssjoinst *st, const char *k, size_t n)
{
	if (st->cap == 0)
		return NULL;
	return st->slot[ix_pos(st, k, n, ix_hash(k, n))];
}

static void ix_free_ent(ixent *e)
{
	if (e == NULL)
		return;
	free(e->key);
	free(e->seq);
	free(e);
}

static void ix_clear(ssjoinst *st)
{
	size_t i;
	for (i = 0; i < st->cap; i++)
		ix_free_ent(st->slot[i]);
	free(st->slot);
	st->slot = NULL;
	st->cap = st->nent = 0;
}

static int ix_grow(ssjoinst *st)
{
	size_t cap = st->cap ? 2 * st->cap : 256, i;
	ixent **old = st->slot, **m = calloc(cap, sizeof *m);
	size_t ocap = st->cap;
	if (m == NULL)
		return SL_ENOMEM;
	st->slot = m;
	st->cap = cap;
	for (i = 0; i < ocap; i++)
		if (old[i] != NULL)
			st->slot[ix_pos(st, old[i]->key, old[i]->klen,
					old[i]->h)] = old[i];
	free(old);
	return 0;
}

static int ix_add(ssjoinst *st, const char *k, size_t n, int64_t seq)
{
	uint64_t h = ix_hash(k, n);
	ixent *e;
	size_t i;
	if ((st->nent + 1) * 4 > st->cap * 3 && ix_grow(st) < 0)
		return SL_ENOMEM;
	i = ix_pos(st, k, n, h);
	if ((e = st->slot[i]) == NULL) {
		e = calloc(1, sizeof *e);
		if (e == NULL || (e->key = malloc(n + 1)) == NULL) {
			free(e);
			return SL_ENOMEM;
		}
		memcpy(e->key, k, n);
		e->klen = n;
		e->h = h;
		e->stamp = -1;
		st->slot[i] = e;
		st->nent++;
	}
	if (e->n == e->cap) {
		int32_t cap = e->cap ? 2 * e->cap : 2;
		int64_t *m = realloc(e->seq, (size_t)cap * sizeof *m);
		if (m == NULL)
			return SL_ENOMEM;
		e->seq = m;
		e->cap = cap;
	}
	e->seq[e->n++] = seq;
	return 0;
}

/* Linear probing deletion: shift later entries of the run back. */
static void ix_delete_at(ssjoinst *st, size_t i)
{
	size_t j = i, home;
	ix_free_ent(st->slot[i]);
	st->slot[i] = NULL;
	st->nent--;
	for (;;) {
		j = (j + 1) & (st->cap - 1);
		if (st->slot[j] == NULL)
			return;
		home = (size_t)st->slot[j]->h & (st->cap - 1);
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			st->slot[i] = st->slot[j];
			st->slot[j] = NULL;
			i = j;
		}
	}
}

static void ix_remove(ssjoinst *st, const char *k, size_t n, int64_t seq)
{
	size_t i;
	ixent *e;
	int32_t j;
	if (st->cap == 0)
		return;
	i = ix_pos(st, k, n, ix_hash(k, n));
	if ((e = st->slot[i]) == NULL)
		return;
	for (j = 0; j < e->n; j++)
		if (e->seq[j] == seq) {
			e->seq[j] = e->seq[--e->n];
			break;
		}
	if (e->n == 0)
		ix_delete_at(st, i);
}

static int64_t get_seq(const unsigned char *p)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (int64_t)v;
}

static void put_seq(sl_buf *b, int64_t seq)
{
	unsigned char x[8];
	int i;
	for (i = 0; i < 8; i++)
		x[i] = (unsigned char)((uint64_t)seq >> (56 - 8 * i));
	sl_buf_add(b, x, 8);
}

static int rebuild_one(void *ud, const void *key, size_t klen, const void *val,
		       size_t vlen)
{
	ssjoinst *st = ud;
	int64_t seq = get_seq((const unsigned char *)key + klen - 8);
	(void)val;
	(void)vlen;
	if (seq >= st->next_seq)
		st->next_seq = seq + 1;
	return ix_add(st, key, klen - 8, seq) < 0 ? SL_ENOMEM : 0;
}

static int ix_fresh(ssjoinst *st, sl_err *err)
{
	if (!st->stale)
		return 0;
	ix_clear(st);
	if (sl_state_foreach(st->sf.store, rebuild_one, st) != 0) {
		ix_clear(st);
		return sl_err_nomem(err);
	}
	st->stale = false;
	return 0;
}

/* ------------------------------------------------------- analysis */

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
		  int other_et, bound *b)
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

static void side_bounds(jside *js, int s, int nl, int other_et,
			const sl_expr *const *conj, int nconj)
{
	int i;
	js->nbounds = 0;
	for (i = 0; i < nconj && js->nbounds < MAX_BOUNDS; i++) {
		const sl_expr *e = conj[i];
		bound b;
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

/* Which sides' columns e references: bit 0 left, bit 1 right. */
static int refs(const sl_expr *e, int nl)
{
	int i, m = 0;
	if (e->kind == SL_X_COL)
		return e->idx < nl ? 1 : 2;
	for (i = 0; i < e->nargs; i++)
		m |= refs(e->args[i], nl);
	return m;
}

static int split(const sl_expr *e, const sl_expr ***a, int *n)
{
	const sl_expr **m;
	int rc;
	if (e->kind == SL_X_BINOP && e->op == SL_OP_AND) {
		rc = split(e->args[0], a, n);
		return rc < 0 ? rc : split(e->args[1], a, n);
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
static void event_times(const sl_plan *p, ssjoinst *st)
{
	sl_plan_et et[2][SL_PLAN_MAX_ET];
	int net[2], s, k, i;
	st->wkey = -1;
	for (s = 0; s < 2; s++) {
		net[s] = sl_plan_event_time(p->child[s], et[s], SL_PLAN_MAX_ET);
		st->side[s].et_col = net[s] > 0 ? et[s][0].col : -1;
		st->side[s].et_window = net[s] > 0 && et[s][0].window;
	}
	for (s = 0; s < 2 && st->wkey < 0; s++)
		for (k = 0; k < p->njkeys && st->wkey < 0; k++) {
			const sl_expr *e = strip(s ? p->rkeys[k] : p->lkeys[k]);
			for (i = 0; e->kind == SL_X_COL && i < net[s]; i++)
				if (et[s][i].col == e->idx)
					st->wkey = k;
		}
	for (s = 0; s < 2 && st->wkey >= 0; s++) {
		const sl_type *t = (s ? p->rkeys : p->lkeys)[st->wkey]->rtype;
		st->side[s].key_window = t->kind == SL_STRUCT;
	}
}

static int analyse(const sl_plan *p, ssjoinst *st, sl_err *err)
{
	const sl_expr **conj = NULL;
	int nconj = 0, nl = p->child[0]->schema->nfields, i, s, m;
	event_times(p, st);
	if (p->residual != NULL && split(p->residual, &conj, &nconj) < 0)
		goto nomem; /* split may have grown conj before failing */
	for (s = 0; s < 2; s++) {
		jside *js = &st->side[s];
		int oet = st->side[1 - s].et_col;
		js->conj = calloc((size_t)nconj + 1, sizeof *js->conj);
		if (js->conj == NULL)
			goto nomem;
		if (st->wkey < 0 && js->et_col >= 0 && oet >= 0 &&
		    !st->side[1 - s].et_window)
			side_bounds(js, s, nl, s ? oet : oet + nl, conj, nconj);
	}
	st->both = calloc((size_t)nconj + 1, sizeof *st->both);
	if (st->both == NULL)
		goto nomem;
	for (i = 0; i < nconj; i++) {
		m = refs(conj[i], nl);
		if (m == 3)
			st->both[st->nboth++] = conj[i];
		if (m == 1 || m == 0)
			st->side[0].conj[st->side[0].nconj++] = conj[i];
		if (m == 2 || m == 0)
			st->side[1].conj[st->side[1].nconj++] = conj[i];
	}
	free(conj);
	return 0;
nomem:
	free(conj);
	return sl_err_nomem(err);
}

/* ------------------------------------------------------------ rows */

/* Event time of row i of c (a timestamp, or a window's end); false when
 * NULL. */
static bool time_of(const sl_col *c, bool window, int64_t i, int64_t *out)
{
	if (sl_col_isnull(c, i))
		return false;
	if (window) {
		c = c->child[1];
		if (sl_col_isnull(c, i))
			return false;
	}
	*out = sl_col_i64(c)[i];
	return true;
}

/* Side s's state watermark for this batch: rows whose eviction time is
 * <= *out are dropped.  False when the side's state is never cleaned. */
static bool state_wm(const ssjoinst *st, int s, int64_t *out)
{
	int64_t wm = st->ctx->wm_evict_us, best = INT64_MAX;
	const jside *js = &st->side[s];
	int i;
	if (wm == INT64_MIN)
		return false;
	if (st->wkey >= 0) {
		*out = wm;
		return true;
	}
	if (js->nbounds == 0)
		return false;
	for (i = 0; i < js->nbounds; i++) {
		/* Spark solves in milliseconds (truncating), then takes one
		 * millisecond off for an inclusive bound */
		int64_t ms =
		    (js->bounds[i].coef * wm + js->bounds[i].c_us) / 1000;
		if (js->bounds[i].incl)
			ms--;
		if (ms * 1000 < best)
			best = ms * 1000;
	}
	*out = best;
	return true;
}

/* The time a held row is evicted by: its watermarked key, else its event
 * time, else never (INT64_MIN). */
static int64_t evict_time(const ssjoinst *st, int s, const sl_batch *b,
			  sl_col *const *kc, int64_t i)
{
	const jside *js = &st->side[s];
	int64_t t;
	if (st->wkey >= 0)
		return time_of(kc[st->wkey], js->key_window, i, &t) ? t
								    : INT64_MIN;
	if (js->et_col >= 0 && js->nbounds > 0 &&
	    time_of(b->cols[js->et_col], js->et_window, i, &t))
		return t;
	return INT64_MIN;
}

static bool null_key(sl_col *const *kc, int n, int64_t i)
{
	int k;
	for (k = 0; k < n; k++)
		if (sl_col_isnull(kc[k], i))
			return true;
	return false;
}

/* Late rows of side s: sel[i] = 0, counted and recorded. */
static void drop_late(sl_op *op, int s, const sl_batch *in, uint8_t *sel)
{
	ssjoinst *st = op->state;
	const jside *js = &st->side[s];
	int64_t wm = st->ctx->wm_late_us, i, t;
	sl_buf j;
	if (wm == INT64_MIN || js->et_col < 0)
		return;
	sl_buf_init(&j);
	for (i = 0; i < in->nrows; i++) {
		if (!time_of(in->cols[js->et_col], js->et_window, i, &t) ||
		    t > wm)
			continue;
		sel[i] = 0;
		st->sf.dropped++;
		sl_buf_clear(&j);
		sl_batch_row_json(in, i, &j);
		if (!sl_buf_failed(&j))
			sl_stream_late(st->ctx, st->sf.name, sl_buf_cstr(&j), t,
				       "[]", wm);
	}
	sl_buf_release(&j);
}

/* A batch of the join's wide schema: side s's columns from `cols` (new
 * references taken), the other side's from `other` (NULL: all NULL). */
static sl_batch *wide_batch(const sl_plan *p, int s, sl_col *const *mine,
			    sl_col *const *other, int64_t n, sl_err *err)
{
	int nl = p->child[0]->schema->nfields, nw = p->wide->nfields, c;
	sl_col **cols = calloc((size_t)nw + 1, sizeof *cols);
	sl_batch *b;
	if (cols == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (c = 0; c < nw; c++) {
		bool left = c < nl;
		int k = left ? c : c - nl;
		sl_col *const *src = (left == (s == 0)) ? mine : other;
		cols[c] = src != NULL
			      ? sl_col_ref(src[k])
			      : sl_col_new_null(p->wide->fields[c].type, n);
		if (cols[c] == NULL) {
			while (c-- > 0)
				sl_col_free(cols[c]);
			free(cols);
			sl_err_nomem(err);
			return NULL;
		}
	}
	b = sl_batch_new(p->wide, n, cols);
	free(cols);
	if (b == NULL)
		sl_err_nomem(err);
	return b;
}

/* sel[i] &= conj[..](row i) is TRUE. */
static int apply_conj(const sl_expr *const *conj, int n, const sl_batch *b,
		      uint8_t *sel, sl_err *err)
{
	int k;
	int64_t i;
	for (k = 0; k < n; k++) {
		sl_col *c = sl_expr_eval(conj[k], b, err);
		if (c == NULL)
			return err ? err->code : SL_ENOMEM;
		for (i = 0; i < b->nrows; i++)
			sel[i] &= !sl_col_isnull(c, i) && sl_col_u8(c)[i];
		sl_col_free(c);
	}
	return 0;
}

/* Late filter and the side's own conjuncts: the rows that may join and be
 * held (*out NULL when none). */
static int admit(sl_op *op, int s, sl_batch *in, sl_batch **out, sl_err *err)
{
	ssjoinst *st = op->state;
	const jside *js = &st->side[s];
	uint8_t *sel = malloc((size_t)in->nrows + 1);
	int64_t i, k = 0;
	int rc = 0;
	*out = NULL;
	if (sel == NULL)
		return sl_err_nomem(err);
	memset(sel, 1, (size_t)in->nrows);
	drop_late(op, s, in, sel);
	if (js->nconj > 0) {
		sl_batch *w =
		    wide_batch(op->plan, s, in->cols, NULL, in->nrows, err);
		rc = w == NULL ? (err ? err->code : SL_ENOMEM)
			       : apply_conj(js->conj, js->nconj, w, sel, err);
		sl_batch_free(w);
	}
	for (i = 0; i < in->nrows; i++)
		k += sel[i];
	if (rc == 0 && k > 0) {
		*out = k == in->nrows ? sl_batch_ref(in)
				      : sl_batch_filter(in, sel, k);
		if (*out == NULL)
			rc = sl_err_nomem(err);
	}
	free(sel);
	return rc;
}

/* The output columns of joined wide rows (p->out). */
static sl_batch *output(const sl_plan *p, sl_batch *w, sl_err *err)
{
	int nl = p->child[0]->schema->nfields, i, k;
	sl_col **cols = calloc((size_t)p->nout + 1, sizeof *cols);
	sl_batch *side = NULL, *o;
	if (cols == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < p->nout; i++) {
		const sl_join_out *jo = &p->out[i];
		if (jo->src == SL_JO_LEFT || jo->src == SL_JO_RIGHT) {
			cols[i] = sl_col_ref(
			    w->cols[jo->src == SL_JO_LEFT ? jo->idx
							  : nl + jo->idx]);
			continue;
		}
		/* a USING key: the left's value (equal to the right's) */
		if (side == NULL) {
			sl_col **lc = calloc((size_t)nl + 1, sizeof *lc);
			for (k = 0; lc != NULL && k < nl; k++)
				lc[k] = sl_col_ref(w->cols[k]);
			side =
			    lc ? sl_batch_new(p->child[0]->schema, w->nrows, lc)
			       : NULL;
			free(lc);
		}
		cols[i] =
		    side ? sl_expr_eval(p->lkeys[jo->idx], side, err) : NULL;
		if (cols[i] == NULL)
			goto fail;
	}
	sl_batch_free(side);
	o = sl_batch_new(p->schema, w->nrows, cols);
	free(cols);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
fail:
	while (i-- > 0)
		sl_col_free(cols[i]);
	free(cols);
	sl_batch_free(side);
	if (err != NULL && err->code == 0)
		sl_err_nomem(err);
	return NULL;
}

/* Emit the pairs (row li[k] of b, held row ri[k] of d) that pass the
 * conjuncts over both sides. */
static int emit_pairs(sl_op *op, int s, const sl_batch *b, sl_col **d,
		      const int64_t *li, const int64_t *ri, int64_t np,
		      sl_err *err)
{
	const sl_plan *p = op->plan;
	ssjoinst *st = op->state;
	int nm = b->ncols, no = p->child[1 - s]->schema->nfields, c, rc;
	sl_col **mine = calloc((size_t)nm + 1, sizeof *mine);
	sl_col **other = calloc((size_t)no + 1, sizeof *other);
	sl_batch *w = NULL, *o;
	uint8_t *sel = NULL;
	int64_t i, k = 0;
	rc = mine && other ? 0 : sl_err_nomem(err);
	for (c = 0; rc == 0 && c < nm; c++)
		if ((mine[c] = sl_col_take(b->cols[c], li, np)) == NULL)
			rc = sl_err_nomem(err);
	for (c = 0; rc == 0 && c < no; c++)
		if ((other[c] = sl_col_take(d[c], ri, np)) == NULL)
			rc = sl_err_nomem(err);
	if (rc == 0 && (w = wide_batch(p, s, mine, other, np, err)) == NULL)
		rc = err ? err->code : SL_ENOMEM;
	if (rc == 0 && st->nboth > 0) {
		if ((sel = malloc((size_t)np)) == NULL)
			rc = sl_err_nomem(err);
		else
			memset(sel, 1, (size_t)np);
		if (rc == 0)
			rc = apply_conj(st->both, st->nboth, w, sel, err);
		for (i = 0; rc == 0 && i < np; i++)
			k += sel[i];
		if (rc == 0 && k < np) {
			o = sl_batch_filter(w, sel, k);
			sl_batch_free(w);
			if ((w = o) == NULL)
				rc = sl_err_nomem(err);
		}
	}
	if (rc == 0 && w->nrows > 0) {
		if ((o = output(p, w, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
		else
			rc = sl_op_emit(op, o, err);
		sl_batch_free(o);
	}
	for (c = 0; mine && c < nm; c++)
		sl_col_free(mine[c]);
	for (c = 0; other && c < no; c++)
		sl_col_free(other[c]);
	free(mine);
	free(other);
	free(sel);
	sl_batch_free(w);
	return rc;
}

/* Decode the held rows of the index entries uniq[0..nu) into d (entry e
 * at rows e->dbase ..). */
static int decode_held(ssjoinst *st, ixent *const *uniq, int64_t nu, sl_col **d,
		       int nd, sl_err *err)
{
	int64_t u;
	int32_t j;
	int rc;
	for (u = 0; u < nu; u++) {
		const ixent *e = uniq[u];
		for (j = 0; j < e->n; j++) {
			const char *v;
			size_t vlen;
			sl_buf_clear(&st->kb);
			sl_buf_add(&st->kb, e->key, e->klen);
			put_seq(&st->kb, e->seq[j]);
			if (sl_buf_failed(&st->kb))
				return sl_err_nomem(err);
			v = sl_state_get(st->sf.store, st->kb.p, st->kb.len,
					 &vlen);
			if (v == NULL || vlen < 8)
				return sl_err_set(
				    err, SL_EINTERNAL,
				    "join: held row %lld is missing from the state store",
				    (long long)e->seq[j]);
			rc = sl_hash_key_decode(d, nd, e->dbase + j, v + 8,
						vlen - 8, NULL, err);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

typedef struct probe {
	ixent **ents, **uniq;
	int64_t nu, total, np;
	sl_col **d;
	int nd;
	int64_t *li, *ri;
} probe;

static void probe_release(probe *pr)
{
	int c;
	for (c = 0; pr->d != NULL && c < pr->nd; c++)
		sl_col_free(pr->d[c]);
	free(pr->d);
	free(pr->ents);
	free(pr->uniq);
	free(pr->li);
	free(pr->ri);
}

/* Find the other side's rows for each row of b: entries and counts. */
static int probe_find(ssjoinst *st, int s, const sl_batch *b, sl_col *const *kc,
		      int nk, probe *pr, sl_err *err)
{
	int64_t i;
	pr->ents = calloc((size_t)b->nrows + 1, sizeof *pr->ents);
	pr->uniq = calloc((size_t)b->nrows + 1, sizeof *pr->uniq);
	if (pr->ents == NULL || pr->uniq == NULL)
		return sl_err_nomem(err);
	st->stamp++;
	for (i = 0; i < b->nrows; i++) {
		ixent *e;
		if (null_key(kc, nk, i))
			continue;
		sl_buf_clear(&st->kb);
		sl_buf_addc(&st->kb, (char)(1 - s));
		sl_hash_key_encode(kc, nk, i, &st->kb);
		if (sl_buf_failed(&st->kb))
			return sl_err_nomem(err);
		if ((e = ix_find(st, st->kb.p, st->kb.len)) == NULL)
			continue;
		pr->ents[i] = e;
		if (e->stamp != st->stamp) {
			e->stamp = st->stamp;
			e->dbase = pr->total;
			pr->total += e->n;
			pr->uniq[pr->nu++] = e;
		}
		pr->np += e->n;
	}
	return 0;
}

static int probe_run(sl_op *op, int s, const sl_batch *b, sl_col *const *kc,
		     sl_err *err)
{
	const sl_plan *p = op->plan;
	ssjoinst *st = op->state;
	const sl_type *ot = p->child[1 - s]->schema;
	probe pr;
	int64_t i, k = 0;
	int32_t j;
	int c, rc;
	memset(&pr, 0, sizeof pr);
	rc = probe_find(st, s, b, kc, p->njkeys, &pr, err);
	if (rc < 0 || pr.np == 0)
		goto out;
	pr.nd = ot->nfields;
	pr.d = calloc((size_t)pr.nd + 1, sizeof *pr.d);
	pr.li = malloc((size_t)pr.np * sizeof *pr.li);
	pr.ri = malloc((size_t)pr.np * sizeof *pr.ri);
	rc = pr.d && pr.li && pr.ri ? 0 : sl_err_nomem(err);
	for (c = 0; rc == 0 && c < pr.nd; c++)
		if ((pr.d[c] = sl_col_new(ot->fields[c].type, pr.total)) ==
		    NULL)
			rc = sl_err_nomem(err);
	if (rc == 0)
		rc = decode_held(st, pr.uniq, pr.nu, pr.d, pr.nd, err);
	for (i = 0; rc == 0 && i < b->nrows; i++)
		for (j = 0; pr.ents[i] != NULL && j < pr.ents[i]->n; j++) {
			pr.li[k] = i;
			pr.ri[k++] = pr.ents[i]->dbase + j;
		}
	if (rc == 0)
		rc = emit_pairs(op, s, b, pr.d, pr.li, pr.ri, pr.np, err);
out:
	probe_release(&pr);
	return rc;
}

/* ------------------------------------------------------------ state */

static void held_event(const ssjoinst *st, int s, const char *val,
		       const char *state)
{
	sl_stream_state_event(st->ctx, st->sf.name, s ? "right" : "left", val,
			      state);
}

/* Hold the rows of b on side s (rows already below the side's state
 * watermark are not held, as Spark). */
static int keep(sl_op *op, int s, const sl_batch *b, sl_col *const *kc,
		sl_err *err)
{
	const sl_plan *p = op->plan;
	ssjoinst *st = op->state;
	bool feed = sl_stream_wants_rows(st->ctx);
	int64_t swm = 0, i, t;
	bool has = state_wm(st, s, &swm);
	size_t klen;
	int rc;
	for (i = 0; i < b->nrows; i++) {
		if (null_key(kc, p->njkeys, i))
			continue;
		t = evict_time(st, s, b, kc, i);
		if (has && t != INT64_MIN && t <= swm)
			continue;
		sl_buf_clear(&st->kb);
		sl_buf_addc(&st->kb, (char)s);
		sl_hash_key_encode(kc, p->njkeys, i, &st->kb);
		klen = st->kb.len;
		put_seq(&st->kb, st->next_seq);
		sl_buf_clear(&st->vb);
		sl_buf_add(&st->vb, &t, 8);
		sl_hash_key_encode(b->cols, b->ncols, i, &st->vb);
		if (sl_buf_failed(&st->kb) || sl_buf_failed(&st->vb))
			return sl_err_nomem(err);
		if ((rc = sl_state_put(st->sf.store, st->kb.p, st->kb.len,
				       st->vb.p, st->vb.len, err)) < 0)
			return rc;
		if (ix_add(st, st->kb.p, klen, st->next_seq++) < 0) {
			st->stale = true;
			return sl_err_nomem(err);
		}
		if (feed) {
			sl_buf r;
			sl_buf_init(&r);
			sl_stream_row_text(b->cols, b->ncols, i, &r);
			if (!sl_buf_failed(&r))
				held_event(st, s, sl_buf_cstr(&r), "UPDATED");
			sl_buf_release(&r);
		}
	}
	return 0;
}

typedef struct evict {
	ssjoinst *st;
	const sl_plan *p;
	bool has[2];
	int64_t wm[2];
	bool feed;
} evict;

static int evict_pred(void *ud, const void *key, size_t klen, const void *val,
		      size_t vlen)
{
	const evict *ev = ud;
	int s = *(const unsigned char *)key ? 1 : 0;
	int64_t t;
	(void)klen;
	if (!ev->has[s] || vlen < 8)
		return 0;
	memcpy(&t, val, 8);
	return t != INT64_MIN && t <= ev->wm[s];
}

static void evict_event(const evict *ev, int s, const void *val, size_t vlen)
{
	const sl_type *t = ev->p->child[s]->schema;
	sl_col **c = calloc((size_t)t->nfields + 1, sizeof *c);
	sl_buf r;
	int k, ok = c != NULL;
	for (k = 0; ok && k < t->nfields; k++)
		ok = (c[k] = sl_col_new(t->fields[k].type, 1)) != NULL;
	sl_buf_init(&r);
	if (ok && sl_hash_key_decode(c, t->nfields, 0, (const char *)val + 8,
				     vlen - 8, NULL, NULL) == 0) {
		sl_stream_row_text(c, t->nfields, 0, &r);
		if (!sl_buf_failed(&r))
			held_event(ev->st, s, sl_buf_cstr(&r), "EVICTED");
	}
	sl_buf_release(&r);
	for (k = 0; c != NULL && k < t->nfields; k++)
		sl_col_free(c[k]);
	free(c);
}

static int evict_one(void *ud, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	const evict *ev = ud;
	int s = *(const unsigned char *)key ? 1 : 0;
	ix_remove(ev->st, key, klen - 8,
		  get_seq((const unsigned char *)key + klen - 8));
	if (ev->feed)
		evict_event(ev, s, val, vlen);
	return 0;
}

/* End of a micro-batch: drop the rows below each side's state
 * watermark. */
static int evict_old(sl_op *op, sl_err *err)
{
	ssjoinst *st = op->state;
	evict ev;
	int64_t n;
	int rc;
	ev.st = st;
	ev.p = op->plan;
	ev.has[0] = state_wm(st, 0, &ev.wm[0]);
	ev.has[1] = state_wm(st, 1, &ev.wm[1]);
	ev.feed = sl_stream_wants_rows(st->ctx);
	if (!ev.has[0] && !ev.has[1])
		return 0;
	if ((rc = ix_fresh(st, err)) < 0)
		return rc;
	n = sl_state_remove_if(st->sf.store, evict_pred, &ev, evict_one, &ev,
			       err);
	return n < 0 ? (int)n : 0;
}

/* ------------------------------------------------------------ ops */

static int ssj_push(sl_op *op, int s, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	ssjoinst *st = op->state;
	sl_batch *b = NULL;
	sl_col **kc = NULL;
	int k, rc;
	if ((rc = ix_fresh(st, err)) < 0 ||
	    (rc = admit(op, s, in, &b, err)) < 0 || b == NULL)
		return rc;
	kc = calloc((size_t)p->njkeys + 1, sizeof *kc);
	rc = kc != NULL ? 0 : sl_err_nomem(err);
	for (k = 0; rc == 0 && k < p->njkeys; k++)
		if ((kc[k] = sl_expr_eval(s ? p->rkeys[k] : p->lkeys[k], b,
					  err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	if (rc == 0)
		rc = probe_run(op, s, b, kc, err);
	if (rc == 0)
		rc = keep(op, s, b, kc, err);
	for (k = 0; kc != NULL && k < p->njkeys; k++)
		sl_col_free(kc[k]);
	free(kc);
	sl_batch_free(b);
	return rc;
}

static int ssj_finish(sl_op *op, int side, sl_err *err)
{
	int rc;
	(void)side;
	if (++op->nfinished < 2)
		return 0;
	op->nfinished = 0;
	if ((rc = evict_old(op, err)) < 0)
		return rc;
	return sl_op_finish_parent(op, err);
}

/* After an abort the store is back at its last version: the index is
 * rebuilt from it before the next use. */
static void ssj_reset(sl_op *op)
{
	ssjoinst *st = op->state;
	if (st != NULL)
		st->stale = true;
}

static void ssj_free(sl_op *op)
{
	ssjoinst *st = op->state;
	if (st == NULL)
		return;
	ix_clear(st);
	sl_state_free(st->sf.store);
	sl_buf_release(&st->kb);
	sl_buf_release(&st->vb);
	free(st->side[0].conj);
	free(st->side[1].conj);
	free(st->both);
	free(st);
}

/* Spark's shouldRunAnotherBatch: a side's state is cleaned by the
 * watermark and the watermark moved. */
static bool ssj_wants_no_data(sl_op *op, int64_t new_wm_us)
{
	const ssjoinst *st = op->state;
	int64_t cur = st->ctx->wm_evict_us;
	bool cleans =
	    st->wkey >= 0 || st->side[0].nbounds > 0 || st->side[1].nbounds > 0;
	return cleans && new_wm_us != INT64_MIN &&
	       (cur == INT64_MIN || new_wm_us > cur);
}

static const struct sl_op_ops ssjoin_ops = {
	.name = "StreamingSymmetricHashJoin",
	.push = ssj_push,
	.finish = ssj_finish,
	.free = ssj_free,
	.reset = ssj_reset,
	.wants_no_data = ssj_wants_no_data,
};

static int check_plan(const sl_plan *p, sl_err *err)
{
	int s, c;
	if (p->jtype != SL_JOIN_INNER && p->jtype != SL_JOIN_CROSS)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "join: only inner stream-stream joins are supported");
	if (p->njkeys == 0)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "Stream-stream join without equality predicate is not supported");
	for (s = 0; s < 2; s++) {
		const sl_type *t = p->child[s]->schema;
		for (c = 0; c < t->nfields; c++)
			if (!sl_type_keyable(t->fields[c].type))
				return sl_err_set(
				    err, SL_EANALYSIS,
				    "join: column '%s' is an ARRAY, which a stream-stream join cannot hold in its state",
				    t->fields[c].name);
	}
	return 0;
}

sl_op *sl_op_ssjoin_new(const sl_plan *p, sl_stream_ctx *ctx, sl_err *err)
{
	sl_op *op;
	ssjoinst *st;
	if (check_plan(p, err) < 0 ||
	    (op = sl_op_stateful_new(&ssjoin_ops, p, sizeof *st,
				     offsetof(ssjoinst, sf),
				     "symmetricHashJoin", err)) == NULL)
		return NULL;
	st = op->state;
	st->ctx = ctx;
	sl_buf_init(&st->kb);
	sl_buf_init(&st->vb);
	if (analyse(p, st, err) < 0) {
		sl_op_free(op);
		return NULL;
	}
	return op;
}
