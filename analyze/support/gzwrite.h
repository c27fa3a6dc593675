/* gzwrite.h: a gzip file (RFC 1952) compressed by zlib as it is written, for `gpuanalyze export -z`.
 *
 * Chrome and Perfetto open .json.gz traces, and gzip is the one compression both read (they do not
 * read zstd, the trace format's). The output is deflated as it comes, through a fixed 64 KiB output
 * buffer: memory does not grow with the export, which may be gigabytes of JSON. The header is zlib's
 * (no name, MTIME 0), so the same export gives the same bytes.
 */
#ifndef GT_GZWRITE_H
#define GT_GZWRITE_H

#include <stddef.h>
#include <stdio.h>

struct gt_gzw;

/* Starts a gzip member on f. NULL: no memory (zlib could not start). */
struct gt_gzw *gt_gzw_open(FILE *f);
/* Compresses n bytes. 0, or GT_ERR_IO when f reports a write error, GT_ERR_STATE when zlib fails;
 * after an error every call returns it again. */
int gt_gzw_write(struct gt_gzw *g, const void *p, size_t n);
/* Ends the member (the last block and the trailer), then frees g (f stays open). 0 or the first
 * error of any call. Safe with NULL. */
int gt_gzw_close(struct gt_gzw *g);

#endif
