/*
 * source_socket: Spark's text socket source (TextSocketMicroBatchStream),
 * for testing with `nc -lk 9999`.
 *
 * Connects at open (blocking connect, then the socket is made
 * non-blocking).  latest() drains whatever bytes are waiting, splits them
 * into lines ('\n', an '\r' before it is dropped; at end of stream the last
 * unterminated line counts too) and stamps each line with the clock, in
 * milliseconds, as Spark stamps arrival.  Offsets follow Spark: the index
 * of the last line received ("0" after the first line, no offset before
 * any).  read (start, end] returns lines start+1 .. end as `value STRING`
 * (+ `timestamp TIMESTAMP` with includeTimestamp).  Not replayable:
 * commit(end) discards lines up to end, and reading them again is an error
 * that says so.
 *
 * Line bytes live in one growable buffer with an array of line starts, so
 * receiving costs no malloc per line.  Never prints; never blocks.
 *
 * Option maxLineBytes (default 1 MiB; Spark has no such cap and buffers a
 * line of any length): a line longer than that (without "\r\n") is
 * malformed, reason too_long.  Bytes are split into lines as each chunk
 * arrives, and no more than maxLineBytes + 1 bytes of an unfinished line
 * are ever kept: once past that, the rest of the line is discarded up to
 * the next newline, so a 1 GB line costs no more memory than a 1 MB one.
 * Such a line still counts as a line (it has an offset) and reads as a
 * null value, as the text format's PERMISSIVE mode gives it (the socket
 * source has no mode option); the count is kept in too_long.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "sources/source_int.h"
#include "core/timeutil.h"
#include "formats/fileformat.h"

#define SOCK_CHUNK 65536 /* lines per batch handed to the operators */

typedef struct sock {
	char *host, *port;
	sl_clock *clock;
	int fd;
	bool eof;
	size_t max_line;  /* option maxLineBytes */
	bool skipping;    /* discarding the rest of a too-long line */
	int64_t too_long; /* lines received longer than max_line */
	sl_buf partial;   /* bytes after the last newline (<= max_line + 1) */
	sl_buf bytes;     /* the text of the buffered lines, back to back */
	int64_t *starts;  /* line i is bytes[starts[i] .. starts[i+1]) */
	int64_t *ts;      /* arrival, microseconds (whole ms) */
	uint8_t *null;    /* 1: line i was too long, its value is null */
	int64_t n, cap;   /* buffered lines */
	int64_t base;     /* index of the first buffered line */
} sock;

int sl_socket_conf_parse(const sl_options *opts, sl_socket_conf *conf,
			 sl_err *err)
{
	const char *ts = sl_options_get(opts, "includeTimestamp");
	memset(conf, 0, sizeof *conf);
	conf->host = sl_options_get(opts, "host");
	conf->port = sl_options_get(opts, "port");
	if (conf->host == NULL)
		return sl_err_set(err, SL_EANALYSIS,
				  "Set a host to read from with "
				  "option(\"host\", ...).");
	if (conf->port == NULL)
		return sl_err_set(err, SL_EANALYSIS,
				  "Set a port to read from with "
				  "option(\"port\", ...).");
	if (sl_format_max_line_get(opts, &conf->max_line, err) != 0)
		return err ? err->code : SL_EINVAL;
	if (ts != NULL) {
		if (strcasecmp(ts, "true") == 0)
			conf->include_ts = true;
		else if (strcasecmp(ts, "false") != 0)
			return sl_err_set(err, SL_EANALYSIS,
					  "includeTimestamp must be set to "
					  "either \"true\" or \"false\"");
	}
	{
		char *end;
		long p = strtol(conf->port, &end, 10);
		if (end == conf->port || *end != '\0' || p < 0 || p > 65535)
			return sl_err_set(err, SL_EINVAL,
					  "Invalid value '%s' for option "
					  "'port': expected a port number "
					  "0..65535",
					  conf->port);
	}
	return 0;
}

sl_type *sl_socket_schema(bool include_ts, sl_err *err)
{
	return sl_type_parse_ddl(
	    include_ts ? "value STRING, timestamp TIMESTAMP" : "value STRING",
	    err);
}

