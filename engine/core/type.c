/*
 * type: data types, the DDL parser and type printing.
 */
#include "core/type.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/col.h"

static sl_type prims[] = {
	{ SL_NULLTYPE, -1, 0, NULL, NULL }, { SL_BOOLEAN, -1, 0, NULL, NULL },
	{ SL_INT, -1, 0, NULL, NULL },      { SL_BIGINT, -1, 0, NULL, NULL },
	{ SL_DOUBLE, -1, 0, NULL, NULL },   { SL_STRING, -1, 0, NULL, NULL },
	{ SL_BINARY, -1, 0, NULL, NULL },   { SL_TIMESTAMP, -1, 0, NULL, NULL },
	{ SL_DATE, -1, 0, NULL, NULL },
	{ SL_DATE, -1, 0, NULL, NULL },
};

sl_type *sl_type_prim(sl_kind kind)
{
	if ((int)kind < 0 || kind > SL_DATE)
		return NULL;
	return &prims[kind];
}

sl_type *sl_type_ref(sl_type *t)
{
	if (t != NULL && t->refs > 0)
		t->refs++;
	return t;
}

void sl_type_free(sl_type *t)
{
	int i;
	if (t == NULL || t->refs < 0 || --t->refs > 0)
		return;
	for (i = 0; i < t->nfields; i++) {
		free(t->fields[i].name);
		sl_type_free(t->fields[i].type);
	}
	free(t->fields);
	sl_type_free(t->elem);
	free(t);
}

sl_type *sl_type_struct_new(int n)
{
	sl_type *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->kind = SL_STRUCT;
	t->refs = 1;
	t->nfields = n;
	if (n > 0) {
		t->fields = calloc((size_t)n, sizeof *t->fields);
		if (t->fields == NULL) {
			free(t);
			return NULL;
		}
	}
	return t;
}

int sl_type_set_field(sl_type *st, int i, const char *name, sl_type *ftype,
		      bool nullable)
{
	char *n = strdup(name);
	if (n == NULL) {
		sl_type_free(ftype);
		return SL_ENOMEM;
	}
	free(st->fields[i].name);
	sl_type_free(st->fields[i].type);
	st->fields[i].name = n;
	st->fields[i].type = ftype;
	st->fields[i].nullable = nullable;
	return 0;
}

sl_type *sl_type_array_new(sl_type *elem)
{
	sl_type *t = calloc(1, sizeof *t);
	if (t == NULL) {
		sl_type_free(elem);
		return NULL;
	}
	t->kind = SL_ARRAY;
	t->refs = 1;
	t->elem = elem;
	return t;
}

bool sl_type_equal(const sl_type *a, const sl_type *b)
{
	int i;
	if (a == b)
		return true;
	if (a == NULL || b == NULL || a->kind != b->kind)
		return false;
	if (a->kind == SL_ARRAY)
		return sl_type_equal(a->elem, b->elem);
	if (a->kind != SL_STRUCT)
		return true;
	if (a->nfields != b->nfields)
		return false;
	for (i = 0; i < a->nfields; i++) {
		if (strcasecmp(a->fields[i].name, b->fields[i].name) != 0 ||
		    !sl_type_equal(a->fields[i].type, b->fields[i].type))
			return false;
	}
	return true;
}

int sl_type_field_index(const sl_type *st, const char *name)
{
	int i;
	if (st == NULL || st->kind != SL_STRUCT)
		return -1;
	for (i = 0; i < st->nfields; i++)
		if (strcasecmp(st->fields[i].name, name) == 0)
			return i;
	return -1;
}

/* ---- DDL parser ---- */

/* Nesting deeper than this is refused (a schema string of 250 nested
 * STRUCT< once overflowed the C stack). */
#define DDL_MAX_DEPTH 100

struct lex {
	const char *s, *p;
	sl_err *err;
	int depth; /* STRUCT< and ARRAY< levels open */
};

