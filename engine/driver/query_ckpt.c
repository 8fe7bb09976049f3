/*
 * query_ckpt: the query's checkpoint (ckpt.h) as the driver uses it: where
 * it is, what a start restores from it, the batch protocol's checkpoint
 * steps (query_batch.c calls them in order), in-process crashes and
 * restarts, and the log as data for q:checkpoint() and the screen.
 *
 * Where: option checkpointLocation; else the session conf
 * spark.sql.streaming.checkpointLocation/<queryName or id> (Spark's rule);
 * else, for console/memory/foreachBatch/noop sinks, a temporary directory
 * $TMPDIR/temporary-<uuid> (Spark's temporary checkpoint), removed when the
 * query stops without an exception and kept after a crash or failure so
 * sl_query_restart can recover from it.  File and Kafka sinks refuse to
 * start without one, with Spark's sentence.
 *
 * Start (sl_query_start calls, in this order): ckpt_open (lock, recovery
 * rules, the query id from metadata) -> the sink opens with that id ->
 * ckpt_check (plan fingerprint) -> sources open with <dir>/sources/<i> ->
 * operators compile -> ckpt_restore (offsets, watermark, confs, state) ->
 * ckpt_started (metadata of a fresh checkpoint, temp files swept).  Until
 * ckpt_started nothing is written into an existing checkpoint, so a refused
 * start leaves it byte for byte as it was.
 *
 * Plan fingerprint (metadata "fingerprint": 16 hex digits of xxh64 over a
 * text): what Spark's guide lists as changes not allowed across restarts:
 * every stream source (format, path, schema, Kafka subscription), every
 * stateful operator (aggregation keys, aggregate functions and output
 * schema; dedup columns; stream-stream join type, keys and schema; global
 * limit), and the file sink's directory.  Filters, projections, rate
 * limits, triggers and other sinks may change.
 *
 * Recovery (SPARK-SEMANTICS.md 4.6): L = last offsets id, C = last commit.
 * C == L: continue at L+1 from offsets/L, watermark max(offsets/L's
 * batchWatermarkMs, commits/L's nextBatchWatermarkMs), state version L+1;
 * when the watermark moved in batch L and a stateful operator evicts by
 * it, the no-data batch the uncrashed run would have run comes first
 * (Spark waits for new data instead; we keep crashed and uncrashed runs
 * batch for batch equal).
 * C == L-1: re-run L with exactly offsets/L (end offsets, watermark, batch
 * timestamp), from offsets/L-1, on state version L (= after batch L-1).
 */
#include <ftw.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "exec/exec_stream.h"
#include "core/fsutil.h"
#include "exec/hash.h"
#include "exec/state_codec.h"
#include "formats/parquet.h"
#include "plan/plan_int.h"
#include "driver/query_int.h"
#include "sinks/sink.h"
#include "core/timeutil.h"

#define CONF_POLICY   "spark.sql.streaming.multipleWatermarkPolicy"
#define CONF_MULTI    "spark.sql.streaming.statefulOperator.allowMultiple"
#define CONF_PROVIDER "spark.sql.streaming.stateStore.providerClass"
#define CONF_MAINT    "spark.sql.streaming.stateStore.maintenanceInterval"
#define PROVIDER                                                               \
	"org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"

static int64_t conf_int(sl_query *q, const char *key, int64_t def)
{
	const char *v = sl_session_conf_get(q->sess, key);
	long long x = v ? strtoll(v, NULL, 10) : def;
	return x > 0 ? x : def;
}

/* The file sinks: json, csv, parquet. */
static bool file_format(const char *format)
{
	return format != NULL && (strcasecmp(format, "json") == 0 ||
				  strcasecmp(format, "csv") == 0 ||
				  strcasecmp(format, "parquet") == 0);
}

static bool needs_ckpt(const char *format)
{
	return file_format(format) ||
	       (format != NULL && strcasecmp(format, "kafka") == 0);
}

/* Where the checkpoint is; *temp for a temporary one. */
static int locate(sl_query *q, const sl_query_opts *o, char **dir, bool *temp,
		  sl_err *err)
{
	const char *base = sl_session_conf_get(
	    q->sess, "spark.sql.streaming.checkpointLocation");
	const char *tmp = getenv("TMPDIR");
	char uuid[37];
	int n;
	*temp = false;
	if (o->checkpoint != NULL && o->checkpoint[0] != '\0') {
		n = asprintf(dir, "%s", o->checkpoint);
	} else if (base != NULL && base[0] != '\0') {
		n = asprintf(dir, "%s/%s", base, q->name ? q->name : q->id);
	} else if (o->foreach_fn == NULL && needs_ckpt(o->format)) {
		return sl_err_set(
		    err, SL_EANALYSIS,
		    "checkpointLocation must be specified either through "
		    "option(\"checkpointLocation\", ...) or "
		    "SparkSession.conf.set(\"spark.sql.streaming."
		    "checkpointLocation\", ...)");
	} else {
		sl_stream_uuid(uuid);
		n = asprintf(dir, "%s/temporary-%s",
			     tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp",
			     uuid);
		*temp = true;
	}
	if (n < 0) {
		*dir = NULL;
		return sl_err_nomem(err);
	}
	return 0;
}

