/*
 * source_file: Spark's FileStreamSource over a directory of json, csv or
 * text files.
 *
 * Which files: the regular files directly in the directory whose names do
 * not start with '.' or '_' (producers write elsewhere, or under such a
 * name, then rename), each taken once.  "Taken" is remembered in a seen
 * set keyed by the absolute path, or by the bare name with fileNameOnly.
 * New files are ordered by modification time (ties by name), newest first
 * with latestFirst.  maxFileAge follows Spark's SeenFilesMap: a file is new
 * only if its mtime >= (newest mtime taken so far - maxFileAge); the
 * cutoff moves after each batch, so every file is valid for the first
 * batch; maxFileAge is ignored when latestFirst and maxFilesPerTrigger are
 * both set.
 *
 * Offsets are {"logOffset":N}: N is the file-source batch id, and every id
 * names a fixed group of files in the log (memory, plus <metadir>/N when
 * the query has a checkpoint: "v1" then one JSON line per file
 * {"path":"file:///abs","timestamp":mtime_ms,"batchId":N}, written on a
 * temp name, fsync'd, renamed; read back at open so a restart knows what
 * was taken).
 *
 * The planning rule (the driver calls latest(), then limit(), writes its
 * offset log, then read()):
 *   - latest() lists the directory and keeps the sorted new files as the
 *     "pending" list.  Nothing is assigned.  With L = the last assigned id
 *     and n pending files it returns L + ceil(n / maxFilesPerTrigger)
 *     (L + 1 without a limit): the ids the pending files would fill.  With
 *     nothing pending it returns L (no offset at all before the first).
 *   - limit(start, latest) returns at most L + 1: one group of
 *     maxFilesPerTrigger files.  Pure as well.
 *   - read(start, end) is the commitment: every id in (start, end] above L
 *     is assigned now, in order, to the next maxFilesPerTrigger (or all)
 *     pending files, written to the log, and the files are marked seen.
 *     So Trigger.Once (no limit() call) takes every pending file in one
 *     micro-batch, and AvailableNow's target from latest() is reached after
 *     exactly ceil(n / max) limited batches.  Files that arrive between
 *     latest() and read() wait for the next listing.  With nothing
 *     pending (a restart replaying an id the driver planned before a
 *     crash, so no latest() since open) read() lists the directory
 *     again.
 * Ids below L come from the log, so replays read the same files.  A file
 * that disappeared is an error naming it.
 *
 * Listing is recursive, as Spark's InMemoryFileIndex: files in
 * subdirectories count, partition directories col=value/ give the
 * partition columns fixed at load() (formats/partition.h; the values of
 * each file come from its own path).  A directory a file sink writes
 * (_spark_metadata/) is listed through the sink's log.
 *
 * cleanSource (archive with sourceArchiveDir, delete; off by default):
 * after a batch commits, the files of the groups it read are moved to
 * sourceArchiveDir + their absolute path, or deleted (Spark's
 * FileStreamSourceCleaner; best effort, a failure leaves the file).  A
 * crash between a batch's commit and its cleaning leaves that batch's
 * files in place for good, as in Spark: a restart cleans only the batches
 * it runs itself (their files are in the log, so they are never read
 * twice).
 *
 * Not done: globs in the path, log compaction (Spark's N.compact every 10
 * batches), maxBytesPerTrigger.
 * Never prints; never reads the time (mtimes come from the file system).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/fileformat.h"
#include "formats/partition.h"
#include "core/fsutil.h"
#include "sources/source_int.h"
#include "core/timeutil.h"

typedef struct ffile {
	char *path; /* absolute, malloc'd */
	int64_t mtime_ms;
} ffile;

typedef struct fgroup {
	int n;
	ffile *f;
} fgroup;

typedef struct fsrc {
	char *format, *dir, *metadir;
	sl_options opts; /* reader options, copied */
	sl_file_conf conf;
	int64_t max_age_ms; /* INT64_MAX when ignored */
	/* seen set: open addressing over malloc'd keys */
	char **seen;
	size_t nseen, seencap;
	int64_t latest_ts, purge_ts; /* Spark's SeenFilesMap */
	/* the log: groups[id] for ids 0..last */
	fgroup *groups;
	int64_t last, gcap;
	/* pending new files from the last listing */
	ffile *pend;
	int npend, pendcap;
	bool pend_valid;
	/* partition columns (formats/partition.h): each file is read with
	 * the schema minus the columns its directories give */
	sl_part_spec *parts;
	/* cleanSource: the groups up to `cleaned` are cleaned (-2: nothing
	 * read yet in this run); archive the resolved sourceArchiveDir */
	int64_t cleaned;
	char *archive;
	bool has_log; /* the directory is a file sink's (_spark_metadata) */
} fsrc;

