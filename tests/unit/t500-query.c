/*
 * t500-query: the micro-batch driver end to end over the memory source and
 * the memory / foreachBatch sinks, on a manual clock (StreamTest style:
 * addData, processAllAvailable, check the sink).  Triggers (default,
 * ProcessingTime, Once, AvailableNow), progress JSON, status, the event
 * feed, listeners, a failing foreachBatch, re-entrant ticks, start errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "formats/fileformat.h"
#include "plan/plan.h"
#include "driver/query.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "rows.h"
#include "tap.h"
#include "core/timeutil.h"

static sl_err err;
static int64_t T0; /* 2026-01-01 12:00:00 */

static sl_batch *rows(sl_memstream *ms, const char *json)
{
	sl_options o;
	sl_batch *b;
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json),
			       sl_memstream_schema(ms), &o, &err);
	return b;
}

static void add(sl_memstream *ms, const char *json)
{
	sl_batch *b = rows(ms, json);
	if (b == NULL || sl_memstream_add(ms, b, &err) < 0)
		diag("addData failed: %s", err.msg);
	sl_batch_free(b);
}

/* memoryStream(ddl) -> streaming plan selecting exprs (NULL = as is). */
static sl_plan *stream_plan(sl_memstream *ms, const char *e1, const char *e2)
{
	sl_source_desc *d = sl_source_desc_memory(ms, &err);
	sl_plan *p = d ? sl_plan_stream(d, &err) : NULL, *q;
	sl_expr *e[2];
	int n = 0;
	sl_source_desc_free(d);
	if (p == NULL || e1 == NULL)
		return p;
	e[n++] = sl_sqlexpr_parse(e1, &err);
	if (e2 != NULL)
		e[n++] = sl_sqlexpr_parse(e2, &err);
	q = sl_plan_project(p, e, n, &err);
	sl_plan_free(p);
	return q;
}

/* The rows of a catalog table, "a,b;a,b" (show() rendering). */
static const char *table(sl_session *s, const char *name)
{
	return table_text(s, name, &err);
}

static sl_query_opts memory_opts(const char *name)
{
	sl_query_opts o;
	memset(&o, 0, sizeof o);
	o.name = name;
	o.mode = SL_MODE_APPEND;
	o.format = "memory";
	return o;
}

static bool has(const char *json, const char *part)
{
	return json != NULL && strstr(json, part) != NULL;
}

static sl_session *new_session(void)
{
	sl_session *s = sl_session_new();
	sl_clock_set_manual(sl_session_clock(s), T0);
	return s;
}

static int count_events(sl_query *q, sl_event_kind kind)
{
	uint64_t first, last, i;
	int n = 0;
	sl_feed_range(sl_query_feed(q), &first, &last);
	for (i = first; i && i <= last; i++)
		if (sl_feed_get(sl_query_feed(q), i)->kind == kind)
			n++;
	return n;
}

