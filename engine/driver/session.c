/*
 * session: the engine side of `spark` (see session.h): the clock, confs,
 * named tables, active streaming queries, listeners and the text output.
 *
 * Driving queries.  Nothing runs on its own thread: sl_session_tick runs
 * the triggers due at the clock's now, query by query in start order, and
 * sl_session_advance walks a manual clock through every instant at which a
 * trigger falls due (so a ProcessingTime batch runs at exactly its due time
 * and sees that time as its batch timestamp), then ticks at the target.
 * Ticks nest: a foreachBatch function may call spark.clock:advance, which
 * ticks the *other* queries; the query whose batch is running is skipped
 * (sl_query_tick refuses to re-enter, sl_query_next_due says INT64_MAX).
 *
 * Listeners are called synchronously in registration order.  Removing one
 * from inside a callback only marks it; the array is compacted when the
 * outermost notification returns.
 *
 * Confs: Spark's defaults for the known keys and Spark's validation
 * messages (SQLConf's checkValue: "'v' in key is invalid. why").
 */
#include "driver/session.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "driver/query.h"
#include "sinks/sink.h"
#include "core/timeutil.h"

typedef struct listener {
	int handle;
	sl_listener_fn fn;
	bool removed; /* released when no notification is running */
	void *ud;
	void (*free_ud)(void *);
} listener;

struct sl_session {
	sl_clock *clock;
	sl_catalog *catalog;
	int nconf, capconf;
	char **ckeys, **cvals;
	sl_write_fn out;
	void *out_ud;
	sl_sink_host sink_host; /* ctx = this session */
	int nq, capq;
	sl_query **q; /* active queries in start order; one reference each */
	int nl, capl;
	listener *l;
	int next_handle;
	int notifying; /* depth of sl_session_notify */
	bool no_panes; /* sl_session_set_panes(s, false) */
};

void sl_session_set_panes(sl_session *s, bool on)
{
	s->no_panes = !on;
}

bool sl_session_panes(const sl_session *s)
{
	return s == NULL || !s->no_panes;
}

/* ------------------------------------------------------------ confs */

typedef int (*conf_check)(const char *key, char *val, sl_err *err);

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Spark's ConfigHelpers.toBoolean: trimmed, case-insensitive. */
static int check_bool(const char *key, char *val, sl_err *err)
{
	lower(val);
	if (strcmp(val, "true") != 0 && strcmp(val, "false") != 0)
		return sl_err_set(err, SL_EINVAL,
				  "%s should be boolean, but was %s", key, val);
	return 0;
}

static int parse_int(const char *key, const char *val, long *out, sl_err *err)
{
	char *end;
	errno = 0;
	*out = strtol(val, &end, 10);
	if (*val == '\0' || *end != '\0' || errno != 0 || *out > 2147483647L ||
	    *out < -2147483647L - 1)
		return sl_err_set(err, SL_EINVAL,
				  "%s should be int, but was %s", key, val);
	return 0;
}

static int check_int(const char *key, char *val, sl_err *err)
{
	long v;
	return parse_int(key, val, &v, err);
}

static int check_retain(const char *key, char *val, sl_err *err)
{
	long v;
	int rc = parse_int(key, val, &v, err);
	if (rc == 0 && v <= 0)
		rc = sl_err_set(err, SL_EINVAL,
				"'%s' in %s is invalid. The minimum number of "
				"batches to be retained must be positive.",
				val, key);
	return rc;
}

static int check_time(const char *key, char *val, sl_err *err)
{
	int64_t us;
	return sl_time_conf_parse(key, val, &us, err);
}

static int check_partitions(const char *key, char *val, sl_err *err)
{
	long v;
	int rc = parse_int(key, val, &v, err);
	if (rc == 0 && v <= 0)
		rc = sl_err_set(err, SL_EINVAL,
				"'%s' in %s is invalid. The value of "
				"spark.sql.shuffle.partitions must be positive",
				val, key);
	return rc;
}

static int check_policy(const char *key, char *val, sl_err *err)
{
	lower(val);
	if (strcmp(val, "min") != 0 && strcmp(val, "max") != 0)
		return sl_err_set(
		    err, SL_EINVAL,
		    "'%s' in %s is invalid. Invalid value for "
		    "'spark.sql.streaming.multipleWatermarkPolicy'. "
		    "Valid values are 'min' and 'max'",
		    val, key);
	return 0;
}

