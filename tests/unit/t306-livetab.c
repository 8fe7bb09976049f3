/* t306-livetab: the typed live table (exec/livetab.h) against the byte
 * store driven the old way (a batch-local hash aggregate, then each group
 * encoded, merged with its stored buffer and put back, eviction by
 * remove_if): random batches of rows (window + BIGINT + BOOLEAN keys with
 * NULLs, a NULL window now and then; count(*), sum(DOUBLE), max(BIGINT)),
 * random aborts.  After every batch both stores hold the same records
 * (sorted) in their delta and their snapshot, the same counts; an abort
 * gives back exactly the previous snapshot; a restore (snapshot, then
 * deltas, through sl_state_put/remove) round-trips; eviction takes a
 * window whole, and its entries come out in key order as rows with the
 * same keys and buffers. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "core/buf.h"
#include "exec/agg.h"
#include "exec/hash.h"
#include "exec/livetab.h"
#include "state/state.h"
#include "state/front.h"
#include "tap.h"

static uint64_t rng = 7;
static sl_err err;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

#define NK   3
#define NA   3
#define MIN_ 60000000LL

static sl_type *types[NK];
/* the keys in use: types[0..nk) (3: window + BIGINT + BOOLEAN; 2: window +
 * BIGINT, the common table whose records the writer codes from its words,
 * probed a word at a time), NULL keys and windows or none */
static int nk = NK;
static bool knulls = true;
/* the aggregates in use: AG_3 count, sum(amt DOUBLE), max(v BIGINT);
 * AG_CD count, sum(amt) and AG_CI count, sum(v), the two lists the
 * writer has its own copies for (livetab.c agg_shape); n_aggs of them */
enum { AG_3, AG_CD, AG_CI };
static int aset = AG_3, n_aggs = NA;

static sl_agg **new_aggs(void)
{
	sl_agg **a = calloc(NA, sizeof *a);
	sl_type *d = sl_type_prim(SL_DOUBLE), *l = sl_type_prim(SL_BIGINT);
	a[0] = sl_agg_new("count", false, true, NULL, 0, 0, &err);
	a[1] = sl_agg_new("sum", false, false, aset == AG_CI ? &l : &d, 1, 0,
			  &err);
	if (aset == AG_3)
		a[2] = sl_agg_new("max", false, false, &l, 1, 0, &err);
	return a;
}

static void free_aggs(sl_agg **a)
{
	int i;
	for (i = 0; i < n_aggs; i++)
		sl_agg_free(a[i]);
	free(a);
}

/* ---- records, sorted, to compare two stores ---- */

typedef struct rec {
	char *k, *v;
	size_t kl, vl;
	bool del;
} rec;

typedef struct recs {
	rec *r;
	int64_t n, cap;
} recs;

static int add_rec(void *ud, const void *k, size_t kl, const void *v,
		   size_t vl)
{
	recs *l = ud;
	rec *r;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->r = realloc(l->r, (size_t)l->cap * sizeof *l->r);
	}
	r = &l->r[l->n++];
	r->k = malloc(kl + 1);
	memcpy(r->k, k, kl);
	r->kl = kl;
	r->del = v == NULL;
	r->vl = v ? vl : 0;
	r->v = malloc(r->vl + 1);
	if (v)
		memcpy(r->v, v, vl);
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const rec *x = a, *y = b;
	size_t m = x->kl < y->kl ? x->kl : y->kl;
	int c = memcmp(x->k, y->k, m);
	if (c || x->kl != y->kl)
		return c ? c : (x->kl < y->kl ? -1 : 1);
	if (x->del != y->del)
		return x->del ? -1 : 1;
	m = x->vl < y->vl ? x->vl : y->vl;
	c = memcmp(x->v, y->v, m);
	return c ? c : (x->vl > y->vl) - (x->vl < y->vl);
}

static void recs_free(recs *l)
{
	int64_t i;
	for (i = 0; i < l->n; i++) {
		free(l->r[i].k);
		free(l->r[i].v);
	}
	free(l->r);
	memset(l, 0, sizeof *l);
}

static void take(sl_state *s, bool delta, recs *l)
{
	memset(l, 0, sizeof *l);
	if (delta)
		sl_state_foreach_delta(s, add_rec, l);
	else
		sl_state_foreach(s, add_rec, l);
	if (l->n > 1)
		qsort(l->r, (size_t)l->n, sizeof *l->r, rec_cmp);
}

