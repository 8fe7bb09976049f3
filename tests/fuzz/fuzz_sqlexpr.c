/* fuzz_sqlexpr: a SQL expression (selectExpr/expr text) parsed, resolved
 * against a small schema and evaluated over a two-row batch, as
 * df:selectExpr does. */
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "expr/expr.h"
#include "fuzz.h"
#include "expr/sqlexpr.h"

static sl_batch *two_rows(sl_type *t)
{
	sl_col *cols[4];
	for (int i = 0; i < 4; i++)
		cols[i] = sl_col_new(t->fields[i].type, 2);
	sl_col_i32(cols[0])[0] = 7;
	sl_col_set_null(cols[0], 1);
	sl_col_set_str(cols[1], 0, "apple", 5);
	sl_col_set_str(cols[1], 1, "", 0);
	sl_col_f64(cols[2])[0] = 2.5;
	sl_col_f64(cols[2])[1] = -0.0;
	sl_col_i64(cols[3])[0] = 1767268800000000LL;
	sl_col_i64(cols[3])[1] = -1;
	return sl_batch_new(t, 2, cols);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	sl_type *t;
	sl_expr *e, *r = NULL;
	sl_batch *b;
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	e = sl_sqlexpr_parse(text, NULL);
	free(text);
	if (e == NULL)
		return 0;
	t = sl_type_parse_ddl("i INT, s STRING, d DOUBLE, ts TIMESTAMP", NULL);
	if (t == NULL) /* the fixed t must parse */
		abort();
	r = sl_expr_resolve(e, t, NULL);
	if (r != NULL && !sl_expr_has_agg(r)) {
		b = two_rows(t);
		sl_col_free(sl_expr_eval(r, b, NULL));
		sl_batch_free(b);
	}
	sl_expr_free(r);
	sl_expr_free(e);
	sl_type_free(t);
	return 0;
}
