/* fuzz_json: JSON lines and multiLine JSON through the reader (fast path
 * and general parser), from_json's decoder and schema inference.  The
 * first byte picks the options, the rest is the file. */
#include <stdlib.h>

#include "formats/fileformat.h"
#include "fuzz.h"

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
	schema = sl_type_parse_ddl(
	    "a INT, b STRING, t TIMESTAMP, "
	    "s STRUCT<x: DOUBLE, y: ARRAY<BIGINT>>, ok BOOLEAN, "
	    "_corrupt_record STRING",
	    NULL);
	if (schema == NULL) /* the fixed schema must parse */
		abort();
	sl_options_init(&o);
	sl_options_set(&o, "mode", modes[sel % 3]);
	sl_options_set(&o, "multiLine", sel & 4 ? "true" : "false");
	sl_options_set(&o, "fastPath", sel & 8 ? "false" : "true");
	b = sl_format_read_buf("json", "fuzz.json", text, n, schema, &o, NULL);
	sl_batch_free(b);
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
