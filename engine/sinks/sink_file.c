/*
 * sink_file: the json / csv file sinks with Spark's exactly-once log.
 *
 * Layout under the sink directory `path` (Spark's FileStreamSink):
 *   part-00000-<query id>-<N>.c000.json   the rows of batch N (none when
 *                                         the batch is empty)
 *   _spark_metadata/N                     "v1\n" + one JSON line per file
 *                                         the batch added
 *
 * Order of a batch, so that a crash anywhere leaves a readable directory:
 *   1. N <= latest logged batch: skip (already committed; Spark's rule).
 *   2. write the part file (temp + fsync + link, never overwriting); its
 *      deterministic name means a re-run of an aborted attempt finds the
 *      stale file first and removes it (it was never logged, so no reader
 *      ever saw it).
 *   3. write _spark_metadata/N: temp + fsync + link + unlink, so it appears
 *      whole or not at all and is never overwritten; fsync the directory.
 * Readers (sl_format_list) list only logged files once _spark_metadata
 * exists, so a part file without its log entry is invisible and every
 * batch is seen exactly once.
 *
 * Compaction, as Spark's CompactibleFileStreamLog: batch N is a compaction
 * batch when (N + 1) % spark.sql.streaming.fileSink.log.compactInterval
 * (10) is 0, and its entry is N.compact, holding every entry so far (the
 * previous compact's, the plain ones after it, its own).  Spark's readers
 * open only the latest compact and what follows it, so a log of ten
 * batches or more without compacts is unreadable to Spark.
 *
 * Cleanup, as Spark's CompactibleFileStreamLog.deleteExpiredLog: once
 * batch N's entry is durable (written, fsync'd, directory fsync'd), and
 * when compactInterval <= N + 1 - spark.sql.streaming.minBatchesToRetain
 * (100), with minBatchId = N + 1 - minBatchesToRetain and
 * minCompactionBatchId = minBatchId - minBatchId % compactInterval - 1,
 * every log file (plain or .compact) of a batch below minCompactionBatchId
 * is deleted; that compact already holds all their entries, so the log
 * reads the same before, during and after (our reader, which reads every
 * entry present and keeps the last word per file, and Spark's, which opens
 * the latest compact and what follows).  Off when
 * spark.sql.streaming.fileSink.log.deletion is false.  Best effort: a
 * failed unlink is retried after the next batch, never an error.  The log
 * stays bounded in files (at most minBatchesToRetain + compactInterval + 1);
 * its bytes still grow with the batches, as Spark's, because every compact
 * holds every entry so far: ~200 bytes per part file (the file's URI,
 * size, mtime and Spark's fixed fields), so after 10,000 batches with rows
 * the latest compact alone is ~2 MB, and the ~11 compacts the rule keeps
 * ~20 MB.  Spark's format cannot do better; what bounds the bytes is
 * Spark's sink option retention (a TTL, e.g. "1h"): a compact leaves out
 * the files older than that (FileStreamSinkLog.shouldRetain; readers no
 * longer see them), so the log holds the files of one retention period.
 * Deviation: Spark deletes a file only when its modification time is older
 * than fileSink.log.cleanupDelay (10 minutes of wall clock, for S3's
 * eventual consistency).  The engine never reads the wall clock (tests run
 * on a manual clock) and a local directory is consistent, so the delay is
 * dropped: files are deleted as soon as the rule allows.
 *
 * partitionBy (the option "__partition_columns", formats/partition.h):
 * a batch's rows are split by the partition values and each group is
 * written as part-00000-<query id>-<N>.c000.<ext> in its directory
 * path/a=1/b=x/ without the partition columns; the entry lists every such
 * file, so a reader of the log (ours, Spark's MetadataLogFileIndex) sees
 * the batch whole, and discovers the partition columns from the paths.
 *
 * Append mode only (Spark's STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE).
 * Lesson: lessons/04 (exactly-once).  Semantics: SPARK-SEMANTICS.md 4.4.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/crash.h"
#include "formats/fileformat.h"
#include "core/fsutil.h"
#include "core/timeutil.h"
#include "formats/parquet.h"
#include "formats/partition.h"
#include "sinks/sink_int.h"

typedef struct filesink {
	char *format;    /* "json" / "csv" as given */
	const char *ext; /* "json" / "csv" */
	char *dir;       /* absolute, canonical */
	char *meta;      /* dir/_spark_metadata */
	char *qid;
	sl_options opts;      /* writer options (csv header, sep, ...) */
	int64_t last_id;      /* latest logged batch, -1 when none */
	int64_t last_compact; /* latest N.compact, -1 when none */
	int interval;         /* compactInterval; < 1: never compact */
	int retain;           /* minBatchesToRetain (>= 1) */
	bool deletion;        /* fileSink.log.deletion */
	char **pcols;         /* partitionBy columns (npcols; none: 0) */
	int npcols;
	int64_t retention_ms; /* option retention; -1: keep every entry */
} filesink;

