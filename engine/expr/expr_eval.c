/*
 * expr_eval: evaluating a resolved tree over a batch (expr.h's
 * sl_expr_eval): whole columns per node, type-specialised kernels for
 * arithmetic and comparisons, function calls through their eval hooks
 * (func.c).  A region of arithmetic, comparisons and casts over numbers
 * goes to the fused path instead (expr_fuse.c: one chunked pass, no column
 * per node), which calls the kernels here (expr_int.h) on chunks of rows;
 * sl_expr_eval_unfused keeps every node here (the differential tests).
 * Returns a new column reference; never prints.
 */
#include "expr/expr.h"
#include "expr/expr_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "expr/func.h"
#include "core/timeutil.h"

/* ------------------------------------------------------------ evaluation */

static sl_col *eval(const sl_expr *e, const sl_batch *b, sl_err *err);

sl_col *sl_expr_lit_col(const sl_expr *lit, int64_t n)
{
	sl_type *t = lit->rtype ? lit->rtype : lit->type;
	sl_col *c;
	int64_t i;
	char *p;
	if (lit->lit.null || t->kind == SL_NULLTYPE)
		return sl_col_new_null(t, n);
	c = sl_col_new(t, n);
	if (c == NULL)
		return NULL;
	switch (t->kind) {
	case SL_BOOLEAN: memset(c->data, lit->lit.i ? 1 : 0, (size_t)n); break;
	case SL_INT:
	case SL_DATE:
		for (i = 0; i < n; i++)
			sl_col_i32(c)[i] = (int32_t)lit->lit.i;
		break;
	case SL_BIGINT:
	case SL_TIMESTAMP:
		for (i = 0; i < n; i++)
			sl_col_i64(c)[i] = lit->lit.i;
		break;
	case SL_DOUBLE:
		for (i = 0; i < n; i++)
			sl_col_f64(c)[i] = lit->lit.d;
		break;
	case SL_STRING:
	case SL_BINARY:
		/* one copy of the bytes; every row points at it */
		c->arena = sl_arena_new();
		p = c->arena ? sl_arena_dup(c->arena, lit->lit.s, lit->lit.n)
			     : NULL;
		if (p == NULL) {
			sl_col_free(c);
			return NULL;
		}
		for (i = 0; i < n; i++) {
			sl_col_str(c)[i].p = p;
			sl_col_str(c)[i].len = (uint32_t)lit->lit.n;
		}
		break;
	default: break;
	}
	return c;
}

/* A subtree without column references evaluates to the same value on every
 * row: the kernels broadcast it as a scalar instead of a column. */
bool sl_expr_const_tree(const sl_expr *e)
{
	int i;
	if (e->kind == SL_X_COL || e->kind == SL_X_STAR)
		return false;
	if (e->kind == SL_X_CALL &&
	    (e->fn == NULL || e->fn->kind != SL_FN_SCALAR))
		return false;
	for (i = 0; i < e->nargs; i++)
		if (!sl_expr_const_tree(e->args[i]))
			return false;
	return true;
}

static void value_at(const sl_col *c, int64_t i, sl_value *v)
{
	memset(v, 0, sizeof *v);
	if (c->type->kind == SL_NULLTYPE || sl_col_isnull(c, i)) {
		v->null = true;
		return;
	}
	switch (c->type->kind) {
	case SL_BOOLEAN: v->i = sl_col_u8(c)[i]; break;
	case SL_INT:
	case SL_DATE: v->i = sl_col_i32(c)[i]; break;
	case SL_BIGINT:
	case SL_TIMESTAMP: v->i = sl_col_i64(c)[i]; break;
	case SL_DOUBLE: v->d = sl_col_f64(c)[i]; break;
	case SL_STRING:
	case SL_BINARY:
		v->s = (char *)sl_col_str(c)[i].p;
		v->n = sl_col_str(c)[i].len;
		break;
	default: break;
	}
}

/* An operand of a binary kernel: a column, or a scalar (col kept alive). */
struct operand {
	sl_col *c; /* owned reference */
	bool scalar;
	sl_value v; /* scalar value; strings borrowed from c */
};

static int operand_get(const sl_expr *e, const sl_batch *b, struct operand *o,
		       sl_err *err)
{
	memset(o, 0, sizeof *o);
	if (sl_expr_const_tree(e)) {
		sl_batch one = { NULL, 1, 0, NULL, 1 };
		o->c = eval(e, &one, err);
		if (o->c == NULL)
			return -1;
		o->scalar = true;
		value_at(o->c, 0, &o->v);
		return 0;
	}
	o->c = eval(e, b, err);
	return o->c == NULL ? -1 : 0;
}

