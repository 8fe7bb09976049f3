/*
 * expr_fuse: the fused path of sl_expr_eval for arithmetic, comparisons,
 * negation and casts over INT, BIGINT and DOUBLE values (DATE and
 * TIMESTAMP too where they are only compared).
 *
 * Why.  The node by node evaluator (expr_eval.c) gives every node a
 * column of its own: W1's `CAST(value % 10000 AS DOUBLE) / 100` allocates
 * and fills three batch-sized columns and reads two of them back, each
 * pass streaming 800 KB through the caches for a 100 000-row batch.  Here
 * the tree is compiled, once per call, into a small register program (one
 * instruction per node, children first) and the program runs over the
 * rows a chunk at a time: every instruction's chunk stays in L1, only the
 * last writes into the result column, and no column is made in between.
 * The instructions call the same array kernels as the node by node path
 * (expr_int.h), so the two cannot drift apart in what a row computes;
 * tests/unit/t103-fuse.c compares them on random trees with NULLs.
 *
 * Program.  A leaf is a column of the batch (read in place), a constant
 * (a subtree without column references, evaluated once: a scalar), or a
 * subtree of another kind (a function call, CASE, ...) evaluated whole by
 * sl_expr_eval and then read like a column.  A register holds one chunk:
 * its values (in place for a column) and a byte per row, 1 = NULL, or no
 * bytes when no row of the chunk is NULL (nothing is paid for nulls that
 * are not there).
 *
 * NULLs, as Spark (non-ANSI): a NULL operand gives NULL; x / 0 and x % 0
 * give NULL; <=> is never NULL (true when both sides are).  Integer
 * arithmetic wraps; DOUBLE -> INT/BIGINT truncates and saturates, NaN 0.
 * A NULL constant, or a constant divisor 0, makes the call decline
 * (return 0): the node by node path answers those with an all-NULL column
 * without touching the rows; so does a region of more than FZ_MAX nodes.
 * The result's NULL slots are zeroed (col.h).
 *
 * Ownership: b and e are borrowed; the result is a new column.  Never
 * prints; out of memory is SL_ENOMEM.
 */
#include "expr/expr_int.h"

#include <stdlib.h>
#include <string.h>

enum { FZ_CHUNK = 1024, FZ_MAX = 32 };

typedef enum fz_cls { FZ_NONE, FZ_U8, FZ_I32, FZ_I64, FZ_F64 } fz_cls;

typedef enum fz_code {
	FZ_COL,   /* a column: of the batch (borrowed) or evaluated (owned) */
	FZ_CONST, /* a scalar; never NULL */
	FZ_ARITH, /* a op b, both of cls */
	FZ_CMP,   /* a op b, both of acls, into U8 */
	FZ_NEG,   /* -a */
	FZ_CAST   /* a of acls as cls */
} fz_code;

typedef struct fz_ins {
	fz_code code;
	fz_cls cls, acls;
	int op;
	int a, b;
	sl_col *col;
	bool own;
	int64_t ki; /* FZ_CONST of an integer class */
	double kd;  /* FZ_CONST DOUBLE */
	/* this chunk: */
	char *v;      /* values (NULL for a constant) */
	uint8_t *nul; /* 1 = NULL; NULL when no row of the chunk is */
	char *vbuf;   /* own buffers */
	uint8_t *nbuf;
} fz_ins;

typedef struct fz_prog {
	int n;
	char *blk; /* every register's buffers, one allocation */
	fz_ins ins[FZ_MAX];
} fz_prog;

static fz_cls cls_of(const sl_type *t)
{
	switch (t->kind) {
	case SL_BOOLEAN: return FZ_U8;
	case SL_INT:
	case SL_DATE: return FZ_I32;
	case SL_BIGINT:
	case SL_TIMESTAMP: return FZ_I64;
	case SL_DOUBLE: return FZ_F64;
	default: return FZ_NONE;
	}
}

static int width(fz_cls c)
{
	return c == FZ_U8 ? 1 : c == FZ_I32 ? 4 : 8;
}

