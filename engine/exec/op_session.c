/*
 * op_session: aggregation over session_window(ts, gap) keys, for batch
 * DataFrames and streaming queries alike (Spark's MergingSessionsExec +
 * SessionWindowStateStoreSaveExec).
 *
 * Each event is [ts, ts + gap), the gap a literal or, per row, an
 * expression (SPARK-36465: a row whose gap is NULL, not a duration or <= 0
 * has no session and is dropped).  Per value of the other grouping keys,
 * sessions merge while the next start <= the current end (touching
 * sessions merge): a session is [first ts, max(ts + gap)).  A new event
 * can bridge two stored sessions: both leave the store and the merged one
 * takes their place with the merged aggregation buffers.
 *
 * Per micro-batch (at finish): the batch's rows (null event times and, in
 * a stream, rows whose own session end ts + gap <= the late watermark:
 * counted and logged per row) are sorted by (other keys, ts); each key's
 * stored sessions join the sweep; sessions touched by new rows are
 * re-aggregated (stored buffers merged with the new rows) and written back
 * under (key, session start) -> (end, buffers).  Append emits and removes
 * the sessions whose end <= the eviction watermark (an sl_win_index finds
 * them); Complete emits every stored session.  A batch plan runs the same
 * sweep once, without a store.
 *
 * An in-memory map key -> stored session starts (a second, uncommitted
 * sl_state) finds a key's sessions; it is rebuilt from the store after an
 * abort.  With the feed's detail on, each batch's sessions are STATE_ROW
 * events (see "feed events" below: the workbench's windows pane and its
 * rewind, repl/model_rewind_state.c).  Ownership: the operator owns its
 * stores and buffered batches.
 */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

#include "exec/agg.h"
#include "exec/hash.h"
#include "exec/stream_int.h"
#include "core/feed.h"
#include "core/timeutil.h"
#include "exec/window.h"

typedef struct sess {
	sl_op_stateful sf;
	sl_stream_ctx *ctx; /* NULL: batch */
	int skey;           /* the session_window key */
	int64_t gap;
	sl_batch **in; /* this batch's rows */
	int nin, capin;
	sl_state *idx; /* other-key bytes -> int64 starts */
	bool idx_valid;
	sl_win_index ix;       /* session end -> state key */
	int64_t last_evict_us; /* the watermark of the last eviction */
} sess;

/* One sweep item: a row of this batch or a stored session. */
typedef struct item {
	int64_t s, e; /* interval */
	int64_t row;  /* row index, or -1 for a stored session */
} item;

static int item_cmp(const void *a, const void *b)
{
	const item *x = a, *y = b;
	if (x->s != y->s)
		return (x->s > y->s) - (x->s < y->s);
	return (x->row > y->row) - (x->row < y->row);
}

typedef struct fsess {
	int64_t s, e;
	size_t kof, klen; /* other-key bytes in the key buffer */
	bool touched;     /* has new rows */
} fsess;

/* ---------------------------------------------------- state keys */

static void put_be64(sl_buf *b, int64_t v)
{
	uint64_t u = (uint64_t)v ^ UINT64_C(0x8000000000000000);
	unsigned char x[8];
	int i;
	for (i = 7; i >= 0; i--) {
		x[i] = (unsigned char)(u & 0xff);
		u >>= 8;
	}
	sl_buf_add(b, x, 8);
}

static int64_t get_be64(const unsigned char *x)
{
	uint64_t u = 0;
	int i;
	for (i = 0; i < 8; i++)
		u = (u << 8) | x[i];
	return (int64_t)(u ^ UINT64_C(0x8000000000000000));
}

/* ------------------------------------------------------- the index */

static int idx_add(sess *st, const void *k, size_t klen, int64_t start,
		   bool add, sl_err *err)
{
	size_t vlen = 0, n, i, j = 0;
	const int64_t *old = sl_state_get(st->idx, k, klen, &vlen);
	int64_t *nv;
	int rc;
	n = old ? vlen / 8 : 0;
	if ((nv = malloc((n + 1) * 8)) == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < n; i++) {
		int64_t v;
		memcpy(&v, (const char *)old + 8 * i, 8);
		if (v != start)
			nv[j++] = v;
	}
	if (add)
		nv[j++] = start;
	rc = j ? sl_state_put(st->idx, k, klen, nv, j * 8, err) : 0;
	if (j == 0)
		sl_state_remove(st->idx, k, klen);
	free(nv);
	return rc;
}