static void test_map_query(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = stream_plan(ms, "value * 2 AS doubled", NULL);
	sl_query_opts o = memory_opts("doubles");
	sl_query *q, *q2;
	const char *j;
	sl_buf b;

	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL, "map query starts (%s)", q ? "" : err.msg);
	if (q == NULL)
		goto out;
	ok(sl_query_is_active(q), "isActive");
	is_int(sl_session_active_count(s), 1, "spark.streams.active has it");
	ok(sl_session_find(s, sl_query_id(q)) == q, "spark.streams.get(id)");
	ok(strcmp(sl_query_id(q), sl_query_run_id(q)) != 0, "id and runId differ");
	is_str(sl_query_name(q), "doubles", "name");
	is_str(sl_query_status_json(q),
	       "{\"message\":\"Initializing sources\",\"isDataAvailable\":false,"
	       "\"isTriggerActive\":false}", "status before the first trigger");
	sl_buf_init(&b);
	sl_query_explain(q, false, &b);
	is_str(sl_buf_cstr(&b), "No physical plan. Waiting for data.\n",
	       "explain before the first batch");
	ok(sl_query_last_progress_json(q) == NULL, "no lastProgress yet");

	is_int(sl_query_process_all_available(q, &err), 0, "processAllAvailable, no data");
	is_int(sl_query_last_batch_id(q), -1, "no batch without data");
	is_str(sl_query_status_json(q),
	       "{\"message\":\"Waiting for data to arrive\",\"isDataAvailable\":false,"
	       "\"isTriggerActive\":false}", "status while waiting");

	add(ms, "{\"value\":1}\n{\"value\":2}\n{\"value\":3}\n");
	is_int(sl_query_process_all_available(q, &err), 0, "processAllAvailable");
	is_str(table(s, "doubles"), "2;4;6", "batch 0 in the memory sink");
	is_int(sl_query_last_batch_id(q), 0, "batch id 0");
	j = sl_query_last_progress_json(q);
	ok(has(j, "\"name\":\"doubles\",\"timestamp\":\"2026-01-01T12:00:00.000Z\","
		  "\"batchId\":0,\"batchDuration\":0,\"numInputRows\":3,"),
	   "progress head: name, timestamp, batchId, numInputRows");
	ok(!has(j, "\"inputRowsPerSecond\":") && has(j, "\"processedRowsPerSecond\":3000.0"),
	   "0 s since the last trigger: inputRowsPerSecond left out; 3 rows / 1 ms");
	ok(has(j, "\"durationMs\":{\"addBatch\":0,\"getBatch\":0,\"latestOffset\":0,"
		  "\"queryPlanning\":0,\"triggerExecution\":0,\"walCommit\":0}"),
	   "durationMs on a manual clock");
	ok(has(j, "\"eventTime\":{},\"stateOperators\":[],\"sources\":[{\"description\":"
		  "\"MemoryStream[value#"), "eventTime, stateOperators, source description");
	ok(has(j, "\"startOffset\":null,\"endOffset\":0,\"latestOffset\":0,\"numInputRows\":3"),
	   "source offsets of batch 0");
	ok(has(j, "\"sink\":{\"description\":\"MemorySink\",\"numOutputRows\":3}}"), "sink");
	ok(has(j, "{\"id\":\"") && j[strlen(j) - 1] == '}', "progress is an object");

	sl_clock_advance(sl_session_clock(s), 2 * SL_US_PER_SEC);
	add(ms, "{\"value\":4}\n");
	add(ms, "{\"value\":5}\n");
	is_int(sl_query_process_all_available(q, &err), 0, "processAllAvailable again");
	is_str(table(s, "doubles"), "2;4;6;8;10", "both new blocks in one batch");
	j = sl_query_last_progress_json(q);
	ok(has(j, "\"timestamp\":\"2026-01-01T12:00:02.000Z\",\"batchId\":1,"
		  "\"batchDuration\":0,\"numInputRows\":2,\"inputRowsPerSecond\":1.0,"
		  "\"processedRowsPerSecond\":2000.0"), "batch 1 progress and rates");
	ok(has(j, "\"startOffset\":0,\"endOffset\":2,\"latestOffset\":2"),
	   "batch 1 reads (0, 2]");
	/* 3: the idle progress of the trigger at start (no data yet, and
	 * Spark's lastNoExecutionProgressEventTime starts at Long.MinValue),
	 * batch 0, batch 1 */
	is_int(sl_query_recent_count(q), 3, "recentProgress has 3");
	ok(has(sl_query_recent_json(q, 0), "\"batchId\":0"), "recentProgress oldest first");
	sl_buf_clear(&b);
	sl_query_explain(q, false, &b);
	ok(has(sl_buf_cstr(&b), "== Physical Plan =="), "explain after a batch shows the plan");
	sl_buf_release(&b);

	is_int(count_events(q, SL_EV_QUERY_START), 1, "feed: QUERY_START");
	is_int(count_events(q, SL_EV_BATCH_START), 2, "feed: 2 BATCH_START");
	is_int(count_events(q, SL_EV_OFFSETS), 2, "feed: OFFSETS per batch and source");
	is_int(count_events(q, SL_EV_READ), 2, "feed: READ");
	is_int(count_events(q, SL_EV_SINK), 2, "feed: SINK");
	is_int(count_events(q, SL_EV_BATCH_END), 2, "feed: BATCH_END");

	q2 = sl_query_start(s, p, &o, &err);
	ok(q2 == NULL, "a second query with the same name fails");
	is_str(err.msg, "Cannot start query with name doubles as a query with that name "
			"is already active in this SparkSession", "Spark's duplicate name text");
	is_str(table(s, "doubles"), "2;4;6;8;10", "the running query's table is untouched");

	is_int(sl_query_step(q, NULL, &err), 0, "step with nothing new");
	is_int(sl_query_last_batch_id(q), 1, "step without data runs no batch");
	sl_query_stop(q);
	ok(!sl_query_is_active(q), "stopped");
	is_str(sl_query_status_json(q),
	       "{\"message\":\"Stopped\",\"isDataAvailable\":false,\"isTriggerActive\":false}",
	       "status Stopped");
	is_int(sl_session_active_count(s), 0, "no longer active");
	is_int(count_events(q, SL_EV_QUERY_END), 1, "feed: QUERY_END");
	sl_query_stop(q);
	is_int(count_events(q, SL_EV_QUERY_END), 1, "stop is idempotent");
	ok(sl_query_exception(q) == NULL, "no exception after a clean stop");
	is_int(sl_query_step(q, NULL, &err), SL_ESTATE, "step on a stopped query");
	is_int(sl_query_process_all_available(q, &err), 0,
	       "processAllAvailable on a stopped query returns");
	sl_query_free(q);
