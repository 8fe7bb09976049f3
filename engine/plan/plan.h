/*
 * plan: logical plans, i.e. DataFrames.  Batch and streaming DataFrames are
 * the same plans over the same operators; a plan is streaming when one of its
 * leaves is a stream source.
 *
 * Every constructor resolves its expressions against the input's schema at
 * once (as Spark's analyzer does eagerly in PySpark), so a wrong column name
 * fails at `select(...)`, not at `show()`.  Errors name the method:
 *   "filter: cannot resolve 'prise' given input columns: [price, qty]"
 *
 * Ownership: plans are immutable and reference counted.  Constructors
 * *borrow* their input plans (taking their own references) and *take
 * ownership* of the sl_expr pointers passed in (set yours to NULL), also
 * on failure.
 */
#ifndef SL_PLAN_H
#define SL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/batch.h"
#include "core/buf.h"
#include "core/err.h"
#include "expr/expr.h"
#include "core/options.h"
#include "core/type.h"

typedef struct sl_plan sl_plan;

sl_plan *sl_plan_ref(sl_plan *p);
void sl_plan_free(sl_plan *p);

/* Output schema (STRUCT); borrowed, valid while p lives. */
sl_type *sl_plan_schema(const sl_plan *p);
bool sl_plan_is_streaming(const sl_plan *p);

/* ---- leaves ---- */
/* A local relation over data (createDataFrame, spark.table). Borrows data. */
sl_plan *sl_plan_local(sl_batch *data, sl_err *err);
/* range(start, end, step): one BIGINT column `id` (not nullable) of
 * start, start + step, ... up to end (excluded), as Spark's Range; a
 * local relation of at most SL_RANGE_MAX rows (Spark's is lazy: ours
 * lives in memory, the bound says so).  step 0 and too many rows are
 * SL_EANALYSIS errors naming range. */
#define SL_RANGE_MAX 10000000
sl_plan *sl_plan_range(int64_t start, int64_t end, int64_t step,
		       sl_err *err);
/* The same, read from a source that is not a file (format "statestore",
 * path a checkpoint; opts copied, may be NULL): explain and toPySpark
 * show the read instead of the rows. */
sl_plan *sl_plan_local_source(sl_batch *data, const char *format,
			      const char *path, const sl_options *opts,
			      sl_err *err);
/* Batch file read (spark.read): format json|csv|text, path a file or a
 * directory; schema may be NULL (inferred, as Spark).  Reads eagerly. */
sl_plan *sl_plan_read(const char *format, const char *path, sl_type *schema,
		      const sl_options *opts, sl_err *err);

/* A streaming leaf over a source description (readStream ... load()).
 * Takes a reference to d.  The plan is streaming. */
typedef struct sl_source_desc sl_source_desc;
sl_plan *sl_plan_stream(sl_source_desc *d, sl_err *err);

/* ---- transformations ---- */
/* select/selectExpr: expands * and s.*, handles one generator (explode). */
sl_plan *sl_plan_project(sl_plan *in, sl_expr **exprs, int n, sl_err *err);
sl_plan *sl_plan_filter(sl_plan *in, sl_expr *cond, sl_err *err);
/* withColumn: replaces a column of that name or appends a new one. */
sl_plan *sl_plan_with_column(sl_plan *in, const char *name, sl_expr *e,
			     sl_err *err);
/* withColumnRenamed: a missing `from` is a no-op, as Spark. */
sl_plan *sl_plan_rename(sl_plan *in, const char *from, const char *to,
			sl_err *err);
/* drop: missing names are ignored, as Spark. */
sl_plan *sl_plan_drop(sl_plan *in, const char *const *names, int n,
		      sl_err *err);
/* groupBy(keys):agg(aggs).  aggs are expressions containing aggregate
 * calls (sum(a) / count(*) allowed).  Output: keys then aggs. */
sl_plan *sl_plan_aggregate(sl_plan *in, sl_expr **keys, int nkeys,
			   sl_expr **aggs, int naggs, sl_err *err);
/* orderBy: keys are SL_X_SORT nodes or plain expressions (ascending). */
sl_plan *sl_plan_sort(sl_plan *in, sl_expr **keys, int n, sl_err *err);
sl_plan *sl_plan_limit(sl_plan *in, int64_t n, sl_err *err);
/* union (by position, as Spark's union); column counts must match. */
sl_plan *sl_plan_union(sl_plan *a, sl_plan *b, sl_err *err);
/* join: either `on` (a boolean expression over both sides' columns) or
 * `using` column names (output keeps one copy of each).  how: inner, left,
 * left_outer, right, right_outer, full, outer, left_semi, left_anti, cross. */
sl_plan *sl_plan_join(sl_plan *l, sl_plan *r, sl_expr *on,
		      const char *const *using_cols, int nusing,
		      const char *how, sl_err *err);
/* dropDuplicates(cols); n == 0 means all columns. */
sl_plan *sl_plan_dedup(sl_plan *in, const char *const *cols, int n,
		       sl_err *err);

/* withWatermark(eventTime, delay): marks col (a TIMESTAMP column) as the
 * event time with the delay ("10 minutes").  Spark's errors: unknown
 * column, a non-timestamp column (names it and its type), a negative delay
 * ("... should not be negative."), an unparsable delay.  On a batch plan it
 * is a no-op, as Spark.  (Event-time milestone.) */
sl_plan *sl_plan_watermark(sl_plan *in, const char *col, const char *delay,
			   sl_err *err);
/* dropDuplicatesWithinWatermark(cols): needs a watermark on a stream:
 * "dropDuplicatesWithinWatermark is not supported on streaming
 * DataFrames/DataSets without watermark". */
sl_plan *sl_plan_dedup_within_watermark(sl_plan *in, const char *const *cols,
					int n, sl_err *err);

/* ---- actions (batch plans only) ---- */
/* Run the plan and return all rows as one batch.  On a streaming plan:
 * SL_EANALYSIS "Queries with streaming sources must be executed with
 * writeStream.start()". */
sl_batch *sl_plan_collect(sl_plan *p, sl_err *err);
/* DataFrameWriter.save: collect p, then write the rows under directory
 * path with sl_format_write_dir (format json|csv|text; mode error|
 * errorifexists (NULL = default)|overwrite|append|ignore). */
int sl_plan_write(sl_plan *p, const char *format, const char *path,
		  const char *mode, const sl_options *opts, sl_err *err);
/* explain(): Spark-style plan tree ("== Physical Plan ==" ...). */
void sl_plan_explain(const sl_plan *p, bool extended, sl_buf *out);

#endif
