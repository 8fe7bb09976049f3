/*
 * op_stream: the streaming leaf (sl_plan_stream) and the operators that
 * keep state across micro-batches: aggregation (Spark's StateStoreSave,
 * progress name "stateStoreSave"), dropDuplicates ("dedupe") and a limit
 * over the whole stream ("globalLimit").
 *
 * Streaming aggregation, per micro-batch:
 *  1. the batch's rows go through the ordinary hash aggregate (op_agg.c)
 *     into partial states, one group per key of this batch;
 *  2. at the end of the batch each group is merged with its stored buffer
 *     (key = sl_hash_key_encode of the group key, value = the aggregates'
 *     buffers, agg.h) and written back: only the batch's groups are
 *     touched, so the cost is O(groups of the batch), not O(state);
 *  3. output by ctx->mode: Update emits the groups of this batch, Complete
 *     every group in the store; both sorted by encoded key, which is the
 *     ascending key order with NULLs first (deterministic; Spark's order is
 *     unspecified).  Append needs a watermark (next milestone).
 * The store's pending version is made permanent by sl_exec_stream_commit
 * after the sink took the rows, or thrown away by sl_exec_stream_abort:
 * a failed batch re-runs exactly on the totals it started from.
 *
 * Ownership: operators own their stores; ctx and the plan are borrowed.
 * Never prints; per-row feed events only when sl_feed_wants says so.
 */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "feed.h"
#include "hash.h"
#include "source.h"
#include "stream_int.h"
#include "timeutil.h"

/* ------------------------------------------------------------- leaf */

static void stream_release(sl_plan *p)
{
	sl_source_desc_free(p->desc);
	p->desc = NULL;
}

sl_plan *sl_plan_stream(sl_source_desc *d, sl_err *err)
{
	sl_plan *p = sl_plan_node_new(SL_P_STREAM_SOURCE, err);
	const char *fmt;
	if (p == NULL)
		return NULL;
	p->desc = sl_source_desc_ref(d);
	p->release = stream_release;
	p->streaming = true;
	p->schema = sl_type_ref(sl_source_desc_schema(d));
	fmt = sl_source_desc_format(d);
	p->format = strdup(fmt ? fmt : "memory");
	if (p->format == NULL) {
		sl_plan_free(p);
		sl_err_nomem(err);
		return NULL;
	}
	return p;
}

/* ------------------------------------------------------ feed events */

/* "[v1,v2]": one row of cols as Spark's Row.toString. */
void sl_stream_row_text(sl_col *const *cols, int n, int64_t i, sl_buf *out)
{
	int k;
	sl_buf_addc(out, '[');
	for (k = 0; k < n; k++) {
		if (k)
			sl_buf_addc(out, ',');
		sl_value_show(cols[k], i, out);
	}
	sl_buf_addc(out, ']');
}

void sl_stream_state_event(const sl_stream_ctx *ctx, const char *op,
			const char *key, const char *val, const char *state)
{
	sl_buf t, j;
	sl_buf_init(&t);
	sl_buf_init(&j);
	sl_buf_printf(&t, "%s %s -> %s", op, key, val);
	sl_buf_adds(&j, "{\"op\":");
	sl_buf_json_str(&j, op, strlen(op));
	sl_buf_adds(&j, ",\"key\":");
	sl_buf_json_str(&j, key, strlen(key));
	sl_buf_adds(&j, ",\"value\":");
	sl_buf_json_str(&j, val, strlen(val));
	sl_buf_printf(&j, ",\"state\":\"%s\"}", state);
	if (!sl_buf_failed(&t) && !sl_buf_failed(&j))
		sl_feed_add(ctx->feed, SL_EV_STATE_ROW, ctx->batch_id,
			    ctx->batch_ts_us, sl_buf_cstr(&t), sl_buf_cstr(&j));
	sl_buf_release(&t);
	sl_buf_release(&j);
}

bool sl_stream_wants_rows(const sl_stream_ctx *ctx)
{
	return ctx != NULL && ctx->feed != NULL &&
	       sl_feed_wants(ctx->feed, SL_EV_STATE_ROW);
}

