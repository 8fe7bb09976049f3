/*
 * catalog: the session's named tables: what spark.table(name) reads and the
 * memory sink writes (its queryName).  Names compare case-insensitively.
 *
 * Ownership: put takes a reference to the batch; get returns a new
 * reference.
 */
#ifndef SL_CATALOG_H
#define SL_CATALOG_H

#include "core/batch.h"
#include "core/err.h"

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
int sl_catalog_drop(sl_catalog *c, const char *name);
int sl_catalog_count(const sl_catalog *c);
const char *sl_catalog_name(const sl_catalog *c, int i);

#endif
