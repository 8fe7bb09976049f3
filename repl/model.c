/*
 * model: the screen model built from the engine (see model.h).
 *
 * The feed is read incrementally: each query remembers the last sequence
 * number it consumed, so a refresh with nothing new costs one
 * sl_feed_range per query.  Events that fell off the ring are simply
 * missed (the ring is sized so the screen, reading every 100 ms, keeps up).
 *
 * The JSON the engine gives (progress, offsets, late rows) is read with a
 * small path lookup (model_json.c): the screen needs a dozen fields, not a
 * parser of its own data structures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_int.h"
#include "driver/query.h"
#include "core/timeutil.h"

struct sl_model {
	model_query *qs[MODEL_MAX_QUERIES];
	int nq;
	int focus; /* index chosen by :focus, -1 for automatic */
	model_log_fn log;
	void *log_ud;
	/* output scrollback */
	char **out;             /* [MODEL_OUT_LINES] ring */
	unsigned char *out_err; /* [MODEL_OUT_LINES] */
	int out_head, out_n;
	int64_t out_total; /* lines ever pushed */
	size_t out_bytes;  /* text held by the ring */
	sl_buf partial;
	int partial_stream;
	int scroll;
	model_rw rw; /* the rewound screen (model_rewind.c) */
};

model_rw *model_rw_of(sl_model *m)
{
	return &m->rw;
}

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = dup0(s);
}

sl_model *sl_model_new(void)
{
	sl_model *m = calloc(1, sizeof *m);

	if (m == NULL)
		return NULL;
	m->out = calloc(MODEL_OUT_LINES, sizeof *m->out);
	m->out_err = calloc(MODEL_OUT_LINES, sizeof *m->out_err);
	if (m->out == NULL || m->out_err == NULL) {
		free(m->out);
		free(m->out_err);
		free(m);
		return NULL;
	}
	m->focus = -1;
	sl_buf_init(&m->partial);
	return m;
}

static void late_release(model_late *l)
{
	free(l->text);
	free(l->row);
	free(l->fields);
	free(l->windows);
	free(l->watermark);
	memset(l, 0, sizeof *l);
}

static void batch_release(model_batch *b)
{
	for (int i = 0; i < MODEL_MAX_SRC; i++)
		free(b->offsets[i]);
	free(b->watermark);
	free(b->sink);
	free(b->crash);
	memset(b, 0, sizeof *b);
}

static void row_release(model_row *r)
{
	free(r->window);
	free(r->key);
	free(r->value);
	memset(r, 0, sizeof *r);
}

model_query *model_query_new(void)
{
	model_query *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	q->batch = -1;
	q->wm_evict_us = q->wm_late_us = MODEL_NONE;
	q->max_event_us = q->row_max_us = MODEL_NONE;
	return q;
}

void model_query_free(model_query *q)
{
	int i;

	if (q == NULL)
		return;
	free(q->id);
	free(q->run_id);
	free(q->name);
	free(q->exception);
	free(q->status);
	free(q->watermark);
	free(q->max_event);
	free(q->mode);
	for (i = 0; i < q->nrows; i++)
		row_release(&q->rows[i]);
	for (i = 0; i < MODEL_MAX_LATE; i++)
		late_release(&q->late[i]);
	for (i = 0; i < MODEL_MAX_BATCHES; i++)
		batch_release(&q->batches[i]);
	for (i = 0; i < q->nnotes; i++)
		free(q->ckpt_note[i]);
	for (i = 0; i < q->nlanes; i++)
		free(q->lanes[i].name);
	for (i = 0; i < MODEL_PTS_BATCHES; i++) {
		free(q->pts[i].us);
		free(q->pts[i].behind);
	}
	sl_query_free(q->q);
	free(q);
}

void sl_model_free(sl_model *m)
{
	if (m == NULL)
		return;
	for (int i = 0; i < m->nq; i++)
		model_query_free(m->qs[i]);
	model_rw_release(&m->rw);
	for (int i = 0; i < MODEL_OUT_LINES; i++)
		free(m->out[i]);
	free(m->out);
	free(m->out_err);
	sl_buf_release(&m->partial);
	free(m);
}

void sl_model_set_log(sl_model *m, model_log_fn fn, void *ud)
{
	m->log = fn;
	m->log_ud = ud;
}

/* ---- times ---- */

