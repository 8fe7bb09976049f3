/* fuzz_csv: CSV through the reader, read twice (fast path and general
 * tokenizer, fastPath=false) and compared: the same rows, values and
 * error message, or abort; and header/schema inference.  The first byte
 * picks the options. */
#include <stdlib.h>

#include "../unit/batch_eq.h"
#include "formats/fileformat.h"
#include "fuzz.h"

static sl_batch *rd(const char *text, size_t n, sl_type *schema,
		    sl_options *o, bool fast, sl_err *err)
{
	sl_options_set(o, "fastPath", fast ? "true" : "false");
	sl_err_clear(err);
	return sl_format_read_buf("csv", "fuzz.csv", text, n, schema, o, err);
}

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
	if (sel & 8) /* a line cap the fast path must leave to the caller */
		sl_options_set(&o, "maxLineBytes", "24");
	if (sel & 16)
		sl_options_set(&o, "sep", ";");
	if (sel & 32)
		sl_options_set(&o, "comment", "#");
	if (sel & 64)
		sl_options_set(&o, "inferSchema", "true");
	{
		sl_err e1, e2;
		sl_batch *a, *g;
		char why[512];
		a = rd(text, n, schema, &o, true, &e1);
		g = rd(text, n, schema, &o, false, &e2);
		if ((a == NULL) != (g == NULL) || strcmp(e1.msg, e2.msg) != 0 ||
		    (a != NULL && !batch_eq(a, g, why, sizeof why)))
			abort(); /* the fast path disagrees with the tokenizer */
		sl_batch_free(a);
		sl_batch_free(g);
	}
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
