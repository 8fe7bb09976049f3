/*
 * csv: Spark's CSV data source (reader, schema inference, writer).
 *
 * Tokenizing follows univocity as Spark configures it: quoted fields may
 * hold the separator and escaped quotes ("a\"b", option escape, \ by
 * default; doubled quotes "a""b" only with escape '"', as in Spark, where
 * the default reads them as written); text after a closing quote keeps
 * the quotes in the value (unescapedQuoteHandling STOP_AT_DELIMITER); a
 * trailing \r is stripped; lines starting with the comment character
 * (option comment, none by default) are skipped; a token equal to
 * nullValue ("" by default, so empty fields) is NULL.
 *
 * One record per line unless option multiLine is true, as Spark: with
 * multiLine=false (the default) Spark splits the file into lines first
 * (TextInputCSVDataSource, UnivocityParser.parseIterator), drops the lines
 * that are empty after trim() and hands each line to univocity's
 * parseLine, so a quote still open at the line's end closes there (its
 * value is the rest of the line, AbstractParser.handleEOF) and the next
 * line is the next record: `2,"abc` is the two tokens 2 and abc.  With
 * multiLine=true a quoted field runs over newlines (to the end of the
 * input if it never closes) and only empty lines are skipped.
 *
 * A record is malformed (Spark 3 UnivocityParser) when its token count
 * differs from the schema's (corrupt-record column excluded) or a token
 * does not convert to its column's type.  PERMISSIVE keeps the partial row
 * (missing and unconvertible fields NULL, extra tokens ignored) and puts the
 * record's text in the corrupt-record column when the schema has it;
 * DROPMALFORMED drops it; FAILFAST fails: "csv: malformed record at
 * FILE:LINE: field 'amount': cannot parse 'abc' as INT".  LINE is the line
 * the record starts on.  Every record gives a row or, in DROPMALFORMED, is
 * dropped for a reason these rules name; none vanishes into a value.
 * A line (with multiLine, a record) longer than maxLineBytes is malformed
 * too (reason too_long; Spark has no such cap): every field NULL and the
 * corrupt record its first maxLineBytes bytes, and reading goes on after
 * the next newline (fileformat.h).
 *
 * Strings are zero-copy pointers into the file's arena except quoted
 * fields with escapes, which are decoded into the arena.  The writer does
 * not trim whitespace (Spark's ignoreLeading/TrailingWhiteSpace on write).
 * Never prints.
 */
#include "formats/fileformat.h"
#include "formats/fileformat_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/timeutil.h"

typedef struct csvopt {
	char sep, quote, escape, comment; /* quote/comment '\0' = none */
	const char *nullv;
	size_t nulln;
	bool header, infer, multiline;
	sl_format_mode mode;
	size_t maxline; /* option maxLineBytes */
	const char *corrupt;
} csvopt;

/* One tokenizer over a buffer. */
typedef struct csvtok {
	const csvopt *o;
	const char *p, *end;
	int64_t line;    /* line number of p */
	sl_arena *arena; /* decoded fields (quotes, escapes undone) */
	sl_arena *own;   /* the tokenizer's own, when the caller gave none */
	sl_buf tmp;
	sl_str *tok;
	int ntok, cap;
	bool oom;
	const char *rec, *rec_end; /* the current record's text */
	int64_t rec_line;
	bool too_long; /* the record ran past maxLineBytes: no tokens, rec_end
			* at rec + maxLineBytes, p past its line */
} csvtok;

static int opt_char(const sl_options *opts, const char *key, char def,
		    bool none_ok, char *out, sl_err *err)
{
	const char *v = opts ? sl_options_get(opts, key) : NULL;
	if (v == NULL) {
		*out = def;
		return 0;
	}
	if (v[0] == '\0' && none_ok) {
		*out = '\0';
		return 0;
	}
	if (strcmp(v, "\\t") == 0) {
		*out = '\t';
		return 0;
	}
	if (strlen(v) != 1)
		return sl_err_set(
		    err, SL_EINVAL,
		    "option '%s': expected a single character, got '%s'", key,
		    v);
	*out = v[0];
	return 0;
}

static int csvopt_get(const sl_options *opts, csvopt *o, sl_err *err)
{
	const char *key = "sep";
	sl_options none;
	memset(o, 0, sizeof *o);
	sl_options_init(&none);
	if (opts == NULL)
		opts = &none; /* holds nothing, so needs no release */
	if (opts && sl_options_get(opts, "sep") == NULL &&
	    sl_options_get(opts, "delimiter") != NULL)
		key = "delimiter";
	if (opt_char(opts, key, ',', false, &o->sep, err) ||
	    opt_char(opts, "quote", '"', true, &o->quote, err) ||
	    opt_char(opts, "escape", '\\', true, &o->escape, err) ||
	    opt_char(opts, "comment", '\0', true, &o->comment, err) ||
	    sl_options_bool(opts, "header", false, &o->header, err) ||
	    sl_options_bool(opts, "inferSchema", false, &o->infer, err) ||
	    sl_options_bool(opts, "multiLine", false, &o->multiline, err) ||
	    sl_format_mode_get(opts, &o->mode, err) ||
	    sl_format_max_line_get(opts, &o->maxline, err))
		return err ? err->code : SL_EINVAL;
	o->nullv = opts ? sl_options_get(opts, "nullValue") : NULL;
	if (o->nullv == NULL)
		o->nullv = "";
	o->nulln = strlen(o->nullv);
	o->corrupt = sl_format_corrupt_name(opts);
	return 0;
}

static void tok_init(csvtok *t, const csvopt *o, sl_arena *arena,
		     const char *data, size_t len)
{
	memset(t, 0, sizeof *t);
	t->o = o;
	t->p = data;
	t->end = data + len;
	t->line = 1;
	/* Decoded fields need a home that outlives the next one: a record
	 * may hold several (two fields with "" once shared tmp, and the first
	 * pointed into freed memory; found by tests/fuzz/fuzz_csv.c). */
	if (arena == NULL && (arena = t->own = sl_arena_new()) == NULL)
		t->oom = true;
	t->arena = arena;
	sl_buf_init(&t->tmp);
}

