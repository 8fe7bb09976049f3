/*
 * t401-json: the JSON-lines reader (typed parsing, Spark's modes and
 * messages), from_json's decoder, JSON schema inference and the writer.
 */
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/col.h"
#include "core/type.h"
#include "formats/fileformat.h"
#include "tap.h"

static char out[8192];

/* Rows as "a,b;a,b;" with show() rendering. */
static const char *dump(const sl_batch *b)
{
	sl_buf s;
	int64_t i;
	int k;
	if (b == NULL)
		return "(null batch)";
	sl_buf_init(&s);
	for (i = 0; i < b->nrows; i++) {
		for (k = 0; k < b->ncols; k++) {
			if (k)
				sl_buf_addc(&s, ',');
			sl_value_show(b->cols[k], i, &s);
		}
		sl_buf_addc(&s, ';');
	}
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&s));
	sl_buf_release(&s);
	return out;
}

static sl_batch *rd(const char *text, const char *ddl, const char *mode,
		    sl_err *err)
{
	sl_options o;
	sl_type *t = sl_type_parse_ddl(ddl, err);
	sl_batch *b;
	if (t == NULL)
		return NULL;
	sl_options_init(&o);
	if (mode)
		sl_options_set(&o, "mode", mode);
	b = sl_format_read_buf("json", "data/a.json", text, strlen(text), t, &o,
			       err);
	sl_options_release(&o);
	sl_type_free(t);
	return b;
}

/* Read and dump in one go; frees the batch. */
static const char *rdd(const char *text, const char *ddl, const char *mode)
{
	sl_err err;
	sl_batch *b;
	sl_err_clear(&err);
	b = rd(text, ddl, mode, &err);
	if (b == NULL) {
		snprintf(out, sizeof out, "ERR %s", err.msg);
		return out;
	}
	dump(b);
	sl_batch_free(b);
	return out;
}

static const char *failfast(const char *text, const char *ddl)
{
	return rdd(text, ddl, "FAILFAST");
}

static void test_basic(void)
{
	is_str(rdd("{\"ts\":\"2026-01-01 12:00:03\",\"product_id\":\"p17\",\"amount\":12}\n",
		   "ts TIMESTAMP, product_id STRING, amount INT", NULL),
	       "2026-01-01 12:00:03,p17,12;", "basic line");
	is_str(rdd("{\"a\":1}\n\n   \n{\"a\":2}", "a BIGINT", NULL), "1;2;",
	       "blank lines skipped, last line without newline");
	is_str(rdd("{\"a\":1}\r\n{\"a\":2}\r\n", "a BIGINT", NULL), "1;2;",
	       "crlf");
	is_str(rdd("{\"b\":true}\n{}\n{\"a\":3}", "a INT, b BOOLEAN", NULL),
	       "null,true;null,null;3,null;", "missing fields are null");
	is_str(rdd(" { \"a\" : 1 , \"b\" :\t\"x\" } ", "a INT, b STRING", NULL),
	       "1,x;", "whitespace everywhere");
	is_str(rdd("{\"a\":1,\"a\":2}\n{\"a\":null,\"a\":5}\n{\"a\":5,\"a\":null}",
		   "a INT", NULL), "2;5;null;", "duplicate keys: last wins");
	is_str(rdd("{\"A\":1,\"a\":2}", "a INT", NULL), "2;",
	       "names are case-sensitive");
	is_str(rdd("{'a':'x'}", "a STRING", NULL), "x;", "single quotes");
	is_str(rdd("{\"a\":1} trailing", "a INT", NULL), "1;",
	       "text after the record ignored (as Jackson)");
}

