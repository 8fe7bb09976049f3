/*
 * jsonscan: the JSON-lines reader's fast path for flat records.
 *
 * Most files repeat one shape, {"ts":"2026-01-01 12:00:03","product_id":
 * "p17","amount":12}, line after line.  The general parser (json.c) pays
 * for its generality on every line: a hash lookup per key, a value parser
 * per node, a memchr per line.  This scanner instead predicts each key from
 * the order seen on the previous lines (one masked 8-byte compare of the
 * quoted key, plus a memcmp for long names), parses values with parsers
 * specialised by column type straight into the column arrays, and finds
 * the end of the line as it goes.  Strings without escapes point into the
 * text, as the general parser's do.  Once a line is taken, its keys in
 * order, without whitespace, become a template: the next lines are first
 * matched against its separators ({"ts": ,"product_id": ...) byte for
 * byte, which skips the per-key prediction, duplicate and whitespace
 * checks; a line that does not fit goes through the per-key scan, and
 * teaches a new template; after each of its separators the common value
 * of the field's kind (the last timestamp text, a plain string, a short
 * integer) is parsed inline (tpl_value), anything else by value().  A
 * 19-byte timestamp text equal to the last one parsed takes its value
 * without parsing.  When the template names every field, each a
 * timestamp, string or integer, and there is no corrupt-record column
 * (W2's files), its lines go first through the shape (shape_run): the
 * same separators and inline values in one loop over the lines, with the
 * separators and column arrays in locals, in a variant compiled for the
 * kinds of the first three fields (shape_lines: no dispatch on a kind and
 * no loop for them; a W2 line 218 -> 172 instructions); any line
 * it does not fit goes to tpl_line, then line(), then the general parser,
 * as before.
 *
 * Invariant: a line is taken only if the general parser would accept it
 * with no syntax or type error and store exactly the same values; anything
 * else (a key it does not know, a duplicate key, an escape, nesting, a
 * NaN token, an exponent, a number out of the fast range, a timestamp that
 * does not parse, tabs or other unusual whitespace, text after the '}')
 * stops the run and the caller parses that line with the general parser,
 * which overwrites whatever this scanner wrote into the row.  The
 * differential test in t406-json-fast checks the two paths against each
 * other over generated and mutated lines.
 *
 * Bounds: every line scanned ends with '\n' before `end`; every loop stops
 * at '\n' (it is neither a digit, a space nor a plain string byte), and the
 * wide key compare is used only when the bytes it loads are in bounds.
 * Never allocates per line (a null bitmap is allocated once per column on
 * its first null); never prints.
 */
#include "formats/json_int.h"
#include "formats/fileformat_int.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/timeutil.h"

enum { SK_NONE, SK_STRING, SK_INT, SK_BIGINT, SK_DOUBLE, SK_BOOL, SK_TS };

typedef struct sfield {
	const char *name; /* borrowed from the schema */
	uint32_t len;
	uint32_t klen;    /* len + 2: the quoted key */
	uint64_t head[2]; /* the first 16 bytes of the quoted key, masked */
	uint64_t mask[2];
	char key[72]; /* the quoted key when it fits (klen <= 72) */
	int kind;     /* SK_*: SK_NONE = any value of it stops the run */
	sl_col *col;  /* borrowed */
} sfield;

/* One separator of the line template: '{' or ',', the quoted key, ':'. */
typedef struct tsep {
	const sfield *f; /* the field, in the scanner's array */
	int k;
	int kind;    /* f->kind */
	sl_col *col; /* f->col */
	uint32_t len;              /* bytes of sep */
	uint64_t head[2], mask[2]; /* its first 16 bytes, masked */
	char sep[76];
} tsep;

/* One separator of the shape (shape_run): the template's, with the
 * column's values array at hand. */
typedef struct shsep {
	uint64_t head[2], mask[2];
	uint32_t len; /* <= 16 */
	int kind;     /* SK_TS, SK_STRING, SK_INT or SK_BIGINT */
	sl_col *col;
} shsep;

