/*
 * t206-watermark: withWatermark end to end (EventTimeWatermarkSuite and
 * StreamingAggregationSuite cases): Spark's errors, the watermark of every
 * batch under both allowMultiple modes, late groups counted, append output
 * exactly once, update with eviction, complete unaffected, no-data
 * batches, the multiple-watermark policy over a union of two streams;
 * the per-batch event times the workbench's scatter draws (EVENT_TIMES).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "core/feed.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "driver/query.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "rows.h"
#include "tap.h"
#include "core/timeutil.h"

static sl_err err;

static void add_ints(sl_memstream *ms, const char *csv)
{
	char *buf = strdup(csv), *tok, *save = NULL;
	sl_buf j;
	sl_options o;
	sl_batch *b;
	sl_buf_init(&j);
	for (tok = buf ? strtok_r(buf, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save))
		sl_buf_printf(&j, "{\"value\":%s}\n", tok);
	free(buf);
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", sl_buf_cstr(&j), j.len,
			       sl_memstream_schema(ms), &o, &err);
	if (b == NULL || sl_memstream_add(ms, b, &err) < 0)
		diag("addData failed: %s", err.msg);
	sl_batch_free(b);
	sl_buf_release(&j);
}

static sl_plan *sel(sl_plan *in, const char *e1, const char *e2)
{
	sl_expr *e[2];
	int n = 0;
	sl_plan *p;
	e[n++] = sl_sqlexpr_parse(e1, &err);
	if (e2 != NULL)
		e[n++] = sl_sqlexpr_parse(e2, &err);
	p = in ? sl_plan_project(in, e, n, &err) : NULL;
	sl_plan_free(in);
	return p;
}

/* value INT -> eventTime = timestamp_seconds(value) [withWatermark] */
static sl_plan *events(sl_memstream *ms, const char *delay)
{
	sl_source_desc *d = sl_source_desc_memory(ms, &err);
	sl_plan *p = d ? sl_plan_stream(d, &err) : NULL, *w;
	sl_source_desc_free(d);
	p = sel(p, "value", "timestamp_seconds(value) AS eventTime");
	if (p == NULL || delay == NULL)
		return p;
	w = sl_plan_watermark(p, "eventTime", delay, &err);
	sl_plan_free(p);
	return w;
}

/* groupBy(window(eventTime, size) AS window).agg(count(*) AS count)
 * .select(window.start cast long, count) */
static sl_plan *windowed(sl_plan *in, const char *size)
{
	char w[128];
	sl_expr *k[1], *a[1];
	sl_plan *p;
	snprintf(w, sizeof w, "window(eventTime, '%s') AS window", size);
	k[0] = sl_sqlexpr_parse(w, &err);
	a[0] = sl_sqlexpr_parse("count(*) AS count", &err);
	p = in ? sl_plan_aggregate(in, k, 1, a, 1, &err) : NULL;
	sl_plan_free(in);
	return sel(p, "CAST(window.start AS BIGINT) AS start", "count");
}

static const char *table(sl_session *s, const char *name)
{
	return table_text(s, name, &err);
}

static bool has(const char *json, const char *part)
{
	if (json == NULL || strstr(json, part) == NULL) {
		diag("'%s' not in %s", part, json ? json : "(null)");
		return false;
	}
	return true;
}

static bool has_quiet(const char *json, const char *part)
{
	return json != NULL && strstr(json, part) != NULL;
}

static sl_query *start(sl_session *s, sl_plan *p, sl_outmode mode,
		       const char *name)
{
	sl_query_opts o;
	sl_query *q;
	memset(&o, 0, sizeof o);
	o.name = name;
	o.mode = mode;
	o.format = "memory";
	q = sl_query_start(s, p, &o, &err);
	if (q == NULL)
		diag("start failed: %s", err.msg);
	sl_plan_free(p);
	return q;
}

static const char *wm(sl_query *q)
{
	const char *j = sl_query_last_progress_json(q), *w;
	static char out[64];
	if (j == NULL || (w = strstr(j, "\"watermark\":\"")) == NULL)
		return "none";
	snprintf(out, sizeof out, "%.24s", w + 13);
	return out;
}

