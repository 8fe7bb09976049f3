/*
 * json: Spark's JSON-lines data source (multiLine=false), from_json, JSON
 * schema inference and the JSON-lines writer.
 *
 * The reader is schema-driven: the schema is compiled once into a tree of
 * nodes (one per column, struct field and array element) and each line is
 * parsed straight into the typed column arrays; there is no DOM and no
 * per-row allocation.  Field names map to columns through a small
 * open-addressing table keyed by (length, first and last byte).  The file's
 * bytes live in one arena that the string columns share, so a string
 * without escapes is stored as a pointer into the file (zero copy); only
 * strings with escapes are decoded, into the same arena.  String values are
 * therefore not NUL-terminated: use sl_str.len.
 *
 * Spark behaviour mirrored (JacksonParser, FailureSafeParser, Spark 3.5):
 *  - a line is one record; blank lines are skipped; text after the closing
 *    '}' of the record is ignored, as Jackson stops after the first value;
 *  - field names match exactly (case-sensitive); unknown fields are skipped
 *    (still syntax-checked); a duplicate key: the last one wins;
 *  - Jackson options Spark enables by default: single-quoted strings,
 *    NaN/Infinity/-Infinity number tokens; not enabled: comments, unquoted
 *    names, leading zeros, raw control characters inside strings;
 *  - a syntax error makes the whole row NULL (PERMISSIVE); a value of the
 *    wrong type makes only its top-level field NULL and keeps the others
 *    (Spark 3 "partial results"); either way the record is malformed:
 *    _corrupt_record gets the line, DROPMALFORMED drops it, FAILFAST fails
 *    with "json: malformed record at FILE:LINE: REASON" (byte = 1-based
 *    offset in the line);
 *  - a scalar, object or array read into a STRING field keeps its JSON text
 *    (compacted; floats as Java prints doubles), as Jackson's copy does;
 *  - a top-level array of objects is NOT expanded into rows (Spark does):
 *    such a line is malformed here.  UTF-8 is not validated.
 *
 * Never prints.  Errors name the file (or the name the caller gave).
 */
#include "fileformat.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

#define JSON_MAX_DEPTH 512

typedef struct jnode jnode;
struct jnode {
	sl_type *type;    /* borrowed from the schema */
	sl_kind kind;
	const char *name; /* field name, for messages */
	sl_col *col;      /* borrowed: the column being filled */
	int64_t cap;      /* rows allocated in col (col->len while building) */
	int nkids;
	jnode *kids;      /* STRUCT fields, or the ARRAY element */
	int16_t *slots;   /* STRUCT: field lookup table, -1 = empty */
	uint32_t mask;
	uint32_t *flen;   /* STRUCT: field name lengths */
	uint64_t *seen;   /* STRUCT: stamp of the object that last set a field */
	bool root;        /* type errors null the top-level field */
	int skip;         /* root: the corrupt-record field, never matched */
};

typedef struct jp {
	const char *p, *end, *line;
	sl_arena *arena;
	sl_buf tmp;
	uint64_t stamp;
	int nterr; /* type errors in this record */
	int depth;
	bool oom;
	sl_format_tscache tsc;
	char why[200]; /* the first error of the record */
} jp;

/* Bytes that stop the fast string scan: quotes, backslash, controls. */
static const uint8_t str_stop[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\''] = 1, ['\\'] = 1,
};

