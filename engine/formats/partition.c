/*
 * partition: Hive partition directories, written and discovered as Spark
 * does (contract in partition.h; Spark's PartitioningUtils and
 * ExternalCatalogUtils).
 */
#include "formats/partition.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/col.h"
#include "core/timeutil.h"
#include "core/utf8.h"
#include "formats/fileformat.h"

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

/* One pass: each row's key found in (or added to) a hash table of the
 * distinct keys; then the keys sorted and the rows bucketed by key in
 * input order. */
int sl_part_split(const sl_batch *b, char *const *cols, int n,
		  sl_part_group **groups, int *ngroups, sl_err *err)
{
	sl_buf keys, val, cur;
	pkey *pk = NULL, **order = NULL;
	int32_t *slot = NULL, *gid = NULL;
	int64_t *idx = NULL, npk = 0, cap = 0;
	size_t tcap = 64;
	int *ci = NULL;
	sl_batch *data = NULL;
	sl_part_group *g = NULL;
	int ng = 0, rc = 0;
	*groups = NULL;
	*ngroups = 0;
	if (b->nrows == 0)
		return 0;
	sl_buf_init(&keys);
	sl_buf_init(&val);
	sl_buf_init(&cur);
	gid = malloc((size_t)b->nrows * sizeof *gid);
	idx = malloc((size_t)b->nrows * sizeof *idx);
	ci = malloc((size_t)n * sizeof *ci);
	slot = malloc(tcap * sizeof *slot);
	if (gid == NULL || idx == NULL || ci == NULL || slot == NULL) {
		rc = sl_err_nomem(err);
		goto out;
	}
	memset(slot, 0xff, tcap * sizeof *slot);
	for (int c = 0; c < n; c++)
		ci[c] = sl_type_field_index(b->schema, cols[c]);
	for (int64_t i = 0; i < b->nrows; i++) {
		size_t h, k;
		sl_buf_clear(&cur);
		row_key(b, ci, n, i, &val, &cur);
		if (sl_buf_failed(&cur) || sl_buf_failed(&val)) {
			rc = sl_err_nomem(err);
			goto out;
		}
		h = (size_t)key_hash(cur.p, cur.len);
		for (k = h & (tcap - 1); slot[k] >= 0; k = (k + 1) & (tcap - 1)) {
			const pkey *q = &pk[slot[k]];
			if (q->len == cur.len &&
			    memcmp(keys.p + q->off, cur.p, cur.len) == 0)
				break;
		}
		if (slot[k] < 0) {
			if (npk == cap) {
				int64_t nc = cap ? 2 * cap : 16;
				pkey *np = nc > INT32_MAX
					       ? NULL
					       : realloc(pk, (size_t)nc * sizeof *np);
				if (np == NULL) {
					rc = sl_err_nomem(err);
					goto out;
				}
				pk = np;
				cap = nc;
			}
			if (keys.len + cur.len > UINT32_MAX) {
				rc = sl_err_nomem(err);
				goto out;
			}
			pk[npk].off = (uint32_t)keys.len;
			pk[npk].len = (uint32_t)cur.len;
			pk[npk].count = 0;
			sl_buf_add(&keys, cur.p, cur.len);
			if (sl_buf_failed(&keys)) {
				rc = sl_err_nomem(err);
				goto out;
			}
			slot[k] = (int32_t)npk++;
			if (2 * (size_t)npk > tcap) { /* grow and rehash */
				size_t nt = 2 * tcap;
				int32_t *ns = malloc(nt * sizeof *ns);
				if (ns == NULL) {
					rc = sl_err_nomem(err);
					goto out;
				}
				memset(ns, 0xff, nt * sizeof *ns);
				for (int64_t x = 0; x < npk; x++) {
					size_t y = (size_t)key_hash(
						       keys.p + pk[x].off,
						       pk[x].len) &
						   (nt - 1);
					while (ns[y] >= 0)
						y = (y + 1) & (nt - 1);
					ns[y] = (int32_t)x;
				}
				free(slot);
				slot = ns;
				tcap = nt;
			}
			gid[i] = (int32_t)(npk - 1);
		} else {
			gid[i] = slot[k];
		}
		pk[gid[i]].count++;
	}
	if ((order = malloc((size_t)npk * sizeof *order)) == NULL) {
		rc = sl_err_nomem(err);
		goto out;
	}
	for (int64_t x = 0; x < npk; x++)
		order[x] = &pk[x];
	qsort_r(order, (size_t)npk, sizeof *order, cmp_pkey, keys.p);
	for (int64_t x = 0, at = 0; x < npk; x++) {
		order[x]->at = at;
		at += order[x]->count;
	}
	for (int64_t i = 0; i < b->nrows; i++)
		idx[pk[gid[i]].at++] = i;
	if ((data = data_cols(b, cols, n, err)) == NULL) {
		rc = err ? err->code : SL_ENOMEM;
		goto out;
	}
	if ((g = calloc((size_t)npk, sizeof *g)) == NULL) {
		rc = sl_err_nomem(err);
		goto out;
	}
	for (int64_t x = 0, at = 0; x < npk; x++) {
		const pkey *q = order[x];
		g[ng].subdir = strndup(keys.p + q->off, q->len);
		g[ng].data = sl_batch_take(data, idx + at, q->count);
		ng++;
		at += q->count;
		if (g[ng - 1].subdir == NULL || g[ng - 1].data == NULL) {
			rc = sl_err_nomem(err);
			goto out;
		}
	}
out:
	if (rc != 0) {
		sl_part_groups_free(g, ng);
		g = NULL;
		ng = 0;
	}
	*groups = g;
	*ngroups = ng;
	sl_batch_free(data);
	sl_buf_release(&keys);
	sl_buf_release(&val);
	sl_buf_release(&cur);
	free(pk);
	free(order);
	free(slot);
	free(gid);
	free(idx);
	free(ci);
	return rc;
}

