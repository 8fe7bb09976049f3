/*
 * jsonwrite: the JSON-lines writer (json file sink, DataFrameWriter.json):
 * one object per row, fields in schema order, values rendered by
 * sl_value_json; as Spark's writer, null fields are omitted.
 */
#include "formats/json_int.h"

#include <string.h>

int sl_json_write(const sl_batch *b, sl_buf *out, sl_err *err)
{
	int64_t i;
	int k;
	for (i = 0; i < b->nrows; i++) {
		bool first = true;
		sl_buf_addc(out, '{');
		for (k = 0; k < b->ncols; k++) {
			const char *name = b->schema->fields[k].name;
			if (sl_col_isnull(b->cols[k], i))
				continue;
			if (!first)
				sl_buf_addc(out, ',');
			first = false;
			sl_buf_json_str(out, name, strlen(name));
			sl_buf_addc(out, ':');
			sl_value_json(b->cols[k], i, out);
		}
		sl_buf_adds(out, "}\n");
	}
	return sl_buf_failed(out) ? sl_err_nomem(err) : 0;
}
