/*
 * sqlexpr: a hand-written recursive-descent parser for Spark SQL
 * expressions (selectExpr, filter strings, F.expr).
 *
 * The text is split into tokens first (each with its 1-based column), then
 * parsed by one function per precedence level, lowest first:
 *   OR < AND < NOT < comparison / IS / IN / BETWEEN / LIKE < || < + - <
 *   * / % < unary - < postfix .field / [index] < primary
 * Desugaring follows Spark's parser so names match Spark's: a BETWEEN x AND
 * y is ((a >= x) AND (a <= y)), a NOT IN (...) is (NOT (a IN (...))),
 * a.b is one dotted column name, -5 is the literal -5, count(*) is
 * count(1), a || b is concat(a, b).
 *
 * Errors are SL_EPARSE with the column; a missing operand quotes the text
 * of the incomplete expression ("expected expression at 'amount >' (col 9)").
 * The parser owns every node it builds until it returns the tree.
 */
#include "expr/sqlexpr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/timeutil.h"

enum tok_kind {
	T_EOF = SL_TOK_EOF,
	T_IDENT = SL_TOK_IDENT,
	T_QIDENT = SL_TOK_QIDENT,
	T_INT = SL_TOK_INT,
	T_FLOAT = SL_TOK_FLOAT,
	T_STRING = SL_TOK_STRING,
	T_OP = SL_TOK_OP
};

struct sl_sqlexpr {
	const char *src;
	sl_sqltok *t;
	int n, i;
	int ctx; /* byte offset where the expression being built starts */
	sl_err *err;
	bool failed;
	int depth; /* operands open, and operators chained to the left */
	bool comments; /* statements (sl_sqlexpr_open): -- and C comments */
	sl_sqlexpr_subq_fn subq; /* sl_sqlexpr_on_subquery */
	void *subq_ctx;
};

/* Deeper is refused: every later pass (resolve, eval, free) recurses over
 * the tree, and 100,000 nested '(' once overflowed the C stack. */
#define SQL_MAX_DEPTH 1000

/* ---------------------------------------------------------------- lexer */

static int push_tok(struct sl_sqlexpr *p, enum tok_kind k, int s, int e,
		    const char *text, size_t len)
{
	sl_sqltok *t;
	/* room for 32, then doubled at each power of two: growing by a fixed
	 * step copied the array O(n^2) times (minutes under ASan for the
	 * 300,000 tokens of tests/lua/010-hostile-expr.lua) */
	if (p->n == 0 || (p->n >= 32 && (p->n & (p->n - 1)) == 0)) {
		t = realloc(p->t, (size_t)(p->n ? 2 * p->n : 32) * sizeof *t);
		if (t == NULL)
			return sl_err_nomem(p->err);
		p->t = t;
	}
	t = &p->t[p->n];
	t->kind = k;
	t->start = s;
	t->end = e;
	t->len = len;
	t->text = malloc(len + 1);
	if (t->text == NULL)
		return sl_err_nomem(p->err);
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	p->n++;
	return 0;
}

static int lex_string(struct sl_sqlexpr *p, int *pos)
{
	const char *s = p->src;
	char q = s[*pos];
	int start = *pos, i = *pos + 1, rc;
	sl_buf b;
	sl_buf_init(&b);
	while (s[i] != '\0' && s[i] != q) {
		if (s[i] == '\\' && s[i + 1] != '\0') {
			i++;
			switch (s[i]) {
			case 'n': sl_buf_addc(&b, '\n'); break;
			case 't': sl_buf_addc(&b, '\t'); break;
			case 'r': sl_buf_addc(&b, '\r'); break;
			case '0': sl_buf_addc(&b, '\0'); break;
			default: sl_buf_addc(&b, s[i]);
			}
			i++;
			continue;
		}
		sl_buf_addc(&b, s[i++]);
	}
	if (s[i] != q) {
		sl_buf_release(&b);
		sl_err_set(p->err, SL_EPARSE, "unterminated string at col %d",
			   start + 1);
		p->failed = true;
		return SL_EPARSE;
	}
	rc = push_tok(p, T_STRING, start, i + 1, b.len ? b.p : "", b.len);
	sl_buf_release(&b);
	*pos = i + 1;
	return rc;
}

static int lex_number(struct sl_sqlexpr *p, int *pos)
{
	const char *s = p->src;
	int i = *pos;
	bool flt = false;
	while (isdigit((unsigned char)s[i]))
		i++;
	if (s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
		flt = true;
		for (i++; isdigit((unsigned char)s[i]);)
			i++;
	} else if (s[i] == '.' && !isalpha((unsigned char)s[i + 1])) {
		flt = true; /* "1." */
		i++;
	}
	if ((s[i] == 'e' || s[i] == 'E') &&
	    (isdigit((unsigned char)s[i + 1]) ||
	     ((s[i + 1] == '-' || s[i + 1] == '+') &&
	      isdigit((unsigned char)s[i + 2])))) {
		flt = true;
		i += 2;
		while (isdigit((unsigned char)s[i]))
			i++;
	}
	/* suffixes: 42L (BIGINT), 4.2D (DOUBLE) */
	if (s[i] == 'L' || s[i] == 'l' || s[i] == 'D' || s[i] == 'd') {
		if (!isalnum((unsigned char)s[i + 1]) && s[i + 1] != '_')
			i++;
	}
	if (isalpha((unsigned char)s[i]) || s[i] == '_') {
		/* 1abc: Spark reads an identifier that starts with digits */
		while (isalnum((unsigned char)s[i]) || s[i] == '_')
			i++;
		if (push_tok(p, T_IDENT, *pos, i, s + *pos,
			     (size_t)(i - *pos)) < 0)
			return SL_ENOMEM;
		*pos = i;
		return 0;
	}
	if (push_tok(p, flt ? T_FLOAT : T_INT, *pos, i, s + *pos,
		     (size_t)(i - *pos)) < 0)
		return SL_ENOMEM;
	*pos = i;
	return 0;
}

static const char *const ops[] = {
	"<=>", "==", "<>", "!=", "<=", ">=", "||", "=", "<", ">", "+",
	"-",   "*",  "/",  "%",  "(",  ")",  ",",  ".", "[", "]", ";", ":", NULL
};

