/*
 * exec_stream: compiling a streaming plan into push operators and driving
 * them one micro-batch at a time (see exec_stream.h; the driver in query.c
 * is the only caller).
 *
 * The compiled tree looks like the batch one, with three differences:
 *  - stream leaves are pass-through scans fed by sl_exec_stream_push;
 *  - static subtrees (the static side of a stream-static join) are compiled
 *    with the batch compiler and run to completion here, once, so the join
 *    holds its build table for the life of the query;
 *  - AGGREGATE, DEDUP and LIMIT become streaming operators (op_stream.c)
 *    that keep their state in an sl_state across micro-batches.
 * A "StreamRoot" operator sits on top, between the plan's root and the
 * sink: it owns the tables of stream leaves, stateful operators and every
 * operator (for abort), so every entry point takes the root.
 *
 * End of a micro-batch = one finish per stream leaf.  Operators count
 * finishes and reset the count (sl_op_finish_default), so a union of two
 * streams finishes its parent once per micro-batch, every micro-batch.
 *
 * Never prints; never reads the clock (the batch timestamp is in ctx).
 */
#include "exec/exec_stream.h"

#include <stdlib.h>
#include <string.h>

typedef struct sroot {
	sl_stream_ctx *ctx;
	int nleaves, nstateful, nops, nstatics, nwm;
	sl_op **leaves;   /* stream leaves in plan order */
	sl_op **wms;      /* withWatermark operators in plan order */
	sl_op **stateful; /* sink side first */
	sl_op **ops;      /* every streaming operator */
	sl_op **statics;  /* roots of static subtrees (compile time only) */
} sroot;

static int root_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	(void)side;
	return sl_op_emit(op, in, err);
}

static int root_finish(sl_op *op, int side, sl_err *err)
{
	(void)side;
	return sl_op_finish_parent(op, err);
}

static void root_free(sl_op *op)
{
	sroot *r = op->state;
	if (r == NULL)
		return;
	free(r->leaves);
	free(r->wms);
	free(r->stateful);
	free(r->ops);
	free(r->statics);
	free(r);
}

static const struct sl_op_ops root_ops = {
	.name = "StreamRoot",
	.push = root_push,
	.finish = root_finish,
	.free = root_free,
};

static sroot *root_of(sl_op *root, sl_err *err)
{
	if (root == NULL || root->ops != &root_ops) {
		sl_err_set(err, SL_EINTERNAL,
			   "exec_stream: not a compiled streaming plan");
		return NULL;
	}
	return root->state;
}

