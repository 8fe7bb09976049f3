/*
 * state: the versioned key/value store.
 *
 * Why an undo log and not copy-on-write versions: a micro-batch touches a
 * small part of a large state, so remembering the old value of each key the
 * batch changes costs O(changes) and makes abort exact; the same log names
 * the keys of the delta the checkpoint writes.  Keys touched twice in one
 * version are logged twice; abort replays the log backwards, so the oldest
 * record wins and the result is still exact.
 *
 * Slots use linear probing with backward-shift deletion (no tombstones).
 */
#include "state.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	uint64_t hash;
	uint64_t off; /* entry offset in heap + 1; 0 = empty */
};

struct entry {
	uint32_t klen, vlen;
	int64_t logged; /* epoch whose undo log already holds this key */
	/* key bytes, then value bytes */
};

struct undo {
	uint64_t off; /* record offset in the log buffer */
};

struct sl_state {
	int64_t version;
	int64_t epoch; /* +1 at every commit and abort: tags undo records */
	struct slot *slots;
	uint64_t nslots; /* power of two */
	int64_t nrows;
	char *heap;
	size_t heap_len, heap_cap, garbage;
	/* undo log of the pending version: records {klen, vlen or -1, key,
	 * old value} in `log`; after commit it is the delta until the next
	 * write */
	char *log;
	size_t log_len, log_cap;
	bool log_is_delta;
	int64_t nupdated, nremoved;
};

/* A word-at-a-time hash (multiply-xorshift per 8 bytes): keys are short
 * encoded group keys, and the byte loop of FNV was the hottest line of
 * W1-100k's state merge. */