static int lex(struct sl_sqlexpr *p)
{
	const char *s = p->src;
	int i = 0, k, j;
	while (s[i] != '\0') {
		if (isspace((unsigned char)s[i])) {
			i++;
		} else if (p->comments && s[i] == '-' && s[i + 1] == '-') {
			/* a comment to the end of the line, as Spark's lexer */
			while (s[i] != '\0' && s[i] != '\n')
				i++;
		} else if (p->comments && s[i] == '/' && s[i + 1] == '*') {
			/* bracketed comments nest, as Spark's lexer reads them */
			int depth = 1, at = i;
			for (i += 2; s[i] != '\0' && depth > 0; i++) {
				if (s[i] == '/' && s[i + 1] == '*')
					depth++, i++;
				else if (s[i] == '*' && s[i + 1] == '/')
					depth--, i++;
			}
			if (depth > 0) {
				sl_err_set(p->err, SL_EPARSE,
					   "unterminated comment at col %d",
					   at + 1);
				p->failed = true;
				return SL_EPARSE;
			}
		} else if (s[i] == '\'' || s[i] == '"') {
			if (lex_string(p, &i) < 0)
				return SL_EPARSE;
		} else if (isdigit((unsigned char)s[i]) ||
			   (s[i] == '.' && isdigit((unsigned char)s[i + 1]) &&
			    (p->n == 0 || p->t[p->n - 1].kind == T_OP))) {
			if (lex_number(p, &i) < 0)
				return SL_ENOMEM;
		} else if (isalpha((unsigned char)s[i]) || s[i] == '_' ||
			   (unsigned char)s[i] >= 0x80) {
			for (j = i; isalnum((unsigned char)s[j]) ||
				    s[j] == '_' || (unsigned char)s[j] >= 0x80;)
				j++;
			if (push_tok(p, T_IDENT, i, j, s + i, (size_t)(j - i)) <
			    0)
				return SL_ENOMEM;
			i = j;
		} else if (s[i] == '`') {
			const char *e = strchr(s + i + 1, '`');
			if (e == NULL) {
				sl_err_set(p->err, SL_EPARSE,
					   "unterminated quoted name at col %d",
					   i + 1);
				p->failed = true;
				return SL_EPARSE;
			}
			j = (int)(e - s);
			if (push_tok(p, T_QIDENT, i, j + 1, s + i + 1,
				     (size_t)(j - i - 1)) < 0)
				return SL_ENOMEM;
			i = j + 1;
		} else {
			for (k = 0; ops[k] != NULL; k++)
				if (strncmp(s + i, ops[k], strlen(ops[k])) == 0)
					break;
			if (ops[k] == NULL) {
				sl_err_set(
				    p->err, SL_EPARSE,
				    "unexpected character '%c' at col %d", s[i],
				    i + 1);
				p->failed = true;
				return SL_EPARSE;
			}
			j = i + (int)strlen(ops[k]);
			if (push_tok(p, T_OP, i, j, ops[k], strlen(ops[k])) < 0)
				return SL_ENOMEM;
			i = j;
		}
	}
	return push_tok(p, T_EOF, i, i, "", 0);
}

/* ------------------------------------------------------------- helpers */

static sl_sqltok *cur(struct sl_sqlexpr *p)
{
	return &p->t[p->i];
}

static bool is_op(struct sl_sqlexpr *p, const char *op)
{
	return cur(p)->kind == T_OP && strcmp(cur(p)->text, op) == 0;
}

static bool is_kw(struct sl_sqlexpr *p, const char *kw)
{
	return cur(p)->kind == T_IDENT && strcasecmp(cur(p)->text, kw) == 0;
}

static bool peek_kw(struct sl_sqlexpr *p, int ahead, const char *kw)
{
	sl_sqltok *t = &p->t[p->i + ahead < p->n ? p->i + ahead : p->n - 1];
	return t->kind == T_IDENT && strcasecmp(t->text, kw) == 0;
}

static bool accept_op(struct sl_sqlexpr *p, const char *op)
{
	if (!is_op(p, op))
		return false;
	p->i++;
	return true;
}

static bool accept_kw(struct sl_sqlexpr *p, const char *kw)
{
	if (!is_kw(p, kw))
		return false;
	p->i++;
	return true;
}

static const char *const reserved[] = { "and",      "or",      "not",  "is",
					"in",       "between", "like", "as",
					"case",     "when",    "then", "else",
					"end",      "null",    "true", "false",
					"distinct", "from",    NULL };

static bool is_reserved(const sl_sqltok *t)
{
	int k;
	if (t->kind != T_IDENT)
		return false;
	for (k = 0; reserved[k] != NULL; k++)
		if (strcasecmp(t->text, reserved[k]) == 0)
			return true;
	return false;
}

/* "unexpected 'x' at col N", or "unexpected end of expression at col N" */
static void *unexpected(struct sl_sqlexpr *p)
{
	sl_sqltok *t = cur(p);
	if (p->failed)
		return NULL;
	if (t->kind == T_EOF)
		sl_err_set(p->err, SL_EPARSE,
			   "unexpected end of expression at col %d",
			   t->start + 1);
	else
		sl_err_set(p->err, SL_EPARSE, "unexpected '%.*s' at col %d",
			   t->end - t->start, p->src + t->start, t->start + 1);
	p->failed = true;
	return NULL;
}

static void *expect_fail(struct sl_sqlexpr *p, const char *what)
{
	sl_sqltok *t = cur(p);
	if (p->failed)
		return NULL;
	if (t->kind == T_EOF)
		sl_err_set(p->err, SL_EPARSE, "expected %s at col %d", what,
			   t->start + 1);
	else
		sl_err_set(p->err, SL_EPARSE, "expected %s at '%.*s' (col %d)",
			   what, t->end - t->start, p->src + t->start,
			   t->start + 1);
	p->failed = true;
	return NULL;
}

static bool expect_op(struct sl_sqlexpr *p, const char *op)
{
	char what[8];
	if (accept_op(p, op))
		return true;
	snprintf(what, sizeof what, "'%s'", op);
	expect_fail(p, what);
	return false;
}

/* The operand is missing: quote the expression from its start up to the
 * end of the last token read, and point just past it. */
static void *missing_operand(struct sl_sqlexpr *p)
{
	int from = p->ctx, to = p->i > 0 ? p->t[p->i - 1].end : 0;
	sl_sqltok *t = cur(p);
	if (p->failed)
		return NULL;
	while (from < to && isspace((unsigned char)p->src[from]))
		from++;
	if (to <= from) {
		if (t->kind == T_EOF) {
			sl_err_set(p->err, SL_EPARSE, "empty expression");
			p->failed = true;
			return NULL;
		}
		return unexpected(p);
	}
	sl_err_set(p->err, SL_EPARSE, "expected expression at '%.*s' (col %d)",
		   to - from, p->src + from, to + 1);
	p->failed = true;
	return NULL;
}

