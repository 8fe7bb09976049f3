/*
 * sql_scope: the names a SQL query's clauses see (sql_int.h).
 *
 * A scope lists the columns of the FROM clause with their qualifiers.  A
 * reference `t.c` picks the column c of the relation named (or aliased)
 * t, a plain `c` the one column of that name; a further `.f` reads a
 * struct field, as in the DataFrame API.  Spark's analyzer errors, with
 * the position of the reference (line L pos P, P 0-based):
 *   [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter
 *     with name `x` cannot be resolved. Did you mean one of the
 *     following? [`t`.`a`, `t`.`b`].; line 1 pos 7
 *   [AMBIGUOUS_REFERENCE] Reference `id` is ambiguous, could be:
 *     [`a`.`id`, `b`.`id`].; line 1 pos 7
 * The suggestions are ordered by edit distance to the name, as Spark's
 * StringUtils.orderSuggestedIdentifiersBySimilarity.
 */
#include "sql/sql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sql_scope_release(sql_scope *s)
{
	int i;
	for (i = 0; i < s->n; i++) {
		free(s->c[i].qual);
		free(s->c[i].name);
		free(s->c[i].in);
	}
	free(s->c);
	memset(s, 0, sizeof *s);
}

int sql_scope_add(sql_scope *s, const char *qual, const char *name,
		  const char *in, bool hidden)
{
	sql_col *c;
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 8;
		c = realloc(s->c, (size_t)cap * sizeof *c);
		if (c == NULL)
			return SL_ENOMEM;
		s->c = c;
		s->cap = cap;
	}
	c = &s->c[s->n];
	c->qual = qual ? strdup(qual) : NULL;
	c->name = strdup(name);
	c->in = strdup(in);
	c->hidden = hidden;
	if ((qual && c->qual == NULL) || c->name == NULL || c->in == NULL) {
		free(c->qual);
		free(c->name);
		free(c->in);
		return SL_ENOMEM;
	}
	s->n++;
	return 0;
}

int sql_scope_of(sql_scope *s, const sl_plan *p, const char *qual)
{
	const sl_type *st = sl_plan_schema(p);
	int i;
	for (i = 0; i < st->nfields; i++)
		if (sql_scope_add(s, qual, st->fields[i].name,
				  st->fields[i].name, false) < 0)
			return SL_ENOMEM;
	return 0;
}

void sql_linepos(const sql_tr *t, int off, int *line, int *pos)
{
	int i, l = 1, bol = 0;
	for (i = 0; i < off && t->src[i] != '\0'; i++)
		if (t->src[i] == '\n') {
			l++;
			bol = i + 1;
		}
	*line = l;
	*pos = off - bol;
}

char *sql_name_of(const sl_expr *e)
{
	sl_buf b;
	char *s;
	sl_buf_init(&b);
	sl_expr_name(e, &b);
	s = sl_buf_failed(&b) ? NULL : strdup(sl_buf_cstr(&b));
	sl_buf_release(&b);
	return s;
}

/* ------------------------------------------------------------ errors */

static int edit_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b), i, j, d[65];
	if (la > 64 || lb > 64)
		return abs(la - lb) + 64;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		int diag = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			int up = d[j], c = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < c)
				c = up + 1;
			if (d[j - 1] + 1 < c)
				c = d[j - 1] + 1;
			diag = up;
			d[j] = c;
		}
	}
	return d[lb];
}

static void quote_id(sl_buf *b, const char *qual, const char *name)
{
	if (qual != NULL)
		sl_buf_printf(b, "`%s`.", qual);
	sl_buf_printf(b, "`%s`", name);
}

/* `a`.`b` for the dotted name a.b */
static void quote_dotted(sl_buf *b, const char *name)
{
	const char *p = name, *dot;
	while ((dot = strchr(p, '.')) != NULL) {
		sl_buf_printf(b, "`%.*s`.", (int)(dot - p), p);
		p = dot + 1;
	}
	sl_buf_printf(b, "`%s`", p);
}

typedef struct sugg {
	int dist, i;
} sugg;

static int sugg_cmp(const void *a, const void *b)
{
	const sugg *x = a, *y = b;
	return x->dist != y->dist ? x->dist - y->dist : x->i - y->i;
}

static void unresolved(sql_tr *t, const sql_scope *s, const sl_expr *e)
{
	sl_buf b;
	sugg *sg = calloc((size_t)s->n + 1, sizeof *sg);
	int i, k = 0, line, pos;
	sl_buf_init(&b);
	sl_buf_adds(&b, "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or "
			"function parameter with name ");
	quote_dotted(&b, e->name);
	sl_buf_adds(&b, " cannot be resolved. Did you mean one of the "
			"following? [");
	for (i = 0; sg != NULL && i < s->n; i++)
		if (!s->c[i].hidden) {
			sg[k].dist = edit_distance(e->name, s->c[i].name);
			sg[k++].i = i;
		}
	if (sg != NULL)
		qsort(sg, (size_t)k, sizeof *sg, sugg_cmp);
	for (i = 0; i < k; i++) {
		if (i > 0)
			sl_buf_adds(&b, ", ");
		quote_id(&b, s->c[sg[i].i].qual, s->c[sg[i].i].name);
	}
	sl_buf_adds(&b, "].");
	sql_linepos(t, e->pos > 0 ? e->pos - 1 : 0, &line, &pos);
	sl_err_set(t->err, SL_EANALYSIS, "%s; line %d pos %d",
		   sl_buf_failed(&b) ? "[UNRESOLVED_COLUMN]" : sl_buf_cstr(&b),
		   line, pos);
	if (k > 0)
		sl_err_hint(t->err, "did you mean '%s'?",
			    s->c[sg[0].i].name);
	sl_buf_release(&b);
	free(sg);
}

