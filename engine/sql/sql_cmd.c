/*
 * sql_cmd: the statements that are no query (sql.h): SHOW TABLES|VIEWS,
 * DESCRIBE, EXPLAIN, CREATE/DROP TEMP VIEW, each a local relation with
 * Spark's columns (an empty one for CREATE and DROP).
 */
#include "sql/sql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <regex.h>

#include "core/col.h"

/* A local relation with string columns names[0..ncols) and rows cells
 * (row-major, NULL cells are NULL); bool_col >= 0 is a BOOLEAN column
 * ("true"/"false" cells). */
static sl_plan *sql_local_rows(sql_tr *t, const char *const *names, int ncols,
			   int bool_col, char *const *cells, int nrows)
{
	sl_type *st = sl_type_struct_new(ncols);
	sl_col *cols[8] = { 0 };
	sl_batch *b;
	sl_plan *p = NULL;
	int c, r;
	if (st == NULL || ncols > 8)
		goto out;
	for (c = 0; c < ncols; c++) {
		sl_type *ty = sl_type_prim(c == bool_col ? SL_BOOLEAN : SL_STRING);
		if (ty == NULL || sl_type_set_field(st, c, names[c], ty, true) < 0)
			goto out;
		cols[c] = sl_col_new(st->fields[c].type, nrows);
		if (cols[c] == NULL)
			goto out;
		for (r = 0; r < nrows; r++) {
			const char *v = cells[r * ncols + c];
			if (v == NULL)
				sl_col_set_null(cols[c], r);
			else if (c == bool_col)
				sl_col_u8(cols[c])[r] = strcmp(v, "true") == 0;
			else if (sl_col_set_str(cols[c], r, v, strlen(v)) < 0)
				goto out;
		}
	}
	b = sl_batch_new(st, nrows, cols);
	memset(cols, 0, sizeof cols); /* taken, also on failure */
	if (b != NULL) {
		p = sl_plan_local(b, t->err);
		sl_batch_free(b);
	}
out:
	for (c = 0; c < 8; c++)
		sl_col_free(cols[c]);
	sl_type_free(st);
	return p ? p : sql_fail_plan(t);
}

/* Does name match Spark's SHOW TABLES pattern (StringUtils.filterPattern):
 * '|' separates alternatives, '*' is any text, case-insensitive, the
 * whole name.  Spark reads each alternative as a Java regex with '*' made
 * '.*'; here it is a POSIX extended one (the same for names, '*', '.'
 * and character classes).  An alternative that is no valid regex matches
 * nothing, as Spark drops one that does not compile. */
static bool name_matches(const char *name, const char *pattern)
{
	const char *alt = pattern;
	bool hit = false;
	for (;;) {
		size_t n = strcspn(alt, "|");
		sl_buf re;
		regex_t rx;
		sl_buf_init(&re);
		sl_buf_adds(&re, "^(");
		for (size_t i = 0; i < n; i++)
			if (alt[i] == '*')
				sl_buf_adds(&re, ".*");
			else
				sl_buf_addc(&re, alt[i]);
		sl_buf_adds(&re, ")$");
		if (!sl_buf_failed(&re) &&
		    regcomp(&rx, sl_buf_cstr(&re),
			    REG_EXTENDED | REG_ICASE | REG_NOSUB) == 0) {
			hit = regexec(&rx, name, 0, NULL, 0) == 0;
			regfree(&rx);
		}
		sl_buf_release(&re);
		if (hit || alt[n] == '\0')
			return hit;
		alt += n + 1;
	}
}

/* SHOW TABLES|VIEWS [(IN|FROM) ns] [[LIKE] 'pattern']: the namespace and
 * the pattern (a copy, or NULL); false with t->err set. */
