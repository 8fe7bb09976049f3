/*
 * t503-interrupt: a batch interrupted in its callback (SL_EINTR, what the
 * Lua layer returns for Ctrl-C in foreachBatch) is aborted, not failed:
 * the query stays active with no exception, the state goes back to the
 * version before the batch, nothing is committed, the query is held (the
 * session's ticks leave it alone), and the next batch asked for re-runs
 * the same batch id with exactly its logged offsets (data that arrived
 * since goes to the batch after).  With and without a checkpoint.  And
 * the hold of an armed crash: ticks leave the query alone, the step
 * crashes.  tests/lua/405-interrupt.lua does the same with a real SIGINT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fileformat.h"
#include "plan/plan.h"
#include "driver/query.h"
#include "rows.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "tap.h"
#include "core/timeutil.h"

static sl_err err;

typedef struct fb {
	int calls, interrupt_at; /* the call (1-based) that is interrupted */
	char log[512];
} fb;

/* Logs "batch:count;"; the interrupted call logs "batch:^C;". */
static int fb_fn(void *ud, sl_batch *data, int64_t batch_id, sl_err *e)
{
	fb *f = ud;
	size_t n = strlen(f->log);
	if (++f->calls == f->interrupt_at) {
		snprintf(f->log + n, sizeof f->log - n, "%lld:^C;",
			 (long long)batch_id);
		return sl_err_set(e, SL_EINTR,
				  "foreachBatch interrupted in batch %lld",
				  (long long)batch_id);
	}
	snprintf(f->log + n, sizeof f->log - n, "%lld:%s;", (long long)batch_id,
		 batch_text(sl_batch_ref(data)));
	return 0;
}

static void add(sl_memstream *ms, const char *json)
{
	sl_options o;
	sl_batch *b;
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json),
			       sl_memstream_schema(ms), &o, &err);
	if (b == NULL || sl_memstream_add(ms, b, &err) < 0)
		diag("addData failed: %s", err.msg);
	sl_batch_free(b);
}

/* SELECT count(*) over the stream: state that a doubled batch shows. */
static sl_plan *count_plan(sl_memstream *ms)
{
	sl_source_desc *d = sl_source_desc_memory(ms, &err);
	sl_plan *p = d ? sl_plan_stream(d, &err) : NULL, *a;
	sl_expr *e[1];
	sl_source_desc_free(d);
	e[0] = sl_sqlexpr_parse("count(*) AS n", &err);
	a = p ? sl_plan_aggregate(p, NULL, 0, e, 1, &err) : NULL;
	sl_plan_free(p);
	return a;
}

static void test_interrupt(bool no_checkpoint)
{
	const char *tag = no_checkpoint ? "no checkpoint: " : "checkpoint: ";
	sl_session *s = sl_session_new();
	sl_type *t = sl_type_parse_ddl("value INT", &err);
	sl_memstream *ms = sl_memstream_new(t, &err);
	sl_plan *p = count_plan(ms);
	sl_query_opts o;
	sl_query *q;
	fb f;
	bool ran = false;
	sl_clock_set_manual(sl_session_clock(s), 1767268800LL * SL_US_PER_SEC);
	memset(&f, 0, sizeof f);
	f.interrupt_at = 2;
	memset(&o, 0, sizeof o);
	o.mode = SL_MODE_COMPLETE;
	o.foreach_fn = fb_fn;
	o.foreach_ud = &f;
	o.no_checkpoint = no_checkpoint;
	q = sl_query_start(s, p, &o, &err);
	ok(q != NULL, "%sthe query starts", tag);
	if (q == NULL) {
		diag("%s", err.msg);
		goto out;
	}
	add(ms, "{\"value\":1}\n{\"value\":2}\n");
	is_int(sl_query_process_all_available(q, &err), 0, "%sbatch 0", tag);
	add(ms, "{\"value\":3}\n");
	is_int(sl_query_process_all_available(q, &err), SL_EINTR,
	       "%sthe interrupted batch returns SL_EINTR", tag);
	is_str(err.msg, "batch 1 aborted, nothing committed",
	       "%swith a message that says so", tag);
	ok(sl_query_is_active(q), "%sthe query is still active", tag);
	ok(sl_query_exception(q) == NULL, "%swith no exception", tag);
	is_int(sl_query_last_batch_id(q), 0, "%sbatch 1 is not committed", tag);
	ok(sl_query_held(q), "%sthe query is held", tag);
	is_str(sl_query_status_json(q),
	       "{\"message\":\"Waiting for a step (re-runs interrupted batch "
	       "1)\",\"isDataAvailable\":true,\"isTriggerActive\":false}",
	       "%sits status says what it waits for", tag);

	/* more data, and ticks: the held query runs nothing */
	add(ms, "{\"value\":4}\n");
	is_int(sl_session_advance(s, 5 * SL_US_PER_SEC, &err), 0,
	       "%sticks run nothing while it is held", tag);
	is_str(f.log, "0:2;1:^C;", "%sthe function ran twice so far", tag);

	/* the next batch asked for: batch 1 again with its own offsets
	 * (row 3 only) over the state of version 1, then batch 2 (row 4) */
	is_int(sl_query_process_all_available(q, &err), 0,
	       "%sprocessAllAvailable goes on", tag);
	is_str(
	    f.log, "0:2;1:^C;1:3;2:4;",
	    "%sbatch 1 re-ran with the same rows (count 3, not 4 or 5), then batch 2",
	    tag);
	ok(!sl_query_held(q), "%sno longer held", tag);
	is_int(sl_query_last_batch_id(q), 2, "%sbatch 2 committed", tag);

	/* a crash armed holds it too; the step crashes */
	is_int(sl_query_crash(q, "after-sink", &err), 0, "%sarm a crash", tag);
	ok(sl_query_held(q), "%sarming holds the query", tag);
	ok(strstr(sl_query_status_json(q),
		  "\"Waiting for a step (crash armed at 'after-sink')\"") !=
	       NULL,
	   "%sits status names the armed point", tag);
	add(ms, "{\"value\":5}\n");
	is_int(sl_session_advance(s, 5 * SL_US_PER_SEC, &err), 0,
	       "%sticks leave the armed batch alone", tag);
	ok(sl_query_is_active(q), "%sstill active before the step", tag);
	if (no_checkpoint) {
		/* no checkpoint: nothing to crash into; the step runs */
		sl_query_stop(q);
	} else {
		is_int(sl_query_step(q, &ran, &err), SL_ECRASH,
		       "%sthe step runs the armed batch and crashes", tag);
		is_str(err.msg, "simulated crash at 'after-sink' in batch 3",
		       "%sat the point armed, in the batch after the ticks",
		       tag);
	}
	sl_query_free(q);
out:
	sl_session_free(s);
	sl_plan_free(p);
	sl_memstream_free(ms);
	sl_type_free(t);
}

int main(void)
{
	test_interrupt(false);
	test_interrupt(true);
	return done_testing();
}
