/*
 * col: column vectors.  All buffers are malloc'd per column; strings live in
 * a shared, counted arena.
 */
#include "core/col.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/type.h"

static size_t bitmap_bytes(int64_t len)
{
	return (size_t)((len + 7) >> 3);
}

static sl_col *col_alloc(sl_type *type, int64_t len)
{
	sl_col *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->type = sl_type_ref(type);
	c->len = len;
	c->refs = 1;
	return c;
}

/* zero: values zeroed (sl_col_new) or left as malloc gives them
 * (sl_col_new_raw, for kernels that write every slot: zeroing a buffer
 * that is overwritten next is a pass over memory for nothing).  Strings
 * too: the writers of raw STRING and BINARY columns (the JSON and CSV
 * readers, from_json, the Kafka fetcher's chunks) store every row's
 * pointer and length or set the row NULL, which zeroes its slot. */
static sl_col *col_new(sl_type *type, int64_t len, bool zero)
{
	sl_col *c = col_alloc(type, len);
	size_t nb;
	int i, w;
	if (c == NULL)
		return NULL;
	switch (type->kind) {
	case SL_STRUCT:
		c->nchild = type->nfields;
		c->child = calloc((size_t)(c->nchild ? c->nchild : 1),
				  sizeof *c->child);
		if (c->child == NULL)
			goto fail;
		for (i = 0; i < c->nchild; i++) {
			c->child[i] = col_new(type->fields[i].type, len, zero);
			if (c->child[i] == NULL)
				goto fail;
		}
		break;
	case SL_ARRAY:
		c->offsets = calloc((size_t)len + 1, sizeof *c->offsets);
		c->nchild = 1;
		c->child = calloc(1, sizeof *c->child);
		if (c->offsets == NULL || c->child == NULL)
			goto fail;
		c->child[0] = sl_col_new(type->elem, 0);
		if (c->child[0] == NULL)
			goto fail;
		break;
	case SL_NULLTYPE:
		c->nulls = malloc(bitmap_bytes(len) + 1);
		if (c->nulls == NULL)
			goto fail;
		memset(c->nulls, 0xff, bitmap_bytes(len) + 1);
		break;
	default:
		w = sl_type_width(type);
		nb = (size_t)(len > 0 ? len : 1);
		c->data = zero ? calloc(nb, (size_t)w) : malloc(nb * (size_t)w);
		if (c->data == NULL)
			goto fail;
		break;
	}
	return c;
fail:
	sl_col_free(c);
	return NULL;
}

sl_col *sl_col_new(sl_type *type, int64_t len)
{
	return col_new(type, len, true);
}

sl_col *sl_col_new_raw(sl_type *type, int64_t len)
{
	return col_new(type, len, false);
}

sl_col *sl_col_new_null(sl_type *type, int64_t len)
{
	sl_col *c = sl_col_new(type, len);
	if (c == NULL)
		return NULL;
	if (c->nulls == NULL) {
		c->nulls = malloc(bitmap_bytes(len) + 1);
		if (c->nulls == NULL) {
			sl_col_free(c);
			return NULL;
		}
		memset(c->nulls, 0xff, bitmap_bytes(len) + 1);
	}
	return c;
}

sl_col *sl_col_array_new(sl_type *type, int64_t len, const int32_t *offsets,
			 sl_col *elems)
{
	sl_col *c = col_alloc(type, len);
	if (c == NULL) {
		sl_col_free(elems);
		return NULL;
	}
	c->offsets = malloc(((size_t)len + 1) * sizeof *c->offsets);
	c->child = calloc(1, sizeof *c->child);
	c->nchild = 1;
	if (c->offsets == NULL || c->child == NULL) {
		sl_col_free(elems);
		sl_col_free(c);
		return NULL;
	}
	memcpy(c->offsets, offsets, ((size_t)len + 1) * sizeof *c->offsets);
	c->child[0] = elems;
	return c;
}

sl_col *sl_col_view(const sl_col *c, sl_type *type)
{
	sl_col *v;
	assert(sl_type_width(type) == sl_type_width(c->type) &&
	       c->nchild == 0 && c->offsets == NULL);
	if ((v = col_alloc(type, c->len)) == NULL)
		return NULL;
	v->base = sl_col_ref((sl_col *)(c->base != NULL ? c->base : c));
	v->data = c->data;
	v->nulls = c->nulls;
	v->arena = sl_arena_ref(c->arena);
	return v;
}

