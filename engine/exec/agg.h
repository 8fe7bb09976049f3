/*
 * agg: aggregate functions and their per-group state (engine-internal).
 *
 * State lives in plain typed arrays indexed by group id (count int64[],
 * sum int64[] + a "seen a value" byte[], ...), grown as groups appear, so a
 * later state store can save and restore it per group and memory per group
 * stays small (count + sum over an INT key: 8 + 8 + 1 bytes here, plus the
 * key in the group table).  Updates are a typed loop over (group id, value)
 * pairs per batch, never a per-row call through a function pointer.
 *
 * Semantics (Spark 3.5): count(*) counts rows, count(x, ...) rows where no
 * argument is NULL; sum of INT/BIGINT is BIGINT (wrapping on overflow, as
 * non-ANSI Spark), of DOUBLE (and STRING, cast) DOUBLE, NULLs ignored, NULL
 * for a group without a value; avg is DOUBLE; min/max on every orderable
 * primitive (numbers, strings bytewise, timestamps, booleans; NaN is the
 * largest double); first/last keep the first/last value seen including
 * NULLs (ignoreNulls=false); collect_list skips NULLs.
 * approx_count_distinct: HyperLogLog++ as Spark's (XXH64 seed 42, p from
 * rsd: p = ceil(2 log2(1.106 / rsd)), 9 for the default 0.05; linear
 * counting below Spark's threshold, so small cardinalities are exact in
 * practice); the empirical bias-correction table of HLL++ is NOT applied,
 * so mid-range estimates (about 2.5m..5m distinct values) can differ from
 * Spark's.  DISTINCT (count(DISTINCT x), sum(DISTINCT x), ...) is exact:
 * a set of (group, value) pairs filters each value's first occurrence.
 *
 * Ownership: an sl_agg owns its state; argument columns are borrowed.
 */
#ifndef SL_AGG_H
#define SL_AGG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/col.h"
#include "core/err.h"
#include "core/type.h"

typedef struct sl_agg sl_agg;

/* The names and result types of the functions: expr/aggfunc.h. */

/* New state for fname (canonical) over argtypes; count_rows for count(*).
 * rsd is approx_count_distinct's relative standard deviation. */
sl_agg *sl_agg_new(const char *fname, bool distinct, bool count_rows,
		   sl_type *const *argtypes, int nargs, double rsd,
		   sl_err *err);
void sl_agg_free(sl_agg *a);

/* Fold n rows into the state: row i belongs to group gids[i] (all
 * < ngroups); args[0..nargs) are the evaluated arguments. */
int sl_agg_update(sl_agg *a, const int32_t *gids, int64_t n, int64_t ngroups,
		  sl_col *const *args, sl_err *err);
/* Result column for groups [from, from + n) (groups never updated give
 * the empty-input value: 0 for count, NULL for the others). */
sl_col *sl_agg_result(sl_agg *a, int64_t from, int64_t n, sl_err *err);
/* Back to the state of a new sl_agg, keeping the arrays, when groups
 * [n, cap) were never touched; false (nothing done) for aggregates that
 * keep strings, lists or DISTINCT sets: make a new one then. */
bool sl_agg_clear(sl_agg *a, int64_t n);
/* Group g back to the state of a group never updated (a streaming live
 * table reuses the ids of evicted groups, exec/livetab.c); false (nothing
 * done) for the aggregates sl_agg_clear refuses. */
bool sl_agg_forget(sl_agg *a, int64_t g);
/* sl_agg_forget of groups ids[0..n) (ids < 0 skipped), the kind checked
 * once (a whole evicted window's ids at once). */
bool sl_agg_forget_many(sl_agg *a, const int32_t *ids, int64_t n);
/* Group g's state as it is in memory, for an undo log (exec/livetab.c):
 * sl_agg_stash_size(a) bytes (0: not this aggregate, use sl_agg_save_raw
 * and sl_agg_merge), copied out by sl_agg_stash and back by
 * sl_agg_unstash (group g must exist: sl_agg_reserve). */
size_t sl_agg_stash_size(const sl_agg *a);
void sl_agg_stash(const sl_agg *a, int64_t g, unsigned char *p);
/* sl_agg_stash of groups g[0..n) into p + i * stride: one call a batch. */
void sl_agg_stash_many(const sl_agg *a, const int32_t *g, int64_t n,
		       unsigned char *p, size_t stride);
