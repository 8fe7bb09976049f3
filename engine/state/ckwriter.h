/*
 * ckwriter: the checkpoint's background writer: jobs (durable file writes,
 * retention) run strictly in the order they were queued, each finished
 * before the next starts, on one thread (the name lane); a job may come
 * with a stage, run ahead of that order on a second thread (the data
 * lane).
 *
 * Why: a durable file costs two device flushes (its data, then the
 * directory that names it) and a batch writes three (offsets/N, the state
 * delta, commits/N).  Done on the batch's thread they cost W4 half of
 * W1's throughput.  Queued, they overlap the next batch's reading and
 * aggregation, and the protocol's order still holds on disk because the
 * runs are FIFO: a crash leaves a prefix of the queued writes, exactly
 * what a synchronous writer would have left at some earlier moment.  The
 * driver waits (sl_ckwriter_wait) where the protocol needs a file durable
 * before it goes on: offsets/N before the sink sees batch N.
 *
 * Two lanes (issue 18 item 6): a file's stage writes and fsyncs its temp
 * file, which no reader and no recovery ever looks at, so it may run
 * while earlier jobs' names are still being published: the delta's data
 * flush overlaps offsets/N's directory flush, commits/N's data the
 * delta's name.  The data lane takes jobs in queue order; a stage waits
 * while an earlier job with the same key (its directory: fsutil's spare
 * file is the previous write's until that one is published) is queued.
 * What reaches the disk as names is unchanged: runs in order, each done
 * before the next, so the prefix argument above holds word for word, and
 * a power cut adds at most temp files (swept by recovery).
 *
 * Failure is sticky: after a job (its stage or its run) fails, later jobs
 * are not run (a commit must never follow a state file that was not
 * written); the next submit or wait returns the first failure's error,
 * in queue order.
 *
 * Ownership: a submitted job belongs to the writer, which calls free_fn
 * once it ran or was skipped (a staged job that is skipped must undo its
 * stage there).  Not for Lua or curses: jobs must not touch anything the
 * batch's thread changes; a stage must not touch what runs change.
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
/* Waits for every queued job, then stops the lanes. */
void sl_ckwriter_free(sl_ckwriter *w);

/* Queue job; returns its ticket (> 0), or the first failure's error code
 * (< 0, job freed, nothing queued).  batch tags the job's time
 * (sl_ckwriter_batch_us); -1 for none. */
int64_t sl_ckwriter_submit(sl_ckwriter *w, sl_ckwriter_fn run,
			   sl_ckwriter_free_fn free_fn, void *job,
			   int64_t batch, sl_err *err);
/* As sl_ckwriter_submit, with stage (may be NULL) run first on the data
 * lane: after every earlier job's stage, and after every earlier job with
 * the same key (0: none) has run; run then runs in queue order after it.
 * A failed stage fails the job: run is not called. */
int64_t sl_ckwriter_submit_staged(sl_ckwriter *w, sl_ckwriter_fn stage,
				  sl_ckwriter_fn run,
				  sl_ckwriter_free_fn free_fn, void *job,
				  int64_t batch, uint64_t key, sl_err *err);
/* Wait until the job with this ticket and all before it are done: 0, or
 * the first failure's error. */
int sl_ckwriter_wait(sl_ckwriter *w, int64_t ticket, sl_err *err);
/* Wait for everything queued so far. */
int sl_ckwriter_sync(sl_ckwriter *w, sl_err *err);
/* True when jobs are queued or running. */
int sl_ckwriter_pending(sl_ckwriter *w);
/* Microseconds the writer spent on the jobs tagged batch (the last 1024
 * batches), or -1 when none ran: wall time while either lane worked on
 * them (the union of their stages' and runs' intervals). */
int64_t sl_ckwriter_batch_us(sl_ckwriter *w, int64_t batch);

#endif
