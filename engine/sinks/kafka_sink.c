/*
 * kafka_sink: Spark's Kafka sink (KafkaWriter) over librdkafka.
 *
 * Input columns by name, as Spark: value (STRING or BINARY, required),
 * key (STRING or BINARY, optional; null key when absent), topic (STRING;
 * the `topic` option overrides it and is required without it), partition
 * (INT, optional: else the key's murmur2 partition, as Java's producer),
 * headers (ARRAY<STRUCT<key: STRING, value: BINARY>>, optional).  Every
 * output mode is allowed.
 *
 * Guarantee: at-least-once, as Spark's (SPARK-SEMANTICS.md 1.2): the
 * producer is idempotent (no duplicates from its own retries), each batch
 * is flushed before the batch commits and a failed or late delivery fails
 * the batch, but a batch re-run after a crash between the sink and the
 * commit log writes its records again.  For consumers that want
 * exactly-once, every record carries the header
 * streamlab.batch = "<queryId>:<batchId>": keep the highest batch id seen
 * per query and drop records of a batch already taken.  (Kafka
 * transactions would not help here: the embedded 2.0.2 mock does not
 * filter aborted records, TERMINAL-LUA-KAFKA.md G3.)
 *
 * Never prints; the producer logs to the log ring.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kafka/kafka_int.h"
#include "sinks/sink_int.h"

typedef struct ksink {
	char *servers; /* NULL: embedded */
	char *topic;   /* the topic option, or NULL */
	char *query_id;
	sl_options opts;
	int64_t flush_ms;
	rd_kafka_t *rk;
	int done, failed;
	rd_kafka_resp_err_t first;
} ksink;

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	ksink *k = opaque;
	(void)rk;
	k->done++;
	if (m->err && k->failed++ == 0)
		k->first = m->err;
}

static int producer(ksink *k, sl_err *err)
{
	const char *list;
	rd_kafka_conf_t *c;
	char es[256];
	if (k->rk != NULL)
		return 0;
	if (sl_kafka_resolve(k->servers, &list, err) != 0 ||
	    (c = sl_kafka_conf_new(list, err)) == NULL)
		return err ? err->code : SL_EIO;
	rd_kafka_conf_set_dr_msg_cb(c, dr_cb);
	rd_kafka_conf_set_opaque(c, k);
	if (sl_kafka_conf_set(c, "enable.idempotence", "true", err) != 0 ||
	    sl_kafka_conf_set(c, "linger.ms", "5", err) != 0 ||
	    sl_kafka_conf_set(c, "partitioner", "murmur2_random", err) != 0)
		goto fail;
	for (int i = 0; i < k->opts.n; i++)
		if (strncasecmp(k->opts.keys[i], "kafka.", 6) == 0 &&
		    strcasecmp(k->opts.keys[i], "kafka.bootstrap.servers") &&
		    sl_kafka_conf_set(c, k->opts.keys[i] + 6, k->opts.vals[i],
				      err) != 0)
			goto fail;
	k->rk = rd_kafka_new(RD_KAFKA_PRODUCER, c, es, sizeof es);
	if (k->rk == NULL) {
		sl_err_set(err, SL_EIO, "kafka: cannot create a producer: %s",
			   es);
		goto fail;
	}
	return 0;
fail:
	rd_kafka_conf_destroy(c);
	return err ? err->code : SL_EIO;
}

/* Column positions and Spark's KafkaWriter.validateQuery checks. */
typedef struct kcols {
	int value, key, topic, partition, headers;
} kcols;

static bool is_bytes(const sl_type *t)
{
	return t->kind == SL_STRING || t->kind == SL_BINARY;
}