static void skipws(struct lex *l)
{
	while (isspace((unsigned char)*l->p))
		l->p++;
}

static int col_of(const struct lex *l)
{
	return (int)(l->p - l->s) + 1;
}

/* Reads an identifier or backquoted name into out (size n). */
static int read_name(struct lex *l, char *out, size_t n)
{
	size_t k = 0;
	skipws(l);
	if (*l->p == '`') {
		l->p++;
		while (*l->p && *l->p != '`') {
			if (k + 1 < n)
				out[k++] = *l->p;
			l->p++;
		}
		if (*l->p != '`')
			return sl_err_set(l->err, SL_EPARSE,
					  "schema: unterminated '`' at col %d",
					  col_of(l));
		l->p++;
	} else {
		while (isalnum((unsigned char)*l->p) || *l->p == '_') {
			if (k + 1 < n)
				out[k++] = *l->p;
			l->p++;
		}
	}
	out[k] = '\0';
	if (k == 0)
		return sl_err_set(l->err, SL_EPARSE,
				  "schema: expected a name at col %d",
				  col_of(l));
	return 0;
}

static const struct {
	const char *name;
	sl_kind kind;
} type_names[] = {
	{ "boolean", SL_BOOLEAN },
	{ "bool", SL_BOOLEAN },
	{ "int", SL_INT },
	{ "integer", SL_INT },
	{ "smallint", SL_INT },
	{ "short", SL_INT },
	{ "tinyint", SL_INT },
	{ "byte", SL_INT },
	{ "bigint", SL_BIGINT },
	{ "long", SL_BIGINT },
	{ "double", SL_DOUBLE },
	{ "float", SL_DOUBLE },
	{ "real", SL_DOUBLE },
	{ "string", SL_STRING },
	{ "varchar", SL_STRING },
	{ "char", SL_STRING },
	{ "text", SL_STRING },
	{ "binary", SL_BINARY },
	{ "timestamp", SL_TIMESTAMP },
	{ "timestamp_ltz", SL_TIMESTAMP },
	{ "timestamp_ntz", SL_TIMESTAMP },
	{ "date", SL_DATE },
	{ "decimal", SL_DOUBLE },
};

static sl_type *parse_struct_fields(struct lex *l, char close);

static sl_type *parse_type(struct lex *l)
{
	char name[64];
	size_t i;
	const char *at;
	skipws(l);
	at = l->p;
	if (read_name(l, name, sizeof name) < 0)
		return NULL;
	skipws(l);
	if ((strcasecmp(name, "struct") == 0 ||
	     strcasecmp(name, "array") == 0) &&
	    l->depth >= DDL_MAX_DEPTH) {
		sl_err_set(l->err, SL_EPARSE,
			   "schema: nesting deeper than %d levels at col %d",
			   DDL_MAX_DEPTH, col_of(l));
		return NULL;
	}
	if (strcasecmp(name, "struct") == 0) {
		sl_type *st;
		if (*l->p != '<') {
			sl_err_set(
			    l->err, SL_EPARSE,
			    "schema: expected '<' after STRUCT at col %d",
			    col_of(l));
			return NULL;
		}
		l->p++;
		l->depth++;
		st = parse_struct_fields(l, '>');
		l->depth--;
		return st;
	}
	if (strcasecmp(name, "array") == 0) {
		sl_type *e;
		if (*l->p != '<') {
			sl_err_set(l->err, SL_EPARSE,
				   "schema: expected '<' after ARRAY at col %d",
				   col_of(l));
			return NULL;
		}
		l->p++;
		l->depth++;
		e = parse_type(l);
		l->depth--;
		if (e == NULL)
			return NULL;
		skipws(l);
		if (*l->p != '>') {
			sl_type_free(e);
			sl_err_set(l->err, SL_EPARSE,
				   "schema: expected '>' at col %d", col_of(l));
			return NULL;
		}
		l->p++;
		return sl_type_array_new(e);
	}
	for (i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
		if (strcasecmp(name, type_names[i].name) == 0) {
			/* DECIMAL(10,2), VARCHAR(20): skip the parameters */
			if (*l->p == '(') {
				while (*l->p && *l->p != ')')
					l->p++;
				if (*l->p == ')')
					l->p++;
			}
			return sl_type_prim(type_names[i].kind);
		}
	}
	l->p = at;
	sl_err_set(l->err, SL_EPARSE, "schema: unknown type '%s' at col %d",
		   name, col_of(l));
	{
		/* nearest known name by prefix, a cheap "did you mean" */
		const char *best = NULL;
		size_t bl = 0;
		for (i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
			size_t k = 0;
			while (name[k] && type_names[i].name[k] &&
			       tolower((unsigned char)name[k]) ==
				   type_names[i].name[k])
				k++;
			if (k > bl) {
				bl = k;
				best = type_names[i].name;
			}
		}
		if (best != NULL && bl >= 2) {
			char up[32];
			size_t k;
			for (k = 0; best[k] && k < sizeof up - 1; k++)
				up[k] = (char)toupper((unsigned char)best[k]);
			up[k] = '\0';
			sl_err_hint(l->err, "did you mean '%s'?", up);
		}
	}
	return NULL;
}

