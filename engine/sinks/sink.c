/*
 * sink: opening a streaming sink by format name, and the sl_sink shell
 * every sink_<kind>.c shares.
 *
 * The formats are a table (tmux's command table spirit): one row per
 * format with its constructor, kafka's (kafka_sink.c) among them.
 * Matching is case-insensitive, as Spark's short data source names.  Lesson: lessons/01 (output modes and sinks).
 * Semantics: ../shared/spec/SPARK-SEMANTICS.md 1.2, 4.4.
 */
#include <stdlib.h>
#include <strings.h>

#include "sinks/sink_int.h"

/* The arguments every row's open takes (borrowed). */
typedef struct sink_args {
	const sl_sink_host *host;
	const char *format;
	const sl_options *opts;
	sl_outmode mode;
	const char *query_name, *query_id;
} sink_args;

static sl_sink *open_console(const sink_args *a, sl_err *err)
{
	return sl_sink_console_new(a->host, a->opts, a->mode, err);
}

static sl_sink *open_memory(const sink_args *a, sl_err *err)
{
	return sl_sink_memory_new(a->host, a->query_name, a->mode, err);
}

static const char *host_conf(const sl_sink_host *h, const char *key)
{
	return h != NULL && h->conf_get != NULL ? h->conf_get(h->ctx, key)
						: NULL;
}

/* spark.sql.streaming.fileSink.log.compactInterval (10),
 * spark.sql.streaming.minBatchesToRetain (100) and
 * spark.sql.streaming.fileSink.log.deletion (true): the host's conf,
 * Spark's defaults when unset. */
static sl_sink *open_file(const sink_args *a, sl_err *err)
{
	const char *ci = host_conf(
	    a->host, "spark.sql.streaming.fileSink.log.compactInterval");
	const char *mr =
	    host_conf(a->host, "spark.sql.streaming.minBatchesToRetain");
	const char *del =
	    host_conf(a->host, "spark.sql.streaming.fileSink.log.deletion");
	return sl_sink_file_new(
	    a->format, a->opts, a->mode, a->query_id,
	    ci != NULL ? atoi(ci) : 10, mr != NULL ? atoi(mr) : 100,
	    del == NULL || strcasecmp(del, "false") != 0, err);
}

static sl_sink *open_noop(const sink_args *a, sl_err *err)
{
	return sl_sink_noop_new(a->mode, err);
}

static sl_sink *open_kafka(const sink_args *a, sl_err *err)
{
	return sl_sink_kafka_new(a->opts, a->mode, a->query_id, err);
}

/* The registry: one row per format("...") of writeStream (foreachBatch
 * has its own constructor, sl_sink_foreach_new). */
static const struct sink_format {
	const char *name;
	sl_sink *(*open)(const sink_args *a, sl_err *err);
} formats[] = {
	{ .name = "console", .open = open_console },
	{ .name = "memory", .open = open_memory },
	{ .name = "json", .open = open_file },
	{ .name = "csv", .open = open_file },
	{ .name = "parquet", .open = open_file },
	{ .name = "noop", .open = open_noop },
	{ .name = "kafka", .open = open_kafka },
};

static const struct sink_format *format_of(const char *format)
{
	size_t i;
	if (format == NULL)
		return NULL;
	for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcasecmp(format, formats[i].name) == 0)
			return &formats[i];
	return NULL;
}

bool sl_sink_known(const char *format)
{
	return format_of(format) != NULL;
}

sl_sink *sl_sink_alloc(const struct sl_sink_ops *ops, sl_outmode mode,
		       void *impl, sl_err *err)
{
	sl_sink *s = malloc(sizeof *s);
	if (s == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	s->ops = ops;
	s->mode = mode;
	s->impl = impl;
	s->crash = NULL;
	return s;
}

sl_sink *sl_sink_open(const sl_sink_host *host, const char *format,
		      const sl_options *opts, sl_outmode mode,
		      const char *query_name, const char *query_id, sl_err *err)
{
	const struct sink_format *f = format_of(format);
	sl_options none;
	sl_sink *s = NULL;
	sl_options_init(&none);
	if (f != NULL) {
		sink_args a = { .host = host,
				.format = format,
				.opts = opts != NULL ? opts : &none,
				.mode = mode,
				.query_name = query_name,
				.query_id = query_id };
		s = f->open(&a, err);
	} else {
		sl_err_set(
		    err, SL_EINVAL,
		    "unknown sink format '%s' (expected console, memory, "
		    "json, csv, parquet, noop)",
		    format ? format : "(null)");
	}
	sl_options_release(&none);
	return s;
}

void sl_sink_close(sl_sink *s)
{
	if (s == NULL)
		return;
	if (s->ops->close != NULL)
		s->ops->close(s);
	free(s);
}
