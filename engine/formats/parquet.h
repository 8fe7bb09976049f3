/*
 * parquet: Apache Parquet files, written and read from the format's
 * specification (parquet-format's parquet.thrift and Encodings.md); Debian
 * has no C Parquet library.  The writer makes the files Spark 3.5 makes;
 * the reader reads those and the files DuckDB, Spark and parquet-mr write.
 *
 * Types, engine <-> Parquet (every column OPTIONAL unless the field is not
 * nullable, then REQUIRED):
 *   BOOLEAN   BOOLEAN                  INT     INT32
 *   BIGINT    INT64                    DOUBLE  DOUBLE
 *   STRING    BYTE_ARRAY (STRING / UTF8)       BINARY  BYTE_ARRAY
 *   TIMESTAMP INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true) as Spark
 *   STRUCT    a group (the window struct {start, end} is one)
 * The reader also maps INT32 INT(8/16/32), UINT_8/16 -> INT; UINT_32,
 * INT64 INT(64) -> BIGINT; FLOAT -> DOUBLE; DECIMAL (INT32/INT64/fixed up
 * to 8 bytes) -> DOUBLE; TIMESTAMP(MILLIS/NANOS) and INT96 (Spark's and
 * Hive's legacy timestamps) -> TIMESTAMP; DATE -> TIMESTAMP at midnight
 * UTC (NEEDSWORK: the engine has no DATE type yet); ENUM/JSON -> STRING.
 * Repeated fields, LIST and MAP are not read: such a column is left out of
 * the file's schema, and asking for it by name is an error.
 *
 * Writer options (sl_options, case-insensitive keys):
 *   compression (or parquet.compression): snappy (default, as Spark),
 *       zstd, gzip, none/uncompressed.
 *   parquet.block.size: row group bytes, default 134217728 (parquet-mr's);
 *   parquet.block.rows: row group rows, default 1048576 (streamlab's);
 *   parquet.page.size: data page bytes before compression, default 1 MiB;
 *   parquet.enable.dictionary: true (default) tries RLE_DICTIONARY for
 *       every non-boolean column chunk, kept only while the dictionary
 *       stays under parquet.dictionary.page.size (default 1 MiB) and is
 *       smaller than PLAIN; otherwise the chunk is PLAIN.
 * Column chunks carry min/max/null_count statistics (strings only when
 * the extremes are at most 64 bytes long).  Pages are data page V1.
 *
 * The reader takes data pages V1 and V2; PLAIN, RLE_DICTIONARY and
 * PLAIN_DICTIONARY, RLE (booleans), DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT; snappy,
 * zstd, gzip, uncompressed (not LZ4, LZO, BROTLI).
 *
 * Errors are one line, name the file and say what is wrong:
 *   "parquet: 'a.parquet' is not a Parquet file or is truncated (bad
 *    magic at the end)"
 *   "parquet: 'a.parquet': unsupported encoding BIT_PACKED for the
 *    definition levels of column 'c'"
 * Every length, count, offset, bit width and dictionary index read from
 * a file is checked before use: a bad file is an SL_EDATA error, never a
 * crash.  Never prints.
 */
#ifndef SL_PARQUET_H
#define SL_PARQUET_H

#include <stddef.h>
#include <stdint.h>

#include "core/batch.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/options.h"
#include "core/type.h"
#include "formats/badrec.h"

/* ---- writing ---- */

typedef struct sl_parquet_writer sl_parquet_writer;

/* A writer of batches of `schema` (borrowed; the writer takes a
 * reference) appending one Parquet file to `out` (borrowed; caller-owned,
 * must outlive the writer; the file starts at out->len, so file offsets
 * are relative to that point).  Fails on a bad option value or a column
 * type Parquet cannot hold here (ARRAY). */
sl_parquet_writer *sl_parquet_writer_new(sl_type *schema,
					 const sl_options *opts, sl_buf *out,
					 sl_err *err);
