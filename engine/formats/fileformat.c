/*
 * fileformat: the format-independent half of the file data sources: file
 * listing (incl. the file sink's _spark_metadata log), reading a whole file
 * into memory, mode options, Java-compatible text -> number conversions,
 * the text format, dispatch of infer/read/write to json.c and csv.c, and
 * durable writes (temp file, fsync, link: never overwrites).
 *
 * A file's bytes are read straight into one arena that the string columns
 * of the resulting batch share (see json.c): no second copy.
 *
 * Choices where Spark leaves freedom: an empty batch written with
 * write_dir produces no part file, only _SUCCESS (Spark 3 writes one empty
 * part file for a json/csv DataFrame with no rows; the reader sees the same
 * zero rows either way).  Paths in messages are shown as Spark does
 * ("file:/abs/path").  Never prints.
 */
#include "formats/fileformat.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <dirent.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/fsutil.h"
#include "core/timeutil.h"
#include "core/utf8.h"
#include "core/uuid.h"

bool sl_format_known(const char *format)
{
	return format != NULL && (strcasecmp(format, "json") == 0 ||
				  strcasecmp(format, "csv") == 0 ||
				  strcasecmp(format, "text") == 0);
}

int sl_format_mode_get(const sl_options *opts, sl_format_mode *mode,
		       sl_err *err)
{
	const char *v = opts ? sl_options_get(opts, "mode") : NULL;
	*mode = SL_MODE_PERMISSIVE;
	if (v == NULL || strcasecmp(v, "PERMISSIVE") == 0)
		return 0;
	if (strcasecmp(v, "DROPMALFORMED") == 0)
		*mode = SL_MODE_DROPMALFORMED;
	else if (strcasecmp(v, "FAILFAST") == 0)
		*mode = SL_MODE_FAILFAST;
	else
		return sl_err_set(err, SL_EINVAL,
				  "option 'mode': expected 'PERMISSIVE', "
				  "'DROPMALFORMED' or 'FAILFAST', got '%s'",
				  v);
	return 0;
}

const char *sl_format_corrupt_name(const sl_options *opts)
{
	const char *v =
	    opts ? sl_options_get(opts, "columnNameOfCorruptRecord") : NULL;
	return v != NULL ? v : "_corrupt_record";
}

int sl_format_corrupt_index(const sl_type *schema, const sl_options *opts)
{
	const char *name = sl_format_corrupt_name(opts);
	int k;
	for (k = 0; k < schema->nfields; k++)
		if (strcmp(schema->fields[k].name, name) == 0)
			return schema->fields[k].type->kind == SL_STRING ? k
									 : -1;
	return -1;
}

/* ---- Java text -> value conversions ---- */