static sl_expr *at(sl_expr *e, int off)
{
	if (e != NULL && e->pos == 0)
		e->pos = off + 1;
	return e;
}

static sl_expr *nomem(struct sl_sqlexpr *p)
{
	if (!p->failed)
		sl_err_nomem(p->err);
	p->failed = true;
	return NULL;
}

static sl_expr *parse_expr(struct sl_sqlexpr *p);

typedef sl_expr *(*level_fn)(struct sl_sqlexpr *p);

/* Open k more levels (an operand, or one more operator of a left-deep
 * chain such as 1+1+1); false with the error past SQL_MAX_DEPTH. */
static bool deeper(struct sl_sqlexpr *p, int k)
{
	p->depth += k;
	if (p->depth <= SQL_MAX_DEPTH)
		return true;
	p->depth -= k;
	if (!p->failed)
		sl_err_set(p->err, SL_EPARSE,
			   "expression nested deeper than %d at col %d",
			   SQL_MAX_DEPTH, cur(p)->start + 1);
	p->failed = true;
	return false;
}

/* Parse a required operand of the construct that starts at byte `ctx`. */
static sl_expr *operand(struct sl_sqlexpr *p, int ctx, level_fn fn)
{
	int save = p->ctx;
	sl_expr *e;
	if (!deeper(p, 1))
		return NULL;
	p->ctx = ctx;
	e = fn(p);
	p->ctx = save;
	p->depth--;
	return e;
}

/* One more operator on a left-deep chain: the tree grows a level.  On
 * refusal the chain so far is freed (*l = NULL). */
static bool chain(struct sl_sqlexpr *p, int *k, sl_expr **l)
{
	if (!deeper(p, 1)) {
		sl_expr_free(*l);
		*l = NULL;
		return false;
	}
	(*k)++;
	return true;
}

static sl_expr *binop(struct sl_sqlexpr *p, int op, sl_expr *l, sl_expr *r, int pos)
{
	sl_expr *e;
	if (l == NULL || r == NULL) {
		sl_expr_free(l);
		sl_expr_free(r);
		return NULL;
	}
	e = sl_expr_binop(op, l, r);
	return e ? at(e, pos) : nomem(p);
}

/* ------------------------------------------------------------ literals */

static sl_expr *number(struct sl_sqlexpr *p, sl_sqltok *t, bool neg)
{
	const char *s = t->text;
	size_t n = t->len;
	char last = n ? s[n - 1] : '\0';
	char buf[64];
	sl_expr *e;
	if (n >= sizeof buf)
		return expect_fail(p, "a shorter number");
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (last == 'L' || last == 'l') {
		unsigned long long v;
		buf[n - 1] = '\0';
		errno = 0;
		v = strtoull(buf, NULL, 10);
		if (errno != 0 || v > (unsigned long long)INT64_MAX + neg) {
			sl_err_set(
			    p->err, SL_EPARSE,
			    "numeric literal '%s' out of range for BIGINT at col %d",
			    t->text, t->start + 1);
			p->failed = true;
			return NULL;
		}
		e = sl_expr_lit_bigint(neg ? (int64_t)(0 - v) : (int64_t)v);
	} else if (t->kind == T_FLOAT || last == 'D' || last == 'd') {
		double d;
		if (last == 'D' || last == 'd')
			buf[n - 1] = '\0';
		d = strtod(buf, NULL);
		e = sl_expr_lit_double(neg ? -d : d);
	} else {
		unsigned long long v;
		errno = 0;
		v = strtoull(buf, NULL, 10);
		if (errno == 0 && v <= (unsigned long long)INT32_MAX + neg)
			e = sl_expr_lit_int(neg ? (int32_t)(0 - (uint32_t)v)
						: (int32_t)v);
		else if (errno == 0 && v <= (unsigned long long)INT64_MAX + neg)
			e = sl_expr_lit_bigint(neg ? (int64_t)(0 - v)
						   : (int64_t)v);
		else
			e = sl_expr_lit_double(neg ? -strtod(buf, NULL)
						   : strtod(buf, NULL));
	}
	return e ? e : nomem(p);
}

/* TIMESTAMP '2026-01-01 12:00:00' */
static sl_expr *timestamp_lit(struct sl_sqlexpr *p, int start)
{
	sl_sqltok *t = cur(p);
	int64_t us;
	if (t->kind != T_STRING)
		return expect_fail(p, "a string after TIMESTAMP");
	if (!sl_ts_parse(t->text, t->len, &us)) {
		sl_err_set(p->err, SL_EPARSE,
			   "invalid timestamp literal '%s' at col %d", t->text,
			   t->start + 1);
		p->failed = true;
		return NULL;
	}
	p->i++;
	return at(sl_expr_lit_timestamp(us), start);
}

/* Spark's day-time unit-to-unit forms (IntervalUtils.fromDayTimeString,
 * ANSI): the fields after the leading one are bounded (hour 0-23, minute
 * and second 0-59), seconds take up to 9 fraction digits (microseconds
 * kept).  Units: 0 day, 1 hour, 2 minute, 3 second. */
static const struct dt_form {
	int from, to;
	const char *pattern;
} dt_forms[] = {
	{ 0, 1, "[+|-]d h" },	    { 0, 2, "[+|-]d h:m" },
	{ 0, 3, "[+|-]d h:m:s.n" }, { 1, 2, "[+|-]h:m" },
	{ 1, 3, "[+|-]h:m:s.n" },   { 2, 3, "[+|-]m:s.n" },
};

static const char *const dt_units[] = { "DAY", "HOUR", "MINUTE", "SECOND" };

/* A unit of a unit-to-unit form: singular only, as Spark's grammar
 * (unitInUnitToUnit: SECOND | MINUTE | HOUR | DAY | MONTH | YEAR). */
static int dt_unit(const sl_sqltok *t)
{
	if (t->kind != T_IDENT)
		return -1;
	for (int k = 0; k < 4; k++)
		if (strcasecmp(t->text, dt_units[k]) == 0)
			return k;
	return -1;
}

