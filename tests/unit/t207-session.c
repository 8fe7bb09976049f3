/*
 * t207-session: session_window (StreamingSessionWindowSuite): complete
 * and append modes with merging (a new event bridging stored sessions,
 * sessions placed before and after), late rows, Spark's errors for update
 * mode and a session window as the only key; a batch DataFrame too (its
 * column named session_window), and min_by/max_by.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg.h"
#include "formats/fileformat.h"
#include "plan/plan.h"
#include "driver/query.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "tap.h"

static sl_err err;

/* ("words", ts seconds) rows */
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

static sl_plan *project(sl_plan *in, const char *const *ex, int n)
{
	sl_expr *e[8];
	sl_plan *p;
	int i;
	for (i = 0; i < n; i++)
		e[i] = sl_sqlexpr_parse(ex[i], &err);
	p = in ? sl_plan_project(in, e, n, &err) : NULL;
	sl_plan_free(in);
	return p;
}

/* StructuredSessionization: explode words as session ids. */
static sl_plan *sessions(sl_plan *src, const char *delay, bool only_session)
{
	static const char *ev[] = { "explode(split(value, ' ')) AS sessionId",
				    "CAST(ts AS TIMESTAMP) AS eventTime" };
	static const char *out[] = { "sessionId", "CAST(session.start AS BIGINT) AS s",
				     "CAST(session.end AS BIGINT) AS e",
				     "CAST(session.end AS BIGINT) - CAST(session.start AS BIGINT) AS d",
				     "numEvents" };
	sl_plan *p = project(src, ev, 2), *w;
	sl_expr *k[2], *a[1];
	int nk = 0;
	if (p != NULL && delay != NULL) {
		w = sl_plan_watermark(p, "eventTime", delay, &err);
		sl_plan_free(p);
		p = w;
	}
	k[nk++] = sl_sqlexpr_parse("session_window(eventTime, '10 seconds') AS session", &err);
	if (!only_session)
		k[nk++] = sl_sqlexpr_parse("sessionId", &err);
	a[0] = sl_sqlexpr_parse("count(*) AS numEvents", &err);
	w = p ? sl_plan_aggregate(p, k, nk, a, 1, &err) : NULL;
	sl_plan_free(p);
	if (w == NULL)
		diag("plan: %s", err.msg);
	if (only_session)
		return w;
	return project(w, out, 5);
}

static char tbuf[8192];
/* Rows sorted (text), "a,b;c,d". */
static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
static const char *sorted(sl_batch *b)
{
	char *r[256];
	sl_buf out, row;
	int64_t i, n;
	int j;
	if (b == NULL)
		return err.msg;
	n = b->nrows < 256 ? b->nrows : 256;
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

static const char *table(sl_session *s, const char *name)
{
	return sorted(sl_catalog_get(sl_session_catalog(s), name, &err));
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
	sl_plan_free(p);
	return q;
}

static sl_plan *source(sl_memstream *ms)
{
	sl_source_desc *d = sl_source_desc_memory(ms, &err);
	sl_plan *p = d ? sl_plan_stream(d, &err) : NULL;
	sl_source_desc_free(d);
	return p;
}

#define B0 "{\"value\":\"hello world spark streaming\",\"ts\":40}\n" \
	   "{\"value\":\"world hello structured streaming\",\"ts\":41}\n"
#define OLD5 "hello,40,51,11,2;spark,40,50,10,1;streaming,40,51,11,2;" \
	     "structured,41,51,10,1;world,40,51,11,2"

static void test_complete(void)
{
	sl_session *s = sl_session_new();
	sl_type *t = sl_type_parse_ddl("value STRING, ts BIGINT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q = start(s, sessions(source(ms), NULL, false), SL_MODE_COMPLETE, "sc");
	ok(q != NULL, "complete session query starts (%s)", q ? "" : err.msg);
	if (q == NULL)
		goto out;
	add(ms, B0);
	sl_query_process_all_available(q, &err);
	is_str(table(s, "sc"), OLD5, "complete: first sessions");
	add(ms, "{\"value\":\"spark streaming\",\"ts\":25}\n");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "sc"), "hello,40,51,11,2;spark,25,35,10,1;spark,40,50,10,1;"
	       "streaming,25,35,10,1;streaming,40,51,11,2;structured,41,51,10,1;world,40,51,11,2",
	       "complete: sessions placed before the stored ones");
	add(ms, "{\"value\":\"spark streaming\",\"ts\":30}\n");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "sc"), "hello,40,51,11,2;spark,25,50,25,3;streaming,25,51,26,4;"
	       "structured,41,51,10,1;world,40,51,11,2",
	       "complete: one event bridges two stored sessions (touching merges)");
	add(ms, "{\"value\":\"hello apache spark\",\"ts\":60}\n");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "sc"), "apache,60,70,10,1;hello,40,51,11,2;hello,60,70,10,1;"
	       "spark,25,50,25,3;spark,60,70,10,1;streaming,25,51,26,4;"
	       "structured,41,51,10,1;world,40,51,11,2",
	       "complete: sessions placed after");
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