sl_col *sl_col_ref(sl_col *c)
{
	if (c != NULL)
		c->refs++;
	return c;
}

void sl_col_free(sl_col *c)
{
	int i;
	if (c == NULL || --c->refs > 0)
		return;
	for (i = 0; i < c->nchild; i++)
		sl_col_free(c->child[i]);
	free(c->child);
	free(c->offsets);
	if (c->base != NULL) {
		sl_col_free(c->base);
	} else {
		free(c->nulls);
		free(c->data);
	}
	sl_arena_free(c->arena);
	sl_type_free(c->type);
	free(c);
}

int sl_col_set_null(sl_col *c, int64_t i)
{
	int w;
	assert(i >= 0 && i < c->len);
	assert(c->refs <= 1 && c->base == NULL); /* col.h: immutable */
	c->tstats.set = false;
	if (c->nulls == NULL) {
		c->nulls = calloc(bitmap_bytes(c->len) + 1, 1);
		if (c->nulls == NULL)
			return SL_ENOMEM;
	}
	c->nulls[i >> 3] |= (uint8_t)(1u << (i & 7));
	w = sl_type_width(c->type);
	if (c->data != NULL && w > 0)
		memset((char *)c->data + i * w, 0, (size_t)w);
	if (c->offsets != NULL)
		c->offsets[i + 1] = c->offsets[i];
	return 0;
}

int64_t sl_col_null_count(const sl_col *c)
{
	int64_t i, n = 0;
	if (c->nulls == NULL)
		return 0;
	for (i = 0; i < c->len; i++)
		n += sl_col_isnull(c, i);
	return n;
}

int sl_col_set_str(sl_col *c, int64_t i, const char *p, size_t n)
{
	sl_str *s = sl_col_str(c);
	char *d;
	assert(i >= 0 && i < c->len);
	assert(c->refs <= 1 && c->base == NULL); /* col.h: immutable */
	if (c->arena == NULL) {
		c->arena = sl_arena_new();
		if (c->arena == NULL)
			return SL_ENOMEM;
	}
	d = sl_arena_dup(c->arena, p, n);
	if (d == NULL)
		return SL_ENOMEM;
	s[i].p = d;
	s[i].len = (uint32_t)n;
	return 0;
}

/* Gather for fixed-width data; idx < 0 leaves a zeroed slot. */
static void take_fixed(void *dst, const void *src, int w, const int64_t *idx,
		       int64_t n)
{
	int64_t k;
	switch (w) {
	case 1:
		for (k = 0; k < n; k++)
			((uint8_t *)dst)[k] =
			    idx[k] >= 0 ? ((const uint8_t *)src)[idx[k]] : 0;
		break;
	case 4:
		for (k = 0; k < n; k++)
			((int32_t *)dst)[k] =
			    idx[k] >= 0 ? ((const int32_t *)src)[idx[k]] : 0;
		break;
	case 8:
		for (k = 0; k < n; k++)
			((int64_t *)dst)[k] =
			    idx[k] >= 0 ? ((const int64_t *)src)[idx[k]] : 0;
		break;
	default:
		for (k = 0; k < n; k++) {
			if (idx[k] >= 0)
				memcpy((char *)dst + k * w,
				       (const char *)src + idx[k] * w,
				       (size_t)w);
			else
				memset((char *)dst + k * w, 0, (size_t)w);
		}
	}
}

