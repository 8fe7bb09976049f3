/*
 * t209-ssjoin: the stream-stream inner join (op_ssjoin.c) driven through
 * real queries: two memory streams, the memory sink, a manual clock
 * (StreamTest style).  Expected answers and state metrics are Spark's
 * StreamingInnerJoinSuite's: rows matched across batches in both
 * directions, window keys with and without a watermark, the one- and
 * two-sided time-range conditions with state cleaned by the watermark,
 * and the analysis sentences (update mode, an outer join without a
 * range condition, no equality).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "plan/plan.h"
#include "driver/query.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "rows.h"
#include "tap.h"
#include "core/timeutil.h"

static sl_err err;

static void add(sl_memstream *ms, const char *json)
{
	sl_options o;
	sl_batch *b;
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json),
			       sl_memstream_schema(ms), &o, &err);
	if (b == NULL || sl_memstream_add(ms, b, &err) < 0)
		diag("addData failed: %s", err.msg);
	sl_batch_free(b);
}

/* A stream selecting the comma-free expressions in exprs ("a;b;c"). */
static sl_plan *select_from(sl_plan *in, const char *exprs)
{
	sl_expr *e[8];
	char buf[512], *tok, *save = NULL;
	int n = 0;
	sl_plan *q;
	snprintf(buf, sizeof buf, "%s", exprs);
	for (tok = strtok_r(buf, ";", &save); tok && n < 8;
	     tok = strtok_r(NULL, ";", &save))
		if ((e[n++] = sl_sqlexpr_parse(tok, &err)) == NULL) {
			diag("cannot parse '%s': %s", tok, err.msg);
			while (--n > 0)
				sl_expr_free(e[n - 1]);
			return NULL;
		}
	q = sl_plan_project(in, e, n, &err);
	if (q == NULL)
		diag("select failed: %s", err.msg);
	return q;
}

static sl_plan *stream_of(sl_memstream *ms, const char *exprs)
{
	sl_source_desc *d = sl_source_desc_memory(ms, &err);
	sl_plan *p = d ? sl_plan_stream(d, &err) : NULL, *q;
	sl_source_desc_free(d);
	if (p == NULL)
		return NULL;
	q = select_from(p, exprs);
	sl_plan_free(p);
	return q;
}

static sl_plan *watermark(sl_plan *in, const char *col, const char *delay)
{
	sl_plan *q = sl_plan_watermark(in, col, delay, &err);
	if (q == NULL)
		diag("withWatermark failed: %s", err.msg);
	sl_plan_free(in);
	return q;
}

static sl_plan *join_on(sl_plan *l, sl_plan *r, const char *on,
			const char *how)
{
	sl_plan *j = sl_plan_join(l, r, sl_sqlexpr_parse(on, &err), NULL, 0,
				  how, &err);
	sl_plan_free(l);
	sl_plan_free(r);
	return j;
}

static sl_plan *join_using(sl_plan *l, sl_plan *r, const char *const *cols,
			   int n)
{
	sl_plan *j = sl_plan_join(l, r, NULL, cols, n, "inner", &err);
	sl_plan_free(l);
	sl_plan_free(r);
	return j;
}

/* ---- the sink: rows not seen by the previous check, sorted ---- */

static int seen;
static const char *new_rows(sl_session *s, const char *name)
{
	return table_new_rows(s, name, &seen, &err);
}

/* ---- state metrics, as Spark's assertNumStateRows: numRowsTotal of the
 * last progress, numRowsUpdated / numRowsDroppedByWatermark summed over
 * the progresses since the previous check ---- */

static int checked;

static long long jnum(const char *json, const char *key)
{
	char pat[64];
	const char *at;
	snprintf(pat, sizeof pat, "\"%s\":", key);
	at = json ? strstr(json, pat) : NULL;
	return at ? strtoll(at + strlen(pat), NULL, 10) : -1;
}

