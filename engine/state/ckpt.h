/*
 * ckpt: the checkpoint directory, laid out as Spark's so a learner can put
 * it next to a real one (SPARK-SEMANTICS.md 4; lessons/08, 09):
 *
 *   metadata                {"id":"<uuid>","fingerprint":"<plan hash>"}
 *   offsets/N               v1 \n {"batchWatermarkMs":..,"batchTimestampMs":..,
 *                           "conf":{..}} \n one offset line per source ("-" = none)
 *   commits/N               v1 \n {"nextBatchWatermarkMs":..}
 *   sources/<i>/...         per-source logs (the file source writes them)
 *   state/<op>/0/<V>.delta  our binary records, LZ4-compressed (Spark's
 *                           default state codec), + length + CRC-32 trailer;
 *   state/<op>/0/<V>.snapshot  at a maintenance pass (every
 *                           stateStore.maintenanceInterval of the engine's
 *                           clock, 60 s) once minDeltasForSnapshot (10)
 *                           deltas follow the last one (query_ckpt.c)
 *
 * Every file is written with sl_fs_write_atomic (temp, fsync, link or
 * rename, fsync dir), or without its fsyncs for a temporary checkpoint
 * (sl_ckpt_set_durable); with sl_ckpt_set_async on a background thread, in
 * call order.  A directory this handle made (a log's, a state store's) is
 * not made again by each write: the checkpoint's directories are the
 * engine's, nobody else removes them while it is open.  The checkpoint is locked (flock on <dir>/.lock) by
 * the query that opened it, so a second query on it is refused.
 *
 * Recovery rules (RELIABILITY.md 2): let L = last offsets id, C = last
 * commit id.  No offsets: fresh start.  C == L: next batch L+1.  C == L-1
 * (or no commit and L == 0): re-run L with exactly offsets/L.  Anything
 * else (a gap in offsets ids, commits not a prefix, C < L-1, a commit
 * without offsets) is refused with the file names.  A torn offsets/L that
 * is not committed is discarded by rule (nothing depends on it); a torn
 * committed file is refused, never treated as a first run.  Reading never
 * modifies the checkpoint.
 *
 * Ownership: strings in the structs are malloc'd; release with the
 * matching _release.  Never prints.
 */
#ifndef SL_CKPT_H
#define SL_CKPT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/crash.h"
#include "core/err.h"
#include "core/options.h"
#include "state/state.h"

typedef struct sl_ckpt sl_ckpt;

/* Open (creating dir when missing) and lock.  A held lock: SL_ECHECKPOINT
 * "checkpoint '<dir>' is in use by another running query". */
sl_ckpt *sl_ckpt_open(const char *dir, sl_err *err);
void sl_ckpt_close(sl_ckpt *c);
/* Open for reading only (q:checkpoint() of a query that stopped): no
 * lock, nothing created; SL_ECHECKPOINT when dir does not exist. */
sl_ckpt *sl_ckpt_open_ro(const char *dir, sl_err *err);
const char *sl_ckpt_dir(const sl_ckpt *c);
/* Durable (the default after sl_ckpt_open): every file and its directory
 * are fsync'd before a write returns or its ticket completes, and
 * sl_ckpt_sync means "on disk".  durable=false, for a temporary
 * checkpoint (deleted at stop, no durability promised, as Spark's): the
 * same files, names, atomic renames, order, crash points and recovery,
 * but no fsync anywhere (sl_fs_write durable=false): everything written
 * survives the process dying, not a power cut, and sl_ckpt_sync means
 * "written".  Set it before the first write; not for a read-only handle. */
void sl_ckpt_set_durable(sl_ckpt *c, bool durable);

/* Pipelined writes (ckwriter.h).  On: offsets, state deltas, commits and
 * retention go to a background thread in call order; a call returns once
 * its file is queued, and a failure is returned by a later call or wait.
 * A write that an armed crash point may hit is done in the call, after
 * everything queued.  Off (the default): every call writes before it
 * returns.  Turning it off waits for the queue. */
int sl_ckpt_set_async(sl_ckpt *c, bool on, sl_err *err);
/* Everything written so far is durable (0), or the first failure. */
int sl_ckpt_sync(sl_ckpt *c, sl_err *err);
/* The newest queued write, and a wait for it (and all before it). */
int64_t sl_ckpt_ticket(const sl_ckpt *c);
int sl_ckpt_wait(sl_ckpt *c, int64_t ticket, sl_err *err);
/* Time the background writer spent on batch's files, -1 when unknown. */
int64_t sl_ckpt_batch_write_us(sl_ckpt *c, int64_t batch);

