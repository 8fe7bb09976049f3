/* fuzz_csv: CSV through the reader (fast path and general tokenizer) and
 * header/schema inference.  The first byte picks the options. */
#include <stdlib.h>

#include "formats/fileformat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modes[] = { "PERMISSIVE", "DROPMALFORMED",
					     "FAILFAST" };
	sl_type *schema;
	sl_options o;
	sl_csv_infer *ci;
	uint8_t sel;
	const char *text;
	size_t n;
	if (size == 0)
		return 0;
	sel = data[0];
	text = (const char *)data + 1;
	n = size - 1;
	schema = sl_type_parse_ddl("id INT, name STRING, t TIMESTAMP, "
				   "x DOUBLE, b BOOLEAN, big BIGINT, "
				   "_corrupt_record STRING",
				   NULL);
	if (schema == NULL) /* the fixed schema must parse */
		abort();
	sl_options_init(&o);
	sl_options_set(&o, "mode", modes[sel % 3]);
	sl_options_set(&o, "header", sel & 4 ? "true" : "false");
	sl_options_set(&o, "fastPath", sel & 8 ? "false" : "true");
	if (sel & 16)
		sl_options_set(&o, "sep", ";");
	if (sel & 32)
		sl_options_set(&o, "comment", "#");
	if (sel & 64)
		sl_options_set(&o, "inferSchema", "true");
	sl_batch_free(
	    sl_format_read_buf("csv", "fuzz.csv", text, n, schema, &o, NULL));
	if (sel & 128) {
		ci = sl_csv_infer_new(&o, NULL);
		if (ci != NULL &&
		    sl_csv_infer_add(ci, "fuzz.csv", text, n, NULL) == 0)
			sl_type_free(sl_csv_infer_finish(ci, NULL));
		else
			sl_csv_infer_free(ci);
	}
	sl_options_release(&o);
	sl_type_free(schema);
	return 0;
}
