/*
 * stream_int: helpers shared by the streaming operators (op_stream.c,
 * op_sdedup.c, op_slimit.c and the event-time operators), implemented in
 * stream_feed.c.  Engine-internal.
 */
#ifndef SL_STREAM_INT_H
#define SL_STREAM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/col.h"
#include "plan/stream.h"

/* "[v1,v2]": row i of cols as Spark's Row.toString.  Appends. */
void sl_stream_row_text(sl_col *const *cols, int n, int64_t i, sl_buf *out);
/* One SL_EV_STATE_ROW event: op, key text, value text, state word. */
void sl_stream_state_event(const sl_stream_ctx *ctx, const char *op,
			   const char *key, const char *val, const char *state);
/* True when the feed wants per-row state events. */
bool sl_stream_wants_rows(const sl_stream_ctx *ctx);

/* Record one row dropped as late (q:lateRows, the screen's Late pane):
 * into ctx->late (and ctx->feed as SL_EV_LATE_ROW when it wants per-row
 * events).  row_json: the input row as a JSON object; event_us: the value
 * compared (the row's event time); windows_json: a JSON array of the windows
 * it would have joined ([{"start":"...","end":"..."}], "[]" when none);
 * wm_us: the watermark that excluded it.  The event's json is
 * {"operator":op,"batchId":N,"row":{...},"eventTime":"2026-01-01 12:04:00",
 *  "windows":[...],"watermark":"2026-01-01 12:11:00"} and its text
 * "12:04:00 {row} DROPPED: windows [12:00:00,12:10:00) end <= wm 12:11:00". */
void sl_stream_late(const sl_stream_ctx *ctx, const char *op,
		    const char *row_json, int64_t event_us,
		    const char *windows_json, int64_t wm_us);

#endif
