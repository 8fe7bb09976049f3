/*
 * model_feed: turn a query's feed events into the screen model (see
 * model.h for what each pane needs).  One function per event kind.
 *
 * Window rows: a STATE_ROW's key is Spark's Row text, and a windowed key
 * starts with the window struct: "[{2026-01-01 12:00:00, 2026-01-01
 * 12:10:00},dog]" (a session window's ends it: "[dog,{..., ...}]").
 * The window part becomes the row's window column and its bounds;
 * anything else is shown as the key as given.  "UPDATED" means
 * this batch only: the next BATCH_START turns it into OPEN (the guide's
 * purple rows are the ones that changed in the current trigger).
 *
 * Event times (EVENT_TIMES, one per batch and withWatermark operator):
 * the points of the batch, in a ring of the newest MODEL_PTS_BATCHES
 * batches.  Each row is marked "behind" when its event time is below the
 * max event time of every row before it (q->row_max_us, which BATCH_END's
 * eventTime.max also raises: it counts the rows past the list's cap).  A
 * batch that runs again (a replay after a crash or restart: a second
 * BATCH_START with the same id) starts its points over from the max it
 * started with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "core/timeutil.h"

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = dup0(s);
}

const char *model_status_message(sl_query *q)
{
	static char msg[160];

	if (!mjson_text(mjson_get(sl_query_status_json(q), "message"), msg,
			sizeof msg))
		snprintf(msg, sizeof msg, "active");
	return msg;
}

/* The timeline entry of batch id (the newest one; created at the newest
 * end).  fresh: a new entry when the batch's last run crashed, so the
 * timeline shows the crashed run and its re-run after the restart as two
 * lines. */
static model_batch *batch_entry(model_query *q, int64_t id, bool fresh)
{
	model_batch *b;

	for (int i = q->nbatches - 1; i >= 0; i--) {
		b = (model_batch *)sl_model_batch(q, i);
		if (b->id == id && !(fresh && b->crash))
			return b;
		if (b->id == id)
			break;
	}
	b = &q->batches[q->batch_head];
	for (int i = 0; i < MODEL_MAX_SRC; i++)
		free(b->offsets[i]);
	free(b->watermark);
	free(b->sink);
	free(b->crash);
	memset(b, 0, sizeof *b);
	b->id = id;
	b->state_rows = b->state_version = -1;
	b->ev_min_us = b->ev_max_us = b->ev_avg_us = MODEL_NONE;
	b->wm_us = MODEL_NONE;
	q->batch_head = (q->batch_head + 1) % MODEL_MAX_BATCHES;
	if (q->nbatches < MODEL_MAX_BATCHES)
		q->nbatches++;
	return b;
}

static model_batch *batch_of(model_query *q, int64_t id)
{
	return batch_entry(q, id, false);
}

static void note(model_query *q, const char *text)
{
	if (q->nnotes == 8) {
		free(q->ckpt_note[0]);
		memmove(q->ckpt_note, q->ckpt_note + 1, 7 * sizeof(char *));
		q->nnotes--;
	}
	q->ckpt_note[q->nnotes++] = dup0(text);
}

/* ---- EVENT_TIMES ---- */

/* The points of batch id: its slot, or the ring's oldest made new. */
static model_pts *pts_of(model_query *q, int64_t id)
{
	model_pts *p = (model_pts *)sl_model_pts(q, id);

	if (p != NULL)
		return p;
	p = &q->pts[q->pts_head];
	if (p->us == NULL)
		p->us = malloc(MODEL_PTS_MAX * sizeof *p->us);
	if (p->behind == NULL)
		p->behind = malloc(MODEL_PTS_MAX * sizeof *p->behind);
	if (p->us == NULL || p->behind == NULL)
		return NULL;
	p->batch = id;
	p->total = 0;
	p->n = 0;
	p->prior_max_us = q->row_max_us;
	q->pts_head = (q->pts_head + 1) % MODEL_PTS_BATCHES;
	if (q->npts < MODEL_PTS_BATCHES)
		q->npts++;
	return p;
}

