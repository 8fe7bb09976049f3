/*
 * exec: compiling a plan into push operators and driving a batch query
 * (collect, write).  The same operator tree will later be driven once per
 * micro-batch by the streaming driver: push that batch's source data, then
 * finish.  See exec.h for the protocol.
 *
 * Leaves (LOCAL, READ) compile to a pass-through scan operator into which
 * the driver pushes the leaf's batches.  The root emits into a collector.
 */
#include "exec/exec.h"

#include <assert.h>
#include <stdlib.h>

#include "formats/fileformat.h"

sl_op *sl_op_new(const struct sl_op_ops *ops, const sl_plan *p, sl_err *err)
{
	sl_op *op = calloc(1, sizeof *op);
	if (op == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	op->ops = ops;
	op->plan = p;
	return op;
}

sl_op *sl_op_stateful_new(const struct sl_op_ops *ops, const sl_plan *p,
			  size_t size, size_t sf_off, const char *name,
			  sl_err *err)
{
	sl_op *op = sl_op_new(ops, p, err);
	sl_op_stateful *sf;
	assert(sf_off + sizeof *sf <= size);
	if (op == NULL)
		return NULL;
	op->state = calloc(1, size);
	if (op->state == NULL) {
		sl_op_free(op);
		sl_err_nomem(err);
		return NULL;
	}
	sf = (sl_op_stateful *)((char *)op->state + sf_off);
	sf->name = name;
	op->sf = sf;
	if ((sf->store = sl_state_new()) == NULL) {
		sl_op_free(op);
		sl_err_nomem(err);
		return NULL;
	}
	return op;
}

void sl_op_free(sl_op *op)
{
	int i;
	if (op == NULL)
		return;
	for (i = 0; i < op->nchild; i++)
		sl_op_free(op->child[i]);
	if (op->ops->free != NULL)
		op->ops->free(op);
	free(op);
}

int sl_op_emit(sl_op *op, sl_batch *out, sl_err *err)
{
	sl_op *par = op->parent;
	if (out->nrows == 0 || par == NULL)
		return 0;
	op->rows_out += out->nrows;
	par->rows_in += out->nrows;
	return par->ops->push(par, op->parent_side, out, err);
}

int sl_op_finish_parent(sl_op *op, sl_err *err)
{
	sl_op *par = op->parent;
	if (par == NULL)
		return 0;
	return par->ops->finish(par, op->parent_side, err);
}

int sl_op_finish_default(sl_op *op, int side, sl_err *err)
{
	(void)side;
	if (++op->nfinished < (op->nchild > 0 ? op->nchild : 1))
		return 0;
	op->nfinished = 0;
	return sl_op_finish_parent(op, err);
}

/* ------------------------------------------------------------- scan */

static int scan_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	(void)side;
	op->rows_in += in->nrows;
	return sl_op_emit(op, in, err);
}

static const struct sl_op_ops scan_ops = {
	.name = "scan",
	.push = scan_push,
	.finish = sl_op_finish_default,
	.free = NULL,
};

sl_op *sl_op_scan_new(const sl_plan *p, sl_err *err)
{
	return sl_op_new(&scan_ops, p, err);
}

/* -------------------------------------------------------- collector */

typedef struct collector {
	sl_batch_list list;
	int64_t rows; /* rows pushed since the last take or clear */
	bool discard; /* count them, keep nothing */
} collector;

static int coll_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	collector *c = op->state;
	(void)side;
	c->rows += in->nrows;
	if (c->discard)
		return 0;
	if (sl_batch_list_add(&c->list, sl_batch_ref(in)) != 0)
		return sl_err_nomem(err);
	return 0;
}

static int coll_finish(sl_op *op, int side, sl_err *err)
{
	(void)op;
	(void)side;
	(void)err;
	return 0;
}

static void coll_free(sl_op *op)
{
	collector *c = op->state;
	if (c == NULL)
		return;
	sl_batch_list_release(&c->list);
	free(c);
}

static const struct sl_op_ops collector_ops = {
	.name = "collect",
	.push = coll_push,
	.finish = coll_finish,
	.free = coll_free,
};

sl_op *sl_exec_collector_new(sl_err *err)
{
	sl_op *op = sl_op_new(&collector_ops, NULL, err);
	if (op == NULL)
		return NULL;
	op->state = calloc(1, sizeof(collector));
	if (op->state == NULL) {
		free(op);
		sl_err_nomem(err);
		return NULL;
	}
	return op;
}

sl_batch *sl_exec_collector_result(sl_op *sink, sl_type *schema, sl_err *err)
{
	collector *c = sink->state;
	sl_batch *b;
	if (c->discard) {
		if ((b = sl_batch_empty(schema)) == NULL)
			sl_err_nomem(err);
		return b;
	}
	if (c->list.n == 1 && c->list.b[0]->schema == schema)
		return sl_batch_ref(c->list.b[0]);
	b = sl_batch_concat(c->list.b, c->list.n, schema, err);
	if (b != NULL && b->schema != schema) {
		/* rename by position to the plan's schema */
		sl_batch *o;
		int i;
		for (i = 0; i < b->ncols; i++)
			sl_col_ref(b->cols[i]);
		o = sl_batch_new(schema, b->nrows, b->cols);
		sl_batch_free(b);
		if (o == NULL)
			sl_err_nomem(err);
		b = o;
	}
	return b;
}

