/*
 * livetab: the typed live table of a streaming aggregation, a state store
 * provider (state/state.h) the aggregation's rows probe once each.
 *
 * Eligible aggregations (sl_livetab_eligible): the group key is a time
 * window (a STRUCT<start, end> of TIMESTAMPs, the event-time key) and
 * fixed-width columns (BOOLEAN, INT, DATE, BIGINT, TIMESTAMP, DOUBLE;
 * NULLs allowed); every aggregate keeps a small fixed buffer
 * (sl_agg_save_max > 0, sl_agg_stash_size > 0, sl_agg_forget works:
 * count, sum, avg, min,
 * max, first, last of fixed-width values).  Everything else stays on the
 * byte store.
 *
 * Layout: one hash table per open window (the window is a descriptor,
 * not key words: a row names it by its start and end once, then probes
 * one table with the other columns' words), whose slots hold entry ids.
 * An entry id is a group id of the table's own sl_agg objects (agg.h),
 * so a batch folds its rows with sl_agg_update over the ids the probe
 * handed out: no batch-local aggregate, no merge.  Ids of evicted or
 * removed entries are reused (sl_agg_forget).
 *
 * Versions, exactly as the byte store (state.h): the first touch of an
 * entry in the pending version logs its buffer (sl_agg_save_raw bytes);
 * abort puts the logged buffers back, removes the entries the version
 * inserted, and reinstates what it evicted or removed.  The delta is
 * the entries the version dirtied (a list, no scan) and the keys it
 * removed; keys are encoded (sl_hash_keys_encode, the byte store's key
 * bytes) only for those, or for a snapshot, and values are the bytes
 * sl_agg_save_raw gives, so checkpoint files hold the same records as
 * the byte store writes for the same batches; the provider's write
 * (sl_state_write) codes them (state/front.h) straight into the state
 * file's buffer, a window + one-word key from its words without making
 * its bytes.  Their ORDER differs (the
 * byte store lists heap order, this table window then first-touch
 * order): readers apply records by key, and a version's removes come
 * before its puts in both.
 *
 * Ownership: the table owns its aggregates and copies every key; key
 * columns passed in are borrowed.  Never prints; out of memory is
 * SL_ENOMEM.
 */
#ifndef SL_LIVETAB_H
#define SL_LIVETAB_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/col.h"
#include "core/err.h"
#include "core/type.h"
#include "exec/agg.h"
#include "state/state.h"

typedef struct sl_livetab sl_livetab;

/* Whether keys types[0..nkeys) (types[wkey] the window) and aggregates
 * aggs[0..naggs) can live in a table (see the top). */
bool sl_livetab_eligible(sl_type *const *types, int nkeys, int wkey,
			 sl_agg *const *aggs, int naggs);
/* A table for eligible keys (the types borrowed: they must outlive it;
 * the array is copied) over
 * aggregates aggs[0..naggs), whose ownership it takes (the array too:
 * malloc'd; freed by the table, also when this fails). */
sl_livetab *sl_livetab_new(sl_type *const *types, int nkeys, int wkey,
			   sl_agg **aggs, int naggs, sl_err *err);
/* The store serving t (state.h's calls; the store owns t). */
sl_state *sl_livetab_store(sl_livetab *t);

/* Rows [0, n) of key columns cols[0..nkeys): gids[i] = the entry of row
 * i, inserted when new, dirtied in the pending version (its buffer
 * logged at its first touch).  The caller then folds the rows into
 * sl_livetab_aggs with ngroups sl_livetab_cap. */
int sl_livetab_probe(sl_livetab *t, sl_col *const *cols, int64_t n,
		     int32_t *gids, sl_err *err);
/* A sliding window's rows taken once each: cols[wkey] holds each row's
 * slice (its start is the row's latest window start s; no NULLs), and
 * the row belongs to the k windows [s - j*slide, + size), j = 0..k-1
 * (k <= 64), of which it is folded into the first cnt[i] (cnt NULL: all
 * k; the others are late).  The row's key words and hash are made once
 * and each window's table probed with them.  gids[0..*m) = the entries
 * of the (row, window) pairs in the order the window EXPAND emits them
 * (rows in order, each row's latest window first); room for n * k. */
int sl_livetab_probe_slices(sl_livetab *t, sl_col *const *cols, int64_t n,
			    int k, int64_t slide, int64_t size,
			    const int32_t *cnt, int32_t *gids, int64_t *m,
			    sl_err *err);
sl_agg **sl_livetab_aggs(sl_livetab *t);
int64_t sl_livetab_cap(const sl_livetab *t);

/* The entries the pending version dirtied, in first-touch order
 * (borrowed, valid until the next probe); whether entry id is new in it. */
const int32_t *sl_livetab_dirty(const sl_livetab *t, int64_t *n);
bool sl_livetab_is_new(const sl_livetab *t, int32_t id);
/* Keys of entries ids[0..n) as sl_hash_keys_encode writes them (key i
 * at out->p[off[i] .. off[i + 1])), and entry id's buffer into p (room
 * for sl_livetab_vmax bytes; returns its length). */
int sl_livetab_encode(sl_livetab *t, const int32_t *ids, int64_t n, sl_buf *out,
		      int64_t *off, sl_err *err);
size_t sl_livetab_value(const sl_livetab *t, int32_t id, unsigned char *p);
size_t sl_livetab_vmax(const sl_livetab *t);

/* Evict, in the pending version, every open window for which
 * due(ud, start, end) holds (a NULL window never): fn(fud, key, klen,
 * val, vlen) for each of its entries (unordered; fn may be NULL; the
 * bytes are scratch), then the window leaves whole.  Returns the
 * entries removed or an error.  The evicted entries stay readable
 * (sl_livetab_evicted, sl_livetab_rows) until the pending version ends;
 * their keys are the delta's removes, encoded when it is read. */
typedef bool (*sl_livetab_due)(void *ud, int64_t start, int64_t end);
int64_t sl_livetab_evict(sl_livetab *t, sl_livetab_due due, void *ud,
			 sl_state_fn fn, void *fud, sl_err *err);
/* The entries the pending version evicted, n of them (what its
 * sl_livetab_evict calls returned, summed), into ids[0..n) in the order
 * of their encoded keys (sl_hash_keys_encode's bytes, as memcmp orders
 * them): no key is encoded for the common table (window + one column). */
int sl_livetab_evicted(sl_livetab *t, int32_t *ids, int64_t n, sl_err *err);
/* Entries ids[0..n) as rows: kc[0..nkeys) new key columns of the
 * table's key types (NULL after an error), and groups [0, n) of aggs
 * (fresh sl_agg objects of the table's aggregates, the caller's) set to
 * the entries' buffers, so sl_agg_result gives their results.  kc or
 * aggs may be NULL (not made). */
int sl_livetab_rows(sl_livetab *t, const int32_t *ids, int64_t n, sl_col **kc,
		    sl_agg **aggs, sl_err *err);
/* The smallest end of an open (non-NULL) window, or INT64_MAX. */
int64_t sl_livetab_min_end(const sl_livetab *t);
/* The windows' slot arrays the table took, ever: *fresh from memory,
 * *reused from the arrays of windows that left. */
void sl_livetab_slot_arrays(const sl_livetab *t, int64_t *fresh,
			    int64_t *reused);

#endif
