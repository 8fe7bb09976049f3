/*
 * model_rewind_state: the stateful operators' rows on a rewound screen
 * (model_rewind.c builds the screen; model_rewind_int.h).
 *
 * Each operator whose rows the live Windows pane shows is read through
 * the state reader (driver/state_read.h) once: its full state just before
 * the first batch replayed, and its change feed from there to the last
 * committed batch.  A replay to batch N then walks the feed up to N and
 * makes the STATE_ROW events the operator made live (engine/exec/
 * stream_feed.c): an update is OPEN when the key is new and the operator
 * evicts (a watermarked aggregation, not Complete mode), else UPDATED; a
 * delete is EMITTED in Append mode, else EVICTED, with the value the key
 * had.  The operators:
 *
 *   aggregation (stateStoreSave)   key: the group's Row text; value: the
 *                                  aggregates' results, finalised from
 *                                  their buffers (sl_state_read_opts.
 *                                  results), as the live pane shows them
 *   dropDuplicates (dedupe*)       updates UPDATED, deletes EVICTED
 *   stream-stream join             per side, its keyWithIndexToValue
 *     (symmetricHashJoin)          store: key "left"/"right", value the
 *                                  held row (op_ssjoin.c's events); the
 *                                  rows a batch added in the order the
 *                                  join held them (their index), then
 *                                  those it dropped
 *   session windows                the open sessions with their values
 *     (sessionWindowStateStoreSave (op_session.c's events): UPDATED when
 *     Exec)                        touched, the old window EVICTED when
 *                                  a session grew or merged into another,
 *                                  EMITTED (Append) / EVICTED when its
 *                                  end passed the batch's watermark
 *
 * A key removed and put again in one batch (a session extended) is in the
 * delta twice: the later change wins.
 *
 * Why a cache: stepping through batches (Alt-Left/Right) rebuilds the
 * screen each time; the reads and the Row text of every change row were
 * most of it (0.8 s of CPU for a step back through 60 batches of 2,000
 * groups).  The feeds and their texts stay with the rewound screen until
 * the checkpoint moves on (a new commit) or the replay has to start at
 * another batch; a step then costs the replay of the kept texts alone.
 *
 * Deviations, named: a key made and dropped inside one batch leaves no
 * trace in the state, so the rewound pane lacks it; a batch with more
 * than SL_FEED_ROWS_PER_BATCH changed keys shows that many, as the live
 * feed does, but the first in key order where the live feed took the
 * first in its hash table's order; a join's dropped rows come in key
 * order, where the join drops them in its store's order (the side's row
 * on the pane is the last event: with several rows dropped in a batch it
 * may name another one); a session touched and closed in the same batch
 * shows its old window closed, where the operator showed the grown one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "model_rewind_int.h"
#include "core/buf.h"
#include "core/feed.h"
#include "state/state.h"

/* ---- the keys the replay holds: Row text -> value text ----
 * A hash table (linear probing, backward-shift deletion, as state.c's):
 * a sorted array's inserts moved half of it each, most of a rewind's
 * time at 20,000 live groups. */

typedef struct kv {
	char *key, *val; /* key NULL: an empty slot */
	uint64_t h;
} kv;

typedef struct kvset {
	kv *e;
	int64_t n, cap; /* cap: 0 or a power of two */
} kvset;

