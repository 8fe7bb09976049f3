/* t010-crc: sl_crc32 is zlib's crc32, on the folding (PCLMULQDQ) path and
 * on the table path (forced with sl_crc32_force_table): every length
 * 0..2048 at every alignment 0..15 of random bytes, chained calls split
 * anywhere, large buffers, and the CPU dispatch itself. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/crc32.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	/* splitmix64: fixed seed, the same bytes every run */
	uint64_t z = (rng += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)next();
}

/* zlib's answer, in 1 GiB pieces as its uInt length wants */
static uint32_t ref(uint32_t crc, const unsigned char *p, size_t n)
{
	uLong c = crc;
	while (n > 0) {
		uInt k = n > (size_t)1 << 30 ? (uInt)1 << 30 : (uInt)n;
		c = crc32(c, p, k);
		p += k;
		n -= k;
	}
	return (uint32_t)c;
}

static void known_values(const char *path)
{
	is_int(sl_crc32(0, NULL, 0), 0, "%s: empty input, NULL pointer", path);
	is_int(sl_crc32(0x12345678, "", 0), 0x12345678,
	       "%s: empty input keeps the crc", path);
	is_int(sl_crc32(0, "123456789", 9), 0xCBF43926u,
	       "%s: check value of CRC-32/IEEE", path);
	/* 64 bytes and more reach the folding path: "0123456789" x 10 */
	char s[101];
	for (int i = 0; i < 100; i++)
		s[i] = (char)('0' + i % 10);
	is_int(sl_crc32(0, s, 100), ref(0, (const unsigned char *)s, 100),
	       "%s: 100 digits as zlib", path);
}

/* every length 0..2048 at every alignment 0..15, one ok per alignment,
 * from crc 0 and from a running crc */
static void every_length(const char *path, const unsigned char *buf)
{
	for (size_t al = 0; al < 16; al++) {
		int bad = 0;
		size_t first = 0;
		for (size_t n = 0; n <= 2048; n++) {
			const unsigned char *p = buf + al;
			uint32_t seed =
			    n % 3 == 0 ? 0 : (uint32_t)(n * 0x9e3779b1u);
			if (sl_crc32(seed, p, n) != ref(seed, p, n)) {
				if (bad++ == 0)
					first = n;
			}
		}
		if (!ok(bad == 0,
			"%s: lengths 0..2048 at alignment %zu as zlib", path,
			al))
			diag("%d lengths differ, the first %zu", bad, first);
	}
}

/* crc(a || b) == crc(crc(a), b) at every split of a few lengths, and
 * three-way splits at random points */
static void chained(const char *path, const unsigned char *buf)
{
	static const size_t lens[] = { 63, 64, 65, 127, 128, 200, 1000, 4099 };
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		size_t n = lens[i];
		uint32_t whole = ref(0, buf + 3, n);
		int bad = 0;
		for (size_t k = 0; k <= n; k++) {
			uint32_t c = sl_crc32(0, buf + 3, k);
			if (sl_crc32(c, buf + 3 + k, n - k) != whole)
				bad++;
		}
		if (!ok(bad == 0, "%s: %zu bytes split at every point", path,
			n))
			diag("%d splits differ", bad);
	}
	int bad = 0;
	for (int r = 0; r < 2000; r++) {
		size_t n = (size_t)(next() % 65536),
		       a = (size_t)(next() % (n + 1));
		size_t b = a + (size_t)(next() % (n - a + 1)),
		       off = (size_t)(next() % 16);
		uint32_t c = sl_crc32(0, buf + off, a);
		c = sl_crc32(c, buf + off + a, b - a);
		c = sl_crc32(c, buf + off + b, n - b);
		if (c != ref(0, buf + off, n))
			bad++;
	}
	ok(bad == 0, "%s: 2000 random three-way splits up to 64 KiB", path);
}

static void large(const char *path, const unsigned char *big, size_t nbig)
{
	is_int(sl_crc32(0, big, 1 << 20), ref(0, big, 1 << 20), "%s: 1 MiB",
	       path);
	is_int(sl_crc32(0, big + 1, nbig - 1), ref(0, big + 1, nbig - 1),
	       "%s: 16 MiB + 7 bytes at an odd address", path);
	unsigned char *z = calloc(1, 1 << 20);
	if (z == NULL)
		return;
	is_int(sl_crc32(0, z, 1 << 20), ref(0, z, 1 << 20),
	       "%s: 1 MiB of zeros", path);
	memset(z, 0xff, 1 << 20);
	is_int(sl_crc32(0xffffffffu, z, (1 << 20) - 5),
	       ref(0xffffffffu, z, (1 << 20) - 5),
	       "%s: 1 MiB - 5 of 0xff from crc 0xffffffff", path);
	free(z);
}

static void run_all(const char *path, const unsigned char *buf,
		    const unsigned char *big, size_t nbig)
{
	known_values(path);
	every_length(path, buf);
	chained(path, buf);
	large(path, big, nbig);
}

int main(void)
{
	size_t nbuf = 65536 + 64, nbig = ((size_t)16 << 20) + 8;
	unsigned char *buf = malloc(nbuf), *big = malloc(nbig);
	if (buf == NULL || big == NULL) {
		printf("Bail out! out of memory\n");
		return 1;
	}
	fill(buf, nbuf);
	fill(big, nbig);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	const char *want =
	    __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1")
		? "pclmul"
		: "table";
#else
	const char *want = "table";
#endif
	is_str(sl_crc32_path(), want, "dispatch follows the CPU");
	run_all(sl_crc32_path(), buf, big, nbig);

	sl_crc32_force_table(true);
	is_str(sl_crc32_path(), "table", "forced: the table path");
	run_all("forced table", buf, big, nbig);
	sl_crc32_force_table(false);
	is_str(sl_crc32_path(), want, "unforced: the CPU's path again");

	free(buf);
	free(big);
	return done_testing();
}
