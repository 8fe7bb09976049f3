/*
 * t201-agg: groupBy/agg and global aggregates: every aggregate function,
 * NULL keys and values, string and struct keys, empty input, mixed
 * expressions, analysis errors, and a randomised comparison of the hash
 * aggregate against a naive O(n^2) reference over several batches;
 * streaming buffers written in place (sl_agg_save_raw) exactly as
 * sl_agg_save writes them, and aggregates cleared for reuse.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/agg.h"
#include "formats/fileformat.h"
#include "plan/plan.h"
#include "expr/sqlexpr.h"
#include "plans.h"
#include "tap.h"

/* groupBy(keys "a,b").agg(aggs separated by ';'), input borrowed. */
static sl_plan *agg(sl_plan *in, const char *keys, const char *aggs)
{
	sl_expr *k[8], *a[16];
	int nk = 0, na = 0;
	char buf[512], *s, *save;
	if (keys) {
		snprintf(buf, sizeof buf, "%s", keys);
		for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
			k[nk++] = X(s);
	}
	snprintf(buf, sizeof buf, "%s", aggs);
	for (s = strtok_r(buf, ";", &save); s; s = strtok_r(NULL, ";", &save))
		a[na++] = X(s);
	return sl_plan_aggregate(in, k, nk, a, na, &err);
}

static const char *SALES =
	"{\"k\":\"a\",\"v\":1,\"d\":1.5,\"ts\":\"2026-01-01 10:00:00\"}\n"
	"{\"k\":\"b\",\"v\":10,\"d\":null,\"ts\":\"2026-01-01 09:00:00\"}\n"
	"{\"k\":\"a\",\"v\":null,\"d\":2.5,\"ts\":\"2026-01-01 11:00:00\"}\n"
	"{\"k\":null,\"v\":5,\"d\":0.5,\"ts\":null}\n"
	"{\"k\":\"a\",\"v\":3,\"d\":null,\"ts\":\"2026-01-01 08:00:00\"}\n"
	"{\"k\":\"b\",\"v\":null,\"d\":null,\"ts\":null}\n"
	"{\"k\":null,\"v\":5,\"d\":\"NaN\",\"ts\":null}\n";
static const char *SDDL = "k STRING, v INT, d DOUBLE, ts TIMESTAMP";

static void test_functions(sl_plan *in)
{
	sl_plan *p = agg(in, "k", "count(*);count(v);sum(v);avg(v);min(v);max(v)");
	is_str(ddl(p), "k STRING, count(1) BIGINT NOT NULL, count(v) BIGINT NOT NULL, sum(v) BIGINT, avg(v) DOUBLE, min(v) INT, max(v) INT", "schema and names");
	is_str(rows(p), "a,3,2,4,2.0,1,3;b,2,1,10,10.0,10,10;null,2,2,10,5.0,5,5",
	       "count/sum/avg/min/max with NULLs, NULL key is a group, first-seen order");
	sl_plan_free(p);
	p = agg(in, "k", "sum(d);min(d);max(d);min(ts);max(ts);min(k);first(v);last(v);first(d);last(ts)");
	is_str(rows(p),
	       "a,4.0,1.5,2.5,2026-01-01 08:00:00,2026-01-01 11:00:00,a,1,3,1.5,2026-01-01 08:00:00;"
	       "b,null,null,null,2026-01-01 09:00:00,2026-01-01 09:00:00,b,10,null,null,null;"
	       "null,NaN,0.5,NaN,null,null,null,5,5,0.5,null",
	       "double sums, NaN is the max, timestamps, strings, first/last keep NULLs");
	sl_plan_free(p);
	p = agg(in, "k", "count(DISTINCT v);approx_count_distinct(v);collect_list(v);sum(DISTINCT v)");
	is_str(rows(p), "a,2,2,[1, 3],4;b,1,1,[10],10;null,1,1,[5, 5],5", "distinct counts, approx, collect_list");
	sl_plan_free(p);
	p = agg(in, "k", "sum(v) + 1 AS s1;k;count(*) * 2;max(v) - min(v) AS spread");
	is_str(ddl(p), "k STRING, s1 BIGINT, k STRING, (count(1) * 2) BIGINT, spread INT", "mixed expression names");
	is_str(rows(p), "a,5,a,6,2;b,11,b,4,0;null,11,null,4,0", "expressions over aggregates and keys");
	sl_plan_free(p);
	p = agg(in, "upper(k)", "count(*)");
	is_str(rows(p), "A,3;B,2;null,2", "expression key");
	sl_plan_free(p);
	p = agg(in, "k,v", "count(*)");
	is_str(rows(p), "a,1,1;b,10,1;a,null,1;null,5,2;a,3,1;b,null,1", "two keys with NULLs");
	sl_plan_free(p);
}

