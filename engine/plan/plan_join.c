/*
 * plan_join: the JOIN node (join with `on` or `using`, every join type):
 * its analysis.  The broadcast hash join that runs it is exec/op_join.c.
 *
 * `using` names give one key pair per name (widened to a common type) and
 * Spark's output order: the key columns once (the left's value; the
 * right's for a right join; coalesce(left, right) for a full join), then
 * the other left columns, then the other right columns.  An `on` condition
 * is split at AND into conjuncts; each `l = r` conjunct whose sides
 * resolve on the left and on the right alone becomes a key pair (structs
 * too: `window = rwindow`, compared by the key encoding), the rest is
 * resolved against left ++ right as a residual filter over the joined row.
 * No key pair at all means a nested-loop join.  Output is every left
 * column then every right column (semi/anti: the left only).  A streaming
 * join then gets Spark's pushed and inferred input filters
 * (plan_pushdown.c).
 */
#include "plan/plan_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/func.h"

static const struct {
	const char *name;
	sl_join_type t;
} jnames[] = {
	{ "inner", SL_JOIN_INNER },     { "cross", SL_JOIN_CROSS },
	{ "outer", SL_JOIN_FULL },      { "full", SL_JOIN_FULL },
	{ "fullouter", SL_JOIN_FULL },  { "full_outer", SL_JOIN_FULL },
	{ "leftouter", SL_JOIN_LEFT },  { "left", SL_JOIN_LEFT },
	{ "left_outer", SL_JOIN_LEFT }, { "rightouter", SL_JOIN_RIGHT },
	{ "right", SL_JOIN_RIGHT },     { "right_outer", SL_JOIN_RIGHT },
	{ "leftsemi", SL_JOIN_SEMI },   { "left_semi", SL_JOIN_SEMI },
	{ "semi", SL_JOIN_SEMI },       { "leftanti", SL_JOIN_ANTI },
	{ "left_anti", SL_JOIN_ANTI },  { "anti", SL_JOIN_ANTI },
};

static int join_type(const char *how, sl_join_type *t, sl_err *err)
{
	size_t i;
	if (how == NULL) {
		*t = SL_JOIN_INNER;
		return 0;
	}
	for (i = 0; i < sizeof jnames / sizeof jnames[0]; i++)
		if (strcasecmp(how, jnames[i].name) == 0) {
			*t = jnames[i].t;
			return 0;
		}
	return sl_err_set(
	    err, SL_EANALYSIS,
	    "join: Unsupported join type '%s'. Supported join types include: 'inner', 'outer', 'full', 'fullouter', 'full_outer', 'leftouter', 'left', 'left_outer', 'rightouter', 'right', 'right_outer', 'leftsemi', 'left_semi', 'semi', 'leftanti', 'left_anti', 'anti', 'cross'",
	    how);
}

static bool left_only(sl_join_type t)
{
	return t == SL_JOIN_SEMI || t == SL_JOIN_ANTI;
}

/* Widen a key pair to a common type; false when there is none. */
static bool widen_pair(sl_expr **l, sl_expr **r)
{
	sl_type *t = sl_plan_common_type((*l)->rtype, (*r)->rtype);
	if (t == NULL)
		return false;
	*l = sl_expr_implicit_cast(*l, t);
	*r = sl_expr_implicit_cast(*r, t);
	return *l != NULL && *r != NULL;
}

static int add_key(sl_plan *p, sl_expr *l, sl_expr *r)
{
	sl_expr **a = realloc(p->lkeys, (size_t)(p->njkeys + 1) * sizeof *a);
	sl_expr **b;
	if (a != NULL)
		p->lkeys = a;
	b = realloc(p->rkeys, (size_t)(p->njkeys + 1) * sizeof *b);
	if (b != NULL)
		p->rkeys = b;
	if (a == NULL || b == NULL) {
		sl_expr_free(l);
		sl_expr_free(r);
		return SL_ENOMEM;
	}
	p->lkeys[p->njkeys] = l;
	p->rkeys[p->njkeys++] = r;
	return 0;
}

static int add_out(sl_plan *p, sl_join_src src, int idx)
{
	sl_join_out *o = realloc(p->out, (size_t)(p->nout + 1) * sizeof *o);
	if (o == NULL)
		return SL_ENOMEM;
	p->out = o;
	o[p->nout].src = src;
	o[p->nout++].idx = idx;
	return 0;
}

