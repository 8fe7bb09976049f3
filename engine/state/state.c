/*
 * state: the versioned key/value store.
 *
 * Why an undo log and not copy-on-write versions: a micro-batch touches a
 * small part of a large state, so remembering the old value of each key the
 * batch changes costs O(changes) and makes abort exact.  Keys touched twice
 * in one version are logged twice; abort replays the log backwards, so the
 * oldest record wins and the result is still exact.  The undo log is
 * dropped at commit.
 *
 * The delta without lookups: every heap entry carries an 8-bit tag, the
 * version that last wrote it (set when a put logs it or writes it), and
 * dead entries (removed, or replaced by a value of another length) are
 * tagged TAG_DEAD.  So the puts of the delta are the live entries tagged
 * with the delta's tag, found by one sequential scan of the heap; the
 * removes are kept in a small side log (`rm`) written at removal.  Lookups
 * per changed key were most of a checkpoint's time at 200k groups (each
 * one two cache misses); a scan streams the heap.
 * The dirty list: a scan reads every live entry though a batch may have
 * changed a tenth of them (W1-1M: 100k of 1-2M groups a batch, the scan
 * 8% of the run).  So every entry that takes the pending tag also has its
 * heap offset / 8 appended to `dl`; the delta then visits those offsets
 * sorted (radix) and deduplicated, keeping the ones still tagged with
 * the delta's tag: the same entries in the same (heap) order as the scan,
 * so the delta files are byte for byte the same.  A compaction moves the
 * entries, and a version that changes more than a quarter of the store
 * gains nothing from the list: both give it up (dl_ok false) for the
 * version, and the scan serves, as it does when the list cannot grow.
 *
 * Tags: every version (commit, abort, reset, set_version) takes the next
 * tag; after TAG_MAX one sweep of the heap (every 253 versions) retags the
 * delta's entries 1 and every other live one TAG_NONE, and tags restart at
 * 2, so a tag never names two versions.  The tag shares a word with the
 * key length (keys up to 16 MiB): an 8-byte entry header, not 16, was
 * most of the way to BENCH.md's 64 bytes per group.
 *
 * Slots are 8 bytes: the low 32 bits of the hash (home index and tag) and
 * the entry's heap offset / 8 + 1 (0 = empty), so a cache line holds 8
 * probes.  Linear probing with backward-shift deletion (no tombstones).
 * The 32-bit offset bounds the heap at 32 GiB; past it puts fail with
 * SL_ENOMEM.
 *
 * Providers (state.h): every sl_state names the provider serving it.  The
 * byte store's public calls test for it and call its functions directly
 * (bs_*: no indirect call on the hot paths); another provider's store is
 * a bare sl_state whose calls go through its table.
 */
#include "state/state.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/copy.h"
#include "state/front.h"

#define TAG_NONE 0u   /* written by no tracked version (abort restored) */
#define TAG_MAX  254u /* the last version tag before a sweep */
#define TAG_DEAD 255u /* a dead heap entry */
#define KLEN_MAX 0xffffffu
#define MAX_REF  0xffffffffu /* slot offset field: (off / 8) + 1 */
#define REC_AT   0x80000000u /* undo record naming its entry, not its key */

struct entry {
	uint32_t kt; /* key length << 8 | tag */
	uint32_t vlen;
	/* key bytes, then value bytes */
};

struct sl_state {
	const sl_state_provider *pv; /* &bytes_pv, or another provider's */
	void *impl;                  /* the provider's store; NULL here */
	int64_t version;
	unsigned tag;    /* the pending version's tag, 1..TAG_MAX */
	uint64_t *slots; /* low 32: hash; high 32: heap offset / 8 + 1 */
	uint64_t nslots; /* power of two, at most 2^32 */
	uint64_t mods;   /* +1 at insert, remove, growth: stales positions */
	int64_t nrows;
	char *heap;
	size_t heap_len, heap_cap, garbage;
	/* undo log of the pending version: records {klen, vlen or -1, key,
	 * old value} or {REC_AT | entry offset / 8, vlen, old value} */
	char *log;
	size_t log_len, log_cap;
	bool undoing; /* abort replays the log: no compaction */
	/* keys removed in the delta's version: records {klen, key} */
	char *rm;
	size_t rm_len, rm_cap;
	/* offsets / 8 of the entries tagged with the delta's tag (the dirty
	 * list), with repeats, unordered; only while dl_ok */
	uint32_t *dl;
	size_t dl_n, dl_cap;
	bool dl_ok;
	bool dirty;     /* the pending version has writes */
	bool has_delta; /* delta_tag names the delta (else it is empty) */
	unsigned delta_tag;
	int64_t nupdated, nremoved;
};

/* A wyhash-style hash: 128-bit multiply-folds of 16 bytes at a time, the
 * tail read as two overlapping words (no byte loop).  Keys are short
 * encoded group keys; the byte tail of the former multiply-xorshift hash
 * was 5% of W1-100k.  Hashes never leave the process, so the function
 * may change. */
static uint64_t rd64(const unsigned char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

static uint64_t rd32(const unsigned char *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return w;
}

static uint64_t mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)(r >> 64) ^ (uint64_t)r;
}

#define HK0 0xa0761d6478bd642full
#define HK1 0xe7037ed1a0b428dbull
#define HK2 0x8ebc6af09c88c6e3ull