static bool kw(struct lex *l, const char *word)
{
	size_t n = strlen(word);
	skipws(l);
	if (strncasecmp(l->p, word, n) == 0 &&
	    !isalnum((unsigned char)l->p[n]) && l->p[n] != '_') {
		l->p += n;
		return true;
	}
	return false;
}

/* Fields up to `close` ('\0' for top level, '>' inside STRUCT<...>). */
#define DDL_MAX_FIELDS 256

/* One level's fields, on the heap: a level's buffers once took 35 KB of
 * stack, so nesting was bounded by the stack, not by DDL_MAX_DEPTH. */
struct ddl_fields {
	char names[DDL_MAX_FIELDS][128];
	sl_type *types[DDL_MAX_FIELDS];
	bool nullable[DDL_MAX_FIELDS];
};

static sl_type *fields_to_struct(struct lex *l, struct ddl_fields *f, int n);

static sl_type *parse_struct_fields(struct lex *l, char close)
{
	struct ddl_fields *f = malloc(sizeof *f);
	int n = 0, i;
	sl_type *st;
	if (f == NULL) {
		sl_err_nomem(l->err);
		return NULL;
	}
	skipws(l);
	if (*l->p == close && close != '\0')
		goto done;
	for (;;) {
		if (n == DDL_MAX_FIELDS) {
			sl_err_set(l->err, SL_EPARSE,
				   "schema: more than %d fields at col %d",
				   DDL_MAX_FIELDS, col_of(l));
			goto fail;
		}
		if (read_name(l, f->names[n], sizeof f->names[n]) < 0)
			goto fail;
		skipws(l);
		if (*l->p == ':')
			l->p++;
		f->types[n] = parse_type(l);
		if (f->types[n] == NULL)
			goto fail;
		f->nullable[n] = true;
		if (kw(l, "not")) {
			if (!kw(l, "null")) {
				n++;
				sl_err_set(
				    l->err, SL_EPARSE,
				    "schema: expected NULL after NOT at col %d",
				    col_of(l));
				goto fail;
			}
			f->nullable[n] = false;
		}
		if (kw(l, "comment")) {
			skipws(l);
			if (*l->p == '\'' || *l->p == '"') {
				char q = *l->p++;
				while (*l->p && *l->p != q)
					l->p++;
				if (*l->p == q)
					l->p++;
			}
		}
		n++;
		skipws(l);
		if (*l->p == ',') {
			l->p++;
			continue;
		}
		break;
	}
	skipws(l);
	if (*l->p != close) {
		if (close == '\0')
			sl_err_set(l->err, SL_EPARSE,
				   "schema: expected ',' at col %d", col_of(l));
		else
			sl_err_set(l->err, SL_EPARSE,
				   "schema: expected '%c' at col %d", close,
				   col_of(l));
		goto fail;
	}
done:
	if (close != '\0')
		l->p++;
	st = fields_to_struct(l, f, n);
	free(f);
	return st;
fail:
	for (i = 0; i < n; i++)
		sl_type_free(f->types[i]);
	free(f);
	return NULL;
}

