/*
 * ckpt_int: what ckpt.c (logs, recovery, the writer, spares) and
 * ckpt_state.c (state deltas and snapshots) share.  Never included from
 * outside the module.
 */
#ifndef SL_CKPT_INT_H
#define SL_CKPT_INT_H

#include <pthread.h>

#include "core/buf.h"
#include "state/ckpt.h"
#include "state/ckwriter.h"

/* A snapshot being written by a helper thread (never touches Lua or
 * the state store: it gets the serialized payload). */
struct snapjob {
	pthread_t thr;
	sl_buf b;
	char path[4400];
	int op;
	int64_t version;
	bool durable; /* the checkpoint's (sl_ckpt_set_durable) */
	struct snapjob *next;
};

/* Files past retention kept for reuse, one list per log directory.
 * Why: on this kind of machine creating a file costs about what its fsync
 * does (ext4 walks the inodes deleted in the last seconds to find a free
 * one) and deleting one half that; a log that creates three files a batch
 * and deletes three spent most of its time there.  As PostgreSQL recycles
 * WAL segments, a purged file becomes its directory's spare and the next
 * write there overwrites it (sl_fs_write_reusing).  Touched only by the
 * writer's jobs, or by the caller once the writer is idle. */
#define SPARES_MAX 16
struct spares {
	char *dir;
	char *path[SPARES_MAX]; /* oldest first */
	int n;
};

struct sl_ckpt {
	char *dir;
	int lockfd;
	struct snapjob *jobs; /* snapshots in flight */
	sl_ckwriter *w;       /* pipelined writes (sl_ckpt_set_async) */
	int64_t last_ticket;  /* of the newest queued write */
	struct spares *sp;    /* per log directory */
	int nsp;
	bool durable;        /* fsync every file (sl_ckpt_set_durable) */
	bool logs_made;      /* offsets/ and commits/ exist */
	/* the logs' files below it are retired (purge_log); -1 until a purge
	 * listed the directories */
	int64_t log_low;
	uint64_t state_made; /* bit op: state/<op>/0 exists (op < 64) */
	/* op's last delta [0] and snapshot [1] payload lengths (op < 64):
	 * the next one's buffer is reserved at once (grown by doubling, the
	 * copies of a 5 MB delta were 3% of W1-1M) */
	size_t payload_len[64][2];
};

/* Write b (taken: released here) to path: queued when the writer is on
 * and no crash point may hit this write, else now, after everything
 * queued (the order on disk is the order of the calls).  trailer: b is a
 * state payload still to compress and close with its trailer. */
int ckpt_put_file(sl_ckpt *c, const char *path, sl_buf *b, bool overwrite,
		  bool trailer, sl_crash *crash, const char *point,
		  int64_t batch, sl_err *err);
/* Compress a state payload (when compress) and append its trailer
 * (length, CRC).  A temporary checkpoint's deltas are not compressed:
 * with no fsync, the bytes LZ4 saves cost only the kernel's copy, less
 * than LZ4 itself (ckpt_state.c). */
int ckpt_put_trailer(sl_buf *b, bool compress, sl_err *err);
/* Join (and forget) the snapshots in flight of versions <= upto, or of
 * version `same` for operator op. */
void ckpt_snap_join(sl_ckpt *c, int64_t upto, int op, int64_t same);

#endif
