/*
 * state: a versioned key/value state store, one per stateful operator
 * (Spark's StateStore).  Keys and values are opaque byte strings that the
 * operator encodes (group key -> aggregation buffers, dedup key -> event
 * time, ...), so the checkpoint can persist every operator the same way.
 *
 * Versions: version 0 is empty.  Every micro-batch works on version V+1:
 * reads see the batch's own uncommitted writes; sl_state_commit makes them
 * version V+1; sl_state_abort throws them away and the store is exactly
 * version V again (a failed batch re-runs on the state it started from).
 * The changes of the last committed version (the "delta": puts and
 * removes) stay readable until the next put/remove, for the checkpoint.
 *
 * Layout: open addressing over 8-byte slots (32-bit hash, entry offset);
 * entries (key length and version tag, value length, key bytes, value
 * bytes, 8-byte aligned) live in a bump heap that is compacted when half
 * of it is garbage.  About 11-21 + 8 + key + value bytes per live entry at
 * 37-75% load; see BENCH.md's 64-byte target.  Keys up to 16 MiB.
 *
 * Hot loops (a micro-batch's groups) hash each key once (sl_state_hash),
 * prefetch a few keys ahead (sl_state_prefetch, then
 * sl_state_prefetch_entry once the slot is in cache), and look a key up
 * once with sl_state_find, whose position put_at/remove_at reuse.
 *
 * Ownership: the store copies keys and values.  Pointers returned by get
 * and iteration are borrowed and valid until the next put/remove/commit/
 * abort.  Never prints; out of memory is SL_ENOMEM and leaves the store
 * unchanged.
 */
#ifndef SL_STATE_H
#define SL_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

typedef struct sl_state sl_state;

sl_state *sl_state_new(void);
void sl_state_free(sl_state *s);

/* Last committed version (0 before the first commit). */
int64_t sl_state_version(const sl_state *s);

/* Value of key, or NULL. */
const void *sl_state_get(sl_state *s, const void *key, size_t klen,
			 size_t *vlen);
/* Copies key and value.  The key must not point into the store; the value
 * may (a value just read with get). */
int sl_state_put(sl_state *s, const void *key, size_t klen, const void *val,
		 size_t vlen, sl_err *err);
/* Returns 1 if the key was there, 0 if not, SL_ENOMEM. */
int sl_state_remove(sl_state *s, const void *key, size_t klen);

/* Lookups by position.  sl_state_hash(key, klen) is the hash the _find,
 * _prefetch functions take.  sl_state_find is sl_state_get that also
 * fills *pos (the key's slot, or where it would go); sl_state_put_at and
 * sl_state_remove_at with the same key then skip the search.  A position
 * stays usable across any change (after one that moved slots the key is
 * searched again), but only for the key it was found with. */
typedef struct sl_state_pos {
	uint64_t hash, slot, mods;
} sl_state_pos;
uint64_t sl_state_hash(const void *key, size_t klen);
const void *sl_state_find(sl_state *s, uint64_t hash, const void *key,
			  size_t klen, size_t *vlen, sl_state_pos *pos);
int sl_state_put_at(sl_state *s, const sl_state_pos *pos, const void *key,
		    size_t klen, const void *val, size_t vlen, sl_err *err);
int sl_state_remove_at(sl_state *s, const sl_state_pos *pos, const void *key,
		       size_t klen);
/* Cache hints for a coming find of hash: the slot, then (once the slot
 * is cached) the entry.  No effect on the contents. */
void sl_state_prefetch(const sl_state *s, uint64_t hash);
void sl_state_prefetch_entry(const sl_state *s, uint64_t hash);

/* Calls fn for every live entry (unspecified order: heap order, not key
 * or insertion order) until fn returns
 * nonzero, which is then returned.  fn must not modify the store; collect
 * keys and remove afterwards (or use sl_state_remove_if). */
typedef int (*sl_state_fn)(void *ud, const void *key, size_t klen,
			   const void *val, size_t vlen);
int sl_state_foreach(sl_state *s, sl_state_fn fn, void *ud);
/* Remove every entry for which pred returns nonzero; calls on_remove (may
 * be NULL) with the entry first.  Returns the number removed or an error. */
int64_t sl_state_remove_if(sl_state *s, sl_state_fn pred, void *pred_ud,
			   sl_state_fn on_remove, void *rm_ud, sl_err *err);

/* Make the pending changes version+1. */
int sl_state_commit(sl_state *s, sl_err *err);
/* Forget the pending changes. */
void sl_state_abort(sl_state *s);

/* The delta: the changes of the pending version if it has any, else of
 * the last commit (empty after an abort of a changed version, a reset or
 * set_version).  First fn(ud, key, klen, NULL, 0) per remove (val NULL
 * means removed), then fn(ud, key, klen, val, vlen) per put with the
 * current value; a key removed and put again in the version has both, so
 * apply the records in order.  Costs a scan of the heap, or, when the
 * version changed at most a quarter of the entries, a sort of their
 * offsets (the same records in the same order). */