static long long num(sl_query *q, const char *key)
{
	const char *j = sl_query_last_progress_json(q), *w;
	char k[64];
	snprintf(k, sizeof k, "\"%s\":", key);
	if (j == NULL || (w = strstr(j, k)) == NULL)
		return -1;
	return atoll(w + strlen(k));
}

static sl_session *new_session(void)
{
	sl_session *s = sl_session_new();
	sl_clock_set_manual(sl_session_clock(s), 0);
	return s;
}

/* ------------------------------------------------------------ errors */

static void test_errors(void)
{
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = events(ms, NULL), *w;
	static const char *neg[] = { "-1 year", "1 year -13 months",
				     "1 month -40 days", "-10 seconds" };
	int i;
	w = sl_plan_watermark(p, "missing", "10 seconds", &err);
	ok(w == NULL && strstr(err.msg, "'missing'") && err.code == SL_EANALYSIS,
	   "unknown column names it: %s", err.msg);
	w = sl_plan_watermark(p, "value", "10 seconds", &err);
	is_str(err.msg, "Event time must be defined on a window or a timestamp, but value is of type int",
	       "non-timestamp column: Spark's sentence with the type");
	for (i = 0; i < 4; i++) {
		w = sl_plan_watermark(p, "eventTime", neg[i], &err);
		ok(w == NULL && strstr(err.msg, "should not be negative.") != NULL,
		   "negative delay '%s': %s", neg[i], err.msg);
	}
	w = sl_plan_watermark(p, "eventTime", "1 foo", &err);
	ok(w == NULL && err.code == SL_EANALYSIS, "'1 foo' is an analysis error: %s", err.msg);
	w = sl_plan_watermark(p, "eventTime", "interva 2 day", &err);
	ok(w == NULL && err.code == SL_EANALYSIS, "'interva 2 day' is an analysis error");
	w = sl_plan_watermark(p, "eventTime", "1 month", &err);
	ok(w != NULL, "1 month is fine");
	sl_plan_free(w);
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* Append without a watermarked key is refused, with one it starts; a
 * watermark defined after the aggregation does not count. */
static void test_append_check(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q;
	q = start(s, windowed(events(ms, NULL), "5 seconds"), SL_MODE_APPEND, "a1");
	ok(q == NULL && strcmp(err.msg, "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark") == 0,
	   "append without watermark: Spark's sentence");
	q = start(s, windowed(events(ms, "10 seconds"), "5 seconds"), SL_MODE_APPEND, "a2");
	ok(q != NULL, "append with a watermarked window key starts");
	sl_query_stop(q);
	sl_query_free(q);
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* EventTimeWatermarkSuite "append mode". */
static void test_append(bool multiple)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q;
	const char *tag = multiple ? "[two wm]" : "[one wm]";
	if (!multiple)
		sl_session_conf_set(s, "spark.sql.streaming.statefulOperator.allowMultiple", "false", &err);
	q = start(s, windowed(events(ms, "10 seconds"), "5 seconds"), SL_MODE_APPEND, "app");
	if (q == NULL)
		goto out;
	add_ints(ms, "10,11,12,13,14,15");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "app"), "", "%s batch 0: nothing yet", tag);
	is_int(sl_query_last_batch_id(q), 1, "%s a no-data batch ran after batch 0", tag);
	is_str(wm(q), "1970-01-01T00:00:05.000Z", "%s the no-data batch used watermark 5 s", tag);
	is_int(num(q, "numInputRows"), 0, "%s no-data batch: numInputRows 0", tag);
	add_ints(ms, "25");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "app"), "10,5", "%s watermark 15 s emits [10,15) once", tag);
	is_int(num(q, "numRowsTotal"), 2, "%s 2 state rows", tag);
	is_str(wm(q), "1970-01-01T00:00:15.000Z", "%s watermark 15 s", tag);
	add_ints(ms, "10");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "app"), "10,5", "%s the late row changes nothing", tag);
	is_int(num(q, "numRowsDroppedByWatermark"), 1, "%s one late group dropped", tag);
	is_int(num(q, "numRowsTotal"), 2, "%s still 2 state rows", tag);
	add_ints(ms, "10,11,12");
	sl_query_process_all_available(q, &err);
	is_int(num(q, "numRowsDroppedByWatermark"), 1,
	       "%s three late rows of one window count 1", tag);
	ok(has(sl_query_last_progress_json(q),
	       "\"eventTime\":{\"avg\":\"1970-01-01T00:00:11.000Z\",\"max\":\"1970-01-01T00:00:12.000Z\","
	       "\"min\":\"1970-01-01T00:00:10.000Z\",\"watermark\":\"1970-01-01T00:00:15.000Z\"}"),
	   "%s eventTime avg/max/min/watermark", tag);
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* The two watermarks differ without no-data batches. */
static void test_two_watermarks(bool multiple)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q;
	const char *tag = multiple ? "[two wm]" : "[one wm]";
	sl_session_conf_set(s, "spark.sql.streaming.noDataMicroBatches.enabled", "false", &err);
	if (!multiple)
		sl_session_conf_set(s, "spark.sql.streaming.statefulOperator.allowMultiple", "false", &err);
	q = start(s, windowed(events(ms, "5 seconds"), "5 seconds"), SL_MODE_APPEND, "two");
	if (q == NULL)
		goto out;
	add_ints(ms, "12");
	sl_query_process_all_available(q, &err);
	is_int(sl_query_last_batch_id(q), 0, "%s no no-data batch with the flag off", tag);
	add_ints(ms, "30");              /* batch 1 uses wm 7 s */
	sl_query_process_all_available(q, &err);
	add_ints(ms, "14,26");           /* batch 2 uses wm 25 s; late by 7 s or 25 s */
	sl_query_process_all_available(q, &err);
	is_str(wm(q), "1970-01-01T00:00:25.000Z", "%s batch 2 watermark", tag);
	is_int(num(q, "numRowsDroppedByWatermark"), multiple ? 0 : 1,
	       "%s [10,15) judged by %s", tag, multiple ? "the previous batch's 7 s: kept"
						       : "this batch's 25 s: late");
	is_str(table(s, "two"), multiple ? "10,2" : "10,1",
	       "%s evicted by 25 s, emitted once", tag);
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* EventTimeWatermarkSuite "update mode". */
static void test_update(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q = start(s, windowed(events(ms, "10 seconds"), "5 seconds"),
			    SL_MODE_UPDATE, "upd");
	if (q == NULL)
		goto out;
	add_ints(ms, "10,11,12,13,14,15");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "upd"), "10,5;15,1", "update: both windows");
	add_ints(ms, "25");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "upd"), "10,5;15,1;25,1", "update: (25, 1)");
	is_int(num(q, "numRowsTotal"), 2, "update: [10,15) evicted, 2 state rows");
	add_ints(ms, "10,25,26,27");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "upd"), "10,5;15,1;25,1;25,4", "update: 10 ignored, (25, 4)");
	is_int(num(q, "numRowsTotal"), 2, "update: 2 state rows");
	add_ints(ms, "25");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "upd"), "10,5;15,1;25,1;25,4;25,5", "update: (25, 5)");
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* Complete mode: no late rows, no eviction. */
static void test_complete(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q = start(s, windowed(events(ms, "10 seconds"), "5 seconds"),
			    SL_MODE_COMPLETE, "cmp");
	if (q == NULL)
		goto out;
	add_ints(ms, "10,11,12,13,14,15");
	sl_query_process_all_available(q, &err);
	add_ints(ms, "25");
	sl_query_process_all_available(q, &err);
	is_int(sl_query_last_batch_id(q), 1, "complete: no no-data batches");
	add_ints(ms, "10");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "cmp"), "10,6;15,1;25,1", "complete: late row counted, nothing evicted");
	is_int(num(q, "numRowsDroppedByWatermark"), 0, "complete: nothing dropped");
	is_int(num(q, "numRowsTotal"), 3, "complete: 3 state rows");
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* Grouping by the raw event time. */
static void test_raw_key(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_expr *k[1], *a[1];
	sl_plan *p = events(ms, "10 seconds"), *g;
	sl_query *q;
	k[0] = sl_sqlexpr_parse("eventTime", &err);
	a[0] = sl_sqlexpr_parse("count(*) AS count", &err);
	g = sl_plan_aggregate(p, k, 1, a, 1, &err);
	sl_plan_free(p);
	q = start(s, sel(g, "CAST(eventTime AS BIGINT) AS t", "count"), SL_MODE_APPEND, "raw");
	if (q == NULL)
		goto out;
	add_ints(ms, "10,10,11,20");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "raw"), "10,2", "raw key: wm 10 s emits t=10 (<= wm)");
	add_ints(ms, "10,25");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "raw"), "10,2;11,1", "raw key: wm 15 s emits 11; late 10 dropped");
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* Two watermarked streams in a union: min (default) and max policies. */
static void test_policy(bool use_max)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *m1 = sl_memstream_new(t, &err), *m2 = sl_memstream_new(t, &err);
	sl_plan *a, *b, *u;
	sl_query *q;
	const char *tag = use_max ? "[max]" : "[min]";
	if (use_max)
		sl_session_conf_set(s, "spark.sql.streaming.multipleWatermarkPolicy", "max", &err);
	a = events(m1, "10 seconds");
	b = events(m2, "5 seconds");
	u = sl_plan_union(a, b, &err);
	sl_plan_free(a);
	sl_plan_free(b);
	q = start(s, sel(u, "value", NULL), SL_MODE_APPEND, "uni");
	if (q == NULL)
		goto out;
	add_ints(m1, "20");
	sl_query_process_all_available(q, &err);
	add_ints(m1, "21");
	sl_query_process_all_available(q, &err);
	is_str(wm(q), use_max ? "1970-01-01T00:00:10.000Z" : "1970-01-01T00:00:00.000Z",
	       "%s one input without data counts 0", tag);
	add_ints(m2, "30");
	sl_query_process_all_available(q, &err);
	add_ints(m2, "31");
	sl_query_process_all_available(q, &err);
	is_str(wm(q), use_max ? "1970-01-01T00:00:25.000Z" : "1970-01-01T00:00:11.000Z",
	       "%s both inputs: %s of 11 s and 25 s", tag, use_max ? "max" : "min");
	ok(has(sl_query_last_progress_json(q), "\"eventTime\":{\"avg\":\"1970-01-01T00:00:31.000Z\""),
	   "%s stateless query still reports eventTime", tag);
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(m1);
	sl_memstream_free(m2);
	sl_type_free(t);
}

