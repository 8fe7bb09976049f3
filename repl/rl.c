/*
 * rl: readline's callback interface around the console (see rl.h).
 *
 * Why the callback interface and not readline(): Ctrl-C.  With readline()
 * the library owns the read loop and its own SIGINT handling keeps the half
 * typed line.  Here rl_catch_signals is 0, our handler only sets a flag,
 * pselect wakes with EINTR, and sl_rl_interrupt clears the line.  While Lua
 * runs the handler is removed (the terminal is back in cooked mode, so
 * Ctrl-C still raises SIGINT) and the console's own handler interrupts Lua.
 * The same split lets the ncurses screen feed bytes from wgetch later.
 *
 * A completed line is not evaluated inside readline's callback: the
 * callback parks it, removes the handler, and sl_rl_feed evaluates it after
 * readline has returned, then installs the next prompt ("> " or ">> ").
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cmd.h"
#include "rewind.h"
#include "rl.h"
#include "sl_lua.h"
#include "sqlmode.h"

/* How often the idle loop lets real-clock streaming triggers run. */
#define IDLE_TICK_US 100000

#define HISTORY_MAX 1000

struct sl_rl {
	sl_console *con;
	bool screen; /* inside the workbench: hooks, no terminal */
	sl_rl_hooks h;
	bool asking; /* "quit anyway?" is on the input line */
	const char *prompt;
	char *histfile;
	char *sql_histfile; /* the SQL mode's history */
	bool sql;           /* the history now is the SQL mode's */
	char *line;         /* parked by line_done, owned */
	bool have_line;
	bool installed;
	bool done;
	int exit_code;
};

/* readline's callbacks take no user pointer: the one open REPL. */
static sl_rl *the_rl;
static volatile sig_atomic_t idle_sigint;
/* The screen's one-byte mailbox (TERMINAL-LUA-KAFKA.md 1.2 step 7). */
static int mailbox = -1;

/* ---- completion ---- */

typedef struct line_matches {
	char **v;
	size_t n, cap;
	size_t next; /* generator position */
} line_matches;

static line_matches matches;

static void line_add_match(void *ud, const char *cand)
{
	line_matches *m = ud;
	char *s;

	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 32;
		char **v = realloc(m->v, cap * sizeof *v);
		if (v == NULL)
			return;
		m->v = v;
		m->cap = cap;
	}
	if ((s = strdup(cand)) != NULL)
		m->v[m->n++] = s;
}

static void line_clear_matches(void)
{
	for (size_t i = 0; i < matches.n; i++)
		free(matches.v[i]);
	matches.n = matches.next = 0;
}

static char *line_match_gen(const char *text, int state)
{
	(void)text;
	(void)state;
	if (matches.next < matches.n) {
		char *s = matches.v[matches.next];
		matches.v[matches.next++] = NULL; /* readline frees it */
		return s;
	}
	return NULL;
}

static char **line_complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1; /* never fall back to file names */
	rl_completion_suppress_append = 1;
	line_clear_matches();
	if (start == 0 && text[0] == ':') {
		const char *name;
		for (int i = 0; (name = sl_cmd_name(i)) != NULL; i++)
			if (strncmp(name, text, strlen(text)) == 0)
				line_add_match(&matches, name);
	} else if (sl_sqlmode_on()) {
		sl_buf ctx;

		sl_buf_init(&ctx);
		sl_buf_adds(&ctx, sl_sqlmode_pending_text());
		sl_buf_addc(&ctx, '\n');
		sl_buf_add(&ctx, rl_line_buffer, (size_t)start);
		sl_console_complete_sql(the_rl->con, text, sl_buf_cstr(&ctx),
					line_add_match, &matches);
		sl_buf_release(&ctx);
	} else if (start > 0 && rl_line_buffer[start - 1] == '"') {
		return NULL; /* inside a string: nothing sensible to offer */
	} else {
		sl_console_complete(the_rl->con, text, line_add_match,
				    &matches);
	}
	return rl_completion_matches(text, line_match_gen);
}

/* ---- history ---- */

static const char *line_histfile(const sl_rl *r)
{
	return r->sql ? r->sql_histfile : r->histfile;
}

