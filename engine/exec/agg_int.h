/*
 * agg_int: what agg.c shares with the live table's state writer
 * (livetab.c): the aggregate's struct and the raw save of one group's
 * buffer, inline (the writer saves every group a batch dirtied, and
 * every live group for a snapshot: a call and a switch per group and
 * aggregate were a sixth of W1-100k's state writing).  The layout of
 * the saved bytes is defined here, once (sl_agg_save_raw, agg.h).
 * Engine-internal: nothing outside exec/agg.c and exec/livetab.c.
 */
#ifndef SL_AGG_INT_H
#define SL_AGG_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "exec/agg.h"
#include "exec/hash.h"
#include "expr/aggfunc.h"

struct sl_agg {
	sl_aggfn fn;
	bool distinct, count_rows;
	int nargs;
	sl_type *atype, *rtype;
	sl_kind vk; /* storage kind of kept values */
	int w;      /* bytes per kept value */
	int p;      /* HLL precision */
	int64_t cap;
	int64_t *cnt;
	int64_t *isum;
	double *dsum;
	char *vals;
	uint8_t *has, *vnull, *regs;
	sl_arena *arena;
	sl_hash_groups *dset;
	int nchunks, ccap;
	sl_col **chunks;
	int32_t **cg;
	sl_agg *ord; /* min_by/max_by: min/max over the ordering (arg 2) */
	bool big;    /* the per-group arrays are bigarr.h's (sl_agg_set_big) */
};

/* Counts and integer sums as LEB128 varints (zigzag for sums). */
static inline uint64_t sl_agg_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline size_t sl_agg_raw_uvar(unsigned char *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* A writer's view of an aggregate for saving many groups: its kind and
 * arrays read once into a local (the bytes a writer stores through
 * unsigned char pointers may alias anything, so the compiler reloads
 * every field of an sl_agg after each).  Valid while a does not grow. */
enum { SL_AGGV_COUNT, SL_AGGV_DSUM, SL_AGGV_ISUM, SL_AGGV_OTHER };
typedef struct sl_agg_view {
	int kind;
	int64_t cap;
	const int64_t *cnt, *isum;
	const double *dsum;
	const uint8_t *has;
	const sl_agg *a;
} sl_agg_view;

static inline void sl_agg_view_of(sl_agg_view *v, const sl_agg *a)
{
	v->a = a;
	v->cap = a->cap;
	v->cnt = a->cnt;
	v->isum = a->isum;
	v->dsum = a->dsum;
	v->has = a->has;
	v->kind = a->fn == SL_AGGFN_COUNT			? SL_AGGV_COUNT
		  : a->fn == SL_AGGFN_SUM && a->vk == SL_BIGINT ? SL_AGGV_ISUM
		  : a->fn == SL_AGGFN_SUM			? SL_AGGV_DSUM
								: SL_AGGV_OTHER;
}

/* The saved bytes of group g of an avg or a min/max/first/last of a
 * fixed-width value (sl_agg_view_save's other kinds). */
static inline size_t sl_agg_save_other(const sl_agg *a, int64_t g,
				       unsigned char *p)
{
	bool has = g < a->cap;
	uint8_t f;
	if (a->fn == SL_AGGFN_AVG) {
		memcpy(p, has ? &a->dsum[g] : &(double){ 0 }, 8);
		return 8 + sl_agg_raw_uvar(p + 8, has ? (uint64_t)a->cnt[g] : 0);
	}
	f = (uint8_t)((has && a->has[g]) | (has && a->vnull[g] ? 2 : 0));
	p[0] = f;
	if (f != 1 || a->w == 0)
		return 1;
	memcpy(p + 1, a->vals + (size_t)g * (size_t)a->w, (size_t)a->w);
	return 1 + (size_t)a->w;
}

/* Group g's saved bytes (sl_agg_save_raw, agg.h) at p through the view:
 * the one definition of the layout (a count: uvar; a sum: a has byte,
 * then the zigzag uvar of a BIGINT or the DOUBLE's 8 bytes, written
 * also when it has none: room for sl_agg_save_max is the caller's). */
static inline __attribute__((always_inline)) size_t
sl_agg_view_save(const sl_agg_view *v, int64_t g, unsigned char *p)
{
	bool has = g < v->cap;
	uint8_t f;
	switch (v->kind) {
	case SL_AGGV_COUNT:
		return sl_agg_raw_uvar(p, has ? (uint64_t)v->cnt[g] : 0);
	case SL_AGGV_DSUM:
		f = has && v->has[g];
		p[0] = f;
		memcpy(p + 1, has ? &v->dsum[g] : &(double){ 0 }, 8);
		return f ? 9 : 1;
	case SL_AGGV_ISUM:
		f = has && v->has[g];
		p[0] = f;
		return f ? 1 + sl_agg_raw_uvar(p + 1, sl_agg_zigzag(v->isum[g]))
			 : 1;
	default: return sl_agg_save_other(v->a, g, p);
	}
}

/* sl_agg_save_raw of one group: the view made on the spot. */
static inline __attribute__((always_inline)) size_t
sl_agg_save_raw_at(const sl_agg *a, int64_t g, unsigned char *p)
{
	sl_agg_view v;
	sl_agg_view_of(&v, a);
	return sl_agg_view_save(&v, g, p);
}

#endif