struct sl_jsonscan {
	size_t maxline; /* lines longer than this are left to the caller */
	int nf;
	sfield *f;
	sl_col *corrupt; /* borrowed; NULL if none */
	int cidx;
	uint64_t fields; /* fields a key may name (the corrupt one excluded) */
	int norder;
	int order[64]; /* predicted field of the k-th key */
	int nkeys;     /* keys of the last line line() took */
	/* the template: the last taken line's keys, in order, with no
	 * whitespace; ntpl = 0 when there is none */
	int ntpl;
	uint64_t tplset;   /* the fields it names */
	int64_t hit, miss; /* lines it took, lines it did not */
	tsep tpl[64];
	/* the shape: the template again when it names every field, each a
	 * timestamp, string or integer with a separator of at most 16 bytes,
	 * and there is no corrupt-record column (nsh = 0 otherwise) */
	int nsh;
	shsep sh[64];
	int64_t (*shape)(sl_jsonscan *, const char **, const char *, int64_t,
			 int64_t, sl_format_tscache *); /* shape_pick's */
	/* the last timestamp text of 19 bytes that parsed, and its value */
	bool ts_ok;
	char ts_text[19];
	int64_t ts_us;
	bool oom;
};

static const double p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
			      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
			      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* Plain string bytes: not a quote, backslash or control character. */
static const uint8_t plain_stop[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ['"'] = 1, ['\\'] = 1,
};

static int kind_of(sl_kind k)
{
	switch (k) {
	case SL_STRING: return SK_STRING;
	case SL_INT: return SK_INT;
	case SL_BIGINT: return SK_BIGINT;
	case SL_DOUBLE: return SK_DOUBLE;
	case SL_BOOLEAN: return SK_BOOL;
	case SL_TIMESTAMP: return SK_TS;
	default: return SK_NONE; /* STRUCT, ARRAY, BINARY, NULLTYPE */
	}
}

sl_jsonscan *sl_jsonscan_new(const sl_type *schema, sl_col *const *cols,
			     int corrupt)
{
	sl_jsonscan *s;
	int k, useful = 0;
	if (schema->nfields > 64 || schema->nfields == 0)
		return NULL;
	s = calloc(1, sizeof *s);
	if (s != NULL)
		s->maxline = SIZE_MAX;
	if (s == NULL ||
	    (s->f = calloc((size_t)schema->nfields, sizeof *s->f)) == NULL) {
		free(s);
		return NULL;
	}
	s->nf = schema->nfields;
	s->cidx = corrupt;
	s->corrupt = corrupt >= 0 ? cols[corrupt] : NULL;
	for (k = 0; k < s->nf; k++) {
		sfield *f = &s->f[k];
		unsigned char m[16] = { 0 }, h[16] = { 0 };
		f->name = schema->fields[k].name;
		f->len = (uint32_t)strlen(f->name);
		f->klen = f->len + 2;
		f->kind = kind_of(schema->fields[k].type->kind);
		f->col = cols[k];
		if (f->klen > sizeof f->key) {
			sl_jsonscan_free(
			    s); /* a rare long name: no fast path */
			return NULL;
		}
		if (k == corrupt)
			continue; /* never matched: such a key stops the run */
		s->fields |= UINT64_C(1) << k;
		f->key[0] = '"';
		memcpy(f->key + 1, f->name, f->len);
		f->key[f->len + 1] = '"';
		for (uint32_t b = 0; b < 16 && b < f->klen; b++) {
			m[b] = 0xff;
			h[b] = (unsigned char)f->key[b];
		}
		memcpy(f->mask, m, 16);
		memcpy(f->head, h, 16);
		useful += f->kind != SK_NONE;
	}
	if (useful == 0) {
		sl_jsonscan_free(s);
		return NULL;
	}
	return s;
}

void sl_jsonscan_max_line(sl_jsonscan *s, size_t max)
{
	if (s != NULL)
		s->maxline = max;
}

void sl_jsonscan_free(sl_jsonscan *s)
{
	if (s == NULL)
		return;
	free(s->f);
	free(s);
}

static inline bool isdig(char c)
{
	return (unsigned)(c - '0') < 10;
}

