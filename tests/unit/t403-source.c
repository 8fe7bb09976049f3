/*
 * t403-source: the memory, rate and socket sources: offsets, reads,
 * descriptions, option errors (Spark's sentences verbatim).  The rate
 * source is checked against Spark's ramp-up example (R = 4, r = 10) with a
 * manual clock; the socket source against a real listening socket on
 * 127.0.0.1.  The file source is t404-source-file.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sources/source.h"
#include "sources/source_int.h" /* sl_rate_value_at */
#include "tap.h"
#include "core/timeutil.h"

#define SEC INT64_C(1000000)

static sl_err err;

/* Total rows, and the int64/timestamp column c of every row, joined. */
static int64_t rows(const sl_batch_list *l)
{
	int64_t n = 0;
	for (int i = 0; i < l->n; i++)
		n += l->b[i]->nrows;
	return n;
}

static const char *col_text(const sl_batch_list *l, int c)
{
	static char out[4096];
	size_t len = 0;
	out[0] = '\0';
	for (int i = 0; i < l->n; i++) {
		const sl_col *col = l->b[i]->cols[c];
		for (int64_t r = 0; r < l->b[i]->nrows; r++) {
			sl_buf b;
			sl_buf_init(&b);
			sl_value_show(col, r, &b);
			len += (size_t)snprintf(out + len, sizeof out - len,
						"%s%s", len ? "," : "",
						sl_buf_cstr(&b));
			sl_buf_release(&b);
			if (len >= sizeof out)
				return out;
		}
	}
	return out;
}

static const char *describe(const sl_source *s)
{
	static char out[256];
	sl_buf b;
	sl_buf_init(&b);
	s->ops->describe(s, &b);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	return out;
}

static char *latest(sl_source *s)
{
	static char out[600];
	char *off = NULL;
	if (s->ops->latest(s, &off, &err) != 0)
		snprintf(out, sizeof out, "ERR %s", err.msg);
	else
		snprintf(out, sizeof out, "%s", off ? off : "NULL");
	free(off);
	return out;
}

static int read_into(sl_source *s, const char *a, const char *b,
		     sl_batch_list *l)
{
	sl_batch_list_release(l);
	return s->ops->read(s, a, b, l, &err);
}

/* ---- memory ---- */

static sl_batch *ints(sl_type *schema, const int *v, int n)
{
	sl_col *c = sl_col_new(schema->fields[0].type, n);
	for (int i = 0; i < n; i++)
		sl_col_i32(c)[i] = v[i];
	return sl_batch_new(schema, n, &c);
}

