/*
 * sqlexpr: the SQL expression parser behind selectExpr, filter/where
 * strings and F.expr.
 *
 * Grammar (Spark SQL, the parts streamlab teaches): column refs (a, s.f,
 * `quoted name`), *, s.*, literals (42, 42L, 4.2, 1e3, 'str', "str", TRUE,
 * FALSE, NULL, TIMESTAMP '2026-01-01 12:00:00', INTERVAL 10 MINUTES),
 * + - * / % ||, = == <> != < <= > >= <=>, AND OR NOT, CAST(x AS type),
 * x AS alias / x alias, f(args) with DISTINCT and count(*), CASE [x] WHEN ...
 * THEN ... [ELSE ...] END, IS [NOT] NULL, [NOT] IN (...), [NOT] BETWEEN a
 * AND b, [NOT] LIKE, parentheses.  Keywords are case-insensitive.
 *
 * Errors (SL_EPARSE) point at the column of the problem, 1-based:
 *   "expected expression at 'amount >' (col 9)"
 *   "unexpected ')' at col 12", "unterminated string at col 5".
 * The caller prefixes the method name ("filter: ...").
 */
#ifndef SL_SQLEXPR_H
#define SL_SQLEXPR_H

#include "core/err.h"
#include "expr/expr.h"

/* Parse one expression (an optional alias allowed).  New tree or NULL. */
sl_expr *sl_sqlexpr_parse(const char *sql, sl_err *err);

/* ---- the token cursor, for the statement parser (sql/sql.c) ----
 * The same lexer and expression grammar over a whole statement: the
 * statement parser reads keywords and names token by token and hands the
 * cursor to sl_sqlexpr_next for each expression, which stops at the first
 * token that cannot continue it (a keyword such as FROM, a ',', a ')').
 * Here the lexer also skips -- and C comments (selectExpr strings keep
 * reading "--1" as two minus signs); ';' is an operator token.  Offsets are
 * bytes into the text; an expression's nodes carry pos = offset + 1. */
enum sl_sqltok_kind {
	SL_TOK_EOF,
	SL_TOK_IDENT,  /* names and keywords */
	SL_TOK_QIDENT, /* `quoted name` (text without the backquotes) */
	SL_TOK_INT,
	SL_TOK_FLOAT,
	SL_TOK_STRING, /* text is the value */
	SL_TOK_OP
};
typedef struct sl_sqltok {
	int kind;       /* enum sl_sqltok_kind */
	int start, end; /* byte offsets [start, end) in the text */
	char *text;     /* NUL-terminated (strings may hold NUL before len) */
	size_t len;
} sl_sqltok;

typedef struct sl_sqlexpr sl_sqlexpr;

/* Lex sql (borrowed: it must outlive the cursor).  NULL with SL_EPARSE
 * (an unterminated string, a stray character) or SL_ENOMEM.  The cursor
 * stands on the first token; the last token is always SL_TOK_EOF. */
sl_sqlexpr *sl_sqlexpr_open(const char *sql, sl_err *err);
void sl_sqlexpr_close(sl_sqlexpr *x); /* accepts NULL */
/* The token `ahead` tokens after the cursor (the EOF token past the end);
 * borrowed, valid until close. */
const sl_sqltok *sl_sqlexpr_tok(const sl_sqlexpr *x, int ahead);
/* The cursor's token index, and moving it (clamped to the EOF token). */
int sl_sqlexpr_at(const sl_sqlexpr *x);
void sl_sqlexpr_seek(sl_sqlexpr *x, int i);
/* Parse one expression (no alias) at the cursor and move past it: a new
 * tree, or NULL with SL_EPARSE and the cursor on the offending token. */
sl_expr *sl_sqlexpr_next(sl_sqlexpr *x, sl_err *err);

/* Subqueries in expressions, for the statement parser: with a hook set,
 * `l [NOT] IN (SELECT|WITH ...)` and `[NOT] EXISTS (SELECT|WITH ...)`
 * call fn with the cursor on the subquery's first token; fn parses it,
 * leaves the cursor on its ')' and returns the expression standing for
 * it (l, NULL for EXISTS, is taken, also on failure), or NULL with err
 * set.  Without a hook they stay syntax errors. */
enum { SL_SUBQ_IN = 1, SL_SUBQ_EXISTS };
typedef sl_expr *(*sl_sqlexpr_subq_fn)(void *ctx, int kind, sl_expr *l,
				       int start);
void sl_sqlexpr_on_subquery(sl_sqlexpr *x, sl_sqlexpr_subq_fn fn, void *ctx);

#endif
