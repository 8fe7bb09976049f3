/*
 * fuzz: the libFuzzer targets of streamlab's parsers (issue 16), one file
 * each (fuzz_*.c), every one defining LLVMFuzzerTestOneInput over the
 * engine's public API only.  Two builds of the same file:
 *   - `make fuzz`: clang -fsanitize=fuzzer,address,undefined, run for
 *     FUZZ_S seconds from the corpus tests/fuzz/corpus/NAME/;
 *   - `make units`/`make test`: cc with replay.c's main, a TAP test that
 *     runs every file of the checked-in corpus (seeds and past crash
 *     inputs, crash-* files) once: a crash found once stays fixed.
 * A target must not leak, print or keep state between inputs.
 */
#ifndef SL_FUZZ_H
#define SL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
