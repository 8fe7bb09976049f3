/*
 * crash: named crash points in the batch protocol, for the classroom and
 * for the recovery tests (RELIABILITY.md 3.2; lessons/08).
 *
 * Two ways to hit one:
 *  - in-process: sl_crash_arm(c, "after-sink") arms a point for the next
 *    batch that reaches it; the driver then stops there as if the process
 *    died: the operation returns SL_ECRASH, nothing after it runs, files
 *    stay exactly as they are (a "mid-" point leaves a half-written temp
 *    file), and the query throws its in-memory state away;
 *  - real: the environment variable STREAMLAB_CRASH=point[:batch] makes
 *    the process _exit(137) at that point (of that batch id, or the first
 *    batch that reaches it), for tests that kill and restart the program.
 *
 * Points, in protocol order: after-offsets, mid-state, mid-state-flush,
 * after-state, mid-sink, after-sink, before-commit, mid-commit,
 * after-commit.  mid-state-flush: the state delta is named but its bytes
 * and its directory are not flushed yet (fsutil.h's late flush; issue 18
 * item 6): the process dies with the delta whole in the page cache.
 */
#ifndef SL_CRASH_H
#define SL_CRASH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"

typedef struct sl_crash sl_crash;

sl_crash *sl_crash_new(void);
void sl_crash_free(sl_crash *c);
/* Arm an in-process point (one shot).  SL_EINVAL for an unknown name,
 * listing the known ones. */
int sl_crash_arm(sl_crash *c, const char *point, sl_err *err);
void sl_crash_disarm(sl_crash *c);
/* The armed point or NULL. */
const char *sl_crash_armed(const sl_crash *c);
bool sl_crash_known(const char *point);
/* The known points, NULL-terminated. */
const char *const *sl_crash_points(void);

/* Called by the driver and the writers at a point: returns 0, or
 * SL_ECRASH ("simulated crash at 'after-sink' in batch 5") when the armed
 * in-process point matches (it disarms), or never returns when
 * STREAMLAB_CRASH matches.  c may be NULL (env check only). */
int sl_crash_at(sl_crash *c, const char *point, int64_t batch_id, sl_err *err);
/* True when point is armed (in-process) or selected by the environment for
 * batch_id: writers use it to decide to stop half way. */
bool sl_crash_hits(const sl_crash *c, const char *point, int64_t batch_id);

/* STREAMLAB_CRASH_RANDOM=N[:seed]: every point a batch reaches makes the
 * process _exit(137) with probability 1/N (RELIABILITY.md T3).  The engine
 * never prints: a program that wants the dying point told (on stderr, for
 * the tests that count points) registers a reporter, called just before
 * the _exit of a real (environment) crash. */
typedef void (*sl_crash_reporter)(const char *point, int64_t batch_id);
void sl_crash_set_reporter(sl_crash_reporter fn);

#endif
