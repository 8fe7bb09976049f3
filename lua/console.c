/*
 * console: evaluate Lua the way lua.c does, for every streamlab mode.
 *
 * The flow of one REPL line (sl_console_eval_line):
 *   a line shaped as a continuation (':name(' or '.name') when no chunk
 *   is pending goes the continuation way (see "continuation" below);
 *   else append the line to the chunk buffer;
 *   turn its top-level locals into session variables (console_input.c);
 *   compile "return <chunk>": if it compiles, it is an expression;
 *   else compile "<chunk>": if it compiles, it is a statement;
 *   else if either error ends in "<eof>", the chunk is incomplete (MORE);
 *   else it is a syntax error.
 * A complete chunk is input N, compiled under the name "[N]", its text
 * kept (INPUT_KEEP) so an error can show the line it names.
 * lua.c tries "return" on the first line only; we try it on the whole
 * chunk, so a table or call spread over several lines still prints.
 *
 * Every call into Lua goes through docall: a message handler that adds the
 * traceback (lua.c's msghandler), and the SIGINT handler armed only while
 * the call runs.  os.exit does not exit: it records the code and unwinds
 * with a private sentinel error that the message handler passes through and
 * a count hook re-raises, so even a script's own pcall cannot swallow it.
 * The interactive workbench must never die from a lesson's os.exit.
 *
 * Memory: the state is created with a counting allocator (below) and a
 * limit, streamlab.lua.memoryLimit (1 GiB unless spark.conf sets it).  An
 * allocation past it fails, Lua collects once in an emergency and, when
 * that is not enough, raises "not enough memory": the input (or a
 * foreachBatch batch) fails, the console goes on.  The console's own work
 * (compiling the next input, printing a result or an error) may go a
 * little past the limit (a reserve), so the line after a script that
 * filled the memory still runs: `t = nil collectgarbage()` gives it back.
 * Only Lua's allocations count: the engine's batches and state stores are
 * malloc'd outside Lua.
 *
 * The pretty-printer lives in console_pp.c, completion in
 * console_complete.c.  This file never prints through
 * stdio directly except in the default writer.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "console.h"
#include "console_int.h"
#include "sl_lua.h"

/* Registry key: its address identifies the console that owns a state. */
static const char console_key = 'c';
/* The error value os.exit unwinds with. */
static const char exit_sentinel = 'x';

static void default_write(void *ud, int stream, const char *s, size_t n)
{
	(void)ud;
	if (stream == SL_CONSOLE_ERR) {
		fflush(stdout);
		fwrite(s, 1, n, stderr);
	} else {
		fwrite(s, 1, n, stdout);
	}
}

static sl_console *console_of(lua_State *L)
{
	sl_console *c;

	lua_rawgetp(L, LUA_REGISTRYINDEX, &console_key);
	c = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return c;
}

void sl_console_write(lua_State *L, int stream, const char *s, size_t n)
{
	sl_console *c = L ? console_of(L) : NULL;

	if (c == NULL) {
		default_write(NULL, stream, s, n);
		return;
	}
	c->write(c->write_ud, stream, s, n);
	if (c->transcript) {
		fwrite(s, 1, n, c->transcript);
		fflush(c->transcript);
	}
}

void sl_console_set_idle(sl_console *c, sl_console_idle_fn fn, void *ud)
{
	c->idle = fn;
	c->idle_ud = ud;
}

void sl_console_idle(lua_State *L)
{
	sl_console *c = L ? console_of(L) : NULL;

	if (c && c->idle)
		c->idle(c->idle_ud);
}

static void put(sl_console *c, int stream, const char *s, size_t n)
{
	sl_console_write(c->L, stream, s, n);
}

/* ---- memory: the counting allocator ---- */

/* What Lua holds, in bytes, and the bound.  One per state (its allocator's
 * ud); the console owns it. */
struct sl_lua_mem {
	size_t used;
	size_t limit;
	bool grace; /* the console's own work: the reserve is open */
};

