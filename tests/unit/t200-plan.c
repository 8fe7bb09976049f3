/*
 * t200-plan: DataFrame transformations (select, filter, withColumn,
 * withColumnRenamed, drop, explode, limit, union, dropDuplicates), their
 * analysis errors with exact messages, explain(), and collect.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "expr/sqlexpr.h"
#include "plans.h"
#include "tap.h"

/* Apply and drop the input reference (a chain of transformations). */
static sl_plan *sel(sl_plan *in, const char *a, const char *b)
{
	sl_expr *e[2];
	int n = 0;
	sl_plan *p;
	e[n++] = X(a);
	if (b)
		e[n++] = X(b);
	p = sl_plan_project(in, e, n, &err);
	sl_plan_free(in);
	return p;
}

static sl_plan *filt(sl_plan *in, const char *c)
{
	sl_plan *p = sl_plan_filter(in, X(c), &err);
	sl_plan_free(in);
	return p;
}

static const char *DATA =
	"{\"id\":1,\"name\":\"ann\",\"price\":2.5,\"tags\":[\"a\",\"b\"]}\n"
	"{\"id\":2,\"name\":\"bob\",\"price\":null,\"tags\":[]}\n"
	"{\"id\":3,\"name\":null,\"price\":4.0,\"tags\":null}\n";
static const char *SCHEMA = "id INT, name STRING, price DOUBLE, tags ARRAY<STRING>";

static sl_plan *df(void)
{
	return local(SCHEMA, DATA);
}

static void test_select(void)
{
	sl_plan *p;
	is_str(rows(p = sel(df(), "id", "name")), "1,ann;2,bob;3,null", "select two columns");
	sl_plan_free(p);
	p = sel(df(), "*", NULL);
	is_str(ddl(p), "id INT, name STRING, price DOUBLE, tags ARRAY<STRING>", "select * keeps the schema");
	sl_plan_free(p);
	p = sel(df(), "id + 1", "upper(name) AS n");
	is_str(ddl(p), "(id + 1) INT, n STRING", "computed names follow Spark");
	is_str(rows(p), "2,ANN;3,BOB;4,null", "computed values");
	sl_plan_free(p);
	p = sel(df(), "prise", NULL);
	ok(p == NULL, "unknown column fails at select");
	is_str(err.msg, "select: cannot resolve 'prise' given input columns: [id, name, price, tags]", "unknown column message");
	is_str(err.hint, "did you mean 'price'?", "unknown column hint");
	is_int(err.code, SL_EANALYSIS, "AnalysisException");
}

static void test_filter(void)
{
	sl_plan *p = filt(df(), "price > 3");
	is_str(rows(p), "3,null,4.0,null", "filter keeps matching rows; NULL is dropped");
	sl_plan_free(p);
	p = filt(df(), "id");
	ok(p == NULL, "non-boolean filter fails");
	is_str(err.msg, "filter: filter expression 'id' of type INT is not a boolean", "non-boolean message");
	p = filt(df(), "nope = 1");
	is_str(err.msg, "filter: cannot resolve 'nope' given input columns: [id, name, price, tags]", "filter unknown column");
	p = filt(df(), "id >= 1 AND name IS NOT NULL");
	is_str(rows(p), "1,ann,2.5,[a, b];2,bob,null,[]", "compound filter");
	sl_plan_free(p);
	p = filt(df(), "id > 5");
	is_str(rows(p), "", "filter to nothing");
	is_str(ddl(p), "id INT, name STRING, price DOUBLE, tags ARRAY<STRING>", "empty result keeps schema");
	sl_plan_free(p);
}

