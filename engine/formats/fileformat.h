/*
 * fileformat: reading and writing json, csv and text files, as Spark's
 * DataFrameReader/Writer and the file stream source/sink use them.
 *
 * Modes (option "mode"): PERMISSIVE (default: a malformed record gives a
 * row of nulls (CSV: nulls where a token is missing or does not convert,
 * Spark 3's partial results), plus its raw text in "_corrupt_record" (or
 * the name in option columnNameOfCorruptRecord) when the schema has that
 * STRING column),
 * DROPMALFORMED (skip it), FAILFAST (error naming file, line and reason:
 * "json: malformed record at data/a.json:3: expected ':' at byte 14").
 *
 * JSON options: mode, columnNameOfCorruptRecord, multiLine (false).
 * CSV options: header (false), sep/delimiter (","), quote ("\""), escape
 * ("\\"), inferSchema (false), mode, nullValue (""), comment, multiLine
 * (false: one record per line, as Spark; true: quoted fields span lines).
 * text: one row per line, column "value" STRING; options mode and
 * maxLineBytes (for over-long lines only).
 * json, csv and text: maxLineBytes (1048576; see sl_format_max_line_get);
 * ill-formed UTF-8 is read as U+FFFD, the record kept (badrec.h).
 * json and csv also take fastPath (true): false parses every record with
 * the general parser instead of first offering it to the fast path for
 * plain records (tests and measurements; the results are the same).
 *
 * Never prints.  Errors name the file.
 */
#ifndef SL_FILEFORMAT_H
#define SL_FILEFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/batch.h"
#include "core/err.h"
#include "core/options.h"
#include "core/timeutil.h"
#include "core/type.h"
#include "formats/badrec.h"

/* True for json, csv, text. */
bool sl_format_known(const char *format);

/* List the data files of path: the file itself, or every regular file
 * below the directory (recursively, as Spark's InMemoryFileIndex) whose
 * path has no name sl_format_hidden calls hidden, sorted; when the
 * directory has _spark_metadata/, only the files its log lists (exactly-once
 * file sink).  *files is a malloc'd array of malloc'd paths. */
int sl_format_list(const char *path, char ***files, int *nfiles, sl_err *err);
void sl_format_list_free(char **files, int nfiles);
/* Spark's shouldFilterOutPathName: names starting with '.', or with '_'
 * and holding no '=', and names ending in "._COPYING_". */
bool sl_format_hidden(const char *name);
/* The path of a file URI as the _spark_metadata log writes it
 * ("file:///a/b%20c", "file:/a" or a bare path; %XX decoded): malloc'd, or
 * NULL when out of memory. */
char *sl_format_uri_path(const char *uri, size_t n);

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
/* The same, telling bad (may be NULL) about every malformed record
 * (badrec.h: reasons malformed, too_long, utf8, corrupt_file).  json, csv
 * and text validate UTF-8 either way (badrec.h: ill-formed sequences are
 * read as U+FFFD). */
sl_batch *sl_format_read_file_bad(const char *format, const char *file,
				  sl_type *schema, const sl_options *opts,
				  const sl_format_bad *bad, sl_err *err);
/* The same, a chunk at a time: json (lines), csv (multiLine=false) and text
 * files are parsed max_lines whole lines at a time (fewer when 64 MB of
 * lines are held), each chunk's batch handed to emit (which takes it; a
 * nonzero return ends the read with that code).  Rows, their order and
 * line numbers in messages are those of the whole file; a csv header is
 * the first chunk's.  Parquet, multiLine and max_lines <= 0 read the
 * whole file as one batch.  An empty file gives one empty batch.  Memory
 * is one chunk, not the file.  Returns 0 or the error code. */
int sl_format_read_file_chunks(const char *format, const char *file,
			       sl_type *schema, const sl_options *opts,
			       const sl_format_bad *bad, int64_t max_lines,
			       int (*emit)(void *ctx, sl_batch *b, sl_err *err),
			       void *ctx, sl_err *err);
/* Parse a buffer of text (file contents, a Kafka value) the same way; name
 * is used in error messages. */
sl_batch *sl_format_read_buf(const char *format, const char *name,
			     const char *data, size_t len, sl_type *schema,
			     const sl_options *opts, sl_err *err);

/* Parse n JSON texts (one record each) into a STRUCT column of `schema`:
 * from_json.  Malformed texts give NULL rows (PERMISSIVE). */
