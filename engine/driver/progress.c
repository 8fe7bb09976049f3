/*
 * progress: the JSON a query reports (StreamingQueryProgress, status and
 * listener events), in Spark 3.5's field order (SPARK-SEMANTICS.md 5.1).
 *
 * Rates follow Spark's ProgressReporter: inputRowsPerSecond = rows /
 * seconds since the previous trigger's start (+Infinity seconds for the
 * first trigger, so 0.0), processedRowsPerSecond = rows / max(1 ms,
 * triggerExecution).  A rate that is not finite (0 seconds between two
 * triggers on a manual clock) is left out, as Spark's JSON leaves out NaN
 * and Infinity.  Durations are whole milliseconds of the engine clock, so a
 * manual clock reports 0 everywhere and the JSON repeats exactly.
 */
#include "driver/query_int.h"

#include <math.h>
#include <string.h>

#include "core/batch.h"
#include "core/timeutil.h"

/* "k": - field names are our own constants (no escapes). */
static void key(sl_buf *b, const char *k)
{
	sl_buf_addc(b, '"');
	sl_buf_adds(b, k);
	sl_buf_add(b, "\":", 2);
}

/* Text then a number: printf of the long literal runs was most of a
 * report's cost (issue 18 item 2: a 10-row batch's CPU). */
static void num(sl_buf *b, const char *text, int64_t v)
{
	sl_buf_adds(b, text);
	sl_buf_add_i64(b, v);
}

static void str_or_null(sl_buf *b, const char *s)
{
	if (s == NULL)
		sl_buf_adds(b, "null");
	else
		sl_buf_json_str(b, s, strlen(s));
}

/* Offsets are already JSON text (source.h). */
static void raw_or_null(sl_buf *b, const char *json)
{
	sl_buf_adds(b, json != NULL && *json ? json : "null");
}

static void iso(sl_buf *b, int64_t us)
{
	sl_buf_addc(b, '"');
	sl_ts_iso(us, b);
	sl_buf_addc(b, '"');
}

/* ",\"k\":v" for a finite double; nothing otherwise. */
static void rate(sl_buf *b, const char *k, double v)
{
	if (!isfinite(v))
		return;
	sl_buf_addc(b, ',');
	key(b, k);
	sl_fmt_double(v, b);
}

static void rates(sl_buf *b, const sl_progress *p, int64_t rows)
{
	double input_s =
	    p->prev_trigger_us >= 0
		? (double)(p->trigger_us - p->prev_trigger_us) / 1e6
		: INFINITY;
	int64_t ms = p->us_trigger / 1000;
	double proc_s = (double)(ms > 1 ? ms : 1) / 1e3;
	rate(b, "inputRowsPerSecond", (double)rows / input_s);
	rate(b, "processedRowsPerSecond", (double)rows / proc_s);
}

static void durations(sl_buf *b, const sl_progress *p)
{
	if (p->idle) { /* a trigger that ran no batch times only these */
		num(b, "\"durationMs\":{\"latestOffset\":", p->us_latest / 1000);
		num(b, ",\"triggerExecution\":", p->us_trigger / 1000);
		sl_buf_addc(b, '}');
		return;
	}
	num(b, "\"durationMs\":{\"addBatch\":", p->us_add / 1000);
	num(b, ",\"getBatch\":", p->us_get / 1000);
	num(b, ",\"latestOffset\":", p->us_latest / 1000);
	num(b, ",\"queryPlanning\":", p->us_plan / 1000);
	num(b, ",\"triggerExecution\":", p->us_trigger / 1000);
	num(b, ",\"walCommit\":", p->us_wal / 1000);
	sl_buf_addc(b, '}');
}

static void state_ops(sl_buf *b, const sl_progress *p)
{
	int i;
	sl_buf_adds(b, "\"stateOperators\":[");
	for (i = 0; i < p->nstate; i++) {
		const sl_progress_state *s = &p->states[i];
		if (i > 0)
			sl_buf_addc(b, ',');
		sl_buf_addc(b, '{');
		key(b, "operatorName");
		str_or_null(b, s->operator_name);
		num(b, ",\"numRowsTotal\":", s->rows_total);
		num(b, ",\"numRowsUpdated\":", s->rows_updated);
		num(b, ",\"allUpdatesTimeMs\":0,\"numRowsRemoved\":",
		    s->rows_removed);
		num(b, ",\"allRemovalsTimeMs\":0,\"commitTimeMs\":0,"
		       "\"memoryUsedBytes\":",
		    s->memory_bytes);
		num(b, ",\"numRowsDroppedByWatermark\":", s->rows_dropped);
		sl_buf_adds(b, ",\"numShufflePartitions\":1,"
			       "\"numStateStoreInstances\":1,\"customMetrics\":{");
		if (s->dup_dropped >= 0)
			num(b, "\"numDroppedDuplicateRows\":", s->dup_dropped);
		sl_buf_adds(b, "}}");
	}
	sl_buf_addc(b, ']');
}