static void test_memory(void)
{
	sl_type *st = sl_type_parse_ddl("value INT", &err);
	sl_type *st2 = sl_type_parse_ddl("a STRING, b BIGINT", &err);
	sl_memstream *ms = sl_memstream_new(st, &err);
	sl_source_desc *d = sl_source_desc_memory(ms, &err);
	sl_source *s = sl_source_open(d, NULL, NULL, &err);
	sl_batch_list l;
	sl_batch *b;
	int v1[] = {1, 2, 3}, v2[] = {4}, v3[] = {5, 6};

	sl_batch_list_init(&l);
	ok(s != NULL && s->replayable, "memory: opens, replayable");
	ok(sl_type_equal(sl_source_desc_schema(d), st), "memory: desc schema");
	is_str(sl_source_desc_format(d), "memory", "memory: format");
	is_str(latest(s), "NULL", "memory: no data -> no offset");
	b = ints(st, v1, 3);
	is_int(sl_memstream_add(ms, b, &err), 0, "memory: first addData -> 0");
	sl_batch_free(b);
	is_str(latest(s), "0", "memory: latest 0 after one block");
	b = ints(st, v2, 1);
	is_int(sl_memstream_add(ms, b, &err), 1, "memory: second -> 1");
	sl_batch_free(b);
	b = ints(st, v3, 2);
	is_int(sl_memstream_add(ms, b, &err), 2, "memory: third -> 2");
	sl_batch_free(b);
	is_int(sl_memstream_count(ms), 3, "memory: count");
	is_str(latest(s), "2", "memory: latest 2");

	is_int(read_into(s, NULL, "0", &l), 0, "memory: read (null, 0]");
	is_str(col_text(&l, 0), "1,2,3", "memory: first block");
	is_int(read_into(s, "0", "2", &l), 0, "memory: read (0, 2]");
	is_int(l.n, 2, "memory: two blocks as two batches");
	is_str(col_text(&l, 0), "4,5,6", "memory: blocks 1..2");
	is_int(read_into(s, NULL, "2", &l), 0, "memory: read (null, 2]");
	is_str(col_text(&l, 0), "1,2,3,4,5,6", "memory: all blocks");
	s->ops->commit(s, "2");
	is_int(read_into(s, "0", "2", &l), 0, "memory: replay after commit");
	is_str(col_text(&l, 0), "4,5,6", "memory: replayable");
	is_int(read_into(s, "1", "1", &l), 0, "memory: empty range");
	is_int(rows(&l), 0, "memory: empty range has no rows");
	ok(read_into(s, "1", "3", &l) != 0 && strstr(err.msg, "memory") &&
		   strstr(err.msg, "(1, 3]"),
	   "memory: end past the stream is an error: %s", err.msg);
	ok(read_into(s, "2", "1", &l) != 0, "memory: start > end is an error");

	is_str(describe(s), "MemoryStream[value#1]", "memory: description");
	b = ints(st, v1, 3);
	{
		sl_memstream *m2 = sl_memstream_new(st2, &err);
		sl_source_desc *d2 = sl_source_desc_memory(m2, &err);
		sl_source *s2 = sl_source_open(d2, NULL, NULL, &err);
		is_str(describe(s2), "MemoryStream[a#1,b#2]",
		       "memory: description of two columns");
		ok(sl_memstream_add(m2, b, &err) < 0 &&
			   strstr(err.msg, "addData") &&
			   strstr(err.msg, "value INT"),
		   "memory: schema mismatch: %s", err.msg);
		sl_source_close(s2);
		sl_source_desc_free(d2);
		sl_memstream_free(m2);
	}
	sl_batch_free(b);
	ok(sl_source_desc_new("memory", NULL, NULL, NULL, &err) == NULL,
	   "memory: not through desc_new: %s", err.msg);

	/* a second run of the same description replays from the start */
	{
		sl_source *again = sl_source_open(d, NULL, NULL, &err);
		is_str(latest(again), "2", "memory: new run sees the blocks");
		sl_batch_list_release(&l);
		is_int(again->ops->read(again, NULL, "1", &l, &err), 0,
		       "memory: new run reads");
		is_str(col_text(&l, 0), "1,2,3,4", "memory: new run rows");
		sl_source_close(again);
	}
	sl_batch_list_release(&l);
	sl_source_close(s);
	sl_source_desc_free(d);
	sl_memstream_free(ms);
	sl_type_free(st);
	sl_type_free(st2);
}

/* ---- rate ---- */

static sl_source_desc *rate_desc(const char *k1, const char *v1,
				 const char *k2, const char *v2)
{
	sl_options o;
	sl_source_desc *d;
	sl_options_init(&o);
	if (k1)
		sl_options_set(&o, k1, v1);
	if (k2)
		sl_options_set(&o, k2, v2);
	d = sl_source_desc_new("rate", NULL, NULL, &o, &err);
	sl_options_release(&o);
	return d;
}