bool sl_format_parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0, lim = (uint64_t)INT64_MAX;
	size_t k = 0;
	bool neg = false;
	if (n > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		k = 1;
		if (neg)
			lim++;
	}
	if (k == n)
		return false;
	for (; k < n; k++) {
		unsigned d = (unsigned)(s[k] - '0');
		if (d > 9 || v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static locale_t c_locale(void)
{
	static locale_t loc;
	if (loc == (locale_t)0)
		loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return loc;
}

double sl_format_strtod(const char *s, char **end)
{
	locale_t loc = c_locale();
	if (loc == (locale_t)0)
		return strtod(s, end);
	return strtod_l(s, end, loc);
}

/* Double.parseDouble: trims, [+-]NaN|Infinity, decimal with optional
 * exponent and a trailing f/F/d/D; no hex here. */
bool sl_format_parse_double(const char *s, size_t n, double *out)
{
	char tmp[128], *end;
	size_t k, digits = 0;
	const char *b = s, *e = s + n;
	bool neg = false;
	while (b < e && (unsigned char)*b <= ' ')
		b++;
	while (e > b && (unsigned char)e[-1] <= ' ')
		e--;
	n = (size_t)(e - b);
	if (n > 0 && (b[0] == '-' || b[0] == '+')) {
		neg = b[0] == '-';
		if (n == 4 && memcmp(b + 1, "NaN", 3) == 0)
			return *out = NAN, true;
		if (n == 9 && memcmp(b + 1, "Infinity", 8) == 0)
			return *out = neg ? -INFINITY : INFINITY, true;
	}
	if (n == 3 && memcmp(b, "NaN", 3) == 0)
		return *out = NAN, true;
	if (n == 8 && memcmp(b, "Infinity", 8) == 0)
		return *out = INFINITY, true;
	if (n > 0 && strchr("fFdD", e[-1]) != NULL)
		n--;
	if (n == 0 || n >= sizeof tmp)
		return false;
	for (k = 0; k < n; k++) {
		if (b[k] >= '0' && b[k] <= '9')
			digits++;
		else if (strchr(".eE+-", b[k]) == NULL)
			return false;
	}
	if (digits == 0)
		return false;
	memcpy(tmp, b, n);
	tmp[n] = '\0';
	errno = 0;
	*out = sl_format_strtod(tmp, &end);
	return end == tmp + n;
}

bool sl_format_parse_bool(const char *s, size_t n, bool *out)
{
	if (n == 4 && strncasecmp(s, "true", 4) == 0)
		return *out = true, true;
	if (n == 5 && strncasecmp(s, "false", 5) == 0)
		return *out = false, true;
	return false;
}

static inline int d2(const char *p)
{
	unsigned a = (unsigned)(p[0] - '0'), b = (unsigned)(p[1] - '0');
	return a > 9 || b > 9 ? -1 : (int)(a * 10 + b);
}

bool sl_format_parse_ts(const char *s, size_t n, int64_t *us,
			sl_format_tscache *c)
{
	int h, mi, sec, mo, d, y1, y2, k;
	int64_t frac = 0, scale = 100000;
	size_t i = 19;
	if (n < 19 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
		return sl_ts_parse(s, n, us);
	h = d2(s + 11);
	mi = d2(s + 14);
	sec = d2(s + 17);
	if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
		return sl_ts_parse(s, n, us);
	if (i < n && s[i] == '.') {
		for (i++, k = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++, k++)
			if (k < 6) {
				frac += (s[i] - '0') * scale;
				scale /= 10;
			}
		if (k == 0)
			return sl_ts_parse(s, n, us);
	}
	if (i < n && s[i] == 'Z')
		i++;
	if (i != n)
		return sl_ts_parse(s, n, us);
	if (!c->valid || memcmp(c->date, s, 10) != 0) {
		y1 = d2(s);
		y2 = d2(s + 2);
		mo = d2(s + 5);
		d = d2(s + 8);
		if (y1 < 0 || y2 < 0 || mo < 1 || mo > 12 || d < 1 || d > 31)
			return sl_ts_parse(s, n, us);
		{
			int64_t days, t2;
			int yy;
			int mo2, dd2;
			days = sl_days_from_civil(y1 * 100 + y2, mo, d);
			sl_civil_from_days(days, &t2, &mo2, &dd2);
			yy = (int)t2;
			if (yy != y1 * 100 + y2 || mo2 != mo || dd2 != d)
				return false; /* Feb 30 and friends */
			memcpy(c->date, s, 10);
			c->days = days;
			c->valid = true;
		}
	}
	*us = c->days * SL_US_PER_DAY + (int64_t)h * SL_US_PER_HOUR +
	      (int64_t)mi * SL_US_PER_MIN + (int64_t)sec * SL_US_PER_SEC + frac;
	return true;
}

int64_t sl_format_count_lines(const char *p, size_t len)
{
	int64_t n = 1;
	size_t k = 0;
#ifdef __SSE2__
	/* 16 bytes a step: matches subtract -1 from byte counters, which are
	 * summed (psadbw) every 255 steps, before they can wrap */
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (k + 16 <= len) {
		__m128i acc = zero, sum;
		for (int r = 0; r < 255 && k + 16 <= len; r++, k += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(p + k));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
		}
		sum = _mm_sad_epu8(acc, zero);
		n += _mm_cvtsi128_si64(sum) +
		     _mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum));
	}
#endif
	for (; k < len; k++)
		n += p[k] == '\n';
	return n;
}

/* ---- paths and listing ---- */

