/*
 * expr: expression trees (builders, names, SQL text) and their resolution
 * against a schema.  Evaluation lives in eval.c's place here too, below the
 * resolver: whole columns per node, type-specialised kernels.
 *
 * Invariants: nodes are immutable once shared; a resolved node has rtype
 * set (a counted reference) and, for CALL, fn set.  Implicit casts inserted
 * by the resolver carry op == 1 and are invisible in names and SQL, as
 * Spark's usePrettyExpression hides them.  A FIELD node made from a dotted
 * column name ("window.start") carries op == 1: at the top of a select it
 * is named by its last part ("start"), as Spark's analyzer aliases it.
 *
 * Ownership: builders take their children; resolve borrows its input and
 * returns a new tree; eval returns a new column reference.  Never prints.
 */
#include "expr/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/func.h"
#include "core/timeutil.h"

/* ---------------------------------------------------------------- builders */

static sl_expr *node_new(sl_expr_kind kind, int nargs)
{
	sl_expr *e = calloc(1, sizeof *e);
	if (e == NULL)
		return NULL;
	e->kind = kind;
	e->refs = 1;
	e->idx = -1;
	e->nargs = nargs;
	if (nargs > 0) {
		e->args = calloc((size_t)nargs, sizeof *e->args);
		if (e->args == NULL) {
			free(e);
			return NULL;
		}
	}
	return e;
}

static char *str_dup(const char *s)
{
	size_t n = strlen(s);
	char *d = malloc(n + 1);
	if (d != NULL)
		memcpy(d, s, n + 1);
	return d;
}

static sl_expr *node_named(sl_expr_kind kind, const char *name, int nargs)
{
	sl_expr *e = node_new(kind, nargs);
	if (e == NULL || name == NULL)
		return e;
	e->name = str_dup(name);
	if (e->name == NULL) {
		sl_expr_free(e);
		return NULL;
	}
	return e;
}

/* Builders own their children: free them all when the node fails. */
static sl_expr *with_args(sl_expr *e, sl_expr **args, int n)
{
	int i;
	if (e == NULL) {
		for (i = 0; i < n; i++)
			sl_expr_free(args[i]);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (args[i] == NULL) {
			for (; i < n; i++)
				sl_expr_free(args[i]);
			sl_expr_free(e);
			return NULL;
		}
		e->args[i] = args[i];
	}
	return e;
}

sl_expr *sl_expr_col(const char *name)
{
	return node_named(SL_X_COL, name, 0);
}

sl_expr *sl_expr_star(const char *qualifier)
{
	return node_named(SL_X_STAR, qualifier, 0);
}

static sl_expr *lit_new(sl_kind k)
{
	sl_expr *e = node_new(SL_X_LIT, 0);
	if (e != NULL)
		e->type = sl_type_prim(k);
	return e;
}

sl_expr *sl_expr_lit_null(void)
{
	sl_expr *e = lit_new(SL_NULLTYPE);
	if (e != NULL)
		e->lit.null = true;
	return e;
}

sl_expr *sl_expr_lit_bool(bool v)
{
	sl_expr *e = lit_new(SL_BOOLEAN);
	if (e != NULL)
		e->lit.i = v;
	return e;
}

sl_expr *sl_expr_lit_int(int32_t v)
{
	sl_expr *e = lit_new(SL_INT);
	if (e != NULL)
		e->lit.i = v;
	return e;
}

sl_expr *sl_expr_lit_bigint(int64_t v)
{
	sl_expr *e = lit_new(SL_BIGINT);
	if (e != NULL)
		e->lit.i = v;
	return e;
}

sl_expr *sl_expr_lit_double(double v)
{
	sl_expr *e = lit_new(SL_DOUBLE);
	if (e != NULL)
		e->lit.d = v;
	return e;
}

sl_expr *sl_expr_lit_string(const char *s, size_t n)
{
	sl_expr *e = lit_new(SL_STRING);
	if (e == NULL)
		return NULL;
	e->lit.s = malloc(n + 1);
	if (e->lit.s == NULL) {
		sl_expr_free(e);
		return NULL;
	}
	memcpy(e->lit.s, s, n);
	e->lit.s[n] = '\0';
	e->lit.n = n;
	return e;
}

sl_expr *sl_expr_lit_timestamp(int64_t us)
{
	sl_expr *e = lit_new(SL_TIMESTAMP);
	if (e != NULL)
		e->lit.i = us;
	return e;
}

