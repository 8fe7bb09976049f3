/*
 * sink_noop: Spark's "noop" format: accepts every batch in every output
 * mode and discards it.  It must cost nothing per row: the W0 benchmark
 * measures the engine's own fixed costs through it.  Description
 * "NoopTable" (Spark's NoopTable object).
 */
#include "sinks/sink_int.h"

static int noop_add(sl_sink *s, int64_t batch_id, sl_batch *data, bool *skipped,
		    sl_err *err)
{
	(void)s;
	(void)batch_id;
	(void)data;
	(void)err;
	*skipped = false;
	return 0;
}

static void noop_describe(const sl_sink *s, sl_buf *out)
{
	(void)s;
	sl_buf_adds(out, "NoopTable");
}

static const struct sl_sink_ops noop_ops = {
	.name = "noop",
	.add_batch = noop_add,
	.describe = noop_describe,
	.close = NULL,
	.in_process = true,
	.discards = true,
};

sl_sink *sl_sink_noop_new(sl_outmode mode, sl_err *err)
{
	return sl_sink_alloc(&noop_ops, mode, NULL, err);
}
