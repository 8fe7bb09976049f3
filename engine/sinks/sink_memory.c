/*
 * sink_memory: Spark's memory sink: the query's output becomes the session
 * table named by queryName (spark.table(name) reads it).
 *
 * Append and update modes append each batch's rows to the table; complete
 * mode replaces the table with the batch (complete output is the whole
 * result every time).  Spark 3.5 accepts update as append.
 *
 * Exactly-once within a run: the sink remembers the last batch id it
 * stored and skips any batch id <= it (Spark's MemorySink: "Skipping
 * already committed batch").
 *
 * Across an in-process crash (sl_query_crash / sl_query_restart) the
 * restarted query keeps this sink, so the table and last batch id carry
 * over.  Crash point "mid-sink" stores half of the batch's rows and
 * stops; the re-run of that batch replaces those rows instead of adding
 * to them, so the table still holds every batch exactly once.
 *
 * As Spark's DataStreamWriter.start(), which replaces the queryName view
 * with a fresh MemorySink, opening the sink drops any table of that name;
 * sl_sink_prepare (when the driver calls it with the output schema) creates
 * it empty right away, so spark.table(name) works before the first batch.
 */
#include <stdlib.h>
#include <string.h>

#include "core/crash.h"
#include "plan/catalog.h"
#include "sinks/sink_int.h"

typedef struct memsink {
	sl_catalog *cat; /* borrowed: the host's (the session's catalog) */
	char *name;
	int64_t last_id;   /* -1 before the first batch */
	int64_t part_id;   /* a batch stored half way ("mid-sink"), or -1 */
	int64_t part_rows; /* its rows, the last ones of the table */
} memsink;

/* Take back the rows of a half-stored batch (append modes). */
static int drop_partial(memsink *m, sl_err *err)
{
	sl_batch *t, *keep;
	int rc;
	if ((t = sl_catalog_get(m->cat, m->name, NULL)) == NULL)
		return 0;
	keep = sl_batch_slice(t, 0, t->nrows - m->part_rows);
	sl_batch_free(t);
	if (keep == NULL)
		return sl_err_nomem(err);
	rc = sl_catalog_put(m->cat, m->name, keep, err);
	sl_batch_free(keep);
	return rc;
}

/* "mid-sink": store the first half of the rows, then stop. */
static int store_half(sl_sink *s, int64_t batch_id, sl_batch *data, sl_err *err)
{
	memsink *m = s->impl;
	sl_batch *half = sl_batch_slice(data, 0, data->nrows / 2);
	int rc;
	if (half == NULL)
		return sl_err_nomem(err);
	rc = s->mode == SL_MODE_COMPLETE
		 ? sl_catalog_put(m->cat, m->name, half, err)
		 : sl_catalog_append(m->cat, m->name, half, err);
	if (rc == 0) {
		m->part_id = batch_id;
		m->part_rows = half->nrows;
	}
	sl_batch_free(half);
	return rc != 0 ? rc : sl_crash_at(s->crash, "mid-sink", batch_id, err);
}

static int mem_add(sl_sink *s, int64_t batch_id, sl_batch *data, bool *skipped,
		   sl_err *err)
{
	memsink *m = s->impl;
	int rc;
	*skipped = false;
	if (batch_id <= m->last_id) {
		*skipped = true;
		return 0;
	}
	if (m->part_id >= 0 && s->mode != SL_MODE_COMPLETE &&
	    (rc = drop_partial(m, err)) != 0)
		return rc;
	m->part_id = -1;
	if (data != NULL && data->nrows > 0 &&
	    sl_crash_hits(s->crash, "mid-sink", batch_id))
		return store_half(s, batch_id, data, err);
	if (data == NULL) /* no output at all: nothing to store */
		rc = 0;
	else if (s->mode == SL_MODE_COMPLETE)
		rc = sl_catalog_put(m->cat, m->name, data, err);
	else
		rc = sl_catalog_append(m->cat, m->name, data, err);
	if (rc != 0)
		return rc;
	m->last_id = batch_id;
	return 0;
}

static void mem_describe(const sl_sink *s, sl_buf *out)
{
	(void)s;
	sl_buf_adds(out, "MemorySink");
}

static void mem_close(sl_sink *s)
{
	memsink *m = s->impl;
	free(m->name);
	free(m);
}

static const struct sl_sink_ops memory_ops = {
	.name = "memory",
	.add_batch = mem_add,
	.describe = mem_describe,
	.close = mem_close,
	.in_process = true,
};

sl_sink *sl_sink_memory_new(const sl_sink_host *host, const char *query_name,
			    sl_outmode mode, sl_err *err)
{
	memsink *m;
	sl_sink *s;
	if (query_name == NULL || query_name[0] == '\0') {
		sl_err_set(err, SL_EANALYSIS,
			   "queryName must be specified for memory sink");
		return NULL;
	}
	m = calloc(1, sizeof *m);
	if (m == NULL || (m->name = strdup(query_name)) == NULL) {
		free(m);
		sl_err_nomem(err);
		return NULL;
	}
	m->cat = host != NULL ? host->catalog : NULL;
	m->last_id = -1;
	m->part_id = -1;
	s = sl_sink_alloc(&memory_ops, mode, m, err);
	if (s == NULL) {
		mem_close(&(sl_sink){ .impl = m });
		return NULL;
	}
	sl_catalog_drop(m->cat, m->name);
	return s;
}

int sl_sink_prepare(sl_sink *s, sl_type *schema, sl_err *err)
{
	memsink *m;
	sl_batch *b;
	int rc;
	if (s == NULL)
		return 0;
	if (s->ops != &memory_ops)
		return s->ops->prepare ? s->ops->prepare(s, schema, err) : 0;
	m = s->impl;
	b = sl_batch_empty(schema);
	if (b == NULL)
		return sl_err_nomem(err);
	rc = sl_catalog_put(m->cat, m->name, b, err);
	sl_batch_free(b);
	return rc;
}
