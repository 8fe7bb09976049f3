/*
 * fsutil: durable file primitives.  Why renameat2(RENAME_NOREPLACE) (or
 * link(2) where the filesystem lacks it) and not rename(2) for the
 * no-overwrite case: it fails with EEXIST when the target exists, so two
 * writers (a second engine on the same checkpoint, a re-run batch) can
 * never replace each other's file; rename would silently overwrite.  One
 * directory operation instead of link+unlink: ~0.1 ms of the ~0.9 ms a
 * durable file costs here.
 */
#include "core/fsutil.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "core/crash.h"

int sl_fs_mkdirs(const char *dir, sl_err *err)
{
	char buf[4096];
	size_t n = strlen(dir), i;
	if (n >= sizeof buf)
		return sl_err_set(err, SL_EIO, "path too long: '%s'", dir);
	memcpy(buf, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return sl_err_set(err, SL_EIO,
					  "cannot create directory '%s': %s",
					  buf, strerror(errno));
		buf[i] = dir[i];
	}
	return 0;
}

int sl_fs_read(const char *path, char **data, size_t *len, bool *enoent,
	       sl_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t got = 0;
	if (enoent != NULL)
		*enoent = false;
	if (fd < 0) {
		if (enoent != NULL)
			*enoent = errno == ENOENT;
		return sl_err_set(err, SL_EIO, "cannot read '%s': %s", path,
				  strerror(errno));
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		return sl_err_set(err, SL_EIO, "cannot read '%s': %s", path,
				  strerror(errno));
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		return sl_err_nomem(err);
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Why: without a journal (this kind of machine) ext4 skips every inode
 * freed in the last seconds when it allocates one, walking them one by
 * one; a checkpoint placed beside /tmp's churn paid 1-2 ms a file created,
 * more than the file's fsync, and 25 us in a group of its own. */
void sl_fs_mark_top(const char *dir)
{
#if defined(__linux__) && defined(FS_IOC_GETFLAGS)
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), flags = 0;
	if (fd < 0)
		return;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 &&
	    !(flags & FS_TOPDIR_FL)) {
		flags |= FS_TOPDIR_FL;
		(void)ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	close(fd);
#else
	(void)dir;
#endif
}

void sl_fs_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

static void split_dir(const char *path, char *dir, size_t dn, const char **base)
{
	const char *slash = strrchr(path, '/');
	if (slash == NULL) {
		snprintf(dir, dn, ".");
		*base = path;
	} else {
		size_t n = (size_t)(slash - path);
		if (n == 0)
			n = 1;
		if (n >= dn)
			n = dn - 1;
		memcpy(dir, path, n);
		dir[n] = '\0';
		*base = slash + 1;
	}
}

/* Move tmp to path unless path exists: renameat2(RENAME_NOREPLACE), one
 * directory operation; where the filesystem lacks it, link(2) (fails with
 * EEXIST too) and the caller unlinks tmp (*linked). */
static int rename_noreplace(const char *tmp, const char *path, bool *linked)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
	*linked = true;
	return link(tmp, path);
}

/* STREAMLAB_IO_FAIL=N[:enospc]: the N-th durable write of the process
 * fails at its fsync (EIO, or ENOSPC), as a full or failing disk would
 * (RELIABILITY.md 3.5: "disk full / EIO / fsync failure").  Counted across
 * threads (the checkpoint writer, snapshots, sinks). */
static long io_fail_at = -1, io_fail_n;
static int io_fail_errno = EIO;
static pthread_once_t io_fail_once = PTHREAD_ONCE_INIT;

/* STREAMLAB_POWERCUT=N: the power goes out during the N-th durable write,
 * after its data is fsync'd but before its directory is: the new name is
 * not durable, so it is gone (a rename over an old file never happened),
 * the fsync'd temp file stays, and the process dies (RELIABILITY.md 3.3
 * P2/P3; every earlier write was fully durable when it returned). */
static long cut_at = -1, cut_n;

static void io_fail_init(void)
{
	const char *e = getenv("STREAMLAB_IO_FAIL");
	const char *c = getenv("STREAMLAB_POWERCUT");
	if (c != NULL && *c != '\0')
		cut_at = atol(c);
	if (e == NULL || *e == '\0')
		return;
	io_fail_at = atol(e);
	if (strstr(e, ":enospc") != NULL)
		io_fail_errno = ENOSPC;
}

static bool io_fail_hits(void)
{
	(void)pthread_once(&io_fail_once, io_fail_init);
	return io_fail_at > 0 &&
	       __atomic_add_fetch(&io_fail_n, 1, __ATOMIC_SEQ_CST) ==
		   io_fail_at;
}

