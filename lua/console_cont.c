/*
 * console_cont: the continuation rule of the REPL (console.h,
 * sl_console_eval_line), the part of the console that lets a method chain
 * be typed line by line.
 *
 * The rule: a line that starts with ':' Name followed by '(' '{' or a
 * string, or with '.' Name, continues the input before it (prev), which
 * has already run.  prev is never run again (its side effects, a start()
 * say, happen once).  Instead the line applies to prev's *value*:
 *   prev an expression E:        (value of E) .. line, printed as usual;
 *   prev `[local] name = E`:     name = name .. line.
 * That is the meaning prev and the line have together (the join) exactly
 * when the line continues E as a whole, which is checked with Lua's own
 * parser: the join must compile to the same code as the join with E in
 * parentheses (else the line would bind to the last operand of E, as in
 * `x = a .. b` then `:upper()`, and is refused with a hint).  The joined
 * text becomes prev, and input prev_no's text and history entry, so an
 * error names [12]:4, the fourth line of the chain the learner typed.
 *
 * Why not the alternatives.  Holding every complete line until the next
 * one shows it is not continued (a ';' as psql wants, a blank line as
 * Python's prompt) would change what every line does: `1+1` would wait.
 * Running prev again joined with the line would repeat its side effects:
 * `q = df.writeStream:format("console")` then `:start()` is fine, but
 * `q = ...:start()` then `:awaitTermination()` would start a second query.
 * Applying the line to the value is what the learner meant and runs
 * nothing twice.  What it cannot continue (an input that failed, returned
 * nothing, or is a statement other than one assignment) is refused with a
 * one-line error saying which; a chain in parentheses always works.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "console.h"
#include "console_int.h"

typedef struct cont_form {
	sl_buf join;  /* prev .. "\n" .. line: what the learner means */
	sl_buf paren; /* the same with prev's expression in parentheses */
	sl_buf run;   /* what runs: the line applied to the value */
	bool value;   /* run takes prev's value as its argument (...) */
} cont_form;

static void cont_release(cont_form *f)
{
	sl_buf_release(&f->join);
	sl_buf_release(&f->paren);
	sl_buf_release(&f->run);
}

/* Build the form: 0 = "return" (expression) or assignment, 1 = a call
 * statement (an expression prev followed by more statements).  Returns
 * false when prev has no such form (a message is pushed). */
static bool cont_build(sl_console *c, int form, cont_form *f)
{
	const char *p = sl_buf_cstr(&c->prev), *line = sl_buf_cstr(&c->chunk);
	size_t nl = 1, at, len, rhs;

	sl_buf_init(&f->join);
	sl_buf_init(&f->paren);
	sl_buf_init(&f->run);
	for (const char *s = p; *s; s++)
		nl += *s == '\n';
	sl_buf_pad(&f->run, '\n', nl); /* the line keeps its line number */
	f->value = c->prev_kind == PREV_EXPR;
	if (c->prev_kind == PREV_EXPR) {
		const char *ret = form == 0 ? "return " : "";
		sl_buf_printf(&f->join, "%s%s\n%s", ret, p, line);
		sl_buf_printf(&f->paren, "%s(%s\n)%s", ret, p, line);
		sl_buf_printf(&f->run, "%s(...)", ret);
	} else if (!sl_console_input_assignment(p, c->prev.len, &at, &len,
						&rhs)) {
		lua_pushfstring(c->L,
				"input [%d] is neither an expression nor an "
				"assignment 'name = ...'",
				c->prev_no);
		return false;
	} else {
		sl_buf_printf(&f->join, "%s\n%s", p, line);
		sl_buf_printf(&f->paren, "%.*s(%s\n)%s", (int)rhs, p, p + rhs,
			      line);
		sl_buf_printf(&f->run, "%.*s = %.*s", (int)len, p + at,
			      (int)len, p + at);
	}
	/* run keeps the line's own text, locals made session variables */
	sl_console_input_globalize(line, c->chunk.len, &f->run);
	if (sl_buf_failed(&f->join) || sl_buf_failed(&f->paren) ||
	    sl_buf_failed(&f->run)) {
		lua_pushliteral(c->L, "not enough memory for the input");
		return false;
	}
	return true;
}

