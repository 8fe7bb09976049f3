/* fuzz_ddl: schema strings (DataFrameReader.schema, createDataFrame) and
 * single type names (CAST targets), printed back as DDL. */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "fuzz.h"
#include "core/type.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	sl_type *t;
	sl_buf b;
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sl_buf_init(&b);
	if ((t = sl_type_parse_ddl(text, NULL)) != NULL) {
		sl_type_ddl(t, &b);
		sl_type_free(t);
	}
	if ((t = sl_type_parse(text, NULL)) != NULL)
		sl_type_free(t);
	sl_buf_release(&b);
	free(text);
	return 0;
}