static void test_numbers(void)
{
	is_str(rdd("{\"i\":-42,\"l\":9223372036854775807,\"d\":1.5e3}\n"
		   "{\"i\":2147483647,\"l\":-9223372036854775808,\"d\":-0.25}\n"
		   "{\"i\":0,\"l\":0,\"d\":12}\n"
		   "{\"d\":1E-2}\n{\"d\":123456789012345678901234567890}\n"
		   "{\"d\":0.1}\n{\"d\":3.141592653589793238}",
		   "i INT, l BIGINT, d DOUBLE", NULL),
	       "-42,9223372036854775807,1500.0;"
	       "2147483647,-9223372036854775808,-0.25;0,0,12.0;"
	       "null,null,0.01;null,null,1.2345678901234568E29;"
	       "null,null,0.1;null,null,3.141592653589793;",
	       "ints, longs, doubles");
	is_str(rdd("{\"d\":NaN}\n{\"d\":-Infinity}\n{\"d\":\"Infinity\"}",
		   "d DOUBLE", NULL), "NaN;-Infinity;Infinity;",
	       "NaN and Infinity");
	is_str(failfast("{\"i\":2147483648}", "i INT"),
	       "ERR json: malformed record at data/a.json:1: field 'i': "
	       "number '2147483648' out of range", "INT out of range");
	is_str(failfast("{\"i\":1.5}", "i BIGINT"),
	       "ERR json: malformed record at data/a.json:1: field 'i': "
	       "expected integral number, got '1.5'", "fraction into BIGINT");
	is_str(failfast("{\"i\":012}", "i INT"),
	       "ERR json: malformed record at data/a.json:1: leading zero in "
	       "number at byte 7", "leading zero");
	is_str(failfast("{\"i\":-}", "i INT"),
	       "ERR json: malformed record at data/a.json:1: expected digit at "
	       "byte 7", "lone minus");
	is_str(failfast("{\"i\":1.}", "i DOUBLE"),
	       "ERR json: malformed record at data/a.json:1: expected digit at "
	       "byte 8", "dot without digits");
}

static void test_strings(void)
{
	is_str(rdd("{\"s\":\"a\\\"b\\\\c\\/d\\n\\t\\b\\f\\r\"}", "s STRING", NULL),
	       "a\"b\\c/d\n\t\b\f\r;", "simple escapes");
	is_str(rdd("{\"s\":\"\\u00e9\\u20AC\\ud83d\\ude00x\"}", "s STRING", NULL),
	       "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80x;",
	       "\\u escapes and a surrogate pair");
	is_str(rdd("{\"s\":\"\\ud83dx\"}", "s STRING", NULL), "?x;",
	       "lone surrogate becomes ?");
	is_str(rdd("{\"s\":\"caf\xc3\xa9\"}", "s STRING", NULL), "caf\xc3\xa9;",
	       "raw utf-8 kept");
	is_str(rdd("{\"s\\u0041\":1}", "sA INT", NULL), "1;",
	       "escape in a field name");
	is_str(failfast("{\"s\":\"a\\x\"}", "s STRING"),
	       "ERR json: malformed record at data/a.json:1: invalid escape at "
	       "byte 8", "bad escape");
	is_str(failfast("{\"s\":\"a\tb\"}", "s STRING"),
	       "ERR json: malformed record at data/a.json:1: control character "
	       "in string at byte 8", "raw tab in string");
	is_str(failfast("{\"s\":\"abc", "s STRING"),
	       "ERR json: malformed record at data/a.json:1: unexpected end of "
	       "input", "unterminated string");
	is_str(rdd("{\"s\":12}\n{\"s\":true}\n{\"s\":1.50}\n{\"s\":{\"x\": [1, \"a b\"]}}\n"
		   "{\"s\":[ ]}", "s STRING", NULL),
	       "12;true;1.5;{\"x\":[1,\"a b\"]};[];",
	       "non-strings into STRING keep their (compact) JSON text");
}

