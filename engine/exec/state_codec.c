/*
 * state_codec: the layouts of the stateful operators' store entries and
 * their decoders (state_codec.h has the table).  The encoders stay in the
 * operators; this file reads what they wrote, following the layouts their
 * opening comments and agg.h ("streaming: aggregation buffers") document.
 * A change to an encoder's bytes must change the decoder here: the unit
 * test t304-state-read writes every operator's state through the real
 * operators and reads it back through this file.
 *
 * Aggregation buffers (agg.h): count varint; sum a has-byte [+ zigzag
 * varint for BIGINT sums, a native double otherwise]; avg a double and a
 * varint count; min/max/first/last a flags byte (1 has, 2 the kept value
 * is NULL) [+ the value when exactly 1]; a kept value is 1/4/8 native
 * bytes by its type, a string a uint32 length then its bytes;
 * approx_count_distinct its 2^p register bytes; min_by/max_by the value
 * as first's, then the ordering as min's/max's.
 */
#include "exec/state_codec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/agg.h"
#include "exec/hash.h"
#include "expr/aggfunc.h"

/* Bytes or text that do not match the layout (distinct from SL_E*). */
#define BAD (-100)

typedef enum codec_kind {
	CK_AGG,
	CK_SESSION,
	CK_DEDUP,
	CK_DEDUP_WM,
	CK_JOIN,
	CK_LIMIT
} codec_kind;

/* One aggregate's buffer: its function and, for approx_count_distinct,
 * the register count's log2. */
typedef struct aggbuf {
	int fn; /* sl_aggfn */
	int p;
} aggbuf;

struct sl_state_codec {
	codec_kind kind;
	char *opname;
	sl_type *key[2], *val[2];
	sl_type *kwik[2], *kwiv[2]; /* join: Spark's keyWithIndexToValue
				       rows (key ++ index, row ++ matched) */
	int naggs;
	aggbuf *aggs;
	int skey; /* session: the session_window key's index */
	int hdr;  /* join: value header bytes (8, or 9 with matched) */
	sl_agg **dec; /* agg, session: one decoder per aggregate */
	sl_type *res; /* agg, session: the aggregates' results */
};

static const struct {
	const char *name;
	codec_kind kind;
} kinds[] = {
	{ "stateStoreSave", CK_AGG },
	{ "sessionWindowStateStoreSaveExec", CK_SESSION },
	{ "dedupe", CK_DEDUP },
	{ "dedupeWithinWatermark", CK_DEDUP_WM },
	{ "symmetricHashJoin", CK_JOIN },
	{ "globalLimit", CK_LIMIT },
};

static int kind_of(const char *name)
{
	size_t i;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return (int)kinds[i].kind;
	return -1;
}

void sl_state_codec_free(sl_state_codec *c)
{
	int s;
	if (c == NULL)
		return;
	for (s = 0; s < 2; s++) {
		sl_type_free(c->key[s]);
		sl_type_free(c->val[s]);
		sl_type_free(c->kwik[s]);
		sl_type_free(c->kwiv[s]);
	}
	for (s = 0; c->dec != NULL && s < c->naggs; s++)
		sl_agg_free(c->dec[s]);
	free(c->dec);
	sl_type_free(c->res);
	free(c->aggs);
	free(c->opname);
	free(c);
}

static sl_state_codec *codec_new(const char *opname, sl_err *err)
{
	sl_state_codec *c = calloc(1, sizeof *c);
	int k = kind_of(opname);
	if (c == NULL || (c->opname = strdup(opname)) == NULL) {
		free(c);
		sl_err_nomem(err);
		return NULL;
	}
	if (k < 0) {
		sl_err_set(err, SL_EINTERNAL,
			   "state: operator '%s' has no known state layout",
			   opname);
		sl_state_codec_free(c);
		return NULL;
	}
	c->kind = (codec_kind)k;
	return c;
}

/* ---------------------------------------------------- building types */

/* A growing list of fields for a STRUCT under construction. */
typedef struct flist {
	int n, cap;
	char **names;
	sl_type **types;
} flist;

static void flist_release(flist *l)
{
	int i;
	for (i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->types);
	memset(l, 0, sizeof *l);
}

