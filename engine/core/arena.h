/*
 * arena: a reference-counted bump allocator for the bytes of string and
 * binary values.  A column of strings points into one arena; columns derived
 * by gathering rows (filter, take) share the arena by taking a reference
 * instead of copying bytes.  Freed all at once when the last reference goes.
 *
 * Never shrinks; allocations are 1-byte aligned (string bytes only).
 */
#ifndef SL_ARENA_H
#define SL_ARENA_H

#include <stddef.h>

typedef struct sl_arena sl_arena;

/* New empty arena with one reference, or NULL on out of memory. */
sl_arena *sl_arena_new(void);
/* Take one more reference; returns a. */
sl_arena *sl_arena_ref(sl_arena *a);
/* Drop one reference; frees at zero.  Accepts NULL. */
void sl_arena_free(sl_arena *a);
/* n bytes owned by the arena, or NULL on out of memory. */
char *sl_arena_alloc(sl_arena *a, size_t n);
/* Take ownership of p (from malloc), holding n bytes the caller keeps
 * using: freed with the arena, counted in sl_arena_used; later allocations
 * never come from it.  A reader hands over its read buffer this way
 * instead of copying it.  Returns 0, or -1 on out of memory (p is then
 * still the caller's). */
int sl_arena_adopt(sl_arena *a, void *p, size_t n);
/* Take one reference to `other`, dropped when a is freed: bytes of other
 * may then be pointed at by the strings a owns (from_json's results point
 * into the texts they parsed).  other must never hold a, directly or not
 * (no cycles: hold only from a fresh arena).  Returns 0, or -1 on out of
 * memory (no reference taken). */
int sl_arena_hold(sl_arena *a, sl_arena *other);
/* Copy of p[0..n) plus a NUL byte (not counted), or NULL. */
char *sl_arena_dup(sl_arena *a, const char *p, size_t n);
/* Bytes handed out so far (for memory accounting). */
size_t sl_arena_used(const sl_arena *a);

#endif
