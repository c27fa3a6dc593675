/* test_trace_hostile.c: the trace reader on truncated, corrupt and foreign input.
 *
 * Two sources of bad files. A small real trace written through the writer is cut at every byte and
 * damaged in place (magic, version, header check, bits inside its zstd frames). And files made by
 * hand with a second, minimal writer built from gputrace-format(5) alone (file header, chunk header
 * with its FNV-1a check, zstd frame, delta encoding and byte transposition), which get past the
 * framing so that the reader's block and record validation is what is tested. For every failure the
 * test checks the return code and that the message names the file and the byte offset; for every
 * truncation the exact number of records, chunks and lost bytes. Last, every known-bad input in
 * tests/data/bad/ (fuzzer findings and hand-made cases) must give the error its .err file names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "traces/format.h"
#include "traces/gputrace.h"

/* ---- helpers -------------------------------------------------------------------------------- */

static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t ld32(const uint8_t *p) { return (uint32_t)ld16(p) | (uint32_t)ld16(p + 2) << 16; }
static uint64_t ld64(const uint8_t *p) { return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32; }
static void st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void st32(uint8_t *p, uint32_t v) { st16(p, (uint16_t)v); st16(p + 2, (uint16_t)(v >> 16)); }
static void st64(uint8_t *p, uint64_t v) { st32(p, (uint32_t)v); st32(p + 4, (uint32_t)(v >> 32)); }

/* FNV-1a, 32-bit, as the spec defines the chunk header check. */
static uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	assert_int_equal(close(fd), 0);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	uint8_t *p = malloc((size_t)len + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return p;
}

static void tmp_path(char *out, size_t n)
{
	snprintf(out, n, "/tmp/gt_hostile_XXXXXX");
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
}

/* What reading a whole file gave. */
struct result {
	int rc;                  /* first error (open or next), 0 if none */
	int opened;
	uint64_t records;        /* records handed out */
	uint64_t kernels;
	uint64_t kernel_sum;     /* sum of kernel start times: the right records, not just a count */
	struct gt_tail tail;
	int major, minor;
	char msg[512];
	struct gt_kernel first_kernel;
};

static void read_all(const char *path, struct result *res)
{
	memset(res, 0, sizeof *res);
	struct gt_reader *r;
	res->rc = gt_reader_open(&r, path, res->msg, sizeof res->msg);
	if (res->rc) {
		assert_true(res->rc < 0);
		return;
	}
	res->opened = 1;
	struct gt_event ev;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0) {
		res->records++;
		if (ev.type == GT_REC_KERNEL) {
			if (!res->kernels)
				res->first_kernel = ev.u.kernel;
			res->kernels++;
			res->kernel_sum += ev.u.kernel.start;
		}
	}
	res->rc = rc;
	snprintf(res->msg, sizeof res->msg, "%s", gt_reader_error(r));
	gt_reader_tail(r, &res->tail);
	gt_reader_version(r, &res->major, &res->minor);
	gt_reader_close(r);
}

/* The promise every error keeps: "<path>: <what> (<detail> at byte <off>)". */
static void assert_message(const struct result *res, const char *path, uint64_t off)
{
	char want[64];
	snprintf(want, sizeof want, " at byte %llu)", (unsigned long long)off);
	size_t n = strlen(path);
	if (strncmp(res->msg, path, n) != 0 || strncmp(res->msg + n, ": ", 2) != 0 ||
	    !strstr(res->msg, want))
		fail_msg("message '%s' does not name '%s' and byte %llu", res->msg, path,
		         (unsigned long long)off);
}

static void assert_error(const struct result *res, int code, const char *path, uint64_t off)
{
	if (res->rc != code)
		fail_msg("expected %s (%d), got %d: '%s'", gt_strerror(code), code, res->rc, res->msg);
	assert_message(res, path, off);
}

/* Failures before any byte is read (cannot open, not a regular file) have no offset to name:
 * "<path>: <detail>", and the detail says what went wrong. */
static void assert_error_no_offset(const struct result *res, int code, const char *path,
                                   const char *detail)
{
	if (res->rc != code)
		fail_msg("expected %s (%d), got %d: '%s'", gt_strerror(code), code, res->rc, res->msg);
	size_t n = strlen(path);
	if (strncmp(res->msg, path, n) != 0 || strncmp(res->msg + n, ": ", 2) != 0 ||
	    !strstr(res->msg, detail) || strstr(res->msg, " at byte "))
		fail_msg("message '%s' should be '%s: ...%s...' with no offset", res->msg, path, detail);
}

/* ---- a small real trace, written through the writer ------------------------------------------ */

#define MAX_CHUNKS 16

struct sample {
	char path[64];
	uint8_t *bytes;
	size_t size;
	int nchunks;                    /* the last one holds END */
	uint64_t start[MAX_CHUNKS];     /* file offset of chunk i */
	uint64_t end[MAX_CHUNKS];       /* offset just past chunk i */
	uint64_t records[MAX_CHUNKS];   /* records in chunks 0..i */
	uint64_t kernel_sum[MAX_CHUNKS];
	uint64_t kernels;
};

/* Five chunks by explicit flushes (definitions; four of kernels and API calls, one defining a
 * new string) and the END chunk that gt_writer_close adds. Offsets and counts come from the
 * writer's own counters, not from parsing the file. */
