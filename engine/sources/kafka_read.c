/*
 * kafka_read: the Kafka source's reads (kafka_source.c plans them).  A
 * batch reads (start, end], i.e. the Kafka offsets [start[p], end[p]) of
 * every partition p, and nothing else: rows past a partition's end are
 * kept for the next batch, rows before its start dropped.  The records
 * become rows on the fetcher thread (kafka_fetch.c) as they arrive; a
 * read takes its rows from there, chunk by chunk, and hands each chunk to
 * the operators at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/kafka_src.h"
#include "sources/source_int.h"

/* One partition's part of a read. */
typedef struct want {
	const char *topic; /* borrowed from the end map */
	int32_t partition;
	int64_t from, pos, until; /* read [from, until); pos = next */
	bool done;
} want;

static int plan_moving(ksrc *k, const sl_kafka_tpmap *from,
		       const sl_kafka_tpmap *until, const sl_kafka_tpmap *los,
		       want *w, int *nw, sl_err *err);

/* The log start of a partition the consumer is still assigned at from,
 * as its last fetch reported it (no round trip): -1 when unknown.  Only
 * with failOnDataLoss=true, where a start that moved past from since then
 * fails the read as planning would (the fetch answers out of range); rows
 * fetched before the start moved are read, as Spark's consumer reads what
 * it fetched. */
static int64_t cached_low(ksrc *k, const sl_kafka_tp *t, int64_t from)
{
	int64_t lo = -1, hi = -1;
	int j = sl_kafka_tpmap_find(&k->asg, t->topic, t->partition);
	if (!k->conf.fail_on_loss || j < 0 || k->asg.v[j].offset != from ||
	    rd_kafka_get_watermark_offsets(k->rk, t->topic, t->partition, &lo,
					   &hi) != 0 ||
	    lo < 0)
		return -1;
	if (sl_kafka_is_embedded(k->conf.servers)) {
		int64_t f = sl_kafka_retention_floor(t->topic, t->partition);
		if (f > lo)
			lo = f; /* the simulated retention, as wmarks applies */
	}
	return lo;
}

/* Plan the partitions of (start, end]: check retention, apply
 * failOnDataLoss.  Fills w (one per moving partition) and *nw. */
static int plan_read(ksrc *k, const sl_kafka_tpmap *from,
		     const sl_kafka_tpmap *until, want *w, int *nw, sl_err *err)
{
	sl_kafka_tpmap moving, los;
	int rc = 0;
	*nw = 0;
	sl_kafka_tpmap_init(&moving);
	sl_kafka_tpmap_init(&los);
	/* the partitions that may move; the log start of those the consumer
	 * goes on reading is known already */
	for (int i = 0; i < until->n && rc == 0; i++) {
		const sl_kafka_tp *t = &until->v[i];
		int j = sl_kafka_tpmap_find(from, t->topic, t->partition);
		int64_t lo;
		if (j >= 0 && t->offset <= from->v[j].offset)
			continue;
		lo = j >= 0 ? cached_low(k, t, from->v[j].offset) : -1;
		if ((lo >= 0 ? sl_kafka_tpmap_put(&los, t->topic, t->partition,
						  lo)
			     : sl_kafka_tpmap_put(&moving, t->topic,
						  t->partition, 0)) != 0)
			rc = sl_err_nomem(err);
	}
	/* low watermarks of the rest (the data-loss check), first from the
	 * leaders the planning just saw; asked afresh if one did not answer */
	if (rc == 0 && moving.n > 0) {
		int had = los.n;
		rc = sl_kafka_src_wmarks(k, &moving, &los, NULL, true, err);
		if (rc == 0 && los.n - had < moving.n)
			rc = sl_kafka_src_wmarks(k, &moving, &los, NULL, false,
						 err);
	}
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
		w[*nw].done = false;
		(*nw)++;
	}
	return 0;
}

static int find_want(want *w, int nw, const char *topic, uint32_t tlen,
		     int32_t p, int hint)
{
	if (hint >= 0 && hint < nw && w[hint].partition == p &&
	    strlen(w[hint].topic) == tlen &&
	    memcmp(w[hint].topic, topic, tlen) == 0)
		return hint;
	for (int i = 0; i < nw; i++)
		if (w[i].partition == p && strlen(w[i].topic) == tlen &&
		    memcmp(w[i].topic, topic, tlen) == 0)
			return i;
	return -1;
}

/* ---- the consumer between batches ----
 *
 * After a read the consumer stays assigned, so librdkafka goes on
 * fetching from each partition's end offset, and the fetcher thread goes
 * on turning what arrives into rows, while the engine processes (Spark's
 * cached KafkaDataConsumer keeps its position the same way): the next
 * batch, which starts exactly there, finds its rows ready instead of
 * paying an assign, a first fetch and the conversion.  Rows taken past a
 * partition's end wait in k->ready for the next read.  Any other start (a
 * restart, a replay, data loss skipped, a partition set that changed)
 * re-assigns at the planned offsets and drops everything kept, so a batch
 * still reads exactly [from, until) of every partition. */

