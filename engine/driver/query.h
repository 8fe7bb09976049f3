/*
 * query: a running streaming query and the micro-batch driver.
 *
 * This file is the only place that orders a micro-batch (STYLE.md):
 *   1. plan end offsets per source (latest, rate limits) and the batch
 *      timestamp from the clock; [2. write offsets/N: checkpoint issue]
 *   3. read exactly (start, end] from each source and push it through the
 *      operators; end of the micro-batch: stateful operators emit by
 *      output mode;
 *   4. [write state version N+1: checkpoint issue]
 *   5. the sink takes the batch's output (skipping an already committed
 *      batch id);
 *   6. commit the in-memory state; [write commits/N: checkpoint issue];
 *      record progress, events; tell the sources what is committed.
 * A failure at any step aborts the state to the version before the batch,
 * marks the query failed with the error as its exception, and leaves
 * everything else (the REPL, other queries) running.  An interrupt
 * (SL_EINTR, Ctrl-C in a callback) aborts the batch the same way but the
 * query stays active and re-runs that batch (sl_query_step).
 *
 * Held: an armed crash or an interrupted batch keeps the background
 * trigger (sl_query_tick) off the query until the learner asks for the
 * next batch, so effects follow the order the learner typed.
 *
 * Ownership: a query is counted; the session holds one reference while it
 * is active, the Lua StreamingQuery holds one.  Strings returned are
 * borrowed until the next call on the query.
 */
#ifndef SL_QUERY_H
#define SL_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/feed.h"
#include "core/options.h"
#include "plan/plan.h"
#include "driver/session.h"
#include "sinks/sink.h"
#include "plan/stream.h"

typedef struct sl_query_opts {
	const char *name; /* queryName, or NULL */
	sl_outmode mode;
	sl_trigger trigger;
	const char *checkpoint; /* checkpointLocation, or NULL */
	/* the sink: a format with options, or a foreachBatch callback */
	const char *format;
	const sl_options *sink_opts;
	sl_foreach_fn foreach_fn;
	void *foreach_ud;
	void (*foreach_free)(void *);
	/* Run without any checkpoint (make bench's W1..W3 baselines): no
	 * files at all, no recovery, no crash restart.  Ignored for the file
	 * and Kafka sinks, which always need one. */
	bool no_checkpoint;
} sl_query_opts;

/* Check the plan (Spark's UnsupportedOperationChecker sentences, e.g.
 * "Append output mode not supported when there are streaming aggregations
 * on streaming DataFrames/DataSets without watermark"; "Queries without
 * streaming sources cannot be executed with writeStream.start()"), open the
 * sources and the sink, register with the session, notify onQueryStarted.
 * Nothing runs until a trigger is due (sl_session_tick) or a step is asked
 * for.  Borrows plan.  The foreach_ud is owned by the query from here on
 * (freed with foreach_free), also on failure. */
sl_query *sl_query_start(sl_session *s, sl_plan *plan,
			 const sl_query_opts *opts, sl_err *err);
sl_query *sl_query_ref(sl_query *q);
void sl_query_free(sl_query *q);

const char *sl_query_id(const sl_query *q);     /* UUID, stable */
const char *sl_query_run_id(const sl_query *q); /* UUID, per start */
const char *sl_query_name(const sl_query *q);   /* NULL if unnamed */
bool sl_query_is_active(const sl_query *q);
/* {"message":"Waiting for data to arrive","isDataAvailable":false,
 *  "isTriggerActive":false} */
const char *sl_query_status_json(sl_query *q);
/* Spark's StreamingQueryProgress JSON of the last batch, or NULL. */
const char *sl_query_last_progress_json(const sl_query *q);
int sl_query_recent_count(const sl_query *q);
const char *sl_query_recent_json(const sl_query *q, int i); /* 0 = oldest */
/* The failure ("message" one line + "\n" + details/traceback), or NULL. */
const char *sl_query_exception(const sl_query *q);
sl_feed *sl_query_feed(sl_query *q);
/* The late-row log (q:lateRows): one SL_EV_LATE_ROW event per row dropped
 * as late, json as sl_stream_late (stream_int.h) writes it.  Borrowed; the
 * query owns it.  (Declared for the Lua binding; implemented in query.c.) */
sl_feed *sl_query_late(sl_query *q);
int64_t sl_query_last_batch_id(const sl_query *q); /* -1 before the first */
/* explain(): the plan ("No physical plan. Waiting for data." before the
 * first batch, as Spark). */
void sl_query_explain(const sl_query *q, bool extended, sl_buf *out);

