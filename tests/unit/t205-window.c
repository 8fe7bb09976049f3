/*
 * t205-window: window() on batch DataFrames (DataFrameTimeWindowingSuite
 * cases): tumbling and sliding windows, startTime, negative timestamps,
 * microsecond precision, the windows of one row, null times (dropped for
 * tumbling windows too: the FILTER the rewrite adds), and a sliding window
 * in a watermarked streaming aggregation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "expr/sqlexpr.h"
#include "tap.h"

static sl_err err;

static sl_plan *local(const char *ddl, const char *json)
{
	sl_type *t = sl_type_parse_ddl(ddl, &err);
	sl_options o;
	sl_batch *b;
	sl_plan *p = NULL;
	sl_options_init(&o);
	b = t ? sl_format_read_buf("json", "t", json, strlen(json), t, &o, &err) : NULL;
	if (b != NULL)
		p = sl_plan_local(b, &err);
	sl_batch_free(b);
	sl_type_free(t);
	return p;
}

static sl_plan *select_n(sl_plan *in, const char *const *ex, int n)
{
	sl_expr *e[8];
	sl_plan *p;
	int i;
	for (i = 0; i < n; i++)
		e[i] = sl_sqlexpr_parse(ex[i], &err);
	p = in ? sl_plan_project(in, e, n, &err) : NULL;
	if (p == NULL)
		diag("select: %s", err.msg);
	sl_plan_free(in);
	return p;
}

static sl_plan *group(sl_plan *in, const char *key, const char *agg)
{
	sl_expr *k[1], *a[1];
	sl_plan *p;
	k[0] = sl_sqlexpr_parse(key, &err);
	a[0] = sl_sqlexpr_parse(agg, &err);
	p = in ? sl_plan_aggregate(in, k, 1, a, 1, &err) : NULL;
	if (p == NULL)
		diag("groupBy: %s", err.msg);
	sl_plan_free(in);
	return p;
}

static char tbuf[8192];
static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
/* Run p, rows sorted as text "a,b;c,d". */
static const char *rows(sl_plan *p)
{
	sl_batch *b = p ? sl_plan_collect(p, &err) : NULL;
	char *r[512];
	sl_buf out, row;
	int64_t i, n;
	int j;
	sl_plan_free(p);
	if (b == NULL)
		return err.msg;
	n = b->nrows < 512 ? b->nrows : 512;
	sl_buf_init(&out);
	sl_buf_init(&row);
	for (i = 0; i < n; i++) {
		sl_buf_clear(&row);
		for (j = 0; j < b->ncols; j++) {
			if (j)
				sl_buf_addc(&row, ',');
			sl_value_show(b->cols[j], i, &row);
		}
		r[i] = strdup(sl_buf_cstr(&row));
	}
	qsort(r, (size_t)n, sizeof *r, cmpstr);
	for (i = 0; i < n; i++) {
		sl_buf_printf(&out, "%s%s", i ? ";" : "", r[i]);
		free(r[i]);
	}
	snprintf(tbuf, sizeof tbuf, "%s", sl_buf_cstr(&out));
	sl_buf_release(&out);
	sl_buf_release(&row);
	sl_batch_free(b);
	return tbuf;
}

static const char *SE[] = { "window.start", "window.end", "counts" };

static void test_sliding_grouping(void)
{
	sl_plan *p = local("time TIMESTAMP, value INT, id STRING",
			   "{\"time\":\"2016-03-27 19:39:34\",\"value\":1,\"id\":\"a\"}\n"
			   "{\"time\":\"2016-03-27 19:39:56\",\"value\":2,\"id\":\"a\"}\n"
			   "{\"time\":\"2016-03-27 19:39:27\",\"value\":4,\"id\":\"b\"}\n");
	p = group(p, "window(time, '10 seconds', '3 seconds', '0 second')",
		  "count(*) AS counts");
	is_str(rows(select_n(p, SE, 3)),
	       "2016-03-27 19:39:18,2016-03-27 19:39:28,1;"
	       "2016-03-27 19:39:21,2016-03-27 19:39:31,1;"
	       "2016-03-27 19:39:24,2016-03-27 19:39:34,1;"
	       "2016-03-27 19:39:27,2016-03-27 19:39:37,2;"
	       "2016-03-27 19:39:30,2016-03-27 19:39:40,1;"
	       "2016-03-27 19:39:33,2016-03-27 19:39:43,1;"
	       "2016-03-27 19:39:48,2016-03-27 19:39:58,1;"
	       "2016-03-27 19:39:51,2016-03-27 19:40:01,1;"
	       "2016-03-27 19:39:54,2016-03-27 19:40:04,1",
	       "sliding window grouping (DataFrameTimeWindowingSuite)");
}

static void test_tumbling(void)
{
	static const char *ex[] = { "window(time, '10 seconds').start AS s",
				    "window(time, '10 seconds').end AS e", "value" };
	sl_plan *p = local("time TIMESTAMP, value INT",
			   "{\"time\":\"2016-03-27 19:39:30\",\"value\":1}\n");
	is_str(rows(select_n(p, ex, 3)), "2016-03-27 19:39:30,2016-03-27 19:39:40,1",
	       "a record at a window start belongs to it");
}

