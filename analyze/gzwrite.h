/* gzwrite.h: a gzip file (RFC 1952) written without zlib, for `gpuanalyze export -z`.
 *
 * Chrome and Perfetto open .json.gz traces, and gzip is the one compression both read; zlib is not
 * a dependency of this project (zstd is, and they do not read it). A gzip member may hold its
 * data in deflate "stored" blocks (RFC 1951 3.2.4: BTYPE 00, LEN, NLEN, the bytes as they are), so a
 * valid gzip file needs only the 10-byte header, stored blocks of at most 65535 bytes, and the
 * CRC-32 and length of the data. The file is no smaller than its content (5 bytes more per 64 KiB):
 * -z buys compatibility with tools that want .gz, not space.
 */
#ifndef GT_GZWRITE_H
#define GT_GZWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gt_gzw;

/* Starts a gzip member on f (the header is written at the first flush). NULL: no memory. */
struct gt_gzw *gt_gzw_open(FILE *f);
/* Appends n bytes. 0, or GT_ERR_IO when f reports a write error. */
int gt_gzw_write(struct gt_gzw *g, const void *p, size_t n);
/* Writes the last block and the trailer, then frees g (f stays open). 0 or GT_ERR_IO. Safe with NULL. */
int gt_gzw_close(struct gt_gzw *g);

/* CRC-32 (ISO 3309, as gzip and zlib's crc32()) of n bytes, continuing from crc (0 to start). */
uint32_t gt_crc32(uint32_t crc, const void *p, size_t n);

#endif
