/* t101-sqlexpr: the SQL expression parser: round trips through
 * sl_expr_sql, precedence, Spark's names, every error with its column. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "expr/sqlexpr.h"
#include "tap.h"

static char out[2048];

/* parse -> SQL text, or "error: msg" */
static const char *sql(const char *src)
{
	sl_err err;
	sl_expr *e = sl_sqlexpr_parse(src, &err);
	sl_buf b;
	if (e == NULL) {
		snprintf(out, sizeof out, "error: %s", err.msg);
		return out;
	}
	sl_buf_init(&b);
	sl_expr_sql(e, &b);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	sl_expr_free(e);
	return out;
}

/* parse -> Spark's column name */
static const char *name(const char *src)
{
	sl_err err;
	sl_expr *e = sl_sqlexpr_parse(src, &err);
	sl_buf b;
	if (e == NULL) {
		snprintf(out, sizeof out, "error: %s", err.msg);
		return out;
	}
	sl_buf_init(&b);
	sl_expr_name(e, &b);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	sl_expr_free(e);
	return out;
}

/* SQL of the parse must parse again to the same SQL */
static void round_trip(const char *src, const char *want)
{
	char first[2048];
	snprintf(first, sizeof first, "%s", sql(src));
	is_str(first, want, "sql of '%s'", src);
	is_str(sql(first), first, "round trip of '%s'", src);
}

static void test_precedence(void)
{
	round_trip("a + b * c", "(a + (b * c))");
	round_trip("(a + b) * c", "((a + b) * c)");
	round_trip("a - b - c", "((a - b) - c)");
	round_trip("a / b % c", "((a / b) % c)");
	round_trip("a > 1 AND b < 2 OR c = 3",
		   "(((a > 1) AND (b < 2)) OR (c = 3))");
	round_trip("a OR b AND c", "(a OR (b AND c))");
	round_trip("NOT a = 1 AND b", "((NOT (a = 1)) AND b)");
	round_trip("- a * b", "((- a) * b)");
	round_trip("a || b = 'xy'", "((a || b) = 'xy')");
	round_trip("a + 1 || b", "((a + 1) || b)");
	round_trip("s.f[0] + 1", "(get(s.f, 0) + 1)");
	round_trip("x IS NULL OR y IS NOT NULL",
		   "((x IS NULL) OR (y IS NOT NULL))");
	round_trip("a IN (1, 2, 3)", "(a IN (1, 2, 3))");
	round_trip("a NOT IN (1, 2)", "(NOT (a IN (1, 2)))");
	round_trip("a BETWEEN 1 AND 5", "((a >= 1) AND (a <= 5))");
	round_trip("a NOT BETWEEN 1 AND 5 AND b",
		   "((NOT ((a >= 1) AND (a <= 5))) AND b)");
	round_trip("name LIKE 'a%'", "like(name, 'a%')");
	round_trip("a <=> NULL", "(a <=> NULL)");
	round_trip("a == 1 and b <> 2 or c != 3",
		   "(((a = 1) AND (b != 2)) OR (c != 3))");
}

