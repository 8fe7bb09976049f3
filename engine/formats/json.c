/*
 * json: Spark's JSON-lines reader (multiLine=false) and from_json.  The
 * lexer is jsonlex.c, the fast path for flat records jsonscan.c, schema
 * inference jsoninfer.c, the writer jsonwrite.c (see json_int.h).
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
 *    such a line is malformed here;
 *  - ill-formed UTF-8 reads as U+FFFD, the line kept, reason utf8
 *    (badrec.h; Jackson would call the record malformed);
 *  - not Spark: a line longer than maxLineBytes (default 1 MiB) is
 *    malformed with "line longer than maxLineBytes (N)": a row of nulls
 *    with the first N bytes as _corrupt_record (fileformat.h).
 *
 * Speed: most lines of a file share one flat shape, so read_lines first
 * offers each run of lines to the fast path (jsonscan.c), which predicts
 * the keys in the order last seen and parses values straight into the
 * columns; any line it cannot prove ordinary is parsed here instead, so
 * the results are the same whichever path took a line (tested by
 * t406-json-fast's differential test).
 *
 * Never prints.  Errors name the file (or the name the caller gave).
 */
#include "formats/json_int.h"
#include "formats/fileformat_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeutil.h"

typedef struct jnode jnode;
struct jnode {
	sl_type *type; /* borrowed from the schema */
	sl_kind kind;
	const char *name; /* field name, for messages */
	sl_col *col;      /* borrowed: the column being filled */
	int64_t cap;      /* rows allocated in col (col->len while building) */
	int nkids;
	jnode *kids;    /* STRUCT fields, or the ARRAY element */
	int16_t *slots; /* STRUCT: field lookup table, -1 = empty */
	uint32_t mask;
	uint32_t *flen; /* STRUCT: field name lengths */
	uint64_t *seen; /* STRUCT: stamp of the object that last set a field */
	bool root;      /* type errors null the top-level field */
	int skip;       /* root: the corrupt-record field, never matched */
};