static void test_negative(void)
{
	static const char *ex[] = { "window(time, '10 seconds', '10 seconds', '5 seconds') AS window",
				    "value" };
	static const char *out[] = { "window.start", "window.end", "value" };
	sl_plan *p = local("time TIMESTAMP, value INT",
			   "{\"time\":\"1970-01-01 00:00:02\",\"value\":1}\n"
			   "{\"time\":\"1970-01-01 00:00:12\",\"value\":2}\n");
	p = select_n(p, ex, 2);
	is_str(rows(select_n(p, out, 3)),
	       "1969-12-31 23:59:55,1970-01-01 00:00:05,1;"
	       "1970-01-01 00:00:05,1970-01-01 00:00:15,2",
	       "negative timestamps with startTime (tumbling)");
}

static void test_windows_of_a_row(void)
{
	static const char *ex[] = { "window(time, '10 seconds', '5 seconds', '-2 seconds') AS window",
				    "value" };
	static const char *out[] = { "window.start", "window.end", "value" };
	sl_plan *p = local("time TIMESTAMP, value INT",
			   "{\"time\":\"1970-01-01 00:00:02\",\"value\":1}\n"
			   "{\"time\":null,\"value\":2}\n");
	p = select_n(p, ex, 2);
	is_str(rows(select_n(p, out, 3)),
	       "1969-12-31 23:59:53,1970-01-01 00:00:03,1;"
	       "1969-12-31 23:59:58,1970-01-01 00:00:08,1",
	       "a row in every sliding window that holds it; negative startTime; null time: no row");
}

static void test_micro(void)
{
	static const char *ex[] = { "window(time, '10 microseconds', '4 microseconds') AS window" };
	static const char *out[] = { "window.start", "window.end" };
	sl_plan *p = local("time TIMESTAMP",
			   "{\"time\":\"2016-03-27 09:00:00.000011\"}\n");
	p = select_n(p, ex, 1);
	is_str(rows(select_n(p, out, 2)),
	       "2016-03-27 09:00:00.000004,2016-03-27 09:00:00.000014;"
	       "2016-03-27 09:00:00.000008,2016-03-27 09:00:00.000018",
	       "microsecond precision: ceil(10/4) = 3 candidates, 2 hold the row");
}

static void test_errors(void)
{
	static const char *ex[] = { "window(time, '10 seconds', '5 seconds') AS a",
				    "window(time, '10 seconds', '3 seconds') AS b" };
	sl_plan *p = local("time TIMESTAMP", "{\"time\":\"2016-03-27 09:00:00\"}\n");
	sl_expr *e[2];
	sl_plan *q;
	e[0] = sl_sqlexpr_parse(ex[0], &err);
	e[1] = sl_sqlexpr_parse(ex[1], &err);
	q = sl_plan_project(p, e, 2, &err);
	ok(q == NULL && strstr(err.msg, "Multiple time/session window expressions") != NULL,
	   "two different sliding windows: Spark's error");
	sl_plan_free(q);
	sl_plan_free(p);
}

/* DataFrameTimeWindowingSuite "null timestamps": Spark's TimeWindowing
 * filters rows without a time for tumbling windows too (a FILTER below
 * the node), in select, withColumn and groupBy; a string time that does
 * not parse is NULL after the implicit cast and goes as well. */
static void test_null_tumbling(void)
{
	static const char *ex[] = { "window(time, '10 seconds') AS window", "value" };
	static const char *out[] = { "window.start", "value" };
	const char *json = "{\"time\":\"2016-03-27 09:00:05\",\"value\":1}\n"
			   "{\"time\":\"2016-03-27 09:00:32\",\"value\":2}\n"
			   "{\"time\":null,\"value\":3}\n"
			   "{\"time\":null,\"value\":4}\n";
	sl_plan *p = local("time TIMESTAMP, value INT", json), *q;
	sl_expr *e;
	p = select_n(p, ex, 2);
	ok(p != NULL && p->child[0]->kind == SL_P_FILTER,
	   "select(window(time)): a FILTER below the projection");
	is_str(rows(select_n(p, out, 2)),
	       "2016-03-27 09:00:00,1;2016-03-27 09:00:30,2",
	       "select: rows with a null time are dropped");
	p = local("time STRING, value INT", json);
	is_str(rows(select_n(p, ex, 2)),
	       "{2016-03-27 09:00:00, 2016-03-27 09:00:10},1;"
	       "{2016-03-27 09:00:30, 2016-03-27 09:00:40},2",
	       "a string time: the same");
	p = local("time STRING, value INT",
		  "{\"time\":\"not a time\",\"value\":1}\n"
		  "{\"time\":\"2016-03-27 09:00:05\",\"value\":2}\n");
	is_str(rows(select_n(p, ex, 2)),
	       "{2016-03-27 09:00:00, 2016-03-27 09:00:10},2",
	       "a string that is no time is null after the cast: dropped");
	p = local("time TIMESTAMP, value INT", json);
	e = sl_sqlexpr_parse("window(time, '10 seconds')", &err);
	q = p ? sl_plan_with_column(p, "w", e, &err) : NULL;
	sl_plan_free(p);
	ok(q != NULL && sl_plan_schema(q)->nfields == 3 &&
	   strcmp(sl_plan_schema(q)->fields[2].name, "w") == 0,
	   "withColumn(window): the columns are the input's plus w");
	is_str(rows(select_n(q, out + 1, 1)), "1;2", "withColumn: the same rows");
	p = local("time TIMESTAMP, value INT", json);
	is_str(rows(group(p, "window(time, '10 seconds') AS window", "count(*) AS n")),
	       "{2016-03-27 09:00:00, 2016-03-27 09:00:10},1;"
	       "{2016-03-27 09:00:30, 2016-03-27 09:00:40},1",
	       "groupBy(window): no group for the null times");
	p = local("time TIMESTAMP, value INT", json);
	is_str(rows(select_n(p, out + 1, 1)), "1;2;3;4",
	       "without a window nothing is filtered");
}

