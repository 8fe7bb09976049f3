/*
 * front: the front-coded state record, the records of an "SLSF" state
 * file (ckpt_state.c): each is
 *   {uvar bytes its key shares with the previous record's key,
 *    uvar length of the rest of the key, the rest,
 *    uvar value length + 1 (0: a remove), the value}
 * (uvar: 7 bits a byte, low first, the high bit "more follows"; the
 * first record shares nothing).  A W1-100k record, 47 bytes plain, is
 * ~16 coded.
 *
 * The writer's side, inline: the stores code each record as they make
 * it, straight into sl_state_write's sink (state.h), one pass over the
 * bytes (a store wrote plain records that ckpt_state.c then coded: two
 * passes, the coding a quarter of W1-1M's instructions).  ckpt_state.c
 * reads them (walk_front_some).
 */
#ifndef SL_FRONT_H
#define SL_FRONT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/copy.h"

/* Room one coded record of a kl-byte key and a vl-byte value takes at
 * most: three uvars of a u32 (<= 5 bytes each) and the bytes. */
#define SL_FRONT_MAX(kl, vl) ((size_t)(kl) + (size_t)(vl) + 15)

static inline unsigned char *sl_front_uvar(unsigned char *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*o++ = (unsigned char)v;
	return o;
}

/* The bytes a[0..n) and b[0..n) share at their start, 8 at a time. */
static inline size_t sl_front_shared(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	size_t i = 0;
	uint64_t u, v;
	for (; i + 8 <= n; i += 8) {
		memcpy(&u, x + i, 8);
		memcpy(&v, y + i, 8);
		if (u != v) /* the first differing byte (little-endian) */
			return i + ((size_t)__builtin_ctzll(u ^ v) >> 3);
	}
	while (i < n && x[i] == y[i])
		i++;
	return i;
}

/* A record's key part: key k[0..kl) at o coded against the previous
 * key prev[0..pl) (pl 0: the first record); returns its end. */
static inline unsigned char *sl_front_key(unsigned char *o, const void *prev,
					  size_t pl, const void *k, size_t kl)
{
	size_t sh = sl_front_shared(k, prev, kl < pl ? kl : pl), rest = kl - sh;
	if (sh < 0x80 && rest < 0x80) {
		o[0] = (unsigned char)sh;
		o[1] = (unsigned char)rest;
		o += 2;
	} else {
		o = sl_front_uvar(sl_front_uvar(o, sh), rest);
	}
	sl_copy_small(o, (const unsigned char *)k + sh, rest);
	return o + rest;
}

/* A record's value part: v[0..vl) at o (v NULL: a remove's mark);
 * returns its end. */
static inline unsigned char *sl_front_value(unsigned char *o, const void *v,
					    size_t vl)
{
	if (v == NULL) {
		*o = 0;
		return o + 1;
	}
	if (vl < 0x7f)
		*o++ = (unsigned char)(vl + 1);
	else
		o = sl_front_uvar(o, (uint64_t)vl + 1);
	sl_copy_small(o, v, vl);
	return o + vl;
}

/* The record of key k[0..kl) and value v[0..vl) (v NULL: a remove) at
 * o (room SL_FRONT_MAX(kl, vl)), coded against prev[0..pl); returns the
 * record's end. */
static inline unsigned char *sl_front_code(unsigned char *o, const void *prev,
					   size_t pl, const void *k, size_t kl,
					   const void *v, size_t vl)
{
	return sl_front_value(sl_front_key(o, prev, pl, k, kl), v, vl);
}

#endif
