/*
 * console_pp: the REPL's pretty-printer (sl_console_pretty in console.h).
 *
 *   "x"                      strings, quoted and escaped (valid Lua)
 *   42   1.5   true   nil    as Lua prints them
 *   {1, 2, a = 1, ["b c"] = {x = 1}}
 *
 * Tables print their array part 1..n first, in order, then the other keys
 * sorted by type (boolean, number, string, others) and then by value, so the
 * output is the same on every run: Lua 5.4 seeds string hashes per state,
 * and pairs() order changes between runs.  Nesting stops at
 * SL_CONSOLE_MAX_DEPTH ({...}), a table met again on the current path
 * prints <cycle>, each table shows at most SL_CONSOLE_MAX_ITEMS entries and
 * a result at most SL_CONSOLE_MAX_BYTES bytes.  Tables with __tostring,
 * userdata and functions go through luaL_tolstring.
 *
 * Text is built in the caller's sl_buf, never a luaL_Buffer: a luaL_Buffer
 * must stay on the stack top, and the traversal pushes keys and values.  The
 * key array for sorting is a userdata, so an error (a failing __tostring)
 * leaks nothing.  Reads are raw: no __index or __pairs code runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "console.h"

typedef struct pp {
	sl_buf *b;
	size_t limit; /* b->len past which we stop */
	int depth;
	const void *path[SL_CONSOLE_MAX_DEPTH + 1];
} pp;

/* One non-array key, by value for sorting; slot indexes the key table. */
typedef struct pp_key {
	int type;
	int slot;
	lua_Integer i;
	lua_Number n;
	bool isint;
	const char *s;
	size_t len;
	const void *ptr;
} pp_key;

static void pp_value(lua_State *L, pp *p, int idx);

static bool pp_full(const pp *p)
{
	return p->b->len >= p->limit || sl_buf_failed(p->b);
}

static void pp_quote(sl_buf *b, const char *s, size_t n)
{
	sl_buf_addc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		switch (ch) {
		case '"': sl_buf_adds(b, "\\\""); break;
		case '\\': sl_buf_adds(b, "\\\\"); break;
		case '\n': sl_buf_adds(b, "\\n"); break;
		case '\r': sl_buf_adds(b, "\\r"); break;
		case '\t': sl_buf_adds(b, "\\t"); break;
		default:
			if (ch < 0x20 || ch == 0x7f) {
				bool digit = i + 1 < n && s[i + 1] >= '0' &&
					     s[i + 1] <= '9';
				if (digit)
					sl_buf_printf(b, "\\%03u", ch);
				else
					sl_buf_printf(b, "\\%u", ch);
			} else {
				sl_buf_addc(b, (char)ch);
			}
		}
		if (b->oom)
			return;
	}
	sl_buf_addc(b, '"');
}