/* Append op to a growable array (capacity = next power of two). */
static int list_add(sl_op ***a, int *n, sl_op *op, sl_err *err)
{
	if ((*n & (*n - 1)) == 0) {
		int cap = *n ? 2 * *n : 4;
		sl_op **m = realloc(*a, (size_t)cap * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(err);
		*a = m;
	}
	(*a)[(*n)++] = op;
	return 0;
}

/* ------------------------------------------------------------ sources */

static int collect_sources(const sl_plan *p, sl_source_desc ***d, int *n,
			   sl_err *err)
{
	int i, rc;
	if (!p->streaming)
		return 0;
	if (p->kind == SL_P_STREAM_SOURCE) {
		if ((*n & (*n - 1)) == 0) {
			int cap = *n ? 2 * *n : 4;
			sl_source_desc **m =
			    realloc(*d, (size_t)cap * sizeof *m);
			if (m == NULL)
				return sl_err_nomem(err);
			*d = m;
		}
		(*d)[(*n)++] = p->desc;
		return 0;
	}
	for (i = 0; i < p->nchild; i++)
		if ((rc = collect_sources(p->child[i], d, n, err)) < 0)
			return rc;
	return 0;
}

int sl_exec_stream_sources(const sl_plan *p, sl_source_desc ***descs, int *n,
			   sl_err *err)
{
	int rc;
	*descs = NULL;
	*n = 0;
	rc = collect_sources(p, descs, n, err);
	if (rc < 0) {
		free(*descs);
		*descs = NULL;
		*n = 0;
	}
	return rc;
}

/* ------------------------------------------------------------ compile */

static sl_op *stream_op_for(sroot *r, const sl_plan *p, sl_err *err)
{
	switch (p->kind) {
	case SL_P_STREAM_SOURCE: return sl_op_scan_new(p, err);
	case SL_P_AGGREGATE:
		if (sl_plan_session_key(p) >= 0)
			return sl_op_session_new(p, r->ctx, err);
		return sl_op_stream_agg_new(p, r->ctx, err);
	case SL_P_DEDUP: return sl_op_stream_dedup_new(p, r->ctx, err);
	case SL_P_LIMIT: return sl_op_stream_limit_new(p, r->ctx, err);
	case SL_P_JOIN:
		if (p->child[0]->streaming && p->child[1]->streaming)
			return sl_op_ssjoin_new(p, r->ctx, err);
		/* build on the static side; node_ok refused the rest */
		return sl_op_join_side_new(p, p->child[1]->streaming ? 0 : 1,
					   err);
	case SL_P_PROJECT: return sl_op_project_new(p, err);
	case SL_P_FILTER: return sl_op_filter_new(p, err);
	case SL_P_SORT: return sl_op_sort_new(p, err);
	case SL_P_UNION: return sl_op_union_new(p, err);
	case SL_P_WATERMARK: return sl_op_watermark_stream_new(p, r->ctx, err);
	case SL_P_EXPAND: return sl_op_expand_new(p, err);
	default:
		sl_err_set(
		    err, SL_EINTERNAL,
		    "exec_stream: plan node kind %d cannot run in a streaming query",
		    (int)p->kind);
		return NULL;
	}
}

static sl_op *scompile(sroot *r, const sl_plan *p, sl_err *err)
{
	sl_op *op, *c;
	int i;
	if (!p->streaming) {
		op = sl_exec_compile(p, NULL, err);
		if (op != NULL &&
		    list_add(&r->statics, &r->nstatics, op, err) < 0) {
			sl_op_free(op);
			return NULL;
		}
		return op;
	}
	if (sl_plan_stream_node_ok(p, err) < 0 ||
	    (op = stream_op_for(r, p, err)) == NULL)
		return NULL;
	if (list_add(&r->ops, &r->nops, op, err) < 0 ||
	    (op->sf != NULL &&
	     list_add(&r->stateful, &r->nstateful, op, err) < 0) ||
	    (p->kind == SL_P_STREAM_SOURCE &&
	     list_add(&r->leaves, &r->nleaves, op, err) < 0) ||
	    (p->kind == SL_P_WATERMARK &&
	     list_add(&r->wms, &r->nwm, op, err) < 0)) {
		sl_op_free(op);
		return NULL;
	}
	for (i = 0; i < p->nchild; i++) {
		c = scompile(r, p->child[i], err);
		if (c == NULL) {
			sl_op_free(op);
			return NULL;
		}
		c->parent = op;
		c->parent_side = i;
		op->child[i] = c;
		op->nchild = i + 1;
	}
	return op;
}

/* Run the static subtrees now: each pushes all its rows into its parent
 * (a join's build side) and finishes it, so the join builds once. */
static int run_statics(sroot *r, sl_err *err)
{
	int i, rc;
	for (i = 0; i < r->nstatics; i++)
		if ((rc = sl_exec_run(r->statics[i], err)) < 0)
			return rc;
	free(r->statics);
	r->statics = NULL;
	r->nstatics = 0;
	return 0;
}

sl_op *sl_exec_stream_compile(const sl_plan *p, sl_op *sink, sl_stream_ctx *ctx,
			      sl_err *err)
{
	sl_op *root, *top;
	sroot *r;
	if (!p->streaming) {
		sl_err_set(
		    err, SL_EANALYSIS,
		    "Queries without streaming sources cannot be executed with writeStream.start()");
		return NULL;
	}
	root = sl_op_new(&root_ops, p, err);
	if (root == NULL)
		return NULL;
	root->state = r = calloc(1, sizeof *r);
	if (r == NULL) {
		sl_op_free(root);
		sl_err_nomem(err);
		return NULL;
	}
	r->ctx = ctx;
	top = scompile(r, p, err);
	if (top == NULL) {
		sl_op_free(root);
		return NULL;
	}
	top->parent = root;
	root->child[0] = top;
	root->nchild = 1;
	if (run_statics(r, err) < 0) {
		sl_op_free(root);
		return NULL;
	}
	if (sink != NULL) {
		root->parent = sink;
		root->parent_side = 0;
		sink->child[0] = root;
		sink->nchild = 1;
	}
	return root;
}

/* ------------------------------------------------------- micro-batches */

/* Give b the leaf's schema (same columns, the plan's names). */
static sl_batch *as_leaf(const sl_op *leaf, sl_batch *b, sl_err *err)
{
	sl_type *st = leaf->plan->schema;
	sl_batch *o;
	int i;
	if (b->schema == st)
		return sl_batch_ref(b);
	if (b->ncols != st->nfields) {
		sl_err_set(
		    err, SL_EINTERNAL,
		    "exec_stream: source batch has %d columns, the stream has %d",
		    b->ncols, st->nfields);
		return NULL;
	}
	for (i = 0; i < b->ncols; i++)
		if (!sl_type_equal(b->cols[i]->type, st->fields[i].type)) {
			sl_err_set(
			    err, SL_EINTERNAL,
			    "exec_stream: source column '%s' has the wrong type",
			    st->fields[i].name);
			return NULL;
		}
	for (i = 0; i < b->ncols; i++)
		sl_col_ref(b->cols[i]);
	o = sl_batch_new(st, b->nrows, b->cols);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

int sl_exec_stream_push(sl_op *root, int source, sl_batch *b, sl_err *err)
{
	sroot *r = root_of(root, err);
	sl_op *leaf;
	sl_batch *in;
	int rc;
	if (r == NULL)
		return SL_EINTERNAL;
	if (source < 0 || source >= r->nleaves)
		return sl_err_set(
		    err, SL_EINTERNAL,
		    "exec_stream: no stream source %d (the plan has %d)",
		    source, r->nleaves);
	leaf = r->leaves[source];
	if (b->nrows == 0)
		return 0;
	if ((in = as_leaf(leaf, b, err)) == NULL)
		return err ? err->code : SL_EINTERNAL;
	rc = leaf->ops->push(leaf, 0, in, err);
	sl_batch_free(in);
	return rc;
}

int sl_exec_stream_end(sl_op *root, sl_err *err)
{
	sroot *r = root_of(root, err);
	int i, rc;
	if (r == NULL)
		return SL_EINTERNAL;
	for (i = 0; i < r->nleaves; i++) {
		sl_op *leaf = r->leaves[i];
		if ((rc = leaf->ops->finish(leaf, 0, err)) < 0)
			return rc;
	}
	return 0;
}

int sl_exec_stream_states(sl_op *root, sl_stateop_info *out, int max)
{
	sroot *r = root_of(root, NULL);
	int i;
	if (r == NULL)
		return 0;
	for (i = 0; i < r->nstateful && i < max; i++) {
		const sl_op_stateful *sf = r->stateful[i]->sf;
		out[i].operator_name = sf->name;
		out[i].state = sf->store;
		out[i].num_rows_dropped_by_watermark = sf->dropped;
		out[i].num_rows_updated =
		    sl_state_num_updated(sf->store) - sf->rewrites;
		out[i].num_rows_removed =
		    sl_state_num_removed(sf->store) - sf->unremoved;
		out[i].num_dropped_duplicate_rows =
		    strncmp(sf->name, "dedupe", 6) == 0 ? sf->dup_dropped : -1;
	}
	return r->nstateful;
}

int sl_exec_stream_watermarks(sl_op *root, sl_wm_stats *out, int max)
{
	sroot *r = root_of(root, NULL);
	int i;
	if (r == NULL)
		return 0;
	for (i = 0; i < r->nwm && i < max; i++)
		sl_op_watermark_stats(r->wms[i], &out[i]);
	return r->nwm;
}

bool sl_exec_stream_wants_no_data(sl_op *root, int64_t new_wm_us)
{
	sroot *r = root_of(root, NULL);
	int i;
	if (r == NULL)
		return false;
	for (i = 0; i < r->nstateful; i++) {
		sl_op *op = r->stateful[i];
		if (op->ops->wants_no_data != NULL &&
		    op->ops->wants_no_data(op, new_wm_us))
			return true;
	}
	return false;
}

static void clear_counters(sroot *r)
{
	int i;
	for (i = 0; i < r->nwm; i++)
		r->wms[i]->ops->reset(r->wms[i]);
	for (i = 0; i < r->nstateful; i++) {
		r->stateful[i]->sf->dropped = 0;
		r->stateful[i]->sf->dup_dropped = 0;
		r->stateful[i]->sf->rewrites = 0;
		r->stateful[i]->sf->unremoved = 0;
	}
}

int sl_exec_stream_commit(sl_op *root, sl_err *err)
{
	sroot *r = root_of(root, err);
	int i, rc;
	if (r == NULL)
		return SL_EINTERNAL;
	for (i = 0; i < r->nstateful; i++)
		if ((rc = sl_state_commit(r->stateful[i]->sf->store, err)) < 0)
			return rc;
	clear_counters(r);
	return 0;
}

int sl_exec_stream_nstores(sl_op *root)
{
	sroot *r = root_of(root, NULL);
	return r != NULL ? r->nstateful : 0;
}

sl_state *sl_exec_stream_store(sl_op *root, int i)
{
	sroot *r = root_of(root, NULL);
	if (r == NULL || i < 0 || i >= r->nstateful)
		return NULL;
	return r->stateful[i]->sf->store;
}

const sl_op *sl_exec_stream_stateop(sl_op *root, int i)
{
	sroot *r = root_of(root, NULL);
	return r != NULL && i >= 0 && i < r->nstateful ? r->stateful[i] : NULL;
}

/* Every operator's reset hook: buffered rows dropped, derived indexes
 * marked stale (rebuilt from the store on next use). */
static void reset_all(sl_op *root, sroot *r)
{
	int i;
	for (i = 0; i < r->nops; i++) {
		sl_op *op = r->ops[i];
		op->nfinished = 0;
		if (op->ops->reset != NULL)
			op->ops->reset(op);
	}
	root->nfinished = 0;
	clear_counters(r);
}

void sl_exec_stream_restored(sl_op *root)
{
	sroot *r = root_of(root, NULL);
	if (r != NULL)
		reset_all(root, r);
}

void sl_exec_stream_abort(sl_op *root)
{
	sroot *r = root_of(root, NULL);
	int i;
	if (r == NULL)
		return;
	for (i = 0; i < r->nstateful; i++)
		sl_state_abort(r->stateful[i]->sf->store);
	reset_all(root, r);
}

int sl_exec_stream_check(const sl_plan *p, sl_outmode mode, sl_err *err)
{
	return sl_plan_stream_check(p, mode, err);
}