/* s as the form f: *us, or false when it does not match */
static bool dt_parse(const char *s, const struct dt_form *f, int64_t *us)
{
	static const int64_t unit_us[] = { 86400000000LL, 3600000000LL,
					   60000000LL, 1000000LL };
	static const int64_t bound[] = { 0, 24, 60, 60 };
	bool neg = false;
	int64_t total = 0;
	while (*s == ' ')
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (int u = f->from; u <= f->to; u++) {
		int64_t v = 0;
		int nd = 0;
		if (u > f->from && *s++ != (u == 1 ? ' ' : ':'))
			return false;
		for (; *s >= '0' && *s <= '9'; s++, nd++) {
			if (v > (INT64_MAX / unit_us[u] - 9) / 10)
				return false;
			v = v * 10 + (*s - '0');
		}
		if (nd == 0 || (u > f->from && (nd > 2 || v >= bound[u])))
			return false;
		if (total > INT64_MAX - v * unit_us[u])
			return false;
		total += v * unit_us[u];
	}
	if (f->to == 3 && *s == '.') {
		int64_t frac = 0, scale = 100000;
		int nd = 0;
		for (s++; *s >= '0' && *s <= '9'; s++, nd++) {
			if (nd < 6) {
				frac += (*s - '0') * scale;
				scale /= 10;
			}
		}
		if (nd == 0 || nd > 9 || total > INT64_MAX - frac)
			return false;
		total += frac;
	}
	while (*s == ' ')
		s++;
	if (*s != '\0')
		return false;
	*us = neg ? -total : total;
	return true;
}

/* The unit-to-unit errors Spark's AstBuilder.visitUnitToUnitInterval
 * raises, with the units as written (lower case). */
static bool interval_to_err(struct sl_sqlexpr *p, int start, bool ym)
{
	char a[32], b[32];
	size_t k;
	snprintf(a, sizeof a, "%s", p->t[p->i + 1].text);
	snprintf(b, sizeof b, "%s", p->t[p->i + 3].text);
	for (k = 0; a[k]; k++)
		a[k] = (char)tolower((unsigned char)a[k]);
	for (k = 0; b[k]; k++)
		b[k] = (char)tolower((unsigned char)b[k]);
	if (ym) /* Spark reads it (a YearMonthIntervalType literal); this
		 * engine's intervals are microseconds, and a month is none */
		sl_err_set(
		    p->err, SL_EPARSE,
		    "interval: %s TO %s (a year-month interval) is not supported: streamlab's intervals are a fixed number of microseconds; write INTERVAL n MONTHS (31 days each) at col %d",
		    a, b, start + 1);
	else
		sl_err_set(p->err, SL_EPARSE,
			   "Intervals FROM %s TO %s are not supported. at col %d",
			   a, b, start + 1);
	p->failed = true;
	return false;
}

/* INTERVAL '3:30' MINUTE TO SECOND (cur: the value; neg: a '-' before it,
 * Spark's sign outside the quotes, so -'-1:30' is +1:30): the literal's
 * microseconds in *us, or false with an error. */
static bool interval_to(struct sl_sqlexpr *p, bool neg, int start, int64_t *us)
{
	sl_sqltok *t = cur(p);
	int from = dt_unit(&p->t[p->i + 1]), to = dt_unit(&p->t[p->i + 3]);
	const struct dt_form *f = NULL;
	if (t->kind != T_STRING) {
		sl_err_set(p->err, SL_EPARSE,
			   "The value of from-to unit must be a string. at col %d",
			   start + 1);
		p->failed = true;
		return false;
	}
	for (size_t k = 0; k < sizeof dt_forms / sizeof *dt_forms; k++)
		if (dt_forms[k].from == from && dt_forms[k].to == to)
			f = &dt_forms[k];
	if (f == NULL && strcasecmp(p->t[p->i + 1].text, "year") == 0 &&
	    strcasecmp(p->t[p->i + 3].text, "month") == 0)
		return interval_to_err(p, start, true);
	if (f == NULL)
		return interval_to_err(p, start, false);
	if (!dt_parse(t->text, f, us)) {
		sl_err_set(p->err, SL_EPARSE,
			   "interval: '%s' does not match the day-time format "
			   "`%s` of INTERVAL %s TO %s at col %d",
			   t->text, f->pattern, dt_units[from], dt_units[to],
			   start + 1);
		p->failed = true;
		return false;
	}
	if (neg)
		*us = -*us;
	p->i += 4;
	return true;
}

/* DATE '2026-01-01' (Spark's stringToDate forms). */
static sl_expr *date_lit(struct sl_sqlexpr *p, int start)
{
	sl_sqltok *t = cur(p);
	int32_t days;
	if (!sl_date_parse(t->text, t->len, &days)) {
		sl_err_set(p->err, SL_EPARSE,
			   "invalid date literal '%s' at col %d", t->text,
			   t->start + 1);
		p->failed = true;
		return NULL;
	}
	p->i++;
	return at(sl_expr_lit_date(days), start);
}

/* After INTERVAL: a value, or a sign then a value (Spark's intervalValue:
 * (PLUS | MINUS)? (INTEGER_VALUE | DECIMAL_VALUE | stringLit)), so that
 * `interval - 1` over a column named interval stays an expression. */
static bool interval_starts(struct sl_sqlexpr *p)
{
	const sl_sqltok *a = &p->t[p->i + 1 < p->n ? p->i + 1 : p->n - 1];
	const sl_sqltok *b = &p->t[p->i + 2 < p->n ? p->i + 2 : p->n - 1];
	const sl_sqltok *c;
	if (a->kind != T_OP)
		return true;
	if (strcmp(a->text, "-") != 0 && strcmp(a->text, "+") != 0)
		return false;
	c = &p->t[p->i + 3 < p->n ? p->i + 3 : p->n - 1];
	return b->kind == T_STRING ||
	       ((b->kind == T_INT || b->kind == T_FLOAT) &&
		c->kind == T_IDENT && !is_reserved(c));
}

/* INTERVAL 10 MINUTES, INTERVAL '10 minutes', INTERVAL 1 HOUR 30 MINUTES,
 * INTERVAL '1 2:03' DAY TO MINUTE: a BIGINT literal of microseconds,
 * marked (op 1) as an interval. */
