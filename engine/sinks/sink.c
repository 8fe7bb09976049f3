/*
 * sink: opening a streaming sink by format name, and the sl_sink shell
 * every sink_<kind>.c shares.
 *
 * The formats are a table (tmux's command table spirit): one row per
 * format with its constructor.  Matching is case-insensitive, as Spark's
 * short data source names.  Lesson: lessons/01 (output modes and sinks).
 * Semantics: ../shared/spec/SPARK-SEMANTICS.md 1.2, 4.4.
 */
#include <stdlib.h>
#include <strings.h>

#include "sinks/sink_int.h"

enum { K_CONSOLE, K_MEMORY, K_FILE, K_NOOP, K_KAFKA };

static const struct {
	const char *name;
	int kind;
} formats[] = {
	{ "console", K_CONSOLE }, { "memory", K_MEMORY }, { "json", K_FILE },
	{ "csv", K_FILE },        { "noop", K_NOOP },     { "kafka", K_KAFKA },
};

#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

static int format_kind(const char *format)
{
	int i;
	if (format == NULL)
		return -1;
	for (i = 0; i < NFORMATS; i++)
		if (strcasecmp(format, formats[i].name) == 0)
			return formats[i].kind;
	return -1;
}

bool sl_sink_known(const char *format)
{
	return format_kind(format) >= 0;
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
	sl_options none;
	sl_sink *s = NULL;
	sl_options_init(&none);
	if (opts == NULL)
		opts = &none;
	switch (format_kind(format)) {
	case K_CONSOLE: s = sl_sink_console_new(host, opts, mode, err); break;
	case K_MEMORY:
		s = sl_sink_memory_new(host, query_name, mode, err);
		break;
	case K_FILE: {
		const char *ci =
		    host != NULL && host->conf_get != NULL
			? host->conf_get(
			      host->ctx,
			      "spark.sql.streaming.fileSink.log.compactInterval")
			: NULL;
		s = sl_sink_file_new(format, opts, mode, query_id,
				     ci != NULL ? atoi(ci) : 10, err);
		break;
	}
	case K_NOOP: s = sl_sink_noop_new(mode, err); break;
	case K_KAFKA: s = sl_sink_kafka_new(opts, mode, query_id, err); break;
	default:
		sl_err_set(
		    err, SL_EINVAL,
		    "unknown sink format '%s' (expected console, memory, "
		    "json, csv, noop)",
		    format ? format : "(null)");
		break;
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
