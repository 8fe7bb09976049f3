/*
 * engine: process-wide settings (see engine.h).  Only the program's main()
 * and the benchmarks call sl_engine_tune_malloc; engine code never does.
 */
#include "core/engine.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define MMAP_THRESHOLD (32 * 1024 * 1024)
#define TRIM_THRESHOLD (128 * 1024 * 1024)
#define TOP_PAD        (16 * 1024 * 1024)

void sl_engine_tune_malloc(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
	mallopt(M_TOP_PAD, TOP_PAD);
#endif
}
