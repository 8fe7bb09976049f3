/*
 * t217-hash-str: string group keys on the packed probe (hash.c: strings
 * of up to 15 bytes packed inline) against the per-leaf layout of the same
 * keys, on random batches of window struct + STRING, STRING + STRING,
 * INT + STRING + BOOLEAN and a struct holding a string: empty strings,
 * NULLs (a NULL string is not ''), lengths 7/8/9 and 15/16/17, embedded
 * zero bytes ("a" vs "a\0"), multibyte UTF-8.  Both tables must hand out
 * the same ids in the same order, find the same rows, give back the same
 * keys and encode them to the same bytes (the state store's keys); every
 * row's encoding equals its group's and no two groups encode alike.  A
 * string too long to pack, in the middle of a batch past the first chunk,
 * moves the packed table to the per-leaf layout without changing an id;
 * clearing packs it again.  200 000 distinct keys in one table (32-bit
 * hash collisions, about 5 expected, and growth past a million slots).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "core/buf.h"
#include "exec/hash.h"
#include "exec/hash_int.h"
#include "tap.h"

static sl_err err;

static uint64_t rng = 17;
static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

static sl_type *ddl(const char *s)
{
	sl_type *t = sl_type_parse_ddl(s, &err);
	if (t == NULL)
		diag("ddl %s: %s", s, err.msg);
	return t;
}

/* ---------------------------------------------------------- strings */

#define NPOOL 160
static char pool[NPOOL][48];
static uint32_t plen[NPOOL];
static int npool;
#define NLONG 6
static const char *const longs[NLONG] = {
	"abcdefghijklmnop",  /* 16 */
	"abcdefghijklmnopq", /* 17 */
	"abcdefghijklmno\0", /* 16: a short key's 15 bytes + 0x00 */
	"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac"
	"x",
	"a somewhat longer product name, 40 byte",
	"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
};
static const uint32_t longlen[NLONG] = { 16, 17, 16, 16, 39, 16 };

static void pool_add(const char *p, uint32_t n)
{
	memcpy(pool[npool], p, n);
	plen[npool++] = n;
}

