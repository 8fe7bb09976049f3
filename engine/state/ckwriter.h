/*
 * ckwriter: the checkpoint's background writer, one thread that runs
 * jobs (durable file writes, retention) strictly in the order they were
 * queued, each finished before the next starts.
 *
 * Why: a durable file costs two fsyncs (~1 ms each on this disk) and a
 * batch writes three (offsets/N, the state delta, commits/N).  Done on
 * the batch's thread they cost W4 half of W1's throughput.  Queued, they
 * overlap the next batch's reading and aggregation, and the protocol's
 * order still holds on disk because the queue is FIFO: a crash leaves a
 * prefix of the queued writes, exactly what a synchronous writer would
 * have left at some earlier moment.  The driver waits (sl_ckwriter_wait)
 * where the protocol needs a file durable before it goes on: offsets/N
 * before the sink sees batch N.
 *
 * Failure is sticky: after a job fails, later jobs are not run (a commit
 * must never follow a state file that was not written); the next submit
 * or wait returns the first failure's error.
 *
 * Ownership: a submitted job belongs to the writer, which calls free_fn
 * once it ran or was skipped.  Not for Lua or curses: jobs must not touch
 * anything the batch's thread changes.
 */
#ifndef SL_CKWRITER_H
#define SL_CKWRITER_H

#include <stdint.h>

#include "core/err.h"

typedef struct sl_ckwriter sl_ckwriter;

/* Runs on the writer thread (or inline); 0 or an error in *err. */
typedef int (*sl_ckwriter_fn)(void *job, sl_err *err);
typedef void (*sl_ckwriter_free_fn)(void *job);

sl_ckwriter *sl_ckwriter_new(void);
/* Waits for every queued job, then stops the thread. */
void sl_ckwriter_free(sl_ckwriter *w);

/* Queue job; returns its ticket (> 0), or the first failure's error code
 * (< 0, job freed, nothing queued).  batch tags the job's time
 * (sl_ckwriter_batch_us); -1 for none. */
int64_t sl_ckwriter_submit(sl_ckwriter *w, sl_ckwriter_fn run,
			   sl_ckwriter_free_fn free_fn, void *job,
			   int64_t batch, sl_err *err);
/* Wait until the job with this ticket and all before it are done: 0, or
 * the first failure's error. */
int sl_ckwriter_wait(sl_ckwriter *w, int64_t ticket, sl_err *err);
/* Wait for everything queued so far. */
int sl_ckwriter_sync(sl_ckwriter *w, sl_err *err);
/* True when jobs are queued or running. */
int sl_ckwriter_pending(sl_ckwriter *w);
/* Microseconds the writer spent on the jobs tagged batch (the last 1024
 * batches), or -1 when none ran. */
int64_t sl_ckwriter_batch_us(sl_ckwriter *w, int64_t batch);

#endif
