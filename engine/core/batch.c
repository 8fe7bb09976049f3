/*
 * batch: equal-length column sets, value rendering (show/JSON) and Spark's
 * show() table.
 */
#include "core/batch.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/timeutil.h"
#include "core/utf8.h"

sl_batch *sl_batch_new(sl_type *schema, int64_t nrows, sl_col **cols)
{
	sl_batch *b = calloc(1, sizeof *b);
	int i, n = schema->nfields;
	assert(schema->kind == SL_STRUCT && nrows >= 0);
	if (b == NULL)
		goto fail;
	b->cols = calloc((size_t)(n ? n : 1), sizeof *b->cols);
	if (b->cols == NULL) {
		free(b);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		/* batch.h: equal-length columns */
		assert(cols[i] != NULL && cols[i]->len == nrows);
		b->cols[i] = cols[i];
	}
	b->schema = sl_type_ref(schema);
	b->nrows = nrows;
	b->ncols = n;
	b->refs = 1;
	return b;
fail:
	for (i = 0; i < n; i++)
		sl_col_free(cols[i]);
	return NULL;
}

sl_batch *sl_batch_empty(sl_type *schema)
{
	int i, n = schema->nfields;
	sl_col **cols = calloc((size_t)(n ? n : 1), sizeof *cols);
	sl_batch *b;
	if (cols == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		cols[i] = sl_col_new(schema->fields[i].type, 0);
		if (cols[i] == NULL) {
			while (i-- > 0)
				sl_col_free(cols[i]);
			free(cols);
			return NULL;
		}
	}
	b = sl_batch_new(schema, 0, cols);
	free(cols);
	return b;
}

sl_batch *sl_batch_ref(sl_batch *b)
{
	if (b != NULL)
		b->refs++;
	return b;
}

void sl_batch_free(sl_batch *b)
{
	int i;
	if (b == NULL || --b->refs > 0)
		return;
	for (i = 0; i < b->ncols; i++)
		sl_col_free(b->cols[i]);
	free(b->cols);
	sl_type_free(b->schema);
	free(b);
}

typedef sl_col *(*colfn)(const sl_col *, const void *, int64_t, int64_t);

static sl_col *take_fn(const sl_col *c, const void *a, int64_t n, int64_t u)
{
	(void)u;
	return sl_col_take(c, a, n);
}
static sl_col *filter_fn(const sl_col *c, const void *a, int64_t n, int64_t u)
{
	(void)u;
	return sl_col_filter(c, a, n);
}
static sl_col *slice_fn(const sl_col *c, const void *a, int64_t n, int64_t off)
{
	(void)a;
	return sl_col_slice(c, off, n);
}

static sl_batch *map_cols(const sl_batch *b, colfn fn, const void *arg,
			  int64_t n, int64_t extra)
{
	sl_col **cols = calloc((size_t)(b->ncols ? b->ncols : 1), sizeof *cols);
	sl_batch *o;
	int i;
	if (cols == NULL)
		return NULL;
	for (i = 0; i < b->ncols; i++) {
		cols[i] = fn(b->cols[i], arg, n, extra);
		if (cols[i] == NULL) {
			while (i-- > 0)
				sl_col_free(cols[i]);
			free(cols);
			return NULL;
		}
	}
	o = sl_batch_new(b->schema, n, cols);
	free(cols);
	return o;
}

sl_batch *sl_batch_take(const sl_batch *b, const int64_t *idx, int64_t n)
{
	return map_cols(b, take_fn, idx, n, 0);
}

sl_batch *sl_batch_filter(const sl_batch *b, const uint8_t *sel, int64_t nsel)
{
	return map_cols(b, filter_fn, sel, nsel, 0);
}

sl_batch *sl_batch_slice(const sl_batch *b, int64_t off, int64_t n)
{
	if (off == 0 && n == b->nrows)
		return sl_batch_ref((sl_batch *)b);
	return map_cols(b, slice_fn, NULL, n, off);
}

