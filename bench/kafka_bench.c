/*
 * kafka_bench: W3 of ../shared/spec/BENCH.md (run by `make bench-engine`,
 * and by `make bench` for its raw consumer figure; not a test).  JSON
 * events (~74 B: {"ts":"2026-01-01 12:MM:SS","product_id":
 * "pNNN","amount":N}) through the embedded Kafka cluster (librdkafka's mock,
 * one partition) into W1's windowed aggregation, beside the raw librdkafka
 * consume rate measured in the same run on the same records:
 *   raw     one consumer assigned once and kept (it fetches ahead between
 *           rounds, as the engine's source does), consume_batch_queue of
 *           exactly the round's records + a hand scan of "amount" (sum)
 *   engine  the Kafka source -> from_json(CAST(value AS STRING)) ->
 *           groupBy(window(ts, 60 s), product_id).agg(count, sum), update
 *           mode, noop sink, one micro-batch per round
 * `kafka_bench raw` runs the raw consumer alone (what `make bench` compares
 * W3 with: no engine source in the process fetching the same records at
 * the same time on this 2-core machine).  The raw consumer's settings are
 * the Kafka source's on the embedded cluster (kafka_source.c client_new):
 * queued.min.messages 1000000, fetch.wait.max.ms 2,
 * max.partition.fetch.bytes 8 MiB; same config for both sides.
 * Rounds of 40 000 records (the mock trims a partition past 5 MiB, G1).
 * Only the reads are timed; producing is not.  One untimed warm-up round
 * first, read by both: a new consumer's first fetch can wait for the
 * broker thread's next 1 s wakeup (seen as a 0.9 s first round in some
 * runs), which is start-up, not throughput.  Benchmarks may read the
 * real clock (sl_clock_monotonic_us).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <librdkafka/rdkafka.h>

#include "core/clock.h"
#include "kafka/kafka.h"
#include "plan/plan.h"
#include "driver/query.h"
#include "driver/session.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"

#define TOTAL 2000000
#define ROUND 40000
#define T0_US 1767225600000000LL

static void die(const char *what, const sl_err *err)
{
	fprintf(stderr, "kafka_bench: %s: %s\n", what, err->msg);
	exit(1);
}

static sl_expr *expr(const char *sql)
{
	sl_err err;
	sl_expr *e = sl_sqlexpr_parse(sql, &err);
	if (e == NULL)
		die(sql, &err);
	return e;
}

static void produce_round(int64_t first)
{
	static sl_kafka_msg m[ROUND];
	static char v[ROUND][96];
	sl_err err;
	for (int i = 0; i < ROUND; i++) {
		int64_t k = first + i, s = k / 10000;
		snprintf(v[i], sizeof v[i],
			 "{\"ts\":\"2026-01-01 %02d:%02d:%02d\",\"product_id\":"
			 "\"p%d\",\"amount\":%d}",
			 (int)(12 + s / 3600), (int)(s / 60 % 60), (int)(s % 60),
			 (int)(k % 1000), (int)(k % 100));
		memset(&m[i], 0, sizeof m[i]);
		m[i].topic = "w3";
		m[i].value = v[i];
		m[i].value_len = strlen(v[i]);
		m[i].partition = 0;
	}
	if (sl_kafka_produce(NULL, m, ROUND, 60000, &err) != 0)
		die("produce", &err);
}

/* The raw consumer: read [from, from + ROUND) and sum "amount".  It is
 * assigned once, at offset 0, and stays assigned, so it fetches ahead
 * between rounds as the engine's source does (kafka_source.c keeps its
 * consumer positioned at the end of the last batch). */
static int64_t raw_round(rd_kafka_t *rk, rd_kafka_queue_t *q, int64_t from,
			 int64_t *sum)
{
	static rd_kafka_message_t *msgs[4096];
	int64_t got = 0, t0 = sl_clock_monotonic_us();
	if (from == 0) {
		rd_kafka_topic_partition_list_t *l =
			rd_kafka_topic_partition_list_new(1);
		rd_kafka_topic_partition_list_add(l, "w3", 0)->offset = 0;
		rd_kafka_assign(rk, l);
		rd_kafka_topic_partition_list_destroy(l);
	}
	while (got < ROUND) {
		/* never past this round: the rest stays queued for the next */
		size_t want = ROUND - got < 4096 ? (size_t)(ROUND - got) : 4096;
		ssize_t n = rd_kafka_consume_batch_queue(q, 0, msgs, want);
		if (n == 0 && (msgs[0] = rd_kafka_consume_queue(q, 100)))
			n = 1;
		for (ssize_t i = 0; i < n; i++) {
			rd_kafka_message_t *m = msgs[i];
			if (!m->err && m->offset >= from &&
			    m->offset < from + ROUND) {
				const char *p = memmem(m->payload, m->len,
						       "\"amount\":", 9);
				if (p)
					*sum += atoi(p + 9);
				got++;
			}
			rd_kafka_message_destroy(m);
		}
	}
	return sl_clock_monotonic_us() - t0;
}

