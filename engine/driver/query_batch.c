/*
 * query_batch: the micro-batch protocol of the query driver (query.h).
 *
 * The one place that orders a micro-batch.  sl_query_run_batch() below is the
 * protocol, in this order and nowhere else:
 *
 *   plan      latest offset per source (or the recorded target), end =
 *             the source's rate limit (not for Trigger.Once); no source
 *             moved -> no batch.  Batch id, batch timestamp = the clock
 *             at the trigger (current_timestamp() returns it).
 *   [offsets/N written: checkpoint milestone]
 *   read      (start, end] per source, pushed into the incremental
 *             operators chunk by chunk as the source makes them (the
 *             batch list as a pipe, core/batch.h: memory bounded by the
 *             chunk; a noop sink's rows only counted); end of the
 *             micro-batch (stateful operators emit by output mode into
 *             the collector).
 *   [state version N+1 written: checkpoint milestone]
 *   sink      add_batch(N, output) (a sink may skip a committed N).
 *   commit    in-memory state; [commits/N: checkpoint milestone];
 *             sources told; progress, listeners, feed.
 *
 * The milestones' files are written by the checkpoint's background writer
 * (ckwriter.h), their names in exactly this order, each durable before the
 * next name is published, while this thread goes on; it waits for
 * offsets/N before the sink sees batch N, so a re-run always finds the
 * offsets the sink's output came from.  A crash leaves a prefix of the
 * names, as a synchronous writer would.  Batch N+1 may plan and aggregate
 * while commits/N is being written: back-to-back batches (W4) overlap the
 * fsyncs with work.
 *
 * The durable steps and their order (issue 18 item 6).  A file is written
 * as temp, fsync(temp), rename, fsync(dir) (fsutil.h): two device
 * flushes.  Recovery (RELIABILITY.md 2: C == L or C == L-1, nothing else)
 * depends on three orders between the files of batch N:
 *
 *   (a) offsets/N durable (name and bytes) before commits/N's name: a
 *       commit without its offsets is refused;
 *   (b) delta N+1 durable before commits/N's name: a committed batch
 *       whose state version is missing or torn fails closed;
 *   (c) commits/N durable before offsets/N+1's name: else L = N+1,
 *       C = N-1, refused.
 *
 * and on one more for the sink: offsets/N durable before a sink whose
 * output outlives the process commits batch N (the file sink's
 * _spark_metadata/N: else a power cut could re-plan a batch the sink
 * already committed).  Nothing else is ordered.  In particular offsets/N
 * and delta N+1 are not ordered against each other, and no file's temp
 * (its bytes before the rename) is ordered against anything: no reader
 * and no recovery looks at a temp file, and recovery sweeps them.
 *
 * So the writer runs two lanes (ckwriter.h).  The data lane writes and
 * flushes temp files ahead, in queue order; the name lane publishes
 * names (rename, fsync of the directory) strictly in queue order, each
 * done before the next: (a), (b), (c) and the sink's order hold exactly
 * as with one lane, and a crash or a power cut leaves a prefix of the
 * names plus some temp files.  What overlaps per batch:
 *
 *   data lane   offsets/N data .......... delta N+1 LZ4+CRC, write; commits/N data
 *   name lane   ........ offsets/N name ...................... delta N+1 name+data | commits/N name
 *
 * commits/N's data flush runs beside the delta's; offsets/N+1's data
 * beside commits/N's name.  One step is folded: the delta's bytes are
 * flushed after its rename, at the same time as its directory (one
 * flush's time instead of two in a row; fsutil.h "late flush").  A power
 * cut may then leave delta N+1 named but torn, or holding a reused spare's
 * old bytes; that is safe because nothing reads version N+1 before
 * commits/N is durable, and commits/N's name is published only after the
 * delta's flush returned (b): without commits/N, recovery loads version N
 * and the re-run of batch N overwrites delta N+1.  offsets/N and commits/N
 * keep their data flush before the rename: each is read as soon as its
 * name exists (the newest offsets file is the batch to re-run; the newest
 * commit is the watermark), has no checksum (Spark's plain text), and a
 * reused spare's old bytes would parse as a valid older file.
 *
 * Per batch that is still six flushes, but the name lane, the one the
 * batch can wait on, waits for three flush times (offsets/N's directory;
 * the delta's file and directory at once; commits/N's directory) where the
 * single lane waited for six in a row; the data lane's two (offsets/N's
 * and commits/N's bytes) and the delta's LZ4 and CRC run beside them.  Why not fewer: each of (a),
 * (b), (c) crosses directories, and this filesystem (ext4 without a
 * journal) orders nothing between directories nor between a file's data
 * and its name, so each directory's fsync is its own step; and offsets/N
 * at the batch's start is a step of its own, as the sink's order needs it.
 *
 * What waits (measured at W4, 1 000 and 100 000 keys): not the sink's
 * wait for offsets/N-1 (2 us: the writer is a batch ahead of it), but the
 * sync that sl_query_tick did after every trigger, so clock:advance
 * returned only once delta N+1 and commits/N were durable: 7 ms of each
 * 11 ms batch at 1 000 keys, 8-14 ms of each 20-35 ms at 100 000.  That
 * sync guarded no ordering (the FIFO does; a crash still leaves a prefix),
 * only what an observer sees, so tick no longer syncs: the writer runs at
 * most about one batch behind (the in-process sink's wait for offsets/N-1
 * bounds it), and whoever looks at the checkpoint syncs first: the console
 * when a line returns to the prompt or a script ends (sl_session_sync),
 * the screen's idle tick, real-clock waits, checkpoint_json, step, stop,
 * processAllAvailable.  A power cut or kill in between loses at most the
 * writes still queued: P3/P14 of RELIABILITY.md 3.2 (offsets/N kept,
 * commits/N lost: batch N re-runs with its logged offsets, the file sink
 * skips it, exactly once).  A failed write is still sticky: it fails the
 * next batch's submit or wait, or the sync at the prompt.
 *
 * Any failure aborts the state stores to the version the batch started
 * from, keeps the offsets where they were (so a restart re-runs the
 * batch), records the error as the query's exception and stops the query.
 * An interrupt (SL_EINTR: Ctrl-C while a Lua callback ran) aborts the
 * same way but the query goes on: the batch is re-run in this process as
 * recovery would re-run it (offsets/N as logged, the state version before
 * it, the sink called again with the same batch id), at the next batch the
 * learner asks for (the query is held, query.h).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/exec_stream.h"
#include "expr/expr.h"
#include "plan/plan_int.h"
#include "driver/query_int.h"
#include "sources/source.h"
#include "core/timeutil.h"

/* ------------------------------------------------------ the batch */