static void pool_init(void)
{
	static const char alpha[] = "ab\0\xc3\xa9z";
	npool = 0;
	pool_add("", 0);
	pool_add("\0", 1);
	pool_add("\0\0", 2);
	pool_add("a", 1);
	pool_add("a\0", 2);
	pool_add("\0a", 2);
	pool_add("\xc3\xa9", 2);                             /* é */
	pool_add("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 9); /* 日本語 */
	pool_add("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac",
		 15);
	pool_add("abcdefg", 7);
	pool_add("abcdefgh", 8);
	pool_add("abcdefgh\0", 9);
	pool_add("abcdefghi", 9);
	pool_add("abcdefghijklmno", 15);
	pool_add("abcdefghijklmn\0", 15);
	pool_add("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 15);
	pool_add("p42", 3);
	pool_add("p0042", 5);
	while (npool < NPOOL) {
		char b[16];
		uint32_t n = rnd() % 16, j;
		for (j = 0; j < n; j++)
			b[j] = alpha[rnd() % 6];
		pool_add(b, n);
	}
}

/* ----------------------------------------------------- random columns */

/* NULL one value in null_every (0: none; the keys then encode straight
 * from the packed words, not through key columns). */
static uint32_t null_every = 13;

/* Row i of c (and its children): a random value, sometimes NULL; the
 * first STRING met is one too long to pack when *want_long. */
static void fill(sl_col *c, int64_t i, bool *want_long)
{
	bool null = null_every > 0 && rnd() % null_every == 0;
	int f, k;
	switch (c->type->kind) {
	case SL_STRUCT:
		for (f = 0; f < c->nchild; f++)
			fill(c->child[f], i, want_long);
		break;
	case SL_TIMESTAMP:
		sl_col_i64(c)[i] = ((int64_t)(rnd() % 3) - 1) * 60000000;
		break;
	case SL_INT: sl_col_i32(c)[i] = (int32_t)(rnd() % 5) - 2; break;
	case SL_BOOLEAN: sl_col_u8(c)[i] = (uint8_t)(rnd() % 2); break;
	case SL_STRING:
		if (*want_long) {
			k = (int)(rnd() % NLONG);
			sl_col_set_str(c, i, longs[k], longlen[k]);
			*want_long = false;
			null = false;
		} else {
			k = (int)(rnd() % (uint32_t)npool);
			sl_col_set_str(c, i, pool[k], plen[k]);
		}
		break;
	default: break;
	}
	if (null)
		sl_col_set_null(c, i);
	/* a NULL struct's children NULL too: the table tells NULL structs
	 * apart by what their children hold, the encoding does not, and the
	 * distinctness check below compares encodings */
	for (f = 0; null && c->type->kind == SL_STRUCT && f < c->nchild; f++)
		sl_col_set_null(c->child[f], i);
}

typedef struct batch {
	int nkeys;
	int64_t n;
	sl_col *cols[4];
} batch;

/* n random rows; row long_row (if >= 0) has a string too long to pack. */
static void batch_new(batch *b, sl_type *const *types, int nkeys, int64_t n,
		      int64_t long_row)
{
	int64_t i;
	int k;
	b->nkeys = nkeys;
	b->n = n;
	for (k = 0; k < nkeys; k++)
		b->cols[k] = sl_col_new(types[k], n);
	for (i = 0; i < n; i++) {
		bool want = i == long_row;
		for (k = 0; k < nkeys; k++)
			fill(b->cols[k], i, &want);
	}
}

static void batch_free(batch *b)
{
	int k;
	for (k = 0; k < b->nkeys; k++)
		sl_col_free(b->cols[k]);
}

/* ----------------------------------------------------------- checks */

static int diff_ids(const int32_t *a, const int32_t *b, int64_t n)
{
	int64_t i;
	int bad = 0;
	for (i = 0; i < n; i++)
		if (a[i] != b[i] && bad++ < 3)
			diag("row %lld: %d vs %d", (long long)i, a[i], b[i]);
	return bad;
}

/* Both tables' keys encoded: the same bytes, the same offsets. */
static bool same_encoding(const sl_hash_groups *p, const sl_hash_groups *g)
{
	int64_t n = sl_hash_groups_count(p), *op, *og;
	sl_buf bp, bg;
	bool same;
	if (n != sl_hash_groups_count(g))
		return false;
	op = malloc((size_t)(n + 1) * sizeof *op);
	og = malloc((size_t)(n + 1) * sizeof *og);
	sl_buf_init(&bp);
	sl_buf_init(&bg);
	same = sl_hash_groups_encode(p, 0, n, &bp, op, &err) == 0 &&
	       sl_hash_groups_encode(g, 0, n, &bg, og, &err) == 0 &&
	       bp.len == bg.len && memcmp(bp.p, bg.p, bp.len) == 0 &&
	       memcmp(op, og, (size_t)(n + 1) * sizeof *op) == 0;
	sl_buf_release(&bp);
	sl_buf_release(&bg);
	free(op);
	free(og);
	return same;
}

/* Key columns handed back by both tables, encoded row by row: equal. */
static bool same_keys(const sl_hash_groups *p, const sl_hash_groups *g,
		      int nkeys)
{
	int64_t n = sl_hash_groups_count(p), i;
	sl_col *kp[4] = { 0 }, *kg[4] = { 0 };
	sl_buf a, b;
	bool same = n == sl_hash_groups_count(g);
	int k;
	sl_buf_init(&a);
	sl_buf_init(&b);
	for (k = 0; k < nkeys; k++) {
		kp[k] = sl_hash_groups_key(p, k, 0, n, &err);
		kg[k] = sl_hash_groups_key(g, k, 0, n, &err);
		same = same && kp[k] != NULL && kg[k] != NULL;
	}
	for (i = 0; same && i < n; i++) {
		sl_buf_clear(&a);
		sl_buf_clear(&b);
		sl_hash_key_encode(kp, nkeys, i, &a);
		sl_hash_key_encode(kg, nkeys, i, &b);
		same = a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
	}
	for (k = 0; k < nkeys; k++) {
		sl_col_free(kp[k]);
		sl_col_free(kg[k]);
	}
	sl_buf_release(&a);
	sl_buf_release(&b);
	return same;
}

static int cmp_key(const void *x, const void *y, void *ctx)
{
	const sl_buf *b = ctx;
	const int64_t *u = x, *v = y;
	size_t lu = (size_t)(u[1] - u[0]), lv = (size_t)(v[1] - v[0]);
	int c = memcmp(b->p + u[0], b->p + v[0], lu < lv ? lu : lv);
	return c != 0 ? c : (lu > lv) - (lu < lv);
}

/* Independent of either table's probe: each row's own encoding equals its
 * group's, and no two groups encode alike.  Returns the number of faults. */
static int check_groups(const sl_hash_groups *t, const batch *b,
			const int32_t *gids)
{
	int64_t n = sl_hash_groups_count(t), i, *off, (*pairs)[2];
	sl_buf enc, row;
	int bad = 0;
	off = malloc((size_t)(n + 1) * sizeof *off);
	pairs = malloc((size_t)(n + 1) * sizeof *pairs);
	sl_buf_init(&enc);
	sl_buf_init(&row);
	if (sl_hash_groups_encode(t, 0, n, &enc, off, &err) < 0)
		bad++;
	for (i = 0; bad == 0 && i < b->n; i++) {
		int64_t g = gids[i];
		sl_buf_clear(&row);
		sl_hash_key_encode(b->cols, b->nkeys, i, &row);
		if (g < 0 || g >= n ||
		    row.len != (size_t)(off[g + 1] - off[g]) ||
		    memcmp(row.p, enc.p + off[g], row.len) != 0) {
			if (bad++ < 3)
				diag("row %lld: not its group %lld's key",
				     (long long)i, (long long)g);
		}
	}
	for (i = 0; i < n; i++) {
		pairs[i][0] = off[i];
		pairs[i][1] = off[i + 1];
	}
	qsort_r(pairs, (size_t)n, sizeof *pairs, cmp_key, &enc);
	for (i = 1; i < n; i++)
		if (cmp_key(pairs[i - 1], pairs[i], &enc) == 0 && bad++ < 3)
			diag("two groups with one key");
	sl_buf_release(&enc);
	sl_buf_release(&row);
	free(off);
	free(pairs);
	return bad;
}

/* ---------------------------------------------- packed against per-leaf */

#define ROWS 3000

/* One key shape: 6 batches into a packed table and a per-leaf one (the
 * 5th with a long string at row 1500 when with_long), then find, insert
 * with skip_nulls, clear and once more. */
static void shape(const char *name, sl_type *const *types, int nkeys,
		  bool with_long)
{
	sl_hash_groups *p = sl_hash_groups_new(types, nkeys, &err);
	sl_hash_groups *g = sl_hash_groups_new(types, nkeys, &err);
	int32_t *ip = malloc(ROWS * sizeof *ip),
		*ig = malloc(ROWS * sizeof *ig);
	int bad = 0, bad_ref = 0, round, b;
	batch bt;
	ok(p && g && sl_hash_groups_packed(p), "%s: the table packs its keys",
	   name);
	ok(sl_hash_groups_unpack(g) == 0 && !sl_hash_groups_packed(g),
	   "%s: the other is per-leaf", name);
	for (round = 0; round < 2; round++) {
		for (b = 0; b < 6; b++) {
			int64_t lr = with_long && b == 4 ? 1500 : -1;
			batch_new(&bt, types, nkeys, ROWS, lr);
			if (sl_hash_groups_insert(p, bt.cols, ROWS, false, ip,
						  &err) < 0 ||
			    sl_hash_groups_insert(g, bt.cols, ROWS, false, ig,
						  &err) < 0)
				bad++;
			bad += diff_ids(ip, ig, ROWS);
			bad_ref += check_groups(p, &bt, ip);
			batch_free(&bt);
		}
		is_int(bad, 0, "%s, round %d: the same ids row by row", name,
		       round);
		is_int(bad_ref, 0,
		       "%s, round %d: each row in the group of its key, groups "
		       "distinct",
		       name, round);
		ok(sl_hash_groups_count(p) == sl_hash_groups_count(g) &&
		       sl_hash_groups_count(p) > 50,
		   "%s, round %d: %lld groups each", name, round,
		   (long long)sl_hash_groups_count(p));
		ok(sl_hash_groups_packed(p) == !with_long, "%s, round %d: %s",
		   name, round,
		   with_long ? "a long string unpacked the table"
			     : "still packed");
		ok(same_keys(p, g, nkeys), "%s, round %d: the same keys back",
		   name, round);
		ok(same_encoding(p, g),
		   "%s, round %d: the same encoded keys (bytes and offsets)",
		   name, round);

		/* find (new keys are not added), then skip_nulls */
		batch_new(&bt, types, nkeys, ROWS, -1);
		bad =
		    sl_hash_groups_find(p, bt.cols, ROWS, false, ip, &err) <
			0 ||
		    sl_hash_groups_find(g, bt.cols, ROWS, false, ig, &err) < 0;
		bad += diff_ids(ip, ig, ROWS);
		bad +=
		    sl_hash_groups_find(p, bt.cols, ROWS, true, ip, &err) < 0 ||
		    sl_hash_groups_find(g, bt.cols, ROWS, true, ig, &err) < 0;
		bad += diff_ids(ip, ig, ROWS);
		bad +=
		    sl_hash_groups_insert(p, bt.cols, ROWS, true, ip, &err) <
			0 ||
		    sl_hash_groups_insert(g, bt.cols, ROWS, true, ig, &err) < 0;
		bad += diff_ids(ip, ig, ROWS);
		is_int(bad, 0,
		       "%s, round %d: find, find and insert with skip_nulls "
		       "agree",
		       name, round);
		ok(same_encoding(p, g), "%s, round %d: encodings after those",
		   name, round);
		batch_free(&bt);

		/* cleared: packed again (the per-leaf one unpacked again) */
		ok(sl_hash_groups_clear(p) == 0 &&
		       sl_hash_groups_clear(g) == 0 &&
		       sl_hash_groups_count(p) == 0 && sl_hash_groups_packed(p),
		   "%s, round %d: cleared, packed again", name, round);
		sl_hash_groups_unpack(g);
		bad = bad_ref = 0;
	}
	free(ip);
	free(ig);
	sl_hash_groups_free(p);
	sl_hash_groups_free(g);
}

static void test_shapes(void)
{
	sl_type *wt = ddl("w STRUCT<start: TIMESTAMP, end: TIMESTAMP>");
	sl_type *nt = ddl("n STRUCT<s: STRING, i: INT>");
	sl_type *ty[3];
	int l;
	for (l = 0; l < 3; l++) {
		null_every = l == 2 ? 0 : 13;
		ty[0] = wt->fields[0].type;
		ty[1] = sl_type_prim(SL_STRING);
		shape(l == 2   ? "window + STRING, no NULLs"
		      : l == 1 ? "window + STRING, long"
			       : "window + STRING",
		      ty, 2, l == 1);
		ty[0] = sl_type_prim(SL_STRING);
		shape(l == 2   ? "STRING + STRING, no NULLs"
		      : l == 1 ? "STRING + STRING, long"
			       : "STRING + STRING",
		      ty, 2, l == 1);
		ty[0] = sl_type_prim(SL_INT);
		ty[1] = sl_type_prim(SL_STRING);
		ty[2] = sl_type_prim(SL_BOOLEAN);
		shape(l == 2   ? "INT + STRING + BOOLEAN, no NULLs"
		      : l == 1 ? "INT + STRING + BOOLEAN, long"
			       : "INT + STRING + BOOLEAN",
		      ty, 3, l == 1);
		ty[0] = nt->fields[0].type;
		ty[1] = sl_type_prim(SL_INT);
		shape(l == 2   ? "struct<STRING, INT> + INT, no NULLs"
		      : l == 1 ? "struct<STRING, INT> + INT, long"
			       : "struct<STRING, INT> + INT",
		      ty, 2, l == 1);
	}
	sl_type_free(wt);
	sl_type_free(nt);
}

/* Keys the packed layout must not take: 5 words, a DOUBLE, an ARRAY. */
static void test_not_packed(void)
{
	sl_type *ty[3] = { sl_type_prim(SL_STRING), sl_type_prim(SL_STRING),
			   sl_type_prim(SL_INT) };
	sl_hash_groups *t = sl_hash_groups_new(ty, 3, &err);
	sl_type *at;
	ok(t && !sl_hash_groups_packed(t), "STRING + STRING + INT: per-leaf");
	sl_hash_groups_free(t);
	ty[1] = sl_type_prim(SL_DOUBLE);
	t = sl_hash_groups_new(ty, 2, &err);
	ok(t && !sl_hash_groups_packed(t), "STRING + DOUBLE: per-leaf");
	sl_hash_groups_free(t);
	at = ddl("a ARRAY<INT>");
	ty[1] = at->fields[0].type;
	t = sl_hash_groups_new(ty, 2, &err);
	ok(t && !sl_hash_groups_packed(t), "STRING + ARRAY: per-leaf");
	sl_hash_groups_free(t);
	sl_type_free(at);
}

/* 200 000 distinct (window, string) keys: ids 0.. in row order in both
 * layouts, found again; about 5 pairs of them share a 32-bit hash. */
static void test_many(void)
{
	enum { N = 200000 };
	sl_type *wt = ddl("w STRUCT<start: TIMESTAMP, end: TIMESTAMP>");
	sl_type *ty[2] = { wt->fields[0].type, sl_type_prim(SL_STRING) };
	sl_hash_groups *p = sl_hash_groups_new(ty, 2, &err);
	sl_hash_groups *g = sl_hash_groups_new(ty, 2, &err);
	sl_col *cols[2] = { sl_col_new(ty[0], N), sl_col_new(ty[1], N) };
	int32_t *ip = malloc(N * sizeof *ip), *ig = malloc(N * sizeof *ig);
	int64_t i;
	int bad = 0;
	sl_hash_groups_unpack(g);
	for (i = 0; i < N; i++) {
		char s[16];
		int n = snprintf(s, sizeof s, "k%lld", (long long)(i / 3));
		sl_col_i64(cols[0]->child[0])[i] = (i % 3) * 60000000;
		sl_col_i64(cols[0]->child[1])[i] = (i % 3 + 1) * 60000000;
		if (i % 7 == 0) /* padded to 15 bytes with 0x00 */
			n = 15, memset(s + strlen(s), 0, 15 - strlen(s));
		sl_col_set_str(cols[1], i, s, (size_t)n);
	}
	bad += sl_hash_groups_insert(p, cols, N, false, ip, &err) < 0;
	bad += sl_hash_groups_insert(g, cols, N, false, ig, &err) < 0;
	for (i = 0; i < N; i++)
		bad += ip[i] != i || ig[i] != i;
	is_int(bad, 0, "200000 distinct keys: ids in row order, both layouts");
	bad = sl_hash_groups_find(p, cols, N, false, ip, &err) < 0;
	for (i = 0; i < N; i++)
		bad += ip[i] != i;
	is_int(bad, 0, "all found again in the packed table");
	ok(sl_hash_groups_packed(p) && same_encoding(p, g),
	   "still packed; the same encoded keys");
	sl_col_free(cols[0]);
	sl_col_free(cols[1]);
	free(ip);
	free(ig);
	sl_hash_groups_free(p);
	sl_hash_groups_free(g);
	sl_type_free(wt);
}

int main(void)
{
	pool_init();
	test_shapes();
	test_not_packed();
	test_many();
	return done_testing();
}
