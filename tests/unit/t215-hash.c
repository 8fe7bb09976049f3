/*
 * t215-hash: the group table's packed-key layout (keys of 2..32 integer
 * leaves: window struct + product_id, INT + BOOLEAN, ...) against a naive
 * reference, NULLs in every position (a NULL struct is not a struct of
 * NULLs), keys handed back, find and skip_nulls, growth past a million
 * slots; the single STRING key path; window() evaluated in one pass
 * (out-of-order, negative times, startTime, NULL timestamps) without
 * materialising its literals; integer remainder by a constant divisor.
 */
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "engine.h"
#include "expr.h"
#include "hash.h"
#include "sqlexpr.h"
#include "tap.h"

static sl_err err;

static uint64_t rng = 7;
static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

static sl_type *ddl(const char *s)
{
	sl_type *t = sl_type_parse_ddl(s, &err);
	if (t == NULL)
		diag("ddl %s: %s", s, err.msg);
	return t;
}

/* ---- packed keys: struct<start, end> + BIGINT, against a reference ---- */

/* One row's key as the reference sees it: flags and values. */
typedef struct rkey {
	bool wnull, snull, enull, pnull;
	int64_t s, e, p;
} rkey;

static bool rkey_eq(const rkey *a, const rkey *b)
{
	if (a->wnull != b->wnull || a->snull != b->snull ||
	    a->enull != b->enull || a->pnull != b->pnull)
		return false;
	return (a->snull || a->s == b->s) && (a->enull || a->e == b->e) &&
	       (a->pnull || a->p == b->p);
}

#define NREF 4096
static rkey ref[NREF];
static int nref;

static int ref_id(const rkey *k)
{
	int i;
	for (i = 0; i < nref; i++)
		if (rkey_eq(&ref[i], k))
			return i;
	ref[nref] = *k;
	return nref++;
}

static void fill_row(sl_col *w, sl_col *p, int64_t i, rkey *k)
{
	uint32_t r = rnd();
	memset(k, 0, sizeof *k);
	k->s = ((int64_t)(rnd() % 4) - 1) * 60000000; /* negative too */
	k->e = k->s + 60000000;
	k->p = (int64_t)(rnd() % 50) - 25;
	k->wnull = r % 29 == 0;
	k->snull = !k->wnull && r % 31 == 1;
	k->enull = !k->wnull && r % 37 == 2;
	k->pnull = r % 23 == 3;
	sl_col_i64(w->child[0])[i] = k->s;
	sl_col_i64(w->child[1])[i] = k->e;
	sl_col_i64(p)[i] = k->p;
	if (k->wnull)
		sl_col_set_null(w, i); /* children keep their values */
	if (k->snull)
		sl_col_set_null(w->child[0], i);
	if (k->enull)
		sl_col_set_null(w->child[1], i);
	if (k->pnull)
		sl_col_set_null(p, i);
	/* what the table must see: a NULL slot is zero */
	if (k->snull)
		k->s = 0;
	if (k->enull)
		k->e = 0;
	if (k->pnull)
		k->p = 0;
}

