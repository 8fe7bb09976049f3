/*
 * parquet_write: batches -> one Parquet file in a caller's buffer.
 *
 * The file: "PAR1", then row groups, each one column chunk per leaf of
 * the schema (a struct's fields are leaves under a group), then the
 * footer (thrift FileMetaData), its length (4 bytes LE) and "PAR1".
 *
 * A row group collects references to batches (slices of them when a
 * batch straddles the row or byte bound) until it is full, then each leaf
 * is encoded in one go:
 *   1. walk the rows: definition level (how many optional levels of the
 *      path are non-null) and the non-null values;
 *   2. try a dictionary (values -> dense ids in first-seen order); keep
 *      it when it stays under the dictionary byte limit and beats PLAIN;
 *   3. cut data pages at parquet.page.size bytes of values (or 20000
 *      rows, parquet-mr's page row limit); each page is the definition
 *      levels (RLE/bit-packed hybrid, 4-byte length first) and the values
 *      (PLAIN, or a bit width byte and the hybrid encoding of the ids),
 *      compressed together (data page V1);
 *   4. the chunk's metadata (offsets, sizes, encodings, statistics) is
 *      kept for the footer.
 * Nothing in a row group points into the batches once it is encoded; the
 * batch references are dropped then.
 */
#include "formats/parquet.h"
#include "formats/parquet_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fsutil.h"

#define MAX_DEPTH      8
#define PAGE_ROW_LIMIT 20000
#define STAT_MAX       64

typedef struct wleaf {
	int depth;
	int idx[MAX_DEPTH];
	bool opt[MAX_DEPTH];
	int max_def;
	int ptype;
	sl_kind kind;
	pq_bytes path[MAX_DEPTH];
} wleaf;

typedef struct wstat {
	uint8_t min[STAT_MAX], max[STAT_MAX];
} wstat;

struct sl_parquet_writer {
	sl_type *schema;
	sl_buf *out;
	size_t base;
	int codec;
	int64_t rg_rows, rg_bytes, page_bytes, dict_bytes;
	bool dict;
	int nleaves;
	wleaf *leaves;
	int nels;
	pq_schema_el *els;
	sl_batch **pend;
	int npend, cappend;
	int64_t pend_rows, pend_bytes;
	pq_row_group *rgs;
	wstat **rgstats;
	int nrg, caprg;
	int64_t total_rows;
	bool failed, finished;
	/* scratch for one chunk */
	uint32_t *defs, *ids;
	void *vals;
	size_t vals_cap, defs_cap, ids_cap;
	sl_buf page, comp, dictbuf;
};

/* ---- RLE / bit-packed hybrid ---- */

int pq_bit_width(uint64_t max)
{
	int n = 0;
	while (max) {
		n++;
		max >>= 1;
	}
	return n;
}

static void put_varint(sl_buf *out, uint64_t v)
{
	do {
		uint8_t b = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			b |= 0x80;
		sl_buf_addc(out, (char)b);
	} while (v);
}

void pq_rle_encode(const uint32_t *v, int64_t n, int bw, sl_buf *out)
{
	int64_t i = 0;
	int vbytes = (bw + 7) / 8;
	while (i < n) {
		int64_t run = 1, start, groups = 0, k;
		while (i + run < n && v[i + run] == v[i])
			run++;
		if (run >= 8) {
			int b;
			put_varint(out, (uint64_t)run << 1);
			for (b = 0; b < vbytes; b++)
				sl_buf_addc(out, (char)(v[i] >> (8 * b)));
			i += run;
			continue;
		}
		/* bit-pack groups of 8 until a run of 8 starts a group */
		start = i;
		while (i < n) {
			int64_t r = 1;
			while (i + r < n && r < 8 && v[i + r] == v[i])
				r++;
			if (r >= 8 && i > start)
				break;
			i += 8;
			groups++;
		}
		if (i > n)
			i = n;
		put_varint(out, (uint64_t)groups << 1 | 1);
		if (!sl_buf_reserve(out, (size_t)(groups * bw)))
			return;
		{
			uint8_t *p = (uint8_t *)out->p + out->len;
			uint64_t acc = 0;
			int nb = 0;
			size_t o = 0;
			memset(p, 0, (size_t)(groups * bw));
			for (k = 0; k < groups * 8; k++) {
				uint64_t x = start + k < n ? v[start + k] : 0;
				acc |= x << nb;
				nb += bw;
				while (nb >= 8) {
					p[o++] = (uint8_t)acc;
					acc >>= 8;
					nb -= 8;
				}
			}
			out->len += (size_t)(groups * bw);
		}
	}
}

/* ---- schema ---- */