out:
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s);
}

/* ---- listeners record what they hear ---- */
static char heard[2048];
static void listen(void *ud, int event, sl_query *q, const char *json)
{
	const char *ex = strstr(json, "\"exception\":");
	(void)ud;
	(void)q;
	if (event == SL_LISTEN_PROGRESS) {
		const char *b = strstr(json, "\"batchId\":");
		snprintf(heard + strlen(heard), sizeof heard - strlen(heard),
			 "progress %d;", b ? atoi(b + 10) : -9);
	} else if (event == SL_LISTEN_STARTED) {
		snprintf(heard + strlen(heard), sizeof heard - strlen(heard),
			 "started %s;", strstr(json, "\"timestamp\":") ? "ts" : "?");
	} else {
		snprintf(heard + strlen(heard), sizeof heard - strlen(heard),
			 "terminated %.20s;", ex ? ex + 12 : "?");
	}
}

static void test_processing_time(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = stream_plan(ms, "value", "current_timestamp() AS ts");
	sl_query_opts o = memory_opts("pt");
	sl_query *q;
	o.trigger.kind = SL_TRIGGER_PROCESSING;
	o.trigger.interval_us = 10 * SL_US_PER_SEC;
	heard[0] = 0;
	sl_session_add_listener(s, listen, NULL, NULL);
	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL, "ProcessingTime query starts (%s)", q ? "" : err.msg);
	if (q == NULL)
		goto out;
	is_str(heard, "started ts;", "onQueryStarted");
	is_int(sl_query_next_due(q), T0 + 10 * SL_US_PER_SEC,
	       "no data at start: next due at the next multiple");
	add(ms, "{\"value\":1}\n");
	is_int(sl_session_advance(s, 5 * SL_US_PER_SEC, &err), 0, "no batch before the interval");
	is_int(sl_query_last_batch_id(q), -1, "still no batch at 12:00:05");
	is_str(sl_query_status_json(q),
	       "{\"message\":\"Initializing sources\",\"isDataAvailable\":false,"
	       "\"isTriggerActive\":false}", "no trigger ran yet");
	is_int(sl_session_advance(s, 5 * SL_US_PER_SEC, &err), 1, "one batch at the interval");
	is_str(table(s, "pt"), "1,2026-01-01 12:00:10", "current_timestamp() = the batch timestamp");
	is_str(sl_query_status_json(q),
	       "{\"message\":\"Waiting for next trigger\",\"isDataAvailable\":true,"
	       "\"isTriggerActive\":false}", "status between ProcessingTime triggers");
	is_int(sl_query_next_due(q), T0 + 20 * SL_US_PER_SEC, "next due 12:00:20");
	sl_clock_advance(sl_session_clock(s), 2 * SL_US_PER_SEC); /* 12:00:12 */
	add(ms, "{\"value\":2}\n");
	is_int(sl_session_advance(s, 25 * SL_US_PER_SEC, &err), 1,
	       "advance 25 s: one batch (12:00:20), empty ticks at :30");
	is_str(table(s, "pt"), "1,2026-01-01 12:00:10;2,2026-01-01 12:00:20",
	       "the batch ran at its due instant, not at the end of the advance");
	is_int(sl_clock_now(sl_session_clock(s)), T0 + 37 * SL_US_PER_SEC, "clock at 12:00:37");
	/* the empty tick at :30 is 10 s after the batch at :20: an idle
	 * progress (noDataProgressEventInterval) for the next batch id */
	ok(has(sl_query_last_progress_json(q),
	       "\"timestamp\":\"2026-01-01T12:00:30.000Z\",\"batchId\":2,"
	       "\"batchDuration\":0,\"numInputRows\":0"),
	   "the empty tick at :30 reports an idle progress");
	is_int(sl_query_next_due(q), T0 + 40 * SL_US_PER_SEC, "next due 12:00:40");
	add(ms, "{\"value\":3}\n");
	is_int(sl_session_tick(s, &err), 0, "tick before due runs nothing");
	is_int(sl_query_process_all_available(q, &err), 0, "processAllAvailable runs it now");
	is_int(sl_query_last_batch_id(q), 2, "batch 2");
	is_str(heard, "started ts;progress 0;progress 1;progress 2;progress 2;",
	       "one progress per batch, and the idle one at :30 (batch id 2)");
	sl_query_stop(q);
	is_str(heard,
	       "started ts;progress 0;progress 1;progress 2;progress 2;terminated null};",
	       "onQueryTerminated without exception");
	sl_query_free(q);