static void test_packed_reference(void)
{
	sl_type *wt = ddl("w STRUCT<start: TIMESTAMP, end: TIMESTAMP>");
	sl_type *types[2];
	sl_hash_groups *t;
	int32_t gids[3000];
	int64_t i;
	int b, bad = 0, badkey = 0;
	types[0] = wt->fields[0].type;
	types[1] = sl_type_prim(SL_BIGINT);
	t = sl_hash_groups_new(types, 2, &err);
	ok(t != NULL, "packed table created");
	nref = 0;
	for (b = 0; b < 5; b++) {
		sl_col *w = sl_col_new(types[0], 3000);
		sl_col *p = sl_col_new(types[1], 3000);
		sl_col *cols[2];
		rkey k[3000];
		for (i = 0; i < 3000; i++)
			fill_row(w, p, i, &k[i]);
		cols[0] = w;
		cols[1] = p;
		if (sl_hash_groups_insert(t, cols, 3000, false, gids, &err) < 0)
			bad++;
		for (i = 0; i < 3000; i++)
			if (gids[i] != ref_id(&k[i]))
				bad++;
		sl_col_free(w);
		sl_col_free(p);
	}
	is_int(bad, 0, "group ids equal the reference's first-seen ids");
	is_int(sl_hash_groups_count(t), nref, "as many groups as the reference");
	{
		sl_col *kw = sl_hash_groups_key(t, 0, 0, nref, &err);
		sl_col *kp = sl_hash_groups_key(t, 1, 0, nref, &err);
		for (i = 0; kw && kp && i < nref; i++) {
			rkey g;
			g.wnull = sl_col_isnull(kw, i);
			g.snull = sl_col_isnull(kw->child[0], i);
			g.enull = sl_col_isnull(kw->child[1], i);
			g.pnull = sl_col_isnull(kp, i);
			g.s = sl_col_i64(kw->child[0])[i];
			g.e = sl_col_i64(kw->child[1])[i];
			g.p = sl_col_i64(kp)[i];
			if (!rkey_eq(&g, &ref[i]))
				badkey++;
		}
		ok(kw && kp, "keys handed back");
		is_int(badkey, 0, "every key handed back equals the reference's");
		sl_col_free(kw);
		sl_col_free(kp);
	}
	ok(sl_hash_groups_bytes(t) > (size_t)nref * 28,
	   "bytes count packed keys");
	sl_hash_groups_free(t);
	sl_type_free(wt);
}

/* A NULL window and a window of NULLs are different keys; with skip_nulls
 * both are left out; find does not add. */
static void test_packed_nulls(void)
{
	sl_type *wt = ddl("w STRUCT<start: TIMESTAMP, end: TIMESTAMP>");
	sl_type *types[2];
	sl_hash_groups *t;
	sl_col *w, *p, *cols[2];
	int32_t g[6];
	types[0] = wt->fields[0].type;
	types[1] = sl_type_prim(SL_BIGINT);
	t = sl_hash_groups_new(types, 2, &err);
	w = sl_col_new(types[0], 6);
	p = sl_col_new(types[1], 6);
	/* rows: NULL struct; struct(NULL, NULL); (0,0); (0,0) p NULL;
	 * NULL struct again; (0,0) */
	sl_col_set_null(w, 0);
	sl_col_set_null(w->child[0], 1);
	sl_col_set_null(w->child[1], 1);
	sl_col_set_null(p, 3);
	sl_col_set_null(w, 4);
	cols[0] = w;
	cols[1] = p;
	ok(sl_hash_groups_insert(t, cols, 6, false, g, &err) == 0, "insert");
	ok(g[0] == 0 && g[1] == 1 && g[2] == 2 && g[3] == 3 && g[4] == 0 &&
	   g[5] == 2, "NULL struct, struct of NULLs, zeros, NULL key part: %d %d %d %d %d %d",
	   g[0], g[1], g[2], g[3], g[4], g[5]);
	ok(sl_hash_groups_find(t, cols, 6, true, g, &err) == 0 && g[0] == -1 &&
	   g[1] == -1 && g[2] == 2 && g[3] == -1 && g[5] == 2,
	   "find with skip_nulls leaves NULL keys out");
	sl_col_i64(p)[5] = 99;
	ok(sl_hash_groups_find(t, cols, 6, false, g, &err) == 0 && g[5] == -1 &&
	   sl_hash_groups_count(t) == 4, "find does not add a key");
	sl_col_free(w);
	sl_col_free(p);
	sl_hash_groups_free(t);
	sl_type_free(wt);
}

/* INT + BOOLEAN (2 words): negative INTs come back sign-extended; many
 * keys grow the table well past the prefetching size. */
