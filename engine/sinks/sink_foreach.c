/*
 * sink_foreach: foreachBatch.  Each micro-batch's output is handed to a C
 * callback (the Lua layer's wraps function(df, batchId)).  The callback's
 * failure fails the batch with the error it filled (for Lua: SL_EUSER with
 * the traceback).  The sink never skips: a re-run batch is called again
 * with the same batch id, and user code dedupes by it (Spark's advice).
 * Description "ForeachBatchSink".
 */
#include <stdlib.h>

#include "sinks/sink_int.h"

typedef struct foreach {
	sl_foreach_fn fn;
	void *ud;
	void (*free_ud)(void *);
} foreach;

static int foreach_add(sl_sink *s, int64_t batch_id, sl_batch *data,
		       bool *skipped, sl_err *err)
{
	foreach
		*f = s->impl;
	sl_err local;
	int rc;
	*skipped = false;
	sl_err_clear(&local);
	rc = f->fn(f->ud, data, batch_id, err ? err : &local);
	if (rc == 0)
		return 0;
	/* a callback that fails without saying why still fails the batch */
	if (err != NULL && err->code == SL_OK)
		sl_err_set(err, rc < 0 ? rc : SL_EUSER,
			   "foreachBatch: the function failed in batch %lld",
			   (long long)batch_id);
	return rc < 0 ? rc : SL_EUSER;
}

static void foreach_describe(const sl_sink *s, sl_buf *out)
{
	(void)s;
	sl_buf_adds(out, "ForeachBatchSink");
}

static void foreach_close(sl_sink *s)
{
	foreach
		*f = s->impl;
	if (f->free_ud != NULL)
		f->free_ud(f->ud);
	free(f);
}

static const struct sl_sink_ops foreach_ops = {
	.name = "foreachBatch",
	.add_batch = foreach_add,
	.describe = foreach_describe,
	.close = foreach_close,
};

sl_sink *sl_sink_foreach_new(sl_foreach_fn fn, void *ud,
			     void (*free_ud)(void *), sl_outmode mode,
			     sl_err *err)
{
	foreach
		*f;
	sl_sink *s;
	if (fn == NULL) {
		sl_err_set(err, SL_EINVAL, "foreachBatch: no function given");
		return NULL;
	}
	f = malloc(sizeof *f);
	if (f == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	f->fn = fn;
	f->ud = ud;
	f->free_ud = free_ud;
	s = sl_sink_alloc(&foreach_ops, mode, f, err);
	if (s == NULL)
		free(f);
	return s;
}