/* The slot of key (hash h), or of the empty slot where it would go. */
static int64_t kv_slot(const kvset *s, const char *key, uint64_t h)
{
	int64_t i = (int64_t)(h & (uint64_t)(s->cap - 1));

	while (s->e[i].key != NULL &&
	       (s->e[i].h != h || strcmp(s->e[i].key, key) != 0))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static bool kv_grow(kvset *s)
{
	kvset g = { NULL, 0, s->cap ? 2 * s->cap : 64 };

	if ((g.e = calloc((size_t)g.cap, sizeof *g.e)) == NULL)
		return false;
	for (int64_t i = 0; i < s->cap; i++)
		if (s->e[i].key != NULL)
			g.e[kv_slot(&g, s->e[i].key, s->e[i].h)] = s->e[i];
	g.n = s->n;
	free(s->e);
	*s = g;
	return true;
}

/* Put key -> val; true when the key is new.  Out of memory: the key is
 * not kept (it reads as new again: a row marked OPEN, never a crash). */
static bool kv_put(kvset *s, const char *key, const char *val)
{
	uint64_t h = sl_state_hash(key, strlen(key));
	char *v = strdup(val), *k;
	int64_t i;

	if (v == NULL || ((s->n + 1) * 4 > s->cap * 3 && !kv_grow(s))) {
		free(v);
		return true;
	}
	i = kv_slot(s, key, h);
	if (s->e[i].key != NULL) {
		free(s->e[i].val);
		s->e[i].val = v;
		return false;
	}
	if ((k = strdup(key)) == NULL) {
		free(v);
		return true;
	}
	s->e[i] = (kv){ k, v, h };
	s->n++;
	return true;
}

/* Remove key; its value (malloc'd, the caller frees), or NULL. */
static char *kv_take(kvset *s, const char *key)
{
	uint64_t h = sl_state_hash(key, strlen(key));
	int64_t i, j, m;
	char *v;

	if (s->cap == 0 || s->e[i = kv_slot(s, key, h)].key == NULL)
		return NULL;
	m = s->cap - 1;
	v = s->e[i].val;
	free(s->e[i].key);
	s->e[i] = (kv){ NULL, NULL, 0 };
	s->n--;
	/* shift back the entries of the cluster that may not stay behind
	 * the hole: those whose home is not in (i, j] */
	for (j = (i + 1) & m; s->e[j].key != NULL; j = (j + 1) & m) {
		int64_t home = (int64_t)(s->e[j].h & (uint64_t)m);
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		s->e[i] = s->e[j];
		s->e[j] = (kv){ NULL, NULL, 0 };
		i = j;
	}
	return v;
}

static void kv_release(kvset *s)
{
	for (int64_t i = 0; i < s->cap; i++) {
		free(s->e[i].key);
		free(s->e[i].val);
	}
	free(s->e);
	memset(s, 0, sizeof *s);
}

/* ---- the feeds ---- */

typedef enum opkind {
	OP_AGG,    /* an aggregation: windows and their values */
	OP_DEDUP,  /* dropDuplicates: its keys */
	OP_JOIN,   /* one side of a stream-stream join: its held rows */
	OP_SESSION /* session windows: the open sessions */
} opkind;

typedef struct opfeed {
	opkind kind;
	int side;           /* OP_JOIN: 0 left, 1 right */
	int skey;           /* OP_SESSION: the session_window key field */
	int64_t from;       /* first batch replayed */
	sl_batch *base;     /* the state at batch from-1, or NULL */
	sl_batch *changes;  /* the change feed from `from`, or NULL */
	int kb, vb, ck, ct; /* its columns: batch_id, change_type, key,
			       value */
	char **kt, **vt;    /* the Row texts of its rows, made on use */
	char *note;         /* why its state is not shown, or NULL */
	/* the replay under way */
	kvset keys;
	int64_t next; /* the next change row */
} opfeed;

#define MAX_FEEDS 8

struct rw_state {
	char *dir;
	int64_t b0, last;
	int64_t at_n; /* >= 0: a feed holds the state at that batch only */
	int nfeeds;
	opfeed f[MAX_FEEDS];
	/* the replay under way */
	sl_model *m;
	model_query *snap;
	int64_t n;
	bool append, evicts;
};

static const char *const side_name[2] = { "left", "right" };

static int col_of(const sl_batch *t, const char *name)
{
	for (int i = 0; t && i < t->schema->nfields; i++)
		if (strcmp(t->schema->fields[i].name, name) == 0)
			return i;
	return -1;
}

/* Operator info's rows before batch `from` and its change feed from
 * there to the last batch into o (side: a join's side, whose
 * keyWithIndexToValue store it reads; -1 otherwise).  A checkpoint whose
 * state cannot be read this way (no schema, purged deltas): the state at
 * n alone (s->at_n), counted but not listed. */
static void feed_open(rw_state *s, opfeed *o, sl_state_read *rd,
		      const sl_state_opinfo *info, int side, int64_t n)
{
	sl_state_read_opts ro;
	sl_err err;

	o->kind = side >= 0                                         ? OP_JOIN
		  : strncmp(info->operator_name, "dedupe", 6) == 0  ? OP_DEDUP
		  : strncmp(info->operator_name, "session", 7) == 0 ? OP_SESSION
								    : OP_AGG;
	o->side = side;
	o->from = s->b0;
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
	if (o->from > 0 && o->from <= s->last) {
		ro.batch_id = o->from - 1;
		o->base = sl_state_read_rows(rd, &ro, &err);
	}
	if (o->from <= s->last && (o->from == 0 || o->base != NULL)) {
		ro.batch_id = -1;
		ro.change_feed = true;
		ro.change_start = o->from;
		ro.change_end = s->last;
		o->changes = sl_state_read_rows(rd, &ro, &err);
	}
	if (o->changes == NULL) { /* the state at n, as it is */
		sl_batch_free(o->base);
		ro.change_feed = false;
		ro.change_start = ro.change_end = -1;
		ro.batch_id = n;
		o->from = n + 1;
		o->base = sl_state_read_rows(rd, &ro, &err);
		s->at_n = n;
	}
	if (o->base == NULL && o->changes == NULL && err.code != 0 &&
	    side < 1) {
		char line[600];
		snprintf(line, sizeof line,
			 "state of operator %d not shown: %s",
			 info->operator_id, err.msg);
		o->note = strdup(line);
	}
	o->kb = col_of(o->changes, "batch_id");
	o->ct = col_of(o->changes, "change_type");
	o->ck = col_of(o->changes, "key");
	o->vb = col_of(o->changes, "value");
	if (o->kb < 0 || o->ct < 0 || o->ck < 0 || o->vb < 0) {
		sl_batch_free(o->changes);
		o->changes = NULL;
	}
	o->skey = -1;
	if (o->kind == OP_SESSION) { /* the key field {start, end} */
		const sl_batch *t = o->changes ? o->changes : o->base;
		int kc = col_of(t, "key");
		const sl_type *kt = kc >= 0 ? t->schema->fields[kc].type : NULL;
		for (int f = 0; kt != NULL && f < kt->nfields; f++)
			if (kt->fields[f].type->kind == SL_STRUCT &&
			    kt->fields[f].type->nfields == 2)
				o->skey = f;
		if (o->skey < 0) { /* not a layout this file knows */
			sl_batch_free(o->changes);
			sl_batch_free(o->base);
			o->changes = o->base = NULL;
		}
	}
	if (o->changes != NULL) {
		size_t rows = (size_t)o->changes->nrows + 1;
		o->kt = calloc(rows, sizeof *o->kt);
		o->vt = calloc(rows, sizeof *o->vt);
	}
}

rw_state *rw_state_new(sl_state_read *rd, const char *dir, int64_t b0,
		       int64_t n, int64_t last)
{
	rw_state *s = calloc(1, sizeof *s);
	int nops = sl_state_read_nops(rd);

	if (s == NULL || (s->dir = strdup(dir)) == NULL) {
		free(s);
		return NULL;
	}
	s->b0 = b0;
	s->last = last;
	s->at_n = -1;
	for (int i = 0; i < nops; i++) {
		const sl_state_opinfo *info = sl_state_read_op(rd, i);
		const char *name = info->operator_name;
		/* the operators whose rows the live panes show */
		if (s->nfeeds < MAX_FEEDS &&
		    (strcmp(name, "stateStoreSave") == 0 ||
		     strcmp(name, "unknown") == 0 ||
		     strncmp(name, "dedupe", 6) == 0 ||
		     strcmp(name, "sessionWindowStateStoreSaveExec") == 0))
			feed_open(s, &s->f[s->nfeeds++], rd, info, -1, n);
		else if (s->nfeeds + 2 <= MAX_FEEDS &&
			 strcmp(name, "symmetricHashJoin") == 0) {
			feed_open(s, &s->f[s->nfeeds++], rd, info, 0, n);
			feed_open(s, &s->f[s->nfeeds++], rd, info, 1, n);
		}
	}
	return s;
}

bool rw_state_fits(const rw_state *s, const char *dir, int64_t b0, int64_t n,
		   int64_t last)
{
	return s != NULL && strcmp(s->dir, dir) == 0 && s->b0 == b0 &&
	       s->last == last && (s->at_n < 0 || s->at_n == n);
}

void rw_state_free(rw_state *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < s->nfeeds; i++) {
		opfeed *o = &s->f[i];
		for (int64_t r = 0; o->changes && r < o->changes->nrows; r++) {
			free(o->kt ? o->kt[r] : NULL);
			free(o->vt ? o->vt[r] : NULL);
		}
		free(o->kt);
		free(o->vt);
		free(o->note);
		sl_batch_free(o->base);
		sl_batch_free(o->changes);
		kv_release(&o->keys);
	}
	free(s->dir);
	free(s);
}