static const char *kind_name(sl_kind k)
{
	static const char *const names[] = {
		"NULL", "BOOLEAN", "INT", "BIGINT", "DOUBLE", "STRING",
		"BINARY", "TIMESTAMP", "STRUCT", "ARRAY"};
	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* ---- errors ---- */

static int syn(jp *j, const char *what)
{
	if (j->why[0] == '\0') {
		if (j->p >= j->end || what == NULL)
			snprintf(j->why, sizeof j->why, "unexpected end of input");
		else
			snprintf(j->why, sizeof j->why, "%s at byte %d", what,
				 (int)(j->p - j->line) + 1);
	}
	return -1;
}

static int syn_char(jp *j)
{
	char what[40];
	unsigned char c;
	if (j->p >= j->end)
		return syn(j, NULL);
	c = (unsigned char)*j->p;
	if (c >= 0x20 && c < 0x7f)
		snprintf(what, sizeof what, "unexpected character '%c'", c);
	else
		snprintf(what, sizeof what, "unexpected byte 0x%02x", c);
	return syn(j, what);
}

static const char *token_name(char c)
{
	switch (c) {
	case '"':
	case '\'':
		return "string";
	case '{':
		return "object";
	case '[':
		return "array";
	case 't':
	case 'f':
		return "boolean";
	default:
		return "number";
	}
}

/* ---- scanning ---- */

static inline void ws(jp *j)
{
	const char *p = j->p, *e = j->end;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	j->p = p;
}

static int lit(jp *j, const char *w, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0) {
		size_t k = 0;
		while (j->p + k < j->end && k < n && j->p[k] == w[k])
			k++;
		j->p += k;
		return j->p >= j->end ? syn(j, NULL) : syn_char(j);
	}
	j->p += n;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int hex4(jp *j, const char *p, unsigned *out)
{
	int k, v;
	unsigned u = 0;
	if (j->end - p < 4) {
		j->p = j->end;
		return syn(j, NULL);
	}
	for (k = 0; k < 4; k++) {
		v = hexval(p[k]);
		if (v < 0) {
			j->p = p + k;
			return syn(j, "invalid \\u escape");
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
		syn(j, NULL);
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
		syn(j, "invalid escape");
		return NULL;
	}
	if (b != NULL)
		sl_buf_addc(b, c);
	return p + 1;
}

/* The rest of a string with escapes: decode from s, where p is the first
 * backslash, into the arena. */
static int str_slow(jp *j, const char *s, const char *p, char q, sl_str *out,
		    bool keep)
{
	sl_buf *b = &j->tmp;
	const char *e = j->end;
	sl_buf_clear(b);
	sl_buf_add(b, s, (size_t)(p - s));
	for (;;) {
		const char *r = p;
		while (p < e && !str_stop[(uint8_t)*p])
			p++;
		sl_buf_add(b, r, (size_t)(p - r));
		if (p >= e) {
			j->p = p;
			return syn(j, NULL);
		}
		if (*p == q)
			break;
		if (*p == '\\') {
			p = unescape(j, p + 1, b);
			if (p == NULL)
				return -1;
		} else if ((uint8_t)*p < 0x20) {
			j->p = p;
			return syn(j, "control character in string");
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

/* A string at j->p (its opening quote).  keep: the decoded bytes must
 * outlive the next string (else they may sit in j->tmp). */
static inline int parse_str(jp *j, sl_str *out, bool keep)
{
	const char q = *j->p;
	const char *s = j->p + 1, *p = s, *e = j->end;
	for (;;) {
		while (p < e && !str_stop[(uint8_t)*p])
			p++;
		if (p >= e) {
			j->p = p;
			return syn(j, NULL);
		}
		if (*p == q) {
			out->p = s;
			out->len = (uint32_t)(p - s);
			j->p = p + 1;
			return 0;
		}
		if (*p == '\\')
			return str_slow(j, s, p, q, out, keep);
		if ((uint8_t)*p < 0x20) {
			j->p = p;
			return syn(j, "control character in string");
		}
		p++;
	}
}

typedef struct jnum {
	const char *s;
	size_t n;
	bool frac; /* has a fraction or an exponent */
	bool big;  /* integral but outside int64 */
	bool special; /* NaN / Infinity token */
	int64_t i;
	double d;  /* for special */
} jnum;

static int scan_special(jp *j, jnum *o)
{
	static const struct { const char *w; double v; } sp[] = {
		{"NaN", NAN}, {"Infinity", INFINITY}, {"-Infinity", -INFINITY},
		{"+Infinity", INFINITY}};
	size_t k;
	for (k = 0; k < sizeof sp / sizeof sp[0]; k++) {
		size_t n = strlen(sp[k].w);
		if ((size_t)(j->end - j->p) >= n && memcmp(j->p, sp[k].w, n) == 0) {
			o->s = j->p;
			o->n = n;
			o->special = true;
			o->frac = true;
			o->d = sp[k].v;
			j->p += n;
			return 0;
		}
	}
	return syn_char(j);
}

static inline bool isdig(char c)
{
	return (unsigned)(c - '0') < 10;
}

/* A number at j->p, validated against JSON's grammar. */
static int scan_num(jp *j, jnum *o)
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
		return syn(j, NULL);
	}
	if (*p == '0') {
		p++;
		if (p < e && isdig(*p)) {
			j->p = p;
			return syn(j, "leading zero in number");
		}
	} else if (isdig(*p)) {
		while (p < e && isdig(*p)) {
			if (nd < 19)
				v = v * 10 + (uint64_t)(*p - '0');
			nd++;
			p++;
		}
	} else {
		j->p = p;
		return syn(j, "expected digit");
	}
	if (p < e && *p == '.') {
		o->frac = true;
		if (++p >= e || !isdig(*p)) {
			j->p = p;
			return syn(j, "expected digit");
		}
		while (p < e && isdig(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		o->frac = true;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || !isdig(*p)) {
			j->p = p;
			return syn(j, "expected digit");
		}
		while (p < e && isdig(*p))
			p++;
	}
	if (!o->frac) {
		if (nd > 19 || (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX))
			o->big = true;
		else
			o->i = neg ? (int64_t)(0 - v) : (int64_t)v;
	}
	o->n = (size_t)(p - o->s);
	j->p = p;
	return 0;
}

/* Clinger's fast path when exact; strtod otherwise. */
static double num_double(const jnum *o)
{
	static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
		1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
		1e19, 1e20, 1e21, 1e22};
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
	for (; p < e && (isdig(*p) || *p == '.'); p++) {
		if (*p == '.') {
			for (p++; p < e && isdig(*p); p++, nd++, ex--)
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

static int skip_value(jp *j);

static int skip_container(jp *j, char close)
{
	sl_str key;
	if (++j->depth > JSON_MAX_DEPTH)
		return syn(j, "nesting too deep");
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		ws(j);
		if (close == '}') {
			if (j->p >= j->end || (*j->p != '"' && *j->p != '\''))
				return syn(j, "expected field name");
			if (parse_str(j, &key, false))
				return -1;
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return syn(j, "expected ':'");
			j->p++;
		}
		if (skip_value(j))
			return -1;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		return syn(j, close == '}' ? "expected ',' or '}'"
					   : "expected ',' or ']'");
	}
}

/* Skip one value, checking its syntax. */
static int skip_value(jp *j)
{
	sl_str s;
	jnum num;
	ws(j);
	if (j->p >= j->end)
		return syn(j, NULL);
	switch (*j->p) {
	case '{':
		return skip_container(j, '}');
	case '[':
		return skip_container(j, ']');
	case '"':
	case '\'':
		return parse_str(j, &s, false);
	case 't':
		return lit(j, "true", 4);
	case 'f':
		return lit(j, "false", 5);
	case 'n':
		return lit(j, "null", 4);
	default:
		if (*j->p == '-' || *j->p == 'N' || *j->p == 'I' || *j->p == '+' ||
		    isdig(*j->p))
			return scan_num(j, &num);
		return syn_char(j);
	}
}

/* ---- building columns ---- */

static inline void unnull(sl_col *c, int64_t i)
{
	if (c->nulls != NULL)
		c->nulls[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

/* Row i of nd is NULL, its struct fields too. */
static int set_null_deep(jp *j, jnode *nd, int64_t i)
{
	int k;
	if (sl_col_set_null(nd->col, i) != 0) {
		j->oom = true;
		return -1;
	}
	if (nd->kind == SL_STRUCT)
		for (k = 0; k < nd->nkids; k++)
			if (set_null_deep(j, &nd->kids[k], i))
				return -1;
	return 0;
}

/* Make room for `need` rows in an element column (arrays grow). */
static int node_grow(jnode *nd, int64_t need)
{
	sl_col *c = nd->col;
	int64_t cap = nd->cap * 2, k;
	size_t w = (size_t)sl_type_width(nd->type);
	if (cap < 16)
		cap = 16;
	if (cap < need)
		cap = need;
	if (w > 0) {
		char *d = realloc(c->data, (size_t)cap * w);
		if (d == NULL)
			return SL_ENOMEM;
		memset(d + (size_t)nd->cap * w, 0, (size_t)(cap - nd->cap) * w);
		c->data = d;
	}
	if (c->nulls != NULL) {
		size_t ob = (size_t)((nd->cap + 7) >> 3) + 1;
		size_t nb = (size_t)((cap + 7) >> 3) + 1;
		uint8_t *b = realloc(c->nulls, nb);
		if (b == NULL)
			return SL_ENOMEM;
		memset(b + ob, nd->kind == SL_NULLTYPE ? 0xff : 0, nb - ob);
		c->nulls = b;
	}
	if (nd->kind == SL_ARRAY) {
		int32_t *o = realloc(c->offsets, ((size_t)cap + 1) * sizeof *o);
		if (o == NULL)
			return SL_ENOMEM;
		for (k = nd->cap + 1; k <= cap; k++)
			o[k] = 0;
		c->offsets = o;
	}
	if (nd->kind == SL_STRUCT)
		for (int f = 0; f < nd->nkids; f++)
			if (node_grow(&nd->kids[f], cap))
				return SL_ENOMEM;
	nd->cap = cap;
	c->len = cap;
	return 0;
}

/* Set the final row counts after building. */
static void node_finish(jnode *nd, int64_t n)
{
	nd->col->len = n;
	if (nd->kind == SL_ARRAY)
		node_finish(&nd->kids[0], nd->col->offsets[n]);
	else if (nd->kind == SL_STRUCT)
		for (int k = 0; k < nd->nkids; k++)
			node_finish(&nd->kids[k], n);
}

static uint32_t fhash(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	return (uint32_t)n * 0x9e37u + (uint8_t)s[0] * 31u + (uint8_t)s[n - 1];
}

static inline int field_find(const jnode *nd, const char *s, size_t n)
{
	uint32_t h = fhash(s, n) & nd->mask;
	int f;
	while ((f = nd->slots[h]) >= 0) {
		if (nd->flen[f] == n) {
			/* names are short: a byte loop beats a memcmp call */
			const char *fn = nd->type->fields[f].name;
			size_t k = 0;
			while (k < n && fn[k] == s[k])
				k++;
			if (k == n)
				return f;
		}
		h = (h + 1) & nd->mask;
	}
	return -1;
}

static void node_release(jnode *nd)
{
	for (int k = 0; k < nd->nkids; k++)
		node_release(&nd->kids[k]);
	free(nd->kids);
	free(nd->slots);
	free(nd->flen);
	free(nd->seen);
	memset(nd, 0, sizeof *nd);
}

static int node_init(jnode *nd, sl_type *t, const char *name, sl_col *col,
		     sl_arena *arena, int skip);

static int struct_init(jnode *nd, sl_col *const *cols, sl_arena *arena)
{
	sl_type *t = nd->type;
	uint32_t size = 8;
	int k;
	while (size < 2u * (uint32_t)t->nfields)
		size <<= 1;
	nd->nkids = t->nfields;
	nd->kids = calloc((size_t)(t->nfields ? t->nfields : 1), sizeof *nd->kids);
	nd->slots = malloc(size * sizeof *nd->slots);
	nd->flen = calloc((size_t)(t->nfields ? t->nfields : 1), sizeof *nd->flen);
	nd->seen = calloc((size_t)(t->nfields ? t->nfields : 1), sizeof *nd->seen);
	if (!nd->kids || !nd->slots || !nd->flen || !nd->seen || t->nfields > 30000)
		return SL_ENOMEM;
	nd->mask = size - 1;
	memset(nd->slots, 0xff, size * sizeof *nd->slots);
	for (k = 0; k < t->nfields; k++) {
		const char *fn = t->fields[k].name;
		uint32_t h;
		if (node_init(&nd->kids[k], t->fields[k].type, fn, cols[k], arena, -1))
			return SL_ENOMEM;
		nd->flen[k] = (uint32_t)strlen(fn);
		if (k == nd->skip)
			continue;
		h = fhash(fn, nd->flen[k]) & nd->mask;
		while (nd->slots[h] >= 0)
			h = (h + 1) & nd->mask;
		nd->slots[h] = (int16_t)k;
	}
	return 0;
}

/* Compile type t over column col (borrowed; NULL for the reader's root,
 * whose fields are the batch columns passed through cols). */
static int node_init(jnode *nd, sl_type *t, const char *name, sl_col *col,
		     sl_arena *arena, int skip)
{
	memset(nd, 0, sizeof *nd);
	nd->type = t;
	nd->kind = t->kind;
	nd->name = name;
	nd->col = col;
	nd->cap = col != NULL ? col->len : 0;
	nd->skip = skip;
	if ((t->kind == SL_STRING || t->kind == SL_BINARY) && col != NULL &&
	    col->arena == NULL)
		col->arena = sl_arena_ref(arena);
	if (t->kind == SL_STRUCT && col != NULL)
		return struct_init(nd, col->child, arena);
	if (t->kind == SL_ARRAY) {
		nd->nkids = 1;
		nd->kids = calloc(1, sizeof *nd->kids);
		if (nd->kids == NULL)
			return SL_ENOMEM;
		return node_init(&nd->kids[0], t->elem, name, col->child[0], arena, -1);
	}
	return 0;
}

/* ---- typed values ---- */

static int type_err(jp *j, const jnode *nd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int type_err(jp *j, const jnode *nd, const char *fmt, ...)
{
	char what[120];
	va_list ap;
	if (j->why[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		snprintf(j->why, sizeof j->why, "field '%s': %s", nd->name, what);
	}
	j->nterr++;
	return 0;
}

static int wrong_token(jp *j, const jnode *nd)
{
	type_err(j, nd, "expected %s, got %s", kind_name(nd->kind),
		 token_name(*j->p));
	return skip_value(j);
}

/* Remove insignificant whitespace from JSON text (Jackson's copy of a
 * structure is compact). */
static int compact_text(jp *j, const char *s, size_t n, sl_str *out)
{
	const char *p = s, *e = s + n;
	char *d, *o, q = 0;
	for (; p < e; p++)
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			break;
	if (p == e) {
		out->p = s;
		out->len = (uint32_t)n;
		return 0;
	}
	d = sl_arena_alloc(j->arena, n);
	if (d == NULL) {
		j->oom = true;
		return -1;
	}
	for (o = d, p = s; p < e; p++) {
		if (q) {
			if (*p == '\\' && p + 1 < e)
				*o++ = *p++;
			else if (*p == q)
				q = 0;
		} else if (*p == '"' || *p == '\'') {
			q = *p;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			continue;
		}
		*o++ = *p;
	}
	out->p = d;
	out->len = (uint32_t)(o - d);
	return 0;
}

static int put_string(jp *j, jnode *nd, int64_t i)
{
	sl_str *dst = &sl_col_str(nd->col)[i];
	const char *s = j->p;
	char c = *s;
	if (c == '"' || c == '\'') {
		if (parse_str(j, dst, true))
			return -1;
	} else if (c == '-' || isdig(c) || c == 'N' || c == 'I' || c == '+') {
		jnum num;
		if (scan_num(j, &num))
			return -1;
		if (num.frac && !num.special) {
			char *d;
			sl_buf_clear(&j->tmp);
			sl_fmt_double(num_double(&num), &j->tmp);
			d = sl_arena_dup(j->arena, sl_buf_cstr(&j->tmp), j->tmp.len);
			if (d == NULL) {
				j->oom = true;
				return -1;
			}
			dst->p = d;
			dst->len = (uint32_t)j->tmp.len;
		} else {
			dst->p = num.s;
			dst->len = (uint32_t)num.n;
		}
	} else {
		if (skip_value(j))
			return -1;
		if (compact_text(j, s, (size_t)(j->p - s), dst))
			return -1;
	}
	unnull(nd->col, i);
	return 0;
}

static int put_int(jp *j, jnode *nd, int64_t i)
{
	jnum num;
	char *txt;
	char c = *j->p;
	if (c != '-' && !isdig(c))
		return wrong_token(j, nd);
	if (scan_num(j, &num))
		return -1;
	if (num.frac || num.big ||
	    (nd->kind == SL_INT && (num.i < INT32_MIN || num.i > INT32_MAX)) ||
	    (nd->kind == SL_TIMESTAMP &&
	     (num.i > INT64_MAX / SL_US_PER_SEC || num.i < INT64_MIN / SL_US_PER_SEC))) {
		txt = strndup(num.s, num.n > 40 ? 40 : num.n);
		type_err(j, nd,
			 num.frac ? "expected integral number, got '%s'"
				  : "number '%s' out of range",
			 txt ? txt : "?");
		free(txt);
		return 0;
	}
	if (nd->kind == SL_INT)
		sl_col_i32(nd->col)[i] = (int32_t)num.i;
	else if (nd->kind == SL_TIMESTAMP)
		sl_col_i64(nd->col)[i] = num.i * SL_US_PER_SEC;
	else
		sl_col_i64(nd->col)[i] = num.i;
	unnull(nd->col, i);
	return 0;
}

static int put_double(jp *j, jnode *nd, int64_t i)
{
	jnum num;
	char c = *j->p;
	if (c == '"' || c == '\'') {
		sl_str s;
		double d;
		if (parse_str(j, &s, false))
			return -1;
		if (s.len == 3 && memcmp(s.p, "NaN", 3) == 0)
			d = NAN;
		else if ((s.len == 4 && memcmp(s.p, "+INF", 4) == 0) ||
			 (s.len == 9 && memcmp(s.p, "+Infinity", 9) == 0) ||
			 (s.len == 8 && memcmp(s.p, "Infinity", 8) == 0))
			d = INFINITY;
		else if ((s.len == 4 && memcmp(s.p, "-INF", 4) == 0) ||
			 (s.len == 9 && memcmp(s.p, "-Infinity", 9) == 0))
			d = -INFINITY;
		else
			return type_err(j, nd, "expected DOUBLE, got %s", "string");
		sl_col_f64(nd->col)[i] = d;
		unnull(nd->col, i);
		return 0;
	}
	if (c != '-' && !isdig(c) && c != 'N' && c != 'I' && c != '+')
		return wrong_token(j, nd);
	if (scan_num(j, &num))
		return -1;
	sl_col_f64(nd->col)[i] = num_double(&num);
	unnull(nd->col, i);
	return 0;
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static int put_binary(jp *j, jnode *nd, int64_t i, sl_str s)
{
	char *d = sl_arena_alloc(j->arena, s.len / 4 * 3 + 3);
	uint32_t k, o = 0, acc = 0;
	int bits = 0, v;
	if (d == NULL) {
		j->oom = true;
		return -1;
	}
	for (k = 0; k < s.len && s.p[k] != '='; k++) {
		v = b64val(s.p[k]);
		if (v < 0)
			return type_err(j, nd, "invalid base64 in %s", "string");
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			d[o++] = (char)(acc >> bits);
		}
	}
	sl_col_str(nd->col)[i].p = d;
	sl_col_str(nd->col)[i].len = o;
	unnull(nd->col, i);
	return 0;
}

static int put_strtyped(jp *j, jnode *nd, int64_t i)
{
	sl_str s;
	char shown[48];
	if (*j->p != '"' && *j->p != '\'') {
		if (nd->kind == SL_TIMESTAMP)
			return put_int(j, nd, i);
		return wrong_token(j, nd);
	}
	if (parse_str(j, &s, nd->kind == SL_BINARY))
		return -1;
	if (nd->kind == SL_BINARY)
		return put_binary(j, nd, i, s);
	if (!sl_format_parse_ts(s.p, s.len, &sl_col_i64(nd->col)[i], &j->tsc)) {
		snprintf(shown, sizeof shown, "%.*s", s.len > 40 ? 40 : (int)s.len,
			 s.p);
		return type_err(j, nd, "cannot parse '%s' as TIMESTAMP", shown);
	}
	unnull(nd->col, i);
	return 0;
}

static int parse_value(jp *j, jnode *nd, int64_t i);

static int parse_object(jp *j, jnode *nd, int64_t i)
{
	uint64_t stamp = ++j->stamp;
	sl_str key;
	int k, before;
	if (++j->depth > JSON_MAX_DEPTH)
		return syn(j, "nesting too deep");
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		goto done;
	}
	for (;;) {
		ws(j);
		if (j->p >= j->end || (*j->p != '"' && *j->p != '\''))
			return syn(j, "expected field name");
		if (parse_str(j, &key, false))
			return -1;
		ws(j);
		if (j->p >= j->end || *j->p != ':')
			return syn(j, "expected ':'");
		j->p++;
		ws(j);
		k = field_find(nd, key.p, key.len);
		if (k < 0) {
			if (skip_value(j))
				return -1;
		} else {
			before = j->nterr;
			if (parse_value(j, &nd->kids[k], i))
				return -1;
			if (nd->root && j->nterr != before &&
			    set_null_deep(j, &nd->kids[k], i))
				return -1;
			nd->seen[k] = stamp;
		}
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			break;
		}
		return syn(j, "expected ',' or '}'");
	}
done:
	for (k = 0; k < nd->nkids; k++)
		if (nd->seen[k] != stamp && k != nd->skip &&
		    set_null_deep(j, &nd->kids[k], i))
			return -1;
	if (nd->col != NULL)
		unnull(nd->col, i);
	j->depth--;
	return 0;
}

static int parse_array(jp *j, jnode *nd, int64_t i)
{
	jnode *el = &nd->kids[0];
	int64_t n = nd->col->offsets[i];
	if (++j->depth > JSON_MAX_DEPTH)
		return syn(j, "nesting too deep");
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		goto done;
	}
	for (;;) {
		ws(j);
		if (n >= el->cap && node_grow(el, n + 1)) {
			j->oom = true;
			return -1;
		}
		if (el->kind == SL_ARRAY)
			el->col->offsets[n + 1] = el->col->offsets[n];
		if (parse_value(j, el, n))
			return -1;
		n++;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			break;
		}
		return syn(j, "expected ',' or ']'");
	}
done:
	if (n > INT32_MAX)
		return syn(j, "array too large");
	nd->col->offsets[i + 1] = (int32_t)n;
	unnull(nd->col, i);
	j->depth--;
	return 0;
}

static int parse_value(jp *j, jnode *nd, int64_t i)
{
	char c;
	if (j->p >= j->end)
		return syn(j, NULL);
	c = *j->p;
	if (c == 'n') {
		if (lit(j, "null", 4))
			return -1;
		return set_null_deep(j, nd, i);
	}
	switch (nd->kind) {
	case SL_STRING:
		return put_string(j, nd, i);
	case SL_INT:
	case SL_BIGINT:
		return put_int(j, nd, i);
	case SL_DOUBLE:
		return put_double(j, nd, i);
	case SL_TIMESTAMP:
	case SL_BINARY:
		return put_strtyped(j, nd, i);
	case SL_BOOLEAN:
		if (c == 't' || c == 'f') {
			if (lit(j, c == 't' ? "true" : "false", c == 't' ? 4 : 5))
				return -1;
			sl_col_u8(nd->col)[i] = c == 't';
			unnull(nd->col, i);
			return 0;
		}
		return wrong_token(j, nd);
	case SL_STRUCT:
		return c == '{' ? parse_object(j, nd, i) : wrong_token(j, nd);
	case SL_ARRAY:
		return c == '[' ? parse_array(j, nd, i) : wrong_token(j, nd);
	default: /* NULLTYPE: every value is null */
		return skip_value(j);
	}
}

/* One record: an object, then anything (Jackson stops after it). */
static int parse_record(jp *j, jnode *root, int64_t i)
{
	ws(j);
	if (j->p >= j->end || *j->p != '{')
		return syn(j, "expected '{'");
	return parse_object(j, root, i);
}

static void jp_init(jp *j, sl_arena *arena)
{
	memset(j, 0, sizeof *j);
	j->arena = arena;
	sl_buf_init(&j->tmp);
}

static bool blank(const char *p, const char *e)
{
	for (; p < e; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			return false;
	return true;
}

static int64_t count_lines(const char *p, const char *e)
{
	int64_t n = 1;
	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

typedef struct jread {
	const char *name;
	sl_format_mode mode;
	int corrupt;
	sl_col **cols;
	jnode root;
	jp j;
} jread;

/* A malformed record at row i: what the mode says.  Returns 1 to keep the
 * row, 0 to drop it, or an error. */
static int on_malformed(jread *r, int syntax, int64_t i, int64_t lineno,
			const char *ls, const char *le, sl_err *err)
{
	int k;
	if (r->mode == SL_MODE_FAILFAST)
		return sl_err_set(err, SL_EDATA,
				  "json: malformed record at %s:%lld: %s", r->name,
				  (long long)lineno, r->j.why);
	if (r->mode == SL_MODE_DROPMALFORMED)
		return 0;
	if (syntax)
		for (k = 0; k < r->root.nkids; k++)
			if (set_null_deep(&r->j, &r->root.kids[k], i))
				return sl_err_nomem(err);
	if (r->corrupt >= 0) {
		sl_str *s = &sl_col_str(r->cols[r->corrupt])[i];
		s->p = ls;
		s->len = (uint32_t)(le - ls);
		unnull(r->cols[r->corrupt], i);
	}
	return 1;
}

static int read_lines(jread *r, const char *data, size_t len, int64_t *nrows,
		      sl_err *err)
{
	const char *p = data, *e = data + len, *eol, *le;
	int64_t row = 0, lineno = 0;
	int rc;
	for (; p < e; p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(e - p));
		if (eol == NULL)
			eol = e;
		le = eol;
		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		if (p == le || (*p != '{' && blank(p, le)))
			continue;
		r->j.p = r->j.line = p;
		r->j.end = le;
		r->j.why[0] = '\0';
		r->j.nterr = 0;
		r->j.depth = 0;
		rc = parse_record(&r->j, &r->root, row);
		if (r->j.oom)
			return sl_err_nomem(err);
		if (rc == 0 && r->j.nterr == 0) {
			if (r->corrupt >= 0 &&
			    sl_col_set_null(r->cols[r->corrupt], row) != 0)
				return sl_err_nomem(err);
			row++;
			continue;
		}
		rc = on_malformed(r, rc != 0, row, lineno, p, le, err);
		if (rc < 0)
			return rc;
		row += rc;
	}
	*nrows = row;
	return 0;
}

sl_batch *sl_json_read(const char *name, sl_arena *arena, const char *data,
		       size_t len, sl_type *schema, const sl_options *opts,
		       sl_err *err)
{
	jread r;
	int64_t cap, nrows = 0;
	int k, nf = schema->nfields, rc;
	sl_batch *b = NULL;
	memset(&r, 0, sizeof r);
	r.name = name;
	if (sl_format_mode_get(opts, &r.mode, err))
		return NULL;
	r.corrupt = sl_format_corrupt_index(schema, opts);
	cap = count_lines(data, data + len);
	r.cols = calloc((size_t)(nf ? nf : 1), sizeof *r.cols);
	if (r.cols == NULL)
		goto oom;
	for (k = 0; k < nf; k++)
		if ((r.cols[k] = sl_col_new(schema->fields[k].type, cap)) == NULL)
			goto oom;
	jp_init(&r.j, arena);
	r.root.type = schema;
	r.root.kind = SL_STRUCT;
	r.root.root = true;
	r.root.skip = r.corrupt;
	if (struct_init(&r.root, r.cols, arena))
		goto oom;
	rc = read_lines(&r, data, len, &nrows, err);
	if (rc == 0) {
		for (k = 0; k < nf; k++)
			node_finish(&r.root.kids[k], nrows);
		b = sl_batch_new(schema, nrows, r.cols);
		for (k = 0; k < nf; k++)
			r.cols[k] = NULL;
		if (b == NULL)
			sl_err_nomem(err);
	}
	goto out;
oom:
	sl_err_nomem(err);
out:
	node_release(&r.root);
	sl_buf_release(&r.j.tmp);
	if (r.cols != NULL)
		for (k = 0; k < nf; k++)
			sl_col_free(r.cols[k]);
	free(r.cols);
	return b;
}

/* from_json: texts are copied into one arena the result shares. */
sl_col *sl_json_decode(const sl_str *texts, const uint8_t *nulls, int64_t n,
		       sl_type *schema, sl_err *err)
{
	sl_arena *arena = NULL;
	sl_col *c = NULL;
	jnode root;
	jp j;
	int64_t i;
	memset(&root, 0, sizeof root);
	jp_init(&j, NULL);
	if (schema->kind != SL_STRUCT) {
		sl_err_set(err, SL_EINVAL, "from_json: schema must be a STRUCT");
		return NULL;
	}
	arena = sl_arena_new();
	c = arena ? sl_col_new(schema, n) : NULL;
	if (c == NULL || node_init(&root, schema, "value", c, arena, -1))
		goto oom;
	root.root = true;
	j.arena = arena;
	for (i = 0; i < n; i++) {
		const char *t;
		int rc;
		if ((nulls != NULL && (nulls[i >> 3] >> (i & 7)) & 1) ||
		    texts[i].p == NULL) {
			if (set_null_deep(&j, &root, i))
				goto oom;
			continue;
		}
		t = texts[i].len ? sl_arena_dup(arena, texts[i].p, texts[i].len) : "";
		if (t == NULL)
			goto oom;
		j.p = j.line = t;
		j.end = t + texts[i].len;
		j.depth = 0;
		j.nterr = 0;
		j.why[0] = '\0';
		rc = parse_record(&j, &root, i);
		if (j.oom)
			goto oom;
		/* Spark 3: a malformed text gives a struct of nulls */
		if (rc != 0)
			for (int k = 0; k < root.nkids; k++)
				if (set_null_deep(&j, &root.kids[k], i))
					goto oom;
		unnull(c, i);
	}
	node_finish(&root, n);
	node_release(&root);
	sl_buf_release(&j.tmp);
	sl_arena_free(arena);
	return c;
oom:
	node_release(&root);
	sl_buf_release(&j.tmp);
	sl_arena_free(arena);
	sl_col_free(c);
	sl_err_nomem(err);
	return NULL;
}

/* ---- schema inference (JsonInferSchema) ---- */

typedef enum ikind {
	IK_NULL, IK_BOOL, IK_LONG, IK_DOUBLE, IK_STRING, IK_STRUCT, IK_ARRAY
} ikind;

typedef struct inode inode;
struct inode {
	ikind k;
	int n, cap;
	char **names;
	inode **kids;
	inode *elem;
};

struct sl_json_infer {
	inode root;
	sl_format_mode mode;
	char *corrupt;
	bool malformed;
	jp j;
};

static void inode_release(inode *nd)
{
	int k;
	for (k = 0; k < nd->n; k++) {
		free(nd->names[k]);
		inode_release(nd->kids[k]);
		free(nd->kids[k]);
	}
	free(nd->names);
	free(nd->kids);
	if (nd->elem != NULL) {
		inode_release(nd->elem);
		free(nd->elem);
	}
	memset(nd, 0, sizeof *nd);
}

/* Spark's compatibleType for scalars: equal, NULL + x, LONG + DOUBLE,
 * anything else is STRING. */
static void merge_kind(inode *nd, ikind k)
{
	if (nd->k == k || k == IK_NULL)
		return;
	if (nd->k == IK_NULL) {
		nd->k = k;
	} else if ((nd->k == IK_LONG && k == IK_DOUBLE) ||
		   (nd->k == IK_DOUBLE && k == IK_LONG)) {
		nd->k = IK_DOUBLE;
	} else {
		inode_release(nd);
		nd->k = IK_STRING;
	}
}

static inode *inode_kid(jp *j, inode *nd, const char *name, size_t n)
{
	int k;
	for (k = 0; k < nd->n; k++)
		if (strlen(nd->names[k]) == n && memcmp(nd->names[k], name, n) == 0)
			return nd->kids[k];
	if (nd->n == nd->cap) {
		int cap = nd->cap ? nd->cap * 2 : 8;
		char **nm = realloc(nd->names, (size_t)cap * sizeof *nm);
		inode **kd = nm ? realloc(nd->kids, (size_t)cap * sizeof *kd) : NULL;
		if (nm != NULL)
			nd->names = nm;
		if (kd == NULL) {
			j->oom = true;
			return NULL;
		}
		nd->kids = kd;
		nd->cap = cap;
	}
	nd->names[nd->n] = strndup(name, n);
	nd->kids[nd->n] = calloc(1, sizeof(inode));
	if (nd->names[nd->n] == NULL || nd->kids[nd->n] == NULL) {
		free(nd->names[nd->n]);
		free(nd->kids[nd->n]);
		j->oom = true;
		return NULL;
	}
	return nd->kids[nd->n++];
}

static int infer_value(jp *j, inode *nd);

static int infer_object(jp *j, inode *nd)
{
	sl_str key;
	inode *kid;
	if (nd->k != IK_STRUCT && nd->k != IK_NULL) {
		merge_kind(nd, IK_STRING);
		return skip_value(j);
	}
	nd->k = IK_STRUCT;
	j->p++;
	for (;;) {
		ws(j);
		if (*j->p == '}') {
			j->p++;
			return 0;
		}
		if (parse_str(j, &key, false))
			return -1;
		kid = inode_kid(j, nd, key.p, key.len);
		if (kid == NULL)
			return -1;
		ws(j);
		j->p++; /* ':' (the line was checked) */
		if (infer_value(j, kid))
			return -1;
		ws(j);
		if (*j->p == ',')
			j->p++;
	}
}

static int infer_array(jp *j, inode *nd)
{
	if (nd->k != IK_ARRAY && nd->k != IK_NULL) {
		merge_kind(nd, IK_STRING);
		return skip_value(j);
	}
	nd->k = IK_ARRAY;
	if (nd->elem == NULL && (nd->elem = calloc(1, sizeof(inode))) == NULL) {
		j->oom = true;
		return -1;
	}
	j->p++;
	for (;;) {
		ws(j);
		if (*j->p == ']') {
			j->p++;
			return 0;
		}
		if (infer_value(j, nd->elem))
			return -1;
		ws(j);
		if (*j->p == ',')
			j->p++;
	}
}

static int infer_value(jp *j, inode *nd)
{
	jnum num;
	sl_str s;
	ws(j);
	switch (*j->p) {
	case '{':
		return infer_object(j, nd);
	case '[':
		return infer_array(j, nd);
	case '"':
	case '\'':
		merge_kind(nd, IK_STRING);
		return parse_str(j, &s, false);
	case 't':
	case 'f':
		merge_kind(nd, IK_BOOL);
		return skip_value(j);
	case 'n':
		return skip_value(j);
	default:
		if (scan_num(j, &num))
			return -1;
		merge_kind(nd, num.frac || num.big ? IK_DOUBLE : IK_LONG);
		return 0;
	}
}

sl_json_infer *sl_json_infer_new(const sl_options *opts, sl_err *err)
{
	sl_json_infer *ji = calloc(1, sizeof *ji);
	if (ji == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (sl_format_mode_get(opts, &ji->mode, err)) {
		free(ji);
		return NULL;
	}
	ji->corrupt = strdup(sl_format_corrupt_name(opts));
	if (ji->corrupt == NULL) {
		free(ji);
		sl_err_nomem(err);
		return NULL;
	}
	ji->root.k = IK_STRUCT;
	jp_init(&ji->j, NULL);
	return ji;
}

int sl_json_infer_add(sl_json_infer *ji, const char *name, const char *data,
		      size_t len, sl_err *err)
{
	const char *p = data, *e = data + len, *eol, *le;
	int64_t lineno = 0;
	jp *j = &ji->j;
	for (; p < e; p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(e - p));
		if (eol == NULL)
			eol = e;
		le = eol;
		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		if (blank(p, le))
			continue;
		j->p = j->line = p;
		j->end = le;
		j->why[0] = '\0';
		j->depth = 0;
		ws(j);
		if (j->p >= le || *j->p != '{')
			syn(j, "expected '{'");
		else if (skip_value(j) == 0) {
			/* syntax is fine: merge its types */
			j->p = p;
			ws(j);
			if (infer_object(j, &ji->root) != 0 && j->oom)
				return sl_err_nomem(err);
			continue;
		}
		if (j->oom)
			return sl_err_nomem(err);
		if (ji->mode == SL_MODE_FAILFAST)
			return sl_err_set(err, SL_EDATA,
					  "json: malformed record at %s:%lld: %s",
					  name, (long long)lineno, j->why);
		ji->malformed = true;
	}
	return 0;
}

typedef struct ifield {
	const char *name;
	sl_type *type;
} ifield;

static int cmp_ifield(const void *a, const void *b)
{
	return strcmp(((const ifield *)a)->name, ((const ifield *)b)->name);
}

/* Spark's canonicalizeType: NULL -> STRING, empty structs dropped. */
static sl_type *inode_type(const inode *nd, const char *extra, bool *empty)
{
	ifield *fs;
	sl_type *t = NULL, *el;
	int k, n = 0;
	bool e2;
	*empty = false;
	switch (nd->k) {
	case IK_BOOL: return sl_type_prim(SL_BOOLEAN);
	case IK_LONG: return sl_type_prim(SL_BIGINT);
	case IK_DOUBLE: return sl_type_prim(SL_DOUBLE);
	case IK_NULL:
	case IK_STRING: return sl_type_prim(SL_STRING);
	case IK_ARRAY:
		el = nd->elem ? inode_type(nd->elem, NULL, &e2)
			      : sl_type_prim(SL_STRING);
		return el ? sl_type_array_new(el) : NULL;
	default:
		break;
	}
	fs = calloc((size_t)nd->n + 2, sizeof *fs);
	if (fs == NULL)
		return NULL;
	for (k = 0; k < nd->n; k++) {
		if (nd->names[k][0] == '\0' ||
		    (extra != NULL && strcmp(nd->names[k], extra) == 0))
			continue;
		fs[n].type = inode_type(nd->kids[k], NULL, &e2);
		if (fs[n].type == NULL)
			goto out;
		if (e2) {
			sl_type_free(fs[n].type);
			continue;
		}
		fs[n++].name = nd->names[k];
	}
	if (extra != NULL) {
		fs[n].name = extra;
		fs[n++].type = sl_type_prim(SL_STRING);
	}
	qsort(fs, (size_t)n, sizeof *fs, cmp_ifield);
	t = sl_type_struct_new(n);
	for (k = 0; t != NULL && k < n; k++) {
		if (sl_type_set_field(t, k, fs[k].name, fs[k].type, true) != 0) {
			sl_type_free(t);
			t = NULL;
		}
		fs[k].type = NULL;
	}
	*empty = n == 0;
out:
	for (k = 0; k < n; k++)
		sl_type_free(fs[k].type);
	free(fs);
	return t;
}

sl_type *sl_json_infer_finish(sl_json_infer *ji, sl_err *err)
{
	bool empty;
	sl_type *t = inode_type(&ji->root,
				ji->malformed && ji->mode == SL_MODE_PERMISSIVE
					? ji->corrupt : NULL, &empty);
	if (t == NULL)
		sl_err_nomem(err);
	sl_json_infer_free(ji);
	return t;
}

void sl_json_infer_free(sl_json_infer *ji)
{
	if (ji == NULL)
		return;
	inode_release(&ji->root);
	sl_buf_release(&ji->j.tmp);
	free(ji->corrupt);
	free(ji);
}

/* ---- writing: Spark's JSON writer omits null fields ---- */

int sl_json_write(const sl_batch *b, sl_buf *out, sl_err *err)
{
	int64_t i;
	int k;
	for (i = 0; i < b->nrows; i++) {
		bool first = true;
		sl_buf_addc(out, '{');
		for (k = 0; k < b->ncols; k++) {
			const char *name = b->schema->fields[k].name;
			if (sl_col_isnull(b->cols[k], i))
				continue;
			if (!first)
				sl_buf_addc(out, ',');
			first = false;
			sl_buf_json_str(out, name, strlen(name));
			sl_buf_addc(out, ':');
			sl_value_json(b->cols[k], i, out);
		}
		sl_buf_adds(out, "}\n");
	}
	return sl_buf_failed(out) ? sl_err_nomem(err) : 0;
}
