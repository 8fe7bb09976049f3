/*
 * func_json: get (arrays), LIKE, to_json, get_json_object, from_json (the path
 * walker is jsonpath.c).
 * Rows of the function registry (func.c).
 */
#include "expr/func_int.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "core/timeutil.h"
#include "core/utf8.h"

/* --------------------------------------------------- arrays, LIKE, JSON */

static int res_get(sl_expr *call, sl_err *err)
{
	if (call->args[0]->rtype->kind != SL_ARRAY)
		return sl_expr_mismatch(err, call,
					"argument 1 requires array type");
	if (sl_expr_arg_kind(call, 1, SL_INT, err) < 0)
		return SL_EANALYSIS;
	call->rtype = sl_type_ref(call->args[0]->rtype->elem);
	call->nullable = true;
	return 0;
}

/* get(arr, i) / arr[i]: 0-based, NULL when out of range. */
static sl_col *ev_get(const sl_expr *call, sl_col *const *args, int64_t n,
		      sl_err *err)
{
	int64_t *idx = malloc(((size_t)n + 1) * sizeof *idx), i;
	const sl_col *a = args[0];
	sl_col *o;
	if (idx == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		int32_t k = sl_col_i32(args[1])[i];
		int32_t len = a->offsets[i + 1] - a->offsets[i];
		idx[i] = sl_func_row_null(args, 2, i) || k < 0 || k >= len
			     ? -1
			     : a->offsets[i] + k;
	}
	o = sl_col_take(a->child[0], idx, n);
	free(idx);
	if (o == NULL)
		sl_err_nomem(err);
	(void)call;
	return o;
}

static int res_like(sl_expr *call, sl_err *err)
{
	if (sl_expr_arg_kind(call, 0, SL_STRING, err) < 0 ||
	    sl_expr_arg_kind(call, 1, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, SL_BOOLEAN, sl_func_any_nullable(call));
}

/* SQL LIKE: % any run, _ one character, \ escapes. */
static bool like_match(const char *s, const char *se, const char *p,
		       const char *pe)
{
	while (p < pe) {
		if (*p == '%') {
			while (p < pe && *p == '%')
				p++;
			if (p == pe)
				return true;
			for (; s <= se; s++)
				if (like_match(s, se, p, pe))
					return true;
			return false;
		}
		if (s >= se)
			return false;
		if (*p == '_') {
			s += sl_utf8_charlen(s, (size_t)(se - s));
			p++;
			continue;
		}
		if (*p == '\\' && p + 1 < pe)
			p++;
		if (*p != *s)
			return false;
		p++;
		s++;
	}
	return s == se;
}

static sl_col *ev_like(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const sl_str *a = &sl_col_str(args[0])[i],
			     *b = &sl_col_str(args[1])[i];
		const char *ap = a->p ? a->p : "", *bp = b->p ? b->p : "";
		sl_col_u8(o)[i] = !sl_func_row_null(args, 2, i) &&
				  like_match(ap, ap + a->len, bp, bp + b->len);
	}
	if (sl_func_nulls_merge(o, args, 2) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

static int res_to_json(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k != SL_STRUCT && k != SL_ARRAY)
		return sl_expr_mismatch(
		    err, call,
		    "input to function to_json should be a struct or array type");
	return sl_func_rtype(call, SL_STRING, call->args[0]->nullable);
}

static sl_col *ev_to_json(const sl_expr *call, sl_col *const *args, int64_t n,
			  sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	sl_buf b;
	int64_t i;
	if (o == NULL)
		return NULL;
	sl_buf_init(&b);
	for (i = 0; i < n; i++) {
		int rc;
		if (sl_col_isnull(args[0], i)) {
			rc = sl_col_set_null(o, i);
		} else {
			sl_buf_clear(&b);
			sl_value_json(args[0], i, &b);
			rc =
			    sl_buf_failed(&b)
				? SL_ENOMEM
				: sl_col_set_str(o, i, b.len ? b.p : "", b.len);
		}
		if (rc < 0) {
			sl_buf_release(&b);
			return sl_func_oom(o, err);
		}
	}
	sl_buf_release(&b);
	return o;
}

static int res_get_json(sl_expr *call, sl_err *err)
{
	if (sl_func_all_args(call, SL_STRING, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	call->nullable = true;
	return 0;
}

static sl_col *ev_get_json(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	sl_buf b, path;
	int64_t i;
	int rc = 0;
	if (o == NULL)
		return NULL;
	sl_buf_init(&b);
	sl_buf_init(&path);
	for (i = 0; i < n && rc == 0; i++) {
		const sl_str *j = &sl_col_str(args[0])[i],
			     *pa = &sl_col_str(args[1])[i];
		sl_buf_clear(&b);
		sl_buf_clear(&path);
		sl_buf_add(&path, pa->p ? pa->p : "", pa->len);
		if (sl_func_row_null(args, 2, i) ||
		    !sl_jsonpath_get(j->p ? j->p : "", j->len,
				     sl_buf_cstr(&path), &b))
			rc = sl_col_set_null(o, i);
		else
			rc =
			    sl_buf_failed(&b)
				? SL_ENOMEM
				: sl_col_set_str(o, i, b.len ? b.p : "", b.len);
	}
	sl_buf_release(&b);
	sl_buf_release(&path);
	return rc < 0 ? sl_func_oom(o, err) : o;
}

static int res_from_json(sl_expr *call, sl_err *err)
{
	const char *ddl = sl_func_lit_str(call, 1);
	sl_err e2;
	if (sl_expr_arg_kind(call, 0, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	if (ddl == NULL)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "from_json: the schema must be a literal DDL string such as 'a INT, b STRING'");
	call->rtype = sl_type_parse_ddl(ddl, &e2);
	if (call->rtype == NULL) {
		sl_err_set(err, SL_EANALYSIS, "from_json: %s", e2.msg);
		if (e2.hint[0])
			sl_err_hint(err, "%s", e2.hint);
		return SL_EANALYSIS;
	}
	call->nullable = true;
	return 0;
}

/* args[1], the schema, is NULL: its type is call->rtype (resolved). */
static sl_col *ev_from_json(const sl_expr *call, sl_col *const *args, int64_t n,
			    sl_err *err)
{
	(void)n; /* args[0]->len */
	return sl_json_decode_col(args[0], call->rtype, err);
}

bool sl_func_json_const_arg(const sl_expr *call, int i)
{
	return call->fn->eval == ev_from_json && i == 1;
}

/* ------------------------------------------------------------ rows */

const sl_func sl_func_json_rows[] = {
	{ "get", 2, 2, SL_FN_SCALAR, res_get, ev_get },
	{ "like", 2, 2, SL_FN_SCALAR, res_like, ev_like },
	{ "to_json", 1, 1, SL_FN_SCALAR, res_to_json, ev_to_json },
	{ "get_json_object", 2, 2, SL_FN_SCALAR, res_get_json, ev_get_json },
	{ "from_json", 2, 2, SL_FN_SCALAR, res_from_json, ev_from_json },
};
const int sl_func_json_nrows =
    (int)(sizeof sl_func_json_rows / sizeof sl_func_json_rows[0]);
