/*
 * pyspark: the way out to a real Spark cluster.  Walks a plan (and, for a
 * query, the DataStreamWriter's settings) and writes the PySpark 3.5
 * program that runs the same query on Spark: imports, the SparkSession
 * with the confs that matter, each source as spark.readStream...load(),
 * every transformation the way a person writes PySpark (one method a
 * line), and writeStream with format, outputMode, options, queryName,
 * trigger, start() and awaitTermination().
 *
 * What Spark has no equivalent for is said in the program, as a comment
 * marked TODO: a MemoryStream (Spark's test-only source) becomes a JSON
 * file source with the same schema; a foreachBatch function (Lua) becomes
 * a Python function stub; the embedded Kafka cluster becomes
 * "localhost:9092"; a temporary checkpoint becomes
 * "/tmp/checkpoints/<name>".
 *
 * Expressions: plain columns, windows, session windows and aggregate calls
 * map to pyspark.sql.functions (F.col, F.window, F.sum, ...); anything
 * else is the expression's SQL text (sl_expr_sql) inside F.expr(...),
 * selectExpr(...) or filter(...), which Spark parses.  An output whose
 * Spark name would differ from ours gets an explicit alias.
 *
 * The text is deterministic (no ids, no times).  Never prints; the caller
 * owns `out` (text is appended).  Errors: SL_ENOMEM only.
 */
#ifndef SL_PYSPARK_H
#define SL_PYSPARK_H

#include <stdbool.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/options.h"
#include "plan/plan.h"
#include "driver/session.h"
#include "plan/stream.h"

/* The DataStreamWriter's settings (all borrowed for the call). */
typedef struct sl_pyspark_sink {
	const char *format; /* console, memory, json, csv, kafka, noop;
				   ignored when foreach_batch */
	bool foreach_batch; /* foreachBatch(function) */
	sl_outmode mode;
	sl_trigger trigger;
	const char *name;       /* queryName, or NULL */
	const sl_options *opts; /* the writer's options (path,
				   checkpointLocation, ...), or NULL */
} sl_pyspark_sink;

/* The whole program of a streaming query: plan p (borrowed) written to
 * sink w.  confs: the session whose confs (watermark policy, no-data
 * batches, ...) are exported when not Spark's default; NULL = defaults. */
int sl_pyspark_query(const sl_plan *p, const sl_pyspark_sink *w,
		     sl_session *confs, sl_buf *out, sl_err *err);

/* A DataFrame alone (DataFrame:toPySpark()): imports, session, sources
 * and transformations into `result`; then result.show() for a batch plan,
 * or a comment on how to start it for a stream. */
int sl_pyspark_dataframe(const sl_plan *p, sl_session *confs, sl_buf *out,
			 sl_err *err);

#endif
