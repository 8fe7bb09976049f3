/*
 * hash: key hashing and the group table (see hash.h for the contract).
 *
 * Layout.  Each key column is flattened into "leaves": a primitive column
 * is one leaf, a STRUCT is a null-flag leaf followed by its fields' leaves,
 * an ARRAY is one STRING leaf holding its JSON text.  Per group, each leaf
 * stores its value in a typed array (vals, width w) and a null flag byte.
 * The open-addressing table holds, per slot, a group's 32-bit hash and its
 * id + 1 in one 64-bit word (0 = empty), load factor at most 1/2, linear
 * probing: a probe rejects most mismatches from the slot alone, without a
 * dependent load of the group's hash or keys, and growing is a rehash
 * without re-reading keys.  For an INT key, count + sum
 * state, memory per group is about 4 (key) + 1 (null) + 4 (hash) + 8..16
 * (slots) bytes plus the aggregates' own arrays.
 *
 * Hashing is a batch at a time: one typed loop per leaf folds the values of
 * every row into h[0..n).  The probe loop then runs per row; a single
 * 32/64-bit key without NULLs in the batch takes a specialised loop (the
 * common groupBy(product_id) case) with no per-row switch.
 *
 * Packed keys.  A key of 2..32 leaves that are all BOOLEAN, INT, BIGINT,
 * TIMESTAMP, STRING/BINARY or STRUCT null flags, in at most 4 words (the
 * window struct + a BIGINT product_id of a windowed count is 1 flag + 3
 * words; with a STRING product_id, 1 flag + 4), is stored packed instead
 * of per leaf: an integer leaf is one 64-bit word (sign-extended), a
 * string two words holding up to STR_MAX = 15 bytes and, in the top byte,
 * its length (str_words), the key's NULLs one 32-bit mask (bit k = leaf k
 * is NULL; a NULL value's words are 0).  A batch is packed the same way
 * first (one typed loop per leaf into a row-major scratch), hashed a batch
 * at a time from the words, then probed comparing words, with the loop
 * specialised on the word count and the slot of a row a few rows ahead
 * prefetched.  Equality is the same relation as the per-leaf compare
 * (NULL = NULL, values and string bytes bitwise, "a" != "a\0" by the
 * length); only the hash function differs, and a table never mixes the two
 * layouts: a string longer than STR_MAX (found while packing a chunk)
 * moves the whole table to the per-leaf layout (unpack_table: the same
 * ids, the slots rehashed) and the batch goes on per leaf from that chunk;
 * sl_hash_groups_clear packs it again.  Why 15 bytes: window + one string
 * then fits the 4-word loops, and the ids this is for ("p123", user and
 * country codes) are shorter; 23 bytes would cost a fifth word on every
 * row of every such key.
 */
#include "exec/hash.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "core/buf.h"
#include "exec/hash_int.h"

#define HSEED UINT64_C(0x2545F4914F6CDD1D)
#define HK1   UINT64_C(0x9E3779B97F4A7C15)
#define HNULL UINT64_C(0x5bd1e9955bd1e995)

typedef struct leaf {
	sl_kind kind; /* storage kind, see leaf_kind() */
	int w;        /* bytes per value in vals; 0 for null-flag leaves */
	int word;     /* packed layout: the value's first word, -1 for a flag */
	char *vals;   /* per-leaf layout only */
	uint8_t *nulls;
} leaf;

#define MAX_WORDS 4
/* Words of a packed STRING/BINARY leaf: up to STR_MAX bytes inline, the
 * length in the last word's top byte (see str_words). */
#define STR_WORDS 2
#define STR_MAX   (8 * STR_WORDS - 1)

struct sl_hash_groups {
	int nkeys;
	sl_type **types;
	int nleaves;
	leaf *leaves;
	int64_t n, gcap;
	uint64_t *slots; /* hash << 32 | group id + 1; 0 = empty */
	uint64_t mask;
	sl_arena *arena;
	uint64_t *h;
	int64_t hcap;
	/* packed layout (fw > 0): keys kw[g * fw ..], NULL masks km[g]; the
	 * batch's packed keys pk, masks pm and 32-bit hashes ph */
	int fw;
	int pfw;   /* the packed plan's fw, kept while a long string made the
		    * table per-leaf (fw 0) until it is cleared */
	bool strs; /* the packed key has STRING leaves */
	uint64_t *kw;
	uint32_t *km;
	uint64_t *pk;
	uint32_t *pm, *ph;
	bool
	    null_keys; /* some group's key has a NULL: masks must be compared */
};

static inline uint64_t hmix(uint64_t h, uint64_t x)
{
	return sl_hash_mix64(h * HK1 + x);
}