static void test_literals(void)
{
	round_trip("42", "42");
	round_trip("42L", "42L");
	round_trip("3000000000", "3000000000L");
	round_trip("-5", "-5");
	round_trip("-2147483648", "-2147483648");
	round_trip("4.25", "4.25");
	round_trip("1e3", "1000.0");
	round_trip(".5", "0.5");
	round_trip("'it''s'", "'its'");
	round_trip("'a\\'b'", "'a\\'b'");
	round_trip("\"dq\"", "'dq'");
	round_trip("TRUE AND false", "(true AND false)");
	round_trip("NULL", "NULL");
	round_trip("TIMESTAMP '2026-01-01 12:00:00'",
		   "TIMESTAMP '2026-01-01 12:00:00'");
	is_str(sql("INTERVAL 10 MINUTES"), "INTERVAL '10 minutes'",
	       "interval literal");
	is_str(sql("INTERVAL '1 hour 30 minutes'"),
	       "INTERVAL '1 hour 30 minutes'", "interval string");
	is_str(sql("ts - INTERVAL 1 HOUR 30 MINUTES"),
	       "(ts - INTERVAL '1 hour 30 minutes')", "interval compound");
	{
		sl_expr *e = sl_sqlexpr_parse("INTERVAL 10 MINUTES", NULL);
		ok(e && e->kind == SL_X_LIT && e->lit.i == 600000000LL,
		   "interval is microseconds");
		sl_expr_free(e);
		e = sl_sqlexpr_parse("7", NULL);
		ok(e && e->type->kind == SL_INT, "small integer is INT");
		sl_expr_free(e);
		e = sl_sqlexpr_parse("7L", NULL);
		ok(e && e->type->kind == SL_BIGINT, "7L is BIGINT");
		sl_expr_free(e);
		e = sl_sqlexpr_parse("7.0", NULL);
		ok(e && e->type->kind == SL_DOUBLE, "7.0 is DOUBLE");
		sl_expr_free(e);
	}
}

static void test_forms(void)
{
	round_trip("CAST(x AS double)", "CAST(x AS DOUBLE)");
	round_trip("cast(x as array<string>)", "CAST(x AS ARRAY<STRING>)");
	round_trip("CASE WHEN a > 1 THEN 'x' ELSE 'y' END",
		   "CASE WHEN (a > 1) THEN 'x' ELSE 'y' END");
	round_trip("CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END",
		   "CASE WHEN (a = 1) THEN 'one' WHEN (a = 2) THEN 'two' END");
	round_trip("upper(name)", "upper(name)");
	round_trip("COUNT(*)", "count(1)");
	round_trip("count(DISTINCT user)", "count(DISTINCT user)");
	round_trip("concat_ws('-', a, b, c)", "concat_ws('-', a, b, c)");
	round_trip("current_timestamp()", "current_timestamp()");
	round_trip("window(ts, '10 minutes')", "window(ts, '10 minutes')");
	round_trip("window.start", "window.start");
	round_trip("`my col` + 1", "(`my col` + 1)");
	round_trip("*", "*");
	round_trip("s.*", "s.*");
	round_trip("x AS y", "x AS y");
	round_trip("a + 1 total", "(a + 1) AS total");
	round_trip("sum(a) AS `the sum`", "sum(a) AS `the sum`");
	round_trip("(upper(x)).f", "upper(x).f");
	round_trip("if(a > 0, 'pos', 'neg')", "if((a > 0), 'pos', 'neg')");
}

static void test_names(void)
{
	is_str(name("count(*)"), "count(1)", "name count(*)");
	is_str(name("sum(amount)"), "sum(amount)", "name sum");
	is_str(name("a + 1"), "(a + 1)", "name a + 1");
	is_str(name("window.start"), "start", "name window.start");
	is_str(name("a > 1 AND b < 2"), "((a > 1) AND (b < 2))", "name and");
	is_str(name("NOT a > 1"), "(NOT (a > 1))", "name not");
	is_str(name("-a"), "(- a)", "name neg");
	is_str(name("a != 1"), "(NOT (a = 1))", "name !=");
	is_str(name("a || b"), "concat(a, b)", "name ||");
	/* Spark's ResolveAliases: a cast of a column keeps the column's name */
	is_str(name("CAST(x AS DOUBLE)"), "x", "name cast of a column");
	is_str(name("CAST(x + 1 AS DOUBLE)"), "CAST((x + 1) AS DOUBLE)",
	       "name cast of an expression");
	is_str(name("'x'"), "x", "name string literal");
	is_str(name("upper(name) AS n"), "n", "name alias");
	is_str(name("CASE WHEN a > 1 THEN x ELSE y END"),
	       "CASE WHEN (a > 1) THEN x ELSE y END", "name case");
	is_str(name("a IN (1, 2)"), "(a IN (1, 2))", "name in");
	is_str(name("a IS NULL"), "(a IS NULL)", "name is null");
	is_str(name("count(DISTINCT a)"), "count(DISTINCT a)", "name distinct");
	is_str(name("window(ts, '5 minutes')"), "window", "name window");
}

