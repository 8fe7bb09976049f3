/*
 * clock: the only file in engine/ that reads the system time.
 */
#include "core/clock.h"

#include <stdlib.h>
#include <time.h>

struct sl_clock {
	bool manual;
	int64_t now; /* manual time */
};

sl_clock *sl_clock_new(void)
{
	return calloc(1, sizeof(sl_clock));
}

void sl_clock_free(sl_clock *c)
{
	free(c);
}

static int64_t wall_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t sl_clock_now(const sl_clock *c)
{
	return c->manual ? c->now : wall_us();
}

void sl_clock_set_manual(sl_clock *c, int64_t us)
{
	c->manual = true;
	c->now = us;
}

int64_t sl_clock_advance(sl_clock *c, int64_t us)
{
	if (c->manual && us > 0)
		c->now += us;
	return sl_clock_now(c);
}

void sl_clock_set_real(sl_clock *c)
{
	c->manual = false;
}

bool sl_clock_is_manual(const sl_clock *c)
{
	return c->manual;
}

int64_t sl_clock_monotonic_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