static void write_sample(struct sample *s)
{
	memset(s, 0, sizeof *s);
	tmp_path(s->path, sizeof s->path);
	struct gt_writer *w;
	assert_int_equal(gt_writer_open(&w, s->path, 0, NULL), 0);
	uint64_t pos = 32, sum = 0;
	assert_int_equal(gt_writer_bytes(w), 32);
	assert_int_equal(gt_writer_meta(w, "tool.version", "0.1.0"), 0);
	assert_int_equal(gt_writer_meta(w, "trace.synthetic", "1"), 0);
	struct gt_device d = { .device_id = 0, .sm_count = 132, .cc_major = 9,
		.mem_clock_khz = 2619000, .mem_bus_width_bits = 6144, .pcie_gen = 5, .pcie_width = 16 };
	assert_int_equal(gt_writer_device(w, &d, "NVIDIA H200"), 0);
	uint32_t names[2] = { gt_writer_intern(w, "_Z9compositePK5SplatiP6float4ii"),
		gt_writer_intern(w, "cudaLaunchKernel") };
	assert_int_equal(gt_writer_flush(w), 0);
	for (int c = 0;; c++) {
		s->start[c] = pos;
		s->end[c] = pos = gt_writer_bytes(w);
		s->records[c] = gt_writer_records(w);
		s->kernel_sum[c] = sum;
		s->nchunks = c + 1;
		if (c == 4)
			break;
		if (c == 2)
			names[0] = gt_writer_intern(w, "_Z7tonemapPK6float4P6uchar4iif");
		for (int i = 0; i < 8; i++) {
			uint64_t t = 1000000 + (uint64_t)(c * 8 + i) * 250000 + (uint64_t)(i * 37 % 11);
			struct gt_kernel k = { .start = t, .end = t + 180000 + (uint64_t)(i * 13 % 7),
				.name_id = names[0], .correlation_id = (uint32_t)(c * 8 + i + 1), .stream_id = 7,
				.grid_x = 120, .grid_y = 68, .grid_z = 1, .block_x = 16, .block_y = 16,
				.block_z = 1, .registers = 64 };
			struct gt_api a = { .start = t - 5000, .end = t - 2400, .name_id = names[1],
				.correlation_id = k.correlation_id, .domain = GT_API_RUNTIME };
			assert_int_equal(gt_writer_add(w, GT_REC_API, &a), 0);
			assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &k), 0);
			sum += t;
			s->kernels++;
		}
		assert_int_equal(gt_writer_flush(w), 0);
	}
	s->kernel_sum[s->nchunks - 1] = sum;
	/* Nothing buffered: close writes END alone into one more chunk. */
	assert_int_equal(gt_writer_close(w), 0);
	s->bytes = slurp(s->path, &s->size);
	int c = s->nchunks++;
	s->start[c] = s->end[c - 1];
	s->end[c] = s->size;
	s->records[c] = s->records[c - 1] + 1;
	s->kernel_sum[c] = sum;
	assert_true(s->end[c] > s->start[c] + 32);
}

static void free_sample(struct sample *s)
{
	unlink(s->path);
	free(s->bytes);
}

/* The whole sample reads back complete; this anchors every other expectation. */
static void test_sample_reads_complete(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	struct result res;
	read_all(s.path, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.records, s.records[s.nchunks - 1]);
	assert_int_equal(res.kernels, s.kernels);
	assert_int_equal(res.tail.chunks, s.nchunks);
	assert_true(res.tail.complete);
	assert_int_equal(res.tail.lost_bytes, 0);
	assert_string_equal(res.msg, "");
	/* The chunk table the writer's counters give matches the chunk headers in the file. */
	for (int c = 0; c < s.nchunks; c++) {
		const uint8_t *h = s.bytes + s.start[c];
		assert_int_equal(ld32(h), 0x4b435447u);
		assert_int_equal(s.start[c] + 32 + ld32(h + 8), s.end[c]);
		assert_int_equal(ld32(h + 24), c);
		assert_int_equal(ld32(h + 28), fnv1a(h, 28));
	}
	free_sample(&s);
}

/* Expected outcome of a file cut to t bytes: the complete chunks before t, nothing after. */
static void check_cut(const struct sample *s, const char *path, uint64_t t)
{
	struct result res;
	read_all(path, &res);
	if (t < 32) {
		/* Not even a file header: that is an error, not a truncated trace. */
		assert_error(&res, GT_ERR_EMPTY, path, 0);
		return;
	}
	int k = 0;
	while (k < s->nchunks && s->end[k] <= t)
		k++;
	uint64_t good = k ? s->end[k - 1] : 32;
	if (res.rc != 0)
		fail_msg("cut at %llu: error %d '%s'", (unsigned long long)t, res.rc, res.msg);
	assert_int_equal(res.records, k ? s->records[k - 1] : 0);
	assert_int_equal(res.kernel_sum, k ? s->kernel_sum[k - 1] : 0);
	assert_int_equal(res.tail.records, res.records);
	assert_int_equal(res.tail.chunks, k);
	assert_int_equal(res.tail.file_bytes, t);
	assert_int_equal(res.tail.good_bytes, good);
	assert_int_equal(res.tail.lost_bytes, t - good);
	assert_int_equal(res.tail.complete, t == s->size);
}

/* A cut at any byte never errors (past the file header): the complete chunks come back, exactly,
 * and lost_bytes is what follows the last of them. */
static void test_truncated_at_every_byte(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	char path[64];
	tmp_path(path, sizeof path);
	for (uint64_t t = 0; t <= s.size; t++) {
		write_file(path, s.bytes, t);
		check_cut(&s, path, t);
	}
	unlink(path);
	free_sample(&s);
}

/* Cut exactly at a chunk boundary: nothing lost, but no END, so not complete (except the whole). */
static void test_truncated_at_chunk_boundaries(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	char path[64];
	tmp_path(path, sizeof path);
	for (int c = 0; c < s.nchunks; c++) {
		write_file(path, s.bytes, s.end[c]);
		struct result res;
		read_all(path, &res);
		assert_int_equal(res.rc, 0);
		assert_int_equal(res.records, s.records[c]);
		assert_int_equal(res.tail.chunks, c + 1);
		assert_int_equal(res.tail.lost_bytes, 0);
		assert_int_equal(res.tail.complete, c == s.nchunks - 1);
		/* And one byte into the next chunk: that byte is lost. */
		if (c + 1 < s.nchunks) {
			write_file(path, s.bytes, s.end[c] + 1);
			read_all(path, &res);
			assert_int_equal(res.rc, 0);
			assert_int_equal(res.records, s.records[c]);
			assert_int_equal(res.tail.lost_bytes, 1);
			assert_false(res.tail.complete);
		}
	}
	unlink(path);
	free_sample(&s);
}

/* Writes the sample with one change; returns the path to read. */
static void write_patched(const struct sample *s, const char *path, uint64_t off, const void *bytes,
                          size_t n)
{
	uint8_t *copy = malloc(s->size);
	assert_non_null(copy);
	memcpy(copy, s->bytes, s->size);
	memcpy(copy + off, bytes, n);
	write_file(path, copy, s->size);
	free(copy);
}

static void test_bad_file_magic(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	char path[64];
	tmp_path(path, sizeof path);
	write_patched(&s, path, 0, "GPUTRACF", 8);
	struct result res;
	read_all(path, &res);
	assert_error(&res, GT_ERR_MAGIC, path, 0);
	assert_false(res.opened);
	unlink(path);
	free_sample(&s);
}