/* Add b's rows (borrowed; its schema must match by position and type).
 * Full row groups are encoded into out as they fill; a batch may be split
 * across row groups.  After an error the writer only accepts _free. */
int sl_parquet_writer_add(sl_parquet_writer *w, const sl_batch *b, sl_err *err);
/* Flush the last row group and append the footer: out then holds a whole
 * file.  A writer with no rows writes a valid file with no row groups. */
int sl_parquet_writer_finish(sl_parquet_writer *w, sl_err *err);
/* Accepts NULL.  Frees an unfinished writer too (out keeps what it has). */
void sl_parquet_writer_free(sl_parquet_writer *w);

/* One batch as one whole file appended to out. */
int sl_parquet_write_buf(const sl_batch *b, const sl_options *opts, sl_buf *out,
			 sl_err *err);
/* One batch as a file at path, written as fsutil's atomic writes are
 * (temp name, fsync, link: fails if path exists). */
int sl_parquet_write_file(const char *path, const sl_batch *b,
			  const sl_options *opts, sl_err *err);

/* The part-file extension Spark gives this writer's files:
 * "snappy.parquet", "zstd.parquet", "gz.parquet", or "parquet" when
 * uncompressed (a bad codec gives "parquet"; the writer reports it). */
const char *sl_parquet_ext(const sl_options *opts);

/* ---- reading ---- */

typedef struct sl_parquet_file sl_parquet_file;

/* Open a file: checks the magic and decodes the footer, reading only
 * those; reads later read only the column chunks they decode (the handle
 * keeps the file open until _free).  Errors name path. */
sl_parquet_file *sl_parquet_open(const char *path, sl_err *err);
/* The same over bytes in memory (borrowed: they must outlive the handle);
 * name is used in error messages. */
sl_parquet_file *sl_parquet_open_buf(const char *name, const void *data,
				     size_t len, sl_err *err);
void sl_parquet_file_free(sl_parquet_file *f);

/* The file's schema mapped to engine types (borrowed; take a reference to
 * keep it), its rows and row groups. */
sl_type *sl_parquet_file_schema(const sl_parquet_file *f);
int64_t sl_parquet_file_rows(const sl_parquet_file *f);
int sl_parquet_file_row_groups(const sl_parquet_file *f);
int64_t sl_parquet_row_group_rows(const sl_parquet_file *f, int rg);

/* Rows of row group rg as a batch of `schema` (borrowed; NULL means the
 * file's schema): only the columns schema names are decoded (projection,
 * names matched case-insensitively as Spark's resolver); a column the
 * file lacks is all NULL, as Spark reads an older file of a wider table.
 * A column whose type differs from the file's is an error. */
sl_batch *sl_parquet_read_row_group(sl_parquet_file *f, int rg, sl_type *schema,
				    sl_err *err);
/* Every row group, concatenated. */
sl_batch *sl_parquet_read_all(sl_parquet_file *f, sl_type *schema, sl_err *err);

/* fileformat's shapes: a whole file as one batch (schema NULL: the
 * file's), and the schema of a list of files (the first file's footer, as
 * Spark without mergeSchema; Spark's sentence when there is none).  opts
 * (may be NULL): ignoreCorruptFiles=true, as Spark's, skips a file that
 * is not valid Parquet (it reads as no rows; inference takes the first
 * good file).  A missing file is an error either way. */
sl_batch *sl_parquet_read_file(const char *path, sl_type *schema,
			       const sl_options *opts, sl_err *err);
/* The same, telling bad (may be NULL) of a file skipped as corrupt
 * (reason corrupt_file, line 0, why: the reader's error; badrec.h). */
sl_batch *sl_parquet_read_file_bad(const char *path, sl_type *schema,
				   const sl_options *opts,
				   const sl_format_bad *bad, sl_err *err);
sl_type *sl_parquet_infer(char *const *files, int nfiles,
			  const sl_options *opts, sl_err *err);

#endif