static sl_col *result_col(const sl_expr *e, int64_t n, sl_err *err)
{
	sl_col *o = sl_col_new(e->rtype, n);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

/* For kernels that write every row: values not zeroed first. */
static sl_col *result_col_raw(const sl_expr *e, int64_t n, sl_err *err)
{
	sl_col *o = sl_col_new_raw(e->rtype, n);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

/* x and y: the element types; the loop shapes column/column, column/scalar
 * and scalar/column share one expression EX over (x, y). */
#define BIN_LOOP(T, XA, XS, YA, YS, OUT, EX)                                   \
	do {                                                                   \
		if ((XA) != NULL && (YA) != NULL) {                            \
			for (i = 0; i < n; i++) {                              \
				T x = (XA)[i], y = (YA)[i];                    \
				(OUT)[i] = (EX);                               \
			}                                                      \
		} else if ((XA) != NULL) {                                     \
			T y = (YS);                                            \
			for (i = 0; i < n; i++) {                              \
				T x = (XA)[i];                                 \
				(OUT)[i] = (EX);                               \
			}                                                      \
		} else {                                                       \
			T x = (XS);                                            \
			for (i = 0; i < n; i++) {                              \
				T y = (YA)[i];                                 \
				(OUT)[i] = (EX);                               \
			}                                                      \
		}                                                              \
	} while (0)

/* Integer kernels wrap like Java through unsigned arithmetic (no UB). */
#define INT_ARITH(T, UT, XA, XS, YA, YS, OUT)                                  \
	switch (op) {                                                          \
	case SL_OP_ADD:                                                        \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (T)((UT)x + (UT)y));          \
		break;                                                         \
	case SL_OP_SUB:                                                        \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (T)((UT)x - (UT)y));          \
		break;                                                         \
	case SL_OP_MUL:                                                        \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (T)((UT)x * (UT)y));          \
		break;                                                         \
	default:                                                               \
		BIN_LOOP(T, XA, XS, YA, YS, OUT,                               \
			 (T)(y == 0 || y == -1 ? 0 : x % y));                  \
	}

/* Remainder by a constant divisor without a division per row (a 64-bit
 * division is 40+ cycles; `value % 1000` is in every benchmark's select):
 * Granlund and Montgomery's round-up method (Hacker's Delight 10-8).  For
 * d >= 2, l = ceil(log2 d), m = floor(2^64 (2^l - d) / d) + 1 (< 2^64);
 * then n / d = (t + ((n - t) >> 1)) >> (l - 1) with t = mulhi(m, n), exact
 * for every 64-bit n.  The sign follows the dividend, as Java's %. */
typedef struct cmod {
	uint64_t d, m;
	int sh;
} cmod;

static cmod cmod_new(uint64_t d) /* d >= 2 */
{
	cmod c;
	int l = 64 - __builtin_clzll(d - 1);
	unsigned __int128 num = ((unsigned __int128)1 << l) - d;
	c.d = d;
	c.m = (uint64_t)((num << 64) / d + 1);
	c.sh = l - 1;
	return c;
}

static inline int64_t cmod_rem(const cmod *c, int64_t x)
{
	uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
	uint64_t t = (uint64_t)(((unsigned __int128)c->m * u) >> 64);
	uint64_t q = (t + ((u - t) >> 1)) >> c->sh;
	uint64_t r = u - q * c->d;
	return x < 0 ? (int64_t)(0 - r) : (int64_t)r;
}

/* The same for divisors up to 2^62 with fewer instructions a row (about
 * half: no absolute value, no conditional negation): the signed magic
 * number of Hacker's Delight 10-1 (Figure 10-1, for 64 bits), as compilers
 * divide by a constant: q = (mulhs(m, x) [+ x]) >> sh, plus 1 when x < 0
 * (truncation toward zero), r = x - q d.  x % y = x % |y| (the sign
 * follows x), so only positive divisors are needed. */
typedef struct smod {
	int64_t d, m;
	int sh;
} smod;

static smod smod_new(int64_t d) /* 2 <= d <= 2^62 */
{
	const uint64_t two63 = (uint64_t)1 << 63;
	uint64_t ad = (uint64_t)d, anc, q1, r1, q2, r2, delta;
	int p = 63;
	smod c;
	anc = two63 - 1 - two63 % ad;
	q1 = two63 / anc;
	r1 = two63 - q1 * anc;
	q2 = two63 / ad;
	r2 = two63 - q2 * ad;
	do {
		p++;
		q1 *= 2;
		r1 *= 2;
		if (r1 >= anc) {
			q1++;
			r1 -= anc;
		}
		q2 *= 2;
		r2 *= 2;
		if (r2 >= ad) {
			q2++;
			r2 -= ad;
		}
		delta = ad - r2;
	} while (q1 < delta || (q1 == delta && r1 == 0));
	c.d = d;
	c.m = (int64_t)(q2 + 1);
	c.sh = p - 64;
	return c;
}

/* add: m < 0 (the "+ x" step); a constant in each of the two loops. */
static inline int64_t smod_rem(int64_t m, int sh, int64_t d, bool add,
			       int64_t x)
{
	int64_t q = (int64_t)(((__int128)m * x) >> 64);
	if (add)
		q = (int64_t)((uint64_t)q + (uint64_t)x);
	q = (q >> sh) - (x >> 63);
	return (int64_t)((uint64_t)x - (uint64_t)q * (uint64_t)d);
}

/* The common case of both (`value % 1000` over a counter, an id, a
 * price in cents): every dividend in [0, 2^31) and 2 <= d <= 2^31.  Then
 * a 32-bit magic number does: with l = ceil(log2 d), s = 31 + l and
 * m = ceil(2^s / d), e = m d - 2^s is in [0, d), so for 0 <= x < 2^31
 * x m / 2^s = x / d + x e / (d 2^s) with the second term below 1 / d:
 * floor(x m / 2^s) = floor(x / d) (Hacker's Delight 10-9's bound).
 * m < 2^32 for d <= 2^31 and x m < 2^63, so two rows at a time take
 * SSE2's 32 x 32 -> 64-bit multiply (pmuludq), with no 128-bit product.
 * Rows go in blocks of UMOD_BLOCK; the first block holding a dividend
 * outside the range stops the path: returns how many leading rows are
 * done, the caller does the rest the general way (a negative or large x
 * costs at most one wasted block). */
