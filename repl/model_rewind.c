/*
 * model_rewind: the screen as it was after batch N (issue 20 item 3; see
 * model.h "the screen rewound").
 *
 * The snapshot is built by replaying the checkpoint through the same
 * event code as the live panes (model_feed_event): for every batch B0..N
 * it makes the events the query made then, from the files the batch left:
 *
 *   BATCH_START   offsets/b's batchTimestampMs
 *   OFFSETS       offsets/b-1 -> offsets/b, per source
 *   STATE_ROW     the stateful operators' rows changed in batch b: the
 *                 state change feed (state version b+1 against b), as
 *                 model_rewind_state.c makes them
 *   SINK          the rows of the file sink's log entry _spark_metadata/b
 *   BATCH_END     the watermark the batch ran with (offsets/b's
 *                 batchWatermarkMs), the state rows after it
 *   WATERMARK     commits/b's nextBatchWatermarkMs, when it moved
 *
 * so the windows and their values, their states (UPDATED, EVICTED two
 * batches long, EMITTED kept), the watermark (W, L) and the checkpoint
 * rows are the live panes' by construction.  The state replay starts at
 * the oldest batch whose state retention keeps (from the full state just
 * before it), the timeline at the oldest offsets kept (at most
 * MODEL_MAX_BATCHES before N).
 *
 * What a checkpoint does not hold comes from the live model of the same
 * query id when this session saw the batch: per batch the input rows, the
 * event-time min/avg/max and per-row marks (the scatter), the late and
 * bad rows (and the per-window late counts as of batch N), and the sink's
 * rows when the sink keeps no log (memory, console, foreachBatch), or a
 * sink that skipped a replayed batch.  A folder from another session
 * (:open) has none of it: those parts of the panes stay empty.
 *
 * The operators replayed (model_rewind_state.c) are those whose rows the
 * live Windows pane shows: aggregations with their values, dropDuplicates,
 * a stream-stream join's held rows and the open session windows.
 *
 * Deviations, named: dropDuplicates shows a null value where the live
 * pane shows the row's event time; the operators' own are in
 * model_rewind_state.c.  Output mode is not in Spark's checkpoint;
 * streamlab's queries record it beside their state schema (the state
 * reader's sl_state_opinfo.output_mode), and a folder without it (an
 * older layout) gets a guess, said on the banner: Append with a file
 * sink (the only mode a file sink takes), else Update.
 *
 * Cost: a rewind replays from the oldest batch kept, the operators' rows
 * from texts kept between steps (model_rewind_state.c): measured with
 * 60 batches of 2,000 changed groups (120,000 change rows), :open and
 * ten steps back took 8.4 s of CPU before (a sorted array of keys, and
 * each step reading and formatting every row again), 1.9 s now: 0.6 s
 * the first, 0.13 s each step, most of it the live model's own event
 * code.
 *
 * Never writes into the checkpoint (sl_state_read and sl_ckpt_open_ro
 * take no lock), so it is safe beside the running query.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"
#include "model_int.h"
#include "model_rewind_int.h"
#include "core/buf.h"
#include "core/feed.h"
#include "core/fsutil.h"
#include "core/timeutil.h"
#include "driver/query.h"
#include "driver/state_read.h"
#include "formats/parquet.h"
#include "state/ckpt.h"

typedef struct build {
	sl_model *m;
	model_query *snap;
	model_query *live; /* the same query in the live model, or NULL */
	sl_ckpt *ck;
	sl_state_read *rd;
	const char *sink_dir;
	int64_t n, first, last, b0;
	bool has_wm, append, evicts;
	int nops;     /* stateful operators (state version column) */
	rw_state *st; /* their rows (the rewound screen's, borrowed) */
	char src[MODEL_MAX_SRC][16]; /* short source names */
	char *msg;
	size_t msgn;
} build;

static int failf(build *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int failf(build *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->msg, b->msgn, fmt, ap);
	va_end(ap);
	return -1;
}

static void emit(build *b, sl_event_kind kind, int64_t batch, int64_t ts,
		 const char *text, const char *json)
{
	sl_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = kind;
	ev.batch_id = batch;
	ev.ts_us = ts;
	ev.text = (char *)text;
	ev.json = (char *)json;
	model_feed_event(b->m, b->snap, &ev);
}

