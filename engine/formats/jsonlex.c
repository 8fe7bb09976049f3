/*
 * jsonlex: the JSON lexer shared by the reader, from_json and schema
 * inference (see json_int.h): Jackson's grammar as Spark configures it
 * (single-quoted strings, NaN/Infinity number tokens; no comments, no
 * unquoted names, no leading zeros, no raw control characters inside
 * strings).  Strings without escapes are pointers into the text; strings
 * with escapes are decoded (a lone surrogate becomes '?', as Java's UTF-8
 * encoder writes it).  Errors are recorded in the jp, never printed.
 */
#include "formats/json_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

const uint8_t sl_jsonlex_str_stop[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1,         1,          1,          1,
	1, 1, 1, 1, 1, 1, 1, 1, 1,         1,          1,          1,
	1, 1, 1, 1, 1, 1, 1, 1, ['"'] = 1, ['\''] = 1, ['\\'] = 1,
};

/* ---- errors ---- */

int sl_jsonlex_syn(jp *j, const char *what)
{
	if (j->why[0] == '\0') {
		if (j->p >= j->end || what == NULL)
			snprintf(j->why, sizeof j->why,
				 "unexpected end of input");
		else
			snprintf(j->why, sizeof j->why, "%s at byte %d", what,
				 (int)(j->p - j->line) + 1);
	}
	return -1;
}

int sl_jsonlex_syn_char(jp *j)
{
	char what[40];
	unsigned char c;
	if (j->p >= j->end)
		return sl_jsonlex_syn(j, NULL);
	c = (unsigned char)*j->p;
	if (c >= 0x20 && c < 0x7f)
		snprintf(what, sizeof what, "unexpected character '%c'", c);
	else
		snprintf(what, sizeof what, "unexpected byte 0x%02x", c);
	return sl_jsonlex_syn(j, what);
}

const char *sl_jsonlex_token_name(char c)
{
	switch (c) {
	case '"':
	case '\'': return "string";
	case '{': return "object";
	case '[': return "array";
	case 't':
	case 'f': return "boolean";
	default: return "number";
	}
}

/* ---- scanning ---- */

int sl_jsonlex_lit(jp *j, const char *w, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0) {
		size_t k = 0;
		while (j->p + k < j->end && k < n && j->p[k] == w[k])
			k++;
		j->p += k;
		return j->p >= j->end ? sl_jsonlex_syn(j, NULL)
				      : sl_jsonlex_syn_char(j);
	}
	j->p += n;
	return 0;
}

static int hex4(jp *j, const char *p, unsigned *out)
{
	int k, v;
	unsigned u = 0;
	if (j->end - p < 4) {
		j->p = j->end;
		return sl_jsonlex_syn(j, NULL);
	}
	for (k = 0; k < 4; k++) {
		v = sl_hex_digit(p[k]);
		if (v < 0) {
			j->p = p + k;
			return sl_jsonlex_syn(j, "invalid \\u escape");
		}
		u = u << 4 | (unsigned)v;
	}
	*out = u;
	return 0;
}

static void put_utf8(sl_buf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sl_buf_add(b, u, n);
}

/* One escape at p (after the backslash); returns the byte after it, or
 * NULL on error.  Decodes into b when b is not NULL.  A lone surrogate
 * becomes '?', as Java's UTF-8 encoder writes it. */
static const char *unescape(jp *j, const char *p, sl_buf *b)
{
	unsigned u, lo;
	char c;
	if (p >= j->end) {
		j->p = p;
		sl_jsonlex_syn(j, NULL);
		return NULL;
	}
	switch (*p) {
	case '"': c = '"'; break;
	case '\'': c = '\''; break;
	case '\\': c = '\\'; break;
	case '/': c = '/'; break;
	case 'b': c = '\b'; break;
	case 'f': c = '\f'; break;
	case 'n': c = '\n'; break;
	case 'r': c = '\r'; break;
	case 't': c = '\t'; break;
	case 'u':
		if (hex4(j, p + 1, &u))
			return NULL;
		p += 5;
		if (u >= 0xd800 && u < 0xdc00 && j->end - p >= 6 &&
		    p[0] == '\\' && p[1] == 'u' && hex4(j, p + 2, &lo) == 0 &&
		    lo >= 0xdc00 && lo < 0xe000) {
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			p += 6;
		} else if (u >= 0xd800 && u < 0xe000) {
			j->why[0] = '\0'; /* hex4 above may have complained */
			u = '?';
		}
		if (b != NULL)
			put_utf8(b, u);
		return p;
	default:
		j->p = p - 1;
		sl_jsonlex_syn(j, "invalid escape");
		return NULL;
	}
	if (b != NULL)
		sl_buf_addc(b, c);
	return p + 1;
}

