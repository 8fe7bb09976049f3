/*
 * state_read: a checkpoint's state as rows (state_read.h), Spark 4.0's
 * StateDataSource / StatePartitionReader / StateMetadataSource over our
 * checkpoint layout (state/ckpt.h).
 *
 * Which batches can be read: a committed batch B (commits/B) whose state
 * version B + 1 loads: the newest snapshot <= B + 1 (or version 0) and
 * every delta after it up to B + 1.  Retention (minBatchesToRetain) purges
 * the logs and the state files older than what the oldest kept batch
 * needs, so the oldest readable batch is the oldest commit left; a batch
 * below it is "already purged", one above the last commit "not committed".
 * While a query runs its checkpoint keeps changing: a listing is a
 * snapshot of the moment the reader opened it (Spark's caveat too).
 *
 * The codec (exec/state_codec.h) comes from state/<op>/0/_metadata/schema,
 * which the query writes at start (query_ckpt.c); a checkpoint from before
 * that has none and its state cannot be typed: the error says to start the
 * query on it once.  state/<op>/_metadata/metadata (Spark's operator
 * metadata, v1) names the operator for state-metadata.
 *
 * Never writes, never prints; everything it hands out is owned by the
 * reader or a new reference.
 */
#include "driver/state_read.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fsutil.h"
#include "exec/state_codec.h"
#include "expr/expr.h"
#include "state/ckpt.h"

typedef struct opent {
	sl_state_opinfo info;
	char *name, *store, *mode;
	int64_t *snaps, *deltas; /* version ids in state/<op>/0 */
	int nsnaps, ndeltas;
} opent;

struct sl_state_read {
	sl_ckpt *ck;
	int64_t *commits, *offsets;
	int ncommits, noffsets;
	opent *ops;
	int nops;
};

/* ----------------------------------------------------------- open */

