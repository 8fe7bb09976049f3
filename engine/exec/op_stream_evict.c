/*
 * op_stream_evict: the streaming aggregate's eviction (op_stream.c).  At
 * the end of a micro-batch the entries whose compared value (window end,
 * event time) is <= ctx->wm_evict_us leave the store; the event-time index
 * st->ix (window.h) finds them without scanning the store, and is rebuilt
 * from the store after a restore or an abort; windowed keys keep only the
 * smallest window end instead and remove what is due in one pass over
 * the store (scan_evict, op_stream_int.h).  In append mode the evicted
 * groups are the output, once, in key order.
 */
#include "exec/op_stream_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/feed.h"
#include "exec/hash.h"
#include "exec/stream_int.h"

/* ---- entry times from key bytes (scan_evict) ---- */

/* Whether values of t can be skipped in an encoded key (skip_value). */
static bool skippable(const sl_type *t)
{
	int k;
	switch (t->kind) {
	case SL_BOOLEAN:
	case SL_INT:
	case SL_DATE:
	case SL_BIGINT:
	case SL_TIMESTAMP:
	case SL_DOUBLE:
	case SL_STRING:
	case SL_BINARY:
	case SL_NULLTYPE: return true;
	case SL_STRUCT:
		for (k = 0; k < t->nfields; k++)
			if (!skippable(t->fields[k].type))
				return false;
		return true;
	default: return false;
	}
}

/* Step *at over one encoded value of type t (sl_hash_key_encode's
 * layout: a flag byte, 0 for NULL, then the value: fixed widths, a
 * string's bytes up to 00 01 with 00 escaped as 00 FF, a struct's
 * fields).  False when the bytes end first. */
static bool skip_value(const sl_type *t, const unsigned char *p, size_t n,
		       size_t *at)
{
	int k;
	if (*at >= n)
		return false;
	if (p[(*at)++] == 0)
		return true;
	switch (t->kind) {
	case SL_BOOLEAN: *at += 1; break;
	case SL_INT:
	case SL_DATE: *at += 4; break;
	case SL_BIGINT:
	case SL_TIMESTAMP:
	case SL_DOUBLE: *at += 8; break;
	case SL_STRING:
	case SL_BINARY:
		for (;;) {
			if (*at + 1 >= n)
				return false;
			if (p[*at] == 0 && p[*at + 1] == 1) {
				*at += 2;
				break;
			}
			*at += p[*at] == 0 ? 2 : 1;
		}
		break;
	case SL_STRUCT:
		for (k = 0; k < t->nfields; k++)
			if (!skip_value(t->fields[k].type, p, n, at))
				return false;
		break;
	default: return false;
	}
	return *at <= n;
}

bool sl_sagg_can_scan(const saggst *st, const sl_plan *p)
{
	const sl_type *w;
	int k;
	if (st->et.kind != SL_ET_WCOL && st->et.kind != SL_ET_WCALL)
		return false;
	if (st->et.key < 0 || st->et.key >= p->nkeys)
		return false;
	for (k = 0; k < st->et.key; k++)
		if (!skippable(p->keys[k]->rtype))
			return false;
	w = p->keys[st->et.key]->rtype;
	return w->kind == SL_STRUCT && w->nfields == 2 &&
	       skippable(w->fields[0].type) &&
	       w->fields[1].type->kind == SL_TIMESTAMP;
}

bool sl_sagg_entry_time(const sl_op *op, const void *key, size_t klen,
			int64_t *t)
{
	const saggst *st = op->state;
	const sl_plan *p = op->plan;
	const unsigned char *b = key;
	const sl_type *w = p->keys[st->et.key]->rtype;
	size_t at = 0;
	uint64_t v = 0;
	int k;
	for (k = 0; k < st->et.key; k++)
		if (!skip_value(p->keys[k]->rtype, b, klen, &at))
			return false;
	if (at >= klen || b[at++] == 0) /* a NULL window */
		return false;
	if (!skip_value(w->fields[0].type, b, klen, &at))
		return false;
	if (at + 9 > klen || b[at++] == 0) /* a NULL end */
		return false;
	for (k = 0; k < 8; k++)
		v = v << 8 | b[at + (size_t)k];
	*t = (int64_t)(v ^ (UINT64_C(1) << 63));
	return true;
}