sl_col *sl_json_decode(const sl_str *texts, const uint8_t *nulls, int64_t n,
		       sl_type *schema, sl_err *err);
/* The same over the rows of a STRING column c (borrowed), whose bytes all
 * live in c->arena (col.h): the result holds a reference to that arena
 * and its strings may point into it, so no text is copied where texts lie
 * back to back, each followed by '\n' (the Kafka source's values). */
sl_col *sl_json_decode_col(const sl_col *c, sl_type *schema, sl_err *err);

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
/* With the option partitionBy sets (formats/partition.h), write_dir writes
 * one file per partition directory dir/a=1/b=x/, without the partition
 * columns (Spark's checks first: "Partition column `x` not found in
 * schema ..."). */
/* The file name extension of format: txt, json, csv, or parquet's. */
const char *sl_format_ext(const char *format, const sl_options *opts);

/* ---- Internal to the fileformat module (json.c, csv.c, fileformat.c);
 * other modules use the functions above. ---- */

typedef enum sl_format_mode {
	SL_MODE_PERMISSIVE,
	SL_MODE_DROPMALFORMED,
	SL_MODE_FAILFAST
} sl_format_mode;

/* Option "mode" (case-insensitive; default PERMISSIVE).  SL_EINVAL names
 * the option and the accepted values. */
int sl_format_mode_get(const sl_options *opts, sl_format_mode *mode,
		       sl_err *err);
/* Option maxLineBytes (json, csv, text and the socket source; default
 * SL_FORMAT_MAX_LINE, 1 MiB): a line longer than this many bytes (without
 * its "\n" or "\r\n") is a malformed record with reason too_long, and the
 * reader goes on at the next newline.  Spark has no such cap (it reads a
 * line of any length); it is streamlab's guard against hostile input.
 * PERMISSIVE: a row of nulls whose corrupt-record column holds the first
 * maxLineBytes bytes of the line (Spark's malformed handling keeps the raw
 * record there; the cap keeps it bounded); text: a row whose value is null.
 * DROPMALFORMED drops it; FAILFAST: "json: malformed record at FILE:LINE:
 * line longer than maxLineBytes (1048576)".  SL_EINVAL (naming the option
 * and the value) unless a positive integer. */
#define SL_FORMAT_MAX_LINE ((size_t)1048576)
int sl_format_max_line_get(const sl_options *opts, size_t *max, sl_err *err);
/* Option columnNameOfCorruptRecord, default "_corrupt_record"; borrowed. */
const char *sl_format_corrupt_name(const sl_options *opts);
/* Index of the STRING corrupt-record column of schema, or -1. */
int sl_format_corrupt_index(const sl_type *schema, const sl_options *opts);

/* Text -> value conversions shared by the csv reader and inference, with
 * Java's rules (Integer.parseInt, Long.parseLong, Double.parseDouble
 * incl. NaN/Infinity, Boolean "true"/"false" any case).  False if the
 * text does not convert. */
bool sl_format_parse_i64(const char *s, size_t n, int64_t *out);
bool sl_format_parse_double(const char *s, size_t n, double *out);
bool sl_format_parse_bool(const char *s, size_t n, bool *out);
/* Timestamp text as sl_ts_parse accepts it, with a fast path for the
 * fixed layouts (sl_ts_parse_fixed: "yyyy-MM-dd[ T]HH:mm:ss[.fff]" with
 * "Z" or "+hh:mm" or none) and a one-entry date cache
 * (caller-owned, zero-initialised; one per reader, not shared). */
typedef struct sl_format_tscache {
	char date[10];
	int64_t days;
	bool valid;
	/* the last 19-byte text sl_format_ts_cached took, and its value */
	bool last_ok;
	char last[19];
	int64_t last_us;
} sl_format_tscache;
bool sl_format_parse_ts(const char *s, size_t n, int64_t *us,
			sl_format_tscache *cache);
/* The inline fast path of sl_format_parse_ts: the 19 bytes at s as
 * "yyyy-MM-dd[ T]HH:mm:ss" whose date is the cached one.  Same value as
 * sl_format_parse_ts; false (nothing stored) for anything else, also when
 * a byte is not a digit or separator, so a true also says s[0..19) holds
 * no quote or other special byte.  The same 19 bytes as the last text it
 * took (timestamps repeat line after line) cost two word compares. */
