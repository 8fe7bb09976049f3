/* t102-func: the scalar function library, each function on a small batch
 * with NULLs, date_format patterns, window() incl. negative times. */
#include <stdlib.h>

#include "core/batch.h"
#include "expr/expr.h"
#include "expr/sqlexpr.h"
#include "tap.h"
#include "core/timeutil.h"

static sl_batch *mk(const char *ddl, int nrows, const char *const *cells)
{
	sl_type *t = sl_type_parse_ddl(ddl, NULL);
	sl_col *cols[16];
	sl_batch *b;
	int i, r;
	for (i = 0; i < t->nfields; i++) {
		sl_col *s = sl_col_new(sl_type_prim(SL_STRING), nrows);
		for (r = 0; r < nrows; r++) {
			const char *v = cells[r * t->nfields + i];
			if (v == NULL)
				sl_col_set_null(s, r);
			else
				sl_col_set_str(s, r, v, strlen(v));
		}
		cols[i] = sl_cast_col(s, t->fields[i].type, NULL);
		sl_col_free(s);
	}
	b = sl_batch_new(t, nrows, cols);
	sl_type_free(t);
	return b;
}

static char out[4096];

/* parse + resolve + eval; values joined by '|' (commas appear in arrays) */
static const char *ev(sl_batch *b, const char *src)
{
	sl_err err;
	sl_expr *e = sl_sqlexpr_parse(src, &err), *r;
	sl_col *c;
	sl_buf buf;
	int64_t i;
	if (e == NULL) {
		snprintf(out, sizeof out, "parse error: %s", err.msg);
		return out;
	}
	r = sl_expr_resolve(e, b->schema, &err);
	sl_expr_free(e);
	if (r == NULL) {
		snprintf(out, sizeof out, "error: %s%s%s", err.msg,
			 err.hint[0] ? " | " : "", err.hint);
		return out;
	}
	c = sl_expr_eval(r, b, &err);
	sl_expr_free(r);
	if (c == NULL) {
		snprintf(out, sizeof out, "error: %s", err.msg);
		return out;
	}
	sl_buf_init(&buf);
	for (i = 0; i < c->len; i++) {
		if (i)
			sl_buf_addc(&buf, '|');
		sl_value_show(c, i, &buf);
	}
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&buf));
	sl_buf_release(&buf);
	sl_col_free(c);
	return out;
}

static void test_strings(void)
{
	const char *cells[] = { "Hello", " pad ", "a,b,,c", "héllo",
				NULL, "x", "one", "", "ABC", NULL, NULL, NULL };
	sl_batch *b = mk("s STRING, p STRING, csv STRING, u STRING", 3, cells);
	is_str(ev(b, "upper(s)"), "HELLO|null|ABC", "upper");
	is_str(ev(b, "lower(s)"), "hello|null|abc", "lower");
	is_str(ev(b, "length(u)"), "5|0|null", "length counts characters");
	is_str(ev(b, "concat(s, '-', p)"), "Hello- pad |null|null",
	       "concat is NULL when any input is");
	is_str(ev(b, "s || '!'"), "Hello!|null|ABC!", "|| concatenates");
	is_str(ev(b, "concat_ws('/', s, p, 'z')"), "Hello/ pad /z|x/z|ABC/z",
	       "concat_ws skips NULLs");
	is_str(ev(b, "substring(s, 2, 3)"), "ell|null|BC", "substring 1-based");
	is_str(ev(b, "substr(s, -3)"), "llo|null|ABC", "substr negative start");
	is_str(ev(b, "substring(s, 0, 2)"), "He|null|AB", "substring pos 0 is 1");
	is_str(ev(b, "substring(s, -10, 8)"), "Hel|null|A",
	       "substring far negative (Spark counts from the virtual start)");
	is_str(ev(b, "substring(u, 2, 2)"), "él||null", "substring on characters");
	is_str(ev(b, "substring(s, 10)"), "|null|", "substring past the end");
	is_str(ev(b, "trim(p)"), "pad|x|null", "trim");
	is_str(ev(b, "ltrim(p)"), "pad |x|null", "ltrim");
	is_str(ev(b, "rtrim(p)"), " pad|x|null", "rtrim");
	is_str(ev(b, "split(csv, ',')"), "[a, b, , c]|[one]|null",
	       "split keeps empty strings");
	is_str(ev(b, "split(csv, ',', 2)"), "[a, b,,c]|[one]|null", "split limit");
	is_str(ev(b, "split(p, '\\\\s+')"), "[, pad, ]|[x]|null",
	       "split on \\s+ (Java class)");
	is_str(ev(b, "split(s, '')"), "[H, e, l, l, o]|null|[A, B, C]",
	       "split on the empty pattern");
	is_str(ev(b, "split(csv, ',')[1]"), "b|null|null", "array index is 0-based");
	is_str(ev(b, "s LIKE 'H%o'"), "true|null|false", "like");
	is_str(ev(b, "s LIKE '_BC'"), "false|null|true", "like _");
	is_str(ev(b, "s NOT LIKE 'A%'"), "true|null|false", "not like");
	is_str(ev(b, "upper(1)"), "1|1|1", "upper casts its argument to string");
	sl_batch_free(b);
}