static void state_rows(sl_query *q, long long total, long long updated,
		       long long dropped, const char *what)
{
	int n = sl_query_recent_count(q), i;
	long long up = 0, dr = 0;
	for (i = checked; i < n; i++) {
		up += jnum(sl_query_recent_json(q, i), "numRowsUpdated");
		dr += jnum(sl_query_recent_json(q, i),
			   "numRowsDroppedByWatermark");
	}
	checked = n;
	is_int(jnum(sl_query_last_progress_json(q), "numRowsTotal"), total,
	       "%s: numRowsTotal", what);
	is_int(up, updated, "%s: numRowsUpdated", what);
	is_int(dr, dropped, "%s: numRowsDroppedByWatermark", what);
}

static sl_session *session(void)
{
	sl_session *s = sl_session_new();
	sl_clock_set_manual(sl_session_clock(s), 0);
	seen = checked = 0;
	return s;
}

static sl_query *start(sl_session *s, sl_plan *p, const char *name)
{
	sl_query_opts o;
	sl_query *q;
	memset(&o, 0, sizeof o);
	o.name = name;
	o.mode = SL_MODE_APPEND;
	o.format = "memory";
	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL, "%s starts (%s)", name, q ? "ok" : err.msg);
	return q;
}

static void run(sl_query *q)
{
	if (sl_query_process_all_available(q, &err) < 0)
		diag("processAllAvailable: %s", err.msg);
}

static void finish(sl_session *s, sl_query *q, sl_plan *p, sl_memstream *a,
		   sl_memstream *b, sl_type *t)
{
	if (q != NULL)
		sl_query_stop(q);
	sl_query_free(q);
	sl_plan_free(p);
	sl_memstream_free(a);
	sl_memstream_free(b);
	sl_type_free(t);
	sl_session_free(s);
}

/* ------------------------------------------------------------ tests */

/* "stream stream inner join on non-time column" */
static void test_non_time_key(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *a = sl_memstream_new(t, &err);
	sl_memstream *b = sl_memstream_new(t, &err);
	static const char *const key[] = { "key" };
	sl_plan *p = join_using(
	    stream_of(a, "value AS key;value * 2 AS leftValue"),
	    stream_of(b, "value AS key;value * 3 AS rightValue"), key, 1);
	sl_query *q = start(s, p, "nontime");
	if (q == NULL)
		goto out;
	add(a, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "nontime"), "", "1 on the left alone: nothing");
	add(b, "{\"value\":1}\n{\"value\":10}\n");
	run(q);
	is_str(new_rows(s, "nontime"), "(1,2,3)",
	       "1 arrived on the left first, then the right: joins");
	add(a, "{\"value\":10}\n");
	run(q);
	is_str(new_rows(s, "nontime"), "(10,20,30)",
	       "10 arrived on the right first, then the left: joins");
	add(b, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "nontime"), "(1,2,3)",
	       "another 1 on the right joins the held left 1");
	add(a, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "nontime"), "(1,2,3) (1,2,3)",
	       "a second left 1 joins both held right 1s");
	state_rows(q, 6, 6, 0, "no watermark: every row is held");
	add(a, "{\"value\":100}\n");
	add(b, "{\"value\":100}\n");
	run(q);
	is_str(new_rows(s, "nontime"), "(100,200,300)",
	       "both sides in one batch: the pair once");
	ok(strstr(sl_query_last_progress_json(q),
		  "\"operatorName\":\"symmetricHashJoin\"") != NULL,
	   "progress names the operator symmetricHashJoin");
out:
	finish(s, q, p, a, b, t);
}

/* window key, without and with a watermark */
static sl_plan *windowed(sl_memstream *ms, const char *side, int mult,
			 bool wm)
{
	char e[256];
	sl_plan *p;
	snprintf(e, sizeof e,
		 "value AS key;timestamp_seconds(value) AS timestamp;value * %d AS %sValue",
		 mult, side);
	p = stream_of(ms, e);
	if (wm)
		p = watermark(p, "timestamp", "10 seconds");
	snprintf(e, sizeof e,
		 "key;window(timestamp, '10 seconds') AS window;%sValue", side);
	{
		sl_plan *q = select_from(p, e);
		sl_plan_free(p);
		return q;
	}
}

