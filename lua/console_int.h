/*
 * console_int: what the files of the console module share (console.c,
 * console_input.c).  Never included from outside lua/console*.c.
 *
 * console_input.c reads the text of an input the way the REPL needs to
 * before Lua compiles it: a small Lua lexer (strings, long brackets and
 * comments skipped as Lua skips them), the rewrite of top-level `local`
 * declarations into session variables, and the two shapes the
 * continuation rule looks for (see console.c).  It never runs Lua.
 */
#ifndef SL_CONSOLE_INT_H
#define SL_CONSOLE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Does line start (after blanks) a continuation of the input before it:
 * ':' Name directly followed by '(' '{' or a string ("'[[), i.e. a method
 * call, or '.' Name (a field)?  A ':' command (":step", ":crash after-sink")
 * never has those right after its name. */
bool sl_console_input_continues(const char *line);

/* Append text to out with every `local` declaration at the chunk's top
 * level (outside any function, do, if, while, for, repeat) turned into an
 * assignment of the same names: `local x = 1` -> `x = 1`, `local x` ->
 * `x = nil`, `local function f` -> `function f`.  Declarations with an
 * attribute (<const>, <close>) stay local.  Lines and columns before each
 * rewrite are kept, so messages point at the same place.  Returns the
 * number of declarations rewritten. */
int sl_console_input_globalize(const char *text, size_t len, sl_buf *out);

/* Is text one single-target assignment, `[local] Name{.Name} = rhs`?  Then
 * *name_at and *name_len locate the target, *rhs is the first byte after the
 * '='.  (Whether rhs is one expression is left to the compiler.) */
bool sl_console_input_assignment(const char *text, size_t len, size_t *name_at,
				 size_t *name_len, size_t *rhs);

#endif