static uint64_t hash_bytes(const void *key, size_t n)
{
	const unsigned char *p = key;
	uint64_t seed = HK0 ^ mum(n ^ HK1, HK2), a, b;
	if (n <= 16) {
		if (n >= 8) {
			a = rd64(p);
			b = rd64(p + n - 8);
		} else if (n >= 4) {
			a = rd32(p);
			b = rd32(p + n - 4);
		} else if (n > 0) {
			a = ((uint64_t)p[0] << 16) |
			    ((uint64_t)p[n >> 1] << 8) | p[n - 1];
			b = 0;
		} else {
			a = b = 0;
		}
	} else {
		size_t i = n;
		while (i > 16) {
			seed = mum(rd64(p) ^ HK1, rd64(p + 8) ^ seed);
			p += 16;
			i -= 16;
		}
		a = rd64(p + i - 16);
		b = rd64(p + i - 8);
	}
	return mum(HK1 ^ n, mum(a ^ HK1, b ^ seed));
}

uint64_t sl_state_hash(const void *key, size_t klen)
{
	return hash_bytes(key, klen);
}

static uint64_t slot_make(uint64_t h, size_t off)
{
	return (uint64_t)(uint32_t)h | ((uint64_t)(off / 8 + 1) << 32);
}

static struct entry *slot_entry(const sl_state *s, uint64_t x)
{
	return (struct entry *)(s->heap + ((x >> 32) - 1) * 8);
}

static uint32_t e_klen(const struct entry *e)
{
	return e->kt >> 8;
}

static unsigned e_tag(const struct entry *e)
{
	return e->kt & 0xffu;
}

static void e_set_tag(struct entry *e, unsigned tag)
{
	e->kt = (e->kt & ~0xffu) | tag;
}

static char *entry_key(struct entry *e)
{
	return (char *)(e + 1);
}

static char *entry_val(struct entry *e)
{
	return (char *)(e + 1) + e_klen(e);
}

static size_t entry_size(uint32_t klen, uint32_t vlen)
{
	size_t n = sizeof(struct entry) + klen + vlen;
	return (n + 7) & ~(size_t)7;
}

static const sl_state_provider bytes_pv;

