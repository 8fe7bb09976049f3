/*
 * buf: growable text buffer.
 */
#include "core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sl_buf_init(sl_buf *b)
{
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

void sl_buf_release(sl_buf *b)
{
	free(b->p);
	sl_buf_init(b);
}

void sl_buf_clear(sl_buf *b)
{
	b->len = 0;
	if (b->p != NULL)
		b->p[0] = '\0';
}

static bool grow(sl_buf *b, size_t extra)
{
	size_t need, cap;
	char *np;
	if (b->oom)
		return false;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return true;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	np = realloc(b->p, cap);
	if (np == NULL) {
		b->oom = true;
		return false;
	}
	b->p = np;
	b->cap = cap;
	return true;
}

void sl_buf_add(sl_buf *b, const void *p, size_t n)
{
	if (!grow(b, n))
		return;
	if (n > 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

bool sl_buf_reserve(sl_buf *b, size_t n)
{
	return grow(b, n);
}

void sl_buf_adds(sl_buf *b, const char *s)
{
	sl_buf_add(b, s, strlen(s));
}

void sl_buf_addc(sl_buf *b, char c)
{
	if (!grow(b, 1))
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

void sl_buf_vprintf(sl_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || !grow(b, (size_t)n))
		return;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sl_buf_printf(sl_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void sl_buf_pad(sl_buf *b, char c, size_t n)
{
	if (!grow(b, n))
		return;
	memset(b->p + b->len, c, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sl_buf_add_i64(sl_buf *b, int64_t v)
{
	char t[24];
	int k = 24;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do
		t[--k] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		t[--k] = '-';
	sl_buf_add(b, t + k, (size_t)(24 - k));
}

/* Runs of characters that need no escape go in with one copy (a byte at
 * a time was most of a progress report's JSON). */
void sl_buf_json_str(sl_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run;
	sl_buf_addc(b, '"');
	while (i < n) {
		unsigned char c;
		for (run = i; run < n; run++) {
			c = (unsigned char)s[run];
			if (c < 0x20 || c == '"' || c == '\\')
				break;
		}
		if (run > i)
			sl_buf_add(b, s + i, run - i);
		if ((i = run) >= n)
			break;
		c = (unsigned char)s[i++];
		switch (c) {
		case '"': sl_buf_add(b, "\\\"", 2); break;
		case '\\': sl_buf_add(b, "\\\\", 2); break;
		case '\n': sl_buf_add(b, "\\n", 2); break;
		case '\r': sl_buf_add(b, "\\r", 2); break;
		case '\t': sl_buf_add(b, "\\t", 2); break;
		case '\b': sl_buf_add(b, "\\b", 2); break;
		case '\f': sl_buf_add(b, "\\f", 2); break;
		default: {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			sl_buf_add(b, e, 6);
		}
		}
	}
	sl_buf_addc(b, '"');
}

bool sl_buf_failed(const sl_buf *b)
{
	return b->oom;
}

char *sl_buf_detach(sl_buf *b)
{
	char *p = b->p;
	if (b->oom) {
		free(p);
		sl_buf_init(b);
		return NULL;
	}
	if (p == NULL)
		p = calloc(1, 1);
	sl_buf_init(b);
	return p;
}

const char *sl_buf_cstr(const sl_buf *b)
{
	return b->p != NULL ? b->p : "";
}