static void test_nulls_and_math(void)
{
	const char *cells[] = { "1", NULL, "2.5", NULL, "-7", "10", "-2.5", "3",
				NULL, NULL, "2.675", NULL };
	sl_batch *b = mk("a INT, n INT, d DOUBLE, m BIGINT", 3, cells);
	is_str(ev(b, "coalesce(n, a, 0)"), "1|10|0", "coalesce");
	is_str(ev(b, "coalesce(n, d)"), "2.5|10.0|2.675", "coalesce widens");
	is_str(ev(b, "nvl(a, -1)"), "1|-7|-1", "nvl");
	is_str(ev(b, "ifnull(n, 'none')"), "none|10|none", "ifnull with string");
	is_str(ev(b, "if(a > 0, 'pos', 'neg')"), "pos|neg|neg",
	       "if: NULL condition takes the else branch");
	is_str(ev(b, "isnull(a)"), "false|false|true", "isnull");
	is_str(ev(b, "isnotnull(a)"), "true|true|false", "isnotnull");
	is_str(ev(b, "abs(a)"), "1|7|null", "abs int");
	is_str(ev(b, "abs(d)"), "2.5|2.5|2.675", "abs double");
	is_str(ev(b, "round(d)"), "3.0|-3.0|3.0", "round HALF_UP away from zero");
	is_str(ev(b, "round(d, 2)"), "2.5|-2.5|2.68", "round 2.675 to 2.68 as Spark");
	is_str(ev(b, "round(125, -1)"), "130|130|130", "round int to tens");
	is_str(ev(b, "floor(d)"), "2|-3|2", "floor is bigint");
	is_str(ev(b, "ceil(d)"), "3|-2|3", "ceil is bigint");
	is_str(ev(b, "ceil(a)"), "1|-7|null", "ceil of int");
	is_str(ev(b, "sqrt(m)"), "null|1.7320508075688772|null", "sqrt");
	is_str(ev(b, "sqrt(-1)"), "NaN|NaN|NaN", "sqrt negative NaN");
	is_str(ev(b, "pow(2, a)"), "2.0|0.0078125|null", "pow");
	is_str(ev(b, "power(d, 2)"), "6.25|6.25|7.155624999999999", "power");
	is_str(ev(b, "greatest(a, n, 0)"), "1|10|0", "greatest skips nulls");
	is_str(ev(b, "least(a, n)"), "1|-7|null", "least all null is null");
	is_str(ev(b, "greatest('b', 'abc')"), "b|b|b", "greatest strings");
	sl_batch_free(b);
}

