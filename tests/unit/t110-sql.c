/*
 * t110-sql: SQL statements (sql/sql.h) plan the trees the DataFrame API
 * builds (same explain text), read the catalog's tables and plan views,
 * keep their origin for toPySpark, and fail with Spark's error classes;
 * the token cursor of sqlexpr.h the statement parser reads.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/catalog.h"
#include "plan/plan_int.h"
#include "plans.h"
#include "sql/sql.h"
#include "tap.h"

static sl_catalog *cat;
static char ex1[4096], ex2[4096];

static const char *explain_of(sl_plan *p, char *out)
{
	sl_buf b;
	if (p == NULL)
		return err.msg;
	sl_buf_init(&b);
	sl_plan_explain(p, false, &b);
	snprintf(out, 4096, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	return out;
}

static sl_plan *Q(const char *text)
{
	return sl_sql_plan(text, cat, &err);
}

static void setup(void)
{
	sl_plan *p = local("k STRING, v INT", "{\"k\":\"a\",\"v\":1}\n{\"k\":\"b\",\"v\":2}\n{\"k\":\"a\",\"v\":3}\n");
	sl_batch *b = sl_plan_collect(p, &err);
	cat = sl_catalog_new();
	ok(b != NULL && sl_catalog_put(cat, "t", b, &err) == 0, "a table 't'");
	sl_batch_free(b);
	sl_plan_free(p);
}

static void test_same_plans(void)
{
	sl_plan *t = sl_catalog_plan(cat, "t", &err), *d, *s;
	sl_expr *keys[1], *aggs[1];
	/* filter -> groupBy -> agg in the DataFrame API */
	d = sl_plan_filter(t, X("v > 1"), &err);
	keys[0] = X("k");
	aggs[0] = X("sum(v) AS s");
	s = sl_plan_aggregate(d, keys, 1, aggs, 1, &err);
	sl_plan_free(d);
	explain_of(s, ex1);
	sl_plan_free(s);
	s = Q("SELECT k, sum(v) AS s FROM t WHERE v > 1 GROUP BY k");
	is_str(explain_of(s, ex2), ex1, "a GROUP BY is the DataFrame API's aggregate");
	sl_plan_free(s);
	s = Q("SELECT k, sum(v) AS s FROM t WHERE v > 1 GROUP BY k ORDER BY k");
	is_str(rows(s), "a,3;b,2", "and runs");
	is_str(ddl(s), "k STRING, s BIGINT", "with the DataFrame API's schema");
	sl_plan_free(s);
	s = Q("SELECT * FROM t");
	ok(s != NULL && s != t, "SELECT * is a node of its own");
	is_str(rows(s), "a,1;b,2;a,3", "SELECT * reads the table");
	ok(s != NULL && s->sql != NULL && strcmp(s->sql->text, "SELECT * FROM t") == 0 &&
	       s->sql->nviews == 1 && strcmp(s->sql->names[0], "t") == 0,
	   "the plan keeps its text and the view it read");
	sl_plan_free(s);
	sl_plan_free(t);
}

static void test_plan_views(void)
{
	sl_plan *t = sl_catalog_plan(cat, "t", &err);
	sl_plan *v = sl_plan_filter(t, X("v >= 2"), &err), *s;
	sl_batch *b;
	ok(sl_catalog_put_plan(cat, "big", v, &err) == 0, "a plan view");
	ok(!sl_catalog_is_streaming(cat, "big"), "of a batch plan");
	s = Q("SELECT count(*) AS n FROM big");
	is_str(rows(s), "2", "SQL reads the plan view");
	sl_plan_free(s);
	b = sl_catalog_get(cat, "big", &err);
	ok(b == NULL && strstr(err.msg, "writeStream.start()") != NULL, "a plan view has no rows to get");
	ok(sl_catalog_drop(cat, "big") == 1, "dropped");
	sl_plan_free(v);
	sl_plan_free(t);
}

static void test_errors(void)
{
	ok(Q("SELECT x FROM t") == NULL, "unknown column");
	is_int(err.code, SL_EANALYSIS, "is an analysis error");
	is_str(err.msg,
	       "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `x` cannot be resolved. "
	       "Did you mean one of the following? [`t`.`k`, `t`.`v`].; line 1 pos 7",
	       "Spark's sentence and position");
	ok(Q("SELECT k FROM t\n  WHERE v >") == NULL, "a syntax error");
	is_int(err.code, SL_EPARSE, "is a parse error");
	is_str(err.msg, "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input.(line 2, pos 11)", "at the end");
	ok(Q("SELECT k FROM tt") == NULL, "an unknown view");
	ok(strncmp(err.msg, "[TABLE_OR_VIEW_NOT_FOUND] The table or view `tt` cannot be found.", 65) == 0,
	   "TABLE_OR_VIEW_NOT_FOUND");
	ok(Q("WITH a AS (WITH b AS (SELECT v FROM t) SELECT * FROM b) SELECT v FROM a, b") == NULL,
	   "a CTE is not seen outside its query");
	ok(strstr(err.msg, "`b`") != NULL, "TABLE_OR_VIEW_NOT_FOUND names it");
}

static void test_cursor(void)
{
	sl_sqlexpr *x = sl_sqlexpr_open("SELECT a + 1 AS b, c -- no\nFROM t;", &err);
	const sl_sqltok *k;
	sl_expr *e;
	sl_buf b;
	ok(x != NULL, "the cursor lexes a statement");
	k = sl_sqlexpr_tok(x, 0);
	is_str(k->text, "SELECT", "first token");
	sl_sqlexpr_seek(x, 1);
	e = sl_sqlexpr_next(x, &err);
	sl_buf_init(&b);
	if (e != NULL)
		sl_expr_sql(e, &b);
	is_str(sl_buf_cstr(&b), "(a + 1)", "an expression stops at AS");
	sl_buf_release(&b);
	sl_expr_free(e);
	is_str(sl_sqlexpr_tok(x, 0)->text, "AS", "the cursor is past it");
	sl_sqlexpr_seek(x, sl_sqlexpr_at(x) + 4);
	is_str(sl_sqlexpr_tok(x, 0)->text, "FROM", "the comment is skipped");
	is_str(sl_sqlexpr_tok(x, 2)->text, ";", "';' is a token");
	is_int(sl_sqlexpr_tok(x, 100)->kind, SL_TOK_EOF, "past the end: EOF");
	sl_sqlexpr_close(x);
	e = sl_sqlexpr_parse("--1", &err);
	ok(e != NULL, "selectExpr text still reads -- as two minus signs");
	sl_expr_free(e);
}

int main(void)
{
	setup();
	test_same_plans();
	test_plan_views();
	test_errors();
	test_cursor();
	sl_catalog_free(cat);
	return done_testing();
}
