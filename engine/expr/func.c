/*
 * func: the function registry and the scalar function library.
 *
 * A table, not a switch: each row names a function, its argument counts,
 * its kind, a resolve hook (types, implicit casts, result type) and an
 * eval hook over whole columns.  Adding a function is adding a row.
 *
 * Every eval hook loops over rows with the argument types fixed by resolve
 * (resolve inserted the casts), so a hook never inspects types per row.
 * NULL in gives NULL out unless Spark says otherwise (coalesce, concat_ws,
 * isnull, ...).  Aggregates and generators resolve here but are evaluated
 * by the aggregate and project operators.
 *
 * The date/time and JSON functions are in the second half of this file;
 * the JSON path walker is in jsonpath.c.
 */
#include "expr/func.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "core/timeutil.h"
#include "core/utf8.h"

/* -------------------------------------------------------- null bitmaps */

static size_t bitmap_bytes(int64_t len)
{
	return (size_t)((len + 7) >> 3) + 1; /* col.c allocates one spare */
}

int sl_func_nulls_merge(sl_col *out, sl_col *const *ins, int k)
{
	size_t nb = bitmap_bytes(out->len), j;
	int i;
	for (i = 0; i < k; i++) {
		const sl_col *c = ins[i];
		if (c == NULL)
			continue;
		if (c->type->kind == SL_NULLTYPE) {
			if (out->nulls == NULL &&
			    (out->nulls = malloc(nb)) == NULL)
				return SL_ENOMEM;
			memset(out->nulls, 0xff, nb);
			return 0;
		}
		if (c->nulls == NULL)
			continue;
		if (out->nulls == NULL) {
			out->nulls = malloc(nb);
			if (out->nulls == NULL)
				return SL_ENOMEM;
			memcpy(out->nulls, c->nulls, nb);
			continue;
		}
		for (j = 0; j < nb; j++)
			out->nulls[j] |= c->nulls[j];
	}
	return 0;
}

void sl_func_zero_nulls(sl_col *c)
{
	int64_t i, byte, nbytes;
	int w = sl_type_width(c->type);
	if (c->nulls == NULL || c->data == NULL || w <= 0)
		return;
	nbytes = (c->len + 7) >> 3;
	for (byte = 0; byte < nbytes; byte++) {
		if (c->nulls[byte] == 0)
			continue;
		for (i = byte * 8; i < byte * 8 + 8 && i < c->len; i++)
			if (sl_col_isnull(c, i))
				memset((char *)c->data + i * w, 0, (size_t)w);
	}
}

int sl_func_mark_null(sl_col *c, int64_t i)
{
	if (c->nulls == NULL) {
		c->nulls = calloc(bitmap_bytes(c->len), 1);
		if (c->nulls == NULL)
			return SL_ENOMEM;
	}
	c->nulls[i >> 3] |= (uint8_t)(1u << (i & 7));
	return 0;
}

/* ------------------------------------------------------ shared helpers */

sl_col *sl_func_out(const sl_expr *call, int64_t n, sl_err *err)
{
	sl_col *o = sl_col_new(call->rtype, n);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

sl_col *sl_func_oom(sl_col *o, sl_err *err)
{
	sl_col_free(o);
	sl_err_nomem(err);
	return NULL;
}

int sl_func_rtype(sl_expr *call, sl_kind k, bool nullable)
{
	call->rtype = sl_type_ref(sl_type_prim(k));
	call->nullable = nullable;
	return 0;
}

bool sl_func_any_nullable(const sl_expr *call)
{
	int i;
	for (i = 0; i < call->nargs; i++)
		if (call->args[i]->nullable)
			return true;
	return false;
}

/* All args to kind k, result kind r, nullable if any arg is. */
int sl_func_all_args(sl_expr *call, sl_kind k, sl_kind r, sl_err *err)
{
	int i;
	for (i = 0; i < call->nargs; i++)
		if (sl_expr_arg_kind(call, i, k, err) < 0)
			return err ? err->code : SL_EANALYSIS;
	return sl_func_rtype(call, r, sl_func_any_nullable(call));
}

bool sl_func_row_null(sl_col *const *args, int nargs, int64_t i)
{
	int k;
	for (k = 0; k < nargs; k++)
		if (args[k]->type->kind == SL_NULLTYPE ||
		    sl_col_isnull(args[k], i))
			return true;
	return false;
}

/* A literal argument's string (the pattern of date_format, the regex of
 * split, a window duration), or NULL when the argument is not constant. */
const char *sl_func_lit_str(const sl_expr *call, int i)
{
	const sl_expr *a = call->args[i];
	while (a->kind == SL_X_CAST && a->op == 1)
		a = a->args[0];
	if (a->kind != SL_X_LIT || a->lit.null || a->lit.s == NULL)
		return NULL;
	return a->lit.s;
}

/* ---------------------------------------------------------- aggregates */

static int res_count(sl_expr *call, sl_err *err)
{
	(void)err;
	return sl_func_rtype(call, SL_BIGINT, false);
}

static int res_sum(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k == SL_STRING || k == SL_NULLTYPE)
		k = SL_DOUBLE;
	if (k != SL_INT && k != SL_BIGINT && k != SL_DOUBLE)
		return sl_expr_arg_kind(call, 0, SL_DOUBLE, err);
	if (sl_expr_arg_kind(call, 0, k, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, k == SL_DOUBLE ? SL_DOUBLE : SL_BIGINT,
			     true);
}

static int res_avg(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k != SL_INT && k != SL_BIGINT && k != SL_DOUBLE &&
	    sl_expr_arg_kind(call, 0, SL_DOUBLE, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, SL_DOUBLE, true);
}

static int res_same(sl_expr *call, sl_err *err)
{
	sl_type *t = call->args[0]->rtype;
	if (call->nargs > 1 && sl_expr_arg_kind(call, 1, SL_BOOLEAN, err) < 0)
		return SL_EANALYSIS;
	call->rtype = sl_type_ref(t);
	call->nullable = true;
	return 0;
}

static int res_collect(sl_expr *call, sl_err *err)
{
	call->rtype = sl_type_array_new(sl_type_ref(call->args[0]->rtype));
	call->nullable = false;
	return call->rtype ? 0 : sl_err_nomem(err);
}

/* ---------------------------------------------------------- generators */

static int res_explode(sl_expr *call, sl_err *err)
{
	sl_type *t = call->args[0]->rtype, *st;
	if (t->kind != SL_ARRAY)
		return sl_expr_mismatch(
		    err, call, "input to function %s should be array type",
		    call->name);
	if (strcmp(call->name, "posexplode") != 0) {
		call->rtype = sl_type_ref(t->elem);
		call->nullable = true;
		return 0;
	}
	st = sl_type_struct_new(2);
	if (st == NULL ||
	    sl_type_set_field(st, 0, "pos", sl_type_prim(SL_INT), false) < 0 ||
	    sl_type_set_field(st, 1, "col", sl_type_ref(t->elem), true) < 0) {
		sl_type_free(st);
		return sl_err_nomem(err);
	}
	call->rtype = st;
	call->nullable = false;
	return 0;
}

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

/* --------------------------------------------------------- null helpers */

/* All args from `from` to a common type; result that type. */
static int res_common(sl_expr *call, int from, sl_err *err)
{
	sl_type *t = sl_type_prim(SL_NULLTYPE), *nt;
	int i;
	for (i = from; i < call->nargs; i++) {
		nt = sl_expr_common_type(t, call->args[i]->rtype);
		if (nt == NULL || nt->kind == SL_STRUCT || nt->kind == SL_ARRAY)
			return sl_expr_mismatch(
			    err, call,
			    "input to function %s should all be the same type",
			    call->name);
		t = nt;
	}
	if (t->kind == SL_NULLTYPE)
		t = sl_type_prim(SL_STRING);
	for (i = from; i < call->nargs; i++) {
		call->args[i] = sl_expr_implicit_cast(call->args[i], t);
		if (call->args[i] == NULL)
			return sl_err_nomem(err);
	}
	call->rtype = sl_type_ref(t);
	return 0;
}

static int res_coalesce(sl_expr *call, sl_err *err)
{
	int i;
	if (res_common(call, 0, err) < 0)
		return SL_EANALYSIS;
	call->nullable = true;
	for (i = 0; i < call->nargs; i++)
		if (!call->args[i]->nullable)
			call->nullable = false;
	return 0;
}

static sl_col *ev_coalesce(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	int k;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		for (k = 0; k < call->nargs - 1; k++)
			if (!sl_func_row_null(args + k, 1, i))
				break;
		if (sl_col_copy_row(o, i, args[k], i) < 0)
			return sl_func_oom(o, err);
	}
	return o;
}