static void test_append(void)
{
	sl_session *s = sl_session_new();
	sl_type *t = sl_type_parse_ddl("value STRING, ts BIGINT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q = start(s, sessions(source(ms), "30 seconds", false), SL_MODE_APPEND, "sa");
	const char *j;
	ok(q != NULL, "append session query starts (%s)", q ? "" : err.msg);
	if (q == NULL)
		goto out;
	add(ms, B0);
	sl_query_process_all_available(q, &err);
	is_str(table(s, "sa"), "", "append: nothing yet (watermark 11)");
	add(ms, "{\"value\":\"spark streaming\",\"ts\":25}\n");
	sl_query_process_all_available(q, &err);
	add(ms, "{\"value\":\"spark streaming\",\"ts\":0}\n");
	sl_query_process_all_available(q, &err);
	j = sl_query_last_progress_json(q);
	ok(j && strstr(j, "\"numRowsDroppedByWatermark\":2"),
	   "append: both late rows (end 10 <= 11) dropped, counted per row");
	add(ms, "{\"value\":\"spark streaming\",\"ts\":30}\n");
	sl_query_process_all_available(q, &err);
	add(ms, "{\"value\":\"hello apache spark\",\"ts\":60}\n");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "sa"), "", "append: watermark 30 closes nothing");
	add(ms, "{\"value\":\"structured streaming\",\"ts\":90}\n");
	sl_query_process_all_available(q, &err);
	is_str(table(s, "sa"), "hello,40,51,11,2;spark,25,50,25,3;streaming,25,51,26,4;"
	       "structured,41,51,10,1;world,40,51,11,2",
	       "append: watermark 60 emits the merged sessions once");
	j = sl_query_last_progress_json(q);
	ok(j && strstr(j, "\"numRowsTotal\":5"), "append: 5 sessions left in state");
	sl_query_stop(q);
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

static void test_errors(void)
{
	sl_session *s = sl_session_new();
	sl_type *t = sl_type_parse_ddl("value STRING, ts BIGINT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_query *q = start(s, sessions(source(ms), "30 seconds", false), SL_MODE_UPDATE, "su");
	ok(q == NULL && strcmp(err.msg, "Update output mode not supported for session window on streaming DataFrames/DataSets") == 0,
	   "update mode: Spark's sentence");
	q = start(s, sessions(source(ms), NULL, true), SL_MODE_COMPLETE, "sg");
	ok(q != NULL, "a session-only key starts");
	if (q != NULL) {
		add(ms, B0);
		sl_query_process_all_available(q, &err);
		ok(sl_query_exception(q) != NULL &&
		   strstr(sl_query_exception(q), "Global aggregation with session window") &&
		   strstr(sl_query_exception(q), "not supported"),
		   "session window as the only key fails the query");
		sl_query_free(q);
	}
	sl_session_free(s);
	sl_memstream_free(ms);
	sl_type_free(t);
}

static void test_batch(void)
{
	sl_type *t = sl_type_parse_ddl("value STRING, ts BIGINT", &err);
	const char *json = B0 "{\"value\":\"spark streaming\",\"ts\":25}\n"
			      "{\"value\":\"spark streaming\",\"ts\":30}\n"
			      "{\"value\":\"spark\",\"ts\":null}\n";
	sl_options o;
	sl_batch *b;
	sl_plan *p;
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json), t, &o, &err);
	p = b ? sl_plan_local(b, &err) : NULL;
	sl_batch_free(b);
	p = sessions(p, NULL, false);
	is_str(p ? sorted(sl_plan_collect(p, &err)) : err.msg,
	       "hello,40,51,11,2;spark,25,50,25,3;streaming,25,51,26,4;"
	       "structured,41,51,10,1;world,40,51,11,2",
	       "batch DataFrame: the same sessions; a null time gives none");
	sl_plan_free(p);
	sl_type_free(t);
}

/* The batch session_window column is named session_window, as Spark's
 * SessionWindowing rule names it, so session_window.start resolves. */
