/*
 * t210-slide: streaming aggregation over sliding windows, computed by
 * slices (an aggregate of count/sum/max takes each row once, by its
 * slide-long slice, and expands its groups into windows) and by the
 * row-expanding path (an order-dependent aggregate, first(), falls back):
 * both give Spark's windows with a startTime and negative times, NULL
 * times make no window, late groups are counted the same, the late log
 * lists a dropped row once with all its windows, and update, append and
 * complete outputs match the expected rows batch after batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "formats/fileformat.h"
#include "core/feed.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "driver/query.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "plan/stream.h"
#include "rows.h"
#include "tap.h"
#include "exec/window.h"

static sl_err err;

/* "3:a,null:b" -> rows (value, k). */
static void add_rows(sl_memstream *ms, const char *spec)
{
	char buf[1024], *tok, *save = NULL, *colon;
	sl_buf j;
	sl_options o;
	sl_batch *b;
	snprintf(buf, sizeof buf, "%s", spec);
	sl_buf_init(&j);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		*colon = '\0';
		sl_buf_printf(&j, "{\"value\":%s,\"k\":\"%s\"}\n", tok,
			      colon + 1);
	}
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", sl_buf_cstr(&j), j.len,
			       sl_memstream_schema(ms), &o, &err);
	if (b == NULL || sl_memstream_add(ms, b, &err) < 0)
		diag("addData failed: %s", err.msg);
	sl_batch_free(b);
	sl_buf_release(&j);
}

static sl_plan *sel(sl_plan *in, const char **ex, int n)
{
	sl_expr *e[8];
	int i;
	sl_plan *p;
	for (i = 0; i < n; i++)
		e[i] = sl_sqlexpr_parse(ex[i], &err);
	p = in ? sl_plan_project(in, e, n, &err) : NULL;
	sl_plan_free(in);
	return p;
}

/* events: eventTime = timestamp_seconds(value), watermark 5 s, grouped by
 * window(eventTime, size, slide, start) and k with aggregates a1, a2;
 * output: start (seconds), k, a1, a2. */
static sl_plan *query(sl_memstream *ms, const char *win, const char *a1,
		      const char *a2)
{
	static const char *ev[] = { "value", "k",
				    "timestamp_seconds(value) AS eventTime" };
	static const char *out[] = { "CAST(window.start AS BIGINT) AS start",
				     "k", "a1", "a2" };
	sl_source_desc *d = sl_source_desc_memory(ms, &err);
	sl_plan *p = d ? sl_plan_stream(d, &err) : NULL, *w;
	sl_expr *k[2], *a[2];
	char buf[160];
	sl_source_desc_free(d);
	p = sel(p, ev, 3);
	w = p ? sl_plan_watermark(p, "eventTime", "5 seconds", &err) : NULL;
	sl_plan_free(p);
	snprintf(buf, sizeof buf, "window(eventTime, %s) AS window", win);
	k[0] = sl_sqlexpr_parse(buf, &err);
	k[1] = sl_sqlexpr_parse("k", &err);
	snprintf(buf, sizeof buf, "%s AS a1", a1);
	a[0] = sl_sqlexpr_parse(buf, &err);
	snprintf(buf, sizeof buf, "%s AS a2", a2);
	a[1] = sl_sqlexpr_parse(buf, &err);
	p = w ? sl_plan_aggregate(w, k, 2, a, 2, &err) : NULL;
	if (p == NULL)
		diag("plan failed: %s", err.msg);
	sl_plan_free(w);
	return sel(p, out, 4);
}

