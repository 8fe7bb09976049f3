/*
 * clock: the one source of time for the engine (STYLE.md, Determinism).
 *
 * Real (wall clock, microseconds since the epoch) or manual (a value that
 * only moves when told to).  Triggers, batch timestamps,
 * current_timestamp() and progress durations read only this.  Lessons and
 * tests use the manual clock, so every run prints the same thing.
 *
 * Ownership: the session owns its clock; queries borrow it.
 */
#ifndef SL_CLOCK_H
#define SL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sl_clock sl_clock;

/* A new real clock, or NULL on out of memory. */
sl_clock *sl_clock_new(void);
void sl_clock_free(sl_clock *c);

/* Microseconds since 1970-01-01T00:00:00Z. */
int64_t sl_clock_now(const sl_clock *c);
/* Switch to manual time, set to us. */
void sl_clock_set_manual(sl_clock *c, int64_t us);
/* Move a manual clock forward by us (>= 0); no-op on a real clock.
 * Returns the new time. */
int64_t sl_clock_advance(sl_clock *c, int64_t us);
/* Back to wall time. */
void sl_clock_set_real(sl_clock *c);
bool sl_clock_is_manual(const sl_clock *c);

/* Monotonic microseconds for measuring real elapsed time (benchmarks,
 * REPL timers); never used for anything a query computes. */
int64_t sl_clock_monotonic_us(void);

#endif
