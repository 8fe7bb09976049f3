/*
 * kafka_int: internals shared by the Kafka files (kafka_cluster.c,
 * kafka_util.c, kafka_source.c, kafka_read.c, kafka_sink.c).  The only
 * engine header that includes librdkafka (with kafka_src.h, which
 * includes it); never included from outside engine/kafka_*.c.
 *
 * Offset maps are Spark's JSON: {"topic":{"0":23,"1":45}} (partitions
 * sorted numerically, topics by name, so equal maps print equal text).
 */
#ifndef SL_KAFKA_INT_H
#define SL_KAFKA_INT_H

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "core/buf.h"
#include "kafka/kafka.h"

/* A client configuration for the broker list `list` (already resolved)
 * with our log callback installed (logs to the ring, never stderr).
 * NULL on error. */
rd_kafka_conf_t *sl_kafka_conf_new(const char *list, sl_err *err);
int sl_kafka_conf_set(rd_kafka_conf_t *c, const char *k, const char *v,
		      sl_err *err);

/* ---- offset maps (kafka_util.c) ---- */
typedef struct sl_kafka_tp {
	char *topic;
	int32_t partition;
	int64_t offset;
} sl_kafka_tp;
typedef struct sl_kafka_tpmap {
	int n, cap;
	sl_kafka_tp *v; /* sorted by (topic, partition) after sort */
} sl_kafka_tpmap;
void sl_kafka_tpmap_init(sl_kafka_tpmap *m);
void sl_kafka_tpmap_release(sl_kafka_tpmap *m);
/* Add or replace (copies topic). */
int sl_kafka_tpmap_put(sl_kafka_tpmap *m, const char *topic, int32_t p,
		       int64_t off);
/* Index or -1. */
int sl_kafka_tpmap_find(const sl_kafka_tpmap *m, const char *topic, int32_t p);
void sl_kafka_tpmap_sort(sl_kafka_tpmap *m);
int sl_kafka_tpmap_copy(sl_kafka_tpmap *dst, const sl_kafka_tpmap *src);
/* {"t":{"0":1}} -> map (offsets); with lists=true {"t":[0,1]} (assign
 * option; offsets set to -2).  who names the thing in errors. */
int sl_kafka_tpmap_parse(sl_kafka_tpmap *m, const char *json, bool lists,
			 const char *who, sl_err *err);
/* The map as Spark's JSON (sorted). */
void sl_kafka_tpmap_json(const sl_kafka_tpmap *m, sl_buf *out);

/* Kafka API key of an API name ("Fetch" -> 1), or -1. */
int sl_kafka_api_key(const char *name);
/* Error code of a Kafka error name ("OFFSET_OUT_OF_RANGE"); false if
 * unknown. */
bool sl_kafka_err_code(const char *name, rd_kafka_resp_err_t *out);

/* The embedded mock cluster (started on demand), or NULL with err. */
rd_kafka_mock_cluster_t *sl_kafka_mock(sl_err *err);

#endif
