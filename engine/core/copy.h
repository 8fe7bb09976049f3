/*
 * copy: memmove of the few bytes of a key or a value without a libc call
 * (the state stores' hot paths copy one or two of them per changed
 * group: the call was a visible share of a record's cost).  Header only.
 */
#ifndef SL_COPY_H
#define SL_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* dst[0..n) = src[0..n); every source byte is read before the first is
 * written, so the two may overlap (memmove's contract). */
static inline void sl_copy_small(void *dst, const void *src, size_t n)
{
	const unsigned char *p = src;
	unsigned char *d = dst;
	uint64_t a, b, c, e;
	uint32_t x, y;
	if (n > 32) {
		memmove(dst, src, n);
	} else if (n > 16) {
		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		memcpy(&c, p + n - 16, 8);
		memcpy(&e, p + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + 8, &b, 8);
		memcpy(d + n - 16, &c, 8);
		memcpy(d + n - 8, &e, 8);
	} else if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		memcpy(&x, p, 4);
		memcpy(&y, p + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else if (n > 0) {
		unsigned char u = p[0], v = p[n >> 1], w = p[n - 1];
		d[0] = u;
		d[n >> 1] = v;
		d[n - 1] = w;
	}
}

#endif
