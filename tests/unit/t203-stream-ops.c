/*
 * t203-stream-ops: compiled streaming plans driven by hand, one
 * micro-batch at a time (push rows into the stream leaves, end, commit):
 * stateless pass-through, union of two streams, streaming aggregation in
 * Complete and Update mode with every aggregate kind, NULL and string
 * keys, abort and re-run, state metrics and bytes per group, dropDuplicates
 * across batches, stream-static joins, sort/limit on streams, feed events.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_stream.h"
#include "core/feed.h"
#include "formats/fileformat.h"
#include "plan/plan.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "tap.h"

static sl_err err;

/* ------------------------------------------------------- test sink */

typedef struct tsink {
	sl_buf rows;
	int finishes;
} tsink;

static int ts_push(sl_op *op, int side, sl_batch *in, sl_err *e)
{
	tsink *t = op->state;
	int64_t i;
	int j;
	(void)side;
	(void)e;
	for (i = 0; i < in->nrows; i++) {
		if (t->rows.len)
			sl_buf_addc(&t->rows, ';');
		for (j = 0; j < in->ncols; j++) {
			if (j)
				sl_buf_addc(&t->rows, ',');
			sl_value_show(in->cols[j], i, &t->rows);
		}
	}
	return 0;
}

static int ts_finish(sl_op *op, int side, sl_err *e)
{
	(void)side;
	(void)e;
	((tsink *)op->state)->finishes++;
	return 0;
}

static void ts_free(sl_op *op)
{
	tsink *t = op->state;
	sl_buf_release(&t->rows);
	free(t);
}

static const struct sl_op_ops ts_ops = {
	.name = "testsink", .push = ts_push, .finish = ts_finish,
	.free = ts_free,
};

/* ------------------------------------------------------- harness */

typedef struct h {
	sl_stream_ctx ctx;
	sl_op *sink, *root;
	sl_plan *plan;
	char out[8192];
} h;

static sl_plan *stream(const char *ddl)
{
	sl_type *t = sl_type_parse_ddl(ddl, &err);
	sl_memstream *ms = t ? sl_memstream_new(t, &err) : NULL;
	sl_source_desc *d = ms ? sl_source_desc_memory(ms, &err) : NULL;
	sl_plan *p = d ? sl_plan_stream(d, &err) : NULL;
	sl_source_desc_free(d);
	sl_memstream_free(ms);
	sl_type_free(t);
	return p;
}

static sl_plan *local(const char *ddl, const char *json)
{
	sl_type *t = sl_type_parse_ddl(ddl, &err);
	sl_options o;
	sl_batch *b;
	sl_plan *p;
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json), t, &o, &err);
	p = b ? sl_plan_local(b, &err) : NULL;
	sl_batch_free(b);
	sl_type_free(t);
	return p;
}

static sl_expr *X(const char *sql)
{
	return sl_sqlexpr_parse(sql, &err);
}

/* Compile plan (takes it) for mode; NULL root on error (err set). */
static int start(h *x, sl_plan *p, sl_outmode mode)
{
	tsink *t = calloc(1, sizeof *t);
	memset(&x->ctx, 0, sizeof x->ctx);
	x->ctx.mode = mode;
	x->ctx.wm_late_us = x->ctx.wm_evict_us = INT64_MIN;
	x->plan = p;
	x->sink = sl_op_new(&ts_ops, NULL, &err);
	sl_buf_init(&t->rows);
	x->sink->state = t;
	x->root = p ? sl_exec_stream_compile(p, x->sink, &x->ctx, &err) : NULL;
	return x->root ? 0 : -1;
}

static void stop(h *x)
{
	sl_op_free(x->sink);
	sl_plan_free(x->plan);
}

static tsink *sink_of(h *x)
{
	return x->sink->state;
}

/* Push a JSON batch into source i. */
static int push(h *x, int i, const char *json)
{
	sl_type *st = sl_plan_schema(x->plan);
	sl_source_desc **d;
	int n, rc;
	sl_options o;
	sl_batch *b;
	if (sl_exec_stream_sources(x->plan, &d, &n, &err) < 0 || i >= n)
		return -1;
	st = sl_source_desc_schema(d[i]);
	free(d);
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json), st, &o, &err);
	if (b == NULL)
		return -1;
	rc = sl_exec_stream_push(x->root, i, b, &err);
	sl_batch_free(b);
	return rc;
}