static void tok_release(csvtok *t)
{
	sl_buf_release(&t->tmp);
	sl_arena_free(t->own);
	free(t->tok);
}

static int tok_push(csvtok *t, const char *p, size_t n)
{
	if (t->ntok == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		sl_str *v = realloc(t->tok, (size_t)cap * sizeof *v);
		if (v == NULL) {
			t->oom = true;
			return -1;
		}
		t->tok = v;
		t->cap = cap;
	}
	t->tok[t->ntok].p = p;
	t->tok[t->ntok++].len = (uint32_t)n;
	return 0;
}

/* A quoted field at t->p (the opening quote). */
static int quoted(csvtok *t)
{
	const csvopt *o = t->o;
	const char *s = ++t->p, *p = s, *e = t->end;
	bool copy = false;
	char *d;
	sl_buf *b = &t->tmp;
	sl_buf_clear(b);
	while (p < e) {
		char c = *p;
		if (c == o->escape && o->escape != o->quote && p + 1 < e &&
		    (p[1] == o->quote || p[1] == o->escape)) {
			if (!copy)
				sl_buf_add(b, s, (size_t)(p - s));
			copy = true;
			sl_buf_addc(b, p[1]);
			p += 2;
			continue;
		}
		if (c == o->quote) {
			if (p + 1 < e && p[1] == o->quote) {
				if (!copy)
					sl_buf_add(b, s, (size_t)(p - s));
				copy = true;
				sl_buf_addc(b, c);
				if (o->escape != o->quote) {
					/* univocity with a quote escape other
					 * than the quote (Spark's default
					 * escape is \): the pair gives one
					 * quote and its second half closes
					 * the value, so `"a""b"` is read as
					 * written (what follows a closing
					 * quote, below); escape '"' decodes
					 * RFC 4180's doubled quotes. */
					p++;
					break;
				}
				p += 2;
				continue;
			}
			break;
		}
		if (c == '\n') {
			if (!o->multiline)
				break; /* the line ends the record */
			t->line++;
		}
		if (copy)
			sl_buf_addc(b, c);
		p++;
	}
	if (p < e ? *p == '\n' : !o->multiline) {
		/* An unterminated quote at the line's end (multiLine false):
		 * univocity's parseLine hits the end of its input inside the
		 * quotes and handleEOF keeps what it read as the value, so
		 * `2,"abc` is the two tokens 2 and abc, not a malformed
		 * record.  The line reader has already cut "\r\n". */
		const char *q = p;
		if (q > s && q[-1] == '\r')
			q--;
		t->p = p;
		if (!copy)
			return tok_push(t, s, (size_t)(q - s));
		if (b->len > 0 && q < p) {
			b->len--;
			b->p[b->len] = '\0';
		}
		goto decoded;
	}
	if (!copy && (p >= e || p + 1 >= e || p[1] == o->sep || p[1] == '\n' ||
		      (p[1] == '\r' && (p + 2 >= e || p[2] == '\n')))) {
		t->p = p < e ? p + 1 : p;
		return tok_push(t, s, (size_t)(p - s));
	}
	if (!copy)
		sl_buf_add(b, s, (size_t)(p - s));
	if (p < e) {
		/* After the closing quote, blanks before the separator or the
		 * line's end are dropped; anything else makes the quote an
		 * unescaped one (univocity's STOP_AT_DELIMITER, Spark's default
		 * unescapedQuoteHandling): the value is then both quotes and
		 * the rest up to the separator, as written. */
		const char *q = ++p;
		while (q < e && *q != o->sep && *q != '\n' &&
		       (unsigned char)*q <= ' ')
			q++;
		if (q < e && *q != o->sep && *q != '\n') {
			sl_buf_addc(b, o->quote);
			if (!sl_buf_failed(b)) {
				memmove(b->p + 1, b->p, b->len - 1);
				b->p[0] = o->quote;
			}
			sl_buf_addc(b, o->quote);
			for (q = p; q < e && *q != o->sep && *q != '\n'; q++)
				if (!(*q == '\r' &&
				      (q + 1 >= e || q[1] == '\n')))
					sl_buf_addc(b, *q);
		}
		p = q;
	}
	t->p = p;
decoded:
	if (sl_buf_failed(b)) {
		t->oom = true;
		return -1;
	}
	d = t->arena ? sl_arena_dup(t->arena, sl_buf_cstr(b), b->len) : NULL;
	if (d == NULL) {
		t->oom = true;
		return -1;
	}
	return tok_push(t, d, b->len);
}

/* The record from t->rec has reached t->p, past maxLineBytes: unless its
 * line ends right here with "\r\n" and fits without the '\r', mark it
 * too_long and go past the next newline (one memchr over the rest). */
static bool tok_too_long(csvtok *t)
{
	const char *e = t->end, *eol = memchr(t->p, '\n', (size_t)(e - t->p));
	const char *le = eol != NULL ? eol : e;
	if (le > t->rec && le[-1] == '\r' && le == t->p &&
	    (size_t)(le - 1 - t->rec) <= t->o->maxline)
		return false;
	t->too_long = true;
	t->ntok = 0;
	t->rec_end = t->rec + t->o->maxline;
	t->p = eol != NULL ? eol + 1 : e;
	if (eol != NULL)
		t->line++;
	return true;
}