static void add_point(model_query *q, model_pts *p, int64_t us)
{
	p->us[p->n] = us;
	p->behind[p->n] = us != MODEL_NONE && q->row_max_us != MODEL_NONE &&
			  us < q->row_max_us;
	p->n++;
	if (us != MODEL_NONE &&
	    (q->row_max_us == MODEL_NONE || us > q->row_max_us))
		q->row_max_us = us;
}

/* json {"column":..,"count":N,"ms":[ms or null, ...]} */
static void on_event_times(model_query *q, const sl_event *ev)
{
	const char *js = ev->json ? ev->json : "{}";
	const char *a = mjson_get(js, "ms");
	model_pts *p;

	if (a == NULL || *a != '[' || (p = pts_of(q, ev->batch_id)) == NULL)
		return;
	p->total += (int64_t)mjson_num(mjson_get(js, "count"), 0);
	for (a++; *a != '\0' && *a != ']' && p->n < MODEL_PTS_MAX;) {
		char *end;
		long long ms;

		a += strspn(a, " ,");
		if (strncmp(a, "null", 4) == 0) {
			add_point(q, p, MODEL_NONE);
			a += 4;
			continue;
		}
		ms = strtoll(a, &end, 10);
		if (end == a)
			break;
		add_point(q, p, (int64_t)ms * 1000);
		a = end;
	}
}

/* ---- BATCH_START ---- */

static void on_batch_start(model_query *q, const sl_event *ev)
{
	model_batch *b = batch_entry(q, ev->batch_id, true);
	model_pts *p = (model_pts *)sl_model_pts(q, ev->batch_id);
	int i, k = 0;

	b->ts_us = ev->ts_us;
	q->wm_moved = false;
	if (p != NULL) { /* the batch runs again: its points start over */
		q->row_max_us = p->prior_max_us;
		p->n = 0;
		p->total = 0;
	}
	for (i = 0; i < q->nrows; i++) {
		model_row *r = &q->rows[i];
		if (strcmp(r->state, "EVICTED") == 0 &&
		    r->batch < ev->batch_id - 1) {
			free(r->window);
			free(r->key);
			free(r->value);
			continue;
		}
		if (strcmp(r->state, "UPDATED") == 0)
			strcpy(r->state, "OPEN");
		q->rows[k++] = *r;
	}
	q->nrows = k;
}

/* ---- OFFSETS: "start -> end" per source; Kafka lanes ---- */

static void kafka_lanes(model_query *q, const char *start, const char *end,
			int64_t batch)
{
	/* a Kafka topic name is at most 249 characters: kept whole */
	char topic[256], part[16], name[280];
	const char *t, *v;

	/* {"topic":{"0":5,"1":7}}: topics, then partitions */
	for (int i = 0; (t = mjson_member_at(end, i, topic, sizeof topic)); i++)
		for (int k = 0; (v = mjson_member_at(t, k, part, sizeof part));
		     k++) {
			model_lane *l = NULL;
			/* by member, not by path: a topic may hold '.' */
			int64_t from = (int64_t)mjson_num(
			    mjson_member(mjson_member(start, topic), part), 0);

			snprintf(name, sizeof name, "%s/%s", topic, part);
			for (int j = 0; j < q->nlanes && l == NULL; j++)
				if (strcmp(q->lanes[j].name, name) == 0)
					l = &q->lanes[j];
			if (l == NULL && q->nlanes < MODEL_MAX_LANES) {
				l = &q->lanes[q->nlanes++];
				l->name = dup0(name);
			}
			if (l == NULL)
				continue;
			l->end = (int64_t)mjson_num(v, 0);
			l->rows = l->end - from;
			l->batch = batch;
		}
}

/* The leaves of an offset (a number, or objects of numbers as the file
 * and Kafka sources write them): path ("" for a bare value, "t/0" for
 * topic t partition 0) and text, at most n. */
typedef struct leaf {
	char path[96], text[40];
} leaf;