static void test_rate_errors(void)
{
	sl_type *st = sl_type_parse_ddl("a INT", &err);
	sl_options o;
	ok(rate_desc("rowsPerSecond", "0", NULL, NULL) == NULL,
	   "rate: rowsPerSecond 0 fails");
	is_str(err.msg, "Invalid value '0'. The option 'rowsPerSecond' must be "
			"positive",
	       "rate: Spark's rowsPerSecond message");
	ok(rate_desc("rowsPerSecond", "-5", NULL, NULL) == NULL,
	   "rate: negative rowsPerSecond fails");
	is_str(err.msg, "Invalid value '-5'. The option 'rowsPerSecond' must be "
			"positive",
	       "rate: negative value in the message");
	ok(rate_desc("numPartitions", "0", NULL, NULL) == NULL,
	   "rate: numPartitions 0 fails");
	is_str(err.msg, "Invalid value '0'. The option 'numPartitions' must be "
			"positive",
	       "rate: Spark's numPartitions message");
	ok(rate_desc("rowsPerSecond", "ten", NULL, NULL) == NULL &&
		   strstr(err.msg, "rowsPerSecond") && strstr(err.msg, "ten"),
	   "rate: non-number names option and value: %s", err.msg);
	ok(rate_desc("rampUpTime", "soon", NULL, NULL) == NULL &&
		   strstr(err.msg, "rampUpTime") && strstr(err.msg, "soon"),
	   "rate: bad rampUpTime: %s", err.msg);
	sl_options_init(&o);
	ok(sl_source_desc_new("rate", NULL, st, &o, &err) == NULL,
	   "rate: user schema fails");
	is_str(err.msg, "The rate source does not support a user-specified "
			"schema.",
	       "rate: Spark's schema message");
	sl_options_release(&o);
	sl_type_free(st);
}

static void test_rate_rampup(void)
{
	sl_clock *clk = sl_clock_new();
	sl_source_desc *d = rate_desc("rowsPerSecond", "10", "rampUpTime", "4s");
	sl_source *s;
	sl_batch_list l;
	char buf[256];
	static const int64_t want[] = {0, 2, 6, 12, 20, 30, 40};

	sl_batch_list_init(&l);
	for (int i = 0; i <= 6; i++)
		is_int(sl_rate_value_at(i, 10, 4), want[i],
		       "rate: Spark's ramp-up example, second %d", i);
	sl_clock_set_manual(clk, 1000 * SEC);
	s = sl_source_open(d, clk, NULL, &err);
	ok(s != NULL && s->replayable, "rate: opens");
	snprintf(buf, sizeof buf, "%s", describe(s));
	is_str(buf, "RateStreamV2[rowsPerSecond=10, rampUpTimeSeconds=4, "
		    "numPartitions=default",
	       "rate: Spark's description (sic, no closing bracket)");
	is_str(latest(s), "0", "rate: latest 0 at start");
	sl_clock_advance(clk, SEC / 2);
	is_str(latest(s), "0", "rate: still 0 after half a second");
	sl_clock_advance(clk, SEC / 2);
	is_str(latest(s), "1", "rate: 1 after a second");
	is_int(read_into(s, NULL, "1", &l), 0, "rate: read (null, 1]");
	is_str(col_text(&l, 1), "0,1", "rate: second 1 ramps to 2 rows");
	sl_clock_advance(clk, 5 * SEC);
	is_str(latest(s), "6", "rate: latest 6");
	is_int(read_into(s, "1", "2", &l), 0, "rate: read (1, 2]");
	is_str(col_text(&l, 1), "2,3,4,5", "rate: values 2..5");
	is_str(col_text(&l, 0),
	       "1970-01-01 00:16:41,1970-01-01 00:16:41.25,"
	       "1970-01-01 00:16:41.5,1970-01-01 00:16:41.75",
	       "rate: timestamps spread over the second");
	is_int(read_into(s, NULL, "6", &l), 0, "rate: read (null, 6]");
	is_int(rows(&l), 40, "rate: 40 rows by second 6");
	is_int(read_into(s, "4", "6", &l), 0, "rate: read (4, 6]");
	snprintf(buf, sizeof buf, "%s", col_text(&l, 1));
	ok(strncmp(buf, "20,21,", 6) == 0 && strstr(buf, ",39") != NULL &&
		   rows(&l) == 20,
	   "rate: past the ramp, 10 rows a second: %s", buf);
	is_int(read_into(s, "6", "6", &l), 0, "rate: empty range");
	is_int(rows(&l), 0, "rate: empty range, no rows");
	ok(read_into(s, "5", "4", &l) != 0, "rate: reversed range fails");
	sl_batch_list_release(&l);
	sl_source_close(s);
	sl_source_desc_free(d);
	sl_clock_free(clk);
}

