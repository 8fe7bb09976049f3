/*
 * main: the streamlab program.  Parses the command line and picks a mode:
 *
 *   streamlab                 interactive REPL (stdin and stdout terminals)
 *   streamlab --plain         line mode (also when stdin is not a terminal)
 *   streamlab run FILE [ARG]  run a script headless
 *   streamlab -e CHUNK ...    run chunks in order, then exit
 *
 * Exit status: 0 success; 1 a Lua error in run/-e mode (or plain input
 * ending inside a chunk); 2 a usage error; otherwise the os.exit code.
 * Usage errors are one line on stderr naming the offending word.
 */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <lua.h>

#include "console.h"
#include "plain.h"
#include "rl.h"

#define SL_VERSION "0.1.0"
#define MAX_CHUNKS 64

static const char usage_text[] =
    "usage: streamlab [--plain] [-e CHUNK]...\n"
    "       streamlab run FILE.lua [ARG]...\n"
    "       streamlab lesson N|FILE [--check]               (coming)\n"
    "       streamlab kafka [--topic NAME:PARTITIONS]...    (coming)\n"
    "\n"
    "Learn Spark Structured Streaming in a terminal, in Lua.\n"
    "\n"
    "modes:\n"
    "  streamlab            interactive REPL when stdin and stdout are a\n"
    "                       terminal; otherwise line mode\n"
    "  --plain              line mode: read Lua lines from stdin, print\n"
    "                       results and errors to stdout, no prompts\n"
    "  run FILE.lua [ARG]   run a script; ARGs are in the global 'arg';\n"
    "                       the first error is printed to stderr, exit 1\n"
    "  -e CHUNK             run a Lua chunk (repeatable, in order), print\n"
    "                       what it returns, then exit\n"
    "  lesson N|FILE        (coming) run a lesson; --check runs it as a test\n"
    "  kafka                (coming) serve the embedded Kafka cluster and\n"
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

static bool want_tty(bool plain)
{
	const char *term = getenv("TERM");

	return !plain && isatty(0) && isatty(1) && term && term[0] &&
	       strcmp(term, "dumb") != 0;
}

/* -e chunks, then the script if any; errors to stderr. */
static int run_batch(sl_console *c, char **chunks, int nchunks, int argc,
		     char **argv, int script)
{
	int status = SL_CONSOLE_OK;

	for (int i = 0; i < nchunks && status == SL_CONSOLE_OK; i++)
		status = sl_console_eval_chunk(c, chunks[i], "=(command line)");
	if (status == SL_CONSOLE_OK && script > 0)
		status = sl_console_run_file(c, argc, argv, script);
	if (status == SL_CONSOLE_EXIT)
		return sl_console_exit_code(c);
	return status == SL_CONSOLE_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	char *chunks[MAX_CHUNKS];
	int nchunks = 0, script = 0, code;
	bool plain = false;
	sl_console *c;

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
		} else if (strcmp(a, "lesson") == 0 ||
			   strcmp(a, "kafka") == 0) {
			fprintf(
			    stderr,
			    "streamlab: '%s' is coming in a later version\n",
			    a);
			return 2;
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
		code = sl_rl_run(c);
	else
		code = sl_plain_run(c, stdin);
	sl_console_free(c);
	fflush(stdout);
	return code;
}
