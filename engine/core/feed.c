/*
 * feed: a bounded ring of query events (see feed.h).
 *
 * Invariants: events hold seq first..last, consecutive, with
 * last - first + 1 <= capacity; the event with seq s lives in slot
 * (s - 1) % capacity.  seq starts at 1, so 0 can mean "none" for readers
 * and for sl_feed_add's out-of-memory result.  When the ring is full the
 * oldest event is freed to make room.  Never prints.
 */
#include "core/feed.h"

#include <stdlib.h>
#include <string.h>

struct sl_feed {
	int cap;
	bool detail;
	bool panes; /* STATE_ROW, EVENT_TIMES: only the panes read them */
	uint64_t first, last; /* 0, 0 when empty */
	sl_event *ev;
};

sl_feed *sl_feed_new(int capacity)
{
	sl_feed *f;
	if (capacity < 1)
		capacity = 1;
	f = calloc(1, sizeof *f);
	if (f == NULL)
		return NULL;
	f->ev = calloc((size_t)capacity, sizeof *f->ev);
	if (f->ev == NULL) {
		free(f);
		return NULL;
	}
	f->cap = capacity;
	f->detail = true;
	f->panes = true;
	return f;
}

static void event_release(sl_event *e)
{
	free(e->text);
	free(e->json);
	memset(e, 0, sizeof *e);
}

void sl_feed_free(sl_feed *f)
{
	int i;
	if (f == NULL)
		return;
	for (i = 0; i < f->cap; i++)
		event_release(&f->ev[i]);
	free(f->ev);
	free(f);
}

void sl_feed_set_detail(sl_feed *f, bool on)
{
	f->detail = on;
}

void sl_feed_set_panes(sl_feed *f, bool on)
{
	f->panes = on;
}

bool sl_feed_wants(const sl_feed *f, sl_event_kind kind)
{
	if (f == NULL)
		return false;
	switch (kind) {
	case SL_EV_STATE_ROW:
	case SL_EV_EVENT_TIMES: return f->detail && f->panes;
	case SL_EV_LATE_ROW:
	case SL_EV_BAD_RECORD: return f->detail;
	default: return true;
	}
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d;
	if (s == NULL)
		return NULL;
	d = strdup(s);
	if (d == NULL)
		*oom = true;
	return d;
}

uint64_t sl_feed_add(sl_feed *f, sl_event_kind kind, int64_t batch_id,
		     int64_t ts_us, const char *text, const char *json)
{
	bool oom = false;
	char *t, *j;
	uint64_t seq;
	sl_event *e;
	if (f == NULL || !sl_feed_wants(f, kind))
		return 0;
	t = dup_or_null(text ? text : "", &oom);
	j = dup_or_null(json, &oom);
	if (oom) {
		free(t);
		free(j);
		return 0;
	}
	seq = f->last + 1;
	e = &f->ev[(seq - 1) % (uint64_t)f->cap];
	if (f->first == 0)
		f->first = seq;
	else if (seq - f->first >= (uint64_t)f->cap)
		f->first++; /* the slot held the oldest event */
	event_release(e);
	e->seq = seq;
	e->kind = kind;
	e->batch_id = batch_id;
	e->ts_us = ts_us;
	e->text = t;
	e->json = j;
	f->last = seq;
	return seq;
}

void sl_feed_range(const sl_feed *f, uint64_t *first, uint64_t *last)
{
	*first = f->first;
	*last = f->last;
}

const sl_event *sl_feed_get(const sl_feed *f, uint64_t seq)
{
	if (f == NULL || f->first == 0 || seq < f->first || seq > f->last)
		return NULL;
	return &f->ev[(seq - 1) % (uint64_t)f->cap];
}