/* Past the limit, the console's own work still gets this much. */
static size_t mem_reserve(const struct sl_lua_mem *m)
{
	size_t r = m->limit / 16;

	if (r < ((size_t)1 << 20))
		return (size_t)1 << 20;
	return r > ((size_t)16 << 20) ? (size_t)16 << 20 : r;
}

/* lauxlib's l_alloc with a count.  ptr == NULL: osize is a type tag, not
 * a size.  Shrinking never fails (Lua relies on it). */
static void *mem_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct sl_lua_mem *m = ud;
	size_t old = ptr != NULL ? osize : 0;
	void *p;

	if (nsize == 0) {
		free(ptr);
		m->used -= old <= m->used ? old : m->used;
		return NULL;
	}
	if (nsize > old) {
		size_t bound = m->limit + (m->grace ? mem_reserve(m) : 0);

		if (m->used - old + nsize > bound)
			return NULL;
	}
	if ((p = realloc(ptr, nsize)) == NULL)
		return NULL;
	m->used = m->used - old + nsize;
	return p;
}

static struct sl_lua_mem *mem_of(lua_State *L)
{
	void *ud;

	if (L == NULL || lua_getallocf(L, &ud) != mem_alloc)
		return NULL;
	return ud;
}

bool sl_lua_memory_set_limit(lua_State *L, size_t bytes)
{
	struct sl_lua_mem *m = mem_of(L);

	if (m == NULL)
		return false;
	m->limit = bytes;
	return true;
}

size_t sl_lua_memory_used(lua_State *L)
{
	struct sl_lua_mem *m = mem_of(L);

	return m != NULL ? m->used : 0;
}

size_t sl_lua_memory_limit(lua_State *L)
{
	struct sl_lua_mem *m = mem_of(L);

	return m != NULL ? m->limit : 0;
}

/* luaL_newstate (its panic and warning functions), then our allocator,
 * counting from what the new state holds already (both allocators are
 * realloc and free, so each frees what the other allocated). */
static lua_State *mem_newstate(struct sl_lua_mem *m)
{
	lua_State *L = luaL_newstate();

	if (L == NULL)
		return NULL;
	m->used = (size_t)lua_gc(L, LUA_GCCOUNT) * 1024 +
		  (size_t)lua_gc(L, LUA_GCCOUNTB);
	m->limit = SL_LUA_MEMORY_LIMIT_DEFAULT;
	m->grace = false;
	lua_setallocf(L, mem_alloc, m);
	return L;
}

/* ---- Ctrl-C: lua.c's technique ---- */

static lua_State *volatile running_L;
static volatile sig_atomic_t sigint_count;
static struct sigaction old_sigint;

/* The hook the signal handler installs: the next Lua instruction raises,
 * unless a wait has already reported the interrupt (it took it: see
 * sl_lua_interrupt_take), when the hook only removes itself. */
/* The hook lstop took the place of (the workbench's redraw, a running
 * foreachBatch's bound: stream.c), put back when lstop runs: one hook per
 * thread, so they take turns.  The bound sees the interrupt too and keeps
 * raising until its function is gone, which a pcall in it cannot stop. */
static volatile lua_Hook stop_saved;
static volatile int stop_saved_mask, stop_saved_count;

static void lstop(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	lua_sethook(L, stop_saved, stop_saved ? stop_saved_mask : 0,
		    stop_saved_count);
	stop_saved = NULL;
	if (sl_lua_interrupt_pending())
		luaL_error(L, "interrupted!");
}

/* lua_sethook may be called from a signal handler (see ldebug.c).  A third
 * Ctrl-C during one call means Lua never reached a hook (stuck in C): fall
 * back to the default action so the user can still get out. */
