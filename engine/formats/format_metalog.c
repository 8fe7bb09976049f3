/*
 * format_metalog: reading a file sink's _spark_metadata log, the batch
 * reader's view of a directory a streaming query wrote (Spark's
 * MetadataLogFileIndex): every batch file N or N.compact holds a version
 * line then one JSON object per file ({"path":"file:///...","action":
 * "add"|"delete",...}); the files listed are the union of the adds minus
 * the deletes in the latest N.compact and the batches after it (Spark's
 * CompactibleFileStreamLog.allFiles), the last entry of a path deciding.  The writer is
 * sinks/sink_file.c.
 */
#include "formats/fileformat_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/utf8.h"

char *sl_format_uri_path(const char *uri, size_t n)
{
	sl_buf b;
	size_t k;
	if (n >= 7 && memcmp(uri, "file://", 7) == 0) {
		uri += 7;
		n -= 7;
	} else if (n >= 5 && memcmp(uri, "file:", 5) == 0) {
		uri += 5;
		n -= 5;
	}
	sl_buf_init(&b);
	for (k = 0; k < n; k++) {
		int hi = uri[k] == '%' && k + 2 < n ? sl_hex_digit(uri[k + 1])
						    : -1,
		    lo = hi >= 0 ? sl_hex_digit(uri[k + 2]) : -1;
		if (lo >= 0) {
			sl_buf_addc(&b, (char)(hi * 16 + lo));
			k += 2;
		} else {
			sl_buf_addc(&b, uri[k]);
		}
	}
	if (sl_buf_failed(&b)) {
		sl_buf_release(&b);
		return NULL;
	}
	return sl_buf_detach(&b);
}

/* "file:///a/b%20c" -> "/a/b c"; relative paths are joined to dir. */
static char *log_path(const char *dir, const char *p, size_t n)
{
	char *path = sl_format_uri_path(p, n), *s;
	if (path == NULL || path[0] == '/')
		return path;
	s = sl_format_join(dir, path);
	free(path);
	return s;
}

typedef struct logent {
	char *path;
	int64_t seq;
	bool add;
} logent;