int sl_state_foreach_delta(sl_state *s, sl_state_fn fn, void *ud);
/* Replace everything with no entries at version v (loading a checkpoint
 * starts here, then puts, then sl_state_set_version). */
void sl_state_reset(sl_state *s, int64_t v);
void sl_state_set_version(sl_state *s, int64_t v);

/* Metrics for progress (numRowsTotal, numRowsUpdated, numRowsRemoved,
 * memoryUsedBytes): live rows; puts / removes of the pending version (reset
 * by commit and abort, so read them before committing). */
int64_t sl_state_num_rows(const sl_state *s);
int64_t sl_state_num_updated(const sl_state *s);
int64_t sl_state_num_removed(const sl_state *s);
size_t sl_state_memory(const sl_state *s);

/* ---- records ----
 * A store's contents as the records of a state file (state/ckpt_state.c
 * writes and reads them), front-coded as state/front.h lays them out:
 * each key as the bytes it shares with the previous record's key and
 * the rest, then the value (or a remove's mark).  A sink takes them:
 * they are appended to b (room reserved by the writer), each coded
 * against prev, the last key written (empty before the first; the
 * writer leaves it holding its last key: a store may code its records
 * from its own words and fill prev only at its end), and whenever
 * b->len reaches limit, spill(ud) runs, which takes bytes off b's front
 * (it may leave part of a record there; it may be NULL with limit
 * SIZE_MAX).  Out of memory is b's or prev's (sticky). */
typedef struct sl_state_sink {
	sl_buf *b;
	size_t limit;
	void (*spill)(void *ud);
	void *ud;
	sl_buf prev; /* the sink's owner inits and releases it */
} sl_state_sink;
/* The records of sl_state_foreach (full) or of sl_state_foreach_delta
 * (!full: its removes, then its puts), the same records in the same
 * order, into k.  A provider with a writer (write below) makes them
 * itself, the rest go through foreach / foreach_delta a record a call.
 * Returns 0 or SL_ENOMEM (then b has failed). */
int sl_state_write(sl_state *s, bool full, sl_state_sink *k);

/* ---- providers ----
 * A store is the byte store above or a provider: another implementation
 * of the calls made on a whole store (Spark's StateStoreProvider: the
 * HDFS-backed store and RocksDB behind the same StateStore calls).  The
 * checkpoint (ckpt_state.c), the driver's metrics and commit/abort
 * (query_batch.c, exec_stream.c) use the sl_state_* calls below and never
 * learn which one serves them: version, put / remove (loading a
 * checkpoint), foreach (snapshots, Complete mode), foreach_delta, write
 * (state files), commit, abort, reset, set_version, num_rows / num_updated /
 * num_removed, memory, with the contracts written above.  get may be
 * NULL (sl_state_get then finds nothing).  The positioned calls (find,
 * put_at, remove_at, prefetch, remove_if) are the byte store's own and
 * must not be made on a provider's store.  The byte store is itself
 * served through this table (sl_state_new).  exec/livetab.h is the other
 * provider: a streaming aggregation's typed live table. */
typedef struct sl_state_provider {
	const char *name; /* "bytes", "live" */
	int64_t (*version)(const void *impl);
	const void *(*get)(void *impl, const void *key, size_t klen,
			   size_t *vlen);
	int (*put)(void *impl, const void *key, size_t klen, const void *val,
		   size_t vlen, sl_err *err);
	int (*remove)(void *impl, const void *key, size_t klen);
	int (*foreach)(void *impl, sl_state_fn fn, void *ud);
	int (*foreach_delta)(void *impl, sl_state_fn fn, void *ud);
	/* sl_state_write's records made directly (NULL: through foreach /
	 * foreach_delta, a callback a record) */
	int (*write)(void *impl, bool full, sl_state_sink *k);
	int (*commit)(void *impl, sl_err *err);
	void (*abort)(void *impl);
	void (*reset)(void *impl, int64_t v);
	void (*set_version)(void *impl, int64_t v);
	int64_t (*num_rows)(const void *impl);
	int64_t (*num_updated)(const void *impl);
	int64_t (*num_removed)(const void *impl);
	size_t (*memory)(const void *impl);
	void (*free)(void *impl);
} sl_state_provider;

/* A store served by pv (borrowed, static) over impl, whose ownership it
 * takes (pv->free(impl) at sl_state_free; also when this fails: NULL). */
sl_state *sl_state_new_provider(const sl_state_provider *pv, void *impl);
/* The provider serving s (the byte store's is named "bytes"). */
const sl_state_provider *sl_state_provider_of(const sl_state *s);
/* The provider's impl (borrowed), or NULL for the byte store. */
void *sl_state_impl(const sl_state *s);

#endif