/* Append name (copied; _2, _3 when it repeats) and t (borrowed). */
static int flist_add(flist *l, const char *name, sl_type *t)
{
	char buf[256];
	int i, dup = 1;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 8;
		char **nn = realloc(l->names, (size_t)cap * sizeof *nn);
		sl_type **nt;
		if (nn == NULL)
			return SL_ENOMEM;
		l->names = nn;
		if ((nt = realloc(l->types, (size_t)cap * sizeof *nt)) == NULL)
			return SL_ENOMEM;
		l->types = nt;
		l->cap = cap;
	}
	snprintf(buf, sizeof buf, "%s", name);
	for (i = 0; i < l->n; i++)
		if (strcasecmp(l->names[i], buf) == 0) {
			snprintf(buf, sizeof buf, "%s_%d", name, ++dup);
			i = -1; /* again, against every name */
		}
	if ((l->names[l->n] = strdup(buf)) == NULL)
		return SL_ENOMEM;
	l->types[l->n++] = t;
	return 0;
}

static sl_type *flist_struct(flist *l, sl_err *err)
{
	sl_type *t = sl_type_struct_new(l->n);
	int i;
	for (i = 0; t != NULL && i < l->n; i++)
		if (sl_type_set_field(t, i, l->names[i],
				      sl_type_ref(l->types[i]), true) < 0) {
			sl_type_free(t);
			t = NULL;
		}
	if (t == NULL)
		sl_err_nomem(err);
	return t;
}

/* One field of type t named name, as a STRUCT. */
static sl_type *one_field(const char *name, sl_type *t, sl_err *err)
{
	sl_type *s = sl_type_struct_new(1);
	if (s == NULL || sl_type_set_field(s, 0, name, t, true) < 0) {
		sl_type_free(s);
		sl_err_nomem(err);
		return NULL;
	}
	return s;
}

/* The buffer fields of aggregate i, named as Spark's aggBufferAttributes
 * (Sum: sum; Average: sum, count; Count: count; Min/Max: min/max;
 * First/Last: first/last, valueSet; MaxMinBy: valueWithExtremumOrdering,
 * extremumOrdering). */
static int agg_fields(flist *l, const sl_aggspec *a, aggbuf *b)
{
	sl_type *big = sl_type_prim(SL_BIGINT), *dbl = sl_type_prim(SL_DOUBLE);
	sl_type *t0 = a->nargs > 0 && !a->count_rows
			  ? a->args[0]->rtype
			  : sl_type_prim(SL_NULLTYPE);
	sl_type *t1 = a->nargs > 1 ? a->args[1]->rtype : t0;
	int rc = 0;
	b->fn = sl_aggfn_of(a->fname);
	b->p = 0;
	if (a->distinct)
		return SL_EANALYSIS;
	switch (b->fn) {
	case SL_AGGFN_COUNT: return flist_add(l, "count", big);
	case SL_AGGFN_SUM:
		return flist_add(
		    l, "sum",
		    t0->kind == SL_INT || t0->kind == SL_BIGINT ? big : dbl);
	case SL_AGGFN_AVG:
		if ((rc = flist_add(l, "sum", dbl)) == 0)
			rc = flist_add(l, "count", big);
		return rc;
	case SL_AGGFN_MIN: return flist_add(l, "min", t0);
	case SL_AGGFN_MAX: return flist_add(l, "max", t0);
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST:
		if ((rc = flist_add(l,
				    b->fn == SL_AGGFN_FIRST ? "first" : "last",
				    t0)) == 0)
			rc = flist_add(l, "valueSet", sl_type_prim(SL_BOOLEAN));
		return rc;
	case SL_AGGFN_APPROX: {
		double rsd = a->rsd > 0 ? a->rsd : 0.05;
		/* agg.c's register count, from the same rsd */
		b->p = (int)ceil(2.0 * log(1.106 / rsd) / log(2.0));
		if (b->p < 4)
			b->p = 4;
		return flist_add(l, "registers", sl_type_prim(SL_BINARY));
	}
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY:
		if ((rc = flist_add(l, "valueWithExtremumOrdering", t0)) == 0)
			rc = flist_add(l, "extremumOrdering", t1);
		return rc;
	default: return SL_EANALYSIS; /* collect_list: no streaming buffer */
	}
}