static sl_plan *window_join(sl_memstream *a, sl_memstream *b, bool wm)
{
	static const char *const keys[] = { "key", "window" };
	sl_plan *j = join_using(windowed(a, "left", 2, wm),
				windowed(b, "right", 3, false), keys, 2);
	sl_plan *q = j ? select_from(j, "key;CAST(window.end AS BIGINT) AS wend;leftValue;rightValue")
		       : NULL;
	sl_plan_free(j);
	return q;
}

static void test_windows_no_watermark(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *a = sl_memstream_new(t, &err);
	sl_memstream *b = sl_memstream_new(t, &err);
	sl_plan *p = window_join(a, b, false);
	sl_query *q = start(s, p, "win");
	if (q == NULL)
		goto out;
	add(a, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "win"), "", "window: left 1 alone");
	add(b, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "win"), "(1,10,2,3)", "window: 1 joins");
	add(a, "{\"value\":25}\n");
	run(q);
	add(b, "{\"value\":25}\n");
	run(q);
	is_str(new_rows(s, "win"), "(25,30,50,75)", "window: 25 joins");
	add(a, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "win"), "(1,10,2,3)",
	       "state for 1 still around as there is no watermark");
	add(a, "{\"value\":5}\n");
	run(q);
	is_str(new_rows(s, "win"), "", "left 5 alone");
	add(b, "{\"value\":5}\n");
	run(q);
	is_str(new_rows(s, "win"), "(5,10,10,15)", "no filter by any watermark");
out:
	finish(s, q, p, a, b, t);
}

/* "stream stream inner join on windows - with watermark" */
static void test_windows_watermark(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *a = sl_memstream_new(t, &err);
	sl_memstream *b = sl_memstream_new(t, &err);
	sl_plan *p = window_join(a, b, true);
	sl_query *q = start(s, p, "winwm");
	if (q == NULL)
		goto out;
	add(a, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "winwm"), "", "wm window: left 1 alone");
	state_rows(q, 1, 1, 0, "left 1 held");
	add(b, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "winwm"), "(1,10,2,3)", "wm window: 1 joins");
	state_rows(q, 2, 1, 0, "right 1 held");
	add(a, "{\"value\":25}\n");
	run(q);
	is_str(new_rows(s, "winwm"), "", "wm window: left 25 alone");
	state_rows(q, 1, 1, 0,
		   "watermark 15: the no-data batch removes the 2 rows of window [0,10)");
	add(b, "{\"value\":25}\n");
	run(q);
	is_str(new_rows(s, "winwm"), "(25,30,50,75)", "wm window: 25 joins");
	state_rows(q, 2, 1, 0, "right 25 held");
	add(b, "{\"value\":1}\n");
	run(q);
	is_str(new_rows(s, "winwm"), "", "right 1: the left 1 was removed");
	state_rows(q, 2, 0, 0,
		   "right 1 not held: window end 10 <= state key watermark 15");
	add(a, "{\"value\":5}\n");
	run(q);
	is_str(new_rows(s, "winwm"), "", "left 5: late");
	state_rows(q, 2, 0, 1, "left 5 dropped by the watermark");
out:
	finish(s, q, p, a, b, t);
}

/* (key, time) streams for the time-range joins */
static sl_plan *timed(sl_memstream *ms, const char *side, int mult,
		      const char *delay)
{
	char e[256], c[32];
	snprintf(e, sizeof e,
		 "a AS %sKey;timestamp_seconds(b) AS %sTime;a * %d AS %sValue",
		 side, side, mult, side);
	snprintf(c, sizeof c, "%sTime", side);
	return watermark(stream_of(ms, e), c, delay);
}

static sl_plan *range_join(sl_memstream *a, sl_memstream *b,
			   const char *ldelay, const char *rdelay,
			   const char *cond)
{
	sl_plan *j = join_on(timed(a, "left", 2, ldelay),
			     timed(b, "right", 3, rdelay), cond, "inner");
	sl_plan *q = j ? select_from(j, "leftKey;CAST(leftTime AS INT) AS lt;CAST(rightTime AS INT) AS rt")
		       : NULL;
	sl_plan_free(j);
	return q;
}

