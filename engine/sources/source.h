/*
 * source: streaming sources behind one vtable (memory, rate, socket, file
 * directories; kafka later).
 *
 * Offsets are JSON text, exactly what Spark writes for the source in the
 * offset log and in progress: memory -> "2" (index of the last block: "0"
 * after the first addData), rate -> seconds since start, rate-micro-batch
 * -> {"offset":10,"timestamp":1050}, socket -> index
 * of the last line received (as Spark's TextSocketMicroBatchStream), file
 * -> {"logOffset":N},
 * kafka -> {"topic":{"0":23}}.  A batch reads (start, end]: everything after
 * offset `start` (NULL = from the very beginning) up to and including `end`.
 * A replayable source returns the same rows for the same (start, end) every
 * time, across restarts (memory, rate, file, kafka); socket is not
 * replayable and says so in its description.
 *
 * Life cycle: a *description* (sl_source_desc: format, options, schema, and
 * for memory the shared stream) lives in the plan's STREAM_SOURCE leaf and
 * is immutable; each query start opens its own instance with
 * sl_source_open, giving it the clock and a private metadata directory
 * (<checkpoint>/sources/<i>, may be NULL) for the file source's log.
 *
 * Ownership: strings returned through `char **` are malloc'd and owned by
 * the caller.  Batches appended to out are new references the caller owns.
 * Never prints.  Errors name the source and the option:
 * "maxFilesPerTrigger: must be a positive integer, got '0'".
 */
#ifndef SL_SOURCE_H
#define SL_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/batch.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/options.h"
#include "core/type.h"
#include "formats/badrec.h"

typedef struct sl_source sl_source;
typedef struct sl_memstream sl_memstream;

struct sl_source_ops {
	const char *name; /* "memory", "rate", "socket", "file", "kafka" */
	/* Newest offset available now, or *offset = NULL when there is no data
	 * yet.  May read the clock (rate). */
	int (*latest)(sl_source *s, char **offset, sl_err *err);
	/* Rate limits (maxFilesPerTrigger, maxOffsetsPerTrigger): the end to
	 * plan for a batch starting at `start` when `latest` is available.
	 * NULL hook = latest.  Never called for Trigger.Once. */
	int (*limit)(sl_source *s, const char *start, const char *latest,
		     char **end, sl_err *err);
	/* Rows in (start, end], appended to out as one or more batches of the
	 * source schema.  out is usually a pipe (core/batch.h): each batch
	 * added goes straight to the operators, so a source that appends in
	 * chunks (rate and kafka: 65,536 rows; file: 32,768 lines) keeps a
	 * batch's memory to one chunk.  An add that fails ends the read with an
	 * error (the driver reports the pipe's own). */
	int (*read)(sl_source *s, const char *start, const char *end,
		    sl_batch_list *out, sl_err *err);
	/* Everything up to end is committed (may be discarded). */
	void (*commit)(sl_source *s, const char *end);
	/* Progress "description", e.g. "MemoryStream[value#1]",
	 * "RateStreamV2[rowsPerSecond=1, rampUpTimeSeconds=0, numPartitions=1]",
	 * "FileStreamSource[file:/abs/dir]", "TextSocketV2[host: x, port: 9]". */
	void (*describe)(const sl_source *s, sl_buf *out);
	void (*close)(sl_source *s);
	/* Why the source may be holding data back, as of its last `latest`
	 * (kafka: "kafka: partition events-0 unavailable: leader broker 1
	 * not answering"): appends one short line, nothing when all is well.
	 * NULL hook = nothing to say.  The query shows it in its idle status
	 * message. */
	void (*status)(const sl_source *s, sl_buf *out);
	/* A restarted query continues after `start` (the end offset of its
	 * last planned batch, from the checkpoint; NULL: from the
	 * beginning), which the source may not have read in this run.  For
	 * sources whose `latest` depends on where they are (rate-micro-batch).
	 * NULL hook = nothing to do. */
	void (*resume)(sl_source *s, const char *start);
};

struct sl_source {
	const struct sl_source_ops *ops;
	sl_type *schema; /* counted */
	bool replayable;
	void *impl;
	/* The query's event feed (borrowed; NULL until the driver sets it
	 * after sl_source_open): sources that have news of their own (kafka:
	 * librdkafka logs, data loss, brokers unavailable) add SL_EV_LOG
	 * events to it. */
	struct sl_feed *feed;
	/* Set by the driver before each read: the batch being read (-1
	 * before the first), so the source's events name it. */
	int64_t batch_id;
	sl_clock *clock;  /* the query clock (borrowed; sl_source_open) */
	int64_t bad_seen; /* bad records reported in the current read */
};

