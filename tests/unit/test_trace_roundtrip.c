/* test_trace_roundtrip.c: every record type written through the writer comes back unchanged.
 *
 * Records are filled with values that exercise the codec's edges: timestamps that go backwards
 * (CUPTI buffers are not sorted), zero "not measured" timestamps, 64-bit extremes, correlation ids
 * that wrap. Strings are interned once; metadata and devices are kept by the reader; blobs larger
 * than a piece come back whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/gputrace.h"
#include "traces/schema.h"

/* A deterministic generator so that failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void fill_random(void *p, size_t n)
{
	uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)rnd();
}

/* The fixed record types: the schema's event kinds (schema.h), in type order; and their sizes. */
static int fixed_types[GT_REC_TYPE_MAX + 1];
static size_t nfixed;

static void fixed_types_init(void)
{
	nfixed = 0;
	for (size_t i = 0; i < gt_schema_count; i++)
		if (gt_schema[i].type >= GT_REC_FIRST_FIXED)
			fixed_types[nfixed++] = gt_schema[i].type;
}

static size_t fixed_size(int type)
{
	const struct gt_record_schema *k = gt_kind(type);
	return k ? k->size : 0;
}

/* Every fixed record type, random bytes (some timestamps zero, some extreme), many per block and
 * across several chunks: read back byte-identical and in order. */
