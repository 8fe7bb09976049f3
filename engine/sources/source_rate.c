/*
 * source_rate: Spark's rate source (RateStreamMicroBatchStream), the
 * benchmark workhorse.
 *
 * Schema `timestamp TIMESTAMP, value BIGINT`.  The offset is the number of
 * whole seconds elapsed since the source's creation time (the clock at the
 * first open; with a metadata directory it is kept in <metadir>/0 as
 * Spark does, so a restarted query replays the same rows).  Rows of the
 * seconds (a, b] are the values value(a) .. value(b)-1, where value(s) is
 * Spark's valueAtSecond with the ramp-up (SPARK-SEMANTICS.md 1.1).  Their
 * timestamps spread evenly over the range: Java's
 * Math.round(startMs + (v - value(a)) * msPerValue), in milliseconds.
 * With numPartitions P, partition p holds values value(a)+p, +P, ... and
 * rows come out partition after partition, as Spark's collect shows them.
 *
 * Generation writes straight into the column arrays, a run of rows
 * sharing a millisecond at a time, split into batches of at most
 * RATE_CHUNK rows.  Deterministic for a
 * manual clock.  Never prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sources/source_int.h"
#include "core/timeutil.h"

#define RATE_CHUNK 65536

typedef struct rate {
	sl_rate_conf conf;
	sl_clock *clock;
	int64_t creation_ms;
	int64_t last_ms; /* never moves backwards, as Spark's lastTimeMs */
} rate;

/* Spark reads rowsPerSecond with getLong, numPartitions with getInt: a
 * value that is not a number is Java's NumberFormatException text. */
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

int sl_rate_conf_parse(const sl_options *opts, sl_rate_conf *conf, sl_err *err)
{
	const char *ramp = sl_options_get(opts, "rampUpTime");
	memset(conf, 0, sizeof *conf);
	if (opt_long(opts, "rowsPerSecond", 1, &conf->rows_per_sec, err) != 0)
		return SL_EINVAL;
	if (conf->rows_per_sec <= 0)
		return sl_err_set(err, SL_EINVAL,
				  "Invalid value '%lld'. The option "
				  "'rowsPerSecond' must be positive",
				  (long long)conf->rows_per_sec);
	if (ramp != NULL) {
		int64_t us;
		if (!sl_source_time_string(ramp, SL_US_PER_SEC, &us))
			return sl_err_set(err, SL_EINVAL,
					  "Invalid value '%s' for option "
					  "'rampUpTime': expected a duration "
					  "such as '5s' or '10 seconds'",
					  ramp);
		conf->ramp_up_sec = us / SL_US_PER_SEC;
		if (conf->ramp_up_sec < 0)
			return sl_err_set(err, SL_EINVAL,
					  "Invalid value '%lld'. The option "
					  "'rampUpTime' must not be negative",
					  (long long)conf->ramp_up_sec);
	}
	conf->partitions_set = sl_options_get(opts, "numPartitions") != NULL;
	if (opt_long(opts, "numPartitions", 1, &conf->num_partitions, err) != 0)
		return SL_EINVAL;
	if (conf->num_partitions <= 0 || conf->num_partitions > INT32_MAX)
		return sl_err_set(err, SL_EINVAL,
				  "Invalid value '%lld'. The option "
				  "'numPartitions' must be positive",
				  (long long)conf->num_partitions);
	return 0;
}

sl_type *sl_rate_schema(sl_err *err)
{
	return sl_type_parse_ddl("timestamp TIMESTAMP, value BIGINT", err);
}

int64_t sl_rate_value_at(int64_t sec, int64_t r, int64_t ramp)
{
	int64_t delta = r / (ramp + 1);
	if (sec <= ramp) {
		/* (delta * sec) * (sec + 1) / 2, halving the even factor
		 * first so it does not overflow early (Spark's trick). */
		if (sec % 2 == 1)
			return (sec + 1) / 2 * delta * sec;
		return sec / 2 * delta * (sec + 1);
	}
	return sl_rate_value_at(ramp, r, ramp) + (sec - ramp) * r;
}

