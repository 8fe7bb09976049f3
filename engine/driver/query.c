/*
 * query: a running streaming query (query.h): starting it (checks, ids,
 * sources, sink, operators), its accessors, stopping and failing, and the
 * triggers that decide when query_batch.c runs a micro-batch.
 *
 * Threads: none.  Batches run on the caller's thread from sl_session_tick,
 * sl_query_step or sl_query_process_all_available.  A foreachBatch
 * function may re-enter the engine (clock:advance ticks the other
 * queries); the `running` flag keeps a query out of its own batch, and a
 * stop asked for from inside the batch takes effect when the batch ends.
 *
 * Triggers (stream.h): default runs batches until the sources reach the
 * offsets seen when the tick began; ProcessingTime runs one batch at each
 * multiple of the interval of the clock (Spark's nextBatchTime), the first
 * at start when data was already there; Once runs one batch without rate
 * limits and stops; AvailableNow fixes the latest offsets at start, runs
 * rate-limited batches up to them and stops.
 *
 * Time: only the session clock (never the wall clock), so on a manual clock
 * every duration is 0 and every run prints the same progress.
 */
#include "driver/query.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/exec_stream.h"
#include "driver/query_int.h"
#include "sources/source.h"
#include "core/timeutil.h"

#define FEED_EVENTS 2048
#define LATE_EVENTS 1000 /* q:lateRows keeps the newest 1000 */

/* ------------------------------------------------------ small helpers */

char *sl_query_strdup(const char *s, bool *oom)
{
	char *d;
	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		*oom = true;
	return d;
}