static bool recs_eq(const recs *a, const recs *b)
{
	int64_t i;
	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (rec_cmp(&a->r[i], &b->r[i]) != 0)
			return false;
	return true;
}

static bool same_records(sl_state *a, sl_state *b, bool delta)
{
	recs x, y;
	bool eq;
	take(a, delta, &x);
	take(b, delta, &y);
	eq = recs_eq(&x, &y);
	if (!eq)
		diag("%s: %lld records vs %lld", delta ? "delta" : "snapshot",
		     (long long)x.n, (long long)y.n);
	recs_free(&x);
	recs_free(&y);
	return eq;
}

/* ---- sl_state_write ---- */

/* A record as the state file's (state.h's records, front-coded by the
 * generic coder against the last key) into a buffer. */
typedef struct coded {
	sl_buf out, prev;
} coded;

static int buf_rec(void *ud, const void *k, size_t kl, const void *v,
		   size_t vl)
{
	coded *c = ud;
	unsigned char *o;
	if (!sl_buf_reserve(&c->out, SL_FRONT_MAX(kl, vl)))
		return SL_ENOMEM;
	o = sl_front_code((unsigned char *)c->out.p + c->out.len, c->prev.p,
			  c->prev.len, k, kl, v, vl);
	c->out.len = (size_t)((char *)o - c->out.p);
	sl_buf_clear(&c->prev);
	sl_buf_add(&c->prev, k, kl);
	return 0;
}

/* A spill every few hundred bytes that leaves a record's part behind. */
typedef struct spill {
	sl_buf *b, acc;
	int calls;
} spill;

static void spill_some(void *ud)
{
	spill *sp = ud;
	size_t keep = sp->b->len % 7;
	sl_buf_add(&sp->acc, sp->b->p, sp->b->len - keep);
	memmove(sp->b->p, sp->b->p + sp->b->len - keep, keep);
	sp->b->len = keep;
	sp->calls++;
}

/* sl_state_write's bytes (spilled every 300 bytes when spilling) are
 * the callback path's records, byte for byte and in order. */
static bool write_matches(sl_state *s, bool full, bool spilling)
{
	coded want;
	sl_buf b;
	spill sp;
	sl_state_sink k;
	bool eq;
	sl_buf_init(&want.out);
	sl_buf_init(&want.prev);
	sl_buf_init(&b);
	sl_buf_init(&sp.acc);
	sp.b = &b;
	sp.calls = 0;
	if (full)
		sl_state_foreach(s, buf_rec, &want);
	else
		sl_state_foreach_delta(s, buf_rec, &want);
	k.b = &b;
	k.limit = spilling ? 300 : SIZE_MAX;
	k.spill = spilling ? spill_some : NULL;
	k.ud = &sp;
	sl_buf_init(&k.prev);
	eq = sl_state_write(s, full, &k) == 0;
	sl_buf_add(&sp.acc, b.p, b.len);
	eq = eq && sp.acc.len == want.out.len &&
	     (want.out.len == 0 ||
	      memcmp(sp.acc.p, want.out.p, want.out.len) == 0) &&
	     (!spilling || want.out.len < 600 || sp.calls > 0) &&
	     k.prev.len == want.prev.len &&
	     (k.prev.len == 0 || memcmp(k.prev.p, want.prev.p, k.prev.len) == 0);
	if (!eq)
		diag("%s write: %zu bytes vs %zu, last key %zu vs %zu",
		     full ? "full" : "delta", sp.acc.len, want.out.len,
		     k.prev.len, want.prev.len);
	sl_buf_release(&want.out);
	sl_buf_release(&want.prev);
	sl_buf_release(&b);
	sl_buf_release(&sp.acc);
	sl_buf_release(&k.prev);
	return eq;
}

/* ---- a batch ---- */

typedef struct rows {
	sl_col *kc[NK], *amt, *v;
	int64_t n;
} rows;

