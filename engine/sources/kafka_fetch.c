/*
 * kafka_fetch: the Kafka source's fetcher thread (issue 18 item 7).
 *
 * librdkafka fetches ahead on its own broker threads, but every record it
 * hands over still costs the consuming thread a pop (a lock per record), a
 * rd_kafka_message_destroy (a free of memory another thread allocated,
 * contended with the broker thread that is still allocating the rest of
 * the fetch) and the copy into column arrays: about 100-250 ns a record,
 * measured at W3 as 4-10 ms of every 40 000-record batch, more than the
 * from_json and the aggregation after it.  So one thread per source does
 * that work while records arrive (between triggers and during the previous
 * batch's operators), as Flink's split fetcher hands records to its task
 * thread, and a read takes chunks of rows that are ready.  What a batch
 * reads does not change: kafka_read.c still takes exactly the offsets
 * [from, until) it planned, in each partition's order; only where the
 * conversion runs does.
 *
 * The thread owns nothing the engine shares: it fills kchunk's raw columns
 * (primitive types only, whose counts never change) and its own arena;
 * the main thread makes them batches (kfetch_take), so no reference count
 * of a schema or column is touched from two threads.  Everything between
 * the two sits under one mutex: the published chunks, the partitions' end
 * events, the first offset-out-of-range error, the lost flag.  A pop from
 * librdkafka's queue happens with the mutex held, so kfetch_assign (which
 * holds it too) drops everything popped under the old assignment and
 * nothing popped under the new one; librdkafka itself discards records of
 * an outdated assignment (its op versions).
 *
 * Bounded: the thread stops popping at FETCH_MAX_ROWS rows not yet taken
 * (librdkafka's own limits, queued.min.messages and
 * queued.max.messages.kbytes, then hold the rest).  It sleeps in poll() on
 * a pipe that librdkafka writes when its queue becomes non-empty
 * (rd_kafka_queue_io_event_enable) and that kfetch_take/assign/stop write
 * to wake it; no busy wait.  Out of memory while converting drops the
 * record and sets lost, so the next read re-assigns (the position is gone).
 *
 * Never prints; errors of a partition go to the log ring (thread safe).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sources/kafka_src.h"
#include "sources/source_int.h"

#define CHUNK          8192   /* rows per chunk */
#define POP            1024   /* records per pop */
#define FETCH_MAX_ROWS 262144 /* converted, not yet taken */
#define IDLE_MS        200    /* a sleeping thread looks again anyway */

/* ---- rows straight into column arrays ---- */

typedef struct kchunk {
	struct kchunk *next;
	sl_col *c[7];
	int64_t n, cap;
	/* headers of the chunk, built into an ARRAY column by the taker */
	int32_t *hoff;
	sl_arena *harena;
	sl_str *hk, *hv;
	uint8_t *hvnull;
	int64_t nh, hcap;
	/* the topic's bytes in c[2]'s arena, per librdkafka topic */
	const rd_kafka_topic_t *trkt[4];
	const char *tbytes[4];
	uint32_t tlen[4];
	int ntopic;
} kchunk;

struct kfetch {
	pthread_t thr;
	bool running;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* published: seq moved */
	int wake[2];       /* [0] polled by the thread, [1] written */
	rd_kafka_queue_t *q;
	sl_type *schema; /* borrowed; its first 7 fields are primitives */
	bool headers;
	/* under mu */
	bool stop, lost, full;
	bool waiting; /* a read waits for rows: publish what there is */
	uint64_t seq; /* moves when something is published */
	kchunk *head, *tail, *cur;
	int64_t rows;
	sl_kafka_tpmap eof;
	bool has_err;
	char err_topic[256];
	int32_t err_part;
	char err_msg[256];
};

static void chunk_free(kchunk *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < 7; i++)
		sl_col_free(c->c[i]);
	free(c->hoff);
	sl_arena_free(c->harena);
	free(c->hk);
	free(c->hv);
	free(c->hvnull);
	free(c);
}

static kchunk *chunk_new(const kfetch *f)
{
	kchunk *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->cap = CHUNK;
	/* chunk_add writes every slot of every row */
	for (int i = 0; i < 7; i++)
		if ((c->c[i] = sl_col_new_raw(f->schema->fields[i].type,
					      c->cap)) == NULL)
			goto fail;
	if (f->headers) {
		c->hoff = calloc((size_t)c->cap + 1, sizeof *c->hoff);
		c->harena = sl_arena_new();
		if (c->hoff == NULL || c->harena == NULL)
			goto fail;
	}
	return c;
fail:
	chunk_free(c);
	return NULL;
}

