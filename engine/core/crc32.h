/*
 * crc32: the CRC-32 that ends every checkpoint state file (and any other
 * file trailer).  It is zlib's crc32(), the IEEE 802.3 CRC: reflected
 * polynomial 0xEDB88320, register preset to 0xFFFFFFFF and the result
 * complemented, crc32(0, "", 0) == 0.  It must stay bit-for-bit that CRC:
 * every checkpoint written before is verified with it.
 *
 * Thread-safe; borrows the bytes for the call only; never fails.
 */
#ifndef SL_CRC32_H
#define SL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of p[0..n) continued from crc, the CRC of what came before
 * (0 to start): sl_crc32(sl_crc32(0, a, na), b, nb) is the CRC of a then
 * b.  p may be NULL when n is 0. */
uint32_t sl_crc32(uint32_t crc, const void *p, size_t n);

#endif