void sl_query_offsets_free(char **v, int n)
{
	int i;
	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sl_query_event(sl_query *q, sl_event_kind kind, int64_t batch_id,
		    const char *text, const char *json)
{
	sl_feed_add(q->feed, kind, batch_id, sl_query_now(q), text, json);
}

/* After a trigger: what an observer of Spark's query sees between
 * triggers ("Waiting for data to arrive" while polling; "Waiting for next
 * trigger" while a ProcessingTime trigger sleeps). */
void sl_query_idle_status(sl_query *q)
{
	const char *msg = q->trigger.kind == SL_TRIGGER_PROCESSING
			      ? "Waiting for next trigger"
			      : "Waiting for data to arrive";
	sl_buf why, one;
	int i;
	/* a source holding data back says why, in parentheses:
	 * "Waiting for data to arrive (kafka: partition events-0
	 * unavailable: leader broker 1 not answering)" */
	sl_buf_init(&why);
	sl_buf_init(&one);
	for (i = 0; q->src != NULL && i < q->nsrc; i++) {
		if (q->src[i] == NULL || q->src[i]->ops->status == NULL)
			continue;
		sl_buf_clear(&one);
		q->src[i]->ops->status(q->src[i], &one);
		if (one.len == 0)
			continue; /* nothing to say */
		if (why.len > 0)
			sl_buf_adds(&why, "; ");
		sl_buf_add(&why, one.p, one.len);
	}
	if (why.len > 0) {
		sl_buf_clear(&one);
		sl_buf_adds(&one, msg);
		sl_buf_adds(&one, " (");
		sl_buf_add(&one, why.p, why.len);
		sl_buf_addc(&one, ')');
		if (!sl_buf_failed(&one) && one.len < sizeof q->idle_msg) {
			memcpy(q->idle_msg, one.p, one.len + 1);
			msg = q->idle_msg;
		}
	}
	sl_buf_release(&one);
	sl_buf_release(&why);
	sl_query_set_status(q, msg);
	q->trigger_active = false;
}

/* Spark's ProcessingTimeExecutor.nextBatchTime: the next multiple of the
 * interval of the clock strictly after now. */
static int64_t next_multiple(int64_t now, int64_t interval)
{
	if (interval <= 0)
		return now;
	return sl_floordiv(now, interval) * interval + interval;
}

/* ------------------------------------------------------ life cycle */

/* Sinks whose state lives in this process (the session's table, the Lua
 * function): sl_query_restart hands them to the restarted query. */
static bool sink_kept(const sl_sink *k)
{
	return k != NULL && (strcmp(k->ops->name, "memory") == 0 ||
			     strcmp(k->ops->name, "foreachBatch") == 0);
}

/* Kept at stop only after a (simulated) crash, for sl_query_restart: a
 * stop or a failure releases them as before (a new start() opens a fresh
 * table, as Spark's, and brings its own function). */
static bool keep_at_stop(const sl_query *q)
{
	return sink_kept(q->sink) && q->crashed;
}

static void close_run(sl_query *q)
{
	int i;
	for (i = 0; i < q->nsrc; i++)
		if (q->src != NULL && q->src[i] != NULL) {
			sl_source_close(q->src[i]);
			q->src[i] = NULL;
		}
	if (q->sink != NULL && keep_at_stop(q) && q->kept_sink == NULL) {
		q->sink->crash = NULL;
		q->kept_sink = q->sink;
	} else if (q->sink != NULL) {
		sl_sink_close(q->sink);
	}
	q->sink = NULL;
	if (q->collect != NULL) {
		if (q->collect->nchild == 0)
			sl_op_free(q->root); /* compile did not hang it below */
		sl_op_free(q->collect);
	} else {
		sl_op_free(q->root);
	}
	q->collect = NULL;
	q->root = NULL;
}

static void destroy(sl_query *q)
{
	int i;
	q->clean_stop = !q->crashed;
	close_run(q);
	sl_query_ckpt_close(q);
	sl_sink_close(q->kept_sink);
	sl_crash_free(q->crash);
	sl_ckpt_offsets_release(&q->replay_off);
	free(q->ckdir);
	free(q->ckpt_json);
	free(q->snap_base);
	free(q->format);
	sl_options_release(&q->sink_opts);
	free(q->src);
	free(q->leaf_src);
	if (q->desc != NULL)
		for (i = 0; i < q->nsrc; i++)
			free(q->desc[i]);
	free(q->desc);
	sl_query_offsets_free(q->start, q->nsrc);
	sl_query_offsets_free(q->target, q->nsrc);
	free(q->sink_desc);
	sl_plan_free(q->plan);
	sl_feed_free(q->feed);
	sl_feed_free(q->ctx.late);
	free(q->name);
	free(q->checkpoint);
	free(q->exception);
	sl_buf_release(&q->status_buf);
	free(q->last_progress);
	free(q->wm.node_ms);
	if (q->recent != NULL)
		for (i = 0; i < q->recent_cap; i++)
			free(q->recent[i]);
	free(q->recent);
	free(q);
}

sl_query *sl_query_ref(sl_query *q)
{
	q->refs++;
	return q;
}

void sl_query_free(sl_query *q)
{
	if (q == NULL || --q->refs > 0)
		return;
	destroy(q);
}

const char *sl_query_id(const sl_query *q)
{
	return q->id;
}

const char *sl_query_run_id(const sl_query *q)
{
	return q->run_id;
}

const char *sl_query_name(const sl_query *q)
{
	return q->name;
}

bool sl_query_is_active(const sl_query *q)
{
	return q->active;
}

const char *sl_query_status_json(sl_query *q)
{
	const char *msg = q->status_msg, *pt;
	char held[160];
	/* held: say what the query waits for, not "Waiting for data" */
	if (q->held && q->active && !q->running) {
		if ((pt = sl_crash_armed(q->crash)) != NULL)
			snprintf(held, sizeof held,
				 "Waiting for a step (crash armed at '%s')",
				 pt);
		else if (q->replay)
			snprintf(held, sizeof held,
				 "Waiting for a step (re-runs interrupted "
				 "batch %lld)",
				 (long long)q->replay_id);
		else
			snprintf(held, sizeof held, "Waiting for a step");
		msg = held;
	}
	sl_buf_clear(&q->status_buf);
	sl_progress_status_json(msg, q->data_available, q->trigger_active,
				&q->status_buf);
	return sl_buf_cstr(&q->status_buf);
}

const char *sl_query_last_progress_json(const sl_query *q)
{
	return q->last_progress;
}

int sl_query_recent_count(const sl_query *q)
{
	return q->nrecent;
}

const char *sl_query_recent_json(const sl_query *q, int i)
{
	if (i < 0 || i >= q->nrecent)
		return NULL;
	return q->recent[(q->recent_head + i) % q->recent_cap];
}

const char *sl_query_exception(const sl_query *q)
{
	return q->exception;
}

sl_feed *sl_query_feed(sl_query *q)
{
	return q->feed;
}

sl_feed *sl_query_late(sl_query *q)
{
	return q->ctx.late;
}

int64_t sl_query_last_batch_id(const sl_query *q)
{
	return q->last_batch_id;
}

void sl_query_explain(const sl_query *q, bool extended, sl_buf *out)
{
	if (q->last_batch_id < 0) {
		sl_buf_adds(out, "No physical plan. Waiting for data.\n");
		return;
	}
	sl_plan_explain(q->plan, extended, out);
}

int64_t sl_query_next_due(const sl_query *q)
{
	if (!q->active || q->running || q->held ||
	    q->trigger.kind == SL_TRIGGER_DEFAULT)
		return INT64_MAX;
	return q->next_due;
}

/* ------------------------------------------------------------ start */

static int stop_active_run(sl_session *s, const sl_query_opts *o,
			   sl_err *err);

static int check_start(sl_session *s, sl_plan *plan, const sl_query_opts *o,
		       sl_err *err)
{
	int i, rc;
	if (!sl_plan_is_streaming(plan))
		return sl_err_set(err, SL_EANALYSIS,
				  "Queries without streaming sources cannot be "
				  "executed with writeStream.start()");
	if ((rc = sl_exec_stream_check(plan, o->mode, err)) < 0)
		return rc;
	if (o->trigger.kind == SL_TRIGGER_PROCESSING &&
	    o->trigger.interval_us < 0)
		return sl_err_set(
		    err, SL_EINVAL,
		    "the interval of trigger should not be negative");
	if (o->foreach_fn == NULL && (o->format == NULL || *o->format == '\0'))
		return sl_err_set(err, SL_EINVAL,
				  "writeStream: no sink (use format(...) or "
				  "foreachBatch(...))");
	if (o->name != NULL)
		for (i = 0; i < sl_session_active_count(s); i++) {
			const char *n = sl_query_name(sl_session_active(s, i));
			if (n != NULL && strcmp(n, o->name) == 0)
				return sl_err_set(
				    err, SL_EINVAL,
				    "Cannot start query with name %s as a "
				    "query with that name is already active "
				    "in this SparkSession",
				    o->name);
		}
	return stop_active_run(s, o, err);
}

/* Spark 3.5's StreamingQueryManager: a start on a checkpoint an active
 * query uses (the same query id) stops that run first, with Spark's log
 * line, unless spark.sql.streaming.stopActiveRunOnRestart is false (then
 * Spark's error).  Without this the checkpoint's lock refuses the start. */
static int stop_active_run(sl_session *s, const sl_query_opts *o, sl_err *err)
{
	char want[PATH_MAX], have[PATH_MAX];
	const char *conf;
	sl_query *old = NULL;
	sl_buf b;
	int i;
	if (o->checkpoint == NULL || realpath(o->checkpoint, want) == NULL)
		return 0;
	for (i = 0; i < sl_session_active_count(s) && old == NULL; i++) {
		sl_query *a = sl_session_active(s, i);
		if (a->active && a->ckdir != NULL && !a->ck_temp &&
		    realpath(a->ckdir, have) != NULL && strcmp(have, want) == 0)
			old = a;
	}
	if (old == NULL)
		return 0;
	conf = sl_session_conf_get(
	    s, "spark.sql.streaming.stopActiveRunOnRestart");
	if (conf != NULL && strcasecmp(conf, "false") == 0)
		return sl_err_set(
		    err, SL_ESTATE,
		    "Cannot start query with id %s as another query with same id is already active. Perhaps you are attempting to restart a query from checkpoint that is already active. You may stop the old query by setting the SQL configuration: spark.conf.set(\"spark.sql.streaming.stopActiveRunOnRestart\", true) and retry.",
		    old->id);
	sl_buf_init(&b);
	sl_buf_printf(&b,
		      "Stopping existing streaming query [id=%s, runId=%s], "
		      "as a new run is being started.",
		      old->id, old->run_id);
	sl_query_event(old, SL_EV_LOG, -1, sl_buf_cstr(&b), NULL);
	sl_buf_release(&b);
	sl_query_stop(old);
	return 0;
}

/* The newest offset of every source now (NULL entries: no data yet). */
int sl_query_poll_latest(sl_query *q, char **out, sl_err *err)
{
	int i, rc;
	for (i = 0; i < q->nsrc; i++) {
		out[i] = NULL;
		if ((rc = q->src[i]->ops->latest(q->src[i], &out[i], err)) <
		    0) {
			sl_err_prefix(err, q->desc[i]);
			while (i-- > 0) {
				free(out[i]);
				out[i] = NULL;
			}
			return rc;
		}
	}
	return 0;
}

static int open_sources(sl_query *q, sl_err *err)
{
	sl_source_desc **d = NULL;
	int i, n = 0, rc;
	sl_buf b;
	if ((rc = sl_exec_stream_sources(q->plan, &d, &n, err)) < 0)
		return rc;
	q->src = calloc((size_t)(n ? n : 1), sizeof *q->src);
	q->desc = calloc((size_t)(n ? n : 1), sizeof *q->desc);
	q->start = calloc((size_t)(n ? n : 1), sizeof *q->start);
	q->leaf_src = calloc((size_t)(n ? n : 1), sizeof *q->leaf_src);
	if (q->src == NULL || q->desc == NULL || q->start == NULL ||
	    q->leaf_src == NULL) {
		free(d);
		return sl_err_nomem(err);
	}
	/* the unique sources first (d[] is compacted in place) */
	q->nleaf = n;
	q->nsrc = 0;
	for (i = 0; i < n; i++) {
		int k;
		for (k = 0; k < q->nsrc; k++)
			if (sl_source_desc_same(d[k], d[i]))
				break;
		if (k == q->nsrc)
			d[q->nsrc++] = d[i];
		q->leaf_src[i] = k;
	}
	n = q->nsrc;
	for (i = 0; i < n; i++) {
		char meta[4200];
		q->src[i] = sl_source_open(
		    d[i], q->clock,
		    sl_query_ckpt_source_dir(q, i, meta, sizeof meta), err);
		if (q->src[i] != NULL) /* source notes (Kafka) reach the feed */
			q->src[i]->feed = q->feed;
		if (q->src[i] == NULL) {
			free(d);
			return err ? err->code : SL_EINTERNAL;
		}
		sl_buf_init(&b);
		q->src[i]->ops->describe(q->src[i], &b);
		if (sl_buf_failed(&b) ||
		    (q->desc[i] = sl_buf_detach(&b)) == NULL) {
			sl_buf_release(&b);
			free(d);
			return sl_err_nomem(err);
		}
	}
	free(d);
	return 0;
}

static int open_sink(sl_query *q, const sl_query_opts *o, void **fe_ud,
		     sl_query *from, sl_err *err)
{
	sl_buf b;
	if (from != NULL && from->kept_sink != NULL) {
		q->sink = from->kept_sink; /* its table / function carry on */
		from->kept_sink = NULL;
	} else if (o->foreach_fn != NULL) {
		q->sink = sl_sink_foreach_new(o->foreach_fn, *fe_ud,
					      o->foreach_free, o->mode, err);
		if (q->sink != NULL)
			*fe_ud = NULL; /* the sink owns it now */
	} else {
		sl_options none;
		sl_options_init(&none);
		q->sink = sl_sink_open(sl_session_sink_host(q->sess), o->format,
				       o->sink_opts ? o->sink_opts : &none,
				       o->mode, q->name, q->id, err);
		sl_options_release(&none);
	}
	if (q->sink == NULL)
		return err ? err->code : SL_EINTERNAL;
	q->sink->crash = q->crash;
	sl_buf_init(&b);
	q->sink->ops->describe(q->sink, &b);
	if (sl_buf_failed(&b) || (q->sink_desc = sl_buf_detach(&b)) == NULL) {
		sl_buf_release(&b);
		return sl_err_nomem(err);
	}
	return 0;
}

static int setup_trigger(sl_query *q, sl_err *err)
{
	int64_t now = sl_query_now(q);
	char **lat;
	int i, rc;
	bool any = false;
	q->next_due = now; /* Once/AvailableNow: due at once */
	if (q->trigger.kind != SL_TRIGGER_PROCESSING &&
	    q->trigger.kind != SL_TRIGGER_AVAILABLE_NOW)
		return 0;
	lat = calloc((size_t)(q->nsrc ? q->nsrc : 1), sizeof *lat);
	if (lat == NULL)
		return sl_err_nomem(err);
	if ((rc = sl_query_poll_latest(q, lat, err)) < 0) {
		free(lat);
		return rc;
	}
	if (q->trigger.kind == SL_TRIGGER_AVAILABLE_NOW) {
		q->target = lat; /* fixed for the whole run */
		return 0;
	}
	/* Spark triggers a ProcessingTime query at once when it starts; that
	 * first trigger only finds data that was there before start(). */
	for (i = 0; i < q->nsrc; i++)
		if (!sl_query_same_offset(lat[i], q->start[i]))
			any = true;
	if (q->replay)
		any = true;
	sl_query_offsets_free(lat, q->nsrc);
	if (!any)
		q->next_due = next_multiple(now, q->trigger.interval_us);
	return 0;
}

/* spark.sql.streaming.noDataProgressEventInterval (a time conf: "10000"
 * is milliseconds, "100ms", "10s", or "10 seconds"); default 10 s. */
static int noexec_interval(sl_query *q, sl_err *err)
{
	const char *v = sl_session_conf_get(
	    q->sess, "spark.sql.streaming.noDataProgressEventInterval");
	static const struct {
		const char *suffix;
		int64_t us;
	} units[] = { { "ms", 1000 }, { "s", 1000000 }, { "m", 60000000 },
		      { "min", 60000000 }, { "h", 3600000000LL } };
	char *end;
	long long n;
	size_t i;
	q->noexec_interval_us = 10000000;
	if (v == NULL)
		return 0;
	n = strtoll(v, &end, 10);
	if (end != v && n >= 0) {
		if (*end == '\0') {
			q->noexec_interval_us = (int64_t)n * 1000;
			return 0;
		}
		for (i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strcmp(end, units[i].suffix) == 0) {
				q->noexec_interval_us = (int64_t)n * units[i].us;
				return 0;
			}
	}
	if (sl_duration_parse(v, &q->noexec_interval_us, NULL) == 0 &&
	    q->noexec_interval_us >= 0)
		return 0;
	return sl_err_set(err, SL_EINVAL,
			  "spark.sql.streaming.noDataProgressEventInterval: "
			  "bad time '%s' (use milliseconds, '100ms' or '10s')",
			  v);
}

static int recent_setup(sl_query *q, sl_err *err)
{
	const char *v = sl_session_conf_get(
	    q->sess, "spark.sql.streaming.numRecentProgressUpdates");
	long n = v ? strtol(v, NULL, 10) : 100;
	n = n < 0 ? 0 : n > 100000 ? 100000 : n;
	q->recent_keep = (int)n;
	q->recent_cap = n > 0 ? (int)n : 1;
	q->recent = calloc((size_t)q->recent_cap, sizeof *q->recent);
	return q->recent == NULL ? sl_err_nomem(err) : 0;
}

static sl_query *query_new(sl_session *s, sl_plan *plan, const sl_query_opts *o,
			   sl_err *err)
{
	sl_query *q = calloc(1, sizeof *q);
	bool oom = false;
	if (q == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	q->refs = 1;
	q->sess = s;
	q->clock = sl_session_clock(s);
	sl_stream_uuid(q->id);
	sl_stream_uuid(q->run_id);
	q->name = sl_query_strdup(o->name, &oom);
	q->checkpoint = sl_query_strdup(o->checkpoint, &oom);
	q->format = sl_query_strdup(o->format, &oom);
	q->home = s;
	q->ck_torn_id = -1;
	sl_ckpt_offsets_init(&q->replay_off);
	sl_options_init(&q->sink_opts);
	if (o->sink_opts != NULL &&
	    sl_options_copy(&q->sink_opts, o->sink_opts) != 0)
		oom = true;
	q->plan = sl_plan_ref(plan);
	q->trigger = o->trigger;
	if (q->trigger.kind == SL_TRIGGER_PROCESSING &&
	    q->trigger.interval_us == 0)
		q->trigger.kind =
		    SL_TRIGGER_DEFAULT; /* Spark: as fast as it can */
	q->feed = sl_feed_new(FEED_EVENTS);
	if (q->feed != NULL)
		sl_feed_set_panes(q->feed, sl_session_panes(s));
	q->last_batch_id = -1;
	q->last_trigger = -1;
	q->last_noexec_us = INT64_MIN;
	sl_buf_init(&q->status_buf);
	sl_query_set_status(q, "Initializing sources");
	q->ctx.batch_id = -1;
	q->ctx.mode = o->mode;
	q->ctx.wm_late_us = INT64_MIN;
	q->ctx.wm_evict_us = INT64_MIN;
	q->ctx.feed = q->feed;
	q->ctx.late = sl_feed_new(LATE_EVENTS);
	if (oom || q->feed == NULL || q->ctx.late == NULL) {
		destroy(q);
		sl_err_nomem(err);
		return NULL;
	}
	return q;
}

/* The checkpoint, the sink, the sources and the operators, in the order
 * query_ckpt.c describes; from: the query sl_query_restart restarts. */
static int open_run(sl_query *q, const sl_query_opts *opts, void **fe_ud,
		    sl_query *from, sl_err *err)
{
	int rc;
	if ((rc = sl_query_ckpt_open(q, opts, from, err)) < 0 ||
	    (rc = open_sink(q, opts, fe_ud, from, err)) < 0 ||
	    (from == NULL &&
	     (rc = sl_sink_prepare(q->sink, sl_plan_schema(q->plan), err)) <
		 0) ||
	    (rc = sl_query_ckpt_check(q, err)) < 0 ||
	    (rc = open_sources(q, err)) < 0 || (rc = recent_setup(q, err)) < 0)
		return rc;
	if ((q->collect = sl_exec_collector_new(err)) == NULL)
		return err ? err->code : SL_ENOMEM;
	sl_exec_collector_discard(q->collect, q->sink->ops->discards);
	q->root = sl_exec_stream_compile(q->plan, q->collect, &q->ctx, err);
	if (q->root == NULL)
		return err ? err->code : SL_EINTERNAL;
	if ((rc = sl_query_wm_init(q, err)) < 0 ||
	    (rc = noexec_interval(q, err)) < 0 ||
	    (rc = sl_query_ckpt_restore(q, err)) < 0 ||
	    (rc = setup_trigger(q, err)) < 0 ||
	    (rc = sl_query_ckpt_started(q, err)) < 0)
		return rc;
	return 0;
}

static sl_query *start_query(sl_session *s, sl_plan *plan,
			     const sl_query_opts *opts, sl_query *from,
			     sl_err *err)
{
	void *fe_ud = opts->foreach_ud;
	sl_query *q = NULL;
	sl_buf b;
	int rc;
	if ((rc = check_start(s, plan, opts, err)) < 0)
		goto fail;
	if ((q = query_new(s, plan, opts, err)) == NULL)
		goto fail;
	if ((rc = open_run(q, opts, &fe_ud, from, err)) < 0 ||
	    (rc = sl_session_register(s, q, err)) < 0)
		goto fail;
	q->active = true;
	sl_buf_init(&b);
	sl_buf_printf(&b, "started query %s run %s", q->id, q->run_id);
	sl_query_event(q, SL_EV_QUERY_START, -1, sl_buf_cstr(&b), NULL);
	sl_buf_clear(&b);
	sl_progress_started_json(q->id, q->run_id, q->name, sl_query_now(q),
				 &b);
	sl_session_notify(s, SL_LISTEN_STARTED, q, sl_buf_cstr(&b));
	sl_buf_release(&b);
	return q;
fail:
	if (fe_ud != NULL && opts->foreach_free != NULL)
		opts->foreach_free(fe_ud);
	if (q != NULL && from != NULL && q->sink != NULL &&
	    from->kept_sink == NULL && sink_kept(q->sink)) {
		q->sink->crash = NULL; /* back to the crashed query */
		from->kept_sink = q->sink;
		q->sink = NULL;
	}
	if (q != NULL)
		destroy(q);
	return NULL;
}

sl_query *sl_query_start(sl_session *s, sl_plan *plan,
			 const sl_query_opts *opts, sl_err *err)
{
	return start_query(s, plan, opts, NULL, err);
}

/* "restart: query 'x' <why>". */
static sl_query *refuse(sl_err *err, const sl_query *q, const char *why)
{
	sl_err_set(err, SL_ESTATE, "restart: query '%s' %s",
		   q->name ? q->name : q->id, why);
	return NULL;
}

sl_query *sl_query_restart(sl_query *q, sl_err *err)
{
	sl_query_opts o;
	sl_query *n;
	if (q->active)
		return refuse(err, q,
			      "is still active (stop it, or crash it first)");
	if (q->home == NULL || q->ckdir == NULL)
		return refuse(err, q, "has no checkpoint to restart from");
	memset(&o, 0, sizeof o);
	o.name = q->name;
	o.mode = q->ctx.mode;
	o.trigger = q->trigger;
	o.checkpoint = q->ckdir;
	o.format = q->format;
	o.sink_opts = &q->sink_opts;
	if (q->kept_sink == NULL && q->format == NULL)
		return refuse(err, q, "has lost its foreachBatch function");
	if (q->kept_sink != NULL && q->format == NULL)
		o.format = "foreachBatch"; /* the kept sink stands for it */
	n = start_query(q->home, q->plan, &o, q, err);
	if (n == NULL)
		return NULL;
	/* the crash stays in q's feed; the new run's feed starts with the
	 * recovery and the replay (the screen joins runs by query id) */
	sl_feed_set_detail(n->feed, sl_feed_wants(q->feed, SL_EV_BAD_RECORD));
	sl_feed_set_panes(n->feed, sl_feed_wants(q->feed, SL_EV_STATE_ROW));
	sl_query_event(n, SL_EV_LOG, -1, "restarted from the checkpoint", NULL);
	return n;
}

/* ------------------------------------------------------------- stop */

void sl_query_stop_now(sl_query *q, const char *why)
{
	sl_session *s = q->sess;
	sl_buf b;
	sl_err e;
	if (!q->active)
		return;
	/* the batches' queued checkpoint files, before anything says stopped */
	if (q->ck != NULL && sl_ckpt_sync(q->ck, &e) < 0 && why == NULL &&
	    q->exception == NULL) {
		q->exception = strdup(e.msg);
		q->exc_code = e.code;
		why = q->exception;
	}
	q->active = false;
	q->stop_pending = false;
	q->data_available = false;
	q->trigger_active = false;
	sl_query_set_status(q, "Stopped");
	q->clean_stop = why == NULL && q->exception == NULL && !q->crashed;
	close_run(q);
	sl_query_ckpt_close(q);
	sl_buf_init(&b);
	if (why != NULL)
		sl_buf_printf(&b, "query %s terminated with exception: %s",
			      q->id, why);
	else
		sl_buf_printf(&b, "query %s stopped", q->id);
	sl_query_event(q, SL_EV_QUERY_END, -1, sl_buf_cstr(&b), NULL);
	sl_buf_clear(&b);
	sl_progress_terminated_json(q->id, q->run_id, q->exception, &b);
	/* from here on the query is a record: no session, no clock */
	q->sess = NULL;
	q->clock = NULL;
	sl_query_ref(q);
	if (s != NULL) {
		sl_session_unregister(s, q);
		sl_session_notify(s, SL_LISTEN_TERMINATED, q, sl_buf_cstr(&b));
	}
	sl_buf_release(&b);
	sl_query_free(q);
}

void sl_query_stop(sl_query *q)
{
	if (q->running) {
		q->stop_pending = true; /* from inside its own batch */
		return;
	}
	sl_query_stop_now(q, NULL);
}

/* The batch failed: remember why (message, then the details: a Lua
 * traceback for foreachBatch errors), tell the feed, stop. */
void sl_query_fail(sl_query *q, int64_t batch_id, const sl_err *e)
{
	const char *msg = e != NULL && e->msg[0] ? e->msg : "unknown error";
	sl_buf b;
	sl_buf_init(&b);
	sl_buf_adds(&b, msg);
	if (e != NULL && e->hint[0]) {
		sl_buf_addc(&b, '\n');
		sl_buf_adds(&b, e->hint);
	}
	free(q->exception);
	q->exception = sl_buf_detach(&b);
	q->exc_code = e != NULL && e->code < 0 ? e->code : SL_EINTERNAL;
	sl_buf_init(&b);
	sl_buf_adds(&b, "{\"code\":");
	sl_buf_json_str(&b, sl_err_codename(e ? e->code : SL_EINTERNAL),
			strlen(sl_err_codename(e ? e->code : SL_EINTERNAL)));
	sl_buf_adds(&b, ",\"message\":");
	sl_buf_json_str(&b, msg, strlen(msg));
	/* the caller reports it (the REPL's error line): a screen need not
	 * print it a second time */
	if (q->asked)
		sl_buf_adds(&b, ",\"returned\":true");
	sl_buf_addc(&b, '}');
	sl_query_event(q, SL_EV_ERROR, batch_id, msg, sl_buf_cstr(&b));
	sl_buf_release(&b);
	q->running = false;
	sl_query_stop_now(q, msg);
}

/* A crash point was hit: the query stops as if the process died.  Files
 * stay as they are; the operators and their state go with close_run. */
void sl_query_crashed(sl_query *q, int64_t batch_id, const sl_err *e)
{
	const char *msg = e != NULL && e->msg[0] ? e->msg : "simulated crash";
	sl_buf b;
	free(q->exception);
	q->exception = strdup(msg);
	q->exc_code = SL_ECRASH;
	q->crashed = true;
	sl_buf_init(&b);
	sl_buf_printf(&b,
		      "{\"batchId\":%lld,\"message\":", (long long)batch_id);
	sl_buf_json_str(&b, msg, strlen(msg));
	sl_buf_addc(&b, '}');
	sl_query_event(q, SL_EV_CRASH, batch_id, msg, sl_buf_cstr(&b));
	sl_buf_release(&b);
	q->running = false;
	sl_query_stop_now(q, msg);
}

/* ---------------------------------------------------------- triggers */

static bool (*interrupt_check)(void);

void sl_query_set_interrupt_check(bool (*check)(void))
{
	interrupt_check = check;
}

/* Batches until every source reached the offsets recorded now (several
 * when a source has a rate limit).  Offsets recorded once, so a source
 * that keeps growing cannot keep the caller here forever; Ctrl-C ends it
 * between two batches. */
static int run_available(sl_query *q, char *const *cap_in, int *batches,
			 sl_err *err)
{
	char **cap = NULL;
	bool ran = true;
	int rc = 0;
	while (ran && q->active && !q->stop_pending && rc == 0 &&
	       (interrupt_check == NULL || !interrupt_check())) {
		if (cap_in == NULL &&
		    cap == NULL) /* polls; keeps what it saw */
			rc = sl_query_run_batch(q, NULL, true, &ran, &cap, err);
		else
			rc = sl_query_run_batch(q, cap_in ? cap_in : cap, true,
						&ran, NULL, err);
		if (ran && batches != NULL)
			(*batches)++;
	}
	sl_query_offsets_free(cap, q->nsrc);
	return rc;
}

/* Trigger.Once: one batch with everything there is (no rate limits),
 * then the query stops, data or not. */
static int run_once(sl_query *q, int *batches, sl_err *err)
{
	bool ran = false;
	int rc = sl_query_run_batch(q, NULL, false, &ran, NULL, err);
	if (ran && batches != NULL)
		(*batches)++;
	if (rc == 0)
		sl_query_stop(q);
	return rc;
}

static int run_available_now(sl_query *q, int *batches, sl_err *err)
{
	int rc = run_available(q, q->target, batches, err);
	if (rc == 0)
		sl_query_stop(q);
	return rc;
}

/* What the trigger makes due at now; errors are the query's. */
static int trigger_due(sl_query *q, int *batches, sl_err *err)
{
	int64_t t = sl_query_now(q);
	bool ran = false;
	int rc;
	switch (q->trigger.kind) {
	case SL_TRIGGER_ONCE: return run_once(q, batches, err);
	case SL_TRIGGER_AVAILABLE_NOW:
		return run_available_now(q, batches, err);
	case SL_TRIGGER_PROCESSING:
		if (t < q->next_due)
			return 0;
		q->next_due = next_multiple(t, q->trigger.interval_us);
		rc = sl_query_run_batch(q, NULL, true, &ran, NULL, err);
		if (ran)
			(*batches)++;
		return rc;
	case SL_TRIGGER_DEFAULT:
	default: return run_available(q, NULL, batches, err);
	}
}

int sl_query_tick(sl_query *q, int *batches, sl_err *err)
{
	int n = 0;
	if (batches == NULL)
		batches = &n;
	*batches = 0;
	if (!q->active || q->running || q->held)
		return 0;
	/* a failure is recorded as the query's exception, not tick's.  No
	 * wait for the checkpoint writer here: a clock advanced batch after
	 * batch (W4) overlaps the writes of batch N with batch N+1's work
	 * (query_batch.c, "what waits"); whoever looks at the checkpoint
	 * syncs first (sl_session_sync, sl_query_checkpoint_json, stop) */
	(void)trigger_due(q, batches, err);
	return 0;
}

bool sl_query_held(const sl_query *q)
{
	return q->held;
}

void sl_query_resume(sl_query *q)
{
	q->held = false;
}

static int not_runnable(const sl_query *q, const char *what, sl_err *err)
{
	if (q->running)
		return sl_err_set(
		    err, SL_ESTATE,
		    "%s: query '%s' is running a batch (called from "
		    "its own foreachBatch function?)",
		    what, q->name ? q->name : q->id);
	if (q->exception != NULL) {
		const char *nl = strchr(q->exception, '\n');
		int len =
		    nl ? (int)(nl - q->exception) : (int)strlen(q->exception);
		sl_err_set(err, q->exc_code, "%.*s", len, q->exception);
		if (nl != NULL)
			sl_err_hint(err, "%s", nl + 1);
		return q->exc_code;
	}
	return 0;
}

static int step_trigger(sl_query *q, bool *ran, sl_err *err);

/* A batch the caller asked for (processAllAvailable, step) ran in a
 * ProcessingTime slot that was due (the first trigger after a start, say
 * a re-run batch after a restart): that slot is taken, the next is
 * Spark's ProcessingTimeExecutor's now / interval * interval + interval,
 * not the same instant again. */
static void slot_taken(sl_query *q)
{
	int64_t now = sl_query_now(q);
	if (q->trigger.kind == SL_TRIGGER_PROCESSING && q->active &&
	    q->last_trigger >= 0 && q->next_due <= now)
		q->next_due = next_multiple(now, q->trigger.interval_us);
}

int sl_query_step(sl_query *q, bool *ran, sl_err *err)
{
	bool r = false;
	int rc;
	if (ran == NULL)
		ran = &r;
	*ran = false;
	if ((rc = not_runnable(q, "step", err)) < 0)
		return rc;
	if (!q->active)
		return sl_err_set(err, SL_ESTATE,
				  "step: query '%s' is not active",
				  q->name ? q->name : q->id);
	q->asked = true;
	rc = step_trigger(q, ran, err);
	if (*ran)
		slot_taken(q);
	q->asked = false;
	return rc;
}

static int step_trigger(sl_query *q, bool *ran, sl_err *err)
{
	int rc;
	switch (q->trigger.kind) {
	case SL_TRIGGER_ONCE:
		rc = sl_query_run_batch(q, NULL, false, ran, NULL, err);
		if (rc == 0)
			sl_query_stop(q);
		return rc;
	case SL_TRIGGER_AVAILABLE_NOW:
		rc = sl_query_run_batch(q, q->target, true, ran, NULL, err);
		if (rc == 0 && !*ran)
			sl_query_stop(q);
		return rc;
	default: return sl_query_run_batch(q, NULL, true, ran, NULL, err);
	}
}

int sl_query_process_all_available(sl_query *q, sl_err *err)
{
	int rc;
	if ((rc = not_runnable(q, "processAllAvailable", err)) < 0)
		return rc;
	if (!q->active)
		return 0;
	q->asked = true;
	switch (q->trigger.kind) {
	case SL_TRIGGER_ONCE: rc = run_once(q, NULL, err); break;
	case SL_TRIGGER_AVAILABLE_NOW:
		rc = run_available_now(q, NULL, err);
		break;
	default:
		/* also ProcessingTime: the caller asked for the data now */
		rc = run_available(q, NULL, NULL, err);
		break;
	}
	slot_taken(q);
	q->asked = false;
	if (rc == 0 && q->active)
		rc = sl_query_sync(q, err);
	return rc;
}
