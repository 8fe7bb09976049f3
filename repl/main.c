/*
 * main: the streamlab program.  Parses the command line and picks a mode:
 *
 *   streamlab                 interactive REPL (stdin and stdout terminals)
 *   streamlab --plain         line mode (also when stdin is not a terminal)
 *   streamlab --line          the readline REPL without the screen
 *   streamlab run FILE [ARG]  run a script headless
 *   streamlab -e CHUNK ...    run chunks in order, then exit
 *   streamlab lesson N|FILE   a lesson in the workbench (--check: headless)
 *   streamlab sql ...         SQL statements headless, or the SQL prompt
 *
 * Exit status: 0 success; 1 a Lua error in run/-e mode (or plain input
 * ending inside a chunk); 2 a usage error; otherwise the os.exit code.
 * Usage errors are one line on stderr naming the offending word.
 */
#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <lua.h>

#include "console.h"
#include "core/crash.h"
#include "kafka/kafka.h"
#include "core/engine.h"
#include "driver/session.h"
#include "sl_lua.h"
#include "lesson.h"
#include "plain.h"
#include "rl.h"
#include "screen.h"
#include "sqlmode.h"

#define SL_VERSION "0.1.0"
#define MAX_CHUNKS 64

static const char usage_text[] =
    "usage: streamlab [--plain|--line] [-e CHUNK]...\n"
    "       streamlab run FILE.lua [ARG]...\n"
    "       streamlab lesson N|FILE [--check]\n"
    "       streamlab kafka [--topic NAME:PARTITIONS]...\n"
    "       streamlab sql [--plain|--line] [--init FILE.lua]... [-e STATEMENT]...\n"
    "                     [FILE.sql]...\n"
    "\n"
    "Learn Spark Structured Streaming in a terminal, in Lua.\n"
    "\n"
    "modes:\n"
    "  streamlab            interactive REPL when stdin and stdout are a\n"
    "                       terminal; otherwise line mode\n"
    "  --line               the readline REPL on a terminal, without the\n"
    "                       workbench screen\n"
    "  --plain              line mode: read Lua lines from stdin, print\n"
    "                       results and errors to stdout, no prompts\n"
    "  run FILE.lua [ARG]   run a script; ARGs are in the global 'arg';\n"
    "                       the first error is printed to stderr, exit 1\n"
    "  -e CHUNK             run a Lua chunk as the REPL does (repeatable,\n"
    "                       in order): an expression prints its value\n"
    "  lesson N|FILE        run lesson N (lessons/NN-*.lua) or FILE in the\n"
    "                       workbench; --check runs it headless and exits\n"
    "                       1 when an expected answer does not match\n"
    "  sql                  SQL: with -e or FILE.sql, run the statements\n"
    "                       headless, stop at the first error (exit 1);\n"
    "                       alone, the REPL in SQL mode (:lua for Lua;\n"
    "                       --plain, --line as above);\n"
    "                       --init runs a Lua file first (its views)\n"
    "  kafka                serve the embedded Kafka cluster and\n"
    "                       print bootstrap.servers=...\n"
    "  --help               this text\n"
    "  --version            versions of streamlab, Lua and librdkafka\n"
    "\n"
    "In the REPL: :help lists commands, Tab completes, Ctrl-C cancels,\n"
    "Ctrl-D quits.  Tutorial: TUTORIAL.md.\n";

static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("streamlab: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try 'streamlab --help')\n", stderr);
	return 2;
}

/* streamlab kafka [--topic NAME:PARTITIONS]...: serve the embedded Kafka
 * cluster in the foreground on loopback, print the broker list, wait for
 * Ctrl-C (SIGINT) or SIGTERM, then tear down (clients, then cluster). */
static int kafka_serve(int argc, char **argv, int first)
{
	const char *bs;
	sl_err err;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* blocked before librdkafka starts its threads, so they inherit it */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (sl_kafka_embedded(&bs, &err) != 0) {
		fprintf(stderr, "streamlab: kafka: %s\n", err.msg);
		return 1;
	}
	for (int i = first; i < argc; i++) {
		char name[256], *colon;
		long parts = 1;

		if (strcmp(argv[i], "--topic") != 0 || i + 1 >= argc)
			return usage_error("kafka: expected --topic "
					   "NAME:PARTITIONS, got '%s'",
					   argv[i]);
		snprintf(name, sizeof name, "%s", argv[++i]);
		if ((colon = strrchr(name, ':')) != NULL) {
			*colon = '\0';
			parts = strtol(colon + 1, NULL, 10);
		}
		if (sl_kafka_create_topic(NULL, name, (int)parts, &err) != 0) {
			fprintf(stderr, "streamlab: %s\n", err.msg);
			return 2;
		}
	}
	printf("bootstrap.servers=%s\n", bs);
	fflush(stdout);
	sigwait(&set, &sig);
	sl_kafka_shutdown();
	return 0;
}