static int dump_add(lua_State *L, const void *p, size_t n, void *ud)
{
	(void)L;
	sl_buf_add(ud, p, n);
	return 0;
}

/* Do two texts compile to the same code?  Both must compile. */
static bool same_code(sl_console *c, const sl_buf *a, const sl_buf *b)
{
	lua_State *L = c->L;
	sl_buf da, db;
	bool same = false;

	if (luaL_loadbufferx(L, a->p, a->len, "=a", "t") != LUA_OK) {
		lua_pop(L, 1);
		return false;
	}
	if (luaL_loadbufferx(L, b->p, b->len, "=b", "t") != LUA_OK) {
		lua_pop(L, 2);
		return false;
	}
	sl_buf_init(&da);
	sl_buf_init(&db);
	lua_dump(L, dump_add, &db, 1);
	lua_pop(L, 1);
	lua_dump(L, dump_add, &da, 1);
	lua_pop(L, 1);
	same = !sl_buf_failed(&da) && !sl_buf_failed(&db) && da.len == db.len &&
	       memcmp(da.p, db.p, da.len) == 0;
	sl_buf_release(&da);
	sl_buf_release(&db);
	return same;
}

/* Write a one-line refusal of the continuation line. */
static int cont_refuse(sl_console *c, const char *why)
{
	const char *line = sl_buf_cstr(&c->chunk);
	size_t n;

	line += strspn(line, " \t");
	n = strcspn(line, "\n");
	sl_buf_clear(&c->last);
	sl_buf_add(&c->last, c->chunk.p, c->chunk.len);
	c->pending = c->cont = false;
	lua_pushfstring(c->L, "'%s%s' continues the input above it, but %s",
			lua_pushlstring(c->L, line, n > 40 ? 40 : n),
			n > 40 ? "..." : "", why);
	lua_remove(c->L, -2);
	sl_console_report(c);
	return SL_CONSOLE_ERROR;
}

/* Compile f's join under prev's name: OK, MORE or ERROR (message left). */
static int cont_compile(sl_console *c, const cont_form *f)
{
	char name[32];

	snprintf(name, sizeof name, "=[%d]", c->prev_no);
	if (luaL_loadbufferx(c->L, f->join.p, f->join.len, name, "t") ==
	    LUA_OK) {
		lua_pop(c->L, 1);
		return SL_CONSOLE_OK;
	}
	if (sl_console_ends_in_eof(c->L)) {
		lua_pop(c->L, 1);
		return SL_CONSOLE_MORE;
	}
	return SL_CONSOLE_ERROR;
}

/* Pick the form whose join compiles: 0 or 1; -1 when none does (MORE or
 * ERROR in *st, ERROR with the message pushed); -2 when prev has no form
 * (the reason pushed). */
static int cont_pick(sl_console *c, cont_form *f, int *st)
{
	for (int form = 0; form < (c->prev_kind == PREV_EXPR ? 2 : 1); form++) {
		if (!cont_build(c, form, f)) {
			cont_release(f);
			*st = SL_CONSOLE_ERROR;
			return -2; /* the reason is pushed */
		}
		*st = cont_compile(c, f);
		if (*st == SL_CONSOLE_OK)
			return form;
		if (*st == SL_CONSOLE_MORE || form == 1 ||
		    c->prev_kind != PREV_EXPR) {
			cont_release(f);
			return -1;
		}
		lua_pop(c->L, 1); /* try the statement form */
		cont_release(f);
	}
	return -1;
}

/* The join failed: would it compile with prev's expression in
 * parentheses ("abc" then :upper())? */