/* "stream stream inner join with time range - with watermark - one side
 * condition" */
static void test_range_one_side(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("a INT, b INT", &err);
	sl_memstream *l = sl_memstream_new(t, &err);
	sl_memstream *r = sl_memstream_new(t, &err);
	sl_plan *p = range_join(l, r, "10 seconds", "10 seconds",
				"leftKey = rightKey AND leftTime < rightTime - interval 5 seconds");
	sl_query *q = start(s, p, "range1");
	if (q == NULL)
		goto out;
	add(l, "{\"a\":1,\"b\":5}\n");
	run(q);
	is_str(new_rows(s, "range1"), "", "left (1,5) alone");
	add(r, "{\"a\":1,\"b\":11}\n");
	run(q);
	is_str(new_rows(s, "range1"), "(1,5,11)", "5 < 11 - 5");
	add(r, "{\"a\":1,\"b\":10}\n");
	run(q);
	is_str(new_rows(s, "range1"), "",
	       "no match as leftTime 5 is not < rightTime 10 - 5");
	state_rows(q, 3, 3, 0, "three rows held");
	add(l, "{\"a\":1,\"b\":3}\n{\"a\":1,\"b\":30}\n");
	run(q);
	is_str(new_rows(s, "range1"), "(1,3,10) (1,3,11)", "left 3 matches both");
	state_rows(q, 5, 2, 0, "five rows held");
	add(r, "{\"a\":0,\"b\":30}\n");
	run(q);
	is_str(new_rows(s, "range1"), "", "right (0,30) alone");
	state_rows(q, 4, 1, 0,
		   "watermark 20: right state rightTime <= 25 cleared, (1,11) and (1,10)");
	add(r, "{\"a\":1,\"b\":20}\n{\"a\":1,\"b\":21}\n{\"a\":1,\"b\":28}\n");
	run(q);
	is_str(new_rows(s, "range1"), "(1,3,21) (1,3,28) (1,5,21) (1,5,28)",
	       "21 and 28 match the held left (1,3) and (1,5); 20 is late");
	state_rows(q, 5, 1, 1, "21 not held (state watermark 25), 28 held");
	add(l, "{\"a\":1,\"b\":20}\n{\"a\":1,\"b\":21}\n");
	run(q);
	is_str(new_rows(s, "range1"), "(1,21,28)", "left 20 late, 21 matches 28");
	state_rows(q, 6, 1, 1, "the left state is never cleaned");
out:
	finish(s, q, p, l, r, t);
}

/* "stream stream inner join with time range - with watermark - two side
 * conditions" */