/* The struct of f's n fields; takes the field types, frees them on
 * failure. */
static sl_type *fields_to_struct(struct lex *l, struct ddl_fields *f, int n)
{
	sl_type *st = sl_type_struct_new(n);
	int i;
	if (st == NULL) {
		sl_err_nomem(l->err);
		for (i = 0; i < n; i++)
			sl_type_free(f->types[i]);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (sl_type_set_field(st, i, f->names[i], f->types[i],
				      f->nullable[i]) < 0) {
			sl_err_nomem(l->err);
			for (i++; i < n; i++)
				sl_type_free(f->types[i]);
			sl_type_free(st);
			return NULL;
		}
	}
	return st;
}

sl_type *sl_type_parse_ddl(const char *ddl, sl_err *err)
{
	struct lex l = { ddl, ddl, err, 0 };
	skipws(&l);
	if (*l.p == '\0')
		return sl_type_struct_new(0);
	/* "struct<...>" is accepted too */
	if (strncasecmp(l.p, "struct", 6) == 0) {
		const char *q = l.p + 6;
		while (isspace((unsigned char)*q))
			q++;
		if (*q == '<') {
			sl_type *t = parse_type(&l);
			if (t != NULL) {
				skipws(&l);
				if (*l.p != '\0') {
					sl_err_set(
					    err, SL_EPARSE,
					    "schema: unexpected '%c' at col %d",
					    *l.p, col_of(&l));
					sl_type_free(t);
					return NULL;
				}
			}
			return t;
		}
	}
	return parse_struct_fields(&l, '\0');
}

sl_type *sl_type_parse(const char *s, sl_err *err)
{
	struct lex l = { s, s, err, 0 };
	sl_type *t = parse_type(&l);
	if (t == NULL)
		return NULL;
	skipws(&l);
	if (*l.p != '\0') {
		sl_err_set(err, SL_EPARSE, "schema: unexpected '%c' at col %d",
			   *l.p, col_of(&l));
		sl_type_free(t);
		return NULL;
	}
	return t;
}

/* ---- printing ---- */

static const char *sql_names[] = { "VOID",   "BOOLEAN", "INT",    "BIGINT",
				   "DOUBLE", "STRING",  "BINARY", "TIMESTAMP",
				   "DATE" };

void sl_type_sql(const sl_type *t, sl_buf *out)
{
	int i;
	if (t->kind == SL_STRUCT) {
		sl_buf_adds(out, "STRUCT<");
		for (i = 0; i < t->nfields; i++) {
			if (i > 0)
				sl_buf_adds(out, ", ");
			sl_buf_printf(out, "%s: ", t->fields[i].name);
			sl_type_sql(t->fields[i].type, out);
		}
		sl_buf_addc(out, '>');
	} else if (t->kind == SL_ARRAY) {
		sl_buf_adds(out, "ARRAY<");
		sl_type_sql(t->elem, out);
		sl_buf_addc(out, '>');
	} else {
		sl_buf_adds(out, sql_names[t->kind]);
	}
}

const char *sl_type_simple_name(const sl_type *t)
{
	static const char *names[] = { "void",   "boolean",   "integer",
				       "long",   "double",    "string",
				       "binary", "timestamp", "date",
				       "struct", "array" };
	return names[t->kind];
}