static bool show_args(sql_tr *t, bool *global, char **pattern)
{
	bool like;
	*global = false;
	*pattern = NULL;
	if (sql_accept_kw(t, "in") || sql_accept_kw(t, "from")) {
		const sl_sqltok *k = sql_tk(t, 0);
		int line, pos;
		if (!sql_name_at(t, 0))
			return sql_syntax(t), false;
		if (strcasecmp(k->text, "global_temp") == 0) {
			*global = true;
		} else if (strcasecmp(k->text, "default") != 0) {
			sql_linepos(t, k->start, &line, &pos);
			sl_err_set(t->err, SL_EANALYSIS,
				   "[SCHEMA_NOT_FOUND] The schema `%s` cannot "
				   "be found. Verify the spelling and "
				   "correctness of the schema and catalog.; "
				   "line %d pos %d", k->text, line, pos);
			sl_err_hint(t->err, "streamlab's schemas are default "
					    "and global_temp");
			return false;
		}
		sql_skip(t, 1);
	}
	like = sql_accept_kw(t, "like");
	if (sql_tk(t, 0)->kind == SL_TOK_STRING) {
		const char *v = sql_tk(t, 0)->text;
		v += strspn(v, " \t\r\n"); /* Spark trims the pattern */
		if ((*pattern = strdup(v)) == NULL)
			return sl_err_nomem(t->err), false;
		for (size_t n = strlen(*pattern);
		     n > 0 && strchr(" \t\r\n", (*pattern)[n - 1]); n--)
			(*pattern)[n - 1] = '\0';
		sql_skip(t, 1);
	} else if (like) {
		return sql_syntax(t), false;
	}
	return true;
}

sl_plan *sql_show_tables(sql_tr *t, bool views)
{
	static const char *const tcols[] = { "namespace", "tableName",
					     "isTemporary" };
	static const char *const vcols[] = { "namespace", "viewName",
					     "isTemporary" };
	int n = sl_catalog_count(t->cat), i, k = 0;
	bool global;
	char *pattern;
	char **cells;
	sl_plan *p;
	if (!show_args(t, &global, &pattern))
		return NULL;
	if ((cells = calloc((size_t)n * 3 + 1, sizeof *cells)) == NULL) {
		free(pattern);
		return sql_fail_plan(t);
	}
	for (i = 0; i < n; i++) {
		const char *name = sl_catalog_name(t->cat, i);
		bool g = strncasecmp(name, "global_temp.", 12) == 0;
		if (g && !global)
			continue;
		if (pattern && !name_matches(g ? name + 12 : name, pattern))
			continue;
		cells[3 * k] = (char *)(g ? "global_temp" : "");
		cells[3 * k + 1] = (char *)(g ? name + 12 : name);
		cells[3 * k + 2] = (char *)"true";
		k++;
	}
	p = sql_local_rows(t, views ? vcols : tcols, 3, 2, cells, k);
	free(cells);
	free(pattern);
	return p;
}

sl_plan *sql_describe(sql_tr *t)
{
	static const char *const cols[] = { "col_name", "data_type",
					    "comment" };
	char name[512];
	sl_plan *v, *p = NULL;
	const sl_type *st;
	char **cells = NULL, **types = NULL;
	int i, off;
	sql_accept_kw(t, "table");
	off = sql_tk(t, 0)->start;
	if (!sql_name_at(t, 0))
		return sql_syntax(t), NULL;
	snprintf(name, sizeof name, "%s", sql_tk(t, 0)->text);
	sql_skip(t, 1);
	if (sql_is_op(t, ".") && sql_name_at(t, 1)) {
		size_t n = strlen(name);
		snprintf(name + n, sizeof name - n, ".%s", sql_tk(t, 1)->text);
		sql_skip(t, 2);
	}
	if ((v = sql_lookup_view(t, name, off)) == NULL)
		return NULL;
	st = sl_plan_schema(v);
	cells = calloc((size_t)st->nfields * 3 + 1, sizeof *cells);
	types = calloc((size_t)st->nfields + 1, sizeof *types);
	if (cells == NULL || types == NULL)
		goto out;
	for (i = 0; i < st->nfields; i++) {
		sl_buf b;
		sl_buf_init(&b);
		sl_type_catalog_string(st->fields[i].type, &b);
		types[i] = sl_buf_failed(&b) ? NULL : strdup(sl_buf_cstr(&b));
		sl_buf_release(&b);
		if (types[i] == NULL)
			goto out;
		cells[3 * i] = st->fields[i].name;
		cells[3 * i + 1] = types[i];
	}
	p = sql_local_rows(t, cols, 3, -1, cells, st->nfields);
out:
	for (i = 0; types != NULL && i < st->nfields; i++)
		free(types[i]);
	free(types);
	free(cells);
	sl_plan_free(v);
	return p ? p : sql_fail_plan(t);
}

