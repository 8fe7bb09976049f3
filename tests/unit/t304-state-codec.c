/* t304-state-codec: the state reader's decoders (exec/state_codec.h)
 * against the real encoders: keys through sl_hash_key_encode and
 * aggregation buffers through sl_agg_save of aggregates that saw rows,
 * decoded back to the same values (count, sum of ints and doubles, avg's
 * sum and count, min/max of strings, first with valueSet, an empty
 * group's NULL sum); a session key and a join entry by their documented
 * layouts; the schema text round trip; and the failure paths: corrupt
 * schema texts and truncated or trailing bytes are SL_ECHECKPOINT errors,
 * never a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "exec/agg.h"
#include "exec/hash.h"
#include "exec/state_codec.h"
#include "tap.h"

static const char agg_text[] =
    "v1\n"
    "operator stateStoreSave\n"
    "key `k` STRING, `w` STRUCT<`start`: TIMESTAMP, `end`: TIMESTAMP>\n"
    "value `count` BIGINT, `sum` BIGINT, `sum_2` DOUBLE, `count_2` BIGINT, "
    "`max` STRING, `first` INT, `valueSet` BOOLEAN, `sum_3` DOUBLE\n"
    "layout count sum avg max first sum\n";

/* An aggregate over one column of type t that saw rows vals (group 0)
 * and nothing (group 1), its buffers appended to out per group. */
static sl_agg *agg_of(const char *fn, sl_col *arg, int64_t n)
{
	sl_err err;
	int32_t g[8] = { 0 };
	sl_type *t = arg->type;
	sl_agg *a = sl_agg_new(fn, false, false, &t, 1, 0, &err);
	if (a == NULL || sl_agg_update(a, g, n, 2, &arg, &err) < 0)
		diag("agg %s: %s", fn, err.msg);
	return a;
}

static void test_agg(void)
{
	sl_err err;
	sl_state_codec *c = sl_state_codec_parse(agg_text, "t", &err);
	sl_col *ints = sl_col_new(sl_type_prim(SL_INT), 3);
	sl_col *dbls = sl_col_new(sl_type_prim(SL_DOUBLE), 3);
	sl_col *strs = sl_col_new(sl_type_prim(SL_STRING), 3);
	sl_col *kc[2], *key, *val;
	sl_agg *aggs[6];
	sl_buf kb, vb;
	int i, g;
	ok(c != NULL, "parse an aggregation's schema text");
	if (c == NULL) {
		diag("%s", err.msg);
		return;
	}
	is_str(sl_state_codec_operator(c), "stateStoreSave", "operator name");
	for (i = 0; i < 3; i++) {
		sl_col_i32(ints)[i] = i == 1 ? -7 : 40 + i;
		sl_col_f64(dbls)[i] = 0.5 * i;
		sl_col_set_str(strs, i, i == 1 ? "zebra" : "ant",
			       i == 1 ? 5 : 3);
	}
	aggs[0] = agg_of("count", ints, 3);
	aggs[1] = agg_of("sum", ints, 3);
	aggs[2] = agg_of("avg", ints, 3);
	aggs[3] = agg_of("max", strs, 3);
	aggs[4] = agg_of("first", ints, 3);
	aggs[5] = agg_of("sum", dbls, 3);
	/* two entries: group 0 saw the rows, group 1 none */
	key = sl_col_new(sl_state_codec_key_type(c, 0), 2);
	val = sl_col_new(sl_state_codec_value_type(c, 0), 2);
	kc[0] = sl_col_new(sl_type_prim(SL_STRING), 2);
	kc[1] = sl_col_new(sl_state_codec_key_type(c, 0)->fields[1].type, 2);
	sl_col_set_str(kc[0], 0, "a\0b", 3);
	sl_col_set_null(kc[0], 1);
	sl_col_i64(kc[1]->child[0])[0] = 1000000;
	sl_col_i64(kc[1]->child[1])[0] = 2000000;
	sl_col_set_null(kc[1], 1);
	for (g = 0; g < 2; g++) {
		sl_buf_init(&kb);
		sl_buf_init(&vb);
		sl_hash_key_encode(kc, 2, g, &kb);
		for (i = 0; i < 6; i++)
			sl_agg_save(aggs[i], g, &vb, &err);
		is_int(sl_state_codec_decode(c, 0, kb.p, kb.len, vb.p, vb.len,
					     key, val, g, &err),
		       0, "decode group %d", g);
		/* one byte short, one byte more: refused */
		ok(sl_state_codec_decode(c, 0, kb.p, kb.len, vb.p, vb.len - 1,
					 key, val, g, &err) == SL_ECHECKPOINT &&
		       strstr(err.msg, "does not decode") != NULL,
		   "a truncated value is an error: %s", err.msg);
		sl_buf_addc(&vb, 0);
		ok(sl_state_codec_decode(c, 0, kb.p, kb.len, vb.p, vb.len, key,
					 val, g, &err) == SL_ECHECKPOINT,
		   "a value with trailing bytes is an error");
		ok(sl_state_codec_decode(c, 0, kb.p, kb.len - 1, NULL, 0, key,
					 val, g, &err) == SL_ECHECKPOINT,
		   "a truncated key is an error");
		/* back to the good bytes for the row we check */
		vb.len--;
		sl_state_codec_decode(c, 0, kb.p, kb.len, vb.p, vb.len, key,
				      val, g, &err);
		sl_buf_release(&kb);
		sl_buf_release(&vb);
	}
	ok(sl_col_str(key->child[0])[0].len == 3 &&
	       memcmp(sl_col_str(key->child[0])[0].p, "a\0b", 3) == 0,
	   "key string with a NUL byte");
	is_int(sl_col_i64(key->child[1]->child[1])[0], 2000000, "window end");
	ok(sl_col_isnull(key->child[0], 1) && sl_col_isnull(key->child[1], 1),
	   "NULL keys stay NULL");
	is_int(sl_col_i64(val->child[0])[0], 3, "count");
	is_int(sl_col_i64(val->child[1])[0], 40 - 7 + 42, "sum of ints");
	ok(sl_col_f64(val->child[2])[0] == 75.0 &&
	       sl_col_i64(val->child[3])[0] == 3,
	   "avg's buffer: sum 75.0, count 3");
	ok(sl_col_str(val->child[4])[0].len == 5 &&
	       memcmp(sl_col_str(val->child[4])[0].p, "zebra", 5) == 0,
	   "max of strings");
	ok(sl_col_i32(val->child[5])[0] == 40 && sl_col_u8(val->child[6])[0],
	   "first = 40, valueSet");
	ok(sl_col_f64(val->child[7])[0] == 1.5, "sum of doubles");
	ok(sl_col_i64(val->child[0])[1] == 0 &&
	       sl_col_isnull(val->child[1], 1) &&
	       sl_col_isnull(val->child[4], 1) && !sl_col_u8(val->child[6])[1],
	   "an empty group: count 0, sum and max NULL, valueSet false");
	for (i = 0; i < 6; i++)
		sl_agg_free(aggs[i]);
	sl_col_free(ints);
	sl_col_free(dbls);
	sl_col_free(strs);
	sl_col_free(kc[0]);
	sl_col_free(kc[1]);
	sl_col_free(key);
	sl_col_free(val);
	sl_state_codec_free(c);
}