int sl_query_ckpt_open(sl_query *q, const sl_query_opts *o,
		       const sl_query *from, sl_err *err)
{
	char *dir = NULL, *id = NULL, *fp = NULL, *abs;
	const char *mi;
	bool temp = false;
	int rc;
	q->retain = conf_int(q, "spark.sql.streaming.minBatchesToRetain", 100);
	q->snap_every = conf_int(
	    q, "spark.sql.streaming.stateStore.minDeltasForSnapshot", 10);
	mi = sl_session_conf_get(q->sess, CONF_MAINT);
	if (mi == NULL || sl_time_conf_parse(CONF_MAINT, mi, &q->maint_us,
					     NULL) < 0) /* spark.conf checked it */
		q->maint_us = 60 * SL_US_PER_SEC;
	q->maint_next_us = INT64_MIN;
	q->ck_torn_id = -1;
	if ((q->crash = sl_crash_new()) == NULL)
		return sl_err_nomem(err);
	if (from == NULL && o->no_checkpoint && !needs_ckpt(o->format) &&
	    (o->checkpoint == NULL || o->checkpoint[0] == '\0'))
		return 0; /* q->ck stays NULL: no checkpoint */
	if (from != NULL) {
		temp = from->ck_temp;
		if ((dir = strdup(from->ckdir)) == NULL)
			return sl_err_nomem(err);
	} else if ((rc = locate(q, o, &dir, &temp, err)) < 0) {
		return rc;
	}
	q->ck = sl_ckpt_open(dir, err);
	if (q->ck == NULL) {
		free(dir);
		return err ? err->code : SL_ECHECKPOINT;
	}
	abs = realpath(dir, NULL);
	q->ckdir = abs != NULL ? abs : dir;
	if (abs != NULL)
		free(dir);
	q->ck_temp = temp;
	/* a temporary checkpoint promises no durability (Spark's neither):
	 * the same files for the panes and q:crash/q:restart, no fsync */
	sl_ckpt_set_durable(q->ck, !temp);
	if ((rc = sl_ckpt_recover(q->ck, &q->ckplan, err)) < 0 ||
	    (rc = sl_ckpt_read_metadata(q->ck, &id, &fp, err)) < 0)
		return rc;
	if (id == NULL) {
		free(fp);
		if (q->ckplan.last_offsets >= 0 || q->ckplan.last_commit >= 0)
			return sl_err_set(
			    err, SL_ECHECKPOINT,
			    "checkpoint file '%s/metadata' is missing, but the checkpoint has batches",
			    q->ckdir);
		q->ck_fresh = true;
		return 0;
	}
	if (strlen(id) != 36) {
		rc = sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s/metadata' is corrupt: bad query id",
		    q->ckdir);
	} else {
		memcpy(q->id, id, 37);
		if (fp != NULL)
			snprintf(q->stored_fp, sizeof q->stored_fp, "%s", fp);
	}
	free(id);
	free(fp);
	return rc;
}

/* ------------------------------------------------------ fingerprint */

/* The expressions as text (under their aliases: a key's name alone
 * would not tell window sizes apart). */
static void fp_exprs(sl_buf *b, sl_expr *const *e, int n)
{
	int i;
	for (i = 0; i < n; i++) {
		const sl_expr *x = e[i];
		while (x->kind == SL_X_ALIAS)
			x = x->args[0];
		sl_buf_addc(b, i ? ',' : '(');
		sl_expr_name(x, b);
	}
	sl_buf_adds(b, ")");
}

static void fp_source(sl_buf *b, const sl_source_desc *d)
{
	static const char *const keys[] = { "subscribe", "subscribePattern",
					    "assign", NULL };
	const sl_options *o = sl_source_desc_options(d);
	const char *path = sl_source_desc_path(d);
	int i;
	sl_buf_printf(b, "source %s %s ", sl_source_desc_format(d),
		      path ? path : "-");
	sl_type_ddl(sl_source_desc_schema(d), b);
	for (i = 0; o != NULL && keys[i] != NULL; i++)
		if (sl_options_get(o, keys[i]) != NULL)
			sl_buf_printf(b, " %s=%s", keys[i],
				      sl_options_get(o, keys[i]));
	sl_buf_addc(b, '\n');
}

