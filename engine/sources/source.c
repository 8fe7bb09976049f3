/*
 * source: streaming source descriptions, option validation and dispatch.
 *
 * A description (what spark.readStream...load() builds) is immutable and
 * reference counted: the plan leaf holds one reference, and so may the Lua
 * DataFrame.  It keeps the format, the absolute path, the options (copied)
 * and the output schema.  All option checking happens in
 * sl_source_desc_new, so a bad option fails at load() with Spark's
 * sentence; sl_source_open parses the same options again (cheap, cannot
 * fail differently) and hands a config to the source's own file.
 *
 * The formats are a table, one row per format with its check and open
 * (the registry below).  The sources themselves live in source_memory.c,
 * source_rate.c, source_socket.c, source_file.c and kafka_source.c behind
 * `struct sl_source_ops`.
 * Never prints; never reads the time except through the sl_clock given to
 * sl_source_open.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/feed.h"
#include "core/fsutil.h"
#include "formats/fileformat.h"
#include "formats/partition.h"
#include "sources/source_int.h"
#include "core/timeutil.h"

struct sl_source_desc {
	int refs;
	char *format;    /* lower case */
	char *path;      /* absolute, file formats only */
	sl_type *schema; /* counted */
	sl_options opts;
	sl_memstream *ms; /* memory only, counted */
	bool infer;       /* spark.sql.streaming.schemaInference */
	sl_type *parts;   /* file formats: the partition columns found at
			   * load() (formats/partition.h), counted */
};

/* ---- helpers shared by the sources ---- */

int sl_source_offset_i64(const char *off, int64_t def, int64_t *out,
			 const char *who, sl_err *err)
{
	char *end;
	long long v;
	if (off == NULL) {
		*out = def;
		return 0;
	}
	errno = 0;
	v = strtoll(off, &end, 10);
	if (errno != 0 || end == off || *end != '\0')
		return sl_err_set(err, SL_EINVAL, "%s: bad offset '%s'", who,
				  off);
	*out = v;
	return 0;
}

char *sl_source_offset_fmt(int64_t v, sl_err *err)
{
	char tmp[32], *s;
	snprintf(tmp, sizeof tmp, "%" PRId64, v);
	s = strdup(tmp);
	if (s == NULL)
		sl_err_nomem(err);
	return s;
}

sl_source *sl_source_shell(const struct sl_source_ops *ops, sl_type *schema,
			   bool replayable, void *impl, sl_err *err)
{
	sl_source *s = calloc(1, sizeof *s);
	if (s == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	s->ops = ops;
	s->schema = sl_type_ref(schema);
	s->replayable = replayable;
	s->impl = impl;
	return s;
}

bool sl_source_time_string(const char *s, int64_t unit_us, int64_t *us)
{
	static const struct {
		const char *name;
		int64_t us;
	} units[] = {
		{ "us", 1 },
		{ "ms", 1000 },
		{ "s", SL_US_PER_SEC },
		{ "m", SL_US_PER_MIN },
		{ "min", SL_US_PER_MIN },
		{ "h", SL_US_PER_HOUR },
		{ "d", SL_US_PER_DAY },
	};
	const char *p = s, *u;
	char *end;
	long long v;
	size_t ulen;
	while (*p == ' ' || *p == '\t')
		p++;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (end != p && errno == 0 && (*p == '-' || (*p >= '0' && *p <= '9'))) {
		u = end;
		ulen = strlen(u);
		while (ulen > 0 && (u[ulen - 1] == ' ' || u[ulen - 1] == '\t'))
			ulen--;
		if (ulen == 0) {
			*us = (int64_t)v * unit_us;
			return true;
		}
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strlen(units[i].name) == ulen &&
			    strncasecmp(u, units[i].name, ulen) == 0) {
				*us = (int64_t)v * units[i].us;
				return true;
			}
	}
	return sl_duration_parse(s, us, NULL) == 0;
}