static sl_query *engine_query(sl_session *sess)
{
	sl_options o;
	sl_source_desc *d;
	sl_plan *src, *proj, *flat, *agg;
	sl_expr *e[1], *f[3], *k[2], *a[2];
	sl_query_opts qo;
	sl_err err;
	sl_query *q;
	char n[32];
	sl_options_init(&o);
	sl_options_set(&o, "subscribe", "w3");
	sl_options_set(&o, "startingOffsets", "earliest");
	snprintf(n, sizeof n, "%d", ROUND);
	sl_options_set(&o, "maxOffsetsPerTrigger", n);
	if ((d = sl_source_desc_new("kafka", NULL, NULL, &o, &err)) == NULL ||
	    (src = sl_plan_stream(d, &err)) == NULL)
		die("kafka source", &err);
	e[0] = expr("from_json(CAST(value AS STRING), 'ts TIMESTAMP, "
		    "product_id STRING, amount INT') AS j");
	if ((proj = sl_plan_project(src, e, 1, &err)) == NULL)
		die("project", &err);
	f[0] = expr("j.ts AS ts");
	f[1] = expr("j.product_id AS product_id");
	f[2] = expr("j.amount AS amount");
	if ((flat = sl_plan_project(proj, f, 3, &err)) == NULL)
		die("project", &err);
	k[0] = expr("window(ts, '60 seconds')");
	k[1] = expr("product_id");
	a[0] = expr("count(*)");
	a[1] = expr("sum(amount)");
	if ((agg = sl_plan_aggregate(flat, k, 2, a, 2, &err)) == NULL)
		die("aggregate", &err);
	memset(&qo, 0, sizeof qo);
	qo.mode = SL_MODE_UPDATE;
	qo.format = "noop";
	if ((q = sl_query_start(sess, agg, &qo, &err)) == NULL)
		die("start", &err);
	sl_feed_set_detail(sl_query_feed(q), false);
	sl_plan_free(agg);
	sl_plan_free(flat);
	sl_plan_free(proj);
	sl_plan_free(src);
	sl_source_desc_free(d);
	sl_options_release(&o);
	return q;
}

int main(int argc, char **argv)
{
	bool only_raw = argc > 1 && strcmp(argv[1], "raw") == 0;
	sl_err err;
	const char *bs;
	rd_kafka_conf_t *c;
	rd_kafka_t *rk;
	rd_kafka_queue_t *rq;
	char es[256];
	sl_session *sess;
	sl_query *q;
	int64_t raw_us = 0, eng_us = 0, sum = 0, events = 0, max_us = 0;
	int64_t raw_max_us = 0;
	struct rusage ru;
	if (sl_kafka_embedded(&bs, &err) != 0 ||
	    sl_kafka_create_topic(NULL, "w3", 1, &err) != 0)
		die("embedded cluster", &err);
	c = rd_kafka_conf_new();
	rd_kafka_conf_set(c, "bootstrap.servers", bs, es, sizeof es);
	rd_kafka_conf_set(c, "group.id", "raw", es, sizeof es);
	rd_kafka_conf_set(c, "enable.auto.commit", "false", es, sizeof es);
	rd_kafka_conf_set(c, "queued.min.messages", "1000000", es, sizeof es);
	/* as the source on the embedded cluster (kafka_source.c) */
	rd_kafka_conf_set(c, "fetch.wait.max.ms", "2", es, sizeof es);
	rd_kafka_conf_set(c, "max.partition.fetch.bytes", "8388608", es,
			  sizeof es);
	rd_kafka_conf_set(c, "log_level", "0", es, sizeof es);
	rk = rd_kafka_new(RD_KAFKA_CONSUMER, c, es, sizeof es);
	if (rk == NULL) {
		fprintf(stderr, "kafka_bench: %s\n", es);
		return 1;
	}
	rd_kafka_poll_set_consumer(rk);
	rq = rd_kafka_queue_get_consumer(rk);
	if (argc > 1 && !only_raw) {
		fprintf(stderr, "usage: kafka_bench [raw]\n");
		return 2;
	}
	sess = sl_session_new();
	sl_clock_set_manual(sl_session_clock(sess), T0_US);
	q = only_raw ? NULL : engine_query(sess);
	{
		bool ran = false;
		int64_t warm = 0;
		produce_round(0);
		raw_round(rk, rq, 0, &warm);
		if (q != NULL && (sl_query_step(q, &ran, &err) != 0 || !ran))
			die("warm-up step", &err);
	}
	for (int64_t first = ROUND; first < ROUND + TOTAL; first += ROUND) {
		bool ran = false;
		int64_t t0;
		produce_round(first);
		t0 = raw_round(rk, rq, first, &sum);
		raw_us += t0;
		if (t0 > raw_max_us)
			raw_max_us = t0;
		if (q == NULL)
			continue;
		t0 = sl_clock_monotonic_us();
		if (sl_query_step(q, &ran, &err) != 0)
			die("step", &err);
		t0 = sl_clock_monotonic_us() - t0;
		eng_us += t0;
		if (t0 > max_us)
			max_us = t0;
		if (ran)
			events += ROUND;
	}
	getrusage(RUSAGE_SELF, &ru);
	if (q == NULL) {
		printf("W3       raw librdkafka consume %5.2f M msg/s (alone)  "
		       "%d ev  slowest round %lld ms  RSS %ld MiB\n",
		       TOTAL / (raw_us / 1e6) / 1e6, TOTAL,
		       (long long)(raw_max_us / 1000), ru.ru_maxrss / 1024);
	} else {
		double raw = TOTAL / (raw_us / 1e6), eng = events / (eng_us / 1e6);
		printf("W3       raw librdkafka consume %5.2f M msg/s | engine "
		       "%5.2f M ev/s (%s 2.0 M; %.0f%% of raw)  %lld ev  "
		       "slowest batch %lld ms  RSS %ld MiB\n",
		       raw / 1e6, eng / 1e6, eng >= 2e6 ? ">=" : "< !",
		       100.0 * eng / raw, (long long)events,
		       (long long)(max_us / 1000), ru.ru_maxrss / 1024);
		sl_query_stop(q);
		sl_query_free(q);
	}
	sl_session_free(sess);
	rd_kafka_assign(rk, NULL);
	rd_kafka_queue_destroy(rq);
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	sl_kafka_shutdown();
	return only_raw || events == TOTAL ? 0 : 1;
}