static sl_expr *call_new(const char *fname, sl_expr **args, int nargs,
			 bool distinct)
{
	sl_expr *e = node_named(SL_X_CALL, fname, nargs);
	char *p;
	if (e != NULL) {
		for (p = e->name; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		e->distinct = distinct;
	}
	return with_args(e, args, nargs);
}

sl_expr *sl_expr_call(const char *fname, sl_expr **args, int nargs)
{
	return call_new(fname, args, nargs, false);
}

sl_expr *sl_expr_call_distinct(const char *fname, sl_expr **args, int nargs)
{
	return call_new(fname, args, nargs, true);
}

sl_expr *sl_expr_binop(int op, sl_expr *a, sl_expr *b)
{
	sl_expr *args[2] = { a, b };
	sl_expr *e = node_new(SL_X_BINOP, 2);
	if (e != NULL)
		e->op = op;
	return with_args(e, args, 2);
}

sl_expr *sl_expr_unary(sl_expr_kind kind, sl_expr *a)
{
	return with_args(node_new(kind, 1), &a, 1);
}

sl_expr *sl_expr_cast(sl_expr *a, sl_type *to)
{
	sl_expr *e = node_new(SL_X_CAST, 1);
	if (e != NULL)
		e->type = sl_type_ref(to);
	return with_args(e, &a, 1);
}

sl_expr *sl_expr_alias(sl_expr *a, const char *name)
{
	return with_args(node_named(SL_X_ALIAS, name, 1), &a, 1);
}

sl_expr *sl_expr_field(sl_expr *a, const char *name)
{
	return with_args(node_named(SL_X_FIELD, name, 1), &a, 1);
}

sl_expr *sl_expr_sort(sl_expr *a, int flags)
{
	sl_expr *e = node_new(SL_X_SORT, 1);
	if (e != NULL)
		e->op = flags;
	return with_args(e, &a, 1);
}

sl_expr *sl_expr_in(sl_expr *a, sl_expr **list, int n)
{
	sl_expr *e = node_new(SL_X_IN, n + 1);
	int i;
	if (e == NULL || a == NULL) {
		sl_expr_free(a);
		for (i = 0; i < n; i++)
			sl_expr_free(list[i]);
		sl_expr_free(e);
		return NULL;
	}
	e->args[0] = a;
	e->nargs = 1;
	for (i = 0; i < n; i++) {
		if (list[i] == NULL) {
			for (; i < n; i++)
				sl_expr_free(list[i]);
			sl_expr_free(e);
			return NULL;
		}
		e->args[e->nargs++] = list[i];
	}
	return e;
}

sl_expr *sl_expr_case(sl_expr **args, int nargs)
{
	return with_args(node_new(SL_X_CASE, nargs), args, nargs);
}

/* (expr.h) */
sl_expr *sl_expr_rebuild(const sl_expr *e, sl_expr **a)
{
	sl_expr *r;
	switch (e->kind) {
	case SL_X_CALL:
		return e->distinct ? sl_expr_call_distinct(e->name, a, e->nargs)
				   : sl_expr_call(e->name, a, e->nargs);
	case SL_X_BINOP: return sl_expr_binop(e->op, a[0], a[1]);
	case SL_X_NOT:
	case SL_X_NEG:
	case SL_X_ISNULL:
	case SL_X_ISNOTNULL: return sl_expr_unary(e->kind, a[0]);
	case SL_X_CAST:
		if ((r = sl_expr_cast(a[0], e->type)) != NULL)
			r->op = e->op; /* keep an implicit cast implicit */
		return r;
	case SL_X_ALIAS: return sl_expr_alias(a[0], e->name);
	case SL_X_FIELD:
		if ((r = sl_expr_field(a[0], e->name)) != NULL)
			r->op = e->op;
		return r;
	case SL_X_SORT: return sl_expr_sort(a[0], e->op);
	case SL_X_IN: return sl_expr_in(a[0], a + 1, e->nargs - 1);
	case SL_X_CASE: return sl_expr_case(a, e->nargs);
	default:
		for (int i = 0; i < e->nargs; i++)
			sl_expr_free(a[i]);
		return sl_expr_ref((sl_expr *)e);
	}
}

sl_expr *sl_expr_ref(sl_expr *e)
{
	if (e != NULL)
		e->refs++;
	return e;
}

void sl_expr_free(sl_expr *e)
{
	int i;
	if (e == NULL || --e->refs > 0)
		return;
	for (i = 0; i < e->nargs; i++)
		sl_expr_free(e->args[i]);
	free(e->args);
	free(e->name);
	free(e->lit.s);
	sl_type_free(e->type);
	sl_type_free(e->rtype);
	free(e);
}

/* ------------------------------------------------------------ names, SQL */

static const char *op_text(int op)
{
	switch (op) {
	case SL_OP_ADD: return "+";
	case SL_OP_SUB: return "-";
	case SL_OP_MUL: return "*";
	case SL_OP_DIV: return "/";
	case SL_OP_MOD: return "%";
	case SL_OP_EQ: return "=";
	case SL_OP_NE: return "!=";
	case SL_OP_LT: return "<";
	case SL_OP_LE: return "<=";
	case SL_OP_GT: return ">";
	case SL_OP_GE: return ">=";
	case SL_OP_EQNS: return "<=>";
	case SL_OP_AND: return "AND";
	case SL_OP_OR: return "OR";
	case SL_OP_CONCAT: return "||";
	}
	return "?";
}

static bool plain_ident(const char *s)
{
	const char *p;
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
			return false;
	return true;
}

static void type_upper(const sl_type *t, sl_buf *out)
{
	sl_type_sql(t, out);
}

/* Literal text: pretty (names) prints strings bare, SQL quotes them. */
static void lit_text(const sl_expr *e, bool pretty, sl_buf *out)
{
	const sl_type *t = e->type;
	size_t k;
	if (e->lit.null || t->kind == SL_NULLTYPE) {
		sl_buf_adds(out, "NULL");
		return;
	}
	switch (t->kind) {
	case SL_BOOLEAN: sl_buf_adds(out, e->lit.i ? "true" : "false"); break;
	case SL_INT: sl_buf_printf(out, "%lld", (long long)e->lit.i); break;
	case SL_BIGINT:
		if (e->op == 1 && !pretty) {
			sl_buf_adds(out, "INTERVAL '");
			sl_duration_format(e->lit.i, out);
			sl_buf_adds(out, "'");
		} else {
			sl_buf_printf(out, pretty ? "%lld" : "%lldL",
				      (long long)e->lit.i);
		}
		break;
	case SL_DOUBLE: sl_fmt_double(e->lit.d, out); break;
	case SL_TIMESTAMP:
		sl_buf_adds(out, "TIMESTAMP '");
		sl_ts_format(e->lit.i, out);
		sl_buf_adds(out, "'");
		break;
	default:
		if (pretty) {
			sl_buf_add(out, e->lit.s, e->lit.n);
			break;
		}
		sl_buf_addc(out, '\'');
		for (k = 0; k < e->lit.n; k++) {
			char c = e->lit.s[k];
			if (c == '\'' || c == '\\')
				sl_buf_addc(out, '\\');
			sl_buf_addc(out, c);
		}
		sl_buf_addc(out, '\'');
	}
}

static void text(const sl_expr *e, bool pretty, sl_buf *out);

static void args_text(const sl_expr *e, int from, bool pretty, sl_buf *out)
{
	int i;
	for (i = from; i < e->nargs; i++) {
		if (i > from)
			sl_buf_adds(out, ", ");
		text(e->args[i], pretty, out);
	}
}

static void call_text(const sl_expr *e, bool pretty, sl_buf *out)
{
	/* Spark's TimeWindowing / SessionWindowing rules alias the struct
	 * they make to these names (so `session_window.start` resolves) */
	if (pretty && (strcmp(e->name, "window") == 0 ||
		       strcmp(e->name, "session_window") == 0)) {
		sl_buf_adds(out, e->name);
		return;
	}
	sl_buf_adds(out, e->name);
	sl_buf_addc(out, '(');
	if (e->distinct)
		sl_buf_adds(out, "DISTINCT ");
	args_text(e, 0, pretty, out);
	sl_buf_addc(out, ')');
}

static void case_text(const sl_expr *e, bool pretty, sl_buf *out)
{
	int i;
	sl_buf_adds(out, "CASE");
	for (i = 0; i + 1 < e->nargs; i += 2) {
		sl_buf_adds(out, " WHEN ");
		text(e->args[i], pretty, out);
		sl_buf_adds(out, " THEN ");
		text(e->args[i + 1], pretty, out);
	}
	if (e->nargs % 2 == 1) {
		sl_buf_adds(out, " ELSE ");
		text(e->args[e->nargs - 1], pretty, out);
	}
	sl_buf_adds(out, " END");
}

static void binop_text(const sl_expr *e, bool pretty, sl_buf *out)
{
	if (e->op == SL_OP_CONCAT && pretty) {
		sl_buf_adds(out, "concat(");
		args_text(e, 0, pretty, out);
		sl_buf_addc(out, ')');
		return;
	}
	if (e->op == SL_OP_NE && pretty) { /* Spark: a != b is NOT (a = b) */
		sl_buf_adds(out, "(NOT (");
		text(e->args[0], pretty, out);
		sl_buf_adds(out, " = ");
		text(e->args[1], pretty, out);
		sl_buf_adds(out, "))");
		return;
	}
	sl_buf_addc(out, '(');
	text(e->args[0], pretty, out);
	sl_buf_printf(out, " %s ", op_text(e->op));
	text(e->args[1], pretty, out);
	sl_buf_addc(out, ')');
}

static void text(const sl_expr *e, bool pretty, sl_buf *out)
{
	switch (e->kind) {
	case SL_X_COL:
		if (pretty || plain_ident(e->name))
			sl_buf_adds(out, e->name);
		else
			sl_buf_printf(out, "`%s`", e->name);
		break;
	case SL_X_STAR:
		if (e->name != NULL)
			sl_buf_printf(out, "%s.", e->name);
		sl_buf_addc(out, '*');
		break;
	case SL_X_LIT: lit_text(e, pretty, out); break;
	case SL_X_CALL: call_text(e, pretty, out); break;
	case SL_X_BINOP: binop_text(e, pretty, out); break;
	case SL_X_NOT:
		sl_buf_adds(out, "(NOT ");
		text(e->args[0], pretty, out);
		sl_buf_addc(out, ')');
		break;
	case SL_X_NEG:
		sl_buf_adds(out, "(- ");
		text(e->args[0], pretty, out);
		sl_buf_addc(out, ')');
		break;
	case SL_X_CAST:
		if (e->op == 1) {
			text(e->args[0], pretty, out);
			break;
		}
		sl_buf_adds(out, "CAST(");
		text(e->args[0], pretty, out);
		sl_buf_adds(out, " AS ");
		type_upper(e->type, out);
		sl_buf_addc(out, ')');
		break;
	case SL_X_ALIAS:
		if (pretty) {
			sl_buf_adds(out, e->name);
			break;
		}
		text(e->args[0], pretty, out);
		sl_buf_adds(out, " AS ");
		sl_buf_adds(out, plain_ident(e->name) ? e->name : "");
		if (!plain_ident(e->name))
			sl_buf_printf(out, "`%s`", e->name);
		break;
	case SL_X_CASE: case_text(e, pretty, out); break;
	case SL_X_ISNULL:
	case SL_X_ISNOTNULL:
		sl_buf_addc(out, '(');
		text(e->args[0], pretty, out);
		sl_buf_adds(out, e->kind == SL_X_ISNULL ? " IS NULL)"
							: " IS NOT NULL)");
		break;
	case SL_X_IN:
		sl_buf_addc(out, '(');
		text(e->args[0], pretty, out);
		sl_buf_adds(out, " IN (");
		args_text(e, 1, pretty, out);
		sl_buf_adds(out, "))");
		break;
	case SL_X_FIELD:
		text(e->args[0], pretty, out);
		sl_buf_printf(out, ".%s", e->name);
		break;
	case SL_X_SORT:
		text(e->args[0], pretty, out);
		if (!pretty) {
			sl_buf_adds(out,
				    e->op & SL_SORT_DESC ? " DESC" : " ASC");
			if (e->op & SL_SORT_NULLS_LAST)
				sl_buf_adds(out, " NULLS LAST");
			else if (e->op & SL_SORT_NULLS_FIRST)
				sl_buf_adds(out, " NULLS FIRST");
		}
		break;
	}
}

void sl_expr_name(const sl_expr *e, sl_buf *out)
{
	const char *dot;
	while (e->kind == SL_X_SORT || (e->kind == SL_X_CAST && e->op == 1))
		e = e->args[0];
	/* Spark's ResolveAliases: a cast of a named column keeps the column's
	 * name (CAST(qty AS DOUBLE) is called qty) */
	if (e->kind == SL_X_CAST) {
		const sl_expr *a = e->args[0];
		while (a->kind == SL_X_CAST)
			a = a->args[0];
		if (a->kind == SL_X_COL ||
		    (a->kind == SL_X_FIELD && a->op == 1))
			e = a;
	}
	if (e->kind == SL_X_COL && (dot = strrchr(e->name, '.')) != NULL) {
		sl_buf_adds(out, dot + 1);
		return;
	}
	if (e->kind == SL_X_FIELD && e->op == 1) {
		sl_buf_adds(out, e->name);
		return;
	}
	text(e, true, out);
}

void sl_expr_sql(const sl_expr *e, sl_buf *out)
{
	text(e, false, out);
}

/* ------------------------------------------------------ kinds of function */

static bool name_in(const char *name, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcasecmp(name, *list) == 0)
			return true;
	return false;
}

