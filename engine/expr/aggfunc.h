/*
 * aggfunc: the aggregate functions by name (count, sum, avg/mean, min, max,
 * first, last, approx_count_distinct, collect_list, count_distinct,
 * min_by, max_by; case-insensitive) and their result types: the analysis
 * side of aggregation, which the plan asks (plan/plan_agg.c) and the
 * aggregate state (exec/agg.c) shares.
 */
#ifndef SL_AGGFUNC_H
#define SL_AGGFUNC_H

#include "core/err.h"
#include "core/type.h"

typedef enum sl_aggfn {
	SL_AGGFN_COUNT,
	SL_AGGFN_SUM,
	SL_AGGFN_AVG,
	SL_AGGFN_MIN,
	SL_AGGFN_MAX,
	SL_AGGFN_FIRST,
	SL_AGGFN_LAST,
	SL_AGGFN_APPROX,
	SL_AGGFN_COLLECT,
	SL_AGGFN_MINBY,
	SL_AGGFN_MAXBY
} sl_aggfn;

/* The function named fname (canonical or an alias: mean, count_distinct),
 * or -1. */
int sl_aggfn_of(const char *fname);

/* Result type of aggregate fname (canonical: count, sum, avg, min, max,
 * first, last, approx_count_distinct, collect_list, min_by, max_by) over
 * argument types (nargs 0 for count(*)); new reference, or NULL with
 * SL_EANALYSIS "cannot resolve 'sql' due to data type mismatch: ..."
 * (Spark's sentence), or "undefined function 'f'". */
sl_type *sl_aggfn_result_type(const char *fname, sl_type *const *argtypes,
			      int nargs, const char *sql, sl_err *err);

#endif
