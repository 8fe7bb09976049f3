/*
 * buf: a growable NUL-terminated byte string for building text (show()
 * tables, JSON, explain output, progress).  Caller-owned struct.
 *
 * Out of memory is sticky: after a failed growth every append is a no-op and
 * sl_buf_failed() is true, so callers check once at the end.
 */
#ifndef SL_BUF_H
#define SL_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sl_buf {
	char *p; /* always NUL-terminated when len > 0 or after init */
	size_t len;
	size_t cap;
	bool oom;
} sl_buf;

void sl_buf_init(sl_buf *b);
/* Free the contents; the struct can be reused after sl_buf_init. */
void sl_buf_release(sl_buf *b);
void sl_buf_clear(sl_buf *b); /* length 0, keeps capacity */
void sl_buf_add(sl_buf *b, const void *p, size_t n);
/* Room for n more bytes (and the NUL) at p + len, for a writer that
 * fills them itself and then adds to len; false (and failed) on OOM. */
bool sl_buf_reserve(sl_buf *b, size_t n);
void sl_buf_adds(sl_buf *b, const char *s);
void sl_buf_addc(sl_buf *b, char c);
void sl_buf_printf(sl_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sl_buf_vprintf(sl_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Append c n times. */
/* v in decimal ("-12"), without printf. */
void sl_buf_add_i64(sl_buf *b, int64_t v);
void sl_buf_pad(sl_buf *b, char c, size_t n);
/* Append s as a JSON string literal with quotes and escapes. */
void sl_buf_json_str(sl_buf *b, const char *s, size_t n);
bool sl_buf_failed(const sl_buf *b);
/* Hand the bytes to the caller (malloc'd, NUL-terminated; never NULL unless
 * oom) and reinitialise b. */
char *sl_buf_detach(sl_buf *b);
/* Contents as a C string ("" when empty). Borrowed. */
const char *sl_buf_cstr(const sl_buf *b);

#endif