/* ---- options ---- */

static int bool_opt(const sl_options *o, const char *key, bool *out,
		    sl_err *err)
{
	const char *v = sl_options_get(o, key);
	*out = false;
	if (v == NULL || strcasecmp(v, "false") == 0)
		return 0;
	if (strcasecmp(v, "true") == 0) {
		*out = true;
		return 0;
	}
	return sl_err_set(err, SL_EINVAL,
			  "Invalid value '%s' for option '%s', must be true or "
			  "false",
			  v, key);
}

int sl_file_conf_parse(const sl_options *opts, sl_file_conf *conf, sl_err *err)
{
	const char *mf = sl_options_get(opts, "maxFilesPerTrigger");
	const char *age = sl_options_get(opts, "maxFileAge");
	memset(conf, 0, sizeof *conf);
	if (mf != NULL) {
		char *end;
		long long v;
		errno = 0;
		v = strtoll(mf, &end, 10);
		if (errno != 0 || end == mf || *end != '\0' || v <= 0 ||
		    v > INT32_MAX)
			return sl_err_set(err, SL_EINVAL,
					  "Invalid value '%s' for option "
					  "'maxFilesPerTrigger', must be a "
					  "positive integer",
					  mf);
		conf->max_files = v;
	}
	if (bool_opt(opts, "latestFirst", &conf->latest_first, err) != 0 ||
	    bool_opt(opts, "fileNameOnly", &conf->name_only, err) != 0)
		return SL_EINVAL;
	{
		const char *cs = sl_options_get(opts, "cleanSource");
		conf->archive = sl_options_get(opts, "sourceArchiveDir");
		conf->clean = SL_CLEAN_OFF;
		if (cs != NULL && strcasecmp(cs, "archive") == 0)
			conf->clean = SL_CLEAN_ARCHIVE;
		else if (cs != NULL && strcasecmp(cs, "delete") == 0)
			conf->clean = SL_CLEAN_DELETE;
		else if (cs != NULL && strcasecmp(cs, "off") != 0)
			return sl_err_set(err, SL_EINVAL,
					  "Invalid mode for clean source "
					  "option Some(%s). Must be one of "
					  "ARCHIVE,DELETE,OFF",
					  cs);
		if (conf->clean == SL_CLEAN_ARCHIVE && conf->archive == NULL)
			return sl_err_set(err, SL_EINVAL,
					  "Archive mode must be used with "
					  "'sourceArchiveDir' option.");
	}
	conf->max_age_us = 7 * SL_US_PER_DAY;
	if (age != NULL &&
	    (!sl_source_time_string(age, 1000, &conf->max_age_us) ||
	     conf->max_age_us < 0))
		return sl_err_set(err, SL_EINVAL,
				  "Invalid value '%s' for option 'maxFileAge': "
				  "expected a duration such as '7d', '1h' or "
				  "'30 minutes'",
				  age);
	return 0;
}

/* ---- the seen set ---- */

static const char *seen_key(const fsrc *fs, const char *path)
{
	const char *slash = strrchr(path, '/');
	return fs->conf.name_only && slash ? slash + 1 : path;
}