static inline int sl_format_d2_(const char *p)
{
	unsigned a = (unsigned)(p[0] - '0'), b = (unsigned)(p[1] - '0');
	return a > 9 || b > 9 ? -1 : (int)(a * 10 + b);
}
static inline __attribute__((always_inline)) bool
sl_format_ts_cached(const char *s, int64_t *us, sl_format_tscache *c)
{
	uint64_t a, b, l0, l1, l2, t0, t1, t2;
	uint16_t x, y;
	int h, mi, sec;
	if (!c->valid)
		return false;
	memcpy(&t0, s, 8);
	memcpy(&t1, s + 8, 8);
	memcpy(&t2, s + 11, 8);
	memcpy(&l0, c->last, 8);
	memcpy(&l1, c->last + 8, 8);
	memcpy(&l2, c->last + 11, 8);
	if (c->last_ok && ((t0 ^ l0) | (t1 ^ l1) | (t2 ^ l2)) == 0) {
		*us = c->last_us;
		return true;
	}
	memcpy(&a, s, 8);
	memcpy(&b, c->date, 8);
	memcpy(&x, s + 8, 2);
	memcpy(&y, c->date + 8, 2);
	if (a != b || x != y || (s[10] != ' ' && s[10] != 'T') ||
	    s[13] != ':' || s[16] != ':')
		return false;
	h = sl_format_d2_(s + 11);
	mi = sl_format_d2_(s + 14);
	sec = sl_format_d2_(s + 17);
	if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
		return false;
	*us = c->days * SL_US_PER_DAY + (int64_t)h * SL_US_PER_HOUR +
	      (int64_t)mi * SL_US_PER_MIN + (int64_t)sec * SL_US_PER_SEC;
	memcpy(c->last, s, 19);
	c->last_us = *us;
	c->last_ok = true;
	return true;
}
/* 1 + the number of '\n' bytes in p[0..len): an upper bound on the
 * records of a JSON-lines or CSV text (rows to allocate). */
int64_t sl_format_count_lines(const char *p, size_t len);
/* strtod in the C locale whatever the process locale is. */
double sl_format_strtod(const char *s, char **end);

/* Readers over data that lives in `arena` (borrowed; the result's string
 * columns take references to it and point into it, so no bytes are copied).
 * name is used in error messages; bad (may be NULL) hears of every
 * malformed record (badrec.h). */
sl_batch *sl_json_read(const char *name, sl_arena *arena, const char *data,
		       size_t len, sl_type *schema, const sl_options *opts,
		       const sl_format_bad *bad, sl_err *err);
sl_batch *sl_csv_read(const char *name, sl_arena *arena, const char *data,
		      size_t len, sl_type *schema, const sl_options *opts,
		      const sl_format_bad *bad, sl_err *err);
/* The same for a later chunk of a file: data starts after line0 lines
 * (error messages and bad records count lines from the file's start). */
sl_batch *sl_json_read_at(const char *name, int64_t line0, sl_arena *arena,
			  const char *data, size_t len, sl_type *schema,
			  const sl_options *opts, const sl_format_bad *bad,
			  sl_err *err);
sl_batch *sl_csv_read_at(const char *name, int64_t line0, sl_arena *arena,
			 const char *data, size_t len, sl_type *schema,
			 const sl_options *opts, const sl_format_bad *bad,
			 sl_err *err);

/* Schema inference accumulators: _add once per file, then _finish gives
 * the schema (new reference) and frees the accumulator; _free drops one
 * that is not finished. */
typedef struct sl_json_infer sl_json_infer;
sl_json_infer *sl_json_infer_new(const sl_options *opts, sl_err *err);
int sl_json_infer_add(sl_json_infer *ji, const char *name, const char *data,
		      size_t len, sl_err *err);
sl_type *sl_json_infer_finish(sl_json_infer *ji, sl_err *err);
void sl_json_infer_free(sl_json_infer *ji);

typedef struct sl_csv_infer sl_csv_infer;
sl_csv_infer *sl_csv_infer_new(const sl_options *opts, sl_err *err);
int sl_csv_infer_add(sl_csv_infer *ci, const char *name, const char *data,
		     size_t len, sl_err *err);
sl_type *sl_csv_infer_finish(sl_csv_infer *ci, sl_err *err);
void sl_csv_infer_free(sl_csv_infer *ci);

/* Writers: append b's rows to out (json lines; csv with the header line
 * when option header is true). */
int sl_json_write(const sl_batch *b, sl_buf *out, sl_err *err);
int sl_csv_write(const sl_batch *b, const sl_options *opts, sl_buf *out,
		 sl_err *err);

#endif
