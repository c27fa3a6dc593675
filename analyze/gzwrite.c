/* gzwrite.c: gzip of stored deflate blocks, and CRC-32 (gzwrite.h).
 *
 * The CRC is table-driven, eight bytes a step ("slicing by 8"), because export writes a gigabyte of
 * JSON for a large trace and a byte-at-a-time CRC would cost more than formatting it. The tables
 * are built once, on first use.
 */
#include "gzwrite.h"

#include "gputrace.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK 65535u /* the largest stored block */

struct gt_gzw {
	FILE *f;
	uint32_t crc;
	uint64_t total;
	int header_done;
	int error;
	size_t n;
	unsigned char buf[BLOCK];
};

static uint32_t crc_table[8][256];
static int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
	crc_ready = 1;
}

uint32_t gt_crc32(uint32_t crc, const void *p, size_t n)
{
	if (!crc_ready)
		crc_init();
	const unsigned char *b = p;
	uint32_t c = ~crc;
	while (n >= 8) {
		uint32_t lo = c ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
		uint32_t hi = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
		c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
		    crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		    crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		b += 8;
		n -= 8;
	}
	while (n--)
		c = crc_table[0][(c ^ *b++) & 0xff] ^ (c >> 8);
	return ~c;
}

struct gt_gzw *gt_gzw_open(FILE *f)
{
	struct gt_gzw *g = malloc(sizeof *g);
	if (!g)
		return NULL;
	g->f = f;
	g->crc = 0;
	g->total = 0;
	g->header_done = 0;
	g->error = 0;
	g->n = 0;
	return g;
}

static void put(struct gt_gzw *g, const void *p, size_t n)
{
	if (!g->error && fwrite(p, 1, n, g->f) != n)
		g->error = GT_ERR_IO;
}

/* One stored block of the buffered bytes; last: BFINAL set. */
static void block(struct gt_gzw *g, int last)
{
	if (!g->header_done) {
		/* ID1 ID2, CM = 8 (deflate), FLG 0, MTIME 0 (none), XFL 0, OS 3 (Unix). */
		static const unsigned char h[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
		put(g, h, sizeof h);
		g->header_done = 1;
	}
	unsigned len = (unsigned)g->n, nlen = ~len & 0xffffu;
	unsigned char b[5] = { (unsigned char)(last ? 1 : 0), (unsigned char)(len & 0xff), (unsigned char)(len >> 8),
		               (unsigned char)(nlen & 0xff), (unsigned char)(nlen >> 8) };
	put(g, b, sizeof b);
	put(g, g->buf, g->n);
	g->n = 0;
}

int gt_gzw_write(struct gt_gzw *g, const void *p, size_t n)
{
	const unsigned char *b = p;
	g->crc = gt_crc32(g->crc, p, n);
	g->total += n;
	while (n) {
		size_t k = BLOCK - g->n < n ? BLOCK - g->n : n;
		memcpy(g->buf + g->n, b, k);
		g->n += k;
		b += k;
		n -= k;
		if (g->n == BLOCK)
			block(g, 0);
	}
	return g->error;
}

int gt_gzw_close(struct gt_gzw *g)
{
	if (!g)
		return 0;
	block(g, 1);
	uint32_t size = (uint32_t)g->total; /* ISIZE: the length modulo 2^32 */
	unsigned char t[8] = { (unsigned char)g->crc, (unsigned char)(g->crc >> 8), (unsigned char)(g->crc >> 16),
		               (unsigned char)(g->crc >> 24), (unsigned char)size, (unsigned char)(size >> 8),
		               (unsigned char)(size >> 16), (unsigned char)(size >> 24) };
	put(g, t, sizeof t);
	int rc = g->error;
	free(g);
	return rc;
}
