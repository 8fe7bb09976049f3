/*
 * lesson: finding a lesson and the Lua chunk that runs it, shared by
 * `streamlab lesson N|FILE [--check]` (main.c) and the REPL's `:lesson N`
 * (cmd.c).  The lessons themselves are Lua (lessons/NN-name.lua) written
 * with the helper lessons/lib/lesson.lua; see lessons/README.md.
 */
#ifndef SL_LESSON_H
#define SL_LESSON_H

#include <stddef.h>

#include "core/buf.h"

/* The lesson `which` names: digits N -> the first (sorted) file
 * NN-*.lua of the lessons folder beside the program (never the current
 * directory: $STREAMLAB_LESSONS, <program dir>/lessons, ../lessons,
 * ../share/streamlab/lessons); anything else is a file path that must
 * exist (the current directory only so, explicitly).  Returns a malloc'd path, or NULL with a one-line
 * reason in msg ("no lesson 42 (lessons/42-*.lua)..."). */
char *sl_lesson_find(const char *which, char *msg, size_t msgsz);

/* Append to out the chunk that runs the lesson at path (borrowed) in mode
 * "check" (headless, TAP, an error when a check fails), "screen" (the
 * workbench) or "plain" (stdout, Enter to go on): it sets the mode, puts
 * the lesson's lib/ first on package.path, runs the file and then the
 * helper's finish(); a stop at a pause (q) ends it with the helper's
 * stopped() line instead of an error, any other error is raised again. */
void sl_lesson_chunk(const char *path, const char *mode, sl_buf *out);

#endif