/* metadata: *id / *fingerprint NULL when the file does not exist. */
int sl_ckpt_read_metadata(sl_ckpt *c, char **id, char **fingerprint,
			  sl_err *err);
int sl_ckpt_write_metadata(sl_ckpt *c, const char *id, const char *fingerprint,
			   sl_err *err);

typedef struct sl_ckpt_offsets {
	int64_t watermark_ms;
	int64_t timestamp_ms;
	sl_options conf;
	int nsources;
	char **src; /* JSON text per source, NULL for "-" */
} sl_ckpt_offsets;
void sl_ckpt_offsets_init(sl_ckpt_offsets *o);
void sl_ckpt_offsets_release(sl_ckpt_offsets *o);

/* offsets/N: overwrite only allowed for a discarded torn file. */
int sl_ckpt_write_offsets(sl_ckpt *c, int64_t batch, const sl_ckpt_offsets *o,
			  bool overwrite, sl_crash *crash, sl_err *err);
int sl_ckpt_read_offsets(sl_ckpt *c, int64_t batch, sl_ckpt_offsets *o,
			 sl_err *err);
/* commits/N ("mid-commit" crash point inside). */
int sl_ckpt_write_commit(sl_ckpt *c, int64_t batch, int64_t next_wm_ms,
			 sl_crash *crash, sl_err *err);
int sl_ckpt_read_commit(sl_ckpt *c, int64_t batch, int64_t *next_wm_ms,
			sl_err *err);

typedef struct sl_ckpt_plan {
	int64_t last_offsets;  /* L, -1 when none */
	int64_t last_commit;   /* C, -1 when none */
	bool rerun;            /* batch L was planned but not committed */
	bool torn_last;        /* offsets/L was torn and is discarded: L is
				 then the previous id, and the torn file must
				 be rewritten (overwrite) */
	int64_t first_offsets; /* oldest offsets id kept (retention) */
} sl_ckpt_plan;
/* Validate the logs and say where to start.  Never writes. */
int sl_ckpt_recover(sl_ckpt *c, sl_ckpt_plan *plan, sl_err *err);

/* Delete offsets/commits older than batch keep_from (Spark's
 * minBatchesToRetain), and the state files no longer needed to load any
 * version >= keep_from: per operator, everything older than the newest
 * snapshot <= keep_from.  Best effort.  Log files (offsets, commits,
 * deltas) are kept as spares that later writes overwrite instead of
 * creating files (at most 16 a directory; see ckpt.c); they are past
 * retention from here on, whatever their names. */
void sl_ckpt_purge(sl_ckpt *c, int64_t keep_from);
/* Delete the spares (after the queued writes), leaving exactly the files
 * retention keeps: for a clean stop.  A crash leaves them, as the purge
 * after the restart deletes or reuses them. */
void sl_ckpt_drop_spares(sl_ckpt *c);
/* Remove leftover temp files everywhere in the checkpoint. */
int sl_ckpt_sweep(sl_ckpt *c);
/* Create offsets/ and commits/ if missing, as Spark's logs do when a query
 * starts: the first batch does not pay for new directories (on a fresh
 * block group, cold bitmaps read from disk: ~10 ms here). */
int sl_ckpt_make_logs(sl_ckpt *c, sl_err *err);

/* ---- state ---- */
/* Write version `version` of operator op's store: the pending changes as
 * <version>.delta, plus a full <version>.snapshot when snapshot is true.
 * Crash point "mid-state" tears the delta. */
int sl_ckpt_state_save(sl_ckpt *c, int op, sl_state *s, int64_t version,
		       bool snapshot, sl_crash *crash, int64_t batch,
		       sl_err *err);
/* Load version into s (reset first): the newest snapshot <= version plus
 * the deltas after it; *base (may be NULL) = the snapshot's version, 0
 * when none was read.  A missing or torn file is an error naming it. */
int sl_ckpt_state_load(sl_ckpt *c, int op, int64_t version, sl_state *s,
		       int64_t *base, sl_err *err);
/* The records of version's delta of operator op, in file order (the
 * removes, then the puts: apply them in order), through
 * fn(ud, key, klen, val, vlen), val NULL for a removed key; stops at a
 * nonzero return of fn, which is returned.  A missing file sets *missing
 * (may be NULL) and, as a torn one, is SL_ECHECKPOINT naming it.  For the
 * state reader's change feed (driver/state_read.h). */
int sl_ckpt_state_delta(sl_ckpt *c, int op, int64_t version, sl_state_fn fn,
			void *ud, bool *missing, sl_err *err);
/* Path of a file inside the checkpoint (for messages and lessons). */
void sl_ckpt_path(const sl_ckpt *c, const char *rel, char *out, size_t n);

#endif