static void test_packed_grow(void)
{
	sl_type *types[2] = { sl_type_prim(SL_INT), sl_type_prim(SL_BOOLEAN) };
	sl_hash_groups *t = sl_hash_groups_new(types, 2, &err);
	int64_t n = 300000, i;
	sl_col *a = sl_col_new(types[0], n), *b = sl_col_new(types[1], n);
	sl_col *cols[2] = { a, b }, *ka, *kb;
	int32_t *g = malloc((size_t)n * sizeof *g);
	int bad = 0;
	for (i = 0; i < n; i++) {
		sl_col_i32(a)[i] = (int32_t)(i / 2) * (i % 4 < 2 ? 1 : -1);
		sl_col_u8(b)[i] = (uint8_t)(i % 2);
	}
	ok(sl_hash_groups_insert(t, cols, n, false, g, &err) == 0, "insert 300k");
	for (i = 0; i < n; i++)
		bad += g[i] != i;
	is_int(bad, 0, "300k distinct keys get ids in row order");
	is_int(sl_hash_groups_count(t), n, "300k groups");
	ok(sl_hash_groups_find(t, cols, n, false, g, &err) == 0, "find 300k");
	for (i = 0, bad = 0; i < n; i++)
		bad += g[i] != i;
	is_int(bad, 0, "find gives every key its id");
	ka = sl_hash_groups_key(t, 0, 0, n, &err);
	kb = sl_hash_groups_key(t, 1, 0, n, &err);
	ok(ka && kb && sl_col_i32(ka)[2] == -1 && sl_col_u8(kb)[2] == 0 &&
	   sl_col_i32(ka)[3] == -1 && sl_col_u8(kb)[3] == 1 &&
	   sl_col_i32(ka)[4] == 2 && sl_col_i32(ka)[n - 1] == -(int32_t)((n - 1) / 2),
	   "keys back: negative INTs sign-extended, booleans");
	sl_col_free(ka);
	sl_col_free(kb);
	sl_col_free(a);
	sl_col_free(b);
	free(g);
	sl_hash_groups_free(t);
}

/* A single STRING key, with and without NULLs in the batch. */
static void test_string_key(void)
{
	sl_type *st = sl_type_prim(SL_STRING);
	sl_hash_groups *t = sl_hash_groups_new(&st, 1, &err);
	sl_col *c = sl_col_new(st, 6);
	int32_t g[6];
	const char *v[6] = { "p1", "p22", "p1", "", "p22", "p1\0x" };
	int i;
	for (i = 0; i < 6; i++)
		sl_col_set_str(c, i, v[i], i == 5 ? 4 : strlen(v[i]));
	ok(sl_hash_groups_insert(t, &c, 6, false, g, &err) == 0 && g[0] == 0 &&
	   g[1] == 1 && g[2] == 0 && g[3] == 2 && g[4] == 1 && g[5] == 3,
	   "string ids by bytes and length");
	sl_col_set_null(c, 3);
	ok(sl_hash_groups_insert(t, &c, 6, false, g, &err) == 0 && g[3] == 4 &&
	   g[0] == 0 && g[5] == 3, "a NULL string is its own key, not ''");
	sl_col_free(c);
	sl_hash_groups_free(t);
}

/* ---- window() and constant remainders, through the evaluator ---- */