out:
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s);
}

/* Data there before start(): Spark's first ProcessingTime trigger fires at
 * start and takes it. */
static void test_processing_time_data_at_start(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = stream_plan(ms, NULL, NULL);
	sl_query_opts o = memory_opts("pt0");
	sl_query *q;
	o.trigger.kind = SL_TRIGGER_PROCESSING;
	o.trigger.interval_us = 10 * SL_US_PER_SEC;
	add(ms, "{\"value\":7}\n");
	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL, "starts");
	if (q == NULL)
		goto out;
	is_int(sl_query_next_due(q), T0, "due at once");
	is_int(sl_session_advance(s, SL_US_PER_SEC, &err), 1, "the first trigger runs at start");
	ok(has(sl_query_last_progress_json(q), "\"timestamp\":\"2026-01-01T12:00:00.000Z\""),
	   "at the start instant");
	sl_query_free(q);
out:
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s); /* stops the query */
}

static void test_once_available_now(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = stream_plan(ms, NULL, NULL);
	sl_query_opts o = memory_opts("once");
	sl_query *q;

	o.trigger.kind = SL_TRIGGER_ONCE;
	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL, "Once with no data starts");
	is_int(sl_session_tick(s, &err), 0, "tick: no batch");
	ok(q && !sl_query_is_active(q), "Once with no data stops without a batch");
	ok(q && has(sl_query_last_progress_json(q), "\"batchId\":0,\"batchDuration\":0,"
		    "\"numInputRows\":0"),
	   "and reports one idle progress, as Spark's finishTrigger");
	sl_query_free(q);

	add(ms, "{\"value\":1}\n");
	add(ms, "{\"value\":2}\n");
	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL && sl_query_is_active(q), "Once starts, active until its trigger");
	is_int(sl_session_tick(s, &err), 1, "one batch");
	ok(q && !sl_query_is_active(q), "then stops");
	is_str(table(s, "once"), "1;2", "with all available data");
	sl_query_free(q);

	add(ms, "{\"value\":3}\n");
	o = memory_opts("now");
	o.trigger.kind = SL_TRIGGER_AVAILABLE_NOW;
	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL, "AvailableNow starts");
	add(ms, "{\"value\":4}\n"); /* after start: not part of the run */
	is_int(sl_session_advance(s, SL_US_PER_SEC, &err), 1, "one batch");
	ok(q && !sl_query_is_active(q), "AvailableNow stops when done");
	is_str(table(s, "now"), "1;2;3", "only what was available at start");
	ok(q && has(sl_query_last_progress_json(q), "\"endOffset\":2,\"latestOffset\":2"),
	   "end offset is the one fixed at start");
	sl_query_free(q);
	is_int(sl_session_active_count(s), 0, "nothing active");
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s);
}

