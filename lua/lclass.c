/*
 * lclass: one metatable setup for every class of the Lua face (query.c,
 * stream.c, reader.c, df.c wrote it out each), see lua_int.h.
 */
#include "lua_int.h"

void sl_lua_class_open(lua_State *L, const sl_lua_class *c)
{
	static const char *const keys[] = { "__gc", "__index", "__newindex",
					    "__tostring" };
	lua_CFunction fns[] = { c->gc, c->index, c->newindex, c->tostring };

	luaL_newmetatable(L, c->name);
	for (int i = 0; i < 4; i++) {
		if (fns[i] == NULL)
			continue;
		lua_pushcfunction(L, fns[i]);
		lua_setfield(L, -2, keys[i]);
	}
	lua_newtable(L);
	luaL_setfuncs(L, c->methods, 0);
	lua_setfield(L, -2, "methods");
	lua_pop(L, 1);
}
