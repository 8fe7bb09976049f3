/*
 * livetab: the typed live table (see livetab.h for the contract).
 *
 * Entries.  An entry id indexes parallel arrays: its key words kw[id *
 * nw ..] (one 64-bit word per non-window key column: integers
 * sign-extended, a DOUBLE by its bits with -0.0 = 0.0 and one NaN, as
 * grouping), its NULL mask km[id] (bit k: key k is NULL, the window's
 * bit included), its window wid[id] and flags fl[id] (LIVE: in its
 * window's table; NEW: inserted by the pending version; TCH: touched by
 * it).  The aggregates' buffers are the
 * table's sl_agg groups of the same id.
 *
 * Windows.  A window is {start, end} or the NULL window, with its own
 * open-addressing table of 64-bit slots (32-bit hash << 32 | id + 1; 0
 * empty), linear probing, backward-shift deletion, at most 3/4 full
 * (a table of 4 MiB and more on huge pages: sl_bigarr_advise_dense).  A
 * batch's rows mostly share a window: the probe resolves a row's window
 * by comparing with the previous row's, and only on a change looks
 * through the open windows.  Eviction marks a window GONE (its entries
 * stay where they are: abort reinstates it by flipping the state back);
 * commit makes it DEAD, its entries still in place as the delta's
 * removes (their keys encoded when the delta is read, never logged: a
 * log of 1M keys was 32 MB at W1-1M's eviction), and the next version's
 * first write (or an empty commit, reset, set_version) frees them.
 *
 * Slot arrays.  Fresh pages are dear here (each is faulted in and
 * cleared by the kernel: at W1-1M the doublings of every window's table
 * from 64 to 2M slots were a tenth of the process's CPU).  So a window
 * starts near the size recent windows needed (win_presize), and the
 * arrays of windows that leave for good (win_drop: DEAD, or empty and
 * dropped by the abort of the version that made them) are kept as
 * spares, at most NSPARE, and only of the sizes a new window or its one
 * doubling asks for (spares_prune); a window takes a spare of the size
 * it wants, cleared, before fresh memory.  An
 * array is a window's from win_get until win_drop, whatever its state:
 * a GONE window keeps its slots, so abort reinstates it as it was.
 *
 * Versions.  An entry without TCH is touched for the first time in the
 * pending version: it takes TCH and joins the dirty list (dl), and,
 * unless new, its state (sl_agg_stash of each aggregate: a copy, no
 * encoding; ustride bytes a record) goes to the undo area (ub) at the
 * same index.  Commit, abort and set_version clear TCH and NEW through
 * the dirty list.  The dirty list and the removed keys (rm) of the last
 * version stay as the delta until the next version's first write (as
 * the byte store's).  Every commit, abort, reset and set_version starts
 * a new generation (gen), which tells the windows a version made.
 */
#include "exec/livetab.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bigarr.h"
#include "core/copy.h"
#include "exec/agg_int.h"
#include "exec/hash.h"
#include "state/front.h"

/* Records written a chunk at a time (write_ids). */
#define WRITE_CHUNK 256

#define FL_LIVE 1u
#define FL_NEW  2u
#define FL_TCH  4u /* touched (on the dirty list) in the pending version */

enum { W_FREE, W_LIVE, W_GONE, W_EVICTING, W_DEAD };

#define SLOTS_MIN 64 /* a window's first table, with nothing to go by */
#define SLOTS_MAX ((uint64_t)1 << 24) /* the largest presize: 128 MiB */
#define NSPARE    2 /* slot arrays kept for reuse */

typedef struct lwin {
	int64_t start, end;
	bool null;
	int state;
	uint32_t born; /* the generation that made it */
	uint64_t *slots;
	uint64_t mask; /* nslots - 1 */
	int64_t n;
} lwin;

struct sl_livetab {
	sl_state *store; /* the sl_state serving this table (owns it) */
	int nkeys, wkey, nw;
	uint8_t kind[32]; /* per key: its encoding (enc_kind) */
	bool win_i64;     /* keys are (window, BIGINT/TIMESTAMP) */
	bool runs;        /* one-word keys hashed in runs (hash_words) */
	sl_type **types;  /* the array copied, the types borrowed */
	int naggs;
	sl_agg **aggs;
	size_t vmax;
	size_t ustride; /* bytes of an undo record (sl_agg_stash bytes) */
	size_t *ssz;    /* each aggregate's sl_agg_stash_size */
	/* entries */
	int64_t n, cap; /* ids in use are < n */
	int64_t ins;    /* entries inserted, ever (stash_from's shortcut) */
	int64_t acap;   /* the aggregates hold groups [0, acap) */
	uint64_t *kw;
	uint32_t *km;
	int32_t *wid;
	uint8_t *fl;
	int32_t *freeids;
	int64_t nfree, freecap;
	/* windows */
	lwin *win;
	int nwin, wcap;
	int32_t wcache[16]; /* a window's index by its start (win_get) */
	/* slot arrays kept for reuse (slots_take), oldest first */
	uint64_t *spare[NSPARE];
	uint64_t spare_n[NSPARE]; /* their slot counts */
	int nspare;
	uint64_t hint; /* the slots the last window dropped with entries needed */
	int64_t slots_fresh, slots_reused; /* arrays taken each way, ever */
	/* versions */
	int64_t version;
	uint32_t gen;
	bool dirty;     /* the pending version has writes */
	bool has_delta; /* dl/rm hold the delta */
	int32_t *dl;    /* dirtied ids, first-touch order */
	int64_t dl_n, dl_cap;
	unsigned char *ub; /* undo buffers, vmax bytes per dl entry */
	int32_t *rmids;    /* ids removed one by one in the pending version */
	int64_t rmid_n, rmid_cap;
	sl_buf rm; /* removed keys of the delta: u32 length, bytes */
	int64_t nremoved;
	/* scratch for a batch */
	uint64_t *pk, *ph;
	uint32_t *pm;
	int32_t *pw;
	int64_t pcap;
	sl_col **dec; /* one-row key columns for decoding a key */
};

static const sl_state_provider live_pv;
static void drop_dead(sl_livetab *t);
static void ids_free(sl_livetab *t);
static void win_drop(sl_livetab *t, lwin *w);
static void spares_free(sl_livetab *t);
static int visit_evicted_keys(sl_livetab *t, sl_state_fn fn, void *ud);

/* ------------------------------------------------------ setup */

static bool window_type(const sl_type *t)
{
	return t->kind == SL_STRUCT && t->nfields == 2 &&
	       t->fields[0].type->kind == SL_TIMESTAMP &&
	       t->fields[1].type->kind == SL_TIMESTAMP;
}

bool sl_livetab_eligible(sl_type *const *types, int nkeys, int wkey,
			 sl_agg *const *aggs, int naggs)
{
	int k;
	if (nkeys < 1 || nkeys > 31 || wkey < 0 || wkey >= nkeys ||
	    !window_type(types[wkey]))
		return false;
	for (k = 0; k < nkeys; k++)
		if (k != wkey && !sl_type_is_word(types[k]))
			return false;
	for (k = 0; k < naggs; k++)
		if (sl_agg_save_max(aggs[k]) == 0 ||
		    sl_agg_stash_size(aggs[k]) == 0 ||
		    !sl_agg_forget(aggs[k], INT64_MAX))
			return false;
	return true;
}

/* How a key's words encode (encode_entry). */
enum { K_WIN, K_BOOL, K_I32, K_I64, K_DBL };

static uint8_t enc_kind(const sl_type *t)
{
	switch (t->kind) {
	case SL_BOOLEAN: return K_BOOL;
	case SL_INT:
	case SL_DATE: return K_I32;
	case SL_DOUBLE: return K_DBL;
	default: return K_I64;
	}
}

static void lt_free(void *impl)
{
	sl_livetab *t = impl;
	int i;
	if (t == NULL)
		return;
	for (i = 0; i < t->naggs; i++)
		sl_agg_free(t->aggs[i]);
	free(t->aggs);
	free(t->types);
	free(t->ssz);
	for (i = 0; i < t->nwin; i++)
		win_drop(t, &t->win[i]);
	free(t->win);
	spares_free(t);
	ids_free(t);
	free(t->dl);
	free(t->ub);
	free(t->rmids);
	sl_buf_release(&t->rm);
	free(t->pk);
	free(t->ph);
	free(t->pm);
	free(t->pw);
	for (i = 0; t->dec && i < t->nkeys; i++)
		sl_col_free(t->dec[i]);
	free(t->dec);
	free(t);
}

sl_livetab *sl_livetab_new(sl_type *const *types, int nkeys, int wkey,
			   sl_agg **aggs, int naggs, sl_err *err)
{
	sl_livetab *t = calloc(1, sizeof *t);
	int i;
	if (t == NULL) {
		for (i = 0; i < naggs; i++)
			sl_agg_free(aggs[i]);
		free(aggs);
		sl_err_nomem(err);
		return NULL;
	}
	t->aggs = aggs;
	t->naggs = naggs;
	for (i = 0; i < naggs; i++)
		sl_agg_set_big(aggs[i]); /* they live across batches */
	if (!sl_livetab_eligible(types, nkeys, wkey, aggs, naggs)) {
		lt_free(t);
		sl_err_set(err, SL_EINTERNAL,
			   "livetab: the aggregation is not eligible");
		return NULL;
	}
	t->nkeys = nkeys;
	t->wkey = wkey;
	for (i = 0; i < nkeys; i++)
		t->kind[i] = i == wkey ? K_WIN : enc_kind(types[i]);
	t->win_i64 = nkeys == 2 && wkey == 0 && t->kind[1] == K_I64;
	t->nw = nkeys - 1;
	if ((t->types = malloc((size_t)nkeys * sizeof *t->types)) == NULL) {
		lt_free(t);
		sl_err_nomem(err);
		return NULL;
	}
	memcpy(t->types, types, (size_t)nkeys * sizeof *t->types);
	if ((t->ssz = malloc((size_t)naggs * sizeof *t->ssz + 1)) == NULL) {
		lt_free(t);
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < naggs; i++) {
		t->vmax += sl_agg_save_max(aggs[i]);
		t->ssz[i] = sl_agg_stash_size(aggs[i]);
		t->ustride += t->ssz[i];
	}
	t->gen = 1;
	memset(t->wcache, 0xff, sizeof t->wcache);
	sl_buf_init(&t->rm);
	t->dec = calloc((size_t)nkeys, sizeof *t->dec);
	for (i = 0; t->dec && i < nkeys; i++)
		if ((t->dec[i] = sl_col_new(t->types[i], 1)) == NULL)
			break;
	if (t->dec == NULL || i < nkeys ||
	    (t->store = sl_state_new_provider(&live_pv, t)) == NULL) {
		if (t->store == NULL)
			lt_free(t);
		sl_err_nomem(err);
		return NULL;
	}
	return t;
}

sl_state *sl_livetab_store(sl_livetab *t)
{
	return t->store;
}

sl_agg **sl_livetab_aggs(sl_livetab *t)
{
	return t->aggs;
}

int64_t sl_livetab_cap(const sl_livetab *t)
{
	return t->cap;
}

size_t sl_livetab_vmax(const sl_livetab *t)
{
	return t->vmax;
}

/* ------------------------------------------------------ words */

/* A key's hash: its slot is hash & mask, its tag the low 32 bits.
 * runs (the table's t->runs, for one word: window + one column): hash
 * w >> 3 and keep w's last 3 bits as the hash's, so the 8 keys of a run
 * k..k+7 share a cache line of slots (8 of 8 bytes) in the order of
 * their keys: a batch whose keys come in runs (ids, counters, value % n)
 * misses a line per 8 rows instead of a line a row, and other keys are
 * spread by the hash of the rest (one residue mod 8 clusters at a line's
 * first slot and probes on within it).  W1-1M: the probe's time ~40%
 * less (perf, 0.27-0.36 s -> 0.17-0.22 s a run).  A table takes it only
 * once a window's slots are past the cache (use_runs): in a small table
 * its longer probe chains (whole lines of 8 colliding) cost instructions
 * and save no miss (W1 at 1k keys: the probe +40% instructions). */
static inline uint64_t hash_words(const uint64_t *w, int nw, uint32_t m,
				  bool runs)
{
	uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ m;
	int j;
	if (nw == 1 && runs)
		return sl_hash_mix64(h ^ ((w[0] >> 3) *
					  UINT64_C(0xbf58476d1ce4e5b9)))
			   << 3 |
		       (w[0] & 7);
	if (nw == 1) /* window + one column: most tables */
		return sl_hash_mix64(h ^ (w[0] * UINT64_C(0xbf58476d1ce4e5b9)));
	for (j = 0; j < nw; j++)
		h = (h ^ w[j]) * UINT64_C(0xbf58476d1ce4e5b9) + (h >> 29);
	return sl_hash_mix64(h);
}