int sl_source_mkdirs(const char *dir, sl_err *err)
{
	if (*dir == '\0')
		return sl_err_set(err, SL_EINVAL, "source: bad directory '%s'",
				  dir);
	if (sl_fs_mkdirs(dir, err) == 0)
		return 0;
	sl_err_prefix(err, "source");
	if (err != NULL)
		err->code = SL_ECHECKPOINT;
	return SL_ECHECKPOINT;
}

/* ---- descriptions ---- */

static sl_source_desc *desc_alloc(const char *format, sl_err *err)
{
	sl_source_desc *d = calloc(1, sizeof *d);
	if (d == NULL || (d->format = strdup(format)) == NULL) {
		free(d);
		sl_err_nomem(err);
		return NULL;
	}
	for (char *p = d->format; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	d->refs = 1;
	sl_options_init(&d->opts);
	return d;
}

/* Spark's sourceSchema from the files present now: the partition columns
 * their directories give (typed by the user schema when it names them),
 * the data schema (the user's minus those, "value STRING" for text, or
 * inferred with schemaInference), dataSchema ++ partitionSchema. */
static int source_schema(sl_source_desc *d, const char *path,
			 sl_type *schema, sl_err *err)
{
	char **files = NULL;
	int n = 0, rc = 0;
	sl_part_spec *ps = NULL;
	sl_type *data = NULL;
	if (sl_format_list(path, &files, &n, err) != 0)
		return err ? err->code : SL_EIO;
	ps = sl_part_discover(path, files, &n, schema, &d->opts, err);
	if (ps == NULL) {
		rc = err ? err->code : SL_EINVAL;
		goto out;
	}
	if (schema != NULL)
		data = sl_part_data_schema(ps, schema);
	else if (strcmp(d->format, "text") == 0)
		data = sl_type_parse_ddl("value STRING", err);
	else
		data = sl_format_infer(d->format, files, n, &d->opts, err);
	if (data == NULL) {
		rc = err ? err->code : SL_EINVAL;
		goto out;
	}
	d->schema = sl_part_full_schema(data, sl_part_schema(ps));
	d->parts = sl_type_ref(sl_part_schema(ps));
	if (d->schema == NULL)
		rc = sl_err_nomem(err);
out:
	sl_type_free(data);
	sl_part_spec_free(ps);
	sl_format_list_free(files, n);
	return rc;
}

/* Spark's DataSource.sourceSchema for file formats: the path must be
 * given and exist (no globs here); json/csv/parquet need a schema unless
 * spark.sql.streaming.schemaInference (d->infer); text has `value STRING`
 * (a user schema must be that single string column); partition columns
 * from the directories present are appended (source_schema). */
static int desc_file(sl_source_desc *d, const char *path, sl_type *schema,
		     sl_err *err)
{
	sl_file_conf conf;
	struct stat st;
	char *abs;
	if (path == NULL)
		path = sl_options_get(&d->opts, "path");
	if (path == NULL || *path == '\0')
		return sl_err_set(err, SL_EINVAL, "'path' is not specified");
	if (stat(path, &st) != 0) {
		/* the batch reader's wording: "[PATH_NOT_FOUND] Path does not
		 * exist: file:/abs/dir." */
		char **files = NULL;
		int n = 0;
		int rc = sl_format_list(path, &files, &n, err);
		sl_format_list_free(files, n);
		return rc != 0 ? rc
			       : sl_err_set(err, SL_EIO, "%s: cannot read '%s'",
					    d->format, path);
	}
	if (!S_ISDIR(st.st_mode))
		return sl_err_set(
		    err, SL_EINVAL,
		    "%s: the file stream source reads a directory, "
		    "'%s' is not one",
		    d->format, path);
	if (strcmp(d->format, "text") == 0) {
		if (schema != NULL &&
		    (schema->nfields != 1 ||
		     schema->fields[0].type->kind != SL_STRING))
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "Text data source supports only a single "
			    "column, and you have %d columns.",
			    schema->nfields);
	} else if (schema == NULL && !d->infer) {
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "Schema must be specified when creating a streaming "
		    "source DataFrame. If some files already exist in the "
		    "directory, then depending on the file format you may be "
		    "able to create a static DataFrame on that directory "
		    "with 'spark.read.load(directory)' and infer schema "
		    "from it.");
	}
	if (source_schema(d, path, schema, err) != 0)
		return err ? err->code : SL_EINVAL;
	if (sl_file_conf_parse(&d->opts, &conf, err) != 0)
		return err ? err->code : SL_EINVAL;
	abs = realpath(path, NULL);
	if (abs == NULL)
		return sl_err_set(err, SL_EIO,
				  "%s: cannot resolve path '%s': %s", d->format,
				  path, strerror(errno));
	d->path = abs;
	return 0;
}

