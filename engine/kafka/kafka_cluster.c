/*
 * kafka_cluster: the process-wide embedded Kafka cluster (librdkafka's
 * mock cluster, three brokers on loopback sockets), the cached clients the
 * kafka.* operations use, faults, simulated retention, and the log ring
 * every librdkafka handle of ours logs into.
 *
 * Life cycle: the cluster is created on first use by a throw-away producer
 * handle that owns it (rd_kafka_mock_cluster_new); sl_kafka_shutdown (also
 * run at exit) destroys the cached clients first, then the cluster, then
 * the owner handle (TERMINAL-LUA-KAFKA.md G5).  Sources and sinks keep
 * their own clients and close them when their query stops, which happens
 * before exit.
 *
 * Threads: librdkafka calls the log callback from its own threads, and a
 * Kafka source's fetcher thread (sources/kafka_fetch.c) adds lines too, so
 * the log ring has a mutex; everything else here runs on the program's
 * one thread.
 * Never prints: a librdkafka line goes to the ring, never to stderr (G4).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "kafka/kafka_int.h"

#define LOG_RING 256
#define LOG_LINE 320
#define META_TIMEOUT_MS                                                        \
	15000 /* generous: a starved mock cluster is slow, not gone */
#define WM_TIMEOUT_MS 3000

/* ---- the log ring ---- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_lines[LOG_RING][LOG_LINE];
static uint64_t log_seq; /* seq of the newest line; line s is at s % RING */

static void log_put(const char *line)
{
	pthread_mutex_lock(&log_mu);
	log_seq++;
	snprintf(log_lines[log_seq % LOG_RING], LOG_LINE, "%s", line);
	pthread_mutex_unlock(&log_mu);
}

void sl_kafka_log_add(const char *fmt, ...)
{
	char line[LOG_LINE];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	log_put(line);
}

bool sl_kafka_log_next(uint64_t *seq, char *buf, size_t size)
{
	bool got = false;
	pthread_mutex_lock(&log_mu);
	if (*seq + LOG_RING < log_seq)
		*seq = log_seq - LOG_RING; /* skip what fell off */
	if (*seq < log_seq) {
		(*seq)++;
		snprintf(buf, size, "%s", log_lines[*seq % LOG_RING]);
		got = true;
	}
	pthread_mutex_unlock(&log_mu);
	return got;
}

static void log_cb(const rd_kafka_t *rk, int level, const char *fac,
		   const char *buf)
{
	char line[LOG_LINE];
	(void)rk;
	snprintf(line, sizeof line, "librdkafka %d %s: %s", level, fac, buf);
	log_put(line);
}

/* ---- client configuration ---- */

int sl_kafka_conf_set(rd_kafka_conf_t *c, const char *k, const char *v,
		      sl_err *err)
{
	char es[256];
	if (rd_kafka_conf_set(c, k, v, es, sizeof es) != RD_KAFKA_CONF_OK)
		return sl_err_set(err, SL_EINVAL, "kafka: option '%s': %s", k,
				  es);
	return 0;
}

