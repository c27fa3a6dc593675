/* gzwrite.c: a gzip member through zlib's deflate, streamed (gzwrite.h).
 *
 * Level 6 (zlib's default): on export's JSON it gives within a few percent of -9's size in about a
 * third of the time, and the compression is most of what -z costs. windowBits 15 + 16 asks deflate
 * for the gzip wrapper (header, CRC-32 and length trailer) rather than zlib's.
 */
#include "analyze/support/gzwrite.h"

#include "traces/gputrace.h"

#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#define OUT_CHUNK (64u * 1024u)
#define IN_STEP (1u << 30) /* deflate counts its input in uInt: feed a huge write in steps */
#define LEVEL 6

struct gt_gzw {
	FILE *f;
	z_stream z;
	int error;
	unsigned char out[OUT_CHUNK];
};

struct gt_gzw *gt_gzw_open(FILE *f)
{
	struct gt_gzw *g = malloc(sizeof *g);
	if (!g)
		return NULL;
	g->f = f;
	g->error = 0;
	g->z.zalloc = Z_NULL;
	g->z.zfree = Z_NULL;
	g->z.opaque = Z_NULL;
	if (deflateInit2(&g->z, LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return NULL;
	}
	return g;
}

/* Runs deflate over what avail_in holds with flush, writing the output as the buffer fills, until
 * the input is taken (Z_NO_FLUSH) or the stream has ended (Z_FINISH). */
static int pump(struct gt_gzw *g, int flush)
{
	for (;;) {
		g->z.next_out = g->out;
		g->z.avail_out = OUT_CHUNK;
		int zr = deflate(&g->z, flush);
		/* Z_BUF_ERROR means no progress was possible, which with room for output only happens
		 * once the input is used up: not an error. */
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return g->error = GT_ERR_STATE;
		size_t have = OUT_CHUNK - g->z.avail_out;
		if (have && fwrite(g->out, 1, have, g->f) != have)
			return g->error = GT_ERR_IO;
		if (flush == Z_NO_FLUSH && g->z.avail_out != 0)
			return 0; /* room left over: all the input was taken */
		if (flush == Z_FINISH && zr == Z_STREAM_END)
			return 0;
		if (flush == Z_FINISH && have == 0)
			return g->error = GT_ERR_STATE; /* no progress with room to write: never loop */
	}
}

int gt_gzw_write(struct gt_gzw *g, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (!g->error && n) {
		size_t k = n < IN_STEP ? n : IN_STEP;
		g->z.next_in = (unsigned char *)(uintptr_t)b; /* zlib does not write its input */
		g->z.avail_in = (uInt)k;
		pump(g, Z_NO_FLUSH);
		b += k;
		n -= k;
	}
	return g->error;
}

int gt_gzw_close(struct gt_gzw *g)
{
	if (!g)
		return 0;
	if (!g->error) {
		g->z.next_in = Z_NULL;
		g->z.avail_in = 0;
		pump(g, Z_FINISH);
	}
	/* Z_DATA_ERROR from deflateEnd only says the stream was freed unfinished (after an error). */
	if (deflateEnd(&g->z) == Z_STREAM_ERROR && !g->error)
		g->error = GT_ERR_STATE;
	int rc = g->error;
	free(g);
	return rc;
}