static void hms(int64_t us, sl_buf *out)
{
	sl_buf t;
	const char *sp;
	sl_buf_init(&t);
	sl_ts_format(us, &t);
	sp = strchr(sl_buf_cstr(&t), ' ');
	sl_buf_adds(out, sp != NULL ? sp + 1 : sl_buf_cstr(&t));
	sl_buf_release(&t);
}

void sl_stream_late(const sl_stream_ctx *ctx, const char *op,
		    const char *row_json, int64_t event_us,
		    const char *windows_json, int64_t wm_us)
{
	sl_buf t, j;
	bool to_feed = ctx->feed != NULL &&
		       sl_feed_wants(ctx->feed, SL_EV_LATE_ROW);
	if (ctx->late == NULL && !to_feed)
		return;
	sl_buf_init(&t);
	sl_buf_init(&j);
	sl_buf_printf(&j, "{\"operator\":\"%s\",\"batchId\":%lld,\"row\":%s,"
			  "\"eventTime\":\"",
		      op, (long long)ctx->batch_id, row_json);
	sl_ts_format(event_us, &j);
	sl_buf_printf(&j, "\",\"windows\":%s,\"watermark\":\"", windows_json);
	sl_ts_format(wm_us, &j);
	sl_buf_adds(&j, "\"}");
	hms(event_us, &t);
	sl_buf_printf(&t, " %s DROPPED: ", row_json);
	if (strcmp(windows_json, "[]") != 0)
		sl_buf_printf(&t, "windows %s end ", windows_json);
	else
		sl_buf_adds(&t, "event time ");
	sl_buf_adds(&t, "<= wm ");
	hms(wm_us, &t);
	if (!sl_buf_failed(&t) && !sl_buf_failed(&j)) {
		if (ctx->late != NULL)
			sl_feed_add(ctx->late, SL_EV_LATE_ROW, ctx->batch_id,
				    ctx->batch_ts_us, sl_buf_cstr(&t),
				    sl_buf_cstr(&j));
		if (to_feed)
			sl_feed_add(ctx->feed, SL_EV_LATE_ROW, ctx->batch_id,
				    ctx->batch_ts_us, sl_buf_cstr(&t),
				    sl_buf_cstr(&j));
	}
	sl_buf_release(&t);
	sl_buf_release(&j);
}

/* ------------------------------------------------------ aggregation */

typedef struct saggst {
	sl_op_stateful sf;
	sl_stream_ctx *ctx;
	sl_op *part;     /* this micro-batch's hash aggregate, or NULL */
	sl_col **kc;     /* its key columns, during the merge */
	sl_buf kb, vb;   /* scratch */
	sl_buf keys;     /* encoded keys of the batch's groups, back to back */
	int64_t *koff;   /* group g's key at keys.p + koff[g] .. koff[g+1] */
	int64_t kcap;
} saggst;

static int sagg_part(sl_op *op, sl_err *err)
{
	saggst *st = op->state;
	if (st->part == NULL)
		st->part = sl_op_agg_new(op->plan, err);
	return st->part ? 0 : (err ? err->code : SL_ENOMEM);
}

static int sagg_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	saggst *st = op->state;
	int rc;
	(void)side;
	if ((rc = sagg_part(op, err)) < 0)
		return rc;
	return st->part->ops->push(st->part, 0, in, err);
}

static void free_cols(sl_col **c, int n)
{
	int k;
	for (k = 0; c && k < n; k++)
		sl_col_free(c[k]);
	free(c);
}

