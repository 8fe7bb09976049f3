/*
 * query_int: internals of the query module: query.c (life cycle and
 * triggers), query_batch.c (the micro-batch protocol) and progress.c (the
 * JSON it reports).  Never included from outside the module.
 *
 * The driver fills an sl_progress per micro-batch with what it measured;
 * progress.c turns it into Spark's StreamingQueryProgress JSON.  Strings in
 * the report are borrowed from the driver for the duration of the call.
 */
#ifndef SL_QUERY_INT_H
#define SL_QUERY_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "state/ckpt.h"
#include "core/clock.h"
#include "core/crash.h"
#include "exec/exec.h"
#include "core/feed.h"
#include "driver/query.h"
#include "sources/source.h"

typedef struct sl_progress_source {
	const char *description;
	const char *start, *end, *latest; /* offset JSON text, or NULL */
	int64_t rows;
} sl_progress_source;

typedef struct sl_progress_state {
	const char *operator_name;
	int64_t rows_total, rows_updated, rows_removed, rows_dropped;
	int64_t memory_bytes;
	int64_t dup_dropped; /* customMetrics numDroppedDuplicateRows; -1:
				not a dedupe operator */
} sl_progress_state;

typedef struct sl_progress {
	const char *id, *run_id, *name; /* name may be NULL */
	int64_t trigger_us;             /* clock time at the trigger's start */
	int64_t prev_trigger_us; /* the previous trigger's start, or -1 */
	int64_t batch_id;
	int64_t input_rows;
	/* durations in microseconds of the engine clock */
	int64_t us_add, us_get, us_latest, us_plan, us_trigger, us_wal;
	int nsrc;
	const sl_progress_source *src;
	int nstate;
	const sl_progress_state *states;
	const char *sink_desc;
	int64_t sink_rows;
	/* eventTime: only when the query has a watermark */
	bool has_wm;
	int64_t wm_ms;    /* the watermark this batch used */
	int64_t et_count; /* rows with an event time (first node) */
	int64_t et_min_ms, et_max_ms, et_avg_ms;
	/* an idle trigger's progress (no batch ran): durationMs has only
	 * latestOffset and triggerExecution, as Spark's */
	bool idle;
} sl_progress;

/* Spark's StreamingQueryProgress JSON (compact, Spark's field order;
 * non-finite rates are left out as Spark's JSON does).  Appends. */
void sl_progress_json(const sl_progress *p, sl_buf *out);
/* {"message":..,"isDataAvailable":..,"isTriggerActive":..} */
void sl_progress_status_json(const char *message, bool data_available,
			     bool trigger_active, sl_buf *out);
/* Listener events: {"id","runId","name","timestamp"} and
 * {"id","runId","exception"} (exception NULL -> null). */
void sl_progress_started_json(const char *id, const char *run_id,
			      const char *name, int64_t ts_us, sl_buf *out);
void sl_progress_terminated_json(const char *id, const char *run_id,
				 const char *exception, sl_buf *out);

/* ---- the query (query.c owns its life cycle) ---- */

/* What the offset log records per batch beside the offsets (Spark's
 * OffsetSeqMetadata): the checkpoint milestone writes it as offsets/N
 * {"batchWatermarkMs":..,"batchTimestampMs":..,"conf":{..}}. */
typedef struct sl_batch_meta {
	int64_t batch_id;
	int64_t batch_ts_us;
	int64_t watermark_ms; /* batchWatermarkMs: the watermark it used */
	bool no_data;
} sl_batch_meta;

/* The event-time watermark of a query (query_batch.c; SPARK-SEMANTICS.md
 * 3.1 and Spark's WatermarkTracker): one watermark per withWatermark node
 * (plan order), the global one by policy, never decreasing. */
typedef struct sl_query_wm {
	int n;                /* withWatermark nodes; 0: no watermark */
	int64_t *node_ms;     /* per node; INT64_MIN: never saw data */
	int64_t global_ms;    /* the watermark the next batch uses (from 0) */
	int64_t prev_ms;      /* the one the last batch used; INT64_MIN: none */
	bool policy_max;      /* multipleWatermarkPolicy=max */
	bool allow_multiple;  /* statefulOperator.allowMultiple */
	bool no_data_enabled; /* noDataMicroBatches.enabled */
	bool no_data_pending; /* a stateful operator wants a no-data batch */
} sl_query_wm;