sl_batch *sl_batch_concat(sl_batch *const *bs, int n, sl_type *schema,
			  sl_err *err)
{
	sl_col **part, **cols;
	sl_batch *o;
	int i, j, ncols;
	int64_t rows = 0;
	if (n == 0)
		return sl_batch_empty(schema);
	if (n == 1)
		return sl_batch_ref(bs[0]);
	ncols = bs[0]->ncols;
	part = calloc((size_t)n, sizeof *part);
	cols = calloc((size_t)(ncols ? ncols : 1), sizeof *cols);
	if (part == NULL || cols == NULL) {
		free(part);
		free(cols);
		sl_err_nomem(err);
		return NULL;
	}
	for (j = 0; j < n; j++)
		rows += bs[j]->nrows;
	for (i = 0; i < ncols; i++) {
		for (j = 0; j < n; j++)
			part[j] = bs[j]->cols[i];
		cols[i] = sl_col_concat(part, n);
		if (cols[i] == NULL) {
			while (i-- > 0)
				sl_col_free(cols[i]);
			free(part);
			free(cols);
			sl_err_nomem(err);
			return NULL;
		}
	}
	o = sl_batch_new(schema ? schema : bs[0]->schema, rows, cols);
	free(part);
	free(cols);
	if (o == NULL)
		sl_err_nomem(err);
	return o;
}

/* The shortest round-trip digits of a (> 0) without printf when it is a
 * short decimal in [1e-3, 1e7) with at most 8 fractional digits (sums
 * and prices, the common case; printf + strtod per tried precision was
 * a fifth of W1's instructions through the feed's state rows): the
 * smallest k for which r = round(a * 10^k) gives back a as r / 10^k
 * (both exact, the division correctly rounded: strtod's result).  For
 * |a| < 1e7 and k <= 8, 10^k ulp(a) < 0.2, so r is the only integer near
 * a 10^k, it is the correctly rounded decimal printf would give, and no
 * shorter decimal round-trips (it would have been found at a smaller k).
 * digs[0..*nd) and *exp10 as the printf path leaves them (trailing zeros
 * may remain).  False: use the printf path (its precisions bisected:
 * 5 tries, not up to 17). */
static bool short_digits(double a, char *digs, int *nd, int *exp10)
{
	static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4,
				     1e5, 1e6, 1e7, 1e8};
	char t[24];
	int k, n;
	if (!(a >= 1e-3 && a < 1e7))
		return false;
	for (k = 0; k <= 8; k++) {
		double r = nearbyint(a * p10[k]);
		uint64_t u;
		int j;
		if (r / p10[k] != a)
			continue;
		for (n = 0, u = (uint64_t)r; u > 0; u /= 10)
			t[n++] = (char)('0' + u % 10);
		for (j = 0; j < n; j++)
			digs[j] = t[n - 1 - j];
		*nd = n;
		*exp10 = n - 1 - k;
		return true;
	}
	return false;
}

/* Java's Double.toString: shortest round-trip digits; plain notation for
 * 1e-3 <= |d| < 1e7, else d.dddE<n>. */