static const char *table(sl_session *s, const char *name)
{
	return table_text(s, name, &err);
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
	q = p ? sl_query_start(s, p, &o, &err) : NULL;
	if (q == NULL)
		diag("start failed: %s", err.msg);
	sl_plan_free(p);
	return q;
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

/* The late log's entries (oldest first), each "row | windows". */
static const char *late_log(sl_query *q)
{
	static char out[4096];
	sl_feed *late = sl_query_late(q);
	uint64_t first = 0, last = 0, i;
	const sl_event *ev;
	size_t at = 0;
	out[0] = '\0';
	sl_feed_range(late, &first, &last);
	for (i = first; late != NULL && last >= first && i <= last; i++) {
		const char *r, *w;
		if ((ev = sl_feed_get(late, i)) == NULL ||
		    (r = strstr(ev->json, "\"row\":")) == NULL ||
		    (w = strstr(ev->json, "\"windows\":")) == NULL)
			continue;
		at += (size_t)snprintf(out + at, sizeof out - at, "%s%.*s|%.*s",
				       at ? ";" : "", (int)strcspn(r + 6, "}") + 1,
				       r + 6, (int)strcspn(w + 10, "]") + 1,
				       w + 10);
		if (at >= sizeof out)
			break;
	}
	return out;
}

static sl_session *new_session(void)
{
	sl_session *s = sl_session_new();
	sl_clock_set_manual(sl_session_clock(s), 0);
	return s;
}

/* The batches of the update-mode scenario, and what each one adds to the
 * output (update mode: the windows it changed).  Windows of 10 s every
 * 5 s from 2 s: ..., [-8,2), [-3,7), [2,12), [7,17), [12,22), [17,27). */
static const char *const batches[] = {
	"3:a,4:b,8:a,null:a,12:b",
	/* watermark 7: 1 is late in both windows, 5 in [-3,7) only */
	"1:a,5:b,null:b,20:a",
	/* watermark 15: 9 late in [2,12) only, -4 late everywhere */
	"9:a,14:b,-4:b,9:a",
};

/* The same stream through the sliced path (count/sum) or the fallback
 * (count/first): the counts and windows agree; update output per batch. */
static void test_update(bool sliced)
{
	const char *tag = sliced ? "[slices]" : "[rows]";
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT, k STRING", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q;
	const char *name = sliced ? "us" : "ur";
	/* one watermark for late rows and eviction, and no no-data batches:
	 * the last progress is the data batch's */
	sl_session_conf_set(s, "spark.sql.streaming.statefulOperator.allowMultiple",
			    "false", &err);
	sl_session_conf_set(s, "spark.sql.streaming.noDataMicroBatches.enabled",
			    "false", &err);
	q = start(s,
			    query(ms, "'10 seconds', '5 seconds', '2 seconds'",
				  "count(*)", sliced ? "sum(value)" : "first(value)"),
			    SL_MODE_UPDATE, name);
	if (q == NULL)
		goto out;
	add_rows(ms, batches[0]);
	sl_query_process_all_available(q, &err);
	is_str(table(s, name),
	       sliced ? "-3,a,1,3;-3,b,1,4;2,a,2,11;2,b,1,4;7,a,1,8;7,b,1,12;12,b,1,12"
		      : "-3,a,1,3;-3,b,1,4;2,a,2,3;2,b,1,4;7,a,1,8;7,b,1,12;12,b,1,12",
	       "%s batch 0: every window of every timed row, NULL time none", tag);
	is_int(num(q, "numRowsTotal"), 7, "%s 7 window groups", tag);
	add_rows(ms, batches[1]);
	sl_query_process_all_available(q, &err);
	is_str(table(s, name) + strlen(sliced ? "-3,a,1,3;-3,b,1,4;2,a,2,11;2,b,1,4;7,a,1,8;7,b,1,12;12,b,1,12"
						: "-3,a,1,3;-3,b,1,4;2,a,2,3;2,b,1,4;7,a,1,8;7,b,1,12;12,b,1,12"),
	       sliced ? ";2,b,2,9;12,a,1,20;17,a,1,20" : ";2,b,2,4;12,a,1,20;17,a,1,20",
	       "%s batch 1: late windows dropped, open ones updated", tag);
	is_int(num(q, "numRowsDroppedByWatermark"), 3,
	       "%s 3 late groups: (-8,a), (-3,a), (-3,b)", tag);
	is_str(late_log(q),
	       "{\"value\":1,\"k\":\"a\",\"eventTime\":\"1970-01-01T00:00:01.000Z\"}|"
	       "[{\"start\":\"1969-12-31 23:59:52\",\"end\":\"1970-01-01 00:00:02\"},"
	       "{\"start\":\"1969-12-31 23:59:57\",\"end\":\"1970-01-01 00:00:07\"}]",
	       "%s the late log: row 1 with both its windows, not row 5", tag);
	add_rows(ms, batches[2]);
	sl_query_process_all_available(q, &err);
	is_int(num(q, "numRowsDroppedByWatermark"), 3,
	       "%s 3 late groups: (2,a) of both 9s once, (-8,b), (-13,b)", tag);
	{
		const char *all = table(s, name);
		const char *tail = strstr(all, ";2,b,2,");
		tail = tail ? strchr(tail + 1, ';') : NULL;
		tail = tail ? strchr(tail + 1, ';') : NULL;
		tail = tail ? strchr(tail + 1, ';') : NULL;
		is_str(tail ? tail : all,
		       sliced ? ";7,a,3,26;7,b,2,26;12,b,2,26"
			      : ";7,a,3,8;7,b,2,12;12,b,2,12",
		       "%s batch 2: the open windows of 9, 9 and 14", tag);
	}
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* Append: each window once when the watermark passes its end; min/max
 * over strings; a size that is not a multiple of the slide runs the
 * row-expanding path and gives its own windows. */
static void test_append(void)
{
	sl_session *s = new_session();
	sl_type *t = sl_type_parse_ddl("value INT, k STRING", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q = start(s,
			    query(ms, "'10 seconds', '5 seconds', '2 seconds'",
				  "count(value)", "max(k)"),
			    SL_MODE_APPEND, "ap");
	if (q == NULL)
		goto out;
	add_rows(ms, "3:a,4:b,8:a,null:a,12:b");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "ap"), "-3,a,1,a;-3,b,1,b",
	       "append: watermark 7 closes [-3,7)");
	add_rows(ms, "1:a,5:b,30:a");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "ap"),
	       "-3,a,1,a;-3,b,1,b;2,a,2,a;2,b,2,b;7,a,1,a;7,b,1,b;12,b,1,b",
	       "append: watermark 25 closes up to [12,22), late rows out");
	is_int(num(q, "numRowsTotal"), 2, "append: (22,a) and (27,a) left");
	sl_query_stop(q);
	sl_query_free(q);
	q = start(s,
		  query(ms, "'7 seconds', '3 seconds'", "count(*)", "min(k)"),
		  SL_MODE_COMPLETE, "cp");
	if (q == NULL)
		goto out;
	sl_query_process_all_available(q, &err);
	is_str(table(s, "cp"),
	       "-3,a,2,a;0,a,2,a;0,b,2,b;3,a,2,a;3,b,2,b;6,a,1,a;6,b,1,b;"
	       "9,b,1,b;12,b,1,b;24,a,1,a;27,a,1,a;30,a,1,a",
	       "complete, size not a multiple of the slide: 2 or 3 windows a row");
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

