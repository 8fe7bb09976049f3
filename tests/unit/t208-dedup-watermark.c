/*
 * t208-dedup-watermark: streaming dropDuplicates with and without a
 * watermark and dropDuplicatesWithinWatermark (op_sdedup.c), driven
 * through real queries (memory stream, memory sink, manual clock), with
 * the expected answers and state metrics of Spark's
 * StreamingDeduplicationSuite and StreamingDeduplicationWithinWatermark-
 * Suite, and the analysis sentences.
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

/* The value of key in the op-th stateOperators entry (0 = sink side). */
static long long jnum(const char *json, const char *key, int op)
{
	char pat[64];
	const char *at = json ? strstr(json, "\"stateOperators\"") : NULL;
	int i;
	snprintf(pat, sizeof pat, "\"%s\":", key);
	for (i = 0; at != NULL && i <= op; i++)
		if ((at = strstr(at, pat)) != NULL && i < op)
			at += strlen(pat);
	return at ? strtoll(at + strlen(pat), NULL, 10) : -1;
}

static void op_rows(sl_query *q, int op, long long total, long long updated,
		    long long dropped, const char *what)
{
	int n = sl_query_recent_count(q), i;
	long long up = 0, dr = 0;
	for (i = checked; i < n; i++) {
		up += jnum(sl_query_recent_json(q, i), "numRowsUpdated", op);
		dr += jnum(sl_query_recent_json(q, i),
			   "numRowsDroppedByWatermark", op);
	}
	is_int(jnum(sl_query_last_progress_json(q), "numRowsTotal", op),
	       total, "%s: numRowsTotal", what);
	is_int(up, updated, "%s: numRowsUpdated", what);
	is_int(dr, dropped, "%s: numRowsDroppedByWatermark", what);
}

static void state_rows(sl_query *q, long long total, long long updated,
		       long long dropped, const char *what)
{
	op_rows(q, 0, total, updated, dropped, what);
	checked = sl_query_recent_count(q);
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
		   sl_type *t)
{
	if (q != NULL)
		sl_query_stop(q);
	sl_query_free(q);
	sl_plan_free(p);
	sl_memstream_free(a);
	sl_type_free(t);
	sl_session_free(s);
}


static sl_plan *dedup(sl_plan *in, const char *const *cols, int n,
		      bool within)
{
	sl_plan *p = within ? sl_plan_dedup_within_watermark(in, cols, n, &err)
			    : sl_plan_dedup(in, cols, n, &err);
	if (p == NULL)
		diag("dedup failed: %s", err.msg);
	sl_plan_free(in);
	return p;
}

static sl_plan *then(sl_plan *in, const char *exprs)
{
	sl_plan *p = in ? select_from(in, exprs) : NULL;
	sl_plan_free(in);
	return p;
}

/* {"value":v} lines for v in [from, to], `times` times over. */
static void add_range(sl_memstream *ms, int from, int to, int times)
{
	sl_buf b;
	int k, v;
	sl_buf_init(&b);
	for (k = 0; k < times; k++)
		for (v = from; v <= to; v++)
			sl_buf_printf(&b, "{\"value\":%d}\n", v);
	add(ms, sl_buf_cstr(&b));
	sl_buf_release(&b);
}

/* ------------------------------------------------------------ tests */

