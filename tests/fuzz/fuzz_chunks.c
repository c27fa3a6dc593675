/* fuzz_chunks.c: the trace reader on arbitrary chunk contents, behind valid framing.
 *
 * A mutated zstd frame almost never survives its checksum, so fuzzing whole files leaves the block
 * and record decoding untested. This target takes the decompressed side as input and does the
 * framing itself: the input is split at the 8-byte marker "GTRAWCHK" into pieces, each piece is
 * [u32 records][u32 blocks][raw chunk payload], and each payload is compressed and written behind a
 * chunk header with a correct FNV-1a check, after a valid file header. The reader then sees sound
 * frames around whatever blocks, counts and records the fuzzer made. tests/tools/gt_chunks --raw
 * turns a real trace into this form for the seed corpus.
 */
#include "tests/fuzz/fuzz_common.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define MARKER "GTRAWCHK"
#define MARKER_LEN 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static ZSTD_CCtx *cctx;

/* Appends one chunk for the piece p[0..n) to out (grown as needed). */
static size_t add_chunk(uint8_t **out, size_t *cap, size_t len, const uint8_t *p, size_t n,
                        uint32_t seq)
{
	uint32_t nrec = n >= 4 ? get32(p) : 0;
	uint32_t nblocks = n >= 8 ? get32(p + 4) : 0;
	const uint8_t *raw = n >= 8 ? p + 8 : p + n;
	size_t rawn = n >= 8 ? n - 8 : 0;
	size_t bound = ZSTD_compressBound(rawn);
	if (len + 32 + bound > *cap) {
		*cap = (len + 32 + bound) * 2;
		*out = realloc(*out, *cap);
		if (!*out)
			abort();
	}
	uint8_t *h = *out + len;
	size_t csize = ZSTD_compress2(cctx, h + 32, bound, raw, rawn);
	if (ZSTD_isError(csize))
		abort();
	put32(h, 0x4b435447u); /* "GTCK" */
	put32(h + 4, 0);
	put32(h + 8, (uint32_t)csize);
	put32(h + 12, (uint32_t)rawn);
	put32(h + 16, nrec);
	put32(h + 20, nblocks);
	put32(h + 24, seq);
	put32(h + 28, fuzz_fnv1a(h, 28));
	return len + 32 + csize;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *out;
	static size_t cap;
	if (!cctx) {
		cctx = ZSTD_createCCtx();
		/* Level 1: the fuzzer's time goes to the reader, not to the compressor. */
		if (!cctx || ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)))
			abort();
	}
	if (cap < 32) {
		cap = 4096;
		out = malloc(cap);
		if (!out)
			abort();
	}
	/* File header: magic, version 1.0, header size 32, no flags, no time. */
	memset(out, 0, 32);
	memcpy(out, "GPUTRACE", 8);
	out[8] = 1;
	put32(out + 12, 32);
	size_t len = 32;
	uint32_t seq = 0;
	const uint8_t *p = data, *end = data + size;
	while (p <= end) {
		const uint8_t *m = memmem(p, (size_t)(end - p), MARKER, MARKER_LEN);
		const uint8_t *stop = m ? m : end;
		len = add_chunk(&out, &cap, len, p, (size_t)(stop - p), seq++);
		if (!m)
			break;
		p = m + MARKER_LEN;
	}
	fuzz_read_trace(fuzz_file(out, len));
	return 0;
}