static inline uint64_t double_word(double d)
{
	uint64_t u;
	if (d == 0)
		d = 0; /* -0.0 = 0.0 */
	if (isnan(d))
		return UINT64_C(0x7ff8000000000000);
	memcpy(&u, &d, 8);
	return u;
}

/* Column c's rows [0, n) into word j of the row-major words w (stride
 * nw), NULLs as bit `bit` of m (and a zero word). */
static void col_words(const sl_col *c, int64_t n, uint64_t *w, int nw, int j,
		      uint32_t *m, int bit)
{
	int64_t i;
	switch (c->type->kind) {
	case SL_BOOLEAN:
		for (i = 0; i < n; i++)
			w[i * nw + j] = sl_col_u8(c)[i] != 0;
		break;
	case SL_INT:
	case SL_DATE:
		for (i = 0; i < n; i++)
			w[i * nw + j] = (uint64_t)(int64_t)sl_col_i32(c)[i];
		break;
	case SL_DOUBLE:
		for (i = 0; i < n; i++)
			w[i * nw + j] = double_word(sl_col_f64(c)[i]);
		break;
	default:
		for (i = 0; i < n; i++)
			w[i * nw + j] = (uint64_t)sl_col_i64(c)[i];
		break;
	}
	if (c->nulls != NULL)
		for (i = 0; i < n; i++)
			if (sl_col_isnull(c, i)) {
				m[i] |= 1u << bit;
				w[i * nw + j] = 0;
			}
}

/* ------------------------------------------------------ entries */

static int grow_arr(void *pp, size_t elem, int64_t cap)
{
	void **p = pp, *m = realloc(*p, (size_t)cap * elem + 1);
	if (m == NULL)
		return SL_ENOMEM;
	*p = m;
	return 0;
}

/* *pp of old elements of elem bytes grown to cap (bigarr.h). */
static int grow_big(void *pp, size_t elem, int64_t old, int64_t cap)
{
	void **p = pp,
	     *m = sl_bigarr_resize(*p, (size_t)old * elem, (size_t)cap * elem, 0);
	if (m == NULL)
		return SL_ENOMEM;
	*p = m;
	return 0;
}

/* The entries' arrays live in mappings of their own (bigarr.h): they
 * grow by doubling, without a copy, and capacity not yet used costs no
 * memory (on the heap, W1-1M kept every old copy resident). */
static int grow_ids(sl_livetab *t)
{
	int64_t cap = t->cap ? t->cap * 2 : 1024;
	size_t nw = (size_t)(t->nw ? t->nw : 1) * 8;
	void **arr[5] = { (void **)&t->kw, (void **)&t->km, (void **)&t->wid,
			  (void **)&t->fl, (void **)&t->freeids };
	size_t el[5] = { nw, 4, 4, 1, 4 };
	int i, j;
	if (cap > INT32_MAX - 1)
		return SL_ENOMEM;
	for (i = 0; i < 5; i++)
		if (grow_big(arr[i], el[i], t->cap, cap) < 0) {
			for (j = 0; j < i; j++) /* back to one size */
				(void)grow_big(arr[j], el[j], cap, t->cap);
			return SL_ENOMEM;
		}
	t->cap = t->freecap = cap; /* free_id never allocates */
	return 0;
}

static void ids_free(sl_livetab *t)
{
	size_t nw = (size_t)(t->nw ? t->nw : 1) * 8, c = (size_t)t->cap;
	sl_bigarr_free(t->kw, c * nw);
	sl_bigarr_free(t->km, c * 4);
	sl_bigarr_free(t->wid, c * 4);
	sl_bigarr_free(t->fl, c);
	sl_bigarr_free(t->freeids, c * 4);
}

/* A fresh id (its aggregates' groups never updated). */
static int64_t new_id(sl_livetab *t)
{
	if (t->nfree > 0)
		return t->freeids[--t->nfree];
	if (t->n == t->cap && grow_ids(t) < 0)
		return -1;
	return t->n++;
}

/* Entry id back to the free list, its buffers emptied. */
static int free_id(sl_livetab *t, int32_t id)
{
	int i;
	for (i = 0; i < t->naggs; i++)
		(void)sl_agg_forget(t->aggs[i], id);
	t->fl[id] = 0;
	t->wid[id] = -1;
	if (t->nfree >= t->freecap) /* cannot be: ids are < cap = freecap */
		return SL_EINTERNAL;
	t->freeids[t->nfree++] = id;
	return 0;
}

/* ------------------------------------------------------ windows */

/* The slots a window of n entries grows to from SLOTS_MIN (at most 3/4
 * full: win_insert_at), up to SLOTS_MAX. */
static uint64_t slots_for(int64_t n)
{
	uint64_t s = SLOTS_MIN;
	while (s < SLOTS_MAX && (uint64_t)n * 4 > s * 3)
		s *= 2;
	return s;
}

/* The index of a spare of n slots (the newest), or -1. */
static int spare_find(const sl_livetab *t, uint64_t n)
{
	int i;
	for (i = t->nspare; i-- > 0;)
		if (t->spare_n[i] == n)
			return i;
	return -1;
}

/* Spare i out of the pool (the others keep their order). */
static uint64_t *spare_out(sl_livetab *t, int i)
{
	uint64_t *p = t->spare[i];
	for (; i + 1 < t->nspare; i++) {
		t->spare[i] = t->spare[i + 1];
		t->spare_n[i] = t->spare_n[i + 1];
	}
	t->nspare--;
	return p;
}

static void spares_free(sl_livetab *t)
{
	while (t->nspare > 0) {
		uint64_t n = t->spare_n[t->nspare - 1];
		sl_bigarr_free(spare_out(t, t->nspare - 1), n * 8);
	}
}

/* n zero slots: a spare of n cleared (its pages resident: a memset),
 * else fresh memory; NULL when out of memory. */
static uint64_t *slots_take(sl_livetab *t, uint64_t n)
{
	int i = spare_find(t, n);
	uint64_t *p;
	if (i >= 0) {
		p = spare_out(t, i);
		memset(p, 0, n * sizeof *p);
		t->slots_reused++;
		return p;
	}
	if ((p = sl_bigarr_calloc(n * sizeof *p)) == NULL)
		return NULL;
	sl_bigarr_advise_dense(p, n * sizeof *p); /* probed at random */
	t->slots_fresh++;
	return p;
}

/* Slot array p of n slots, whose contents are dead (NULL: nothing),
 * into the pool; when that is full, the smallest of the pool and p goes
 * back to memory (the largest are the dearest to make afresh). */
static void slots_give(sl_livetab *t, uint64_t *p, uint64_t n)
{
	int i, s = 0;
	if (p == NULL)
		return;
	if (t->nspare == NSPARE) {
		for (i = 1; i < t->nspare; i++)
			if (t->spare_n[i] < t->spare_n[s])
				s = i;
		if (n < t->spare_n[s]) {
			sl_bigarr_free(p, n * 8);
			return;
		}
		sl_bigarr_free(t->spare[s], t->spare_n[s] * 8);
		(void)spare_out(t, s);
	}
	t->spare[t->nspare] = p;
	t->spare_n[t->nspare++] = n;
}

/* What the table's recent windows needed: the largest open one's
 * slots, or the last dropped one's (t->hint). */
static uint64_t win_need(const sl_livetab *t)
{
	uint64_t n = t->hint, s;
	int i;
	for (i = 0; i < t->nwin; i++) {
		const lwin *w = &t->win[i];
		if (w->state == W_LIVE && !w->null && (s = slots_for(w->n)) > n)
			n = s;
	}
	return n;
}

/* Spares no window will ask for go back to memory: a window starts at
 * what recent windows needed or half of it (win_presize) and doubles
 * from there, so only those two sizes are wanted; the need counts the
 * open windows' tables too. */
static void spares_prune(sl_livetab *t)
{
	uint64_t need = win_need(t);
	int i;
	for (i = 0; i < t->nwin; i++)
		if (t->win[i].state == W_LIVE && !t->win[i].null &&
		    t->win[i].mask + 1 > need)
			need = t->win[i].mask + 1;
	for (i = t->nspare; i-- > 0;)
		if (t->spare_n[i] > need || t->spare_n[i] < need / 2) {
			uint64_t n = t->spare_n[i];
			sl_bigarr_free(spare_out(t, i), n * 8);
		}
}

/* The slots a new window's table starts with.  A steady stream of
 * windows needs about the same each (every window of W1-1M holds the
 * 1M keys: 2M slots, reached by 15 doublings from SLOTS_MIN that took
 * 32 MB of fresh pages and rehashed 1.5M entries a window).  So: what
 * recent windows needed, when a spare of that size is there; else half
 * of it in fresh pages.  Half, because a fresh table comes while the
 * window before is still open (the new window starts, then the
 * watermark closes the old one), the overlap when the process holds
 * the most (W1-1M's peak RSS is at that eviction's output); by the time
 * the new window outgrows the half, the old window has left its array
 * as a spare for the doubling.  The NULL window (rows of a NULL time)
 * starts small: it is seldom like the others. */
static uint64_t win_presize(const sl_livetab *t, bool null)
{
	uint64_t n = null ? SLOTS_MIN : win_need(t);
	if (n <= SLOTS_MIN)
		return SLOTS_MIN;
	return spare_find(t, n) >= 0 ? n : n / 2;
}

/* Window w's table made at n slots (a power of two > its entries / 3 *
 * 4), its entries moved over; the old array goes back to memory, not to
 * the spares: kept, it stayed resident through the whole window (W1-1M:
 * 8 MB for 60 batches), and the batches of those windows ran 5-20%
 * slower (the checkpoint's page-cache copies then take pages the
 * process did not give back, which are dearer on this VM). */
static int win_slots_resize(sl_livetab *t, lwin *w, uint64_t n)
{
	uint64_t *ns = slots_take(t, n), i, mask = n - 1;
	if (ns == NULL)
		return SL_ENOMEM;
	for (i = 0; w->slots && i <= w->mask; i++) {
		uint64_t x = w->slots[i], j;
		if (x == 0)
			continue;
		j = (x >> 32) & mask;
		while (ns[j] != 0)
			j = (j + 1) & mask;
		ns[j] = x;
	}
	sl_bigarr_free(w->slots, (w->mask + 1) * sizeof *ns);
	w->slots = ns;
	w->mask = mask;
	return 0;
}

static int win_slot_grow(sl_livetab *t, lwin *w)
{
	assert(w->slots != NULL);
	return win_slots_resize(t, w, (w->mask + 1) * 2);
}

/* The open window {start, end} (or the NULL one), made when absent;
 * -1 when out of memory. */
static int win_get(sl_livetab *t, bool null, int64_t start, int64_t end)
{
	/* a sliding window's EXPAND hands each row's windows in turn: the
	 * rows change windows every row, and a search of the open ones was
	 * a fifth of W1-sliding's time; a small cache by start answers */
	unsigned h =
	    (unsigned)(((uint64_t)start * UINT64_C(0x9E3779B97F4A7C15)) >> 60);
	int i, f = -1, c = t->wcache[h], nc;
	lwin *w;
	if (!null && c >= 0 && c < t->nwin && t->win[c].state == W_LIVE &&
	    !t->win[c].null && t->win[c].start == start && t->win[c].end == end)
		return c;
	for (i = 0; i < t->nwin; i++) {
		w = &t->win[i];
		if (w->state == W_LIVE && w->null == null &&
		    (null || (w->start == start && w->end == end))) {
			if (!null)
				t->wcache[h] = i;
			return i;
		}
		if (w->state == W_FREE && f < 0)
			f = i;
	}
	if (f < 0) {
		if (t->nwin == t->wcap) {
			lwin *nw;
			nc = t->wcap ? 2 * t->wcap : 8;
			if ((nw = realloc(t->win, (size_t)nc * sizeof *nw)) ==
			    NULL)
				return -1;
			t->win = nw;
			t->wcap = nc;
		}
		f = t->nwin++;
		memset(&t->win[f], 0, sizeof t->win[f]);
	}
	w = &t->win[f];
	assert(w->slots == NULL); /* win_drop gave them away */
	if (win_slots_resize(t, w, win_presize(t, null)) < 0)
		return -1;
	w->start = null ? 0 : start;
	w->end = null ? 0 : end;
	w->null = null;
	w->state = W_LIVE;
	w->born = t->gen;
	w->n = 0;
	if (!null)
		t->wcache[h] = f;
	return f;
}