static int io_err(sl_err *err, const char *what, const char *path)
{
	return sl_err_set(err, SL_EIO, "file sink: cannot %s '%s': %s", what,
			  path, strerror(errno));
}

/* mkdir -p with the sink's name in the message. */
static int mkdirs(const char *dir, sl_err *err)
{
	int rc = sl_fs_mkdirs(dir, err);
	if (rc < 0)
		sl_err_prefix(err, "file sink");
	return rc;
}

/* "N" or "N.compact" -> N; anything else (temp files) is not a log entry. */
static bool log_id(const char *s, int64_t *id)
{
	int64_t v = 0;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > INT64_MAX / 10 - 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (*s != '\0' && strcmp(s, ".compact") != 0)
		return false;
	*id = v;
	return true;
}

/* The latest logged batch, and the latest compaction batch. */
static int latest_logged(const char *meta, int64_t *last, int64_t *compact,
			 sl_err *err)
{
	DIR *d = opendir(meta);
	struct dirent *de;
	int64_t id;
	*last = *compact = -1;
	if (d == NULL)
		return io_err(err, "list", meta);
	while ((de = readdir(d)) != NULL) {
		if (!log_id(de->d_name, &id))
			continue;
		if (id > *last)
			*last = id;
		if (strchr(de->d_name, '.') != NULL && id > *compact)
			*compact = id;
	}
	closedir(d);
	return 0;
}

/* A local path as the URI Spark logs: file:///a/b%20c. */
static void add_uri(sl_buf *b, const char *path)
{
	static const char keep[] = "/-._~!$&'()*+,;=:@";
	const unsigned char *p;
	sl_buf_adds(b, "file://");
	for (p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(keep, *p) != NULL)
			sl_buf_addc(b, (char)*p);
		else
			sl_buf_printf(b, "%%%02X", *p);
	}
}

/* Write rows as the part file of batch N in directory sub (the sink's, or
 * one of its partition directories) and add its log line to log. */
static int write_one(filesink *f, const char *sub, int64_t batch_id,
		     const sl_batch *data, sl_buf *log, sl_crash *crash,
		     sl_err *err)
{
	char *part = NULL;
	struct stat st;
	int rc;
	if (asprintf(&part, "%s/part-00000-%s-%lld.c000.%s", sub, f->qid,
		     (long long)batch_id, f->ext) < 0)
		return sl_err_nomem(err);
	/* left over by an aborted attempt of this batch: never logged, never
	 * read, safe to replace */
	if (unlink(part) != 0 && errno != ENOENT) {
		rc = io_err(err, "remove", part);
		goto out;
	}
	rc = sl_format_write_file(f->format, part, data, &f->opts, err);
	if (rc != 0)
		goto out;
	if (stat(part, &st) != 0) {
		rc = io_err(err, "stat", part);
		goto out;
	}
	/* crash point "mid-sink": the process dies with the part file half
	 * written and not logged (invisible; the re-run replaces it) */
	if (sl_crash_hits(crash, "mid-sink", batch_id)) {
		if (truncate(part, st.st_size / 2) != 0) {
			rc = io_err(err, "truncate", part);
			goto out;
		}
		rc = sl_crash_at(crash, "mid-sink", batch_id, err);
		goto out;
	}
	sl_buf_adds(log, "{\"path\":\"");
	add_uri(log, part);
	sl_buf_printf(
	    log,
	    "\",\"size\":%lld,\"isDir\":false,\"modificationTime\":%lld,"
	    "\"blockReplication\":1,\"blockSize\":33554432,"
	    "\"action\":\"add\"}\n",
	    (long long)st.st_size,
	    (long long)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000);
out:
	free(part);
	return rc;
}