#define MAX_STATEOPS 16
#define MAX_WMS      16

/* What one trigger plans, measures and reports. */
typedef struct mbatch {
	int64_t id, t0, prev_trigger;
	char **latest, **end;
	int64_t *rows;
	sl_batch_list *in;
	int64_t in_rows, out_rows;
	bool skipped;
	int64_t us_latest, us_wal, us_get, us_plan, us_add, us_state;
	int64_t us_commit;
	int64_t ck_mono;    /* monotonic us in checkpoint writes (make bench) */
	int64_t off_ticket; /* offsets/N's write, waited for before the sink */
	int nstate;
	sl_progress_state st[MAX_STATEOPS];
	sl_state *stp[MAX_STATEOPS];
	int nwm;
	sl_wm_stats wst[MAX_WMS];
	bool no_data;
	bool begun; /* begin_batch ran: m->id is the batch's */
} mbatch;

static void event_time_report(const sl_query *q, const mbatch *m,
			      sl_progress *p);

static int mbatch_init(mbatch *m, int n, sl_err *err)
{
	int i;
	size_t k = (size_t)(n ? n : 1);
	memset(m, 0, sizeof *m);
	m->latest = calloc(k, sizeof *m->latest);
	m->end = calloc(k, sizeof *m->end);
	m->rows = calloc(k, sizeof *m->rows);
	m->in = calloc(k, sizeof *m->in);
	if (m->latest == NULL || m->end == NULL || m->rows == NULL ||
	    m->in == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < n; i++)
		sl_batch_list_init(&m->in[i]);
	return 0;
}

static void mbatch_release(mbatch *m, int n)
{
	int i;
	sl_query_offsets_free(m->latest, n);
	sl_query_offsets_free(m->end, n);
	if (m->in != NULL)
		for (i = 0; i < n; i++)
			sl_batch_list_release(&m->in[i]);
	free(m->in);
	free(m->rows);
}

/* Latest (or the recorded cap) and end offsets per source. */
static int plan_offsets(sl_query *q, mbatch *m, char *const *cap,
			bool use_limit, sl_err *err)
{
	int i, rc;
	bool oom = false;
	int64_t t = sl_query_now(q);
	if (cap != NULL) {
		for (i = 0; i < q->nsrc; i++)
			m->latest[i] = sl_query_strdup(cap[i], &oom);
		if (oom)
			return sl_err_nomem(err);
	} else if ((rc = sl_query_poll_latest(q, m->latest, err)) < 0) {
		return rc;
	}
	for (i = 0; i < q->nsrc; i++) {
		sl_source *s = q->src[i];
		if (!use_limit || m->latest[i] == NULL ||
		    s->ops->limit == NULL ||
		    sl_query_same_offset(m->latest[i], q->start[i])) {
			m->end[i] = sl_query_strdup(m->latest[i], &oom);
			if (oom)
				return sl_err_nomem(err);
			continue;
		}
		rc = s->ops->limit(s, q->start[i], m->latest[i], &m->end[i],
				   err);
		if (rc < 0) {
			sl_err_prefix(err, q->desc[i]);
			return rc;
		}
	}
	m->us_latest = sl_query_now(q) - t;
	return 0;
}

