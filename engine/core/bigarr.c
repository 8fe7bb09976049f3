/*
 * bigarr: large arrays in their own mappings (see bigarr.h).
 *
 * A large array is an anonymous private mapping of its size rounded up
 * to the page; where mremap is there (Linux) it grows in place or moves
 * without a copy, elsewhere a new mapping is copied into.  Fresh
 * anonymous pages read as zero, so a large array is never cleared.
 */
#include "core/bigarr.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t n)
{
	static size_t pg;
	if (pg == 0) {
		long s = sysconf(_SC_PAGESIZE);
		pg = s > 0 ? (size_t)s : 4096;
	}
	return (n + pg - 1) / pg * pg;
}

static int is_big(size_t n)
{
	return n >= SL_BIGARR_MIN;
}

static void *map_new(size_t n)
{
	void *p = mmap(NULL, page_round(n), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void *sl_bigarr_calloc(size_t n)
{
	return is_big(n) ? map_new(n) : calloc(1, n);
}

void sl_bigarr_advise_dense(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (p != NULL && n >= ((size_t)4 << 20) && is_big(n))
		(void)madvise(p, page_round(n), MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

void sl_bigarr_free(void *p, size_t n)
{
	if (p == NULL)
		return;
	if (is_big(n))
		(void)munmap(p, page_round(n));
	else
		free(p);
}

void *sl_bigarr_resize(void *p, size_t old, size_t n, int zero)
{
	void *q;
	size_t keep = old < n ? old : n;
	if (p == NULL)
		old = keep = 0;
	if (is_big(old) && is_big(n)) {
		if (page_round(old) == page_round(n))
			q = p;
		else {
#ifdef MREMAP_MAYMOVE
			q = mremap(p, page_round(old), page_round(n),
				   MREMAP_MAYMOVE);
			if (q == MAP_FAILED)
				return NULL;
#else
			if ((q = map_new(n)) == NULL)
				return NULL;
			memcpy(q, p, keep);
			(void)munmap(p, page_round(old));
#endif
		}
		/* past the old page: fresh pages, zero; within it, clear */
		if (zero && n > old) {
			size_t e = page_round(old) < n ? page_round(old) : n;
			memset((char *)q + old, 0, e - old);
		}
		return q;
	}
	if (!is_big(old) && !is_big(n)) {
		if ((q = realloc(p, n)) != NULL && zero && n > keep)
			memset((char *)q + keep, 0, n - keep);
		return q;
	}
	q = is_big(n) ? map_new(n) : malloc(n);
	if (q == NULL)
		return NULL;
	if (keep > 0)
		memcpy(q, p, keep);
	if (!is_big(n) && zero && n > keep)
		memset((char *)q + keep, 0, n - keep);
	sl_bigarr_free(p, old);
	return q;
}
