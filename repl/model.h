/*
 * model: what the workbench screen shows, built from engine data and never
 * from curses (tmux's split: model, layout, draw).  The screen refreshes
 * it from the engine every ~100 ms and after each command or batch; the
 * panes (pane_*.c) only read it.  A resize therefore needs no engine call:
 * the panes are drawn again from the model.
 *
 * Sources, all read-only: the session's queries (engine/session.h: the
 * active ones at each refresh, and every query at its start, see
 * sl_model_adopt),
 * each query's status and progress JSON and its event feed
 * (engine/query.h, engine/feed.h: BATCH_START, OFFSETS, STATE_ROW, SINK,
 * BATCH_END, WATERMARK, LATE_ROW, BAD_RECORD, EVENT_TIMES, ERROR, CRASH,
 * REPLAY, LOG).
 * A query's data is kept by its id, so a restarted query (same id, new
 * run) continues the same Checkpoint timeline.  Nothing is invented: a
 * pane with nothing to show says "(no data yet)".
 *
 * The Output pane's scrollback lives here too (P7: curses windows lose
 * their text on resize; this buffer does not).
 *
 * Ownership: the model holds one reference to every query it has seen
 * (sl_query_ref) until sl_model_free.  Strings in the structs below are
 * owned by the model and valid until the next sl_model_refresh.
 */
#ifndef SL_MODEL_H
#define SL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/session.h"

#define MODEL_MAX_QUERIES 16
#define MODEL_MAX_ROWS    256       /* window/state rows per query */
#define MODEL_MAX_LATE    128       /* late and bad rows kept per query */
#define MODEL_MAX_BATCHES 256       /* checkpoint timeline entries */
#define MODEL_MAX_SRC     4         /* sources shown per batch */
#define MODEL_MAX_LANES   16        /* Kafka partitions */
#define MODEL_NONE        INT64_MIN /* "no value" for times and ids */

typedef struct model_row {
	char *window; /* "12:00:00-12:10:00", or "" for keys without one */
	char *key;    /* the rest of the key */
	char *value;
	char state[12];    /* OPEN, UPDATED, EMITTED, EVICTED */
	int64_t batch;     /* batch of the last change */
	int64_t wstart_us; /* window bounds, MODEL_NONE when not a window */
	int64_t wend_us;
} model_row;

/* Late rows counted per window they missed (the window may be gone). */
typedef struct model_wlate {
	int64_t start_us, end_us;
	int64_t count;
} model_wlate;
#define MODEL_MAX_WLATE 32

typedef struct model_late {
	int64_t batch;
	bool bad;         /* a bad record, not a late one */
	int64_t event_us; /* MODEL_NONE for bad records */
	char *text;       /* the engine's one-line description */
	char *row;        /* the row as JSON (or the record) */
	/* the row's own fields but its event time, "word=donkey", one per
	 * tab-separated item, long values abbreviated with "..." */
	char *fields;
	char *windows;   /* the windows it missed, "[start,end) ..." */
	char *watermark; /* the watermark that excluded it (time text) */
	/* the first MODEL_LATE_WIN of those windows' bounds, for the
	 * per-window counts as of an earlier batch (:rewind) */
	int64_t win_us[4][2];
	int nwin;
} model_late;
#define MODEL_LATE_WIN 4

typedef struct model_batch {
	int64_t id;
	int64_t ts_us; /* batch timestamp (processing time) */
	int nsrc;
	/* per source, readable: "mem 0->2", "file 3->4", "kafka t/0 3->5"
	 * (tab-separated items: one per Kafka partition) */
	char *offsets[MODEL_MAX_SRC];
	char *watermark; /* eventTime.watermark, or NULL */
	int64_t in_rows, out_rows;
	int64_t state_rows;    /* -1 when no stateful operator */
	int64_t state_version; /* -1 when no stateful operator */
	int64_t late;          /* rows dropped in this batch */
	int64_t ev_min_us, ev_max_us, ev_avg_us; /* MODEL_NONE when none */
	int64_t wm_us; /* watermark used by the batch */
	char *sink;    /* the SINK event text, or NULL */
	bool sink_skipped;
	int writes;           /* sink writes not skipped (replays too) */
	int64_t rows_written; /* rows of those writes */
	bool committed;       /* BATCH_END seen */
	bool replayed;        /* a REPLAY event names this batch */
	char *crash;          /* the CRASH event text, or NULL */
} model_batch;