static void offsets_events(sl_query *q, const mbatch *m)
{
	sl_buf t, j;
	int i;
	sl_buf_init(&t);
	sl_buf_init(&j);
	sl_buf_printf(&t, "batch %lld started", (long long)m->id);
	sl_buf_adds(&j, "{\"batchId\":");
	sl_buf_printf(&j, "%lld,\"timestamp\":\"", (long long)m->id);
	sl_ts_iso(m->t0, &j);
	sl_buf_adds(&j, "\"}");
	sl_query_event(q, SL_EV_BATCH_START, m->id, sl_buf_cstr(&t),
		       sl_buf_cstr(&j));
	for (i = 0; i < q->nsrc; i++) {
		const char *s = q->start[i] ? q->start[i] : "null";
		const char *e = m->end[i] ? m->end[i] : "null";
		sl_buf_clear(&t);
		sl_buf_clear(&j);
		sl_buf_printf(&t, "%s: offsets %s -> %s", q->desc[i], s, e);
		sl_buf_printf(&j, "{\"source\":%d,\"start\":%s,\"end\":%s}", i,
			      s, e);
		sl_query_event(q, SL_EV_OFFSETS, m->id, sl_buf_cstr(&t),
			       sl_buf_cstr(&j));
	}
	sl_buf_release(&t);
	sl_buf_release(&j);
}

/* One chunk of source i, straight to the operators (the list's pipe,
 * batch.h): the source's batch never lives in memory whole. */
typedef struct chunk_pipe {
	sl_query *q;
	int src;
	int64_t rows, us; /* rows pushed; query-clock us spent pushing */
} chunk_pipe;

static int push_chunk(void *ctx, sl_batch *b, sl_err *err)
{
	chunk_pipe *cp = ctx;
	int64_t t = sl_query_now(cp->q);
	int rc;
	int l;
	cp->rows += b->nrows;
	/* every leaf that reads this source (a self-union reads it twice) */
	for (l = 0, rc = 0; l < cp->q->nleaf && rc >= 0; l++)
		if (cp->q->leaf_src[l] == cp->src)
			rc = sl_exec_stream_push(cp->q->root, l, b, err);
	sl_batch_free(b);
	cp->us += sl_query_now(cp->q) - t;
	return rc < 0 ? rc : 0;
}

/* getBatch and the operators' pushes: rows in (start, end] of every source
 * that moved, each chunk pushed as the source makes it (sources, plan
 * order; within a source, the order it gives them), as run_operators
 * pushed the whole lists before.  Offsets are what plan_offsets chose:
 * chunking changes when rows reach the operators, never which.  The time
 * spent pushing counts as addBatch, not getBatch. */
static int read_sources(sl_query *q, mbatch *m, sl_err *err)
{
	sl_buf t, j;
	int i, k, scans, rc = 0;
	int64_t t0 = sl_query_now(q), pushing = 0;
	sl_buf_init(&t);
	sl_buf_init(&j);
	for (i = 0; i < q->nsrc && rc == 0; i++) {
		sl_source *s = q->src[i];
		chunk_pipe cp = { q, i, 0, 0 };
		sl_err perr;
		if (sl_query_same_offset(q->start[i], m->end[i]))
			continue;
		memset(&perr, 0, sizeof perr);
		m->in[i].push = push_chunk;
		m->in[i].ctx = &cp;
		m->in[i].push_err = &perr;
		m->in[i].push_rc = 0;
		sl_source_bad_begin(s, m->id);
		rc = s->ops->read(s, q->start[i], m->end[i], &m->in[i], err);
		sl_source_bad_end(s);
		pushing += cp.us;
		if (m->in[i].push_rc < 0) { /* an operator failed: its error */
			rc = m->in[i].push_rc;
			if (err != NULL)
				*err = perr;
			break;
		}
		m->in[i].push = NULL;
		if (rc < 0) {
			sl_err_prefix(err, q->desc[i]);
			break;
		}
		/* Spark sums the scans of a source (self-union: twice) */
		for (k = 0, scans = 0; k < q->nleaf; k++)
			scans += q->leaf_src[k] == i;
		m->rows[i] = cp.rows * (scans > 0 ? scans : 1);
		m->in_rows += m->rows[i];
		sl_buf_clear(&t);
		sl_buf_clear(&j);
		sl_buf_printf(&t, "read %lld rows from %s",
			      (long long)m->rows[i], q->desc[i]);
		sl_buf_printf(&j, "{\"source\":%d,\"rows\":%lld}", i,
			      (long long)m->rows[i]);
		sl_query_event(q, SL_EV_READ, m->id, sl_buf_cstr(&t),
			       sl_buf_cstr(&j));
	}
	sl_buf_release(&t);
	sl_buf_release(&j);
	m->us_get = sl_query_now(q) - t0 - pushing;
	m->us_add = pushing;
	return rc;
}

/* addBatch: push every source's rows, end the micro-batch, hand the
 * output to the sink.  Nothing is committed here. */