static void test_rate_plain(void)
{
	sl_clock *clk = sl_clock_new();
	sl_source_desc *d = rate_desc("rowsPerSecond", "3", NULL, NULL);
	sl_source_desc *d2 = rate_desc("rowsPerSecond", "3", "numPartitions", "2");
	sl_source_desc *d3 = rate_desc("rampUpTime", "5 seconds", NULL, NULL);
	sl_source_desc *d4 = rate_desc("rampUpTime", "1500ms", NULL, NULL);
	sl_source *s, *s2, *s3, *s4;
	sl_batch_list l;
	char dir[] = "/tmp/t403-rate-XXXXXX", meta[128], ts1[512];

	sl_batch_list_init(&l);
	sl_clock_set_manual(clk, 0);
	s = sl_source_open(d, clk, NULL, &err);
	ok(sl_type_equal(s->schema, sl_source_desc_schema(d)), "rate: schema");
	{
		sl_buf b;
		sl_buf_init(&b);
		sl_type_ddl(s->schema, &b);
		is_str(sl_buf_cstr(&b), "timestamp TIMESTAMP, value BIGINT",
		       "rate: schema is timestamp, value");
		sl_buf_release(&b);
	}
	sl_clock_advance(clk, 2 * SEC + 999999);
	is_str(latest(s), "2", "rate: whole seconds only");
	is_int(read_into(s, NULL, "2", &l), 0, "rate: read (null, 2]");
	is_str(col_text(&l, 1), "0,1,2,3,4,5", "rate: 3 rows a second");
	is_str(col_text(&l, 0),
	       "1970-01-01 00:00:00,1970-01-01 00:00:00.333,"
	       "1970-01-01 00:00:00.667,1970-01-01 00:00:01,"
	       "1970-01-01 00:00:01.333,1970-01-01 00:00:01.667",
	       "rate: timestamps rounded to ms as Math.round");
	sl_clock_set_manual(clk, 1 * SEC); /* the clock moving back */
	is_str(latest(s), "2", "rate: latest never moves backwards");

	sl_clock_set_manual(clk, 0);
	s2 = sl_source_open(d2, clk, NULL, &err);
	is_str(describe(s2), "RateStreamV2[rowsPerSecond=3, rampUpTimeSeconds=0, "
			     "numPartitions=2",
	       "rate: numPartitions given is printed");
	is_int(read_into(s2, NULL, "2", &l), 0, "rate: two partitions");
	is_str(col_text(&l, 1), "0,2,4,1,3,5", "rate: partition after partition");
	s3 = sl_source_open(d3, clk, NULL, &err);
	ok(strstr(describe(s3), "rampUpTimeSeconds=5,") != NULL,
	   "rate: rampUpTime '5 seconds'");
	s4 = sl_source_open(d4, clk, NULL, &err);
	ok(strstr(describe(s4), "rampUpTimeSeconds=1,") != NULL,
	   "rate: rampUpTime '1500ms' truncated to 1 second");

	/* big read: chunked batches, exact count */
	{
		sl_source_desc *dbig = rate_desc("rowsPerSecond", "100000", NULL,
						 NULL);
		sl_source *sb = sl_source_open(dbig, clk, NULL, &err);
		int64_t last = -1;
		bool seq = true;
		is_int(read_into(sb, "0", "3", &l), 0, "rate: 300k rows");
		is_int(rows(&l), 300000, "rate: count");
		ok(l.n > 1, "rate: split into several batches (%d)", l.n);
		for (int i = 0; i < l.n; i++)
			for (int64_t r = 0; r < l.b[i]->nrows; r++) {
				int64_t v = sl_col_i64(l.b[i]->cols[1])[r];
				seq = seq && v == last + 1;
				last = v;
			}
		ok(seq && last == 299999, "rate: values consecutive to 299999");
		sl_source_close(sb);
		sl_source_desc_free(dbig);
	}

	/* the creation time survives a restart through the metadata dir */
	ok(mkdtemp(dir) != NULL, "rate: temp dir");
	snprintf(meta, sizeof meta, "%s/sources/0", dir);
	sl_clock_set_manual(clk, 7 * SEC + 250000);
	{
		sl_source *r1 = sl_source_open(d, clk, meta, &err), *r2;
		FILE *f;
		char text[256] = "";
		snprintf(text, sizeof text, "%s/0", meta);
		f = fopen(text, "r");
		text[0] = '\0';
		if (f) {
			size_t n = fread(text, 1, sizeof text - 1, f);
			text[n] = '\0';
			fclose(f);
		}
		is_str(text, "v1\n7250", "rate: start time kept as Spark's log 0");
		read_into(r1, "0", "1", &l);
		snprintf(ts1, sizeof ts1, "%s", col_text(&l, 0));
		sl_source_close(r1);
		sl_clock_advance(clk, 100 * SEC);
		r2 = sl_source_open(d, clk, meta, &err);
		is_str(latest(r2), "100", "rate: restart counts from the first start");
		read_into(r2, "0", "1", &l);
		is_str(col_text(&l, 0), ts1, "rate: restart replays the same rows");
		sl_source_close(r2);
		snprintf(text, sizeof text, "rm -rf %s", dir);
		ok(system(text) == 0, "rate: cleanup");
	}

	sl_batch_list_release(&l);
	sl_source_close(s);
	sl_source_close(s2);
	sl_source_close(s3);
	sl_source_close(s4);
	sl_source_desc_free(d);
	sl_source_desc_free(d2);
	sl_source_desc_free(d3);
	sl_source_desc_free(d4);
	sl_clock_free(clk);
}