/* One batch's event times (the feed's EVENT_TIMES: every input row of the
 * withWatermark operators, arrival order, at most MODEL_PTS_MAX), for the
 * scatter's one mark per row.  Rows the batch dropped as late are among
 * them; the LATE_ROW events (model_late) say which. */
#define MODEL_PTS_BATCHES 64  /* the newest batches keep their points */
#define MODEL_PTS_MAX     400 /* = SL_FEED_TIMES_PER_BATCH */
typedef struct model_pts {
	int64_t batch;
	int64_t total; /* the batch's rows (> n when the list was cut) */
	int n;         /* points held */
	int64_t *us;   /* [MODEL_PTS_MAX] event time, MODEL_NONE = null */
	/* [MODEL_PTS_MAX] below the max event time seen before the row
	 * (earlier batches and earlier rows of this one): late but counted */
	bool *behind;
	int64_t prior_max_us; /* max event time before the batch, or NONE */
} model_pts;

typedef struct model_lane {
	char *name;    /* "topic/partition" */
	int64_t end;   /* last end offset */
	int64_t rows;  /* rows in the last batch */
	int64_t batch; /* batch that last moved it */
} model_lane;

typedef struct model_query {
	char *id, *run_id, *name;
	bool active, failed;
	char *exception;    /* first line, or NULL */
	char *status;       /* status message */
	int64_t batch;      /* last batch id, -1 before the first */
	int64_t in_rows;    /* numInputRows of the last batch */
	double rows_per_s;  /* processedRowsPerSecond */
	int64_t state_rows; /* numRowsTotal (sum over operators) */
	int64_t late_total; /* rows dropped as late, all batches */
	int64_t bad_total;
	char *watermark;      /* eventTime.watermark text or NULL */
	char *max_event;      /* eventTime.max text or NULL */
	int64_t wm_evict_us;  /* watermark for eviction, next batch */
	int64_t wm_late_us;   /* late cutoff, next batch */
	int64_t max_event_us; /* max event time seen, all batches */
	int64_t window_us;    /* widest window seen, for the axis */
	char *mode;           /* output mode, from the sink text */
	model_row rows[MODEL_MAX_ROWS];
	int nrows;
	model_wlate wlate[MODEL_MAX_WLATE];
	int nwlate;
	model_late late[MODEL_MAX_LATE]; /* ring: newest at (late_head-1) */
	int nlate, late_head;
	model_batch batches[MODEL_MAX_BATCHES]; /* ring by arrival */
	int nbatches, batch_head;
	char *ckpt_note[8]; /* crash/replay lines, newest last */
	int nnotes;
	bool restarted; /* a new run of this id was seen */
	model_lane lanes[MODEL_MAX_LANES];
	int nlanes;
	model_pts pts[MODEL_PTS_BATCHES]; /* ring by arrival */
	int npts, pts_head;
	int64_t row_max_us; /* max event time of the rows so far, for behind */
	/* engine side */
	void *q;       /* sl_query *, referenced */
	uint64_t seq;  /* last feed event read */
	bool seen;     /* still known to the session */
	bool wm_moved; /* a WATERMARK event in this batch */
} model_query;

typedef struct sl_model sl_model;

/* Where engine log lines (feed LOG and ERROR events) go: the Output pane. */
typedef void (*model_log_fn)(void *ud, const char *line);

sl_model *sl_model_new(void);
void sl_model_free(sl_model *m);
void sl_model_set_log(sl_model *m, model_log_fn fn, void *ud);

/* Read what is new from the engine.  Cheap when nothing changed.  Never
 * calls Lua, so it is safe from a Lua hook. Returns true when something
 * changed. */
bool sl_model_refresh(sl_model *m, sl_session *s);

/* Know q (borrowed; the model takes its own reference) from now on, even
 * once it stops: the screen calls this when a query starts, so a query
 * that starts and stops between two refreshes (a lesson's, run inside one
 * chunk) still fills the panes from its feed. */
void sl_model_adopt(sl_model *m, sl_query *q);

int sl_model_count(const sl_model *m);
model_query *sl_model_query(sl_model *m, int i);
/* The focused query (the newest active one unless :focus chose), or NULL. */
model_query *sl_model_focus(sl_model *m);
/* Focus by index (1-based), id prefix or name; false when none matches.
 * NULL: back to the automatic choice. */