static int run_operators(sl_query *q, mbatch *m, sl_err *err)
{
	sl_batch *out;
	sl_buf t, j;
	int rc;
	int64_t t0 = sl_query_now(q), t1, c0;
	/* the sources' rows are in: read_sources pushed them */
	if ((rc = sl_exec_stream_end(q->root, err)) < 0)
		return rc;
	/* state version N+1 is durable before the sink sees the batch */
	t1 = sl_query_now(q);
	c0 = sl_clock_monotonic_us();
	rc = sl_query_ckpt_state(q, m->id, err);
	m->ck_mono += sl_clock_monotonic_us() - c0;
	m->us_state = sl_query_now(q) - t1;
	if (rc < 0)
		return rc;
	/* offsets/N (and what was queued before it) is durable before the
	 * sink sees the batch: a re-run must find the same offsets.  A sink
	 * whose output dies with the process waits only for the previous
	 * batch's: the writer gets a batch of slack, and stays bounded */
	c0 = sl_clock_monotonic_us();
	if (sl_crash_hits(q->crash, "mid-sink", m->id))
		rc = sl_query_sync(q, err);
	else
		rc = sl_query_ckpt_wait(q,
					q->sink->ops->in_process
					    ? q->prev_off_ticket
					    : m->off_ticket,
					err);
	q->prev_off_ticket = m->off_ticket;
	m->ck_mono += sl_clock_monotonic_us() - c0;
	if (rc < 0)
		return rc;
	m->out_rows = sl_exec_collector_rows(q->collect);
	out = sl_exec_collector_take(q->collect, sl_plan_schema(q->plan), err);
	if (out == NULL)
		return err ? err->code : SL_ENOMEM;
	rc = q->sink->ops->add_batch(q->sink, m->id, out, &m->skipped, err);
	sl_batch_free(out);
	if (rc <
	    0) /* a sink that stops half way ("mid-sink") records nothing */
		return rc;
	sl_buf_init(&t);
	sl_buf_init(&j);
	if (m->skipped)
		sl_buf_printf(&t, "sink batch %lld already committed: skipped",
			      (long long)m->id);
	else
		sl_buf_printf(&t, "wrote %lld rows to %s",
			      (long long)m->out_rows, q->sink_desc);
	sl_buf_printf(&j, "{\"rows\":%lld,\"skipped\":%s}",
		      (long long)m->out_rows, m->skipped ? "true" : "false");
	sl_query_event(q, SL_EV_SINK, m->id, sl_buf_cstr(&t), sl_buf_cstr(&j));
	sl_buf_release(&t);
	sl_buf_release(&j);
	/* sinks that cannot stop half way (foreachBatch, console, noop)
	 * pass "mid-sink" once they wrote */
	if ((rc = sl_query_crash_at(q, "mid-sink", m->id, err)) < 0 ||
	    (rc = sl_query_crash_at(q, "after-sink", m->id, err)) < 0)
		return rc;
	m->us_add += sl_query_now(q) - t0 - m->us_state;
	return 0;
}

/* Per-batch numbers of the stateful operators: read before the commit
 * (which resets the pending counters), totals after it. */
static void state_before(sl_query *q, mbatch *m)
{
	sl_stateop_info info[MAX_STATEOPS];
	int i, n = sl_exec_stream_states(q->root, info, MAX_STATEOPS);
	m->nstate = n < MAX_STATEOPS ? n : MAX_STATEOPS;
	for (i = 0; i < m->nstate; i++) {
		m->st[i].operator_name = info[i].operator_name;
		m->st[i].rows_updated = info[i].num_rows_updated;
		m->st[i].rows_removed = info[i].num_rows_removed;
		m->st[i].rows_dropped = info[i].num_rows_dropped_by_watermark;
		m->st[i].dup_dropped = info[i].num_dropped_duplicate_rows;
		m->stp[i] = info[i].state;
	}
}

static void state_after(mbatch *m)
{
	int i;
	for (i = 0; i < m->nstate; i++)
		if (m->stp[i] != NULL) {
			m->st[i].rows_total = sl_state_num_rows(m->stp[i]);
			m->st[i].memory_bytes =
			    (int64_t)sl_state_memory(m->stp[i]);
		}
}

static void advance_watermark(sl_query *q, const mbatch *m);

/* commits/N (with the watermark for the next batch), then the in-memory
 * state commit, retention, and the sources told what is committed. */
static int commit_batch(sl_query *q, mbatch *m, sl_err *err)
{
	int64_t t0, c0;
	int i, rc;
	state_before(q, m);
	m->nwm = sl_exec_stream_watermarks(q->root, m->wst, MAX_WMS);
	if (m->nwm > MAX_WMS)
		m->nwm = MAX_WMS;
	advance_watermark(q, m);
	t0 = sl_query_now(q);
	c0 = sl_clock_monotonic_us();
	rc = sl_query_ckpt_commit(q, m->id, q->wm.global_ms, err);
	m->ck_mono += sl_clock_monotonic_us() - c0;
	m->us_commit = sl_query_now(q) - t0;
	if (rc < 0 || (rc = sl_exec_stream_commit(q->root, err)) < 0)
		return rc;
	state_after(m);
	q->last_batch_id = m->id;
	if ((rc = sl_query_crash_at(q, "after-commit", m->id, err)) < 0)
		return rc;
	sl_query_ckpt_purge(q, m->id);
	for (i = 0; i < q->nsrc; i++)
		if (m->end[i] != NULL && q->src[i]->ops->commit != NULL)
			q->src[i]->ops->commit(q->src[i], m->end[i]);
	return 0;
}