static bool in_ids(const int64_t *ids, int n, int64_t v)
{
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (ids[mid] == v)
			return true;
		if (ids[mid] < v)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/* How many ids are <= v (ids ascending). */
static int count_upto(const int64_t *ids, int n, int64_t v)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (ids[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* State version v of o loads from its files (ckpt_state.c's rule). */
static bool loadable(const opent *o, int64_t v)
{
	int64_t base = 0;
	int i = count_upto(o->snaps, o->nsnaps, v);
	if (v <= 0)
		return true;
	if (i > 0)
		base = o->snaps[i - 1];
	return count_upto(o->deltas, o->ndeltas, v) -
		   count_upto(o->deltas, o->ndeltas, base) ==
	       v - base;
}

/* The value of "key":"..." in a flat JSON text (our own files), malloc'd,
 * or NULL. */
static char *json_str(const char *json, const char *key)
{
	char pat[64];
	const char *p, *e;
	snprintf(pat, sizeof pat, "\"%s\":\"", key);
	if ((p = strstr(json, pat)) == NULL)
		return NULL;
	p += strlen(pat);
	if ((e = strchr(p, '"')) == NULL)
		return NULL;
	return strndup(p, (size_t)(e - p));
}

static int read_op(sl_state_read *r, opent *o, int64_t id, sl_err *err)
{
	char p[4400], *data = NULL;
	size_t len;
	int64_t *parts = NULL;
	int nparts = 0, rc, i;
	o->info.operator_id = (int)id;
	snprintf(p, sizeof p, "%s/state/%lld/_metadata/metadata",
		 sl_ckpt_dir(r->ck), (long long)id);
	if (sl_fs_read(p, &data, &len, NULL, NULL) == 0) {
		o->name = json_str(data, "operatorName");
		o->store = json_str(data, "storeName");
		free(data);
	}
	snprintf(p, sizeof p, "%s/state/%lld", sl_ckpt_dir(r->ck),
		 (long long)id);
	if ((rc = sl_fs_list_ids(p, NULL, &parts, &nparts, err)) < 0)
		return rc;
	free(parts);
	snprintf(p, sizeof p, "%s/state/%lld/0", sl_ckpt_dir(r->ck),
		 (long long)id);
	if ((rc = sl_fs_list_ids(p, ".snapshot", &o->snaps, &o->nsnaps, err)) <
		0 ||
	    (rc = sl_fs_list_ids(p, ".delta", &o->deltas, &o->ndeltas, err)) <
		0)
		return rc;
	o->info.operator_name = o->name != NULL ? o->name : "unknown";
	o->info.store_name = o->store != NULL ? o->store : "default";
	o->info.num_partitions = nparts > 0 ? nparts : 1;
	snprintf(p, sizeof p, "%s/state/%lld/0/_metadata/schema",
		 sl_ckpt_dir(r->ck), (long long)id);
	o->info.has_schema = sl_fs_exists(p);
	if (o->info.has_schema && sl_fs_read(p, &data, &len, NULL, NULL) == 0) {
		/* the query's line after the codec's (state_codec.h) */
		const char *m = strstr(data, "\noutputMode ");
		if (m != NULL)
			o->mode = strndup(m + 12, strcspn(m + 12, "\n"));
		free(data);
	}
	o->info.output_mode = o->mode;
	o->info.min_batch = o->info.max_batch = -1;
	for (i = 0; i < r->ncommits; i++)
		if (loadable(o, r->commits[i] + 1)) {
			if (o->info.min_batch < 0)
				o->info.min_batch = r->commits[i];
			o->info.max_batch = r->commits[i];
		}
	return 0;
}

sl_state_read *sl_state_read_open(const char *dir, sl_err *err)
{
	sl_state_read *r;
	char p[4200];
	int64_t *ops = NULL;
	int nops = 0, i, rc = 0;
	bool any = false;
	static const char *const parts[] = { "offsets", "commits", "state",
					     "metadata" };
	if ((r = calloc(1, sizeof *r)) == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if ((r->ck = sl_ckpt_open_ro(dir, err)) == NULL)
		goto fail;
	for (i = 0; i < 4; i++) {
		sl_ckpt_path(r->ck, parts[i], p, sizeof p);
		any = any || sl_fs_exists(p);
	}
	if (!any) {
		sl_err_set(err, SL_ECHECKPOINT,
			   "'%s' is not a streaming checkpoint (no offsets, "
			   "commits or state in it)",
			   dir);
		goto fail;
	}
	sl_ckpt_path(r->ck, "commits", p, sizeof p);
	if ((rc = sl_fs_list_ids(p, NULL, &r->commits, &r->ncommits, err)) < 0)
		goto fail;
	sl_ckpt_path(r->ck, "offsets", p, sizeof p);
	if ((rc = sl_fs_list_ids(p, NULL, &r->offsets, &r->noffsets, err)) < 0)
		goto fail;
	sl_ckpt_path(r->ck, "state", p, sizeof p);
	if ((rc = sl_fs_list_ids(p, NULL, &ops, &nops, err)) < 0)
		goto fail;
	if (nops > 0 &&
	    (r->ops = calloc((size_t)nops, sizeof *r->ops)) == NULL) {
		sl_err_nomem(err);
		goto fail;
	}
	for (i = 0; i < nops; i++) {
		r->nops++;
		if (read_op(r, &r->ops[i], ops[i], err) < 0)
			goto fail;
	}
	free(ops);
	return r;
fail:
	free(ops);
	sl_state_read_free(r);
	return NULL;
}

void sl_state_read_free(sl_state_read *r)
{
	int i;
	if (r == NULL)
		return;
	for (i = 0; i < r->nops; i++) {
		free(r->ops[i].name);
		free(r->ops[i].store);
		free(r->ops[i].mode);
		free(r->ops[i].snaps);
		free(r->ops[i].deltas);
	}
	free(r->ops);
	free(r->commits);
	free(r->offsets);
	sl_ckpt_close(r->ck);
	free(r);
}

const char *sl_state_read_dir(const sl_state_read *r)
{
	return sl_ckpt_dir(r->ck);
}

int64_t sl_state_read_last_batch(const sl_state_read *r)
{
	return r->ncommits > 0 ? r->commits[r->ncommits - 1] : -1;
}

int64_t sl_state_read_first_batch(const sl_state_read *r)
{
	return r->ncommits > 0 ? r->commits[0] : -1;
}

int sl_state_read_nops(const sl_state_read *r)
{
	return r->nops;
}

const sl_state_opinfo *sl_state_read_op(const sl_state_read *r, int i)
{
	return i >= 0 && i < r->nops ? &r->ops[i].info : NULL;
}

/* A join's stores by Spark's names, and the codec side that reads each
 * (state_codec.h): keyWithIndexToValue decodes as sides 2/3,
 * keyToNumValues counts the rows of each key of sides 0/1. */
static const struct {
	const char *name;
	int side;
	bool numvalues;
} join_stores[] = {
	{ "left-keyToNumValues", 0, true },
	{ "left-keyWithIndexToValue", 2, false },
	{ "right-keyToNumValues", 1, true },
	{ "right-keyWithIndexToValue", 3, false },
};
#define NJOIN_STORES 4

static bool is_join_name(const char *name)
{
	return strcmp(name, "symmetricHashJoin") == 0;
}

/* ------------------------------------------------------ batch rows */

/* A row schema from n names and types (borrowed). */
static sl_type *row_type(int n, const char *const *names, sl_type *const *t,
			 sl_err *err)
{
	sl_type *s = sl_type_struct_new(n);
	int i;
	for (i = 0; s != NULL && i < n; i++)
		if (sl_type_set_field(s, i, names[i], sl_type_ref(t[i]), true) <
		    0) {
			sl_type_free(s);
			s = NULL;
		}
	if (s == NULL)
		sl_err_nomem(err);
	return s;
}

/* A batch of schema over cols[0..n) (taken), nrows rows. */
static sl_batch *make_batch(sl_type *schema, int64_t nrows, sl_col **cols,
			    int n, sl_err *err)
{
	sl_batch *b;
	int i;
	for (i = 0; i < n; i++)
		if (cols[i] == NULL) {
			while (n-- > 0)
				sl_col_free(cols[n]);
			sl_type_free(schema);
			sl_err_nomem(err);
			return NULL;
		}
	b = schema != NULL ? sl_batch_new(schema, nrows, cols) : NULL;
	if (schema == NULL)
		for (i = 0; i < n; i++)
			sl_col_free(cols[i]);
	sl_type_free(schema);
	if (b == NULL)
		sl_err_nomem(err);
	return b;
}

/* The state-metadata rows: one per operator, one per store of a join
 * (Spark lists a join's four stores). */
static int metadata_nrows(const sl_state_read *r)
{
	int i, n = 0;
	for (i = 0; i < r->nops; i++)
		n += is_join_name(r->ops[i].info.operator_name) ? NJOIN_STORES
								: 1;
	return n;
}

sl_batch *sl_state_read_metadata(sl_state_read *r, sl_err *err)
{
	static const char *const names[] = { "operatorId",     "operatorName",
					     "stateStoreName", "numPartitions",
					     "minBatchId",     "maxBatchId" };
	sl_type *t[6], *schema;
	sl_col *c[6];
	int i, k, row = 0, n = metadata_nrows(r), rc = 0;
	t[0] = t[3] = sl_type_prim(SL_INT);
	t[1] = t[2] = sl_type_prim(SL_STRING);
	t[4] = t[5] = sl_type_prim(SL_BIGINT);
	if ((schema = row_type(6, names, t, err)) == NULL)
		return NULL;
	for (k = 0; k < 6; k++)
		if ((c[k] = sl_col_new(t[k], n)) == NULL)
			rc = SL_ENOMEM;
	for (i = 0; i < r->nops && rc == 0; i++) {
		const sl_state_opinfo *o = &r->ops[i].info;
		bool join = is_join_name(o->operator_name);
		int s;
		for (s = 0; s < (join ? NJOIN_STORES : 1) && rc == 0; s++) {
			const char *store =
			    join ? join_stores[s].name : o->store_name;
			sl_col_i32(c[0])[row] = o->operator_id;
			if (sl_col_set_str(c[1], row, o->operator_name,
					   strlen(o->operator_name)) < 0 ||
			    sl_col_set_str(c[2], row, store, strlen(store)) < 0)
				rc = SL_ENOMEM;
			sl_col_i32(c[3])[row] = o->num_partitions;
			sl_col_i64(c[4])[row] = o->min_batch;
			sl_col_i64(c[5])[row] = o->max_batch;
			if (o->min_batch < 0 &&
			    (sl_col_set_null(c[4], row) < 0 ||
			     sl_col_set_null(c[5], row) < 0))
				rc = SL_ENOMEM;
			row++;
		}
	}
	if (rc < 0)
		for (k = 0; k < 6; k++) {
			sl_col_free(c[k]);
			c[k] = NULL;
		}
	return make_batch(schema, n, c, 6, err);
}

/* ---------------------------------------------------------- options */

void sl_state_read_opts_init(sl_state_read_opts *o)
{
	memset(o, 0, sizeof *o);
	o->batch_id = -1;
	o->join_side = -1;
	o->change_start = o->change_end = -1;
	snprintf(o->store_name, sizeof o->store_name, "default");
}

static int bad_option(sl_err *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_option(sl_err *err, const char *name, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sl_err_set(err, SL_EINVAL,
			  "invalid value for source option '%s': %s", name,
			  msg);
}

/* A non-negative integer option. */
static int int_option(const char *name, const char *value, int64_t max,
		      int64_t *out, sl_err *err)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(value, &end, 10);
	while (end != value && isspace((unsigned char)*end))
		end++;
	if (end == value || *end != '\0' || errno != 0)
		return bad_option(err, name, "'%s' is not an integer", value);
	if (v < 0)
		return bad_option(err, name, "cannot be negative");
	if (v > max)
		return bad_option(err, name, "'%s' is too large", value);
	*out = v;
	return 0;
}

int sl_state_read_opts_set(sl_state_read_opts *o, const char *name,
			   const char *value, sl_err *err)
{
	static const char *const known[] = {
		"batchId",          "operatorId",     "storeName",
		"joinSide",         "readChangeFeed", "changeStartBatchId",
		"changeEndBatchId", "path",
	};
	int64_t v;
	int rc;
	if (strcasecmp(name, "path") == 0)
		return 0;
	if (strcasecmp(name, "batchId") == 0)
		return int_option("batchId", value, INT64_MAX / 2, &o->batch_id,
				  err);
	if (strcasecmp(name, "changeStartBatchId") == 0)
		return int_option("changeStartBatchId", value, INT64_MAX / 2,
				  &o->change_start, err);
	if (strcasecmp(name, "changeEndBatchId") == 0)
		return int_option("changeEndBatchId", value, INT64_MAX / 2,
				  &o->change_end, err);
	if (strcasecmp(name, "operatorId") == 0) {
		if ((rc = int_option("operatorId", value, 1 << 20, &v, err)) <
		    0)
			return rc;
		o->operator_id = (int)v;
		return 0;
	}
	if (strcasecmp(name, "storeName") == 0) {
		const char *s = value, *e;
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		if (e == s)
			return bad_option(err, "storeName", "cannot be empty");
		if ((size_t)(e - s) >= sizeof o->store_name)
			return bad_option(err, "storeName", "'%s' is too long",
					  value);
		snprintf(o->store_name, sizeof o->store_name, "%.*s",
			 (int)(e - s), s);
		return 0;
	}
	if (strcasecmp(name, "joinSide") == 0) {
		if (strcmp(value, "left") == 0 || strcmp(value, "right") == 0 ||
		    strcmp(value, "none") == 0) {
			o->join_side = value[0] == 'l'   ? 0
				       : value[0] == 'r' ? 1
							 : -1;
			return 0;
		}
		return bad_option(err, "joinSide",
				  "'%s' (valid values are left,right,none)",
				  value);
	}
	if (strcasecmp(name, "readChangeFeed") == 0) {
		if (strcasecmp(value, "true") == 0 ||
		    strcasecmp(value, "false") == 0) {
			o->change_feed = strcasecmp(value, "true") == 0;
			return 0;
		}
		return bad_option(err, "readChangeFeed",
				  "'%s' is not a boolean (true or false)",
				  value);
	}
	{
		const char *near = sl_nearest_name(name, known, 8);
		sl_err_set(err, SL_EINVAL, "unknown option '%s'", name);
		if (near != NULL)
			sl_err_hint(err, "did you mean '%s'?", near);
		return SL_EINVAL;
	}
}

int sl_state_read_opts_from(sl_state_read_opts *o, const sl_options *opts,
			    sl_err *err)
{
	int i, rc;
	for (i = 0; i < opts->n; i++)
		if ((rc = sl_state_read_opts_set(o, opts->keys[i],
						 opts->vals[i], err)) < 0)
			return rc;
	return 0;
}

/* ------------------------------------------------------ validation */

static int conflict(sl_err *err, const char *a, const char *b)
{
	return sl_err_set(err, SL_EINVAL,
			  "the options ['%s', '%s'] cannot be specified "
			  "together; please specify only one",
			  a, b);
}

/* Spark's StateSourceOptions checks, in its order; fills the defaults. */
static int check_opts(const sl_state_read *r, sl_state_read_opts *o,
		      sl_err *err)
{
	bool dflt = strcmp(o->store_name, "default") == 0;
	if (o->join_side >= 0 && !dflt)
		return conflict(err, "joinSide", "storeName");
	if (o->change_feed) {
		if (o->join_side >= 0)
			return conflict(err, "joinSide", "readChangeFeed");
		if (o->batch_id >= 0)
			return conflict(err, "batchId", "readChangeFeed");
		if (o->change_start < 0)
			return sl_err_set(err, SL_EINVAL,
					  "'changeStartBatchId' must be "
					  "specified with readChangeFeed");
		if (o->change_end < 0)
			o->change_end = sl_state_read_last_batch(r);
		if (o->change_end < 0)
			goto none;
		if (o->change_end < o->change_start)
			return sl_err_set(
			    err, SL_EINVAL,
			    "invalid value for source option "
			    "'changeEndBatchId': %lld cannot be smaller than "
			    "changeStartBatchId %lld",
			    (long long)o->change_end,
			    (long long)o->change_start);
		return 0;
	}
	if (o->change_start >= 0 || o->change_end >= 0)
		return sl_err_set(err, SL_EINVAL,
				  "invalid value for source option '%s': only "
				  "specify this option when readChangeFeed is "
				  "set to true",
				  o->change_start >= 0 ? "changeStartBatchId"
						       : "changeEndBatchId");
	if (o->batch_id < 0)
		o->batch_id = sl_state_read_last_batch(r);
	if (o->batch_id < 0)
		goto none;
	return 0;
none:
	sl_err_set(err, SL_ECHECKPOINT,
		   "no committed batch found, checkpoint location: '%s'",
		   sl_state_read_dir(r));
	sl_err_hint(err, "ensure that the query has run and committed a "
			 "micro-batch before reading its state");
	return SL_ECHECKPOINT;
}

/* Batch b is committed and kept (retention): its state can be asked for. */
static int check_batch(const sl_state_read *r, const char *option, int64_t b,
		       sl_err *err)
{
	int64_t first = sl_state_read_first_batch(r),
		last = sl_state_read_last_batch(r);
	if (in_ids(r->commits, r->ncommits, b))
		return 0;
	if (b > last) {
		if (in_ids(r->offsets, r->noffsets, b))
			sl_err_set(err, SL_ECHECKPOINT,
				   "invalid value for source option '%s': "
				   "batch %lld is not committed, checkpoint "
				   "location: '%s'",
				   option, (long long)b, sl_state_read_dir(r));
		else
			sl_err_set(err, SL_ECHECKPOINT,
				   "invalid value for source option '%s': the "
				   "offset log for batch %lld does not exist, "
				   "checkpoint location: '%s'",
				   option, (long long)b, sl_state_read_dir(r));
		sl_err_hint(err,
			    "the last committed batch is %lld; "
			    "spark.read:format(\"state-metadata\") lists the "
			    "batches of every operator",
			    (long long)last);
		return SL_ECHECKPOINT;
	}
	sl_err_set(err, SL_ECHECKPOINT,
		   "invalid value for source option '%s': batch %lld is "
		   "already purged from checkpoint '%s' (it keeps batches "
		   "%lld..%lld)",
		   option, (long long)b, sl_state_read_dir(r), (long long)first,
		   (long long)last);
	sl_err_hint(err, "spark.sql.streaming.minBatchesToRetain sets how "
			 "many batches a checkpoint keeps");
	return SL_ECHECKPOINT;
}

static const opent *find_op(const sl_state_read *r, int id, sl_err *err)
{
	int i;
	for (i = 0; i < r->nops; i++)
		if (r->ops[i].info.operator_id == id)
			return &r->ops[i];
	if (r->nops == 0)
		sl_err_set(err, SL_EINVAL,
			   "invalid value for source option 'operatorId': "
			   "checkpoint '%s' has no state (its query has no "
			   "stateful operator)",
			   sl_state_read_dir(r));
	else
		sl_err_set(err, SL_EINVAL,
			   "invalid value for source option 'operatorId': "
			   "checkpoint '%s' has no stateful operator %d "
			   "(operators 0..%d)",
			   sl_state_read_dir(r), id,
			   r->ops[r->nops - 1].info.operator_id);
	return NULL;
}

static sl_state_codec *load_codec(const sl_state_read *r, const opent *o,
				  sl_err *err)
{
	char p[4400], *data;
	size_t len;
	bool enoent = false;
	sl_state_codec *c;
	snprintf(p, sizeof p, "%s/state/%d/0/_metadata/schema",
		 sl_state_read_dir(r), o->info.operator_id);
	if (sl_fs_read(p, &data, &len, &enoent, err) < 0) {
		sl_err_set(err, SL_ECHECKPOINT,
			   "failed to read the state schema of operator %d: "
			   "'%s' %s",
			   o->info.operator_id, p,
			   enoent ? "does not exist" : "cannot be read");
		if (enoent)
			sl_err_hint(err,
				    "a checkpoint written before streamlab "
				    "recorded state schemas: start its "
				    "query on it once to write them");
		return NULL;
	}
	c = sl_state_codec_parse(data, p, err);
	free(data);
	return c;
}

/* A join's store by name: its index in join_stores, or -1. */
static int join_store(const char *name)
{
	int i;
	for (i = 0; i < NJOIN_STORES; i++)
		if (strcmp(join_stores[i].name, name) == 0)
			return i;
	return -1;
}

/* The operator, its codec and the side checks of the options; *side is
 * the codec side to decode (-1: not a join), *numvalues a join's
 * keyToNumValues store. */
static sl_state_codec *open_store(const sl_state_read *r,
				  const sl_state_read_opts *o, int *side,
				  bool *numvalues, sl_err *err)
{
	const opent *op = find_op(r, o->operator_id, err);
	sl_state_codec *c = op != NULL ? load_codec(r, op, err) : NULL;
	const char *name = c != NULL ? sl_state_codec_operator(c) : "";
	bool join = c != NULL && sl_state_codec_is_join(c);
	int js = join ? join_store(o->store_name) : -1;
	*side = join ? o->join_side : -1;
	*numvalues = false;
	if (c == NULL)
		return NULL;
	if (js >= 0) {
		*side = join_stores[js].side;
		*numvalues = join_stores[js].numvalues;
	}
	if (o->join_side >= 0 && !join)
		sl_err_set(err, SL_EINVAL,
			   "invalid value for source option 'joinSide': "
			   "operator %d ('%s') is not a stream-stream join",
			   o->operator_id, name);
	else if (join && o->join_side < 0 && js < 0) {
		sl_err_set(err, SL_EINVAL,
			   "invalid value for source option '%s': operator %d "
			   "is a stream-stream join ('symmetricHashJoin'), "
			   "whose stores are left-keyToNumValues, "
			   "left-keyWithIndexToValue, right-keyToNumValues and "
			   "right-keyWithIndexToValue",
			   strcmp(o->store_name, "default") == 0 ? "joinSide"
								 : "storeName",
			   o->operator_id);
		sl_err_hint(err, "read one side's rows with joinSide 'left' "
				 "or 'right'");
	} else if (!join && strcmp(o->store_name, op->info.store_name) != 0)
		sl_err_set(err, SL_EINVAL,
			   "invalid value for source option 'storeName': "
			   "operator %d ('%s') has no store '%s' (its store "
			   "is '%s')",
			   o->operator_id, name, o->store_name,
			   op->info.store_name);
	else if (*numvalues && o->change_feed)
		sl_err_set(err, SL_EINVAL,
			   "invalid value for source option 'storeName': "
			   "streamlab has no change feed of '%s' (it counts "
			   "the rows of %s-keyWithIndexToValue)",
			   o->store_name, *side == 0 ? "left" : "right");
	else
		return c;
	sl_state_codec_free(c);
	return NULL;
}

/* ------------------------------------------------------------ rows */

/* One entry (copied bytes), its batch and its place in its file. */
typedef struct ent {
	char *k, *v; /* v NULL: removed */
	size_t kl, vl;
	int64_t batch, seq;
} ent;

typedef struct ents {
	ent *e;
	int64_t n, cap;
	int64_t batch, seq;
	const sl_state_codec *c;
	int side; /* -1: every side */
} ents;

static void ents_release(ents *l)
{
	int64_t i;
	for (i = 0; i < l->n; i++) {
		free(l->e[i].k);
		free(l->e[i].v);
	}
	free(l->e);
}

static int ents_add(void *ud, const void *k, size_t kl, const void *v,
		    size_t vl)
{
	ents *l = ud;
	ent *e;
	if (l->side >= 0 && sl_state_codec_side(l->c, k, kl) != (l->side & 1))
		return 0;
	if (l->n == l->cap) {
		int64_t cap = l->cap ? 2 * l->cap : 64;
		ent *ne = realloc(l->e, (size_t)cap * sizeof *ne);
		if (ne == NULL)
			return SL_ENOMEM;
		l->e = ne;
		l->cap = cap;
	}
	e = &l->e[l->n];
	e->kl = kl;
	e->vl = vl;
	e->batch = l->batch;
	e->seq = l->seq++;
	e->k = malloc(kl + 1);
	e->v = v != NULL ? malloc(vl + 1) : NULL;
	if (e->k == NULL || (v != NULL && e->v == NULL)) {
		free(e->k);
		free(e->v);
		return SL_ENOMEM;
	}
	memcpy(e->k, k, kl);
	if (v != NULL)
		memcpy(e->v, v, vl);
	l->n++;
	return 0;
}

/* Batch, then key bytes (Spark's ascending key order, state_codec.h),
 * then the order in the file. */
static int ent_cmp(const void *a, const void *b)
{
	const ent *x = a, *y = b;
	size_t n = x->kl < y->kl ? x->kl : y->kl;
	int c;
	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	if ((c = memcmp(x->k, y->k, n)) != 0)
		return c;
	if (x->kl != y->kl)
		return x->kl < y->kl ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The rows of l: [batch_id, change_type,] key, value, partition_id (a
 * join side: the value's columns, partition_id). */
static sl_batch *build_rows(const sl_state_codec *c, int side, bool flat,
			    ents *l, bool feed, bool res, sl_err *err)
{
	sl_type *kt = sl_state_codec_key_type(c, side < 0 ? 0 : side),
		*vt = res ? sl_state_codec_result_type(c)
			  : sl_state_codec_value_type(c, side < 0 ? 0 : side);
	sl_col *key = sl_col_new(kt, l->n), *val = sl_col_new(vt, l->n);
	sl_col *bid = feed ? sl_col_new(sl_type_prim(SL_BIGINT), l->n) : NULL;
	sl_col *ct = feed ? sl_col_new(sl_type_prim(SL_STRING), l->n) : NULL;
	sl_col *part = sl_col_new(sl_type_prim(SL_INT), l->n);
	sl_col *cols[64];
	const char *names[64];
	sl_type *types[64];
	int64_t i;
	int n = 0, k, rc = 0;
	if (key == NULL || val == NULL || part == NULL ||
	    (feed && (bid == NULL || ct == NULL)))
		rc = sl_err_nomem(err);
	for (i = 0; i < l->n && rc == 0; i++) {
		const ent *e = &l->e[i];
		rc = res ? sl_state_codec_decode_result(c, e->k, e->kl, e->v,
							e->vl, key, val, i, err)
			 : sl_state_codec_decode(c, side < 0 ? 0 : side, e->k,
						 e->kl, e->v, e->vl, key, val,
						 i, err);
		if (rc == 0 && feed) {
			const char *t = e->v != NULL ? "update" : "delete";
			sl_col_i64(bid)[i] = e->batch;
			if (sl_col_set_str(ct, i, t, strlen(t)) < 0)
				rc = sl_err_nomem(err);
		}
	}
	if (rc == 0 && flat && vt->nfields + 1 > 64)
		rc = sl_err_set(err, SL_EINVAL,
				"a join side of more than 63 "
				"columns");
	if (rc < 0) {
		sl_col_free(key);
		sl_col_free(val);
		sl_col_free(bid);
		sl_col_free(ct);
		sl_col_free(part);
		return NULL;
	}
	if (feed) {
		names[n] = "batch_id", types[n] = bid->type, cols[n++] = bid;
		names[n] = "change_type", types[n] = ct->type, cols[n++] = ct;
	}
	if (flat) { /* Spark's joinSide rows: the input row's columns */
		for (k = 0; k < vt->nfields; k++) {
			names[n] = vt->fields[k].name;
			types[n] = vt->fields[k].type;
			cols[n++] = sl_col_ref(val->child[k]);
		}
		sl_col_free(val);
		sl_col_free(key);
	} else {
		names[n] = "key", types[n] = kt, cols[n++] = key;
		names[n] = "value", types[n] = vt, cols[n++] = val;
	}
	names[n] = "partition_id", types[n] = part->type, cols[n++] = part;
	return make_batch(row_type(n, names, types, err), l->n, cols, n, err);
}

/* keyToNumValues: the held rows of l (sorted: side ++ key ++ row
 * number) counted per join key, as key (field0..) and value
 * STRUCT<value BIGINT>. */
static sl_batch *build_numvalues(const sl_state_codec *c, int side, ents *l,
				 sl_err *err)
{
	static const char *const names[] = { "key", "value", "partition_id" };
	sl_type *kt = sl_state_codec_key_type(c, side), *t[3], *vt, *schema;
	sl_col *key = NULL, *val = NULL, *tmp = NULL, *part = NULL, *cols[3];
	int64_t i, n = 0, start;
	int rc = 0;
	if ((vt = sl_type_struct_new(1)) == NULL ||
	    sl_type_set_field(vt, 0, "value", sl_type_prim(SL_BIGINT), true) <
		0) {
		sl_type_free(vt);
		sl_err_nomem(err);
		return NULL;
	}
	key = sl_col_new(kt, l->n);
	val = sl_col_new(vt, l->n);
	tmp = sl_col_new(sl_state_codec_value_type(c, side), l->n);
	part = sl_col_new(sl_type_prim(SL_INT), l->n);
	if (key == NULL || val == NULL || tmp == NULL || part == NULL)
		rc = sl_err_nomem(err);
	for (i = 0; i < l->n && rc == 0; i = start) {
		const ent *e = &l->e[i];
		for (start = i + 1; start < l->n; start++) {
			const ent *f = &l->e[start];
			if (f->kl != e->kl ||
			    memcmp(f->k, e->k, e->kl - 8) != 0)
				break;
		}
		rc = sl_state_codec_decode(c, side, e->k, e->kl, NULL, 0, key,
					   tmp, n, err);
		sl_col_i64(val->child[0])[n++] = start - i;
	}
	sl_col_free(tmp);
	if (rc < 0) {
		sl_col_free(key);
		sl_col_free(val);
		sl_col_free(part);
		sl_type_free(vt);
		return NULL;
	}
	cols[0] = sl_col_slice(key, 0, n);
	cols[1] = sl_col_slice(val, 0, n);
	cols[2] = sl_col_slice(part, 0, n);
	sl_col_free(key);
	sl_col_free(val);
	sl_col_free(part);
	t[0] = kt;
	t[1] = vt;
	t[2] = sl_type_prim(SL_INT);
	schema = row_type(3, names, t, err);
	sl_type_free(vt);
	return make_batch(schema, n, cols, 3, err);
}

static int collect_state(sl_state_read *r, const sl_state_read_opts *o, ents *l,
			 sl_err *err)
{
	sl_state *s = sl_state_new();
	int rc;
	if (s == NULL)
		return sl_err_nomem(err);
	rc = sl_ckpt_state_load(r->ck, o->operator_id, o->batch_id + 1, s, NULL, err);
	if (rc < 0) {
		char pre[64];
		snprintf(pre, sizeof pre, "cannot load the state of batch %lld",
			 (long long)o->batch_id);
		sl_err_prefix(err, pre);
	}
	if (rc == 0 && sl_state_foreach(s, ents_add, l) != 0)
		rc = sl_err_nomem(err);
	sl_state_free(s);
	return rc;
}

static int collect_feed(sl_state_read *r, const sl_state_read_opts *o, ents *l,
			sl_err *err)
{
	int64_t b;
	int rc = 0;
	for (b = o->change_start; b <= o->change_end && rc == 0; b++) {
		bool missing = false;
		if ((rc =
			 check_batch(r,
				     b == o->change_start ? "changeStartBatchId"
							  : "changeEndBatchId",
				     b, err)) < 0)
			break;
		l->batch = b;
		l->seq = 0;
		rc = sl_ckpt_state_delta(r->ck, o->operator_id, b + 1, ents_add,
					 l, &missing, err);
		if (rc > 0 || rc == SL_ENOMEM)
			rc = sl_err_nomem(err);
		else if (rc < 0 && missing)
			sl_err_hint(err,
				    "the changes of batch %lld are "
				    "already purged",
				    (long long)b);
	}
	return rc;
}

sl_batch *sl_state_read_rows(sl_state_read *r, const sl_state_read_opts *opts,
			     sl_err *err)
{
	sl_state_read_opts o = *opts;
	sl_state_codec *c;
	sl_batch *b = NULL;
	bool numvalues;
	int side, rc;
	ents l;
	if (check_opts(r, &o, err) < 0)
		return NULL;
	if (!o.change_feed && check_batch(r, "batchId", o.batch_id, err) < 0)
		return NULL;
	if ((c = open_store(r, &o, &side, &numvalues, err)) == NULL)
		return NULL;
	memset(&l, 0, sizeof l);
	l.c = c;
	l.side = side;
	l.batch = o.batch_id;
	rc = o.change_feed ? collect_feed(r, &o, &l, err)
			   : collect_state(r, &o, &l, err);
	if (rc == 0) {
		if (l.n > 0)
			qsort(l.e, (size_t)l.n, sizeof *l.e, ent_cmp);
		b = numvalues
			? build_numvalues(c, side, &l, err)
			: build_rows(c, side < 0 ? 0 : side, o.join_side >= 0,
				     &l, o.change_feed, o.results && side < 0,
				     err);
	}
	ents_release(&l);
	sl_state_codec_free(c);
	return b;
}