/* Window w leaves for good (its entries freed or about to be): its
 * array a spare, and what it held the table's hint for the next
 * windows (an empty one, dropped by abort, tells nothing). */
static void win_drop(sl_livetab *t, lwin *w)
{
	slots_give(t, w->slots, w->mask + 1);
	w->slots = NULL;
	w->mask = 0;
	if (w->n > 0 && !w->null)
		t->hint = slots_for(w->n);
	w->n = 0;
	w->state = W_FREE; /* not open: win_need leaves it out */
	spares_prune(t);
}

static inline bool id_eq(const sl_livetab *t, int32_t id, const uint64_t *k,
			 uint32_t m)
{
	const uint64_t *e = t->kw + (size_t)id * (size_t)t->nw;
	int j;
	if (t->km[id] != m)
		return false;
	for (j = 0; j < t->nw; j++)
		if (e[j] != k[j])
			return false;
	return true;
}

/* The slot of key (k, m) with hash h in window w, or of the empty slot
 * where it would go. */
static inline uint64_t win_find(const sl_livetab *t, const lwin *w, uint64_t h,
				const uint64_t *k, uint32_t m)
{
	uint64_t i = h & w->mask;
	uint32_t tag = (uint32_t)h;
	for (;;) {
		uint64_t x = w->slots[i];
		if (x == 0 || ((uint32_t)(x >> 32) == tag &&
			       id_eq(t, (int32_t)(uint32_t)x - 1, k, m)))
			return i;
		i = (i + 1) & w->mask;
	}
}

static void win_remove_slot(lwin *w, uint64_t i)
{
	uint64_t j = i;
	w->slots[i] = 0;
	w->n--;
	for (;;) {
		uint64_t home;
		j = (j + 1) & w->mask;
		if (w->slots[j] == 0)
			break;
		home = (w->slots[j] >> 32) & w->mask;
		if (((j - home) & w->mask) >= ((j - i) & w->mask)) {
			w->slots[i] = w->slots[j];
			w->slots[j] = 0;
			i = j;
		}
	}
}

/* Put entry id (hash h) into its window's table (known absent), at
 * slot `at` when that is the empty slot a probe for it ended on (no
 * search again), unless the table grows first; UINT64_MAX: unknown. */
static int win_insert_at(sl_livetab *t, int32_t id, uint64_t h, uint64_t at)
{
	lwin *w = &t->win[t->wid[id]];
	uint64_t i;
	if ((uint64_t)(w->n + 1) * 4 > (w->mask + 1) * 3) {
		if (win_slot_grow(t, w) < 0)
			return SL_ENOMEM;
		at = UINT64_MAX;
	}
	if (at <= w->mask && w->slots[at] == 0) {
		i = at;
	} else {
		i = h & w->mask;
		while (w->slots[i] != 0)
			i = (i + 1) & w->mask;
	}
	w->slots[i] = (uint64_t)(uint32_t)h << 32 | (uint32_t)(id + 1);
	w->n++;
	return 0;
}

/* Put entry id (hash h) into its window's table (known absent). */
static int win_insert(sl_livetab *t, int32_t id, uint64_t h)
{
	return win_insert_at(t, id, h, UINT64_MAX);
}

static uint64_t id_hash(const sl_livetab *t, int32_t id)
{
	return hash_words(t->kw + (size_t)id * (size_t)t->nw, t->nw, t->km[id],
			  t->runs);
}

/* Take entry id out of its window's table. */
static void win_unlink(sl_livetab *t, int32_t id)
{
	lwin *w = &t->win[t->wid[id]];
	uint64_t i = win_find(t, w, id_hash(t, id),
			      t->kw + (size_t)id * (size_t)t->nw, t->km[id]);
	if (w->slots[i] != 0)
		win_remove_slot(w, i);
	t->fl[id] &= (uint8_t)~FL_LIVE;
}

/* ------------------------------------------------------ versions */

/* Start of a write: the pending version becomes the delta. */
static void begin_write(sl_livetab *t)
{
	if (t->dirty)
		return;
	drop_dead(t); /* the last delta's evicted entries */
	t->dirty = true;
	t->has_delta = true;
	t->dl_n = 0;
	t->rmid_n = 0;
	sl_buf_clear(&t->rm);
	t->nremoved = 0;
}

/* First touch of id in the pending version: onto the dirty list; its
 * undo record is written by stash_from (before anything changes it). */
static int touch(sl_livetab *t, int32_t id)
{
	if (t->dl_n == t->dl_cap) {
		int64_t c = t->dl_cap ? 2 * t->dl_cap : 1024;
		if (grow_arr(&t->dl, 4, c) < 0 ||
		    grow_arr(&t->ub, t->ustride, c) < 0)
			return SL_ENOMEM;
		t->dl_cap = c;
	}
	t->dl[t->dl_n++] = id;
	t->fl[id] |= FL_TCH; /* on the list: abort and commit clear it */
	return 0;
}

/* The undo records of dirty entries [a, b): their state now (a copy,
 * no encoding; one call per aggregate). */
static void stash_run(sl_livetab *t, int64_t a, int64_t b)
{
	size_t at = 0;
	int i;
	for (i = 0; i < t->naggs; i++) {
		sl_agg_stash_many(t->aggs[i], t->dl + a, b - a,
				  t->ub + (size_t)a * t->ustride + at,
				  t->ustride);
		at += t->ssz[i];
	}
}

/* The undo records of dirty entries [from, dl_n) but the new ones (a
 * new entry's record is never read: abort frees it): runs of old
 * entries at a time, or all at once when nothing was inserted since
 * t->ins was ins.  At W1-1M a window's first tenth of batches inserts
 * every entry it touches. */
static void stash_from(sl_livetab *t, int64_t from, int64_t ins)
{
	const int32_t *dl = t->dl;
	const uint8_t *fl = t->fl;
	int64_t k = from, a;
	if (t->ins == ins) {
		if (from < t->dl_n)
			stash_run(t, from, t->dl_n);
		return;
	}
	while (k < t->dl_n) {
		while (k < t->dl_n && (fl[dl[k]] & FL_NEW))
			k++;
		for (a = k; k < t->dl_n && !(fl[dl[k]] & FL_NEW); k++)
			;
		if (k > a)
			stash_run(t, a, k);
	}
}

/* touch(), and when that fails (out of memory) an entry the version
 * just inserted leaves again: it is on no list abort reads. */
static int touch_new(sl_livetab *t, int32_t id)
{
	if (touch(t, id) == 0)
		return 0;
	if (t->fl[id] & FL_NEW) {
		win_unlink(t, id);
		t->fl[id] = 0;
		t->wid[id] = -1;
	}
	return SL_ENOMEM;
}

/* A new entry of words k, mask m in window wi (hash h), at the empty
 * slot `at` of its table (win_insert_at). */
static int64_t insert_at(sl_livetab *t, int wi, const uint64_t *k,
			 uint32_t m, uint64_t h, uint64_t at)
{
	int64_t id = new_id(t);
	int i;
	if (id < 0)
		return -1;
	if (id >= t->acap) { /* the aggregates' groups for every id < cap */
		for (i = 0; i < t->naggs; i++)
			if (sl_agg_reserve(t->aggs[i], t->cap, NULL) < 0)
				return -1;
		t->acap = t->cap;
	}
	memcpy(t->kw + (size_t)id * (size_t)t->nw, k, (size_t)t->nw * 8);
	t->km[id] = m;
	t->wid[id] = wi;
	t->fl[id] = FL_LIVE | FL_NEW;
	if (win_insert_at(t, (int32_t)id, h, at) < 0) {
		t->fl[id] =
		    0; /* not an entry (the id is lost: out of memory) */
		t->wid[id] = -1;
		return -1;
	}
	t->ins++;
	return id;
}

static int64_t insert(sl_livetab *t, int wi, const uint64_t *k, uint32_t m,
		      uint64_t h)
{
	return insert_at(t, wi, k, m, h, UINT64_MAX);
}

/* Free the entries of the DEAD windows (the last commit's evictions:
 * the delta no longer lists them). */
static void drop_dead(sl_livetab *t)
{
	int64_t k;
	int i;
	bool dead = false;
	for (i = 0; i < t->nwin; i++)
		dead = dead || t->win[i].state == W_DEAD;
	/* in id order, downwards: the free list then hands out the lowest
	 * ids first, and a new window's entries sit close together (the
	 * free list never grows here: grow_ids sized it) */
	if (dead) {
		int64_t from = t->nfree;
		for (k = t->n; k-- > 0;) {
			if (!(t->fl[k] & FL_LIVE) ||
			    t->win[t->wid[k]].state != W_DEAD)
				continue;
			if (t->nfree >= t->freecap) /* cannot be (grow_ids) */
				break;
			t->fl[k] = 0;
			t->wid[k] = -1;
			t->freeids[t->nfree++] = (int32_t)k;
		}
		/* their buffers emptied together, the kind checked once */
		for (i = 0; i < t->naggs; i++)
			(void)sl_agg_forget_many(t->aggs[i], t->freeids + from,
						 t->nfree - from);
	}
	for (i = 0; i < t->nwin; i++)
		if (t->win[i].state == W_DEAD)
			win_drop(t, &t->win[i]);
}

/* The pending version's evictions and removes are for good (commit and
 * set_version): evicted windows DEAD (freed by drop_dead), removed ids
 * freed. */
static int settle(sl_livetab *t)
{
	int64_t k;
	int i;
	for (i = 0; i < t->nwin; i++)
		if (t->win[i].state == W_GONE)
			t->win[i].state = W_DEAD;
	for (k = 0; k < t->rmid_n; k++)
		if (free_id(t, t->rmids[k]) < 0)
			return SL_ENOMEM;
	t->rmid_n = 0;
	for (k = 0; k < t->dl_n; k++)
		t->fl[t->dl[k]] &= (uint8_t) ~(FL_NEW | FL_TCH);
	return 0;
}

static int lt_commit(void *impl, sl_err *err)
{
	sl_livetab *t = impl;
	if (!t->dirty) { /* an empty version: an empty delta */
		drop_dead(t);
		t->has_delta = true;
		t->dl_n = 0;
		sl_buf_clear(&t->rm);
	}
	if (settle(t) < 0)
		return sl_err_nomem(err);
	t->version++;
	t->gen++;
	t->dirty = false;
	t->nremoved = 0;
	return 0;
}

/* Entry id's buffers back to the undo record u. */
static void restore_buf(sl_livetab *t, int32_t id, const unsigned char *u)
{
	size_t at = 0;
	int i;
	for (i = 0; i < t->naggs; i++) {
		sl_agg_unstash(t->aggs[i], id, u + at);
		at += t->ssz[i];
	}
}

static void lt_abort(void *impl)
{
	sl_livetab *t = impl;
	int64_t k;
	int i;
	if (t->dirty) {
		for (i = 0; i < t->nwin; i++)
			if (t->win[i].state == W_GONE)
				t->win[i].state = W_LIVE;
		for (k = t->rmid_n; k-- > 0;) {
			int32_t id = t->rmids[k];
			t->fl[id] |= FL_LIVE;
			(void)win_insert(t, id, id_hash(t, id));
		}
		t->rmid_n = 0;
		for (k = t->dl_n; k-- > 0;) {
			int32_t id = t->dl[k];
			if (t->fl[id] & FL_NEW) {
				win_unlink(t, id);
				(void)free_id(t, id);
			} else {
				restore_buf(t, id,
					    t->ub + (size_t)k * t->ustride);
				t->fl[id] &= (uint8_t)~FL_TCH;
			}
		}
		for (i = 0; i < t->nwin; i++)
			if (t->win[i].state == W_LIVE && t->win[i].n == 0 &&
			    t->win[i].born == t->gen)
				win_drop(t, &t->win[i]);
		t->has_delta = false;
		t->dl_n = 0;
		sl_buf_clear(&t->rm);
	} /* else the last commit's delta stays, as the byte store's */
	t->gen++;
	t->dirty = false;
	t->nremoved = 0;
}

static void lt_reset(void *impl, int64_t v)
{
	sl_livetab *t = impl;
	int i;
	for (i = 0; i < t->naggs; i++)
		(void)sl_agg_clear(t->aggs[i], t->n);
	t->acap = 0; /* reserved again at the next insert */
	for (i = 0; i < t->nwin; i++)
		win_drop(t, &t->win[i]);
	t->nwin = 0;
	t->n = 0;
	t->nfree = 0;
	t->dl_n = t->rmid_n = 0;
	sl_buf_clear(&t->rm);
	t->dirty = t->has_delta = false;
	t->nremoved = 0;
	t->version = v;
	t->gen++;
}

