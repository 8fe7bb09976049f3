/*
 * func_window: window() and session_window(): event-time windows as struct
 * columns (the planner rewrites sliding windows, plan/plan_window.c), and
 * window_time(w), the time a window column stands for (end - 1 us), which
 * window() over a window column uses (chained window aggregations).
 * Rows of the function registry (func.c).
 */
#include "expr/func_int.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "formats/fileformat.h"
#include "core/timeutil.h"
#include "core/utf8.h"

/* ---------------------------------------------------------------- window */

/* Duration argument i of window(): a literal string or INTERVAL. */
static int window_duration(const sl_expr *call, int i, int64_t *us, sl_err *err)
{
	static const char *const what[] = { "", "window duration",
					    "slide duration", "start time" };
	const sl_expr *a = call->args[i];
	const char *s;
	sl_err e2;
	while (a->kind == SL_X_CAST && a->op == 1)
		a = a->args[0];
	if (a->kind == SL_X_LIT && a->op == 1 && !a->lit.null) {
		*us = a->lit.i;
		return 0;
	}
	s = sl_func_lit_str(call, i);
	if (s == NULL)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "window: the %s must be a literal string such as '10 minutes'",
		    what[i]);
	if (sl_duration_parse(s, us, &e2) < 0) {
		sl_err_set(err, SL_EANALYSIS, "window: bad %s: %s", what[i],
			   e2.msg);
		if (e2.hint[0])
			sl_err_hint(err, "%s", e2.hint);
		return SL_EANALYSIS;
	}
	return 0;
}

static int window_all(const sl_expr *call, int64_t d[3], sl_err *err)
{
	int i;
	d[0] = d[1] = d[2] = 0;
	for (i = 1; i < call->nargs; i++)
		if (window_duration(call, i, &d[i - 1], err) < 0)
			return SL_EANALYSIS;
	if (call->nargs < 3)
		d[1] = d[0];
	return 0;
}

int sl_window_params(const sl_expr *e, int64_t *size, int64_t *slide,
		     int64_t *start, sl_err *err)
{
	int64_t d[3];
	if (e->kind != SL_X_CALL || e->fn == NULL ||
	    strcmp(e->name, "window") != 0)
		return sl_err_set(err, SL_EINVAL,
				  "not a resolved window() call");
	if (window_all(e, d, err) < 0)
		return SL_EINVAL;
	*size = d[0];
	*slide = d[1];
	*start = d[2];
	return 0;
}

/* ----------------------------------------------------------- window_time */

/* A window struct: struct<start: timestamp, end: timestamp> (the column
 * window() and session_window() make). */
static bool window_struct(const sl_type *t)
{
	return t != NULL && t->kind == SL_STRUCT && t->nfields == 2 &&
	       t->fields[0].type->kind == SL_TIMESTAMP &&
	       t->fields[1].type->kind == SL_TIMESTAMP &&
	       strcmp(t->fields[0].name, "start") == 0 &&
	       strcmp(t->fields[1].name, "end") == 0;
}

static int res_window_time(sl_expr *call, sl_err *err)
{
	sl_buf a, t;
	if (!window_struct(call->args[0]->rtype)) {
		sl_buf_init(&a);
		sl_buf_init(&t);
		sl_expr_sql(call->args[0], &a);
		sl_type_sql(call->args[0]->rtype, &t);
		sl_err_set(
		    err, SL_EANALYSIS,
		    "window_time: argument 1 requires a window column (struct<start: timestamp, end: timestamp>), however, '%s' is of %s type",
		    sl_buf_cstr(&a), sl_buf_cstr(&t));
		sl_buf_release(&a);
		sl_buf_release(&t);
		return SL_EANALYSIS;
	}
	call->rtype = sl_type_ref(sl_type_prim(SL_TIMESTAMP));
	call->nullable = call->args[0]->nullable;
	return 0;
}

/* Spark's window_time: the window's end - 1 microsecond, the latest time
 * inside the half-open window (so a window of a window holds it). */
static sl_col *ev_window_time(const sl_expr *call, sl_col *const *args,
			      int64_t n, sl_err *err)
{
	const sl_col *w = args[0], *end = w->child[1];
	sl_col *o;
	int64_t i;
	(void)call;
	if ((o = sl_col_new(sl_type_prim(SL_TIMESTAMP), n)) == NULL)
		return sl_func_oom(NULL, err);
	for (i = 0; i < n; i++) {
		if (sl_col_isnull(w, i) || sl_col_isnull(end, i)) {
			if (sl_col_set_null(o, i) < 0)
				return sl_func_oom(o, err);
			continue;
		}
		sl_col_i64(o)[i] = sl_col_i64(end)[i] - 1;
	}
	return o;
}