static inline void unnull(sl_col *c, int64_t i)
{
	if (c->nulls != NULL)
		c->nulls[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* The quoted key at p ('"'), looked up by name; -1 if it is not a plain
 * key naming a field.  *after: the byte after its closing quote. */
static int key_lookup(const sl_jsonscan *s, const char *p, const char **after)
{
	const char *q = p + 1;
	size_t n;
	while (!plain_stop[(uint8_t)*q])
		q++;
	if (*q != '"')
		return -1;
	n = (size_t)(q - p - 1);
	*after = q + 1;
	for (int k = 0; k < s->nf; k++)
		if (((s->fields >> k) & 1) && s->f[k].len == n &&
		    memcmp(s->f[k].name, p + 1, n) == 0)
			return k;
	return -1;
}

/* An integer token: optional '-', digits without a leading zero, at most
 * 18 of them, not followed by a fraction or exponent. */
static inline const char *scan_int(const char *p, int64_t *out)
{
	bool neg = *p == '-';
	const char *q = p + neg, *s;
	uint64_t v = 0;
	if (!isdig(*q) || (*q == '0' && isdig(q[1])))
		return NULL;
	for (s = q; isdig(*q); q++)
		v = v * 10 + (uint64_t)(*q - '0');
	if (q - s > 18 || *q == '.' || *q == 'e' || *q == 'E')
		return NULL;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return q;
}

/* A decimal without exponent, at most 18 digits; the same value as
 * sl_jsonlex_num_double gives (exact integer, or Clinger's fast path). */
static inline const char *scan_double(const char *p, double *out)
{
	bool neg = *p == '-';
	const char *q = p + neg, *s;
	uint64_t m = 0;
	int nd, fd = 0;
	if (!isdig(*q) || (*q == '0' && isdig(q[1])))
		return NULL;
	for (s = q; isdig(*q); q++)
		m = m * 10 + (uint64_t)(*q - '0');
	nd = (int)(q - s);
	if (*q == '.') {
		if (!isdig(*++q))
			return NULL;
		for (s = q; isdig(*q); q++)
			m = m * 10 + (uint64_t)(*q - '0');
		fd = (int)(q - s);
	}
	if (nd + fd > 18 || *q == 'e' || *q == 'E')
		return NULL;
	if (fd == 0) {
		*out = (double)(neg ? -(int64_t)m : (int64_t)m);
	} else {
		double d;
		if (m > (UINT64_C(1) << 53) || fd > 22)
			return NULL;
		d = (double)m / p10[fd];
		*out = neg ? -d : d;
	}
	return q;
}

static inline bool parse_ts(const char *s, size_t n, int64_t *us,
			    sl_format_tscache *tsc)
{
	return (n == 19 && sl_format_ts_cached(s, us, tsc)) ||
	       sl_format_parse_ts(s, n, us, tsc);
}

/* plain_end's last bytes, fewer than 16 (SSE2) before end: 8 bytes a
 * step while they are in bounds, then one.  Out of line: only the last
 * string of a buffer gets here. */
static __attribute__((noinline)) const char *plain_end_tail(const char *s,
							    const char *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, high = ones * 0x80;
	while (end - s >= 8) {
		uint64_t w, z;
		memcpy(&w, s, 8);
		/* high bit of a byte: equal to '"', '\\', or below 0x20 (the
		 * lowest flagged byte is exact; borrows only flag above it) */
		z = (((w ^ (ones * '"')) - ones) & ~(w ^ (ones * '"'))) |
		    (((w ^ (ones * '\\')) - ones) & ~(w ^ (ones * '\\'))) |
		    ((w - ones * 0x20) & ~w);
		z &= high;
		if (z != 0)
			return s + (__builtin_ctzll(z) >> 3);
		s += 8;
	}
#else
	(void)end;
#endif
	while (!plain_stop[(uint8_t)*s])
		s++;
	return s;
}

/* The first byte from s on that is a quote, backslash or control byte
 * (a '\n' ends every line), 16 bytes a step (SSE2) while they are in
 * bounds, then plain_end_tail. */
static inline const char *plain_end(const char *s, const char *end)
{
#ifdef __SSE2__
	/* 16 bytes a step: 10 instructions where the 8-byte step takes 30
	 * (no andn in baseline x86-64) */
	const __m128i qv = _mm_set1_epi8('"'), bv = _mm_set1_epi8('\\'),
		      cv = _mm_set1_epi8(0x1f);
	while (end - s >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)s);
		unsigned z = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(x, qv), _mm_cmpeq_epi8(x, bv)),
		    _mm_cmpeq_epi8(_mm_min_epu8(x, cv), x)));
		if (z != 0)
			return s + __builtin_ctz(z);
		s += 16;
	}
#endif
	return plain_end_tail(s, end);
}

/* Are the 19 bytes at p those of t? */
static inline bool same_ts(const char *p, const char *t)
{
	uint64_t a, b, c, d;
	memcpy(&a, p, 8);
	memcpy(&b, t, 8);
	memcpy(&c, p + 8, 8);
	memcpy(&d, t + 8, 8);
	return ((a ^ b) | (c ^ d)) == 0 && p[16] == t[16] && p[17] == t[17] &&
	       p[18] == t[18];
}

/* Remember a 19-byte timestamp text that parsed to us: the same text
 * gives the same value for the rest of the read. */
