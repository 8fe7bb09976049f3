/*
 * console: the Lua evaluation core shared by every way of talking to
 * streamlab: the readline REPL, plain line mode, `streamlab run FILE`,
 * `-e CHUNK`, and later the ncurses workbench.  It knows nothing about
 * terminals: text leaves through one write callback, lines come in as C
 * strings.
 *
 * Behaviour is lua.c's (lua/lua.c of Lua 5.4), plus:
 *  - a line is tried as "return <chunk>" first and its results are
 *    pretty-printed (strings quoted, tables with sorted keys, depth and size
 *    limits), tab-separated on one line;
 *  - an incomplete chunk (syntax error ending in "<eof>") is buffered and
 *    SL_CONSOLE_MORE asks the caller for a continuation line;
 *  - errors are written as "error: <message>" followed by a traceback, to
 *    the SL_CONSOLE_ERR stream; the state survives every error;
 *  - `print` writes through the callback, `os.exit` unwinds Lua cleanly and
 *    reports SL_CONSOLE_EXIT instead of killing the process;
 *  - Ctrl-C (SIGINT) while Lua runs raises "interrupted!" (lua.c's lstop
 *    hook).  The handler is installed only for the duration of a call; when
 *    idle the previous SIGINT disposition is in force (the REPL's own).
 *
 * When the environment variable STREAMLAB_TRANSCRIPT names a file, every
 * byte the console writes (results, print, errors, console sinks) is also
 * appended there: a record of the session, whatever the screen shows (the
 * TUI tests read it).
 *
 * Ownership: an sl_console owns its lua_State.  Strings passed in are
 * borrowed for the call.  One console may be running Lua at a time per
 * process (the SIGINT handler targets it).
 */
#ifndef SL_CONSOLE_H
#define SL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#include <lua.h>

#include "core/buf.h"

typedef struct sl_console sl_console;

/* The two output streams: results and print() go to OUT, errors to ERR.
 * A mode decides where each goes (plain mode sends both to stdout). */
enum { SL_CONSOLE_OUT = 1, SL_CONSOLE_ERR = 2 };

/* Receives every byte the console writes; s is not NUL-terminated. */
typedef void (*sl_console_write_fn)(void *ud, int stream, const char *s,
				    size_t n);

/* Status of an evaluation. */
enum {
	SL_CONSOLE_OK = 0,    /* ran; results (if any) were written */
	SL_CONSOLE_MORE = 1,  /* chunk incomplete: feed a continuation line */
	SL_CONSOLE_ERROR = 2, /* syntax or runtime error, already written */
	SL_CONSOLE_EXIT = 3   /* os.exit was called: sl_console_exit_code */
};

/* Output limits of the pretty-printer (a huge table never floods). */
#define SL_CONSOLE_MAX_DEPTH 4     /* deeper tables print as {...} */
#define SL_CONSOLE_MAX_ITEMS 100   /* entries shown per table */
#define SL_CONSOLE_MAX_BYTES 16384 /* per printed result line */

/* A new console: a lua_State with the standard libraries, the streamlab
 * globals (sl_lua_open), print and os.exit replaced.  Output goes to
 * stdout/stderr until sl_console_set_writer.  NULL when out of memory or
 * when sl_lua_open failed (the reason is written to stderr). */
sl_console *sl_console_new(void);
/* Close the state (running __gc) and free; accepts NULL. */
void sl_console_free(sl_console *c);

void sl_console_set_writer(sl_console *c, sl_console_write_fn fn, void *ud);
/* The console's state (borrowed; valid until sl_console_free). */
lua_State *sl_console_state(sl_console *c);

/* Feed one input line (without its newline; may itself hold newlines, as a
 * multi-line history entry or a bracketed paste does) to the chunk being
 * built.  Returns SL_CONSOLE_MORE while the chunk is incomplete, otherwise
 * the status of running it.  The REPL's input rules, the same in every
 * mode (README.md "Typing and pasting", :help input):
 *  - a complete input is numbered and named "[N]" (errors read [12]:3:,
 *    line 3 of input 12); a blank line is no input;
 *  - top-level `local` declarations become session variables (globals),
 *    so `local total = 0` lasts to the next line (unlike lua.c);
 *  - a line starting with ':' Name '(' (or '{' or a string) or '.' Name
 *    continues the input before it (the last numbered one that ran):
 *    it applies to that input's value, `name = name<line>` after an
 *    assignment `[local] name = expr`, `(value)<line>` after an
 *    expression.  The input is never run twice.  The joined text becomes
 *    input N (chunk, history).  Refused with a one-line error when there
 *    is nothing to continue or the line would bind to part of the
 *    expression only. */