/* ---- foreachBatch ---- */
typedef struct fb {
	sl_session *s;
	sl_query **q;
	int calls, freed;
	char log[512];
	int fail_at;      /* batch id that fails, -1 never */
	bool advance;     /* advance the clock from inside (nested ticks) */
	bool stop_self;   /* stop the query from inside */
	int nested_rc;
} fb;

static int fb_fn(void *ud, sl_batch *data, int64_t batch_id, sl_err *e)
{
	fb *f = ud;
	f->calls++;
	snprintf(f->log + strlen(f->log), sizeof f->log - strlen(f->log),
		 "%lld:%lld;", (long long)batch_id, (long long)data->nrows);
	if (f->advance)
		f->nested_rc = sl_session_advance(f->s, SL_US_PER_SEC, NULL);
	if (f->stop_self && *f->q != NULL) {
		sl_query_stop(*f->q);
		f->nested_rc = sl_query_process_all_available(*f->q, &err);
	}
	if (batch_id == f->fail_at) {
		sl_err_set(e, SL_EUSER, "boom: bad row");
		sl_err_hint(e, "stack traceback:\n\t[string \"fb\"]:1: in function <fb:1>");
		return SL_EUSER;
	}
	return 0;
}

static void fb_free(void *ud)
{
	((fb *)ud)->freed++;
}

static sl_query_opts fb_opts(fb *f)
{
	sl_query_opts o;
	memset(&o, 0, sizeof o);
	o.mode = SL_MODE_APPEND;
	o.foreach_fn = fb_fn;
	o.foreach_ud = f;
	o.foreach_free = fb_free;
	return o;
}

static void test_foreach_failure(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = stream_plan(ms, NULL, NULL);
	fb f;
	sl_query_opts o;
	sl_query *q = NULL;
	memset(&f, 0, sizeof f);
	f.s = s;
	f.q = &q;
	f.fail_at = 1;
	o = fb_opts(&f);
	heard[0] = 0;
	sl_session_add_listener(s, listen, NULL, NULL);
	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL, "foreachBatch query starts");
	if (q == NULL)
		goto out;
	add(ms, "{\"value\":1}\n{\"value\":2}\n");
	is_int(sl_query_process_all_available(q, &err), 0, "batch 0 fine");
	add(ms, "{\"value\":3}\n");
	is_int(sl_query_process_all_available(q, &err), SL_EUSER,
	       "the failing batch's error reaches the caller");
	is_str(err.msg, "boom: bad row", "with the function's message");
	ok(has(err.hint, "stack traceback:"), "and its traceback");
	ok(!sl_query_is_active(q), "the query stopped");
	is_str(sl_query_exception(q),
	       "boom: bad row\nstack traceback:\n\t[string \"fb\"]:1: in function <fb:1>",
	       "exception: message line, then the traceback");
	is_str(sl_query_status_json(q),
	       "{\"message\":\"Stopped\",\"isDataAvailable\":false,\"isTriggerActive\":false}",
	       "status Stopped");
	is_int(sl_query_last_batch_id(q), 0, "batch 1 is not committed");
	is_str(f.log, "0:2;1:1;", "the function saw both batches");
	is_int(f.freed, 1, "the foreachBatch function was released");
	is_int(count_events(q, SL_EV_ERROR), 1, "feed: ERROR");
	is_str(heard, "started ts;progress 0;terminated \"boom: bad row\\nstac;",
	       "listeners: started, progress 0, terminated with the exception");
	is_int(sl_session_active_count(s), 0, "no longer in spark.streams.active");
	is_int(sl_query_process_all_available(q, &err), SL_EUSER,
	       "processAllAvailable later rethrows the exception");
	is_str(err.msg, "boom: bad row", "same message");
	sl_query_free(q);
out:
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s);
}