static inline void ts_keep(sl_jsonscan *s, const char *p, int64_t us)
{
	memcpy(s->ts_text, p, 19);
	s->ts_us = us;
	s->ts_ok = true;
}

/* One value of field f at p into row i; the byte after it, or NULL.
 * Inlined into both line scanners (a call per value costs a fifth). */
static inline __attribute__((always_inline)) const char *
value(sl_jsonscan *s, const sfield *f, const char *p, const char *end,
      int64_t i, sl_format_tscache *tsc)
{
	sl_col *c = f->col;
	const char *q;
	if (*p == 'n') {
		if (f->kind == SK_NONE || p[1] != 'u' || p[2] != 'l' ||
		    p[3] != 'l')
			return NULL;
		if (sl_col_set_null(c, i) != 0) {
			s->oom = true;
			return NULL;
		}
		return p + 4;
	}
	switch (f->kind) {
	case SK_STRING:
	case SK_TS:
		if (*p != '"')
			return NULL;
		if (f->kind == SK_TS && end - p > 20 && p[20] == '"') {
			if (s->ts_ok && same_ts(p + 1, s->ts_text)) {
				/* the text of the last value: no quote */
				sl_col_i64(c)[i] = s->ts_us;
				q = p + 21;
				break;
			}
			if (sl_format_ts_cached(p + 1, &sl_col_i64(c)[i],
						tsc)) {
				/* it checked all 19 bytes: no quote inside */
				ts_keep(s, p + 1, sl_col_i64(c)[i]);
				q = p + 21;
				break;
			}
		}
		if (*(q = plain_end(p + 1, end)) != '"')
			return NULL;
		if (f->kind == SK_STRING) {
			sl_str *d = &sl_col_str(c)[i];
			d->p = p + 1;
			d->len = (uint32_t)(q - p - 1);
		} else if (!parse_ts(p + 1, (size_t)(q - p - 1),
				     &sl_col_i64(c)[i], tsc)) {
			return NULL;
		} else if (q - p - 1 == 19) {
			ts_keep(s, p + 1, sl_col_i64(c)[i]);
		}
		q++;
		break;
	case SK_INT:
	case SK_BIGINT: {
		int64_t v;
		if ((q = scan_int(p, &v)) == NULL)
			return NULL;
		if (f->kind == SK_BIGINT)
			sl_col_i64(c)[i] = v;
		else if (v >= INT32_MIN && v <= INT32_MAX)
			sl_col_i32(c)[i] = (int32_t)v;
		else
			return NULL;
		break;
	}
	case SK_DOUBLE:
		if ((q = scan_double(p, &sl_col_f64(c)[i])) == NULL)
			return NULL;
		break;
	case SK_BOOL:
		if (p[0] == 't' && p[1] == 'r' && p[2] == 'u' && p[3] == 'e') {
			sl_col_u8(c)[i] = 1;
			q = p + 4;
		} else if (p[0] == 'f' && p[1] == 'a' && p[2] == 'l' &&
			   p[3] == 's' && p[4] == 'e') {
			sl_col_u8(c)[i] = 0;
			q = p + 5;
		} else {
			return NULL;
		}
		break;
	default: return NULL;
	}
	unnull(c, i);
	return q;
}

/* Fields not named by the record become NULL (scalars only: a missing
 * struct needs the general parser's deep null). */
static bool fill_missing(sl_jsonscan *s, uint64_t missing, int64_t i)
{
	while (missing != 0) {
		int k = __builtin_ctzll(missing);
		missing &= missing - 1;
		if (s->f[k].kind == SK_NONE)
			return false;
		if (sl_col_set_null(s->f[k].col, i) != 0) {
			s->oom = true;
			return false;
		}
	}
	return true;
}

/* Is the quoted key of f at p?  Two masked 8-byte compares cover keys of
 * up to 14 name bytes; longer ones end with a memcmp. */
static inline bool key_eq(const sfield *f, const char *p, const char *end)
{
	uint64_t w[2];
	if (end - p < 16 || (size_t)(end - p) < f->klen)
		return false; /* near the end: key_lookup checks bounds */
	memcpy(w, p, 16);
	if (((w[0] & f->mask[0]) ^ f->head[0]) |
	    ((w[1] & f->mask[1]) ^ f->head[1]))
		return false;
	return f->klen <= 16 || memcmp(p + 16, f->key + 16, f->klen - 16) == 0;
}

/* The rest of a line from its '}' at p: blanks, '\n', then the fields
 * the record did not name (seen: those it did) become NULL. */
