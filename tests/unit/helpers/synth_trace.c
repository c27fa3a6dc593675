/* synth_trace.c: builds small synthetic traces through the writer API for the analyzer's tests.
 *
 * The fixture trace is shaped to exercise what summary and info must get right: records out of
 * start order (warm-up is by start time, not file order), the slowest launches first (warm-up is
 * by position, not value), bad timestamps both flagged and unflagged, a mangled template name, an
 * extern "C" name, copies and memsets of several kinds, a drop record, several chunks.
 */
#include "helpers/synth_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int synth_open(struct gt_writer **w, const char *path, size_t chunk_bytes)
{
	struct gt_writer_options opt = { .chunk_bytes = chunk_bytes };
	int rc = gt_writer_open(w, path, 0, &opt);
	if (rc)
		return rc;
	if ((rc = gt_writer_meta(*w, "tool.version", "0.1.0")) != 0 ||
	    (rc = gt_writer_meta(*w, "trace.synthetic", "1")) != 0 ||
	    (rc = gt_writer_meta(*w, "host.name", "fixture-host")) != 0 ||
	    (rc = gt_writer_meta(*w, "process.command_line", "./splat_render --frames 3")) != 0) {
		gt_writer_abandon(*w);
		*w = NULL;
	}
	return rc;
}

int synth_device(struct gt_writer *w)
{
	struct gt_device d = {
		.device_id = 0,
		.sm_count = 132,
		.cc_major = 9,
		.cc_minor = 0,
		.global_mem_bytes = 150754820096ull, /* 140.4 GiB */
		.sm_clock_khz = 1980000,
		.mem_clock_khz = 2619000,
		.mem_bus_width_bits = 6144,
		.pcie_gen = 5,
		.pcie_width = 16,
		.pcie_gen_current = 5,
		.pcie_width_current = 16,
		.l2_bytes = 62914560,
		.max_threads_per_sm = 2048,
	};
	for (int i = 0; i < 16; i++)
		d.uuid[i] = (uint8_t)(0x10 + i);
	return gt_writer_device(w, &d, "NVIDIA H200");
}

int synth_kernel(struct gt_writer *w, const char *name, uint64_t start, uint64_t end, uint16_t flags)
{
	struct gt_kernel k;
	memset(&k, 0, sizeof k);
	k.start = start;
	k.end = end;
	k.name_id = gt_writer_intern(w, name);
	if (!k.name_id)
		return GT_ERR_NOMEM;
	k.correlation_id = (uint32_t)(start / 1000); /* deterministic, whatever was written before */
	k.context_id = 1;
	k.stream_id = 7;
	k.grid_x = 256;
	k.grid_y = k.grid_z = 1;
	k.block_x = 128;
	k.block_y = k.block_z = 1;
	k.registers = 32;
	k.flags = flags;
	return gt_writer_add(w, GT_REC_KERNEL, &k);
}

int synth_memcpy(struct gt_writer *w, int copy_kind, int src_kind, int dst_kind, uint64_t bytes,
                 uint64_t start, uint64_t end)
{
	struct gt_memcpy m;
	memset(&m, 0, sizeof m);
	m.start = start;
	m.end = end;
	m.bytes = bytes;
	m.context_id = 1;
	m.stream_id = 7;
	m.copy_kind = (uint8_t)copy_kind;
	m.src_kind = (uint8_t)src_kind;
	m.dst_kind = (uint8_t)dst_kind;
	m.flags = GT_COPY_ASYNC;
	return gt_writer_add(w, GT_REC_MEMCPY, &m);
}

int synth_memset(struct gt_writer *w, int mem_kind, uint64_t bytes, uint64_t start, uint64_t end)
{
	struct gt_memset m;
	memset(&m, 0, sizeof m);
	m.start = start;
	m.end = end;
	m.bytes = bytes;
	m.context_id = 1;
	m.stream_id = 7;
	m.mem_kind = (uint8_t)mem_kind;
	return gt_writer_add(w, GT_REC_MEMSET, &m);
}

int synth_dropped(struct gt_writer *w, int reason, uint64_t count)
{
	struct gt_dropped d;
	memset(&d, 0, sizeof d);
	d.timestamp = 2000000000ull;
	d.count = count;
	d.reason = (uint32_t)reason;
	return gt_writer_add(w, GT_REC_DROPPED, &d);
}

int synth_close_reproducible(struct gt_writer *w, uint64_t chunks_before_end)
{
	int rc = gt_writer_flush(w);
	if (!rc) {
		struct gt_end e = { gt_writer_records(w), chunks_before_end, 1700000000000000000ull };
		rc = gt_writer_add_var(w, GT_REC_END, &e, sizeof e);
	}
	if (!rc)
		rc = gt_writer_flush(w);
	gt_writer_abandon(w);
	return rc;
}