/* The arithmetic classes: INT, BIGINT, DOUBLE (not DATE or TIMESTAMP). */
static bool num(const sl_type *t)
{
	return t->kind == SL_INT || t->kind == SL_BIGINT ||
	       t->kind == SL_DOUBLE;
}

static const sl_expr *unalias(const sl_expr *e)
{
	while (e->kind == SL_X_ALIAS)
		e = e->args[0];
	return e;
}

/* The node kinds an instruction computes (children of any kind). */
static bool fusable_node(const sl_expr *e)
{
	const sl_type *x, *y;
	if (e->rtype == NULL)
		return false;
	switch (e->kind) {
	case SL_X_BINOP:
		if (e->nargs != 2 || e->args[0]->rtype == NULL ||
		    e->args[1]->rtype == NULL)
			return false;
		x = e->args[0]->rtype;
		y = e->args[1]->rtype;
		if (e->op <= SL_OP_MOD)
			return num(e->rtype) && x->kind == e->rtype->kind &&
			       y->kind == e->rtype->kind &&
			       (e->op != SL_OP_DIV ||
				e->rtype->kind == SL_DOUBLE);
		if ((e->op >= SL_OP_EQ && e->op <= SL_OP_GE) ||
		    e->op == SL_OP_EQNS)
			return e->rtype->kind == SL_BOOLEAN &&
			       x->kind == y->kind && cls_of(x) != FZ_NONE &&
			       cls_of(x) != FZ_U8;
		return false;
	case SL_X_NEG:
		return num(e->rtype) && e->args[0]->rtype != NULL &&
		       e->args[0]->rtype->kind == e->rtype->kind;
	case SL_X_CAST:
		return num(e->rtype) && e->args[0]->rtype != NULL &&
		       num(e->args[0]->rtype);
	default: return false;
	}
}

bool sl_expr_fuse_root(const sl_expr *e)
{
	e = unalias(e);
	return fusable_node(e) && !sl_expr_const_tree(e);
}

/* Compiling: -1 declines (the caller falls back), -2 is an error. */
enum { FZ_DECLINE = -1, FZ_FAIL = -2 };

static int add(fz_prog *p, fz_code code, fz_cls cls)
{
	fz_ins *in;
	if (p->n == FZ_MAX)
		return FZ_DECLINE;
	in = &p->ins[p->n];
	memset(in, 0, sizeof *in);
	in->code = code;
	in->cls = cls;
	in->a = in->b = -1;
	return p->n++;
}

static int leaf_const(fz_prog *p, const sl_expr *e, sl_err *err)
{
	sl_value v;
	fz_cls c = cls_of(e->rtype);
	int k;
	if (c == FZ_NONE || c == FZ_U8)
		return FZ_DECLINE;
	if (sl_expr_eval_const(e, &v, err) < 0)
		return FZ_FAIL;
	if (v.null) {
		sl_value_release(&v);
		return FZ_DECLINE;
	}
	if ((k = add(p, FZ_CONST, c)) >= 0) {
		p->ins[k].ki = v.i;
		p->ins[k].kd = v.d;
	}
	sl_value_release(&v);
	return k;
}

/* c: a column of the batch (borrowed) or one evaluated here (own: taken). */
static int leaf_col(fz_prog *p, sl_col *c, bool own)
{
	fz_cls cls = cls_of(c->type);
	int k = cls == FZ_NONE || cls == FZ_U8 ? FZ_DECLINE
					       : add(p, FZ_COL, cls);
	if (k < 0) {
		if (own)
			sl_col_free(c);
		return k;
	}
	p->ins[k].col = c;
	p->ins[k].own = own;
	return k;
}

static bool const_zero(const fz_prog *p, int k)
{
	const fz_ins *in = &p->ins[k];
	return in->code == FZ_CONST &&
	       (in->cls == FZ_F64 ? in->kd == 0 : in->ki == 0);
}

