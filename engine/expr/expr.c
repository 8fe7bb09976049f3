/*
 * expr: expression trees: the builders, names and SQL text, and the kinds
 * of function.  Resolution against a schema is expr_resolve.c; evaluation
 * (whole columns per node, type-specialised kernels) is expr_eval.c.
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
#include <strings.h>

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

sl_expr *sl_expr_node_named(sl_expr_kind kind, const char *name, int nargs)
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
	return sl_expr_node_named(SL_X_COL, name, 0);
}

sl_expr *sl_expr_star(const char *qualifier)
{
	return sl_expr_node_named(SL_X_STAR, qualifier, 0);
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

sl_expr *sl_expr_lit_date(int32_t days)
{
	sl_expr *e = lit_new(SL_DATE);
	if (e != NULL)
		e->lit.i = days;
	return e;
}

static sl_expr *call_new(const char *fname, sl_expr **args, int nargs,
			 bool distinct)
{
	sl_expr *e = sl_expr_node_named(SL_X_CALL, fname, nargs);
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
	return with_args(sl_expr_node_named(SL_X_ALIAS, name, 1), &a, 1);
}

sl_expr *sl_expr_field(sl_expr *a, const char *name)
{
	return with_args(sl_expr_node_named(SL_X_FIELD, name, 1), &a, 1);
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

static bool has_col(const sl_expr *e)
{
	int i;
	if (e->kind == SL_X_COL)
		return true;
	for (i = 0; i < e->nargs; i++)
		if (has_col(e->args[i]))
			return true;
	return false;
}

/* A resolved node like e with no children yet (a column-free subtree is
 * shared instead, so LIT nodes never come here). */
static sl_expr *copy_resolved(const sl_expr *e)
{
	sl_expr *c = node_new(e->kind, e->nargs);
	if (c == NULL)
		return NULL;
	if (e->name != NULL && (c->name = str_dup(e->name)) == NULL) {
		sl_expr_free(c);
		return NULL;
	}
	c->op = e->op;
	c->distinct = e->distinct;
	c->type = sl_type_ref(e->type);
	c->rtype = sl_type_ref(e->rtype);
	c->nullable = e->nullable;
	c->idx = e->idx;
	c->fn = e->fn;
	c->pos = e->pos;
	c->lit = e->lit;
	c->lit.s = NULL;
	if (e->lit.s != NULL) {
		if ((c->lit.s = malloc(e->lit.n + 1)) == NULL) {
			sl_expr_free(c);
			return NULL;
		}
		memcpy(c->lit.s, e->lit.s, e->lit.n + 1);
	}
	return c;
}

sl_expr *sl_expr_subst_cols(const sl_expr *e, sl_expr *const *by, int n)
{
	sl_expr *c;
	int i;
	if (e->kind == SL_X_COL)
		return e->idx >= 0 && e->idx < n ? sl_expr_ref(by[e->idx])
						 : NULL;
	if (!has_col(e))
		return sl_expr_ref((sl_expr *)e);
	if ((c = copy_resolved(e)) == NULL)
		return NULL;
	for (i = 0; i < e->nargs; i++)
		if ((c->args[i] = sl_expr_subst_cols(e->args[i], by, n)) ==
		    NULL) {
			sl_expr_free(c);
			return NULL;
		}
	return c;
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
	case SL_DATE:
		sl_buf_adds(out, "DATE '");
		sl_date_format((int32_t)e->lit.i, out);
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
	if (pretty && strcasecmp(e->name, "struct") == 0) {
		/* Spark names struct(s AS t) after its named arguments */
		int i;
		for (i = 0; i < e->nargs; i++) {
			if (i > 0)
				sl_buf_adds(out, ", ");
			text(e->args[i], e->args[i]->kind == SL_X_ALIAS ? false
								   : pretty,
			     out);
		}
	} else
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
