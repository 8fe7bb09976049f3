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
 *   STATE_ROW     the state change feed of batch b (state version b+1
 *                 against b; engine/driver/state_read.h): an update is
 *                 OPEN when the key is new and the operator evicts (a
 *                 watermarked aggregation, not Complete mode), else
 *                 UPDATED; a delete is EMITTED in Append mode, else
 *                 EVICTED, with the value the key had
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
 * The operators replayed are those whose rows the live Windows pane
 * shows: aggregations (stateStoreSave) and dropDuplicates (dedupe*:
 * updates are UPDATED, deletes EVICTED).  A stream-stream join's held rows
 * and session windows are not replayed (the live pane does not list them
 * as keys either); their state versions still show on the Checkpoint pane.
 *
 * Deviations, named: the value column shows what the state reader gives,
 * the aggregation buffers (count, sum, max: the same as the result; avg
 * shows its sum and count; dropDuplicates a null where the live pane
 * shows the row's event time); a key made and evicted inside one batch
 * leaves no trace in the state, so the rewound pane lacks it; a batch
 * with more than SL_FEED_ROWS_PER_BATCH changed groups shows that many,
 * as the live feed does, but the first in key order where the live feed
 * took the first in its hash table's order.  Output mode is not in
 * Spark's checkpoint; streamlab's queries record it beside their state
 * schema (the state reader's sl_state_opinfo.output_mode), and a folder
 * without it (an older layout) gets a guess, said on the banner: Append
 * with a file sink (the only mode a file sink takes), else Update.
 *
 * Cost: every rewind replays from the oldest batch kept: measured 0.1 s
 * of CPU for 60 batches of 2,000 changed groups (120,000 change rows),
 * most of it formatting keys (timestamps) as Row text.  NEEDSWORK: keep
 * the decoded change feed between steps of the same checkpoint.
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
#include "core/buf.h"
#include "core/feed.h"
#include "core/fsutil.h"
#include "core/timeutil.h"
#include "driver/query.h"
#include "driver/state_read.h"
#include "formats/parquet.h"
#include "state/ckpt.h"

/* ---- the keys the replay holds: Row text -> value text ---- */

typedef struct kv {
	char *key, *val;
} kv;

typedef struct kvset {
	kv *e;
	int64_t n, cap;
} kvset;

static kv *kv_find(kvset *s, const char *key, int64_t *at)
{
	int64_t lo = 0, hi = s->n;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->e[mid].key, key);
		if (c == 0)
			return &s->e[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return NULL;
}

/* Put key -> val; true when the key is new.  Out of memory: the key is
 * not kept (it reads as new again: a row marked OPEN, never a crash). */
static bool kv_put(kvset *s, const char *key, const char *val)
{
	int64_t at = 0;
	kv *e = kv_find(s, key, &at);
	char *v = strdup(val);

	if (e != NULL) {
		if (v != NULL) {
			free(e->val);
			e->val = v;
		}
		return false;
	}
	if (s->n == s->cap) {
		int64_t cap = s->cap ? 2 * s->cap : 64;
		kv *ne = realloc(s->e, (size_t)cap * sizeof *ne);
		if (ne == NULL) {
			free(v);
			return true;
		}
		s->e = ne;
		s->cap = cap;
	}
	memmove(s->e + at + 1, s->e + at, (size_t)(s->n - at) * sizeof *s->e);
	s->e[at].key = strdup(key);
	s->e[at].val = v;
	if (s->e[at].key == NULL || v == NULL) {
		free(s->e[at].key);
		free(v);
		memmove(s->e + at, s->e + at + 1,
			(size_t)(s->n - at) * sizeof *s->e);
		return true;
	}
	s->n++;
	return true;
}

/* Remove key; its value (malloc'd, the caller frees), or NULL. */
static char *kv_take(kvset *s, const char *key)
{
	int64_t at = 0;
	kv *e = kv_find(s, key, &at);
	char *v;

	if (e == NULL)
		return NULL;
	v = e->val;
	free(e->key);
	at = e - s->e;
	memmove(s->e + at, s->e + at + 1,
		(size_t)(s->n - at - 1) * sizeof *s->e);
	s->n--;
	return v;
}

static void kv_release(kvset *s)
{
	for (int64_t i = 0; i < s->n; i++) {
		free(s->e[i].key);
		free(s->e[i].val);
	}
	free(s->e);
	memset(s, 0, sizeof *s);
}

/* ---- one build ---- */

typedef enum opkind {
	OP_AGG,   /* an aggregation: windows and their values */
	OP_DEDUP, /* dropDuplicates: its keys */
	OP_JOIN   /* one side of a stream-stream join: its held rows */
} opkind;

typedef struct opfeed {
	opkind kind;
	int side;          /* OP_JOIN: 0 left, 1 right */
	sl_batch *changes; /* the change feed from `from`, or NULL */
	int64_t next;      /* its next row */
	int64_t from;      /* first batch replayed */
	sl_batch *base;    /* the state at batch from-1, or NULL */
	kvset keys;
	int kb, vb, ck, ct; /* columns: batch_id, change_type, key, value */
} opfeed;

#define MAX_OPS 8

typedef struct build {
	sl_model *m;
	model_query *snap;
	model_query *live; /* the same query in the live model, or NULL */
	sl_ckpt *ck;
	sl_state_read *rd;
	const char *sink_dir;
	int64_t n, first, last, b0;
	bool has_wm, append, evicts;
	int nops;   /* stateful operators (state version column) */
	int nshown; /* those replayed into the windows pane: ops[] */
	opfeed ops[MAX_OPS];
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

/* "[v1,v2]": the fields of struct column c at row i, as the operators'
 * STATE_ROW events write a key or a value (Spark's Row text). */
static void row_text(const sl_col *c, int64_t i, sl_buf *out)
{
	sl_buf_addc(out, '[');
	for (int k = 0; c != NULL && k < c->nchild; k++) {
		if (k)
			sl_buf_addc(out, ',');
		sl_value_show(c->child[k], i, out);
	}
	sl_buf_addc(out, ']');
}

/* A state value as its operator's STATE_ROW events write it: a join's
 * keyWithIndexToValue value is the held row and its matched flag, the
 * event the row alone. */
static void value_text(const opfeed *o, const sl_col *c, int64_t i,
		       sl_buf *out)
{
	int n = c == NULL ? 0 : c->nchild - (o->kind == OP_JOIN);

	sl_buf_addc(out, '[');
	for (int k = 0; k < n; k++) {
		if (k)
			sl_buf_addc(out, ',');
		sl_value_show(c->child[k], i, out);
	}
	sl_buf_addc(out, ']');
}

static int col_of(const sl_batch *t, const char *name)
{
	for (int i = 0; t && i < t->schema->nfields; i++)
		if (strcmp(t->schema->fields[i].name, name) == 0)
			return i;
	return -1;
}

static void state_event(build *b, int64_t batch, int64_t ts, const char *key,
			const char *val, const char *state)
{
	sl_buf j;

	sl_buf_init(&j);
	sl_buf_adds(&j, "{\"op\":\"state\",\"key\":");
	sl_buf_json_str(&j, key, strlen(key));
	sl_buf_adds(&j, ",\"value\":");
	sl_buf_json_str(&j, val, strlen(val));
	sl_buf_printf(&j, ",\"state\":\"%s\"}", state);
	if (!sl_buf_failed(&j))
		emit(b, SL_EV_STATE_ROW, batch, ts, key, sl_buf_cstr(&j));
	sl_buf_release(&j);
}

static const char *const side_name[2] = { "left", "right" };

/* Operator i's rows before batch `from` and its change feed from there
 * to N (side: a join's side, whose keyWithIndexToValue store it reads;
 * -1 otherwise).  A checkpoint whose state cannot be read this way (no
 * schema, purged deltas): the state at N alone, every row OPEN. */
static void op_open(build *b, int i, const sl_state_opinfo *info, int side)
{
	opfeed *o = &b->ops[i];
	sl_state_read_opts ro;
	sl_err err;

	o->kind = side >= 0 ? OP_JOIN
		  : strncmp(info->operator_name, "dedupe", 6) == 0 ? OP_DEDUP
								    : OP_AGG;
	o->side = side;
	o->from = b->b0;
	if (info->min_batch >= 0 && o->from > 0 &&
	    o->from - 1 < info->min_batch)
		o->from = info->min_batch + 1;
	sl_state_read_opts_init(&ro);
	ro.operator_id = info->operator_id;
	ro.results = true; /* the values the live pane showed */
	if (side >= 0)
		snprintf(ro.store_name, sizeof ro.store_name,
			 "%s-keyWithIndexToValue", side_name[side]);
	sl_err_clear(&err);
	if (o->from > 0 && o->from <= b->n) {
		ro.batch_id = o->from - 1;
		o->base = sl_state_read_rows(b->rd, &ro, &err);
	}
	if (o->from <= b->n && (o->from == 0 || o->base != NULL)) {
		ro.batch_id = -1;
		ro.change_feed = true;
		ro.change_start = o->from;
		ro.change_end = b->n;
		o->changes = sl_state_read_rows(b->rd, &ro, &err);
	}
	if (o->changes == NULL) { /* the state at N, as it is */
		sl_batch_free(o->base);
		o->base = NULL;
		ro.change_feed = false;
		ro.change_start = ro.change_end = -1;
		ro.batch_id = b->n;
		o->from = b->n + 1;
		o->base = sl_state_read_rows(b->rd, &ro, &err);
	}
	if (o->base == NULL && o->changes == NULL && err.code != 0 &&
	    b->snap->nnotes < 8 && side < 1) { /* said on the Checkpoint pane */
		char line[600];
		snprintf(line, sizeof line,
			 "state of operator %d not shown: %s",
			 info->operator_id, err.msg);
		b->snap->ckpt_note[b->snap->nnotes++] = strdup(line);
	}
	o->kb = col_of(o->changes, "batch_id");
	o->ct = col_of(o->changes, "change_type");
	o->ck = col_of(o->changes, "key");
	o->vb = col_of(o->changes, "value");
}

/* The key a STATE_ROW event names: a join's side, else the key's row. */
static const char *event_key(const opfeed *o, sl_buf *k)
{
	return o->kind == OP_JOIN ? side_name[o->side] : sl_buf_cstr(k);
}

/* The base rows of every operator whose replay starts at batch `from`:
 * OPEN rows of batch from-1 (a join's held rows: UPDATED, as it holds
 * them). */
static void op_base(build *b, int64_t from, int64_t ts)
{
	sl_buf k, v;

	sl_buf_init(&k);
	sl_buf_init(&v);
	for (int i = 0; i < b->nshown; i++) {
		opfeed *o = &b->ops[i];
		int kc = col_of(o->base, "key"), vc = col_of(o->base, "value");
		if (o->base == NULL || o->from != from || kc < 0 || vc < 0)
			continue;
		for (int64_t r = 0; r < o->base->nrows; r++) {
			sl_buf_clear(&k);
			sl_buf_clear(&v);
			row_text(o->base->cols[kc], r, &k);
			value_text(o, o->base->cols[vc], r, &v);
			if (sl_buf_failed(&k) || sl_buf_failed(&v))
				continue;
			kv_put(&o->keys, sl_buf_cstr(&k), sl_buf_cstr(&v));
			/* the model keeps MODEL_MAX_ROWS: the last ones */
			if (r >= o->base->nrows - MODEL_MAX_ROWS)
				state_event(b, from - 1, ts, event_key(o, &k),
					    sl_buf_cstr(&v),
					    o->kind == OP_JOIN ? "UPDATED"
							       : "OPEN");
		}
	}
	sl_buf_release(&k);
	sl_buf_release(&v);
}

/* The change feed's rows of batch `batch` from row o->next: [start, end). */
static int64_t batch_end(const opfeed *o, int64_t batch)
{
	const sl_col *bc = o->changes->cols[o->kb]; /* batch_id BIGINT */
	int64_t r = o->next;

	while (r < o->changes->nrows && !sl_col_isnull(bc, r) &&
	       sl_col_i64(bc)[r] == batch)
		r++;
	return r;
}

static bool is_delete(const opfeed *o, int64_t r)
{
	const sl_col *tc = o->changes->cols[o->ct]; /* change_type STRING */
	sl_str ty = sl_col_isnull(tc, r) ? (sl_str){ "", 0 } : sl_col_str(tc)[r];

	return ty.len == 6 && memcmp(ty.p, "delete", 6) == 0;
}

/* One change row r into the keys and, when shown, an event: updates
 * OPEN (a new key of an operator that evicts) or UPDATED, deletes
 * EMITTED (Append) or EVICTED with the value the key had. */
static void apply_change(build *b, opfeed *o, int64_t r, bool shown,
			 int64_t batch, int64_t ts, sl_buf *k, sl_buf *v)
{
	bool agg = o->kind == OP_AGG, fresh;
	char *old;

	sl_buf_clear(k);
	sl_buf_clear(v);
	row_text(o->changes->cols[o->ck], r, k);
	if (sl_buf_failed(k))
		return;
	if (is_delete(o, r)) {
		old = kv_take(&o->keys, sl_buf_cstr(k));
		if (shown)
			state_event(b, batch, ts, event_key(o, k),
				    old ? old : "",
				    agg && b->append ? "EMITTED" : "EVICTED");
		free(old);
		return;
	}
	value_text(o, o->changes->cols[o->vb], r, v);
	if (sl_buf_failed(v))
		return;
	fresh = kv_put(&o->keys, sl_buf_cstr(k), sl_buf_cstr(v));
	/* a join row's matched flag set later rewrites it: no event, as
	 * the operator makes none */
	if (shown && (fresh || o->kind != OP_JOIN))
		state_event(b, batch, ts, event_key(o, k), sl_buf_cstr(v),
			    fresh && b->evicts && agg ? "OPEN" : "UPDATED");
}

/* The order a join held the rows it added: their index (the key's last
 * field, the row number the operator gave them). */
static const sl_col *sort_ix;

static int by_index(const void *x, const void *y)
{
	int64_t a = sl_col_i64(sort_ix)[*(const int64_t *)x];
	int64_t c = sl_col_i64(sort_ix)[*(const int64_t *)y];

	return (a > c) - (a < c);
}

/* Rows [start, end) of a join side in the order the operator held them,
 * into *rows (malloc'd); NULL when out of memory (key order then). */
static int64_t *held_order(const opfeed *o, int64_t start, int64_t end)
{
	const sl_col *key = o->changes->cols[o->ck];
	int64_t *rows = malloc((size_t)(end - start + 1) * sizeof *rows);

	if (rows == NULL || key->nchild < 1) {
		free(rows);
		return NULL;
	}
	for (int64_t r = start; r < end; r++)
		rows[r - start] = r;
	sort_ix = key->child[key->nchild - 1];
	qsort(rows, (size_t)(end - start), sizeof *rows, by_index);
	return rows;
}

/* The change feed's rows of batch `batch`, updates first (the operators
 * update a batch's groups or hold its rows, then evict).  Events stop
 * at the live feed's SL_FEED_ROWS_PER_BATCH per kind (the keys are kept
 * whole); a join shows the last rows it held, as its side's row on the
 * live pane is the last event. */
static void op_changes(build *b, int64_t batch, int64_t ts)
{
	sl_buf k, v;

	sl_buf_init(&k);
	sl_buf_init(&v);
	for (int i = 0; i < b->nshown; i++) {
		opfeed *o = &b->ops[i];
		int64_t start, end, *order = NULL;
		if (o->changes == NULL || o->kb < 0 || o->ct < 0 || o->ck < 0 ||
		    o->vb < 0)
			continue;
		start = o->next;
		end = batch_end(o, batch);
		if (o->kind == OP_JOIN)
			order = held_order(o, start, end);
		for (int pass = 0; pass < 2; pass++) {
			int64_t n = 0, shown = 0, seen = 0;
			for (int64_t j = start; j < end; j++)
				n += is_delete(o, j) == (pass == 1);
			for (int64_t j = start; j < end; j++) {
				int64_t r = order && pass == 0 ? order[j - start]
							       : j;
				bool show;
				if (is_delete(o, r) != (pass == 1))
					continue;
				seen++;
				show = o->kind == OP_JOIN && pass == 0
					   ? n - seen < SL_FEED_ROWS_PER_BATCH
					   : shown < SL_FEED_ROWS_PER_BATCH;
				shown += show;
				apply_change(b, o, r, show, batch, ts, &k, &v);
			}
		}
		free(order);
		o->next = end;
	}
	sl_buf_release(&k);
	sl_buf_release(&v);
}

static int64_t state_total(const build *b)
{
	int64_t t = 0;

	for (int i = 0; i < b->nshown; i++)
		t += b->ops[i].keys.n + (b->ops[i].from > b->n && b->ops[i].base
					     ? b->ops[i].base->nrows
					     : 0);
	return t;
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
	for (int i = 0; i < b->nshown; i++)
		if (b->ops[i].from == id)
			op_base(b, id, ts);
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
	op_changes(b, id, ts);
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
			      (long long)state_total(b));
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
	for (int i = 0; i < b->nshown; i++) {
		sl_batch_free(b->ops[i].changes);
		sl_batch_free(b->ops[i].base);
		kv_release(&b->ops[i].keys);
	}
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

static int snapshot(sl_model *m, const char *dir, const char *sink_dir,
		    model_query *live, int append, int64_t n, model_query **out,
		    int64_t *last, char *note, char *msg, size_t msgn)
{
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
	b.nops = sl_state_read_nops(b.rd) < MAX_OPS ? sl_state_read_nops(b.rd)
						    : MAX_OPS;
	/* append: 1 Append, 0 Update, 2 Complete, -1 unknown (a folder) */
	append = folder_mode(&b, append, note, sizeof ((model_rw *)0)->mode);
	b.append = append == 1;
	b.evicts = b.has_wm && append != 2;
	live_sources(&b);
	for (int i = 0; i < b.nops; i++) {
		const sl_state_opinfo *info = sl_state_read_op(b.rd, i);
		/* the operators whose rows the live panes show (a join's
		 * held rows and session windows are not STATE_ROW rows) */
		if (strcmp(info->operator_name, "stateStoreSave") == 0 ||
		    strcmp(info->operator_name, "unknown") == 0 ||
		    strncmp(info->operator_name, "dedupe", 6) == 0)
			op_open(&b, b.nshown++, info, -1);
		else if (strcmp(info->operator_name, "symmetricHashJoin") ==
			     0 &&
			 b.nshown + 2 <= MAX_OPS) {
			op_open(&b, b.nshown++, info, 0);
			op_open(&b, b.nshown++, info, 1);
		}
	}
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
	if (snapshot(m, rw->ckdir, rw->sink_dir, live, append, batch, &snap,
		     &last, rw->mode, msg, n) < 0)
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
