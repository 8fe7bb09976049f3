/*
 * t410-max-line: option maxLineBytes (issue 16 finding 7; not in Spark) for
 * the json, csv and text readers and the socket source: a longer line is
 * malformed with reason too_long in each mode, the reader goes on at the
 * next newline, the boundary (exactly the cap, "\r\n"), both read paths
 * (fastPath on and off), the option's errors, and the socket source
 * keeping its memory bounded while a child sends a 50 MB line.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "formats/fileformat.h"
#include "sources/source.h"
#include "tap.h"

static sl_err err;
static char out[8192];

static const char *dump(const sl_batch *b)
{
	sl_buf s;
	if (b == NULL) {
		snprintf(out, sizeof out, "ERR %s", err.msg);
		return out;
	}
	sl_buf_init(&s);
	for (int64_t i = 0; i < b->nrows; i++) {
		for (int k = 0; k < b->ncols; k++) {
			if (k)
				sl_buf_addc(&s, ',');
			sl_value_show(b->cols[k], i, &s);
		}
		sl_buf_addc(&s, ';');
	}
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&s));
	sl_buf_release(&s);
	return out;
}

/* Read text as format with the given schema (NULL: text) and options
 * "k=v" pairs ending in NULL; dump the rows or "ERR msg". */
static const char *rd(const char *format, const char *text, const char *ddl,
		      ...)
{
	sl_options o;
	sl_type *t = ddl ? sl_type_parse_ddl(ddl, &err) : NULL;
	sl_batch *b;
	va_list ap;
	const char *kv;
	sl_options_init(&o);
	va_start(ap, ddl);
	while ((kv = va_arg(ap, const char *)) != NULL) {
		char key[64];
		const char *eq = strchr(kv, '=');
		snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
		sl_options_set(&o, key, eq + 1);
	}
	va_end(ap);
	sl_err_clear(&err);
	b = sl_format_read_buf(format, "data/a", text, strlen(text), t, &o,
			       &err);
	dump(b);
	sl_batch_free(b);
	sl_options_release(&o);
	sl_type_free(t);
	return out;
}

#define JS "a INT, b STRING, _corrupt_record STRING"

static void test_json(void)
{
	/* line 2 is 22 bytes */
	const char *in = "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"yyyyyyyy\"}\n"
			 "{\"a\":3,\"b\":\"z\"}\n";
	for (int fast = 0; fast < 2; fast++) {
		const char *fp = fast ? "fastPath=true" : "fastPath=false";
		is_str(rd("json", in, JS, "maxLineBytes=20", fp, NULL),
		       "1,x,null;null,null,{\"a\":2,\"b\":\"yyyyyyyy;3,z,null;",
		       "json %s PERMISSIVE: nulls, first 20 bytes as the "
		       "corrupt record", fp);
		is_str(rd("json", in, JS, "maxLineBytes=22", fp, NULL),
		       "1,x,null;2,yyyyyyyy,null;3,z,null;",
		       "json %s: a line of exactly the cap is fine", fp);
		is_str(rd("json", in, JS, "maxLineBytes=20",
			  "mode=DROPMALFORMED", fp, NULL),
		       "1,x,null;3,z,null;", "json %s DROPMALFORMED drops it",
		       fp);
		is_str(rd("json", in, JS, "maxLineBytes=20", "mode=FAILFAST",
			  fp, NULL),
		       "ERR json: malformed record at data/a:2: line longer "
		       "than maxLineBytes (20)",
		       "json %s FAILFAST names file and line", fp);
		is_str(rd("json", "{\"a\":1,\"b\":\"x\"}\r\n{\"a\":2}\r\n", JS,
			  "maxLineBytes=15", fp, NULL),
		       "1,x,null;2,null,null;",
		       "json %s: the \"\\r\" is not counted", fp);
		/* the last line without a newline: the general path */
		is_str(rd("json", "{\"a\":1}\n{\"a\":2,\"b\":\"yyyyyyyy\"}",
			  "a INT, b STRING", "maxLineBytes=20", fp, NULL),
		       "1,null;null,null;",
		       "json %s: an unterminated last line too", fp);
	}
	is_str(rd("json", in, JS, NULL),
	       "1,x,null;2,yyyyyyyy,null;3,z,null;", "json: default 1 MiB");
}