bool sl_func_is_agg(const char *fname)
{
	static const char *const aggs[] = { "count",
					    "sum",
					    "avg",
					    "mean",
					    "min",
					    "max",
					    "first",
					    "last",
					    "approx_count_distinct",
					    "count_distinct",
					    "collect_list",
					    "min_by",
					    "max_by",
					    NULL };
	return name_in(fname, aggs);
}

bool sl_func_is_generator(const char *fname)
{
	static const char *const gens[] = { "explode", "explode_outer",
					    "posexplode", NULL };
	return name_in(fname, gens);
}

bool sl_expr_has_agg(const sl_expr *e)
{
	int i;
	if (e->kind == SL_X_CALL && sl_func_is_agg(e->name))
		return true;
	for (i = 0; i < e->nargs; i++)
		if (sl_expr_has_agg(e->args[i]))
			return true;
	return false;
}

/* --------------------------------------------------------- nearest name */

/* Optimal string alignment distance (Levenshtein plus adjacent
 * transpositions, so "strat" is one edit from "start"), case-insensitive. */
static int edit_distance(const char *a, const char *b)
{
	int na = (int)strlen(a), nb = (int)strlen(b), i, j;
	int d[64][64];
	if (na >= 64 || nb >= 64)
		return 1000;
	for (i = 0; i <= na; i++)
		d[i][0] = i;
	for (j = 0; j <= nb; j++)
		d[0][j] = j;
	for (i = 1; i <= na; i++) {
		for (j = 1; j <= nb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			int best = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[na][nb];
}

const char *sl_nearest_name(const char *name, const char *const *names, int n)
{
	const char *best = NULL;
	int bestd = 1000, i, d, len = (int)strlen(name), limit;
	/* one edit per three characters, at least one, at most three:
	 * "prise" -> "price", but "x" suggests nothing for "qty" */
	limit = len / 3;
	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		d = edit_distance(name, names[i]);
		if (d < bestd) {
			bestd = d;
			best = names[i];
		}
	}
	if (best == NULL || bestd > limit || bestd >= (int)strlen(best))
		return NULL;
	return best;
}

/* ------------------------------------------------------------- resolving */

void sl_expr_type_name(const sl_type *t, sl_buf *out)
{
	size_t from = out->len, k;
	sl_type_sql(t, out);
	for (k = from; k < out->len; k++)
		out->p[k] = (char)tolower((unsigned char)out->p[k]);
}

int sl_expr_mismatch(sl_err *err, const sl_expr *e, const char *fmt, ...)
{
	sl_buf b;
	va_list ap;
	sl_buf_init(&b);
	sl_buf_adds(&b, "cannot resolve '");
	sl_expr_sql(e, &b);
	sl_buf_adds(&b, "' due to data type mismatch: ");
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	sl_err_set(err, SL_EANALYSIS, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	return SL_EANALYSIS;
}

static const char *tname(const sl_type *t, sl_buf *b)
{
	sl_buf_clear(b);
	sl_expr_type_name(t, b);
	return sl_buf_cstr(b);
}

static bool is_num(sl_kind k)
{
	return k == SL_INT || k == SL_BIGINT || k == SL_DOUBLE;
}

static bool is_atomic(sl_kind k)
{
	return k != SL_STRUCT && k != SL_ARRAY && k != SL_NULLTYPE;
}

sl_type *sl_expr_common_type(sl_type *a, sl_type *b)
{
	if (a->kind == SL_NULLTYPE)
		return b;
	if (b->kind == SL_NULLTYPE || sl_type_equal(a, b))
		return a;
	if (is_num(a->kind) && is_num(b->kind))
		return a->kind > b->kind ? a : b;
	/* Spark's string promotion: any other atomic with a string is a string */
	if (a->kind == SL_STRING && is_atomic(b->kind) &&
	    b->kind != SL_BINARY && b->kind != SL_BOOLEAN)
		return a;
	if (b->kind == SL_STRING && is_atomic(a->kind) &&
	    a->kind != SL_BINARY && a->kind != SL_BOOLEAN)
		return b;
	return NULL;
}

sl_expr *sl_expr_implicit_cast(sl_expr *e, sl_type *to)
{
	sl_expr *c;
	if (e == NULL)
		return NULL;
	if (sl_type_equal(e->rtype, to))
		return e;
	if (e->kind == SL_X_LIT && e->lit.null) { /* NULL takes the type */
		sl_type_free(e->rtype);
		e->rtype = sl_type_ref(to);
		return e;
	}
	c = sl_expr_cast(e, to);
	if (c == NULL)
		return NULL;
	c->op = 1;
	c->rtype = sl_type_ref(to);
	c->nullable = e->nullable || e->rtype->kind == SL_STRING;
	c->pos = e->pos;
	return c;
}

/* Spark's ImplicitCastInputTypes: what an argument may be cast to silently. */
static bool implicit_ok(sl_kind from, sl_kind to)
{
	if (from == to || from == SL_NULLTYPE)
		return true;
	if (to == SL_STRING)
		return is_atomic(from);
	if (is_num(to))
		return is_num(from) || from == SL_STRING;
	if (to == SL_TIMESTAMP || to == SL_BINARY)
		return from == SL_STRING;
	return false;
}

static const char *kind_word(sl_kind k)
{
	static const char *const w[] = { "void",   "boolean",   "int",
					 "bigint", "double",    "string",
					 "binary", "timestamp", "struct",
					 "array" };
	return w[k];
}

int sl_expr_arg_kind(sl_expr *call, int i, sl_kind k, sl_err *err)
{
	sl_expr *a = call->args[i];
	sl_buf b, nb;
	int rc;
	if (!implicit_ok(a->rtype->kind, k)) {
		sl_buf_init(&b);
		sl_buf_init(&nb);
		sl_expr_sql(a, &nb);
		rc = sl_expr_mismatch(
		    err, call,
		    "argument %d requires %s type, however, '%s' is of %s type",
		    i + 1, kind_word(k), sl_buf_cstr(&nb), tname(a->rtype, &b));
		sl_buf_release(&b);
		sl_buf_release(&nb);
		return rc;
	}
	call->args[i] = sl_expr_implicit_cast(a, sl_type_prim(k));
	return call->args[i] == NULL ? sl_err_nomem(err) : 0;
}

/* A copy of e's own fields (not its children, not resolution). */
static sl_expr *node_copy(const sl_expr *e)
{
	sl_expr *c = node_named(e->kind, e->name, e->nargs);
	if (c == NULL)
		return NULL;
	c->op = e->op;
	c->distinct = e->distinct;
	c->pos = e->pos;
	c->type = e->type ? sl_type_ref(e->type) : NULL;
	c->lit = e->lit;
	c->lit.s = NULL;
	if (e->lit.s != NULL) {
		c->lit.s = malloc(e->lit.n + 1);
		if (c->lit.s == NULL) {
			sl_expr_free(c);
			return NULL;
		}
		memcpy(c->lit.s, e->lit.s, e->lit.n + 1);
	}
	return c;
}

static void schema_names(const sl_type *schema, sl_buf *out)
{
	int i;
	sl_buf_addc(out, '[');
	for (i = 0; i < schema->nfields; i++)
		sl_buf_printf(out, "%s%s", i ? ", " : "",
			      schema->fields[i].name);
	sl_buf_addc(out, ']');
}

static void hint_nearest(sl_err *err, const char *name, const sl_type *st)
{
	const char *names[256];
	const char *best;
	int i, n = st->nfields < 256 ? st->nfields : 256;
	for (i = 0; i < n; i++)
		names[i] = st->fields[i].name;
	best = sl_nearest_name(name, names, n);
	if (best != NULL)
		sl_err_hint(err, "did you mean '%s'?", best);
}

static int unknown_col(const char *name, const sl_type *schema, sl_err *err)
{
	sl_buf b;
	sl_buf_init(&b);
	schema_names(schema, &b);
	sl_err_set(err, SL_EANALYSIS,
		   "cannot resolve '%s' given input columns: %s", name,
		   sl_buf_cstr(&b));
	sl_buf_release(&b);
	hint_nearest(err, name, schema);
	return SL_EANALYSIS;
}

/* Field `name` of the resolved struct expression s (taken); dotted marks a
 * FIELD that came from a dotted column name. */
static sl_expr *field_of(sl_expr *s, const char *name, bool dotted, int pos,
			 sl_err *err)
{
	sl_type *st = s->rtype;
	sl_expr *f;
	sl_buf b;
	int k;
	if (st->kind != SL_STRUCT) {
		sl_buf_init(&b);
		sl_err_set(
		    err, SL_EANALYSIS,
		    "can't extract value from '%s': need struct type but got %s",
		    s->name ? s->name : "?", tname(st, &b));
		sl_buf_release(&b);
		sl_expr_free(s);
		return NULL;
	}
	k = sl_type_field_index(st, name);
	if (k < 0) {
		sl_buf_init(&b);
		schema_names(st, &b);
		sl_err_set(err, SL_EANALYSIS, "no such struct field '%s' in %s",
			   name, sl_buf_cstr(&b));
		sl_buf_release(&b);
		hint_nearest(err, name, st);
		sl_expr_free(s);
		return NULL;
	}
	f = sl_expr_field(s, st->fields[k].name);
	if (f == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	f->op = dotted;
	f->idx = k;
	f->pos = pos;
	f->rtype = sl_type_ref(st->fields[k].type);
	f->nullable = f->args[0]->nullable || st->fields[k].nullable;
	return f;
}

static sl_expr *resolve_col(const sl_expr *e, const sl_type *schema,
			    sl_err *err)
{
	char part[256];
	const char *p = e->name, *dot;
	sl_expr *c;
	int k = sl_type_field_index(schema, e->name);
	size_t n;
	if (k < 0 && (dot = strchr(p, '.')) != NULL) {
		n = (size_t)(dot - p) < sizeof part - 1 ? (size_t)(dot - p)
							: sizeof part - 1;
		memcpy(part, p, n);
		part[n] = '\0';
		k = sl_type_field_index(schema, part);
		p = dot + 1;
	} else {
		p = NULL;
	}
	if (k < 0) {
		unknown_col(e->name, schema, err);
		return NULL;
	}
	c = node_named(SL_X_COL, schema->fields[k].name, 0);
	if (c == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	c->idx = k;
	c->pos = e->pos;
	c->rtype = sl_type_ref(schema->fields[k].type);
	c->nullable = schema->fields[k].nullable;
	while (p != NULL && c != NULL) {
		dot = strchr(p, '.');
		n = dot ? (size_t)(dot - p) : strlen(p);
		if (n > sizeof part - 1)
			n = sizeof part - 1;
		memcpy(part, p, n);
		part[n] = '\0';
		c = field_of(c, part, true, e->pos, err);
		p = dot ? dot + 1 : NULL;
	}
	return c;
}

static sl_expr *resolve(const sl_expr *e, const sl_type *schema, sl_err *err);

static int set_rtype(sl_expr *r, sl_type *t, bool nullable)
{
	r->rtype = sl_type_ref(t);
	r->nullable = nullable;
	return 0;
}

static int cast_arg(sl_expr *r, int i, sl_type *t, sl_err *err)
{
	r->args[i] = sl_expr_implicit_cast(r->args[i], t);
	return r->args[i] == NULL ? sl_err_nomem(err) : 0;
}

static int differing(sl_expr *r, sl_err *err)
{
	sl_buf a, b, q;
	int rc;
	sl_buf_init(&a);
	sl_buf_init(&b);
	sl_buf_init(&q);
	sl_expr_sql(r, &q);
	rc = sl_expr_mismatch(err, r, "differing types in '%s' (%s and %s)",
			      sl_buf_cstr(&q), tname(r->args[0]->rtype, &a),
			      tname(r->args[1]->rtype, &b));
	sl_buf_release(&a);
	sl_buf_release(&b);
	sl_buf_release(&q);
	return rc;
}

static bool is_interval_lit(const sl_expr *e)
{
	return e->kind == SL_X_LIT && e->op == 1 && !e->lit.null;
}

static int resolve_arith(sl_expr *r, sl_err *err)
{
	sl_type *l = r->args[0]->rtype, *rt = r->args[1]->rtype, *t;
	bool nul = r->args[0]->nullable || r->args[1]->nullable;
	if ((r->op == SL_OP_ADD || r->op == SL_OP_SUB) &&
	    l->kind == SL_TIMESTAMP && is_interval_lit(r->args[1]))
		return set_rtype(r, l, nul);
	if (r->op == SL_OP_ADD && rt->kind == SL_TIMESTAMP &&
	    is_interval_lit(r->args[0]))
		return set_rtype(r, rt, nul);
	if (l->kind == SL_STRING)
		l = sl_type_prim(SL_DOUBLE);
	if (rt->kind == SL_STRING)
		rt = sl_type_prim(SL_DOUBLE);
	if (l->kind == SL_NULLTYPE)
		l = rt->kind == SL_NULLTYPE ? sl_type_prim(SL_INT) : rt;
	if (rt->kind == SL_NULLTYPE)
		rt = l;
	if (!is_num(l->kind) || !is_num(rt->kind))
		return differing(r, err);
	t = sl_expr_common_type(l, rt);
	if (r->op == SL_OP_DIV)
		t = sl_type_prim(SL_DOUBLE);
	if (cast_arg(r, 0, t, err) < 0 || cast_arg(r, 1, t, err) < 0)
		return SL_ENOMEM;
	return set_rtype(r, t, nul || r->op == SL_OP_DIV || r->op == SL_OP_MOD);
}

/* Spark's findCommonTypeForBinaryComparison, the parts we have types for. */
static sl_type *cmp_type(sl_type *l, sl_type *r)
{
	if (l->kind == SL_NULLTYPE)
		return r->kind == SL_NULLTYPE ? sl_type_prim(SL_BOOLEAN) : r;
	if (r->kind == SL_NULLTYPE || sl_type_equal(l, r))
		return l;
	if (is_num(l->kind) && is_num(r->kind))
		return sl_expr_common_type(l, r);
	if (l->kind == SL_STRING && is_atomic(r->kind))
		return r;
	if (r->kind == SL_STRING && is_atomic(l->kind))
		return l;
	return NULL;
}

static int resolve_binop(sl_expr *r, sl_err *err)
{
	sl_type *t;
	bool nul = r->args[0]->nullable || r->args[1]->nullable;
	switch (r->op) {
	case SL_OP_ADD:
	case SL_OP_SUB:
	case SL_OP_MUL:
	case SL_OP_DIV:
	case SL_OP_MOD: return resolve_arith(r, err);
	case SL_OP_AND:
	case SL_OP_OR:
		t = sl_type_prim(SL_BOOLEAN);
		if (cmp_type(r->args[0]->rtype, t) != t ||
		    cmp_type(r->args[1]->rtype, t) != t ||
		    r->args[0]->rtype->kind == SL_STRING ||
		    r->args[1]->rtype->kind == SL_STRING)
			return differing(r, err);
		break;
	case SL_OP_CONCAT:
		t = sl_type_prim(SL_STRING);
		if (!implicit_ok(r->args[0]->rtype->kind, SL_STRING) ||
		    !implicit_ok(r->args[1]->rtype->kind, SL_STRING))
			return differing(r, err);
		if (cast_arg(r, 0, t, err) < 0 || cast_arg(r, 1, t, err) < 0)
			return SL_ENOMEM;
		r->fn = sl_func_lookup("concat"); /* a || b is concat(a, b) */
		return set_rtype(r, t, nul);
	default:
		t = cmp_type(r->args[0]->rtype, r->args[1]->rtype);
		if (t == NULL || t->kind == SL_STRUCT || t->kind == SL_ARRAY)
			return differing(r, err);
		if (cast_arg(r, 0, t, err) < 0 || cast_arg(r, 1, t, err) < 0)
			return SL_ENOMEM;
		return set_rtype(r, sl_type_prim(SL_BOOLEAN),
				 r->op == SL_OP_EQNS ? false : nul);
	}
	if (cast_arg(r, 0, t, err) < 0 || cast_arg(r, 1, t, err) < 0)
		return SL_ENOMEM;
	return set_rtype(r, t, nul);
}

static int unary_mismatch(sl_expr *r, const char *want, sl_err *err)
{
	sl_buf a, b;
	int rc;
	sl_buf_init(&a);
	sl_buf_init(&b);
	sl_expr_sql(r->args[0], &a);
	rc = sl_expr_mismatch(
	    err, r, "argument 1 requires %s type, however, '%s' is of %s type",
	    want, sl_buf_cstr(&a), tname(r->args[0]->rtype, &b));
	sl_buf_release(&a);
	sl_buf_release(&b);
	return rc;
}

/* Casts Spark (non-ANSI) accepts among the types streamlab has. */
static bool castable(const sl_type *from, const sl_type *to)
{
	sl_kind f = from->kind, t = to->kind;
	if (f == SL_NULLTYPE || sl_type_equal(from, to))
		return true;
	if (t == SL_STRING)
		return true; /* structs and arrays print as show() does */
	if (f == SL_BINARY || t == SL_BINARY)
		return f == SL_STRING && t == SL_BINARY;
	return is_atomic(f) && is_atomic(t) && f != SL_STRUCT;
}

static int resolve_case(sl_expr *r, sl_err *err)
{
	sl_type *t = sl_type_prim(SL_NULLTYPE), *nt;
	bool nul = r->nargs % 2 == 0;
	int i;
	for (i = 0; i + 1 < r->nargs; i += 2) {
		if (r->args[i]->rtype->kind != SL_BOOLEAN &&
		    r->args[i]->rtype->kind != SL_NULLTYPE)
			return sl_expr_mismatch(
			    err, r,
			    "WHEN expressions in CaseWhen should all be boolean type");
		if (cast_arg(r, i, sl_type_prim(SL_BOOLEAN), err) < 0)
			return SL_ENOMEM;
	}
	/* values: odd positions, and the ELSE (last, when nargs is odd) */
	for (i = 0; i < r->nargs; i++) {
		if (i % 2 == 0 && !(r->nargs % 2 == 1 && i == r->nargs - 1))
			continue;
		nt = sl_expr_common_type(t, r->args[i]->rtype);
		if (nt == NULL)
			return sl_expr_mismatch(
			    err, r,
			    "THEN and ELSE expressions should all be same type or coercible to a common type");
		t = nt;
		nul = nul || r->args[i]->nullable;
	}
	if (t->kind == SL_NULLTYPE)
		t = sl_type_prim(SL_STRING);
	for (i = 0; i < r->nargs; i++) {
		if (i % 2 == 0 && !(r->nargs % 2 == 1 && i == r->nargs - 1))
			continue;
		if (cast_arg(r, i, t, err) < 0)
			return SL_ENOMEM;
	}
	return set_rtype(r, t, nul);
}

static int resolve_in(sl_expr *r, sl_err *err)
{
	sl_type *t = r->args[0]->rtype;
	bool nul = false;
	int i;
	for (i = 1; i < r->nargs; i++) {
		sl_type *nt = cmp_type(t, r->args[i]->rtype);
		if (nt == NULL || !is_atomic(nt->kind))
			return sl_expr_mismatch(
			    err, r, "arguments must be same type but were: %s",
			    kind_word(r->args[i]->rtype->kind));
		t = nt;
	}
	for (i = 0; i < r->nargs; i++) {
		nul = nul || r->args[i]->nullable;
		if (cast_arg(r, i, t, err) < 0)
			return SL_ENOMEM;
	}
	return set_rtype(r, sl_type_prim(SL_BOOLEAN), nul);
}

static int resolve_call(sl_expr *r, sl_err *err)
{
	const sl_func *fn = sl_func_lookup(r->name);
	const char *near;
	int i;
	if (fn == NULL) {
		sl_err_set(err, SL_EANALYSIS, "undefined function '%s'",
			   r->name);
		near = sl_func_nearest(r->name);
		if (near != NULL)
			sl_err_hint(err, "did you mean '%s'?", near);
		return SL_EANALYSIS;
	}
	if (r->nargs < fn->min_args ||
	    (fn->max_args >= 0 && r->nargs > fn->max_args)) {
		if (fn->max_args == fn->min_args)
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "invalid number of arguments for function '%s': expected %d; found %d",
			    r->name, fn->min_args, r->nargs);
		if (fn->max_args < 0)
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "invalid number of arguments for function '%s': expected at least %d; found %d",
			    r->name, fn->min_args, r->nargs);
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "invalid number of arguments for function '%s': expected %d to %d; found %d",
		    r->name, fn->min_args, fn->max_args, r->nargs);
	}
	if (fn->kind == SL_FN_AGG)
		for (i = 0; i < r->nargs; i++)
			if (sl_expr_has_agg(r->args[i]))
				return sl_err_set(
				    err, SL_EANALYSIS,
				    "it is not allowed to use an aggregate function in the argument of another aggregate function");
	r->fn = fn;
	return fn->resolve(r, err);
}

static int resolve_node(sl_expr *r, sl_err *err)
{
	sl_type *t;
	switch (r->kind) {
	case SL_X_BINOP: return resolve_binop(r, err);
	case SL_X_NOT:
		t = sl_type_prim(SL_BOOLEAN);
		if (cmp_type(r->args[0]->rtype, t) != t ||
		    r->args[0]->rtype->kind == SL_STRING)
			return unary_mismatch(r, "boolean", err);
		if (cast_arg(r, 0, t, err) < 0)
			return SL_ENOMEM;
		return set_rtype(r, t, r->args[0]->nullable);
	case SL_X_NEG:
		t = r->args[0]->rtype;
		if (t->kind == SL_STRING || t->kind == SL_NULLTYPE)
			t = sl_type_prim(SL_DOUBLE);
		if (!is_num(t->kind))
			return unary_mismatch(r, "numeric", err);
		if (cast_arg(r, 0, t, err) < 0)
			return SL_ENOMEM;
		return set_rtype(r, t, r->args[0]->nullable);
	case SL_X_CAST:
		if (!castable(r->args[0]->rtype, r->type)) {
			sl_buf a, b;
			int rc;
			sl_buf_init(&a);
			sl_buf_init(&b);
			rc = sl_expr_mismatch(err, r, "cannot cast %s to %s",
					      tname(r->args[0]->rtype, &a),
					      tname(r->type, &b));
			sl_buf_release(&a);
			sl_buf_release(&b);
			return rc;
		}
		return set_rtype(r, r->type,
				 r->args[0]->nullable ||
				     r->args[0]->rtype->kind == SL_STRING ||
				     r->type->kind == SL_TIMESTAMP);
	case SL_X_ALIAS:
	case SL_X_SORT:
		return set_rtype(r, r->args[0]->rtype, r->args[0]->nullable);
	case SL_X_CASE: return resolve_case(r, err);
	case SL_X_ISNULL:
	case SL_X_ISNOTNULL:
		return set_rtype(r, sl_type_prim(SL_BOOLEAN), false);
	case SL_X_IN: return resolve_in(r, err);
	case SL_X_CALL: return resolve_call(r, err);
	default:
		return sl_err_set(err, SL_EINTERNAL,
				  "resolve: unexpected node");
	}
}

static sl_expr *resolve(const sl_expr *e, const sl_type *schema, sl_err *err)
{
	sl_expr *r;
	int i;
	if (e->kind == SL_X_COL)
		return resolve_col(e, schema, err);
	if (e->kind == SL_X_STAR) {
		sl_err_set(err, SL_EANALYSIS,
			   "invalid usage of '*' in expression");
		return NULL;
	}
	if (e->kind == SL_X_FIELD) {
		r = resolve(e->args[0], schema, err);
		return r ? field_of(r, e->name, false, e->pos, err) : NULL;
	}
	r = node_copy(e);
	if (r == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (e->kind == SL_X_LIT) {
		set_rtype(r, e->type, e->lit.null);
		return r;
	}
	for (i = 0; i < e->nargs; i++) {
		r->args[i] = resolve(e->args[i], schema, err);
		if (r->args[i] == NULL) {
			sl_expr_free(r);
			return NULL;
		}
	}
	if (resolve_node(r, err) < 0) {
		sl_expr_free(r);
		return NULL;
	}
	return r;
}

sl_expr *sl_expr_resolve(const sl_expr *e, const sl_type *schema, sl_err *err)
{
	if (schema == NULL || schema->kind != SL_STRUCT) {
		sl_err_set(err, SL_EINTERNAL,
			   "resolve: schema is not a struct");
		return NULL;
	}
	return resolve(e, schema, err);
}

/* ------------------------------------------------------------ evaluation */

static sl_col *eval(const sl_expr *e, const sl_batch *b, sl_err *err);

sl_col *sl_expr_lit_col(const sl_expr *lit, int64_t n)
{
	sl_type *t = lit->rtype ? lit->rtype : lit->type;
	sl_col *c;
	int64_t i;
	char *p;
	if (lit->lit.null || t->kind == SL_NULLTYPE)
		return sl_col_new_null(t, n);
	c = sl_col_new(t, n);
	if (c == NULL)
		return NULL;
	switch (t->kind) {
	case SL_BOOLEAN: memset(c->data, lit->lit.i ? 1 : 0, (size_t)n); break;
	case SL_INT:
		for (i = 0; i < n; i++)
			sl_col_i32(c)[i] = (int32_t)lit->lit.i;
		break;
	case SL_BIGINT:
	case SL_TIMESTAMP:
		for (i = 0; i < n; i++)
			sl_col_i64(c)[i] = lit->lit.i;
		break;
	case SL_DOUBLE:
		for (i = 0; i < n; i++)
			sl_col_f64(c)[i] = lit->lit.d;
		break;
	case SL_STRING:
	case SL_BINARY:
		/* one copy of the bytes; every row points at it */
		c->arena = sl_arena_new();
		p = c->arena ? sl_arena_dup(c->arena, lit->lit.s, lit->lit.n)
			     : NULL;
		if (p == NULL) {
			sl_col_free(c);
			return NULL;
		}
		for (i = 0; i < n; i++) {
			sl_col_str(c)[i].p = p;
			sl_col_str(c)[i].len = (uint32_t)lit->lit.n;
		}
		break;
	default: break;
	}
	return c;
}

/* A subtree without column references evaluates to the same value on every
 * row: the kernels broadcast it as a scalar instead of a column. */
static bool const_tree(const sl_expr *e)
{
	int i;
	if (e->kind == SL_X_COL || e->kind == SL_X_STAR)
		return false;
	if (e->kind == SL_X_CALL &&
	    (e->fn == NULL || e->fn->kind != SL_FN_SCALAR))
		return false;
	for (i = 0; i < e->nargs; i++)
		if (!const_tree(e->args[i]))
			return false;
	return true;
}

static void value_at(const sl_col *c, int64_t i, sl_value *v)
{
	memset(v, 0, sizeof *v);
	if (c->type->kind == SL_NULLTYPE || sl_col_isnull(c, i)) {
		v->null = true;
		return;
	}
	switch (c->type->kind) {
	case SL_BOOLEAN: v->i = sl_col_u8(c)[i]; break;
	case SL_INT: v->i = sl_col_i32(c)[i]; break;
	case SL_BIGINT:
	case SL_TIMESTAMP: v->i = sl_col_i64(c)[i]; break;
	case SL_DOUBLE: v->d = sl_col_f64(c)[i]; break;
	case SL_STRING:
	case SL_BINARY:
		v->s = (char *)sl_col_str(c)[i].p;
		v->n = sl_col_str(c)[i].len;
		break;
	default: break;
	}
}

/* An operand of a binary kernel: a column, or a scalar (col kept alive). */
struct operand {
	sl_col *c; /* owned reference */
	bool scalar;
	sl_value v; /* scalar value; strings borrowed from c */
};

static int operand_get(const sl_expr *e, const sl_batch *b, struct operand *o,
		       sl_err *err)
{
	memset(o, 0, sizeof *o);
	if (const_tree(e)) {
		sl_batch one = { NULL, 1, 0, NULL, 1 };
		o->c = eval(e, &one, err);
		if (o->c == NULL)
			return -1;
		o->scalar = true;
		value_at(o->c, 0, &o->v);
		return 0;
	}
	o->c = eval(e, b, err);
	return o->c == NULL ? -1 : 0;
}

static sl_col *result_col(const sl_expr *e, int64_t n, sl_err *err)
{
	sl_col *o = sl_col_new(e->rtype, n);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

/* For kernels that write every row: values not zeroed first. */
static sl_col *result_col_raw(const sl_expr *e, int64_t n, sl_err *err)
{
	sl_col *o = sl_col_new_raw(e->rtype, n);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

/* x and y: the element types; the loop shapes column/column, column/scalar
 * and scalar/column share one expression EX over (x, y). */
#define BIN_LOOP(T, XA, XS, YA, YS, OUT, EX)                                   \
	do {                                                                   \
		if ((XA) != NULL && (YA) != NULL) {                            \
			for (i = 0; i < n; i++) {                              \
				T x = (XA)[i], y = (YA)[i];                    \
				(OUT)[i] = (EX);                               \
			}                                                      \
		} else if ((XA) != NULL) {                                     \
			T y = (YS);                                            \
			for (i = 0; i < n; i++) {                              \
				T x = (XA)[i];                                 \
				(OUT)[i] = (EX);                               \
			}                                                      \
		} else {                                                       \
			T x = (XS);                                            \
			for (i = 0; i < n; i++) {                              \
				T y = (YA)[i];                                 \
				(OUT)[i] = (EX);                               \
			}                                                      \
		}                                                              \
	} while (0)

/* Integer kernels wrap like Java through unsigned arithmetic (no UB). */
#define INT_ARITH(T, UT, XA, XS, YA, YS, OUT)                                  \
	switch (op) {                                                          \
	case SL_OP_ADD:                                                        \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (T)((UT)x + (UT)y));          \
		break;                                                         \
	case SL_OP_SUB:                                                        \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (T)((UT)x - (UT)y));          \
		break;                                                         \
	case SL_OP_MUL:                                                        \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (T)((UT)x * (UT)y));          \
		break;                                                         \
	default:                                                               \
		BIN_LOOP(T, XA, XS, YA, YS, OUT,                               \
			 (T)(y == 0 || y == -1 ? 0 : x % y));                  \
	}

/* Remainder by a constant divisor without a division per row (a 64-bit
 * division is 40+ cycles; `value % 1000` is in every benchmark's select):
 * Granlund and Montgomery's round-up method (Hacker's Delight 10-8).  For
 * d >= 2, l = ceil(log2 d), m = floor(2^64 (2^l - d) / d) + 1 (< 2^64);
 * then n / d = (t + ((n - t) >> 1)) >> (l - 1) with t = mulhi(m, n), exact
 * for every 64-bit n.  The sign follows the dividend, as Java's %. */
typedef struct cmod {
	uint64_t d, m;
	int sh;
} cmod;

static cmod cmod_new(uint64_t d) /* d >= 2 */
{
	cmod c;
	int l = 64 - __builtin_clzll(d - 1);
	unsigned __int128 num = ((unsigned __int128)1 << l) - d;
	c.d = d;
	c.m = (uint64_t)((num << 64) / d + 1);
	c.sh = l - 1;
	return c;
}

static inline int64_t cmod_rem(const cmod *c, int64_t x)
{
	uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
	uint64_t t = (uint64_t)(((unsigned __int128)c->m * u) >> 64);
	uint64_t q = (t + ((u - t) >> 1)) >> c->sh;
	uint64_t r = u - q * c->d;
	return x < 0 ? (int64_t)(0 - r) : (int64_t)r;
}

/* x % y for a column x and a scalar y (not 0 or -1: handled before). */
#define CMOD_LOOP(T, XA, YS, OUT)                                              \
	do {                                                                   \
		uint64_t ay = (YS) < 0 ? 0 - (uint64_t)(int64_t)(YS)           \
				       : (uint64_t)(int64_t)(YS);              \
		cmod c;                                                        \
		if (ay == 1) {                                                 \
			memset((OUT), 0, (size_t)n * sizeof(T));               \
			break;                                                 \
		}                                                              \
		c = cmod_new(ay);                                              \
		for (i = 0; i < n; i++)                                        \
			(OUT)[i] = (T)cmod_rem(&c, (XA)[i]);                   \
	} while (0)

static void arith_i32(int op, const int32_t *xa, int32_t xs, const int32_t *ya,
		      int32_t ys, int32_t *o, int64_t n)
{
	int64_t i;
	if (op == SL_OP_MOD && xa != NULL && ya == NULL && ys != 0 &&
	    ys != -1) {
		CMOD_LOOP(int32_t, xa, ys, o);
		return;
	}
	INT_ARITH(int32_t, uint32_t, xa, xs, ya, ys, o)
}

static void arith_i64(int op, const int64_t *xa, int64_t xs, const int64_t *ya,
		      int64_t ys, int64_t *o, int64_t n)
{
	int64_t i;
	if (op == SL_OP_MOD && xa != NULL && ya == NULL && ys != 0 &&
	    ys != -1) {
		CMOD_LOOP(int64_t, xa, ys, o);
		return;
	}
	INT_ARITH(int64_t, uint64_t, xa, xs, ya, ys, o)
}

static void arith_f64(int op, const double *xa, double xs, const double *ya,
		      double ys, double *o, int64_t n)
{
	int64_t i;
	switch (op) {
	case SL_OP_ADD: BIN_LOOP(double, xa, xs, ya, ys, o, x + y); break;
	case SL_OP_SUB: BIN_LOOP(double, xa, xs, ya, ys, o, x - y); break;
	case SL_OP_MUL: BIN_LOOP(double, xa, xs, ya, ys, o, x *y); break;
	case SL_OP_DIV:
		BIN_LOOP(double, xa, xs, ya, ys, o, y == 0 ? 0 : x / y);
		break;
	default:
		BIN_LOOP(double, xa, xs, ya, ys, o, y == 0 ? 0 : fmod(x, y));
		break;
	}
}

/* Division and remainder by zero give NULL (Spark, non-ANSI); y is a
 * column here (a zero scalar divisor was handled before the kernel). */
static int zero_divisors(sl_col *o, const sl_col *y, int64_t n)
{
	int64_t i;
	for (i = 0; i < n; i++) {
		bool z = y->type->kind == SL_DOUBLE ? sl_col_f64(y)[i] == 0
			 : y->type->kind == SL_INT  ? sl_col_i32(y)[i] == 0
						    : sl_col_i64(y)[i] == 0;
		if (z && !sl_col_isnull(y, i) && sl_func_mark_null(o, i) < 0)
			return SL_ENOMEM;
	}
	return 0;
}

static void operand_release(struct operand *o)
{
	sl_col_free(o->c);
	o->c = NULL;
}

/* Both scalar only when the whole node is constant but evaluated over a
 * batch: then widen x to a column. */
static int operands(const sl_expr *e, const sl_batch *b, struct operand *x,
		    struct operand *y, sl_err *err)
{
	if (operand_get(e->args[0], b, x, err) < 0)
		return -1;
	if (operand_get(e->args[1], b, y, err) < 0) {
		operand_release(x);
		return -1;
	}
	if (x->scalar && y->scalar) {
		operand_release(x);
		x->scalar = false;
		x->c = eval(e->args[0], b, err);
		if (x->c == NULL) {
			operand_release(y);
			return -1;
		}
	}
	return 0;
}

static bool scalar_zero(const struct operand *y)
{
	sl_kind k = y->c->type->kind;
	return y->scalar && (k == SL_DOUBLE ? y->v.d == 0 : y->v.i == 0);
}

static sl_col *eval_arith(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	struct operand x, y;
	sl_col *o = NULL, *ins[2];
	int64_t n = b->nrows;
	int op = e->op;
	sl_kind k;
	if (operands(e, b, &x, &y, err) < 0)
		return NULL;
	if ((x.scalar && x.v.null) || (y.scalar && y.v.null) ||
	    ((op == SL_OP_DIV || op == SL_OP_MOD) && scalar_zero(&y))) {
		o = sl_col_new_null(e->rtype, n);
		goto done;
	}
	o = result_col_raw(e, n, err); /* every row is written below */
	if (o == NULL)
		goto done;
	k = x.c->type->kind;
	if (k == SL_INT)
		arith_i32(op, x.scalar ? NULL : sl_col_i32(x.c), (int32_t)x.v.i,
			  y.scalar ? NULL : sl_col_i32(y.c), (int32_t)y.v.i,
			  sl_col_i32(o), n);
	else if (k == SL_DOUBLE)
		arith_f64(op, x.scalar ? NULL : sl_col_f64(x.c), x.v.d,
			  y.scalar ? NULL : sl_col_f64(y.c), y.v.d,
			  sl_col_f64(o), n);
	else /* BIGINT, and TIMESTAMP +- interval literal */
		arith_i64(op, x.scalar ? NULL : sl_col_i64(x.c), x.v.i,
			  y.scalar ? NULL : sl_col_i64(y.c), y.v.i,
			  sl_col_i64(o), n);
	ins[0] = x.scalar ? NULL : x.c;
	ins[1] = y.scalar ? NULL : y.c;
	if (sl_func_nulls_merge(o, ins, 2) < 0 ||
	    ((op == SL_OP_DIV || op == SL_OP_MOD) && !y.scalar &&
	     zero_divisors(o, y.c, n) < 0)) {
		sl_col_free(o);
		o = NULL;
		sl_err_nomem(err);
		goto done;
	}
	sl_func_zero_nulls(o);
done:
	if (o == NULL)
		sl_err_nomem(err);
	operand_release(&x);
	operand_release(&y);
	return o;
}

static int str_cmp(sl_str a, sl_str b)
{
	uint32_t m = a.len < b.len ? a.len : b.len;
	int c = m ? memcmp(a.p, b.p, m) : 0;
	if (c != 0)
		return c;
	return a.len < b.len ? -1 : a.len > b.len;
}

static bool str_eq(sl_str a, sl_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

#define CMP_OPS(T, XA, XS, YA, YS, OUT, EQ, CMP)                               \
	switch (op) {                                                          \
	case SL_OP_EQ:                                                         \
	case SL_OP_EQNS: BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)(EQ));      \
	    break;                                                             \
	case SL_OP_NE: BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t) !(EQ));      \
	    break;                                                             \
	case SL_OP_LT:                                                         \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)((CMP) < 0));        \
		break;                                                         \
	case SL_OP_LE:                                                         \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)((CMP) <= 0));       \
		break;                                                         \
	case SL_OP_GT:                                                         \
		BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)((CMP) > 0));        \
		break;                                                         \
	default: BIN_LOOP(T, XA, XS, YA, YS, OUT, (uint8_t)((CMP) >= 0));      \
	    break;                                                             \
	}

