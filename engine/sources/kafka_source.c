/*
 * kafka_source: Spark's Kafka source (KafkaMicroBatchStream) over
 * librdkafka.
 *
 * Offsets are Spark's JSON, topic -> partition -> next offset to read:
 * {"events":{"0":23,"1":45}}.  A batch reads (start, end], i.e. the
 * Kafka offsets [start[p], end[p]) of every partition p, by *assigning*
 * the partitions at start[p] and polling until each one reached end[p];
 * nothing is ever committed to Kafka (no consumer group state), so the
 * engine's own offset log is the single source of truth and a re-run batch
 * reads exactly the same records (exactly-once with an idempotent sink).
 * Between batches the consumer stays assigned where the last batch ended
 * and fetches ahead (kafka_read.c, "the consumer between batches");
 * planning asks metadata and watermarks through a second handle.
 *
 * The starting offsets (startingOffsets: earliest, latest or JSON) are
 * resolved once, at the query's first planning, and kept in
 * <metadir>/0 (Spark's KafkaSourceInitialOffsetWriter format: a zero
 * byte, "v1\n", the JSON) when a metadata directory is given, so a
 * restarted query does not resolve "latest" again.  Partitions that appear
 * later start at their earliest offset, as Spark's.
 *
 * Data loss: when a start offset is below the partition's low watermark
 * (retention deleted it; sl_kafka_delete_records simulates that on the
 * embedded cluster), failOnDataLoss=true fails the batch naming the topic,
 * partition and range; false reads from the low watermark on, counts the
 * lost offsets (sl_source_kafka_lost) and tells the feed, never reading
 * anything twice.  auto.offset.reset=error makes a log trimmed while we
 * read an explicit error rather than a silent jump (G1).
 *
 * Brokers unavailable at planning: the partitions that cannot be asked
 * keep their last known end (no new data planned for them), and the feed
 * says so; the query waits instead of failing.  Reads that cannot finish
 * within kafkaConsumer.pollTimeoutMs fail the batch (nothing committed).
 *
 * Never prints; librdkafka's logs go to the log ring (kafka_cluster.c) and
 * from there into the query's feed.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/feed.h"
#include "kafka/kafka_int.h"
#include "sources/kafka_src.h"
#include "sources/source_int.h"
#include "core/timeutil.h"

#define WM_TIMEOUT_MS   2000
#define META_TIMEOUT_MS 5000
#define SCHEMA_DDL                                                             \
	"key BINARY, value BINARY, topic STRING, partition INT, offset "       \
	"BIGINT, timestamp TIMESTAMP, timestampType INT"
#define HEADERS_DDL ", headers ARRAY<STRUCT<key: STRING, value: BINARY>>"

/* ---- options ---- */

static const struct {
	const char *key, *msg;
} rejected[] = {
	{ "kafka.auto.offset.reset",
	  "Kafka option 'auto.offset.reset' is not supported. Instead set the "
	  "source option 'startingoffsets' to 'earliest' or 'latest' to specify "
	  "where to start. Structured Streaming manages which offsets are "
	  "consumed internally, rather than relying on the kafkaConsumer." },
	{ "kafka.enable.auto.commit",
	  "Kafka option 'enable.auto.commit' is not supported. This is "
	  "unsupported as streaming source manages the offset internally." },
	{ "kafka.interceptor.classes",
	  "Kafka option 'interceptor.classes' is not supported as user-specified "
	  "consumer interceptors are not supported" },
	{ "kafka.key.deserializer",
	  "Kafka option 'key.deserializer' is not supported, as keys are "
	  "deserialized as byte arrays with ByteArrayDeserializer. Use DataFrame "
	  "operations to explicitly deserialize the keys." },
	{ "kafka.value.deserializer",
	  "Kafka option 'value.deserializer' is not supported, as values are "
	  "deserialized as byte arrays with ByteArrayDeserializer. Use DataFrame "
	  "operations to explicitly deserialize the values." },
};

static int strategy(const sl_options *o, kconf *c, sl_err *err)
{
	static const char *const keys[] = { "subscribe", "subscribePattern",
					    "assign" };
	int n = 0;
	for (int i = 0; i < 3; i++) {
		const char *v = sl_options_get(o, keys[i]);
		if (v == NULL)
			continue;
		n++;
		c->strategy = i + 1;
		c->strategy_val = v;
	}
	if (n == 0)
		return sl_err_set(err, SL_EINVAL,
				  "One of the following options must be "
				  "specified for Kafka source: subscribe, "
				  "subscribePattern, assign. See the docs for "
				  "more details.");
	if (n > 1)
		return sl_err_set(err, SL_EINVAL,
				  "Only one of the following options can be "
				  "specified for Kafka source: subscribe, "
				  "subscribePattern, assign. See the docs for "
				  "more details.");
	return 0;
}

static bool blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == ',')
		s++;
	return *s == '\0';
}

