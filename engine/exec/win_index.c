/*
 * win_index: the event-time index of stateful operators (window.h): a
 * min-heap of (event time, state key) whose prefix is what the watermark
 * evicts, the keys copied into one buffer that is compacted as entries
 * leave.
 */
#include "exec/window.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct sl_win_ent {
	int64_t t;
	size_t off;
	size_t len;
};

void sl_win_index_init(sl_win_index *x)
{
	memset(x, 0, sizeof *x);
}

void sl_win_index_release(sl_win_index *x)
{
	free(x->e);
	free(x->keys);
	sl_win_index_init(x);
}

void sl_win_index_clear(sl_win_index *x)
{
	x->n = 0;
	x->klen = x->klive = 0;
	x->valid = true;
}

static bool ent_less(const struct sl_win_ent *a, const struct sl_win_ent *b)
{
	return a->t < b->t;
}

static void sift_up(struct sl_win_ent *e, int64_t i)
{
	struct sl_win_ent v = e[i];
	while (i > 0) {
		int64_t p = (i - 1) / 2;
		if (!ent_less(&v, &e[p]))
			break;
		e[i] = e[p];
		i = p;
	}
	e[i] = v;
}

static void sift_down(struct sl_win_ent *e, int64_t n, int64_t i)
{
	struct sl_win_ent v = e[i];
	for (;;) {
		int64_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ent_less(&e[c + 1], &e[c]))
			c++;
		if (!ent_less(&e[c], &v))
			break;
		e[i] = e[c];
		i = c;
	}
	e[i] = v;
}

/* Drop the bytes of popped keys when they are most of the buffer. */
static int compact(sl_win_index *x)
{
	char *nk;
	size_t at = 0;
	int64_t i;
	if (x->klen < 65536 || x->klive * 2 > x->klen)
		return 0;
	if ((nk = malloc(x->klive + 1)) == NULL)
		return SL_ENOMEM;
	for (i = 0; i < x->n; i++) {
		memcpy(nk + at, x->keys + x->e[i].off, x->e[i].len);
		x->e[i].off = at;
		at += x->e[i].len;
	}
	free(x->keys);
	x->keys = nk;
	x->klen = at;
	x->kcap = x->klive + 1;
	return 0;
}

int sl_win_index_push(sl_win_index *x, int64_t t, const void *key, size_t klen,
		      sl_err *err)
{
	if (compact(x) < 0)
		return sl_err_nomem(err);
	if (x->n == x->cap) {
		int64_t cap = x->cap ? 2 * x->cap : 256;
		struct sl_win_ent *m = realloc(x->e, (size_t)cap * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(err);
		x->e = m;
		x->cap = cap;
	}
	if (x->klen + klen > x->kcap) {
		size_t cap = x->kcap ? 2 * x->kcap : 4096;
		char *m;
		while (cap < x->klen + klen)
			cap *= 2;
		if ((m = realloc(x->keys, cap)) == NULL)
			return sl_err_nomem(err);
		x->keys = m;
		x->kcap = cap;
	}
	if (klen > 0)
		memcpy(x->keys + x->klen, key, klen);
	x->e[x->n].t = t;
	x->e[x->n].off = x->klen;
	x->e[x->n].len = klen;
	x->klen += klen;
	x->klive += klen;
	sift_up(x->e, x->n++);
	return 0;
}

bool sl_win_index_pop(sl_win_index *x, int64_t limit, int64_t *t,
		      const void **key, size_t *klen)
{
	struct sl_win_ent top;
	if (x->n == 0 || x->e[0].t > limit)
		return false;
	top = x->e[0];
	assert(top.t <= limit && top.off + top.len <= x->klen);
	x->e[0] = x->e[--x->n];
	if (x->n > 0)
		sift_down(x->e, x->n, 0);
	x->klive -= top.len;
	*t = top.t;
	*key = x->keys + top.off;
	*klen = top.len;
	return true;
}

int64_t sl_win_index_min(const sl_win_index *x)
{
	return x->n > 0 ? x->e[0].t : INT64_MAX;
}
