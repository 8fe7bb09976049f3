/*
 * t215-hash: the group table's packed-key layout (keys of 2..32 integer
 * leaves: window struct + product_id, INT + BOOLEAN, ...) against a naive
 * reference, NULLs in every position (a NULL struct is not a struct of
 * NULLs), keys handed back, find and skip_nulls, growth past a million
 * slots; the single STRING key path; window() evaluated in one pass
 * (out-of-order, negative times, startTime, NULL timestamps) without
 * materialising its literals; integer remainder by a constant divisor;
 * keys encoded a batch at a time (from the table, from columns) exactly
 * as row by row; a cleared table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "core/engine.h"
#include "expr/expr.h"
#include "exec/hash.h"
#include "expr/sqlexpr.h"
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

/* ---- keys encoded a batch at a time, as row by row ---- */

/* Rows [0, n) of cols encoded by sl_hash_keys_encode / off against
 * sl_hash_key_encode one row at a time; the number of rows that differ. */
static int64_t encode_diff(sl_col *const *cols, int nc, int64_t n,
			   const sl_buf *all, const int64_t *off)
{
	sl_buf one;
	int64_t i, bad = 0;
	sl_buf_init(&one);
	for (i = 0; i < n; i++) {
		sl_buf_clear(&one);
		sl_hash_key_encode(cols, nc, i, &one);
		bad += (size_t)(off[i + 1] - off[i]) != one.len ||
		       memcmp(all->p + off[i], one.p, one.len) != 0;
	}
	sl_buf_release(&one);
	return bad;
}

/* A table's keys (packed, with and without NULLs) encoded straight from
 * the table, the same bytes as its key columns encoded row by row. */
static void table_encode_case(sl_type *const *types, int nk, sl_col **cols,
			      int64_t n, const char *what)
{
	sl_hash_groups *t = sl_hash_groups_new(types, nk, &err);
	int32_t *g = malloc((size_t)n * sizeof *g);
	int64_t *off = malloc((size_t)(n + 1) * sizeof *off), ng, from;
	sl_col *kc[4];
	sl_buf b;
	int k;
	sl_buf_init(&b);
	sl_buf_add(&b, "xy", 2); /* appends: offsets count from the start */
	ok(sl_hash_groups_insert(t, cols, n, false, g, &err) == 0,
	   "%s: insert", what);
	ng = sl_hash_groups_count(t);
	from = ng / 3;
	ok(sl_hash_groups_encode(t, from, ng - from, &b, off, &err) == 0 &&
	   off[0] == 2, "%s: encode groups %lld.. of %lld", what,
	   (long long)from, (long long)ng);
	for (k = 0; k < nk; k++)
		kc[k] = sl_hash_groups_key(t, k, from, ng - from, &err);
	is_int(encode_diff(kc, nk, ng - from, &b, off), 0,
	       "%s: the same bytes as row by row", what);
	for (k = 0; k < nk; k++)
		sl_col_free(kc[k]);
	ok(sl_hash_groups_clear(t) == 0 && sl_hash_groups_count(t) == 0,
	   "%s: cleared", what);
	ok(sl_hash_groups_find(t, cols, n, false, g, &err) == 0 && g[0] == -1,
	   "%s: a cleared table finds nothing", what);
	ok(sl_hash_groups_insert(t, cols, n, false, g, &err) == 0 &&
	   g[0] == 0 && sl_hash_groups_count(t) == ng,
	   "%s: refilled: ids from 0 again, %lld groups", what, (long long)ng);
	sl_buf_release(&b);
	free(off);
	free(g);
	sl_hash_groups_free(t);
}

