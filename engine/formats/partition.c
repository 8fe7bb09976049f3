/*
 * partition: partition discovery as Spark's PartitioningUtils does it
 * (contract in partition.h): the columns of each file's directories, their
 * inferred types, Spark's consistency checks, and the rows of a file with
 * the values of its directories.  The writer's half is partition_write.c.
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
#include "formats/fileformat.h"

/* ---- discovery ---- */

/* Inference lattice; ST_DEF is the null partition. */
typedef enum {
	ST_DEF,
	ST_INT,
	ST_BIGINT,
	ST_DOUBLE,
	ST_TS,
	ST_DATE,
	ST_STRING
} ptype;

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

/* Spark's dateTry: the whole text is yyyy-MM-dd and a valid day (tried
 * before timestamps, so "2026-01-01" is a DATE). */
static bool is_part_date(const char *s)
{
	int32_t days;
	int k;
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (k = 0; k < 10; k++)
		if (k != 4 && k != 7 && (s[k] < '0' || s[k] > '9'))
			return false;
	return sl_date_parse(s, 10, &days);
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
	if (u != NULL && is_part_date(u)) {
		free(u);
		return ST_DATE;
	}
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
	if ((a == ST_DATE && b == ST_TS) || (a == ST_TS && b == ST_DATE))
		return ST_TS; /* findWiderTypeForTwo: a date widens to its midnight */
	if (a == ST_STRING || b == ST_STRING || a == ST_TS || b == ST_TS ||
	    a == ST_DATE || b == ST_DATE)
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
	case ST_DATE: return SL_DATE;
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
	case SL_DATE: return "DateType";
	case SL_BINARY: return "BinaryType";
	default: return "StringType";
	}
}

/* Spark's checks of a partitioned listing: one discovered base path, the
 * same partition column names everywhere. */
static int check_consistent(const pfile *pf, int n, char **files, int first,
			    sl_err *err)
{
	for (int k = 0; k < n; k++) {
		bool same;
		if (strcmp(pf[k].disc_base, pf[first].disc_base) != 0)
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "Conflicting directory structures detected. "
			    "Suspicious paths: file:%s, file:%s. If provided "
			    "paths are partition directories, please set "
			    "\"basePath\" in the options of the data source to "
			    "specify the root directory of the table. If there "
			    "are multiple root directories, please load them "
			    "separately and then union them.",
			    pf[first].disc_base, pf[k].disc_base);
		if (pf[k].ncols == 0)
			continue;
		same = pf[k].ncols == pf[first].ncols;
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
			return SL_EANALYSIS;
		}
	}
	return 0;
}

/* The partition schema: each column's type widened over every file (or
 * the user's), named as the first file's directories (or the user). */
static sl_type *resolve_types(const pfile *pf, int n, int first,
			      const sl_type *user, sl_err *err)
{
	int ncols = pf[first].ncols;
	ptype *types = calloc((size_t)(ncols ? ncols : 1), sizeof *types);
	sl_type *st = types ? sl_type_struct_new(ncols) : NULL;
	if (st == NULL) {
		free(types);
		sl_err_nomem(err);
		return NULL;
	}
	for (int k = 0; k < n; k++)
		for (int c = 0; c < pf[k].ncols; c++)
			types[c] = widen(types[c],
					 infer_one(pf[k].cols[c].raw,
						   pf[k].cols[c].rawlen));
	for (int c = 0; c < ncols; c++) {
		const char *name = pf[first].cols[c].name;
		int ui = user ? sl_type_field_index(user, name) : -1;
		sl_type *t = ui >= 0 ? sl_type_ref(user->fields[ui].type)
				     : sl_type_prim(kind_of(types[c]));
		if (ui >= 0)
			name = user->fields[ui].name;
		if (sl_type_set_field(st, c, name, t, true) != 0) {
			sl_type_free(st);
			free(types);
			sl_err_nomem(err);
			return NULL;
		}
	}
	free(types);
	return st;
}

static void pfiles_free(pfile *pf, int n)
{
	for (int k = 0; pf != NULL && k < n; k++)
		pfile_release(&pf[k]);
	free(pf);
}

sl_part_spec *sl_part_discover(const char *path, char **files, int *nfiles,
			       const sl_type *user, const sl_options *opts,
			       sl_err *err)
{
	sl_part_spec *ps = spec_new(path, opts, err);
	pfile *pf = NULL;
	int n = *nfiles, first = -1, keep = 0;
	if (ps == NULL)
		return NULL;
	if (!ps->off && n > 0 && (pf = calloc((size_t)n, sizeof *pf)) == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	for (int k = 0; pf != NULL && k < n; k++) {
		if (parse_path(ps, files[k], &pf[k], err) != 0)
			goto fail;
		if (pf[k].ncols > 0 && first < 0)
			first = k;
	}
	if (first < 0) { /* not partitioned */
		pfiles_free(pf, n);
		if ((ps->schema = sl_type_struct_new(0)) == NULL) {
			sl_err_nomem(err);
			sl_part_spec_free(ps);
			return NULL;
		}
		return ps;
	}
	if (check_consistent(pf, n, files, first, err) != 0 ||
	    (ps->schema = resolve_types(pf, n, first, user, err)) == NULL)
		goto fail;
	/* files outside every partition directory are not read (Spark) */
	for (int k = 0; k < n; k++) {
		if (pf[k].ncols == 0) {
			free(files[k]);
			continue;
		}
		files[keep++] = files[k];
	}
	*nfiles = keep;
	pfiles_free(pf, n);
	return ps;
fail:
	pfiles_free(pf, n);
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
	int n = data->nfields, j;
	sl_type *st;
	if (parts == NULL || parts->nfields == 0)
		return sl_type_ref((sl_type *)data);
	for (int k = 0; k < parts->nfields; k++)
		n += sl_type_field_index(data, parts->fields[k].name) < 0;
	if ((st = sl_type_struct_new(n)) == NULL)
		return NULL;
	/* Spark's mergeDataAndPartitionSchema: a data column that is also a
	 * partition column keeps its place and takes the partition type */
	for (j = 0; j < data->nfields; j++) {
		const sl_field *f = &data->fields[j];
		int pi = sl_type_field_index(parts, f->name);
		if (sl_type_set_field(st, j, f->name,
				      sl_type_ref(pi >= 0 ? parts->fields[pi].type
							  : f->type),
				      pi >= 0 ? true : f->nullable) != 0)
			goto fail;
	}
	for (int k = 0; k < parts->nfields; k++)
		if (sl_type_field_index(data, parts->fields[k].name) < 0 &&
		    sl_type_set_field(st, j++, parts->fields[k].name,
				      sl_type_ref(parts->fields[k].type),
				      true) != 0)
			goto fail;
	return st;
fail:
	sl_type_free(st);
	return NULL;
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
	case SL_DATE: {
		int32_t days;
		if (!sl_date_parse(u, n, &days))
			goto bad;
		for (int64_t r = 0; r < c->len; r++)
			sl_col_i32(c)[r] = days;
		break;
	}
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