/* Spark: {"avg","max","min"} of the first watermark node that saw rows,
 * then "watermark" (the one the batch used); an empty map when the query
 * has no watermark. */
static void event_time(sl_buf *b, const sl_progress *p)
{
	sl_buf_adds(b, ",\"eventTime\":{");
	if (!p->has_wm) { /* Spark leaves the empty map out; t500 keeps {} */
		sl_buf_adds(b, "},");
		return;
	}
	if (p->et_count > 0) {
		key(b, "avg");
		iso(b, p->et_avg_ms * 1000);
		sl_buf_addc(b, ',');
		key(b, "max");
		iso(b, p->et_max_ms * 1000);
		sl_buf_addc(b, ',');
		key(b, "min");
		iso(b, p->et_min_ms * 1000);
		sl_buf_addc(b, ',');
	}
	key(b, "watermark");
	iso(b, p->wm_ms * 1000);
	sl_buf_adds(b, "},");
}

static void sources(sl_buf *b, const sl_progress *p)
{
	int i;
	sl_buf_adds(b, "\"sources\":[");
	for (i = 0; i < p->nsrc; i++) {
		const sl_progress_source *s = &p->src[i];
		if (i > 0)
			sl_buf_addc(b, ',');
		sl_buf_addc(b, '{');
		key(b, "description");
		str_or_null(b, s->description);
		sl_buf_addc(b, ',');
		key(b, "startOffset");
		raw_or_null(b, s->start);
		sl_buf_addc(b, ',');
		key(b, "endOffset");
		raw_or_null(b, s->end);
		sl_buf_addc(b, ',');
		key(b, "latestOffset");
		raw_or_null(b, s->latest);
		num(b, ",\"numInputRows\":", s->rows);
		rates(b, p, s->rows);
		sl_buf_addc(b, '}');
	}
	sl_buf_addc(b, ']');
}

void sl_progress_json(const sl_progress *p, sl_buf *out)
{
	sl_buf_addc(out, '{');
	key(out, "id");
	str_or_null(out, p->id);
	sl_buf_addc(out, ',');
	key(out, "runId");
	str_or_null(out, p->run_id);
	sl_buf_addc(out, ',');
	key(out, "name");
	str_or_null(out, p->name);
	sl_buf_addc(out, ',');
	key(out, "timestamp");
	iso(out, p->trigger_us);
	num(out, ",\"batchId\":", p->batch_id);
	num(out, ",\"batchDuration\":", p->us_trigger / 1000);
	num(out, ",\"numInputRows\":", p->input_rows);
	rates(out, p, p->input_rows);
	sl_buf_addc(out, ',');
	durations(out, p);
	event_time(out, p);
	state_ops(out, p);
	sl_buf_addc(out, ',');
	sources(out, p);
	sl_buf_adds(out, ",\"sink\":{");
	key(out, "description");
	str_or_null(out, p->sink_desc);
	num(out, ",\"numOutputRows\":", p->sink_rows);
	sl_buf_adds(out, "}}");
}

void sl_progress_status_json(const char *message, bool data_available,
			     bool trigger_active, sl_buf *out)
{
	sl_buf_addc(out, '{');
	key(out, "message");
	str_or_null(out, message);
	sl_buf_printf(out, ",\"isDataAvailable\":%s,\"isTriggerActive\":%s}",
		      data_available ? "true" : "false",
		      trigger_active ? "true" : "false");
}

void sl_progress_started_json(const char *id, const char *run_id,
			      const char *name, int64_t ts_us, sl_buf *out)
{
	sl_buf_addc(out, '{');
	key(out, "id");
	str_or_null(out, id);
	sl_buf_addc(out, ',');
	key(out, "runId");
	str_or_null(out, run_id);
	sl_buf_addc(out, ',');
	key(out, "name");
	str_or_null(out, name);
	sl_buf_addc(out, ',');
	key(out, "timestamp");
	iso(out, ts_us);
	sl_buf_addc(out, '}');
}

void sl_progress_terminated_json(const char *id, const char *run_id,
				 const char *exception, sl_buf *out)
{
	sl_buf_addc(out, '{');
	key(out, "id");
	str_or_null(out, id);
	sl_buf_addc(out, ',');
	key(out, "runId");
	str_or_null(out, run_id);
	sl_buf_addc(out, ',');
	key(out, "exception");
	str_or_null(out, exception);
	sl_buf_addc(out, '}');
}