static inline __attribute__((always_inline)) const char *
line_end(sl_jsonscan *s, const char *p, int64_t i, uint64_t seen)
{
	p++;
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (*p != '\n')
		return NULL;
	if (seen != s->fields && !fill_missing(s, s->fields & ~seen, i))
		return NULL;
	if (s->corrupt != NULL && sl_col_set_null(s->corrupt, i) != 0) {
		s->oom = true;
		return NULL;
	}
	return p + 1;
}

/* One line at p into row i; the start of the next line, or NULL. */
static const char *line(sl_jsonscan *s, const char *p, const char *end,
			int64_t i, sl_format_tscache *tsc)
{
	uint64_t seen = 0;
	int pos = 0, k;
	if (*p++ != '{')
		return NULL;
	for (;;) {
		const sfield *f;
		if (*p != '"')
			return NULL;
		if (pos < s->norder) {
			f = &s->f[k = s->order[pos]];
			if (key_eq(f, p, end)) {
				p += f->klen;
				goto matched;
			}
		}
		if ((k = key_lookup(s, p, &p)) < 0 || pos >= 64)
			return NULL;
		s->order[pos] = k;
		if (pos >= s->norder)
			s->norder = pos + 1;
		f = &s->f[k];
	matched:
		if ((seen >> k) & 1)
			return NULL; /* duplicate key: the last one wins there */
		seen |= UINT64_C(1) << k;
		pos++;
		while (*p == ' ')
			p++;
		if (*p++ != ':')
			return NULL;
		while (*p == ' ')
			p++;
		if ((p = value(s, f, p, end, i, tsc)) == NULL)
			return NULL;
		while (*p == ' ')
			p++;
		if (*p == '}')
			break;
		if (*p++ != ',')
			return NULL;
		while (*p == ' ')
			p++;
	}
	s->nkeys = pos;
	return line_end(s, p, i, seen);
}

/* The separator of template position j at p? */
static inline bool sep_eq(const tsep *t, const char *p, const char *end)
{
	uint64_t w[2];
	if (end - p < 16)
		return (size_t)(end - p) >= t->len &&
		       memcmp(p, t->sep, t->len) == 0;
	memcpy(w, p, 16);
	if (((w[0] & t->mask[0]) ^ t->head[0]) |
	    ((w[1] & t->mask[1]) ^ t->head[1]))
		return false;
	return t->len <= 16 || memcmp(p + 16, t->sep + 16, t->len - 16) == 0;
}

/* The common values after a template separator, by the field's kind: a
 * timestamp text of the last value, a plain string, a short integer; the
 * byte after it, or NULL for value() to decide.  No check of the byte
 * after a number: the template's next separator (',' or '}' first) or
 * its end fails on anything else, and line() then looks again. */
static inline const char *tpl_value(sl_jsonscan *s, const tsep *t,
				    const char *p, const char *end, int64_t i)
{
	const char *q, *d;
	uint64_t v = 0;
	unsigned x;
	switch (t->kind) {
	case SK_TS:
		if (*p == '"' && end - p > 20 && p[20] == '"' && s->ts_ok &&
		    same_ts(p + 1, s->ts_text)) {
			sl_col_i64(t->col)[i] = s->ts_us;
			return p + 21;
		}
		return NULL;
	case SK_STRING:
		if (*p != '"' || *(q = plain_end(p + 1, end)) != '"')
			return NULL;
		sl_col_str(t->col)[i].p = p + 1;
		sl_col_str(t->col)[i].len = (uint32_t)(q - p - 1);
		return q + 1;
	case SK_INT:
	case SK_BIGINT:
		d = q = p + (*p == '-');
		if (*q == '0') {
			q++; /* "0" then a digit: no separator follows */
		} else {
			while ((x = (unsigned)(*q - '0')) <= 9) {
				v = v * 10 + x;
				q++;
			}
			if (q == d || q - d > 18)
				return NULL;
		}
		if (!sl_format_store_int(t->col->data, i, v, *p == '-',
					 t->kind == SK_BIGINT))
			return NULL;
		return q;
	default: return NULL;
	}
}

/* One line at p into row i by the template: its separators byte for byte
 * and a value after each, then what ends a line.  The same as line() for
 * every line it takes (the keys are distinct, known and plain, as line()
 * found them); NULL for any other line, which line() then scans. */
