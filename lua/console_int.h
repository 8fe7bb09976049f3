/*
 * console_int: what the files of the console module share (console.c,
 * console_cont.c, console_input.c).  Never included from outside
 * lua/console*.c.
 *
 * console.c evaluates; console_cont.c is the continuation rule (a line
 * starting with ':name(' or '.name' applied to the input above it);
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

#include <stdio.h>

#include <lua.h>

#include "core/buf.h"
#include "console.h"

/* How many numbered inputs keep their text (for the line an error names). */
#define INPUT_KEEP 256

/* What the last input that ran can be continued as. */
enum { PREV_NONE, PREV_EXPR, PREV_STMT };

struct sl_lua_mem; /* console.c: the allocator's count and limit */

struct sl_console {
	lua_State *L;
	struct sl_lua_mem *mem; /* L's allocator state, owned */
	sl_console_write_fn write;
	void *write_ud;
	sl_buf chunk; /* the chunk being built from lines */
	sl_buf last;  /* the last complete chunk, for history */
	sl_buf out;   /* scratch for results and messages */
	bool pending;
	bool quiet;   /* the error is an interrupt: one line, no "error: " */
	bool exiting; /* os.exit was called */
	int exit_code;
	/* numbered inputs: chunk "[12]" is input 12 */
	int input_no;             /* the newest number given */
	char *inputs[INPUT_KEEP]; /* texts by number % INPUT_KEEP, owned */
	/* the continuation rule (console_cont.c) */
	bool cont;        /* the chunk being built continues prev */
	bool extends;     /* last is prev's history entry, extended */
	sl_buf prev;      /* the last input that ran, with its continuations */
	int prev_no;      /* its number */
	int prev_kind;    /* PREV_* */
	int prev_ref;     /* PREV_EXPR: its first value (registry), or NOREF */
	bool prev_cmd;    /* PREV_NONE because a command or lesson ran */
	FILE *transcript; /* $STREAMLAB_TRANSCRIPT: a copy of all output */
	sl_console_idle_fn idle;
	void *idle_ud;
};

/* Write the error on the top of the stack as "error: ..." (with the line
 * it names, when not in view) and pop it. */
void sl_console_report(sl_console *c);
/* Does the message on the stack top end in "<eof>" (an unfinished chunk)? */
bool sl_console_ends_in_eof(lua_State *L);
/* Keep the text of input no (copied) for the lines errors name. */
void sl_console_keep_input(sl_console *c, int no, const char *text, size_t n);
/* Call the function on the stack below its narg arguments, print what it
 * returns; *ran when it returned, *ref its first value (keep) or NOREF. */
int sl_console_run_input(sl_console *c, int narg, bool keep, int *ref,
			 bool *ran);

/* console_cont.c: the chunk buffer holds a continuation line (c->cont):
 * evaluate it (OK, MORE, ERROR, EXIT); at end of input, its error. */
int sl_console_eval_cont(sl_console *c);
int sl_console_cont_finish(sl_console *c);

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
