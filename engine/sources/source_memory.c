/*
 * source_memory: Spark's test MemoryStream (our spark.memoryStream) and the
 * source that reads it.
 *
 * A memstream is a shared, append-only list of blocks (batches); each
 * addData appends one block.  Offsets follow Spark's MemoryStream: the
 * offset is the index of the last block, so the first addData gives "0"
 * and an empty stream has no offset (NULL, Spark's -1).  A micro-batch
 * reading (start, end] takes blocks start+1 .. end; start NULL means from
 * block 0.  Blocks are never dropped, so the source is replayable for the
 * life of the stream (a restarted query re-reads from its checkpoint).
 *
 * Ownership: the stream holds one reference to each block and to its
 * schema; descriptions and sources hold references to the stream.
 * Single-threaded: addData and the driver both run on the Lua thread.
 */
#include <stdlib.h>
#include <string.h>

#include "sources/source_int.h"

struct sl_memstream {
	int refs;
	sl_type *schema;
	int64_t n, cap;
	sl_batch **blocks;
};

sl_memstream *sl_memstream_new(sl_type *schema, sl_err *err)
{
	sl_memstream *m;
	if (schema == NULL || schema->kind != SL_STRUCT) {
		sl_err_set(err, SL_EINVAL,
			   "memoryStream: schema must be a struct");
		return NULL;
	}
	m = calloc(1, sizeof *m);
	if (m == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	m->refs = 1;
	m->schema = sl_type_ref(schema);
	return m;
}

sl_memstream *sl_memstream_ref(sl_memstream *m)
{
	m->refs++;
	return m;
}

void sl_memstream_free(sl_memstream *m)
{
	if (m == NULL || --m->refs > 0)
		return;
	for (int64_t i = 0; i < m->n; i++)
		sl_batch_free(m->blocks[i]);
	free(m->blocks);
	sl_type_free(m->schema);
	free(m);
}

int64_t sl_memstream_add(sl_memstream *m, sl_batch *b, sl_err *err)
{
	if (!sl_type_equal(b->schema, m->schema)) {
		sl_buf want, got;
		sl_buf_init(&want);
		sl_buf_init(&got);
		sl_type_ddl(m->schema, &want);
		sl_type_ddl(b->schema, &got);
		sl_err_set(err, SL_EINVAL,
			   "addData: rows of schema '%s' do not match the "
			   "stream's schema '%s'",
			   sl_buf_cstr(&got), sl_buf_cstr(&want));
		sl_buf_release(&want);
		sl_buf_release(&got);
		return SL_EINVAL;
	}
	if (m->n == m->cap) {
		int64_t cap = m->cap ? 2 * m->cap : 16;
		sl_batch **nb = realloc(m->blocks, (size_t)cap * sizeof *nb);
		if (nb == NULL)
			return sl_err_nomem(err);
		m->blocks = nb;
		m->cap = cap;
	}
	m->blocks[m->n++] = sl_batch_ref(b);
	return m->n - 1;
}

int64_t sl_memstream_count(const sl_memstream *m)
{
	return m->n;
}

sl_type *sl_memstream_schema(const sl_memstream *m)
{
	return m->schema;
}

/* Spark prints the output attributes with their expression ids; ours are
 * numbered 1.. within the stream, which is stable across runs. */
void sl_memstream_describe(const sl_memstream *m, sl_buf *out)
{
	sl_buf_adds(out, "MemoryStream[");
	for (int i = 0; i < m->schema->nfields; i++)
		sl_buf_printf(out, "%s%s#%d", i ? "," : "",
			      m->schema->fields[i].name, i + 1);
	sl_buf_addc(out, ']');
}

/* ---- the source ---- */

static int mem_latest(sl_source *s, char **offset, sl_err *err)
{
	sl_memstream *m = s->impl;
	*offset = NULL;
	if (m->n == 0)
		return 0;
	*offset = sl_source_offset_fmt(m->n - 1, err);
	return *offset ? 0 : SL_ENOMEM;
}

static int mem_read(sl_source *s, const char *start, const char *end,
		    sl_batch_list *out, sl_err *err)
{
	sl_memstream *m = s->impl;
	int64_t a, b;
	if (sl_source_offset_i64(start, -1, &a, "memory", err) != 0 ||
	    sl_source_offset_i64(end, -1, &b, "memory", err) != 0)
		return err ? err->code : SL_EINVAL;
	if (a < -1 || b < a || b >= m->n)
		return sl_err_set(err, SL_EINVAL,
				  "memory: offsets (%s, %s] are not in the "
				  "stream (it has %lld blocks)",
				  start ? start : "null", end ? end : "null",
				  (long long)m->n);
	for (int64_t i = a + 1; i <= b; i++) {
		int rc = sl_batch_list_add(out, sl_batch_ref(m->blocks[i]));
		if (rc != 0)
			return sl_err_nomem(err);
	}
	return 0;
}

static void mem_commit(sl_source *s, const char *end)
{
	/* Blocks stay: the stream is shared by every run of every query
	 * over it, and each must be able to replay from its checkpoint. */
	(void)s;
	(void)end;
}

static void mem_describe(const sl_source *s, sl_buf *out)
{
	sl_memstream_describe(s->impl, out);
}

static void mem_close(sl_source *s)
{
	sl_memstream_free(s->impl);
	s->impl = NULL;
}

static const struct sl_source_ops mem_ops = {
	.name = "memory",
	.latest = mem_latest,
	.limit = NULL,
	.read = mem_read,
	.commit = mem_commit,
	.describe = mem_describe,
	.close = mem_close,
};

sl_source *sl_source_memory_open(sl_memstream *ms, sl_err *err)
{
	sl_source *s = sl_source_shell(&mem_ops, ms->schema, true,
				       sl_memstream_ref(ms), err);
	if (s == NULL)
		sl_memstream_free(ms);
	return s;
}