static int using_keys(sl_plan *p, const sl_type *ls, const sl_type *rs,
		      const char *const *cols, int n, sl_err *err)
{
	int k, li, ri;
	for (k = 0; k < n; k++) {
		sl_expr *l, *r;
		li = sl_type_field_index(ls, cols[k]);
		ri = sl_type_field_index(rs, cols[k]);
		if (li < 0 || ri < 0) {
			const sl_type *s = li < 0 ? ls : rs;
			sl_buf b;
			int j;
			sl_buf_init(&b);
			for (j = 0; j < s->nfields; j++)
				sl_buf_printf(&b, "%s%s", j ? ", " : "",
					      s->fields[j].name);
			sl_err_set(
			    err, SL_EANALYSIS,
			    "join: USING column '%s' cannot be resolved on the %s side of the join. The %s-side columns: [%s]",
			    cols[k], li < 0 ? "left" : "right",
			    li < 0 ? "left" : "right", sl_buf_cstr(&b));
			sl_buf_release(&b);
			return SL_EANALYSIS;
		}
		l = sl_plan_colref(ls, li, err);
		r = sl_plan_colref(rs, ri, err);
		if (l == NULL || r == NULL || !widen_pair(&l, &r)) {
			sl_expr_free(l);
			sl_expr_free(r);
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "join: USING column '%s' has incompatible types on the two sides",
			    cols[k]);
		}
		if (add_key(p, l, r) < 0)
			return sl_err_nomem(err);
	}
	return 0;
}

static bool is_using(const char *name, const char *const *cols, int n)
{
	int k;
	for (k = 0; k < n; k++)
		if (strcasecmp(name, cols[k]) == 0)
			return true;
	return false;
}

static int using_outputs(sl_plan *p, const sl_type *ls, const sl_type *rs,
			 const char *const *cols, int n)
{
	int k, i, rc = 0;
	sl_join_src ks = p->jtype == SL_JOIN_RIGHT  ? SL_JO_RKEY
			 : p->jtype == SL_JOIN_FULL ? SL_JO_COALESCE
						    : SL_JO_LKEY;
	for (k = 0; k < n && rc == 0; k++)
		rc = add_out(p, ks, k);
	for (i = 0; i < ls->nfields && rc == 0; i++)
		if (!is_using(ls->fields[i].name, cols, n))
			rc = add_out(p, SL_JO_LEFT, i);
	for (i = 0; i < rs->nfields && rc == 0 && !left_only(p->jtype); i++)
		if (!is_using(rs->fields[i].name, cols, n))
			rc = add_out(p, SL_JO_RIGHT, i);
	return rc;
}

static bool reads_cols(const sl_expr *e)
{
	int i;
	if (e->kind == SL_X_COL || e->kind == SL_X_STAR)
		return true;
	for (i = 0; i < e->nargs; i++)
		if (reads_cols(e->args[i]))
			return true;
	return false;
}

/* Try l = r (unresolved operands) as a key pair: 1 added, 0 not a pair.
 * An operand that reads no column (`k % 3 = 1`) makes no pair, as in
 * Spark's ExtractEquiJoinKeys: the conjunct is a one-side condition. */
static int try_pair(sl_plan *p, const sl_expr *a, const sl_expr *b,
		    const sl_type *ls, const sl_type *rs)
{
	sl_expr *l = reads_cols(a) && reads_cols(b)
			 ? sl_expr_resolve(a, ls, NULL)
			 : NULL;
	sl_expr *r = l ? sl_expr_resolve(b, rs, NULL) : NULL;
	if (l == NULL || r == NULL || !widen_pair(&l, &r)) {
		sl_expr_free(l);
		sl_expr_free(r);
		return 0;
	}
	return add_key(p, l, r) < 0 ? SL_ENOMEM : 1;
}