static int ptype_of(sl_kind k)
{
	switch (k) {
	case SL_BOOLEAN: return PQ_BOOLEAN;
	case SL_INT:
	case SL_DATE: return PQ_INT32;
	case SL_BIGINT:
	case SL_TIMESTAMP: return PQ_INT64;
	case SL_DOUBLE: return PQ_DOUBLE;
	case SL_STRING:
	case SL_BINARY: return PQ_BYTE_ARRAY;
	default: return -1;
	}
}

static int add_el(sl_parquet_writer *w, pq_schema_el e, sl_err *err)
{
	pq_schema_el *n = realloc(w->els, (size_t)(w->nels + 1) * sizeof *n);
	if (n == NULL)
		return sl_err_nomem(err);
	w->els = n;
	w->els[w->nels++] = e;
	return 0;
}

static int add_fields(sl_parquet_writer *w, const sl_type *st, wleaf *up,
		      sl_err *err)
{
	int i, rc;
	if (up->depth >= MAX_DEPTH)
		return sl_err_set(err, SL_EINVAL,
				  "parquet: structs nest deeper than %d",
				  MAX_DEPTH);
	for (i = 0; i < st->nfields; i++) {
		const sl_field *f = &st->fields[i];
		pq_schema_el e;
		wleaf l = *up;
		memset(&e, 0, sizeof e);
		e.rep = f->nullable ? PQ_OPTIONAL : PQ_REQUIRED;
		e.name.p = (const uint8_t *)f->name;
		e.name.len = (uint32_t)strlen(f->name);
		e.name.set = true;
		e.num_children = -1;
		e.converted = PQ_CT_NONE;
		l.idx[l.depth] = i;
		l.opt[l.depth] = f->nullable;
		l.path[l.depth] = e.name;
		l.depth++;
		l.max_def += f->nullable;
		if (f->type->kind == SL_STRUCT) {
			e.type = -1;
			e.num_children = f->type->nfields;
			if ((rc = add_el(w, e, err)) != 0 ||
			    (rc = add_fields(w, f->type, &l, err)) != 0)
				return rc;
			continue;
		}
		e.type = ptype_of(f->type->kind);
		if (e.type < 0) {
			sl_buf b;
			sl_buf_init(&b);
			sl_type_sql(f->type, &b);
			sl_err_set(err, SL_EINVAL,
				   "parquet: column '%s' of type %s cannot be "
				   "written yet",
				   f->name, sl_buf_cstr(&b));
			sl_buf_release(&b);
			return SL_EINVAL;
		}
		if (f->type->kind == SL_STRING) {
			e.converted = PQ_CT_UTF8;
			e.logical = PQ_LT_STRING;
		} else if (f->type->kind == SL_DATE) {
			e.converted = PQ_CT_DATE; /* Spark's DateType */
			e.logical = PQ_LT_DATE;
		} else if (f->type->kind == SL_TIMESTAMP) {
			e.converted = PQ_CT_TIMESTAMP_MICROS;
			e.logical = PQ_LT_TIMESTAMP;
			e.lt_unit = PQ_MICROS;
			e.lt_utc = true;
		}
		if ((rc = add_el(w, e, err)) != 0)
			return rc;
		{
			wleaf *n = realloc(w->leaves, (size_t)(w->nleaves + 1) *
							  sizeof *n);
			if (n == NULL)
				return sl_err_nomem(err);
			w->leaves = n;
			l.ptype = e.type;
			l.kind = f->type->kind;
			w->leaves[w->nleaves++] = l;
		}
	}
	return 0;
}

static int opt_int(const sl_options *o, const char *k, int64_t def, int64_t min,
		   int64_t *out, sl_err *err)
{
	int rc = sl_options_int(o, k, def, out, err);
	if (rc == 0 && *out < min)
		rc = sl_err_set(err, SL_EINVAL,
				"option '%s': expected at least %lld, got %lld",
				k, (long long)min, (long long)*out);
	return rc;
}

static int read_opts(sl_parquet_writer *w, const sl_options *o, sl_err *err)
{
	sl_options none;
	const char *c;
	int rc;
	sl_options_init(&none); /* holds nothing: no release needed */
	if (o == NULL)
		o = &none;
	c = sl_options_get(o, "compression");
	if (c == NULL)
		c = sl_options_get(o, "parquet.compression");
	w->codec = pq_codec_parse(c);
	if (w->codec < 0)
		return sl_err_set(err, SL_EINVAL,
				  "parquet: compression '%s' is not supported "
				  "(expected snappy, zstd, gzip, none)",
				  c);
	if ((rc = opt_int(o, "parquet.block.size", 134217728, 1, &w->rg_bytes,
			  err)) != 0 ||
	    (rc = opt_int(o, "parquet.block.rows", 1048576, 1, &w->rg_rows,
			  err)) != 0 ||
	    (rc = opt_int(o, "parquet.page.size", 1048576, 1, &w->page_bytes,
			  err)) != 0 ||
	    (rc = opt_int(o, "parquet.dictionary.page.size", 1048576, 0,
			  &w->dict_bytes, err)) != 0 ||
	    (rc = sl_options_bool(o, "parquet.enable.dictionary", true,
				  &w->dict, err)) != 0)
		return rc;
	return 0;
}