/* The batch's part files: one, or one per partition directory
 * (partitionBy; Spark's FileStreamSink with partition columns), each
 * logged with its path under the sink directory. */
static int write_part(filesink *f, int64_t batch_id, const sl_batch *data,
		      sl_buf *log, sl_crash *crash, sl_err *err)
{
	sl_part_group *g = NULL;
	int ng = 0, rc;
	if (f->npcols == 0)
		return write_one(f, f->dir, batch_id, data, log, crash, err);
	if ((rc = sl_part_check(data->schema, f->pcols, f->npcols, err)) !=
		0 ||
	    (rc = sl_part_split(data, f->pcols, f->npcols, &g, &ng, err)) != 0)
		return rc;
	for (int k = 0; rc == 0 && k < ng; k++) {
		char *sub = NULL;
		if (asprintf(&sub, "%s/%s", f->dir, g[k].subdir) < 0) {
			rc = sl_err_nomem(err);
			break;
		}
		rc = mkdirs(sub, err);
		if (rc == 0)
			rc = write_one(f, sub, batch_id, g[k].data, log, crash,
				       err);
		free(sub);
	}
	sl_part_groups_free(g, ng);
	return rc;
}

static bool is_compact(const filesink *f, int64_t id)
{
	return f->interval > 0 && (id + 1) % f->interval == 0;
}

/* A compaction batch's entry starts with every earlier one since the
 * latest compact (its lines and those of the plain entries after it, in
 * order; Spark's sink log only adds, so nothing is dropped but what the
 * retention option drops, see retain_recent). */
static int add_earlier(filesink *f, int64_t upto, sl_buf *log, sl_err *err)
{
	int64_t c = f->last_compact, k; /* < upto: upto is not logged yet */
	for (k = c < 0 ? 0 : c; k < upto; k++) {
		char *p = NULL, *data;
		const char *nl;
		size_t len;
		bool missing;
		int rc;
		if (asprintf(&p, "%s/%lld%s", f->meta, (long long)k,
			     k == c ? ".compact" : "") < 0)
			return sl_err_nomem(err);
		rc = sl_fs_read(p, &data, &len, &missing, err);
		free(p);
		if (rc != 0 && missing)
			continue; /* purged by Spark, or never written */
		if (rc != 0)
			return rc;
		if ((nl = memchr(data, '\n', len)) != NULL)
			sl_buf_add(log, nl + 1, len - (size_t)(nl + 1 - data));
		if (log->len > 0 && log->p[log->len - 1] != '\n')
			sl_buf_addc(log, '\n');
		free(data);
	}
	return sl_buf_failed(log) ? sl_err_nomem(err) : 0;
}

/* The "modificationTime" of a log line, or -1. */
static int64_t line_mtime(const char *p, const char *e)
{
	static const char key[] = "\"modificationTime\":";
	const char *k = memmem(p, (size_t)(e - p), key, sizeof key - 1);
	int64_t v = 0;
	if (k == NULL)
		return -1;
	for (k += sizeof key - 1; k < e && *k >= '0' && *k <= '9'; k++) {
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*k - '0');
	}
	return v;
}

/* Option retention (Spark's FileStreamSinkLog.shouldRetain, applied when a
 * compact is written): the lines of log from byte `from` on whose file is
 * older than retention_ms are dropped.  Spark compares with the wall
 * clock; the engine reads no wall clock, so "now" is the newest
 * modificationTime among the compact's entries and `own` (the batch's own
 * line, may be empty): the time of the latest part file written, never
 * later than Spark's now, so this keeps at least what Spark keeps. */