/* ---- discovery ---- */

/* Inference lattice; ST_DEF is the null partition. */
typedef enum { ST_DEF, ST_INT, ST_BIGINT, ST_DOUBLE, ST_TS, ST_STRING } ptype;

struct sl_part_spec {
	char *base, *base_abs;
	sl_type *schema;
	bool off; /* recursiveFileLookup: no partitions */
};

/* "yyyy-MM-dd HH:mm:ss[.S]" (Spark's partition timestamp pattern). */
static bool parse_part_ts(const char *s, size_t n, int64_t *us)
{
	int64_t y, v[5];
	int64_t frac = 0, scale = 100000;
	static const int at[5] = { 5, 8, 11, 14, 17 };
	static const char sep[5] = { '-', ' ', ':', ':', 0 };
	size_t k;
	if (n < 19)
		return false;
	for (k = 0; k < 19; k++) {
		bool digit = s[k] >= '0' && s[k] <= '9';
		bool want_sep = k == 4 || k == 7 || k == 10 || k == 13 ||
				k == 16;
		if (want_sep == digit)
			return false;
	}
	if (s[4] != '-' || s[7] != sep[0] || s[10] != sep[1] ||
	    s[13] != ':' || s[16] != ':')
		return false;
	y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 +
	    (s[3] - '0');
	for (k = 0; k < 5; k++)
		v[k] = (s[at[k]] - '0') * 10 + (s[at[k] + 1] - '0');
	if (v[0] < 1 || v[0] > 12 || v[1] < 1 || v[1] > 31 || v[2] > 23 ||
	    v[3] > 59 || v[4] > 59)
		return false;
	if (n > 19) {
		if (s[19] != '.' || n == 20 || n > 29)
			return false;
		for (k = 20; k < n; k++) {
			if (s[k] < '0' || s[k] > '9')
				return false;
			if (scale > 0) {
				frac += (s[k] - '0') * scale;
				scale /= 10;
			}
		}
	}
	{
		int64_t y2;
		int m2, d2;
		int64_t days = sl_days_from_civil(y, (int)v[0], (int)v[1]);
		sl_civil_from_days(days, &y2, &m2, &d2);
		if (y2 != y || m2 != (int)v[0] || d2 != (int)v[1])
			return false;
		*us = days * SL_US_PER_DAY + v[2] * SL_US_PER_HOUR +
		      v[3] * SL_US_PER_MIN + v[4] * SL_US_PER_SEC + frac;
	}
	return true;
}

