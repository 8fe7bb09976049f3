/*
 * aggfunc: aggregate function names and result types (see aggfunc.h).
 */
#include "expr/aggfunc.h"

#include <strings.h>

#include "core/buf.h"

static const struct {
	const char *name;
	sl_aggfn fn;
} fnames[] = {
	{ "count", SL_AGGFN_COUNT },
	{ "sum", SL_AGGFN_SUM },
	{ "avg", SL_AGGFN_AVG },
	{ "mean", SL_AGGFN_AVG },
	{ "min", SL_AGGFN_MIN },
	{ "max", SL_AGGFN_MAX },
	{ "first", SL_AGGFN_FIRST },
	{ "last", SL_AGGFN_LAST },
	{ "approx_count_distinct", SL_AGGFN_APPROX },
	{ "collect_list", SL_AGGFN_COLLECT },
	{ "count_distinct", SL_AGGFN_COUNT },
	{ "min_by", SL_AGGFN_MINBY },
	{ "max_by", SL_AGGFN_MAXBY },
};

int sl_aggfn_of(const char *name)
{
	size_t i;
	for (i = 0; i < sizeof fnames / sizeof fnames[0]; i++)
		if (strcasecmp(name, fnames[i].name) == 0)
			return (int)fnames[i].fn;
	return -1;
}

static bool orderable(sl_kind k)
{
	return k == SL_BOOLEAN || k == SL_INT || k == SL_BIGINT ||
	       k == SL_DOUBLE || k == SL_STRING || k == SL_BINARY ||
	       k == SL_TIMESTAMP || k == SL_DATE || k == SL_NULLTYPE;
}

static sl_type *mismatch(const char *sql, const char *want, sl_type *got,
			 sl_err *err)
{
	sl_buf b;
	sl_buf_init(&b);
	sl_type_sql(got, &b);
	sl_err_set(
	    err, SL_EANALYSIS,
	    "cannot resolve '%s' due to data type mismatch: function %s, not %s",
	    sql, want, sl_buf_cstr(&b));
	sl_buf_release(&b);
	return NULL;
}

sl_type *sl_aggfn_result_type(const char *fname, sl_type *const *at, int nargs,
			      const char *sql, sl_err *err)
{
	int fn = sl_aggfn_of(fname);
	sl_kind k = nargs > 0 ? at[0]->kind : SL_NULLTYPE;
	switch (fn) {
	case SL_AGGFN_COUNT: return sl_type_prim(SL_BIGINT);
	case SL_AGGFN_SUM:
		if (k == SL_INT || k == SL_BIGINT)
			return sl_type_prim(SL_BIGINT);
		if (k == SL_DOUBLE || k == SL_STRING || k == SL_NULLTYPE)
			return sl_type_prim(SL_DOUBLE);
		return mismatch(sql, "sum requires numeric types", at[0], err);
	case SL_AGGFN_AVG:
		if (sl_type_is_numeric(at[0]) || k == SL_STRING ||
		    k == SL_NULLTYPE)
			return sl_type_prim(SL_DOUBLE);
		return mismatch(sql, "avg requires numeric types", at[0], err);
	case SL_AGGFN_MIN:
	case SL_AGGFN_MAX:
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST:
		if (orderable(k))
			return sl_type_ref(at[0]);
		return mismatch(sql,
				"streamlab supports it on primitive types only",
				at[0], err);
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY:
		if (nargs != 2)
			return mismatch(sql, "min_by/max_by take 2 arguments",
					at[0], err);
		if (!orderable(k))
			return mismatch(
			    sql,
			    "streamlab supports it on primitive types only",
			    at[0], err);
		if (!orderable(at[1]->kind))
			return mismatch(
			    sql, "the ordering must be of an orderable type",
			    at[1], err);
		return sl_type_ref(at[0]);
	case SL_AGGFN_APPROX:
		if (orderable(k))
			return sl_type_prim(SL_BIGINT);
		return mismatch(
		    sql, "approx_count_distinct requires a primitive type",
		    at[0], err);
	case SL_AGGFN_COLLECT: return sl_type_array_new(sl_type_ref(at[0]));
	default:
		sl_err_set(err, SL_EANALYSIS, "undefined function '%s'", fname);
		return NULL;
	}
}
