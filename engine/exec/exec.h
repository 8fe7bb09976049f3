/*
 * exec: the push-model operator interface (engine-internal).
 *
 * A plan compiles into a tree of operators.  Data flows upward: a driver
 * pushes batches into the leaf operators, each operator transforms them and
 * hands its output to its parent with sl_op_emit.  `finish` means "end of
 * input" from one child: for a batch query the end of all data, later, for
 * streaming, the end of one micro-batch (stateful operators then decide
 * what to emit by output mode).  Stateless operators (scan, project,
 * filter, limit, union) pass batches through; aggregate, sort and the
 * outer parts of a join emit on finish.
 *
 * An operator with two children (union, join) counts the finishes it has
 * seen and finishes its parent after the last one.  A join must receive
 * all of its build (right, side 1) input and that side's finish before
 * any probe (left, side 0) batch: the driver runs the right subtree first.
 *
 * Ownership: push *borrows* the input batch (an operator that keeps it
 * takes a reference).  sl_op_emit borrows too.  An operator owns its
 * children; sl_op_free frees the whole subtree below it.
 */
#ifndef SL_EXEC_H
#define SL_EXEC_H

#include "plan/plan_int.h"
#include "state/state.h"
#include "plan/stream.h"

typedef struct sl_hash_groups sl_hash_groups;
typedef struct sl_agg sl_agg;

typedef struct sl_op sl_op;

/* The bookkeeping of a stateful streaming operator (op->sf; NULL for every
 * other operator).  exec_stream.c lists these for progress, commits and
 * aborts their stores. */
typedef struct sl_op_stateful {
	const char *name;    /* progress operatorName */
	sl_state *store;     /* owned by the operator */
	int64_t dropped;     /* numRowsDroppedByWatermark, this batch */
	int64_t dup_dropped; /* numDroppedDuplicateRows, this batch */
	int64_t rewrites;    /* puts this batch that rewrote a row in place (a
			      * join's matched flag): not numRowsUpdated */
	int64_t unremoved;   /* removals this batch that numRowsRemoved does
			      * not count (an outer join's outer side, as
			      * Spark's StreamingSymmetricHashJoinExec) */
} sl_op_stateful;

struct sl_op_ops {
	const char *name;
	/* One input batch from child `side` (0 or 1). */
	int (*push)(sl_op *op, int side, sl_batch *in, sl_err *err);
	/* End of input from child `side`; the operator emits what it holds
	 * and, when all children are done, calls sl_op_finish_parent. */
	int (*finish)(sl_op *op, int side, sl_err *err);
	/* Release the operator's own state (not the sl_op struct itself). */
	void (*free)(sl_op *op);
	/* Streaming: forget a half-run micro-batch (its buffered rows and
	 * partial results) after a failure; may be NULL. */
	void (*reset)(sl_op *op);
	/* Stateful streaming operators with event-time state: after a
	 * batch, would a batch without input evict or emit something with
	 * the new watermark (microseconds)?  May be NULL (never). */
	bool (*wants_no_data)(sl_op *op, int64_t new_wm_us);
};

struct sl_op {
	const struct sl_op_ops *ops;
	const sl_plan *plan; /* borrowed; the compiled node */
	sl_op *parent;
	int parent_side;
	int nchild;
	sl_op *child[2];
	int nfinished;
	int64_t rows_in, rows_out;
	void *state;        /* the operator's private state */
	sl_op_stateful *sf; /* stateful streaming operators only (borrowed
			       from `state`) */
};

/* Compile p (borrowed; must outlive the operators) into an operator tree
 * whose root emits into `sink` (may be NULL).  Returns the root or NULL. */
sl_op *sl_exec_compile(const sl_plan *p, sl_op *sink, sl_err *err);
/* Drive a compiled batch plan: push every leaf's batches, then finish,
 * right subtrees of joins first. */
int sl_exec_run(sl_op *root, sl_err *err);
void sl_op_free(sl_op *op);

/* Hand out to the parent (borrowed); counts rows_out. */
int sl_op_emit(sl_op *op, sl_batch *out, sl_err *err);
/* Tell the parent this operator is done. */
int sl_op_finish_parent(sl_op *op, sl_err *err);
/* Default finish: count finishes and finish the parent after the last,
 * then start counting again (the next micro-batch finishes again). */
int sl_op_finish_default(sl_op *op, int side, sl_err *err);

/* A collecting sink: keeps every batch pushed into it. */
sl_op *sl_exec_collector_new(sl_err *err);
/* The batches collected so far, concatenated (new reference). */
sl_batch *sl_exec_collector_result(sl_op *sink, sl_type *schema, sl_err *err);
/* The same, and the collector is emptied: the driver's micro-batch output,
 * taken once per batch (new reference, NULL on out of memory). */
sl_batch *sl_exec_collector_take(sl_op *sink, sl_type *schema, sl_err *err);
/* Drop what was collected (an interrupted micro-batch). */
void sl_exec_collector_clear(sl_op *sink);
/* Discard mode (a sink that ignores rows, noop): the collector counts the
 * rows and keeps none; result and take give an empty batch. */
void sl_exec_collector_discard(sl_op *sink, bool on);
/* Rows pushed since the last take or clear (kept or not). */
int64_t sl_exec_collector_rows(const sl_op *sink);

/* A bare operator with ops and plan set (the constructors below fill
 * state).  Operator constructors, one file each, read the plan node. */