/* The batch's key columns (st->kc) and their encodings (st->keys). */
static int encode_keys(sl_op *op, int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	sl_hash_groups *t = sl_op_agg_table(st->part);
	int64_t g;
	int k;
	st->kc = calloc((size_t)p->nkeys + 1, sizeof *st->kc);
	if (n + 1 > st->kcap) {
		free(st->koff);
		st->koff = malloc((size_t)(n + 1) * sizeof *st->koff);
		st->kcap = st->koff ? n + 1 : 0;
	}
	if (st->kc == NULL || st->koff == NULL)
		return sl_err_nomem(err);
	for (k = 0; k < p->nkeys; k++)
		if ((st->kc[k] = sl_hash_groups_key(t, k, 0, n, err)) == NULL)
			return err ? err->code : SL_ENOMEM;
	sl_buf_clear(&st->keys);
	for (g = 0; g < n; g++) {
		st->koff[g] = (int64_t)st->keys.len;
		sl_hash_key_encode(st->kc, p->nkeys, g, &st->keys);
	}
	st->koff[n] = (int64_t)st->keys.len;
	return sl_buf_failed(&st->keys) ? sl_err_nomem(err) : 0;
}

/* Merge group g with its stored buffer and store the result. */
static int merge_group(sl_op *op, int64_t g, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	sl_agg **aggs = sl_op_agg_states(st->part);
	const char *key = st->keys.p ? st->keys.p + st->koff[g] : "";
	size_t klen = (size_t)(st->koff[g + 1] - st->koff[g]), vlen = 0, at = 0;
	const unsigned char *old = sl_state_get(st->sf.store, key, klen, &vlen);
	int i, rc;
	for (i = 0; old != NULL && i < p->naggs; i++) {
		size_t used;
		if ((rc = sl_agg_merge(aggs[i], g, old + at, vlen - at, &used,
				       err)) < 0)
			return rc;
		at += used;
	}
	sl_buf_clear(&st->vb);
	for (i = 0; i < p->naggs; i++)
		if ((rc = sl_agg_save(aggs[i], g, &st->vb, err)) < 0)
			return rc;
	return sl_state_put(st->sf.store, key, klen, st->vb.p ? st->vb.p : "",
			    st->vb.len, err);
}