static void on_sigint(int sig)
{
	lua_State *L = running_L;

	/* the last one was handled (a wait took it): Lua is not stuck */
	if (!sl_lua_interrupt_pending())
		sigint_count = 0;
	if (++sigint_count >= 3 || L == NULL) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	sl_lua_interrupt(1); /* the bindings tell Ctrl-C from an error */
	if (lua_gethook(L) != lstop) {
		stop_saved = lua_gethook(L);
		stop_saved_mask = lua_gethookmask(L);
		stop_saved_count = lua_gethookcount(L);
	}
	lua_sethook(L, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static void sigint_arm(lua_State *L)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigint_count = 0;
	sl_lua_interrupt(0);
	stop_saved = NULL;
	running_L = L;
	sigaction(SIGINT, &sa, &old_sigint);
}

static void sigint_disarm(lua_State *L)
{
	sigaction(SIGINT, &old_sigint, NULL);
	running_L = NULL;
	sl_lua_interrupt(0);
	/* A Ctrl-C that came after the last instruction left lstop armed. */
	if (sigint_count > 0 && lua_gethook(L) == lstop)
		lua_sethook(L, stop_saved, stop_saved ? stop_saved_mask : 0,
			    stop_saved_count);
	stop_saved = NULL;
}

bool sl_console_interrupted(lua_State *L)
{
	lua_State *r = running_L;
	sl_console *c = L != NULL ? console_of(L) : NULL;

	if (c != NULL && c->exiting) /* os.exit unwinds through the wait */
		return true;
	/* one console runs at a time: the one the signal targets */
	return r != NULL && sigint_count > 0 && lua_gethook(r) == lstop;
}

/* The guard the bindings use for callbacks run outside docall (the idle
 * loop's batches, sl_lua.h): arm only when no call is armed. */
static bool guard_arm(lua_State *L)
{
	if (running_L != NULL)
		return false;
	sigint_arm(L);
	return true;
}

static void guard_disarm(lua_State *L)
{
	sigint_disarm(L);
}

/* ---- errors ---- */

/* An error object's string field k, or NULL. */
static const char *err_field(lua_State *L, const char *k)
{
	const char *v = NULL;

	if (lua_type(L, 1) != LUA_TTABLE)
		return NULL;
	if (lua_getfield(L, 1, k) == LUA_TSTRING)
		v = lua_tostring(L, -1); /* stays on the stack */
	else
		lua_pop(L, 1);
	return v;
}

/* lua.c's, with two cases of ours.  A wait ended by Ctrl-C (code
 * "Interrupted", lua/query.c) is one line: nothing failed.  An error that
 * brings its own traceback (a foreachBatch failure: the function's frames,
 * gone from the stack by now) prints it once, followed by our frames
 * without a second "stack traceback:" header. */
static int msghandler(lua_State *L)
{
	const char *msg = lua_tostring(L, 1), *code, *tb;
	sl_console *c = console_of(L);

	if (lua_touserdata(L, 1) == &exit_sentinel)
		return 1;
	code = err_field(L, "code");
	if (code != NULL && strcmp(code, "Interrupted") == 0 &&
	    luaL_callmeta(L, 1, "__tostring") &&
	    lua_type(L, -1) == LUA_TSTRING) {
		if (c != NULL)
			c->quiet = true;
		return 1;
	}
	if ((tb = err_field(L, "traceback")) != NULL &&
	    luaL_callmeta(L, 1, "__tostring") &&
	    lua_type(L, -1) == LUA_TSTRING) {
		const char *ours, *nl;
		luaL_Buffer b;

		msg = lua_tostring(L, -1);
		luaL_traceback(L, L, NULL, 1);
		ours = lua_tostring(L, -1);
		nl = strchr(ours, '\n'); /* past "stack traceback:" */
		luaL_buffinit(L, &b);
		luaL_addstring(&b, msg);
		luaL_addchar(&b, '\n');
		luaL_addstring(&b, tb);
		if (nl != NULL)
			luaL_addstring(&b, nl);
		luaL_pushresult(&b);
		return 1;
	}
	if (msg == NULL) {
		if (luaL_callmeta(L, 1, "__tostring") &&
		    lua_type(L, -1) == LUA_TSTRING)
			msg = lua_tostring(L, -1);
		else
			msg = lua_pushfstring(L, "(error object is a %s value)",
					      luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* A message "[12]:3: ..." names line 3 of input 12.  Add that line when the
 * learner may not have it in view: an earlier input (a function defined
 * then, failing now), or one of several lines. */
static void add_source_line(sl_console *c, const char *msg)
{
	int no, ln, used = 0;
	const char *text, *p;
	size_t n;

	if (sscanf(msg, "[%d]:%d:%n", &no, &ln, &used) != 2 || used == 0 ||
	    (text = sl_console_input(c, no)) == NULL ||
	    (no == c->input_no && strchr(text, '\n') == NULL))
		return;
	for (p = text; p && ln > 1; ln--)
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	if (p == NULL)
		return;
	p += strspn(p, " \t");
	n = strcspn(p, "\n");
	sl_buf_adds(&c->out, "  ");
	sl_buf_add(&c->out, msg, (size_t)used - 1);
	sl_buf_adds(&c->out, " | ");
	sl_buf_add(&c->out, p, n);
	sl_buf_addc(&c->out, '\n');
}

/* Write the error on the top of the stack as "error: ..." and pop it. */
void sl_console_report(sl_console *c)
{
	lua_State *L = c->L;
	size_t n, first;
	const char *msg = lua_tolstring(L, -1, &n);

	if (msg == NULL) {
		msg = "(error object is not a string)";
		n = strlen(msg);
	}
	first = strcspn(msg, "\n");
	c->mem->grace = true;
	sl_buf_clear(&c->out);
	if (!c->quiet)
		sl_buf_adds(&c->out, "error: ");
	sl_buf_add(&c->out, msg, first);
	sl_buf_addc(&c->out, '\n');
	if (!c->quiet) /* an interrupt is one line (its own sentence) */
		add_source_line(c, msg);
	c->quiet = false;
	if (first < n)
		sl_buf_add(&c->out, msg + first + 1, n - first - 1);
	if (first < n && msg[n - 1] != '\n')
		sl_buf_addc(&c->out, '\n');
	put(c, SL_CONSOLE_ERR, c->out.p, c->out.len);
	lua_pop(L, 1);
	c->mem->grace = false;
}

/* Call the function below narg arguments; on error write the message.
 * Returns OK, ERROR or EXIT; on OK, nres results (or all) are left. */
static int docall(sl_console *c, int narg, int nres)
{
	lua_State *L = c->L;
	int base = lua_gettop(L) - narg;
	int status;

	lua_pushcfunction(L, msghandler);
	lua_insert(L, base);
	c->quiet = false;
	sigint_arm(L);
	status = lua_pcall(L, narg, nres, base);
	sigint_disarm(L);
	lua_remove(L, base);
	if (c->exiting) {
		lua_sethook(L, NULL, 0, 0);
		if (status != LUA_OK)
			lua_pop(L, 1);
		return SL_CONSOLE_EXIT;
	}
	if (status != LUA_OK) {
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	return SL_CONSOLE_OK;
}

/* ---- replaced library functions ---- */

/* print, as luaB_print, but through the console's writer. */
static int l_print(lua_State *L)
{
	int n = lua_gettop(L);
	sl_buf b;

	sl_buf_init(&b);
	for (int i = 1; i <= n; i++) {
		size_t len;
		const char *s = luaL_tolstring(L, i, &len);

		if (i > 1)
			sl_buf_addc(&b, '\t');
		sl_buf_add(&b, s, len);
		lua_pop(L, 1);
	}
	sl_buf_addc(&b, '\n');
	sl_console_write(L, SL_CONSOLE_OUT, b.p, b.len);
	sl_buf_release(&b);
	return 0;
}

static void exit_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	lua_pushlightuserdata(L, (void *)&exit_sentinel);
	lua_error(L);
}

/* os.exit([code [, close]]): record the code and unwind to docall. */
static int l_os_exit(lua_State *L)
{
	sl_console *c = console_of(L);
	int code;

	if (lua_isboolean(L, 1))
		code = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
	else
		code = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
	if (c == NULL)
		return luaL_error(L, "os.exit: no console");
	c->exiting = true;
	c->exit_code = code;
	/* Re-raise at every instruction until docall sees the flag. */
	lua_sethook(L, exit_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT,
		    1);
	if (c->L != L)
		lua_sethook(c->L, exit_hook,
			    LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
	lua_pushlightuserdata(L, (void *)&exit_sentinel);
	return lua_error(L);
}

static int open_all(lua_State *L)
{
	sl_console *c = lua_touserdata(L, 1);

	luaL_openlibs(L);
	lua_pushlightuserdata(L, c);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &console_key);
	lua_pushcfunction(L, l_print);
	lua_setglobal(L, "print");
	lua_getglobal(L, "os");
	lua_pushcfunction(L, l_os_exit);
	lua_setfield(L, -2, "exit");
	lua_pop(L, 1);
	sl_lua_open(L);
	return 0;
}

sl_console *sl_console_new(void)
{
	sl_console *c = calloc(1, sizeof *c);

	if (c == NULL)
		return NULL;
	c->mem = calloc(1, sizeof *c->mem);
	if (c->mem == NULL || (c->L = mem_newstate(c->mem)) == NULL) {
		free(c->mem);
		free(c);
		return NULL;
	}
	c->write = default_write;
	c->prev_ref = LUA_NOREF;
	if (getenv("STREAMLAB_TRANSCRIPT") && *getenv("STREAMLAB_TRANSCRIPT"))
		c->transcript = fopen(getenv("STREAMLAB_TRANSCRIPT"), "a");
	sl_buf_init(&c->prev);
	sl_lua_set_interrupt_guard(guard_arm, guard_disarm);
	sl_buf_init(&c->chunk);
	sl_buf_init(&c->last);
	sl_buf_init(&c->out);
	lua_pushcfunction(c->L, open_all);
	lua_pushlightuserdata(c->L, c);
	if (docall(c, 1, 0) != SL_CONSOLE_OK) {
		sl_console_free(c);
		return NULL;
	}
	return c;
}

void sl_console_free(sl_console *c)
{
	if (c == NULL)
		return;
	lua_close(c->L);
	free(c->mem); /* after lua_close: the allocator counts to the end */
	if (c->transcript)
		fclose(c->transcript);
	for (int i = 0; i < INPUT_KEEP; i++)
		free(c->inputs[i]);
	sl_buf_release(&c->prev);
	sl_buf_release(&c->chunk);
	sl_buf_release(&c->last);
	sl_buf_release(&c->out);
	free(c);
}

void sl_console_set_writer(sl_console *c, sl_console_write_fn fn, void *ud)
{
	c->write = fn ? fn : default_write;
	c->write_ud = fn ? ud : NULL;
}

lua_State *sl_console_state(sl_console *c)
{
	return c->L;
}

int sl_console_exit_code(const sl_console *c)
{
	return c->exit_code;
}

/* ---- printing results ---- */

/* Pretty-print every value on the stack into the console's buffer.  Runs
 * under docall, so a failing __tostring is an ordinary error. */
static int pp_results(lua_State *L)
{
	sl_console *c = console_of(L);
	int n = lua_gettop(L);

	sl_buf_clear(&c->out);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			sl_buf_addc(&c->out, '\t');
		sl_console_pretty(L, i, &c->out);
	}
	return 0;
}

/* Print the nres values on the stack top (then pop them). */
static int print_results(sl_console *c, int nres)
{
	lua_State *L = c->L;
	int status;

	if (nres == 0)
		return SL_CONSOLE_OK;
	if (!lua_checkstack(L, LUA_MINSTACK)) {
		lua_pop(L, nres);
		lua_pushliteral(L, "too many results to print");
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	lua_pushcfunction(L, pp_results);
	lua_insert(L, -nres - 1);
	c->mem->grace = true;
	status = docall(c, nres, 0);
	c->mem->grace = false;
	if (status == SL_CONSOLE_OK) {
		if (sl_buf_failed(&c->out)) {
			lua_pushliteral(
			    L, "not enough memory to print the result");
			sl_console_report(c);
			return SL_CONSOLE_ERROR;
		}
		sl_buf_addc(&c->out, '\n');
		put(c, SL_CONSOLE_OUT, c->out.p, c->out.len);
	}
	return status;
}

/* Run the function on the stack top and print what it returns. */
static int run_and_print(sl_console *c)
{
	lua_State *L = c->L;
	int base = lua_gettop(L) - 1;
	int status = docall(c, 0, LUA_MULTRET);

	if (status != SL_CONSOLE_OK)
		return status;
	return print_results(c, lua_gettop(L) - base);
}

/* ---- chunks ---- */

bool sl_console_ends_in_eof(lua_State *L)
{
	size_t n;
	const char *msg = lua_tolstring(L, -1, &n);
	static const char mark[] = "<eof>";

	return msg && n >= sizeof mark - 1 &&
	       strcmp(msg + n - (sizeof mark - 1), mark) == 0;
}

/* Compile the chunk the lua.c way, "return <chunk>" first (then *expr).
 * Leaves the function (return OK), an error message (ERROR) or nothing
 * (MORE). */
static int compile(sl_console *c, const char *text, size_t len,
		   const char *name, bool *expr)
{
	lua_State *L = c->L;
	const char *ret = lua_pushfstring(L, "return %s", text);
	bool more;

	*expr = false;
	if (luaL_loadbufferx(L, ret, strlen(ret), name, "t") == LUA_OK) {
		lua_remove(L, -2);
		*expr = true;
		return SL_CONSOLE_OK;
	}
	more = sl_console_ends_in_eof(L);
	lua_pop(L, 2);
	if (luaL_loadbufferx(L, text, len, name, "t") == LUA_OK)
		return SL_CONSOLE_OK;
	if (more || sl_console_ends_in_eof(L)) {
		lua_pop(L, 1);
		return SL_CONSOLE_MORE;
	}
	return SL_CONSOLE_ERROR;
}

/* As compile, after the top-level locals became session variables. */
static int compile_input(sl_console *c, const char *text, size_t len,
			 const char *name, bool *expr)
{
	sl_buf src;
	int st;

	sl_buf_init(&src);
	c->mem->grace = true; /* compiling is the console's work */
	sl_console_input_globalize(text, len, &src);
	if (sl_buf_failed(&src)) {
		c->mem->grace = false;
		sl_buf_release(&src);
		lua_pushliteral(c->L, "not enough memory for the input");
		return SL_CONSOLE_ERROR;
	}
	st = compile(c, sl_buf_cstr(&src), src.len, name, expr);
	c->mem->grace = false;
	sl_buf_release(&src);
	return st;
}

static void prev_forget(sl_console *c)
{
	if (c->prev_ref != LUA_NOREF)
		luaL_unref(c->L, LUA_REGISTRYINDEX, c->prev_ref);
	c->prev_ref = LUA_NOREF;
	c->prev_kind = PREV_NONE;
}

void sl_console_keep_input(sl_console *c, int no, const char *text,
			    size_t n)
{
	char **slot = &c->inputs[no % INPUT_KEEP];
	char *s = malloc(n + 1);

	if (s == NULL)
		return;
	memcpy(s, text, n);
	s[n] = '\0';
	free(*slot);
	*slot = s;
}

const char *sl_console_input(const sl_console *c, int no)
{
	if (no < 1 || no > c->input_no || no <= c->input_no - INPUT_KEEP)
		return NULL;
	return c->inputs[no % INPUT_KEEP];
}

/* Run the compiled function on the stack top (below its narg arguments);
 * print what it returns.  On success *ref is the first value (registry;
 * LUA_NOREF when it returned nothing) and *ran true. */
int sl_console_run_input(sl_console *c, int narg, bool keep, int *ref,
			 bool *ran)
{
	lua_State *L = c->L;
	int base = lua_gettop(L) - narg - 1;
	int status = docall(c, narg, LUA_MULTRET);
	int nres;

	/* back at the prompt: what the line's batches wrote is on disk
	 * before the learner looks at (or kills) it */
	sl_lua_sync(L);
	*ref = LUA_NOREF;
	*ran = status == SL_CONSOLE_OK;
	if (status != SL_CONSOLE_OK)
		return status;
	nres = lua_gettop(L) - base;
	if (keep && nres > 0) {
		lua_pushvalue(L, base + 1);
		*ref = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	return print_results(c, nres);
}

/* A complete new input: number it, run it, remember it for continuation. */
static int eval_input(sl_console *c)
{
	const char *text = sl_buf_cstr(&c->chunk);
	int no = c->input_no + 1, st, ref;
	char name[32];
	bool expr, ran;

	snprintf(name, sizeof name, "=[%d]", no);
	st = compile_input(c, text, c->chunk.len, name, &expr);
	c->pending = st == SL_CONSOLE_MORE;
	if (c->pending)
		return st;
	c->input_no = no;
	sl_console_keep_input(c, no, text, c->chunk.len);
	sl_buf_clear(&c->last);
	sl_buf_add(&c->last, c->chunk.p, c->chunk.len);
	prev_forget(c);
	c->prev_cmd = false;
	if (st == SL_CONSOLE_ERROR) {
		sl_console_report(c);
		return st;
	}
	st = sl_console_run_input(c, 0, expr, &ref, &ran);
	if (ran) {
		sl_buf_clear(&c->prev);
		sl_buf_add(&c->prev, c->chunk.p, c->chunk.len);
		c->prev_no = no;
		c->prev_kind = expr ? PREV_EXPR : PREV_STMT;
		c->prev_ref = ref;
	}
	return st;
}

int sl_console_eval_line(sl_console *c, const char *line)
{
	if (c->pending) {
		sl_buf_addc(&c->chunk, '\n');
	} else {
		sl_buf_clear(&c->chunk);
		c->extends = false;
		c->cont = sl_console_input_continues(line);
		if (!c->cont && line[strspn(line, " \t\r\n")] == '\0') {
			sl_buf_clear(&c->last); /* nothing to run or keep */
			return SL_CONSOLE_OK;
		}
	}
	sl_buf_adds(&c->chunk, line);
	if (sl_buf_failed(&c->chunk)) {
		sl_console_cancel(c);
		lua_pushliteral(c->L, "not enough memory for the input line");
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	c->exiting = false;
	return c->cont ? sl_console_eval_cont(c) : eval_input(c);
}

bool sl_console_pending(const sl_console *c)
{
	return c->pending;
}

bool sl_console_continues(const sl_console *c, const char *line)
{
	(void)c;
	return sl_console_input_continues(line);
}

void sl_console_forget(sl_console *c)
{
	prev_forget(c);
	c->prev_cmd = true;
}

void sl_console_cancel(sl_console *c)
{
	c->pending = c->cont = false;
	sl_buf_clear(&c->chunk);
}

const char *sl_console_chunk(const sl_console *c)
{
	return sl_buf_cstr(&c->last);
}

bool sl_console_chunk_extends(const sl_console *c)
{
	return c->extends;
}

int sl_console_finish(sl_console *c)
{
	char name[32];

	if (!c->pending)
		return SL_CONSOLE_OK;
	c->pending = false;
	if (c->cont)
		return sl_console_cont_finish(c);
	/* Compile as a statement once more for lua's own "<eof>" message. */
	snprintf(name, sizeof name, "=[%d]", c->input_no + 1);
	if (luaL_loadbufferx(c->L, sl_buf_cstr(&c->chunk), c->chunk.len, name,
			     "t") == LUA_OK) {
		lua_pop(c->L, 1); /* cannot happen: it was incomplete */
		return SL_CONSOLE_OK;
	}
	sl_console_report(c);
	return SL_CONSOLE_ERROR;
}

int sl_console_eval_chunk(sl_console *c, const char *chunk,
			  const char *chunkname)
{
	c->exiting = false;
	prev_forget(c); /* a command or lesson ran: nothing to continue */
	c->prev_cmd = true;
	if (luaL_loadbufferx(c->L, chunk, strlen(chunk), chunkname, "t") !=
	    LUA_OK) {
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	return run_and_print(c);
}

int sl_console_eval_input(sl_console *c, const char *chunk,
			  const char *chunkname)
{
	bool expr;
	int st;

	c->exiting = false;
	prev_forget(c);
	st = compile_input(c, chunk, strlen(chunk), chunkname, &expr);
	if (st == SL_CONSOLE_MORE) /* the statement's own "<eof>" error */
		st = luaL_loadbufferx(c->L, chunk, strlen(chunk), chunkname,
				      "t") == LUA_OK
			 ? SL_CONSOLE_OK
			 : SL_CONSOLE_ERROR;
	if (st != SL_CONSOLE_OK) {
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	return run_and_print(c);
}

/* ---- run FILE ---- */

/* lua.c's createargtable: script at 0, its arguments after, the words
 * before it (program, "run") at negative indices. */
static void set_arg_table(lua_State *L, int argc, char **argv, int script)
{
	lua_createtable(L, argc - script - 1, script + 1);
	for (int i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i - script);
	}
	lua_setglobal(L, "arg");
}

/* package.path = "DIR/?.lua;DIR/lib/?.lua;" .. package.path */
static void set_package_path(lua_State *L, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dir;

	lua_getglobal(L, "package");
	if (slash == NULL)
		lua_pushliteral(L, ".");
	else
		lua_pushlstring(L, path,
				slash == path ? 1 : (size_t)(slash - path));
	lua_getfield(L, -2, "path");
	dir = lua_tostring(L, -2);
	lua_pushfstring(L, "%s/?.lua;%s/lib/?.lua;%s", dir, dir,
			lua_tostring(L, -1));
	lua_setfield(L, -4, "path");
	lua_pop(L, 3);
}

/* Read the file; a first line starting with '#' (a shebang) is blanked
 * but its newline kept, so line numbers stay right. */
static int read_script(sl_console *c, const char *path, sl_buf *b)
{
	FILE *f = fopen(path, "rb");
	char tmp[8192];
	size_t n;

	if (f == NULL) {
		lua_pushfstring(c->L, "cannot open %s: %s", path,
				strerror(errno));
		return -1;
	}
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		sl_buf_add(b, tmp, n);
	if (ferror(f) || sl_buf_failed(b)) {
		lua_pushfstring(c->L, "cannot read %s", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (b->len > 0 && b->p[0] == '#') {
		size_t i = 0;

		while (i < b->len && b->p[i] != '\n')
			b->p[i++] = ' ';
	}
	return 0;
}

int sl_console_run_file(sl_console *c, int argc, char **argv, int script)
{
	lua_State *L = c->L;
	const char *path = argv[script];
	int nargs = argc - script - 1;
	sl_buf src;
	int status;

	c->exiting = false;
	set_arg_table(L, argc, argv, script);
	set_package_path(L, path);
	sl_buf_init(&src);
	if (read_script(c, path, &src) != 0) {
		sl_buf_release(&src);
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	lua_pushfstring(L, "=%s", path);
	status = luaL_loadbufferx(L, sl_buf_cstr(&src), src.len,
				  lua_tostring(L, -1), "t");
	sl_buf_release(&src);
	lua_remove(L, -2);
	if (status != LUA_OK) {
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	if (!lua_checkstack(L, nargs + 3)) {
		lua_pop(L, 1);
		lua_pushliteral(L, "too many arguments to the script");
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	for (int i = script + 1; i < argc; i++)
		lua_pushstring(L, argv[i]);
	status = docall(c, nargs, 0);
	sl_lua_sync(L); /* the script's last batches are on disk at exit */
	return status;
}
