/*
 * plan_watermark: withWatermark (Spark's EventTimeWatermark), the planner's
 * side: the node, which marks one TIMESTAMP column (or a window struct,
 * observed by its end) as the event time with a delay, and the event-time
 * metadata plans carry above it.  The operator that observes each
 * micro-batch's event times is exec/op_watermark.c; the driver computes
 * the next watermark from them (driver/query_batch.c, SPARK-SEMANTICS.md
 * 3.1).
 *
 * Event time travels upward as metadata (sl_plan_event_time): it is
 * computed on demand by walking the plan, so nodes stay immutable and the
 * constructors in plan.c need not know about it.
 *
 * Ownership: the node holds a reference to its child.
 */
#include "plan/plan_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/timeutil.h"

/* ------------------------------------------------------------- node */

/* Index of column `name` (case-insensitive, as Spark's resolution) or -1. */
static int find_col(const sl_type *st, const char *name)
{
	int i = sl_type_field_index(st, name);
	if (i >= 0)
		return i;
	for (i = 0; i < st->nfields; i++)
		if (strcasecmp(st->fields[i].name, name) == 0)
			return i;
	return -1;
}

static bool is_window_struct(const sl_type *t)
{
	return t->kind == SL_STRUCT && t->nfields == 2 &&
	       t->fields[1].type->kind == SL_TIMESTAMP &&
	       strcmp(t->fields[1].name, "end") == 0;
}

static int unknown_col(const sl_type *st, const char *col, sl_err *err)
{
	const char **names = calloc((size_t)st->nfields + 1, sizeof *names);
	const char *near;
	sl_buf b;
	int i;
	sl_buf_init(&b);
	for (i = 0; i < st->nfields; i++) {
		sl_buf_printf(&b, "%s%s", i ? ", " : "", st->fields[i].name);
		if (names != NULL)
			names[i] = st->fields[i].name;
	}
	sl_err_set(
	    err, SL_EANALYSIS,
	    "withWatermark: cannot resolve '%s' given input columns: [%s]", col,
	    sl_buf_cstr(&b));
	near = names ? sl_nearest_name(col, names, st->nfields) : NULL;
	if (near != NULL)
		sl_err_hint(err, "did you mean '%s'?", near);
	free(names);
	sl_buf_release(&b);
	return SL_EANALYSIS;
}

/* Spark: IntervalUtils.fromIntervalString + require(!isNegative). */
static int parse_delay(const char *delay, int64_t *us, sl_err *err)
{
	sl_err e2;
	sl_err_clear(&e2);
	if (delay == NULL || sl_duration_parse(delay, us, &e2) < 0) {
		sl_err_set(err, SL_EANALYSIS, "Unable to parse '%s'",
			   delay ? delay : "null");
		if (delay != NULL)
			sl_err_hint(err, "%s", e2.msg);
		return SL_EANALYSIS;
	}
	if (*us < 0)
		return sl_err_set(
		    err, SL_EINVAL,
		    "requirement failed: delay threshold (%s) should not be negative.",
		    delay);
	return 0;
}

sl_plan *sl_plan_watermark(sl_plan *in, const char *col, const char *delay,
			   sl_err *err)
{
	sl_plan *p;
	const sl_type *ct;
	int64_t us = 0;
	int k;
	/* Spark's Dataset.withWatermark parses and checks the delay before
	 * the analyzer sees the column: a negative delay on an INT column
	 * still says "should not be negative." */
	if (parse_delay(delay, &us, err) < 0)
		return NULL;
	k = col ? find_col(in->schema, col) : -1;
	if (k < 0) {
		unknown_col(in->schema, col ? col : "null", err);
		return NULL;
	}
	ct = in->schema->fields[k].type;
	if (ct->kind != SL_TIMESTAMP && !is_window_struct(ct)) {
		sl_buf t;
		sl_buf_init(&t);
		sl_type_sql(ct, &t);
		for (size_t i = 0; t.p != NULL && i < t.len; i++)
			t.p[i] = (char)tolower((unsigned char)t.p[i]);
		sl_err_set(
		    err, SL_EANALYSIS,
		    "Event time must be defined on a window or a timestamp, but %s is of type %s",
		    in->schema->fields[k].name, sl_buf_cstr(&t));
		sl_buf_release(&t);
		return NULL;
	}
	if ((p = sl_plan_node_new(SL_P_WATERMARK, err)) == NULL)
		return NULL;
	p->nchild = 1;
	p->child[0] = sl_plan_ref(in);
	p->streaming = in->streaming;
	p->schema = sl_type_ref(in->schema);
	p->wm_col = k;
	p->wm_delay_us = us;
	return p;
}