static void lt_set_version(void *impl, int64_t v)
{
	sl_livetab *t = impl;
	(void)settle(t); /* NEEDSWORK: out of memory here keeps ids */
	drop_dead(t);
	t->version = v;
	t->gen++;
	t->dl_n = t->rmid_n = 0;
	sl_buf_clear(&t->rm);
	t->dirty = t->has_delta = false;
	t->nremoved = 0;
}

static int64_t lt_version(const void *impl)
{
	return ((const sl_livetab *)impl)->version;
}

static int64_t lt_num_rows(const void *impl)
{
	const sl_livetab *t = impl;
	int64_t n = 0;
	int i;
	for (i = 0; i < t->nwin; i++)
		if (t->win[i].state == W_LIVE)
			n += t->win[i].n;
	return n;
}

static int64_t lt_num_updated(const void *impl)
{
	const sl_livetab *t = impl;
	return t->dirty ? t->dl_n : 0;
}

static int64_t lt_num_removed(const void *impl)
{
	return ((const sl_livetab *)impl)->nremoved;
}

static size_t lt_memory(const void *impl)
{
	const sl_livetab *t = impl;
	size_t m = sizeof *t, per = (size_t)t->nw * 8 + 4 + 4 + 1;
	int i;
	m += (size_t)t->cap * per;
	for (i = 0; i < t->nwin; i++)
		if (t->win[i].slots != NULL)
			m += (t->win[i].mask + 1) * 8;
	for (i = 0; i < t->nspare; i++)
		m += t->spare_n[i] * 8;
	for (i = 0; i < t->naggs; i++)
		m += sl_agg_bytes(t->aggs[i]);
	return m + (size_t)t->dl_cap * (4 + t->ustride) + t->rm.len;
}

/* ------------------------------------------------------ probing */

static int scratch(sl_livetab *t, int64_t n)
{
	int64_t c;
	if (n <= t->pcap)
		return 0;
	c = n < 1024 ? 1024 : n;
	if (grow_arr(&t->pk, (size_t)(t->nw ? t->nw : 1) * 8, c) < 0 ||
	    grow_arr(&t->ph, 8, c) < 0 || grow_arr(&t->pm, 4, c) < 0 ||
	    grow_arr(&t->pw, 4, c) < 0)
		return SL_ENOMEM;
	t->pcap = c;
	return 0;
}

/* How many rows ahead the probe prefetches a row's slot: a slot of a
 * table past the cache is a miss to memory, and 8 rows ahead were too
 * close to hide it (W1-1M: the probe's time 15% less at 32) */
#define AHEAD 32

/* Past RUNS_MIN slots in a window (512 KB, past the L2 cache), a table
 * of one-word keys takes the run layout (hash_words): every window's
 * slots are rehashed from their entries' keys, in place, once.  Called
 * at the start of a probe, so no hash made before it is used after. */
#define RUNS_MIN (UINT64_C(1) << 16)

static int use_runs(sl_livetab *t)
{
	uint32_t *ids;
	int64_t most = 0;
	int i;
	for (i = 0; !t->runs && t->nw == 1 && i < t->nwin; i++)
		if (t->win[i].slots != NULL && t->win[i].mask + 1 >= RUNS_MIN)
			break;
	if (t->runs || t->nw != 1 || i == t->nwin)
		return 0;
	for (i = 0; i < t->nwin; i++)
		most = t->win[i].slots != NULL && t->win[i].n > most
			   ? t->win[i].n
			   : most;
	if ((ids = malloc((size_t)most * sizeof *ids + 1)) == NULL)
		return SL_ENOMEM; /* nothing changed: the next probe tries */
	t->runs = true;
	for (i = 0; i < t->nwin; i++) {
		lwin *w = &t->win[i];
		uint64_t s, j;
		int64_t m = 0, k;
		if (w->slots == NULL)
			continue;
		for (s = 0; s <= w->mask; s++)
			if (w->slots[s] != 0 && m < most)
				ids[m++] = (uint32_t)w->slots[s] - 1;
		memset(w->slots, 0, (w->mask + 1) * sizeof *w->slots);
		for (k = 0; k < m; k++) {
			uint64_t h = id_hash(t, (int32_t)ids[k]);
			for (j = h & w->mask; w->slots[j] != 0;
			     j = (j + 1) & w->mask)
				;
			w->slots[j] = (uint64_t)(uint32_t)h << 32 |
				      (ids[k] + 1);
		}
	}
	free(ids);
	return 0;
}

/* Each row's words (t->pk) and mask (t->pm) of the keys but the window. */
static void rows_words(sl_livetab *t, sl_col *const *cols, int64_t n)
{
	int k, j;
	memset(t->pm, 0, (size_t)n * 4);
	for (k = 0, j = 0; k < t->nkeys; k++)
		if (k != t->wkey)
			col_words(cols[k], n, t->pk, t->nw, j++, t->pm, k);
}

/* Each row's window (t->pw), and unless !words its words (t->pk) and
 * mask (t->pm; without words, the caller has no NULL window). */
static int rows_keys(sl_livetab *t, sl_col *const *cols, int64_t n,
		     bool words, sl_err *err)
{
	const sl_col *wc = cols[t->wkey];
	const int64_t *ws = sl_col_i64(wc->child[0]),
		      *we = sl_col_i64(wc->child[1]);
	int64_t i, ls = 0, le = 0;
	int lw = -1;
	bool lnull = false;
	if (words)
		rows_words(t, cols, n);
	if (wc->nulls == NULL && wc->child[0]->nulls == NULL &&
	    wc->child[1]->nulls == NULL) {
		/* no NULL window: the last row's, or (a sliding window's
		 * EXPAND cycles through a row's windows) one a few rows back */
		int32_t *pw = t->pw;
		int64_t ld = 2; /* the distance that matched last */
		for (i = 0; i < n; i++) {
			int64_t d;
			if (lw >= 0 && ws[i] == ls && we[i] == le) {
				/* a run of the last row's window (a tumbling
				 * window's batch is one or two runs) */
				do
					pw[i++] = lw;
				while (i < n && ws[i] == ls && we[i] == le);
				i--;
				continue;
			}
			if (i >= ld && ws[i - ld] == ws[i] &&
			    we[i - ld] == we[i]) {
				lw = pw[i - ld];
				ls = ws[i];
				le = we[i];
				pw[i] = lw;
				continue;
			}
			for (d = 2; d <= 8 && d <= i; d++)
				if (ws[i - d] == ws[i] && we[i - d] == we[i])
					break;
			ls = ws[i];
			le = we[i];
			if (d <= 8 && d <= i)
				lw = pw[i - (ld = d)];
			else if ((lw = win_get(t, false, ls, le)) < 0)
				return sl_err_nomem(err);
			pw[i] = lw;
		}
		n = 0; /* done */
	}
	for (i = 0; i < n; i++) {
		bool null = sl_col_isnull(wc, i);
		if (!null && (sl_col_isnull(wc->child[0], i) ||
			      sl_col_isnull(wc->child[1], i)))
			return sl_err_set(
			    err, SL_EINTERNAL,
			    "livetab: a window with a NULL start or end");
		if (lw < 0 || null != lnull ||
		    (!null && (ws[i] != ls || we[i] != le))) {
			lnull = null;
			ls = ws[i];
			le = we[i];
			if ((lw = win_get(t, null, ls, le)) < 0)
				return sl_err_nomem(err);
		}
		t->pw[i] = lw;
		if (null)
			t->pm[i] |= 1u << t->wkey;
	}
	return 0;
}

static void rows_hash(sl_livetab *t, int64_t n)
{
	int64_t i;
	if (t->nw == 1) {
		for (i = 0; i < n; i++)
			t->ph[i] = hash_words(t->pk + i, 1, t->pm[i], t->runs);
		return;
	}
	for (i = 0; i < n; i++)
		t->ph[i] = hash_words(t->pk + (size_t)i * (size_t)t->nw, t->nw,
				      t->pm[i], t->runs);
}

/* The probe of window + one column (the common table): row i's word
 * pk[i] and mask pm[i] (pm NULL: no NULL key, every mask 0; pk then
 * may be the key column itself, no copy), the words compared inline,
 * the arrays in locals (stores through gids would otherwise reload them
 * every row), reloaded after an insert (which may move them); a new
 * entry goes to the empty slot its probe ended on.  Inlined into its
 * two callers, so the one without masks has no test for them.  When the
 * tables are past the cache, row i + AHEAD's hash is made at row i and
 * its slot prefetched (the hash kept in a ring till its row comes: no
 * pass of its own over the rows). */
#define RING 64 /* > AHEAD, a power of two */
static inline __attribute__((always_inline)) int
probe1(sl_livetab *t, const uint64_t *pk, const uint32_t *pm, int64_t n,
       int32_t *gids, sl_err *err)
{
	int32_t *dl = t->dl;          /* the dirty list in locals too */
	int64_t dn = t->dl_n, dcap = t->dl_cap;
	const int32_t *pw = t->pw;
	const uint64_t *kw = t->kw;
	const uint32_t *km = t->km;
	uint8_t *fl = t->fl;
	const lwin *win = t->win;
	const bool runs = t->runs; /* use_runs switches between calls only */
	uint64_t ring[RING];
	int64_t i;
	int wi;
	bool far = false;
	for (wi = 0; wi < t->nwin; wi++)
		far = far ||
		      (win[wi].state == W_LIVE && win[wi].mask >= (1u << 15));
	for (i = 0; far && i < AHEAD && i < n; i++)
		ring[i] = hash_words(&pk[i], 1, pm ? pm[i] : 0, runs);
	for (i = 0; i < n;) {
		/* a run of rows in one window (a tumbling window's batch is
		 * one or two): its table in locals, reloaded after an insert
		 * (which may grow it) */
		const int32_t lw = pw[i];
		const lwin *w = &win[lw];
		const uint64_t *slots = w->slots;
		uint64_t mask = w->mask;
		int64_t e = i + 1;
		while (e < n && pw[e] == lw)
			e++;
		for (; i < e; i++) {
			uint64_t k = pk[i], j, x, h;
			uint32_t m = pm ? pm[i] : 0, tag;
			int64_t id;
			if (far) {
				h = ring[i & (RING - 1)];
				if (i + AHEAD < n) {
					int64_t f = i + AHEAD;
					uint64_t hf = hash_words(
					    &pk[f], 1, pm ? pm[f] : 0, runs);
					const lwin *a = f < e ? w : &win[pw[f]];
					ring[f & (RING - 1)] = hf;
					__builtin_prefetch(
					    &a->slots[hf & a->mask]);
				}
			} else {
				h = hash_words(&k, 1, m, runs);
			}
			tag = (uint32_t)h;
			j = h & mask;
			for (;;) {
				x = slots[j];
				if (x == 0)
					break;
				id = (int64_t)(uint32_t)x - 1;
				if ((uint32_t)(x >> 32) == tag && kw[id] == k &&
				    km[id] == m)
					break;
				j = (j + 1) & mask;
			}
			if (x == 0) {
				t->dl_n = dn;
				if ((id = insert_at(t, lw, &k, m, h, j)) < 0)
					return sl_err_nomem(err);
				kw = t->kw;
				km = t->km;
				fl = t->fl;
				slots = w->slots;
				mask = w->mask;
			}
			if (!(fl[id] & FL_TCH)) {
				if (dn < dcap) { /* touch(), inline */
					dl[dn++] = (int32_t)id;
					fl[id] |= FL_TCH;
				} else {
					t->dl_n = dn;
					if (touch_new(t, (int32_t)id) < 0)
						return sl_err_nomem(err);
					dl = t->dl;
					dn = t->dl_n;
					dcap = t->dl_cap;
				}
			}
			gids[i] = (int32_t)id;
		}
	}
	t->dl_n = dn;
	return 0;
}

