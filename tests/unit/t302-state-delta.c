/* t302-state-delta: the state store's lookups by position (find, put_at,
 * remove_at, stale positions after slots move), the delta's content after
 * mixed put/remove/re-put/abort sequences (through slot growth and heap
 * compaction) against a model, full snapshots, and loading. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/state.h"
#include "tap.h"

enum { K = 20000, COLD = 18000 };

/* The model: value x (or -1 = absent) with its length. */
typedef struct model {
	int64_t x[K];
	size_t len[K];
} model;

static void make_val(int64_t x, size_t len, char *buf)
{
	memset(buf, (int)(x & 0x7f), 24);
	memcpy(buf, &x, 8);
	(void)len;
}

/* The store matches m exactly (values and row count). */
static int same(sl_state *s, const model *m)
{
	int k, bad = 0;
	int64_t live = 0;
	for (k = 0; k < K; k++) {
		size_t vl = 0;
		const void *v = sl_state_get(s, &k, sizeof k, &vl);
		char buf[24];
		if (m->x[k] < 0) {
			bad += v != NULL;
			continue;
		}
		live++;
		make_val(m->x[k], m->len[k], buf);
		bad += v == NULL || vl != m->len[k] || memcmp(v, buf, vl) != 0;
	}
	return bad == 0 && sl_state_num_rows(s) == live;
}

/* Records of a delta, in order. */
typedef struct rec {
	int key;
	bool del;
	int64_t x;
	size_t len;
} rec;

typedef struct recs {
	rec *r;
	int n, cap;
	int bad; /* malformed records */
} recs;

static int collect(void *ud, const void *k, size_t kl, const void *v,
		   size_t vl)
{
	recs *l = ud;
	rec r;
	if (kl != sizeof(int) || (v != NULL && vl < 8)) {
		l->bad++;
		return 0;
	}
	memcpy(&r.key, k, sizeof r.key);
	r.del = v == NULL;
	r.x = 0;
	if (v != NULL)
		memcpy(&r.x, v, 8);
	r.len = vl;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->r = realloc(l->r, (size_t)l->cap * sizeof *l->r);
	}
	l->r[l->n++] = r;
	return 0;
}

/* Check the delta of the version that took `prev` to `cur`, in which the
 * keys with touched[k] were put or removed and those with removed[k]
 * were removed at least once: puts are exactly the touched keys present
 * now with their current values, once each; deletes are the removed keys
 * (so every touched key absent now); applied in order to prev they give
 * cur.  Returns the number of failed checks. */
static int check_delta(sl_state *s, const model *prev, const model *cur,
		       const bool *touched, const bool *removed)
{
	static model m;
	static int nput[K], ndel[K];
	recs l;
	int i, k, bad = 0;
	memset(&l, 0, sizeof l);
	memset(nput, 0, sizeof nput);
	memset(ndel, 0, sizeof ndel);
	sl_state_foreach_delta(s, collect, &l);
	bad += l.bad;
	m = *prev;
	for (i = 0; i < l.n; i++) {
		rec *r = &l.r[i];
		if (r->key < 0 || r->key >= K) {
			bad++;
			continue;
		}
		if (r->del) {
			ndel[r->key]++;
			m.x[r->key] = -1;
		} else {
			nput[r->key]++;
			m.x[r->key] = r->x;
			m.len[r->key] = r->len;
		}
	}
	for (k = 0; k < K; k++) {
		bool present = cur->x[k] >= 0;
		bad += nput[k] != (touched[k] && present);
		bad += (ndel[k] > 0) != removed[k];
		bad += touched[k] && !present && ndel[k] == 0;
		bad += m.x[k] != cur->x[k] ||
		       (present && m.len[k] != cur->len[k]);
	}
	free(l.r);
	return bad;
}

/* A full snapshot (sl_state_foreach) has every live key once, with its
 * current value. */
static int check_snapshot(sl_state *s, const model *cur)
{
	static int seen[K];
	recs l;
	int i, k, bad = 0;
	memset(&l, 0, sizeof l);
	memset(seen, 0, sizeof seen);
	sl_state_foreach(s, collect, &l);
	bad += l.bad;
	for (i = 0; i < l.n; i++) {
		rec *r = &l.r[i];
		if (r->key < 0 || r->key >= K || r->del) {
			bad++;
			continue;
		}
		seen[r->key]++;
		bad += r->x != cur->x[r->key] || r->len != cur->len[r->key];
	}
	for (k = 0; k < K; k++)
		bad += seen[k] != (cur->x[k] >= 0);
	free(l.r);
	return bad;
}

static int count_recs(sl_state *s)
{
	recs l;
	memset(&l, 0, sizeof l);
	sl_state_foreach_delta(s, collect, &l);
	free(l.r);
	return l.n;
}

/* One version of random puts (three value lengths, so replacements make
 * garbage and compaction), removes and re-puts over keys < nkeys. */