/* ---- texts ---- */

/* "[v1,v2]": the first n fields of struct column c at row i (all: -1), as
 * the operators' STATE_ROW events write a key or a value (Spark's Row
 * text). */
static void row_text(const sl_col *c, int n, int64_t i, sl_buf *out)
{
	if (c != NULL && (n < 0 || n > c->nchild))
		n = c->nchild;
	sl_buf_addc(out, '[');
	for (int k = 0; c != NULL && k < n; k++) {
		if (k)
			sl_buf_addc(out, ',');
		sl_value_show(c->child[k], i, out);
	}
	sl_buf_addc(out, ']');
}

/* Fields of a value its events show: a join's keyWithIndexToValue value
 * is the held row and its matched flag, the event the row alone. */
static int value_fields(const opfeed *o, const sl_col *c)
{
	return o->kind == OP_JOIN ? c->nchild - 1 : -1;
}

/* Change row r's key (val false) or value text, made once; NULL when out
 * of memory. */
static const char *feed_text(opfeed *o, int64_t r, bool val)
{
	char **slot = val ? &o->vt[r] : &o->kt[r];
	const sl_col *c = o->changes->cols[val ? o->vb : o->ck];
	sl_buf b;

	if (*slot != NULL || o->kt == NULL || o->vt == NULL)
		return o->kt && o->vt ? *slot : NULL;
	sl_buf_init(&b);
	row_text(c, val ? value_fields(o, c) : -1, r, &b);
	if (!sl_buf_failed(&b))
		*slot = strdup(sl_buf_cstr(&b));
	sl_buf_release(&b);
	return *slot;
}