/* n rows over windows [w0, w0 + nwin) of a minute, keys in [0, nkeys). */
static void make_rows(rows *b, int64_t n, int64_t w0, int nwin, int nkeys)
{
	int64_t i;
	b->n = n;
	b->kc[0] = sl_col_new(types[0], n);
	b->kc[1] = sl_col_new(types[1], n);
	b->kc[2] = nk > 2 ? sl_col_new(types[2], n) : NULL;
	b->amt = sl_col_new(sl_type_prim(SL_DOUBLE), n);
	b->v = sl_col_new(sl_type_prim(SL_BIGINT), n);
	for (i = 0; i < n; i++) {
		uint32_t r = rnd();
		int64_t s = (w0 + (int64_t)(rnd() % (uint32_t)nwin)) * MIN_;
		sl_col_i64(b->kc[0]->child[0])[i] = s;
		sl_col_i64(b->kc[0]->child[1])[i] = s + MIN_;
		if (knulls && r % 97 == 0) { /* window() of a NULL time */
			sl_col_i64(b->kc[0]->child[0])[i] = 0;
			sl_col_i64(b->kc[0]->child[1])[i] = 0;
			sl_col_set_null(b->kc[0], i);
		}
		sl_col_i64(b->kc[1])[i] = (int64_t)(rnd() % (uint32_t)nkeys) - 3;
		if (knulls && r % 41 == 1)
			sl_col_set_null(b->kc[1], i);
		if (nk > 2) {
			sl_col_u8(b->kc[2])[i] = rnd() % 2;
			if (knulls && r % 53 == 2)
				sl_col_set_null(b->kc[2], i);
		}
		sl_col_f64(b->amt)[i] = (double)(rnd() % 1000) / 8;
		if (r % 13 == 3)
			sl_col_set_null(b->amt, i);
		sl_col_i64(b->v)[i] = (int64_t)(rnd() % 100000) - 500;
	}
}

static void rows_free(rows *b)
{
	int k;
	for (k = 0; k < nk; k++)
		sl_col_free(b->kc[k]);
	sl_col_free(b->amt);
	sl_col_free(b->v);
}

static int fold(sl_agg **a, const int32_t *gids, const rows *b, int64_t ng)
{
	sl_col *none[1] = { NULL }, *amt[1], *v[1];
	amt[0] = b->amt;
	v[0] = b->v;
	if (sl_agg_update(a[0], gids, b->n, ng, none, &err) < 0 ||
	    sl_agg_update(a[1], gids, b->n, ng, aset == AG_CI ? v : amt,
			  &err) < 0 ||
	    (n_aggs > 2 && sl_agg_update(a[2], gids, b->n, ng, v, &err) < 0))
		return -1;
	return 0;
}

/* The old path: batch-local aggregate, then merge into the byte store. */
static int old_batch(sl_state *s, const rows *b)
{
	sl_hash_groups *t = sl_hash_groups_new(types, nk, &err);
	sl_agg **a = new_aggs();
	int32_t *gids = malloc((size_t)b->n * sizeof *gids);
	sl_col *kc[NK];
	sl_buf keys, vb;
	int64_t *off, g, n;
	int i, k, rc = 0;
	sl_hash_groups_insert(t, (sl_col **)b->kc, b->n, false, gids, &err);
	n = sl_hash_groups_count(t);
	fold(a, gids, b, n);
	for (k = 0; k < nk; k++)
		kc[k] = sl_hash_groups_key(t, k, 0, n, &err);
	off = malloc((size_t)(n + 1) * sizeof *off);
	sl_buf_init(&keys);
	sl_buf_init(&vb);
	sl_hash_keys_encode(kc, nk, n, &keys, off);
	for (i = 0; i < n_aggs; i++)
		sl_agg_reserve(a[i], n, &err);
	for (g = 0; g < n && rc == 0; g++) {
		const char *key = keys.p + off[g];
		size_t kl = (size_t)(off[g + 1] - off[g]), vl = 0, at = 0, used;
		const unsigned char *old = sl_state_get(s, key, kl, &vl);
		unsigned char out[64];
		size_t ol = 0;
		for (i = 0; i < n_aggs; i++) {
			if (old == NULL)
				ol += sl_agg_save_raw(a[i], g, out + ol);
			else {
				int w = sl_agg_merge_raw(a[i], g, old + at,
							 vl - at, &used,
							 out + ol, &err);
				ol += (size_t)w;
				at += used;
			}
		}
		rc = sl_state_put(s, key, kl, out, ol, &err);
	}
	for (k = 0; k < nk; k++)
		sl_col_free(kc[k]);
	free(off);
	sl_buf_release(&keys);
	sl_buf_release(&vb);
	free(gids);
	free_aggs(a);
	sl_hash_groups_free(t);
	return rc;
}