/* window(w, ...) over a window column w: Spark 3.4+ (TimeWindowing) takes
 * window_time(w) as the time, so windows chain (MultiStatefulOperators).
 * Replaces call->args[0] by a resolved window_time(args[0]) node. */
static int window_of_window(sl_expr *call, sl_err *err)
{
	sl_expr *a = call->args[0], *w;
	if (!window_struct(a->rtype))
		return 0;
	if ((w = sl_expr_call("window_time", &a, 1)) == NULL)
		return sl_err_nomem(err);
	w->fn = sl_func_lookup("window_time");
	w->pos = a->pos;
	call->args[0] = w;
	return res_window_time(w, err);
}

static int res_window(sl_expr *call, sl_err *err)
{
	int64_t d[3];
	sl_type *st;
	sl_buf a, b;
	bool good = false;
	if (window_of_window(call, err) < 0 ||
	    sl_expr_arg_kind(call, 0, SL_TIMESTAMP, err) < 0 ||
	    window_all(call, d, err) < 0)
		return SL_EANALYSIS;
	sl_buf_init(&a);
	sl_buf_init(&b);
	sl_duration_format(d[0], &a);
	sl_duration_format(d[1], &b);
	if (d[0] <= 0)
		sl_err_set(err, SL_EANALYSIS,
			   "the window duration (%s) must be greater than 0",
			   sl_buf_cstr(&a));
	else if (d[1] <= 0)
		sl_err_set(err, SL_EANALYSIS,
			   "the slide duration (%s) must be greater than 0",
			   sl_buf_cstr(&b));
	else if (d[1] > d[0])
		sl_err_set(
		    err, SL_EANALYSIS,
		    "the slide duration (%s) must be less than or equal to the windowDuration (%s)",
		    sl_buf_cstr(&b), sl_buf_cstr(&a));
	else if (d[2] >= d[1] || -d[2] >= d[1])
		sl_err_set(
		    err, SL_EANALYSIS,
		    "the absolute value of start time must be less than the slideDuration (%s)",
		    sl_buf_cstr(&b));
	else
		good = true;
	sl_buf_release(&a);
	sl_buf_release(&b);
	if (!good)
		return SL_EANALYSIS;
	st = sl_type_struct_new(2);
	if (st == NULL ||
	    sl_type_set_field(st, 0, "start", sl_type_prim(SL_TIMESTAMP),
			      true) < 0 ||
	    sl_type_set_field(st, 1, "end", sl_type_prim(SL_TIMESTAMP), true) <
		0) {
		sl_type_free(st);
		return sl_err_nomem(err);
	}
	call->rtype = st;
	call->nullable = call->args[0]->nullable;
	return 0;
}

/* Tumbling windows of ts[0..n) (no NULLs) into st[0..n) and en[0..n):
 * start = ts - floormod(ts - startTime, slide), end = start + size, in
 * one pass.  Event times of a batch are clustered (a rate or file source
 * is in time order; out-of-order data is seconds, not windows, apart), so
 * the window of the previous row is checked first (one unsigned compare,
 * or one for four rows in SSE2) and the division runs only when a row
 * leaves it.  The same pass works
 * out the ends' event-time statistics a run at a time (col.h
 * sl_col_tstats: the watermark and the aggregate's late-row test then
 * read no row of them). */