/* Next record into t->tok; false at the end of the input. */
static bool tok_next(csvtok *t)
{
	const csvopt *o = t->o;
	const char *e = t->end, *p, *s;
	for (;;) {
		if (t->p >= e)
			return false;
		if (!o->multiline) {
			/* Spark's filterCommentAndEmpty drops the lines that
			 * are empty after trim() (every char <= ' '). */
			p = t->p;
			while (p < e && *p != '\n' && (unsigned char)*p <= ' ')
				p++;
			if (p == e || *p == '\n') {
				t->p = p < e ? p + 1 : e;
				t->line++;
				continue;
			}
		}
		if (*t->p == '\n' ||
		    (*t->p == '\r' && (t->p + 1 >= e || t->p[1] == '\n'))) {
			t->p += *t->p == '\r' ? (t->p + 1 < e ? 2 : 1) : 1;
			t->line++;
			continue;
		}
		if (o->comment != '\0' && *t->p == o->comment) {
			p = memchr(t->p, '\n', (size_t)(e - t->p));
			t->p = p ? p + 1 : e;
			t->line++;
			continue;
		}
		break;
	}
	t->ntok = 0;
	t->too_long = false;
	t->rec = t->p;
	t->rec_line = t->line;
	for (;;) {
		if (t->p < e && o->quote != '\0' && *t->p == o->quote) {
			if (quoted(t))
				return false;
		} else {
			p = s = t->p;
			while (p < e && *p != o->sep && *p != '\n')
				p++;
			t->p = p;
			if (p > s && (p == e || *p == '\n') && p[-1] == '\r')
				p--;
			if (tok_push(t, s, (size_t)(p - s)))
				return false;
		}
		/* maxLineBytes, checked once a token (no pass of its own) */
		if ((size_t)(t->p - t->rec) > o->maxline && tok_too_long(t))
			return true;
		if (t->p < e && *t->p == o->sep) {
			t->p++;
			continue;
		}
		t->rec_end = t->p;
		if (t->rec_end > t->rec && t->rec_end[-1] == '\r')
			t->rec_end--;
		if (t->p < e) {
			t->p++;
			t->line++;
		}
		return true;
	}
}

static const char *kind_name(sl_kind k)
{
	switch (k) {
	case SL_BOOLEAN: return "BOOLEAN";
	case SL_INT: return "INT";
	case SL_BIGINT: return "BIGINT";
	case SL_DOUBLE: return "DOUBLE";
	case SL_TIMESTAMP: return "TIMESTAMP";
	case SL_DATE: return "DATE";
	case SL_BINARY: return "BINARY";
	default: return "STRING";
	}
}

/* Convert token s into row i of c; false if it does not convert. */
static bool convert(sl_col *c, int64_t i, sl_str s, sl_format_tscache *tsc)
{
	int64_t v;
	double d;
	bool b;
	switch (c->type->kind) {
	case SL_STRING:
	case SL_BINARY: sl_col_str(c)[i] = s; return true;
	case SL_INT:
		if (!sl_format_parse_i64(s.p, s.len, &v) || v < INT32_MIN ||
		    v > INT32_MAX)
			return false;
		sl_col_i32(c)[i] = (int32_t)v;
		return true;
	case SL_BIGINT:
		return sl_format_parse_i64(s.p, s.len, &sl_col_i64(c)[i]);
	case SL_DOUBLE:
		if (!sl_format_parse_double(s.p, s.len, &d))
			return false;
		sl_col_f64(c)[i] = d;
		return true;
	case SL_BOOLEAN:
		if (!sl_format_parse_bool(s.p, s.len, &b))
			return false;
		sl_col_u8(c)[i] = b;
		return true;
	case SL_TIMESTAMP:
		return sl_format_parse_ts(s.p, s.len, &sl_col_i64(c)[i], tsc);
	case SL_DATE: /* Spark's default dateFormat yyyy-MM-dd */
		return sl_date_parse(s.p, s.len, &sl_col_i32(c)[i]);
	default: return false;
	}
}

/* The fast path's op for one field: CF_TS a 19-byte timestamp of the
 * cached date, CF_INT/CF_BIGINT digits parsed as they are scanned, CF_STR
 * a plain token, CF_TOKEN the general token (fast_token). */
enum { CF_TOKEN, CF_TS, CF_INT, CF_BIGINT, CF_STR };

typedef struct cfield {
	sl_col *col; /* borrowed */
	int op;
	char stop; /* the separator, or '\n' after the last field */
	bool last;
} cfield;

typedef struct cread {
	const char *name;
	csvopt o;
	int corrupt;
	int nf;   /* fields parsed from tokens (corrupt column excluded) */
	int *map; /* map[k] = schema field of the k-th token column */
	sl_col **cols;
	sl_format_tscache tsc;
	bool fast;    /* option fastPath (default true) */
	bool ts_skip; /* CF_TS may take a timestamp token unscanned */
	cfield *prog; /* the fast path's ops, one per token column */
	char why[200];
	const sl_format_bad *bad; /* hears of malformed records, or NULL */
} cread;

static bool is_null_tok(const csvopt *o, sl_str s)
{
	return s.len == o->nulln && memcmp(s.p, o->nullv, s.len) == 0;
}

/* Fill row i from the tokens; returns 1 if the record is well formed, 0
 * if malformed (r->why says why), SL_ENOMEM. */
static int fill_row(cread *r, const sl_type *schema, csvtok *t, int64_t i)
{
	int ok = t->ntok == r->nf, k;
	r->why[0] = '\0';
	if (!ok)
		snprintf(r->why, sizeof r->why, "expected %d fields, got %d",
			 r->nf, t->ntok);
	for (k = 0; k < r->nf; k++) {
		sl_col *c = r->cols[r->map[k]];
		sl_str s;
		if (k < t->ntok && !is_null_tok(&r->o, (s = t->tok[k]))) {
			if (convert(c, i, s, &r->tsc)) {
				if (c->nulls != NULL)
					c->nulls[i >> 3] &=
					    (uint8_t) ~(1u << (i & 7));
				continue;
			}
			if (ok)
				snprintf(
				    r->why, sizeof r->why,
				    "field '%s': cannot parse '%.*s' as %s",
				    schema->fields[r->map[k]].name,
				    (int)(s.len > 60 ? 60 : s.len), s.p,
				    kind_name(c->type->kind));
			ok = 0;
		}
		if (sl_col_set_null(c, i) != 0)
			return SL_ENOMEM;
	}
	return ok;
}

