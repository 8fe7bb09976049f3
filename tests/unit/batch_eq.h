/*
 * batch_eq.h: value-by-value equality of two batches of one schema (null
 * bits, raw bits of numbers, string bytes, down into structs and arrays),
 * for the tests that read one text two ways: fastpath.h (t406, t408) and
 * the json fuzz target.  No TAP: a false names the first difference in
 * why.
 */
#ifndef SL_TEST_BATCH_EQ_H
#define SL_TEST_BATCH_EQ_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/batch.h"

/* Column equality, down into structs and arrays; why says where not. */
static bool col_eq(const sl_col *a, const sl_col *b, int64_t n, char *why,
		   size_t wn)
{
	int64_t i;
	int w = sl_type_width(a->type);
	for (i = 0; i < n; i++) {
		bool na = sl_col_isnull(a, i), nb = sl_col_isnull(b, i);
		if (na != nb) {
			snprintf(why, wn, "row %lld: null %d vs %d", (long long)i,
				 na, nb);
			return false;
		}
		if (na)
			continue;
		switch (a->type->kind) {
		case SL_STRING:
		case SL_BINARY: {
			sl_str x = sl_col_str(a)[i], y = sl_col_str(b)[i];
			if (x.len != y.len || memcmp(x.p, y.p, x.len) != 0) {
				snprintf(why, wn, "row %lld: '%.*s' vs '%.*s'",
					 (long long)i, (int)x.len, x.p, (int)y.len,
					 y.p);
				return false;
			}
			break;
		}
		case SL_STRUCT:
		case SL_ARRAY:
		case SL_NULLTYPE:
			break;
		default:
			if (memcmp((const char *)a->data + i * w,
				   (const char *)b->data + i * w, (size_t)w) != 0) {
				snprintf(why, wn, "row %lld: value bits differ",
					 (long long)i);
				return false;
			}
		}
	}
	if (a->type->kind == SL_STRUCT)
		for (int k = 0; k < a->nchild; k++)
			if (!col_eq(a->child[k], b->child[k], n, why, wn))
				return false;
	if (a->type->kind == SL_ARRAY) {
		if (memcmp(a->offsets, b->offsets, (size_t)(n + 1) * 4) != 0) {
			snprintf(why, wn, "array offsets differ");
			return false;
		}
		return col_eq(a->child[0], b->child[0], a->offsets[n], why, wn);
	}
	return true;
}

/* Same row count and equal columns; why names the column that is not. */
static bool batch_eq(const sl_batch *a, const sl_batch *b, char *why,
		     size_t wn)
{
	if (a->nrows != b->nrows || a->ncols != b->ncols) {
		snprintf(why, wn, "rows %lld vs %lld", (long long)a->nrows,
			 (long long)b->nrows);
		return false;
	}
	for (int k = 0; k < a->ncols; k++)
		if (!col_eq(a->cols[k], b->cols[k], a->nrows, why, wn)) {
			size_t u = strlen(why);
			snprintf(why + u, wn - u, " (column %s)",
				 a->schema->fields[k].name);
			return false;
		}
	return true;
}

#endif
