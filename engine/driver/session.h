/*
 * session: what `spark` is in the engine: the clock, the confs, the named
 * tables, the active streaming queries and their listeners, and where text
 * output goes (the console sink never prints by itself).
 *
 * Queries run on the caller's thread only: sl_session_tick runs every
 * trigger that is due now, sl_session_advance moves a manual clock trigger
 * by trigger (so batches happen at exactly their due times), and the REPL's
 * idle loop, awaitTermination and processAllAvailable call these.  So Lua
 * callbacks (foreachBatch, listeners) never race and every run repeats.
 *
 * Ownership: the session owns the clock, catalog and conf; it holds one
 * reference to every active query (dropped when the query terminates).
 */
#ifndef SL_SESSION_H
#define SL_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "plan/catalog.h"
#include "core/clock.h"
#include "core/err.h"

typedef struct sl_session sl_session;
typedef struct sl_query sl_query;

sl_session *sl_session_new(void);
/* Stops every active query, then frees.  Accepts NULL. */
void sl_session_free(sl_session *s);

sl_clock *sl_session_clock(sl_session *s);
sl_catalog *sl_session_catalog(sl_session *s);
/* What the session gives the sinks of its queries (sinks/sink.h): its
 * confs, its output (sl_session_write) and its catalog.  Borrowed, lives
 * as long as the session; NULL for a NULL session. */
typedef struct sl_sink_host sl_sink_host;
const sl_sink_host *sl_session_sink_host(sl_session *s);

/* Spark confs (strings).  Known keys are validated with Spark's messages:
 * spark.sql.streaming.multipleWatermarkPolicy (min|max: "... valid values
 * are 'min' and 'max'"), ...noDataMicroBatches.enabled,
 * ...statefulOperator.allowMultiple (true|false), ...minBatchesToRetain
 * (positive), spark.sql.session.timeZone (only UTC is supported: say so),
 * spark.sql.shuffle.partitions, spark.sql.streaming.numRecentProgressUpdates.
 * Unknown keys are stored as given (Spark does). */
int sl_session_conf_set(sl_session *s, const char *key, const char *val,
			sl_err *err);
/* The value, the default of a known key, or NULL.  Borrowed. */
const char *sl_session_conf_get(sl_session *s, const char *key);
int sl_session_conf_unset(sl_session *s, const char *key);

/* Whether queries started from now on record the events only the
 * workbench's panes read (each changed state row's text, each batch's
 * event times: feed.h's sl_feed_set_panes).  Default on.  A session with
 * no screen to draw them (`streamlab run`, -e, `streamlab sql`) turns it
 * off: formatting every changed group's row was a fifth of W1's
 * instructions there.  A restarted query keeps its first run's setting. */
void sl_session_set_panes(sl_session *s, bool on);
bool sl_session_panes(const sl_session *s);

/* Where console-sink output and notices go (default: nowhere). */
typedef void (*sl_write_fn)(void *ud, const char *s, size_t n);
void sl_session_set_output(sl_session *s, sl_write_fn fn, void *ud);
void sl_session_write(sl_session *s, const char *text, size_t n);

/* ---- streams (spark.streams) ---- */
int sl_session_active_count(const sl_session *s);
/* i-th active query in start order (borrowed). */
sl_query *sl_session_active(const sl_session *s, int i);
/* By id (UUID string), borrowed, or NULL. */
sl_query *sl_session_find(const sl_session *s, const char *id);

/* Run every trigger due at the clock's now, for every active query, in
 * start order.  A failing query records its exception and stops; that is
 * not an error of tick.  Returns the number of batches run. */
int sl_session_tick(sl_session *s, sl_err *err);
/* Manual clock: move forward by us, stopping at every instant a trigger
 * falls due to run it there.  Real clock: just tick.  Returns batches run. */
int sl_session_advance(sl_session *s, int64_t us, sl_err *err);
/* Wait until every active query's checkpoint writes so far are durable
 * (tick and advance do not wait: the writer runs behind the batches, at
 * most a batch behind).  The console calls it when it is back at the
 * prompt, so what a learner looks at (or kills) is on disk.  A failed
 * write becomes that query's exception. */
void sl_session_sync(sl_session *s);

/* Listener events, as StreamingQueryListener. */
enum {
	SL_LISTEN_STARTED = 1,
	SL_LISTEN_PROGRESS,
	SL_LISTEN_IDLE,
	SL_LISTEN_TERMINATED
};
/* json: the event as Spark's JSON (progress for PROGRESS; {"id","runId",
 * "name","timestamp"} for STARTED; {"id","runId","exception"} for
 * TERMINATED). */
typedef void (*sl_listener_fn)(void *ud, int event, sl_query *q,
			       const char *json);
/* Returns a handle > 0 for removal. */
int sl_session_add_listener(sl_session *s, sl_listener_fn fn, void *ud,
			    void (*free_ud)(void *));
int sl_session_remove_listener(sl_session *s, int handle);

/* ---- used by query.c only ---- */
int sl_session_register(sl_session *s, sl_query *q, sl_err *err);
void sl_session_unregister(sl_session *s, sl_query *q);
void sl_session_notify(sl_session *s, int event, sl_query *q, const char *json);

#endif
