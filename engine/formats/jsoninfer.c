/*
 * jsoninfer: JSON schema inference for batch reads without a schema
 * (Spark's JsonInferSchema): the union of every record's fields, each
 * typed BIGINT, DOUBLE, BOOLEAN, STRING, STRUCT or ARRAY; LONG + DOUBLE
 * widen to DOUBLE and any other conflict to STRING; fields sorted by name;
 * nulls alone give STRING; empty structs are dropped.  A malformed line
 * (checked with the lexer before it is merged, so it contributes nothing)
 * fails the inference in FAILFAST and, in PERMISSIVE, adds the
 * corrupt-record column.  Never prints.
 */
#include "formats/json_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum ikind {
	IK_NULL,
	IK_BOOL,
	IK_LONG,
	IK_DOUBLE,
	IK_STRING,
	IK_STRUCT,
	IK_ARRAY
} ikind;

typedef struct inode inode;
struct inode {
	ikind k;
	int n, cap;
	char **names;
	inode **kids;
	inode *elem;
};

struct sl_json_infer {
	inode root;
	sl_format_mode mode;
	char *corrupt;
	bool malformed;
	jp j;
};

static void inode_release(inode *nd)
{
	int k;
	for (k = 0; k < nd->n; k++) {
		free(nd->names[k]);
		inode_release(nd->kids[k]);
		free(nd->kids[k]);
	}
	free(nd->names);
	free(nd->kids);
	if (nd->elem != NULL) {
		inode_release(nd->elem);
		free(nd->elem);
	}
	memset(nd, 0, sizeof *nd);
}

/* Spark's compatibleType for scalars: equal, NULL + x, LONG + DOUBLE,
 * anything else is STRING. */
static void merge_kind(inode *nd, ikind k)
{
	if (nd->k == k || k == IK_NULL)
		return;
	if (nd->k == IK_NULL) {
		nd->k = k;
	} else if ((nd->k == IK_LONG && k == IK_DOUBLE) ||
		   (nd->k == IK_DOUBLE && k == IK_LONG)) {
		nd->k = IK_DOUBLE;
	} else {
		inode_release(nd);
		nd->k = IK_STRING;
	}
}

static inode *inode_kid(jp *j, inode *nd, const char *name, size_t n)
{
	int k;
	for (k = 0; k < nd->n; k++)
		if (strlen(nd->names[k]) == n &&
		    memcmp(nd->names[k], name, n) == 0)
			return nd->kids[k];
	if (nd->n == nd->cap) {
		int cap = nd->cap ? nd->cap * 2 : 8;
		char **nm = realloc(nd->names, (size_t)cap * sizeof *nm);
		inode **kd =
		    nm ? realloc(nd->kids, (size_t)cap * sizeof *kd) : NULL;
		if (nm != NULL)
			nd->names = nm;
		if (kd == NULL) {
			j->oom = true;
			return NULL;
		}
		nd->kids = kd;
		nd->cap = cap;
	}
	nd->names[nd->n] = strndup(name, n);
	nd->kids[nd->n] = calloc(1, sizeof(inode));
	if (nd->names[nd->n] == NULL || nd->kids[nd->n] == NULL) {
		free(nd->names[nd->n]);
		free(nd->kids[nd->n]);
		j->oom = true;
		return NULL;
	}
	return nd->kids[nd->n++];
}

static int infer_value(jp *j, inode *nd);

static int infer_object(jp *j, inode *nd)
{
	sl_str key;
	inode *kid;
	if (nd->k != IK_STRUCT && nd->k != IK_NULL) {
		merge_kind(nd, IK_STRING);
		return sl_jsonlex_skip(j);
	}
	nd->k = IK_STRUCT;
	j->p++;
	for (;;) {
		sl_jsonlex_ws(j);
		if (*j->p == '}') {
			j->p++;
			return 0;
		}
		if (sl_jsonlex_str(j, &key, false))
			return -1;
		kid = inode_kid(j, nd, key.p, key.len);
		if (kid == NULL)
			return -1;
		sl_jsonlex_ws(j);
		j->p++; /* ':' (the line was checked) */
		if (infer_value(j, kid))
			return -1;
		sl_jsonlex_ws(j);
		if (*j->p == ',')
			j->p++;
	}
}

static int infer_array(jp *j, inode *nd)
{
	if (nd->k != IK_ARRAY && nd->k != IK_NULL) {
		merge_kind(nd, IK_STRING);
		return sl_jsonlex_skip(j);
	}
	nd->k = IK_ARRAY;
	if (nd->elem == NULL && (nd->elem = calloc(1, sizeof(inode))) == NULL) {
		j->oom = true;
		return -1;
	}
	j->p++;
	for (;;) {
		sl_jsonlex_ws(j);
		if (*j->p == ']') {
			j->p++;
			return 0;
		}
		if (infer_value(j, nd->elem))
			return -1;
		sl_jsonlex_ws(j);
		if (*j->p == ',')
			j->p++;
	}
}