/* ---- the fast path: unquoted single-line records ----
 *
 * Most CSV files are lines of plain tokens.  fast_run parses such lines
 * straight into the columns, one token after another, by one op per field
 * compiled once per read (fast_prog: a timestamp of the cached date taken
 * without a token scan, integers parsed as their digits are scanned, plain
 * strings), and for any token an op does not take, inline converters for
 * the common forms (digits, simple decimals) and convert() for the rest.  It stops before the first
 * line that is not plainly well formed (a quote opening a token, a blank
 * or comment line, a wrong token count, a token that does not convert) and
 * the tokenizer above takes that line, so results do not depend on the
 * path (t408-csv-fast checks both paths against each other).  Lines
 * scanned end with '\n' before `end`, so each loop stops at the '\n'. */

/* Integer token [+-]digits (at most 18): false if it needs convert(). */
static inline bool fast_int(const char *s, const char *e, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0;
	if (s < e && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	if (s == e || e - s > 18)
		return false;
	for (; s < e; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > 9)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* Decimal token [+-]digits[.digits] that strtod rounds exactly as
 * Clinger's fast path does (at most 18 digits, mantissa <= 2^53, at most
 * 22 fraction digits): false if it needs convert(). */
static inline bool fast_double(const char *s, const char *e, double *out)
{
	static const double p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
				      1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
				      1e14, 1e15, 1e16, 1e17, 1e18 };
	bool neg = false;
	uint64_t m = 0;
	int nd = 0, fd = -1;
	double d;
	if (s < e && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	for (; s < e; s++) {
		unsigned v = (unsigned)(*s - '0');
		if (v <= 9) {
			m = m * 10 + v;
			nd++;
			fd += fd >= 0;
		} else if (*s == '.' && fd < 0) {
			fd = 0;
		} else {
			return false;
		}
	}
	if (nd == 0 || nd > 18 || fd == 0 || m > (UINT64_C(1) << 53))
		return false;
	d = fd > 0 ? (double)m / p10[fd] : (double)m;
	*out = neg ? -d : d;
	return true;
}

/* Token [s, e) into row i of c; false if it does not convert. */
static inline bool fast_convert(sl_col *c, int64_t i, const char *s,
				const char *e, sl_format_tscache *tsc)
{
	int64_t v;
	switch (c->type->kind) {
	case SL_STRING:
	case SL_BINARY:
		sl_col_str(c)[i].p = s;
		sl_col_str(c)[i].len = (uint32_t)(e - s);
		return true;
	case SL_INT:
		if (fast_int(s, e, &v) && v >= INT32_MIN && v <= INT32_MAX) {
			sl_col_i32(c)[i] = (int32_t)v;
			return true;
		}
		break;
	case SL_BIGINT:
		if (fast_int(s, e, &sl_col_i64(c)[i]))
			return true;
		break;
	case SL_DOUBLE:
		if (fast_double(s, e, &sl_col_f64(c)[i]))
			return true;
		break;
	case SL_TIMESTAMP:
		if (e - s == 19 &&
		    sl_format_ts_cached(s, &sl_col_i64(c)[i], tsc))
			return true;
		break;
	default: break;
	}
	return convert(c, i, (sl_str){ s, (uint32_t)(e - s) }, tsc);
}

/* The first sep or '\n' from p on, 16 then 8 bytes a step while in
 * bounds (the lowest flagged byte of the zero-byte test is exact). */
static inline const char *tok_end(const char *p, const char *end, char sep)
{
#ifdef __SSE2__
	/* 16 bytes a step first: 7 instructions where the 8-byte step takes
	 * 20 (no andn in baseline x86-64) */
	const __m128i sv = _mm_set1_epi8(sep), nv = _mm_set1_epi8('\n');
	while (end - p >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)p);
		unsigned z = (unsigned)_mm_movemask_epi8(
		    _mm_or_si128(_mm_cmpeq_epi8(x, sv), _mm_cmpeq_epi8(x, nv)));
		if (z != 0)
			return p + __builtin_ctz(z);
		p += 16;
	}
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, high = ones * 0x80;
	const uint64_t ms = ones * (uint8_t)sep, mn = ones * '\n';
	while (end - p >= 8) {
		uint64_t w, a, b, z;
		memcpy(&w, p, 8);
		a = w ^ ms;
		b = w ^ mn;
		z = (((a - ones) & ~a) | ((b - ones) & ~b)) & high;
		if (z != 0)
			return p + (__builtin_ctzll(z) >> 3);
		p += 8;
	}
#else
	(void)end;
#endif
	while (*p != sep && *p != '\n')
		p++;
	return p;
}