static ptype infer_one(const char *raw, size_t n)
{
	int64_t i;
	double d;
	char *u;
	bool ts;
	if (n == strlen(SL_PART_DEFAULT) && memcmp(raw, SL_PART_DEFAULT, n) == 0)
		return ST_DEF;
	if (sl_format_parse_i64(raw, n, &i))
		return i >= INT32_MIN && i <= INT32_MAX ? ST_INT : ST_BIGINT;
	/* Spark's decimalTry: a BigDecimal of scale 0 (a negative scale,
	 * "1E3", is refused by DecimalType) and at most 38 digits, so an
	 * integer beyond BIGINT; the engine has no DECIMAL: STRING, the text
	 * kept */
	{
		size_t k = n > 0 && (raw[0] == '-' || raw[0] == '+'), digits = 0;
		bool all = k < n;
		for (; k < n; k++) {
			if (raw[k] < '0' || raw[k] > '9')
				all = false;
			digits++;
		}
		if (all && digits <= 38)
			return ST_STRING;
	}
	if (sl_format_parse_double(raw, n, &d))
		return ST_DOUBLE;
	u = sl_part_unescape(raw, n);
	int64_t us;
	ts = u != NULL && parse_part_ts(u, strlen(u), &us);
	free(u);
	return ts ? ST_TS : ST_STRING;
}

static ptype widen(ptype a, ptype b)
{
	if (a == ST_DEF)
		return b;
	if (b == ST_DEF)
		return a;
	if (a == b)
		return a;
	if (a == ST_STRING || b == ST_STRING || a == ST_TS || b == ST_TS)
		return ST_STRING;
	return a > b ? a : b; /* INT < BIGINT < DOUBLE */
}

static sl_kind kind_of(ptype t)
{
	switch (t) {
	case ST_INT: return SL_INT;
	case ST_BIGINT: return SL_BIGINT;
	case ST_DOUBLE: return SL_DOUBLE;
	case ST_TS: return SL_TIMESTAMP;
	default: return SL_STRING;
	}
}

/* One parsed column of a file's path. */
typedef struct pcol {
	char *name;
	const char *raw; /* into the path */
	size_t rawlen;
} pcol;

typedef struct pfile {
	int ncols;
	pcol *cols;	/* outermost first */
	char *disc_base; /* Spark's discovered base path */
} pfile;

static void pfile_release(pfile *f)
{
	for (int k = 0; k < f->ncols; k++)
		free(f->cols[k].name);
	free(f->cols);
	free(f->disc_base);
	memset(f, 0, sizeof *f);
}

/* The part of file below base ("a=1/b=2/part-0.json"), or NULL. */
static const char *rel_of(const sl_part_spec *ps, const char *file)
{
	const char *bases[2] = { ps->base, ps->base_abs };
	for (int k = 0; k < 2; k++) {
		size_t n;
		if (bases[k] == NULL)
			continue;
		n = strlen(bases[k]);
		while (n > 1 && bases[k][n - 1] == '/')
			n--;
		if (strncmp(file, bases[k], n) == 0 && file[n] == '/')
			return file + n + 1;
	}
	return NULL;
}