/* Spark's rendering of a local path: "file:/abs/path". */
static void qualified(const char *path, sl_buf *out)
{
	char cwd[PATH_MAX];
	size_t n;
	sl_buf_adds(out, "file:");
	if (path[0] != '/' && getcwd(cwd, sizeof cwd) != NULL) {
		sl_buf_adds(out, cwd);
		if (strcmp(cwd, "/") != 0)
			sl_buf_addc(out, '/');
	}
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (strcmp(path, ".") == 0)
		n = 0;
	sl_buf_add(out, path, n);
	if (out->len > 1 && out->p[out->len - 1] == '/')
		out->p[--out->len] = '\0';
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *s = malloc(n + strlen(name) + 2);
	if (s == NULL)
		return NULL;
	if (n > 0 && dir[n - 1] == '/')
		sprintf(s, "%s%s", dir, name);
	else
		sprintf(s, "%s/%s", dir, name);
	return s;
}

typedef struct strvec {
	char **v;
	int n, cap;
} strvec;

static int sv_push(strvec *sv, char *s)
{
	if (s == NULL)
		return SL_ENOMEM;
	if (sv->n == sv->cap) {
		int cap = sv->cap ? sv->cap * 2 : 16;
		char **v = realloc(sv->v, (size_t)cap * sizeof *v);
		if (v == NULL) {
			free(s);
			return SL_ENOMEM;
		}
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	return 0;
}

static void sv_release(strvec *sv)
{
	for (int k = 0; k < sv->n; k++)
		free(sv->v[k]);
	free(sv->v);
	memset(sv, 0, sizeof *sv);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void sl_format_list_free(char **files, int nfiles)
{
	for (int k = 0; k < nfiles; k++)
		free(files[k]);
	free(files);
}

static int io_err(sl_err *err, const char *what, const char *path)
{
	return sl_err_set(err, SL_EIO, "cannot %s '%s': %s", what, path,
			  strerror(errno));
}

/* Read a whole file into arena memory (NUL-terminated, not counted). */
static int slurp(const char *file, sl_arena *arena, char **data, size_t *len,
		 sl_err *err)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	char *buf;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return io_err(err, "read", file);
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			errno = EISDIR;
		io_err(err, "read", file);
		close(fd);
		return SL_EIO;
	}
	buf = sl_arena_alloc(arena, (size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		return sl_err_nomem(err);
	}
	while (got < (size_t)st.st_size) {
		r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			io_err(err, "read", file);
			close(fd);
			return SL_EIO;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

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
		int hi = uri[k] == '%' && k + 2 < n ? sl_hex_digit(uri[k + 1]) : -1,
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
	s = join(dir, path);
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
} entvec;

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
	if ((rc = slurp(file, a, &data, &len, err)) != 0)
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
static int list_metadata(const char *dir, const char *meta, strvec *out,
			 sl_err *err)
{
	DIR *d = opendir(meta);
	struct dirent *de;
	logbatch *bs = NULL;
	int nb = 0, cb = 0, k, rc = 0;
	entvec ev = { 0 };
	sl_type *schema = NULL;
	int64_t i;
	if (d == NULL)
		return io_err(err, "list", meta);
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
		bs[nb].name = join(meta, de->d_name);
		if (bs[nb++].name == NULL)
			goto nomem;
	}
	if (nb > 1)
		qsort(bs, (size_t)nb, sizeof *bs, cmp_batch);
	schema = sl_type_parse_ddl("path STRING, action STRING", err);
	if (schema == NULL) {
		rc = err ? err->code : SL_ENOMEM;
		goto out;
	}
	for (k = 0; k < nb && rc == 0; k++)
		rc = log_read(dir, bs[k].name, schema, &ev, err);
	if (rc != 0)
		goto out;
	if (ev.n > 1)
		qsort(ev.v, (size_t)ev.n, sizeof *ev.v, cmp_ent);
	for (i = 0; i < ev.n; i++) {
		/* the last entry of each path decides */
		if (i + 1 < ev.n && strcmp(ev.v[i].path, ev.v[i + 1].path) == 0)
			continue;
		if (ev.v[i].add) {
			if (sv_push(out, ev.v[i].path))
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
	sl_type_free(schema);
	return rc;
}

static int list_dir(const char *dir, strvec *out, sl_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	if (d == NULL)
		return io_err(err, "list", dir);
	while ((de = readdir(d)) != NULL) {
		char *f;
		if (de->d_name[0] == '.' || de->d_name[0] == '_')
			continue;
		f = join(dir, de->d_name);
		if (f == NULL || stat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
			bool oom = f == NULL;
			free(f);
			if (oom) {
				closedir(d);
				return sl_err_nomem(err);
			}
			continue;
		}
		if (sv_push(out, f)) {
			closedir(d);
			return sl_err_nomem(err);
		}
	}
	closedir(d);
	return 0;
}

int sl_format_list(const char *path, char ***files, int *nfiles, sl_err *err)
{
	struct stat st;
	strvec sv = { 0 };
	char *meta;
	int rc;
	*files = NULL;
	*nfiles = 0;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			sl_buf q;
			sl_buf_init(&q);
			qualified(path, &q);
			sl_err_set(err, SL_EANALYSIS,
				   "[PATH_NOT_FOUND] Path does not exist: %s.",
				   sl_buf_cstr(&q));
			sl_buf_release(&q);
			return SL_EANALYSIS;
		}
		return io_err(err, "read", path);
	}
	if (!S_ISDIR(st.st_mode)) {
		rc = sv_push(&sv, strdup(path));
		if (rc)
			return sl_err_nomem(err);
	} else {
		meta = join(path, "_spark_metadata");
		if (meta == NULL)
			return sl_err_nomem(err);
		if (stat(meta, &st) == 0 && S_ISDIR(st.st_mode))
			rc = list_metadata(path, meta, &sv, err);
		else
			rc = list_dir(path, &sv, err);
		free(meta);
		if (rc != 0) {
			sv_release(&sv);
			return rc;
		}
	}
	if (sv.n > 1)
		qsort(sv.v, (size_t)sv.n, sizeof *sv.v, cmp_str);
	*files = sv.v;
	*nfiles = sv.n;
	return 0;
}

/* ---- reading ---- */

static sl_type *text_schema(sl_err *err)
{
	return sl_type_parse_ddl("value STRING", err);
}

static bool is_fmt(const char *format, const char *name)
{
	return strcasecmp(format, name) == 0;
}

sl_type *sl_format_infer(const char *format, char *const *files, int nfiles,
			 const sl_options *opts, sl_err *err)
{
	sl_json_infer *ji = NULL;
	sl_csv_infer *ci = NULL;
	bool json;
	int k, rc = 0;
	if (!sl_format_known(format)) {
		sl_err_set(err, SL_EINVAL, "unknown file format '%s'",
			   format ? format : "(null)");
		return NULL;
	}
	if (is_fmt(format, "text"))
		return text_schema(err);
	json = is_fmt(format, "json");
	if (nfiles == 0) {
		sl_err_set(
		    err, SL_EANALYSIS,
		    "[UNABLE_TO_INFER_SCHEMA] Unable to infer schema for %s. "
		    "It must be specified manually.",
		    json ? "JSON" : "CSV");
		return NULL;
	}
	if (json ? (ji = sl_json_infer_new(opts, err)) == NULL
		 : (ci = sl_csv_infer_new(opts, err)) == NULL)
		return NULL;
	for (k = 0; k < nfiles && rc == 0; k++) {
		sl_arena *a = sl_arena_new();
		char *data;
		size_t len;
		if (a == NULL) {
			rc = sl_err_nomem(err);
			break;
		}
		rc = slurp(files[k], a, &data, &len, err);
		if (rc == 0)
			rc = json ? sl_json_infer_add(ji, files[k], data, len,
						      err)
				  : sl_csv_infer_add(ci, files[k], data, len,
						     err);
		sl_arena_free(a);
	}
	if (rc != 0) {
		sl_json_infer_free(ji);
		sl_csv_infer_free(ci);
		return NULL;
	}
	return json ? sl_json_infer_finish(ji, err)
		    : sl_csv_infer_finish(ci, err);
}

/* text: one row per line, "\n" or "\r\n" ends a line. */
static sl_batch *text_read(sl_arena *arena, const char *data, size_t len,
			   sl_type *schema, sl_err *err)
{
	const char *p = data, *e = data + len, *nl, *le;
	int64_t n = 0, cap = 1;
	sl_col *c, *cols[1];
	sl_batch *b;
	for (nl = p;
	     nl < e && (nl = memchr(nl, '\n', (size_t)(e - nl))) != NULL; nl++)
		cap++;
	c = sl_col_new(schema->fields[0].type, cap);
	if (c == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	c->arena = sl_arena_ref(arena);
	for (; p < e; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (nl == NULL)
			nl = e;
		le = nl;
		if (le > p && le[-1] == '\r')
			le--;
		sl_col_str(c)[n].p = p;
		sl_col_str(c)[n++].len = (uint32_t)(le - p);
	}
	c->len = n;
	cols[0] = c;
	b = sl_batch_new(schema, n, cols);
	if (b == NULL)
		sl_err_nomem(err);
	return b;
}

static sl_batch *read_arena(const char *format, const char *name,
			    sl_arena *arena, const char *data, size_t len,
			    sl_type *schema, const sl_options *opts,
			    sl_err *err)
{
	sl_batch *b;
	if (!sl_format_known(format)) {
		sl_err_set(err, SL_EINVAL, "unknown file format '%s'",
			   format ? format : "(null)");
		return NULL;
	}
	if (is_fmt(format, "text")) {
		sl_type *own = NULL;
		if (schema == NULL && (schema = own = text_schema(err)) == NULL)
			return NULL;
		if (schema->nfields != 1 ||
		    schema->fields[0].type->kind != SL_STRING) {
			sl_err_set(err, SL_EANALYSIS,
				   "text data source supports only a single "
				   "column, and it must be of type string");
			return NULL;
		}
		b = text_read(arena, data, len, schema, err);
		sl_type_free(own);
		return b;
	}
	if (schema == NULL || schema->kind != SL_STRUCT) {
		sl_err_set(err, SL_EINVAL,
			   "%s: a schema is required to read '%s'", format,
			   name);
		return NULL;
	}
	if (is_fmt(format, "json"))
		return sl_json_read(name, arena, data, len, schema, opts, err);
	return sl_csv_read(name, arena, data, len, schema, opts, err);
}

sl_batch *sl_format_read_file(const char *format, const char *file,
			      sl_type *schema, const sl_options *opts,
			      sl_err *err)
{
	sl_arena *a = sl_arena_new();
	sl_batch *b = NULL;
	char *data;
	size_t len;
	if (a == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (slurp(file, a, &data, &len, err) == 0)
		b = read_arena(format, file, a, data, len, schema, opts, err);
	sl_arena_free(a);
	return b;
}

sl_batch *sl_format_read_buf(const char *format, const char *name,
			     const char *data, size_t len, sl_type *schema,
			     const sl_options *opts, sl_err *err)
{
	sl_arena *a = sl_arena_new();
	sl_batch *b = NULL;
	char *copy = a ? sl_arena_alloc(a, len + 1) : NULL;
	if (copy == NULL) {
		sl_arena_free(a);
		sl_err_nomem(err);
		return NULL;
	}
	if (len > 0)
		memcpy(copy, data, len);
	copy[len] = '\0';
	b = read_arena(format, name, a, copy, len, schema, opts, err);
	sl_arena_free(a);
	return b;
}

/* ---- writing ---- */

static int text_write(const sl_batch *b, sl_buf *out, sl_err *err)
{
	const sl_col *c;
	int64_t i;
	if (b->ncols != 1 || b->schema->fields[0].type->kind != SL_STRING)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "text data source supports only a single column, "
		    "and it must be of type string");
	c = b->cols[0];
	for (i = 0; i < b->nrows; i++) {
		if (!sl_col_isnull(c, i))
			sl_buf_add(out, sl_col_str(c)[i].p,
				   sl_col_str(c)[i].len);
		sl_buf_addc(out, '\n');
	}
	return 0;
}

static int render(const char *format, const sl_batch *b, const sl_options *opts,
		  sl_buf *out, sl_err *err)
{
	if (is_fmt(format, "json"))
		return sl_json_write(b, out, err);
	if (is_fmt(format, "csv"))
		return sl_csv_write(b, opts, out, err);
	if (is_fmt(format, "text"))
		return text_write(b, out, err);
	return sl_err_set(err, SL_EINVAL, "unknown file format '%s'",
			  format ? format : "(null)");
}

/* Write bytes to path durably without replacing anything (fsutil.h:
 * temp file, fsync, link() that fails if path exists, fsync dir). */
static int write_atomic(const char *path, const char *p, size_t n, sl_err *err)
{
	if (access(path, F_OK) == 0)
		return sl_err_set(err, SL_EIO, "cannot write '%s': %s", path,
				  strerror(EEXIST));
	return sl_fs_write_atomic(path, p, n, false, NULL, NULL, -1, err);
}

int sl_format_write_file(const char *format, const char *path,
			 const sl_batch *b, const sl_options *opts, sl_err *err)
{
	sl_buf out;
	int rc;
	sl_buf_init(&out);
	rc = render(format, b, opts, &out, err);
	if (rc == 0 && sl_buf_failed(&out))
		rc = sl_err_nomem(err);
	if (rc == 0)
		rc = write_atomic(path, out.p ? out.p : "", out.len, err);
	sl_buf_release(&out);
	return rc;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

typedef enum { SAVE_ERROR, SAVE_OVERWRITE, SAVE_APPEND, SAVE_IGNORE } save_mode;

static int save_mode_get(const char *mode, save_mode *m, sl_err *err)
{
	if (mode == NULL || *mode == '\0' || strcasecmp(mode, "error") == 0 ||
	    strcasecmp(mode, "errorifexists") == 0 ||
	    strcasecmp(mode, "default") == 0)
		*m = SAVE_ERROR;
	else if (strcasecmp(mode, "overwrite") == 0)
		*m = SAVE_OVERWRITE;
	else if (strcasecmp(mode, "append") == 0)
		*m = SAVE_APPEND;
	else if (strcasecmp(mode, "ignore") == 0)
		*m = SAVE_IGNORE;
	else
		return sl_err_set(
		    err, SL_EINVAL,
		    "unknown save mode: %s. Accepted save modes are "
		    "'overwrite', 'append', 'ignore', 'error', "
		    "'errorifexists', 'default'.",
		    mode);
	return 0;
}

static int write_success(const char *dir, sl_err *err)
{
	char *f = join(dir, "_SUCCESS");
	int fd;
	if (f == NULL)
		return sl_err_nomem(err);
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || fsync(fd) != 0) {
		io_err(err, "write", f);
		if (fd >= 0)
			close(fd);
		free(f);
		return SL_EIO;
	}
	close(fd);
	free(f);
	sl_fs_fsync_dir(dir);
	return 0;
}

int sl_format_write_dir(const char *format, const char *dir, const char *mode,
			const sl_batch *b, const sl_options *opts, sl_err *err)
{
	struct stat st;
	save_mode m = SAVE_ERROR;
	char name[80], uuid[37], *path;
	int rc;
	if (!sl_format_known(format))
		return sl_err_set(err, SL_EINVAL, "unknown file format '%s'",
				  format ? format : "(null)");
	if (save_mode_get(mode, &m, err))
		return SL_EINVAL;
	if (lstat(dir, &st) == 0) {
		if (m == SAVE_IGNORE)
			return 0;
		if (m == SAVE_ERROR) {
			sl_buf q;
			sl_buf_init(&q);
			qualified(dir, &q);
			sl_err_set(err, SL_EANALYSIS, "path %s already exists.",
				   sl_buf_cstr(&q));
			sl_err_hint(err,
				    "set mode as \"overwrite\" to overwrite "
				    "the existing path");
			sl_buf_release(&q);
			return SL_EANALYSIS;
		}
		if (m == SAVE_OVERWRITE) {
			if (strcmp(dir, "/") == 0 || *dir == '\0')
				return sl_err_set(err, SL_EINVAL,
						  "refusing to overwrite '%s'",
						  dir);
			if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
				return io_err(err, "overwrite", dir);
		} else if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return io_err(err, "append to", dir);
		}
	}
	if ((rc = sl_fs_mkdirs(dir, err)) != 0)
		return rc;
	if (b->nrows > 0) {
		sl_uuid_v4(uuid);
		snprintf(name, sizeof name, "part-00000-%s-c000.%s", uuid,
			 is_fmt(format, "text")   ? "txt"
			 : is_fmt(format, "json") ? "json"
						  : "csv");
		path = join(dir, name);
		if (path == NULL)
			return sl_err_nomem(err);
		rc = sl_format_write_file(format, path, b, opts, err);
		free(path);
		if (rc != 0)
			return rc;
	}
	return write_success(dir, err);
}