static size_t str_hash(const char *s)
{
	size_t h = 14695981039346656037u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static bool seen_has(const fsrc *fs, const char *path)
{
	const char *k = seen_key(fs, path);
	if (fs->seencap == 0)
		return false;
	for (size_t i = str_hash(k) & (fs->seencap - 1);;
	     i = (i + 1) & (fs->seencap - 1)) {
		if (fs->seen[i] == NULL)
			return false;
		if (strcmp(fs->seen[i], k) == 0)
			return true;
	}
}

static int seen_put(fsrc *fs, const char *key)
{
	size_t i;
	if (2 * (fs->nseen + 1) > fs->seencap) {
		size_t cap = fs->seencap ? 2 * fs->seencap : 64;
		char **ns = calloc(cap, sizeof *ns);
		if (ns == NULL)
			return SL_ENOMEM;
		for (size_t j = 0; j < fs->seencap; j++) {
			if (fs->seen[j] == NULL)
				continue;
			for (i = str_hash(fs->seen[j]) & (cap - 1); ns[i];
			     i = (i + 1) & (cap - 1))
				;
			ns[i] = fs->seen[j];
		}
		free(fs->seen);
		fs->seen = ns;
		fs->seencap = cap;
	}
	for (i = str_hash(key) & (fs->seencap - 1); fs->seen[i];
	     i = (i + 1) & (fs->seencap - 1))
		if (strcmp(fs->seen[i], key) == 0)
			return 0;
	if ((fs->seen[i] = strdup(key)) == NULL)
		return SL_ENOMEM;
	fs->nseen++;
	return 0;
}

/* SeenFilesMap.add; purge() is mark_purge after a batch. */
static int seen_add(fsrc *fs, const ffile *f)
{
	if (f->mtime_ms > fs->latest_ts)
		fs->latest_ts = f->mtime_ms;
	return seen_put(fs, seen_key(fs, f->path));
}

static void mark_purge(fsrc *fs)
{
	/* nothing taken yet: every file is valid (Spark's first batch) */
	if (fs->max_age_ms != INT64_MAX && fs->latest_ts != INT64_MIN)
		fs->purge_ts = fs->latest_ts - fs->max_age_ms;
}

static bool is_new(const fsrc *fs, const ffile *f)
{
	return f->mtime_ms >= fs->purge_ts && !seen_has(fs, f->path);
}

/* ---- listing ---- */

static void pend_clear(fsrc *fs)
{
	for (int i = 0; i < fs->npend; i++)
		free(fs->pend[i].path);
	fs->npend = 0;
	fs->pend_valid = false;
}

static int pend_add(fsrc *fs, char *path, int64_t mtime)
{
	if (fs->npend == fs->pendcap) {
		int cap = fs->pendcap ? 2 * fs->pendcap : 32;
		ffile *np = realloc(fs->pend, (size_t)cap * sizeof *np);
		if (np == NULL) {
			free(path);
			return SL_ENOMEM;
		}
		fs->pend = np;
		fs->pendcap = cap;
	}
	fs->pend[fs->npend].path = path;
	fs->pend[fs->npend].mtime_ms = mtime;
	fs->npend++;
	return 0;
}

static int cmp_old_first(const void *a, const void *b)
{
	const ffile *x = a, *y = b;
	if (x->mtime_ms != y->mtime_ms)
		return x->mtime_ms < y->mtime_ms ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int cmp_new_first(const void *a, const void *b)
{
	const ffile *x = a, *y = b;
	if (x->mtime_ms != y->mtime_ms)
		return x->mtime_ms > y->mtime_ms ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int consider(fsrc *fs, char *path, sl_err *err)
{
	struct stat st;
	ffile f;
	f.path = path;
	if (stat(f.path, &st) != 0 || !S_ISREG(st.st_mode)) {
		free(f.path); /* vanished meanwhile, or not a file */
		return 0;
	}
	f.mtime_ms =
	    (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	if (!is_new(fs, &f)) {
		free(f.path);
		return 0;
	}
	return pend_add(fs, f.path, f.mtime_ms) != 0 ? sl_err_nomem(err) : 0;
}

/* Every file below dir, as Spark's InMemoryFileIndex lists leaf files
 * (partition directories col=value/ included), hidden names skipped. */
static int list_tree(fsrc *fs, const char *dir, int depth, sl_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;
	if (d == NULL)
		return sl_err_set(err, SL_EIO,
				  "file source: cannot list '%s': %s", dir,
				  strerror(errno));
	while (rc == 0 && (e = readdir(d)) != NULL) {
		struct stat st;
		char *path;
		if (sl_format_hidden(e->d_name))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			rc = sl_err_nomem(err);
			break;
		}
		/* real directories only: a linked one could loop */
		if (depth < 64 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = list_tree(fs, path, depth + 1, err);
			free(path);
			continue;
		}
		rc = consider(fs, path, err);
	}
	closedir(d);
	return rc;
}

static int list_dir(fsrc *fs, sl_err *err)
{
	int rc;
	pend_clear(fs);
	if (fs->has_log) {
		/* a file sink's output: the files its log lists (Spark's
		 * MetadataLogFileIndex), never a part file not yet logged */
		char **files = NULL;
		int n = 0;
		rc = sl_format_list(fs->dir, &files, &n, err);
		for (int i = 0; i < n; i++)
			if (rc == 0)
				rc = consider(fs, files[i], err);
			else
				free(files[i]);
		free(files);
	} else {
		rc = list_tree(fs, fs->dir, 0, err);
	}
	if (rc != 0)
		return rc;
	if (fs->npend > 1)
		qsort(fs->pend, (size_t)fs->npend, sizeof *fs->pend,
		      fs->conf.latest_first ? cmp_new_first : cmp_old_first);
	fs->pend_valid = true;
	return 0;
}

/* ---- offsets ---- */

static int parse_off(const char *off, int64_t *id, sl_err *err)
{
	const char *p;
	char *end;
	if (off == NULL) {
		*id = -1;
		return 0;
	}
	p = strstr(off, "\"logOffset\"");
	if (p != NULL) {
		p += strlen("\"logOffset\"");
		while (*p == ' ' || *p == ':')
			p++;
		*id = strtoll(p, &end, 10);
		if (end != p)
			return 0;
	}
	return sl_err_set(err, SL_EINVAL, "file source: bad offset '%s'", off);
}

static char *fmt_off(int64_t id, sl_err *err)
{
	char *s;
	if (asprintf(&s, "{\"logOffset\":%lld}", (long long)id) < 0) {
		sl_err_nomem(err);
		return NULL;
	}
	return s;
}

/* ---- the log ---- */

/* "file://" + the path, percent-encoding what a URI path cannot hold. */
static void uri_add(sl_buf *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	sl_buf_adds(b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p <= ' ' || *p >= 0x7f || strchr("%#?\"\\[]^`{}|<>", *p)) {
			sl_buf_addc(b, '%');
			sl_buf_addc(b, hex[*p >> 4]);
			sl_buf_addc(b, hex[*p & 15]);
		} else {
			sl_buf_addc(b, (char)*p);
		}
	}
}

static void group_release(fgroup *g)
{
	for (int i = 0; i < g->n; i++)
		free(g->f[i].path);
	free(g->f);
	g->n = 0;
	g->f = NULL;
}

static int log_write(const fsrc *fs, int64_t id, const fgroup *g, sl_err *err)
{
	char path[4096];
	sl_buf b;
	int rc;
	if (fs->metadir == NULL)
		return 0;
	if (sl_source_mkdirs(fs->metadir, err) != 0)
		return SL_ECHECKPOINT;
	snprintf(path, sizeof path, "%s/%lld", fs->metadir, (long long)id);
	sl_buf_init(&b);
	sl_buf_adds(&b, "v1");
	for (int i = 0; i < g->n; i++) {
		sl_buf uri;
		sl_buf_init(&uri);
		uri_add(&uri, g->f[i].path);
		sl_buf_adds(&b, "\n{\"path\":");
		sl_buf_json_str(&b, sl_buf_cstr(&uri), uri.len);
		sl_buf_printf(&b, ",\"timestamp\":%lld,\"batchId\":%lld}",
			      (long long)g->f[i].mtime_ms, (long long)id);
		sl_buf_release(&uri);
	}
	if (sl_buf_failed(&b)) {
		sl_buf_release(&b);
		return sl_err_nomem(err);
	}
	/* overwrite: a batch re-planned after a crash rewrites its own id */
	rc = sl_fs_write_atomic(path, b.p, b.len, true, NULL, NULL, id, err);
	sl_buf_release(&b);
	if (rc < 0)
		sl_err_prefix(err, "file source: cannot write log");
	return rc;
}

/* One entry line: {"path":"...","timestamp":N,"batchId":N}. */
static int log_entry(const char *line, ffile *f)
{
	const char *p = strstr(line, "\"path\":\""), *q;
	const char *t = strstr(line, "\"timestamp\":");
	sl_buf s;
	if (p == NULL || t == NULL)
		return -1;
	sl_buf_init(&s);
	for (q = p + 8; *q && *q != '"'; q++) {
		if (*q == '\\' && q[1] != '\0')
			q++;
		sl_buf_addc(&s, *q);
	}
	f->path = *q == '"' ? sl_format_uri_path(sl_buf_cstr(&s), s.len) : NULL;
	sl_buf_release(&s);
	f->mtime_ms = strtoll(t + 12, NULL, 10);
	return f->path ? 0 : -1;
}

static int group_push(fgroup *g, ffile f)
{
	ffile *nf = realloc(g->f, (size_t)(g->n + 1) * sizeof *nf);
	if (nf == NULL) {
		free(f.path);
		return SL_ENOMEM;
	}
	g->f = nf;
	g->f[g->n++] = f;
	return 0;
}

static int log_load_file(const char *path, fgroup *g, sl_err *err)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;
	if (fp == NULL)
		return sl_err_set(err, SL_ECHECKPOINT,
				  "file source: cannot read log '%s': %s", path,
				  strerror(errno));
	while (rc == 0 && (len = getline(&line, &cap, fp)) >= 0) {
		ffile f;
		lineno++;
		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (lineno == 1) {
			if (strcmp(line, "v1") != 0)
				rc = sl_err_set(err, SL_ECHECKPOINT,
						"file source: log '%s' has "
						"unsupported version '%s'",
						path, line);
			continue;
		}
		if (len == 0)
			continue;
		if (log_entry(line, &f) != 0)
			rc = sl_err_set(err, SL_ECHECKPOINT,
					"file source: bad entry in log '%s' "
					"line %d",
					path, lineno);
		else if (group_push(g, f) != 0)
			rc = sl_err_nomem(err);
	}
	free(line);
	fclose(fp);
	return rc;
}

static int groups_reserve(fsrc *fs, int64_t id)
{
	if (id < fs->gcap)
		return 0;
	int64_t cap = fs->gcap ? fs->gcap : 16;
	while (cap <= id)
		cap *= 2;
	fgroup *ng = realloc(fs->groups, (size_t)cap * sizeof *ng);
	if (ng == NULL)
		return SL_ENOMEM;
	memset(ng + fs->gcap, 0, (size_t)(cap - fs->gcap) * sizeof *ng);
	fs->groups = ng;
	fs->gcap = cap;
	return 0;
}

/* A name of digits only: an entry of the log (others are ignored, as
 * Spark's batchFilesFilter ignores what is not a number). */
static bool log_name(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Read back <metadir>/N for every N (a restart), then restore the seen set
 * as Spark's FileStreamSource constructor does. */
static int log_load(fsrc *fs, sl_err *err)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;
	if (fs->metadir == NULL || (d = opendir(fs->metadir)) == NULL)
		return 0;
	/* The log's ids are 0..n-1 by construction (assign takes last + 1,
	 * nothing deletes an entry), so an id at or past the count of entries
	 * is a stray file: refused by name before anything is sized by it (a
	 * name like 99999999999999999999 once made groups_reserve spin). */
	int64_t n = 0;
	while ((e = readdir(d)) != NULL)
		if (log_name(e->d_name))
			n++;
	rewinddir(d);
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *end, path[4096];
		long long id;
		if (!log_name(e->d_name))
			continue;
		errno = 0;
		id = strtoll(e->d_name, &end, 10);
		if (errno == ERANGE || id >= n) {
			rc = sl_err_set(
			    err, SL_ECHECKPOINT,
			    "file source log '%s/%s': not an entry id "
			    "(the log has %lld files, so its ids run "
			    "0..%lld)",
			    fs->metadir, e->d_name, (long long)n,
			    (long long)n - 1);
			break;
		}
		if (groups_reserve(fs, id) != 0) {
			rc = sl_err_nomem(err);
			break;
		}
		snprintf(path, sizeof path, "%s/%s", fs->metadir, e->d_name);
		rc = log_load_file(path, &fs->groups[id], err);
		if (id > fs->last)
			fs->last = id;
	}
	closedir(d);
	for (int64_t id = 0; rc == 0 && id <= fs->last; id++)
		for (int i = 0; rc == 0 && i < fs->groups[id].n; i++)
			if (seen_add(fs, &fs->groups[id].f[i]) != 0)
				rc = sl_err_nomem(err);
	mark_purge(fs);
	return rc;
}