sl_col *sl_col_take(const sl_col *c, const int64_t *idx, int64_t n)
{
	sl_col *o;
	int64_t k;
	int i;
	if (c->type->kind == SL_ARRAY) {
		/* gather element ranges */
		int32_t *off = malloc(((size_t)n + 1) * sizeof *off);
		int64_t *eidx, ne = 0, e;
		sl_col *elems;
		if (off == NULL)
			return NULL;
		off[0] = 0;
		for (k = 0; k < n; k++) {
			if (idx[k] >= 0)
				ne +=
				    c->offsets[idx[k] + 1] - c->offsets[idx[k]];
			off[k + 1] = (int32_t)ne;
		}
		eidx = malloc(((size_t)ne + 1) * sizeof *eidx);
		if (eidx == NULL) {
			free(off);
			return NULL;
		}
		ne = 0;
		for (k = 0; k < n; k++)
			if (idx[k] >= 0)
				for (e = c->offsets[idx[k]];
				     e < c->offsets[idx[k] + 1]; e++)
					eidx[ne++] = e;
		elems = sl_col_take(c->child[0], eidx, ne);
		free(eidx);
		o = elems ? sl_col_array_new(c->type, n, off, elems) : NULL;
		free(off);
		if (o == NULL)
			return NULL;
	} else if (c->type->kind == SL_STRUCT) {
		o = col_alloc(c->type, n);
		if (o == NULL)
			return NULL;
		o->nchild = c->nchild;
		o->child = calloc((size_t)(c->nchild ? c->nchild : 1),
				  sizeof *o->child);
		if (o->child == NULL)
			goto fail;
		for (i = 0; i < c->nchild; i++) {
			o->child[i] = sl_col_take(c->child[i], idx, n);
			if (o->child[i] == NULL)
				goto fail;
		}
	} else if (c->type->kind == SL_NULLTYPE) {
		return sl_col_new(c->type, n);
	} else {
		int w = sl_type_width(c->type);
		o = col_alloc(c->type, n);
		if (o == NULL)
			return NULL;
		o->data = malloc((size_t)(n > 0 ? n : 1) * (size_t)w);
		if (o->data == NULL)
			goto fail;
		take_fixed(o->data, c->data, w, idx, n);
		o->arena = sl_arena_ref(c->arena);
	}
	for (k = 0; k < n; k++) {
		if (idx[k] < 0 || sl_col_isnull(c, idx[k])) {
			if (sl_col_set_null(o, k) < 0)
				goto fail;
		}
	}
	return o;
fail:
	sl_col_free(o);
	return NULL;
}

sl_col *sl_col_filter(const sl_col *c, const uint8_t *sel, int64_t nsel)
{
	int64_t *idx = malloc((size_t)(nsel > 0 ? nsel : 1) * sizeof *idx);
	int64_t i, k = 0;
	sl_col *o;
	if (idx == NULL)
		return NULL;
	for (i = 0; i < c->len && k < nsel; i++)
		if (sel[i])
			idx[k++] = i;
	o = sl_col_take(c, idx, k);
	free(idx);
	return o;
}

sl_col *sl_col_slice(const sl_col *c, int64_t off, int64_t n)
{
	int64_t *idx = malloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
	int64_t k;
	sl_col *o;
	if (idx == NULL)
		return NULL;
	for (k = 0; k < n; k++)
		idx[k] = off + k;
	o = sl_col_take(c, idx, n);
	free(idx);
	return o;
}

static int copy_strings(sl_col *o, int64_t at, const sl_col *src)
{
	int64_t k;
	const sl_str *s = sl_col_str(src);
	for (k = 0; k < src->len; k++) {
		if (sl_col_isnull(src, k))
			continue;
		if (sl_col_set_str(o, at + k, s[k].p, s[k].len) < 0)
			return SL_ENOMEM;
	}
	return 0;
}