enum { UMOD_BLOCK = 256 };

static int64_t umod31(const int64_t *xa, uint64_t d, int64_t *o, int64_t n)
{
	int s = 31 + (64 - __builtin_clzll(d - 1));
	uint64_t m = (((uint64_t)1 << s) + d - 1) / d;
	int64_t at, i;
#ifdef __SSE2__
	const __m128i vm = _mm_set1_epi64x((int64_t)m),
		      vd = _mm_set1_epi64x((int64_t)d),
		      vs = _mm_cvtsi32_si128(s);
#endif
	for (at = 0; at < n; at += UMOD_BLOCK) {
		int64_t e = n - at < UMOD_BLOCK ? n : at + UMOD_BLOCK;
		uint64_t any = 0;
		i = at;
#ifdef __SSE2__
		{
			__m128i acc = _mm_setzero_si128();
			for (; i + 4 <= e; i += 4) {
				__m128i x0 = _mm_loadu_si128(
					    (const __m128i *)(xa + i)),
					x1 = _mm_loadu_si128(
					    (const __m128i *)(xa + i + 2));
				__m128i q0 = _mm_srl_epi64(
					    _mm_mul_epu32(x0, vm), vs),
					q1 = _mm_srl_epi64(
					    _mm_mul_epu32(x1, vm), vs);
				acc = _mm_or_si128(acc, _mm_or_si128(x0, x1));
				_mm_storeu_si128(
				    (__m128i *)(o + i),
				    _mm_sub_epi64(x0, _mm_mul_epu32(q0, vd)));
				_mm_storeu_si128(
				    (__m128i *)(o + i + 2),
				    _mm_sub_epi64(x1, _mm_mul_epu32(q1, vd)));
			}
			any = (uint64_t)_mm_cvtsi128_si64(acc) |
			      (uint64_t)_mm_cvtsi128_si64(
				  _mm_unpackhi_epi64(acc, acc));
		}
#endif
		for (; i < e; i++) {
			uint64_t x = (uint64_t)xa[i];
			any |= x;
			o[i] = (int64_t)(x - (((x & 0xffffffffu) * m) >> s) * d);
		}
		if (any >> 31 != 0)
			return at;
	}
	return n;
}

/* x % y for a column x and a scalar y (not 0 or -1: handled before);
 * FROM: the rows done already (umod31). */
#define CMOD_LOOP(T, XA, YS, OUT, FROM)                                        \
	do {                                                                   \
		uint64_t ay = (YS) < 0 ? 0 - (uint64_t)(int64_t)(YS)           \
				       : (uint64_t)(int64_t)(YS);              \
		cmod c;                                                        \
		smod sc;                                                       \
		if (ay == 1) {                                                 \
			memset((OUT), 0, (size_t)n * sizeof(T));               \
			break;                                                 \
		}                                                              \
		if (ay <= (uint64_t)1 << 62) {                                 \
			sc = smod_new((int64_t)ay);                            \
			if (sc.m < 0)                                          \
				for (i = (FROM); i < n; i++)                   \
					(OUT)[i] = (T)smod_rem(sc.m, sc.sh,    \
							       sc.d, true,     \
							       (XA)[i]);       \
			else                                                   \
				for (i = (FROM); i < n; i++)                   \
					(OUT)[i] = (T)smod_rem(sc.m, sc.sh,    \
							       sc.d, false,    \
							       (XA)[i]);       \
			break;                                                 \
		}                                                              \
		c = cmod_new(ay);                                              \
		for (i = (FROM); i < n; i++)                                   \
			(OUT)[i] = (T)cmod_rem(&c, (XA)[i]);                   \
	} while (0)

void sl_arith_i32(int op, const int32_t *xa, int32_t xs, const int32_t *ya,
		      int32_t ys, int32_t *o, int64_t n)
{
	int64_t i;
	if (op == SL_OP_MOD && xa != NULL && ya == NULL && ys != 0 &&
	    ys != -1) {
		CMOD_LOOP(int32_t, xa, ys, o, 0);
		return;
	}
	INT_ARITH(int32_t, uint32_t, xa, xs, ya, ys, o)
}

void sl_arith_i64(int op, const int64_t *xa, int64_t xs, const int64_t *ya,
		      int64_t ys, int64_t *o, int64_t n)
{
	int64_t i;
	if (op == SL_OP_MOD && xa != NULL && ya == NULL && ys != 0 &&
	    ys != -1) {
		uint64_t d = ys < 0 ? 0 - (uint64_t)ys : (uint64_t)ys;
		int64_t done = d >= 2 && d <= (uint64_t)1 << 31
				   ? umod31(xa, d, o, n)
				   : 0;
		if (done < n)
			CMOD_LOOP(int64_t, xa, ys, o, done);
		return;
	}
	INT_ARITH(int64_t, uint64_t, xa, xs, ya, ys, o)
}