static int check_tz(const char *key, char *val, sl_err *err)
{
	static const char *const utc[] = { "UTC",    "Z",     "GMT",  "Etc/UTC",
					   "+00:00", "UTC+0", "GMT+0" };
	size_t i;
	for (i = 0; i < sizeof utc / sizeof utc[0]; i++)
		if (strcasecmp(val, utc[i]) == 0)
			return 0;
	sl_err_set(err, SL_EINVAL, "%s: only UTC is supported, got '%s'", key,
		   val);
	sl_err_hint(err, "streamlab computes and prints every timestamp in "
			 "UTC; set it to 'UTC'");
	return SL_EINVAL;
}

static const struct conf_def {
	const char *key;
	const char *def;
	conf_check check;
} known_confs[] = {
	{ "spark.sql.streaming.noDataMicroBatches.enabled", "true",
	  check_bool },
	{ "spark.sql.streaming.multipleWatermarkPolicy", "min", check_policy },
	{ "spark.sql.streaming.minBatchesToRetain", "100", check_retain },
	{ "spark.sql.streaming.stateStore.minDeltasForSnapshot", "10",
	  check_int },
	{ "spark.sql.streaming.stateStore.maintenanceInterval", "60s",
	  check_time },
	{ "spark.sql.streaming.fileSink.log.compactInterval", "10", check_int },
	{ "spark.sql.streaming.fileSink.log.deletion", "true", check_bool },
	{ "spark.sql.streaming.fileSource.log.compactInterval", "10",
	  check_int },
	{ "spark.sql.streaming.numRecentProgressUpdates", "100", check_int },
	{ "spark.sql.streaming.statefulOperator.allowMultiple", "true",
	  check_bool },
	{ "spark.sql.streaming.statefulOperator.checkCorrectness.enabled",
	  "true", check_bool },
	{ "spark.sql.streaming.schemaInference", "false", check_bool },
	{ "spark.sql.shuffle.partitions", "200", check_partitions },
	{ "spark.sql.session.timeZone", "UTC", check_tz },
};

static const struct conf_def *known(const char *key)
{
	size_t i;
	for (i = 0; i < sizeof known_confs / sizeof known_confs[0]; i++)
		if (strcmp(known_confs[i].key, key) == 0)
			return &known_confs[i];
	return NULL;
}

static int conf_find(const sl_session *s, const char *key)
{
	int i;
	for (i = 0; i < s->nconf; i++)
		if (strcmp(s->ckeys[i], key) == 0)
			return i;
	return -1;
}

/* Trim like Spark's converters (which trim before parsing). */
static char *trimmed_copy(const char *v)
{
	size_t n;
	char *c;
	while (isspace((unsigned char)*v))
		v++;
	n = strlen(v);
	while (n > 0 && isspace((unsigned char)v[n - 1]))
		n--;
	c = malloc(n + 1);
	if (c != NULL) {
		memcpy(c, v, n);
		c[n] = '\0';
	}
	return c;
}

static int conf_store(sl_session *s, const char *key, char *val, sl_err *err)
{
	int i = conf_find(s, key);
	if (i >= 0) {
		free(s->cvals[i]);
		s->cvals[i] = val;
		return 0;
	}
	if (s->nconf == s->capconf) {
		int cap = s->capconf ? 2 * s->capconf : 8;
		char **k = realloc(s->ckeys, (size_t)cap * sizeof *k);
		char **v;
		if (k == NULL)
			goto oom;
		s->ckeys = k;
		v = realloc(s->cvals, (size_t)cap * sizeof *v);
		if (v == NULL)
			goto oom;
		s->cvals = v;
		s->capconf = cap;
	}
	if ((s->ckeys[s->nconf] = strdup(key)) == NULL)
		goto oom;
	s->cvals[s->nconf++] = val;
	return 0;
oom:
	free(val);
	return sl_err_nomem(err);
}

int sl_session_conf_set(sl_session *s, const char *key, const char *val,
			sl_err *err)
{
	const struct conf_def *d = known(key);
	char *v;
	int rc;
	if (val == NULL)
		return sl_err_set(err, SL_EINVAL, "conf: value of '%s' is null",
				  key);
	v = d != NULL ? trimmed_copy(val) : strdup(val);
	if (v == NULL)
		return sl_err_nomem(err);
	if (d != NULL && d->check != NULL && (rc = d->check(key, v, err)) < 0) {
		free(v);
		return rc;
	}
	return conf_store(s, key, v, err);
}

