/*
 * kafka_src: the Kafka source's instance, shared by its two files:
 * kafka_source.c (options, planning: latest, limit, the initial offsets,
 * status, life cycle) and kafka_read.c (reading a batch: the rows, the
 * consumer kept assigned between batches).  Private to engine/kafka_*.c.
 */
#ifndef SL_KAFKA_SRC_H
#define SL_KAFKA_SRC_H

#include "kafka/kafka_int.h"
#include "sources/source.h"

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

/* One source instance (sl_source.impl). */
typedef struct ksrc {
	kconf conf;
	sl_options opts; /* our copy; conf borrows from it */
	sl_clock *clock;
	char *metadir;
	rd_kafka_t *rk; /* fetches */
	rd_kafka_t *mk; /* metadata and watermarks */
	rd_kafka_queue_t *q;
	sl_kafka_tpmap initial;
	bool have_initial;
	sl_kafka_tpmap known; /* last latest per partition (broker outages) */
	sl_kafka_tpmap lead;  /* leader broker per partition, last asked */
	bool lead_fresh;      /* lead is from this trigger's metadata */
	/* the consumer between batches (kafka_read.c) */
	sl_kafka_tpmap asg;         /* assigned partitions -> next offset */
	rd_kafka_message_t **stash; /* records past the last batch's end */
	int nstash, cstash;
	bool stash_lost; /* a record could not be kept: re-assign */
	sl_buf why;      /* the status hook's reason, from klatest */
	int64_t last_trigger_us;
	int64_t lost;
	uint64_t logseq;
	sl_source *self;
} ksrc;

/* kafka_source.c */
/* A line for the feed (and the log ring, so the REPL sees it too). */
void sl_kafka_src_note(ksrc *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Move the log ring's new lines into the query's feed. */
void sl_kafka_src_drain(ksrc *k);
/* Create the handles (rk, mk, q) on first use. */
int sl_kafka_src_consumer(ksrc *k, sl_err *err);
/* The offsets a batch starts from: start, else the initial offsets. */
int sl_kafka_src_from(ksrc *k, const char *start, sl_kafka_tpmap *m,
		      sl_err *err);
/* Low (lo != NULL) and high (hi != NULL) watermarks of parts, bounded in
 * time; partitions that did not answer are missing.  cached: use the
 * leaders last seen instead of asking the metadata again. */
int sl_kafka_src_wmarks(ksrc *k, const sl_kafka_tpmap *parts,
			sl_kafka_tpmap *lo, sl_kafka_tpmap *hi, bool cached,
			sl_err *err);

/* kafka_read.c */
/* The source's read hook: rows in (start, end]. */
int sl_kafka_src_read(sl_source *s, const char *start, const char *end,
		      sl_batch_list *out, sl_err *err);
/* Planning saw nothing new past the assigned positions (hi): stop
 * fetching until the next read. */
void sl_kafka_src_idle(ksrc *k, const sl_kafka_tpmap *hi);
/* Drop the records kept for the next batch. */
void sl_kafka_src_stash_clear(ksrc *k);

#endif
