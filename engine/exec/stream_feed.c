/*
 * stream_feed: the feed events the stateful operators share (stream_int.h):
 * rows as text, state-row events, late rows.
 */
#include "exec/stream_int.h"

#include <stdio.h>
#include <string.h>

#include "core/batch.h"
#include "core/feed.h"
#include "core/timeutil.h"

/* "[v1,v2]": one row of cols as Spark's Row.toString. */
void sl_stream_row_text(sl_col *const *cols, int n, int64_t i, sl_buf *out)
{
	int k;
	sl_buf_addc(out, '[');
	for (k = 0; k < n; k++) {
		if (k)
			sl_buf_addc(out, ',');
		sl_value_show(cols[k], i, out);
	}
	sl_buf_addc(out, ']');
}

void sl_stream_state_event(const sl_stream_ctx *ctx, const char *op,
			   const char *key, const char *val, const char *state)
{
	sl_buf t, j;
	sl_buf_init(&t);
	sl_buf_init(&j);
	sl_buf_printf(&t, "%s %s -> %s", op, key, val);
	sl_buf_adds(&j, "{\"op\":");
	sl_buf_json_str(&j, op, strlen(op));
	sl_buf_adds(&j, ",\"key\":");
	sl_buf_json_str(&j, key, strlen(key));
	sl_buf_adds(&j, ",\"value\":");
	sl_buf_json_str(&j, val, strlen(val));
	sl_buf_printf(&j, ",\"state\":\"%s\"}", state);
	if (!sl_buf_failed(&t) && !sl_buf_failed(&j))
		sl_feed_add(ctx->feed, SL_EV_STATE_ROW, ctx->batch_id,
			    ctx->batch_ts_us, sl_buf_cstr(&t), sl_buf_cstr(&j));
	sl_buf_release(&t);
	sl_buf_release(&j);
}

bool sl_stream_wants_rows(const sl_stream_ctx *ctx)
{
	return ctx != NULL && ctx->feed != NULL &&
	       sl_feed_wants(ctx->feed, SL_EV_STATE_ROW);
}

static void hms(int64_t us, sl_buf *out)
{
	sl_buf t;
	const char *sp;
	sl_buf_init(&t);
	sl_ts_format(us, &t);
	sp = strchr(sl_buf_cstr(&t), ' ');
	sl_buf_adds(out, sp != NULL ? sp + 1 : sl_buf_cstr(&t));
	sl_buf_release(&t);
}

void sl_stream_late(const sl_stream_ctx *ctx, const char *op,
		    const char *row_json, int64_t event_us,
		    const char *windows_json, int64_t wm_us)
{
	sl_buf t, j;
	bool to_feed =
	    ctx->feed != NULL && sl_feed_wants(ctx->feed, SL_EV_LATE_ROW);
	if (ctx->late == NULL && !to_feed)
		return;
	sl_buf_init(&t);
	sl_buf_init(&j);
	sl_buf_printf(&j,
		      "{\"operator\":\"%s\",\"batchId\":%lld,\"row\":%s,"
		      "\"eventTime\":\"",
		      op, (long long)ctx->batch_id, row_json);
	sl_ts_format(event_us, &j);
	sl_buf_printf(&j, "\",\"windows\":%s,\"watermark\":\"", windows_json);
	sl_ts_format(wm_us, &j);
	sl_buf_adds(&j, "\"}");
	hms(event_us, &t);
	sl_buf_printf(&t, " %s DROPPED: ", row_json);
	if (strcmp(windows_json, "[]") != 0)
		sl_buf_printf(&t, "windows %s end ", windows_json);
	else
		sl_buf_adds(&t, "event time ");
	sl_buf_adds(&t, "<= wm ");
	hms(wm_us, &t);
	if (!sl_buf_failed(&t) && !sl_buf_failed(&j)) {
		if (ctx->late != NULL)
			sl_feed_add(ctx->late, SL_EV_LATE_ROW, ctx->batch_id,
				    ctx->batch_ts_us, sl_buf_cstr(&t),
				    sl_buf_cstr(&j));
		if (to_feed)
			sl_feed_add(ctx->feed, SL_EV_LATE_ROW, ctx->batch_id,
				    ctx->batch_ts_us, sl_buf_cstr(&t),
				    sl_buf_cstr(&j));
	}
	sl_buf_release(&t);
	sl_buf_release(&j);
}