static void test_name(void)
{
	static const char *ex[] = { "CAST(session_window.start AS BIGINT) AS s", "n" };
	sl_type *t = sl_type_parse_ddl("ts BIGINT", &err);
	const char *json = "{\"ts\":30}\n{\"ts\":35}\n{\"ts\":60}\n";
	sl_options o;
	sl_batch *b;
	sl_plan *p, *g;
	sl_expr *k[1], *a[1];
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json), t, &o, &err);
	p = b ? sl_plan_local(b, &err) : NULL;
	sl_batch_free(b);
	k[0] = sl_sqlexpr_parse("session_window(CAST(ts AS TIMESTAMP), '10 seconds')", &err);
	a[0] = sl_sqlexpr_parse("count(*) AS n", &err);
	g = p ? sl_plan_aggregate(p, k, 1, a, 1, &err) : NULL;
	sl_plan_free(p);
	is_str(g ? sl_plan_schema(g)->fields[0].name : err.msg, "session_window",
	       "the key column is named session_window");
	g = project(g, ex, 2);
	is_str(g ? sorted(sl_plan_collect(g, &err)) : err.msg, "30,2;60,1",
	       "session_window.start resolves");
	sl_plan_free(g);
	sl_type_free(t);
}

/* min_by/max_by (StreamingSessionWindowSuite's "with min_by / max_by"):
 * a NULL ordering is skipped, a tie takes the later row, and a group's
 * buffer survives the state store: saved, then merged as EARLIER rows
 * under newer ones (a saved tie loses to the current row). */
static void test_min_max_by(void)
{
	sl_type *ti = sl_type_prim(SL_INT), *ts = sl_type_prim(SL_STRING);
	sl_type *at[2] = { ts, ti };
	sl_agg *mn = sl_agg_new("min_by", false, false, at, 2, 0, &err);
	sl_agg *mx = sl_agg_new("max_by", false, false, at, 2, 0, &err);
	sl_agg *m2 = sl_agg_new("max_by", false, false, at, 2, 0, &err);
	sl_col *v = sl_col_new(ts, 4), *c = sl_col_new(ti, 4), *args[2], *r;
	int32_t g[4] = { 0, 0, 0, 0 }, g2[1] = { 0 };
	static const char *vs[] = { "x", "y", "z", "w" };
	static const int32_t cs[] = { 1, 3, 3, 0 };
	sl_buf buf, out;
	size_t used = 0;
	int i;
	if (!mn || !mx || !m2 || !v || !c) {
		ok(0, "min_by/max_by state: %s", err.msg);
		return;
	}
	for (i = 0; i < 4; i++) {
		sl_col_set_str(v, i, vs[i], 1);
		sl_col_i32(c)[i] = cs[i];
	}
	sl_col_set_null(c, 3); /* w has no ordering */
	args[0] = v;
	args[1] = c;
	sl_agg_update(mn, g, 4, 1, args, &err);
	sl_agg_update(mx, g, 4, 1, args, &err);
	sl_buf_init(&out);
	r = sl_agg_result(mn, 0, 1, &err);
	if (r)
		sl_value_show(r, 0, &out);
	sl_col_free(r);
	sl_buf_addc(&out, ',');
	r = sl_agg_result(mx, 0, 1, &err);
	if (r)
		sl_value_show(r, 0, &out);
	sl_col_free(r);
	is_str(sl_buf_cstr(&out), "x,z", "min_by x (1), max_by z (the later of two 3s), w ignored");
	sl_buf_init(&buf);
	ok(sl_agg_save(mx, 0, &buf, &err) == 0, "max_by saves its buffer");
	/* a newer row with the same ordering: it wins over the saved one */
	sl_col_set_str(v, 0, "n", 1);
	sl_col_i32(c)[0] = 3;
	args[0] = v;
	sl_agg_update(m2, g2, 1, 1, args, &err);
	ok(sl_agg_merge(m2, 0, buf.p, buf.len, &used, &err) == 0 && used == buf.len,
	   "the saved buffer merges, every byte read");
	sl_buf_clear(&out);
	r = sl_agg_result(m2, 0, 1, &err);
	if (r)
		sl_value_show(r, 0, &out);
	sl_col_free(r);
	is_str(sl_buf_cstr(&out), "n", "a tie: the newer row wins over the stored one");
	sl_buf_release(&buf);
	sl_buf_release(&out);
	sl_col_free(v);
	sl_col_free(c);
	sl_agg_free(mn);
	sl_agg_free(mx);
	sl_agg_free(m2);
}

int main(void)
{
	test_complete();
	test_append();
	test_errors();
	test_batch();
	test_name();
	test_min_max_by();
	return done_testing();
}
