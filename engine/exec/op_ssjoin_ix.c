/*
 * op_ssjoin_ix: the index of a stream-stream join's held rows (side ++
 * join key -> row numbers), open addressing with linear probing; see
 * op_ssjoin_int.h for what it caches and op_ssjoin.c for the join.
 * Never prints; out of memory is SL_ENOMEM.
 */
#include "exec/op_ssjoin_int.h"

#include <stdlib.h>
#include <string.h>

#include "exec/hash.h"

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

ixent *sl_ssjoin_ix_find(const ssjoinst *st, const char *k, size_t n)
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

void sl_ssjoin_ix_clear(ssjoinst *st)
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

int sl_ssjoin_ix_add(ssjoinst *st, const char *k, size_t n, int64_t seq)
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

void sl_ssjoin_ix_remove(ssjoinst *st, const char *k, size_t n, int64_t seq)
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

int64_t sl_ssjoin_get_seq(const unsigned char *p)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (int64_t)v;
}

void sl_ssjoin_put_seq(sl_buf *b, int64_t seq)
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
	int64_t seq = sl_ssjoin_get_seq((const unsigned char *)key + klen - 8);
	(void)val;
	(void)vlen;
	if (seq >= st->next_seq)
		st->next_seq = seq + 1;
	return sl_ssjoin_ix_add(st, key, klen - 8, seq) < 0 ? SL_ENOMEM : 0;
}

int sl_ssjoin_ix_fresh(ssjoinst *st, sl_err *err)
{
	if (!st->stale)
		return 0;
	sl_ssjoin_ix_clear(st);
	if (sl_state_foreach(st->sf.store, rebuild_one, st) != 0) {
		sl_ssjoin_ix_clear(st);
		return sl_err_nomem(err);
	}
	st->stale = false;
	return 0;
}
