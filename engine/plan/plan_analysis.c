/*
 * plan_analysis: Spark's UnsupportedOperationChecker for streaming plans
 * (SPARK-SEMANTICS.md 2.1-2.4): which operations a streaming query may
 * contain, for which output mode, with Spark's exact sentences, raised as
 * SL_EANALYSIS when the query starts (Spark checks at start(), not when the
 * DataFrame is built: `a.union(b)` of a stream and a batch DataFrame is a
 * fine DataFrame until writeStream.start()).
 *
 * The order of the checks is Spark's, so a plan with two problems reports
 * the one Spark reports: no streaming source; the output mode against the
 * streaming aggregations; then node by node bottom-up (children first);
 * last the chaining of stateful operators (Spark 3.4+'s "global watermark"
 * correctness check).
 *
 * Stream-stream outer and semi joins are checked as Spark does
 * (stream_stream_join); left anti is refused by the stream-static matrix.
 *
 * Never prints; reads only the plan.
 */
#include "plan/plan_int.h"

#include <string.h>

static const char *join_name(sl_join_type t)
{
	static const char *const n[] = { "Inner",     "LeftOuter", "RightOuter",
					 "FullOuter", "LeftSemi",  "LeftAnti",
					 "Cross" };
	return n[t];
}

static int fail(sl_err *err, const char *msg)
{
	return sl_err_set(err, SL_EANALYSIS, "%s", msg);
}

/* Stream-stream joins (Spark's checkForStreamStreamJoinWatermark): inner
 * joins always pass here (op_ssjoin.c, append mode only: check_tree);
 * left/right/full outer and left semi joins need a watermark in the join
 * keys, or a state value watermark solvable from the range conditions for
 * the side(s) whose rows wait for their NULL-padded output (both for full
 * outer).  plan_joinwm.c solves them. */
static int stream_stream_join(const sl_plan *p, sl_err *err)
{
	sl_join_wm w;
	bool ranged;
	if (p->jtype == SL_JOIN_INNER || p->jtype == SL_JOIN_CROSS)
		return 0;
	if (sl_plan_join_wm(p, &w, err) < 0)
		return SL_ENOMEM;
	switch (p->jtype) {
	case SL_JOIN_LEFT:
	case SL_JOIN_SEMI: ranged = w.side[0].nbounds > 0; break;
	case SL_JOIN_RIGHT: ranged = w.side[1].nbounds > 0; break;
	case SL_JOIN_FULL:
		ranged = w.side[0].nbounds > 0 && w.side[1].nbounds > 0;
		break;
	default:
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "Join type %s is not supported with streaming DataFrame/Dataset",
		    join_name(p->jtype));
	}
	if (w.wkey >= 0 || ranged)
		return 0;
	return sl_err_set(
	    err, SL_EANALYSIS,
	    "Stream-stream %s join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition",
	    join_name(p->jtype));
}

/* The stream-static join matrix (SPARK-SEMANTICS.md 2.2). */
static int join_ok(const sl_plan *p, sl_err *err)
{
	bool ls = p->child[0]->streaming, rs = p->child[1]->streaming;
	switch (p->jtype) {
	case SL_JOIN_INNER:
	case SL_JOIN_CROSS: break;
	case SL_JOIN_FULL:
		if (ls && !rs)
			return fail(
			    err,
			    "FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported");
		if (!ls && rs)
			return fail(
			    err,
			    "FullOuter joins with streaming DataFrames/Datasets on the right and a static DataFrame/Dataset on the left is not supported");
		break;
	case SL_JOIN_ANTI:
		if (rs)
			return fail(
			    err,
			    "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported");
		break;
	case SL_JOIN_LEFT:
	case SL_JOIN_SEMI:
		if (!ls && rs)
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "%s join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported",
			    join_name(p->jtype));
		break;
	case SL_JOIN_RIGHT:
		if (ls && !rs)
			return fail(
			    err,
			    "RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported");
		break;
	}
	return ls && rs ? stream_stream_join(p, err) : 0;
}

int sl_plan_stream_node_ok(const sl_plan *p, sl_err *err)
{
	if (p->kind == SL_P_JOIN && p->streaming)
		return join_ok(p, err);
	if (p->kind == SL_P_UNION &&
	    p->child[0]->streaming != p->child[1]->streaming)
		return fail(
		    err,
		    "Union between streaming and batch DataFrames/Datasets is not supported");
	return 0;
}

/* Number of streaming aggregations in p (p included). */
static int count_aggs(const sl_plan *p)
{
	int i, n = p->kind == SL_P_AGGREGATE && p->streaming;
	for (i = 0; i < p->nchild; i++)
		n += count_aggs(p->child[i]);
	return n;
}

static bool has_distinct(const sl_plan *p)
{
	int i;
	for (i = 0; i < p->naggs; i++)
		if (p->aggs[i].distinct)
			return true;
	return false;
}

/* dropDuplicatesWithinWatermark needs an event-time column in its input
 * (a watermark on another stream of a join does not count). */
static bool has_event_time(const sl_plan *p)
{
	sl_plan_et et[1];
	return sl_plan_event_time(p, et, 1) > 0;
}