const char *sl_session_conf_get(sl_session *s, const char *key)
{
	const struct conf_def *d;
	int i = conf_find(s, key);
	if (i >= 0)
		return s->cvals[i];
	d = known(key);
	return d ? d->def : NULL;
}

int sl_session_conf_unset(sl_session *s, const char *key)
{
	int i = conf_find(s, key);
	if (i < 0)
		return 0;
	free(s->ckeys[i]);
	free(s->cvals[i]);
	memmove(s->ckeys + i, s->ckeys + i + 1,
		(size_t)(s->nconf - i - 1) * sizeof *s->ckeys);
	memmove(s->cvals + i, s->cvals + i + 1,
		(size_t)(s->nconf - i - 1) * sizeof *s->cvals);
	s->nconf--;
	return 1;
}

/* ------------------------------------------------------ life cycle */

static const char *host_conf_get(void *ctx, const char *key)
{
	return sl_session_conf_get(ctx, key);
}

static void host_write(void *ctx, const char *text, size_t len)
{
	sl_session_write(ctx, text, len);
}

sl_session *sl_session_new(void)
{
	sl_session *s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	s->clock = sl_clock_new();
	s->catalog = sl_catalog_new();
	if (s->clock == NULL || s->catalog == NULL) {
		sl_clock_free(s->clock);
		sl_catalog_free(s->catalog);
		free(s);
		return NULL;
	}
	s->next_handle = 1;
	s->sink_host = (sl_sink_host){ .ctx = s,
				       .conf_get = host_conf_get,
				       .write = host_write,
				       .catalog = s->catalog };
	return s;
}

const sl_sink_host *sl_session_sink_host(sl_session *s)
{
	return s != NULL ? &s->sink_host : NULL;
}

static void listener_release(listener *l)
{
	if (l->free_ud != NULL)
		l->free_ud(l->ud);
	l->fn = NULL;
	l->free_ud = NULL;
	l->ud = NULL;
}

void sl_session_free(sl_session *s)
{
	int i;
	if (s == NULL)
		return;
	while (s->nq > 0) {
		sl_query *q = s->q[s->nq - 1];
		int before = s->nq;
		sl_query_stop(q);
		if (s->nq == before) /* a query that could not stop: drop it */
			sl_session_unregister(s, q);
	}
	for (i = 0; i < s->nl; i++)
		listener_release(&s->l[i]);
	for (i = 0; i < s->nconf; i++) {
		free(s->ckeys[i]);
		free(s->cvals[i]);
	}
	free(s->ckeys);
	free(s->cvals);
	free(s->q);
	free(s->l);
	sl_catalog_free(s->catalog);
	sl_clock_free(s->clock);
	free(s);
}

sl_clock *sl_session_clock(sl_session *s)
{
	return s->clock;
}

sl_catalog *sl_session_catalog(sl_session *s)
{
	return s->catalog;
}

void sl_session_set_output(sl_session *s, sl_write_fn fn, void *ud)
{
	s->out = fn;
	s->out_ud = ud;
}

void sl_session_write(sl_session *s, const char *text, size_t n)
{
	if (s != NULL && s->out != NULL && n > 0)
		s->out(s->out_ud, text, n);
}

/* ---------------------------------------------------------- streams */

int sl_session_active_count(const sl_session *s)
{
	return s->nq;
}

sl_query *sl_session_active(const sl_session *s, int i)
{
	return i >= 0 && i < s->nq ? s->q[i] : NULL;
}

sl_query *sl_session_find(const sl_session *s, const char *id)
{
	int i;
	for (i = 0; i < s->nq; i++)
		if (strcmp(sl_query_id(s->q[i]), id) == 0)
			return s->q[i];
	return NULL;
}

int sl_session_register(sl_session *s, sl_query *q, sl_err *err)
{
	if (s->nq == s->capq) {
		int cap = s->capq ? 2 * s->capq : 4;
		sl_query **m = realloc(s->q, (size_t)cap * sizeof *m);
		if (m == NULL)
			return sl_err_nomem(err);
		s->q = m;
		s->capq = cap;
	}
	s->q[s->nq++] = sl_query_ref(q);
	return 0;
}

void sl_session_unregister(sl_session *s, sl_query *q)
{
	int i;
	for (i = 0; i < s->nq; i++)
		if (s->q[i] == q) {
			memmove(s->q + i, s->q + i + 1,
				(size_t)(s->nq - i - 1) * sizeof *s->q);
			s->nq--;
			sl_query_free(q);
			return;
		}
}