rd_kafka_conf_t *sl_kafka_conf_new(const char *list, sl_err *err)
{
	rd_kafka_conf_t *c = rd_kafka_conf_new();
	if (c == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	rd_kafka_conf_set_log_cb(c, log_cb);
	if ((list != NULL &&
	     sl_kafka_conf_set(c, "bootstrap.servers", list, err) != 0) ||
	    sl_kafka_conf_set(c, "log.connection.close", "false", err) != 0) {
		rd_kafka_conf_destroy(c);
		return NULL;
	}
	return c;
}

/* ---- the embedded cluster and cached clients ---- */

typedef struct floor_ent {
	char *topic;
	int32_t partition;
	int64_t before;
} floor_ent;

static struct {
	bool atexit_done;
	rd_kafka_t *owner; /* owns the mock cluster */
	rd_kafka_mock_cluster_t *mock;
	char *bootstraps;
	rd_kafka_t *prod_embedded; /* kafka.produce/offsets/topics */
	rd_kafka_t *prod_external;
	char *external_list;
	int nfloor;
	floor_ent *floors;
	uint32_t rr; /* round robin for keyless messages */
} K;

bool sl_kafka_is_embedded(const char *servers)
{
	return servers == NULL || *servers == '\0' ||
	       strcmp(servers, "embedded") == 0;
}

rd_kafka_mock_cluster_t *sl_kafka_mock(sl_err *err)
{
	rd_kafka_conf_t *c;
	char es[256];
	const char *b;
	if (K.mock != NULL)
		return K.mock;
	if (!K.atexit_done) {
		atexit(sl_kafka_shutdown);
		K.atexit_done = true;
	}
	c = sl_kafka_conf_new(NULL, err);
	if (c == NULL)
		return NULL;
	K.owner = rd_kafka_new(RD_KAFKA_PRODUCER, c, es, sizeof es);
	if (K.owner == NULL) {
		rd_kafka_conf_destroy(c);
		sl_err_set(err, SL_EIO, "kafka: cannot create a client: %s",
			   es);
		return NULL;
	}
	K.mock = rd_kafka_mock_cluster_new(K.owner, 3);
	b = K.mock ? rd_kafka_mock_cluster_bootstraps(K.mock) : NULL;
	if (b == NULL || (K.bootstraps = strdup(b)) == NULL) {
		if (K.mock)
			rd_kafka_mock_cluster_destroy(K.mock);
		K.mock = NULL;
		rd_kafka_destroy(K.owner);
		K.owner = NULL;
		sl_err_set(err, SL_EIO,
			   "kafka: cannot start the embedded cluster");
		return NULL;
	}
	sl_kafka_log_add("embedded kafka cluster started: %s", K.bootstraps);
	return K.mock;
}

int sl_kafka_embedded(const char **bootstraps, sl_err *err)
{
	if (sl_kafka_mock(err) == NULL)
		return err ? err->code : SL_EIO;
	*bootstraps = K.bootstraps;
	return 0;
}

int sl_kafka_resolve(const char *servers, const char **list, sl_err *err)
{
	if (sl_kafka_is_embedded(servers))
		return sl_kafka_embedded(list, err);
	*list = servers;
	return 0;
}

void sl_kafka_shutdown(void)
{
	if (K.prod_embedded) {
		rd_kafka_flush(K.prod_embedded, 500);
		rd_kafka_destroy(K.prod_embedded);
	}
	if (K.prod_external) {
		rd_kafka_flush(K.prod_external, 500);
		rd_kafka_destroy(K.prod_external);
	}
	K.prod_embedded = K.prod_external = NULL;
	free(K.external_list);
	K.external_list = NULL;
	if (K.mock)
		rd_kafka_mock_cluster_destroy(K.mock);
	K.mock = NULL;
	if (K.owner)
		rd_kafka_destroy(K.owner);
	K.owner = NULL;
	free(K.bootstraps);
	K.bootstraps = NULL;
	for (int i = 0; i < K.nfloor; i++)
		free(K.floors[i].topic);
	free(K.floors);
	K.floors = NULL;
	K.nfloor = 0;
}

typedef struct dr_count {
	int done, failed;
	rd_kafka_resp_err_t first;
} dr_count;

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	dr_count *c = m->_private;
	(void)rk;
	(void)opaque;
	if (c == NULL)
		return;
	c->done++;
	if (m->err) {
		if (c->failed++ == 0)
			c->first = m->err;
	}
}

/* The cached client for servers (created on first use). */
static rd_kafka_t *client(const char *servers, sl_err *err)
{
	const char *list = NULL;
	rd_kafka_conf_t *c;
	rd_kafka_t **slot;
	char es[256];
	if (sl_kafka_resolve(servers, &list, err) != 0)
		return NULL;
	if (sl_kafka_is_embedded(servers)) {
		slot = &K.prod_embedded;
	} else {
		slot = &K.prod_external;
		if (*slot && strcmp(K.external_list, list) != 0) {
			rd_kafka_flush(*slot, 500);
			rd_kafka_destroy(*slot);
			*slot = NULL;
		}
	}
	if (*slot)
		return *slot;
	c = sl_kafka_conf_new(list, err);
	if (c == NULL)
		return NULL;
	rd_kafka_conf_set_dr_msg_cb(c, dr_cb);
	if (sl_kafka_conf_set(c, "linger.ms", "1", err) != 0 ||
	    sl_kafka_conf_set(c, "partitioner", "murmur2_random", err) != 0 ||
	    sl_kafka_conf_set(c, "message.timeout.ms", "10000", err) != 0) {
		rd_kafka_conf_destroy(c);
		return NULL;
	}
	*slot = rd_kafka_new(RD_KAFKA_PRODUCER, c, es, sizeof es);
	if (*slot == NULL) {
		rd_kafka_conf_destroy(c);
		sl_err_set(err, SL_EIO, "kafka: cannot create a client: %s",
			   es);
		return NULL;
	}
	if (slot == &K.prod_external) {
		K.external_list = strdup(list);
		if (K.external_list == NULL) {
			rd_kafka_destroy(*slot);
			*slot = NULL;
			sl_err_nomem(err);
			return NULL;
		}
	}
	return *slot;
}