/* ------------------------------------------------------- event time */

static const sl_expr *unalias(const sl_expr *e)
{
	while (e != NULL && e->kind == SL_X_ALIAS)
		e = e->args[0];
	return e;
}

static int et_find(const sl_plan_et *et, int n, int col)
{
	int i;
	for (i = 0; i < n; i++)
		if (et[i].col == col)
			return i;
	return -1;
}

static int et_add(sl_plan_et *out, int n, int max, int col, bool window,
		  int64_t delay)
{
	if (n >= max || et_find(out, n, col) >= 0)
		return n;
	out[n].col = col;
	out[n].window = window;
	out[n].delay_us = delay;
	return n + 1;
}

/* window_time(c) over a window event-time column c: the et index of c,
 * else -1.  (Spark: window_time keeps the event-time metadata.) */
static int window_time_et(const sl_expr *a, const sl_plan_et *et, int n)
{
	int i;
	if (a->kind != SL_X_CALL || a->nargs != 1 ||
	    strcmp(a->name, "window_time") != 0)
		return -1;
	a = unalias(a->args[0]);
	if (a->kind == SL_X_COL && (i = et_find(et, n, a->idx)) >= 0 &&
	    et[i].window)
		return i;
	return -1;
}

/* The event time an expression over a child with metadata et[0..n)
 * carries: a plain reference keeps it, window_time(window) is a raw time,
 * window()/session_window() over a raw event-time column (or over
 * window_time(window): chained windows) makes a window.  Returns the et
 * index or -1; *window tells which. */
static int expr_et(const sl_expr *e, const sl_plan_et *et, int n, bool *window)
{
	int i;
	e = unalias(e);
	if (e == NULL)
		return -1;
	if (e->kind == SL_X_COL) {
		i = et_find(et, n, e->idx);
		if (i >= 0)
			*window = et[i].window;
		return i;
	}
	if ((i = window_time_et(e, et, n)) >= 0) {
		*window = false;
		return i;
	}
	if (e->kind == SL_X_CALL && e->nargs >= 2 &&
	    (strcmp(e->name, "window") == 0 ||
	     strcmp(e->name, "session_window") == 0)) {
		const sl_expr *a = unalias(e->args[0]);
		if ((a->kind == SL_X_COL && (i = et_find(et, n, a->idx)) >= 0 &&
		     !et[i].window) ||
		    (i = window_time_et(a, et, n)) >= 0) {
			*window = true;
			return i;
		}
	}
	return -1;
}

static int project_et(const sl_plan *p, sl_plan_et *out, int max)
{
	sl_plan_et c[SL_PLAN_MAX_ET];
	int nc = sl_plan_event_time(p->child[0], c, SL_PLAN_MAX_ET), n = 0, i;
	for (i = 0; i < p->nexprs && nc > 0; i++) {
		bool w = false;
		int k = -1;
		if (p->src != NULL && p->src[i] >= 0 &&
		    (k = et_find(c, nc, p->src[i])) >= 0)
			w = c[k].window;
		else if (p->exprs != NULL && p->exprs[i] != NULL)
			k = expr_et(p->exprs[i], c, nc, &w);
		if (k >= 0)
			n = et_add(out, n, max, i, w, c[k].delay_us);
	}
	return n;
}