/* ------------------------------------------- delays, redefinitions */

/* SPARK-35815 (EventTimeWatermarkSuite): the interval forms Spark takes,
 * the INTERVAL literal's quoted values and unit-to-unit strings among
 * them, with their values (months are 31 days, as EventTimeWatermark). */
static void test_delay_forms(void)
{
	static const struct {
		const char *s;
		int64_t sec;
	} good[] = {
		{ "inTerval '3' day", 3 * 86400 },
		{ "interval '5' hour", 5 * 3600 },
		{ "interval '10' second", 10 },
		{ "\tinterval '1' day '2' hours '3' minutes '4' seconds", 93784 },
		{ "interval '1 2:3:4' day to second", 93784 },
		{ "interval '1 2:3:4.5' day to second", 93784 },
		{ "interval '2:3' hour to minute", 2 * 3600 + 180 },
		{ "interval '3:04' minute to second", 184 },
		{ "interval '1 2' day to hour", 93600 },
		{ "interval '1' year '2' month", 14 * 31 * 86400 },
		{ "\tinterval '1-2' year to month", 14 * 31 * 86400 },
		{ "interval -'1' day", -86400 },
		{ "Interval 3 day", 3 * 86400 },
		{ " 1 year 2 months", 14 * 31 * 86400 },
	};
	static const char *bad[] = {
		"intrval '3' day", "interval '5' foo", "interval '1 2:3:4' day to hour",
		"interval '1 2' year to month", "interval '1-12' year to month",
		"interval '1 24:00:00' day to second", "interval '1' day to", "interval '3",
		"interval '1 2:3:4' day",
	};
	size_t i;
	int64_t us;
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		us = 0;
		ok(sl_duration_parse(good[i].s, &us, &err) == 0 &&
		   us == good[i].sec * SL_US_PER_SEC + (strstr(good[i].s, ".5") ? 500000 : 0),
		   "delay \"%s\" = %lld s", good[i].s, (long long)good[i].sec);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(sl_duration_parse(bad[i], &us, &err) == SL_EPARSE,
		   "\"%s\" is rejected: %s", bad[i], err.msg);
}

