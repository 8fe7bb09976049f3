/*
 * ckpt: reading and writing the checkpoint's logs, the recovery rules, the
 * background writer and retention (state files: ckpt_state.c).  The JSON we read back is our own (or Spark's) small
 * flat objects, so a tiny scanner suffices; anything it cannot read is a
 * corrupt file, reported with its path.
 */
#include "state/ckpt_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/fsutil.h"

/* A file for the writer thread: the bytes, and for a state file the
 * trailer still to append (its CRC is computed off the batch's path). */
struct filejob {
	sl_ckpt *c;
	char *path;
	sl_buf b;
	bool overwrite, trailer;
	int64_t batch;
	sl_fs_staged *st; /* the temp file, once staged */
	sl_crash *crash;  /* written now (not queued): its crash points */
	const char *point, *flush_point;
};

void sl_ckpt_path(const sl_ckpt *c, const char *rel, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", c->dir, rel);
}

sl_ckpt *sl_ckpt_open(const char *dir, sl_err *err)
{
	sl_ckpt *c;
	char p[4200];
	if (sl_fs_mkdirs(dir, err) < 0)
		return NULL;
	sl_fs_mark_top(dir); /* before its logs' directories are made */
	c = calloc(1, sizeof *c);
	if (c == NULL || (c->dir = strdup(dir)) == NULL) {
		free(c);
		sl_err_nomem(err);
		return NULL;
	}
	c->log_low = -1;
	snprintf(p, sizeof p, "%s/.lock", dir);
	c->lockfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (c->lockfd < 0 || flock(c->lockfd, LOCK_EX | LOCK_NB) != 0) {
		sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint '%s' is in use by another running query (lock '%s')",
		    dir, p);
		sl_ckpt_close(c);
		return NULL;
	}
	c->durable = true;
	return c;
}

void sl_ckpt_set_durable(sl_ckpt *c, bool durable)
{
	c->durable = durable;
}

sl_ckpt *sl_ckpt_open_ro(const char *dir, sl_err *err)
{
	sl_ckpt *c;
	if (!sl_fs_exists(dir)) {
		sl_err_set(err, SL_ECHECKPOINT,
			   "checkpoint '%s' does not exist", dir);
		return NULL;
	}
	c = calloc(1, sizeof *c);
	if (c == NULL || (c->dir = strdup(dir)) == NULL) {
		free(c);
		sl_err_nomem(err);
		return NULL;
	}
	c->log_low = -1;
	c->lockfd = -1;
	return c;
}

void sl_ckpt_close(sl_ckpt *c)
{
	int i, k;
	if (c == NULL)
		return;
	sl_ckwriter_free(c->w); /* waits for the queued writes */
	c->w = NULL;
	ckpt_snap_join(c, INT64_MAX, -1, -1);
	for (i = 0; i < c->nsp; i++) {
		for (k = 0; k < c->sp[i].n; k++)
			free(c->sp[i].path[k]);
		free(c->sp[i].dir);
	}
	free(c->sp);
	if (c->lockfd >= 0)
		close(c->lockfd); /* releases the flock */
	free(c->dir);
	free(c);
}

const char *sl_ckpt_dir(const sl_ckpt *c)
{
	return c->dir;
}

/* ---- the pipelined writer ---- */

int sl_ckpt_set_async(sl_ckpt *c, bool on, sl_err *err)
{
	int rc = 0;
	if (on && c->w == NULL && (c->w = sl_ckwriter_new()) == NULL)
		return sl_err_nomem(err);
	if (!on && c->w != NULL) {
		rc = sl_ckwriter_sync(c->w, err);
		sl_ckwriter_free(c->w);
		c->w = NULL;
	}
	return rc;
}

int sl_ckpt_sync(sl_ckpt *c, sl_err *err)
{
	return c->w != NULL ? sl_ckwriter_sync(c->w, err) : 0;
}

int64_t sl_ckpt_ticket(const sl_ckpt *c)
{
	return c->last_ticket;
}

int sl_ckpt_wait(sl_ckpt *c, int64_t ticket, sl_err *err)
{
	return c->w != NULL && ticket > 0 ? sl_ckwriter_wait(c->w, ticket, err)
					  : 0;
}

