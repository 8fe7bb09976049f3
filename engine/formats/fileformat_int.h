/*
 * fileformat_int: what the files of the file-format module share
 * (fileformat.c: listing, reading, writing; format_metalog.c: the
 * _spark_metadata log; format_parse.c: Java's text-to-value rules).
 * Engine-internal: never included from outside formats/.
 */
#ifndef SL_FILEFORMAT_INT_H
#define SL_FILEFORMAT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"
#include "formats/fileformat.h"

/* A growable list of malloc'd strings. */
typedef struct sl_strvec {
	char **v;
	int n, cap;
} sl_strvec;
/* Append s (taken; NULL or out of memory: SL_ENOMEM, s freed). */
int sl_format_sv_push(sl_strvec *sv, char *s);

/* dir + "/" + name, malloc'd (NULL when out of memory). */
char *sl_format_join(const char *dir, const char *name);
/* SL_EIO "cannot <what> '<path>': <strerror(errno)>". */
int sl_format_io_err(sl_err *err, const char *what, const char *path);
/* Read a whole file into arena memory (NUL-terminated, not counted). */
int sl_format_slurp(const char *file, sl_arena *arena, char **data, size_t *len,
		    sl_err *err);

/* sl_json_read_at and sl_csv_read_at for a text whose '\n' bytes the
 * caller counted: nl of them in data[0..len), or -1 when not counted.  A
 * wrong count is a bug (the csv reader sizes its columns by it: records
 * <= nl + 1); the chunked file reader passes its nl_find count, which is
 * exact.  Spares the csv reader its own counting pass and the json reader
 * the growth of its columns from a guess. */
sl_batch *sl_json_read_nl(const char *name, int64_t line0, int64_t nl,
			  sl_arena *arena, const char *data, size_t len,
			  sl_type *schema, const sl_options *opts,
			  const sl_format_bad *bad, sl_err *err);
sl_batch *sl_csv_read_nl(const char *name, int64_t line0, int64_t nl,
			 sl_arena *arena, const char *data, size_t len,
			 sl_type *schema, const sl_options *opts,
			 const sl_format_bad *bad, sl_err *err);

/* The files a file sink's _spark_metadata log `meta` (in directory dir)
 * lists, appended to out (format_metalog.c). */
int sl_format_metalog_list(const char *dir, const char *meta, sl_strvec *out,
			   sl_err *err);

/* A shape loop's integer (csv.c, jsonscan.c): the digits' value u,
 * negated when neg, into row i of a BIGINT (big) or INT column.  False
 * when it does not fit an INT: the line leaves the shape. */
static inline bool sl_format_store_int(void *data, int64_t i, uint64_t u,
				       bool neg, bool big)
{
	int64_t v = (int64_t)(neg ? 0 - u : u);
	if (big) {
		((int64_t *)data)[i] = v;
		return true;
	}
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	((int32_t *)data)[i] = (int32_t)v;
	return true;
}

#endif