static void ambiguous(sql_tr *t, const sql_scope *s, const sl_expr *e,
		      const char *name)
{
	sl_buf b;
	int i, k = 0, line, pos;
	sl_buf_init(&b);
	sl_buf_adds(&b, "[AMBIGUOUS_REFERENCE] Reference ");
	quote_dotted(&b, e->name);
	sl_buf_adds(&b, " is ambiguous, could be: [");
	for (i = 0; i < s->n; i++)
		if (!s->c[i].hidden && strcasecmp(s->c[i].name, name) == 0) {
			if (k++ > 0)
				sl_buf_adds(&b, ", ");
			quote_id(&b, s->c[i].qual, s->c[i].name);
		}
	sl_buf_adds(&b, "].");
	sql_linepos(t, e->pos > 0 ? e->pos - 1 : 0, &line, &pos);
	sl_err_set(t->err, SL_EANALYSIS, "%s; line %d pos %d",
		   sl_buf_failed(&b) ? "[AMBIGUOUS_REFERENCE]"
				     : sl_buf_cstr(&b),
		   line, pos);
	sl_err_hint(t->err, "qualify it with the view name or alias: t.%s",
		    name);
	sl_buf_release(&b);
}

/* ----------------------------------------------------------- lookup */

/* The scope column named name under qual (NULL: any); -1 none, -2 more
 * than one (different plan columns). */
static int find(const sql_scope *s, const char *qual, const char *name)
{
	int i, hit = -1;
	for (i = 0; i < s->n; i++) {
		const sql_col *c = &s->c[i];
		if (strcasecmp(c->name, name) != 0)
			continue;
		if (qual != NULL &&
		    (c->qual == NULL || strcasecmp(c->qual, qual) != 0))
			continue;
		if (hit >= 0 && strcmp(s->c[hit].in, c->in) != 0)
			return -2;
		if (hit < 0 || s->c[hit].hidden)
			hit = i;
	}
	return hit;
}

static bool is_qual(const sql_scope *s, const char *q)
{
	int i;
	for (i = 0; i < s->n; i++)
		if (s->c[i].qual != NULL && strcasecmp(s->c[i].qual, q) == 0)
			return true;
	return false;
}

static sl_expr *rewrite_col(sql_tr *t, const sql_scope *s, const sl_expr *e,
			    bool display)
{
	char first[256], second[256];
	const char *name = e->name, *rest = NULL, *dot;
	int k = -1;
	size_t n;
	sl_buf b;
	sl_expr *o;
	dot = strchr(name, '.');
	n = dot ? (size_t)(dot - name) : strlen(name);
	snprintf(first, sizeof first, "%.*s", (int)n, name);
	if (dot != NULL && is_qual(s, first)) {
		const char *d2 = strchr(dot + 1, '.');
		n = d2 ? (size_t)(d2 - dot - 1) : strlen(dot + 1);
		snprintf(second, sizeof second, "%.*s", (int)n, dot + 1);
		k = find(s, first, second);
		rest = d2 ? d2 + 1 : NULL;
		if (k == -2) {
			ambiguous(t, s, e, second);
			return NULL;
		}
	}
	if (k < 0) {
		k = find(s, NULL, first);
		rest = dot ? dot + 1 : NULL;
		if (k == -2) {
			ambiguous(t, s, e, first);
			return NULL;
		}
	}
	if (k < 0) {
		unresolved(t, s, e);
		return NULL;
	}
	sl_buf_init(&b);
	sl_buf_adds(&b, display ? s->c[k].name : s->c[k].in);
	if (rest != NULL)
		sl_buf_printf(&b, ".%s", rest);
	o = sl_buf_failed(&b) ? NULL : sl_expr_col(sl_buf_cstr(&b));
	sl_buf_release(&b);
	if (o == NULL)
		sl_err_nomem(t->err);
	else
		o->pos = e->pos;
	return o;
}

sl_expr *sql_rewrite(sql_tr *t, const sql_scope *s, const sl_expr *e,
		     bool display)
{
	sl_expr **a, *o;
	int i;
	if (e->kind == SL_X_COL)
		return rewrite_col(t, s, e, display);
	if (e->kind == SL_X_STAR) {
		int line, pos;
		sql_linepos(t, e->pos > 0 ? e->pos - 1 : 0, &line, &pos);
		sl_err_set(t->err, SL_EANALYSIS,
			   "[INVALID_USAGE_OF_STAR_OR_REGEX] Invalid usage of "
			   "'*' in expression; line %d pos %d",
			   line, pos);
		return NULL;
	}
	if (e->nargs == 0)
		return sl_expr_ref((sl_expr *)e);
	a = calloc((size_t)e->nargs, sizeof *a);
	if (a == NULL) {
		sl_err_nomem(t->err);
		return NULL;
	}
	for (i = 0; i < e->nargs; i++) {
		a[i] = sql_rewrite(t, s, e->args[i], display);
		if (a[i] == NULL) {
			while (i-- > 0)
				sl_expr_free(a[i]);
			free(a);
			return NULL;
		}
	}
	o = sl_expr_rebuild(e, a);
	free(a);
	if (o == NULL)
		sl_err_nomem(t->err);
	else
		o->pos = e->pos;
	return o;
}

bool sql_over_names(const sl_expr *e, char *const *names, int n)
{
	int i;
	if (e->kind == SL_X_COL) {
		for (i = 0; i < n; i++)
			if (strcasecmp(e->name, names[i]) == 0)
				return true;
		return false;
	}
	if (e->kind == SL_X_STAR ||
	    (e->kind == SL_X_CALL && sl_func_is_agg(e->name)))
		return false;
	for (i = 0; i < e->nargs; i++)
		if (!sql_over_names(e->args[i], names, n))
			return false;
	return true;
}