int64_t sl_ckpt_batch_write_us(sl_ckpt *c, int64_t batch)
{
	return c->w != NULL ? sl_ckwriter_batch_us(c->w, batch) : -1;
}

/* ---- spares ---- */

static struct spares *spares_of(sl_ckpt *c, const char *dir, size_t n, bool add)
{
	struct spares *sp;
	int i;
	for (i = 0; i < c->nsp; i++)
		if (strlen(c->sp[i].dir) == n &&
		    memcmp(c->sp[i].dir, dir, n) == 0)
			return &c->sp[i];
	if (!add)
		return NULL;
	sp = realloc(c->sp, (size_t)(c->nsp + 1) * sizeof *sp);
	if (sp == NULL)
		return NULL;
	c->sp = sp;
	sp = &c->sp[c->nsp];
	memset(sp, 0, sizeof *sp);
	if ((sp->dir = strndup(dir, n)) == NULL)
		return NULL;
	c->nsp++;
	return sp;
}

/* path (in dir) is past retention: keep it to reuse.  Purges go oldest
 * first and so do reuses, and when the list is full its oldest goes: the
 * files left are always one run of ids up to the newest, so a crash at any
 * point leaves no gap for recovery to refuse. */
static void spare_add(sl_ckpt *c, const char *dir, const char *path)
{
	struct spares *sp = spares_of(c, dir, strlen(dir), true);
	char *p = sp != NULL ? strdup(path) : NULL;
	if (p == NULL) { /* out of memory: delete, oldest first */
		for (; sp != NULL && sp->n > 0; sp->n--) {
			unlink(sp->path[0]);
			free(sp->path[0]);
			memmove(sp->path, sp->path + 1,
				(size_t)(sp->n - 1) * sizeof p);
		}
		unlink(path);
		return;
	}
	if (sp->n == SPARES_MAX) {
		unlink(sp->path[0]);
		free(sp->path[0]);
		memmove(sp->path, sp->path + 1,
			(size_t)(SPARES_MAX - 1) * sizeof p);
		sp->n--;
	}
	sp->path[sp->n++] = p;
}

/* The oldest spare in path's directory (owned by the caller), or NULL. */
static char *spare_take(sl_ckpt *c, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct spares *sp;
	char *p;
	if (slash == NULL ||
	    (sp = spares_of(c, path, (size_t)(slash - path), false)) == NULL ||
	    sp->n == 0)
		return NULL;
	p = sp->path[0];
	memmove(sp->path, sp->path + 1, (size_t)(sp->n - 1) * sizeof p);
	sp->n--;
	return p;
}

void sl_ckpt_drop_spares(sl_ckpt *c)
{
	int i, k;
	char p[4300];
	if (sl_ckpt_sync(c, NULL) < 0)
		return; /* a failed writer: leave the files as they are */
	for (i = 0; i < c->nsp; i++) {
		for (k = 0; k < c->sp[i].n; k++) {
			unlink(c->sp[i].path[k]);
			free(c->sp[i].path[k]);
		}
		c->sp[i].n = 0;
		snprintf(p, sizeof p, "%s/" SL_FS_SPARE, c->sp[i].dir);
		unlink(p);
	}
}

/* The data lane's half: checksum a state file, write and
 * flush its temp file (the directory's spare, when it has one: also in a
 * temporary checkpoint, where reusing the spare's inode past retention
 * halves a small batch's system time against a create and a rename over
 * the spare).  A state
 * delta (trailer) is flushed late, beside its directory (fsutil.h): its
 * CRC rejects a torn or stale file, and nothing reads version N+1 before
 * commits/N, queued after it, is durable (query_batch.c's header). */
static int filejob_stage(void *ud, sl_err *err)
{
	struct filejob *j = ud;
	/* a delta's front-coded records stay bare (ckpt_state.c: LZ4 took a
	 * third of W4-100k's CPU for a fifth of the bytes) */
	int rc = j->trailer ? ckpt_put_trailer(&j->b, false, err) : 0;
	if (rc == 0 && (j->st = malloc(sizeof *j->st)) == NULL)
		rc = sl_err_nomem(err);
	if (rc == 0 &&
	    (rc = sl_fs_stage(j->st, j->path, j->b.p, j->b.len, j->c->durable,
			      !j->trailer, true, j->crash, j->point, j->batch,
			      err)) < 0) {
		free(j->st);
		j->st = NULL;
	}
	sl_buf_release(&j->b); /* the bytes are in the file */
	return rc;
}