static const char *kind_name(sl_kind k)
{
	static const char *const names[] = { "NULL",   "BOOLEAN",   "INT",
					     "BIGINT", "DOUBLE",    "STRING",
					     "BINARY", "TIMESTAMP", "DATE",
					     "STRUCT", "ARRAY" };
	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* ---- building columns ---- */

static inline void unnull(sl_col *c, int64_t i)
{
	if (c->nulls != NULL)
		c->nulls[i >> 3] &= (uint8_t) ~(1u << (i & 7));
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
	nd->kids =
	    calloc((size_t)(t->nfields ? t->nfields : 1), sizeof *nd->kids);
	nd->slots = malloc(size * sizeof *nd->slots);
	nd->flen =
	    calloc((size_t)(t->nfields ? t->nfields : 1), sizeof *nd->flen);
	nd->seen =
	    calloc((size_t)(t->nfields ? t->nfields : 1), sizeof *nd->seen);
	if (!nd->kids || !nd->slots || !nd->flen || !nd->seen ||
	    t->nfields > 30000)
		return SL_ENOMEM;
	nd->mask = size - 1;
	memset(nd->slots, 0xff, size * sizeof *nd->slots);
	for (k = 0; k < t->nfields; k++) {
		const char *fn = t->fields[k].name;
		uint32_t h;
		if (node_init(&nd->kids[k], t->fields[k].type, fn, cols[k],
			      arena, -1))
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
		return node_init(&nd->kids[0], t->elem, name, col->child[0],
				 arena, -1);
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
		snprintf(j->why, sizeof j->why, "field '%s': %s", nd->name,
			 what);
	}
	j->nterr++;
	return 0;
}

static int wrong_token(jp *j, const jnode *nd)
{
	type_err(j, nd, "expected %s, got %s", kind_name(nd->kind),
		 sl_jsonlex_token_name(*j->p));
	return sl_jsonlex_skip(j);
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
		} else if (*p == ' ' || *p == '\t' || *p == '\r' ||
			   *p == '\n') {
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
		if (sl_jsonlex_str(j, dst, true))
			return -1;
	} else if (c == '-' || sl_jsonlex_isdig(c) || c == 'N' || c == 'I' ||
		   c == '+') {
		jnum num;
		if (sl_jsonlex_num(j, &num))
			return -1;
		if (num.frac && !num.special) {
			char *d;
			sl_buf_clear(&j->tmp);
			sl_fmt_double(sl_jsonlex_num_double(&num), &j->tmp);
			d = sl_arena_dup(j->arena, sl_buf_cstr(&j->tmp),
					 j->tmp.len);
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
		if (sl_jsonlex_skip(j))
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
	if (c != '-' && !sl_jsonlex_isdig(c))
		return wrong_token(j, nd);
	if (sl_jsonlex_num(j, &num))
		return -1;
	if (num.frac || num.big ||
	    (nd->kind == SL_INT && (num.i < INT32_MIN || num.i > INT32_MAX)) ||
	    (nd->kind == SL_TIMESTAMP && (num.i > INT64_MAX / SL_US_PER_SEC ||
					  num.i < INT64_MIN / SL_US_PER_SEC))) {
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
		if (sl_jsonlex_str(j, &s, false))
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
			return type_err(j, nd, "expected DOUBLE, got %s",
					"string");
		sl_col_f64(nd->col)[i] = d;
		unnull(nd->col, i);
		return 0;
	}
	if (c != '-' && !sl_jsonlex_isdig(c) && c != 'N' && c != 'I' &&
	    c != '+')
		return wrong_token(j, nd);
	if (sl_jsonlex_num(j, &num))
		return -1;
	sl_col_f64(nd->col)[i] = sl_jsonlex_num_double(&num);
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
			return type_err(j, nd, "invalid base64 in %s",
					"string");
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
	if (sl_jsonlex_str(j, &s, nd->kind == SL_BINARY))
		return -1;
	if (nd->kind == SL_BINARY)
		return put_binary(j, nd, i, s);
	if (nd->kind == SL_DATE) { /* Spark's default dateFormat yyyy-MM-dd */
		if (!sl_date_parse(s.p, s.len, &sl_col_i32(nd->col)[i])) {
			snprintf(shown, sizeof shown, "%.*s",
				 s.len > 40 ? 40 : (int)s.len, s.p);
			return type_err(j, nd, "cannot parse '%s' as DATE",
					shown);
		}
		unnull(nd->col, i);
		return 0;
	}
	if (!sl_format_parse_ts(s.p, s.len, &sl_col_i64(nd->col)[i], &j->tsc)) {
		snprintf(shown, sizeof shown, "%.*s",
			 s.len > 40 ? 40 : (int)s.len, s.p);
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
		return sl_jsonlex_syn(j, "nesting too deep");
	j->p++;
	sl_jsonlex_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		goto done;
	}
	for (;;) {
		sl_jsonlex_ws(j);
		if (j->p >= j->end || (*j->p != '"' && *j->p != '\''))
			return sl_jsonlex_syn(j, "expected field name");
		if (sl_jsonlex_str(j, &key, false))
			return -1;
		sl_jsonlex_ws(j);
		if (j->p >= j->end || *j->p != ':')
			return sl_jsonlex_syn(j, "expected ':'");
		j->p++;
		sl_jsonlex_ws(j);
		k = field_find(nd, key.p, key.len);
		if (k < 0) {
			if (sl_jsonlex_skip(j))
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
		sl_jsonlex_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			break;
		}
		return sl_jsonlex_syn(j, "expected ',' or '}'");
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
		return sl_jsonlex_syn(j, "nesting too deep");
	j->p++;
	sl_jsonlex_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		goto done;
	}
	for (;;) {
		sl_jsonlex_ws(j);
		if (n >= el->cap && node_grow(el, n + 1)) {
			j->oom = true;
			return -1;
		}
		if (el->kind == SL_ARRAY)
			el->col->offsets[n + 1] = el->col->offsets[n];
		if (parse_value(j, el, n))
			return -1;
		n++;
		sl_jsonlex_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			break;
		}
		return sl_jsonlex_syn(j, "expected ',' or ']'");
	}
done:
	if (n > INT32_MAX)
		return sl_jsonlex_syn(j, "array too large");
	nd->col->offsets[i + 1] = (int32_t)n;
	unnull(nd->col, i);
	j->depth--;
	return 0;
}

static int parse_value(jp *j, jnode *nd, int64_t i)
{
	char c;
	if (j->p >= j->end)
		return sl_jsonlex_syn(j, NULL);
	c = *j->p;
	if (c == 'n') {
		if (sl_jsonlex_lit(j, "null", 4))
			return -1;
		return set_null_deep(j, nd, i);
	}
	switch (nd->kind) {
	case SL_STRING: return put_string(j, nd, i);
	case SL_INT:
	case SL_BIGINT: return put_int(j, nd, i);
	case SL_DOUBLE: return put_double(j, nd, i);
	case SL_TIMESTAMP:
	case SL_DATE:
	case SL_BINARY: return put_strtyped(j, nd, i);
	case SL_BOOLEAN:
		if (c == 't' || c == 'f') {
			if (sl_jsonlex_lit(j, c == 't' ? "true" : "false",
					   c == 't' ? 4 : 5))
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
	default: /* NULLTYPE: every value is null */ return sl_jsonlex_skip(j);
	}
}

/* One record: an object, then anything (Jackson stops after it). */
static int parse_record(jp *j, jnode *root, int64_t i)
{
	sl_jsonlex_ws(j);
	if (j->p >= j->end || *j->p != '{')
		return sl_jsonlex_syn(j, "expected '{'");
	return parse_object(j, root, i);
}

typedef struct jread {
	const char *name;
	sl_format_mode mode;
	size_t maxline; /* option maxLineBytes */
	int corrupt;
	sl_col **cols;
	jnode root;
	sl_jsonscan *scan;        /* the fast path, or NULL */
	int64_t cap;              /* rows the columns have room for */
	const sl_format_bad *bad; /* hears of malformed records, or NULL */
	int64_t line0;		  /* lines before data (a file's later chunk) */
	jp j;
} jread;

/* Rows to allocate for a text of len bytes: the lines of its first 64 KiB
 * scaled to the whole, plus an eighth (one pass over a prefix instead of
 * over the text); read_lines grows the columns when the rest has shorter
 * lines. */
static int64_t rows_guess(const char *data, size_t len)
{
	size_t pre = len < 65536 ? len : 65536;
	int64_t n = sl_format_count_lines(data, pre), g;
	if (pre == len)
		return n;
	g = (int64_t)((double)n * ((double)len / (double)pre));
	return g + g / 8 + 16;
}

/* Room for row `row` in every column: capacity doubles. */
static int grow_rows(jread *r, int64_t row, sl_err *err)
{
	for (int k = 0; k < r->root.nkids; k++)
		if (node_grow(&r->root.kids[k], row + 1))
			return sl_err_nomem(err);
	if (r->root.nkids > 0)
		r->cap = r->root.kids[0].cap;
	return 0;
}

/* A malformed record at row i (reason: malformed or too_long): what the
 * mode says.  Returns 1 to keep the row, 0 to drop it, or an error. */
static int on_malformed(jread *r, int syntax, int64_t i, int64_t lineno,
			const char *ls, const char *le, const char *reason,
			sl_err *err)
{
	int k;
	if (r->mode == SL_MODE_FAILFAST)
		return sl_err_set(err, SL_EDATA,
				  "json: malformed record at %s:%lld: %s",
				  r->name, (long long)lineno, r->j.why);
	sl_format_bad_report(r->bad, r->name, lineno, reason, r->j.why);
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
	/* the fast path scans only lines that end with '\n' */
	const char *safe = len ? memrchr(data, '\n', len) : NULL;
	int64_t row = 0, lineno = r->line0, n;
	int rc;
	safe = safe != NULL ? safe + 1 : data;
	for (; p < e; p = eol + 1) {
		while (r->scan != NULL && p < safe) {
			if (row >= r->cap && grow_rows(r, row, err))
				return SL_ENOMEM;
			n = sl_jsonscan_run(r->scan, &p, safe, row,
					    r->cap - row, &lineno, &r->j.tsc);
			if (n < 0)
				return sl_err_nomem(err);
			row += n;
			if (row < r->cap)
				break; /* stopped at a line it does not take */
		}
		if (p >= e)
			break;
		eol = memchr(p, '\n', (size_t)(e - p));
		if (eol == NULL)
			eol = e;
		le = eol;
		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		if ((size_t)(le - p) > r->maxline) {
			/* too_long: nulls, and the first maxLineBytes bytes as
			 * the corrupt record */
			if (row >= r->cap && grow_rows(r, row, err))
				return SL_ENOMEM;
			snprintf(r->j.why, sizeof r->j.why,
				 "line longer than maxLineBytes (%zu)",
				 r->maxline);
			rc = on_malformed(r, 1, row, lineno, p, p + r->maxline,
					  "too_long", err);
			if (rc < 0)
				return rc;
			row += rc;
			continue;
		}
		if (p == le || (*p != '{' && sl_jsonlex_blank(p, le)))
			continue;
		if (row >= r->cap && grow_rows(r, row, err))
			return SL_ENOMEM;
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
		rc = on_malformed(r, rc != 0, row, lineno, p, le, "malformed",
				  err);
		if (rc < 0)
			return rc;
		row += rc;
	}
	*nrows = row;
	return 0;
}

sl_batch *sl_json_read(const char *name, sl_arena *arena, const char *data,
		       size_t len, sl_type *schema, const sl_options *opts,
		       const sl_format_bad *bad, sl_err *err)
{
	return sl_json_read_at(name, 0, arena, data, len, schema, opts, bad,
			       err);
}

sl_batch *sl_json_read_at(const char *name, int64_t line0, sl_arena *arena,
			  const char *data, size_t len, sl_type *schema,
			  const sl_options *opts, const sl_format_bad *bad,
			  sl_err *err)
{
	return sl_json_read_nl(name, line0, -1, arena, data, len, schema, opts,
			       bad, err);
}

sl_batch *sl_json_read_nl(const char *name, int64_t line0, int64_t nl,
			  sl_arena *arena, const char *data, size_t len,
			  sl_type *schema, const sl_options *opts,
			  const sl_format_bad *bad, sl_err *err)
{
	jread r;
	int64_t cap, nrows = 0;
	int k, nf = schema->nfields, rc;
	bool fast = true;
	sl_batch *b = NULL;
	memset(&r, 0, sizeof r);
	r.name = name;
	r.bad = bad;
	r.line0 = line0;
	if (sl_format_mode_get(opts, &r.mode, err) ||
	    sl_format_max_line_get(opts, &r.maxline, err) ||
	    (opts != NULL &&
	     sl_options_bool(opts, "fastPath", true, &fast, err)))
		return NULL;
	r.corrupt = sl_format_corrupt_index(schema, opts);
	cap = nl >= 0 ? nl + 1 : rows_guess(data, len);
	r.cols = calloc((size_t)(nf ? nf : 1), sizeof *r.cols);
	if (r.cols == NULL)
		goto oom;
	/* not zeroed: every row the reader keeps has each field stored or
	 * set NULL (sl_col_set_null zeroes the slot), by either path */
	for (k = 0; k < nf; k++)
		if ((r.cols[k] = sl_col_new_raw(schema->fields[k].type, cap)) ==
		    NULL)
			goto oom;
	r.cap = nf > 0 ? cap : INT64_MAX;
	sl_jsonlex_init(&r.j, arena);
	r.root.type = schema;
	r.root.kind = SL_STRUCT;
	r.root.root = true;
	r.root.skip = r.corrupt;
	if (struct_init(&r.root, r.cols, arena))
		goto oom;
	if (fast)
		r.scan = sl_jsonscan_new(schema, r.cols, r.corrupt);
	/* +1: the fast path's lengths include the '\n' */
	sl_jsonscan_max_line(r.scan, r.maxline + 1);
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
	sl_jsonscan_free(r.scan);
	node_release(&r.root);
	sl_buf_release(&r.j.tmp);
	if (r.cols != NULL)
		for (k = 0; k < nf; k++)
			sl_col_free(r.cols[k]);
	free(r.cols);
	return b;
}

/* from_json.  Texts of an arena we may hold (sl_json_decode_col) that lie
 * back to back, each followed by '\n' (the Kafka source lays its values
 * out so: kafka_fetch.c), are scanned in place by the reader's fast path
 * (jsonscan.c), and the result's arena holds the texts' arena (its
 * strings point into them).  Other runs of texts without a newline of
 * their own are copied as lines ('\n' after each) into the result's arena
 * and offered to the fast path in one go.  Each line the fast path does
 * not take goes to the general parser, which overwrites the row, as in
 * the reader. */
typedef struct jdec {
	const sl_str *texts;
	const uint8_t *nulls;
	int64_t n;
	bool inplace; /* the texts' bytes are held by the result */
	sl_col *c;
	jnode root;
	jp j;
	sl_jsonscan *scan;
	sl_arena *arena; /* the result's */
} jdec;

static bool dec_null(const jdec *d, int64_t i)
{
	return (d->nulls != NULL && (d->nulls[i >> 3] >> (i & 7)) & 1) ||
	       d->texts[i].p == NULL;
}

/* Text i is followed by '\n' and then text i+1, both non-empty and not
 * null.  The '\n' is read only when text i+1 starts right after it: it
 * then lies between two bytes known to be readable. */
static inline bool dec_abutting(const jdec *d, int64_t i)
{
	const sl_str *t = &d->texts[i];
	return i + 1 < d->n && t[0].len > 0 && t[1].len > 0 &&
	       t[1].p == t[0].p + t[0].len + 1 && t[0].p[t[0].len] == '\n' &&
	       !dec_null(d, i + 1);
}

/* Row i by the general parser from t[0..len); -1 on out of memory. */
static int dec_general(jdec *d, int64_t i, const char *t, size_t len)
{
	int rc;
	d->j.p = d->j.line = t;
	d->j.end = t + len;
	d->j.depth = 0;
	d->j.nterr = 0;
	d->j.why[0] = '\0';
	rc = parse_record(&d->j, &d->root, i);
	if (d->j.oom)
		return -1;
	/* Spark 3: a malformed text gives a struct of nulls */
	if (rc != 0)
		for (int k = 0; k < d->root.nkids; k++)
			if (set_null_deep(&d->j, &d->root.kids[k], i))
				return -1;
	unnull(d->c, i);
	return 0;
}

/* Rows [i, k) whose lines lie back to back from p to e, through the fast
 * path; the lines it stops at through the general parser.  inplace: the
 * lines are the texts themselves (else a copy), where a text with a '\n'
 * of its own would be taken as two lines: the fast path then ends a run
 * of rows elsewhere than at the next text's start, and those rows go
 * through the general parser (which overwrites them).  0, or -1 on out of
 * memory. */
static int dec_lines(jdec *d, int64_t i, int64_t k, const char *p,
		     const char *e, bool inplace)
{
	int64_t row = i, lineno = 0, got, r;
	while (row < k) {
		got = sl_jsonscan_run(d->scan, &p, e, row, k - row, &lineno,
				      &d->j.tsc);
		if (got < 0)
			return -1;
		if (inplace && got > 0 &&
		    p != (row + got < k ? d->texts[row + got].p : e)) {
			for (r = row; r < row + got; r++)
				if (dec_general(d, r, d->texts[r].p,
						d->texts[r].len) != 0)
					return -1;
			p = row + got < k ? d->texts[row + got].p : e;
		} else if (d->c->nulls != NULL) {
			for (r = row; r < row + got; r++)
				unnull(d->c, r);
		}
		row += got;
		if (row >= k)
			break;
		if (dec_general(d, row, p, d->texts[row].len) != 0)
			return -1;
		p += d->texts[row].len + 1;
		row++;
	}
	return 0;
}

/* From row i: the run of abutting texts in place (its last text, whose
 * '\n' is not known, excluded), or else the texts up to the next such run
 * that have no newline of their own, copied as lines.  Returns the first
 * row after the run (> i), -1 on out of memory, or i itself when text i
 * cannot be a line. */
static int64_t dec_run(jdec *d, int64_t i)
{
	const sl_str *t = d->texts;
	int64_t k = i;
	size_t total = 0;
	char *buf, *q;
	if (d->inplace && dec_abutting(d, i)) {
		while (dec_abutting(d, k))
			k++;
		return dec_lines(d, i, k, t[i].p, t[k].p, true) < 0 ? -1 : k;
	}
	while (k < d->n && !dec_null(d, k) && t[k].len > 0 &&
	       !(d->inplace && dec_abutting(d, k)))
		total += t[k++].len + 1;
	if (k == i || (buf = q = sl_arena_alloc(d->arena, total)) == NULL)
		return k == i ? i : -1;
	for (k = i; k < d->n && total > 0; k++) {
		if (memccpy(q, t[k].p, '\n', t[k].len) != NULL)
			break;
		q[t[k].len] = '\n';
		q += t[k].len + 1;
		total -= t[k].len + 1;
	}
	if (k == i)
		return i;
	return dec_lines(d, i, k, buf, q, false) < 0 ? -1 : k;
}

static void dec_release(jdec *d)
{
	node_release(&d->root);
	sl_jsonscan_free(d->scan);
	sl_buf_release(&d->j.tmp);
}

static sl_col *decode(const sl_str *texts, const uint8_t *nulls, int64_t n,
		      sl_arena *owner, sl_type *schema, sl_err *err)
{
	jdec d;
	int64_t i, k;
	memset(&d, 0, sizeof d);
	d.texts = texts;
	d.nulls = nulls;
	d.n = n;
	sl_jsonlex_init(&d.j, NULL);
	if (schema->kind != SL_STRUCT) {
		sl_err_set(err, SL_EINVAL,
			   "from_json: schema must be a STRUCT");
		return NULL;
	}
	d.arena = sl_arena_new();
	if (d.arena != NULL && owner != NULL) {
		if (sl_arena_hold(d.arena, owner) != 0)
			goto oom;
		d.inplace = true;
	}
	/* raw: every row gets each field stored or set NULL (deep), by the
	 * fast path (its fill_missing) or the general parser, or is NULL
	 * (set_null_deep), as in the reader */
	d.c = d.arena ? sl_col_new_raw(schema, n) : NULL;
	if (d.c == NULL ||
	    node_init(&d.root, schema, "value", d.c, d.arena, -1))
		goto oom;
	d.root.root = true;
	d.j.arena = d.arena;
	d.scan = sl_jsonscan_new(schema, d.c->child, -1);
	for (i = 0; i < n;) {
		const char *t;
		if (dec_null(&d, i)) {
			if (set_null_deep(&d.j, &d.root, i))
				goto oom;
			i++;
			continue;
		}
		if (d.scan != NULL && (k = dec_run(&d, i)) != i) {
			if (k < 0)
				goto oom;
			i = k;
			continue;
		}
		t = texts[i].len == 0 ? ""
		    : d.inplace
			? texts[i].p
			: sl_arena_dup(d.arena, texts[i].p, texts[i].len);
		if (t == NULL || dec_general(&d, i, t, texts[i].len) != 0)
			goto oom;
		i++;
	}
	node_finish(&d.root, n);
	dec_release(&d);
	sl_arena_free(d.arena);
	return d.c;
oom:
	dec_release(&d);
	sl_arena_free(d.arena);
	sl_col_free(d.c);
	sl_err_nomem(err);
	return NULL;
}

sl_col *sl_json_decode(const sl_str *texts, const uint8_t *nulls, int64_t n,
		       sl_type *schema, sl_err *err)
{
	return decode(texts, nulls, n, NULL, schema, err);
}

sl_col *sl_json_decode_col(const sl_col *c, sl_type *schema, sl_err *err)
{
	return decode(sl_col_str(c), c->nulls, c->len, c->arena, schema, err);
}