void sl_exec_collector_clear(sl_op *sink)
{
	collector *c = sink->state;
	sl_batch_list_release(&c->list);
	sl_batch_list_init(&c->list);
	c->rows = 0;
}

void sl_exec_collector_discard(sl_op *sink, bool on)
{
	((collector *)sink->state)->discard = on;
}

int64_t sl_exec_collector_rows(const sl_op *sink)
{
	return ((const collector *)sink->state)->rows;
}

sl_batch *sl_exec_collector_take(sl_op *sink, sl_type *schema, sl_err *err)
{
	sl_batch *b = sl_exec_collector_result(sink, schema, err);
	sl_exec_collector_clear(sink);
	return b;
}

/* ---------------------------------------------------------- compile */

static sl_op *op_for(const sl_plan *p, sl_err *err)
{
	switch (p->kind) {
	case SL_P_LOCAL:
	case SL_P_READ: return sl_op_new(&scan_ops, p, err);
	case SL_P_PROJECT: return sl_op_project_new(p, err);
	case SL_P_FILTER: return sl_op_filter_new(p, err);
	case SL_P_AGGREGATE:
		if (sl_plan_session_key(p) >= 0)
			return sl_op_session_new(p, NULL, err);
		return sl_op_agg_new(p, err);
	case SL_P_SORT: return sl_op_sort_new(p, err);
	case SL_P_LIMIT: return sl_op_limit_new(p, err);
	case SL_P_UNION: return sl_op_union_new(p, err);
	case SL_P_JOIN: return sl_op_join_new(p, err);
	case SL_P_DEDUP: return sl_op_dedup_new(p, err);
	case SL_P_WATERMARK: /* a no-op on a batch plan, as Spark */
		return sl_op_watermark_new(p, err);
	case SL_P_EXPAND: return sl_op_expand_new(p, err);
	default:
		sl_err_set(
		    err, SL_EINTERNAL,
		    "exec: plan node kind %d cannot run in a batch query",
		    (int)p->kind);
		return NULL;
	}
}

static sl_op *compile(const sl_plan *p, sl_err *err)
{
	sl_op *op = op_for(p, err), *c;
	int i;
	if (op == NULL)
		return NULL;
	for (i = 0; i < p->nchild; i++) {
		c = compile(p->child[i], err);
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

sl_op *sl_exec_compile(const sl_plan *p, sl_op *sink, sl_err *err)
{
	sl_op *root = compile(p, err);
	if (root != NULL && sink != NULL) {
		root->parent = sink;
		root->parent_side = 0;
		sink->child[0] = root;
		sink->nchild = 1;
	}
	return root;
}

int sl_exec_run(sl_op *op, sl_err *err)
{
	const sl_plan *p = op->plan;
	int i, rc;
	if (p->kind == SL_P_LOCAL || p->kind == SL_P_READ) {
		for (i = 0; i < p->nbatches; i++)
			if ((rc = op->ops->push(op, 0, p->batches[i], err)) < 0)
				return rc;
		return op->ops->finish(op, 0, err);
	}
	/* a join's build side (right) must be complete before probing */
	if (p->kind == SL_P_JOIN)
		return (rc = sl_exec_run(op->child[1], err)) < 0
			   ? rc
			   : sl_exec_run(op->child[0], err);
	for (i = 0; i < op->nchild; i++)
		if ((rc = sl_exec_run(op->child[i], err)) < 0)
			return rc;
	return 0;
}

/* ---------------------------------------------------------- actions */

sl_batch *sl_plan_collect(sl_plan *p, sl_err *err)
{
	sl_op *sink, *root;
	sl_batch *b = NULL;
	if (p->streaming) {
		sl_err_set(
		    err, SL_EANALYSIS,
		    "Queries with streaming sources must be executed with writeStream.start()");
		return NULL;
	}
	sink = sl_exec_collector_new(err);
	if (sink == NULL)
		return NULL;
	root = sl_exec_compile(p, sink, err);
	if (root != NULL && sl_exec_run(root, err) == 0)
		b = sl_exec_collector_result(sink, p->schema, err);
	sl_op_free(sink);
	return b;
}

int sl_plan_write(sl_plan *p, const char *format, const char *path,
		  const char *mode, const sl_options *opts, sl_err *err)
{
	sl_batch *b;
	sl_options none;
	int rc;
	if (!sl_format_known(format)) {
		sl_err_set(err, SL_EINVAL, "write: unknown format '%s'",
			   format);
		sl_err_hint(err, "use json, csv, text or parquet");
		return SL_EINVAL;
	}
	b = sl_plan_collect(p, err);
	if (b == NULL)
		return err ? err->code : SL_EINTERNAL;
	sl_options_init(&none);
	rc = sl_format_write_dir(format, path, mode ? mode : "error", b,
				 opts ? opts : &none, err);
	sl_batch_free(b);
	return rc;
}
