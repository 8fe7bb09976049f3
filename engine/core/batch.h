/*
 * batch: a set of equal-length columns with a STRUCT schema: the unit that
 * flows between operators, sources and sinks.
 *
 * Ownership: reference counted.  A batch holds a reference to its schema and
 * one to each column.  sl_batch_new takes ownership of the columns passed to
 * it (the caller's pointers are given away).  Batches are immutable once
 * built; operators make new batches that share columns.
 */
#ifndef SL_BATCH_H
#define SL_BATCH_H

#include <stdint.h>

#include "core/buf.h"
#include "core/col.h"
#include "core/err.h"
#include "core/type.h"

typedef struct sl_batch {
	sl_type *schema; /* STRUCT, counted reference */
	int64_t nrows;
	int ncols;
	sl_col **cols;
	int refs;
} sl_batch;

/* New batch of nrows rows.  Takes a reference to schema and ownership of
 * cols[0..schema->nfields) (the array itself is copied).  Returns NULL on out
 * of memory (the columns are freed). */
sl_batch *sl_batch_new(sl_type *schema, int64_t nrows, sl_col **cols);
/* A batch with the schema and zero rows. */
sl_batch *sl_batch_empty(sl_type *schema);
sl_batch *sl_batch_ref(sl_batch *b);
void sl_batch_free(sl_batch *b);

/* Row-subset helpers; each returns a new batch sharing arenas. */
sl_batch *sl_batch_take(const sl_batch *b, const int64_t *idx, int64_t n);
sl_batch *sl_batch_filter(const sl_batch *b, const uint8_t *sel, int64_t nsel);
sl_batch *sl_batch_slice(const sl_batch *b, int64_t off, int64_t n);
/* Concatenate batches of equal schema (by position; the first batch's
 * schema names the result).  n == 0 needs schema != NULL. */
sl_batch *sl_batch_concat(sl_batch *const *bs, int n, sl_type *schema,
			  sl_err *err);

/* Format one value for show(): Spark's rendering (NULL as "null",
 * timestamps "2026-01-01 12:05:00" with fraction only when nonzero, doubles
 * as Java prints them, structs "{a, b}", arrays "[a, b]", binary "[0A 1B]"). */
void sl_value_show(const sl_col *c, int64_t i, sl_buf *out);
/* The same value as JSON (to_json, the json sink, tests). */
void sl_value_json(const sl_col *c, int64_t i, sl_buf *out);
/* Row i of b as a JSON object, {"name":value,...} in column order (the
 * late-row events of the stateful operators).  Appends. */
void sl_batch_row_json(const sl_batch *b, int64_t i, sl_buf *out);

/* Spark's Dataset.show(): the +---+ table, numRows rows, truncate > 0 cuts
 * cells to that many characters (Spark: 20); vertical not supported.  Adds
 * "only showing top N rows" when there are more.  Appends to out. */
void sl_batch_show(const sl_batch *b, int64_t numrows, int truncate,
		   sl_buf *out);

/* Java Double.toString rendering ("1.0", "0.1", "1.0E10"). */
void sl_fmt_double(double d, sl_buf *out);

size_t sl_batch_bytes(const sl_batch *b);

/* A growable list of batches (sources append, the driver consumes; the
 * batch collector keeps a query's output in one).
 *
 * Or a pipe: with push set, each batch added goes to push(ctx, b, err)
 * at once (push takes b) and the list stays empty, so a source's batch
 * reaches the operators chunk by chunk and its memory is bounded by the
 * chunk, not by the batch (the driver's reads).  The first failed push
 * is kept in push_rc (its message in *push_err); the add returns it and
 * every later add frees its batch and returns it too, so the source
 * stops. */
typedef struct sl_batch_list {
	int n, cap;
	sl_batch **b;
	int (*push)(void *ctx, sl_batch *b, sl_err *err);
	void *ctx;
	sl_err *push_err;
	int push_rc;
} sl_batch_list;
void sl_batch_list_init(sl_batch_list *l);
/* Takes ownership of b (freed on failure: SL_ENOMEM, or the push's
 * error). */
int sl_batch_list_add(sl_batch_list *l, sl_batch *b);
/* Frees the batches and the array. */
void sl_batch_list_release(sl_batch_list *l);

#endif
