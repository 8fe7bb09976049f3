/*
 * op_agg: the hash aggregate operator of an AGGREGATE node (its analysis,
 * the rewriting of the agg expressions over the intermediate row of keys
 * then aggregate results, is plan/plan_agg.c).
 *
 * Per pushed batch: evaluate the keys, map rows to group ids with the
 * group table (hash.c), evaluate each aggregate's arguments and fold them
 * into its state arrays (agg.c).  On finish, build the intermediate batch
 * for all groups in first-seen order, evaluate the outputs (p->post) and
 * emit.  A global aggregate has one group that exists even for empty input
 * (count(*) of nothing is 0, one row), as Spark.
 */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

#include "exec/agg.h"
#include "exec/hash.h"

typedef struct aggst {
	sl_hash_groups *groups; /* NULL for a global aggregate */
	sl_agg **aggs;
	int32_t *gids;
	int64_t gcap;
} aggst;

static int64_t ngroups(const sl_op *op)
{
	aggst *st = op->state;
	return st->groups ? sl_hash_groups_count(st->groups) : 1;
}

static int group_ids(sl_op *op, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	aggst *st = op->state;
	sl_col **kc;
	int k, rc = 0;
	if (in->nrows > st->gcap) {
		free(st->gids);
		st->gids = calloc((size_t)in->nrows, sizeof *st->gids);
		st->gcap = st->gids ? in->nrows : 0;
		if (st->gids == NULL)
			return sl_err_nomem(err);
	}
	if (st->groups == NULL) /* global: everything is group 0 */
		return 0;
	kc = calloc((size_t)p->nkeys + 1, sizeof *kc);
	if (kc == NULL)
		return sl_err_nomem(err);
	for (k = 0; k < p->nkeys && rc == 0; k++) {
		kc[k] = p->keys[k]->kind == SL_X_COL
			    ? sl_col_ref(in->cols[p->keys[k]->idx])
			    : sl_expr_eval(p->keys[k], in, err);
		if (kc[k] == NULL)
			rc = err ? err->code : SL_ENOMEM;
	}
	if (rc == 0)
		rc = sl_hash_groups_insert(st->groups, kc, in->nrows, false,
					   st->gids, err);
	for (k = 0; k < p->nkeys; k++)
		sl_col_free(kc[k]);
	free(kc);
	return rc;
}