/* A session's identity in its store, (other keys, start), as text: the
 * key's Row text with the session's start alone (a delete has no end). */
static void session_id(const opfeed *o, const sl_col *key, int64_t r,
		       sl_buf *out)
{
	sl_buf_addc(out, '[');
	for (int k = 0; k < key->nchild; k++) {
		if (k)
			sl_buf_addc(out, ',');
		sl_value_show(k == o->skey ? key->child[k]->child[0]
					   : key->child[k],
			      r, out);
	}
	sl_buf_addc(out, ']');
}

/* A session's end in microseconds (its key's), INT64_MIN when NULL. */
static int64_t session_end(const opfeed *o, const sl_col *key, int64_t r)
{
	const sl_col *e = key->child[o->skey]->child[1];

	return sl_col_isnull(e, r) ? INT64_MIN : sl_col_i64(e)[r];
}

/* ---- the replay ---- */

static void state_event(rw_state *s, int64_t batch, int64_t ts, const char *key,
			const char *val, const char *state)
{
	sl_event ev;
	sl_buf j;

	sl_buf_init(&j);
	sl_buf_adds(&j, "{\"op\":\"state\",\"key\":");
	sl_buf_json_str(&j, key, strlen(key));
	sl_buf_adds(&j, ",\"value\":");
	sl_buf_json_str(&j, val, strlen(val));
	sl_buf_printf(&j, ",\"state\":\"%s\"}", state);
	if (!sl_buf_failed(&j)) {
		memset(&ev, 0, sizeof ev);
		ev.kind = SL_EV_STATE_ROW;
		ev.batch_id = batch;
		ev.ts_us = ts;
		ev.text = (char *)key;
		ev.json = (char *)sl_buf_cstr(&j);
		model_feed_event(s->m, s->snap, &ev);
	}
	sl_buf_release(&j);
}