void sl_type_catalog_string(const sl_type *t, sl_buf *out)
{
	switch (t->kind) {
	case SL_NULLTYPE: sl_buf_adds(out, "void"); return;
	case SL_BOOLEAN: sl_buf_adds(out, "boolean"); return;
	case SL_INT: sl_buf_adds(out, "int"); return;
	case SL_BIGINT: sl_buf_adds(out, "bigint"); return;
	case SL_DOUBLE: sl_buf_adds(out, "double"); return;
	case SL_STRING: sl_buf_adds(out, "string"); return;
	case SL_BINARY: sl_buf_adds(out, "binary"); return;
	case SL_TIMESTAMP: sl_buf_adds(out, "timestamp"); return;
	case SL_DATE: sl_buf_adds(out, "date"); return;
	case SL_ARRAY:
		sl_buf_adds(out, "array<");
		sl_type_catalog_string(t->elem, out);
		sl_buf_addc(out, '>');
		return;
	case SL_STRUCT:
		sl_buf_adds(out, "struct<");
		for (int f = 0; f < t->nfields; f++) {
			if (f)
				sl_buf_addc(out, ',');
			sl_buf_printf(out, "%s:", t->fields[f].name);
			sl_type_catalog_string(t->fields[f].type, out);
		}
		sl_buf_addc(out, '>');
		return;
	}
}

void sl_type_ddl(const sl_type *st, sl_buf *out)
{
	int i;
	for (i = 0; i < st->nfields; i++) {
		if (i > 0)
			sl_buf_adds(out, ", ");
		sl_buf_printf(out, "%s ", st->fields[i].name);
		sl_type_sql(st->fields[i].type, out);
		if (!st->fields[i].nullable)
			sl_buf_adds(out, " NOT NULL");
	}
}

static void tree(const sl_type *t, int depth, sl_buf *out)
{
	int i;
	for (i = 0; i < t->nfields; i++) {
		const sl_field *f = &t->fields[i];
		int d;
		for (d = 0; d < depth; d++)
			sl_buf_adds(out, " |   ");
		sl_buf_printf(out, " |-- %s: %s (nullable = %s)\n", f->name,
			      sl_type_simple_name(f->type),
			      f->nullable ? "true" : "false");
		if (f->type->kind == SL_STRUCT)
			tree(f->type, depth + 1, out);
		else if (f->type->kind == SL_ARRAY) {
			for (d = 0; d < depth + 1; d++)
				sl_buf_adds(out, " |   ");
			sl_buf_printf(
			    out, " |-- element: %s (containsNull = true)\n",
			    sl_type_simple_name(f->type->elem));
			if (f->type->elem->kind == SL_STRUCT)
				tree(f->type->elem, depth + 2, out);
		}
	}
}

void sl_type_tree(const sl_type *st, sl_buf *out)
{
	sl_buf_adds(out, "root\n");
	tree(st, 0, out);
}

bool sl_type_is_numeric(const sl_type *t)
{
	return t->kind == SL_INT || t->kind == SL_BIGINT ||
	       t->kind == SL_DOUBLE;
}

int sl_type_width(const sl_type *t)
{
	switch (t->kind) {
	case SL_NULLTYPE:
	case SL_BOOLEAN: return 1;
	case SL_INT:
	case SL_DATE: return 4;
	case SL_BIGINT:
	case SL_TIMESTAMP:
	case SL_DOUBLE: return 8;
	case SL_STRING:
	case SL_BINARY: return (int)sizeof(sl_str);
	case SL_ARRAY: return 0;
	case SL_STRUCT: return 0;
	}
	return 0;
}

bool sl_type_is_word(const sl_type *t)
{
	switch (t->kind) {
	case SL_BOOLEAN:
	case SL_INT:
	case SL_DATE:
	case SL_BIGINT:
	case SL_TIMESTAMP:
	case SL_DOUBLE: return true;
	default: return false;
	}
}

bool sl_type_keyable(const sl_type *t)
{
	int i;
	if (t->kind == SL_ARRAY)
		return false;
	if (t->kind == SL_STRUCT)
		for (i = 0; i < t->nfields; i++)
			if (!sl_type_keyable(t->fields[i].type))
				return false;
	return true;
}
