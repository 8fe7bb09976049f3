/*
 * plan: logical plan constructors (DataFrame transformations) and their
 * life cycle.  Analysis is eager, as PySpark's: every constructor resolves
 * its expressions against the input schema and fails with the method name
 * in front of the message ("select: cannot resolve 'x' ...").
 *
 * Nodes are immutable and reference counted; a node holds a reference to
 * each child.  Constructors take ownership of the sl_expr pointers handed to
 * them, on success and on failure alike.  The operators that run a node
 * live in op_*.c; AGGREGATE and JOIN nodes are built there (their analysis
 * is tied to how they execute).  explain() is at the bottom of this file.
 *
 * Never evaluates data here, except READ which reads its files eagerly
 * (a batch file source is a snapshot, as spark.read is).
 */
#include "plan/plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/fileformat.h"
#include "formats/partition.h"
#include "expr/func.h"
#include "core/timeutil.h"

/* ------------------------------------------------------------ helpers */

sl_plan *sl_plan_node_new(sl_plan_kind kind, sl_err *err)
{
	sl_plan *p = calloc(1, sizeof *p);
	if (p == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	p->kind = kind;
	p->refs = 1;
	p->gen_at = -1;
	return p;
}

sl_expr *sl_plan_resolve(const sl_expr *e, const sl_type *schema,
			 const char *method, sl_err *err)
{
	sl_expr *r = sl_expr_resolve(e, schema, err);
	if (r == NULL && method != NULL)
		sl_err_prefix(err, method);
	return r;
}

sl_type *sl_plan_struct(int n, char *const *names, sl_type *const *types,
			const bool *nullable, sl_err *err)
{
	sl_type *st = sl_type_struct_new(n);
	int i;
	if (st == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (sl_type_set_field(st, i, names[i], sl_type_ref(types[i]),
				      nullable ? nullable[i] : true) < 0) {
			sl_type_free(st);
			sl_err_nomem(err);
			return NULL;
		}
	}
	return st;
}

sl_expr *sl_plan_colref(const sl_type *schema, int i, sl_err *err)
{
	sl_type *one = sl_type_struct_new(1);
	sl_expr *c = sl_expr_col("c"), *r = NULL;
	char *name = strdup(schema->fields[i].name);
	if (one == NULL || c == NULL || name == NULL ||
	    sl_type_set_field(one, 0, "c", sl_type_ref(schema->fields[i].type),
			      schema->fields[i].nullable) < 0) {
		sl_err_nomem(err);
		goto out;
	}
	r = sl_expr_resolve(c, one, err);
	if (r != NULL) {
		/* the resolver named it after the one-field schema: point the
		 * fresh node (ours alone) at the real column */
		free(r->name);
		r->name = name;
		name = NULL;
		r->idx = i;
	}
out:
	free(name);
	sl_expr_free(c);
	sl_type_free(one);
	return r;
}

char *sl_plan_expr_name(const sl_expr *e)
{
	sl_buf b;
	sl_buf_init(&b);
	sl_expr_name(e, &b);
	return sl_buf_detach(&b);
}

sl_type *sl_plan_common_type(sl_type *a, sl_type *b)
{
	if (sl_type_equal(a, b))
		return a;
	if (a->kind == SL_STRUCT || a->kind == SL_ARRAY ||
	    b->kind == SL_STRUCT || b->kind == SL_ARRAY)
		return NULL;
	return sl_expr_common_type(a, b);
}

static void free_exprs(sl_expr **e, int n)
{
	int i;
	if (e == NULL)
		return;
	for (i = 0; i < n; i++)
		sl_expr_free(e[i]);
	free(e);
}

sl_plan *sl_plan_ref(sl_plan *p)
{
	if (p != NULL)
		p->refs++;
	return p;
}

void sl_plan_sql_free(sl_plan_sql *s)
{
	int i;
	if (s == NULL)
		return;
	for (i = 0; i < s->nviews; i++) {
		free(s->names[i]);
		sl_plan_free(s->plans[i]);
	}
	free(s->names);
	free(s->plans);
	free(s->text);
	free(s);
}

void sl_plan_free(sl_plan *p)
{
	int i;
	if (p == NULL || --p->refs > 0)
		return;
	sl_plan_sql_free(p->sql);
	if (p->release != NULL)
		p->release(p);
	for (i = 0; i < p->nchild; i++)
		sl_plan_free(p->child[i]);
	for (i = 0; i < p->nbatches; i++)
		sl_batch_free(p->batches[i]);
	free(p->batches);
	free(p->format);
	free(p->path);
	sl_options_release(&p->src_opts);
	free_exprs(p->exprs, p->nexprs);
	free(p->src);
	sl_expr_free(p->gen_arg);
	free(p->gen_sql);
	sl_expr_free(p->cond);
	sl_plan_agg_release(p);
	free_exprs(p->sort_keys, p->nsort);
	free(p->sort_flags);
	free_exprs(p->lkeys, p->njkeys);
	free_exprs(p->rkeys, p->njkeys);
	sl_expr_free(p->residual);
	sl_type_free(p->wide);
	free(p->out);
	free(p->dedup_cols);
	sl_type_free(p->schema);
	free(p);
}

sl_type *sl_plan_schema(const sl_plan *p)
{
	return p->schema;
}

bool sl_plan_is_streaming(const sl_plan *p)
{
	return p->streaming;
}

static sl_plan *unary_node(sl_plan_kind kind, sl_plan *in, sl_err *err)
{
	sl_plan *p = sl_plan_node_new(kind, err);
	if (p == NULL)
		return NULL;
	p->nchild = 1;
	p->child[0] = sl_plan_ref(in);
	p->streaming = in->streaming;
	return p;
}

/* -------------------------------------------------------------- leaves */

sl_plan *sl_plan_local(sl_batch *data, sl_err *err)
{
	sl_plan *p = sl_plan_node_new(SL_P_LOCAL, err);
	if (p == NULL)
		return NULL;
	p->batches = malloc(sizeof *p->batches);
	if (p->batches == NULL) {
		sl_plan_free(p);
		sl_err_nomem(err);
		return NULL;
	}
	p->batches[0] = sl_batch_ref(data);
	p->nbatches = 1;
	p->schema = sl_type_ref(data->schema);
	return p;
}

sl_plan *sl_plan_range(int64_t start, int64_t end, int64_t step,
		       sl_err *err)
{
	sl_type *st;
	sl_col *c;
	sl_batch *b;
	sl_plan *p;
	uint64_t span, n;
	int64_t i, *v;
	if (step == 0) {
		sl_err_set(err, SL_EANALYSIS,
			   "range: requirement failed: step (0) cannot be 0");
		return NULL;
	}
	/* the count in unsigned arithmetic: end - start may not fit int64 */
	if (step > 0)
		span = end > start ? (uint64_t)end - (uint64_t)start : 0;
	else
		span = start > end ? (uint64_t)start - (uint64_t)end : 0;
	n = span == 0 ? 0
		      : (span - 1) / (step > 0 ? (uint64_t)step
					       : 0 - (uint64_t)step) + 1;
	if (n > SL_RANGE_MAX) {
		sl_err_set(err, SL_EANALYSIS,
			   "range: %llu rows is more than %d (streamlab keeps a range in memory)",
			   (unsigned long long)n, SL_RANGE_MAX);
		return NULL;
	}
	if ((st = sl_type_struct_new(1)) == NULL ||
	    sl_type_set_field(st, 0, "id", sl_type_prim(SL_BIGINT), false) < 0 ||
	    (c = sl_col_new_raw(sl_type_prim(SL_BIGINT), (int64_t)n)) == NULL) {
		sl_type_free(st);
		sl_err_nomem(err);
		return NULL;
	}
	v = sl_col_i64(c);
	for (i = 0; i < (int64_t)n; i++)
		v[i] = (int64_t)((uint64_t)start + (uint64_t)i * (uint64_t)step);
	b = sl_batch_new(st, (int64_t)n, &c);
	sl_type_free(st);
	if (b == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	p = sl_plan_local(b, err);
	sl_batch_free(b);
	if (p != NULL) {
		p->is_range = true;
		p->range[0] = start;
		p->range[1] = end;
		p->range[2] = step;
	}
	return p;
}

sl_plan *sl_plan_local_source(sl_batch *data, const char *format,
			      const char *path, const sl_options *opts,
			      sl_err *err)
{
	sl_plan *p = sl_plan_local(data, err);
	if (p == NULL)
		return NULL;
	p->format = strdup(format);
	p->path = strdup(path);
	if (p->format == NULL || p->path == NULL ||
	    (opts != NULL && sl_options_copy(&p->src_opts, opts) < 0)) {
		sl_plan_free(p);
		sl_err_nomem(err);
		return NULL;
	}
	return p;
}

/* Each file read with the data schema, its partition values added. */
static int read_files(sl_plan *p, char **files, int nfiles,
		      const sl_part_spec *ps, const sl_options *opts,
		      sl_err *err)
{
	int i;
	p->batches = calloc((size_t)(nfiles ? nfiles : 1), sizeof *p->batches);
	if (p->batches == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < nfiles; i++) {
		sl_type *rs = sl_part_file_schema(ps, files[i], p->schema, err);
		sl_batch *b = rs ? sl_format_read_file(p->format, files[i], rs,
						       opts, err)
				 : NULL;
		sl_type_free(rs);
		if (b == NULL)
			return err ? err->code : SL_EIO;
		p->batches[i] = sl_part_assemble(ps, files[i], b, p->schema,
						 err);
		sl_batch_free(b);
		if (p->batches[i] == NULL)
			return err ? err->code : SL_EIO;
		p->nbatches++;
	}
	return 0;
}

/* spark.read: list the files (recursively, or the sink's log), discover
 * the partition columns (formats/partition.h), infer or take the data
 * schema, read every file; the schema is data ++ partition columns. */
sl_plan *sl_plan_read(const char *format, const char *path, sl_type *schema,
		      const sl_options *opts, sl_err *err)
{
	sl_plan *p;
	char **files = NULL;
	int nfiles = 0;
	sl_options none;
	sl_part_spec *ps = NULL;
	sl_type *data = NULL;
	sl_options_init(&none);
	if (opts == NULL)
		opts = &none;
	if (!sl_format_known(format)) {
		sl_err_set(err, SL_EINVAL, "read: unknown format '%s'", format);
		sl_err_hint(err, "use json, csv, text or parquet");
		return NULL;
	}
	if (sl_format_list(path, &files, &nfiles, err) < 0)
		return NULL;
	p = sl_plan_node_new(SL_P_READ, err);
	if (p == NULL)
		goto fail;
	p->format = strdup(format);
	p->path = strdup(path);
	if (p->format == NULL || p->path == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	ps = sl_part_discover(path, files, &nfiles, schema, opts, err);
	if (ps == NULL)
		goto fail;
	data = schema ? sl_part_data_schema(ps, schema)
		      : sl_format_infer(format, files, nfiles, opts, err);
	if (data == NULL)
		goto fail;
	p->schema = sl_part_full_schema(data, sl_part_schema(ps));
	if (p->schema == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	if (read_files(p, files, nfiles, ps, opts, err) < 0)
		goto fail;
	sl_format_list_free(files, nfiles);
	sl_part_spec_free(ps);
	sl_type_free(data);
	return p;
fail:
	sl_format_list_free(files, nfiles);
	sl_part_spec_free(ps);
	sl_type_free(data);
	sl_plan_free(p);
	return NULL;
}

/* ---------------------------------------------------------- projection */

/* One output of a projection being built: an input column passed through
 * (src >= 0, optionally renamed) or an unresolved expression (owned). */
typedef struct pitem {
	int src;
	sl_expr *e;
	char *name; /* owned; NULL = the input name / sl_expr_name */
} pitem;

static void items_free(pitem *it, int n)
{
	int i;
	for (i = 0; i < n; i++) {
		sl_expr_free(it[i].e);
		free(it[i].name);
	}
	free(it);
}

static bool is_generator(const sl_expr *e)
{
	if (e->kind == SL_X_ALIAS)
		e = e->args[0];
	return e->kind == SL_X_CALL && sl_func_is_generator(e->name);
}

static bool has_generator(const sl_expr *e)
{
	int i;
	if (e->kind == SL_X_CALL && sl_func_is_generator(e->name))
		return true;
	for (i = 0; i < e->nargs; i++)
		if (has_generator(e->args[i]))
			return true;
	return false;
}

static int sql_err(sl_err *err, const char *pre, const sl_expr *e,
		   const char *post)
{
	sl_buf b;
	sl_buf_init(&b);
	sl_expr_sql(e, &b);
	sl_err_set(err, SL_EANALYSIS, "%s%s%s", pre, sl_buf_cstr(&b), post);
	sl_buf_release(&b);
	return SL_EANALYSIS;
}

/* Check the generators of a select list: at most one, only at top level
 * (under an optional alias), over an ARRAY.  Returns its index or -1. */
static int find_generator(pitem *it, int n, const sl_type *in, sl_expr **arg,
			  const char *method, sl_err *err)
{
	int i, at = -1;
	const sl_expr *g;
	for (i = 0; i < n; i++) {
		if (it[i].e == NULL || !has_generator(it[i].e))
			continue;
		if (!is_generator(it[i].e)) {
			sql_err(
			    err,
			    "Generators are not supported when it's nested in expressions, but got: ",
			    it[i].e, "");
			goto fail;
		}
		if (at >= 0) {
			sl_err_set(
			    err, SL_EANALYSIS,
			    "Only one generator allowed per select clause but found 2");
			goto fail;
		}
		at = i;
	}
	if (at < 0)
		return -1;
	g = it[at].e->kind == SL_X_ALIAS ? it[at].e->args[0] : it[at].e;
	if (g->nargs != 1) {
		sl_err_set(
		    err, SL_EANALYSIS,
		    "invalid number of arguments for function '%s': expected 1; found %d",
		    g->name, g->nargs);
		goto fail;
	}
	*arg = sl_plan_resolve(g->args[0], in, method, err);
	if (*arg == NULL)
		return -2;
	if ((*arg)->rtype->kind != SL_ARRAY) {
		sl_buf a, t;
		sl_buf_init(&a);
		sl_buf_init(&t);
		sl_expr_sql(g, &a);
		sl_type_sql((*arg)->rtype, &t);
		sl_err_set(
		    err, SL_EANALYSIS,
		    "cannot resolve '%s' due to data type mismatch: parameter 1 requires the ARRAY type, however it has the type %s",
		    sl_buf_cstr(&a), sl_buf_cstr(&t));
		sl_buf_release(&a);
		sl_buf_release(&t);
		sl_expr_free(*arg);
		*arg = NULL;
		goto fail;
	}
	return at;
fail:
	sl_err_prefix(err, method);
	return -2;
}

/* Fill the generator fields of p; it is item `at`, output position pos. */
static int set_generator(sl_plan *p, const sl_expr *ge, sl_expr *arg, int pos,
			 char **names, sl_type **types, bool *nul)
{
	const sl_expr *g = ge->kind == SL_X_ALIAS ? ge->args[0] : ge;
	sl_buf b;
	p->gen_arg = arg;
	p->gen_at = pos;
	p->gen_outer = strcasecmp(g->name, "explode_outer") == 0;
	p->gen_pos = strcasecmp(g->name, "posexplode") == 0;
	sl_buf_init(&b);
	sl_expr_sql(g, &b);
	p->gen_sql = sl_buf_detach(&b);
	if (p->gen_pos) {
		names[pos] = strdup("pos");
		types[pos] = sl_type_prim(SL_INT);
		nul[pos] = false;
		pos++;
	}
	names[pos] = strdup(ge->kind == SL_X_ALIAS ? ge->name : "col");
	types[pos] = arg->rtype->elem;
	nul[pos] = true;
	return p->gen_sql == NULL || names[pos] == NULL ? SL_ENOMEM : 0;
}

static int project_fill(sl_plan *p, sl_plan *in, pitem *it, int n, int gat,
			sl_expr *garg, const char *method, sl_err *err)
{
	int nout = n + 1, i, k = 0;
	char **names = calloc((size_t)nout + 1, sizeof *names);
	sl_type **types = calloc((size_t)nout + 1, sizeof *types);
	bool *nul = calloc((size_t)nout + 1, sizeof *nul);
	int rc = SL_ENOMEM;
	if (gat >= 0) {
		const sl_expr *g = it[gat].e;
		if (g->kind == SL_X_ALIAS)
			g = g->args[0];
		p->gen_pos = strcasecmp(g->name, "posexplode") == 0;
	}
	nout = n + (gat >= 0 && p->gen_pos);
	p->exprs = calloc((size_t)nout + 1, sizeof *p->exprs);
	p->src = calloc((size_t)nout + 1, sizeof *p->src);
	if (!names || !types || !nul || !p->exprs || !p->src)
		goto out;
	p->nexprs = nout;
	for (i = 0; i < n; i++, k++) {
		const sl_field *f;
		if (i == gat) {
			if (set_generator(p, it[i].e, garg, k, names, types,
					  nul) < 0)
				goto out;
			garg = NULL;
			p->src[k] = -1;
			if (p->gen_pos)
				p->src[++k] = -1;
			continue;
		}
		if (it[i].src >= 0) {
			f = &in->schema->fields[it[i].src];
			p->src[k] = it[i].src;
			names[k] = strdup(it[i].name ? it[i].name : f->name);
			types[k] = f->type;
			nul[k] = f->nullable;
			if (names[k] == NULL)
				goto out;
			continue;
		}
		p->exprs[k] = sl_plan_resolve(it[i].e, in->schema, method, err);
		if (p->exprs[k] == NULL) {
			rc = err ? err->code : SL_EANALYSIS;
			goto out;
		}
		p->src[k] =
		    p->exprs[k]->kind == SL_X_COL ? p->exprs[k]->idx : -1;
		names[k] = it[i].name ? strdup(it[i].name)
				      : sl_plan_expr_name(it[i].e);
		types[k] = p->exprs[k]->rtype;
		nul[k] = p->exprs[k]->nullable;
		if (names[k] == NULL)
			goto out;
	}
	p->schema = sl_plan_struct(nout, names, types, nul, err);
	rc = p->schema ? 0 : SL_ENOMEM;
out:
	if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	sl_expr_free(garg);
	for (i = 0; i < nout; i++)
		free(names ? names[i] : NULL);
	free(names);
	free(types);
	free(nul);
	return rc;
}

/* Turn items into expressions for a global aggregate (select with an
 * aggregate and no groupBy). */
static sl_plan *project_as_agg(sl_plan *in, pitem *it, int n,
			       const char *method, sl_err *err)
{
	sl_expr **ex = calloc((size_t)n + 1, sizeof *ex);
	sl_plan *p;
	int i;
	if (ex == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (it[i].e != NULL) {
			ex[i] = it[i].e;
			it[i].e = NULL;
		} else {
			ex[i] = sl_plan_colref(in->schema, it[i].src, err);
		}
		if (ex[i] != NULL && it[i].name != NULL)
			ex[i] = sl_expr_alias(ex[i], it[i].name);
		if (ex[i] == NULL) {
			free_exprs(ex, i);
			return NULL;
		}
	}
	p = sl_plan_agg_build(in, NULL, 0, ex, n, method, err);
	free(ex);
	return p;
}

/* Takes ownership of the items. */
static sl_plan *project_build(sl_plan *in, pitem *it, int n, const char *method,
			      sl_err *err)
{
	sl_plan *p = NULL;
	sl_expr *garg = NULL;
	int i, gat;
	for (i = 0; i < n; i++)
		if (it[i].e != NULL && sl_expr_has_agg(it[i].e)) {
			p = project_as_agg(in, it, n, method, err);
			items_free(it, n);
			return p;
		}
	gat = find_generator(it, n, in->schema, &garg, method, err);
	if (gat == -2)
		goto out;
	p = unary_node(SL_P_PROJECT, in, err);
	if (p == NULL)
		goto out;
	if (project_fill(p, in, it, n, gat, garg, method, err) < 0) {
		sl_plan_free(p);
		p = NULL;
	}
	garg = NULL;
out:
	sl_expr_free(garg);
	items_free(it, n);
	return p;
}

/* Expand * and s.* of one select expression into items. */
static int expand_star(sl_plan *in, sl_expr *e, pitem **it, int *n, int *cap,
		       sl_err *err)
{
	const sl_type *st = in->schema;
	int i, k = -1, cnt;
	if (e->name != NULL) {
		k = sl_type_field_index(st, e->name);
		if (k < 0 || st->fields[k].type->kind != SL_STRUCT) {
			sl_err_set(err, SL_EANALYSIS,
				   "cannot resolve '%s.*' given input columns",
				   e->name);
			return SL_EANALYSIS;
		}
		st = st->fields[k].type;
	}
	cnt = st->nfields;
	if (*n + cnt > *cap) {
		pitem *m = realloc(*it, (size_t)(*n + cnt + 8) * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(err);
		*it = m;
		*cap = *n + cnt + 8;
	}
	for (i = 0; i < cnt; i++) {
		pitem *x = &(*it)[(*n)++];
		memset(x, 0, sizeof *x);
		x->src = k < 0 ? i : -1;
		if (k >= 0) {
			x->e = sl_expr_field(
			    sl_expr_col(in->schema->fields[k].name),
			    st->fields[i].name);
			x->name = strdup(st->fields[i].name);
			if (x->e == NULL || x->name == NULL)
				return sl_err_nomem(err);
		}
	}
	return 0;
}

static sl_plan *project_exprs(sl_plan *in, sl_expr **exprs, int n, sl_err *err)
{
	pitem *it = calloc((size_t)n + 8, sizeof *it);
	int i = 0, m = 0, cap = n + 8;
	if (it == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		if (exprs[i]->kind == SL_X_STAR) {
			if (expand_star(in, exprs[i], &it, &m, &cap, err) < 0) {
				sl_err_prefix(err, "select");
				goto fail;
			}
			sl_expr_free(exprs[i]);
		} else {
			if (m == cap) {
				pitem *x =
				    realloc(it, (size_t)(cap + 8) * sizeof *x);
				if (x == NULL) {
					sl_err_nomem(err);
					goto fail;
				}
				it = x;
				cap += 8;
			}
			it[m].src = -1;
			it[m].name = NULL;
			it[m++].e = exprs[i];
		}
		exprs[i] = NULL;
	}
	return project_build(in, it, m, "select", err);
fail:
	for (; i < n; i++)
		sl_expr_free(exprs[i]);
	items_free(it, m);
	return NULL;
}

/* A sliding window() becomes an EXPAND node below (plan_window.c). */
sl_plan *sl_plan_project(sl_plan *in, sl_expr **exprs, int n, sl_err *err)
{
	sl_plan *in2 = sl_plan_ref(in), *p;
	int i;
	if (sl_window_rewrite(&in2, exprs, n, "select", err) < 0) {
		for (i = 0; i < n; i++) {
			sl_expr_free(exprs[i]);
			exprs[i] = NULL;
		}
		sl_plan_free(in2);
		return NULL;
	}
	p = project_exprs(in2, exprs, n, err);
	sl_plan_free(in2);
	return p;
}

static pitem *pass_items(const sl_type *st, int extra, sl_err *err)
{
	pitem *it = calloc((size_t)st->nfields + (size_t)extra + 1, sizeof *it);
	int i;
	if (it == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < st->nfields; i++)
		it[i].src = i;
	return it;
}

/* st: the columns to pass (in's, or the first ones of an EXPAND). */
static sl_plan *with_column(sl_plan *in, const sl_type *st, const char *name,
			    sl_expr *e, sl_err *err)
{
	pitem *it = pass_items(st, 1, err);
	int i, n = st->nfields, hit = 0;
	if (it == NULL)
		goto fail;
	for (i = 0; i < st->nfields; i++) {
		if (strcasecmp(st->fields[i].name, name) != 0)
			continue;
		it[i].src = -1;
		it[i].e = sl_expr_alias(hit ? sl_expr_ref(e) : e, name);
		hit = 1;
		if (it[i].e == NULL)
			goto nomem;
	}
	if (!hit) {
		it[n].src = -1;
		it[n].e = sl_expr_alias(e, name);
		n++;
		if (it[n - 1].e == NULL)
			goto nomem;
	}
	return project_build(in, it, n, "withColumn", err);
nomem:
	sl_err_nomem(err);
	items_free(it, n);
	return NULL;
fail:
	sl_expr_free(e);
	return NULL;
}

sl_plan *sl_plan_with_column(sl_plan *in, const char *name, sl_expr *e,
			     sl_err *err)
{
	sl_plan *in2 = sl_plan_ref(in), *p;
	if (sl_window_rewrite(&in2, &e, 1, "withColumn", err) < 0) {
		sl_expr_free(e);
		sl_plan_free(in2);
		return NULL;
	}
	p = with_column(in2, in->schema, name, e, err);
	sl_plan_free(in2);
	return p;
}

sl_plan *sl_plan_rename(sl_plan *in, const char *from, const char *to,
			sl_err *err)
{
	const sl_type *st = in->schema;
	pitem *it;
	int i, hit = 0;
	for (i = 0; i < st->nfields; i++)
		hit |= strcasecmp(st->fields[i].name, from) == 0;
	if (!hit)
		return sl_plan_ref(in);
	if ((it = pass_items(st, 0, err)) == NULL)
		return NULL;
	for (i = 0; i < st->nfields; i++)
		if (strcasecmp(st->fields[i].name, from) == 0 &&
		    (it[i].name = strdup(to)) == NULL) {
			items_free(it, st->nfields);
			sl_err_nomem(err);
			return NULL;
		}
	return project_build(in, it, st->nfields, "withColumnRenamed", err);
}

sl_plan *sl_plan_drop(sl_plan *in, const char *const *names, int n, sl_err *err)
{
	const sl_type *st = in->schema;
	pitem *it = pass_items(st, 0, err);
	int i, j, m = 0;
	if (it == NULL)
		return NULL;
	for (i = 0; i < st->nfields; i++) {
		bool gone = false;
		for (j = 0; j < n; j++)
			gone |= strcasecmp(st->fields[i].name, names[j]) == 0;
		if (!gone)
			it[m++].src = i;
	}
	if (m == st->nfields) {
		items_free(it, 0);
		return sl_plan_ref(in);
	}
	return project_build(in, it, m, "drop", err);
}

/* -------------------------------------------------------------- filter */

sl_plan *sl_plan_filter(sl_plan *in, sl_expr *cond, sl_err *err)
{
	sl_plan *p = NULL;
	sl_expr *r = NULL;
	if (sl_expr_has_agg(cond)) {
		sql_err(
		    err,
		    "aggregate functions are not allowed in a filter condition: '",
		    cond, "'");
		sl_err_prefix(err, "filter");
		goto out;
	}
	r = sl_plan_resolve(cond, in->schema, "filter", err);
	if (r == NULL)
		goto out;
	if (r->rtype->kind != SL_BOOLEAN && r->rtype->kind != SL_NULLTYPE) {
		sl_buf a, t;
		sl_buf_init(&a);
		sl_buf_init(&t);
		sl_expr_sql(cond, &a);
		sl_type_sql(r->rtype, &t);
		sl_err_set(
		    err, SL_EANALYSIS,
		    "filter: filter expression '%s' of type %s is not a boolean",
		    sl_buf_cstr(&a), sl_buf_cstr(&t));
		sl_buf_release(&a);
		sl_buf_release(&t);
		goto out;
	}
	p = unary_node(SL_P_FILTER, in, err);
	if (p == NULL)
		goto out;
	p->schema = sl_type_ref(in->schema);
	p->cond = r;
	r = NULL;
out:
	sl_expr_free(r);
	sl_expr_free(cond);
	return p;
}

/* ------------------------------------------------------ sort and limit */

sl_plan *sl_plan_sort(sl_plan *in, sl_expr **keys, int n, sl_err *err)
{
	sl_plan *p = unary_node(SL_P_SORT, in, err);
	int i;
	if (p == NULL)
		goto fail;
	p->schema = sl_type_ref(in->schema);
	p->sort_keys = calloc((size_t)n + 1, sizeof *p->sort_keys);
	p->sort_flags = calloc((size_t)n + 1, sizeof *p->sort_flags);
	if (p->sort_keys == NULL || p->sort_flags == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		const sl_expr *k = keys[i];
		int fl = 0;
		if (k->kind == SL_X_SORT) {
			fl = k->op;
			k = k->args[0];
		}
		/* Spark: ASC means NULLS FIRST, DESC means NULLS LAST */
		if (!(fl & (SL_SORT_NULLS_FIRST | SL_SORT_NULLS_LAST)))
			fl |= fl & SL_SORT_DESC ? SL_SORT_NULLS_LAST
						: SL_SORT_NULLS_FIRST;
		p->sort_flags[i] = fl;
		p->sort_keys[i] =
		    sl_plan_resolve(k, in->schema, "orderBy", err);
		if (p->sort_keys[i] == NULL)
			goto fail;
		p->nsort = i + 1;
	}
	for (i = 0; i < n; i++)
		sl_expr_free(keys[i]);
	return p;
fail:
	for (i = 0; i < n; i++)
		sl_expr_free(keys[i]);
	sl_plan_free(p);
	return NULL;
}

sl_plan *sl_plan_limit(sl_plan *in, int64_t n, sl_err *err)
{
	sl_plan *p;
	if (n < 0) {
		sl_err_set(
		    err, SL_EANALYSIS,
		    "limit: The limit expression must be equal to or greater than 0, but got %lld",
		    (long long)n);
		return NULL;
	}
	p = unary_node(SL_P_LIMIT, in, err);
	if (p == NULL)
		return NULL;
	p->schema = sl_type_ref(in->schema);
	p->limit = n;
	return p;
}

/* --------------------------------------------------------------- union */

static const char *ordinal(int i)
{
	static const char *const w[] = { "first", "second", "third",   "fourth",
					 "fifth", "sixth",  "seventh", "eighth",
					 "ninth", "tenth" };
	return i < 10 ? w[i] : "next";
}

static int union_types(const sl_type *a, const sl_type *b, sl_type **types,
		       bool *nul, sl_err *err)
{
	int i;
	for (i = 0; i < a->nfields; i++) {
		types[i] =
		    sl_plan_common_type(a->fields[i].type, b->fields[i].type);
		nul[i] = a->fields[i].nullable || b->fields[i].nullable;
		if (types[i] == NULL) {
			sl_buf x, y;
			sl_buf_init(&x);
			sl_buf_init(&y);
			sl_type_sql(b->fields[i].type, &x);
			sl_type_sql(a->fields[i].type, &y);
			sl_err_set(
			    err, SL_EANALYSIS,
			    "Union can only be performed on tables with compatible column types. The %s column of the second table is \"%s\" type which is not compatible with \"%s\" at the same column of the first table",
			    ordinal(i), sl_buf_cstr(&x), sl_buf_cstr(&y));
			sl_buf_release(&x);
			sl_buf_release(&y);
			return SL_EANALYSIS;
		}
	}
	return 0;
}

sl_plan *sl_plan_union(sl_plan *a, sl_plan *b, sl_err *err)
{
	const sl_type *sa = a->schema, *sb = b->schema;
	int n = sa->nfields, i;
	sl_type **types;
	char **names;
	bool *nul;
	sl_plan *p = NULL;
	if (sa->nfields != sb->nfields) {
		sl_err_set(
		    err, SL_EANALYSIS,
		    "Union can only be performed on tables with the same number of columns, but the first table has %d columns and the second table has %d columns",
		    sa->nfields, sb->nfields);
		return NULL;
	}
	types = calloc((size_t)n + 1, sizeof *types);
	names = calloc((size_t)n + 1, sizeof *names);
	nul = calloc((size_t)n + 1, sizeof *nul);
	if (types == NULL || names == NULL || nul == NULL) {
		sl_err_nomem(err);
		goto out;
	}
	for (i = 0; i < n; i++)
		names[i] = sa->fields[i].name;
	if (union_types(sa, sb, types, nul, err) < 0)
		goto out;
	p = sl_plan_node_new(SL_P_UNION, err);
	if (p == NULL)
		goto out;
	p->nchild = 2;
	p->child[0] = sl_plan_ref(a);
	p->child[1] = sl_plan_ref(b);
	p->streaming = a->streaming || b->streaming;
	p->schema = sl_plan_struct(n, names, types, nul, err);
	if (p->schema == NULL) {
		sl_plan_free(p);
		p = NULL;
	}
out:
	free(types);
	free(names);
	free(nul);
	return p;
}

/* ---------------------------------------------------------------- dedup */

sl_plan *sl_plan_dedup(sl_plan *in, const char *const *cols, int n, sl_err *err)
{
	const sl_type *st = in->schema;
	sl_plan *p = unary_node(SL_P_DEDUP, in, err);
	int i, m = n > 0 ? n : st->nfields;
	if (p == NULL)
		return NULL;
	p->schema = sl_type_ref(in->schema);
	p->dedup_cols = calloc((size_t)m + 1, sizeof *p->dedup_cols);
	if (p->dedup_cols == NULL) {
		sl_plan_free(p);
		sl_err_nomem(err);
		return NULL;
	}
	p->ndedup = m;
	for (i = 0; i < m; i++) {
		int k = n > 0 ? sl_type_field_index(st, cols[i]) : i;
		if (k < 0) {
			sl_buf b;
			int j;
			sl_buf_init(&b);
			for (j = 0; j < st->nfields; j++)
				sl_buf_printf(&b, "%s%s", j ? ", " : "",
					      st->fields[j].name);
			sl_err_set(
			    err, SL_EANALYSIS,
			    "dropDuplicates: Cannot resolve column name \"%s\" among (%s)",
			    cols[i], sl_buf_cstr(&b));
			sl_buf_release(&b);
			sl_plan_free(p);
			return NULL;
		}
		p->dedup_cols[i] = k;
	}
	return p;
}

sl_plan *sl_plan_dedup_within_watermark(sl_plan *in, const char *const *cols,
					int n, sl_err *err)
{
	sl_plan *p = sl_plan_dedup(in, cols, n, err);
	if (p != NULL)
		p->within_wm = true;
	return p;
}

/* ------------------------------------------------------------- explain */

static void sql_list(sl_buf *out, sl_expr *const *e, int n)
{
	int i;
	for (i = 0; i < n; i++) {
		if (i)
			sl_buf_adds(out, ", ");
		sl_expr_sql(e[i], out);
	}
}

static void name_list(sl_buf *out, const sl_type *st)
{
	int i;
	sl_buf_addc(out, '[');
	for (i = 0; i < st->nfields; i++)
		sl_buf_printf(out, "%s%s", i ? ", " : "", st->fields[i].name);
	sl_buf_addc(out, ']');
}

static void project_text(const sl_plan *p, sl_buf *out)
{
	int i;
	sl_buf_adds(out, "Project [");
	for (i = 0; i < p->nexprs; i++) {
		const char *name = p->schema->fields[i].name;
		if (i)
			sl_buf_adds(out, ", ");
		if (p->exprs[i] == NULL || p->src[i] >= 0) {
			sl_buf_adds(out, name);
		} else {
			size_t at = out->len;
			sl_expr_sql(p->exprs[i], out);
			if (strcmp(out->p + at, name) != 0)
				sl_buf_printf(out, " AS %s", name);
		}
	}
	sl_buf_addc(out, ']');
}

static const char *jname(sl_join_type t)
{
	static const char *const n[] = { "Inner",     "LeftOuter", "RightOuter",
					 "FullOuter", "LeftSemi",  "LeftAnti",
					 "Cross" };
	return n[t];
}

static void sort_text(const sl_plan *p, sl_buf *out)
{
	int i;
	sl_buf_adds(out, "Sort [");
	for (i = 0; i < p->nsort; i++) {
		int fl = p->sort_flags[i];
		if (i)
			sl_buf_adds(out, ", ");
		sl_expr_sql(p->sort_keys[i], out);
		sl_buf_printf(out, " %s NULLS %s",
			      fl & SL_SORT_DESC ? "DESC" : "ASC",
			      fl & SL_SORT_NULLS_LAST ? "LAST" : "FIRST");
	}
	sl_buf_adds(out, "], true");
}

static void join_text(const sl_plan *p, bool physical, sl_buf *out)
{
	if (!physical)
		sl_buf_printf(out, "Join %s", jname(p->jtype));
	else if (p->njkeys > 0)
		sl_buf_adds(out, "BroadcastHashJoin [");
	else
		sl_buf_printf(out, "BroadcastNestedLoopJoin BuildRight, %s",
			      jname(p->jtype));
	if (physical && p->njkeys > 0) {
		sql_list(out, p->lkeys, p->njkeys);
		sl_buf_adds(out, "], [");
		sql_list(out, p->rkeys, p->njkeys);
		sl_buf_printf(out, "], %s, BuildRight", jname(p->jtype));
	} else if (!physical && p->njkeys > 0) {
		int k;
		for (k = 0; k < p->njkeys; k++) {
			sl_buf_adds(out, k ? " AND " : ", (");
			sl_expr_sql(p->lkeys[k], out);
			sl_buf_adds(out, " = ");
			sl_expr_sql(p->rkeys[k], out);
		}
		sl_buf_addc(out, ')');
	}
	if (p->residual != NULL) {
		sl_buf_adds(out, ", ");
		sl_expr_sql(p->residual, out);
	}
}

static void agg_text(const sl_plan *p, bool physical, sl_buf *out)
{
	int i;
	sl_buf_adds(out, physical ? "HashAggregate(keys=[" : "Aggregate [");
	sql_list(out, p->keys, p->nkeys);
	sl_buf_adds(out, physical ? "], functions=[" : "], [");
	for (i = 0; i < p->naggs; i++)
		sl_buf_printf(out, "%s%s", i ? ", " : "", p->aggs[i].sql);
	sl_buf_adds(out, physical ? "])" : "]");
}

static void node_text(const sl_plan *p, bool physical, sl_buf *out)
{
	int i;
	switch (p->kind) {
	case SL_P_LOCAL:
		if (p->is_range) { /* Spark's Range node */
			sl_buf_printf(out, "Range (%lld, %lld, step=%lld, splits=1)",
				      (long long)p->range[0],
				      (long long)p->range[1],
				      (long long)p->range[2]);
			break;
		}
		sl_buf_adds(out,
			    physical ? "LocalTableScan " : "LocalRelation ");
		name_list(out, p->schema);
		break;
	case SL_P_READ:
		sl_buf_printf(out, "%s%s ",
			      physical ? "FileScan " : "Relation ", p->format);
		name_list(out, p->schema);
		sl_buf_printf(out, " Location: %s", p->path);
		break;
	case SL_P_PROJECT: project_text(p, out); break;
	case SL_P_FILTER:
		sl_buf_adds(out, "Filter ");
		sl_expr_sql(p->cond, out);
		break;
	case SL_P_AGGREGATE: agg_text(p, physical, out); break;
	case SL_P_SORT: sort_text(p, out); break;
	case SL_P_LIMIT:
		sl_buf_printf(out, "GlobalLimit %lld", (long long)p->limit);
		break;
	case SL_P_UNION: sl_buf_adds(out, "Union"); break;
	case SL_P_JOIN: join_text(p, physical, out); break;
	case SL_P_STREAM_SOURCE:
		sl_buf_printf(out, "StreamingRelation %s, ",
			      p->format ? p->format : "?");
		name_list(out, p->schema);
		break;
	case SL_P_WATERMARK:
		sl_buf_printf(out, "EventTimeWatermark %s, ",
			      p->schema->fields[p->wm_col].name);
		sl_duration_format(p->wm_delay_us, out);
		break;
	case SL_P_EXPAND:
		sl_buf_adds(out, "Expand window(");
		sl_expr_sql(p->exprs[0], out);
		sl_buf_adds(out, ", ");
		sl_duration_format(p->win_size, out);
		sl_buf_adds(out, ", ");
		sl_duration_format(p->win_slide, out);
		sl_buf_adds(out, ", ");
		sl_duration_format(p->win_start, out);
		sl_buf_adds(out, ")");
		break;
	case SL_P_DEDUP:
		sl_buf_adds(out, "Deduplicate [");
		for (i = 0; i < p->ndedup; i++)
			sl_buf_printf(out, "%s%s", i ? ", " : "",
				      p->schema->fields[p->dedup_cols[i]].name);
		sl_buf_addc(out, ']');
		break;
	default: sl_buf_printf(out, "Node %d", (int)p->kind); break;
	}
}

/* Spark's TreeNode.generateTreeString: ":- " for a child with siblings
 * after it, "+- " for the last, ":  " / "   " continuing the levels. */
static void tree(const sl_plan *p, bool physical, int depth, bool *last,
		 sl_buf *out)
{
	int i, d = depth;
	for (i = 0; i + 1 < depth; i++)
		sl_buf_adds(out, last[i] ? "   " : ":  ");
	if (depth > 0)
		sl_buf_adds(out, last[depth - 1] ? "+- " : ":- ");
	node_text(p, physical, out);
	sl_buf_addc(out, '\n');
	if (depth >= 62)
		return;
	if (physical && p->kind == SL_P_PROJECT && p->gen_at >= 0) {
		/* the generator runs below the projection, as Spark's Generate */
		for (i = 0; i < depth; i++)
			sl_buf_adds(out, last[i] ? "   " : ":  ");
		sl_buf_printf(out, "+- Generate %s, %s, [%s%s]\n", p->gen_sql,
			      p->gen_outer ? "true" : "false",
			      p->gen_pos ? "pos, " : "",
			      p->schema->fields[p->gen_at + p->gen_pos].name);
		last[d++] = true;
	}
	for (i = 0; i < p->nchild; i++) {
		last[d] = i == p->nchild - 1;
		tree(p->child[i], physical, d + 1, last, out);
	}
}

void sl_plan_explain(const sl_plan *p, bool extended, sl_buf *out)
{
	bool last[64];
	int i;
	if (extended) {
		sl_buf_adds(out, "== Analyzed Logical Plan ==\n");
		for (i = 0; i < p->schema->nfields; i++) {
			sl_buf_printf(out, "%s%s: ", i ? ", " : "",
				      p->schema->fields[i].name);
			sl_expr_type_name(p->schema->fields[i].type, out);
		}
		sl_buf_addc(out, '\n');
		tree(p, false, 0, last, out);
		sl_buf_addc(out, '\n');
	}
	sl_buf_adds(out, "== Physical Plan ==\n");
	tree(p, true, 0, last, out);
}