static int strategy_value(const kconf *c, sl_err *err)
{
	const char *v = c->strategy_val;
	if (c->strategy == ST_SUBSCRIBE && blank(v))
		return sl_err_set(
		    err, SL_EINVAL,
		    "No topics to subscribe to as specified value "
		    "for option 'subscribe' is '%s'",
		    v);
	if (c->strategy == ST_PATTERN) {
		regex_t re;
		if (*v == '\0')
			return sl_err_set(err, SL_EINVAL,
					  "Pattern to subscribe is empty as "
					  "specified value for option "
					  "'subscribePattern' is '%s'",
					  v);
		if (regcomp(&re, v, REG_EXTENDED | REG_NOSUB) != 0)
			return sl_err_set(err, SL_EINVAL,
					  "subscribePattern: bad pattern '%s'",
					  v);
		regfree(&re);
	}
	if (c->strategy == ST_ASSIGN) {
		sl_kafka_tpmap m;
		int rc;
		/* Spark's KafkaSourceProvider: not starting with '{' (an empty
		 * value too) is this sentence before any JSON parse */
		if (v[strspn(v, " \t\r\n")] != '{')
			return sl_err_set(err, SL_EINVAL,
					  "No topicpartitions to assign as "
					  "specified value for option 'assign' "
					  "is '%s'",
					  v);
		sl_kafka_tpmap_init(&m);
		rc = sl_kafka_tpmap_parse(&m, v, true, "assign", err);
		if (rc == 0 && m.n == 0)
			rc = sl_err_set(err, SL_EINVAL,
					"No topicpartitions to assign as "
					"specified value for option 'assign' "
					"is '%s'",
					v);
		sl_kafka_tpmap_release(&m);
		return rc;
	}
	return 0;
}

static int positive(const sl_options *o, const char *key, int64_t *out,
		    sl_err *err)
{
	const char *v = sl_options_get(o, key);
	*out = 0;
	if (v == NULL)
		return 0;
	if (sl_options_int(o, key, 0, out, NULL) != 0 || *out <= 0)
		return sl_err_set(err, SL_EINVAL,
				  "%s: must be a positive integer, got '%s'",
				  key, v);
	return 0;
}

/* The kafka.* options other than bootstrap.servers go to the consumer:
 * check librdkafka knows them now, so load() fails rather than start(). */
static int client_options(const sl_options *o, sl_err *err)
{
	rd_kafka_conf_t *c = NULL;
	int rc = 0;
	for (int i = 0; i < o->n && rc == 0; i++) {
		const char *k = o->keys[i];
		if (strncasecmp(k, "kafka.", 6) != 0 ||
		    strcasecmp(k, "kafka.bootstrap.servers") == 0)
			continue;
		for (size_t j = 0; j < sizeof rejected / sizeof rejected[0];
		     j++)
			if (strcasecmp(k, rejected[j].key) == 0)
				return sl_err_set(err, SL_EINVAL, "%s",
						  rejected[j].msg);
		if (c == NULL && (c = rd_kafka_conf_new()) == NULL)
			return sl_err_nomem(err);
		rc = sl_kafka_conf_set(c, k + 6, o->vals[i], err);
	}
	if (c)
		rd_kafka_conf_destroy(c);
	return rc;
}

static int conf_parse(const sl_options *o, kconf *c, sl_err *err)
{
	const char *v;
	memset(c, 0, sizeof *c);
	if (strategy(o, c, err) != 0 || strategy_value(c, err) != 0 ||
	    client_options(o, err) != 0)
		return err ? err->code : SL_EINVAL;
	if (sl_options_get(o, "endingOffsets") != NULL ||
	    sl_options_get(o, "endingTimestamp") != NULL ||
	    sl_options_get(o, "endingOffsetsByTimestamp") != NULL)
		return sl_err_set(
		    err, SL_EINVAL,
		    "ending offset not valid in streaming queries");
	c->servers = sl_options_get(o, "kafka.bootstrap.servers");
	c->starting = sl_options_get(o, "startingOffsets");
	if (c->starting == NULL)
		c->starting = "latest";
	if (strcasecmp(c->starting, "earliest") != 0 &&
	    strcasecmp(c->starting, "latest") != 0) {
		sl_kafka_tpmap m;
		int rc;
		sl_kafka_tpmap_init(&m);
		rc = sl_kafka_tpmap_parse(&m, c->starting, false,
					  "startingOffsets", err);
		sl_kafka_tpmap_release(&m);
		if (rc != 0)
			return rc;
	}
	if (positive(o, "maxOffsetsPerTrigger", &c->max_offsets, err) != 0 ||
	    positive(o, "minOffsetsPerTrigger", &c->min_offsets, err) != 0 ||
	    sl_options_bool(o, "failOnDataLoss", true, &c->fail_on_loss, err) !=
		0 ||
	    sl_options_bool(o, "includeHeaders", false, &c->headers, err) != 0)
		return err ? err->code : SL_EINVAL;
	c->max_delay_us = 15 * SL_US_PER_MIN;
	if ((v = sl_options_get(o, "maxTriggerDelay")) != NULL &&
	    (!sl_source_time_string(v, 1000, &c->max_delay_us) ||
	     c->max_delay_us < 0))
		return sl_err_set(
		    err, SL_EINVAL,
		    "maxTriggerDelay: expected a duration such as "
		    "'15m' or '30 seconds', got '%s'",
		    v);
	if (positive(o, "kafkaConsumer.pollTimeoutMs", &c->poll_timeout_ms,
		     err) != 0)
		return SL_EINVAL;
	if (c->poll_timeout_ms == 0)
		c->poll_timeout_ms = 120000; /* Spark's default */
	return 0;
}

