/*
 * partition_write: the writer's half of Hive partition directories
 * (contract in partition.h): Spark's escapePathName / unescapePathName,
 * the partitionBy option, Spark's checks of the columns, and the split of
 * a batch into one group of rows per partition directory.
 */
#include "formats/partition.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/col.h"
#include "core/utf8.h"

/* ---- escaping (ExternalCatalogUtils.charToEscape, non-Windows) ---- */

static bool needs_escape(unsigned char c)
{
	return (c >= 0x01 && c <= 0x1f) || c == 0x7f ||
	       (c != 0 && strchr("\"#%'*/:=?\\{[]^", c) != NULL);
}

void sl_part_escape(const char *s, size_t n, sl_buf *out)
{
	for (size_t k = 0; k < n; k++) {
		unsigned char c = (unsigned char)s[k];
		if (needs_escape(c))
			sl_buf_printf(out, "%%%02X", c);
		else
			sl_buf_addc(out, (char)c);
	}
}

char *sl_part_unescape(const char *s, size_t n)
{
	sl_buf b;
	sl_buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n &&
		    (hi = sl_hex_digit(s[i + 1])) >= 0 &&
		    (lo = sl_hex_digit(s[i + 2])) >= 0) {
			sl_buf_addc(&b, (char)(hi * 16 + lo));
			i += 2;
		} else {
			sl_buf_addc(&b, s[i]);
		}
	}
	if (sl_buf_failed(&b)) {
		sl_buf_release(&b);
		return NULL;
	}
	return sl_buf_detach(&b);
}

/* ---- the writer option ---- */

void sl_part_cols_free(char **cols, int n)
{
	for (int k = 0; k < n; k++)
		free(cols[k]);
	free(cols);
}

char *sl_part_cols_json(const char *const *names, int n)
{
	sl_buf b;
	sl_buf_init(&b);
	sl_buf_addc(&b, '[');
	for (int k = 0; k < n; k++) {
		if (k > 0)
			sl_buf_addc(&b, ',');
		sl_buf_json_str(&b, names[k], strlen(names[k]));
	}
	sl_buf_addc(&b, ']');
	if (sl_buf_failed(&b)) {
		sl_buf_release(&b);
		return NULL;
	}
	return sl_buf_detach(&b);
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

int sl_part_cols_get(const sl_options *opts, char ***cols, int *n,
		     sl_err *err)
{
	const char *v = opts ? sl_options_get(opts, SL_PART_OPTION) : NULL;
	const char *p;
	char **out = NULL;
	int cnt = 0;
	*cols = NULL;
	*n = 0;
	if (v == NULL)
		return 0;
	p = skip_ws(v);
	if (*p++ != '[')
		goto bad;
	p = skip_ws(p);
	while (*p == '"') {
		sl_buf s;
		char **nv;
		sl_buf_init(&s);
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			sl_buf_addc(&s, *p);
		}
		if (*p != '"' || sl_buf_failed(&s) ||
		    (nv = realloc(out, (size_t)(cnt + 1) * sizeof *nv)) ==
			NULL) {
			sl_buf_release(&s);
			goto bad;
		}
		out = nv;
		out[cnt++] = sl_buf_detach(&s);
		if (out[cnt - 1] == NULL)
			out[cnt - 1] = strdup("");
		p = skip_ws(p + 1);
		if (*p == ',')
			p = skip_ws(p + 1);
	}
	if (*p != ']' || *skip_ws(p + 1) != '\0')
		goto bad;
	*cols = out;
	*n = cnt;
	return 0;
bad:
	sl_part_cols_free(out, cnt);
	return sl_err_set(err, SL_EINVAL,
			  "option '%s': expected a JSON array of column "
			  "names, got '%s'",
			  SL_PART_OPTION, v);
}