static bool is_identifier(const char *s, size_t n)
{
	static const char *const reserved[] = {
		"and",   "break", "do",       "else", "elseif", "end",
		"false", "for",   "function", "goto", "if",     "in",
		"local", "nil",   "not",      "or",   "repeat", "return",
		"then",  "true",  "until",    "while"
	};

	if (n == 0 ||
	    !(s[0] == '_' || ((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++) {
		char ch = s[i];
		if (!(ch == '_' || (ch >= '0' && ch <= '9') ||
		      ((ch | 32) >= 'a' && (ch | 32) <= 'z')))
			return false;
	}
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strlen(reserved[i]) == n && memcmp(reserved[i], s, n) == 0)
			return false;
	return true;
}

/* luaL_tolstring's text for the value at idx. */
static void pp_tostring(lua_State *L, pp *p, int idx)
{
	size_t n;
	const char *s = luaL_tolstring(L, idx, &n);

	sl_buf_add(p->b, s, n);
	lua_pop(L, 1);
}

static int type_rank(int t)
{
	switch (t) {
	case LUA_TBOOLEAN: return 0;
	case LUA_TNUMBER: return 1;
	case LUA_TSTRING: return 2;
	default: return 3 + t;
	}
}

static int cmp_key(const void *va, const void *vb)
{
	const pp_key *a = va, *b = vb;
	int ra = type_rank(a->type), rb = type_rank(b->type);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	switch (a->type) {
	case LUA_TBOOLEAN: return (int)a->i - (int)b->i;
	case LUA_TNUMBER:
		if (a->isint && b->isint)
			return a->i < b->i ? -1 : a->i > b->i;
		return a->n < b->n ? -1 : a->n > b->n;
	case LUA_TSTRING: {
		size_t m = a->len < b->len ? a->len : b->len;
		int r = memcmp(a->s, b->s, m);
		if (r != 0)
			return r;
		return a->len < b->len ? -1 : a->len > b->len;
	}
	default:
		return (uintptr_t)a->ptr < (uintptr_t)b->ptr
			   ? -1
			   : (uintptr_t)a->ptr > (uintptr_t)b->ptr;
	}
}

/* The key at the stack top, as a table key prints: name, ["s"], [1.5]. */
static void pp_key_text(lua_State *L, pp *p)
{
	size_t n;

	if (lua_type(L, -1) == LUA_TSTRING) {
		const char *s = lua_tolstring(L, -1, &n);
		if (is_identifier(s, n)) {
			sl_buf_add(p->b, s, n);
			return;
		}
	}
	sl_buf_addc(p->b, '[');
	pp_value(L, p, lua_gettop(L));
	sl_buf_addc(p->b, ']');
}

/* Print the array part 1..n of table t; returns n. */
static lua_Integer pp_array(lua_State *L, pp *p, int t, int *shown)
{
	lua_Integer n = 0;

	while (lua_rawgeti(L, t, n + 1) != LUA_TNIL) {
		n++;
		if (*shown < SL_CONSOLE_MAX_ITEMS && !pp_full(p)) {
			if (*shown > 0)
				sl_buf_adds(p->b, ", ");
			pp_value(L, p, lua_gettop(L));
			(*shown)++;
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return n;
}

/* Collect keys other than 1..narr into a new table (pushed) and a sorted
 * userdata array (pushed above it); returns the count. */
static int pp_keys(lua_State *L, int t, lua_Integer narr, pp_key **out)
{
	int nkeys = 0;
	pp_key *keys;

	lua_newtable(L);
	lua_pushnil(L);
	while (lua_next(L, t) != 0) {
		lua_pop(L, 1);
		if (lua_isinteger(L, -1)) {
			lua_Integer i = lua_tointeger(L, -1);
			if (i >= 1 && i <= narr)
				continue;
		}
		lua_pushvalue(L, -1);
		lua_rawseti(L, -3, ++nkeys);
	}
	keys = lua_newuserdatauv(L, sizeof *keys * (size_t)(nkeys + 1), 0);
	for (int k = 0; k < nkeys; k++) {
		pp_key *e = &keys[k];

		lua_rawgeti(L, -2, k + 1);
		memset(e, 0, sizeof *e);
		e->slot = k + 1;
		e->type = lua_type(L, -1);
		if (e->type == LUA_TBOOLEAN) {
			e->i = lua_toboolean(L, -1);
		} else if (e->type == LUA_TNUMBER) {
			e->isint = lua_isinteger(L, -1);
			e->i = lua_tointeger(L, -1);
			e->n = lua_tonumber(L, -1);
		} else if (e->type == LUA_TSTRING) {
			/* anchored by the key table below us */
			e->s = lua_tolstring(L, -1, &e->len);
		} else {
			e->ptr = lua_topointer(L, -1);
		}
		lua_pop(L, 1);
	}
	qsort(keys, (size_t)nkeys, sizeof *keys, cmp_key);
	*out = keys;
	return nkeys;
}

static void pp_table(lua_State *L, pp *p, int t)
{
	const void *self = lua_topointer(L, t);
	int shown = 0, nkeys;
	lua_Integer narr;
	pp_key *keys;

	for (int d = 0; d < p->depth; d++)
		if (p->path[d] == self) {
			sl_buf_adds(p->b, "<cycle>");
			return;
		}
	if (p->depth >= SL_CONSOLE_MAX_DEPTH) {
		lua_pushnil(L);
		if (lua_next(L, t) != 0) {
			lua_pop(L, 2);
			sl_buf_adds(p->b, "{...}");
		} else {
			sl_buf_adds(p->b, "{}");
		}
		return;
	}
	luaL_checkstack(L, 8, "table too deep to print");
	p->path[p->depth++] = self;
	sl_buf_addc(p->b, '{');
	narr = pp_array(L, p, t, &shown);
	nkeys = pp_keys(L, t, narr, &keys);
	for (int k = 0; k < nkeys && shown < SL_CONSOLE_MAX_ITEMS; k++) {
		if (pp_full(p))
			break;
		if (shown++ > 0)
			sl_buf_adds(p->b, ", ");
		lua_rawgeti(L, -2, keys[k].slot);
		pp_key_text(L, p);
		sl_buf_adds(p->b, " = ");
		lua_rawget(L, t);
		pp_value(L, p, lua_gettop(L));
		lua_pop(L, 1);
	}
	if (narr + nkeys > shown)
		sl_buf_printf(p->b, "%s... (%lld more)", shown ? ", " : "",
			      (long long)(narr + nkeys - shown));
	lua_pop(L, 2);
	sl_buf_addc(p->b, '}');
	p->depth--;
}

static void pp_value(lua_State *L, pp *p, int idx)
{
	size_t n;
	const char *s;

	if (pp_full(p))
		return;
	switch (lua_type(L, idx)) {
	case LUA_TSTRING:
		s = lua_tolstring(L, idx, &n);
		if (n > p->limit - p->b->len)
			n = p->limit - p->b->len; /* cut again below */
		pp_quote(p->b, s, n);
		break;
	case LUA_TTABLE:
		if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
			lua_pop(L, 1);
			pp_tostring(L, p, idx);
		} else {
			pp_table(L, p, idx);
		}
		break;
	default: pp_tostring(L, p, idx);
	}
}

void sl_console_pretty(lua_State *L, int idx, sl_buf *out)
{
	pp p;
	size_t start = out->len;

	memset(&p, 0, sizeof p);
	p.b = out;
	p.limit = start + SL_CONSOLE_MAX_BYTES;
	pp_value(L, &p, lua_absindex(L, idx));
	if (out->len > p.limit && !out->oom) {
		/* cut on a UTF-8 boundary and say so */
		size_t cut = p.limit;
		while (cut > start &&
		       ((unsigned char)out->p[cut] & 0xc0) == 0x80)
			cut--;
		out->len = cut;
		out->p[cut] = '\0';
		sl_buf_printf(out, "... (output cut at %d bytes)",
			      SL_CONSOLE_MAX_BYTES);
	}
}
