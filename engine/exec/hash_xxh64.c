/*
 * hash_xxh64: XXH64 (hash.h), bit-exact with the reference implementation
 * and so with Spark's XxHash64 (approx_count_distinct hashes with it).
 */
#include "exec/hash.h"

#include <string.h>

#define XP1 UINT64_C(0x9E3779B185EBCA87)
#define XP2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define XP3 UINT64_C(0x165667B19E3779F9)
#define XP4 UINT64_C(0x85EBCA77C2B2AE63)
#define XP5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t xround(uint64_t acc, uint64_t in)
{
	acc += in * XP2;
	acc = rotl64(acc, 31);
	return acc * XP1;
}

static inline uint64_t xmerge(uint64_t acc, uint64_t v)
{
	acc ^= xround(0, v);
	return acc * XP1 + XP4;
}

uint64_t sl_hash_xxh64(const void *data, size_t n, uint64_t seed)
{
	const unsigned char *p = data, *end = p + n;
	uint64_t h, w;
	uint32_t w32;
	if (n >= 32) {
		uint64_t v1 = seed + XP1 + XP2, v2 = seed + XP2, v3 = seed,
			 v4 = seed - XP1;
		do {
			memcpy(&w, p, 8);
			v1 = xround(v1, w);
			memcpy(&w, p + 8, 8);
			v2 = xround(v2, w);
			memcpy(&w, p + 16, 8);
			v3 = xround(v3, w);
			memcpy(&w, p + 24, 8);
			v4 = xround(v4, w);
			p += 32;
		} while (p + 32 <= end);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) +
		    rotl64(v4, 18);
		h = xmerge(h, v1);
		h = xmerge(h, v2);
		h = xmerge(h, v3);
		h = xmerge(h, v4);
	} else {
		h = seed + XP5;
	}
	h += (uint64_t)n;
	for (; p + 8 <= end; p += 8) {
		memcpy(&w, p, 8);
		h ^= xround(0, w);
		h = rotl64(h, 27) * XP1 + XP4;
	}
	if (p + 4 <= end) {
		memcpy(&w32, p, 4);
		h ^= (uint64_t)w32 * XP1;
		h = rotl64(h, 23) * XP2 + XP3;
		p += 4;
	}
	for (; p < end; p++) {
		h ^= (*p) * XP5;
		h = rotl64(h, 11) * XP1;
	}
	h ^= h >> 33;
	h *= XP2;
	h ^= h >> 29;
	h *= XP3;
	h ^= h >> 32;
	return h;
}
