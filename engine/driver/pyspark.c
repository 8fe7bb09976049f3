/*
 * pyspark: a plan and a writer's settings as a PySpark 3.5 program (see
 * pyspark.h).
 *
 * The program is built the way a person writes PySpark: each source is a
 * variable (`rate_stream = (spark.readStream ... .load())`), each chain of
 * one-input transformations is one parenthesised statement with a method
 * a line, a join or a union starts a new chain from the variables of its
 * two sides, and the last chain is `result`.  The body is written first
 * (it learns what the preamble needs: the Kafka package, `datetime`),
 * then the preamble and the body are joined.
 *
 * Expressions in our plans are resolved: column references are indexes
 * into the input, implicit casts are marked (CAST with op 1, invisible in
 * SQL text), and two node kinds hide what the user wrote: a sliding
 * window() is an EXPAND node below whoever used it, its call replaced by
 * a reference to the `window` column; an AGGREGATE's outputs are
 * expressions over its intermediate row (_k0.., _a0..).  `subst` undoes
 * both, rebuilding the expression the user wrote (window(ts, '10
 * minutes', '5 minutes'), sum(amount) / count(amount)), so its SQL text
 * (sl_expr_sql) is what Spark needs and its name (sl_expr_name) is the
 * name Spark will give it.  When that name differs from the column's name
 * in our schema, the output gets an explicit alias.
 *
 * Never prints; only appends to buffers.  Out of memory is remembered in
 * the generator (g->oom) and reported once at the end.
 */
#include "driver/pyspark.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "formats/partition.h"
#include "plan/plan_int.h"
#include "sources/source.h"
#include "core/timeutil.h"

#define KAFKA_PACKAGE  "org.apache.spark:spark-sql-kafka-0-10_2.12:3.5.0"
#define LOCAL_ROWS_MAX 1000

typedef struct gen {
	sl_buf body;
	int nvars, capvars;
	char **vars;
	bool kafka;    /* a Kafka source or sink: the package conf */
	bool datetime; /* timestamps in local rows: import datetime */
	bool oom;
} gen;

/* What an expression is resolved against: the input plan `in`, or for an
 * AGGREGATE's outputs (agg != NULL) its intermediate row. */
typedef struct xctx {
	gen *g;
	const sl_plan *in;
	const sl_plan *agg;
} xctx;

/* ------------------------------------------------------- Python text */

static void py_strn(sl_buf *b, const char *s, size_t n)
{
	size_t i;
	sl_buf_addc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			sl_buf_addc(b, '\\');
			sl_buf_addc(b, (char)c);
		} else if (c == '\n') {
			sl_buf_adds(b, "\\n");
		} else if (c == '\t') {
			sl_buf_adds(b, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			sl_buf_printf(b, "\\x%02x", c);
		} else {
			sl_buf_addc(b, (char)c);
		}
	}
	sl_buf_addc(b, '"');
}

static void py_str(sl_buf *b, const char *s)
{
	py_strn(b, s, strlen(s));
}

static void py_dur(sl_buf *b, int64_t us)
{
	sl_buf t;
	sl_buf_init(&t);
	sl_duration_format(us, &t);
	py_str(b, sl_buf_cstr(&t));
	sl_buf_release(&t);
}

/* The shortest repr that reads back as d, as Python's repr(float). */
static void py_double(sl_buf *b, double d)
{
	char s[40];
	int prec;
	if (isnan(d)) {
		sl_buf_adds(b, "float(\"nan\")");
		return;
	}
	if (isinf(d)) {
		sl_buf_adds(b, d > 0 ? "float(\"inf\")" : "float(\"-inf\")");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, d);
		if (strtod(s, NULL) == d)
			break;
	}
	sl_buf_adds(b, s);
	if (strpbrk(s, ".e") == NULL)
		sl_buf_adds(b, ".0");
}

static bool plain_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* A column name in SQL text: bare or `back-quoted`. */
static void sql_ident(sl_buf *b, const char *s)
{
	if (plain_ident(s)) {
		sl_buf_adds(b, s);
		return;
	}
	sl_buf_addc(b, '`');
	for (; *s; s++) {
		if (*s == '`')
			sl_buf_addc(b, '`');
		sl_buf_addc(b, *s);
	}
	sl_buf_addc(b, '`');
}

/* SQL text without the parentheses around all of it ("(a > 1)" ->
 * "a > 1"), as a person writes it.  Quotes and back-quotes are skipped
 * when matching. */
static void strip_parens(sl_buf *b)
{
	size_t i, n = b->len;
	int depth = 0;
	char q = 0;
	if (n < 2 || b->p[0] != '(' || b->p[n - 1] != ')')
		return;
	for (i = 0; i < n; i++) {
		char c = b->p[i];
		if (q != 0) {
			if (c == '\\' && q == '\'')
				i++;
			else if (c == q)
				q = 0;
		} else if (c == '\'' || c == '`') {
			q = c;
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && --depth == 0 && i + 1 < n) {
			return; /* closes before the end: (a) + (b) */
		}
	}
	memmove(b->p, b->p + 1, n - 2);
	b->len = n - 2;
	b->p[b->len] = '\0';
}

static const char *field_name(const sl_plan *p, int i)
{
	return p->schema->fields[i].name;
}

/* --------------------------------------------- undoing the rewrites */

static sl_expr *subst(const xctx *x, const sl_expr *e);

static bool is_expand_window(const xctx *x, const sl_expr *e)
{
	return x->agg == NULL && x->in != NULL && x->in->kind == SL_P_EXPAND &&
	       e->kind == SL_X_COL && e->idx == x->in->schema->nfields - 1;
}

static sl_expr *dur_lit(int64_t us)
{
	sl_buf t;
	sl_expr *e;
	sl_buf_init(&t);
	sl_duration_format(us, &t);
	e = sl_buf_failed(&t) ? NULL
			      : sl_expr_lit_string(sl_buf_cstr(&t), t.len);
	sl_buf_release(&t);
	return e;
}

/* window(ts, size[, slide[, start]]) of an EXPAND node. */
static sl_expr *window_call(gen *g, const sl_plan *ex)
{
	xctx c = { g, ex->child[0], NULL };
	sl_expr *a[4];
	int n = 2;
	a[0] = subst(&c, ex->exprs[0]);
	a[1] = dur_lit(ex->win_size);
	if (ex->win_slide != ex->win_size || ex->win_start != 0)
		a[n++] = dur_lit(ex->win_slide);
	if (ex->win_start != 0)
		a[n++] = dur_lit(ex->win_start);
	return sl_expr_call("window", a, n);
}

/* The call an AGGREGATE's aggregate j was built from. */
static sl_expr *agg_call(gen *g, const sl_plan *agg, int j)
{
	const sl_aggspec *s = &agg->aggs[j];
	xctx c = { g, agg->child[0], NULL };
	sl_expr *a[8];
	int i, n = 0;
	if (s->count_rows) {
		a[n++] = sl_expr_lit_int(1);
	} else {
		for (i = 0; i < s->nargs && i < 8; i++)
			a[n++] = subst(&c, s->args[i]);
	}
	return s->distinct ? sl_expr_call_distinct(s->fname, a, n)
			   : sl_expr_call(s->fname, a, n);
}

static sl_expr *col_subst(const xctx *x, const sl_expr *e)
{
	if (x->agg != NULL) {
		xctx c = { x->g, x->agg->child[0], NULL };
		if (e->idx < x->agg->nkeys)
			return subst(&c, x->agg->keys[e->idx]);
		return agg_call(x->g, x->agg, e->idx - x->agg->nkeys);
	}
	if (is_expand_window(x, e))
		return window_call(x->g, x->in);
	return sl_expr_ref((sl_expr *)e);
}