void sl_arith_f64(int op, const double *xa, double xs, const double *ya,
		      double ys, double *o, int64_t n)
{
	int64_t i;
	switch (op) {
	case SL_OP_ADD: BIN_LOOP(double, xa, xs, ya, ys, o, x + y); break;
	case SL_OP_SUB: BIN_LOOP(double, xa, xs, ya, ys, o, x - y); break;
	case SL_OP_MUL: BIN_LOOP(double, xa, xs, ya, ys, o, x *y); break;
	case SL_OP_DIV:
		if (ya == NULL && ys != 0) { /* by a constant: no test a row */
			i = 0;
#ifdef __SSE2__
			{ /* divpd rounds each lane as divsd does */
				const __m128d vy = _mm_set1_pd(ys);
				for (; i + 2 <= n; i += 2)
					_mm_storeu_pd(
					    o + i,
					    _mm_div_pd(_mm_loadu_pd(xa + i),
						       vy));
			}
#endif
			for (; i < n; i++)
				o[i] = xa[i] / ys;
			break;
		}
		BIN_LOOP(double, xa, xs, ya, ys, o, y == 0 ? 0 : x / y);
		break;
	default:
		BIN_LOOP(double, xa, xs, ya, ys, o, y == 0 ? 0 : fmod(x, y));
		break;
	}
}

/* (double)x exactly as the scalar conversion rounds it.  A BIGINT in
 * [-2^51, 2^51) needs no rounding, and then it is the double whose bits
 * are 0x4330000000000000 | (x + 2^51), less 2^52 + 2^51 (exact): two
 * integer adds and one subtraction, two rows at a time in SSE2, which has
 * no 64-bit integer to double conversion.  A block holding a value out
 * of that range is done again by the scalar conversion. */
void sl_conv_i64_f64(const int64_t *x, double *o, int64_t n)
{
	int64_t at, i;
	for (at = 0; at < n; at += UMOD_BLOCK) {
		int64_t e = n - at < UMOD_BLOCK ? n : at + UMOD_BLOCK;
		bool fast = false;
		i = at;
#ifdef __SSE2__
		{
			const __m128i half = _mm_set1_epi64x((int64_t)1 << 51),
				      bits = _mm_set1_epi64x(
					  0x4330000000000000);
			const __m128d bias = _mm_set1_pd(6755399441055744.0);
			__m128i acc = _mm_setzero_si128();
			for (; i + 4 <= e; i += 4) {
				__m128i t0 = _mm_add_epi64(
					    _mm_loadu_si128(
						(const __m128i *)(x + i)),
					    half),
					t1 = _mm_add_epi64(
					    _mm_loadu_si128(
						(const __m128i *)(x + i + 2)),
					    half);
				acc = _mm_or_si128(acc, _mm_or_si128(t0, t1));
				_mm_storeu_pd(
				    o + i,
				    _mm_sub_pd(_mm_castsi128_pd(
						   _mm_or_si128(t0, bits)),
					       bias));
				_mm_storeu_pd(
				    o + i + 2,
				    _mm_sub_pd(_mm_castsi128_pd(
						   _mm_or_si128(t1, bits)),
					       bias));
			}
			fast = (((uint64_t)_mm_cvtsi128_si64(acc) |
				 (uint64_t)_mm_cvtsi128_si64(
				     _mm_unpackhi_epi64(acc, acc))) >>
				52) == 0;
		}
#endif
		if (!fast)
			i = at;
		for (; i < e; i++)
			o[i] = (double)x[i];
	}
}

/* Division and remainder by zero give NULL (Spark, non-ANSI); y is a
 * column here (a zero scalar divisor was handled before the kernel). */
static int zero_divisors(sl_col *o, const sl_col *y, int64_t n)
{
	int64_t i;
	for (i = 0; i < n; i++) {
		bool z = y->type->kind == SL_DOUBLE ? sl_col_f64(y)[i] == 0
			 : y->type->kind == SL_INT  ? sl_col_i32(y)[i] == 0
						    : sl_col_i64(y)[i] == 0;
		if (z && !sl_col_isnull(y, i) && sl_func_mark_null(o, i) < 0)
			return SL_ENOMEM;
	}
	return 0;
}

static void operand_release(struct operand *o)
{
	sl_col_free(o->c);
	o->c = NULL;
}

/* Both scalar only when the whole node is constant but evaluated over a
 * batch: then widen x to a column. */
static int operands(const sl_expr *e, const sl_batch *b, struct operand *x,
		    struct operand *y, sl_err *err)
{
	if (operand_get(e->args[0], b, x, err) < 0)
		return -1;
	if (operand_get(e->args[1], b, y, err) < 0) {
		operand_release(x);
		return -1;
	}
	if (x->scalar && y->scalar) {
		/* Widen x's value (row 0 of x->c) to b's rows.  Evaluating x
		 * again instead evaluated every constant subtree twice per
		 * level: 2^n for 1+1+...+1 (issue 16 finding 3). */
		int64_t *idx = calloc((size_t)(b->nrows ? b->nrows : 1),
				      sizeof *idx);
		sl_col *w = idx ? sl_col_take(x->c, idx, b->nrows) : NULL;
		free(idx);
		operand_release(x);
		x->scalar = false;
		x->c = w;
		if (w == NULL) {
			operand_release(y);
			sl_err_nomem(err);
			return -1;
		}
	}
	return 0;
}

static bool scalar_zero(const struct operand *y)
{
	sl_kind k = y->c->type->kind;
	return y->scalar && (k == SL_DOUBLE ? y->v.d == 0 : y->v.i == 0);
}

