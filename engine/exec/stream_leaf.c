/*
 * stream_leaf: the streaming leaf, STREAM_SOURCE (sl_plan_stream, plan.h):
 * a plan node over a source description, which it holds a reference to.
 * It lives in exec/ because the description is a sources/ type, a layer
 * above plan/.
 */
#include "plan/plan_int.h"

#include <stdlib.h>
#include <string.h>

#include "sources/source.h"

static void stream_release(sl_plan *p)
{
	sl_source_desc_free(p->desc);
	p->desc = NULL;
}

sl_plan *sl_plan_stream(sl_source_desc *d, sl_err *err)
{
	sl_plan *p = sl_plan_node_new(SL_P_STREAM_SOURCE, err);
	const char *fmt;
	if (p == NULL)
		return NULL;
	p->desc = sl_source_desc_ref(d);
	p->release = stream_release;
	p->streaming = true;
	p->schema = sl_type_ref(sl_source_desc_schema(d));
	fmt = sl_source_desc_format(d);
	p->format = strdup(fmt ? fmt : "memory");
	if (p->format == NULL) {
		sl_plan_free(p);
		sl_err_nomem(err);
		return NULL;
	}
	return p;
}