/* The rest of a string with escapes: decode from s, where p is the first
 * backslash, into the arena. */
int sl_jsonlex_str_slow(jp *j, const char *s, const char *p, char q,
			sl_str *out, bool keep)
{
	sl_buf *b = &j->tmp;
	const char *e = j->end;
	sl_buf_clear(b);
	sl_buf_add(b, s, (size_t)(p - s));
	for (;;) {
		const char *r = p;
		while (p < e && !sl_jsonlex_str_stop[(uint8_t)*p])
			p++;
		sl_buf_add(b, r, (size_t)(p - r));
		if (p >= e) {
			j->p = p;
			return sl_jsonlex_syn(j, NULL);
		}
		if (*p == q)
			break;
		if (*p == '\\') {
			p = unescape(j, p + 1, b);
			if (p == NULL)
				return -1;
		} else if ((uint8_t)*p < 0x20) {
			j->p = p;
			return sl_jsonlex_syn(j, "control character in string");
		} else {
			sl_buf_addc(b, *p++);
		}
	}
	j->p = p + 1;
	if (sl_buf_failed(b)) {
		j->oom = true;
		return -1;
	}
	if (keep) {
		char *d = sl_arena_dup(j->arena, b->p ? b->p : "", b->len);
		if (d == NULL) {
			j->oom = true;
			return -1;
		}
		out->p = d;
	} else {
		out->p = b->p ? b->p : "";
	}
	out->len = (uint32_t)b->len;
	return 0;
}

static int scan_special(jp *j, jnum *o)
{
	static const struct {
		const char *w;
		double v;
	} sp[] = { { "NaN", NAN },
		   { "Infinity", INFINITY },
		   { "-Infinity", -INFINITY },
		   { "+Infinity", INFINITY } };
	size_t k;
	for (k = 0; k < sizeof sp / sizeof sp[0]; k++) {
		size_t n = strlen(sp[k].w);
		if ((size_t)(j->end - j->p) >= n &&
		    memcmp(j->p, sp[k].w, n) == 0) {
			o->s = j->p;
			o->n = n;
			o->special = true;
			o->frac = true;
			o->d = sp[k].v;
			j->p += n;
			return 0;
		}
	}
	return sl_jsonlex_syn_char(j);
}

