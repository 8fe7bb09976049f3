/*
 * json_int: internals shared by the files of the json module (never
 * included from outside it):
 *   jsonlex.c    the lexer: whitespace, literals, strings with escapes,
 *                numbers (JSON grammar, Jackson's NaN/Infinity), skipping a
 *                value, syntax error texts;
 *   json.c       the schema-driven reader (JSON lines, from_json);
 *   jsonscan.c   the reader's fast path for flat records (see there);
 *   jsoninfer.c  schema inference;
 *   jsonwrite.c  the JSON-lines writer.
 *
 * A jp is one parse position over borrowed text [p, end); `line` is the
 * start of the current record (error offsets are 1-based from it).  The
 * first error of a record is kept in `why`; functions return 0 or -1 and
 * set `oom` on memory exhaustion.  Decoded strings (escapes) go to
 * `arena` (or `tmp` when the caller does not keep them).
 */
#ifndef SL_JSON_INT_H
#define SL_JSON_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/fileformat.h"

#define JSON_MAX_DEPTH 512

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

typedef struct jnum {
	const char *s;
	size_t n;
	bool frac;    /* has a fraction or an exponent */
	bool big;     /* integral but outside int64 */
	bool special; /* NaN / Infinity token */
	int64_t i;
	double d; /* for special */
} jnum;

/* Bytes that stop the fast string scan: quotes, backslash, controls. */
extern const uint8_t sl_jsonlex_str_stop[256];

/* j zeroed, over no text yet, decoding into arena (may be NULL). */
void sl_jsonlex_init(jp *j, sl_arena *arena);
/* True if [p, e) is only JSON whitespace. */
bool sl_jsonlex_blank(const char *p, const char *e);

/* Record a syntax error at j->p ("WHAT at byte N", or "unexpected end of
 * input" at the end or when what is NULL); returns -1. */
int sl_jsonlex_syn(jp *j, const char *what);
/* "unexpected character 'x'" at j->p; returns -1. */
int sl_jsonlex_syn_char(jp *j);
/* "string", "object", ... for the token starting with c. */
const char *sl_jsonlex_token_name(char c);
/* The literal w[0..n) at j->p, or a syntax error. */
int sl_jsonlex_lit(jp *j, const char *w, size_t n);
/* The rest of a string with escapes, from its first byte s; p is the first
 * backslash, q the quote.  keep: decode into the arena, else into j->tmp. */
int sl_jsonlex_str_slow(jp *j, const char *s, const char *p, char q,
			sl_str *out, bool keep);
/* A number at j->p, validated against JSON's grammar. */
int sl_jsonlex_num(jp *j, jnum *o);
/* A scanned number as a double: exact fast path, else strtod. */
double sl_jsonlex_num_double(const jnum *o);
/* Skip one value (after whitespace), checking its syntax. */
int sl_jsonlex_skip(jp *j);

static inline void sl_jsonlex_ws(jp *j)
{
	const char *p = j->p, *e = j->end;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	j->p = p;
}

static inline bool sl_jsonlex_isdig(char c)
{
	return (unsigned)(c - '0') < 10;
}

/* A string at j->p (its opening quote).  Without escapes it points into
 * the text.  keep: the decoded bytes must outlive the next string (else
 * they may sit in j->tmp). */
static inline int sl_jsonlex_str(jp *j, sl_str *out, bool keep)
{
	const char q = *j->p;
	const char *s = j->p + 1, *p = s, *e = j->end;
	for (;;) {
		while (p < e && !sl_jsonlex_str_stop[(uint8_t)*p])
			p++;
		if (p >= e) {
			j->p = p;
			return sl_jsonlex_syn(j, NULL);
		}
		if (*p == q) {
			out->p = s;
			out->len = (uint32_t)(p - s);
			j->p = p + 1;
			return 0;
		}
		if (*p == '\\')
			return sl_jsonlex_str_slow(j, s, p, q, out, keep);
		if ((uint8_t)*p < 0x20) {
			j->p = p;
			return sl_jsonlex_syn(j, "control character in string");
		}
		p++;
	}
}

/* ---- the reader's fast path (jsonscan.c) ---- */

typedef struct sl_jsonscan sl_jsonscan;

/* Compile the fast path for the top-level columns cols[0..nfields) of
 * schema (borrowed; the reader fills the same columns); corrupt is the
 * corrupt-record column or -1.  NULL when the fast path cannot help (more
 * than 64 fields, no field it handles) or on out of memory: the caller
 * then uses the full parser alone. */
sl_jsonscan *sl_jsonscan_new(const sl_type *schema, sl_col *const *cols,
			     int corrupt);
void sl_jsonscan_free(sl_jsonscan *s);
/* Leave every line of more than max bytes (its '\n' included) to the
 * caller, which checks maxLineBytes (default: no limit). */
void sl_jsonscan_max_line(sl_jsonscan *s, size_t max);

/* Parse lines from *pp into rows row, row+1, ... while each is a record
 * the fast path can prove well formed and type-correct; stop before the
 * first other line (blank, whitespace, escapes, nesting, unknown or
 * duplicate keys, wrong types, anything malformed), which the caller gives
 * to the full parser.  Every line scanned must end with '\n' before end.
 * Takes at most max lines (the rows the columns have room for).
 * Returns the rows stored, or -1 on out of memory; advances *pp and
 * *lineno past the lines taken.  tsc: the reader's timestamp cache. */
int64_t sl_jsonscan_run(sl_jsonscan *s, const char **pp, const char *end,
			int64_t row, int64_t max, int64_t *lineno,
			sl_format_tscache *tsc);

#endif
