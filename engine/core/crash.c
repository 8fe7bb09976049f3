/*
 * crash: crash points.  The environment is read once per process.
 */
#include "core/crash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const points[] = {
	"after-offsets", "mid-state",  "mid-state-flush", "after-state",
	"mid-sink",      "after-sink", "before-commit",   "mid-commit",
	"after-commit",  NULL
};

struct sl_crash {
	char armed[32];
};

sl_crash *sl_crash_new(void)
{
	return calloc(1, sizeof(sl_crash));
}

void sl_crash_free(sl_crash *c)
{
	free(c);
}

bool sl_crash_known(const char *point)
{
	int i;
	for (i = 0; points[i] != NULL; i++)
		if (strcmp(points[i], point) == 0)
			return true;
	return false;
}

const char *const *sl_crash_points(void)
{
	return points;
}

int sl_crash_arm(sl_crash *c, const char *point, sl_err *err)
{
	if (!sl_crash_known(point))
		return sl_err_set(
		    err, SL_EINVAL,
		    "crash: unknown point '%s' (expected after-offsets, mid-state, mid-state-flush, after-state, mid-sink, after-sink, before-commit, mid-commit, after-commit)",
		    point);
	snprintf(c->armed, sizeof c->armed, "%s", point);
	return 0;
}

void sl_crash_disarm(sl_crash *c)
{
	if (c != NULL)
		c->armed[0] = '\0';
}

const char *sl_crash_armed(const sl_crash *c)
{
	return c != NULL && c->armed[0] ? c->armed : NULL;
}

/* STREAMLAB_CRASH=point[:batch], parsed once. */
static bool env_hits(const char *point, int64_t batch_id)
{
	static int parsed;
	static char name[32];
	static long long batch = -1;
	if (!parsed) {
		const char *e = getenv("STREAMLAB_CRASH");
		parsed = 1;
		if (e != NULL && *e != '\0') {
			const char *colon = strchr(e, ':');
			size_t n = colon ? (size_t)(colon - e) : strlen(e);
			if (n < sizeof name) {
				memcpy(name, e, n);
				name[n] = '\0';
			}
			if (colon != NULL)
				batch = atoll(colon + 1);
		}
	}
	return name[0] != '\0' && strcmp(name, point) == 0 &&
	       (batch < 0 || batch == batch_id);
}

/* STREAMLAB_CRASH_RANDOM=N[:seed] (RELIABILITY.md T3, RocksDB's
 * whitebox style): every crash point a batch reaches dies with probability
 * 1/N.  A point's draw is made once per (point, batch) and reused by the
 * sl_crash_hits/sl_crash_at pair of the same moment. */
static sl_crash_reporter reporter;

void sl_crash_set_reporter(sl_crash_reporter fn)
{
	reporter = fn;
}

static void die(const char *point, int64_t batch_id)
{
	if (reporter != NULL)
		reporter(point, batch_id);
	_exit(137); /* a real crash: no atexit, no flush */
}

static long rnd_n = -1;
static uint64_t rnd_state;
static const char *rnd_point;
static int64_t rnd_batch = -1;
static bool rnd_hit;

static bool random_hits(const char *point, int64_t batch_id)
{
	if (rnd_n < 0) {
		const char *e = getenv("STREAMLAB_CRASH_RANDOM");
		const char *colon = e ? strchr(e, ':') : NULL;
		rnd_n = e != NULL && *e ? atol(e) : 0;
		rnd_state = colon ? (uint64_t)atoll(colon + 1)
				  : (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
		rnd_state |= 1;
	}
	if (rnd_n <= 0)
		return false;
	if (rnd_point != NULL && strcmp(rnd_point, point) == 0 &&
	    rnd_batch == batch_id)
		return rnd_hit;
	rnd_state ^= rnd_state << 13; /* xorshift64 */
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	rnd_point = point;
	rnd_batch = batch_id;
	rnd_hit = rnd_state % (uint64_t)rnd_n == 0;
	return rnd_hit;
}

bool sl_crash_hits(const sl_crash *c, const char *point, int64_t batch_id)
{
	if (c != NULL && c->armed[0] && strcmp(c->armed, point) == 0)
		return true;
	return env_hits(point, batch_id) || random_hits(point, batch_id);
}

int sl_crash_at(sl_crash *c, const char *point, int64_t batch_id, sl_err *err)
{
	if (env_hits(point, batch_id) || random_hits(point, batch_id))
		die(point, batch_id);
	if (c != NULL && c->armed[0] && strcmp(c->armed, point) == 0) {
		c->armed[0] = '\0';
		return sl_err_set(err, SL_ECRASH,
				  "simulated crash at '%s' in batch %lld",
				  point, (long long)batch_id);
	}
	return 0;
}