static int leaves(const char *p, const char *prefix, leaf *out, int n,
		  int depth)
{
	char key[64], path[96];
	const char *v;
	int k = 0;

	if (p == NULL || n <= 0)
		return 0;
	p += strspn(p, " ");
	if (*p != '{' || depth > 3) {
		snprintf(out[0].path, sizeof out[0].path, "%s", prefix);
		if (!mjson_text(p, out[0].text, sizeof out[0].text))
			snprintf(out[0].text, sizeof out[0].text, "-");
		return 1;
	}
	for (int i = 0; k < n && (v = mjson_member_at(p, i, key, sizeof key));
	     i++) {
		snprintf(path, sizeof path, "%s%s%s", prefix,
			 prefix[0] ? "/" : "", key);
		k += leaves(v, path, out + k, n - k, depth + 1);
	}
	return k;
}

/* "MemoryStream[ts#1,word#2]: offsets ..." -> "mem" */
const char *model_source_short(const char *text)
{
	static const struct {
		const char *prefix, *name;
	} names[] = {
		{ "MemoryStream", "mem" },  { "FileStream", "file" },
		{ "KafkaV2", "kafka" },     { "RateStream", "rate" },
		{ "TextSocket", "socket" }, { "RatePerMicroBatch", "ratemb" },
	};

	for (size_t i = 0; text && i < sizeof names / sizeof names[0]; i++)
		if (strncmp(text, names[i].prefix, strlen(names[i].prefix)) ==
		    0)
			return names[i].name;
	return "src";
}

/* "mem 0->2"; "file 3->4" ({"logOffset":N}: one leaf, its key is noise);
 * "kafka t/0 3->5\tt/1 4->7": one tab-separated item per partition, so
 * the pane can wrap between them. */
void model_offsets_text(const char *name, const char *start, const char *end,
			sl_buf *b)
{
	leaf s[MODEL_MAX_LANES], e[MODEL_MAX_LANES];
	int ns = leaves(start, "", s, MODEL_MAX_LANES, 0);
	int ne = leaves(end, "", e, MODEL_MAX_LANES, 0);

	int item = 0;

	sl_buf_adds(b, name);
	/* moved partitions first, with start->end; then the unchanged ones
	 * with their offset alone */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < ne; i++) {
			const char *from = "-";
			bool moved;
			for (int k = 0; k < ns; k++)
				if (strcmp(s[k].path, e[i].path) == 0)
					from = s[k].text;
			if (ns == 1 && ne == 1)
				from = s[0].text;
			moved = ne == 1 || strcmp(from, e[i].text) != 0;
			if (moved != (pass == 0))
				continue;
			sl_buf_adds(b, item++ == 0 ? " " : "\t");
			if (ne > 1)
				sl_buf_printf(b, "%s ", e[i].path);
			if (moved) /* "->0": no start, up to 0 */
				sl_buf_printf(b, "%s->%s",
					      strcmp(from, "-") ? from : "",
					      e[i].text);
			else
				sl_buf_printf(b, "%s", e[i].text);
		}
}

static void on_offsets(model_query *q, const sl_event *ev)
{
	model_batch *b = batch_of(q, ev->batch_id);
	const char *js = ev->json ? ev->json : "{}";
	int src = (int)mjson_num(mjson_get(js, "source"), 0);
	const char *st = mjson_get(js, "start"), *en = mjson_get(js, "end");
	char s[200], e[200];
	sl_buf text;

	if (!mjson_text(st, s, sizeof s))
		snprintf(s, sizeof s, "-");
	if (!mjson_text(en, e, sizeof e))
		snprintf(e, sizeof e, "-");
	sl_buf_init(&text);
	model_offsets_text(model_source_short(ev->text), st, en, &text);
	if (src >= 0 && src < MODEL_MAX_SRC && !sl_buf_failed(&text)) {
		set_str(&b->offsets[src], sl_buf_cstr(&text));
		if (src + 1 > b->nsrc)
			b->nsrc = src + 1;
	}
	sl_buf_release(&text);
	if (e[0] == '{')
		kafka_lanes(q, s[0] == '{' ? s : NULL, e, ev->batch_id);
}

