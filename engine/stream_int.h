/*
 * stream_int: helpers shared by the streaming operators (op_stream.c,
 * op_sdedup.c, op_slimit.c and the event-time operators).  Engine-internal.
 */
#ifndef SL_STREAM_INT_H
#define SL_STREAM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "col.h"
#include "stream.h"

/* "[v1,v2]": row i of cols as Spark's Row.toString.  Appends. */
void sl_stream_row_text(sl_col *const *cols, int n, int64_t i, sl_buf *out);
/* One SL_EV_STATE_ROW event: op, key text, value text, state word. */
void sl_stream_state_event(const sl_stream_ctx *ctx, const char *op,
			   const char *key, const char *val,
			   const char *state);
/* True when the feed wants per-row state events. */
bool sl_stream_wants_rows(const sl_stream_ctx *ctx);

#endif
