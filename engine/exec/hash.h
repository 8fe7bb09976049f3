/*
 * hash: hashing key columns a batch at a time, and the group table that
 * maps keys to dense group ids (0, 1, 2, ... in first-seen order).
 *
 * The group table is shared by aggregation (group ids index the aggregate
 * state arrays), joins (the build side's rows by key) and dropDuplicates
 * (a row is new when its key got a new id).  Keys are stored once per
 * group, column-wise in typed arrays (struct keys are flattened into their
 * fields, strings are copied into the table's own arena), or, for keys of
 * 2..32 integer-like or string leaves in at most 4 words (window struct +
 * product_id, a string of up to 15 bytes taking 2), packed as 64-bit words
 * per group and probed a chunk of rows at a time (hash.c explains both;
 * a longer string moves a table to the first layout until it is cleared,
 * keeping every id), so the table never points into a batch and can
 * outlive every batch (streaming state).
 *
 * Key semantics are Spark's grouping semantics: NULL is a key of its own
 * (NULL = NULL here), -0.0 = 0.0 and every NaN is one key.  Joins ask
 * for rows with a NULL key to be left out instead (NULL never joins).
 *
 * Ownership: the table is owned by its creator; columns passed in are
 * borrowed; key columns handed out are new references.
 *
 * Files: hash.c (the group table), hash_key.c (the state key encoding),
 * hash_xxh64.c (XXH64).
 */
#ifndef SL_HASH_H
#define SL_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/col.h"
#include "core/err.h"
#include "core/type.h"

typedef struct sl_hash_groups sl_hash_groups;

/* A table for keys of types[0..nkeys) (borrowed; the table keeps
 * references).  ARRAY keys are compared by their JSON text and cannot be
 * handed back by sl_hash_groups_key. */
sl_hash_groups *sl_hash_groups_new(sl_type *const *types, int nkeys,
				   sl_err *err);
void sl_hash_groups_free(sl_hash_groups *t);
/* Forget every group, keeping the table's capacity (a micro-batch's
 * table reused by the next one).  SL_ENOMEM leaves it unchanged. */
int sl_hash_groups_clear(sl_hash_groups *t);
/* Number of groups so far. */
int64_t sl_hash_groups_count(const sl_hash_groups *t);

/* For each of the n rows of cols[0..nkeys), find or add its key:
 * gids[i] = group id.  New ids are handed out in row order.  With
 * skip_nulls, rows having a NULL in any key are not added (gid -1). */
int sl_hash_groups_insert(sl_hash_groups *t, sl_col *const *cols, int64_t n,
			  bool skip_nulls, int32_t *gids, sl_err *err);
/* Look up only: gids[i] = group id or -1 (rows with a NULL key part are
 * -1 when skip_nulls). */
int sl_hash_groups_find(sl_hash_groups *t, sl_col *const *cols, int64_t n,
			bool skip_nulls, int32_t *gids, sl_err *err);

/* Key column k of groups [from, from + n): a new column. */
sl_col *sl_hash_groups_key(const sl_hash_groups *t, int k, int64_t from,
			   int64_t n, sl_err *err);
/* Bytes held (memory accounting, state metrics). */
size_t sl_hash_groups_bytes(const sl_hash_groups *t);

/* Which types can be keys: sl_type_keyable (core/type.h). */

/* State store keys (streaming aggregation, dropDuplicates): row `row` of
 * key columns cols[0..n) as bytes appended to out, such that memcmp order
 * of two encodings is Spark's ascending order of the rows, NULLs first
 * (per value: a flag byte, 0 NULL / 1 present; integers and timestamps
 * big-endian with the sign bit flipped; doubles by their order-preserving
 * bits, -0.0 = 0.0 and one NaN above everything, as grouping; strings with
 * each 0x00 written 00 FF and ended by 00 01; a STRUCT's flag then its
 * fields).  ARRAY columns are not keys (sl_type_keyable). */
void sl_hash_key_encode(sl_col *const *cols, int n, int64_t row, sl_buf *out);
/* sl_hash_key_encode of rows [0, n) of cols[0..ncols), appended to out:
 * row i's key is out->p[off[i] .. off[i + 1]) (off has n + 1 entries).
 * Keys of fixed-width types (BOOLEAN, INT, BIGINT, TIMESTAMP, DOUBLE and
 * STRUCTs of them) without NULLs are written a column at a time.
 * SL_ENOMEM (out failed). */
int sl_hash_keys_encode(sl_col *const *cols, int ncols, int64_t n, sl_buf *out,
			int64_t *off);
/* The same for the keys of groups [from, from + n) of t, read from the
 * table itself when it packs them (no key columns are made). */
int sl_hash_groups_encode(const sl_hash_groups *t, int64_t from, int64_t n,
			  sl_buf *out, int64_t *off, sl_err *err);
/* Decode one key from p[0..len) into row `row` of cols[0..n) (made with
 * sl_col_new over the key types, long enough); *used = bytes read.
 * SL_EINTERNAL on bytes that are not a key of these types. */
int sl_hash_key_decode(sl_col *const *cols, int n, int64_t row, const void *p,
		       size_t len, size_t *used, sl_err *err);

/* XXH64 of p[0..n) with seed, bit-exact with the reference (Spark's
 * XxHash64, used by approx_count_distinct). */
uint64_t sl_hash_xxh64(const void *p, size_t n, uint64_t seed);

/* MurmurHash3's 64-bit finalizer: the word hashes of the group table
 * (hash.c) and of the live table (livetab.c) end with it. */
static inline uint64_t sl_hash_mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

#endif