sl_type *sl_kafka_source_check(const sl_options *opts, sl_type *user_schema,
			       sl_err *err)
{
	kconf c;
	if (user_schema != NULL) {
		sl_err_set(err, SL_EANALYSIS,
			   "Kafka source has a fixed schema and cannot be set "
			   "with a custom one");
		return NULL;
	}
	if (conf_parse(opts, &c, err) != 0)
		return NULL;
	return sl_type_parse_ddl(
	    c.headers ? SCHEMA_DDL HEADERS_DDL : SCHEMA_DDL, err);
}

/* ---- the instance ---- */

/* A line for the feed (and the log ring, so the REPL sees it too). */
void sl_kafka_src_note(ksrc *k, const char *fmt, ...)
{
	char line[400];
	va_list ap;
	(void)k;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	sl_kafka_log_add("%s", line);
}

/* Move the log ring's new lines (librdkafka's and our notes) into the
 * query's feed.  librdkafka's own lines ("librdkafka 5 CONFWARN: ...",
 * kafka_cluster.c's log_cb) are marked {"from":"librdkafka"}: they belong
 * in the feed for whoever reads it, not on the learner's screen (the
 * embedded cluster's handle, say, warns that it has no bootstrap.servers,
 * which is true and harmless). */
void sl_kafka_src_drain(ksrc *k)
{
	static const char lib[] = "librdkafka ";
	char line[400];
	sl_feed *f = k->self ? k->self->feed : NULL;
	while (sl_kafka_log_next(&k->logseq, line, sizeof line))
		if (f != NULL)
			sl_feed_add(f, SL_EV_LOG, -1, sl_clock_now(k->clock),
				    line,
				    strncmp(line, lib, sizeof lib - 1) == 0
					? "{\"from\":\"librdkafka\"}"
					: NULL);
}

/* A consumer handle with our settings and the kafka.* options.
 * fetch.wait.max.ms: a broker answers a waiting fetch as soon as data
 * arrives (fetch.min.bytes 1), so the wait costs no latency there; the
 * embedded cluster (librdkafka's mock) holds a fetch that found nothing for
 * the whole wait even when a producer writes meanwhile, so records produced
 * just before a trigger arrived up to 10 ms late (W3: 1-2 ms of every
 * batch's median); 2 ms there, at the price of more empty fetches while
 * an assigned consumer is caught up (sl_kafka_src_idle ends those). */
static rd_kafka_t *client_new(ksrc *k, sl_err *err)
{
	const char *list;
	rd_kafka_conf_t *c;
	rd_kafka_t *rk;
	char es[256];
	const sl_options *o = &k->opts;
	if (sl_kafka_resolve(k->conf.servers, &list, err) != 0 ||
	    (c = sl_kafka_conf_new(list, err)) == NULL)
		return NULL;
	if (sl_kafka_conf_set(c, "group.id", "spark-kafka-source-streamlab",
			      err) != 0 ||
	    sl_kafka_conf_set(c, "enable.auto.commit", "false", err) != 0 ||
	    sl_kafka_conf_set(c, "enable.auto.offset.store", "false", err) ||
	    sl_kafka_conf_set(c, "auto.offset.reset", "error", err) != 0 ||
	    sl_kafka_conf_set(c, "enable.partition.eof", "true", err) != 0 ||
	    sl_kafka_conf_set(c, "queued.min.messages", "1000000", err) != 0 ||
	    sl_kafka_conf_set(c, "fetch.wait.max.ms",
			      sl_kafka_is_embedded(k->conf.servers) ? "2" : "10",
			      err) != 0 ||
	    sl_kafka_conf_set(c, "max.partition.fetch.bytes", "8388608", err) !=
		0 ||
	    sl_kafka_conf_set(c, "fetch.error.backoff.ms", "50", err) != 0 ||
	    /* a broker that comes back is fetched from within a second (the
	     * default backoff grows to 10 s: a class would wait for it) */
	    sl_kafka_conf_set(c, "reconnect.backoff.max.ms", "1000", err) != 0)
		goto fail;
	for (int i = 0; i < o->n; i++)
		if (strncasecmp(o->keys[i], "kafka.", 6) == 0 &&
		    strcasecmp(o->keys[i], "kafka.bootstrap.servers") != 0 &&
		    sl_kafka_conf_set(c, o->keys[i] + 6, o->vals[i], err) != 0)
			goto fail;
	rk = rd_kafka_new(RD_KAFKA_CONSUMER, c, es, sizeof es);
	if (rk == NULL) {
		sl_err_set(err, SL_EIO, "kafka: cannot create a consumer: %s",
			   es);
		goto fail;
	}
	return rk;
fail:
	rd_kafka_conf_destroy(c);
	return NULL;
}

/* Two handles: rk fetches (and stays assigned between batches, see
 * kafka_read.c; its queue is popped by the fetcher thread only,
 * kafka_fetch.c); mk asks the metadata and the watermarks on connections of
 * its own, so those replies never queue behind a fetch the broker holds
 * for fetch.wait.max.ms. */
