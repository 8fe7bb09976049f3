/*
 * fileformat: the format-independent half of the file data sources: file
 * listing (incl. the file sink's _spark_metadata log), reading a whole file
 * into memory, mode options, Java-compatible text -> number conversions,
 * the text format, dispatch of infer/read/write to json.c, csv.c and
 * parquet.h (which reads and writes whole files itself), and durable writes (temp file, fsync, link: never overwrites).
 *
 * A file's bytes are read straight into one arena that the string columns
 * of the resulting batch share (see json.c): no second copy.
 *
 * Choices where Spark leaves freedom: an empty batch written with
 * write_dir produces no part file, only _SUCCESS (Spark 3 writes one empty
 * part file for a json/csv DataFrame with no rows; the reader sees the same
 * zero rows either way); Parquet does write its one part file, whose
 * footer keeps the schema for the next read.  Paths in messages are shown as Spark does
 * ("file:/abs/path").  Never prints.
 */
#include "formats/fileformat.h"

#include <assert.h>
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
#include "formats/parquet.h"
#include "formats/partition.h"
#include "formats/fileformat_int.h"

bool sl_format_known(const char *format)
{
	return format != NULL && (strcasecmp(format, "json") == 0 ||
				  strcasecmp(format, "csv") == 0 ||
				  strcasecmp(format, "text") == 0 ||
				  strcasecmp(format, "parquet") == 0);
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

int sl_format_max_line_get(const sl_options *opts, size_t *max, sl_err *err)
{
	const char *v = opts ? sl_options_get(opts, "maxLineBytes") : NULL;
	int64_t n;
	*max = SL_FORMAT_MAX_LINE;
	if (v == NULL)
		return 0;
	if (!sl_format_parse_i64(v, strlen(v), &n) || n <= 0 ||
	    (uint64_t)n > (uint64_t)UINT32_MAX)
		return sl_err_set(err, SL_EINVAL,
				  "option 'maxLineBytes': expected a positive "
				  "integer (at most %u), got '%s'",
				  (unsigned)UINT32_MAX, v);
	*max = (size_t)n;
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

char *sl_format_join(const char *dir, const char *name)
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

int sl_format_sv_push(sl_strvec *sv, char *s)
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

static void sv_release(sl_strvec *sv)
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

int sl_format_io_err(sl_err *err, const char *what, const char *path)
{
	return sl_err_set(err, SL_EIO, "cannot %s '%s': %s", what, path,
			  strerror(errno));
}

/* Read a whole file into arena memory (NUL-terminated, not counted). */
int sl_format_slurp(const char *file, sl_arena *arena, char **data, size_t *len,
		    sl_err *err)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	char *buf;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sl_format_io_err(err, "read", file);
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			errno = EISDIR;
		sl_format_io_err(err, "read", file);
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
			sl_format_io_err(err, "read", file);
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

bool sl_format_hidden(const char *name)
{
	size_t n = strlen(name);
	/* Spark's InMemoryFileIndex.shouldFilterOutPathName */
	return (name[0] == '_' && strchr(name, '=') == NULL) ||
	       name[0] == '.' ||
	       (n >= 10 && strcmp(name + n - 10, "._COPYING_") == 0);
}

/* Every data file below dir (Spark lists leaf files recursively; what
 * sl_format_hidden names is skipped, files and directories alike). */
static int list_dir(const char *dir, sl_strvec *out, int depth, sl_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	int rc = 0;
	if (d == NULL)
		return sl_format_io_err(err, "list", dir);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *f;
		if (sl_format_hidden(de->d_name))
			continue;
		f = sl_format_join(dir, de->d_name);
		if (f == NULL) {
			rc = sl_err_nomem(err);
			break;
		}
		if (lstat(f, &st) != 0) {
			free(f); /* vanished meanwhile */
			continue;
		}
		/* real directories only: a linked one could loop */
		if (S_ISDIR(st.st_mode) && depth < 64) {
			rc = list_dir(f, out, depth + 1, err);
			free(f);
			continue;
		}
		if (S_ISLNK(st.st_mode) && stat(f, &st) != 0) {
			free(f);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			free(f);
			continue;
		}
		if (sl_format_sv_push(out, f))
			rc = sl_err_nomem(err);
	}
	closedir(d);
	return rc;
}

int sl_format_list(const char *path, char ***files, int *nfiles, sl_err *err)
{
	struct stat st;
	sl_strvec sv = { 0 };
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
		return sl_format_io_err(err, "read", path);
	}
	if (!S_ISDIR(st.st_mode)) {
		rc = sl_format_sv_push(&sv, strdup(path));
		if (rc)
			return sl_err_nomem(err);
	} else {
		meta = sl_format_join(path, "_spark_metadata");
		if (meta == NULL)
			return sl_err_nomem(err);
		if (stat(meta, &st) == 0 && S_ISDIR(st.st_mode))
			rc = sl_format_metalog_list(path, meta, &sv, err);
		else
			rc = list_dir(path, &sv, 0, err);
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
	if (is_fmt(format, "parquet"))
		return sl_parquet_infer(files, nfiles, opts, err);
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
		rc = sl_format_slurp(files[k], a, &data, &len, err);
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

/* text: one row per line, "\n" or "\r\n" ends a line.  A line longer
 * than maxLineBytes (checked where the line is found, no extra pass) is
 * malformed, reason too_long: PERMISSIVE gives a null value (text has no
 * corrupt-record column), DROPMALFORMED drops it, FAILFAST fails. */
static sl_batch *text_read(const char *name, int64_t line0, sl_arena *arena,
			   const char *data, size_t len, sl_type *schema,
			   const sl_options *opts, const sl_format_bad *bad,
			   sl_err *err)
{
	const char *p = data, *e = data + len, *nl, *le;
	int64_t n = 0, cap = 1, lineno = line0;
	sl_format_mode mode;
	size_t max;
	sl_col *c, *cols[1];
	sl_batch *b;
	char why[64];
	if (sl_format_mode_get(opts, &mode, err) ||
	    sl_format_max_line_get(opts, &max, err))
		return NULL;
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
		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		if ((size_t)(le - p) > max) {
			if (mode == SL_MODE_FAILFAST) {
				sl_col_free(c);
				sl_err_set(
				    err, SL_EDATA,
				    "text: malformed record at %s:%lld: "
				    "line longer than maxLineBytes (%zu)",
				    name, (long long)lineno, max);
				return NULL;
			}
			snprintf(why, sizeof why,
				 "line longer than maxLineBytes (%zu)", max);
			sl_format_bad_report(bad, name, lineno, "too_long",
					     why);
			if (mode == SL_MODE_DROPMALFORMED)
				continue;
			if (sl_col_set_null(c, n) != 0) {
				sl_col_free(c);
				sl_err_nomem(err);
				return NULL;
			}
			sl_col_str(c)[n].p = p;
			sl_col_str(c)[n++].len = 0;
			continue;
		}
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

/* data (NUL-terminated, in arena) starts after line0 lines of name; nl:
 * its '\n' bytes when counted, else -1 (sl_json_read_nl); ascii: the
 * caller saw only bytes below 0x80 in it (valid UTF-8: nothing to
 * repair, so no check) */
static sl_batch *read_arena(const char *format, const char *name, int64_t line0,
			    int64_t nl, bool ascii, sl_arena *arena,
			    const char *data, size_t len, sl_type *schema,
			    const sl_options *opts, const sl_format_bad *bad,
			    sl_err *err)
{
	sl_batch *b;
	if (!sl_format_known(format)) {
		sl_err_set(err, SL_EINVAL, "unknown file format '%s'",
			   format ? format : "(null)");
		return NULL;
	}
	if (!ascii && sl_format_utf8_repair(name, line0, arena, &data, &len,
					    bad, err) != 0)
		return NULL;
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
		b = text_read(name, line0, arena, data, len, schema, opts, bad,
			      err);
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
		return sl_json_read_nl(name, line0, nl, arena, data, len,
				       schema, opts, bad, err);
	return sl_csv_read_nl(name, line0, nl, arena, data, len, schema, opts,
			      bad, err);
}

sl_batch *sl_format_read_file(const char *format, const char *file,
			      sl_type *schema, const sl_options *opts,
			      sl_err *err)
{
	return sl_format_read_file_bad(format, file, schema, opts, NULL, err);
}

sl_batch *sl_format_read_file_bad(const char *format, const char *file,
				  sl_type *schema, const sl_options *opts,
				  const sl_format_bad *bad, sl_err *err)
{
	sl_arena *a;
	sl_batch *b = NULL;
	char *data;
	size_t len;
	if (format != NULL && is_fmt(format, "parquet"))
		return sl_parquet_read_file_bad(file, schema, opts, bad, err);
	a = sl_arena_new();
	if (a == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (sl_format_slurp(file, a, &data, &len, err) == 0)
		b = read_arena(format, file, 0, -1, false, a, data, len, schema, opts,
			       bad, err);
	sl_arena_free(a);
	return b;
}

/* One chunk: buf[0..len) (whole lines, after line0 lines) parsed into a
 * batch handed to emit. */
static int chunk_emit(const char *format, const char *file, int64_t line0,
		      const char *buf, size_t len, sl_type *schema,
		      const sl_options *opts, const sl_format_bad *bad,
		      int (*emit)(void *ctx, sl_batch *b, sl_err *err),
		      void *ctx, sl_err *err)
{
	sl_arena *a = sl_arena_new();
	char *copy = a ? sl_arena_alloc(a, len + 1) : NULL;
	sl_batch *b;
	if (copy == NULL) {
		sl_arena_free(a);
		return sl_err_nomem(err);
	}
	if (len > 0)
		memcpy(copy, buf, len);
	copy[len] = '\0';
	b = read_arena(format, file, line0, -1, false, a, copy, len, schema, opts, bad,
		       err);
	sl_arena_free(a);
	if (b == NULL)
		return err && err->code ? err->code : SL_EIO;
	return emit(ctx, b, err);
}

/* Bytes a chunk may grow to before it is cut at its last whole line
 * (fewer than max_lines lines of long records). */
#define CHUNK_BYTES ((size_t)64 << 20)
#define READ_BYTES ((size_t)1 << 20)

/* The same as chunk_emit for (*buf)[0..n) of a read buffer of *cap bytes
 * (have of them read, n < *cap) without copying the chunk: the buffer goes
 * to the batch's arena and the rest, (*buf)[n..have), to a new buffer in
 * *buf, of *cap bytes: room for the rest and one more read. */
static int chunk_emit_own(const char *format, const char *file, int64_t line0,
			  int64_t nl, bool ascii, char **buf, size_t *cap, size_t n,
			  size_t have, sl_type *schema, const sl_options *opts,
			  const sl_format_bad *bad,
			  int (*emit)(void *ctx, sl_batch *b, sl_err *err),
			  void *ctx, sl_err *err)
{
	size_t nc = have - n + READ_BYTES + 1;
	sl_arena *a = sl_arena_new();
	char *rest, *data = *buf;
	sl_batch *b;
	assert(n < *cap && n <= have);
	if (nc < 2 * READ_BYTES)
		nc = 2 * READ_BYTES;
	rest = malloc(nc);
	if (a == NULL || rest == NULL || sl_arena_adopt(a, data, n + 1) != 0) {
		sl_arena_free(a);
		free(rest);
		return sl_err_nomem(err);
	}
	memcpy(rest, data + n, have - n);
	*buf = rest;
	*cap = nc;
	data[n] = '\0';
	b = read_arena(format, file, line0, nl, ascii, a, data, n, schema, opts, bad,
		       err);
	sl_arena_free(a);
	if (b == NULL)
		return err && err->code ? err->code : SL_EIO;
	return emit(ctx, b, err);
}

static int whole_emit(const char *format, const char *file, sl_type *schema,
		      const sl_options *opts, const sl_format_bad *bad,
		      int (*emit)(void *ctx, sl_batch *b, sl_err *err),
		      void *ctx, sl_err *err)
{
	sl_batch *b =
	    sl_format_read_file_bad(format, file, schema, opts, bad, err);
	if (b == NULL)
		return err && err->code ? err->code : SL_EIO;
	return emit(ctx, b, err);
}

/* Are all of p[0..n) below 0x80 (ASCII, so valid UTF-8)? */
static bool ascii_only(const char *p, size_t n)
{
	size_t k = 0;
#ifdef __SSE2__
	__m128i hi = _mm_setzero_si128();
	for (; n - k >= 16; k += 16)
		hi = _mm_or_si128(hi,
				  _mm_loadu_si128((const __m128i *)(p + k)));
	if (_mm_movemask_epi8(hi) != 0)
		return false;
#endif
	for (; k < n; k++)
		if ((unsigned char)p[k] >= 0x80)
			return false;
	return true;
}

/* Up to want newlines in p[0..n): how many there are, and in *after the
 * offset just past the last one counted (the want-th if there are that
 * many); *after is untouched when there is none.  Counts about 16 KiB at
 * a time (as sl_format_count_lines counts, four vectors a step) and finds
 * positions only at the end (a memchr per line cost 32 instructions on
 * W2's 58-byte lines).  *ascii:
 * are all of p[0..n) ASCII (checked in the same loads, so that the reader
 * can skip its UTF-8 pass over a chunk of ASCII: 19 instructions per W2
 * JSON line)? */
static int64_t nl_find(const char *p, size_t n, int64_t want, size_t *after,
		       bool *ascii)
{
	int64_t got = 0;
	size_t k = 0;
	const char *nl;
#ifdef __SSE2__
	const __m128i v = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	__m128i hi = zero; /* the bytes' high bits, or'ed */
	/* 64 bytes a step into four byte counters (each below 256 after
	 * 255 steps), matches (-1) added and the sums negated after: about
	 * 23 instructions where 16 bytes a step took 9 (the subtraction
	 * cost a register copy per vector) */
	while (n - k >= 64 * 255) {
		__m128i a0 = zero, a1 = zero, a2 = zero, a3 = zero, sum;
		int64_t c;
		for (const char *q = p + k, *qe = q + 64 * 255; q < qe;
		     q += 64) {
			__m128i x0 = _mm_loadu_si128((const __m128i *)q),
				x1 = _mm_loadu_si128((const __m128i *)(q + 16)),
				x2 = _mm_loadu_si128((const __m128i *)(q + 32)),
				x3 = _mm_loadu_si128((const __m128i *)(q + 48));
			a0 = _mm_add_epi8(_mm_cmpeq_epi8(v, x0), a0);
			a1 = _mm_add_epi8(_mm_cmpeq_epi8(v, x1), a1);
			a2 = _mm_add_epi8(_mm_cmpeq_epi8(v, x2), a2);
			a3 = _mm_add_epi8(_mm_cmpeq_epi8(v, x3), a3);
			hi = _mm_or_si128(hi, _mm_or_si128(_mm_or_si128(x0, x1),
							   _mm_or_si128(x2, x3)));
		}
		a0 = _mm_sub_epi8(zero, a0);
		a1 = _mm_sub_epi8(zero, a1);
		a2 = _mm_sub_epi8(zero, a2);
		a3 = _mm_sub_epi8(zero, a3);
		sum = _mm_add_epi64(
		    _mm_add_epi64(_mm_sad_epu8(a0, zero), _mm_sad_epu8(a1, zero)),
		    _mm_add_epi64(_mm_sad_epu8(a2, zero), _mm_sad_epu8(a3, zero)));
		c = _mm_cvtsi128_si64(sum) +
		    _mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum));
		if (got + c >= want)
			break; /* the want-th is in this block: find it below */
		got += c;
		k += 64 * 255;
	}
	if (got > 0 && (nl = memrchr(p, '\n', k)) != NULL)
		*after = (size_t)(nl - p) + 1;
	*ascii = _mm_movemask_epi8(hi) == 0 && ascii_only(p + k, n - k);
#else
	*ascii = ascii_only(p, n);
#endif
	while (got < want && k < n &&
	       (nl = memchr(p + k, '\n', n - k)) != NULL) {
		k = (size_t)(nl - p) + 1;
		*after = k;
		got++;
	}
	return got;
}


int sl_format_read_file_chunks(const char *format, const char *file,
			       sl_type *schema, const sl_options *opts,
			       const sl_format_bad *bad, int64_t max_lines,
			       int (*emit)(void *ctx, sl_batch *b, sl_err *err),
			       void *ctx, sl_err *err)
{
	bool multi = false;
	sl_options later;
	const sl_options *o = opts;
	char *buf = NULL;
	/* ascii: buf[0..ascii) is known to hold only ASCII */
	size_t cap = 0, have = 0, scanned = 0, cut = 0, ascii = 0;
	int64_t lines = 0, line0 = 0;
	bool eof = false;
	struct stat st;
	int fd, rc = 0;
	if (format != NULL && is_fmt(format, "parquet"))
		return whole_emit(format, file, schema, opts, bad, emit, ctx,
				  err);
	if (opts != NULL &&
	    sl_options_bool(opts, "multiLine", false, &multi, err) != 0)
		return SL_EINVAL;
	if (multi || max_lines <= 0 || !sl_format_known(format) ||
	    (!is_fmt(format, "text") && !is_fmt(format, "json") &&
	     !is_fmt(format, "csv")))
		return whole_emit(format, file, schema, opts, bad, emit, ctx,
				  err);
	/* a csv header is the file's first line: later chunks have none */
	sl_options_init(&later);
	if ((opts != NULL && sl_options_copy(&later, opts) < 0) ||
	    sl_options_set(&later, "header", "false") < 0) {
		sl_options_release(&later);
		return sl_err_nomem(err);
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sl_options_release(&later);
		return sl_format_io_err(err, "read", file);
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			errno = EISDIR;
		rc = sl_format_io_err(err, "read", file);
		goto out;
	}
	while (rc == 0) {
		/* cut after the max_lines-th '\n', or at the last whole line
		 * once CHUNK_BYTES are held, or at the end of the file */
		if (scanned < have) {
			size_t after = 0;
			bool asc;
			int64_t got = nl_find(buf + scanned, have - scanned,
					      max_lines - lines, &after, &asc);
			if (asc && ascii == scanned)
				ascii = have;
			if (got > 0)
				cut = scanned + after;
			lines += got;
			scanned = lines == max_lines ? cut : have;
		}
		if (lines == max_lines || (cut > 0 && have >= CHUNK_BYTES) ||
		    (eof && have > 0)) {
			size_t n = lines == max_lines || !eof ? cut : have;
			/* lines: the '\n' bytes in buf[0..n), counted in
			 * order from 0 (every one before cut, and cut just
			 * past the last: n is cut, or have when all of it
			 * was counted); ascii >= n: no UTF-8 to check */
			rc = chunk_emit_own(format, file, line0, lines,
					    ascii >= n, &buf,
					    &cap, n, have, schema, o, bad, emit,
					    ctx, err);
			o = &later;
			line0 += lines;
			have -= n;
			scanned = cut = ascii = 0;
			lines = 0;
			continue;
		}
		if (eof)
			break;
		if (cap - have < READ_BYTES) {
			size_t nc = cap ? cap * 2 : 2 * READ_BYTES;
			char *nb = realloc(buf, nc);
			if (nb == NULL) {
				rc = sl_err_nomem(err);
				break;
			}
			buf = nb;
			cap = nc;
		}
		{
			/* - 1: room for the NUL chunk_emit_own puts after a
			 * chunk that fills the buffer */
			ssize_t r = read(fd, buf + have, cap - have - 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				rc = sl_format_io_err(err, "read", file);
				break;
			}
			if (r == 0)
				eof = true;
			have += (size_t)r;
		}
	}
	/* an empty file: one empty batch, as the whole-file read gives */
	if (rc == 0 && o == opts)
		rc = chunk_emit(format, file, 0, "", 0, schema, opts, bad, emit,
				ctx, err);
out:
	free(buf);
	close(fd);
	sl_options_release(&later);
	return rc;
}

sl_batch *sl_format_read_buf(const char *format, const char *name,
			     const char *data, size_t len, sl_type *schema,
			     const sl_options *opts, sl_err *err)
{
	sl_arena *a;
	sl_batch *b = NULL;
	char *copy;
	if (format != NULL && is_fmt(format, "parquet")) {
		sl_parquet_file *f = sl_parquet_open_buf(name, data, len, err);
		b = f ? sl_parquet_read_all(f, schema, err) : NULL;
		sl_parquet_file_free(f);
		return b;
	}
	a = sl_arena_new();
	copy = a ? sl_arena_alloc(a, len + 1) : NULL;
	if (copy == NULL) {
		sl_arena_free(a);
		sl_err_nomem(err);
		return NULL;
	}
	if (len > 0)
		memcpy(copy, data, len);
	copy[len] = '\0';
	b = read_arena(format, name, 0, -1, false, a, copy, len, schema, opts, NULL,
		       err);
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
	if (is_fmt(format, "parquet"))
		return sl_parquet_write_buf(b, opts, out, err);
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
	char *f = sl_format_join(dir, "_SUCCESS");
	int fd;
	if (f == NULL)
		return sl_err_nomem(err);
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || fsync(fd) != 0) {
		sl_format_io_err(err, "write", f);
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

const char *sl_format_ext(const char *format, const sl_options *opts)
{
	return is_fmt(format, "text")	   ? "txt"
	       : is_fmt(format, "json")	   ? "json"
	       : is_fmt(format, "parquet") ? sl_parquet_ext(opts)
					   : "csv";
}

/* partitionBy: one file per partition directory (formats/partition.h),
 * each holding the rows of that directory without the partition columns;
 * all named part-00000-<uuid>.c000.<ext>, as one Spark task names them. */
static int write_parts(const char *format, const char *dir, const sl_batch *b,
		       char *const *cols, int n, const sl_options *opts,
		       sl_err *err)
{
	sl_part_group *g = NULL;
	char uuid[37];
	int ng = 0, rc;
	if ((rc = sl_part_check(b->schema, cols, n, err)) != 0 ||
	    (rc = sl_part_split(b, cols, n, &g, &ng, err)) != 0)
		return rc;
	sl_uuid_v4(uuid);
	for (int k = 0; rc == 0 && k < ng; k++) {
		char *sub = sl_format_join(dir, g[k].subdir), *path = NULL;
		if (sub == NULL ||
		    asprintf(&path, "%s/part-00000-%s.c000.%s", sub, uuid,
			     sl_format_ext(format, opts)) < 0) {
			free(sub);
			rc = sl_err_nomem(err);
			break;
		}
		rc = sl_fs_mkdirs(sub, err);
		if (rc == 0)
			rc = sl_format_write_file(format, path, g[k].data, opts,
						  err);
		free(sub);
		free(path);
	}
	sl_part_groups_free(g, ng);
	return rc;
}

int sl_format_write_dir(const char *format, const char *dir, const char *mode,
			const sl_batch *b, const sl_options *opts, sl_err *err)
{
	struct stat st;
	save_mode m = SAVE_ERROR;
	char name[80], uuid[37], *path, **pcols = NULL;
	int rc, npcols = 0;
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
				return sl_format_io_err(err, "overwrite", dir);
		} else if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return sl_format_io_err(err, "append to", dir);
		}
	}
	if ((rc = sl_fs_mkdirs(dir, err)) != 0)
		return rc;
	if ((rc = sl_part_cols_get(opts, &pcols, &npcols, err)) != 0)
		return rc;
	if (npcols > 0) {
		rc = write_parts(format, dir, b, pcols, npcols, opts, err);
		sl_part_cols_free(pcols, npcols);
		return rc != 0 ? rc : write_success(dir, err);
	}
	if (b->nrows > 0 || is_fmt(format, "parquet")) {
		/* Spark writes one part file for an empty DataFrame in Parquet:
		 * its footer keeps the schema */
		sl_uuid_v4(uuid);
		snprintf(name, sizeof name, "part-00000-%s-c000.%s", uuid,
			 sl_format_ext(format, opts));
		path = sl_format_join(dir, name);
		if (path == NULL)
			return sl_err_nomem(err);
		rc = sl_format_write_file(format, path, b, opts, err);
		free(path);
		if (rc != 0)
			return rc;
	}
	return write_success(dir, err);
}
