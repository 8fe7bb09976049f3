/*
 * sink_console: Spark's console sink.  Per micro-batch it writes
 *
 *   -------------------------------------------
 *   Batch: N
 *   -------------------------------------------
 *   <show() table of the batch's rows>
 *   <empty line>
 *
 * through its host's writer, the session's output callback (the engine
 * never prints).  Spark's
 * ConsoleWrite prints the three header lines with println and then calls
 * Dataset.show, which println's the table string that already ends with a
 * newline: hence the empty line after every table.  An empty batch still
 * prints its block (header row only), as Spark does.
 *
 * Options: numRows (default 20, a positive integer), truncate (default
 * true: cells cut to 20 characters; false: never; a number n >= 0: cut to
 * n characters, 0 = never).
 *
 * Description: "org.apache.spark.sql.execution.streaming.ConsoleTable$",
 * Spark's class name without the JVM identity hash that follows "@" in
 * Spark's progress (it changes every run; ours must not).
 */
#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#include "sinks/sink_int.h"

typedef struct console {
	sl_sink_host host; /* a copy; its ctx outlives the sink */
	int64_t num_rows;
	int truncate;
	sl_buf text; /* reused across batches */
} console;

static int console_add(sl_sink *s, int64_t batch_id, sl_batch *data,
		       bool *skipped, sl_err *err)
{
	console *c = s->impl;
	sl_buf *t = &c->text;
	*skipped = false;
	sl_buf_clear(t);
	sl_buf_printf(t,
		      "-------------------------------------------\n"
		      "Batch: %lld\n"
		      "-------------------------------------------\n",
		      (long long)batch_id);
	if (data != NULL)
		sl_batch_show(data, c->num_rows, c->truncate, t);
	sl_buf_addc(t, '\n');
	if (sl_buf_failed(t)) {
		sl_buf_release(t);
		sl_buf_init(t);
		return sl_err_nomem(err);
	}
	if (c->host.write != NULL && t->len > 0)
		c->host.write(c->host.ctx, t->p, t->len);
	return 0;
}

static void console_describe(const sl_sink *s, sl_buf *out)
{
	(void)s;
	sl_buf_adds(out,
		    "org.apache.spark.sql.execution.streaming.ConsoleTable$");
}

static void console_close(sl_sink *s)
{
	console *c = s->impl;
	sl_buf_release(&c->text);
	free(c);
}

static const struct sl_sink_ops console_ops = {
	.name = "console",
	.add_batch = console_add,
	.describe = console_describe,
	.close = console_close,
};

/* truncate: true/false (any case) or a non-negative number of characters. */
static int parse_truncate(const char *v, int *out, sl_err *err)
{
	char *end;
	long n;
	if (v == NULL) {
		*out = 20;
		return 0;
	}
	if (strcasecmp(v, "true") == 0) {
		*out = 20;
		return 0;
	}
	if (strcasecmp(v, "false") == 0) {
		*out = 0;
		return 0;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || n < 0 || n > 1000000)
		return sl_err_set(err, SL_EINVAL,
				  "option 'truncate': expected 'true', 'false' "
				  "or a number of characters, got '%s'",
				  v);
	*out = (int)n;
	return 0;
}

static int parse_num_rows(const char *v, int64_t *out, sl_err *err)
{
	char *end;
	long long n;
	if (v == NULL) {
		*out = 20;
		return 0;
	}
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || n <= 0)
		return sl_err_set(
		    err, SL_EINVAL,
		    "option 'numRows': must be a positive integer, "
		    "got '%s'",
		    v);
	*out = n;
	return 0;
}

sl_sink *sl_sink_console_new(const sl_sink_host *host, const sl_options *opts,
			     sl_outmode mode, sl_err *err)
{
	console *c;
	int64_t num_rows = 20;
	int truncate = 20;
	sl_sink *s;
	if (parse_num_rows(sl_options_get(opts, "numRows"), &num_rows, err) ||
	    parse_truncate(sl_options_get(opts, "truncate"), &truncate, err))
		return NULL;
	c = calloc(1, sizeof *c);
	if (c == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	if (host != NULL)
		c->host = *host;
	c->num_rows = num_rows;
	c->truncate = truncate;
	sl_buf_init(&c->text);
	s = sl_sink_alloc(&console_ops, mode, c, err);
	if (s == NULL)
		free(c);
	return s;
}