/* ---- the sink log ---- */

/* Rows of one part file: lines of a json, csv or text file, a Parquet
 * file's row count; -1 when unreadable. */
static int64_t part_rows(const char *path)
{
	const char *dot = strrchr(path, '.');
	char *data = NULL;
	size_t len = 0;
	int64_t n = 0;

	if (dot && strcmp(dot, ".parquet") == 0) {
		sl_parquet_file *f = sl_parquet_open(path, NULL);
		n = f ? sl_parquet_file_rows(f) : -1;
		sl_parquet_file_free(f);
		return n;
	}
	if (sl_fs_read(path, &data, &len, NULL, NULL) < 0)
		return -1;
	for (size_t i = 0; i < len; i++)
		n += data[i] == '\n';
	if (len > 0 && data[len - 1] != '\n')
		n++;
	free(data);
	return n;
}

/* "file:///a%20b/part-..." -> "/a b/part-..." in out. */
static void log_path(const char *p, size_t n, char *out, size_t on)
{
	size_t k = 0;

	if (n >= 7 && strncmp(p, "file://", 7) == 0)
		p += 7, n -= 7;
	for (size_t i = 0; i < n && k + 1 < on; i++) {
		if (p[i] == '%' && i + 2 < n) {
			char h[3] = { p[i + 1], p[i + 2], 0 };
			out[k++] = (char)strtol(h, NULL, 16);
			i += 2;
		} else
			out[k++] = p[i];
	}
	out[k] = '\0';
}

/* The rows the sink log says batch id wrote (its entry, or its lines of
 * a compacted entry); -1 when the log has no entry for it. */