/* End the micro-batch and return its output rows ("a,b;c,d"). */
static const char *end(h *x)
{
	tsink *t = sink_of(x);
	int rc = sl_exec_stream_end(x->root, &err);
	snprintf(x->out, sizeof x->out, "%s",
		 rc < 0 ? err.msg : sl_buf_cstr(&t->rows));
	sl_buf_clear(&t->rows);
	x->ctx.batch_id++;
	return x->out;
}

static const char *batch1(h *x, const char *json)
{
	if (push(x, 0, json) < 0)
		return err.msg;
	return end(x);
}

static const char *commit1(h *x, const char *json)
{
	const char *r = batch1(x, json);
	if (sl_exec_stream_commit(x->root, &err) < 0)
		return err.msg;
	return r;
}

static sl_plan *agg(sl_plan *in, const char *keys, const char *aggs)
{
	sl_expr *k[8], *a[16];
	int nk = 0, na = 0;
	char buf[512], *s, *save;
	sl_plan *p;
	if (keys) {
		snprintf(buf, sizeof buf, "%s", keys);
		for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
			k[nk++] = X(s);
	}
	snprintf(buf, sizeof buf, "%s", aggs);
	for (s = strtok_r(buf, ";", &save); s; s = strtok_r(NULL, ";", &save))
		a[na++] = X(s);
	p = sl_plan_aggregate(in, k, nk, a, na, &err);
	sl_plan_free(in);
	return p;
}

static sl_plan *filter(sl_plan *in, const char *cond)
{
	sl_plan *p = sl_plan_filter(in, X(cond), &err);
	sl_plan_free(in);
	return p;
}

static sl_plan *project(sl_plan *in, const char *list)
{
	sl_expr *e[16];
	int n = 0;
	char buf[512], *s, *save;
	sl_plan *p;
	snprintf(buf, sizeof buf, "%s", list);
	for (s = strtok_r(buf, ";", &save); s; s = strtok_r(NULL, ";", &save))
		e[n++] = X(s);
	p = sl_plan_project(in, e, n, &err);
	sl_plan_free(in);
	return p;
}

/* ------------------------------------------------------------ tests */

