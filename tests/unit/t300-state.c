/* t300-state: the versioned key/value store: get/put/remove, commit,
 * abort back to the last version, the delta, metrics, growth and
 * compaction against a reference model. */
#include <stdio.h>
#include <stdlib.h>

#include "state/state.h"
#include "tap.h"

static int64_t getv(sl_state *s, int k)
{
	size_t n;
	const void *v = sl_state_get(s, &k, sizeof k, &n);
	int64_t x;
	if (v == NULL)
		return -1;
	memcpy(&x, v, sizeof x);
	return x;
}

static void putv(sl_state *s, int k, int64_t v)
{
	sl_state_put(s, &k, sizeof k, &v, sizeof v, NULL);
}

static int count_delta(void *ud, const void *k, size_t kl, const void *v,
		       size_t vl)
{
	int *n = ud;
	(void)k;
	(void)kl;
	(void)vl;
	n[v == NULL ? 1 : 0]++;
	return 0;
}

static int even_key(void *ud, const void *k, size_t kl, const void *v,
		    size_t vl)
{
	int key;
	(void)ud;
	(void)kl;
	(void)v;
	(void)vl;
	memcpy(&key, k, sizeof key);
	return key % 2 == 0;
}

static void basics(void)
{
	sl_state *s = sl_state_new();
	int n[2] = {0, 0};
	putv(s, 1, 10);
	putv(s, 2, 20);
	is_int(getv(s, 1), 10, "read own write");
	is_int(sl_state_num_updated(s), 2, "updated counts puts");
	sl_state_commit(s, NULL);
	is_int(sl_state_version(s), 1, "version 1 after commit");
	sl_state_foreach_delta(s, count_delta, n);
	is_int(n[0], 2, "delta has 2 puts");
	putv(s, 1, 11);
	putv(s, 3, 30);
	ok(sl_state_remove(s, &(int){2}, sizeof(int)) == 1, "remove existing");
	ok(sl_state_remove(s, &(int){9}, sizeof(int)) == 0, "remove missing");
	is_int(sl_state_num_rows(s), 2, "rows while pending");
	sl_state_abort(s);
	is_int(getv(s, 1), 10, "abort restores old value");
	is_int(getv(s, 2), 20, "abort restores removed key");
	is_int(getv(s, 3), -1, "abort drops new key");
	is_int(sl_state_num_rows(s), 2, "rows after abort");
	is_int(sl_state_version(s), 1, "version unchanged by abort");
	putv(s, 2, 21);
	sl_state_remove(s, &(int){1}, sizeof(int));
	sl_state_commit(s, NULL);
	n[0] = n[1] = 0;
	sl_state_foreach_delta(s, count_delta, n);
	ok(n[0] == 1 && n[1] == 1, "delta: one put, one remove");
	sl_state_free(s);
}

/* Random operations against an array model, with aborts. */
static void model(void)
{
	enum { K = 5000 };
	static int64_t m[K], saved[K];
	sl_state *s = sl_state_new();
	int v, i, bad = 0;
	unsigned seed = 42;
	for (i = 0; i < K; i++)
		m[i] = saved[i] = -1;
	for (v = 0; v < 60; v++) {
		int ops = 2000;
		while (ops-- > 0) {
			int k = (int)(rand_r(&seed) % K);
			if (rand_r(&seed) % 4 == 0) {
				sl_state_remove(s, &k, sizeof k);
				m[k] = -1;
			} else {
				int64_t x = rand_r(&seed);
				/* vary the value length to force new entries */
				char buf[24];
				size_t len = 8 + (size_t)(x % 3) * 8;
				memset(buf, 0, sizeof buf);
				memcpy(buf, &x, 8);
				sl_state_put(s, &k, sizeof k, buf, len, NULL);
				m[k] = x;
			}
		}
		if (v % 3 == 2) {
			sl_state_abort(s);
			memcpy(m, saved, sizeof m);
		} else {
			sl_state_commit(s, NULL);
			memcpy(saved, m, sizeof m);
		}
		for (i = 0; i < K; i++)
			if (getv(s, i) != m[i])
				bad++;
	}
	is_int(bad, 0, "60 versions of random puts/removes/aborts match the model");
	{
		int64_t live = 0;
		for (i = 0; i < K; i++)
			live += m[i] >= 0;
		is_int(sl_state_num_rows(s), live, "row count matches the model");
	}
	{
		int64_t removed = sl_state_remove_if(s, even_key, NULL, NULL,
						     NULL, NULL);
		int64_t still = 0;
		for (i = 0; i < K; i += 2)
			still += getv(s, i) >= 0;
		ok(removed > 0 && still == 0, "remove_if removed every even key");
		sl_state_abort(s);
		for (i = 0; i < K; i++)
			if (getv(s, i) != m[i])
				bad++;
		is_int(bad, 0, "abort after remove_if restores everything");
	}
	diag("memory for %lld rows: %zu bytes", (long long)sl_state_num_rows(s),
	     sl_state_memory(s));
	sl_state_free(s);
}

/* Keys and values of every length 0..40 (the inline compare and copy
 * of short ones): keys that differ in one byte only are distinct; a
 * value overwritten in place with one of the same length is logged, so
 * abort restores it and commit keeps it. */
