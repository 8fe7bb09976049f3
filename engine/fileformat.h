/*
 * fileformat: reading and writing json, csv and text files, as Spark's
 * DataFrameReader/Writer and the file stream source/sink use them.
 *
 * Modes (option "mode"): PERMISSIVE (default: a malformed record gives a
 * row of nulls, plus its raw text in "_corrupt_record" (or the name in
 * option columnNameOfCorruptRecord) when the schema has that STRING column),
 * DROPMALFORMED (skip it), FAILFAST (error naming file, line and reason:
 * "json: malformed record at data/a.json:3: expected ':' at byte 14").
 *
 * JSON options: mode, columnNameOfCorruptRecord, multiLine (false).
 * CSV options: header (false), sep/delimiter (","), quote ("\""), escape
 * ("\\"), inferSchema (false), mode, nullValue (""), comment.
 * text: one row per line, column "value" STRING.
 *
 * Never prints.  Errors name the file.
 */
#ifndef SL_FILEFORMAT_H
#define SL_FILEFORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "batch.h"
#include "err.h"
#include "options.h"
#include "type.h"

/* True for json, csv, text. */
bool sl_format_known(const char *format);

/* List the data files of path: the file itself, or a directory's regular
 * files whose names do not start with '.' or '_', sorted by name; when the
 * directory has _spark_metadata/, only the files its log lists (exactly-once
 * file sink).  *files is a malloc'd array of malloc'd paths. */
int sl_format_list(const char *path, char ***files, int *nfiles, sl_err *err);
void sl_format_list_free(char **files, int nfiles);

/* Infer a schema from files (batch reads without a schema): JSON takes the
 * union of fields (BIGINT, DOUBLE, BOOLEAN, STRING, STRUCT, ARRAY; fields
 * sorted by name, as Spark); CSV takes the header names (or _c0, _c1, ...)
 * as STRING, or inferred INT/BIGINT/DOUBLE/BOOLEAN/TIMESTAMP/STRING with
 * inferSchema=true; text is "value STRING". */
sl_type *sl_format_infer(const char *format, char *const *files, int nfiles,
			 const sl_options *opts, sl_err *err);

/* Read one whole file into a batch of `schema`. */
sl_batch *sl_format_read_file(const char *format, const char *file,
			      sl_type *schema, const sl_options *opts,
			      sl_err *err);
/* Parse a buffer of text (file contents, a Kafka value) the same way; name
 * is used in error messages. */
sl_batch *sl_format_read_buf(const char *format, const char *name,
			     const char *data, size_t len, sl_type *schema,
			     const sl_options *opts, sl_err *err);

/* Parse n JSON texts (one record each) into a STRUCT column of `schema`:
 * from_json.  Malformed texts give NULL rows (PERMISSIVE). */
sl_col *sl_json_decode(const sl_str *texts, const uint8_t *nulls, int64_t n,
		       sl_type *schema, sl_err *err);

/* Write the batch as one file (json lines, or csv with option header) at
 * path, replacing nothing: fails if path exists.  Writes to a temp name,
 * fsyncs, renames. */
int sl_format_write_file(const char *format, const char *path,
			 const sl_batch *b, const sl_options *opts,
			 sl_err *err);

/* DataFrameWriter.save: write b under directory dir as
 * part-00000-<uuid>.<ext> plus an empty _SUCCESS.  mode: "error"/
 * "errorifexists" (default; Spark's "path ... already exists."),
 * "overwrite", "append", "ignore". */
int sl_format_write_dir(const char *format, const char *dir, const char *mode,
			const sl_batch *b, const sl_options *opts, sl_err *err);

#endif
