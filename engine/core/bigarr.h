/*
 * bigarr: large growable arrays in mappings of their own (engine-internal).
 *
 * For state that lives across micro-batches and grows by doubling (the
 * live table's entry arrays and hash slots, exec/livetab.c).  On the heap
 * (the program raises malloc's mmap threshold to 32 MiB: core/engine.h)
 * every doubling copies the array and leaves the old one as a hole the
 * heap keeps resident, and an array freed stays resident too.  In a
 * mapping of its own an array grows by mremap (no copy), pages never
 * written cost no memory (zero-filled when first touched), and a freed
 * array goes back to the kernel.  Arrays under SL_BIGARR_MIN bytes stay
 * on malloc.
 *
 * The caller keeps each array's size: every call names the size the
 * array was last allocated with (0 for NULL).  Never prints; NULL when
 * out of memory (the old array then stays as it was).
 */
#ifndef SL_BIGARR_H
#define SL_BIGARR_H

#include <stddef.h>

#define SL_BIGARR_MIN ((size_t)256 << 10)

/* p (of old bytes, or NULL with 0) resized to n > 0 bytes, its first
 * min(old, n) bytes kept; with zero, bytes [old, n) are zero. */
void *sl_bigarr_resize(void *p, size_t old, size_t n, int zero);
/* n zeroed bytes (n > 0). */
void *sl_bigarr_calloc(size_t n);
/* Advise that p of n bytes (from this module) is read and written at
 * random all over, as a hash table's slots: where the kernel has them
 * (Linux's transparent huge pages), its pages become huge ones, so a
 * probe into a table past the TLB's reach costs no page walk (W1-1M's
 * 16 MiB tables).  Only for arrays touched everywhere: a huge page is
 * resident whole.  Nothing for arrays under 4 MiB or without support. */
void sl_bigarr_advise_dense(void *p, size_t n);
/* Free p of n bytes (NULL: nothing). */
void sl_bigarr_free(void *p, size_t n);

#endif
