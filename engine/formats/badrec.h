/*
 * badrec: how the file readers (json, csv, text, parquet) tell a listener
 * about the malformed records they meet, and the UTF-8 repair they share.
 *
 * A reader given a reporter calls it once per malformed record, in the
 * order it meets them, with the reason:
 *   malformed     a syntax error or a value that does not convert
 *   too_long      a line longer than maxLineBytes (fileformat.h)
 *   utf8          a line holding ill-formed UTF-8, kept with U+FFFD
 *   corrupt_file  a file skipped whole (parquet, ignoreCorruptFiles=true)
 * PERMISSIVE and DROPMALFORMED report (the record is kept or dropped as
 * the mode says); FAILFAST fails the read instead.  The file source turns
 * the reports into the feed's SL_EV_BAD_RECORD events (source.h), which
 * the workbench's "late / bad records" pane counts.
 *
 * Never prints.
 */
#ifndef SL_BADREC_H
#define SL_BADREC_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

typedef struct sl_format_bad {
	/* file: the name the reader was given; line: 1-based (0 for a
	 * whole file); reason: one of the words above; why: the reader's
	 * detail ("expected ':' at byte 14"), never NULL. */
	void (*fn)(void *ctx, const char *file, int64_t line,
		   const char *reason, const char *why);
	void *ctx;
} sl_format_bad;

/* Report one bad record; nothing when bad (or its fn) is NULL. */
void sl_format_bad_report(const sl_format_bad *bad, const char *file,
			  int64_t line, const char *reason, const char *why);

/* UTF-8 validation of a text about to be parsed (json, csv, text).  When
 * (*data)[0..*len) holds ill-formed UTF-8, *data and *len become a copy in
 * arena (NUL-terminated) where each maximal subpart is one U+FFFD
 * (EF BF BD), as Java's decoder, which Spark's CSV and text readers go
 * through, gives it; each line holding one is reported once, reason utf8
 * (before the parse, so these reports come ahead of the file's other
 * ones).  Well-formed text (the common case: one pass, ASCII 8 bytes at a
 * time) is left where it is.  Returns 0 or SL_ENOMEM. */
int sl_format_utf8_repair(const char *name, int64_t line0, sl_arena *arena,
			  const char **data, size_t *len,
			  const sl_format_bad *bad, sl_err *err);

#endif