/* A number at j->p, validated against JSON's grammar. */
int sl_jsonlex_num(jp *j, jnum *o)
{
	const char *p = j->p, *e = j->end;
	uint64_t v = 0;
	int nd = 0;
	bool neg = false;
	o->s = p;
	o->frac = o->big = o->special = false;
	if (p < e && *p == '-') {
		neg = true;
		p++;
	}
	if (p < e && (*p == 'I' || *p == 'N' || *p == '+'))
		return scan_special(j, o);
	if (p >= e) {
		j->p = p;
		return sl_jsonlex_syn(j, NULL);
	}
	if (*p == '0') {
		p++;
		if (p < e && sl_jsonlex_isdig(*p)) {
			j->p = p;
			return sl_jsonlex_syn(j, "leading zero in number");
		}
	} else if (sl_jsonlex_isdig(*p)) {
		while (p < e && sl_jsonlex_isdig(*p)) {
			if (nd < 19)
				v = v * 10 + (uint64_t)(*p - '0');
			nd++;
			p++;
		}
	} else {
		j->p = p;
		return sl_jsonlex_syn(j, "expected digit");
	}
	if (p < e && *p == '.') {
		o->frac = true;
		if (++p >= e || !sl_jsonlex_isdig(*p)) {
			j->p = p;
			return sl_jsonlex_syn(j, "expected digit");
		}
		while (p < e && sl_jsonlex_isdig(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		o->frac = true;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || !sl_jsonlex_isdig(*p)) {
			j->p = p;
			return sl_jsonlex_syn(j, "expected digit");
		}
		while (p < e && sl_jsonlex_isdig(*p))
			p++;
	}
	if (!o->frac) {
		if (nd > 19 || (neg ? v > (uint64_t)INT64_MAX + 1
				    : v > (uint64_t)INT64_MAX))
			o->big = true;
		else
			o->i = neg ? (int64_t)(0 - v) : (int64_t)v;
	}
	o->n = (size_t)(p - o->s);
	j->p = p;
	return 0;
}

/* Clinger's fast path when exact; strtod otherwise. */
double sl_jsonlex_num_double(const jnum *o)
{
	static const double p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
				      1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				      1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
				      1e18, 1e19, 1e20, 1e21, 1e22 };
	const char *p = o->s, *e = o->s + o->n;
	uint64_t m = 0;
	int nd = 0, ex = 0, x = 0;
	bool neg = false, eneg = false;
	char tmp[64];
	if (o->special)
		return o->d;
	if (!o->frac && !o->big)
		return (double)o->i;
	if (*p == '-') {
		neg = true;
		p++;
	}
	for (; p < e && (sl_jsonlex_isdig(*p) || *p == '.'); p++) {
		if (*p == '.') {
			for (p++; p < e && sl_jsonlex_isdig(*p);
			     p++, nd++, ex--)
				if (nd < 19)
					m = m * 10 + (uint64_t)(*p - '0');
				else
					goto slow;
			break;
		}
		if (nd >= 19)
			goto slow;
		m = m * 10 + (uint64_t)(*p - '0');
		if (m != 0)
			nd++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		for (; p < e; p++) {
			x = x * 10 + (*p - '0');
			if (x > 400)
				goto slow;
		}
		ex += eneg ? -x : x;
	}
	if (m <= (UINT64_C(1) << 53) && ex >= -22 && ex <= 22) {
		double d = (double)m;
		d = ex < 0 ? d / p10[-ex] : d * p10[ex];
		return neg ? -d : d;
	}
slow:
	if (o->n >= sizeof tmp) {
		char *big = malloc(o->n + 1);
		double d;
		if (big == NULL)
			return NAN;
		memcpy(big, o->s, o->n);
		big[o->n] = '\0';
		d = sl_format_strtod(big, NULL);
		free(big);
		return d;
	}
	memcpy(tmp, o->s, o->n);
	tmp[o->n] = '\0';
	return sl_format_strtod(tmp, NULL);
}

static int skip_container(jp *j, char close)
{
	sl_str key;
	if (++j->depth > JSON_MAX_DEPTH)
		return sl_jsonlex_syn(j, "nesting too deep");
	j->p++;
	sl_jsonlex_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		sl_jsonlex_ws(j);
		if (close == '}') {
			if (j->p >= j->end || (*j->p != '"' && *j->p != '\''))
				return sl_jsonlex_syn(j, "expected field name");
			if (sl_jsonlex_str(j, &key, false))
				return -1;
			sl_jsonlex_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return sl_jsonlex_syn(j, "expected ':'");
			j->p++;
		}
		if (sl_jsonlex_skip(j))
			return -1;
		sl_jsonlex_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		return sl_jsonlex_syn(j, close == '}' ? "expected ',' or '}'"
						      : "expected ',' or ']'");
	}
}

/* Skip one value, checking its syntax. */
int sl_jsonlex_skip(jp *j)
{
	sl_str s;
	jnum num;
	sl_jsonlex_ws(j);
	if (j->p >= j->end)
		return sl_jsonlex_syn(j, NULL);
	switch (*j->p) {
	case '{': return skip_container(j, '}');
	case '[': return skip_container(j, ']');
	case '"':
	case '\'': return sl_jsonlex_str(j, &s, false);
	case 't': return sl_jsonlex_lit(j, "true", 4);
	case 'f': return sl_jsonlex_lit(j, "false", 5);
	case 'n': return sl_jsonlex_lit(j, "null", 4);
	default:
		if (*j->p == '-' || *j->p == 'N' || *j->p == 'I' ||
		    *j->p == '+' || sl_jsonlex_isdig(*j->p))
			return sl_jsonlex_num(j, &num);
		return sl_jsonlex_syn_char(j);
	}
}

void sl_jsonlex_init(jp *j, sl_arena *arena)
{
	memset(j, 0, sizeof *j);
	j->arena = arena;
	sl_buf_init(&j->tmp);
}

bool sl_jsonlex_blank(const char *p, const char *e)
{
	for (; p < e; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			return false;
	return true;
}
