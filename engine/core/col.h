/*
 * col: a typed column vector, the unit every operator works on.
 *
 * Deliberately transparent (like Lua's TValue or Arrow's C data interface):
 * hot loops index `data` directly.  Layout by kind:
 *   BOOLEAN   uint8_t[len] (0/1)      INT       int32_t[len]
 *   BIGINT    int64_t[len]            DOUBLE    double[len]
 *   TIMESTAMP int64_t[len] (microseconds UTC)
 *   STRING, BINARY  sl_str[len], bytes in `arena`
 *   STRUCT    child[nchild] columns of the same len, data NULL
 *   ARRAY     offsets int32_t[len+1] into child[0] (the elements)
 *   NULLTYPE  no data; every row null
 * Nulls: `nulls` is a bitmap, bit i set = row i is NULL; nulls == NULL
 * means no row is null.  The value slot of a null row is zeroed.
 *
 * Ownership: columns are reference counted.  A batch holds one reference
 * per column; sl_col_ref shares a column between batches (projection of a
 * plain column reference costs nothing).  A column is immutable once it is
 * shared (refs > 1).  String bytes live in `arena`, which gathered copies
 * (sl_col_take) share rather than copy.  `type` is a counted reference.
 * A view (sl_col_view) reads another column's data and nulls: `base`
 * holds a reference to that column, which owns them; a view is never
 * mutated.
 */
#ifndef SL_COL_H
#define SL_COL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/err.h"

typedef struct sl_type sl_type;

typedef struct sl_str {
	const char *p;
	uint32_t len;
} sl_str;

/* Event-time statistics of a TIMESTAMP column over its non-NULL rows, in
 * whole milliseconds (each value / 1000, truncated, as Spark's
 * EventTimeStats reads them), when the code that wrote the column worked
 * them out in the same loop (the rate source, whose timestamps are whole
 * milliseconds): op_watermark then takes them instead of a pass over the
 * rows.  set false: not known (every new column, copies and gathers
 * included).  Code that changes a value after setting them clears set
 * (sl_col_set_null does). */
typedef struct sl_col_tstats {
	bool set;
	int64_t min_ms, max_ms, sum_ms, count;
} sl_col_tstats;

typedef struct sl_col sl_col;
struct sl_col {
	sl_type *type;
	int64_t len;
	uint8_t *nulls;
	void *data;
	int32_t *offsets;
	int nchild;
	sl_col **child;
	sl_arena *arena;
	int refs;
	sl_col_tstats tstats;
	sl_col *base; /* a view's: owns data and nulls; NULL otherwise */
};

/* New column of len rows, values zeroed, no nulls.  For STRUCT the children
 * are created too; for ARRAY offsets are zeroed and child[0] has 0 rows
 * (build arrays with sl_col_array_new).  Takes a reference to type. */
sl_col *sl_col_new(sl_type *type, int64_t len);
/* As sl_col_new, but the values of fixed-width, STRING and BINARY
 * columns (and of a STRUCT's such fields) are NOT zeroed: for kernels
 * that write every row (the caller must, and must zero the slots of rows
 * it marks NULL: sl_col_set_null does). */
sl_col *sl_col_new_raw(sl_type *type, int64_t len);
/* A column of len rows that are all NULL. */
sl_col *sl_col_new_null(sl_type *type, int64_t len);
/* Array column from offsets (len+1 entries, copied) and an element column
 * (ownership taken). */
sl_col *sl_col_array_new(sl_type *type, int64_t len, const int32_t *offsets,
			 sl_col *elems);
/* A view of c (borrowed; it keeps a reference) as `type`, which has c's
 * layout (BINARY <-> STRING: CAST without copying): the same rows, nulls
 * and bytes, none of them copied; they stay valid after the caller frees
 * c.  Never to be mutated (sl_col_set_null, sl_col_set_str assert it).
 * NULL on out of memory. */
sl_col *sl_col_view(const sl_col *c, sl_type *type);
sl_col *sl_col_ref(sl_col *c);
/* Drop one reference; frees at zero.  Accepts NULL. */
void sl_col_free(sl_col *c);

