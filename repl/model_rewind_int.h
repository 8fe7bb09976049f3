/*
 * model_rewind_int: the parts of the rewound screen (model_rewind.c, the
 * screen and the timeline; model_rewind_state.c, the stateful operators'
 * rows).  Private to the model.
 */
#ifndef SL_MODEL_REWIND_INT_H
#define SL_MODEL_REWIND_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "driver/state_read.h"

/* The operators' state of one checkpoint, read for a replay from batch
 * b0 (the state before it, the change feed from it to the last
 * committed batch), with the Row texts made on the way: kept by the
 * rewound screen so that a step replays kept texts (see the file's
 * comment). */
typedef struct rw_state rw_state;

/* Read rd's operators (rd and dir borrowed; n: the batch shown, which a
 * checkpoint without a readable change feed shows alone).  NULL only
 * when out of memory; what could not be read is a note on the
 * Checkpoint pane. */
rw_state *rw_state_new(sl_state_read *rd, const char *dir, int64_t b0,
		       int64_t n, int64_t last);
/* Whether s (may be NULL) serves a replay of dir from b0 to n with last
 * the last committed batch. */
bool rw_state_fits(const rw_state *s, const char *dir, int64_t b0, int64_t n,
		   int64_t last);
void rw_state_free(rw_state *s);

/* A replay into snap (borrowed until rw_state_end) up to batch n: the
 * notes go on snap's Checkpoint pane now; then per batch id, in order,
 * rw_state_base before its BATCH_START (the rows of the operators whose
 * replay starts there) and rw_state_changes after its OFFSETS. */
void rw_state_begin(rw_state *s, sl_model *m, model_query *snap, int64_t n,
		    bool append, bool evicts);
void rw_state_base(rw_state *s, int64_t id, int64_t ts);
/* wm_us: the watermark batch id ran with (offsets/id's), which closed
 * sessions. */
void rw_state_changes(rw_state *s, int64_t id, int64_t ts, int64_t wm_us);
/* The rows the operators hold so far (numRowsTotal). */
int64_t rw_state_rows(const rw_state *s);
void rw_state_end(rw_state *s);

#endif
