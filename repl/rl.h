/*
 * rl: the interactive REPL on a terminal, driven by GNU readline's callback
 * ("alternate") interface.  The only file of the project that includes
 * readline.
 *
 * The loop is split so a later ncurses screen can own the terminal:
 *   sl_rl_open      readline settings, history file, first prompt
 *   sl_rl_feed      one input byte is ready: let readline read it; a
 *                   completed line is evaluated through the console
 *   sl_rl_interrupt Ctrl-C while idle: drop the line (and any pending
 *                   continuation), print ^C, show a fresh prompt
 *   sl_rl_close     write history, restore the terminal
 * sl_rl_run is the plain-terminal loop over them (pselect on stdin).
 *
 * History: whole chunks (multi-line ones as one entry) in
 * $HOME/.streamlab_history, at most 1000, appended after each entry.
 * Completion: Lua names via sl_console_complete, ':' commands at the start
 * of a line.
 */
#ifndef SL_RL_H
#define SL_RL_H

#include <stdbool.h>

#include "console.h"

typedef struct sl_rl sl_rl;

/* Set up readline for c (borrowed, must outlive the sl_rl); histfile may be
 * NULL (no history file).  Installs the first prompt.  One at a time. */
sl_rl *sl_rl_open(sl_console *c, const char *histfile);
/* A byte is ready on readline's input.  Returns false when the session
 * ended (Ctrl-D, :quit, os.exit): see sl_rl_exit_code. */
bool sl_rl_feed(sl_rl *r);
/* Ctrl-C while idle. */
void sl_rl_interrupt(sl_rl *r);
int sl_rl_exit_code(const sl_rl *r);
/* Remove the prompt, trim the history file, free; accepts NULL. */
void sl_rl_close(sl_rl *r);

/* Welcome, then read-eval-print on stdin/stdout until the session ends;
 * returns the exit status (0 for Ctrl-D and :quit). */
int sl_rl_run(sl_console *c);

#endif
