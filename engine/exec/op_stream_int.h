/*
 * op_stream_int: what the two files of the streaming aggregate share
 * (op_stream.c, the operator; op_stream_evict.c, its eviction by the
 * watermark).  Engine-internal: included by those two files only.
 */
#ifndef SL_OP_STREAM_INT_H
#define SL_OP_STREAM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "exec/exec.h"
#include "exec/hash.h"
#include "exec/livetab.h"
#include "exec/window.h"

typedef struct saggst {
	sl_op_stateful sf;
	sl_stream_ctx *ctx;
	sl_op *part;     /* this micro-batch's hash aggregate, or NULL */
	sl_col **kc;     /* its key columns, during the merge */
	sl_buf kb, vb;   /* scratch */
	int64_t ngroups; /* the batch's groups (of part), during the merge */
	sl_buf keys;     /* encoded keys of the batch's groups, back to back */
	int64_t *koff;   /* group g's key at keys.p + koff[g] .. koff[g+1] */
	uint64_t *khash; /* its sl_state_hash */
	int64_t kcap;
	sl_agg_et et;    /* how a group compares with the watermark */
	bool evicts;     /* watermarked and not Complete mode */
	bool late_rows;  /* this batch had late rows: its late groups are
			    found (and skipped) at the merge */
	int64_t nlate;   /* late groups of the batch (glate) */
	int64_t logged;  /* late rows logged this batch */
	sl_win_index ix; /* compared value -> key, for eviction */
	/* Windows (WCOL/WCALL keys) evict by a scan of the store instead:
	 * a window's groups share one end, so only the distinct ends of the
	 * live entries are kept (ends; ix.valid says whether they are
	 * known), and the batch that passes the smallest removes every entry
	 * due in one pass (sl_state_remove_if).  The index's copy of every
	 * key (24 + key bytes per group, doubling arrays) was a fifth of
	 * W1-1M's RSS.  With more than SCAN_ENDS open windows (short windows
	 * under a long delay) a pass would read many entries per one removed:
	 * the operator goes over to the index for good (sl_sagg_note_end). */
	bool scan_evict;
	int nends;
	int64_t ends[16];
	int64_t last_evict_us; /* the watermark of the last eviction */
	uint8_t *isnew; /* group g was not in the store before the merge */
	uint8_t *glate; /* group g is late: dropped, not merged */
	sl_op *spare;   /* the last batch's part, emptied */
	/* Sliding windows by slices (sl_stream_agg_slices): part aggregates
	 * the batch by slice, then its groups go into window groups */
	bool slicing;
	int wkey;              /* the window key */
	int64_t wsize, wslide; /* the window's size and slide */
	sl_op *wspare;         /* a spare part for the window groups */
	/* The live path's slices (op_stream_live.c): the EXPAND hands each
	 * row once with its slice, as for slicing, and the live table folds
	 * it into each of its windows, row by row (any aggregate); wkey,
	 * wsize, wslide as above.  rowslice: the plan allows it (not yet
	 * taken). */
	bool rowslice, rowslices;
	/* The live path (op_stream_live.c): the store is a typed live table
	 * the rows probe once each; part, keys, ix stay unused.  late holds
	 * the batch's late groups (counted, numRowsDroppedByWatermark). */
	sl_livetab *live;     /* borrowed from sf.store, or NULL */
	sl_hash_groups *late; /* the batch's late groups, or NULL */
	int32_t *gids;        /* a pushed batch's entries */
	int64_t gcap;
	int64_t *prow; /* rowslices: each (row, window) pair's row */
	int64_t prcap;
} saggst;

/* A store entry (key and buffer bytes, borrowed from the store or the
 * batch's encoded keys) and its group or position. */
typedef struct kent {
	const unsigned char *k, *v;
	size_t klen, vlen;
	int64_t g;
} kent;

/* A growable list of entries. */
typedef struct kents {
	int64_t n, cap;
	kent *e;
} kents;