static void test_nested(void)
{
	const char *ddl = "id INT, p STRUCT<x: INT, tags: ARRAY<STRING>, "
			  "q: STRUCT<z: DOUBLE>>, m ARRAY<ARRAY<INT>>";
	is_str(rdd("{\"id\":1,\"p\":{\"x\":2,\"tags\":[\"a\",\"b\"],\"q\":{\"z\":0.5}},"
		   "\"m\":[[1,2],[],[3]]}\n"
		   "{\"id\":2,\"p\":{\"tags\":[]},\"m\":[[4,null]]}\n"
		   "{\"id\":3,\"p\":null,\"m\":null}\n"
		   "{\"id\":4,\"p\":{\"q\":{},\"x\":7},\"m\":[null,[5]]}",
		   ddl, NULL),
	       "1,{2, [a, b], {0.5}},[[1, 2], [], [3]];"
	       "2,{null, [], null},[[4, null]];"
	       "3,null,null;"
	       "4,{7, null, {null}},[null, [5]];",
	       "structs and arrays, nested");
	is_str(rdd("{\"u\":{\"deep\":[{\"x\":[1,{\"y\":\"}\"}]}]},\"id\":9,\"v\":[[[]]]}",
		   "id INT", NULL), "9;", "unknown nested fields skipped");
	is_str(rdd("{\"a\":[1,2]}\n{\"a\":[3,4,5],\"a\":[6]}\n{\"a\":[7]}",
		   "a ARRAY<INT>", NULL), "[1, 2];[6];[7];",
	       "duplicate array key: last wins");
	is_str(rdd("{\"a\":[{\"b\":1},{\"b\":2,\"c\":[\"x\"]}]}",
		   "a ARRAY<STRUCT<b: INT, c: ARRAY<STRING>>>", NULL),
	       "[{1, null}, {2, [x]}];", "array of structs");
	{
		/* many elements: element columns grow */
		sl_buf s;
		int k;
		sl_err err;
		sl_batch *b;
		sl_buf_init(&s);
		for (k = 0; k < 300; k++) {
			int e;
			sl_buf_adds(&s, "{\"a\":[");
			for (e = 0; e < k % 40; e++)
				sl_buf_printf(&s, "%s[%d,%d]", e ? "," : "", k, e);
			sl_buf_adds(&s, "]}\n");
		}
		b = rd(sl_buf_cstr(&s), "a ARRAY<ARRAY<INT>>", NULL, &err);
		ok(b != NULL && b->nrows == 300, "300 rows of nested arrays");
		if (b) {
			const sl_col *c = b->cols[0], *el = c->child[0];
			int good = 1;
			for (k = 0; k < 300; k++) {
				int e, n = c->offsets[k + 1] - c->offsets[k];
				if (n != k % 40)
					good = 0;
				for (e = 0; e < n && good; e++) {
					int32_t r = c->offsets[k] + e;
					const int32_t *v = sl_col_i32(el->child[0]);
					if (v[el->offsets[r]] != k ||
					    v[el->offsets[r] + 1] != e)
						good = 0;
				}
			}
			ok(good, "nested array contents");
			sl_batch_free(b);
		}
		sl_buf_release(&s);
	}
}

static void test_types(void)
{
	is_str(rdd("{\"t\":\"2026-01-01T12:00:00Z\"}\n{\"t\":\"2026-01-01T12:00:00.250+01:00\"}\n"
		   "{\"t\":1767268800}\n{\"t\":\"2026-01-01\"}",
		   "t TIMESTAMP", NULL),
	       "2026-01-01 12:00:00;2026-01-01 11:00:00.25;2026-01-01 12:00:00;"
	       "2026-01-01 00:00:00;", "timestamps: strings, zones, seconds");
	is_str(rdd("{\"b\":\"aGVsbG8=\"}", "b BINARY", NULL), "[68 65 6C 6C 6F];",
	       "binary from base64");
	is_str(failfast("{\"t\":\"soon\"}", "t TIMESTAMP"),
	       "ERR json: malformed record at data/a.json:1: field 't': cannot "
	       "parse 'soon' as TIMESTAMP", "bad timestamp");
	is_str(failfast("{\"ok\":1}\n{\"amount\":\"abc\"}", "amount INT"),
	       "ERR json: malformed record at data/a.json:2: field 'amount': "
	       "expected INT, got string", "string into INT, line 2");
	is_str(failfast("{\"amount\":{\"x\":1}}", "amount INT"),
	       "ERR json: malformed record at data/a.json:1: field 'amount': "
	       "expected INT, got object", "object into INT");
	is_str(failfast("{\"b\":1}", "b BOOLEAN"),
	       "ERR json: malformed record at data/a.json:1: field 'b': "
	       "expected BOOLEAN, got number", "number into BOOLEAN");
	is_str(failfast("{\"s\":[1]}", "s STRUCT<a: INT>"),
	       "ERR json: malformed record at data/a.json:1: field 's': "
	       "expected STRUCT, got array", "array into STRUCT");
	is_str(failfast("{\"s\":{\"a\":\"x\"}}", "s STRUCT<a: INT>"),
	       "ERR json: malformed record at data/a.json:1: field 'a': "
	       "expected INT, got string", "nested field type");
}