bool sl_model_set_focus(sl_model *m, const char *which);

/* i-th batch of q, oldest first (0 .. nbatches-1). */
const model_batch *sl_model_batch(const model_query *q, int i);
/* i-th late/bad row, newest first. */
const model_late *sl_model_late(const model_query *q, int i);
/* The event times of batch id (NULL when the feed sent none or they fell
 * out of the ring). */
const model_pts *sl_model_pts(const model_query *q, int64_t batch);

/* ---- the Output pane's scrollback ----
 * A ring of the newest MODEL_OUT_LINES lines, at most MODEL_OUT_BYTES of
 * text: a command's whole result (big:show(10000) and far more) stays
 * readable, and memory stays bounded; the oldest lines give way first.
 * Lines also have absolute numbers (0 = the first line ever written), so a
 * pager can keep hold of "this command's result" while more output
 * arrives. */
#define MODEL_OUT_LINES 131072
#define MODEL_OUT_BYTES (32 << 20)
/* Append text (may hold several lines; a partial last line is kept open). */
void sl_model_out(sl_model *m, int stream, const char *s, size_t n);
int sl_model_out_count(const sl_model *m);
/* Line i (0 = oldest kept); *err says it came from the error stream. */
const char *sl_model_out_line(const sl_model *m, int i, bool *err);
/* The absolute number of the next complete line to be written. */
int64_t sl_model_out_mark(const sl_model *m);
/* The index (for sl_model_out_line) of absolute line abs, clamped to the
 * lines kept: 0 when it has given way, the count when not written yet. */
int sl_model_out_index(const sl_model *m, int64_t abs);
/* Scroll position: lines up from the bottom (0 = following the end). */
int sl_model_out_scroll(const sl_model *m);
void sl_model_out_scroll_by(sl_model *m, int delta, int page);

/* ---- the screen rewound (issue 20: :rewind N, :open DIR, :live) ----
 * A historical snapshot: a model_query as the panes showed it after batch
 * N of a query, rebuilt from its checkpoint (model_rewind.c): offsets/N,
 * commits/N, the state at version N+1 (and the versions before it, for
 * what the batch evicted or emitted), the sink log.  What the checkpoint
 * does not keep (a batch's event times and late rows, the sink's rows when
 * there is no sink log, crashes) comes from the live query's feed when
 * this session saw the batch, else the panes go without it.  The live
 * model goes on underneath; the snapshot is only drawn.
 *
 * Errors are one line into msg (n bytes), and leave the model as it was:
 * rewound as before, or live. */
/* Rewind to batch (-1: the last committed) of the checkpoint opened with
 * sl_model_open, else of the focused query.  0 or -1 (msg). */
int sl_model_rewind(sl_model *m, int64_t batch, char *msg, size_t n);
/* The batch before (-1) or after (+1) the one shown; from live, -1 shows
 * the last committed batch. */
int sl_model_rewind_step(sl_model *m, int delta, char *msg, size_t n);
/* A checkpoint folder from another session (borrowed path; sink_dir may be
 * NULL: the file sink's directory, for its log), rewound to its last
 * committed batch. */
int sl_model_open(sl_model *m, const char *dir, const char *sink_dir, char *msg,
		  size_t n);
/* Back to the live panes (forgets an :open folder). */
void sl_model_live(sl_model *m);
/* Rewound: true, with the batch shown, the last committed one and what
 * (the query's name or the folder) into what (borrowed). */
bool sl_model_rewound(const sl_model *m, int64_t *batch, int64_t *last,
		      const char **what);
/* An :open folder's output mode, how it was known ("output mode Update
 * (recorded)", "output mode Append (a guess: not recorded)"), borrowed; NULL when rewound
 * to a query of this session (its mode is known) or not rewound. */
const char *sl_model_rewound_mode(const sl_model *m);
/* What the panes draw: the snapshot when rewound, else the focused query. */
model_query *sl_model_shown(sl_model *m);

/* Times as the panes print them: "12:04:00" (or the date too when it is
 * not the day of the clock's epoch base); out has room for 32 bytes. */
void sl_model_hms(int64_t us, char *out, size_t n);
/* "2026-01-01 12:04:00" or "2026-01-01T12:04:00.000Z" -> us; MODEL_NONE. */
int64_t sl_model_parse_time(const char *s);

#endif
