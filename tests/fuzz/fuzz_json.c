/* fuzz_json: JSON lines and multiLine JSON through the reader, read twice
 * (fast path and general parser, fastPath=false) and compared: the same
 * rows, values and error message, or abort; from_json's decoder and schema
 * inference.  The first byte picks the options and the schema, the rest
 * is the file. */
#include <stdlib.h>

#include "../unit/batch_eq.h"
#include "formats/fileformat.h"
#include "fuzz.h"

static sl_batch *rd(const char *text, size_t n, sl_type *schema,
		    sl_options *o, bool fast, sl_err *err)
{
	sl_options_set(o, "fastPath", fast ? "true" : "false");
	sl_err_clear(err);
	return sl_format_read_buf("json", "fuzz.json", text, n, schema, o,
				  err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modes[] = { "PERMISSIVE", "DROPMALFORMED",
					     "FAILFAST" };
	sl_type *schema;
	sl_options o;
	sl_batch *b;
	sl_json_infer *ji;
	uint8_t sel;
	const char *text;
	size_t n;
	if (size == 0)
		return 0;
	sel = data[0];
	text = (const char *)data + 1;
	n = size - 1;
	/* sel & 64: a flat schema, the lines the fast path takes (a
	 * missing struct field sends every line to the general parser);
	 * sel & 128: without the corrupt-record column */
	schema = sl_type_parse_ddl(
	    sel & 64 ? (sel & 128 ? "a INT, b STRING, t TIMESTAMP, d DOUBLE, "
				    "l BIGINT, ok BOOLEAN"
				  : "a INT, b STRING, t TIMESTAMP, d DOUBLE, "
				    "l BIGINT, ok BOOLEAN, _corrupt_record "
				    "STRING")
		     : "a INT, b STRING, t TIMESTAMP, "
		       "s STRUCT<x: DOUBLE, y: ARRAY<BIGINT>>, ok BOOLEAN, "
		       "_corrupt_record STRING",
	    NULL);
	if (schema == NULL) /* the fixed schema must parse */
		abort();
	sl_options_init(&o);
	sl_options_set(&o, "mode", modes[sel % 3]);
	sl_options_set(&o, "multiLine", sel & 4 ? "true" : "false");
	if (sel & 8) /* a line cap the fast path must leave to the caller */
		sl_options_set(&o, "maxLineBytes", "40");
	{
		sl_err e1, e2;
		sl_batch *g;
		char why[512];
		b = rd(text, n, schema, &o, true, &e1);
		g = rd(text, n, schema, &o, false, &e2);
		if ((b == NULL) != (g == NULL) || strcmp(e1.msg, e2.msg) != 0 ||
		    (b != NULL && !batch_eq(b, g, why, sizeof why)))
			abort(); /* the fast path disagrees with the parser */
		sl_batch_free(b);
		sl_batch_free(g);
	}
	if (sel & 16) {
		sl_str s = { text, (uint32_t)n };
		sl_col *c = sl_json_decode(&s, NULL, 1, schema, NULL);
		sl_col_free(c);
	}
	if (sel & 32) {
		ji = sl_json_infer_new(&o, NULL);
		if (ji != NULL && sl_json_infer_add(ji, "fuzz.json", text, n,
						    NULL) == 0)
			sl_type_free(sl_json_infer_finish(ji, NULL));
		else
			sl_json_infer_free(ji);
	}
	sl_options_release(&o);
	sl_type_free(schema);
	return 0;
}
