/*
 * json: a small JSON -> Lua decoder for what the engine hands the Lua layer
 * (progress, status and listener events: Spark's JSON shapes).
 *
 * Objects become tables with string keys, arrays become Lua arrays (1..n),
 * integers that fit become Lua integers (so q.lastProgress.batchId == 0 and
 * math.type says "integer"), other numbers floats.  JSON null is nil: an
 * object member that is null is left out of the table (a learner tests
 * `p.sources[1].startOffset == nil`), an array element leaves a hole.
 *
 * The text is trusted (the engine wrote it) but still checked: a malformed
 * text decodes to nil rather than half a table.  Depth is limited so a
 * pathological text cannot overflow the C stack.  Decoding may raise a Lua
 * memory error only, like any table construction.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lua_int.h"

#define JSON_MAX_DEPTH 64

typedef struct jparser {
	const char *p;
	int depth;
} jparser;

static void skip_ws(jparser *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int read_hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(s[i]);
		if (h < 0)
			return -1;
		v = v * 16 + (unsigned)h;
	}
	*out = v;
	return 0;
}

static void add_utf8(luaL_Buffer *b, unsigned cp)
{
	char u[4];
	int n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	luaL_addlstring(b, u, (size_t)n);
}

/* \uXXXX (with a surrogate pair) at j->p (after the 'u'). */
static int read_escape_u(jparser *j, luaL_Buffer *b)
{
	unsigned cp, lo;
	if (read_hex4(j->p, &cp) < 0)
		return -1;
	j->p += 4;
	if (cp >= 0xD800 && cp < 0xDC00 && j->p[0] == '\\' && j->p[1] == 'u' &&
	    read_hex4(j->p + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		j->p += 6;
	}
	add_utf8(b, cp);
	return 0;
}

/* A string at j->p (on the opening quote): pushed. */
static int parse_string(lua_State *L, jparser *j)
{
	luaL_Buffer b;
	j->p++;
	luaL_buffinit(L, &b);
	for (;;) {
		const char *run = j->p;
		while (*j->p != '"' && *j->p != '\\' && *j->p != '\0')
			j->p++;
		luaL_addlstring(&b, run, (size_t)(j->p - run));
		if (*j->p == '\0')
			return -1;
		if (*j->p == '"') {
			j->p++;
			luaL_pushresult(&b);
			return 0;
		}
		j->p++; /* backslash */
		switch (*j->p++) {
		case '"': luaL_addchar(&b, '"'); break;
		case '\\': luaL_addchar(&b, '\\'); break;
		case '/': luaL_addchar(&b, '/'); break;
		case 'b': luaL_addchar(&b, '\b'); break;
		case 'f': luaL_addchar(&b, '\f'); break;
		case 'n': luaL_addchar(&b, '\n'); break;
		case 'r': luaL_addchar(&b, '\r'); break;
		case 't': luaL_addchar(&b, '\t'); break;
		case 'u':
			if (read_escape_u(j, &b) < 0)
				return -1;
			break;
		default: return -1;
		}
	}
}

static int parse_number(lua_State *L, jparser *j)
{
	const char *s = j->p;
	char *end;
	bool integral = true;
	if (*j->p == '-')
		j->p++;
	while ((*j->p >= '0' && *j->p <= '9') || *j->p == '.' || *j->p == 'e' ||
	       *j->p == 'E' || *j->p == '+' || *j->p == '-') {
		if (*j->p == '.' || *j->p == 'e' || *j->p == 'E')
			integral = false;
		j->p++;
	}
	if (j->p == s)
		return -1;
	errno = 0;
	if (integral) {
		long long v = strtoll(s, &end, 10);
		if (end == j->p && errno == 0) {
			lua_pushinteger(L, (lua_Integer)v);
			return 0;
		}
	}
	{
		double d = strtod(s, &end);
		if (end != j->p)
			return -1;
		lua_pushnumber(L, d);
	}
	return 0;
}

static int parse_value(lua_State *L, jparser *j);

static int parse_object(lua_State *L, jparser *j)
{
	lua_newtable(L);
	j->p++;
	skip_ws(j);
	if (*j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		skip_ws(j);
		if (*j->p != '"' || parse_string(L, j) < 0)
			return -1;
		skip_ws(j);
		if (*j->p++ != ':')
			return -1;
		if (parse_value(L, j) < 0)
			return -1;
		if (lua_isnil(L, -1))
			lua_pop(L, 2); /* null member: leave the key absent */
		else
			lua_rawset(L, -3);
		skip_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != '}')
			return -1;
		return 0;
	}
}

static int parse_array(lua_State *L, jparser *j)
{
	lua_Integer n = 0;
	lua_newtable(L);
	j->p++;
	skip_ws(j);
	if (*j->p == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		if (parse_value(L, j) < 0)
			return -1;
		lua_rawseti(L, -2, ++n);
		skip_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != ']')
			return -1;
		return 0;
	}
}

static int parse_literal(lua_State *L, jparser *j, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(j->p, word, n) != 0)
		return -1;
	j->p += n;
	if (word[0] == 'n')
		lua_pushnil(L);
	else
		lua_pushboolean(L, word[0] == 't');
	return 0;
}

static int parse_value(lua_State *L, jparser *j)
{
	int rc;
	skip_ws(j);
	if (++j->depth > JSON_MAX_DEPTH || !lua_checkstack(L, 4))
		return -1;
	switch (*j->p) {
	case '{': rc = parse_object(L, j); break;
	case '[': rc = parse_array(L, j); break;
	case '"': rc = parse_string(L, j); break;
	case 't': rc = parse_literal(L, j, "true"); break;
	case 'f': rc = parse_literal(L, j, "false"); break;
	case 'n': rc = parse_literal(L, j, "null"); break;
	default: rc = parse_number(L, j); break;
	}
	j->depth--;
	return rc;
}

int sl_ljson_push(lua_State *L, const char *json)
{
	jparser j;
	int top = lua_gettop(L);
	if (json == NULL) {
		lua_pushnil(L);
		return 0;
	}
	j.p = json;
	j.depth = 0;
	if (parse_value(L, &j) == 0) {
		skip_ws(&j);
		if (*j.p == '\0')
			return 1; /* exactly one value was pushed */
	}
	lua_settop(L, top);
	lua_pushnil(L);
	return 0;
}
