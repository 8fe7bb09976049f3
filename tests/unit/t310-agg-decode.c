/* t310-agg-decode: agg.c's reading of a stored buffer (sl_agg_decode, the
 * state reader's and the rewound screen's way back from the bytes): for
 * every aggregate with a streaming buffer, the buffer a group saved
 * decodes, in a decoder of its own, to the result the query emitted for
 * the group (avg's sum / count, approx_count_distinct's estimate, first
 * and last, min_by/max_by's value) and to Spark's buffer fields (avg's
 * sum and count, first's valueSet); an empty group to the empty-input
 * result; one decoder serves many groups in turn (nothing of the one
 * before stays); truncated bytes are an error, never a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "exec/agg.h"
#include "tap.h"

static char *show(const sl_col *c, int64_t i)
{
	sl_buf b;
	char *s;
	sl_buf_init(&b);
	sl_value_show(c, i, &b);
	s = strdup(sl_buf_cstr(&b));
	sl_buf_release(&b);
	return s;
}

/* fn over args (2 groups: rows of group 0 and 2, group 1 empty), saved
 * and decoded back by a fresh decoder: each group's result as the
 * aggregate's own. */
static void roundtrip(const char *fn, sl_col **args, int nargs, bool rows)
{
	static const int32_t g[6] = { 0, 2, 0, 2, 0, 0 };
	sl_type *t[2] = { args[0]->type, nargs > 1 ? args[1]->type : NULL };
	sl_err err;
	sl_agg *a = sl_agg_new(fn, false, rows, t, nargs, 0, &err);
	sl_agg *d = sl_agg_new(fn, false, rows, t, nargs, 0, &err);
	sl_col *want, *got;
	int64_t grp;
	if (a == NULL || d == NULL ||
	    sl_agg_update(a, g, args[0]->len, 3, args, &err) < 0) {
		ok(0, "%s: set up (%s)", fn, err.msg);
		return;
	}
	want = sl_agg_result(a, 0, 3, &err);
	got = sl_col_new((sl_type *)sl_agg_result_type(d), 3);
	for (grp = 0; grp < 3; grp++) {
		sl_buf b;
		size_t used = 0;
		char *w, *h;
		int rc;
		sl_buf_init(&b);
		sl_agg_save(a, grp, &b, &err);
		rc = sl_agg_decode(d, b.p, b.len, &used, NULL, got, grp, &err);
		w = show(want, grp);
		h = show(got, grp);
		ok(rc == 0 && used == b.len,
		   "%s group %lld: decodes all %zu bytes", fn, (long long)grp,
		   b.len);
		is_str(h, w, "%s group %lld: the result the query emitted", fn,
		       (long long)grp);
		if (b.len > 1) { /* one byte short */
			rc = sl_agg_decode(d, b.p, b.len - 1, &used, NULL, got,
					   grp, &err);
			ok(rc < 0, "%s: a truncated buffer is an error", fn);
		}
		free(w);
		free(h);
		sl_buf_release(&b);
	}
	sl_col_free(want);
	sl_col_free(got);
	sl_agg_free(a);
	sl_agg_free(d);
}

/* avg's buffer fields as Spark names them: sum DOUBLE, count BIGINT; and
 * first's valueSet. */
static void test_fields(sl_col *ints, sl_col *strs)
{
	static const int32_t g[6] = { 0, 2, 0, 2, 0, 0 };
	sl_type *t = ints->type, *st = strs->type;
	sl_err err;
	sl_agg *a = sl_agg_new("avg", false, false, &t, 1, 0, &err);
	sl_agg *f = sl_agg_new("first", false, false, &st, 1, 0, &err);
	sl_col *sum = sl_col_new(sl_type_prim(SL_DOUBLE), 1);
	sl_col *cnt = sl_col_new(sl_type_prim(SL_BIGINT), 1);
	sl_col *fv = sl_col_new(sl_type_prim(SL_STRING), 1);
	sl_col *set = sl_col_new(sl_type_prim(SL_BOOLEAN), 1);
	sl_col *fa[2] = { sum, cnt }, *ff[2] = { fv, set };
	sl_buf b;
	size_t used;
	is_int(sl_agg_buffer_nfields(a), 2, "avg keeps 2 buffer fields");
	sl_agg_update(a, g, ints->len, 3, &ints, &err);
	sl_agg_update(f, g, strs->len, 3, &strs, &err);
	sl_buf_init(&b);
	sl_agg_save(a, 0, &b, &err);
	sl_agg_free(a);
	a = sl_agg_new("avg", false, false, &t, 1, 0, &err);
	ok(sl_agg_decode(a, b.p, b.len, &used, fa, NULL, 0, &err) == 0,
	   "avg: decode its fields");
	ok(sl_col_f64(sum)[0] == 1 + 5 + 9 + 10, "avg: sum %g",
	   sl_col_f64(sum)[0]);
	is_int(sl_col_i64(cnt)[0], 4, "avg: count");
	sl_buf_clear(&b);
	sl_agg_save(f, 0, &b, &err);
	sl_agg_free(f);
	f = sl_agg_new("first", false, false, &st, 1, 0, &err);
	ok(sl_agg_decode(f, b.p, b.len, &used, ff, NULL, 0, &err) == 0,
	   "first: decode its fields");
	ok(!sl_col_isnull(fv, 0) && sl_col_str(fv)[0].len == 3 &&
	       memcmp(sl_col_str(fv)[0].p, "owl", 3) == 0,
	   "first: the value");
	ok(sl_col_u8(set)[0] == 1, "first: valueSet");
	sl_buf_release(&b);
	sl_col_free(sum);
	sl_col_free(cnt);
	sl_col_free(fv);
	sl_col_free(set);
	sl_agg_free(a);
	sl_agg_free(f);
}

int main(void)
{
	sl_col *ints = sl_col_new(sl_type_prim(SL_INT), 6);
	sl_col *dbls = sl_col_new(sl_type_prim(SL_DOUBLE), 6);
	sl_col *strs = sl_col_new(sl_type_prim(SL_STRING), 6);
	static const char *const words[6] = { "owl", "cat", "emu",
					      "dog", "ant", "owl" };
	sl_col *two[2];
	int i;
	for (i = 0; i < 6; i++) {
		sl_col_i32(ints)[i] = 2 * i + 1 - (i == 5);
		sl_col_f64(dbls)[i] = 0.25 * i;
		sl_col_set_str(strs, i, words[i], strlen(words[i]));
	}
	sl_col_set_null(ints, 3);
	roundtrip("count", &ints, 1, true);
	roundtrip("count", &ints, 1, false);
	roundtrip("sum", &ints, 1, false);
	roundtrip("sum", &dbls, 1, false);
	roundtrip("avg", &ints, 1, false);
	roundtrip("avg", &dbls, 1, false);
	roundtrip("min", &strs, 1, false);
	roundtrip("max", &ints, 1, false);
	roundtrip("first", &strs, 1, false);
	roundtrip("last", &ints, 1, false);
	roundtrip("approx_count_distinct", &strs, 1, false);
	two[0] = strs;
	two[1] = ints;
	roundtrip("max_by", two, 2, false);
	roundtrip("min_by", two, 2, false);
	test_fields(ints, strs);
	sl_col_free(ints);
	sl_col_free(dbls);
	sl_col_free(strs);
	return done_testing();
}