/* Split `on` at AND; key pairs go to p, the rest is ANDed into *rest. */
static int split_on(sl_plan *p, const sl_expr *e, const sl_type *ls,
		    const sl_type *rs, sl_expr **rest)
{
	int rc;
	if (e->kind == SL_X_BINOP && e->op == SL_OP_AND) {
		rc = split_on(p, e->args[0], ls, rs, rest);
		return rc < 0 ? rc : split_on(p, e->args[1], ls, rs, rest);
	}
	if (e->kind == SL_X_BINOP && e->op == SL_OP_EQ && !sl_expr_has_agg(e)) {
		rc = try_pair(p, e->args[0], e->args[1], ls, rs);
		if (rc == 0)
			rc = try_pair(p, e->args[1], e->args[0], ls, rs);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	*rest = *rest
		    ? sl_expr_binop(SL_OP_AND, *rest, sl_expr_ref((sl_expr *)e))
		    : sl_expr_ref((sl_expr *)e);
	return *rest ? 0 : SL_ENOMEM;
}

static int on_condition(sl_plan *p, const sl_expr *on, sl_err *err)
{
	const sl_type *ls = p->child[0]->schema, *rs = p->child[1]->schema;
	sl_expr *rest = NULL;
	int i, rc;
	if (on == NULL)
		goto outputs;
	/* key pairs first, each side resolved alone: a struct equality
	 * (`window = rwindow`, Spark's ExtractEquiJoinKeys) is a key pair
	 * even where the expression layer cannot compare structs */
	if ((rc = split_on(p, on, ls, rs, &rest)) < 0)
		return sl_err_nomem(err);
	if (rest != NULL) {
		p->residual = sl_plan_resolve(rest, p->wide, "join", err);
		if (p->residual == NULL) {
			sl_expr_free(rest);
			return err ? err->code : SL_EANALYSIS;
		}
		if (p->residual->rtype->kind != SL_BOOLEAN) {
			sl_buf a, t;
			sl_buf_init(&a);
			sl_buf_init(&t);
			sl_expr_sql(p->njkeys == 0 ? on : rest, &a);
			sl_type_sql(p->residual->rtype, &t);
			sl_err_set(
			    err, SL_EANALYSIS,
			    "join: join condition '%s' of type %s is not a boolean",
			    sl_buf_cstr(&a), sl_buf_cstr(&t));
			sl_buf_release(&a);
			sl_buf_release(&t);
			sl_expr_free(rest);
			return SL_EANALYSIS;
		}
		sl_expr_free(rest);
	}
outputs:
	for (i = 0; i < ls->nfields; i++)
		if (add_out(p, SL_JO_LEFT, i) < 0)
			return sl_err_nomem(err);
	for (i = 0; i < rs->nfields && !left_only(p->jtype); i++)
		if (add_out(p, SL_JO_RIGHT, i) < 0)
			return sl_err_nomem(err);
	return 0;
}

static sl_type *wide_schema(const sl_type *ls, const sl_type *rs, sl_err *err)
{
	int n = ls->nfields + rs->nfields, i;
	sl_type *st = sl_type_struct_new(n);
	if (st == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const sl_field *f = i < ls->nfields
					? &ls->fields[i]
					: &rs->fields[i - ls->nfields];
		if (sl_type_set_field(st, i, f->name, sl_type_ref(f->type),
				      f->nullable) < 0) {
			sl_type_free(st);
			sl_err_nomem(err);
			return NULL;
		}
	}
	return st;
}

static int key_col(const sl_expr *e)
{
	while (e->kind == SL_X_CAST)
		e = e->args[0];
	return e->idx;
}

static int out_schema(sl_plan *p, sl_err *err)
{
	const sl_type *ls = p->child[0]->schema, *rs = p->child[1]->schema;
	bool lnul = p->jtype == SL_JOIN_RIGHT || p->jtype == SL_JOIN_FULL;
	bool rnul = p->jtype == SL_JOIN_LEFT || p->jtype == SL_JOIN_FULL;
	sl_type *st = sl_type_struct_new(p->nout);
	int i;
	if (st == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < p->nout; i++) {
		const sl_join_out *o = &p->out[i];
		const sl_field *f;
		sl_type *t;
		bool nul;
		switch (o->src) {
		case SL_JO_LEFT:
			f = &ls->fields[o->idx];
			t = f->type;
			nul = f->nullable || lnul;
			break;
		case SL_JO_RIGHT:
			f = &rs->fields[o->idx];
			t = f->type;
			nul = f->nullable || rnul;
			break;
		default: /* a using key: named as the left column */
			f = &ls->fields[key_col(p->lkeys[o->idx])];
			t = p->lkeys[o->idx]->rtype;
			nul =
			    f->nullable || (o->src == SL_JO_LKEY
						? lnul
						: o->src == SL_JO_RKEY && rnul);
			break;
		}
		if (sl_type_set_field(st, i, f->name, sl_type_ref(t), nul) <
		    0) {
			sl_type_free(st);
			return sl_err_nomem(err);
		}
	}
	p->schema = st;
	return 0;
}

sl_plan *sl_plan_join(sl_plan *l, sl_plan *r, sl_expr *on,
		      const char *const *using_cols, int nusing,
		      const char *how, sl_err *err)
{
	sl_plan *p = NULL;
	sl_join_type t = SL_JOIN_INNER;
	int rc;
	if (join_type(how, &t, err) < 0)
		goto out;
	p = sl_plan_node_new(SL_P_JOIN, err);
	if (p == NULL)
		goto out;
	p->jtype = t;
	p->nchild = 2;
	p->child[0] = sl_plan_ref(l);
	p->child[1] = sl_plan_ref(r);
	p->streaming = l->streaming || r->streaming;
	p->wide = wide_schema(l->schema, r->schema, err);
	if (p->wide == NULL)
		goto fail;
	if (nusing > 0) {
		p->using_cols = true;
		rc = using_keys(p, l->schema, r->schema, using_cols, nusing,
				err);
		if (rc == 0 && using_outputs(p, l->schema, r->schema,
					     using_cols, nusing) < 0)
			rc = sl_err_nomem(err);
	} else {
		rc = on_condition(p, on, err);
	}
	if (rc < 0 || out_schema(p, err) < 0)
		goto fail;
	/* best effort: a pushdown cut short by memory is still sound */
	(void)sl_plan_join_pushdown(p);
	goto out;
fail:
	sl_plan_free(p);
	p = NULL;
out:
	sl_expr_free(on);
	return p;
}
