/*
 * source_int.h: internals shared by the files of the source module
 * (source.c, source_memory.c, source_rate.c, source_socket.c,
 * source_file.c).  Never included from outside the module.
 *
 * source.c owns descriptions and dispatch; each source_<kind>.c validates
 * its options into a small config struct (at load(), so bad options fail
 * early, naming the option) and opens its instances from that config.
 */
#ifndef SL_SOURCE_INT_H
#define SL_SOURCE_INT_H

#include "sources/source.h"

/* Offsets are JSON numbers for memory, rate and socket.  NULL -> def.
 * Errors name the source: "rate: bad offset 'x'". */
int sl_source_offset_i64(const char *off, int64_t def, int64_t *out,
			 const char *who, sl_err *err);
/* A malloc'd decimal string of v, or NULL (sets SL_ENOMEM). */
char *sl_source_offset_fmt(int64_t v, sl_err *err);
/* A new source shell with ops, a reference to schema and impl. */
sl_source *sl_source_shell(const struct sl_source_ops *ops, sl_type *schema,
			   bool replayable, void *impl, sl_err *err);

/* Java's JavaUtils.timeStringAs ("50s", "100ms", "7d", "250us", "5m",
 * "2h", a bare number in unit_us) or else our interval syntax ("5
 * seconds").  Returns false if s is neither. */
bool sl_source_time_string(const char *s, int64_t unit_us, int64_t *us);
/* sl_fs_mkdirs with "source: " before the message and SL_ECHECKPOINT. */
int sl_source_mkdirs(const char *dir, sl_err *err);

/* ---- memory (source_memory.c) ---- */
sl_source *sl_source_memory_open(sl_memstream *ms, sl_err *err);
/* "MemoryStream[value#1]" */
void sl_memstream_describe(const sl_memstream *m, sl_buf *out);

/* ---- rate (source_rate.c) ---- */
typedef struct sl_rate_conf {
	int64_t rows_per_sec;
	int64_t ramp_up_sec;
	int64_t num_partitions;
	bool partitions_set; /* Spark prints "numPartitions=default" if not */
} sl_rate_conf;
int sl_rate_conf_parse(const sl_options *opts, sl_rate_conf *conf, sl_err *err);
sl_type *sl_rate_schema(sl_err *err);
/* metadir (may be NULL) keeps the creation time across restarts. */
sl_source *sl_source_rate_open(const sl_rate_conf *conf, sl_clock *clock,
			       const char *metadir, sl_err *err);
/* Spark's RateStreamProvider.valueAtSecond. */
int64_t sl_rate_value_at(int64_t sec, int64_t rows_per_sec,
			 int64_t ramp_up_sec);

/* ---- rate-micro-batch (source_rate_batch.c) ---- */
typedef struct sl_rate_batch_conf {
	int64_t rows_per_batch;
	int64_t num_partitions;
	int64_t start_ms;
	int64_t advance_ms;
} sl_rate_batch_conf;
/* Spark's checks and sentences ("Invalid value '0'. The option
 * 'rowsPerBatch' must be positive"). */
int sl_rate_batch_conf_parse(const sl_options *opts, sl_rate_batch_conf *conf,
			     sl_err *err);
sl_source *sl_source_rate_batch_open(const sl_rate_batch_conf *conf,
				     sl_err *err);

/* ---- socket (source_socket.c) ---- */
typedef struct sl_socket_conf {
	const char *host; /* borrowed from the description's options */
	const char *port;
	bool include_ts;
	size_t max_line; /* option maxLineBytes (fileformat.h) */
} sl_socket_conf;
int sl_socket_conf_parse(const sl_options *opts, sl_socket_conf *conf,
			 sl_err *err);
sl_type *sl_socket_schema(bool include_ts, sl_err *err);
sl_source *sl_source_socket_open(const sl_socket_conf *conf, sl_type *schema,
				 sl_clock *clock, sl_err *err);

/* ---- file directories (source_file.c) ---- */
typedef struct sl_file_conf {
	int64_t max_files; /* 0 = no limit */
	bool latest_first;
	bool name_only;
	int64_t max_age_us; /* default 7 days */
	int clean;	    /* cleanSource: SL_CLEAN_OFF/ARCHIVE/DELETE */
	const char *archive; /* sourceArchiveDir (borrowed from the options) */
	sl_type *parts; /* the partition columns (borrowed; NULL: none) */
} sl_file_conf;
enum { SL_CLEAN_OFF, SL_CLEAN_ARCHIVE, SL_CLEAN_DELETE };
int sl_file_conf_parse(const sl_options *opts, sl_file_conf *conf, sl_err *err);
/* format json/csv/text; path the directory; opts the reader options
 * (copied). */
sl_source *sl_source_file_open(const char *format, const char *path,
			       sl_type *schema, const sl_options *opts,
			       const sl_file_conf *conf, sl_clock *clock,
			       const char *metadir, sl_err *err);

/* ---- kafka (kafka_source.c) ---- */
/* Validate the options of format("kafka") (Spark's messages for the
 * subscribe strategies, unsupported kafka.* options, a user schema) and
 * give the fixed schema (new reference; with headers when includeHeaders). */
sl_type *sl_kafka_source_check(const sl_options *opts, sl_type *user_schema,
			       sl_err *err);
/* Open an instance: opts copied, schema referenced; metadir keeps the
 * starting offsets resolved at the first start (may be NULL). */
sl_source *sl_source_kafka_open(const sl_options *opts, sl_type *schema,
				sl_clock *clock, const char *metadir,
				sl_err *err);
/* Offsets lost to retention so far (failOnDataLoss=false), for tests and
 * progress. */
int64_t sl_source_kafka_lost(const sl_source *s);

#endif