static int rebuild_one(void *ud, const void *key, size_t klen, const void *val,
		       size_t vlen)
{
	sess *st = ud;
	int64_t end;
	(void)vlen;
	if (klen < 8)
		return 0;
	memcpy(&end, val, 8);
	if (idx_add(st, key, klen - 8,
		    get_be64((const unsigned char *)key + klen - 8), true,
		    NULL) < 0 ||
	    sl_win_index_push(&st->ix, end, key, klen, NULL) < 0)
		return SL_ENOMEM;
	return 0;
}

static int rebuild(sess *st, sl_err *err)
{
	sl_state_free(st->idx);
	if ((st->idx = sl_state_new()) == NULL)
		return sl_err_nomem(err);
	sl_win_index_clear(&st->ix);
	if (sl_state_foreach(st->sf.store, rebuild_one, st) != 0)
		return sl_err_nomem(err);
	st->idx_valid = true;
	return 0;
}

/* ------------------------------------------------------- operator */

static int sess_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	sess *st = op->state;
	(void)side;
	if (st->nin == st->capin) {
		int cap = st->capin ? 2 * st->capin : 8;
		sl_batch **m = realloc(st->in, (size_t)cap * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(err);
		st->in = m;
		st->capin = cap;
	}
	st->in[st->nin++] = sl_batch_ref(in);
	return 0;
}

static void sess_clear(sl_op *op)
{
	sess *st = op->state;
	int i;
	for (i = 0; i < st->nin; i++)
		sl_batch_free(st->in[i]);
	st->nin = 0;
}

static const sl_expr *unalias(const sl_expr *e)
{
	while (e->kind == SL_X_ALIAS)
		e = e->args[0];
	return e;
}

/* Rows kept: a session (the event time not null, and a dynamic gap a
 * duration > 0), and in a stream not late (logged).  sw: the evaluated
 * session_window column, [ts, ts + the row's gap). */