/* "deduplicate with all columns": no watermark, the state only grows */
static void test_all_columns(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("value STRING", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = dedup(stream_of(ms, "value"), NULL, 0, false);
	sl_query *q = start(s, p, "dd");
	if (q == NULL)
		goto out;
	add(ms, "{\"value\":\"a\"}\n");
	run(q);
	is_str(new_rows(s, "dd"), "(a)", "a passes");
	state_rows(q, 1, 1, 0, "a held");
	add(ms, "{\"value\":\"a\"}\n");
	run(q);
	is_str(new_rows(s, "dd"), "", "a again is dropped");
	state_rows(q, 1, 0, 0, "nothing new held");
	ok(strstr(sl_query_last_progress_json(q),
		  "\"customMetrics\":{\"numDroppedDuplicateRows\":1}") != NULL,
	   "customMetrics numDroppedDuplicateRows 1");
	add(ms, "{\"value\":\"b\"}\n");
	run(q);
	is_str(new_rows(s, "dd"), "(b)", "b passes");
	state_rows(q, 2, 1, 0, "b held");
	ok(strstr(sl_query_last_progress_json(q),
		  "\"operatorName\":\"dedupe\"") != NULL, "operator dedupe");
out:
	finish(s, q, p, ms, t);
}

static sl_plan *value_with_time(sl_memstream *ms, const char *delay)
{
	return watermark(stream_of(ms, "value;timestamp_seconds(value) AS eventTime"),
			 "eventTime", delay);
}

/* "deduplicate with watermark" */
static void test_with_watermark(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = then(dedup(value_with_time(ms, "10 seconds"), NULL, 0,
				false),
			  "CAST(eventTime AS BIGINT) AS t");
	sl_query *q = start(s, p, "ddwm");
	if (q == NULL)
		goto out;
	add_range(ms, 10, 15, 5);
	run(q);
	is_str(new_rows(s, "ddwm"), "(10) (11) (12) (13) (14) (15)",
	       "10 to 15 once each");
	state_rows(q, 6, 6, 0, "six keys held");
	add(ms, "{\"value\":25}\n");
	run(q);
	is_str(new_rows(s, "ddwm"), "(25)", "25 passes");
	state_rows(q, 1, 1, 0,
		   "watermark 15: the no-data batch drops the keys <= 15");
	add(ms, "{\"value\":10}\n");
	run(q);
	is_str(new_rows(s, "ddwm"), "", "10 is late");
	state_rows(q, 1, 0, 1, "10 dropped by the watermark");
	add(ms, "{\"value\":45}\n");
	run(q);
	is_str(new_rows(s, "ddwm"), "(45)", "45 passes");
	state_rows(q, 1, 1, 0, "watermark 35: 25 evicted");
out:
	finish(s, q, p, ms, t);
}

/* "SPARK-19841: watermarkPredicate should filter based on keys" and
 * "SPARK-21546: dropDuplicates should ignore watermark when it's not a
 * key" */
static void test_key_positions(void)
{
	static const char *const id_time[] = { "id", "time" };
	static const char *const id[] = { "id" };
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("a INT, b INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = then(dedup(watermark(stream_of(ms, "timestamp_seconds(a) AS time;b AS id"),
					  "time", "1 second"),
				id_time, 2, false),
			  "id");
	sl_query *q = start(s, p, "keys");
	if (q == NULL)
		goto out;
	add(ms, "{\"a\":1,\"b\":1}\n{\"a\":1,\"b\":1}\n{\"a\":1,\"b\":2}\n");
	run(q);
	is_str(new_rows(s, "keys"), "(1) (2)", "19841: first batch");
	add(ms, "{\"a\":1,\"b\":1}\n{\"a\":2,\"b\":3}\n{\"a\":2,\"b\":4}\n");
	run(q);
	is_str(new_rows(s, "keys"), "(3) (4)", "19841: (1,1) is a duplicate");
	add(ms, "{\"a\":1,\"b\":0}\n{\"a\":1,\"b\":1}\n{\"a\":3,\"b\":5}\n"
		"{\"a\":3,\"b\":6}\n");
	run(q);
	is_str(new_rows(s, "keys"), "(5) (6)",
	       "19841: (1,0) and (1,1) dropped by the watermark");
	add(ms, "{\"a\":1,\"b\":0}\n{\"a\":4,\"b\":7}\n");
	run(q);
	is_str(new_rows(s, "keys"), "(7)", "19841: (1,0) dropped again");
	sl_query_stop(q);
	sl_query_free(q);
	sl_plan_free(p);
	sl_memstream_free(ms);
	ms = sl_memstream_new(t, &err);
	seen = checked = 0;
	p = then(dedup(watermark(stream_of(ms, "a AS id;timestamp_seconds(b) AS time"),
				 "time", "1 second"),
		       id, 1, false),
		 "id;CAST(time AS BIGINT) AS time");
	q = start(s, p, "notkey");
	if (q == NULL)
		goto out;
	add(ms, "{\"a\":1,\"b\":1}\n{\"a\":1,\"b\":2}\n{\"a\":2,\"b\":2}\n");
	run(q);
	is_str(new_rows(s, "notkey"), "(1,1) (2,2)", "21546: dedup by id only");
	add(ms, "{\"a\":3,\"b\":30}\n");
	run(q);
	add(ms, "{\"a\":1,\"b\":40}\n");
	run(q);
	is_str(new_rows(s, "notkey"), "(3,30)",
	       "21546: the watermark is not a key, so id 1 stays held");
	state_rows(q, 3, 3, 0, "21546: the state never shrinks");