static int compile(fz_prog *p, const sl_expr *e, const sl_batch *b,
		   sl_err *err)
{
	int x, y = -1, k;
	sl_col *c;
	e = unalias(e);
	if (sl_expr_const_tree(e))
		return leaf_const(p, e, err);
	if (e->kind == SL_X_COL)
		return leaf_col(p, b->cols[e->idx], false);
	if (!fusable_node(e)) {
		if (cls_of(e->rtype) == FZ_NONE || cls_of(e->rtype) == FZ_U8)
			return FZ_DECLINE;
		if ((c = sl_expr_eval(e, b, err)) == NULL)
			return FZ_FAIL;
		return leaf_col(p, c, true);
	}
	if ((x = compile(p, e->args[0], b, err)) < 0)
		return x;
	if (e->kind == SL_X_BINOP && (y = compile(p, e->args[1], b, err)) < 0)
		return y;
	if (e->kind == SL_X_BINOP && (e->op == SL_OP_DIV || e->op == SL_OP_MOD) &&
	    const_zero(p, y))
		return FZ_DECLINE;
	k = add(p,
		e->kind == SL_X_NEG    ? FZ_NEG
		: e->kind == SL_X_CAST ? FZ_CAST
		: e->op <= SL_OP_MOD   ? FZ_ARITH
				       : FZ_CMP,
		cls_of(e->rtype));
	if (k >= 0) {
		p->ins[k].acls = p->ins[x].cls;
		p->ins[k].op = e->op;
		p->ins[k].a = x;
		p->ins[k].b = y;
	}
	return k;
}

static void prog_release(fz_prog *p)
{
	int k;
	for (k = 0; k < p->n; k++)
		if (p->ins[k].own)
			sl_col_free(p->ins[k].col);
	free(p->blk);
	p->blk = NULL;
}

/* One block for every register's chunk: values for each computing
 * instruction (the last one's stay unused: it writes into the result
 * column), a NULL byte per row for all.  cap is a multiple of 8, so every
 * buffer is 8-byte aligned. */
static int prog_buffers(fz_prog *p, int64_t cap)
{
	size_t sz = 0, at = 0;
	char *blk;
	int k;
	for (k = 0; k < p->n; k++)
		sz += (size_t)cap * (p->ins[k].code >= FZ_ARITH ? 9 : 1);
	if ((blk = p->blk = malloc(sz ? sz : 1)) == NULL)
		return SL_ENOMEM;
	for (k = 0; k < p->n; k++) {
		fz_ins *in = &p->ins[k];
		if (in->code >= FZ_ARITH) {
			in->vbuf = blk + at;
			at += (size_t)cap * 8;
		}
		in->nbuf = (uint8_t *)blk + at;
		at += (size_t)cap;
	}
	return 0;
}

/* ---------------------------------------------------------- running */

/* Rows [off, off+m) of a bitmap as bytes; NULL when none is set.  off is a
 * multiple of 8 (of FZ_CHUNK). */
static uint8_t *expand_nulls(const uint8_t *bm, int64_t off, int64_t m,
			     uint8_t *out)
{
	int64_t i, j, nb = (m + 7) >> 3;
	uint8_t any = 0;
	if (bm == NULL)
		return NULL;
	bm += off >> 3;
	for (j = 0; j < nb; j++)
		any |= bm[j];
	if (any == 0)
		return NULL;
	for (i = 0; i < m; i++)
		out[i] = (bm[i >> 3] >> (i & 7)) & 1;
	return out;
}

static uint8_t *or_nulls(uint8_t *out, const uint8_t *a, const uint8_t *b,
			 int64_t m)
{
	int64_t i;
	if (a == NULL || b == NULL)
		return (uint8_t *)(a ? a : b);
	for (i = 0; i < m; i++)
		out[i] = a[i] | b[i];
	return out;
}