static sl_expr *interval_lit(struct sl_sqlexpr *p, int start)
{
	sl_buf b;
	sl_err e2;
	int64_t us;
	sl_expr *e;
	int first = p->i;
	sl_buf_init(&b);
	{
		int save = p->i;
		bool neg = accept_op(p, "-");
		sl_sqltok *v;
		if (!neg)
			accept_op(p, "+");
		v = cur(p);
		if ((v->kind == T_STRING || v->kind == T_INT ||
		     v->kind == T_FLOAT) &&
		    p->i + 3 < p->n && peek_kw(p, 2, "to") &&
		    p->t[p->i + 1].kind == T_IDENT &&
		    p->t[p->i + 3].kind == T_IDENT) {
			sl_buf_release(&b);
			if (!interval_to(p, neg, start, &us))
				return NULL;
			goto made;
		}
		p->i = save;
	}
	for (;;) {
		int save = p->i;
		bool neg = accept_op(p, "-");
		sl_sqltok *t;
		if (!neg)
			accept_op(p, "+");
		t = cur(p);
		if (t->kind != T_STRING && t->kind != T_INT &&
		    t->kind != T_FLOAT) {
			p->i = save;
			break;
		}
		sl_buf_printf(&b, "%s%s%s", b.len ? " " : "", neg ? "-" : "",
			      t->text);
		p->i++;
		if (cur(p)->kind != T_IDENT || is_reserved(cur(p)))
			break;
		sl_buf_printf(&b, " %s", cur(p)->text); /* the unit */
		p->i++;
	}
	if (p->i == first) {
		sl_buf_release(&b);
		return expect_fail(p, "an interval value");
	}
	if (sl_duration_parse(sl_buf_cstr(&b), &us, &e2) < 0) {
		sl_err_set(p->err, SL_EPARSE, "%s at col %d", e2.msg,
			   start + 1);
		p->failed = true;
		sl_buf_release(&b);
		return NULL;
	}
	sl_buf_release(&b);
made:
	e = sl_expr_lit_bigint(us);
	if (e == NULL)
		return nomem(p);
	e->op = 1;
	return at(e, start);
}

/* --------------------------------------------------------------- primary */

static sl_expr *parse_cast(struct sl_sqlexpr *p, int start)
{
	sl_expr *x;
	sl_type *t;
	sl_err e2;
	int depth = 0, from, to;
	char *text;
	if (!expect_op(p, "("))
		return NULL;
	x = operand(p, start, parse_expr);
	if (x == NULL)
		return NULL;
	if (!accept_kw(p, "as")) {
		sl_expr_free(x);
		return expect_fail(p, "AS");
	}
	from = cur(p)->start;
	while (cur(p)->kind != T_EOF && !(depth == 0 && is_op(p, ")"))) {
		if (is_op(p, "("))
			depth++;
		else if (is_op(p, ")"))
			depth--;
		p->i++;
	}
	to = cur(p)->start;
	if (!expect_op(p, ")")) {
		sl_expr_free(x);
		return NULL;
	}
	text = strndup(p->src + from, (size_t)(to - from));
	if (text == NULL) {
		sl_expr_free(x);
		return nomem(p);
	}
	t = sl_type_parse(text, &e2);
	free(text);
	if (t == NULL) {
		/* "schema: unknown type 'x' at col 1" -> "unknown type 'x'" */
		char *m = e2.msg, *c;
		if (strncmp(m, "schema: ", 8) == 0)
			m += 8;
		if ((c = strstr(m, " at col ")) != NULL)
			*c = '\0';
		sl_expr_free(x);
		sl_err_set(p->err, SL_EPARSE, "cast: %s at col %d", m,
			   from + 1);
		if (e2.hint[0])
			sl_err_hint(p->err, "%s", e2.hint);
		p->failed = true;
		return NULL;
	}
	x = sl_expr_cast(x, t);
	sl_type_free(t);
	return x ? at(x, start) : nomem(p);
}

static sl_expr *parse_case(struct sl_sqlexpr *p, int start)
{
	sl_expr *base = NULL, **args = NULL, **na;
	int n = 0, cap = 0;
	if (!is_kw(p, "when")) {
		base = operand(p, start, parse_expr);
		if (base == NULL)
			return NULL;
	}
	while (accept_kw(p, "when") || (n > 0 && accept_kw(p, "else"))) {
		bool is_else = strcasecmp(p->t[p->i - 1].text, "else") == 0;
		sl_expr *c = NULL, *v;
		if (!is_else) {
			c = operand(p, start, parse_expr);
			if (c != NULL && base != NULL)
				c = binop(p, SL_OP_EQ, sl_expr_ref(base), c,
					  c->pos - 1);
			if (c == NULL || !accept_kw(p, "then")) {
				sl_expr_free(c);
				if (!p->failed)
					expect_fail(p, "THEN");
				goto fail;
			}
		}
		v = operand(p, start, parse_expr);
		if (v == NULL) {
			sl_expr_free(c);
			goto fail;
		}
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 8;
			na = realloc(args, (size_t)cap * sizeof *args);
			if (na == NULL) {
				sl_expr_free(c);
				sl_expr_free(v);
				nomem(p);
				goto fail;
			}
			args = na;
		}
		if (c != NULL)
			args[n++] = c;
		args[n++] = v;
		if (is_else)
			break;
	}
	if (n == 0) {
		expect_fail(p, "WHEN");
		goto fail;
	}
	if (!accept_kw(p, "end")) {
		expect_fail(p, "END");
		goto fail;
	}
	sl_expr_free(base);
	{
		sl_expr *e = sl_expr_case(args, n);
		free(args);
		return e ? at(e, start) : nomem(p);
	}
fail:
	while (n > 0)
		sl_expr_free(args[--n]);
	free(args);
	sl_expr_free(base);
	return NULL;
}

