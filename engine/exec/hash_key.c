/*
 * hash_key: the state store's key encoding (hash.h): rows of key columns
 * as bytes whose memcmp order is Spark's ascending order of the rows,
 * NULLs first, a row at a time (sl_hash_key_encode) or a batch at a time
 * (sl_hash_keys_encode), and back (sl_hash_key_decode).  The group
 * table's own encoder of packed keys is in hash.c.
 */
#include "exec/hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "exec/hash_int.h"

static void put_be(sl_buf *out, uint64_t v, int nbytes)
{
	unsigned char b[8];
	int i;
	for (i = 0; i < nbytes; i++)
		b[i] = (unsigned char)(v >> (8 * (nbytes - 1 - i)));
	sl_buf_add(out, b, (size_t)nbytes);
}

static uint64_t get_be(const unsigned char *p, int nbytes)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < nbytes; i++)
		v = v << 8 | p[i];
	return v;
}

static uint64_t key_dbl_bits(double d)
{
	uint64_t u;
	if (d == 0)
		d = 0; /* -0.0 groups with 0.0 */
	if (isnan(d))
		d = NAN;
	memcpy(&u, &d, 8);
	return u >> 63 ? ~u : u ^ (UINT64_C(1) << 63);
}

static double key_bits_dbl(uint64_t u)
{
	double d;
	u = u >> 63 ? u ^ (UINT64_C(1) << 63) : ~u;
	memcpy(&d, &u, 8);
	return d;
}

static void encode_value(const sl_col *c, int64_t i, sl_buf *out)
{
	int k;
	if (sl_col_isnull(c, i) || c->type->kind == SL_NULLTYPE) {
		sl_buf_addc(out, 0);
		return;
	}
	sl_buf_addc(out, 1);
	switch (c->type->kind) {
	case SL_BOOLEAN: sl_buf_addc(out, (char)(sl_col_u8(c)[i] != 0)); break;
	case SL_INT:
	case SL_DATE:
		put_be(out, (uint32_t)sl_col_i32(c)[i] ^ UINT32_C(0x80000000),
		       4);
		break;
	case SL_BIGINT:
	case SL_TIMESTAMP:
		put_be(out, (uint64_t)sl_col_i64(c)[i] ^ (UINT64_C(1) << 63),
		       8);
		break;
	case SL_DOUBLE: put_be(out, key_dbl_bits(sl_col_f64(c)[i]), 8); break;
	case SL_STRING:
	case SL_BINARY: {
		sl_str v = sl_col_str(c)[i];
		uint32_t j, from = 0;
		for (j = 0; j < v.len; j++) {
			if (v.p[j] != 0)
				continue;
			sl_buf_add(out, v.p + from, j + 1 - from);
			sl_buf_addc(out, (char)0xff);
			from = j + 1;
		}
		sl_buf_add(out, v.p + from, v.len - from);
		sl_buf_add(out, "\0\1", 2);
		break;
	}
	case SL_STRUCT:
		for (k = 0; k < c->nchild; k++)
			encode_value(c->child[k], i, out);
		break;
	default: break;
	}
}

void sl_hash_key_encode(sl_col *const *cols, int n, int64_t row, sl_buf *out)
{
	int k;
	for (k = 0; k < n; k++)
		encode_value(cols[k], row, out);
}

/* ---------------------------------------- batch key encoding */

/* Bytes of a non-NULL value of column type t when every value of its
 * kind encodes to the same width (flag included), else 0. */
static int fixed_width(const sl_type *t)
{
	int k, w, sum = 1;
	switch (t->kind) {
	case SL_BOOLEAN: return 2;
	case SL_INT:
	case SL_DATE: return 5;
	case SL_BIGINT:
	case SL_TIMESTAMP:
	case SL_DOUBLE: return 9;
	case SL_STRUCT:
		for (k = 0; k < t->nfields; k++) {
			if ((w = fixed_width(t->fields[k].type)) == 0)
				return 0;
			sum += w;
		}
		return sum;
	default: return 0; /* strings; NULLTYPE is always NULL */
	}
}

static bool has_nulls(const sl_col *c)
{
	int k;
	if (c->nulls != NULL)
		return true;
	for (k = 0; c->type->kind == SL_STRUCT && k < c->nchild; k++)
		if (has_nulls(c->child[k]))
			return true;
	return false;
}

/* Rows [0, n) of a NULL-free fixed-width column c into p + i * stride;
 * returns the bytes per row written. */
static int encode_fixed_col(const sl_col *c, int64_t n, unsigned char *p,
			    int64_t stride)
{
	int64_t i;
	int k, at = 1;
	for (i = 0; i < n; i++)
		p[i * stride] = 1;
	switch (c->type->kind) {
	case SL_BOOLEAN:
		for (i = 0; i < n; i++)
			p[i * stride + 1] = sl_col_u8(c)[i] != 0;
		return 2;
	case SL_INT:
	case SL_DATE:
		for (i = 0; i < n; i++)
			store_be32(p + i * stride + 1,
				   (uint32_t)sl_col_i32(c)[i] ^
				       UINT32_C(0x80000000));
		return 5;
	case SL_BIGINT:
	case SL_TIMESTAMP:
		for (i = 0; i < n; i++)
			store_be64(p + i * stride + 1,
				   (uint64_t)sl_col_i64(c)[i] ^
				       (UINT64_C(1) << 63));
		return 9;
	case SL_DOUBLE:
		for (i = 0; i < n; i++)
			store_be64(p + i * stride + 1,
				   key_dbl_bits(sl_col_f64(c)[i]));
		return 9;
	default: /* STRUCT (fixed_width said so) */
		for (k = 0; k < c->nchild; k++)
			at += encode_fixed_col(c->child[k], n, p + at, stride);
		return at;
	}
}