static int codec_agg(sl_state_codec *c, const sl_plan *p, sl_err *err)
{
	flist k, v;
	int i, rc = 0;
	memset(&k, 0, sizeof k);
	memset(&v, 0, sizeof v);
	c->naggs = p->naggs;
	c->aggs = calloc((size_t)p->naggs + 1, sizeof *c->aggs);
	if (c->aggs == NULL)
		return sl_err_nomem(err);
	/* the key columns as the query names them (the intermediate
	 * schema's are internal: _k0, ...) */
	for (i = 0; i < p->nkeys && rc == 0; i++) {
		char *name = sl_plan_expr_name(p->keys[i]);
		rc = name == NULL
			 ? SL_ENOMEM
			 : flist_add(&k, name, p->inter->fields[i].type);
		free(name);
	}
	for (i = 0; i < p->naggs && rc == 0; i++)
		rc = agg_fields(&v, &p->aggs[i], &c->aggs[i]);
	if (rc == 0 && ((c->key[0] = flist_struct(&k, err)) == NULL ||
			(c->val[0] = flist_struct(&v, err)) == NULL))
		rc = err ? err->code : SL_ENOMEM;
	else if (rc == SL_EANALYSIS)
		rc = sl_err_set(
		    err, SL_EANALYSIS,
		    "state: aggregate '%s' keeps no streaming buffer",
		    p->aggs[i - 1].fname);
	else if (rc == SL_ENOMEM)
		sl_err_nomem(err);
	flist_release(&k);
	flist_release(&v);
	return rc;
}

static int codec_dedup(sl_state_codec *c, const sl_plan *p, sl_err *err)
{
	const sl_type *in = p->child[0]->schema;
	flist k;
	int i, rc = 0;
	memset(&k, 0, sizeof k);
	for (i = 0; i < p->ndedup && rc == 0; i++)
		rc = flist_add(&k, in->fields[p->dedup_cols[i]].name,
			       in->fields[p->dedup_cols[i]].type);
	if (rc < 0)
		sl_err_nomem(err);
	else if ((c->key[0] = flist_struct(&k, err)) == NULL)
		rc = err ? err->code : SL_ENOMEM;
	flist_release(&k);
	return rc;
}

static int codec_join(sl_state_codec *c, const sl_plan *p, sl_err *err)
{
	int s, i, rc = 0;
	char name[32];
	c->hdr = p->jtype == SL_JOIN_INNER ? 8 : 9; /* op_ssjoin.c's */
	for (s = 0; s < 2 && rc == 0; s++) {
		flist k;
		sl_expr *const *keys = s == 0 ? p->lkeys : p->rkeys;
		memset(&k, 0, sizeof k);
		for (i = 0; i < p->njkeys && rc == 0; i++) {
			snprintf(name, sizeof name, "field%d", i);
			rc = flist_add(&k, name, keys[i]->rtype);
		}
		if (rc < 0)
			sl_err_nomem(err);
		else if ((c->key[s] = flist_struct(&k, err)) == NULL)
			rc = err ? err->code : SL_ENOMEM;
		flist_release(&k);
		c->val[s] = sl_type_ref(p->child[s]->schema);
	}
	return rc;
}

/* The value types the codec kind fixes (Spark's: dropDuplicates'
 * __dummy__ NULL, within watermark expiresAtMicros, the limit's count),
 * and the limit's key. */
static int fixed_types(sl_state_codec *c, sl_err *err)
{
	if (c->kind == CK_DEDUP)
		c->val[0] =
		    one_field("__dummy__", sl_type_prim(SL_NULLTYPE), err);
	else if (c->kind == CK_DEDUP_WM)
		c->val[0] =
		    one_field("expiresAtMicros", sl_type_prim(SL_BIGINT), err);
	else if (c->kind == CK_LIMIT) {
		c->key[0] = one_field("key", sl_type_prim(SL_NULLTYPE), err);
		c->val[0] = one_field("value", sl_type_prim(SL_BIGINT), err);
	} else
		return 0;
	return c->val[0] != NULL && (c->kind != CK_LIMIT || c->key[0] != NULL)
		   ? 0
		   : SL_ENOMEM;
}