static sl_col *eval_arith(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	struct operand x, y;
	sl_col *o = NULL, *ins[2];
	int64_t n = b->nrows;
	int op = e->op;
	sl_kind k;
	if (operands(e, b, &x, &y, err) < 0)
		return NULL;
	if ((x.scalar && x.v.null) || (y.scalar && y.v.null) ||
	    ((op == SL_OP_DIV || op == SL_OP_MOD) && scalar_zero(&y))) {
		o = sl_col_new_null(e->rtype, n);
		goto done;
	}
	o = result_col_raw(e, n, err); /* every row is written below */
	if (o == NULL)
		goto done;
	k = x.c->type->kind;
	if (k == SL_INT)
		sl_arith_i32(op, x.scalar ? NULL : sl_col_i32(x.c), (int32_t)x.v.i,
			  y.scalar ? NULL : sl_col_i32(y.c), (int32_t)y.v.i,
			  sl_col_i32(o), n);
	else if (k == SL_DOUBLE)
		sl_arith_f64(op, x.scalar ? NULL : sl_col_f64(x.c), x.v.d,
			  y.scalar ? NULL : sl_col_f64(y.c), y.v.d,
			  sl_col_f64(o), n);
	else /* BIGINT, and TIMESTAMP +- interval literal */
		sl_arith_i64(op, x.scalar ? NULL : sl_col_i64(x.c), x.v.i,
			  y.scalar ? NULL : sl_col_i64(y.c), y.v.i,
			  sl_col_i64(o), n);
	ins[0] = x.scalar ? NULL : x.c;
	ins[1] = y.scalar ? NULL : y.c;
	if (sl_func_nulls_merge(o, ins, 2) < 0 ||
	    ((op == SL_OP_DIV || op == SL_OP_MOD) && !y.scalar &&
	     zero_divisors(o, y.c, n) < 0)) {
		sl_col_free(o);
		o = NULL;
		sl_err_nomem(err);
		goto done;
	}
	sl_func_zero_nulls(o);
done:
	if (o == NULL)
		sl_err_nomem(err);
	operand_release(&x);
	operand_release(&y);
	return o;
}

static int str_cmp(sl_str a, sl_str b)
{
	uint32_t m = a.len < b.len ? a.len : b.len;
	int c = m ? memcmp(a.p, b.p, m) : 0;
	if (c != 0)
		return c;
	return a.len < b.len ? -1 : a.len > b.len;
}

static bool str_eq(sl_str a, sl_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

#define CMP_OPS(T, XA, XS, YA, YS, OUT, EQ, CMP)                               \
	switch (op) {                                                          \
	case SL_OP_EQ:                                                         \
	case SL_OP_EQNS: BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)(EQ));      \
	    break;                                                             \
	case SL_OP_NE: BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t) !(EQ));      \
	    break;                                                             \
	case SL_OP_LT:                                                         \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)((CMP) < 0));        \
		break;                                                         \
	case SL_OP_LE:                                                         \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)((CMP) <= 0));       \
		break;                                                         \
	case SL_OP_GT:                                                         \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)((CMP) > 0));        \
		break;                                                         \
	default: BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)((CMP) >= 0));      \
	    break;                                                             \
	}

#define NUM_CMP(x, y) (((x) > (y)) - ((x) < (y)))

/* The numeric comparison kernels (expr_int.h); DATE rides on the INT one,
 * TIMESTAMP on the BIGINT one. */
#define CMP_KERNEL(NAME, T)                                                    \
	void NAME(int op, const T *xa, T xs, const T *ya, T ys, uint8_t *o,    \
		  int64_t n)                                                   \
	{                                                                      \
		int64_t i;                                                     \
		CMP_OPS(T, xa, xs, ya, ys, o, x == y, NUM_CMP(x, y))           \
	}
CMP_KERNEL(sl_cmp_i32, int32_t)
CMP_KERNEL(sl_cmp_i64, int64_t)
CMP_KERNEL(sl_cmp_f64, double)

static void cmp_kernel(int op, const struct operand *a, const struct operand *b,
		       uint8_t *o, int64_t n)
{
	int64_t i;
	switch (a->c->type->kind) {
	case SL_BOOLEAN: {
		const uint8_t *xa = a->scalar ? NULL : sl_col_u8(a->c);
		const uint8_t *ya = b->scalar ? NULL : sl_col_u8(b->c);
		CMP_OPS(uint8_t, xa, (uint8_t)a->v.i, ya, (uint8_t)b->v.i, o,
			x == y, NUM_CMP(x, y))
		break;
	}
	case SL_INT:
	case SL_DATE:
		sl_cmp_i32(op, a->scalar ? NULL : sl_col_i32(a->c),
			   (int32_t)a->v.i, b->scalar ? NULL : sl_col_i32(b->c),
			   (int32_t)b->v.i, o, n);
		break;
	case SL_DOUBLE:
		sl_cmp_f64(op, a->scalar ? NULL : sl_col_f64(a->c), a->v.d,
			   b->scalar ? NULL : sl_col_f64(b->c), b->v.d, o, n);
		break;
	case SL_STRING:
	case SL_BINARY: {
		const sl_str *xa = a->scalar ? NULL : sl_col_str(a->c);
		const sl_str *ya = b->scalar ? NULL : sl_col_str(b->c);
		sl_str xs = { a->v.s, (uint32_t)a->v.n },
		       ys = { b->v.s, (uint32_t)b->v.n };
		CMP_OPS(sl_str, xa, xs, ya, ys, o, str_eq(x, y), str_cmp(x, y))
		break;
	}
	default: /* BIGINT, TIMESTAMP */
		sl_cmp_i64(op, a->scalar ? NULL : sl_col_i64(a->c), a->v.i,
			   b->scalar ? NULL : sl_col_i64(b->c), b->v.i, o, n);
		break;
	}
}