int sl_kafka_src_consumer(ksrc *k, sl_err *err)
{
	if (k->rk != NULL)
		return 0;
	if ((k->mk = client_new(k, err)) == NULL)
		return err ? err->code : SL_EIO;
	if ((k->rk = client_new(k, err)) == NULL) {
		rd_kafka_destroy(k->mk);
		k->mk = NULL;
		return err ? err->code : SL_EIO;
	}
	rd_kafka_poll_set_consumer(k->rk);
	k->q = rd_kafka_queue_get_consumer(k->rk);
	if (sl_kafka_fetch_start(k, err) != 0) {
		rd_kafka_queue_destroy(k->q);
		k->q = NULL;
		rd_kafka_consumer_close(k->rk);
		rd_kafka_destroy(k->rk);
		k->rk = NULL;
		rd_kafka_consumer_close(k->mk);
		rd_kafka_destroy(k->mk);
		k->mk = NULL;
		return err ? err->code : SL_EIO;
	}
	return 0;
}

/* Partitions to read now (offsets set to -2), by the strategy. */
static int partitions(ksrc *k, sl_kafka_tpmap *out, sl_err *err)
{
	const struct rd_kafka_metadata *md;
	rd_kafka_resp_err_t e;
	regex_t re;
	int rc = 0;
	if (k->conf.strategy == ST_ASSIGN)
		return sl_kafka_tpmap_parse(out, k->conf.strategy_val, true,
					    "assign", err);
	rd_kafka_poll(k->mk, 0); /* drop its queued events */
	e = rd_kafka_metadata(k->mk, 1, NULL, &md, META_TIMEOUT_MS);
	if (e)
		return sl_err_set(err, SL_EIO,
				  "kafka: cannot read the cluster metadata: %s",
				  rd_kafka_err2str(e));
	if (k->conf.strategy == ST_PATTERN &&
	    regcomp(&re, k->conf.strategy_val, REG_EXTENDED | REG_NOSUB)) {
		rd_kafka_metadata_destroy(md);
		return sl_err_set(err, SL_EINVAL,
				  "subscribePattern: bad pattern '%s'",
				  k->conf.strategy_val);
	}
	for (int i = 0; i < md->topic_cnt && rc == 0; i++) {
		const struct rd_kafka_metadata_topic *t = &md->topics[i];
		bool want;
		if (t->err || strncmp(t->topic, "__", 2) == 0)
			continue;
		if (k->conf.strategy == ST_PATTERN) {
			/* Java's Pattern.matcher(topic).matches(): whole name */
			regmatch_t m0;
			want = regexec(&re, t->topic, 0, NULL, 0) == 0;
			(void)m0;
			if (want) {
				regex_t whole;
				char buf[600];
				snprintf(buf, sizeof buf, "^(%s)$",
					 k->conf.strategy_val);
				want =
				    regcomp(&whole, buf,
					    REG_EXTENDED | REG_NOSUB) == 0 &&
				    regexec(&whole, t->topic, 0, NULL, 0) == 0;
				regfree(&whole);
			}
		} else {
			const char *p = k->conf.strategy_val;
			size_t n = strlen(t->topic);
			want = false;
			while (*p && !want) {
				size_t len = strcspn(p, ",");
				const char *a = p, *b = p + len;
				while (a < b && (*a == ' ' || *a == '\t'))
					a++;
				while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
					b--;
				want = (size_t)(b - a) == n &&
				       strncmp(a, t->topic, n) == 0;
				p += len + (p[len] == ',');
			}
		}
		for (int j = 0; want && j < t->partition_cnt && rc == 0; j++)
			if (sl_kafka_tpmap_put(out, t->topic,
					       t->partitions[j].id, -2) != 0 ||
			    sl_kafka_tpmap_put(&k->lead, t->topic,
					       t->partitions[j].id,
					       t->partitions[j].leader) != 0)
				rc = sl_err_nomem(err);
	}
	if (k->conf.strategy == ST_PATTERN)
		regfree(&re);
	rd_kafka_metadata_destroy(md);
	sl_kafka_tpmap_sort(out);
	k->lead_fresh = rc == 0; /* the watermarks need not ask again */
	return rc;
}

/* ---- watermarks, bounded in time ----
 *
 * rd_kafka_query_watermark_offsets waits for the ListOffsets reply of the
 * partition's leader whatever its timeout says, so a leader that is down
 * stalls planning for the socket timeout (a minute).  Instead the
 * partitions are grouped by leader (from one metadata request) and every
 * group is asked with one rd_kafka_offsets_for_times (timestamp -1: the
 * end, -2: the beginning), which does honour its timeout; all groups share
 * one budget of WM_TIMEOUT_MS (each gets at least WM_MIN_MS, so a healthy
 * broker asked after a dead one still answers).  A group that does not
 * answer in time is unavailable: its partitions keep their last known end
 * (the caller plans nothing new for them). */

#define WM_MIN_MS 250