/* Spark's Dataset.withWatermark checks the delay before the analyzer
 * resolves the column: a negative delay on an INT column is about the
 * delay. */
static void test_delay_first(void)
{
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = events(ms, NULL), *w;
	w = sl_plan_watermark(p, "value", "-10 seconds", &err);
	ok(w == NULL && strstr(err.msg, "should not be negative.") != NULL,
	   "negative delay on an INT column: %s", err.msg);
	w = sl_plan_watermark(p, "nope", "interval 4 foo", &err);
	ok(w == NULL && strstr(err.msg, "Unable to parse") != NULL,
	   "a bad delay on an unknown column: the delay first");
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* Spark 3.4+'s WatermarkPropagator: a watermark over another one is
 * refused (EventTimeWatermarkSuite "overriding watermark should not be
 * allowed by default"); watermarks side by side (a union) are fine. */
static void test_redefine(void)
{
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *a = events(ms, "1 minute"), *b, *u;
	int rc;
	b = sel(a ? sl_plan_ref(a) : NULL, "value", "eventTime AS second");
	u = b ? sl_plan_watermark(b, "second", "2 minutes", &err) : NULL;
	sl_plan_free(b);
	rc = sl_plan_check_watermarks(u, &err);
	ok(rc == SL_EANALYSIS &&
	   strstr(err.msg, "Redefining watermark is disallowed.") != NULL &&
	   strstr(err.msg, "'spark.sql.streaming.statefulOperator.allowMultiple' to 'false'") != NULL,
	   "a watermark above another: %s", err.msg);
	sl_plan_free(u);
	is_int(sl_plan_check_watermarks(a, &err), 0, "one watermark is fine");
	u = a ? sl_plan_union(a, a, &err) : NULL;
	is_int(u ? sl_plan_check_watermarks(u, &err) : -1, 0,
	       "two watermarks side by side (union) are fine");
	sl_plan_free(u);
	sl_plan_free(a);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* A row late for all its sliding windows is ONE late-row entry listing
 * every window it missed (the screen's Late pane, q:lateRows). */
static void test_late_sliding(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_expr *k[1], *a[1];
	sl_plan *p = events(ms, "5 seconds");
	sl_query *q;
	sl_feed *late;
	uint64_t first = 0, last = 0;
	const sl_event *ev;
	k[0] = sl_sqlexpr_parse("window(eventTime, '10 seconds', '5 seconds') AS window", &err);
	a[0] = sl_sqlexpr_parse("count(*) AS count", &err);
	q = start(s, p ? sl_plan_aggregate(p, k, 1, a, 1, &err) : NULL, SL_MODE_UPDATE, "sl");
	sl_plan_free(p);
	if (q == NULL)
		goto out;
	add_ints(ms, "30");
	sl_query_process_all_available(q, &err);
	add_ints(ms, "22");
	sl_query_process_all_available(q, &err);
	late = sl_query_late(q);
	sl_feed_range(late, &first, &last);
	ok(late != NULL && last == 0,
	   "22 still counts in the open [20, 30): not logged as dropped");
	add_ints(ms, "12,12");
	sl_query_process_all_available(q, &err);
	sl_feed_range(late, &first, &last);
	is_int((long long)(last - first + 1), 2, "two rows at 12: two entries, not four");
	ev = sl_feed_get(late, last);
	ok(ev != NULL &&
	   has(ev->json, "\"row\":{\"value\":12,\"eventTime\":\"1970-01-01T00:00:12.000Z\"}") &&
	   has(ev->json, "\"windows\":[{\"start\":\"1970-01-01 00:00:05\",\"end\":\"1970-01-01 00:00:15\"},"
			 "{\"start\":\"1970-01-01 00:00:10\",\"end\":\"1970-01-01 00:00:20\"}]") &&
	   has(ev->json, "\"watermark\":\"1970-01-01 00:00:25\""),
	   "the entry: the input row, both windows in order, the watermark");
	is_int(num(q, "numRowsDroppedByWatermark"), 2, "two late groups");
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* The EVENT_TIMES events of q's feed with seq > *after (the last one's
 * json copied to out); returns how many.  Counts the batches that read
 * rows in batches_read. */
static int batches_read;
static int times_events(sl_query *q, uint64_t *after, char *out, size_t n)
{
	sl_feed *f = sl_query_feed(q);
	uint64_t first = 0, last = 0, s;
	int k = 0;
	sl_feed_range(f, &first, &last);
	for (s = *after + 1 > first ? *after + 1 : first; s <= last; s++) {
		const sl_event *ev = sl_feed_get(f, s);
		if (ev != NULL && ev->kind == SL_EV_BATCH_END &&
		    !has_quiet(ev->json, "\"numInputRows\":0,"))
			batches_read++;
		if (ev == NULL || ev->kind != SL_EV_EVENT_TIMES)
			continue;
		k++;
		snprintf(out, n, "b%lld %s", (long long)ev->batch_id,
			 ev->json ? ev->json : "(null)");
	}
	*after = last;
	return k;
}

/* One EVENT_TIMES event per batch with every input row's event time in
 * arrival order (nulls as null, late rows too), capped; none with detail
 * off, none for a no-data batch. */
static void test_event_times(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q = start(s, windowed(events(ms, "10 seconds"), "10 seconds"),
			    SL_MODE_APPEND, "et");
	char js[8192];
	uint64_t seen = 0, lfirst = 0, llast = 0;
	sl_buf b;
	int i;
	if (q == NULL)
		goto out;
	add_ints(ms, "7,8");
	sl_query_process_all_available(q, &err);
	is_int(times_events(q, &seen, js, sizeof js), 1, "one event for batch 0");
	is_str(js, "b0 {\"column\":\"eventTime\",\"count\":2,\"ms\":[7000,8000]}",
	       "batch 0: both event times in ms, arrival order");
	add_ints(ms, "34,9,null,33");
	sl_query_process_all_available(q, &err);
	is_int(times_events(q, &seen, js, sizeof js), 1, "one event for batch 1");
	is_str(js, "b1 {\"column\":\"eventTime\",\"count\":4,\"ms\":[34000,9000,null,33000]}",
	       "batch 1: out of order and null kept in arrival order");
	add_ints(ms, "40,5");
	sl_query_process_all_available(q, &err);
	sl_feed_range(sl_query_late(q), &lfirst, &llast);
	is_int((long long)llast, 1, "5 is dropped as late");
	times_events(q, &seen, js, sizeof js);
	ok(has(js, "\"count\":2,\"ms\":[40000,5000]"),
	   "the late row is listed too (the LATE_ROW event marks it)");
	sl_buf_init(&b);
	for (i = 0; i < 450; i++)
		sl_buf_printf(&b, "%s%d", i ? "," : "", 100 + i);
	add_ints(ms, sl_buf_cstr(&b));
	sl_buf_release(&b);
	sl_query_process_all_available(q, &err);
	is_int(times_events(q, &seen, js, sizeof js), 1, "450 rows: one event");
	ok(has(js, "\"count\":450,\"ms\":[100000,101000,") &&
	   has(js, ",499000]}") && !has_quiet(js, "500000"),
	   "count says 450, the list holds the first 400");
	sl_feed_set_detail(sl_query_feed(q), false);
	add_ints(ms, "600,601");
	batches_read = 0;
	sl_query_process_all_available(q, &err);
	is_int(times_events(q, &seen, js, sizeof js), 0,
	       "detail off: no EVENT_TIMES event");
	is_int(batches_read, 1, "the batch ran");
	sl_feed_set_detail(sl_query_feed(q), true);
	add_ints(ms, "602");
	sl_query_process_all_available(q, &err);
	is_int(times_events(q, &seen, js, sizeof js), 1, "detail on again: one event");
	ok(has(js, "\"count\":1,\"ms\":[602000]"),
	   "only this batch's row (nothing left over from the detail-off batch)");
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

int main(void)
{
	test_errors();
	test_append_check();
	test_append(true);
	test_append(false);
	test_two_watermarks(true);
	test_two_watermarks(false);
	test_update();
	test_complete();
	test_raw_key();
	test_policy(false);
	test_policy(true);
	test_delay_forms();
	test_delay_first();
	test_redefine();
	test_late_sliding();
	test_event_times();
	return done_testing();
}