static const char *tpl_line(sl_jsonscan *s, const char *p, const char *end,
			    int64_t i, sl_format_tscache *tsc)
{
	const tsep *t = s->tpl, *te = t + s->ntpl;
	for (; t < te; t++) {
		const char *q;
		if (!sep_eq(t, p, end))
			return NULL;
		p += t->len;
		if ((q = tpl_value(s, t, p, end, i)) != NULL) {
			unnull(t->col, i);
			p = q;
		} else if ((p = value(s, t->f, p, end, i, tsc)) == NULL) {
			return NULL;
		}
	}
	if (*p != '}')
		return NULL;
	if (p[1] == '\n' && s->corrupt == NULL && s->tplset == s->fields)
		return p + 2; /* what line_end does for such a line */
	return line_end(s, p, i, s->tplset);
}

/* The shape from the template (s->nsh = 0 when the template does not
 * qualify: see struct sl_jsonscan). */
static void shape_build(sl_jsonscan *s)
{
	s->nsh = 0;
	if (s->corrupt != NULL || s->tplset != s->fields)
		return;
	for (int j = 0; j < s->ntpl; j++) {
		const tsep *t = &s->tpl[j];
		shsep *h = &s->sh[j];
		if (t->len > 16 || (t->kind != SK_TS && t->kind != SK_STRING &&
				    t->kind != SK_INT && t->kind != SK_BIGINT))
			return;
		memcpy(h->head, t->head, sizeof h->head);
		memcpy(h->mask, t->mask, sizeof h->mask);
		h->len = t->len;
		h->kind = t->kind;
		h->col = t->col;
	}
	s->nsh = s->ntpl;
}

/* One separator of the shape in shape_lines' locals. */
typedef struct shloc {
	uint64_t h0, h1, m0, m1;
	uint32_t len;
	int kind;
	char *data;
} shloc;

/* The last timestamp text shape_lines took (bytes 0-7, 8-15, 11-18), if
 * ok, and its value. */
typedef struct shts {
	uint64_t t0, t1, t2;
	int64_t us;
	bool ok;
} shts;

/* sl_format_ts_cached out of line: a new timestamp text is rare next to
 * the lines that repeat the last one, and each variant of shape_lines
 * would otherwise hold a copy of the parser for each of its timestamps. */
static __attribute__((noinline)) bool ts_cached_call(const char *p,
						     int64_t *us,
						     sl_format_tscache *tsc)
{
	return sl_format_ts_cached(p, us, tsc);
}

/* Separator f at q, then its value into row i, parsed by kind (kind is
 * f->kind, a constant where shape_lines is specialised): a timestamp of the
 * same 19 bytes as the last takes its value, others go through the
 * reader's cache (sl_format_ts_cached); a plain string; an integer as
 * tpl_value parses it.  The byte after the value, or NULL. */
static inline __attribute__((always_inline)) const char *
shape_field(const shloc *f, int kind, const char *q, const char *end,
	    int64_t i, shts *ts, sl_format_tscache *tsc)
{
	uint64_t w0, w1, v = 0;
	const char *d, *e;
	unsigned x;
	if (end - q < 16)
		return NULL;
	memcpy(&w0, q, 8);
	memcpy(&w1, q + 8, 8);
	if (((w0 & f->m0) ^ f->h0) | ((w1 & f->m1) ^ f->h1))
		return NULL;
	q += f->len;
	switch (kind) {
	case SK_TS:
		if (*q != '"' || end - q <= 20 || q[20] != '"')
			return NULL;
		memcpy(&w0, q + 1, 8);
		memcpy(&w1, q + 9, 8);
		memcpy(&v, q + 12, 8);
		if (!ts->ok ||
		    ((w0 ^ ts->t0) | (w1 ^ ts->t1) | (v ^ ts->t2)) != 0) {
			/* not the last text: the cache's date */
			if (!ts_cached_call(q + 1, &ts->us, tsc))
				return NULL;
			ts->t0 = w0;
			ts->t1 = w1;
			ts->t2 = v;
			ts->ok = true;
		}
		((int64_t *)f->data)[i] = ts->us;
		return q + 21;
	case SK_STRING:
		if (*q != '"' || *(e = plain_end(q + 1, end)) != '"')
			return NULL;
		((sl_str *)f->data)[i].p = q + 1;
		((sl_str *)f->data)[i].len = (uint32_t)(e - q - 1);
		return e + 1;
	default: /* SK_INT, SK_BIGINT: as tpl_value */
		d = e = q + (*q == '-');
		if (*e == '0') {
			e++;
		} else {
			while ((x = (unsigned)(*e - '0')) <= 9) {
				v = v * 10 + x;
				e++;
			}
			if (e == d || e - d > 18)
				return NULL;
		}
		if (!sl_format_store_int(f->data, i, v, *q == '-',
					 f->kind == SK_BIGINT))
			return NULL;
		return e;
	}
}

