/*
 * hash_int: what the files of the hash module share (hash.c, the group
 * table; hash_key.c, the state key encoding).  Engine-internal.
 */
#ifndef SL_HASH_INT_H
#define SL_HASH_INT_H

#include <stdint.h>
#include <string.h>

/* Big-endian stores: encoded keys compare with memcmp. */
static inline void store_be64(unsigned char *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

static inline void store_be32(unsigned char *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

#endif