static void test_errors(sl_plan *in)
{
	sl_plan *p = agg(in, "k", "v");
	sl_expr *e[2];
	ok(p == NULL, "non-grouped column fails");
	is_str(err.msg, "agg: expression 'v' is neither present in the group by, nor is it an aggregate function", "neither present message");
	p = agg(in, "k", "sum(v) + v");
	is_str(err.msg, "agg: expression 'v' is neither present in the group by, nor is it an aggregate function", "inside an expression too");
	p = agg(in, "kk", "count(*)");
	is_str(err.msg, "groupBy: cannot resolve 'kk' given input columns: [k, v, d, ts]", "unknown key");
	p = agg(in, "k", "sum(vv)");
	is_str(err.msg, "agg: cannot resolve 'vv' given input columns: [k, v, d, ts]", "unknown aggregate argument");
	p = agg(in, "k", "sum(max(v))");
	ok(p == NULL && strstr(err.msg, "aggregate function in the argument of another aggregate function") != NULL, "nested aggregate: %s", err.msg);
	p = agg(in, "k", "sum(ts)");
	ok(p == NULL && strstr(err.msg, "data type mismatch") != NULL, "sum of a timestamp: %s", err.msg);
	e[0] = X("v");
	e[1] = X("count(*)");
	p = sl_plan_project(in, e, 2, &err);
	ok(p == NULL && strstr(err.msg, "select: [MISSING_GROUP_BY]") == err.msg, "select mixing a column and an aggregate: %s", err.msg);
}

static void test_global_and_empty(sl_plan *in)
{
	sl_expr *e[3];
	sl_plan *p, *empty;
	e[0] = X("count(*)");
	e[1] = X("sum(v)");
	e[2] = X("max(k)");
	p = sl_plan_project(in, e, 3, &err);
	is_str(ddl(p), "count(1) BIGINT NOT NULL, sum(v) BIGINT, max(k) STRING", "global aggregate via select");
	is_str(rows(p), "7,24,b", "global aggregate values");
	sl_plan_free(p);
	empty = local(SDDL, "");
	p = agg(empty, NULL, "count(*);sum(v);avg(d);count(DISTINCT v);approx_count_distinct(k);collect_list(v)");
	is_str(rows(p), "0,null,null,0,0,[]", "global aggregate of empty input is one row");
	sl_plan_free(p);
	p = agg(empty, "k", "count(*)");
	is_str(rows(p), "", "grouped aggregate of empty input has no rows");
	sl_plan_free(p);
	sl_plan_free(empty);
}

static void test_struct_key(void)
{
	sl_plan *in = local("s STRUCT<a: INT, b: STRING>, v INT",
			    "{\"s\":{\"a\":1,\"b\":\"x\"},\"v\":1}\n"
			    "{\"s\":{\"a\":1,\"b\":\"y\"},\"v\":2}\n"
			    "{\"s\":null,\"v\":3}\n"
			    "{\"s\":{\"a\":1,\"b\":\"x\"},\"v\":4}\n"
			    "{\"s\":{\"a\":null,\"b\":null},\"v\":5}\n");
	sl_plan *p = agg(in, "s", "sum(v)");
	is_str(ddl(p), "s STRUCT<a: INT, b: STRING>, sum(v) BIGINT", "struct key schema");
	is_str(rows(p), "{1, x},5;{1, y},2;null,3;{null, null},5", "struct keys; NULL struct differs from struct of NULLs");
	sl_plan_free(p);
	sl_plan_free(in);
}

/* ------------------------------------------------ randomised reference */

#define RN 1500
static uint64_t rng = 12345;
static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

