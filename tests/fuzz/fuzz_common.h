/* fuzz_common.h: what every gputrace fuzz target shares.
 *
 * A target is one file tests/fuzz/fuzz_<name>.c that defines LLVMFuzzerTestOneInput and uses these
 * helpers; run.sh builds every such file against the project's libraries and runs it. The library API
 * takes paths, not buffers, so an input reaches it as a file: a memfd reopened through /proc, which
 * costs no disk and leaves nothing behind.
 */
#ifndef GT_FUZZ_COMMON_H
#define GT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Replaces the contents of the target's one scratch file by data and returns its path (valid for
 * the whole run). Aborts if the scratch file cannot be made: a harness failure, not a finding. */
const char *fuzz_file(const uint8_t *data, size_t size);

/* Opens path with the trace reader and drives every public entry point over it: every record to the
 * end, the parsers on each variable record, every lookup, a rewind and a second pass. Aborts (a
 * finding) when the reader breaks one of its promises: an error message that does not name the file
 * and a byte offset, a tail whose byte counts do not add up, a second pass that differs from the
 * first. Returns the first error code (< 0) or the number of records read. */
long fuzz_read_trace(const char *path);

/* FNV-1a as gputrace-format(5) defines the chunk header check. */
uint32_t fuzz_fnv1a(const uint8_t *p, size_t n);

#endif
