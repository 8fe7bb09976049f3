/*
 * model_json: a path lookup over JSON text the engine wrote (progress,
 * offsets, late rows).  Not a validating parser: the input is ours and
 * well formed; malformed text yields NULL, never a crash (every step
 * stops at the NUL).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"

static const char *ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

static const char *skip_string(const char *p)
{
	p++; /* the opening quote */
	while (*p && *p != '"')
		p += (*p == '\\' && p[1]) ? 2 : 1;
	return *p ? p + 1 : p;
}

const char *mjson_skip(const char *p)
{
	int depth = 0;

	p = ws(p);
	if (*p == '"')
		return skip_string(p);
	if (*p != '{' && *p != '[') {
		while (*p && !strchr(",}] \t\r\n", *p))
			p++;
		return p;
	}
	do {
		if (*p == '"') {
			p = skip_string(p);
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		p++;
	} while (*p && depth > 0);
	return p;
}

/* The value of member key (length n) of the object at p, or NULL. */
static const char *member(const char *p, const char *key, size_t n)
{
	p = ws(p);
	if (*p != '{')
		return NULL;
	p = ws(p + 1);
	while (*p == '"') {
		const char *k = p + 1, *end = skip_string(p);
		bool hit =
		    (size_t)(end - 1 - k) == n && strncmp(k, key, n) == 0;

		p = ws(end);
		if (*p != ':')
			return NULL;
		p = ws(p + 1);
		if (hit)
			return p;
		p = ws(mjson_skip(p));
		if (*p != ',')
			return NULL;
		p = ws(p + 1);
	}
	return NULL;
}

const char *mjson_member(const char *p, const char *key)
{
	return p != NULL ? member(p, key, strlen(key)) : NULL;
}

const char *mjson_member_at(const char *p, int i, char *key, size_t kn)
{
	p = ws(p);
	if (*p != '{')
		return NULL;
	p = ws(p + 1);
	while (*p == '"') {
		const char *k = p;

		p = ws(skip_string(p));
		if (*p != ':')
			return NULL;
		p = ws(p + 1);
		if (i-- == 0) {
			mjson_text(k, key, kn);
			return p;
		}
		p = ws(mjson_skip(p));
		if (*p != ',')
			return NULL;
		p = ws(p + 1);
	}
	return NULL;
}

static const char *element(const char *p, long i)
{
	p = ws(p);
	if (*p != '[')
		return NULL;
	p = ws(p + 1);
	if (*p == ']')
		return NULL;
	while (i-- > 0) {
		p = ws(mjson_skip(p));
		if (*p != ',')
			return NULL;
		p = ws(p + 1);
	}
	return p;
}

const char *mjson_get(const char *json, const char *path)
{
	const char *p = json;

	while (p && *path) {
		size_t n = strcspn(path, ".");
		char *end;
		long i = strtol(path, &end, 10);

		if (end == path + n && n > 0)
			p = element(p, i);
		else
			p = member(p, path, n);
		path += n;
		if (*path == '.')
			path++;
	}
	return p;
}

bool mjson_text(const char *p, char *out, size_t n)
{
	size_t k = 0;

	if (n == 0)
		return false;
	out[0] = '\0';
	if (p == NULL)
		return false;
	p = ws(p);
	if (strncmp(p, "null", 4) == 0)
		return false;
	if (*p == '"') {
		for (p++; *p && *p != '"' && k + 1 < n; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				out[k++] = *p == 'n'   ? ' '
					   : *p == 't' ? ' '
						       : *p;
			} else {
				out[k++] = *p;
			}
		}
	} else {
		const char *end = mjson_skip(p);
		while (p < end && k + 1 < n)
			out[k++] = *p++;
	}
	out[k] = '\0';
	return true;
}

double mjson_num(const char *p, double dflt)
{
	char *end;
	double v;

	if (p == NULL)
		return dflt;
	p = ws(p);
	v = strtod(p, &end);
	return end == p ? dflt : v;
}