static sl_plan *random_part(int n, int *ik, int *iknull, char (*sk)[8],
			    int *v, int *vnull)
{
	sl_type *t = sl_type_parse_ddl("ik INT, sk STRING, v INT", &err);
	sl_col *c[3];
	sl_batch *b;
	sl_plan *p;
	int i;
	c[0] = sl_col_new(t->fields[0].type, n);
	c[1] = sl_col_new(t->fields[1].type, n);
	c[2] = sl_col_new(t->fields[2].type, n);
	for (i = 0; i < n; i++) {
		ik[i] = (int)(rnd() % 20);
		iknull[i] = rnd() % 10 == 0;
		snprintf(sk[i], 8, "s%u", rnd() % 7);
		v[i] = (int)(rnd() % 1000) - 500;
		vnull[i] = rnd() % 8 == 0;
		sl_col_i32(c[0])[i] = ik[i];
		if (iknull[i])
			sl_col_set_null(c[0], i);
		sl_col_set_str(c[1], i, sk[i], strlen(sk[i]));
		sl_col_i32(c[2])[i] = v[i];
		if (vnull[i])
			sl_col_set_null(c[2], i);
	}
	b = sl_batch_new(t, n, c);
	p = sl_plan_local(b, &err);
	sl_batch_free(b);
	sl_type_free(t);
	return p;
}

struct ref {
	int ik, iknull;
	char sk[8];
	long long cnt, cntv, sum, min, max;
	int has;
};

static void test_random(void)
{
	static int ik[RN], iknull[RN], v[RN], vnull[RN];
	static char sk[RN][8];
	static struct ref g[RN];
	sl_plan *a, *b, *c, *u, *u2, *p;
	sl_batch *r;
	int i, j, ng = 0, bad = 0;
	/* three batches: the union pushes them one by one */
	a = random_part(500, ik, iknull, sk, v, vnull);
	b = random_part(500, ik + 500, iknull + 500, sk + 500, v + 500, vnull + 500);
	c = random_part(500, ik + 1000, iknull + 1000, sk + 1000, v + 1000, vnull + 1000);
	u = sl_plan_union(a, b, &err);
	u2 = sl_plan_union(u, c, &err);
	p = agg(u2, "ik,sk", "count(*);count(v);sum(v);min(v);max(v)");
	r = sl_plan_collect(p, &err);
	for (i = 0; i < RN; i++) { /* naive O(n^2) reference, first-seen order */
		for (j = 0; j < ng; j++)
			if (g[j].iknull == iknull[i] && (iknull[i] || g[j].ik == ik[i]) &&
			    strcmp(g[j].sk, sk[i]) == 0)
				break;
		if (j == ng) {
			memset(&g[ng], 0, sizeof g[ng]);
			g[ng].ik = ik[i];
			g[ng].iknull = iknull[i];
			strcpy(g[ng++].sk, sk[i]);
		}
		g[j].cnt++;
		if (!vnull[i]) {
			g[j].cntv++;
			g[j].sum += v[i];
			if (!g[j].has || v[i] < g[j].min)
				g[j].min = v[i];
			if (!g[j].has || v[i] > g[j].max)
				g[j].max = v[i];
			g[j].has = 1;
		}
	}
	ok(r != NULL, "random aggregate runs");
	is_int(r ? r->nrows : -1, ng, "random aggregate: same number of groups (%d)", ng);
	for (j = 0; r && j < ng && j < r->nrows; j++) {
		sl_str s = sl_col_str(r->cols[1])[j];
		bool knull = sl_col_isnull(r->cols[0], j);
		if (knull != (bool)g[j].iknull || (!knull && sl_col_i32(r->cols[0])[j] != g[j].ik) ||
		    s.len != strlen(g[j].sk) || memcmp(s.p, g[j].sk, s.len) != 0 ||
		    sl_col_i64(r->cols[2])[j] != g[j].cnt || sl_col_i64(r->cols[3])[j] != g[j].cntv ||
		    sl_col_isnull(r->cols[4], j) != !g[j].has ||
		    (g[j].has && (sl_col_i64(r->cols[4])[j] != g[j].sum ||
				  sl_col_i32(r->cols[5])[j] != g[j].min ||
				  sl_col_i32(r->cols[6])[j] != g[j].max)))
			bad++;
	}
	is_int(bad, 0, "random aggregate: every group equals the naive reference");
	sl_batch_free(r);
	sl_plan_free(p);
	sl_plan_free(u2);
	sl_plan_free(u);
	sl_plan_free(a);
	sl_plan_free(b);
	sl_plan_free(c);
}