/* The probe of any other table. */
static int probe_any(sl_livetab *t, int64_t n, int32_t *gids, sl_err *err)
{
	int64_t i;
	for (i = 0; i < n; i++) {
		const uint64_t *k = t->pk + (size_t)i * (size_t)t->nw;
		lwin *w = &t->win[t->pw[i]];
		uint64_t s, x;
		int64_t id;
		if (i + AHEAD < n) {
			const lwin *a = &t->win[t->pw[i + AHEAD]];
			__builtin_prefetch(
			    &a->slots[t->ph[i + AHEAD] & a->mask]);
		}
		s = win_find(t, w, t->ph[i], k, t->pm[i]);
		x = w->slots[s];
		if (x != 0)
			id = (int64_t)(uint32_t)x - 1;
		else if ((id = insert(t, t->pw[i], k, t->pm[i], t->ph[i])) < 0)
			return sl_err_nomem(err);
		if (!(t->fl[id] & FL_TCH) && touch_new(t, (int32_t)id) < 0)
			return sl_err_nomem(err);
		gids[i] = (int32_t)id;
	}
	return 0;
}

/* Whether the table's one key column but the window, column c, is its
 * own word for every row (a BIGINT or TIMESTAMP without NULLs), and the
 * window column wc has no NULL: the probe reads c in place. */
static bool words_in_place(const sl_livetab *t, const sl_col *c,
			   const sl_col *wc)
{
	return t->nw == 1 && t->kind[t->wkey == 0 ? 1 : 0] == K_I64 &&
	       c->nulls == NULL && wc->nulls == NULL &&
	       wc->child[0]->nulls == NULL && wc->child[1]->nulls == NULL;
}

int sl_livetab_probe(sl_livetab *t, sl_col *const *cols, int64_t n,
		     int32_t *gids, sl_err *err)
{
	const sl_col *c1 = cols[t->wkey == 0 ? 1 : 0];
	int64_t from, ins;
	bool direct;
	int rc;
	if (n <= 0)
		return 0;
	begin_write(t);
	from = t->dl_n;
	ins = t->ins;
	if (scratch(t, n) < 0 || use_runs(t) < 0)
		return sl_err_nomem(err);
	direct = words_in_place(t, c1, cols[t->wkey]);
	if ((rc = rows_keys(t, cols, n, !direct, err)) < 0)
		return rc;
	if (direct) /* W1's key: window + BIGINT */
		rc = probe1(t, (const uint64_t *)sl_col_i64(c1), NULL, n, gids,
			    err);
	else if (t->nw == 1)
		rc = probe1(t, t->pk, t->pm, n, gids, err);
	else {
		rows_hash(t, n);
		rc = probe_any(t, n, gids, err);
	}
	stash_from(t, from, ins); /* before the rows are folded in */
	return rc;
}

/* The entry of words k, mask m, hash h in window wi: found, or
 * inserted; touched in the pending version.  -1: out of memory.  One
 * word (window + one column, the common table) is compared inline. */
static inline int64_t probe_at(sl_livetab *t, int wi, uint64_t h,
			       const uint64_t *k, uint32_t m)
{
	const lwin *w = &t->win[wi];
	uint64_t x, j = h & w->mask;
	uint32_t tag = (uint32_t)h;
	int64_t id;
	if (t->nw == 1) {
		const uint64_t *kw = t->kw;
		const uint32_t *km = t->km;
		for (;;) {
			x = w->slots[j];
			if (x == 0)
				break;
			id = (int64_t)(uint32_t)x - 1;
			if ((uint32_t)(x >> 32) == tag && kw[id] == k[0] &&
			    km[id] == m)
				break;
			j = (j + 1) & w->mask;
		}
	} else {
		x = w->slots[win_find(t, w, h, k, m)];
	}
	id = x != 0 ? (int64_t)(uint32_t)x - 1 : insert(t, wi, k, m, h);
	if (id < 0)
		return -1;
	if (!(t->fl[id] & FL_TCH) && touch_new(t, (int32_t)id) < 0)
		return -1;
	return id;
}

/* One row of window + one column (word k, mask m, hash h) into
 * windows cw[0..c): gids[0..c), c returned; INT64_MIN when out of memory
 * (so the caller's running count goes negative).  As probe1: the arrays
 * in locals, reloaded after an insert. */
static inline int64_t probe1_row(sl_livetab *t, const int32_t *cw,
				 uint64_t **cs, uint64_t *cm, int c,
				 uint64_t h, uint64_t k, uint32_t m,
				 int32_t *gids)
{
	const uint64_t *kw = t->kw;
	const uint32_t *km = t->km;
	const uint8_t *fl = t->fl;
	uint32_t tag = (uint32_t)h;
	int j;
	for (j = 0; j < c; j++) {
		const uint64_t *slots = cs[j], mask = cm[j];
		uint64_t x, s = h & mask;
		int64_t id;
		for (;;) {
			x = slots[s];
			if (x == 0)
				break;
			id = (int64_t)(uint32_t)x - 1;
			if ((uint32_t)(x >> 32) == tag && kw[id] == k &&
			    km[id] == m)
				break;
			s = (s + 1) & mask;
		}
		if (x == 0) {
			if ((id = insert(t, cw[j], &k, m, h)) < 0)
				return INT64_MIN;
			kw = t->kw;
			km = t->km;
			fl = t->fl;
			cs[j] = t->win[cw[j]].slots; /* it may have grown */
			cm[j] = t->win[cw[j]].mask;
		}
		if (!(fl[id] & FL_TCH)) {
			if (touch_new(t, (int32_t)id) < 0)
				return INT64_MIN;
			fl = t->fl;
		}
		gids[j] = (int32_t)id;
	}
	return c;
}

int sl_livetab_probe_slices(sl_livetab *t, sl_col *const *cols, int64_t n,
			    int k, int64_t slide, int64_t size,
			    const int32_t *cnt, int32_t *gids, int64_t *m,
			    sl_err *err)
{
	const int64_t *s0;
	int32_t cw[64];
	uint64_t *cs[64], cm[64]; /* their slots and masks */
	int64_t from, ins, i, o = 0, ls = 0;
	int j, c;
	bool have = false;
	*m = 0;
	if (n <= 0)
		return 0;
	if (k < 1 || k > 64 || cols[t->wkey]->nulls != NULL)
		return sl_err_set(err, SL_EINTERNAL,
				  "livetab: %d windows a slice or a NULL slice",
				  k);
	begin_write(t);
	from = t->dl_n;
	ins = t->ins;
	if (scratch(t, n) < 0 || use_runs(t) < 0)
		return sl_err_nomem(err);
	s0 = sl_col_i64(cols[t->wkey]->child[0]);
	rows_words(t, cols, n);
	rows_hash(t, n);
	for (i = 0; i < n; i++) {
		const uint64_t *kw = t->pk + (size_t)i * (size_t)t->nw;
		if (!have || s0[i] != ls) { /* the row's windows, latest first */
			for (j = 0; j < k; j++) {
				int64_t st = s0[i] - (int64_t)j * slide;
				if ((cw[j] = win_get(t, false, st, st + size)) <
				    0) {
					stash_from(t, from, ins);
					return sl_err_nomem(err);
				}
			}
			for (j = 0; j < k; j++) { /* after win_get's reallocs */
				cs[j] = t->win[cw[j]].slots;
				cm[j] = t->win[cw[j]].mask;
			}
			ls = s0[i];
			have = true;
		}
		c = cnt != NULL ? cnt[i] : k;
		if (t->nw == 1) {
			o += probe1_row(t, cw, cs, cm, c, t->ph[i], kw[0],
					t->pm[i],
					gids + o);
			if (o < 0) {
				stash_from(t, from, ins);
				return sl_err_nomem(err);
			}
			continue;
		}
		for (j = 0; j < c; j++) {
			int64_t id = probe_at(t, cw[j], t->ph[i], kw, t->pm[i]);
			if (id < 0) {
				stash_from(t, from, ins);
				return sl_err_nomem(err);
			}
			gids[o++] = (int32_t)id;
		}
	}
	stash_from(t, from, ins); /* before the rows are folded in */
	*m = o;
	return 0;
}

const int32_t *sl_livetab_dirty(const sl_livetab *t, int64_t *n)
{
	*n = t->dirty ? t->dl_n : 0;
	return t->dl;
}

bool sl_livetab_is_new(const sl_livetab *t, int32_t id)
{
	return (t->fl[id] & FL_NEW) != 0;
}

/* ------------------------------------------------------ encoding */

static inline unsigned char *put_be64(unsigned char *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
	return p + 8;
}

/* Entry id's key bytes into p (room for KEY_MAX); returns the length.
 * The bytes of sl_hash_key_encode (hash.h's layout: a flag byte per
 * value, integers big-endian with the sign bit flipped, doubles by
 * their order-preserving bits, a struct's flag then its fields) written
 * straight from the words: making columns to encode them was most of a
 * snapshot's time at 1M groups.  t306 holds the two to the same bytes. */
#define KEY_MAX (19 + 9 * 31)

static size_t encode_entry(const sl_livetab *t, int32_t id, unsigned char *p)
{
	const uint64_t *w = t->kw + (size_t)id * (size_t)t->nw;
	unsigned char *o = p;
	uint32_t m = t->km[id];
	int k;
	if (t->win_i64 && m == 0) { /* window + BIGINT/TIMESTAMP, no NULL */
		const lwin *win = &t->win[t->wid[id]];
		p[0] = p[1] = 1;
		(void)put_be64(p + 2,
			       (uint64_t)win->start ^ (UINT64_C(1) << 63));
		p[10] = 1;
		(void)put_be64(p + 11,
			       (uint64_t)win->end ^ (UINT64_C(1) << 63));
		p[19] = 1;
		(void)put_be64(p + 20, w[0] ^ (UINT64_C(1) << 63));
		return 28;
	}
	for (k = 0; k < t->nkeys; k++) {
		uint64_t v;
		uint32_t x;
		if (m >> k & 1) {
			*o++ = 0;
			w += t->kind[k] != K_WIN;
			continue;
		}
		*o++ = 1;
		switch (t->kind[k]) {
		case K_WIN: {
			const lwin *win = &t->win[t->wid[id]];
			*o++ = 1;
			o = put_be64(o, (uint64_t)win->start ^
					    (UINT64_C(1) << 63));
			*o++ = 1;
			o = put_be64(o,
				     (uint64_t)win->end ^ (UINT64_C(1) << 63));
			continue;
		}
		case K_BOOL: *o++ = *w++ != 0; break;
		case K_I32:
			x = __builtin_bswap32((uint32_t)*w++ ^
					      UINT32_C(0x80000000));
			memcpy(o, &x, 4);
			o += 4;
			break;
		case K_DBL: /* the word is normalised (double_word) */
			v = *w++;
			o = put_be64(o, v >> 63 ? ~v : v ^ (UINT64_C(1) << 63));
			break;
		default: o = put_be64(o, *w++ ^ (UINT64_C(1) << 63)); break;
		}
	}
	return (size_t)(o - p);
}

int sl_livetab_encode(sl_livetab *t, const int32_t *ids, int64_t n, sl_buf *out,
		      int64_t *off, sl_err *err)
{
	int64_t i;
	if (!sl_buf_reserve(out, (size_t)n * KEY_MAX + 1))
		return sl_err_nomem(err);
	for (i = 0; i < n; i++) {
		off[i] = (int64_t)out->len;
		out->len +=
		    encode_entry(t, ids[i], (unsigned char *)out->p + out->len);
	}
	off[n] = (int64_t)out->len;
	out->p[out->len] = '\0';
	return 0;
}

size_t sl_livetab_value(const sl_livetab *t, int32_t id, unsigned char *p)
{
	return sl_aggs_save_raw(t->aggs, t->naggs, id, p);
}

/* fn(ud, key, klen, val, vlen) for entries ids[0..n). */
static int visit_ids(sl_livetab *t, const int32_t *ids, int64_t n,
		     sl_state_fn fn, void *ud)
{
	unsigned char k[KEY_MAX], *v = malloc(t->vmax + 1);
	int64_t i;
	int rc = 0;
	if (v == NULL)
		return SL_ENOMEM;
	for (i = 0; i < n && rc == 0; i++) {
		size_t kl = encode_entry(t, ids[i], k);
		size_t vl = sl_livetab_value(t, ids[i], v);
		rc = fn(ud, k, kl, v, vl);
	}
	free(v);
	return rc;
}

/* fn for the entries of the windows in state `state`, in id order: the
 * entries' arrays are read front to back (slot order read them at
 * random: a snapshot of 1M groups took three times as long). */
#define VISIT_CHUNK 1024

static int visit_state(sl_livetab *t, int state, sl_state_fn fn, void *ud)
{
	int32_t ids[VISIT_CHUNK];
	int64_t id;
	int m = 0, rc = 0;
	for (id = 0; id < t->n && rc == 0; id++) {
		if (!(t->fl[id] & FL_LIVE) || t->win[t->wid[id]].state != state)
			continue;
		ids[m++] = (int32_t)id;
		if (m == VISIT_CHUNK) {
			rc = visit_ids(t, ids, m, fn, ud);
			m = 0;
		}
	}
	return rc == 0 && m > 0 ? visit_ids(t, ids, m, fn, ud) : rc;
}