static void test_errors(void)
{
	is_str(sql("amount > "), "error: expected expression at 'amount >' (col 9)",
	       "missing right operand");
	is_str(sql("amount >"), "error: expected expression at 'amount >' (col 9)",
	       "missing right operand, no space");
	is_str(sql("a = 1 AND b >"), "error: expected expression at 'b >' (col 14)",
	       "innermost incomplete expression quoted");
	is_str(sql("a AND"), "error: expected expression at 'a AND' (col 6)",
	       "missing after AND");
	is_str(sql("upper("), "error: expected expression at 'upper(' (col 7)",
	       "missing function argument");
	is_str(sql("NOT"), "error: expected expression at 'NOT' (col 4)",
	       "missing after NOT");
	is_str(sql("(a + 1"), "error: expected ')' at col 7", "missing paren");
	is_str(sql("a + 1)"), "error: unexpected ')' at col 6", "extra paren");
	is_str(sql("upper(name))"), "error: unexpected ')' at col 12",
	       "unexpected ) at col 12");
	is_str(sql("name = 'bob"), "error: unterminated string at col 8",
	       "unterminated string");
	is_str(sql(""), "error: empty expression", "empty");
	is_str(sql("   "), "error: empty expression", "blank");
	is_str(sql("> 5"), "error: unexpected '>' at col 1", "starts with operator");
	is_str(sql("a # b"), "error: unexpected character '#' at col 3",
	       "bad character");
	is_str(sql("a b c"), "error: unexpected 'c' at col 5", "two aliases");
	is_str(sql("CAST(x AS strng)"),
	       "error: cast: unknown type 'strng' at col 11", "bad cast type");
	is_str(sql("CAST(x double)"), "error: expected AS at 'double' (col 8)",
	       "cast without AS");
	is_str(sql("a IS 5"), "error: expected NULL at '5' (col 6)", "IS without NULL");
	is_str(sql("CASE WHEN a THEN b"), "error: expected END at col 19",
	       "case without END");
	is_str(sql("TIMESTAMP 'yesterday'"),
	       "error: invalid timestamp literal 'yesterday' at col 11",
	       "bad timestamp literal");
	is_str(sql("INTERVAL 10 parsecs"),
	       "error: invalid interval '10 parsecs': unknown unit 'parsecs' at col 1",
	       "bad interval unit");
	is_str(sql("`open"), "error: unterminated quoted name at col 1",
	       "unterminated backquote");
	is_str(sql("a BETWEEN 1 OR 2"), "error: expected AND at 'OR' (col 13)",
	       "between without AND");
	{
		sl_err err;
		sl_expr *e = sl_sqlexpr_parse("amount > ", &err);
		ok(e == NULL && err.code == SL_EPARSE, "parse errors are SL_EPARSE");
	}
}

/* The literal's microseconds, or INT64_MIN when it does not parse. */
static int64_t iv_us(const char *src)
{
	sl_expr *e = sl_sqlexpr_parse(src, NULL);
	int64_t us = e && e->kind == SL_X_LIT && e->op == 1 ? e->lit.i
							      : INT64_MIN;
	sl_expr_free(e);
	return us;
}

/* ANSI unit-to-unit intervals (Spark's AstBuilder.visitUnitToUnitInterval
 * and IntervalUtils.fromDayTimeString); the sign may stand outside the
 * quotes (intervalValue: (PLUS | MINUS)? stringLit). */
