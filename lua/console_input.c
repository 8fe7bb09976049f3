/*
 * console_input: the text of a REPL input before Lua compiles it (see
 * console_int.h).  A lexer just good enough to know where tokens, strings
 * and comments are (llex.c's rules for those, not its number grammar), and
 * the three questions console.c asks with it.
 *
 * Why rewrite `local` at all: lua.c compiles each input as its own chunk,
 * so `local total = 0` is gone on the next line, and a learner typing a
 * tutorial block line by line meets "attempt to perform arithmetic on a
 * nil value (global 'total')".  A top-level local of an input is therefore
 * made a session variable (a global): the block means the same typed line
 * by line as run whole.  The deviation from lua.c is documented in :help
 * input and README.md.  Locals inside functions and blocks are untouched.
 */
#include <ctype.h>
#include <string.h>

#include "console_int.h"

enum { TK_EOF, TK_NAME, TK_STRING, TK_NUMBER, TK_OP, TK_BAD };

typedef struct tok {
	int kind;
	size_t at, end;
} tok;

typedef struct lexer {
	const char *s;
	size_t n, pos;
} lexer;

/* At s[i] == '[': the level of a long bracket "[==[" (>= 0), or -1. */
static int long_level(const lexer *x, size_t i)
{
	size_t j = i + 1;

	while (j < x->n && x->s[j] == '=')
		j++;
	return j < x->n && x->s[j] == '[' ? (int)(j - i - 1) : -1;
}

/* Skip a long bracket of that level opened at pos; false if unclosed. */
static bool skip_long(lexer *x, int level)
{
	size_t i = x->pos + (size_t)level + 2;

	for (; i < x->n; i++) {
		size_t j = i + 1;

		if (x->s[i] != ']')
			continue;
		while (j < x->n && x->s[j] == '=')
			j++;
		if (j < x->n && x->s[j] == ']' && (int)(j - i - 1) == level) {
			x->pos = j + 1;
			return true;
		}
	}
	x->pos = x->n;
	return false;
}