static void test_columns(void)
{
	sl_plan *in = df(), *p;
	const char *dropn[] = { "price", "tags", "nothing" };
	p = sl_plan_with_column(in, "id", X("id * 10"), &err);
	is_str(ddl(p), "id INT, name STRING, price DOUBLE, tags ARRAY<STRING>", "withColumn replaces in place");
	sl_plan_free(p);
	p = sl_plan_with_column(in, "twice", X("price * 2"), &err);
	is_str(ddl(p), "id INT, name STRING, price DOUBLE, tags ARRAY<STRING>, twice DOUBLE", "withColumn appends");
	sl_plan_free(p);
	p = sl_plan_with_column(in, "bad", X("nope + 1"), &err);
	ok(p == NULL, "withColumn resolves eagerly");
	is_str(err.msg, "withColumn: cannot resolve 'nope' given input columns: [id, name, price, tags]", "withColumn error");
	p = sl_plan_rename(in, "name", "who", &err);
	is_str(ddl(p), "id INT, who STRING, price DOUBLE, tags ARRAY<STRING>", "withColumnRenamed");
	sl_plan_free(p);
	p = sl_plan_rename(in, "missing", "x", &err);
	ok(p == in, "renaming a missing column is a no-op");
	sl_plan_free(p);
	p = sl_plan_drop(in, dropn, 3, &err);
	is_str(ddl(p), "id INT, name STRING", "drop ignores missing names");
	is_str(rows(p), "1,ann;2,bob;3,null", "drop rows");
	sl_plan_free(p);
	sl_plan_free(in);
}

static void test_explode(void)
{
	sl_plan *p = sel(df(), "id", "explode(tags) AS tag");
	is_str(ddl(p), "id INT, tag STRING", "explode schema");
	is_str(rows(p), "1,a;1,b", "explode skips empty and NULL arrays");
	sl_plan_free(p);
	p = sel(df(), "id", "explode_outer(tags)");
	is_str(rows(p), "1,a;1,b;2,null;3,null", "explode_outer keeps them as NULL");
	is_str(ddl(p), "id INT, col STRING", "explode_outer default name col");
	sl_plan_free(p);
	p = sel(df(), "posexplode(tags)", "name");
	is_str(ddl(p), "pos INT NOT NULL, col STRING, name STRING", "posexplode schema");
	is_str(rows(p), "0,a,ann;1,b,ann", "posexplode rows");
	sl_plan_free(p);
	p = sel(df(), "explode(tags)", "explode(tags)");
	ok(p == NULL, "two generators fail");
	is_str(err.msg, "select: Only one generator allowed per select clause but found 2", "two generators message");
	p = sel(df(), "upper(explode(tags))", NULL);
	is_str(err.msg, "select: Generators are not supported when it's nested in expressions, but got: upper(explode(tags))", "nested generator message");
	p = sel(df(), "explode(id)", NULL);
	ok(p == NULL && strstr(err.msg, "requires the ARRAY type") != NULL, "explode of INT fails: %s", err.msg);
}

static void test_limit_union_dedup(void)
{
	sl_plan *a = df(), *b, *p;
	const char *nm[] = { "k" };
	p = sel(sl_plan_limit(a, 2, &err), "id", NULL);
	is_str(rows(p), "1;2", "limit 2");
	sl_plan_free(p);
	p = sl_plan_limit(a, 0, &err);
	is_str(rows(p), "", "limit 0");
	sl_plan_free(p);
	p = sl_plan_limit(a, -1, &err);
	ok(p == NULL, "negative limit fails");
	is_str(err.msg, "limit: The limit expression must be equal to or greater than 0, but got -1", "negative limit message");

	b = local("k BIGINT, v STRING", "{\"k\":10000000000,\"v\":\"x\"}\n");
	p = sel(sl_plan_ref(a), "id", "name");
	{
		sl_plan *u = sl_plan_union(p, b, &err);
		sl_plan_free(p);
		p = u;
	}
	is_str(ddl(p), "id BIGINT, name STRING", "union widens INT and BIGINT, keeps the first names");
	is_str(rows(p), "1,ann;2,bob;3,null;10000000000,x", "union rows in order");
	sl_plan_free(p);
	p = sl_plan_union(a, b, &err);
	ok(p == NULL, "union of 4 and 2 columns fails");
	is_str(err.msg, "Union can only be performed on tables with the same number of columns, but the first table has 4 columns and the second table has 2 columns", "union column count message");
	sl_plan_free(b);

	b = local("k INT, v STRING", "{\"k\":1,\"v\":\"x\"}\n{\"k\":1,\"v\":\"y\"}\n{\"k\":1,\"v\":\"x\"}\n{\"k\":null,\"v\":null}\n{\"k\":null,\"v\":null}\n");
	p = sl_plan_dedup(b, NULL, 0, &err);
	is_str(rows(p), "1,x;1,y;null,null", "dropDuplicates() on all columns, NULLs equal");
	sl_plan_free(p);
	p = sl_plan_dedup(b, nm, 1, &err);
	is_str(rows(p), "1,x;null,null", "dropDuplicates(k) keeps the first row per key");
	sl_plan_free(p);
	nm[0] = "zz";
	p = sl_plan_dedup(b, nm, 1, &err);
	ok(p == NULL, "dropDuplicates of a missing column fails");
	is_str(err.msg, "dropDuplicates: Cannot resolve column name \"zz\" among (k, v)", "dedup message");
	sl_plan_free(b);
	sl_plan_free(a);
}

