/*
 * t204-analysis: sl_exec_stream_check, Spark's UnsupportedOperationChecker
 * for streaming plans: every sentence verbatim, and the combinations that
 * must start.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_stream.h"
#include "formats/fileformat.h"
#include "plan/plan.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "tap.h"

static sl_err err;

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

/* groupBy(key).agg(one aggregate); borrows in. */
static sl_plan *agg1(sl_plan *in, const char *key, const char *a)
{
	sl_expr *k[1], *x[1];
	k[0] = key ? X(key) : NULL;
	x[0] = X(a);
	return sl_plan_aggregate(in, k, key ? 1 : 0, x, 1, &err);
}

static const char *check(sl_plan *p, sl_outmode m)
{
	memset(&err, 0, sizeof err);
	if (p == NULL)
		return "plan failed";
	if (sl_exec_stream_check(p, m, &err) == 0)
		return "ok";
	return err.code == SL_EANALYSIS ? err.msg : "wrong code";
}

static sl_plan *join(sl_plan *l, sl_plan *r, const char *how)
{
	const char *using[] = { "k" };
	return sl_plan_join(l, r, NULL, using, 1, how, &err);
}

int main(void)
{
	sl_plan *s = stream("k STRING, v INT"), *s2 = stream("k STRING, w INT");
	sl_plan *st = local("k STRING, n INT", "{\"k\":\"a\",\"n\":1}");
	sl_plan *a = agg1(s, "k", "count(*) AS c"), *p, *q;
	sl_expr *e[1];

	is_str(check(st, SL_MODE_APPEND),
	       "Queries without streaming sources cannot be executed with writeStream.start()",
	       "a batch plan cannot start");
	is_str(check(s, SL_MODE_APPEND), "ok", "stateless append");
	is_str(check(s, SL_MODE_UPDATE), "ok", "stateless update");
	is_str(check(s, SL_MODE_COMPLETE),
	       "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets",
	       "complete without aggregation");
	is_str(check(a, SL_MODE_APPEND),
	       "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark",
	       "append with an aggregation and no watermark");
	is_str(check(a, SL_MODE_UPDATE), "ok", "aggregation in update");
	is_str(check(a, SL_MODE_COMPLETE), "ok", "aggregation in complete");

	p = agg1(s, "k", "count(DISTINCT v) AS d");
	is_str(check(p, SL_MODE_COMPLETE),
	       "Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.",
	       "count distinct");
	sl_plan_free(p);
	p = agg1(s, "k", "approx_count_distinct(v) AS d");
	is_str(check(p, SL_MODE_COMPLETE), "ok", "approx_count_distinct is fine");
	sl_plan_free(p);

	/* sorting */
	e[0] = X("k");
	p = sl_plan_sort(s, e, 1, &err);
	is_str(check(p, SL_MODE_APPEND),
	       "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode",
	       "sorting a stream");
	sl_plan_free(p);
	e[0] = X("c");
	p = sl_plan_sort(a, e, 1, &err);
	is_str(check(p, SL_MODE_COMPLETE), "ok", "sorting an aggregation in complete mode");
	is_str(check(p, SL_MODE_UPDATE),
	       "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode",
	       "sorting an aggregation in update mode");
	sl_plan_free(p);

	/* limit */
	p = sl_plan_limit(s, 5, &err);
	is_str(check(p, SL_MODE_APPEND), "ok", "limit in append");
	is_str(check(p, SL_MODE_UPDATE),
	       "Limits are not supported on streaming DataFrames/Datasets in Update output mode",
	       "limit in update");
	sl_plan_free(p);
	p = sl_plan_limit(a, 5, &err);
	is_str(check(p, SL_MODE_COMPLETE), "ok", "limit on an aggregation in complete");
	sl_plan_free(p);

	/* union */
	p = sl_plan_union(s, st, &err);
	ok(p != NULL, "union of a stream and a batch DataFrame builds (Spark checks at start)");
	is_str(check(p, SL_MODE_APPEND),
	       "Union between streaming and batch DataFrames/Datasets is not supported",
	       "union stream + batch");
	sl_plan_free(p);
	p = sl_plan_union(s, s2, &err);
	is_str(check(p, SL_MODE_APPEND), "ok", "union of two streams");
	sl_plan_free(p);

	/* joins: the stream-static matrix */
	p = join(s, st, "inner");
	is_str(check(p, SL_MODE_APPEND), "ok", "stream-static inner");
	sl_plan_free(p);
	p = join(s, st, "left");
	is_str(check(p, SL_MODE_APPEND), "ok", "stream-static left outer");
	sl_plan_free(p);
	p = join(s, st, "left_semi");
	is_str(check(p, SL_MODE_APPEND), "ok", "stream-static left semi");
	sl_plan_free(p);
	p = join(st, s, "right");
	is_str(check(p, SL_MODE_APPEND), "ok", "static-stream right outer");
	sl_plan_free(p);
	p = join(st, s, "inner");
	is_str(check(p, SL_MODE_APPEND), "ok", "static-stream inner");
	sl_plan_free(p);
	p = join(st, s, "left");
	is_str(check(p, SL_MODE_APPEND),
	       "LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported",
	       "static-stream left outer");
	sl_plan_free(p);
	p = join(st, s, "left_semi");
	is_str(check(p, SL_MODE_APPEND),
	       "LeftSemi join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported",
	       "static-stream left semi");
	sl_plan_free(p);
	p = join(st, s, "left_anti");
	is_str(check(p, SL_MODE_APPEND),
	       "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported",
	       "static-stream left anti");
	sl_plan_free(p);
	p = join(s, st, "right");
	is_str(check(p, SL_MODE_APPEND),
	       "RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported",
	       "stream-static right outer");
	sl_plan_free(p);
	p = join(s, st, "full");
	is_str(check(p, SL_MODE_APPEND),
	       "FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported",
	       "stream-static full outer");
	sl_plan_free(p);
	p = join(st, s, "full");
	is_str(check(p, SL_MODE_APPEND),
	       "FullOuter joins with streaming DataFrames/Datasets on the right and a static DataFrame/Dataset on the left is not supported",
	       "static-stream full outer");
	sl_plan_free(p);

	/* stream-stream joins */
	p = join(s, s2, "inner");
	q = agg1(p, "k", "count(*) AS c");
	is_str(check(q, SL_MODE_UPDATE),
	       "Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode",
	       "stream-stream join in update");
	is_str(check(q, SL_MODE_COMPLETE),
	       "Join between two streaming DataFrames/Datasets is not supported in Complete output mode, only in Append output mode",
	       "stream-stream join in complete");
	sl_plan_free(q);
	is_str(check(p, SL_MODE_APPEND), "ok",
	       "stream-stream inner join in append (op_ssjoin.c)");
	sl_plan_free(p);
	p = join(s, s2, "left");
	is_str(check(p, SL_MODE_APPEND),
	       "Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition",
	       "stream-stream outer join without watermark");
	sl_plan_free(p);
	/* Spark's checkForStreamStreamJoinWatermark names the join type */
	p = join(s, s2, "right");
	is_str(check(p, SL_MODE_APPEND),
	       "Stream-stream RightOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition",
	       "stream-stream right outer join without watermark");
	sl_plan_free(p);
	p = join(s, s2, "full");
	is_str(check(p, SL_MODE_APPEND),
	       "Stream-stream FullOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition",
	       "stream-stream full outer join without watermark");
	sl_plan_free(p);
	p = join(s, s2, "left_semi");
	is_str(check(p, SL_MODE_APPEND),
	       "Stream-stream LeftSemi join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition",
	       "stream-stream left semi join without watermark");
	sl_plan_free(p);
	p = join(s, s2, "left_anti");
	is_str(check(p, SL_MODE_APPEND),
	       "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported",
	       "stream-stream left anti join");
	sl_plan_free(p);

	/* chained stateful operators */
	p = agg1(a, "c", "count(*) AS cc");
	is_str(check(p, SL_MODE_COMPLETE),
	       "Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, which are \"late rows\" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details.",
	       "aggregation after aggregation in complete");
	is_str(err.hint,
	       "If you understand the possible risk of correctness issue and still need to run the query, you can disable this check by setting the config `spark.sql.streaming.statefulOperator.checkCorrectness.enabled` to false.",
	       "the rest of Spark's sentence is the hint");
	ok(strstr(check(p, SL_MODE_UPDATE), "'correctness' issue") != NULL,
	   "and in update");
	sl_plan_free(p);
	{
		const char *cols[] = { "k" };
		sl_plan *d = sl_plan_dedup(s, cols, 1, &err);
		p = agg1(d, "k", "count(*) AS c");
		is_str(check(p, SL_MODE_UPDATE), "ok", "aggregation after dropDuplicates");
		is_str(check(d, SL_MODE_APPEND), "ok", "dropDuplicates in append");
		sl_plan_free(p);
		sl_plan_free(d);
	}

	sl_plan_free(a);
	sl_plan_free(s);
	sl_plan_free(s2);
	sl_plan_free(st);
	return done_testing();
}