static void test_time(void)
{
	const char *cells[] = { "2026-03-07 09:05:03.25", "2026-03-07 21:15:00", "90.5",
				"07/03/2026 21:15",
				NULL, "bad", NULL, "31/02/2026 10:00",
				"1969-12-31 23:59:59", "1970-01-01", "-1", "1/1/2026 1:2" };
	sl_batch *b = mk("ts TIMESTAMP, s STRING, sec DOUBLE, eu STRING", 3, cells);
	is_str(ev(b, "date_format(ts, 'yyyy-MM-dd HH:mm:ss')"),
	       "2026-03-07 09:05:03|null|1969-12-31 23:59:59", "date_format basic");
	is_str(ev(b, "date_format(ts, 'yy/M/d h:mm a')"),
	       "26/3/7 9:05 AM|null|69/12/31 11:59 PM", "date_format yy M d h a");
	is_str(ev(b, "date_format(ts, 'EEE, dd MMM yyyy')"),
	       "Sat, 07 Mar 2026|null|Wed, 31 Dec 1969", "date_format names");
	is_str(ev(b, "date_format(ts, 'EEEE MMMM')"),
	       "Saturday March|null|Wednesday December", "date_format full names");
	is_str(ev(b, "date_format(ts, \"yyyy-MM-dd'T'HH:mm:ss.SSS\")"),
	       "2026-03-07T09:05:03.250|null|1969-12-31T23:59:59.000",
	       "date_format quoted T and millis");
	is_str(ev(b, "date_format(ts, \"HH 'o''clock'\")"),
	       "09 o'clock|null|23 o'clock", "date_format '' inside quotes");
	is_str(ev(b, "date_format(ts, 'yyyy Q')"),
	       "error: unsupported datetime pattern letter 'Q' in 'yyyy Q'",
	       "bad pattern letter fails at resolve");
	is_str(ev(b, "year(ts)"), "2026|null|1969", "year");
	is_str(ev(b, "month(ts)"), "3|null|12", "month");
	is_str(ev(b, "dayofmonth(ts)"), "7|null|31", "dayofmonth");
	is_str(ev(b, "hour(ts)"), "9|null|23", "hour");
	is_str(ev(b, "minute(ts)"), "5|null|59", "minute");
	is_str(ev(b, "second(ts)"), "3|null|59", "second");
	is_str(ev(b, "hour(s)"), "21|null|0", "hour of a string casts it");
	is_str(ev(b, "to_timestamp(s)"), "2026-03-07 21:15:00|null|1970-01-01 00:00:00",
	       "to_timestamp default");
	is_str(ev(b, "to_timestamp(eu, 'dd/MM/yyyy HH:mm')"),
	       "2026-03-07 21:15:00|null|null",
	       "to_timestamp with pattern; strict widths; bad is null");
	is_str(ev(b, "to_timestamp(eu, 'd/M/yyyy H:m')"),
	       "2026-03-07 21:15:00|null|2026-01-01 01:02:00", "to_timestamp one-letter fields");
	is_str(ev(b, "unix_timestamp(ts)"), "1772874303|null|-1",
	       "unix_timestamp of a timestamp floors");
	is_str(ev(b, "unix_timestamp(s)"), "1772918100|null|null",
	       "unix_timestamp of a string uses yyyy-MM-dd HH:mm:ss");
	is_str(ev(b, "unix_timestamp(eu, 'dd/MM/yyyy HH:mm')"), "1772918100|null|null",
	       "unix_timestamp with pattern");
	is_str(ev(b, "timestamp_seconds(sec)"),
	       "1970-01-01 00:01:30.5|null|1969-12-31 23:59:59",
	       "timestamp_seconds fractional");
	is_str(ev(b, "timestamp_seconds(60)"),
	       "1970-01-01 00:01:00|1970-01-01 00:01:00|1970-01-01 00:01:00",
	       "timestamp_seconds int");
	is_str(ev(b, "current_timestamp()"),
	       "1970-01-01 00:00:00|1970-01-01 00:00:00|1970-01-01 00:00:00",
	       "current_timestamp defaults to 0");
	sl_func_set_now(1772874303 * SL_US_PER_SEC);
	is_str(ev(b, "current_timestamp()"),
	       "2026-03-07 09:05:03|2026-03-07 09:05:03|2026-03-07 09:05:03",
	       "current_timestamp reads the batch time");
	is_str(ev(b, "unix_timestamp()"), "1772874303|1772874303|1772874303",
	       "unix_timestamp() is now");
	sl_func_set_now(0);
	is_str(ev(b, "ts > TIMESTAMP '2000-01-01 00:00:00'"), "true|null|false",
	       "timestamp literal compare");
	is_str(ev(b, "ts + INTERVAL 1 HOUR"),
	       "2026-03-07 10:05:03.25|null|1970-01-01 00:59:59",
	       "timestamp + interval");
	sl_batch_free(b);
}