int sl_hash_keys_encode(sl_col *const *cols, int ncols, int64_t n, sl_buf *out,
			int64_t *off)
{
	int64_t i, base = (int64_t)out->len, w = 0;
	int k, cw;
	bool fixed = true;
	for (k = 0; k < ncols && fixed; k++) {
		cw = fixed_width(cols[k]->type);
		fixed = cw > 0 && !has_nulls(cols[k]);
		w += cw;
	}
	if (!fixed) { /* NULLs or strings: one row at a time */
		for (i = 0; i < n; i++) {
			off[i] = (int64_t)out->len;
			sl_hash_key_encode(cols, ncols, i, out);
		}
		off[n] = (int64_t)out->len;
		return sl_buf_failed(out) ? SL_ENOMEM : 0;
	}
	if (!sl_buf_reserve(out, (size_t)(n * w)))
		return SL_ENOMEM;
	for (k = 0, cw = 0; k < ncols; k++)
		cw += encode_fixed_col(cols[k], n,
				       (unsigned char *)out->p + base + cw, w);
	for (i = 0; i <= n; i++)
		off[i] = base + i * w;
	out->len += (size_t)(n * w);
	out->p[out->len] = '\0';
	return 0;
}

/* Packed keys without NULLs: every group's encoding has the same width,
 * written a leaf at a time straight from the key words. */

/* ---------------------------------------------------------- decoding */

/* Reader over encoded bytes. */
typedef struct kread {
	const unsigned char *p;
	size_t len, at;
	sl_buf tmp;
} kread;

static int decode_string(sl_col *c, int64_t i, kread *r)
{
	sl_buf_clear(&r->tmp);
	while (r->at + 1 < r->len) {
		unsigned char b = r->p[r->at++];
		if (b != 0) {
			sl_buf_addc(&r->tmp, (char)b);
			continue;
		}
		b = r->p[r->at++];
		if (b == 1)
			return sl_col_set_str(c, i, r->tmp.p ? r->tmp.p : "",
					      r->tmp.len) < 0
				   ? SL_ENOMEM
				   : 0;
		if (b != 0xff)
			return SL_EINTERNAL;
		sl_buf_addc(&r->tmp, 0);
	}
	return SL_EINTERNAL;
}

static int decode_value(sl_col *c, int64_t i, kread *r)
{
	static const int width[] = { [SL_BOOLEAN] = 1,
				     [SL_INT] = 4,
				     [SL_BIGINT] = 8,
				     [SL_DOUBLE] = 8,
				     [SL_TIMESTAMP] = 8,
				     [SL_DATE] = 4 };
	sl_kind kind = c->type->kind;
	int k, w, rc;
	uint64_t v;
	if (r->at >= r->len)
		return SL_EINTERNAL;
	if (r->p[r->at++] == 0)
		return sl_col_set_null(c, i) < 0 ? SL_ENOMEM : 0;
	if (kind == SL_STRING || kind == SL_BINARY)
		return decode_string(c, i, r);
	if (kind == SL_STRUCT) {
		for (k = 0; k < c->nchild; k++)
			if ((rc = decode_value(c->child[k], i, r)) < 0)
				return rc;
		return 0;
	}
	w = kind <= SL_DATE ? width[kind] : 0;
	if (w == 0 || r->at + (size_t)w > r->len)
		return SL_EINTERNAL;
	v = get_be(r->p + r->at, w);
	r->at += (size_t)w;
	switch (kind) {
	case SL_BOOLEAN: sl_col_u8(c)[i] = (uint8_t)v; break;
	case SL_INT:
	case SL_DATE:
		sl_col_i32(c)[i] = (int32_t)(uint32_t)(v ^ 0x80000000u);
		break;
	case SL_DOUBLE: sl_col_f64(c)[i] = key_bits_dbl(v); break;
	default: sl_col_i64(c)[i] = (int64_t)(v ^ (UINT64_C(1) << 63)); break;
	}
	return 0;
}

int sl_hash_key_decode(sl_col *const *cols, int n, int64_t row, const void *p,
		       size_t len, size_t *used, sl_err *err)
{
	kread r;
	int k, rc = 0;
	r.p = p;
	r.len = len;
	r.at = 0;
	sl_buf_init(&r.tmp);
	for (k = 0; k < n && rc == 0; k++)
		rc = decode_value(cols[k], row, &r);
	sl_buf_release(&r.tmp);
	if (used != NULL)
		*used = r.at;
	if (rc == SL_ENOMEM)
		return sl_err_nomem(err);
	if (rc < 0)
		return sl_err_set(
		    err, SL_EINTERNAL,
		    "state: a stored key does not decode as the group key types");
	return 0;
}