static void test_explain_collect(void)
{
	sl_plan *f = filt(sel(df(), "id", "explode(tags) AS t"), "id > 0"), *p;
	sl_expr *k[1], *g[1];
	sl_buf b;
	sl_batch *r;
	sl_buf_init(&b);
	k[0] = X("t");
	g[0] = X("count(*)");
	p = sl_plan_aggregate(f, k, 1, g, 1, &err);
	sl_plan_free(f);
	ok(p != NULL, "aggregate over generate");
	sl_plan_explain(p, false, &b);
	diag("%s", sl_buf_cstr(&b));
	ok(strncmp(sl_buf_cstr(&b), "== Physical Plan ==\nHashAggregate(keys=[t], functions=[count(1)])\n", 66) == 0, "explain starts with HashAggregate");
	ok(strstr(sl_buf_cstr(&b), "+- Filter (id > 0)") != NULL, "Filter line");
	ok(strstr(sl_buf_cstr(&b), "Generate explode(tags)") != NULL, "Generate line");
	ok(strstr(sl_buf_cstr(&b), "LocalTableScan [id, name, price, tags]") != NULL, "LocalTableScan line");
	sl_buf_clear(&b);
	sl_plan_explain(p, true, &b);
	ok(strstr(sl_buf_cstr(&b), "== Analyzed Logical Plan ==\nt: string, count(1): bigint\nAggregate [t]") != NULL, "extended explain has the analyzed plan");
	is_str(rows(p), "a,1;b,1", "collect of the aggregate");
	sl_buf_release(&b);
	p->streaming = true;
	r = sl_plan_collect(p, &err);
	ok(r == NULL, "collect on a streaming plan fails");
	is_str(err.msg, "Queries with streaming sources must be executed with writeStream.start()", "streaming collect message");
	is_int(err.code, SL_EANALYSIS, "streaming collect is an AnalysisException");
	sl_plan_free(p);
}

static void test_read_write(void)
{
	char dir[] = "/tmp/t200-XXXXXX", path[64];
	sl_plan *p = sel(df(), "id", "name"), *r;
	sl_options o;
	int rc;
	sl_buf b;
	sl_options_init(&o);
	ok(mkdtemp(dir) != NULL, "temp dir");
	snprintf(path, sizeof path, "%s/out", dir);
	rc = sl_plan_write(p, "json", path, NULL, &o, &err);
	is_int(rc, 0, "write json: %s", rc ? err.msg : "ok");
	rc = sl_plan_write(p, "json", path, NULL, &o, &err);
	ok(rc < 0, "writing again in the default mode fails: %s", err.msg);
	r = sl_plan_read("json", path, NULL, &o, &err);
	is_str(ddl(r), "id BIGINT, name STRING", "read infers the JSON schema");
	is_str(rows(r), "1,ann;2,bob;3,null", "read back the rows");
	sl_buf_init(&b);
	if (r)
		sl_plan_explain(r, false, &b);
	ok(strstr(sl_buf_cstr(&b), "FileScan json [id, name]") != NULL, "explain FileScan json");
	sl_buf_release(&b);
	sl_plan_free(r);
	r = sl_plan_read("orc", path, NULL, &o, &err);
	ok(r == NULL, "unknown format fails");
	is_str(err.msg, "read: unknown format 'orc'", "unknown format message");
	sl_plan_free(p);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	rc = system(path);
	(void)rc;
}

int main(void)
{
	test_select();
	test_filter();
	test_columns();
	test_explode();
	test_limit_union_dedup();
	test_explain_collect();
	test_read_write();
	return done_testing();
}
