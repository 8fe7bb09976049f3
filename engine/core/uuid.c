/*
 * uuid: random UUID v4 (see uuid.h).
 */
#include "core/uuid.h"

#include <stdio.h>
#include <sys/random.h>

#include "core/clock.h"

/* Fill buf with random bytes; getrandom only fails on exotic kernels, where
 * a time-seeded fallback is still good enough for a name. */
static void random_bytes(unsigned char *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;
	while (got < n) {
		r = getrandom(buf + got, n - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got < n) {
		unsigned long x = (unsigned long)sl_clock_monotonic_us();
		for (; got < n; got++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			buf[got] = (unsigned char)(x >> 33);
		}
	}
}

void sl_uuid_v4(char out[37])
{
	unsigned char b[16];
	random_bytes(b, sizeof b);
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}