/* e as the user wrote it (a new reference); on out of memory the
 * original, with g->oom set. */
static sl_expr *subst(const xctx *x, const sl_expr *e)
{
	sl_expr **a, *r;
	bool changed = false;
	int i;
	if (e->kind == SL_X_COL)
		r = col_subst(x, e);
	else if (e->nargs == 0)
		return sl_expr_ref((sl_expr *)e);
	else if ((a = calloc((size_t)e->nargs, sizeof *a)) == NULL)
		r = NULL;
	else {
		for (i = 0; i < e->nargs; i++) {
			a[i] = subst(x, e->args[i]);
			changed |= a[i] != e->args[i];
		}
		if (changed) {
			r = sl_expr_rebuild(e, a);
		} else {
			for (i = 0; i < e->nargs; i++)
				sl_expr_free(a[i]);
			r = sl_expr_ref((sl_expr *)e);
		}
		free(a);
	}
	if (r == NULL) {
		x->g->oom = true;
		r = sl_expr_ref((sl_expr *)e);
	}
	return r;
}

static void sql_text(const xctx *x, const sl_expr *e, sl_buf *out)
{
	sl_expr *s = subst(x, e);
	sl_expr_sql(s, out);
	sl_expr_free(s);
}

/* Is the name Spark gives e the name `want`? */
static bool spark_names(const xctx *x, const sl_expr *e, const char *want)
{
	sl_expr *s = subst(x, e);
	sl_buf t;
	bool same;
	sl_buf_init(&t);
	sl_expr_name(s, &t);
	same = strcmp(sl_buf_cstr(&t), want) == 0;
	sl_buf_release(&t);
	sl_expr_free(s);
	return same;
}

/* ------------------------------------------------- Python columns */

static void pycol(const xctx *x, const sl_expr *e, sl_buf *o);

static void f_expr(const xctx *x, const sl_expr *e, sl_buf *o)
{
	sl_buf t;
	sl_buf_init(&t);
	sql_text(x, e, &t);
	strip_parens(&t);
	sl_buf_adds(o, "F.expr(");
	py_str(o, sl_buf_cstr(&t));
	sl_buf_addc(o, ')');
	sl_buf_release(&t);
}

static const sl_expr *strip_implicit(const sl_expr *e)
{
	while (e->kind == SL_X_CAST && e->op == 1)
		e = e->args[0];
	return e;
}

static bool is_plain_col(const xctx *x, const sl_expr *e)
{
	return x->agg == NULL && e->kind == SL_X_COL && !is_expand_window(x, e);
}

/* "window.start" for a field path over a plain column, else false. */
static bool field_path(const xctx *x, const sl_expr *e, sl_buf *o)
{
	if (e->kind == SL_X_FIELD && e->nargs == 1 && e->name != NULL &&
	    plain_ident(e->name) &&
	    (is_plain_col(x, e->args[0]) || field_path(x, e->args[0], NULL))) {
		if (o != NULL) {
			sl_buf t;
			sl_buf_init(&t);
			field_path(x, e->args[0], &t);
			sl_buf_printf(&t, ".%s", e->name);
			py_str(o, sl_buf_cstr(&t));
			sl_buf_release(&t);
		}
		return true;
	}
	if (!is_plain_col(x, e) || !plain_ident(field_name(x->in, e->idx)))
		return false;
	if (o != NULL)
		sl_buf_adds(o, field_name(x->in, e->idx));
	return true;
}

/* A function argument: "name" for a plain column, else a Column. */
static void pyarg(const xctx *x, const sl_expr *e, sl_buf *o)
{
	e = strip_implicit(e);
	if (is_plain_col(x, e))
		py_str(o, field_name(x->in, e->idx));
	else if (e->kind == SL_X_FIELD && field_path(x, e, NULL))
		field_path(x, e, o);
	else
		pycol(x, e, o);
}

static void py_window(const xctx *x, const sl_expr *ts, int64_t size,
		      int64_t slide, int64_t start, sl_buf *o)
{
	sl_buf_adds(o, "F.window(");
	pyarg(x, ts, o);
	sl_buf_adds(o, ", ");
	py_dur(o, size);
	if (slide != size || start != 0) {
		sl_buf_adds(o, ", ");
		py_dur(o, slide);
	}
	if (start != 0) {
		sl_buf_adds(o, ", ");
		py_dur(o, start);
	}
	sl_buf_addc(o, ')');
}

static bool py_lit(const sl_expr *e, sl_buf *o)
{
	const sl_type *t = e->type;
	if (e->lit.null || t == NULL || t->kind == SL_NULLTYPE) {
		sl_buf_adds(o, "F.lit(None)");
		return true;
	}
	switch (t->kind) {
	case SL_BOOLEAN:
		sl_buf_adds(o, e->lit.i ? "F.lit(True)" : "F.lit(False)");
		return true;
	case SL_INT:
	case SL_BIGINT:
		if (e->op == 1) /* an interval */
			return false;
		sl_buf_printf(o, "F.lit(%lld)", (long long)e->lit.i);
		return true;
	case SL_DOUBLE:
		if (!isfinite(e->lit.d))
			return false;
		sl_buf_adds(o, "F.lit(");
		py_double(o, e->lit.d);
		sl_buf_addc(o, ')');
		return true;
	case SL_STRING:
		sl_buf_adds(o, "F.lit(");
		py_strn(o, e->lit.s ? e->lit.s : "", e->lit.n);
		sl_buf_addc(o, ')');
		return true;
	default: return false;
	}
}

/* Functions of pyspark.sql.functions taking Columns, with the arguments
 * PySpark wants as Python strings (bit i: argument i must be a string
 * literal). */
static const struct pyfn {
	const char *name;
	int minargs, maxargs;
	unsigned strargs;
} pyfns[] = {
	{ "upper", 1, 1, 0 },
	{ "lower", 1, 1, 0 },
	{ "length", 1, 1, 0 },
	{ "concat", 1, 64, 0 },
	{ "coalesce", 1, 64, 0 },
	{ "to_json", 1, 1, 0 },
	{ "timestamp_seconds", 1, 1, 0 },
	{ "window_time", 1, 1, 0 },
	{ "array", 1, 64, 0 },
	{ "size", 1, 1, 0 },
	{ "element_at", 2, 2, 0 },
	{ "current_timestamp", 0, 0, 0 },
	{ "to_timestamp", 1, 2, 2 },
	{ "to_date", 1, 2, 2 },
	{ "current_date", 0, 0, 0 },
	{ "date_add", 2, 2, 0 },
	{ "date_sub", 2, 2, 0 },
	{ "datediff", 2, 2, 0 },
	{ "date_format", 2, 2, 2 },
	{ "unix_timestamp", 1, 2, 2 },
	{ "from_json", 2, 2, 2 },
	{ "get_json_object", 2, 2, 2 },
	{ "split", 2, 2, 2 },
	{ "trim", 1, 1, 0 },
	{ "abs", 1, 1, 0 },
	{ "sqrt", 1, 1, 0 },
	{ "round", 1, 1, 0 },
};

static bool py_scalar(const xctx *x, const sl_expr *e, sl_buf *o)
{
	size_t k;
	int i;
	for (k = 0; k < sizeof pyfns / sizeof pyfns[0]; k++)
		if (strcmp(pyfns[k].name, e->name) == 0)
			break;
	if (k == sizeof pyfns / sizeof pyfns[0] || e->distinct ||
	    e->nargs < pyfns[k].minargs || e->nargs > pyfns[k].maxargs)
		return false;
	for (i = 0; i < e->nargs; i++) {
		const sl_expr *a = strip_implicit(e->args[i]);
		if ((pyfns[k].strargs >> i & 1) &&
		    (a->kind != SL_X_LIT || a->lit.null || a->type == NULL ||
		     a->type->kind != SL_STRING))
			return false;
	}
	sl_buf_printf(o, "F.%s(", e->name);
	for (i = 0; i < e->nargs; i++) {
		const sl_expr *a = strip_implicit(e->args[i]);
		if (i > 0)
			sl_buf_adds(o, ", ");
		if (pyfns[k].strargs >> i & 1)
			py_strn(o, a->lit.s, a->lit.n);
		else
			pyarg(x, a, o);
	}
	sl_buf_addc(o, ')');
	return true;
}