/* Make id (== last + 1) permanent: the next group of pending files. */
static int assign(fsrc *fs, int64_t id, sl_err *err)
{
	fgroup g = { 0, NULL };
	int take, keep = 0;
	/* Normally the files of the driver's last latest(); with none (a
	 * restart replaying an id planned before a crash) list again. */
	if ((!fs->pend_valid || fs->npend == 0) && list_dir(fs, err) != 0)
		return err ? err->code : SL_EIO;
	take = fs->npend;
	if (fs->conf.max_files > 0 && take > fs->conf.max_files)
		take = (int)fs->conf.max_files;
	if (take == 0)
		return sl_err_set(err, SL_ESTATE,
				  "file source: no new files in '%s' for "
				  "logOffset %lld",
				  fs->dir, (long long)id);
	if (groups_reserve(fs, id) != 0)
		return sl_err_nomem(err);
	g.f = malloc((size_t)take * sizeof *g.f);
	if (g.f == NULL)
		return sl_err_nomem(err);
	memcpy(g.f, fs->pend, (size_t)take * sizeof *g.f);
	g.n = take;
	if (log_write(fs, id, &g, err) != 0) {
		free(g.f); /* the paths still belong to pend */
		return SL_ECHECKPOINT;
	}
	for (int i = 0; i < take; i++)
		if (seen_add(fs, &g.f[i]) != 0) {
			g.n = 0;
			free(g.f);
			return sl_err_nomem(err);
		}
	fs->groups[id] = g;
	fs->last = id;
	mark_purge(fs);
	/* the rest stays pending, minus what the new cutoff made too old */
	for (int i = take; i < fs->npend; i++) {
		if (fs->pend[i].mtime_ms >= fs->purge_ts)
			fs->pend[keep++] = fs->pend[i];
		else
			free(fs->pend[i].path);
	}
	fs->npend = keep;
	return 0;
}

