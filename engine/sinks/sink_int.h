/*
 * sink_int: internals shared by the sink module's files (sink.c and
 * sink_*.c).  Never included from outside the sink module.
 *
 * Each sink_<kind>.c defines one `const struct sl_sink_ops` and one
 * constructor; sink.c dispatches by format and owns the sl_sink shell.
 * ops->close frees the impl only; sl_sink_close frees the shell.
 */
#ifndef SL_SINK_INT_H
#define SL_SINK_INT_H

#include "sinks/sink.h"

/* The shell of a sink: takes ownership of impl (on failure too: ops->close
 * is not called, so the caller frees impl when NULL is returned). */
sl_sink *sl_sink_alloc(const struct sl_sink_ops *ops, sl_outmode mode,
		       void *impl, sl_err *err);

/* Constructors, called by sl_sink_open with the format's options (borrowed;
 * copied where kept). */
sl_sink *sl_sink_console_new(const sl_sink_host *host, const sl_options *opts,
			     sl_outmode mode, sl_err *err);
sl_sink *sl_sink_memory_new(const sl_sink_host *host, const char *query_name,
			    sl_outmode mode, sl_err *err);
/* format: "json" or "csv" (as given by the user; used in messages). */
/* compact_interval: spark.sql.streaming.fileSink.log.compactInterval (a
 * compact log entry every that many batches; < 1: never).  min_retain:
 * spark.sql.streaming.minBatchesToRetain; log_deletion:
 * spark.sql.streaming.fileSink.log.deletion (the log files a later compact
 * covers are deleted, Spark's deleteExpiredLog; see sink_file.c). */
sl_sink *sl_sink_file_new(const char *format, const sl_options *opts,
			  sl_outmode mode, const char *query_id,
			  int compact_interval, int min_retain,
			  bool log_deletion, sl_err *err);
sl_sink *sl_sink_noop_new(sl_outmode mode, sl_err *err);
/* kafka_sink.c: options kafka.bootstrap.servers (absent/"embedded": the
 * embedded cluster), topic, kafka.* producer options, flushTimeoutMs. */
sl_sink *sl_sink_kafka_new(const sl_options *opts, sl_outmode mode,
			   const char *query_id, sl_err *err);

#endif