static void test_reentrant(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = stream_plan(ms, NULL, NULL);
	fb f, g;
	sl_query_opts o;
	sl_query *q = NULL, *q2 = NULL;
	memset(&f, 0, sizeof f);
	memset(&g, 0, sizeof g);
	f.s = g.s = s;
	f.q = &q;
	g.q = &q2;
	f.fail_at = g.fail_at = -1;
	f.advance = true;
	o = fb_opts(&f);
	q = sl_query_start(s, p, &o, &err);
	o = fb_opts(&g);
	q2 = sl_query_start(s, p, &o, &err);
	ok(q && q2, "two foreachBatch queries");
	if (!q || !q2)
		goto out;
	add(ms, "{\"value\":1}\n");
	is_int(sl_query_process_all_available(q, &err), 0, "q runs; its function advances the clock");
	is_str(f.log, "0:1;", "q ran batch 0 once (its nested tick skipped it)");
	is_str(g.log, "0:1;", "the nested tick ran the other query");
	is_int(f.nested_rc, 1, "nested advance ran one batch");
	is_int(sl_clock_now(sl_session_clock(s)), T0 + SL_US_PER_SEC, "clock moved 1 s");
	f.advance = false;
	f.stop_self = true;
	add(ms, "{\"value\":2}\n");
	is_int(sl_query_process_all_available(q, &err), 0, "stop from inside the batch");
	is_int(f.nested_rc, SL_ESTATE, "processAllAvailable from its own batch is refused");
	ok(!sl_query_is_active(q), "stopped once its batch ended");
	is_int(sl_query_last_batch_id(q), 1, "after committing that batch");
	is_str(sl_query_exception(q) ? "x" : "none", "none", "a stop is not a failure");
	sl_query_free(q);
	q = NULL;
	is_int(sl_session_active_count(s), 1, "the other query is still active");
	sl_session_free(s); /* stops q2 */
	s = NULL;
	ok(!sl_query_is_active(q2), "session free stopped the other query");
	is_int(g.freed, 1, "and released its function");
	sl_query_free(q2);
out:
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s);
}

static void test_start_errors(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("k STRING, v INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *sp = stream_plan(ms, NULL, NULL), *agg, *bp;
	sl_batch *b = rows(ms, "{\"k\":\"a\",\"v\":1}\n");
	sl_query_opts o = memory_opts("e");
	sl_expr *keys[1], *aggs[1];
	fb f;

	bp = sl_plan_local(b, &err);
	ok(sl_query_start(s, bp, &o, &err) == NULL, "a batch plan cannot start");
	is_int(err.code, SL_EANALYSIS, "AnalysisException");
	is_str(err.msg, "Queries without streaming sources cannot be executed with "
			"writeStream.start()", "Spark's text");

	keys[0] = sl_sqlexpr_parse("k", &err);
	aggs[0] = sl_sqlexpr_parse("count(*)", &err);
	agg = sl_plan_aggregate(sp, keys, 1, aggs, 1, &err);
	ok(agg && sl_query_start(s, agg, &o, &err) == NULL,
	   "append on an aggregation without watermark fails");
	is_str(err.msg, "Append output mode not supported when there are streaming "
			"aggregations on streaming DataFrames/DataSets without watermark",
	       "Spark's append/aggregation text");

	memset(&f, 0, sizeof f);
	o = fb_opts(&f);
	o.trigger.kind = SL_TRIGGER_PROCESSING;
	o.trigger.interval_us = -1;
	ok(sl_query_start(s, sp, &o, &err) == NULL, "negative interval fails");
	is_int(f.freed, 1, "the foreachBatch function is released on failure");
	is_int(sl_session_active_count(s), 0, "nothing registered");

	o = memory_opts(NULL);
	ok(sl_query_start(s, sp, &o, &err) == NULL, "memory sink without a name fails");
	is_str(err.msg, "queryName must be specified for memory sink", "the sink's error");

	sl_plan_free(agg);
	sl_plan_free(bp);
	sl_batch_free(b);
	sl_plan_free(sp);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s);
}

/* ---- rate limits: a file source with maxFilesPerTrigger=1 ---- */
static void write_file(const char *dir, const char *name, const char *text,
		       long mtime)
{
	char path[512];
	struct timeval tv[2];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
	tv[0].tv_sec = tv[1].tv_sec = mtime;
	tv[0].tv_usec = tv[1].tv_usec = 0;
	utimes(path, tv);
}