/* Separators from..nsh-1 of sh at q, by their kinds (shape_field); the
 * byte after the last value, or NULL.  Out of line: one copy for every
 * variant of shape_lines. */
static __attribute__((noinline)) const char *
shape_rest(const shloc *sh, int from, int nsh, const char *q, const char *end,
	   int64_t i, shts *ts, sl_format_tscache *tsc)
{
	for (int k = from; k < nsh && q != NULL; k++)
		q = shape_field(&sh[k], sh[k].kind, q, end, i, ts, tsc);
	return q;
}

/* s->sh into sh; false if a column has a null bitmap.  Out of line: one
 * copy for every variant of shape_lines. */
static __attribute__((noinline)) bool shape_locals(const sl_jsonscan *s,
						   shloc *sh)
{
	for (int k = 0; k < s->nsh; k++) {
		if (s->sh[k].col->nulls != NULL)
			return false;
		sh[k].h0 = s->sh[k].head[0];
		sh[k].h1 = s->sh[k].head[1];
		sh[k].m0 = s->sh[k].mask[0];
		sh[k].m1 = s->sh[k].mask[1];
		sh[k].len = s->sh[k].len;
		sh[k].kind = s->sh[k].kind;
		sh[k].data = s->sh[k].col->data;
	}
	return true;
}

/* The kinds shape_lines is specialised on, for its first three
 * separators: a timestamp, a string, an integer (either width). */
enum { SP_T, SP_S, SP_I, SP_N };
#define SP_KIND(sp) ((sp) == SP_T ? SK_TS : (sp) == SP_S ? SK_STRING : SK_INT)

/* Lines of the shape from *pp into rows row, row+1, ... (at most max):
 * each separator one masked 16-byte compare, each value parsed inline by
 * its kind (shape_field), then "}\n".  Stops before the first line that
 * does not fit, or that is longer than maxline, for tpl_line and line() to
 * look at; takes nothing while a column has a null bitmap (the values
 * would need their bits cleared).  Every line it takes, tpl_line would
 * take with the same values.  Returns the lines taken; advances *pp.  The
 * separators and the columns' arrays are copied to locals first: stores
 * into the columns could otherwise alias them and force reloads on every
 * value.  Always inlined into shape_run's variants: with pre = 3 the first
 * three separators' kinds are the constants sp0..sp2 (no dispatch on the
 * kind, no loop for them), the rest go through shape_rest. */
static inline __attribute__((always_inline)) int64_t
shape_lines(sl_jsonscan *s, const char **pp, const char *end, int64_t row,
	    int64_t max, sl_format_tscache *tsc, int pre, int sp0, int sp1,
	    int sp2)
{
	shloc sh[64];
	const int nsh = s->nsh;
	const size_t maxline = s->maxline;
	const char *p = *pp;
	int64_t n = 0;
	shts ts = { 0, 0, 0, 0, false };
	if (!shape_locals(s, sh))
		return 0;
	for (; n < max; n++) {
		const char *q = p;
		const int64_t i = row + n;
		if (pre == 3 &&
		    ((q = shape_field(&sh[0], SP_KIND(sp0), q, end, i, &ts,
				      tsc)) == NULL ||
		     (q = shape_field(&sh[1], SP_KIND(sp1), q, end, i, &ts,
				      tsc)) == NULL ||
		     (q = shape_field(&sh[2], SP_KIND(sp2), q, end, i, &ts,
				      tsc)) == NULL))
			break;
		if (pre < nsh &&
		    (q = shape_rest(sh, pre, nsh, q, end, i, &ts, tsc)) == NULL)
			break;
		if (q[0] != '}' || q[1] != '\n' ||
		    (size_t)(q + 2 - p) > maxline)
			break;
		p = q + 2;
	}
	*pp = p;
	return n;
}

typedef int64_t (*shape_fn)(sl_jsonscan *, const char **, const char *,
			    int64_t, int64_t, sl_format_tscache *);

/* The variants of shape_lines: one for each kind of the first three
 * separators (shape_T_S_I: a timestamp, a string, an integer, W2's line),
 * and shape_any for a shape of one or two. */