/* How many groups ahead the merge (and the eviction) prefetches a group's
 * entry; its slot is prefetched twice as far ahead.  The lookups of a
 * batch's groups are independent, so their cache misses overlap. */
#define MERGE_AHEAD 8

/* ---- op_stream.c ---- */
/* Append an entry (borrowed bytes); SL_ENOMEM. */
int sl_sagg_kents_add(kents *l, const void *key, size_t klen, const void *val,
		      size_t vlen);
/* Order of entries by key bytes (qsort): the ascending key order. */
int sl_sagg_kent_cmp(const void *a, const void *b);
/* Free columns c[0..n) and the array (c may be NULL). */
void sl_sagg_free_cols(sl_col **c, int n);
/* The compared value of row r of key columns kc, or false for NULL. */
bool sl_sagg_key_time(const saggst *st, sl_col *const *kc, int64_t r,
		      int64_t *t);
/* Entries e[0..n) decoded into output rows (keys, then the aggregates'
 * results). */
sl_batch *sl_sagg_decode_rows(sl_op *op, const kent *e, int64_t n, sl_err *err);

/* The late-row helpers of the push (op_stream.c) the live path shares:
 * the compared value of every row and whether it is late; the smallest
 * compared value of a batch (or a bound below it: a test for "no row is
 * late" only); the late log; fresh aggregates of p. */
int64_t sl_sagg_row_times(const saggst *st, const sl_batch *in, int64_t wm,
			  int64_t *v, uint8_t *late);
int64_t sl_sagg_min_time(const saggst *st, const sl_batch *in);
void sl_sagg_log_late_rows(sl_op *op, const sl_batch *in, const int64_t *v,
			   const uint8_t *late);
sl_agg **sl_sagg_new_aggs(const sl_plan *p, sl_err *err);

/* ---- op_stream_live.c ---- */
/* Put the operator on the live path when its plan is eligible and the
 * test switch STREAMLAB_STATE_PROVIDER=bytes does not ask for the byte
 * store: its store becomes a livetab's.  0 (also when not eligible) or
 * an error. */
int sl_sagg_live_setup(sl_op *op, sl_err *err);
/* One input batch: late rows counted and logged, the others probed into
 * the table and folded into its aggregates. */
int sl_sagg_live_push(sl_op *op, sl_batch *in, sl_err *err);
/* End of the batch: feed events, output by mode (*o, may stay NULL),
 * eviction. */
int sl_sagg_live_finish(sl_op *op, sl_batch **o, sl_err *err);
/* Forget the batch's late groups. */
void sl_sagg_live_clear(saggst *st);

/* ---- op_stream_evict.c ---- */
/* Feed events (word: EMITTED, EVICTED) for rows o evicted. */
void sl_sagg_feed_evicted(sl_op *op, const sl_batch *o, const char *word);
/* Rows o (taken; may be NULL) evicted: their feed events, EMITTED when
 * they are the Append output *out (out not NULL), else EVICTED, freed. */
void sl_sagg_evicted_out(sl_op *op, sl_batch *o, sl_batch **out);
#define SCAN_ENDS 16
/* Note a live entry's window end t in st->ends; past SCAN_ENDS distinct
 * ends scan_evict is turned off and the index marked for a rebuild. */
void sl_sagg_note_end(saggst *st, int64_t t);
/* Whether the plan's keys allow scan_evict (entry times read from the
 * key bytes: fixed-width or string keys before a window struct). */
bool sl_sagg_can_scan(const saggst *st, const sl_plan *p);
/* The compared value (window end) of an encoded key, or false (NULL
 * window or end). */
bool sl_sagg_entry_time(const sl_op *op, const void *key, size_t klen,
			int64_t *t);
/* Build st->ix from the store (after a restore or an abort). */
int sl_sagg_rebuild_index(sl_op *op, sl_err *err);
/* Remove the entries the eviction watermark closes; with out (append
 * mode) also emit them as *out (NULL when none). */
int sl_sagg_evict(sl_op *op, sl_batch **out, sl_err *err);

#endif