static int infer_value(jp *j, inode *nd)
{
	jnum num;
	sl_str s;
	sl_jsonlex_ws(j);
	switch (*j->p) {
	case '{': return infer_object(j, nd);
	case '[': return infer_array(j, nd);
	case '"':
	case '\'':
		merge_kind(nd, IK_STRING);
		return sl_jsonlex_str(j, &s, false);
	case 't':
	case 'f': merge_kind(nd, IK_BOOL); return sl_jsonlex_skip(j);
	case 'n': return sl_jsonlex_skip(j);
	default:
		if (sl_jsonlex_num(j, &num))
			return -1;
		merge_kind(nd, num.frac || num.big ? IK_DOUBLE : IK_LONG);
		return 0;
	}
}

sl_json_infer *sl_json_infer_new(const sl_options *opts, sl_err *err)
{
	sl_json_infer *ji = calloc(1, sizeof *ji);
	if (ji == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (sl_format_mode_get(opts, &ji->mode, err)) {
		free(ji);
		return NULL;
	}
	ji->corrupt = strdup(sl_format_corrupt_name(opts));
	if (ji->corrupt == NULL) {
		free(ji);
		sl_err_nomem(err);
		return NULL;
	}
	ji->root.k = IK_STRUCT;
	sl_jsonlex_init(&ji->j, NULL);
	return ji;
}

int sl_json_infer_add(sl_json_infer *ji, const char *name, const char *data,
		      size_t len, sl_err *err)
{
	const char *p = data, *e = data + len, *eol, *le;
	int64_t lineno = 0;
	jp *j = &ji->j;
	for (; p < e; p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(e - p));
		if (eol == NULL)
			eol = e;
		le = eol;
		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		if (sl_jsonlex_blank(p, le))
			continue;
		j->p = j->line = p;
		j->end = le;
		j->why[0] = '\0';
		j->depth = 0;
		sl_jsonlex_ws(j);
		if (j->p >= le || *j->p != '{')
			sl_jsonlex_syn(j, "expected '{'");
		else if (sl_jsonlex_skip(j) == 0) {
			/* syntax is fine: merge its types */
			j->p = p;
			sl_jsonlex_ws(j);
			if (infer_object(j, &ji->root) != 0 && j->oom)
				return sl_err_nomem(err);
			continue;
		}
		if (j->oom)
			return sl_err_nomem(err);
		if (ji->mode == SL_MODE_FAILFAST)
			return sl_err_set(
			    err, SL_EDATA,
			    "json: malformed record at %s:%lld: %s", name,
			    (long long)lineno, j->why);
		ji->malformed = true;
	}
	return 0;
}

typedef struct ifield {
	const char *name;
	sl_type *type;
} ifield;

static int cmp_ifield(const void *a, const void *b)
{
	return strcmp(((const ifield *)a)->name, ((const ifield *)b)->name);
}

/* Spark's canonicalizeType: NULL -> STRING, empty structs dropped. */
static sl_type *inode_type(const inode *nd, const char *extra, bool *empty)
{
	ifield *fs;
	sl_type *t = NULL, *el;
	int k, n = 0;
	bool e2;
	*empty = false;
	switch (nd->k) {
	case IK_BOOL: return sl_type_prim(SL_BOOLEAN);
	case IK_LONG: return sl_type_prim(SL_BIGINT);
	case IK_DOUBLE: return sl_type_prim(SL_DOUBLE);
	case IK_NULL:
	case IK_STRING: return sl_type_prim(SL_STRING);
	case IK_ARRAY:
		el = nd->elem ? inode_type(nd->elem, NULL, &e2)
			      : sl_type_prim(SL_STRING);
		return el ? sl_type_array_new(el) : NULL;
	default: break;
	}
	fs = calloc((size_t)nd->n + 2, sizeof *fs);
	if (fs == NULL)
		return NULL;
	for (k = 0; k < nd->n; k++) {
		if (nd->names[k][0] == '\0' ||
		    (extra != NULL && strcmp(nd->names[k], extra) == 0))
			continue;
		fs[n].type = inode_type(nd->kids[k], NULL, &e2);
		if (fs[n].type == NULL)
			goto out;
		if (e2) {
			sl_type_free(fs[n].type);
			continue;
		}
		fs[n++].name = nd->names[k];
	}
	if (extra != NULL) {
		fs[n].name = extra;
		fs[n++].type = sl_type_prim(SL_STRING);
	}
	qsort(fs, (size_t)n, sizeof *fs, cmp_ifield);
	t = sl_type_struct_new(n);
	for (k = 0; t != NULL && k < n; k++) {
		if (sl_type_set_field(t, k, fs[k].name, fs[k].type, true) !=
		    0) {
			sl_type_free(t);
			t = NULL;
		}
		fs[k].type = NULL;
	}
	*empty = n == 0;
out:
	for (k = 0; k < n; k++)
		sl_type_free(fs[k].type);
	free(fs);
	return t;
}

sl_type *sl_json_infer_finish(sl_json_infer *ji, sl_err *err)
{
	bool empty;
	sl_type *t = inode_type(&ji->root,
				ji->malformed && ji->mode == SL_MODE_PERMISSIVE
				    ? ji->corrupt
				    : NULL,
				&empty);
	if (t == NULL)
		sl_err_nomem(err);
	sl_json_infer_free(ji);
	return t;
}

void sl_json_infer_free(sl_json_infer *ji)
{
	if (ji == NULL)
		return;
	inode_release(&ji->root);
	sl_buf_release(&ji->j.tmp);
	free(ji->corrupt);
	free(ji);
}