static sl_col *eval1(const char *sql, sl_batch *b)
{
	sl_expr *e = sl_sqlexpr_parse(sql, &err), *r;
	sl_col *c = NULL;
	r = e ? sl_expr_resolve(e, b->schema, &err) : NULL;
	if (r != NULL)
		c = sl_expr_eval(r, b, &err);
	if (c == NULL)
		diag("%s: %s", sql, err.msg);
	sl_expr_free(e);
	sl_expr_free(r);
	return c;
}

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static void test_window(void)
{
	sl_type *s = ddl("ts TIMESTAMP");
	int64_t n = 5000, i;
	sl_col *ts = sl_col_new(s->fields[0].type, n), *w, *w2;
	sl_batch *b;
	int bad = 0, bad2 = 0;
	for (i = 0; i < n; i++) /* clustered, out of order, negative */
		sl_col_i64(ts)[i] = (i / 100) * 7000000 - 900000000 +
				    (int64_t)(rnd() % 30000000) - 15000000;
	sl_col_set_null(ts, 17);
	b = sl_batch_new(s, n, &ts);
	w = eval1("window(ts, '60 seconds')", b);
	w2 = eval1("window(ts, '1 minute', '1 minute', '-15 seconds')", b);
	for (i = 0; w && w2 && i < n; i++) {
		int64_t t = sl_col_i64(b->cols[0])[i];
		int64_t st = floordiv(t, 60000000) * 60000000;
		int64_t st2 = floordiv(t + 15000000, 60000000) * 60000000 -
			      15000000;
		if (i == 17) {
			bad += !sl_col_isnull(w, i) ||
			       !sl_col_isnull(w->child[0], i) ||
			       sl_col_i64(w->child[0])[i] != 0 ||
			       sl_col_i64(w->child[1])[i] != 0;
			continue;
		}
		bad += sl_col_isnull(w, i) || sl_col_i64(w->child[0])[i] != st ||
		       sl_col_i64(w->child[1])[i] != st + 60000000;
		bad2 += sl_col_i64(w2->child[0])[i] != st2 ||
			sl_col_i64(w2->child[1])[i] != st2 + 60000000;
	}
	is_int(bad, 0, "tumbling window starts/ends, NULL timestamp gives a NULL window");
	is_int(bad2, 0, "startTime -15 seconds shifts the windows");
	sl_col_free(w);
	sl_col_free(w2);
	sl_batch_free(b);
	sl_type_free(s);
}

static void test_const_mod(void)
{
	sl_type *s = ddl("v BIGINT, i INT");
	int64_t n = 4000, k;
	sl_col *c[2];
	sl_batch *b;
	static const char *exprs[] = { "v % 1000", "v % -7", "v % 1", "v % 1024",
				       "v % 9223372036854775807", "i % 100",
				       "i % -3", "v % 0", "v % -1" };
	static const int64_t div[] = { 1000, -7, 1, 1024, INT64_MAX, 100, -3,
				       0, -1 };
	size_t e;
	c[0] = sl_col_new(sl_type_prim(SL_BIGINT), n);
	c[1] = sl_col_new(sl_type_prim(SL_INT), n);
	for (k = 0; k < n; k++) {
		int64_t v = (int64_t)((uint64_t)rnd() << 32 | rnd()) >> (k % 63);
		if (k == 0)
			v = INT64_MIN;
		if (k == 1)
			v = INT64_MAX;
		sl_col_i64(c[0])[k] = v;
		sl_col_i32(c[1])[k] = k == 2 ? INT32_MIN : (int32_t)v;
	}
	sl_col_set_null(c[0], 5);
	b = sl_batch_new(s, n, c);
	for (e = 0; e < sizeof exprs / sizeof exprs[0]; e++) {
		sl_col *o = eval1(exprs[e], b);
		bool is32 = exprs[e][0] == 'i';
		int bad = o == NULL;
		for (k = 0; o && k < n; k++) {
			int64_t x = is32 ? sl_col_i32(b->cols[1])[k]
					 : sl_col_i64(b->cols[0])[k];
			bool wantnull = div[e] == 0 || (!is32 && k == 5);
			int64_t want = div[e] == 0 || div[e] == -1 ? 0 : x % div[e];
			int64_t got = is32 ? sl_col_i32(o)[k] : sl_col_i64(o)[k];
			if (sl_col_isnull(o, k) != wantnull ||
			    (!wantnull && got != want) || (wantnull && got != 0))
				bad++;
		}
		is_int(bad, 0, "%s row by row as C's %% (NULL by zero)", exprs[e]);
		sl_col_free(o);
	}
	sl_batch_free(b);
	sl_type_free(s);
}

int main(void)
{
	sl_engine_tune_malloc();
	test_packed_reference();
	test_packed_nulls();
	test_packed_grow();
	test_string_key();
	test_window();
	test_const_mod();
	return done_testing();
}