static int sock_connect(const char *host, const char *port, sl_err *err)
{
	struct addrinfo hints, *res, *ai;
	int fd = -1, rc, saved = ECONNREFUSED;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		sl_err_set(err, SL_EIO, "socket: cannot resolve %s:%s: %s",
			   host, port, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		sl_err_set(err, SL_EIO, "socket: cannot connect to %s:%s: %s",
			   host, port, strerror(saved));
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
		sl_err_set(err, SL_EIO, "socket: %s:%s: %s", host, port,
			   strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int line_add(sock *k, const char *p, size_t len, int64_t ts)
{
	bool too_long;
	if (p != NULL && len > 0 && p[len - 1] == '\r')
		len--;
	too_long = len > k->max_line;
	if (k->n + 1 >= k->cap) {
		int64_t cap = k->cap ? 2 * k->cap : 64;
		int64_t *ns =
		    realloc(k->starts, (size_t)(cap + 1) * sizeof *ns);
		int64_t *nt;
		uint8_t *nn;
		if (ns == NULL)
			return SL_ENOMEM;
		k->starts = ns;
		nt = realloc(k->ts, (size_t)cap * sizeof *nt);
		if (nt == NULL)
			return SL_ENOMEM;
		k->ts = nt;
		nn = realloc(k->null, (size_t)cap);
		if (nn == NULL)
			return SL_ENOMEM;
		k->null = nn;
		k->cap = cap;
	}
	k->starts[k->n] = (int64_t)k->bytes.len;
	if (!too_long)
		sl_buf_add(&k->bytes, p, len);
	else
		k->too_long++;
	k->ts[k->n] = ts;
	k->null[k->n] = too_long;
	k->n++;
	k->starts[k->n] = (int64_t)k->bytes.len;
	return sl_buf_failed(&k->bytes) ? SL_ENOMEM : 0;
}

/* A too-long line: its bytes are not kept (p = NULL). */
static int line_too_long(sock *k, int64_t ts)
{
	k->partial.len = 0;
	return line_add(k, NULL, k->max_line + 1, ts);
}

/* Split n received bytes into lines, the unterminated tail into partial;
 * the length check sits where the newline is found (one memchr a line). */
static int take(sock *k, const char *p, size_t n, int64_t ts)
{
	const char *e = p + n, *nl, *end;
	size_t seg;
	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (k->skipping) {
			if (nl == NULL)
				return 0;
			k->skipping = false;
			p = nl + 1;
			continue;
		}
		end = nl != NULL ? nl : e;
		seg = (size_t)(end - p);
		/* + 1: a '\r' before the '\n' is not counted */
		if (k->partial.len + seg > k->max_line + 1) {
			if (line_too_long(k, ts) != 0)
				return SL_ENOMEM;
			k->skipping = nl == NULL;
			p = nl != NULL ? nl + 1 : e;
			continue;
		}
		if (nl == NULL) {
			sl_buf_add(&k->partial, p, seg);
			return sl_buf_failed(&k->partial) ? SL_ENOMEM : 0;
		}
		if (k->partial.len == 0) {
			if (line_add(k, p, seg, ts) != 0)
				return SL_ENOMEM;
		} else {
			sl_buf_add(&k->partial, p, seg);
			if (sl_buf_failed(&k->partial) ||
			    line_add(k, k->partial.p, k->partial.len, ts) != 0)
				return SL_ENOMEM;
			k->partial.len = 0;
		}
		p = nl + 1;
	}
	return 0;
}

/* At end of stream the unterminated last line counts too. */
static int take_eof(sock *k, int64_t ts)
{
	if (k->skipping) {
		k->skipping = false;
		return 0; /* counted when it went past the cap */
	}
	if (k->partial.len == 0)
		return 0;
	if (line_add(k, k->partial.p, k->partial.len, ts) != 0)
		return SL_ENOMEM;
	k->partial.len = 0;
	return 0;
}

static int sock_drain(sock *k, sl_err *err)
{
	char chunk[65536];
	int64_t ts = sl_floordiv(sl_clock_now(k->clock), 1000) * 1000;
	/* At most 64 MB a call, so a producer faster than us cannot keep
	 * latest() from returning. */
	for (int round = 0; round < 1024 && !k->eof; round++) {
		ssize_t r = recv(k->fd, chunk, sizeof chunk, 0);
		if (r > 0) {
			if (take(k, chunk, (size_t)r, ts) != 0)
				return sl_err_nomem(err);
			continue;
		}
		if (r == 0) {
			k->eof = true;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		return sl_err_set(err, SL_EIO, "socket: reading %s:%s: %s",
				  k->host, k->port, strerror(errno));
	}
	if (k->eof && take_eof(k, ts) != 0)
		return sl_err_nomem(err);
	return 0;
}

static int sock_latest(sl_source *s, char **offset, sl_err *err)
{
	sock *k = s->impl;
	*offset = NULL;
	if (sock_drain(k, err) != 0)
		return err ? err->code : SL_EIO;
	if (k->base + k->n == 0)
		return 0;
	*offset = sl_source_offset_fmt(k->base + k->n - 1, err);
	return *offset ? 0 : SL_ENOMEM;
}

static sl_batch *lines_batch(sl_source *s, int64_t from, int64_t n, sl_err *err)
{
	sock *k = s->impl;
	sl_col *cols[2] = { NULL, NULL };
	int nc = s->schema->nfields;
	for (int c = 0; c < nc; c++)
		if ((cols[c] = sl_col_new(s->schema->fields[c].type, n)) ==
		    NULL)
			goto nomem;
	for (int64_t i = 0; i < n; i++) {
		int64_t a = k->starts[from + i], b = k->starts[from + i + 1];
		if (k->null[from + i]
			? sl_col_set_null(cols[0], i)
			: sl_col_set_str(cols[0], i, k->bytes.p + a,
					 (size_t)(b - a)))
			goto nomem;
	}
	if (nc == 2)
		memcpy(sl_col_i64(cols[1]), k->ts + from,
		       (size_t)n * sizeof(int64_t));
	{
		sl_batch *b = sl_batch_new(s->schema, n, cols);
		if (b == NULL)
			sl_err_nomem(err);
		return b;
	}
nomem:
	sl_col_free(cols[0]);
	sl_col_free(cols[1]);
	sl_err_nomem(err);
	return NULL;
}

static int sock_read(sl_source *s, const char *start, const char *end,
		     sl_batch_list *out, sl_err *err)
{
	sock *k = s->impl;
	int64_t a, b;
	sl_batch *bt;
	if (sl_source_offset_i64(start, -1, &a, "socket", err) != 0 ||
	    sl_source_offset_i64(end, -1, &b, "socket", err) != 0)
		return err ? err->code : SL_EINVAL;
	if (b < a || b >= k->base + k->n)
		return sl_err_set(
		    err, SL_EINVAL,
		    "socket: offsets (%s, %s] were never received",
		    start ? start : "null", end ? end : "null");
	if (a + 1 < k->base) {
		sl_err_set(
		    err, SL_ESTATE,
		    "socket: lines %lld..%lld were already committed and "
		    "discarded",
		    (long long)(a + 1), (long long)(k->base - 1));
		sl_err_hint(err, "the socket source is not replayable: it "
				 "cannot re-read lines after a restart");
		return SL_ESTATE;
	}
	if (b == a)
		return 0;
	for (int64_t i = a + 1; i <= b; i++)
		if (k->null[i - k->base]) {
			char file[600], why[64];
			snprintf(file, sizeof file, "socket %s:%s", k->host,
				 k->port);
			snprintf(why, sizeof why,
				 "line longer than maxLineBytes (%zu)",
				 k->max_line);
			sl_source_bad_report(s, file, i + 1, "too_long", why);
		}
	/* chunks of SOCK_CHUNK lines: a batch's copy of the lines never
	 * lives whole (the driver's pipe, core/batch.h) */
	for (int64_t i = a + 1; i <= b; i += SOCK_CHUNK) {
		int64_t n = b + 1 - i < SOCK_CHUNK ? b + 1 - i : SOCK_CHUNK;
		bt = lines_batch(s, i - k->base, n, err);
		if (bt == NULL)
			return err ? err->code : SL_ENOMEM;
		if (sl_batch_list_add(out, bt) != 0)
			return sl_err_nomem(err);
	}
	return 0;
}

/* Drop lines up to end: the socket cannot give them back anyway. */
static void sock_commit(sl_source *s, const char *end)
{
	sock *k = s->impl;
	int64_t e, drop, cut;
	if (sl_source_offset_i64(end, -1, &e, "socket", NULL) != 0)
		return;
	drop = e + 1 - k->base;
	if (drop <= 0)
		return;
	if (drop > k->n)
		drop = k->n;
	if (drop == 0)
		return;
	cut = k->starts[drop];
	memmove(k->bytes.p, k->bytes.p + cut, k->bytes.len - (size_t)cut);
	k->bytes.len -= (size_t)cut;
	for (int64_t i = 0; i + drop <= k->n; i++)
		k->starts[i] = k->starts[i + drop] - cut;
	memmove(k->ts, k->ts + drop, (size_t)(k->n - drop) * sizeof *k->ts);
	memmove(k->null, k->null + drop, (size_t)(k->n - drop));
	k->n -= drop;
	k->base += drop;
}

static void sock_describe(const sl_source *s, sl_buf *out)
{
	const sock *k = s->impl;
	sl_buf_printf(out, "TextSocketV2[host: %s, port: %s]", k->host,
		      k->port);
}

static void sock_close(sl_source *s)
{
	sock *k = s->impl;
	if (k == NULL)
		return;
	if (k->fd >= 0)
		close(k->fd);
	free(k->host);
	free(k->port);
	sl_buf_release(&k->partial);
	sl_buf_release(&k->bytes);
	free(k->starts);
	free(k->ts);
	free(k->null);
	free(k);
	s->impl = NULL;
}

static const struct sl_source_ops sock_ops = {
	.name = "socket",
	.latest = sock_latest,
	.limit = NULL,
	.read = sock_read,
	.commit = sock_commit,
	.describe = sock_describe,
	.close = sock_close,
};

sl_source *sl_source_socket_open(const sl_socket_conf *conf, sl_type *schema,
				 sl_clock *clock, sl_err *err)
{
	sock *k = calloc(1, sizeof *k);
	sl_source *s;
	if (k == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	k->fd = -1;
	k->clock = clock;
	k->max_line = conf->max_line;
	sl_buf_init(&k->partial);
	sl_buf_init(&k->bytes);
	k->host = strdup(conf->host);
	k->port = strdup(conf->port);
	s = sl_source_shell(&sock_ops, schema, false, k, err);
	if (s == NULL || k->host == NULL || k->port == NULL) {
		if (s != NULL)
			sl_err_nomem(err);
		goto fail;
	}
	k->fd = sock_connect(conf->host, conf->port, err);
	if (k->fd < 0)
		goto fail;
	return s;
fail:
	if (s != NULL)
		sl_source_close(s);
	else
		sock_close(&(sl_source){ .impl = k });
	return NULL;
}