static void test_syntax(void)
{
	is_str(failfast("{\"ts\" 12}", "ts INT"),
	       "ERR json: malformed record at data/a.json:1: expected ':' at byte 7",
	       "missing colon");
	is_str(failfast("{\"a\":1,}", "a INT"),
	       "ERR json: malformed record at data/a.json:1: expected field "
	       "name at byte 8", "trailing comma");
	is_str(failfast("{\"a\":1", "a INT"),
	       "ERR json: malformed record at data/a.json:1: unexpected end of "
	       "input", "unclosed brace");
	is_str(failfast("{\"a\":1 \"b\":2}", "a INT"),
	       "ERR json: malformed record at data/a.json:1: expected ',' or '}' "
	       "at byte 8", "missing comma");
	is_str(failfast("{\"a\":tru}", "a BOOLEAN"),
	       "ERR json: malformed record at data/a.json:1: unexpected "
	       "character '}' at byte 9", "bad literal");
	is_str(failfast("hello", "a INT"),
	       "ERR json: malformed record at data/a.json:1: expected '{' at byte 1",
	       "bare word");
	is_str(failfast("[1,2]", "a INT"),
	       "ERR json: malformed record at data/a.json:1: expected '{' at byte 1",
	       "top-level array");
	is_str(failfast("{\"x\":[1,2}", "a INT"),
	       "ERR json: malformed record at data/a.json:1: expected ',' or ']' "
	       "at byte 10", "bad array in a skipped field");
	is_str(failfast("{\"a\":1}\n{\"a\":2}\n\n{\"a\" 3}", "a INT"),
	       "ERR json: malformed record at data/a.json:4: expected ':' at byte 6",
	       "line numbers count blank lines");
}

static void test_modes(void)
{
	const char *data = "{\"a\":1,\"b\":\"x\"}\n{\"a\":\"bad\",\"b\":\"y\"}\n"
			   "{\"a\":3,\"b\" \"z\"}\n{\"a\":4,\"b\":\"w\"}\n";
	is_str(rdd(data, "a INT, b STRING", NULL),
	       "1,x;null,y;null,null;4,w;",
	       "PERMISSIVE: type error nulls its field, syntax error the row");
	is_str(rdd(data, "a INT, b STRING, _corrupt_record STRING", "permissive"),
	       "1,x,null;null,y,{\"a\":\"bad\",\"b\":\"y\"};"
	       "null,null,{\"a\":3,\"b\" \"z\"};4,w,null;",
	       "PERMISSIVE fills _corrupt_record with the line");
	is_str(rdd(data, "a INT, b STRING", "DROPMALFORMED"), "1,x;4,w;",
	       "DROPMALFORMED drops");
	is_str(rdd("{\"a\":[1,2]}\n{\"a\":[3,\"x\"]}\n{\"a\":[4]}", "a ARRAY<INT>",
		   "dropmalformed"),
	       "[1, 2];[4];", "DROPMALFORMED with arrays reuses the row");
	is_str(rdd(data, "a INT, b STRING", "failFast"),
	       "ERR json: malformed record at data/a.json:2: field 'a': expected "
	       "INT, got string", "FAILFAST (case-insensitive)");
	is_str(rdd(data, "a INT", "LENIENT"),
	       "ERR option 'mode': expected 'PERMISSIVE', 'DROPMALFORMED' or "
	       "'FAILFAST', got 'LENIENT'", "unknown mode");
	{
		sl_options o;
		sl_type *t = sl_type_parse_ddl("a INT, bad STRING", NULL);
		sl_batch *b;
		sl_options_init(&o);
		sl_options_set(&o, "columnNameOfCorruptRecord", "bad");
		b = sl_format_read_buf("json", "x", "{\"a\":1}\n{\"a\"", 12, t, &o, NULL);
		is_str(dump(b), "1,null;null,{\"a\";", "columnNameOfCorruptRecord");
		sl_batch_free(b);
		sl_type_free(t);
		sl_options_release(&o);
	}
	{
		sl_err err;
		sl_type *t = sl_type_parse_ddl("a INT", NULL);
		sl_batch *b = sl_format_read_buf("json", "x", "", 0, t, NULL, &err);
		ok(b != NULL && b->nrows == 0, "empty input: zero rows");
		sl_batch_free(b);
		sl_type_free(t);
	}
}

static void test_decode(void)
{
	sl_str texts[4] = {{"{\"a\":1,\"b\":\"x\"}", 15}, {NULL, 0},
			   {"{\"a\":", 5}, {"{\"a\":\"q\",\"b\":\"y\"}", 17}};
	uint8_t nulls[1] = {0x02};
	sl_type *t = sl_type_parse_ddl("a INT, b STRING", NULL);
	sl_col *c = sl_json_decode(texts, nulls, 4, t, NULL);
	sl_buf s;
	int64_t i;
	ok(c != NULL && c->len == 4, "decode 4 texts");
	sl_buf_init(&s);
	for (i = 0; c && i < 4; i++) {
		sl_value_show(c, i, &s);
		sl_buf_addc(&s, ';');
	}
	is_str(sl_buf_cstr(&s), "{1, x};null;{null, null};{null, y};",
	       "from_json: null input -> NULL, malformed -> struct of nulls");
	sl_buf_release(&s);
	sl_col_free(c);
	sl_type_free(t);
}

