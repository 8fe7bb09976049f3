/*
 * t202-join-sort: every join type on a small example (using and on, hash
 * and nested loop, residual conditions, NULL keys never match), and sort
 * orders (asc/desc, nulls first/last, stability, multi-key, NaN).
 */
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "plan/plan.h"
#include "expr/sqlexpr.h"
#include "plans.h"
#include "tap.h"

static sl_plan *L, *R, *R2;

static const char *jusing(const char *how)
{
	static char keep[8192];
	const char *cols[] = { "id" };
	sl_plan *p = sl_plan_join(L, R, NULL, cols, 1, how, &err);
	snprintf(keep, sizeof keep, "%s", rows(p));
	sl_plan_free(p);
	return keep;
}

static const char *jon(const char *on, const char *how)
{
	static char keep[8192];
	sl_plan *p = sl_plan_join(L, R2, on ? X(on) : NULL, NULL, 0, how, &err);
	snprintf(keep, sizeof keep, "%s", rows(p));
	sl_plan_free(p);
	return keep;
}

static void test_joins(void)
{
	const char *cols[] = { "id" };
	sl_plan *p;
	sl_buf b;
	L = local("id INT, name STRING",
		  "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n"
		  "{\"id\":3,\"name\":\"c\"}\n{\"id\":null,\"name\":\"n\"}\n");
	R = local("id INT, score INT",
		  "{\"id\":2,\"score\":20}\n{\"id\":3,\"score\":30}\n"
		  "{\"id\":3,\"score\":31}\n{\"id\":4,\"score\":40}\n"
		  "{\"id\":null,\"score\":99}\n");
	R2 = local("rid BIGINT, score INT",
		   "{\"rid\":2,\"score\":20}\n{\"rid\":3,\"score\":30}\n"
		   "{\"rid\":3,\"score\":31}\n{\"rid\":4,\"score\":40}\n");
	p = sl_plan_join(L, R, NULL, cols, 1, "inner", &err);
	is_str(ddl(p), "id INT, name STRING, score INT", "using keeps one key column, first");
	sl_plan_free(p);
	is_str(jusing("inner"), "2,b,20;3,c,30;3,c,31", "inner join, NULL keys never match");
	is_str(jusing("left"), "1,a,null;2,b,20;3,c,30;3,c,31;null,n,null", "left outer join");
	is_str(jusing("right"), "2,b,20;3,c,30;3,c,31;4,null,40;null,null,99", "right outer join takes the right key");
	is_str(jusing("full"), "1,a,null;2,b,20;3,c,30;3,c,31;null,n,null;4,null,40;null,null,99", "full outer join coalesces the key");
	is_str(jusing("left_semi"), "2,b;3,c", "left semi join");
	is_str(jusing("left_anti"), "1,a;null,n", "left anti join keeps NULL-key rows");
	is_str(jon("id = rid", "inner"), "2,b,2,20;3,c,3,30;3,c,3,31", "on: INT = BIGINT key pair, all columns kept");
	is_str(jon("rid = id AND score > 30", "inner"), "3,c,3,31", "on: key pair plus residual");
	is_str(jon("id = rid AND score > 30", "left_outer"), "1,a,null,null;2,b,null,null;3,c,3,31;null,n,null,null", "left join with a residual");
	is_str(jon("id = rid AND score > 30", "right"), "3,c,3,31;null,null,2,20;null,null,3,30;null,null,4,40", "right join with a residual");
	is_str(jon("id + 1 < rid", "inner"), "1,a,3,30;1,a,3,31;1,a,4,40;2,b,4,40", "non-equi join by nested loops");
	is_str(jon("id + 1 < rid", "left_anti"), "3,c;null,n", "non-equi anti join");
	is_str(jon(NULL, "cross"), "1,a,2,20;1,a,3,30;1,a,3,31;1,a,4,40;2,b,2,20;2,b,3,30;2,b,3,31;2,b,4,40;3,c,2,20;3,c,3,30;3,c,3,31;3,c,4,40;null,n,2,20;null,n,3,30;null,n,3,31;null,n,4,40", "cross join");
	p = sl_plan_join(L, R2, X("id = rid"), NULL, 0, "sideways", &err);
	ok(p == NULL && strstr(err.msg, "join: Unsupported join type 'sideways'.") == err.msg, "unknown join type: %s", err.msg);
	p = sl_plan_join(L, R2, X("id = nope"), NULL, 0, "inner", &err);
	is_str(err.msg, "join: cannot resolve 'nope' given input columns: [id, name, rid, score]", "join condition resolved eagerly");
	cols[0] = "rid";
	p = sl_plan_join(L, R2, NULL, cols, 1, "inner", &err);
	is_str(err.msg, "join: USING column 'rid' cannot be resolved on the left side of the join. The left-side columns: [id, name]", "using column missing");
	p = sl_plan_join(L, R2, X("id = rid AND score > 30"), NULL, 0, "left", &err);
	sl_buf_init(&b);
	sl_plan_explain(p, false, &b);
	is_str(sl_buf_cstr(&b), "== Physical Plan ==\nBroadcastHashJoin [id], [rid], LeftOuter, BuildRight, (score > 30)\n"
	       ":- LocalTableScan [id, name]\n+- LocalTableScan [rid, score]\n", "explain of a hash join");
	sl_plan_free(p);
	p = sl_plan_join(L, R2, X("id < rid"), NULL, 0, "inner", &err);
	sl_buf_clear(&b);
	sl_plan_explain(p, false, &b);
	ok(strstr(sl_buf_cstr(&b), "BroadcastNestedLoopJoin BuildRight, Inner, (id < rid)") != NULL, "explain names BroadcastNestedLoopJoin: %s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	sl_plan_free(p);
	sl_plan_free(L);
	sl_plan_free(R);
	sl_plan_free(R2);
}

static const char *sorted(sl_plan *in, const char *k1, int f1, const char *k2,
			  int f2)
{
	static char keep[4096];
	sl_expr *k[2];
	int n = 0;
	sl_plan *p;
	k[n++] = f1 < 0 ? X(k1) : sl_expr_sort(X(k1), f1);
	if (k2)
		k[n++] = f2 < 0 ? X(k2) : sl_expr_sort(X(k2), f2);
	p = sl_plan_sort(in, k, n, &err);
	snprintf(keep, sizeof keep, "%s", rows(p));
	sl_plan_free(p);
	return keep;
}

static void test_sort(void)
{
	sl_plan *in = local("k STRING, v INT, d DOUBLE",
			    "{\"k\":\"b\",\"v\":3,\"d\":1.0}\n{\"k\":\"a\",\"v\":null,\"d\":\"NaN\"}\n"
			    "{\"k\":\"b\",\"v\":1,\"d\":-1.0}\n{\"k\":null,\"v\":2,\"d\":null}\n"
			    "{\"k\":\"a\",\"v\":null,\"d\":0.0}\n{\"k\":\"ab\",\"v\":1,\"d\":5.0}\n");
	sl_expr *bad[1];
	is_str(sorted(in, "v", -1, NULL, 0), "a,null,NaN;a,null,0.0;b,1,-1.0;ab,1,5.0;null,2,null;b,3,1.0", "asc: NULLs first, stable");
	is_str(sorted(in, "v", SL_SORT_DESC, NULL, 0), "b,3,1.0;null,2,null;b,1,-1.0;ab,1,5.0;a,null,NaN;a,null,0.0", "desc: NULLs last, stable");
	is_str(sorted(in, "v", SL_SORT_NULLS_LAST, NULL, 0), "b,1,-1.0;ab,1,5.0;null,2,null;b,3,1.0;a,null,NaN;a,null,0.0", "asc nulls last");
	is_str(sorted(in, "v", SL_SORT_DESC | SL_SORT_NULLS_FIRST, NULL, 0), "a,null,NaN;a,null,0.0;b,3,1.0;null,2,null;b,1,-1.0;ab,1,5.0", "desc nulls first");
	is_str(sorted(in, "k", -1, "v", SL_SORT_DESC), "null,2,null;a,null,NaN;a,null,0.0;ab,1,5.0;b,3,1.0;b,1,-1.0", "two keys, strings bytewise");
	is_str(sorted(in, "d", SL_SORT_DESC, NULL, 0), "a,null,NaN;ab,1,5.0;b,3,1.0;a,null,0.0;b,1,-1.0;null,2,null", "NaN is the largest double");
	is_str(sorted(in, "v * -1", -1, NULL, 0), "a,null,NaN;a,null,0.0;b,3,1.0;null,2,null;b,1,-1.0;ab,1,5.0", "sort by an expression");
	bad[0] = X("w");
	ok(sl_plan_sort(in, bad, 1, &err) == NULL, "unknown sort column");
	is_str(err.msg, "orderBy: cannot resolve 'w' given input columns: [k, v, d]", "orderBy error message");
	sl_plan_free(in);
}

int main(void)
{
	test_joins();
	test_sort();
	return done_testing();
}