static int new_batch(sl_livetab *lt, const rows *b)
{
	int32_t *gids = malloc((size_t)b->n * sizeof *gids);
	int rc = sl_livetab_probe(lt, (sl_col **)b->kc, b->n, gids, &err);
	if (rc == 0)
		rc = fold(sl_livetab_aggs(lt), gids, b, sl_livetab_cap(lt));
	free(gids);
	return rc;
}

/* ---- eviction ---- */

static int64_t evict_wm;

static bool due(void *ud, int64_t start, int64_t end)
{
	(void)ud;
	(void)start;
	return end <= evict_wm;
}

/* The old eviction: entries whose window end <= evict_wm (decoded). */
static int old_due(void *ud, const void *k, size_t kl, const void *v,
		   size_t vl)
{
	sl_col **dc = ud;
	(void)v;
	(void)vl;
	if (dc[0]->nulls)
		dc[0]->nulls[0] = 0;
	sl_hash_key_decode(dc, nk, 0, k, kl, NULL, NULL);
	return !sl_col_isnull(dc[0], 0) &&
	       sl_col_i64(dc[0]->child[1])[0] <= evict_wm;
}

static int count_rec(void *ud, const void *k, size_t kl, const void *v,
		     size_t vl)
{
	(void)k;
	(void)kl;
	(void)v;
	(void)vl;
	(*(int64_t *)ud)++;
	return 0;
}

static sl_col *dcols[NK];

/* ---- the evicted entries as rows (sl_livetab_evicted, sl_livetab_rows) ---- */

/* The n entries lt's pending version evicted: in strictly ascending
 * order of their encoded keys; their rows' key columns encode to the
 * same keys, their aggregates (fresh ones, aggs of na) save the same
 * buffers.  Returns the problems found. */
static int check_evicted(sl_livetab *lt, int64_t n, int nkeys,
			 sl_agg **aggs, int na)
{
	int32_t *ids = malloc((size_t)n * sizeof *ids + 1);
	int64_t *off = malloc((size_t)(n + 1) * sizeof *off),
		*off2 = malloc((size_t)(n + 1) * sizeof *off2), r;
	sl_col *kc[8] = { 0 };
	sl_buf kb, kb2;
	unsigned char v1[256], v2[256];
	int bad = 0, i;
	sl_buf_init(&kb);
	sl_buf_init(&kb2);
	if (sl_livetab_evicted(lt, ids, n, &err) < 0 ||
	    sl_livetab_encode(lt, ids, n, &kb, off, &err) < 0 ||
	    sl_livetab_rows(lt, ids, n, kc, aggs, &err) < 0 ||
	    sl_hash_keys_encode(kc, nkeys, n, &kb2, off2) < 0) {
		diag("evicted rows: %s", err.msg);
		bad++;
		goto out;
	}
	for (r = 0; r < n; r++) {
		size_t l = (size_t)(off[r + 1] - off[r]), at = 0, at2 = 0;
		if (r > 0) {
			size_t pl = (size_t)(off[r] - off[r - 1]),
			       m = pl < l ? pl : l;
			int c = memcmp(kb.p + off[r - 1], kb.p + off[r], m);
			bad += c > 0 || (c == 0 && pl >= l);
		}
		bad += (size_t)(off2[r + 1] - off2[r]) != l ||
		       memcmp(kb.p + off[r], kb2.p + off2[r], l) != 0;
		at = sl_livetab_value(lt, ids[r], v1);
		for (i = 0; i < na; i++)
			at2 += sl_agg_save_raw(aggs[i], r, v2 + at2);
		bad += at != at2 || memcmp(v1, v2, at) != 0;
	}
out:
	for (i = 0; i < nkeys; i++)
		sl_col_free(kc[i]);
	sl_buf_release(&kb);
	sl_buf_release(&kb2);
	free(ids);
	free(off);
	free(off2);
	return bad;
}

/* ---- restore ---- */

static int put_rec(void *ud, const void *k, size_t kl, const void *v,
		   size_t vl)
{
	if (v == NULL)
		return sl_state_remove(ud, k, kl) < 0;
	return sl_state_put(ud, k, kl, v, vl, &err) < 0;
}