static void test_window(void)
{
	const char *cells[] = { "1970-01-01 00:12:00", "1969-12-31 23:55:00",
				"1969-12-31 23:50:00", NULL };
	sl_batch *b = mk("t TIMESTAMP", 4, cells);
	sl_err err;
	sl_expr *e, *r;
	int64_t size, slide, start;
	is_str(ev(b, "window(t, '10 minutes')"),
	       "{1970-01-01 00:10:00, 1970-01-01 00:20:00}|"
	       "{1969-12-31 23:50:00, 1970-01-01 00:00:00}|"
	       "{1969-12-31 23:50:00, 1970-01-01 00:00:00}|null",
	       "tumbling window, negative times floor");
	is_str(ev(b, "window(t, '10 minutes', '10 minutes', '3 minutes')"),
	       "{1970-01-01 00:03:00, 1970-01-01 00:13:00}|"
	       "{1969-12-31 23:53:00, 1970-01-01 00:03:00}|"
	       "{1969-12-31 23:43:00, 1969-12-31 23:53:00}|null",
	       "tumbling window with startTime");
	is_str(ev(b, "window(t, INTERVAL 10 MINUTES).start"),
	       "1970-01-01 00:10:00|1969-12-31 23:50:00|1969-12-31 23:50:00|null",
	       "window start field, INTERVAL duration");
	is_str(ev(b, "window(t, '10 minutes', '5 minutes')"),
	       "error: sliding window() must be expanded by the planner",
	       "sliding window is not a row-to-row eval");
	is_str(ev(b, "window(t, '10 minuts')"),
	       "error: window: bad window duration: invalid interval '10 minuts': unknown unit 'minuts'",
	       "bad duration");
	is_str(ev(b, "window(t, '-10 minutes')"),
	       "error: the window duration (-10 minutes) must be greater than 0",
	       "negative duration");
	is_str(ev(b, "window(t, '5 minutes', '10 minutes')"),
	       "error: the slide duration (10 minutes) must be less than or equal to the windowDuration (5 minutes)",
	       "slide larger than window");
	is_str(ev(b, "window(t, '10 minutes', '5 minutes', '5 minutes')"),
	       "error: the absolute value of start time must be less than the slideDuration (5 minutes)",
	       "start time too large");
	is_str(ev(b, "window(t, 10)"),
	       "error: window: the window duration must be a literal string such as '10 minutes'",
	       "duration must be a literal");
	e = sl_sqlexpr_parse("window(t, '10 minutes', '5 minutes', '1 minute')", NULL);
	r = sl_expr_resolve(e, b->schema, &err);
	ok(r && sl_window_params(r, &size, &slide, &start, &err) == 0 &&
		   size == 10 * SL_US_PER_MIN && slide == 5 * SL_US_PER_MIN &&
		   start == SL_US_PER_MIN,
	   "sl_window_params of a sliding window");
	ok(r && r->rtype->kind == SL_STRUCT && r->rtype->nfields == 2 &&
		   strcmp(r->rtype->fields[0].name, "start") == 0,
	   "window type is struct<start, end>");
	sl_expr_free(r);
	sl_expr_free(e);
	sl_batch_free(b);
}

