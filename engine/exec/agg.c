/*
 * agg: aggregate state arrays and their typed update loops (see agg.h).
 *
 * Every array is indexed by group id and grown (zero-filled) before an
 * update touches a new group.  String values kept by min/max/first/last are
 * copied into the aggregate's own arena: a batch's arena dies with the
 * batch, state must not point into it.  The arena only grows; min/max copy
 * only when the value changes, last scans a batch backwards so each group
 * copies once per batch.
 */
#include "exec/agg.h"
#include "exec/agg_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/bigarr.h"
#include "expr/aggfunc.h"
#include "expr/expr.h"
#include "exec/hash.h"


static void value_kind(sl_agg *a)
{
	switch (a->atype ? a->atype->kind : SL_NULLTYPE) {
	case SL_BOOLEAN:
		a->vk = SL_BOOLEAN;
		a->w = 1;
		break;
	case SL_INT:
	case SL_DATE:
		a->vk = SL_INT;
		a->w = 4;
		break;
	case SL_BIGINT:
	case SL_TIMESTAMP:
		a->vk = SL_BIGINT;
		a->w = 8;
		break;
	case SL_DOUBLE:
		a->vk = SL_DOUBLE;
		a->w = 8;
		break;
	case SL_STRING:
	case SL_BINARY:
		a->vk = SL_STRING;
		a->w = (int)sizeof(sl_str);
		break;
	default:
		a->vk = SL_NULLTYPE;
		a->w = 0;
		break;
	}
}

sl_agg *sl_agg_new(const char *fname, bool distinct, bool count_rows,
		   sl_type *const *argtypes, int nargs, double rsd, sl_err *err)
{
	sl_agg *a = calloc(1, sizeof *a);
	int i;
	if (a == NULL)
		goto nomem;
	a->fn = (sl_aggfn)sl_aggfn_of(fname);
	a->distinct = distinct || strcasecmp(fname, "count_distinct") == 0;
	a->count_rows = count_rows;
	a->nargs = count_rows ? 0 : nargs;
	a->atype = a->nargs > 0 ? sl_type_ref(argtypes[0]) : NULL;
	value_kind(a);
	if (a->fn == SL_AGGFN_SUM || a->fn == SL_AGGFN_AVG)
		a->vk = a->atype &&
				(a->atype->kind == SL_INT ||
				 a->atype->kind == SL_BIGINT) &&
				a->fn == SL_AGGFN_SUM
			    ? SL_BIGINT
			    : SL_DOUBLE;
	if (rsd <= 0)
		rsd = 0.05;
	a->p = (int)ceil(2.0 * log(1.106 / rsd) / log(2.0));
	if (a->p < 4)
		a->p = 4;
	a->rtype = sl_aggfn_result_type(fname, argtypes, a->nargs, fname, err);
	if (a->rtype == NULL) {
		sl_agg_free(a);
		return NULL;
	}
	if ((a->fn == SL_AGGFN_MINBY || a->fn == SL_AGGFN_MAXBY) &&
	    (a->ord = sl_agg_new(a->fn == SL_AGGFN_MAXBY ? "max" : "min", false,
				 false, argtypes + 1, 1, 0, err)) == NULL) {
		sl_agg_free(a);
		return NULL;
	}
	a->arena = sl_arena_new();
	if (a->arena == NULL)
		goto nomem;
	if (a->distinct && a->nargs > 0) {
		sl_type **dt = calloc((size_t)a->nargs + 1, sizeof *dt);
		if (dt == NULL)
			goto nomem;
		dt[0] = sl_type_prim(SL_INT);
		for (i = 0; i < a->nargs; i++)
			dt[i + 1] = argtypes[i];
		a->dset = sl_hash_groups_new(dt, a->nargs + 1, err);
		free(dt);
		if (a->dset == NULL) {
			sl_agg_free(a);
			return NULL;
		}
	}
	return a;
nomem:
	sl_agg_free(a);
	sl_err_nomem(err);
	return NULL;
}

void sl_agg_free(sl_agg *a)
{
	int i;
	if (a == NULL)
		return;
	sl_type_free(a->atype);
	sl_type_free(a->rtype);
	if (a->big) {
		size_t c = (size_t)a->cap;
		sl_bigarr_free(a->cnt, c * 8);
		sl_bigarr_free(a->isum, c * 8);
		sl_bigarr_free(a->dsum, c * 8);
		sl_bigarr_free(a->vals, c * (size_t)a->w);
		sl_bigarr_free(a->has, c);
		sl_bigarr_free(a->vnull, c);
		sl_bigarr_free(a->regs, c << a->p);
	} else {
		free(a->cnt);
		free(a->isum);
		free(a->dsum);
		free(a->vals);
		free(a->has);
		free(a->vnull);
		free(a->regs);
	}
	sl_arena_free(a->arena);
	sl_hash_groups_free(a->dset);
	for (i = 0; i < a->nchunks; i++) {
		sl_col_free(a->chunks[i]);
		free(a->cg[i]);
	}
	free(a->chunks);
	free(a->cg);
	sl_agg_free(a->ord);
	free(a);
}

/* Whether a's groups can be emptied in place (sl_agg_clear, forget): no
 * distinct set, chunks, ordering aggregate or kept strings. */
static bool clearable(const sl_agg *a)
{
	return !(a->distinct || a->dset != NULL || a->nchunks > 0 || a->ord ||
		 a->vk == SL_STRING || a->fn == SL_AGGFN_COLLECT);
}

bool sl_agg_clear(sl_agg *a, int64_t n)
{
	if (n > a->cap)
		n = a->cap;
	if (!clearable(a) || n < 0)
		return false;
	if (a->cnt)
		memset(a->cnt, 0, (size_t)n * 8);
	if (a->isum)
		memset(a->isum, 0, (size_t)n * 8);
	if (a->dsum)
		memset(a->dsum, 0, (size_t)n * 8);
	if (a->vals && a->w > 0)
		memset(a->vals, 0, (size_t)n * (size_t)a->w);
	if (a->has)
		memset(a->has, 0, (size_t)n);
	if (a->vnull)
		memset(a->vnull, 0, (size_t)n);
	if (a->regs)
		memset(a->regs, 0, (size_t)n << a->p);
	return true;
}

/* Group g (< cap) emptied, as a never-updated one. */
static inline void forget_one(sl_agg *a, int64_t g)
{
	if (a->cnt)
		a->cnt[g] = 0;
	if (a->isum)
		a->isum[g] = 0;
	if (a->dsum)
		a->dsum[g] = 0;
	if (a->vals && a->w > 0)
		memset(a->vals + (size_t)g * (size_t)a->w, 0, (size_t)a->w);
	if (a->has)
		a->has[g] = 0;
	if (a->vnull)
		a->vnull[g] = 0;
	if (a->regs)
		memset(a->regs + ((size_t)g << a->p), 0, (size_t)1 << a->p);
}

bool sl_agg_forget_many(sl_agg *a, const int32_t *ids, int64_t n)
{
	int64_t i;
	if (!clearable(a))
		return false;
	for (i = 0; i < n; i++)
		if (ids[i] >= 0 && ids[i] < a->cap)
			forget_one(a, ids[i]);
	return true;
}

