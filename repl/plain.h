/*
 * plain: line mode, for pipes, scripts and tests (`streamlab --plain`, or
 * stdin not a terminal).  No prompts, no readline, no curses: lines come
 * from getline, and results, print() output and errors all go to stdout in
 * the order they happen, so a pipe sees them interleaved correctly.
 *
 * Exit status: 0 at end of input; the os.exit code when a chunk calls
 * os.exit or :quit (0); 1 when input ends inside an incomplete chunk (its
 * "... near <eof>" syntax error is printed first).  A Lua error does not end
 * the session and does not change the exit status.
 */
#ifndef SL_PLAIN_H
#define SL_PLAIN_H

#include <stdio.h>

#include "console.h"

/* Read and evaluate in (borrowed) until EOF; returns the exit status. */
int sl_plain_run(sl_console *c, FILE *in);

#endif
