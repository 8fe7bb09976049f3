/*
 * rows.h: a batch, or a memory sink's table, as text for the unit tests:
 * "a,b;c,d" (rows in their order, values as show() prints them), or the
 * error message.  The text lives in
 * a static buffer until the next call.
 */
#ifndef SL_TEST_ROWS_H
#define SL_TEST_ROWS_H

#include <stdio.h>

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

#endif
