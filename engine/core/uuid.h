/*
 * uuid: random UUIDs (version 4, RFC 4122) for query ids, run ids and the
 * file writer's part-file names.  They name things and never enter a
 * query's results, so they do not break "every run repeats" (STYLE.md,
 * Determinism).
 */
#ifndef SL_UUID_H
#define SL_UUID_H

/* "8-4-4-4-12" lower-case hex and a NUL into out, from getrandom(2); where
 * getrandom fails (exotic kernels) from a generator seeded by the
 * monotonic clock, still good enough for a name. */
void sl_uuid_v4(char out[37]);

#endif