/* The active queries now, each with a reference, so a query that stops
 * (and unregisters) while we walk the list stays valid. */
static sl_query **snapshot(sl_session *s, int *n)
{
	sl_query **v;
	int i;
	*n = 0;
	if (s->nq == 0)
		return NULL;
	v = malloc((size_t)s->nq * sizeof *v);
	if (v == NULL)
		return NULL;
	for (i = 0; i < s->nq; i++)
		v[i] = sl_query_ref(s->q[i]);
	*n = s->nq;
	return v;
}

int sl_session_tick(sl_session *s, sl_err *err)
{
	sl_query **v;
	int n, i, total = 0, b;
	if (s->nq == 0)
		return 0;
	v = snapshot(s, &n);
	if (v == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < n; i++) {
		b = 0;
		if (sl_query_is_active(v[i]))
			(void)sl_query_tick(v[i], &b, NULL);
		total += b;
	}
	for (i = 0; i < n; i++)
		sl_query_free(v[i]);
	free(v);
	return total;
}

void sl_session_sync(sl_session *s)
{
	int i;
	for (i = 0; i < s->nq; i++)
		if (sl_query_is_active(s->q[i]))
			(void)sl_query_sync(s->q[i], NULL);
}

static int64_t next_due(const sl_session *s)
{
	int64_t due = INT64_MAX, d;
	int i;
	for (i = 0; i < s->nq; i++)
		if ((d = sl_query_next_due(s->q[i])) < due)
			due = d;
	return due;
}

int sl_session_advance(sl_session *s, int64_t us, sl_err *err)
{
	int64_t now, target, due, last = INT64_MIN;
	int total = 0, n;
	if (!sl_clock_is_manual(s->clock) || us < 0)
		return sl_session_tick(s, err);
	now = sl_clock_now(s->clock);
	target = us > INT64_MAX - now ? INT64_MAX : now + us;
	/* Each due instant in order.  A query moves its next due past the
	 * instant it ran at; `last` stops a query that would not (a bug, or
	 * one whose batch is running) from holding the clock in place. */
	while ((due = next_due(s)) <= target && due > last) {
		if (due > now)
			now = sl_clock_advance(s->clock, due - now);
		last = now;
		if ((n = sl_session_tick(s, err)) < 0)
			return n;
		total += n;
	}
	if (target > now)
		sl_clock_advance(s->clock, target - now);
	if ((n = sl_session_tick(s, err)) < 0)
		return n;
	return total + n;
}

/* -------------------------------------------------------- listeners */

int sl_session_add_listener(sl_session *s, sl_listener_fn fn, void *ud,
			    void (*free_ud)(void *))
{
	listener *l;
	if (s->nl == s->capl) {
		int cap = s->capl ? 2 * s->capl : 4;
		listener *m = realloc(s->l, (size_t)cap * sizeof *m);
		if (m == NULL) {
			if (free_ud != NULL)
				free_ud(ud);
			return SL_ENOMEM;
		}
		s->l = m;
		s->capl = cap;
	}
	l = &s->l[s->nl++];
	l->handle = s->next_handle++;
	l->fn = fn;
	l->removed = false;
	l->ud = ud;
	l->free_ud = free_ud;
	return l->handle;
}

static void compact_listeners(sl_session *s)
{
	int i, j = 0;
	for (i = 0; i < s->nl; i++) {
		if (s->l[i].removed)
			listener_release(&s->l[i]);
		else
			s->l[j++] = s->l[i];
	}
	s->nl = j;
}

/* A listener may remove itself from its own callback: its ud must outlive
 * that call, so removal only marks until the notification is over. */
int sl_session_remove_listener(sl_session *s, int handle)
{
	int i;
	for (i = 0; i < s->nl; i++)
		if (s->l[i].handle == handle && !s->l[i].removed) {
			s->l[i].removed = true;
			if (s->notifying == 0)
				compact_listeners(s);
			return 1;
		}
	return 0;
}

void sl_session_notify(sl_session *s, int event, sl_query *q, const char *json)
{
	int i, n;
	if (s == NULL)
		return;
	n = s->nl; /* listeners added by a callback hear the next event */
	s->notifying++;
	for (i = 0; i < n; i++) {
		listener l = s->l[i]; /* the array may move under the call */
		if (!l.removed)
			l.fn(l.ud, event, q, json);
	}
	if (--s->notifying == 0)
		compact_listeners(s);
}