void sl_sagg_note_end(saggst *st, int64_t t)
{
	int i;
	for (i = 0; i < st->nends; i++)
		if (st->ends[i] == t)
			return;
	if (st->nends < SCAN_ENDS) {
		st->ends[st->nends++] = t;
		return;
	}
	st->scan_evict = false; /* too many open windows: the index */
	st->ix.valid = false;
}

static int64_t min_end(const saggst *st)
{
	int64_t m = INT64_MAX;
	int i;
	for (i = 0; i < st->nends; i++)
		m = st->ends[i] < m ? st->ends[i] : m;
	return m;
}

/* The distinct entry times of the store (scan_evict's rebuild); stops
 * when there are too many. */
static int end_entry(void *ud, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	sl_op *op = ud;
	saggst *st = op->state;
	int64_t t;
	(void)val;
	(void)vlen;
	if (sl_sagg_entry_time(op, key, klen, &t))
		sl_sagg_note_end(st, t);
	return !st->scan_evict;
}

typedef struct rebuild {
	sl_op *op;
	sl_col **kc;
	int64_t row, cap;
	int rc;
	sl_err *err;
} rebuild;

static int rebuild_entry(void *ud, const void *key, size_t klen,
			 const void *val, size_t vlen)
{
	rebuild *r = ud;
	saggst *st = r->op->state;
	const sl_plan *p = r->op->plan;
	int64_t t;
	(void)val;
	(void)vlen;
	if (r->row == r->cap) { /* fresh columns: strings pile up */
		sl_sagg_free_cols(r->kc, p->nkeys);
		r->kc = calloc((size_t)p->nkeys + 1, sizeof *r->kc);
		for (int i = 0; r->kc != NULL && i < p->nkeys; i++)
			if ((r->kc[i] =
				 sl_col_new(p->keys[i]->rtype, r->cap)) == NULL)
				return r->rc = SL_ENOMEM;
		if (r->kc == NULL)
			return r->rc = SL_ENOMEM;
		r->row = 0;
	}
	if ((r->rc = sl_hash_key_decode(r->kc, p->nkeys, r->row, key, klen,
					NULL, r->err)) < 0)
		return r->rc;
	if (sl_sagg_key_time(st, r->kc, r->row, &t) &&
	    (r->rc = sl_win_index_push(&st->ix, t, key, klen, r->err)) < 0)
		return r->rc;
	r->row++;
	return 0;
}

/* The index lost track (new operator over a restored store, or an
 * abort): one scan of the store rebuilds it. */
int sl_sagg_rebuild_index(sl_op *op, sl_err *err)
{
	saggst *st = op->state;
	rebuild r;
	if (st->scan_evict) {
		sl_win_index_clear(&st->ix); /* valid: the ends are known */
		st->nends = 0;
		sl_state_foreach(st->sf.store, end_entry, op);
		if (st->scan_evict)
			return 0;
	} /* else (or too many ends) the index of every key */
	memset(&r, 0, sizeof r);
	r.op = op;
	r.err = err;
	r.cap = 1024;
	r.row = r.cap;
	sl_win_index_clear(&st->ix);
	sl_state_foreach(st->sf.store, rebuild_entry, &r);
	sl_sagg_free_cols(r.kc, op->plan->nkeys);
	if (r.rc < 0) {
		st->ix.valid = false;
		return r.rc == SL_ENOMEM ? sl_err_nomem(err) : r.rc;
	}
	return 0;
}