static void random_version(sl_state *s, model *cur, bool *touched,
			   bool *removed, int nkeys, int ops, unsigned *seed)
{
	while (ops-- > 0) {
		int k = (int)(rand_r(seed) % (unsigned)nkeys);
		if (rand_r(seed) % 4 == 0) {
			int rc = sl_state_remove(s, &k, sizeof k);
			if (rc == 1) {
				touched[k] = removed[k] = true;
				cur->x[k] = -1;
			}
		} else {
			int64_t x = rand_r(seed);
			char buf[24];
			size_t len = 8 + (size_t)(x % 3) * 8;
			make_val(x, len, buf);
			sl_state_put(s, &k, sizeof k, buf, len, NULL);
			touched[k] = true;
			cur->x[k] = x;
			cur->len[k] = len;
		}
	}
}

static void delta_model(void)
{
	static model cur, prev;
	static bool touched[K], removed[K];
	sl_state *s = sl_state_new();
	unsigned seed = 7;
	int v, k, bad_state = 0, bad_delta = 0, commits = 0;
	for (k = 0; k < K; k++)
		cur.x[k] = prev.x[k] = -1;
	/* cold keys, written once: their tags must not come back to life
	 * when tags restart */
	for (k = COLD; k < K; k++) {
		int64_t x = k;
		sl_state_put(s, &k, sizeof k, &x, sizeof x, NULL);
		cur.x[k] = prev.x[k] = x;
		cur.len[k] = prev.len[k] = sizeof x;
	}
	sl_state_commit(s, NULL);
	for (v = 0; v < 600; v++) {
		/* the key range grows: slots grow during the versions */
		int nkeys = v < 40 ? 500 + v * 400 : COLD;
		memset(touched, 0, sizeof touched);
		memset(removed, 0, sizeof removed);
		random_version(s, &cur, touched, removed, nkeys, 3000, &seed);
		/* the pending version's delta is readable too */
		if (v % 10 == 4)
			bad_delta += check_delta(s, &prev, &cur, touched,
						 removed);
		if (v % 5 == 3) {
			sl_state_abort(s);
			cur = prev;
			bad_delta += count_recs(s) != 0;
		} else {
			sl_state_commit(s, NULL);
			prev = cur;
			commits++;
			bad_delta += check_delta(s, &prev, &cur, touched,
						 removed);
			/* an abort of no writes keeps the delta */
			if (v % 7 == 0) {
				sl_state_abort(s);
				bad_delta += check_delta(s, &prev, &cur,
							 touched, removed);
			}
		}
		bad_state += !same(s, &cur) + check_snapshot(s, &cur);
	}
	is_int(bad_state, 0, "600 versions with growth, compaction, aborts "
			     "and tag sweeps match the model");
	is_int(bad_delta, 0, "every delta (%d commits, pending ones, after "
			     "aborts) has the model's puts and deletes",
	       commits);
	sl_state_commit(s, NULL);
	is_int(count_recs(s), 0, "a commit of no writes has an empty delta");
	diag("memory for %lld rows: %zu bytes", (long long)sl_state_num_rows(s),
	     sl_state_memory(s));
	sl_state_free(s);
}

/* A key removed and put again in one version: a delete then a put. */
static void reput(void)
{
	sl_state *s = sl_state_new();
	int a = 1, b = 2, c = 3;
	int64_t x = 5, y = 6;
	recs l;
	memset(&l, 0, sizeof l);
	sl_state_put(s, &a, sizeof a, &x, sizeof x, NULL);
	sl_state_put(s, &b, sizeof b, &x, sizeof x, NULL);
	sl_state_commit(s, NULL);
	sl_state_remove(s, &a, sizeof a);
	sl_state_put(s, &a, sizeof a, &y, sizeof y, NULL);
	sl_state_put(s, &c, sizeof c, &x, sizeof x, NULL);
	sl_state_remove(s, &c, sizeof c);
	sl_state_commit(s, NULL);
	sl_state_foreach_delta(s, collect, &l);
	ok(l.n == 3 && l.r[0].del && l.r[1].del && !l.r[2].del &&
		   l.r[2].key == 1 && l.r[2].x == 6,
	   "remove + put again: deletes of 1 and 3 first, then the put of 1");
	free(l.r);
	sl_state_free(s);
}

/* Positions: a stale one (slots grew or shifted since) is searched
 * again and never lands on another key's slot. */