/* ---- STATE_ROW ---- */

/* The window struct {start, end} of a key's Row text, first (a window
 * aggregation: "[{12:00, 12:10},dog]") or last (a session window, which
 * Spark keys after the group columns: "[dog,{12:00, 12:07}]"): its
 * bounds in r, the rest of the row as r's key.  False when the key has
 * none (or its two fields are not timestamps). */
static bool window_in_key(const char *key, model_row *r)
{
	size_t n = strlen(key);
	const char *open, *close, *comma, *rest_a, *rest_b;
	char a[40], b[40], sa[12], sb[12], w[40];
	char *k;
	size_t kn;

	if (n < 4 || key[0] != '[' || key[n - 1] != ']')
		return false;
	if (key[1] == '{') { /* first: the rest follows it */
		open = key + 1;
		if ((close = strchr(open, '}')) == NULL)
			return false;
		rest_a = close + 1 + strspn(close + 1, ", ");
		rest_b = key + n - 1;
	} else if (key[n - 2] == '}') { /* last: the rest precedes it */
		close = key + n - 2;
		for (open = close; open > key && *open != '{'; open--)
			;
		if (open - key < 2)
			return false;
		rest_b = open - 1; /* Row text: "a,{...}"; also "a, {...}" */
		if (*rest_b == ' ')
			rest_b--;
		if (*rest_b != ',')
			return false;
		rest_a = key + 1;
	} else {
		return false;
	}
	if ((comma = strstr(open, ", ")) == NULL || comma > close)
		return false;
	snprintf(a, sizeof a, "%.*s", (int)(comma - open - 1), open + 1);
	snprintf(b, sizeof b, "%.*s", (int)(close - comma - 2), comma + 2);
	r->wstart_us = sl_model_parse_time(a);
	r->wend_us = sl_model_parse_time(b);
	if (r->wstart_us == MODEL_NONE || r->wend_us == MODEL_NONE) {
		r->wstart_us = r->wend_us = MODEL_NONE;
		return false;
	}
	kn = rest_b > rest_a ? (size_t)(rest_b - rest_a) : 0;
	if ((k = strndup(rest_a, kn)) == NULL)
		return false;
	sl_model_hms(r->wstart_us, sa, sizeof sa);
	sl_model_hms(r->wend_us, sb, sizeof sb);
	snprintf(w, sizeof w, "%s-%s", sa, sb);
	r->window = dup0(w);
	r->key = k;
	return true;
}

static void split_key(const char *key, model_row *r)
{
	r->wstart_us = r->wend_us = MODEL_NONE;
	if (window_in_key(key, r))
		return;
	r->window = dup0("");
	r->key = dup0(key);
}

static void on_state_row(model_query *q, const sl_event *ev)
{
	char key[256], val[256], st[12];
	model_row *r = NULL;
	model_row tmp;
	const char *js = ev->json ? ev->json : "{}";

	if (!mjson_text(mjson_get(js, "key"), key, sizeof key))
		return;
	mjson_text(mjson_get(js, "value"), val, sizeof val);
	if (!mjson_text(mjson_get(js, "state"), st, sizeof st))
		snprintf(st, sizeof st, "UPDATED");
	memset(&tmp, 0, sizeof tmp);
	split_key(key, &tmp);
	for (int i = 0; i < q->nrows && r == NULL; i++)
		if (strcmp(q->rows[i].key, tmp.key) == 0 &&
		    strcmp(q->rows[i].window, tmp.window) == 0)
			r = &q->rows[i];
	if (r == NULL && q->nrows == MODEL_MAX_ROWS) {
		free(q->rows[0].window); /* the oldest gives way */
		free(q->rows[0].key);
		free(q->rows[0].value);
		memmove(q->rows, q->rows + 1,
			(MODEL_MAX_ROWS - 1) * sizeof q->rows[0]);
		q->nrows--;
	}
	if (r == NULL) {
		r = &q->rows[q->nrows++];
		*r = tmp;
	} else {
		free(tmp.window);
		free(tmp.key);
	}
	set_str(&r->value, val);
	snprintf(r->state, sizeof r->state, "%s", st);
	r->batch = ev->batch_id;
	if (r->wend_us != MODEL_NONE &&
	    r->wend_us - r->wstart_us > q->window_us)
		q->window_us = r->wend_us - r->wstart_us;
}