sl_plan *sql_explain(sql_tr *t)
{
	static const char *const cols[] = { "plan" };
	bool ext = sql_accept_kw(t, "extended");
	sl_plan *q, *p;
	sl_buf b;
	char *cell;
	if (!ext && !sql_accept_kw(t, "formatted"))
		sql_accept_kw(t, "simple");
	if ((q = sql_statement(t)) == NULL)
		return NULL;
	sl_buf_init(&b);
	sl_plan_explain(q, ext, &b);
	sl_plan_free(q);
	cell = sl_buf_failed(&b) ? NULL : (char *)sl_buf_cstr(&b);
	p = cell ? sql_local_rows(t, cols, 1, -1, &cell, 1) : sql_fail_plan(t);
	sl_buf_release(&b);
	return p;
}

/* The empty result of a command (Spark's empty DataFrame). */
static sl_plan *empty_result(sql_tr *t)
{
	return sql_local_rows(t, NULL, 0, -1, NULL, 0);
}

/* CREATE [OR REPLACE] [GLOBAL] TEMP[ORARY] VIEW name AS query */
sl_plan *sql_create_view(sql_tr *t)
{
	char name[512];
	sql_rel r;
	bool global;
	int rc;
	if (sql_accept_kw(t, "or") && !sql_expect_kw(t, "replace"))
		return NULL;
	global = sql_accept_kw(t, "global");
	if (!sql_accept_kw(t, "temp") && !sql_accept_kw(t, "temporary"))
		return sql_syntax(t), NULL;
	if (!sql_expect_kw(t, "view"))
		return NULL;
	if (!sql_name_at(t, 0))
		return sql_syntax(t), NULL;
	snprintf(name, sizeof name, "%s%s", global ? "global_temp." : "",
		 sql_tk(t, 0)->text);
	sql_skip(t, 1);
	if (!sql_expect_kw(t, "as") || sql_query(t, &r) < 0)
		return NULL;
	if (sl_plan_is_streaming(r.p)) {
		rc = sl_catalog_put_plan(t->cat, name, r.p, t->err);
	} else {
		sl_batch *b = sl_plan_collect(r.p, t->err);
		rc = b ? sl_catalog_put(t->cat, name, b, t->err) : -1;
		sl_batch_free(b);
	}
	sql_rel_release(&r);
	return rc < 0 ? NULL : empty_result(t);
}

/* DROP VIEW [IF EXISTS] name */
sl_plan *sql_drop_view(sql_tr *t)
{
	char name[512];
	bool if_exists;
	int off;
	if (!sql_expect_kw(t, "view"))
		return NULL;
	if_exists = sql_is_kw(t, "if") && sql_kw_at(t, 1, "exists");
	if (if_exists)
		sql_skip(t, 2);
	off = sql_tk(t, 0)->start;
	if (!sql_name_at(t, 0))
		return sql_syntax(t), NULL;
	snprintf(name, sizeof name, "%s", sql_tk(t, 0)->text);
	sql_skip(t, 1);
	if (sql_is_op(t, ".") && sql_name_at(t, 1)) {
		size_t n = strlen(name);
		snprintf(name + n, sizeof name - n, ".%s", sql_tk(t, 1)->text);
		sql_skip(t, 2);
	}
	if (!sl_catalog_drop(t->cat, name) && !if_exists) {
		int line, pos;
		sql_linepos(t, off, &line, &pos);
		sl_err_set(t->err, SL_EANALYSIS,
			   "[TABLE_OR_VIEW_NOT_FOUND] The table or view `%s` "
			   "cannot be found. Verify the spelling and "
			   "correctness of the schema and catalog.; line %d "
			   "pos %d",
			   name, line, pos);
		sl_err_hint(t->err, "DROP VIEW IF EXISTS tolerates it");
		return NULL;
	}
	return empty_result(t);
}

