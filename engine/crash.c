/*
 * crash: crash points.  The environment is read once per process.
 */
#include "crash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const points[] = {
	"after-offsets", "mid-state",  "after-state",  "mid-sink", "after-sink",
	"before-commit", "mid-commit", "after-commit", NULL
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
		    "crash: unknown point '%s' (expected after-offsets, mid-state, after-state, mid-sink, after-sink, before-commit, mid-commit, after-commit)",
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

bool sl_crash_hits(const sl_crash *c, const char *point, int64_t batch_id)
{
	if (c != NULL && c->armed[0] && strcmp(c->armed, point) == 0)
		return true;
	return env_hits(point, batch_id);
}

int sl_crash_at(sl_crash *c, const char *point, int64_t batch_id, sl_err *err)
{
	if (env_hits(point, batch_id))
		_exit(137); /* a real crash: no atexit, no flush */
	if (c != NULL && c->armed[0] && strcmp(c->armed, point) == 0) {
		c->armed[0] = '\0';
		return sl_err_set(err, SL_ECRASH,
				  "simulated crash at '%s' in batch %lld",
				  point, (long long)batch_id);
	}
	return 0;
}