static int desc_rate(sl_source_desc *d, const char *path, sl_type *schema,
		     sl_err *err)
{
	(void)path;
	sl_rate_conf conf;
	if (schema != NULL)
		return sl_err_set(err, SL_EANALYSIS,
				  "The rate source does not support a "
				  "user-specified schema.");
	if (sl_rate_conf_parse(&d->opts, &conf, err) != 0)
		return err ? err->code : SL_EINVAL;
	d->schema = sl_rate_schema(err);
	return d->schema ? 0 : SL_ENOMEM;
}

static int desc_rate_batch(sl_source_desc *d, const char *path,
			   sl_type *schema, sl_err *err)
{
	(void)path;
	sl_rate_batch_conf conf;
	if (schema != NULL) /* Spark's _LEGACY_ERROR_TEMP_2242 */
		return sl_err_set(err, SL_EANALYSIS,
				  "RatePerMicroBatchProvider source does not "
				  "support user-specified schema.");
	if (sl_rate_batch_conf_parse(&d->opts, &conf, err) != 0)
		return err ? err->code : SL_EINVAL;
	d->schema = sl_rate_schema(err);
	return d->schema ? 0 : SL_ENOMEM;
}

static int desc_socket(sl_source_desc *d, const char *path, sl_type *schema,
		       sl_err *err)
{
	(void)path;
	sl_socket_conf conf;
	if (sl_socket_conf_parse(&d->opts, &conf, err) != 0)
		return err ? err->code : SL_EINVAL;
	if (schema != NULL)
		return sl_err_set(err, SL_EANALYSIS,
				  "The socket source does not support a "
				  "user-specified schema.");
	d->schema = sl_socket_schema(conf.include_ts, err);
	return d->schema ? 0 : SL_ENOMEM;
}

static int desc_kafka(sl_source_desc *d, const char *path, sl_type *schema,
		      sl_err *err)
{
	(void)path;
	d->schema = sl_kafka_source_check(&d->opts, schema, err);
	return d->schema != NULL ? 0 : (err ? err->code : SL_EINVAL);
}

static int desc_memory(sl_source_desc *d, const char *path, sl_type *schema,
		       sl_err *err)
{
	(void)d;
	(void)path;
	(void)schema;
	return sl_err_set(err, SL_EINVAL,
			  "readStream: the memory source is created with "
			  "spark.memoryStream(schema)");
}

static sl_source *open_file(const sl_source_desc *d, sl_clock *clock,
			    const char *metadir, sl_err *err)
{
	sl_file_conf conf;
	if (sl_file_conf_parse(&d->opts, &conf, err) != 0)
		return NULL;
	conf.parts = d->parts;
	return sl_source_file_open(d->format, d->path, d->schema, &d->opts,
				   &conf, clock, metadir, err);
}

static sl_source *open_rate(const sl_source_desc *d, sl_clock *clock,
			    const char *metadir, sl_err *err)
{
	sl_rate_conf conf;
	if (sl_rate_conf_parse(&d->opts, &conf, err) != 0)
		return NULL;
	return sl_source_rate_open(&conf, clock, metadir, err);
}

static sl_source *open_rate_batch(const sl_source_desc *d, sl_clock *clock,
				  const char *metadir, sl_err *err)
{
	sl_rate_batch_conf conf;
	(void)clock;
	(void)metadir;
	if (sl_rate_batch_conf_parse(&d->opts, &conf, err) != 0)
		return NULL;
	return sl_source_rate_batch_open(&conf, err);
}

