/*
 * kafka: the `kafka` global (API.md, Embedded Kafka, **ext**): helpers for
 * the embedded Kafka cluster (librdkafka's mock cluster, engine/kafka.h),
 * or for the broker list set with kafka.bootstrap(servers).
 *
 *   kafka.produce(topic, value, {key=, partition=, timestamp=, headers={k=v}})
 *   kafka.produce(topic, {value, ...}, {...})  many values in one call,
 *           each with the same options (one delivery wait for all: the
 *           benchmarks' producer, bench/w3.lua)
 *   kafka.createTopic(name, partitions)      kafka.topics()
 *   kafka.offsets(topic) -> { {partition=0, low=, high=}, ... }
 *   kafka.brokerDown(id) kafka.brokerUp(id) kafka.setLeader(t, p, broker)
 *   kafka.injectError(request, error, count?)
 *   kafka.deleteRecords(topic, partition, beforeOffset)   (retention)
 *   kafka.bootstrap(servers?) -> the broker list in use
 *   kafka.log() -> the librdkafka/fault lines since the last call
 *
 * A message without a timestamp gets the session clock's time, so a
 * manual clock makes Kafka timestamps deterministic too.  Engine errors
 * are raised as error objects (lerr.h).
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "kafka/kafka.h"
#include "lerr.h"
#include "lua_int.h"
#include "driver/session.h"
#include "core/timeutil.h"

#define PRODUCE_TIMEOUT_MS 10000

/* The servers set by kafka.bootstrap (NULL: embedded); one per process,
 * like the embedded cluster itself. */
static char *servers;

static int check(lua_State *L, int rc, sl_err *err)
{
	if (rc != 0)
		return sl_lerr_raise(L, err);
	return 0;
}

static int32_t opt_int(lua_State *L, int t, const char *k, int32_t def)
{
	int32_t v = def;
	lua_getfield(L, t, k);
	if (!lua_isnil(L, -1)) {
		if (!lua_isinteger(L, -1))
			sl_lerr_argerror(L, 3, "kafka.produce",
					 "'%s' must be an integer", k);
		v = (int32_t)lua_tointeger(L, -1);
	}
	lua_pop(L, 1);
	return v;
}

static int64_t opt_ts(lua_State *L, int t)
{
	sl_session *s = sl_lua_session(L);
	int64_t ms = s ? sl_clock_now(sl_session_clock(s)) / 1000 : -1;
	lua_getfield(L, t, "timestamp");
	if (lua_isinteger(L, -1)) {
		ms = lua_tointeger(L, -1);
	} else if (lua_type(L, -1) == LUA_TSTRING) {
		size_t n;
		const char *v = lua_tolstring(L, -1, &n);
		int64_t us;
		if (!sl_ts_parse(v, n, &us))
			sl_lerr_argerror(L, 3, "kafka.produce",
					 "bad timestamp '%s'", v);
		ms = us / 1000;
	} else if (!lua_isnil(L, -1)) {
		sl_lerr_argerror(L, 3, "kafka.produce",
				 "timestamp must be epoch milliseconds or a "
				 "timestamp string");
	}
	lua_pop(L, 1);
	return ms;
}

/* kafka.produce(topic, {v1, v2, ...}, opts): every value of the array
 * with proto's topic and options, in one sl_kafka_produce call. */
static int produce_many(lua_State *L, const sl_kafka_msg *proto)
{
	lua_Integer n = (lua_Integer)lua_rawlen(L, 2), i;
	sl_kafka_msg *m;
	sl_err err;
	int rc;
	if (n == 0)
		return 0;
	if (n > 10000000)
		return sl_lerr_argerror(L, 2, "kafka.produce",
					"at most 10000000 values in one call");
	m = lua_newuserdatauv(L, (size_t)n * sizeof *m, 0); /* freed by GC */
	for (i = 0; i < n; i++) {
		m[i] = *proto;
		if (lua_rawgeti(L, 2, i + 1) != LUA_TSTRING)
			return sl_lerr_argerror(L, 2, "kafka.produce",
						"value %d is not a string",
						(int)(i + 1));
		m[i].value = lua_tolstring(L, -1, &m[i].value_len);
		lua_pop(L, 1); /* the array keeps the string alive */
	}
	rc = sl_kafka_produce(servers, m, (int)n, PRODUCE_TIMEOUT_MS, &err);
	return check(L, rc, &err);
}

static int l_produce(lua_State *L)
{
	sl_kafka_msg m;
	sl_kafka_header h[32];
	sl_err err;
	int nh = 0;
	memset(&m, 0, sizeof m);
	m.topic = sl_lerr_checkstr(L, 1, "kafka.produce", "a topic name");
	m.partition = -1;
	if (!lua_isnil(L, 2) && !lua_istable(L, 2))
		m.value = luaL_checklstring(L, 2, &m.value_len);
	m.ts_ms = -1;
	if (lua_istable(L, 3)) {
		lua_getfield(L, 3, "key");
		if (!lua_isnil(L, -1)) /* the string stays on the stack */
			m.key = luaL_tolstring(L, -1, &m.key_len);
		m.partition = opt_int(L, 3, "partition", -1);
		m.ts_ms = opt_ts(L, 3);
		lua_getfield(L, 3, "headers");
		if (lua_istable(L, -1)) {
			lua_pushnil(L);
			while (lua_next(L, -2) != 0 && nh < 32) {
				h[nh].key = luaL_checkstring(L, -2);
				h[nh].value =
				    luaL_checklstring(L, -1, &h[nh].len);
				nh++;
				lua_pop(L, 1);
			}
		}
	} else if (!lua_isnoneornil(L, 3)) {
		return sl_lerr_argerror(L, 3, "kafka.produce",
					"options table expected");
	} else {
		sl_session *s = sl_lua_session(L);
		m.ts_ms = s ? sl_clock_now(sl_session_clock(s)) / 1000 : -1;
	}
	m.nheaders = nh;
	m.headers = h;
	if (lua_istable(L, 2))
		return produce_many(L, &m);
	check(L, sl_kafka_produce(servers, &m, 1, PRODUCE_TIMEOUT_MS, &err),
	      &err);
	return 0;
}

static int l_create_topic(lua_State *L)
{
	sl_err err;
	const char *t =
	    sl_lerr_checkstr(L, 1, "kafka.createTopic", "a topic name");
	lua_Integer n = luaL_optinteger(L, 2, 1);
	check(L, sl_kafka_create_topic(servers, t, (int)n, &err), &err);
	return 0;
}

static int l_topics(lua_State *L)
{
	sl_err err;
	char **names;
	int *parts, n;
	check(L, sl_kafka_topics(servers, &names, &parts, &n, &err), &err);
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_createtable(L, 0, 2);
		lua_pushstring(L, names[i]);
		lua_setfield(L, -2, "name");
		lua_pushinteger(L, parts[i]);
		lua_setfield(L, -2, "partitions");
		lua_rawseti(L, -2, i + 1);
	}
	sl_kafka_topics_free(names, parts, n);
	return 1;
}

static int l_offsets(lua_State *L)
{
	sl_err err;
	sl_kafka_wm *w;
	int n;
	const char *t = sl_lerr_checkstr(L, 1, "kafka.offsets", "a topic name");
	check(L, sl_kafka_offsets(servers, t, &w, &n, &err), &err);
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_createtable(L, 0, 3);
		lua_pushinteger(L, w[i].partition);
		lua_setfield(L, -2, "partition");
		lua_pushinteger(L, w[i].low);
		lua_setfield(L, -2, "low");
		lua_pushinteger(L, w[i].high);
		lua_setfield(L, -2, "high");
		lua_rawseti(L, -2, i + 1);
	}
	free(w);
	return 1;
}

static int l_broker_down(lua_State *L)
{
	sl_err err;
	check(L, sl_kafka_broker_down((int32_t)luaL_checkinteger(L, 1), &err),
	      &err);
	return 0;
}

static int l_broker_up(lua_State *L)
{
	sl_err err;
	check(L, sl_kafka_broker_up((int32_t)luaL_checkinteger(L, 1), &err),
	      &err);
	return 0;
}

static int l_set_leader(lua_State *L)
{
	sl_err err;
	const char *t =
	    sl_lerr_checkstr(L, 1, "kafka.setLeader", "a topic name");
	check(L,
	      sl_kafka_set_leader(t, (int32_t)luaL_checkinteger(L, 2),
				  (int32_t)luaL_checkinteger(L, 3), &err),
	      &err);
	return 0;
}

static int l_inject_error(lua_State *L)
{
	sl_err err;
	const char *api = sl_lerr_checkstr(L, 1, "kafka.injectError",
					   "a request name such as 'Fetch'");
	const char *e = sl_lerr_checkstr(L, 2, "kafka.injectError",
					 "an error name such as "
					 "'NOT_LEADER_FOR_PARTITION'");
	check(
	    L,
	    sl_kafka_inject_error(api, e, (int)luaL_optinteger(L, 3, 1), &err),
	    &err);
	return 0;
}

static int l_delete_records(lua_State *L)
{
	sl_err err;
	const char *t =
	    sl_lerr_checkstr(L, 1, "kafka.deleteRecords", "a topic name");
	check(L,
	      sl_kafka_delete_records(t, (int32_t)luaL_checkinteger(L, 2),
				      luaL_checkinteger(L, 3), &err),
	      &err);
	return 0;
}

static int l_bootstrap(lua_State *L)
{
	sl_err err;
	const char *list;
	if (!lua_isnoneornil(L, 1)) {
		const char *v = sl_lerr_checkstr(L, 1, "kafka.bootstrap",
						 "a broker list or 'embedded'");
		free(servers);
		servers = sl_kafka_is_embedded(v) ? NULL : strdup(v);
	}
	check(L, sl_kafka_resolve(servers, &list, &err), &err);
	lua_pushstring(L, list);
	return 1;
}

static int l_log(lua_State *L)
{
	static uint64_t seq;
	char line[400];
	int n = 0;
	lua_newtable(L);
	while (sl_kafka_log_next(&seq, line, sizeof line)) {
		lua_pushstring(L, line);
		lua_rawseti(L, -2, ++n);
	}
	return 1;
}

static const luaL_Reg kafka_fns[] = {
	{ "produce", l_produce },
	{ "createTopic", l_create_topic },
	{ "topics", l_topics },
	{ "offsets", l_offsets },
	{ "brokerDown", l_broker_down },
	{ "brokerUp", l_broker_up },
	{ "setLeader", l_set_leader },
	{ "injectError", l_inject_error },
	{ "deleteRecords", l_delete_records },
	{ "bootstrap", l_bootstrap },
	{ "log", l_log },
	{ NULL, NULL },
};

void sl_lkafka_open(lua_State *L)
{
	luaL_newlib(L, kafka_fns);
	lua_setglobal(L, "kafka");
}