/* ---- LATE_ROW / BAD_RECORD ---- */

static model_late *late_slot(model_query *q)
{
	model_late *l = &q->late[q->late_head];

	free(l->text);
	free(l->row);
	free(l->fields);
	free(l->windows);
	free(l->watermark);
	memset(l, 0, sizeof *l);
	q->late_head = (q->late_head + 1) % MODEL_MAX_LATE;
	if (q->nlate < MODEL_MAX_LATE)
		q->nlate++;
	return l;
}

static void count_window(model_query *q, int64_t s, int64_t e)
{
	for (int i = 0; i < q->nwlate; i++)
		if (q->wlate[i].start_us == s && q->wlate[i].end_us == e) {
			q->wlate[i].count++;
			return;
		}
	if (q->nwlate == MODEL_MAX_WLATE) {
		memmove(q->wlate, q->wlate + 1,
			(MODEL_MAX_WLATE - 1) * sizeof q->wlate[0]);
		q->nwlate--;
	}
	q->wlate[q->nwlate].start_us = s;
	q->wlate[q->nwlate].end_us = e;
	q->wlate[q->nwlate++].count = 1;
}

/* "word=donkey\tn=3" from the row's JSON object, without the members
 * holding the event time (that one is shown as a time). */
#define FIELD_MAX 24 /* columns of a value before it is abbreviated */
static char *row_fields(const char *row, int64_t event_us)
{
	char key[64], val[256];
	const char *v;
	sl_buf b;

	sl_buf_init(&b);
	for (int i = 0; row && *row == '{' &&
			(v = mjson_member_at(row, i, key, sizeof key));
	     i++) {
		if (!mjson_text(v, val, sizeof val))
			snprintf(val, sizeof val, "null");
		if (event_us != MODEL_NONE &&
		    sl_model_parse_time(val) == event_us)
			continue;
		if (strlen(val) > FIELD_MAX) {
			size_t k = FIELD_MAX - 3;
			while (k > 0 && ((unsigned char)val[k] & 0xC0) == 0x80)
				k--; /* not inside a UTF-8 character */
			snprintf(val + k, 4, "...");
		}
		sl_buf_printf(&b, "%s%s=%s", b.len ? "\t" : "", key, val);
	}
	if (sl_buf_failed(&b) || b.len == 0) {
		sl_buf_release(&b);
		return NULL;
	}
	return sl_buf_detach(&b);
}

static void on_late(model_query *q, const sl_event *ev)
{
	model_late *l = late_slot(q);
	const char *js = ev->json ? ev->json : "{}";
	const char *w = mjson_get(js, "windows");
	char buf[512], wins[400] = "";
	size_t used = 0;

	l->batch = ev->batch_id;
	l->text = dup0(ev->text);
	if (mjson_text(mjson_get(js, "eventTime"), buf, sizeof buf))
		l->event_us = sl_model_parse_time(buf);
	else
		l->event_us = MODEL_NONE;
	if (mjson_text(mjson_get(js, "row"), buf, sizeof buf))
		l->row = dup0(buf);
	l->fields = row_fields(mjson_get(js, "row"), l->event_us);
	if (mjson_text(mjson_get(js, "watermark"), buf, sizeof buf)) {
		int64_t us = sl_model_parse_time(buf);
		char hms[16];
		sl_model_hms(us, hms, sizeof hms);
		l->watermark = dup0(us == MODEL_NONE ? buf : hms);
	}
	for (int i = 0; w; i++) {
		char path[32], a[40], b[40], sa[16], sb[16];
		int64_t s, e;
		snprintf(path, sizeof path, "%d", i);
		if (!mjson_get(w, path))
			break;
		snprintf(path, sizeof path, "%d.start", i);
		mjson_text(mjson_get(w, path), a, sizeof a);
		snprintf(path, sizeof path, "%d.end", i);
		mjson_text(mjson_get(w, path), b, sizeof b);
		s = sl_model_parse_time(a);
		e = sl_model_parse_time(b);
		count_window(q, s, e);
		if (l->nwin < MODEL_LATE_WIN) {
			l->win_us[l->nwin][0] = s;
			l->win_us[l->nwin++][1] = e;
		}
		sl_model_hms(s, sa, sizeof sa);
		sl_model_hms(e, sb, sizeof sb);
		if (used < sizeof wins)
			used += (size_t)snprintf(
			    wins + used, sizeof wins - used, "%s[%s,%s)",
			    used ? " " : "", sa, sb);
	}
	l->windows = dup0(wins);
	q->late_total++;
	batch_of(q, ev->batch_id)->late++;
}