static void test_unknown_major_version(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	char path[64];
	tmp_path(path, sizeof path);
	uint8_t v[2];
	st16(v, GT_FORMAT_MAJOR + 1);
	write_patched(&s, path, 8, v, 2);
	struct result res;
	read_all(path, &res);
	assert_error(&res, GT_ERR_VERSION, path, 8);
	st16(v, 0);
	write_patched(&s, path, 8, v, 2);
	read_all(path, &res);
	assert_error(&res, GT_ERR_VERSION, path, 8);
	unlink(path);
	free_sample(&s);
}

/* A later minor version of the same major reads as usual, and says which version it is. */
static void test_higher_minor_version_reads(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	char path[64];
	tmp_path(path, sizeof path);
	uint8_t v[2];
	st16(v, GT_FORMAT_MINOR + 7);
	write_patched(&s, path, 10, v, 2);
	struct result res;
	read_all(path, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.major, GT_FORMAT_MAJOR);
	assert_int_equal(res.minor, GT_FORMAT_MINOR + 7);
	assert_int_equal(res.records, s.records[s.nchunks - 1]);
	assert_true(res.tail.complete);
	unlink(path);
	free_sample(&s);
}

/* A header_bytes field beyond the file, or below 32: corrupt at byte 12. A larger header that
 * fits is skipped (a later minor version may add header fields). */
static void test_file_header_size(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	char path[64];
	tmp_path(path, sizeof path);
	uint8_t v[4];
	struct result res;
	uint32_t bad[] = { 0, 31, (uint32_t)s.size + 1, 1u << 20, UINT32_MAX };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		st32(v, bad[i]);
		write_patched(&s, path, 12, v, 4);
		read_all(path, &res);
		assert_error(&res, GT_ERR_CORRUPT, path, 12);
	}
	/* 64 bytes of header: the 32 extra bytes are a copy of the first chunk's start, so the reader
	 * must begin at 64 and find garbage where it expects a chunk. */
	st32(v, 64);
	write_patched(&s, path, 12, v, 4);
	read_all(path, &res);
	assert_error(&res, GT_ERR_MAGIC, path, 64);
	unlink(path);
	free_sample(&s);
}

/* Damage in the third chunk: the records of the first two come back, then the error, which names
 * the chunk's offset. */
static void test_bad_chunk_magic_and_check(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	char path[64];
	tmp_path(path, sizeof path);
	uint64_t off = s.start[2];
	struct result res;

	write_patched(&s, path, off, "GTCX", 4);
	read_all(path, &res);
	assert_error(&res, GT_ERR_MAGIC, path, off);
	assert_int_equal(res.records, s.records[1]);

	/* Every field the check covers, and the check itself: one flipped bit each. */
	for (int b = 4; b < 32; b++) {
		uint8_t x = s.bytes[off + (uint64_t)b] ^ (uint8_t)(1u << (b % 8));
		write_patched(&s, path, off + (uint64_t)b, &x, 1);
		read_all(path, &res);
		assert_error(&res, GT_ERR_CHECKSUM, path, off);
		assert_int_equal(res.records, s.records[1]);
	}
	unlink(path);
	free_sample(&s);
}

/* One bit flipped at each byte of a chunk's zstd frame: a checksum error or a corrupt frame,
 * never a crash and never wrong records; a flip zstd ignores (an unused header bit) reads the
 * same trace. */
static void test_bit_flips_in_frame(void **state)
{
	(void)state;
	struct sample s;
	write_sample(&s);
	char path[64];
	tmp_path(path, sizeof path);
	struct result res;
	int errors = 0, same = 0;
	for (int c = 1; c <= 2; c++) {
		for (uint64_t off = s.start[c] + 32; off < s.end[c]; off++) {
			uint8_t x = s.bytes[off] ^ (uint8_t)(1u << (off % 8));
			write_patched(&s, path, off, &x, 1);
			read_all(path, &res);
			if (res.rc == 0) {
				assert_int_equal(res.records, s.records[s.nchunks - 1]);
				assert_int_equal(res.kernel_sum, s.kernel_sum[s.nchunks - 1]);
				same++;
				continue;
			}
			if (res.rc != GT_ERR_CHECKSUM && res.rc != GT_ERR_CORRUPT)
				fail_msg("flip at %llu: unexpected %d '%s'", (unsigned long long)off, res.rc,
				         res.msg);
			assert_message(&res, path, s.start[c]);
			assert_int_equal(res.records, s.records[c - 1]);
			errors++;
		}
	}
	/* Almost every flip must be caught. A few land on bits the decoder never reads (padding in a
	 * bitstream, an unused header bit) and read back the same records, checked above. */
	if (errors == 0 || same * 20 > errors)
		fail_msg("%d flips caught, %d read back the same trace", errors, same);
	unlink(path);
	free_sample(&s);
}

/* ---- hand-made files: a minimal writer from the spec ------------------------------------------ */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put32v(struct buf *b, uint32_t v)
{
	uint8_t x[4];
	st32(x, v);
	put(b, x, 4);
}

static void file_header(struct buf *f, uint16_t major, uint16_t minor)
{
	uint8_t h[32] = { 0 };
	memcpy(h, "GPUTRACE", 8);
	st16(h + 8, major);
	st16(h + 10, minor);
	st32(h + 12, 32);
	put(f, h, 32);
}

/* Compresses raw into one frame (checksum and content size on) behind a chunk header. Returns the
 * chunk's offset. */
static uint64_t chunk(struct buf *f, const struct buf *raw, uint32_t nrec, uint32_t nblocks,
                      uint32_t seq)
{
	uint64_t off = f->n;
	size_t bound = ZSTD_compressBound(raw->n);
	uint8_t *z = malloc(bound);
	assert_non_null(z);
	ZSTD_CCtx *c = ZSTD_createCCtx();
	assert_non_null(c);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1)));
	size_t zn = ZSTD_compress2(c, z, bound, raw->n ? (const void *)raw->p : (const void *)"", raw->n);
	assert_false(ZSTD_isError(zn));
	ZSTD_freeCCtx(c);
	uint8_t h[32];
	st32(h, 0x4b435447u);
	st32(h + 4, 0);
	st32(h + 8, (uint32_t)zn);
	st32(h + 12, (uint32_t)raw->n);
	st32(h + 16, nrec);
	st32(h + 20, nblocks);
	st32(h + 24, seq);
	st32(h + 28, fnv1a(h, 28));
	put(f, h, 32);
	put(f, z, zn);
	free(z);
	return off;
}

/* Overwrites a chunk header field and recomputes the check, so that the reader trusts the header
 * and reaches the field's own validation. */