void sl_model_hms(int64_t us, char *out, size_t n)
{
	int64_t s;

	if (us == MODEL_NONE) { /* before the arithmetic: it would overflow */
		snprintf(out, n, "-");
		return;
	}
	s = (us - sl_floordiv(us, SL_US_PER_DAY) * SL_US_PER_DAY) /
	    SL_US_PER_SEC;
	snprintf(out, n, "%02d:%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60),
		 (int)(s % 60));
}

int64_t sl_model_parse_time(const char *s)
{
	int64_t us;

	if (s == NULL || !sl_ts_parse(s, strlen(s), &us))
		return MODEL_NONE;
	return us;
}

/* ---- queries ---- */

int sl_model_count(const sl_model *m)
{
	return m->nq;
}

model_query *sl_model_query(sl_model *m, int i)
{
	return i >= 0 && i < m->nq ? m->qs[i] : NULL;
}

model_query *sl_model_focus(sl_model *m)
{
	if (m->focus >= 0 && m->focus < m->nq)
		return m->qs[m->focus];
	for (int i = m->nq - 1; i >= 0; i--)
		if (m->qs[i]->active)
			return m->qs[i];
	return m->nq > 0 ? m->qs[m->nq - 1] : NULL;
}

bool sl_model_set_focus(sl_model *m, const char *which)
{
	char *end;
	long k;
	size_t n;

	if (which == NULL) {
		m->focus = -1;
		return true;
	}
	k = strtol(which, &end, 10);
	n = strlen(which);

	if (*which && *end == '\0' && k >= 1 && k <= m->nq) {
		m->focus = (int)k - 1;
		return true;
	}
	for (int i = 0; i < m->nq; i++) {
		model_query *q = m->qs[i];
		if ((q->name && strcmp(q->name, which) == 0) ||
		    (n >= 4 && strncmp(q->id, which, n) == 0)) {
			m->focus = i;
			return true;
		}
	}
	return false;
}

const model_batch *sl_model_batch(const model_query *q, int i)
{
	int start = (q->batch_head - q->nbatches + MODEL_MAX_BATCHES) %
		    MODEL_MAX_BATCHES;

	if (i < 0 || i >= q->nbatches)
		return NULL;
	return &q->batches[(start + i) % MODEL_MAX_BATCHES];
}

const model_late *sl_model_late(const model_query *q, int i)
{
	if (i < 0 || i >= q->nlate)
		return NULL;
	return &q->late[(q->late_head - 1 - i + 2 * MODEL_MAX_LATE) %
			MODEL_MAX_LATE];
}

const model_pts *sl_model_pts(const model_query *q, int64_t batch)
{
	for (int i = 0; i < q->npts; i++) {
		const model_pts *p =
		    &q->pts[(q->pts_head - 1 - i + MODEL_PTS_BATCHES) %
			    MODEL_PTS_BATCHES];
		if (p->batch == batch)
			return p;
	}
	return NULL;
}

static model_query *find_query(sl_model *m, const char *id)
{
	for (int i = 0; i < m->nq; i++)
		if (strcmp(m->qs[i]->id, id) == 0)
			return m->qs[i];
	return NULL;
}

/* A query the model has not seen: a new entry (oldest stopped one makes
 * room when the table is full), or a new run of a known id. */
static model_query *adopt(sl_model *m, sl_query *eq)
{
	model_query *q = find_query(m, sl_query_id(eq));

	if (q != NULL) {
		if (q->q == eq)
			return q;
		sl_query_free(q->q);
		q->q = sl_query_ref(eq);
		q->seq = 0;
		q->restarted = true;
		set_str(&q->run_id, sl_query_run_id(eq));
		return q;
	}
	if (m->nq == MODEL_MAX_QUERIES) {
		int victim = 0;
		while (victim < m->nq - 1 && m->qs[victim]->active)
			victim++;
		model_query_free(m->qs[victim]);
		memmove(&m->qs[victim], &m->qs[victim + 1],
			(size_t)(m->nq - victim - 1) * sizeof m->qs[0]);
		m->nq--;
		if (m->focus >= victim)
			m->focus = m->focus == victim ? -1 : m->focus - 1;
	}
	if ((q = model_query_new()) == NULL)
		return NULL;
	q->id = dup0(sl_query_id(eq));
	q->run_id = dup0(sl_query_run_id(eq));
	q->name = dup0(sl_query_name(eq));
	q->q = sl_query_ref(eq);
	m->qs[m->nq++] = q;
	return q;
}

void sl_model_adopt(sl_model *m, sl_query *q)
{
	if (q != NULL)
		adopt(m, q);
}

