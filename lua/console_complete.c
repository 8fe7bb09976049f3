/*
 * console_complete: Tab completion of Lua names (sl_console_complete in
 * console.h), for the readline REPL now and the ncurses workbench later.
 *
 * The word before the cursor is split at its last '.' or ':' into a path
 * and a partial name.  The path is looked up only when it is a plain dotted
 * name ("spark", "a.b.c"), with raw reads that follow __index *tables*:
 * completion never runs Lua code, so pressing Tab cannot have an effect
 * (Flink learnt this the hard way, FLINK-28003).  Candidates come from the
 * value's own keys, its __index tables, and, where __index is a C function,
 * what the metatable declares by the convention of the bindings in lua/:
 * `methods` (offered after ':') and `fields` (offered after '.').
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <lauxlib.h>

#include "console.h"
#include "driver/session.h"
#include "plan/catalog.h"
#include "plan/plan.h"
#include "sl_lua.h"

typedef struct complete_req {
	const char *word;
	void (*add)(void *ud, const char *cand);
	void *ud;
	int count;
} complete_req;

static bool is_name_char(char ch, bool first)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') ||
	       (ch >= 'A' && ch <= 'Z') || (!first && ch >= '0' && ch <= '9');
}

/* Is s[0..n) a plain dotted name path ("spark", "a.b.c")? */
static bool is_name_path(const char *s, size_t n)
{
	bool first = true;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.' && !first) {
			first = true;
			continue;
		}
		if (!is_name_char(s[i], first))
			return false;
		first = false;
	}
	return !first;
}

/* Replace the value on the top with the next table to search: itself if a
 * table, then its metatable's __index while that is a table.  Pushes
 * nothing new; leaves nil when there is none. */
static void next_index_table(lua_State *L)
{
	if (!lua_getmetatable(L, -1)) {
		lua_pop(L, 1);
		lua_pushnil(L);
		return;
	}
	lua_pushliteral(L, "__index");
	lua_rawget(L, -2);
	lua_replace(L, -3);
	lua_pop(L, 1);
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		lua_pushnil(L);
	}
}

/* Replace the value on the top by its field name, read raw through
 * __index tables only (no code runs); nil when absent. */
static void raw_field(lua_State *L, const char *name, size_t len)
{
	for (int hop = 0; hop < 8 && !lua_isnil(L, -1); hop++) {
		if (lua_istable(L, -1)) {
			lua_pushlstring(L, name, len);
			if (lua_rawget(L, -2) != LUA_TNIL) {
				lua_replace(L, -2);
				return;
			}
			lua_pop(L, 1);
		}
		next_index_table(L);
	}
	lua_pop(L, 1);
	lua_pushnil(L);
}

typedef struct name_filter {
	int set;            /* the result set table */
	const char *prefix; /* what the name must start with */
	size_t plen;
	bool methods; /* after ':': functions only */
	bool meta;    /* "__" names asked for */
} name_filter;

static void add_name(lua_State *L, const name_filter *f, const char *k,
		     size_t n)
{
	if (n >= f->plen && memcmp(k, f->prefix, f->plen) == 0 &&
	    is_name_path(k, n) && memchr(k, '.', n) == NULL &&
	    (f->meta || n < 2 || k[0] != '_' || k[1] != '_')) {
		lua_pushlstring(L, k, n);
		lua_pushboolean(L, 1);
		lua_rawset(L, f->set);
	}
}

/* The string keys of the table on the top (not popped). */
static void add_keys(lua_State *L, const name_filter *f)
{
	lua_pushnil(L);
	while (lua_next(L, -2) != 0) {
		if (lua_type(L, -2) == LUA_TSTRING &&
		    (!f->methods || lua_isfunction(L, -1))) {
			size_t n;
			const char *k = lua_tolstring(L, -2, &n);
			add_name(L, f, k, n);
		}
		lua_pop(L, 1);
	}
}

/* The names a metatable with a C __index declares, by the convention of
 * the Lua bindings (lua/): `methods` (a table of functions, after ':') and
 * `fields` (an array of property names, after '.'). */