static void short_lengths(void)
{
	sl_state *s = sl_state_new();
	unsigned char k[41], v[41];
	const unsigned char *got;
	size_t n, len, pos;
	int64_t bad = 0, bad_abort = 0, bad_commit = 0;
	memset(k, 'k', sizeof k);
	for (len = 0; len <= 40; len++) { /* key len: len, value: len */
		memset(v, (int)len, sizeof v);
		sl_state_put(s, k, len, v, len, NULL);
	}
	for (len = 1; len <= 40; len++) /* one byte differs: a new key */
		for (pos = 0; pos < len; pos++) {
			k[pos] = 'x';
			bad += sl_state_get(s, k, len, &n) != NULL;
			k[pos] = 'k';
		}
	is_int(bad, 0, "keys of 1..40 bytes differing in one byte are distinct");
	sl_state_commit(s, NULL);
	for (len = 0; len <= 40; len++) { /* same length: in place */
		memset(v, 200 + (int)(len % 50), sizeof v);
		sl_state_put(s, k, len, v, len, NULL);
	}
	is_int(sl_state_num_updated(s), 41, "in-place puts count as updates");
	sl_state_abort(s);
	for (len = 0; len <= 40; len++) {
		got = sl_state_get(s, k, len, &n);
		memset(v, (int)len, sizeof v);
		bad_abort += got == NULL || n != len || memcmp(got, v, len) != 0;
	}
	is_int(bad_abort, 0, "abort restores values overwritten in place");
	for (len = 0; len <= 40; len++) {
		memset(v, 200 + (int)(len % 50), sizeof v);
		sl_state_put(s, k, len, v, len, NULL);
		sl_state_put(s, k, len, v, len, NULL); /* twice a version */
	}
	sl_state_commit(s, NULL);
	for (len = 0; len <= 40; len++) {
		got = sl_state_get(s, k, len, &n);
		memset(v, 200 + (int)(len % 50), sizeof v);
		bad_commit += got == NULL || n != len || memcmp(got, v, len) != 0;
	}
	is_int(bad_commit, 0, "commit keeps values overwritten in place");
	sl_state_free(s);
}

/* A store past 2 MiB of slots and heap (allocated as huge pages):
 * growth, then a version that overwrites every key in place (undo records
 * naming entries) and twice more with longer values, so that the heap is
 * compacted in the middle of the version; abort and commit give the
 * model's answers. */
static void large(void)
{
	sl_state *s = sl_state_new();
	int k, n = 300000;
	int64_t bad = 0, v[3] = { 0, 0, 0 }, w[3];
	size_t len;
	const void *got;
	for (k = 0; k < n; k++)
		putv(s, k, k);
	sl_state_commit(s, NULL);
	for (k = 0; k < n; k++)
		putv(s, k, -1);
	for (k = 0; k < n; k++) /* 16, then 24-byte values: new entries */
		sl_state_put(s, &k, sizeof k, v, 2 * sizeof *v, NULL);
	for (k = 0; k < n; k++)
		sl_state_put(s, &k, sizeof k, v, sizeof v, NULL);
	sl_state_abort(s);
	for (k = 0; k < n; k++)
		bad += getv(s, k) != k;
	is_int(bad, 0, "a large store: abort restores %d keys", n);
	for (k = 0; k < n; k += 2) {
		v[0] = v[1] = v[2] = -k;
		sl_state_put(s, &k, sizeof k, v, sizeof v, NULL);
	}
	sl_state_commit(s, NULL);
	bad = 0;
	for (k = 0; k < n; k++) {
		got = sl_state_get(s, &k, sizeof k, &len);
		if (k % 2 == 1) {
			bad += getv(s, k) != k;
			continue;
		}
		if (got != NULL && len == sizeof w) /* values are unaligned */
			memcpy(w, got, sizeof w);
		bad +=
		    got == NULL || len != sizeof w || w[0] != -k || w[2] != -k;
	}
	is_int(bad, 0, "a large store: commit keeps the longer values");
	is_int(sl_state_num_rows(s), n, "a large store: %d rows", n);
	sl_state_free(s);
}

/* The empty key (a global aggregate's) overwritten in place, then with
 * ever longer values until the heap is compacted within the version:
 * abort still gives the committed value back. */
static void empty_key(void)
{
	sl_state *s = sl_state_new();
	char v[1024];
	const char *got;
	size_t n, len;
	memset(v, 'a', sizeof v);
	sl_state_put(s, "", 0, v, 8, NULL);
	sl_state_commit(s, NULL);
	memset(v, 'b', sizeof v);
	sl_state_put(s, "", 0, v, 8, NULL); /* in place: names the entry */
	for (len = 9; len <= sizeof v; len++)
		sl_state_put(s, "", 0, v, len, NULL);
	sl_state_abort(s);
	got = sl_state_get(s, "", 0, &n);
	ok(got != NULL && n == 8 && memcmp(got, "aaaaaaaa", 8) == 0,
	   "abort after compaction restores the empty key's value");
	sl_state_free(s);
}

int main(void)
{
	basics();
	short_lengths();
	model();
	large();
	empty_key();
	return done_testing();
}