sl_parquet_writer *sl_parquet_writer_new(sl_type *schema,
					 const sl_options *opts, sl_buf *out,
					 sl_err *err)
{
	sl_parquet_writer *w = calloc(1, sizeof *w);
	pq_schema_el root;
	wleaf top;
	if (w == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	w->schema = sl_type_ref(schema);
	w->out = out;
	w->base = out->len;
	sl_buf_init(&w->page);
	sl_buf_init(&w->comp);
	sl_buf_init(&w->dictbuf);
	memset(&root, 0, sizeof root);
	root.type = -1;
	root.rep = -1;
	root.name.p = (const uint8_t *)"spark_schema";
	root.name.len = 12;
	root.name.set = true;
	root.num_children = schema->nfields;
	root.converted = PQ_CT_NONE;
	memset(&top, 0, sizeof top);
	if (read_opts(w, opts, err) != 0 || add_el(w, root, err) != 0 ||
	    add_fields(w, schema, &top, err) != 0) {
		sl_parquet_writer_free(w);
		return NULL;
	}
	sl_buf_add(out, "PAR1", 4);
	return w;
}

void sl_parquet_writer_free(sl_parquet_writer *w)
{
	int i;
	if (w == NULL)
		return;
	for (i = 0; i < w->npend; i++)
		sl_batch_free(w->pend[i]);
	free(w->pend);
	for (i = 0; i < w->nrg; i++) {
		free(w->rgs[i].columns);
		free(w->rgstats[i]);
	}
	free(w->rgs);
	free(w->rgstats);
	free(w->leaves);
	free(w->els);
	free(w->defs);
	free(w->ids);
	free(w->vals);
	sl_buf_release(&w->page);
	sl_buf_release(&w->comp);
	sl_buf_release(&w->dictbuf);
	sl_type_free(w->schema);
	free(w);
}

/* ---- one column chunk ---- */

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	void *n;
	if (need <= *cap)
		return true;
	n = realloc(*p, need * elem);
	if (n == NULL)
		return false;
	*p = n;
	*cap = need;
	return true;
}

typedef struct chunk {
	const wleaf *l;
	int64_t nrows, nvals;
	int vwidth; /* bytes per value in w->vals (sl_str for strings) */
	int64_t ndict;
	int idbw;
	bool use_dict;
	int64_t null_count;
	bool has_minmax;
	int64_t imin, imax;
	double dmin, dmax;
	sl_str smin, smax;
} chunk;

/* Step 1: definition levels and non-null values of every pending row. */
static int gather(sl_parquet_writer *w, chunk *c, sl_err *err)
{
	const wleaf *l = c->l;
	int b, d;
	int64_t i, r = 0, v = 0;
	c->vwidth = l->ptype == PQ_BYTE_ARRAY ? (int)sizeof(sl_str)
		    : l->ptype == PQ_BOOLEAN  ? 1
		    : l->ptype == PQ_INT32    ? 4
					      : 8;
	if (!grow((void **)&w->defs, &w->defs_cap, (size_t)c->nrows + 1,
		  sizeof *w->defs) ||
	    !grow(&w->vals, &w->vals_cap,
		  ((size_t)c->nrows + 1) * (size_t)c->vwidth, 1))
		return sl_err_nomem(err);
	for (b = 0; b < w->npend; b++) {
		const sl_batch *bt = w->pend[b];
		const sl_col *chain[MAX_DEPTH];
		chain[0] = bt->cols[l->idx[0]];
		for (d = 1; d < l->depth; d++)
			chain[d] = chain[d - 1]->child[l->idx[d]];
		if (l->depth == 1 && chain[0]->nulls == NULL) {
			/* the common case: a top-level column without nulls */
			for (i = 0; i < bt->nrows; i++)
				w->defs[r + i] = (uint32_t)l->max_def;
			memcpy((char *)w->vals + v * c->vwidth, chain[0]->data,
			       (size_t)(bt->nrows * c->vwidth));
			r += bt->nrows;
			v += bt->nrows;
			continue;
		}
		for (i = 0; i < bt->nrows; i++, r++) {
			int def = 0;
			const sl_col *leaf = chain[l->depth - 1];
			for (d = 0; d < l->depth; d++) {
				if (!sl_col_isnull(chain[d], i)) {
					def += l->opt[d];
					continue;
				}
				if (!l->opt[d])
					return sl_err_set(
					    err, SL_EINVAL,
					    "parquet: column '%.*s' is not "
					    "nullable but row %lld is null",
					    (int)l->path[d].len,
					    (const char *)l->path[d].p,
					    (long long)r);
				break;
			}
			w->defs[r] = (uint32_t)def;
			if (d < l->depth)
				continue;
			memcpy((char *)w->vals + v * c->vwidth,
			       (const char *)leaf->data + i * c->vwidth,
			       (size_t)c->vwidth);
			v++;
		}
	}
	c->nvals = v;
	c->null_count = c->nrows - v;
	return 0;
}

