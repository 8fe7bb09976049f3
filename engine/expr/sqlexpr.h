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

#endif