static sl_source *open_socket(const sl_source_desc *d, sl_clock *clock,
			      const char *metadir, sl_err *err)
{
	sl_socket_conf conf;
	(void)metadir;
	if (sl_socket_conf_parse(&d->opts, &conf, err) != 0)
		return NULL;
	return sl_source_socket_open(&conf, d->schema, clock, err);
}

static sl_source *open_kafka(const sl_source_desc *d, sl_clock *clock,
			     const char *metadir, sl_err *err)
{
	return sl_source_kafka_open(&d->opts, d->schema, clock, metadir, err);
}

static sl_source *open_memory(const sl_source_desc *d, sl_clock *clock,
			      const char *metadir, sl_err *err)
{
	(void)clock;
	(void)metadir;
	return sl_source_memory_open(d->ms, err);
}

/* The registry: one row per format("..."), lower case.  check runs at
 * load() (options, path, the schema: Spark's sentences) and sets the
 * description's schema; open makes an instance at each query start. */
static const struct source_format {
	const char *name;
	int (*check)(sl_source_desc *d, const char *path, sl_type *schema,
		     sl_err *err);
	sl_source *(*open)(const sl_source_desc *d, sl_clock *clock,
			   const char *metadir, sl_err *err);
} formats[] = {
	{ .name = "rate", .check = desc_rate, .open = open_rate },
	{ .name = "rate-micro-batch",
	  .check = desc_rate_batch,
	  .open = open_rate_batch },
	{ .name = "socket", .check = desc_socket, .open = open_socket },
	{ .name = "json", .check = desc_file, .open = open_file },
	{ .name = "csv", .check = desc_file, .open = open_file },
	{ .name = "text", .check = desc_file, .open = open_file },
	{ .name = "parquet", .check = desc_file, .open = open_file },
	{ .name = "kafka", .check = desc_kafka, .open = open_kafka },
	/* spark.memoryStream(schema) only (sl_source_desc_memory) */
	{ .name = "memory", .check = desc_memory, .open = open_memory },
};

static const struct source_format *format_of(const char *name)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(name, formats[i].name) == 0)
			return &formats[i];
	return NULL;
}

sl_source_desc *sl_source_desc_new(const char *format, const char *path,
				   sl_type *schema, const sl_options *opts,
				   sl_err *err)
{
	return sl_source_desc_new_infer(format, path, schema, opts, false,
					err);
}

sl_source_desc *sl_source_desc_new_infer(const char *format, const char *path,
					 sl_type *schema,
					 const sl_options *opts, bool infer,
					 sl_err *err)
{
	const struct source_format *f;
	sl_source_desc *d;
	int rc;
	if (format == NULL || *format == '\0')
		format = "parquet"; /* Spark's default source */
	d = desc_alloc(format, err);
	if (d == NULL)
		return NULL;
	if (opts != NULL && sl_options_copy(&d->opts, opts) != 0) {
		sl_err_nomem(err);
		sl_source_desc_free(d);
		return NULL;
	}
	d->infer = infer;
	f = format_of(d->format);
	if (f != NULL)
		rc = f->check(d, path, schema, err);
	else
		rc =
		    sl_err_set(err, SL_EINVAL,
			       "readStream: unknown source format '%s' (known: "
			       "rate, rate-micro-batch, socket, json, csv, text, kafka)",
			       format);
	if (rc != 0) {
		sl_source_desc_free(d);
		return NULL;
	}
	return d;
}

sl_source_desc *sl_source_desc_memory(sl_memstream *ms, sl_err *err)
{
	sl_source_desc *d = desc_alloc("memory", err);
	if (d == NULL)
		return NULL;
	d->ms = sl_memstream_ref(ms);
	d->schema = sl_type_ref(sl_memstream_schema(ms));
	return d;
}

sl_source_desc *sl_source_desc_ref(sl_source_desc *d)
{
	d->refs++;
	return d;
}

void sl_source_desc_free(sl_source_desc *d)
{
	if (d == NULL || --d->refs > 0)
		return;
	free(d->format);
	free(d->path);
	sl_type_free(d->schema);
	sl_type_free(d->parts);
	sl_options_release(&d->opts);
	sl_memstream_free(d->ms);
	free(d);
}

