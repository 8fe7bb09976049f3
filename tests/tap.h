/*
 * tap.h: a tiny TAP producer for C unit tests (git's test-lib spirit).
 *
 *   ok(cond, "name %d", x); is_int(got, want, "name"); is_str(got, want, "n");
 *   return done_testing();
 *
 * Output is TAP 13 read by prove; failures print got/want as diagnostics.
 */
#ifndef SL_TAP_H
#define SL_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_fail;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_fail++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...)                                                   \
	do {                                                                     \
		long long g_ = (long long)(got), w_ = (long long)(want);         \
		if (!ok(g_ == w_, __VA_ARGS__))                                  \
			printf("#   got:  %lld\n#   want: %lld\n", g_, w_);        \
	} while (0)

#define is_str(got, want, ...)                                                   \
	do {                                                                     \
		const char *g_ = (got), *w_ = (want);                            \
		if (!ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0,         \
			__VA_ARGS__))                                            \
			printf("#   got:  '%s'\n#   want: '%s'\n",                 \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)");          \
	} while (0)

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}

#endif