/* ---- the source ---- */

static int file_latest(sl_source *s, char **offset, sl_err *err)
{
	fsrc *fs = s->impl;
	int64_t groups;
	*offset = NULL;
	if (list_dir(fs, err) != 0)
		return err ? err->code : SL_EIO;
	groups = fs->npend == 0 ? 0
		 : fs->conf.max_files > 0
		     ? (fs->npend + fs->conf.max_files - 1) / fs->conf.max_files
		     : 1;
	if (fs->last + groups < 0)
		return 0;
	*offset = fmt_off(fs->last + groups, err);
	return *offset ? 0 : SL_ENOMEM;
}

static int file_limit(sl_source *s, const char *start, const char *latest,
		      char **end, sl_err *err)
{
	fsrc *fs = s->impl;
	int64_t lt, st;
	*end = NULL;
	if (latest == NULL)
		return 0;
	if (parse_off(latest, &lt, err) != 0 || parse_off(start, &st, err) != 0)
		return SL_EINVAL;
	/* one log entry (at most maxFilesPerTrigger files) per batch: also
	 * when the log already has entries after start, written by a batch
	 * whose offsets/N never became durable before a crash (Spark would
	 * add a new entry and read both; taking exactly the logged one keeps
	 * every batch what the uncrashed run's was) */
	if (fs->conf.max_files > 0 && lt > st + 1)
		lt = st + 1;
	*end = fmt_off(lt, err);
	return *end ? 0 : SL_ENOMEM;
}