/* Leader broker per partition of parts (-1 when unknown). */
static int leaders(ksrc *k, const sl_kafka_tpmap *parts, sl_kafka_tpmap *out,
		   sl_err *err)
{
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_resp_err_t e =
	    rd_kafka_metadata(k->mk, 1, NULL, &md, WM_TIMEOUT_MS);
	for (int i = 0; i < parts->n; i++) {
		const sl_kafka_tp *t = &parts->v[i];
		int64_t lead = -1;
		for (int j = 0; !e && j < md->topic_cnt && lead < 0; j++) {
			const struct rd_kafka_metadata_topic *mt =
			    &md->topics[j];
			if (strcmp(mt->topic, t->topic) != 0)
				continue;
			for (int m = 0; m < mt->partition_cnt; m++)
				if (mt->partitions[m].id == t->partition)
					lead = mt->partitions[m].leader;
		}
		if (sl_kafka_tpmap_put(out, t->topic, t->partition, lead) !=
		    0) {
			if (md != NULL)
				rd_kafka_metadata_destroy(md);
			return sl_err_nomem(err);
		}
	}
	if (md != NULL)
		rd_kafka_metadata_destroy(md);
	return 0;
}

/* Ask one group (the partitions of parts whose leader is lead) for their
 * offsets at ts (-1 end, -2 beginning); answers go to out.  Returns false
 * when the group did not answer (in time). */
static bool ask_group(ksrc *k, const sl_kafka_tpmap *parts,
		      const sl_kafka_tpmap *lead, int64_t leader, int64_t ts,
		      int timeout_ms, sl_kafka_tpmap *out, bool *nomem)
{
	rd_kafka_topic_partition_list_t *l =
	    rd_kafka_topic_partition_list_new(parts->n);
	bool ok;
	for (int i = 0; i < parts->n; i++)
		if (lead->v[i].offset == leader)
			rd_kafka_topic_partition_list_add(l, parts->v[i].topic,
							  parts->v[i].partition)
			    ->offset = ts;
	ok = rd_kafka_offsets_for_times(k->mk, l, timeout_ms) == 0;
	for (int i = 0; ok && i < l->cnt; i++) {
		const rd_kafka_topic_partition_t *tp = &l->elems[i];
		if (tp->err || tp->offset < 0)
			continue; /* that partition is unavailable */
		if (sl_kafka_tpmap_put(out, tp->topic, tp->partition,
				       tp->offset) != 0)
			*nomem = true;
	}
	rd_kafka_topic_partition_list_destroy(l);
	return ok;
}

/* The leaders of parts (in parts' order) from k->lead, when it knows
 * them all. */
static bool leaders_known(ksrc *k, const sl_kafka_tpmap *parts,
			  sl_kafka_tpmap *out)
{
	for (int i = 0; i < parts->n; i++) {
		const sl_kafka_tp *t = &parts->v[i];
		int j = sl_kafka_tpmap_find(&k->lead, t->topic, t->partition);
		if (j < 0 || sl_kafka_tpmap_put(out, t->topic, t->partition,
						k->lead.v[j].offset) != 0)
			return false;
	}
	return true;
}

/* Low (when lo != NULL) and high (when hi != NULL) watermarks of parts,
 * in at most about WM_TIMEOUT_MS; partitions that could not be asked are
 * missing from hi and lo.  The simulated retention floor raises low.
 * cached: use the leaders last seen (k->lead) instead of asking the
 * metadata again. */
int sl_kafka_src_wmarks(ksrc *k, const sl_kafka_tpmap *parts,
			sl_kafka_tpmap *lo, sl_kafka_tpmap *hi, bool cached,
			sl_err *err)
{
	sl_kafka_tpmap lead;
	int64_t t0 = sl_clock_monotonic_us();
	bool nomem = false;
	int rc = 0;
	sl_kafka_tpmap_init(&lead);
	if (!cached || !leaders_known(k, parts, &lead)) {
		sl_kafka_tpmap_release(&lead);
		sl_kafka_tpmap_init(&lead);
		if ((rc = leaders(k, parts, &lead, err)) != 0 ||
		    (rc = sl_kafka_tpmap_copy(&k->lead, &lead)) != 0)
			goto out;
	}
	for (int i = 0; i < parts->n && !nomem; i++) {
		int64_t leader = lead.v[i].offset, left;
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = lead.v[j].offset == leader;
		if (seen)
			continue; /* group already asked */
		left = WM_TIMEOUT_MS - (sl_clock_monotonic_us() - t0) / 1000;
		if (left < WM_MIN_MS)
			left = WM_MIN_MS;
		if ((hi == NULL || ask_group(k, parts, &lead, leader, -1,
					     (int)left, hi, &nomem)) &&
		    lo != NULL)
			ask_group(k, parts, &lead, leader, -2, (int)left, lo,
				  &nomem);
	}
	if (nomem) {
		rc = sl_err_nomem(err);
		goto out;
	}
	for (int i = 0;
	     lo && i < lo->n && sl_kafka_is_embedded(k->conf.servers); i++) {
		sl_kafka_tp *t = &lo->v[i];
		int64_t f = sl_kafka_retention_floor(t->topic, t->partition);
		int j =
		    hi ? sl_kafka_tpmap_find(hi, t->topic, t->partition) : -1;
		int64_t h = j < 0 ? f : hi->v[j].offset;
		if (f > t->offset)
			t->offset = f < h ? f : h;
	}
out:
	sl_kafka_tpmap_release(&lead);
	return rc;
}

/* ---- the initial offsets, kept in <metadir>/0 ---- */