bool sl_agg_forget(sl_agg *a, int64_t g)
{
	if (!clearable(a) || g < 0) /* the kinds it can empty */
		return false;
	if (g >= a->cap)
		return true; /* never updated */
	forget_one(a, g);
	return true;
}

size_t sl_agg_stash_size(const sl_agg *a)
{
	size_t n = 0;
	if (!clearable(a) || a->regs != NULL || a->ord != NULL)
		return 0;
	switch (a->fn) {
	case SL_AGGFN_COUNT: return 8;
	case SL_AGGFN_SUM: return 9;
	case SL_AGGFN_AVG: return 16;
	case SL_AGGFN_MIN:
	case SL_AGGFN_MAX:
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST: n = (size_t)a->w + 2; break;
	default: return 0;
	}
	return a->w > 0 && a->w <= 8 ? n : 0;
}

void sl_agg_stash(const sl_agg *a, int64_t g, unsigned char *p)
{
	switch (a->fn) {
	case SL_AGGFN_COUNT: memcpy(p, &a->cnt[g], 8); break;
	case SL_AGGFN_SUM:
		memcpy(p,
		       a->vk == SL_BIGINT ? (const void *)&a->isum[g]
					  : (const void *)&a->dsum[g],
		       8);
		p[8] = a->has[g];
		break;
	case SL_AGGFN_AVG:
		memcpy(p, &a->dsum[g], 8);
		memcpy(p + 8, &a->cnt[g], 8);
		break;
	default:
		memcpy(p, a->vals + (size_t)g * (size_t)a->w, (size_t)a->w);
		p[a->w] = a->has[g];
		p[a->w + 1] = a->vnull[g];
		break;
	}
}

void sl_agg_stash_many(const sl_agg *a, const int32_t *g, int64_t n,
		       unsigned char *p, size_t stride)
{
	int64_t i;
	switch (a->fn) {
	case SL_AGGFN_COUNT:
		for (i = 0; i < n; i++)
			memcpy(p + (size_t)i * stride, &a->cnt[g[i]], 8);
		break;
	case SL_AGGFN_SUM: { /* the sums as 8-byte words, whichever kind */
		const unsigned char *sum = a->vk == SL_BIGINT
					       ? (const unsigned char *)a->isum
					       : (const unsigned char *)a->dsum;
		const uint8_t *has = a->has;
		for (i = 0; i < n; i++) {
			unsigned char *o = p + (size_t)i * stride;
			memcpy(o, sum + (size_t)g[i] * 8, 8);
			o[8] = has[g[i]];
		}
		break;
	}
	default:
		for (i = 0; i < n; i++)
			sl_agg_stash(a, g[i], p + (size_t)i * stride);
		break;
	}
}

void sl_agg_unstash(sl_agg *a, int64_t g, const unsigned char *p)
{
	switch (a->fn) {
	case SL_AGGFN_COUNT: memcpy(&a->cnt[g], p, 8); break;
	case SL_AGGFN_SUM:
		memcpy(a->vk == SL_BIGINT ? (void *)&a->isum[g]
					  : (void *)&a->dsum[g],
		       p, 8);
		a->has[g] = p[8];
		break;
	case SL_AGGFN_AVG:
		memcpy(&a->dsum[g], p, 8);
		memcpy(&a->cnt[g], p + 8, 8);
		break;
	default:
		memcpy(a->vals + (size_t)g * (size_t)a->w, p, (size_t)a->w);
		a->has[g] = p[a->w];
		a->vnull[g] = p[a->w + 1];
		break;
	}
}

size_t sl_agg_bytes(const sl_agg *a)
{
	size_t per = 0;
	if (a->cnt)
		per += 8;
	if (a->isum)
		per += 8;
	if (a->dsum)
		per += 8;
	if (a->vals)
		per += (size_t)a->w;
	if (a->has)
		per += 1;
	if (a->vnull)
		per += 1;
	if (a->regs)
		per += (size_t)1 << a->p;
	return sizeof *a + per * (size_t)a->cap + sl_arena_used(a->arena) +
	       (a->dset ? sl_hash_groups_bytes(a->dset) : 0) +
	       (a->ord ? sl_agg_bytes(a->ord) : 0);
}

/* ------------------------------------------------------------ growth */

static int grow1(const sl_agg *a, void *pp, size_t elem, int64_t old,
		 int64_t cap)
{
	char **p = pp, *m;
	if (a->big) { /* fresh pages read as zero */
		m = sl_bigarr_resize(*p, (size_t)old * elem, (size_t)cap * elem,
				     1);
		if (m == NULL)
			return SL_ENOMEM;
		*p = m;
		return 0;
	}
	if ((m = realloc(*p, (size_t)cap * elem)) == NULL)
		return SL_ENOMEM;
	memset(m + (size_t)old * elem, 0, (size_t)(cap - old) * elem);
	*p = m;
	return 0;
}

static int grow(sl_agg *a, int64_t ngroups)
{
	int64_t cap = a->cap + a->cap / 2, old = a->cap;
	void *arr[3];
	size_t el[3];
	int n = 0, i, rc = 0;
	if (ngroups <= a->cap)
		return 0;
	if (cap < ngroups)
		cap = ngroups;
	if (cap < 16)
		cap = 16;
	switch (a->fn) {
	case SL_AGGFN_COUNT:
		arr[n] = &a->cnt;
		el[n++] = 8;
		break;
	case SL_AGGFN_SUM:
		arr[n] = a->vk == SL_BIGINT ? (void *)&a->isum : (void *)&a->dsum;
		el[n++] = 8;
		arr[n] = &a->has;
		el[n++] = 1;
		break;
	case SL_AGGFN_AVG:
		arr[n] = &a->dsum;
		el[n++] = 8;
		arr[n] = &a->cnt;
		el[n++] = 8;
		break;
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY: /* the ordering; the value as first */
		if ((rc = grow(a->ord, cap)) < 0)
			return rc;
		/* fall through */
	case SL_AGGFN_MIN:
	case SL_AGGFN_MAX:
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST:
		if (a->w > 0) {
			arr[n] = &a->vals;
			el[n++] = (size_t)a->w;
		}
		arr[n] = &a->has;
		el[n++] = 1;
		arr[n] = &a->vnull;
		el[n++] = 1;
		break;
	case SL_AGGFN_APPROX:
		arr[n] = &a->regs;
		el[n++] = (size_t)1 << a->p;
		break;
	case SL_AGGFN_COLLECT: break;
	}
	for (i = 0; i < n && rc == 0; i++)
		rc = grow1(a, arr[i], el[i], old, cap);
	if (rc < 0 && a->big) /* the grown ones back to a->cap (bigarr.h) */
		while (--i > 0) {
			void **p = arr[i - 1], *m = sl_bigarr_resize(
				       *p, (size_t)cap * el[i - 1],
				       (size_t)old * el[i - 1], 0);
			if (m != NULL)
				*p = m;
		}
	if (rc == 0)
		a->cap = cap;
	return rc;
}

void sl_agg_set_big(sl_agg *a)
{
	if (a->cap == 0) {
		a->big = true;
		if (a->ord != NULL)
			sl_agg_set_big(a->ord);
	}
}