int sl_console_eval_line(sl_console *c, const char *line);
/* True while an incomplete chunk is buffered. */
bool sl_console_pending(const sl_console *c);
/* Is line a continuation line by its shape (see eval_line)?  A ':' line
 * that is one is not a command. */
bool sl_console_continues(const sl_console *c, const char *line);
/* A ':' command ran: from now on there is nothing to continue. */
void sl_console_forget(sl_console *c);
/* Drop the buffered incomplete chunk (Ctrl-C on a continuation line). */
void sl_console_cancel(sl_console *c);
/* The last complete chunk eval_line ran or rejected, for history ("" if
 * none).  Borrowed; valid until the next eval_line. */
const char *sl_console_chunk(const sl_console *c);
/* True when that chunk is the previous history entry extended by a
 * continuation (the history should replace that entry). */
bool sl_console_chunk_extends(const sl_console *c);
/* The text of input number no (all its lines, continuations joined), or
 * NULL when it is unknown or too old.  Borrowed until the next eval. */
const char *sl_console_input(const sl_console *c, int no);
/* End of input: if a chunk is pending, write its syntax error ("... near
 * <eof>") and return SL_CONSOLE_ERROR, else SL_CONSOLE_OK. */
int sl_console_finish(sl_console *c);

/* Run chunk (statements, as given) under chunkname (e.g. "=(command)");
 * values it returns are pretty-printed.  For the program's own chunks
 * (commands, lessons): no rewriting, nothing to continue afterwards. */
int sl_console_eval_chunk(sl_console *c, const char *chunk,
			  const char *chunkname);
/* Run a complete input the REPL's way under chunkname (`-e CHUNK`):
 * expression first, then statements; top-level locals become session
 * variables; values are pretty-printed. */
int sl_console_eval_input(sl_console *c, const char *chunk,
			  const char *chunkname);

/* A wait in C that may last (awaitTermination on the real clock) calls
 * sl_console_idle between its naps; the owner of the screen registers fn
 * to keep the panes drawn meanwhile.  fn must not run Lua.  NULL: none. */
typedef void (*sl_console_idle_fn)(void *ud);
void sl_console_set_idle(sl_console *c, sl_console_idle_fn fn, void *ud);
void sl_console_idle(lua_State *L);

/* True when Ctrl-C has been pressed during the current call into Lua
 * (lua_State L of a console): a C function that waits (awaitTermination)
 * should return, and Lua raises "interrupted!" right after. */
bool sl_console_interrupted(lua_State *L);

/* Run the script argv[script] headless, lua.c style: the global `arg` holds
 * argv[script] at 0, the script's arguments at 1.., the words before it at
 * negative indices; the arguments are also passed as `...`.  The script's
 * directory and its lib/ go first on package.path.  Chunk name is
 * "=<path as given>".  Returns OK, ERROR or EXIT. */
int sl_console_run_file(sl_console *c, int argc, char **argv, int script);

/* The code passed to os.exit (0 for true/none, 1 for false). */
int sl_console_exit_code(const sl_console *c);

/* Write text to the console that owns L (any thread of its state), or to
 * stdout/stderr when L belongs to no console.  For Lua bindings. */
void sl_console_write(lua_State *L, int stream, const char *s, size_t n);

/* Append the pretty-printed form of the value at idx to out (sorted keys,
 * depth/cycle/size limits, __tostring honoured).  May raise a Lua error
 * (a __tostring that fails); out then holds a partial text. */
void sl_console_pretty(lua_State *L, int idx, sl_buf *out);

/* Tab completion of word, the text before the cursor from the start of a
 * name path ("stri", "spark.crea", "df:sh").  Calls add(ud, candidate) for
 * each full candidate ("spark.createDataFrame"), sorted and unique.  Never
 * runs Lua code: only a plain dotted name path is looked up, with raw reads
 * and __index *tables*; after ':' only functions are offered.  Returns the
 * number of candidates. */
int sl_console_complete(sl_console *c, const char *word,
			void (*add)(void *ud, const char *cand), void *ud);
/* Tab completion in the SQL mode (repl/sqlmode.h): word is the text
 * before the cursor from the start of a name ("sel", "wo", "words.co"),
 * context the statement before it (borrowed; NULL for none).  Candidates
 * are SQL keywords (in the word's case), the session's tables and views,
 * their columns (those the context names, else all), F's functions;
 * after "table." that table's columns.  Matching ignores case.  Sorted,
 * unique; never runs Lua code.  Returns the number of candidates. */
int sl_console_complete_sql(sl_console *c, const char *word,
			    const char *context,
			    void (*add)(void *ud, const char *cand), void *ud);

#endif