static int initial_load(ksrc *k, sl_err *err)
{
	char path[4096], text[65536];
	const char *p = text;
	size_t n;
	FILE *f;
	snprintf(path, sizeof path, "%s/0", k->metadir);
	f = fopen(path, "r");
	if (f == NULL)
		return errno == ENOENT
			   ? 0
			   : sl_err_set(err, SL_ECHECKPOINT,
					"kafka: cannot read '%s': %s", path,
					strerror(errno));
	n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	if (n > 0 && text[0] == '\0')
		p = text + 1; /* Spark's SPARK-19517 zero byte */
	if (strncmp(p, "v1\n", 3) != 0)
		return sl_err_set(err, SL_ECHECKPOINT,
				  "kafka: bad initial offsets in '%s'", path);
	if (sl_kafka_tpmap_parse(&k->initial, p + 3, false, path, err) != 0)
		return SL_ECHECKPOINT;
	k->have_initial = true;
	return 0;
}

static int initial_save(ksrc *k, sl_err *err)
{
	char path[4096], tmp[4200];
	sl_buf b;
	int fd, ok;
	if (k->metadir == NULL)
		return 0;
	if (sl_source_mkdirs(k->metadir, err) != 0)
		return SL_ECHECKPOINT;
	snprintf(path, sizeof path, "%s/0", k->metadir);
	snprintf(tmp, sizeof tmp, "%s/.0.tmp", k->metadir);
	sl_buf_init(&b);
	sl_buf_addc(&b, 'v'); /* the zero byte is written below */
	sl_buf_adds(&b, "1\n");
	sl_kafka_tpmap_json(&k->initial, &b);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	ok = fd >= 0 && write(fd, "", 1) == 1 &&
	     write(fd, b.p, b.len) == (ssize_t)b.len && fsync(fd) == 0;
	if (fd >= 0)
		ok = close(fd) == 0 && ok;
	sl_buf_release(&b);
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return sl_err_set(err, SL_ECHECKPOINT,
				  "kafka: cannot write '%s': %s", path,
				  strerror(errno));
	}
	return 0;
}

/* startingOffsets resolved against the partitions and their watermarks
 * (lat holds low in offset... see caller): earliest -> low, latest ->
 * high, JSON -> the values (-2 earliest, -1 latest). */
static int initial_resolve(ksrc *k, const sl_kafka_tpmap *lo,
			   const sl_kafka_tpmap *hi, sl_err *err)
{
	const char *s = k->conf.starting;
	sl_kafka_tpmap spec;
	int rc = 0;
	sl_kafka_tpmap_init(&spec);
	if (strcasecmp(s, "earliest") == 0) {
		rc = sl_kafka_tpmap_copy(&k->initial, lo);
	} else if (strcasecmp(s, "latest") == 0) {
		rc = sl_kafka_tpmap_copy(&k->initial, hi);
	} else if ((rc = sl_kafka_tpmap_parse(&spec, s, false,
					      "startingOffsets", err)) == 0) {
		for (int i = 0; i < hi->n && rc == 0; i++) {
			const sl_kafka_tp *t = &hi->v[i];
			int j =
			    sl_kafka_tpmap_find(&spec, t->topic, t->partition);
			int64_t off;
			if (j < 0) {
				rc = sl_err_set(
				    err, SL_EINVAL,
				    "If startingOffsets contains specific "
				    "offsets, you must specify all "
				    "TopicPartitions. Use -1 for latest, -2 "
				    "for earliest. Missing: %s-%d",
				    t->topic, (int)t->partition);
				break;
			}
			off = spec.v[j].offset;
			off = off == -2   ? lo->v[i].offset
			      : off == -1 ? t->offset
					  : off;
			rc = sl_kafka_tpmap_put(&k->initial, t->topic,
						t->partition, off);
		}
	}
	sl_kafka_tpmap_release(&spec);
	if (rc != 0)
		return rc;
	k->have_initial = true;
	return initial_save(k, err);
}

/* ---- latest ---- */

/* The status reason for the partitions of parts missing from got (down
 * of them): "kafka: partition t-1 unavailable: leader broker 2 not
 * answering", or for several "kafka: 3 partitions unavailable: t-1
 * (broker 2), t-4 (broker 2), ..." (at most 3 named). */
static void why_down(ksrc *k, const sl_kafka_tpmap *parts,
		     const sl_kafka_tpmap *got, int down)
{
	int named = 0;
	if (down == 0)
		return;
	if (down > 1)
		sl_buf_printf(&k->why,
			      "kafka: %d partitions unavailable: ", down);
	for (int i = 0; i < parts->n && named < 3; i++) {
		const sl_kafka_tp *t = &parts->v[i];
		int j = sl_kafka_tpmap_find(&k->lead, t->topic, t->partition);
		int64_t b = j >= 0 ? k->lead.v[j].offset : -1;
		if (sl_kafka_tpmap_find(got, t->topic, t->partition) >= 0)
			continue;
		if (down == 1 && b >= 0)
			sl_buf_printf(&k->why,
				      "kafka: partition %s-%d unavailable: "
				      "leader broker %lld not answering",
				      t->topic, (int)t->partition,
				      (long long)b);
		else if (down == 1)
			sl_buf_printf(&k->why,
				      "kafka: partition %s-%d unavailable: "
				      "no leader",
				      t->topic, (int)t->partition);
		else if (b >= 0)
			sl_buf_printf(&k->why, "%s%s-%d (broker %lld)",
				      named ? ", " : "", t->topic,
				      (int)t->partition, (long long)b);
		else
			sl_buf_printf(&k->why, "%s%s-%d (no leader)",
				      named ? ", " : "", t->topic,
				      (int)t->partition);
		named++;
	}
	if (down > named)
		sl_buf_adds(&k->why, ", ...");
}