/* The name lane's half, in queue order: the name, the retired spare, the
 * directory's flush. */
static int filejob_run(void *ud, sl_err *err)
{
	struct filejob *j = ud;
	char *retire = spare_take(j->c, j->path);
	bool retired = false;
	int rc = sl_fs_publish(j->st, j->overwrite, retire, &retired, j->crash,
			       j->flush_point, j->batch,
			       err);
	if (retire != NULL && !retired)
		unlink(retire); /* past retention all the same */
	free(retire);
	return rc;
}

static void filejob_free(void *ud)
{
	struct filejob *j = ud;
	if (j->st != NULL) /* staged, then skipped after a failure */
		sl_fs_unstage(j->st);
	free(j->st);
	free(j->path);
	sl_buf_release(&j->b);
	free(j);
}

/* The data lane's key of path: its directory (FNV-1a; a collision only
 * makes a stage wait longer). */
static uint64_t dir_key(const char *path)
{
	const char *slash = strrchr(path, '/'), *p;
	uint64_t h = 1469598103934665603ull;
	for (p = path; slash != NULL && p < slash; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h | 1;
}

/* Write b (taken: released here) to path: queued when the writer is on
 * and no crash point may hit this write, else now, after everything
 * queued (the order on disk is the order of the calls). */
int ckpt_put_file(sl_ckpt *c, const char *path, sl_buf *b, bool overwrite,
		  bool trailer, sl_crash *crash, const char *point,
		  int64_t batch, sl_err *err)
{
	struct filejob *j;
	int64_t t;
	int rc;
	bool now = c->w == NULL ||
		   (point != NULL && sl_crash_hits(crash, point, batch)) ||
		   (trailer && sl_crash_hits(crash, "mid-state-flush", batch));
	if (now && (rc = sl_ckpt_sync(c, err)) < 0) {
		sl_buf_release(b);
		return rc;
	}
	j = calloc(1, sizeof *j);
	if (j == NULL || (j->path = strdup(path)) == NULL) {
		free(j);
		sl_buf_release(b);
		return sl_err_nomem(err);
	}
	j->c = c;
	j->b = *b; /* moved */
	sl_buf_init(b);
	j->overwrite = overwrite;
	j->trailer = trailer;
	j->batch = batch;
	if (now) { /* here, after everything queued; crash points armed */
		j->crash = crash;
		j->point = point;
		j->flush_point = trailer ? "mid-state-flush" : NULL;
		rc = filejob_stage(j, err);
		if (rc == 0)
			rc = filejob_run(j, err);
		filejob_free(j);
		return rc;
	}
	t = sl_ckwriter_submit_staged(c->w, filejob_stage, filejob_run,
				      filejob_free, j, batch, dir_key(path),
				      err);
	if (t < 0)
		return (int)t;
	c->last_ticket = t;
	return 0;
}

/* ---- a tiny JSON scanner for our flat objects ---- */

static const char *skip_ws(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* Parse a JSON string at p (pointing at '"'); returns the end or NULL. */
static const char *scan_string(const char *p, sl_buf *out)
{
	if (*p != '"')
		return NULL;
	for (p++; *p && *p != '"'; p++) {
		if (*p == '\\') {
			p++;
			switch (*p) {
			case 'n': sl_buf_addc(out, '\n'); break;
			case 't': sl_buf_addc(out, '\t'); break;
			case 'r': sl_buf_addc(out, '\r'); break;
			case 'b': sl_buf_addc(out, '\b'); break;
			case 'f': sl_buf_addc(out, '\f'); break;
			case 'u': {
				unsigned v = 0;
				int k;
				for (k = 1; k <= 4; k++) {
					if (!isxdigit((unsigned char)p[k]))
						return NULL;
					v = v * 16 +
					    (unsigned)(isdigit(
							   (unsigned char)p[k])
							   ? p[k] - '0'
							   : (tolower(
								  (unsigned char)
								      p[k]) -
							      'a' + 10));
				}
				p += 4;
				if (v < 0x80) {
					sl_buf_addc(out, (char)v);
				} else if (v < 0x800) {
					sl_buf_addc(out,
						    (char)(0xc0 | (v >> 6)));
					sl_buf_addc(out,
						    (char)(0x80 | (v & 0x3f)));
				} else {
					sl_buf_addc(out,
						    (char)(0xe0 | (v >> 12)));
					sl_buf_addc(
					    out,
					    (char)(0x80 | ((v >> 6) & 0x3f)));
					sl_buf_addc(out,
						    (char)(0x80 | (v & 0x3f)));
				}
				break;
			}
			case '\0': return NULL;
			default: sl_buf_addc(out, *p);
			}
		} else {
			sl_buf_addc(out, *p);
		}
	}
	return *p == '"' ? p + 1 : NULL;
}

/* Position just after "key": in a flat object, or NULL. */
static const char *find_key(const char *json, const char *key)
{
	size_t kl = strlen(key);
	const char *p = json;
	while ((p = strchr(p, '"')) != NULL) {
		if (strncmp(p + 1, key, kl) == 0 && p[kl + 1] == '"') {
			const char *q = skip_ws(p + kl + 2);
			if (*q == ':')
				return skip_ws(q + 1);
		}
		p++;
	}
	return NULL;
}

static bool get_int(const char *json, const char *key, int64_t *out)
{
	const char *p = find_key(json, key);
	char *end;
	if (p == NULL)
		return false;
	*out = strtoll(p, &end, 10);
	return end != p;
}

static char *get_str(const char *json, const char *key)
{
	const char *p = find_key(json, key);
	sl_buf b;
	sl_buf_init(&b);
	if (p == NULL || scan_string(p, &b) == NULL) {
		sl_buf_release(&b);
		return NULL;
	}
	sl_buf_addc(&b, '\0'); /* make "" non-NULL */
	return sl_buf_detach(&b);
}

/* "conf":{"k":"v",...} into o. */
static bool get_conf(const char *json, sl_options *o)
{
	const char *p = find_key(json, "conf");
	if (p == NULL)
		return true;
	if (*p != '{')
		return false;
	p = skip_ws(p + 1);
	while (*p == '"') {
		sl_buf k, v;
		bool okv;
		sl_buf_init(&k);
		sl_buf_init(&v);
		p = scan_string(p, &k);
		if (p != NULL) {
			p = skip_ws(p);
			p = *p == ':' ? scan_string(skip_ws(p + 1), &v) : NULL;
		}
		okv = p != NULL &&
		      sl_options_set(o, sl_buf_cstr(&k), sl_buf_cstr(&v)) == 0;
		sl_buf_release(&k);
		sl_buf_release(&v);
		if (!okv)
			return false;
		p = skip_ws(p);
		if (*p == ',')
			p = skip_ws(p + 1);
	}
	return *p == '}';
}

/* ---- metadata ---- */

int sl_ckpt_read_metadata(sl_ckpt *c, char **id, char **fingerprint,
			  sl_err *err)
{
	char p[4200], *data;
	size_t len;
	bool enoent;
	*id = *fingerprint = NULL;
	int rc;
	sl_ckpt_path(c, "metadata", p, sizeof p);
	if ((rc = sl_fs_read(p, &data, &len, &enoent, err)) < 0)
		return enoent ? 0 : rc;
	*id = get_str(data, "id");
	*fingerprint = get_str(data, "fingerprint");
	free(data);
	if (*id == NULL) {
		free(*fingerprint); /* nothing is handed out on failure */
		*fingerprint = NULL;
	}
	if (*id == NULL)
		return sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s' is corrupt: no query id", p);
	return 0;
}

int sl_ckpt_write_metadata(sl_ckpt *c, const char *id, const char *fingerprint,
			   sl_err *err)
{
	char p[4200];
	sl_buf b;
	int rc;
	sl_buf_init(&b);
	sl_buf_adds(&b, "{\"id\":");
	sl_buf_json_str(&b, id, strlen(id));
	if (fingerprint != NULL) {
		sl_buf_adds(&b, ",\"fingerprint\":");
		sl_buf_json_str(&b, fingerprint, strlen(fingerprint));
	}
	sl_buf_addc(&b, '}');
	sl_ckpt_path(c, "metadata", p, sizeof p);
	rc = sl_fs_write(p, b.p, b.len, false, c->durable, NULL, NULL, -1, err);
	sl_buf_release(&b);
	return rc;
}

/* ---- offsets and commits ---- */

void sl_ckpt_offsets_init(sl_ckpt_offsets *o)
{
	memset(o, 0, sizeof *o);
	sl_options_init(&o->conf);
}

void sl_ckpt_offsets_release(sl_ckpt_offsets *o)
{
	int i;
	for (i = 0; i < o->nsources; i++)
		free(o->src[i]);
	free(o->src);
	sl_options_release(&o->conf);
	sl_ckpt_offsets_init(o);
}

int sl_ckpt_write_offsets(sl_ckpt *c, int64_t batch, const sl_ckpt_offsets *o,
			  bool overwrite, sl_crash *crash, sl_err *err)
{
	char dir[4200], p[4300];
	sl_buf b;
	int i, rc;
	sl_ckpt_path(c, "offsets", dir, sizeof dir);
	if ((rc = sl_ckpt_make_logs(c, err)) < 0)
		return rc;
	sl_buf_init(&b);
	sl_buf_printf(
	    &b,
	    "v1\n{\"batchWatermarkMs\":%lld,\"batchTimestampMs\":%lld,\"conf\":{",
	    (long long)o->watermark_ms, (long long)o->timestamp_ms);
	for (i = 0; i < o->conf.n; i++) {
		if (i > 0)
			sl_buf_addc(&b, ',');
		sl_buf_json_str(&b, o->conf.keys[i], strlen(o->conf.keys[i]));
		sl_buf_addc(&b, ':');
		sl_buf_json_str(&b, o->conf.vals[i], strlen(o->conf.vals[i]));
	}
	sl_buf_adds(&b, "}}");
	for (i = 0; i < o->nsources; i++) {
		sl_buf_addc(&b, '\n');
		sl_buf_adds(&b, o->src[i] != NULL ? o->src[i] : "-");
	}
	if (sl_buf_failed(&b)) {
		sl_buf_release(&b);
		return sl_err_nomem(err);
	}
	snprintf(p, sizeof p, "%s/%lld", dir, (long long)batch);
	rc = ckpt_put_file(c, p, &b, overwrite, false, NULL, NULL, batch, err);
	/* a crash "after" the write: the write is durable first */
	if (rc == 0 && sl_crash_hits(crash, "after-offsets", batch))
		rc = sl_ckpt_sync(c, err);
	if (rc == 0)
		rc = sl_crash_at(crash, "after-offsets", batch, err);
	return rc;
}

/* Check the "v1" line; returns the rest or NULL with err set. */
static const char *check_version(const char *data, const char *path,
				 sl_err *err)
{
	int v;
	if (data[0] == '\0') {
		sl_err_set(err, SL_ECHECKPOINT,
			   "checkpoint file '%s' is corrupt: empty", path);
		return NULL;
	}
	if (data[0] != 'v' || !isdigit((unsigned char)data[1])) {
		sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s' is corrupt: malformed, no version line",
		    path);
		return NULL;
	}
	v = atoi(data + 1);
	if (v != 1) {
		sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s': version v%d is newer than supported v1",
		    path, v);
		return NULL;
	}
	data = strchr(data, '\n');
	if (data == NULL) {
		sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s' is corrupt: truncated after the version line",
		    path);
		return NULL;
	}
	return data + 1;
}