#define NUM_CMP(x, y) (((x) > (y)) - ((x) < (y)))

static void cmp_kernel(int op, const struct operand *a, const struct operand *b,
		       uint8_t *o, int64_t n)
{
	int64_t i;
	switch (a->c->type->kind) {
	case SL_BOOLEAN: {
		const uint8_t *xa = a->scalar ? NULL : sl_col_u8(a->c);
		const uint8_t *ya = b->scalar ? NULL : sl_col_u8(b->c);
		CMP_OPS(uint8_t, xa, (uint8_t)a->v.i, ya, (uint8_t)b->v.i, o,
			x == y, NUM_CMP(x, y))
		break;
	}
	case SL_INT: {
		const int32_t *xa = a->scalar ? NULL : sl_col_i32(a->c);
		const int32_t *ya = b->scalar ? NULL : sl_col_i32(b->c);
		CMP_OPS(int32_t, xa, (int32_t)a->v.i, ya, (int32_t)b->v.i, o,
			x == y, NUM_CMP(x, y))
		break;
	}
	case SL_DOUBLE: {
		const double *xa = a->scalar ? NULL : sl_col_f64(a->c);
		const double *ya = b->scalar ? NULL : sl_col_f64(b->c);
		CMP_OPS(double, xa, a->v.d, ya, b->v.d, o, x == y,
			NUM_CMP(x, y))
		break;
	}
	case SL_STRING:
	case SL_BINARY: {
		const sl_str *xa = a->scalar ? NULL : sl_col_str(a->c);
		const sl_str *ya = b->scalar ? NULL : sl_col_str(b->c);
		sl_str xs = { a->v.s, (uint32_t)a->v.n },
		       ys = { b->v.s, (uint32_t)b->v.n };
		CMP_OPS(sl_str, xa, xs, ya, ys, o, str_eq(x, y), str_cmp(x, y))
		break;
	}
	default: { /* BIGINT, TIMESTAMP */
		const int64_t *xa = a->scalar ? NULL : sl_col_i64(a->c);
		const int64_t *ya = b->scalar ? NULL : sl_col_i64(b->c);
		CMP_OPS(int64_t, xa, a->v.i, ya, b->v.i, o, x == y,
			NUM_CMP(x, y))
		break;
	}
	}
}

