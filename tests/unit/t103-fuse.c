/* t103-fuse: the fused path of sl_expr_eval (engine/expr/expr_fuse.c)
 * against the node by node evaluator (sl_expr_eval_unfused) on random
 * trees of arithmetic, comparisons, negation and casts over random INT,
 * BIGINT, DOUBLE, DATE and TIMESTAMP columns with NULLs: every value and
 * every NULL equal, NULL slots zeroed (col.h).  Batch sizes straddle the
 * fused path's chunk (1024 rows).  Then the rules both must keep, checked
 * against C directly: Spark's non-ANSI x % 0 and x / 0 are NULL, integer
 * overflow wraps (Java), DOUBLE -> INT truncates and saturates.
 * Deterministic: a fixed-seed generator. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "expr/expr.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int pick(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

static const char *DDL = "a INT, b BIGINT, c DOUBLE, d INT, e BIGINT, "
			 "f DOUBLE, t TIMESTAMP, dt DATE";

static int64_t rnd_int(void)
{
	static const int64_t edge[] = { 0,	   1,	      -1,
					2,	   -2,	      7,
					1000,	   INT32_MAX, INT32_MIN,
					INT64_MAX, INT64_MIN, 1767268800000000 };
	switch (pick(4)) {
	case 0: return edge[pick((int)(sizeof edge / sizeof *edge))];
	case 1: return (int64_t)pick(21) - 10;
	default: return (int64_t)rnd();
	}
}

static double rnd_double(void)
{
	static const double edge[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 100.0,
				       1e300, -1e300, 3e9, -3e19 };
	switch (pick(6)) {
	case 0: return edge[pick((int)(sizeof edge / sizeof *edge))];
	case 1: return NAN;
	case 2: return pick(2) ? INFINITY : -INFINITY;
	case 3: return (double)(pick(2001) - 1000) / 8;
	default: return (double)(int64_t)rnd() / (double)(1 + pick(1000));
	}
}

/* A column of n random values; density: 0 none, 1 some, 2 half, 3 all
 * rows NULL. */
static sl_col *rnd_col(sl_type *t, int64_t n)
{
	sl_col *c = sl_col_new_raw(t, n);
	int dens = pick(4);
	int64_t i;
	for (i = 0; i < n; i++) {
		int64_t v = rnd_int();
		switch (t->kind) {
		case SL_INT:
		case SL_DATE: sl_col_i32(c)[i] = (int32_t)v; break;
		case SL_DOUBLE: sl_col_f64(c)[i] = rnd_double(); break;
		default: sl_col_i64(c)[i] = v; break;
		}
		if ((dens == 1 && pick(10) == 0) || (dens == 2 && pick(2)) ||
		    dens == 3)
			sl_col_set_null(c, i);
	}
	return c;
}

static sl_batch *rnd_batch(int64_t n)
{
	sl_type *t = sl_type_parse_ddl(DDL, NULL);
	sl_col *cols[8];
	sl_batch *b;
	int i;
	for (i = 0; i < t->nfields; i++)
		cols[i] = rnd_col(t->fields[i].type, n);
	b = sl_batch_new(t, n, cols);
	sl_type_free(t);
	return b;
}

static sl_expr *rnd_lit(void)
{
	switch (pick(8)) {
	case 0: return sl_expr_lit_bigint(rnd_int());
	case 1: return sl_expr_lit_double(rnd_double());
	case 2:
		if (pick(8) == 0)
			return sl_expr_lit_null();
		/* fall through */
	default: return sl_expr_lit_int((int32_t)rnd_int());
	}
}

static const char *const NUMCOLS[] = { "a", "b", "c", "d", "e", "f" };

/* A numeric tree of depth <= depth. */
static sl_expr *rnd_num(int depth)
{
	static const int ops[] = { SL_OP_ADD, SL_OP_SUB, SL_OP_MUL,
				   SL_OP_DIV, SL_OP_MOD, SL_OP_MOD };
	static const sl_kind to[] = { SL_INT, SL_BIGINT, SL_DOUBLE };
	sl_expr *args[2];
	int r = depth <= 0 ? pick(2) : pick(12);
	switch (r) {
	case 0: return sl_expr_col(NUMCOLS[pick(6)]);
	case 1: return rnd_lit();
	case 2: return sl_expr_unary(SL_X_NEG, rnd_num(depth - 1));
	case 3:
		return sl_expr_cast(rnd_num(depth - 1),
				    sl_type_prim(to[pick(3)]));
	case 4: /* not fusable: evaluated whole, read as a column */
		args[0] = rnd_num(depth - 1);
		return sl_expr_call(pick(2) ? "abs" : "coalesce", args, 1);
	case 5:
		args[0] = rnd_num(depth - 1);
		args[1] = sl_expr_col(NUMCOLS[pick(6)]);
		return sl_expr_call("coalesce", args, 2);
	default:
		return sl_expr_binop(ops[pick(6)], rnd_num(depth - 1),
				     rnd_num(depth - 1));
	}
}