static inline uint32_t fold(uint64_t h)
{
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

static inline uint64_t load64(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

static inline uint64_t load32(const char *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return w;
}

/* Strings of up to 16 bytes (most keys: "p0042", a country, a user id)
 * are read as their first and last 4 or 8 bytes, overlapping, which with
 * the length identify them; no loop, no call.  The callers mix the result
 * again (hmix), so one multiply round is enough here. */
static inline uint64_t bytes_hash(const char *p, size_t n)
{
	uint64_t h = (uint64_t)n * HK1, w;
	if (n <= 16) {
		uint64_t a = 0, b = 0;
		if (n >= 8) {
			a = load64(p);
			b = load64(p + n - 8);
		} else if (n >= 4) {
			a = load32(p);
			b = load32(p + n - 4);
		} else if (n > 0) {
			a = (uint64_t)(unsigned char)p[0] |
			    (uint64_t)(unsigned char)p[n >> 1] << 8 |
			    (uint64_t)(unsigned char)p[n - 1] << 16;
		}
		return (a ^ h) * UINT64_C(0xC2B2AE3D27D4EB4F) ^
		       b * UINT64_C(0x165667B19E3779F9);
	}
	while (n >= 8) {
		memcpy(&w, p, 8);
		h ^= sl_hash_mix64(w);
		h = (h << 31 | h >> 33) * HK1;
		p += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, p, n);
	return sl_hash_mix64(h ^ w);
}

static inline uint64_t dbl_bits(double d)
{
	uint64_t u;
	if (d == 0)
		d = 0; /* -0.0 groups with 0.0 */
	if (isnan(d))
		return UINT64_C(0x7ff8000000000000);
	memcpy(&u, &d, 8);
	return u;
}

/* ---------------------------------------------------------- layout */

static int count_leaves(const sl_type *t)
{
	int i, n = 1;
	if (t->kind == SL_STRUCT)
		for (i = 0; i < t->nfields; i++)
			n += count_leaves(t->fields[i].type);
	return n;
}

static void leaf_kind(leaf *L, const sl_type *t)
{
	switch (t->kind) {
	case SL_BOOLEAN:
		L->kind = SL_BOOLEAN;
		L->w = 1;
		break;
	case SL_INT:
	case SL_DATE:
		L->kind = SL_INT;
		L->w = 4;
		break;
	case SL_BIGINT:
	case SL_TIMESTAMP:
		L->kind = SL_BIGINT;
		L->w = 8;
		break;
	case SL_DOUBLE:
		L->kind = SL_DOUBLE;
		L->w = 8;
		break;
	case SL_STRING:
	case SL_BINARY:
	case SL_ARRAY:
		L->kind = SL_STRING;
		L->w = (int)sizeof(sl_str);
		break;
	default:
		L->kind = t->kind;
		L->w = 0;
		break; /* STRUCT, NULLTYPE */
	}
}

static void layout(leaf *L, int *k, const sl_type *t)
{
	int i;
	leaf_kind(&L[(*k)++], t);
	if (t->kind == SL_STRUCT)
		for (i = 0; i < t->nfields; i++)
			layout(L, k, t->fields[i].type);
}

/* Words of leaf L in the packed layout (0: a flag, -1: not packable). */
static int leaf_words(const leaf *L)
{
	switch (L->kind) {
	case SL_STRUCT: return 0;
	case SL_BOOLEAN:
	case SL_INT:
	case SL_BIGINT: return 1;
	case SL_STRING: return STR_WORDS;
	default: return -1;
	}
}

/* Use the packed layout when every leaf is a flag, an integer-like value
 * or a string and the values fit MAX_WORDS words (see the file comment).
 * ARRAY keys (their JSON text) stay per leaf: they are not state keys, and
 * encoding them fails as it did before strings were packed. */
static void plan_packed(sl_hash_groups *t)
{
	int k, n, words = 0;
	if (t->nleaves < 2 || t->nleaves > 32)
		return;
	for (k = 0; k < t->nkeys; k++)
		if (!sl_type_keyable(t->types[k]))
			return;
	for (k = 0; k < t->nleaves; k++) {
		if ((n = leaf_words(&t->leaves[k])) < 0)
			return;
		words += n;
	}
	if (words == 0 || words > MAX_WORDS)
		return;
	for (k = 0, words = 0; k < t->nleaves; k++) {
		leaf *L = &t->leaves[k];
		L->word = L->kind == SL_STRUCT ? -1 : words;
		words += leaf_words(L);
		t->strs |= L->kind == SL_STRING;
	}
	t->fw = t->pfw = words;
}

sl_hash_groups *sl_hash_groups_new(sl_type *const *types, int nkeys,
				   sl_err *err)
{
	sl_hash_groups *t = calloc(1, sizeof *t);
	int i, k = 0;
	if (t == NULL)
		goto nomem;
	t->nkeys = nkeys;
	t->types = calloc((size_t)nkeys + 1, sizeof *t->types);
	for (i = 0; i < nkeys; i++)
		t->nleaves += count_leaves(types[i]);
	t->leaves = calloc((size_t)t->nleaves + 1, sizeof *t->leaves);
	t->mask = 63;
	t->slots = calloc(t->mask + 1, sizeof *t->slots);
	t->arena = sl_arena_new();
	if (!t->types || !t->leaves || !t->slots || !t->arena)
		goto nomem;
	for (i = 0; i < nkeys; i++) {
		t->types[i] = sl_type_ref(types[i]);
		layout(t->leaves, &k, types[i]);
	}
	plan_packed(t);
	return t;
nomem:
	sl_hash_groups_free(t);
	sl_err_nomem(err);
	return NULL;
}

void sl_hash_groups_free(sl_hash_groups *t)
{
	int i;
	if (t == NULL)
		return;
	for (i = 0; i < t->nkeys && t->types; i++)
		sl_type_free(t->types[i]);
	for (i = 0; i < t->nleaves && t->leaves; i++) {
		free(t->leaves[i].vals);
		free(t->leaves[i].nulls);
	}
	free(t->types);
	free(t->leaves);
	free(t->slots);
	free(t->h);
	free(t->kw);
	free(t->km);
	free(t->pk);
	free(t->pm);
	free(t->ph);
	sl_arena_free(t->arena);
	free(t);
}

/* The per-leaf arrays, freed (a packed table has none). */
static void free_leaves(sl_hash_groups *t)
{
	int k;
	for (k = 0; k < t->nleaves; k++) {
		free(t->leaves[k].vals);
		free(t->leaves[k].nulls);
		t->leaves[k].vals = NULL;
		t->leaves[k].nulls = NULL;
	}
}

int sl_hash_groups_clear(sl_hash_groups *t)
{
	sl_arena *a = NULL;
	if (sl_arena_used(t->arena) > 0) { /* strings of the old keys */
		if ((a = sl_arena_new()) == NULL)
			return SL_ENOMEM;
		sl_arena_free(t->arena);
		t->arena = a;
	}
	if (t->n > 0)
		memset(t->slots, 0, (size_t)(t->mask + 1) * sizeof *t->slots);
	if (t->pfw > 0 && t->fw == 0) { /* a long string unpacked it */
		free_leaves(t);
		t->gcap = 0;
		t->fw = t->pfw;
	}
	t->n = 0;
	t->null_keys = false;
	return 0;
}

int64_t sl_hash_groups_count(const sl_hash_groups *t)
{
	return t->n;
}

size_t sl_hash_groups_bytes(const sl_hash_groups *t)
{
	size_t b = sizeof *t + (size_t)(t->mask + 1) * 8;
	int i;
	if (t->fw > 0)
		return b + (size_t)t->gcap * ((size_t)t->fw * 8 + 4);
	for (i = 0; i < t->nleaves; i++)
		b += (size_t)t->gcap * (size_t)(t->leaves[i].w + 1);
	return b + sl_arena_used(t->arena);
}

/* ------------------------------------------------------- flattening */

static sl_col *json_col(const sl_col *c)
{
	sl_col *o = sl_col_new(sl_type_prim(SL_STRING), c->len);
	sl_buf b;
	int64_t i;
	if (o == NULL)
		return NULL;
	sl_buf_init(&b);
	for (i = 0; i < c->len; i++) {
		int rc;
		if (sl_col_isnull(c, i)) {
			rc = sl_col_set_null(o, i);
		} else {
			sl_buf_clear(&b);
			sl_value_json(c, i, &b);
			rc = sl_col_set_str(o, i, sl_buf_cstr(&b), b.len);
		}
		if (rc < 0) {
			sl_col_free(o);
			o = NULL;
			break;
		}
	}
	sl_buf_release(&b);
	return o;
}

/* Leaf columns of one batch; ARRAY leaves are new JSON columns listed in
 * own[] for the caller to free. */
static int flatten(const sl_col *c, sl_col **out, int *k, sl_col **own,
		   int *nown)
{
	int i;
	if (c->type->kind == SL_ARRAY) {
		out[*k] = json_col(c);
		if (out[*k] == NULL)
			return SL_ENOMEM;
		own[(*nown)++] = out[(*k)++];
		return 0;
	}
	out[(*k)++] = (sl_col *)c;
	if (c->type->kind == SL_STRUCT)
		for (i = 0; i < c->nchild; i++)
			if (flatten(c->child[i], out, k, own, nown) < 0)
				return SL_ENOMEM;
	return 0;
}

/* Fold leaf column c into h[0..n).  A NULL folds in HNULL whatever its
 * zeroed slot holds, so equal keys hash equally with or without a bitmap. */
#define HLOOP(X)                                                               \
	do {                                                                   \
		if (c->nulls == NULL)                                          \
			for (i = 0; i < n; i++)                                \
				h[i] = hmix(h[i], (X));                        \
		else                                                           \
			for (i = 0; i < n; i++)                                \
				h[i] = hmix(h[i], sl_col_isnull(c, i) ? HNULL  \
								      : (X));  \
	} while (0)

static void hash_leaf(const leaf *L, const sl_col *c, uint64_t *h, int64_t n)
{
	int64_t i;
	switch (L->kind) {
	case SL_BOOLEAN: HLOOP(sl_col_u8(c)[i]); break;
	case SL_INT: HLOOP((uint64_t)(int64_t)sl_col_i32(c)[i]); break;
	case SL_BIGINT: HLOOP((uint64_t)sl_col_i64(c)[i]); break;
	case SL_DOUBLE: HLOOP(dbl_bits(sl_col_f64(c)[i])); break;
	case SL_STRING:
		HLOOP(bytes_hash(sl_col_str(c)[i].p, sl_col_str(c)[i].len));
		break;
	default: HLOOP(1); break;
	}
}

static inline bool leaf_eq(const leaf *L, int64_t g, const sl_col *c, int64_t i)
{
	bool cn = sl_col_isnull(c, i), gn = L->nulls[g] != 0;
	if (cn || gn)
		return cn == gn;
	switch (L->kind) {
	case SL_BOOLEAN: return (uint8_t)L->vals[g] == sl_col_u8(c)[i];
	case SL_INT: return ((int32_t *)L->vals)[g] == sl_col_i32(c)[i];
	case SL_BIGINT: return ((int64_t *)L->vals)[g] == sl_col_i64(c)[i];
	case SL_DOUBLE:
		return dbl_bits(((double *)L->vals)[g]) ==
		       dbl_bits(sl_col_f64(c)[i]);
	case SL_STRING: {
		const sl_str *a = &((sl_str *)L->vals)[g],
			     *b = &sl_col_str(c)[i];
		return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
	}
	default: return true;
	}
}

static bool row_eq(const sl_hash_groups *t, int64_t g, sl_col *const *lc,
		   int64_t i)
{
	int k;
	for (k = 0; k < t->nleaves; k++)
		if (!leaf_eq(&t->leaves[k], g, lc[k], i))
			return false;
	return true;
}

/* ------------------------------------------------------ table growth */

static int grow_groups(sl_hash_groups *t)
{
	int64_t cap = t->gcap < 64 ? 64 : t->gcap + t->gcap / 2;
	int k;
	if (t->fw > 0) {
		uint64_t *kw = realloc(t->kw, (size_t)cap * (size_t)t->fw * 8);
		uint32_t *km;
		if (kw == NULL)
			return SL_ENOMEM;
		t->kw = kw;
		if ((km = realloc(t->km, (size_t)cap * 4)) == NULL)
			return SL_ENOMEM;
		t->km = km;
		t->gcap = cap;
		return 0;
	}
	for (k = 0; k < t->nleaves; k++) {
		leaf *L = &t->leaves[k];
		uint8_t *nu = realloc(L->nulls, (size_t)cap);
		if (nu == NULL)
			return SL_ENOMEM;
		L->nulls = nu;
		if (L->w > 0) {
			char *v = realloc(L->vals, (size_t)cap * (size_t)L->w);
			if (v == NULL)
				return SL_ENOMEM;
			L->vals = v;
		}
	}
	t->gcap = cap;
	return 0;
}

static inline uint32_t slot_hash(uint64_t v)
{
	return (uint32_t)(v >> 32);
}

static inline int64_t slot_gid(uint64_t v)
{
	return (int64_t)(uint32_t)v - 1;
}

static void slot_put(uint64_t *sl, uint64_t mask, uint32_t h32, int64_t g)
{
	uint64_t s = h32 & mask;
	while (sl[s] != 0)
		s = (s + 1) & mask;
	sl[s] = (uint64_t)h32 << 32 | (uint64_t)(g + 1);
}

static int grow_slots(sl_hash_groups *t)
{
	uint64_t cap = (t->mask + 1) * 2, mask = cap - 1, s;
	uint64_t *sl = calloc(cap, sizeof *sl);
	if (sl == NULL)
		return SL_ENOMEM;
	for (s = 0; s <= t->mask; s++)
		if (t->slots[s] != 0)
			slot_put(sl, mask, slot_hash(t->slots[s]),
				 slot_gid(t->slots[s]));
	free(t->slots);
	t->slots = sl;
	t->mask = mask;
	return 0;
}

/* Append the key of row i as a new group; returns its id or -1. */
static int64_t add_group(sl_hash_groups *t, sl_col *const *lc, int64_t i,
			 uint32_t h32)
{
	int64_t g = t->n;
	int k;
	if (g == t->gcap && grow_groups(t) < 0)
		return -1;
	if ((uint64_t)(g + 1) * 2 > t->mask + 1 && grow_slots(t) < 0)
		return -1;
	for (k = 0; k < t->nleaves; k++) {
		leaf *L = &t->leaves[k];
		const sl_col *c = lc[k];
		L->nulls[g] = sl_col_isnull(c, i);
		if (L->w == 0)
			continue;
		if (L->kind == SL_STRING) {
			sl_str v = sl_col_str(c)[i];
			if (!L->nulls[g] && v.len > 0) {
				v.p = sl_arena_dup(t->arena, v.p, v.len);
				if (v.p == NULL)
					return -1;
			} else {
				v.p = "";
				v.len = 0;
			}
			((sl_str *)L->vals)[g] = v;
		} else {
			memcpy(L->vals + g * L->w,
			       (const char *)c->data + i * L->w, (size_t)L->w);
		}
	}
	slot_put(t->slots, t->mask, h32, g);
	t->n++;
	return g;
}

/* ------------------------------------------------------ insert, find */

static bool any_null(sl_col *const *cols, int n, int64_t i)
{
	int k;
	for (k = 0; k < n; k++)
		if (sl_col_isnull(cols[k], i))
			return true;
	return false;
}

/* Specialised probe: one BIGINT/TIMESTAMP or INT leaf, no NULL rows. */
#define FAST_PROBE(T, V)                                                       \
	do {                                                                   \
		const T *kv = (const T *)L->vals;                              \
		for (i = 0; i < n; i++) {                                      \
			T x = (V)[i];                                          \
			uint32_t h32 =                                         \
			    fold(sl_hash_mix64(HSEED * HK1 + (uint64_t)(int64_t)x));  \
			uint64_t s = h32 & t->mask;                            \
			int64_t g = -1;                                        \
			uint64_t v;                                            \
			while ((v = t->slots[s]) != 0) {                       \
				if (slot_hash(v) == h32 &&                     \
				    !L->nulls[slot_gid(v)] &&                  \
				    kv[slot_gid(v)] == x) {                    \
					g = slot_gid(v);                       \
					break;                                 \
				}                                              \
				s = (s + 1) & t->mask;                         \
			}                                                      \
			if (g < 0 && insert) {                                 \
				g = add_group(t, lc, i, h32);                  \
				if (g < 0)                                     \
					return SL_ENOMEM;                      \
				kv = (const T *)L->vals;                       \
			}                                                      \
			gids[i] = (int32_t)g;                                  \
		}                                                              \
	} while (0)

static int probe_fast(sl_hash_groups *t, sl_col *const *lc, int64_t n,
		      bool insert, int32_t *gids)
{
	const leaf *L = &t->leaves[0];
	int64_t i;
	if (L->kind == SL_INT)
		FAST_PROBE(int32_t, sl_col_i32(lc[0]));
	else
		FAST_PROBE(int64_t, sl_col_i64(lc[0]));
	return 0;
}

/* a[0..n) == b[0..n), short strings without a call (see bytes_hash). */
static inline bool bytes_eq(const char *a, const char *b, uint32_t n)
{
	if (n >= 8 && n <= 16)
		return load64(a) == load64(b) &&
		       load64(a + n - 8) == load64(b + n - 8);
	if (n >= 4 && n < 8)
		return load32(a) == load32(b) &&
		       load32(a + n - 4) == load32(b + n - 4);
	return n == 0 || memcmp(a, b, n) == 0;
}

#define STR_CHUNK 256

/* Specialised probe: one STRING/BINARY leaf, no NULL rows.  Hashes a
 * chunk of rows first (the same hash as the generic path's), then probes
 * them; tables past L2 get the slot of a row 8 ahead prefetched. */
static int probe_str(sl_hash_groups *t, sl_col *const *lc, int64_t n,
		     bool insert, int32_t *gids)
{
	const leaf *L = &t->leaves[0];
	const sl_str *in = sl_col_str(lc[0]);
	uint32_t hh[STR_CHUNK];
	int64_t base, i, m, g;
	uint64_t v;
	for (base = 0; base < n; base += STR_CHUNK) {
		m = n - base < STR_CHUNK ? n - base : STR_CHUNK;
		for (i = 0; i < m; i++)
			hh[i] = fold(hmix(HSEED, bytes_hash(in[base + i].p,
							    in[base + i].len)));
		for (i = 0; i < m; i++) {
			sl_str x = in[base + i];
			uint32_t h32 = hh[i];
			uint64_t s = h32 & t->mask;
			if (i + 8 < m && t->mask > (UINT64_C(1) << 15))
				__builtin_prefetch(
				    &t->slots[hh[i + 8] & t->mask]);
			g = -1;
			while ((v = t->slots[s]) != 0) {
				const sl_str *k =
				    &((const sl_str *)L->vals)[slot_gid(v)];
				if (slot_hash(v) == h32 && k->len == x.len &&
				    !L->nulls[slot_gid(v)] &&
				    bytes_eq(k->p, x.p, x.len)) {
					g = slot_gid(v);
					break;
				}
				s = (s + 1) & t->mask;
			}
			if (g < 0 && insert &&
			    (g = add_group(t, lc, base + i, h32)) < 0)
				return SL_ENOMEM;
			gids[base + i] = (int32_t)g;
		}
	}
	return 0;
}

/* Rows [from, n) (from > 0: the rows before it were probed packed, then
 * a long string unpacked the table). */
static int probe(sl_hash_groups *t, sl_col *const *lc, int64_t from, int64_t n,
		 bool skip_nulls, bool insert, int32_t *gids)
{
	int64_t i, k, g;
	uint64_t v;
	if (n > t->hcap) {
		free(t->h);
		t->h = malloc((size_t)n * sizeof *t->h);
		if (t->h == NULL) {
			t->hcap = 0;
			return SL_ENOMEM;
		}
		t->hcap = n;
	}
	for (i = 0; i < n; i++)
		t->h[i] = HSEED;
	for (k = 0; k < t->nleaves; k++)
		hash_leaf(&t->leaves[k], lc[k], t->h, n);
	for (i = from; i < n; i++) {
		uint32_t h32 = fold(t->h[i]);
		uint64_t s = h32 & t->mask;
		if (skip_nulls && any_null(lc, t->nleaves, i)) {
			gids[i] = -1;
			continue;
		}
		g = -1;
		while ((v = t->slots[s]) != 0) {
			if (slot_hash(v) == h32 &&
			    row_eq(t, slot_gid(v), lc, i)) {
				g = slot_gid(v);
				break;
			}
			s = (s + 1) & t->mask;
		}
		if (g < 0 && insert && (g = add_group(t, lc, i, h32)) < 0)
			return SL_ENOMEM;
		gids[i] = (int32_t)g;
	}
	return 0;
}

/* ------------------------------------------------------ packed keys */

/* Rows are packed, hashed and probed CHUNK at a time, so the scratch
 * (CHUNK x (8 fw + 8) bytes) stays in L1 between the three passes. */
#define CHUNK 1024
/* Prefetch the slot of the row this far ahead, in tables past L2. */
#define PREFETCH_AHEAD 16
#define PREFETCH_MASK  ((UINT64_C(1) << 15) - 1)

static int packed_scratch(sl_hash_groups *t)
{
	if (t->pk != NULL)
		return 0;
	t->pk = malloc((size_t)CHUNK * (size_t)t->fw * 8);
	t->pm = malloc((size_t)CHUNK * 4);
	t->ph = malloc((size_t)CHUNK * 4);
	if (t->pk == NULL || t->pm == NULL || t->ph == NULL) {
		free(t->pk);
		t->pk = NULL;
		return SL_ENOMEM;
	}
	return 0;
}

/* Rows [base, base + n) of leaf column c (leaf k) into word L->word of
 * pk[0..n) and bit k of pm[0..n). */
#define PACK_LOOP(T)                                                           \
	do {                                                                   \
		const T *x = (const T *)c->data + base;                        \
		for (i = 0; i < n; i++)                                        \
			pk[i * fw] = (uint64_t)(int64_t)x[i];                  \
		for (i = 0; c->nulls != NULL && i < n; i++)                    \
			if (sl_col_isnull(c, base + i)) {                      \
				pk[i * fw] = 0;                                \
				pm[i] |= bit;                                  \
			}                                                      \
	} while (0)

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "packed strings are little-endian words");

/* String p[0..n), n <= STR_MAX, as words w[0..STR_WORDS): its bytes in
 * order, zero padded, n in the last word's top byte, so two strings are
 * equal exactly when their words are (the length tells "a" from "a\0").
 * Reads only p[0..n): a tail is an overlapping load, as in bytes_hash.
 * Written for two words (no loop, no store at a variable index). */
_Static_assert(STR_WORDS == 2, "str_words packs two words");
static inline void str_words(const char *p, uint32_t n, uint64_t *w)
{
	uint64_t a, b = (uint64_t)n << 56;
	if (n >= 8) {
		a = load64(p);
		if (n > 8)
			b |= load64(p + n - 8) >> (8 * (16 - n));
	} else if (n >= 4) {
		a = load32(p) | load32(p + n - 4) << (8 * (n - 4));
	} else if (n > 0) {
		a = (uint64_t)(unsigned char)p[0] |
		    (uint64_t)(unsigned char)p[n >> 1] << (8 * (n >> 1)) |
		    (uint64_t)(unsigned char)p[n - 1] << (8 * (n - 1));
	} else {
		a = 0;
	}
	w[0] = a;
	w[1] = b;
}

/* The length and bytes of a string packed by str_words. */
static inline uint32_t words_len(const uint64_t *w)
{
	return (uint32_t)(w[STR_WORDS - 1] >> 56);
}

/* Rows [base, base + n) of STRING leaf column c into words L->word.. of
 * pk[0..n); false when a string is longer than STR_MAX (the chunk is then
 * not probed packed, so the rows after it need not be packed). */
static bool pack_strs(const sl_col *c, int64_t base, int64_t n, int64_t fw,
		      uint64_t *pk, uint32_t *pm, uint32_t bit)
{
	const sl_str *x = sl_col_str(c) + base;
	int64_t i;
	int j;
	for (i = 0; i < n; i++) {
		if (c->nulls != NULL && sl_col_isnull(c, base + i)) {
			for (j = 0; j < STR_WORDS; j++)
				pk[i * fw + j] = 0;
			pm[i] |= bit;
		} else if (x[i].len > STR_MAX) {
			return false;
		} else {
			str_words(x[i].p, x[i].len, pk + i * fw);
		}
	}
	return true;
}

/* Pack leaf k's rows [base, base + n); false on a string too long. */
static bool pack_leaf(const sl_hash_groups *t, int k, const sl_col *c,
		      int64_t base, int64_t n)
{
	const leaf *L = &t->leaves[k];
	int64_t i, fw = t->fw;
	uint32_t *pm = t->pm, bit = UINT32_C(1) << k;
	uint64_t *pk = t->pk + (L->word < 0 ? 0 : L->word);
	switch (L->kind) {
	case SL_BOOLEAN: PACK_LOOP(uint8_t); break;
	case SL_INT: PACK_LOOP(int32_t); break;
	case SL_BIGINT: PACK_LOOP(int64_t); break;
	case SL_STRING: return pack_strs(c, base, n, fw, pk, pm, bit);
	default: /* a STRUCT's null flag */
		for (i = 0; c->nulls != NULL && i < n; i++)
			if (sl_col_isnull(c, base + i))
				pm[i] |= bit;
		break;
	}
	return true;
}

/* The words' products by distinct odd constants are independent (no
 * chain of dependent multiplies per row), then one mixing round. */
static inline uint32_t words_hash(const uint64_t *w, int fw, uint32_t m)
{
	uint64_t h = (w[0] ^ m) * UINT64_C(0x9E3779B97F4A7C15);
	if (fw > 1)
		h ^= w[1] * UINT64_C(0xC2B2AE3D27D4EB4F);
	if (fw > 2)
		h ^= w[2] * UINT64_C(0x165667B19E3779F9);
	if (fw > 3)
		h ^= w[3] * UINT64_C(0x85EBCA77C2B2AE63);
	h ^= h >> 32;
	h *= UINT64_C(0xff51afd7ed558ccd);
	return fold(h ^ (h >> 29));
}

static inline __attribute__((always_inline)) void hash_chunk(sl_hash_groups *t,
							     int64_t n, int fw)
{
	int64_t i;
	for (i = 0; i < n; i++)
		t->ph[i] = words_hash(t->pk + i * fw, fw, t->pm[i]);
}

#define PACK_NULLS 1 /* a row of the chunk has a NULL */
#define PACK_LONG  2 /* a string is longer than STR_MAX: not packed */

/* Pack and hash rows [base, base + n); PACK_* flags. */
static int pack_chunk(sl_hash_groups *t, sl_col *const *lc, int64_t base,
		      int64_t n)
{
	int64_t i;
	int k;
	uint32_t any = 0;
	memset(t->pm, 0, (size_t)n * 4);
	for (k = 0; k < t->nleaves; k++)
		if (!pack_leaf(t, k, lc[k], base, n))
			return PACK_LONG;
	for (i = 0; i < n; i++)
		any |= t->pm[i];
	switch (t->fw) {
	case 1: hash_chunk(t, n, 1); break;
	case 2: hash_chunk(t, n, 2); break;
	case 3: hash_chunk(t, n, 3); break;
	default: hash_chunk(t, n, 4); break;
	}
	return any != 0 ? PACK_NULLS : 0;
}

/* Room for one more group of add_packed: the group arrays and the
 * slots grown as needed; returns the empty slot for hash h32 (s, or found
 * again when the slots moved), UINT64_MAX when out of memory.  Out of
 * line: add_packed itself then needs no saved registers. */
static __attribute__((noinline)) uint64_t packed_room(sl_hash_groups *t,
						      uint32_t h32, uint64_t s)
{
	if (t->n == t->gcap && grow_groups(t) < 0)
		return UINT64_MAX;
	if ((uint64_t)(t->n + 1) * 2 > t->mask + 1) {
		if (grow_slots(t) < 0)
			return UINT64_MAX;
		s = h32 & t->mask; /* the slots moved: probe again */
		while (t->slots[s] != 0)
			s = (s + 1) & t->mask;
	}
	return s;
}

/* Add the group of key words w whose probe ended at the empty slot s
 * (kept out of the probe loops: inlined, it slowed the loops that find
 * existing groups). */
static __attribute__((noinline)) int64_t add_packed(sl_hash_groups *t,
						    const uint64_t *w,
						    uint32_t m, uint32_t h32,
						    uint64_t s)
{
	int64_t g = t->n;
	uint64_t *kw;
	if ((g == t->gcap || (uint64_t)(g + 1) * 2 > t->mask + 1) &&
	    (s = packed_room(t, h32, s)) == UINT64_MAX)
		return -1;
	kw = t->kw + g * t->fw;
	switch (t->fw) {      /* at most 4 words: no loop, no memcpy call */
	case 4: kw[3] = w[3]; /* fall through */
	case 3: kw[2] = w[2]; /* fall through */
	case 2: kw[1] = w[1]; /* fall through */
	default: kw[0] = w[0]; break;
	}
	t->km[g] = m;
	t->null_keys |= m != 0;
	t->slots[s] = (uint64_t)h32 << 32 | (uint64_t)(g + 1);
	t->n++;
	return g;
}

/* Key words a == b, for a word count known at compile time. */
static inline bool words_eq(const uint64_t *a, const uint64_t *b, int fw)
{
	uint64_t d = a[0] ^ b[0];
	if (fw > 1)
		d |= a[1] ^ b[1];
	if (fw > 2)
		d |= a[2] ^ b[2];
	if (fw > 3)
		d |= a[3] ^ b[3];
	return d == 0;
}

/* Probe the chunk's n packed rows; gids[0..n).  Always inlined with a
 * constant fw, so each word count gets its own unrolled loop.  nulls: the
 * chunk has NULLs; while neither the chunk nor the table has one, every
 * mask is 0 and is not compared. */
static inline __attribute__((always_inline)) int
probe_chunk(sl_hash_groups *t, int64_t n, int fw, bool nulls, bool skip_nulls,
	    bool insert, int32_t *gids)
{
	const uint64_t *pk = t->pk;
	const uint32_t *ph = t->ph, *pm = t->pm;
	bool pf = t->mask > PREFETCH_MASK, masks = nulls || t->null_keys;
	int64_t i, g;
	for (i = 0; i < n; i++) {
		const uint64_t *w = pk + i * fw;
		uint32_t h32 = ph[i], m = pm[i];
		uint64_t s = h32 & t->mask, v;
		if (pf && i + PREFETCH_AHEAD < n)
			__builtin_prefetch(
			    &t->slots[ph[i + PREFETCH_AHEAD] & t->mask]);
		if (skip_nulls && m != 0) {
			gids[i] = -1;
			continue;
		}
		g = -1;
		while ((v = t->slots[s]) != 0) {
			if (slot_hash(v) == h32 &&
			    words_eq(t->kw + slot_gid(v) * fw, w, fw) &&
			    (!masks || t->km[slot_gid(v)] == m)) {
				g = slot_gid(v);
				break;
			}
			s = (s + 1) & t->mask;
		}
		if (g < 0 && insert && (g = add_packed(t, w, m, h32, s)) < 0)
			return SL_ENOMEM;
		gids[i] = (int32_t)g;
	}
	return 0;
}

/* The per-leaf hash of group g (probe's, from the stored leaves). */
static uint32_t group_hash(const sl_hash_groups *t, int64_t g)
{
	uint64_t h = HSEED, x;
	int k;
	for (k = 0; k < t->nleaves; k++) {
		const leaf *L = &t->leaves[k];
		if (L->nulls[g]) {
			x = HNULL;
		} else {
			switch (L->kind) {
			case SL_BOOLEAN: x = (uint8_t)L->vals[g]; break;
			case SL_INT:
				x = (uint64_t)(int64_t)((int32_t *)L->vals)[g];
				break;
			case SL_BIGINT:
				x = (uint64_t)((int64_t *)L->vals)[g];
				break;
			case SL_STRING:
				x = bytes_hash(((sl_str *)L->vals)[g].p,
					       ((sl_str *)L->vals)[g].len);
				break;
			default: x = 1; break; /* a STRUCT's flag */
			}
		}
		h = hmix(h, x);
	}
	return fold(h);
}

/* Packed group g's leaves into the per-leaf arrays; SL_ENOMEM. */
static int unpack_group(sl_hash_groups *t, int64_t g)
{
	const uint64_t *w = t->kw + g * t->fw;
	int k;
	for (k = 0; k < t->nleaves; k++) {
		leaf *L = &t->leaves[k];
		bool nu = (t->km[g] >> k) & 1;
		sl_str v = { "", 0 };
		L->nulls[g] = nu;
		switch (L->kind) {
		case SL_BOOLEAN: L->vals[g] = (char)w[L->word]; break;
		case SL_INT:
			((int32_t *)L->vals)[g] = (int32_t)(int64_t)w[L->word];
			break;
		case SL_BIGINT:
			((int64_t *)L->vals)[g] = (int64_t)w[L->word];
			break;
		case SL_STRING:
			v.len = words_len(w + L->word);
			if (!nu && v.len > 0)
				v.p = sl_arena_dup(t->arena,
						   (const char *)(w + L->word),
						   v.len);
			if (v.p == NULL)
				return SL_ENOMEM;
			((sl_str *)L->vals)[g] = v;
			break;
		default: break;
		}
	}
	return 0;
}

/* A string longer than STR_MAX came: move the packed groups to the
 * per-leaf layout, the same ids in the same order, their slots rehashed
 * with the per-leaf hash, for probe() to go on from the row it stopped at.
 * The table stays per-leaf until it is cleared.  SL_ENOMEM leaves it
 * packed. */
static int unpack_table(sl_hash_groups *t)
{
	size_t cap = (size_t)t->gcap;
	int64_t g;
	int k;
	for (k = 0; k < t->nleaves && cap > 0; k++) {
		leaf *L = &t->leaves[k];
		if ((L->nulls = malloc(cap)) == NULL ||
		    (L->w > 0 &&
		     (L->vals = malloc(cap * (size_t)L->w)) == NULL))
			goto nomem;
	}
	for (g = 0; g < t->n; g++)
		if (unpack_group(t, g) < 0)
			goto nomem;
	memset(t->slots, 0, (size_t)(t->mask + 1) * sizeof *t->slots);
	for (g = 0; g < t->n; g++)
		slot_put(t->slots, t->mask, group_hash(t, g), g);
	free(t->kw);
	free(t->km);
	t->kw = NULL;
	t->km = NULL;
	t->fw = 0;
	return 0;
nomem:
	free_leaves(t);
	return SL_ENOMEM;
}

bool sl_hash_groups_packed(const sl_hash_groups *t)
{
	return t->fw > 0;
}

int sl_hash_groups_unpack(sl_hash_groups *t)
{
	return t->fw > 0 ? unpack_table(t) : 0;
}

static int probe_packed(sl_hash_groups *t, sl_col *const *lc, int64_t n,
			bool skip_nulls, bool insert, int32_t *gids)
{
	int64_t base, m;
	int32_t *gi;
	int rc = 0, f;
	bool nu, sk;
	if (packed_scratch(t) < 0)
		return SL_ENOMEM;
	for (base = 0; base < n && rc == 0; base += CHUNK) {
		m = n - base < CHUNK ? n - base : CHUNK;
		if ((f = pack_chunk(t, lc, base, m)) & PACK_LONG) {
			if (unpack_table(t) < 0)
				return SL_ENOMEM;
			return probe(t, lc, base, n, skip_nulls, insert, gids);
		}
		nu = (f & PACK_NULLS) != 0;
		sk = nu && skip_nulls;
		gi = gids + base;
		switch (t->fw) {
		case 1: rc = probe_chunk(t, m, 1, nu, sk, insert, gi); break;
		case 2: rc = probe_chunk(t, m, 2, nu, sk, insert, gi); break;
		case 3: rc = probe_chunk(t, m, 3, nu, sk, insert, gi); break;
		default: rc = probe_chunk(t, m, 4, nu, sk, insert, gi); break;
		}
	}
	return rc;
}

static int lookup(sl_hash_groups *t, sl_col *const *cols, int64_t n,
		  bool skip_nulls, bool insert, int32_t *gids, sl_err *err)
{
	sl_col **lc = calloc((size_t)t->nleaves + 1, sizeof *lc);
	sl_col **own = calloc((size_t)t->nleaves + 1, sizeof *own);
	int k = 0, nown = 0, i, rc = SL_ENOMEM;
	if (lc == NULL || own == NULL)
		goto out;
	for (i = 0; i < t->nkeys; i++)
		if (flatten(cols[i], lc, &k, own, &nown) < 0)
			goto out;
	if (t->fw > 0)
		rc = probe_packed(t, lc, n, skip_nulls, insert, gids);
	else if (t->nleaves == 1 && lc[0]->nulls == NULL &&
		 (t->leaves[0].kind == SL_INT ||
		  t->leaves[0].kind == SL_BIGINT))
		rc = probe_fast(t, lc, n, insert, gids);
	else if (t->nleaves == 1 && lc[0]->nulls == NULL &&
		 t->leaves[0].kind == SL_STRING)
		rc = probe_str(t, lc, n, insert, gids);
	else
		rc = probe(t, lc, 0, n, skip_nulls, insert, gids);
out:
	for (i = 0; i < nown; i++)
		sl_col_free(own[i]);
	free(lc);
	free(own);
	if (rc < 0)
		sl_err_nomem(err);
	return rc;
}

int sl_hash_groups_insert(sl_hash_groups *t, sl_col *const *cols, int64_t n,
			  bool skip_nulls, int32_t *gids, sl_err *err)
{
	return lookup(t, cols, n, skip_nulls, true, gids, err);
}

int sl_hash_groups_find(sl_hash_groups *t, sl_col *const *cols, int64_t n,
			bool skip_nulls, int32_t *gids, sl_err *err)
{
	return lookup(t, cols, n, skip_nulls, false, gids, err);
}

/* ------------------------------------------------------- key output */

/* Is leaf k of group g NULL, in either layout. */
static inline bool leaf_null(const sl_hash_groups *t, int k, int64_t g)
{
	if (t->fw > 0)
		return (t->km[g] >> k) & 1;
	return t->leaves[k].nulls[g] != 0;
}

/* Values of packed leaf L for groups [from, from + n) into c. */
static void unpack_vals(const sl_hash_groups *t, const leaf *L, sl_col *c,
			int64_t from, int64_t n)
{
	const uint64_t *w = t->kw + from * t->fw + L->word;
	int64_t i, fw = t->fw;
	switch (L->kind) {
	case SL_BOOLEAN:
		for (i = 0; i < n; i++)
			sl_col_u8(c)[i] = (uint8_t)w[i * fw];
		break;
	case SL_INT:
		for (i = 0; i < n; i++)
			sl_col_i32(c)[i] = (int32_t)(int64_t)w[i * fw];
		break;
	default:
		for (i = 0; i < n; i++)
			sl_col_i64(c)[i] = (int64_t)w[i * fw];
		break;
	}
}

static sl_col *leaf_col(const sl_hash_groups *t, int *k, sl_type *type,
			int64_t from, int64_t n)
{
	int lk = *k;
	const leaf *L = &t->leaves[(*k)++];
	/* values written below for every row need no zeroing first */
	bool full = type->kind == SL_STRUCT ||
		    (L->kind != SL_STRING && (t->fw > 0 || L->w > 0));
	sl_col *c = full ? sl_col_new_raw(type, n) : sl_col_new(type, n);
	int64_t i;
	int f;
	if (c == NULL)
		return NULL;
	if (type->kind == SL_STRUCT) {
		for (f = 0; f < c->nchild; f++) {
			sl_col_free(c->child[f]);
			c->child[f] =
			    leaf_col(t, k, type->fields[f].type, from, n);
			if (c->child[f] == NULL)
				goto fail;
		}
	} else if (L->kind == SL_STRING && t->fw > 0) {
		const uint64_t *w = t->kw + from * t->fw + L->word;
		for (i = 0; i < n; i++, w += t->fw)
			if (!leaf_null(t, lk, from + i) &&
			    sl_col_set_str(c, i, (const char *)w,
					   words_len(w)) < 0)
				goto fail;
	} else if (L->kind == SL_STRING) {
		const sl_str *v = (const sl_str *)L->vals + from;
		for (i = 0; i < n; i++)
			if (!L->nulls[from + i] &&
			    sl_col_set_str(c, i, v[i].p, v[i].len) < 0)
				goto fail;
	} else if (t->fw > 0) {
		unpack_vals(t, L, c, from, n);
	} else if (L->w > 0 && n > 0) {
		memcpy(c->data, L->vals + from * L->w, (size_t)(n * L->w));
	}
	if (t->fw > 0 && !t->null_keys) /* packed keys without a NULL */
		return c;
	for (i = 0; i < n; i++)
		if (leaf_null(t, lk, from + i) && type->kind != SL_NULLTYPE &&
		    sl_col_set_null(c, i) < 0)
			goto fail;
	return c;
fail:
	sl_col_free(c);
	return NULL;
}

sl_col *sl_hash_groups_key(const sl_hash_groups *t, int key, int64_t from,
			   int64_t n, sl_err *err)
{
	int k = 0, i;
	sl_col *c;
	assert(key >= 0 && key < t->nkeys);
	assert(from >= 0 && n >= 0 && from + n <= t->n);
	if (!sl_type_keyable(t->types[key])) {
		sl_err_set(err, SL_EINTERNAL,
			   "hash: ARRAY keys are not stored");
		return NULL;
	}
	for (i = 0; i < key; i++)
		k += count_leaves(t->types[i]);
	c = leaf_col(t, &k, t->types[key], from, n);
	if (c == NULL)
		sl_err_nomem(err);
	return c;
}

/* ------------------------------------------------ key encoding */

static int64_t encode_packed(const sl_hash_groups *t, int64_t from, int64_t n,
			     unsigned char *p)
{
	int64_t i, w = 0, fw = t->fw, at = 0;
	int k;
	for (k = 0; k < t->nleaves; k++)
		w += 1 + t->leaves[k].w;
	for (k = 0; k < t->nleaves; k++) {
		const leaf *L = &t->leaves[k];
		const uint64_t *x =
		    t->kw + from * fw + (L->word < 0 ? 0 : L->word);
		unsigned char *q = p + at;
		/* the flag byte and the value in one pass per leaf */
		switch (L->kind) {
		case SL_BOOLEAN:
			for (i = 0; i < n; i++) {
				q[i * w] = 1;
				q[i * w + 1] = x[i * fw] != 0;
			}
			break;
		case SL_INT:
			for (i = 0; i < n; i++) {
				q[i * w] = 1;
				store_be32(q + i * w + 1,
					   (uint32_t)x[i * fw] ^
					       UINT32_C(0x80000000));
			}
			break;
		case SL_BIGINT:
			for (i = 0; i < n; i++) {
				q[i * w] = 1;
				store_be64(q + i * w + 1,
					   x[i * fw] ^ (UINT64_C(1) << 63));
			}
			break;
		default: /* a STRUCT's flag */
			for (i = 0; i < n; i++)
				q[i * w] = 1;
			break;
		}
		at += 1 + L->w;
	}
	return w;
}

/* A packed string's key bytes: each 0x00 as 00 FF, then 00 01 (at most
 * 2 STR_MAX + 2 bytes). */
static size_t encode_str(unsigned char *q, const unsigned char *s, uint32_t n)
{
	size_t at = 0;
	uint32_t j;
	for (j = 0; j < n; j++) {
		q[at++] = s[j];
		if (s[j] == 0)
			q[at++] = 0xff;
	}
	q[at++] = 0;
	q[at++] = 1;
	return at;
}

/* Bytes an encoded key of t takes at most (packed, no NULLs). */
static int64_t packed_max_width(const sl_hash_groups *t)
{
	int64_t w = 0;
	int k;
	for (k = 0; k < t->nleaves; k++)
		w += 1 + (t->leaves[k].kind == SL_STRING ? 2 * STR_MAX + 2
							 : t->leaves[k].w);
	return w;
}

/* Packed keys with strings and no NULLs, a group at a time (a string's
 * width varies): the bytes of sl_hash_key_encode, p[off[i] - base ..]. */
static int64_t encode_packed_strs(const sl_hash_groups *t, int64_t from,
				  int64_t n, unsigned char *p, int64_t base,
				  int64_t *off)
{
	int64_t i, at = 0;
	int k;
	for (i = 0; i < n; i++) {
		const uint64_t *w = t->kw + (from + i) * t->fw;
		off[i] = base + at;
		for (k = 0; k < t->nleaves; k++) {
			const leaf *L = &t->leaves[k];
			const uint64_t *x = w + (L->word < 0 ? 0 : L->word);
			p[at++] = 1;
			switch (L->kind) {
			case SL_BOOLEAN: p[at++] = *x != 0; break;
			case SL_INT:
				store_be32(p + at,
					   (uint32_t)*x ^ UINT32_C(0x80000000));
				at += 4;
				break;
			case SL_BIGINT:
				store_be64(p + at, *x ^ (UINT64_C(1) << 63));
				at += 8;
				break;
			case SL_STRING:
				at += (int64_t)encode_str(
				    p + at, (const unsigned char *)x,
				    words_len(x));
				break;
			default: break; /* a STRUCT's flag */
			}
		}
	}
	off[n] = base + at;
	return at;
}

int sl_hash_groups_encode(const sl_hash_groups *t, int64_t from, int64_t n,
			  sl_buf *out, int64_t *off, sl_err *err)
{
	int64_t i, base = (int64_t)out->len, w;
	sl_col **kc;
	int k, rc = 0;
	if (t->fw > 0 && !t->null_keys && t->strs) {
		if (!sl_buf_reserve(out, (size_t)(n * packed_max_width(t))))
			return sl_err_nomem(err);
		out->len += (size_t)encode_packed_strs(
		    t, from, n, (unsigned char *)out->p + base, base, off);
		out->p[out->len] = '\0';
		return 0;
	}
	if (t->fw > 0 && !t->null_keys) {
		for (k = 0, w = 0; k < t->nleaves; k++)
			w += 1 + t->leaves[k].w;
		if (!sl_buf_reserve(out, (size_t)(n * w)))
			return sl_err_nomem(err);
		w = encode_packed(t, from, n, (unsigned char *)out->p + base);
		for (i = 0; i <= n; i++)
			off[i] = base + i * w;
		out->len += (size_t)(n * w);
		out->p[out->len] = '\0';
		return 0;
	}
	if ((kc = calloc((size_t)t->nkeys + 1, sizeof *kc)) == NULL)
		return sl_err_nomem(err);
	for (k = 0; k < t->nkeys && rc == 0; k++)
		if ((kc[k] = sl_hash_groups_key(t, k, from, n, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
	if (rc == 0 && sl_hash_keys_encode(kc, t->nkeys, n, out, off) < 0)
		rc = sl_err_nomem(err);
	for (k = 0; k < t->nkeys; k++)
		sl_col_free(kc[k]);
	free(kc);
	return rc;
}