static void on_bad(model_query *q, const sl_event *ev)
{
	model_late *l = late_slot(q);

	l->bad = true;
	l->batch = ev->batch_id;
	l->event_us = MODEL_NONE;
	l->text = dup0(ev->text);
	l->row = dup0(ev->json);
	/* "count": one record, or the ones a busy batch did not list */
	q->bad_total += (int64_t)mjson_num(
	    mjson_get(ev->json ? ev->json : "{}", "count"), 1);
}

/* ---- SINK / BATCH_END / WATERMARK ---- */

static void on_sink(model_query *q, const sl_event *ev)
{
	model_batch *b = batch_of(q, ev->batch_id);
	const char *js = ev->json ? ev->json : "{}";
	const char *sk = mjson_get(js, "skipped");

	set_str(&b->sink, ev->text);
	b->sink_skipped = sk && strncmp(sk, "true", 4) == 0;
	b->out_rows = (int64_t)mjson_num(mjson_get(js, "rows"), 0);
	if (!b->sink_skipped) {
		b->writes++;
		b->rows_written += b->out_rows;
	}
}

static void on_batch_end(model_query *q, const sl_event *ev)
{
	model_batch *b = batch_of(q, ev->batch_id);
	const char *js = ev->json ? ev->json : "{}";
	const char *ops = mjson_get(js, "stateOperators");
	char buf[64];

	b->committed = true;
	q->batch = ev->batch_id;
	q->in_rows = b->in_rows =
	    (int64_t)mjson_num(mjson_get(js, "numInputRows"), 0);
	q->rows_per_s = mjson_num(mjson_get(js, "processedRowsPerSecond"), 0);
	if (ops && *ops == '[' && mjson_get(ops, "0")) {
		int64_t total = 0;
		for (int i = 0;; i++) {
			char path[40];
			snprintf(path, sizeof path, "%d", i);
			if (!mjson_get(ops, path))
				break;
			snprintf(path, sizeof path, "%d.numRowsTotal", i);
			total += (int64_t)mjson_num(mjson_get(ops, path), 0);
		}
		q->state_rows = b->state_rows = total;
		b->state_version = ev->batch_id + 1;
	}
	if (mjson_text(mjson_get(js, "eventTime.watermark"), buf, sizeof buf)) {
		set_str(&q->watermark, buf);
		set_str(&b->watermark, buf);
		b->wm_us = sl_model_parse_time(buf);
	}
	if (mjson_text(mjson_get(js, "eventTime.min"), buf, sizeof buf))
		b->ev_min_us = sl_model_parse_time(buf);
	if (mjson_text(mjson_get(js, "eventTime.avg"), buf, sizeof buf))
		b->ev_avg_us = sl_model_parse_time(buf);
	if (mjson_text(mjson_get(js, "eventTime.max"), buf, sizeof buf)) {
		b->ev_max_us = sl_model_parse_time(buf);
		if (b->ev_max_us != MODEL_NONE &&
		    (q->row_max_us == MODEL_NONE ||
		     b->ev_max_us > q->row_max_us))
			q->row_max_us = b->ev_max_us; /* rows past the cap */
		if (b->ev_max_us != MODEL_NONE &&
		    (q->max_event_us == MODEL_NONE ||
		     b->ev_max_us > q->max_event_us)) {
			char hms[16];
			q->max_event_us = b->ev_max_us;
			sl_model_hms(q->max_event_us, hms, sizeof hms);
			set_str(&q->max_event, hms);
		}
	}
	if (!q->wm_moved)
		q->wm_late_us = q->wm_evict_us;
}

