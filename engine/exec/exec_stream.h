/*
 * exec_stream: running a compiled plan incrementally, one micro-batch at a
 * time (engine-internal; the driver in query.c is the only caller).
 *
 * Compilation happens once per query run.  Static subtrees (the static side
 * of a stream-static join, LOCAL/READ leaves) are run to completion at
 * compile time.  Each micro-batch the driver pushes every source's rows into
 * its stream leaf, then ends the batch: stateful operators (aggregate,
 * dedup, limit, session windows, stream-stream join) emit according to
 * ctx->mode, their state stores hold the pending changes, and the root's
 * output reaches `sink` (an operator, e.g. the driver's collector).  After the sink took the output
 * the driver commits every store; on any failure it aborts them all.
 */
#ifndef SL_EXEC_STREAM_H
#define SL_EXEC_STREAM_H

#include "exec/exec.h"
#include "sources/source.h"
#include "state/state.h"
#include "plan/stream.h"

/* The stream sources of p in plan order (left to right, depth first): the
 * i-th stream leaf is fed from descs[i].  *descs is malloc'd, entries
 * borrowed from the plan. */
int sl_exec_stream_sources(const sl_plan *p, sl_source_desc ***descs, int *n,
			   sl_err *err);

/* Compile for streaming; ctx is borrowed for the life of the operators. */
sl_op *sl_exec_stream_compile(const sl_plan *p, sl_op *sink, sl_stream_ctx *ctx,
			      sl_err *err);
/* Push rows of source i (borrowed). */
int sl_exec_stream_push(sl_op *root, int source, sl_batch *b, sl_err *err);
/* End the micro-batch (finish every stream leaf; operators reset for the
 * next batch after emitting). */
int sl_exec_stream_end(sl_op *root, sl_err *err);

/* One stateful operator, for progress "stateOperators" (sink side first). */
typedef struct sl_stateop_info {
	const char *operator_name; /* "stateStoreSave", "dedupe", ... */
	sl_state *state;           /* borrowed */
	int64_t num_rows_dropped_by_watermark; /* this batch */
	int64_t num_rows_updated;              /* this batch */
	int64_t num_rows_removed;              /* this batch */
	int64_t num_dropped_duplicate_rows;    /* dedupe operators' custom
					       metric, this batch; -1 for
					       the others */
} sl_stateop_info;
/* Fill up to max entries; returns how many stateful operators there are. */
int sl_exec_stream_states(sl_op *root, sl_stateop_info *out, int max);

/* The withWatermark operators in plan order (left to right, depth first;
 * the driver's per-node watermarks follow this order): this micro-batch's
 * event-time statistics.  Fills up to max; returns how many there are.
 * Read before sl_exec_stream_commit / _abort, which reset them. */
int sl_exec_stream_watermarks(sl_op *root, sl_wm_stats *out, int max);

/* After a batch with the new watermark new_wm_us: whether a stateful
 * operator would evict or emit if a batch without input ran now (Spark's
 * shouldRunAnotherBatch): aggregations in append/update with a watermark
 * when new_wm_us > the watermark they last evicted with; operators that
 * register a hook (sl_op_ops.wants_no_data) decide for themselves. */
bool sl_exec_stream_wants_no_data(sl_op *root, int64_t new_wm_us);

/* The checkpoint's view of the stores (the driver saves and loads them;
 * this layer never touches files): the stateful operators in a stable
 * order, sink side first as compiled from the plan, so store i is always
 * the same operator of the same plan (state/<i>/0/ in the checkpoint).
 * sl_exec_stream_store returns NULL past the end.  Borrowed. */
int sl_exec_stream_nstores(sl_op *root);
sl_state *sl_exec_stream_store(sl_op *root, int i);
/* The operator that owns store i (borrowed; NULL past the end): what its
 * entries mean is exec/state_codec.h's sl_state_codec_of_op. */
const sl_op *sl_exec_stream_stateop(sl_op *root, int i);
/* After the driver replaced the stores' contents (loaded a checkpoint
 * version): every operator forgets what it derived from the old contents
 * (eviction indexes, join indexes, session maps, limit counts) and
 * rebuilds it from the store before its next use, as after an abort. */
void sl_exec_stream_restored(sl_op *root);

/* Make this batch's state changes permanent / throw them away. */
int sl_exec_stream_commit(sl_op *root, sl_err *err);
void sl_exec_stream_abort(sl_op *root);

/* Spark's analysis of a streaming plan for an output mode before it
 * compiles: sl_plan_stream_check (plan/plan_analysis.c). */
int sl_exec_stream_check(const sl_plan *p, sl_outmode mode, sl_err *err);

#endif