/* Partition count of topic, 0 when it does not exist. */
static int partition_count(rd_kafka_t *rk, const char *topic, int *n,
			   sl_err *err)
{
	const struct rd_kafka_metadata *md;
	rd_kafka_topic_t *t = rd_kafka_topic_new(rk, topic, NULL);
	rd_kafka_resp_err_t e;
	if (t == NULL)
		return sl_err_nomem(err);
	/* librdkafka asks one broker; when that one is down (a lesson's or
	 * a test's kafka.brokerDown) the request times out although the
	 * others would answer: ask again, it then picks another. */
	for (int tries = 0;; tries++) {
		e = rd_kafka_metadata(rk, 0, t, &md, META_TIMEOUT_MS);
		if (tries == 2 || (e != RD_KAFKA_RESP_ERR__TIMED_OUT &&
				   e != RD_KAFKA_RESP_ERR__TRANSPORT))
			break;
	}
	rd_kafka_topic_destroy(t);
	if (e)
		return sl_err_set(err, SL_EIO,
				  "kafka: cannot read the metadata of topic "
				  "'%s': %s",
				  topic, rd_kafka_err2str(e));
	*n = 0;
	if (md->topic_cnt == 1 && md->topics[0].err == 0)
		*n = md->topics[0].partition_cnt;
	rd_kafka_metadata_destroy(md);
	return 0;
}

int sl_kafka_create_topic(const char *servers, const char *topic,
			  int partitions, sl_err *err)
{
	rd_kafka_mock_cluster_t *mc;
	rd_kafka_resp_err_t e;
	if (topic == NULL || *topic == '\0')
		return sl_err_set(err, SL_EINVAL,
				  "kafka.createTopic: the topic name is empty");
	if (partitions < 1 || partitions > 10000)
		return sl_err_set(
		    err, SL_EINVAL,
		    "kafka.createTopic: partitions must be between "
		    "1 and 10000, got %d",
		    partitions);
	if (!sl_kafka_is_embedded(servers))
		return sl_err_set(
		    err, SL_EINVAL,
		    "kafka.createTopic: topics can only be created "
		    "on the embedded cluster (the mock has no "
		    "CreateTopics API)");
	if ((mc = sl_kafka_mock(err)) == NULL)
		return SL_EIO;
	e = rd_kafka_mock_topic_create(mc, topic, partitions, 1);
	if (e)
		return sl_err_set(err, SL_EIO,
				  "kafka.createTopic: cannot create '%s': %s",
				  topic, rd_kafka_err2str(e));
	return 0;
}

static int produce_one(rd_kafka_t *rk, const sl_kafka_msg *m, int32_t part,
		       dr_count *dc, sl_err *err)
{
	rd_kafka_headers_t *h = NULL;
	rd_kafka_resp_err_t e;
	if (m->nheaders > 0) {
		h = rd_kafka_headers_new((size_t)m->nheaders);
		for (int i = 0; i < m->nheaders; i++)
			rd_kafka_header_add(h, m->headers[i].key, -1,
					    m->headers[i].value,
					    (ssize_t)m->headers[i].len);
	}
	for (;;) {
		e = rd_kafka_producev(
		    rk, RD_KAFKA_V_TOPIC(m->topic), RD_KAFKA_V_PARTITION(part),
		    RD_KAFKA_V_VALUE((void *)m->value, m->value_len),
		    RD_KAFKA_V_KEY((void *)m->key, m->key_len),
		    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
		    RD_KAFKA_V_TIMESTAMP(m->ts_ms > 0 ? m->ts_ms : 0),
		    RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_OPAQUE(dc),
		    RD_KAFKA_V_END);
		if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
			break;
		rd_kafka_poll(rk, 10);
	}
	if (e) {
		if (h)
			rd_kafka_headers_destroy(h);
		return sl_err_set(
		    err, SL_EIO, "kafka.produce: cannot send to topic '%s': %s",
		    m->topic, rd_kafka_err2str(e));
	}
	return 0;
}