/* After the report: the batch's end offsets are the next batch's start. */
static void move_offsets(sl_query *q, mbatch *m)
{
	int i;
	for (i = 0; i < q->nsrc; i++) {
		free(q->start[i]);
		q->start[i] = m->end[i];
		m->end[i] = NULL;
	}
}

static void keep_progress(sl_query *q, char *json)
{
	char *copy = NULL;
	if (q->recent_keep > 0 && (copy = strdup(json)) != NULL) {
		int slot;
		if (q->nrecent == q->recent_cap) {
			free(q->recent[q->recent_head]);
			q->recent[q->recent_head] = NULL;
			q->recent_head = (q->recent_head + 1) % q->recent_cap;
			q->nrecent--;
		}
		slot = (q->recent_head + q->nrecent) % q->recent_cap;
		q->recent[slot] = copy;
		q->nrecent++;
	}
	free(q->last_progress);
	q->last_progress = json;
}

/* Progress: the JSON into lastProgress/recentProgress, the feed's
 * BATCH_END, and the listeners' onQueryProgress. */
static void report(sl_query *q, mbatch *m)
{
	sl_progress_source ps[64], *src = ps;
	sl_progress p;
	sl_buf b;
	char *json;
	int i;
	if (q->nsrc > 64 &&
	    (src = calloc((size_t)q->nsrc, sizeof *src)) == NULL)
		return;
	for (i = 0; i < q->nsrc; i++) {
		src[i].description = q->desc[i];
		src[i].start = q->start[i];
		src[i].end = m->end[i];
		src[i].latest = m->latest[i];
		src[i].rows = m->rows[i];
	}
	memset(&p, 0, sizeof p);
	p.id = q->id;
	p.run_id = q->run_id;
	p.name = q->name;
	p.trigger_us = m->t0;
	p.prev_trigger_us = m->prev_trigger;
	p.batch_id = m->id;
	p.input_rows = m->in_rows;
	p.us_add = m->us_add;
	p.us_get = m->us_get;
	p.us_latest = m->us_latest;
	p.us_plan = m->us_plan;
	p.us_wal = m->us_wal;
	p.us_trigger = sl_query_now(q) - m->t0;
	p.nsrc = q->nsrc;
	p.src = src;
	p.nstate = m->nstate;
	p.states = m->st;
	p.sink_desc = q->sink_desc;
	p.sink_rows = m->out_rows;
	event_time_report(q, m, &p);
	sl_buf_init(&b);
	sl_progress_json(&p, &b);
	if (src != ps)
		free(src);
	if (sl_buf_failed(&b) || (json = sl_buf_detach(&b)) == NULL) {
		sl_buf_release(&b);
		return;
	}
	keep_progress(q, json);
	q->last_noexec_us = sl_query_now(q); /* Spark resets it on a batch */
	q->idle_nstate = m->nstate < 16 ? m->nstate : 16;
	for (i = 0; i < q->idle_nstate; i++) {
		q->idle_st[i] = m->st[i];
		q->idle_st[i].rows_updated = 0;
		q->idle_st[i].rows_dropped = 0;
	}
	sl_buf_printf(&b, "batch %lld: %lld rows in, %lld rows out, %lld ms",
		      (long long)m->id, (long long)m->in_rows,
		      (long long)m->out_rows, (long long)(p.us_trigger / 1000));
	sl_query_event(q, SL_EV_BATCH_END, m->id, sl_buf_cstr(&b), json);
	sl_buf_release(&b);
	sl_session_notify(q->sess, SL_LISTEN_PROGRESS, q, json);
}

/* Spark's finishTrigger(hasExecuted = false): a trigger that ran no batch
 * still reports a progress once noDataProgressEventInterval has passed
 * since the last one (a batch's or an idle one): the next batch id,
 * numInputRows 0, the sources where they are, the state operators'
 * totals with nothing updated or dropped (SPARK-19378), the watermark.
 * It goes to lastProgress/recentProgress and the listeners; not to the
 * feed (the panes show batches). */