sl_col *sl_col_concat(sl_col *const *cols, int n)
{
	sl_type *t = cols[0]->type;
	int64_t len = 0, at = 0, k;
	int j, i;
	sl_col *o;
	for (j = 0; j < n; j++)
		len += cols[j]->len;
	if (t->kind == SL_ARRAY) {
		int32_t *off = malloc(((size_t)len + 1) * sizeof *off);
		sl_col **el = malloc((size_t)n * sizeof *el);
		sl_col *elems;
		int32_t base = 0;
		if (off == NULL || el == NULL) {
			free(off);
			free(el);
			return NULL;
		}
		off[0] = 0;
		for (j = 0; j < n; j++) {
			for (k = 0; k < cols[j]->len; k++)
				off[at + k + 1] =
				    base + cols[j]->offsets[k + 1];
			at += cols[j]->len;
			base += cols[j]->offsets[cols[j]->len];
			el[j] = cols[j]->child[0];
		}
		elems = sl_col_concat(el, n);
		free(el);
		o = elems ? sl_col_array_new(t, len, off, elems) : NULL;
		free(off);
		if (o == NULL)
			return NULL;
		at = 0;
		for (j = 0; j < n; j++) {
			for (k = 0; k < cols[j]->len; k++)
				if (sl_col_isnull(cols[j], k))
					sl_col_set_null(o, at + k);
			at += cols[j]->len;
		}
		return o;
	}
	if (t->kind == SL_STRUCT) {
		sl_col **part = malloc((size_t)n * sizeof *part);
		if (part == NULL)
			return NULL;
		o = col_alloc(t, len);
		if (o == NULL) {
			free(part);
			return NULL;
		}
		o->nchild = t->nfields;
		o->child = calloc((size_t)(o->nchild ? o->nchild : 1),
				  sizeof *o->child);
		if (o->child == NULL)
			goto fail_struct;
		for (i = 0; i < o->nchild; i++) {
			for (j = 0; j < n; j++)
				part[j] = cols[j]->child[i];
			o->child[i] = sl_col_concat(part, n);
			if (o->child[i] == NULL)
				goto fail_struct;
		}
		free(part);
		goto nulls;
	fail_struct:
		free(part);
		sl_col_free(o);
		return NULL;
	}
	o = sl_col_new(t, len);
	if (o == NULL)
		return NULL;
	if (t->kind != SL_NULLTYPE) {
		int w = sl_type_width(t);
		for (j = 0; j < n; j++) {
			if (cols[j]->len == 0)
				continue;
			if (t->kind == SL_STRING || t->kind == SL_BINARY) {
				if (copy_strings(o, at, cols[j]) < 0) {
					sl_col_free(o);
					return NULL;
				}
			} else {
				memcpy((char *)o->data + at * w, cols[j]->data,
				       (size_t)(cols[j]->len * w));
			}
			at += cols[j]->len;
		}
	}
nulls:
	at = 0;
	for (j = 0; j < n; j++) {
		if (cols[j]->nulls != NULL)
			for (k = 0; k < cols[j]->len; k++)
				if (sl_col_isnull(cols[j], k) &&
				    sl_col_set_null(o, at + k) < 0) {
					sl_col_free(o);
					return NULL;
				}
		at += cols[j]->len;
	}
	return o;
}

sl_col *sl_col_copy(const sl_col *c)
{
	sl_col *one = (sl_col *)c;
	return sl_col_concat(&one, 1);
}

size_t sl_col_bytes(const sl_col *c)
{
	size_t n = sizeof *c;
	int i;
	if (c->data != NULL)
		n += (size_t)c->len * (size_t)sl_type_width(c->type);
	if (c->nulls != NULL)
		n += bitmap_bytes(c->len);
	if (c->offsets != NULL)
		n += ((size_t)c->len + 1) * sizeof *c->offsets;
	for (i = 0; i < c->nchild; i++)
		n += sl_col_bytes(c->child[i]);
	n += sl_arena_used(c->arena);
	return n;
}

int sl_col_copy_row(sl_col *c, int64_t i, const sl_col *src, int64_t r)
{
	int w;
	assert(r >= 0 && r < src->len);
	assert(src->type->kind == SL_NULLTYPE ||
	       src->type->kind == c->type->kind);
	if (src->type->kind == SL_NULLTYPE || sl_col_isnull(src, r))
		return sl_col_set_null(c, i);
	switch (c->type->kind) {
	case SL_STRING:
	case SL_BINARY:
		return sl_col_set_str(c, i, sl_col_str(src)[r].p,
				      sl_col_str(src)[r].len);
	case SL_STRUCT:
	case SL_ARRAY: return SL_EINVAL;
	default:
		w = sl_type_width(c->type);
		memcpy((char *)c->data + i * w, (const char *)src->data + r * w,
		       (size_t)w);
		return 0;
	}
}

/* Spark's interpreted ordering (op_sort's order and the struct and array
 * comparisons of expressions): NULL first, NaN above every double, -0.0 ==
 * 0.0, strings bytewise, structs field by field, arrays element by element
 * then by length. */
