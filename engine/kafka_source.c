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

#include "feed.h"
#include "kafka_int.h"
#include "source_int.h"
#include "timeutil.h"

#define CHUNK 65536
#define WM_TIMEOUT_MS 2000
#define META_TIMEOUT_MS 5000
#define SCHEMA_DDL                                                             \
	"key BINARY, value BINARY, topic STRING, partition INT, offset "      \
	"BIGINT, timestamp TIMESTAMP, timestampType INT"
#define HEADERS_DDL ", headers ARRAY<STRUCT<key: STRING, value: BINARY>>"

enum { ST_SUBSCRIBE = 1, ST_PATTERN, ST_ASSIGN };

typedef struct kconf {
	int strategy;
	const char *strategy_val; /* borrowed from the options */
	const char *starting;     /* "earliest" | "latest" | JSON */
	const char *servers;      /* NULL: embedded */
	int64_t max_offsets;      /* 0: no limit */
	int64_t min_offsets;      /* 0: none */
	int64_t max_delay_us;
	int64_t poll_timeout_ms;
	bool fail_on_loss;
	bool headers;
} kconf;

/* ---- options ---- */

static const struct {
	const char *key, *msg;
} rejected[] = {
	{"kafka.auto.offset.reset",
	 "Kafka option 'auto.offset.reset' is not supported. Instead set the "
	 "source option 'startingoffsets' to 'earliest' or 'latest' to specify "
	 "where to start. Structured Streaming manages which offsets are "
	 "consumed internally, rather than relying on the kafkaConsumer."},
	{"kafka.enable.auto.commit",
	 "Kafka option 'enable.auto.commit' is not supported. This is "
	 "unsupported as streaming source manages the offset internally."},
	{"kafka.interceptor.classes",
	 "Kafka option 'interceptor.classes' is not supported as user-specified "
	 "consumer interceptors are not supported"},
	{"kafka.key.deserializer",
	 "Kafka option 'key.deserializer' is not supported, as keys are "
	 "deserialized as byte arrays with ByteArrayDeserializer. Use DataFrame "
	 "operations to explicitly deserialize the keys."},
	{"kafka.value.deserializer",
	 "Kafka option 'value.deserializer' is not supported, as values are "
	 "deserialized as byte arrays with ByteArrayDeserializer. Use DataFrame "
	 "operations to explicitly deserialize the values."},
};