/* Partition count of m's topic; an unknown topic on the embedded cluster
 * is created with one partition (Kafka's num.partitions default). */
static int topic_parts(rd_kafka_t *rk, const char *servers, const char *topic,
		       int *n, sl_err *err)
{
	if (partition_count(rk, topic, n, err) != 0)
		return SL_EIO;
	if (*n == 0 && sl_kafka_is_embedded(servers)) {
		if (sl_kafka_create_topic(servers, topic, 1, err) != 0)
			return SL_EIO;
		*n = 1;
	}
	if (*n == 0)
		return sl_err_set(err, SL_EIO,
				  "kafka.produce: unknown topic '%s'", topic);
	return 0;
}

/* The partition for a message: given, by key (murmur2, as Java clients),
 * or round robin for keyless ones (deterministic, unlike Kafka's sticky
 * default). */
static int pick_partition(const sl_kafka_msg *m, int np, int32_t *part,
			  sl_err *err)
{
	if (m->partition >= np)
		return sl_err_set(
		    err, SL_EINVAL,
		    "kafka.produce: topic '%s' has %d partitions, "
		    "no partition %d",
		    m->topic, np, (int)m->partition);
	if (m->partition >= 0)
		*part = m->partition;
	else if (m->key != NULL)
		*part = RD_KAFKA_PARTITION_UA;
	else
		*part = (int32_t)(K.rr++ % (uint32_t)np);
	return 0;
}

/* Wait for n deliveries; on timeout purge so no late report touches dc. */
static int wait_deliveries(rd_kafka_t *rk, dr_count *dc, int n, int timeout_ms)
{
	int64_t t0 = sl_clock_monotonic_us();
	while (dc->done < n &&
	       sl_clock_monotonic_us() - t0 < (int64_t)timeout_ms * 1000)
		rd_kafka_poll(rk, 5);
	if (dc->done < n) {
		rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE |
				       RD_KAFKA_PURGE_F_INFLIGHT);
		while (dc->done < n)
			rd_kafka_poll(rk, 10);
		return -1;
	}
	return 0;
}

int sl_kafka_produce(const char *servers, const sl_kafka_msg *m, int n,
		     int timeout_ms, sl_err *err)
{
	rd_kafka_t *rk = client(servers, err);
	dr_count dc = { 0, 0, 0 };
	const char *last = NULL;
	int np = 0, sent = 0, rc = 0;
	if (rk == NULL)
		return SL_EIO;
	for (; sent < n; sent++) {
		int32_t part = RD_KAFKA_PARTITION_UA;
		if (last == NULL || strcmp(last, m[sent].topic) != 0) {
			if ((rc = topic_parts(rk, servers, m[sent].topic, &np,
					      err)) != 0)
				break;
			last = m[sent].topic;
		}
		if ((rc = pick_partition(&m[sent], np, &part, err)) != 0 ||
		    (rc = produce_one(rk, &m[sent], part, &dc, err)) != 0)
			break;
	}
	if (wait_deliveries(rk, &dc, sent, timeout_ms) != 0 && rc == 0)
		return sl_err_set(err, SL_EIO,
				  "kafka.produce: %d of %d messages to topic "
				  "'%s' not delivered within %d ms",
				  sent - (dc.done - dc.failed), n, m[0].topic,
				  timeout_ms);
	if (rc != 0)
		return rc;
	if (dc.failed > 0)
		return sl_err_set(err, SL_EIO,
				  "kafka.produce: %d of %d messages to topic "
				  "'%s' failed: %s",
				  dc.failed, n, m[0].topic,
				  rd_kafka_err2str(dc.first));
	return 0;
}