static bool paren_compiles(sl_console *c)
{
	cont_form f;
	bool ok;

	if (!cont_build(c, 0, &f)) {
		lua_pop(c->L, 1);
		cont_release(&f);
		return false;
	}
	ok =
	    luaL_loadbufferx(c->L, f.paren.p, f.paren.len, "=p", "t") == LUA_OK;
	lua_pop(c->L, 1);
	cont_release(&f);
	return ok;
}

int sl_console_eval_cont(sl_console *c)
{
	lua_State *L = c->L;
	char name[32];
	cont_form f;
	int st, ref, form;
	bool ran;

	if (c->prev_kind == PREV_NONE)
		return cont_refuse(c, c->prev_cmd ? "a command ran after it"
				      : c->input_no == 0
					  ? "there is none"
					  : "the input above did not run");
	if (c->prev_kind == PREV_EXPR && c->prev_ref == LUA_NOREF) {
		char why[80];
		snprintf(why, sizeof why, "input [%d] returned no value",
			 c->prev_no);
		return cont_refuse(c, why);
	}
	if ((form = cont_pick(c, &f, &st)) < 0) {
		c->pending = st == SL_CONSOLE_MORE;
		if (c->pending)
			return st;
		if (form == -2) {
			char why[160];
			snprintf(why, sizeof why, "%s", lua_tostring(L, -1));
			lua_pop(L, 1);
			return cont_refuse(c, why);
		}
		if (paren_compiles(c)) {
			lua_pop(L, 1);
			return cont_refuse(c, "in Lua a literal needs "
					      "parentheses before ':' or '.', "
					      "e.g. (\"abc\"):upper()");
		}
		c->cont = false;
		sl_buf_clear(&c->last);
		sl_buf_add(&c->last, c->chunk.p, c->chunk.len);
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	c->pending = false;
	if (!same_code(c, &f.join, &f.paren)) {
		char why[120];
		snprintf(why, sizeof why,
			 "it would apply to the last part of [%d], not to "
			 "its value: put that in parentheses",
			 c->prev_no);
		cont_release(&f);
		return cont_refuse(c, why);
	}
	c->cont = false;
	snprintf(name, sizeof name, "=[%d]", c->prev_no);
	sl_buf_clear(&c->last);
	sl_buf_add(&c->last, c->chunk.p, c->chunk.len);
	if (luaL_loadbufferx(L, f.run.p, f.run.len, name, "t") != LUA_OK) {
		cont_release(&f);
		sl_console_report(c);
		return SL_CONSOLE_ERROR;
	}
	if (f.value)
		lua_rawgeti(L, LUA_REGISTRYINDEX, c->prev_ref);
	st = sl_console_run_input(c, f.value ? 1 : 0, f.value, &ref, &ran);
	if (ran) {
		/* the join is input prev_no now: its text, its history */
		sl_buf_addc(&c->prev, '\n');
		sl_buf_add(&c->prev, c->chunk.p, c->chunk.len);
		sl_console_keep_input(c, c->prev_no, c->prev.p, c->prev.len);
		sl_buf_clear(&c->last);
		sl_buf_add(&c->last, c->prev.p, c->prev.len);
		c->extends = true;
		if (c->prev_ref != LUA_NOREF)
			luaL_unref(L, LUA_REGISTRYINDEX, c->prev_ref);
		c->prev_ref = ref;
	} else if (ref != LUA_NOREF) {
		luaL_unref(L, LUA_REGISTRYINDEX, ref);
	}
	cont_release(&f);
	return st;
}

int sl_console_cont_finish(sl_console *c)
{
	cont_form f;
	int st;

	/* the join's own "<eof>" message */
	c->pending = c->cont = false;
	if (cont_pick(c, &f, &st) >= 0) {
		cont_release(&f);
		return SL_CONSOLE_OK; /* cannot happen: it was incomplete */
	}
	sl_console_report(c);
	return SL_CONSOLE_ERROR;
}