#define CS "a INT, b STRING, _corrupt_record STRING"

static void test_csv(void)
{
	const char *in = "1,x\n2,yyyyyyyyyy\n3,z\n";
	const char *q = "1,\"x\"\n2,\"yy,yy\",yyyyyyyyy\n3,\"z\"\n";
	for (int fast = 0; fast < 2; fast++) {
		const char *fp = fast ? "fastPath=true" : "fastPath=false";
		is_str(rd("csv", in, CS, "maxLineBytes=8", fp, NULL),
		       "1,x,null;null,null,2,yyyyyy;3,z,null;",
		       "csv %s PERMISSIVE: nulls, first 8 bytes as the corrupt "
		       "record", fp);
		is_str(rd("csv", in, CS, "maxLineBytes=12", fp, NULL),
		       "1,x,null;2,yyyyyyyyyy,null;3,z,null;",
		       "csv %s: exactly the cap is fine", fp);
		is_str(rd("csv", in, CS, "maxLineBytes=8", "mode=DROPMALFORMED",
			  fp, NULL),
		       "1,x,null;3,z,null;", "csv %s DROPMALFORMED", fp);
		is_str(rd("csv", in, CS, "maxLineBytes=8", "mode=FAILFAST", fp,
			  NULL),
		       "ERR csv: malformed record at data/a:2: line longer "
		       "than maxLineBytes (8)",
		       "csv %s FAILFAST names file and line", fp);
		is_str(rd("csv", "1,x\r\n2,yy\r\n", CS, "maxLineBytes=4", fp,
			  NULL),
		       "1,x,null;2,yy,null;", "csv %s: \"\\r\" not counted",
		       fp);
	}
	is_str(rd("csv", q, CS, "maxLineBytes=10", NULL),
	       "1,x,null;null,null,2,\"yy,yy\",;3,z,null;",
	       "csv: quoted fields, checked once a token");
	is_str(rd("csv", "a,b\n1,x\n2,yyyyyyyyyy\n", CS, "header=true",
		  "maxLineBytes=8", "mode=FAILFAST", NULL),
	       "ERR csv: malformed record at data/a:3: line longer than "
	       "maxLineBytes (8)",
	       "csv: line numbers count the header");
	{
		/* 100,000 separators in one line: too_long, not 100k tokens */
		size_t n = 200000;
		char *big = malloc(n + 16);
		memset(big, ',', n);
		memcpy(big + n, "\n5,e\n", 6);
		is_str(rd("csv", big, CS, "maxLineBytes=100",
			  "mode=DROPMALFORMED", NULL),
		       "5,e,null;", "csv: a line of 200000 commas dropped");
		free(big);
	}
}

static void test_text(void)
{
	const char *in = "ab\nabcdefgh\ncd\n";
	is_str(rd("text", in, NULL, "maxLineBytes=4", NULL), "ab;null;cd;",
	       "text PERMISSIVE: a null value");
	is_str(rd("text", in, NULL, "maxLineBytes=8", NULL), "ab;abcdefgh;cd;",
	       "text: exactly the cap is fine");
	is_str(rd("text", in, NULL, "maxLineBytes=4", "mode=DROPMALFORMED",
		  NULL),
	       "ab;cd;", "text DROPMALFORMED");
	is_str(rd("text", in, NULL, "maxLineBytes=4", "mode=FAILFAST", NULL),
	       "ERR text: malformed record at data/a:2: line longer than "
	       "maxLineBytes (4)",
	       "text FAILFAST");
	is_str(rd("text", in, NULL, "mode=bogus", NULL),
	       "ERR option 'mode': expected 'PERMISSIVE', 'DROPMALFORMED' or "
	       "'FAILFAST', got 'bogus'",
	       "text: mode is checked");
}

