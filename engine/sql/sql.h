/*
 * sql: Spark SQL statements, what spark.sql(text) runs.
 *
 * A statement becomes the same sl_plan tree the DataFrame API builds
 * (plan/plan.h), over the catalog's tables and views (plan/catalog.h), so
 * a SQL query over a streaming view is a streaming DataFrame whose
 * writeStream works as any other, and every analysis error is the
 * DataFrame API's.  Expressions are parsed by expr/sqlexpr.c's grammar
 * (through its token cursor); this module adds the statement grammar:
 *
 *   [WITH name AS (query), ...]
 *   SELECT [DISTINCT] item, ... [FROM rel [join rel ON cond | USING (c,..)]..]
 *     [WHERE cond] [GROUP BY expr|ordinal|alias, ...] [HAVING cond]
 *   [UNION | INTERSECT | EXCEPT | MINUS [ALL|DISTINCT] select ...]
 *   [ORDER BY expr [ASC|DESC] [NULLS FIRST|LAST],..]
 *   [LIMIT n]
 *   rel:  view [[AS] alias] | (query) [[AS] alias] |
 *         range([start,] end [, step [, parts]]) [[AS] alias]
 *   join: [INNER] | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER] | LEFT SEMI |
 *         LEFT ANTI | CROSS JOIN, or a comma
 *   item: *, t.*, expr [[AS] alias]
 *   SHOW TABLES|VIEWS [IN|FROM global_temp|default] [[LIKE] 'pat|pat*'],
 *   DESCRIBE [TABLE] name, EXPLAIN [EXTENDED]
 *   statement, CREATE [OR REPLACE] TEMP[ORARY] VIEW name AS query,
 *   DROP VIEW [IF EXISTS] name.
 *
 * Names: t.c and c resolve through the FROM clause's scope (its views'
 * names or aliases), Spark's [UNRESOLVED_COLUMN.WITH_SUGGESTION] and
 * [AMBIGUOUS_REFERENCE] otherwise; a view that is not there is Spark's
 * [TABLE_OR_VIEW_NOT_FOUND]; bad syntax is [PARSE_SYNTAX_ERROR] Syntax
 * error at or near 'x'.(line L, pos P) (P 0-based, as Spark).  A join
 * whose two sides share a column name renames the right side's copy
 * inside the plan (name#N, shown by explain); the output keeps Spark's
 * names.  INTERSECT and EXCEPT (DISTINCT) are a left semi / anti join on
 * every column with <=>, as Spark rewrites them; INTERSECT ALL and EXCEPT
 * ALL count each row on both sides (batch only); INTERSECT binds tighter
 * than UNION and EXCEPT, which go left to right, as Spark's ANSI grammar.
 * Uncorrelated [NOT] IN (SELECT ..) and [NOT] EXISTS (SELECT ..) as AND
 * terms of WHERE are left semi / anti joins, NOT IN null-aware
 * (sql_subq.c).  Not supported: subqueries elsewhere (an error naming
 * it), correlated subqueries (their outer names are unknown columns),
 * scalar subqueries and OVER windows (syntax errors).
 *
 * The plan returned remembers its text and the catalog views it read
 * (plan_int.h's sl_plan_sql), so toPySpark writes spark.sql(...) after
 * registering the same views.
 *
 * Ownership: the text and the catalog are borrowed.  The result is a new
 * plan reference (sl_plan_free it).  Limits, so hostile text fails
 * fast: SL_SQL_MAX_DEPTH nested queries, SL_SQL_MAX_JOINS joins in a FROM
 * clause, SL_SQL_MAX_SETOPS set operations in a query; expressions have
 * sqlexpr's own.
 */
#ifndef SL_SQL_H
#define SL_SQL_H

#include "core/err.h"
#include "plan/catalog.h"
#include "plan/plan.h"

#define SL_SQL_MAX_DEPTH  64
#define SL_SQL_MAX_JOINS  256  /* joins in one FROM clause */
#define SL_SQL_MAX_SETOPS 1024 /* UNION/INTERSECT/EXCEPT in one query */

/* Plan one statement.  A query gives its plan; SHOW, DESCRIBE and
 * EXPLAIN give a local relation with Spark's columns; CREATE and DROP VIEW
 * change the catalog and give an empty relation.  NULL with err set
 * (SL_EPARSE, SL_EANALYSIS, SL_ENOMEM). */
sl_plan *sl_sql_plan(const char *text, sl_catalog *cat, sl_err *err);

#endif
