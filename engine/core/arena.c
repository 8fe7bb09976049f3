/*
 * arena: chunked bump allocation.  Chunks double up to 1 MiB; a request
 * larger than a chunk gets a chunk of its own.  An adopted buffer hangs
 * off a full chunk of no bytes (ext), so allocation never looks at it;
 * so does a held arena (hold).
 */
#include "core/arena.h"

#include <stdlib.h>
#include <string.h>

struct chunk {
	struct chunk *next;
	size_t cap, used;
	void *ext;      /* an adopted buffer, freed with the chunk */
	sl_arena *hold; /* a held arena, its reference dropped with the chunk */
	char data[];
};

struct sl_arena {
	int refs;
	struct chunk *head;
	size_t used;
	size_t next_cap;
};

sl_arena *sl_arena_new(void)
{
	sl_arena *a = calloc(1, sizeof *a);
	if (a == NULL)
		return NULL;
	a->refs = 1;
	a->next_cap = 4096;
	return a;
}

sl_arena *sl_arena_ref(sl_arena *a)
{
	if (a != NULL)
		a->refs++;
	return a;
}

void sl_arena_free(sl_arena *a)
{
	struct chunk *c, *n;
	if (a == NULL || --a->refs > 0)
		return;
	for (c = a->head; c != NULL; c = n) {
		n = c->next;
		free(c->ext);
		sl_arena_free(c->hold);
		free(c);
	}
	free(a);
}

char *sl_arena_alloc(sl_arena *a, size_t n)
{
	struct chunk *c = a->head;
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = a->next_cap;
		if (cap < n)
			cap = n;
		c = malloc(sizeof *c + cap);
		if (c == NULL)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->ext = NULL;
		c->hold = NULL;
		if (a->head != NULL && n > a->next_cap) {
			/* big one-off: keep filling the current chunk afterwards */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
			if (a->next_cap < (1u << 20))
				a->next_cap *= 2;
		}
	}
	c->used += n;
	a->used += n;
	return c->data + c->used - n;
}

/* A chunk of no bytes after the head (allocation never looks at it). */
static struct chunk *side_chunk(sl_arena *a)
{
	struct chunk *c = malloc(sizeof *c);
	if (c == NULL)
		return NULL;
	c->cap = c->used = 0;
	c->ext = NULL;
	c->hold = NULL;
	if (a->head != NULL) {
		c->next = a->head->next;
		a->head->next = c;
	} else {
		c->next = NULL;
		a->head = c;
	}
	return c;
}

int sl_arena_adopt(sl_arena *a, void *p, size_t n)
{
	struct chunk *c = side_chunk(a);
	if (c == NULL)
		return -1;
	c->ext = p;
	a->used += n;
	return 0;
}

int sl_arena_hold(sl_arena *a, sl_arena *other)
{
	struct chunk *c = side_chunk(a);
	if (c == NULL)
		return -1;
	c->hold = sl_arena_ref(other);
	return 0;
}

char *sl_arena_dup(sl_arena *a, const char *p, size_t n)
{
	char *d = sl_arena_alloc(a, n + 1);
	if (d == NULL)
		return NULL;
	if (n > 0)
		memcpy(d, p, n);
	d[n] = '\0';
	return d;
}

size_t sl_arena_used(const sl_arena *a)
{
	return a == NULL ? 0 : a->used;
}