static void fp_plan(sl_buf *b, const sl_plan *p)
{
	sl_agg_et et;
	int i;
	if (!p->streaming)
		return;
	switch (p->kind) {
	case SL_P_STREAM_SOURCE: fp_source(b, p->desc); break;
	case SL_P_AGGREGATE:
		sl_plan_agg_event_time(p, &et);
		sl_buf_printf(b, "aggregate et %d %lld %lld %lld %lld keys",
			      (int)et.kind, (long long)et.size,
			      (long long)et.slide, (long long)et.start,
			      (long long)et.gap_us);
		fp_exprs(b, p->keys, p->nkeys);
		for (i = 0; i < p->naggs; i++)
			sl_buf_printf(b, " %s", p->aggs[i].sql);
		sl_buf_addc(b, ' ');
		sl_type_ddl(p->inter ? p->inter : p->schema, b);
		sl_buf_addc(b, '\n');
		break;
	case SL_P_DEDUP:
		sl_buf_printf(b, "dedup%s",
			      p->within_wm ? "WithinWatermark" : "");
		for (i = 0; i < p->ndedup; i++)
			sl_buf_printf(b, " %s",
				      p->schema->fields[p->dedup_cols[i]].name);
		sl_buf_addc(b, '\n');
		break;
	case SL_P_LIMIT:
		sl_buf_printf(b, "limit %lld\n", (long long)p->limit);
		break;
	case SL_P_JOIN:
		if (p->child[0]->streaming && p->child[1]->streaming) {
			sl_buf_printf(b, "join %d keys", (int)p->jtype);
			fp_exprs(b, p->lkeys, p->njkeys);
			fp_exprs(b, p->rkeys, p->njkeys);
			sl_buf_addc(b, ' ');
			sl_type_ddl(p->wide ? p->wide : p->schema, b);
			sl_buf_addc(b, '\n');
		}
		break;
	default: break;
	}
	for (i = 0; i < p->nchild; i++)
		fp_plan(b, p->child[i]);
}

static void fingerprint(sl_query *q)
{
	sl_buf b;
	sl_buf_init(&b);
	fp_plan(&b, q->plan);
	if (file_format(q->format))
		sl_buf_printf(&b, "sink %s\n", q->sink_desc);
	snprintf(q->fingerprint, sizeof q->fingerprint, "%016llx",
		 (unsigned long long)sl_hash_xxh64(b.p ? b.p : "", b.len, 0));
	sl_buf_release(&b);
}

int sl_query_ckpt_check(sl_query *q, sl_err *err)
{
	if (q->ck == NULL)
		return 0;
	fingerprint(q);
	if (q->stored_fp[0] != '\0' &&
	    strcmp(q->stored_fp, q->fingerprint) != 0)
		return sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint '%s/metadata' belongs to a different query (plan fingerprint mismatch)",
		    q->ckdir);
	return 0;
}

const char *sl_query_ckpt_source_dir(const sl_query *q, int i, char *out,
				     size_t n)
{
	if (q->ckdir == NULL)
		return NULL;
	snprintf(out, n, "%s/sources/%d", q->ckdir, i);
	return out;
}

/* ------------------------------------------------------ restore */

static void restore_confs(sl_query *q, const sl_options *conf)
{
	const char *pol = sl_options_get(conf, CONF_POLICY);
	const char *am = sl_options_get(conf, CONF_MULTI);
	if (pol != NULL)
		q->wm.policy_max = strcasecmp(pol, "max") == 0;
	if (am != NULL)
		q->wm.allow_multiple = strcasecmp(am, "false") != 0;
}

/* q->snap_base for the query's stores (all 0: no snapshot yet). */
static int snap_bases(sl_query *q, sl_err *err)
{
	int n = sl_exec_stream_nstores(q->root);
	if (q->nsnap_base == n)
		return 0;
	free(q->snap_base);
	q->nsnap_base = 0;
	if (n > 0 && (q->snap_base = calloc((size_t)n, sizeof *q->snap_base)) ==
			 NULL)
		return sl_err_nomem(err);
	q->nsnap_base = n;
	return 0;
}