sl_op *sl_op_new(const struct sl_op_ops *ops, const sl_plan *p, sl_err *err);
/* A stateful streaming operator: sl_op_new, then op->state a zeroed block
 * of `size` bytes holding an sl_op_stateful at offset sf_off (op->sf
 * points at it) with a new empty store and `name` (borrowed, static).  The
 * ops' free hook frees the store and the block, and must accept a block
 * still zero but for the store.  NULL (nothing left) when out of memory. */
sl_op *sl_op_stateful_new(const struct sl_op_ops *ops, const sl_plan *p,
			  size_t size, size_t sf_off, const char *name,
			  sl_err *err);
sl_op *sl_op_project_new(const sl_plan *p, sl_err *err);
sl_op *sl_op_filter_new(const sl_plan *p, sl_err *err);
sl_op *sl_op_agg_new(const sl_plan *p, sl_err *err);
sl_op *sl_op_sort_new(const sl_plan *p, sl_err *err);
sl_op *sl_op_limit_new(const sl_plan *p, sl_err *err);
sl_op *sl_op_union_new(const sl_plan *p, sl_err *err);
sl_op *sl_op_join_new(const sl_plan *p, sl_err *err);
sl_op *sl_op_dedup_new(const sl_plan *p, sl_err *err);

/* A pass-through leaf (LOCAL, READ, STREAM_SOURCE). */
sl_op *sl_op_scan_new(const sl_plan *p, sl_err *err);
/* A join whose build side is child `build_side` (0 or 1): the static side
 * of a stream-static join.  sl_op_join_new builds on the right (1). */
sl_op *sl_op_join_side_new(const sl_plan *p, int build_side, sl_err *err);

/* Streaming operators, reading ctx (borrowed) at finish: aggregation with
 * a state store, emitting by ctx->mode (op_stream.c); dropDuplicates
 * across micro-batches (op_sdedup.c); limit over all micro-batches, append
 * mode (op_slimit.c). */
sl_op *sl_op_stream_agg_new(const sl_plan *p, sl_stream_ctx *ctx, sl_err *err);
sl_op *sl_op_stream_dedup_new(const sl_plan *p, sl_stream_ctx *ctx,
			      sl_err *err);
sl_op *sl_op_stream_limit_new(const sl_plan *p, sl_stream_ctx *ctx,
			      sl_err *err);
/* The stream-stream inner join (op_ssjoin.c): both sides held in one
 * state store, cleaned by the watermark (progress "symmetricHashJoin"). */
sl_op *sl_op_ssjoin_new(const sl_plan *p, sl_stream_ctx *ctx, sl_err *err);

/* withWatermark (op_watermark.c): passes rows through and observes the
 * event-time column.  Statistics of the rows pushed since the last reset
 * (ops->reset), in milliseconds as Spark's EventTimeStats. */
typedef struct sl_wm_stats {
	int64_t delay_us;
	int64_t count;          /* non-null event times seen */
	int64_t min_ms, max_ms; /* valid when count > 0 */
	int64_t sum_ms;
} sl_wm_stats;
sl_op *sl_op_watermark_new(const sl_plan *p, sl_err *err);
/* The same in a streaming query: with ctx (borrowed) it also sends the
 * batch's event times to ctx->feed (SL_EV_EVENT_TIMES) when the feed
 * wants per-row detail. */
sl_op *sl_op_watermark_stream_new(const sl_plan *p, const sl_stream_ctx *ctx,
				  sl_err *err);
bool sl_op_is_watermark(const sl_op *op);
void sl_op_watermark_stats(const sl_op *op, sl_wm_stats *out);

/* Sliding windows (window.c): EXPAND, one output row per window of a
 * row (batch and streaming alike). */
sl_op *sl_op_expand_new(const sl_plan *p, sl_err *err);

/* Session windows (op_session.c): an AGGREGATE with a session_window()
 * key; ctx NULL for a batch query (everything in one finish). */
sl_op *sl_op_session_new(const sl_plan *p, sl_stream_ctx *ctx, sl_err *err);

/* The hash aggregate's pieces, for the streaming aggregation (op_agg.c).
 * Groups of the rows pushed so far: count, table (NULL for a global
 * aggregate), aggregate states (p->naggs, borrowed). */
int64_t sl_op_agg_ngroups(const sl_op *op);
sl_hash_groups *sl_op_agg_table(const sl_op *op);
sl_agg **sl_op_agg_states(const sl_op *op);
/* The output rows of an AGGREGATE node p for n groups: key columns
 * keys[0..p->nkeys) (borrowed) and the results of aggs (p->naggs). */
sl_batch *sl_op_agg_output(const sl_plan *p, sl_col *const *keys,
			   sl_agg *const *aggs, int64_t n, sl_err *err);
/* The same rows from the aggregates' result columns res[0..p->naggs)
 * (borrowed, n rows each) instead of their states. */
sl_batch *sl_op_agg_output_res(const sl_plan *p, sl_col *const *keys,
			       sl_col *const *res, int64_t n, sl_err *err);

/* Project/filter kernels shared with other operators: apply a PROJECT
 * node / FILTER condition to one batch (new reference). */
sl_batch *sl_op_project_batch(const sl_plan *p, sl_batch *in, sl_err *err);
sl_batch *sl_op_filter_batch(const sl_expr *cond, sl_batch *in, sl_err *err);

#endif