out:
	finish(s, q, p, ms, t);
}

/* "deduplicate with all columns with event time column in DataFrame" */
static void test_within_all_columns(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = then(dedup(value_with_time(ms, "10 seconds"), NULL, 0,
				true),
			  "CAST(eventTime AS BIGINT) AS t");
	sl_query *q = start(s, p, "within");
	if (q == NULL)
		goto out;
	add_range(ms, 10, 15, 5);
	run(q);
	is_str(new_rows(s, "within"), "(10) (11) (12) (13) (14) (15)",
	       "within: 10 to 15 once each");
	state_rows(q, 6, 6, 0, "within: six keys, expiring at 20 to 25");
	add_range(ms, 13, 17, 1);
	run(q);
	is_str(new_rows(s, "within"), "(16) (17)", "within: 13 to 15 duplicated");
	state_rows(q, 8, 2, 0, "within: eight keys");
	add(ms, "{\"value\":5}\n");
	run(q);
	is_str(new_rows(s, "within"), "", "within: 5 is late");
	state_rows(q, 8, 0, 1, "within: 5 dropped by the watermark");
	add(ms, "{\"value\":35}\n");
	run(q);
	is_str(new_rows(s, "within"), "(35)", "within: 35 passes");
	state_rows(q, 3, 1, 0, "within: watermark 25 drops expiry <= 25");
	add(ms, "{\"value\":55}\n");
	run(q);
	is_str(new_rows(s, "within"), "(55)", "within: 55 passes");
	state_rows(q, 1, 1, 0, "within: watermark 45 drops expiry <= 45");
	ok(strstr(sl_query_last_progress_json(q),
		  "\"operatorName\":\"dedupeWithinWatermark\"") != NULL,
	   "operator dedupeWithinWatermark");
out:
	finish(s, q, p, ms, t);
}

/* "deduplicate with subset of columns which event time column is not in
 * subset" */
static void test_within_subset(void)
{
	static const char *const c1[] = { "_1" };
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("_1 STRING, _2 INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = then(dedup(watermark(stream_of(ms, "_1;_2;timestamp_seconds(_2) AS eventTime"),
					  "eventTime", "2 seconds"),
				c1, 1, true),
			  "_1;CAST(eventTime AS BIGINT) AS t");
	sl_query *q = start(s, p, "subset");
	if (q == NULL)
		goto out;
	add(ms, "{\"_1\":\"a\",\"_2\":17}\n");
	run(q);
	is_str(new_rows(s, "subset"), "(a,17)", "a 17 passes (expires 19)");
	state_rows(q, 1, 1, 0, "a held");
	add(ms, "{\"_1\":\"a\",\"_2\":16}\n");
	run(q);
	is_str(new_rows(s, "subset"), "", "a 16 is a duplicate");
	state_rows(q, 1, 0, 0, "nothing new");
	add(ms, "{\"_1\":\"a\",\"_2\":13}\n");
	run(q);
	is_str(new_rows(s, "subset"), "", "a 13 is late (watermark 15)");
	state_rows(q, 1, 0, 1, "a 13 dropped by the watermark");
	add(ms, "{\"_1\":\"b\",\"_2\":22}\n{\"_1\":\"c\",\"_2\":21}\n");
	run(q);
	is_str(new_rows(s, "subset"), "(b,22) (c,21)", "b and c pass");
	state_rows(q, 2, 2, 0, "watermark 20: a (expiry 19) dropped");
	add(ms, "{\"_1\":\"a\",\"_2\":21}\n");
	run(q);
	is_str(new_rows(s, "subset"), "(a,21)",
	       "a is new again: its state row was dropped");
	state_rows(q, 3, 1, 0, "a held again (expiry 23)");
	add(ms, "{\"_1\":\"d\",\"_2\":25}\n");
	run(q);
	is_str(new_rows(s, "subset"), "(d,25)", "d passes");
	state_rows(q, 2, 1, 0, "watermark 23: a and c (expiry 23) dropped");