static sl_expr *parse_call(struct sl_sqlexpr *p, const char *name, int start)
{
	sl_expr **args = NULL, **na, *a, *e;
	int n = 0, cap = 0;
	bool distinct = false;
	p->i++; /* ( */
	if (accept_kw(p, "distinct"))
		distinct = true;
	if (is_op(p, "*") && strcasecmp(name, "count") == 0 &&
	    p->t[p->i + 1].kind == T_OP &&
	    strcmp(p->t[p->i + 1].text, ")") == 0) {
		p->i += 2;
		a = at(sl_expr_lit_int(1), p->t[p->i - 2].start);
		return a ? sl_expr_call(name, &a, 1) : nomem(p);
	}
	if (!is_op(p, ")")) {
		do {
			a = operand(p, start, parse_expr);
			if (a == NULL)
				goto fail;
			/* Spark's grammar: struct's arguments are named
			 * expressions (struct(a AS x, b)) */
			if (strcasecmp(name, "struct") == 0 &&
			    accept_kw(p, "as")) {
				if (cur(p)->kind != T_IDENT &&
				    cur(p)->kind != T_QIDENT) {
					sl_expr_free(a);
					expect_fail(p, "a field name");
					goto fail;
				}
				a = sl_expr_alias(a, cur(p)->text);
				p->i++;
				if (a == NULL) {
					nomem(p);
					goto fail;
				}
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 4;
				na = realloc(args, (size_t)cap * sizeof *args);
				if (na == NULL) {
					sl_expr_free(a);
					nomem(p);
					goto fail;
				}
				args = na;
			}
			args[n++] = a;
		} while (accept_op(p, ","));
	}
	if (!expect_op(p, ")"))
		goto fail;
	e = distinct ? sl_expr_call_distinct(name, args, n)
		     : sl_expr_call(name, args, n);
	free(args);
	return e ? at(e, start) : nomem(p);
fail:
	while (n > 0)
		sl_expr_free(args[--n]);
	free(args);
	return NULL;
}

/* a, a.b.c (one dotted name, resolved through struct fields), a.*, f(...) */
static sl_expr *parse_name(struct sl_sqlexpr *p)
{
	sl_sqltok *t = cur(p);
	int start = t->start;
	sl_buf b;
	sl_expr *e;
	if (t->kind == T_IDENT && p->t[p->i + 1].kind == T_OP &&
	    strcmp(p->t[p->i + 1].text, "(") == 0) {
		p->i++;
		return parse_call(p, t->text, start);
	}
	sl_buf_init(&b);
	sl_buf_adds(&b, t->text);
	p->i++;
	while (is_op(p, ".") && (p->t[p->i + 1].kind == T_IDENT ||
				 p->t[p->i + 1].kind == T_QIDENT ||
				 (p->t[p->i + 1].kind == T_OP &&
				  strcmp(p->t[p->i + 1].text, "*") == 0))) {
		sl_sqltok *f = &p->t[p->i + 1];
		if (f->kind == T_OP) { /* s.* */
			p->i += 2;
			e = sl_expr_star(sl_buf_cstr(&b));
			sl_buf_release(&b);
			return e ? at(e, start) : nomem(p);
		}
		sl_buf_printf(&b, ".%s", f->text);
		p->i += 2;
	}
	e = sl_buf_failed(&b) ? NULL : sl_expr_col(sl_buf_cstr(&b));
	sl_buf_release(&b);
	return e ? at(e, start) : nomem(p);
}

/* Does a subquery start `ahead` tokens on (SELECT or WITH), and is there
 * a hook to parse it? */
static bool subq_at(const struct sl_sqlexpr *p, int ahead)
{
	const sl_sqltok *t = &p->t[p->i + ahead < p->n ? p->i + ahead : p->n - 1];
	return p->subq != NULL && t->kind == T_IDENT &&
	       (strcasecmp(t->text, "select") == 0 ||
		strcasecmp(t->text, "with") == 0);
}

/* The hook's subquery, then its ')'.  The statement parser parses
 * expressions of its own inside it on this cursor: our state is saved. */
static sl_expr *subquery(struct sl_sqlexpr *p, int kind, sl_expr *l,
			 int start)
{
	int ctx = p->ctx, depth = p->depth;
	sl_err *err = p->err;
	sl_expr *e = p->subq(p->subq_ctx, kind, l, start);
	p->ctx = ctx;
	p->depth = depth;
	p->err = err;
	if (e == NULL) {
		p->failed = true; /* the hook's error stands */
		return NULL;
	}
	p->failed = false;
	if (!expect_op(p, ")")) {
		sl_expr_free(e);
		return NULL;
	}
	return e;
}

void sl_sqlexpr_on_subquery(sl_sqlexpr *x, sl_sqlexpr_subq_fn fn, void *ctx)
{
	x->subq = fn;
	x->subq_ctx = ctx;
}

static sl_expr *parse_primary(struct sl_sqlexpr *p)
{
	sl_sqltok *t = cur(p);
	int start = t->start;
	sl_expr *e;
	switch (t->kind) {
	case T_INT:
	case T_FLOAT: p->i++; return at(number(p, t, false), start);
	case T_STRING: {
		/* adjacent literals concatenate: 'it' 's' is 'its' (Spark) */
		sl_buf b;
		sl_buf_init(&b);
		while (cur(p)->kind == T_STRING) {
			sl_buf_add(&b, cur(p)->text, cur(p)->len);
			p->i++;
		}
		e = sl_buf_failed(&b)
			? NULL
			: sl_expr_lit_string(b.len ? b.p : "", b.len);
		sl_buf_release(&b);
		return e ? at(e, start) : nomem(p);
	}
	case T_QIDENT: return parse_name(p);
	case T_OP:
		if (accept_op(p, "(")) {
			e = operand(p, start, parse_expr);
			if (e != NULL && !expect_op(p, ")")) {
				sl_expr_free(e);
				return NULL;
			}
			return e;
		}
		if (accept_op(p, "*")) {
			e = sl_expr_star(NULL);
			return e ? at(e, start) : nomem(p);
		}
		return missing_operand(p);
	case T_EOF: return missing_operand(p);
	default: break;
	}
	/* identifiers and keywords */
	if (accept_kw(p, "null"))
		return at(sl_expr_lit_null(), start);
	if (accept_kw(p, "true"))
		return at(sl_expr_lit_bool(true), start);
	if (accept_kw(p, "false"))
		return at(sl_expr_lit_bool(false), start);
	if (is_kw(p, "cast") && p->t[p->i + 1].kind == T_OP &&
	    strcmp(p->t[p->i + 1].text, "(") == 0) {
		p->i++;
		return parse_cast(p, start);
	}
	if (accept_kw(p, "case"))
		return parse_case(p, start);
	if (is_kw(p, "exists") && p->t[p->i + 1].kind == T_OP &&
	    strcmp(p->t[p->i + 1].text, "(") == 0 && subq_at(p, 2)) {
		p->i += 2;
		return subquery(p, SL_SUBQ_EXISTS, NULL, start);
	}
	if (is_kw(p, "timestamp") && p->t[p->i + 1].kind == T_STRING) {
		p->i++;
		return timestamp_lit(p, start);
	}
	if (is_kw(p, "date") && p->t[p->i + 1].kind == T_STRING) {
		p->i++;
		return date_lit(p, start);
	}
	if (is_kw(p, "interval") && interval_starts(p)) {
		p->i++;
		return interval_lit(p, start);
	}
	if (is_reserved(t) &&
	    !(is_kw(p, "like") && p->t[p->i + 1].kind == T_OP &&
	      strcmp(p->t[p->i + 1].text, "(") == 0))
		return missing_operand(p);
	return parse_name(p);
}

