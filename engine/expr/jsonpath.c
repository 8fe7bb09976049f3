/*
 * jsonpath: get_json_object's path walker over JSON text.
 *
 * No tree is built: the walker skips over the values it does not need and
 * copies out the one the path names, so a lookup costs one pass over the
 * prefix of the text.  Paths are Spark's subset of JSONPath: $, .name,
 * ['name'], [index].  Wildcards ([*]) are not supported (NULL, as an
 * invalid path is in Spark).  Malformed text gives NULL, never an error.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "expr/func.h"

struct jp {
	const char *p, *e;
};

static void ws(struct jp *j)
{
	while (j->p < j->e && isspace((unsigned char)*j->p))
		j->p++;
}

/* Skip a string starting at the opening quote. */
static bool skip_string(struct jp *j)
{
	if (j->p >= j->e || *j->p != '"')
		return false;
	for (j->p++; j->p < j->e; j->p++) {
		if (*j->p == '\\') {
			j->p++;
			continue;
		}
		if (*j->p == '"') {
			j->p++;
			return true;
		}
	}
	return false;
}

static bool skip_value(struct jp *j, int depth)
{
	ws(j);
	if (j->p >= j->e || depth > 200)
		return false;
	if (*j->p == '"')
		return skip_string(j);
	if (*j->p == '{' || *j->p == '[') {
		char close = *j->p == '{' ? '}' : ']';
		j->p++;
		ws(j);
		if (j->p < j->e && *j->p == close) {
			j->p++;
			return true;
		}
		for (;;) {
			if (close == '}') {
				ws(j);
				if (!skip_string(j))
					return false;
				ws(j);
				if (j->p >= j->e || *j->p++ != ':')
					return false;
			}
			if (!skip_value(j, depth + 1))
				return false;
			ws(j);
			if (j->p >= j->e)
				return false;
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != close)
				return false;
			return true;
		}
	}
	/* number, true, false, null */
	if (!(isalnum((unsigned char)*j->p) || *j->p == '-'))
		return false;
	while (j->p < j->e && (isalnum((unsigned char)*j->p) || *j->p == '-' ||
			       *j->p == '+' || *j->p == '.'))
		j->p++;
	return true;
}

static void put_utf8(sl_buf *out, unsigned cp)
{
	if (cp < 0x80) {
		sl_buf_addc(out, (char)cp);
	} else if (cp < 0x800) {
		sl_buf_addc(out, (char)(0xC0 | (cp >> 6)));
		sl_buf_addc(out, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		sl_buf_addc(out, (char)(0xE0 | (cp >> 12)));
		sl_buf_addc(out, (char)(0x80 | ((cp >> 6) & 0x3F)));
		sl_buf_addc(out, (char)(0x80 | (cp & 0x3F)));
	} else {
		sl_buf_addc(out, (char)(0xF0 | (cp >> 18)));
		sl_buf_addc(out, (char)(0x80 | ((cp >> 12) & 0x3F)));
		sl_buf_addc(out, (char)(0x80 | ((cp >> 6) & 0x3F)));
		sl_buf_addc(out, (char)(0x80 | (cp & 0x3F)));
	}
}

static unsigned hex4(const char *p)
{
	unsigned v = 0;
	int k;
	for (k = 0; k < 4; k++) {
		char c = p[k];
		v = v * 16 +
		    (unsigned)(isdigit((unsigned char)c)
				   ? c - '0'
				   : (tolower((unsigned char)c) - 'a' + 10));
	}
	return v;
}

/* Decode the string at j->p (quote included) into out. */
static bool read_string(struct jp *j, sl_buf *out)
{
	const char *s = j->p;
	if (!skip_string(j))
		return false;
	for (s++; s < j->p - 1; s++) {
		if (*s != '\\') {
			sl_buf_addc(out, *s);
			continue;
		}
		s++;
		switch (*s) {
		case 'n': sl_buf_addc(out, '\n'); break;
		case 't': sl_buf_addc(out, '\t'); break;
		case 'r': sl_buf_addc(out, '\r'); break;
		case 'b': sl_buf_addc(out, '\b'); break;
		case 'f': sl_buf_addc(out, '\f'); break;
		case 'u': {
			unsigned cp;
			if (j->p - 1 - s < 5)
				return false;
			cp = hex4(s + 1);
			s += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && j->p - 1 - s >= 7 &&
			    s[1] == '\\' && s[2] == 'u') {
				unsigned lo = hex4(s + 3);
				cp = 0x10000 + ((cp - 0xD800) << 10) +
				     (lo - 0xDC00);
				s += 6;
			}
			put_utf8(out, cp);
			break;
		}
		default: sl_buf_addc(out, *s);
		}
	}
	return true;
}

