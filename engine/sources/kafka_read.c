/*
 * kafka_read: the Kafka source's reads (kafka_source.c plans them).  A
 * batch reads (start, end], i.e. the Kafka offsets [start[p], end[p]) of
 * every partition p, straight into column arrays, and nothing else:
 * records past a partition's end are kept for the next batch, records
 * before its start dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/kafka_src.h"
#include "sources/source_int.h"

#define CHUNK 65536

/* ---- read: rows straight into column arrays ---- */

typedef struct rowbuf {
	sl_type *schema;
	bool headers;
	sl_col *c[8];
	int64_t n, cap;
	/* headers of the chunk, built into an ARRAY column at flush */
	int32_t *hoff;
	sl_arena *harena;
	sl_str *hk, *hv;
	uint8_t *hvnull;
	int64_t nh, hcap;
} rowbuf;

static void rb_drop(rowbuf *r)
{
	for (int i = 0; i < 8; i++)
		sl_col_free(r->c[i]);
	memset(r->c, 0, sizeof r->c);
	free(r->hoff);
	r->hoff = NULL;
	sl_arena_free(r->harena);
	r->harena = NULL;
	r->n = r->nh = 0;
}

static void rb_release(rowbuf *r)
{
	rb_drop(r);
	free(r->hk);
	free(r->hv);
	free(r->hvnull);
}

static int rb_open(rowbuf *r, int64_t cap)
{
	int nc = r->schema->nfields;
	r->cap = cap;
	r->n = r->nh = 0;
	/* rb_add writes every slot of every row */
	for (int i = 0; i < nc && i < 7; i++)
		if ((r->c[i] = sl_col_new_raw(r->schema->fields[i].type,
					      cap)) == NULL)
			return SL_ENOMEM;
	if (r->headers) {
		r->hoff = calloc((size_t)cap + 1, sizeof *r->hoff);
		r->harena = sl_arena_new();
		if (r->hoff == NULL || r->harena == NULL)
			return SL_ENOMEM;
	}
	return 0;
}

static int rb_header(rowbuf *r, const char *name, const void *v, size_t len)
{
	if (r->nh == r->hcap) {
		int64_t cap = r->hcap ? 2 * r->hcap : 64;
		sl_str *k = realloc(r->hk, (size_t)cap * sizeof *k);
		if (k != NULL)
			r->hk = k;
		sl_str *x = realloc(r->hv, (size_t)cap * sizeof *x);
		if (x != NULL)
			r->hv = x;
		uint8_t *nn = realloc(r->hvnull, (size_t)cap);
		if (nn != NULL)
			r->hvnull = nn;
		if (k == NULL || x == NULL || nn == NULL)
			return SL_ENOMEM;
		r->hcap = cap;
	}
	r->hk[r->nh].len = (uint32_t)strlen(name);
	r->hk[r->nh].p = sl_arena_dup(r->harena, name, r->hk[r->nh].len);
	r->hvnull[r->nh] = v == NULL;
	r->hv[r->nh].len = v ? (uint32_t)len : 0;
	r->hv[r->nh].p = v ? sl_arena_dup(r->harena, v, len) : NULL;
	if (r->hk[r->nh].p == NULL || (v && r->hv[r->nh].p == NULL))
		return SL_ENOMEM;
	r->nh++;
	return 0;
}

/* Row i of c NULL (its slot zeroed by the caller or here). */
static int null_at(sl_col *c, int64_t i)
{
	if (c->nulls == NULL)
		return sl_col_set_null(c, i); /* allocates the bitmap */
	c->nulls[i >> 3] |= (uint8_t)(1u << (i & 7));
	return 0;
}

/* A key or value: the bytes into the column's arena, or NULL. */
static int bytes_at(sl_col *c, int64_t i, const void *p, size_t n)
{
	if (p != NULL)
		return sl_col_set_str(c, i, p, n);
	sl_col_str(c)[i].p = NULL;
	sl_col_str(c)[i].len = 0;
	return null_at(c, i);
}

/* One record into row r->n (every slot written: the columns are raw).
 * tcache: the topic's bytes in this chunk's arena (set on the first row
 * of the topic). */
