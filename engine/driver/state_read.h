/*
 * state_read: reading a checkpoint's state as rows, Spark 4.0's state data
 * source (spark.read.format("statestore"), experimental there) and its
 * state-metadata source (format("state-metadata")).  lessons/ and the
 * workbench's rewind read the past through it; lua/reader.c binds it.
 *
 * A reader opens a checkpoint read-only (sl_ckpt_open_ro: no lock, nothing
 * written, safe beside a running query), lists the committed batches
 * (commits/N) and the stateful operators (state/<op>/), and reads operator
 * op's store at batch B as state version B + 1 (Spark: a batch's state
 * version is batchId + 1), decoded into typed rows:
 *
 *   key STRUCT, value STRUCT, partition_id INT      (one row per entry)
 *   batch_id BIGINT, change_type STRING, key, value, partition_id
 *                                                   (the change feed)
 *
 * key and value are typed from the schema the query wrote at start in
 * Spark's places (state/<op>/0/_metadata/schema: key and value schema;
 * state/<op>/_metadata/metadata: operator name and store), so the window
 * struct and group columns make the key of an aggregation and its
 * aggregation buffers the value, named as Spark names them (count, sum,
 * max, ...).  With joinSide the rows are that side's held input rows
 * (its columns, then partition_id), as Spark's.  Rows come sorted by key
 * (the change feed by batch, then key), so every listing is deterministic.
 *
 * Options and errors follow Spark's StateSourceOptions and
 * StateDataSourceErrors, one line each, naming the option: a batch that
 * is not committed, or whose state files retention already purged; an
 * operator or store that does not exist; a folder that is not a
 * checkpoint; conflicting options.
 *
 * Ownership: the reader owns its checkpoint handle; strings and infos
 * it hands out are borrowed until sl_state_read_free; batches returned
 * are new references.  Never prints, never writes.
 */
#ifndef SL_STATE_READ_H
#define SL_STATE_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "core/batch.h"
#include "core/err.h"
#include "core/options.h"

typedef struct sl_state_read sl_state_read;

/* Open checkpoint dir read-only.  SL_ECHECKPOINT with Spark's sentence
 * when dir does not exist or holds neither offsets/ nor commits/ nor
 * state/ ("not a streaming checkpoint"). */
sl_state_read *sl_state_read_open(const char *dir, sl_err *err);
void sl_state_read_free(sl_state_read *r);
const char *sl_state_read_dir(const sl_state_read *r);

/* The last committed batch (commits/N), -1 when none; the oldest batch
 * whose offsets and commit retention still keeps, -1 when none. */
int64_t sl_state_read_last_batch(const sl_state_read *r);
int64_t sl_state_read_first_batch(const sl_state_read *r);

/* One stateful operator of the checkpoint (a row of state-metadata). */
typedef struct sl_state_opinfo {
	int operator_id;
	const char *operator_name;    /* "stateStoreSave", "dedupe",
				      "symmetricHashJoin", ...; "unknown"
				      when the checkpoint does not say */
	const char *store_name;       /* "default" */
	int num_partitions;           /* 1: streamlab runs one partition */
	int64_t min_batch, max_batch; /* committed batches whose state is
					 readable, -1 when none */
	bool has_schema;              /* key/value schema recorded */
	const char *output_mode;      /* "Append", "Update", "Complete"
					 as the query recorded it with the
					 schema; NULL when it did not
					 (Spark's checkpoint never does) */
} sl_state_opinfo;
/* Operators in id order. */
int sl_state_read_nops(const sl_state_read *r);
const sl_state_opinfo *sl_state_read_op(const sl_state_read *r, int i);
/* format("state-metadata"): operatorId INT, operatorName STRING,
 * stateStoreName STRING, numPartitions INT, minBatchId BIGINT,
 * maxBatchId BIGINT; one row per operator (new reference). */
sl_batch *sl_state_read_metadata(sl_state_read *r, sl_err *err);

typedef struct sl_state_read_opts {
	int64_t batch_id;                 /* -1: the last committed */
	int operator_id;                  /* 0 */
	char store_name[64];              /* "default" */
	int join_side;                    /* -1 none, 0 left, 1 right */
	bool change_feed;                 /* readChangeFeed */
	int64_t change_start, change_end; /* -1: unset (end: last
					     committed) */
	bool results; /* not Spark's, no string option: an aggregation's
			 value as the aggregates' results the query
			 emitted (state_codec.h result_type) in place of
			 its buffers; the workbench's rewound panes */
} sl_state_read_opts;
void sl_state_read_opts_init(sl_state_read_opts *o);
/* Spark's options from strings (case-insensitive names: batchId,
 * operatorId, storeName, joinSide, readChangeFeed, changeStartBatchId,
 * changeEndBatchId; "path" is ignored here).  An unknown name or a bad
 * value is SL_EINVAL naming the option (Spark ignores unknown options, so
 * a misspelt batchId silently reads the last batch there: a deliberate
 * deviation).  Cross-option checks (conflicts, required options) happen
 * in sl_state_read_rows, as Spark's.  snapshotStartBatchId and
 * snapshotPartitionId (Spark 4.0) are not supported: unknown here. */
int sl_state_read_opts_set(sl_state_read_opts *o, const char *name,
			   const char *value, sl_err *err);
/* Every option of opts (a reader's option() map) through _opts_set. */
int sl_state_read_opts_from(sl_state_read_opts *o, const sl_options *opts,
			    sl_err *err);

/* format("statestore"): the rows described above (new reference). */
sl_batch *sl_state_read_rows(sl_state_read *r, const sl_state_read_opts *o,
			     sl_err *err);

#endif