static int columns(const ksink *k, const sl_type *st, kcols *c, sl_err *err)
{
	const sl_type *h;
	c->value = sl_type_field_index(st, "value");
	c->key = sl_type_field_index(st, "key");
	c->topic = sl_type_field_index(st, "topic");
	c->partition = sl_type_field_index(st, "partition");
	c->headers = sl_type_field_index(st, "headers");
	if (c->value < 0)
		return sl_err_set(err, SL_EANALYSIS,
				  "Required attribute 'value' not found");
	if (!is_bytes(st->fields[c->value].type))
		return sl_err_set(err, SL_EANALYSIS,
				  "value attribute type must be a string or "
				  "binary");
	if (c->key >= 0 && !is_bytes(st->fields[c->key].type))
		return sl_err_set(err, SL_EANALYSIS,
				  "key attribute type must be a string or "
				  "binary");
	if (k->topic == NULL && c->topic < 0)
		return sl_err_set(err, SL_EANALYSIS,
				  "topic option required when no 'topic' "
				  "attribute is present. Use the topic option "
				  "for setting a topic.");
	if (c->topic >= 0 && st->fields[c->topic].type->kind != SL_STRING)
		return sl_err_set(err, SL_EANALYSIS,
				  "topic type must be a string");
	if (c->partition >= 0 && st->fields[c->partition].type->kind != SL_INT)
		return sl_err_set(err, SL_EANALYSIS,
				  "partition attribute type must be an int");
	if (c->headers >= 0) {
		h = st->fields[c->headers].type;
		if (h->kind != SL_ARRAY || h->elem->kind != SL_STRUCT ||
		    h->elem->nfields != 2 ||
		    h->elem->fields[0].type->kind != SL_STRING ||
		    !is_bytes(h->elem->fields[1].type))
			return sl_err_set(err, SL_EANALYSIS,
					  "headers attribute type must be "
					  "array<struct<key:string,value:"
					  "binary>>");
	}
	return 0;
}

static rd_kafka_headers_t *row_headers(const sl_batch *b, const kcols *c,
				       int64_t i, const char *tag)
{
	rd_kafka_headers_t *h = rd_kafka_headers_new(4);
	if (c->headers >= 0 && !sl_col_isnull(b->cols[c->headers], i)) {
		const sl_col *a = b->cols[c->headers];
		const sl_col *el = a->child[0];
		for (int32_t j = a->offsets[i]; j < a->offsets[i + 1]; j++) {
			char name[256];
			sl_str kk = sl_col_str(el->child[0])[j];
			sl_str vv = sl_col_str(el->child[1])[j];
			size_t n =
			    kk.len < sizeof name - 1 ? kk.len : sizeof name - 1;
			memcpy(name, kk.p ? kk.p : "", n);
			name[n] = '\0';
			rd_kafka_header_add(
			    h, name, -1,
			    sl_col_isnull(el->child[1], j) ? NULL : vv.p,
			    sl_col_isnull(el->child[1], j) ? 0
							   : (ssize_t)vv.len);
		}
	}
	rd_kafka_header_add(h, "streamlab.batch", -1, tag, -1);
	return h;
}

static int send_row(ksink *k, const sl_batch *b, const kcols *c, int64_t i,
		    const char *tag, sl_err *err)
{
	char topic[256];
	const char *tp = k->topic;
	sl_str v = sl_col_str(b->cols[c->value])[i], key = { NULL, 0 };
	bool vnull = sl_col_isnull(b->cols[c->value], i);
	int32_t part = RD_KAFKA_PARTITION_UA;
	rd_kafka_resp_err_t e;
	if (tp == NULL) {
		sl_str t = sl_col_str(b->cols[c->topic])[i];
		if (sl_col_isnull(b->cols[c->topic], i))
			return sl_err_set(err, SL_EDATA,
					  "null topic present in the data. Use "
					  "the topic option for setting a "
					  "topic.");
		if (t.len >= sizeof topic)
			return sl_err_set(err, SL_EINVAL,
					  "kafka sink: topic name too long");
		memcpy(topic, t.p, t.len);
		topic[t.len] = '\0';
		tp = topic;
	}
	if (c->key >= 0 && !sl_col_isnull(b->cols[c->key], i))
		key = sl_col_str(b->cols[c->key])[i];
	if (c->partition >= 0 && !sl_col_isnull(b->cols[c->partition], i))
		part = sl_col_i32(b->cols[c->partition])[i];
	for (;;) {
		rd_kafka_headers_t *h = row_headers(b, c, i, tag);
		e = rd_kafka_producev(
		    k->rk, RD_KAFKA_V_TOPIC(tp), RD_KAFKA_V_PARTITION(part),
		    RD_KAFKA_V_VALUE(vnull ? NULL : (void *)v.p,
				     vnull ? 0 : v.len),
		    RD_KAFKA_V_KEY((void *)key.p, key.len),
		    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
		    RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_END);
		if (e == 0)
			return 0;
		rd_kafka_headers_destroy(h);
		if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
			return sl_err_set(err, SL_EIO,
					  "kafka sink: cannot send to topic "
					  "'%s': %s",
					  tp, rd_kafka_err2str(e));
		rd_kafka_poll(k->rk, 10);
	}
}

static int kadd(sl_sink *s, int64_t batch_id, sl_batch *data, bool *skipped,
		sl_err *err)
{
	ksink *k = s->impl;
	kcols c;
	char tag[128];
	int64_t sent = 0;
	int rc = 0;
	*skipped = false;
	if ((rc = columns(k, data->schema, &c, err)) != 0 ||
	    (rc = producer(k, err)) != 0)
		return rc;
	snprintf(tag, sizeof tag, "%s:%lld", k->query_id, (long long)batch_id);
	k->done = k->failed = 0;
	for (int64_t i = 0; i < data->nrows && rc == 0; i++, sent++)
		rc = send_row(k, data, &c, i, tag, err);
	rd_kafka_flush(k->rk, (int)k->flush_ms);
	if (k->done < sent) {
		rd_kafka_purge(k->rk, RD_KAFKA_PURGE_F_QUEUE |
					  RD_KAFKA_PURGE_F_INFLIGHT);
		rd_kafka_flush(k->rk, 1000);
		if (rc == 0)
			rc = sl_err_set(
			    err, SL_EIO,
			    "kafka sink: %lld of %lld records of "
			    "batch %lld not delivered within %lld ms",
			    (long long)(sent - k->done), (long long)sent,
			    (long long)batch_id, (long long)k->flush_ms);
	}
	if (rc == 0 && k->failed > 0)
		rc = sl_err_set(
		    err, SL_EIO,
		    "kafka sink: %d records of batch %lld failed: %s",
		    k->failed, (long long)batch_id, rd_kafka_err2str(k->first));
	return rc;
}

static void kdescribe(const sl_sink *s, sl_buf *out)
{
	(void)s;
	sl_buf_adds(out, "org.apache.spark.sql.kafka010.KafkaSourceProvider$"
			 "KafkaTable@1");
}

static void ksink_free(ksink *k)
{
	if (k->rk) {
		rd_kafka_flush(k->rk, 1000);
		rd_kafka_destroy(k->rk);
	}
	free(k->servers);
	free(k->topic);
	free(k->query_id);
	sl_options_release(&k->opts);
	free(k);
}

static void kclose(sl_sink *s)
{
	ksink_free(s->impl);
}

static const struct sl_sink_ops kafka_sink_ops = {
	.name = "kafka",
	.add_batch = kadd,
	.describe = kdescribe,
	.close = kclose,
};

sl_sink *sl_sink_kafka_new(const sl_options *opts, sl_outmode mode,
			   const char *query_id, sl_err *err)
{
	ksink *k = calloc(1, sizeof *k);
	const char *v;
	sl_sink *s;
	if (k == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	sl_options_init(&k->opts);
	if (sl_options_copy(&k->opts, opts) != 0 ||
	    (query_id && (k->query_id = strdup(query_id)) == NULL) ||
	    (!query_id && (k->query_id = strdup("query")) == NULL))
		goto nomem;
	if ((v = sl_options_get(opts, "kafka.bootstrap.servers")) != NULL &&
	    (k->servers = strdup(v)) == NULL)
		goto nomem;
	if ((v = sl_options_get(opts, "topic")) != NULL &&
	    (k->topic = strdup(v)) == NULL)
		goto nomem;
	if (sl_options_int(opts, "flushTimeoutMs", 30000, &k->flush_ms, err) !=
	    0)
		goto fail;
	if (k->flush_ms <= 0) {
		sl_err_set(err, SL_EINVAL,
			   "flushTimeoutMs: must be a positive integer");
		goto fail;
	}
	s = sl_sink_alloc(&kafka_sink_ops, mode, k, err);
	if (s == NULL)
		goto fail;
	return s;
nomem:
	sl_err_nomem(err);
fail:
	ksink_free(k);
	return NULL;
}