static int strategy(const sl_options *o, kconf *c, sl_err *err)
{
	static const char *const keys[] = {"subscribe", "subscribePattern",
					   "assign"};
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
		return sl_err_set(err, SL_EINVAL,
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
		return sl_err_set(err, SL_EINVAL,
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
	    sl_options_bool(o, "failOnDataLoss", true, &c->fail_on_loss,
			    err) != 0 ||
	    sl_options_bool(o, "includeHeaders", false, &c->headers, err) != 0)
		return err ? err->code : SL_EINVAL;
	c->max_delay_us = 15 * SL_US_PER_MIN;
	if ((v = sl_options_get(o, "maxTriggerDelay")) != NULL &&
	    (!sl_source_time_string(v, 1000, &c->max_delay_us) ||
	     c->max_delay_us < 0))
		return sl_err_set(err, SL_EINVAL,
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
	return sl_type_parse_ddl(c.headers ? SCHEMA_DDL HEADERS_DDL : SCHEMA_DDL,
				 err);
}

/* ---- the instance ---- */

typedef struct ksrc {
	kconf conf;
	sl_options opts; /* our copy; conf borrows from it */
	sl_clock *clock;
	char *metadir;
	rd_kafka_t *rk;
	rd_kafka_queue_t *q;
	sl_kafka_tpmap initial;
	bool have_initial;
	sl_kafka_tpmap known; /* last latest per partition (broker outages) */
	int64_t last_trigger_us;
	int64_t lost;
	uint64_t logseq;
	sl_source *self;
} ksrc;

static void note(ksrc *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A line for the feed (and the log ring, so the REPL sees it too). */
static void note(ksrc *k, const char *fmt, ...)
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
 * query's feed. */
static void drain_logs(ksrc *k)
{
	char line[400];
	sl_feed *f = k->self ? k->self->feed : NULL;
	while (sl_kafka_log_next(&k->logseq, line, sizeof line))
		if (f != NULL)
			sl_feed_add(f, SL_EV_LOG, -1, sl_clock_now(k->clock),
				    line, NULL);
}

static int consumer(ksrc *k, sl_err *err)
{
	const char *list;
	rd_kafka_conf_t *c;
	char es[256];
	const sl_options *o = &k->opts;
	if (k->rk != NULL)
		return 0;
	if (sl_kafka_resolve(k->conf.servers, &list, err) != 0 ||
	    (c = sl_kafka_conf_new(list, err)) == NULL)
		return err ? err->code : SL_EIO;
	if (sl_kafka_conf_set(c, "group.id", "spark-kafka-source-streamlab",
			      err) != 0 ||
	    sl_kafka_conf_set(c, "enable.auto.commit", "false", err) != 0 ||
	    sl_kafka_conf_set(c, "enable.auto.offset.store", "false", err) ||
	    sl_kafka_conf_set(c, "auto.offset.reset", "error", err) != 0 ||
	    sl_kafka_conf_set(c, "enable.partition.eof", "true", err) != 0 ||
	    sl_kafka_conf_set(c, "queued.min.messages", "1000000", err) != 0 ||
	    sl_kafka_conf_set(c, "fetch.wait.max.ms", "10", err) != 0 ||
	    sl_kafka_conf_set(c, "max.partition.fetch.bytes", "8388608",
			      err) != 0 ||
	    sl_kafka_conf_set(c, "fetch.error.backoff.ms", "50", err) != 0)
		goto fail;
	for (int i = 0; i < o->n; i++)
		if (strncasecmp(o->keys[i], "kafka.", 6) == 0 &&
		    strcasecmp(o->keys[i], "kafka.bootstrap.servers") != 0 &&
		    sl_kafka_conf_set(c, o->keys[i] + 6, o->vals[i], err) != 0)
			goto fail;
	k->rk = rd_kafka_new(RD_KAFKA_CONSUMER, c, es, sizeof es);
	if (k->rk == NULL) {
		sl_err_set(err, SL_EIO, "kafka: cannot create a consumer: %s",
			   es);
		goto fail;
	}
	rd_kafka_poll_set_consumer(k->rk);
	k->q = rd_kafka_queue_get_consumer(k->rk);
	return 0;
fail:
	rd_kafka_conf_destroy(c);
	return err ? err->code : SL_EIO;
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
	e = rd_kafka_metadata(k->rk, 1, NULL, &md, META_TIMEOUT_MS);
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
				want = regcomp(&whole, buf,
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
			if (sl_kafka_tpmap_put(out, t->topic, t->partitions[j].id,
					       -2) != 0)
				rc = sl_err_nomem(err);
	}
	if (k->conf.strategy == ST_PATTERN)
		regfree(&re);
	rd_kafka_metadata_destroy(md);
	sl_kafka_tpmap_sort(out);
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
	rd_kafka_resp_err_t e = rd_kafka_metadata(k->rk, 1, NULL, &md,
						  WM_TIMEOUT_MS);
	for (int i = 0; i < parts->n; i++) {
		const sl_kafka_tp *t = &parts->v[i];
		int64_t lead = -1;
		for (int j = 0; !e && j < md->topic_cnt && lead < 0; j++) {
			const struct rd_kafka_metadata_topic *mt = &md->topics[j];
			if (strcmp(mt->topic, t->topic) != 0)
				continue;
			for (int m = 0; m < mt->partition_cnt; m++)
				if (mt->partitions[m].id == t->partition)
					lead = mt->partitions[m].leader;
		}
		if (sl_kafka_tpmap_put(out, t->topic, t->partition, lead) != 0) {
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
	ok = rd_kafka_offsets_for_times(k->rk, l, timeout_ms) == 0;
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

/* Low (when lo != NULL) and high watermarks of parts, in at most about
 * WM_TIMEOUT_MS; partitions that could not be asked are missing from hi
 * (and lo).  The simulated retention floor raises low. */
static int wmarks(ksrc *k, const sl_kafka_tpmap *parts, sl_kafka_tpmap *lo,
		  sl_kafka_tpmap *hi, sl_err *err)
{
	sl_kafka_tpmap lead;
	int64_t t0 = sl_clock_monotonic_us();
	bool nomem = false;
	int rc;
	sl_kafka_tpmap_init(&lead);
	if ((rc = leaders(k, parts, &lead, err)) != 0)
		goto out;
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
		if (ask_group(k, parts, &lead, leader, -1, (int)left, hi,
			      &nomem) &&
		    lo != NULL)
			ask_group(k, parts, &lead, leader, -2, (int)left, lo,
				  &nomem);
	}
	if (nomem) {
		rc = sl_err_nomem(err);
		goto out;
	}
	for (int i = 0; lo && i < lo->n && sl_kafka_is_embedded(k->conf.servers);
	     i++) {
		sl_kafka_tp *t = &lo->v[i];
		int64_t f = sl_kafka_retention_floor(t->topic, t->partition);
		int j = sl_kafka_tpmap_find(hi, t->topic, t->partition);
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
		return errno == ENOENT ? 0
				       : sl_err_set(err, SL_ECHECKPOINT,
						    "kafka: cannot read '%s': %s",
						    path, strerror(errno));
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
			int j = sl_kafka_tpmap_find(&spec, t->topic,
						    t->partition);
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
			off = off == -2 ? lo->v[i].offset
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
	if ((rc = consumer(k, err)) != 0)
		goto out;
	if ((rc = partitions(k, &parts, err)) != 0) {
		if (rc != SL_EIO || k->known.n == 0)
			goto out;
		/* cluster unreachable: plan nothing new */
		note(k, "kafka source unavailable: %s", err ? err->msg : "");
		rc = sl_kafka_tpmap_copy(&hi, &k->known);
		goto done;
	}
	if ((rc = wmarks(k, &parts, k->have_initial ? NULL : &glo, &got,
			 err)) != 0)
		goto out;
	for (int i = 0; i < parts.n && rc == 0; i++) {
		const sl_kafka_tp *t = &parts.v[i];
		int64_t l, h;
		int j = sl_kafka_tpmap_find(&k->known, t->topic, t->partition);
		int g = sl_kafka_tpmap_find(&got, t->topic, t->partition);
		int gl = sl_kafka_tpmap_find(&glo, t->topic, t->partition);
		if (g < 0 || (!k->have_initial && gl < 0)) {
			down++;
			note(k, "kafka source: topic '%s' partition %d "
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
		note(k, "kafka source: %d partition(s) unavailable, waiting "
			"for their brokers",
		     down);
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
	drain_logs(k);
	sl_kafka_tpmap_release(&parts);
	sl_kafka_tpmap_release(&lo);
	sl_kafka_tpmap_release(&hi);
	sl_kafka_tpmap_release(&got);
	sl_kafka_tpmap_release(&glo);
	return rc;
}

/* The offsets a batch starts from: start, else the initial offsets. */
static int from_offsets(ksrc *k, const char *start, sl_kafka_tpmap *m,
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
	if ((rc = from_offsets(k, start, &from, err)) != 0 ||
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
			step = (int64_t)(prorate < 1 ? ceil(prorate) : floor(prorate));
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
	for (int i = 0; i < nc && i < 7; i++)
		if ((r->c[i] = sl_col_new(r->schema->fields[i].type, cap)) ==
		    NULL)
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

/* One record into row r->n.  tcache: the topic's bytes in this chunk's
 * arena (set on the first row of the topic). */
static int rb_add(rowbuf *r, const rd_kafka_message_t *m, const char *topic,
		  const char **tcache)
{
	int64_t i = r->n;
	rd_kafka_timestamp_type_t tt;
	int64_t ts = rd_kafka_message_timestamp(m, &tt);
	if (m->key == NULL ? sl_col_set_null(r->c[0], i)
			   : sl_col_set_str(r->c[0], i, m->key, m->key_len))
		return SL_ENOMEM;
	if (m->payload == NULL ? sl_col_set_null(r->c[1], i)
			       : sl_col_set_str(r->c[1], i, m->payload,
						m->len))
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
		if (sl_col_set_null(r->c[5], i) != 0)
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
			for (size_t j = 0;
			     rd_kafka_header_get_all(h, j, &name, &v, &len) ==
			     0;
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
				     : sl_col_set_str(el->child[1], j,
						      r->hv[j].p,
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
		     const sl_kafka_tpmap *until, want *w, int *nw,
		     sl_err *err)
{
	sl_kafka_tpmap moving, los, his;
	int rc;
	*nw = 0;
	sl_kafka_tpmap_init(&moving);
	sl_kafka_tpmap_init(&los);
	sl_kafka_tpmap_init(&his);
	/* watermarks (one bounded round) of the partitions that may move */
	for (int i = 0; i < until->n; i++) {
		const sl_kafka_tp *t = &until->v[i];
		int j = sl_kafka_tpmap_find(from, t->topic, t->partition);
		if ((j < 0 || t->offset > from->v[j].offset) &&
		    sl_kafka_tpmap_put(&moving, t->topic, t->partition, 0) != 0) {
			sl_kafka_tpmap_release(&moving);
			return sl_err_nomem(err);
		}
	}
	rc = moving.n > 0 ? wmarks(k, &moving, &los, &his, err) : 0;
	if (rc == 0)
		rc = plan_moving(k, from, until, &los, w, nw, err);
	sl_kafka_tpmap_release(&moving);
	sl_kafka_tpmap_release(&los);
	sl_kafka_tpmap_release(&his);
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
			note(k, "kafka source: partition %s-%d went back from "
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
					t->topic, (int)t->partition,
					(long long)lo);
			k->lost += gone;
			note(k, "data loss: offsets [%lld, %lld) of topic '%s' "
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

/* Poll until every partition reached its end; rows into rb / out. */
static int poll_all(ksrc *k, want *w, int nw, rowbuf *rb, int64_t total,
		    sl_batch_list *out, sl_err *err)
{
	rd_kafka_message_t *msgs[1024];
	int left = nw, hint = -1, rc = 0;
	int64_t t0 = sl_clock_monotonic_us(), remaining = total;
	while (left > 0 && rc == 0) {
		/* Non-blocking batch (a timeout would wait for a full one),
		 * then block for a single record when nothing is queued. */
		ssize_t n = rd_kafka_consume_batch_queue(k->q, 0, msgs, 1024);
		if (n == 0 && (msgs[0] = rd_kafka_consume_queue(k->q, 100)))
			n = 1;
		if (sl_clock_monotonic_us() - t0 >
		    k->conf.poll_timeout_ms * 1000) {
			for (int i = 0; i < nw; i++)
				if (!w[i].done)
					rc = sl_err_set(
						err, SL_EIO,
						"kafka: timed out after %lld ms "
						"reading topic '%s' partition "
						"%d: got offsets [%lld, %lld) "
						"of [%lld, %lld)",
						(long long)k->conf.poll_timeout_ms,
						w[i].topic, (int)w[i].partition,
						(long long)w[i].from,
						(long long)w[i].pos,
						(long long)w[i].from,
						(long long)w[i].until);
		}
		for (ssize_t j = 0; j < n; j++) {
			rd_kafka_message_t *m = msgs[j];
			const char *tn = m->rkt ? rd_kafka_topic_name(m->rkt)
						: NULL;
			int i = tn ? find_want(w, nw, tn, m->partition, hint)
				   : -1;
			hint = i;
			if (rc != 0 || i < 0 || w[i].done) {
				/* stale, or already complete */
			} else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
				if (m->offset >= w[i].until) {
					w[i].done = true;
					left--;
				}
			} else if (m->err ==
					   RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
				   m->err ==
					   RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
				rc = sl_err_set(
					err, SL_EDATA,
					"data loss: wanted offsets [%lld, %lld) "
					"of topic '%s' partition %d, but they "
					"are out of range: %s",
					(long long)w[i].pos,
					(long long)w[i].until, w[i].topic,
					(int)w[i].partition,
					rd_kafka_message_errstr(m));
			} else if (m->err) {
				note(k, "kafka source: %s [%d]: %s", tn,
				     (int)m->partition,
				     rd_kafka_message_errstr(m));
			} else if (m->offset >= w[i].pos &&
				   m->offset < w[i].until) {
				if (rb->c[0] == NULL &&
				    rb_open(rb, remaining < CHUNK ? remaining
								  : CHUNK))
					rc = sl_err_nomem(err);
				else if (rb_add(rb, m, w[i].topic,
						&w[i].tcache) != 0)
					rc = sl_err_nomem(err);
				w[i].pos = m->offset + 1;
				remaining--;
				if (rc == 0 && rb->n == rb->cap) {
					if (rb_flush(rb, out) != 0)
						rc = sl_err_nomem(err);
					for (int x = 0; x < nw; x++)
						w[x].tcache = NULL;
				}
				if (w[i].pos >= w[i].until) {
					w[i].done = true;
					left--;
				}
			}
			rd_kafka_message_destroy(m);
		}
	}
	if (rc == 0 && rb_flush(rb, out) != 0)
		rc = sl_err_nomem(err);
	return rc;
}

static int kread(sl_source *s, const char *start, const char *end,
		 sl_batch_list *out, sl_err *err)
{
	ksrc *k = s->impl;
	sl_kafka_tpmap from, until;
	rd_kafka_topic_partition_list_t *l = NULL;
	rowbuf rb;
	want *w = NULL;
	int nw = 0, rc;
	int64_t total = 0;
	memset(&rb, 0, sizeof rb);
	rb.schema = s->schema;
	rb.headers = k->conf.headers;
	sl_kafka_tpmap_init(&from);
	sl_kafka_tpmap_init(&until);
	if ((rc = consumer(k, err)) != 0 ||
	    (rc = from_offsets(k, start, &from, err)) != 0 ||
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
	l = rd_kafka_topic_partition_list_new(nw);
	for (int i = 0; i < nw; i++) {
		rd_kafka_topic_partition_list_add(l, w[i].topic, w[i].partition)
			->offset = w[i].from;
		total += w[i].until - w[i].from;
	}
	if (rd_kafka_assign(k->rk, l) != 0) {
		rc = sl_err_set(err, SL_EIO, "kafka: cannot assign partitions");
		goto out;
	}
	rc = poll_all(k, w, nw, &rb, total, out, err);
	rd_kafka_assign(k->rk, NULL);
out:
	drain_logs(k);
	if (l)
		rd_kafka_topic_partition_list_destroy(l);
	rb_release(&rb);
	free(w);
	sl_kafka_tpmap_release(&from);
	sl_kafka_tpmap_release(&until);
	return rc;
}

static void kdescribe(const sl_source *s, sl_buf *out)
{
	const ksrc *k = s->impl;
	static const char *const names[] = {"", "Subscribe", "SubscribePattern",
					    "Assign"};
	sl_buf_printf(out, "KafkaV2[%s[%s]]", names[k->conf.strategy],
		      k->conf.strategy_val);
}

static void kclose(sl_source *s)
{
	ksrc *k = s->impl;
	if (k->q)
		rd_kafka_queue_destroy(k->q);
	if (k->rk) {
		rd_kafka_assign(k->rk, NULL);
		rd_kafka_consumer_close(k->rk);
		rd_kafka_destroy(k->rk);
	}
	sl_kafka_tpmap_release(&k->initial);
	sl_kafka_tpmap_release(&k->known);
	sl_options_release(&k->opts);
	free(k->metadir);
	free(k);
}

static const struct sl_source_ops kafka_ops = {
	.name = "kafka",
	.latest = klatest,
	.limit = klimit,
	.read = kread,
	.commit = NULL, /* nothing is committed to Kafka, as Spark */
	.describe = kdescribe,
	.close = kclose,
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
	sl_options_release(&k->opts);
	free(k->metadir);
	free(k);
	return NULL;
}

int64_t sl_source_kafka_lost(const sl_source *s)
{
	return s->ops == &kafka_ops ? ((const ksrc *)s->impl)->lost : 0;
}