/* The key a STATE_ROW event names: a join's side, else the key's row. */
static const char *event_key(const opfeed *o, const char *k)
{
	return o->kind == OP_JOIN ? side_name[o->side] : k;
}

void rw_state_begin(rw_state *s, sl_model *m, model_query *snap, int64_t n,
		    bool append, bool evicts)
{
	s->m = m;
	s->snap = snap;
	s->n = n;
	s->append = append;
	s->evicts = evicts;
	for (int i = 0; i < s->nfeeds; i++) {
		kv_release(&s->f[i].keys);
		s->f[i].next = 0;
		if (s->f[i].note != NULL && snap->nnotes < 8)
			snap->ckpt_note[snap->nnotes++] = strdup(s->f[i].note);
	}
}

/* A session of the base rows into the keys (k, v its texts). */
static void base_session(opfeed *o, const sl_col *key, int64_t r,
			 const sl_buf *k, const sl_buf *v)
{
	sl_buf id, packed;

	sl_buf_init(&id);
	sl_buf_init(&packed);
	session_id(o, key, r, &id);
	sl_buf_printf(&packed, "%lld\x01%s\x01%s",
		      (long long)session_end(o, key, r), sl_buf_cstr(k),
		      sl_buf_cstr(v));
	if (!sl_buf_failed(&id) && !sl_buf_failed(&packed))
		kv_put(&o->keys, sl_buf_cstr(&id), sl_buf_cstr(&packed));
	sl_buf_release(&id);
	sl_buf_release(&packed);
}

void rw_state_base(rw_state *s, int64_t from, int64_t ts)
{
	sl_buf k, v;

	sl_buf_init(&k);
	sl_buf_init(&v);
	for (int i = 0; i < s->nfeeds; i++) {
		opfeed *o = &s->f[i];
		int kc = col_of(o->base, "key"), vc = col_of(o->base, "value");
		if (o->base == NULL || o->from != from || kc < 0 || vc < 0)
			continue;
		for (int64_t r = 0; r < o->base->nrows; r++) {
			const sl_col *val = o->base->cols[vc];
			sl_buf_clear(&k);
			sl_buf_clear(&v);
			row_text(o->base->cols[kc], -1, r, &k);
			row_text(val, value_fields(o, val), r, &v);
			if (sl_buf_failed(&k) || sl_buf_failed(&v))
				continue;
			if (o->kind == OP_SESSION)
				base_session(o, o->base->cols[kc], r, &k, &v);
			else
				kv_put(&o->keys, sl_buf_cstr(&k),
				       sl_buf_cstr(&v));
			/* the model keeps MODEL_MAX_ROWS: the last ones; a
			 * join holds its rows (UPDATED) */
			if (r >= o->base->nrows - MODEL_MAX_ROWS)
				state_event(s, from - 1, ts,
					    event_key(o, sl_buf_cstr(&k)),
					    sl_buf_cstr(&v),
					    o->kind == OP_JOIN ? "UPDATED"
							       : "OPEN");
		}
	}
	sl_buf_release(&k);
	sl_buf_release(&v);
}

