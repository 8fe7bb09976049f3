/* t216-state-dirty: the delta from the dirty list (state.c) gives the same
 * records in the same order as the heap scan it replaces, so delta files
 * stay byte for byte the same.  The heap order is what sl_state_foreach
 * walks: the delta's puts must be exactly the changed keys, in the order
 * foreach lists them, once each, with their current values.  Random
 * versions that change few keys (the list) and many (the scan), with
 * length changes (dead entries), removes and re-puts, aborts, empty
 * versions, compactions and the tag sweep every 253 versions. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/state.h"
#include "tap.h"

enum { K = 40000 };

typedef struct list {
	int *k;
	int64_t *x;
	int n, cap;
	bool del_after_put; /* a remove record after a put record */
	int ndel;
} list;

static int add(void *ud, const void *key, size_t kl, const void *v,
	       size_t vl)
{
	list *l = ud;
	int k;
	memcpy(&k, key, sizeof k);
	(void)kl;
	if (v == NULL) {
		l->del_after_put = l->del_after_put || l->n > 0;
		l->ndel++;
		return 0;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->k = realloc(l->k, (size_t)l->cap * sizeof *l->k);
		l->x = realloc(l->x, (size_t)l->cap * sizeof *l->x);
	}
	l->k[l->n] = k;
	memcpy(&l->x[l->n], v, 8);
	(void)vl;
	l->n++;
	return 0;
}

static bool changed[K];

/* The heap order (foreach) kept to the changed keys that are present. */
static int pick(void *ud, const void *key, size_t kl, const void *v,
		size_t vl)
{
	int k;
	memcpy(&k, key, sizeof k);
	return k >= 0 && k < K && changed[k] ? add(ud, key, kl, v, vl) : 0;
}

/* 0 when the delta's puts are foreach's changed entries, in order. */
static int check(sl_state *s)
{
	list d, f;
	int i, bad = 0;
	memset(&d, 0, sizeof d);
	memset(&f, 0, sizeof f);
	sl_state_foreach_delta(s, add, &d);
	sl_state_foreach(s, pick, &f);
	bad += d.del_after_put || d.n != f.n;
	for (i = 0; i < d.n && i < f.n; i++)
		bad += d.k[i] != f.k[i] || d.x[i] != f.x[i];
	free(d.k);
	free(d.x);
	free(f.k);
	free(f.x);
	return bad;
}

static uint64_t rnd(uint64_t *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return *st;
}

/* One version changing about n keys: puts (of 8 or 16 bytes: a length
 * change kills the entry and appends another) and removes. */
static int version(sl_state *s, uint64_t *r, int n, int64_t tick)
{
	int i, rc = 0;
	memset(changed, 0, sizeof changed);
	for (i = 0; i < n && rc >= 0; i++) {
		int k = (int)(rnd(r) % K);
		int64_t v[2] = {tick * K + k, 0};
		changed[k] = true;
		if (rnd(r) % 8 == 0)
			rc = sl_state_remove(s, &k, sizeof k);
		else
			rc = sl_state_put(s, &k, sizeof k, v,
					  rnd(r) % 4 ? 8 : 16, NULL);
	}
	return rc < 0 ? rc : 0;
}

int main(void)
{
	sl_state *s = sl_state_new();
	uint64_t r = 0x9e3779b97f4a7c15ull;
	int v, bad_pend = 0, bad_commit = 0, bad_abort = 0, oom = 0;
	int k;
	int64_t tick = 0;
	ok(s != NULL, "new store");
	for (k = 0; k < K; k++) { /* a full store first */
		int64_t x = k;
		oom += sl_state_put(s, &k, sizeof k, &x, 8, NULL) < 0;
	}
	oom += sl_state_commit(s, NULL) < 0;
	for (v = 0; v < 600; v++) {
		/* mostly small versions (the list), some large (the scan),
		 * some empty */
		int n = v % 7 == 0 ? K / 2 : v % 11 == 0 ? 0 : 50 + v * 13 % 3000;
		oom += version(s, &r, n, ++tick) < 0;
		/* the pending version's delta (an unchanged pending version
		 * shows the last commit's: checked after that commit) */
		bad_pend += n > 0 && check(s) != 0;
		if (v % 5 == 4) {
			sl_state_abort(s);
			continue;
		}
		oom += sl_state_commit(s, NULL) < 0;
		bad_commit += check(s) != 0; /* the committed one */
	}
	/* after an abort of a small version, then a small commit */
	oom += version(s, &r, 100, ++tick) < 0;
	sl_state_abort(s);
	oom += version(s, &r, 100, ++tick) < 0;
	oom += sl_state_commit(s, NULL) < 0;
	bad_abort += check(s) != 0;
	is_int(oom, 0, "no operation failed");
	is_int(bad_pend, 0, "pending deltas: foreach's order and values");
	is_int(bad_commit, 0, "committed deltas: foreach's order and values");
	is_int(bad_abort, 0, "a commit after an abort");
	sl_state_free(s);
	return done_testing();
}