static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_dbl(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

int sl_col_cmp(const sl_col *c, int64_t i, const sl_col *d, int64_t j)
{
	bool a = sl_col_isnull(c, i), b = sl_col_isnull(d, j);
	if (a || b)
		return b - a; /* NULL first, as ascending */
	return sl_col_cmp_value(c, i, d, j);
}

int sl_col_cmp_value(const sl_col *c, int64_t i, const sl_col *d, int64_t j)
{
	int k, r;
	switch (c->type->kind) {
	case SL_BOOLEAN: return (int)sl_col_u8(c)[i] - (int)sl_col_u8(d)[j];
	case SL_INT:
	case SL_DATE: return cmp_i64(sl_col_i32(c)[i], sl_col_i32(d)[j]);
	case SL_BIGINT:
	case SL_TIMESTAMP: return cmp_i64(sl_col_i64(c)[i], sl_col_i64(d)[j]);
	case SL_DOUBLE: return cmp_dbl(sl_col_f64(c)[i], sl_col_f64(d)[j]);
	case SL_STRING:
	case SL_BINARY: {
		sl_str x = sl_col_str(c)[i], y = sl_col_str(d)[j];
		size_t m = x.len < y.len ? x.len : y.len;
		r = m ? memcmp(x.p, y.p, m) : 0;
		return r != 0 ? (r > 0) - (r < 0)
			      : (x.len > y.len) - (x.len < y.len);
	}
	case SL_STRUCT:
		for (k = 0; k < c->nchild; k++)
			if ((r = sl_col_cmp(c->child[k], i, d->child[k], j)))
				return r;
		return 0;
	case SL_ARRAY: {
		int64_t a = c->offsets[i], an = c->offsets[i + 1] - a;
		int64_t b = d->offsets[j], bn = d->offsets[j + 1] - b, e;
		for (e = 0; e < an && e < bn; e++)
			if ((r = sl_col_cmp(c->child[0], a + e, d->child[0],
					    b + e)))
				return r;
		return cmp_i64(an, bn);
	}
	default: return 0;
	}
}

sl_col *sl_col_coalesce(sl_col *a, sl_col *b)
{
	sl_col *both[2] = { a, b }, *all = sl_col_concat(both, 2), *o;
	int64_t *idx = malloc((size_t)(a->len + 1) * sizeof *idx), i;
	if (all == NULL || idx == NULL) {
		sl_col_free(all);
		free(idx);
		return NULL;
	}
	for (i = 0; i < a->len; i++)
		idx[i] = sl_col_isnull(a, i) ? a->len + i : i;
	o = sl_col_take(all, idx, a->len);
	sl_col_free(all);
	free(idx);
	return o;
}

sl_col *sl_col_pick(sl_type *type, sl_col *const *srcs, int nsrc,
		    const int *pick, int64_t n)
{
	sl_col **part = NULL, *all = NULL, *o = NULL;
	int *at = NULL, j, m = 0;
	int64_t *idx = NULL, i;
	if (type->kind != SL_STRUCT && type->kind != SL_ARRAY) {
		int rc = 0;
		if ((o = sl_col_new(type, n)) == NULL)
			return NULL;
		for (i = 0; i < n && rc == 0; i++)
			rc = pick[i] < 0
				 ? sl_col_set_null(o, i)
				 : sl_col_copy_row(o, i, srcs[pick[i]], i);
		if (rc < 0) {
			sl_col_free(o);
			return NULL;
		}
		return o;
	}
	/* nested: gather from the typed sources laid end to end */
	part = malloc((size_t)(nsrc + 1) * sizeof *part);
	at = malloc((size_t)(nsrc + 1) * sizeof *at);
	idx = malloc((size_t)(n + 1) * sizeof *idx);
	if (part == NULL || at == NULL || idx == NULL)
		goto done;
	for (j = 0; j < nsrc; j++)
		at[j] = -1;
	for (i = 0; i < n; i++)
		if (pick[i] >= 0)
			at[pick[i]] = 0; /* picked at least once */
	for (j = 0; j < nsrc; j++)
		if (at[j] == 0 && srcs[j]->type->kind != SL_NULLTYPE) {
			at[j] = m;
			part[m++] = srcs[j];
		} else {
			at[j] = -1;
		}
	if (m == 0) {
		o = sl_col_new_null(type, n);
		goto done;
	}
	if ((all = sl_col_concat(part, m)) == NULL)
		goto done;
	for (i = 0; i < n; i++)
		idx[i] = pick[i] < 0 || at[pick[i]] < 0
			     ? -1
			     : (int64_t)at[pick[i]] * n + i;
	o = sl_col_take(all, idx, n);
done:
	sl_col_free(all);
	free(part);
	free(at);
	free(idx);
	return o;
}

void sl_cols_free(sl_col **c, int n)
{
	int k;
	for (k = 0; c != NULL && k < n; k++)
		sl_col_free(c[k]);
	free(c);
}