static uint64_t val_hash(const chunk *c, const void *p)
{
	uint64_t h = 1469598103934665603ull;
	const uint8_t *s;
	size_t n, k;
	if (c->vwidth == 8 || c->vwidth == 4) {
		uint64_t x = 0;
		memcpy(&x, p, (size_t)c->vwidth);
		/* murmur3's fmix64: doubles differ in their high bits */
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdull;
		x ^= x >> 33;
		x *= 0xc4ceb9fe1a85ec53ull;
		return x ^ (x >> 33);
	}
	if (c->l->ptype == PQ_BYTE_ARRAY) {
		const sl_str *x = p;
		s = (const uint8_t *)x->p;
		n = x->len;
	} else {
		s = p;
		n = (size_t)c->vwidth;
	}
	for (k = 0; k < n; k++)
		h = (h ^ s[k]) * 1099511628211ull;
	return h ^ (h >> 29);
}

static bool val_eq(const chunk *c, const void *a, const void *b)
{
	if (c->vwidth == 8) {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x == y;
	}
	if (c->vwidth == 4) {
		uint32_t x, y;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x == y;
	}
	if (c->l->ptype == PQ_BYTE_ARRAY) {
		const sl_str *x = a, *y = b;
		return x->len == y->len && memcmp(x->p, y->p, x->len) == 0;
	}
	return memcmp(a, b, (size_t)c->vwidth) == 0;
}

static size_t plain_size(const chunk *c, const void *p)
{
	if (c->l->ptype == PQ_BYTE_ARRAY)
		return 4 + ((const sl_str *)p)->len;
	return (size_t)c->vwidth;
}

static void plain_add(const chunk *c, const void *p, sl_buf *out)
{
	if (c->l->ptype == PQ_BYTE_ARRAY) {
		const sl_str *x = p;
		uint8_t h[4];
		pq_put_u32le(h, x->len);
		sl_buf_add(out, h, 4);
		sl_buf_add(out, x->p, x->len);
	} else {
		sl_buf_add(out, p, (size_t)c->vwidth);
	}
}

/* Step 2: the dictionary.  Ids go to w->ids, the distinct values PLAIN
 * encoded to w->dictbuf.  Leaves use_dict false when it does not pay. */
/* Double the table of dictionary ids (index + 1, 0 = empty), keeping it
 * at most half full: sized by the dictionary, not by the rows, so a small
 * dictionary's table stays in cache. */
static uint32_t *rehash(const chunk *c, const sl_parquet_writer *w,
			uint32_t *slot, size_t *cap, const int64_t *first)
{
	size_t nc = *cap * 2, mask = nc - 1, h;
	uint32_t *n = calloc(nc, sizeof *n);
	int64_t k;
	if (n == NULL)
		return NULL;
	for (k = 0; k < c->ndict; k++) {
		h = (size_t)val_hash(c, (const char *)w->vals +
					    first[k] * c->vwidth) &
		    mask;
		while (n[h] != 0)
			h = (h + 1) & mask;
		n[h] = (uint32_t)k + 1;
	}
	free(slot);
	*cap = nc;
	return n;
}