/* Column strings laid out as the Kafka fetcher lays out its values: back
 * to back in one arena, each followed by sep ('\n' there; '\0' is how
 * sl_col_set_str leaves them). */
static sl_col *texts_col(const char *const *v, int n, const char *seps,
			 int nseps)
{
	sl_col *c = sl_col_new(sl_type_prim(SL_STRING), n);
	c->arena = sl_arena_new();
	for (int i = 0; i < n; i++) {
		size_t len = v[i] ? strlen(v[i]) : 0;
		char *d = sl_arena_alloc(c->arena, len + 1);
		memcpy(d, v[i] ? v[i] : "", len);
		d[len] = seps[i % nseps];
		sl_col_str(c)[i].p = d;
		sl_col_str(c)[i].len = (uint32_t)len;
		if (v[i] == NULL)
			sl_col_set_null(c, i);
	}
	return c;
}

static void show_rows(const sl_col *c, sl_buf *s)
{
	for (int64_t i = 0; i < c->len; i++) {
		sl_value_show(c, i, s);
		sl_buf_addc(s, ';');
	}
}

/* from_json over texts that lie back to back (scanned in place) gives
 * the rows of the copying decoder, whatever the texts hold: newlines of
 * their own (as whitespace, or between two records: Jackson reads the
 * first), escapes, malformed and empty texts, NULLs; and the result
 * outlives the column it was parsed from (its strings point into it). */
static void test_decode_inplace(void)
{
	enum { N = 400 };
	static char bufs[N][96];
	const char *v[N];
	const char *odd[] = {
		"{\"amount\":1}\n{\"amount\":2}",
		"{\"amount\":\n5}",
		"{\"amount\":",
		"",
		NULL,
		"{\"amount\":\"x\"}",
		"[1]",
		"{\"product_id\":\"a\\u0062\"}  ",
		"\n",
		"{\"amount\":7}\n",
		"{\"ts\":\"2026-01-01 12:00:00\",\"product_id\":\"p\\n\",\"amount\":3}",
		"{\"amount\":1}{\"amount\":2}"
	};
	const int nodd = (int)(sizeof odd / sizeof odd[0]);
	sl_type *t = sl_type_parse_ddl(
	    "ts TIMESTAMP, product_id STRING, amount INT", NULL);
	const char *seps[] = { "\n", "\n\n\n\0", "\0" };
	const int nseps[] = { 1, 4, 1 };
	sl_buf a, b;
	for (int i = 0; i < N; i++) {
		if (i % 37 == 5 || (i > 300 && i % 3 == 0)) {
			v[i] = odd[(i / 3) % nodd];
			continue;
		}
		snprintf(bufs[i], sizeof bufs[i],
			 "{\"ts\":\"2026-01-01 12:%02d:%02d\",\"product_id\":"
			 "\"p%d\",\"amount\":%d}",
			 i / 60 % 60, i % 60, i % 17, i % 100);
		v[i] = bufs[i];
	}
	sl_buf_init(&a);
	sl_buf_init(&b);
	for (int k = 0; k < 3; k++) {
		sl_col *c = texts_col(v, N, seps[k], nseps[k]);
		sl_col *want =
		    sl_json_decode(sl_col_str(c), c->nulls, N, t, NULL);
		sl_col *got = sl_json_decode_col(c, t, NULL);
		sl_col_free(c); /* got's strings must outlive it */
		sl_buf_clear(&a);
		sl_buf_clear(&b);
		show_rows(want, &a);
		show_rows(got, &b);
		is_str(sl_buf_cstr(&b), sl_buf_cstr(&a),
		       "from_json in place = copying decoder (layout %d)", k);
		sl_col_free(want);
		sl_col_free(got);
	}
	{
		const char *w[] = { "{\"amount\":1}\n{\"amount\":2}",
				    "{\"amount\":3}", "{\"amount\":\n4}",
				    "{\"amount\":5}", "{\"amount\":6}" };
		sl_col *c = texts_col(w, 5, "\n", 1);
		sl_col *got = sl_json_decode_col(c, t, NULL);
		sl_col_free(c);
		sl_buf_clear(&b);
		show_rows(got, &b);
		is_str(sl_buf_cstr(&b),
		       "{null, null, 1};{null, null, 3};{null, null, 4};"
		       "{null, null, 5};{null, null, 6};",
		       "a text with a newline of its own is one record");
		sl_col_free(got);
	}
	sl_buf_release(&a);
	sl_buf_release(&b);
	sl_type_free(t);
}