/* ---- socket ---- */

static sl_source_desc *sock_desc(const char *host, const char *port,
				 const char *its, sl_type *schema)
{
	sl_options o;
	sl_source_desc *d;
	sl_options_init(&o);
	if (host)
		sl_options_set(&o, "host", host);
	if (port)
		sl_options_set(&o, "port", port);
	if (its)
		sl_options_set(&o, "includeTimestamp", its);
	d = sl_source_desc_new("socket", NULL, schema, &o, &err);
	sl_options_release(&o);
	return d;
}

static void test_socket_errors(void)
{
	sl_type *st = sl_type_parse_ddl("a INT", &err);
	ok(sock_desc(NULL, "9999", NULL, NULL) == NULL, "socket: no host");
	is_str(err.msg, "Set a host to read from with option(\"host\", ...).",
	       "socket: Spark's host message");
	ok(sock_desc("localhost", NULL, NULL, NULL) == NULL, "socket: no port");
	is_str(err.msg, "Set a port to read from with option(\"port\", ...).",
	       "socket: Spark's port message");
	ok(sock_desc("localhost", "9999", "yes", NULL) == NULL,
	   "socket: bad includeTimestamp");
	is_str(err.msg, "includeTimestamp must be set to either \"true\" or "
			"\"false\"",
	       "socket: Spark's includeTimestamp message");
	ok(sock_desc("localhost", "http", NULL, NULL) == NULL &&
		   strstr(err.msg, "'port'") && strstr(err.msg, "http"),
	   "socket: bad port names it: %s", err.msg);
	ok(sock_desc("localhost", "9999", NULL, st) == NULL,
	   "socket: user schema");
	is_str(err.msg, "The socket source does not support a user-specified "
			"schema.",
	       "socket: schema message");
	sl_type_free(st);
}

/* A listening socket on 127.0.0.1, port chosen by the kernel. */
static int listener(int *port)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    listen(fd, 4) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

/* latest() until it says want (loopback delivery is quick, not instant). */
static const char *latest_wait(sl_source *s, const char *want)
{
	const char *got = "";
	for (int i = 0; i < 400; i++) {
		struct timespec ts = {0, 5000000};
		got = latest(s);
		if (strcmp(got, want) == 0)
			break;
		nanosleep(&ts, NULL);
	}
	return got;
}

static void send_all(int fd, const char *text)
{
	size_t n = strlen(text);
	ok(send(fd, text, n, 0) == (ssize_t)n, "socket: server sends %zu bytes",
	   n);
}