/* Unnull row i of c. */
static inline void csv_unnull(sl_col *c, int64_t i)
{
	if (c->nulls != NULL)
		c->nulls[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* One token of field f at p into row i the general way (a quote stops the
 * fast path; nullValue; fast_convert or convert): the byte after its
 * separator (the '\n' for the last field), or NULL. */
static const char *fast_token(cread *r, const cfield *f, const char *p,
			      const char *end, int64_t i)
{
	const csvopt *o = &r->o;
	const char *s = p, *e;
	if (*p == o->quote && o->quote != '\0')
		return NULL;
	e = p = tok_end(p, end, o->sep);
	if (f->last) {
		if (*p != '\n')
			return NULL; /* more tokens than fields */
		if (e > s && e[-1] == '\r')
			e--;
	} else if (*p++ != o->sep) {
		return NULL; /* fewer tokens than fields */
	}
	if ((size_t)(e - s) == o->nulln && memcmp(s, o->nullv, o->nulln) == 0) {
		if (sl_col_set_null(f->col, i) != 0)
			return NULL; /* the tokenizer reports it */
		return p;
	}
	if (!fast_convert(f->col, i, s, e, &r->tsc))
		return NULL;
	csv_unnull(f->col, i);
	return p;
}

/* A token of [+-]digits (at most 18) at p ending at f's stop ('\r\n' too
 * for the last field), into row i: the byte after the separator (the
 * '\n' for the last field), or NULL to take the general way.  Only for
 * CF_INT/CF_BIGINT, compiled when no quote, separator or nullValue can
 * be made of such bytes (fast_prog). */
static inline const char *fast_digits(const cfield *f, const char *p,
				      int64_t i)
{
	const char *q = p + (*p == '-' || *p == '+'), *d = q;
	uint64_t v = 0;
	unsigned x;
	while ((x = (unsigned)(*q - '0')) <= 9) {
		v = v * 10 + x;
		q++;
	}
	if (q == d || q - d > 18)
		return NULL;
	if (*q != f->stop && !(f->last && q[0] == '\r' && q[1] == '\n'))
		return NULL;
	if (!sl_format_store_int(f->col->data, i, v, *p == '-',
				 f->op == CF_BIGINT))
		return NULL;
	return f->last ? q + (*q == '\r') : q + 1;
}

/* One line at p into row i: the start of the next line, or NULL.  Each
 * field's op (fast_prog) picks its inline parser; a token it does not
 * take goes through fast_token, the same rules as before the ops. */
static const char *fast_line(cread *r, const char *p, const char *end,
			     int64_t i)
{
	const cfield *f = r->prog, *fe = f + r->nf;
	for (; f < fe; f++) {
		const char *q = NULL;
		switch (f->op) {
		case CF_TS:
			/* 19 bytes of the cached date, then the stop: no
			 * separator or null value hides in them (ts_skip) */
			if (end - p > 19 && p[19] == f->stop &&
			    sl_format_ts_cached(p, &sl_col_i64(f->col)[i],
						&r->tsc))
				q = p + 19 + !f->last;
			break;
		case CF_INT:
		case CF_BIGINT: q = fast_digits(f, p, i); break;
		case CF_STR:
			if (*p != r->o.quote || r->o.quote == '\0') {
				const char *e = tok_end(p, end, r->o.sep);
				if ((size_t)(e - p) != r->o.nulln &&
				    *e == f->stop &&
				    (!f->last || e == p || e[-1] != '\r')) {
					sl_str *d = &sl_col_str(f->col)[i];
					d->p = p;
					d->len = (uint32_t)(e - p);
					q = e + !f->last;
				}
			}
			break;
		default: break;
		}
		if (q != NULL) {
			csv_unnull(f->col, i);
			p = q;
		} else if ((p = fast_token(r, f, p, end, i)) == NULL) {
			return NULL;
		}
	}
	if (r->corrupt >= 0 && sl_col_set_null(r->cols[r->corrupt], i) != 0)
		return NULL;
	return p + 1;
}

/* The shape: fast_line's inline ops in one loop over the lines, for a
 * program with no CF_TOKEN field and no corrupt-record column, while no
 * column has a null bitmap (then no bit needs clearing); each field's op,
 * stop and values array in locals (stores into the columns could
 * otherwise alias r->prog and force reloads), a timestamp equal to the
 * last one's 19 bytes taken as three word compares.  Takes lines from *pp
 * (up to end, at most max) as fast_line's inline ops take them, with the
 * same values, and stops before the first other line, which fast_line
 * then looks at.  Returns the lines taken, or -1 when the shape does not
 * apply. */
static int64_t shape_run(cread *r, const char **pp, const char *end,
			 int64_t row)
{
	struct {
		int op;
		char stop;
		bool last;
		char *data;
	} sh[64];
	const int nf = r->nf;
	const char quote = r->o.quote, sep = r->o.sep, comment = r->o.comment;
	const size_t nulln = r->o.nulln, maxline = r->o.maxline + 1;
	const char *p = *pp;
	uint64_t t0 = 0, t1 = 0, t2 = 0;
	int64_t n = 0, tus = 0;
	bool tok = false;
	if (r->corrupt >= 0 || nf > 64 || nf == 0)
		return -1;
	for (int k = 0; k < nf; k++) {
		if (r->prog[k].op == CF_TOKEN || r->prog[k].col->nulls != NULL)
			return -1;
		sh[k].op = r->prog[k].op;
		sh[k].stop = r->prog[k].stop;
		sh[k].last = r->prog[k].last;
		sh[k].data = r->prog[k].col->data;
	}
	while (p < end && (unsigned char)*p > ' ' &&
	       (*p != comment || comment == '\0')) {
		const char *q = p, *e, *d;
		const int64_t i = row + n;
		for (int k = 0; k < nf; k++) {
			uint64_t w0, w1, v = 0;
			unsigned x;
			switch (sh[k].op) {
			case CF_TS:
				/* as fast_line: 19 bytes then the stop */
				if (end - q <= 19 || q[19] != sh[k].stop)
					goto out;
				memcpy(&w0, q, 8);
				memcpy(&w1, q + 8, 8);
				memcpy(&v, q + 11, 8);
				if (!tok ||
				    ((w0 ^ t0) | (w1 ^ t1) | (v ^ t2)) != 0) {
					if (!sl_format_ts_cached(q, &tus,
								 &r->tsc))
						goto out;
					t0 = w0;
					t1 = w1;
					t2 = v;
					tok = true;
				}
				((int64_t *)sh[k].data)[i] = tus;
				q += 19 + !sh[k].last;
				break;
			case CF_STR:
				/* as fast_line */
				if (*q == quote && quote != '\0')
					goto out;
				e = tok_end(q, end, sep);
				if ((size_t)(e - q) == nulln ||
				    *e != sh[k].stop ||
				    (sh[k].last && e > q && e[-1] == '\r'))
					goto out;
				((sl_str *)sh[k].data)[i].p = q;
				((sl_str *)sh[k].data)[i].len =
				    (uint32_t)(e - q);
				q = e + !sh[k].last;
				break;
			default: /* CF_INT, CF_BIGINT: as fast_digits */
				d = e = q + (*q == '-' || *q == '+');
				while ((x = (unsigned)(*e - '0')) <= 9) {
					v = v * 10 + x;
					e++;
				}
				if (e == d || e - d > 18)
					goto out;
				if (*e != sh[k].stop &&
				    !(sh[k].last && e[0] == '\r' &&
				      e[1] == '\n'))
					goto out;
				if (!sl_format_store_int(sh[k].data, i, v,
							 *q == '-',
							 sh[k].op == CF_BIGINT))
					goto out;
				q = sh[k].last ? e + (*e == '\r') : e + 1;
				break;
			}
		}
		/* q is at the line's '\n', as where fast_line returns q + 1 */
		if ((size_t)(q + 1 - p) > maxline)
			break;
		p = q + 1;
		n++;
	}
out:
	*pp = p;
	return n;
}

/* Lines from t->p up to end (past the last '\n') while fast_line takes
 * them (the shape first, while it applies); returns the rows stored. */
static int64_t fast_run(cread *r, csvtok *t, const char *end, int64_t row)
{
	const char *p = t->p, *q;
	int64_t n = 0;
	bool shape = true;
	for (;;) {
		if (shape) {
			int64_t k = shape_run(r, &p, end, row + n);
			if (k < 0)
				shape = false;
			else
				n += k;
		}
		if (!(p < end && (unsigned char)*p > ' ' &&
		      (*p != r->o.comment || r->o.comment == '\0') &&
		      (q = fast_line(r, p, end, row + n)) != NULL &&
		      (size_t)(q - p) <= r->o.maxline + 1)) /* +1: the '\n' */
			break;
		p = q;
		n++;
	}
	t->p = p;
	t->line += n;
	return n;
}

/* The fast path's ops for r's token columns (r->cols, r->map set); -1 on
 * out of memory. */
static int fast_prog(cread *r)
{
	static const char num[] = "+-0123456789";
	const csvopt *o = &r->o;
	/* digits-as-scanned needs bytes that can only be digits: no quote,
	 * separator or nullValue made of them */
	bool digits = strchr(num, o->sep) == NULL &&
		      (o->quote == '\0' || strchr(num, o->quote) == NULL) &&
		      (o->nulln == 0 || strspn(o->nullv, num) != o->nulln);
	r->prog = calloc((size_t)r->nf + 1, sizeof *r->prog);
	if (r->prog == NULL)
		return -1;
	for (int k = 0; k < r->nf; k++) {
		cfield *f = &r->prog[k];
		f->col = r->cols[r->map[k]];
		f->last = k == r->nf - 1;
		f->stop = f->last ? '\n' : o->sep;
		switch (f->col->type->kind) {
		case SL_TIMESTAMP: f->op = r->ts_skip ? CF_TS : CF_TOKEN; break;
		case SL_INT: f->op = digits ? CF_INT : CF_TOKEN; break;
		case SL_BIGINT: f->op = digits ? CF_BIGINT : CF_TOKEN; break;
		case SL_STRING:
		case SL_BINARY: f->op = o->sep != '\n' ? CF_STR : CF_TOKEN; break;
		default: f->op = CF_TOKEN; break;
		}
	}
	return 0;
}

static int read_records(cread *r, const sl_type *schema, csvtok *t,
			int64_t *nrows, sl_err *err)
{
	const char *safe =
	    t->end > t->p ? memrchr(t->p, '\n', (size_t)(t->end - t->p)) : NULL;
	int64_t row = 0;
	bool first = true;
	int rc;
	safe = safe != NULL ? safe + 1 : t->p;
	for (;;) {
		if (r->fast && t->p < safe && !(first && r->o.header) &&
		    r->nf > 0) {
			int64_t n = fast_run(r, t, safe, row);
			row += n;
			first = first && n == 0;
		}
		if (!tok_next(t))
			break;
		if (first && r->o.header) {
			first = false;
			continue;
		}
		first = false;
		if (t->too_long) {
			if (r->o.mode == SL_MODE_FAILFAST)
				return sl_err_set(
				    err, SL_EDATA,
				    "csv: malformed record at %s:%lld: line "
				    "longer than maxLineBytes (%zu)",
				    r->name, (long long)t->rec_line,
				    r->o.maxline);
			snprintf(r->why, sizeof r->why,
				 "line longer than maxLineBytes (%zu)",
				 r->o.maxline);
			sl_format_bad_report(r->bad, r->name, t->rec_line,
					     "too_long", r->why);
			if (r->o.mode == SL_MODE_DROPMALFORMED)
				continue;
			for (int k = 0; k < r->nf; k++)
				if (sl_col_set_null(r->cols[r->map[k]], row))
					return sl_err_nomem(err);
			rc = 0;
		} else {
			rc = fill_row(r, schema, t, row);
		}
		if (rc < 0)
			return sl_err_nomem(err);
		if (rc == 0) {
			if (r->o.mode == SL_MODE_FAILFAST)
				return sl_err_set(
				    err, SL_EDATA,
				    "csv: malformed record at %s:%lld: %s",
				    r->name, (long long)t->rec_line, r->why);
			sl_format_bad_report(r->bad, r->name, t->rec_line,
					     "malformed", r->why);
			if (r->o.mode == SL_MODE_DROPMALFORMED)
				continue;
		}
		if (r->corrupt >= 0) {
			sl_col *c = r->cols[r->corrupt];
			if (rc == 0) {
				sl_col_str(c)[row].p = t->rec;
				sl_col_str(c)[row].len =
				    (uint32_t)(t->rec_end - t->rec);
				if (c->nulls != NULL)
					c->nulls[row >> 3] &=
					    (uint8_t) ~(1u << (row & 7));
			} else if (sl_col_set_null(c, row) != 0) {
				return sl_err_nomem(err);
			}
		}
		row++;
	}
	if (t->oom)
		return sl_err_nomem(err);
	*nrows = row;
	return 0;
}

static int check_types(const sl_type *schema, sl_err *err)
{
	int k;
	for (k = 0; k < schema->nfields; k++) {
		sl_kind kd = schema->fields[k].type->kind;
		if (kd == SL_STRUCT || kd == SL_ARRAY || kd == SL_NULLTYPE) {
			sl_buf b;
			sl_buf_init(&b);
			sl_type_sql(schema->fields[k].type, &b);
			sl_err_set(
			    err, SL_EANALYSIS,
			    "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The CSV "
			    "datasource doesn't support the column `%s` of "
			    "the type \"%s\".",
			    schema->fields[k].name, sl_buf_cstr(&b));
			sl_buf_release(&b);
			return SL_EANALYSIS;
		}
	}
	return 0;
}

sl_batch *sl_csv_read(const char *name, sl_arena *arena, const char *data,
		      size_t len, sl_type *schema, const sl_options *opts,
		      const sl_format_bad *bad, sl_err *err)
{
	return sl_csv_read_at(name, 0, arena, data, len, schema, opts, bad,
			      err);
}

sl_batch *sl_csv_read_at(const char *name, int64_t line0, sl_arena *arena,
			 const char *data, size_t len, sl_type *schema,
			 const sl_options *opts, const sl_format_bad *bad,
			 sl_err *err)
{
	return sl_csv_read_nl(name, line0, -1, arena, data, len, schema, opts,
			      bad, err);
}

sl_batch *sl_csv_read_nl(const char *name, int64_t line0, int64_t nl,
			 sl_arena *arena, const char *data, size_t len,
			 sl_type *schema, const sl_options *opts,
			 const sl_format_bad *bad, sl_err *err)
{
	cread r;
	csvtok t;
	int64_t cap, nrows = 0;
	int k, nf = schema->nfields;
	sl_batch *b = NULL;
	memset(&r, 0, sizeof r);
	r.name = name;
	r.bad = bad;
	r.fast = true;
	if (csvopt_get(opts, &r.o, err) || check_types(schema, err) ||
	    (opts != NULL &&
	     sl_options_bool(opts, "fastPath", true, &r.fast, err)))
		return NULL;
	r.corrupt = sl_format_corrupt_index(schema, opts);
	r.ts_skip = r.o.nulln != 19 && r.o.sep != '\0' &&
		    strchr("0123456789-: T", r.o.sep) == NULL;
	tok_init(&t, &r.o, arena, data, len);
	t.line += line0;
	/* records <= '\n' bytes + 1 (each but the last ends with one) */
	cap = nl >= 0 ? nl + 1 : sl_format_count_lines(data, len);
	r.cols = calloc((size_t)nf + 1, sizeof *r.cols);
	r.map = calloc((size_t)nf + 1, sizeof *r.map);
	if (r.cols == NULL || r.map == NULL)
		goto oom;
	for (k = 0; k < nf; k++) {
		/* raw: every row stored gets a value or sl_col_set_null
		 * (which zeroes its slot) in every column, on either path */
		if ((r.cols[k] = sl_col_new_raw(schema->fields[k].type, cap)) ==
		    NULL)
			goto oom;
		if (schema->fields[k].type->kind == SL_STRING ||
		    schema->fields[k].type->kind == SL_BINARY)
			r.cols[k]->arena = sl_arena_ref(arena);
		if (k != r.corrupt)
			r.map[r.nf++] = k;
	}
	if (r.fast && fast_prog(&r) != 0)
		goto oom;
	if (read_records(&r, schema, &t, &nrows, err) == 0) {
		for (k = 0; k < nf; k++)
			r.cols[k]->len = nrows;
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
	tok_release(&t);
	if (r.cols != NULL)
		for (k = 0; k < nf; k++)
			sl_col_free(r.cols[k]);
	free(r.cols);
	free(r.map);
	free(r.prog);
	return b;
}

/* ---- inference (CSVInferSchema) ---- */

enum { CK_NULL = -1, CK_INT, CK_BIGINT, CK_DOUBLE, CK_TS, CK_BOOL, CK_STRING };

struct sl_csv_infer {
	csvopt o;
	int ncols;
	char **names;
	int *kind;
	bool started;
};

sl_csv_infer *sl_csv_infer_new(const sl_options *opts, sl_err *err)
{
	sl_csv_infer *ci = calloc(1, sizeof *ci);
	if (ci == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (csvopt_get(opts, &ci->o, err)) {
		free(ci);
		return NULL;
	}
	return ci;
}

void sl_csv_infer_free(sl_csv_infer *ci)
{
	int k;
	if (ci == NULL)
		return;
	for (k = 0; k < ci->ncols; k++)
		free(ci->names[k]);
	free(ci->names);
	free(ci->kind);
	free(ci);
}

/* Header tokens compared as makeSafeHeader does: case insensitive. */
static int tok_cmp(const void *a, const void *b, void *ud)
{
	const sl_str *tok = ud;
	sl_str x = tok[*(const int *)a], y = tok[*(const int *)b];
	int c;
	if (x.len != y.len)
		return x.len < y.len ? -1 : 1;
	c = x.len ? strncasecmp(x.p, y.p, x.len) : 0;
	return c ? c : *(const int *)a - *(const int *)b;
}

/* dup[k]: another header token equals token k.  Sorted, so a 100,000
 * column header takes a moment, not minutes (issue 16 finding 9). */
static int find_dups(const csvtok *t, bool *dup)
{
	int *ix = malloc(((size_t)t->ntok + 1) * sizeof *ix), k;
	if (ix == NULL)
		return SL_ENOMEM;
	for (k = 0; k < t->ntok; k++)
		ix[k] = k;
	qsort_r(ix, (size_t)t->ntok, sizeof *ix, tok_cmp, (void *)t->tok);
	for (k = 0; k + 1 < t->ntok; k++) {
		sl_str x = t->tok[ix[k]], y = t->tok[ix[k + 1]];
		if (x.len == y.len &&
		    (x.len == 0 || strncasecmp(x.p, y.p, x.len) == 0))
			dup[ix[k]] = dup[ix[k + 1]] = true;
	}
	free(ix);
	return 0;
}

/* Spark's makeSafeHeader: empty names become _cN; duplicates (case
 * insensitive) get their index appended. */
static int set_names(sl_csv_infer *ci, const csvtok *t, bool header)
{
	bool *dup;
	int k;
	ci->ncols = t->ntok;
	ci->names = calloc((size_t)t->ntok + 1, sizeof *ci->names);
	ci->kind = malloc(((size_t)t->ntok + 1) * sizeof *ci->kind);
	dup = calloc((size_t)t->ntok + 1, sizeof *dup);
	if (ci->names == NULL || ci->kind == NULL || dup == NULL ||
	    (header && find_dups(t, dup) != 0)) {
		free(dup);
		return SL_ENOMEM;
	}
	for (k = 0; k < t->ntok; k++) {
		sl_str s = t->tok[k];
		ci->kind[k] = CK_NULL;
		if (!header || s.len == 0 || is_null_tok(&ci->o, s)) {
			if (asprintf(&ci->names[k], "_c%d", k) < 0)
				ci->names[k] = NULL;
		} else if (dup[k]) {
			if (asprintf(&ci->names[k], "%.*s%d", (int)s.len, s.p,
				     k) < 0)
				ci->names[k] = NULL;
		} else
			ci->names[k] = strndup(s.p, s.len);
		if (ci->names[k] == NULL) {
			free(dup);
			return SL_ENOMEM;
		}
	}
	free(dup);
	return 0;
}

static int value_kind(int cur, sl_str s)
{
	int64_t v;
	double d;
	bool b;
	if (cur <= CK_INT && sl_format_parse_i64(s.p, s.len, &v) &&
	    v >= INT32_MIN && v <= INT32_MAX)
		return CK_INT;
	if (cur <= CK_BIGINT && sl_format_parse_i64(s.p, s.len, &v))
		return CK_BIGINT;
	if (cur <= CK_DOUBLE && sl_format_parse_double(s.p, s.len, &d))
		return CK_DOUBLE;
	if (cur <= CK_TS && sl_ts_parse(s.p, s.len, &v))
		return CK_TS;
	if (cur <= CK_BOOL && sl_format_parse_bool(s.p, s.len, &b))
		return CK_BOOL;
	return CK_STRING;
}

static int merge(int a, int b)
{
	if (a == CK_NULL || a == b)
		return b;
	if (a <= CK_DOUBLE && b <= CK_DOUBLE)
		return a > b ? a : b;
	return CK_STRING;
}

int sl_csv_infer_add(sl_csv_infer *ci, const char *name, const char *data,
		     size_t len, sl_err *err)
{
	csvtok t;
	bool first = true;
	int k;
	(void)name;
	tok_init(&t, &ci->o, NULL, data, len);
	while (tok_next(&t)) {
		bool hdr = first && ci->o.header;
		if (t.too_long)
			continue; /* malformed: says nothing of the columns */
		if (!ci->started) {
			ci->started = true;
			if (set_names(ci, &t, ci->o.header) != 0)
				goto oom;
		}
		first = false;
		if (hdr || !ci->o.infer)
			continue;
		for (k = 0; k < ci->ncols && k < t.ntok; k++)
			if (!is_null_tok(&ci->o, t.tok[k]) &&
			    ci->kind[k] != CK_STRING)
				ci->kind[k] =
				    merge(ci->kind[k],
					  value_kind(ci->kind[k], t.tok[k]));
	}
	if (t.oom)
		goto oom;
	tok_release(&t);
	return 0;
oom:
	tok_release(&t);
	return sl_err_nomem(err);
}

sl_type *sl_csv_infer_finish(sl_csv_infer *ci, sl_err *err)
{
	static const sl_kind kinds[] = { SL_INT,       SL_BIGINT,  SL_DOUBLE,
					 SL_TIMESTAMP, SL_BOOLEAN, SL_STRING };
	sl_type *t = sl_type_struct_new(ci->ncols);
	int k;
	for (k = 0; t != NULL && k < ci->ncols; k++) {
		int kd =
		    ci->o.infer && ci->kind[k] >= 0 ? ci->kind[k] : CK_STRING;
		if (sl_type_set_field(t, k, ci->names[k],
				      sl_type_prim(kinds[kd]), true) != 0) {
			sl_type_free(t);
			t = NULL;
		}
	}
	if (t == NULL)
		sl_err_nomem(err);
	sl_csv_infer_free(ci);
	return t;
}

/* ---- writing ---- */

static void put_field(const csvopt *o, const char *p, size_t n, sl_buf *out)
{
	size_t k;
	bool q = n == 0;
	for (k = 0; k < n && !q; k++)
		q = p[k] == o->sep || p[k] == o->quote || p[k] == '\n' ||
		    p[k] == '\r';
	if (!q || o->quote == '\0') {
		sl_buf_add(out, p, n);
		return;
	}
	sl_buf_addc(out, o->quote);
	for (k = 0; k < n; k++) {
		if (p[k] == o->quote ||
		    (p[k] == o->escape && o->escape != '\0'))
			sl_buf_addc(out,
				    o->escape != '\0' ? o->escape : o->quote);
		sl_buf_addc(out, p[k]);
	}
	sl_buf_addc(out, o->quote);
}

static void put_value(const csvopt *o, const sl_col *c, int64_t i, sl_buf *out,
		      sl_buf *tmp)
{
	if (sl_col_isnull(c, i))
		return;
	switch (c->type->kind) {
	case SL_STRING:
	case SL_BINARY:
		put_field(o, sl_col_str(c)[i].p, sl_col_str(c)[i].len, out);
		return;
	case SL_TIMESTAMP: sl_ts_iso(sl_col_i64(c)[i], out); return;
	default:
		sl_buf_clear(tmp);
		sl_value_show(c, i, tmp);
		put_field(o, sl_buf_cstr(tmp), tmp->len, out);
	}
}

int sl_csv_write(const sl_batch *b, const sl_options *opts, sl_buf *out,
		 sl_err *err)
{
	csvopt o;
	sl_buf tmp;
	int64_t i;
	int k;
	if (csvopt_get(opts, &o, err) || check_types(b->schema, err))
		return err ? err->code : SL_EINVAL;
	if (o.header) {
		for (k = 0; k < b->ncols; k++) {
			const char *nm = b->schema->fields[k].name;
			if (k > 0)
				sl_buf_addc(out, o.sep);
			put_field(&o, nm, strlen(nm), out);
		}
		sl_buf_addc(out, '\n');
	}
	sl_buf_init(&tmp);
	for (i = 0; i < b->nrows; i++) {
		for (k = 0; k < b->ncols; k++) {
			if (k > 0)
				sl_buf_addc(out, o.sep);
			put_value(&o, b->cols[k], i, out, &tmp);
		}
		sl_buf_addc(out, '\n');
	}
	sl_buf_release(&tmp);
	return sl_buf_failed(out) ? sl_err_nomem(err) : 0;
}