static void test_option_errors(void)
{
	static const char *const bad[] = { "0", "-5", "abc", "1e6", "",
					   "99999999999999999999", "12 " };
	static const char *const fmts[] = { "json", "csv", "text" };
	char want[200], opt[64];
	for (size_t f = 0; f < 3; f++)
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			snprintf(opt, sizeof opt, "maxLineBytes=%s", bad[i]);
			snprintf(want, sizeof want,
				 "ERR option 'maxLineBytes': expected a "
				 "positive integer (at most 4294967295), got "
				 "'%s'",
				 bad[i]);
			is_str(rd(fmts[f], "x\n", f < 2 ? "a STRING" : NULL,
				  opt, NULL),
			       want, "%s: maxLineBytes '%s' refused", fmts[f],
			       bad[i]);
		}
}

/* ---- socket ---- */

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

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static sl_source_desc *sock_desc(const char *port, const char *max)
{
	sl_options o;
	sl_source_desc *d;
	sl_options_init(&o);
	sl_options_set(&o, "host", "127.0.0.1");
	sl_options_set(&o, "port", port);
	if (max)
		sl_options_set(&o, "maxLineBytes", max);
	d = sl_source_desc_new("socket", NULL, NULL, &o, &err);
	sl_options_release(&o);
	return d;
}

/* Child: "before\n", a line of mb MiB, "\n", "after\n" (and "x" * 30 as
 * the unterminated last line with a cap below 30), then close. */
static void writer(int fd, int mb)
{
	static char chunk[1 << 16];
	memset(chunk, 'y', sizeof chunk);
	if (write(fd, "before\n", 7) != 7)
		_exit(1);
	for (int i = 0; i < mb * 16; i++)
		if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
			_exit(1);
	if (write(fd, "\nafter\n", 7) != 7)
		_exit(1);
	memset(chunk, 'x', 30);
	if (write(fd, chunk, 30) != 30)
		_exit(1);
	_exit(0);
}

static void test_socket(void)
{
	sl_clock *clk = sl_clock_new();
	sl_batch_list l;
	sl_source_desc *d;
	sl_source *s;
	char ps[16];
	char *off = NULL;
	int port = 0, lfd = listener(&port), c, status = 0;
	long before, peak = 0;
	pid_t pid;

	sl_batch_list_init(&l);
	snprintf(ps, sizeof ps, "%d", port);
	ok(sock_desc(ps, "0") == NULL &&
		   strcmp(err.msg, "option 'maxLineBytes': expected a positive "
				   "integer (at most 4294967295), got '0'") == 0,
	   "socket: maxLineBytes checked at load: %s", err.msg);
	d = sock_desc(ps, "20");
	s = d ? sl_source_open(d, clk, NULL, &err) : NULL;
	ok(s != NULL, "socket: connects");
	c = accept(lfd, NULL, NULL);
	before = rss_kb();
	pid = fork();
	if (pid == 0) {
		/* the child frees what it inherited (valgrind's leak check
		 * runs at its exit too) */
		close(lfd);
		sl_source_close(s);
		sl_source_desc_free(d);
		sl_clock_free(clk);
		writer(c, 50);
	}
	close(c);
	/* drain until the writer is done and every line is in */
	for (int i = 0; i < 20000; i++) {
		struct timespec ts = { 0, 2000000 };
		long r;
		free(off);
		off = NULL;
		if (s == NULL || s->ops->latest(s, &off, &err) != 0)
			break;
		r = rss_kb();
		if (r > peak)
			peak = r;
		if (off != NULL && strcmp(off, "3") == 0)
			break;
		nanosleep(&ts, NULL);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "socket: the child sent a 50 MB line");
	is_str(off ? off : "null", "3", "socket: four lines (offset 3)");
	ok(peak - before < 8 * 1024,
	   "socket: RSS grew %ld kB while 50 MB went by (cap 20 bytes)",
	   peak - before);
	ok(s && s->ops->read(s, NULL, "3", &l, &err) == 0 && l.n == 1,
	   "socket: read (null, 3]");
	if (l.n == 1)
		is_str(dump(l.b[0]), "before;null;after;null;",
		       "socket: the too-long lines read as null values (the "
		       "unterminated 30-byte tail too)");
	free(off);
	sl_batch_list_release(&l);
	sl_source_close(s);
	sl_source_desc_free(d);
	close(lfd);
	sl_clock_free(clk);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_json();
	test_csv();
	test_text();
	test_option_errors();
	test_socket();
	return done_testing();
}