static void window_cols(const int64_t *ts, int64_t *st, int64_t *en,
			int64_t n, int64_t size, int64_t slide, int64_t offset,
			sl_col_tstats *es)
{
	int64_t i, run = 0, lo, hi;
	int64_t mn = INT64_MAX, mx = INT64_MIN;
	uint64_t sum = 0;
	es->set = false;
	if (n == 0)
		return;
	lo = ts[0] - sl_floormod(ts[0] - offset, slide);
	hi = lo + size;
#define WIN_ROW(I)                                                             \
	do {                                                                   \
		int64_t t = ts[I];                                             \
		if ((uint64_t)t - (uint64_t)lo >= (uint64_t)slide) {           \
			int64_t ms = hi / 1000;                                \
			mn = ms < mn ? ms : mn;                                \
			mx = ms > mx ? ms : mx;                                \
			sum += (uint64_t)ms * (uint64_t)((I) - run);           \
			run = (I);                                             \
			lo = t - sl_floormod(t - offset, slide);               \
			hi = lo + size;                                        \
		}                                                              \
		st[I] = lo;                                                    \
		en[I] = hi;                                                    \
	} while (0)
	i = 0;
#ifdef __SSE2__
	{
		/* four rows a compare: each in [lo, lo + slide) when
		 * d = t - lo has its sign bit clear and d - slide set */
		__m128i vlo = _mm_set1_epi64x(lo), vhi = _mm_set1_epi64x(hi);
		const __m128i vsl = _mm_set1_epi64x(slide);
		for (; i + 4 <= n; i += 4) {
			__m128i d0 = _mm_sub_epi64(
				    _mm_loadu_si128((const __m128i *)(ts + i)),
				    vlo),
				d1 = _mm_sub_epi64(
				    _mm_loadu_si128(
					(const __m128i *)(ts + i + 2)),
				    vlo);
			__m128i in = _mm_and_si128(
			    _mm_andnot_si128(d0, _mm_sub_epi64(d0, vsl)),
			    _mm_andnot_si128(d1, _mm_sub_epi64(d1, vsl)));
			if (_mm_movemask_pd(_mm_castsi128_pd(in)) == 3) {
				_mm_storeu_si128((__m128i *)(st + i), vlo);
				_mm_storeu_si128((__m128i *)(st + i + 2), vlo);
				_mm_storeu_si128((__m128i *)(en + i), vhi);
				_mm_storeu_si128((__m128i *)(en + i + 2), vhi);
				continue;
			}
			WIN_ROW(i);
			WIN_ROW(i + 1);
			WIN_ROW(i + 2);
			WIN_ROW(i + 3);
			vlo = _mm_set1_epi64x(lo);
			vhi = _mm_set1_epi64x(hi);
		}
	}
#endif
	for (; i < n; i++)
		WIN_ROW(i);
#undef WIN_ROW
	hi /= 1000;
	es->min_ms = hi < mn ? hi : mn;
	es->max_ms = hi > mx ? hi : mx;
	es->sum_ms = (int64_t)(sum + (uint64_t)hi * (uint64_t)(n - run));
	es->count = n;
	es->set = true;
}

/* Tumbling windows: the struct<start, end> column in one pass over the
 * timestamps; the duration arguments are literals read from the call node
 * (sl_func_const_arg: they are never materialised as columns). */
static sl_col *ev_window(const sl_expr *call, sl_col *const *args, int64_t n,
			 sl_err *err)
{
	const sl_col *ts = args[0];
	int64_t d[3], i;
	sl_col *o;
	sl_col_tstats es;
	if (window_all(call, d, err) < 0)
		return NULL;
	if (d[1] != d[0]) {
		sl_err_set(err, SL_EANALYSIS,
			   "sliding window() must be expanded by the planner");
		return NULL;
	}
	if ((o = sl_col_new_raw(call->rtype, n)) == NULL)
		return sl_func_oom(NULL, err);
	window_cols(sl_col_i64(ts), sl_col_i64(o->child[0]),
		    sl_col_i64(o->child[1]), n, d[0], d[1], d[2], &es);
	if (ts->nulls == NULL) {
		o->child[1]->tstats = es;
		return o;
	}
	/* NULL rows got a window from their zeroed slot: marked NULL here
	 * (which zeroes them again); no statistics */
	for (i = 0; i < n; i++)
		if (sl_col_isnull(ts, i) &&
		    (sl_col_set_null(o, i) < 0 ||
		     sl_col_set_null(o->child[0], i) < 0 ||
		     sl_col_set_null(o->child[1], i) < 0))
			return sl_func_oom(o, err);
	return o;
}

/* ------------------------------------------------------- session_window */

/* Does e read a column (or is it otherwise not a constant)? */
static bool reads_row(const sl_expr *e)
{
	int i;
	if (e->kind == SL_X_COL || e->kind == SL_X_STAR)
		return true;
	for (i = 0; i < e->nargs; i++)
		if (reads_row(e->args[i]))
			return true;
	return false;
}

/* Spark's DataType name of a kind, as its messages print it. */
static const char *spark_type_name(sl_kind k)
{
	switch (k) {
	case SL_BOOLEAN: return "BooleanType";
	case SL_INT: return "IntegerType";
	case SL_BIGINT: return "LongType";
	case SL_DOUBLE: return "DoubleType";
	case SL_TIMESTAMP: return "TimestampType";
	case SL_BINARY: return "BinaryType";
	case SL_ARRAY: return "ArrayType";
	case SL_STRUCT: return "StructType";
	default: return "StringType";
	}
}

/* session_window(ts, gap): the gap is a literal duration string (0), an
 * expression over the row giving a duration string per row (SPARK-36465:
 * 1, *gap = 0), or a constant that is NULL, not a duration or <= 0 (2,
 * *gap = 0): Spark casts it to an interval (NULL when it does not parse)
 * and its SessionWindowing filter (session end > start) drops every row,
 * so no row has a session.  A row's own session is [ts, ts + gap)
 * (op_session.c merges them per key).  A gap that is not a string is an
 * analysis error, as Spark's sessionWindowGapDurationDataTypeError. */