/* ---- creation time, kept like Spark's metadata log entry 0 ---- */

static int creation_load(const char *metadir, int64_t *ms, bool *found,
			 sl_err *err)
{
	char path[4096], text[128];
	FILE *f;
	size_t n;
	long long v;
	*found = false;
	snprintf(path, sizeof path, "%s/0", metadir);
	f = fopen(path, "r");
	if (f == NULL)
		return errno == ENOENT
			   ? 0
			   : sl_err_set(err, SL_ECHECKPOINT,
					"rate: cannot read '%s': %s", path,
					strerror(errno));
	n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	if (sscanf(text, "v1\n%lld", &v) != 1)
		return sl_err_set(err, SL_ECHECKPOINT,
				  "rate: bad start time in '%s'", path);
	*ms = v;
	*found = true;
	return 0;
}

static int creation_save(const char *metadir, int64_t ms, sl_err *err)
{
	char path[4096], tmp[4200], text[64];
	int fd, len, ok;
	if (sl_source_mkdirs(metadir, err) != 0)
		return SL_ECHECKPOINT;
	snprintf(path, sizeof path, "%s/0", metadir);
	snprintf(tmp, sizeof tmp, "%s/.0.tmp", metadir);
	len = snprintf(text, sizeof text, "v1\n%lld", (long long)ms);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0)
		return sl_err_set(err, SL_ECHECKPOINT,
				  "rate: cannot write '%s': %s", tmp,
				  strerror(errno));
	ok = write(fd, text, (size_t)len) == len && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return sl_err_set(err, SL_ECHECKPOINT,
				  "rate: cannot write '%s': %s", path,
				  strerror(errno));
	}
	return 0;
}

/* ---- the source ---- */

static int rate_latest(sl_source *s, char **offset, sl_err *err)
{
	rate *r = s->impl;
	int64_t now = sl_floordiv(sl_clock_now(r->clock), 1000);
	if (r->last_ms < now)
		r->last_ms = now;
	*offset = sl_source_offset_fmt(
	    sl_floordiv(r->last_ms - r->creation_ms, 1000), err);
	return *offset ? 0 : SL_ENOMEM;
}

/* Row k's millisecond, Java's Math.round(base + (v - rs) * rel) for
 * v = v0 + k * step.  x >= 0: truncating x + 0.5 is floor(x + 0.5). */
typedef struct rate_ms {
	int64_t v0, step, rs;
	double base, rel;
} rate_ms;

static inline int64_t ms_at(const rate_ms *r, int64_t k)
{
	double x = r->base + (double)(r->v0 + k * r->step - r->rs) * r->rel;
	return x + 0.5 >= 0 ? (int64_t)(x + 0.5) : (int64_t)floor(x + 0.5);
}

/* The end of the run of rows sharing row k's millisecond ms (the first
 * row after k with another one, or n), trying k + guess first (the last
 * run's length).  The milliseconds never decrease with k (rel > 0, and
 * every step of ms_at rounds monotonically), so the run is the rows
 * between k and the first row whose ms differs: gallop, then bisect. */