static void add_declared(lua_State *L, const name_filter *f)
{
	if (f->methods) {
		if (lua_getfield(L, -1, "methods") == LUA_TTABLE)
			add_keys(L, f);
		lua_pop(L, 1);
		return;
	}
	if (lua_getfield(L, -1, "fields") == LUA_TTABLE) {
		for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING;
		     i++) {
			size_t n;
			const char *k = lua_tolstring(L, -1, &n);
			add_name(L, f, k, n);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

/* Add the names reachable from the value on the top (popped) into f->set:
 * its own keys if a table, then along __index tables; a metatable whose
 * __index is a function contributes what it declares (add_declared). */
static void collect_names(lua_State *L, const name_filter *f)
{
	for (int hop = 0; hop < 8 && !lua_isnil(L, -1); hop++) {
		if (lua_istable(L, -1))
			add_keys(L, f);
		if (!lua_getmetatable(L, -1))
			break;
		lua_pushliteral(L, "__index");
		if (lua_rawget(L, -2) == LUA_TTABLE) {
			lua_replace(L, -3);
			lua_pop(L, 1);
			continue;
		}
		lua_pop(L, 1);
		add_declared(L, f);
		lua_pop(L, 1);
		break;
	}
	lua_pop(L, 1);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Hand the names of the set table at idx to r->add, sorted, each after the
 * first plen bytes of the word (its path and separator). */
static int emit_sorted(lua_State *L, int set, complete_req *r, size_t plen)
{
	const char **names;
	sl_buf cand;
	int n = 0;

	lua_pushnil(L);
	while (lua_next(L, set) != 0) {
		lua_pop(L, 1);
		n++;
	}
	names = lua_newuserdatauv(L, sizeof *names * (size_t)(n + 1), 0);
	n = 0;
	lua_pushnil(L);
	while (lua_next(L, set) != 0) {
		lua_pop(L, 1);
		names[n++] = lua_tostring(L, -1); /* anchored in set */
	}
	qsort(names, (size_t)n, sizeof *names, cmp_str);
	sl_buf_init(&cand);
	for (int i = 0; i < n; i++) {
		sl_buf_clear(&cand);
		sl_buf_add(&cand, r->word, plen);
		sl_buf_adds(&cand, names[i]);
		if (!sl_buf_failed(&cand))
			r->add(r->ud, sl_buf_cstr(&cand));
	}
	sl_buf_release(&cand);
	return n;
}

static int complete_k(lua_State *L)
{
	static const char *const keywords[] = {
		"and",   "break", "do",       "else", "elseif", "end",
		"false", "for",   "function", "goto", "if",     "in",
		"local", "nil",   "not",      "or",   "repeat", "return",
		"then",  "true",  "until",    "while"
	};
	complete_req *r = lua_touserdata(L, 1);
	const char *w = r->word, *last = NULL;
	size_t head;
	name_filter f;

	for (const char *q = strpbrk(w, ".:"); q; q = strpbrk(q + 1, ".:"))
		last = q;
	head = last ? (size_t)(last - w) : 0;
	if (last && (!is_name_path(w, head) || memchr(w, ':', head)))
		return 0;
	lua_newtable(L);
	f.set = lua_gettop(L);
	f.prefix = last ? last + 1 : w;
	f.plen = strlen(f.prefix);
	f.methods = last && *last == ':';
	f.meta = f.prefix[0] == '_' && f.prefix[1] == '_';
	lua_pushglobaltable(L);
	for (size_t i = 0; i < head;) {
		size_t j = i;
		while (j < head && w[j] != '.')
			j++;
		raw_field(L, w + i, j - i);
		i = j + 1;
	}
	collect_names(L, &f);
	for (size_t i = 0; !last && i < sizeof keywords / sizeof *keywords; i++)
		add_name(L, &f, keywords[i], strlen(keywords[i]));
	r->count = emit_sorted(L, f.set, r, last ? head + 1 : 0);
	return 0;
}

int sl_console_complete(sl_console *c, const char *word,
			void (*add)(void *ud, const char *cand), void *ud)
{
	complete_req r = { word, add, ud, 0 };
	lua_State *L = sl_console_state(c);
	int top = lua_gettop(L);

	lua_pushcfunction(L, complete_k);
	lua_pushlightuserdata(L, &r);
	if (lua_pcall(L, 1, 0, 0) != LUA_OK)
		r.count = 0; /* out of memory: no candidates */
	lua_settop(L, top);
	return r.count;
}

/* ---- SQL (the prompt's SQL mode) ----
 * Candidates for the word before the cursor: SQL keywords (in the case the
 * word starts with), the session's tables and views, the columns of those
 * the statement names (of every one while it names none), the functions of
 * F; after "name." the columns of table name.  Names match without regard
 * to case, as Spark's analyzer resolves them (spark.sql.caseSensitive is
 * false).  Nothing runs: the schemas of the catalog's plans are read. */

typedef struct sql_req {
	complete_req r;
	const char *context; /* the statement before the word */
} sql_req;

static bool has_prefix_ci(const char *s, const char *prefix, size_t n)
{
	return strncasecmp(s, prefix, n) == 0;
}

static void sql_add(lua_State *L, int set, const char *name, const char *prefix,
		    size_t plen)
{
	if (has_prefix_ci(name, prefix, plen) && strlen(name) > 0) {
		lua_pushstring(L, name);
		lua_pushboolean(L, 1);
		lua_rawset(L, set);
	}
}

/* Does the statement name table `name` (as a whole word)? */
static bool names_table(const char *ctx, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = ctx; (p = strcasestr(p, name)) != NULL; p += n) {
		bool before = p == ctx || !is_name_char(p[-1], false);
		bool after = !is_name_char(p[n], false);
		if (before && after)
			return true;
	}
	return false;
}

/* Does the context end in FROM or JOIN (a table name comes next)? */
static bool after_table_word(const char *ctx)
{
	size_t n = strlen(ctx), e, b;

	for (e = n; e > 0 && strchr(" \t\r\n", ctx[e - 1]); e--)
		;
	for (b = e; b > 0 && is_name_char(ctx[b - 1], false); b--)
		;
	return e > b && ((e - b == 4 && strncasecmp(ctx + b, "from", 4) == 0) ||
			 (e - b == 4 && strncasecmp(ctx + b, "join", 4) == 0));
}

static void sql_columns(lua_State *L, int set, sl_catalog *cat,
			const char *table, const char *prefix, size_t plen)
{
	sl_plan *p = sl_catalog_plan(cat, table, NULL); /* views too */
	sl_type *st = p ? sl_plan_schema(p) : NULL;

	for (int i = 0; st && i < st->nfields; i++)
		sql_add(L, set, st->fields[i].name, prefix, plen);
	sl_plan_free(p);
}

static int complete_sql_k(lua_State *L)
{
	static const char *const keywords[] = {
		"SELECT",
		"DISTINCT",
		"FROM",
		"WHERE",
		"GROUP",
		"BY",
		"HAVING",
		"ORDER",
		"LIMIT",
		"AS",
		"AND",
		"OR",
		"NOT",
		"NULL",
		"IS",
		"IN",
		"LIKE",
		"BETWEEN",
		"CASE",
		"WHEN",
		"THEN",
		"ELSE",
		"END",
		"CAST",
		"JOIN",
		"INNER",
		"LEFT",
		"RIGHT",
		"FULL",
		"OUTER",
		"SEMI",
		"ON",
		"USING",
		"UNION",
		"ALL",
		"WITH",
		"ASC",
		"DESC",
		"TRUE",
		"FALSE",
		"INTERVAL",
		"SHOW",
		"TABLES",
		"DESCRIBE",
		"EXPLAIN",
		"window",
		"session_window",
	};
	sql_req *q = lua_touserdata(L, 1);
	const char *w = q->r.word, *dot = strrchr(w, '.');
	sl_catalog *cat = sl_session_catalog(sl_lua_session(L));
	int set, ntables = sl_catalog_count(cat), named = 0;
	bool lower = w[0] >= 'a' && w[0] <= 'z';
	const char *prefix = dot ? dot + 1 : w;
	size_t plen = strlen(prefix);
	char kw[32];

	lua_newtable(L);
	set = lua_gettop(L);
	if (dot) { /* table.column */
		char *t = strndup(w, (size_t)(dot - w));
		if (t != NULL)
			sql_columns(L, set, cat, t, prefix, plen);
		free(t);
		q->r.count = emit_sorted(L, set, &q->r, (size_t)(dot - w) + 1);
		return 0;
	}
	if (after_table_word(q->context)) { /* FROM, JOIN: a table */
		for (int i = 0; i < ntables; i++)
			sql_add(L, set, sl_catalog_name(cat, i), prefix, plen);
		q->r.count = emit_sorted(L, set, &q->r, 0);
		return 0;
	}
	for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++) {
		size_t k = 0;
		for (; keywords[i][k] && k + 1 < sizeof kw; k++)
			kw[k] =
			    lower ? (char)tolower((unsigned char)keywords[i][k])
				  : keywords[i][k];
		kw[k] = '\0';
		sql_add(L, set, kw, prefix, plen);
	}
	for (int i = 0; i < ntables; i++) {
		const char *t = sl_catalog_name(cat, i);
		sql_add(L, set, t, prefix, plen);
		if (names_table(q->context, t)) {
			sql_columns(L, set, cat, t, prefix, plen);
			named++;
		}
	}
	for (int i = 0; named == 0 && i < ntables; i++)
		sql_columns(L, set, cat, sl_catalog_name(cat, i), prefix, plen);
	if (lua_getglobal(L, "F") == LUA_TTABLE) { /* the functions */
		lua_pushnil(L);
		while (lua_next(L, -2) != 0) {
			if (lua_type(L, -2) == LUA_TSTRING &&
			    lua_isfunction(L, -1) && plen > 0)
				sql_add(L, set, lua_tostring(L, -2), prefix,
					plen);
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
	q->r.count = emit_sorted(L, set, &q->r, 0);
	return 0;
}

int sl_console_complete_sql(sl_console *c, const char *word,
			    const char *context,
			    void (*add)(void *ud, const char *cand), void *ud)
{
	sql_req q = { { word, add, ud, 0 }, context ? context : "" };
	lua_State *L = sl_console_state(c);
	int top = lua_gettop(L);

	lua_pushcfunction(L, complete_sql_k);
	lua_pushlightuserdata(L, &q);
	if (lua_pcall(L, 1, 0, 0) != LUA_OK)
		q.r.count = 0;
	lua_settop(L, top);
	return q.r.count;
}