static void put_be(sl_buf *b, uint64_t v)
{
	unsigned char x[8];
	int i;
	for (i = 0; i < 8; i++)
		x[i] = (unsigned char)(v >> (56 - 8 * i));
	sl_buf_add(b, x, 8);
}

static void test_session_join(void)
{
	static const char sess[] =
	    "v1\noperator sessionWindowStateStoreSaveExec\n"
	    "key `session_window` STRUCT<`start`: TIMESTAMP, `end`: TIMESTAMP>, `u` BIGINT\n"
	    "value `count` BIGINT\nlayout session/0 count\n";
	static const char join[] =
	    "v1\noperator symmetricHashJoin\nkey `field0` INT\n"
	    "value `id` INT, `s` STRING\nkey1 `field0` INT\nvalue1 `rid` INT\n"
	    "layout 9\n";
	sl_err err;
	sl_state_codec *c = sl_state_codec_parse(sess, "s", &err);
	sl_col *kc[2], *key, *val;
	sl_buf k, v;
	int64_t end = 9000000;
	ok(c != NULL, "parse a session's schema text");
	if (c == NULL)
		return;
	kc[0] = sl_col_new(sl_type_prim(SL_BIGINT), 1);
	sl_col_i64(kc[0])[0] = -5;
	sl_buf_init(&k);
	sl_buf_init(&v);
	/* op_session.c: other keys ++ be64(start ^ sign), value end ++ bufs */
	sl_hash_key_encode(kc, 1, 0, &k);
	put_be(&k, (uint64_t)4000000 ^ UINT64_C(0x8000000000000000));
	sl_buf_add(&v, &end, 8);
	sl_buf_addc(&v, 2); /* count 2, a varint */
	key = sl_col_new(sl_state_codec_key_type(c, 0), 1);
	val = sl_col_new(sl_state_codec_value_type(c, 0), 1);
	is_int(sl_state_codec_decode(c, 0, k.p, k.len, v.p, v.len, key, val, 0,
				     &err),
	       0, "decode a session entry");
	ok(sl_col_i64(key->child[0]->child[0])[0] == 4000000 &&
	       sl_col_i64(key->child[0]->child[1])[0] == end &&
	       sl_col_i64(key->child[1])[0] == -5 &&
	       sl_col_i64(val->child[0])[0] == 2,
	   "session [4 s, 9 s) of u -5, count 2");
	is_int(
	    sl_state_codec_decode(c, 0, k.p, k.len, NULL, 0, key, val, 0, &err),
	    0, "a removed session (the change feed's delete)");
	ok(sl_col_isnull(key->child[0]->child[1], 0) && sl_col_isnull(val, 0),
	   "its end and value are NULL");
	sl_col_free(key);
	sl_col_free(val);
	sl_col_free(kc[0]);
	sl_state_codec_free(c);

	c = sl_state_codec_parse(join, "j", &err);
	ok(c != NULL && sl_state_codec_is_join(c),
	   "parse a join's schema text");
	if (c == NULL)
		return;
	sl_buf_clear(&k);
	sl_buf_clear(&v);
	kc[0] = sl_col_new(sl_type_prim(SL_INT), 1);
	kc[1] = sl_col_new(sl_type_prim(SL_STRING), 1);
	sl_col_i32(kc[0])[0] = 7;
	sl_col_set_str(kc[1], 0, "row", 3);
	/* op_ssjoin.c: side ++ key ++ be64 seq; time ++ matched ++ row */
	sl_buf_addc(&k, 0);
	sl_hash_key_encode(kc, 1, 0, &k);
	put_be(&k, 42);
	sl_buf_add(&v, &end, 8);
	sl_buf_addc(&v, 1);
	sl_hash_key_encode(kc, 2, 0, &v);
	is_int(sl_state_codec_side(c, k.p, k.len), 0, "the entry's side");
	key = sl_col_new(sl_state_codec_key_type(c, 2), 1);
	val = sl_col_new(sl_state_codec_value_type(c, 2), 1);
	is_int(sl_state_codec_decode(c, 2, k.p, k.len, v.p, v.len, key, val, 0,
				     &err),
	       0, "decode as left-keyWithIndexToValue");
	ok(sl_col_i32(key->child[0])[0] == 7 &&
	       sl_col_i64(key->child[1])[0] == 42 &&
	       sl_col_i32(val->child[0])[0] == 7 &&
	       sl_col_str(val->child[1])[0].len == 3 &&
	       sl_col_u8(val->child[2])[0] == 1,
	   "field0 7, index 42, row (7, 'row'), matched");
	ok(sl_state_codec_decode(c, 3, k.p, k.len, v.p, v.len, key, val, 0,
				 &err) == SL_ECHECKPOINT,
	   "a left entry is not a right one");
	sl_col_free(key);
	sl_col_free(val);
	sl_col_free(kc[0]);
	sl_col_free(kc[1]);
	sl_buf_release(&k);
	sl_buf_release(&v);
	sl_state_codec_free(c);
}

