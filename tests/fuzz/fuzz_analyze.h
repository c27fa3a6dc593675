/* fuzz_analyze.h: what the gpuanalyze fuzz targets (tests/fuzz/fuzz_analyze_*.c) share.
 *
 * Each target feeds one subcommand's whole input path with hostile traces: the engine called
 * without argv (info.h, summary.h, shadow.h, ...), then the subcommand itself (cmd_<name>) in one
 * of its output formats (fa_pick: a different one per input), so that printing what a hostile
 * trace holds is fuzzed too. Header-only (static
 * functions), so run.sh and run_all.sh build a target from its one file plus fuzz_common.c.
 *
 * The input takes one of two forms, so that both the file framing and what lies inside the zstd
 * frames are reached (a mutated frame almost never survives its checksum):
 *   - it begins with the file magic "GPUTRACE": it is the whole trace file, written as it is;
 *   - otherwise it is the decompressed side, as fuzz_chunks.c takes it: pieces separated by
 *     "GTRAWCHK", each [u32 records][u32 blocks][raw chunk payload], which this header compresses
 *     and frames behind valid chunk headers after a valid file header (tests/tools/gt_chunks --raw
 *     makes such inputs from real traces: tests/fuzz/corpus/chunks).
 * Targets that take two traces (diff) split the input at "GTSECOND" first; each side is one of the
 * two forms above.
 *
 * The analyzer's messages (it reports hostile input in its own voice, as it should) go to
 * /dev/null, and so does standard output: the fuzzer's own log stays readable, and sanitizer
 * reports still reach standard error.
 */
#ifndef GT_FUZZ_ANALYZE_H
#define GT_FUZZ_ANALYZE_H

#include "tests/fuzz/fuzz_common.h"

#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "traces/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#define FA_CHUNK_MARKER "GTRAWCHK"
#define FA_SECOND_MARKER "GTSECOND"
#define FA_MARKER_LEN 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fa_die(const char *what)
{
	perror(what);
	abort();
}

/* Once per process: messages and standard output to /dev/null. Every input: what the engines
 * held from the last one (failure.h: an engine called directly holds its words for a command that
 * never comes) is said there, so that the queue stays one input long. */
static inline void fa_quiet(void)
{
	static int done;
	gt_diag_flush();
	if (done)
		return;
	done = 1;
	FILE *null = fopen("/dev/null", "w");
	if (!null || !freopen("/dev/null", "w", stdout))
		fa_die("/dev/null");
	gt_diag_set_stream(null);
}

/* Every field of every event as text, as dump prints it, without the table around it (a
 * gt_load_stream callback; ctx: a size_t summing the lengths, so nothing is optimised away). */
static inline int fa_all_fields(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	size_t *sum = ctx;
	size_t nf;
	const struct gt_field *f = gt_fields_of(ev->type, &nf);
	for (size_t i = 0; f && i < nf; i++) {
		char buf[64];
		const char *t = gt_field_text(&f[i], &ev->u, r, buf, sizeof buf);
		*sum += t ? strlen(t) : 0;
	}
	return 0;
}

static inline void fa_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t fa_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct fa_buf {
	uint8_t *p;
	size_t len, cap;
};

static inline void fa_reserve(struct fa_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return;
	size_t cap = (b->len + more) * 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		fa_die("realloc");
	b->p = p;
	b->cap = cap;
}

/* One chunk for the piece p[0..n): [u32 records][u32 blocks][payload], compressed and framed. */
static inline void fa_add_chunk(struct fa_buf *b, ZSTD_CCtx *cctx, const uint8_t *p, size_t n, uint32_t seq)
{
	uint32_t nrec = n >= 4 ? fa_get32(p) : 0;
	uint32_t nblocks = n >= 8 ? fa_get32(p + 4) : 0;
	const uint8_t *raw = n >= 8 ? p + 8 : p + n;
	size_t rawn = n >= 8 ? n - 8 : 0;
	size_t bound = ZSTD_compressBound(rawn);
	fa_reserve(b, 32 + bound);
	uint8_t *h = b->p + b->len;
	size_t csize = ZSTD_compress2(cctx, h + 32, bound, raw, rawn);
	if (ZSTD_isError(csize))
		abort();
	fa_put32(h, 0x4b435447u); /* "GTCK" */
	fa_put32(h + 4, 0);
	fa_put32(h + 8, (uint32_t)csize);
	fa_put32(h + 12, (uint32_t)rawn);
	fa_put32(h + 16, nrec);
	fa_put32(h + 20, nblocks);
	fa_put32(h + 24, seq);
	fa_put32(h + 28, fuzz_fnv1a(h, 28));
	b->len += 32 + csize;
}