void sl_sagg_evicted_out(sl_op *op, sl_batch *o, sl_batch **out)
{
	sl_sagg_feed_evicted(op, o, out != NULL ? "EMITTED" : "EVICTED");
	if (out != NULL)
		*out = o;
	else
		sl_batch_free(o);
}

/* Feed events for evicted rows (capped like the others). */
void sl_sagg_feed_evicted(sl_op *op, const sl_batch *o, const char *word)
{
	saggst *st = op->state;
	const sl_plan *p = op->plan;
	sl_buf k, v;
	int64_t r;
	if (!sl_stream_wants_rows(st->ctx) || o == NULL)
		return;
	sl_buf_init(&k);
	sl_buf_init(&v);
	for (r = 0; r < o->nrows && r < SL_FEED_ROWS_PER_BATCH; r++) {
		sl_buf_clear(&k);
		sl_buf_clear(&v);
		sl_stream_row_text(o->cols, p->nkeys, r, &k);
		sl_stream_row_text(o->cols + p->nkeys, o->ncols - p->nkeys, r,
				   &v);
		sl_stream_state_event(st->ctx, st->sf.name, sl_buf_cstr(&k),
				      sl_buf_cstr(&v), word);
	}
	sl_buf_release(&k);
	sl_buf_release(&v);
}

/* The index's keys due at lim (valid until the next push), with their
 * hashes in .g, as the prefetching loop of evict wants them. */
static int pop_due(saggst *st, int64_t lim, kents *due)
{
	const void *key;
	size_t klen;
	int64_t t, i;
	while (sl_win_index_pop(&st->ix, lim, &t, &key, &klen))
		if (sl_sagg_kents_add(due, key, klen, NULL, 0) < 0)
			return SL_ENOMEM;
	for (i = 0; i < due->n; i++)
		due->e[i].g =
		    (int64_t)sl_state_hash(due->e[i].k, due->e[i].klen);
	return 0;
}

/* Remove the due keys from the store (one lookup each, prefetched ahead
 * like the merge); l and vals get the removed entries when want. */
static int remove_due(saggst *st, const kents *due, bool want, kents *l,
		      sl_buf *vals)
{
	sl_state *s = st->sf.store;
	int64_t i, n = due->n;
	int rc = 0;
	for (i = 0; i < n && i < 2 * MERGE_AHEAD; i++)
		sl_state_prefetch(s, (uint64_t)due->e[i].g);
	for (i = 0; i < n && rc >= 0; i++) {
		const kent *d = &due->e[i];
		sl_state_pos pos;
		size_t vlen;
		const void *v;
		if (i + 2 * MERGE_AHEAD < n)
			sl_state_prefetch(s, (uint64_t)d[2 * MERGE_AHEAD].g);
		if (i + MERGE_AHEAD < n)
			sl_state_prefetch_entry(s, (uint64_t)d[MERGE_AHEAD].g);
		v = sl_state_find(s, (uint64_t)d->g, d->k, d->klen, &vlen,
				  &pos);
		if (v == NULL) /* stale: removed already */
			continue;
		if (want) {
			rc = sl_sagg_kents_add(l, d->k, d->klen, NULL, vlen);
			if (rc == 0)
				l->e[l->n - 1].g = (int64_t)vals->len;
			sl_buf_add(vals, v, vlen);
		}
		/* remove_at is 1 for a removed key: not carried into the next
		 * entry's rc == 0 test (it skipped every later removal) */
		if (rc == 0 && (rc = sl_state_remove_at(s, &pos, d->k,
							d->klen)) > 0)
			rc = 0;
	}
	return rc < 0 ? rc : 0;
}

/* scan_evict: one pass over the store removes the entries due (pred)
 * and finds the smallest time of the others; with want, the removed keys
 * and values are copied to vals (the store's bytes go with the entry) and
 * listed in l by offset (.g: the key's, the value follows it). */
typedef struct scan {
	sl_op *op;
	int64_t lim;
	bool want;
	kents *l;
	sl_buf *vals;
	int rc;
} scan;

