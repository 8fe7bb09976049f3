/*
 * func_string: the string functions (upper, lower, length, concat,
 * concat_ws, substring, trim, split).
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

/* ------------------------------------------------------------- strings */

/* n bytes for row i of string column o (in o's arena), or NULL. */
static char *str_alloc(sl_col *o, int64_t i, size_t n)
{
	char *d;
	if (o->arena == NULL && (o->arena = sl_arena_new()) == NULL)
		return NULL;
	d = sl_arena_alloc(o->arena, n ? n : 1);
	if (d != NULL) {
		sl_col_str(o)[i].p = d;
		sl_col_str(o)[i].len = (uint32_t)n;
	}
	return d;
}

static int res_str1(sl_expr *call, sl_err *err)
{
	return sl_func_all_args(call, SL_STRING, SL_STRING, err);
}

/* upper/lower change ASCII letters only (NEEDSWORK: Java maps Unicode). */
static sl_col *case_map(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err, bool up)
{
	sl_col *o = sl_func_out(call, n, err);
	const sl_str *s = sl_col_str(args[0]);
	int64_t i;
	uint32_t k;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		char *d;
		if (sl_col_isnull(args[0], i))
			continue;
		if ((d = str_alloc(o, i, s[i].len)) == NULL)
			return sl_func_oom(o, err);
		for (k = 0; k < s[i].len; k++)
			d[k] = (char)(up ? toupper((unsigned char)s[i].p[k])
					 : tolower((unsigned char)s[i].p[k]));
	}
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	return o;
}

static sl_col *ev_upper(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	return case_map(call, args, n, err, true);
}

static sl_col *ev_lower(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	return case_map(call, args, n, err, false);
}

static int res_length(sl_expr *call, sl_err *err)
{
	return sl_func_all_args(call, SL_STRING, SL_INT, err);
}