static void idle_report(sl_query *q, mbatch *m)
{
	sl_progress_source ps[64];
	sl_progress p;
	sl_buf b;
	char *json;
	int64_t now = sl_query_now(q);
	int i;
	if (q->nsrc > 64 || (q->last_noexec_us != INT64_MIN &&
			     now - q->noexec_interval_us < q->last_noexec_us))
		return;
	q->last_noexec_us = now;
	for (i = 0; i < q->nsrc; i++) {
		ps[i].description = q->desc[i];
		ps[i].start = q->start[i];
		ps[i].end = q->start[i];
		ps[i].latest = m->latest[i];
		ps[i].rows = 0;
	}
	memset(&p, 0, sizeof p);
	p.id = q->id;
	p.run_id = q->run_id;
	p.name = q->name;
	p.trigger_us = m->t0;
	p.prev_trigger_us = m->prev_trigger;
	p.batch_id = q->last_batch_id + 1;
	p.us_latest = m->us_latest;
	p.us_trigger = now - m->t0;
	p.nsrc = q->nsrc;
	p.src = ps;
	p.nstate = q->idle_nstate;
	p.states = q->idle_st;
	p.sink_desc = q->sink_desc;
	p.has_wm = q->wm.n > 0;
	p.wm_ms = q->meta.watermark_ms;
	p.idle = true;
	sl_buf_init(&b);
	sl_progress_json(&p, &b);
	if (sl_buf_failed(&b) || (json = sl_buf_detach(&b)) == NULL) {
		sl_buf_release(&b);
		return;
	}
	keep_progress(q, json);
	sl_session_notify(q->sess, SL_LISTEN_PROGRESS, q, json);
}

/* ------------------------------------------------------ watermark */

int sl_query_wm_init(sl_query *q, sl_err *err)
{
	sl_query_wm *w = &q->wm;
	const char *pol = sl_session_conf_get(
	    q->sess, "spark.sql.streaming.multipleWatermarkPolicy");
	const char *am = sl_session_conf_get(
	    q->sess, "spark.sql.streaming.statefulOperator.allowMultiple");
	const char *nd = sl_session_conf_get(
	    q->sess, "spark.sql.streaming.noDataMicroBatches.enabled");
	int i;
	memset(w, 0, sizeof *w);
	w->prev_ms = INT64_MIN;
	if (pol != NULL && strcasecmp(pol, "min") != 0) {
		if (strcasecmp(pol, "max") != 0)
			return sl_err_set(
			    err, SL_EINVAL,
			    "Could not recognize watermark policy '%s'", pol);
		w->policy_max = true;
	}
	w->allow_multiple = am == NULL || strcasecmp(am, "false") != 0;
	/* Spark 3.4+: one watermark per path unless allowMultiple=false */
	if (w->allow_multiple && sl_plan_check_watermarks(q->plan, err) < 0)
		return err ? err->code : SL_EANALYSIS;
	w->no_data_enabled = nd == NULL || strcasecmp(nd, "false") != 0;
	w->n = sl_exec_stream_watermarks(q->root, NULL, 0);
	if (w->n == 0)
		return 0;
	if ((w->node_ms = malloc((size_t)w->n * sizeof *w->node_ms)) == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < w->n; i++)
		w->node_ms[i] = INT64_MIN;
	return 0;
}

/* The two watermarks of the batch about to run (stream.h). */
static void set_watermarks(sl_query *q)
{
	const sl_query_wm *w = &q->wm;
	if (w->n == 0) {
		q->ctx.wm_late_us = q->ctx.wm_evict_us = INT64_MIN;
		return;
	}
	q->ctx.wm_evict_us = w->global_ms * 1000;
	q->ctx.wm_late_us = w->allow_multiple && w->prev_ms != INT64_MIN
				? w->prev_ms * 1000
				: q->ctx.wm_evict_us;
}

/* After a committed batch: per-node max - delay (monotonic per node; a
 * node without data yet counts 0), the global one by policy, never
 * moving back (Spark's WatermarkTracker).  Used by the next batch. */
static void advance_watermark(sl_query *q, const mbatch *m)
{
	sl_query_wm *w = &q->wm;
	int64_t chosen = 0, old = w->global_ms;
	int i;
	if (w->n == 0)
		return;
	w->prev_ms = w->global_ms;
	for (i = 0; i < m->nwm && i < w->n; i++) {
		int64_t c;
		if (m->wst[i].count == 0)
			continue;
		c = m->wst[i].max_ms - m->wst[i].delay_us / 1000;
		if (w->node_ms[i] == INT64_MIN || c > w->node_ms[i])
			w->node_ms[i] = c;
	}
	for (i = 0; i < w->n; i++) {
		int64_t v = w->node_ms[i] == INT64_MIN ? 0 : w->node_ms[i];
		if (i == 0 || (w->policy_max ? v > chosen : v < chosen))
			chosen = v;
	}
	if (chosen > w->global_ms)
		w->global_ms = chosen;
	if (w->global_ms != old) {
		sl_buf t, j;
		sl_buf_init(&t);
		sl_buf_init(&j);
		sl_buf_adds(&t, "watermark ");
		sl_ts_iso(old * 1000, &t);
		sl_buf_adds(&t, " -> ");
		sl_ts_iso(w->global_ms * 1000, &t);
		sl_buf_printf(&j, "{\"from\":%lld,\"to\":%lld,\"fromIso\":\"",
			      (long long)old, (long long)w->global_ms);
		sl_ts_iso(old * 1000, &j);
		sl_buf_adds(&j, "\",\"toIso\":\"");
		sl_ts_iso(w->global_ms * 1000, &j);
		sl_buf_adds(&j, "\"}");
		sl_query_event(q, SL_EV_WATERMARK, m->id, sl_buf_cstr(&t),
			       sl_buf_cstr(&j));
		sl_buf_release(&t);
		sl_buf_release(&j);
	}
	w->no_data_pending =
	    sl_exec_stream_wants_no_data(q->root, w->global_ms * 1000);
}