static const char *infer(const char *text, const char *mode)
{
	sl_options o;
	sl_err err;
	sl_json_infer *ji;
	sl_type *t;
	sl_buf s;
	sl_options_init(&o);
	if (mode)
		sl_options_set(&o, "mode", mode);
	ji = sl_json_infer_new(&o, &err);
	if (sl_json_infer_add(ji, "f.json", text, strlen(text), &err) != 0) {
		sl_json_infer_free(ji);
		sl_options_release(&o);
		snprintf(out, sizeof out, "ERR %s", err.msg);
		return out;
	}
	t = sl_json_infer_finish(ji, &err);
	sl_buf_init(&s);
	sl_type_ddl(t, &s);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&s));
	sl_buf_release(&s);
	sl_type_free(t);
	sl_options_release(&o);
	return out;
}

static void test_infer(void)
{
	is_str(infer("{\"z\":1,\"a\":\"x\"}\n{\"m\":true,\"a\":\"y\"}", NULL),
	       "a STRING, m BOOLEAN, z BIGINT", "union of fields, sorted by name");
	is_str(infer("{\"n\":1}\n{\"n\":2.5}\n{\"s\":1}\n{\"s\":\"x\"}\n{\"u\":null}", NULL),
	       "n DOUBLE, s STRING, u STRING", "long+double, mixed, all-null");
	is_str(infer("{\"p\":{\"y\":1,\"x\":[1,2]}}\n{\"p\":{\"w\":[]},\"e\":{}}", NULL),
	       "p STRUCT<w: ARRAY<STRING>, x: ARRAY<BIGINT>, y: BIGINT>",
	       "nested structs, arrays; empty struct dropped");
	is_str(infer("{\"a\":1}\n{bad\n{\"b\":2}", NULL),
	       "_corrupt_record STRING, a BIGINT, b BIGINT",
	       "PERMISSIVE adds _corrupt_record");
	is_str(infer("{\"a\":1}\n{bad", "DROPMALFORMED"), "a BIGINT",
	       "DROPMALFORMED ignores bad lines");
	is_str(infer("{\"a\":1}\n{bad", "FAILFAST"),
	       "ERR json: malformed record at f.json:2: expected field name at byte 2",
	       "FAILFAST fails");
	is_str(infer("{\"a\":99999999999999999999}", NULL), "a DOUBLE",
	       "integer beyond BIGINT infers DOUBLE");
}

static void test_write(void)
{
	sl_type *t = sl_type_parse_ddl("a INT, s STRING, t TIMESTAMP, d DOUBLE, "
				       "p STRUCT<x: INT>, l ARRAY<STRING>", NULL);
	const char *src = "{\"a\":1,\"s\":\"q\\\"\\n\",\"t\":\"2026-01-01 12:00:00\","
			  "\"d\":0.5,\"p\":{\"x\":2},\"l\":[\"u\",null]}\n{\"a\":2}\n";
	sl_batch *b = sl_format_read_buf("json", "x", src, strlen(src), t, NULL, NULL);
	sl_batch *b2;
	sl_buf s;
	sl_buf_init(&s);
	is_int(sl_json_write(b, &s, NULL), 0, "write json");
	is_str(sl_buf_cstr(&s),
	       "{\"a\":1,\"s\":\"q\\\"\\n\",\"t\":\"2026-01-01T12:00:00.000Z\","
	       "\"d\":0.5,\"p\":{\"x\":2},\"l\":[\"u\",null]}\n{\"a\":2}\n",
	       "json lines, null fields omitted, ISO timestamps");
	b2 = sl_format_read_buf("json", "y", s.p, s.len, t, NULL, NULL);
	{
		char first[8192];
		snprintf(first, sizeof first, "%s", dump(b));
		is_str(dump(b2), first, "round trip");
	}
	sl_batch_free(b);
	sl_batch_free(b2);
	sl_buf_release(&s);
	sl_type_free(t);
}

int main(void)
{
	test_basic();
	test_numbers();
	test_strings();
	test_nested();
	test_types();
	test_syntax();
	test_modes();
	test_decode();
	test_decode_inplace();
	test_infer();
	test_write();
	return done_testing();
}