void sl_fmt_double(double d, sl_buf *out)
{
	char tmp[40], digs[24];
	int prec, exp10, nd = 0, k;
	const char *p;
	if (isnan(d)) {
		sl_buf_adds(out, "NaN");
		return;
	}
	if (isinf(d)) {
		sl_buf_adds(out, d < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (d == 0) {
		sl_buf_adds(out, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	if (signbit(d))
		sl_buf_addc(out, '-');
	if (!short_digits(fabs(d), digs, &nd, &exp10)) {
		/* the fewest digits that round-trip, by bisection: a
		 * correctly rounded p-digit decimal that round-trips
		 * stays one with more digits (17 always does) */
		int lo = 1, hi = 17, in_tmp = 0; /* tmp's precision */
		while (lo < hi) {
			prec = (lo + hi) / 2;
			snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
			in_tmp = prec;
			if (strtod(tmp, NULL) == d)
				hi = prec;
			else
				lo = prec + 1;
		}
		if (in_tmp != hi)
			snprintf(tmp, sizeof tmp, "%.*e", hi - 1, d);
		p = tmp + (*tmp == '-');
		for (; *p && *p != 'e'; p++)
			if (*p >= '0' && *p <= '9')
				digs[nd++] = *p;
		exp10 = atoi(p + 1);
	}
	while (nd > 1 && digs[nd - 1] == '0')
		nd--;
	if (fabs(d) >= 1e-3 && fabs(d) < 1e7) {
		if (exp10 >= 0) {
			for (k = 0; k <= exp10; k++)
				sl_buf_addc(out, k < nd ? digs[k] : '0');
			sl_buf_addc(out, '.');
			if (nd > exp10 + 1)
				sl_buf_add(out, digs + exp10 + 1,
					   (size_t)(nd - exp10 - 1));
			else
				sl_buf_addc(out, '0');
		} else {
			sl_buf_adds(out, "0.");
			for (k = 0; k < -exp10 - 1; k++)
				sl_buf_addc(out, '0');
			sl_buf_add(out, digs, (size_t)nd);
		}
	} else {
		sl_buf_addc(out, digs[0]);
		sl_buf_addc(out, '.');
		if (nd > 1)
			sl_buf_add(out, digs + 1, (size_t)(nd - 1));
		else
			sl_buf_addc(out, '0');
		sl_buf_printf(out, "E%d", exp10);
	}
}

void sl_value_show(const sl_col *c, int64_t i, sl_buf *out)
{
	int j;
	if (sl_col_isnull(c, i)) {
		sl_buf_adds(out, "null");
		return;
	}
	switch (c->type->kind) {
	case SL_NULLTYPE: sl_buf_adds(out, "null"); break;
	case SL_BOOLEAN:
		sl_buf_adds(out, sl_col_u8(c)[i] ? "true" : "false");
		break;
	case SL_INT: sl_buf_printf(out, "%d", (int)sl_col_i32(c)[i]); break;
	case SL_BIGINT:
		sl_buf_printf(out, "%lld", (long long)sl_col_i64(c)[i]);
		break;
	case SL_DOUBLE: sl_fmt_double(sl_col_f64(c)[i], out); break;
	case SL_TIMESTAMP: sl_ts_format(sl_col_i64(c)[i], out); break;
	case SL_DATE: sl_date_format(sl_col_i32(c)[i], out); break;
	case SL_STRING:
		sl_buf_add(out, sl_col_str(c)[i].p, sl_col_str(c)[i].len);
		break;
	case SL_BINARY: {
		const sl_str *s = &sl_col_str(c)[i];
		uint32_t k;
		sl_buf_addc(out, '[');
		for (k = 0; k < s->len; k++)
			sl_buf_printf(out, "%s%02X", k ? " " : "",
				      (unsigned char)s->p[k]);
		sl_buf_addc(out, ']');
		break;
	}
	case SL_STRUCT:
		sl_buf_addc(out, '{');
		for (j = 0; j < c->nchild; j++) {
			if (j > 0)
				sl_buf_adds(out, ", ");
			sl_value_show(c->child[j], i, out);
		}
		sl_buf_addc(out, '}');
		break;
	case SL_ARRAY: {
		int32_t k;
		sl_buf_addc(out, '[');
		for (k = c->offsets[i]; k < c->offsets[i + 1]; k++) {
			if (k > c->offsets[i])
				sl_buf_adds(out, ", ");
			sl_value_show(c->child[0], k, out);
		}
		sl_buf_addc(out, ']');
		break;
	}
	}
}

void sl_value_json(const sl_col *c, int64_t i, sl_buf *out)
{
	int j;
	if (sl_col_isnull(c, i)) {
		sl_buf_adds(out, "null");
		return;
	}
	switch (c->type->kind) {
	case SL_DOUBLE: {
		double d = sl_col_f64(c)[i];
		if (isnan(d) || isinf(d)) {
			sl_buf_addc(out, '"');
			sl_fmt_double(d, out);
			sl_buf_addc(out, '"');
		} else {
			sl_fmt_double(d, out);
		}
		break;
	}
	case SL_DATE:
		sl_buf_addc(out, '"');
		sl_date_format(sl_col_i32(c)[i], out);
		sl_buf_addc(out, '"');
		break;
	case SL_TIMESTAMP: {
		/* Spark's JSON writer: yyyy-MM-dd'T'HH:mm:ss.SSSXXX in UTC */
		sl_buf_addc(out, '"');
		sl_ts_iso(sl_col_i64(c)[i], out);
		sl_buf_addc(out, '"');
		break;
	}
	case SL_STRING:
		sl_buf_json_str(out, sl_col_str(c)[i].p, sl_col_str(c)[i].len);
		break;
	case SL_BINARY: {
		/* base64, as Spark writes binary in JSON */
		static const char b64[] =
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		const unsigned char *s =
		    (const unsigned char *)sl_col_str(c)[i].p;
		uint32_t n = sl_col_str(c)[i].len, k;
		sl_buf_addc(out, '"');
		for (k = 0; k + 2 < n; k += 3) {
			sl_buf_addc(out, b64[s[k] >> 2]);
			sl_buf_addc(out,
				    b64[((s[k] & 3) << 4) | (s[k + 1] >> 4)]);
			sl_buf_addc(
			    out, b64[((s[k + 1] & 15) << 2) | (s[k + 2] >> 6)]);
			sl_buf_addc(out, b64[s[k + 2] & 63]);
		}
		if (n - k == 1) {
			sl_buf_addc(out, b64[s[k] >> 2]);
			sl_buf_addc(out, b64[(s[k] & 3) << 4]);
			sl_buf_adds(out, "==");
		} else if (n - k == 2) {
			sl_buf_addc(out, b64[s[k] >> 2]);
			sl_buf_addc(out,
				    b64[((s[k] & 3) << 4) | (s[k + 1] >> 4)]);
			sl_buf_addc(out, b64[(s[k + 1] & 15) << 2]);
			sl_buf_addc(out, '=');
		}
		sl_buf_addc(out, '"');
		break;
	}
	case SL_STRUCT: {
		bool first = true;
		sl_buf_addc(out, '{');
		for (j = 0; j < c->nchild; j++) {
			/* Spark's JSON writer omits null fields */
			if (sl_col_isnull(c->child[j], i))
				continue;
			if (!first)
				sl_buf_addc(out, ',');
			first = false;
			sl_buf_json_str(out, c->type->fields[j].name,
					strlen(c->type->fields[j].name));
			sl_buf_addc(out, ':');
			sl_value_json(c->child[j], i, out);
		}
		sl_buf_addc(out, '}');
		break;
	}
	case SL_ARRAY: {
		int32_t k;
		sl_buf_addc(out, '[');
		for (k = c->offsets[i]; k < c->offsets[i + 1]; k++) {
			if (k > c->offsets[i])
				sl_buf_addc(out, ',');
			sl_value_json(c->child[0], k, out);
		}
		sl_buf_addc(out, ']');
		break;
	}
	default: sl_value_show(c, i, out);
	}
}

/* A cell's text as Spark's showString escapes it before cutting it
 * (SchemaUtils.escapeMetaCharacters): \n \r \t \f \b \v \a become the
 * two characters \n, \r, ... so a value never breaks the table.
 * Deliberate deviation: the other control characters (Spark prints them
 * raw, and a raw ESC or NUL garbles a terminal) show as \xNN. */
static void show_escape(sl_buf *cell)
{
	static const char from[] = "\n\r\t\f\b\v\a", to[] = "nrtfbva";
	sl_buf e;
	size_t k;
	for (k = 0; k < cell->len; k++)
		if ((unsigned char)cell->p[k] < 0x20 || cell->p[k] == 0x7f)
			break;
	if (k == cell->len)
		return;
	sl_buf_init(&e);
	sl_buf_add(&e, cell->p, k);
	for (; k < cell->len; k++) {
		unsigned char c = (unsigned char)cell->p[k];
		const char *m = c != 0 ? strchr(from, c) : NULL;
		if (m != NULL) {
			sl_buf_addc(&e, '\\');
			sl_buf_addc(&e, to[m - from]);
		} else if (c < 0x20 || c == 0x7f) {
			sl_buf_printf(&e, "\\x%02X", c);
		} else {
			sl_buf_addc(&e, (char)c);
		}
	}
	if (sl_buf_failed(&e))
		cell->oom = true;
	sl_buf_release(cell);
	*cell = e;
}

/* show(): cells are right-aligned when truncating (Spark's default) and
 * left-aligned with truncate=false; widths are display columns. */
void sl_batch_show(const sl_batch *b, int64_t numrows, int truncate,
		   sl_buf *out)
{
	int64_t rows = b->nrows < numrows ? b->nrows : numrows, r;
	int nc = b->ncols, i;
	char ***cells;
	size_t *width;
	if (numrows < 0)
		rows = 0;
	cells = calloc((size_t)(rows + 1), sizeof *cells);
	width = calloc((size_t)(nc ? nc : 1), sizeof *width);
	if (cells == NULL || width == NULL) {
		free(cells);
		free(width);
		out->oom = true;
		return;
	}
	for (r = 0; r <= rows; r++) {
		cells[r] = calloc((size_t)(nc ? nc : 1), sizeof **cells);
		if (cells[r] == NULL)
			goto done;
		for (i = 0; i < nc; i++) {
			sl_buf cell;
			sl_buf_init(&cell);
			if (r == 0)
				sl_buf_adds(&cell, b->schema->fields[i].name);
			else
				sl_value_show(b->cols[i], r - 1, &cell);
			show_escape(&cell);
			if (truncate > 0 &&
			    sl_utf8_width(sl_buf_cstr(&cell), cell.len) >
				(size_t)truncate) {
				size_t keep = truncate < 4
						  ? (size_t)truncate
						  : (size_t)truncate - 3;
				size_t cut = sl_utf8_prefix(sl_buf_cstr(&cell),
							    cell.len, keep);
				cell.len = cut;
				if (cell.p)
					cell.p[cut] = '\0';
				if (truncate >= 4)
					sl_buf_adds(&cell, "...");
			}
			cells[r][i] = sl_buf_detach(&cell);
			if (cells[r][i] == NULL)
				goto done;
			{
				size_t w = sl_utf8_width(cells[r][i],
							 strlen(cells[r][i]));
				if (w < 3)
					w = 3;
				if (w > width[i])
					width[i] = w;
			}
		}
	}
	{
		sl_buf sep;
		sl_buf_init(&sep);
		sl_buf_addc(&sep, '+');
		for (i = 0; i < nc; i++) {
			sl_buf_pad(&sep, '-', width[i]);
			sl_buf_addc(&sep, '+');
		}
		sl_buf_addc(&sep, '\n');
		for (r = 0; r <= rows; r++) {
			if (r <= 1)
				sl_buf_add(out, sep.p, sep.len);
			sl_buf_addc(out, '|');
			for (i = 0; i < nc; i++) {
				const char *s = cells[r][i];
				size_t w = sl_utf8_width(s, strlen(s));
				if (truncate > 0)
					sl_buf_pad(out, ' ', width[i] - w);
				sl_buf_adds(out, s);
				if (truncate <= 0)
					sl_buf_pad(out, ' ', width[i] - w);
				sl_buf_addc(out, '|');
			}
			sl_buf_addc(out, '\n');
		}
		if (rows == 0) /* Spark still closes the (empty) data section */
			sl_buf_add(out, sep.p, sep.len);
		sl_buf_add(out, sep.p, sep.len);
		sl_buf_release(&sep);
	}
	if (b->nrows > rows)
		sl_buf_printf(out, "only showing top %lld row%s\n",
			      (long long)rows, rows == 1 ? "" : "s");
done:
	for (r = 0; r <= rows; r++) {
		if (cells[r] == NULL)
			break;
		for (i = 0; i < nc; i++)
			free(cells[r][i]);
		free(cells[r]);
	}
	free(cells);
	free(width);
}

size_t sl_batch_bytes(const sl_batch *b)
{
	size_t n = sizeof *b;
	int i;
	for (i = 0; i < b->ncols; i++)
		n += sl_col_bytes(b->cols[i]);
	return n;
}

void sl_batch_row_json(const sl_batch *b, int64_t i, sl_buf *out)
{
	int k;
	sl_buf_addc(out, '{');
	for (k = 0; k < b->ncols; k++) {
		const char *n = b->schema->fields[k].name;
		if (k)
			sl_buf_addc(out, ',');
		sl_buf_json_str(out, n, strlen(n));
		sl_buf_addc(out, ':');
		sl_value_json(b->cols[k], i, out);
	}
	sl_buf_addc(out, '}');
}

void sl_batch_list_init(sl_batch_list *l)
{
	l->n = 0;
	l->cap = 0;
	l->b = NULL;
	l->push = NULL;
	l->ctx = NULL;
	l->push_err = NULL;
	l->push_rc = 0;
}

int sl_batch_list_add(sl_batch_list *l, sl_batch *b)
{
	if (l->push != NULL) {
		int rc;
		if (l->push_rc < 0) {
			sl_batch_free(b);
			return l->push_rc;
		}
		rc = l->push(l->ctx, b, l->push_err);
		if (rc < 0)
			l->push_rc = rc;
		return rc < 0 ? rc : 0;
	}
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 8;
		sl_batch **nb = realloc(l->b, (size_t)cap * sizeof *nb);
		if (nb == NULL) {
			sl_batch_free(b);
			return SL_ENOMEM;
		}
		l->b = nb;
		l->cap = cap;
	}
	l->b[l->n++] = b;
	return 0;
}

void sl_batch_list_release(sl_batch_list *l)
{
	for (int i = 0; i < l->n; i++)
		sl_batch_free(l->b[i]);
	free(l->b);
	sl_batch_list_init(l);
}