static void patch_header(struct buf *f, uint64_t chunk_off, unsigned field, uint32_t v)
{
	uint8_t *h = f->p + chunk_off;
	st32(h + field, v);
	st32(h + 28, fnv1a(h, 28));
}

static void block_header(struct buf *raw, uint16_t type, uint16_t enc, uint32_t count,
                         uint32_t rsize, uint32_t payload)
{
	uint8_t h[16];
	st16(h, type);
	st16(h + 2, enc);
	st32(h + 4, count);
	st32(h + 8, rsize);
	st32(h + 12, payload);
	put(raw, h, 16);
}

/* A variable block of STRING records with the given ids ("s<id>" each). */
static void string_block(struct buf *raw, const uint32_t *ids, uint32_t n)
{
	struct buf p = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		char s[16];
		int len = snprintf(s, sizeof s, "s%u", ids[i]);
		put32v(&p, 4 + (uint32_t)len);
		put32v(&p, ids[i]);
		put(&p, s, (size_t)len);
	}
	block_header(raw, GT_REC_STRING, 0, n, 0, (uint32_t)p.n);
	put(raw, p.p, p.n);
	free(p.p);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* The spec's fixed-record encoding, for kernel records: base (start, offset 0) as the zigzag delta
 * to the previous record's; end, queued, submitted (offsets 8, 16, 24) as zigzag(v - base) + 1, 0
 * staying 0; correlation_id (offset 44) as the wrapping difference to the previous record's; then
 * byte j of record i goes to j * n + i. Records are rsize bytes (a newer or older minor version's
 * size); fields that do not fit are not there. */
static void kernel_block(struct buf *raw, const uint8_t *recs, uint32_t n, uint32_t rsize)
{
	static const unsigned rel[] = { 8, 16, 24 };
	uint8_t *enc = malloc((size_t)n * rsize + 1), *out = malloc((size_t)n * rsize + 1);
	assert_non_null(enc);
	assert_non_null(out);
	memcpy(enc, recs, (size_t)n * rsize);
	uint64_t pbase = 0;
	uint32_t pcorr = 0;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *o = recs + (size_t)i * rsize;
		uint8_t *e = enc + (size_t)i * rsize;
		uint64_t base = ld64(o);
		st64(e, zigzag((int64_t)(base - pbase)));
		pbase = base;
		for (unsigned k = 0; k < 3; k++) {
			if (rel[k] + 8 > rsize)
				continue;
			uint64_t v = ld64(o + rel[k]);
			st64(e + rel[k], v ? zigzag((int64_t)(v - base)) + 1 : 0);
		}
		if (44 + 4 <= rsize) {
			uint32_t v = ld32(o + 44);
			st32(e + 44, v - pcorr);
			pcorr = v;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < rsize; j++)
			out[(size_t)j * n + i] = enc[(size_t)i * rsize + j];
	block_header(raw, GT_REC_KERNEL, 1, n, rsize, n * rsize);
	put(raw, out, (size_t)n * rsize);
	free(enc);
	free(out);
}

static struct gt_kernel some_kernel(uint32_t i)
{
	struct gt_kernel k = { .start = 5000000 + i * 100000ull + (i % 3) * 7, .end = 0,
		.queued = i % 2 ? 4990000 + i * 100000ull : 0, .submitted = 0, .graph_node_id = i,
		.name_id = 1, .correlation_id = 0xfffffffeu + i, .device_id = 0, .stream_id = 7,
		.grid_x = 64 + i, .grid_y = 2, .grid_z = 1, .block_x = 256, .block_y = 1, .block_z = 1,
		.cluster_x = 1, .static_smem = 1024, .dynamic_smem = 2048, .local_mem = 16,
		.registers = 40, .flags = (uint16_t)(i % 2 ? GT_KERNEL_HAS_QUEUED : 0), .reserved = 0 };
	/* Base timestamps that go backwards too: CUPTI hands buffers over unsorted. */
	if (i == 2)
		k.start = 4000000;
	k.end = k.start + 30000 + i;
	return k;
}

/* Writes f to a fresh temp file and reads it. */
static void read_buf(const struct buf *f, char *path, size_t pathlen, struct result *res)
{
	tmp_path(path, pathlen);
	write_file(path, f->p, f->n);
	read_all(path, res);
}

/* One chunk whose only block is raw_block (after a valid string definition). */
static void single_block_file(struct buf *f, const struct buf *blk, uint32_t blk_records)
{
	struct buf raw = { 0 };
	uint32_t id = 1;
	string_block(&raw, &id, 1);
	put(&raw, blk->p, blk->n);
	file_header(f, 1, 0);
	chunk(f, &raw, 1 + blk_records, 2, 0);
	free(raw.p);
}

/* The hand-made writer is right: a file it makes reads back with the values it put in. */
static void test_handmade_file_reads(void **state)
{
	(void)state;
	enum { N = 5 };
	struct gt_kernel k[N];
	for (uint32_t i = 0; i < N; i++)
		k[i] = some_kernel(i);
	struct buf blk = { 0 }, f = { 0 };
	kernel_block(&blk, (const uint8_t *)k, N, sizeof k[0]);
	single_block_file(&f, &blk, N);
	char path[64];
	struct result res;
	read_buf(&f, path, sizeof path, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.kernels, N);
	assert_memory_equal(&res.first_kernel, &k[0], sizeof k[0]);
	uint64_t sum = 0;
	for (int i = 0; i < N; i++)
		sum += k[i].start;
	assert_int_equal(res.kernel_sum, sum);
	assert_false(res.tail.complete); /* no END record */
	assert_int_equal(res.tail.lost_bytes, 0);
	unlink(path);
	free(blk.p);
	free(f.p);
}

/* A newer minor version's longer kernel record: the extra trailing bytes are ignored. */
static void test_longer_fixed_record(void **state)
{
	(void)state;
	enum { N = 4, EXTRA = 16 };
	const uint32_t rsize = sizeof(struct gt_kernel) + EXTRA;
	uint8_t recs[N * (sizeof(struct gt_kernel) + EXTRA)];
	struct gt_kernel k[N];
	for (uint32_t i = 0; i < N; i++) {
		k[i] = some_kernel(i);
		memcpy(recs + i * rsize, &k[i], sizeof k[i]);
		memset(recs + i * rsize + sizeof k[i], 0xab, EXTRA);
	}
	struct buf blk = { 0 }, f = { 0 };
	kernel_block(&blk, recs, N, rsize);
	struct buf raw = { 0 };
	uint32_t id = 1;
	string_block(&raw, &id, 1);
	put(&raw, blk.p, blk.n);
	file_header(&f, 1, 3);
	chunk(&f, &raw, 1 + N, 2, 0);
	char path[64];
	tmp_path(path, sizeof path);
	write_file(path, f.p, f.n);

	struct gt_reader *r;
	assert_int_equal(gt_reader_open(&r, path, NULL, 0), 0);
	struct gt_event ev;
	uint32_t i = 0;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0) {
		if (ev.type != GT_REC_KERNEL)
			continue;
		assert_memory_equal(&ev.u.kernel, &k[i], sizeof k[i]);
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, N);
	gt_reader_close(r);
	unlink(path);
	free(blk.p);
	free(raw.p);
	free(f.p);
}