struct sl_query {
	int refs;
	sl_session *sess; /* borrowed; NULL once stopped */
	sl_clock *clock;  /* the session's; NULL once stopped */
	char id[37], run_id[37];
	char *name;
	char *checkpoint;
	sl_plan *plan; /* counted */
	sl_trigger trigger;
	sl_stream_ctx ctx;
	sl_feed *feed;

	int nsrc;
	sl_source **src;
	/* the plan's stream leaves: leaf l reads source leaf_src[l] (a
	 * source several leaves read is opened, logged and reported once) */
	int nleaf;
	int *leaf_src;
	char **desc;   /* progress descriptions */
	char **start;  /* committed offsets; NULL = nothing read yet */
	char **target; /* AvailableNow: the offsets fixed at start */
	sl_sink *sink;
	char *sink_desc;
	sl_op *collect; /* exec.h's collector; the operator tree hangs below it */
	sl_op *root;
	sl_query_wm wm;
	sl_batch_meta meta; /* the last batch that ran */

	bool active, running, stop_pending;
	/* the background trigger (sl_query_tick) leaves the query alone: a
	 * crash was armed, or a batch was interrupted; the next batch runs
	 * when asked for (step, processAllAvailable, sl_query_resume) */
	bool held;
	/* the batch running was asked for by a caller that gets its error
	 * back (step, processAllAvailable): SL_EV_ERROR says "returned" */
	bool asked;
	int64_t last_batch_id;
	int64_t next_due;     /* ProcessingTime/Once/AvailableNow */
	int64_t last_trigger; /* start of the previous trigger, -1 */
	/* Spark's lastNoExecutionProgressEventTime (INT64_MIN: never) and
	 * noDataProgressEventInterval; the last batch's state operators,
	 * which an idle progress repeats with nothing updated */
	int64_t last_noexec_us, noexec_interval_us;
	sl_progress_state idle_st[16];
	int idle_nstate;
	char *exception;
	int exc_code;

	const char *status_msg;
	bool data_available, trigger_active;
	sl_buf status_buf;
	char idle_msg[320]; /* status_msg when a source adds a reason */

	/* the checkpoint (query_ckpt.c) */
	sl_ckpt *ck;             /* open and locked while the query runs */
	int64_t prev_off_ticket; /* the previous batch's offsets write */
	char *ckdir;             /* the directory in use (absolute) */
	bool ck_temp;            /* a temporary one: removed at a normal stop */
	bool ck_fresh;        /* no metadata yet: written when start succeeds */
	sl_ckpt_plan ckplan;  /* what sl_ckpt_recover found at start */
	int64_t ck_torn_id;   /* offsets/<id> was torn: rewritten, or -1 */
	sl_session *home;     /* the session it started in (restart) */
	char fingerprint[17]; /* the plan's (metadata "fingerprint") */
	char stored_fp[17];   /* the checkpoint's, "" when none */
	sl_crash *crash;      /* in-process crash points (sl_query_crash) */
	bool crashed;         /* stopped by a (simulated) crash */
	bool clean_stop;      /* stopped without an exception */
	int64_t retain;       /* minBatchesToRetain */
	int64_t snap_every;   /* minDeltasForSnapshot */
	/* state maintenance (sl_query_ckpt_state): every maint_us of the
	 * engine's clock (stateStore.maintenanceInterval), from the first
	 * batch; maint_next_us the batch time of the next one (INT64_MIN
	 * before the first batch); snap_base[i] the version store i's newest
	 * snapshot holds (0: none), nsnap_base of them (malloc'd) */
	int64_t maint_us, maint_next_us;
	int64_t *snap_base;
	int nsnap_base;
	bool replay;          /* the next batch re-runs replay_id */
	int64_t replay_id;
	sl_ckpt_offsets replay_off; /* offsets/replay_id as logged */
	char *ckpt_json;            /* sl_query_checkpoint_json's last answer */
	int64_t us_ckpt;            /* the last batch's checkpoint time */
	/* what sl_query_restart needs to start the query again */
	char *format;
	sl_options sink_opts;
	sl_sink *kept_sink; /* a crashed query's memory/foreachBatch sink,
				 handed to the restarted query */

	char *last_progress;
	int recent_keep;                      /* numRecentProgressUpdates */
	int recent_cap, nrecent, recent_head; /* ring, head = oldest */
	char **recent;
};

