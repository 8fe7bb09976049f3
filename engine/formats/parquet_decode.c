/*
 * parquet_decode: the bit-level decoders of Encodings.md that trust
 * nothing: the RLE / bit-packed hybrid (definition levels, dictionary ids,
 * booleans) and DELTA_BINARY_PACKED (ints, and the lengths and prefixes
 * of the delta string encodings).  Pure functions over a byte range: a
 * run, group or miniblock that claims more than the bytes hold is
 * refused (or, for a short last group, cut to the values that are all
 * there); nothing reads past the range.
 */
#include "formats/parquet_int.h"

#include <string.h>

/* ---- RLE / bit-packed hybrid ---- */

void pq_rle_init(pq_rle *r, const uint8_t *p, size_t n, int bw)
{
	memset(r, 0, sizeof *r);
	r->p = p;
	r->end = p + n;
	r->bw = bw;
}

bool pq_rle_varint(pq_rle *r, uint64_t *v)
{
	int s;
	*v = 0;
	for (s = 0; s < 64 && r->p < r->end; s += 7) {
		uint8_t b = *r->p++;
		*v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static uint32_t unpack1(const uint8_t *p, const uint8_t *end, int64_t pos,
			int bw)
{
	uint64_t bit = (uint64_t)pos * (uint64_t)bw, w = 0;
	const uint8_t *q = p + (bit >> 3);
	size_t k, avail = (size_t)(end - q);
	if (avail >= 8) {
		memcpy(&w, q, 8); /* little-endian hosts, as the writer */
	} else {
		for (k = 0; k < avail; k++)
			w |= (uint64_t)q[k] << (8 * k);
	}
	return (uint32_t)((w >> (bit & 7)) & ((UINT64_C(1) << bw) - 1));
}

/* Next n values into out; false when the data runs out or is bad. */
bool pq_rle_get(pq_rle *r, uint32_t *out, int64_t n)
{
	int64_t got = 0;
	while (got < n) {
		int64_t take, k;
		if (r->left == 0) {
			uint64_t h;
			if (!pq_rle_varint(r, &h))
				return false;
			if (h & 1) {
				uint64_t groups = h >> 1;
				size_t bytes, have = (size_t)(r->end - r->p);
				if (groups == 0 || groups > (UINT64_C(1) << 28))
					return false;
				bytes = (size_t)groups * (size_t)r->bw;
				r->left = (int64_t)groups * 8;
				if (bytes > have) {
					/* a short last group: keep the
					 * values that are all there */
					bytes = have;
					if (r->bw > 0)
						r->left =
						    (int64_t)(have * 8 /
							      (size_t)r->bw);
				}
				if (r->left == 0)
					return false;
				r->packed = true;
				r->pk = r->p;
				r->pkend = r->p + bytes;
				r->pos = 0;
				r->p += bytes;
			} else {
				int vb = (r->bw + 7) / 8, b;
				uint64_t v = 0;
				if (h >> 1 == 0 ||
				    (h >> 1) > (UINT64_C(1) << 40))
					return false;
				if (r->end - r->p < vb)
					return false;
				for (b = 0; b < vb; b++)
					v |= (uint64_t)r->p[b] << (8 * b);
				r->p += vb;
				if (r->bw < 32 && v >> r->bw)
					return false;
				r->packed = false;
				r->val = (uint32_t)v;
				r->left = (int64_t)(h >> 1);
			}
		}
		take = r->left < n - got ? r->left : n - got;
		if (r->packed) {
			for (k = 0; k < take; k++)
				out[got + k] = r->bw ? unpack1(r->pk, r->pkend,
							       r->pos++, r->bw)
						     : 0;
		} else {
			for (k = 0; k < take; k++)
				out[got + k] = r->val;
		}
		got += take;
		r->left -= take;
	}
	return true;
}

/* ---- DELTA_BINARY_PACKED and the encodings built on it ---- */

static uint64_t get_bits(const uint8_t *p, const uint8_t *end, uint64_t bit,
			 int nbits)
{
	const uint8_t *q = p + (bit >> 3);
	uint64_t w = 0;
	size_t k, avail = q < end ? (size_t)(end - q) : 0;
	if (nbits == 0)
		return 0;
	if (avail > 8)
		avail = 8;
	for (k = 0; k < avail; k++)
		w |= (uint64_t)q[k] << (8 * k);
	return (w >> (bit & 7)) & ((UINT64_C(1) << nbits) - 1);
}

static uint64_t unpack64(const uint8_t *p, const uint8_t *end, int64_t pos,
			 int bw)
{
	uint64_t bit = (uint64_t)pos * (uint64_t)bw;
	if (bw <= 32)
		return get_bits(p, end, bit, bw);
	return get_bits(p, end, bit, 32) | get_bits(p, end, bit + 32, bw - 32)
					       << 32;
}

/* Decode exactly want values (the header's count must say so) from
 * p[0..n) into out; *used gets the bytes the encoding took.  is32: the
 * arithmetic wraps at 32 bits (INT32 columns, lengths). */
bool pq_dbp_decode(const uint8_t *p, size_t n, int64_t want, int64_t *out,
		   size_t *used, bool is32)
{
	pq_rle c;
	uint64_t bsize, nmb, total, zz, vpm;
	uint64_t prev;
	int64_t got = 0;
	pq_rle_init(&c, p, n, 0);
	if (!pq_rle_varint(&c, &bsize) || !pq_rle_varint(&c, &nmb) ||
	    !pq_rle_varint(&c, &total) || !pq_rle_varint(&c, &zz))
		return false;
	if (bsize == 0 || nmb == 0 || bsize % nmb || bsize > (1u << 20) ||
	    (bsize / nmb) % 8 || total != (uint64_t)want)
		return false;
	vpm = bsize / nmb;
	prev = (zz >> 1) ^ -(zz & 1);
	if (want > 0)
		out[got++] = is32 ? (int32_t)(uint32_t)prev : (int64_t)prev;
	while (got < want) {
		uint64_t m, mz, mind;
		const uint8_t *widths;
		if (!pq_rle_varint(&c, &mz))
			return false;
		mind = (mz >> 1) ^ -(mz & 1);
		if ((uint64_t)(c.end - c.p) < nmb)
			return false;
		widths = c.p;
		c.p += nmb;
		for (m = 0; m < nmb && got < want; m++) {
			int bw = widths[m];
			size_t bytes = (size_t)(vpm * (uint64_t)bw / 8);
			size_t have = (size_t)(c.end - c.p);
			uint64_t k;
			if (bw > (is32 ? 32 : 64))
				return false;
			if (bytes > have) {
				/* a short last miniblock: only what is there */
				if ((uint64_t)(want - got) * (uint64_t)bw >
				    (uint64_t)have * 8)
					return false;
				bytes = have;
			}
			for (k = 0; k < vpm && got < want; k++) {
				prev += mind + unpack64(c.p, c.p + bytes,
							(int64_t)k, bw);
				out[got++] = is32 ? (int32_t)(uint32_t)prev
						  : (int64_t)prev;
			}
			c.p += bytes;
		}
	}
	*used = (size_t)(c.p - p);
	return true;
}
