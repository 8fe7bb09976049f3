/*
 * partition: Hive-style partition directories (`col=value/`) as Spark
 * writes them (partitionBy on df.write and writeStream) and discovers them
 * (spark.read and the file stream source; Spark's PartitioningUtils).
 *
 * Writing: the partition columns travel as the writer option
 * "__partition_columns", a JSON array of names (Spark's
 * DataSourceUtils.PARTITIONING_COLUMNS_KEY); each distinct combination of
 * their values becomes a directory path "a=1/b=x" (names and values
 * escaped as ExternalCatalogUtils.escapePathName, a null or empty value as
 * __HIVE_DEFAULT_PARTITION__), and the files hold the other columns only.
 *
 * Discovery: a file's directories between the base path and the file are
 * read from the innermost outwards (parsePartition): each `name=value`
 * gives a column, the first directory without '=' after one with stops.
 * Types are inferred per value as Spark 3.5 does (Integer.parseInt, then
 * Long.parseLong, then Double.parseDouble, then a timestamp
 * "yyyy-MM-dd HH:mm:ss[.S]", else string; __HIVE_DEFAULT_PARTITION__ is
 * null) and widened across files (INT < BIGINT < DOUBLE; any other mix,
 * and all-null, is STRING).  Deviations (the engine has no DATE nor
 * DECIMAL type): values Spark types DateType ("2024-01-31") or
 * DecimalType (integers beyond BIGINT, up to 38 digits) are STRING here,
 * their text kept exactly.  A user BOOLEAN is Java's parseBoolean ("true"
 * in any case, anything else false).  A user schema that names a partition column gives its
 * type (a value that does not convert: Spark's "Failed to cast value `x`
 * to `IntegerType` for partition column `p`").  When some files have
 * partition values, files without any (directly in the base directory)
 * are not read, as Spark's file index leaves them out.  Option basePath
 * sets the base (it must be a directory containing the path: Spark's
 * sentences); without it the base is the path itself (its parent when the
 * path is a file).  recursiveFileLookup=true: no partition inference.
 *
 * Never prints.  Errors name the file or directory.
 */
#ifndef SL_PARTITION_H
#define SL_PARTITION_H

#include <stdbool.h>

#include "core/batch.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/options.h"
#include "core/type.h"

#define SL_PART_OPTION "__partition_columns"
#define SL_PART_DEFAULT "__HIVE_DEFAULT_PARTITION__"

/* Spark's escapePathName: %XX for the bytes 0x01-0x1f and 0x7f and for
 * the characters " # % ' * / : = ? \\ { [ ] ^ (non-Windows set). */
void sl_part_escape(const char *s, size_t n, sl_buf *out);
/* Spark's unescapePathName; malloc'd (NULL when out of memory). */
char *sl_part_unescape(const char *s, size_t n);

/* ---- writing ---- */

/* The partition columns the writer option names: *cols a malloc'd array of
 * malloc'd names (NULL, 0 when the option is absent).  SL_EINVAL when the
 * option is not a JSON array of strings. */
int sl_part_cols_get(const sl_options *opts, char ***cols, int *n,
		     sl_err *err);
void sl_part_cols_free(char **cols, int n);
/* The option's value for names (a JSON array), malloc'd. */
char *sl_part_cols_json(const char *const *names, int n);
/* Spark's checks of partitionBy against the schema: every column exists
 * ("Partition column `x` not found in schema struct<...>"), is atomic
 * ("Cannot use STRUCT<...> for partition column"), not all columns
 * ("Cannot use all columns for partition columns"). */
int sl_part_check(const sl_type *schema, char *const *cols, int n,
		  sl_err *err);

typedef struct sl_part_group {
	char *subdir;   /* "a=1/b=x", malloc'd */
	sl_batch *data; /* the group's rows without the partition columns */
} sl_part_group;
/* Split b by the values of cols (checked with sl_part_check first):
 * groups sorted by subdir, rows in input order. */
int sl_part_split(const sl_batch *b, char *const *cols, int n,
		  sl_part_group **groups, int *ngroups, sl_err *err);
void sl_part_groups_free(sl_part_group *g, int n);

/* ---- discovery ---- */

typedef struct sl_part_spec sl_part_spec;

/* Discover the partition columns of files (as sl_format_list gives them)
 * read from path with options opts (basePath, recursiveFileLookup) and the
 * user schema user (may be NULL).  Files left out (see above) are removed
 * from *files / *nfiles.  Returns a spec (with zero columns when the data
 * is not partitioned), NULL on error. */
sl_part_spec *sl_part_discover(const char *path, char **files, int *nfiles,
			       const sl_type *user, const sl_options *opts,
			       sl_err *err);
void sl_part_spec_free(sl_part_spec *ps);
/* A spec with known partition columns parts (the file stream source's,
 * fixed at load()), base from path and opts as for discovery. */
sl_part_spec *sl_part_spec_new(const char *path, const sl_options *opts,
			       const sl_type *parts, sl_err *err);
/* The partition columns (STRUCT; borrowed). */
sl_type *sl_part_schema(const sl_part_spec *ps);
/* data ++ parts, as Spark's mergeDataAndPartitionSchema (new): a data
 * column named like a partition column (an inferred schema of files that
 * also hold it) keeps its place with the partition type; the other
 * partition columns follow the data columns. */
sl_type *sl_part_full_schema(const sl_type *data, const sl_type *parts);
/* user minus the partition columns (new reference; user itself when the
 * data is not partitioned). */
sl_type *sl_part_data_schema(const sl_part_spec *ps, sl_type *user);
/* Reading one file into rows of schema full (data ++ partition columns,
 * or a user schema): the columns the file's directories name
 * (`name=value`, matched case-insensitively) and the spec's partition
 * columns come from its path (a partition column the path lacks is null),
 * the others from the file.  _file_schema gives the schema to read the
 * file with (new reference), _assemble the rows of full from what was
 * read (new batch; b borrowed).  As Spark's file source, whose every
 * batch infers partitions from its own files' paths: a user column named
 * like a directory key takes the directory's value. */
sl_type *sl_part_file_schema(const sl_part_spec *ps, const char *file,
			     sl_type *full, sl_err *err);
sl_batch *sl_part_assemble(const sl_part_spec *ps, const char *file,
			   const sl_batch *b, sl_type *full, sl_err *err);

#endif