static int klatest(sl_source *s, char **offset, sl_err *err)
{
	ksrc *k = s->impl;
	sl_kafka_tpmap parts, lo, hi, got, glo;
	sl_buf b;
	int rc, down = 0;
	*offset = NULL;
	sl_kafka_tpmap_init(&got);
	sl_kafka_tpmap_init(&glo);
	sl_kafka_tpmap_init(&parts);
	sl_kafka_tpmap_init(&lo);
	sl_kafka_tpmap_init(&hi);
	sl_buf_clear(&k->why);
	k->lead_fresh = false;
	if ((rc = sl_kafka_src_consumer(k, err)) != 0)
		goto out;
	if ((rc = partitions(k, &parts, err)) != 0) {
		if (rc != SL_EIO || k->known.n == 0)
			goto out;
		/* cluster unreachable: plan nothing new */
		sl_kafka_src_note(k, "kafka source unavailable: %s",
				  err ? err->msg : "");
		sl_buf_adds(&k->why, "kafka: cluster unreachable");
		rc = sl_kafka_tpmap_copy(&hi, &k->known);
		goto done;
	}
	rc = sl_kafka_src_wmarks(k, &parts, k->have_initial ? NULL : &glo, &got,
				 k->lead_fresh, err);
	k->lead_fresh = false;
	if (rc != 0)
		goto out;
	for (int i = 0; i < parts.n && rc == 0; i++) {
		const sl_kafka_tp *t = &parts.v[i];
		int64_t l, h;
		int j = sl_kafka_tpmap_find(&k->known, t->topic, t->partition);
		int g = sl_kafka_tpmap_find(&got, t->topic, t->partition);
		int gl = sl_kafka_tpmap_find(&glo, t->topic, t->partition);
		if (g < 0 || (!k->have_initial && gl < 0)) {
			down++;
			sl_kafka_src_note(
			    k,
			    "kafka source: topic '%s' partition %d "
			    "unavailable (its leader does not answer), "
			    "planning nothing new for it",
			    t->topic, (int)t->partition);
			if (j < 0)
				continue; /* never seen: nothing to plan */
			l = h = k->known.v[j].offset;
		} else {
			h = got.v[g].offset;
			l = gl < 0 ? h : glo.v[gl].offset;
			/* a lagging leader never moves the end back */
			if (j >= 0 && h < k->known.v[j].offset)
				h = k->known.v[j].offset;
		}
		if (sl_kafka_tpmap_put(&lo, t->topic, t->partition, l) != 0 ||
		    sl_kafka_tpmap_put(&hi, t->topic, t->partition, h) != 0 ||
		    sl_kafka_tpmap_put(&k->known, t->topic, t->partition, h))
			rc = sl_err_nomem(err);
	}
	if (down > 0)
		sl_kafka_src_note(
		    k,
		    "kafka source: %d partition(s) unavailable, waiting "
		    "for their brokers",
		    down);
	why_down(k, &parts, &got, down);
	if (rc == 0)
		sl_kafka_src_idle(k, &hi);
	if (rc == 0 && !k->have_initial && down == 0)
		rc = initial_resolve(k, &lo, &hi, err);
done:
	if (rc == 0 && k->have_initial && hi.n > 0) {
		sl_buf_init(&b);
		sl_kafka_tpmap_json(&hi, &b);
		*offset = sl_buf_detach(&b);
		if (*offset == NULL)
			rc = sl_err_nomem(err);
	}
out:
	sl_kafka_src_drain(k);
	sl_kafka_tpmap_release(&parts);
	sl_kafka_tpmap_release(&lo);
	sl_kafka_tpmap_release(&hi);
	sl_kafka_tpmap_release(&got);
	sl_kafka_tpmap_release(&glo);
	return rc;
}

/* The offsets a batch starts from: start, else the initial offsets. */
int sl_kafka_src_from(ksrc *k, const char *start, sl_kafka_tpmap *m,
		      sl_err *err)
{
	if (start != NULL)
		return sl_kafka_tpmap_parse(m, start, false, "kafka offset",
					    err);
	if (!k->have_initial)
		return sl_err_set(err, SL_EINTERNAL,
				  "kafka: starting offsets not resolved");
	return sl_kafka_tpmap_copy(m, &k->initial) ? sl_err_nomem(err) : 0;
}

/* ---- rate limit: Spark's KafkaMicroBatchStream.rateLimit ---- */