/* ------------------------------------------------------------ operators */

static sl_expr *parse_postfix(struct sl_sqlexpr *p)
{
	int start = cur(p)->start;
	sl_expr *e = parse_primary(p), *ix, *args[2];
	while (e != NULL) {
		if (is_op(p, ".") && (p->t[p->i + 1].kind == T_IDENT ||
				      p->t[p->i + 1].kind == T_QIDENT)) {
			e = sl_expr_field(e, p->t[p->i + 1].text);
			p->i += 2;
			if (e == NULL)
				return nomem(p);
			at(e, start);
		} else if (accept_op(p, "[")) {
			ix = operand(p, start, parse_expr);
			if (ix == NULL || !expect_op(p, "]")) {
				sl_expr_free(ix);
				sl_expr_free(e);
				return NULL;
			}
			args[0] = e;
			args[1] = ix;
			e = sl_expr_call("get", args, 2);
			if (e == NULL)
				return nomem(p);
			at(e, start);
		} else {
			break;
		}
	}
	return e;
}

static sl_expr *parse_unary(struct sl_sqlexpr *p)
{
	int start = cur(p)->start;
	sl_expr *e;
	if (accept_op(p, "-")) {
		sl_sqltok *t = cur(p);
		/* -5 is the literal -5, as Spark's parser folds it */
		if ((t->kind == T_INT || t->kind == T_FLOAT) &&
		    !(p->t[p->i + 1].kind == T_OP &&
		      (strcmp(p->t[p->i + 1].text, ".") == 0 ||
		       strcmp(p->t[p->i + 1].text, "[") == 0))) {
			p->i++;
			return at(number(p, t, true), start);
		}
		e = operand(p, start, parse_unary);
		if (e == NULL)
			return NULL;
		e = sl_expr_unary(SL_X_NEG, e);
		return e ? at(e, start) : nomem(p);
	}
	if (accept_op(p, "+"))
		return operand(p, start, parse_unary);
	return parse_postfix(p);
}

static sl_expr *parse_mul(struct sl_sqlexpr *p)
{
	int start = cur(p)->start;
	sl_expr *l = parse_unary(p);
	int k = 0;
	while (l != NULL) {
		int op = is_op(p, "*")   ? SL_OP_MUL
			 : is_op(p, "/") ? SL_OP_DIV
			 : is_op(p, "%") ? SL_OP_MOD
					 : 0;
		if (op == 0 || !chain(p, &k, &l))
			break;
		p->i++;
		l = binop(p, op, l, operand(p, start, parse_unary), start);
	}
	p->depth -= k;
	return l;
}

static sl_expr *parse_add(struct sl_sqlexpr *p)
{
	int start = cur(p)->start;
	sl_expr *l = parse_mul(p);
	int k = 0;
	while (l != NULL) {
		int op = is_op(p, "+")   ? SL_OP_ADD
			 : is_op(p, "-") ? SL_OP_SUB
					 : 0;
		if (op == 0 || !chain(p, &k, &l))
			break;
		p->i++;
		l = binop(p, op, l, operand(p, start, parse_mul), start);
	}
	p->depth -= k;
	return l;
}

static sl_expr *parse_concat(struct sl_sqlexpr *p)
{
	int start = cur(p)->start;
	sl_expr *l = parse_add(p);
	int k = 0;
	while (l != NULL && is_op(p, "||") && chain(p, &k, &l)) {
		p->i++;
		l = binop(p, SL_OP_CONCAT, l, operand(p, start, parse_add),
			  start);
	}
	p->depth -= k;
	return l;
}

static int cmp_op(struct sl_sqlexpr *p)
{
	static const struct {
		const char *s;
		int op;
	} m[] = {
		{ "=", SL_OP_EQ },  { "==", SL_OP_EQ }, { "<>", SL_OP_NE },
		{ "!=", SL_OP_NE }, { "<", SL_OP_LT },  { "<=", SL_OP_LE },
		{ ">", SL_OP_GT },  { ">=", SL_OP_GE }, { "<=>", SL_OP_EQNS },
	};
	size_t k;
	for (k = 0; k < sizeof m / sizeof m[0]; k++)
		if (is_op(p, m[k].s))
			return m[k].op;
	return 0;
}

static sl_expr *negate(struct sl_sqlexpr *p, sl_expr *e, bool neg, int start)
{
	if (e == NULL || !neg)
		return e;
	e = sl_expr_unary(SL_X_NOT, e);
	return e ? at(e, start) : nomem(p);
}

static sl_expr *parse_in(struct sl_sqlexpr *p, sl_expr *l, int start)
{
	sl_expr *list[256], *e;
	int n = 0;
	if (!expect_op(p, "(")) {
		sl_expr_free(l);
		return NULL;
	}
	if (subq_at(p, 0))
		return subquery(p, SL_SUBQ_IN, l, start);
	do {
		if (n == 256) {
			expect_fail(p, "at most 256 IN values");
			goto fail;
		}
		list[n] = operand(p, start, parse_expr);
		if (list[n] == NULL)
			goto fail;
		n++;
	} while (accept_op(p, ","));
	if (!expect_op(p, ")"))
		goto fail;
	e = sl_expr_in(l, list, n);
	return e ? at(e, start) : nomem(p);
fail:
	while (n > 0)
		sl_expr_free(list[--n]);
	sl_expr_free(l);
	return NULL;
}

/* a BETWEEN lo AND hi  ==>  ((a >= lo) AND (a <= hi)), as Spark rewrites */
static sl_expr *parse_between(struct sl_sqlexpr *p, sl_expr *l, int start)
{
	sl_expr *lo = operand(p, start, parse_concat), *hi;
	if (lo == NULL) {
		sl_expr_free(l);
		return NULL;
	}
	if (!accept_kw(p, "and")) {
		sl_expr_free(l);
		sl_expr_free(lo);
		return expect_fail(p, "AND");
	}
	hi = operand(p, start, parse_concat);
	lo = binop(p, SL_OP_GE, sl_expr_ref(l), lo, start);
	hi = binop(p, SL_OP_LE, l, hi, start);
	return binop(p, SL_OP_AND, lo, hi, start);
}