static bool power_cut_hits(void)
{
	(void)pthread_once(&io_fail_once, io_fail_init);
	return cut_at > 0 &&
	       __atomic_add_fetch(&cut_n, 1, __ATOMIC_SEQ_CST) == cut_at;
}

/* The temp file a write goes to: the directory's spare when reuse is
 * asked for and there is one (*reused), else a new file. */
static int open_tmp(const char *dir, const char *base, bool reuse, char *tmp,
		    size_t n, bool *reused)
{
	int fd;
	*reused = false;
	if (reuse) {
		snprintf(tmp, n, "%s/" SL_FS_SPARE, dir);
		if ((fd = open(tmp, O_WRONLY | O_CLOEXEC)) >= 0) {
			*reused = true;
			return fd;
		}
	}
	snprintf(tmp, n, "%s/.%s.%ld.tmp", dir, base, (long)getpid());
	return open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
}

int sl_fs_stage(sl_fs_staged *st, const char *path, const void *data,
		size_t len, bool durable, bool flush_now, bool reuse,
		sl_crash *crash, const char *point, int64_t batch_id,
		sl_err *err)
{
	const char *base;
	int fd;
	bool half = point != NULL && sl_crash_hits(crash, point, batch_id);
	size_t n = half ? len / 2 : len;
	/* field by field: the struct is 12 KB of paths, and zeroing it was a
	 * tenth of a small batch's instructions */
	st->path[0] = st->dir[0] = st->tmp[0] = '\0';
	st->reused = false;
	st->fd = -1;
	st->durable = durable;
	st->late = durable && !flush_now && !half;
	st->len = n;
	if (strlen(path) >= sizeof st->path)
		return sl_err_set(err, SL_EIO, "path too long: '%s'", path);
	snprintf(st->path, sizeof st->path, "%s", path);
	split_dir(path, st->dir, sizeof st->dir, &base);
	fd = open_tmp(st->dir, base, reuse, st->tmp, sizeof st->tmp,
		      &st->reused);
	if (fd < 0)
		return sl_err_set(err, SL_EIO, "cannot write '%s': %s", path,
				  strerror(errno));
	/* a spare keeps its old bytes past n until it is cut */
	if (write_all(fd, data, n) != 0 ||
	    (st->reused && ftruncate(fd, (off_t)n) != 0) ||
	    (durable && !st->late &&
	     ((io_fail_hits() && (errno = io_fail_errno)) || fsync(fd) != 0))) {
		int e = errno;
		close(fd);
		unlink(st->tmp);
		st->tmp[0] = '\0';
		return sl_err_set(err, SL_EIO, "cannot write '%s': %s", path,
				  strerror(e));
	}
	if (st->late) { /* flushed at publish, beside the directory */
#ifdef SYNC_FILE_RANGE_WRITE
		/* start the writeback now: the flush at publish (after the
		 * writes queued before this one) then finds it under way */
		(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
		st->fd = fd;
	}
	else
		close(fd);
	if (half) { /* the process "dies" here: the temp file stays torn */
		st->tmp[0] = '\0';
		return sl_crash_at(crash, point, batch_id, err);
	}
	return 0;
}

static void *fsync_main(void *ud)
{
	int *fd = ud;
	if (fsync(fd[0]) != 0)
		fd[1] = errno;
	return NULL;
}

/* A late-flushed file, renamed already: its data and its directory,
 * flushed at once (two threads: the device serves both flushes in about
 * the time of one).  0 or the file's errno. */
static int flush_late(sl_fs_staged *st)
{
	int fd[2] = { st->fd, 0 };
	pthread_t thr;
	bool two;
	if (io_fail_hits()) {
		sl_fs_fsync_dir(st->dir);
		return io_fail_errno;
	}
	two = pthread_create(&thr, NULL, fsync_main, fd) == 0;
	if (!two)
		fsync_main(fd);
	sl_fs_fsync_dir(st->dir);
	if (two)
		pthread_join(thr, NULL);
	return fd[1];
}

/* STREAMLAB_POWERCUT on a late-flushed file: the name reached the disk,
 * half its bytes did not (cut at a 512-byte boundary): the torn file a
 * real cut may leave, which its CRC rejects. */
static void cut_late(sl_fs_staged *st)
{
	(void)ftruncate(st->fd, (off_t)(st->len / 2 / 512 * 512));
	_exit(137);
}

int sl_fs_publish(sl_fs_staged *st, bool overwrite, const char *retire,
		  bool *retired, sl_crash *crash, const char *point,
		  int64_t batch_id, sl_err *err)
{
	char spare[4200];
	int rc, e;
	bool linked = false;
	if (retired != NULL)
		*retired = false;
	assert(st->tmp[0] != '\0');
	if (st->durable && !st->late && power_cut_hits()) {
		if (!overwrite && link(st->tmp, st->path) == 0)
			unlink(st->path); /* linked, but the directory was
					     not synced */
		_exit(137);
	}
	if (overwrite)
		rc = rename(st->tmp, st->path);
	else
		rc = rename_noreplace(st->tmp, st->path, &linked);
	if (rc != 0) {
		e = errno;
		sl_fs_unstage(st);
		if (e == EEXIST)
			return sl_err_set(
			    err, SL_EIO,
			    "'%s' already exists (another query writing the same checkpoint?)",
			    st->path);
		return sl_err_set(err, SL_EIO, "cannot write '%s': %s",
				  st->path, strerror(e));
	}
	if (linked)
		unlink(st->tmp);
	st->tmp[0] = '\0';
	if (retire != NULL) { /* durable as a temp before it is overwritten */
		snprintf(spare, sizeof spare, "%s/" SL_FS_SPARE, st->dir);
		if (rename(retire, spare) == 0 && retired != NULL)
			*retired = true;
	}
	if (!st->late) {
		if (st->durable)
			sl_fs_fsync_dir(st->dir);
		return 0;
	}
	/* the process dies with the name there, the bytes in the page
	 * cache only: whole for any reader, not durable */
	if (point != NULL && (rc = sl_crash_at(crash, point, batch_id, err)) < 0)
		return rc;
	if (power_cut_hits())
		cut_late(st);
	e = flush_late(st);
	close(st->fd);
	st->fd = -1;
	if (e != 0)
		return sl_err_set(err, SL_EIO, "cannot write '%s': %s",
				  st->path, strerror(e));
	return 0;
}

void sl_fs_unstage(sl_fs_staged *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	if (st->tmp[0] != '\0')
		unlink(st->tmp);
	st->tmp[0] = '\0';
}

static int write_file(const char *path, const void *data, size_t len,
		      bool overwrite, bool durable, bool reuse,
		      const char *retire, bool *retired, sl_crash *crash,
		      const char *point, int64_t batch_id, sl_err *err)
{
	sl_fs_staged *st = malloc(sizeof *st);
	int rc;
	if (retired != NULL)
		*retired = false;
	if (st == NULL)
		return sl_err_nomem(err);
	rc = sl_fs_stage(st, path, data, len, durable, true, reuse, crash,
			 point, batch_id, err);
	if (rc == 0)
		rc = sl_fs_publish(st, overwrite, retire, retired, NULL, NULL,
				   batch_id, err);
	free(st);
	return rc;
}

int sl_fs_write(const char *path, const void *data, size_t len, bool overwrite,
		bool durable, sl_crash *crash, const char *point,
		int64_t batch_id, sl_err *err)
{
	return write_file(path, data, len, overwrite, durable, false, NULL,
			  NULL, crash, point, batch_id, err);
}

int sl_fs_write_atomic(const char *path, const void *data, size_t len,
		       bool overwrite, sl_crash *crash, const char *point,
		       int64_t batch_id, sl_err *err)
{
	return sl_fs_write(path, data, len, overwrite, true, crash, point,
			   batch_id, err);
}

int sl_fs_write_reusing(const char *path, const void *data, size_t len,
			bool overwrite, bool durable, const char *retire,
			bool *retired, sl_crash *crash, const char *point,
			int64_t batch_id, sl_err *err)
{
	return write_file(path, data, len, overwrite, durable, true, retire,
			  retired, crash, point, batch_id, err);
}

bool sl_fs_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int sl_fs_sweep_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		char p[4200];
		if (e->d_name[0] != '.' || l < 5 ||
		    strcmp(e->d_name + l - 4, ".tmp") != 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (unlink(p) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int sl_fs_list_ids(const char *dir, const char *suffix, int64_t **ids, int *n,
		   sl_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int64_t *v = NULL;
	int cnt = 0, cap = 0;
	size_t sl = suffix ? strlen(suffix) : 0;
	*ids = NULL;
	*n = 0;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		const char *s = e->d_name;
		char *end;
		long long x;
		if (*s < '0' || *s > '9')
			continue;
		x = strtoll(s, &end, 10);
		if (sl ? strcmp(end, suffix) != 0 : *end != '\0')
			continue;
		if (cnt == cap) {
			int nc = cap ? cap * 2 : 16;
			int64_t *nv = realloc(v, (size_t)nc * sizeof *nv);
			if (nv == NULL) {
				free(v);
				closedir(d);
				return sl_err_nomem(err);
			}
			v = nv;
			cap = nc;
		}
		v[cnt++] = x;
	}
	closedir(d);
	if (cnt > 0)
		qsort(v, (size_t)cnt, sizeof *v, cmp_i64);
	*ids = v;
	*n = cnt;
	return 0;
}
