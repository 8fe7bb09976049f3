/*
 * badrec: the bad-record reporter and the readers' UTF-8 repair
 * (badrec.h).
 */
#include "formats/badrec.h"

#include <stdio.h>
#include <string.h>

#include "core/utf8.h"

void sl_format_bad_report(const sl_format_bad *bad, const char *file,
			  int64_t line, const char *reason, const char *why)
{
	if (bad != NULL && bad->fn != NULL)
		bad->fn(bad->ctx, file, line, reason, why ? why : "");
}

/* 1-based line of offset off, counting newlines from (*from, *line). */
static int64_t line_at(const char *data, size_t off, size_t *from,
		       int64_t *line)
{
	const char *p = data + *from, *e = data + off, *nl;
	while (p < e && (nl = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		(*line)++;
		p = nl + 1;
	}
	*from = off;
	return *line;
}

int sl_format_utf8_repair(const char *name, int64_t line0, sl_arena *arena,
			  const char **data, size_t *len,
			  const sl_format_bad *bad, sl_err *err)
{
	const char *s = *data;
	size_t n = *len, first = sl_utf8_check(s, n), i, out, l, sub, from = 0;
	int64_t line = 1 + line0, last = 0;
	char *copy, why[96];
	if (first == n)
		return 0;
	/* the repaired size: every maximal subpart becomes 3 bytes */
	for (out = first, i = first; i < n; i += l) {
		l = sl_utf8_valid(s + i, n - i, &sub);
		out += l ? l : 3;
		if (l == 0)
			l = sub;
	}
	if ((copy = sl_arena_alloc(arena, out + 1)) == NULL)
		return sl_err_nomem(err);
	memcpy(copy, s, first);
	for (out = first, i = first; i < n; i += l) {
		l = sl_utf8_valid(s + i, n - i, &sub);
		if (l != 0) {
			memcpy(copy + out, s + i, l);
			out += l;
			continue;
		}
		if (line_at(s, i, &from, &line) != last) {
			last = line;
			snprintf(why, sizeof why,
				 "ill-formed UTF-8 (byte 0x%02X) replaced by "
				 "U+FFFD",
				 (unsigned)(unsigned char)s[i]);
			sl_format_bad_report(bad, name, line, "utf8", why);
		}
		memcpy(copy + out, "\xef\xbf\xbd", 3);
		out += 3;
		l = sub;
	}
	copy[out] = '\0';
	*data = copy;
	*len = out;
	return 0;
}
