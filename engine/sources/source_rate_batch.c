/*
 * source_rate_batch: Spark's rate-micro-batch source
 * (RatePerMicroBatchProvider / RatePerMicroBatchStream, Spark 3.3+): a
 * fixed number of rows per micro-batch, whatever the clock says.
 *
 * Schema `timestamp TIMESTAMP, value BIGINT`, as rate.  The offset is
 * Spark's {"offset":N,"timestamp":MS}: the batch after offset (N, MS)
 * holds values N .. N+rowsPerBatch-1, every row stamped MS, and ends at
 * (N + rowsPerBatch, MS + advanceMillisPerBatch).  The first batch starts
 * at (0, startTimestamp).  So every trigger has data: `latest` is always
 * one batch past the position the source last read or was resumed at
 * (processAllAvailable polls it once, so it runs one batch), and a
 * restarted query continues from its checkpoint (the `resume` hook).
 * With numPartitions P, partition p holds values N+p, N+p+P, ... and rows
 * come out partition after partition, as rate does.
 *
 * Deterministic: the clock is never read.  Never prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/source_int.h"

typedef struct ratemb {
	sl_rate_batch_conf conf;
	int64_t pos, pos_ms; /* the end of the last batch read */
} ratemb;

static int opt_long(const sl_options *o, const char *key, int64_t def,
		    int64_t *out, sl_err *err)
{
	const char *v = sl_options_get(o, key);
	if (sl_options_int(o, key, def, out, NULL) != 0)
		return sl_err_set(err, SL_EINVAL,
				  "For input string: \"%s\" (option '%s' must "
				  "be an integer)",
				  v, key);
	return 0;
}

int sl_rate_batch_conf_parse(const sl_options *opts, sl_rate_batch_conf *c,
			     sl_err *err)
{
	memset(c, 0, sizeof *c);
	if (opt_long(opts, "rowsPerBatch", 0, &c->rows_per_batch, err) != 0 ||
	    opt_long(opts, "numPartitions", 1, &c->num_partitions, err) != 0 ||
	    opt_long(opts, "startTimestamp", 0, &c->start_ms, err) != 0 ||
	    opt_long(opts, "advanceMillisPerBatch", 1000, &c->advance_ms,
		     err) != 0)
		return SL_EINVAL;
	/* RatePerMicroBatchProvider's checks, in its order */
	if (c->rows_per_batch <= 0)
		return sl_err_set(err, SL_EINVAL,
				  "Invalid value '%" PRId64 "'. The option "
				  "'rowsPerBatch' must be positive",
				  c->rows_per_batch);
	if (c->num_partitions <= 0 || c->num_partitions > INT32_MAX)
		return sl_err_set(err, SL_EINVAL,
				  "Invalid value '%" PRId64 "'. The option "
				  "'numPartitions' must be positive",
				  c->num_partitions);
	if (c->start_ms < 0)
		return sl_err_set(err, SL_EINVAL,
				  "Invalid value '%" PRId64 "'. The option "
				  "'startTimestamp' must be non-negative",
				  c->start_ms);
	if (c->advance_ms < 0 || c->advance_ms > INT32_MAX)
		return sl_err_set(err, SL_EINVAL,
				  "Invalid value '%" PRId64 "'. The option "
				  "'advanceMillisPerBatch' must be non-negative",
				  c->advance_ms);
	return 0;
}

/* {"offset":N,"timestamp":MS}; NULL is the initial (0, startTimestamp). */
static int parse_off(const ratemb *r, const char *s, int64_t *n, int64_t *ms,
		     sl_err *err)
{
	long long a, b;
	if (s == NULL) {
		*n = 0;
		*ms = r->conf.start_ms;
		return 0;
	}
	if (sscanf(s, " { \"offset\" : %lld , \"timestamp\" : %lld }", &a,
		   &b) != 2 ||
	    a < 0)
		return sl_err_set(err, SL_ECHECKPOINT,
				  "rate-micro-batch: bad offset '%s'", s);
	*n = a;
	*ms = b;
	return 0;
}

static char *fmt_off(int64_t n, int64_t ms, sl_err *err)
{
	char buf[96], *p;
	snprintf(buf, sizeof buf, "{\"offset\":%" PRId64 ",\"timestamp\":%" PRId64 "}",
		 n, ms);
	if ((p = strdup(buf)) == NULL)
		sl_err_nomem(err);
	return p;
}

