/* gt_chunks.c: lists a trace's chunks and blocks as gputrace-format(5) lays them out.
 *
 * A second, deliberately small reading of the format, written from the man page rather than from
 * traces/reader.c: it shows where each chunk starts, its sizes and counts, and the blocks inside,
 * which is what one wants when a test or the fuzzer reports "corrupt at byte N". With --raw OUT it
 * writes the decompressed chunks in the input form of tests/fuzz/fuzz_chunks.c (pieces of [u32
 * records][u32 blocks][payload], separated by "GTRAWCHK"), to seed that fuzzer from real traces.
 *
 *   gt_chunks [--raw OUT] FILE
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static uint32_t ld16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t ld32(const uint8_t *p) { return ld16(p) | ld16(p + 2) << 16; }

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

static int list_blocks(const uint8_t *raw, size_t n)
{
	size_t p = 0;
	while (p < n) {
		if (n - p < 16) {
			printf("  (%zu stray bytes at raw offset %zu)\n", n - p, p);
			return -1;
		}
		uint32_t type = ld16(raw + p), enc = ld16(raw + p + 2), count = ld32(raw + p + 4);
		uint32_t rsize = ld32(raw + p + 8), payload = ld32(raw + p + 12);
		printf("  block at raw %zu: type %u enc %s count %u record_size %u payload %u\n", p, type,
		       enc == 0 ? "var" : enc == 1 ? "fixed" : "unknown", count, rsize, payload);
		p += 16;
		if (payload > n - p) {
			printf("  (payload runs past the chunk)\n");
			return -1;
		}
		p += payload;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = NULL, *raw_out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw") && i + 1 < argc)
			raw_out = argv[++i];
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: gt_chunks [--raw OUT] FILE\n");
		return 2;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "gt_chunks: cannot open '%s': %s\n", path, strerror(errno));
		return 2;
	}
	FILE *out = raw_out ? fopen(raw_out, "wb") : NULL;
	if (raw_out && !out) {
		fprintf(stderr, "gt_chunks: cannot write '%s': %s\n", raw_out, strerror(errno));
		return 2;
	}
	uint8_t fh[32];
	if (fread(fh, 1, 32, f) != 32 || memcmp(fh, "GPUTRACE", 8) != 0) {
		fprintf(stderr, "gt_chunks: '%s' has no gputrace file header\n", path);
		return 2;
	}
	printf("file header: version %u.%u header_bytes %u\n", ld16(fh + 8), ld16(fh + 10), ld32(fh + 12));
	uint64_t off = ld32(fh + 12);
	int rc = 0, n = 0;
	for (;;) {
		uint8_t h[32];
		if (fseek(f, (long)off, SEEK_SET) != 0)
			break;
		size_t got = fread(h, 1, 32, f);
		if (got == 0)
			break;
		if (got < 32) {
			printf("chunk at %" PRIu64 ": cut inside its header (%zu bytes)\n", off, got);
			break;
		}
		uint32_t csize = ld32(h + 8), rsize = ld32(h + 12), nrec = ld32(h + 16);
		uint32_t nblocks = ld32(h + 20), seq = ld32(h + 24);
		int check_ok = ld32(h + 28) == fnv1a(h, 28);
		printf("chunk %u at %" PRIu64 ": magic %s check %s csize %u rsize %u records %u blocks %u "
		       "seq %u\n", n, off, ld32(h) == 0x4b435447u ? "ok" : "BAD", check_ok ? "ok" : "BAD",
		       csize, rsize, nrec, nblocks, seq);
		if (ld32(h) != 0x4b435447u || !check_ok || rsize > (64u << 20)) {
			rc = 1;
			break;
		}
		uint8_t *c = malloc(csize ? csize : 1), *raw = malloc(rsize ? rsize : 1);
		if (!c || !raw) {
			fprintf(stderr, "gt_chunks: out of memory\n");
			return 2;
		}
		if (fread(c, 1, csize, f) != csize) {
			printf("  cut inside its frame\n");
			free(c);
			free(raw);
			break;
		}
		size_t d = ZSTD_decompress(raw, rsize, c, csize);
		if (ZSTD_isError(d) || d != rsize) {
			printf("  zstd: %s\n", ZSTD_isError(d) ? ZSTD_getErrorName(d) : "short frame");
			rc = 1;
		} else {
			if (list_blocks(raw, rsize))
				rc = 1;
			if (out) {
				uint8_t pre[8];
				for (int i = 0; i < 4; i++) {
					pre[i] = (uint8_t)(nrec >> (8 * i));
					pre[4 + i] = (uint8_t)(nblocks >> (8 * i));
				}
				if ((n && fwrite("GTRAWCHK", 1, 8, out) != 8) || fwrite(pre, 1, 8, out) != 8 ||
				    fwrite(raw, 1, rsize, out) != rsize) {
					fprintf(stderr, "gt_chunks: write failed\n");
					return 2;
				}
			}
		}
		free(c);
		free(raw);
		off += 32 + (uint64_t)csize;
		n++;
	}
	fclose(f);
	if (out && fclose(out) != 0) {
		fprintf(stderr, "gt_chunks: write failed: %s\n", strerror(errno));
		return 2;
	}
	return rc;
}