/* Spark's catalogString of a schema: struct<a:int,b:string>. */
static void catalog_string(const sl_type *t, sl_buf *out)
{
	if (t->kind == SL_STRUCT) {
		sl_buf_adds(out, "struct<");
		for (int k = 0; k < t->nfields; k++) {
			if (k > 0)
				sl_buf_addc(out, ',');
			sl_buf_adds(out, t->fields[k].name);
			sl_buf_addc(out, ':');
			catalog_string(t->fields[k].type, out);
		}
		sl_buf_addc(out, '>');
	} else if (t->kind == SL_ARRAY) {
		sl_buf_adds(out, "array<");
		catalog_string(t->elem, out);
		sl_buf_addc(out, '>');
	} else {
		const char *s = sl_type_simple_name(t);
		sl_buf_adds(out, strcmp(s, "integer") == 0 ? "int"
				 : strcmp(s, "long") == 0  ? "bigint"
							   : s);
	}
}

int sl_part_check(const sl_type *schema, char *const *cols, int n,
		  sl_err *err)
{
	for (int k = 0; k < n; k++) {
		int i = sl_type_field_index(schema, cols[k]);
		const sl_type *t;
		if (i < 0) {
			sl_buf b;
			sl_buf_init(&b);
			catalog_string(schema, &b);
			sl_err_set(err, SL_EANALYSIS,
				   "Partition column `%s` not found in schema "
				   "%s",
				   cols[k], sl_buf_cstr(&b));
			sl_buf_release(&b);
			return SL_EANALYSIS;
		}
		t = schema->fields[i].type;
		if (t->kind == SL_STRUCT || t->kind == SL_ARRAY) {
			sl_buf b;
			sl_buf_init(&b);
			catalog_string(t, &b);
			sl_err_set(err, SL_EANALYSIS,
				   "Cannot use %s for partition column",
				   sl_buf_cstr(&b));
			sl_buf_release(&b);
			return SL_EANALYSIS;
		}
		for (int j = 0; j < k; j++)
			if (strcasecmp(cols[j], cols[k]) == 0)
				return sl_err_set(
				    err, SL_EANALYSIS,
				    "Found duplicate column(s) in the "
				    "partition schema: `%s`",
				    cols[k]);
	}
	if (n > 0 && n >= schema->nfields)
		return sl_err_set(err, SL_EANALYSIS,
				  "Cannot use all columns for partition "
				  "columns");
	return 0;
}

/* ---- splitting a batch ---- */

/* The text of a partition value: Cast(value AS STRING). */
static void value_text(const sl_col *c, int64_t i, sl_buf *out)
{
	if (c->type->kind == SL_STRING || c->type->kind == SL_BINARY)
		sl_buf_add(out, sl_col_str(c)[i].p, sl_col_str(c)[i].len);
	else
		sl_value_show(c, i, out);
}

/* A distinct partition key: its bytes in the key buffer, its rows. */
typedef struct pkey {
	uint32_t off, len;
	int64_t count, at;
} pkey;