/* extends: chunk is the last entry with a continuation line joined (a
 * method chain typed line by line comes back as one entry). */
static void line_history_add(sl_rl *r, const char *chunk, bool extends)
{
	HIST_ENTRY *prev;

	if (chunk[strspn(chunk, " \t\n")] == '\0')
		return;
	if (extends && history_length > 0) {
		HIST_ENTRY *old = remove_history(history_length - 1);
		free_history_entry(old);
		/* the file keeps both; the joined entry comes back last */
	}
	prev = history_get(history_base + history_length - 1);
	if (prev && strcmp(prev->line, chunk) == 0)
		return;
	add_history(chunk);
	if (line_histfile(r))
		append_history(1, line_histfile(r));
}

static void line_history_open(sl_rl *r)
{
	/* Timestamp lines ("#1700000000") delimit entries, so a multi-line
	 * chunk comes back from the file as one entry. */
	history_comment_char = '#';
	history_write_timestamps = 1;
	history_multiline_entries = 1;
	using_history();
	stifle_history(HISTORY_MAX);
	if (r->histfile && read_history(r->histfile) == ENOENT)
		write_history(r->histfile); /* append_history needs the file */
}

/* History is kept per mode: Up in the SQL mode recalls statements, in Lua
 * mode Lua.  Readline has one list; the other mode's waits in a saved
 * state (its entries untouched) until the mode comes back. */
static HISTORY_STATE *other_history;

static void line_history_mode(sl_rl *r, bool sql)
{
	HISTORY_STATE *cur;

	if (r->sql == sql)
		return;
	if ((cur = history_get_history_state()) == NULL)
		return;
	if (other_history != NULL) {
		history_set_history_state(other_history);
		free(other_history);
	} else { /* the first switch: a fresh list, from the mode's file */
		HISTORY_STATE empty = { .flags = cur->flags };
		history_set_history_state(&empty);
		history_base = 1;
		stifle_history(HISTORY_MAX);
		if (r->sql_histfile && read_history(r->sql_histfile) == ENOENT)
			write_history(r->sql_histfile);
	}
	other_history = cur;
	r->sql = sql;
}

/* ---- the line ---- */

static void line_done(char *line)
{
	sl_rl *r = the_rl;

	r->line = line;
	r->have_line = true;
	rl_callback_handler_remove();
	r->installed = false;
}

#define QUIT_QUESTION "queries are running: quit anyway? (y/n) "

static void line_prompt(sl_rl *r)
{
	if (!r->screen)
		fflush(stdout);
	line_history_mode(r, sl_sqlmode_on());
	r->prompt = r->asking                    ? QUIT_QUESTION
		    : sl_sqlmode_on()            ? sl_sqlmode_prompt()
		    : sl_console_pending(r->con) ? ">> "
						 : "> ";
	rl_callback_handler_install(r->prompt, line_done);
	r->installed = true;
}

static void line_busy(sl_rl *r, bool on)
{
	if (r->screen && r->h.busy)
		r->h.busy(r->h.ud, on);
}

/* Quit now, or first ask when queries run (screen only)?  True: quit. */
static bool line_quit(sl_rl *r)
{
	if (r->screen && r->h.running && r->h.running(r->h.ud) > 0) {
		r->asking = true;
		return false;
	}
	return true;
}

static bool line_answer(sl_rl *r, const char *line)
{
	r->asking = false;
	line += strspn(line, " \t");
	if (line[0] == 'y' || line[0] == 'Y')
		return false;
	sl_console_write(sl_console_state(r->con), SL_CONSOLE_OUT,
			 "(still here)\n", 13);
	return true;
}