static sl_batch *keep_rows(sl_op *op, sl_batch *b, const sl_col *sw,
			   sl_err *err)
{
	const sl_col *ts = sw->child[0], *te = sw->child[1];
	sess *st = op->state;
	uint8_t *sel = malloc((size_t)b->nrows + 1);
	int64_t i, n = 0,
		   wm = st->ctx && st->ctx->mode != SL_MODE_COMPLETE
			    ? st->ctx->wm_late_us
			    : INT64_MIN;
	sl_batch *o;
	sl_buf row;
	if (sel == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	sl_buf_init(&row);
	for (i = 0; i < b->nrows; i++) {
		int64_t t = sl_col_i64(ts)[i];
		bool none = sl_col_isnull(sw, i) || sl_col_isnull(ts, i);
		sel[i] = !none && (wm == INT64_MIN || sl_col_i64(te)[i] > wm);
		n += sel[i];
		if (!none && !sel[i]) {
			int k;
			st->sf.dropped++; /* Spark: per row for sessions */
			sl_buf_clear(&row);
			sl_buf_addc(&row, '{');
			for (k = 0; k < b->ncols; k++) {
				const char *nm = b->schema->fields[k].name;
				sl_buf_printf(&row, "%s\"%s\":", k ? "," : "",
					      nm);
				sl_value_json(b->cols[k], i, &row);
			}
			sl_buf_addc(&row, '}');
			if (st->sf.dropped <= 10000 && !sl_buf_failed(&row))
				sl_stream_late(st->ctx, st->sf.name,
					       sl_buf_cstr(&row), t, "[]", wm);
		}
	}
	sl_buf_release(&row);
	o = sl_batch_filter(b, sel, n);
	free(sel);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

typedef struct rowkey {
	int64_t row;
	const char *k;
	size_t klen;
	int64_t ts;
} rowkey;

static int rowkey_cmp(const void *a, const void *b)
{
	const rowkey *x = a, *y = b;
	size_t m = x->klen < y->klen ? x->klen : y->klen;
	int r = m ? memcmp(x->k, y->k, m) : 0;
	if (r == 0)
		r = (x->klen > y->klen) - (x->klen < y->klen);
	return r ? r : (x->ts > y->ts) - (x->ts < y->ts);
}

/* The run of one micro-batch (or the whole batch query). */
typedef struct srun {
	sl_op *op;
	sl_batch *b; /* kept rows */
	sl_col *ts;
	sl_col *sw; /* their session_window column: [ts, ts + gap) */
	sl_col **ok; /* other key columns (nkeys - 1) */
	sl_buf keys; /* other-key bytes per row */
	int64_t *koff;
	int32_t *gid; /* final session of each row */
	fsess *fs;
	int64_t nfs, capfs;
	sl_buf olds; /* stored sessions merged: sid, klen, key */
	sl_agg **aggs;
	bool feed;     /* STATE_ROW events wanted */
	sl_buf merged; /* the feed's merged-away sessions: klen, vlen, key,
			  value */
	int64_t nmerged;
} srun;

/* A stored session merged into one with another window, for its EVICTED
 * event (the bytes copied: the store drops them). */
static int keep_merged(srun *r, const void *k, size_t klen, const void *v,
		       size_t vlen, sl_err *err)
{
	uint64_t n[2] = { klen, vlen };
	sl_buf_add(&r->merged, n, sizeof n);
	sl_buf_add(&r->merged, k, klen);
	sl_buf_add(&r->merged, v, vlen);
	r->nmerged++;
	return sl_buf_failed(&r->merged) ? sl_err_nomem(err) : 0;
}

static int fs_add(srun *r, int64_t s, int64_t e, size_t kof, size_t klen)
{
	if (r->nfs == r->capfs) {
		int64_t cap = r->capfs ? 2 * r->capfs : 64;
		fsess *m = realloc(r->fs, (size_t)cap * sizeof *m);
		if (m == NULL)
			return SL_ENOMEM;
		r->fs = m;
		r->capfs = cap;
	}
	r->fs[r->nfs].s = s;
	r->fs[r->nfs].e = e;
	r->fs[r->nfs].kof = kof;
	r->fs[r->nfs].klen = klen;
	r->fs[r->nfs].touched = false;
	r->nfs++;
	return 0;
}

/* Items of one key: its rows [lo, hi) of rk and its stored sessions. */
static int sweep_key(srun *r, const rowkey *rk, int64_t lo, int64_t hi,
		     sl_err *err)
{
	sess *st = r->op->state;
	const char *k = rk[lo].k;
	size_t klen = rk[lo].klen, vlen = 0, ns = 0, i;
	const char *starts = NULL;
	item *it;
	int64_t n = hi - lo, m = 0, j;
	sl_buf sk;
	if (st->ctx != NULL &&
	    (starts = sl_state_get(st->idx, k, klen, &vlen)) != NULL)
		ns = vlen / 8;
	if ((it = malloc((size_t)(n + (int64_t)ns + 1) * sizeof *it)) == NULL)
		return sl_err_nomem(err);
	for (j = lo; j < hi; j++) {
		it[m].s = rk[j].ts;
		it[m].e = sl_col_i64(r->sw->child[1])[rk[j].row];
		it[m++].row = rk[j].row;
	}
	sl_buf_init(&sk);
	for (i = 0; i < ns; i++) {
		int64_t s0, e0;
		const void *v;
		memcpy(&s0, starts + 8 * i, 8);
		sl_buf_clear(&sk);
		sl_buf_add(&sk, k, klen);
		put_be64(&sk, s0);
		if ((v = sl_state_get(st->sf.store, sk.p, sk.len, &vlen)) ==
		    NULL)
			continue;
		memcpy(&e0, v, 8);
		it[m].s = s0;
		it[m].e = e0;
		it[m++].row = -1;
	}
	qsort(it, (size_t)m, sizeof *it, item_cmp);
	for (j = 0; j < m; j++) {
		fsess *f = r->nfs ? &r->fs[r->nfs - 1] : NULL;
		if (j == 0 || it[j].s > f->e) {
			if (fs_add(r, it[j].s, it[j].e, (size_t)(k - r->keys.p),
				   klen) < 0)
				break;
			f = &r->fs[r->nfs - 1];
		} else if (it[j].e > f->e) {
			f->e = it[j].e;
		}
		if (it[j].row >= 0) {
			r->gid[it[j].row] = (int32_t)(r->nfs - 1);
			f->touched = true;
		} else { /* remember the stored session: sid, start */
			int64_t sid = r->nfs - 1;
			sl_buf_add(&r->olds, &sid, 8);
			sl_buf_add(&r->olds, &it[j].s, 8);
		}
	}
	sl_buf_release(&sk);
	free(it);
	return j < m ? sl_err_nomem(err) : 0;
}

/* Evaluate keys, sort rows by (key, ts), sweep every key. */
static int sweep(srun *r, sl_err *err)
{
	const sl_plan *p = r->op->plan;
	sess *st = r->op->state;
	int64_t n = r->b->nrows, i, lo;
	int k, nk = 0, rc = 0;
	rowkey *rk;
	r->ok = calloc((size_t)p->nkeys + 1, sizeof *r->ok);
	r->koff = malloc((size_t)(n + 1) * sizeof *r->koff);
	r->gid = malloc((size_t)(n + 1) * sizeof *r->gid);
	rk = malloc((size_t)(n + 1) * sizeof *rk);
	if (r->ok == NULL || r->koff == NULL || r->gid == NULL || rk == NULL) {
		free(rk);
		return sl_err_nomem(err);
	}
	for (k = 0; k < p->nkeys && rc == 0; k++)
		if (k != st->skey &&
		    (r->ok[nk++] = sl_expr_eval(p->keys[k], r->b, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	for (i = 0; i < n && rc == 0; i++) {
		r->koff[i] = (int64_t)r->keys.len;
		sl_hash_key_encode(r->ok, nk, i, &r->keys);
	}
	if (rc == 0 && sl_buf_failed(&r->keys))
		rc = sl_err_nomem(err);
	for (i = 0; i < n && rc == 0; i++) {
		size_t end = i + 1 < n ? (size_t)r->koff[i + 1] : r->keys.len;
		rk[i].row = i;
		rk[i].k = r->keys.p + r->koff[i];
		rk[i].klen = end - (size_t)r->koff[i];
		rk[i].ts = sl_col_i64(r->ts)[i];
	}
	if (rc == 0)
		qsort(rk, (size_t)n, sizeof *rk, rowkey_cmp);
	for (lo = 0; lo < n && rc == 0; lo = i) {
		for (i = lo + 1; i < n && rk[i].klen == rk[lo].klen &&
				 (rk[lo].klen == 0 ||
				  memcmp(rk[i].k, rk[lo].k, rk[lo].klen) == 0);
		     i++)
			;
		rc = sweep_key(r, rk, lo, i, err);
	}
	free(rk);
	return rc;
}

/* Fresh aggregates over the kept rows, grouped by final session. */
static int aggregate(srun *r, sl_err *err)
{
	const sl_plan *p = r->op->plan;
	sl_type *at[8];
	sl_col *ac[8];
	int i, j, rc = 0;
	if ((r->aggs = calloc((size_t)p->naggs + 1, sizeof *r->aggs)) == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < p->naggs && rc == 0; i++) {
		const sl_aggspec *s = &p->aggs[i];
		memset(ac, 0, sizeof ac);
		for (j = 0; j < s->nargs && j < 8; j++)
			at[j] = s->args[j]->rtype;
		r->aggs[i] = sl_agg_new(s->fname, s->distinct, s->count_rows,
					at, s->nargs, s->rsd, err);
		if (r->aggs[i] == NULL)
			return err ? err->code : SL_ENOMEM;
		for (j = 0; j < s->nargs && j < 8 && rc == 0; j++)
			if ((ac[j] = sl_expr_eval(s->args[j], r->b, err)) ==
			    NULL)
				rc = err ? err->code : SL_ENOMEM;
		if (rc == 0)
			rc = sl_agg_update(r->aggs[i], r->gid, r->b->nrows,
					   r->nfs, ac, err);
		for (j = 0; j < 8; j++)
			sl_col_free(ac[j]);
	}
	return rc;
}

/* ---- feed events: the workbench's windows pane (stream_feed.c) ----
 * A session's row is its output row (the session_window struct, the
 * other keys, the aggregates' results): UPDATED when new rows touched it,
 * EVICTED when it merged into another one with another window, EMITTED
 * (Append) or EVICTED when the watermark closed it.  Capped per batch at
 * SL_FEED_ROWS_PER_BATCH per kind, as every operator's. */

typedef struct sent sent;
static sl_batch *entries_out(sl_op *op, sent *en, int64_t n, sl_err *err);
static sl_batch *batch_out(sl_op *op, srun *r, sl_err *err);

/* Rows of o (those with pick[i], or all) as STATE_ROW events. */
static void feed_rows(sl_op *op, const sl_batch *o, const fsess *pick,
		      const char *word)
{
	sess *st = op->state;
	int nk = op->plan->nkeys;
	int64_t i, shown = 0;
	sl_buf k, v;
	if (o == NULL)
		return;
	sl_buf_init(&k);
	sl_buf_init(&v);
	for (i = 0; i < o->nrows && shown < SL_FEED_ROWS_PER_BATCH; i++) {
		if (pick != NULL && !pick[i].touched)
			continue;
		shown++;
		sl_buf_clear(&k);
		sl_buf_clear(&v);
		sl_stream_row_text(o->cols, nk, i, &k);
		sl_stream_row_text(o->cols + nk, o->ncols - nk, i, &v);
		sl_stream_state_event(st->ctx, st->sf.name, sl_buf_cstr(&k),
				      sl_buf_cstr(&v), word);
	}
	sl_buf_release(&k);
	sl_buf_release(&v);
}

/* Stored sessions merged into touched ones: buffers into the aggregates,
 * then out of the store and the index. */
static int merge_olds(srun *r, sl_err *err)
{
	const sl_plan *p = r->op->plan;
	sess *st = r->op->state;
	size_t at, vlen, used, off;
	sl_buf sk;
	int i, rc = 0;
	sl_buf_init(&sk);
	for (at = 0; at + 16 <= r->olds.len && rc == 0; at += 16) {
		int64_t sid, s0;
		const fsess *f;
		const unsigned char *v;
		memcpy(&sid, r->olds.p + at, 8);
		memcpy(&s0, r->olds.p + at + 8, 8);
		f = &r->fs[sid];
		if (!f->touched)
			continue;
		sl_buf_clear(&sk);
		sl_buf_add(&sk, r->keys.p + f->kof, f->klen);
		put_be64(&sk, s0);
		if ((v = sl_state_get(st->sf.store, sk.p, sk.len, &vlen)) ==
		    NULL)
			continue;
		for (i = 0, off = 8; i < p->naggs && rc == 0; i++) {
			rc = sl_agg_merge(r->aggs[i], sid, v + off, vlen - off,
					  &used, err);
			off += used;
		}
		if (rc == 0 && r->feed && vlen >= 8 &&
		    (s0 != f->s || memcmp(v, &f->e, 8) != 0))
			rc = keep_merged(r, sk.p, sk.len, v, vlen, err);
		sl_state_remove(st->sf.store, sk.p, sk.len);
		if (rc == 0)
			rc = idx_add(st, r->keys.p + f->kof, f->klen, s0, false,
				     err);
	}
	sl_buf_release(&sk);
	return rc;
}

/* Touched sessions back into the store, the index and the end index. */
static int store_sessions(srun *r, sl_err *err)
{
	const sl_plan *p = r->op->plan;
	sess *st = r->op->state;
	sl_buf sk, v;
	int64_t sid;
	int i, rc = 0;
	sl_buf_init(&sk);
	sl_buf_init(&v);
	for (sid = 0; sid < r->nfs && rc == 0; sid++) {
		const fsess *f = &r->fs[sid];
		if (!f->touched)
			continue;
		sl_buf_clear(&sk);
		sl_buf_clear(&v);
		sl_buf_add(&sk, r->keys.p + f->kof, f->klen);
		put_be64(&sk, f->s);
		sl_buf_add(&v, &f->e, 8);
		for (i = 0; i < p->naggs && rc == 0; i++)
			rc = sl_agg_save(r->aggs[i], sid, &v, err);
		if (rc == 0 && (sl_buf_failed(&sk) || sl_buf_failed(&v)))
			rc = sl_err_nomem(err);
		if (rc == 0)
			rc = sl_state_put(st->sf.store, sk.p, sk.len, v.p,
					  v.len, err);
		if (rc == 0)
			rc = idx_add(st, sk.p, f->klen, f->s, true, err);
		if (rc == 0)
			rc =
			    sl_win_index_push(&st->ix, f->e, sk.p, sk.len, err);
	}
	sl_buf_release(&sk);
	sl_buf_release(&v);
	return rc;
}

/* Output rows: keys (other keys decoded from key bytes, the session
 * struct) and the aggregates' results for sessions 0..n. */
static sl_batch *output(sl_op *op, const char *const *kp, const size_t *kl,
			const int64_t *s, const int64_t *e, sl_agg **aggs,
			int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	sess *st = op->state;
	sl_col **kc = calloc((size_t)p->nkeys + 1, sizeof *kc);
	sl_col **ok = calloc((size_t)p->nkeys + 1, sizeof *ok);
	sl_batch *o = NULL;
	int64_t i;
	int k, nk = 0, rc = 0;
	if (kc == NULL || ok == NULL)
		rc = sl_err_nomem(err);
	for (k = 0; k < p->nkeys && rc == 0; k++) {
		if ((kc[k] = sl_col_new(p->keys[k]->rtype, n)) == NULL)
			rc = sl_err_nomem(err);
		else if (k != st->skey)
			ok[nk++] = kc[k];
	}
	for (i = 0; i < n && rc == 0; i++) {
		rc = sl_hash_key_decode(ok, nk, i, kp[i], kl[i], NULL, err);
		sl_col_i64(kc[st->skey]->child[0])[i] = s[i];
		sl_col_i64(kc[st->skey]->child[1])[i] = e[i];
	}
	if (rc == 0)
		o = sl_op_agg_output(p, kc, aggs, n, err);
	for (k = 0; kc != NULL && k < p->nkeys; k++)
		sl_col_free(kc[k]);
	free(kc);
	free(ok);
	return o;
}

/* Stored entries (state key, value) as output rows, sorted by key. */
struct sent {
	const char *k, *v;
	size_t klen, vlen;
};

static int sent_cmp(const void *a, const void *b)
{
	const sent *x = a, *y = b;
	size_t m = x->klen < y->klen ? x->klen : y->klen;
	int r = m ? memcmp(x->k, y->k, m) : 0;
	return r ? r : (x->klen > y->klen) - (x->klen < y->klen);
}

static sl_batch *entries_out(sl_op *op, sent *en, int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	const char **kp = malloc((size_t)(n + 1) * sizeof *kp);
	size_t *kl = malloc((size_t)(n + 1) * sizeof *kl), used, off;
	int64_t *s = malloc((size_t)(n + 1) * 8),
		*e = malloc((size_t)(n + 1) * 8);
	sl_agg **aggs = calloc((size_t)p->naggs + 1, sizeof *aggs);
	sl_type *at[8];
	sl_batch *o = NULL;
	int64_t r;
	int i, j, rc = 0;
	if (!kp || !kl || !s || !e || !aggs)
		rc = sl_err_nomem(err);
	if (n > 0 && en != NULL)
		qsort(en, (size_t)n, sizeof *en, sent_cmp);
	for (i = 0; i < p->naggs && rc == 0; i++) {
		const sl_aggspec *a = &p->aggs[i];
		for (j = 0; j < a->nargs && j < 8; j++)
			at[j] = a->args[j]->rtype;
		if ((aggs[i] = sl_agg_new(a->fname, a->distinct, a->count_rows,
					  at, a->nargs, a->rsd, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	}
	for (r = 0; r < n && rc == 0; r++) {
		kp[r] = en[r].k;
		kl[r] = en[r].klen - 8;
		s[r] = get_be64((const unsigned char *)en[r].k + kl[r]);
		memcpy(&e[r], en[r].v, 8);
		for (i = 0, off = 8; i < p->naggs && rc == 0; i++) {
			rc = sl_agg_merge(aggs[i], r, en[r].v + off,
					  en[r].vlen - off, &used, err);
			off += used;
		}
	}
	if (rc == 0)
		o = output(op, kp, kl, s, e, aggs, n, err);
	for (i = 0; aggs != NULL && i < p->naggs; i++)
		sl_agg_free(aggs[i]);
	free(aggs);
	free(kp);
	free(kl);
	free(s);
	free(e);
	return o;
}

typedef struct sents {
	int64_t n, cap;
	sent *e;
	sl_buf copy; /* evicted entries are copied before removal */
} sents;

static int sents_add(void *ud, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	sents *l = ud;
	if (l->n == l->cap) {
		int64_t cap = l->cap ? 2 * l->cap : 64;
		sent *m = realloc(l->e, (size_t)cap * sizeof *m);
		if (m == NULL)
			return SL_ENOMEM;
		l->e = m;
		l->cap = cap;
	}
	l->e[l->n].k = key;
	l->e[l->n].klen = klen;
	l->e[l->n].v = val;
	l->e[l->n].vlen = vlen;
	l->n++;
	return 0;
}

/* Append: sessions whose end <= the eviction watermark leave the store
 * and are emitted once. */
static sl_batch *evict(sl_op *op, sl_err *err)
{
	sess *st = op->state;
	int64_t lim = st->ctx->wm_evict_us, t, i;
	const void *key, *v;
	size_t klen, vlen, at;
	sents l;
	sl_batch *o = NULL;
	memset(&l, 0, sizeof l);
	sl_buf_init(&l.copy);
	st->last_evict_us = lim;
	while (lim != INT64_MIN &&
	       sl_win_index_pop(&st->ix, lim, &t, &key, &klen)) {
		int64_t e;
		if ((v = sl_state_get(st->sf.store, key, klen, &vlen)) == NULL)
			continue;
		memcpy(&e, v, 8);
		if (e != t) /* the session grew since: a later entry has it */
			continue;
		at = l.copy.len;
		sl_buf_add(&l.copy, key, klen);
		sl_buf_add(&l.copy, v, vlen);
		if (sents_add(&l, (const char *)(uintptr_t)at, klen, NULL,
			      vlen) < 0)
			break;
		idx_add(st, key, klen - 8,
			get_be64((const unsigned char *)key + klen - 8), false,
			NULL);
		sl_state_remove(st->sf.store, key, klen);
	}
	for (i = 0; i < l.n; i++) {
		at = (size_t)(uintptr_t)l.e[i].k;
		l.e[i].k = l.copy.p + at;
		l.e[i].v = l.copy.p + at + l.e[i].klen;
	}
	if (!sl_buf_failed(&l.copy))
		o = entries_out(op, l.e, l.n, err);
	else
		sl_err_nomem(err);
	if (sl_stream_wants_rows(st->ctx))
		feed_rows(op, o, NULL,
			  st->ctx->mode == SL_MODE_APPEND ? "EMITTED"
							  : "EVICTED");
	free(l.e);
	sl_buf_release(&l.copy);
	return o;
}

static sl_batch *complete(sl_op *op, sl_err *err)
{
	sess *st = op->state;
	sents l;
	sl_batch *o = NULL;
	memset(&l, 0, sizeof l);
	if (sl_state_foreach(st->sf.store, sents_add, &l) == 0)
		o = entries_out(op, l.e, l.n, err);
	else
		sl_err_nomem(err);
	free(l.e);
	return o;
}

/* Batch plans: every session is new. */
static sl_batch *batch_out(sl_op *op, srun *r, sl_err *err)
{
	const char **kp = malloc((size_t)(r->nfs + 1) * sizeof *kp);
	size_t *kl = malloc((size_t)(r->nfs + 1) * sizeof *kl);
	int64_t *s = malloc((size_t)(r->nfs + 1) * 8);
	int64_t *e = malloc((size_t)(r->nfs + 1) * 8), i;
	sl_batch *o = NULL;
	if (kp && kl && s && e) {
		for (i = 0; i < r->nfs; i++) {
			kp[i] = r->keys.p + r->fs[i].kof;
			kl[i] = r->fs[i].klen;
			s[i] = r->fs[i].s;
			e[i] = r->fs[i].e;
		}
		o = output(op, kp, kl, s, e, r->aggs, r->nfs, err);
	} else {
		sl_err_nomem(err);
	}
	free(kp);
	free(kl);
	free(s);
	free(e);
	return o;
}

static void srun_release(srun *r, int naggs, int nok)
{
	int i;
	sl_batch_free(r->b);
	sl_col_free(r->ts);
	sl_col_free(r->sw);
	for (i = 0; r->ok != NULL && i < nok; i++)
		sl_col_free(r->ok[i]);
	free(r->ok);
	sl_buf_release(&r->keys);
	sl_buf_release(&r->olds);
	sl_buf_release(&r->merged);
	free(r->koff);
	free(r->gid);
	free(r->fs);
	for (i = 0; r->aggs != NULL && i < naggs; i++)
		sl_agg_free(r->aggs[i]);
	free(r->aggs);
}

/* The merged-away sessions kept by keep_merged, EVICTED. */
static void feed_merged(sl_op *op, srun *r)
{
	sent *en = calloc((size_t)r->nmerged + 1, sizeof *en);
	const char *q = r->merged.p;
	sl_batch *o;
	int64_t i;
	if (en == NULL || r->nmerged == 0 || sl_buf_failed(&r->merged)) {
		free(en);
		return;
	}
	for (i = 0; i < r->nmerged; i++) {
		uint64_t n[2];
		memcpy(n, q, sizeof n);
		en[i].k = q + sizeof n;
		en[i].klen = (size_t)n[0];
		en[i].v = en[i].k + n[0];
		en[i].vlen = (size_t)n[1];
		q = en[i].v + n[1];
	}
	if ((o = entries_out(op, en, r->nmerged, NULL)) != NULL)
		feed_rows(op, o, NULL, "EVICTED");
	sl_batch_free(o);
	free(en);
}

/* This batch's rows into sessions (and the store, streaming). */
static int run_rows(sl_op *op, srun *r, sl_err *err)
{
	sess *st = op->state;
	const sl_expr *swx = unalias(op->plan->keys[st->skey]);
	sl_batch *all, *o;
	sl_col *sw;
	int rc;
	if (st->nin == 0)
		return 0;
	all = sl_batch_concat(st->in, st->nin, NULL, err);
	if (all == NULL)
		return err ? err->code : SL_ENOMEM;
	sw = sl_expr_eval(swx, all, err);
	r->b = sw ? keep_rows(op, all, sw, err) : NULL;
	sl_col_free(sw);
	sl_batch_free(all);
	if (r->b == NULL || (r->sw = sl_expr_eval(swx, r->b, err)) == NULL ||
	    (r->ts = sl_col_ref(r->sw->child[0])) == NULL)
		return err ? err->code : SL_ENOMEM;
	if ((rc = sweep(r, err)) < 0 || (rc = aggregate(r, err)) < 0)
		return rc;
	if (st->ctx == NULL)
		return 0;
	if ((rc = merge_olds(r, err)) < 0)
		return rc;
	if (r->feed)
		feed_merged(op, r);
	if ((rc = store_sessions(r, err)) < 0 || !r->feed)
		return rc;
	if ((o = batch_out(op, r, NULL)) != NULL) /* the touched ones */
		feed_rows(op, o, r->fs, "UPDATED");
	sl_batch_free(o);
	return 0;
}

static int sess_finish(sl_op *op, int side, sl_err *err)
{
	sess *st = op->state;
	srun r;
	sl_batch *o = NULL;
	int rc = 0;
	(void)side;
	memset(&r, 0, sizeof r);
	r.op = op;
	sl_buf_init(&r.keys);
	sl_buf_init(&r.olds);
	sl_buf_init(&r.merged);
	r.feed = sl_stream_wants_rows(st->ctx);
	if (st->ctx != NULL && op->plan->nkeys == 1)
		rc = sl_err_set(
		    err, SL_EANALYSIS,
		    "Global aggregation with session window in streaming query is not supported.");
	if (rc == 0 && st->ctx != NULL && !st->idx_valid)
		rc = rebuild(st, err);
	if (rc == 0)
		rc = run_rows(op, &r, err);
	if (rc == 0 && st->ctx == NULL && r.b != NULL)
		o = batch_out(op, &r, err);
	else if (rc == 0 && st->ctx != NULL)
		o = st->ctx->mode == SL_MODE_COMPLETE ? complete(op, err)
						      : evict(op, err);
	if (rc == 0 && o == NULL && (st->ctx != NULL || r.b != NULL))
		rc = err && err->code ? err->code : SL_ENOMEM;
	srun_release(&r, op->plan->naggs, op->plan->nkeys - 1);
	sess_clear(op);
	if (rc == 0 && o != NULL)
		rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc < 0 ? rc : sl_op_finish_parent(op, err);
}

static void sess_reset(sl_op *op)
{
	sess *st = op->state;
	sess_clear(op);
	st->idx_valid = false;
}

static bool sess_wants_no_data(sl_op *op, int64_t new_wm_us)
{
	sess *st = op->state;
	/* Spark's SessionWindowStateStoreSaveExec.shouldRunAnotherBatch */
	return st->ctx != NULL && st->ctx->mode == SL_MODE_APPEND &&
	       st->ctx->wm_evict_us != INT64_MIN &&
	       new_wm_us > st->last_evict_us;
}

static void sess_free(sl_op *op)
{
	sess *st = op->state;
	if (st == NULL)
		return;
	sess_clear(op);
	free(st->in);
	sl_state_free(st->sf.store);
	sl_state_free(st->idx);
	sl_win_index_release(&st->ix);
	free(st);
}

static const struct sl_op_ops sess_ops = {
	.name = "SessionWindowStateStoreSave",
	.push = sess_push,
	.finish = sess_finish,
	.free = sess_free,
	.reset = sess_reset,
	.wants_no_data = sess_wants_no_data,
};

sl_op *sl_op_session_new(const sl_plan *p, sl_stream_ctx *ctx, sl_err *err)
{
	sl_op *op;
	sess *st;
	int k = sl_plan_session_key(p);
	if (k < 0) {
		sl_err_set(err, SL_EINTERNAL, "session: no session_window key");
		return NULL;
	}
	if ((op = sl_op_new(&sess_ops, p, err)) == NULL)
		return NULL;
	op->state = st = calloc(1, sizeof *st);
	if (st == NULL ||
	    sl_session_gap(unalias(p->keys[k]), &st->gap, err) < 0) {
		if (st == NULL)
			sl_err_nomem(err);
		sl_op_free(op);
		return NULL;
	}
	st->skey = k;
	st->ctx = ctx;
	st->last_evict_us = INT64_MIN;
	sl_win_index_init(&st->ix);
	if (ctx != NULL) {
		if ((st->sf.store = sl_state_new()) == NULL) {
			sl_op_free(op);
			sl_err_nomem(err);
			return NULL;
		}
		st->sf.name = "sessionWindowStateStoreSaveExec";
		op->sf = &st->sf;
	}
	return op;
}