static int res_if(sl_expr *call, sl_err *err)
{
	if (sl_expr_arg_kind(call, 0, SL_BOOLEAN, err) < 0 ||
	    res_common(call, 1, err) < 0)
		return SL_EANALYSIS;
	call->nullable = call->args[1]->nullable || call->args[2]->nullable;
	return 0;
}

static sl_col *ev_if(const sl_expr *call, sl_col *const *args, int64_t n,
		     sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		bool t = !sl_func_row_null(args, 1, i) && sl_col_u8(args[0])[i];
		if (sl_col_copy_row(o, i, args[t ? 1 : 2], i) < 0)
			return sl_func_oom(o, err);
	}
	return o;
}

static int res_isnull(sl_expr *call, sl_err *err)
{
	(void)err;
	return sl_func_rtype(call, SL_BOOLEAN, false);
}

static sl_col *ev_isnull(const sl_expr *call, sl_col *const *args, int64_t n,
			 sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	bool want = strcmp(call->name, "isnull") == 0;
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sl_col_u8(o)[i] = sl_func_row_null(args, 1, i) == want;
	return o;
}

/* greatest / least: NULLs skipped; NULL only when every argument is. */
static sl_col *extreme(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err, int sign)
{
	sl_col *o = sl_func_out(call, n, err);
	sl_kind kd = call->rtype->kind;
	int64_t i;
	int k, best;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		best = -1;
		for (k = 0; k < call->nargs; k++) {
			int c;
			if (sl_func_row_null(args + k, 1, i))
				continue;
			if (best < 0) {
				best = k;
				continue;
			}
			switch (kd) {
			case SL_DOUBLE: {
				double a = sl_col_f64(args[k])[i],
				       b = sl_col_f64(args[best])[i];
				c = (a > b) - (a < b);
				break;
			}
			case SL_INT: {
				int32_t a = sl_col_i32(args[k])[i],
					b = sl_col_i32(args[best])[i];
				c = (a > b) - (a < b);
				break;
			}
			case SL_BOOLEAN:
				c = sl_col_u8(args[k])[i] -
				    sl_col_u8(args[best])[i];
				break;
			case SL_STRING:
			case SL_BINARY: {
				sl_str a = sl_col_str(args[k])[i],
				       b = sl_col_str(args[best])[i];
				uint32_t m = a.len < b.len ? a.len : b.len;
				c = m ? memcmp(a.p, b.p, m) : 0;
				if (c == 0)
					c = (a.len > b.len) - (a.len < b.len);
				break;
			}
			default: {
				int64_t a = sl_col_i64(args[k])[i],
					b = sl_col_i64(args[best])[i];
				c = (a > b) - (a < b);
				break;
			}
			}
			if (c * sign > 0)
				best = k;
		}
		if (sl_col_copy_row(o, i, best < 0 ? args[0] : args[best], i) <
		    0)
			return sl_func_oom(o, err);
	}
	return o;
}

static sl_col *ev_greatest(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	return extreme(call, args, n, err, 1);
}

static sl_col *ev_least(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	return extreme(call, args, n, err, -1);
}

/* ---------------------------------------------------------------- math */

static int res_abs(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k != SL_INT && k != SL_BIGINT)
		k = SL_DOUBLE;
	if (sl_expr_arg_kind(call, 0, k, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, k, call->args[0]->nullable);
}