#define SHAPE_FN(a, b, c)                                                      \
	static int64_t shape_##a##_##b##_##c(                                  \
	    sl_jsonscan *s, const char **pp, const char *end, int64_t row,     \
	    int64_t max, sl_format_tscache *tsc)                               \
	{                                                                      \
		return shape_lines(s, pp, end, row, max, tsc, 3, SP_##a,       \
				   SP_##b, SP_##c);                            \
	}
#define SHAPE_FN3(a, b) SHAPE_FN(a, b, T) SHAPE_FN(a, b, S) SHAPE_FN(a, b, I)
#define SHAPE_FN9(a)    SHAPE_FN3(a, T) SHAPE_FN3(a, S) SHAPE_FN3(a, I)
SHAPE_FN9(T)
SHAPE_FN9(S)
SHAPE_FN9(I)
#define SHAPE_PTR3(a, b)                                                       \
	shape_##a##_##b##_T, shape_##a##_##b##_S, shape_##a##_##b##_I
#define SHAPE_PTR9(a) SHAPE_PTR3(a, T), SHAPE_PTR3(a, S), SHAPE_PTR3(a, I)
/* indexed by 9 sp0 + 3 sp1 + sp2 */
static const shape_fn shape_fns[27] = { SHAPE_PTR9(T), SHAPE_PTR9(S),
					SHAPE_PTR9(I) };

static int64_t shape_any(sl_jsonscan *s, const char **pp, const char *end,
			 int64_t row, int64_t max, sl_format_tscache *tsc)
{
	return shape_lines(s, pp, end, row, max, tsc, 0, SP_N, SP_N, SP_N);
}

static int shape_sp(int kind)
{
	return kind == SK_TS ? SP_T : kind == SK_STRING ? SP_S : SP_I;
}

/* The variant for the shape s->sh[0..nsh). */
static shape_fn shape_pick(const sl_jsonscan *s)
{
	if (s->nsh < 3)
		return shape_any;
	return shape_fns[9 * shape_sp(s->sh[0].kind) +
			 3 * shape_sp(s->sh[1].kind) + shape_sp(s->sh[2].kind)];
}

static int64_t shape_run(sl_jsonscan *s, const char **pp, const char *end,
			 int64_t row, int64_t max, sl_format_tscache *tsc)
{
	return s->shape(s, pp, end, row, max, tsc);
}

/* The template from the keys of the line line() took last. */
static void tpl_build(sl_jsonscan *s)
{
	s->ntpl = 0;
	s->tplset = 0;
	for (int j = 0; j < s->nkeys; j++) {
		tsep *t = &s->tpl[j];
		const sfield *f = &s->f[s->order[j]];
		unsigned char m[16] = { 0 }, h[16] = { 0 };
		t->k = s->order[j];
		t->f = f;
		t->kind = f->kind;
		t->col = f->col;
		t->sep[0] = j == 0 ? '{' : ',';
		memcpy(t->sep + 1, f->key, f->klen);
		t->sep[f->klen + 1] = ':';
		t->len = f->klen + 2;
		for (uint32_t b = 0; b < 16 && b < t->len; b++) {
			m[b] = 0xff;
			h[b] = (unsigned char)t->sep[b];
		}
		memcpy(t->mask, m, 16);
		memcpy(t->head, h, 16);
		s->tplset |= UINT64_C(1) << t->k;
	}
	s->ntpl = s->nkeys;
	shape_build(s);
	s->shape = shape_pick(s);
}

int64_t sl_jsonscan_run(sl_jsonscan *s, const char **pp, const char *end,
			int64_t row, int64_t max, int64_t *lineno,
			sl_format_tscache *tsc)
{
	const char *p = *pp, *q;
	int64_t n = 0;
	while (n < max && p < end) {
		if (s->nsh > 0) {
			int64_t k =
			    shape_run(s, &p, end, row + n, max - n, tsc);
			s->hit += k;
			if ((n += k) == max)
				break;
		}
		if (s->ntpl > 0 &&
		    (q = tpl_line(s, p, end, row + n, tsc)) != NULL) {
			if ((size_t)(q - p) > s->maxline)
				break; /* may be too long: the caller decides */
			s->hit++;
			p = q;
			n++;
			continue;
		}
		if (s->oom || (q = line(s, p, end, row + n, tsc)) == NULL ||
		    (size_t)(q - p) > s->maxline)
			break;
		/* a taken line the template missed: learn its shape, unless
		 * the file's lines rarely fit one (spaces, varying keys) */
		if (s->nkeys > 0 && (s->miss < 64 || s->miss < s->hit)) {
			s->miss += s->ntpl > 0;
			tpl_build(s);
		} else {
			s->ntpl = 0;
			s->nsh = 0;
		}
		p = q;
		n++;
	}
	*pp = p;
	*lineno += n;
	return s->oom ? -1 : n;
}
