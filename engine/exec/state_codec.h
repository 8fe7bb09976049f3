/*
 * state_codec: what the bytes in a stateful operator's store mean, for
 * the reader of a checkpoint's state (driver/state_read.c, Spark 4.0's
 * state data source).  Each operator encodes its keys and values itself
 * (opaque to state.c and ckpt_state.c); this module is the one place that
 * decodes them back into typed rows, one decoder per operator kind, each
 * following the layout its encoder documents in its opening comment:
 *
 *   stateStoreSave (op_stream.c)       key  = sl_hash_key_encode(group keys)
 *                                      value = the aggregates' buffers
 *                                              (agg.h, in plan order)
 *   sessionWindowStateStoreSaveExec    key  = other keys ++ be64(start)
 *     (op_session.c)                   value = int64 end ++ buffers
 *   dedupe, dedupeWithinWatermark      key  = sl_hash_key_encode(columns)
 *     (op_sdedup.c)                    value = int64 time, or empty
 *   symmetricHashJoin (op_ssjoin.c)    key  = side ++ join key ++ be64 seq
 *                                      value = int64 evict time
 *                                              [++ matched] ++ row columns
 *   globalLimit (op_slimit.c)          key  = empty, value = int64 count
 *
 * The rows the reader shows are Spark's: key STRUCT (the group columns,
 * the window or session_window struct among them; a join's field0..),
 * value STRUCT (aggregation buffers named as Spark names them: count,
 * sum, avg's sum and count, min, max, first/last with valueSet, min_by's
 * valueWithExtremumOrdering and extremumOrdering; a name that repeats
 * gets _2, _3; approx_count_distinct's registers as one BINARY field,
 * where Spark has one LONG per word, MS[0]...: a deliberate deviation).
 *
 * A codec is built from a compiled operator when the query starts and
 * written as text into the checkpoint (the schema file, see
 * sl_state_codec_text), or parsed back from that text by the reader.
 *
 * Ownership: a codec owns its types; types handed out are borrowed.
 * Never prints.
 */
#ifndef SL_STATE_CODEC_H
#define SL_STATE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/col.h"
#include "core/err.h"
#include "core/type.h"
#include "exec/exec.h"

typedef struct sl_state_codec sl_state_codec;

/* The codec of a compiled stateful streaming operator (op->sf set;
 * borrowed).  SL_EINTERNAL for an operator kind without one. */
sl_state_codec *sl_state_codec_of_op(const sl_op *op, sl_err *err);
void sl_state_codec_free(sl_state_codec *c);

/* Spark's operatorName ("stateStoreSave", "dedupe", ...). */
const char *sl_state_codec_operator(const sl_state_codec *c);
/* True for a stream-stream join (one store, both sides: joinSide). */
bool sl_state_codec_is_join(const sl_state_codec *c);

/* The schema file's text (state/<op>/0/_metadata/schema):
 *   v1
 *   operator <operatorName>
 *   key <DDL>             (join: key of side 0; key1 <DDL> of side 1)
 *   value <DDL>           (join: the left rows; value1: the right rows)
 *   layout <words>        (agg: the functions, approx_count_distinct/p;
 *                          join: header bytes 8 or 9)
 *   outputMode <mode>     (appended by the query, query_ckpt.c: Spark
 *                          keeps it in StateStoreSaveExec, never in the
 *                          checkpoint; the parser ignores it, the state
 *                          reader's sl_state_opinfo names it)
 * Field names are backquoted.  Spark writes its key and value schemas as
 * StructType JSON through Java's writeUTF; this text is ours. */
int sl_state_codec_text(const sl_state_codec *c, sl_buf *out, sl_err *err);
/* Parse a schema file's text; path names it in errors (SL_ECHECKPOINT
 * "state schema file '<path>' is corrupt: ..."). */
sl_state_codec *sl_state_codec_parse(const char *text, const char *path,
				     sl_err *err);

/* The row types (STRUCTs, borrowed).  side: 0 or 1 for a join's sides
 * (key: field0.. of the join key, value: that side's input row), 2 or 3
 * for the left/right keyWithIndexToValue store of Spark's (key: field0..
 * and index, the row number; value: the row and matched), 0 otherwise. */
sl_type *sl_state_codec_key_type(const sl_state_codec *c, int side);
sl_type *sl_state_codec_value_type(const sl_state_codec *c, int side);

/* Which join side an entry's key belongs to (its first byte), -1 when
 * the key is empty; 0 for every other operator. */
int sl_state_codec_side(const sl_state_codec *c, const void *k, size_t klen);
/* Decode entry (k, v) into row `row` of key (a STRUCT column of
 * key_type(side)) and val (of value_type(side)); a join's entry must be
 * of side & 1.  v NULL (a removed entry
 * of the change feed) makes the value row NULL and leaves what only the
 * value holds (a session's end) NULL in the key.  Columns made with
 * sl_col_new and long enough.  SL_ECHECKPOINT "... does not decode ..."
 * on bytes that do not match the layout, SL_ENOMEM. */
int sl_state_codec_decode(const sl_state_codec *c, int side, const void *k,
			  size_t klen, const void *v, size_t vlen, sl_col *key,
			  sl_col *val, int64_t row, sl_err *err);

/* The values as the query showed them (not Spark's: the workbench's
 * rewound panes): for an aggregation or session window a STRUCT of the
 * aggregates' results, one field per aggregate named by its function
 * (avg is sum / count, approx_count_distinct the estimate), finalised by
 * agg.c (sl_agg_decode); for every other operator value_type(0).
 * Borrowed. */
sl_type *sl_state_codec_result_type(const sl_state_codec *c);
/* sl_state_codec_decode of a non-join entry with the value as
 * result_type's row. */
int sl_state_codec_decode_result(const sl_state_codec *c, const void *k,
				 size_t klen, const void *v, size_t vlen,
				 sl_col *key, sl_col *res, int64_t row,
				 sl_err *err);

#endif