static sl_col *ev_abs(const sl_expr *call, sl_col *const *args, int64_t n,
		      sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	switch (call->rtype->kind) {
	case SL_INT:
		for (i = 0; i < n; i++) {
			int32_t x = sl_col_i32(args[0])[i];
			sl_col_i32(o)[i] =
			    x < 0 ? (int32_t)(0u - (uint32_t)x) : x;
		}
		break;
	case SL_BIGINT:
		for (i = 0; i < n; i++) {
			int64_t x = sl_col_i64(args[0])[i];
			sl_col_i64(o)[i] =
			    x < 0 ? (int64_t)(0u - (uint64_t)x) : x;
		}
		break;
	default:
		for (i = 0; i < n; i++)
			sl_col_f64(o)[i] = fabs(sl_col_f64(args[0])[i]);
	}
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	return o;
}

static int res_round(sl_expr *call, sl_err *err)
{
	if (call->nargs > 1 && sl_expr_arg_kind(call, 1, SL_INT, err) < 0)
		return SL_EANALYSIS;
	return res_abs(call, err);
}

/* Spark rounds BigDecimal(x.toString) HALF_UP: work on the shortest
 * decimal digits that print x, so round(2.675, 2) is 2.68. */
static double round_half_up(double x, int d)
{
	char buf[64], *e;
	int prec, exp10, nd, keep, k;
	char digits[32];
	bool neg = x < 0;
	if (isnan(x) || isinf(x) || d > 300)
		return x;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec - 1, fabs(x));
		if (strtod(buf, NULL) == fabs(x))
			break;
	}
	e = strchr(buf, 'e');
	exp10 = atoi(e + 1);
	for (nd = 0, k = 0; buf + k < e; k++)
		if (isdigit((unsigned char)buf[k]))
			digits[nd++] = buf[k];
	/* value = 0.d1d2... * 10^(exp10+1); keep digits up to 10^-d */
	keep = exp10 + 1 + d;
	if (keep >= nd)
		return x;
	if (keep < 0)
		return neg ? -0.0 : 0.0;
	{
		double v = 0;
		bool up = digits[keep] >= '5';
		char out[64];
		int m = 0;
		out[m++] = '0';
		for (k = 0; k < keep; k++)
			out[m++] = digits[k];
		out[m] = '\0';
		/* add one ulp of the kept digits when rounding up */
		if (up) {
			for (k = m - 1; k >= 0; k--) {
				if (out[k] == '9') {
					out[k] = '0';
					continue;
				}
				out[k]++;
				break;
			}
		}
		{
			char nb[128];
			snprintf(nb, sizeof nb, "%se%d", out, exp10 + 1 - keep);
			v = strtod(nb, NULL);
		}
		return neg ? -v : v;
	}
}

static int64_t pow10i(int k)
{
	int64_t p = 1;
	while (k-- > 0 && p < INT64_C(1000000000000000000))
		p *= 10;
	return p;
}

static int64_t round_int(int64_t x, int d)
{
	int64_t p, r, q;
	if (d >= 0)
		return x;
	if (-d > 18)
		return 0;
	p = pow10i(-d);
	q = x / p;
	r = x % p;
	if (r >= p / 2 + (p % 2))
		q++;
	else if (-r >= p / 2 + (p % 2))
		q--;
	return (int64_t)((uint64_t)q * (uint64_t)p);
}

