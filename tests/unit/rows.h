/*
 * rows.h: a batch, or a memory sink's table, as text for the unit tests:
 * "a,b;c,d" (rows in their order, values as show() prints them), or the
 * error message.  The text lives in
 * a static buffer until the next call.
 */
#ifndef SL_TEST_ROWS_H
#define SL_TEST_ROWS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "core/buf.h"
#include "plan/catalog.h"
#include "driver/session.h"

/* b as text (taken: freed here). */
static inline const char *batch_text(sl_batch *b)
{
	static char text[8192];
	sl_buf out;
	int64_t i;
	int j;
	sl_buf_init(&out);
	for (i = 0; i < b->nrows; i++) {
		if (i)
			sl_buf_addc(&out, ';');
		for (j = 0; j < b->ncols; j++) {
			if (j)
				sl_buf_addc(&out, ',');
			sl_value_show(b->cols[j], i, &out);
		}
	}
	snprintf(text, sizeof text, "%s", sl_buf_cstr(&out));
	sl_buf_release(&out);
	sl_batch_free(b);
	return text;
}

static inline const char *table_text(sl_session *s, const char *name,
				     sl_err *err)
{
	sl_batch *b = sl_catalog_get(sl_session_catalog(s), name, err);
	return b != NULL ? batch_text(b) : err->msg;
}

/* The rows of a memory sink's table past *seen (those an earlier call
 * had not returned), each "(v,v)", sorted, space separated; *seen moves
 * past them.  err->msg on failure.  The text lives in a static buffer
 * until the next call. */
static inline int rows_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline const char *table_new_rows(sl_session *s, const char *name,
					 int *seen, sl_err *err)
{
	static char tbuf[4096];
	sl_batch *b = sl_catalog_get(sl_session_catalog(s), name, err);
	char **rows;
	sl_buf out, r;
	int64_t i, n;
	int j;
	if (b == NULL)
		return err->msg;
	n = b->nrows - *seen;
	rows = calloc((size_t)n + 1, sizeof *rows);
	sl_buf_init(&out);
	for (i = 0; i < n; i++) {
		sl_buf_init(&r);
		for (j = 0; j < b->ncols; j++) {
			if (j)
				sl_buf_addc(&r, ',');
			sl_value_show(b->cols[j], *seen + i, &r);
		}
		rows[i] = strdup(sl_buf_cstr(&r));
		sl_buf_release(&r);
	}
	qsort(rows, (size_t)n, sizeof *rows, rows_cmp_str);
	for (i = 0; i < n; i++) {
		sl_buf_printf(&out, "%s(%s)", i ? " " : "", rows[i]);
		free(rows[i]);
	}
	free(rows);
	*seen = (int)b->nrows;
	snprintf(tbuf, sizeof tbuf, "%s", sl_buf_cstr(&out));
	sl_buf_release(&out);
	sl_batch_free(b);
	return tbuf;
}

#endif