/* Lines per chunk: a big file reaches the operators 32,768 lines at a time,
 * so a batch's memory is a chunk's, not the file's (issue 16 finding 7).
 * Half the rate source's 65,536: a chunk of W2's 58-byte JSON lines (1.9
 * MB of text, 0.9 MB of columns) then stays in this machine's 2 MB L2
 * between the read, the newline count, the parse and the operators; W2-json
 * took 9% less CPU than with 65,536 lines (24,576: 6%, 49,152: none). */
#define FILE_CHUNK_LINES 32768

typedef struct chunk_ctx {
	const fsrc *fs;
	const char *path;
	const sl_type *schema;
	sl_batch_list *out;
} chunk_ctx;

/* One chunk of a file: partition columns added, then to out (a pipe) */
static int chunk_add(void *ctx, sl_batch *b, sl_err *err)
{
	chunk_ctx *c = ctx;
	sl_batch *full = sl_part_assemble(c->fs->parts, c->path, b,
					  (sl_type *)c->schema, err);
	sl_batch_free(b);
	if (full == NULL)
		return err && err->code ? err->code : SL_EIO;
	if (full->nrows == 0) {
		sl_batch_free(full);
		return 0;
	}
	if (sl_batch_list_add(c->out, full) != 0)
		return sl_err_nomem(err);
	return 0;
}