/* An older minor version's shorter kernel record: the fields it lacks read as zero. */
static void test_shorter_fixed_record(void **state)
{
	(void)state;
	enum { N = 4 };
	const uint32_t rsize = 80; /* ends before block_y (offset 80) */
	uint8_t recs[N * 80];
	struct gt_kernel k[N];
	for (uint32_t i = 0; i < N; i++) {
		k[i] = some_kernel(i);
		memcpy(recs + i * rsize, &k[i], rsize);
	}
	struct buf blk = { 0 }, f = { 0 };
	kernel_block(&blk, recs, N, rsize);
	single_block_file(&f, &blk, N);
	char path[64];
	tmp_path(path, sizeof path);
	write_file(path, f.p, f.n);
	struct gt_reader *r;
	assert_int_equal(gt_reader_open(&r, path, NULL, 0), 0);
	struct gt_event ev;
	uint32_t i = 0;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0) {
		if (ev.type != GT_REC_KERNEL)
			continue;
		struct gt_kernel want = k[i];
		memset((uint8_t *)&want + rsize, 0, sizeof want - rsize);
		assert_memory_equal(&ev.u.kernel, &want, sizeof want);
		assert_int_equal(ev.u.kernel.block_y, 0);
		assert_int_equal(ev.u.kernel.registers, 0);
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, N);
	gt_reader_close(r);
	unlink(path);
	free(blk.p);
	free(f.p);
}

/* Blocks of types this reader does not know, or in an unknown encoding, are skipped by their
 * size and counted; the records around them still come back. */
static void test_unknown_types_skipped(void **state)
{
	(void)state;
	struct buf raw = { 0 }, f = { 0 };
	uint32_t id = 1;
	string_block(&raw, &id, 1);
	uint8_t junk[3 * 40];
	memset(junk, 0x5a, sizeof junk);
	block_header(&raw, 200, 1, 3, 40, sizeof junk); /* unknown fixed type */
	put(&raw, junk, sizeof junk);
	struct buf var = { 0 };
	for (int i = 0; i < 2; i++) {
		put32v(&var, 5);
		put(&var, "hello", 5);
	}
	block_header(&raw, 40, 0, 2, 0, (uint32_t)var.n); /* unknown variable type */
	put(&raw, var.p, var.n);
	block_header(&raw, GT_REC_KERNEL, 9, 5, 0, 7); /* known type, unknown encoding */
	put(&raw, "1234567", 7);
	struct gt_kernel k[2] = { some_kernel(0), some_kernel(1) };
	kernel_block(&raw, (const uint8_t *)k, 2, sizeof k[0]);
	file_header(&f, 1, 0);
	chunk(&f, &raw, 1 + 3 + 2 + 5 + 2, 5, 0);
	char path[64];
	struct result res;
	read_buf(&f, path, sizeof path, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.kernels, 2);
	assert_int_equal(res.records, 3); /* the string and the two kernels */
	assert_int_equal(res.tail.skipped_records, 3 + 2 + 5);
	unlink(path);
	free(var.p);
	free(raw.p);
	free(f.p);
}

/* The payload is exactly one zstd frame: a second frame, a skippable frame or stray bytes after
 * it (with the compressed size in the header counting them) are corrupt. */
static void test_bytes_after_frame(void **state)
{
	(void)state;
	struct gt_kernel k[2] = { some_kernel(0), some_kernel(1) };
	struct buf blk = { 0 };
	kernel_block(&blk, (const uint8_t *)k, 2, sizeof k[0]);
	uint8_t skippable[12] = { 0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 'g', 't', 'x', 'x' };
	uint8_t empty_frame[32];
	size_t en = ZSTD_compress(empty_frame, sizeof empty_frame, "", 0, 1);
	assert_false(ZSTD_isError(en));
	struct { const uint8_t *p; size_t n; } tails[] = { { skippable, sizeof skippable },
		{ empty_frame, en }, { (const uint8_t *)"\0", 1 } };
	for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		struct buf f = { 0 };
		single_block_file(&f, &blk, 2);
		uint32_t csize = ld32(f.p + 32 + 8);
		put(&f, tails[i].p, tails[i].n);
		patch_header(&f, 32, 8, csize + (uint32_t)tails[i].n);
		char path[64];
		struct result res;
		read_buf(&f, path, sizeof path, &res);
		if (res.rc != GT_ERR_CORRUPT)
			fail_msg("tail %zu: expected corrupt, got %d '%s'", i, res.rc, res.msg);
		assert_message(&res, path, 32);
		unlink(path);
		free(f.p);
	}
	free(blk.p);
}

/* Chunk header fields with absurd values but a correct check: each caught by its own test. */
static void test_absurd_chunk_header(void **state)
{
	(void)state;
	struct gt_kernel k[3] = { some_kernel(0), some_kernel(1), some_kernel(2) };
	struct buf blk = { 0 };
	kernel_block(&blk, (const uint8_t *)k, 3, sizeof k[0]);
	struct { unsigned field; uint32_t value; int code; } cases[] = {
		{ 12, UINT32_MAX, GT_ERR_TOO_LARGE },      /* raw size beyond the limit */
		{ 12, (64u << 20) + 1, GT_ERR_TOO_LARGE },
		{ 12, 5, GT_ERR_CORRUPT },                 /* raw size != the frame's content size */
		{ 8, UINT32_MAX, GT_ERR_CORRUPT },         /* compressed size beyond any bound */
		{ 8, 3, GT_ERR_CORRUPT },                  /* too short for a frame header */
		{ 16, 0, GT_ERR_CORRUPT },                 /* record count */
		{ 16, UINT32_MAX, GT_ERR_CORRUPT },
		{ 20, 0, GT_ERR_CORRUPT },                 /* block count */
		{ 20, UINT32_MAX, GT_ERR_CORRUPT },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf f = { 0 };
		single_block_file(&f, &blk, 3);
		patch_header(&f, 32, cases[i].field, cases[i].value);
		char path[64];
		struct result res;
		read_buf(&f, path, sizeof path, &res);
		assert_error(&res, cases[i].code, path, 32);
		assert_int_equal(res.records, 0);
		unlink(path);
		free(f.p);
	}
	/* A compressed size that runs past the end of the file is what a cut-off write leaves: the
	 * chunk is the lost tail, not an error. */
	struct buf f = { 0 };
	single_block_file(&f, &blk, 3);
	patch_header(&f, 32, 8, (uint32_t)f.n);
	char path[64];
	struct result res;
	read_buf(&f, path, sizeof path, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.records, 0);
	assert_int_equal(res.tail.lost_bytes, f.n - 32);
	unlink(path);
	free(f.p);
	free(blk.p);
}

