/*
 * stream: the vocabulary of streaming shared by the driver (query.c), the
 * operators (op_*.c), sources and sinks: output modes, triggers, and the
 * per-micro-batch context operators see.
 *
 * Lesson: lessons/01 (output modes), lessons/05-06 (watermark).  Semantics:
 * ../shared/spec/SPARK-SEMANTICS.md sections 1.3, 1.4, 2, 3.
 */
#ifndef SL_STREAM_H
#define SL_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"

typedef enum sl_outmode {
	SL_MODE_APPEND = 0, /* Spark's default */
	SL_MODE_UPDATE,
	SL_MODE_COMPLETE
} sl_outmode;

/* Parse "append"/"update"/"complete" (case-insensitive).  Otherwise
 * SL_EINVAL with Spark's sentence: "Unknown output mode x. Accepted output
 * modes are 'append', 'complete', 'update'". */
int sl_outmode_parse(const char *s, sl_outmode *out, sl_err *err);
/* "Append", "Update", "Complete" (capitalised, as in Spark's messages). */
const char *sl_outmode_name(sl_outmode m);

/* A random UUID v4 ("8-4-4-4-12" lower-case hex) for query ids and run
 * ids: sl_uuid_v4 (core/uuid.h); ids name a query and never enter its
 * results. */
void sl_stream_uuid(char out[37]);

typedef enum sl_trigger_kind {
	SL_TRIGGER_DEFAULT = 0,  /* next batch as soon as the last one ends */
	SL_TRIGGER_PROCESSING,   /* every interval_us, at multiples of it */
	SL_TRIGGER_ONCE,         /* one batch with everything, then stop */
	SL_TRIGGER_AVAILABLE_NOW /* everything available at start, in rate-
				    limited batches, then stop */
} sl_trigger_kind;

typedef struct sl_trigger {
	sl_trigger_kind kind;
	int64_t interval_us; /* SL_TRIGGER_PROCESSING */
} sl_trigger;

typedef struct sl_feed sl_feed;

/* What stateful operators need to know about the micro-batch being run.
 * Owned by the query; operators borrow it for the query's lifetime and
 * read it at push/finish time (the driver updates it before each batch). */
typedef struct sl_stream_ctx {
	int64_t batch_id;
	int64_t batch_ts_us; /* batch timestamp = current_timestamp() */
	sl_outmode mode;
	/* Event-time watermarks (microseconds; INT64_MIN = none yet).  Late
	 * rows are judged by wm_late, state is evicted and append output is
	 * emitted by wm_evict (Spark 3.4+: the previous and the current batch
	 * watermark; equal with allowMultiple=false). */
	int64_t wm_late_us;
	int64_t wm_evict_us;
	bool no_data;  /* a no-data batch (watermark advance only) */
	sl_feed *feed; /* event feed (may be NULL) */
	sl_feed *late; /* late-row log for q:lateRows (may be NULL) */
} sl_stream_ctx;

#endif