static int agg_et(const sl_plan *p, sl_plan_et *out, int max)
{
	sl_plan_et c[SL_PLAN_MAX_ET];
	int nc = sl_plan_event_time(p->child[0], c, SL_PLAN_MAX_ET), n = 0, i;
	bool kw[SL_PLAN_MAX_ET];
	int kk[SL_PLAN_MAX_ET], nk = 0;
	for (i = 0; i < p->nkeys && nc > 0 && nk < SL_PLAN_MAX_ET; i++) {
		bool w = false;
		int k = expr_et(p->keys[i], c, nc, &w);
		if (k >= 0) {
			kk[nk] = i;
			kw[nk++] = w;
			if (p->post == NULL)
				n = et_add(out, n, max, i, w, c[k].delay_us);
		}
	}
	/* outputs through post-projections: references to the keys */
	for (i = 0; p->post != NULL && i < p->npost; i++) {
		const sl_expr *e = unalias(p->post[i]);
		int j;
		if (e->kind != SL_X_COL)
			continue;
		for (j = 0; j < nk; j++)
			if (kk[j] == e->idx) {
				bool w = false;
				int k = expr_et(p->keys[kk[j]], c, nc, &w);
				n = et_add(out, n, max, i, kw[j],
					   c[k].delay_us);
			}
	}
	return n;
}

static int join_et(const sl_plan *p, sl_plan_et *out, int max)
{
	sl_plan_et l[SL_PLAN_MAX_ET], r[SL_PLAN_MAX_ET];
	int nl = sl_plan_event_time(p->child[0], l, SL_PLAN_MAX_ET);
	int nr = sl_plan_event_time(p->child[1], r, SL_PLAN_MAX_ET);
	int n = 0, i, k;
	if (p->out == NULL) /* semi/anti: the left columns */
		return nl < max
			   ? (memcpy(out, l, (size_t)nl * sizeof *l), nl)
			   : (memcpy(out, l, (size_t)max * sizeof *l), max);
	for (i = 0; i < p->nout; i++) {
		const sl_join_out *o = &p->out[i];
		const sl_plan_et *s = o->src == SL_JO_RIGHT ? r : l;
		int ns = o->src == SL_JO_RIGHT ? nr : nl, col = o->idx;
		bool w = false;
		if (o->src == SL_JO_LKEY || o->src == SL_JO_COALESCE) {
			k = o->idx < p->njkeys
				? expr_et(p->lkeys[o->idx], l, nl, &w)
				: -1;
			if (k >= 0)
				n = et_add(out, n, max, i, w, l[k].delay_us);
			continue;
		}
		if (o->src == SL_JO_RKEY) {
			k = o->idx < p->njkeys
				? expr_et(p->rkeys[o->idx], r, nr, &w)
				: -1;
			if (k >= 0)
				n = et_add(out, n, max, i, w, r[k].delay_us);
			continue;
		}
		if ((k = et_find(s, ns, col)) >= 0)
			n = et_add(out, n, max, i, s[k].window, s[k].delay_us);
	}
	return n;
}

int sl_plan_event_time(const sl_plan *p, sl_plan_et *out, int max)
{
	sl_plan_et c[SL_PLAN_MAX_ET];
	int n = 0, nc, i;
	if (p == NULL || max <= 0)
		return 0;
	switch (p->kind) {
	case SL_P_LOCAL:
	case SL_P_READ:
	case SL_P_STREAM_SOURCE: return 0;
	case SL_P_WATERMARK:
		/* Spark: the new column replaces any earlier event time */
		out[0].col = p->wm_col;
		out[0].window =
		    is_window_struct(p->schema->fields[p->wm_col].type);
		out[0].delay_us = p->wm_delay_us;
		return 1;
	case SL_P_PROJECT: return project_et(p, out, max);
	case SL_P_AGGREGATE: return agg_et(p, out, max);
	case SL_P_JOIN: return join_et(p, out, max);
	case SL_P_UNION:
		for (i = 0; i < 2; i++) {
			int j;
			nc = sl_plan_event_time(p->child[i], c, SL_PLAN_MAX_ET);
			for (j = 0; j < nc; j++)
				n = et_add(out, n, max, c[j].col, c[j].window,
					   c[j].delay_us);
		}
		return n;
	case SL_P_EXPAND:
		nc = sl_plan_event_time(p->child[0], c, SL_PLAN_MAX_ET);
		for (i = 0; i < nc; i++)
			n = et_add(out, n, max, c[i].col, c[i].window,
				   c[i].delay_us);
		if (((i = et_find(c, nc, p->win_ts)) >= 0 && !c[i].window) ||
		    (p->win_ts < 0 && p->nexprs > 0 &&
		     (i = window_time_et(unalias(p->exprs[0]), c, nc)) >= 0))
			n = et_add(out, n, max, p->schema->nfields - 1, true,
				   c[i].delay_us);
		return n;
	default:
		/* filter, sort, limit, dedup and other row-preserving nodes
		 * keep their child's columns */
		if (p->nchild != 1 ||
		    p->schema->nfields != p->child[0]->schema->nfields)
			return 0;
		return sl_plan_event_time(p->child[0], out, max);
	}
}

