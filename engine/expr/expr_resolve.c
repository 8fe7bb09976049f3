/*
 * expr_resolve: resolving an expression tree against a schema (expr.h's
 * sl_expr_resolve): columns found by name (with Spark's "did you mean"),
 * functions looked up in the registry (func.c), types checked with Spark's
 * sentences and implicit casts inserted (op == 1, invisible in names).
 * Borrows its input and returns a new tree.
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

static bool date_ts(const sl_type *a, const sl_type *b)
{
	return (a->kind == SL_DATE && b->kind == SL_TIMESTAMP) ||
	       (a->kind == SL_TIMESTAMP && b->kind == SL_DATE);
}

sl_type *sl_expr_common_type(sl_type *a, sl_type *b)
{
	if (a->kind == SL_NULLTYPE)
		return b;
	if (b->kind == SL_NULLTYPE || sl_type_equal(a, b))
		return a;
	if (is_num(a->kind) && is_num(b->kind))
		return a->kind > b->kind ? a : b;
	if (date_ts(a, b)) /* Spark: a date widens to its midnight */
		return sl_type_prim(SL_TIMESTAMP);
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
	if (to == SL_TIMESTAMP && from == SL_DATE)
		return true; /* year(d), window(d, ...): its midnight */
	if (to == SL_TIMESTAMP || to == SL_BINARY)
		return from == SL_STRING;
	if (to == SL_DATE)
		return from == SL_STRING || from == SL_TIMESTAMP;
	return false;
}

static const char *kind_word(sl_kind k)
{
	static const char *const w[] = { "void",   "boolean",   "int",
					 "bigint", "double",    "string",
					 "binary", "timestamp", "date",
					 "struct", "array" };
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
	sl_expr *c = sl_expr_node_named(e->kind, e->name, e->nargs);
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
	c = sl_expr_node_named(SL_X_COL, schema->fields[k].name, 0);
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
	if ((is_num(l->kind) && is_num(r->kind)) || date_ts(l, r))
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
		/* structs and arrays of one type compare field by field
		 * (Spark's interpreted ordering, col.h sl_col_cmp); a NULL
		 * literal on either side is cast to the other's type */
		t = cmp_type(r->args[0]->rtype, r->args[1]->rtype);
		if (t == NULL)
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
	int i;
	if (f == SL_NULLTYPE || sl_type_equal(from, to))
		return true;
	if (t == SL_STRING)
		return true; /* structs and arrays print as show() does */
	if (f == SL_ARRAY && t == SL_ARRAY) /* element by element */
		return castable(from->elem, to->elem);
	if (f == SL_STRUCT && t == SL_STRUCT) {
		/* Spark's Cast.canCast: field by field by position, the
		 * target's names; a nullable field never into a NOT NULL one */
		if (from->nfields != to->nfields)
			return false;
		for (i = 0; i < to->nfields; i++)
			if (!castable(from->fields[i].type, to->fields[i].type) ||
			    (from->fields[i].nullable && !to->fields[i].nullable))
				return false;
		return true;
	}
	if (f == SL_STRUCT || t == SL_STRUCT || f == SL_ARRAY || t == SL_ARRAY)
		return false;
	if (f == SL_BINARY || t == SL_BINARY)
		return f == SL_STRING && t == SL_BINARY;
	if (f == SL_DATE || t == SL_DATE) /* numbers <-> dates: not here */
		return f == SL_STRING || f == SL_TIMESTAMP || f == SL_DATE ||
		       t == SL_TIMESTAMP;
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

static sl_expr *resolve(const sl_expr *e, const sl_type *schema, sl_err *err);

/* struct(*) / struct(a, *): the star stands for every input column, in
 * order (Spark expands it in CreateStruct's arguments: to_json(struct(*))
 * is how a row becomes a Kafka value).  A qualified t.* is not expanded
 * here: it stays "invalid usage of '*'". */
static sl_expr *resolve_struct_star(const sl_expr *e, const sl_type *schema,
				    sl_err *err)
{
	sl_expr **a, *x, *r;
	int i, k, n = 0;
	for (i = 0; i < e->nargs; i++)
		n += e->args[i]->kind == SL_X_STAR && e->args[i]->name == NULL
			 ? schema->nfields
			 : 1;
	if ((a = calloc((size_t)n + 1, sizeof *a)) == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0, n = 0; i < e->nargs; i++) {
		if (e->args[i]->kind != SL_X_STAR || e->args[i]->name != NULL) {
			a[n++] = sl_expr_ref((sl_expr *)e->args[i]);
			continue;
		}
		for (k = 0; k < schema->nfields; k++)
			a[n++] = sl_expr_col(schema->fields[k].name);
	}
	x = sl_expr_call(e->name, a, n); /* takes a[]'s nodes, even on failure */
	free(a);
	if (x == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	r = resolve(x, schema, err);
	sl_expr_free(x);
	return r;
}

static bool struct_star(const sl_expr *e)
{
	int i;
	if (e->kind != SL_X_CALL || e->name == NULL ||
	    strcasecmp(e->name, "struct") != 0)
		return false;
	for (i = 0; i < e->nargs; i++)
		if (e->args[i]->kind == SL_X_STAR && e->args[i]->name == NULL)
			return true;
	return false;
}

static sl_expr *resolve(const sl_expr *e, const sl_type *schema, sl_err *err)
{
	sl_expr *r;
	int i;
	if (e->kind == SL_X_COL)
		return resolve_col(e, schema, err);
	if (struct_star(e))
		return resolve_struct_star(e, schema, err);
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