void sl_kafka_src_stash_clear(ksrc *k)
{
	sl_batch_list_release(&k->ready);
	sl_batch_list_init(&k->ready);
}

/* Whether the consumer is assigned exactly w's partitions, each about to
 * deliver w[i].from. */
static bool still_assigned(ksrc *k, const want *w, int nw)
{
	if (k->asg.n != nw || sl_kafka_fetch_lost(k))
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
	if (k->f != NULL)
		sl_kafka_fetch_assign(k, NULL);
	sl_kafka_tpmap_release(&k->asg);
	sl_kafka_tpmap_init(&k->asg);
	sl_kafka_src_stash_clear(k);
}

/* Planning found nothing new past the assigned positions (hi: the ends
 * now): the query is idle, so stop fetching (an idle consumer would poll
 * the brokers every fetch.wait.max.ms); the next read assigns again. */
void sl_kafka_src_idle(ksrc *k, const sl_kafka_tpmap *hi)
{
	if (k->asg.n == 0 || k->ready.n > 0 ||
	    (k->f != NULL && !sl_kafka_fetch_empty(k)))
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
	int nw, left, hint;
	/* the last row's topic bytes and partition, and its want (-1: none):
	 * a chunk's rows of one topic share its bytes (kafka_fetch.c), so
	 * most rows match by pointer, without a compare of the name */
	const char *lastp;
	int32_t lastpart;
	int last;
	sl_batch_list *out;  /* the operators' pipe */
	sl_batch_list *keep; /* rows of later batches */
	uint8_t *take, *later;
	int64_t cap;
} pollst;

/* The common chunk: rows of one partition (by the topic bytes they
 * share), in offset order, every one of them this batch's ([pos, until)
 * of its want): then the loop below would take each; here one compare
 * loop and the want's bookkeeping once. */
static bool take_all(pollst *p, const sl_batch *b)
{
	const sl_str *tp = sl_col_str(b->cols[2]);
	const int32_t *part = sl_col_i32(b->cols[3]);
	const int64_t *off = sl_col_i64(b->cols[4]);
	int64_t n = b->nrows, r;
	want *w;
	int i;
	if (n == 0 || tp[0].p == NULL)
		return false;
	for (r = 1; r < n; r++)
		if (tp[r].p != tp[0].p || part[r] != part[0] ||
		    off[r] <= off[r - 1])
			return false;
	i = find_want(p->w, p->nw, tp[0].p, tp[0].len, part[0], p->hint);
	if (i < 0)
		return false;
	w = &p->w[i];
	if (off[0] < w->pos || off[n - 1] >= w->until)
		return false;
	p->hint = i;
	w->pos = off[n - 1] + 1;
	if (w->pos >= w->until && !w->done) {
		w->done = true;
		p->left--;
	}
	return true;
}

/* The rows of chunk b: this batch's to the operators, later ones kept,
 * the rest (before a partition's position: already read) dropped.  Takes
 * b. */