static int agg_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	const sl_plan *p = op->plan;
	aggst *st = op->state;
	sl_col *args[8];
	int i, j, rc;
	(void)side;
	if ((rc = group_ids(op, in, err)) < 0)
		return rc;
	for (i = 0; i < p->naggs; i++) {
		const sl_aggspec *s = &p->aggs[i];
		for (j = 0; j < s->nargs && j < 8; j++) {
			const sl_expr *x = s->args[j];
			args[j] = x->kind == SL_X_COL
				      ? sl_col_ref(in->cols[x->idx])
				      : sl_expr_eval(x, in, err);
			if (args[j] == NULL) {
				while (j-- > 0)
					sl_col_free(args[j]);
				return err ? err->code : SL_ENOMEM;
			}
		}
		rc = sl_agg_update(st->aggs[i], st->gids, in->nrows,
				   ngroups(op), args, err);
		for (j = 0; j < s->nargs && j < 8; j++)
			sl_col_free(args[j]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static sl_batch *agg_output_from(const sl_plan *p, sl_col *const *keys,
				  sl_agg *const *aggs, sl_col *const *res,
				  int64_t n, sl_err *err);

sl_batch *sl_op_agg_output(const sl_plan *p, sl_col *const *keys,
			   sl_agg *const *aggs, int64_t n, sl_err *err)
{
	return agg_output_from(p, keys, aggs, NULL, n, err);
}

sl_batch *sl_op_agg_output_res(const sl_plan *p, sl_col *const *keys,
			       sl_col *const *res, int64_t n, sl_err *err)
{
	return agg_output_from(p, keys, NULL, res, n, err);
}

/* The output from the aggregates' states aggs, or their results res. */
static sl_batch *agg_output_from(const sl_plan *p, sl_col *const *keys,
				  sl_agg *const *aggs, sl_col *const *res,
				  int64_t n, sl_err *err)
{
	int ni = p->nkeys + p->naggs, i;
	sl_col **ic = calloc((size_t)ni + 1, sizeof *ic);
	sl_col **oc = calloc((size_t)p->npost + 1, sizeof *oc);
	sl_batch *inter = NULL, *o = NULL;
	if (ic == NULL || oc == NULL)
		goto nomem;
	for (i = 0; i < ni; i++) {
		ic[i] = i < p->nkeys ? sl_col_ref(keys[i])
			: res != NULL ? sl_col_ref(res[i - p->nkeys])
				      : sl_agg_result(aggs[i - p->nkeys], 0, n, err);
		if (ic[i] == NULL)
			goto fail;
	}
	inter = sl_batch_new(p->inter, n, ic);
	ni = 0;
	if (inter == NULL)
		goto nomem;
	for (i = 0; i < p->npost; i++) {
		const sl_expr *x = p->post[i];
		oc[i] = x->kind == SL_X_COL ? sl_col_ref(inter->cols[x->idx])
					    : sl_expr_eval(x, inter, err);
		if (oc[i] == NULL)
			goto fail;
	}
	o = sl_batch_new(p->schema, n, oc);
	if (o == NULL)
		sl_err_nomem(err);
	goto out;
nomem:
	sl_err_nomem(err);
fail:
	for (i = 0; oc && i < p->npost; i++)
		sl_col_free(oc[i]);
out:
	for (i = 0; ic && i < ni; i++)
		sl_col_free(ic[i]);
	free(ic);
	free(oc);
	sl_batch_free(inter);
	return o;
}

/* The output batch for groups [0, n). */
static sl_batch *agg_output(sl_op *op, int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	aggst *st = op->state;
	sl_col **kc = calloc((size_t)p->nkeys + 1, sizeof *kc);
	sl_batch *o = NULL;
	int k, nk = 0;
	if (kc == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (k = 0; k < p->nkeys; k++, nk++)
		if ((kc[k] = sl_hash_groups_key(st->groups, k, 0, n, err)) ==
		    NULL)
			break;
	if (nk == p->nkeys)
		o = sl_op_agg_output(p, kc, st->aggs, n, err);
	for (k = 0; k < nk; k++)
		sl_col_free(kc[k]);
	free(kc);
	return o;
}

static int agg_finish(sl_op *op, int side, sl_err *err)
{
	sl_batch *o;
	int rc;
	(void)side;
	/* a global aggregate's one group exists even for empty input:
	 * sl_agg_result gives it the empty-input values */
	o = agg_output(op, ngroups(op), err);
	if (o == NULL)
		return err ? err->code : SL_ENOMEM;
	rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc < 0 ? rc : sl_op_finish_parent(op, err);
}

static void agg_free(sl_op *op)
{
	aggst *st = op->state;
	int i;
	if (st == NULL)
		return;
	sl_hash_groups_free(st->groups);
	for (i = 0; st->aggs && i < op->plan->naggs; i++)
		sl_agg_free(st->aggs[i]);
	free(st->aggs);
	free(st->gids);
	free(st);
}

int64_t sl_op_agg_ngroups(const sl_op *op)
{
	return ngroups(op);
}

sl_hash_groups *sl_op_agg_table(const sl_op *op)
{
	return ((aggst *)op->state)->groups;
}

sl_agg **sl_op_agg_states(const sl_op *op)
{
	return ((aggst *)op->state)->aggs;
}

static const struct sl_op_ops agg_ops = {
	.name = "HashAggregate",
	.push = agg_push,
	.finish = agg_finish,
	.free = agg_free,
};

static int agg_state(sl_op *op, sl_err *err)
{
	const sl_plan *p = op->plan;
	aggst *st = calloc(1, sizeof *st);
	sl_type **kt = calloc((size_t)p->nkeys + 1, sizeof *kt);
	sl_type *at[8];
	int i, j;
	op->state = st;
	if (st == NULL || kt == NULL ||
	    (st->aggs = calloc((size_t)p->naggs + 1, sizeof *st->aggs)) ==
		NULL) {
		free(kt);
		return sl_err_nomem(err);
	}
	for (i = 0; i < p->nkeys; i++)
		kt[i] = p->keys[i]->rtype;
	if (p->nkeys > 0 &&
	    (st->groups = sl_hash_groups_new(kt, p->nkeys, err)) == NULL) {
		free(kt);
		return err ? err->code : SL_ENOMEM;
	}
	free(kt);
	for (i = 0; i < p->naggs; i++) {
		const sl_aggspec *s = &p->aggs[i];
		if (s->nargs > 8)
			return sl_err_set(err, SL_EANALYSIS,
					  "agg: too many arguments to '%s'",
					  s->fname);
		for (j = 0; j < s->nargs; j++)
			at[j] = s->args[j]->rtype;
		st->aggs[i] = sl_agg_new(s->fname, s->distinct, s->count_rows,
					 at, s->nargs, s->rsd, err);
		if (st->aggs[i] == NULL)
			return err ? err->code : SL_ENOMEM;
	}
	return 0;
}

sl_op *sl_op_agg_new(const sl_plan *p, sl_err *err)
{
	sl_op *op = sl_op_new(&agg_ops, p, err);
	if (op != NULL && agg_state(op, err) < 0) {
		sl_op_free(op);
		return NULL;
	}
	return op;
}
