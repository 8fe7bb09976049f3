/*
 * tables: the session's named batches, i.e. what spark.table(name) reads.
 *
 * The memory sink (a later milestone) will store each query's result here
 * under its queryName; df:createOrReplaceTempView(name) stores a collected
 * batch.  The registry knows nothing about Lua or plans: it maps a name to
 * an immutable sl_batch, so the engine side can fill it later.
 *
 * One registry per process (streamlab runs one session).  Names compare
 * case-insensitively, as Spark's catalog.  Not thread-safe: call from the
 * session's thread.
 */
#ifndef SL_TABLES_H
#define SL_TABLES_H

#include "batch.h"
#include "err.h"

/* Store b under name, replacing (and releasing) any previous batch.  Takes
 * a new reference to b (the caller keeps its own).  0 or SL_ENOMEM. */
int sl_tables_put(const char *name, sl_batch *b, sl_err *err);
/* A new reference to the batch named name, or NULL with SL_EANALYSIS
 * "table or view 'x' cannot be found" (hint: nearest name). */
sl_batch *sl_tables_get(const char *name, sl_err *err);
/* Remove name; returns 1 if it was there. */
int sl_tables_drop(const char *name);
/* Number of tables and the i-th name (sorted by name; borrowed). */
int sl_tables_count(void);
const char *sl_tables_name(int i);
/* Drop every table (session close). */
void sl_tables_clear(void);

#endif