static bool is_delete(const opfeed *o, int64_t r)
{
	const sl_col *tc = o->changes->cols[o->ct]; /* change_type STRING */
	sl_str ty =
	    sl_col_isnull(tc, r) ? (sl_str){ "", 0 } : sl_col_str(tc)[r];

	return ty.len == 6 && memcmp(ty.p, "delete", 6) == 0;
}

/* The end of batch `batch`'s change rows, which start at o->next. */
static int64_t batch_end(const opfeed *o, int64_t batch)
{
	const sl_col *bc = o->changes->cols[o->kb]; /* batch_id BIGINT */
	int64_t r = o->next;

	while (r < o->changes->nrows && !sl_col_isnull(bc, r) &&
	       sl_col_i64(bc)[r] <= batch)
		r++;
	return r;
}

static void session_event(rw_state *s, int64_t batch, int64_t ts,
			  const char *packed, const char *state)
{
	const char *k = strchr(packed, '\x01'),
		   *v = k ? strchr(k + 1, '\x01') : NULL;
	char *key;

	if (v == NULL || (key = strndup(k + 1, (size_t)(v - k - 1))) == NULL)
		return;
	state_event(s, batch, ts, key, v + 1, state);
	free(key);
}

/* A session's change: the key is (other keys, start), the kept value
 * "end \1 Row text \1 results".  An update whose window moved (more rows
 * extended the session) shows the old window EVICTED, as the operator
 * does; a delete is the watermark closing the session (its end <= the
 * batch's watermark: EMITTED in Append, else EVICTED) or its merging
 * into an earlier one (EVICTED). */
static void session_change(rw_state *s, opfeed *o, int64_t r, bool shown,
			   int64_t batch, int64_t ts, int64_t wm_us)
{
	const sl_col *key = o->changes->cols[o->ck];
	const char *k, *v;
	char *old, *packed;
	sl_buf id;
	int n;

	sl_buf_init(&id);
	session_id(o, key, r, &id);
	old = sl_buf_failed(&id) ? NULL : kv_take(&o->keys, sl_buf_cstr(&id));
	if (is_delete(o, r)) {
		if (old != NULL && shown)
			session_event(s, batch, ts, old,
				      strtoll(old, NULL, 10) <= wm_us &&
					      s->append
					  ? "EMITTED"
					  : "EVICTED");
	} else if ((k = feed_text(o, r, false)) != NULL &&
		   (v = feed_text(o, r, true)) != NULL) {
		const char *ok = old ? strchr(old, '\x01') : NULL;
		size_t kl = strlen(k);
		if (ok != NULL && shown &&
		    (strncmp(ok + 1, k, kl) != 0 || ok[kl + 1] != '\x01'))
			session_event(s, batch, ts, old, "EVICTED");
		n = asprintf(&packed, "%lld\x01%s\x01%s",
			     (long long)session_end(o, key, r), k, v);
		if (n >= 0 && !sl_buf_failed(&id)) {
			kv_put(&o->keys, sl_buf_cstr(&id), packed);
			if (shown)
				state_event(s, batch, ts, k, v, "UPDATED");
		}
		if (n >= 0)
			free(packed);
	}
	free(old);
	sl_buf_release(&id);
}

/* One change row r into the keys and, when shown, an event. */
static void apply_change(rw_state *s, opfeed *o, int64_t r, bool shown,
			 int64_t batch, int64_t ts)
{
	const char *k = feed_text(o, r, false), *v;
	bool agg = o->kind == OP_AGG, fresh;
	char *old;

	if (k == NULL)
		return;
	if (is_delete(o, r)) {
		old = kv_take(&o->keys, k);
		if (shown)
			state_event(s, batch, ts, event_key(o, k),
				    old ? old : "",
				    agg && s->append ? "EMITTED" : "EVICTED");
		free(old);
		return;
	}
	if ((v = feed_text(o, r, true)) == NULL)
		return;
	fresh = kv_put(&o->keys, k, v);
	/* a join row's matched flag set later rewrites it: no event, as
	 * the operator makes none */
	if (shown && (fresh || o->kind != OP_JOIN))
		state_event(s, batch, ts, event_key(o, k), v,
			    fresh && s->evicts && agg ? "OPEN" : "UPDATED");
}