out:
	finish(s, q, p, ms, t);
}

/* "deduplicate with aggregate - append mode": dedup below a windowed
 * count; stateOperators list the aggregate first */
static void test_with_aggregate(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *d = dedup(value_with_time(ms, "10 seconds"), NULL, 0, false);
	sl_expr *k[1], *a[1];
	sl_plan *g, *p = NULL;
	sl_query *q = NULL;
	k[0] = sl_sqlexpr_parse("window(eventTime, '5 seconds') AS window", &err);
	a[0] = sl_sqlexpr_parse("count(*) AS count", &err);
	g = d ? sl_plan_aggregate(d, k, 1, a, 1, &err) : NULL;
	if (g == NULL)
		diag("aggregate failed: %s", err.msg);
	sl_plan_free(d);
	p = then(g, "CAST(window.start AS BIGINT) AS s;count");
	if (p == NULL || (q = start(s, p, "agg")) == NULL)
		goto out;
	add_range(ms, 10, 15, 5);
	run(q);
	is_str(new_rows(s, "agg"), "", "agg: nothing emitted yet");
	op_rows(q, 0, 2, 2, 0, "agg: two windows");
	op_rows(q, 1, 6, 6, 0, "agg: dedup is the second operator");
	checked = sl_query_recent_count(q);
	add(ms, "{\"value\":25}\n");
	run(q);
	is_str(new_rows(s, "agg"), "(10,5)", "agg: window 10 emitted");
	op_rows(q, 0, 2, 1, 0, "agg: [15,20) and [25,30)");
	op_rows(q, 1, 1, 1, 0, "agg: dedup holds 25");
	checked = sl_query_recent_count(q);
	add(ms, "{\"value\":10}\n");
	run(q);
	is_str(new_rows(s, "agg"), "", "agg: 10 is late");
	op_rows(q, 0, 2, 0, 0, "agg: aggregate unchanged");
	op_rows(q, 1, 1, 0, 1, "agg: the dedup drops 10");
	checked = sl_query_recent_count(q);
	add(ms, "{\"value\":40}\n");
	run(q);
	is_str(new_rows(s, "agg"), "(15,1) (25,1)", "agg: 15 and 25 emitted");
	op_rows(q, 0, 1, 1, 0, "agg: [40,45)");
	op_rows(q, 1, 1, 1, 0, "agg: dedup holds 40");
out:
	finish(s, q, p, ms, t);
}

static void test_errors(void)
{
	sl_session *s = session();
	sl_type *t = sl_type_parse_ddl("value STRING", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = dedup(stream_of(ms, "value"), NULL, 0, true);
	sl_query_opts o;
	sl_batch *rows, *b;
	sl_plan *local, *bd;
	memset(&o, 0, sizeof o);
	o.name = "bad";
	o.mode = SL_MODE_APPEND;
	o.format = "memory";
	ok(sl_query_start(s, p, &o, &err) == NULL,
	   "within watermark without a watermark: refused at start");
	is_str(err.msg,
	       "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark",
	       "Spark's sentence");
	sl_plan_free(p);
	{
		sl_options opts;
		sl_options_init(&opts);
		static const char two[] = "{\"value\":\"a\"}\n{\"value\":\"a\"}\n";
		rows = sl_format_read_buf("json", "t", two, sizeof two - 1, t,
					  &opts, &err);
	}
	local = rows ? sl_plan_local(rows, &err) : NULL;
	bd = local ? sl_plan_dedup_within_watermark(local, NULL, 0, &err) : NULL;
	ok(bd != NULL, "dropDuplicatesWithinWatermark builds on a batch DataFrame");
	b = bd ? sl_plan_collect(bd, &err) : NULL;
	ok(b == NULL, "a batch action refuses it");
	is_str(err.msg,
	       "dropDuplicatesWithinWatermark is not supported with batch DataFrames/DataSets",
	       "Spark's batch sentence");
	sl_batch_free(b);
	sl_plan_free(bd);
	sl_plan_free(local);
	sl_batch_free(rows);
	finish(s, NULL, NULL, ms, t);
}

int main(void)
{
	test_all_columns();
	test_with_watermark();
	test_key_positions();
	test_within_all_columns();
	test_within_subset();
	test_with_aggregate();
	test_errors();
	return done_testing();
}