static void test_range_two_sides(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("a INT, b INT", &err);
	sl_memstream *l = sl_memstream_new(t, &err);
	sl_memstream *r = sl_memstream_new(t, &err);
	sl_plan *p = range_join(l, r, "20 seconds", "30 seconds",
				"leftKey = rightKey AND leftTime BETWEEN rightTime - interval 10 seconds AND rightTime + interval 5 seconds");
	sl_query *q = start(s, p, "range2");
	if (q == NULL)
		goto out;
	add(l, "{\"a\":1,\"b\":20}\n");
	run(q);
	is_str(new_rows(s, "range2"), "", "left 20 alone");
	add(r, "{\"a\":1,\"b\":14}\n{\"a\":1,\"b\":15}\n{\"a\":1,\"b\":25}\n"
	       "{\"a\":1,\"b\":26}\n{\"a\":1,\"b\":30}\n{\"a\":1,\"b\":31}\n");
	run(q);
	is_str(new_rows(s, "range2"), "(1,20,15) (1,20,25) (1,20,26) (1,20,30)",
	       "leftTime 20 matches rightTime 15..30");
	state_rows(q, 7, 7, 0, "seven rows held");
	add(r, "{\"a\":1,\"b\":60}\n");
	run(q);
	is_str(new_rows(s, "range2"), "", "right 60 matches nothing");
	add(l, "{\"a\":1,\"b\":49}\n{\"a\":1,\"b\":50}\n{\"a\":1,\"b\":65}\n"
	       "{\"a\":1,\"b\":66}\n");
	run(q);
	is_str(new_rows(s, "range2"), "(1,50,60) (1,65,60)",
	       "rightTime 60 matches leftTime 50..65");
	state_rows(q, 10, 5, 0,
		   "watermark 30: right state < 25 dropped (14, 15), left keeps 20");
	add(l, "{\"a\":1,\"b\":30}\n{\"a\":1,\"b\":31}\n");
	run(q);
	is_str(new_rows(s, "range2"), "(1,31,26) (1,31,30) (1,31,31)",
	       "left 30 late, 31 matches 26, 30, 31");
	state_rows(q, 11, 1, 1, "only 31 added");
	add(r, "{\"a\":1,\"b\":80}\n");
	run(q);
	is_str(new_rows(s, "range2"), "", "right 80 alone");
	state_rows(q, 6, 1, 0,
		   "watermark 46: left < 36 dropped (20, 31), right < 41 (25, 26, 30, 31)");
	add(r, "{\"a\":1,\"b\":46}\n{\"a\":1,\"b\":50}\n");
	run(q);
	is_str(new_rows(s, "range2"), "(1,49,50) (1,50,50)",
	       "right 46 late, 50 matches 49 and 50");
	state_rows(q, 7, 1, 1, "50 added");
	ok(strstr(sl_query_last_progress_json(q),
		  "\"watermark\":\"1970-01-01T00:00:46.000Z\"") != NULL,
	   "progress shows watermark 46");
out:
	finish(s, q, p, l, r, t);
}

static void expect_start_error(sl_plan *p, sl_outmode mode, const char *msg,
			       const char *what)
{
	sl_session *s = session();
	sl_query_opts o;
	sl_query *q;
	memset(&o, 0, sizeof o);
	o.name = "bad";
	o.mode = mode;
	o.format = "memory";
	memset(&err, 0, sizeof err);
	q = sl_query_start(s, p, &o, &err);
	ok(q == NULL, "%s: refused at start", what);
	is_str(err.msg, msg, "%s: message", what);
	if (q != NULL) {
		sl_query_stop(q);
		sl_query_free(q);
	}
	sl_session_free(s);
}

static void test_errors(void)
{
	sl_type *t = sl_type_parse_ddl("a INT, b INT", &err);
	sl_memstream *l = sl_memstream_new(t, &err);
	sl_memstream *r = sl_memstream_new(t, &err);
	const char *cond = "leftKey = rightKey AND leftTime BETWEEN rightTime - interval 10 seconds AND rightTime + interval 5 seconds";
	sl_plan *p = range_join(l, r, "10 seconds", "10 seconds", cond);
	expect_start_error(p, SL_MODE_UPDATE,
			   "Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode",
			   "update mode");
	sl_plan_free(p);
	/* outer joins run (tests/lua/211-outer-join.lua); without a range
	 * condition the left state cannot be bounded */
	p = join_on(timed(l, "left", 2, "10 seconds"),
		    timed(r, "right", 3, "10 seconds"), "leftKey = rightKey",
		    "left_outer");
	expect_start_error(p, SL_MODE_APPEND,
			   "Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition",
			   "left outer join");
	sl_plan_free(p);
	p = join_on(timed(l, "left", 2, "10 seconds"),
		    timed(r, "right", 3, "10 seconds"), "leftKey < rightKey",
		    "inner");
	expect_start_error(p, SL_MODE_APPEND,
			   "Stream-stream join without equality predicate is not supported",
			   "no equality predicate");
	sl_plan_free(p);
	sl_memstream_free(l);
	sl_memstream_free(r);
	sl_type_free(t);
}

int main(void)
{
	test_non_time_key();
	test_windows_no_watermark();
	test_windows_watermark();
	test_range_one_side();
	test_range_two_sides();
	test_errors();
	return done_testing();
}
