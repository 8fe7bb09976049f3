/*
 * kafka_ahead: a trigger's two planning round trips, overlapped (issue 18
 * item 7).
 *
 * Planning a Kafka batch asks the cluster twice, one after the other: the
 * metadata (which partitions the subscription covers, their leaders:
 * Spark's describeTopics), then each leader's end offsets (ListOffsets).
 * On the embedded cluster under load each round trip is four thread
 * hand-overs (ours -> the client's broker thread -> the mock's -> back),
 * 0.2-0.4 ms at the median and 3-30 ms at the tail (W3, load 6-8, two
 * cores).  The partitions and leaders rarely change between triggers, so
 * the ends of the ones the last planning saw are asked of their last
 * leaders on a thread while the metadata is asked; when the metadata then
 * shows the same partitions with the same leaders the answer is the one
 * the second round trip would give (asked of the same brokers, after the
 * trigger began), and it is taken; otherwise it is dropped and the ends
 * are asked again as before.  What a batch plans does not change.
 *
 * The thread touches nothing of the source but the metadata handle (mk,
 * thread safe): it works on its own copies of the partitions and leaders.
 * Never prints.
 */
#include <stdlib.h>

#include "sources/kafka_src.h"

static void *ahead_main(void *arg)
{
	kahead *a = arg;
	a->rc = sl_kafka_src_ask(a->mk, &a->parts, &a->lead, NULL, &a->hi);
	return NULL;
}

static void release(kahead *a)
{
	sl_kafka_tpmap_release(&a->parts);
	sl_kafka_tpmap_release(&a->lead);
	sl_kafka_tpmap_release(&a->hi);
	a->on = false;
}

void sl_kafka_ahead_start(ksrc *k, kahead *a)
{
	bool ok = k->conf.strategy != ST_ASSIGN && k->have_initial &&
		  k->known.n > 0 && k->mk != NULL;
	a->on = false;
	a->mk = k->mk;
	a->rc = 0;
	sl_kafka_tpmap_init(&a->parts);
	sl_kafka_tpmap_init(&a->lead);
	sl_kafka_tpmap_init(&a->hi);
	for (int i = 0; ok && i < k->known.n; i++) {
		const sl_kafka_tp *t = &k->known.v[i];
		int j = sl_kafka_tpmap_find(&k->lead, t->topic, t->partition);
		ok = j >= 0 && k->lead.v[j].offset >= 0 &&
		     sl_kafka_tpmap_put(&a->parts, t->topic, t->partition,
					-2) == 0 &&
		     sl_kafka_tpmap_put(&a->lead, t->topic, t->partition,
					k->lead.v[j].offset) == 0;
	}
	if (ok && pthread_create(&a->thr, NULL, ahead_main, a) == 0) {
		a->on = true;
		return;
	}
	release(a);
}

bool sl_kafka_ahead_take(ksrc *k, kahead *a, const sl_kafka_tpmap *parts,
			 sl_kafka_tpmap *hi)
{
	bool same;
	if (!a->on)
		return false;
	pthread_join(a->thr, NULL);
	same = a->rc == 0 && parts->n == a->parts.n;
	for (int i = 0; same && i < parts->n; i++) {
		const sl_kafka_tp *t = &parts->v[i];
		int j = sl_kafka_tpmap_find(&a->lead, t->topic, t->partition);
		int l = sl_kafka_tpmap_find(&k->lead, t->topic, t->partition);
		same = j >= 0 && l >= 0 &&
		       a->lead.v[j].offset == k->lead.v[l].offset;
	}
	if (same) {
		sl_kafka_tpmap_release(hi);
		*hi = a->hi;
		sl_kafka_tpmap_init(&a->hi);
	}
	release(a);
	return same;
}