static void test_json(void)
{
	const char *cells[] = {
		"{\"a\": {\"b\": [10, 20]}, \"s\": \"x\\ty\", \"n\": null}", "1",
		"not json", "2",
		NULL, NULL,
	};
	sl_batch *b = mk("j STRING, k INT", 3, cells);
	is_str(ev(b, "get_json_object(j, '$.a.b[1]')"), "20|null|null",
	       "get_json_object array element");
	is_str(ev(b, "get_json_object(j, '$.a')"), "{\"b\":[10,20]}|null|null",
	       "get_json_object object is compact JSON");
	is_str(ev(b, "get_json_object(j, '$.s')"), "x\ty|null|null",
	       "get_json_object string unescaped");
	is_str(ev(b, "get_json_object(j, \"$['a']['b'][0]\")"), "10|null|null",
	       "bracket path");
	is_str(ev(b, "get_json_object(j, '$.n')"), "null|null|null", "json null is NULL");
	is_str(ev(b, "get_json_object(j, '$.missing')"), "null|null|null", "missing path");
	is_str(ev(b, "get_json_object(j, 'a')"), "null|null|null", "invalid path");
	{
		sl_type *t = sl_type_parse_ddl("s STRUCT<k: INT, w: STRING>", NULL);
		sl_col *c = sl_col_new(t->fields[0].type, 2), *cols[1];
		sl_batch *sb;
		sl_col_i32(c->child[0])[0] = 1;
		sl_col_set_str(c->child[1], 0, "a\"b", 3);
		sl_col_set_null(c, 1);
		cols[0] = c;
		sb = sl_batch_new(t, 2, cols);
		is_str(ev(sb, "to_json(s)"), "{\"k\":1,\"w\":\"a\\\"b\"}|null", "to_json");
		sl_batch_free(sb);
		sl_type_free(t);
	}
	is_str(ev(b, "to_json(k)"),
	       "error: cannot resolve 'to_json(k)' due to data type mismatch: input to function to_json should be a struct or array type",
	       "to_json of an int");
	is_str(ev(b, "from_json(j, 'a STRUCT<b: ARRAY<INT>>, s STRING').a.b"),
	       "[10, 20]|null|null", "from_json");
	is_str(ev(b, "from_json(j, k)"),
	       "error: from_json: the schema must be a literal DDL string such as 'a INT, b STRING'",
	       "from_json schema must be literal");
	sl_batch_free(b);
}

static void test_errors(void)
{
	const char *cells[] = { "1" };
	sl_batch *b = mk("a INT", 1, cells);
	is_str(ev(b, "uper(a)"), "error: undefined function 'uper' | did you mean 'upper'?",
	       "unknown function hint");
	is_str(ev(b, "substring(a)"),
	       "error: invalid number of arguments for function 'substring': expected 2 to 3; found 1",
	       "substring arg count");
	is_str(ev(b, "concat_ws()"),
	       "error: invalid number of arguments for function 'concat_ws': expected at least 1; found 0",
	       "variadic arg count");
	is_str(ev(b, "split(a, ',')"), "[1]", "split casts an int to string");
	is_str(ev(b, "explode(a)"),
	       "error: cannot resolve 'explode(a)' due to data type mismatch: input to function explode should be array type",
	       "explode needs an array");
	is_str(ev(b, "explode(split('a b', ' '))"),
	       "error: generator function 'explode' is not allowed here",
	       "explode resolves but eval refuses");
	is_str(ev(b, "count(*)"), "error: aggregate function 'count' is not allowed here",
	       "count(*) refused by eval");
	sl_batch_free(b);
}

int main(void)
{
	test_strings();
	test_nulls_and_math();
	test_time();
	test_window();
	test_json();
	test_errors();
	return done_testing();
}