static bool is_name0(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_name1(int c)
{
	return isalnum(c) || c == '_';
}

/* Blanks and comments. */
static void skip_space(lexer *x)
{
	while (x->pos < x->n) {
		unsigned char c = (unsigned char)x->s[x->pos];
		int lv;

		if (isspace(c)) {
			x->pos++;
		} else if (c == '-' && x->pos + 1 < x->n &&
			   x->s[x->pos + 1] == '-') {
			x->pos += 2;
			if (x->pos < x->n && x->s[x->pos] == '[' &&
			    (lv = long_level(x, x->pos)) >= 0) {
				skip_long(x, lv);
				continue;
			}
			while (x->pos < x->n && x->s[x->pos] != '\n')
				x->pos++;
		} else {
			return;
		}
	}
}

static void lex(lexer *x, tok *t)
{
	static const char *const ops[] = { "...", "..", "::", "==", "~=",
					   "<=",  ">=", "<<", ">>", "//" };
	unsigned char c;
	int lv;

	skip_space(x);
	t->at = x->pos;
	t->kind = TK_EOF;
	if (x->pos >= x->n) {
		t->end = x->pos;
		return;
	}
	c = (unsigned char)x->s[x->pos];
	if (is_name0(c)) {
		while (x->pos < x->n && is_name1((unsigned char)x->s[x->pos]))
			x->pos++;
		t->kind = TK_NAME;
	} else if (isdigit(c) || (c == '.' && x->pos + 1 < x->n &&
				  isdigit((unsigned char)x->s[x->pos + 1]))) {
		while (x->pos < x->n) {
			unsigned char d = (unsigned char)x->s[x->pos];
			if (is_name1(d) || d == '.')
				x->pos++;
			else if ((d == '+' || d == '-') &&
				 strchr("eEpP", x->s[x->pos - 1]))
				x->pos++;
			else
				break;
		}
		t->kind = TK_NUMBER;
	} else if (c == '"' || c == '\'') {
		t->kind = TK_BAD;
		for (x->pos++; x->pos < x->n; x->pos++) {
			if (x->s[x->pos] == '\\') {
				x->pos++;
			} else if (x->s[x->pos] == (char)c) {
				x->pos++;
				t->kind = TK_STRING;
				break;
			} else if (x->s[x->pos] == '\n') {
				break;
			}
		}
	} else if (c == '[' && (lv = long_level(x, x->pos)) >= 0) {
		t->kind = skip_long(x, lv) ? TK_STRING : TK_BAD;
	} else {
		size_t len = 1;

		for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
			if (strncmp(x->s + x->pos, ops[i], strlen(ops[i])) ==
			    0) {
				len = strlen(ops[i]);
				break;
			}
		x->pos += len;
		t->kind = TK_OP;
	}
	if (x->pos > x->n)
		x->pos = x->n;
	t->end = x->pos;
}

static bool tok_is(const lexer *x, const tok *t, const char *word)
{
	size_t n = strlen(word);

	return t->end - t->at == n && memcmp(x->s + t->at, word, n) == 0;
}

bool sl_console_input_continues(const char *line)
{
	const char *p = line + strspn(line, " \t");

	if (p[0] == '.')
		return is_name0((unsigned char)p[1]);
	if (p[0] != ':' || !is_name0((unsigned char)p[1]))
		return false;
	for (p++; is_name1((unsigned char)*p); p++)
		;
	return *p == '(' || *p == '{' || *p == '"' || *p == '\'' ||
	       (p[0] == '[' && (p[1] == '[' || p[1] == '='));
}

/* Block depth change of a keyword token. */
static int depth_step(const lexer *x, const tok *t)
{
	static const char *const open[] = { "function", "do", "if", "repeat" };

	if (t->kind != TK_NAME)
		return 0;
	for (size_t i = 0; i < sizeof open / sizeof open[0]; i++)
		if (tok_is(x, t, open[i]))
			return 1;
	return tok_is(x, t, "end") || tok_is(x, t, "until") ? -1 : 0;
}

/* After `local` at top level: rewrite the declaration into out (the text
 * up to the `local` is already there).  x is just past `local`.  Returns
 * true when rewritten; then x is past what was copied. */
static bool globalize_one(lexer *x, const tok *local, sl_buf *out)
{
	lexer peek = *x;
	size_t names_end;
	tok t;

	lex(&peek, &t);
	if (t.kind == TK_NAME && tok_is(&peek, &t, "function")) {
		sl_buf_pad(out, ' ', local->end - local->at);
		return true; /* `function` itself is copied by the caller */
	}
	/* Name {',' Name}, without attributes */
	for (;;) {
		if (t.kind != TK_NAME)
			return false;
		names_end = t.end;
		lex(&peek, &t);
		if (t.kind == TK_OP && tok_is(&peek, &t, "<"))
			return false; /* <const> / <close>: stays local */
		if (!(t.kind == TK_OP && tok_is(&peek, &t, ",")))
			break;
		lex(&peek, &t);
	}
	sl_buf_pad(out, ' ', local->end - local->at);
	sl_buf_add(out, x->s + local->end, names_end - local->end);
	if (!(t.kind == TK_OP && tok_is(&peek, &t, "=")))
		sl_buf_adds(out, " = nil");
	x->pos = names_end;
	return true;
}

int sl_console_input_globalize(const char *text, size_t len, sl_buf *out)
{
	lexer x = { text, len, 0 };
	size_t copied = 0;
	int depth = 0, n = 0;
	tok t;

	for (lex(&x, &t); t.kind != TK_EOF && t.kind != TK_BAD; lex(&x, &t)) {
		if (depth == 0 && t.kind == TK_NAME &&
		    tok_is(&x, &t, "local")) {
			size_t here = x.pos;

			sl_buf_add(out, text + copied, t.at - copied);
			if (globalize_one(&x, &t, out)) {
				n++;
				copied = x.pos == here ? t.end : x.pos;
				continue;
			}
			sl_buf_add(out, text + t.at, t.end - t.at);
			copied = t.end;
			continue;
		}
		depth += depth_step(&x, &t);
		if (depth < 0)
			depth = 0; /* a stray `end`: the compiler will say so */
	}
	sl_buf_add(out, text + copied, len - copied);
	return n;
}

bool sl_console_input_assignment(const char *text, size_t len, size_t *name_at,
				 size_t *name_len, size_t *rhs)
{
	lexer x = { text, len, 0 };
	tok t;

	lex(&x, &t);
	if (t.kind == TK_NAME && tok_is(&x, &t, "local"))
		lex(&x, &t);
	if (t.kind != TK_NAME || tok_is(&x, &t, "function"))
		return false;
	*name_at = t.at;
	for (;;) {
		*name_len = t.end - *name_at;
		lex(&x, &t);
		if (!(t.kind == TK_OP && tok_is(&x, &t, ".")))
			break;
		lex(&x, &t);
		if (t.kind != TK_NAME)
			return false;
	}
	if (!(t.kind == TK_OP && tok_is(&x, &t, "=")))
		return false;
	*rhs = t.end;
	return true;
}