static int chunk_header(kchunk *r, const char *name, const void *v,
			size_t len)
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

/* The value of row i: its bytes and a '\n' after them (not counted in
 * len), so that a chunk's values lie back to back as lines and from_json
 * scans them in place, without copying each into a buffer of lines
 * (json.c, sl_json_decode_col).  Column strings need no NUL after them
 * (the JSON reader's point into its text: json.c). */
static int value_at(sl_col *c, int64_t i, const void *p, size_t n)
{
	char *d;
	if (p == NULL)
		return bytes_at(c, i, NULL, 0);
	if (c->arena == NULL && (c->arena = sl_arena_new()) == NULL)
		return SL_ENOMEM;
	if ((d = sl_arena_alloc(c->arena, n + 1)) == NULL)
		return SL_ENOMEM;
	if (n > 0)
		memcpy(d, p, n);
	d[n] = '\n';
	sl_col_str(c)[i].p = d;
	sl_col_str(c)[i].len = (uint32_t)n;
	return 0;
}

/* The topic column of row i: one copy per topic and chunk. */
static int topic_at(kchunk *r, int64_t i, const rd_kafka_message_t *m)
{
	sl_str *s = &sl_col_str(r->c[2])[i];
	const char *name;
	for (int t = 0; t < r->ntopic; t++)
		if (r->trkt[t] == m->rkt) {
			s->p = r->tbytes[t];
			s->len = r->tlen[t];
			return 0;
		}
	name = rd_kafka_topic_name(m->rkt);
	if (sl_col_set_str(r->c[2], i, name, strlen(name)) != 0)
		return SL_ENOMEM;
	if (r->ntopic < 4) {
		r->trkt[r->ntopic] = m->rkt;
		r->tbytes[r->ntopic] = s->p;
		r->tlen[r->ntopic++] = s->len;
	}
	return 0;
}

/* One record into row r->n (every slot written: the columns are raw). */
static int chunk_add(kchunk *r, const rd_kafka_message_t *m, bool headers)
{
	int64_t i = r->n;
	rd_kafka_timestamp_type_t tt;
	int64_t ts = rd_kafka_message_timestamp(m, &tt);
	if (bytes_at(r->c[0], i, m->key, m->key_len) != 0 ||
	    value_at(r->c[1], i, m->payload, m->len) != 0 ||
	    topic_at(r, i, m) != 0)
		return SL_ENOMEM;
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
	if (headers) {
		rd_kafka_headers_t *h = NULL;
		if (rd_kafka_message_headers(m, &h) == 0 && h != NULL) {
			const char *name;
			const void *v;
			size_t len;
			for (size_t j = 0; rd_kafka_header_get_all(
					       h, j, &name, &v, &len) == 0;
			     j++)
				if (chunk_header(r, name, v, len) != 0)
					return SL_ENOMEM;
		}
		r->hoff[i + 1] = (int32_t)r->nh;
	}
	r->n++;
	return 0;
}

/* ---- the thread (f->mu held unless said) ---- */

static void wake(kfetch *f)
{
	ssize_t w = write(f->wake[1], "w", 1);
	(void)w; /* full pipe: a wakeup is pending already */
}

static void publish(kfetch *f)
{
	kchunk *c = f->cur;
	if (c == NULL || c->n == 0)
		return;
	f->cur = NULL;
	if (f->tail != NULL)
		f->tail->next = c;
	else
		f->head = c;
	f->tail = c;
	f->rows += c->n;
	f->seq++;
}

/* One message: a row, an end of partition, an error or a log line. */
static void one(kfetch *f, const rd_kafka_message_t *m)
{
	const char *tn = m->rkt ? rd_kafka_topic_name(m->rkt) : NULL;
	if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
		int j;
		if (tn == NULL)
			return;
		publish(f); /* the rows before the end go first */
		j = sl_kafka_tpmap_find(&f->eof, tn, m->partition);
		if ((j < 0 || f->eof.v[j].offset < m->offset) &&
		    sl_kafka_tpmap_put(&f->eof, tn, m->partition, m->offset))
			f->lost = true;
		f->seq++;
		return;
	}
	if (m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
	    m->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
		if (tn != NULL && !f->has_err) {
			f->has_err = true;
			snprintf(f->err_topic, sizeof f->err_topic, "%s", tn);
			f->err_part = m->partition;
			snprintf(f->err_msg, sizeof f->err_msg, "%s",
				 rd_kafka_message_errstr(m));
			f->seq++;
		}
		return;
	}
	if (m->err) {
		if (tn != NULL)
			sl_kafka_log_add("kafka source: %s [%d]: %s", tn,
					 (int)m->partition,
					 rd_kafka_message_errstr(m));
		return;
	}
	if (f->cur == NULL && (f->cur = chunk_new(f)) == NULL) {
		f->lost = true;
		return;
	}
	if (chunk_add(f->cur, m, f->headers) != 0) {
		f->lost = true; /* this record's slot is garbage: drop it */
		return;
	}
	if (f->cur->n == f->cur->cap)
		publish(f);
}

