/*
 * op_ssjoin: the stream-stream join (Spark's StreamingSymmetricHashJoinExec,
 * progress name "symmetricHashJoin"): inner, left outer, right outer, full
 * outer and left semi.
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
 *   value = eviction time (int64, INT64_MIN: never)
 *           [++ matched byte: outer and semi joins only, Spark's
 *            KeyWithIndexToValue "matched" flag, state format 2]
 *           ++ the row's columns (sl_hash_key_encode of every column)
 * so numRowsTotal is the rows held on both sides, numRowsUpdated the rows
 * added this batch (setting a matched flag rewrites a row in place and is
 * not counted, as in Spark) and numRowsRemoved the rows evicted from a side
 * that is not outer (Spark's onOutputCompletion counts only its cleanup
 * pass: both sides of inner and left semi, the right of a left outer, the
 * left of a right outer, none of a full outer).  Inner
 * joins keep the layout without the flag, so their checkpoints stay
 * readable.  Finding the rows of one join key needs an index (side ++ key
 * -> row numbers, op_ssjoin_ix.c); the store has no prefix scan, so the
 * index is a cache derived from the store: rebuilt from it after an abort
 * (ops->reset) and whenever it is marked stale.
 *
 * Cleanup: plan/plan_joinwm.c says what bounds each side (a watermarked
 * join key, or a value watermark solved from the time-range conjuncts).
 * Late rows (the side's event time <= the late watermark) are dropped
 * before joining, recorded with sl_stream_late and counted in
 * numRowsDroppedByWatermark.  Conjuncts over one side only filter that
 * side's rows before they join or are kept (Spark's preJoinFilter); on the
 * outer side of an outer join a row failing them is emitted at once with
 * NULLs for the other side.
 *
 * Which rows are kept (Spark 3.5's AddingProcessedRowToStateCompletion-
 * Iterator): a left row always, except a left semi row that matched; a
 * right row unless the state watermark evicts it in this very batch, but
 * always on the outer side of a right/full outer join when it matched
 * nothing (its NULL-padded row comes out at eviction).
 *
 * Outer rows: at the end of a micro-batch the rows below each side's state
 * watermark leave the state; those of an outer side whose matched flag is
 * still false are emitted with NULLs for the other side (Spark emits them
 * exactly when they are evicted, and never for a row that matched).
 * Left semi: a left row is emitted once, when it first matches (on
 * arrival, or later by a right row, which skips held left rows already
 * matched).
 *
 * Limits: columns of ARRAY type cannot be held in the state (refused at
 * start).  Never prints; the state changes go to the feed.
 */
#include "exec/exec.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/hash.h"
#include "exec/op_ssjoin_int.h"
#include "exec/stream_int.h"

/* ------------------------------------------------------- analysis */

static bool outer_side(const ssjoinst *st, int s)
{
	return st->jt == SL_JOIN_FULL ||
	       (s == 0 ? st->jt == SL_JOIN_LEFT : st->jt == SL_JOIN_RIGHT);
}

/* Side s's state is cleaned by the watermark. */
static bool cleans(const ssjoinst *st, int s)
{
	return st->wm.wkey >= 0 ||
	       (st->wm.side[s].et_col >= 0 && st->wm.side[s].nbounds > 0);
}