static sl_query *file_query(sl_session *s, const char *dir, const char *name,
			    sl_trigger_kind kind)
{
	sl_type *t = sl_type_parse_ddl("v INT", &err);
	sl_options so;
	sl_source_desc *d;
	sl_plan *p = NULL;
	sl_query *q = NULL;
	sl_query_opts o = memory_opts(name);
	o.trigger.kind = kind;
	sl_options_init(&so);
	sl_options_set(&so, "maxFilesPerTrigger", "1");
	d = sl_source_desc_new("json", dir, t, &so, &err);
	if (d != NULL)
		p = sl_plan_stream(d, &err);
	if (p != NULL)
		q = sl_query_start(s, p, &o, &err);
	if (q == NULL)
		diag("file query: %s", err.msg);
	sl_plan_free(p);
	sl_source_desc_free(d);
	sl_options_release(&so);
	sl_type_free(t);
	return q;
}

static void test_rate_limited(void)
{
	sl_session *s = new_session();
	char dir[] = "/tmp/t500-XXXXXX";
	char cmd[64];
	sl_query *q;
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	write_file(dir, "a.json", "{\"v\":1}\n", 1000);
	write_file(dir, "b.json", "{\"v\":2}\n{\"v\":3}\n", 2000);
	write_file(dir, "c.json", "{\"v\":4}\n", 3000);
	q = file_query(s, dir, "files", SL_TRIGGER_DEFAULT);
	ok(q != NULL, "file stream with maxFilesPerTrigger=1 starts");
	if (q != NULL) {
		is_int(sl_query_process_all_available(q, &err), 0, "processAllAvailable");
		is_int(sl_query_last_batch_id(q), 2, "three files: three batches");
		is_str(table(s, "files"), "1;2;3;4", "in modification-time order");
		ok(has(sl_query_recent_json(q, 1), "\"startOffset\":{\"logOffset\":0},"
						   "\"endOffset\":{\"logOffset\":1},"
						   "\"latestOffset\":{\"logOffset\":2},"
						   "\"numInputRows\":2,"),
		   "the second batch read the second file, (0, 1] of latest 2");
		sl_query_stop(q);
		sl_query_free(q);
	}
	q = file_query(s, dir, "avail", SL_TRIGGER_AVAILABLE_NOW);
	ok(q != NULL, "AvailableNow over the same directory starts");
	if (q != NULL) {
		write_file(dir, "d.json", "{\"v\":5}\n", 4000); /* after start */
		is_int(sl_session_tick(s, &err), 3, "three rate-limited batches in one tick");
		ok(!sl_query_is_active(q), "then it stops");
		is_str(table(s, "avail"), "1;2;3;4", "the file added after start waits");
		sl_query_free(q);
	}
	sl_session_free(s);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

static void test_stateful_progress(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("k STRING", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *sp = stream_plan(ms, NULL, NULL), *agg;
	sl_expr *keys[1], *aggs[1];
	sl_query_opts o = memory_opts("counts");
	sl_query *q;
	const char *j;
	keys[0] = sl_sqlexpr_parse("k", &err);
	aggs[0] = sl_sqlexpr_parse("count(*) AS n", &err);
	agg = sl_plan_aggregate(sp, keys, 1, aggs, 1, &err);
	o.mode = SL_MODE_COMPLETE;
	q = agg ? sl_query_start(s, agg, &o, &err) : NULL;
	ok(q != NULL, "complete-mode aggregation starts (%s)", q ? "" : err.msg);
	if (q == NULL)
		goto out;
	add(ms, "{\"k\":\"a\"}\n{\"k\":\"b\"}\n{\"k\":\"a\"}\n");
	is_int(sl_query_process_all_available(q, &err), 0, "batch 0");
	add(ms, "{\"k\":\"c\"}\n");
	is_int(sl_query_process_all_available(q, &err), 0, "batch 1");
	j = sl_query_last_progress_json(q);
	ok(has(j, "\"stateOperators\":[{\"operatorName\":\"stateStoreSave\","
		  "\"numRowsTotal\":3,\"numRowsUpdated\":1,"),
	   "stateOperators: 3 groups in state, 1 updated in batch 1");
	ok(has(j, "\"numShufflePartitions\":1,\"numStateStoreInstances\":1,"
		  "\"customMetrics\":{}}]"), "stateOperators tail");
	ok(has(j, "\"sink\":{\"description\":\"MemorySink\",\"numOutputRows\":3}"),
	   "complete mode writes the whole table");
	sl_query_free(q);
out:
	sl_plan_free(agg);
	sl_plan_free(sp);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s);
}

/* spark.sql.streaming.stopActiveRunOnRestart (Spark 3.5,
 * StreamingQueryManager.startQuery): a start on the checkpoint of an
 * active query stops the old run, with Spark's log line on its feed;
 * false refuses with Spark's sentence. */
static const char *log_with(sl_query *q, const char *part)
{
	uint64_t first, last, i;
	sl_feed_range(sl_query_feed(q), &first, &last);
	for (i = first; i && i <= last; i++) {
		const sl_event *e = sl_feed_get(sl_query_feed(q), i);
		if (e->kind == SL_EV_LOG && strstr(e->text, part) != NULL)
			return e->text;
	}
	return NULL;
}

static void test_stop_active_run(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = stream_plan(ms, NULL, NULL);
	sl_query_opts o = memory_opts(NULL);
	char dir[] = "/tmp/t500-ckXXXXXX", want[512], cmd[600];
	sl_query *q1, *q2, *q3;
	ok(mkdtemp(dir) != NULL, "a checkpoint directory");
	o.format = "noop";
	o.checkpoint = dir;
	q1 = sl_query_start(s, p, &o, &err);
	ok(q1 != NULL, "the first run starts");
	add(ms, "{\"value\":1}\n");
	is_int(sl_query_process_all_available(q1, &err), 0, "and runs a batch");
	q2 = sl_query_start(s, p, &o, &err);
	ok(q2 != NULL, "a second start on the checkpoint in use starts: %s",
	   q2 ? "" : err.msg);
	ok(q1 && !sl_query_is_active(q1), "the old run is stopped");
	ok(q2 && sl_query_is_active(q2), "the new run is active");
	ok(q1 && q2 && strcmp(sl_query_id(q1), sl_query_id(q2)) == 0 &&
	       strcmp(sl_query_run_id(q1), sl_query_run_id(q2)) != 0,
	   "the same query id (the checkpoint's), a new run id");
	snprintf(want, sizeof want,
		 "Stopping existing streaming query [id=%s, runId=%s], as a new run is being started.",
		 q1 ? sl_query_id(q1) : "", q1 ? sl_query_run_id(q1) : "");
	is_str(q1 ? log_with(q1, "Stopping existing") : NULL, want,
	       "Spark's log line on the old run's feed");
	is_int(sl_session_conf_set(s, "spark.sql.streaming.stopActiveRunOnRestart",
				   "false", &err),
	       0, "stopActiveRunOnRestart = false");
	q3 = sl_query_start(s, p, &o, &err);
	ok(q3 == NULL && strstr(err.msg, "Cannot start query with id ") != NULL &&
	       strstr(err.msg, "as another query with same id is already active. "
			       "Perhaps you are attempting to restart a query from "
			       "checkpoint that is already active. You may stop the old "
			       "query by setting the SQL configuration: spark.conf.set("
			       "\"spark.sql.streaming.stopActiveRunOnRestart\", true) "
			       "and retry.") != NULL,
	   "then the start is refused with Spark's sentence: %s", err.msg);
	ok(q2 && sl_query_is_active(q2), "and the running query goes on");
	sl_query_stop(q2);
	sl_query_free(q1);
	sl_query_free(q2);
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
	sl_session_free(s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "the checkpoint is removed");
}

int main(void)
{
	T0 = 1767268800LL * SL_US_PER_SEC; /* 2026-01-01 12:00:00 UTC */
	test_map_query();
	test_processing_time();
	test_processing_time_data_at_start();
	test_once_available_now();
	test_foreach_failure();
	test_reentrant();
	test_start_errors();
	test_rate_limited();
	test_stateful_progress();
	test_stop_active_run();
	return done_testing();
}