static sl_livetab *new_table(void)
{
	return sl_livetab_new(types, nk, 0, new_aggs(), n_aggs, &err);
}

/* A table of `keys` keys (NULLs among them or not) against the byte
 * store: batches of nmin + [0, nspan) rows over keys [-3, k0 + 7 *
 * batch), one in five aborted, and every third when there are few. */
static void test_random(int keys, bool nulls, int batches, int64_t nmin,
			int64_t nspan, int k0)
{
	sl_state *old = sl_state_new();
	sl_livetab *lt, *rt;
	sl_state *live, *rs;
	int b, bad_delta = 0, bad_snap = 0, bad_abort = 0, bad_count = 0,
	       bad_restore = 0, aborts = 0, evicted_batches = 0, bad_rows = 0,
	       bad_write = 0;
	int64_t w0 = 0, nev_old = 0, nev_new = 0;
	recs snap;
	nk = keys;
	knulls = nulls;
	lt = new_table();
	rt = new_table();
	live = sl_livetab_store(lt);
	rs = sl_livetab_store(rt);
	diag("%d keys: %s, %s, %d batches of %lld-%lld rows", keys,
	     keys == 2 ? "window + BIGINT" : "window + BIGINT + BOOLEAN",
	     nulls ? "NULLs" : "no NULL", batches, (long long)nmin,
	     (long long)(nmin + nspan - 1));
	ok(lt != NULL && rt != NULL, "livetab: two tables");
	for (b = 0; b < batches; b++) {
		rows r;
		bool abort_it = rnd() % 5 == 0 || (batches < 20 && b % 3 == 2);
		int64_t n = nmin + (int64_t)(rnd() % (uint32_t)nspan), no, nn = 0;
		take(live, false, &snap);
		make_rows(&r, n, w0, 1 + (int)(rnd() % 3), k0 + b * 7);
		if (old_batch(old, &r) < 0 || new_batch(lt, &r) < 0)
			diag("batch %d failed: %s", b, err.msg);
		evict_wm = (w0 - 1 + (int64_t)(rnd() % 3)) * MIN_;
		no = sl_state_remove_if(old, old_due, dcols, NULL, NULL, &err);
		nn = sl_livetab_evict(lt, due, NULL, count_rec, &nev_new, &err);
		if (nn > 0) {
			sl_agg **fa = new_aggs();
			bad_rows += check_evicted(lt, nn, nk, fa, n_aggs);
			free_aggs(fa);
		}
		nev_old += no;
		evicted_batches += nn > 0;
		bad_count += no != nn ||
			     sl_state_num_rows(old) != sl_state_num_rows(live) ||
			     sl_state_num_updated(old) !=
				 sl_state_num_updated(live) ||
			     sl_state_num_removed(old) !=
				 sl_state_num_removed(live);
		if (no != nn || sl_state_num_rows(old) != sl_state_num_rows(live) ||
		    sl_state_num_updated(old) != sl_state_num_updated(live) ||
		    sl_state_num_removed(old) != sl_state_num_removed(live))
			diag("batch %d: evicted %lld/%lld rows %lld/%lld updated %lld/%lld removed %lld/%lld",
			     b, (long long)no, (long long)nn,
			     (long long)sl_state_num_rows(old), (long long)sl_state_num_rows(live),
			     (long long)sl_state_num_updated(old), (long long)sl_state_num_updated(live),
			     (long long)sl_state_num_removed(old), (long long)sl_state_num_removed(live));
		bad_delta += !same_records(old, live, true);
		bad_write += !write_matches(live, false, b % 2 == 0) ||
			     !write_matches(live, true, b % 2 == 1) ||
			     !write_matches(old, false, b % 2 == 1) ||
			     !write_matches(old, true, b % 2 == 0);
		if (abort_it) {
			recs after;
			sl_state_abort(old);
			sl_state_abort(live);
			take(live, false, &after);
			bad_abort += !recs_eq(&snap, &after);
			recs_free(&after);
			aborts++;
		} else {
			sl_state_commit(old, &err);
			sl_state_commit(live, &err);
			/* the restored copy follows through the deltas */
			sl_state_foreach_delta(live, put_rec, rs);
			sl_state_commit(rs, &err);
			w0 += rnd() % 2;
		}
		bad_snap += !same_records(old, live, false);
		bad_restore += !same_records(live, rs, false);
		recs_free(&snap);
		rows_free(&r);
	}
	is_int(bad_count, 0, "same rows, updated, removed and evicted counts");
	is_int(bad_delta, 0, "the same delta records every batch");
	is_int(bad_rows, 0,
	       "evicted entries in key order, their rows the same keys and buffers");
	is_int(bad_snap, 0, "the same snapshot records every batch");
	is_int(bad_write, 0,
	       "sl_state_write gives foreach's and foreach_delta's records, byte for byte");
	is_int(bad_abort, 0, "abort gives back the exact previous version (%d aborts)",
	       aborts);
	is_int(bad_restore, 0, "a table loaded from the deltas holds the same records");
	ok(evicted_batches > 5 && nev_new > 0, "windows were evicted (%d batches, %lld entries)",
	   evicted_batches, (long long)nev_new);
	/* a snapshot loaded into a fresh table, as sl_ckpt_state_load does */
	sl_state_reset(rs, 0);
	sl_state_foreach(live, put_rec, rs);
	sl_state_set_version(rs, sl_state_version(live));
	ok(same_records(live, rs, false) &&
	       sl_state_version(rs) == sl_state_version(live) &&
	       sl_state_num_rows(rs) == sl_state_num_rows(live),
	   "snapshot round trip: same records, version %lld",
	   (long long)sl_state_version(rs));
	sl_state_free(old);
	sl_state_free(live);
	sl_state_free(rs);
	nk = NK;
	knulls = true;
}

