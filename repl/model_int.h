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

/* ---- a JSON path lookup, enough for the engine's own JSON ---- */
/* The value at path ("eventTime.watermark", "stateOperators.0.numRowsTotal")
 * in json: a pointer to its first character, or NULL. */
const char *mjson_get(const char *json, const char *path);
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