/* ---- bad records (SL_EV_BAD_RECORD) ---- */
/* A reporter (formats/badrec.h) that turns every bad record the source's
 * reader meets into an SL_EV_BAD_RECORD event of batch s->batch_id on
 * s->feed: text "FILE:LINE: REASON: WHY" (no ":LINE" for line 0), json
 * {"reason":"utf8","file":"..","line":3,"count":1,"batchId":B}.  At most
 * SL_FEED_ROWS_PER_BATCH are listed per read; sl_source_bad_end then adds
 * one event {"reason":"more","count":N,"batchId":B} for the rest, so a count of the
 * events' "count" members is the number of bad records.  Nothing when the
 * feed is NULL or its detail is off. */
sl_format_bad sl_source_bad(sl_source *s);
void sl_source_bad_report(sl_source *s, const char *file, int64_t line,
			  const char *reason, const char *why);
/* Before a read (the driver): sets batch_id, the count starts over. */
void sl_source_bad_begin(sl_source *s, int64_t batch_id);
/* After a read (the driver): the summary event, if any were not listed. */
void sl_source_bad_end(sl_source *s);

/* ---- descriptions (what a DataStreamReader builds) ---- */
typedef struct sl_source_desc sl_source_desc;

/* format: memory (use sl_source_desc_memory), rate, socket, json, csv,
 * text (kafka later).  schema: required for json/csv (Spark's error:
 * "Schema must be specified when creating a streaming source DataFrame. If
 * some files already exist in the directory, then depending on the file
 * format you may be able to create a static DataFrame on that directory
 * with 'spark.read.load(directory)' and infer schema from it."), rejected
 * for rate ("The rate source does not support a user-specified schema.")
 * and socket, implied for text.  Options are validated here so a bad option
 * fails at load(), naming the option.  Takes a reference to schema,
 * copies opts and path. */
sl_source_desc *sl_source_desc_new(const char *format, const char *path,
				   sl_type *schema, const sl_options *opts,
				   sl_err *err);
/* The same with spark.sql.streaming.schemaInference: when infer is true a
 * json, csv or parquet file source without a schema takes the one the
 * files present now give (Spark's sourceSchema: the batch reader's
 * inference; Parquet's footer), partition columns appended. */
sl_source_desc *sl_source_desc_new_infer(const char *format, const char *path,
					 sl_type *schema,
					 const sl_options *opts, bool infer,
					 sl_err *err);
/* A description over a memory stream (takes a reference). */
sl_source_desc *sl_source_desc_memory(sl_memstream *ms, sl_err *err);
sl_source_desc *sl_source_desc_ref(sl_source_desc *d);
void sl_source_desc_free(sl_source_desc *d);
/* One source read by several stream leaves (a self-union or self-join:
 * the same description, or the same memory stream): Spark reports it once,
 * with the rows of every scan. */
bool sl_source_desc_same(const sl_source_desc *a, const sl_source_desc *b);
/* Output schema (borrowed). */
sl_type *sl_source_desc_schema(const sl_source_desc *d);
const char *sl_source_desc_format(const sl_source_desc *d);
const char *sl_source_desc_path(const sl_source_desc *d);
const sl_options *sl_source_desc_options(const sl_source_desc *d);

/* Open an instance for one query run.  metadir: the source's checkpoint
 * directory (created if missing) or NULL. */
sl_source *sl_source_open(const sl_source_desc *d, sl_clock *clock,
			  const char *metadir, sl_err *err);
void sl_source_close(sl_source *s);

/* ---- MemoryStream (Spark's test MemoryStream; our spark.memoryStream) ---- */
/* A shared, append-only list of blocks with a schema.  Counted. */
sl_memstream *sl_memstream_new(sl_type *schema, sl_err *err);
sl_memstream *sl_memstream_ref(sl_memstream *m);
void sl_memstream_free(sl_memstream *m);
/* Append one block (one new offset); takes a reference to b, whose schema
 * must equal the stream's.  Returns the new offset (the index of the new
 * block: 0 for the first, as Spark's addData) or a negative SL_E* code. */
int64_t sl_memstream_add(sl_memstream *m, sl_batch *b, sl_err *err);
int64_t sl_memstream_count(const sl_memstream *m);
sl_type *sl_memstream_schema(const sl_memstream *m);

#endif