static void test_socket_read(void)
{
	sl_clock *clk = sl_clock_new();
	sl_source_desc *d, *dts;
	sl_source *s, *t;
	sl_batch_list l;
	int port, lfd = listener(&port), c1, c2;
	char ps[16], want[64];

	sl_batch_list_init(&l);
	sl_clock_set_manual(clk, 5 * SEC + 123456);
	ok(lfd >= 0, "socket: listening on 127.0.0.1:%d", port);
	snprintf(ps, sizeof ps, "%d", port);
	d = sock_desc("127.0.0.1", ps, NULL, NULL);
	dts = sock_desc("127.0.0.1", ps, "true", NULL);
	ok(d && dts, "socket: descriptions");
	s = sl_source_open(d, clk, NULL, &err);
	ok(s != NULL && !s->replayable, "socket: connects, not replayable");
	c1 = accept(lfd, NULL, NULL);
	snprintf(want, sizeof want, "TextSocketV2[host: 127.0.0.1, port: %d]",
		 port);
	is_str(describe(s), want, "socket: description");
	is_str(latest(s), "NULL", "socket: nothing yet");
	send_all(c1, "hello\nwor");
	is_str(latest_wait(s, "0"), "0", "socket: one whole line");
	send_all(c1, "ld\r\nthird\n");
	is_str(latest_wait(s, "2"), "2", "socket: line split across reads");
	is_int(read_into(s, NULL, "2", &l), 0, "socket: read (null, 2]");
	is_str(col_text(&l, 0), "hello,world,third", "socket: the lines");
	is_int(l.b[0]->ncols, 1, "socket: only value without includeTimestamp");
	is_int(read_into(s, "0", "1", &l), 0, "socket: read (0, 1]");
	is_str(col_text(&l, 0), "world", "socket: a middle range");
	s->ops->commit(s, "0");
	ok(read_into(s, NULL, "1", &l) != 0 && err.code == SL_ESTATE &&
		   strstr(err.msg, "discarded") && strstr(err.hint, "replayable"),
	   "socket: committed lines are gone: %s (%s)", err.msg, err.hint);
	is_int(read_into(s, "0", "2", &l), 0, "socket: read after commit");
	is_str(col_text(&l, 0), "world,third", "socket: the rest is kept");
	ok(read_into(s, "2", "3", &l) != 0, "socket: unreceived end fails");
	s->ops->commit(s, "2");
	send_all(c1, "tail without newline");
	close(c1);
	is_str(latest_wait(s, "3"), "3", "socket: last line at end of stream");
	is_int(read_into(s, "2", "3", &l), 0, "socket: read the tail");
	is_str(col_text(&l, 0), "tail without newline", "socket: tail text");

	t = sl_source_open(dts, clk, NULL, &err);
	ok(t != NULL, "socket: second connection (includeTimestamp)");
	c2 = accept(lfd, NULL, NULL);
	send_all(c2, "a\n");
	is_str(latest_wait(t, "0"), "0", "socket ts: first line");
	sl_clock_advance(clk, 2 * SEC);
	send_all(c2, "b\n");
	is_str(latest_wait(t, "1"), "1", "socket ts: second line");
	is_int(read_into(t, NULL, "1", &l), 0, "socket ts: read");
	is_str(col_text(&l, 0), "a,b", "socket ts: values");
	is_str(col_text(&l, 1), "1970-01-01 00:00:05.123,1970-01-01 00:00:07.123",
	       "socket ts: arrival times from the clock, in ms");
	close(c2);
	sl_source_close(t);
	sl_source_close(s);
	close(lfd);

	/* nobody listening: the error names host:port */
	lfd = listener(&port);
	close(lfd);
	snprintf(ps, sizeof ps, "%d", port);
	sl_source_desc_free(d);
	d = sock_desc("127.0.0.1", ps, NULL, NULL);
	snprintf(want, sizeof want, "127.0.0.1:%d", port);
	ok(sl_source_open(d, clk, NULL, &err) == NULL && err.code == SL_EIO &&
		   strstr(err.msg, want),
	   "socket: connection refused: %s", err.msg);
	sl_batch_list_release(&l);
	sl_source_desc_free(d);
	sl_source_desc_free(dts);
	sl_clock_free(clk);
}

int main(void)
{
	test_memory();
	test_rate_errors();
	test_rate_rampup();
	test_rate_plain();
	test_socket_errors();
	test_socket_read();
	return done_testing();
}