static void test_ansi_intervals(void)
{
	ok(iv_us("INTERVAL '3:30' MINUTE TO SECOND") == 210000000LL,
	   "MINUTE TO SECOND");
	ok(iv_us("interval '3:30.25' minute to second") == 210250000LL,
	   "a fraction of a second, lower case");
	ok(iv_us("INTERVAL '1:30' HOUR TO MINUTE") == 5400000000LL,
	   "HOUR TO MINUTE");
	ok(iv_us("INTERVAL '1:02:03' HOUR TO SECOND") == 3723000000LL,
	   "HOUR TO SECOND");
	ok(iv_us("INTERVAL '2 3' DAY TO HOUR") == (2 * 24 + 3) * 3600000000LL,
	   "DAY TO HOUR");
	ok(iv_us("INTERVAL '2 3:04' DAY TO MINUTE") ==
	       ((2 * 24 + 3) * 60 + 4) * 60000000LL,
	   "DAY TO MINUTE");
	ok(iv_us("INTERVAL '1 0:0:0.000001' DAY TO SECOND") ==
	       86400000001LL,
	   "DAY TO SECOND, to the microsecond");
	ok(iv_us("INTERVAL -'1:30' HOUR TO MINUTE") == -5400000000LL,
	   "the sign outside the quotes");
	ok(iv_us("INTERVAL '-1:30' HOUR TO MINUTE") == -5400000000LL,
	   "the sign inside the quotes");
	ok(iv_us("INTERVAL -'-1:30' HOUR TO MINUTE") == 5400000000LL,
	   "both signs: a plus");
	ok(iv_us("INTERVAL +'1:30' HOUR TO MINUTE") == 5400000000LL,
	   "a plus outside");
	ok(iv_us("INTERVAL -'5' MINUTE") == -300000000LL,
	   "a signed string with one unit");
	ok(iv_us("INTERVAL - 5 MINUTES") == -300000000LL, "a signed number");
	is_str(sql("INTERVAL 3 MINUTE TO SECOND"),
	       "error: The value of from-to unit must be a string. at col 1",
	       "a number before a unit range: Spark's sentence");
	is_str(sql("INTERVAL '1' SECOND TO MINUTE"),
	       "error: Intervals FROM second TO minute are not supported. at col 1",
	       "a backwards range: Spark's sentence, units in lower case");
	is_str(sql("INTERVAL '2:30' HOURS TO MINUTES"),
	       "error: Intervals FROM hours TO minutes are not supported. at col 1",
	       "plural units are no unit range");
	ok(strstr(sql("INTERVAL '1-2' YEAR TO MONTH"),
		  "error: interval: year TO month (a year-month interval) is not supported") ==
	       out,
	   "YEAR TO MONTH: no year-month type here, said so");
	is_str(sql("INTERVAL '3:60' MINUTE TO SECOND"),
	       "error: interval: '3:60' does not match the day-time format `[+|-]m:s.n` of INTERVAL MINUTE TO SECOND at col 1",
	       "second 60 is out of range");
	is_str(sql("interval - 1"), "(interval - 1)",
	       "a column named interval minus a number");
	is_str(sql("ts + INTERVAL -'1:30' HOUR TO MINUTE"),
	       "(ts + INTERVAL '-1 hour -30 minutes')",
	       "in an expression: every part of a negative interval signed");
	ok(iv_us("INTERVAL '-1 hour -30 minutes'") == -5400000000LL,
	   "which parses back to the same microseconds");
}

static void test_positions(void)
{
	sl_expr *e = sl_sqlexpr_parse("a + upper(b)", NULL);
	ok(e && e->pos == 1 && e->args[1]->pos == 5 && e->args[1]->args[0]->pos == 11,
	   "nodes carry their 1-based column");
	sl_expr_free(e);
}

int main(void)
{
	test_precedence();
	test_literals();
	test_forms();
	test_names();
	test_errors();
	test_ansi_intervals();
	test_positions();
	return done_testing();
}