sl_state *sl_state_new(void)
{
	sl_state *s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	s->pv = &bytes_pv;
	s->nslots = 16;
	s->tag = 1;
	s->slots = calloc(s->nslots, sizeof *s->slots);
	if (s->slots == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

static void bs_free(sl_state *s)
{
	free(s->slots);
	free(s->heap);
	free(s->log);
	free(s->rm);
	free(s->dl);
	free(s);
}

static int64_t bs_version(const sl_state *s)
{
	return s->version;
}

/* a[0..n) == b[0..n), for the short keys of group keys without a libc
 * call when 8 <= n <= 32 (overlapping words). */
static inline bool key_eq(const char *a, const void *bp, size_t n)
{
	const char *b = bp;
	uint64_t x, y, d;
	if (n < 8 || n > 32)
		return memcmp(a, b, n) == 0;
	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
	d = x ^ y;
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	d |= x ^ y;
	if (n > 16) {
		memcpy(&x, a + 8, 8);
		memcpy(&y, b + 8, 8);
		d |= x ^ y;
		memcpy(&x, a + n - 16, 8);
		memcpy(&y, b + n - 16, 8);
		d |= x ^ y;
	}
	return d == 0;
}

/* Index of key's slot, or of the empty slot where it would go.  Always
 * inlined: the merge's per-group sl_state_find is mostly this loop. */
static inline __attribute__((always_inline)) uint64_t
find(const sl_state *s, uint64_t h, const void *key, size_t klen)
{
	uint64_t mask = s->nslots - 1, i = h & mask;
	uint32_t tag = (uint32_t)h;
	for (;;) {
		uint64_t x = s->slots[i];
		if (x == 0)
			return i;
		if ((uint32_t)x == tag) {
			struct entry *e = slot_entry(s, x);
			if (e_klen(e) == klen &&
			    key_eq(entry_key(e), key, klen))
				return i;
		}
		i = (i + 1) & mask;
	}
}

/* The empty slot for a key known to be absent. */
static uint64_t find_empty(const sl_state *s, uint64_t h)
{
	uint64_t mask = s->nslots - 1, i = h & mask;
	while (s->slots[i] != 0)
		i = (i + 1) & mask;
	return i;
}

void sl_state_prefetch(const sl_state *s, uint64_t hash)
{
	__builtin_prefetch(&s->slots[hash & (s->nslots - 1)]);
}

void sl_state_prefetch_entry(const sl_state *s, uint64_t hash)
{
	uint64_t mask = s->nslots - 1, i = hash & mask;
	int k;
	for (k = 0; k < 4; k++) {
		uint64_t x = s->slots[i];
		if (x == 0)
			return;
		if ((uint32_t)x == (uint32_t)hash) {
			const char *e = (const char *)slot_entry(s, x);
			__builtin_prefetch(e);
			__builtin_prefetch(e + 56);
			return;
		}
		i = (i + 1) & mask;
	}
}

/* The slots and the heap of a large store are probed at random: with
 * 4 KiB pages nearly every probe of a 200k-group store missed the TLB as
 * well as the cache.  Arrays of 2 MiB and more are 2 MiB aligned and
 * asked to be transparent huge pages (THP is "madvise" on Debian). */
#define HUGE_SZ ((size_t)2 << 20)

static void *big_alloc(size_t n)
{
	void *p;
	if (n < HUGE_SZ)
		return malloc(n);
	n = (n + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	if ((p = aligned_alloc(HUGE_SZ, n)) != NULL)
		(void)madvise(p, n, MADV_HUGEPAGE); /* a hint: may fail */
	return p;
}

static void *big_calloc(size_t n)
{
	void *p = big_alloc(n);
	if (p != NULL)
		memset(p, 0, n);
	return p;
}

static int grow_slots(sl_state *s)
{
	uint64_t n = s->nslots * 2, i, mask = n - 1;
	uint64_t *ns;
	if (n > ((uint64_t)1 << 32))
		return SL_ENOMEM;
	if ((ns = big_calloc(n * sizeof *ns)) == NULL)
		return SL_ENOMEM;
	for (i = 0; i < s->nslots; i++) {
		uint64_t j, x = s->slots[i];
		if (x == 0)
			continue;
		j = (uint32_t)x & mask;
		while (ns[j] != 0)
			j = (j + 1) & mask;
		ns[j] = x;
	}
	free(s->slots);
	s->slots = ns;
	s->nslots = n;
	s->mods++;
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

/* reserve() for the heap, whose large sizes come from big_alloc. */
static int heap_reserve(sl_state *s, size_t extra)
{
	size_t need = s->heap_len + extra, nc;
	char *nb;
	if (need <= s->heap_cap)
		return 0;
	nc = s->heap_cap ? s->heap_cap : 4096;
	while (nc < need)
		nc *= 2;
	if (nc < HUGE_SZ)
		return reserve(&s->heap, &s->heap_cap, s->heap_len, extra);
	if ((nb = big_alloc(nc)) == NULL)
		return SL_ENOMEM;
	memcpy(nb, s->heap, s->heap_len);
	free(s->heap);
	s->heap = nb;
	s->heap_cap = nc;
	return 0;
}

static int log_keys(sl_state *s);

/* Move live entries to a fresh heap (offsets change, slots do not). */
static int compact(sl_state *s)
{
	size_t cap = s->heap_len - s->garbage + 64, len = 0;
	char *nh;
	uint64_t i;
	if (log_keys(s) < 0 || (nh = big_alloc(cap)) == NULL)
		return SL_ENOMEM;
	for (i = 0; i < s->nslots; i++) {
		struct entry *e;
		size_t sz;
		if (s->slots[i] == 0)
			continue;
		e = slot_entry(s, s->slots[i]);
		sz = entry_size(e_klen(e), e->vlen);
		memcpy(nh + len, e, sz);
		s->slots[i] = slot_make(s->slots[i], len);
		len += sz;
	}
	free(s->heap);
	s->heap = nh;
	s->heap_len = len;
	s->heap_cap = cap;
	s->garbage = 0;
	s->dl_ok = false; /* its offsets are stale */
	return 0;
}

/* The dirty list starts empty for a new delta version. */
static void dl_restart(sl_state *s)
{
	s->dl_n = 0;
	s->dl_ok = true;
}

static __attribute__((noinline)) bool dl_grow(sl_state *s)
{
	size_t nc = s->dl_cap ? 2 * s->dl_cap : 1024;
	uint32_t *n = realloc(s->dl, nc * sizeof *n);
	if (n == NULL)
		return false;
	s->dl = n;
	s->dl_cap = nc;
	return true;
}

/* Entry e just took the pending tag.  Past a quarter of the store the
 * scan is as fast (and the list is dropped for the version); out of
 * memory gives it up too: never an error. */
static inline void dl_push(sl_state *s, const struct entry *e)
{
	if (!s->dl_ok)
		return;
	if (s->dl_n > 1024 + (size_t)(s->nrows >> 2) ||
	    (s->dl_n == s->dl_cap && !dl_grow(s))) {
		s->dl_ok = false;
		return;
	}
	s->dl[s->dl_n++] = (uint32_t)(((const char *)e - s->heap) / 8);
}

/* Start of a write: the pending version becomes the delta. */
static void begin_write(sl_state *s)
{
	if (!s->dirty) {
		s->dirty = true;
		s->rm_len = 0;
		s->has_delta = true;
		s->delta_tag = s->tag;
		dl_restart(s);
	}
}

/* Record the current value (or absence) of key before its first change
 * in the pending version.  Inlined with the room check: every group a
 * micro-batch changes writes one record, and the call and reserve()
 * were half of the record's cost at 200k groups.  A key that has an
 * entry is named by the entry's offset, not copied: until a compaction
 * (which copies the keys in, log_keys) the entry's key bytes stay where
 * they are, even once it is dead; that made the log a third as long. */
static inline __attribute__((always_inline)) int
log_old(sl_state *s, const void *key, size_t klen, struct entry *old)
{
	uint32_t hdr[2];
	size_t vlen = old ? old->vlen : 0, off8 = 0, need;
	bool at;
	char *p;
	if (old != NULL && e_tag(old) == s->tag)
		return 0;
	if (old != NULL)
		off8 = (size_t)((char *)old - s->heap) / 8;
	if ((at = old != NULL && off8 < REC_AT))
		klen = 0; /* the key is the entry's */
	need = sizeof hdr + klen + vlen;
	if (s->log_len + need > s->log_cap &&
	    reserve(&s->log, &s->log_cap, s->log_len, need) < 0)
		return SL_ENOMEM;
	p = s->log + s->log_len;
	hdr[0] = at ? REC_AT | (uint32_t)off8 : (uint32_t)klen;
	hdr[1] = old ? old->vlen : UINT32_MAX;
	memcpy(p, hdr, sizeof hdr);
	sl_copy_small(p + sizeof hdr, key, klen);
	if (old != NULL) {
		sl_copy_small(p + sizeof hdr + klen, entry_val(old), vlen);
		e_set_tag(old, s->tag);
		dl_push(s, old);
	}
	s->log_len += need;
	return 0;
}

/* The key bytes of the undo record at p (header hdr) and their length. */
static const char *rec_key(const sl_state *s, const uint32_t *hdr,
			   const char *p, uint32_t *klen)
{
	struct entry *e;
	if (hdr[0] < REC_AT) {
		*klen = hdr[0];
		return p + 2 * sizeof *hdr;
	}
	e = (struct entry *)(s->heap + (size_t)(hdr[0] & ~REC_AT) * 8);
	*klen = e_klen(e);
	return entry_key(e);
}

/* Bytes of the undo record with header hdr. */
static size_t rec_size(const uint32_t *hdr)
{
	size_t v = hdr[1] == UINT32_MAX ? 0 : hdr[1];
	return 2 * sizeof *hdr + (hdr[0] < REC_AT ? hdr[0] : 0) + v;
}

/* Rewrite the undo records that name entries as records holding their
 * keys: a compaction is about to move the entries. */
static int log_keys(sl_state *s)
{
	size_t p, len = 0, cap = 0, rs, nat = 0;
	char *nl;
	uint32_t hdr[2], kl;
	for (p = 0; p < s->log_len; p += rec_size(hdr)) {
		memcpy(hdr, s->log + p, sizeof hdr);
		(void)rec_key(s, hdr, s->log + p, &kl);
		cap += sizeof hdr + kl + (hdr[1] == UINT32_MAX ? 0 : hdr[1]);
		nat += hdr[0] >= REC_AT;
	}
	if (nat == 0)
		return 0;
	if ((nl = malloc(cap)) == NULL)
		return SL_ENOMEM;
	for (p = 0; p < s->log_len; p += rs) {
		const char *k;
		size_t v;
		memcpy(hdr, s->log + p, sizeof hdr);
		rs = rec_size(hdr);
		k = rec_key(s, hdr, s->log + p, &kl);
		v = hdr[1] == UINT32_MAX ? 0 : hdr[1];
		memcpy(nl + len + sizeof hdr, k, kl);
		memcpy(nl + len + sizeof hdr + kl, s->log + p + rs - v, v);
		hdr[0] = kl;
		memcpy(nl + len, hdr, sizeof hdr);
		len += sizeof hdr + kl + v;
	}
	free(s->log);
	s->log = nl;
	s->log_len = s->log_cap = cap;
	return 0;
}

/* Remember a removed key for the delta. */
static int log_removed(sl_state *s, const void *key, size_t klen)
{
	uint32_t kl = (uint32_t)klen;
	if (reserve(&s->rm, &s->rm_cap, s->rm_len, sizeof kl + klen) < 0)
		return SL_ENOMEM;
	memcpy(s->rm + s->rm_len, &kl, sizeof kl);
	memcpy(s->rm + s->rm_len + sizeof kl, key, klen);
	s->rm_len += sizeof kl + klen;
	return 0;
}

const void *sl_state_find(sl_state *s, uint64_t hash, const void *key,
			  size_t klen, size_t *vlen, sl_state_pos *pos)
{
	uint64_t i;
	struct entry *e;
	assert(s->pv == &bytes_pv); /* state.h: the byte store's own call */
	i = find(s, hash, key, klen);
	if (pos != NULL) {
		pos->hash = hash;
		pos->slot = i;
		pos->mods = s->mods;
	}
	if (s->slots[i] == 0)
		return NULL;
	e = slot_entry(s, s->slots[i]);
	if (vlen != NULL)
		*vlen = e->vlen;
	return entry_val(e);
}

static const void *bs_get(sl_state *s, const void *key, size_t klen,
			  size_t *vlen)
{
	return sl_state_find(s, hash_bytes(key, klen), key, klen, vlen, NULL);
}

/* p as an offset into the heap when it points there (a realloc of the
 * heap would leave it dangling), else SIZE_MAX. */
static size_t heap_ref(const sl_state *s, const void *p)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)s->heap;
	return s->heap != NULL && a >= b && a < b + s->heap_cap ? a - b
								: SIZE_MAX;
}

/* Insert or replace at slot i (key's slot or the empty slot where it
 * goes) without logging; `tag` tags the entry.  Used by put and
 * abort.  Out of memory leaves the store unchanged. */
static int raw_put(sl_state *s, uint64_t h, uint64_t i, const void *key,
		   size_t klen, const void *val, size_t vlen, unsigned tag)
{
	struct entry *e;
	size_t sz, kref, vref;
	if (s->slots[i] != 0) {
		e = slot_entry(s, s->slots[i]);
		if (e->vlen == vlen) {
			memmove(entry_val(e), val, vlen);
			e_set_tag(e, tag);
			if (tag == s->tag && !s->undoing)
				dl_push(s, e);
			return 0;
		}
	} else if ((uint64_t)(s->nrows + 1) * 4 > s->nslots * 3) {
		if (grow_slots(s) < 0)
			return SL_ENOMEM;
		i = find_empty(s, h);
	}
	sz = entry_size((uint32_t)klen, (uint32_t)vlen);
	if ((s->heap_len + sz) / 8 + 1 >= MAX_REF)
		return SL_ENOMEM;
	kref = heap_ref(s, key);
	vref = heap_ref(s, val);
	if (heap_reserve(s, sz) < 0)
		return SL_ENOMEM;
	if (kref != SIZE_MAX)
		key = s->heap + kref;
	if (vref != SIZE_MAX)
		val = s->heap + vref;
	e = (struct entry *)(s->heap + s->heap_len);
	e->kt = (uint32_t)klen << 8 | tag;
	e->vlen = (uint32_t)vlen;
	memcpy(entry_key(e), key, klen);
	memcpy(entry_val(e), val, vlen);
	if (s->slots[i] == 0) {
		s->nrows++;
		s->mods++;
	} else {
		struct entry *old = slot_entry(s, s->slots[i]);
		s->garbage += entry_size(e_klen(old), old->vlen);
		e_set_tag(old, TAG_DEAD);
	}
	s->slots[i] = slot_make(h, s->heap_len);
	if (tag == s->tag && !s->undoing)
		dl_push(s, e);
	s->heap_len += sz;
	if (s->garbage > 65536 && s->garbage * 2 > s->heap_len && !s->undoing)
		(void)compact(s); /* out of memory: stays uncompacted */
	return 0;
}

/* find() out of line, for the rare callers that search again. */
static __attribute__((noinline)) uint64_t
find_again(const sl_state *s, uint64_t h, const void *key, size_t klen)
{
	return find(s, h, key, klen);
}

/* The slot of pos, found again if the slots moved since. */
static uint64_t pos_slot(const sl_state *s, const sl_state_pos *pos,
			 const void *key, size_t klen)
{
	return pos->mods == s->mods ? pos->slot
				    : find_again(s, pos->hash, key, klen);
}

/* sl_state_put_at past its checks: the entry changes length or is new
 * (out of line, so the in-place path saves no registers for it). */
static __attribute__((noinline)) int put_slow(sl_state *s, uint64_t h,
					      uint64_t i, const void *key,
					      size_t klen, const void *val,
					      size_t vlen, sl_err *err)
{
	struct entry *old = NULL;
	if (s->slots[i] != 0)
		old = slot_entry(s, s->slots[i]);
	if (log_old(s, key, klen, old) < 0)
		return sl_err_nomem(err);
	if (old != NULL && old->vlen == vlen)
		sl_copy_small(entry_val(old), val, vlen);
	else if (raw_put(s, h, i, key, klen, val, vlen, s->tag) < 0)
		return sl_err_nomem(err);
	s->nupdated++;
	return 0;
}

/* Does p[0..n) overlap the store's heap?  (state.h: a put's key never
 * points into the store.) */
static bool in_heap(const sl_state *s, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, h = (uintptr_t)s->heap;
	return s->heap != NULL && n > 0 && a < h + s->heap_cap && a + n > h;
}

int sl_state_put_at(sl_state *s, const sl_state_pos *pos, const void *key,
		    size_t klen, const void *val, size_t vlen, sl_err *err)
{
	uint64_t i;
	struct entry *old;
	assert(s->pv == &bytes_pv && !in_heap(s, key, klen));
	if (klen > KLEN_MAX || vlen >= UINT32_MAX)
		return sl_err_set(err, SL_EINVAL, "state: entry too large");
	begin_write(s);
	i = pos_slot(s, pos, key, klen);
	if (s->slots[i] == 0)
		return put_slow(s, pos->hash, i, key, klen, val, vlen, err);
	old = slot_entry(s, s->slots[i]);
	/* in place, already logged in this version or with room for the
	 * record (most puts); the rest (growing the log too) out of line */
	if (old->vlen != vlen ||
	    (e_tag(old) != s->tag && s->log_len + 8 + klen + vlen > s->log_cap))
		return put_slow(s, pos->hash, i, key, klen, val, vlen, err);
	(void)log_old(s, key, klen, old); /* has room: cannot fail */
	sl_copy_small(entry_val(old), val, vlen);
	s->nupdated++;
	return 0;
}

static int bs_put(sl_state *s, const void *key, size_t klen, const void *val,
		  size_t vlen, sl_err *err)
{
	sl_state_pos pos;
	pos.hash = hash_bytes(key, klen);
	pos.slot = find(s, pos.hash, key, klen);
	pos.mods = s->mods;
	return sl_state_put_at(s, &pos, key, klen, val, vlen, err);
}

static void raw_remove(sl_state *s, uint64_t i)
{
	uint64_t mask = s->nslots - 1, j = i;
	struct entry *e = slot_entry(s, s->slots[i]);
	s->garbage += entry_size(e_klen(e), e->vlen);
	e_set_tag(e, TAG_DEAD);
	s->slots[i] = 0;
	s->nrows--;
	s->mods++;
	/* backward-shift the cluster that follows */
	for (;;) {
		uint64_t home;
		j = (j + 1) & mask;
		if (s->slots[j] == 0)
			break;
		home = (uint32_t)s->slots[j] & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			s->slots[i] = s->slots[j];
			s->slots[j] = 0;
			i = j;
		}
	}
}

/* Log, then remove the live entry at slot i. */
static int remove_slot(sl_state *s, uint64_t i, const void *key, size_t klen)
{
	if (log_old(s, key, klen, slot_entry(s, s->slots[i])) < 0 ||
	    log_removed(s, key, klen) < 0)
		return SL_ENOMEM;
	raw_remove(s, i);
	s->nremoved++;
	return 1;
}

int sl_state_remove_at(sl_state *s, const sl_state_pos *pos, const void *key,
		       size_t klen)
{
	uint64_t i;
	begin_write(s);
	i = pos_slot(s, pos, key, klen);
	if (s->slots[i] == 0)
		return 0;
	return remove_slot(s, i, key, klen);
}

static int bs_remove(sl_state *s, const void *key, size_t klen)
{
	sl_state_pos pos;
	pos.hash = hash_bytes(key, klen);
	pos.slot = find(s, pos.hash, key, klen);
	pos.mods = s->mods;
	return sl_state_remove_at(s, &pos, key, klen);
}

/* Calls fn for the live entries of the heap, in heap order, whose tag is
 * `tag` (or every live one when all). */
static int scan_heap(sl_state *s, bool all, unsigned tag, sl_state_fn fn,
		     void *ud)
{
	size_t p = 0;
	while (p < s->heap_len) {
		struct entry *e = (struct entry *)(s->heap + p);
		p += entry_size(e_klen(e), e->vlen);
		if (all ? e_tag(e) != TAG_DEAD : e_tag(e) == tag) {
			int rc = fn(ud, entry_key(e), e_klen(e), entry_val(e),
				    e->vlen);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

static int bs_foreach(sl_state *s, sl_state_fn fn, void *ud)
{
	uint64_t mods = s->mods;
	size_t len = s->heap_len;
	int rc = scan_heap(s, true, 0, fn, ud);
	/* state.h: fn must not modify the store */
	assert(s->mods == mods && s->heap_len == len);
	(void)mods;
	(void)len;
	return rc;
}

int64_t sl_state_remove_if(sl_state *s, sl_state_fn pred, void *pred_ud,
			   sl_state_fn on_remove, void *rm_ud, sl_err *err)
{
	uint64_t i = 0;
	int64_t n = 0;
	assert(s->pv == &bytes_pv);
	begin_write(s);
	while (i < s->nslots) {
		struct entry *e;
		if (s->slots[i] == 0) {
			i++;
			continue;
		}
		e = slot_entry(s, s->slots[i]);
		if (!pred(pred_ud, entry_key(e), e_klen(e), entry_val(e),
			  e->vlen)) {
			i++;
			continue;
		}
		if (on_remove != NULL)
			on_remove(rm_ud, entry_key(e), e_klen(e), entry_val(e),
				  e->vlen);
		if (remove_slot(s, i, entry_key(e), e_klen(e)) < 0)
			return sl_err_nomem(err);
		n++;
		/* slot i now holds a shifted entry (or is empty): look again,
		 * unless the shift wrapped a cluster around the end */
	}
	return n;
}

/* Move to the next version's tag (see the top of the file). */
static void next_tag(sl_state *s)
{
	size_t p = 0;
	if (s->tag < TAG_MAX) {
		s->tag++;
		return;
	}
	while (p < s->heap_len) {
		struct entry *e = (struct entry *)(s->heap + p);
		unsigned t = e_tag(e);
		bool in_delta = s->has_delta && t == s->delta_tag;
		p += entry_size(e_klen(e), e->vlen);
		if (t != TAG_DEAD)
			e_set_tag(e, in_delta ? 1 : TAG_NONE);
	}
	s->delta_tag = 1;
	s->tag = 2;
}

static int bs_commit(sl_state *s, sl_err *err)
{
	(void)err;
	assert(s->version >= 0);
	if (!s->dirty) { /* an empty version: an empty delta */
		s->rm_len = 0;
		s->has_delta = true;
		s->delta_tag = s->tag;
		dl_restart(s);
	}
	s->version++;
	next_tag(s);
	s->dirty = false;
	s->log_len = 0;
	s->nupdated = s->nremoved = 0;
	return 0;
}

/* Replay the undo records backwards: the oldest record wins.  No
 * compaction meanwhile: records name entries by offset. */
static void undo(sl_state *s)
{
	size_t *offs = NULL, n = 0, cap = 0, p = 0;
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
		p += rec_size(hdr);
	}
	s->undoing = true;
	while (n-- > 0) {
		uint32_t hdr[2], kl;
		const char *k, *r = s->log + offs[n];
		uint64_t h, i;
		memcpy(hdr, r, sizeof hdr);
		k = rec_key(s, hdr, r, &kl);
		h = hash_bytes(k, kl);
		i = find(s, h, k, kl);
		if (hdr[1] == UINT32_MAX) {
			if (s->slots[i] != 0)
				raw_remove(s, i);
		} else {
			(void)raw_put(s, h, i, k, kl,
				      r + rec_size(hdr) - hdr[1], hdr[1],
				      TAG_NONE);
		}
	}
	s->undoing = false;
	free(offs);
}

static void bs_abort(sl_state *s)
{
	if (s->dirty) {
		undo(s);
		s->has_delta = false;
		s->rm_len = 0;
	}
	next_tag(s);
	s->dirty = false;
	s->log_len = 0;
	s->nupdated = s->nremoved = 0;
}

/* Sort a[0..n) ascending: LSD radix, three 11-bit digits (offsets / 8
 * are 32 bits); qsort's compare calls were as slow as the scan it saves.
 * false when out of memory (a is then unchanged). */
static bool dl_sort(uint32_t *a, size_t n)
{
	uint32_t *t, *src = a, *dst;
	size_t cnt[2048], i, sum;
	int pass;
	if (n < 2)
		return true;
	if ((t = malloc(n * sizeof *t)) == NULL)
		return false;
	dst = t;
	for (pass = 0; pass < 3; pass++) {
		int sh = 11 * pass;
		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < n; i++)
			cnt[(src[i] >> sh) & 2047]++;
		for (i = 0, sum = 0; i < 2048; i++) {
			size_t c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & 2047]++] = src[i];
		src = dst;
		dst = src == t ? a : t;
	}
	if (src != a) /* three passes: the result is in t */
		memcpy(a, src, n * sizeof *a);
	free(t);
	return true;
}

/* The delta's puts from the sorted dirty list: each entry once, in heap
 * order, if still live with the delta's tag (a later put may have moved
 * it to a new entry, listed too; a remove made it dead). */
static int visit_dirty(sl_state *s, sl_state_fn fn, void *ud)
{
	size_t i;
	for (i = 0; i < s->dl_n; i++) {
		struct entry *e;
		int rc;
		if (i > 0 && s->dl[i] == s->dl[i - 1])
			continue;
		e = (struct entry *)(s->heap + (size_t)s->dl[i] * 8);
		if (e_tag(e) != s->delta_tag)
			continue;
		if ((rc = fn(ud, entry_key(e), e_klen(e), entry_val(e),
			     e->vlen)) != 0)
			return rc;
	}
	return 0;
}

static int bs_foreach_delta(sl_state *s, sl_state_fn fn, void *ud)
{
	size_t p = 0;
	if (!s->has_delta)
		return 0;
	while (p < s->rm_len) {
		uint32_t kl;
		int rc;
		memcpy(&kl, s->rm + p, sizeof kl);
		rc = fn(ud, s->rm + p + sizeof kl, kl, NULL, 0);
		if (rc != 0)
			return rc;
		p += sizeof kl + kl;
	}
	if (s->dl_ok && s->dl_n <= (size_t)(s->nrows >> 2) &&
	    dl_sort(s->dl, s->dl_n))
		return visit_dirty(s, fn, ud);
	return scan_heap(s, false, s->delta_tag, fn, ud);
}

static void bs_reset(sl_state *s, int64_t v)
{
	assert(v >= 0); /* state.h: versions count from 0 */
	memset(s->slots, 0, s->nslots * sizeof *s->slots);
	s->nrows = 0;
	s->heap_len = s->garbage = 0;
	s->log_len = s->rm_len = 0;
	s->dirty = s->has_delta = false;
	s->nupdated = s->nremoved = 0;
	s->version = v;
	next_tag(s);
	s->mods++;
}

static void bs_set_version(sl_state *s, int64_t v)
{
	assert(v >= 0);
	s->version = v;
	next_tag(s);
	s->log_len = s->rm_len = 0;
	s->dirty = s->has_delta = false;
	s->nupdated = s->nremoved = 0;
}

static int64_t bs_num_rows(const sl_state *s)
{
	return s->nrows;
}

static int64_t bs_num_updated(const sl_state *s)
{
	return s->nupdated;
}

static int64_t bs_num_removed(const sl_state *s)
{
	return s->nremoved;
}

static size_t bs_memory(const sl_state *s)
{
	return sizeof *s + s->nslots * sizeof *s->slots + s->heap_len -
	       s->garbage + s->log_len + s->rm_len;
}

/* ------------------------------------------------------ providers */

/* The byte store as a provider (impl is the sl_state itself). */
static int64_t v_version(const void *i)
{
	return bs_version(i);
}
static const void *v_get(void *i, const void *k, size_t kl, size_t *vl)
{
	return bs_get(i, k, kl, vl);
}
static int v_put(void *i, const void *k, size_t kl, const void *v, size_t vl,
		 sl_err *err)
{
	return bs_put(i, k, kl, v, vl, err);
}
static int v_remove(void *i, const void *k, size_t kl)
{
	return bs_remove(i, k, kl);
}
static int v_foreach(void *i, sl_state_fn fn, void *ud)
{
	return bs_foreach(i, fn, ud);
}
static int v_foreach_delta(void *i, sl_state_fn fn, void *ud)
{
	return bs_foreach_delta(i, fn, ud);
}
static int v_commit(void *i, sl_err *err)
{
	return bs_commit(i, err);
}
static void v_abort(void *i)
{
	bs_abort(i);
}
static void v_reset(void *i, int64_t v)
{
	bs_reset(i, v);
}
static void v_set_version(void *i, int64_t v)
{
	bs_set_version(i, v);
}
static int64_t v_num_rows(const void *i)
{
	return bs_num_rows(i);
}
static int64_t v_num_updated(const void *i)
{
	return bs_num_updated(i);
}
static int64_t v_num_removed(const void *i)
{
	return bs_num_removed(i);
}
static size_t v_memory(const void *i)
{
	return bs_memory(i);
}
static void v_free(void *i)
{
	bs_free(i);
}

static const sl_state_provider bytes_pv = {
	.name = "bytes",
	.version = v_version,
	.get = v_get,
	.put = v_put,
	.remove = v_remove,
	.foreach = v_foreach,
	.foreach_delta = v_foreach_delta,
	.commit = v_commit,
	.abort = v_abort,
	.reset = v_reset,
	.set_version = v_set_version,
	.num_rows = v_num_rows,
	.num_updated = v_num_updated,
	.num_removed = v_num_removed,
	.memory = v_memory,
	.free = v_free,
};

sl_state *sl_state_new_provider(const sl_state_provider *pv, void *impl)
{
	sl_state *s = calloc(1, sizeof *s);
	if (s == NULL) {
		pv->free(impl);
		return NULL;
	}
	s->pv = pv;
	s->impl = impl;
	return s;
}

const sl_state_provider *sl_state_provider_of(const sl_state *s)
{
	return s->pv;
}

void *sl_state_impl(const sl_state *s)
{
	return s->impl;
}

/* The public calls: the byte store's directly (the hot ones inline), a
 * provider's through its table. */
#define BYTES(s) ((s)->pv == &bytes_pv)

void sl_state_free(sl_state *s)
{
	if (s == NULL)
		return;
	if (BYTES(s)) {
		bs_free(s);
		return;
	}
	s->pv->free(s->impl);
	free(s);
}

int64_t sl_state_version(const sl_state *s)
{
	return BYTES(s) ? bs_version(s) : s->pv->version(s->impl);
}

const void *sl_state_get(sl_state *s, const void *key, size_t klen,
			 size_t *vlen)
{
	if (BYTES(s))
		return bs_get(s, key, klen, vlen);
	return s->pv->get != NULL ? s->pv->get(s->impl, key, klen, vlen) : NULL;
}

int sl_state_put(sl_state *s, const void *key, size_t klen, const void *val,
		 size_t vlen, sl_err *err)
{
	return BYTES(s) ? bs_put(s, key, klen, val, vlen, err)
			: s->pv->put(s->impl, key, klen, val, vlen, err);
}

int sl_state_remove(sl_state *s, const void *key, size_t klen)
{
	return BYTES(s) ? bs_remove(s, key, klen)
			: s->pv->remove(s->impl, key, klen);
}

int sl_state_foreach(sl_state *s, sl_state_fn fn, void *ud)
{
	return BYTES(s) ? bs_foreach(s, fn, ud)
			: s->pv->foreach (s->impl, fn, ud);
}

int sl_state_foreach_delta(sl_state *s, sl_state_fn fn, void *ud)
{
	return BYTES(s) ? bs_foreach_delta(s, fn, ud)
			: s->pv->foreach_delta(s->impl, fn, ud);
}

int sl_state_commit(sl_state *s, sl_err *err)
{
	return BYTES(s) ? bs_commit(s, err) : s->pv->commit(s->impl, err);
}

void sl_state_abort(sl_state *s)
{
	if (BYTES(s))
		bs_abort(s);
	else
		s->pv->abort(s->impl);
}

void sl_state_reset(sl_state *s, int64_t v)
{
	if (BYTES(s))
		bs_reset(s, v);
	else
		s->pv->reset(s->impl, v);
}

void sl_state_set_version(sl_state *s, int64_t v)
{
	if (BYTES(s))
		bs_set_version(s, v);
	else
		s->pv->set_version(s->impl, v);
}

int64_t sl_state_num_rows(const sl_state *s)
{
	return BYTES(s) ? bs_num_rows(s) : s->pv->num_rows(s->impl);
}

int64_t sl_state_num_updated(const sl_state *s)
{
	return BYTES(s) ? bs_num_updated(s) : s->pv->num_updated(s->impl);
}

int64_t sl_state_num_removed(const sl_state *s)
{
	return BYTES(s) ? bs_num_removed(s) : s->pv->num_removed(s->impl);
}

size_t sl_state_memory(const sl_state *s)
{
	return BYTES(s) ? bs_memory(s) : s->pv->memory(s->impl);
}

/* ------------------------------------------------------ records */

/* One record into the sink (the callback path of sl_state_write), coded
 * against the last: one room check and straight copies, no sl_buf_add
 * per field (a fifth of the payload's time at 200k groups). */
static int put_rec(void *ud, const void *k, size_t kl, const void *v, size_t vl)
{
	sl_state_sink *sk = ud;
	sl_buf *b = sk->b, *pv = &sk->prev;
	size_t n = SL_FRONT_MAX(kl, v != NULL ? vl : 0);
	unsigned char *o;
	if ((b->cap - b->len <= n && !sl_buf_reserve(b, n)) ||
	    (pv->cap <= kl && !sl_buf_reserve(pv, kl)))
		return SL_ENOMEM;
	o = sl_front_code((unsigned char *)b->p + b->len, pv->p, pv->len, k,
			  kl, v, vl);
	b->len = (size_t)((char *)o - b->p);
	b->p[b->len] = '\0'; /* sl_buf's invariant; room was checked */
	sl_copy_small(pv->p, k, kl);
	pv->len = kl;
	pv->p[kl] = '\0';
	if (b->len >= sk->limit && sk->spill != NULL)
		sk->spill(sk->ud);
	return sl_buf_failed(b) ? SL_ENOMEM : 0;
}

int sl_state_write(sl_state *s, bool full, sl_state_sink *k)
{
	int rc;
	if (!BYTES(s) && s->pv->write != NULL)
		rc = s->pv->write(s->impl, full, k);
	else
		rc = full ? sl_state_foreach(s, put_rec, k)
			  : sl_state_foreach_delta(s, put_rec, k);
	return rc < 0 || sl_buf_failed(k->b) || sl_buf_failed(&k->prev)
		       ? SL_ENOMEM
		       : 0;
}