int sl_ckpt_read_offsets(sl_ckpt *c, int64_t batch, sl_ckpt_offsets *o,
			 sl_err *err)
{
	char p[4300], *data, *line, *save = NULL;
	const char *rest;
	size_t len;
	int rc = 0;
	snprintf(p, sizeof p, "%s/offsets/%lld", c->dir, (long long)batch);
	if ((rc = sl_fs_read(p, &data, &len, NULL, err)) < 0)
		return rc;
	sl_ckpt_offsets_init(o);
	if ((rest = check_version(data, p, err)) == NULL) {
		free(data);
		return SL_ECHECKPOINT;
	}
	line = strtok_r((char *)rest, "\n", &save);
	if (line == NULL || line[0] != '{' ||
	    !get_int(line, "batchWatermarkMs", &o->watermark_ms) ||
	    !get_int(line, "batchTimestampMs", &o->timestamp_ms) ||
	    !get_conf(line, &o->conf)) {
		free(data);
		sl_ckpt_offsets_release(o);
		return sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s' is corrupt: bad batch metadata", p);
	}
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		char **ns =
		    realloc(o->src, ((size_t)o->nsources + 1) * sizeof *ns);
		if (ns == NULL) {
			rc = sl_err_nomem(err);
			break;
		}
		o->src = ns;
		o->src[o->nsources] =
		    strcmp(line, "-") == 0 ? NULL : strdup(line);
		o->nsources++;
	}
	free(data);
	if (rc < 0)
		sl_ckpt_offsets_release(o);
	return rc;
}