bool sl_plan_has_watermark(const sl_plan *p)
{
	int i;
	if (p == NULL)
		return false;
	if (p->kind == SL_P_WATERMARK)
		return true;
	for (i = 0; i < p->nchild; i++)
		if (sl_plan_has_watermark(p->child[i]))
			return true;
	return false;
}

/* A streaming withWatermark strictly below p (through any node, as
 * Spark's WatermarkPropagator: stateful operators pass a watermark on). */
static bool wm_below(const sl_plan *p)
{
	int i;
	for (i = 0; i < p->nchild; i++) {
		const sl_plan *c = p->child[i];
		if ((c->kind == SL_P_WATERMARK && c->streaming) || wm_below(c))
			return true;
	}
	return false;
}

int sl_plan_check_watermarks(const sl_plan *p, sl_err *err)
{
	int i, rc;
	if (p == NULL)
		return 0;
	if (p->kind == SL_P_WATERMARK && p->streaming && wm_below(p))
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "Redefining watermark is disallowed. You can set the config "
		    "'spark.sql.streaming.statefulOperator.allowMultiple' to "
		    "'false' to restore the previous behavior. Note that "
		    "multiple stateful operators will be disallowed.");
	for (i = 0; i < p->nchild; i++)
		if ((rc = sl_plan_check_watermarks(p->child[i], err)) < 0)
			return rc;
	return 0;
}

/* One key of an AGGREGATE: how its event time is found. */
static bool key_event_time(const sl_plan *p, int k, const sl_plan_et *c, int nc,
			   sl_agg_et *et)
{
	const sl_expr *e = unalias(p->keys[k]);
	int i;
	if (e->kind == SL_X_COL) {
		if ((i = et_find(c, nc, e->idx)) < 0)
			return false;
		et->kind = c[i].window ? SL_ET_WCOL : SL_ET_RAW;
		et->col = e->idx;
	} else if (e->kind == SL_X_CALL && e->nargs >= 2 &&
		   strcmp(e->name, "window") == 0 &&
		   window_time_et(unalias(e->args[0]), c, nc) >= 0) {
		/* window(window_time(w), ...): a window of windows */
		et->col = unalias(unalias(e->args[0])->args[0])->idx;
		et->wend = true;
		if (sl_window_params(e, &et->size, &et->slide, &et->start,
				     NULL) < 0)
			return false;
		et->kind = SL_ET_WCALL;
	} else if (e->kind == SL_X_CALL && e->nargs >= 2 &&
		   unalias(e->args[0])->kind == SL_X_COL &&
		   (i = et_find(c, nc, unalias(e->args[0])->idx)) >= 0 &&
		   !c[i].window) {
		et->col = unalias(e->args[0])->idx;
		if (strcmp(e->name, "window") == 0) {
			if (sl_window_params(e, &et->size, &et->slide,
					     &et->start, NULL) < 0)
				return false;
			et->kind = SL_ET_WCALL;
		} else if (strcmp(e->name, "session_window") == 0) {
			et->kind = SL_ET_SESSION;
		} else {
			return false;
		}
	} else {
		return false;
	}
	et->key = k;
	return true;
}

void sl_plan_agg_event_time(const sl_plan *p, sl_agg_et *et)
{
	sl_plan_et c[SL_PLAN_MAX_ET];
	int nc, k;
	memset(et, 0, sizeof *et);
	et->kind = SL_ET_NONE;
	et->key = et->col = -1;
	if (p->kind != SL_P_AGGREGATE || p->nchild != 1)
		return;
	nc = sl_plan_event_time(p->child[0], c, SL_PLAN_MAX_ET);
	for (k = 0; k < p->nkeys && nc > 0; k++)
		if (key_event_time(p, k, c, nc, et))
			return;
	memset(et, 0, sizeof *et);
	et->key = et->col = -1;
}