static void test_fixed_records_round_trip(void **state)
{
	(void)state;
	enum { N = 5000 };
	char path[] = "/tmp/gt_rt_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	struct gt_writer *w;
	struct gt_writer_options opt = { .chunk_bytes = 64 << 10 };
	assert_int_equal(gt_writer_open_fd(&w, fd, &opt), 0);
	uint8_t *recs = malloc(N * 128);
	int *types = malloc(N * sizeof *types);
	assert_non_null(recs);
	fixed_types_init();
	assert_true(nfixed >= 13);
	for (int i = 0; i < N; i++) {
		int t = fixed_types[rnd() % nfixed];
		assert_true(fixed_size(t) <= 128);
		types[i] = t;
		uint8_t *r = recs + (size_t)i * 128;
		fill_random(r, fixed_size(t));
		/* Edge values in the timestamp slots: zero, the maximum, small steps. */
		uint64_t v;
		switch (i % 5) {
		case 0: v = 0; memcpy(r + 8, &v, 8); break;
		case 1: v = UINT64_MAX; memcpy(r, &v, 8); break;
		case 2: v = (uint64_t)i * 1000; memcpy(r, &v, 8); break;
		default: break;
		}
		assert_int_equal(gt_writer_add(w, t, r), 0);
	}
	assert_int_equal(gt_writer_close(w), 0);

	struct gt_reader *rd;
	char err[256];
	assert_int_equal(gt_reader_open(&rd, path, err, sizeof err), 0);
	/* The reader returns records block by block, types in ascending order within a chunk, so
	 * compare per type: the order among records of one type is kept. */
	int next_of_type[GT_REC_TYPE_MAX + 1];
	memset(next_of_type, 0, sizeof next_of_type);
	struct gt_event ev;
	int rc, seen = 0;
	while ((rc = gt_reader_next(rd, &ev)) > 0) {
		if (ev.type < GT_REC_FIRST_FIXED)
			continue;
		int j = next_of_type[ev.type];
		while (j < N && types[j] != ev.type)
			j++;
		assert_true(j < N);
		assert_memory_equal(&ev.u, recs + (size_t)j * 128, fixed_size(ev.type));
		next_of_type[ev.type] = j + 1;
		seen++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(seen, N);
	struct gt_tail tail;
	gt_reader_tail(rd, &tail);
	assert_true(tail.complete);
	assert_int_equal(tail.lost_bytes, 0);
	assert_true(tail.chunks > 2);
	gt_reader_close(rd);
	free(recs);
	free(types);
	unlink(path);
}

/* Strings get dense ids, equal strings one id; metadata and devices are kept by the reader. */
static void test_definitions_round_trip(void **state)
{
	(void)state;
	char path[] = "/tmp/gt_rt_XXXXXX";
	int fd = mkstemp(path);
	struct gt_writer *w;
	assert_int_equal(gt_writer_open_fd(&w, fd, NULL), 0);
	uint32_t a = gt_writer_intern(w, "_Z9compositePK5SplatiP6float4ii");
	uint32_t b = gt_writer_intern(w, "saxpy");
	uint32_t a2 = gt_writer_intern(w, "_Z9compositePK5SplatiP6float4ii");
	uint32_t e = gt_writer_intern(w, "");
	assert_int_equal(a, 1);
	assert_int_equal(b, 2);
	assert_int_equal(a2, a);
	assert_int_equal(e, 3);
	assert_int_equal(gt_writer_meta(w, "tool.version", "0.1.0"), 0);
	assert_int_equal(gt_writer_meta(w, "host.name", "h200-box"), 0);
	struct gt_device d = { .device_id = 0, .sm_count = 132, .cc_major = 9, .mem_clock_khz = 2619000,
		.mem_bus_width_bits = 6144, .pcie_gen = 5, .pcie_width = 16 };
	for (int i = 0; i < 16; i++)
		d.uuid[i] = (uint8_t)i;
	assert_int_equal(gt_writer_device(w, &d, "NVIDIA H200"), 0);
	struct gt_kernel k = { .start = 100, .end = 200, .name_id = a };
	assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &k), 0);
	assert_int_equal(gt_writer_close(w), 0);

	struct gt_reader *rd;
	assert_int_equal(gt_reader_open(&rd, path, NULL, 0), 0);
	struct gt_event ev;
	int rc, kernels = 0;
	while ((rc = gt_reader_next(rd, &ev)) > 0) {
		if (ev.type == GT_REC_KERNEL) {
			/* Definitions come before the events that use them. */
			assert_string_equal(gt_reader_string(rd, ev.u.kernel.name_id),
			                    "_Z9compositePK5SplatiP6float4ii");
			kernels++;
		}
	}
	assert_int_equal(rc, 0);
	assert_int_equal(kernels, 1);
	assert_int_equal(gt_reader_string_count(rd), 3);
	assert_string_equal(gt_reader_string(rd, 2), "saxpy");
	assert_string_equal(gt_reader_string(rd, 3), "");
	assert_string_equal(gt_reader_string(rd, 99), "");
	assert_string_equal(gt_reader_meta(rd, "tool.version"), "0.1.0");
	assert_null(gt_reader_meta(rd, "missing"));
	assert_int_equal(gt_reader_device_count(rd), 1);
	const char *name;
	const struct gt_device *dd = gt_reader_device(rd, 0, &name);
	assert_non_null(dd);
	assert_string_equal(name, "NVIDIA H200");
	assert_int_equal(dd->sm_count, 132);
	assert_memory_equal(dd->uuid, d.uuid, 16);

	/* A second pass after a rewind sees the same records and does not duplicate definitions. */
	assert_int_equal(gt_reader_rewind(rd), 0);
	kernels = 0;
	while ((rc = gt_reader_next(rd, &ev)) > 0)
		kernels += ev.type == GT_REC_KERNEL;
	assert_int_equal(kernels, 1);
	assert_int_equal(gt_reader_meta_count(rd), 2);
	assert_int_equal(gt_reader_device_count(rd), 1);
	gt_reader_close(rd);
	unlink(path);
}