static void test_stateless(void)
{
	h x;
	sl_plan *p = project(filter(stream("a INT, s STRING"), "a > 1"),
			     "a + 1 AS b;upper(s) AS u");
	ok(p && sl_plan_is_streaming(p), "project/filter over a stream is streaming");
	{
		sl_buf e;
		sl_buf_init(&e);
		sl_plan_explain(p, false, &e);
		ok(strstr(sl_buf_cstr(&e), "+- StreamingRelation memory, [a, s]") != NULL,
		   "explain shows the streaming leaf");
		sl_buf_release(&e);
		ok(sl_plan_collect(p, &err) == NULL &&
		   strcmp(err.msg, "Queries with streaming sources must be executed with writeStream.start()") == 0,
		   "collect on a stream fails with Spark's sentence");
	}
	if (start(&x, p, SL_MODE_APPEND) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(batch1(&x, "{\"a\":1,\"s\":\"x\"}\n{\"a\":2,\"s\":\"y\"}"), "3,Y",
	       "batch 0 passes rows through");
	is_str(batch1(&x, "{\"a\":5,\"s\":null}"), "6,null", "batch 1");
	is_str(batch1(&x, "{\"a\":0,\"s\":\"z\"}"), "", "batch 2: filtered out");
	is_int(sink_of(&x)->finishes, 3, "the sink is finished once per micro-batch");
	is_int(sl_exec_stream_states(x.root, NULL, 0), 0, "no stateful operators");
	is_int(sl_exec_stream_commit(x.root, &err), 0, "commit without state");
	stop(&x);
}

static void test_union(void)
{
	h x;
	sl_plan *a = stream("v INT"), *b = stream("v BIGINT");
	sl_plan *u = sl_plan_union(a, b, &err);
	sl_source_desc **d;
	int n = 0;
	sl_plan_free(a);
	sl_plan_free(b);
	ok(sl_exec_stream_sources(u, &d, &n, &err) == 0 && n == 2,
	   "a union of two streams has two sources");
	free(d);
	if (start(&x, u, SL_MODE_APPEND) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	push(&x, 0, "{\"v\":1}\n{\"v\":2}");
	push(&x, 1, "{\"v\":30000000000}");
	is_str(end(&x), "1;2;30000000000", "rows of both streams, widened");
	is_int(sink_of(&x)->finishes, 1, "union finishes its parent once");
	push(&x, 1, "{\"v\":4}");
	is_str(end(&x), "4", "next batch: only the second stream had data");
	is_int(sink_of(&x)->finishes, 2, "and again once");
	stop(&x);
}

static const char *kinds =
	"count(*) AS n;count(v) AS nv;sum(v) AS s;avg(v) AS a;min(w) AS mi;"
	"max(w) AS ma;first(v) AS f;last(w) AS l;approx_count_distinct(v) AS d;"
	"sum(x) AS sx;max(x) AS mx";

static void test_complete(void)
{
	h x;
	sl_plan *p = agg(stream("k STRING, v INT, w STRING, x DOUBLE"), "k", kinds);
	sl_stateop_info info[4];
	if (start(&x, p, SL_MODE_COMPLETE) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(commit1(&x, "{\"k\":\"b\",\"v\":1,\"w\":\"q\",\"x\":1.5}\n"
			   "{\"k\":\"a\",\"v\":null,\"w\":\"z\"}\n"
			   "{\"k\":\"b\",\"v\":2,\"w\":\"a\",\"x\":-0.5}"),
	       "a,1,0,null,null,z,z,null,z,0,null,null;"
	       "b,2,2,3,1.5,a,q,1,a,2,1.0,1.5",
	       "batch 0: every group, sorted by key");
	is_str(commit1(&x, "{\"k\":null,\"v\":7,\"w\":\"m\"}\n"
			   "{\"k\":\"a\",\"v\":5,\"w\":\"y\",\"x\":2.0}\n"
			   "{\"k\":\"a\",\"v\":5}"),
	       "null,1,1,7,7.0,m,m,7,m,1,null,null;"
	       "a,3,2,10,5.0,y,z,null,null,1,2.0,2.0;"
	       "b,2,2,3,1.5,a,q,1,a,2,1.0,1.5",
	       "batch 1: merged with the state, NULL key first, untouched b kept");
	is_int(sl_exec_stream_states(x.root, info, 4), 1, "one stateful operator");
	is_str(info[0].operator_name, "stateStoreSave", "named stateStoreSave");
	is_int(sl_state_num_rows(info[0].state), 3, "three groups in the state");
	is_int(sl_state_version(info[0].state), 2, "two committed versions");
	stop(&x);
}

static void test_update_abort(void)
{
	h x;
	sl_plan *p = agg(stream("k INT, v INT"), "k", "count(*) AS n;sum(v) AS s");
	sl_stateop_info info[2];
	if (start(&x, p, SL_MODE_UPDATE) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(commit1(&x, "{\"k\":2,\"v\":1}\n{\"k\":-1,\"v\":2}\n{\"k\":2,\"v\":3}"),
	       "-1,1,2;2,2,4", "update: batch 0, negative key first");
	is_str(batch1(&x, "{\"k\":2,\"v\":10}\n{\"k\":7,\"v\":null}"),
	       "2,3,14;7,1,null", "update: only the groups of batch 1");
	sl_exec_stream_states(x.root, info, 2);
	is_int(info[0].num_rows_updated, 2, "two rows updated in batch 1");
	sl_exec_stream_abort(x.root);
	is_int(sl_state_num_rows(info[0].state), 2, "abort: back to two groups");
	push(&x, 0, "{\"k\":2,\"v\":100}");
	sl_exec_stream_abort(x.root); /* fails half way: pushed, never ended */
	is_str(commit1(&x, "{\"k\":2,\"v\":10}\n{\"k\":7,\"v\":null}"),
	       "2,3,14;7,1,null", "the re-run gives what a first run gives");
	is_str(commit1(&x, "{\"k\":-1,\"v\":1}"), "-1,2,3", "batch 2");
	is_int(sl_state_version(info[0].state), 3, "versions: aborts left no trace");
	stop(&x);
}

static void test_global(void)
{
	h x;
	sl_plan *p = agg(filter(stream("v INT"), "v > 0"), NULL, "count(*) AS n;max(v) AS m");
	if (start(&x, p, SL_MODE_UPDATE) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(commit1(&x, "{\"v\":3}\n{\"v\":5}"), "2,5", "global aggregate, batch 0");
	is_str(commit1(&x, "{\"v\":-3}"), "2,5",
	       "a batch whose rows are all filtered out still updates the one group");
	is_str(commit1(&x, "{\"v\":9}"), "3,9", "batch 2");
	stop(&x);
}

static void test_memory(void)
{
	h x;
	sl_plan *p = agg(stream("k INT, v INT"), "k", "count(*) AS n;sum(v) AS s");
	sl_stateop_info info[1];
	sl_buf js;
	int b, i;
	double per;
	if (start(&x, p, SL_MODE_UPDATE) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	sl_buf_init(&js);
	for (b = 0; b < 3; b++) {
		sl_buf_clear(&js);
		for (i = 0; i < 10000; i++)
			sl_buf_printf(&js, "{\"k\":%d,\"v\":%d}\n", (i * 7 + b) % 10000, i);
		push(&x, 0, sl_buf_cstr(&js));
		end(&x);
		sl_exec_stream_commit(x.root, &err);
	}
	sl_exec_stream_states(x.root, info, 1);
	is_int(sl_state_num_rows(info[0].state), 10000, "10000 groups in the state");
	per = (double)sl_state_memory(info[0].state) / 10000.0;
	diag("state bytes per group, every group in the last delta: %.1f", per);
	/* a batch touching few groups, as a tumbling window's usually does:
	 * the delta the store keeps for the checkpoint is small again */
	sl_buf_clear(&js);
	for (i = 0; i < 100; i++)
		sl_buf_printf(&js, "{\"k\":%d,\"v\":%d}\n", i, 100000 + i);
	commit1(&x, sl_buf_cstr(&js));
	sl_buf_release(&js);
	per = (double)sl_state_memory(info[0].state) / 10000.0;
	diag("state bytes per group (int key, count + sum): %.1f", per);
	ok(per <= 64, "BENCH.md: at most 64 bytes per group, got %.1f", per);
	stop(&x);
}

static void test_dedup(void)
{
	h x;
	const char *cols[] = { "k" };
	sl_plan *in = stream("k STRING, v INT");
	sl_plan *p = sl_plan_dedup(in, cols, 1, &err);
	sl_stateop_info info[1];
	sl_plan_free(in);
	if (start(&x, p, SL_MODE_APPEND) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(commit1(&x, "{\"k\":\"a\",\"v\":1}\n{\"k\":\"b\",\"v\":2}\n{\"k\":\"a\",\"v\":3}\n{\"k\":null,\"v\":4}"),
	       "a,1;b,2;null,4", "dedup: first occurrence within the batch");
	is_str(batch1(&x, "{\"k\":\"b\",\"v\":5}\n{\"k\":\"c\",\"v\":6}\n{\"k\":null,\"v\":7}"),
	       "c,6", "dedup: keys of earlier batches are dropped");
	sl_exec_stream_states(x.root, info, 1);
	is_str(info[0].operator_name, "dedupe", "named dedupe");
	is_int(info[0].num_rows_updated, 1, "one new key in batch 1");
	sl_exec_stream_abort(x.root);
	is_str(commit1(&x, "{\"k\":\"c\",\"v\":8}"), "c,8",
	       "after abort the key of the failed batch is new again");
	stop(&x);
}

static void test_joins(void)
{
	h x;
	sl_plan *dim = local("id INT, name STRING",
			     "{\"id\":1,\"name\":\"one\"}\n{\"id\":2,\"name\":\"two\"}");
	sl_plan *s = stream("id INT, v INT");
	const char *using[] = { "id" };
	sl_plan *j = sl_plan_join(s, dim, NULL, using, 1, "inner", &err);
	if (start(&x, j, SL_MODE_APPEND) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(batch1(&x, "{\"id\":1,\"v\":10}\n{\"id\":3,\"v\":30}\n{\"id\":2,\"v\":20}"),
	       "1,10,one;2,20,two", "stream-static inner join");
	is_str(batch1(&x, "{\"id\":2,\"v\":21}"), "2,21,two", "the build side is kept");
	stop(&x);
	j = sl_plan_join(s, dim, NULL, using, 1, "left", &err);
	if (start(&x, j, SL_MODE_APPEND) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(batch1(&x, "{\"id\":3,\"v\":30}\n{\"id\":1,\"v\":10}"),
	       "3,30,null;1,10,one", "stream-static left outer join");
	stop(&x);
	j = sl_plan_join(dim, s, NULL, using, 1, "right", &err);
	if (start(&x, j, SL_MODE_APPEND) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(batch1(&x, "{\"id\":3,\"v\":30}\n{\"id\":2,\"v\":20}"),
	       "3,null,30;2,two,20", "static-stream right outer join builds on the left");
	stop(&x);
	j = sl_plan_join(dim, s, NULL, using, 1, "left", &err);
	ok(start(&x, j, SL_MODE_APPEND) < 0 &&
	   strcmp(err.msg, "LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported") == 0,
	   "static-stream left join refused at compile: %s", err.msg);
	stop(&x);
	sl_plan_free(s);
	sl_plan_free(dim);
}

static void test_sort_limit(void)
{
	h x;
	sl_expr *k[1];
	sl_plan *a = agg(stream("k STRING"), "k", "count(*) AS n"), *p;
	k[0] = sl_expr_sort(X("n"), SL_SORT_DESC);
	p = sl_plan_sort(a, k, 1, &err);
	sl_plan_free(a);
	a = sl_plan_limit(p, 2, &err);
	sl_plan_free(p);
	if (start(&x, a, SL_MODE_COMPLETE) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(commit1(&x, "{\"k\":\"x\"}\n{\"k\":\"y\"}\n{\"k\":\"y\"}\n{\"k\":\"z\"}"),
	       "y,2;x,1", "complete: sort then limit per batch");
	is_str(commit1(&x, "{\"k\":\"z\"}\n{\"k\":\"z\"}"), "z,3;y,2",
	       "batch 1: the limit starts again");
	stop(&x);
	a = stream("v INT");
	p = sl_plan_limit(a, 3, &err);
	sl_plan_free(a);
	if (start(&x, p, SL_MODE_APPEND) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	is_str(commit1(&x, "{\"v\":1}\n{\"v\":2}"), "1;2", "append limit, batch 0");
	is_str(batch1(&x, "{\"v\":3}\n{\"v\":4}"), "3", "limit counts over the stream");
	sl_exec_stream_abort(x.root);
	is_str(commit1(&x, "{\"v\":5}\n{\"v\":6}"), "5", "abort gives the rows back");
	is_str(commit1(&x, "{\"v\":7}"), "", "then nothing more");
	stop(&x);
}

static void test_feed(void)
{
	h x;
	sl_plan *p = agg(stream("k STRING, v INT"), "k", "sum(v) AS s;count(*) AS n");
	uint64_t first, last;
	const sl_event *e;
	if (start(&x, p, SL_MODE_UPDATE) < 0) {
		ok(0, "compile: %s", err.msg);
		return;
	}
	x.ctx.feed = sl_feed_new(64);
	x.ctx.batch_id = 4;
	commit1(&x, "{\"k\":\"a\",\"v\":1}\n{\"k\":\"a\",\"v\":2}");
	sl_feed_range(x.ctx.feed, &first, &last);
	e = sl_feed_get(x.ctx.feed, last);
	ok(e != NULL && e->kind == SL_EV_STATE_ROW, "a state row event");
	if (e != NULL) {
		is_int(e->batch_id, 4, "for the batch");
		is_str(e->json,
		       "{\"op\":\"stateStoreSave\",\"key\":\"[a]\",\"value\":\"[3,2]\",\"state\":\"UPDATED\"}",
		       "key and aggregates as text");
	}
	sl_feed_free(x.ctx.feed);
	stop(&x);
}

int main(void)
{
	test_stateless();
	test_union();
	test_complete();
	test_update_abort();
	test_global();
	test_memory();
	test_dedup();
	test_joins();
	test_sort_limit();
	test_feed();
	return done_testing();
}