/* <=>: never NULL; equal when both are NULL. */
static int null_safe_fix(sl_col *o, const struct operand *x,
			 const struct operand *y)
{
	int64_t i;
	for (i = 0; i < o->len; i++) {
		bool xn = x->scalar ? x->v.null : sl_col_isnull(x->c, i);
		bool yn = y->scalar ? y->v.null : sl_col_isnull(y->c, i);
		if (xn || yn)
			sl_col_u8(o)[i] = xn && yn;
	}
	return 0;
}

static sl_col *compare(int op, struct operand *x, struct operand *y, int64_t n,
		       sl_err *err)
{
	sl_col *o, *ins[2];
	bool xnull = x->scalar && x->v.null, ynull = y->scalar && y->v.null;
	if ((xnull || ynull) && op != SL_OP_EQNS)
		return sl_col_new_null(sl_type_prim(SL_BOOLEAN), n);
	o = sl_col_new(sl_type_prim(SL_BOOLEAN), n);
	if (o == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (!xnull && !ynull && x->c->type->kind != SL_NULLTYPE &&
	    y->c->type->kind != SL_NULLTYPE)
		cmp_kernel(op, x, y, sl_col_u8(o), n);
	if (op == SL_OP_EQNS)
		return null_safe_fix(o, x, y) < 0 ? NULL : o;
	ins[0] = x->scalar ? NULL : x->c;
	ins[1] = y->scalar ? NULL : y->c;
	if (sl_func_nulls_merge(o, ins, 2) < 0) {
		sl_col_free(o);
		sl_err_nomem(err);
		return NULL;
	}
	sl_func_zero_nulls(o);
	return o;
}

static sl_col *eval_cmp(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	struct operand x, y;
	sl_col *o;
	if (operands(e, b, &x, &y, err) < 0)
		return NULL;
	o = compare(e->op, &x, &y, b->nrows, err);
	operand_release(&x);
	operand_release(&y);
	return o;
}

/* SQL three-valued AND / OR.  Null slots hold 0 (col.h invariant), so a
 * known FALSE (AND) or TRUE (OR) decides the row regardless of the other. */
static sl_col *eval_logic(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *x = eval(e->args[0], b, err), *y, *o;
	int64_t i, n = b->nrows;
	bool is_and = e->op == SL_OP_AND;
	if (x == NULL)
		return NULL;
	y = eval(e->args[1], b, err);
	o = y ? sl_col_new(sl_type_prim(SL_BOOLEAN), n) : NULL;
	if (o == NULL)
		goto done;
	for (i = 0; i < n; i++) {
		bool xn = sl_col_isnull(x, i), yn = sl_col_isnull(y, i);
		uint8_t xv = xn ? 0 : sl_col_u8(x)[i],
			yv = yn ? 0 : sl_col_u8(y)[i];
		bool decided = is_and ? ((!xn && !xv) || (!yn && !yv))
				      : ((!xn && xv) || (!yn && yv));
		if (decided)
			sl_col_u8(o)[i] = !is_and;
		else if (xn || yn) {
			if (sl_func_mark_null(o, i) < 0) {
				sl_col_free(o);
				o = NULL;
				break;
			}
		} else
			sl_col_u8(o)[i] = is_and;
	}
done:
	if (o == NULL && y != NULL)
		sl_err_nomem(err);
	sl_col_free(x);
	sl_col_free(y);
	return o;
}

static sl_col *copy_nulls_to(sl_col *o, const sl_col *from, sl_err *err)
{
	sl_col *ins[1] = { (sl_col *)from };
	if (sl_func_nulls_merge(o, ins, 1) < 0) {
		sl_col_free(o);
		sl_err_nomem(err);
		return NULL;
	}
	return o;
}

static sl_col *eval_unary(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *x = eval(e->args[0], b, err), *o;
	int64_t i, n = b->nrows;
	bool isnull = e->kind == SL_X_ISNULL;
	if (x == NULL)
		return NULL;
	o = result_col(e, n, err);
	if (o == NULL) {
		sl_col_free(x);
		return NULL;
	}
	if (e->kind == SL_X_ISNULL || e->kind == SL_X_ISNOTNULL) {
		for (i = 0; i < n; i++)
			sl_col_u8(o)[i] =
			    (uint8_t)(sl_col_isnull(x, i) == isnull);
		sl_col_free(x);
		return o;
	}
	if (x->type->kind == SL_NULLTYPE) {
		sl_col_free(o);
		o = sl_col_new_null(e->rtype, n);
		sl_col_free(x);
		return o;
	}
	switch (e->rtype->kind) {
	case SL_BOOLEAN: /* NOT */
		for (i = 0; i < n; i++)
			sl_col_u8(o)[i] = !sl_col_u8(x)[i];
		break;
	case SL_INT:
		for (i = 0; i < n; i++)
			sl_col_i32(o)[i] =
			    (int32_t)(0u - (uint32_t)sl_col_i32(x)[i]);
		break;
	case SL_BIGINT:
		for (i = 0; i < n; i++)
			sl_col_i64(o)[i] =
			    (int64_t)(0u - (uint64_t)sl_col_i64(x)[i]);
		break;
	default:
		for (i = 0; i < n; i++)
			sl_col_f64(o)[i] = -sl_col_f64(x)[i];
		break;
	}
	o = copy_nulls_to(o, x, err);
	if (o != NULL)
		sl_func_zero_nulls(o);
	sl_col_free(x);
	return o;
}

/* v IN (l1, l2, ...): TRUE if some li = v; else NULL if v or some li is
 * NULL; else FALSE (SQL three-valued logic). */
static sl_col *eval_in(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	struct operand v, it;
	sl_col *o = NULL, *t;
	uint8_t *unknown = NULL;
	int64_t i, n = b->nrows;
	int k;
	if (operand_get(e->args[0], b, &v, err) < 0)
		return NULL;
	if (v.scalar) { /* constant IN: evaluate the value as a column */
		operand_release(&v);
		v.c = eval(e->args[0], b, err);
		if (v.c == NULL)
			return NULL;
	}
	o = sl_col_new(sl_type_prim(SL_BOOLEAN), n);
	unknown = calloc((size_t)n + 1, 1);
	if (o == NULL || unknown == NULL)
		goto oom;
	for (k = 1; k < e->nargs; k++) {
		if (operand_get(e->args[k], b, &it, err) < 0)
			goto fail;
		t = compare(SL_OP_EQ, &v, &it, n, err);
		operand_release(&it);
		if (t == NULL)
			goto fail;
		for (i = 0; i < n; i++) {
			sl_col_u8(o)[i] |= sl_col_u8(t)[i];
			unknown[i] |= (uint8_t)sl_col_isnull(t, i);
		}
		sl_col_free(t);
	}
	for (i = 0; i < n; i++)
		if (!sl_col_u8(o)[i] && unknown[i] &&
		    sl_func_mark_null(o, i) < 0)
			goto oom;
	free(unknown);
	operand_release(&v);
	return o;
oom:
	sl_err_nomem(err);
fail:
	free(unknown);
	sl_col_free(o);
	operand_release(&v);
	return NULL;
}

static sl_col *eval_case(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	int64_t i, n = b->nrows;
	int k, nw = e->nargs / 2, rc = 0;
	sl_col **cols = calloc((size_t)e->nargs + 1, sizeof *cols), *o = NULL;
	int *pick = malloc(((size_t)n + 1) * sizeof *pick);
	if (cols == NULL || pick == NULL)
		goto oom;
	if (e->rtype->kind == SL_STRUCT || e->rtype->kind == SL_ARRAY) {
		sl_err_set(err, SL_EANALYSIS,
			   "CASE over struct or array values is not supported");
		goto fail;
	}
	for (k = 0; k < e->nargs; k++)
		if ((cols[k] = eval(e->args[k], b, err)) == NULL)
			goto fail;
	for (i = 0; i < n; i++) {
		pick[i] = e->nargs % 2 ? e->nargs - 1 : -1;
		for (k = 0; k < nw; k++)
			if (!sl_col_isnull(cols[2 * k], i) &&
			    sl_col_u8(cols[2 * k])[i]) {
				pick[i] = 2 * k + 1;
				break;
			}
	}
	o = sl_col_new(e->rtype, n);
	if (o == NULL)
		goto oom;
	for (i = 0; i < n && rc == 0; i++)
		rc = pick[i] < 0 ? sl_col_set_null(o, i)
				 : sl_col_copy_row(o, i, cols[pick[i]], i);
	if (rc < 0) {
		sl_col_free(o);
		goto oom;
	}
	goto done;
oom:
	sl_err_nomem(err);
fail:
	o = NULL;
done:
	for (k = 0; cols != NULL && k < e->nargs; k++)
		sl_col_free(cols[k]);
	free(cols);
	free(pick);
	return o;
}

static sl_col *eval_field(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *s = eval(e->args[0], b, err), *o;
	int64_t i;
	if (s == NULL)
		return NULL;
	if (s->nulls == NULL) {
		o = sl_col_ref(s->child[e->idx]);
		sl_col_free(s);
		return o;
	}
	/* a field of a NULL struct is NULL */
	o = sl_col_copy(s->child[e->idx]);
	for (i = 0; o != NULL && i < s->len; i++)
		if (sl_col_isnull(s, i) && sl_col_set_null(o, i) < 0) {
			sl_col_free(o);
			o = NULL;
		}
	if (o == NULL)
		sl_err_nomem(err);
	sl_col_free(s);
	return o;
}

static sl_col *eval_call(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *args[16] = { 0 }, **av = args, *o = NULL;
	int k;
	if (e->fn->kind == SL_FN_AGG) {
		sl_err_set(err, SL_EANALYSIS,
			   "aggregate function '%s' is not allowed here",
			   e->name);
		return NULL;
	}
	if (e->fn->kind == SL_FN_GENERATOR || e->fn->eval == NULL) {
		sl_err_set(err, SL_EANALYSIS,
			   "generator function '%s' is not allowed here",
			   e->name);
		return NULL;
	}
	if (e->nargs > 16 &&
	    (av = calloc((size_t)e->nargs, sizeof *av)) == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (k = 0; k < e->nargs; k++)
		if (!sl_func_const_arg(e->fn, k) &&
		    (av[k] = eval(e->args[k], b, err)) == NULL)
			goto done;
	o = e->fn->eval(e, av, b->nrows, err);
done:
	for (k = 0; k < e->nargs; k++)
		sl_col_free(av[k]);
	if (av != args)
		free(av);
	return o;
}

static sl_col *eval_cast(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *x = eval(e->args[0], b, err), *o;
	if (x == NULL)
		return NULL;
	if (sl_type_equal(x->type, e->rtype))
		return x;
	o = sl_cast_col(x, e->rtype, err);
	sl_col_free(x);
	return o;
}

static sl_col *eval(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	sl_col *o;
	if (e->rtype == NULL) {
		sl_err_set(err, SL_EINTERNAL,
			   "eval: expression is not resolved");
		return NULL;
	}
	switch (e->kind) {
	case SL_X_COL: return sl_col_ref(b->cols[e->idx]);
	case SL_X_LIT:
		o = sl_expr_lit_col(e, b->nrows);
		if (o == NULL)
			sl_err_nomem(err);
		return o;
	case SL_X_ALIAS:
	case SL_X_SORT: return eval(e->args[0], b, err);
	case SL_X_FIELD: return eval_field(e, b, err);
	case SL_X_CAST: return eval_cast(e, b, err);
	case SL_X_BINOP:
		if (e->op <= SL_OP_MOD)
			return eval_arith(e, b, err);
		if (e->op == SL_OP_AND || e->op == SL_OP_OR)
			return eval_logic(e, b, err);
		if (e->op == SL_OP_CONCAT)
			return eval_call(e, b, err);
		return eval_cmp(e, b, err);
	case SL_X_NOT:
	case SL_X_NEG:
	case SL_X_ISNULL:
	case SL_X_ISNOTNULL: return eval_unary(e, b, err);
	case SL_X_IN: return eval_in(e, b, err);
	case SL_X_CASE: return eval_case(e, b, err);
	case SL_X_CALL: return eval_call(e, b, err);
	default:
		sl_err_set(err, SL_EINTERNAL, "eval: unexpected node");
		return NULL;
	}
}

sl_col *sl_expr_eval(const sl_expr *e, const sl_batch *b, sl_err *err)
{
	return eval(e, b, err);
}

int sl_expr_eval_const(const sl_expr *e, sl_value *out, sl_err *err)
{
	sl_batch one = { NULL, 1, 0, NULL, 1 };
	sl_col *c;
	sl_value v;
	memset(out, 0, sizeof *out);
	if (!const_tree(e))
		return sl_err_set(err, SL_EANALYSIS,
				  "expression is not a constant");
	c = eval(e, &one, err);
	if (c == NULL)
		return err ? err->code : SL_EINTERNAL;
	value_at(c, 0, &v);
	*out = v;
	if (v.s != NULL) {
		out->s = malloc(v.n + 1);
		if (out->s == NULL) {
			sl_col_free(c);
			return sl_err_nomem(err);
		}
		memcpy(out->s, v.s, v.n);
		out->s[v.n] = '\0';
	}
	sl_col_free(c);
	return 0;
}

void sl_value_release(sl_value *v)
{
	free(v->s);
	memset(v, 0, sizeof *v);
}