/* Nothing new: does a stateful operator want a batch anyway (Spark's
 * no-data micro-batch; never with Trigger.Once)? */
static bool no_data_due(const sl_query *q)
{
	return q->wm.no_data_pending && q->wm.no_data_enabled &&
	       q->trigger.kind != SL_TRIGGER_ONCE;
}

/* Event-time statistics for progress: the first node that saw rows. */
static void event_time_report(const sl_query *q, const mbatch *m,
			      sl_progress *p)
{
	int i;
	p->has_wm = q->wm.n > 0;
	p->wm_ms = q->meta.watermark_ms;
	for (i = 0; i < m->nwm; i++)
		if (m->wst[i].count > 0) {
			p->et_count = m->wst[i].count;
			p->et_min_ms = m->wst[i].min_ms;
			p->et_max_ms = m->wst[i].max_ms;
			p->et_avg_ms = (int64_t)((double)m->wst[i].sum_ms /
						 (double)m->wst[i].count);
			return;
		}
}

/* Recovery: the batch to re-run takes exactly its logged end offsets
 * (also as "latest" for progress). */
static int plan_replay(sl_query *q, mbatch *m, sl_err *err)
{
	int i;
	bool oom = false;
	for (i = 0; i < q->nsrc; i++) {
		m->end[i] = sl_query_strdup(q->replay_off.src[i], &oom);
		m->latest[i] = sl_query_strdup(q->replay_off.src[i], &oom);
	}
	return oom ? sl_err_nomem(err) : 0;
}

static void replay_event(sl_query *q, const mbatch *m)
{
	sl_buf t, j;
	sl_buf_init(&t);
	sl_buf_init(&j);
	sl_buf_printf(&t, "re-ran batch %lld with offsets/%lld",
		      (long long)m->id, (long long)m->id);
	sl_buf_printf(
	    &j, "{\"batchId\":%lld,\"watermarkMs\":%lld,\"timestampMs\":%lld}",
	    (long long)m->id, (long long)q->replay_off.watermark_ms,
	    (long long)q->replay_off.timestamp_ms);
	sl_query_event(q, SL_EV_REPLAY, m->id, sl_buf_cstr(&t),
		       sl_buf_cstr(&j));
	sl_buf_release(&t);
	sl_buf_release(&j);
}

/* The batch's id, timestamp and watermarks into the context operators
 * read (a re-run batch: the logged ones). */
static void begin_batch(sl_query *q, mbatch *m)
{
	int64_t ts = q->replay ? q->replay_off.timestamp_ms * 1000
			       : sl_floordiv(m->t0, 1000) * 1000;
	m->id = q->last_batch_id + 1;
	m->begun = true;
	q->ctx.batch_id = m->id;
	q->ctx.batch_ts_us = ts;
	q->ctx.no_data = m->no_data;
	set_watermarks(q);
	q->meta.batch_id = m->id;
	q->meta.batch_ts_us = ts;
	q->meta.watermark_ms = q->wm.global_ms;
	q->meta.no_data = m->no_data;
	sl_func_set_now(ts);
}

/* Plan, log, read, run, state, sink, commit: one trigger.  *ran says
 * whether a batch ran (no source moved: no batch).  A failure stops the
 * query. */
static int run_batch_locked(sl_query *q, mbatch *m, char *const *cap,
			    bool use_limit, bool *ran, sl_err *err)
{
	int i, rc;
	bool moved = false, replay = q->replay;
	m->prev_trigger = q->last_trigger;
	m->t0 = q->last_trigger = sl_query_now(q);
	q->trigger_active = true;
	rc = replay ? plan_replay(q, m, err)
		    : plan_offsets(q, m, cap, use_limit, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < q->nsrc; i++)
		if (!sl_query_same_offset(q->start[i], m->end[i]))
			moved = true;
	q->data_available = moved;
	if (!replay && !moved && !no_data_due(q)) {
		idle_report(q, m);
		return 0;
	}
	m->no_data = !moved;
	q->wm.no_data_pending = false;
	sl_query_set_status(q, moved ? "Processing new data"
				     : "Processing a no-data batch");
	begin_batch(q, m);
	offsets_events(q, m);
	m->us_wal = sl_query_now(q);
	/* the write-ahead log: end offsets, batch timestamp, watermark and
	 * confs are durable before anything is read (a re-run batch finds
	 * them logged already) */
	if (replay) { /* offsets/N is durable: the same point as below */
		replay_event(q, m);
		if ((rc = sl_query_crash_at(q, "after-offsets", m->id, err)) <
		    0)
			return rc;
	} else {
		int64_t c0 = sl_clock_monotonic_us();
		rc = sl_query_ckpt_offsets(q, m->id, q->ctx.batch_ts_us,
					   q->wm.global_ms, m->end, err);
		m->off_ticket = sl_query_ckpt_ticket(q);
		m->ck_mono += sl_clock_monotonic_us() - c0;
		if (rc < 0)
			return rc;
	}
	m->us_wal = sl_query_now(q) - m->us_wal;
	if ((rc = read_sources(q, m, err)) < 0 ||
	    (rc = run_operators(q, m, err)) < 0 ||
	    (rc = commit_batch(q, m, err)) < 0)
		return rc;
	if (replay) {
		q->replay = false;
		sl_ckpt_offsets_release(&q->replay_off);
	}
	q->us_ckpt = m->ck_mono;
	*ran = true;
	report(q, m);
	move_offsets(q, m);
	return 0;
}