static int rb_add(rowbuf *r, const rd_kafka_message_t *m, const char *topic,
		  const char **tcache)
{
	int64_t i = r->n;
	rd_kafka_timestamp_type_t tt;
	int64_t ts = rd_kafka_message_timestamp(m, &tt);
	if (bytes_at(r->c[0], i, m->key, m->key_len) != 0 ||
	    bytes_at(r->c[1], i, m->payload, m->len) != 0)
		return SL_ENOMEM;
	if (*tcache == NULL) {
		if (sl_col_set_str(r->c[2], i, topic, strlen(topic)) != 0)
			return SL_ENOMEM;
		*tcache = sl_col_str(r->c[2])[i].p;
	} else {
		sl_col_str(r->c[2])[i].p = *tcache;
		sl_col_str(r->c[2])[i].len = (uint32_t)strlen(topic);
	}
	sl_col_i32(r->c[3])[i] = m->partition;
	sl_col_i64(r->c[4])[i] = m->offset;
	if (tt == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE) {
		sl_col_i64(r->c[5])[i] = 0;
		if (null_at(r->c[5], i) != 0)
			return SL_ENOMEM;
	} else {
		sl_col_i64(r->c[5])[i] = ts * 1000;
	}
	sl_col_i32(r->c[6])[i] = tt == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME;
	if (r->headers) {
		rd_kafka_headers_t *h = NULL;
		if (rd_kafka_message_headers(m, &h) == 0 && h != NULL) {
			const char *name;
			const void *v;
			size_t len;
			for (size_t j = 0; rd_kafka_header_get_all(
					       h, j, &name, &v, &len) == 0;
			     j++)
				if (rb_header(r, name, v, len) != 0)
					return SL_ENOMEM;
		}
		r->hoff[i + 1] = (int32_t)r->nh;
	}
	r->n++;
	return 0;
}

/* The chunk as a batch appended to out; the buffer is empty after. */
static int rb_flush(rowbuf *r, sl_batch_list *out)
{
	sl_col *cols[8];
	sl_batch *b;
	int nc = r->schema->nfields;
	if (r->n == 0) {
		rb_drop(r);
		return 0;
	}
	for (int i = 0; i < 7; i++) {
		r->c[i]->len = r->n; /* private columns: trim to the rows */
		cols[i] = r->c[i];
		r->c[i] = NULL;
	}
	if (r->headers) {
		sl_type *at = r->schema->fields[7].type;
		sl_col *el = sl_col_new(at->elem, r->nh);
		if (el == NULL)
			goto nomem;
		for (int64_t j = 0; j < r->nh; j++) {
			if (sl_col_set_str(el->child[0], j, r->hk[j].p,
					   r->hk[j].len) != 0 ||
			    (r->hvnull[j]
				 ? sl_col_set_null(el->child[1], j)
				 : sl_col_set_str(el->child[1], j, r->hv[j].p,
						  r->hv[j].len)) != 0) {
				sl_col_free(el);
				goto nomem;
			}
		}
		cols[7] = sl_col_array_new(at, r->n, r->hoff, el);
		if (cols[7] == NULL)
			goto nomem;
	}
	(void)nc;
	rb_drop(r);
	b = sl_batch_new(r->schema, cols[4]->len, cols);
	if (b == NULL)
		return SL_ENOMEM;
	return sl_batch_list_add(out, b);
nomem:
	for (int i = 0; i < 7; i++)
		sl_col_free(cols[i]);
	rb_drop(r);
	return SL_ENOMEM;
}

/* One partition's part of a read. */
typedef struct want {
	const char *topic; /* borrowed from the end map */
	int32_t partition;
	int64_t from, pos, until; /* read [from, until); pos = next */
	const char *tcache;
	bool done;
} want;

static int plan_moving(ksrc *k, const sl_kafka_tpmap *from,
		       const sl_kafka_tpmap *until, const sl_kafka_tpmap *los,
		       want *w, int *nw, sl_err *err);

/* Plan the partitions of (start, end]: check retention, apply
 * failOnDataLoss.  Fills w (one per moving partition) and *nw. */
static int plan_read(ksrc *k, const sl_kafka_tpmap *from,
		     const sl_kafka_tpmap *until, want *w, int *nw, sl_err *err)
{
	sl_kafka_tpmap moving, los;
	int rc;
	*nw = 0;
	sl_kafka_tpmap_init(&moving);
	sl_kafka_tpmap_init(&los);
	/* watermarks (one bounded round) of the partitions that may move */
	for (int i = 0; i < until->n; i++) {
		const sl_kafka_tp *t = &until->v[i];
		int j = sl_kafka_tpmap_find(from, t->topic, t->partition);
		if ((j < 0 || t->offset > from->v[j].offset) &&
		    sl_kafka_tpmap_put(&moving, t->topic, t->partition, 0) !=
			0) {
			sl_kafka_tpmap_release(&moving);
			return sl_err_nomem(err);
		}
	}
	/* low watermarks only (the data-loss check), first from the leaders
	 * the planning just saw; asked afresh if one did not answer */
	rc = moving.n > 0
		 ? sl_kafka_src_wmarks(k, &moving, &los, NULL, true, err)
		 : 0;
	if (rc == 0 && los.n < moving.n)
		rc = sl_kafka_src_wmarks(k, &moving, &los, NULL, false, err);
	if (rc == 0)
		rc = plan_moving(k, from, until, &los, w, nw, err);
	sl_kafka_tpmap_release(&moving);
	sl_kafka_tpmap_release(&los);
	return rc;
}

