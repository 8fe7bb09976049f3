/*
 * screen: the workbench, an ncurses screen where the focused query's
 * windows, watermark, late rows and checkpoint live, with the Output pane
 * and a readline input line (TERMINAL-LUA-KAFKA.md 1; LESSONS.md 5).
 *
 * One thread.  The loop waits for a key at most until the next 100 ms
 * tick; a tick runs the streaming triggers that are due (sl_lua_tick),
 * refreshes the model from the engine and redraws.  While Lua runs (a
 * typed chunk, a :command), a count hook refreshes and redraws every
 * 100 ms without running batches or Lua, so the panes stay alive and
 * Ctrl-C (SIGINT, the console's lstop) still interrupts.
 *
 * Everything the program writes lands in the Output pane: console output
 * through the console's writer, and stdout/stderr of anything else (a
 * library's log, io.write) through a pipe drained every tick; nothing
 * writes over the screen.
 *
 * What the screen adds to the panes (issue 13): a typed command whose
 * result is taller than the Output pane gives the Output pane the whole
 * screen until the next line is entered, and one taller than that opens
 * the pager on it (pane_pager.c); neither after a lesson's chunk that
 * waited for keys, nor when keys were typed ahead; `:zoom NAME` and F6 put one pane on the
 * whole screen, Esc brings all back; below 80x24 only a centred
 * "streamlab needs at least 80x24 (now WxH)" is drawn, and keys still go
 * to the input line, until the terminal grows.  Rewound (:rewind, :open;
 * issue 20), the panes draw the model's snapshot and a banner replaces
 * the queries strip; Alt-Left / Alt-Right step through the batches.
 */
#ifndef SL_SCREEN_H
#define SL_SCREEN_H

#include "console.h"

/* Run the workbench on the terminal until :quit, Ctrl-D or os.exit;
 * returns the exit status.  When the terminal cannot host the screen,
 * falls back to the readline REPL (sl_rl_run). */
int sl_screen_run(sl_console *c);

/* As sl_screen_run; once the screen is up, chunk (borrowed; NULL for
 * none) runs through the console as if typed, its output in the Output
 * pane (`streamlab lesson N`).  While the screen runs, Lua code can call
 * package.loaded["streamlab.workbench"].waitkey(hint): draw, show hint on
 * the input line, wait at most 100 ms for a key and return it as a string
 * (nil when none came: call again, so Ctrl-C can interrupt between waits),
 * .view(name): switch the view (false for an unknown name), .rewind(n):
 * the panes as after batch n of the focused query (true, or nil and the
 * error line; :rewind n), and .live(): back to the live panes. */
int sl_screen_run_chunk(sl_console *c, const char *chunk);

#endif