/* A window leaves whole; abort brings it back; commit frees its ids for
 * reuse (the table's ids do not grow window after window). */
static void test_evict_whole(void)
{
	sl_livetab *lt = new_table();
	sl_state *s = sl_livetab_store(lt);
	rows r;
	int64_t seen = 0, before, k;
	int64_t cap0;
	make_rows(&r, 2000, 0, 2, 300); /* windows 0 and 1 */
	new_batch(lt, &r);
	sl_state_commit(s, &err);
	before = sl_state_num_rows(s);
	evict_wm = MIN_; /* window 0 ends at one minute */
	k = sl_livetab_evict(lt, due, NULL, count_rec, &seen, &err);
	ok(k > 0 && k == seen && sl_state_num_rows(s) == before - k &&
	       sl_state_num_removed(s) == k,
	   "window 0 left whole: %lld entries", (long long)k);
	ok(sl_livetab_min_end(lt) == 2 * MIN_, "the next open window ends at 2 min");
	sl_state_abort(s);
	ok(sl_state_num_rows(s) == before && sl_livetab_min_end(lt) == MIN_,
	   "abort reinstates the window");
	sl_livetab_evict(lt, due, NULL, NULL, NULL, &err);
	sl_state_commit(s, &err);
	cap0 = sl_livetab_cap(lt);
	rows_free(&r);
	for (k = 2; k < 40; k++) {
		make_rows(&r, 2000, k, 1, 300);
		new_batch(lt, &r);
		evict_wm = k * MIN_;
		sl_livetab_evict(lt, due, NULL, NULL, NULL, &err);
		sl_state_commit(s, &err);
		rows_free(&r);
	}
	ok(sl_livetab_cap(lt) <= cap0 * 2,
	   "ids are reused: cap %lld after 38 windows (was %lld)",
	   (long long)sl_livetab_cap(lt), (long long)cap0);
	sl_state_free(s);
}

/* One version of both stores: 5000 rows into window w (keys [-3, 1997):
 * about 1840 entries, a table of 4096 slots), windows ending by wm
 * evicted (wm 0: none), then committed or aborted; the problems found
 * (the delta, then the snapshot, against the byte store's). */
static int recycle_step(sl_state *old, sl_livetab *lt, int64_t w, int64_t wm,
			bool commit)
{
	sl_state *s = sl_livetab_store(lt);
	rows r;
	int bad = 0;
	make_rows(&r, 5000, w, 1, 2000);
	bad += old_batch(old, &r) < 0 || new_batch(lt, &r) < 0;
	if (wm > 0) {
		evict_wm = wm;
		bad += sl_state_remove_if(old, old_due, dcols, NULL, NULL, &err) !=
		       sl_livetab_evict(lt, due, NULL, NULL, NULL, &err);
	}
	bad += !same_records(old, s, true);
	if (commit) {
		sl_state_commit(old, &err);
		sl_state_commit(s, &err);
	} else {
		sl_state_abort(old);
		sl_state_abort(s);
	}
	bad += !same_records(old, s, false) ||
	       sl_state_num_rows(old) != sl_state_num_rows(s);
	rows_free(&r);
	return bad;
}