/* The batch was interrupted: what recovery does after a crash, without
 * the crash.  The stores go back to the version before the batch, and
 * batch m->id is re-run with the offsets it logged (offsets/N was queued
 * before anything that can run Lua), so the sink sees it again with the
 * same id and rows: exactly-once as after a restart. */
static void interrupted(sl_query *q, mbatch *m, sl_err *err)
{
	if (q->root != NULL)
		sl_exec_stream_abort(q->root);
	if (q->collect != NULL)
		sl_exec_collector_clear(q->collect);
	if (!q->replay && m->begun && m->end != NULL) {
		sl_ckpt_offsets_release(&q->replay_off);
		q->replay_off.src = m->end; /* taken */
		q->replay_off.nsources = q->nsrc;
		m->end = NULL; /* mbatch_release takes NULL */
		q->replay_off.watermark_ms = q->meta.watermark_ms;
		q->replay_off.timestamp_ms =
		    sl_floordiv(q->ctx.batch_ts_us, 1000);
		q->replay_id = m->id;
		q->replay = true;
	}
	/* a caller that asked for the batch reports it (one line,
	 * lua/query.c); a background one is told on the feed.  The re-run
	 * says "re-ran batch N with offsets/N", as after a crash */
	q->held = true;
	if (!q->asked && m->begun) {
		sl_buf t;
		sl_buf_init(&t);
		sl_buf_printf(&t,
			      "batch %lld interrupted: aborted, nothing "
			      "committed; it re-runs at the next "
			      "processAllAvailable() or step()",
			      (long long)m->id);
		sl_query_event(q, SL_EV_LOG, m->id, sl_buf_cstr(&t), NULL);
		sl_buf_release(&t);
	}
	if (m->begun)
		sl_err_set(err, SL_EINTR,
			   "batch %lld aborted, nothing committed",
			   (long long)m->id);
}

/* keep_latest (may be NULL): receives the latest offsets this trigger
 * planned with (malloc'd array of nsrc), when it polled them. */
int sl_query_run_batch(sl_query *q, char *const *cap, bool use_limit, bool *ran,
		       char ***keep_latest, sl_err *err)
{
	mbatch m;
	sl_err local;
	int rc;
	bool replayed = q->replay;
	*ran = false;
	if (!q->active)
		return 0;
	if (err == NULL)
		err = &local;
	sl_err_clear(err);
	sl_query_ref(q); /* a callback may drop every other reference */
	q->running = true;
	rc = mbatch_init(&m, q->nsrc, err);
	if (rc == 0)
		rc = run_batch_locked(q, &m, cap, use_limit, ran, err);
	if (rc == SL_ECRASH) {
		/* the process "died": no abort, no cleanup of files; the
		 * operators' memory goes with the query */
		*ran = false;
		mbatch_release(&m, q->nsrc);
		sl_query_crashed(q, m.id ? m.id : q->last_batch_id + 1, err);
		sl_query_free(q);
		return rc;
	}
	if (rc == SL_EINTR && q->active) {
		interrupted(q, &m, err);
		*ran = false;
		mbatch_release(&m, q->nsrc);
		q->running = false;
		sl_query_idle_status(q);
		if (q->stop_pending)
			sl_query_stop_now(q, NULL);
		sl_query_free(q);
		return rc;
	}
	if (rc < 0) {
		if (q->root != NULL)
			sl_exec_stream_abort(q->root);
		if (q->collect != NULL)
			sl_exec_collector_clear(q->collect);
		*ran = false;
		mbatch_release(&m, q->nsrc);
		sl_query_fail(q, m.id ? m.id : q->last_batch_id + 1, err);
		sl_query_free(q);
		return rc;
	}
	/* a re-run batch planned nothing: the caller polls next time */
	if (keep_latest != NULL && cap == NULL && !replayed) {
		*keep_latest = m.latest;
		m.latest = NULL;
	}
	mbatch_release(&m, q->nsrc);
	q->running = false;
	if (*ran)
		q->held = false; /* the batch asked for ran */
	sl_query_idle_status(q);
	if (q->stop_pending)
		sl_query_stop_now(q, NULL);
	sl_query_free(q);
	return 0;
}