static inline int64_t sl_query_now(const sl_query *q)
{
	return q->clock != NULL ? sl_clock_now(q->clock) : 0;
}

static inline bool sl_query_same_offset(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

static inline void sl_query_set_status(sl_query *q, const char *msg)
{
	q->status_msg = msg;
}

/* query.c */
char *sl_query_strdup(const char *s, bool *oom); /* NULL stays NULL */
void sl_query_offsets_free(char **v, int n);
void sl_query_event(sl_query *q, sl_event_kind kind, int64_t batch_id,
		    const char *text, const char *json);
void sl_query_idle_status(sl_query *q);
/* The newest offset of every source now (entries NULL: no data yet). */
int sl_query_poll_latest(sl_query *q, char **out, sl_err *err);
void sl_query_stop_now(sl_query *q, const char *why);
void sl_query_fail(sl_query *q, int64_t batch_id, const sl_err *e);
/* A (simulated) crash: SL_EV_CRASH, exception, stop without cleanup. */
void sl_query_crashed(sl_query *q, int64_t batch_id, const sl_err *e);

/* query_ckpt.c: the checkpoint side of start, stop and restart */
/* Before the sink opens (from: the crashed query of sl_query_restart, or
 * NULL): where the checkpoint is (checkpointLocation, the
 * session's spark.sql.streaming.checkpointLocation/<name or id>, or a
 * temporary one), open and lock it, validate it (sl_ckpt_recover), and
 * adopt its query id.  Refuses another query's checkpoint.  Never writes
 * into an existing checkpoint. */
int sl_query_ckpt_open(sl_query *q, const sl_query_opts *o,
		       const sl_query *from, sl_err *err);
/* After the sink opened: the plan fingerprint must match the
 * checkpoint's ("checkpoint '<dir>/metadata' belongs to a different
 * query (plan fingerprint mismatch)"). */
int sl_query_ckpt_check(sl_query *q, sl_err *err);
/* The directory of source i's metadata (<dir>/sources/<i>) into out;
 * NULL when the query runs without a checkpoint. */
const char *sl_query_ckpt_source_dir(const sl_query *q, int i, char *out,
				     size_t n);
/* After the operators are compiled: restore offsets, watermark, confs and
 * the state stores (the version the next batch starts from), and the
 * batch to re-run if the last one was not committed. */
int sl_query_ckpt_restore(sl_query *q, sl_err *err);
/* Start succeeded: write metadata of a fresh checkpoint, sweep temp
 * files. */
int sl_query_ckpt_started(sl_query *q, sl_err *err);
/* Unlock; a temporary checkpoint is removed unless the query crashed. */
void sl_query_ckpt_close(sl_query *q);
/* The batch protocol's checkpoint steps (query_batch.c calls them). */
int sl_query_ckpt_offsets(sl_query *q, int64_t id, int64_t ts_us, int64_t wm_ms,
			  char *const *end, sl_err *err);
int sl_query_ckpt_state(sl_query *q, int64_t id, sl_err *err);
int sl_query_ckpt_commit(sl_query *q, int64_t id, int64_t next_wm_ms,
			 sl_err *err);
void sl_query_ckpt_purge(sl_query *q, int64_t id);
/* sl_crash_at for the driver's points: when the point will hit, the
 * queued checkpoint writes are made durable first (they come before the
 * point in the protocol, so a process dying there has written them). */
int sl_query_crash_at(sl_query *q, const char *point, int64_t id, sl_err *err);
/* Wait until the write with ticket (sl_ckpt_ticket) is durable. */
int sl_query_ckpt_wait(sl_query *q, int64_t ticket, sl_err *err);
int64_t sl_query_ckpt_ticket(const sl_query *q);

/* query_batch.c */
/* Set up q->wm from the plan and the session's confs (at start). */
int sl_query_wm_init(sl_query *q, sl_err *err);
/* One trigger: plan offsets (cap: recorded latest offsets, or NULL to
 * poll; use_limit: apply the sources' rate limits), and if a source moved
 * run the batch.  *ran says whether one ran.  keep_latest (may be NULL):
 * receives the polled latest offsets.  A failure stops the query and is
 * returned. */
int sl_query_run_batch(sl_query *q, char *const *cap, bool use_limit, bool *ran,
		       char ***keep_latest, sl_err *err);

#endif