/* Evaluate one accepted line; false when the session should end. */
static bool line_accept(sl_rl *r, const char *line)
{
	bool sql = sl_sqlmode_on();
	int status;

	if (r->screen && r->h.echo) {
		char *e;
		if (asprintf(&e, "%s%s", r->asking ? "" : r->prompt, line) >=
		    0) {
			r->h.echo(r->h.ud, r->asking ? "" : e);
			free(e);
		}
	}
	if (r->asking)
		return line_answer(r, line);
	/* a ':' line is a command; in Lua mode unless it continues a chunk
	 * (':name('), in SQL mode always (sqlmode.h) */
	if (sql ? sl_cmd_is(line)
		: !sl_console_pending(r->con) && sl_cmd_is(line) &&
		      !sl_console_continues(r->con, line)) {
		line_history_add(r, line, false);
		line_busy(r, true);
		status = sl_cmd_run(r->con, line);
		line_busy(r, false);
		return status != SL_CMD_QUIT || !line_quit(r);
	}
	line_busy(r, true);
	status = sql ? sl_sqlmode_line(r->con, line)
		     : sl_console_eval_line(r->con, line);
	line_busy(r, false);
	if (status != SL_CONSOLE_MORE && sql)
		line_history_add(r, sl_sqlmode_chunk(), false);
	else if (status != SL_CONSOLE_MORE)
		line_history_add(r, sl_console_chunk(r->con),
				 sl_console_chunk_extends(r->con));
	if (!r->screen)
		sl_sqlmode_poll(r->con, true);
	if (status == SL_CONSOLE_EXIT) {
		r->exit_code = sl_console_exit_code(r->con);
		return false;
	}
	return true;
}

sl_rl *sl_rl_open(sl_console *c, const char *histfile)
{
	sl_rl *r;

	if (the_rl != NULL || (r = calloc(1, sizeof *r)) == NULL)
		return NULL;
	r->con = c;
	if (histfile && (r->histfile = strdup(histfile)) == NULL) {
		free(r);
		return NULL;
	}
	if (histfile) {
		const char *suf = strstr(histfile, "_history");
		int keep = suf && suf[8] == '\0' ? (int)(suf - histfile)
						 : (int)strlen(histfile);
		if (asprintf(&r->sql_histfile, "%.*s_sql%s", keep, histfile,
			     suf && suf[8] == '\0' ? "_history" : "") < 0)
			r->sql_histfile = NULL;
	}
	the_rl = r;
	rl_readline_name = "streamlab";
	rl_catch_signals = 0;
	rl_change_environment = 0;
	rl_attempted_completion_function = line_complete;
	/* '.' and ':' are not breaks: "spark.crea" and "df:sh" are words */
	rl_completer_word_break_characters =
	    " \t\n\"\\'`@$><=;|&{(,)}[]+-*/%^~#";
	line_history_open(r);
	line_prompt(r);
	return r;
}

/* ---- inside the screen ---- */

static int screen_getc(FILE *f)
{
	int c = mailbox;

	(void)f;
	mailbox = -1;
	return c < 0 ? EOF : c;
}

static int screen_input_available(void)
{
	return mailbox >= 0;
}

static void screen_redisplay(void)
{
	if (the_rl && the_rl->h.redisplay)
		the_rl->h.redisplay(the_rl->h.ud);
}

static void screen_noprep(int meta)
{
	(void)meta;
}

static void screen_nodeprep(void)
{
}

static void screen_matches(char **m, int n, int max)
{
	(void)max;
	if (the_rl && the_rl->h.matches)
		the_rl->h.matches(the_rl->h.ud, m + 1, n);
}

static int screen_key(const char *name)
{
	if (the_rl && the_rl->h.key)
		the_rl->h.key(the_rl->h.ud, name);
	return 0;
}

static int key_pgup(int count, int key)
{
	(void)count, (void)key;
	return screen_key("PgUp");
}
static int key_pgdn(int count, int key)
{
	(void)count, (void)key;
	return screen_key("PgDn");
}
static int key_f2(int count, int key)
{
	(void)count, (void)key;
	return screen_key("F2");
}
static int key_f3(int count, int key)
{
	(void)count, (void)key;
	return screen_key("F3");
}
static int key_f4(int count, int key)
{
	(void)count, (void)key;
	return screen_key("F4");
}
static int key_f5(int count, int key)
{
	(void)count, (void)key;
	return screen_key("F5");
}