/* Copy a value without the whitespace outside strings (Spark prints
 * objects and arrays compactly). */
static void copy_compact(const char *p, const char *e, sl_buf *out)
{
	bool in = false;
	for (; p < e; p++) {
		if (in) {
			sl_buf_addc(out, *p);
			if (*p == '\\' && p + 1 < e)
				sl_buf_addc(out, *++p);
			else if (*p == '"')
				in = false;
		} else if (!isspace((unsigned char)*p)) {
			sl_buf_addc(out, *p);
			in = *p == '"';
		}
	}
}

/* Move j to the value of member `name` of the object at j. */
static bool find_member(struct jp *j, const char *name, size_t nlen)
{
	sl_buf key;
	bool found = false;
	ws(j);
	if (j->p >= j->e || *j->p != '{')
		return false;
	j->p++;
	sl_buf_init(&key);
	for (;;) {
		ws(j);
		if (j->p < j->e && *j->p == '}')
			break;
		sl_buf_clear(&key);
		if (!read_string(j, &key))
			break;
		ws(j);
		if (j->p >= j->e || *j->p++ != ':')
			break;
		if (key.len == nlen &&
		    memcmp(sl_buf_cstr(&key), name, nlen) == 0) {
			ws(j);
			found = true;
			break;
		}
		if (!skip_value(j, 0))
			break;
		ws(j);
		if (j->p < j->e && *j->p == ',') {
			j->p++;
			continue;
		}
		break;
	}
	sl_buf_release(&key);
	return found;
}

static bool find_index(struct jp *j, long k)
{
	ws(j);
	if (j->p >= j->e || *j->p != '[')
		return false;
	j->p++;
	for (;;) {
		ws(j);
		if (j->p < j->e && *j->p == ']')
			return false;
		if (k-- == 0)
			return true;
		if (!skip_value(j, 0))
			return false;
		ws(j);
		if (j->p >= j->e || *j->p != ',')
			return false;
		j->p++;
	}
}

/* One path step at *ps: .name, ['name'] or [n]. */
static bool step(struct jp *j, const char **ps)
{
	const char *s = *ps, *q;
	if (*s == '.') {
		for (q = ++s; *q && *q != '.' && *q != '['; q++)
			;
		if (q == s)
			return false;
		*ps = q;
		return find_member(j, s, (size_t)(q - s));
	}
	if (*s == '[' && s[1] == '\'') {
		q = strchr(s + 2, '\'');
		if (q == NULL || q[1] != ']')
			return false;
		*ps = q + 2;
		return find_member(j, s + 2, (size_t)(q - s - 2));
	}
	if (*s == '[' && isdigit((unsigned char)s[1])) {
		char *end;
		long k = strtol(s + 1, &end, 10);
		if (*end != ']')
			return false;
		*ps = end + 1;
		return find_index(j, k);
	}
	return false;
}

bool sl_jsonpath_get(const char *json, size_t n, const char *path, sl_buf *out)
{
	struct jp j = { json, json + n };
	const char *ps = path, *start;
	if (*ps++ != '$')
		return false;
	while (*ps != '\0')
		if (!step(&j, &ps))
			return false;
	ws(&j);
	if (j.p >= j.e)
		return false;
	if (*j.p == '"')
		return read_string(&j, out);
	start = j.p;
	if (!skip_value(&j, 0))
		return false;
	if (j.p - start == 4 && memcmp(start, "null", 4) == 0)
		return false;
	copy_compact(start, j.p, out);
	return true;
}