/* The trace file for one input in either form, into b. */
static inline void fa_build(struct fa_buf *b, const uint8_t *data, size_t size)
{
	static ZSTD_CCtx *cctx;
	b->len = 0;
	if (size >= 8 && memcmp(data, "GPUTRACE", 8) == 0) {
		fa_reserve(b, size);
		memcpy(b->p, data, size);
		b->len = size;
		return;
	}
	if (!cctx) {
		cctx = ZSTD_createCCtx();
		/* Level 1: the fuzzer's time goes to the analyzer, not to the compressor. */
		if (!cctx || ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)))
			abort();
	}
	/* File header: magic, version 1.0, header size 32, no flags, no time. */
	fa_reserve(b, 32);
	memset(b->p, 0, 32);
	memcpy(b->p, "GPUTRACE", 8);
	b->p[8] = 1;
	fa_put32(b->p + 12, 32);
	b->len = 32;
	uint32_t seq = 0;
	const uint8_t *p = data, *end = data + size;
	while (p <= end) {
		const uint8_t *m = memmem(p, (size_t)(end - p), FA_CHUNK_MARKER, FA_MARKER_LEN);
		const uint8_t *stop = m ? m : end;
		fa_add_chunk(b, cctx, p, (size_t)(stop - p), seq++);
		if (!m)
			break;
		p = m + FA_MARKER_LEN;
	}
}

/* Writes the trace for data[0..size) into scratch file `slot` (0 or 1) and returns its path. */
static inline const char *fa_trace(int slot, const uint8_t *data, size_t size)
{
	static int fd[2] = { -1, -1 };
	static char path[2][64];
	static struct fa_buf b;
	if (fd[slot] < 0) {
		fd[slot] = memfd_create(slot ? "gt_fuzz_b" : "gt_fuzz_a", MFD_CLOEXEC);
		if (fd[slot] < 0)
			fa_die("memfd_create");
		snprintf(path[slot], sizeof path[slot], "/proc/self/fd/%d", fd[slot]);
	}
	fa_build(&b, data, size);
	if (ftruncate(fd[slot], 0) != 0)
		fa_die("ftruncate");
	size_t off = 0;
	while (off < b.len) {
		ssize_t k = pwrite(fd[slot], b.p + off, b.len - off, (off_t)off);
		if (k <= 0)
			fa_die("pwrite");
		off += (size_t)k;
	}
	return path[slot];
}

/* Runs a subcommand as gpuanalyze would: argv[0] is its name; the strings are copied, since the
 * option parser moves operands around in argv. Returns the exit status, which must be one of the
 * documented ones: 0, 1 (a check failed) or 2 (usage or input error); anything else is a finding. */
static inline int fa_cmd(int (*fn)(int, char **), const char *const *args)
{
	char *argv[32];
	int argc = 0;
	for (; args[argc] && argc < 31; argc++)
		argv[argc] = (char *)args[argc];
	argv[argc] = NULL;
	int rc = fn(argc, argv);
	fflush(stdout);
	if (rc != GT_EXIT_OK && rc != GT_EXIT_CHECK && rc != GT_EXIT_USAGE) {
		fprintf(stderr, "fuzz: %s returned %d, not 0, 1 or 2\n", args[0], rc);
		abort();
	}
	return rc;
}

/* Which of n variants (output formats, options) this input exercises: one per execution keeps
 * the rate up, and every variant still sees every kind of input over a run. */
static inline unsigned fa_pick(const uint8_t *data, size_t size, unsigned n)
{
	uint32_t h = (uint32_t)size;
	for (size_t i = 0; i < size && i < 64; i++)
		h = h * 31u + data[size - 1 - i];
	return n ? h % n : 0;
}

#endif
