/*
 * crc32: the CRC-32 that ends every checkpoint state file (and any other
 * file trailer).  It is zlib's crc32(), the IEEE 802.3 CRC: reflected
 * polynomial 0xEDB88320, register preset to 0xFFFFFFFF and the result
 * complemented, crc32(0, "", 0) == 0.  It must stay bit-for-bit that CRC:
 * every checkpoint written before is verified with it.
 *
 * Two paths, one value: on x86-64 CPUs with PCLMULQDQ and SSE4.1 (chosen
 * once, at the first call, by asking the CPU) inputs of 64 bytes and more
 * are folded with carry-less multiplies, the rest (short inputs, the last
 * 0-15 bytes, other CPUs) go to zlib's table code.  crc32.c says how.
 *
 * Thread-safe; borrows the bytes for the call only; never fails.
 */
#ifndef SL_CRC32_H
#define SL_CRC32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of p[0..n) continued from crc, the CRC of what came before
 * (0 to start): sl_crc32(sl_crc32(0, a, na), b, nb) is the CRC of a then
 * b.  p may be NULL when n is 0. */
uint32_t sl_crc32(uint32_t crc, const void *p, size_t n);

/* For tests: true makes sl_crc32 take the table path for every length
 * whatever the CPU offers; false returns to the CPU's choice.  Either path
 * gives the same value, so a call racing with the switch is still right. */
void sl_crc32_force_table(bool on);

/* The path sl_crc32 takes now for 64 bytes and more: "pclmul" or "table"
 * (static string). */
const char *sl_crc32_path(void);

#endif
