/*
 * timeutil: timestamps (int64 microseconds since the epoch, UTC) and
 * durations, as Spark parses and prints them.  Pure functions; no clock.
 */
#ifndef SL_TIMEUTIL_H
#define SL_TIMEUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

#define SL_US_PER_SEC  INT64_C(1000000)
#define SL_US_PER_MIN  (60 * SL_US_PER_SEC)
#define SL_US_PER_HOUR (60 * SL_US_PER_MIN)
#define SL_US_PER_DAY  (24 * SL_US_PER_HOUR)

/* Days since the epoch of a proleptic Gregorian date, and back. */
int64_t sl_days_from_civil(int64_t y, int m, int d);
void sl_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* Parse "yyyy-MM-dd[ |T]HH:mm[:ss[.SSSSSS]][Z|+hh:mm|-hh:mm]" or
 * "yyyy-MM-dd" (Spark's cast string -> timestamp).  Returns false if the
 * text is not a timestamp. */
bool sl_ts_parse(const char *s, size_t n, int64_t *us);
/* The fixed layouts, parsed without the general rules' loops:
 * "yyyy-MM-dd[T| ]HH:mm:ss[.f...][Z|+hh:mm|-hh:mm]" (4-digit year, at
 * least one fraction digit, microseconds kept).  True with the same value
 * sl_ts_parse gives when the text is one of them and a valid time; false
 * for any other text, which may still be a timestamp by the general rules
 * (sl_ts_parse tries this first).  The parts, for callers that cache the
 * date: sl_ts_fixed_date reads s[0..10) as "yyyy-MM-dd" into days since
 * the epoch; sl_ts_fixed_time reads s[10..n) (n >= 19) into microseconds
 * since that midnight, the offset subtracted. */
bool sl_ts_parse_fixed(const char *s, size_t n, int64_t *us);
bool sl_ts_fixed_date(const char *s, int64_t *days);
bool sl_ts_fixed_time(const char *s, size_t n, int64_t *tod);
/* The general rules alone (what sl_ts_parse falls back to; t411 checks
 * the fixed layouts against it). */
bool sl_ts_parse_general(const char *s, size_t n, int64_t *us);
/* Spark's timestamp -> string: "2026-01-01 12:05:00", a fraction only when
 * nonzero with trailing zeros stripped ("12:05:00.5").  Appends. */
void sl_ts_format(int64_t us, sl_buf *out);
/* Spark's date -> string: "2026-01-01" (days since the epoch; years
 * beyond 9999 print as "+10000-01-01", as Spark does).  Appends. */
void sl_date_format(int32_t days, sl_buf *out);
/* Spark's stringToDate: "yyyy", "yyyy-[m]m", "yyyy-[m]m-[d]d", the last
 * followed by ' ' or 'T' and anything; leading/trailing spaces trimmed.
 * False for any other text or an impossible date (2026-02-30). */
bool sl_date_parse(const char *s, size_t n, int32_t *days);
/* ISO-8601 with milliseconds, as progress JSON: "1970-01-01T00:00:05.000Z". */
void sl_ts_iso(int64_t us, sl_buf *out);
/* Floor division helpers that are right for negative times. */
static inline int64_t sl_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t sl_floormod(int64_t a, int64_t b)
{
	int64_t m = a % b;
	return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

/* Parse a Spark interval string into microseconds: "10 minutes",
 * "interval 10 second", "1 day 2 hours", "-10 seconds", "1 hour 30 min";
 * units microsecond(s)/us, millisecond(s)/ms, second(s)/sec(s)/s,
 * minute(s)/min(s)/m, hour(s)/h, day(s)/d, week(s)/w, month(s) (31 days),
 * year(s) (12 x 31 days), and "interval '1 2:3:4' day to second".
 * Errors: SL_EPARSE "invalid interval 'x': unknown unit 'foo'". */
int sl_duration_parse(const char *s, int64_t *us, sl_err *err);
/* Print a duration the way a learner reads it: "10 minutes", "1 hour 30
 * minutes", "500 milliseconds". */
void sl_duration_format(int64_t us, sl_buf *out);
/* Parse a Spark time conf (JavaUtils.timeStringAs, what a timeConf such
 * as spark.sql.streaming.stateStore.maintenanceInterval takes): trimmed,
 * case-insensitive, a non-negative integer and a unit us, ms, s, m, min,
 * h or d, or a bare integer in milliseconds ("60s", "500", "1m").
 * Errors: SL_EINVAL "<key> should be a time ..., but was <val>". */
int sl_time_conf_parse(const char *key, const char *s, int64_t *us,
		       sl_err *err);

#endif