int sl_kafka_offsets(const char *servers, const char *topic, sl_kafka_wm **out,
		     int *n, sl_err *err)
{
	rd_kafka_t *rk = client(servers, err);
	sl_kafka_wm *w;
	int np;
	*out = NULL;
	*n = 0;
	if (rk == NULL || partition_count(rk, topic, &np, err) != 0)
		return err ? err->code : SL_EIO;
	if (np == 0)
		return sl_err_set(err, SL_EINVAL, "kafka: unknown topic '%s'",
				  topic);
	w = calloc((size_t)np, sizeof *w);
	if (w == NULL)
		return sl_err_nomem(err);
	for (int p = 0; p < np; p++) {
		int64_t lo, hi;
		rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
		    rk, topic, p, &lo, &hi, WM_TIMEOUT_MS);
		if (e) {
			free(w);
			return sl_err_set(err, SL_EIO,
					  "kafka: cannot read the offsets of "
					  "topic '%s' partition %d: %s",
					  topic, p, rd_kafka_err2str(e));
		}
		if (sl_kafka_is_embedded(servers)) {
			int64_t f = sl_kafka_retention_floor(topic, p);
			if (f > lo)
				lo = f < hi ? f : hi;
		}
		w[p].partition = p;
		w[p].low = lo;
		w[p].high = hi;
	}
	*out = w;
	*n = np;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	const struct rd_kafka_metadata_topic *x = a, *y = b;
	return strcmp(x->topic, y->topic);
}

int sl_kafka_topics(const char *servers, char ***names, int **partitions,
		    int *n, sl_err *err)
{
	rd_kafka_t *rk = client(servers, err);
	const struct rd_kafka_metadata *md;
	struct rd_kafka_metadata_topic *t;
	rd_kafka_resp_err_t e;
	int k = 0;
	*names = NULL;
	*partitions = NULL;
	*n = 0;
	if (rk == NULL)
		return SL_EIO;
	e = rd_kafka_metadata(rk, 1, NULL, &md, META_TIMEOUT_MS);
	if (e)
		return sl_err_set(err, SL_EIO, "kafka: cannot list topics: %s",
				  rd_kafka_err2str(e));
	t = malloc((size_t)(md->topic_cnt + 1) * sizeof *t);
	*names = calloc((size_t)md->topic_cnt + 1, sizeof **names);
	*partitions = calloc((size_t)md->topic_cnt + 1, sizeof **partitions);
	if (t == NULL || *names == NULL || *partitions == NULL) {
		free(t);
		rd_kafka_metadata_destroy(md);
		sl_kafka_topics_free(*names, *partitions, 0);
		*names = NULL;
		*partitions = NULL;
		return sl_err_nomem(err);
	}
	memcpy(t, md->topics, (size_t)md->topic_cnt * sizeof *t);
	qsort(t, (size_t)md->topic_cnt, sizeof *t, name_cmp);
	for (int i = 0; i < md->topic_cnt; i++) {
		if (strncmp(t[i].topic, "__", 2) == 0 || t[i].err)
			continue;
		(*names)[k] = strdup(t[i].topic);
		(*partitions)[k] = t[i].partition_cnt;
		if ((*names)[k] != NULL)
			k++;
	}
	free(t);
	rd_kafka_metadata_destroy(md);
	*n = k;
	return 0;
}

void sl_kafka_topics_free(char **names, int *partitions, int n)
{
	if (names != NULL)
		for (int i = 0; i < n; i++)
			free(names[i]);
	free(names);
	free(partitions);
}

/* ---- faults ---- */

static int mock_rc(rd_kafka_resp_err_t e, const char *what, sl_err *err)
{
	if (e)
		return sl_err_set(err, SL_EINVAL, "kafka.%s: %s", what,
				  rd_kafka_err2str(e));
	return 0;
}

static int check_broker(int32_t b, const char *what, sl_err *err)
{
	if (b < 1 || b > 3)
		return sl_err_set(
		    err, SL_EINVAL,
		    "kafka.%s: no broker %d (the embedded cluster "
		    "has brokers 1, 2 and 3)",
		    what, (int)b);
	return 0;
}

int sl_kafka_broker_down(int32_t broker, sl_err *err)
{
	rd_kafka_mock_cluster_t *mc;
	if (check_broker(broker, "brokerDown", err) != 0 ||
	    (mc = sl_kafka_mock(err)) == NULL)
		return err ? err->code : SL_EIO;
	sl_kafka_log_add("fault: broker %d down", (int)broker);
	return mock_rc(rd_kafka_mock_broker_set_down(mc, broker), "brokerDown",
		       err);
}