int sl_ckpt_write_commit(sl_ckpt *c, int64_t batch, int64_t next_wm_ms,
			 sl_crash *crash, sl_err *err)
{
	char dir[4200], p[4300];
	sl_buf b;
	int rc;
	sl_ckpt_path(c, "commits", dir, sizeof dir);
	if ((rc = sl_ckpt_make_logs(c, err)) < 0)
		return rc;
	sl_buf_init(&b);
	sl_buf_printf(&b, "v1\n{\"nextBatchWatermarkMs\":%lld}",
		      (long long)next_wm_ms);
	if (sl_buf_failed(&b)) {
		sl_buf_release(&b);
		return sl_err_nomem(err);
	}
	snprintf(p, sizeof p, "%s/%lld", dir, (long long)batch);
	return ckpt_put_file(c, p, &b, false, false, crash, "mid-commit", batch,
			     err);
}

int sl_ckpt_read_commit(sl_ckpt *c, int64_t batch, int64_t *next_wm_ms,
			sl_err *err)
{
	char p[4300], *data;
	const char *rest;
	size_t len;
	int rc;
	snprintf(p, sizeof p, "%s/commits/%lld", c->dir, (long long)batch);
	if ((rc = sl_fs_read(p, &data, &len, NULL, err)) < 0)
		return rc;
	rest = check_version(data, p, err);
	*next_wm_ms = 0;
	if (rest != NULL && *rest != '\0' &&
	    !get_int(rest, "nextBatchWatermarkMs", next_wm_ms) &&
	    strncmp(rest, "{}", 2) != 0) {
		sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s' is corrupt: bad commit metadata", p);
		rest = NULL;
	}
	free(data);
	return rest == NULL ? SL_ECHECKPOINT : 0;
}