static int cmp_ent(const void *a, const void *b)
{
	const logent *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct logbatch {
	int64_t id;
	char *name;
} logbatch;

static int cmp_batch(const void *a, const void *b)
{
	const logbatch *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Names "N" or "N.compact"; anything else (temp files, .crc) is ignored. */
static bool log_name(const char *s, int64_t *id)
{
	const char *p = s;
	int64_t v = 0;
	if (!(*p >= '0' && *p <= '9'))
		return false;
	while (*p >= '0' && *p <= '9') {
		if (v > INT64_MAX / 10 - 10)
			return false;
		v = v * 10 + (*p++ - '0');
	}
	if (*p != '\0' && strcmp(p, ".compact") != 0)
		return false;
	*id = v;
	return true;
}

typedef struct entvec {
	logent *v;
	int64_t n, cap;
	const char *root; /* the sink directory, canonical: entries stay in */
} entvec;

/* path lies under root: no ".." segment, and root/ is its prefix.  A
 * crafted entry once named /etc/passwd and spark.read returned it (issue
 * 16 finding 13); Spark trusts the log, we refuse what leaves the sink. */
static bool inside(const char *root, const char *path)
{
	size_t n = strlen(root);
	const char *p;
	for (p = path; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == path || p[-1] == '/') &&
		    (p[2] == '/' || p[2] == '\0'))
			return false;
	return strncmp(path, root, n) == 0 && (path[n] == '/' || n == 1);
}

/* Parse one log file into ev (its lines after "v1"). */
static int log_read(const char *dir, const char *file, sl_type *schema,
		    entvec *ev, sl_err *err)
{
	sl_arena *a = sl_arena_new();
	char *data, *p, *e, *nl;
	sl_str *lines = NULL;
	int64_t n = 0, k, cap = 0;
	sl_col *c = NULL;
	size_t len;
	int rc = SL_ENOMEM;
	if (a == NULL)
		return sl_err_nomem(err);
	if ((rc = sl_format_slurp(file, a, &data, &len, err)) != 0)
		goto out;
	e = data + len;
	nl = memchr(data, '\n', len);
	p = nl ? nl + 1 : e;
	if (len < 2 || data[0] != 'v') {
		rc = sl_err_set(err, SL_EIO,
				"file sink log '%s': no version line", file);
		goto out;
	}
	if (strtoll(data + 1, NULL, 10) > 1 ||
	    strtoll(data + 1, NULL, 10) < 1) {
		rc =
		    sl_err_set(err, SL_EIO,
			       "file sink log '%s': unsupported version '%.*s' "
			       "(maximum supported is v1)",
			       file, (int)((nl ? nl : e) - data), data);
		goto out;
	}
	for (; p < e; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (nl == NULL)
			nl = e;
		if (nl == p)
			continue;
		if (n == cap) {
			sl_str *l;
			cap = cap ? cap * 2 : 64;
			l = realloc(lines, (size_t)cap * sizeof *l);
			if (l == NULL)
				goto nomem;
			lines = l;
		}
		lines[n].p = p;
		lines[n++].len = (uint32_t)(nl - p);
	}
	rc = 0;
	if (n == 0)
		goto out;
	c = sl_json_decode(lines, NULL, n, schema, err);
	if (c == NULL) {
		rc = err ? err->code : SL_ENOMEM;
		goto out;
	}
	for (k = 0; k < n; k++) {
		sl_col *pc = c->child[0], *ac = c->child[1];
		sl_str ps = sl_col_str(pc)[k], as = sl_col_str(ac)[k];
		logent *le;
		if (sl_col_isnull(pc, k))
			continue;
		if (ev->n == ev->cap) {
			logent *v;
			ev->cap = ev->cap ? ev->cap * 2 : 64;
			v = realloc(ev->v, (size_t)ev->cap * sizeof *v);
			if (v == NULL)
				goto nomem;
			ev->v = v;
		}
		le = &ev->v[ev->n];
		le->path = log_path(dir, ps.p, ps.len);
		if (le->path == NULL)
			goto nomem;
		if (!inside(ev->root, le->path)) {
			rc = sl_err_set(err, SL_EIO,
					"%s: entry '%s' is outside the sink "
					"directory '%s'",
					file, le->path, ev->root);
			free(le->path);
			goto out;
		}
		le->seq = ev->n++;
		le->add = sl_col_isnull(ac, k) ||
			  !(as.len == 6 && memcmp(as.p, "delete", 6) == 0);
	}
	goto out;
nomem:
	rc = sl_err_nomem(err);
out:
	sl_col_free(c);
	free(lines);
	sl_arena_free(a);
	return rc;
}

/* The files a file sink's _spark_metadata log lists: union of adds minus
 * deletes over all batches, sorted by path. */
int sl_format_metalog_list(const char *dir, const char *meta, sl_strvec *out,
			   sl_err *err)
{
	DIR *d = opendir(meta);
	struct dirent *de;
	logbatch *bs = NULL;
	int nb = 0, cb = 0, k, rc = 0, tries = 0;
	entvec ev = { 0 };
	sl_type *schema = NULL;
	int64_t i;
	if (d == NULL)
		return sl_format_io_err(err, "list", meta);
	if ((ev.root = realpath(dir, NULL)) == NULL) {
		closedir(d);
		return sl_format_io_err(err, "resolve", dir);
	}
again:
	while ((de = readdir(d)) != NULL) {
		int64_t id;
		if (de->d_name[0] == '.' || !log_name(de->d_name, &id))
			continue;
		if (nb == cb) {
			logbatch *v;
			cb = cb ? cb * 2 : 16;
			v = realloc(bs, (size_t)cb * sizeof *v);
			if (v == NULL)
				goto nomem;
			bs = v;
		}
		bs[nb].id = id;
		bs[nb].name = sl_format_join(meta, de->d_name);
		if (bs[nb++].name == NULL)
			goto nomem;
	}
	if (nb > 1)
		qsort(bs, (size_t)nb, sizeof *bs, cmp_batch);
	if (schema == NULL)
		schema = sl_type_parse_ddl("path STRING, action STRING", err);
	if (schema == NULL) {
		rc = err ? err->code : SL_ENOMEM;
		goto out;
	}
	/* as Spark's reader: the latest compact and what follows it (a
	 * compact holds every entry before it that the sink's retention
	 * option kept; the older files may still be there for a while) */
	for (k = nb - 1; k > 0; k--) {
		size_t ln = strlen(bs[k].name);
		if (ln > 8 && strcmp(bs[k].name + ln - 8, ".compact") == 0)
			break;
	}
	for (; k < nb && rc == 0; k++)
		rc = log_read(ev.root, bs[k].name, schema, &ev, err);
	/* a listed file gone by now: the sink's cleanup deleted it after a
	 * later compact took its entries (sink_file.c); list again */
	if (rc != 0 && k > 0 && tries++ < 100 &&
	    access(bs[k - 1].name, F_OK) != 0 && errno == ENOENT) {
		for (i = 0; i < ev.n; i++)
			free(ev.v[i].path);
		ev.n = 0;
		for (k = 0; k < nb; k++)
			free(bs[k].name);
		nb = 0;
		rc = 0;
		if (err != NULL)
			sl_err_clear(err);
		rewinddir(d);
		goto again;
	}
	if (rc != 0)
		goto out;
	if (ev.n > 1)
		qsort(ev.v, (size_t)ev.n, sizeof *ev.v, cmp_ent);
	for (i = 0; i < ev.n; i++) {
		/* the last entry of each path decides */
		if (i + 1 < ev.n && strcmp(ev.v[i].path, ev.v[i + 1].path) == 0)
			continue;
		if (ev.v[i].add) {
			if (sl_format_sv_push(out, ev.v[i].path))
				goto nomem_after;
			ev.v[i].path = NULL;
		}
	}
	goto out;
nomem:
	rc = sl_err_nomem(err);
	goto out;
nomem_after:
	ev.v[i].path = NULL;
	rc = sl_err_nomem(err);
out:
	closedir(d);
	for (k = 0; k < nb; k++)
		free(bs[k].name);
	free(bs);
	for (i = 0; i < ev.n; i++)
		free(ev.v[i].path);
	free(ev.v);
	free((char *)ev.root);
	sl_type_free(schema);
	return rc;
}
