/*
 * plan_int: the plan node, shared by plan.c (constructors, explain), exec.c
 * (compilation to operators) and the op_*.c files (each owns the
 * construction helpers of its own node kind).  Never include from outside
 * the engine.
 *
 * Invariants: every node is immutable after its constructor returns; every
 * expression stored here is *resolved* (against the input schema, or for
 * AGGREGATE post-projections against the intermediate schema); `schema` is
 * the output schema (a counted STRUCT reference).
 */
#ifndef SL_PLAN_INT_H
#define SL_PLAN_INT_H

#include "plan/plan.h"
#include "plan/stream.h"

typedef enum sl_plan_kind {
	SL_P_LOCAL,
	SL_P_READ,
	SL_P_PROJECT,
	SL_P_FILTER,
	SL_P_AGGREGATE,
	SL_P_SORT,
	SL_P_LIMIT,
	SL_P_UNION,
	SL_P_JOIN,
	SL_P_DEDUP,
	SL_P_STREAM_SOURCE, /* readStream ... load(): exec/stream_leaf.c */
	SL_P_WATERMARK,     /* withWatermark: plan_watermark.c */
	SL_P_EXPAND         /* sliding window(): one row per window,
			       plan_window.c (operator exec/window.c) */
} sl_plan_kind;

/* One aggregate function of an AGGREGATE node. */
typedef struct sl_aggspec {
	char *fname; /* canonical lower-case name: count, sum, avg, ... */
	bool distinct;
	bool count_rows; /* count(*) / count(1): count every row */
	int nargs;
	sl_expr **args; /* resolved against the input schema */
	sl_type *type;  /* result type (counted) */
	double rsd;     /* approx_count_distinct relative SD (0.05) */
	char *sql;      /* "sum(amount)" for explain */
} sl_aggspec;

typedef enum sl_join_type {
	SL_JOIN_INNER,
	SL_JOIN_LEFT,
	SL_JOIN_RIGHT,
	SL_JOIN_FULL,
	SL_JOIN_SEMI,
	SL_JOIN_ANTI,
	SL_JOIN_CROSS
} sl_join_type;

/* Where a join output column comes from. */
typedef enum {
	SL_JO_LEFT,
	SL_JO_RIGHT,
	SL_JO_LKEY,
	SL_JO_RKEY,
	SL_JO_COALESCE
} sl_join_src;
typedef struct sl_join_out {
	sl_join_src src;
	int idx; /* column or key index */
} sl_join_out;

/* The statement a plan was planned from when spark.sql built it
 * (sql/sql.c) and the catalog views it read, for toPySpark's
 * spark.sql(...) (driver/pyspark.c).  Owned by the node; the views'
 * plans are counted references. */
typedef struct sl_plan_sql {
	char *text;
	int nviews;
	char **names;
	sl_plan **plans;
} sl_plan_sql;
void sl_plan_sql_free(sl_plan_sql *s); /* accepts NULL */

struct sl_plan {
	sl_plan_kind kind;
	int refs;
	bool streaming;
	sl_type *schema;
	int nchild;
	sl_plan *child[2];

	/* LOCAL, READ: one batch per file for READ */
	int nbatches;
	sl_batch **batches;
	char *format, *path;
	bool is_range;     /* LOCAL made by sl_plan_range: */
	int64_t range[3];  /* its start, end, step (explain, toPySpark) */
	sl_options src_opts; /* LOCAL read from a source (format and path
				set: statestore, state-metadata): the
				reader's options, for toPySpark */

	/* PROJECT: output i is input column src[i] (>= 0) or exprs[i].  With a
	 * generator, outputs gen_at (.. gen_at+1 for posexplode) come from
	 * exploding gen_arg. */
	int nexprs;
	sl_expr **exprs;
	int *src;
	int gen_at; /* -1: none */
	bool gen_outer, gen_pos;
	sl_expr *gen_arg; /* resolved ARRAY expression */
	char *gen_sql;    /* "explode(words)" */

	/* FILTER; `pushed`: placed by a streaming join's pushdown
	 * (plan_pushdown.c), not written by the user */
	sl_expr *cond;
	bool pushed;

	/* AGGREGATE: keys resolved against the input; the intermediate batch
	 * is keys then aggs (schema `inter`); `post` (NULL when the outputs
	 * are exactly the intermediate columns) are resolved against it. */
	int nkeys;
	sl_expr **keys;
	int naggs;
	sl_aggspec *aggs;
	sl_type *inter;
	int npost;
	sl_expr **post;

	/* SORT: keys resolved (SL_X_SORT stripped), flags SL_SORT_* */
	int nsort;
	sl_expr **sort_keys;
	int *sort_flags;