/* A comparison, IS, [NOT] IN/BETWEEN/LIKE continues the chain. */
static bool cmp_follows(struct sl_sqlexpr *p)
{
	return cmp_op(p) != 0 || is_kw(p, "is") || is_kw(p, "in") ||
	       is_kw(p, "between") || is_kw(p, "like") ||
	       (is_kw(p, "not") &&
		(peek_kw(p, 1, "in") || peek_kw(p, 1, "between") ||
		 peek_kw(p, 1, "like")));
}

static sl_expr *parse_cmp(struct sl_sqlexpr *p)
{
	int start = cur(p)->start, op;
	sl_expr *l = parse_concat(p), *args[2];
	int k = 0;
	while (l != NULL && cmp_follows(p) && chain(p, &k, &l)) {
		bool neg = false;
		if ((op = cmp_op(p)) != 0) {
			p->i++;
			l = binop(p, op, l, operand(p, start, parse_concat),
				  start);
			continue;
		}
		if (accept_kw(p, "is")) {
			neg = accept_kw(p, "not");
			if (!accept_kw(p, "null")) {
				sl_expr_free(l);
				return expect_fail(p, "NULL");
			}
			l = sl_expr_unary(neg ? SL_X_ISNOTNULL : SL_X_ISNULL,
					  l);
			l = l ? at(l, start) : nomem(p);
			continue;
		}
		if (is_kw(p, "not") &&
		    (peek_kw(p, 1, "in") || peek_kw(p, 1, "between") ||
		     peek_kw(p, 1, "like"))) {
			neg = true;
			p->i++;
		}
		if (accept_kw(p, "in"))
			l = negate(p, parse_in(p, l, start), neg, start);
		else if (accept_kw(p, "between"))
			l = negate(p, parse_between(p, l, start), neg, start);
		else if (accept_kw(p, "like")) {
			args[0] = l;
			args[1] = operand(p, start, parse_concat);
			if (args[1] == NULL) {
				sl_expr_free(l);
				return NULL;
			}
			l = sl_expr_call("like", args, 2);
			l = negate(p, l ? at(l, start) : nomem(p), neg, start);
		} else
			break;
	}
	p->depth -= k;
	return l;
}

static sl_expr *parse_not(struct sl_sqlexpr *p)
{
	int start = cur(p)->start;
	sl_expr *e;
	if (!accept_kw(p, "not"))
		return parse_cmp(p);
	e = operand(p, start, parse_not);
	if (e == NULL)
		return NULL;
	e = sl_expr_unary(SL_X_NOT, e);
	return e ? at(e, start) : nomem(p);
}

static sl_expr *parse_and(struct sl_sqlexpr *p)
{
	int start = cur(p)->start;
	sl_expr *l = parse_not(p);
	int k = 0;
	while (l != NULL && is_kw(p, "and") && chain(p, &k, &l)) {
		p->i++;
		l = binop(p, SL_OP_AND, l, operand(p, start, parse_not), start);
	}
	p->depth -= k;
	return l;
}

static sl_expr *parse_expr(struct sl_sqlexpr *p)
{
	int start = cur(p)->start;
	sl_expr *l = parse_and(p);
	int k = 0;
	while (l != NULL && is_kw(p, "or") && chain(p, &k, &l)) {
		p->i++;
		l = binop(p, SL_OP_OR, l, operand(p, start, parse_and), start);
	}
	p->depth -= k;
	return l;
}

/* expr [[AS] alias] EOF */
static sl_expr *parse_top(struct sl_sqlexpr *p)
{
	sl_expr *e;
	p->ctx = cur(p)->start;
	e = parse_expr(p);
	if (e == NULL)
		return NULL;
	if (accept_kw(p, "as")) {
		if (cur(p)->kind != T_IDENT && cur(p)->kind != T_QIDENT) {
			sl_expr_free(e);
			return expect_fail(p, "an alias after AS");
		}
	}
	if ((cur(p)->kind == T_IDENT && !is_reserved(cur(p))) ||
	    cur(p)->kind == T_QIDENT) {
		int pos = e->pos;
		e = sl_expr_alias(e, cur(p)->text);
		if (e == NULL)
			return nomem(p);
		e->pos = pos;
		p->i++;
	}
	if (cur(p)->kind != T_EOF) {
		sl_expr_free(e);
		return unexpected(p);
	}
	return e;
}

sl_expr *sl_sqlexpr_parse(const char *sql, sl_err *err)
{
	struct sl_sqlexpr p;
	sl_expr *e = NULL;
	int k;
	memset(&p, 0, sizeof p);
	p.src = sql;
	p.err = err;
	if (lex(&p) == 0)
		e = parse_top(&p);
	for (k = 0; k < p.n; k++)
		free(p.t[k].text);
	free(p.t);
	if (e == NULL && !p.failed)
		sl_err_nomem(err);
	return e;
}

/* ------------------------------------------------------------- cursor */

sl_sqlexpr *sl_sqlexpr_open(const char *sql, sl_err *err)
{
	sl_sqlexpr *x = calloc(1, sizeof *x);
	if (x == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	x->src = sql;
	x->err = err;
	x->comments = true;
	if (lex(x) < 0) {
		if (!x->failed)
			sl_err_nomem(err);
		sl_sqlexpr_close(x);
		return NULL;
	}
	return x;
}

void sl_sqlexpr_close(sl_sqlexpr *x)
{
	int k;
	if (x == NULL)
		return;
	for (k = 0; k < x->n; k++)
		free(x->t[k].text);
	free(x->t);
	free(x);
}

const sl_sqltok *sl_sqlexpr_tok(const sl_sqlexpr *x, int ahead)
{
	int i = x->i + ahead;
	return &x->t[i < 0 ? 0 : i < x->n ? i : x->n - 1];
}

int sl_sqlexpr_at(const sl_sqlexpr *x)
{
	return x->i;
}

void sl_sqlexpr_seek(sl_sqlexpr *x, int i)
{
	x->i = i < 0 ? 0 : i < x->n ? i : x->n - 1;
}

sl_expr *sl_sqlexpr_next(sl_sqlexpr *x, sl_err *err)
{
	sl_expr *e;
	x->err = err;
	x->failed = false;
	x->depth = 0;
	x->ctx = cur(x)->start;
	e = parse_expr(x);
	if (e == NULL && !x->failed)
		sl_err_nomem(err);
	return e;
}