static int lt_foreach(void *impl, sl_state_fn fn, void *ud)
{
	return visit_state(impl, W_LIVE, fn, ud);
}

static int lt_foreach_delta(void *impl, sl_state_fn fn, void *ud)
{
	sl_livetab *t = impl;
	int32_t *ids;
	int64_t i, m = 0;
	size_t p = 0;
	int rc;
	if (!t->has_delta)
		return 0;
	if ((rc = visit_evicted_keys(t, fn, ud)) != 0)
		return rc;
	while (p < t->rm.len) {
		uint32_t kl;
		memcpy(&kl, t->rm.p + p, sizeof kl);
		if ((rc = fn(ud, t->rm.p + p + sizeof kl, kl, NULL, 0)) != 0)
			return rc;
		p += sizeof kl + kl;
	}
	if ((ids = malloc((size_t)t->dl_n * sizeof *ids + 1)) == NULL)
		return SL_ENOMEM;
	for (i = 0; i < t->dl_n; i++) {
		int32_t id = t->dl[i];
		if ((t->fl[id] & FL_LIVE) && t->wid[id] >= 0 &&
		    t->win[t->wid[id]].state == W_LIVE)
			ids[m++] = id;
	}
	rc = visit_ids(t, ids, m, fn, ud);
	free(ids);
	return rc;
}

/* sl_state_write's records, coded (state/front.h) straight into the
 * sink's buffer.  The coder holds the previous record's key: for the
 * common table (window + one BIGINT/TIMESTAMP, no NULL: 28 key bytes)
 * as its three words, the bytes shared found from the words' first
 * difference and only the rest written (the words of a batch's keys
 * mostly differ in their last byte); any other key is encoded
 * (encode_entry) and coded against the previous key's bytes, kept in
 * the sink's prev (filled from the words only when needed and at the
 * end).  Making every key's bytes and then front-coding them in a
 * second pass was half of W1-1M's instructions. */
#define SIGN        (UINT64_C(1) << 63)

typedef struct coder {
	sl_buf *pv;  /* the sink's prev: the last key's bytes unless common */
	bool common; /* the last key is the common one: s, e, v */
	int32_t wid; /* then its window */
	uint64_t s, e, v; /* its window's start, end and word, sign-flipped */
} coder;

static void coder_begin(coder *c, sl_state_sink *k)
{
	c->pv = &k->prev;
	c->common = false;
	(void)sl_buf_reserve(c->pv, KEY_MAX);
}

/* The common key s, e, v's 28 bytes (encode_entry's) at p. */
static void common_key(unsigned char *p, uint64_t s, uint64_t e, uint64_t v)
{
	p[0] = p[1] = 1;
	(void)put_be64(p + 2, s);
	p[10] = 1;
	(void)put_be64(p + 11, e);
	p[19] = 1;
	(void)put_be64(p + 20, v);
}

/* The previous key's bytes into the sink's prev. */
static void coder_settle(coder *c)
{
	if (c->common && !sl_buf_failed(c->pv)) {
		common_key((unsigned char *)c->pv->p, c->s, c->e, c->v);
		c->pv->len = 28;
		c->pv->p[28] = '\0';
	}
	c->common = false;
}

/* The key part of a common key of word v (sign-flipped) at o, in the
 * window of the last key, whose word was cv: its 20 bytes and the
 * word's leading ones shared, the rest the word's last bytes (x | 1:
 * equal keys, never in one write, would share 27: still a valid
 * record); 8 bytes of room past the record.  Returns its end. */
static inline __attribute__((always_inline)) unsigned char *
code_next_common(unsigned char *o, uint64_t v, uint64_t cv)
{
	uint64_t x = v ^ cv, w;
	size_t rest = 8 - ((size_t)__builtin_clzll(x | 1) >> 3);
	o[0] = (unsigned char)(28 - rest);
	o[1] = (unsigned char)rest;
	w = __builtin_bswap64(v) >> (64 - 8 * rest);
	memcpy(o + 2, &w, 8);
	return o + 2 + rest;
}

/* Entry id's key part at o (room SL_FRONT_MAX(KEY_MAX, 0) and 8 more
 * bytes) when it is not a common key in the last one's window (those
 * write_ids codes itself); returns its end. */
static __attribute__((noinline)) unsigned char *
code_key_slow(const sl_livetab *t, coder *c, unsigned char *o, int32_t id)
{
	unsigned char kb[KEY_MAX];
	size_t kl;
	if (t->win_i64 && t->km[id] == 0) {
		const lwin *w = &t->win[t->wid[id]];
		uint64_t s = (uint64_t)w->start ^ SIGN, e = (uint64_t)w->end ^ SIGN,
			 v = t->kw[id] ^ SIGN, x;
		size_t sh;
		common_key(kb, s, e, v);
		if (!c->common) {
			o = sl_front_key(o, c->pv->p, c->pv->len, kb, 28);
		} else { /* another window: the bytes shared from the words */
			if ((x = s ^ c->s) != 0)
				sh = 2 + ((size_t)__builtin_clzll(x) >> 3);
			else if ((x = e ^ c->e) != 0)
				sh = 11 + ((size_t)__builtin_clzll(x) >> 3);
			else if ((x = v ^ c->v) != 0)
				sh = 20 + ((size_t)__builtin_clzll(x) >> 3);
			else
				sh = 28;
			o[0] = (unsigned char)sh;
			o[1] = (unsigned char)(28 - sh);
			sl_copy_small(o + 2, kb + sh, 28 - sh);
			o += 2 + 28 - sh;
		}
		c->common = true;
		c->wid = t->wid[id];
		c->s = s;
		c->e = e;
		c->v = v;
		return o;
	}
	coder_settle(c);
	kl = encode_entry(t, id, kb);
	o = sl_front_key(o, c->pv->p, c->pv->len, kb, kl);
	memcpy(c->pv->p, kb, kl);
	c->pv->len = kl;
	c->pv->p[kl] = '\0';
	return o;
}

/* The end of a writer's chunk of records: the coder's last key (cm, cw,
 * cv) back in c, the sink's buffer to o, and its spill when past its
 * limit.  SL_ENOMEM when the spill failed. */
static inline int chunk_end(coder *c, bool cm, int32_t cw, uint64_t cv,
			    sl_state_sink *k, unsigned char *o)
{
	sl_buf *b = k->b;
	c->common = cm;
	c->wid = cw;
	c->v = cv;
	b->len = (size_t)((char *)o - b->p);
	b->p[b->len] = '\0';
	if (b->len >= k->limit && k->spill != NULL) {
		k->spill(k->ud);
		if (sl_buf_failed(k->b))
			return SL_ENOMEM;
	}
	return 0;
}

/* The records of the entries ids[lo..hi) (ids NULL: the ids lo..hi
 * themselves) that are live in a window sel picks (sel[wid + 1] != 0)
 * into k, puts (removes when rm): each record's key, then its
 * aggregates' buffers saved in place (sl_agg_view_save, inline); the
 * coder's last key and the table's arrays in locals (the bytes written
 * through o may alias anything).  The selection is made here, no list
 * of ids between (a third of the writing's instructions were the
 * callers' loops filling one). */
/* The aggregate lists the delta's writer has its own loop for
 * (write_puts_cs): count + sum of a DOUBLE (W1's count(*), sum(amount))
 * or of a BIGINT, their values saved straight from the arrays, no loop
 * over the aggregates nor a switch on their kinds; SHAPE_ANY: write_ids. */
enum { SHAPE_ANY, SHAPE_CNT_ISUM, SHAPE_CNT_DSUM };

static int agg_shape(const sl_livetab *t)
{
	sl_agg_view v0, v1;
	if (t->naggs != 2 || t->vmax >= 0x7f)
		return SHAPE_ANY;
	sl_agg_view_of(&v0, t->aggs[0]);
	sl_agg_view_of(&v1, t->aggs[1]);
	if (v0.kind != SL_AGGV_COUNT)
		return SHAPE_ANY;
	return v1.kind == SL_AGGV_DSUM	 ? SHAPE_CNT_DSUM
	       : v1.kind == SL_AGGV_ISUM ? SHAPE_CNT_ISUM
					 : SHAPE_ANY;
}

static inline __attribute__((always_inline)) int
write_ids(sl_livetab *t, coder *c, const int32_t *ids, int64_t lo, int64_t hi,
	  const uint8_t *sel, bool rm, sl_state_sink *k)
{
	size_t most = SL_FRONT_MAX(KEY_MAX, rm ? 0 : t->vmax) + 8;
	const int32_t *wid = t->wid;
	const uint32_t *km = t->km;
	const uint64_t *kw = t->kw;
	const uint8_t *fl = t->fl;
	sl_agg_view av[8];
	int na = t->naggs <= 8 ? t->naggs : 0, a;
	bool short_v = t->vmax < 0x7f; /* every value's length one byte */
	int64_t i = lo;
	if (sl_buf_failed(c->pv))
		return SL_ENOMEM;
	for (a = 0; a < na; a++)
		sl_agg_view_of(&av[a], t->aggs[a]);
	while (i < hi) {
		int m;
		sl_buf *b = k->b;
		unsigned char *o;
		bool cm = c->common;
		int32_t cw = c->wid;
		uint64_t cv = c->v;
		if (!sl_buf_reserve(b, WRITE_CHUNK * most))
			return SL_ENOMEM;
		o = (unsigned char *)b->p + b->len;
		for (m = 0; i < hi && m < WRITE_CHUNK; i++) {
			int32_t id = ids != NULL ? ids[i] : (int32_t)i;
			size_t vl = 0;
			unsigned char *q;
			if (!(fl[id] & FL_LIVE) || !sel[wid[id] + 1])
				continue;
			m++;
			if (cm && wid[id] == cw && km[id] == 0) {
				uint64_t v = kw[id] ^ SIGN;
				o = code_next_common(o, v, cv);
				cv = v;
			} else {
				c->common = cm;
				c->wid = cw;
				c->v = cv;
				o = code_key_slow(t, c, o, id);
				cm = c->common;
				cw = c->wid;
				cv = c->v;
			}
			if (rm) {
				*o++ = 0;
				continue;
			}
			q = o + (short_v ? 1 : 5);
			if (na > 0)
				for (a = 0; a < na; a++)
					vl += sl_agg_view_save(&av[a], id, q + vl);
			else
				vl = sl_livetab_value(t, id, q);
			if (short_v) {
				o[0] = (unsigned char)(vl + 1);
				o = q + vl;
			} else {
				o = sl_front_uvar(o, (uint64_t)vl + 1);
				memmove(o, q, vl);
				o += vl;
			}
		}
		if (chunk_end(c, cm, cw, cv, k, o) < 0)
			return SL_ENOMEM;
	}
	return 0;
}

/* write_ids made three times with its loop's choices constant: the
 * snapshot's puts and the evicted windows' removes over an id range, the
 * delta's puts over the dirty list. */
static __attribute__((noinline)) int
write_range(sl_livetab *t, coder *c, int64_t n, const uint8_t *sel,
	    sl_state_sink *k)
{
	return write_ids(t, c, NULL, 0, n, sel, false, k);
}

static __attribute__((noinline)) int
write_range_rm(sl_livetab *t, coder *c, int64_t n, const uint8_t *sel,
	       sl_state_sink *k)
{
	return write_ids(t, c, NULL, 0, n, sel, true, k);
}

static __attribute__((noinline)) int
write_list(sl_livetab *t, coder *c, const int32_t *ids, int64_t n,
	   const uint8_t *sel, sl_state_sink *k)
{
	return write_ids(t, c, ids, 0, n, sel, false, k);
}

/* The delta's puts of count + sum (agg_shape; isum: of a BIGINT), the
 * dirty list's common keys in the last one's window first: one test of
 * the entry's window, flags and mask, then its key's last bytes and
 * the two values straight from the arrays (the layout sl_agg_view_save
 * writes: a count's uvar, the has byte, the DOUBLE's 8 bytes or the
 * BIGINT's zigzag uvar); anything else (another window, a key with a
 * NULL, a removed entry) goes the general way, a record at a time. */
