/*
 * hash_int: what the files of the hash module share (hash.c, the group
 * table; hash_key.c, the state key encoding).  Engine-internal.
 */
#ifndef SL_HASH_INT_H
#define SL_HASH_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "exec/hash.h"

/* Whether t holds its keys packed (hash.c) now; for tests. */
bool sl_hash_groups_packed(const sl_hash_groups *t);
/* Move a packed table's groups to the per-leaf layout, as a string too
 * long to pack does (the same ids; per-leaf until cleared): tests compare
 * the two layouts with it.  SL_ENOMEM leaves t packed. */
int sl_hash_groups_unpack(sl_hash_groups *t);

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