/* t's fields and one more (borrowed types). */
static sl_type *plus_field(const sl_type *t, const char *name, sl_type *ft,
			   sl_err *err)
{
	sl_type *o = sl_type_struct_new(t->nfields + 1);
	int i, rc = o == NULL ? SL_ENOMEM : 0;
	for (i = 0; i < t->nfields && rc == 0; i++)
		rc = sl_type_set_field(o, i, t->fields[i].name,
				       sl_type_ref(t->fields[i].type), true);
	if (rc == 0)
		rc = sl_type_set_field(o, i, name, ft, true);
	if (rc < 0) {
		sl_type_free(o);
		sl_err_nomem(err);
		return NULL;
	}
	return o;
}

/* A join's keyWithIndexToValue types from its side types. */
static int kwi_types(sl_state_codec *c, sl_err *err)
{
	int s;
	for (s = 0; s < 2 && c->kind == CK_JOIN; s++)
		if ((c->kwik[s] = plus_field(c->key[s], "index",
					     sl_type_prim(SL_BIGINT), err)) ==
			NULL ||
		    (c->kwiv[s] = plus_field(c->val[s], "matched",
					     sl_type_prim(SL_BOOLEAN), err)) ==
			NULL)
			return SL_ENOMEM;
	return 0;
}

static int make_decoders(sl_state_codec *c, sl_err *err);

sl_state_codec *sl_state_codec_of_op(const sl_op *op, sl_err *err)
{
	sl_state_codec *c;
	int rc = 0;
	if (op == NULL || op->sf == NULL) {
		sl_err_set(err, SL_EINTERNAL, "state: not a stateful operator");
		return NULL;
	}
	if ((c = codec_new(op->sf->name, err)) == NULL)
		return NULL;
	switch (c->kind) {
	case CK_SESSION:
		c->skey = sl_plan_session_key(op->plan);
		/* fall through */
	case CK_AGG: rc = codec_agg(c, op->plan, err); break;
	case CK_DEDUP:
	case CK_DEDUP_WM: rc = codec_dedup(c, op->plan, err); break;
	case CK_JOIN: rc = codec_join(c, op->plan, err); break;
	case CK_LIMIT: break;
	}
	if (rc == 0 && (rc = fixed_types(c, err)) < 0)
		sl_err_nomem(err);
	if (rc == 0)
		rc = kwi_types(c, err);
	if (rc == 0)
		rc = make_decoders(c, err);
	if (rc < 0) {
		sl_state_codec_free(c);
		return NULL;
	}
	return c;
}

const char *sl_state_codec_operator(const sl_state_codec *c)
{
	return c->opname;
}

bool sl_state_codec_is_join(const sl_state_codec *c)
{
	return c->kind == CK_JOIN;
}

sl_type *sl_state_codec_key_type(const sl_state_codec *c, int side)
{
	if (c->kind != CK_JOIN)
		return c->key[0];
	return side >= 2 ? c->kwik[side & 1] : c->key[side & 1];
}

sl_type *sl_state_codec_value_type(const sl_state_codec *c, int side)
{
	if (c->kind != CK_JOIN)
		return c->val[0];
	return side >= 2 ? c->kwiv[side & 1] : c->val[side & 1];
}

/* ------------------------------------------------------------ text */

static void put_name(sl_buf *b, const char *name)
{
	sl_buf_addc(b, '`');
	for (; *name; name++) {
		if (*name == '`')
			sl_buf_addc(b, '`');
		sl_buf_addc(b, *name);
	}
	sl_buf_addc(b, '`');
}

static void put_type(sl_buf *b, const sl_type *t)
{
	int i;
	if (t->kind == SL_STRUCT) {
		sl_buf_adds(b, "STRUCT<");
		for (i = 0; i < t->nfields; i++) {
			if (i > 0)
				sl_buf_adds(b, ", ");
			put_name(b, t->fields[i].name);
			sl_buf_adds(b, ": ");
			put_type(b, t->fields[i].type);
		}
		sl_buf_addc(b, '>');
	} else if (t->kind == SL_ARRAY) {
		sl_buf_adds(b, "ARRAY<");
		put_type(b, t->elem);
		sl_buf_addc(b, '>');
	} else {
		sl_type_sql(t, b);
	}
}

static void put_ddl(sl_buf *b, const char *word, const sl_type *st)
{
	int i;
	sl_buf_printf(b, "%s ", word);
	for (i = 0; i < st->nfields; i++) {
		if (i > 0)
			sl_buf_adds(b, ", ");
		put_name(b, st->fields[i].name);
		sl_buf_addc(b, ' ');
		put_type(b, st->fields[i].type);
	}
	sl_buf_addc(b, '\n');
}