static int cmp_pkey(const void *a, const void *b, void *ctx)
{
	const pkey *x = *(pkey *const *)a, *y = *(pkey *const *)b;
	const char *keys = ctx;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(keys + x->off, keys + y->off, n);
	if (c != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static uint64_t key_hash(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037u;
	for (size_t k = 0; k < n; k++)
		h = (h ^ (unsigned char)p[k]) * 1099511628211u;
	return h;
}

void sl_part_groups_free(sl_part_group *g, int n)
{
	for (int k = 0; k < n; k++) {
		free(g[k].subdir);
		sl_batch_free(g[k].data);
	}
	free(g);
}

/* b's columns that are not partition columns, as a batch sharing them. */
static sl_batch *data_cols(const sl_batch *b, char *const *cols, int n,
			   sl_err *err)
{
	int keep = 0, j = 0;
	sl_type *st;
	sl_col **cv;
	sl_batch *out;
	for (int k = 0; k < b->ncols; k++) {
		bool part = false;
		for (int c = 0; c < n; c++)
			part |= strcasecmp(b->schema->fields[k].name,
					   cols[c]) == 0;
		keep += !part;
	}
	st = sl_type_struct_new(keep);
	cv = calloc((size_t)(keep ? keep : 1), sizeof *cv);
	if (st == NULL || cv == NULL) {
		sl_type_free(st);
		free(cv);
		sl_err_nomem(err);
		return NULL;
	}
	for (int k = 0; k < b->ncols; k++) {
		const sl_field *f = &b->schema->fields[k];
		bool part = false;
		for (int c = 0; c < n; c++)
			part |= strcasecmp(f->name, cols[c]) == 0;
		if (part)
			continue;
		if (sl_type_set_field(st, j, f->name, sl_type_ref(f->type),
				      f->nullable) != 0) {
			for (int x = 0; x < j; x++)
				sl_col_free(cv[x]);
			free(cv);
			sl_type_free(st);
			sl_err_nomem(err);
			return NULL;
		}
		cv[j++] = sl_col_ref(b->cols[k]);
	}
	out = sl_batch_new(st, b->nrows, cv);
	sl_type_free(st);
	free(cv);
	if (out == NULL)
		sl_err_nomem(err);
	return out;
}

/* The directory path of row i ("a=1/b=x") appended to out. */
static void row_key(const sl_batch *b, const int *ci, int n, int64_t i,
		    sl_buf *val, sl_buf *out)
{
	for (int c = 0; c < n; c++) {
		const sl_col *col = b->cols[ci[c]];
		const char *name = b->schema->fields[ci[c]].name;
		size_t at;
		if (c > 0)
			sl_buf_addc(out, '/');
		sl_part_escape(name, strlen(name), out);
		sl_buf_addc(out, '=');
		at = out->len;
		if (sl_col_isnull(col, i)) {
		} else if (col->type->kind == SL_STRING ||
			   col->type->kind == SL_BINARY) {
			sl_part_escape(sl_col_str(col)[i].p,
				       sl_col_str(col)[i].len, out);
		} else {
			sl_buf_clear(val);
			value_text(col, i, val);
			sl_part_escape(val->p ? val->p : "", val->len, out);
		}
		if (out->len == at)
			sl_buf_adds(out, SL_PART_DEFAULT);
	}
}

/* The distinct keys of a split: their bytes, and an open-addressing
 * table of indexes into pk. */
typedef struct keytab {
	sl_buf keys;
	pkey *pk;
	int64_t npk, cap;
	int32_t *slot;
	size_t tcap;
} keytab;

static void keytab_release(keytab *t)
{
	sl_buf_release(&t->keys);
	free(t->pk);
	free(t->slot);
}

static int keytab_grow(keytab *t)
{
	size_t nt = t->tcap ? 2 * t->tcap : 64;
	int32_t *ns = malloc(nt * sizeof *ns);
	if (ns == NULL)
		return SL_ENOMEM;
	memset(ns, 0xff, nt * sizeof *ns);
	for (int64_t x = 0; x < t->npk; x++) {
		size_t y = (size_t)key_hash(t->keys.p + t->pk[x].off,
					    t->pk[x].len) &
			   (nt - 1);
		while (ns[y] >= 0)
			y = (y + 1) & (nt - 1);
		ns[y] = (int32_t)x;
	}
	free(t->slot);
	t->slot = ns;
	t->tcap = nt;
	return 0;
}

/* The index of key k (len n), added when new; -1 when out of memory. */
static int64_t keytab_get(keytab *t, const char *k, size_t n)
{
	size_t h = (size_t)key_hash(k, n), i;
	for (i = h & (t->tcap - 1); t->slot[i] >= 0; i = (i + 1) & (t->tcap - 1)) {
		const pkey *q = &t->pk[t->slot[i]];
		if (q->len == n && memcmp(t->keys.p + q->off, k, n) == 0)
			return t->slot[i];
	}
	if (t->npk == t->cap) {
		int64_t nc = t->cap ? 2 * t->cap : 16;
		pkey *np = nc > INT32_MAX
			       ? NULL
			       : realloc(t->pk, (size_t)nc * sizeof *np);
		if (np == NULL)
			return -1;
		t->pk = np;
		t->cap = nc;
	}
	if (t->keys.len + n > UINT32_MAX)
		return -1;
	t->pk[t->npk] = (pkey){ .off = (uint32_t)t->keys.len,
				.len = (uint32_t)n };
	sl_buf_add(&t->keys, k, n);
	if (sl_buf_failed(&t->keys))
		return -1;
	t->slot[i] = (int32_t)t->npk++;
	if (2 * (size_t)t->npk > t->tcap && keytab_grow(t) != 0)
		return -1;
	return t->npk - 1;
}

/* The groups in key order, rows of each in input order: gid[i] is row i's
 * key; idx is scratch of b->nrows. */
static int make_groups(keytab *t, const int32_t *gid, int64_t *idx,
		       const sl_batch *data, sl_part_group **groups,
		       int *ngroups, sl_err *err)
{
	pkey **order = malloc((size_t)(t->npk ? t->npk : 1) * sizeof *order);
	sl_part_group *g = calloc((size_t)(t->npk ? t->npk : 1), sizeof *g);
	int ng = 0, rc = 0;
	if (order == NULL || g == NULL) {
		free(order);
		free(g);
		return sl_err_nomem(err);
	}
	for (int64_t x = 0; x < t->npk; x++)
		order[x] = &t->pk[x];
	qsort_r(order, (size_t)t->npk, sizeof *order, cmp_pkey, t->keys.p);
	for (int64_t x = 0, at = 0; x < t->npk; x++) {
		order[x]->at = at;
		at += order[x]->count;
	}
	for (int64_t i = 0; i < data->nrows; i++)
		idx[t->pk[gid[i]].at++] = i;
	for (int64_t x = 0, at = 0; x < t->npk && rc == 0; x++) {
		const pkey *q = order[x];
		g[ng].subdir = strndup(t->keys.p + q->off, q->len);
		g[ng].data = sl_batch_take(data, idx + at, q->count);
		at += q->count;
		if (g[ng++].subdir == NULL || g[ng - 1].data == NULL)
			rc = sl_err_nomem(err);
	}
	free(order);
	if (rc != 0) {
		sl_part_groups_free(g, ng);
		return rc;
	}
	*groups = g;
	*ngroups = ng;
	return 0;
}

/* One pass: each row's key found in (or added to) the table of distinct
 * keys; then the keys sorted and the rows bucketed by key. */
int sl_part_split(const sl_batch *b, char *const *cols, int n,
		  sl_part_group **groups, int *ngroups, sl_err *err)
{
	keytab t = { 0 };
	sl_buf val, cur;
	int32_t *gid = NULL;
	int64_t *idx = NULL;
	int *ci = NULL;
	sl_batch *data = NULL;
	int rc = 0;
	*groups = NULL;
	*ngroups = 0;
	if (b->nrows == 0)
		return 0;
	sl_buf_init(&t.keys);
	sl_buf_init(&val);
	sl_buf_init(&cur);
	gid = malloc((size_t)b->nrows * sizeof *gid);
	idx = malloc((size_t)b->nrows * sizeof *idx);
	ci = malloc((size_t)n * sizeof *ci);
	if (gid == NULL || idx == NULL || ci == NULL || keytab_grow(&t) != 0) {
		rc = sl_err_nomem(err);
		goto out;
	}
	for (int c = 0; c < n; c++)
		ci[c] = sl_type_field_index(b->schema, cols[c]);
	for (int64_t i = 0; i < b->nrows; i++) {
		int64_t k;
		sl_buf_clear(&cur);
		row_key(b, ci, n, i, &val, &cur);
		if (sl_buf_failed(&cur) || sl_buf_failed(&val) ||
		    (k = keytab_get(&t, cur.p, cur.len)) < 0) {
			rc = sl_err_nomem(err);
			goto out;
		}
		gid[i] = (int32_t)k;
		t.pk[k].count++;
	}
	if ((data = data_cols(b, cols, n, err)) == NULL) {
		rc = err ? err->code : SL_ENOMEM;
		goto out;
	}
	rc = make_groups(&t, gid, idx, data, groups, ngroups, err);
out:
	sl_batch_free(data);
	keytab_release(&t);
	sl_buf_release(&val);
	sl_buf_release(&cur);
	free(gid);
	free(idx);
	free(ci);
	return rc;
}