static void test_text(void)
{
	static const char *const bad[] = {
		"",
		"v2\noperator stateStoreSave\n",
		"v1\noperator noSuchOperator\nkey `a` INT\n",
		"v1\noperator stateStoreSave\nkey `a` INT\nvalue `count` BIGINT\n",
		"v1\noperator stateStoreSave\nkey `a` INT\nvalue `count` BIGINT\nlayout count sum\n",
		"v1\noperator stateStoreSave\nkey `a` INTEGRAL\nvalue `count` BIGINT\nlayout count\n",
		"v1\noperator stateStoreSave\nkey `a` INT\nvalue `c` BIGINT\nlayout collect_list\n",
		"v1\noperator symmetricHashJoin\nkey `f` INT\nvalue `a` INT\nlayout 9\n",
		"v1\noperator sessionWindowStateStoreSaveExec\nkey `u` INT\nvalue `count` BIGINT\nlayout session/0 count\n",
	};
	sl_err err;
	sl_state_codec *c = sl_state_codec_parse(agg_text, "t", &err);
	sl_state_codec *d;
	sl_buf b;
	size_t i;
	sl_buf_init(&b);
	ok(c != NULL && sl_state_codec_text(c, &b, &err) == 0,
	   "write a parsed codec's text");
	is_str(sl_buf_cstr(&b), agg_text, "the text round-trips");
	d = sl_state_codec_parse(
	    "v1\noperator dedupe\nkey `k` STRING\nvalue `__dummy__` VOID\n",
	    "d", &err);
	ok(d != NULL && sl_state_codec_value_type(d, 0)->nfields == 1 &&
	       sl_state_codec_value_type(d, 0)->fields[0].type->kind ==
		   SL_NULLTYPE,
	   "dedupe: the value is Spark's __dummy__ NULL whatever the text");
	sl_state_codec_free(d);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		d = sl_state_codec_parse(bad[i], "state/0/0/_metadata/schema",
					 &err);
		ok(d == NULL && err.code == SL_ECHECKPOINT &&
		       strcmp(err.msg, "state schema file "
				       "'state/0/0/_metadata/schema' is "
				       "corrupt") == 0,
		   "corrupt schema text %zu is refused", i);
		sl_state_codec_free(d);
	}
	sl_buf_release(&b);
	sl_state_codec_free(c);
}

int main(void)
{
	test_agg();
	test_session_join();
	test_text();
	return done_testing();
}