static void on_watermark(model_query *q, const sl_event *ev)
{
	const char *js = ev->json ? ev->json : "{}";

	q->wm_evict_us = (int64_t)mjson_num(mjson_get(js, "to"), 0) * 1000;
	q->wm_late_us = (int64_t)mjson_num(mjson_get(js, "from"), 0) * 1000;
	q->wm_moved = true;
}

/* ---- the loop ---- */

static void on_event(sl_model *m, model_query *q, const sl_event *ev)
{
	char line[600];
	model_batch *b;

	switch (ev->kind) {
	case SL_EV_BATCH_START: on_batch_start(q, ev); break;
	case SL_EV_OFFSETS: on_offsets(q, ev); break;
	case SL_EV_STATE_ROW: on_state_row(q, ev); break;
	case SL_EV_LATE_ROW: on_late(q, ev); break;
	case SL_EV_BAD_RECORD: on_bad(q, ev); break;
	case SL_EV_SINK: on_sink(q, ev); break;
	case SL_EV_BATCH_END: on_batch_end(q, ev); break;
	case SL_EV_WATERMARK: on_watermark(q, ev); break;
	case SL_EV_EVENT_TIMES: on_event_times(q, ev); break;
	case SL_EV_CRASH:
		b = batch_of(q, ev->batch_id);
		set_str(&b->crash, ev->text ? ev->text : "crash");
		note(q, ev->text);
		break;
	case SL_EV_REPLAY:
		batch_of(q, ev->batch_id)->replayed = true;
		note(q, ev->text);
		break;
	case SL_EV_QUERY_START:
		if (q->restarted) {
			snprintf(line, sizeof line,
				 "restarted from the checkpoint: run %.8s",
				 q->run_id ? q->run_id : "?");
			note(q, line);
		}
		break;
	case SL_EV_LOG:
		/* librdkafka's lines stay in the feed, off the screen */
		if (ev->json && strstr(ev->json, "\"from\":\"librdkafka\""))
			break;
		/* fall through */
	case SL_EV_ERROR:
		/* returned to the learner's call, which printed it already */
		if (ev->kind == SL_EV_ERROR && ev->json != NULL &&
		    mjson_get(ev->json, "returned") != NULL)
			break;
		snprintf(line, sizeof line, "[%s] %s",
			 q->name ? q->name : "query", ev->text ? ev->text : "");
		model_log(m, line);
		break;
	default: break;
	}
}

void model_feed_event(sl_model *m, model_query *q, const sl_event *ev)
{
	on_event(m, q, ev);
}

const char *model_source_long(const char *name)
{
	static const char *const longs[][2] = {
		{ "mem", "MemoryStream" },  { "file", "FileStream" },
		{ "kafka", "KafkaV2" },     { "rate", "RateStream" },
		{ "socket", "TextSocket" }, { "ratemb", "RatePerMicroBatch" },
	};

	for (size_t i = 0; name && i < sizeof longs / sizeof longs[0]; i++)
		if (strcmp(name, longs[i][0]) == 0)
			return longs[i][1];
	return "Source";
}

bool model_feed_read(sl_model *m, model_query *q, sl_feed *f)
{
	uint64_t first, last, s;

	if (f == NULL)
		return false;
	sl_feed_range(f, &first, &last);
	if (last == 0 || last <= q->seq)
		return false;
	for (s = q->seq + 1 > first ? q->seq + 1 : first; s <= last; s++) {
		const sl_event *ev = sl_feed_get(f, s);
		if (ev != NULL)
			on_event(m, q, ev);
	}
	q->seq = last;
	return true;
}