/* Slot arrays are recycled (livetab.c's "Slot arrays"): a window starts
 * at what the windows before it needed (half of it in fresh memory when
 * no spare has it all), and a window that leaves gives its array to the
 * next; an aborted version's new window gives its array back; a window
 * evicted and then reinstated by abort keeps its own, while a window
 * opened in the same version takes another.  Every step against the
 * byte store. */
static void test_recycle(void)
{
	sl_state *old = sl_state_new();
	sl_livetab *lt;
	int64_t f0, r0, f1, r1, f2, r2;
	int bad = 0;
	nk = 2;
	knulls = false;
	lt = new_table();
	bad += recycle_step(old, lt, 0, 0, true); /* window 0: 64 -> 4096 */
	sl_livetab_slot_arrays(lt, &f0, &r0);
	bad += recycle_step(old, lt, 1, 0, true); /* window 1 opens */
	sl_livetab_slot_arrays(lt, &f1, &r1);
	ok(f0 == 7 && r0 == 0 && r1 == 0 && f1 == f0 + 2,
	   "window 0 grew from 64 slots in fresh arrays (%lld); window 1 "
	   "beside it started at half its 4096 and doubled once (%lld fresh)",
	   (long long)f0, (long long)(f1 - f0));
	/* window 0 leaves; its array is a spare from the next write on */
	bad += recycle_step(old, lt, 1, MIN_, true);
	bad += recycle_step(old, lt, 2, 0, false); /* window 2, aborted */
	bad += recycle_step(old, lt, 2, 0, true);  /* and again */
	sl_livetab_slot_arrays(lt, &f2, &r2);
	ok(f2 == f1 && r2 == r1 + 2,
	   "window 2 took window 0's 4096 slots whole, gave them back at the "
	   "abort and took them again (%lld fresh, %lld reused)",
	   (long long)(f2 - f1), (long long)(r2 - r1));
	/* window 3 opens while windows 1 and 2 are open (three at once: a
	 * fresh half, doubled) and window 1 is evicted, then the version
	 * aborted: window 1 is back with its entries, window 3 gone; then
	 * both take rows, and windows come and go one at a time */
	bad += recycle_step(old, lt, 3, 2 * MIN_, false);
	sl_livetab_slot_arrays(lt, &f1, &r1);
	bad += recycle_step(old, lt, 1, 0, true);
	bad += recycle_step(old, lt, 3, 2 * MIN_, true);
	bad += recycle_step(old, lt, 4, 3 * MIN_, true);
	bad += recycle_step(old, lt, 5, 4 * MIN_, false);
	bad += recycle_step(old, lt, 5, 4 * MIN_, true);
	bad += recycle_step(old, lt, 6, 5 * MIN_, true);
	sl_livetab_slot_arrays(lt, &f0, &r0);
	ok(f1 == f2 + 2 && f0 == f1 && r0 == r1 + 5,
	   "window 3 beside two open ones took fresh arrays (%lld); "
	   "windows 3-6 then took only spares (%lld reused)",
	   (long long)(f1 - f2), (long long)(r0 - r1));
	is_int(bad, 0, "every step the byte store's delta and snapshot");
	sl_state_free(old);
	sl_state_free(sl_livetab_store(lt));
	nk = NK;
	knulls = true;
}

/* The order of the evicted entries of a window + BIGINT table (by their
 * one word, no key encoded) and of a BIGINT + window one, several
 * windows at once, NULLs or not, values far apart or not. */