	/* LIMIT */
	int64_t limit;

	/* JOIN: equi keys (lkeys vs left schema, rkeys vs right schema),
	 * residual condition resolved against left ++ right (`wide`), output
	 * mapping */
	sl_join_type jtype;
	int njkeys;
	sl_expr **lkeys, **rkeys;
	sl_expr *residual;
	sl_type *wide;
	int nout;
	sl_join_out *out;
	bool using_cols;

	/* DEDUP: indexes of the key columns; within_wm for
	 * dropDuplicatesWithinWatermark (operator: exec/op_sdedup.c) */
	int ndedup;
	int *dedup_cols;
	bool within_wm;

	/* STREAM_SOURCE: the source description (counted); `format` is set
	 * too, for explain */
	sl_source_desc *desc;

	/* WATERMARK: the event-time column (index into the schema, which
	 * is the child's) and the delay (months as 31 days) */
	int wm_col;
	int64_t wm_delay_us;

	/* EXPAND: output = the input columns then `window` (struct
	 * start/end); win_ts the input timestamp column; window() in
	 * microseconds */
	int win_ts;
	int64_t win_size, win_slide, win_start;

	/* Node kinds built outside plan.c release their own fields here
	 * (called by sl_plan_free before the common fields; may be NULL).
	 * Keeps plan.o free of references to those modules. */
	void (*release)(sl_plan *p);

	/* Any kind: set on the top node spark.sql returns, else NULL */
	sl_plan_sql *sql;
};

/* A new node of kind with one reference and nothing set. */
sl_plan *sl_plan_node_new(sl_plan_kind kind, sl_err *err);
/* Resolve e against schema; on failure prefix the error with method. */
sl_expr *sl_plan_resolve(const sl_expr *e, const sl_type *schema,
			 const char *method, sl_err *err);
/* Build a STRUCT from n names (copied) and types (borrowed). */
sl_type *sl_plan_struct(int n, char *const *names, sl_type *const *types,
			const bool *nullable, sl_err *err);
/* A resolved reference to column i of schema, named as the field. */
sl_expr *sl_plan_colref(const sl_type *schema, int i, sl_err *err);
/* The automatic name of e (sl_expr_name), malloc'd. */
char *sl_plan_expr_name(const sl_expr *e);
/* Wider common type for union/join keys, or NULL when none. */
sl_type *sl_plan_common_type(sl_type *a, sl_type *b);

/* ---- event time (plan_watermark.c) ---- */

/* An event-time column of a plan's output: the column withWatermark
 * marked, carried through projections (renamed or not), filters, unions,
 * joins; `window` when it is a window()/session_window() struct over it
 * (compared by its end). */
#define SL_PLAN_MAX_ET 8
typedef struct sl_plan_et {
	int col;
	bool window;
	int64_t delay_us;
} sl_plan_et;
/* The event-time columns of p's output (up to max); returns the count. */
int sl_plan_event_time(const sl_plan *p, sl_plan_et *out, int max);
/* True when a withWatermark node is at or below p. */
bool sl_plan_has_watermark(const sl_plan *p);
/* Spark 3.4+'s rule for statefulOperator.allowMultiple=true (the
 * default; the driver calls it when a query starts running, not with
 * allowMultiple=false): a streaming withWatermark node with another one
 * below it fails with SL_EANALYSIS "Redefining watermark is disallowed.
 * You can set the config 'spark.sql.streaming.statefulOperator.
 * allowMultiple' to 'false' ...".  0 otherwise. */
int sl_plan_check_watermarks(const sl_plan *p, sl_err *err);

/* ---- stream-stream join state (plan_joinwm.c) ---- */

/* A side's state value watermark term: thisTime > coef * wm + c_us
 * (Spark's StreamingJoinHelper.getStateValueWatermark), in Spark's
 * milliseconds, one millisecond less when incl (from <= / >=). */
#define SL_JOIN_MAX_BOUNDS 8
typedef struct sl_join_bound {
	int coef;
	int64_t c_us;
	bool incl;
} sl_join_bound;
typedef struct sl_join_side_wm {
	int et_col;      /* the side's watermarked column, -1 none */
	bool et_window;  /* a window struct: compared by its end */
	bool key_window; /* the watermarked join key is a window struct */
	int nbounds;     /* solved from the other side's watermark */
	sl_join_bound bounds[SL_JOIN_MAX_BOUNDS];
} sl_join_side_wm;
typedef struct sl_join_wm {
	int wkey; /* join key ordinal carrying a watermark, -1 none */
	sl_join_side_wm side[2];
} sl_join_wm;
/* What bounds the state of JOIN node p (both children streaming): the
 * watermarked join key, else each side's value-watermark bounds.  0 or
 * SL_ENOMEM. */