static sl_col *ev_round(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int d = call->nargs > 1 ? sl_col_i32(args[1])[i] : 0;
		switch (call->rtype->kind) {
		case SL_INT:
			sl_col_i32(o)[i] =
			    (int32_t)round_int(sl_col_i32(args[0])[i], d);
			break;
		case SL_BIGINT:
			sl_col_i64(o)[i] = round_int(sl_col_i64(args[0])[i], d);
			break;
		default:
			sl_col_f64(o)[i] =
			    round_half_up(sl_col_f64(args[0])[i], d);
		}
	}
	if (sl_func_nulls_merge(o, args, call->nargs) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

static int res_floor(sl_expr *call, sl_err *err)
{
	if (res_abs(call, err) < 0)
		return SL_EANALYSIS;
	sl_type_free(call->rtype);
	return sl_func_rtype(call, SL_BIGINT, call->args[0]->nullable);
}

static int64_t d2l_sat(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

static sl_col *floor_ceil(const sl_expr *call, sl_col *const *args, int64_t n,
			  sl_err *err, bool up)
{
	sl_col *o = sl_func_out(call, n, err);
	const sl_col *a = args[0];
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		switch (a->type->kind) {
		case SL_INT: sl_col_i64(o)[i] = sl_col_i32(a)[i]; break;
		case SL_BIGINT: sl_col_i64(o)[i] = sl_col_i64(a)[i]; break;
		default:
			sl_col_i64(o)[i] =
			    d2l_sat(up ? ceil(sl_col_f64(a)[i])
				       : floor(sl_col_f64(a)[i]));
		}
	}
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	return o;
}

static sl_col *ev_floor(const sl_expr *call, sl_col *const *args, int64_t n,
			sl_err *err)
{
	return floor_ceil(call, args, n, err, false);
}

static sl_col *ev_ceil(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err)
{
	return floor_ceil(call, args, n, err, true);
}

static int res_double(sl_expr *call, sl_err *err)
{
	return sl_func_all_args(call, SL_DOUBLE, SL_DOUBLE, err);
}

static sl_col *ev_sqrt(const sl_expr *call, sl_col *const *args, int64_t n,
		       sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sl_col_f64(o)[i] = sqrt(sl_col_f64(args[0])[i]);
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

static sl_col *ev_pow(const sl_expr *call, sl_col *const *args, int64_t n,
		      sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sl_col_f64(o)[i] =
		    pow(sl_col_f64(args[0])[i], sl_col_f64(args[1])[i]);
	if (sl_func_nulls_merge(o, args, 2) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

static int res_greatest(sl_expr *call, sl_err *err)
{
	int i;
	if (res_common(call, 0, err) < 0)
		return SL_EANALYSIS;
	call->nullable = true;
	for (i = 0; i < call->nargs; i++)
		if (!call->args[i]->nullable)
			call->nullable = false;
	return 0;
}

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

static sl_col *ev_from_json(const sl_expr *call, sl_col *const *args, int64_t n,
			    sl_err *err)
{
	return sl_json_decode(sl_col_str(args[0]), args[0]->nulls, n,
			      call->rtype, err);
}

/* ------------------------------------------------------------ datetime */

static int64_t now_us;

void sl_func_set_now(int64_t us)
{
	now_us = us;
}

struct civil {
	int64_t y;
	int mo, d, h, mi, s, us, dow, doy;
};

static void civil_of(int64_t t, struct civil *c)
{
	int64_t days = sl_floordiv(t, SL_US_PER_DAY);
	int64_t rem = t - days * SL_US_PER_DAY;
	sl_civil_from_days(days, &c->y, &c->mo, &c->d);
	c->h = (int)(rem / SL_US_PER_HOUR);
	c->mi = (int)(rem / SL_US_PER_MIN % 60);
	c->s = (int)(rem / SL_US_PER_SEC % 60);
	c->us = (int)(rem % SL_US_PER_SEC);
	c->dow = (int)sl_floormod(
	    days + 3, 7); /* 0 = Monday; 1970-01-01 was a Thursday */
	c->doy = (int)(days - sl_days_from_civil(c->y, 1, 1)) + 1;
}

static const char *const month_names[] = { "January", "February", "March",
					   "April",   "May",      "June",
					   "July",    "August",   "September",
					   "October", "November", "December" };
static const char *const day_names[] = { "Monday",   "Tuesday", "Wednesday",
					 "Thursday", "Friday",  "Saturday",
					 "Sunday" };

/* Length of the run of letter c at p. */
static int run_len(const char *p)
{
	int n = 1;
	while (p[n] == p[0])
		n++;
	return n;
}

static const char pattern_letters[] = "yMLdDHhkKmsSaEzZX";

/* Spark's datetime patterns: unsupported letters fail at resolve. */
static int pattern_check(const char *pat, sl_err *err)
{
	const char *p;
	for (p = pat; *p; p++) {
		if (*p == '\'') {
			for (p++; *p && !(*p == '\'' && p[1] != '\''); p++)
				if (*p == '\'')
					p++;
			if (*p == '\0')
				return sl_err_set(
				    err, SL_EANALYSIS,
				    "unterminated quote in datetime pattern '%s'",
				    pat);
			continue;
		}
		if (isalpha((unsigned char)*p) &&
		    strchr(pattern_letters, *p) == NULL)
			return sl_err_set(
			    err, SL_EANALYSIS,
			    "unsupported datetime pattern letter '%c' in '%s'",
			    *p, pat);
	}
	return 0;
}

static void pad_num(sl_buf *out, int64_t v, int width)
{
	sl_buf_printf(out, "%0*lld", width, (long long)v);
}

static void format_field(char c, int n, const struct civil *t, sl_buf *out)
{
	int k, h12 = t->h % 12 ? t->h % 12 : 12;
	switch (c) {
	case 'y':
		if (n == 2)
			pad_num(out, sl_floormod(t->y, 100), 2);
		else
			pad_num(out, t->y, n);
		break;
	case 'M':
	case 'L':
		if (n >= 4)
			sl_buf_adds(out, month_names[t->mo - 1]);
		else if (n == 3)
			sl_buf_add(out, month_names[t->mo - 1], 3);
		else
			pad_num(out, t->mo, n);
		break;
	case 'd': pad_num(out, t->d, n); break;
	case 'D': pad_num(out, t->doy, n); break;
	case 'H': pad_num(out, t->h, n); break;
	case 'h': pad_num(out, h12, n); break;
	case 'k': pad_num(out, t->h ? t->h : 24, n); break;
	case 'K': pad_num(out, t->h % 12, n); break;
	case 'm': pad_num(out, t->mi, n); break;
	case 's': pad_num(out, t->s, n); break;
	case 'S': {
		char frac[8];
		snprintf(frac, sizeof frac, "%06d", t->us);
		for (k = 0; k < n; k++)
			sl_buf_addc(out, k < 6 ? frac[k] : '0');
		break;
	}
	case 'a': sl_buf_adds(out, t->h < 12 ? "AM" : "PM"); break;
	case 'E':
		if (n >= 4)
			sl_buf_adds(out, day_names[t->dow]);
		else
			sl_buf_add(out, day_names[t->dow], 3);
		break;
	case 'z': sl_buf_adds(out, "UTC"); break;
	case 'Z': sl_buf_adds(out, "+0000"); break;
	case 'X': sl_buf_adds(out, "Z"); break;
	default: break;
	}
}

static void pattern_format(const char *pat, int64_t ts, sl_buf *out)
{
	struct civil t;
	const char *p = pat;
	civil_of(ts, &t);
	while (*p) {
		if (*p == '\'') {
			if (p[1] == '\'') { /* '' is a quote */
				sl_buf_addc(out, '\'');
				p += 2;
				continue;
			}
			for (p++; *p; p++) {
				if (*p == '\'' && p[1] == '\'') {
					sl_buf_addc(out, '\'');
					p++;
				} else if (*p == '\'') {
					p++;
					break;
				} else {
					sl_buf_addc(out, *p);
				}
			}
			continue;
		}
		if (isalpha((unsigned char)*p)) {
			int n = run_len(p);
			format_field(*p, n, &t, out);
			p += n;
			continue;
		}
		sl_buf_addc(out, *p++);
	}
}

static bool read_digits(const char **s, const char *e, int min, int max,
			int64_t *v)
{
	int k = 0;
	*v = 0;
	while (*s < e && k < max && isdigit((unsigned char)**s)) {
		*v = *v * 10 + (**s - '0');
		(*s)++;
		k++;
	}
	return k >= min;
}

static bool read_name(const char **s, const char *e, const char *const *names,
		      int count, bool full, int64_t *v)
{
	int k;
	for (k = 0; k < count; k++) {
		size_t n = full ? strlen(names[k]) : 3;
		if ((size_t)(e - *s) >= n &&
		    strncasecmp(*s, names[k], n) == 0) {
			*s += n;
			*v = k + 1;
			return true;
		}
	}
	return false;
}

/* Parse text by a datetime pattern (to_timestamp, unix_timestamp). */
static bool pattern_parse(const char *pat, const char *s, size_t len,
			  int64_t *us)
{
	const char *e = s + len, *p = pat;
	int64_t y = 1970, mo = 1, d = 1, h = 0, mi = 0, sec = 0, frac = 0, v;
	bool pm = false, ampm = false;
	while (*p) {
		int n = isalpha((unsigned char)*p) ? run_len(p) : 1;
		bool okf = true;
		if (*p == '\'') {
			const char *q = p + 1;
			if (*q == '\'') {
				okf = s < e && *s++ == '\'';
				p += 2;
			} else {
				for (; *q && *q != '\''; q++)
					if (s >= e || *s++ != *q)
						return false;
				p = *q ? q + 1 : q;
			}
			if (!okf)
				return false;
			continue;
		}
		switch (*p) {
		case 'y':
			okf = read_digits(&s, e, n == 2 ? 2 : 1, n == 2 ? 2 : 9,
					  &y);
			if (n == 2)
				y += 2000;
			break;
		case 'M':
		case 'L':
			if (n >= 3)
				okf = read_name(&s, e, month_names, 12, n >= 4,
						&mo);
			else
				okf = read_digits(&s, e, n, 2, &mo);
			break;
		case 'd': okf = read_digits(&s, e, n, 2, &d); break;
		case 'H':
		case 'k': okf = read_digits(&s, e, n, 2, &h); break;
		case 'h':
		case 'K':
			okf = read_digits(&s, e, n, 2, &h);
			ampm = true;
			break;
		case 'm': okf = read_digits(&s, e, n, 2, &mi); break;
		case 's': okf = read_digits(&s, e, n, 2, &sec); break;
		case 'S': {
			int k;
			okf = read_digits(&s, e, n, n, &frac);
			for (k = n; k < 6; k++)
				frac *= 10;
			for (k = 6; k < n; k++)
				frac /= 10;
			break;
		}
		case 'a':
			if (e - s >= 2 && strncasecmp(s, "PM", 2) == 0)
				pm = true;
			else if (!(e - s >= 2 && strncasecmp(s, "AM", 2) == 0))
				return false;
			s += 2;
			break;
		case 'E':
			okf = read_name(&s, e, day_names, 7, n >= 4, &v);
			break;
		case 'X':
		case 'Z':
		case 'z':
			if (s < e && (*s == 'Z' || *s == 'z'))
				s++;
			break;
		default:
			if (isalpha((unsigned char)*p))
				return false;
			okf = s < e && *s++ == *p;
		}
		if (!okf)
			return false;
		p += n;
	}
	if (s != e || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 59)
		return false;
	if (ampm) {
		if (h < 1 || h > 12)
			return false;
		h = h % 12 + (pm ? 12 : 0);
	}
	{ /* reject dates that do not exist (31/02) */
		int64_t yy;
		int m2, d2;
		sl_civil_from_days(sl_days_from_civil(y, (int)mo, (int)d), &yy,
				   &m2, &d2);
		if (m2 != mo || d2 != d)
			return false;
	}
	*us = sl_days_from_civil(y, (int)mo, (int)d) * SL_US_PER_DAY +
	      h * SL_US_PER_HOUR + mi * SL_US_PER_MIN + sec * SL_US_PER_SEC +
	      frac;
	return true;
}

static int res_ts_field(sl_expr *call, sl_err *err)
{
	return sl_func_all_args(call, SL_TIMESTAMP, SL_INT, err);
}

static sl_col *ev_ts_field(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	const char *nm = call->name;
	char which = strcmp(nm, "year") == 0     ? 'y'
		     : strcmp(nm, "month") == 0  ? 'M'
		     : strcmp(nm, "hour") == 0   ? 'h'
		     : strcmp(nm, "minute") == 0 ? 'm'
		     : strcmp(nm, "second") == 0 ? 's'
						 : 'd';
	int64_t i;
	struct civil t;
	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		civil_of(sl_col_i64(args[0])[i], &t);
		sl_col_i32(o)[i] = which == 'y'   ? (int32_t)t.y
				   : which == 'M' ? t.mo
				   : which == 'd' ? t.d
				   : which == 'h' ? t.h
				   : which == 'm' ? t.mi
						  : t.s;
	}
	if (sl_func_nulls_merge(o, args, 1) < 0)
		return sl_func_oom(o, err);
	sl_func_zero_nulls(o);
	return o;
}

static int res_date_format(sl_expr *call, sl_err *err)
{
	const char *pat;
	if (sl_expr_arg_kind(call, 0, SL_TIMESTAMP, err) < 0 ||
	    sl_expr_arg_kind(call, 1, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	pat = sl_func_lit_str(call, 1);
	if (pat != NULL && pattern_check(pat, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, SL_STRING, sl_func_any_nullable(call));
}

static sl_col *ev_date_format(const sl_expr *call, sl_col *const *args,
			      int64_t n, sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	sl_buf b, pat;
	int64_t i;
	int rc = 0;
	if (o == NULL)
		return NULL;
	sl_buf_init(&b);
	sl_buf_init(&pat);
	for (i = 0; i < n && rc == 0; i++) {
		const sl_str *ps = &sl_col_str(args[1])[i];
		if (sl_func_row_null(args, 2, i)) {
			rc = sl_col_set_null(o, i);
			continue;
		}
		sl_buf_clear(&pat);
		sl_buf_add(&pat, ps->p ? ps->p : "", ps->len);
		sl_buf_clear(&b);
		pattern_format(sl_buf_cstr(&pat), sl_col_i64(args[0])[i], &b);
		rc = sl_buf_failed(&b)
			 ? SL_ENOMEM
			 : sl_col_set_str(o, i, b.len ? b.p : "", b.len);
	}
	sl_buf_release(&b);
	sl_buf_release(&pat);
	return rc < 0 ? sl_func_oom(o, err) : o;
}

/* to_timestamp(x[, fmt]) and unix_timestamp([x[, fmt]]): x a TIMESTAMP
 * passes through, anything else is read as a string. */
static int res_parse_ts(sl_expr *call, sl_err *err)
{
	bool unix = call->name[0] == 'u';
	const char *pat;
	if (call->nargs > 0 && call->args[0]->rtype->kind != SL_TIMESTAMP &&
	    sl_expr_arg_kind(call, 0, SL_STRING, err) < 0)
		return SL_EANALYSIS;
	if (call->nargs > 1) {
		if (sl_expr_arg_kind(call, 1, SL_STRING, err) < 0)
			return SL_EANALYSIS;
		pat = sl_func_lit_str(call, 1);
		if (pat != NULL && pattern_check(pat, err) < 0)
			return SL_EANALYSIS;
	}
	return sl_func_rtype(call, unix ? SL_BIGINT : SL_TIMESTAMP,
			     call->nargs > 0);
}

static bool parse_ts_row(const sl_expr *call, sl_col *const *args, int64_t i,
			 sl_buf *pat, int64_t *us)
{
	const sl_str *s;
	if (args[0]->type->kind == SL_TIMESTAMP) {
		*us = sl_col_i64(args[0])[i];
		return true;
	}
	s = &sl_col_str(args[0])[i];
	if (call->nargs < 2 && call->name[0] != 'u')
		return sl_ts_parse(s->p ? s->p : "", s->len, us);
	sl_buf_clear(pat);
	if (call->nargs < 2) {
		sl_buf_adds(pat, "yyyy-MM-dd HH:mm:ss");
	} else {
		const sl_str *ps = &sl_col_str(args[1])[i];
		sl_buf_add(pat, ps->p ? ps->p : "", ps->len);
	}
	return pattern_parse(sl_buf_cstr(pat), s->p ? s->p : "", s->len, us);
}

static sl_col *ev_parse_ts(const sl_expr *call, sl_col *const *args, int64_t n,
			   sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	bool unix = call->name[0] == 'u';
	sl_buf pat;
	int64_t i, us;
	if (o == NULL)
		return NULL;
	sl_buf_init(&pat);
	for (i = 0; i < n; i++) {
		if (call->nargs == 0) {
			us = now_us;
		} else if (sl_func_row_null(args, call->nargs, i) ||
			   !parse_ts_row(call, args, i, &pat, &us)) {
			if (sl_col_set_null(o, i) < 0) {
				sl_buf_release(&pat);
				return sl_func_oom(o, err);
			}
			continue;
		}
		sl_col_i64(o)[i] = unix ? sl_floordiv(us, SL_US_PER_SEC) : us;
	}
	sl_buf_release(&pat);
	return o;
}

static int res_ts_seconds(sl_expr *call, sl_err *err)
{
	sl_kind k = call->args[0]->rtype->kind;
	if (k != SL_INT && k != SL_BIGINT)
		k = SL_DOUBLE;
	if (sl_expr_arg_kind(call, 0, k, err) < 0)
		return SL_EANALYSIS;
	return sl_func_rtype(call, SL_TIMESTAMP, true);
}

static sl_col *ev_ts_seconds(const sl_expr *call, sl_col *const *args,
			     int64_t n, sl_err *err)
{
	sl_col *o = sl_cast_col(args[0], call->rtype, err);
	(void)n;
	return o;
}

static int res_now(sl_expr *call, sl_err *err)
{
	(void)err;
	return sl_func_rtype(call, SL_TIMESTAMP, false);
}

static sl_col *ev_now(const sl_expr *call, sl_col *const *args, int64_t n,
		      sl_err *err)
{
	sl_col *o = sl_func_out(call, n, err);
	int64_t i;
	(void)args;
	for (i = 0; o != NULL && i < n; i++)
		sl_col_i64(o)[i] = now_us;
	return o;
}

/* ---------------------------------------------------------------- window */

/* Duration argument i of window(): a literal string or INTERVAL. */
static int window_duration(const sl_expr *call, int i, int64_t *us, sl_err *err)
{
	static const char *const what[] = { "", "window duration",
					    "slide duration", "start time" };
	const sl_expr *a = call->args[i];
	const char *s;
	sl_err e2;
	while (a->kind == SL_X_CAST && a->op == 1)
		a = a->args[0];
	if (a->kind == SL_X_LIT && a->op == 1 && !a->lit.null) {
		*us = a->lit.i;
		return 0;
	}
	s = sl_func_lit_str(call, i);
	if (s == NULL)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "window: the %s must be a literal string such as '10 minutes'",
		    what[i]);
	if (sl_duration_parse(s, us, &e2) < 0) {
		sl_err_set(err, SL_EANALYSIS, "window: bad %s: %s", what[i],
			   e2.msg);
		if (e2.hint[0])
			sl_err_hint(err, "%s", e2.hint);
		return SL_EANALYSIS;
	}
	return 0;
}

static int window_all(const sl_expr *call, int64_t d[3], sl_err *err)
{
	int i;
	d[0] = d[1] = d[2] = 0;
	for (i = 1; i < call->nargs; i++)
		if (window_duration(call, i, &d[i - 1], err) < 0)
			return SL_EANALYSIS;
	if (call->nargs < 3)
		d[1] = d[0];
	return 0;
}

int sl_window_params(const sl_expr *e, int64_t *size, int64_t *slide,
		     int64_t *start, sl_err *err)
{
	int64_t d[3];
	if (e->kind != SL_X_CALL || e->fn == NULL ||
	    strcmp(e->name, "window") != 0)
		return sl_err_set(err, SL_EINVAL,
				  "not a resolved window() call");
	if (window_all(e, d, err) < 0)
		return SL_EINVAL;
	*size = d[0];
	*slide = d[1];
	*start = d[2];
	return 0;
}

static int res_window(sl_expr *call, sl_err *err)
{
	int64_t d[3];
	sl_type *st;
	sl_buf a, b;
	bool good = false;
	if (sl_expr_arg_kind(call, 0, SL_TIMESTAMP, err) < 0 ||
	    window_all(call, d, err) < 0)
		return SL_EANALYSIS;
	sl_buf_init(&a);
	sl_buf_init(&b);
	sl_duration_format(d[0], &a);
	sl_duration_format(d[1], &b);
	if (d[0] <= 0)
		sl_err_set(err, SL_EANALYSIS,
			   "the window duration (%s) must be greater than 0",
			   sl_buf_cstr(&a));
	else if (d[1] <= 0)
		sl_err_set(err, SL_EANALYSIS,
			   "the slide duration (%s) must be greater than 0",
			   sl_buf_cstr(&b));
	else if (d[1] > d[0])
		sl_err_set(
		    err, SL_EANALYSIS,
		    "the slide duration (%s) must be less than or equal to the windowDuration (%s)",
		    sl_buf_cstr(&b), sl_buf_cstr(&a));
	else if (d[2] >= d[1] || -d[2] >= d[1])
		sl_err_set(
		    err, SL_EANALYSIS,
		    "the absolute value of start time must be less than the slideDuration (%s)",
		    sl_buf_cstr(&b));
	else
		good = true;
	sl_buf_release(&a);
	sl_buf_release(&b);
	if (!good)
		return SL_EANALYSIS;
	st = sl_type_struct_new(2);
	if (st == NULL ||
	    sl_type_set_field(st, 0, "start", sl_type_prim(SL_TIMESTAMP),
			      true) < 0 ||
	    sl_type_set_field(st, 1, "end", sl_type_prim(SL_TIMESTAMP), true) <
		0) {
		sl_type_free(st);
		return sl_err_nomem(err);
	}
	call->rtype = st;
	call->nullable = call->args[0]->nullable;
	return 0;
}

/* Window starts of ts[0..n) into st[0..n): start = ts - floormod(ts -
 * startTime, slide).  Event times of a batch are clustered (a rate or file
 * source is in time order; out-of-order data is seconds, not windows,
 * apart), so the window of the previous row is checked first and the
 * division runs only when a row leaves it: one compare per row instead of
 * a 64-bit division. */
static void window_starts(const int64_t *ts, int64_t *st, int64_t n,
			  int64_t slide, int64_t offset)
{
	int64_t i, lo = 1, hi = 0; /* [lo, hi): the current window */
	for (i = 0; i < n; i++) {
		int64_t t = ts[i];
		if (t < lo || t >= hi) {
			lo = t - sl_floormod(t - offset, slide);
			hi = lo + slide;
		}
		st[i] = lo;
	}
}

/* Tumbling windows: the struct<start, end> column in one pass over the
 * timestamps; the duration arguments are literals read from the call node
 * (sl_func_const_arg: they are never materialised as columns). */
static sl_col *ev_window(const sl_expr *call, sl_col *const *args, int64_t n,
			 sl_err *err)
{
	const sl_col *ts = args[0];
	int64_t d[3], i, *st, *en;
	sl_col *o;
	if (window_all(call, d, err) < 0)
		return NULL;
	if (d[1] != d[0]) {
		sl_err_set(err, SL_EANALYSIS,
			   "sliding window() must be expanded by the planner");
		return NULL;
	}
	if ((o = sl_col_new_raw(call->rtype, n)) == NULL)
		return sl_func_oom(NULL, err);
	st = sl_col_i64(o->child[0]);
	en = sl_col_i64(o->child[1]);
	window_starts(sl_col_i64(ts), st, n, d[1], d[2]);
	for (i = 0; i < n; i++)
		en[i] = st[i] + d[0];
	for (i = 0; ts->nulls != NULL && i < n; i++)
		if (sl_col_isnull(ts, i) &&
		    (sl_col_set_null(o, i) < 0 ||
		     sl_col_set_null(o->child[0], i) < 0 ||
		     sl_col_set_null(o->child[1], i) < 0))
			return sl_func_oom(o, err);
	return o;
}

/* ------------------------------------------------------------ registry */

/* session_window (defined at the end of this file) */
static int res_session_window(sl_expr *call, sl_err *err);
static sl_col *ev_session_window(const sl_expr *call, sl_col *const *args,
				 int64_t n, sl_err *err);

static const sl_func funcs[] = {
	{ "count", 1, -1, SL_FN_AGG, res_count, NULL },
	{ "count_distinct", 1, -1, SL_FN_AGG, res_count, NULL },
	{ "approx_count_distinct", 1, 2, SL_FN_AGG, res_count, NULL },
	{ "sum", 1, 1, SL_FN_AGG, res_sum, NULL },
	{ "avg", 1, 1, SL_FN_AGG, res_avg, NULL },
	{ "mean", 1, 1, SL_FN_AGG, res_avg, NULL },
	{ "min", 1, 1, SL_FN_AGG, res_same, NULL },
	{ "max", 1, 1, SL_FN_AGG, res_same, NULL },
	{ "first", 1, 2, SL_FN_AGG, res_same, NULL },
	{ "last", 1, 2, SL_FN_AGG, res_same, NULL },
	{ "collect_list", 1, 1, SL_FN_AGG, res_collect, NULL },
	{ "explode", 1, 1, SL_FN_GENERATOR, res_explode, NULL },
	{ "explode_outer", 1, 1, SL_FN_GENERATOR, res_explode, NULL },
	{ "posexplode", 1, 1, SL_FN_GENERATOR, res_explode, NULL },
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
	{ "coalesce", 1, -1, SL_FN_SCALAR, res_coalesce, ev_coalesce },
	{ "nvl", 2, 2, SL_FN_SCALAR, res_coalesce, ev_coalesce },
	{ "ifnull", 2, 2, SL_FN_SCALAR, res_coalesce, ev_coalesce },
	{ "if", 3, 3, SL_FN_SCALAR, res_if, ev_if },
	{ "isnull", 1, 1, SL_FN_SCALAR, res_isnull, ev_isnull },
	{ "isnotnull", 1, 1, SL_FN_SCALAR, res_isnull, ev_isnull },
	{ "greatest", 2, -1, SL_FN_SCALAR, res_greatest, ev_greatest },
	{ "least", 2, -1, SL_FN_SCALAR, res_greatest, ev_least },
	{ "get", 2, 2, SL_FN_SCALAR, res_get, ev_get },
	{ "like", 2, 2, SL_FN_SCALAR, res_like, ev_like },
	{ "to_json", 1, 1, SL_FN_SCALAR, res_to_json, ev_to_json },
	{ "get_json_object", 2, 2, SL_FN_SCALAR, res_get_json, ev_get_json },
	{ "from_json", 2, 2, SL_FN_SCALAR, res_from_json, ev_from_json },
	{ "year", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "month", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "dayofmonth", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "day", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "hour", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "minute", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "second", 1, 1, SL_FN_SCALAR, res_ts_field, ev_ts_field },
	{ "date_format", 2, 2, SL_FN_SCALAR, res_date_format, ev_date_format },
	{ "to_timestamp", 1, 2, SL_FN_SCALAR, res_parse_ts, ev_parse_ts },
	{ "unix_timestamp", 0, 2, SL_FN_SCALAR, res_parse_ts, ev_parse_ts },
	{ "timestamp_seconds", 1, 1, SL_FN_SCALAR, res_ts_seconds,
	  ev_ts_seconds },
	{ "current_timestamp", 0, 0, SL_FN_SCALAR, res_now, ev_now },
	{ "now", 0, 0, SL_FN_SCALAR, res_now, ev_now },
	{ "window", 2, 4, SL_FN_SCALAR, res_window, ev_window },
	{ "abs", 1, 1, SL_FN_SCALAR, res_abs, ev_abs },
	{ "round", 1, 2, SL_FN_SCALAR, res_round, ev_round },
	{ "floor", 1, 1, SL_FN_SCALAR, res_floor, ev_floor },
	{ "ceil", 1, 1, SL_FN_SCALAR, res_floor, ev_ceil },
	{ "ceiling", 1, 1, SL_FN_SCALAR, res_floor, ev_ceil },
	{ "sqrt", 1, 1, SL_FN_SCALAR, res_double, ev_sqrt },
	{ "pow", 2, 2, SL_FN_SCALAR, res_double, ev_pow },
	{ "power", 2, 2, SL_FN_SCALAR, res_double, ev_pow },
	{ "session_window", 2, 2, SL_FN_SCALAR, res_session_window,
	  ev_session_window },
};

#define NFUNCS ((int)(sizeof funcs / sizeof funcs[0]))

/* window() and session_window() read their durations from the call node. */
bool sl_func_const_arg(const sl_func *f, int i)
{
	return (f->eval == ev_window || f->eval == ev_session_window) && i > 0;
}

const sl_func *sl_func_lookup(const char *name)
{
	int i;
	for (i = 0; i < NFUNCS; i++)
		if (strcasecmp(funcs[i].name, name) == 0)
			return &funcs[i];
	return NULL;
}

const char *sl_func_nearest(const char *name)
{
	const char *names[NFUNCS];
	int i;
	for (i = 0; i < NFUNCS; i++)
		names[i] = funcs[i].name;
	return sl_nearest_name(name, names, NFUNCS);
}

/* ------------------------------------------------------- session_window */

/* session_window(ts, gap): the gap is a literal duration string; a row's
 * own session is [ts, ts + gap) (op_session.c merges them per key). */
static int session_gap(const sl_expr *call, int64_t *gap, sl_err *err)
{
	sl_value v;
	sl_err e2;
	int rc;
	memset(&v, 0, sizeof v);
	sl_err_clear(&e2);
	if (sl_expr_eval_const(call->args[1], &v, &e2) < 0 || v.null ||
	    v.s == NULL) {
		sl_value_release(&v);
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "session_window: the gap duration must be a literal string such as '5 minutes'");
	}
	rc = sl_duration_parse(v.s, gap, &e2);
	sl_value_release(&v);
	if (rc < 0)
		return sl_err_set(err, SL_EANALYSIS,
				  "session_window: bad gap duration: %s",
				  e2.msg);
	if (*gap <= 0)
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "session_window: the gap duration must be greater than 0");
	return 0;
}

static int res_session_window(sl_expr *call, sl_err *err)
{
	int64_t gap;
	sl_type *st;
	if (sl_expr_arg_kind(call, 0, SL_TIMESTAMP, err) < 0 ||
	    session_gap(call, &gap, err) < 0)
		return SL_EANALYSIS;
	st = sl_type_struct_new(2);
	if (st == NULL ||
	    sl_type_set_field(st, 0, "start", sl_type_prim(SL_TIMESTAMP),
			      true) < 0 ||
	    sl_type_set_field(st, 1, "end", sl_type_prim(SL_TIMESTAMP), true) <
		0) {
		sl_type_free(st);
		return sl_err_nomem(err);
	}
	call->rtype = st;
	call->nullable = call->args[0]->nullable;
	return 0;
}

static sl_col *ev_session_window(const sl_expr *call, sl_col *const *args,
				 int64_t n, sl_err *err)
{
	int64_t gap, i;
	sl_col *o;
	if (session_gap(call, &gap, err) < 0 ||
	    (o = sl_func_out(call, n, err)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int64_t ts = sl_col_i64(args[0])[i];
		sl_col_i64(o->child[0])[i] = ts;
		sl_col_i64(o->child[1])[i] = ts + gap;
	}
	for (i = 0; args[0]->nulls != NULL && i < n; i++)
		if (sl_col_isnull(args[0], i) &&
		    (sl_col_set_null(o, i) < 0 ||
		     sl_col_set_null(o->child[0], i) < 0 ||
		     sl_col_set_null(o->child[1], i) < 0))
			return sl_func_oom(o, err);
	return o;
}

int sl_session_gap(const sl_expr *resolved_call, int64_t *gap, sl_err *err)
{
	return session_gap(resolved_call, gap, err);
}