static const char *fn_name(int fn)
{
	static const char *const names[] = {
		[SL_AGGFN_COUNT] = "count",
		[SL_AGGFN_SUM] = "sum",
		[SL_AGGFN_AVG] = "avg",
		[SL_AGGFN_MIN] = "min",
		[SL_AGGFN_MAX] = "max",
		[SL_AGGFN_FIRST] = "first",
		[SL_AGGFN_LAST] = "last",
		[SL_AGGFN_APPROX] = "approx_count_distinct",
		[SL_AGGFN_MINBY] = "min_by",
		[SL_AGGFN_MAXBY] = "max_by",
	};
	return fn >= 0 && fn < (int)(sizeof names / sizeof names[0]) &&
		       names[fn] != NULL
		   ? names[fn]
		   : "?";
}

int sl_state_codec_text(const sl_state_codec *c, sl_buf *out, sl_err *err)
{
	int i;
	sl_buf_printf(out, "v1\noperator %s\n", c->opname);
	if (c->kind != CK_LIMIT)
		put_ddl(out, "key", c->key[0]);
	if (c->kind == CK_AGG || c->kind == CK_SESSION || c->kind == CK_JOIN)
		put_ddl(out, "value", c->val[0]);
	if (c->kind == CK_JOIN) {
		put_ddl(out, "key1", c->key[1]);
		put_ddl(out, "value1", c->val[1]);
		sl_buf_printf(out, "layout %d\n", c->hdr);
	}
	if (c->kind == CK_AGG || c->kind == CK_SESSION) {
		sl_buf_adds(out, "layout");
		if (c->kind == CK_SESSION)
			sl_buf_printf(out, " session/%d", c->skey);
		for (i = 0; i < c->naggs; i++) {
			sl_buf_printf(out, " %s", fn_name(c->aggs[i].fn));
			if (c->aggs[i].fn == SL_AGGFN_APPROX)
				sl_buf_printf(out, "/%d", c->aggs[i].p);
		}
		sl_buf_addc(out, '\n');
	}
	return sl_buf_failed(out) ? sl_err_nomem(err) : 0;
}

/* Fields an aggregate's buffer takes in the value struct. */
static int agg_nfields(int fn)
{
	switch (fn) {
	case SL_AGGFN_AVG:
	case SL_AGGFN_FIRST:
	case SL_AGGFN_LAST:
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY: return 2;
	default: return 1;
	}
}

static int parse_layout(sl_state_codec *c, char *words)
{
	char *save = NULL, *w;
	int n = 0, fields = 0;
	if (c->kind == CK_JOIN) {
		c->hdr = atoi(words);
		return c->hdr == 8 || c->hdr == 9 ? 0 : BAD;
	}
	free(c->aggs); /* a second layout line replaces the first */
	c->aggs = calloc(strlen(words) / 2 + 2, sizeof *c->aggs);
	if (c->aggs == NULL)
		return SL_ENOMEM;
	for (w = strtok_r(words, " ", &save); w != NULL;
	     w = strtok_r(NULL, " ", &save)) {
		char *slash = strchr(w, '/');
		if (slash != NULL)
			*slash++ = '\0';
		if (strcmp(w, "session") == 0) {
			if (c->kind != CK_SESSION || slash == NULL)
				return BAD;
			c->skey = atoi(slash);
			continue;
		}
		if ((c->aggs[n].fn = sl_aggfn_of(w)) < 0 ||
		    c->aggs[n].fn == SL_AGGFN_COLLECT)
			return BAD;
		c->aggs[n].p = slash != NULL ? atoi(slash) : 0;
		if (c->aggs[n].fn == SL_AGGFN_APPROX &&
		    (c->aggs[n].p < 4 || c->aggs[n].p > 18))
			return BAD;
		fields += agg_nfields(c->aggs[n].fn);
		n++;
	}
	c->naggs = n;
	if (c->val[0] == NULL || fields != c->val[0]->nfields)
		return BAD;
	if (c->kind == CK_SESSION &&
	    (c->key[0] == NULL || c->skey < 0 ||
	     c->skey >= c->key[0]->nfields ||
	     c->key[0]->fields[c->skey].type->kind != SL_STRUCT ||
	     c->key[0]->fields[c->skey].type->nfields != 2))
		return BAD;
	return 0;
}

