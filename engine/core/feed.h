/*
 * feed: a query's event feed, the data the screen draws and lessons read:
 * per batch, the offsets read, which state rows changed and to what, the
 * rows the sink took, late rows and why, timings, crashes and replays.
 *
 * A bounded ring (oldest events fall off); each event has a sequence
 * number so a reader can ask for "everything after seq N".  Never prints.
 * Producers must stay cheap on hot paths: check sl_feed_wants(f, kind)
 * before formatting per-row events.
 *
 * Ownership: the feed copies the strings it is given; events returned by
 * sl_feed_get are borrowed until the next sl_feed_add.
 */
#ifndef SL_FEED_H
#define SL_FEED_H

#include <stdbool.h>
#include <stdint.h>

typedef enum sl_event_kind {
	SL_EV_QUERY_START = 1, /* text: "started query <id> run <runId>" */
	SL_EV_BATCH_START,     /* a micro-batch begins */
	SL_EV_OFFSETS,   /* per source: json {"source":i,"start":..,"end":..} */
	SL_EV_READ,      /* rows read from a source */
	SL_EV_STATE_ROW, /* a state row changed: json {"op":..,"key":..,"value":..,"state":"UPDATED|EVICTED|EMITTED|OPEN"} */
	SL_EV_LATE_ROW,  /* a row dropped as late (event 4 issue) */
	SL_EV_BAD_RECORD, /* a malformed input record */
	SL_EV_SINK,       /* rows written to the sink (or skipped) */
	SL_EV_BATCH_END,  /* json: the progress of the batch */
	SL_EV_WATERMARK,  /* watermark moved */
	SL_EV_ERROR,      /* the query failed */
	SL_EV_CRASH,      /* simulated crash (checkpoint issue) */
	SL_EV_REPLAY,     /* re-run of a batch after restart */
	SL_EV_LOG,        /* a log line (librdkafka, engine notices) */
	SL_EV_QUERY_END,
	/* per micro-batch and withWatermark operator, with detail on: the
	 * batch's event times in arrival order, every input row of the
	 * operator (rows a stateful operator above drops as late are listed
	 * too; LATE_ROW events name those), the first SL_FEED_TIMES_PER_BATCH:
	 * json {"column":"event_time","count":N,"ms":[1767268020000,null,..]}
	 * (count = all rows of the batch, ms = epoch milliseconds, truncated
	 * as Spark's EventTimeStats, null for a null event time; a window
	 * column lists its end) */
	SL_EV_EVENT_TIMES
} sl_event_kind;

typedef struct sl_event {
	uint64_t seq;
	sl_event_kind kind;
	int64_t batch_id; /* -1 when not about a batch */
	int64_t ts_us;    /* the query clock's time */
	char *text;       /* one human line */
	char *json;       /* structured details, may be NULL */
} sl_event;

typedef struct sl_feed sl_feed;

/* Producers of per-row events record at most this many per batch and
 * operator: the ring could not hold more, and formatting them costs. */
#define SL_FEED_ROWS_PER_BATCH 200
/* SL_EV_EVENT_TIMES lists at most this many event times per batch. */
#define SL_FEED_TIMES_PER_BATCH 400

sl_feed *sl_feed_new(int capacity);
void sl_feed_free(sl_feed *f);
/* Detail switch: per-row kinds (STATE_ROW, LATE_ROW, BAD_RECORD,
 * EVENT_TIMES) are recorded only when enabled (default on; benchmarks
 * turn it off). */
void sl_feed_set_detail(sl_feed *f, bool on);
/* Pane switch: STATE_ROW and EVENT_TIMES, which only the workbench's panes
 * read, are recorded only when this is on as well (default on).  LATE_ROW
 * and BAD_RECORD stay with the detail switch: scripts read them
 * (q:lateRows, q:badRecords).  See sl_session_set_panes. */
void sl_feed_set_panes(sl_feed *f, bool on);
bool sl_feed_wants(const sl_feed *f, sl_event_kind kind);
/* Returns the new event's seq (0 on out of memory, the event is dropped). */
uint64_t sl_feed_add(sl_feed *f, sl_event_kind kind, int64_t batch_id,
		     int64_t ts_us, const char *text, const char *json);
/* Oldest and newest seq held (0, 0 when empty). */
void sl_feed_range(const sl_feed *f, uint64_t *first, uint64_t *last);
/* The event with that seq, or NULL if it fell off or never was. */
const sl_event *sl_feed_get(const sl_feed *f, uint64_t seq);

#endif