static int try_dict(sl_parquet_writer *w, chunk *c, sl_err *err)
{
	size_t cap = 1024, mask, dictsz = 0, plainsz = 0;
	uint32_t *slot;
	int64_t i, *first;
	c->use_dict = false;
	sl_buf_clear(&w->dictbuf);
	if (!w->dict || c->l->ptype == PQ_BOOLEAN || c->nvals == 0)
		return 0;
	mask = cap - 1;
	slot = calloc(cap, sizeof *slot);
	first = malloc(((size_t)c->nvals + 1) * sizeof *first);
	if (slot == NULL || first == NULL ||
	    !grow((void **)&w->ids, &w->ids_cap, (size_t)c->nvals + 1,
		  sizeof *w->ids)) {
		free(slot);
		free(first);
		return sl_err_nomem(err);
	}
	c->ndict = 0;
	for (i = 0; i < c->nvals; i++) {
		const void *p = (const char *)w->vals + i * c->vwidth;
		size_t h = (size_t)val_hash(c, p) & mask;
		plainsz += plain_size(c, p);
		while (slot[h] != 0) {
			const void *q = (const char *)w->vals +
					first[slot[h] - 1] * c->vwidth;
			if (val_eq(c, p, q))
				break;
			h = (h + 1) & mask;
		}
		if (slot[h] == 0) {
			first[c->ndict] = i;
			slot[h] = (uint32_t)++c->ndict;
			dictsz += plain_size(c, p);
			plain_add(c, p, &w->dictbuf);
			if ((int64_t)dictsz > w->dict_bytes)
				break;
			w->ids[i] = (uint32_t)c->ndict - 1;
			if ((size_t)c->ndict * 2 > cap) {
				uint32_t *n = rehash(c, w, slot, &cap, first);
				if (n == NULL) {
					free(slot);
					free(first);
					return sl_err_nomem(err);
				}
				slot = n;
				mask = cap - 1;
			}
			continue;
		}
		w->ids[i] = slot[h] - 1;
	}
	free(slot);
	free(first);
	if (sl_buf_failed(&w->dictbuf))
		return sl_err_nomem(err);
	if (i < c->nvals)
		return 0; /* the dictionary grew too big: PLAIN */
	c->idbw = pq_bit_width((uint64_t)(c->ndict - 1));
	if (dictsz + (size_t)c->nvals * (size_t)c->idbw / 8 >= plainsz)
		return 0;
	c->use_dict = true;
	return 0;
}

static int strcmp_bytes(sl_str a, sl_str b)
{
	uint32_t n = a.len < b.len ? a.len : b.len;
	int r = n ? memcmp(a.p, b.p, n) : 0;
	return r ? r : (a.len > b.len) - (a.len < b.len);
}

/* Min and max of the non-null values, as Spark's statistics order them
 * (signed ints, doubles without NaN, strings by unsigned bytes). */
static void minmax(sl_parquet_writer *w, chunk *c)
{
	int64_t i;
	c->has_minmax = false;
	for (i = 0; i < c->nvals; i++) {
		const char *p = (const char *)w->vals + i * c->vwidth;
		if (c->l->ptype == PQ_BYTE_ARRAY) {
			const sl_str *s = (const sl_str *)(const void *)p;
			if (!c->has_minmax || strcmp_bytes(*s, c->smin) < 0)
				c->smin = *s;
			if (!c->has_minmax || strcmp_bytes(*s, c->smax) > 0)
				c->smax = *s;
		} else if (c->l->ptype == PQ_DOUBLE) {
			double d;
			memcpy(&d, p, 8);
			if (isnan(d))
				continue;
			if (!c->has_minmax || d < c->dmin)
				c->dmin = d;
			if (!c->has_minmax || d > c->dmax)
				c->dmax = d;
		} else {
			int64_t x;
			if (c->vwidth == 1)
				x = *(const uint8_t *)p;
			else if (c->vwidth == 4) {
				int32_t y;
				memcpy(&y, p, 4);
				x = y;
			} else
				memcpy(&x, p, 8);
			if (!c->has_minmax || x < c->imin)
				c->imin = x;
			if (!c->has_minmax || x > c->imax)
				c->imax = x;
		}
		c->has_minmax = true;
	}
}

static void stats_store(const chunk *c, wstat *ws, pq_stats *st)
{
	size_t n = (size_t)c->vwidth;
	st->null_count = c->null_count;
	if (!c->has_minmax)
		return;
	if (c->l->ptype == PQ_BYTE_ARRAY) {
		if (c->smin.len > STAT_MAX || c->smax.len > STAT_MAX)
			return;
		memcpy(ws->min, c->smin.p, c->smin.len);
		memcpy(ws->max, c->smax.p, c->smax.len);
		st->min_value.len = c->smin.len;
		st->max_value.len = c->smax.len;
	} else {
		if (c->l->ptype == PQ_DOUBLE) {
			memcpy(ws->min, &c->dmin, 8);
			memcpy(ws->max, &c->dmax, 8);
		} else if (n == 4 || n == 1) {
			int32_t a = (int32_t)c->imin, b = (int32_t)c->imax;
			uint8_t x = (uint8_t)c->imin, y = (uint8_t)c->imax;
			memcpy(ws->min, n == 4 ? (void *)&a : (void *)&x, n);
			memcpy(ws->max, n == 4 ? (void *)&b : (void *)&y, n);
		} else {
			memcpy(ws->min, &c->imin, 8);
			memcpy(ws->max, &c->imax, 8);
		}
		st->min_value.len = st->max_value.len = (uint32_t)n;
	}
	st->min_value.p = ws->min;
	st->max_value.p = ws->max;
	st->min_value.set = st->max_value.set = true;
}