/* One "word rest" line into the codec; BAD when it does not parse. */
static int parse_line(sl_state_codec *c, char *line, bool *layout, sl_err *err)
{
	char *rest = strchr(line, ' ');
	sl_type **slot = NULL;
	if (rest == NULL)
		return BAD;
	*rest++ = '\0';
	if (strcmp(line, "layout") == 0) {
		*layout = true;
		return parse_layout(c, rest);
	}
	if (strcmp(line, "key") == 0)
		slot = &c->key[0];
	else if (strcmp(line, "value") == 0)
		slot = &c->val[0];
	else if (strcmp(line, "key1") == 0)
		slot = &c->key[1];
	else if (strcmp(line, "value1") == 0)
		slot = &c->val[1];
	if (slot == NULL)
		return 0; /* a later version's line: ignored */
	if ((c->kind == CK_DEDUP || c->kind == CK_DEDUP_WM ||
	     c->kind == CK_LIMIT) &&
	    slot != &c->key[0])
		return 0; /* fixed by the kind */
	sl_type_free(*slot);
	*slot = sl_type_parse_ddl(rest, err);
	return *slot != NULL ? 0 : BAD;
}

sl_state_codec *sl_state_codec_parse(const char *text, const char *path,
				     sl_err *err)
{
	char *copy = strdup(text), *save = NULL, *line;
	sl_state_codec *c = NULL;
	bool layout = false;
	int rc = 0, s;
	if (copy == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	line = strtok_r(copy, "\n", &save);
	if (line == NULL || strcmp(line, "v1") != 0)
		goto bad;
	line = strtok_r(NULL, "\n", &save);
	if (line == NULL || strncmp(line, "operator ", 9) != 0 ||
	    (c = codec_new(line + 9, NULL)) == NULL)
		goto bad;
	if (fixed_types(c, err) < 0)
		goto nomem;
	/* key and value lines come before layout, which checks them */
	while ((line = strtok_r(NULL, "\n", &save)) != NULL && rc == 0)
		rc = parse_line(c, line, &layout, NULL);
	if (rc == SL_ENOMEM)
		goto nomem;
	if (rc < 0)
		goto bad;
	for (s = 0; s < (c->kind == CK_JOIN ? 2 : 1); s++)
		if (c->key[s] == NULL || c->val[s] == NULL)
			goto bad;
	if (!layout &&
	    (c->kind == CK_AGG || c->kind == CK_SESSION || c->kind == CK_JOIN))
		goto bad;
	if (kwi_types(c, err) < 0 || make_decoders(c, err) < 0)
		goto nomem;
	free(copy);
	return c;
nomem:
	free(copy);
	sl_state_codec_free(c);
	sl_err_nomem(err);
	return NULL;
bad:
	free(copy);
	sl_state_codec_free(c);
	sl_err_set(err, SL_ECHECKPOINT, "state schema file '%s' is corrupt",
		   path);
	return NULL;
}

/* ---------------------------------------------------------- decode */

/* Aggregate i's decoder: an sl_agg of the same function over argument
 * types its buffer fields fix (agg.c reads its own bytes: the layout
 * lives in one place), or NULL when no sl_agg takes those types. */
static sl_agg *agg_decoder(const aggbuf *b, sl_type *const *f)
{
	sl_type *args[2] = { f[0], f[0] };
	bool rows = false;
	double rsd = 0;
	int nargs = 1;
	switch (b->fn) {
	case SL_AGGFN_COUNT: rows = true, nargs = 0; break;
	case SL_AGGFN_AVG: args[0] = sl_type_prim(SL_DOUBLE); break;
	case SL_AGGFN_APPROX:
		args[0] = sl_type_prim(SL_STRING);
		/* agg.c's p = ceil(2 log2(1.106 / rsd)) gives b->p back */
		rsd = 1.106 / pow(2.0, ((double)b->p - 0.5) / 2.0);
		break;
	case SL_AGGFN_MINBY:
	case SL_AGGFN_MAXBY:
		args[1] = f[1];
		nargs = 2;
		break;
	default: break;
	}
	return sl_agg_new(fn_name(b->fn), false, rows, args, nargs, rsd, NULL);
}

/* The decoders and the result type (aggregation and session kinds). */
static int make_decoders(sl_state_codec *c, sl_err *err)
{
	flist r;
	int i, at = 0, rc = 0;
	if (c->kind != CK_AGG && c->kind != CK_SESSION)
		return 0;
	memset(&r, 0, sizeof r);
	c->dec = calloc((size_t)c->naggs + 1, sizeof *c->dec);
	if (c->dec == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < c->naggs && rc == 0; i++) {
		sl_type *ft[2];
		int k, nf = agg_nfields(c->aggs[i].fn);
		if (at + nf > c->val[0]->nfields)
			return SL_EINTERNAL; /* parse_layout checked it */
		for (k = 0; k < nf; k++)
			ft[k] = c->val[0]->fields[at + k].type;
		c->dec[i] = agg_decoder(&c->aggs[i], ft);
		rc = flist_add(&r, fn_name(c->aggs[i].fn),
			       c->dec[i] != NULL
				   ? (sl_type *)sl_agg_result_type(c->dec[i])
				   : sl_type_prim(SL_NULLTYPE));
		at += nf;
	}
	if (rc == 0 && (c->res = flist_struct(&r, err)) == NULL)
		rc = SL_ENOMEM;
	flist_release(&r);
	return rc < 0 ? sl_err_nomem(err) : 0;
}

/* The aggregates' buffers at v[at..n): into their buffer fields of val,
 * or (res) their results into val's fields one per aggregate. */
static int rd_aggs(const sl_state_codec *c, const unsigned char *v, size_t n,
		   size_t at, bool res, sl_col *val, int64_t i)
{
	int a, f = 0, rc;
	for (a = 0; a < c->naggs; a++) {
		size_t used = 0;
		if (c->dec[a] == NULL)
			return BAD;
		rc = sl_agg_decode(c->dec[a], v + at, n - at, &used,
				   res ? NULL : val->child + f,
				   res ? val->child[a] : NULL, i, NULL);
		if (rc < 0)
			return rc == SL_ENOMEM ? rc : BAD;
		at += used;
		f += agg_nfields(c->aggs[a].fn);
	}
	return at == n ? 0 : BAD;
}

static int64_t be64(const unsigned char *x)
{
	uint64_t u = 0;
	int i;
	for (i = 0; i < 8; i++)
		u = (u << 8) | x[i];
	return (int64_t)(u ^ UINT64_C(0x8000000000000000));
}

/* The whole row i of a STRUCT column c NULL. */
static int null_row(sl_col *c, int64_t i)
{
	int k;
	if (sl_col_set_null(c, i) < 0)
		return SL_ENOMEM;
	for (k = 0; c->type->kind == SL_STRUCT && k < c->nchild; k++)
		if (null_row(c->child[k], i) < 0)
			return SL_ENOMEM;
	return 0;
}

static int decode_session_key(const sl_state_codec *c, const unsigned char *k,
			      size_t klen, const unsigned char *v, size_t vlen,
			      sl_col *key, int64_t row, sl_err *err)
{
	sl_col *ok[64], *sw = key->child[c->skey];
	int i, n = 0, rc;
	size_t used;
	int64_t end;
	if (klen < 8 || key->nchild > 64)
		return BAD;
	for (i = 0; i < key->nchild; i++)
		if (i != c->skey)
			ok[n++] = key->child[i];
	if ((rc = sl_hash_key_decode(ok, n, row, k, klen - 8, &used, err)) < 0)
		return rc;
	if (used != klen - 8)
		return BAD;
	sl_col_i64(sw->child[0])[row] = be64(k + klen - 8);
	if (v == NULL || vlen < 8)
		return v == NULL
			   ? (sl_col_set_null(sw->child[1], row) < 0 ? SL_ENOMEM
								     : 0)
			   : BAD;
	memcpy(&end, v, 8);
	sl_col_i64(sw->child[1])[row] = end;
	return 0;
}

int sl_state_codec_side(const sl_state_codec *c, const void *k, size_t klen)
{
	if (c->kind != CK_JOIN)
		return 0;
	return klen > 0 ? *(const unsigned char *)k : -1;
}

/* The layout-specific part; BAD for bytes that do not match. */
static int decode(const sl_state_codec *c, int side, const unsigned char *k,
		  size_t klen, const unsigned char *v, size_t vlen, bool res,
		  sl_col *key, sl_col *val, int64_t row, sl_err *err)
{
	size_t used = 0;
	int64_t t;
	int rc;
	switch (c->kind) {
	case CK_AGG:
		if ((rc = sl_hash_key_decode(key->child, key->nchild, row, k,
					     klen, &used, err)) < 0)
			return rc;
		if (used != klen)
			return BAD;
		return v == NULL ? null_row(val, row)
				 : rd_aggs(c, v, vlen, 0, res, val, row);
	case CK_SESSION:
		if ((rc = decode_session_key(c, k, klen, v, vlen, key, row,
					     err)) < 0)
			return rc;
		if (v == NULL)
			return null_row(val, row);
		return rd_aggs(c, v, vlen, 8, res, val, row);
	case CK_DEDUP:
	case CK_DEDUP_WM:
		if ((rc = sl_hash_key_decode(key->child, key->nchild, row, k,
					     klen, &used, err)) < 0)
			return rc;
		if (used != klen)
			return BAD;
		if (v == NULL)
			return null_row(val, row);
		if (c->kind == CK_DEDUP)
			return null_row(val->child[0], row);
		if (vlen != 8)
			return BAD;
		memcpy(&t, v, 8);
		sl_col_i64(val->child[0])[row] = t;
		return 0;
	case CK_JOIN: {
		/* side 2/3: keyWithIndexToValue, the row number as index and
		 * the matched flag (false for an inner join's rows) */
		int nk = key->nchild - (side >= 2),
		    nv = val->nchild - (side >= 2);
		if (klen < 9 || k[0] != (side & 1))
			return BAD;
		if ((rc = sl_hash_key_decode(key->child, nk, row, k + 1,
					     klen - 9, &used, err)) < 0)
			return rc;
		if (used != klen - 9)
			return BAD;
		if (side >= 2)
			sl_col_i64(key->child[nk])[row] =
			    (int64_t)((uint64_t)be64(k + klen - 8) ^
				      UINT64_C(0x8000000000000000));
		if (v == NULL)
			return null_row(val, row);
		if (vlen < (size_t)c->hdr)
			return BAD;
		if ((rc = sl_hash_key_decode(val->child, nv, row, v + c->hdr,
					     vlen - (size_t)c->hdr, &used,
					     err)) < 0)
			return rc;
		if (side >= 2)
			sl_col_u8(val->child[nv])[row] =
			    c->hdr > 8 && v[8] != 0;
		return used == vlen - (size_t)c->hdr ? 0 : BAD;
	}
	case CK_LIMIT:
		if (null_row(key->child[0], row) < 0)
			return SL_ENOMEM;
		if (v == NULL)
			return null_row(val, row);
		if (vlen != 8)
			return BAD;
		memcpy(&t, v, 8);
		sl_col_i64(val->child[0])[row] = t;
		return 0;
	}
	return BAD;
}

static int decode_err(const sl_state_codec *c, int rc, sl_err *err)
{
	if (rc == SL_ENOMEM)
		return sl_err_nomem(err);
	return sl_err_set(
	    err, SL_ECHECKPOINT,
	    "state: an entry of operator '%s' does not decode with its recorded schema",
	    c->opname);
}

int sl_state_codec_decode(const sl_state_codec *c, int side, const void *k,
			  size_t klen, const void *v, size_t vlen, sl_col *key,
			  sl_col *val, int64_t row, sl_err *err)
{
	sl_err e;
	int rc = decode(c, side, k, klen, v, vlen, false, key, val, row, &e);
	return rc < 0 ? decode_err(c, rc, err) : 0;
}

sl_type *sl_state_codec_result_type(const sl_state_codec *c)
{
	return c->res != NULL ? c->res : sl_state_codec_value_type(c, 0);
}

int sl_state_codec_decode_result(const sl_state_codec *c, const void *k,
				 size_t klen, const void *v, size_t vlen,
				 sl_col *key, sl_col *res, int64_t row,
				 sl_err *err)
{
	sl_err e;
	int rc = decode(c, 0, k, klen, v, vlen, c->res != NULL, key, res, row,
			&e);
	return rc < 0 ? decode_err(c, rc, err) : 0;
}