static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
		b += 8;
		n -= 8;
	}
	if (n > 0) {
		uint64_t w = 0;
		memcpy(&w, b, n);
		h = (h ^ w) * 0x94d049bb133111ebull;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

static struct entry *entry_at(const sl_state *s, uint64_t off)
{
	return (struct entry *)(s->heap + off - 1);
}

static char *entry_key(struct entry *e)
{
	return (char *)(e + 1);
}

static char *entry_val(struct entry *e)
{
	return (char *)(e + 1) + e->klen;
}

static size_t entry_size(uint32_t klen, uint32_t vlen)
{
	size_t n = sizeof(struct entry) + klen + vlen;
	return (n + 7) & ~(size_t)7;
}

sl_state *sl_state_new(void)
{
	sl_state *s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	s->nslots = 16;
	s->slots = calloc(s->nslots, sizeof *s->slots);
	if (s->slots == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

void sl_state_free(sl_state *s)
{
	if (s == NULL)
		return;
	free(s->slots);
	free(s->heap);
	free(s->log);
	free(s);
}

int64_t sl_state_version(const sl_state *s)
{
	return s->version;
}

/* Index of key's slot, or of the empty slot where it would go. */
static uint64_t find(const sl_state *s, uint64_t h, const void *key,
		     size_t klen)
{
	uint64_t mask = s->nslots - 1, i = h & mask;
	for (;;) {
		const struct slot *sl = &s->slots[i];
		if (sl->off == 0)
			return i;
		if (sl->hash == h) {
			struct entry *e = entry_at(s, sl->off);
			if (e->klen == klen && memcmp(entry_key(e), key, klen) == 0)
				return i;
		}
		i = (i + 1) & mask;
	}
}

static int grow_slots(sl_state *s)
{
	uint64_t n = s->nslots * 2, i, mask = n - 1;
	struct slot *ns = calloc(n, sizeof *ns);
	if (ns == NULL)
		return SL_ENOMEM;
	for (i = 0; i < s->nslots; i++) {
		uint64_t j;
		if (s->slots[i].off == 0)
			continue;
		j = s->slots[i].hash & mask;
		while (ns[j].off != 0)
			j = (j + 1) & mask;
		ns[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = ns;
	s->nslots = n;
	return 0;
}

static int reserve(char **buf, size_t *cap, size_t len, size_t extra)
{
	size_t need = len + extra, nc;
	char *nb;
	if (need <= *cap)
		return 0;
	nc = *cap ? *cap : 4096;
	while (nc < need)
		nc *= 2;
	nb = realloc(*buf, nc);
	if (nb == NULL)
		return SL_ENOMEM;
	*buf = nb;
	*cap = nc;
	return 0;
}

/* Move live entries to a fresh heap (offsets change). */
static int compact(sl_state *s)
{
	size_t cap = s->heap_len - s->garbage + 64, len = 0;
	char *nh = malloc(cap);
	uint64_t i;
	if (nh == NULL)
		return SL_ENOMEM;
	for (i = 0; i < s->nslots; i++) {
		struct entry *e;
		size_t sz;
		if (s->slots[i].off == 0)
			continue;
		e = entry_at(s, s->slots[i].off);
		sz = entry_size(e->klen, e->vlen);
		memcpy(nh + len, e, sz);
		s->slots[i].off = len + 1;
		len += sz;
	}
	free(s->heap);
	s->heap = nh;
	s->heap_len = len;
	s->heap_cap = cap;
	s->garbage = 0;
	return 0;
}

/* Start of a write: the delta of the last commit is no longer needed. */
static void begin_write(sl_state *s)
{
	if (s->log_is_delta) {
		s->log_len = 0;
		s->log_is_delta = false;
	}
}

/* Record the current value (or absence) of key before changing it. */
static int log_old(sl_state *s, const void *key, size_t klen,
		   struct entry *old)
{
	uint32_t hdr[2];
	size_t vlen = old ? old->vlen : 0;
	int rc;
	if (old != NULL && old->logged == s->epoch)
		return 0;
	rc = reserve(&s->log, &s->log_cap, s->log_len,
		     sizeof hdr + klen + vlen);
	if (rc < 0)
		return rc;
	hdr[0] = (uint32_t)klen;
	hdr[1] = old ? old->vlen : UINT32_MAX;
	memcpy(s->log + s->log_len, hdr, sizeof hdr);
	memcpy(s->log + s->log_len + sizeof hdr, key, klen);
	if (old != NULL)
		memcpy(s->log + s->log_len + sizeof hdr + klen, entry_val(old),
		       vlen);
	s->log_len += sizeof hdr + klen + vlen;
	if (old != NULL)
		old->logged = s->epoch;
	return 0;
}

const void *sl_state_get(sl_state *s, const void *key, size_t klen,
			 size_t *vlen)
{
	uint64_t h = hash_bytes(key, klen), i = find(s, h, key, klen);
	struct entry *e;
	if (s->slots[i].off == 0)
		return NULL;
	e = entry_at(s, s->slots[i].off);
	if (vlen != NULL)
		*vlen = e->vlen;
	return entry_val(e);
}

/* Insert or replace without logging (used by put and abort). */
static int raw_put(sl_state *s, uint64_t h, const void *key, size_t klen,
		   const void *val, size_t vlen, int64_t logged)
{
	uint64_t i = find(s, h, key, klen);
	struct entry *e;
	size_t sz;
	if (s->slots[i].off != 0) {
		e = entry_at(s, s->slots[i].off);
		if (e->vlen == vlen) {
			memcpy(entry_val(e), val, vlen);
			return 0;
		}
		s->garbage += entry_size(e->klen, e->vlen);
	} else if ((uint64_t)(s->nrows + 1) * 4 > s->nslots * 3) {
		if (grow_slots(s) < 0)
			return SL_ENOMEM;
		i = find(s, h, key, klen);
	}
	sz = entry_size((uint32_t)klen, (uint32_t)vlen);
	if (reserve(&s->heap, &s->heap_cap, s->heap_len, sz) < 0)
		return SL_ENOMEM;
	e = (struct entry *)(s->heap + s->heap_len);
	e->klen = (uint32_t)klen;
	e->vlen = (uint32_t)vlen;
	e->logged = logged;
	memcpy(entry_key(e), key, klen);
	memcpy(entry_val(e), val, vlen);
	if (s->slots[i].off == 0)
		s->nrows++;
	s->slots[i].hash = h;
	s->slots[i].off = s->heap_len + 1;
	s->heap_len += sz;
	if (s->garbage > 65536 && s->garbage * 2 > s->heap_len)
		return compact(s);
	return 0;
}

int sl_state_put(sl_state *s, const void *key, size_t klen, const void *val,
		 size_t vlen, sl_err *err)
{
	uint64_t h = hash_bytes(key, klen), i;
	struct entry *old = NULL;
	if (klen >= UINT32_MAX || vlen >= UINT32_MAX)
		return sl_err_set(err, SL_EINVAL, "state: entry too large");
	begin_write(s);
	i = find(s, h, key, klen);
	if (s->slots[i].off != 0)
		old = entry_at(s, s->slots[i].off);
	if (log_old(s, key, klen, old) < 0 ||
	    raw_put(s, h, key, klen, val, vlen, s->epoch) < 0)
		return sl_err_nomem(err);
	s->nupdated++;
	return 0;
}

static void raw_remove(sl_state *s, uint64_t i)
{
	uint64_t mask = s->nslots - 1, j = i;
	struct entry *e = entry_at(s, s->slots[i].off);
	s->garbage += entry_size(e->klen, e->vlen);
	s->slots[i].off = 0;
	s->nrows--;
	/* backward-shift the cluster that follows */
	for (;;) {
		uint64_t home;
		j = (j + 1) & mask;
		if (s->slots[j].off == 0)
			break;
		home = s->slots[j].hash & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			s->slots[i] = s->slots[j];
			s->slots[j].off = 0;
			i = j;
		}
	}
}

int sl_state_remove(sl_state *s, const void *key, size_t klen)
{
	uint64_t h = hash_bytes(key, klen), i;
	begin_write(s);
	i = find(s, h, key, klen);
	if (s->slots[i].off == 0)
		return 0;
	if (log_old(s, key, klen, entry_at(s, s->slots[i].off)) < 0)
		return SL_ENOMEM;
	raw_remove(s, i);
	s->nremoved++;
	return 1;
}

int sl_state_foreach(sl_state *s, sl_state_fn fn, void *ud)
{
	uint64_t i;
	for (i = 0; i < s->nslots; i++) {
		struct entry *e;
		int rc;
		if (s->slots[i].off == 0)
			continue;
		e = entry_at(s, s->slots[i].off);
		rc = fn(ud, entry_key(e), e->klen, entry_val(e), e->vlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int64_t sl_state_remove_if(sl_state *s, sl_state_fn pred, void *pred_ud,
			   sl_state_fn on_remove, void *rm_ud, sl_err *err)
{
	uint64_t i = 0;
	int64_t n = 0;
	begin_write(s);
	while (i < s->nslots) {
		struct entry *e;
		if (s->slots[i].off == 0) {
			i++;
			continue;
		}
		e = entry_at(s, s->slots[i].off);
		if (!pred(pred_ud, entry_key(e), e->klen, entry_val(e),
			  e->vlen)) {
			i++;
			continue;
		}
		if (on_remove != NULL)
			on_remove(rm_ud, entry_key(e), e->klen, entry_val(e),
				  e->vlen);
		if (log_old(s, entry_key(e), e->klen, e) < 0)
			return sl_err_nomem(err);
		raw_remove(s, i);
		s->nremoved++;
		n++;
		/* slot i now holds a shifted entry (or is empty): look again,
		 * unless the shift wrapped a cluster around the end */
	}
	return n;
}

int sl_state_commit(sl_state *s, sl_err *err)
{
	(void)err;
	s->version++;
	s->epoch++;
	s->log_is_delta = true;
	s->nupdated = s->nremoved = 0;
	return 0;
}

void sl_state_abort(sl_state *s)
{
	/* replay the undo records backwards: the oldest record wins */
	size_t *offs = NULL, n = 0, cap = 0, p = 0;
	s->epoch++;
	if (s->log_is_delta) {
		s->nupdated = s->nremoved = 0;
		return;
	}
	while (p < s->log_len) {
		uint32_t hdr[2];
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			size_t *no = realloc(offs, nc * sizeof *no);
			if (no == NULL)
				break; /* NEEDSWORK: abort under OOM is partial */
			offs = no;
			cap = nc;
		}
		offs[n++] = p;
		memcpy(hdr, s->log + p, sizeof hdr);
		p += sizeof hdr + hdr[0] + (hdr[1] == UINT32_MAX ? 0 : hdr[1]);
	}
	while (n-- > 0) {
		uint32_t hdr[2];
		const char *k;
		uint64_t h, i;
		memcpy(hdr, s->log + offs[n], sizeof hdr);
		k = s->log + offs[n] + sizeof hdr;
		h = hash_bytes(k, hdr[0]);
		if (hdr[1] == UINT32_MAX) {
			i = find(s, h, k, hdr[0]);
			if (s->slots[i].off != 0)
				raw_remove(s, i);
		} else {
			raw_put(s, h, k, hdr[0], k + hdr[0], hdr[1], -1);
		}
	}
	free(offs);
	s->log_len = 0;
	s->nupdated = s->nremoved = 0;
}

int sl_state_foreach_delta(sl_state *s, sl_state_fn fn, void *ud)
{
	size_t p = 0;
	while (p < s->log_len) {
		uint32_t hdr[2];
		const char *k;
		size_t vlen;
		const void *v;
		int rc;
		memcpy(hdr, s->log + p, sizeof hdr);
		k = s->log + p + sizeof hdr;
		v = sl_state_get(s, k, hdr[0], &vlen);
		rc = fn(ud, k, hdr[0], v, v ? vlen : 0);
		if (rc != 0)
			return rc;
		p += sizeof hdr + hdr[0] + (hdr[1] == UINT32_MAX ? 0 : hdr[1]);
	}
	return 0;
}

void sl_state_reset(sl_state *s, int64_t v)
{
	memset(s->slots, 0, s->nslots * sizeof *s->slots);
	s->nrows = 0;
	s->heap_len = s->garbage = 0;
	s->log_len = 0;
	s->log_is_delta = false;
	s->nupdated = s->nremoved = 0;
	s->version = v;
	s->epoch++;
}

void sl_state_set_version(sl_state *s, int64_t v)
{
	s->version = v;
	s->epoch++;
	s->log_len = 0;
	s->log_is_delta = true;
	s->nupdated = s->nremoved = 0;
}

int64_t sl_state_num_rows(const sl_state *s)
{
	return s->nrows;
}

int64_t sl_state_num_updated(const sl_state *s)
{
	return s->nupdated;
}

int64_t sl_state_num_removed(const sl_state *s)
{
	return s->nremoved;
}

size_t sl_state_memory(const sl_state *s)
{
	return sizeof *s + s->nslots * sizeof *s->slots + s->heap_len -
	       s->garbage + s->log_len;
}
