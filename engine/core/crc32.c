/*
 * crc32: zlib's CRC-32, folded with carry-less multiplies where the CPU
 * has them.  Why: the CRC of every state file is on the writer's path
 * (issue 18).  zlib 1.2.13's table code costs 3.9 instructions a byte
 * here and runs at about 5.5 GB/s, the folding 0.42 instructions a byte
 * and 24-32 GB/s (1 and 6 MiB buffers); on W1-100k through `streamlab
 * run` the CRC was 4.6% of the instructions, 0.5% after.  (zlib itself
 * replaced a slicing-by-8 table, 2-3x slower.)
 *
 * How (Gopal et al., Intel, "Fast CRC Computation for Generic Polynomials
 * Using PCLMULQDQ Instruction", 2009; the same scheme as the Linux
 * kernel's crc32-pclmul_asm.S and Chromium's zlib crc32_simd.c).  A CRC is
 * the message M(x) times x^32 mod P(x).  Keep four 128-bit lanes of
 * message, each standing for the polynomial of its bits; the CRC is
 * unchanged when a lane A is replaced by A * x^512 mod P added into the
 * lane 512 bits further on, and A * x^512 splits into its two 64-bit
 * halves, each times a 33-bit constant x^(512 +- 32) mod P: two PCLMULQDQ
 * and two XORs fold 16 bytes, four independent lanes keep the multiplier
 * busy (fold by 4, 64 bytes a step).  At the end the four lanes fold into
 * one (x^(128 +- 32) mod P), further 16-byte blocks fold the same way,
 * the 128 bits reduce to 64 (x^96) then to 32 bits of remainder (x^64),
 * and a Barrett reduction (mu = floor(x^64 / P)) gives the CRC register.
 * Everything is bit-reflected, as the CRC is: the constants are the
 * remainders reflected over 32 bits and shifted left one (33 bits), and P'
 * and mu are reflected over 33 bits.  They are the published ones, checked
 * by deriving them again with polynomial arithmetic (rederive: r(e) =
 * reflect32(x^e mod P) << 1 for k1..k5); the unit test
 * t010-crc compares every length 0..2048 at every alignment with zlib.
 *
 * Dispatch: once, at the first call, __builtin_cpu_supports (cpuid), so
 * one binary runs on any x86-64 (the Makefile builds without -march); the
 * folding function alone is compiled for pclmul and sse4.1 by a target
 * attribute.  Inputs under 64 bytes, the 0-15 bytes after the last whole
 * block, other CPUs and other architectures take zlib's crc32().
 */
#include "core/crc32.h"

#include <stdatomic.h>
#include <zlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SL_CRC32_CLMUL 1
#include <immintrin.h>
#endif

enum { PATH_UNKNOWN, PATH_TABLE, PATH_CLMUL };

/* The CPU's choice, found at the first call (benign race: every thread
 * finds the same). */
static _Atomic int cpu_path = PATH_UNKNOWN;
static _Atomic bool forced_table;

/* zlib's crc32 takes a uInt length: feed it in chunks of 1 GiB. */
static uint32_t crc32_table(uint32_t crc, const unsigned char *b, size_t n)
{
	uLong c = crc;
	while (n > 0) {
		uInt k = n > (size_t)1 << 30 ? (uInt)1 << 30 : (uInt)n;
		c = crc32(c, b, k);
		b += k;
		n -= k;
	}
	return (uint32_t)c;
}

#ifdef SL_CRC32_CLMUL
static inline __m128i load16(const unsigned char *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* The CRC register (not complemented) after n bytes from b, from register
 * reg; n >= 64 and a multiple of 16. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t
crc32_clmul(uint32_t reg, const unsigned char *b, size_t n)
{
	/* k1 = r(4*128+32), k2 = r(4*128-32): fold by 4 (512 bits) */
	const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
	/* k3 = r(128+32), k4 = r(128-32): fold by 1 (128 bits) */
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	/* k5 = r(64): 96 bits to 64 */
	const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
	/* P' (reflected P, 33 bits) high, mu' (reflected x^64/P) low */
	const __m128i pmu = _mm_set_epi64x(0x01db710641, 0x01f7011641);
	const __m128i lo32 = _mm_setr_epi32(~0, 0, ~0, 0);
	__m128i x1, x2, x3, x4, t1, t2, t3, t4;

	x1 = load16(b + 0x00);
	x2 = load16(b + 0x10);
	x3 = load16(b + 0x20);
	x4 = load16(b + 0x30);
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)reg));
	b += 64;
	n -= 64;

	while (n >= 64) {
		t1 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
		t2 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
		t3 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
		t4 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
		x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
		x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
		x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
		x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, t1), load16(b + 0x00));
		x2 = _mm_xor_si128(_mm_xor_si128(x2, t2), load16(b + 0x10));
		x3 = _mm_xor_si128(_mm_xor_si128(x3, t3), load16(b + 0x20));
		x4 = _mm_xor_si128(_mm_xor_si128(x4, t4), load16(b + 0x30));
		b += 64;
		n -= 64;
	}

	/* four lanes into one */
	t1 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, t1), x2);
	t1 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, t1), x3);
	t1 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, t1), x4);

	/* the remaining whole 16-byte blocks */
	while (n >= 16) {
		t1 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
		x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, t1), load16(b));
		b += 16;
		n -= 16;
	}

	/* 128 bits to 64: the low half times k4 (x^96) into the high half */
	t1 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t1);
	/* 96 bits to 64: the low 32 bits times k5 (x^64) */
	t1 = _mm_srli_si128(x1, 4);
	x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, lo32), k5, 0x00);
	x1 = _mm_xor_si128(x1, t1);

	/* Barrett: q = (R mod x^32) * mu, then R - (q mod x^32) * P */
	t1 = _mm_clmulepi64_si128(_mm_and_si128(x1, lo32), pmu, 0x00);
	t1 = _mm_clmulepi64_si128(_mm_and_si128(t1, lo32), pmu, 0x10);
	x1 = _mm_xor_si128(x1, t1);
	return (uint32_t)_mm_extract_epi32(x1, 1);
}

static int find_cpu_path(void)
{
	int p = atomic_load_explicit(&cpu_path, memory_order_relaxed);
	if (p != PATH_UNKNOWN)
		return p;
	__builtin_cpu_init();
	p = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1")
		? PATH_CLMUL
		: PATH_TABLE;
	atomic_store_explicit(&cpu_path, p, memory_order_relaxed);
	return p;
}
#else
static int find_cpu_path(void)
{
	return PATH_TABLE;
}
#endif

static int path_now(void)
{
	if (atomic_load_explicit(&forced_table, memory_order_relaxed))
		return PATH_TABLE;
	return find_cpu_path();
}

uint32_t sl_crc32(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;
#ifdef SL_CRC32_CLMUL
	if (n >= 64 && path_now() == PATH_CLMUL) {
		size_t whole = n & ~(size_t)15;
		crc = ~crc32_clmul(~crc, b, whole);
		b += whole;
		n -= whole;
	}
#endif
	return n > 0 ? crc32_table(crc, b, n) : crc;
}

void sl_crc32_force_table(bool on)
{
	atomic_store_explicit(&forced_table, on, memory_order_relaxed);
}

const char *sl_crc32_path(void)
{
	return path_now() == PATH_CLMUL ? "pclmul" : "table";
}