static sl_expr *rnd_tree(void)
{
	static const int cmp[] = { SL_OP_EQ, SL_OP_NE, SL_OP_LT, SL_OP_LE,
				   SL_OP_GT, SL_OP_GE, SL_OP_EQNS };
	int op = cmp[pick(7)];
	switch (pick(8)) {
	case 0:
		return sl_expr_binop(op, sl_expr_col("t"),
				     pick(2) ? sl_expr_col("t")
					     : sl_expr_lit_timestamp(rnd_int()));
	case 1:
		return sl_expr_binop(op, sl_expr_col("dt"),
				     sl_expr_lit_date((int32_t)rnd_int()));
	case 2:
	case 3: return sl_expr_binop(op, rnd_num(3), rnd_num(3));
	default: return rnd_num(4);
	}
}

/* Equal columns: type, length, NULL bitmap row by row, value bytes of
 * non-NULL rows; NULL slots zeroed in both. */
static const char *col_diff(const sl_col *x, const sl_col *y)
{
	static char why[160];
	int w = sl_type_width(x->type);
	int64_t i;
	static const char zero[8];
	if (!sl_type_equal(x->type, y->type))
		return "types differ";
	if (x->len != y->len)
		return "lengths differ";
	for (i = 0; i < x->len; i++) {
		const char *a = (const char *)x->data + i * w,
			   *b = (const char *)y->data + i * w;
		if (sl_col_isnull(x, i) != sl_col_isnull(y, i)) {
			snprintf(why, sizeof why, "row %lld: NULL in one only",
				 (long long)i);
			return why;
		}
		if (sl_col_isnull(x, i) &&
		    (memcmp(a, zero, (size_t)w) || memcmp(b, zero, (size_t)w))) {
			snprintf(why, sizeof why, "row %lld: NULL slot not zero",
				 (long long)i);
			return why;
		}
		if (!sl_col_isnull(x, i) && memcmp(a, b, (size_t)w) != 0 &&
		    !(x->type->kind == SL_DOUBLE && isnan(*(const double *)a) &&
		      isnan(*(const double *)b))) {
			snprintf(why, sizeof why, "row %lld: values differ",
				 (long long)i);
			return why;
		}
	}
	return NULL;
}

static void test_differential(void)
{
	static const int64_t sizes[] = { 0, 1, 7, 8, 9, 100, 1023, 1024, 1025, 2500 };
	int round, tried = 0, fused = 0, bad = 0, unresolved = 0;
	for (round = 0; round < 1500; round++) {
		sl_batch *b = rnd_batch(sizes[pick(10)]);
		sl_expr *e = rnd_tree(), *r;
		sl_err err;
		sl_col *x, *y;
		const char *why;
		r = sl_expr_resolve(e, b->schema, &err);
		sl_expr_free(e);
		if (r == NULL) {
			unresolved++;
			sl_batch_free(b);
			continue;
		}
		tried++;
		fused += sl_expr_fused(r);
		x = sl_expr_eval(r, b, &err);
		y = sl_expr_eval_unfused(r, b, &err);
		why = x == NULL || y == NULL ? "an evaluation failed"
					     : col_diff(x, y);
		if (why != NULL && bad++ < 5) {
			sl_buf s;
			sl_buf_init(&s);
			sl_expr_sql(r, &s);
			ok(0, "fused = node by node: %s over %lld rows: %s",
			   sl_buf_cstr(&s), (long long)b->nrows, why);
			sl_buf_release(&s);
		}
		sl_col_free(x);
		sl_col_free(y);
		sl_expr_free(r);
		sl_batch_free(b);
	}
	is_int(bad, 0, "%d random trees: fused and node by node agree", tried);
	ok(fused > tried * 3 / 4,
	   "most trees take the fused path (%d of %d; %d did not resolve)",
	   fused, tried, unresolved);
}

