/*
 * sink: streaming sinks behind one vtable: console, memory, json/csv files,
 * foreachBatch (a C callback the Lua layer fills), noop; kafka later.
 *
 * The driver calls add_batch once per micro-batch with that batch's output
 * rows (possibly none) in the query's output mode.  A sink that already
 * holds batch_id (file sink: listed in _spark_metadata; memory sink: batch
 * already stored) skips it and sets *skipped (Spark's "Skipping already
 * committed batch N"), which is how a re-run batch stays exactly-once.
 *
 * Ownership: add_batch borrows data.  Descriptions copy their strings.
 * Never prints to the terminal: the console sink writes through its
 * host's writer (the session's output callback, sl_session_sink_host).
 */
#ifndef SL_SINK_H
#define SL_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/batch.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/options.h"
#include "plan/stream.h"

typedef struct sl_sink sl_sink;
typedef struct sl_crash sl_crash;
typedef struct sl_catalog sl_catalog;

/* What sinks need from the program that opens them, and nothing more: the
 * driver hands the session's (driver/session.h, sl_session_sink_host).
 * Borrowed: it outlives every sink opened with it.  Each member may be
 * NULL (a sink then does without: no conf, no output, no table). */
typedef struct sl_sink_host {
	void *ctx; /* the first argument of the callbacks */
	/* A conf value ("spark.sql.streaming.fileSink.log.compactInterval"),
	 * borrowed until the conf changes, or NULL when unset. */
	const char *(*conf_get)(void *ctx, const char *key);
	/* Text for the terminal (the console sink's tables). */
	void (*write)(void *ctx, const char *text, size_t len);
	/* Where the memory sink keeps its table (borrowed). */
	sl_catalog *catalog;
} sl_sink_host;

struct sl_sink_ops {
	const char *
	    name; /* "console", "memory", "json", "csv", "foreachBatch", "noop" */
	int (*add_batch)(sl_sink *s, int64_t batch_id, sl_batch *data,
			 bool *skipped, sl_err *err);
	/* Progress "sink.description": "MemorySink", "FileSink[/abs/path]",
	 * "ForeachBatchSink", "org.apache.spark.sql.execution.streaming.ConsoleTable$@1",
	 * "NoopTable". */
	void (*describe)(const sl_sink *s, sl_buf *out);
	void (*close)(sl_sink *s);
	/* Its output dies with the process (noop, memory): a batch need not
	 * wait for its offsets/N to be durable before writing to it, as no
	 * crash can leave that output behind for a re-run to contradict.
	 * (An armed crash point makes the writes durable first anyway.) */
	bool in_process;
	/* Optional: called by sl_sink_prepare with the output schema at
	 * query start (the file sink checks partitionBy against it). */
	int (*prepare)(sl_sink *s, sl_type *schema, sl_err *err);
	/* It ignores the rows (noop): the driver keeps only their count, so
	 * a batch of any size costs no more memory than its largest chunk
	 * (add_batch gets an empty batch of the plan's schema). */
	bool discards;
};

struct sl_sink {
	const struct sl_sink_ops *ops;
	sl_outmode mode;
	void *impl;
	/* The query's crash points (crash.h; borrowed, NULL by default): a
	 * sink that can stop half way ("mid-sink": the file sink leaves its
	 * part file half written, the memory sink half the rows) does so
	 * when the point is armed for the batch. */
	sl_crash *crash;
};

/* The callback of foreachBatch: called with the micro-batch's rows and id.
 * A nonzero return fails the batch; the callback fills err (SL_EUSER with
 * the Lua traceback as message). */
typedef int (*sl_foreach_fn)(void *ud, sl_batch *data, int64_t batch_id,
			     sl_err *err);

/* Open the sink of a DataStreamWriter at query start.
 *   format: console (options numRows=20, truncate=true), memory (needs
 *   query_name, else Spark's "queryName must be specified for memory
 *   sink"), json / csv (option path required: "'path' is not specified";
 *   append only, else Spark's "[STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE]
 *   Invalid streaming output mode: update. This output mode is not
 *   supported in Data Source json. SQLSTATE: 42KDE"), noop.
 *   Memory sink modes: append and complete only (Spark's docs), update
 *   accepted as append (Spark 3.5 behaviour).
 * The host (may be NULL) gives the console sink its output, the memory
 * sink its catalog and the file sink its compact interval.  query_id
 * names the file sink's log owner. */
sl_sink *sl_sink_open(const sl_sink_host *host, const char *format,
		      const sl_options *opts, sl_outmode mode,
		      const char *query_name, const char *query_id,
		      sl_err *err);
/* foreachBatch: fn is called per batch; free_ud (may be NULL) is called with
 * ud when the sink closes.  On failure (NULL) ud stays the caller's. */
sl_sink *sl_sink_foreach_new(sl_foreach_fn fn, void *ud,
			     void (*free_ud)(void *), sl_outmode mode,
			     sl_err *err);
void sl_sink_close(sl_sink *s);

/* Optional, once at query start when the output schema is known (borrowed):
 * the memory sink creates its table empty with that schema, as Spark's
 * start() registers an empty MemorySink view, so spark.table(name) works
 * before the first batch; a sink with a prepare op (the file sink: its
 * partitionBy columns) checks the schema.  Other sinks ignore it. */
int sl_sink_prepare(sl_sink *s, sl_type *schema, sl_err *err);

/* True when format names a streaming sink (for the writer's early error:
 * "unknown sink format 'x' (expected console, memory, json, csv, noop)"). */
bool sl_sink_known(const char *format);

#endif