sl_rl *sl_rl_open_screen(sl_console *c, const char *histfile,
			 const sl_rl_hooks *hooks)
{
	static const struct {
		const char *seq;
		rl_command_func_t *fn;
	} keys[] = {
		{ "\\e[5~", key_pgup }, { "\\e[6~", key_pgdn },
		{ "\\eOQ", key_f2 },    { "\\eOR", key_f3 },
		{ "\\eOS", key_f4 },    { "\\e[15~", key_f5 },
		{ "\\e[12~", key_f2 },  { "\\e[13~", key_f3 },
		{ "\\e[14~", key_f4 },
	};
	static FILE *devnull;
	sl_rl *r;

	if (devnull == NULL)
		devnull = fopen("/dev/null", "w");
	rl_outstream = devnull;
	rl_getc_function = screen_getc;
	rl_input_available_hook = screen_input_available;
	rl_redisplay_function = screen_redisplay;
	rl_prep_term_function = screen_noprep;
	rl_deprep_term_function = screen_nodeprep;
	rl_catch_sigwinch = 0;
	rl_completion_display_matches_hook = screen_matches;
	rl_variable_bind("bell-style", "none");
	rl_variable_bind("show-all-if-ambiguous", "on");
	rl_variable_bind("enable-bracketed-paste", "off");
	if ((r = sl_rl_open(c, histfile)) == NULL)
		return NULL;
	r->screen = true;
	r->h = *hooks;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		rl_bind_keyseq(keys[i].seq, keys[i].fn);
	return r;
}

/* ---- bracketed paste (the screen's bytes) ----
 *
 * A terminal in bracketed-paste mode (the screen turns it on) wraps pasted
 * text in ESC[200~ ... ESC[201~.  The text goes into the input line as it
 * is, newlines included, so the paste is ONE input however many lines it
 * has (typed line by line, each line would run on its own).  When it ends
 * in a newline it is accepted at once, as typing it would; otherwise it
 * waits for Enter.  Readline's own bracketed paste reads the rest of the
 * paste itself and cannot here: the bytes come one at a time. */

static const char paste_begin[] = "\033[200~";
static const char paste_end[] = "\033[201~";
#define PASTE_MARK 6

static struct {
	char held[PASTE_MARK]; /* a prefix of paste_begin, not yet fed */
	int nheld;
	bool in;
	int nend; /* how much of paste_end matched inside the paste */
	sl_buf text;
} paste;

static bool feed1(sl_rl *r, int byte)
{
	mailbox = byte & 0xff;
	return sl_rl_feed(r);
}

/* The paste ended: into the line, and Enter when it ended in a newline. */
static bool paste_done(sl_rl *r)
{
	sl_buf *t = &paste.text;
	size_t n = 0;
	bool enter;

	/* a terminal sends CR for each newline of the pasted text */
	for (size_t i = 0; i < t->len; i++) {
		char ch = t->p[i];
		if (ch == '\r' && i + 1 < t->len && t->p[i + 1] == '\n')
			continue;
		t->p[n++] = ch == '\r' ? '\n' : ch;
	}
	t->len = n;
	enter = n > 0 && t->p[n - 1] == '\n';
	while (n > 0 && t->p[n - 1] == '\n')
		n--;
	if (!r->installed)
		line_prompt(r);
	if (n > 0) {
		t->p[n] = '\0';
		rl_insert_text(t->p);
	}
	sl_buf_clear(t);
	if (r->h.redisplay)
		r->h.redisplay(r->h.ud);
	return enter ? feed1(r, '\r') : true;
}

bool sl_rl_feed_byte(sl_rl *r, int byte)
{
	byte &= 0xff;
	if (paste.in) {
		if (byte == (unsigned char)paste_end[paste.nend]) {
			if (++paste.nend < PASTE_MARK)
				return true;
			paste.in = false;
			paste.nend = 0;
			return paste_done(r);
		}
		if (paste.nend > 0) {
			sl_buf_add(&paste.text, paste_end, (size_t)paste.nend);
			paste.nend = 0;
			return sl_rl_feed_byte(r, byte);
		}
		sl_buf_addc(&paste.text, (char)byte);
		return true;
	}
	if (byte == (unsigned char)paste_begin[paste.nheld]) {
		paste.held[paste.nheld++] = (char)byte;
		if (paste.nheld == PASTE_MARK) {
			paste.nheld = 0;
			paste.in = true;
			sl_buf_clear(&paste.text);
		}
		return true;
	}
	if (paste.nheld > 0) { /* not a paste: ESC [ A and friends */
		int n = paste.nheld;
		paste.nheld = 0;
		for (int i = 0; i < n; i++)
			if (!feed1(r, paste.held[i]))
				return false;
		return sl_rl_feed_byte(r, byte);
	}
	return feed1(r, byte);
}