void sl_agg_unstash(sl_agg *a, int64_t g, const unsigned char *p);
/* Keep a's per-group arrays in mappings of their own (core/bigarr.h):
 * for state that lives across batches (exec/livetab.c), whose capacity
 * then costs no memory until used and goes back to the kernel when
 * freed.  Only before a's first growth (else nothing done). */
void sl_agg_set_big(sl_agg *a);
/* Bytes of state held. */
size_t sl_agg_bytes(const sl_agg *a);

/* ---- streaming: aggregation buffers in a state store ----
 * The buffer of one group serialised (native byte order, never compared):
 * count: varint; sum: has byte [+ zigzag varint for integers, or double];
 * avg: double sum + varint count; min/max: has byte [+ value]; first/last:
 * flags byte (has, null) [+ value]; approx_count_distinct: its 2^p
 * registers.  A kept string is a uint32 length then its bytes.  collect_list and DISTINCT aggregates
 * have no streaming buffer (SL_EANALYSIS from sl_agg_save). */
bool sl_agg_streamable(const sl_agg *a);
/* Append group g's buffer to out. */
int sl_agg_save(const sl_agg *a, int64_t g, sl_buf *out, sl_err *err);
/* The most bytes sl_agg_save appends for one group when that is bounded
 * and small (count, sum, avg, min/max/first/last of fixed-width values),
 * else 0. */
size_t sl_agg_save_max(const sl_agg *a);
/* sl_agg_save of group g into p, which has room for sl_agg_save_max(a)
 * (> 0) bytes; returns the bytes written (the same bytes). */
size_t sl_agg_save_raw(const sl_agg *a, int64_t g, unsigned char *p);
/* sl_agg_save_raw of group g of a[0..n), one after another into p (a
 * state value: its aggregates' buffers in order); returns the bytes. */
size_t sl_aggs_save_raw(sl_agg *const *a, int n, int64_t g, unsigned char *p);
/* Merge a saved buffer at p[0..n) into group g: the saved one holds rows
 * that came BEFORE the group's current rows (first keeps it, last keeps
 * the current value when there is one).  Merging into a group never
 * updated loads it.  *used = bytes read. */
int sl_agg_merge(sl_agg *a, int64_t g, const void *p, size_t n, size_t *used,
		 sl_err *err);
/* Make room for groups [0, ngroups) (sl_agg_merge_raw needs it). */
int sl_agg_reserve(sl_agg *a, int64_t ngroups, sl_err *err);
/* sl_agg_merge then sl_agg_save_raw of group g in one step (the merge
 * of a micro-batch's groups into the state store): for an aggregate
 * with sl_agg_save_max(a) > 0 and room for group g (sl_agg_reserve).
 * Returns the bytes written to out, or an error (damaged buffer). */
int sl_agg_merge_raw(sl_agg *a, int64_t g, const unsigned char *p, size_t n,
		     size_t *used, unsigned char *out, sl_err *err);

/* ---- reading a stored buffer back (driver/state_read.c) ----
 * The fields of a's buffer as Spark's aggBufferAttributes name them: 2
 * for avg (sum DOUBLE, count BIGINT), first/last (the value, valueSet
 * BOOLEAN) and min_by/max_by (valueWithExtremumOrdering,
 * extremumOrdering), else 1 (count, sum, min, max, approx's registers
 * BINARY). */
int sl_agg_buffer_nfields(const sl_agg *a);
/* Decode one group's saved buffer p[0..n) (*used = bytes read): its
 * buffer fields into f[0..sl_agg_buffer_nfields) at row (f may be NULL),
 * and its result (what the query emits for the group: avg's sum / count,
 * approx's estimate) into res at row (res may be NULL).  The columns are
 * borrowed and long enough; strings are copied.  Uses group 0 of a as
 * scratch: a is a decoder's own sl_agg, never a query's. */
int sl_agg_decode(sl_agg *a, const void *p, size_t n, size_t *used,
		  sl_col *const *f, sl_col *res, int64_t row, sl_err *err);
/* The type of the results (borrowed). */
const sl_type *sl_agg_result_type(const sl_agg *a);

#endif