/* Spark's parsePartition over the directories of rel (innermost first). */
static int parse_path(const sl_part_spec *ps, const char *file, pfile *out,
		      sl_err *err)
{
	const char *rel = rel_of(ps, file), *end, *seg;
	memset(out, 0, sizeof *out);
	if (rel == NULL) {
		const char *slash = strrchr(file, '/');
		out->disc_base = slash ? strndup(file, (size_t)(slash - file))
				       : strdup(".");
		return out->disc_base ? 0 : sl_err_nomem(err);
	}
	end = strrchr(rel, '/');
	if (end == NULL) {
		out->disc_base = strdup(ps->base_abs);
		return out->disc_base ? 0 : sl_err_nomem(err);
	}
	for (;;) {
		const char *eq;
		size_t n;
		seg = end;
		while (seg > rel && seg[-1] != '/')
			seg--;
		n = (size_t)(end - seg);
		eq = memchr(seg, '=', n);
		if (eq == NULL) {
			if (out->ncols > 0) {
				out->disc_base = malloc(strlen(ps->base_abs) +
							(size_t)(end - rel) + 2);
				if (out->disc_base == NULL)
					return sl_err_nomem(err);
				sprintf(out->disc_base, "%s/%.*s", ps->base_abs,
					(int)(end - rel), rel);
				break;
			}
		} else {
			pcol *nc;
			if (eq == seg)
				return sl_err_set(err, SL_EANALYSIS,
						  "Empty partition column name "
						  "in '%.*s' (%s)",
						  (int)n, seg, file);
			if (eq + 1 == end)
				return sl_err_set(err, SL_EANALYSIS,
						  "Empty partition column value "
						  "in '%.*s' (%s)",
						  (int)n, seg, file);
			nc = realloc(out->cols,
				     (size_t)(out->ncols + 1) * sizeof *nc);
			if (nc == NULL)
				return sl_err_nomem(err);
			out->cols = nc;
			memmove(nc + 1, nc, (size_t)out->ncols * sizeof *nc);
			nc[0].name = sl_part_unescape(seg, (size_t)(eq - seg));
			nc[0].raw = eq + 1;
			nc[0].rawlen = (size_t)(end - eq - 1);
			out->ncols++;
			if (nc[0].name == NULL)
				return sl_err_nomem(err);
		}
		if (seg == rel)
			break;
		end = seg - 1;
	}
	if (out->disc_base == NULL) {
		if (out->ncols > 0) {
			out->disc_base = strdup(ps->base_abs);
		} else {
			/* no partition: Spark's (None, Some(leaf dir)) */
			const char *slash = strrchr(rel, '/');
			out->disc_base = malloc(strlen(ps->base_abs) +
						(size_t)(slash - rel) + 2);
			if (out->disc_base != NULL)
				sprintf(out->disc_base, "%s/%.*s",
					ps->base_abs, (int)(slash - rel), rel);
		}
		if (out->disc_base == NULL)
			return sl_err_nomem(err);
	}
	return 0;
}

void sl_part_spec_free(sl_part_spec *ps)
{
	if (ps == NULL)
		return;
	free(ps->base);
	free(ps->base_abs);
	sl_type_free(ps->schema);
	free(ps);
}

sl_type *sl_part_schema(const sl_part_spec *ps)
{
	return ps->schema;
}