static inline bool sl_col_isnull(const sl_col *c, int64_t i)
{
	return c->nulls != NULL && (c->nulls[i >> 3] >> (i & 7)) & 1;
}
/* Mark row i null (allocating the bitmap on first use) and zero its slot.
 * Returns 0 or SL_ENOMEM. */
int sl_col_set_null(sl_col *c, int64_t i);
/* Number of null rows. */
int64_t sl_col_null_count(const sl_col *c);

static inline int32_t *sl_col_i32(const sl_col *c)
{
	return (int32_t *)c->data;
}
static inline int64_t *sl_col_i64(const sl_col *c)
{
	return (int64_t *)c->data;
}
static inline double *sl_col_f64(const sl_col *c)
{
	return (double *)c->data;
}
static inline uint8_t *sl_col_u8(const sl_col *c)
{
	return (uint8_t *)c->data;
}
static inline sl_str *sl_col_str(const sl_col *c)
{
	return (sl_str *)c->data;
}

/* Copy n bytes into the column's arena and store them at row i (STRING or
 * BINARY).  Returns 0 or SL_ENOMEM. */
int sl_col_set_str(sl_col *c, int64_t i, const char *p, size_t n);
/* Copy row r of src into row i of c (the same primitive type, or src of
 * NULLTYPE: a NULL); strings are copied into c's arena.  0, SL_ENOMEM, or
 * SL_EINVAL for STRUCT and ARRAY columns. */
int sl_col_copy_row(sl_col *c, int64_t i, const sl_col *src, int64_t r);

/* New column with rows idx[0..n) of c (gather).  idx[k] < 0 gives a NULL
 * row (used by outer joins).  Shares c's arena. */
sl_col *sl_col_take(const sl_col *c, const int64_t *idx, int64_t n);
/* New column with the rows of c whose sel[i] is nonzero (filter). */
sl_col *sl_col_filter(const sl_col *c, const uint8_t *sel, int64_t nsel);
/* Rows [off, off+n) as a new column. */
sl_col *sl_col_slice(const sl_col *c, int64_t off, int64_t n);
/* Row i of srcs[pick[i]] for i in [0, n) (pick[i] < 0: a NULL row): the
 * value of CASE, IF and coalesce over any type.  Every source is n rows
 * long and borrowed; a source some row picks is of `type` or of NULLTYPE
 * (a NULL), the others are not read (CASE's conditions); strings are
 * copied (primitive types) or shared (nested ones, gathered with
 * sl_col_take from the sources' concatenation).  NULL on out of memory. */
sl_col *sl_col_pick(sl_type *type, sl_col *const *srcs, int nsrc,
		    const int *pick, int64_t n);
/* Concatenate cols[0..n) (same type) into one new column; strings are
 * copied into a fresh arena. */
sl_col *sl_col_concat(sl_col *const *cols, int n);
/* A fresh private copy (refs 1) that may be mutated. */
sl_col *sl_col_copy(const sl_col *c);
/* New column: row i of a, or of b where a's row is NULL (a and b of one
 * type and length, borrowed; a FULL OUTER USING join's key).  NULL when
 * out of memory. */
sl_col *sl_col_coalesce(sl_col *a, sl_col *b);
/* Drop one reference of each of c[0..n) and free the array (c may be
 * NULL, and so may its entries). */
void sl_cols_free(sl_col **c, int n);

/* Order of rows c[i] and d[j] (columns of one type): <0, 0 or >0, as
 * Spark's interpreted ordering (ascending: NULL first, NaN above every
 * double, strings bytewise, structs field by field, arrays element by
 * element then by length).  sl_col_cmp_value assumes both rows non-null. */
int sl_col_cmp(const sl_col *c, int64_t i, const sl_col *d, int64_t j);
int sl_col_cmp_value(const sl_col *c, int64_t i, const sl_col *d, int64_t j);

/* Bytes used by the column (data, bitmap, strings): memory accounting. */
size_t sl_col_bytes(const sl_col *c);

#endif