/* Compress w->page and append header + bytes to out. */
static int emit_page(sl_parquet_writer *w, pq_page_header *h, int64_t *usize,
		     int64_t *csize, sl_err *err)
{
	size_t before;
	int rc;
	if (sl_buf_failed(&w->page))
		return sl_err_nomem(err);
	sl_buf_clear(&w->comp);
	rc = pq_compress(w->codec, w->page.p, w->page.len, &w->comp, err);
	if (rc != 0)
		return rc;
	if (w->page.len > INT32_MAX || w->comp.len > INT32_MAX)
		return sl_err_set(err, SL_EINVAL, "parquet: page too big");
	h->uncompressed_size = (int32_t)w->page.len;
	h->compressed_size = (int32_t)w->comp.len;
	before = w->out->len;
	pq_page_header_encode(h, w->out);
	*usize += (int64_t)(w->out->len - before) + (int64_t)w->page.len;
	*csize += (int64_t)(w->out->len - before) + (int64_t)w->comp.len;
	sl_buf_add(w->out, w->comp.p, w->comp.len);
	return sl_buf_failed(w->out) ? sl_err_nomem(err) : 0;
}

static size_t value_cost(const sl_parquet_writer *w, const chunk *c, int64_t v)
{
	if (c->use_dict)
		return (size_t)(c->idbw + 7) / 8 + 1;
	if (c->l->ptype == PQ_BOOLEAN)
		return 1;
	return plain_size(c, (const char *)w->vals + v * c->vwidth);
}

/* One data page: rows [r0, r1), values [v0, v1). */
static int data_page(sl_parquet_writer *w, chunk *c, int64_t r0, int64_t r1,
		     int64_t v0, int64_t v1, int64_t *usize, int64_t *csize,
		     sl_err *err)
{
	pq_page_header h;
	int64_t i;
	sl_buf_clear(&w->page);
	if (c->l->max_def > 0) {
		size_t at = w->page.len;
		sl_buf_add(&w->page, "\0\0\0\0", 4);
		pq_rle_encode(w->defs + r0, r1 - r0,
			      pq_bit_width((uint64_t)c->l->max_def), &w->page);
		if (!sl_buf_failed(&w->page))
			pq_put_u32le((uint8_t *)w->page.p + at,
				     (uint32_t)(w->page.len - at - 4));
	}
	if (c->use_dict) {
		sl_buf_addc(&w->page, (char)c->idbw);
		pq_rle_encode(w->ids + v0, v1 - v0, c->idbw, &w->page);
	} else if (c->l->ptype == PQ_BOOLEAN) {
		uint8_t acc = 0;
		const uint8_t *b = w->vals;
		for (i = v0; i < v1; i++) {
			acc |= (uint8_t)((b[i] & 1) << ((i - v0) & 7));
			if (((i - v0) & 7) == 7) {
				sl_buf_addc(&w->page, (char)acc);
				acc = 0;
			}
		}
		if ((v1 - v0) & 7)
			sl_buf_addc(&w->page, (char)acc);
	} else if (c->l->ptype == PQ_BYTE_ARRAY) {
		for (i = v0; i < v1; i++)
			plain_add(c, (const char *)w->vals + i * c->vwidth,
				  &w->page);
	} else {
		sl_buf_add(&w->page, (const char *)w->vals + v0 * c->vwidth,
			   (size_t)((v1 - v0) * c->vwidth));
	}
	memset(&h, 0, sizeof h);
	h.type = PQ_DATA_PAGE;
	h.num_values = (int32_t)(r1 - r0);
	h.encoding = c->use_dict ? PQ_RLE_DICTIONARY : PQ_PLAIN;
	h.def_encoding = PQ_RLE;
	h.rep_encoding = PQ_RLE;
	return emit_page(w, &h, usize, csize, err);
}