/* Evaluate the SQL-free tree e (taken) over b, fused. */
static sl_col *ev(sl_batch *b, sl_expr *e)
{
	sl_err err;
	sl_expr *r = sl_expr_resolve(e, b->schema, &err);
	sl_col *c;
	sl_expr_free(e);
	if (r == NULL)
		return NULL;
	ok(sl_expr_fused(r), "the tree takes the fused path");
	c = sl_expr_eval(r, b, &err);
	sl_expr_free(r);
	return c;
}

/* x % k and x / k over random BIGINTs for random k, against C. */
static void test_rules(void)
{
	int64_t n = 3000, i;
	sl_batch *b = rnd_batch(n);
	const sl_col *bx = b->cols[1], *ax = b->cols[0], *cx = b->cols[2];
	int round, bad = 0;
	for (round = 0; round < 40; round++) {
		int64_t k = round < 4 ? (int64_t[]){ 0, 1, -1, INT64_MIN }[round]
					 : rnd_int();
		sl_col *m = ev(b, sl_expr_binop(SL_OP_MOD, sl_expr_col("b"),
						 sl_expr_lit_bigint(k)));
		sl_col *d = ev(b, sl_expr_binop(SL_OP_MOD, sl_expr_col("b"),
						 sl_expr_col("e")));
		for (i = 0; m != NULL && d != NULL && i < n; i++) {
			int64_t x = sl_col_i64(bx)[i],
				y = sl_col_i64(b->cols[4])[i];
			bool xn = sl_col_isnull(bx, i),
			     yn = sl_col_isnull(b->cols[4], i);
			bool want_null = xn || k == 0;
			int64_t want = want_null ? 0 : k == -1 ? 0 : x % k;
			if (sl_col_isnull(m, i) != want_null ||
			    sl_col_i64(m)[i] != want)
				bad++;
			want_null = xn || yn || y == 0;
			want = want_null || y == -1 ? 0 : x % y;
			if (sl_col_isnull(d, i) != want_null ||
			    sl_col_i64(d)[i] != want)
				bad++;
		}
		if (k == 0)
			ok(m != NULL && sl_col_null_count(m) == n,
			   "b %% 0 is NULL on every row");
		sl_col_free(m);
		sl_col_free(d);
		/* an INT column by an INT constant */
		k = (int32_t)k;
		m = ev(b, sl_expr_binop(SL_OP_MOD, sl_expr_col("a"),
					sl_expr_lit_int((int32_t)k)));
		for (i = 0; m != NULL && i < n; i++) {
			int32_t x = sl_col_i32(ax)[i];
			bool want_null = sl_col_isnull(ax, i) || k == 0;
			int32_t want = want_null || k == -1 ? 0 : (int32_t)(x % k);
			if (sl_col_isnull(m, i) != want_null ||
			    sl_col_i32(m)[i] != want)
				bad++;
		}
		sl_col_free(m);
	}
	is_int(bad, 0,
	       "b %% k, b %% e and a %% k as C's %% (NULL for 0, 0 for -1)");
	{
		sl_col *s = ev(b, sl_expr_binop(SL_OP_ADD, sl_expr_col("a"),
						 sl_expr_col("d")));
		sl_col *q = ev(b, sl_expr_binop(SL_OP_DIV, sl_expr_col("c"),
						 sl_expr_col("f")));
		sl_col *t = ev(b, sl_expr_cast(sl_expr_col("c"),
					       sl_type_prim(SL_INT)));
		bad = 0;
		for (i = 0; s && q && t && i < n; i++) {
			bool an = sl_col_isnull(ax, i),
			     dn = sl_col_isnull(b->cols[3], i),
			     cn = sl_col_isnull(cx, i),
			     fn = sl_col_isnull(b->cols[5], i);
			double c = sl_col_f64(cx)[i], f = sl_col_f64(b->cols[5])[i];
			int32_t sum = (int32_t)((uint32_t)sl_col_i32(ax)[i] +
						(uint32_t)sl_col_i32(b->cols[3])[i]);
			int32_t ci = isnan(c)		? 0
				     : c >= 2147483647.0  ? INT32_MAX
				     : c <= -2147483648.0 ? INT32_MIN
							  : (int32_t)c;
			if (sl_col_isnull(s, i) != (an || dn) ||
			    (!an && !dn && sl_col_i32(s)[i] != sum))
				bad++;
			if (sl_col_isnull(q, i) != (cn || fn || f == 0))
				bad++;
			else if (!sl_col_isnull(q, i) &&
				 memcmp(&sl_col_f64(q)[i], &(double){ c / f },
					8) != 0 &&
				 !isnan(c / f))
				bad++;
			if (sl_col_isnull(t, i) != cn ||
			    (!cn && sl_col_i32(t)[i] != ci))
				bad++;
		}
		is_int(bad, 0,
		       "INT + wraps, DOUBLE / 0 is NULL, CAST(DOUBLE AS INT) "
		       "saturates (NaN 0)");
		sl_col_free(s);
		sl_col_free(q);
		sl_col_free(t);
	}
	sl_batch_free(b);
}