void sl_rl_view(const sl_rl *r, const char **prompt, const char **text,
		int *point)
{
	static sl_buf shown;
	const char *t = r->installed && rl_line_buffer ? rl_line_buffer : "";
	int p = r->installed ? rl_point : 0, at = p;

	*prompt = r->installed && r->prompt ? r->prompt : "";
	*text = t;
	*point = p;
	if (strchr(t, '\n') == NULL)
		return;
	/* a pasted or recalled chunk of several lines: show each newline as
	 * a mark on the one input line */
	sl_buf_clear(&shown);
	for (int i = 0; t[i]; i++) {
		if (t[i] == '\n') {
			sl_buf_adds(&shown, "\u21b5");
			if (i < p)
				at += 2;
		} else {
			sl_buf_addc(&shown, t[i]);
		}
	}
	if (!sl_buf_failed(&shown)) {
		*text = sl_buf_cstr(&shown);
		*point = at;
	}
}

bool sl_rl_asking(const sl_rl *r)
{
	return r->asking;
}

bool sl_rl_feed(sl_rl *r)
{
	rl_callback_read_char();
	if (!r->have_line)
		return true;
	r->have_line = false;
	if (r->line == NULL) { /* Ctrl-D on an empty line */
		if (!r->screen) {
			fputs("\n", stdout);
		} else if (!r->asking && !line_quit(r)) {
			line_prompt(r);
			return true;
		}
		r->done = true;
		return false;
	}
	if (!line_accept(r, r->line))
		r->done = true;
	free(r->line);
	r->line = NULL;
	if (!r->done)
		line_prompt(r);
	return !r->done;
}

static void screen_interrupt(sl_rl *r)
{
	if (r->h.echo) {
		char *e;
		if (asprintf(&e, "%s%s^C", r->prompt ? r->prompt : "",
			     r->installed && rl_line_buffer ? rl_line_buffer
							    : "") >= 0) {
			r->h.echo(r->h.ud, e);
			free(e);
		}
	}
	if (r->installed) {
		rl_free_line_state();
		rl_callback_sigcleanup();
		rl_replace_line("", 0);
		rl_point = rl_end = rl_mark = 0;
		rl_callback_handler_remove();
		r->installed = false;
	}
	r->asking = false;
	sl_console_cancel(r->con);
	sl_sqlmode_cancel();
	sl_sqlmode_stop_live(r->con);
	line_prompt(r);
}

void sl_rl_interrupt(sl_rl *r)
{
	if (r->screen) {
		screen_interrupt(r);
		return;
	}
	if (r->installed) {
		/* ^C after the text, before readline's deprep sends "\r" */
		rl_point = rl_end;
		rl_redisplay();
		fputs("^C\n", stdout);
		fflush(stdout);
		rl_free_line_state();
		rl_callback_sigcleanup();
		rl_replace_line("", 0);
		rl_point = rl_end = rl_mark = 0;
		rl_callback_handler_remove();
		r->installed = false;
	} else {
		fputs("^C\n", stdout);
	}
	sl_console_cancel(r->con);
	sl_sqlmode_cancel();
	sl_sqlmode_stop_live(r->con);
	fflush(stdout);
	line_prompt(r);
}

int sl_rl_exit_code(const sl_rl *r)
{
	return r->exit_code;
}

