/*
 * options: a small ordered map of strings.
 */
#include "core/options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sl_options_init(sl_options *o)
{
	o->n = o->cap = 0;
	o->keys = o->vals = NULL;
}

void sl_options_release(sl_options *o)
{
	int i;
	for (i = 0; i < o->n; i++) {
		free(o->keys[i]);
		free(o->vals[i]);
	}
	free(o->keys);
	free(o->vals);
	sl_options_init(o);
}

int sl_options_set(sl_options *o, const char *key, const char *val)
{
	int i;
	char *v = strdup(val), *k;
	if (v == NULL)
		return SL_ENOMEM;
	for (i = 0; i < o->n; i++) {
		if (strcasecmp(o->keys[i], key) == 0) {
			free(o->vals[i]);
			o->vals[i] = v;
			return 0;
		}
	}
	if (o->n == o->cap) {
		int cap = o->cap ? o->cap * 2 : 8;
		char **nk = realloc(o->keys, (size_t)cap * sizeof *nk);
		char **nv;
		if (nk == NULL) {
			free(v);
			return SL_ENOMEM;
		}
		o->keys = nk;
		nv = realloc(o->vals, (size_t)cap * sizeof *nv);
		if (nv == NULL) {
			free(v);
			return SL_ENOMEM;
		}
		o->vals = nv;
		o->cap = cap;
	}
	k = strdup(key);
	if (k == NULL) {
		free(v);
		return SL_ENOMEM;
	}
	o->keys[o->n] = k;
	o->vals[o->n] = v;
	o->n++;
	return 0;
}

const char *sl_options_get(const sl_options *o, const char *key)
{
	int i;
	for (i = o->n - 1; i >= 0; i--)
		if (strcasecmp(o->keys[i], key) == 0)
			return o->vals[i];
	return NULL;
}

int sl_options_copy(sl_options *dst, const sl_options *src)
{
	int i, rc;
	for (i = 0; i < src->n; i++)
		if ((rc = sl_options_set(dst, src->keys[i], src->vals[i])) < 0)
			return rc;
	return 0;
}

int sl_options_bool(const sl_options *o, const char *key, bool def, bool *out,
		    sl_err *err)
{
	const char *v = sl_options_get(o, key);
	if (v == NULL) {
		*out = def;
		return 0;
	}
	if (strcasecmp(v, "true") == 0) {
		*out = true;
		return 0;
	}
	if (strcasecmp(v, "false") == 0) {
		*out = false;
		return 0;
	}
	return sl_err_set(err, SL_EINVAL,
			  "option '%s': expected 'true' or 'false', got '%s'",
			  key, v);
}

int sl_options_int(const sl_options *o, const char *key, int64_t def,
		   int64_t *out, sl_err *err)
{
	const char *v = sl_options_get(o, key);
	char *end;
	long long x;
	if (v == NULL) {
		*out = def;
		return 0;
	}
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0')
		return sl_err_set(err, SL_EINVAL,
				  "option '%s': expected an integer, got '%s'",
				  key, v);
	*out = x;
	return 0;
}