static bool py_call(const xctx *x, const sl_expr *e, sl_buf *o)
{
	int64_t size, slide, start, gap;
	int rc;
	if (strcmp(e->name, "window") == 0 && e->nargs >= 2 &&
	    sl_window_params(e, &size, &slide, &start, NULL) == 0) {
		py_window(x, e->args[0], size, slide, start, o);
		return true;
	}
	if (strcmp(e->name, "session_window") == 0 && e->nargs == 2 &&
	    (rc = sl_session_gap(e, &gap, NULL)) >= 0) {
		sl_buf_adds(o, "F.session_window(");
		pyarg(x, e->args[0], o);
		sl_buf_adds(o, ", ");
		if (rc > 0) /* a gap per row (SPARK-36465): a Column */
			pycol(x, e->args[1], o);
		else
			py_dur(o, gap);
		sl_buf_addc(o, ')');
		return true;
	}
	return py_scalar(x, e, o);
}

static void pycol(const xctx *x, const sl_expr *e, sl_buf *o)
{
	const sl_expr *a;
	switch (e->kind) {
	case SL_X_ALIAS:
		pycol(x, e->args[0], o);
		sl_buf_adds(o, ".alias(");
		py_str(o, e->name);
		sl_buf_addc(o, ')');
		return;
	case SL_X_CAST:
		if (e->op == 1) {
			pycol(x, e->args[0], o);
			return;
		}
		a = strip_implicit(e->args[0]);
		if (is_plain_col(x, a)) {
			sl_buf t;
			sl_buf_init(&t);
			sl_type_sql(e->type, &t);
			for (size_t i = 0; i < t.len; i++)
				t.p[i] = (char)tolower((unsigned char)t.p[i]);
			sl_buf_adds(o, "F.col(");
			py_str(o, field_name(x->in, a->idx));
			sl_buf_adds(o, ").cast(");
			py_str(o, sl_buf_cstr(&t));
			sl_buf_addc(o, ')');
			sl_buf_release(&t);
			return;
		}
		break;
	case SL_X_COL:
		if (is_expand_window(x, e)) {
			xctx c = { x->g, x->in->child[0], NULL };
			py_window(&c, x->in->exprs[0], x->in->win_size,
				  x->in->win_slide, x->in->win_start, o);
			return;
		}
		if (x->agg == NULL) {
			sl_buf_adds(o, "F.col(");
			py_str(o, field_name(x->in, e->idx));
			sl_buf_addc(o, ')');
			return;
		}
		break;
	case SL_X_FIELD:
		if (field_path(x, e, NULL)) {
			sl_buf_adds(o, "F.col(");
			field_path(x, e, o);
			sl_buf_addc(o, ')');
			return;
		}
		break;
	case SL_X_LIT:
		if (py_lit(e, o))
			return;
		break;
	case SL_X_CALL:
		if (py_call(x, e, o))
			return;
		break;
	default: break;
	}
	f_expr(x, e, o);
}

/* pycol, plus .alias(name) when Spark would name it otherwise. */
static void pycol_named(const xctx *x, const sl_expr *e, const char *name,
			sl_buf *o)
{
	pycol(x, e, o);
	if (!spark_names(x, e, name)) {
		sl_buf_adds(o, ".alias(");
		py_str(o, name);
		sl_buf_addc(o, ')');
	}
}

/* An aggregate j of agg as pyspark.sql.functions. */
static void py_agg(const xctx *x, const sl_plan *agg, int j, sl_buf *o)
{
	static const char *const plain[] = { "count", "sum",  "avg",
					     "mean",  "min",  "max",
					     "first", "last", "collect_list",
					     NULL };
	const sl_aggspec *s = &agg->aggs[j];
	xctx c = { x->g, agg->child[0], NULL };
	const char *f = s->fname;
	int i;
	if (s->count_rows) {
		sl_buf_adds(o, "F.count(F.lit(1))");
		return;
	}
	if (s->nargs >= 1 && s->distinct &&
	    (strcmp(f, "count") == 0 || strcmp(f, "count_distinct") == 0)) {
		sl_buf_adds(o, "F.count_distinct(");
		for (i = 0; i < s->nargs; i++) {
			if (i > 0)
				sl_buf_adds(o, ", ");
			pyarg(&c, s->args[i], o);
		}
		sl_buf_addc(o, ')');
		return;
	}
	if (s->distinct)
		f = s->nargs == 1 && strcmp(f, "sum") == 0 ? "sum_distinct"
							   : NULL;
	else if (strcmp(f, "approx_count_distinct") != 0) {
		for (i = 0; plain[i] != NULL; i++)
			if (strcmp(f, plain[i]) == 0)
				break;
		if (plain[i] == NULL)
			f = NULL;
	}
	if (f != NULL && s->nargs == 1) {
		sl_buf_printf(o, "F.%s(", f);
		pyarg(&c, s->args[0], o);
		if (strcmp(f, "approx_count_distinct") == 0 && s->rsd > 0 &&
		    s->rsd != 0.05) {
			sl_buf_adds(o, ", rsd=");
			py_double(o, s->rsd);
		}
		sl_buf_addc(o, ')');
		return;
	}
	{
		sl_expr *call = agg_call(x->g, agg, j);
		sl_buf t;
		sl_buf_init(&t);
		if (call != NULL)
			sl_expr_sql(call, &t);
		else
			x->g->oom = true;
		sl_buf_adds(o, "F.expr(");
		py_str(o, sl_buf_cstr(&t));
		sl_buf_addc(o, ')');
		sl_buf_release(&t);
		sl_expr_free(call);
	}
}

/* ------------------------------------------------ method lines */

/* The arguments of one method call, laid out on one line when short. */
typedef struct args {
	int n, cap;
	char **v;
} args;