/* <=>: never NULL; equal when both are NULL. */
static int null_safe_fix(sl_col *o, const struct operand *x,
			 const struct operand *y)
{
	int64_t i;
	for (i = 0; i < o->len; i++) {
		bool xn = x->scalar ? x->v.null : sl_col_isnull(x->c, i);
		bool yn = y->scalar ? y->v.null : sl_col_isnull(y->c, i);
		if (xn || yn)
			sl_col_u8(o)[i] = xn && yn;
	}
	return 0;
}

/* Structs and arrays: row by row with Spark's ordering, where NULL fields
 * equal each other (struct(1, NULL) = struct(1, NULL) is true); a NULL
 * struct itself is NULL (or, for <=>, equal only to a NULL). */
static bool nested(const sl_col *c)
{
	return c->type->kind == SL_STRUCT || c->type->kind == SL_ARRAY;
}

static sl_col *compare_nested(int op, const struct operand *x,
			      const struct operand *y, int64_t n, sl_err *err)
{
	sl_col *o = sl_col_new(sl_type_prim(SL_BOOLEAN), n);
	int64_t i;
	if (o == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		int64_t a = x->scalar ? 0 : i, b = y->scalar ? 0 : i;
		bool xn = sl_col_isnull(x->c, a), yn = sl_col_isnull(y->c, b);
		int c;
		bool v;
		if (xn || yn) {
			if (op == SL_OP_EQNS)
				sl_col_u8(o)[i] = xn && yn;
			else if (sl_col_set_null(o, i) < 0)
				goto nomem;
			continue;
		}
		c = sl_col_cmp_value(x->c, a, y->c, b);
		switch (op) {
		case SL_OP_EQ:
		case SL_OP_EQNS: v = c == 0; break;
		case SL_OP_NE: v = c != 0; break;
		case SL_OP_LT: v = c < 0; break;
		case SL_OP_LE: v = c <= 0; break;
		case SL_OP_GT: v = c > 0; break;
		default: v = c >= 0; break;
		}
		sl_col_u8(o)[i] = v;
	}
	return o;
nomem:
	sl_col_free(o);
	sl_err_nomem(err);
	return NULL;
}