int sl_plan_join_wm(const sl_plan *p, sl_join_wm *w, sl_err *err);
/* Spark's optimizer for a streaming JOIN node p (plan_pushdown.c): the
 * one-side conjuncts of its condition and the filters inferred through
 * its equi-keys become FILTER nodes on its inputs (p->child[] replaced),
 * below a side's withWatermark where Spark puts them.  The condition
 * stays whole.  Best effort: 0, or SL_ENOMEM with p still valid (some
 * filters may be missing, never a wrong one). */
int sl_plan_join_pushdown(sl_plan *p);
/* Which sides an expression over a join's left ++ right columns (nl of
 * them on the left) reads: bit 0 the left, bit 1 the right (0: none). */
int sl_plan_join_sides(const sl_expr *e, int nl);
/* Append the AND-conjuncts of e (borrowed) to *a (realloc'd, *n of
 * them).  0 or SL_ENOMEM (*a stays valid: the caller frees it). */
int sl_plan_split_and(const sl_expr *e, const sl_expr ***a, int *n);

/* How a watermarked AGGREGATE finds the event time of a group / an input
 * row: key `key` is the event-time column itself (RAW: compare the value),
 * a window struct column (WCOL: compare its end), a window() call over
 * the event time (WCALL: end = start + size), or a session_window() call
 * (SESSION).  `col` is the input column (the timestamp, or the struct).
 * `wend`: a WCALL over window_time(col) (a window of windows): col is a
 * window struct and the time is its end - 1 microsecond. */
typedef enum sl_et_kind {
	SL_ET_NONE = 0,
	SL_ET_RAW,
	SL_ET_WCOL,
	SL_ET_WCALL,
	SL_ET_SESSION
} sl_et_kind;
typedef struct sl_agg_et {
	sl_et_kind kind;
	int key;
	int col;
	int64_t size, slide, start; /* WCALL */
	bool wend;                  /* WCALL over window_time(col) */
	int64_t gap_us;             /* SESSION */
} sl_agg_et;
/* Fill *et for an AGGREGATE node (kind SL_ET_NONE: not watermarked). */
void sl_plan_agg_event_time(const sl_plan *p, sl_agg_et *et);

/* The index of an AGGREGATE's session_window() key, or -1 (plan_agg.c;
 * the operator is exec/op_session.c). */
int sl_plan_session_key(const sl_plan *p);

/* ---- windows (plan_window.c) ---- */

/* Rewrite exprs[0..n) (owned, replaced in place) that hold a sliding
 * window() call: *in becomes an EXPAND node over it (the caller's
 * reference moves to the new node) and each such call a reference to its
 * `window` column.  0 when nothing needed rewriting too.  Spark's error
 * for two different window specs. */
int sl_window_rewrite(sl_plan **in, sl_expr **exprs, int n, const char *method,
		      sl_err *err);
/* The window(ts) start for ts (Spark's TimeWindowing). */
int64_t sl_window_first_start(int64_t ts, int64_t slide, int64_t start);

/* The key of AGGREGATE p (its event time *et, plan_int.h) that may take
 * slices, or -1: p is right over the EXPAND of a sliding window of a
 * plain time column whose size is a multiple of its slide, grouped by
 * that window (the watermarked key when there is one) which no other key
 * and no aggregate reads, and every aggregate is order-free (gives the
 * row-by-row result whatever order partial buffers merge in). */
int sl_window_slice_key(const sl_plan *p, const sl_agg_et *et);
/* The same conditions but for the aggregates' order: the key when the
 * streaming aggregate may take each row once with its slice and fold it
 * into every window itself, row by row (the live table,
 * op_stream_live.c), or -1. */
int sl_window_row_slice_key(const sl_plan *p, const sl_agg_et *et);
/* The AGGREGATE node (plan_agg.c). */
sl_plan *sl_plan_agg_build(sl_plan *in, sl_expr **keys, int nkeys,
			   sl_expr **aggs, int naggs, const char *method,
			   sl_err *err);
void sl_plan_agg_release(sl_plan *p);

/* ---- streaming analysis (plan_analysis.c) ---- */

/* Spark's analysis of a streaming plan for an output mode
 * (UnsupportedOperationChecker, SPARK-SEMANTICS.md 2.1-2.4), with Spark's
 * exact sentences.  0 when the query may start. */
int sl_plan_stream_check(const sl_plan *p, sl_outmode mode, sl_err *err);
/* Its per-node part that compilation needs too (exec_stream.c): a join or
 * union the streaming engine cannot run, with Spark's sentence
 * (SL_EANALYSIS). */
int sl_plan_stream_node_ok(const sl_plan *p, sl_err *err);

#endif
