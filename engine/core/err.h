/*
 * err: the engine's error value.
 *
 * Every fallible engine function returns int (0 on success, a negative
 * SL_E* code on failure) or a pointer (NULL on failure) and takes a trailing
 * sl_err *err that may be NULL.  The message is one line, lower case, no
 * full stop, what failed first, names in single quotes; where Spark has a
 * well-known sentence (AnalysisException texts) we use Spark's sentence.
 * The hint, if any, is something the learner can act on.
 *
 * Ownership: sl_err is a caller-owned value; nothing inside needs freeing.
 */
#ifndef SL_ERR_H
#define SL_ERR_H

#include <stdarg.h>

enum {
	SL_OK = 0,
	SL_ENOMEM = -1,      /* allocation failed */
	SL_EINVAL = -2,      /* bad argument or option value */
	SL_EANALYSIS = -3,   /* Spark AnalysisException: query is not valid */
	SL_EPARSE = -4,      /* SQL expression, DDL, duration, JSON text */
	SL_EIO = -5,         /* file or socket */
	SL_EDATA = -6,       /* malformed record under FAILFAST */
	SL_ESTATE = -7,      /* wrong lifecycle state (stopped query, ...) */
	SL_ECHECKPOINT = -8, /* checkpoint unreadable / refused */
	SL_EUSER = -9,       /* error raised by a user callback */
	SL_ECRASH = -11,     /* a simulated crash point was hit (crash.h) */
	SL_EINTR = -12,      /* the user interrupted a callback (Ctrl-C) */
	SL_EINTERNAL = -10   /* invariant broken: a bug */
};

#define SL_ERR_MSG  512
#define SL_ERR_HINT 256

typedef struct sl_err {
	int code;
	char msg[SL_ERR_MSG];
	char hint[SL_ERR_HINT];
} sl_err;

/* Set *err (if not NULL) to code and a printf-formatted message; clears the
 * hint.  Returns code so callers can write `return sl_err_set(...)`. */
int sl_err_set(sl_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sl_err_vset(sl_err *err, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Set the hint of an already set error. */
void sl_err_hint(sl_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefix the message with "prefix: " (e.g. the method name). */
void sl_err_prefix(sl_err *err, const char *prefix);

/* Reset to SL_OK with empty strings. */
void sl_err_clear(sl_err *err);

/* Short name of a code, e.g. "AnalysisException" for SL_EANALYSIS. */
const char *sl_err_codename(int code);

/* Out-of-memory helper: sets SL_ENOMEM "out of memory" and returns it. */
int sl_err_nomem(sl_err *err);

#endif
