/*
 * catalog: the session's named tables: what spark.table(name) reads and the
 * memory sink writes (its queryName).  Names compare case-insensitively.
 *
 * A name holds either rows (a table: createOrReplaceTempView of a batch
 * DataFrame, which runs it once, or a memory sink) or a plan (a view of a
 * streaming DataFrame, which cannot run on its own: spark.table and
 * spark.sql read the plan, so the DataFrame they give is streaming too,
 * as in Spark).  Global temp views are stored as "global_temp.name".
 *
 * Ownership: put takes a reference to the batch (put_plan to the plan);
 * get and plan return a new reference.
 */
#ifndef SL_CATALOG_H
#define SL_CATALOG_H

#include "core/batch.h"
#include "core/err.h"
#include "plan/plan.h"

typedef struct sl_catalog sl_catalog;

sl_catalog *sl_catalog_new(void);
void sl_catalog_free(sl_catalog *c);
/* Create or replace. */
int sl_catalog_put(sl_catalog *c, const char *name, sl_batch *b, sl_err *err);
/* Append rows (creates the table when missing). */
int sl_catalog_append(sl_catalog *c, const char *name, sl_batch *b,
		      sl_err *err);
/* New reference, or NULL with SL_EANALYSIS "[TABLE_OR_VIEW_NOT_FOUND] The
 * table or view `x` cannot be found." (+ a did-you-mean hint). */
sl_batch *sl_catalog_get(sl_catalog *c, const char *name, sl_err *err);
/* Create or replace name as a view of plan p (a reference taken). */
int sl_catalog_put_plan(sl_catalog *c, const char *name, sl_plan *p,
			sl_err *err);
/* What name reads as a plan (new reference): its view's plan, or a local
 * relation over its rows; NULL with sl_catalog_get's error.  For a plan
 * view sl_catalog_get fails with "Queries with streaming sources must be
 * executed with writeStream.start()". */
sl_plan *sl_catalog_plan(sl_catalog *c, const char *name, sl_err *err);
/* True when name is a view of a streaming plan. */
bool sl_catalog_is_streaming(const sl_catalog *c, const char *name);
int sl_catalog_drop(sl_catalog *c, const char *name);
int sl_catalog_count(const sl_catalog *c);
const char *sl_catalog_name(const sl_catalog *c, int i);

#endif