/* One feed event per group of the batch: its key and new aggregates. */
static int feed_groups(sl_op *op, int64_t n, sl_err *err)
{
	const sl_plan *p = op->plan;
	saggst *st = op->state;
	sl_agg **aggs = sl_op_agg_states(st->part);
	sl_col **ac = calloc((size_t)p->naggs + 1, sizeof *ac);
	sl_buf k, v;
	int64_t g;
	int i, rc = 0;
	if (ac == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < p->naggs && rc == 0; i++)
		if ((ac[i] = sl_agg_result(aggs[i], 0, n, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	sl_buf_init(&k);
	sl_buf_init(&v);
	/* The ring keeps a few hundred events: formatting 100k rows a batch to
	 * keep 200 of them was most of W1-100k's time.  Show the first ones. */
	for (g = 0; g < n && g < SL_FEED_ROWS_PER_BATCH && rc == 0; g++) {
		sl_buf_clear(&k);
		sl_buf_clear(&v);
		sl_stream_row_text(st->kc, p->nkeys, g, &k);
		sl_stream_row_text(ac, p->naggs, g, &v);
		sl_stream_state_event(st->ctx, st->sf.name, sl_buf_cstr(&k),
			    sl_buf_cstr(&v), "UPDATED");
	}
	sl_buf_release(&k);
	sl_buf_release(&v);
	free_cols(ac, p->naggs);
	return rc;
}

typedef struct kent {
	const unsigned char *k, *v;
	size_t klen, vlen;
	int64_t g;
} kent;

static int kent_cmp(const void *a, const void *b)
{
	const kent *x = a, *y = b;
	size_t m = x->klen < y->klen ? x->klen : y->klen;
	int r = m ? memcmp(x->k, y->k, m) : 0;
	return r ? r : (x->klen > y->klen) - (x->klen < y->klen);
}

/* Update mode: the batch's groups (already merged), in key order. */
static sl_batch *update_rows(sl_op *op, int64_t n, sl_err *err)
{
	saggst *st = op->state;
	kent *e = malloc((size_t)(n + 1) * sizeof *e);
	int64_t *idx = malloc((size_t)(n + 1) * sizeof *idx), g;
	sl_batch *all = NULL, *o = NULL;
	if (e == NULL || idx == NULL) {
		sl_err_nomem(err);
		goto out;
	}
	for (g = 0; g < n; g++) {
		e[g].k = (const unsigned char *)(st->keys.p ? st->keys.p : "") +
			 st->koff[g];
		e[g].klen = (size_t)(st->koff[g + 1] - st->koff[g]);
		e[g].g = g;
	}
	qsort(e, (size_t)n, sizeof *e, kent_cmp);
	for (g = 0; g < n; g++)
		idx[g] = e[g].g;
	all = sl_op_agg_output(op->plan, st->kc, sl_op_agg_states(st->part), n,
			       err);
	if (all != NULL && (o = sl_batch_take(all, idx, n)) == NULL)
		sl_err_nomem(err);
out:
	sl_batch_free(all);
	free(e);
	free(idx);
	return o;
}

typedef struct kents {
	int64_t n, cap;
	kent *e;
} kents;

static int collect_entry(void *ud, const void *key, size_t klen,
			 const void *val, size_t vlen)
{
	kents *l = ud;
	if (l->n == l->cap) {
		int64_t cap = l->cap ? 2 * l->cap : 256;
		kent *m = realloc(l->e, (size_t)cap * sizeof *m);
		if (m == NULL)
			return SL_ENOMEM;
		l->e = m;
		l->cap = cap;
	}
	l->e[l->n].k = key;
	l->e[l->n].klen = klen;
	l->e[l->n].v = val;
	l->e[l->n].vlen = vlen;
	l->e[l->n].g = l->n;
	l->n++;
	return 0;
}

/* Decode entries into key columns and fresh aggregates, then output. */
static sl_batch *decode_rows(sl_op *op, const kent *e, int64_t n,
			     sl_err *err)
{
	const sl_plan *p = op->plan;
	sl_col **kc = calloc((size_t)p->nkeys + 1, sizeof *kc);
	sl_agg **aggs = calloc((size_t)p->naggs + 1, sizeof *aggs);
	sl_batch *o = NULL;
	sl_type *at[8];
	int64_t r;
	int i, j, rc = 0;
	if (kc == NULL || aggs == NULL)
		rc = sl_err_nomem(err);
	for (i = 0; i < p->nkeys && rc == 0; i++)
		if ((kc[i] = sl_col_new(p->keys[i]->rtype, n)) == NULL)
			rc = sl_err_nomem(err);
	for (i = 0; i < p->naggs && rc == 0; i++) {
		const sl_aggspec *s = &p->aggs[i];
		for (j = 0; j < s->nargs && j < 8; j++)
			at[j] = s->args[j]->rtype;
		aggs[i] = sl_agg_new(s->fname, s->distinct, s->count_rows, at,
				     s->nargs, s->rsd, err);
		if (aggs[i] == NULL)
			rc = err ? err->code : SL_ENOMEM;
	}
	for (r = 0; r < n && rc == 0; r++) {
		size_t at2 = 0, used;
		rc = sl_hash_key_decode(kc, p->nkeys, r, e[r].k, e[r].klen,
					NULL, err);
		for (i = 0; i < p->naggs && rc == 0; i++) {
			rc = sl_agg_merge(aggs[i], r, e[r].v + at2,
					  e[r].vlen - at2, &used, err);
			at2 += used;
		}
	}
	if (rc == 0)
		o = sl_op_agg_output(p, kc, aggs, n, err);
	free_cols(kc, kc ? p->nkeys : 0);
	for (i = 0; aggs && i < p->naggs; i++)
		sl_agg_free(aggs[i]);
	free(aggs);
	return o;
}

/* Complete mode: every group in the store, in key order. */
static sl_batch *complete_rows(sl_op *op, sl_err *err)
{
	saggst *st = op->state;
	kents l;
	sl_batch *o;
	memset(&l, 0, sizeof l);
	if (sl_state_foreach(st->sf.store, collect_entry, &l) != 0) {
		free(l.e);
		sl_err_nomem(err);
		return NULL;
	}
	qsort(l.e, (size_t)l.n, sizeof *l.e, kent_cmp);
	o = decode_rows(op, l.e, l.n, err);
	free(l.e);
	return o;
}

static void sagg_clear(sl_op *op)
{
	saggst *st = op->state;
	free_cols(st->kc, op->plan->nkeys);
	st->kc = NULL;
	sl_op_free(st->part);
	st->part = NULL;
}

static int sagg_merge_all(sl_op *op, int64_t *ngroups, sl_err *err)
{
	saggst *st = op->state;
	int64_t n, g;
	int rc;
	/* a global aggregate has its one group even in an empty batch */
	if (st->part == NULL && op->plan->nkeys > 0) {
		*ngroups = 0;
		return 0;
	}
	if ((rc = sagg_part(op, err)) < 0)
		return rc;
	n = *ngroups = sl_op_agg_ngroups(st->part);
	if ((rc = encode_keys(op, n, err)) < 0)
		return rc;
	for (g = 0; g < n; g++)
		if ((rc = merge_group(op, g, err)) < 0)
			return rc;
	return sl_stream_wants_rows(st->ctx) ? feed_groups(op, n, err) : 0;
}

static int sagg_finish(sl_op *op, int side, sl_err *err)
{
	saggst *st = op->state;
	sl_batch *o = NULL;
	int64_t n = 0;
	int rc;
	(void)side;
	if (st->ctx->mode == SL_MODE_APPEND) {
		sagg_clear(op);
		return sl_err_set(err, SL_EANALYSIS,
				  "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark");
	}
	rc = sagg_merge_all(op, &n, err);
	if (rc == 0 && st->ctx->mode == SL_MODE_UPDATE && n > 0)
		o = update_rows(op, n, err);
	else if (rc == 0 && st->ctx->mode == SL_MODE_COMPLETE)
		o = complete_rows(op, err);
	if (rc == 0 && o == NULL && (st->ctx->mode == SL_MODE_COMPLETE || n > 0))
		rc = err ? err->code : SL_ENOMEM;
	sagg_clear(op);
	if (rc == 0 && o != NULL)
		rc = sl_op_emit(op, o, err);
	sl_batch_free(o);
	return rc < 0 ? rc : sl_op_finish_parent(op, err);
}

static void sagg_free(sl_op *op)
{
	saggst *st = op->state;
	if (st == NULL)
		return;
	sagg_clear(op);
	sl_state_free(st->sf.store);
	sl_buf_release(&st->kb);
	sl_buf_release(&st->vb);
	sl_buf_release(&st->keys);
	free(st->koff);
	free(st);
}

static const struct sl_op_ops sagg_ops = {
	.name = "StateStoreSave",
	.push = sagg_push,
	.finish = sagg_finish,
	.free = sagg_free,
	.reset = sagg_clear,
};

/* collect_list and DISTINCT aggregates have no streaming buffer. */
static int sagg_supported(const sl_plan *p, sl_err *err)
{
	int i;
	for (i = 0; i < p->naggs; i++) {
		if (p->aggs[i].distinct)
			return sl_err_set(err, SL_EANALYSIS,
					  "Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.");
		if (strcmp(p->aggs[i].fname, "collect_list") == 0) {
			sl_err_set(err, SL_EANALYSIS,
				   "agg: collect_list is not supported in a streaming aggregation in streamlab");
			sl_err_hint(err, "aggregate with count/sum/min/max/first/last, or collect in foreachBatch");
			return SL_EANALYSIS;
		}
	}
	return 0;
}

sl_op *sl_op_stream_agg_new(const sl_plan *p, sl_stream_ctx *ctx,
			    sl_err *err)
{
	sl_op *op;
	saggst *st;
	if (sagg_supported(p, err) < 0)
		return NULL;
	if ((op = sl_op_new(&sagg_ops, p, err)) == NULL)
		return NULL;
	op->state = st = calloc(1, sizeof *st);
	if (st == NULL || (st->sf.store = sl_state_new()) == NULL) {
		sl_op_free(op);
		sl_err_nomem(err);
		return NULL;
	}
	st->sf.name = "stateStoreSave";
	st->ctx = ctx;
	sl_buf_init(&st->kb);
	sl_buf_init(&st->vb);
	sl_buf_init(&st->keys);
	op->sf = &st->sf;
	return op;
}

