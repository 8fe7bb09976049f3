/*
 * kafka: the embedded Kafka cluster and the kafka.* operations, without
 * librdkafka types, so lua/ and repl/ can use them.
 *
 * The embedded cluster is librdkafka's mock cluster (rdkafka_mock.h): three
 * brokers inside this process speaking the real Kafka protocol on loopback
 * sockets, created lazily on first use and destroyed at exit (clients
 * first, then the cluster: TERMINAL-LUA-KAFKA.md G5).  `servers` arguments
 * below: NULL, "" or "embedded" mean that cluster; anything else is a
 * broker list (e.g. another `streamlab kafka`).
 *
 * librdkafka logs never reach the terminal: they go to a bounded,
 * thread-safe log ring (sl_kafka_log_next) that a query's event feed and
 * the REPL drain.
 *
 * Retention: the 2.0.2 mock has no DeleteRecords and trims a partition only
 * past 5 MiB or 100,000 message sets.  sl_kafka_delete_records makes old
 * offsets disappear by *simulation* on the embedded cluster: it raises a
 * per-partition floor that sl_kafka_offsets reports as the low watermark
 * and that the Kafka source treats exactly as a trimmed log.  Real
 * trimming (and a real broker's retention) is detected through the low
 * watermark and auto.offset.reset=error as well.
 *
 * Errors: one line naming the topic/partition/broker; SL_EIO for Kafka
 * errors, SL_EINVAL for bad arguments.  Strings returned through pointers
 * are malloc'd and owned by the caller unless said otherwise.  All calls
 * are made from the program's one Lua thread.
 */
#ifndef SL_KAFKA_H
#define SL_KAFKA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* True when servers names the embedded cluster (NULL, "", "embedded"). */
bool sl_kafka_is_embedded(const char *servers);
/* Start the embedded cluster if needed; *bootstraps (borrowed, valid until
 * sl_kafka_shutdown) gets "127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3". */
int sl_kafka_embedded(const char **bootstraps, sl_err *err);
/* The broker list to hand to a client for servers (embedded resolved);
 * borrowed. */
int sl_kafka_resolve(const char *servers, const char **list, sl_err *err);
/* Destroy cached clients, then the embedded cluster.  Idempotent;
 * registered with atexit on first use. */
void sl_kafka_shutdown(void);

/* ---- topics and data ---- */
int sl_kafka_create_topic(const char *servers, const char *topic,
			  int partitions, sl_err *err);
typedef struct sl_kafka_header {
	const char *key;
	const void *value;
	size_t len;
} sl_kafka_header;
typedef struct sl_kafka_msg {
	const char *topic;
	const void *value; /* NULL = null value */
	size_t value_len;
	const void *key; /* NULL = null key */
	size_t key_len;
	int32_t partition; /* -1: by key (murmur2, as Java), else round robin */
	int64_t ts_ms;     /* -1: the producer's time */
	int nheaders;
	const sl_kafka_header *headers;
} sl_kafka_msg;
/* Produce n messages and wait for every delivery (bounded by timeout_ms;
 * a failed or late delivery is an error naming the topic). */
int sl_kafka_produce(const char *servers, const sl_kafka_msg *m, int n,
		     int timeout_ms, sl_err *err);

typedef struct sl_kafka_wm {
	int32_t partition;
	int64_t low, high; /* high = next offset to be written */
} sl_kafka_wm;
/* Watermarks of every partition of topic, by partition (malloc'd array). */
int sl_kafka_offsets(const char *servers, const char *topic, sl_kafka_wm **out,
		     int *n, sl_err *err);
/* Topic names (sorted) and their partition counts; free with
 * sl_kafka_topics_free.  Internal topics (starting with "__") omitted. */
int sl_kafka_topics(const char *servers, char ***names, int **partitions,
		    int *n, sl_err *err);
void sl_kafka_topics_free(char **names, int *partitions, int n);

/* ---- faults (embedded cluster only) ---- */
int sl_kafka_broker_down(int32_t broker, sl_err *err);
int sl_kafka_broker_up(int32_t broker, sl_err *err);
int sl_kafka_set_leader(const char *topic, int32_t partition, int32_t broker,
			sl_err *err);
/* The next cnt requests of api (Kafka API name: "Produce", "Fetch",
 * "ListOffsets", "Metadata", ...) fail with error (Kafka error name:
 * "NOT_LEADER_FOR_PARTITION", "REQUEST_TIMED_OUT", "OFFSET_OUT_OF_RANGE",
 * ...). */
int sl_kafka_inject_error(const char *api, const char *error, int cnt,
			  sl_err *err);
/* Retention (simulated, see above): offsets below `before` of the
 * partition are gone. */
int sl_kafka_delete_records(const char *topic, int32_t partition,
			    int64_t before, sl_err *err);
/* The simulated retention floor of a partition (0 when none). */
int64_t sl_kafka_retention_floor(const char *topic, int32_t partition);

/* ---- librdkafka logs ---- */
/* The next log line after *seq (0 to start); copies it to buf and advances
 * *seq.  Returns false when there is none.  Lines that fell off the ring
 * are skipped. */
bool sl_kafka_log_next(uint64_t *seq, char *buf, size_t size);
/* Add a line of our own (faults, data loss) to the log ring. */
void sl_kafka_log_add(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif
