/*
 * kafka_util: small pieces the Kafka files share: topic-partition offset
 * maps and their JSON (Spark's {"topic":{"0":23}} and the assign option's
 * {"topic":[0,1]}), Kafka API and error names.
 *
 * The JSON reader is deliberately tiny: it accepts exactly the two shapes
 * above (any whitespace) and rejects anything else with a message naming
 * the option and the position.  Never prints.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kafka/kafka_int.h"

void sl_kafka_tpmap_init(sl_kafka_tpmap *m)
{
	m->n = 0;
	m->cap = 0;
	m->v = NULL;
}

void sl_kafka_tpmap_release(sl_kafka_tpmap *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->v[i].topic);
	free(m->v);
	sl_kafka_tpmap_init(m);
}

int sl_kafka_tpmap_find(const sl_kafka_tpmap *m, const char *topic, int32_t p)
{
	for (int i = 0; i < m->n; i++)
		if (m->v[i].partition == p && strcmp(m->v[i].topic, topic) == 0)
			return i;
	return -1;
}

int sl_kafka_tpmap_put(sl_kafka_tpmap *m, const char *topic, int32_t p,
		       int64_t off)
{
	int i = sl_kafka_tpmap_find(m, topic, p);
	if (i >= 0) {
		m->v[i].offset = off;
		return 0;
	}
	if (m->n == m->cap) {
		int cap = m->cap ? 2 * m->cap : 8;
		sl_kafka_tp *v = realloc(m->v, (size_t)cap * sizeof *v);
		if (v == NULL)
			return SL_ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n].topic = strdup(topic);
	if (m->v[m->n].topic == NULL)
		return SL_ENOMEM;
	m->v[m->n].partition = p;
	m->v[m->n].offset = off;
	m->n++;
	return 0;
}

static int tp_cmp(const void *a, const void *b)
{
	const sl_kafka_tp *x = a, *y = b;
	int c = strcmp(x->topic, y->topic);
	if (c != 0)
		return c;
	return (x->partition > y->partition) - (x->partition < y->partition);
}

void sl_kafka_tpmap_sort(sl_kafka_tpmap *m)
{
	if (m->n > 1)
		qsort(m->v, (size_t)m->n, sizeof *m->v, tp_cmp);
}

int sl_kafka_tpmap_copy(sl_kafka_tpmap *dst, const sl_kafka_tpmap *src)
{
	for (int i = 0; i < src->n; i++)
		if (sl_kafka_tpmap_put(dst, src->v[i].topic,
				       src->v[i].partition,
				       src->v[i].offset) != 0)
			return SL_ENOMEM;
	return 0;
}

void sl_kafka_tpmap_json(const sl_kafka_tpmap *m, sl_buf *out)
{
	sl_kafka_tpmap s = *m;
	sl_kafka_tp *v = NULL;
	if (m->n > 0) {
		v = malloc((size_t)m->n * sizeof *v);
		if (v == NULL) {
			out->oom = true;
			return;
		}
		memcpy(v, m->v, (size_t)m->n * sizeof *v);
		s.v = v;
		sl_kafka_tpmap_sort(&s);
	}
	sl_buf_addc(out, '{');
	for (int i = 0; i < s.n; i++) {
		bool first = i == 0 || strcmp(s.v[i - 1].topic, s.v[i].topic);
		if (first) {
			if (i > 0)
				sl_buf_adds(out, "},");
			sl_buf_json_str(out, s.v[i].topic,
					strlen(s.v[i].topic));
			sl_buf_adds(out, ":{");
		} else {
			sl_buf_addc(out, ',');
		}
		sl_buf_printf(out, "\"%d\":%lld", (int)s.v[i].partition,
			      (long long)s.v[i].offset);
	}
	if (s.n > 0)
		sl_buf_addc(out, '}');
	sl_buf_addc(out, '}');
	free(v);
}

/* ---- the tiny JSON reader ---- */

typedef struct jr {
	const char *s, *p, *who;
	sl_err *err;
} jr;

static void ws(jr *r)
{
	while (isspace((unsigned char)*r->p))
		r->p++;
}

static int bad(jr *r, const char *what)
{
	return sl_err_set(r->err, SL_EINVAL,
			  "%s: expected %s at position %d of '%s'", r->who,
			  what, (int)(r->p - r->s), r->s);
}

static int expect(jr *r, char c)
{
	char what[4] = { '\'', c, '\'', 0 };
	ws(r);
	if (*r->p != c)
		return bad(r, what);
	r->p++;
	return 0;
}

/* A JSON string without escapes other than \" and \\ (topic names and
 * partition numbers never need more). */
static int jstr(jr *r, char *out, size_t size)
{
	size_t n = 0;
	ws(r);
	if (*r->p != '"')
		return bad(r, "a string");
	r->p++;
	while (*r->p && *r->p != '"') {
		char c = *r->p++;
		if (c == '\\' && *r->p)
			c = *r->p++;
		if (n + 1 >= size)
			return bad(r, "a shorter name");
		out[n++] = c;
	}
	if (*r->p != '"')
		return bad(r, "'\"'");
	r->p++;
	out[n] = '\0';
	return 0;
}

static int jint(jr *r, long long *v)
{
	char *end;
	ws(r);
	errno = 0;
	*v = strtoll(r->p, &end, 10);
	if (end == r->p || errno != 0)
		return bad(r, "a number");
	r->p = end;
	return 0;
}

static int parse_inner(jr *r, sl_kafka_tpmap *m, const char *topic, bool lists)
{
	char key[64];
	long long v;
	if (expect(r, lists ? '[' : '{') != 0)
		return SL_EINVAL;
	ws(r);
	if (*r->p == (lists ? ']' : '}')) {
		r->p++;
		return 0;
	}
	for (;;) {
		char *end;
		if (lists) {
			if (jint(r, &v) != 0)
				return SL_EINVAL;
			if (sl_kafka_tpmap_put(m, topic, (int32_t)v, -2) != 0)
				return sl_err_nomem(r->err);
		} else {
			if (jstr(r, key, sizeof key) != 0)
				return SL_EINVAL;
			errno = 0;
			long p = strtol(key, &end, 10);
			if (*key == '\0' || *end != '\0' || p < 0 || errno)
				return sl_err_set(
				    r->err, SL_EINVAL,
				    "%s: bad partition '%s' in '%s'", r->who,
				    key, r->s);
			if (expect(r, ':') != 0 || jint(r, &v) != 0)
				return SL_EINVAL;
			if (sl_kafka_tpmap_put(m, topic, (int32_t)p, v) != 0)
				return sl_err_nomem(r->err);
		}
		ws(r);
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		return expect(r, lists ? ']' : '}');
	}
}

int sl_kafka_tpmap_parse(sl_kafka_tpmap *m, const char *json, bool lists,
			 const char *who, sl_err *err)
{
	jr r = { json, json, who, err };
	char topic[256];
	if (expect(&r, '{') != 0)
		return SL_EINVAL;
	ws(&r);
	if (*r.p == '}') {
		r.p++;
	} else {
		for (;;) {
			if (jstr(&r, topic, sizeof topic) != 0 ||
			    expect(&r, ':') != 0 ||
			    parse_inner(&r, m, topic, lists) != 0)
				return err ? err->code : SL_EINVAL;
			ws(&r);
			if (*r.p == ',') {
				r.p++;
				continue;
			}
			if (expect(&r, '}') != 0)
				return SL_EINVAL;
			break;
		}
	}
	ws(&r);
	if (*r.p != '\0')
		return bad(&r, "the end");
	return 0;
}

/* ---- names ---- */

static const struct {
	const char *name;
	int key;
} apis[] = {
	{ "Produce", 0 },          { "Fetch", 1 },
	{ "ListOffsets", 2 },      { "Metadata", 3 },
	{ "OffsetCommit", 8 },     { "OffsetFetch", 9 },
	{ "FindCoordinator", 10 }, { "JoinGroup", 11 },
	{ "Heartbeat", 12 },       { "LeaveGroup", 13 },
	{ "SyncGroup", 14 },       { "ApiVersions", 18 },
	{ "InitProducerId", 22 },  { "AddPartitionsToTxn", 24 },
	{ "EndTxn", 26 },
};

int sl_kafka_api_key(const char *name)
{
	for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++)
		if (strcasecmp(name, apis[i].name) == 0)
			return apis[i].key;
	return -1;
}

bool sl_kafka_err_code(const char *name, rd_kafka_resp_err_t *out)
{
	const struct rd_kafka_err_desc *d;
	size_t n;
	if (strncasecmp(name, "ERR_", 4) == 0)
		name += 4;
	rd_kafka_get_err_descs(&d, &n);
	for (size_t i = 0; i < n; i++)
		if (d[i].name != NULL && strcasecmp(d[i].name, name) == 0) {
			*out = d[i].code;
			return true;
		}
	return false;
}