/* ---- recovery ---- */

int sl_ckpt_recover(sl_ckpt *c, sl_ckpt_plan *plan, sl_err *err)
{
	char dir[4200];
	int64_t *off = NULL, *com = NULL, wm;
	int noff = 0, ncom = 0, i, rc;
	sl_ckpt_offsets o;
	memset(plan, 0, sizeof *plan);
	plan->last_offsets = plan->last_commit = plan->first_offsets = -1;
	sl_ckpt_path(c, "offsets", dir, sizeof dir);
	if ((rc = sl_fs_list_ids(dir, NULL, &off, &noff, err)) < 0)
		return rc;
	sl_ckpt_path(c, "commits", dir, sizeof dir);
	if ((rc = sl_fs_list_ids(dir, NULL, &com, &ncom, err)) < 0)
		goto out;
	for (i = 1; i < noff; i++)
		if (off[i] != off[i - 1] + 1) {
			rc = sl_err_set(
			    err, SL_ECHECKPOINT,
			    "checkpoint '%s' is inconsistent: offsets/%lld missing (batches %lld and %lld exist)",
			    c->dir, (long long)off[i - 1] + 1,
			    (long long)off[i - 1], (long long)off[i]);
			goto out;
		}
	if (noff == 0) {
		if (ncom > 0)
			rc = sl_err_set(
			    err, SL_ECHECKPOINT,
			    "checkpoint '%s' is inconsistent: commits/%lld exists without offsets/%lld",
			    c->dir, (long long)com[0], (long long)com[0]);
		goto out;
	}
	plan->first_offsets = off[0];
	plan->last_offsets = off[noff - 1];
	plan->last_commit = ncom > 0 ? com[ncom - 1] : -1;
	if (plan->last_commit > plan->last_offsets) {
		rc = sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint '%s' is inconsistent: commits/%lld is ahead of offsets/%lld",
		    c->dir, (long long)plan->last_commit,
		    (long long)plan->last_offsets);
		goto out;
	}
	/* the newest offsets file may be torn if it is not committed */
	sl_ckpt_offsets_init(&o);
	rc = sl_ckpt_read_offsets(c, plan->last_offsets, &o, err);
	sl_ckpt_offsets_release(&o);
	if (rc < 0) {
		if (plan->last_commit == plan->last_offsets) {
			sl_err_prefix(err, "cannot recover");
			goto out;
		}
		plan->torn_last = true;
		plan->last_offsets--;
		rc = 0;
		if (plan->last_offsets < plan->first_offsets)
			plan->first_offsets = plan->last_offsets = -1;
	}
	if (plan->last_offsets >= 0 &&
	    plan->last_commit < plan->last_offsets - 1 &&
	    !(plan->last_commit < 0 &&
	      plan->first_offsets == plan->last_offsets)) {
		rc = sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint '%s' is inconsistent: batches %lld..%lld are planned but only %lld is committed (commits/%lld missing)",
		    c->dir, (long long)plan->last_commit + 1,
		    (long long)plan->last_offsets, (long long)plan->last_commit,
		    (long long)plan->last_offsets - 1);
		goto out;
	}
	/* every committed file we depend on must read back */
	if (plan->last_commit >= 0 &&
	    (rc = sl_ckpt_read_commit(c, plan->last_commit, &wm, err)) < 0) {
		sl_err_prefix(err, "cannot recover");
		goto out;
	}
	plan->rerun =
	    plan->last_offsets >= 0 && plan->last_commit < plan->last_offsets;