static void test_approx_large(void)
{
	/* 5000 distinct BIGINTs: HLL with rsd 0.05 should be within 15% */
	sl_type *t = sl_type_parse_ddl("x BIGINT", &err);
	sl_col *c = sl_col_new(t->fields[0].type, 5000);
	sl_batch *b;
	sl_plan *in, *p;
	sl_batch *r;
	int i;
	for (i = 0; i < 5000; i++)
		sl_col_i64(c)[i] = (int64_t)i * 7919;
	b = sl_batch_new(t, 5000, &c);
	in = sl_plan_local(b, &err);
	p = agg(in, NULL, "approx_count_distinct(x);count(DISTINCT x)");
	r = sl_plan_collect(p, &err);
	ok(r && sl_col_i64(r->cols[0])[0] > 4250 && sl_col_i64(r->cols[0])[0] < 5750,
	   "approx_count_distinct of 5000 values: %lld", r ? (long long)sl_col_i64(r->cols[0])[0] : -1LL);
	is_int(r ? sl_col_i64(r->cols[1])[0] : -1, 5000, "count(DISTINCT) is exact");
	sl_batch_free(r);
	sl_plan_free(p);
	sl_plan_free(in);
	sl_batch_free(b);
	sl_type_free(t);
}

/* The specialised probes (one INT or STRING key, batch without NULLs)
 * and the generic one (batch with NULLs) must agree on the same table. */
static void test_fast_paths(void)
{
	sl_plan *a = local("k INT, s STRING", "{\"k\":1,\"s\":\"x\"}\n{\"k\":2,\"s\":\"y\"}\n{\"k\":1,\"s\":\"x\"}\n");
	sl_plan *b = local("k INT, s STRING", "{\"k\":null,\"s\":null}\n{\"k\":2,\"s\":\"y\"}\n{\"k\":1,\"s\":\"\"}\n");
	sl_plan *u1 = sl_plan_union(a, b, &err), *u2 = sl_plan_union(b, a, &err);
	sl_plan *p;
	p = agg(u1, "k", "count(*)");
	is_str(rows(p), "1,3;2,2;null,1", "INT key: fast batch then generic batch");
	sl_plan_free(p);
	p = agg(u2, "k", "count(*)");
	is_str(rows(p), "null,1;2,2;1,3", "INT key: generic batch then fast batch");
	sl_plan_free(p);
	p = agg(u1, "s", "count(*)");
	is_str(rows(p), "x,2;y,2;null,1;,1", "STRING key: fast then generic, empty string is not NULL");
	sl_plan_free(p);
	p = agg(u2, "s", "count(*)");
	is_str(rows(p), "null,1;y,2;,1;x,2", "STRING key: generic then fast");
	sl_plan_free(p);
	sl_plan_free(u1);
	sl_plan_free(u2);
	sl_plan_free(a);
	sl_plan_free(b);
}

/* ---- streaming buffers: written in place as by sl_agg_save; clear ---- */

/* sl_agg_merge_raw = sl_agg_merge then sl_agg_save_raw: the saved
 * buffers of `saved` merged into two aggregates updated alike. */
