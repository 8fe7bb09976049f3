/*
 * stream: the small shared vocabulary of streaming: output-mode names and
 * ids for queries.
 *
 * Query ids are random (UUID v4 from getrandom(2)): they name a query, they
 * are never part of what a query computes, so they do not break the
 * "every run repeats" rule (STYLE.md, Determinism).
 */
#include "plan/stream.h"

#include <stdio.h>
#include <strings.h>
#include <sys/random.h>

#include "core/clock.h"

int sl_outmode_parse(const char *s, sl_outmode *out, sl_err *err)
{
	if (s != NULL && strcasecmp(s, "append") == 0)
		*out = SL_MODE_APPEND;
	else if (s != NULL && strcasecmp(s, "update") == 0)
		*out = SL_MODE_UPDATE;
	else if (s != NULL && strcasecmp(s, "complete") == 0)
		*out = SL_MODE_COMPLETE;
	else
		return sl_err_set(
		    err, SL_EINVAL,
		    "Unknown output mode %s. Accepted output modes "
		    "are 'append', 'complete', 'update'",
		    s ? s : "null");
	return 0;
}

const char *sl_outmode_name(sl_outmode m)
{
	switch (m) {
	case SL_MODE_UPDATE: return "Update";
	case SL_MODE_COMPLETE: return "Complete";
	case SL_MODE_APPEND:
	default: return "Append";
	}
}

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

void sl_stream_uuid(char out[37])
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