static sl_col *ev_length(const sl_expr *call, sl_col *const *args, int64_t n,
			 sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	const sl_str *s = sl_col_str(args[0]);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sl_col_i32(o)[i] =
		    (int32_t)sl_utf8_count(s[i].p ? s[i].p : "", s[i].len);
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

/* concat (NULL if any argument is NULL) and concat_ws (skips NULLs). */
static sl_col *join_strings(const sl_expr *call, sl_col *const *args, int64_t n,
			    bool ws, sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	sl_buf b;
	int64_t i;
	int k, first = ws ? 1 : 0, put;
	if (o == NULL)
		return NULL;
	sl_buf_init(&b);
	for (i = 0; i < n; i++) {
		if (ws ? sl_func_row_null(args, 1, i)
		       : sl_func_row_null(args, call->nargs, i)) {
			if (sl_col_set_null(o, i) < 0)
				goto oom;
			continue;
		}
		sl_buf_clear(&b);
		for (k = first, put = 0; k < call->nargs; k++) {
			const sl_str *v;
			if (sl_func_row_null(args + k, 1, i))
				continue;
			if (ws && put++ > 0)
				sl_buf_add(&b, sl_col_str(args[0])[i].p,
					   sl_col_str(args[0])[i].len);
			v = &sl_col_str(args[k])[i];
			sl_buf_add(&b, v->p, v->len);
		}
		if (sl_buf_failed(&b) ||
		    sl_col_set_str(o, i, b.len ? b.p : "", b.len) < 0)
			goto oom;
	}
	sl_buf_release(&b);
	return o;
oom:
	sl_buf_release(&b);
	return sl_func_oom(o, err);
}

static sl_col *ev_concat(const sl_expr *call, sl_col *const *args, int64_t n,
			 sl_err *err)
{
	return join_strings(call, args, n, false, err);
}

static int res_concat_ws(sl_expr *call, sl_err *err)
{
	if (sl_func_all_args(call, SL_STRING, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	call->nullable = call->args[0]->nullable;
	return 0;
}

static sl_col *ev_concat_ws(const sl_expr *call, sl_col *const *args, int64_t n,
			    sl_err *err)
{
	return join_strings(call, args, n, true, err);
}

static int res_substr(sl_expr *call, sl_err *err)
{
	int i;
	if (sl_expr_arg_kind(call, 0, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	for (i = 1; i < call->nargs; i++)
		if (sl_expr_arg_kind(call, i, SL_INT, err) < 0)
			return SL_EANALYSIS;
	return sl_func_rtype(call, SL_STRING, sl_func_any_nullable(call));
}

/* UTF8String.substringSQL: 1-based pos, 0 is 1, negative from the end. */
static void substr_sql(const sl_str *s, int32_t pos, int32_t len,
		       const char **p, uint32_t *n)
{
	int64_t nch = (int64_t)sl_utf8_count(s->p ? s->p : "", s->len);
	int64_t start = pos > 0 ? pos - 1 : pos < 0 ? nch + pos : 0;
	int64_t until = start + len, c = 0;
	uint32_t i = 0, j;
	*n = 0;
	*p = "";
	if (until > INT32_MAX)
		until = INT32_MAX;
	if (until <= start || start >= (int64_t)s->len)
		return;
	while (i < s->len && c < start) {
		i += (uint32_t)sl_utf8_charlen(s->p + i, s->len - i);
		c++;
	}
	j = i;
	while (i < s->len && c < until) {
		i += (uint32_t)sl_utf8_charlen(s->p + i, s->len - i);
		c++;
	}
	*p = s->p + j;
	*n = (i > s->len ? s->len : i) - j;
}

static sl_col *ev_substr(const sl_expr *call, sl_col *const *args, int64_t n,
			 sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *p;
		uint32_t len;
		if (sl_func_row_null(args, call->nargs, i)) {
			if (sl_col_set_null(o, i) < 0)
				return sl_func_oom(o, err);
			continue;
		}
		substr_sql(&sl_col_str(args[0])[i], sl_col_i32(args[1])[i],
			   call->nargs > 2 ? sl_col_i32(args[2])[i] : INT32_MAX,
			   &p, &len);
		/* a substring shares the input's bytes */
		sl_col_str(o)[i].p = p;
		sl_col_str(o)[i].len = len;
	}
	o->arena = sl_arena_ref(args[0]->arena);
	return o;
}

/* trim/ltrim/rtrim remove spaces (' ' only, as Spark). */
static sl_col *trim_sides(const sl_expr *call, sl_col *const *args, int64_t n,
			  sl_err *err, bool left, bool right)
{
	sl_col *o = sl_func_out(call, n, err);
	const sl_str *s = sl_col_str(args[0]);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *p = s[i].p;
		uint32_t len = s[i].len;
		while (left && len > 0 && *p == ' ') {
			p++;
			len--;
		}
		while (right && len > 0 && p[len - 1] == ' ')
			len--;
		sl_col_str(o)[i].p = p;
		sl_col_str(o)[i].len = len;
	}
	o->arena = sl_arena_ref(args[0]->arena);
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	return o;
}

static sl_col *ev_trim(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err)
{
	return trim_sides(call, args, n, err, true, true);
}

static sl_col *ev_ltrim(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	return trim_sides(call, args, n, err, true, false);
}

static sl_col *ev_rtrim(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	return trim_sides(call, args, n, err, false, true);
}

/* Java regex -> POSIX ERE for the common escapes (\s \d \w and negations);
 * other escapes pass through.  NEEDSWORK: lookarounds, lazy quantifiers. */
static void java_to_ere(const char *re, sl_buf *out)
{
	for (; *re; re++) {
		if (*re != '\\' || re[1] == '\0') {
			sl_buf_addc(out, *re);
			continue;
		}
		re++;
		switch (*re) {
		case 's': sl_buf_adds(out, "[[:space:]]"); break;
		case 'S': sl_buf_adds(out, "[^[:space:]]"); break;
		case 'd': sl_buf_adds(out, "[0-9]"); break;
		case 'D': sl_buf_adds(out, "[^0-9]"); break;
		case 'w': sl_buf_adds(out, "[[:alnum:]_]"); break;
		case 'W': sl_buf_adds(out, "[^[:alnum:]_]"); break;
		case 't': sl_buf_addc(out, '\t'); break;
		case 'n': sl_buf_addc(out, '\n'); break;
		default:
			if (isalnum((unsigned char)*re)) {
				sl_buf_addc(out, *re);
			} else {
				sl_buf_addc(out, '\\');
				sl_buf_addc(out, *re);
			}
		}
	}
}

static int regex_compile(regex_t *rx, const char *re, size_t n, sl_err *err)
{
	sl_buf b, pat;
	int rc;
	sl_buf_init(&b);
	sl_buf_init(&pat);
	sl_buf_add(&pat, re, n);
	java_to_ere(sl_buf_cstr(&pat), &b);
	rc = regcomp(rx, sl_buf_cstr(&b), REG_EXTENDED);
	sl_buf_release(&b);
	if (rc != 0)
		sl_err_set(err, SL_EINVAL, "split: invalid regex '%s'",
			   sl_buf_cstr(&pat));
	sl_buf_release(&pat);
	return rc == 0 ? 0 : SL_EINVAL;
}

static int res_split(sl_expr *call, sl_err *err)
{
	if (sl_expr_arg_kind(call, 0, SL_STRING, err) < 0 ||
	    sl_expr_arg_kind(call, 1, SL_STRING, err) < 0 ||
	    (call->nargs > 2 && sl_expr_arg_kind(call, 2, SL_INT, err) < 0))
		return SL_EANALYSIS;
	call->rtype = sl_type_array_new(sl_type_prim(SL_STRING));
	call->nullable = sl_func_any_nullable(call);
	return call->rtype ? 0 : sl_err_nomem(err);
}

struct pieces {
	sl_str *v;
	int64_t n, cap;
};

static int piece_add(struct pieces *ps, const char *p, size_t n)
{
	if (ps->n == ps->cap) {
		int64_t cap = ps->cap ? ps->cap * 2 : 64;
		sl_str *v = realloc(ps->v, (size_t)cap * sizeof *v);
		if (v == NULL)
			return SL_ENOMEM;
		ps->v = v;
		ps->cap = cap;
	}
	ps->v[ps->n].p = p;
	ps->v[ps->n++].len = (uint32_t)n;
	return 0;
}

/* Java's String.split(regex, limit) with limit <= 0 meaning no limit but
 * (as Spark passes -1) trailing empty strings kept. */
static int split_row(const regex_t *rx, const sl_str *s, int32_t limit,
		     struct pieces *ps)
{
	const char *p = s->p ? s->p : "", *end = p + s->len;
	const char *from = p;
	int64_t count = 0;
	regmatch_t m;
	char *tmp = malloc((size_t)s->len + 1);
	const char *q;
	if (tmp == NULL)
		return SL_ENOMEM;
	memcpy(tmp, p, s->len);
	tmp[s->len] = '\0';
	q = tmp;
	while (q <= tmp + s->len && (limit <= 0 || count < limit - 1)) {
		int flags = q > tmp ? REG_NOTBOL : 0;
		if (regexec(rx, q, 1, &m, flags) != 0)
			break;
		if (m.rm_eo == 0 && m.rm_so == 0) { /* empty match: step */
			if (q == tmp + s->len)
				break;
			if (q ==
			    tmp) { /* Java drops a leading zero-width split */
				q++;
				continue;
			}
			if (piece_add(ps, p + (from - p),
				      (size_t)(q - tmp) - (size_t)(from - p)) <
			    0)
				goto oom;
			from = p + (q - tmp);
			count++;
			q++;
			continue;
		}
		if (piece_add(ps, from,
			      (size_t)((q - tmp) + m.rm_so - (from - p))) < 0)
			goto oom;
		count++;
		from = p + (q - tmp) + m.rm_eo;
		q += m.rm_eo > m.rm_so ? m.rm_eo : m.rm_so + 1;
	}
	if (piece_add(ps, from, (size_t)(end - from)) < 0)
		goto oom;
	free(tmp);
	return 0;
oom:
	free(tmp);
	return SL_ENOMEM;
}

static sl_col *ev_split(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	struct pieces ps = { NULL, 0, 0 };
	int32_t *off = malloc(((size_t)n + 1) * sizeof *off);
	const char *lit = sl_func_lit_str(call, 1);
	regex_t rx;
	bool have = false;
	sl_col *elems = NULL, *o = NULL;
	int64_t i;
	if (off == NULL)
		goto oom;
	off[0] = 0;
	if (lit != NULL) {
		if (regex_compile(&rx, lit, strlen(lit), err) < 0)
			goto fail;
		have = true;
	}
	for (i = 0; i < n; i++) {
		if (!sl_func_row_null(args, call->nargs, i)) {
			if (lit == NULL) { /* a per-row pattern */
				const sl_str *re = &sl_col_str(args[1])[i];
				if (have)
					regfree(&rx);
				have = false;
				if (regex_compile(&rx, re->p, re->len, err) < 0)
					goto fail;
				have = true;
			}
			if (split_row(&rx, &sl_col_str(args[0])[i],
				      call->nargs > 2 ? sl_col_i32(args[2])[i]
						      : -1,
				      &ps) < 0)
				goto oom;
		}
		off[i + 1] = (int32_t)ps.n;
	}
	elems = sl_col_new(sl_type_prim(SL_STRING), ps.n);
	if (elems == NULL)
		goto oom;
	if (ps.n > 0)
		memcpy(elems->data, ps.v, (size_t)ps.n * sizeof *ps.v);
	elems->arena = sl_arena_ref(args[0]->arena); /* pieces share bytes */
	o = sl_col_array_new(call->rtype, n, off, elems);
	if (o == NULL)
		goto oom;
	for (i = 0; i < n; i++)
		if (sl_func_row_null(args, call->nargs, i) &&
		    sl_col_set_null(o, i) < 0)
			goto oom;
	goto done;
oom:
	sl_err_nomem(err);
fail:
	sl_col_free(o);
	o = NULL;
done:
	if (have)
		regfree(&rx);
	free(ps.v);
	free(off);
	return o;
}

/* ------------------------------------------------------------ rows */

const sl_func sl_func_string_rows[] = {
	{ "upper", 1, 1, SL_FN_SCALAR, res_str1, ev_upper },
	{ "ucase", 1, 1, SL_FN_SCALAR, res_str1, ev_upper },
	{ "lower", 1, 1, SL_FN_SCALAR, res_str1, ev_lower },
	{ "lcase", 1, 1, SL_FN_SCALAR, res_str1, ev_lower },
	{ "length", 1, 1, SL_FN_SCALAR, res_length, ev_length },
	{ "char_length", 1, 1, SL_FN_SCALAR, res_length, ev_length },
	{ "concat", 0, -1, SL_FN_SCALAR, res_str1, ev_concat },
	{ "concat_ws", 1, -1, SL_FN_SCALAR, res_concat_ws, ev_concat_ws },
	{ "substring", 2, 3, SL_FN_SCALAR, res_substr, ev_substr },
	{ "substr", 2, 3, SL_FN_SCALAR, res_substr, ev_substr },
	{ "trim", 1, 1, SL_FN_SCALAR, res_str1, ev_trim },
	{ "ltrim", 1, 1, SL_FN_SCALAR, res_str1, ev_ltrim },
	{ "rtrim", 1, 1, SL_FN_SCALAR, res_str1, ev_rtrim },
	{ "split", 2, 3, SL_FN_SCALAR, res_split, ev_split },
};
const int sl_func_string_nrows =
    (int)(sizeof sl_func_string_rows / sizeof sl_func_string_rows[0]);
