/*
 * tables: a small sorted array of (name, batch).  Tens of entries at most,
 * so a linear scan is the right data structure; the order is kept sorted
 * so listings are deterministic.
 */
#include "tables.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr.h"

typedef struct entry {
	char *name;
	sl_batch *b;
} entry;

static entry *tab;
static int ntab, captab;

static int find(const char *name)
{
	for (int i = 0; i < ntab; i++)
		if (strcasecmp(tab[i].name, name) == 0)
			return i;
	return -1;
}

int sl_tables_put(const char *name, sl_batch *b, sl_err *err)
{
	int i = find(name), at;
	char *copy;
	if (i >= 0) {
		sl_batch_free(tab[i].b);
		tab[i].b = sl_batch_ref(b);
		return 0;
	}
	if (ntab == captab) {
		int nc = captab ? 2 * captab : 8;
		entry *nt = realloc(tab, (size_t)nc * sizeof *nt);
		if (nt == NULL)
			return sl_err_nomem(err);
		tab = nt;
		captab = nc;
	}
	copy = strdup(name);
	if (copy == NULL)
		return sl_err_nomem(err);
	for (at = 0; at < ntab && strcasecmp(tab[at].name, name) < 0; at++)
		;
	memmove(tab + at + 1, tab + at, (size_t)(ntab - at) * sizeof *tab);
	tab[at].name = copy;
	tab[at].b = sl_batch_ref(b);
	ntab++;
	return 0;
}

sl_batch *sl_tables_get(const char *name, sl_err *err)
{
	int i = find(name);
	const char **names;
	const char *near;
	if (i >= 0)
		return sl_batch_ref(tab[i].b);
	sl_err_set(err, SL_EANALYSIS, "table or view '%s' cannot be found",
		   name);
	if (ntab == 0) {
		sl_err_hint(err, "no tables yet: a memory sink's queryName or "
				 "df:createOrReplaceTempView(name) makes one");
		return NULL;
	}
	names = malloc((size_t)ntab * sizeof *names);
	if (names == NULL)
		return NULL;
	for (i = 0; i < ntab; i++)
		names[i] = tab[i].name;
	near = sl_nearest_name(name, names, ntab);
	if (near != NULL)
		sl_err_hint(err, "did you mean '%s'?", near);
	free(names);
	return NULL;
}

int sl_tables_drop(const char *name)
{
	int i = find(name);
	if (i < 0)
		return 0;
	free(tab[i].name);
	sl_batch_free(tab[i].b);
	memmove(tab + i, tab + i + 1, (size_t)(ntab - i - 1) * sizeof *tab);
	ntab--;
	return 1;
}

int sl_tables_count(void)
{
	return ntab;
}

const char *sl_tables_name(int i)
{
	return i >= 0 && i < ntab ? tab[i].name : NULL;
}

void sl_tables_clear(void)
{
	for (int i = 0; i < ntab; i++) {
		free(tab[i].name);
		sl_batch_free(tab[i].b);
	}
	free(tab);
	tab = NULL;
	ntab = captab = 0;
}