/* The kernels' fast paths for small dividends (expr_eval.c umod31, the
 * cast's exact conversion): BIGINT columns mostly in [0, 2^31) as a
 * counter's, with the edges, and now and then a value outside (negative,
 * 2^31, huge) that sends the rest of its chunk the general way; x % k and
 * CAST(x AS DOUBLE) / k against C. */
static void test_small(void)
{
	static const int64_t ks[] = { 2,	  3,	      7,	  10,
				      1000,	  10000,      65536,	  999983,
				      INT32_MAX, (int64_t)1 << 31,
				      ((int64_t)1 << 31) + 1, -1000,
				      -((int64_t)1 << 31), 1 << 30,
				      (1 << 30) + 1, 0 };
	int64_t n = 5000, i;
	int round, bad = 0, badd = 0;
	for (round = 0; round < 24; round++) {
		sl_type *t = sl_type_parse_ddl("b BIGINT", NULL);
		sl_col *c = sl_col_new(sl_type_prim(SL_BIGINT), n), *cols[1];
		sl_batch *b;
		int64_t *v = sl_col_i64(c);
		size_t j;
		for (i = 0; i < n; i++) {
			int r = pick(1000);
			v[i] = round % 3 == 0 ? i + (int64_t)pick(4) * INT32_MAX / 4
			       : r == 0	      ? (int64_t)rnd()
			       : r == 1	      ? -(int64_t)pick(100000)
			       : r == 2	      ? (int64_t)1 << 31
			       : r < 6	      ? INT32_MAX - pick(3)
					      : (int64_t)(rnd() >> 33);
			if (round % 4 == 1 && pick(50) == 0)
				sl_col_set_null(c, i);
		}
		cols[0] = c;
		b = sl_batch_new(t, n, cols);
		sl_type_free(t);
		for (j = 0; j < sizeof ks / sizeof *ks; j++) {
			int64_t k = ks[j];
			sl_col *m = ev(b, sl_expr_binop(SL_OP_MOD,
							 sl_expr_col("b"),
							 sl_expr_lit_bigint(k)));
			sl_col *q = ev(b, sl_expr_binop(
					      SL_OP_DIV,
					      sl_expr_cast(sl_expr_col("b"),
							   sl_type_prim(
							       SL_DOUBLE)),
					      sl_expr_lit_double((double)k)));
			for (i = 0; m != NULL && q != NULL && i < n; i++) {
				bool xn = sl_col_isnull(b->cols[0], i);
				int64_t x = sl_col_i64(b->cols[0])[i];
				double dq = (double)x / (double)k;
				if (sl_col_isnull(m, i) != (xn || k == 0) ||
				    sl_col_i64(m)[i] !=
					(xn || k == 0 ? 0 : x % k))
					bad++;
				if (sl_col_isnull(q, i) != (xn || k == 0) ||
				    (!xn && k != 0 &&
				     memcmp(&sl_col_f64(q)[i], &dq, 8) != 0))
					badd++;
			}
			if (m == NULL || q == NULL)
				bad++;
			sl_col_free(m);
			sl_col_free(q);
		}
		sl_batch_free(b);
	}
	is_int(bad, 0, "x %% k of small BIGINTs (and the odd large or "
		       "negative one) as C's %%");
	is_int(badd, 0, "CAST(x AS DOUBLE) / k of them as C's, bit for bit");
}

int main(void)
{
	test_differential();
	test_rules();
	test_small();
	return done_testing();
}