static int plan_moving(ksrc *k, const sl_kafka_tpmap *from,
		       const sl_kafka_tpmap *until, const sl_kafka_tpmap *los,
		       want *w, int *nw, sl_err *err)
{
	for (int i = 0; i < until->n; i++) {
		const sl_kafka_tp *t = &until->v[i];
		int j = sl_kafka_tpmap_find(from, t->topic, t->partition);
		int jl = sl_kafka_tpmap_find(los, t->topic, t->partition);
		int64_t a, lo = jl >= 0 ? los->v[jl].offset : 0;
		bool have = jl >= 0;
		a = j >= 0 ? from->v[j].offset : (have ? lo : 0);
		if (t->offset < a)
			sl_kafka_src_note(
			    k,
			    "kafka source: partition %s-%d went back from "
			    "offset %lld to %lld; some data may have been "
			    "missed",
			    t->topic, (int)t->partition, (long long)a,
			    (long long)t->offset);
		if (t->offset <= a)
			continue;
		if (have && a < lo) {
			int64_t gone = (lo < t->offset ? lo : t->offset) - a;
			if (k->conf.fail_on_loss)
				return sl_err_set(
				    err, SL_EDATA,
				    "data loss: wanted offsets [%lld, %lld) "
				    "of topic '%s' partition %d, but the "
				    "earliest available is %lld (set "
				    "failOnDataLoss=false to continue)",
				    (long long)a, (long long)t->offset,
				    t->topic, (int)t->partition, (long long)lo);
			k->lost += gone;
			sl_kafka_src_note(
			    k,
			    "data loss: offsets [%lld, %lld) of topic '%s' "
			    "partition %d are gone (%lld lost, "
			    "failOnDataLoss=false)",
			    (long long)a, (long long)(a + gone), t->topic,
			    (int)t->partition, (long long)gone);
			a += gone;
			if (a >= t->offset)
				continue;
		}
		w[*nw].topic = t->topic;
		w[*nw].partition = t->partition;
		w[*nw].from = w[*nw].pos = a;
		w[*nw].until = t->offset;
		w[*nw].tcache = NULL;
		w[*nw].done = false;
		(*nw)++;
	}
	return 0;
}

static int find_want(want *w, int nw, const char *topic, int32_t p, int hint)
{
	if (hint >= 0 && hint < nw && w[hint].partition == p &&
	    strcmp(w[hint].topic, topic) == 0)
		return hint;
	for (int i = 0; i < nw; i++)
		if (w[i].partition == p && strcmp(w[i].topic, topic) == 0)
			return i;
	return -1;
}

/* ---- the consumer between batches ----
 *
 * After a read the consumer stays assigned, so librdkafka goes on
 * fetching from each partition's end offset while the engine processes
 * (Spark's cached KafkaDataConsumer keeps its position the same way): the
 * next batch, which starts exactly there, finds its records queued
 * instead of paying an assign and a first fetch.  Records popped past a
 * partition's end wait in the stash for the next read.  Any other start
 * (a restart, a replay, data loss skipped, a partition set that changed)
 * re-assigns at the planned offsets and drops the stash, so a batch still
 * reads exactly [from, until) of every partition. */

void sl_kafka_src_stash_clear(ksrc *k)
{
	for (int i = 0; i < k->nstash; i++)
		rd_kafka_message_destroy(k->stash[i]);
	k->nstash = 0;
}

/* Keep m for a later read (destroys it when out of memory: the next read
 * then re-assigns, as the position is lost). */
static void stash_add(ksrc *k, rd_kafka_message_t *m)
{
	if (k->nstash == k->cstash) {
		int cap = k->cstash ? 2 * k->cstash : 1024;
		rd_kafka_message_t **v =
		    realloc(k->stash, (size_t)cap * sizeof *v);
		if (v == NULL) {
			rd_kafka_message_destroy(m);
			k->stash_lost = true;
			return;
		}
		k->stash = v;
		k->cstash = cap;
	}
	k->stash[k->nstash++] = m;
}

/* Whether the consumer is assigned exactly w's partitions, each about to
 * deliver w[i].from. */
