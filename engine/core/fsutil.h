/*
 * fsutil: the durable-file primitives every checkpoint and sink file goes
 * through: whole-file reads, atomic writes (temp name in the same
 * directory, fsync, rename or link so the file appears whole or not at
 * all, fsync of the directory), mkdir -p, listing.
 *
 * Temp names start with '.' and end with ".tmp" so every reader skips them
 * and recovery can sweep them (sl_fs_sweep_tmp); so does a directory's
 * spare (SL_FS_SPARE), a retired file kept for the next write to reuse.
 *
 * Crash points: a write may be told a crash-point name; when that point is
 * armed (crash.h) the write stops half way as a dying process would: half
 * the bytes in the temp file, no rename, and SL_ECRASH is returned.
 */
#ifndef SL_FSUTIL_H
#define SL_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/crc32.h" /* sl_crc32, the CRC-32 of file trailers */
#include "core/err.h"

typedef struct sl_crash sl_crash;

/* mkdir -p; 0 or SL_EIO naming the directory. */
int sl_fs_mkdirs(const char *dir, sl_err *err);
/* Read a whole file (malloc'd, NUL-terminated; *len excludes the NUL).
 * Missing file: SL_EIO with errno ENOENT kept in *enoent (may be NULL). */
int sl_fs_read(const char *path, char **data, size_t *len, bool *enoent,
	       sl_err *err);
/* Write data to path atomically.  overwrite=false fails (SL_EIO "... already
 * exists") when path exists, and never replaces it, even racing another
 * writer (link(2)).  crash/point: see above (both may be NULL).
 *
 * durable=false (a temporary checkpoint, deleted at stop and promising no
 * durability, as Spark's): the same temp name, bytes and rename, so the
 * file still appears whole or not at all to every reader and survives the
 * process dying (the page cache has it), but no fsync of the file nor of
 * its directory: a power cut may lose any of it.  Such a write is not a
 * durable write: STREAMLAB_IO_FAIL and STREAMLAB_POWERCUT (fsutil.c) do
 * not count it. */
int sl_fs_write(const char *path, const void *data, size_t len, bool overwrite,
		bool durable, sl_crash *crash, const char *point,
		int64_t batch_id, sl_err *err);
/* sl_fs_write with durable=true. */
int sl_fs_write_atomic(const char *path, const void *data, size_t len,
		       bool overwrite, sl_crash *crash, const char *point,
		       int64_t batch_id, sl_err *err);
/* As sl_fs_write_atomic, reusing retired files' inodes (a log's files
 * beyond its retention) instead of creating and deleting one per write.
 * If path's directory holds a spare (SL_FS_SPARE, put there by an earlier
 * call) the data is written into it, cut to len and fsync'd, then renamed
 * to path.  retire (a file in the same directory, or NULL) becomes the
 * next spare: it is renamed to SL_FS_SPARE beside that rename, before the
 * one directory fsync, so the spare is durable under its temp name before
 * the next call overwrites it (a power cut never leaves an old name with
 * new bytes).  *retired tells whether it was taken.  durable: as
 * sl_fs_write.  Borrows everything. */
#define SL_FS_SPARE ".spare.tmp"
int sl_fs_write_reusing(const char *path, const void *data, size_t len,
			bool overwrite, bool durable, const char *retire,
			bool *retired, sl_crash *crash, const char *point,
			int64_t batch_id, sl_err *err);
/* sl_fs_write in two steps, for a writer that flushes one file's data
 * while it publishes another's name (state/ckwriter.h's two lanes).
 * sl_fs_stage writes data to a temp file in path's directory (its spare
 * when reuse and there is one) and, when durable, fsyncs it: nothing any
 * reader or recovery looks at changes (temp names are swept).  Crash
 * point, STREAMLAB_IO_FAIL: as sl_fs_write, here.  sl_fs_publish then
 * renames it to path (overwrite as sl_fs_write; retire as
 * sl_fs_write_reusing) and, when durable, fsyncs the directory;
 * STREAMLAB_POWERCUT counts it and cuts before the rename.  On any
 * failure both leave no temp behind except a crash point's torn one.
 *
 * durable && !flush_now (a late flush): the stage only writes; publish
 * renames first, then flushes the file and its directory at once (about
 * one flush's time instead of two in a row, measured: p50 2.4-3.6 ms
 * against 7.0-7.4 for 900 KB).  The name may then reach the disk before
 * the bytes: a power cut can leave path torn, or holding a spare's old
 * bytes.  Only for a file that a checksum guards and that nothing reads
 * before a later durable step depends on it (a state delta: read only
 * once its commits/N is durable, and rewritten by the re-run otherwise).
 * STREAMLAB_IO_FAIL then counts the file's flush in publish (the name
 * stays, the write fails); STREAMLAB_POWERCUT cuts after the rename,
 * leaving path with half its bytes; publish's crash point (crash.h; NULL
 * for none) is hit after the rename, before the flush (the bytes are in
 * the page cache: whole after a process crash).  Ignored without a late
 * flush.
 *
 * sl_fs_unstage removes a staged temp that will not be published (no-op
 * after publish).  The struct is the caller's (large: keep it on the
 * heap); borrows data and path. */
typedef struct sl_fs_staged {
	char path[4096], dir[4096], tmp[4200];
	bool durable, reused, late;
	int fd;     /* a late flush's open temp, else -1 */
	size_t len; /* bytes written */
} sl_fs_staged;
int sl_fs_stage(sl_fs_staged *st, const char *path, const void *data,
		size_t len, bool durable, bool flush_now, bool reuse,
		sl_crash *crash, const char *point, int64_t batch_id,
		sl_err *err);
int sl_fs_publish(sl_fs_staged *st, bool overwrite, const char *retire,
		  bool *retired, sl_crash *crash, const char *point,
		  int64_t batch_id, sl_err *err);
void sl_fs_unstage(sl_fs_staged *st);
/* Hint the filesystem that dir's subdirectories are unrelated trees, so
 * it places each in a block group of its own (ext4's Orlov allocator, the
 * 'T' attribute of chattr).  Best effort: a no-op where unsupported. */
void sl_fs_mark_top(const char *dir);
/* fsync a directory (best effort on filesystems that refuse). */
void sl_fs_fsync_dir(const char *dir);
bool sl_fs_exists(const char *path);
/* Remove leftover temp files (".*.tmp") in dir; returns how many. */
int sl_fs_sweep_tmp(const char *dir);
/* Numeric file names in dir ("0", "1", "12"; optional suffix like
 * ".delta"): sorted ascending into a malloc'd array.  A missing dir is an
 * empty list. */
int sl_fs_list_ids(const char *dir, const char *suffix, int64_t **ids, int *n,
		   sl_err *err);

#endif