/* x / 0 and x % 0 are NULL: the divisor is a column here. */
static uint8_t *zero_div_nulls(fz_ins *in, const fz_ins *x, const fz_ins *y,
			       int64_t m)
{
	int64_t i;
	uint8_t any = 0, *o = in->nbuf;
	for (i = 0; i < m; i++) {
		uint8_t z = y->cls == FZ_F64   ? ((const double *)y->v)[i] == 0
			    : y->cls == FZ_I32 ? ((const int32_t *)y->v)[i] == 0
					       : ((const int64_t *)y->v)[i] == 0;
		o[i] = (uint8_t)(z | (x->nul ? x->nul[i] : 0) |
				 (y->nul ? y->nul[i] : 0));
		any |= o[i];
	}
	return any ? o : NULL;
}

#define ARGS(T, X, Y)                                                          \
	(const T *)(X)->v, (T)((X)->cls == FZ_F64 ? 0 : (X)->ki),              \
	    (const T *)(Y)->v, (T)((Y)->cls == FZ_F64 ? 0 : (Y)->ki)

static void run_arith(fz_ins *in, const fz_ins *x, const fz_ins *y, int64_t m)
{
	switch (in->cls) {
	case FZ_I32:
		sl_arith_i32(in->op, ARGS(int32_t, x, y), (int32_t *)in->v, m);
		break;
	case FZ_I64:
		sl_arith_i64(in->op, ARGS(int64_t, x, y), (int64_t *)in->v, m);
		break;
	default:
		sl_arith_f64(in->op, (const double *)x->v, x->kd,
			     (const double *)y->v, y->kd, (double *)in->v, m);
		break;
	}
	if ((in->op == SL_OP_DIV || in->op == SL_OP_MOD) && y->v != NULL)
		in->nul = zero_div_nulls(in, x, y, m);
	else
		in->nul = or_nulls(in->nbuf, x->nul, y->nul, m);
}

static void run_cmp(fz_ins *in, const fz_ins *x, const fz_ins *y, int64_t m)
{
	uint8_t *o = (uint8_t *)in->v;
	int64_t i;
	switch (in->acls) {
	case FZ_I32: sl_cmp_i32(in->op, ARGS(int32_t, x, y), o, m); break;
	case FZ_I64: sl_cmp_i64(in->op, ARGS(int64_t, x, y), o, m); break;
	default:
		sl_cmp_f64(in->op, (const double *)x->v, x->kd,
			   (const double *)y->v, y->kd, o, m);
		break;
	}
	if (in->op != SL_OP_EQNS) {
		in->nul = or_nulls(in->nbuf, x->nul, y->nul, m);
		return;
	}
	in->nul = NULL; /* <=>: equal when both are NULL, never NULL */
	for (i = 0; (x->nul || y->nul) && i < m; i++) {
		uint8_t xn = x->nul ? x->nul[i] : 0, yn = y->nul ? y->nul[i] : 0;
		if (xn | yn)
			o[i] = xn & yn;
	}
}

#define CONV(TS, TD, EX)                                                       \
	do {                                                                   \
		const TS *s = (const TS *)x->v;                                \
		TD *d = (TD *)in->v;                                           \
		for (i = 0; i < m; i++) {                                      \
			TS v = s[i];                                           \
			d[i] = (EX);                                           \
		}                                                              \
	} while (0)

static void run_unary(fz_ins *in, const fz_ins *x, int64_t m)
{
	int64_t i;
	int conv = in->code == FZ_NEG ? 0 : (int)x->cls * 8 + (int)in->cls;
	in->nul = x->nul;
	switch (conv) {
	case 0:
		if (in->cls == FZ_I32)
			CONV(int32_t, int32_t, (int32_t)(0u - (uint32_t)v));
		else if (in->cls == FZ_I64)
			CONV(int64_t, int64_t, (int64_t)(0u - (uint64_t)v));
		else
			CONV(double, double, -v);
		break;
	case FZ_I32 * 8 + FZ_I64: CONV(int32_t, int64_t, v); break;
	case FZ_I32 * 8 + FZ_F64: CONV(int32_t, double, (double)v); break;
	case FZ_I64 * 8 + FZ_I32:
		CONV(int64_t, int32_t, (int32_t)(uint32_t)(uint64_t)v);
		break;
	case FZ_I64 * 8 + FZ_F64:
		sl_conv_i64_f64((const int64_t *)x->v, (double *)in->v, m);
		break;
	case FZ_F64 * 8 + FZ_I32: CONV(double, int32_t, sl_d2i(v)); break;
	case FZ_F64 * 8 + FZ_I64: CONV(double, int64_t, sl_d2l(v)); break;
	default: /* the same class: a no-op cast */
		memcpy(in->v, x->v, (size_t)m * (size_t)width(in->cls));
		break;
	}
}