static inline __attribute__((always_inline)) int
write_puts_cs(sl_livetab *t, coder *c, const int32_t *ids, int64_t n,
	      const uint8_t *sel, bool isum, sl_state_sink *k)
{
	size_t most = SL_FRONT_MAX(KEY_MAX, t->vmax) + 8;
	const int32_t *wid = t->wid;
	const uint32_t *km = t->km;
	const uint64_t *kw = t->kw;
	const uint8_t *fl = t->fl;
	sl_agg_view av[2];
	const int64_t *cnt;
	const double *ds;
	const int64_t *is;
	const uint8_t *has;
	int64_t vcap, i = 0;
	if (sl_buf_failed(c->pv))
		return SL_ENOMEM;
	sl_agg_view_of(&av[0], t->aggs[0]);
	sl_agg_view_of(&av[1], t->aggs[1]);
	cnt = av[0].cnt;
	ds = av[1].dsum;
	is = av[1].isum;
	has = av[1].has;
	vcap = av[0].cap < av[1].cap ? av[0].cap : av[1].cap;
	while (i < n) {
		sl_buf *b = k->b;
		unsigned char *o;
		bool cm = c->common;
		int32_t cw = c->wid;
		uint64_t cv = c->v;
		int64_t lim = n - i < WRITE_CHUNK ? n : i + WRITE_CHUNK;
		if (!sl_buf_reserve(b, WRITE_CHUNK * most))
			return SL_ENOMEM;
		o = (unsigned char *)b->p + b->len;
		for (; i < lim; i++) {
			int32_t id = ids[i];
			unsigned char *q;
			size_t vl;
			uint64_t x;
			if (wid[id] == cw && cm && (fl[id] & FL_LIVE) &&
			    km[id] == 0 && id < vcap) {
				/* (its window is selected: the last
				 * record's was) */
				uint64_t v = kw[id] ^ SIGN;
				o = code_next_common(o, v, cv);
				cv = v;
				q = o + 1;
				x = (uint64_t)cnt[id];
				if (x < 0x80) {
					q[0] = (unsigned char)x;
					vl = 1;
				} else {
					vl = sl_agg_raw_uvar(q, x);
				}
				q[vl] = has[id];
				if (!isum) {
					memcpy(q + vl + 1, &ds[id], 8);
					vl += has[id] ? 9 : 1;
				} else if (has[id]) {
					vl += 1 + sl_agg_raw_uvar(
						      q + vl + 1,
						      sl_agg_zigzag(is[id]));
				} else {
					vl += 1;
				}
				o[0] = (unsigned char)(vl + 1);
				o = q + vl;
				continue;
			}
			if (!(fl[id] & FL_LIVE) || !sel[wid[id] + 1])
				continue;
			c->common = cm;
			c->wid = cw;
			c->v = cv;
			o = code_key_slow(t, c, o, id);
			cm = c->common;
			cw = c->wid;
			cv = c->v;
			q = o + 1;
			vl = sl_agg_view_save(&av[0], id, q);
			vl += sl_agg_view_save(&av[1], id, q + vl);
			o[0] = (unsigned char)(vl + 1);
			o = q + vl;
		}
		if (chunk_end(c, cm, cw, cv, k, o) < 0)
			return SL_ENOMEM;
	}
	return 0;
}

static __attribute__((noinline)) int
write_list_cd(sl_livetab *t, coder *c, const int32_t *ids, int64_t n,
	      const uint8_t *sel, sl_state_sink *k)
{
	return write_puts_cs(t, c, ids, n, sel, false, k);
}

static __attribute__((noinline)) int
write_list_ci(sl_livetab *t, coder *c, const int32_t *ids, int64_t n,
	      const uint8_t *sel, sl_state_sink *k)
{
	return write_puts_cs(t, c, ids, n, sel, true, k);
}

/* The removes of the delta: the log's {u32 length, key} as records. */
static int write_removes(sl_livetab *t, coder *c, sl_state_sink *k)
{
	size_t p = 0;
	coder_settle(c);
	while (p < t->rm.len) {
		sl_buf *b = k->b;
		uint32_t kl;
		const char *key = t->rm.p + p + sizeof kl;
		unsigned char *o;
		memcpy(&kl, t->rm.p + p, sizeof kl);
		if (!sl_buf_reserve(b, SL_FRONT_MAX(kl, 0)) ||
		    !sl_buf_reserve(c->pv, kl))
			return SL_ENOMEM;
		o = sl_front_code((unsigned char *)b->p + b->len, c->pv->p,
				  c->pv->len, key, kl, NULL, 0);
		b->len = (size_t)((char *)o - b->p);
		b->p[b->len] = '\0';
		memcpy(c->pv->p, key, kl);
		c->pv->len = kl;
		c->pv->p[kl] = '\0';
		p += sizeof kl + kl;
		if (b->len >= k->limit && k->spill != NULL) {
			k->spill(k->ud);
			if (sl_buf_failed(k->b))
				return SL_ENOMEM;
		}
	}
	return 0;
}

/* sel[wid + 1] = whether window wid's state is one of st0, st1 (sel[0]:
 * no window, never); returns whether any is. */
static bool pick_windows(const sl_livetab *t, uint8_t *sel, int st0, int st1)
{
	bool any = false;
	int i;
	sel[0] = 0;
	for (i = 0; i < t->nwin; i++) {
		sel[i + 1] = t->win[i].state == st0 || t->win[i].state == st1;
		any = any || sel[i + 1];
	}
	return any;
}

/* The provider's write: the records lt_foreach (full: live windows' entries
 * in id order) or lt_foreach_delta (the evicted windows' removes in id
 * order as visit_evicted_keys gives them, the logged removes, then the
 * dirty list's live entries in first-touch order) gives, without a call
 * a record. */
static int lt_write(void *impl, bool full, sl_state_sink *k)
{
	sl_livetab *t = impl;
	uint8_t few[64], /* the windows' selection: no allocation a batch */
	    *sel = t->nwin < 64 ? few : malloc((size_t)t->nwin + 1);
	int rc = 0;
	coder c;
	if (sel == NULL)
		return SL_ENOMEM;
	coder_begin(&c, k);
	if (full) {
		if (pick_windows(t, sel, W_LIVE, W_LIVE))
			rc = write_range(t, &c, t->n, sel, k);
	} else if (t->has_delta) {
		if (pick_windows(t, sel, W_GONE, W_DEAD))
			rc = write_range_rm(t, &c, t->n, sel, k);
		if (rc == 0)
			rc = write_removes(t, &c, k);
		if (rc == 0 && pick_windows(t, sel, W_LIVE, W_LIVE))
			switch (agg_shape(t)) {
			case SHAPE_CNT_DSUM:
				rc = write_list_cd(t, &c, t->dl, t->dl_n, sel,
						   k);
				break;
			case SHAPE_CNT_ISUM:
				rc = write_list_ci(t, &c, t->dl, t->dl_n, sel,
						   k);
				break;
			default:
				rc = write_list(t, &c, t->dl, t->dl_n, sel, k);
			}
	}
	coder_settle(&c);
	if (sel != few)
		free(sel);
	return rc;
}

/* ------------------------------------------------------ eviction */

static int rm_key(sl_livetab *t, const void *k, size_t kl)
{
	uint32_t l = (uint32_t)kl;
	sl_buf_add(&t->rm, &l, sizeof l);
	sl_buf_add(&t->rm, k, kl);
	return sl_buf_failed(&t->rm) ? SL_ENOMEM : 0;
}

/* The keys of the entries of the windows the delta evicted (GONE in the
 * pending version, DEAD after its commit), in id order, as removes. */
static int visit_evicted_keys(sl_livetab *t, sl_state_fn fn, void *ud)
{
	unsigned char k[KEY_MAX];
	int64_t id;
	int i, rc = 0;
	bool any = false;
	for (i = 0; i < t->nwin; i++)
		any = any || t->win[i].state == W_GONE ||
		      t->win[i].state == W_DEAD;
	for (id = 0; any && id < t->n && rc == 0; id++) {
		int s;
		if (!(t->fl[id] & FL_LIVE))
			continue;
		s = t->win[t->wid[id]].state;
		if (s == W_GONE || s == W_DEAD)
			rc = fn(ud, k, encode_entry(t, (int32_t)id, k), NULL, 0);
	}
	return rc;
}

int64_t sl_livetab_evict(sl_livetab *t, sl_livetab_due due, void *ud,
			 sl_state_fn fn, void *fud, sl_err *err)
{
	int64_t total = 0;
	int i, rc = 0;
	for (i = 0; i < t->nwin; i++) {
		lwin *w = &t->win[i];
		if (w->state != W_LIVE || w->null || !due(ud, w->start, w->end))
			continue;
		w->state = W_EVICTING;
		total += w->n;
	}
	if (total == 0)
		return 0;
	begin_write(t);
	if (fn != NULL)
		rc = visit_state(t, W_EVICTING, fn, fud);
	for (i = 0; i < t->nwin; i++)
		if (t->win[i].state == W_EVICTING)
			t->win[i].state = rc != 0 ? W_LIVE : W_GONE;
	if (rc != 0)
		return rc < 0 ? sl_err_nomem(err) : SL_EINTERNAL;
	t->nremoved += total;
	return total;
}

/* ---- the evicted entries in key order ---- */

/* Word w of key kind `kind` as an unsigned number in the order of its
 * encoded bytes (encode_entry). */
static inline uint64_t order_word(uint8_t kind, uint64_t w)
{
	switch (kind) {
	case K_BOOL: return w;
	case K_DBL: return w >> 63 ? ~w : w ^ (UINT64_C(1) << 63);
	default: return w ^ (UINT64_C(1) << 63); /* sign-extended integers */
	}
}

/* a[0..n) by bits [32, 32 + bits) (LSD, 11 bits a pass); tmp holds n. */
static void radix_hi(uint64_t *a, uint64_t *tmp, int64_t n, int bits)
{
	static const int D = 11;
	int64_t cnt[1 << 11], i;
	int sh;
	for (sh = 32; sh < 32 + bits; sh += D) {
		int64_t sum = 0;
		uint64_t *x;
		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < n; i++)
			cnt[(a[i] >> sh) & ((1u << D) - 1)]++;
		for (i = 0; i < (1 << D); i++) {
			int64_t c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[cnt[(a[i] >> sh) & ((1u << D) - 1)]++] = a[i];
		x = a; /* the pass's output is the next one's input */
		a = tmp;
		tmp = x;
	}
	if (((bits + D - 1) / D) % 2 == 1) /* the result is in the caller's tmp */
		memcpy(tmp, a, (size_t)n * sizeof *a);
}

/* Window wi's entries into ids[0..w->n) in key order when that can be
 * done by their one word (no NULL, a value range under 2^32); false
 * when not (nothing written that matters).  *a and *tmp: room for big
 * words each, malloc'd at the first window that needs a sort (NULL till
 * then; the caller frees them).  A window holding a quarter of the ids
 * or more is gathered in id order, a sequential pass, and needs no sort
 * when its keys rise with its ids (a stream whose keys come in order
 * first touches them in order: W1-1M's 1M-entry window, whose radix
 * sort and its two 8 MB buffers of fresh memory were 5% of the run);
 * a smaller one from its slots. */
static int sort_window_fast(const sl_livetab *t, int wi, int32_t *ids,
			    uint64_t **a, uint64_t **tmp, int64_t big)
{
	const lwin *w = &t->win[wi];
	uint8_t kind = t->kind[t->wkey == 0 ? 1 : 0];
	uint64_t lo = UINT64_MAX, hi = 0, range, last = 0;
	int64_t m = 0, j;
	int bits = 0;
	bool sorted = true;
	if (w->n * 4 >= t->n) {
		const int32_t *wid = t->wid;
		const uint8_t *fl = t->fl;
		int64_t id;
		for (id = 0; id < t->n; id++) {
			uint64_t o;
			if (wid[id] != wi || !(fl[id] & FL_LIVE))
				continue;
			if (t->km[id] != 0)
				return 0;
			o = order_word(kind, t->kw[id]);
			sorted = sorted && (m == 0 || o > last);
			last = o;
			lo = o < lo ? o : lo;
			hi = o > hi ? o : hi;
			if (m == w->n)
				return 0; /* cannot be: the caller checks */
			ids[m++] = (int32_t)id;
		}
	} else {
		uint64_t i;
		for (i = 0; i <= w->mask; i++) {
			uint64_t x = w->slots[i], o;
			int32_t id;
			if (x == 0)
				continue;
			id = (int32_t)(uint32_t)x - 1;
			if (t->km[id] != 0)
				return 0;
			o = order_word(kind, t->kw[id]);
			lo = o < lo ? o : lo;
			hi = o > hi ? o : hi;
			ids[m++] = id;
		}
		sorted = m <= 1;
	}
	if (m == 0 || sorted)
		return 1;
	range = hi - lo;
	if (range >> 32 != 0)
		return 0;
	if (*a == NULL && ((*a = malloc((size_t)big * 8)) == NULL ||
			   (*tmp = malloc((size_t)big * 8)) == NULL))
		return SL_ENOMEM;
	for (j = 0; j < m; j++)
		(*a)[j] = (order_word(kind, t->kw[ids[j]]) - lo) << 32 |
			  (uint32_t)ids[j];
	while (bits < 32 && range >> bits != 0)
		bits++;
	radix_hi(*a, *tmp, m, bits);
	for (j = 0; j < m; j++)
		ids[j] = (int32_t)(uint32_t)(*a)[j];
	return 1;
}

