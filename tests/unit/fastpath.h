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

#include "batch_eq.h"
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
	} else if (a != NULL) {
		eq = batch_eq(a, b, why, wn);
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