/* ------------------------------------------------------------ updates */

static void upd_count(sl_agg *a, const int32_t *g, int64_t n,
		      sl_col *const *args)
{
	int64_t i;
	int k;
	bool nulls = false;
	for (k = 0; k < a->nargs; k++)
		nulls |= args[k]->nulls != NULL;
	if (!nulls) {
		/* unrolled: the loop's own compare and branch were as many
		 * instructions as the count (rows of one group in a row are
		 * still counted in order) */
		int64_t *cnt = a->cnt;
		for (i = 0; i + 4 <= n; i += 4) {
			cnt[g[i]]++;
			cnt[g[i + 1]]++;
			cnt[g[i + 2]]++;
			cnt[g[i + 3]]++;
		}
		for (; i < n; i++)
			cnt[g[i]]++;
		return;
	}
	for (i = 0; i < n; i++) {
		bool skip = false;
		for (k = 0; k < a->nargs; k++)
			skip |= sl_col_isnull(args[k], i);
		a->cnt[g[i]] += !skip;
	}
}

/* The typed (group, value) loop: X reads row i, BODY uses x and gi. */
#define ROWS(T, X, BODY)                                                       \
	do {                                                                   \
		if (c->nulls == NULL) {                                        \
			for (i = 0; i < n; i++) {                              \
				int32_t gi = g[i];                             \
				T x = (X);                                     \
				BODY;                                          \
			}                                                      \
		} else {                                                       \
			for (i = 0; i < n; i++) {                              \
				int32_t gi = g[i];                             \
				T x;                                           \
				if (sl_col_isnull(c, i))                       \
					continue;                              \
				x = (X);                                       \
				BODY;                                          \
			}                                                      \
		}                                                              \
	} while (0)

static int upd_sum(sl_agg *a, const int32_t *g, int64_t n, const sl_col *c0,
		   sl_err *err)
{
	const sl_col *c = c0;
	sl_col *cast = NULL;
	int64_t i;
	if (c->type->kind == SL_NULLTYPE)
		return 0;
	if (c->type->kind == SL_STRING) {
		cast = sl_cast_col(c, sl_type_prim(SL_DOUBLE), err);
		if (cast == NULL)
			return err ? err->code : SL_ENOMEM;
		c = cast;
	}
	if (a->fn == SL_AGGFN_AVG) {
		if (c->type->kind == SL_INT)
			ROWS(double, sl_col_i32(c)[i],
			     (a->dsum[gi] += x, a->cnt[gi]++));
		else if (c->type->kind == SL_BIGINT)
			ROWS(double, (double)sl_col_i64(c)[i],
			     (a->dsum[gi] += x, a->cnt[gi]++));
		else
			ROWS(double, sl_col_f64(c)[i],
			     (a->dsum[gi] += x, a->cnt[gi]++));
	} else if (a->vk == SL_BIGINT && c->type->kind == SL_INT) {
		ROWS(int64_t, sl_col_i32(c)[i],
		     (a->isum[gi] =
			  (int64_t)((uint64_t)a->isum[gi] + (uint64_t)x),
		      a->has[gi] = 1));
	} else if (a->vk == SL_BIGINT) {
		ROWS(int64_t, sl_col_i64(c)[i],
		     (a->isum[gi] =
			  (int64_t)((uint64_t)a->isum[gi] + (uint64_t)x),
		      a->has[gi] = 1));
	} else if (c->nulls == NULL) {
		/* the arrays in locals: stores through dsum and has would
		 * otherwise reload them (and the column) every row */
		const double *xs = sl_col_f64(c);
		double *ds = a->dsum;
		uint8_t *hs = a->has;
		/* unrolled as upd_count; the adds stay in row order, so a
		 * group's sum rounds as before */
		for (i = 0; i + 2 <= n; i += 2) {
			int32_t g0 = g[i], g1 = g[i + 1];
			ds[g0] += xs[i];
			hs[g0] = 1;
			ds[g1] += xs[i + 1];
			hs[g1] = 1;
		}
		for (; i < n; i++) {
			ds[g[i]] += xs[i];
			hs[g[i]] = 1;
		}
	} else {
		ROWS(double, sl_col_f64(c)[i],
		     (a->dsum[gi] += x, a->has[gi] = 1));
	}
	sl_col_free(cast);
	return 0;
}

/* Spark's ordering of doubles: NaN above everything, NaN = NaN. */
static inline bool dless(double x, double y)
{
	if (isnan(y))
		return !isnan(x);
	return !isnan(x) && x < y;
}

static inline int scmp(sl_str x, sl_str y)
{
	size_t m = x.len < y.len ? x.len : y.len;
	int r = memcmp(x.p, y.p, m);
	return r != 0 ? r : (x.len > y.len) - (x.len < y.len);
}

static int keep_str(sl_agg *a, sl_str *dst, sl_str v)
{
	if (v.len == 0) {
		dst->p = "";
		dst->len = 0;
		return 0;
	}
	dst->p = sl_arena_dup(a->arena, v.p, v.len);
	dst->len = v.len;
	return dst->p == NULL ? SL_ENOMEM : 0;
}

#define MINMAX(T, X, LESS)                                                     \
	ROWS(T, X, {                                                           \
		T *cur = &((T *)a->vals)[gi];                                  \
		if (!a->has[gi] || (mx ? LESS(*cur, x) : LESS(x, *cur))) {     \
			*cur = x;                                              \
			a->has[gi] = 1;                                        \
		}                                                              \
	})
#define LT(x, y)  ((x) < (y))
#define SLT(x, y) (scmp((x), (y)) < 0)

static int upd_minmax(sl_agg *a, const int32_t *g, int64_t n, const sl_col *c)
{
	bool mx = a->fn == SL_AGGFN_MAX;
	int64_t i;
	switch (a->vk) {
	case SL_BOOLEAN: MINMAX(uint8_t, sl_col_u8(c)[i], LT); break;
	case SL_INT: MINMAX(int32_t, sl_col_i32(c)[i], LT); break;
	case SL_BIGINT: MINMAX(int64_t, sl_col_i64(c)[i], LT); break;
	case SL_DOUBLE: MINMAX(double, sl_col_f64(c)[i], dless); break;
	case SL_STRING: {
		/* keep pointers into the batch, then copy the winners once */
		int64_t *touched = malloc((size_t)(n + 1) * sizeof *touched);
		int64_t nt = 0, k;
		sl_str *v = (sl_str *)a->vals;
		if (touched == NULL)
			return SL_ENOMEM;
		ROWS(sl_str, sl_col_str(c)[i], {
			if (!a->has[gi] ||
			    (mx ? SLT(v[gi], x) : SLT(x, v[gi]))) {
				if (a->has[gi] != 2)
					touched[nt++] = gi;
				v[gi] = x;
				a->has[gi] = 2;
			}
		});
		for (k = 0; k < nt; k++) {
			a->has[touched[k]] = 1;
			if (keep_str(a, &v[touched[k]], v[touched[k]]) < 0) {
				free(touched);
				return SL_ENOMEM;
			}
		}
		free(touched);
		break;
	}
	default: break;
	}
	return 0;
}

