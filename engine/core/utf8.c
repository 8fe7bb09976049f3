/*
 * utf8: small, locale-free UTF-8 helpers.
 */
#include "core/utf8.h"

#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

size_t sl_utf8_charlen(const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];
	size_t len, k;
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		len = 2;
	else if ((c & 0xf0) == 0xe0)
		len = 3;
	else if ((c & 0xf8) == 0xf0)
		len = 4;
	else
		return 1;
	if (len > n)
		return 1;
	for (k = 1; k < len; k++)
		if (((unsigned char)s[k] & 0xc0) != 0x80)
			return 1;
	return len;
}

static uint32_t decode(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	switch (len) {
	case 2: return ((uint32_t)(u[0] & 0x1f) << 6) | (u[1] & 0x3f);
	case 3:
		return ((uint32_t)(u[0] & 0x0f) << 12) |
		       ((uint32_t)(u[1] & 0x3f) << 6) | (u[2] & 0x3f);
	case 4:
		return ((uint32_t)(u[0] & 0x07) << 18) |
		       ((uint32_t)(u[1] & 0x3f) << 12) |
		       ((uint32_t)(u[2] & 0x3f) << 6) | (u[3] & 0x3f);
	default: return u[0];
	}
}

static int cpwidth(uint32_t cp)
{
	if (cp == 0)
		return 0;
	if ((cp >= 0x0300 && cp <= 0x036f) || cp == 0x200b)
		return 0; /* combining marks, zero width space */
	if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
	    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
	    (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
	    (cp >= 0xffe0 && cp <= 0xffe6) ||
	    (cp >= 0x1f300 && cp <= 0x1faff) ||
	    (cp >= 0x20000 && cp <= 0x3fffd))
		return 2;
	return 1;
}

size_t sl_utf8_width(const char *s, size_t n)
{
	size_t i = 0, w = 0;
	while (i < n) {
		size_t l = sl_utf8_charlen(s + i, n - i);
		w += (size_t)cpwidth(decode(s + i, l));
		i += l;
	}
	return w;
}

size_t sl_utf8_prefix(const char *s, size_t n, size_t cols)
{
	size_t i = 0, w = 0;
	while (i < n) {
		size_t l = sl_utf8_charlen(s + i, n - i);
		int cw = cpwidth(decode(s + i, l));
		if (w + (size_t)cw > cols)
			break;
		w += (size_t)cw;
		i += l;
	}
	return i;
}

size_t sl_utf8_count(const char *s, size_t n)
{
	size_t i = 0, c = 0;
	while (i < n) {
		i += sl_utf8_charlen(s + i, n - i);
		c++;
	}
	return c;
}

size_t sl_utf8_valid(const char *s, size_t n, size_t *bad)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, k, dummy;
	if (bad == NULL)
		bad = &dummy;
	if (u[0] < 0x80)
		return 1;
	if (u[0] < 0xc2 || u[0] > 0xf4) { /* continuation, overlong, > 10FFFF */
		*bad = 1;
		return 0;
	}
	if (u[0] < 0xe0) {
		len = 2;
	} else if (u[0] < 0xf0) {
		len = 3;
		if (u[0] == 0xe0)
			lo = 0xa0; /* overlong */
		else if (u[0] == 0xed)
			hi = 0x9f; /* surrogates */
	} else {
		len = 4;
		if (u[0] == 0xf0)
			lo = 0x90; /* overlong */
		else if (u[0] == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	}
	for (k = 1; k < len; k++) {
		if (k >= n || u[k] < lo || u[k] > hi) {
			*bad = k;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

size_t sl_utf8_check(const char *s, size_t n)
{
	size_t i = 0, l;
	uint64_t w;
	while (i < n) {
#ifdef __SSE2__
		/* 32 bytes a step: one movemask says whether any is not ASCII
		 * (a 58-byte JSON line: 53 -> about 12 instructions) */
		while (i + 32 <= n) {
			__m128i a = _mm_loadu_si128((const __m128i *)(s + i)),
				b = _mm_loadu_si128(
				    (const __m128i *)(s + i + 16));
			if (_mm_movemask_epi8(_mm_or_si128(a, b)) != 0)
				break;
			i += 32;
		}
#endif
		while (i + 8 <= n) {
			memcpy(&w, s + i, 8);
			if (w & UINT64_C(0x8080808080808080))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if ((l = sl_utf8_valid(s + i, n - i, NULL)) == 0)
			return i;
		i += l;
	}
	return n;
}

int sl_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
