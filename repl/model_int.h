/*
 * model_int: shared between model.c (queries, scrollback) and
 * model_feed.c (reading feed events and progress JSON).  Private to the
 * model; panes include model.h only.
 */
#ifndef SL_MODEL_INT_H
#define SL_MODEL_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/feed.h"
#include "model.h"
#include "driver/query.h"

/* Consume the events of f after q->seq; true when any was new. */
bool model_feed_read(sl_model *m, model_query *q, sl_feed *f);
/* The "message" of the query's status JSON (borrowed, static buffer). */
const char *model_status_message(sl_query *q);
/* Send a line to the model's log sink (the Output pane). */
void model_log(sl_model *m, const char *line);

/* One event into q, as if read from its feed (the rewound screen replays
 * a checkpoint through the same code as the live panes). */
void model_feed_event(sl_model *m, model_query *q, const sl_event *ev);
/* "mem" -> "MemoryStream": a source text model_source_short maps back. */
const char *model_source_long(const char *name);
/* "MemoryStream[ts#1,word#2]: offsets ..." -> "mem" ("src" when not
 * known). */
const char *model_source_short(const char *text);
/* A source's offsets as the Checkpoint pane shows them ("mem 0->2",
 * "file ->0", "kafka t/0 3->5\tt/1 4->7"), from the JSON texts of its
 * start (NULL or "null": none) and end offsets, appended to b. */
void model_offsets_text(const char *name, const char *start, const char *end,
			sl_buf *b);

/* ---- queries (model.c) ---- */
/* A new entry in its "nothing seen" state (batch -1, times MODEL_NONE);
 * strings NULL. */
model_query *model_query_new(void);
/* Frees everything q holds, its query reference too; accepts NULL. */
void model_query_free(model_query *q);

/* ---- the rewound screen (model_rewind.c) ---- */
typedef struct model_rw {
	model_query *snap; /* drawn instead of the focused query, or NULL */
	int64_t batch, last;
	char *what;     /* the query's name, or the folder */
	char *ckdir;    /* the checkpoint the snapshot came from */
	char *sink_dir; /* its file sink's directory, or NULL */
	char *qid;      /* the live query it belongs to, or NULL (:open) */
	bool opened;    /* an :open folder, kept until :live */
	char mode[96];  /* how the output mode of a folder was known */
	struct rw_state *cache; /* the operators' rows, kept between steps
				   (model_rewind_int.h) */
} model_rw;
model_rw *model_rw_of(sl_model *m);
void model_rw_release(model_rw *rw);

/* ---- a JSON path lookup, enough for the engine's own JSON ---- */
/* The value at path ("eventTime.watermark", "stateOperators.0.numRowsTotal")
 * in json: a pointer to its first character, or NULL. */
const char *mjson_get(const char *json, const char *path);
/* The value of the member named key of the object at p (NULL p, or no
 * such member: NULL): for keys that may hold '.', as Kafka topics do. */
const char *mjson_member(const char *p, const char *key);
/* The i-th member of the object at p: its value, the key copied to key
 * (kn bytes); NULL past the end. */
const char *mjson_member_at(const char *p, int i, char *key, size_t kn);
/* Past the value at p (string, number, object, array, literal). */
const char *mjson_skip(const char *p);
/* The value at p as text: a string is unquoted (simple escapes), other
 * values copied raw.  Writes at most n-1 bytes; false when p is NULL or
 * the value is null. */
bool mjson_text(const char *p, char *out, size_t n);
/* The number at p, or dflt. */
double mjson_num(const char *p, double dflt);

#endif