static int analyse(const sl_plan *p, ssjoinst *st, sl_err *err)
{
	const sl_expr **conj = NULL;
	int nconj = 0, nl = p->child[0]->schema->nfields, i, s, m;
	if (sl_plan_join_wm(p, &st->wm, err) < 0)
		return err ? err->code : SL_ENOMEM;
	if (p->residual != NULL &&
	    sl_plan_split_and(p->residual, &conj, &nconj) < 0)
		goto nomem; /* split may have grown conj before failing */
	for (s = 0; s < 2; s++) {
		st->side[s].conj =
		    calloc((size_t)nconj + 1, sizeof *st->side[s].conj);
		if (st->side[s].conj == NULL)
			goto nomem;
	}
	st->both = calloc((size_t)nconj + 1, sizeof *st->both);
	if (st->both == NULL)
		goto nomem;
	for (i = 0; i < nconj; i++) {
		m = sl_plan_join_sides(conj[i], nl);
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
	const sl_join_side_wm *js = &st->wm.side[s];
	int i;
	if (wm == INT64_MIN || !cleans(st, s))
		return false;
	if (st->wm.wkey >= 0) {
		*out = wm;
		return true;
	}
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
	const sl_join_side_wm *js = &st->wm.side[s];
	int64_t t;
	if (st->wm.wkey >= 0)
		return time_of(kc[st->wm.wkey], js->key_window, i, &t)
			   ? t
			   : INT64_MIN;
	if (cleans(st, s) && time_of(b->cols[js->et_col], js->et_window, i, &t))
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
	const sl_join_side_wm *js = &st->wm.side[s];
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

/* Side s's part of a wide batch, as a batch of its child's schema. */
static sl_batch *side_part(const sl_plan *p, const sl_batch *w, int s)
{
	int nl = p->child[0]->schema->nfields, off = s ? nl : 0, k;
	const sl_type *t = p->child[s]->schema;
	sl_col **c = calloc((size_t)t->nfields + 1, sizeof *c);
	sl_batch *b;
	if (c == NULL)
		return NULL;
	for (k = 0; k < t->nfields; k++)
		c[k] = sl_col_ref(w->cols[off + k]);
	b = sl_batch_new(p->child[s]->schema, w->nrows, c);
	free(c);
	return b;
}

/* USING key k of the wide rows w: the left's, the right's or the first
 * not NULL (Spark's output of a USING join by join type). */
static sl_col *using_key(const sl_plan *p, const sl_batch *w, sl_batch **part,
			 const sl_join_out *jo, sl_err *err)
{
	sl_col *c[2] = { NULL, NULL }, *o;
	int s;
	for (s = 0; s < 2; s++) {
		if ((s == 0 && jo->src == SL_JO_RKEY) ||
		    (s == 1 && jo->src == SL_JO_LKEY))
			continue;
		if (part[s] == NULL && (part[s] = side_part(p, w, s)) == NULL)
			goto fail;
		c[s] = sl_expr_eval(s ? p->rkeys[jo->idx] : p->lkeys[jo->idx],
				    part[s], err);
		if (c[s] == NULL)
			goto fail;
	}
	if (jo->src != SL_JO_COALESCE)
		return c[0] != NULL ? c[0] : c[1];
	o = sl_col_coalesce(c[0], c[1]);
	sl_col_free(c[0]);
	sl_col_free(c[1]);
	return o;
fail:
	sl_col_free(c[0]);
	return NULL;
}

/* The output columns of joined wide rows (p->out). */
static sl_batch *output(const sl_plan *p, sl_batch *w, sl_err *err)
{
	int nl = p->child[0]->schema->nfields, i;
	sl_col **cols = calloc((size_t)p->nout + 1, sizeof *cols);
	sl_batch *part[2] = { NULL, NULL }, *o;
	if (cols == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < p->nout; i++) {
		const sl_join_out *jo = &p->out[i];
		if (jo->src == SL_JO_LEFT || jo->src == SL_JO_RIGHT)
			cols[i] = sl_col_ref(
			    w->cols[jo->src == SL_JO_LEFT ? jo->idx
							  : nl + jo->idx]);
		else
			cols[i] = using_key(p, w, part, jo, err);
		if (cols[i] == NULL)
			goto fail;
	}
	sl_batch_free(part[0]);
	sl_batch_free(part[1]);
	o = sl_batch_new(p->schema, w->nrows, cols);
	free(cols);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
fail:
	while (i-- > 0)
		sl_col_free(cols[i]);
	free(cols);
	sl_batch_free(part[0]);
	sl_batch_free(part[1]);
	if (err != NULL && err->code == 0)
		sl_err_nomem(err);
	return NULL;
}

/* Emit the wide rows w (borrowed) through the output columns. */
static int emit_wide(sl_op *op, sl_batch *w, sl_err *err)
{
	sl_batch *o;
	int rc;
	if (w->nrows == 0)
		return 0;
	if ((o = output(op->plan, w, err)) == NULL)
		return err ? err->code : SL_ENOMEM;
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc;
}

/* Emit n rows of side s (cols borrowed) with NULLs for the other side:
 * the outer rows, or (left semi) the left rows alone. */
static int emit_padded(sl_op *op, int s, sl_col *const *cols, int64_t n,
		       sl_err *err)
{
	sl_batch *w = wide_batch(op->plan, s, cols, NULL, n, err);
	int rc;
	if (w == NULL)
		return err ? err->code : SL_ENOMEM;
	rc = emit_wide(op, w, err);
	sl_batch_free(w);
	return rc;
}

/* The rows of b with sel[i] set, emitted with NULLs for the other side. */
static int emit_selected(sl_op *op, int s, const sl_batch *b,
			 const uint8_t *sel, sl_err *err)
{
	int64_t i, k = 0;
	sl_batch *f;
	int rc;
	for (i = 0; i < b->nrows; i++)
		k += sel[i] != 0;
	if (k == 0)
		return 0;
	if ((f = sl_batch_filter(b, sel, k)) == NULL)
		return sl_err_nomem(err);
	rc = emit_padded(op, s, f->cols, f->nrows, err);
	sl_batch_free(f);
	return rc;
}

/* Late filter and the side's own conjuncts: the rows that may join and be
 * held (*out NULL when none).  On an outer side the rows failing the
 * conjuncts (not the late ones) come out at once, NULL-padded. */
static int admit(sl_op *op, int s, sl_batch *in, sl_batch **out, sl_err *err)
{
	ssjoinst *st = op->state;
	const jside *js = &st->side[s];
	size_t n = (size_t)in->nrows;
	uint8_t *sel = malloc(n + 1), *pre = NULL;
	int64_t i, k = 0;
	int rc = 0;
	*out = NULL;
	if (sel == NULL)
		return sl_err_nomem(err);
	memset(sel, 1, n);
	drop_late(op, s, in, sel);
	if (js->nconj > 0) {
		sl_batch *w =
		    wide_batch(op->plan, s, in->cols, NULL, in->nrows, err);
		if (outer_side(st, s) && (pre = malloc(n + 1)) != NULL)
			memcpy(pre, sel, n);
		rc = w == NULL ? (err ? err->code : SL_ENOMEM)
		     : outer_side(st, s) && pre == NULL
			 ? sl_err_nomem(err)
			 : apply_conj(js->conj, js->nconj, w, sel, err);
		sl_batch_free(w);
		for (i = 0; rc == 0 && pre != NULL && i < in->nrows; i++)
			pre[i] = pre[i] && !sel[i];
		if (rc == 0 && pre != NULL)
			rc = emit_selected(op, s, in, pre, err);
		free(pre);
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

/* ------------------------------------------------------------ probe */

typedef struct probe {
	ixent **ents, **uniq;
	int64_t nu, total, np;
	sl_col **d; /* the held rows of the other side, decoded */
	int nd;
	ixent **hent;      /* held row r: its index entry, */
	int32_t *hj;       /* its place in the entry, */
	uint8_t *hmatched; /* its matched flag, */
	uint8_t *hhit;     /* and whether a pair with it passed now */
	int64_t *li, *ri;
	uint8_t *sel; /* pair k passes the conjuncts over both sides */
} probe;

static void probe_release(probe *pr)
{
	int c;
	for (c = 0; pr->d != NULL && c < pr->nd; c++)
		sl_col_free(pr->d[c]);
	free(pr->d);
	free(pr->ents);
	free(pr->uniq);
	free(pr->hent);
	free(pr->hj);
	free(pr->hmatched);
	free(pr->hhit);
	free(pr->li);
	free(pr->ri);
	free(pr->sel);
}

/* The state key of held row j of entry e, in st->kb. */
static bool held_key(ssjoinst *st, const ixent *e, int32_t j)
{
	sl_buf_clear(&st->kb);
	sl_buf_add(&st->kb, e->key, e->klen);
	sl_ssjoin_put_seq(&st->kb, e->seq[j]);
	return !sl_buf_failed(&st->kb);
}

/* Decode the held rows of the index entries pr->uniq into pr->d (entry e
 * at rows e->dbase ..). */
static int decode_held(ssjoinst *st, probe *pr, sl_err *err)
{
	int64_t u;
	int32_t j;
	int rc;
	for (u = 0; u < pr->nu; u++) {
		ixent *e = pr->uniq[u];
		for (j = 0; j < e->n; j++) {
			int64_t r = e->dbase + j;
			const char *v;
			size_t vlen;
			if (!held_key(st, e, j))
				return sl_err_nomem(err);
			v = sl_state_get(st->sf.store, st->kb.p, st->kb.len,
					 &vlen);
			if (v == NULL || vlen < st->hdr)
				return sl_err_set(
				    err, SL_EINTERNAL,
				    "join: held row %lld is missing from the state store",
				    (long long)e->seq[j]);
			pr->hent[r] = e;
			pr->hj[r] = j;
			pr->hmatched[r] = st->hdr > 8 && v[8] != 0;
			rc = sl_hash_key_decode(pr->d, pr->nd, r, v + st->hdr,
						vlen - st->hdr, NULL, err);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* Set the matched flag of held row r (a rewrite in place, not counted
 * in numRowsUpdated). */
static int set_matched(ssjoinst *st, const probe *pr, int64_t r, sl_err *err)
{
	const char *v;
	size_t vlen;
	int rc;
	if (!held_key(st, pr->hent[r], pr->hj[r]))
		return sl_err_nomem(err);
	v = sl_state_get(st->sf.store, st->kb.p, st->kb.len, &vlen);
	if (v == NULL || vlen < st->hdr)
		return sl_err_set(
		    err, SL_EINTERNAL,
		    "join: held row is missing from the state store");
	sl_buf_clear(&st->vb);
	sl_buf_add(&st->vb, v, vlen);
	if (sl_buf_failed(&st->vb))
		return sl_err_nomem(err);
	st->vb.p[8] = 1;
	rc = sl_state_put(st->sf.store, st->kb.p, st->kb.len, st->vb.p,
			  st->vb.len, err);
	if (rc == 0)
		st->sf.rewrites++;
	return rc;
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
		if ((e = sl_ssjoin_ix_find(st, st->kb.p, st->kb.len)) == NULL)
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

/* Decode the candidates and list the pairs (li, ri); a left semi join's
 * right rows skip held left rows already matched. */
static int probe_pairs(ssjoinst *st, int s, const sl_batch *b,
		       const sl_type *ot, probe *pr, sl_err *err)
{
	size_t nt = (size_t)pr->total + 1;
	int64_t i, k = 0, r;
	int32_t j;
	int c, rc;
	bool skip = st->jt == SL_JOIN_SEMI && s == 1;
	pr->nd = ot->nfields;
	pr->d = calloc((size_t)pr->nd + 1, sizeof *pr->d);
	pr->li = malloc((size_t)pr->np * sizeof *pr->li + 1);
	pr->ri = malloc((size_t)pr->np * sizeof *pr->ri + 1);
	pr->hent = calloc(nt, sizeof *pr->hent);
	pr->hj = calloc(nt, sizeof *pr->hj);
	pr->hmatched = calloc(nt, 1);
	pr->hhit = calloc(nt, 1);
	rc = pr->d && pr->li && pr->ri && pr->hent && pr->hj && pr->hmatched &&
		     pr->hhit
		 ? 0
		 : sl_err_nomem(err);
	for (c = 0; rc == 0 && c < pr->nd; c++)
		if ((pr->d[c] = sl_col_new(ot->fields[c].type, pr->total)) ==
		    NULL)
			rc = sl_err_nomem(err);
	if (rc == 0)
		rc = decode_held(st, pr, err);
	for (i = 0; rc == 0 && i < b->nrows; i++)
		for (j = 0; pr->ents[i] != NULL && j < pr->ents[i]->n; j++) {
			r = pr->ents[i]->dbase + j;
			if (skip && pr->hmatched[r])
				continue;
			pr->li[k] = i;
			pr->ri[k++] = r;
		}
	pr->np = k;
	return rc;
}

/* The pairs as wide rows (*w) and which pass the conjuncts over both
 * sides (pr->sel). */
static int probe_check(sl_op *op, int s, const sl_batch *b, probe *pr,
		       sl_batch **w, sl_err *err)
{
	const sl_plan *p = op->plan;
	ssjoinst *st = op->state;
	int nm = b->ncols, c, rc;
	sl_col **mine = calloc((size_t)nm + 1, sizeof *mine);
	sl_col **other = calloc((size_t)pr->nd + 1, sizeof *other);
	*w = NULL;
	pr->sel = malloc((size_t)pr->np + 1);
	rc = mine && other && pr->sel ? 0 : sl_err_nomem(err);
	for (c = 0; rc == 0 && c < nm; c++)
		if ((mine[c] = sl_col_take(b->cols[c], pr->li, pr->np)) == NULL)
			rc = sl_err_nomem(err);
	for (c = 0; rc == 0 && c < pr->nd; c++)
		if ((other[c] = sl_col_take(pr->d[c], pr->ri, pr->np)) == NULL)
			rc = sl_err_nomem(err);
	if (rc == 0 &&
	    (*w = wide_batch(p, s, mine, other, pr->np, err)) == NULL)
		rc = err ? err->code : SL_ENOMEM;
	if (rc == 0) {
		memset(pr->sel, 1, (size_t)pr->np);
		rc = apply_conj(st->both, st->nboth, *w, pr->sel, err);
	}
	for (c = 0; mine && c < nm; c++)
		sl_col_free(mine[c]);
	for (c = 0; other && c < pr->nd; c++)
		sl_col_free(other[c]);
	free(mine);
	free(other);
	return rc;
}

/* What the passing pairs emit: the pairs (inner, outer); the new left rows
 * that matched (left semi, left side); the held left rows matched for
 * the first time (left semi, right side). */
static int probe_emit(sl_op *op, int s, const sl_batch *b, probe *pr,
		      sl_batch *w, const uint8_t *matched, sl_err *err)
{
	ssjoinst *st = op->state;
	sl_batch *f, *held;
	int64_t k = 0, i;
	int rc;
	if (st->jt != SL_JOIN_SEMI) {
		for (i = 0; i < pr->np; i++)
			k += pr->sel[i];
		if (k == 0)
			return 0;
		f = k == pr->np ? sl_batch_ref(w)
				: sl_batch_filter(w, pr->sel, k);
		if (f == NULL)
			return sl_err_nomem(err);
		rc = emit_wide(op, f, err);
		sl_batch_free(f);
		return rc;
	}
	if (s == 0)
		return emit_selected(op, 0, b, matched, err);
	for (i = 0; i < pr->total; i++)
		pr->hmatched[i] = pr->hhit[i] && !pr->hmatched[i];
	held = sl_batch_new(op->plan->child[0]->schema, pr->total, pr->d);
	free(pr->d); /* the batch owns the columns now */
	pr->d = NULL;
	if (held == NULL)
		return sl_err_nomem(err);
	rc = emit_selected(op, 0, held, pr->hmatched, err);
	sl_batch_free(held);
	return rc;
}

/* Join the rows of b (side s) with the other side's held rows: emit, set
 * the held rows' matched flags, and matched[i] for each row of b. */
static int probe_run(sl_op *op, int s, const sl_batch *b, sl_col *const *kc,
		     uint8_t *matched, sl_err *err)
{
	const sl_plan *p = op->plan;
	ssjoinst *st = op->state;
	probe pr;
	sl_batch *w = NULL;
	int64_t k, r;
	int rc;
	memset(&pr, 0, sizeof pr);
	rc = probe_find(st, s, b, kc, p->njkeys, &pr, err);
	if (rc < 0 || pr.np == 0)
		goto out;
	rc = probe_pairs(st, s, b, p->child[1 - s]->schema, &pr, err);
	if (rc < 0 || pr.np == 0)
		goto out;
	if ((rc = probe_check(op, s, b, &pr, &w, err)) < 0)
		goto out;
	for (k = 0; k < pr.np; k++)
		if (pr.sel[k]) {
			matched[pr.li[k]] = 1;
			pr.hhit[pr.ri[k]] = 1;
		}
	for (r = 0; rc == 0 && st->hdr > 8 && r < pr.total; r++)
		if (pr.hhit[r] && !pr.hmatched[r])
			rc = set_matched(st, &pr, r, err);
	if (rc == 0)
		rc = probe_emit(op, s, b, &pr, w, matched, err);
out:
	sl_batch_free(w);
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

/* Whether row i of side s (matched[i]: it joined on arrival) is held
 * (the rule in the opening comment). */
static bool holds(const ssjoinst *st, int s, bool matched, bool evicting)
{
	if (s == 0)
		return !(st->jt == SL_JOIN_SEMI && matched);
	return !evicting || (outer_side(st, 1) && !matched);
}

/* Hold the rows of b on side s. */
static int keep(sl_op *op, int s, const sl_batch *b, sl_col *const *kc,
		const uint8_t *matched, sl_err *err)
{
	const sl_plan *p = op->plan;
	ssjoinst *st = op->state;
	bool feed = sl_stream_wants_rows(st->ctx), outer = outer_side(st, s);
	int64_t swm = 0, i, t;
	bool has = state_wm(st, s, &swm);
	size_t klen;
	int rc;
	for (i = 0; i < b->nrows; i++) {
		/* a NULL key never matches; on an outer side the row is held
		 * all the same, for its NULL-padded row at eviction */
		if (!outer && null_key(kc, p->njkeys, i))
			continue;
		t = evict_time(st, s, b, kc, i);
		if (!holds(st, s, matched[i],
			   has && t != INT64_MIN && t <= swm))
			continue;
		sl_buf_clear(&st->kb);
		sl_buf_addc(&st->kb, (char)s);
		sl_hash_key_encode(kc, p->njkeys, i, &st->kb);
		klen = st->kb.len;
		sl_ssjoin_put_seq(&st->kb, st->next_seq);
		sl_buf_clear(&st->vb);
		sl_buf_add(&st->vb, &t, 8);
		if (st->hdr > 8)
			sl_buf_addc(&st->vb, (char)(matched[i] != 0));
		sl_hash_key_encode(b->cols, b->ncols, i, &st->vb);
		if (sl_buf_failed(&st->kb) || sl_buf_failed(&st->vb))
			return sl_err_nomem(err);
		if ((rc = sl_state_put(st->sf.store, st->kb.p, st->kb.len,
				       st->vb.p, st->vb.len, err)) < 0)
			return rc;
		if (sl_ssjoin_ix_add(st, st->kb.p, klen, st->next_seq++) < 0) {
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
	sl_buf outer[2]; /* unmatched rows of outer sides: length ++ bytes */
	int64_t nouter[2];
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

/* Decode one held value (its columns) into row `row` of c. */
static int decode_val(const ssjoinst *st, sl_col *const *c, int n, int64_t row,
		      const void *val, size_t vlen, sl_err *err)
{
	return sl_hash_key_decode(c, n, row, (const char *)val + st->hdr,
				  vlen - st->hdr, NULL, err);
}

static sl_col **new_cols(const sl_type *t, int64_t n)
{
	sl_col **c = calloc((size_t)t->nfields + 1, sizeof *c);
	int k;
	for (k = 0; c != NULL && k < t->nfields; k++)
		if ((c[k] = sl_col_new(t->fields[k].type, n)) == NULL) {
			while (k-- > 0)
				sl_col_free(c[k]);
			free(c);
			return NULL;
		}
	return c;
}

static void evict_event(const evict *ev, int s, const void *val, size_t vlen)
{
	const sl_type *t = ev->p->child[s]->schema;
	sl_col **c = new_cols(t, 1);
	sl_buf r;
	sl_buf_init(&r);
	if (c != NULL &&
	    decode_val(ev->st, c, t->nfields, 0, val, vlen, NULL) == 0) {
		sl_stream_row_text(c, t->nfields, 0, &r);
		if (!sl_buf_failed(&r))
			held_event(ev->st, s, sl_buf_cstr(&r), "EVICTED");
	}
	sl_buf_release(&r);
	sl_cols_free(c, t->nfields);
}

static int evict_one(void *ud, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	evict *ev = ud;
	int s = *(const unsigned char *)key ? 1 : 0;
	sl_ssjoin_ix_remove(
	    ev->st, key, klen - 8,
	    sl_ssjoin_get_seq((const unsigned char *)key + klen - 8));
	if (ev->feed)
		evict_event(ev, s, val, vlen);
	/* Spark counts numRowsRemoved only in its cleanup pass over the
	 * sides that emit no NULL-padded rows; an outer side's rows leave
	 * the state while its outer output is generated, uncounted */
	if (outer_side(ev->st, s))
		ev->st->sf.unremoved++;
	if (outer_side(ev->st, s) && vlen > 8 && ((const char *)val)[8] == 0) {
		uint64_t n = vlen;
		sl_buf_add(&ev->outer[s], &n, sizeof n);
		sl_buf_add(&ev->outer[s], val, vlen);
		ev->nouter[s]++;
	}
	return 0;
}

/* The unmatched rows evicted from outer side s, NULL-padded. */
static int emit_evicted(sl_op *op, evict *ev, int s, sl_err *err)
{
	const sl_type *t = op->plan->child[s]->schema;
	sl_col **c;
	const char *q = ev->outer[s].p;
	int64_t i;
	int rc = 0;
	if (ev->nouter[s] == 0)
		return 0;
	if (sl_buf_failed(&ev->outer[s]) ||
	    (c = new_cols(t, ev->nouter[s])) == NULL)
		return sl_err_nomem(err);
	for (i = 0; rc == 0 && i < ev->nouter[s]; i++) {
		uint64_t n;
		memcpy(&n, q, sizeof n);
		rc = decode_val(ev->st, c, t->nfields, i, q + sizeof n,
				(size_t)n, err);
		q += sizeof n + n;
	}
	if (rc == 0)
		rc = emit_padded(op, s, c, ev->nouter[s], err);
	sl_cols_free(c, t->nfields);
	return rc;
}

/* End of a micro-batch: drop the rows below each side's state watermark;
 * the unmatched ones of an outer side come out NULL-padded. */
static int evict_old(sl_op *op, sl_err *err)
{
	ssjoinst *st = op->state;
	evict ev;
	int64_t n;
	int rc, s;
	memset(&ev, 0, sizeof ev);
	ev.st = st;
	ev.p = op->plan;
	ev.has[0] = state_wm(st, 0, &ev.wm[0]);
	ev.has[1] = state_wm(st, 1, &ev.wm[1]);
	ev.feed = sl_stream_wants_rows(st->ctx);
	if (!ev.has[0] && !ev.has[1])
		return 0;
	if ((rc = sl_ssjoin_ix_fresh(st, err)) < 0)
		return rc;
	sl_buf_init(&ev.outer[0]);
	sl_buf_init(&ev.outer[1]);
	n = sl_state_remove_if(st->sf.store, evict_pred, &ev, evict_one, &ev,
			       err);
	rc = n < 0 ? (int)n : 0;
	for (s = 0; rc == 0 && s < 2; s++)
		rc = emit_evicted(op, &ev, s, err);
	sl_buf_release(&ev.outer[0]);
	sl_buf_release(&ev.outer[1]);
	return rc;
}

/* ------------------------------------------------------------ ops */

/* One batch of side s: drop late rows, join, hold. */
static int join_batch(sl_op *op, int s, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	ssjoinst *st = op->state;
	sl_batch *b = NULL;
	sl_col **kc = NULL;
	uint8_t *matched = NULL;
	int rc;
	if ((rc = sl_ssjoin_ix_fresh(st, err)) < 0 ||
	    (rc = admit(op, s, in, &b, err)) < 0 || b == NULL)
		return rc;
	kc = sl_expr_eval_n(s ? p->rkeys : p->lkeys, p->njkeys, b, err);
	matched = calloc((size_t)b->nrows + 1, 1);
	if (kc == NULL)
		rc = err ? err->code : SL_ENOMEM;
	else if (matched == NULL)
		rc = sl_err_nomem(err);
	if (rc == 0)
		rc = probe_run(op, s, b, kc, matched, err);
	if (rc == 0)
		rc = keep(op, s, b, kc, matched, err);
	sl_cols_free(kc, p->njkeys);
	free(matched);
	sl_batch_free(b);
	return rc;
}

/* Spark joins a batch's left rows first, then its right rows (which
 * decides which rows are held and matched): right batches that arrive
 * before the left side finished wait for it. */
static int ssj_push(sl_op *op, int s, sl_batch *in, sl_err *err)
{
	ssjoinst *st = op->state;
	sl_batch **m;
	if (s == 0 || st->left_done)
		return join_batch(op, s, in, err);
	m = realloc(st->pending, (size_t)(st->npending + 1) * sizeof *m);
	if (m == NULL)
		return sl_err_nomem(err);
	st->pending = m;
	m[st->npending++] = sl_batch_ref(in);
	return 0;
}

static void drop_pending(ssjoinst *st)
{
	int i;
	for (i = 0; i < st->npending; i++)
		sl_batch_free(st->pending[i]);
	st->npending = 0;
}

static int ssj_finish(sl_op *op, int side, sl_err *err)
{
	ssjoinst *st = op->state;
	int rc = 0, i;
	if (side == 0) {
		st->left_done = true;
		for (i = 0; rc == 0 && i < st->npending; i++)
			rc = join_batch(op, 1, st->pending[i], err);
		drop_pending(st);
		if (rc < 0)
			return rc;
	}
	if (++op->nfinished < 2)
		return 0;
	op->nfinished = 0;
	st->left_done = false;
	if ((rc = evict_old(op, err)) < 0)
		return rc;
	return sl_op_finish_parent(op, err);
}

/* After an abort the store is back at its last version: the index is
 * rebuilt from it before the next use. */
static void ssj_reset(sl_op *op)
{
	ssjoinst *st = op->state;
	if (st == NULL)
		return;
	st->stale = true;
	st->left_done = false;
	drop_pending(st);
}

static void ssj_free(sl_op *op)
{
	ssjoinst *st = op->state;
	if (st == NULL)
		return;
	sl_ssjoin_ix_clear(st);
	drop_pending(st);
	free(st->pending);
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
	return (cleans(st, 0) || cleans(st, 1)) && new_wm_us != INT64_MIN &&
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
	if (p->jtype == SL_JOIN_ANTI)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported");
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
	st->jt = p->jtype == SL_JOIN_CROSS ? SL_JOIN_INNER : p->jtype;
	st->hdr = st->jt == SL_JOIN_INNER ? 8 : 9;
	sl_buf_init(&st->kb);
	sl_buf_init(&st->vb);
	if (analyse(p, st, err) < 0) {
		sl_op_free(op);
		return NULL;
	}
	return op;
}
