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
 * As Spark's DataStreamWriter.start(), which replaces the queryName view
 * with a fresh MemorySink, opening the sink drops any table of that name;
 * sl_sink_prepare (when the driver calls it with the output schema) creates
 * it empty right away, so spark.table(name) works before the first batch.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "sink_int.h"

typedef struct memsink {
	sl_catalog *cat; /* borrowed: the session's catalog */
	char *name;
	int64_t last_id; /* -1 before the first batch */
} memsink;

static int mem_add(sl_sink *s, int64_t batch_id, sl_batch *data,
		   bool *skipped, sl_err *err)
{
	memsink *m = s->impl;
	int rc;
	*skipped = false;
	if (batch_id <= m->last_id) {
		*skipped = true;
		return 0;
	}
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
};

sl_sink *sl_sink_memory_new(sl_session *sess, const char *query_name,
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
	m->cat = sl_session_catalog(sess);
	m->last_id = -1;
	s = sl_sink_alloc(&memory_ops, mode, m, err);
	if (s == NULL) {
		mem_close(&(sl_sink){.impl = m});
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
	if (s == NULL || s->ops != &memory_ops)
		return 0;
	m = s->impl;
	b = sl_batch_empty(schema);
	if (b == NULL)
		return sl_err_nomem(err);
	rc = sl_catalog_put(m->cat, m->name, b, err);
	sl_batch_free(b);
	return rc;
}