static int session_gap(const sl_expr *call, int64_t *gap, sl_err *err)
{
	sl_value v;
	sl_err e2;
	int rc;
	sl_kind k = call->args[1]->rtype ? call->args[1]->rtype->kind
					 : SL_NULLTYPE;
	*gap = 0;
	if (k != SL_STRING && k != SL_NULLTYPE)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "Gap duration expression used in session window must be CalendarIntervalType, but got %s",
		    spark_type_name(k));
	if (reads_row(call->args[1]))
		return 1;
	memset(&v, 0, sizeof v);
	sl_err_clear(&e2);
	if (sl_expr_eval_const(call->args[1], &v, &e2) < 0) {
		sl_value_release(&v);
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "session_window: the gap duration must be a literal string such as '5 minutes' or a string Column: %s",
		    e2.msg);
	}
	if (v.null || v.s == NULL) {
		sl_value_release(&v);
		return 2;
	}
	rc = sl_duration_parse(v.s, gap, &e2);
	sl_value_release(&v);
	if (rc < 0 || *gap <= 0) {
		*gap = 0;
		return 2;
	}
	return 0;
}

static int res_session_window(sl_expr *call, sl_err *err)
{
	int64_t gap;
	sl_type *st;
	int dyn;
	if (sl_expr_arg_kind(call, 0, SL_TIMESTAMP, err) < 0 ||
	    (dyn = session_gap(call, &gap, err)) < 0)
		return SL_EANALYSIS;
	st = sl_type_struct_new(2);
	if (st == NULL ||
	    sl_type_set_field(st, 0, "start", sl_type_prim(SL_TIMESTAMP),
			      true) < 0 ||
	    sl_type_set_field(st, 1, "end", sl_type_prim(SL_TIMESTAMP), true) <
		0) {
		sl_type_free(st);
		return sl_err_nomem(err);
	}
	call->rtype = st;
	call->nullable = call->args[0]->nullable || dyn > 0;
	return 0;
}

/* Row i's gap from the gap column g (a duration string): false when it is
 * NULL, not a duration, or <= 0 (Spark drops the row, SPARK-36465). */
static bool row_gap(const sl_col *g, int64_t i, int64_t *gap)
{
	char buf[128];
	sl_str v;
	sl_err e2;
	if (g->type->kind != SL_STRING || sl_col_isnull(g, i))
		return false;
	v = sl_col_str(g)[i];
	if (v.len >= sizeof buf)
		return false;
	memcpy(buf, v.p, v.len);
	buf[v.len] = '\0';
	sl_err_clear(&e2);
	return sl_duration_parse(buf, gap, &e2) == 0 && *gap > 0;
}

static sl_col *ev_session_window(const sl_expr *call, sl_col *const *args,
				 int64_t n, sl_err *err)
{
	int64_t gap, i;
	sl_col *o;
	int dyn = session_gap(call, &gap, err);
	if (dyn < 0 || (o = sl_func_out(call, n, err)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int64_t ts = sl_col_i64(args[0])[i], g = gap;
		bool ok = !sl_col_isnull(args[0], i) && dyn != 2 &&
			  (dyn == 0 || row_gap(args[1], i, &g));
		sl_col_i64(o->child[0])[i] = ok ? ts : 0;
		sl_col_i64(o->child[1])[i] = ok ? ts + g : 0;
		if (!ok && (sl_col_set_null(o, i) < 0 ||
			    sl_col_set_null(o->child[0], i) < 0 ||
			    sl_col_set_null(o->child[1], i) < 0))
			return sl_func_oom(o, err);
	}
	return o;
}

int sl_session_gap(const sl_expr *resolved_call, int64_t *gap, sl_err *err)
{
	return session_gap(resolved_call, gap, err);
}

/* ------------------------------------------------------------ rows */

const sl_func sl_func_window_rows[] = {
	{ "window", 2, 4, SL_FN_SCALAR, res_window, ev_window },
	{ "window_time", 1, 1, SL_FN_SCALAR, res_window_time, ev_window_time },
};
const int sl_func_window_nrows =
    (int)(sizeof sl_func_window_rows / sizeof sl_func_window_rows[0]);

const sl_func sl_func_session_rows[] = {
	{ "session_window", 2, 2, SL_FN_SCALAR, res_session_window,
	  ev_session_window },
};
const int sl_func_session_nrows =
    (int)(sizeof sl_func_session_rows / sizeof sl_func_session_rows[0]);

/* window() and session_window() read their durations from the call node
 * (a dynamic session gap is a column). */
bool sl_func_const_arg(const sl_expr *call, int i)
{
	const sl_func *f = call->fn;
	if (f->eval == ev_session_window)
		return i > 0 && !reads_row(call->args[i]);
	return (f->eval == ev_window && i > 0) ||
	       sl_func_json_const_arg(call, i);
}