int sl_kafka_broker_up(int32_t broker, sl_err *err)
{
	rd_kafka_mock_cluster_t *mc;
	if (check_broker(broker, "brokerUp", err) != 0 ||
	    (mc = sl_kafka_mock(err)) == NULL)
		return err ? err->code : SL_EIO;
	sl_kafka_log_add("fault: broker %d up", (int)broker);
	return mock_rc(rd_kafka_mock_broker_set_up(mc, broker), "brokerUp",
		       err);
}

int sl_kafka_set_leader(const char *topic, int32_t partition, int32_t broker,
			sl_err *err)
{
	rd_kafka_mock_cluster_t *mc;
	if (check_broker(broker, "setLeader", err) != 0 ||
	    (mc = sl_kafka_mock(err)) == NULL)
		return err ? err->code : SL_EIO;
	sl_kafka_log_add("fault: topic '%s' partition %d leader is now "
			 "broker %d",
			 topic, (int)partition, (int)broker);
	return mock_rc(
	    rd_kafka_mock_partition_set_leader(mc, topic, partition, broker),
	    "setLeader", err);
}

int sl_kafka_inject_error(const char *api, const char *error, int cnt,
			  sl_err *err)
{
	rd_kafka_mock_cluster_t *mc;
	rd_kafka_resp_err_t code;
	rd_kafka_resp_err_t *codes;
	int key = sl_kafka_api_key(api);
	if (key < 0)
		return sl_err_set(
		    err, SL_EINVAL,
		    "kafka.injectError: unknown request '%s' "
		    "(e.g. Produce, Fetch, ListOffsets, Metadata)",
		    api);
	if (!sl_kafka_err_code(error, &code))
		return sl_err_set(
		    err, SL_EINVAL,
		    "kafka.injectError: unknown error '%s' (e.g. "
		    "NOT_LEADER_FOR_PARTITION, REQUEST_TIMED_OUT)",
		    error);
	if (cnt < 1 || cnt > 1000)
		return sl_err_set(err, SL_EINVAL,
				  "kafka.injectError: count must be between 1 "
				  "and 1000, got %d",
				  cnt);
	if ((mc = sl_kafka_mock(err)) == NULL)
		return SL_EIO;
	codes = malloc((size_t)cnt * sizeof *codes);
	if (codes == NULL)
		return sl_err_nomem(err);
	for (int i = 0; i < cnt; i++)
		codes[i] = code;
	rd_kafka_mock_push_request_errors_array(mc, (int16_t)key, (size_t)cnt,
						codes);
	free(codes);
	sl_kafka_log_add("fault: next %d %s requests fail with %s", cnt, api,
			 error);
	return 0;
}

int64_t sl_kafka_retention_floor(const char *topic, int32_t partition)
{
	for (int i = 0; i < K.nfloor; i++)
		if (K.floors[i].partition == partition &&
		    strcmp(K.floors[i].topic, topic) == 0)
			return K.floors[i].before;
	return 0;
}

int sl_kafka_delete_records(const char *topic, int32_t partition,
			    int64_t before, sl_err *err)
{
	floor_ent *f;
	if (sl_kafka_mock(err) == NULL)
		return SL_EIO;
	for (int i = 0; i < K.nfloor; i++)
		if (K.floors[i].partition == partition &&
		    strcmp(K.floors[i].topic, topic) == 0) {
			if (before > K.floors[i].before)
				K.floors[i].before = before;
			goto logged;
		}
	f = realloc(K.floors, (size_t)(K.nfloor + 1) * sizeof *f);
	if (f == NULL)
		return sl_err_nomem(err);
	K.floors = f;
	f[K.nfloor].topic = strdup(topic);
	if (f[K.nfloor].topic == NULL)
		return sl_err_nomem(err);
	f[K.nfloor].partition = partition;
	f[K.nfloor].before = before;
	K.nfloor++;
logged:
	sl_kafka_log_add("retention: topic '%s' partition %d now starts at "
			 "offset %lld",
			 topic, (int)partition, (long long)before);
	return 0;
}
