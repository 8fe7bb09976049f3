/*
 * t501-session: the session without queries: confs (Spark's defaults and
 * validation messages), the catalog (TABLE_OR_VIEW_NOT_FOUND with a hint),
 * the event feed ring, listeners (order, removal from a callback), output,
 * the manual clock's advance, output-mode names and query ids.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/catalog.h"
#include "core/feed.h"
#include "formats/fileformat.h"
#include "driver/session.h"
#include "plan/stream.h"
#include "tap.h"

static sl_err err;

static sl_batch *rows(const char *ddl, const char *json)
{
	sl_type *t = sl_type_parse_ddl(ddl, &err);
	sl_options o;
	sl_batch *b;
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", json, strlen(json), t, &o, &err);
	sl_type_free(t);
	return b;
}

static void test_confs(void)
{
	sl_session *s = sl_session_new();
	const char *pol = "spark.sql.streaming.multipleWatermarkPolicy";
	is_str(sl_session_conf_get(s, pol), "min", "multipleWatermarkPolicy defaults to min");
	is_str(sl_session_conf_get(s, "spark.sql.streaming.noDataMicroBatches.enabled"),
	       "true", "noDataMicroBatches defaults to true");
	is_str(sl_session_conf_get(s, "spark.sql.streaming.statefulOperator.allowMultiple"),
	       "true", "allowMultiple defaults to true");
	is_str(sl_session_conf_get(s, "spark.sql.streaming.minBatchesToRetain"), "100",
	       "minBatchesToRetain defaults to 100");
	is_str(sl_session_conf_get(s, "spark.sql.shuffle.partitions"), "200",
	       "shuffle partitions default to 200");
	is_str(sl_session_conf_get(s, "spark.sql.streaming.numRecentProgressUpdates"),
	       "100", "numRecentProgressUpdates defaults to 100");
	is_str(sl_session_conf_get(s, "spark.sql.session.timeZone"), "UTC",
	       "timeZone defaults to UTC");
	ok(sl_session_conf_get(s, "my.own.key") == NULL, "unknown unset key is NULL");

	is_int(sl_session_conf_set(s, pol, "MAX", &err), 0, "policy MAX accepted");
	is_str(sl_session_conf_get(s, pol), "max", "policy stored lower case");
	is_int(sl_session_conf_set(s, pol, "random", &err), SL_EINVAL, "policy random refused");
	is_str(err.msg, "'random' in spark.sql.streaming.multipleWatermarkPolicy is invalid. "
			"Invalid value for 'spark.sql.streaming.multipleWatermarkPolicy'. "
			"Valid values are 'min' and 'max'", "policy message is Spark's");
	is_str(sl_session_conf_get(s, pol), "max", "a refused value keeps the old one");

	is_int(sl_session_conf_set(s, "spark.sql.streaming.noDataMicroBatches.enabled",
				   "yes", &err), SL_EINVAL, "bool conf refuses yes");
	is_str(err.msg, "spark.sql.streaming.noDataMicroBatches.enabled should be boolean, "
			"but was yes", "bool message is Spark's");
	is_int(sl_session_conf_set(s, "spark.sql.streaming.noDataMicroBatches.enabled",
				   " False ", &err), 0, "bool conf trims and ignores case");
	is_str(sl_session_conf_get(s, "spark.sql.streaming.noDataMicroBatches.enabled"),
	       "false", "bool stored as false");

	is_int(sl_session_conf_set(s, "spark.sql.streaming.minBatchesToRetain", "0", &err),
	       SL_EINVAL, "minBatchesToRetain 0 refused");
	is_str(err.msg, "'0' in spark.sql.streaming.minBatchesToRetain is invalid. "
			"The minimum number of batches to be retained must be positive.",
	       "minBatchesToRetain message");
	is_int(sl_session_conf_set(s, "spark.sql.streaming.minBatchesToRetain", "x", &err),
	       SL_EINVAL, "minBatchesToRetain x refused");
	is_str(err.msg, "spark.sql.streaming.minBatchesToRetain should be int, but was x",
	       "int message is Spark's");
	is_int(sl_session_conf_set(s, "spark.sql.shuffle.partitions", "-1", &err),
	       SL_EINVAL, "shuffle partitions -1 refused");
	is_int(sl_session_conf_set(s, "spark.sql.shuffle.partitions", "4", &err), 0,
	       "shuffle partitions 4 accepted");
	is_int(sl_session_conf_set(s, "spark.sql.session.timeZone", "Europe/Paris", &err),
	       SL_EINVAL, "a non-UTC time zone is refused");
	is_str(err.msg, "spark.sql.session.timeZone: only UTC is supported, got 'Europe/Paris'",
	       "time zone message says only UTC");
	is_int(sl_session_conf_set(s, "spark.sql.session.timeZone", "utc", &err), 0,
	       "utc accepted");

	is_int(sl_session_conf_set(s, "my.own.key", "Whatever ", &err), 0, "unknown key stored");
	is_str(sl_session_conf_get(s, "my.own.key"), "Whatever ", "unknown key kept as given");
	is_int(sl_session_conf_unset(s, "my.own.key"), 1, "unset removes");
	ok(sl_session_conf_get(s, "my.own.key") == NULL, "unset key is gone");
	sl_session_conf_unset(s, pol);
	is_str(sl_session_conf_get(s, pol), "min", "unset known key: default again");
	sl_session_free(s);
}

static void test_catalog(void)
{
	sl_catalog *c = sl_catalog_new();
	sl_batch *a = rows("v INT", "{\"v\":1}\n{\"v\":2}\n");
	sl_batch *b = rows("v INT", "{\"v\":3}\n");
	sl_batch *w = rows("v STRING", "{\"v\":\"x\"}\n");
	sl_batch *g;
	ok(a && b && w, "catalog test rows built");
	is_int(sl_catalog_put(c, "Counts", a, &err), 0, "put");
	is_int(sl_catalog_append(c, "counts", b, &err), 0, "append (case-insensitive name)");
	g = sl_catalog_get(c, "COUNTS", &err);
	ok(g != NULL && g->nrows == 3, "get sees 3 rows");
	sl_batch_free(g);
	is_int(sl_catalog_append(c, "counts", w, &err), SL_EINVAL, "append of another type refused");
	is_int(sl_catalog_count(c), 1, "one table");
	is_str(sl_catalog_name(c, 0), "Counts", "name keeps its first spelling");
	g = sl_catalog_get(c, "cuonts", &err);
	ok(g == NULL, "misspelt table not found");
	is_int(err.code, SL_EANALYSIS, "not found is an AnalysisException");
	is_str(err.msg, "[TABLE_OR_VIEW_NOT_FOUND] The table or view `cuonts` cannot be found.",
	       "Spark's TABLE_OR_VIEW_NOT_FOUND text");
	is_str(err.hint, "did you mean 'Counts'?", "did-you-mean hint");
	is_int(sl_catalog_put(c, "counts", b, &err), 0, "put replaces");
	g = sl_catalog_get(c, "counts", &err);
	ok(g != NULL && g->nrows == 1, "replaced table has 1 row");
	sl_batch_free(g);
	is_int(sl_catalog_append(c, "fresh", w, &err), 0, "append creates");
	is_int(sl_catalog_count(c), 2, "two tables");
	is_int(sl_catalog_drop(c, "COUNTS"), 1, "drop");
	is_int(sl_catalog_drop(c, "counts"), 0, "drop again: nothing");
	is_int(sl_catalog_count(c), 1, "one table left");
	sl_batch_free(a);
	sl_batch_free(b);
	sl_batch_free(w);
	sl_catalog_free(c);
}

static void test_feed(void)
{
	sl_feed *f = sl_feed_new(3);
	uint64_t first, last, s1, s;
	const sl_event *e;
	int i;
	sl_feed_range(f, &first, &last);
	ok(first == 0 && last == 0, "empty feed: range 0..0");
	ok(sl_feed_get(f, 1) == NULL, "empty feed: no event 1");
	s1 = sl_feed_add(f, SL_EV_LOG, -1, 10, "one", NULL);
	is_int(s1, 1, "first seq is 1");
	for (i = 2; i <= 5; i++) {
		char t[16];
		snprintf(t, sizeof t, "ev%d", i);
		s = sl_feed_add(f, SL_EV_BATCH_START, i, 10 * i, t, "{\"x\":1}");
		is_int(s, i, "seq %d increases by one", i);
	}
	sl_feed_range(f, &first, &last);
	ok(first == 3 && last == 5, "ring of 3 holds seq 3..5 (got %llu..%llu)",
	   (unsigned long long)first, (unsigned long long)last);
	ok(sl_feed_get(f, 2) == NULL, "seq 2 fell off");
	e = sl_feed_get(f, 3);
	ok(e != NULL && e->seq == 3 && strcmp(e->text, "ev3") == 0 && e->batch_id == 3 &&
	   e->ts_us == 30 && strcmp(e->json, "{\"x\":1}") == 0, "seq 3 intact");
	ok(sl_feed_get(f, 6) == NULL, "future seq is NULL");
	ok(sl_feed_wants(f, SL_EV_STATE_ROW), "detail on by default");
	sl_feed_set_detail(f, false);
	ok(!sl_feed_wants(f, SL_EV_STATE_ROW) && sl_feed_wants(f, SL_EV_BATCH_END),
	   "detail off: per-row kinds only");
	is_int(sl_feed_add(f, SL_EV_STATE_ROW, 5, 0, "row", NULL), 0, "state row dropped");
	is_int(sl_feed_add(f, SL_EV_SINK, 5, 0, NULL, NULL), 6, "seq continues");
	e = sl_feed_get(f, 6);
	ok(e != NULL && strcmp(e->text, "") == 0 && e->json == NULL, "NULL text stored as empty");
	sl_feed_free(f);
	sl_feed_free(NULL);
}

static char lbuf[256];
static int freed;

static void lis(void *ud, int event, sl_query *q, const char *json)
{
	(void)q;
	(void)json;
	snprintf(lbuf + strlen(lbuf), sizeof lbuf - strlen(lbuf), "%s%d;",
		 (const char *)ud, event);
}

static int self_handle;
static sl_session *self_sess;
static void lis_self_remove(void *ud, int event, sl_query *q, const char *json)
{
	lis(ud, event, q, json);
	sl_session_remove_listener(self_sess, self_handle);
}

static void count_free(void *ud)
{
	(void)ud;
	freed++;
}

static void test_listeners(void)
{
	sl_session *s = sl_session_new();
	int a, b, c;
	self_sess = s;
	a = sl_session_add_listener(s, lis, "a", count_free);
	b = sl_session_add_listener(s, lis, "b", count_free);
	c = sl_session_add_listener(s, lis, "c", count_free);
	ok(a > 0 && b > a && c > b, "handles are positive and distinct");
	lbuf[0] = 0;
	sl_session_notify(s, SL_LISTEN_PROGRESS, NULL, "{}");
	is_str(lbuf, "a2;b2;c2;", "listeners called in registration order");
	is_int(sl_session_remove_listener(s, b), 1, "remove b");
	is_int(freed, 1, "removed listener's ud freed");
	is_int(sl_session_remove_listener(s, b), 0, "remove b again: no");
	self_handle = sl_session_add_listener(s, lis_self_remove, "s", count_free);
	lbuf[0] = 0;
	sl_session_notify(s, SL_LISTEN_STARTED, NULL, "{}");
	is_str(lbuf, "a1;c1;s1;", "a listener removing itself still ran this time");
	is_int(freed, 2, "and was freed after the notification");
	lbuf[0] = 0;
	sl_session_notify(s, SL_LISTEN_TERMINATED, NULL, "{}");
	is_str(lbuf, "a4;c4;", "then it is gone");
	sl_session_free(s);
	is_int(freed, 4, "session free frees the remaining listeners");
}

static char obuf[64];
static void out(void *ud, const char *s, size_t n)
{
	(void)ud;
	strncat(obuf, s, n);
}

static void test_clock_output(void)
{
	sl_session *s = sl_session_new();
	sl_clock *c = sl_session_clock(s);
	char id1[37], id2[37];
	sl_outmode m;
	sl_session_write(s, "dropped", 7);
	sl_session_set_output(s, out, NULL);
	sl_session_write(s, "hello", 5);
	is_str(obuf, "hello", "session output goes to the callback");
	ok(sl_catalog_count(sl_session_catalog(s)) == 0, "session starts with no tables");
	ok(!sl_clock_is_manual(c), "real clock by default");
	is_int(sl_session_advance(s, 1000000, &err), 0, "advance on a real clock: a tick");
	sl_clock_set_manual(c, 1000);
	is_int(sl_session_advance(s, 5000000, &err), 0, "advance with no query runs nothing");
	is_int(sl_clock_now(c), 5001000, "manual clock moved by the amount");
	is_int(sl_session_tick(s, &err), 0, "tick with no query");
	is_int(sl_session_active_count(s), 0, "no active query");
	ok(sl_session_find(s, "nope") == NULL, "find unknown id");

	is_int(sl_outmode_parse("UPDATE", &m, &err), 0, "outputMode UPDATE");
	is_int(m, SL_MODE_UPDATE, "is update");
	is_int(sl_outmode_parse("Complete", &m, &err), 0, "outputMode Complete");
	is_str(sl_outmode_name(m), "Complete", "name Complete");
	is_str(sl_outmode_name(SL_MODE_APPEND), "Append", "name Append");
	is_int(sl_outmode_parse("xyz", &m, &err), SL_EINVAL, "outputMode xyz refused");
	is_str(err.msg, "Unknown output mode xyz. Accepted output modes are 'append', "
			"'complete', 'update'", "Spark's unknown output mode text");

	sl_stream_uuid(id1);
	sl_stream_uuid(id2);
	ok(strlen(id1) == 36 && id1[8] == '-' && id1[13] == '-' && id1[14] == '4' &&
	   id1[18] == '-' && strchr("89ab", id1[19]) != NULL && id1[23] == '-',
	   "uuid v4 shape: %s", id1);
	ok(strcmp(id1, id2) != 0, "two uuids differ");
	sl_session_free(s);
	sl_session_free(NULL);
}

int main(void)
{
	test_confs();
	test_catalog();
	test_feed();
	test_listeners();
	test_clock_output();
	return done_testing();
}
