/*
 * options: the string key/value options of readers and writers
 * (Spark's `option(k, v)`).  Keys compare case-insensitively, as Spark's
 * CaseInsensitiveMap; a later set of the same key replaces the value.
 * Caller-owned struct; strings are copied.
 */
#ifndef SL_OPTIONS_H
#define SL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"

typedef struct sl_options {
	int n, cap;
	char **keys;
	char **vals;
} sl_options;

void sl_options_init(sl_options *o);
void sl_options_release(sl_options *o);
int sl_options_set(sl_options *o, const char *key, const char *val);
/* Value or NULL; borrowed. */
const char *sl_options_get(const sl_options *o, const char *key);
/* Deep copy into an initialised dst. */
int sl_options_copy(sl_options *dst, const sl_options *src);

/* Typed getters: absent -> def.  A present but bad value is an error that
 * names the option: "option 'header': expected 'true' or 'false', got 'yes'". */
int sl_options_bool(const sl_options *o, const char *key, bool def, bool *out,
		    sl_err *err);
int sl_options_int(const sl_options *o, const char *key, int64_t def,
		   int64_t *out, sl_err *err);

#endif