static void test_batch_encode(void)
{
	sl_type *wt = ddl("w STRUCT<start: TIMESTAMP, end: TIMESTAMP>");
	sl_type *st = ddl("s STRUCT<d: DOUBLE, i: INT, b: BOOLEAN>");
	sl_type *types[2], *t2[2] = { sl_type_prim(SL_INT),
				      sl_type_prim(SL_BOOLEAN) };
	int64_t n = 5000, i, *off = malloc((size_t)(n + 1) * sizeof *off);
	sl_col *w, *p, *a, *bo, *cols[2], *s, *str;
	sl_buf b;
	static const double dv[] = { 0.0, -0.0, 1.5, -2.25, 1e300, -1e-300 };
	types[0] = wt->fields[0].type;
	types[1] = sl_type_prim(SL_BIGINT);
	w = sl_col_new(types[0], n);
	p = sl_col_new(types[1], n);
	a = sl_col_new(t2[0], n);
	bo = sl_col_new(t2[1], n);
	for (i = 0; i < n; i++) {
		int64_t st0 = ((int64_t)(rnd() % 50) - 25) * 60000000;
		sl_col_i64(w->child[0])[i] = st0;
		sl_col_i64(w->child[1])[i] = st0 + 60000000;
		sl_col_i64(p)[i] = (int64_t)(rnd() % 300) - 150;
		sl_col_i32(a)[i] = (int32_t)(rnd() % 200) - 100;
		sl_col_u8(bo)[i] = (uint8_t)(rnd() % 2);
	}
	cols[0] = w;
	cols[1] = p;
	table_encode_case(types, 2, cols, n, "window + BIGINT");
	cols[0] = a;
	cols[1] = bo;
	table_encode_case(t2, 2, cols, n, "INT + BOOLEAN");
	sl_col_set_null(w, 7);
	sl_col_set_null(w->child[1], 9);
	sl_col_set_null(p, 11);
	cols[0] = w;
	cols[1] = p;
	table_encode_case(types, 2, cols, n, "window + BIGINT with NULLs");

	/* columns: fixed-width struct (doubles: -0.0, NaN), then a STRING
	 * key (row at a time) */
	s = sl_col_new(st->fields[0].type, n);
	str = sl_col_new(sl_type_prim(SL_STRING), n);
	for (i = 0; i < n; i++) {
		char tx[32];
		sl_col_f64(s->child[0])[i] = i % 7 == 6 ? NAN : dv[i % 6];
		sl_col_i32(s->child[1])[i] = (int32_t)rnd();
		sl_col_u8(s->child[2])[i] = (uint8_t)(i % 2);
		snprintf(tx, sizeof tx, "k%c%lld", i % 5 ? 'a' : '\0',
			 (long long)i);
		sl_col_set_str(str, i, tx, 2 + strlen(tx + 2));
	}
	sl_buf_init(&b);
	cols[0] = s;
	ok(sl_hash_keys_encode(cols, 1, n, &b, off) == 0 &&
	   off[n] - off[0] == n * 17, "fixed-width struct: 17 bytes a row");
	is_int(encode_diff(cols, 1, n, &b, off), 0,
	       "fixed-width struct: the same bytes as row by row");
	sl_buf_clear(&b);
	cols[1] = str;
	ok(sl_hash_keys_encode(cols, 2, n, &b, off) == 0, "struct + STRING");
	is_int(encode_diff(cols, 2, n, &b, off), 0,
	       "struct + STRING (0x00 bytes): the same bytes as row by row");
	sl_buf_clear(&b);
	sl_col_set_null(s->child[0], 3);
	ok(sl_hash_keys_encode(cols, 1, n, &b, off) == 0 &&
	   off[4] - off[3] == 9, "a NULL double: its flag byte only");
	is_int(encode_diff(cols, 1, n, &b, off), 0,
	       "struct with a NULL: the same bytes as row by row");
	sl_buf_release(&b);
	sl_col_free(s);
	sl_col_free(str);
	sl_col_free(w);
	sl_col_free(p);
	sl_col_free(a);
	sl_col_free(bo);
	sl_type_free(wt);
	sl_type_free(st);
	free(off);
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
	test_batch_encode();
	return done_testing();
}