static int rmb_latest(sl_source *s, char **offset, sl_err *err)
{
	ratemb *r = s->impl;
	if (r->pos > INT64_MAX - r->conf.rows_per_batch)
		return sl_err_set(err, SL_EINVAL,
				  "rate-micro-batch: the offset overflows");
	*offset = fmt_off(r->pos + r->conf.rows_per_batch,
			  r->pos_ms + r->conf.advance_ms, err);
	return *offset ? 0 : SL_ENOMEM;
}

static sl_batch *rmb_chunk(sl_type *schema, int64_t v0, int64_t step,
			   int64_t n, int64_t ts_us)
{
	sl_col *cols[2];
	cols[0] = sl_col_new(schema->fields[0].type, n);
	cols[1] = sl_col_new(schema->fields[1].type, n);
	if (cols[0] == NULL || cols[1] == NULL) {
		sl_col_free(cols[0]);
		sl_col_free(cols[1]);
		return NULL;
	}
	for (int64_t k = 0; k < n; k++) {
		sl_col_i64(cols[0])[k] = ts_us;
		sl_col_i64(cols[1])[k] = v0 + k * step;
	}
	return sl_batch_new(schema, n, cols);
}

static int rmb_read(sl_source *s, const char *start, const char *end,
		    sl_batch_list *out, sl_err *err)
{
	ratemb *r = s->impl;
	int64_t a, ams, b, bms, p = r->conf.num_partitions;
	if (parse_off(r, start, &a, &ams, err) != 0 ||
	    parse_off(r, end, &b, &bms, err) != 0)
		return err ? err->code : SL_EINVAL;
	if (b < a)
		return sl_err_set(err, SL_EINVAL,
				  "rate-micro-batch: bad offset range (%s, %s]",
				  start ? start : "null", end ? end : "null");
	if (ams > INT64_MAX / 1000)
		return sl_err_set(err, SL_EINVAL,
				  "rate-micro-batch: timestamp %" PRId64
				  " is too large",
				  ams);
	r->pos = b;
	r->pos_ms = bms;
	for (int64_t part = 0; part < p && a + part < b; part++) {
		int64_t n = (b - a - part + p - 1) / p; /* rows of part */
		for (int64_t k = 0; k < n; k += 65536) {
			int64_t m = n - k < 65536 ? n - k : 65536;
			sl_batch *bt = rmb_chunk(s->schema, a + part + k * p, p,
						 m, ams * 1000);
			if (bt == NULL || sl_batch_list_add(out, bt) != 0)
				return sl_err_nomem(err);
		}
	}
	return 0;
}

static void rmb_resume(sl_source *s, const char *start)
{
	ratemb *r = s->impl;
	int64_t n = 0, ms = 0;
	if (parse_off(r, start, &n, &ms, NULL) == 0) {
		r->pos = n;
		r->pos_ms = ms;
	}
}

static void rmb_describe(const sl_source *s, sl_buf *out)
{
	const ratemb *r = s->impl;
	sl_buf_printf(out,
		      "RatePerMicroBatchStream[rowsPerBatch=%" PRId64
		      ", numPartitions=%" PRId64 ", startTimestamp=%" PRId64
		      ", advanceMillisPerBatch=%" PRId64 "]",
		      r->conf.rows_per_batch, r->conf.num_partitions,
		      r->conf.start_ms, r->conf.advance_ms);
}

static void rmb_close(sl_source *s)
{
	free(s->impl);
	s->impl = NULL;
}

static const struct sl_source_ops rmb_ops = {
	.name = "rate-micro-batch",
	.latest = rmb_latest,
	.limit = NULL,
	.read = rmb_read,
	.commit = NULL,
	.describe = rmb_describe,
	.close = rmb_close,
	.resume = rmb_resume,
};

sl_source *sl_source_rate_batch_open(const sl_rate_batch_conf *conf,
				     sl_err *err)
{
	ratemb *r = calloc(1, sizeof *r);
	sl_type *schema;
	sl_source *s;
	if (r == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	r->conf = *conf;
	r->pos_ms = conf->start_ms;
	schema = sl_rate_schema(err);
	if (schema == NULL) {
		free(r);
		return NULL;
	}
	s = sl_source_shell(&rmb_ops, schema, true, r, err);
	sl_type_free(schema);
	if (s == NULL)
		free(r);
	return s;
}