static void log_line(sl_model *m, const char *line)
{
	if (m->log)
		m->log(m->log_ud, line);
}

bool sl_model_refresh(sl_model *m, sl_session *s)
{
	bool changed = false;
	int i, n = s ? sl_session_active_count(s) : 0;

	for (i = 0; i < m->nq; i++)
		m->qs[i]->seen = false;
	for (i = 0; i < n; i++) {
		model_query *q = adopt(m, sl_session_active(s, i));
		if (q != NULL)
			q->seen = true;
	}
	for (i = 0; i < m->nq; i++) {
		model_query *q = m->qs[i];
		sl_query *eq = q->q;
		const char *exc = sl_query_exception(eq);
		bool active = sl_query_is_active(eq);

		if (active != q->active || (exc != NULL) != q->failed)
			changed = true;
		q->active = active;
		q->failed = exc != NULL;
		if (exc && q->exception == NULL) {
			size_t k = strcspn(exc, "\n");
			q->exception = strndup(exc, k);
		}
		changed |= model_feed_read(m, q, sl_query_feed(eq));
		set_str(&q->status, active      ? model_status_message(eq)
				    : q->failed ? "failed"
						: "stopped");
	}
	return changed;
}

/* ---- engine log lines ---- */

void model_log(sl_model *m, const char *line)
{
	log_line(m, line);
}

/* ---- scrollback ---- */

/* The oldest line gives way (the ring is full, or too many bytes). */
static void out_drop(sl_model *m)
{
	int slot = (m->out_head - m->out_n + MODEL_OUT_LINES) % MODEL_OUT_LINES;

	if (m->out[slot])
		m->out_bytes -= strlen(m->out[slot]) + 1;
	free(m->out[slot]);
	m->out[slot] = NULL;
	m->out_n--;
	if (m->scroll > m->out_n)
		m->scroll = m->out_n;
}

static void out_push(sl_model *m, const char *s, size_t n, bool err)
{
	char *line = strndup(s, n);

	if (m->out_n == MODEL_OUT_LINES)
		out_drop(m);
	while (m->out_n > 0 && m->out_bytes + n + 1 > MODEL_OUT_BYTES)
		out_drop(m);
	m->out[m->out_head] = line; /* NULL when out of memory: a blank */
	m->out_err[m->out_head] = err;
	m->out_bytes += line ? n + 1 : 0;
	m->out_head = (m->out_head + 1) % MODEL_OUT_LINES;
	m->out_n++;
	m->out_total++;
	if (m->scroll > 0 && m->scroll < m->out_n)
		m->scroll++; /* keep the view still while reading back */
}

void sl_model_out(sl_model *m, int stream, const char *s, size_t n)
{
	bool err = stream == 2;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			out_push(m, sl_buf_cstr(&m->partial), m->partial.len,
				 err || m->partial_stream == 2);
			sl_buf_clear(&m->partial);
			m->partial_stream = 0;
		} else if (s[i] != '\r') {
			sl_buf_addc(&m->partial, s[i]);
			if (err)
				m->partial_stream = 2;
		}
	}
}

int sl_model_out_count(const sl_model *m)
{
	return m->out_n + (m->partial.len > 0);
}

const char *sl_model_out_line(const sl_model *m, int i, bool *err)
{
	int start =
	    (m->out_head - m->out_n + MODEL_OUT_LINES) % MODEL_OUT_LINES;

	if (i == m->out_n && m->partial.len > 0) {
		*err = m->partial_stream == 2;
		return sl_buf_cstr((sl_buf *)&m->partial);
	}
	if (i < 0 || i >= m->out_n)
		return NULL;
	*err = m->out_err[(start + i) % MODEL_OUT_LINES];
	return m->out[(start + i) % MODEL_OUT_LINES]
		   ? m->out[(start + i) % MODEL_OUT_LINES]
		   : "";
}

int64_t sl_model_out_mark(const sl_model *m)
{
	return m->out_total;
}

int sl_model_out_index(const sl_model *m, int64_t abs)
{
	int64_t first = m->out_total - m->out_n;

	if (abs < first)
		return 0;
	if (abs > m->out_total)
		return m->out_n;
	return (int)(abs - first);
}

int sl_model_out_scroll(const sl_model *m)
{
	return m->scroll;
}

void sl_model_out_scroll_by(sl_model *m, int delta, int page)
{
	int max = sl_model_out_count(m) - page;

	m->scroll += delta;
	if (m->scroll > max)
		m->scroll = max;
	if (m->scroll < 0)
		m->scroll = 0;
}