char *synth_temp_path(const char *tag)
{
	char *path = malloc(strlen(tag) + 32);
	if (!path)
		return NULL;
	sprintf(path, "/tmp/gt_%s_XXXXXX", tag);
	int fd = mkstemp(path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

char *synth_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
		if (k == 0)
			break;
		if (n + 1 == cap) {
			char *p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = p;
			cap *= 2;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

#define T0 1000000000ull /* 1 s on the CUPTI clock */

/* Chunk 1: definitions, composite and reduce. */
static int chunk1(struct gt_writer *w)
{
	int rc = synth_device(w);
	/* composite: launch i starts at T0 + i * 100 us; the first three are the slowest (JIT, cold
	 * caches). Records 0 and 1 are written in swapped order, as CUPTI buffers can deliver them. */
	static const uint64_t comp[] = { 40000, 9000, 6000, 5000, 5100, 4900, 5000, 5200 };
	static const int order[] = { 1, 0, 2, 3, 4, 5, 6, 7 };
	for (int k = 0; !rc && k < 8; k++) {
		uint64_t s = T0 + (uint64_t)order[k] * 100000;
		rc = synth_kernel(w, "_Z9compositePK5SplatPfi", s, s + comp[order[k]], GT_KERNEL_HAS_QUEUED);
	}
	static const uint64_t red[] = { 3000, 2000, 2000, 2100, 1900 };
	for (int i = 0; !rc && i < 5; i++) {
		uint64_t s = T0 + 50000 + (uint64_t)i * 100000;
		rc = synth_kernel(w, "_Z6reducePKfPfi", s, s + red[i], 0);
	}
	return rc ? rc : gt_writer_flush(w);
}

/* Chunk 2: an extern "C" kernel with two bad records, a template kernel, copies and memsets. */
static int chunk2(struct gt_writer *w)
{
	int rc = 0;
	static const uint64_t hist[] = { 1500, 1500, 1600 };
	for (int i = 0; !rc && i < 3; i++) {
		uint64_t s = T0 + 70000 + (uint64_t)i * 100000;
		rc = synth_kernel(w, "histogram_kernel", s, s + hist[i], 0);
	}
	if (!rc)
		rc = synth_kernel(w, "histogram_kernel", 0, 0, GT_KERNEL_BAD_TIMES);
	if (!rc)
		rc = synth_kernel(w, "histogram_kernel", T0 + 400000, T0 + 399000, 0); /* end < start */
	if (!rc)
		rc = synth_kernel(w, "_Z5applyIN6thrust4plusIiEEEvT_", T0 + 90000, T0 + 90800, 0);
	if (!rc)
		rc = synth_kernel(w, "_Z5applyIN6thrust4plusIiEEEvT_", T0 + 190000, T0 + 190900, 0);
	static const uint64_t h2d[] = { 100000, 90000, 95000 };
	for (int i = 0; !rc && i < 3; i++) {
		uint64_t s = T0 - 1000000 + (uint64_t)i * 200000;
		rc = synth_memcpy(w, GT_COPY_HTOD, GT_MEM_PAGEABLE, GT_MEM_DEVICE, 1000000, s, s + h2d[i]);
	}
	static const uint64_t d2h[] = { 160000, 150000 };
	for (int i = 0; !rc && i < 2; i++) {
		uint64_t s = T0 + 1000000 + (uint64_t)i * 200000;
		rc = synth_memcpy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 4000000, s, s + d2h[i]);
	}
	if (!rc)
		rc = synth_memset(w, GT_MEM_DEVICE, 1000000, T0 - 50000, T0 - 45000);
	if (!rc)
		rc = synth_memset(w, GT_MEM_DEVICE, 1000000, T0 - 40000, T0 - 34500);
	return rc ? rc : gt_writer_flush(w);
}

/* Chunk 3: what CUPTI reported lost. */
static int chunk3(struct gt_writer *w)
{
	int rc = synth_dropped(w, GT_DROP_CUPTI, 7);
	return rc ? rc : gt_writer_flush(w);
}

/* Writes the small fixture; bounds[i] = file size after chunk i + 1. */
static int write_small(const char *path, uint64_t bounds[3], int truncate_third)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	if (rc)
		return rc;
	if ((rc = chunk1(w)) == 0) {
		bounds[0] = gt_writer_bytes(w);
		rc = chunk2(w);
	}
	if (!rc) {
		bounds[1] = gt_writer_bytes(w);
		rc = chunk3(w);
	}
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	bounds[2] = gt_writer_bytes(w);
	if (!truncate_third)
		return synth_close_reproducible(w, 3);
	/* A process killed while writing its third chunk: half of it reached the file, no END. */
	gt_writer_abandon(w);
	if (truncate(path, (off_t)(bounds[1] + (bounds[2] - bounds[1]) / 2)) != 0)
		return GT_ERR_IO;
	return 0;
}

int synth_fixture_small(const char *path)
{
	uint64_t b[3];
	return write_small(path, b, 0);
}

int synth_fixture_truncated(const char *path)
{
	uint64_t b[3];
	return write_small(path, b, 1);
}

static int write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return GT_ERR_IO;
	size_t k = fwrite(data, 1, len, f);
	int bad = fclose(f) != 0 || k != len;
	return bad ? GT_ERR_IO : 0;
}

int synth_fixture_all(const char *dir)
{
	char path[4096];
	uint64_t b[3];
	int rc;
	snprintf(path, sizeof path, "%s/small.gtrace", dir);
	if ((rc = write_small(path, b, 0)) != 0)
		return rc;
	/* corrupt: small.gtrace with one byte inside its second chunk's zstd frame flipped. */
	size_t len;
	char *data = synth_read_file(path, &len);
	if (!data)
		return GT_ERR_IO;
	data[b[0] + 40] ^= 0x5a;
	snprintf(path, sizeof path, "%s/corrupt.gtrace", dir);
	rc = write_bytes(path, data, len);
	free(data);
	if (rc)
		return rc;
	snprintf(path, sizeof path, "%s/truncated.gtrace", dir);
	if ((rc = write_small(path, b, 1)) != 0)
		return rc;
	snprintf(path, sizeof path, "%s/cut-header.gtrace", dir);
	if ((rc = write_bytes(path, "GPUTRACE\x01\x00", 10)) != 0)
		return rc;
	static const char text[] = "This is a text file that someone named .gtrace by mistake.\n";
	snprintf(path, sizeof path, "%s/not-a-trace.gtrace", dir);
	return write_bytes(path, text, sizeof text - 1);
}