static void merge_raw_case(const char *fname, sl_type *at, sl_col *arg,
			   bool rows, const sl_agg *saved)
{
	int32_t g[4] = { 2, 0, 2, 1 };
	sl_agg *b = sl_agg_new(fname, false, rows, &at, at ? 1 : 0, 0, &err);
	sl_agg *c = sl_agg_new(fname, false, rows, &at, at ? 1 : 0, 0, &err);
	unsigned char raw[64], out[64];
	size_t len, used, used2;
	int64_t gi, bad = 0;
	sl_buf one;
	int n;
	ok(b && c && sl_agg_update(b, g, 4, 4, &arg, &err) == 0 &&
	       sl_agg_update(c, g, 4, 4, &arg, &err) == 0 &&
	       sl_agg_reserve(c, 6, &err) == 0,
	   "%s: merge_raw setup", fname);
	if (b == NULL || c == NULL)
		goto out;
	sl_buf_init(&one);
	for (gi = 0; gi < 5; gi++) { /* 3 and 4 were never updated */
		sl_buf_clear(&one);
		sl_agg_save(saved, gi, &one, &err);
		used = used2 = 0;
		bad += sl_agg_merge(b, gi, one.p, one.len, &used, &err) != 0;
		len = sl_agg_save_raw(b, gi, raw);
		n = sl_agg_merge_raw(c, gi, (const unsigned char *)one.p,
				     one.len, &used2, out, &err);
		bad += n < 0 || (size_t)n != len || used != used2 ||
		       used != one.len || memcmp(raw, out, len) != 0;
	}
	sl_buf_release(&one);
	is_int(bad, 0, "%s: sl_agg_merge_raw = sl_agg_merge + save_raw", fname);
	ok(sl_agg_merge_raw(c, 0, raw, 0, &used, out, &err) < 0 &&
	       strstr(err.msg, "is damaged") != NULL,
	   "%s: merge_raw of an empty buffer: %s", fname, err.msg);
out:
	sl_agg_free(b);
	sl_agg_free(c);
}

static void raw_case(const char *fname, sl_type *at, sl_col *arg, bool rows)
{
	int32_t g[6] = { 0, 1, 0, 2, 1, 0 };
	sl_agg *a = sl_agg_new(fname, false, rows, &at, at ? 1 : 0, 0, &err);
	sl_buf one;
	unsigned char raw[64];
	size_t m = a ? sl_agg_save_max(a) : 0, len;
	int64_t gi, bad = 0;
	ok(a != NULL && m > 0 && m <= sizeof raw, "%s: bounded buffer (%d)",
	   fname, (int)m);
	if (a == NULL || m == 0)
		return;
	/* group 3 is never updated (ngroups 4): the empty-input buffer */
	ok(sl_agg_update(a, g, 6, 4, &arg, &err) == 0, "%s: update", fname);
	sl_buf_init(&one);
	for (gi = 0; gi < 5; gi++) { /* 4 is past the arrays */
		sl_buf_clear(&one);
		sl_agg_save(a, gi, &one, &err);
		len = sl_agg_save_raw(a, gi, raw);
		bad += len != one.len || len > m || memcmp(raw, one.p, len) != 0;
	}
	is_int(bad, 0, "%s: sl_agg_save_raw writes sl_agg_save's bytes", fname);
	merge_raw_case(fname, at, arg, rows, a);
	ok(sl_agg_clear(a, 4), "%s: clearable", fname);
	sl_buf_clear(&one);
	sl_agg_save(a, 1, &one, &err);
	len = sl_agg_save_raw(a, 4, raw); /* never touched: empty */
	ok(len == one.len && memcmp(raw, one.p, len) == 0,
	   "%s: a cleared group saves as one never updated", fname);
	sl_buf_release(&one);
	sl_agg_free(a);
}

