/*
 * engine: process-wide settings the engine recommends but never applies by
 * itself.  A library must not change how its host process allocates
 * memory behind the host's back, so the program (repl/main.c) and the
 * benchmarks call these once at start, before any other engine call; an
 * embedder may call them or not.
 */
#ifndef SL_ENGINE_H
#define SL_ENGINE_H

/* Tune glibc malloc for the engine's allocation pattern: every micro-batch
 * allocates column buffers of about batch rows x 8 bytes (800 KB for the
 * usual 100k rows) and frees them at the end of the batch.  By default
 * glibc serves blocks that large with mmap and gives them back with
 * munmap, or trims the top of the heap, so every batch faults its pages in
 * again from the kernel (zeroed page by page): about a fifth of the time
 * of a windowed count (BENCH.md W1).  This raises the mmap threshold to
 * 32 MiB (glibc's maximum; also stops its dynamic threshold from moving)
 * and the trim threshold to 128 MiB with a 16 MiB top pad, so freed column
 * buffers stay in the heap and the next batch reuses warm pages.  The cost
 * is up to about 128 MiB of freed heap kept mapped (RSS) after a large
 * batch.  Does nothing where mallopt is not glibc's.  Idempotent. */
void sl_engine_tune_malloc(void);

#endif