static bool want_tty(bool plain)
{
	const char *term = getenv("TERM");

	return !plain && isatty(0) && isatty(1) && term && term[0] &&
	       strcmp(term, "dumb") != 0;
}

/* streamlab lesson N|FILE [--check] [--plain]: --check runs the lesson
 * headless (TAP on stdout, exit 1 when a check fails or a step errs); on a
 * terminal the lesson runs in the workbench screen, which stays open
 * afterwards; otherwise (a pipe, --plain) in line mode, Enter to go on. */
static int lesson_run(int argc, char **argv, int first)
{
	const char *which = NULL, *mode;
	bool check = false, plain = false;
	char msg[300], *path;
	sl_console *c;
	sl_buf chunk;
	int st, code;

	for (int i = first; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else if (strcmp(argv[i], "--plain") == 0)
			plain = true;
		else if (argv[i][0] == '-' || which != NULL)
			return usage_error("lesson: unexpected '%s'", argv[i]);
		else
			which = argv[i];
	}
	if (which == NULL)
		return usage_error("lesson: missing N or FILE");
	if ((path = sl_lesson_find(which, msg, sizeof msg)) == NULL) {
		fprintf(stderr, "streamlab: lesson: %s\n", msg);
		return 2;
	}
	if ((c = sl_console_new()) == NULL) {
		free(path);
		fputs("streamlab: cannot create the Lua state\n", stderr);
		return 1;
	}
	mode = check ? "check" : want_tty(plain) ? "screen" : "plain";
	sl_buf_init(&chunk);
	sl_lesson_chunk(path, mode, &chunk);
	if (strcmp(mode, "screen") == 0) {
		code = sl_screen_run_chunk(c, sl_buf_cstr(&chunk));
	} else {
		st = sl_console_eval_chunk(c, sl_buf_cstr(&chunk), "=(lesson)");
		code = st == SL_CONSOLE_EXIT ? sl_console_exit_code(c)
		       : st == SL_CONSOLE_OK ? 0
					     : 1;
	}
	sl_buf_release(&chunk);
	sl_sqlmode_release(); /* a lesson may use :sql */
	sl_console_free(c);
	free(path);
	fflush(stdout);
	return code;
}

/* The whole of a file, NUL-terminated (owned), or NULL (errno). */
static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	sl_buf b;
	char buf[8192];
	size_t n;

	if (f == NULL)
		return NULL;
	sl_buf_init(&b);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sl_buf_add(&b, buf, n);
	fclose(f);
	if (sl_buf_failed(&b)) {
		sl_buf_release(&b);
		return NULL;
	}
	sl_buf_cstr(&b);
	return b.p ? b.p : strdup("");
}

/* streamlab sql [--init FILE.lua]... [-e STATEMENT]... [FILE.sql]...:
 * the --init files run first (as `streamlab run` runs a script), then the
 * -e statements, then the files, each statement the headless way
 * (sqlmode.h); the first error ends the run with exit 1, its message on
 * stderr naming the file, line and column of the error.  With
 * neither -e nor a file: the REPL, in SQL mode. */
static int sql_run(int argc, char **argv, int first)
{
	int status = SL_CONSOLE_OK, work = 0, code;
	bool plain = false, line = false;
	sl_console *c;

	for (int i = first; i < argc; i++) {
		if (strcmp(argv[i], "--plain") == 0) {
			plain = true;
		} else if (strcmp(argv[i], "--line") == 0) {
			line = true;
		} else if (strcmp(argv[i], "-e") == 0 ||
			   strcmp(argv[i], "--init") == 0) {
			if (i + 1 >= argc)
				return usage_error(
				    "sql: option '%s' needs %s", argv[i],
				    argv[i][1] == 'e' ? "a statement"
						      : "a Lua file");
			work += argv[i][1] == 'e';
			i++;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return usage_error("sql: unknown option '%s'", argv[i]);
		} else {
			work++;
		}
	}
	if ((c = sl_console_new()) == NULL) {
		fputs("streamlab: cannot create the Lua state\n", stderr);
		return 1;
	}
	for (int i = first; i < argc && status == SL_CONSOLE_OK; i++)
		if (strcmp(argv[i], "--init") == 0) {
			char *av[] = { argv[0], argv[i + 1], NULL };
			status = sl_console_run_file(c, 2, av, 1);
			i++;
		} else if (strcmp(argv[i], "-e") == 0) {
			i++;
		}
	for (int i = first; i < argc && status == SL_CONSOLE_OK; i++)
		if (strcmp(argv[i], "-e") == 0)
			status = sl_sqlmode_run_text(c, argv[++i], NULL);
		else if (strcmp(argv[i], "--init") == 0)
			i++;
	for (int i = first; i < argc && status == SL_CONSOLE_OK; i++) {
		char *text;

		if (strcmp(argv[i], "-e") == 0 ||
		    strcmp(argv[i], "--init") == 0) {
			i++;
			continue;
		}
		if (strcmp(argv[i], "--plain") == 0 ||
		    strcmp(argv[i], "--line") == 0)
			continue;
		if ((text = read_all(argv[i])) == NULL) {
			fprintf(stderr,
				"streamlab: sql: cannot read '%s': %s\n",
				argv[i], strerror(errno));
			status = SL_CONSOLE_ERROR;
			break;
		}
		status = sl_sqlmode_run_text(c, text, argv[i]);
		free(text);
	}
	if (work == 0 && status == SL_CONSOLE_OK) {
		sl_sqlmode_set(true);
		code = !want_tty(plain) ? sl_plain_run(c, stdin)
		       : line           ? sl_rl_run(c)
					: sl_screen_run(c);
		sl_sqlmode_release();
		sl_console_free(c);
		return code;
	}
	code = status == SL_CONSOLE_EXIT ? sl_console_exit_code(c)
	       : status == SL_CONSOLE_OK ? 0
					 : 1;
	sl_sqlmode_release();
	sl_console_free(c);
	fflush(stdout);
	return code;
}

