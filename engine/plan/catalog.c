/*
 * catalog: the session's named tables (see catalog.h).
 *
 * A table is a list of parts (the batches appended to it, in order) that
 * is concatenated lazily by sl_catalog_get and then kept concatenated, so a
 * memory sink appending one part per micro-batch costs O(rows) per batch
 * and a reader pays the concatenation once.  Names compare
 * case-insensitively and keep the spelling of their first creation.
 * A handful of tables per session: linear search is the right structure.
 */
#include "plan/catalog.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/expr.h"

typedef struct table {
	char *name;
	int n, cap;
	sl_batch **parts;
	sl_plan *view; /* a plan view (then n == 0) */
} table;

struct sl_catalog {
	int n, cap;
	table *t;
};

sl_catalog *sl_catalog_new(void)
{
	return calloc(1, sizeof(sl_catalog));
}

static void table_clear_parts(table *t)
{
	int i;
	for (i = 0; i < t->n; i++)
		sl_batch_free(t->parts[i]);
	t->n = 0;
	sl_plan_free(t->view);
	t->view = NULL;
}

void sl_catalog_free(sl_catalog *c)
{
	int i;
	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++) {
		table_clear_parts(&c->t[i]);
		free(c->t[i].parts);
		free(c->t[i].name);
	}
	free(c->t);
	free(c);
}

static table *find(const sl_catalog *c, const char *name)
{
	int i;
	for (i = 0; i < c->n; i++)
		if (strcasecmp(c->t[i].name, name) == 0)
			return &c->t[i];
	return NULL;
}

static table *create(sl_catalog *c, const char *name, sl_err *err)
{
	table *t;
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 4;
		table *m = realloc(c->t, (size_t)cap * sizeof *m);
		if (m == NULL) {
			sl_err_nomem(err);
			return NULL;
		}
		c->t = m;
		c->cap = cap;
	}
	t = &c->t[c->n];
	memset(t, 0, sizeof *t);
	t->name = strdup(name);
	if (t->name == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	c->n++;
	return t;
}

static int add_part(table *t, sl_batch *b, sl_err *err)
{
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 4;
		sl_batch **m = realloc(t->parts, (size_t)cap * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(err);
		t->parts = m;
		t->cap = cap;
	}
	t->parts[t->n++] = sl_batch_ref(b);
	return 0;
}

int sl_catalog_put(sl_catalog *c, const char *name, sl_batch *b, sl_err *err)
{
	table *t = find(c, name);
	if (t == NULL && (t = create(c, name, err)) == NULL)
		return SL_ENOMEM;
	table_clear_parts(t);
	return add_part(t, b, err);
}

/* Appended rows must line up with the table's columns by position and
 * type (the memory sink of one query always satisfies this). */
static int check_shape(const table *t, const char *name, const sl_batch *b,
		       sl_err *err)
{
	const sl_type *a, *n;
	int i;
	if (t->n == 0)
		return 0;
	a = t->parts[0]->schema;
	n = b->schema;
	if (a->nfields != n->nfields)
		return sl_err_set(err, SL_EINVAL,
				  "catalog: table '%s' has %d columns, cannot "
				  "append rows with %d",
				  name, a->nfields, n->nfields);
	for (i = 0; i < a->nfields; i++)
		if (!sl_type_equal(a->fields[i].type, n->fields[i].type))
			return sl_err_set(
			    err, SL_EINVAL,
			    "catalog: table '%s': column '%s' "
			    "has another type in the appended rows",
			    name, a->fields[i].name);
	return 0;
}

int sl_catalog_append(sl_catalog *c, const char *name, sl_batch *b, sl_err *err)
{
	table *t = find(c, name);
	int rc;
	if (t == NULL && (t = create(c, name, err)) == NULL)
		return SL_ENOMEM;
	if (t->view != NULL) /* a memory sink's table replaces a view */
		table_clear_parts(t);
	if ((rc = check_shape(t, name, b, err)) < 0)
		return rc;
	return add_part(t, b, err);
}

static void not_found(const sl_catalog *c, const char *name, sl_err *err)
{
	const char **names = NULL;
	const char *near = NULL;
	int i;
	sl_err_set(err, SL_EANALYSIS,
		   "[TABLE_OR_VIEW_NOT_FOUND] The table or view `%s` cannot be "
		   "found.",
		   name);
	if (c->n > 0 &&
	    (names = malloc((size_t)c->n * sizeof *names)) != NULL) {
		for (i = 0; i < c->n; i++)
			names[i] = c->t[i].name;
		near = sl_nearest_name(name, names, c->n);
	}
	if (near != NULL)
		sl_err_hint(err, "did you mean '%s'?", near);
	else
		sl_err_hint(err, "a memory sink creates its table under the "
				 "query's queryName");
	free(names);
}

sl_batch *sl_catalog_get(sl_catalog *c, const char *name, sl_err *err)
{
	table *t = find(c, name);
	sl_batch *all;
	if (t != NULL && t->view != NULL) {
		sl_err_set(err, SL_EANALYSIS,
			   "Queries with streaming sources must be executed "
			   "with writeStream.start()");
		sl_err_hint(err, "'%s' is a view of a streaming DataFrame",
			    t->name);
		return NULL;
	}
	if (t == NULL || t->n == 0) { /* n == 0: creation ran out of memory */
		not_found(c, name, err);
		return NULL;
	}
	if (t->n == 1)
		return sl_batch_ref(t->parts[0]);
	all = sl_batch_concat(t->parts, t->n, t->parts[0]->schema, err);
	if (all == NULL)
		return NULL;
	table_clear_parts(t);
	t->parts[0] = sl_batch_ref(all);
	t->n = 1;
	return all;
}

int sl_catalog_put_plan(sl_catalog *c, const char *name, sl_plan *p,
			sl_err *err)
{
	table *t = find(c, name);
	if (t == NULL && (t = create(c, name, err)) == NULL)
		return SL_ENOMEM;
	table_clear_parts(t);
	t->view = sl_plan_ref(p);
	return 0;
}

sl_plan *sl_catalog_plan(sl_catalog *c, const char *name, sl_err *err)
{
	table *t = find(c, name);
	sl_batch *b;
	sl_plan *p;
	if (t != NULL && t->view != NULL)
		return sl_plan_ref(t->view);
	if ((b = sl_catalog_get(c, name, err)) == NULL)
		return NULL;
	p = sl_plan_local(b, err);
	sl_batch_free(b);
	return p;
}

bool sl_catalog_is_streaming(const sl_catalog *c, const char *name)
{
	const table *t = find(c, name);
	return t != NULL && t->view != NULL && sl_plan_is_streaming(t->view);
}

int sl_catalog_drop(sl_catalog *c, const char *name)
{
	table *t = find(c, name);
	if (t == NULL)
		return 0;
	table_clear_parts(t);
	free(t->parts);
	free(t->name);
	memmove(t, t + 1, (size_t)(c->t + c->n - (t + 1)) * sizeof *t);
	c->n--;
	return 1;
}

int sl_catalog_count(const sl_catalog *c)
{
	return c->n;
}

const char *sl_catalog_name(const sl_catalog *c, int i)
{
	return i >= 0 && i < c->n ? c->t[i].name : NULL;
}