static void retain_recent(const filesink *f, sl_buf *log, size_t from,
			  const sl_buf *own)
{
	int64_t now = -1, t;
	const char *p, *e = log->p + log->len, *nl;
	size_t w = from;
	if (f->retention_ms < 0 || log->len <= from)
		return;
	for (p = log->p + from; p < e; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (nl == NULL)
			nl = e - 1;
		if ((t = line_mtime(p, nl)) > now)
			now = t;
	}
	if (own->len > 0 && (t = line_mtime(own->p, own->p + own->len)) > now)
		now = t;
	for (p = log->p + from; p < e; p = nl + 1) {
		size_t n;
		nl = memchr(p, '\n', (size_t)(e - p));
		if (nl == NULL)
			nl = e - 1;
		n = (size_t)(nl + 1 - p);
		t = line_mtime(p, nl);
		if (t >= 0 && now - t > f->retention_ms)
			continue;
		memmove(log->p + w, p, n);
		w += n;
	}
	log->len = w;
	log->p[w] = '\0';
}

/* Spark's deleteExpiredLog after batch `current` is durable: the log
 * files below minCompactionBatchId go (best effort, no error). */
static void delete_expired(filesink *f, int64_t current)
{
	int64_t min_batch, min_compact, id;
	DIR *d;
	struct dirent *de;
	if (!f->deletion || f->interval < 1 ||
	    (int64_t)f->interval > current + 1 - f->retain)
		return;
	min_batch = current + 1 - f->retain;
	min_compact = min_batch - min_batch % f->interval - 1;
	if ((d = opendir(f->meta)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *p = NULL;
		if (!log_id(de->d_name, &id) || id >= min_compact)
			continue;
		if (asprintf(&p, "%s/%s", f->meta, de->d_name) < 0)
			break;
		(void)unlink(p); /* best effort, as Spark's */
		free(p);
	}
	closedir(d);
}

static int file_add(sl_sink *s, int64_t batch_id, sl_batch *data, bool *skipped,
		    sl_err *err)
{
	filesink *f = s->impl;
	char *entry = NULL;
	sl_buf log, own;
	int rc = 0;
	*skipped = false;
	if (batch_id <= f->last_id) {
		*skipped = true;
		return 0;
	}
	sl_buf_init(&log);
	sl_buf_init(&own);
	sl_buf_adds(&log, "v1\n");
	if (data != NULL && data->nrows > 0)
		rc = write_part(f, batch_id, data, &own, s->crash, err);
	if (rc == 0 && is_compact(f, batch_id)) {
		rc = add_earlier(f, batch_id, &log, err);
		if (rc == 0 && !sl_buf_failed(&log))
			retain_recent(f, &log, 3, &own);
	}
	if (rc == 0)
		sl_buf_add(&log, own.p, own.len);
	if (rc == 0 && (sl_buf_failed(&log) || sl_buf_failed(&own)))
		rc = sl_err_nomem(err);
	/* "mid-sink" with no part file: the process dies before the log */
	if (rc == 0)
		rc = sl_crash_at(s->crash, "mid-sink", batch_id, err);
	if (rc == 0 &&
	    asprintf(&entry, "%s/%lld%s", f->meta, (long long)batch_id,
		     is_compact(f, batch_id) ? ".compact" : "") < 0) {
		entry = NULL;
		rc = sl_err_nomem(err);
	}
	if (rc == 0)
		rc = sl_fs_write_atomic(entry, log.p, log.len, false, NULL,
					NULL, batch_id, err);
	if (rc == 0)
		f->last_id = batch_id;
	if (rc == 0 && is_compact(f, batch_id))
		f->last_compact = batch_id;
	/* only now that the entry is durable: a crash before or during the
	 * deletions leaves a log that reads the same */
	if (rc == 0)
		delete_expired(f, batch_id);
	free(entry);
	sl_buf_release(&log);
	sl_buf_release(&own);
	return rc;
}

static void file_describe(const sl_sink *s, sl_buf *out)
{
	const filesink *f = s->impl;
	sl_buf_printf(out, "FileSink[%s]", f->dir);
}

static void file_close(sl_sink *s)
{
	filesink *f = s->impl;
	if (f == NULL)
		return;
	free(f->format);
	free(f->dir);
	free(f->meta);
	free(f->qid);
	sl_part_cols_free(f->pcols, f->npcols);
	sl_options_release(&f->opts);
	free(f);
}

/* At query start: Spark checks partitionBy against the output schema
 * before the first batch. */
static int file_prepare(sl_sink *s, sl_type *schema, sl_err *err)
{
	filesink *f = s->impl;
	return f->npcols > 0 ? sl_part_check(schema, f->pcols, f->npcols, err)
			     : 0;
}

static const struct sl_sink_ops file_ops = {
	.name = "file",
	.add_batch = file_add,
	.describe = file_describe,
	.close = file_close,
	.prepare = file_prepare,
};

static const char *mode_lower(sl_outmode m)
{
	return m == SL_MODE_UPDATE     ? "update"
	       : m == SL_MODE_COMPLETE ? "complete"
				       : "append";
}

/* The directory and its log directory, created, canonical. */
static int open_dirs(filesink *f, const char *path, sl_err *err)
{
	int rc = mkdirs(path, err);
	if (rc != 0)
		return rc;
	f->dir = realpath(path, NULL);
	if (f->dir == NULL)
		return io_err(err, "resolve", path);
	if (asprintf(&f->meta, "%s/_spark_metadata", f->dir) < 0) {
		f->meta = NULL;
		return sl_err_nomem(err);
	}
	if ((rc = mkdirs(f->meta, err)) != 0)
		return rc;
	return latest_logged(f->meta, &f->last_id, &f->last_compact, err);
}

/* Spark's Utils.timeStringAsMs (sl_time_conf_parse), with Spark's own
 * message for the sink option. */
static int parse_retention(const char *v, int64_t *ms, sl_err *err)
{
	int64_t us;
	if (sl_time_conf_parse("retention", v, &us, NULL) == 0) {
		*ms = us / 1000;
		return 0;
	}
	return sl_err_set(err, SL_EINVAL,
			  "file sink: option 'retention': Time must be "
			  "specified as seconds (s), milliseconds (ms), "
			  "microseconds (us), minutes (m or min), hour (h), or "
			  "day (d). E.g. 50s, 100ms, or 250us. Got '%s'",
			  v);
}

sl_sink *sl_sink_file_new(const char *format, const sl_options *opts,
			  sl_outmode mode, const char *query_id,
			  int compact_interval, int min_retain,
			  bool log_deletion, sl_err *err)
{
	const char *path = sl_options_get(opts, "path");
	filesink *f;
	sl_sink *s = NULL;
	if (path == NULL || path[0] == '\0') {
		sl_err_set(err, SL_EINVAL, "'path' is not specified");
		return NULL;
	}
	if (mode != SL_MODE_APPEND) {
		sl_err_set(
		    err, SL_EANALYSIS,
		    "[STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE] Invalid "
		    "streaming output mode: %s. This output mode is not "
		    "supported in Data Source %s. SQLSTATE: 42KDE",
		    mode_lower(mode), format);
		return NULL;
	}
	f = calloc(1, sizeof *f);
	if (f == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	sl_options_init(&f->opts);
	f->interval = compact_interval;
	f->retention_ms = -1;
	if (sl_options_get(opts, "retention") != NULL &&
	    parse_retention(sl_options_get(opts, "retention"), &f->retention_ms,
			    err) != 0) {
		free(f);
		return NULL;
	}
	f->retain = min_retain < 1 ? 1 : min_retain;
	f->deletion = log_deletion;
	f->ext = strcasecmp(format, "csv") == 0       ? "csv"
		 : strcasecmp(format, "parquet") == 0 ? sl_parquet_ext(opts)
						      : "json";
	f->format = strdup(format);
	f->qid = strdup(query_id ? query_id : "0");
	if (f->format == NULL || f->qid == NULL ||
	    sl_options_copy(&f->opts, opts) != 0) {
		sl_err_nomem(err);
		goto fail;
	}
	if (sl_part_cols_get(opts, &f->pcols, &f->npcols, err) != 0 ||
	    open_dirs(f, path, err) != 0)
		goto fail;
	s = sl_sink_alloc(&file_ops, mode, f, err);
	if (s != NULL)
		return s;
fail:
	file_close(&(sl_sink){ .impl = f });
	return NULL;
}