static int set_base(sl_part_spec *ps, const char *path, const sl_options *opts,
		    sl_err *err)
{
	const char *bp = opts ? sl_options_get(opts, "basePath") : NULL;
	struct stat st;
	char *abs_path;
	if (bp != NULL) {
		size_t n;
		if (stat(bp, &st) != 0 || !S_ISDIR(st.st_mode))
			return sl_err_set(err, SL_EINVAL,
					  "Option 'basePath' must be a "
					  "directory");
		ps->base = strdup(bp);
		ps->base_abs = realpath(bp, NULL);
		abs_path = realpath(path, NULL);
		if (ps->base == NULL || ps->base_abs == NULL ||
		    abs_path == NULL) {
			free(abs_path);
			return sl_err_set(err, SL_EIO,
					  "cannot resolve '%s': %s", bp,
					  strerror(errno));
		}
		n = strlen(ps->base_abs);
		if (strncmp(abs_path, ps->base_abs, n) != 0 ||
		    (abs_path[n] != '/' && abs_path[n] != '\0' &&
		     strcmp(ps->base_abs, "/") != 0)) {
			sl_err_set(err, SL_EINVAL,
				   "Wrong basePath %s for the root path: "
				   "file:%s",
				   bp, abs_path);
			free(abs_path);
			return SL_EINVAL;
		}
		free(abs_path);
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		const char *slash = strrchr(path, '/');
		ps->base = slash ? strndup(path, (size_t)(slash - path))
				 : strdup(".");
	} else {
		ps->base = strdup(path);
	}
	if (ps->base == NULL)
		return sl_err_nomem(err);
	ps->base_abs = realpath(ps->base, NULL);
	if (ps->base_abs == NULL && (ps->base_abs = strdup(ps->base)) == NULL)
		return sl_err_nomem(err);
	return 0;
}

