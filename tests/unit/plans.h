/*
 * plans.h: the plan fixtures of the plan and operator unit tests (t200,
 * t201, t202): a local relation from DDL + json lines, a SQL expression,
 * a plan's rows and schema as text.  One error slot, `err`, that every
 * helper writes and the tests read (err.msg is what rows() and ddl()
 * return on failure).
 */
#ifndef SL_TEST_PLANS_H
#define SL_TEST_PLANS_H

#include <stdio.h>
#include <string.h>

#include "expr/sqlexpr.h"
#include "formats/fileformat.h"
#include "plan/plan.h"
#include "rows.h"

static sl_err err;

static sl_plan *local(const char *ddl, const char *json)
{
	sl_type *t = sl_type_parse_ddl(ddl, &err);
	sl_options o;
	sl_batch *b;
	sl_plan *p;
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json), t, &o, &err);
	p = b ? sl_plan_local(b, &err) : NULL;
	sl_batch_free(b);
	sl_type_free(t);
	return p;
}

static sl_expr *X(const char *sql)
{
	return sl_sqlexpr_parse(sql, &err);
}

/* Rows as "v,v;v,v" with show() rendering. */
static const char *rows(sl_plan *p)
{
	sl_batch *b = p ? sl_plan_collect(p, &err) : NULL;
	return b != NULL ? batch_text(b) : err.msg;
}

static char ddlbuf[1024];
static const char *ddl(sl_plan *p)
{
	sl_buf b;
	if (p == NULL)
		return err.msg;
	sl_buf_init(&b);
	sl_type_ddl(sl_plan_schema(p), &b);
	snprintf(ddlbuf, sizeof ddlbuf, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	return ddlbuf;
}

#endif