/* One node, after its children (Spark's foreachUp). */
static int check_node(const sl_plan *p, sl_outmode mode, sl_err *err)
{
	int rc;
	if (!p->streaming)
		return 0;
	if ((rc = sl_plan_stream_node_ok(p, err)) < 0)
		return rc;
	switch (p->kind) {
	case SL_P_AGGREGATE:
		if (has_distinct(p))
			return fail(
			    err,
			    "Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.");
		break;
	case SL_P_JOIN:
		/* node_ok reported stream-stream joins; Spark's mode sentence
		 * comes first, so check_tree looks at it before the children */
		break;
	case SL_P_LIMIT:
		if (mode == SL_MODE_UPDATE)
			return fail(
			    err,
			    "Limits are not supported on streaming DataFrames/Datasets in Update output mode");
		break;
	case SL_P_SORT:
		if (!(count_aggs(p) > 0 && mode == SL_MODE_COMPLETE))
			return fail(
			    err,
			    "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode");
		break;
	case SL_P_DEDUP:
		if (p->within_wm && !has_event_time(p->child[0]))
			return fail(
			    err,
			    "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark");
		break;
	default: break;
	}
	return 0;
}

static int check_tree(const sl_plan *p, sl_outmode mode, sl_err *err)
{
	int i, rc;
	for (i = 0; i < p->nchild; i++)
		if ((rc = check_tree(p->child[i], mode, err)) < 0)
			return rc;
	if (p->kind == SL_P_JOIN && p->child[0]->streaming &&
	    p->child[1]->streaming && mode != SL_MODE_APPEND)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "Join between two streaming DataFrames/Datasets is not supported in %s output mode, only in Append output mode",
		    sl_outmode_name(mode));
	return check_node(p, mode, err);
}

/* Spark 3.4+: a stateful operator (a streaming aggregation or a
 * stream-stream join) must not sit above an aggregation unless the mode
 * is Append. */
static bool stateful(const sl_plan *p)
{
	return p->streaming &&
	       (p->kind == SL_P_AGGREGATE ||
		(p->kind == SL_P_JOIN && p->child[0]->streaming &&
		 p->child[1]->streaming));
}

static int check_chain(const sl_plan *p, sl_outmode mode, sl_err *err)
{
	int i, rc, below = 0;
	if (stateful(p) && mode != SL_MODE_APPEND) {
		for (i = 0; i < p->nchild; i++)
			below += count_aggs(p->child[i]);
		if (below > 0) {
			/* Spark's one sentence is longer than SL_ERR_MSG: its
			 * last part goes to the hint */
			fail(
			    err,
			    "Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, which are \"late rows\" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details.");
			sl_err_hint(
			    err,
			    "If you understand the possible risk of correctness issue and still need to run the query, you can disable this check by setting the config `spark.sql.streaming.statefulOperator.checkCorrectness.enabled` to false.");
			return SL_EANALYSIS;
		}
	}
	for (i = 0; i < p->nchild; i++)
		if ((rc = check_chain(p->child[i], mode, err)) < 0)
			return rc;
	return 0;
}

/* The topmost streaming aggregation (Spark's aggregates.head). */
static const sl_plan *top_agg(const sl_plan *p)
{
	const sl_plan *a;
	int i;
	if (p->kind == SL_P_AGGREGATE && p->streaming)
		return p;
	for (i = 0; i < p->nchild; i++)
		if ((a = top_agg(p->child[i])) != NULL)
			return a;
	return NULL;
}

/* A grouping key carries the watermark (event time, window over it). */
static bool agg_watermarked(const sl_plan *p)
{
	const sl_plan *a = top_agg(p);
	sl_agg_et et;
	if (a == NULL)
		return false;
	sl_plan_agg_event_time(a, &et);
	return et.kind != SL_ET_NONE;
}

/* A session_window() grouping key (with or without a watermark). */
static bool agg_session(const sl_plan *a)
{
	int k;
	for (k = 0; a != NULL && k < a->nkeys; k++) {
		const sl_expr *e = a->keys[k];
		while (e->kind == SL_X_ALIAS)
			e = e->args[0];
		if (e->kind == SL_X_CALL &&
		    strcmp(e->name, "session_window") == 0)
			return true;
	}
	return false;
}

int sl_plan_stream_check(const sl_plan *p, sl_outmode mode, sl_err *err)
{
	int naggs, rc;
	if (!p->streaming)
		return fail(
		    err,
		    "Queries without streaming sources cannot be executed with writeStream.start()");
	naggs = count_aggs(p);
	if (mode == SL_MODE_APPEND && naggs > 0 && !agg_watermarked(p)) {
		/* Spark looks at the topmost aggregation's grouping keys */
		return fail(
		    err,
		    "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark");
	}
	if (mode == SL_MODE_UPDATE && naggs > 0 && agg_session(top_agg(p)))
		return fail(
		    err,
		    "Update output mode not supported for session window on streaming DataFrames/DataSets");
	if (mode == SL_MODE_COMPLETE && naggs == 0)
		return fail(
		    err,
		    "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets");
	if ((rc = check_tree(p, mode, err)) < 0)
		return rc;
	return check_chain(p, mode, err);
}