out:
	free(off);
	free(com);
	return rc;
}

/* Files of dir older than keep_from go; a log's become spares (c, when
 * not NULL), snapshots are deleted. */
static void purge_dir(sl_ckpt *c, const char *dir, int64_t keep_from,
		      const char *suffix)
{
	int64_t *ids = NULL;
	int n = 0, i;
	if (sl_fs_list_ids(dir, suffix, &ids, &n, NULL) < 0)
		return;
	for (i = 0; i < n; i++) {
		char p[4400];
		if (ids[i] >= keep_from)
			break;
		snprintf(p, sizeof p, "%s/%lld%s", dir, (long long)ids[i],
			 suffix ? suffix : "");
		if (c != NULL)
			spare_add(c, dir, p);
		else
			unlink(p);
	}
	free(ids);
}

/* One operator's state directory: versions >= keep_from (the state
 * batch keep_from starts from) must stay loadable. */
static void purge_state(sl_ckpt *c, const char *dir, int64_t keep_from)
{
	int64_t *snaps = NULL, base = -1;
	int n = 0, i;
	if (sl_fs_list_ids(dir, ".snapshot", &snaps, &n, NULL) < 0)
		return;
	for (i = n - 1; i >= 0; i--)
		if (snaps[i] <= keep_from) {
			base = snaps[i];
			break;
		}
	free(snaps);
	if (base <= 0)
		return; /* every delta from 1 is still needed */
	purge_dir(NULL, dir, base, ".snapshot");
	purge_dir(c, dir, base + 1, ".delta");
}

/* A log's files below keep_from become spares.  The files of a log are
 * one run of ids (spare_add), so once a purge listed the directory the
 * next ones retire [c->log_low, keep_from) by name: a listing of each log
 * per batch was a quarter of a small batch's system time past retention.
 * The same files go, in the same order, as purge_dir would take them. */