/* -e chunks, then the script if any; errors to stderr. */
static int run_batch(sl_console *c, char **chunks, int nchunks, int argc,
		     char **argv, int script)
{
	int status = SL_CONSOLE_OK;

	/* no screen: its panes' per-row events would be formatted unread */
	sl_session_set_panes(sl_lua_session(sl_console_state(c)), false);
	for (int i = 0; i < nchunks && status == SL_CONSOLE_OK; i++)
		status = sl_console_eval_input(c, chunks[i], "=(command line)");
	if (status == SL_CONSOLE_OK && script > 0)
		status = sl_console_run_file(c, argc, argv, script);
	if (status == SL_CONSOLE_EXIT)
		return sl_console_exit_code(c);
	return status == SL_CONSOLE_OK ? 0 : 1;
}

/* A real crash point (STREAMLAB_CRASH, STREAMLAB_CRASH_RANDOM) says where
 * the process died, for the tests that count points. */
static void crash_report(const char *point, int64_t batch_id)
{
	char line[160];
	int n = snprintf(line, sizeof line,
			 "streamlab: crash at '%s' in batch %lld\n", point,
			 (long long)batch_id);
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

int main(int argc, char **argv)
{
	char *chunks[MAX_CHUNKS];
	int nchunks = 0, script = 0, code;
	bool plain = false, line = false;
	sl_console *c;

	/* Before the first allocation: see engine.h (freed column buffers
	 * stay in the heap instead of going back to the kernel each batch). */
	sl_engine_tune_malloc();
	sl_crash_set_reporter(crash_report);
	/* Character classes for readline; numbers stay in the C locale. */
	setlocale(LC_CTYPE, "");
	for (int i = 1; i < argc && script == 0; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage_text, stdout);
			return 0;
		} else if (strcmp(a, "--version") == 0) {
			printf("streamlab %s (%s, librdkafka %s)\n", SL_VERSION,
			       LUA_RELEASE, rd_kafka_version_str());
			return 0;
		} else if (strcmp(a, "--plain") == 0) {
			plain = true;
		} else if (strcmp(a, "--line") == 0) {
			line = true;
		} else if (strcmp(a, "-e") == 0) {
			if (i + 1 >= argc)
				return usage_error(
				    "option '-e' needs a Lua chunk");
			if (nchunks == MAX_CHUNKS)
				return usage_error("too many '-e' options");
			chunks[nchunks++] = argv[++i];
		} else if (strcmp(a, "run") == 0) {
			if (i + 1 >= argc)
				return usage_error("run: missing FILE.lua");
			script = i + 1;
		} else if (strcmp(a, "kafka") == 0) {
			return kafka_serve(argc, argv, i + 1);
		} else if (strcmp(a, "lesson") == 0) {
			return lesson_run(argc, argv, i + 1);
		} else if (strcmp(a, "sql") == 0) {
			return sql_run(argc, argv, i + 1);
		} else if (a[0] == '-') {
			return usage_error("unknown option '%s'", a);
		} else {
			return usage_error("unknown command '%s'", a);
		}
	}
	c = sl_console_new();
	if (c == NULL) {
		fputs("streamlab: cannot create the Lua state\n", stderr);
		return 1;
	}
	if (nchunks > 0 || script > 0)
		code = run_batch(c, chunks, nchunks, argc, argv, script);
	else if (want_tty(plain))
		code = line ? sl_rl_run(c) : sl_screen_run(c);
	else
		code = sl_plain_run(c, stdin);
	sl_sqlmode_release();
	sl_console_free(c);
	fflush(stdout);
	return code;
}
