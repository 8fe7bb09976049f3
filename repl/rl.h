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
 * Inside the workbench screen (screen.c) readline owns no terminal: it
 * gets its bytes from sl_rl_feed_byte (ncurses read them), never prints
 * (rl_outstream is /dev/null, prep/deprep are no-ops, no signal handlers),
 * and the screen draws the input line from sl_rl_view.  The hooks tell the
 * screen when to redraw, what Tab found, which view keys were pressed, and
 * when Lua starts and stops running (so the panes keep updating).
 *
 * History: whole chunks (multi-line ones as one entry) in
 * $HOME/.streamlab_history, at most 1000, appended after each entry; a
 * continuation line (console.h) replaces the entry it extends, so a chain
 * typed line by line comes back as one.  A ':' line is a command unless
 * it is a continuation (':name(').
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

/* The screen's side of readline (all callbacks get ud). */
typedef struct sl_rl_hooks {
	void *ud;
	void (*redisplay)(void *ud);                /* the line changed */
	void (*matches)(void *ud, char **m, int n); /* Tab: n candidates */
	void (*key)(void *ud, const char *name);    /* "PgUp" "PgDn" "F2".. */
	void (*busy)(void *ud, bool running);       /* around evaluation */
	void (*echo)(void *ud, const char *text);   /* accepted input */
	int (*running)(void *ud);                   /* active queries */
} sl_rl_hooks;

/* As sl_rl_open, for the screen: hooks (copied) replace the terminal. */
sl_rl *sl_rl_open_screen(sl_console *c, const char *histfile,
			 const sl_rl_hooks *hooks);
/* The screen read one byte: readline edits with it (may evaluate a line).
 * A bracketed paste (ESC[200~ text ESC[201~; the screen turns the mode on)
 * goes into the line whole, newlines included, so it is one input; it is
 * accepted at once when the text ends in a newline.  Returns false when
 * the session ended. */
bool sl_rl_feed_byte(sl_rl *r, int byte);
/* What the input line shows: prompt, text (UTF-8) and the cursor as a
 * byte offset into text.  Borrowed until the next feed. */
void sl_rl_view(const sl_rl *r, const char **prompt, const char **text,
		int *point);
/* True while a "quit anyway? (y/n)" question is on the input line. */
bool sl_rl_asking(const sl_rl *r);

/* Welcome, then read-eval-print on stdin/stdout until the session ends;
 * returns the exit status (0 for Ctrl-D and :quit). */
int sl_rl_run(sl_console *c);

#endif