/* Whether change row r is followed in its batch by another change of the
 * same key (an operator that removes a key and puts it again in one
 * batch, as a session extended: the delta holds both, the later wins). */
static bool superseded(opfeed *o, int64_t r, int64_t end)
{
	const sl_col *key = o->changes->cols[o->ck];
	bool same = false;

	if (r + 1 >= end)
		return false;
	if (o->kind == OP_SESSION) {
		sl_buf a, b;
		sl_buf_init(&a);
		sl_buf_init(&b);
		session_id(o, key, r, &a);
		session_id(o, key, r + 1, &b);
		same = !sl_buf_failed(&a) && !sl_buf_failed(&b) &&
		       strcmp(sl_buf_cstr(&a), sl_buf_cstr(&b)) == 0;
		sl_buf_release(&a);
		sl_buf_release(&b);
	} else {
		const char *a = feed_text(o, r, false);
		const char *b = feed_text(o, r + 1, false);
		same = a != NULL && b != NULL && strcmp(a, b) == 0;
	}
	return same;
}

/* The order a join held the rows it added: their index (the key's last
 * field, the row number the join gave them). */
static const sl_col *sort_ix;

static int by_index(const void *x, const void *y)
{
	int64_t a = sl_col_i64(sort_ix)[*(const int64_t *)x];
	int64_t c = sl_col_i64(sort_ix)[*(const int64_t *)y];

	return (a > c) - (a < c);
}

/* Rows [start, end) of a join side in the order the join held them
 * (malloc'd); NULL when out of memory (key order then). */
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

/* The change rows of batch `batch`, updates first (the operators update
 * a batch's groups or hold its rows, then evict).  Events stop at the
 * live feed's SL_FEED_ROWS_PER_BATCH per kind (the keys are kept whole);
 * a join shows the last rows it held, as its side's row on the live pane
 * is its last event. */
void rw_state_changes(rw_state *s, int64_t batch, int64_t ts, int64_t wm_us)
{
	for (int i = 0; i < s->nfeeds; i++) {
		opfeed *o = &s->f[i];
		int64_t start, end, *order = NULL;
		if (o->changes == NULL)
			continue;
		start = o->next;
		end = batch_end(o, batch);
		if (o->kind == OP_JOIN)
			order = held_order(o, start, end);
		for (int pass = 0; pass < 2; pass++) {
			int64_t n = 0, shown = 0, seen = 0;
			for (int64_t j = start; j < end; j++)
				n += is_delete(o, j) == (pass == 1) &&
				     !superseded(o, j, end);
			for (int64_t j = start; j < end; j++) {
				int64_t r =
				    order && pass == 0 ? order[j - start] : j;
				bool show;
				if (is_delete(o, r) != (pass == 1) ||
				    superseded(o, r, end))
					continue;
				seen++;
				show = o->kind == OP_JOIN && pass == 0
					   ? n - seen < SL_FEED_ROWS_PER_BATCH
					   : shown < SL_FEED_ROWS_PER_BATCH;
				shown += show;
				if (o->kind == OP_SESSION)
					session_change(s, o, r, show, batch, ts,
						       wm_us);
				else
					apply_change(s, o, r, show, batch, ts);
			}
		}
		free(order);
		o->next = end;
	}
}

int64_t rw_state_rows(const rw_state *s)
{
	int64_t t = 0;

	for (int i = 0; i < s->nfeeds; i++)
		t += s->f[i].keys.n + (s->f[i].from > s->n && s->f[i].base
					   ? s->f[i].base->nrows
					   : 0);
	return t;
}

void rw_state_end(rw_state *s)
{
	for (int i = 0; i < s->nfeeds; i++)
		kv_release(&s->f[i].keys);
	s->m = NULL;
	s->snap = NULL;
}