void sl_rl_close(sl_rl *r)
{
	if (r == NULL)
		return;
	if (r->installed)
		rl_callback_handler_remove();
	if (r->histfile)
		history_truncate_file(r->histfile, HISTORY_MAX);
	if (r->sql_histfile)
		history_truncate_file(r->sql_histfile, HISTORY_MAX);
	if (other_history) {
		/* the other mode's entries: free them as clear_history would */
		HISTORY_STATE *cur = history_get_history_state();
		history_set_history_state(other_history);
		clear_history();
		free(other_history->entries);
		free(other_history);
		other_history = NULL;
		if (cur) {
			history_set_history_state(cur);
			free(cur);
		}
	}
	free(r->sql_histfile);
	sl_buf_release(&paste.text);
	paste.in = false;
	paste.nheld = paste.nend = 0;
	line_clear_matches();
	free(matches.v);
	matches.v = NULL;
	matches.cap = 0;
	free(r->line);
	free(r->histfile);
	free(r);
	the_rl = NULL;
	fflush(stdout);
}

/* ---- the terminal loop ---- */

/* Idle: run the streaming triggers that are due.  What the batches print
 * (console sink, listeners) is collected first; only when there is some
 * does the half-typed line step aside for it and then come back as it was,
 * so an idle query with nothing to say never makes the prompt flicker. */
static void line_idle_collect(void *ud, int stream, const char *s, size_t n)
{
	(void)stream;
	sl_buf_add(ud, s, n);
}

static void line_idle_tick(sl_rl *r)
{
	lua_State *L = sl_console_state(r->con);
	char *saved = NULL;
	int point = 0;
	sl_buf out;

	if (!sl_lua_tick_due(L))
		return;
	sl_buf_init(&out);
	sl_console_set_writer(r->con, line_idle_collect, &out);
	sl_lua_tick(L);
	sl_sqlmode_poll(r->con, true);
	sl_console_set_writer(r->con, NULL, NULL);
	if (out.len == 0) {
		sl_buf_release(&out);
		return;
	}
	if (r->installed) {
		point = rl_point;
		saved = rl_copy_text(0, rl_end);
		rl_save_prompt();
		rl_replace_line("", 0);
		rl_redisplay();
	}
	fwrite(out.p, 1, out.len, stdout);
	fflush(stdout);
	sl_buf_release(&out);
	if (r->installed) {
		rl_restore_prompt();
		rl_replace_line(saved ? saved : "", 0);
		rl_point = point;
		rl_redisplay();
	}
	free(saved);
}

static void on_idle_sigint(int sig)
{
	(void)sig;
	idle_sigint = 1;
}

static char *history_path(void)
{
	const char *home = getenv("HOME");
	char *p;

	if (home == NULL || home[0] == '\0')
		return NULL;
	if (asprintf(&p, "%s/.streamlab_history", home) < 0)
		return NULL;
	return p;
}

static void welcome(void)
{
	fputs(
	    "streamlab 0.1.0: Spark Structured Streaming, in Lua. Try:\n"
	    "  df = spark.createDataFrame({{1, \"a\"}, {2, \"b\"}}, \"id INT, name STRING\")\n"
	    "  df:show()\n"
	    "Type :help for help, Tab to complete, Ctrl-D to quit.\n",
	    stdout);
}

int sl_rl_run(sl_console *c)
{
	struct sigaction sa, old;
	sigset_t block, unblocked;
	char *hist = history_path();
	sl_rl *r;
	int code;

	welcome();
	r = sl_rl_open(c, hist);
	free(hist);
	if (r == NULL)
		return 1;
	sl_rewind_text_begin(c); /* :rewind prints the panes */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_idle_sigint; /* no SA_RESTART: wake pselect */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	for (;;) {
		const struct timespec idle = { 0, IDLE_TICK_US * 1000L };
		fd_set in;
		int n;

		sigprocmask(SIG_BLOCK, &block, &unblocked);
		if (idle_sigint) {
			idle_sigint = 0;
			sigprocmask(SIG_SETMASK, &unblocked, NULL);
			sl_rl_interrupt(r);
			continue;
		}
		FD_ZERO(&in);
		FD_SET(0, &in);
		n = pselect(1, &in, NULL, NULL, &idle, &unblocked);
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			line_idle_tick(r);
			continue;
		}
		if (n < 0 || !sl_rl_feed(r))
			break;
	}
	code = sl_rl_exit_code(r);
	sl_rl_close(r);
	sigaction(SIGINT, &old, NULL);
	sl_rewind_text_end(c);
	return code;
}