static sl_col *compare(int op, struct operand *x, struct operand *y, int64_t n,
		       sl_err *err)
{
	if (nested(x->c) && nested(y->c))
		return compare_nested(op, x, y, n, err);
	sl_col *o, *ins[2];
	bool xnull = x->scalar && x->v.null, ynull = y->scalar && y->v.null;
	if ((xnull || ynull) && op != SL_OP_EQNS)
		return sl_col_new_null(sl_type_prim(SL_BOOLEAN), n);
	o = sl_col_new(sl_type_prim(SL_BOOLEAN), n);
	if (o == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (!xnull && !ynull && x->c->type->kind != SL_NULLTYPE &&
	    y->c->type->kind != SL_NULLTYPE)
		cmp_kernel(op, x, y, sl_col_u8(o), n);
	if (op == SL_OP_EQNS)
		return null_safe_fix(o, x, y) < 0 ? NULL : o;
	ins[0] = x->scalar ? NULL : x->c;
	ins[1] = y->scalar ? NULL : y->c;
	if (sl_func_nulls_merge(o, ins, 2) < 0) {
		sl_col_free(o);
		sl_err_nomem(err);
		return NULL;
	}
	sl_func_zero_nulls(o);
	return o;
}

static sl_col *eval_cmp(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	struct operand x, y;
	sl_col *o;
	if (operands(e, b, &x, &y, err) < 0)
		return NULL;
	o = compare(e->op, &x, &y, b->nrows, err);
	operand_release(&x);
	operand_release(&y);
	return o;
}

/* SQL three-valued AND / OR.  Null slots hold 0 (col.h invariant), so a
 * known FALSE (AND) or TRUE (OR) decides the row regardless of the other. */
static sl_col *eval_logic(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *x = eval(e->args[0], b, err), *y, *o;
	int64_t i, n = b->nrows;
	bool is_and = e->op == SL_OP_AND;
	if (x == NULL)
		return NULL;
	y = eval(e->args[1], b, err);
	o = y ? sl_col_new(sl_type_prim(SL_BOOLEAN), n) : NULL;
	if (o == NULL)
		goto done;
	for (i = 0; i < n; i++) {
		bool xn = sl_col_isnull(x, i), yn = sl_col_isnull(y, i);
		uint8_t xv = xn ? 0 : sl_col_u8(x)[i],
			yv = yn ? 0 : sl_col_u8(y)[i];
		bool decided = is_and ? ((!xn && !xv) || (!yn && !yv))
				      : ((!xn && xv) || (!yn && yv));
		if (decided)
			sl_col_u8(o)[i] = !is_and;
		else if (xn || yn) {
			if (sl_func_mark_null(o, i) < 0) {
				sl_col_free(o);
				o = NULL;
				break;
			}
		} else
			sl_col_u8(o)[i] = is_and;
	}
done:
	if (o == NULL && y != NULL)
		sl_err_nomem(err);
	sl_col_free(x);
	sl_col_free(y);
	return o;
}

static sl_col *copy_nulls_to(sl_col *o, const sl_col *from, sl_err *err)
{
	sl_col *ins[1] = { (sl_col *)from };
	if (sl_func_nulls_merge(o, ins, 1) < 0) {
		sl_col_free(o);
		sl_err_nomem(err);
		return NULL;
	}
	return o;
}

static sl_col *eval_unary(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *x = eval(e->args[0], b, err), *o;
	int64_t i, n = b->nrows;
	bool isnull = e->kind == SL_X_ISNULL;
	if (x == NULL)
		return NULL;
	o = result_col(e, n, err);
	if (o == NULL) {
		sl_col_free(x);
		return NULL;
	}
	if (e->kind == SL_X_ISNULL || e->kind == SL_X_ISNOTNULL) {
		for (i = 0; i < n; i++)
			sl_col_u8(o)[i] =
			    (uint8_t)(sl_col_isnull(x, i) == isnull);
		sl_col_free(x);
		return o;
	}
	if (x->type->kind == SL_NULLTYPE) {
		sl_col_free(o);
		o = sl_col_new_null(e->rtype, n);
		sl_col_free(x);
		return o;
	}
	switch (e->rtype->kind) {
	case SL_BOOLEAN: /* NOT */
		for (i = 0; i < n; i++)
			sl_col_u8(o)[i] = !sl_col_u8(x)[i];
		break;
	case SL_INT:
		for (i = 0; i < n; i++)
			sl_col_i32(o)[i] =
			    (int32_t)(0u - (uint32_t)sl_col_i32(x)[i]);
		break;
	case SL_BIGINT:
		for (i = 0; i < n; i++)
			sl_col_i64(o)[i] =
			    (int64_t)(0u - (uint64_t)sl_col_i64(x)[i]);
		break;
	default:
		for (i = 0; i < n; i++)
			sl_col_f64(o)[i] = -sl_col_f64(x)[i];
		break;
	}
	o = copy_nulls_to(o, x, err);
	if (o != NULL)
		sl_func_zero_nulls(o);
	sl_col_free(x);
	return o;
}

/* v IN (l1, l2, ...): TRUE if some li = v; else NULL if v or some li is
 * NULL; else FALSE (SQL three-valued logic). */
static sl_col *eval_in(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	struct operand v, it;
	sl_col *o = NULL, *t;
	uint8_t *unknown = NULL;
	int64_t i, n = b->nrows;
	int k;
	if (operand_get(e->args[0], b, &v, err) < 0)
		return NULL;
	if (v.scalar) { /* constant IN: evaluate the value as a column */
		operand_release(&v);
		v.scalar = false; /* a scalar/scalar compare has no column */
		v.c = eval(e->args[0], b, err);
		if (v.c == NULL)
			return NULL;
	}
	o = sl_col_new(sl_type_prim(SL_BOOLEAN), n);
	unknown = calloc((size_t)n + 1, 1);
	if (o == NULL || unknown == NULL)
		goto oom;
	for (k = 1; k < e->nargs; k++) {
		if (operand_get(e->args[k], b, &it, err) < 0)
			goto fail;
		t = compare(SL_OP_EQ, &v, &it, n, err);
		operand_release(&it);
		if (t == NULL)
			goto fail;
		for (i = 0; i < n; i++) {
			sl_col_u8(o)[i] |= sl_col_u8(t)[i];
			unknown[i] |= (uint8_t)sl_col_isnull(t, i);
		}
		sl_col_free(t);
	}
	for (i = 0; i < n; i++)
		if (!sl_col_u8(o)[i] && unknown[i] &&
		    sl_func_mark_null(o, i) < 0)
			goto oom;
	free(unknown);
	operand_release(&v);
	return o;
oom:
	sl_err_nomem(err);
fail:
	free(unknown);
	sl_col_free(o);
	operand_release(&v);
	return NULL;
}

static sl_col *eval_case(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	int64_t i, n = b->nrows;
	int k, nw = e->nargs / 2;
	sl_col **cols = calloc((size_t)e->nargs + 1, sizeof *cols), *o = NULL;
	int *pick = malloc(((size_t)n + 1) * sizeof *pick);
	if (cols == NULL || pick == NULL)
		goto oom;
	for (k = 0; k < e->nargs; k++)
		if ((cols[k] = eval(e->args[k], b, err)) == NULL)
			goto fail;
	for (i = 0; i < n; i++) {
		pick[i] = e->nargs % 2 ? e->nargs - 1 : -1;
		for (k = 0; k < nw; k++)
			if (!sl_col_isnull(cols[2 * k], i) &&
			    sl_col_u8(cols[2 * k])[i]) {
				pick[i] = 2 * k + 1;
				break;
			}
	}
	if ((o = sl_col_pick(e->rtype, cols, e->nargs, pick, n)) == NULL)
		goto oom;
	goto done;
oom:
	sl_err_nomem(err);
fail:
	o = NULL;
done:
	for (k = 0; cols != NULL && k < e->nargs; k++)
		sl_col_free(cols[k]);
	free(cols);
	free(pick);
	return o;
}

static sl_col *eval_field(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *s = eval(e->args[0], b, err), *o;
	int64_t i;
	if (s == NULL)
		return NULL;
	if (s->nulls == NULL) {
		o = sl_col_ref(s->child[e->idx]);
		sl_col_free(s);
		return o;
	}
	/* a field of a NULL struct is NULL */
	o = sl_col_copy(s->child[e->idx]);
	for (i = 0; o != NULL && i < s->len; i++)
		if (sl_col_isnull(s, i) && sl_col_set_null(o, i) < 0) {
			sl_col_free(o);
			o = NULL;
		}
	if (o == NULL)
		sl_err_nomem(err);
	sl_col_free(s);
	return o;
}

static sl_col *eval_call(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *args[16] = { 0 }, **av = args, *o = NULL;
	int k;
	if (e->fn->kind == SL_FN_AGG) {
		sl_err_set(err, SL_EANALYSIS,
			   "aggregate function '%s' is not allowed here",
			   e->name);
		return NULL;
	}
	if (e->fn->kind == SL_FN_GENERATOR || e->fn->eval == NULL) {
		sl_err_set(err, SL_EANALYSIS,
			   "generator function '%s' is not allowed here",
			   e->name);
		return NULL;
	}
	if (e->nargs > 16 &&
	    (av = calloc((size_t)e->nargs, sizeof *av)) == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (k = 0; k < e->nargs; k++)
		if (!sl_func_const_arg(e, k) &&
		    (av[k] = eval(e->args[k], b, err)) == NULL)
			goto done;
	o = e->fn->eval(e, av, b->nrows, err);
done:
	for (k = 0; k < e->nargs; k++)
		sl_col_free(av[k]);
	if (av != args)
		free(av);
	return o;
}

static sl_col *eval_cast(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *x = eval(e->args[0], b, err), *o;
	if (x == NULL)
		return NULL;
	if (sl_type_equal(x->type, e->rtype))
		return x;
	o = sl_cast_col(x, e->rtype, err);
	sl_col_free(x);
	return o;
}

/* Set while sl_expr_eval_unfused runs on this thread. */
static _Thread_local int no_fuse;

static sl_col *eval(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *o;
	int rc;
	if (e->rtype == NULL) {
		sl_err_set(err, SL_EINTERNAL,
			   "eval: expression is not resolved");
		return NULL;
	}
	/* arithmetic, comparison and cast regions: one pass (expr_fuse.c) */
	if (!no_fuse && (e->kind == SL_X_BINOP || e->kind == SL_X_NEG ||
			 e->kind == SL_X_CAST)) {
		rc = sl_expr_fuse(e, b, &o, err);
		if (rc != 0)
			return rc > 0 ? o : NULL;
	}
	switch (e->kind) {
	case SL_X_COL: return sl_col_ref(b->cols[e->idx]);
	case SL_X_LIT:
		o = sl_expr_lit_col(e, b->nrows);
		if (o == NULL)
			sl_err_nomem(err);
		return o;
	case SL_X_ALIAS:
	case SL_X_SORT: return eval(e->args[0], b, err);
	case SL_X_FIELD: return eval_field(e, b, err);
	case SL_X_CAST: return eval_cast(e, b, err);
	case SL_X_BINOP:
		if (e->op <= SL_OP_MOD)
			return eval_arith(e, b, err);
		if (e->op == SL_OP_AND || e->op == SL_OP_OR)
			return eval_logic(e, b, err);
		if (e->op == SL_OP_CONCAT)
			return eval_call(e, b, err);
		return eval_cmp(e, b, err);
	case SL_X_NOT:
	case SL_X_NEG:
	case SL_X_ISNULL:
	case SL_X_ISNOTNULL: return eval_unary(e, b, err);
	case SL_X_IN: return eval_in(e, b, err);
	case SL_X_CASE: return eval_case(e, b, err);
	case SL_X_CALL: return eval_call(e, b, err);
	default:
		sl_err_set(err, SL_EINTERNAL, "eval: unexpected node");
		return NULL;
	}
}

sl_col *sl_expr_eval(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	return eval(e, b, err);
}

sl_col *sl_expr_eval_unfused(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *o;
	no_fuse++;
	o = eval(e, b, err);
	no_fuse--;
	return o;
}

bool sl_expr_fused(const sl_expr *e)
{
	return sl_expr_fuse_root(e);
}

sl_col **sl_expr_eval_n(sl_expr *const *e, int n, const sl_batch *b,
			sl_err *err)
{
	sl_col **c = calloc((size_t)n + 1, sizeof *c);
	int k;
	if (c == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (k = 0; k < n; k++)
		if ((c[k] = eval(e[k], b, err)) == NULL) {
			if (err != NULL && err->code == 0)
				sl_err_nomem(err);
			sl_cols_free(c, k);
			return NULL;
		}
	return c;
}

int sl_expr_eval_const(const sl_expr *e, sl_value *out, sl_err *err)
{
	sl_batch one = { NULL, 1, 0, NULL, 1 };
	sl_col *c;
	sl_value v;
	memset(out, 0, sizeof *out);
	if (!sl_expr_const_tree(e))
		return sl_err_set(err, SL_EANALYSIS,
				  "expression is not a constant");
	c = eval(e, &one, err);
	if (c == NULL)
		return err ? err->code : SL_EINTERNAL;
	value_at(c, 0, &v);
	*out = v;
	if (v.s != NULL) {
		out->s = malloc(v.n + 1);
		if (out->s == NULL) {
			sl_col_free(c);
			return sl_err_nomem(err);
		}
		memcpy(out->s, v.s, v.n);
		out->s[v.n] = '\0';
	}
	sl_col_free(c);
	return 0;
}

void sl_value_release(sl_value *v)
{
	free(v->s);
	memset(v, 0, sizeof *v);
}
