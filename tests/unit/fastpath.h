/*
 * fastpath.h: the comparison t406 (json) and t408 (csv) make between a
 * reader's fast path and its general parser: read a text both ways (the
 * default, and option fastPath=false) in the three modes and compare the
 * batches value by value (null bits, raw bits of numbers, string bytes,
 * down into structs and arrays) and the error messages.  The includer
 * defines FP_FORMAT ("json"), FP_FILE (the name errors show) and
 * fp_options(o), which adds its own reader options, before including.
 */
#ifndef SL_TEST_FASTPATH_H
#define SL_TEST_FASTPATH_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "formats/fileformat.h"
#include "tap.h"

static void fp_options(sl_options *o);

static const char *const modes[] = {"PERMISSIVE", "DROPMALFORMED", "FAILFAST"};

static sl_batch *rd(const char *text, size_t len, const char *ddl,
		    const char *mode, bool fast, sl_err *err)
{
	sl_options o;
	sl_type *t = sl_type_parse_ddl(ddl, err);
	sl_batch *b;
	if (t == NULL)
		return NULL;
	sl_options_init(&o);
	sl_options_set(&o, "mode", mode);
	if (!fast)
		sl_options_set(&o, "fastPath", "false");
	fp_options(&o);
	b = sl_format_read_buf(FP_FORMAT, FP_FILE, text, len, t, &o, err);
	sl_options_release(&o);
	sl_type_free(t);
	return b;
}

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

/* Read text both ways in mode; true if the results are identical. */
static bool same(const char *text, size_t len, const char *ddl,
		 const char *mode, char *why, size_t wn)
{
	sl_err e1, e2;
	sl_batch *a, *b;
	bool eq = true;
	sl_err_clear(&e1);
	sl_err_clear(&e2);
	a = rd(text, len, ddl, mode, true, &e1);
	b = rd(text, len, ddl, mode, false, &e2);
	why[0] = '\0';
	if ((a == NULL) != (b == NULL) || strcmp(e1.msg, e2.msg) != 0) {
		snprintf(why, wn, "fast: %.200s / general: %.200s",
			 a ? "ok" : e1.msg, b ? "ok" : e2.msg);
		eq = false;
	} else if (a != NULL && a->nrows != b->nrows) {
		snprintf(why, wn, "rows %lld vs %lld", (long long)a->nrows,
			 (long long)b->nrows);
		eq = false;
	} else if (a != NULL) {
		for (int k = 0; k < a->ncols && eq; k++) {
			eq = col_eq(a->cols[k], b->cols[k], a->nrows, why, wn);
			if (!eq) {
				size_t u = strlen(why);
				snprintf(why + u, wn - u, " (column %s)",
					 a->schema->fields[k].name);
			}
		}
	}
	sl_batch_free(a);
	sl_batch_free(b);
	return eq;
}

static void both(const char *text, const char *ddl, const char *name)
{
	char why[512];
	for (int m = 0; m < 3; m++)
		if (!ok(same(text, strlen(text), ddl, modes[m], why, sizeof why),
			"%s (%s)", name, modes[m]))
			printf("#   %s\n", why);
}

#endif