static int write_chunk(sl_parquet_writer *w, const wleaf *l, int64_t nrows,
		       pq_column_chunk *cc, wstat *ws, sl_err *err)
{
	chunk c;
	pq_column_meta *m = &cc->meta;
	int64_t usize = 0, csize = 0, r0, v0;
	int rc, d;
	memset(&c, 0, sizeof c);
	c.l = l;
	c.nrows = nrows;
	if ((rc = gather(w, &c, err)) != 0 || (rc = try_dict(w, &c, err)) != 0)
		return rc;
	minmax(w, &c);
	memset(cc, 0, sizeof *cc);
	cc->has_meta = true;
	cc->file_offset = (int64_t)(w->out->len - w->base);
	m->type = l->ptype;
	m->codec = w->codec;
	m->num_values = nrows;
	m->dictionary_page_offset = -1;
	for (d = 0; d < l->depth; d++)
		m->path[d] = l->path[d];
	m->npath = l->depth;
	m->encodings[m->nencodings++] = PQ_PLAIN;
	m->encodings[m->nencodings++] = PQ_RLE;
	if (c.use_dict) {
		pq_page_header h;
		m->encodings[m->nencodings++] = PQ_RLE_DICTIONARY;
		m->dictionary_page_offset = cc->file_offset;
		sl_buf_clear(&w->page);
		sl_buf_add(&w->page, w->dictbuf.p, w->dictbuf.len);
		memset(&h, 0, sizeof h);
		h.type = PQ_DICTIONARY_PAGE;
		h.num_values = (int32_t)c.ndict;
		h.encoding = PQ_PLAIN;
		if ((rc = emit_page(w, &h, &usize, &csize, err)) != 0)
			return rc;
	}
	m->data_page_offset = (int64_t)(w->out->len - w->base);
	r0 = 0;
	v0 = 0;
	while (r0 < nrows || (nrows == 0 && r0 == 0)) {
		int64_t r = r0, v = v0;
		size_t bytes = 0;
		while (r < nrows && r - r0 < PAGE_ROW_LIMIT &&
		       (int64_t)bytes < w->page_bytes) {
			if ((int)w->defs[r] == l->max_def)
				bytes += value_cost(w, &c, v++);
			r++;
		}
		if ((rc = data_page(w, &c, r0, r, v0, v, &usize, &csize,
				    err)) != 0)
			return rc;
		r0 = r;
		v0 = v;
		if (nrows == 0)
			break;
	}
	m->total_uncompressed_size = usize;
	m->total_compressed_size = csize;
	m->has_stats = true;
	stats_store(&c, ws, &m->stats);
	return 0;
}

static int flush_group(sl_parquet_writer *w, sl_err *err)
{
	pq_row_group *rg;
	int i, rc;
	if (w->pend_rows == 0)
		return 0;
	if (w->nrg == w->caprg) {
		int nc = w->caprg ? w->caprg * 2 : 8;
		pq_row_group *n = realloc(w->rgs, (size_t)nc * sizeof *n);
		wstat **s;
		if (n == NULL)
			return sl_err_nomem(err);
		w->rgs = n;
		s = realloc(w->rgstats, (size_t)nc * sizeof *s);
		if (s == NULL)
			return sl_err_nomem(err);
		w->rgstats = s;
		w->caprg = nc;
	}
	rg = &w->rgs[w->nrg];
	memset(rg, 0, sizeof *rg);
	rg->columns = calloc((size_t)w->nleaves + 1, sizeof *rg->columns);
	w->rgstats[w->nrg] = calloc((size_t)w->nleaves + 1, sizeof(wstat));
	w->nrg++;
	if (rg->columns == NULL || w->rgstats[w->nrg - 1] == NULL)
		return sl_err_nomem(err);
	rg->ncolumns = w->nleaves;
	rg->num_rows = w->pend_rows;
	rg->file_offset = (int64_t)(w->out->len - w->base);
	for (i = 0; i < w->nleaves; i++) {
		rc =
		    write_chunk(w, &w->leaves[i], w->pend_rows, &rg->columns[i],
				&w->rgstats[w->nrg - 1][i], err);
		if (rc != 0)
			return rc;
		rg->total_byte_size +=
		    rg->columns[i].meta.total_uncompressed_size;
		rg->total_compressed_size +=
		    rg->columns[i].meta.total_compressed_size;
	}
	w->total_rows += w->pend_rows;
	for (i = 0; i < w->npend; i++)
		sl_batch_free(w->pend[i]);
	w->npend = 0;
	w->pend_rows = 0;
	w->pend_bytes = 0;
	return 0;
}

static int push(sl_parquet_writer *w, sl_batch *b, int64_t bytes, sl_err *err)
{
	if (w->npend == w->cappend) {
		int nc = w->cappend ? w->cappend * 2 : 16;
		sl_batch **n = realloc(w->pend, (size_t)nc * sizeof *n);
		if (n == NULL) {
			sl_batch_free(b);
			return sl_err_nomem(err);
		}
		w->pend = n;
		w->cappend = nc;
	}
	w->pend[w->npend++] = b;
	w->pend_rows += b->nrows;
	w->pend_bytes += bytes;
	return 0;
}