static bool still_assigned(const ksrc *k, const want *w, int nw)
{
	if (k->stash_lost || k->asg.n != nw)
		return false;
	for (int i = 0; i < nw; i++) {
		int j =
		    sl_kafka_tpmap_find(&k->asg, w[i].topic, w[i].partition);
		if (j < 0 || k->asg.v[j].offset != w[i].from)
			return false;
	}
	return true;
}

static void unassign(ksrc *k)
{
	rd_kafka_assign(k->rk, NULL);
	sl_kafka_tpmap_release(&k->asg);
	sl_kafka_tpmap_init(&k->asg);
	sl_kafka_src_stash_clear(k);
	k->stash_lost = false;
}

/* Planning found nothing new past the assigned positions (hi: the ends
 * now): the query is idle, so stop fetching (an idle consumer would poll
 * the brokers every fetch.wait.max.ms); the next read assigns again. */
void sl_kafka_src_idle(ksrc *k, const sl_kafka_tpmap *hi)
{
	if (k->asg.n == 0 || k->nstash > 0)
		return;
	for (int i = 0; i < k->asg.n; i++) {
		const sl_kafka_tp *t = &k->asg.v[i];
		int j = sl_kafka_tpmap_find(hi, t->topic, t->partition);
		if (j >= 0 && hi->v[j].offset > t->offset)
			return; /* data waiting: keep fetching it */
	}
	unassign(k);
}

/* A read in progress. */
typedef struct pollst {
	want *w;
	int nw, left, hint, rc;
	const rd_kafka_topic_t *rkt; /* the topic of w[hint] */
	rowbuf *rb;
	int64_t remaining;
	sl_batch_list *out;
} pollst;

/* A record of a partition being read, in [pos, until): a row. */
static void take_row(pollst *p, want *w, const rd_kafka_message_t *m,
		     sl_err *err)
{
	rowbuf *rb = p->rb;
	if (rb->c[0] == NULL &&
	    rb_open(rb, p->remaining < CHUNK ? p->remaining : CHUNK))
		p->rc = sl_err_nomem(err);
	else if (rb_add(rb, m, w->topic, &w->tcache) != 0)
		p->rc = sl_err_nomem(err);
	w->pos = m->offset + 1;
	p->remaining--;
	if (p->rc == 0 && rb->n == rb->cap) {
		if (rb_flush(rb, p->out) != 0)
			p->rc = sl_err_nomem(err);
		for (int x = 0; x < p->nw; x++)
			p->w[x].tcache = NULL;
	}
}

/* One message from the queue (or the stash): consumed, kept or dropped. */
static void one_msg(ksrc *k, pollst *p, rd_kafka_message_t *m, sl_err *err)
{
	const char *tn = m->rkt ? rd_kafka_topic_name(m->rkt) : NULL;
	int i;
	want *w;
	if (m->rkt != NULL && m->rkt == p->rkt &&
	    m->partition == p->w[p->hint].partition)
		i = p->hint; /* the same partition as the last record */
	else
		i = tn ? find_want(p->w, p->nw, tn, m->partition, p->hint) : -1;
	if (p->rc != 0 || i < 0) {
		rd_kafka_message_destroy(m); /* stale */
		return;
	}
	p->hint = i;
	p->rkt = m->rkt;
	w = &p->w[i];
	if (!m->err && m->offset >= w->until) {
		stash_add(k, m); /* the next batch's */
		return;
	}
	if (w->done) {
		/* already complete */
	} else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
		if (m->offset >= w->until) {
			w->done = true;
			p->left--;
		}
	} else if (m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
		   m->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
		p->rc =
		    sl_err_set(err, SL_EDATA,
			       "data loss: wanted offsets [%lld, %lld) of "
			       "topic '%s' partition %d, but they are out "
			       "of range: %s",
			       (long long)w->pos, (long long)w->until, w->topic,
			       (int)w->partition, rd_kafka_message_errstr(m));
	} else if (m->err) {
		sl_kafka_src_note(k, "kafka source: %s [%d]: %s", tn,
				  (int)m->partition,
				  rd_kafka_message_errstr(m));
	} else if (m->offset >= w->pos) {
		take_row(p, w, m, err);
		if (w->pos >= w->until) {
			w->done = true;
			p->left--;
		}
	}
	rd_kafka_message_destroy(m);
}

