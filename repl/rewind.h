/*
 * rewind: the workbench rewound to a committed batch (issue 20 item 3):
 * the commands :rewind N, :live and :open CHECKPOINT [SINKDIR], shared by
 * the screen and line mode (cmd.c's table names them).  The snapshot
 * itself is the model's (model.h "the screen rewound"); this module says
 * where the command's result goes: the screen draws the snapshot under a
 * banner (screen.c), line mode prints the same panes as text.
 *
 * Ownership: the attached model is borrowed until sl_rewind_attach(NULL).
 */
#ifndef SL_REWIND_H
#define SL_REWIND_H

#include <stdbool.h>

#include "console.h"
#include "model.h"

/* The model the commands act on.  text: line mode, where each command
 * prints the rewound panes (and refreshes the model from the session
 * first); else the screen, which redraws by itself. */
void sl_rewind_attach(sl_model *m, bool text);

/* Line modes (plain, --line): a model of their own, attached in text
 * mode, that knows every query started from here on; _end frees it. */
void sl_rewind_text_begin(sl_console *c);
void sl_rewind_text_end(sl_console *c);

/* The banner: "REWOUND to batch N of M - :live to return" into out. */
void sl_rewind_banner(const sl_model *m, char *out, size_t n);

/* The rewound panes as text, cols wide (line mode's output), appended
 * to the console's output. */
void sl_rewind_print(sl_console *c, sl_model *m, int cols);

/* The commands (cmd.c's table). */
int sl_rewind_cmd_rewind(sl_console *c, const char *args);
int sl_rewind_cmd_live(sl_console *c, const char *args);
int sl_rewind_cmd_open(sl_console *c, const char *args);

#endif