static void test_evicted_order(void)
{
	sl_type *ws = sl_type_parse_ddl(
	    "w STRUCT<start: TIMESTAMP, end: TIMESTAMP>, p BIGINT", &err);
	sl_type *kt[2];
	int wk, c, bad = 0, runs = 0;
	for (wk = 0; wk < 2; wk++)
		for (c = 0; c < 8; c++) {
			sl_livetab *lt;
			sl_col *kc[2];
			int32_t *g;
			int64_t n = 3000, i, k;
			int nwin = 1 + c % 3;
			kt[wk] = ws->fields[0].type;
			kt[1 - wk] = ws->fields[1].type;
			lt = sl_livetab_new(kt, 2, wk, new_aggs(), NA, &err);
			kc[wk] = sl_col_new(kt[wk], n);
			kc[1 - wk] = sl_col_new(kt[1 - wk], n);
			g = malloc((size_t)n * sizeof *g);
			for (i = 0; i < n; i++) {
				int64_t s = (int64_t)(rnd() % (uint32_t)nwin) * MIN_;
				sl_col_i64(kc[wk]->child[0])[i] = s;
				sl_col_i64(kc[wk]->child[1])[i] = s + MIN_;
				/* c 6, 7: keys first seen rising (in id
				 * order: no sort) or falling */
				sl_col_i64(kc[1 - wk])[i] =
				    c == 6   ? i - n / 2
				    : c == 7 ? n / 2 - i
				    : c >= 3 ? (int64_t)rnd() * (int64_t)rnd() *
						   (rnd() % 2 ? 1 : -1)
					     : (int64_t)(rnd() % 500) - 250;
				if (c == 5 && rnd() % 50 == 0)
					sl_col_set_null(kc[1 - wk], i);
			}
			if (lt == NULL ||
			    sl_livetab_probe(lt, kc, n, g, &err) < 0) {
				diag("table: %s", err.msg);
				bad++;
			} else {
				sl_agg **fa = new_aggs();
				evict_wm = nwin * MIN_; /* all of them */
				k = sl_livetab_evict(lt, due, NULL, NULL, NULL,
						     &err);
				bad += k <= 0 ||
				       check_evicted(lt, k, 2, fa, NA) != 0;
				free_aggs(fa);
				runs++;
			}
			sl_col_free(kc[0]);
			sl_col_free(kc[1]);
			free(g);
			if (lt != NULL)
				sl_state_free(sl_livetab_store(lt));
		}
	is_int(bad, 0, "evicted entries in key order: window first or last, "
		       "1-3 windows, near and far values, NULLs, keys "
		       "first seen in order or reversed (%d tables)",
	       runs);
	sl_type_free(ws);
}

static void test_eligible(void)
{
	sl_agg **a = new_aggs();
	sl_type *s = sl_type_prim(SL_STRING);
	sl_agg *cl = sl_agg_new("collect_list", false, false, &s, 1, 0, &err);
	sl_type *st[2];
	ok(sl_livetab_eligible(types, NK, 0, a, NA), "window + BIGINT + BOOLEAN, count/sum/max");
	ok(!sl_livetab_eligible(types, NK, 1, a, NA), "the window key must be a window struct");
	st[0] = types[0];
	st[1] = s;
	ok(!sl_livetab_eligible(st, 2, 0, a, NA), "a STRING key is not eligible");
	ok(cl == NULL || !sl_livetab_eligible(types, NK, 0, &cl, 1),
	   "collect_list is not eligible");
	sl_agg_free(cl);
	free_aggs(a);
}

int main(void)
{
	sl_type *sch = sl_type_parse_ddl(
	    "w STRUCT<start: TIMESTAMP, end: TIMESTAMP>, p BIGINT, b BOOLEAN",
	    &err);
	int k;
	if (sch == NULL) {
		diag("ddl: %s", err.msg);
		return 1;
	}
	for (k = 0; k < NK; k++)
		types[k] = sch->fields[k].type;
	for (k = 0; k < NK; k++)
		dcols[k] = sl_col_new(types[k], 1);
	test_eligible();
	test_random(3, true, 60, 50, 3000, 40);
	test_random(2, true, 60, 50, 3000, 40); /* probe1 with masks */
	/* the key column read in place, tables past the prefetch threshold
	 * (the hashes made ahead) */
	test_random(2, false, 12, 20000, 40000, 60000);
	/* W1's aggregates, count + sum of a DOUBLE or a BIGINT */
	aset = AG_CD;
	n_aggs = 2;
	test_random(2, true, 40, 50, 3000, 40);
	test_random(2, false, 20, 20000, 40000, 60000);
	aset = AG_CI;
	test_random(2, false, 40, 50, 3000, 40);
	aset = AG_3;
	n_aggs = NA;
	test_evict_whole();
	test_recycle();
	test_evicted_order();
	for (k = 0; k < NK; k++)
		sl_col_free(dcols[k]);
	sl_type_free(sch);
	return done_testing();
}