static int64_t run_end(const rate_ms *r, int64_t k, int64_t n, int64_t ms,
		       int64_t guess)
{
	int64_t lo = k, hi, e = guess < n - k ? k + guess : n;
	if (ms_at(r, e - 1) != ms) {
		hi = e - 1;
	} else {
		if (e == n || ms_at(r, e) != ms)
			return e;
		lo = e;
		for (hi = lo + guess; hi < n && ms_at(r, hi) == ms;
		     hi = lo + guess) {
			lo = hi;
			guess *= 2;
		}
		if (hi > n)
			hi = n;
	}
	while (hi - lo > 1) { /* ms_at(lo) == ms; hi == n or differs */
		int64_t mid = lo + (hi - lo) / 2;
		if (ms_at(r, mid) == ms)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* d[k] = x + k * inc for k in [0, n) */
static void fill_seq(int64_t *d, int64_t n, int64_t x, int64_t inc)
{
	int64_t k = 0;
#ifdef __SSE2__
	__m128i v = _mm_set_epi64x((int64_t)((uint64_t)x + (uint64_t)inc), x),
		by = _mm_set1_epi64x((int64_t)((uint64_t)inc * 2)),
		w = _mm_add_epi64(v, by);
	by = _mm_add_epi64(by, by);
	for (; k + 4 <= n; k += 4) {
		_mm_storeu_si128((__m128i *)(d + k), v);
		_mm_storeu_si128((__m128i *)(d + k + 2), w);
		v = _mm_add_epi64(v, by);
		w = _mm_add_epi64(w, by);
	}
#endif
	for (; k < n; k++)
		d[k] = (int64_t)((uint64_t)x + (uint64_t)k * (uint64_t)inc);
}

static void fill_same(int64_t *d, int64_t n, int64_t x)
{
	int64_t k = 0;
#ifdef __SSE2__
	__m128i v = _mm_set1_epi64x(x);
	for (; k + 4 <= n; k += 4) {
		_mm_storeu_si128((__m128i *)(d + k), v);
		_mm_storeu_si128((__m128i *)(d + k + 2), v);
	}
#endif
	for (; k < n; k++)
		d[k] = x;
}

/* n rows of one partition: values v0, v0+step, ...; timestamps as Java's
 * Math.round(base + (v - rs) * rel) milliseconds. */
static sl_batch *rate_chunk(sl_type *schema, int64_t v0, int64_t step,
			    int64_t n, int64_t rs, double base, double rel)
{
	sl_col *cols[2];
	int64_t *ts, *val;
	rate_ms r = { v0, step, rs, base, rel };
	/* not zeroed: the loops below write every row */
	cols[0] = sl_col_new_raw(schema->fields[0].type, n);
	cols[1] = sl_col_new_raw(schema->fields[1].type, n);
	if (cols[0] == NULL || cols[1] == NULL) {
		sl_col_free(cols[0]);
		sl_col_free(cols[1]);
		return NULL;
	}
	ts = sl_col_i64(cols[0]);
	val = sl_col_i64(cols[1]);
	fill_seq(val, n, v0, step);
	/* The double arithmetic is Java's exactly (ms_at), so rounding
	 * matches Spark; but at rowsPerSecond above 1000 rows share each
	 * millisecond, so it runs once a run of them (run_end), not a row,
	 * and the run is filled.  The same loop sums the milliseconds for
	 * the watermark's statistics (col.h sl_col_tstats; op_watermark then
	 * reads no row); they rise with v (rel > 0), so the first and last
	 * are the min and max. */
	int64_t sum = 0;
	if (rel > 0) {
		int64_t k, e, len = 1;
		for (k = 0; k < n; k = e) {
			int64_t ms = ms_at(&r, k);
			e = run_end(&r, k, n, ms, len);
			len = e - k;
			fill_same(ts + k, len, ms * 1000);
			sum = (int64_t)((uint64_t)sum +
					(uint64_t)ms * (uint64_t)len);
		}
	} else {
		for (int64_t k = 0; k < n; k++) {
			int64_t ms = ms_at(&r, k);
			ts[k] = ms * 1000;
			sum += ms;
		}
	}
	if (n > 0 && rel > 0) {
		cols[0]->tstats.set = true;
		cols[0]->tstats.min_ms = ts[0] / 1000;
		cols[0]->tstats.max_ms = ts[n - 1] / 1000;
		cols[0]->tstats.sum_ms = sum;
		cols[0]->tstats.count = n;
	}
	return sl_batch_new(schema, n, cols);
}

static int rate_read(sl_source *s, const char *start, const char *end,
		     sl_batch_list *out, sl_err *err)
{
	rate *r = s->impl;
	int64_t a, b, rs, re, p = r->conf.num_partitions;
	double base, rel;
	if (sl_source_offset_i64(start, 0, &a, "rate", err) != 0 ||
	    sl_source_offset_i64(end, 0, &b, "rate", err) != 0)
		return err ? err->code : SL_EINVAL;
	if (a < 0 || b < a)
		return sl_err_set(err, SL_EINVAL,
				  "rate: bad offset range (%s, %s]",
				  start ? start : "null", end ? end : "null");
	if (b > INT64_MAX / r->conf.rows_per_sec)
		return sl_err_set(err, SL_EINVAL,
				  "rate: end offset %lld is too large for "
				  "rowsPerSecond=%lld",
				  (long long)b,
				  (long long)r->conf.rows_per_sec);
	/* Recovery: the clock never reads behind a planned end. */
	if (r->last_ms < r->creation_ms + b * 1000)
		r->last_ms = r->creation_ms + b * 1000;
	rs = sl_rate_value_at(a, r->conf.rows_per_sec, r->conf.ramp_up_sec);
	re = sl_rate_value_at(b, r->conf.rows_per_sec, r->conf.ramp_up_sec);
	if (re == rs)
		return 0;
	base = (double)(r->creation_ms + a * 1000);
	rel = (double)((b - a) * 1000) / (double)(re - rs);
	for (int64_t part = 0; part < p && rs + part < re; part++) {
		int64_t n = (re - rs - part + p - 1) / p; /* rows of part */
		for (int64_t k = 0; k < n; k += RATE_CHUNK) {
			int64_t m = n - k < RATE_CHUNK ? n - k : RATE_CHUNK;
			sl_batch *bt = rate_chunk(s->schema, rs + part + k * p,
						  p, m, rs, base, rel);
			if (bt == NULL || sl_batch_list_add(out, bt) != 0)
				return sl_err_nomem(err);
		}
	}
	return 0;
}

static void rate_commit(sl_source *s, const char *end)
{
	(void)s;
	(void)end;
}

static void rate_describe(const sl_source *s, sl_buf *out)
{
	const rate *r = s->impl;
	/* Spark's toString, including its missing closing bracket. */
	sl_buf_printf(
	    out,
	    "RateStreamV2[rowsPerSecond=%lld, rampUpTimeSeconds=%lld, "
	    "numPartitions=",
	    (long long)r->conf.rows_per_sec, (long long)r->conf.ramp_up_sec);
	if (r->conf.partitions_set)
		sl_buf_printf(out, "%lld", (long long)r->conf.num_partitions);
	else
		sl_buf_adds(out, "default");
}

static void rate_close(sl_source *s)
{
	free(s->impl);
	s->impl = NULL;
}

static const struct sl_source_ops rate_ops = {
	.name = "rate",
	.latest = rate_latest,
	.limit = NULL,
	.read = rate_read,
	.commit = rate_commit,
	.describe = rate_describe,
	.close = rate_close,
};

sl_source *sl_source_rate_open(const sl_rate_conf *conf, sl_clock *clock,
			       const char *metadir, sl_err *err)
{
	rate *r = calloc(1, sizeof *r);
	sl_type *schema;
	sl_source *s;
	bool found = false;
	if (r == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	r->conf = *conf;
	r->clock = clock;
	r->creation_ms = sl_floordiv(sl_clock_now(clock), 1000);
	if (metadir != NULL &&
	    (creation_load(metadir, &r->creation_ms, &found, err) != 0 ||
	     (!found && creation_save(metadir, r->creation_ms, err) != 0))) {
		free(r);
		return NULL;
	}
	r->last_ms = r->creation_ms;
	schema = sl_rate_schema(err);
	if (schema == NULL) {
		free(r);
		return NULL;
	}
	s = sl_source_shell(&rate_ops, schema, true, r, err);
	sl_type_free(schema);
	if (s == NULL)
		free(r);
	return s;
}