static void test_two_tumbling(void)
{
	sl_plan *p = local("time TIMESTAMP", "{\"time\":\"2016-03-27 09:00:00\"}\n"), *q;
	sl_expr *e[2];
	e[0] = sl_sqlexpr_parse("window(time, '10 seconds') AS a", &err);
	e[1] = sl_sqlexpr_parse("window(time, '20 seconds') AS b", &err);
	q = sl_plan_project(p, e, 2, &err);
	ok(q == NULL && strstr(err.msg, "Multiple time/session window expressions") != NULL,
	   "two different tumbling windows: Spark's error");
	sl_plan_free(q);
	e[0] = sl_sqlexpr_parse("window(time, '10 seconds').start AS a", &err);
	e[1] = sl_sqlexpr_parse("window(time, '10 seconds').end AS b", &err);
	q = sl_plan_project(p, e, 2, &err);
	is_str(rows(q), "2016-03-27 09:00:00,2016-03-27 09:00:10",
	       "the same window twice is one window");
	sl_plan_free(p);
}

/* window()'s ends carry their event-time statistics (col.h
 * sl_col_tstats, worked out a run of rows at a time): equal to a pass
 * over the ends, for times in order, out of order, negative, with a start
 * time; none when a time is NULL. */
static void test_end_stats(void)
{
	static const char *const calls[] = { "window(t, '1 minute')",
					     "window(t, '10 seconds', "
					     "'10 seconds', '3 seconds')",
					     "window(t, '7 microseconds')" };
	uint64_t rng = 88172645463325252ull;
	int round, bad = 0, nostats = 0;
	for (round = 0; round < 12; round++) {
		int64_t n = 1 + round * 400, i, mn = INT64_MAX, mx = INT64_MIN,
			sum = 0;
		sl_type *t = sl_type_parse_ddl("t TIMESTAMP", &err);
		sl_col *c = sl_col_new(sl_type_prim(SL_TIMESTAMP), n), *w;
		sl_batch *b;
		sl_expr *e, *r;
		int64_t at = round % 2 ? -1000000007 : 1767268800123456;
		for (i = 0; i < n; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			at += round % 3 == 0 ? (int64_t)(rng % 20000)
					     : (int64_t)(rng % 40000000) -
						   15000000;
			sl_col_i64(c)[i] = at;
		}
		if (round == 11)
			sl_col_set_null(c, n / 2);
		b = sl_batch_new(t, n, &c);
		sl_type_free(t);
		e = sl_sqlexpr_parse(calls[round % 3], &err);
		r = e ? sl_expr_resolve(e, b->schema, &err) : NULL;
		w = r ? sl_expr_eval(r, b, &err) : NULL;
		if (w == NULL) {
			bad++;
		} else if (round == 11) {
			nostats += w->child[1]->tstats.set;
		} else {
			const sl_col_tstats *ts = &w->child[1]->tstats;
			for (i = 0; i < n; i++) {
				int64_t ms = sl_col_i64(w->child[1])[i] / 1000;
				mn = ms < mn ? ms : mn;
				mx = ms > mx ? ms : mx;
				sum += ms;
			}
			if (!ts->set || ts->min_ms != mn || ts->max_ms != mx ||
			    ts->sum_ms != sum || ts->count != n)
				bad++;
		}
		sl_col_free(w);
		sl_expr_free(r);
		sl_expr_free(e);
		sl_batch_free(b);
	}
	is_int(bad, 0, "window() ends' statistics equal a pass over them");
	is_int(nostats, 0, "none when a time is NULL");
}

int main(void)
{
	test_sliding_grouping();
	test_tumbling();
	test_negative();
	test_windows_of_a_row();
	test_micro();
	test_errors();
	test_null_tumbling();
	test_two_tumbling();
	test_end_stats();
	return done_testing();
}
