/*
 * op_stream_evict: the streaming aggregate's eviction (op_stream.c).  At
 * the end of a micro-batch the entries whose compared value (window end,
 * event time) is <= ctx->wm_evict_us leave the store; the event-time index
 * st->ix (window.h) finds them without scanning the store, and is rebuilt
 * from the store after a restore or an abort.  In append mode the evicted
 * groups are the output, once, in key order.
 */
#include "exec/op_stream_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/feed.h"
#include "exec/hash.h"
#include "exec/stream_int.h"

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

/* Feed events for evicted rows (capped like the others). */
static void feed_evicted(sl_op *op, const sl_batch *o, const char *word)
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
		if (rc == 0)
			rc = sl_state_remove_at(s, &pos, d->k, d->klen);
	}
	return rc < 0 ? rc : 0;
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
	if (sl_win_index_min(&st->ix) > lim)
		return 0;
	memset(&l, 0, sizeof l);
	memset(&due, 0, sizeof due);
	sl_buf_init(&vals);
	rc = pop_due(st, lim, &due);
	if (rc == 0)
		rc = remove_due(st, &due, want, &l, &vals);
	free(due.e);
	if (rc == 0 && sl_buf_failed(&vals))
		rc = SL_ENOMEM;
	for (i = 0; rc == 0 && i < l.n; i++) /* offsets -> pointers */
		l.e[i].v = (const unsigned char *)vals.p + l.e[i].g;
	if (rc == 0 && l.n > 0) {
		qsort(l.e, (size_t)l.n, sizeof *l.e, sl_sagg_kent_cmp);
		if ((o = sl_sagg_decode_rows(op, l.e, l.n, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
		feed_evicted(op, o, out != NULL ? "EMITTED" : "EVICTED");
		if (out != NULL)
			*out = o;
		else
			sl_batch_free(o);
	}
	free(l.e);
	sl_buf_release(&vals);
	return rc == SL_ENOMEM ? sl_err_nomem(err) : rc;
}