static int read_group(sl_source *s, int64_t id, sl_batch_list *out, sl_err *err)
{
	fsrc *fs = s->impl;
	const fgroup *g = &fs->groups[id];
	sl_format_bad bad = sl_source_bad(s);
	for (int i = 0; i < g->n; i++) {
		struct stat st;
		chunk_ctx c = { fs, g->f[i].path, s->schema, out };
		sl_type *rs;
		int rc;
		if (stat(g->f[i].path, &st) != 0)
			return sl_err_set(err, SL_EIO,
					  "file source: cannot read '%s' "
					  "(logOffset %lld): %s",
					  g->f[i].path, (long long)id,
					  strerror(errno));
		rs = sl_part_file_schema(fs->parts, g->f[i].path, s->schema,
					 err);
		if (rs == NULL)
			return err && err->code ? err->code : SL_EIO;
		rc = sl_format_read_file_chunks(fs->format, g->f[i].path, rs,
						&fs->opts, &bad,
						FILE_CHUNK_LINES, chunk_add,
						&c, err);
		sl_type_free(rs);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int file_read(sl_source *s, const char *start, const char *end,
		     sl_batch_list *out, sl_err *err)
{
	fsrc *fs = s->impl;
	int64_t a, b;
	if (parse_off(start, &a, err) != 0 || parse_off(end, &b, err) != 0)
		return SL_EINVAL;
	if (b < a || a < -1)
		return sl_err_set(err, SL_EINVAL,
				  "file source: bad offset range (%s, %s]",
				  start ? start : "null", end ? end : "null");
	if (fs->cleaned == -2)
		fs->cleaned = a;
	for (int64_t id = a + 1; id <= b; id++) {
		if (id > fs->last && assign(fs, id, err) != 0)
			return err ? err->code : SL_EIO;
		if (read_group(s, id, out, err) != 0)
			return err ? err->code : SL_EIO;
	}
	return 0;
}

/* Spark's SourceFileArchiver: the file moves to archive + its own
 * absolute path ("/a/b/x.json" -> "<archive>/a/b/x.json"); an existing
 * target, or a failure, leaves the file where it is (Spark logs a
 * warning and skips it). */
static void archive_file(const fsrc *fs, const char *path)
{
	char *to = NULL, *slash;
	struct stat st;
	sl_err e;
	if (asprintf(&to, "%s%s", fs->archive, path) < 0)
		return;
	slash = strrchr(to, '/');
	if (slash != NULL && slash != to) {
		*slash = '\0';
		(void)sl_fs_mkdirs(to, &e);
		*slash = '/';
	}
	if (lstat(to, &st) != 0 && errno == ENOENT)
		(void)rename(path, to);
	free(to);
}

/* cleanSource after the batch ending at `end` committed (Spark's
 * FileStreamSource.commit): the files of every group read in this run up
 * to end are archived or deleted; best effort, never an error. */
static void file_commit(sl_source *s, const char *end)
{
	fsrc *fs = s->impl;
	int64_t id;
	if (fs->conf.clean == SL_CLEAN_OFF || end == NULL ||
	    parse_off(end, &id, NULL) != 0)
		return;
	if (fs->cleaned < -1)
		fs->cleaned = -1;
	for (int64_t g = fs->cleaned + 1; g <= id && g <= fs->last; g++)
		for (int i = 0; i < fs->groups[g].n; i++) {
			const char *p = fs->groups[g].f[i].path;
			if (fs->conf.clean == SL_CLEAN_DELETE)
				(void)unlink(p);
			else
				archive_file(fs, p);
		}
	if (id > fs->cleaned)
		fs->cleaned = id;
}

static void file_describe(const sl_source *s, sl_buf *out)
{
	const fsrc *fs = s->impl;
	sl_buf_printf(out, "FileStreamSource[file:%s]", fs->dir);
}

static void file_close(sl_source *s)
{
	fsrc *fs = s->impl;
	if (fs == NULL)
		return;
	pend_clear(fs);
	free(fs->pend);
	for (int64_t i = 0; i < fs->gcap; i++)
		group_release(&fs->groups[i]);
	free(fs->groups);
	for (size_t i = 0; i < fs->seencap; i++)
		free(fs->seen[i]);
	free(fs->seen);
	sl_options_release(&fs->opts);
	sl_part_spec_free(fs->parts);
	free(fs->archive);
	free(fs->format);
	free(fs->dir);
	free(fs->metadir);
	free(fs);
	s->impl = NULL;
}

static const struct sl_source_ops file_ops = {
	.name = "file",
	.latest = file_latest,
	.limit = file_limit,
	.read = file_read,
	.commit = file_commit,
	.describe = file_describe,
	.close = file_close,
};

/* The partition columns fixed at load() (conf.parts); each file's values
 * come from its directories below the source path (or basePath), as
 * Spark's inner DataSource with basePath = path, and so do those of a user
 * column named like one of its directories. */
static int open_parts(fsrc *fs, sl_err *err)
{
	sl_type *none = NULL;
	const sl_type *pt = fs->conf.parts;
	if (pt == NULL && (pt = none = sl_type_struct_new(0)) == NULL)
		return sl_err_nomem(err);
	fs->parts = sl_part_spec_new(fs->dir, &fs->opts, pt, err);
	sl_type_free(none);
	return fs->parts != NULL ? 0 : (err ? err->code : SL_ENOMEM);
}

/* A path made absolute without resolving links (Hadoop's makeQualified),
 * "." and ".." segments folded. */
static char *absolute(const char *p)
{
	char cwd[4096], *out, *w;
	sl_buf b;
	sl_buf_init(&b);
	if (p[0] != '/' && getcwd(cwd, sizeof cwd) != NULL) {
		sl_buf_adds(&b, cwd);
		sl_buf_addc(&b, '/');
	}
	sl_buf_adds(&b, p);
	if (sl_buf_failed(&b) || (out = malloc(b.len + 2)) == NULL) {
		sl_buf_release(&b);
		return NULL;
	}
	w = out;
	for (const char *s = b.p; *s;) {
		const char *e;
		size_t n;
		while (*s == '/')
			s++;
		e = s;
		while (*e && *e != '/')
			e++;
		n = (size_t)(e - s);
		if (n == 0 || (n == 1 && s[0] == '.')) {
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (w > out && *--w != '/')
				;
		} else {
			*w++ = '/';
			memcpy(w, s, n);
			w += n;
		}
		s = e;
	}
	if (w == out)
		*w++ = '/';
	*w = '\0';
	sl_buf_release(&b);
	return out;
}

/* Hadoop's Path.depth: the number of names. */
static int depth_of(const char *p)
{
	int d = 0;
	for (; *p; p++)
		if (*p == '/' && p[1] != '\0')
			d++;
	return d;
}

/* The ancestor of p with depth d, as a length of p. */
static size_t ancestor_len(const char *p, int d)
{
	size_t n = 0;
	int seen = 0;
	if (d == 0)
		return 1;
	for (; p[n]; n++)
		if (p[n] == '/' && n > 0 && ++seen == d)
			return n;
	return n;
}

/* cleanSource's checks at query start (FileStreamSource and
 * SourceFileArchiver): not over a file sink's output; the archive
 * directory must not match the source path in depth (it can sit neither
 * inside the source directory nor above it). */
static int open_clean(fsrc *fs, sl_err *err)
{
	char *meta = NULL;
	struct stat st;
	if (asprintf(&meta, "%s/_spark_metadata", fs->dir) < 0)
		return sl_err_nomem(err);
	fs->has_log = stat(meta, &st) == 0 && S_ISDIR(st.st_mode);
	free(meta);
	if (fs->conf.clean == SL_CLEAN_OFF)
		return 0;
	if (fs->has_log)
		return sl_err_set(err, SL_EINVAL,
				  "Clean up source files is not supported "
				  "when reading from the output directory of "
				  "FileStreamSink.");
	if (fs->conf.clean != SL_CLEAN_ARCHIVE)
		return 0;
	{
		char *src = absolute(fs->dir);
		int md;
		size_t a, b;
		bool matched;
		fs->archive = absolute(fs->conf.archive);
		if (src == NULL || fs->archive == NULL) {
			free(src);
			return sl_err_nomem(err);
		}
		md = depth_of(src) < depth_of(fs->archive)
			 ? depth_of(src)
			 : depth_of(fs->archive);
		a = ancestor_len(src, md);
		b = ancestor_len(fs->archive, md);
		matched = a == b && strncmp(src, fs->archive, a) == 0;
		free(src);
		if (matched)
			return sl_err_set(
			    err, SL_EINVAL,
			    "requirement failed: Base archive path cannot be "
			    "set to the path where archived path can possibly "
			    "match with source pattern. Ensure the base archive "
			    "path doesn't match with source pattern in depth, "
			    "where the depth is minimum of depth on both paths.");
	}
	return 0;
}

sl_source *sl_source_file_open(const char *format, const char *path,
			       sl_type *schema, const sl_options *opts,
			       const sl_file_conf *conf, sl_clock *clock,
			       const char *metadir, sl_err *err)
{
	fsrc *fs = calloc(1, sizeof *fs);
	sl_source *s;
	(void)clock;
	if (fs == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	sl_options_init(&fs->opts);
	fs->conf = *conf;
	fs->last = -1;
	fs->cleaned = -2;
	fs->latest_ts = INT64_MIN;
	fs->purge_ts = INT64_MIN;
	fs->max_age_ms = conf->latest_first && conf->max_files > 0
			     ? INT64_MAX
			     : conf->max_age_us / 1000;
	fs->format = strdup(format);
	fs->dir = strdup(path);
	fs->metadir = metadir ? strdup(metadir) : NULL;
	s = sl_source_shell(&file_ops, schema, true, fs, err);
	if (s == NULL) {
		sl_source close_shell = { .impl = fs };
		file_close(&close_shell);
		return NULL;
	}
	if (fs->format == NULL || fs->dir == NULL ||
	    (metadir != NULL && fs->metadir == NULL) ||
	    sl_options_copy(&fs->opts, opts) != 0) {
		sl_err_nomem(err);
		sl_source_close(s);
		return NULL;
	}
	if (open_parts(fs, err) != 0 || open_clean(fs, err) != 0 ||
	    (metadir != NULL && sl_source_mkdirs(metadir, err) != 0) ||
	    log_load(fs, err) != 0) {
		sl_source_close(s);
		return NULL;
	}
	return s;
}