/* A blob larger than one piece is written in pieces that reassemble to the original bytes. */
static void test_blob_pieces(void **state)
{
	(void)state;
	char path[] = "/tmp/gt_rt_XXXXXX";
	int fd = mkstemp(path);
	struct gt_writer *w;
	assert_int_equal(gt_writer_open_fd(&w, fd, NULL), 0);
	size_t n = (8u << 20) * 2 + 12345;
	uint8_t *data = malloc(n);
	fill_random(data, n);
	int64_t id = gt_writer_blob(w, GT_BLOB_BUFFER, data, n);
	assert_true(id > 0);
	int64_t id0 = gt_writer_blob(w, GT_BLOB_CUBIN, NULL, 0);
	assert_true(id0 > id);
	assert_int_equal(gt_writer_close(w), 0);

	struct gt_reader *rd;
	assert_int_equal(gt_reader_open(&rd, path, NULL, 0), 0);
	uint8_t *back = calloc(1, n);
	uint64_t got = 0;
	int empties = 0;
	struct gt_event ev;
	while (gt_reader_next(rd, &ev) > 0) {
		if (ev.type != GT_REC_BLOB)
			continue;
		struct gt_blob_piece p;
		const uint8_t *bytes;
		assert_int_equal(gt_parse_blob(&ev, &p, &bytes), 0);
		if (p.blob_id == (uint64_t)id0) {
			assert_int_equal(p.total_bytes, 0);
			empties++;
			continue;
		}
		assert_int_equal(p.total_bytes, n);
		memcpy(back + p.offset, bytes, p.piece_bytes);
		got += p.piece_bytes;
	}
	assert_int_equal(got, n);
	assert_int_equal(empties, 1);
	assert_memory_equal(back, data, n);
	gt_reader_close(rd);
	free(back);
	free(data);
	unlink(path);
}

/* Opening for writing without clobbering refuses an existing file, and never follows a symlink. */
static void test_no_clobber_and_no_symlink(void **state)
{
	(void)state;
	char path[] = "/tmp/gt_rt_XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	struct gt_writer *w = NULL;
	assert_int_equal(gt_writer_open(&w, path, GT_WRITE_NO_CLOBBER, NULL), GT_ERR_EXISTS);
	assert_null(w);
	char link[64];
	snprintf(link, sizeof link, "%s.lnk", path);
	assert_int_equal(symlink(path, link), 0);
	assert_true(gt_writer_open(&w, link, 0, NULL) < 0);
	assert_null(w);
	unlink(link);
	unlink(path);
}

/* The codec's name tables and peak formulas. */
static void test_names_and_peaks(void **state)
{
	(void)state;
	assert_string_equal(gt_rec_type_name(GT_REC_KERNEL), "kernel");
	assert_string_equal(gt_rec_type_name(200), "unknown");
	assert_string_equal(gt_copy_kind_name(GT_COPY_HTOD), "HtoD");
	assert_string_equal(gt_copy_kind_name(-1), "unknown");
	assert_string_equal(gt_mem_kind_name(GT_MEM_PINNED), "pinned");
	assert_string_equal(gt_strerror(GT_ERR_CHECKSUM), "checksum mismatch");
	/* H200: 6144-bit HBM3e; 2 x 2619 MHz x 6144 / 8 = 4.023 TB/s by CUDA's reported clock. */
	struct gt_device d = { .mem_clock_khz = 2619000, .mem_bus_width_bits = 6144, .pcie_gen = 5,
		.pcie_width = 16 };
	assert_true(gt_device_peak_mem_bw(&d) > 4.0227e12 && gt_device_peak_mem_bw(&d) < 4.0229e12);
	/* PCIe 5.0 x16: 32 GT/s x 128/130 / 8 x 16 = 63.015 GB/s per direction. */
	assert_true(gt_device_peak_pcie_bw(&d) > 63.01e9 && gt_device_peak_pcie_bw(&d) < 63.02e9);
	d.pcie_gen = 9;
	assert_true(gt_device_peak_pcie_bw(&d) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_records_round_trip),
		cmocka_unit_test(test_definitions_round_trip),
		cmocka_unit_test(test_blob_pieces),
		cmocka_unit_test(test_no_clobber_and_no_symlink),
		cmocka_unit_test(test_names_and_peaks),
	};
	return cmocka_run_group_tests_name("trace round trip", tests, NULL, NULL);
}