static void run_chunk(fz_prog *p, sl_col *out, int64_t off, int64_t m)
{
	int k;
	for (k = 0; k < p->n; k++) {
		fz_ins *in = &p->ins[k];
		const fz_ins *x = in->a >= 0 ? &p->ins[in->a] : NULL,
			     *y = in->b >= 0 ? &p->ins[in->b] : NULL;
		if (in->code == FZ_CONST)
			continue;
		if (in->code == FZ_COL) {
			in->v = (char *)in->col->data +
				off * (int64_t)width(in->cls);
			in->nul = expand_nulls(in->col->nulls, off, m,
					       in->nbuf);
			continue;
		}
		in->v = k == p->n - 1 ? (char *)out->data +
					    off * (int64_t)width(in->cls)
				      : in->vbuf;
		if (in->code == FZ_ARITH)
			run_arith(in, x, y, m);
		else if (in->code == FZ_CMP)
			run_cmp(in, x, y, m);
		else
			run_unary(in, x, m);
	}
}

/* The last instruction's NULL rows into the result's bitmap, their slots
 * zeroed. */
static int finish_chunk(const fz_prog *p, sl_col *out, int64_t off, int64_t m)
{
	const fz_ins *r = &p->ins[p->n - 1];
	int w = width(r->cls);
	int64_t i;
	if (r->nul == NULL)
		return 0;
	for (i = 0; i < m; i++) {
		if (!r->nul[i])
			continue;
		/* a bitmap has one spare byte, as col.c allocates them */
		if (out->nulls == NULL &&
		    (out->nulls = calloc((size_t)((out->len + 7) >> 3) + 1,
					 1)) == NULL)
			return SL_ENOMEM;
		out->nulls[(off + i) >> 3] |= (uint8_t)(1u << ((off + i) & 7));
		memset((char *)out->data + (off + i) * w, 0, (size_t)w);
	}
	return 0;
}

int sl_expr_fuse(const sl_expr *e, const sl_batch *b, sl_col **out,
		 sl_err *err)
{
	fz_prog p;
	int64_t n = b->nrows, off, cap;
	sl_col *o = NULL;
	int k;
	*out = NULL;
	if (!sl_expr_fuse_root(e))
		return 0;
	p.n = 0;
	p.blk = NULL;
	k = compile(&p, e, b, err);
	if (k < 0) {
		prog_release(&p);
		return k == FZ_DECLINE ? 0 : (err && err->code ? err->code
							       : SL_EINTERNAL);
	}
	cap = n < FZ_CHUNK ? (n + 7) & ~(int64_t)7 : FZ_CHUNK;
	if (prog_buffers(&p, cap > 0 ? cap : 8) < 0 ||
	    (o = sl_col_new_raw(unalias(e)->rtype, n)) == NULL)
		goto oom;
	for (off = 0; off < n; off += FZ_CHUNK) {
		int64_t m = n - off < FZ_CHUNK ? n - off : FZ_CHUNK;
		run_chunk(&p, o, off, m);
		if (finish_chunk(&p, o, off, m) < 0)
			goto oom;
	}
	prog_release(&p);
	*out = o;
	return 1;
oom:
	sl_col_free(o);
	prog_release(&p);
	return sl_err_nomem(err);
}