static sl_part_spec *spec_new(const char *path, const sl_options *opts,
			      sl_err *err)
{
	sl_part_spec *ps = calloc(1, sizeof *ps);
	bool off = false;
	if (ps == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (opts != NULL &&
	    sl_options_bool(opts, "recursiveFileLookup", false, &off, err) !=
		0) {
		sl_part_spec_free(ps);
		return NULL;
	}
	ps->off = off;
	if (set_base(ps, path, opts, err) != 0) {
		sl_part_spec_free(ps);
		return NULL;
	}
	return ps;
}

sl_part_spec *sl_part_spec_new(const char *path, const sl_options *opts,
			       const sl_type *parts, sl_err *err)
{
	sl_part_spec *ps = spec_new(path, opts, err);
	if (ps == NULL)
		return NULL;
	ps->schema = sl_type_ref((sl_type *)parts);
	return ps;
}

static const char *spark_type_name(sl_kind k)
{
	switch (k) {
	case SL_INT: return "IntegerType";
	case SL_BIGINT: return "LongType";
	case SL_DOUBLE: return "DoubleType";
	case SL_BOOLEAN: return "BooleanType";
	case SL_TIMESTAMP: return "TimestampType";
	case SL_BINARY: return "BinaryType";
	default: return "StringType";
	}
}

sl_part_spec *sl_part_discover(const char *path, char **files, int *nfiles,
			       const sl_type *user, const sl_options *opts,
			       sl_err *err)
{
	sl_part_spec *ps = spec_new(path, opts, err);
	pfile *pf = NULL;
	ptype *types = NULL;
	int n = *nfiles, first = -1, ncols = 0, keep = 0;
	if (ps == NULL)
		return NULL;
	if (ps->off || n == 0)
		goto empty;
	pf = calloc((size_t)n, sizeof *pf);
	if (pf == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	for (int k = 0; k < n; k++) {
		if (parse_path(ps, files[k], &pf[k], err) != 0)
			goto fail;
		if (pf[k].ncols > 0 && first < 0)
			first = k;
	}
	if (first < 0)
		goto empty;
	/* Spark's checks: one discovered base, the same columns everywhere */
	for (int k = 0; k < n; k++) {
		if (strcmp(pf[k].disc_base, pf[first].disc_base) != 0) {
			sl_err_set(err, SL_EANALYSIS,
				   "Conflicting directory structures detected. "
				   "Suspicious paths: file:%s, file:%s. If "
				   "provided paths are partition directories, "
				   "please set \"basePath\" in the options of "
				   "the data source to specify the root "
				   "directory of the table. If there are "
				   "multiple root directories, please load them "
				   "separately and then union them.",
				   pf[first].disc_base, pf[k].disc_base);
			goto fail;
		}
		if (pf[k].ncols == 0)
			continue;
		bool same = pf[k].ncols == pf[first].ncols;
		for (int c = 0; same && c < pf[k].ncols; c++)
			same = strcasecmp(pf[k].cols[c].name,
					  pf[first].cols[c].name) == 0;
		if (!same) {
			sl_buf a, b;
			sl_buf_init(&a);
			sl_buf_init(&b);
			for (int c = 0; c < pf[first].ncols; c++)
				sl_buf_printf(&a, "%s%s", c ? ", " : "",
					      pf[first].cols[c].name);
			for (int c = 0; c < pf[k].ncols; c++)
				sl_buf_printf(&b, "%s%s", c ? ", " : "",
					      pf[k].cols[c].name);
			sl_err_set(err, SL_EANALYSIS,
				   "Conflicting partition column names "
				   "detected: Partition column name list #0: "
				   "%s; Partition column name list #1: %s (in "
				   "'%s' and '%s'). For partitioned table "
				   "directories, data files should only live "
				   "in leaf directories.",
				   sl_buf_cstr(&a), sl_buf_cstr(&b),
				   files[first], files[k]);
			sl_buf_release(&a);
			sl_buf_release(&b);
			goto fail;
		}
	}
	ncols = pf[first].ncols;
	types = calloc((size_t)ncols, sizeof *types);
	if (types == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	for (int k = 0; k < n; k++)
		for (int c = 0; c < pf[k].ncols; c++)
			types[c] = widen(types[c],
					 infer_one(pf[k].cols[c].raw,
						   pf[k].cols[c].rawlen));
	ps->schema = sl_type_struct_new(ncols);
	if (ps->schema == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	for (int c = 0; c < ncols; c++) {
		const char *name = pf[first].cols[c].name;
		int ui = user ? sl_type_field_index(user, name) : -1;
		sl_type *t = ui >= 0 ? sl_type_ref(user->fields[ui].type)
				     : sl_type_prim(kind_of(types[c]));
		if (ui >= 0)
			name = user->fields[ui].name;
		if (sl_type_set_field(ps->schema, c, name, t, true) != 0) {
			sl_err_nomem(err);
			goto fail;
		}
	}
	/* files outside every partition directory are not read (Spark) */
	for (int k = 0; k < n; k++) {
		if (pf[k].ncols == 0) {
			free(files[k]);
			continue;
		}
		files[keep++] = files[k];
	}
	*nfiles = keep;
	for (int k = 0; k < n; k++)
		pfile_release(&pf[k]);
	free(pf);
	free(types);
	return ps;
empty:
	if (pf != NULL)
		for (int k = 0; k < n; k++)
			pfile_release(&pf[k]);
	free(pf);
	ps->schema = sl_type_struct_new(0);
	if (ps->schema == NULL) {
		sl_err_nomem(err);
		sl_part_spec_free(ps);
		return NULL;
	}
	return ps;
fail:
	if (pf != NULL)
		for (int k = 0; k < n; k++)
			pfile_release(&pf[k]);
	free(pf);
	free(types);
	sl_part_spec_free(ps);
	return NULL;
}

static sl_type *concat_schema(const sl_type *a, const sl_type *b,
			      const sl_type *skip)
{
	int n = 0, j = 0;
	sl_type *st;
	for (int k = 0; k < a->nfields; k++)
		n += skip == NULL ||
		     sl_type_field_index(skip, a->fields[k].name) < 0;
	n += b ? b->nfields : 0;
	if ((st = sl_type_struct_new(n)) == NULL)
		return NULL;
	for (int k = 0; k < a->nfields; k++) {
		if (skip != NULL &&
		    sl_type_field_index(skip, a->fields[k].name) >= 0)
			continue;
		if (sl_type_set_field(st, j++, a->fields[k].name,
				      sl_type_ref(a->fields[k].type),
				      a->fields[k].nullable) != 0)
			goto fail;
	}
	for (int k = 0; b && k < b->nfields; k++)
		if (sl_type_set_field(st, j++, b->fields[k].name,
				      sl_type_ref(b->fields[k].type),
				      true) != 0)
			goto fail;
	return st;
fail:
	sl_type_free(st);
	return NULL;
}

sl_type *sl_part_full_schema(const sl_type *data, const sl_type *parts)
{
	if (parts == NULL || parts->nfields == 0)
		return sl_type_ref((sl_type *)data);
	return concat_schema(data, parts, parts);
}

sl_type *sl_part_data_schema(const sl_part_spec *ps, sl_type *user)
{
	if (user == NULL)
		return NULL;
	if (ps->schema->nfields == 0)
		return sl_type_ref(user);
	return concat_schema(user, NULL, ps->schema);
}

/* The value raw (escaped) of a file's path as a one-row... set into row
 * 0..n of c (constant). */
static int fill_const(sl_col *c, const char *raw, size_t rawlen,
		      const char *colname, sl_err *err)
{
	char *u;
	int64_t i64 = 0, us;
	double d;
	bool bv;
	int rc = 0;
	if (raw == NULL || (rawlen == strlen(SL_PART_DEFAULT) &&
			    memcmp(raw, SL_PART_DEFAULT, rawlen) == 0)) {
		for (int64_t r = 0; r < c->len; r++)
			if (sl_col_set_null(c, r) != 0)
				return sl_err_nomem(err);
		return 0;
	}
	if ((u = sl_part_unescape(raw, rawlen)) == NULL)
		return sl_err_nomem(err);
	size_t n = strlen(u);
	switch (c->type->kind) {
	case SL_INT:
		if (!sl_format_parse_i64(u, n, &i64) || i64 < INT32_MIN ||
		    i64 > INT32_MAX)
			goto bad;
		for (int64_t r = 0; r < c->len; r++)
			sl_col_i32(c)[r] = (int32_t)i64;
		break;
	case SL_BIGINT:
		if (!sl_format_parse_i64(u, n, &i64))
			goto bad;
		for (int64_t r = 0; r < c->len; r++)
			sl_col_i64(c)[r] = i64;
		break;
	case SL_DOUBLE:
		if (!sl_format_parse_double(u, n, &d))
			goto bad;
		for (int64_t r = 0; r < c->len; r++)
			sl_col_f64(c)[r] = d;
		break;
	case SL_BOOLEAN:
		/* Java's Boolean.parseBoolean: "true" in any case, else false */
		bv = strcasecmp(u, "true") == 0;
		for (int64_t r = 0; r < c->len; r++)
			sl_col_u8(c)[r] = bv;
		break;
	case SL_TIMESTAMP:
		if (!parse_part_ts(u, n, &us) && !sl_ts_parse(u, n, &us))
			goto bad;
		for (int64_t r = 0; r < c->len; r++)
			sl_col_i64(c)[r] = us;
		break;
	case SL_STRING:
	case SL_BINARY:
		/* one copy in the arena, shared by every row */
		if (c->len > 0 && sl_col_set_str(c, 0, u, n) != 0) {
			rc = sl_err_nomem(err);
			break;
		}
		for (int64_t r = 1; r < c->len; r++)
			sl_col_str(c)[r] = sl_col_str(c)[0];
		break;
	default:
		goto bad;
	}
	free(u);
	return rc;
bad:
	sl_err_set(err, SL_EANALYSIS,
		   "Failed to cast value `%s` to `%s` for partition column "
		   "`%s`",
		   u, spark_type_name(c->type->kind), colname);
	free(u);
	return SL_EANALYSIS;
}

static int path_col(const pfile *pf, const char *name)
{
	for (int c = 0; c < pf->ncols; c++)
		if (strcasecmp(pf->cols[c].name, name) == 0)
			return c;
	return -1;
}

/* Is full's column k filled from the path (or null as a partition column
 * the path lacks) rather than read from the file? */
static bool from_path(const sl_part_spec *ps, const pfile *pf,
		      const sl_type *full, int k)
{
	const char *name = full->fields[k].name;
	return path_col(pf, name) >= 0 ||
	       sl_type_field_index(ps->schema, name) >= 0;
}

static int parse_for(const sl_part_spec *ps, const char *file, pfile *pf,
		     sl_err *err)
{
	if (ps->off) {
		memset(pf, 0, sizeof *pf);
		return 0;
	}
	return parse_path(ps, file, pf, err);
}

sl_type *sl_part_file_schema(const sl_part_spec *ps, const char *file,
			     sl_type *full, sl_err *err)
{
	pfile pf;
	sl_type *st;
	int n = 0, j = 0;
	if (parse_for(ps, file, &pf, err) != 0) {
		pfile_release(&pf);
		return NULL;
	}
	for (int k = 0; k < full->nfields; k++)
		n += !from_path(ps, &pf, full, k);
	if (n == full->nfields) {
		pfile_release(&pf);
		return sl_type_ref(full);
	}
	if ((st = sl_type_struct_new(n)) == NULL) {
		pfile_release(&pf);
		sl_err_nomem(err);
		return NULL;
	}
	for (int k = 0; k < full->nfields; k++) {
		const sl_field *f = &full->fields[k];
		if (from_path(ps, &pf, full, k))
			continue;
		if (sl_type_set_field(st, j++, f->name, sl_type_ref(f->type),
				      f->nullable) != 0) {
			sl_type_free(st);
			pfile_release(&pf);
			sl_err_nomem(err);
			return NULL;
		}
	}
	pfile_release(&pf);
	return st;
}

sl_batch *sl_part_assemble(const sl_part_spec *ps, const char *file,
			   const sl_batch *b, sl_type *full, sl_err *err)
{
	sl_col **cols;
	sl_batch *out;
	pfile pf;
	int nf = full->nfields;
	if (parse_for(ps, file, &pf, err) != 0) {
		pfile_release(&pf);
		return NULL;
	}
	if (pf.ncols == 0 && ps->schema->nfields == 0 && b->schema == full) {
		pfile_release(&pf);
		return sl_batch_ref((sl_batch *)b);
	}
	cols = calloc((size_t)(nf ? nf : 1), sizeof *cols);
	if (cols == NULL) {
		pfile_release(&pf);
		sl_err_nomem(err);
		return NULL;
	}
	for (int k = 0; k < nf; k++) {
		const sl_field *f = &full->fields[k];
		int pc = path_col(&pf, f->name), bi;
		if (!from_path(ps, &pf, full, k)) {
			bi = sl_type_field_index(b->schema, f->name);
			if (bi < 0) {
				sl_err_set(err, SL_EINTERNAL,
					   "partition: column '%s' missing "
					   "from the rows read from '%s'",
					   f->name, file);
				goto fail;
			}
			cols[k] = sl_col_ref(b->cols[bi]);
			continue;
		}
		cols[k] = sl_col_new(f->type, b->nrows);
		if (cols[k] == NULL) {
			sl_err_nomem(err);
			goto fail;
		}
		if (fill_const(cols[k], pc >= 0 ? pf.cols[pc].raw : NULL,
			       pc >= 0 ? pf.cols[pc].rawlen : 0, f->name,
			       err) != 0)
			goto fail;
	}
	pfile_release(&pf);
	out = sl_batch_new(full, b->nrows, cols);
	free(cols);
	if (out == NULL)
		sl_err_nomem(err);
	return out;
fail:
	for (int k = 0; k < nf; k++)
		if (cols[k] != NULL)
			sl_col_free(cols[k]);
	free(cols);
	pfile_release(&pf);
	return NULL;
}