static int add_rows(sl_parquet_writer *w, const sl_batch *b, sl_err *err)
{
	int64_t off = 0, per_row;
	int rc;
	if (b->ncols != w->schema->nfields)
		return sl_err_set(err, SL_EINVAL,
				  "parquet: batch has %d columns, the file %d",
				  b->ncols, w->schema->nfields);
	for (rc = 0; rc < b->ncols; rc++)
		if (!sl_type_equal(b->cols[rc]->type,
				   w->schema->fields[rc].type))
			return sl_err_set(err, SL_EINVAL,
					  "parquet: column '%s' of the batch "
					  "has another type than the file's",
					  w->schema->fields[rc].name);
	per_row = b->nrows ? (int64_t)sl_batch_bytes(b) / b->nrows + 1 : 1;
	while (off < b->nrows) {
		int64_t take = b->nrows - off, room;
		sl_batch *s;
		room = w->rg_rows - w->pend_rows;
		if (take > room)
			take = room;
		room = (w->rg_bytes - w->pend_bytes) / per_row;
		if (room < 1)
			room = 1;
		if (take > room)
			take = room;
		s = off == 0 && take == b->nrows
			? sl_batch_ref((sl_batch *)(uintptr_t)b)
			: sl_batch_slice(b, off, take);
		if (s == NULL)
			return sl_err_nomem(err);
		if ((rc = push(w, s, take * per_row, err)) != 0)
			return rc;
		off += take;
		if (w->pend_rows >= w->rg_rows ||
		    w->pend_bytes >= w->rg_bytes) {
			if ((rc = flush_group(w, err)) != 0)
				return rc;
		}
	}
	return 0;
}

int sl_parquet_writer_add(sl_parquet_writer *w, const sl_batch *b, sl_err *err)
{
	int rc;
	if (w->failed || w->finished)
		return sl_err_set(err, SL_ESTATE, "parquet: writer is %s",
				  w->failed ? "failed" : "finished");
	rc = add_rows(w, b, err);
	if (rc != 0)
		w->failed = true;
	return rc;
}

int sl_parquet_writer_finish(sl_parquet_writer *w, sl_err *err)
{
	pq_meta m;
	size_t at;
	uint8_t tail[8];
	int rc;
	if (w->failed || w->finished)
		return sl_err_set(err, SL_ESTATE, "parquet: writer is %s",
				  w->failed ? "failed" : "finished");
	if ((rc = flush_group(w, err)) != 0) {
		w->failed = true;
		return rc;
	}
	memset(&m, 0, sizeof m);
	m.version = 1;
	m.nschema = w->nels;
	m.schema = w->els;
	m.num_rows = w->total_rows;
	m.nrow_groups = w->nrg;
	m.row_groups = w->rgs;
	m.created_by.p = (const uint8_t *)"streamlab";
	m.created_by.len = 9;
	m.created_by.set = true;
	m.ncolumn_orders = w->nleaves;
	at = w->out->len;
	pq_meta_encode(&m, w->out);
	pq_put_u32le(tail, (uint32_t)(w->out->len - at));
	memcpy(tail + 4, "PAR1", 4);
	sl_buf_add(w->out, tail, 8);
	w->finished = true;
	if (sl_buf_failed(w->out)) {
		w->failed = true;
		return sl_err_nomem(err);
	}
	return 0;
}

int sl_parquet_write_buf(const sl_batch *b, const sl_options *opts, sl_buf *out,
			 sl_err *err)
{
	sl_parquet_writer *w = sl_parquet_writer_new(b->schema, opts, out, err);
	int rc;
	if (w == NULL)
		return err ? err->code : SL_EINVAL;
	rc = sl_parquet_writer_add(w, b, err);
	if (rc == 0)
		rc = sl_parquet_writer_finish(w, err);
	sl_parquet_writer_free(w);
	return rc;
}

const char *sl_parquet_ext(const sl_options *opts)
{
	const char *c = opts ? sl_options_get(opts, "compression") : NULL;
	if (c == NULL && opts != NULL)
		c = sl_options_get(opts, "parquet.compression");
	switch (pq_codec_parse(c)) {
	case PQ_SNAPPY: return "snappy.parquet";
	case PQ_ZSTD: return "zstd.parquet";
	case PQ_GZIP: return "gz.parquet";
	default: return "parquet";
	}
}

int sl_parquet_write_file(const char *path, const sl_batch *b,
			  const sl_options *opts, sl_err *err)
{
	sl_buf out;
	int rc;
	sl_buf_init(&out);
	rc = sl_parquet_write_buf(b, opts, &out, err);
	if (rc == 0)
		rc = sl_fs_write_atomic(path, out.p, out.len, false, NULL, NULL,
					-1, err);
	sl_buf_release(&out);
	return rc;
}
