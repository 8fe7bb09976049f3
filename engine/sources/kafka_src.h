/*
 * kafka_src: the Kafka source's instance, shared by its three files:
 * kafka_source.c (options, planning: latest, limit, the initial offsets,
 * status, life cycle), kafka_read.c (reading a batch: the rows, the
 * consumer kept assigned between batches) and kafka_fetch.c (the fetcher
 * thread that turns records into rows as they arrive).  Private to
 * engine/sources/kafka_*.c.
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

/* The fetcher thread (kafka_fetch.c). */
typedef struct kfetch kfetch;

/* The first offset-out-of-range error the fetcher saw since the last
 * assign (a copy). */
typedef struct kfetch_err {
	bool set;
	char topic[256];
	int32_t partition;
	char msg[256];
} kfetch_err;

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
	kfetch *f;             /* converts records to rows as they arrive */
	sl_batch_list ready;   /* rows past the last batch's end (main) */
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
/* Drop the rows kept for the next batch. */
void sl_kafka_src_stash_clear(ksrc *k);

/* kafka_fetch.c; every function but the thread's runs on the query's
 * thread.  The fetcher pops k->q, so nothing else may. */
/* Start the thread on k->q (k->rk, k->q and k->self set). */
int sl_kafka_fetch_start(ksrc *k, sl_err *err);
/* Stop and join it, dropping what it converted; k->f NULL after.
 * Accepts a source without one. */
void sl_kafka_fetch_stop(ksrc *k);
/* rd_kafka_assign(k->rk, l) (l NULL: unassign) with the thread held off:
 * rows, ends and errors converted under the old assignment are dropped,
 * none of the new one is.  0 or SL_EIO. */
int sl_kafka_fetch_assign(ksrc *k, const rd_kafka_topic_partition_list_t *l);
/* Whether a record was dropped for want of memory since the last assign
 * (the position is lost: re-assign). */
bool sl_kafka_fetch_lost(ksrc *k);
/* Whether the thread holds no rows. */
bool sl_kafka_fetch_empty(ksrc *k);
/* The rows converted so far, as batches appended to out in arrival order
 * (out owns them); waits up to wait_ms when there are none.  eof receives
 * (replaced) the highest end-of-partition offset seen per partition since
 * the last assign: every record below it was delivered before, so is in
 * out or an earlier take.  fe: the first out-of-range error.  0 or
 * SL_ENOMEM. */
int sl_kafka_fetch_take(ksrc *k, int wait_ms, sl_batch_list *out,
			sl_kafka_tpmap *eof, kfetch_err *fe, sl_err *err);

#endif