static void test_save_raw(void)
{
	sl_col *i64 = sl_col_new(sl_type_prim(SL_BIGINT), 6);
	sl_col *f64 = sl_col_new(sl_type_prim(SL_DOUBLE), 6);
	sl_col *i32 = sl_col_new(sl_type_prim(SL_INT), 6);
	sl_col *bo = sl_col_new(sl_type_prim(SL_BOOLEAN), 6);
	sl_col *str = sl_col_new(sl_type_prim(SL_STRING), 6);
	sl_type *st = sl_type_prim(SL_STRING);
	static const int64_t iv[6] = { INT64_MAX, -300, 5, 7, -1, 1 };
	static const double dv[6] = { 1.5, -0.0, 2.25, 1e300, 3, -7 };
	sl_agg *a;
	int i;
	for (i = 0; i < 6; i++) {
		sl_col_i64(i64)[i] = iv[i];
		sl_col_f64(f64)[i] = dv[i];
		sl_col_i32(i32)[i] = (int32_t)iv[i] * 1000;
		sl_col_u8(bo)[i] = (uint8_t)(i % 2);
		sl_col_set_str(str, i, "ab", 2);
	}
	sl_col_set_null(i64, 5); /* group 0 keeps INT64_MAX + 5 (wraps) */
	sl_col_set_null(f64, 1); /* group 1: -1 only */
	sl_col_set_null(bo, 0);  /* first(bool) of group 0 is NULL */
	raw_case("count", NULL, NULL, true);
	raw_case("count", sl_type_prim(SL_BIGINT), i64, false);
	raw_case("sum", sl_type_prim(SL_BIGINT), i64, false);
	raw_case("sum", sl_type_prim(SL_INT), i32, false);
	raw_case("sum", sl_type_prim(SL_DOUBLE), f64, false);
	raw_case("avg", sl_type_prim(SL_DOUBLE), f64, false);
	raw_case("min", sl_type_prim(SL_BIGINT), i64, false);
	raw_case("max", sl_type_prim(SL_DOUBLE), f64, false);
	raw_case("max", sl_type_prim(SL_INT), i32, false);
	raw_case("first", sl_type_prim(SL_BOOLEAN), bo, false);
	raw_case("last", sl_type_prim(SL_BOOLEAN), bo, false);
	a = sl_agg_new("min", false, false, &st, 1, 0, &err);
	ok(a && sl_agg_save_max(a) == 0 && !sl_agg_clear(a, 0),
	   "min of strings: sl_agg_save only, not clearable");
	sl_agg_free(a);
	a = sl_agg_new("count", true, false, &st, 1, 0, &err);
	ok(a && sl_agg_save_max(a) == 0 && !sl_agg_clear(a, 0),
	   "count(DISTINCT): no buffer, not clearable");
	sl_agg_free(a);
	sl_col_free(i64);
	sl_col_free(f64);
	sl_col_free(i32);
	sl_col_free(bo);
	sl_col_free(str);
}

/* Counts whose varints are 1, 2, 3 and 6 bytes long, merged into a
 * group of count 1 and of count 200: merge_raw's short-varint paths
 * agree with sl_agg_merge + save_raw. */
static void test_merge_raw_varints(void)
{
	static const uint64_t cv[] = { 0,     1,     127,   128,
				       16382, 16383, 16384, (uint64_t)1 << 40 };
	int32_t g[200];
	sl_agg *b = sl_agg_new("count", false, true, NULL, 0, 0, &err);
	sl_agg *c = sl_agg_new("count", false, true, NULL, 0, 0, &err);
	unsigned char in[10], raw[16], out[16];
	size_t i, j, m, used, used2, len;
	int64_t bad = 0;
	int n;
	for (i = 0; i < 200; i++)
		g[i] = i == 0 ? 0 : 1; /* group 0: count 1, group 1: 199 */
	ok(b && c && sl_agg_update(b, g, 200, 2, NULL, &err) == 0 &&
	       sl_agg_update(c, g, 200, 2, NULL, &err) == 0,
	   "count: varint setup");
	for (i = 0; b && c && i < sizeof cv / sizeof cv[0]; i++) {
		uint64_t x = cv[i];
		for (m = 0; x >= 0x80; x >>= 7)
			in[m++] = (unsigned char)(x | 0x80);
		in[m++] = (unsigned char)x;
		for (j = 0; j < 2; j++) {
			used = used2 = 0;
			bad += sl_agg_merge(b, (int64_t)j, in, m, &used, &err);
			len = sl_agg_save_raw(b, (int64_t)j, raw);
			n = sl_agg_merge_raw(c, (int64_t)j, in, m, &used2, out,
					     &err);
			bad += n < 0 || (size_t)n != len || used != m ||
			       used2 != m || memcmp(raw, out, len) != 0;
		}
	}
	is_int(bad, 0, "count: merge_raw of 1..6-byte varints");
	sl_agg_free(b);
	sl_agg_free(c);
}

int main(void)
{
	sl_plan *in = local(SDDL, SALES);
	ok(in != NULL, "input: %s", err.msg);
	test_functions(in);
	test_errors(in);
	test_global_and_empty(in);
	test_struct_key();
	test_fast_paths();
	test_random();
	test_approx_large();
	test_save_raw();
	test_merge_raw_varints();
	sl_plan_free(in);
	return done_testing();
}