static int take_chunk(pollst *p, sl_batch *b, sl_err *err)
{
	const sl_str *tp = sl_col_str(b->cols[2]);
	const int32_t *part = sl_col_i32(b->cols[3]);
	const int64_t *off = sl_col_i64(b->cols[4]);
	int64_t nt = 0, nl = 0, n = b->nrows;
	int rc = 0;
	if (take_all(p, b)) {
		nt = n;
		goto push;
	}
	if (n > p->cap) {
		int64_t cap = n > 2 * p->cap ? n : 2 * p->cap;
		uint8_t *t = realloc(p->take, (size_t)cap);
		if (t != NULL)
			p->take = t;
		uint8_t *l = realloc(p->later, (size_t)cap);
		if (l != NULL)
			p->later = l;
		if (t == NULL || l == NULL) {
			sl_batch_free(b);
			return sl_err_nomem(err);
		}
		p->cap = cap;
	}
	p->lastp = NULL;
	for (int64_t r = 0; r < n; r++) {
		int i;
		want *w;
		if (tp[r].p != p->lastp || part[r] != p->lastpart ||
		    tp[r].p == NULL) {
			p->last = find_want(p->w, p->nw, tp[r].p, tp[r].len,
					    part[r], p->hint);
			p->lastp = tp[r].p;
			p->lastpart = part[r];
		}
		i = p->last;
		w = i >= 0 ? &p->w[i] : NULL;
		p->take[r] = p->later[r] = 0;
		if (w == NULL)
			continue; /* not assigned for this batch: stale */
		p->hint = i;
		if (off[r] >= w->until) {
			p->later[r] = 1;
			nl++;
		} else if (off[r] >= w->pos) {
			p->take[r] = 1;
			nt++;
			w->pos = off[r] + 1;
			if (w->pos >= w->until && !w->done) {
				w->done = true;
				p->left--;
			}
		}
	}
	if (nl > 0) {
		sl_batch *k = nl == n ? sl_batch_ref(b)
				      : sl_batch_filter(b, p->later, nl);
		if (k == NULL || sl_batch_list_add(p->keep, k) != 0)
			rc = sl_err_nomem(err);
	}
push:
	if (rc == 0 && nt > 0) {
		sl_batch *t = nt == n ? sl_batch_ref(b)
				      : sl_batch_filter(b, p->take, nt);
		/* an operator's failure is the list's push_rc (the caller's) */
		if (t == NULL)
			rc = sl_err_nomem(err);
		else if (sl_batch_list_add(p->out, t) == SL_ENOMEM &&
			 p->out->push_rc == 0)
			rc = sl_err_nomem(err);
	}
	sl_batch_free(b);
	return rc;
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

/* The partitions whose end (eof) the fetcher saw at or past until: the
 * records below it are all taken, the rest are gaps (compaction,
 * transaction markers). */
static void ends_seen(pollst *p, const sl_kafka_tpmap *eof)
{
	for (int i = 0; i < p->nw; i++) {
		want *w = &p->w[i];
		int j = sl_kafka_tpmap_find(eof, w->topic, w->partition);
		if (!w->done && j >= 0 && eof->v[j].offset >= w->until) {
			w->done = true;
			p->left--;
		}
	}
}

/* A data-loss error of a partition still being read. */
static int out_of_range(const pollst *p, const kfetch_err *fe, sl_err *err)
{
	for (int i = 0; fe->set && i < p->nw; i++) {
		const want *w = &p->w[i];
		if (!w->done && w->partition == fe->partition &&
		    strcmp(w->topic, fe->topic) == 0)
			return sl_err_set(
			    err, SL_EDATA,
			    "data loss: wanted offsets [%lld, %lld) of "
			    "topic '%s' partition %d, but they are out "
			    "of range: %s",
			    (long long)w->pos, (long long)w->until, w->topic,
			    (int)w->partition, fe->msg);
	}
	return 0;
}

/* Read until every partition reached its end: the rows kept from the
 * last read first, then the fetcher's, each chunk to out as it comes. */
static int poll_all(ksrc *k, want *w, int nw, sl_batch_list *out,
		    sl_err *err)
{
	sl_batch_list keep, got;
	sl_kafka_tpmap eof;
	kfetch_err fe;
	pollst p = { w, nw, nw, -1, NULL, 0, -1, out, &keep, NULL, NULL, 0 };
	int64_t t0 = sl_clock_monotonic_us();
	int rc = 0, wait_ms = 0;
	memset(&fe, 0, sizeof fe);
	sl_batch_list_init(&keep);
	sl_kafka_tpmap_init(&eof);
	got = k->ready;
	sl_batch_list_init(&k->ready);
	for (;;) {
		for (int j = 0; j < got.n; j++) {
			sl_batch *b = got.b[j];
			got.b[j] = NULL;
			if (rc == 0 && out->push_rc == 0)
				rc = take_chunk(&p, b, err);
			else
				sl_batch_free(b);
		}
		sl_batch_list_release(&got);
		sl_batch_list_init(&got);
		if (rc != 0 || out->push_rc != 0 || p.left == 0)
			break;
		if ((rc = out_of_range(&p, &fe, err)) != 0)
			break;
		ends_seen(&p, &eof);
		if (p.left == 0)
			break;
		if (sl_clock_monotonic_us() - t0 >
		    k->conf.poll_timeout_ms * 1000) {
			poll_timeout(k, &p, err);
			rc = SL_EIO;
			break;
		}
		/* non-blocking first (the rows ready now), then wait */
		rc = sl_kafka_fetch_take(k, wait_ms, &got, &eof, &fe, err);
		wait_ms = got.n > 0 ? 0 : 100;
		if (rc != 0)
			break;
		sl_kafka_src_drain(k);
	}
	sl_batch_list_release(&got);
	if (rc == 0 && out->push_rc != 0)
		rc = out->push_rc;
	if (rc == 0)
		k->ready = keep;
	else
		sl_batch_list_release(&keep);
	sl_kafka_tpmap_release(&eof);
	free(p.take);
	free(p.later);
	return rc;
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
	if (sl_kafka_fetch_assign(k, l) != 0)
		rc = sl_err_set(err, SL_EIO, "kafka: cannot assign partitions");
	rd_kafka_topic_partition_list_destroy(l);
	return rc;
}

int sl_kafka_src_read(sl_source *s, const char *start, const char *end,
		      sl_batch_list *out, sl_err *err)
{
	ksrc *k = s->impl;
	sl_kafka_tpmap from, until;
	want *w = NULL;
	int nw = 0, rc;
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
	if ((rc = assign(k, w, nw, err)) != 0)
		goto out;
	rc = poll_all(k, w, nw, out, err);
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
	free(w);
	sl_kafka_tpmap_release(&from);
	sl_kafka_tpmap_release(&until);
	return rc;
}