/* An encoded key and its entry, for the general order. */
typedef struct krec {
	const unsigned char *k;
	uint32_t kl;
	int32_t id;
} krec;

static int krec_cmp(const void *x, const void *y)
{
	const krec *a = x, *b = y;
	size_t m = a->kl < b->kl ? a->kl : b->kl;
	int r = m ? memcmp(a->k, b->k, m) : 0;
	return r ? r : (a->kl > b->kl) - (a->kl < b->kl);
}

/* The general order: every evicted key encoded, sorted by its bytes. */
static int sort_by_bytes(sl_livetab *t, int32_t *ids, int64_t n)
{
	unsigned char k1[KEY_MAX], *kb;
	krec *r;
	int64_t id, m = 0, i;
	size_t at = 0;
	for (id = 0; id < t->n; id++) /* the bytes, exactly */
		if ((t->fl[id] & FL_LIVE) &&
		    t->win[t->wid[id]].state == W_GONE)
			at += encode_entry(t, (int32_t)id, k1);
	kb = malloc(at + 1);
	r = malloc((size_t)n * sizeof *r + 1);
	at = 0;
	if (kb == NULL || r == NULL) {
		free(kb);
		free(r);
		return SL_ENOMEM;
	}
	for (id = 0; id < t->n && m < n; id++)
		if ((t->fl[id] & FL_LIVE) &&
		    t->win[t->wid[id]].state == W_GONE) {
			r[m].k = kb + at;
			r[m].kl = (uint32_t)encode_entry(t, (int32_t)id, kb + at);
			r[m].id = (int32_t)id;
			at += r[m++].kl;
		}
	if (m > 0)
		qsort(r, (size_t)m, sizeof *r, krec_cmp);
	for (i = 0; i < m; i++)
		ids[i] = r[i].id;
	free(kb);
	free(r);
	return m == n ? 0 : SL_EINTERNAL;
}

static int win_order(const lwin *a, const lwin *b)
{
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

int sl_livetab_evicted(sl_livetab *t, int32_t *ids, int64_t n, sl_err *err)
{
	int gone[64], ng = 0, i, j, rc = 0;
	int64_t big = 0, o = 0;
	uint64_t *a = NULL, *tmp = NULL;
	bool fast = t->nw == 1;
	for (i = 0; i < t->nwin; i++) {
		if (t->win[i].state != W_GONE)
			continue;
		if (ng == 64) {
			fast = false;
			break;
		}
		/* by start, end: the window key's order */
		for (j = ng++; j > 0 && win_order(&t->win[gone[j - 1]],
						  &t->win[i]) > 0;
		     j--)
			gone[j] = gone[j - 1];
		gone[j] = i;
		big = t->win[i].n > big ? t->win[i].n : big;
	}
	/* the window before the other key, or one window: window by window */
	fast = fast && (t->wkey == 0 || ng == 1);
	for (i = 0; fast && rc == 0 && i < ng; i++) {
		const lwin *w = &t->win[gone[i]];
		int r;
		if (o + w->n > n) {
			rc = SL_EINTERNAL;
			break;
		}
		if ((r = sort_window_fast(t, gone[i], ids + o, &a, &tmp,
					  big)) < 0)
			rc = r;
		fast = r > 0;
		o += w->n;
	}
	free(a);
	free(tmp);
	if (rc == 0 && fast && o != n)
		rc = SL_EINTERNAL;
	if (rc == 0 && !fast)
		rc = sort_by_bytes(t, ids, n);
	if (rc == SL_ENOMEM)
		return sl_err_nomem(err);
	if (rc < 0)
		return sl_err_set(err, SL_EINTERNAL,
				  "livetab: %lld evicted entries asked, not so",
				  (long long)n);
	return 0;
}

int sl_livetab_rows(sl_livetab *t, const int32_t *ids, int64_t n, sl_col **kc,
		    sl_agg **aggs, sl_err *err)
{
	unsigned char u[256], *up = t->ustride <= sizeof u ? u : NULL;
	int64_t r;
	int k, j, i;
	for (k = 0; kc != NULL && k < t->nkeys; k++)
		kc[k] = NULL;
	for (k = 0; kc != NULL && k < t->nkeys; k++)
		if ((kc[k] = sl_col_new_raw(t->types[k], n)) == NULL ||
		    (k == t->wkey && kc[k]->nchild < 2))
			goto nomem;
	for (k = 0, j = 0; kc != NULL && k < t->nkeys; k++) {
		sl_col *c = kc[k];
		if (k == t->wkey) {
			int64_t *s = sl_col_i64(c->child[0]),
				*e = sl_col_i64(c->child[1]);
			for (r = 0; r < n; r++) {
				const lwin *w = &t->win[t->wid[ids[r]]];
				s[r] = w->start;
				e[r] = w->end;
				if (w->null && sl_col_set_null(c, r) < 0)
					goto nomem;
			}
			continue;
		}
		for (r = 0; r < n; r++) {
			uint64_t x = t->kw[(size_t)ids[r] * (size_t)t->nw + j];
			switch (t->kind[k]) {
			case K_BOOL: sl_col_u8(c)[r] = x != 0; break;
			case K_I32: sl_col_i32(c)[r] = (int32_t)x; break;
			case K_DBL: memcpy(&sl_col_f64(c)[r], &x, 8); break;
			default: sl_col_i64(c)[r] = (int64_t)x; break;
			}
			if ((t->km[ids[r]] >> k & 1) && sl_col_set_null(c, r) < 0)
				goto nomem;
		}
		j++;
	}
	if (up == NULL && (up = malloc(t->ustride)) == NULL)
		goto nomem;
	for (i = 0; aggs != NULL && i < t->naggs; i++) {
		if (sl_agg_reserve(aggs[i], n, err) < 0) {
			if (up != u)
				free(up);
			goto fail;
		}
		for (r = 0; r < n; r++) { /* the state as it is: a copy */
			sl_agg_stash(t->aggs[i], ids[r], up);
			sl_agg_unstash(aggs[i], r, up);
		}
	}
	if (up != u)
		free(up);
	return 0;
nomem:
	sl_err_nomem(err);
fail:
	for (k = 0; kc != NULL && k < t->nkeys; k++) {
		sl_col_free(kc[k]);
		kc[k] = NULL;
	}
	return err ? err->code : SL_ENOMEM;
}

int64_t sl_livetab_min_end(const sl_livetab *t)
{
	int64_t m = INT64_MAX;
	int i;
	for (i = 0; i < t->nwin; i++)
		if (t->win[i].state == W_LIVE && !t->win[i].null &&
		    t->win[i].end < m)
			m = t->win[i].end;
	return m;
}

void sl_livetab_slot_arrays(const sl_livetab *t, int64_t *fresh,
			    int64_t *reused)
{
	*fresh = t->slots_fresh;
	*reused = t->slots_reused;
}

/* ------------------------------------------------------ by key bytes */

/* Key bytes back into t->dec, then words k and mask m, and the window;
 * *wi = -1 when that window is not open (and !make). */
static int decode_key(sl_livetab *t, const void *key, size_t klen, uint64_t *k,
		      uint32_t *m, int *wi, bool make, sl_err *err)
{
	sl_col *wc;
	int c, j, rc;
	for (c = 0; c < t->nkeys; c++) {
		sl_col *d = t->dec[c];
		int f;
		if (d->nulls != NULL)
			d->nulls[0] = 0;
		for (f = 0; f < d->nchild; f++)
			if (d->child[f]->nulls != NULL)
				d->child[f]->nulls[0] = 0;
	}
	if ((rc = sl_hash_key_decode(t->dec, t->nkeys, 0, key, klen, NULL,
				     err)) < 0)
		return rc;
	*m = 0;
	for (c = 0, j = 0; c < t->nkeys; c++)
		if (c != t->wkey)
			col_words(t->dec[c], 1, k, t->nw, j++, m, c);
	wc = t->dec[t->wkey];
	if (sl_col_isnull(wc, 0))
		*m |= 1u << t->wkey;
	if (make) {
		*wi = win_get(t, sl_col_isnull(wc, 0),
			      sl_col_i64(wc->child[0])[0],
			      sl_col_i64(wc->child[1])[0]);
		return *wi < 0 ? sl_err_nomem(err) : 0;
	}
	for (*wi = 0; *wi < t->nwin; (*wi)++) {
		const lwin *w = &t->win[*wi];
		if (w->state == W_LIVE && w->null == sl_col_isnull(wc, 0) &&
		    (w->null || (w->start == sl_col_i64(wc->child[0])[0] &&
				 w->end == sl_col_i64(wc->child[1])[0])))
			return 0;
	}
	*wi = -1;
	return 0;
}

static int lt_put(void *impl, const void *key, size_t klen, const void *val,
		  size_t vlen, sl_err *err)
{
	sl_livetab *t = impl;
	uint64_t k[32], h, s;
	uint32_t m;
	int wi, rc, i;
	int64_t id;
	size_t at = 0, used;
	begin_write(t);
	if ((rc = decode_key(t, key, klen, k, &m, &wi, true, err)) < 0)
		return rc;
	h = hash_words(k, t->nw, m, t->runs);
	s = win_find(t, &t->win[wi], h, k, m);
	if (t->win[wi].slots[s] != 0)
		id = (int64_t)(uint32_t)t->win[wi].slots[s] - 1;
	else if ((id = insert(t, wi, k, m, h)) < 0)
		return sl_err_nomem(err);
	if (!(t->fl[id] & FL_TCH)) {
		if (touch_new(t, (int32_t)id) < 0)
			return sl_err_nomem(err);
		if (!(t->fl[id] & FL_NEW))
			stash_run(t, t->dl_n - 1, t->dl_n);
	}
	for (i = 0; i < t->naggs; i++) {
		(void)sl_agg_forget(t->aggs[i], id);
		if ((rc = sl_agg_merge(t->aggs[i], id,
				       (const unsigned char *)val + at,
				       vlen - at, &used, err)) < 0)
			return rc;
		at += used;
	}
	return 0;
}

static int lt_remove(void *impl, const void *key, size_t klen)
{
	sl_livetab *t = impl;
	uint64_t k[32], s;
	uint32_t m;
	int wi;
	int32_t id;
	lwin *w;
	begin_write(t);
	if (decode_key(t, key, klen, k, &m, &wi, false, NULL) < 0 || wi < 0)
		return 0;
	w = &t->win[wi];
	s = win_find(t, w, hash_words(k, t->nw, m, t->runs), k, m);
	if (w->slots[s] == 0)
		return 0;
	id = (int32_t)(uint32_t)w->slots[s] - 1;
	if (t->rmid_n == t->rmid_cap) {
		int64_t c = t->rmid_cap ? 2 * t->rmid_cap : 256;
		if (grow_arr(&t->rmids, 4, c) < 0)
			return SL_ENOMEM;
		t->rmid_cap = c;
	}
	if (rm_key(t, key, klen) < 0)
		return SL_ENOMEM;
	win_remove_slot(w, s);
	t->fl[id] &= (uint8_t)~FL_LIVE;
	t->rmids[t->rmid_n++] = id;
	t->nremoved++;
	return 1;
}

static const sl_state_provider live_pv = {
	.name = "live",
	.version = lt_version,
	.get = NULL,
	.put = lt_put,
	.remove = lt_remove,
	.foreach = lt_foreach,
	.foreach_delta = lt_foreach_delta,
	.write = lt_write,
	.commit = lt_commit,
	.abort = lt_abort,
	.reset = lt_reset,
	.set_version = lt_set_version,
	.num_rows = lt_num_rows,
	.num_updated = lt_num_updated,
	.num_removed = lt_num_removed,
	.memory = lt_memory,
	.free = lt_free,
};