/* Run one micro-batch now if there is new data or a no-data batch is
 * needed, whether or not the trigger is due (q:step()).  *ran tells.
 * A batch failure stops the query and is returned.  A batch whose
 * callback was interrupted (SL_EINTR: Ctrl-C in foreachBatch) is aborted
 * instead: state back to its version before the batch, nothing committed,
 * the query stays active and held, and its next batch re-runs the same
 * batch id with offsets/N as logged; SL_EINTR is returned.  The batch's state
 * delta and commits/N may still be queued when it returns, so back-to-
 * back steps overlap writing with the next batch (sl_query_sync). */
int sl_query_step(sl_query *q, bool *ran, sl_err *err);
/* Run what the trigger makes due at the clock's now (sl_session_tick).
 * A held query (an armed crash, an interrupted batch: sl_query_held) runs
 * nothing here: its next batch is the one the learner asks for.  Like
 * step, it does not wait for the batches' checkpoint writes
 * (sl_query_sync, sl_session_sync). */
int sl_query_tick(sl_query *q, int *batches, sl_err *err);
/* Held: the background trigger waits until a batch runs on request
 * (sl_query_step, sl_query_process_all_available) or sl_query_resume. */
bool sl_query_held(const sl_query *q);
/* The learner waits on q (awaitTermination): the trigger runs it again. */
void sl_query_resume(sl_query *q);
/* Process all data available now, and the no-data batches that follow,
 * then return (Spark's processAllAvailable).  Fails with the query's
 * exception if it failed. */
int sl_query_process_all_available(sl_query *q, sl_err *err);
/* The program's "the user asked to stop waiting" (Ctrl-C: the Lua layer's
 * flag; the engine never sees a signal), checked between the batches of
 * one processAllAvailable or tick: true ends the loop early, with nothing
 * aborted (the batches done stay done).  NULL: never. */
void sl_query_set_interrupt_check(bool (*check)(void));
/* The next instant (clock time) this query's trigger wants to run, or
 * INT64_MAX when it waits for nothing time-based. */
int64_t sl_query_next_due(const sl_query *q);
/* Stop (idempotent): closes sources and sink, unregisters, notifies
 * onQueryTerminated. */
void sl_query_stop(sl_query *q);

/* ---- checkpoint and crash (the checkpoint milestone) ---- */
/* Arm an in-process crash point for the next batch that reaches it
 * (crash.h names the points).  The batch stops there as if the process
 * died: files stay as they are, the query's memory is thrown away, the
 * query becomes inactive with exception "simulated crash at 'P' in batch
 * N", and SL_EV_CRASH is recorded.  Arming holds the query (sl_query_held)
 * until a batch runs: a background trigger never runs the next batch
 * between the arming and the step the learner types next, so data that
 * arrives in between is the armed batch's (TUTORIAL.md chapter 8). */
int sl_query_crash(sl_query *q, const char *point, sl_err *err);
/* Start the query again from its checkpoint (same id, new runId), with the
 * same plan, sink and options; q must be inactive.  The new query replays
 * an uncommitted batch exactly (SL_EV_REPLAY: "re-ran batch 5 with
 * offsets/5"; a sink batch already committed is skipped: "sink batch 5
 * already committed: skipped"). */
sl_query *sl_query_restart(sl_query *q, sl_err *err);
/* The checkpoint log as JSON, for q:checkpoint() and the screen:
 * {"location":"/abs","id":"...","batches":[{"batchId":0,"offsets":[...],
 *  "watermarkMs":..,"timestampMs":..,"stateVersion":1,"sinkLog":true|false,
 *  "committed":true}, ...]} (offsets as the JSON values of offsets/N). */
const char *sl_query_checkpoint_json(sl_query *q);
/* The checkpoint directory in use (a temporary one when the user gave
 * none), or NULL. */
const char *sl_query_checkpoint_dir(const sl_query *q);
/* The file sink's directory (its _spark_metadata is the sink log), or
 * NULL for the other sinks: for the screen rewound to a batch. */
const char *sl_query_sink_dir(const sl_query *q);
/* The output mode the query runs in. */
sl_outmode sl_query_output_mode(const sl_query *q);
/* Monotonic microseconds the last batch's own thread spent on its
 * checkpoint (encoding files, queueing them, waiting for offsets/N before
 * the sink): what the checkpoint costs the batch. */
int64_t sl_query_last_checkpoint_us(const sl_query *q);
/* Monotonic microseconds the checkpoint writer spent writing batch's
 * files (offsets/N, state deltas, commits/N, each fsync'd), -1 when not
 * known (yet); with sl_query_last_checkpoint_us, make bench's W4 figures. */
int64_t sl_query_checkpoint_write_us(sl_query *q, int64_t batch);
/* Checkpoint writes are pipelined: when a batch returns, its state delta
 * and commits/N may still be queued (the next batch waits for them before
 * its sink).  This waits until everything is durable; a failed write
 * stops the query with the error naming the file.  Stop, restart and
 * sl_query_checkpoint_json sync themselves. */
int sl_query_sync(sl_query *q, sl_err *err);

#endif
