/*
 * window: the event-time index of stateful operators (win_index.c) and the
 * sliding-window slices of the EXPAND operator (window.c).
 * Engine-internal.
 *
 * A min-heap of (event time, state key) that lets an operator evict the
 * state entries whose compared value (window end, session end, event
 * time) is <= the watermark without scanning its whole store: the
 * evictable entries are the heap's prefix.  Entries may be stale (the key
 * was removed or re-put meanwhile): the operator checks the store when it
 * pops them, so pushing the same key twice is harmless.  After an abort
 * the index is thrown away and rebuilt from the store (sl_win_index_clear
 * then pushes), since the store went back to an older version.
 *
 * Ownership: the index copies the keys.  Keys returned by pop are borrowed
 * until the next push/clear.
 */
#ifndef SL_WINDOW_H
#define SL_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef struct sl_win_index {
	int64_t n, cap;
	struct sl_win_ent *e; /* the heap */
	char *keys;           /* key bytes, back to back */
	size_t klen, kcap, klive;
	bool valid; /* false: rebuild from the store before use */
} sl_win_index;

void sl_win_index_init(sl_win_index *x);
void sl_win_index_release(sl_win_index *x);
/* Empty it (valid again). */
void sl_win_index_clear(sl_win_index *x);
int sl_win_index_push(sl_win_index *x, int64_t t, const void *key, size_t klen,
		      sl_err *err);
/* The smallest entry with time <= limit: removes it and returns true with
 * its time and key (borrowed until the next push). */
bool sl_win_index_pop(sl_win_index *x, int64_t limit, int64_t *t,
		      const void **key, size_t *klen);
/* Smallest time, or INT64_MAX when empty. */
int64_t sl_win_index_min(const sl_win_index *x);

/* Sliding windows by slices (op_stream.c): true when `op` is a streaming
 * aggregate that takes the rows of its sliding-window EXPAND child once
 * each, with the slide-long slice [latest start, + slide) as `window`, and
 * expands its groups into windows itself (every aggregate mergeable, the
 * size a multiple of the slide), or, on the live path (op_stream_live.c),
 * folds each row into each of its windows (any aggregate).  The EXPAND
 * asks its parent per batch. */
struct sl_op;
bool sl_stream_agg_slices(const struct sl_op *op);
/* Which aggregates slice: sl_window_slice_key (plan/plan_int.h). */
/* The groups of hash aggregate `slices` (an AGGREGATE over the EXPAND,
 * fed slices: its key `wkey` is a slice [s, s + slide)) merged into the
 * window groups of hash aggregate `wins` (same plan, empty): each slice
 * group goes into the size/slide windows [s - j*slide, + size) that hold
 * its slice, j = 0.., through the aggregates' partial buffers (agg.h save
 * and merge), so only order-free aggregates give the row-by-row result.
 * Window groups come out in the order expanded rows would make them. */
int sl_window_merge_slices(struct sl_op *wins, const struct sl_op *slices,
			   int wkey, int64_t size, int64_t slide, sl_err *err);

#endif
