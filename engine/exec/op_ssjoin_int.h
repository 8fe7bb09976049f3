/*
 * op_ssjoin_int: the stream-stream join's operator state, shared by
 * op_ssjoin.c (the join) and op_ssjoin_ix.c (its index of held rows).
 * Never include from outside those two files.
 *
 * The index maps side byte ++ encoded join key to the row numbers held
 * under it.  It is a cache derived from the state store (which has no
 * prefix scan): rebuilt from the store when marked stale (after an abort,
 * or when an index insert ran out of memory).
 */
#ifndef SL_OP_SSJOIN_INT_H
#define SL_OP_SSJOIN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "exec/exec.h"

typedef struct jside {
	int nconj; /* conjuncts over this side only */
	const sl_expr **conj;
} jside;

/* The index: side ++ encoded key -> the row numbers held. */
typedef struct ixent {
	uint64_t h;
	char *key;
	size_t klen;
	int64_t *seq;
	int32_t n, cap;
	int64_t stamp, dbase; /* decoded rows of this push */
} ixent;

typedef struct ssjoinst {
	sl_op_stateful sf;
	sl_stream_ctx *ctx;
	sl_join_type jt;
	size_t hdr; /* value header: 8 (inner), 9 (with the matched byte) */
	sl_join_wm wm;
	jside side[2];
	int nboth;
	const sl_expr **both; /* conjuncts over both sides */
	ixent **slot;
	size_t cap, nent;
	bool stale;
	int64_t next_seq, stamp;
	sl_buf kb, vb;
	bool left_done;     /* this batch's left input has finished */
	sl_batch **pending; /* right batches waiting for it */
	int npending;
} ssjoinst;

/* The entry of side ++ key k[0..n), or NULL (borrowed). */
ixent *sl_ssjoin_ix_find(const ssjoinst *st, const char *k, size_t n);
/* Add row number seq under k (copied).  0 or SL_ENOMEM. */
int sl_ssjoin_ix_add(ssjoinst *st, const char *k, size_t n, int64_t seq);
/* Forget row number seq under k (the entry goes when it is empty). */
void sl_ssjoin_ix_remove(ssjoinst *st, const char *k, size_t n, int64_t seq);
/* Free every entry. */
void sl_ssjoin_ix_clear(ssjoinst *st);
/* Rebuild from the store if stale (next_seq follows the highest row
 * number held).  0 or SL_ENOMEM (the index stays stale). */
int sl_ssjoin_ix_fresh(ssjoinst *st, sl_err *err);
/* The 8-byte big-endian row number at p / appended to b. */
int64_t sl_ssjoin_get_seq(const unsigned char *p);
void sl_ssjoin_put_seq(sl_buf *b, int64_t seq);

#endif