static int64_t sink_log_rows(const char *dir, int64_t id)
{
	char path[4200], file[4200], tag[48];
	char *text = NULL;
	size_t len;
	int64_t rows = 0;
	bool compact = false;

	snprintf(path, sizeof path, "%s/_spark_metadata/%lld", dir,
		 (long long)id);
	if (sl_fs_read(path, &text, &len, NULL, NULL) < 0) {
		/* Spark compacts every 10 batches into <9, 19, ...>.compact */
		snprintf(path, sizeof path, "%s/_spark_metadata/%lld.compact",
			 dir, (long long)(id / 10 * 10 + 9));
		if (sl_fs_read(path, &text, &len, NULL, NULL) < 0)
			return -1;
		compact = true;
	}
	snprintf(tag, sizeof tag, "-%lld.c000", (long long)id);
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n'), *p = strstr(l, "\"path\":\"");
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (p && p < l + n) {
			const char *e = strchr(p + 8, '"');
			log_path(p + 8, e ? (size_t)(e - p - 8) : 0, file,
				 sizeof file);
			if (!compact || strstr(file, tag)) {
				int64_t r = part_rows(file);
				rows += r > 0 ? r : 0;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	free(text);
	return rows;
}

/* ---- the timeline ---- */

/* A short source name from an offset's shape, for a folder of another
 * session: {"logOffset":N} file, {"topic":{"0":N}} kafka, a number mem. */
static const char *guess_source(const char *off)
{
	if (off == NULL)
		return "src";
	if (strstr(off, "\"logOffset\""))
		return "file";
	if (off[0] == '{')
		return "kafka";
	return "mem";
}

static void batch_events(build *b, int64_t id, const sl_ckpt_offsets *prev,
			 const sl_ckpt_offsets *o, int64_t next_wm_ms)
{
	int64_t ts = o->timestamp_ms * 1000;
	char text[200], iso[40];
	sl_buf j, t;

	sl_buf_init(&j);
	sl_buf_init(&t);
	rw_state_base(b->st, id, ts);
	sl_buf_printf(&j, "{\"batchId\":%lld}", (long long)id);
	emit(b, SL_EV_BATCH_START, id, ts, "batch started", sl_buf_cstr(&j));
	for (int s = 0; s < o->nsources && s < MODEL_MAX_SRC; s++) {
		const char *st = prev && s < prev->nsources && prev->src[s]
				     ? prev->src[s]
				     : "null";
		sl_buf_clear(&j);
		sl_buf_printf(&j, "{\"source\":%d,\"start\":%s,\"end\":%s}", s,
			      st, o->src[s] ? o->src[s] : "null");
		if (b->src[s][0] == '\0')
			snprintf(b->src[s], sizeof b->src[s], "%s",
				 guess_source(o->src[s]));
		snprintf(text, sizeof text, "%s: offsets",
			 model_source_long(b->src[s]));
		emit(b, SL_EV_OFFSETS, id, ts, text, sl_buf_cstr(&j));
	}
	rw_state_changes(b->st, id, ts, o->watermark_ms * 1000);
	if (b->sink_dir != NULL) {
		int64_t rows = sink_log_rows(b->sink_dir, id);
		if (rows >= 0) {
			sl_buf_clear(&j);
			sl_buf_printf(&j, "{\"rows\":%lld,\"skipped\":false}",
				      (long long)rows);
			snprintf(text, sizeof text,
				 "sink log _spark_metadata/%lld: %lld rows",
				 (long long)id, (long long)rows);
			emit(b, SL_EV_SINK, id, ts, text, sl_buf_cstr(&j));
		}
	}
	sl_buf_clear(&j);
	sl_buf_printf(&j, "{\"batchId\":%lld,\"numInputRows\":0",
		      (long long)id);
	if (b->nops > 0)
		sl_buf_printf(&j,
			      ",\"stateOperators\":[{\"numRowsTotal\":%lld}]",
			      (long long)rw_state_rows(b->st));
	if (b->has_wm) {
		sl_ts_iso(o->watermark_ms * 1000, &t);
		snprintf(iso, sizeof iso, "%s", sl_buf_cstr(&t));
		sl_buf_printf(&j, ",\"eventTime\":{\"watermark\":\"%s\"}", iso);
	}
	sl_buf_adds(&j, "}");
	emit(b, SL_EV_BATCH_END, id, ts, "batch committed", sl_buf_cstr(&j));
	if (next_wm_ms != o->watermark_ms && next_wm_ms > 0) {
		sl_buf_clear(&j);
		sl_buf_printf(&j, "{\"from\":%lld,\"to\":%lld}",
			      (long long)o->watermark_ms,
			      (long long)next_wm_ms);
		emit(b, SL_EV_WATERMARK, id, ts, "watermark", sl_buf_cstr(&j));
	}
	sl_buf_release(&j);
	sl_buf_release(&t);
}

/* The batches B0..N through the events above. */
static int replay(build *b)
{
	sl_ckpt_offsets prev, cur;
	bool have_prev = false;
	int rc = 0;

	sl_ckpt_offsets_init(&prev);
	sl_ckpt_offsets_init(&cur);
	if (b->b0 > 0 &&
	    sl_ckpt_read_offsets(b->ck, b->b0 - 1, &prev, NULL) == 0)
		have_prev = true;
	for (int64_t id = b->b0; id <= b->n && rc == 0; id++) {
		int64_t next = 0;
		sl_err err;
		sl_err_clear(&err);
		if (sl_ckpt_read_offsets(b->ck, id, &cur, &err) < 0 ||
		    sl_ckpt_read_commit(b->ck, id, &next, &err) < 0)
			rc = failf(b, ":rewind: %s", err.msg);
		else
			batch_events(b, id, have_prev ? &prev : NULL, &cur,
				     next);
		sl_ckpt_offsets_release(&prev);
		prev = cur;
		have_prev = rc == 0;
		sl_ckpt_offsets_init(&cur);
	}
	sl_ckpt_offsets_release(&prev);
	return rc;
}

/* Any watermark in the offsets or commits kept (a folder of another
 * session: does the query have one?). */
static bool any_watermark(build *b)
{
	for (int64_t id = b->first; id <= b->last; id++) {
		sl_ckpt_offsets o;
		int64_t next = 0;
		bool wm;
		sl_ckpt_offsets_init(&o);
		wm = (sl_ckpt_read_offsets(b->ck, id, &o, NULL) == 0 &&
		      o.watermark_ms > 0) ||
		     (sl_ckpt_read_commit(b->ck, id, &next, NULL) == 0 &&
		      next > 0);
		sl_ckpt_offsets_release(&o);
		if (wm)
			return true;
	}
	return false;
}

/* ---- what only the feed saw: copied from the live query ---- */

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The live run of batch id that committed (the last one: a re-run after a
 * crash is its own entry), or NULL. */
static const model_batch *live_batch(const model_query *q, int64_t id)
{
	for (int i = q->nbatches - 1; i >= 0; i--) {
		const model_batch *b = sl_model_batch(q, i);
		if (b->id == id && b->committed)
			return b;
	}
	return NULL;
}

static void copy_batches(model_query *s, const model_query *l)
{
	for (int i = 0; i < s->nbatches; i++) {
		model_batch *b = (model_batch *)sl_model_batch(s, i);
		const model_batch *o = live_batch(l, b->id);
		if (o == NULL)
			continue;
		b->in_rows = o->in_rows;
		b->ev_min_us = o->ev_min_us;
		b->ev_avg_us = o->ev_avg_us;
		b->ev_max_us = o->ev_max_us;
		b->late = o->late;
		b->replayed = o->replayed;
		if (b->sink == NULL ||
		    o->sink_skipped) { /* no log, or a skip */
			free(b->sink);
			b->sink = dup0(o->sink);
			b->sink_skipped = o->sink_skipped;
			b->out_rows = o->out_rows;
			b->writes = o->writes;
			b->rows_written = o->rows_written;
		}
		if (b->id == s->batch)
			s->in_rows = o->in_rows;
		if (o->ev_max_us != MODEL_NONE &&
		    (s->max_event_us == MODEL_NONE ||
		     o->ev_max_us > s->max_event_us))
			s->max_event_us = o->ev_max_us;
	}
	if (s->max_event_us != MODEL_NONE) {
		char hms[16];
		sl_model_hms(s->max_event_us, hms, sizeof hms);
		s->max_event = dup0(hms);
	}
	s->row_max_us = s->max_event_us;
}

/* Late and bad rows of batches <= N, oldest first; the per-window late
 * counts as of N (the live counts less the rows of later batches). */
static void copy_late(model_query *s, const model_query *l)
{
	s->late_total = l->late_total;
	s->bad_total = l->bad_total;
	memcpy(s->wlate, l->wlate, sizeof s->wlate);
	s->nwlate = l->nwlate;
	for (int i = l->nlate - 1; i >= 0; i--) {
		const model_late *o = sl_model_late(l, i);
		model_late *d;
		if (o->batch > s->batch) {
			if (o->bad) {
				s->bad_total--;
				continue;
			}
			s->late_total--;
			for (int w = 0; w < o->nwin; w++)
				for (int k = 0; k < s->nwlate; k++)
					if (s->wlate[k].start_us ==
						o->win_us[w][0] &&
					    s->wlate[k].end_us ==
						o->win_us[w][1])
						s->wlate[k].count--;
			continue;
		}
		d = &s->late[s->late_head];
		*d = *o;
		d->text = dup0(o->text);
		d->row = dup0(o->row);
		d->fields = dup0(o->fields);
		d->windows = dup0(o->windows);
		d->watermark = dup0(o->watermark);
		s->late_head = (s->late_head + 1) % MODEL_MAX_LATE;
		s->nlate++;
	}
	for (int k = 0; k < s->nwlate;) /* windows with no late row yet */
		if (s->wlate[k].count <= 0) {
			memmove(s->wlate + k, s->wlate + k + 1,
				(size_t)(s->nwlate - k - 1) *
				    sizeof s->wlate[0]);
			s->nwlate--;
		} else
			k++;
	if (s->late_total < 0)
		s->late_total = 0;
	if (s->bad_total < 0)
		s->bad_total = 0;
}

static void copy_pts(model_query *s, const model_query *l)
{
	for (int i = l->npts - 1; i >= 0; i--) {
		const model_pts *o =
		    &l->pts[(l->pts_head - 1 - i + MODEL_PTS_BATCHES) %
			    MODEL_PTS_BATCHES];
		model_pts *d = &s->pts[s->pts_head];
		if (o->batch > s->batch || o->us == NULL)
			continue;
		d->us = malloc(MODEL_PTS_MAX * sizeof *d->us);
		d->behind = malloc(MODEL_PTS_MAX * sizeof *d->behind);
		if (d->us == NULL || d->behind == NULL) {
			free(d->us);
			free(d->behind);
			d->us = NULL;
			d->behind = NULL;
			return;
		}
		memcpy(d->us, o->us, (size_t)o->n * sizeof *d->us);
		memcpy(d->behind, o->behind, (size_t)o->n * sizeof *d->behind);
		d->batch = o->batch;
		d->total = o->total;
		d->n = o->n;
		d->prior_max_us = o->prior_max_us;
		s->pts_head = (s->pts_head + 1) % MODEL_PTS_BATCHES;
		s->npts++;
	}
}

/* ---- building a snapshot ---- */

static void build_release(build *b)
{
	if (b->st != NULL)
		rw_state_end(b->st);
	sl_state_read_free(b->rd);
	sl_ckpt_close(b->ck);
}

/* The source names the live query's checkpoint rows use ("mem", ...). */
static void live_sources(build *b)
{
	for (int i = 0; b->live && i < b->live->nbatches; i++) {
		const model_batch *o = sl_model_batch(b->live, i);
		for (int s = 0; s < o->nsrc && s < MODEL_MAX_SRC; s++)
			if (o->offsets[s] && b->src[s][0] == '\0')
				snprintf(b->src[s], sizeof b->src[s], "%.*s",
					 (int)strcspn(o->offsets[s], " "),
					 o->offsets[s]);
	}
}

/* Check batch n against the checkpoint, with Spark's state reader's
 * words: not committed, or purged by retention. */
static int check_batch(build *b, const char *dir)
{
	b->last = sl_state_read_last_batch(b->rd);
	b->first = sl_state_read_first_batch(b->rd);
	if (b->last < 0)
		return failf(b, ":rewind: no committed batch in '%s' yet", dir);
	if (b->n == -1)
		b->n = b->last;
	if (b->n > b->last)
		return failf(b,
			     ":rewind: batch %lld is not committed in '%s' "
			     "(committed: %lld..%lld)",
			     (long long)b->n, dir, (long long)b->first,
			     (long long)b->last);
	if (b->n < b->first)
		return failf(b,
			     ":rewind: batch %lld was purged by retention "
			     "(oldest kept: %lld; "
			     "spark.sql.streaming.minBatchesToRetain)",
			     (long long)b->n, (long long)b->first);
	return 0;
}

/* A snapshot of the checkpoint dir at batch n (-1: the last committed)
 * into *out; live (may be NULL) is the same query in the live model. */
/* The output mode of a folder from another session (append -1): as the
 * query recorded it beside its state schema, else a guess from the sink
 * (a file sink takes only Append), said in note. */
static int folder_mode(build *b, int append, char *note, size_t n)
{
	const char *rec = NULL;

	note[0] = '\0';
	if (append >= 0 || b->nops == 0)
		return append;
	for (int i = 0; i < b->nops && rec == NULL; i++)
		rec = sl_state_read_op(b->rd, i)->output_mode;
	if (rec != NULL) {
		snprintf(note, n, "output mode %s (recorded)", rec);
		return strcasecmp(rec, "Append") == 0	  ? 1
		       : strcasecmp(rec, "Complete") == 0 ? 2
							  : 0;
	}
	snprintf(note, n, "output mode %s (a guess: not recorded)",
		 b->sink_dir != NULL ? "Append" : "Update");
	return b->sink_dir != NULL ? 1 : 0;
}

/* A snapshot of rw's checkpoint at batch n (-1: the last committed)
 * into *out; live (may be NULL) is the same query in the live model.
 * rw's state cache serves it, or is made again. */
static int snapshot(sl_model *m, model_rw *rw, model_query *live, int append,
		    int64_t n, model_query **out, int64_t *last, char *msg,
		    size_t msgn)
{
	const char *dir = rw->ckdir, *sink_dir = rw->sink_dir;
	build b;
	sl_err err;
	int rc;

	memset(&b, 0, sizeof b);
	b.m = m;
	b.live = live;
	b.sink_dir = sink_dir;
	b.n = n;
	b.msg = msg;
	b.msgn = msgn;
	sl_err_clear(&err);
	if ((b.rd = sl_state_read_open(dir, &err)) == NULL ||
	    (b.ck = sl_ckpt_open_ro(dir, &err)) == NULL) {
		build_release(&b);
		return failf(&b, ":rewind: %s", err.msg);
	}
	if ((rc = check_batch(&b, dir)) < 0) {
		build_release(&b);
		return rc;
	}
	b.b0 = b.n - MODEL_MAX_BATCHES + 1 > b.first
		   ? b.n - MODEL_MAX_BATCHES + 1
		   : b.first;
	if ((b.snap = model_query_new()) == NULL) {
		build_release(&b);
		return failf(&b, ":rewind: out of memory");
	}
	b.has_wm = live ? live->watermark != NULL : any_watermark(&b);
	b.nops = sl_state_read_nops(b.rd);
	/* append: 1 Append, 0 Update, 2 Complete, -1 unknown (a folder) */
	append = folder_mode(&b, append, rw->mode, sizeof rw->mode);
	b.append = append == 1;
	b.evicts = b.has_wm && append != 2;
	live_sources(&b);
	if (!rw_state_fits(rw->cache, dir, b.b0, b.n, b.last)) {
		rw_state_free(rw->cache);
		rw->cache = rw_state_new(b.rd, dir, b.b0, b.n, b.last);
	}
	if ((b.st = rw->cache) == NULL) {
		model_query_free(b.snap);
		build_release(&b);
		return failf(&b, ":rewind: out of memory");
	}
	rw_state_begin(b.st, m, b.snap, b.n, b.append, b.evicts);
	if ((rc = replay(&b)) < 0) {
		model_query_free(b.snap);
		build_release(&b);
		return rc;
	}
	if (live) {
		copy_batches(b.snap, live);
		copy_late(b.snap, live);
		copy_pts(b.snap, live);
	}
	*out = b.snap;
	*last = b.last;
	build_release(&b);
	return 0;
}

/* ---- the public side (model.h) ---- */

void model_rw_release(model_rw *rw)
{
	rw_state_free(rw->cache);
	model_query_free(rw->snap);
	free(rw->what);
	free(rw->ckdir);
	free(rw->sink_dir);
	free(rw->qid);
	memset(rw, 0, sizeof *rw);
}

/* Where a rewind of the focused query reads: its checkpoint and sink. */
static int focused_source(sl_model *m, model_rw *to, char *msg, size_t n)
{
	model_query *q = sl_model_focus(m);
	const char *dir, *sink;

	if (q == NULL || q->q == NULL) {
		snprintf(msg, n,
			 ":rewind: no query to rewind (start one, or :open a "
			 "checkpoint folder)");
		return -1;
	}
	dir = sl_query_checkpoint_dir(q->q);
	if (dir == NULL || !sl_fs_exists(dir)) {
		snprintf(msg, n,
			 ":rewind: query '%s' has no checkpoint left (a "
			 "temporary one is deleted when the query stops: give "
			 "it option checkpointLocation)",
			 q->name ? q->name : q->id);
		return -1;
	}
	sink = sl_query_sink_dir(q->q);
	to->ckdir = dup0(dir);
	to->sink_dir = dup0(sink);
	to->qid = dup0(q->id);
	to->what = dup0(q->name ? q->name : q->id);
	return 0;
}

static model_query *live_of(sl_model *m, const char *id)
{
	for (int i = 0; id && i < sl_model_count(m); i++)
		if (strcmp(sl_model_query(m, i)->id, id) == 0)
			return sl_model_query(m, i);
	return NULL;
}

/* Rebuild rw's snapshot at batch (the source in rw). */
static int rebuild(sl_model *m, model_rw *rw, int64_t batch, char *msg,
		   size_t n)
{
	model_query *live = live_of(m, rw->qid), *snap = NULL;
	int append = -1;
	int64_t last = -1;
	char status[80];

	if (live && live->q) {
		sl_outmode om = sl_query_output_mode(live->q);
		/* the batch a step just ran may still have its commit queued
		 * (pipelined checkpoint writes): wait for the files, as
		 * q:checkpoint() does */
		(void)sl_query_sync(live->q, NULL);
		append = om == SL_MODE_APPEND     ? 1
			 : om == SL_MODE_COMPLETE ? 2
						  : 0;
	}
	if (snapshot(m, rw, live, append, batch, &snap, &last, msg, n) < 0)
		return -1;
	snap->id = dup0(live ? live->id : rw->qid ? rw->qid : "checkpoint");
	snap->run_id = dup0(live ? live->run_id : NULL);
	snap->name = dup0(live ? live->name : rw->what);
	snprintf(status, sizeof status, "REWOUND to batch %lld of %lld",
		 (long long)snap->batch, (long long)last);
	snap->status = dup0(status);
	model_query_free(rw->snap);
	rw->snap = snap;
	rw->batch = snap->batch;
	rw->last = last;
	return 0;
}

int sl_model_rewind(sl_model *m, int64_t batch, char *msg, size_t n)
{
	model_rw *rw = model_rw_of(m), to;

	if (rw->opened)
		return rebuild(m, rw, batch, msg, n);
	memset(&to, 0, sizeof to);
	to.cache = rw->cache; /* it knows its checkpoint: kept if it fits */
	rw->cache = NULL;
	if (focused_source(m, &to, msg, n) < 0 ||
	    rebuild(m, &to, batch, msg, n) < 0) {
		model_rw_release(&to);
		return -1;
	}
	model_rw_release(rw);
	*rw = to;
	return 0;
}

int sl_model_rewind_step(sl_model *m, int delta, char *msg, size_t n)
{
	model_rw *rw = model_rw_of(m);

	if (rw->snap == NULL)
		return delta < 0 ? sl_model_rewind(m, -1, msg, n) : 0;
	if (rw->batch + delta < 0) {
		snprintf(msg, n, ":rewind: batch %lld is the first",
			 (long long)rw->batch);
		return -1;
	}
	if (delta > 0 && rw->batch >= rw->last) {
		snprintf(msg, n,
			 ":rewind: batch %lld is the last committed (:live "
			 "returns)",
			 (long long)rw->batch);
		return -1;
	}
	return rebuild(m, rw, rw->batch + delta, msg, n);
}

int sl_model_open(sl_model *m, const char *dir, const char *sink_dir, char *msg,
		  size_t n)
{
	model_rw *rw = model_rw_of(m), to;
	char *abs = realpath(dir, NULL), *id = NULL, *fp = NULL;
	sl_ckpt *ck;

	memset(&to, 0, sizeof to);
	if (abs == NULL) {
		snprintf(msg, n, ":open: cannot open '%s': %s", dir,
			 strerror(errno));
		return -1;
	}
	to.ckdir = abs;
	to.sink_dir = sink_dir && sink_dir[0] ? realpath(sink_dir, NULL) : NULL;
	if (sink_dir && sink_dir[0] && to.sink_dir == NULL) {
		snprintf(msg, n, ":open: cannot open sink folder '%s': %s",
			 sink_dir, strerror(errno));
		model_rw_release(&to);
		return -1;
	}
	if ((ck = sl_ckpt_open_ro(abs, NULL)) != NULL &&
	    sl_ckpt_read_metadata(ck, &id, &fp, NULL) == 0 && id != NULL)
		to.qid =
		    id; /* the query id: the live model's, if it ran here */
	else
		free(id);
	free(fp);
	sl_ckpt_close(ck);
	to.what = dup0(dir);
	to.opened = true;
	to.cache = rw->cache;
	rw->cache = NULL;
	if (rebuild(m, &to, -1, msg, n) < 0) {
		model_rw_release(&to);
		return -1;
	}
	model_rw_release(rw);
	*rw = to;
	return 0;
}

void sl_model_live(sl_model *m)
{
	model_rw_release(model_rw_of(m));
}

const char *sl_model_rewound_mode(const sl_model *m)
{
	model_rw *rw = model_rw_of((sl_model *)m);

	return rw->snap != NULL && rw->mode[0] ? rw->mode : NULL;
}

bool sl_model_rewound(const sl_model *m, int64_t *batch, int64_t *last,
		      const char **what)
{
	model_rw *rw = model_rw_of((sl_model *)m);

	if (rw->snap == NULL)
		return false;
	if (batch)
		*batch = rw->batch;
	if (last)
		*last = rw->last;
	if (what)
		*what = rw->what;
	return true;
}

model_query *sl_model_shown(sl_model *m)
{
	model_rw *rw = model_rw_of(m);

	return rw->snap ? rw->snap : sl_model_focus(m);
}
