/* extract_synth.c: a small trace of captured launches for tests/cli/test_replay_extract.sh.
 *
 *   extract_synth OUT CUBIN NAME [NPARAMS]
 *
 * Writes through the public writer API, as the recorder does (buffer blobs, then the CAPTURE
 * record naming them), four captures of a kernel called NAME (any bytes: the test passes one
 * hostile to C and Markdown), all using the module image read from the file CUBIN:
 *   1  replayable: a pointer into a 64-byte allocation the kernel changed, a pointer 16 bytes into
 *      a 32-byte one it left alone, an int
 *   2  a pointer whose allocation was over the capture's cap (GT_PARAM_TOO_LARGE): not replayable
 *   3  a pointer whose "after" copy is missing: not replayable
 *   4  a by-value struct (GT_PARAM_STRUCT) and a pointer: written, the struct flagged stale
 *   5  an int only, and no module image (cubin blob id 0): refused
 *   6  NPARAMS parameters (default 40) of 8 bytes each: every fourth a pointer into the 64-byte
 *      allocation the kernel changed (at offset 8 * (i % 8)), the others 8-byte integers
 * The trace says META trace.synthetic. Exits 0, or 2 with a message.
 */
#include "traces/gputrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(const char *what)
{
	fprintf(stderr, "extract_synth: %s\n", what);
	return 2;
}

static int capture(struct gt_writer *w, uint64_t id, uint32_t name, uint64_t cubin,
                   const struct gt_capture_param *p, uint32_t np, const uint8_t *bytes, uint32_t nbytes)
{
	struct gt_capture c;
	memset(&c, 0, sizeof c);
	c.capture_id = id;
	c.cubin_blob_id = cubin;
	c.name_id = name;
	c.correlation_id = (uint32_t)id;
	c.grid[0] = 2, c.grid[1] = 1, c.grid[2] = 1;
	c.block[0] = 32, c.block[1] = 1, c.block[2] = 1;
	c.nparams = np;
	c.param_bytes = nbytes;
	c.flags = GT_CAPTURE_STREAM_SYNCED | GT_CAPTURE_LAYOUT_NVINFO;
	c.launch_index = (uint32_t)id - 1;
	uint8_t *rec;
	size_t len;
	if (gt_capture_encode(&c, p, bytes, &rec, &len) != 0)
		return -1;
	int rc = gt_writer_add_var(w, GT_REC_CAPTURE, rec, len);
	free(rec);
	return rc;
}

static void put64(uint8_t *b, uint64_t v)
{
	memcpy(b, &v, 8);
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5)
		return die("usage: extract_synth OUT CUBIN NAME [NPARAMS]");
	long many = argc == 5 ? strtol(argv[4], NULL, 10) : 40;
	if (many < 1 || many > 512)
		return die("NPARAMS: 1..512");
	FILE *f = fopen(argv[2], "rb");
	if (!f)
		return die("cannot open the cubin");
	static uint8_t image[1 << 20];
	size_t n = fread(image, 1, sizeof image, f);
	if (ferror(f) || fclose(f) != 0 || n == 0 || n == sizeof image)
		return die("cannot read the cubin (or it is over 1 MiB)");

	struct gt_writer *w;
	if (gt_writer_open(&w, argv[1], 0, NULL) != 0)
		return die("cannot open the output");
	if (gt_writer_meta(w, "trace.synthetic", "extract_synth: captures for the --extract test") != 0)
		return die("meta");
	uint32_t name = gt_writer_intern(w, argv[3]);
	int64_t cubin = gt_writer_blob(w, GT_BLOB_CUBIN, image, n);
	uint8_t a0[64], a1[64], c0[32];
	for (int i = 0; i < 64; i++)
		a0[i] = (uint8_t)i, a1[i] = (uint8_t)(i * 3 + 1);
	for (int i = 0; i < 32; i++)
		c0[i] = (uint8_t)(200 - i);
	int64_t b0 = gt_writer_blob(w, GT_BLOB_BUFFER, a0, sizeof a0);
	int64_t b1 = gt_writer_blob(w, GT_BLOB_BUFFER, a1, sizeof a1);
	int64_t b2 = gt_writer_blob(w, GT_BLOB_BUFFER, c0, sizeof c0);
	if (!name || cubin < 0 || b0 < 0 || b1 < 0 || b2 < 0)
		return die("blobs");
	const uint64_t A = 0x7f0000100000ull, C = 0x7f0000200000ull;
	uint8_t bytes[32];
	memset(bytes, 0, sizeof bytes);

	/* 1: out (changed), in + 16 (unchanged), an int. */
	struct gt_capture_param p1[3] = {
		{ 0, 8, GT_PARAM_POINTER, GT_PARAM_OK, A, 64, (uint64_t)b0, (uint64_t)b1 },
		{ 8, 8, GT_PARAM_POINTER, GT_PARAM_OK, C, 32, (uint64_t)b2, (uint64_t)b2 },
		{ 16, 4, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 },
	};
	put64(bytes, A);
	put64(bytes + 8, C + 16);
	int32_t k = 7;
	memcpy(bytes + 16, &k, 4);
	if (capture(w, 1, name, (uint64_t)cubin, p1, 3, bytes, 20) != 0)
		return die("capture 1");

	/* 2: over the cap. */
	struct gt_capture_param p2[1] = { { 0, 8, GT_PARAM_POINTER, GT_PARAM_TOO_LARGE, A, 1ull << 40, 0, 0 } };
	if (capture(w, 2, name, (uint64_t)cubin, p2, 1, bytes, 8) != 0)
		return die("capture 2");

	/* 3: the "after" copy missing. */
	struct gt_capture_param p3[1] = { { 0, 8, GT_PARAM_POINTER, GT_PARAM_OK, A, 64, (uint64_t)b0, 0 } };
	if (capture(w, 3, name, (uint64_t)cubin, p3, 1, bytes, 8) != 0)
		return die("capture 3");

	/* 4: a 16-byte struct by value, then a pointer. */
	struct gt_capture_param p4[2] = {
		{ 0, 16, GT_PARAM_SCALAR, GT_PARAM_STRUCT, 0, 0, 0, 0 },
		{ 16, 8, GT_PARAM_POINTER, GT_PARAM_OK, A, 64, (uint64_t)b0, (uint64_t)b1 },
	};
	memset(bytes, 0, sizeof bytes);
	put64(bytes + 16, A + 8);
	if (capture(w, 4, name, (uint64_t)cubin, p4, 2, bytes, 24) != 0)
		return die("capture 4");

	/* 5: no module image. */
	struct gt_capture_param p5[1] = { { 0, 4, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 } };
	if (capture(w, 5, name, 0, p5, 1, bytes, 4) != 0)
		return die("capture 5");
	/* 6: many parameters. */
	struct gt_capture_param p6[512];
	static uint8_t b6[512 * 8];
	for (uint32_t i = 0; i < (uint32_t)many; i++) {
		if (i % 4 == 0) {
			p6[i] = (struct gt_capture_param){ 8 * i, 8, GT_PARAM_POINTER, GT_PARAM_OK, A, 64, (uint64_t)b0,
			                                    (uint64_t)b1 };
			put64(b6 + 8 * i, A + 8 * (i % 8));
		} else {
			p6[i] = (struct gt_capture_param){ 8 * i, 8, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 };
			put64(b6 + 8 * i, 1000 + i);
		}
	}
	if (capture(w, 6, name, (uint64_t)cubin, p6, (uint32_t)many, b6, (uint32_t)many * 8) != 0)
		return die("capture 6");
	if (gt_writer_close(w) != 0)
		return die("close");
	return 0;
}