static void *fetch_main(void *arg)
{
	kfetch *f = arg;
	rd_kafka_message_t *msgs[POP];
	pthread_mutex_lock(&f->mu);
	while (!f->stop) {
		ssize_t n = 0;
		uint64_t seq = f->seq;
		f->full = f->rows >= FETCH_MAX_ROWS;
		if (!f->full)
			n = rd_kafka_consume_batch_queue(f->q, 0, msgs, POP);
		for (ssize_t i = 0; i < n; i++)
			one(f, msgs[i]);
		/* the queue ran dry, or a read waits: hand over the rest */
		if (n < POP || f->waiting)
			publish(f);
		if (f->seq != seq)
			pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
		/* the frees, off the lock the reader waits on */
		for (ssize_t i = 0; i < n; i++)
			rd_kafka_message_destroy(msgs[i]);
		if (n < POP) {
			struct pollfd p = { f->wake[0], POLLIN, 0 };
			char buf[64];
			if (poll(&p, 1, IDLE_MS) > 0)
				while (read(f->wake[0], buf, sizeof buf) > 0)
					;
		}
		pthread_mutex_lock(&f->mu);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

/* ---- the main thread's side ---- */

int sl_kafka_fetch_start(ksrc *k, sl_err *err)
{
	kfetch *f = calloc(1, sizeof *f);
	if (f == NULL)
		return sl_err_nomem(err);
	f->q = k->q;
	f->schema = k->self->schema;
	f->headers = k->conf.headers;
	sl_kafka_tpmap_init(&f->eof);
	if (pipe(f->wake) != 0) {
		free(f);
		return sl_err_set(err, SL_EIO, "kafka: cannot make a pipe: %s",
				  strerror(errno));
	}
	for (int i = 0; i < 2; i++)
		fcntl(f->wake[i], F_SETFL,
		      fcntl(f->wake[i], F_GETFL) | O_NONBLOCK);
	pthread_mutex_init(&f->mu, NULL);
	{
		pthread_condattr_t a;
		pthread_condattr_init(&a);
		pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		pthread_cond_init(&f->cv, &a);
		pthread_condattr_destroy(&a);
	}
	rd_kafka_queue_io_event_enable(f->q, f->wake[1], "q", 1);
	if (pthread_create(&f->thr, NULL, fetch_main, f) != 0) {
		rd_kafka_queue_io_event_enable(f->q, -1, NULL, 0);
		close(f->wake[0]);
		close(f->wake[1]);
		pthread_mutex_destroy(&f->mu);
		pthread_cond_destroy(&f->cv);
		free(f);
		return sl_err_set(err, SL_EIO,
				  "kafka: cannot start the fetcher thread");
	}
	f->running = true;
	k->f = f;
	return 0;
}

/* Everything converted and not taken, dropped (f->mu held). */
static void drop_all(kfetch *f)
{
	while (f->head != NULL) {
		kchunk *c = f->head;
		f->head = c->next;
		chunk_free(c);
	}
	f->tail = NULL;
	chunk_free(f->cur);
	f->cur = NULL;
	f->rows = 0;
	sl_kafka_tpmap_release(&f->eof);
	sl_kafka_tpmap_init(&f->eof);
	f->has_err = false;
	f->lost = false;
}

void sl_kafka_fetch_stop(ksrc *k)
{
	kfetch *f = k->f;
	if (f == NULL)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = true;
	pthread_mutex_unlock(&f->mu);
	wake(f);
	pthread_join(f->thr, NULL);
	rd_kafka_queue_io_event_enable(f->q, -1, NULL, 0);
	drop_all(f);
	close(f->wake[0]);
	close(f->wake[1]);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f);
	k->f = NULL;
}

int sl_kafka_fetch_assign(ksrc *k, const rd_kafka_topic_partition_list_t *l)
{
	kfetch *f = k->f;
	rd_kafka_resp_err_t e;
	pthread_mutex_lock(&f->mu);
	e = rd_kafka_assign(k->rk, l);
	drop_all(f);
	pthread_mutex_unlock(&f->mu);
	wake(f);
	return e ? SL_EIO : 0;
}

bool sl_kafka_fetch_lost(ksrc *k)
{
	bool lost;
	pthread_mutex_lock(&k->f->mu);
	lost = k->f->lost;
	pthread_mutex_unlock(&k->f->mu);
	return lost;
}

bool sl_kafka_fetch_empty(ksrc *k)
{
	bool empty;
	pthread_mutex_lock(&k->f->mu);
	empty = k->f->rows == 0 && k->f->cur == NULL;
	pthread_mutex_unlock(&k->f->mu);
	return empty;
}

/* A chunk as a batch (the headers' ARRAY column built here, on the main
 * thread); frees the chunk. */
static sl_batch *chunk_batch(const ksrc *k, kchunk *r, sl_err *err)
{
	sl_col *cols[8] = { 0 };
	sl_type *sch = k->self->schema;
	for (int i = 0; i < 7; i++) {
		r->c[i]->len = r->n; /* private columns: trim to the rows */
		cols[i] = r->c[i];
		r->c[i] = NULL;
	}
	if (k->conf.headers) {
		sl_type *at = sch->fields[7].type;
		sl_col *el = sl_col_new(at->elem, r->nh);
		bool oom = el == NULL;
		for (int64_t j = 0; !oom && j < r->nh; j++)
			oom = sl_col_set_str(el->child[0], j, r->hk[j].p,
					     r->hk[j].len) != 0 ||
			      (r->hvnull[j]
				   ? sl_col_set_null(el->child[1], j)
				   : sl_col_set_str(el->child[1], j, r->hv[j].p,
						    r->hv[j].len)) != 0;
		if (!oom) {
			cols[7] = sl_col_array_new(at, r->n, r->hoff, el);
			oom = cols[7] == NULL;
		} else {
			sl_col_free(el);
		}
		if (oom) {
			for (int i = 0; i < 7; i++)
				sl_col_free(cols[i]);
			chunk_free(r);
			sl_err_nomem(err);
			return NULL;
		}
	}
	chunk_free(r);
	{
		int64_t n = cols[4]->len;
		sl_batch *b = sl_batch_new(sch, n, cols);
		if (b == NULL)
			sl_err_nomem(err);
		return b;
	}
}

int sl_kafka_fetch_take(ksrc *k, int wait_ms, sl_batch_list *out,
			sl_kafka_tpmap *eof, kfetch_err *fe, sl_err *err)
{
	kfetch *f = k->f;
	kchunk *c;
	int rc = 0;
	pthread_mutex_lock(&f->mu);
	if (f->head == NULL && !f->has_err && wait_ms > 0) {
		/* cv runs on CLOCK_MONOTONIC, sl_clock_monotonic_us's clock */
		int64_t until = sl_clock_monotonic_us() + (int64_t)wait_ms * 1000;
		struct timespec ts = { (time_t)(until / 1000000),
				       (long)(until % 1000000) * 1000L };
		uint64_t seq = f->seq;
		f->waiting = true;
		if (f->cur != NULL)
			wake(f); /* it holds a partial chunk: hand it over */
		while (f->seq == seq && !f->stop &&
		       pthread_cond_timedwait(&f->cv, &f->mu, &ts) == 0)
			;
		f->waiting = false;
	}
	c = f->head;
	f->head = f->tail = NULL;
	if (f->full && f->rows > 0)
		wake(f); /* room again */
	f->rows = 0;
	if (sl_kafka_tpmap_copy(eof, &f->eof) != 0)
		rc = sl_err_nomem(err);
	fe->set = f->has_err;
	if (fe->set) {
		snprintf(fe->topic, sizeof fe->topic, "%s", f->err_topic);
		fe->partition = f->err_part;
		snprintf(fe->msg, sizeof fe->msg, "%s", f->err_msg);
	}
	pthread_mutex_unlock(&f->mu);
	while (c != NULL) {
		kchunk *next = c->next;
		sl_batch *b = rc == 0 ? chunk_batch(k, c, err) : NULL;
		if (b == NULL) {
			if (rc == 0)
				rc = SL_ENOMEM;
			else
				chunk_free(c);
		} else if (sl_batch_list_add(out, b) != 0 && rc == 0) {
			rc = sl_err_nomem(err);
		}
		c = next;
	}
	return rc;
}