/* Block headers with absurd counts and sizes, inside a sound frame. */
static void test_absurd_block_headers(void **state)
{
	(void)state;
	struct { const char *what; uint16_t type, enc; uint32_t count, rsize, payload, actual; } cases[] = {
		{ "payload past the chunk", GT_REC_KERNEL, 1, 1, 120, UINT32_MAX, 120 },
		{ "payload past the chunk by one", GT_REC_KERNEL, 1, 1, 120, 121, 120 },
		{ "record size 0", GT_REC_KERNEL, 1, 4, 0, 0, 0 },
		{ "record size beyond the limit", GT_REC_KERNEL, 1, 1, 4097, 4097, 4097 },
		{ "count x size overflows 32 bits", GT_REC_KERNEL, 1, 0x80000000u, 2, 0, 0 },
		{ "count x size != payload", GT_REC_KERNEL, 1, 3, 120, 240, 240 },
		{ "variable count past the payload", GT_REC_META, 0, UINT32_MAX, 0, 8, 8 },
		{ "unknown encoding, payload past the chunk", 300, 7, 1, 0, 1000, 10 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf blk = { 0 }, f = { 0 };
		block_header(&blk, cases[i].type, cases[i].enc, cases[i].count, cases[i].rsize,
		             cases[i].payload);
		uint8_t *zeros = calloc(1, cases[i].actual + 1);
		assert_non_null(zeros);
		/* For the variable case: two records of length 0, so the count is what is wrong. */
		put(&blk, zeros, cases[i].actual);
		free(zeros);
		single_block_file(&f, &blk, cases[i].count);
		char path[64];
		struct result res;
		read_buf(&f, path, sizeof path, &res);
		if (res.rc != GT_ERR_CORRUPT)
			fail_msg("%s: expected corrupt, got %d '%s'", cases[i].what, res.rc, res.msg);
		assert_message(&res, path, 32);
		unlink(path);
		free(blk.p);
		free(f.p);
	}
}

/* A stray partial block header, a variable record longer than its block, trailing bytes. */
static void test_bad_variable_blocks(void **state)
{
	(void)state;
	char path[64];
	struct result res;
	/* 10 bytes after the string block: not enough for a block header. */
	struct buf blk = { 0 }, f = { 0 };
	put(&blk, "0123456789", 10);
	single_block_file(&f, &blk, 0);
	patch_header(&f, 32, 20, 1);
	read_buf(&f, path, sizeof path, &res);
	assert_error(&res, GT_ERR_CORRUPT, path, 32);
	unlink(path);
	free(blk.p);
	free(f.p);

	/* A META record whose length runs past its block. */
	memset(&blk, 0, sizeof blk);
	memset(&f, 0, sizeof f);
	block_header(&blk, GT_REC_META, 0, 1, 0, 8);
	put32v(&blk, 100);
	put32v(&blk, 0);
	single_block_file(&f, &blk, 1);
	read_buf(&f, path, sizeof path, &res);
	assert_error(&res, GT_ERR_CORRUPT, path, 32);
	unlink(path);
	free(blk.p);
	free(f.p);

	/* Bytes left after the block's records. */
	memset(&blk, 0, sizeof blk);
	memset(&f, 0, sizeof f);
	block_header(&blk, GT_REC_META, 0, 1, 0, 12);
	put32v(&blk, 4);
	put32v(&blk, 0);
	put32v(&blk, 0);
	single_block_file(&f, &blk, 1);
	read_buf(&f, path, sizeof path, &res);
	assert_error(&res, GT_ERR_CORRUPT, path, 32);
	unlink(path);
	free(blk.p);
	free(f.p);

	/* A META record whose key length exceeds the record. */
	memset(&blk, 0, sizeof blk);
	memset(&f, 0, sizeof f);
	block_header(&blk, GT_REC_META, 0, 1, 0, 12);
	put32v(&blk, 8);
	put32v(&blk, 9);
	put(&blk, "abcd", 4);
	single_block_file(&f, &blk, 1);
	read_buf(&f, path, sizeof path, &res);
	assert_error(&res, GT_ERR_CORRUPT, path, 32);
	assert_int_equal(res.records, 1); /* the string before it */
	unlink(path);
	free(blk.p);
	free(f.p);
}

/* String ids must run 1, 2, 3, ... in file order; anything else is corrupt, at the chunk where
 * the sequence breaks (here the second chunk). */
static void test_string_ids_out_of_sequence(void **state)
{
	(void)state;
	const uint32_t bad[][3] = {
		{ 3, 4, 5 },   /* skips 2 (the first chunk defined 1) */
		{ 0, 2, 3 },   /* 0 is "no string" */
		{ 2, 3, 3 },   /* repeats */
		{ 1, 2, 3 },   /* repeats the first chunk's id */
		{ 2, 4, 5 },   /* gap */
		{ 2, 3, UINT32_MAX },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct buf raw1 = { 0 }, raw2 = { 0 }, f = { 0 };
		uint32_t one = 1;
		string_block(&raw1, &one, 1);
		string_block(&raw2, bad[i], 3);
		file_header(&f, 1, 0);
		chunk(&f, &raw1, 1, 1, 0);
		uint64_t off = chunk(&f, &raw2, 3, 1, 1);
		char path[64];
		struct result res;
		read_buf(&f, path, sizeof path, &res);
		if (res.rc != GT_ERR_CORRUPT)
			fail_msg("ids {%u %u %u}: expected corrupt, got %d '%s'", bad[i][0], bad[i][1],
			         bad[i][2], res.rc, res.msg);
		assert_message(&res, path, off);
		unlink(path);
		free(raw1.p);
		free(raw2.p);
		free(f.p);
	}
	/* The same ids in sequence read fine (the test above is not rejecting everything). */
	struct buf raw1 = { 0 }, raw2 = { 0 }, f = { 0 };
	uint32_t one = 1, next[3] = { 2, 3, 4 };
	string_block(&raw1, &one, 1);
	string_block(&raw2, next, 3);
	file_header(&f, 1, 0);
	chunk(&f, &raw1, 1, 1, 0);
	chunk(&f, &raw2, 3, 1, 1);
	char path[64];
	struct result res;
	read_buf(&f, path, sizeof path, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.records, 4);
	unlink(path);
	free(raw1.p);
	free(raw2.p);
	free(f.p);
}

/* A device record whose name_len disagrees with its length, or too short for the struct. */
static void test_device_name_len(void **state)
{
	(void)state;
	const char *name = "NVIDIA H200";
	const size_t nl = strlen(name);
	struct { uint32_t name_len; size_t struct_bytes; int code; } cases[] = {
		{ 11, sizeof(struct gt_device), 0 },      /* right */
		{ 12, sizeof(struct gt_device), GT_ERR_CORRUPT },
		{ 10, sizeof(struct gt_device), 0 }, /* a longer struct (a later minor version): the name is
		                                       * the last 10 bytes */
		{ UINT32_MAX, sizeof(struct gt_device), GT_ERR_CORRUPT },
		{ 0, sizeof(struct gt_device) - 12, GT_ERR_CORRUPT }, /* struct cut short */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct gt_device d;
		memset(&d, 0, sizeof d);
		d.sm_count = 132;
		d.name_len = cases[i].name_len;
		struct buf blk = { 0 }, f = { 0 }, rec = { 0 };
		put(&rec, &d, cases[i].struct_bytes);
		if (cases[i].struct_bytes == sizeof d)
			put(&rec, name, nl);
		block_header(&blk, GT_REC_DEVICE, 0, 1, 0, 4 + (uint32_t)rec.n);
		put32v(&blk, (uint32_t)rec.n);
		put(&blk, rec.p, rec.n);
		single_block_file(&f, &blk, 1);
		char path[64];
		struct result res;
		read_buf(&f, path, sizeof path, &res);
		if (cases[i].code)
			assert_error(&res, cases[i].code, path, 32);
		else
			assert_int_equal(res.rc, 0);
		unlink(path);
		free(rec.p);
		free(blk.p);
		free(f.p);
	}
}

/* Files that are not traces at all. */
static void test_not_a_trace(void **state)
{
	(void)state;
	char path[64];
	struct result res;
	/* Empty. */
	tmp_path(path, sizeof path);
	read_all(path, &res);
	assert_error(&res, GT_ERR_EMPTY, path, 0);
	/* Shorter than the header, but the right magic. */
	write_file(path, (const uint8_t *)"GPUTRACE\1\0\0\0", 12);
	read_all(path, &res);
	assert_error(&res, GT_ERR_EMPTY, path, 0);
	unlink(path);
	/* A directory. */
	read_all("/tmp", &res);
	assert_error_no_offset(&res, GT_ERR_ARG, "/tmp", "not a regular file");
	/* A path that does not exist. */
	read_all("/nonexistent/gt_hostile.gtrace", &res);
	assert_error_no_offset(&res, GT_ERR_IO, "/nonexistent/gt_hostile.gtrace", strerror(ENOENT));
	/* An ELF executable: this test program. */
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	read_all(exe, &res);
	assert_error(&res, GT_ERR_MAGIC, exe, 0);
	/* Text. */
	tmp_path(path, sizeof path);
	const char *text = "#!/bin/sh\necho this is not a trace, but it is longer than 32 bytes\n";
	write_file(path, (const uint8_t *)text, strlen(text));
	read_all(path, &res);
	assert_error(&res, GT_ERR_MAGIC, path, 0);
	unlink(path);
}

/* The writer never writes what its reader refuses: a large variable record on top of a nearly
 * full chunk (32 MiB buffered, the largest chunk size) must not make a chunk beyond the reader's
 * GT_MAX_CHUNK_RAW (64 MiB). */
static void test_writer_keeps_chunks_within_limits(void **state)
{
	(void)state;
	char path[64];
	tmp_path(path, sizeof path);
	struct gt_writer *w;
	struct gt_writer_options opt = { .chunk_bytes = 32u << 20, .compression_level = 1 };
	assert_int_equal(gt_writer_open(&w, path, 0, &opt), 0);
	const size_t big = (48u << 20) - 64; /* just under GT_MAX_VAR_RECORD */
	uint8_t *p = calloc(1, big);
	assert_non_null(p);
	assert_true(gt_writer_blob(w, GT_BLOB_BUFFER, p, 30u << 20) > 0); /* 4 pieces, no flush */
	assert_int_equal(gt_writer_add_var(w, GT_REC_CAPTURE, p, big), 0);
	assert_int_equal(gt_writer_close(w), 0);
	free(p);
	struct result res;
	read_all(path, &res);
	if (res.rc != 0)
		fail_msg("the writer's own file: %s", res.msg);
	assert_int_equal(res.records, 4 + 1 + 1);
	assert_true(res.tail.complete);
	unlink(path);
}

/* GT_MAX_STRINGS distinct strings read; one more is refused at the chunk that holds it, before the
 * table grows: a name table is what every command keeps, and names cost a few bytes of file each. */
static void test_string_count_cap(void **state)
{
	(void)state;
	const uint32_t per = GT_MAX_STRINGS / 4;
	uint32_t *ids = malloc(per * sizeof *ids);
	assert_non_null(ids);
	struct buf f = { 0 };
	file_header(&f, 1, 0);
	for (uint32_t c = 0; c < 4; c++) {
		struct buf raw = { 0 };
		for (uint32_t i = 0; i < per; i++)
			ids[i] = c * per + i + 1;
		string_block(&raw, ids, per);
		chunk(&f, &raw, per, 1, c);
		free(raw.p);
	}
	char path[64];
	struct result res;
	read_buf(&f, path, sizeof path, &res);
	if (res.rc != 0)
		fail_msg("%u strings, the cap: %s", GT_MAX_STRINGS, res.msg);
	assert_int_equal(res.records, GT_MAX_STRINGS);
	unlink(path);
	struct buf raw = { 0 };
	ids[0] = GT_MAX_STRINGS + 1;
	string_block(&raw, ids, 1);
	uint64_t off = chunk(&f, &raw, 1, 1, 4);
	read_buf(&f, path, sizeof path, &res);
	assert_error(&res, GT_ERR_TOO_LARGE, path, off);
	assert_non_null(strstr(res.msg, "more than 1048576 strings"));
	unlink(path);
	free(raw.p);
	free(f.p);
	free(ids);
}

/* The writer stays within the reader's string caps (format.h): a string over GT_MAX_STRING_LEN is
 * cut to it, a new string past GT_MAX_STRINGS gets id 0 (no name) while known ones keep theirs, and
 * the file reads back: a program with too many names must not record a trace the reader refuses. */
static void test_writer_stays_within_string_caps(void **state)
{
	(void)state;
	char path[64];
	tmp_path(path, sizeof path);
	struct gt_writer *w;
	assert_int_equal(gt_writer_open(&w, path, 0, NULL), 0);
	size_t big = 2 * (size_t)GT_MAX_STRING_LEN;
	char *s = malloc(big);
	assert_non_null(s);
	memset(s, 'x', big);
	assert_int_equal(gt_writer_intern_n(w, s, big), 1);
	assert_int_equal(gt_writer_intern_n(w, s, GT_MAX_STRING_LEN), 1); /* the same string, cut */
	free(s);
	char name[32];
	for (uint32_t i = 2; i <= GT_MAX_STRINGS; i++) {
		snprintf(name, sizeof name, "k%u", i);
		assert_int_equal(gt_writer_intern(w, name), i);
	}
	assert_int_equal(gt_writer_intern(w, "one too many"), 0);
	assert_int_equal(gt_writer_intern(w, "k7"), 7);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_reader *r;
	char msg[512];
	assert_int_equal(gt_reader_open(&r, path, msg, sizeof msg), 0);
	if (gt_reader_scan_definitions(r) != 0)
		fail_msg("the writer's own file: %s", gt_reader_error(r));
	assert_int_equal(gt_reader_string_count(r), GT_MAX_STRINGS);
	assert_int_equal(strlen(gt_reader_string(r, 1)), GT_MAX_STRING_LEN);
	gt_reader_close(r);
	unlink(path);
}

/* ---- known-bad inputs: tests/data/bad/FILE with FILE.err -------------------------------------- */
static int code_by_name(const char *s)
{
	static const struct { const char *name; int code; } t[] = {
		{ "GT_OK", GT_OK }, { "GT_ERR_IO", GT_ERR_IO }, { "GT_ERR_NOMEM", GT_ERR_NOMEM },
		{ "GT_ERR_MAGIC", GT_ERR_MAGIC }, { "GT_ERR_VERSION", GT_ERR_VERSION },
		{ "GT_ERR_CORRUPT", GT_ERR_CORRUPT }, { "GT_ERR_CHECKSUM", GT_ERR_CHECKSUM },
		{ "GT_ERR_TOO_LARGE", GT_ERR_TOO_LARGE }, { "GT_ERR_ARG", GT_ERR_ARG },
		{ "GT_ERR_EMPTY", GT_ERR_EMPTY },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(s, t[i].name) == 0)
			return t[i].code;
	fail_msg("unknown error name '%s'", s);
	return 1;
}

/* FILE.err holds one line: the expected code's name, then (for errors) the byte offset the message
 * must name and a piece of the message: "GT_ERR_CORRUPT 32 string id". GT_OK means FILE must read
 * to its end without error (a fuzzer found each one crashing the reader on a valid or truncated trace). */
static void test_known_bad_inputs(void **state)
{
	(void)state;
	const char *src = getenv("GT_SRCDIR");
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/tests/data/bad", src && *src ? src : ".");
	DIR *d = opendir(dir);
	if (!d)
		fail_msg("cannot open %s (run from the source root or set GT_SRCDIR): %s", dir,
		         strerror(errno));
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".err") != 0)
			continue;
		char errf[2048], input[2048];
		snprintf(errf, sizeof errf, "%s/%s", dir, e->d_name);
		snprintf(input, sizeof input, "%s/%.*s", dir, (int)(len - 4), e->d_name);
		if (access(input, F_OK) != 0)
			fail_msg("%s has no input file %s", errf, input);
		size_t elen;
		char *spec = (char *)slurp(errf, &elen);
		spec[elen] = '\0';
		char name[64] = "", piece[256] = "";
		unsigned long long off = 0;
		int got = sscanf(spec, "%63s %llu %255[^\n]", name, &off, piece);
		assert_true(got >= 1);
		int code = code_by_name(name);
		struct result res;
		read_all(input, &res);
		if (res.rc != code)
			fail_msg("%s: expected %s, got %d '%s'", input, name, res.rc, res.msg);
		if (code != 0) {
			assert_message(&res, input, off);
			if (got == 3 && !strstr(res.msg, piece))
				fail_msg("%s: message '%s' lacks '%s'", input, res.msg, piece);
		}
		free(spec);
		n++;
	}
	closedir(d);
	assert_true(n > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_reads_complete),
		cmocka_unit_test(test_truncated_at_every_byte),
		cmocka_unit_test(test_truncated_at_chunk_boundaries),
		cmocka_unit_test(test_bad_file_magic),
		cmocka_unit_test(test_unknown_major_version),
		cmocka_unit_test(test_higher_minor_version_reads),
		cmocka_unit_test(test_file_header_size),
		cmocka_unit_test(test_bad_chunk_magic_and_check),
		cmocka_unit_test(test_bit_flips_in_frame),
		cmocka_unit_test(test_handmade_file_reads),
		cmocka_unit_test(test_longer_fixed_record),
		cmocka_unit_test(test_shorter_fixed_record),
		cmocka_unit_test(test_unknown_types_skipped),
		cmocka_unit_test(test_absurd_chunk_header),
		cmocka_unit_test(test_bytes_after_frame),
		cmocka_unit_test(test_absurd_block_headers),
		cmocka_unit_test(test_bad_variable_blocks),
		cmocka_unit_test(test_string_ids_out_of_sequence),
		cmocka_unit_test(test_device_name_len),
		cmocka_unit_test(test_not_a_trace),
		cmocka_unit_test(test_writer_keeps_chunks_within_limits),
		cmocka_unit_test(test_string_count_cap),
		cmocka_unit_test(test_writer_stays_within_string_caps),
		cmocka_unit_test(test_known_bad_inputs),
	};
	return cmocka_run_group_tests_name("trace hostile input", tests, NULL, NULL);
}