/* Store row i of c as group gi's value (first/last). */
static int put_value(sl_agg *a, int32_t gi, const sl_col *c, int64_t i)
{
	a->has[gi] = 1;
	a->vnull[gi] = sl_col_isnull(c, i);
	if (a->w == 0)
		return 0;
	if (a->vnull[gi]) {
		memset(a->vals + (size_t)gi * (size_t)a->w, 0, (size_t)a->w);
		return 0;
	}
	if (a->vk == SL_STRING)
		return keep_str(a, &((sl_str *)a->vals)[gi], sl_col_str(c)[i]);
	memcpy(a->vals + (size_t)gi * (size_t)a->w,
	       (const char *)c->data + i * a->w, (size_t)a->w);
	return 0;
}

static int upd_firstlast(sl_agg *a, const int32_t *g, int64_t n,
			 int64_t ngroups, const sl_col *c)
{
	int64_t i;
	uint8_t *seen;
	if (a->fn == SL_AGGFN_FIRST) {
		for (i = 0; i < n; i++)
			if (!a->has[g[i]] && put_value(a, g[i], c, i) < 0)
				return SL_ENOMEM;
		return 0;
	}
	/* last: scan backwards, one store per group per batch */
	seen = calloc((size_t)ngroups + 1, 1);
	if (seen == NULL)
		return SL_ENOMEM;
	for (i = n - 1; i >= 0; i--) {
		if (seen[g[i]])
			continue;
		seen[g[i]] = 1;
		if (put_value(a, g[i], c, i) < 0) {
			free(seen);
			return SL_ENOMEM;
		}
	}
	free(seen);
	return 0;
}

/* Compare a value x (raw bytes of o's kind, or xs for a string) with
 * group g's kept one: <0, 0, >0 (Spark's ordering; NaN largest). */
static int cmp_kept(const sl_agg *o, int64_t g, const char *x, sl_str xs)
{
	const char *cur = o->vals + (size_t)g * (size_t)o->w;
	switch (o->vk) {
	case SL_BOOLEAN:
		return (*(const uint8_t *)x > *(const uint8_t *)cur) -
		       (*(const uint8_t *)x < *(const uint8_t *)cur);
	case SL_INT: {
		int32_t u, v;
		memcpy(&u, x, 4);
		memcpy(&v, cur, 4);
		return (u > v) - (u < v);
	}
	case SL_BIGINT: {
		int64_t u, v;
		memcpy(&u, x, 8);
		memcpy(&v, cur, 8);
		return (u > v) - (u < v);
	}
	case SL_DOUBLE: {
		double u, v;
		memcpy(&u, x, 8);
		memcpy(&v, cur, 8);
		return dless(v, u) ? 1 : dless(u, v) ? -1 : 0;
	}
	case SL_STRING: return scmp(xs, ((const sl_str *)o->vals)[g]);
	default: return 0;
	}
}

/* Group g keeps the non-NULL value x (raw bytes, or xs for a string). */
static int set_kept(sl_agg *o, int64_t g, const char *x, sl_str xs)
{
	o->has[g] = 1;
	o->vnull[g] = 0;
	if (o->w == 0)
		return 0;
	if (o->vk == SL_STRING)
		return keep_str(o, &((sl_str *)o->vals)[g], xs);
	memcpy(o->vals + (size_t)g * (size_t)o->w, x, (size_t)o->w);
	return 0;
}

/* min_by(v, c) / max_by(v, c): rows with a NULL ordering are skipped; a
 * tie takes the later row (Spark's MaxMinBy keeps the old value only
 * when it is strictly better).  NEEDSWORK: one switch per row in
 * cmp_kept; fine for these rarely hot aggregates. */
static int upd_by(sl_agg *a, const int32_t *g, int64_t n, const sl_col *v,
		  const sl_col *c)
{
	sl_agg *o = a->ord;
	bool mx = a->fn == SL_AGGFN_MAXBY;
	int64_t i;
	if (o->w == 0) /* a NULL-typed ordering never picks a row */
		return 0;
	for (i = 0; i < n; i++) {
		int32_t gi = g[i];
		const char *x =
		    (const char *)c->data + (size_t)i * (size_t)o->w;
		sl_str xs = { "", 0 };
		if (sl_col_isnull(c, i))
			continue;
		if (o->vk == SL_STRING)
			xs = sl_col_str(c)[i];
		if (o->has[gi]) {
			int cm = cmp_kept(o, gi, x, xs);
			if (mx ? cm < 0 : cm > 0)
				continue;
		}
		if (set_kept(o, gi, x, xs) < 0 || put_value(a, gi, v, i) < 0)
			return SL_ENOMEM;
	}
	return 0;
}

static uint64_t value_hash(const sl_col *c, int64_t i)
{
	int32_t v32;
	int64_t v64;
	double d;
	switch (c->type->kind) {
	case SL_BOOLEAN:
		v32 = sl_col_u8(c)[i];
		return sl_hash_xxh64(&v32, 4, 42);
	case SL_INT:
	case SL_DATE: return sl_hash_xxh64(&sl_col_i32(c)[i], 4, 42);
	case SL_DOUBLE:
		d = sl_col_f64(c)[i];
		if (d == 0)
			d = 0;
		return sl_hash_xxh64(&d, 8, 42);
	case SL_STRING:
	case SL_BINARY:
		return sl_hash_xxh64(sl_col_str(c)[i].p, sl_col_str(c)[i].len,
				     42);
	default: v64 = sl_col_i64(c)[i]; return sl_hash_xxh64(&v64, 8, 42);
	}
}

static void upd_approx(sl_agg *a, const int32_t *g, int64_t n, const sl_col *c)
{
	int64_t i;
	int p = a->p;
	size_t m = (size_t)1 << p;
	uint64_t pad = UINT64_C(1) << (p - 1);
	if (c->type->kind == SL_NULLTYPE)
		return;
	for (i = 0; i < n; i++) {
		uint64_t h;
		size_t idx;
		uint8_t r, *reg;
		if (sl_col_isnull(c, i))
			continue;
		h = value_hash(c, i);
		idx = (size_t)(h >> (64 - p));
		r = (uint8_t)(__builtin_clzll((h << p) | pad) + 1);
		reg = &a->regs[(size_t)g[i] * m + idx];
		if (r > *reg)
			*reg = r;
	}
}

static int upd_collect(sl_agg *a, const int32_t *g, int64_t n, const sl_col *c)
{
	int64_t i, k = 0;
	int64_t *idx = malloc((size_t)(n + 1) * sizeof *idx);
	int32_t *gg = malloc((size_t)(n + 1) * sizeof *gg);
	sl_col *keep;
	if (idx == NULL || gg == NULL)
		goto nomem;
	for (i = 0; i < n; i++)
		if (!sl_col_isnull(c, i)) {
			gg[k] = g[i];
			idx[k++] = i;
		}
	keep = sl_col_take(c, idx, k);
	if (keep == NULL)
		goto nomem;
	if (a->nchunks == a->ccap) {
		int cap = a->ccap ? 2 * a->ccap : 8;
		sl_col **ch = realloc(a->chunks, (size_t)cap * sizeof *ch);
		int32_t **cg;
		if (ch != NULL)
			a->chunks = ch;
		cg = realloc(a->cg, (size_t)cap * sizeof *cg);
		if (cg != NULL)
			a->cg = cg;
		if (ch == NULL || cg == NULL) {
			sl_col_free(keep);
			goto nomem;
		}
		a->ccap = cap;
	}
	a->chunks[a->nchunks] = keep;
	a->cg[a->nchunks++] = gg;
	free(idx);
	return 0;
nomem:
	free(idx);
	free(gg);
	return SL_ENOMEM;
}