/* Which aggregations take slices: order-free aggregates of a window
 * whose size is a multiple of its slide. */
static void test_path(void)
{
	static const struct {
		const char *win, *a1, *a2;
		bool slices;
	} c[] = {
		{ "'10 seconds', '5 seconds', '2 seconds'", "count(*)", "sum(value)", true },
		{ "'60 seconds', '10 seconds'", "max(k)", "avg(value)", true },
		{ "'4 seconds', '1 second'", "min(eventTime)", "approx_count_distinct(k)", true },
		{ "'10 seconds', '5 seconds'", "count(*)", "first(value)", false },
		{ "'10 seconds', '5 seconds'", "count(*)", "last(k)", false },
		{ "'10 seconds', '5 seconds'", "count(*)", "sum(CAST(value AS DOUBLE))", false },
		{ "'10 seconds', '5 seconds'", "count(*)", "avg(CAST(value AS BIGINT))", false },
		{ "'10 seconds', '5 seconds'", "count(*)", "max(window.start)", false },
		{ "'7 seconds', '3 seconds'", "count(*)", "sum(value)", false },
	};
	sl_type *t = sl_type_parse_ddl("value INT, k STRING", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_stream_ctx ctx;
	size_t i;
	memset(&ctx, 0, sizeof ctx);
	ctx.mode = SL_MODE_UPDATE;
	ctx.wm_late_us = ctx.wm_evict_us = INT64_MIN;
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		sl_plan *p = query(ms, c[i].win, c[i].a1, c[i].a2);
		sl_op *op = p ? sl_op_stream_agg_new(p->child[0], &ctx, &err)
			      : NULL;
		ok(op != NULL && sl_stream_agg_slices(op) == c[i].slices,
		   "window(%s) %s, %s: %s", c[i].win, c[i].a1, c[i].a2,
		   c[i].slices ? "slices" : "expanded rows");
		sl_op_free(op);
		sl_plan_free(p);
	}
	sl_memstream_free(ms);
	sl_type_free(t);
}

int main(void)
{
	test_path();
	test_update(true);
	test_update(false);
	test_append();
	return done_testing();
}
