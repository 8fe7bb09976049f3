/*
 * sqlmode: the prompt's SQL mode (`:sql` ... `:lua`, issue 19 item 3) and
 * `streamlab sql` (item 4): SQL statements typed, or read from a file,
 * run through spark.sql as the learner could type it in Lua.
 *
 * Input rules, the same in the workbench, --line and --plain:
 *  - a statement ends at a ';' outside quotes ('...', "...", `...`) and
 *    comments (-- to the end of the line, bracketed ones, nested); until then each
 *    line continues it (the prompt says "  -> "), as psql, Flink's SQL
 *    client and DuckDB's shell read statements;
 *  - one line may hold several statements; they run in order and the
 *    first error drops the rest;
 *  - a ':' line is a command (:lua goes back to Lua, dropping an
 *    unfinished statement; :step, :tick ... as in Lua mode, and the
 *    unfinished statement waits meanwhile, as psql's query buffer waits
 *    across its backslash commands).
 *
 * What a statement does: spark.sql(text) gives a DataFrame.  A batch one
 * is shown whole (show(1000, false): the Output pane, and the pager when
 * taller than that; EXPLAIN prints its plan as text).  A streaming one
 * starts a query to the memory sink named sql_N (complete output mode
 * when the plan aggregates, else append), as Flink's SQL client's table
 * mode materialises a changing result: its table, rows sorted, is the
 * *live result* that the screen draws above the progress line and the line
 * modes print again after each batch.  One live result at a time (a new
 * streaming SELECT stops the previous one); Ctrl-C at the prompt stops it,
 * its last table stays in the Output pane, and the memory table sql_N
 * stays readable (SELECT * FROM sql_N).  The query is a query like any
 * other: the strip, the panes, :step, q:stop().
 *
 * Headless (sl_sqlmode_run_text): a streaming statement runs as far as the
 * data available now goes (processAllAvailable: on the manual clock, what
 * its sources hold), prints its table and stops.
 *
 * The Lua that runs a statement lives in package.loaded
 * ["streamlab.workbench"] (sql_run), as cmd.c keeps its query handles
 * there; errors are one line, "error: <Spark's message>" (no traceback:
 * the frames would be ours, not the learner's).
 *
 * One SQL mode per process (the console is one per process too).  Strings
 * passed in are borrowed for the call; strings returned are borrowed until
 * the next call into this module.
 */
#ifndef SL_SQLMODE_H
#define SL_SQLMODE_H

#include <stdbool.h>
#include <stdint.h>

#include "console.h"

/* Free what the mode holds (its buffers, the live query's reference);
 * before sl_console_free.  The mode is off afterwards. */
void sl_sqlmode_release(void);

/* Is the prompt in SQL mode? */
bool sl_sqlmode_on(void);
/* :sql (on) and :lua (off); an unfinished statement is dropped. */
void sl_sqlmode_set(bool on);
/* The prompt for the next line: "sql> ", or "  -> " inside a statement. */
const char *sl_sqlmode_prompt(void);
/* True while a statement is unfinished. */
bool sl_sqlmode_pending(void);
/* Drop the unfinished statement (Ctrl-C on a continuation line). */
void sl_sqlmode_cancel(void);
/* The unfinished statement's lines so far ("" if none), for completion. */
const char *sl_sqlmode_pending_text(void);

/* Feed one input line in SQL mode (see above).  SL_CONSOLE_MORE while a
 * statement is unfinished, else OK, ERROR (already written) or EXIT. */
int sl_sqlmode_line(sl_console *c, const char *line);
/* The text the last complete input consumed (for history; "" if none). */
const char *sl_sqlmode_chunk(void);

/* Run every statement of text (a file's or -e's) the headless way; where
 * names it in errors ("q.sql" gives "error: q.sql:7:14: <Spark's
 * message>", the file's line and column of the position Spark's message
 * gives relative to the statement, or "q.sql:5: " and the line the
 * statement starts on when it gives none; NULL: no location).  Typed
 * statements' errors keep Spark's (line N, pos P), counted from the line
 * the statement was typed on.  Stops at the first error.  OK, ERROR or
 * EXIT. */
int sl_sqlmode_run_text(sl_console *c, const char *text, const char *where);

/* ---- the live result ---- */

/* The live result's query name (sql_N), or NULL when there is none. */
const char *sl_sqlmode_live(void);
/* Its output mode ("complete" or "append"), or NULL. */
const char *sl_sqlmode_live_mode(void);
/* Its table now: the memory sink's rows, sorted, as show() draws them,
 * and the query's last batch id.  *changed says whether the batch moved
 * since the last call.  Borrowed; NULL when there is no live result. */
const char *sl_sqlmode_live_table(sl_console *c, int64_t *batch, bool *changed);
/* Notice a live query that stopped or failed by itself (its last table
 * and how it ended go to the output, and it is no longer live); with
 * print_batches (the line modes), also write the table again when a batch
 * moved it.  Never runs Lua, so safe from the screen's refresh. */
void sl_sqlmode_poll(sl_console *c, bool print_batches);
/* Ctrl-C: stop the live query (q:stop(), through Lua) and write its last
 * table.  False when there was none. */
bool sl_sqlmode_stop_live(sl_console *c);

#endif