static int load_stores(sl_query *q, int64_t version, sl_err *err)
{
	int i, rc, n = sl_exec_stream_nstores(q->root);
	if ((rc = snap_bases(q, err)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if ((rc = sl_ckpt_state_load(q->ck, i, version,
					     sl_exec_stream_store(q->root, i),
					     &q->snap_base[i], err)) < 0)
			return rc;
	sl_exec_stream_restored(q->root);
	return 0;
}

static int take_offsets(sl_query *q, sl_ckpt_offsets *o, int64_t id,
			sl_err *err)
{
	int i;
	if (o->nsources != q->nsrc)
		return sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s/offsets/%lld' has %d sources, the query has %d",
		    q->ckdir, (long long)id, o->nsources, q->nsrc);
	for (i = 0; i < q->nsrc; i++) {
		free(q->start[i]);
		q->start[i] = o->src[i];
		o->src[i] = NULL;
		if (q->src[i]->ops->resume != NULL)
			q->src[i]->ops->resume(q->src[i], q->start[i]);
	}
	return 0;
}

/* Batch L committed: continue at L+1. */
static int restore_committed(sl_query *q, sl_ckpt_offsets *o, int64_t l,
			     sl_err *err)
{
	int64_t next = 0;
	int rc;
	if ((rc = sl_ckpt_read_commit(q->ck, l, &next, err)) < 0 ||
	    (rc = take_offsets(q, o, l, err)) < 0)
		return rc;
	if (q->wm.n > 0) {
		q->wm.prev_ms = o->watermark_ms;
		q->wm.global_ms =
		    o->watermark_ms > next ? o->watermark_ms : next;
	}
	q->meta.watermark_ms = o->watermark_ms;
	q->last_batch_id = l;
	if ((rc = load_stores(q, l + 1, err)) < 0)
		return rc;
	/* The no-data batch the uncrashed run would have run next (the
	 * watermark moved in batch L and an operator evicts by it).  Spark
	 * waits for new data after a restart; we run it so a crashed and
	 * an uncrashed run give the same batches and the same output. */
	q->wm.no_data_pending =
	    q->wm.n > 0 && next > o->watermark_ms &&
	    sl_exec_stream_wants_no_data(q->root, q->wm.global_ms * 1000);
	return 0;
}

/* Batch L planned, not committed: re-run it exactly. */
static int restore_rerun(sl_query *q, sl_ckpt_offsets *o, int64_t l,
			 sl_err *err)
{
	sl_ckpt_offsets prev;
	int rc = 0;
	if (o->nsources != q->nsrc)
		return sl_err_set(
		    err, SL_ECHECKPOINT,
		    "checkpoint file '%s/offsets/%lld' has %d sources, the query has %d",
		    q->ckdir, (long long)l, o->nsources, q->nsrc);
	if (l > 0) {
		if ((rc = sl_ckpt_read_offsets(q->ck, l - 1, &prev, err)) < 0) {
			sl_err_prefix(err, "cannot recover");
			return rc;
		}
		rc = take_offsets(q, &prev, l - 1, err);
		if (q->wm.n > 0)
			q->wm.prev_ms = prev.watermark_ms;
		sl_ckpt_offsets_release(&prev);
		if (rc < 0)
			return rc;
	}
	if (q->wm.n > 0)
		q->wm.global_ms = o->watermark_ms;
	q->last_batch_id = l - 1;
	q->replay = true;
	q->replay_id = l;
	q->replay_off = *o;
	sl_ckpt_offsets_init(o);
	return load_stores(q, l, err);
}

int sl_query_ckpt_restore(sl_query *q, sl_err *err)
{
	const sl_ckpt_plan *p = &q->ckplan;
	sl_ckpt_offsets o;
	int rc;
	if (q->ck == NULL)
		return 0;
	if (p->torn_last)
		q->ck_torn_id = p->last_offsets + 1;
	if (p->last_offsets < 0)
		return 0;
	if ((rc = sl_ckpt_read_offsets(q->ck, p->last_offsets, &o, err)) < 0) {
		sl_err_prefix(err, "cannot recover");
		return rc;
	}
	restore_confs(q, &o.conf);
	if (p->rerun)
		rc = restore_rerun(q, &o, p->last_offsets, err);
	else
		rc = restore_committed(q, &o, p->last_offsets, err);
	sl_ckpt_offsets_release(&o);
	return rc;
}

/* ------------------------------------------------------ the sink log */

static bool file_sink(const sl_query *q)
{
	return file_format(q->format);
}

/* "v1" then one {"path":"..",...} object per line. */
static bool log_entry_ok(const char *t)
{
	const char *l, *nl;
	if (strncmp(t, "v1", 2) != 0 || (t[2] != '\n' && t[2] != '\0'))
		return false;
	for (l = t[2] ? t + 3 : t + 2; *l; l = nl ? nl + 1 : l + strlen(l)) {
		size_t n;
		nl = strchr(l, '\n');
		n = nl ? (size_t)(nl - l) : strlen(l);
		if (n == 0)
			continue;
		if (l[0] != '{' || l[n - 1] != '}' ||
		    memmem(l, n, "\"path\":\"", 8) == NULL)
			return false;
	}
	return true;
}

/* _spark_metadata/<id> of a committed batch, rebuilt from its part file
 * (written whole before the log entry; none when the batch had no rows). */
static int rebuild_entry(sl_query *q, const char *dir, const char *entry,
			 int64_t id, sl_err *err)
{
	char part[4400];
	struct stat st;
	sl_buf b;
	const unsigned char *c;
	int rc;
	snprintf(part, sizeof part, "%s/part-00000-%s-%lld.c000.%s", dir, q->id,
		 (long long)id,
		 strcasecmp(q->format, "csv") == 0 ? "csv"
		 : strcasecmp(q->format, "parquet") == 0
		     ? sl_parquet_ext(&q->sink_opts)
		     : "json");
	sl_buf_init(&b);
	sl_buf_adds(&b, "v1\n");
	if (stat(part, &st) == 0) {
		sl_buf_adds(&b, "{\"path\":\"file://");
		for (c = (const unsigned char *)part; *c; c++)
			if (*c > ' ' && *c < 0x7f && *c != '"' && *c != '\\' &&
			    *c != '%')
				sl_buf_addc(&b, (char)*c);
			else
				sl_buf_printf(&b, "%%%02X", *c);
		sl_buf_printf(
		    &b,
		    "\",\"size\":%lld,\"isDir\":false,\"modificationTime\":%lld,\"blockReplication\":1,\"blockSize\":33554432,\"action\":\"add\"}\n",
		    (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec * 1000 +
			st.st_mtim.tv_nsec / 1000000);
	}
	rc = sl_buf_failed(&b) ? sl_err_nomem(err)
			       : sl_fs_write_atomic(entry, b.p, b.len, true,
						    NULL, NULL, id, err);
	sl_buf_release(&b);
	return rc;
}

/* Unreadable sink log entries: an uncommitted one is discarded (the re-run
 * writes it again), a committed one is rebuilt from its part file.
 * *changed when the sink must be reopened. */
static int repair_sink_log(sl_query *q, bool *changed, sl_err *err)
{
	const char *path = sl_options_get(&q->sink_opts, "path");
	char meta[4200], entry[4400], *dir, *text;
	int64_t *ids = NULL;
	int n = 0, i, rc = 0;
	size_t len;
	*changed = false;
	if (!file_sink(q) || path == NULL ||
	    (dir = realpath(path, NULL)) == NULL)
		return 0;
	snprintf(meta, sizeof meta, "%s/_spark_metadata", dir);
	sl_fs_list_ids(meta, NULL, &ids, &n, NULL);
	for (i = 0; i < n && rc == 0; i++) {
		bool bad;
		snprintf(entry, sizeof entry, "%s/%lld", meta,
			 (long long)ids[i]);
		text = NULL;
		bad = sl_fs_read(entry, &text, &len, NULL, NULL) < 0 ||
		      strlen(text) != len || !log_entry_ok(text);
		free(text);
		if (!bad)
			continue;
		*changed = true;
		if (ids[i] > q->ckplan.last_commit)
			rc = unlink(entry) == 0
				 ? 0
				 : sl_err_set(err, SL_EIO, "cannot remove '%s'",
					      entry);
		else
			rc = rebuild_entry(q, dir, entry, ids[i], err);
		if (rc == 0) {
			sl_buf b;
			sl_buf_init(&b);
			sl_buf_printf(
			    &b,
			    ids[i] > q->ckplan.last_commit
				? "discarded the unreadable sink log entry '%s' of uncommitted batch %lld"
				: "rebuilt the unreadable sink log entry '%s' of committed batch %lld from its part file",
			    entry, (long long)ids[i]);
			sl_query_event(q, SL_EV_LOG, ids[i], sl_buf_cstr(&b),
				       NULL);
			sl_buf_release(&b);
		}
	}
	free(ids);
	free(dir);
	return rc;
}

static int reopen_sink(sl_query *q, sl_err *err)
{
	sl_sink *s = sl_sink_open(sl_session_sink_host(q->sess), q->format, &q->sink_opts,
				  q->ctx.mode, q->name, q->id, err);
	if (s == NULL)
		return err ? err->code : SL_EIO;
	sl_sink_close(q->sink);
	q->sink = s;
	s->crash = q->crash;
	return 0;
}

/* Write path when it does not hold text already (a restart leaves the
 * files of the first start as they are). */
static int write_if_changed(sl_query *q, const char *dir, const char *path,
			    const sl_buf *text, sl_err *err)
{
	char *old = NULL;
	size_t len = 0;
	int rc;
	/* a crash during an earlier write left its temp here: sl_ckpt_sweep
	 * only walks the numbered directories */
	sl_fs_sweep_tmp(dir);
	if (sl_fs_read(path, &old, &len, NULL, NULL) == 0) {
		bool same = len == text->len && memcmp(old, text->p, len) == 0;
		free(old);
		if (same)
			return 0;
	}
	if ((rc = sl_fs_mkdirs(dir, err)) < 0)
		return rc;
	return sl_fs_write(path, text->p, text->len, true, !q->ck_temp, NULL,
			   NULL, -1, err);
}

/* Each stateful operator's schema and operator metadata, in Spark's
 * places (state/<op>/0/_metadata/schema, state/<op>/_metadata/metadata),
 * for the state reader (driver/state_read.h, exec/state_codec.h).  An
 * operator without a codec is skipped: its state is not readable. */
static int write_state_schemas(sl_query *q, sl_err *err)
{
	int i, rc = 0, n = sl_exec_stream_nstores(q->root);
	for (i = 0; i < n && rc == 0; i++) {
		const sl_op *op = sl_exec_stream_stateop(q->root, i);
		sl_state_codec *c = sl_state_codec_of_op(op, NULL);
		char dir[4300], path[4400];
		sl_buf b;
		if (c == NULL)
			continue;
		sl_buf_init(&b);
		rc = sl_state_codec_text(c, &b, err);
		sl_buf_printf(&b, "outputMode %s\n",
			      sl_outmode_name(q->ctx.mode));
		snprintf(dir, sizeof dir, "%s/state/%d/0/_metadata", q->ckdir,
			 i);
		snprintf(path, sizeof path, "%s/schema", dir);
		if (rc == 0)
			rc = write_if_changed(q, dir, path, &b, err);
		sl_buf_clear(&b);
		sl_buf_printf(
		    &b,
		    "v1\n{\"operatorInfo\":{\"operatorId\":%d,\"operatorName\":\"%s\"},"
		    "\"stateStoreInfo\":[{\"storeName\":\"default\",\"numColsPrefixKey\":0,"
		    "\"numPartitions\":1}]}",
		    i, sl_state_codec_operator(c));
		snprintf(dir, sizeof dir, "%s/state/%d/_metadata", q->ckdir, i);
		snprintf(path, sizeof path, "%s/metadata", dir);
		if (rc == 0 && sl_buf_failed(&b))
			rc = sl_err_nomem(err);
		if (rc == 0)
			rc = write_if_changed(q, dir, path, &b, err);
		sl_buf_release(&b);
		sl_state_codec_free(c);
	}
	return rc;
}

int sl_query_ckpt_started(sl_query *q, sl_err *err)
{
	bool changed = false;
	int rc = 0;
	if (q->ck == NULL)
		return 0;
	if (q->ck_fresh && (rc = sl_ckpt_write_metadata(
				q->ck, q->id, q->fingerprint, err)) < 0)
		return rc;
	q->ck_fresh = false;
	sl_ckpt_sweep(q->ck);
	if ((rc = sl_ckpt_make_logs(q->ck, err)) < 0 ||
	    (rc = write_state_schemas(q, err)) < 0)
		return rc;
	/* from here on the batches' files are written in the background;
	 * a temporary checkpoint's writes (no fsync) cost less than the
	 * handoff to the writer thread, so they are written in the call */
	if ((rc = sl_ckpt_set_async(q->ck, !q->ck_temp, err)) < 0)
		return rc;
	if ((rc = repair_sink_log(q, &changed, err)) < 0 ||
	    (changed && (rc = reopen_sink(q, err)) < 0))
		return rc;
	if (file_format(q->format)) {
		const char *path = sl_options_get(&q->sink_opts, "path");
		char meta[4200];
		if (path != NULL) { /* the sink's own temp files */
			sl_fs_sweep_tmp(path);
			snprintf(meta, sizeof meta, "%s/_spark_metadata", path);
			sl_fs_sweep_tmp(meta);
		}
	}
	if (q->replay) {
		sl_buf b;
		sl_buf_init(&b);
		sl_buf_printf(
		    &b,
		    "recovered from '%s': batch %lld was planned but not committed; it re-runs with offsets/%lld",
		    q->ckdir, (long long)q->replay_id, (long long)q->replay_id);
		sl_query_event(q, SL_EV_LOG, q->replay_id, sl_buf_cstr(&b),
			       NULL);
		sl_buf_release(&b);
	} else if (q->last_batch_id >= 0) {
		sl_buf b;
		sl_buf_init(&b);
		sl_buf_printf(
		    &b,
		    "recovered from '%s': batch %lld committed; next batch %lld",
		    q->ckdir, (long long)q->last_batch_id,
		    (long long)q->last_batch_id + 1);
		sl_query_event(q, SL_EV_LOG, q->last_batch_id, sl_buf_cstr(&b),
			       NULL);
		sl_buf_release(&b);
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void sl_query_ckpt_close(sl_query *q)
{
	if (q->ck == NULL)
		return;
	if (q->clean_stop)
		sl_ckpt_drop_spares(q->ck);
	sl_ckpt_close(q->ck);
	q->ck = NULL;
	/* Spark deletes a temporary checkpoint only after a clean stop; a
	 * start that failed removes the fresh one it created */
	if (q->ck_temp && (q->clean_stop || q->ck_fresh) && q->ckdir != NULL)
		nftw(q->ckdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ------------------------------------------------------ the batch */

int sl_query_ckpt_offsets(sl_query *q, int64_t id, int64_t ts_us, int64_t wm_ms,
			  char *const *end, sl_err *err)
{
	sl_ckpt_offsets o;
	int rc;
	if (q->ck == NULL)
		return sl_crash_at(q->crash, "after-offsets", id, err);
	sl_ckpt_offsets_init(&o);
	o.watermark_ms = wm_ms;
	o.timestamp_ms = sl_floordiv(ts_us, 1000);
	o.nsources = q->nsrc;
	o.src = (char **)end;
	if (sl_options_set(&o.conf, CONF_PROVIDER, PROVIDER) != 0 ||
	    sl_options_set(&o.conf, CONF_POLICY,
			   q->wm.policy_max ? "max" : "min") != 0 ||
	    sl_options_set(&o.conf, CONF_MULTI,
			   q->wm.allow_multiple ? "true" : "false") != 0)
		rc = sl_err_nomem(err);
	else
		rc = sl_ckpt_write_offsets(q->ck, id, &o, id == q->ck_torn_id,
					   q->crash, err);
	o.src = NULL;
	o.nsources = 0;
	sl_ckpt_offsets_release(&o);
	return rc;
}

/* Whether this batch (at ts) is a maintenance pass: the first one
 * maint_us of the engine's clock after the first batch, then every
 * maint_us (Spark's MaintenanceTask at a fixed rate; a clock that jumps
 * past several ticks gets one pass). */
static bool maintenance_due(sl_query *q, int64_t ts)
{
	if (q->maint_next_us == INT64_MIN)
		q->maint_next_us =
		    ts > INT64_MAX - q->maint_us ? INT64_MAX : ts + q->maint_us;
	if (ts < q->maint_next_us)
		return false;
	if (q->maint_us <= 0)
		q->maint_next_us = ts;
	else if ((ts - q->maint_next_us) / q->maint_us <
		 (INT64_MAX - q->maint_next_us) / q->maint_us - 1)
		q->maint_next_us +=
		    ((ts - q->maint_next_us) / q->maint_us + 1) * q->maint_us;
	else
		q->maint_next_us = INT64_MAX;
	return true;
}

int sl_query_ckpt_state(sl_query *q, int64_t id, sl_err *err)
{
	int i, rc, n = q->ck ? sl_exec_stream_nstores(q->root) : 0;
	int64_t v = id + 1;
	bool due;
	if (n > 0 && (rc = snap_bases(q, err)) < 0)
		return rc;
	due = n > 0 && maintenance_due(q, q->ctx.batch_ts_us);
	for (i = 0; i < n; i++) {
		/* Spark's doSnapshot: a snapshot of the newest version once
		 * minDeltasForSnapshot deltas follow the last one (Spark:
		 * more than; here at the K-th, so a maintenance pass every
		 * batch, interval 0, gives versions K, 2K, ...) */
		bool snap = due && v - q->snap_base[i] >= q->snap_every;
		if ((rc = sl_ckpt_state_save(
			 q->ck, i, sl_exec_stream_store(q->root, i), v, snap,
			 q->crash, id, err)) < 0)
			return rc;
		if (snap)
			q->snap_base[i] = v;
	}
	/* a query without state still passes the three points (with state,
	 * the delta's write hit the first two already when armed) */
	if ((rc = sl_query_crash_at(q, "mid-state", id, err)) < 0 ||
	    (rc = sl_query_crash_at(q, "mid-state-flush", id, err)) < 0)
		return rc;
	return sl_query_crash_at(q, "after-state", id, err);
}

int sl_query_ckpt_commit(sl_query *q, int64_t id, int64_t next_wm_ms,
			 sl_err *err)
{
	int rc = sl_query_crash_at(q, "before-commit", id, err);
	if (rc == 0 && q->ck == NULL)
		return sl_crash_at(q->crash, "mid-commit", id, err);
	if (rc == 0)
		rc = sl_ckpt_write_commit(q->ck, id, next_wm_ms, q->crash, err);
	return rc;
}

int sl_query_crash_at(sl_query *q, const char *point, int64_t id, sl_err *err)
{
	int rc;
	if (q->ck != NULL && sl_crash_hits(q->crash, point, id) &&
	    (rc = sl_ckpt_sync(q->ck, err)) < 0)
		return rc;
	return sl_crash_at(q->crash, point, id, err);
}

int64_t sl_query_ckpt_ticket(const sl_query *q)
{
	return q->ck != NULL ? sl_ckpt_ticket(q->ck) : 0;
}

int sl_query_ckpt_wait(sl_query *q, int64_t ticket, sl_err *err)
{
	return q->ck != NULL ? sl_ckpt_wait(q->ck, ticket, err) : 0;
}

int sl_query_sync(sl_query *q, sl_err *err)
{
	sl_err e;
	int rc;
	if (q->ck == NULL)
		return 0;
	if ((rc = sl_ckpt_sync(q->ck, &e)) < 0) {
		if (err != NULL)
			*err = e;
		if (q->active && !q->running)
			sl_query_fail(q, q->last_batch_id, &e);
	}
	return rc;
}

int64_t sl_query_checkpoint_write_us(sl_query *q, int64_t batch)
{
	return q->ck != NULL ? sl_ckpt_batch_write_us(q->ck, batch) : -1;
}

void sl_query_ckpt_purge(sl_query *q, int64_t id)
{
	if (q->ck != NULL)
		sl_ckpt_purge(q->ck, id + 1 - q->retain);
}

/* ------------------------------------------------------ crash, log */

int sl_query_crash(sl_query *q, const char *point, sl_err *err)
{
	int rc;
	if (!q->active || q->crash == NULL)
		return sl_err_set(err, SL_ESTATE,
				  "crash: query '%s' is not active",
				  q->name ? q->name : q->id);
	if ((rc = sl_crash_arm(q->crash, point, err)) == 0)
		q->held = true; /* the armed batch is the next one asked for */
	return rc;
}

const char *sl_query_checkpoint_dir(const sl_query *q)
{
	return q->ckdir;
}

sl_outmode sl_query_output_mode(const sl_query *q)
{
	return q->ctx.mode;
}

const char *sl_query_sink_dir(const sl_query *q)
{
	return file_sink(q) ? sl_options_get(&q->sink_opts, "path") : NULL;
}

int64_t sl_query_last_checkpoint_us(const sl_query *q)
{
	return q->us_ckpt;
}

/* The file sink's log entry for batch id exists (N or N.compact). */
static bool sink_logged(const sl_query *q, int64_t id)
{
	const char *path;
	char p[4200];
	if (!file_format(q->format))
		return false;
	if ((path = sl_options_get(&q->sink_opts, "path")) == NULL)
		return false;
	snprintf(p, sizeof p, "%s/_spark_metadata/%lld", path, (long long)id);
	if (sl_fs_exists(p))
		return true;
	snprintf(p, sizeof p, "%s/_spark_metadata/%lld.compact", path,
		 (long long)id);
	return sl_fs_exists(p);
}

static void json_batch(sl_query *q, sl_ckpt *c, int64_t id, bool committed,
		       sl_buf *b)
{
	sl_ckpt_offsets o;
	sl_err e;
	int i, nstores = q->root ? sl_exec_stream_nstores(q->root) : 0;
	sl_buf_printf(b, "{\"batchId\":%lld,", (long long)id);
	if (sl_ckpt_read_offsets(c, id, &o, &e) < 0) {
		sl_buf_adds(b, "\"error\":");
		sl_buf_json_str(b, e.msg, strlen(e.msg));
	} else {
		sl_buf_adds(b, "\"offsets\":[");
		for (i = 0; i < o.nsources; i++) {
			if (i > 0)
				sl_buf_addc(b, ',');
			sl_buf_adds(b, o.src[i] ? o.src[i] : "null");
		}
		sl_buf_printf(b, "],\"watermarkMs\":%lld,\"timestampMs\":%lld",
			      (long long)o.watermark_ms,
			      (long long)o.timestamp_ms);
		sl_ckpt_offsets_release(&o);
	}
	if (nstores > 0 || q->root == NULL)
		sl_buf_printf(b, ",\"stateVersion\":%lld", (long long)id + 1);
	else
		sl_buf_adds(b, ",\"stateVersion\":null");
	sl_buf_printf(b, ",\"sinkLog\":%s,\"committed\":%s}",
		      sink_logged(q, id) ? "true" : "false",
		      committed ? "true" : "false");
}

const char *sl_query_checkpoint_json(sl_query *q)
{
	char dir[4200];
	int64_t *off = NULL, *com = NULL;
	int noff = 0, ncom = 0, i, k = 0;
	sl_ckpt *c;
	sl_buf b;
	if (q->ck != NULL)
		(void)sl_query_sync(q,
				    NULL); /* the files as a batch left them */
	if (q->ckdir == NULL || (c = sl_ckpt_open_ro(q->ckdir, NULL)) == NULL)
		return NULL;
	snprintf(dir, sizeof dir, "%s/offsets", q->ckdir);
	sl_fs_list_ids(dir, NULL, &off, &noff, NULL);
	snprintf(dir, sizeof dir, "%s/commits", q->ckdir);
	sl_fs_list_ids(dir, NULL, &com, &ncom, NULL);
	sl_buf_init(&b);
	sl_buf_adds(&b, "{\"location\":");
	sl_buf_json_str(&b, q->ckdir, strlen(q->ckdir));
	sl_buf_printf(&b, ",\"id\":\"%s\",\"batches\":[", q->id);
	for (i = 0; i < noff; i++) {
		while (k < ncom && com[k] < off[i])
			k++;
		if (i > 0)
			sl_buf_addc(&b, ',');
		json_batch(q, c, off[i], k < ncom && com[k] == off[i], &b);
	}
	sl_buf_adds(&b, "]}");
	free(off);
	free(com);
	sl_ckpt_close(c);
	free(q->ckpt_json);
	q->ckpt_json = sl_buf_failed(&b) ? NULL : sl_buf_detach(&b);
	sl_buf_release(&b);
	return q->ckpt_json;
}