static void poll_timeout(ksrc *k, const pollst *p, sl_err *err)
{
	for (int i = 0; i < p->nw; i++) {
		const want *w = &p->w[i];
		if (!w->done)
			sl_err_set(
			    err, SL_EIO,
			    "kafka: timed out after %lld ms reading "
			    "topic '%s' partition %d: got offsets [%lld, "
			    "%lld) of [%lld, %lld)",
			    (long long)k->conf.poll_timeout_ms, w->topic,
			    (int)w->partition, (long long)w->from,
			    (long long)w->pos, (long long)w->from,
			    (long long)w->until);
	}
}

/* Read until every partition reached its end: the stash first, then the
 * queue; rows into rb / out. */
static int poll_all(ksrc *k, want *w, int nw, rowbuf *rb, int64_t total,
		    sl_batch_list *out, sl_err *err)
{
	rd_kafka_message_t *msgs[1024], **old = k->stash;
	int nold = k->nstash;
	pollst p = { w, nw, nw, -1, 0, NULL, rb, total, out };
	int64_t t0 = sl_clock_monotonic_us();
	k->stash = NULL;
	k->nstash = k->cstash = 0;
	for (int j = 0; j < nold; j++)
		one_msg(k, &p, old[j], err);
	free(old);
	while (p.left > 0 && p.rc == 0) {
		/* Non-blocking batch (a timeout would wait for a full one),
		 * then block for a single record when nothing is queued. */
		ssize_t n = rd_kafka_consume_batch_queue(k->q, 0, msgs, 1024);
		if (n == 0 && (msgs[0] = rd_kafka_consume_queue(k->q, 100)))
			n = 1;
		if (sl_clock_monotonic_us() - t0 >
		    k->conf.poll_timeout_ms * 1000) {
			poll_timeout(k, &p, err);
			p.rc = SL_EIO;
		}
		for (ssize_t j = 0; j < n; j++)
			one_msg(k, &p, msgs[j], err);
	}
	if (p.rc == 0 && rb_flush(rb, out) != 0)
		p.rc = sl_err_nomem(err);
	return p.rc;
}

/* Assign w's partitions at their start offsets, unless the consumer is
 * there already. */
static int assign(ksrc *k, const want *w, int nw, sl_err *err)
{
	rd_kafka_topic_partition_list_t *l;
	int rc = 0;
	if (still_assigned(k, w, nw))
		return 0;
	unassign(k);
	l = rd_kafka_topic_partition_list_new(nw);
	for (int i = 0; i < nw; i++)
		rd_kafka_topic_partition_list_add(l, w[i].topic, w[i].partition)
		    ->offset = w[i].from;
	if (rd_kafka_assign(k->rk, l) != 0)
		rc = sl_err_set(err, SL_EIO, "kafka: cannot assign partitions");
	rd_kafka_topic_partition_list_destroy(l);
	return rc;
}

int sl_kafka_src_read(sl_source *s, const char *start, const char *end,
		      sl_batch_list *out, sl_err *err)
{
	ksrc *k = s->impl;
	sl_kafka_tpmap from, until;
	rowbuf rb;
	want *w = NULL;
	int nw = 0, rc;
	int64_t total = 0;
	memset(&rb, 0, sizeof rb);
	rb.schema = s->schema;
	rb.headers = k->conf.headers;
	sl_kafka_tpmap_init(&from);
	sl_kafka_tpmap_init(&until);
	if ((rc = sl_kafka_src_consumer(k, err)) != 0 ||
	    (rc = sl_kafka_src_from(k, start, &from, err)) != 0 ||
	    (rc = sl_kafka_tpmap_parse(&until, end, false, "kafka offset",
				       err)) != 0)
		goto out;
	w = calloc((size_t)until.n + 1, sizeof *w);
	if (w == NULL) {
		rc = sl_err_nomem(err);
		goto out;
	}
	if ((rc = plan_read(k, &from, &until, w, &nw, err)) != 0 || nw == 0)
		goto out;
	for (int i = 0; i < nw; i++)
		total += w[i].until - w[i].from;
	if ((rc = assign(k, w, nw, err)) != 0)
		goto out;
	rc = poll_all(k, w, nw, &rb, total, out, err);
	/* stay assigned, positioned at the ends just read */
	sl_kafka_tpmap_release(&k->asg);
	sl_kafka_tpmap_init(&k->asg);
	for (int i = 0; i < nw && rc == 0; i++)
		if (sl_kafka_tpmap_put(&k->asg, w[i].topic, w[i].partition,
				       w[i].until) != 0)
			rc = sl_err_nomem(err);
out:
	if (rc != 0 && k->rk != NULL)
		unassign(k);
	sl_kafka_src_drain(k);
	rb_release(&rb);
	free(w);
	sl_kafka_tpmap_release(&from);
	sl_kafka_tpmap_release(&until);
	return rc;
}