static int update_core(sl_agg *a, const int32_t *g, int64_t n, int64_t ngroups,
		       sl_col *const *args, sl_err *err)
{
	int rc = 0;
	switch (a->fn) {
	case SL_AGGFN_COUNT: upd_count(a, g, n, args); break;
	case SL_AGGFN_SUM:
	case SL_AGGFN_AVG: rc = upd_sum(a, g, n, args[0], err); break;
	case SL_AGGFN_MIN:
	case SL_AGGFN_MAX: rc = upd_minmax(a, g, n, args[0]); break;
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST:
		rc = upd_firstlast(a, g, n, ngroups, args[0]);
		break;
	case SL_AGGFN_APPROX: upd_approx(a, g, n, args[0]); break;
	case SL_AGGFN_COLLECT: rc = upd_collect(a, g, n, args[0]); break;
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY: rc = upd_by(a, g, n, args[0], args[1]); break;
	}
	if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	return rc;
}

/* DISTINCT: keep only the first occurrence of each (group, value). */
static int update_distinct(sl_agg *a, const int32_t *g, int64_t n,
			   int64_t ngroups, sl_col *const *args, sl_err *err)
{
	sl_col *gc = sl_col_new(sl_type_prim(SL_INT), n);
	sl_col **cols = calloc((size_t)a->nargs + 1, sizeof *cols);
	sl_col **sub = calloc((size_t)a->nargs + 1, sizeof *sub);
	int32_t *ids = malloc((size_t)(n + 1) * sizeof *ids);
	int32_t *g2 = malloc((size_t)(n + 1) * sizeof *g2);
	int64_t *idx = malloc((size_t)(n + 1) * sizeof *idx);
	int64_t i, k = 0, next = sl_hash_groups_count(a->dset);
	int j, rc = SL_ENOMEM;
	if (!gc || !cols || !sub || !ids || !g2 || !idx)
		goto out;
	memcpy(gc->data, g, (size_t)n * sizeof *g);
	cols[0] = gc;
	for (j = 0; j < a->nargs; j++)
		cols[j + 1] = args[j];
	rc = sl_hash_groups_insert(a->dset, cols, n, false, ids, err);
	if (rc < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (ids[i] == next) {
			next++;
			g2[k] = g[i];
			idx[k++] = i;
		}
	rc = SL_ENOMEM;
	for (j = 0; j < a->nargs; j++)
		if ((sub[j] = sl_col_take(args[j], idx, k)) == NULL)
			goto out;
	rc = update_core(a, g2, k, ngroups, sub, err);
out:
	if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	for (j = 0; sub && j < a->nargs; j++)
		sl_col_free(sub[j]);
	sl_col_free(gc);
	free(cols);
	free(sub);
	free(ids);
	free(g2);
	free(idx);
	return rc;
}

int sl_agg_update(sl_agg *a, const int32_t *gids, int64_t n, int64_t ngroups,
		  sl_col *const *args, sl_err *err)
{
	if (grow(a, ngroups) < 0)
		return sl_err_nomem(err);
	if (a->distinct && a->nargs > 0)
		return update_distinct(a, gids, n, ngroups, args, err);
	return update_core(a, gids, n, ngroups, args, err);
}

/* ------------------------------------------------------------ results */

static const double hll_thresholds[] = { 10,    20,    40,    80,     220,
					 400,   900,   1800,  3100,   6500,
					 11500, 20000, 50000, 120000, 350000 };

/* NEEDSWORK: HLL++'s empirical bias correction (Spark applies it for
 * e < 5m) is not implemented; see agg.h. */
static int64_t hll_estimate(const sl_agg *a, int64_t gi)
{
	int p = a->p;
	double m = (double)((int64_t)1 << p), z = 0, v = 0, e, alpha;
	const uint8_t *r = a->regs + (size_t)gi * ((size_t)1 << p);
	int64_t j;
	for (j = 0; j < (int64_t)m; j++) {
		z += ldexp(1.0, -(int)r[j]);
		v += r[j] == 0;
	}
	alpha = p == 4   ? 0.673
		: p == 5 ? 0.697
		: p == 6 ? 0.709
			 : 0.7213 / (1.0 + 1.079 / m);
	e = alpha * m * m / z;
	if (v > 0) {
		double h = m * log(m / v);
		if (p - 4 < 15 && h <= hll_thresholds[p - 4])
			e = h;
	}
	return (int64_t)llround(e);
}

static sl_col *collect_result(sl_agg *a, int64_t from, int64_t n)
{
	int64_t total = 0, i, k, base = 0;
	int32_t *off = calloc((size_t)n + 2, sizeof *off);
	int64_t *eidx = NULL, *fill = calloc((size_t)n + 1, sizeof *fill);
	sl_col *all = NULL, *el = NULL, *o = NULL;
	int c;
	if (off == NULL || fill == NULL)
		goto out;
	for (c = 0; c < a->nchunks; c++)
		for (i = 0; i < a->chunks[c]->len; i++)
			if (a->cg[c][i] >= from && a->cg[c][i] < from + n)
				off[a->cg[c][i] - from + 1]++;
	for (k = 0; k < n; k++)
		off[k + 1] += off[k];
	total = off[n];
	eidx = malloc((size_t)(total + 1) * sizeof *eidx);
	if (eidx == NULL)
		goto out;
	for (c = 0; c < a->nchunks; c++) {
		for (i = 0; i < a->chunks[c]->len; i++) {
			int64_t g = a->cg[c][i] - from;
			if (g >= 0 && g < n)
				eidx[off[g] + fill[g]++] = base + i;
		}
		base += a->chunks[c]->len;
	}
	if (a->nchunks > 0) {
		all = sl_col_concat(a->chunks, a->nchunks);
		el = all ? sl_col_take(all, eidx, total) : NULL;
	} else {
		el = sl_col_new(a->atype, 0);
	}
	if (el != NULL)
		o = sl_col_array_new(a->rtype, n, off, el);
out:
	sl_col_free(all);
	free(off);
	free(fill);
	free(eidx);
	return o;
}

static int fill_values(sl_agg *a, sl_col *c, int64_t from, int64_t n)
{
	int64_t i;
	for (i = 0; i < n; i++) {
		int64_t g = from + i;
		bool null = g >= a->cap || !a->has[g] ||
			    (a->vnull != NULL && a->vnull[g]);
		if (null) {
			if (sl_col_set_null(c, i) < 0)
				return SL_ENOMEM;
			continue;
		}
		if (a->fn == SL_AGGFN_SUM && a->vk == SL_BIGINT)
			sl_col_i64(c)[i] = a->isum[g];
		else if (a->fn == SL_AGGFN_SUM)
			sl_col_f64(c)[i] = a->dsum[g];
		else if (a->vk == SL_STRING) {
			sl_str v = ((sl_str *)a->vals)[g];
			if (sl_col_set_str(c, i, v.p, v.len) < 0)
				return SL_ENOMEM;
		} else if (a->w > 0) {
			memcpy((char *)c->data + i * a->w,
			       a->vals + (size_t)g * (size_t)a->w,
			       (size_t)a->w);
		}
	}
	return 0;
}

sl_col *sl_agg_result(sl_agg *a, int64_t from, int64_t n, sl_err *err)
{
	sl_col *c;
	int64_t i;
	int rc = 0;
	if (grow(a, from + n) < 0) {
		sl_err_nomem(err);
		return NULL;
	}
	if (a->fn == SL_AGGFN_COLLECT) {
		c = collect_result(a, from, n);
		if (c == NULL)
			sl_err_nomem(err);
		return c;
	}
	c = a->rtype->kind == SL_NULLTYPE ? sl_col_new_null(a->rtype, n)
					  : sl_col_new(a->rtype, n);
	if (c == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	switch (a->fn) {
	case SL_AGGFN_COUNT:
		if (n > 0)
			memcpy(c->data, a->cnt + from, (size_t)n * 8);
		break;
	case SL_AGGFN_AVG:
		for (i = 0; i < n && rc == 0; i++) {
			if (a->cnt[from + i] == 0)
				rc = sl_col_set_null(c, i);
			else
				sl_col_f64(c)[i] = a->dsum[from + i] /
						   (double)a->cnt[from + i];
		}
		break;
	case SL_AGGFN_APPROX:
		for (i = 0; i < n; i++)
			sl_col_i64(c)[i] = hll_estimate(a, from + i);
		break;
	default:
		if (a->rtype->kind != SL_NULLTYPE)
			rc = fill_values(a, c, from, n);
		break;
	}
	if (rc < 0) {
		sl_col_free(c);
		sl_err_nomem(err);
		return NULL;
	}
	return c;
}

/* ------------------------------------------- streaming: save / merge */

bool sl_agg_streamable(const sl_agg *a)
{
	return a->fn != SL_AGGFN_COLLECT && !(a->distinct && a->nargs > 0);
}

/* Counts and integer sums as LEB128 varints (zigzag for sums): most are
 * small, and two bytes less per group is what keeps a count + sum group
 * under BENCH.md's 64 bytes in the store. */
static void put_uvar(sl_buf *out, uint64_t v)
{
	unsigned char b[10];
	int n = 0;
	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	sl_buf_add(out, b, (size_t)n);
}

static int get_uvar(const unsigned char *p, size_t n, size_t *at, uint64_t *v)
{
	int shift = 0;
	*v = 0;
	while (*at < n && shift < 64) {
		unsigned char b = p[(*at)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return SL_EINTERNAL;
}

#define zigzag sl_agg_zigzag

static int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static void save_value(const sl_agg *a, int64_t g, sl_buf *out)
{
	if (a->vk == SL_STRING) {
		sl_str v = ((const sl_str *)a->vals)[g];
		sl_buf_add(out, &v.len, 4);
		sl_buf_add(out, v.p, v.len);
	} else if (a->w > 0) {
		sl_buf_add(out, a->vals + (size_t)g * (size_t)a->w,
			   (size_t)a->w);
	}
}

int sl_agg_save(const sl_agg *a, int64_t g, sl_buf *out, sl_err *err)
{
	bool has = g < a->cap;
	uint8_t f;
	if (!sl_agg_streamable(a))
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "agg: %s is not supported in a streaming aggregation",
		    a->distinct ? "a DISTINCT aggregate" : "collect_list");
	switch (a->fn) {
	case SL_AGGFN_COUNT:
		put_uvar(out, has ? (uint64_t)a->cnt[g] : 0);
		break;
	case SL_AGGFN_SUM:
		f = has && a->has[g];
		sl_buf_addc(out, (char)f);
		if (f && a->vk == SL_BIGINT)
			put_uvar(out, zigzag(a->isum[g]));
		else if (f)
			sl_buf_add(out, &a->dsum[g], 8);
		break;
	case SL_AGGFN_AVG:
		sl_buf_add(out, has ? &a->dsum[g] : &(double){ 0 }, 8);
		put_uvar(out, has ? (uint64_t)a->cnt[g] : 0);
		break;
	case SL_AGGFN_MIN:
	case SL_AGGFN_MAX:
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST:
		f = (uint8_t)((has && a->has[g]) |
			      (has && a->vnull[g] ? 2 : 0));
		sl_buf_addc(out, (char)f);
		if (f == 1)
			save_value(a, g, out);
		break;
	case SL_AGGFN_APPROX: {
		size_t m = (size_t)1 << a->p;
		if (has)
			sl_buf_add(out, a->regs + (size_t)g * m, m);
		else
			sl_buf_pad(out, 0, m);
		break;
	}
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY: /* the value as first/last, then the
				       ordering as min/max */
		f = (uint8_t)((has && a->has[g]) |
			      (has && a->vnull[g] ? 2 : 0));
		sl_buf_addc(out, (char)f);
		if (f == 1)
			save_value(a, g, out);
		return sl_agg_save(a->ord, g, out, err);
	case SL_AGGFN_COLLECT: break;
	}
	return sl_buf_failed(out) ? sl_err_nomem(err) : 0;
}

/* ---- the same bytes without sl_buf calls (the merge's hot loop) ---- */

size_t sl_agg_save_max(const sl_agg *a)
{
	if (!sl_agg_streamable(a))
		return 0;
	switch (a->fn) {
	case SL_AGGFN_COUNT: return 10;
	case SL_AGGFN_SUM: return 11;
	case SL_AGGFN_AVG: return 18;
	case SL_AGGFN_MIN:
	case SL_AGGFN_MAX:
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST: return a->vk == SL_STRING ? 0 : 1 + (size_t)a->w;
	default: return 0; /* min_by/max_by, approx: sl_agg_save */
	}
}

#define raw_uvar sl_agg_raw_uvar
#define save_raw sl_agg_save_raw_at

size_t sl_agg_save_raw(const sl_agg *a, int64_t g, unsigned char *p)
{
	return save_raw(a, g, p);
}

size_t sl_aggs_save_raw(sl_agg *const *a, int n, int64_t g, unsigned char *p)
{
	size_t at = 0;
	int i;
	for (i = 0; i < n; i++)
		at += save_raw(a[i], g, p + at);
	return at;
}


/* Read one kept value for group g into tmp (strings point into p). */
static int read_value(const sl_agg *a, const unsigned char *p, size_t n,
		      size_t *at, char *tmp, sl_str *s)
{
	if (a->vk == SL_STRING) {
		uint32_t len;
		if (*at + 4 > n)
			return SL_EINTERNAL;
		memcpy(&len, p + *at, 4);
		if (*at + 4 + len > n)
			return SL_EINTERNAL;
		s->p = (const char *)p + *at + 4;
		s->len = len;
		*at += 4 + (size_t)len;
		return 0;
	}
	if (*at + (size_t)a->w > n)
		return SL_EINTERNAL;
	memcpy(tmp, p + *at, (size_t)a->w);
	*at += (size_t)a->w;
	return 0;
}

/* Is the saved value x (raw bytes or string) better than group g's? */
static bool better(const sl_agg *a, int64_t g, const char *x, sl_str xs)
{
	int c = cmp_kept(a, g, x, xs);
	return a->fn == SL_AGGFN_MAX ? c > 0 : c < 0;
}

static int merge_kept(sl_agg *a, int64_t g, const unsigned char *p, size_t n,
		      size_t *at)
{
	uint8_t f;
	char tmp[8];
	sl_str xs = { "", 0 };
	bool take;
	if (*at + 1 > n)
		return SL_EINTERNAL;
	f = p[(*at)++];
	if ((f & 1) && !(f & 2) && a->w > 0 &&
	    read_value(a, p, n, at, tmp, &xs) < 0)
		return SL_EINTERNAL;
	if (!(f & 1))
		return 0;
	if (a->fn == SL_AGGFN_FIRST || a->fn == SL_AGGFN_LAST)
		take = a->fn == SL_AGGFN_FIRST || !a->has[g];
	else /* min/max never keep a NULL */
		take = !a->has[g] || (a->w > 0 && better(a, g, tmp, xs));
	if (!take)
		return 0;
	a->has[g] = 1;
	a->vnull[g] = (f & 2) != 0;
	if (a->w == 0)
		return 0;
	if (a->vnull[g]) {
		memset(a->vals + (size_t)g * (size_t)a->w, 0, (size_t)a->w);
		return 0;
	}
	if (a->vk == SL_STRING)
		return keep_str(a, &((sl_str *)a->vals)[g], xs);
	memcpy(a->vals + (size_t)g * (size_t)a->w, tmp, (size_t)a->w);
	return 0;
}

/* min_by/max_by: the saved buffer holds earlier rows, so it wins only
 * when its ordering is strictly better (a tie keeps the later row). */
static int merge_by(sl_agg *a, int64_t g, const unsigned char *p, size_t n,
		    size_t *at)
{
	sl_agg *o = a->ord;
	uint8_t f, fo;
	char tmp[8], otmp[8];
	sl_str xs = { "", 0 }, oxs = { "", 0 };
	if (*at + 1 > n)
		return SL_EINTERNAL;
	f = p[(*at)++];
	if ((f & 1) && !(f & 2) && a->w > 0 &&
	    read_value(a, p, n, at, tmp, &xs) < 0)
		return SL_EINTERNAL;
	if (*at + 1 > n)
		return SL_EINTERNAL;
	fo = p[(*at)++];
	if ((fo & 1) && o->w > 0 && read_value(o, p, n, at, otmp, &oxs) < 0)
		return SL_EINTERNAL;
	if (!(fo & 1) || !(f & 1) ||
	    (o->has[g] && (o->w == 0 || !better(o, g, otmp, oxs))))
		return 0;
	if (set_kept(o, g, otmp, oxs) < 0)
		return SL_ENOMEM;
	a->has[g] = 1;
	a->vnull[g] = (f & 2) != 0;
	if (a->w == 0)
		return 0;
	if (a->vnull[g]) {
		memset(a->vals + (size_t)g * (size_t)a->w, 0, (size_t)a->w);
		return 0;
	}
	if (a->vk == SL_STRING)
		return keep_str(a, &((sl_str *)a->vals)[g], xs);
	memcpy(a->vals + (size_t)g * (size_t)a->w, tmp, (size_t)a->w);
	return 0;
}

static int merge_core(sl_agg *a, int64_t g, const unsigned char *p, size_t n,
		      size_t *at)
{
	uint64_t u;
	double d;
	size_t m, j;
	switch (a->fn) {
	case SL_AGGFN_COUNT:
		if (get_uvar(p, n, at, &u) < 0)
			return SL_EINTERNAL;
		a->cnt[g] += (int64_t)u;
		return 0;
	case SL_AGGFN_SUM:
		if (*at + 1 > n)
			return SL_EINTERNAL;
		if (!p[(*at)++])
			return 0;
		if (a->vk == SL_BIGINT) {
			if (get_uvar(p, n, at, &u) < 0)
				return SL_EINTERNAL;
			a->isum[g] = (int64_t)((uint64_t)a->isum[g] +
					       (uint64_t)unzigzag(u));
		} else {
			if (*at + 8 > n)
				return SL_EINTERNAL;
			memcpy(&d, p + *at, 8);
			*at += 8;
			a->dsum[g] += d;
		}
		a->has[g] = 1;
		return 0;
	case SL_AGGFN_AVG:
		if (*at + 8 > n)
			return SL_EINTERNAL;
		memcpy(&d, p + *at, 8);
		*at += 8;
		if (get_uvar(p, n, at, &u) < 0)
			return SL_EINTERNAL;
		a->dsum[g] += d;
		a->cnt[g] += (int64_t)u;
		return 0;
	case SL_AGGFN_APPROX:
		m = (size_t)1 << a->p;
		if (*at + m > n)
			return SL_EINTERNAL;
		for (j = 0; j < m; j++) {
			uint8_t *r = &a->regs[(size_t)g * m + j];
			if (p[*at + j] > *r)
				*r = p[*at + j];
		}
		*at += m;
		return 0;
	case SL_AGGFN_COLLECT: return SL_EINTERNAL;
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY: return merge_by(a, g, p, n, at);
	default: return merge_kept(a, g, p, n, at);
	}
}

/* The error of a merge that failed with rc. */
static int merge_err(const sl_agg *a, int rc, sl_err *err)
{
	if (rc == SL_ENOMEM)
		return sl_err_nomem(err);
	return sl_err_set(err, SL_EINTERNAL,
			  "state: a stored aggregation buffer of %s is damaged",
			  a->fn == SL_AGGFN_COUNT ? "count"
			  : a->fn == SL_AGGFN_SUM ? "sum"
			  : a->fn == SL_AGGFN_AVG ? "avg"
						  : "an aggregate");
}

int sl_agg_merge(sl_agg *a, int64_t g, const void *p, size_t n, size_t *used,
		 sl_err *err)
{
	size_t at = 0;
	int rc;
	if (!sl_agg_streamable(a))
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "agg: %s is not supported in a streaming aggregation",
		    a->distinct ? "a DISTINCT aggregate" : "collect_list");
	if (grow(a, g + 1) < 0)
		return sl_err_nomem(err);
	rc = merge_core(a, g, p, n, &at);
	if (used != NULL)
		*used = at;
	return rc < 0 ? merge_err(a, rc, err) : 0;
}

int sl_agg_reserve(sl_agg *a, int64_t ngroups, sl_err *err)
{
	return grow(a, ngroups) < 0 ? sl_err_nomem(err) : 0;
}

/* One varint of p[*at..n): the one- and two-byte ones (counts and
 * sums of a window's groups) without get_uvar's loop. */
static inline int uvar_at(const unsigned char *p, size_t n, size_t *at,
			  uint64_t *v)
{
	size_t i = *at;
	if (i < n && p[i] < 0x80) {
		*v = p[i];
		*at = i + 1;
		return 0;
	}
	if (i + 1 < n && p[i + 1] < 0x80) {
		*v = (uint64_t)(p[i] & 0x7f) | (uint64_t)p[i + 1] << 7;
		*at = i + 2;
		return 0;
	}
	return get_uvar(p, n, at, v);
}

/* raw_uvar with the one- and two-byte cases first. */
static inline size_t raw_uvar_short(unsigned char *p, uint64_t v)
{
	if (v < 0x80) {
		p[0] = (unsigned char)v;
		return 1;
	}
	if (v < 0x4000) {
		p[0] = (unsigned char)(v | 0x80);
		p[1] = (unsigned char)(v >> 7);
		return 2;
	}
	return raw_uvar(p, v);
}

/* sl_agg_merge_raw of the other aggregates (kept out of line: the fast
 * paths below then need no saved registers). */
static __attribute__((noinline)) int
merge_raw_slow(sl_agg *a, int64_t g, const unsigned char *p, size_t n,
	       size_t *used, unsigned char *out, sl_err *err)
{
	size_t at = 0;
	int rc = merge_core(a, g, p, n, &at);
	if (rc < 0)
		return merge_err(a, rc, err);
	*used = at;
	return (int)sl_agg_save_raw(a, g, out);
}

int sl_agg_merge_raw(sl_agg *a, int64_t g, const unsigned char *p, size_t n,
		     size_t *used, unsigned char *out, sl_err *err)
{
	size_t at = 0;
	uint64_t u;
	if (a->fn == SL_AGGFN_COUNT) {
		if (uvar_at(p, n, &at, &u) < 0)
			return merge_err(a, SL_EINTERNAL, err);
		a->cnt[g] += (int64_t)u;
		*used = at;
		return (int)raw_uvar_short(out, (uint64_t)a->cnt[g]);
	}
	if (a->fn != SL_AGGFN_SUM)
		return merge_raw_slow(a, g, p, n, used, out, err);
	if (n == 0)
		return merge_err(a, SL_EINTERNAL, err);
	if (a->vk != SL_BIGINT) { /* a DOUBLE sum: has byte [+ double] */
		double d;
		if (p[0] && n < 9)
			return merge_err(a, SL_EINTERNAL, err);
		if (p[0]) {
			memcpy(&d, p + 1, 8);
			a->dsum[g] += d; /* as merge_core: current + saved */
			a->has[g] = 1;
		}
		*used = p[0] ? 9 : 1;
		out[0] = a->has[g];
		if (a->has[g])
			memcpy(out + 1, &a->dsum[g], 8);
		return a->has[g] ? 9 : 1;
	}
	if (p[at++]) {
		if (uvar_at(p, n, &at, &u) < 0)
			return merge_err(a, SL_EINTERNAL, err);
		a->isum[g] =
		    (int64_t)((uint64_t)a->isum[g] + (uint64_t)unzigzag(u));
		a->has[g] = 1;
	}
	*used = at;
	out[0] = a->has[g];
	return a->has[g] ? 1 + (int)raw_uvar_short(out + 1, zigzag(a->isum[g]))
			 : 1;
}

/* ---------------------------- reading a stored buffer (the state reader) */

/* Group 0 back to "never updated", and a fresh arena once the strings of
 * earlier decodes pile up (group 0 is the only group a decoder uses, its
 * strings already copied out). */
static int reset0(sl_agg *a)
{
	if (a->cap > 0) {
		if (a->cnt)
			a->cnt[0] = 0;
		if (a->isum)
			a->isum[0] = 0;
		if (a->dsum)
			a->dsum[0] = 0;
		if (a->vals && a->w > 0)
			memset(a->vals, 0, (size_t)a->w);
		if (a->has)
			a->has[0] = 0;
		if (a->vnull)
			a->vnull[0] = 0;
		if (a->regs)
			memset(a->regs, 0, (size_t)1 << a->p);
	}
	if (sl_arena_used(a->arena) > ((size_t)1 << 20)) {
		sl_arena *fresh = sl_arena_new();
		if (fresh == NULL)
			return SL_ENOMEM;
		sl_arena_free(a->arena);
		a->arena = fresh;
	}
	return a->ord != NULL ? reset0(a->ord) : 0;
}

/* Group 0's kept value (min/max/first/last, min_by's value) into c. */
static int kept_field(const sl_agg *a, sl_col *c, int64_t row)
{
	sl_str v;
	if (!a->has[0] || a->vnull[0] || a->w == 0)
		return sl_col_set_null(c, row) < 0 ? SL_ENOMEM : 0;
	if (a->vk != SL_STRING) {
		memcpy((char *)c->data + row * a->w, a->vals, (size_t)a->w);
		return 0;
	}
	v = ((const sl_str *)a->vals)[0];
	return sl_col_set_str(c, row, v.p, v.len) < 0 ? SL_ENOMEM : 0;
}

int sl_agg_buffer_nfields(const sl_agg *a)
{
	switch (a->fn) {
	case SL_AGGFN_AVG:
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST:
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY: return 2;
	default: return 1;
	}
}

/* Group 0's buffer as Spark's aggBufferAttributes into f[0..). */
static int buffer_fields(const sl_agg *a, sl_col *const *f, int64_t row)
{
	switch (a->fn) {
	case SL_AGGFN_COUNT: sl_col_i64(f[0])[row] = a->cnt[0]; return 0;
	case SL_AGGFN_SUM:
		if (!a->has[0])
			return sl_col_set_null(f[0], row) < 0 ? SL_ENOMEM : 0;
		if (a->vk == SL_BIGINT)
			sl_col_i64(f[0])[row] = a->isum[0];
		else
			sl_col_f64(f[0])[row] = a->dsum[0];
		return 0;
	case SL_AGGFN_AVG:
		sl_col_f64(f[0])[row] = a->dsum[0];
		sl_col_i64(f[1])[row] = a->cnt[0];
		return 0;
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST:
		sl_col_u8(f[1])[row] = a->has[0] != 0;
		return kept_field(a, f[0], row);
	case SL_AGGFN_APPROX:
		return sl_col_set_str(f[0], row, (const char *)a->regs,
				      (size_t)1 << a->p) < 0
			   ? SL_ENOMEM
			   : 0;
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY:
		if (kept_field(a, f[0], row) < 0)
			return SL_ENOMEM;
		return kept_field(a->ord, f[1], row);
	case SL_AGGFN_COLLECT: return SL_EINTERNAL;
	default: return kept_field(a, f[0], row);
	}
}

int sl_agg_decode(sl_agg *a, const void *p, size_t n, size_t *used,
		  sl_col *const *f, sl_col *res, int64_t row, sl_err *err)
{
	sl_col *one;
	int rc;
	if (reset0(a) < 0)
		return sl_err_nomem(err);
	if ((rc = sl_agg_merge(a, 0, p, n, used, err)) < 0)
		return rc;
	if (f != NULL && (rc = buffer_fields(a, f, row)) < 0)
		return merge_err(a, rc, err);
	if (res == NULL)
		return 0;
	if ((one = sl_agg_result(a, 0, 1, err)) == NULL)
		return err ? err->code : SL_ENOMEM;
	rc = sl_col_copy_row(res, row, one, 0);
	sl_col_free(one);
	return rc < 0 ? sl_err_nomem(err) : 0;
}

const sl_type *sl_agg_result_type(const sl_agg *a)
{
	return a->rtype;
}