static int scan_due(void *ud, const void *key, size_t klen, const void *val,
		    size_t vlen)
{
	scan *sc = ud;
	int64_t t;
	(void)val;
	(void)vlen;
	if (!sl_sagg_entry_time(sc->op, key, klen, &t))
		return 0;
	if (t <= sc->lim)
		return 1;
	sl_sagg_note_end(sc->op->state, t); /* a subset of the ends before */
	return 0;
}

static int scan_removed(void *ud, const void *key, size_t klen, const void *val,
			size_t vlen)
{
	scan *sc = ud;
	if (!sc->want || sc->rc < 0)
		return 0;
	if (sl_sagg_kents_add(sc->l, NULL, klen, NULL, vlen) < 0) {
		sc->rc = SL_ENOMEM;
		return 0;
	}
	sc->l->e[sc->l->n - 1].g = (int64_t)sc->vals->len;
	sl_buf_add(sc->vals, key, klen);
	sl_buf_add(sc->vals, val, vlen);
	return 0;
}

static int evict_scan(sl_op *op, int64_t lim, bool want, kents *l, sl_buf *vals,
		      sl_err *err)
{
	saggst *st = op->state;
	scan sc;
	int64_t i, n;
	memset(&sc, 0, sizeof sc);
	sc.op = op;
	sc.lim = lim;
	st->nends = 0; /* found again by the pass over what stays */
	sc.want = want;
	sc.l = l;
	sc.vals = vals;
	n = sl_state_remove_if(st->sf.store, scan_due, &sc, scan_removed, &sc,
			       err);
	if (n < 0)
		return (int)n;
	if (sc.rc < 0 || sl_buf_failed(vals))
		return SL_ENOMEM;
	for (i = 0; i < l->n; i++) { /* offsets -> pointers */
		l->e[i].k = (const unsigned char *)vals->p + l->e[i].g;
		l->e[i].v = l->e[i].k + l->e[i].klen;
	}
	return 0;
}

/* Remove every entry whose compared value <= the eviction watermark;
 * *out (when out != NULL: Append) gets them as output rows, in key
 * order.  Each entry leaves the store once, so it is emitted once. */
int sl_sagg_evict(sl_op *op, sl_batch **out, sl_err *err)
{
	saggst *st = op->state;
	int64_t lim = st->ctx->wm_evict_us, i;
	sl_buf vals;
	kents l, due;
	sl_batch *o = NULL;
	bool want = out != NULL || sl_stream_wants_rows(st->ctx);
	int rc = 0;
	if (lim == INT64_MIN)
		return 0;
	if (!st->ix.valid && (rc = sl_sagg_rebuild_index(op, err)) < 0)
		return rc;
	st->last_evict_us = lim;
	if ((st->scan_evict ? min_end(st) : sl_win_index_min(&st->ix)) > lim)
		return 0;
	memset(&l, 0, sizeof l);
	memset(&due, 0, sizeof due);
	sl_buf_init(&vals);
	if (st->scan_evict) {
		rc = evict_scan(op, lim, want, &l, &vals, err);
	} else {
		rc = pop_due(st, lim, &due);
		if (rc == 0)
			rc = remove_due(st, &due, want, &l, &vals);
		if (rc == 0 && sl_buf_failed(&vals))
			rc = SL_ENOMEM;
		for (i = 0; rc == 0 && i < l.n; i++) /* offsets -> pointers */
			l.e[i].v = (const unsigned char *)vals.p + l.e[i].g;
	}
	free(due.e);
	if (rc == 0 && l.n > 0) {
		qsort(l.e, (size_t)l.n, sizeof *l.e, sl_sagg_kent_cmp);
		if ((o = sl_sagg_decode_rows(op, l.e, l.n, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
		sl_sagg_evicted_out(op, o, out);
	}
	free(l.e);
	sl_buf_release(&vals);
	return rc == SL_ENOMEM ? sl_err_nomem(err) : rc;
}
