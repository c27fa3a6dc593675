/* synth_trace.h: small traces built through the writer API, for the analyzer's tests.
 *
 * Every trace written here says it is synthetic (META trace.synthetic), as the house rules want of
 * any trace not recorded on a GPU. The fixtures (synth_fixture_*) are byte-for-byte reproducible:
 * their END record is written by hand with a fixed timestamp, so a CLI test can compare the
 * analyzer's output, file sizes included, with a file in tests/cli/expected/.
 */
#ifndef SYNTH_TRACE_H
#define SYNTH_TRACE_H

#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

/* Opens path for writing (chunk_bytes 0: the writer's default) and writes the standard metadata. */
int synth_open(struct gt_writer **w, const char *path, size_t chunk_bytes);
/* One H200-like device (id 0). */
int synth_device(struct gt_writer *w);
int synth_kernel(struct gt_writer *w, const char *name, uint64_t start, uint64_t end, uint16_t flags);
int synth_memcpy(struct gt_writer *w, int copy_kind, int src_kind, int dst_kind, uint64_t bytes,
                 uint64_t start, uint64_t end);
int synth_memset(struct gt_writer *w, int mem_kind, uint64_t bytes, uint64_t start, uint64_t end);
int synth_dropped(struct gt_writer *w, int reason, uint64_t count);
/* Flushes, writes an END record with fixed contents, flushes again and frees w without the
 * writer's own (time-stamped) END: a complete trace whose bytes do not depend on the clock. */
int synth_close_reproducible(struct gt_writer *w, uint64_t chunks_before_end);

/* A fresh empty file "/tmp/gt_<tag>_XXXXXX"; malloc'd path, NULL on failure. */
char *synth_temp_path(const char *tag);
/* The whole file, NUL-terminated (malloc'd), or NULL. */
char *synth_read_file(const char *path, size_t *len);

/* The fixtures of tests/cli: small.gtrace (kernels, copies, memsets, drops, out-of-order and
 * bad-time records, a device, metadata; three chunks), truncated.gtrace (two chunks and half of a
 * third, no END), cut-header.gtrace (10 bytes), not-a-trace.gtrace (text), corrupt.gtrace
 * (small.gtrace with a byte flipped inside its second chunk). 0 or a negative GT_ERR_*. */
int synth_fixture_small(const char *path);
int synth_fixture_truncated(const char *path);
int synth_fixture_all(const char *dir);

#endif