bool sl_source_desc_same(const sl_source_desc *a, const sl_source_desc *b)
{
	return a == b || (a != NULL && b != NULL && a->ms != NULL && a->ms == b->ms);
}

sl_type *sl_source_desc_schema(const sl_source_desc *d)
{
	return d->schema;
}

const char *sl_source_desc_format(const sl_source_desc *d)
{
	return d->format;
}

const char *sl_source_desc_path(const sl_source_desc *d)
{
	return d->path;
}

const sl_options *sl_source_desc_options(const sl_source_desc *d)
{
	return &d->opts;
}

/* ---- instances ---- */

sl_source *sl_source_open(const sl_source_desc *d, sl_clock *clock,
			  const char *metadir, sl_err *err)
{
	const struct source_format *f = format_of(d->format);
	bool memory = d->ms != NULL; /* only sl_source_desc_memory sets it */
	if (f == NULL || memory != (f->open == open_memory)) {
		sl_err_set(err, SL_EINTERNAL, "source: cannot open format '%s'",
			   d->format);
		return NULL;
	}
	sl_source *s = f->open(d, clock, metadir, err);
	if (s != NULL) {
		s->clock = clock;
		s->batch_id = -1;
	}
	return s;
}

/* ---- bad records ---- */

void sl_source_bad_report(sl_source *s, const char *file, int64_t line,
			  const char *reason, const char *why)
{
	sl_buf t, j;
	if (s->feed == NULL || !sl_feed_wants(s->feed, SL_EV_BAD_RECORD))
		return;
	if (s->bad_seen++ >= SL_FEED_ROWS_PER_BATCH)
		return; /* counted by sl_source_bad_end */
	sl_buf_init(&t);
	sl_buf_init(&j);
	sl_buf_adds(&t, file);
	if (line > 0)
		sl_buf_printf(&t, ":%lld", (long long)line);
	sl_buf_printf(&t, ": %s: %s", reason, why);
	sl_buf_printf(&j, "{\"reason\":\"%s\",\"file\":", reason);
	sl_buf_json_str(&j, file, strlen(file));
	sl_buf_printf(&j, ",\"line\":%lld,\"count\":1,\"batchId\":%lld}",
		      (long long)line, (long long)s->batch_id);
	if (!sl_buf_failed(&t) && !sl_buf_failed(&j))
		sl_feed_add(s->feed, SL_EV_BAD_RECORD, s->batch_id,
			    s->clock ? sl_clock_now(s->clock) : 0,
			    sl_buf_cstr(&t), sl_buf_cstr(&j));
	sl_buf_release(&t);
	sl_buf_release(&j);
}

static void bad_fn(void *ctx, const char *file, int64_t line,
		   const char *reason, const char *why)
{
	sl_source_bad_report(ctx, file, line, reason, why);
}

sl_format_bad sl_source_bad(sl_source *s)
{
	return (sl_format_bad){ bad_fn, s };
}

void sl_source_bad_begin(sl_source *s, int64_t batch_id)
{
	s->batch_id = batch_id;
	s->bad_seen = 0;
}

void sl_source_bad_end(sl_source *s)
{
	char t[96], j[96];
	int64_t more = s->bad_seen - SL_FEED_ROWS_PER_BATCH;
	if (more <= 0 || s->feed == NULL)
		return;
	snprintf(t, sizeof t, "%lld more bad records in this batch, not listed",
		 (long long)more);
	snprintf(j, sizeof j,
		 "{\"reason\":\"more\",\"count\":%lld,\"batchId\":%lld}",
		 (long long)more, (long long)s->batch_id);
	sl_feed_add(s->feed, SL_EV_BAD_RECORD, s->batch_id,
		    s->clock ? sl_clock_now(s->clock) : 0, t, j);
}

void sl_source_close(sl_source *s)
{
	if (s == NULL)
		return;
	sl_type_free(s->schema);
	s->schema = NULL;
	s->ops->close(s); /* frees impl */
	free(s);
}
