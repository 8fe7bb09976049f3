/* fuzz_sql: a SQL statement (spark.sql text) planned over a fresh catalog
 * of two one-row tables and, when it plans, run, as spark.sql(text):
 * collect() does.  One-row tables keep any chain of joins one row. */
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "fuzz.h"
#include "plan/catalog.h"
#include "plan/plan.h"
#include "sql/sql.h"

static void put(sl_catalog *c, const char *name, const char *ddl)
{
	sl_type *t = sl_type_parse_ddl(ddl, NULL);
	sl_col *cols[2];
	sl_batch *b;
	if (t == NULL) /* the fixed DDL must parse */
		abort();
	cols[0] = sl_col_new(t->fields[0].type, 1);
	cols[1] = sl_col_new(t->fields[1].type, 1);
	sl_col_i32(cols[0])[0] = 7;
	if (t->fields[1].type->kind == SL_STRING)
		sl_col_set_str(cols[1], 0, "apple", 5);
	else
		sl_col_set_null(cols[1], 0);
	b = sl_batch_new(t, 1, cols);
	if (b == NULL || sl_catalog_put(c, name, b, NULL) < 0)
		abort();
	sl_batch_free(b);
	sl_type_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	sl_catalog *c;
	sl_plan *p;
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	c = sl_catalog_new();
	if (c == NULL)
		abort();
	put(c, "t", "i INT, s STRING");
	put(c, "u", "i INT, d DOUBLE");
	p = sl_sql_plan(text, c, NULL);
	if (p != NULL && !sl_plan_is_streaming(p))
		sl_batch_free(sl_plan_collect(p, NULL));
	sl_plan_free(p);
	sl_catalog_free(c);
	free(text);
	return 0;
}