static void args_add(gen *g, args *a, sl_buf *b)
{
	char *s = sl_buf_failed(b) ? NULL : sl_buf_detach(b);
	sl_buf_release(b);
	if (s == NULL) {
		g->oom = true;
		return;
	}
	if (a->n == a->cap) {
		int cap = a->cap ? 2 * a->cap : 8;
		char **v = realloc(a->v, (size_t)cap * sizeof *v);
		if (v == NULL) {
			free(s);
			g->oom = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = s;
}

static void args_add_str(gen *g, args *a, const char *s)
{
	sl_buf b;
	sl_buf_init(&b);
	py_str(&b, s);
	args_add(g, a, &b);
}

/* "    .name(a, b)" or one argument a line when long; frees a. */
static void method(gen *g, const char *name, args *a)
{
	size_t len = strlen(name) + 6;
	int i;
	for (i = 0; i < a->n; i++)
		len += strlen(a->v[i]) + 2;
	sl_buf_printf(&g->body, "    .%s(", name);
	for (i = 0; i < a->n; i++) {
		if (len > 79)
			sl_buf_printf(&g->body, "\n        %s,", a->v[i]);
		else
			sl_buf_printf(&g->body, "%s%s", i ? ", " : "", a->v[i]);
		free(a->v[i]);
	}
	sl_buf_adds(&g->body, len > 79 && a->n > 0 ? "\n    )\n" : ")\n");
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* ------------------------------------------------ transformations */

static int visible(const sl_plan *in)
{
	return in->schema->nfields - (in->kind == SL_P_EXPAND);
}

static bool is_gen_out(const sl_plan *p, int k)
{
	return p->gen_at >= 0 &&
	       (k == p->gen_at || (p->gen_pos && k == p->gen_at + 1));
}

/* Output k of a PROJECT: the input column it passes on, or -1. */
static int pass_src(const sl_plan *p, int k)
{
	const sl_expr *e = p->exprs[k];
	int src;
	if (is_gen_out(p, k))
		return -1;
	if (e == NULL) {
		src = p->src[k];
	} else {
		while (e->kind == SL_X_ALIAS)
			e = e->args[0];
		if (e->kind != SL_X_COL)
			return -1;
		src = e->idx;
	}
	return src < visible(p->child[0]) ? src : -1;
}

/* The expression of output k (a new reference). */
static sl_expr *out_expr(gen *g, const sl_plan *p, int k)
{
	sl_expr *e;
	if (p->exprs[k] != NULL)
		return sl_expr_ref(p->exprs[k]);
	e = sl_plan_colref(p->child[0]->schema, p->src[k], NULL);
	if (e == NULL)
		g->oom = true;
	return e;
}

static void select_expr(gen *g, const sl_plan *p)
{
	xctx x = { g, p->child[0], NULL };
	args a = { 0, 0, NULL };
	int n = p->schema->nfields, k;
	for (k = 0; k < n; k++) {
		sl_buf t, s;
		sl_expr *e;
		sl_buf_init(&t);
		if (k == p->gen_at) {
			sl_buf_adds(&t, p->gen_sql);
			if (p->gen_pos)
				sl_buf_printf(&t, " AS (%s, %s)",
					      field_name(p, k),
					      field_name(p, k + 1));
			else if (strcmp(field_name(p, k), "col") != 0)
				sl_buf_printf(&t, " AS %s", field_name(p, k));
		} else if (is_gen_out(p, k)) {
			sl_buf_release(&t);
			continue;
		} else if ((e = out_expr(g, p, k)) != NULL) {
			const sl_expr *body = e;
			while (body->kind == SL_X_ALIAS)
				body = body->args[0];
			sql_text(&x, body, &t);
			strip_parens(&t);
			if (!spark_names(&x, body, field_name(p, k))) {
				sl_buf_adds(&t, " AS ");
				sql_ident(&t, field_name(p, k));
			}
			sl_expr_free(e);
		}
		sl_buf_init(&s);
		py_str(&s, sl_buf_cstr(&t));
		sl_buf_release(&t);
		args_add(g, &a, &s);
	}
	method(g, "selectExpr", &a);
}

/* withColumn(name, col): every input column kept in place but one
 * replaced, or one appended.  Returns false when p is not that. */
static bool with_column(gen *g, const sl_plan *p, const int *src)
{
	const sl_plan *in = p->child[0];
	int n = p->schema->nfields, nv = visible(in), k, odd = -1;
	xctx x = { g, in, NULL };
	args a = { 0, 0, NULL };
	sl_buf b;
	const sl_expr *e;
	if ((n != nv && n != nv + 1) || p->gen_at >= 0)
		return false;
	for (k = 0; k < n; k++) {
		if (k < nv && src[k] == k &&
		    strcmp(field_name(p, k), field_name(in, k)) == 0)
			continue;
		if (odd >= 0 || p->exprs[k] == NULL ||
		    (k < nv &&
		     strcmp(field_name(p, k), field_name(in, k)) != 0))
			return false;
		odd = k;
	}
	if (odd < 0)
		return false;
	e = p->exprs[odd];
	while (e->kind == SL_X_ALIAS)
		e = e->args[0];
	args_add_str(g, &a, field_name(p, odd));
	sl_buf_init(&b);
	pycol(&x, e, &b);
	args_add(g, &a, &b);
	method(g, "withColumn", &a);
	return true;
}

/* Only plain columns: withColumnRenamed, drop or select. */
static void pass_columns(gen *g, const sl_plan *p, const int *src)
{
	const sl_plan *in = p->child[0];
	int n = p->schema->nfields, nv = visible(in), k, j;
	bool same = n == nv, renamed = false, increasing = true;
	args a = { 0, 0, NULL };
	for (k = 0; k < n; k++) {
		same &= src[k] == k;
		renamed |=
		    strcmp(field_name(p, k), field_name(in, src[k])) != 0;
		increasing &= k == 0 || src[k] > src[k - 1];
	}
	if (same) {
		for (k = 0; k < n; k++) {
			if (strcmp(field_name(p, k), field_name(in, k)) == 0)
				continue;
			args_add_str(g, &a, field_name(in, k));
			args_add_str(g, &a, field_name(p, k));
			method(g, "withColumnRenamed", &a);
		}
		return;
	}
	if (!renamed && increasing) {
		for (j = 0, k = 0; j < nv; j++) {
			if (k < n && src[k] == j)
				k++;
			else
				args_add_str(g, &a, field_name(in, j));
		}
		method(g, "drop", &a);
		return;
	}
	for (k = 0; k < n; k++) {
		sl_buf b;
		sl_buf_init(&b);
		if (strcmp(field_name(p, k), field_name(in, src[k])) == 0) {
			py_str(&b, field_name(p, k));
		} else {
			sl_buf_adds(&b, "F.col(");
			py_str(&b, field_name(in, src[k]));
			sl_buf_adds(&b, ").alias(");
			py_str(&b, field_name(p, k));
			sl_buf_addc(&b, ')');
		}
		args_add(g, &a, &b);
	}
	method(g, "select", &a);
}

static void project(gen *g, const sl_plan *p)
{
	int n = p->schema->nfields, k;
	int *src = calloc((size_t)n + 1, sizeof *src);
	bool all_pass = true;
	if (src == NULL) {
		g->oom = true;
		return;
	}
	for (k = 0; k < n; k++)
		all_pass &= (src[k] = pass_src(p, k)) >= 0;
	if (all_pass)
		pass_columns(g, p, src);
	else if (!with_column(g, p, src))
		select_expr(g, p);
	free(src);
}

static void aggregate(gen *g, const sl_plan *p)
{
	xctx c = { g, p->child[0], NULL }, x = { g, p->child[0], p };
	args a = { 0, 0, NULL };
	int k;
	for (k = 0; k < p->nkeys; k++) {
		const sl_expr *e = strip_implicit(p->keys[k]);
		sl_buf b;
		sl_buf_init(&b);
		if (is_plain_col(&c, e) &&
		    strcmp(field_name(c.in, e->idx), field_name(p, k)) == 0)
			py_str(&b, field_name(p, k));
		else
			pycol_named(&c, p->keys[k], field_name(p, k), &b);
		args_add(g, &a, &b);
	}
	if (p->nkeys > 0)
		method(g, "groupBy", &a);
	for (k = p->nkeys; k < p->npost; k++) {
		const sl_expr *e = p->post[k];
		sl_buf b;
		sl_buf_init(&b);
		if (e->kind == SL_X_COL && e->idx >= p->nkeys)
			py_agg(&x, p, e->idx - p->nkeys, &b);
		else if (e->kind == SL_X_COL)
			pycol(&c, p->keys[e->idx], &b);
		else
			f_expr(&x, e, &b);
		if (!spark_names(&x, e, field_name(p, k))) {
			sl_buf_adds(&b, ".alias(");
			py_str(&b, field_name(p, k));
			sl_buf_addc(&b, ')');
		}
		args_add(g, &a, &b);
	}
	if (a.n == 0) /* groupBy(keys) with nothing to compute: the groups */
		args_add_str(g, &a, "*");
	method(g, a.n == 1 && strcmp(a.v[0], "\"*\"") == 0 ? "select" : "agg",
	       &a);
}

static void sort(gen *g, const sl_plan *p)
{
	xctx c = { g, p->child[0], NULL };
	args a = { 0, 0, NULL };
	int k;
	for (k = 0; k < p->nsort; k++) {
		const sl_expr *e = strip_implicit(p->sort_keys[k]);
		int f = p->sort_flags[k];
		sl_buf b;
		sl_buf_init(&b);
		if (!(f & SL_SORT_DESC) && !(f & SL_SORT_NULLS_LAST) &&
		    is_plain_col(&c, e)) {
			py_str(&b, field_name(c.in, e->idx));
			args_add(g, &a, &b);
			continue;
		}
		pycol(&c, e, &b);
		if (f & SL_SORT_DESC)
			sl_buf_adds(&b, f & SL_SORT_NULLS_FIRST
					    ? ".desc_nulls_first()"
					    : ".desc()");
		else
			sl_buf_adds(&b, f & SL_SORT_NULLS_LAST
					    ? ".asc_nulls_last()"
					    : ".asc()");
		args_add(g, &a, &b);
	}
	method(g, "orderBy", &a);
}

static void dedup(gen *g, const sl_plan *p)
{
	const sl_plan *in = p->child[0];
	bool all = p->ndedup == visible(in);
	args a = { 0, 0, NULL };
	sl_buf b;
	int k;
	for (k = 0; k < p->ndedup; k++)
		all &= p->dedup_cols[k] == k;
	if (!all) {
		sl_buf_init(&b);
		sl_buf_addc(&b, '[');
		for (k = 0; k < p->ndedup; k++) {
			if (k > 0)
				sl_buf_adds(&b, ", ");
			py_str(&b, field_name(in, p->dedup_cols[k]));
		}
		sl_buf_addc(&b, ']');
		args_add(g, &a, &b);
	}
	method(g,
	       p->within_wm ? "dropDuplicatesWithinWatermark"
			    : "dropDuplicates",
	       &a);
}

/* One method line (or two: groupBy + agg) for a one-input node. */
static void node_lines(gen *g, const sl_plan *p)
{
	xctx c = { g, p->nchild > 0 ? p->child[0] : NULL, NULL };
	args a = { 0, 0, NULL };
	sl_buf b;
	switch (p->kind) {
	case SL_P_PROJECT: project(g, p); break;
	case SL_P_FILTER:
		if (p->pushed) /* the join's optimizer made it, not the user */
			break;
		sl_buf_init(&b);
		sl_expr_sql(p->cond, &b); /* over c.in: no rewrite to undo */
		strip_parens(&b);
		{
			sl_buf q;
			sl_buf_init(&q);
			py_str(&q, sl_buf_cstr(&b));
			args_add(g, &a, &q);
		}
		sl_buf_release(&b);
		if (c.in->kind == SL_P_EXPAND) { /* not built by filter() */
			free(a.v[0]);
			a.n = 0;
			sl_buf_init(&b);
			f_expr(&c, p->cond, &b);
			args_add(g, &a, &b);
		}
		method(g, "filter", &a);
		break;
	case SL_P_AGGREGATE: aggregate(g, p); break;
	case SL_P_SORT: sort(g, p); break;
	case SL_P_LIMIT:
		sl_buf_init(&b);
		sl_buf_printf(&b, "%lld", (long long)p->limit);
		args_add(g, &a, &b);
		method(g, "limit", &a);
		break;
	case SL_P_DEDUP: dedup(g, p); break;
	case SL_P_WATERMARK:
		args_add_str(g, &a, field_name(p, p->wm_col));
		sl_buf_init(&b);
		py_dur(&b, p->wm_delay_us);
		args_add(g, &a, &b);
		method(g, "withWatermark", &a);
		break;
	default: /* EXPAND: its window() is written where it is used */ break;
	}
}

/* ------------------------------------------------ sources */

static const char *new_var(gen *g, const char *base)
{
	char name[80];
	int i, k = 1;
	for (;;) {
		if (k == 1)
			snprintf(name, sizeof name, "%s", base);
		else
			snprintf(name, sizeof name, "%s_%d", base, k);
		for (i = 0; i < g->nvars; i++)
			if (strcmp(g->vars[i], name) == 0)
				break;
		if (i == g->nvars)
			break;
		k++;
	}
	if (g->nvars == g->capvars) {
		int cap = g->capvars ? 2 * g->capvars : 8;
		char **v = realloc(g->vars, (size_t)cap * sizeof *v);
		if (v == NULL) {
			g->oom = true;
			return "df";
		}
		g->vars = v;
		g->capvars = cap;
	}
	if ((g->vars[g->nvars] = strdup(name)) == NULL) {
		g->oom = true;
		return "df";
	}
	return g->vars[g->nvars++];
}

static void ddl_line(gen *g, const sl_type *schema)
{
	sl_buf t;
	sl_buf_init(&t);
	sl_type_ddl(schema, &t);
	sl_buf_adds(&g->body, "    .schema(");
	py_str(&g->body, sl_buf_cstr(&t));
	sl_buf_adds(&g->body, ")\n");
	sl_buf_release(&t);
}

static void option_line(gen *g, const char *k, const char *v)
{
	sl_buf_adds(&g->body, "    .option(");
	py_str(&g->body, k);
	sl_buf_adds(&g->body, ", ");
	py_str(&g->body, v);
	sl_buf_adds(&g->body, ")\n");
}

/* kafka.bootstrap.servers: absent or "embedded" meant streamlab's
 * in-process cluster; Spark needs brokers. */
static bool kafka_embedded(const sl_options *o)
{
	const char *v = o ? sl_options_get(o, "kafka.bootstrap.servers") : NULL;
	return v == NULL || strcasecmp(v, "embedded") == 0;
}

static void kafka_bootstrap(gen *g)
{
	sl_buf_adds(&g->body,
		    "    # TODO: your Kafka brokers (streamlab used its "
		    "embedded cluster)\n");
	option_line(g, "kafka.bootstrap.servers", "localhost:9092");
}

static const char *stream_source(gen *g, const sl_plan *p)
{
	const sl_source_desc *d = p->desc;
	const char *fmt = sl_source_desc_format(d);
	const char *path = sl_source_desc_path(d);
	const sl_options *o = sl_source_desc_options(d);
	bool kafka = strcmp(fmt, "kafka") == 0;
	const char *var;
	char base[64];
	int i;
	if (strcmp(fmt, "memory") == 0) {
		var = new_var(g, "memory_stream");
		sl_buf_adds(&g->body,
			    "# streamlab's spark.memoryStream has no Spark "
			    "equivalent outside Spark's own\n"
			    "# tests (MemoryStream).  TODO: read your real "
			    "source here (Kafka, files, ...).\n"
			    "# This stand-in reads JSON files with the same "
			    "schema from a directory:\n"
			    "# write one file per addData, one JSON object a "
			    "line.\n");
		sl_buf_printf(&g->body,
			      "%s = (\n    spark.readStream\n"
			      "    .format(\"json\")\n",
			      var);
		ddl_line(g, sl_source_desc_schema(d));
		sl_buf_printf(&g->body,
			      "    .load(\"/tmp/streamlab/input/%s\")\n"
			      ")\n\n",
			      var);
		return var;
	}
	snprintf(base, sizeof base, "%s_stream", fmt);
	var = new_var(g, base);
	sl_buf_printf(&g->body, "%s = (\n    spark.readStream\n    .format(",
		      var);
	py_str(&g->body, fmt);
	sl_buf_adds(&g->body, ")\n");
	/* Spark's file sources need the schema (unless schemaInference) */
	if (strcmp(fmt, "json") == 0 || strcmp(fmt, "csv") == 0 ||
	    strcmp(fmt, "parquet") == 0)
		ddl_line(g, sl_source_desc_schema(d));
	if (kafka) {
		g->kafka = true;
		if (kafka_embedded(o))
			kafka_bootstrap(g);
	}
	for (i = 0; o != NULL && i < o->n; i++) {
		if ((path != NULL && strcmp(o->keys[i], "path") == 0) ||
		    (kafka &&
		     strcmp(o->keys[i], "kafka.bootstrap.servers") == 0 &&
		     kafka_embedded(o)))
			continue;
		option_line(g, o->keys[i], o->vals[i]);
	}
	sl_buf_adds(&g->body, "    .load(");
	if (path != NULL)
		py_str(&g->body, path);
	sl_buf_adds(&g->body, ")\n)\n\n");
	return var;
}

static void py_value(gen *g, const sl_col *c, int64_t i, sl_buf *o);

static void py_timestamp(gen *g, int64_t us, sl_buf *o)
{
	int64_t s = us / 1000000, f = us % 1000000;
	time_t t;
	struct tm tm;
	if (f < 0) {
		f += 1000000;
		s--;
	}
	t = (time_t)s;
	gmtime_r(&t, &tm);
	g->datetime = true;
	sl_buf_printf(o, "datetime.datetime(%d, %d, %d, %d, %d, %d",
		      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		      tm.tm_min, tm.tm_sec);
	if (f != 0)
		sl_buf_printf(o, ", %lld", (long long)f);
	sl_buf_adds(o, ", tzinfo=UTC)");
}

static void py_value(gen *g, const sl_col *c, int64_t i, sl_buf *o)
{
	int64_t j;
	int k;
	if (sl_col_isnull(c, i) || c->type->kind == SL_NULLTYPE) {
		sl_buf_adds(o, "None");
		return;
	}
	switch (c->type->kind) {
	case SL_BOOLEAN:
		sl_buf_adds(o, sl_col_u8(c)[i] ? "True" : "False");
		break;
	case SL_INT: sl_buf_printf(o, "%d", (int)sl_col_i32(c)[i]); break;
	case SL_BIGINT:
		sl_buf_printf(o, "%lld", (long long)sl_col_i64(c)[i]);
		break;
	case SL_DOUBLE: py_double(o, sl_col_f64(c)[i]); break;
	case SL_TIMESTAMP: py_timestamp(g, sl_col_i64(c)[i], o); break;
	case SL_DATE: {
		int64_t y;
		int mo, d;
		sl_civil_from_days(sl_col_i32(c)[i], &y, &mo, &d);
		g->datetime = true;
		sl_buf_printf(o, "datetime.date(%lld, %d, %d)", (long long)y, mo,
			      d);
		break;
	}
	case SL_BINARY:
		sl_buf_adds(o, "bytearray(");
		sl_buf_addc(o, 'b');
		py_strn(o, sl_col_str(c)[i].p, sl_col_str(c)[i].len);
		sl_buf_addc(o, ')');
		break;
	case SL_ARRAY:
		sl_buf_addc(o, '[');
		for (j = c->offsets[i]; j < c->offsets[i + 1]; j++) {
			if (j > c->offsets[i])
				sl_buf_adds(o, ", ");
			py_value(g, c->child[0], j, o);
		}
		sl_buf_addc(o, ']');
		break;
	case SL_STRUCT:
		sl_buf_addc(o, '(');
		for (k = 0; k < c->nchild; k++) {
			py_value(g, c->child[k], i, o);
			sl_buf_adds(o, c->nchild == 1      ? ","
				       : k + 1 < c->nchild ? ", "
							   : "");
		}
		sl_buf_addc(o, ')');
		break;
	default: py_strn(o, sl_col_str(c)[i].p, sl_col_str(c)[i].len); break;
	}
}

/* A LOCAL read from a source that is not a file: Spark 4.0's state
 * data source (spark.read.format("statestore") / "state-metadata"),
 * experimental in Spark 4.0 and absent from 3.5. */
static const char *source_read(gen *g, const sl_plan *p)
{
	const char *var = new_var(g, "state_df");
	int i;
	sl_buf_adds(&g->body, "# Spark 4.0's state data source (experimental "
			      "there; not in Spark 3.5)\n");
	sl_buf_printf(&g->body, "%s = (\n    spark.read.format(", var);
	py_str(&g->body, p->format);
	sl_buf_adds(&g->body, ")\n");
	for (i = 0; i < p->src_opts.n; i++) {
		sl_buf_adds(&g->body, "    .option(");
		py_str(&g->body, p->src_opts.keys[i]);
		sl_buf_adds(&g->body, ", ");
		py_str(&g->body, p->src_opts.vals[i]);
		sl_buf_adds(&g->body, ")\n");
	}
	sl_buf_adds(&g->body, "    .load(");
	py_str(&g->body, p->path);
	sl_buf_adds(&g->body, ")\n)\n\n");
	return var;
}

static const char *local_rows(gen *g, const sl_plan *p)
{
	const char *var;
	int64_t shown = 0, total = 0, i;
	int b, k;
	sl_buf t;
	if (p->format != NULL && p->path != NULL)
		return source_read(g, p);
	if (p->is_range) {
		var = new_var(g, "range_df");
		sl_buf_printf(&g->body, "%s = spark.range(%lld, %lld, %lld)\n\n",
			      var, (long long)p->range[0],
			      (long long)p->range[1], (long long)p->range[2]);
		return var;
	}
	var = new_var(g, "static_df");
	for (b = 0; b < p->nbatches; b++)
		total += p->batches[b]->nrows;
	if (total > LOCAL_ROWS_MAX)
		sl_buf_printf(&g->body,
			      "# TODO: streamlab had %lld rows here; the first "
			      "%d follow: load the rest from a file\n",
			      (long long)total, LOCAL_ROWS_MAX);
	sl_buf_printf(&g->body, "%s = spark.createDataFrame(\n    [\n", var);
	for (b = 0; b < p->nbatches && shown < LOCAL_ROWS_MAX; b++) {
		const sl_batch *bt = p->batches[b];
		for (i = 0; i < bt->nrows && shown < LOCAL_ROWS_MAX;
		     i++, shown++) {
			sl_buf_adds(&g->body, "        (");
			for (k = 0; k < bt->ncols; k++) {
				py_value(g, bt->cols[k], i, &g->body);
				sl_buf_adds(&g->body, bt->ncols == 1      ? ","
						      : k + 1 < bt->ncols ? ", "
									  : "");
			}
			sl_buf_adds(&g->body, "),\n");
		}
	}
	sl_buf_init(&t);
	sl_type_ddl(p->schema, &t);
	sl_buf_adds(&g->body, "    ],\n    ");
	py_str(&g->body, sl_buf_cstr(&t));
	sl_buf_adds(&g->body, ",\n)\n\n");
	sl_buf_release(&t);
	return var;
}

static const char *file_read(gen *g, const sl_plan *p)
{
	char base[64];
	const char *var;
	snprintf(base, sizeof base, "%s_df", p->format ? p->format : "file");
	var = new_var(g, base);
	if (p->format != NULL && strcmp(p->format, "csv") == 0)
		sl_buf_adds(&g->body, "# TODO: add the reader options you used "
				      "(e.g. .option(\"header\", \"true\"))\n");
	sl_buf_printf(&g->body, "%s = (\n    spark.read\n    .format(", var);
	py_str(&g->body, p->format ? p->format : "json");
	sl_buf_adds(&g->body, ")\n");
	if (p->format == NULL || strcmp(p->format, "text") != 0)
		ddl_line(g, p->schema);
	sl_buf_adds(&g->body, "    .load(");
	py_str(&g->body, p->path ? p->path : "");
	sl_buf_adds(&g->body, ")\n)\n\n");
	return var;
}

/* ------------------------------------------------ chains */

static const char *emit_df(gen *g, const sl_plan *p, const char *want);

static const char *jhow(sl_join_type t)
{
	switch (t) {
	case SL_JOIN_LEFT: return "left";
	case SL_JOIN_RIGHT: return "right";
	case SL_JOIN_FULL: return "full";
	case SL_JOIN_SEMI: return "left_semi";
	case SL_JOIN_ANTI: return "left_anti";
	case SL_JOIN_CROSS: return "cross";
	default: return "inner";
	}
}

/* One side of an equi-join key: left["a"], else F.expr(...). */
static void join_key(gen *g, const sl_plan *side, const char *var,
		     const sl_expr *e, sl_buf *o)
{
	xctx c = { g, side, NULL };
	e = strip_implicit(e);
	if (is_plain_col(&c, e)) {
		sl_buf_printf(o, "%s[", var);
		py_str(o, field_name(side, e->idx));
		sl_buf_addc(o, ']');
	} else {
		f_expr(&c, e, o);
	}
}

static void join_base(gen *g, const sl_plan *p, const char *l, const char *r)
{
	int k, n = 0;
	if (p->using_cols) {
		sl_buf_printf(&g->body, "    %s.join(%s, [", l, r);
		for (k = 0; k < p->njkeys; k++) {
			if (k > 0)
				sl_buf_adds(&g->body, ", ");
			py_str(&g->body,
			       field_name(p->child[0],
					  strip_implicit(p->lkeys[k])->idx));
		}
		sl_buf_printf(&g->body, "], \"%s\")\n", jhow(p->jtype));
		return;
	}
	if (p->njkeys == 0 && p->residual == NULL) {
		sl_buf_printf(&g->body, "    %s.crossJoin(%s)\n", l, r);
		return;
	}
	sl_buf_printf(&g->body, "    %s.join(\n        %s,\n        ", l, r);
	for (k = 0; k < p->njkeys; k++, n++) {
		if (n > 0)
			sl_buf_adds(&g->body, "\n        & ");
		sl_buf_addc(&g->body, '(');
		join_key(g, p->child[0], l, p->lkeys[k], &g->body);
		sl_buf_adds(&g->body, " == ");
		join_key(g, p->child[1], r, p->rkeys[k], &g->body);
		sl_buf_addc(&g->body, ')');
	}
	if (p->residual != NULL) { /* over left ++ right: no rewrite */
		sl_buf t;
		if (n > 0)
			sl_buf_adds(&g->body, "\n        & ");
		sl_buf_init(&t);
		sl_expr_sql(p->residual, &t);
		strip_parens(&t);
		sl_buf_adds(&g->body, "F.expr(");
		py_str(&g->body, sl_buf_cstr(&t));
		sl_buf_addc(&g->body, ')');
		sl_buf_release(&t);
	}
	sl_buf_printf(&g->body, ",\n        \"%s\",\n    )\n", jhow(p->jtype));
}

static bool is_leaf(const sl_plan *p)
{
	return p->nchild == 0;
}

/* A plan spark.sql built: each catalog view it read as a DataFrame
 * registered under its name (a global temp view with
 * createOrReplaceGlobalTempView), then spark.sql with the same text. */
static const char *sql_df(gen *g, const sl_plan *p, const char *want)
{
	const sl_plan_sql *o = p->sql;
	const char *var;
	int i;
	for (i = 0; i < o->nviews; i++) {
		const char *name = o->names[i];
		bool global = strncasecmp(name, "global_temp.", 12) == 0;
		char base[64];
		size_t k;
		snprintf(base, sizeof base, "%s_view", global ? name + 12 : name);
		for (k = 0; base[k]; k++)
			if (!isalnum((unsigned char)base[k]))
				base[k] = '_';
		var = emit_df(g, o->plans[i], base);
		sl_buf_printf(&g->body, "%s.createOrReplace%sTempView(", var,
			      global ? "Global" : "");
		py_str(&g->body, global ? name + 12 : name);
		sl_buf_adds(&g->body, ")\n\n");
	}
	var = new_var(g, want);
	sl_buf_printf(&g->body, "%s = spark.sql(", var);
	py_str(&g->body, o->text);
	sl_buf_adds(&g->body, ")\n\n");
	return var;
}

/* p's DataFrame in a variable (named `want` when it needs a new one). */
static const char *emit_df(gen *g, const sl_plan *p, const char *want)
{
	const sl_plan *chain[256], *base = p;
	const char *l, *r, *var;
	int n = 0;
	if (p->sql != NULL)
		return sql_df(g, p, want);
	while (!is_leaf(base) && base->nchild == 1 && base->sql == NULL &&
	       n < 256) {
		chain[n++] = base;
		base = base->child[0];
	}
	if (base->sql != NULL || is_leaf(base)) {
		var = base->sql != NULL		       ? sql_df(g, base, "sql_df")
		      : base->kind == SL_P_STREAM_SOURCE ? stream_source(g, base)
		      : base->kind == SL_P_LOCAL       ? local_rows(g, base)
						       : file_read(g, base);
		if (n == 0)
			return var;
		l = var;
		var = new_var(g, want);
		sl_buf_printf(&g->body, "%s = (\n    %s\n", var, l);
	} else {
		l = emit_df(g, base->child[0], "left");
		r = emit_df(g, base->child[1], "right");
		var = new_var(g, want);
		sl_buf_printf(&g->body, "%s = (\n", var);
		if (base->kind == SL_P_JOIN)
			join_base(g, base, l, r);
		else
			sl_buf_printf(&g->body, "    %s.union(%s)\n", l, r);
	}
	while (n-- > 0)
		node_lines(g, chain[n]);
	sl_buf_adds(&g->body, ")\n\n");
	return var;
}

/* ------------------------------------------------ the program */

static const struct conf_default {
	const char *key, *def;
} confs_exported[] = {
	{ "spark.sql.streaming.multipleWatermarkPolicy", "min" },
	{ "spark.sql.streaming.statefulOperator.allowMultiple", "true" },
	{ "spark.sql.streaming.noDataMicroBatches.enabled", "true" },
	{ "spark.sql.streaming.minBatchesToRetain", "100" },
	{ "spark.sql.shuffle.partitions", "200" },
	{ "spark.sql.streaming.schemaInference", "false" },
};

static void preamble(gen *g, sl_session *s, const char *app, sl_buf *out)
{
	size_t i;
	sl_buf_adds(out, "# The same query on Apache Spark 3.5 (exported by "
			 "streamlab).\n# Run it with:\n");
	if (g->kafka)
		sl_buf_adds(out, "#   spark-submit --packages " KAFKA_PACKAGE
				 " query.py\n");
	else
		sl_buf_adds(out, "#   spark-submit query.py\n");
	if (g->datetime)
		sl_buf_adds(out, "import datetime\n\n");
	sl_buf_adds(out, "from pyspark.sql import SparkSession, functions as "
			 "F, types as T\n\n");
	if (g->datetime)
		sl_buf_adds(out, "UTC = datetime.timezone.utc\n\n");
	sl_buf_adds(out, "spark = (\n    SparkSession.builder\n    .appName(");
	py_str(out, app);
	sl_buf_adds(out,
		    ")\n    # streamlab computes in UTC\n"
		    "    .config(\"spark.sql.session.timeZone\", \"UTC\")\n");
	if (g->kafka)
		sl_buf_adds(
		    out, "    .config(\"spark.jars.packages\", \"" KAFKA_PACKAGE
			 "\")\n");
	for (i = 0;
	     s != NULL && i < sizeof confs_exported / sizeof confs_exported[0];
	     i++) {
		const char *v = sl_session_conf_get(s, confs_exported[i].key);
		if (v == NULL || strcasecmp(v, confs_exported[i].def) == 0)
			continue;
		sl_buf_adds(out, "    .config(");
		py_str(out, confs_exported[i].key);
		sl_buf_adds(out, ", ");
		py_str(out, v);
		sl_buf_adds(out, ")\n");
	}
	sl_buf_adds(out, "    .getOrCreate()\n)\n\n");
}

static void gen_init(gen *g)
{
	memset(g, 0, sizeof *g);
	sl_buf_init(&g->body);
}

/* Preamble + body into out; releases g. */
static int gen_finish(gen *g, sl_session *s, const char *app, sl_buf *out,
		      sl_err *err)
{
	int i;
	preamble(g, s, app, out);
	sl_buf_add(out, g->body.p ? g->body.p : "", g->body.len);
	if (sl_buf_failed(&g->body) || sl_buf_failed(out))
		g->oom = true;
	sl_buf_release(&g->body);
	for (i = 0; i < g->nvars; i++)
		free(g->vars[i]);
	free(g->vars);
	return g->oom ? sl_err_nomem(err) : 0;
}

/* partitionBy("a", "b"): the writer option formats/partition.h names. */
static void partition_by(gen *g, const sl_options *o)
{
	char **cols = NULL;
	int n = 0;
	if (sl_part_cols_get(o, &cols, &n, NULL) != 0 || n == 0) {
		sl_part_cols_free(cols, n);
		return;
	}
	sl_buf_adds(&g->body, "    .partitionBy(");
	for (int k = 0; k < n; k++) {
		if (k > 0)
			sl_buf_adds(&g->body, ", ");
		py_str(&g->body, cols[k]);
	}
	sl_buf_adds(&g->body, ")\n");
	sl_part_cols_free(cols, n);
}

static void writer_options(gen *g, const sl_pyspark_sink *w, bool kafka)
{
	const sl_options *o = w->opts;
	const char *ckpt = o ? sl_options_get(o, "checkpointLocation") : NULL;
	int i;
	if (kafka && kafka_embedded(o))
		kafka_bootstrap(g);
	for (i = 0; o != NULL && i < o->n; i++) {
		if (kafka &&
		    strcmp(o->keys[i], "kafka.bootstrap.servers") == 0 &&
		    kafka_embedded(o))
			continue;
		if (strcasecmp(o->keys[i], SL_PART_OPTION) == 0)
			continue;
		option_line(g, o->keys[i], o->vals[i]);
	}
	partition_by(g, o);
	if (ckpt == NULL) {
		char path[200];
		const char *n =
		    w->name && plain_ident(w->name) ? w->name : "query";
		snprintf(path, sizeof path, "/tmp/checkpoints/%s", n);
		sl_buf_adds(&g->body, "    # streamlab used a temporary "
				      "checkpoint: keep this one to restart\n");
		option_line(g, "checkpointLocation", path);
	}
}

static void writer(gen *g, const char *df, const sl_pyspark_sink *w)
{
	bool kafka = !w->foreach_batch && w->format != NULL &&
		     strcmp(w->format, "kafka") == 0;
	if (w->foreach_batch)
		sl_buf_adds(&g->body,
			    "def process_batch(batch_df, batch_id):\n"
			    "    # TODO: streamlab ran your Lua foreachBatch "
			    "function here, once per\n"
			    "    # micro-batch; write its body in Python "
			    "(batch_df is a batch DataFrame).\n"
			    "    batch_df.show()\n\n\n");
	sl_buf_printf(&g->body, "query = (\n    %s.writeStream\n", df);
	if (w->foreach_batch) {
		sl_buf_adds(&g->body, "    .foreachBatch(process_batch)\n");
	} else {
		sl_buf_adds(&g->body, "    .format(");
		py_str(&g->body, w->format ? w->format : "console");
		sl_buf_adds(&g->body, ")\n");
	}
	g->kafka |= kafka;
	sl_buf_printf(&g->body, "    .outputMode(\"%s\")\n",
		      w->mode == SL_MODE_COMPLETE ? "complete"
		      : w->mode == SL_MODE_UPDATE ? "update"
						  : "append");
	writer_options(g, w, kafka);
	if (w->name != NULL) {
		sl_buf_adds(&g->body, "    .queryName(");
		py_str(&g->body, w->name);
		sl_buf_adds(&g->body, ")\n");
	}
	switch (w->trigger.kind) {
	case SL_TRIGGER_PROCESSING:
		sl_buf_adds(&g->body, "    .trigger(processingTime=");
		py_dur(&g->body, w->trigger.interval_us);
		sl_buf_adds(&g->body, ")\n");
		break;
	case SL_TRIGGER_ONCE:
		sl_buf_adds(&g->body, "    .trigger(once=True)\n");
		break;
	case SL_TRIGGER_AVAILABLE_NOW:
		sl_buf_adds(&g->body, "    .trigger(availableNow=True)\n");
		break;
	default: break;
	}
	sl_buf_adds(&g->body, "    .start()\n)\n\nquery.awaitTermination()\n");
}

/* A stateful streaming operator at or below p (its state is in the
 * checkpoint's state/ folder). */
static bool has_state(const sl_plan *p)
{
	int i;
	if (p->streaming && (p->kind == SL_P_AGGREGATE ||
			     p->kind == SL_P_DEDUP || p->kind == SL_P_LIMIT ||
			     (p->kind == SL_P_JOIN && p->child[0]->streaming &&
			      p->child[1]->streaming)))
		return true;
	for (i = 0; i < p->nchild; i++)
		if (has_state(p->child[i]))
			return true;
	return false;
}

/* Where the query's state can be read: Spark 4.0's state data source
 * (streamlab's spark.read:format("statestore")). */
static void state_hint(gen *g, const sl_plan *p, const sl_pyspark_sink *w)
{
	const char *ckpt =
	    w->opts ? sl_options_get(w->opts, "checkpointLocation") : NULL;
	char path[200];
	if (!has_state(p))
		return;
	if (ckpt == NULL) {
		snprintf(path, sizeof path, "/tmp/checkpoints/%s",
			 w->name && plain_ident(w->name) ? w->name : "query");
		ckpt = path;
	}
	sl_buf_adds(
	    &g->body,
	    "\n# The state of any committed batch, with Spark 4.0's state "
	    "data source\n# (experimental there; Spark 3.5 has none):\n"
	    "# spark.read.format(\"statestore\").option(\"batchId\", 0)"
	    ".load(");
	py_str(&g->body, ckpt);
	sl_buf_adds(&g->body,
		    ").show()\n# spark.read.format(\"state-metadata\")"
		    ".load(");
	py_str(&g->body, ckpt);
	sl_buf_adds(&g->body, ").show()\n");
}

int sl_pyspark_query(const sl_plan *p, const sl_pyspark_sink *w,
		     sl_session *confs, sl_buf *out, sl_err *err)
{
	gen g;
	const char *df;
	gen_init(&g);
	df = emit_df(&g, p, "result");
	writer(&g, df, w);
	state_hint(&g, p, w);
	return gen_finish(&g, confs, w->name ? w->name : "streamlab", out, err);
}

int sl_pyspark_dataframe(const sl_plan *p, sl_session *confs, sl_buf *out,
			 sl_err *err)
{
	gen g;
	const char *df;
	gen_init(&g);
	df = emit_df(&g, p, "result");
	if (sl_plan_is_streaming(p))
		sl_buf_printf(&g.body,
			      "# %s is a streaming DataFrame: start it with "
			      "writeStream, e.g.\n"
			      "# query = %s.writeStream.format(\"console\")"
			      ".start()\n"
			      "# query.awaitTermination()\n",
			      df, df);
	else
		sl_buf_printf(&g.body, "%s.show()\n", df);
	return gen_finish(&g, confs, "streamlab", out, err);
}