static int klimit(sl_source *s, const char *start, const char *latest,
		  char **end, sl_err *err)
{
	ksrc *k = s->impl;
	sl_kafka_tpmap from, until;
	double total = 0;
	int rc;
	sl_buf b;
	*end = NULL;
	sl_kafka_tpmap_init(&from);
	sl_kafka_tpmap_init(&until);
	if ((rc = sl_kafka_src_from(k, start, &from, err)) != 0 ||
	    (rc = sl_kafka_tpmap_parse(&until, latest, false, "kafka offset",
				       err)) != 0)
		goto out;
	for (int i = 0; i < until.n; i++) {
		int j = sl_kafka_tpmap_find(&from, until.v[i].topic,
					    until.v[i].partition);
		int64_t a = j >= 0 ? from.v[j].offset : 0;
		if (until.v[i].offset > a)
			total += (double)(until.v[i].offset - a);
	}
	if (k->conf.min_offsets > 0 && total < (double)k->conf.min_offsets &&
	    sl_clock_now(k->clock) - k->last_trigger_us <
		k->conf.max_delay_us) {
		/* minOffsetsPerTrigger: not enough yet, plan nothing */
		sl_kafka_tpmap_release(&until);
		sl_kafka_tpmap_init(&until);
		rc = sl_kafka_tpmap_copy(&until, &from);
		goto emit;
	}
	if (k->conf.max_offsets > 0 && total >= 1) {
		double limit = (double)k->conf.max_offsets;
		for (int i = 0; i < until.n; i++) {
			int j = sl_kafka_tpmap_find(&from, until.v[i].topic,
						    until.v[i].partition);
			int64_t a = j >= 0 ? from.v[j].offset : 0;
			int64_t size = until.v[i].offset - a, step, off;
			double prorate;
			if (size <= 0)
				continue;
			prorate = limit * ((double)size / total);
			step = (int64_t)(prorate < 1 ? ceil(prorate)
						     : floor(prorate));
			off = a + step;
			if (off < until.v[i].offset)
				until.v[i].offset = off;
		}
	}
	if (total >= 1)
		k->last_trigger_us = sl_clock_now(k->clock);
emit:
	if (rc == 0) {
		sl_buf_init(&b);
		sl_kafka_tpmap_json(&until, &b);
		*end = sl_buf_detach(&b);
		if (*end == NULL)
			rc = sl_err_nomem(err);
	}
out:
	sl_kafka_tpmap_release(&from);
	sl_kafka_tpmap_release(&until);
	return rc;
}

static void kdescribe(const sl_source *s, sl_buf *out)
{
	const ksrc *k = s->impl;
	static const char *const names[] = { "", "Subscribe",
					     "SubscribePattern", "Assign" };
	sl_buf_printf(out, "KafkaV2[%s[%s]]", names[k->conf.strategy],
		      k->conf.strategy_val);
}

static void kstatus(const sl_source *s, sl_buf *out)
{
	const ksrc *k = s->impl;
	if (k->why.len > 0)
		sl_buf_add(out, k->why.p, k->why.len);
}

static void kclose(sl_source *s)
{
	ksrc *k = s->impl;
	sl_kafka_fetch_stop(k); /* before the queue it pops goes */
	sl_kafka_src_stash_clear(k);
	if (k->q)
		rd_kafka_queue_destroy(k->q);
	if (k->rk) {
		rd_kafka_assign(k->rk, NULL);
		rd_kafka_consumer_close(k->rk);
		rd_kafka_destroy(k->rk);
	}
	if (k->mk) {
		rd_kafka_consumer_close(k->mk);
		rd_kafka_destroy(k->mk);
	}
	sl_kafka_tpmap_release(&k->initial);
	sl_kafka_tpmap_release(&k->known);
	sl_kafka_tpmap_release(&k->lead);
	sl_kafka_tpmap_release(&k->asg);
	sl_buf_release(&k->why);
	sl_options_release(&k->opts);
	free(k->metadir);
	free(k);
}

static const struct sl_source_ops kafka_ops = {
	.name = "kafka",
	.latest = klatest,
	.limit = klimit,
	.read = sl_kafka_src_read,
	.commit = NULL, /* nothing is committed to Kafka, as Spark */
	.describe = kdescribe,
	.close = kclose,
	.status = kstatus,
};

sl_source *sl_source_kafka_open(const sl_options *opts, sl_type *schema,
				sl_clock *clock, const char *metadir,
				sl_err *err)
{
	ksrc *k = calloc(1, sizeof *k);
	sl_source *s;
	if (k == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	sl_options_init(&k->opts);
	sl_kafka_tpmap_init(&k->initial);
	sl_kafka_tpmap_init(&k->known);
	sl_kafka_tpmap_init(&k->lead);
	sl_kafka_tpmap_init(&k->asg);
	sl_batch_list_init(&k->ready);
	sl_buf_init(&k->why);
	k->clock = clock;
	k->last_trigger_us = sl_clock_now(clock);
	if (sl_options_copy(&k->opts, opts) != 0 ||
	    (metadir && (k->metadir = strdup(metadir)) == NULL)) {
		sl_err_nomem(err);
		goto fail;
	}
	if (conf_parse(&k->opts, &k->conf, err) != 0 ||
	    (k->metadir && initial_load(k, err) != 0))
		goto fail;
	s = sl_source_shell(&kafka_ops, schema, true, k, err);
	if (s == NULL)
		goto fail;
	k->self = s;
	return s;
fail:
	sl_kafka_tpmap_release(&k->initial);
	sl_kafka_tpmap_release(&k->known);
	sl_kafka_tpmap_release(&k->lead);
	sl_buf_release(&k->why);
	sl_options_release(&k->opts);
	free(k->metadir);
	free(k);
	return NULL;
}

int64_t sl_source_kafka_lost(const sl_source *s)
{
	return s->ops == &kafka_ops ? ((const ksrc *)s->impl)->lost : 0;
}