static void purge_log(sl_ckpt *c, const char *dir, int64_t keep_from)
{
	int64_t id;
	if (c->log_low < 0 || keep_from - c->log_low > 1000) {
		purge_dir(c, dir, keep_from, NULL);
		return;
	}
	for (id = c->log_low; id < keep_from; id++) {
		char p[4400];
		snprintf(p, sizeof p, "%s/%lld", dir, (long long)id);
		if (sl_fs_exists(p))
			spare_add(c, dir, p);
	}
}

static void purge_files(sl_ckpt *c, int64_t keep_from)
{
	const char *cdir = c->dir;
	char dir[4200], p[4400];
	int64_t *ops = NULL;
	int nops = 0, i;
	snprintf(dir, sizeof dir, "%s/offsets", cdir);
	purge_log(c, dir, keep_from);
	snprintf(dir, sizeof dir, "%s/commits", cdir);
	purge_log(c, dir, keep_from);
	if (keep_from > c->log_low)
		c->log_low = keep_from;
	snprintf(dir, sizeof dir, "%s/state", cdir);
	if (sl_fs_list_ids(dir, NULL, &ops, &nops, NULL) < 0)
		return;
	for (i = 0; i < nops; i++) {
		snprintf(p, sizeof p, "%s/%lld/0", dir, (long long)ops[i]);
		purge_state(c, p, keep_from);
	}
	free(ops);
}

struct purgejob {
	sl_ckpt *c;
	int64_t keep_from;
};

static int purgejob_run(void *ud, sl_err *err)
{
	struct purgejob *j = ud;
	(void)err;
	purge_files(j->c, j->keep_from);
	return 0;
}

static void purgejob_free(void *ud)
{
	free(ud);
}

void sl_ckpt_purge(sl_ckpt *c, int64_t keep_from)
{
	struct purgejob *j;
	if (keep_from <= 0)
		return;
	/* queued: it runs once the writes before it are durable.  A
	 * snapshot is only listed once its thread linked it in whole, so a
	 * snapshot still in flight is never taken as the base */
	if (c->w != NULL && (j = calloc(1, sizeof *j)) != NULL) {
		j->c = c;
		j->keep_from = keep_from;
		(void)sl_ckwriter_submit(c->w, purgejob_run, purgejob_free, j,
					 -1, NULL);
		return;
	}
	/* only durable snapshots may replace deltas: a snapshot still in
	 * flight is newer than keep_from, so purge_state never picks it */
	ckpt_snap_join(c, keep_from, -1, -1);
	purge_files(c, keep_from);
}

static int sweep_tree(const char *dir, int depth)
{
	int n = sl_fs_sweep_tmp(dir);
	static const char *const subs[] = { "offsets", "commits", "sources",
					    "state", NULL };
	int i;
	if (depth == 0) {
		for (i = 0; subs[i] != NULL; i++) {
			char p[4300];
			snprintf(p, sizeof p, "%s/%s", dir, subs[i]);
			n += sweep_tree(p, 1);
		}
	} else if (depth < 4) {
		/* sources/<i>, state/<op>/<part>: numbered subdirectories */
		int64_t *ids = NULL;
		int k, cnt = 0;
		if (sl_fs_list_ids(dir, NULL, &ids, &cnt, NULL) == 0) {
			for (k = 0; k < cnt; k++) {
				char p[4400];
				snprintf(p, sizeof p, "%s/%lld", dir,
					 (long long)ids[k]);
				n += sweep_tree(p, depth + 1);
			}
			free(ids);
		}
	}
	return n;
}

int sl_ckpt_sweep(sl_ckpt *c)
{
	return sweep_tree(c->dir, 0);
}

int sl_ckpt_make_logs(sl_ckpt *c, sl_err *err)
{
	static const char *const logs[] = { "offsets", "commits" };
	char p[4200];
	size_t i;
	int rc = 0;
	if (c->logs_made)
		return 0;
	for (i = 0; i < sizeof logs / sizeof logs[0] && rc == 0; i++) {
		sl_ckpt_path(c, logs[i], p, sizeof p);
		rc = sl_fs_mkdirs(p, err);
	}
	c->logs_made = rc == 0;
	return rc;
}