static void positions(void)
{
	sl_state *s = sl_state_new();
	sl_state_pos pa, pb;
	int a = -1, b = -2, k, bad = 0;
	int64_t x = 42, y;
	size_t vl = 0;
	const void *v;
	uint64_t ha = sl_state_hash(&a, sizeof a);
	ok(sl_state_find(s, ha, &a, sizeof a, &vl, &pa) == NULL,
	   "find of a missing key: NULL");
	for (k = 0; k < 1000; k++) /* grows the slots many times */
		sl_state_put(s, &k, sizeof k, &x, sizeof x, NULL);
	ok(sl_state_put_at(s, &pa, &a, sizeof a, &x, sizeof x, NULL) == 0,
	   "put_at with a position from before the growth");
	for (k = 0; k < 1000; k++) {
		v = sl_state_get(s, &k, sizeof k, &vl);
		bad += v == NULL || vl != 8;
	}
	is_int(bad, 0, "no key was overwritten");
	is_int(sl_state_num_rows(s), 1001, "1001 rows");
	v = sl_state_find(s, ha, &a, sizeof a, &vl, &pa);
	ok(v != NULL && vl == 8, "find of the stored key");
	sl_state_find(s, sl_state_hash(&b, sizeof b), &b, sizeof b, NULL, &pb);
	for (k = 0; k < 1000; k += 2) /* backward shifts move slots */
		sl_state_remove(s, &k, sizeof k);
	y = 43;
	sl_state_put_at(s, &pa, &a, sizeof a, &y, sizeof y, NULL);
	v = sl_state_get(s, &a, sizeof a, &vl);
	ok(v != NULL && memcmp(v, &y, 8) == 0, "put_at after removals");
	is_int(sl_state_remove_at(s, &pb, &b, sizeof b), 0,
	       "remove_at of a missing key: 0");
	sl_state_find(s, ha, &a, sizeof a, NULL, &pa);
	sl_state_prefetch(s, ha);
	sl_state_prefetch_entry(s, ha);
	is_int(sl_state_remove_at(s, &pa, &a, sizeof a), 1, "remove_at: 1");
	ok(sl_state_get(s, &a, sizeof a, NULL) == NULL &&
		   sl_state_num_rows(s) == 500,
	   "the key is gone, the others stay");
	/* a value that points into the store itself */
	k = 1;
	v = sl_state_get(s, &k, sizeof k, &vl);
	for (k = 5000; k < 7000; k++) {
		v = sl_state_get(s, &(int){1}, sizeof(int), &vl);
		sl_state_put(s, &k, sizeof k, v, vl, NULL);
	}
	bad = 0;
	for (k = 5000; k < 7000; k++) {
		v = sl_state_get(s, &k, sizeof k, &vl);
		bad += v == NULL || vl != 8 || memcmp(v, &x, 8) != 0;
	}
	is_int(bad, 0, "puts of values read from the store (heap moves)");
	sl_state_free(s);
}

static int count_all(void *ud, const void *k, size_t kl, const void *v,
		     size_t vl)
{
	int64_t *n = ud;
	(void)k;
	(void)kl;
	(void)v;
	(void)vl;
	n[0]++;
	return 0;
}

static int odd_key(void *ud, const void *k, size_t kl, const void *v,
		   size_t vl)
{
	int key;
	(void)ud;
	(void)kl;
	(void)v;
	(void)vl;
	memcpy(&key, k, sizeof key);
	return key % 2 == 1;
}

/* Loading (reset, puts and removes, set_version) leaves an empty delta;
 * a snapshot sees every live entry once; remove_if's removes are
 * deletes of the delta. */
static void loading(void)
{
	sl_state *s = sl_state_new();
	int64_t n = 0, x = 1;
	int k;
	recs l;
	for (k = 0; k < 100; k++)
		sl_state_put(s, &k, sizeof k, &x, sizeof x, NULL);
	sl_state_commit(s, NULL);
	sl_state_reset(s, 0);
	is_int(sl_state_num_rows(s), 0, "reset: empty");
	for (k = 0; k < 3000; k++)
		sl_state_put(s, &k, sizeof k, &x, sizeof x, NULL);
	for (k = 0; k < 3000; k += 3)
		sl_state_remove(s, &k, sizeof k);
	sl_state_set_version(s, 12);
	is_int(sl_state_version(s), 12, "version 12 after set_version");
	is_int(count_recs(s), 0, "loaded store: empty delta");
	sl_state_foreach(s, count_all, &n);
	is_int(n, 2000, "snapshot: 2000 live entries");
	is_int(sl_state_remove_if(s, odd_key, NULL, NULL, NULL, NULL), 1000,
	       "remove_if removed 1000");
	sl_state_commit(s, NULL);
	memset(&l, 0, sizeof l);
	sl_state_foreach_delta(s, collect, &l);
	{
		int i, dels = 0;
		for (i = 0; i < l.n; i++)
			dels += l.r[i].del && l.r[i].key % 2 == 1;
		ok(l.n == 1000 && dels == 1000, "delta: the 1000 deletes");
	}
	free(l.r);
	n = 0;
	sl_state_foreach(s, count_all, &n);
	is_int(n, 1000, "snapshot after remove_if: 1000");
	sl_state_free(s);
}

int main(void)
{
	positions();
	reput();
	loading();
	delta_model();
	return done_testing();
}
