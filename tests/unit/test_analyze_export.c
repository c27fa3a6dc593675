/* test_analyze_export.c: `gpuanalyze export` (analyze/export/export.c, analyze/support/gzwrite.c) on traces built
 * through the writer API.
 *
 * gzip: writes of any size inflate (zlib) back to the same bytes, compressed, with gzip's header and
 * trailer; an empty member; write errors.
 * Chrome JSON: timestamps in microseconds from the trace's first event with exact nanoseconds;
 * kernels that overlap on one stream go to an overlap track and the rest stay; an API call that
 * starts with its enclosing NVTX range goes to an overlap track, one strictly inside stays; flows pair
 * a launch with its kernel; bad timestamps and unclosed ranges are left out and counted; memory
 * counters are summed in time order and never go below 0. CSV: one row per event with its track.
 * The command: formats, -z, errors. (tests/cli/test_gpuanalyze_export.sh checks the whole output
 * against the format's rules with Python.)
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

#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/export/export.h"
#include "analyze/support/gzwrite.h"
#include "traces/gputrace.h"
#include "helpers/cmd_test.h"
#include "helpers/synth_trace.h"

#include <zlib.h>

#define T0 5000000000ull

/* ---- gzip ----------------------------------------------------------------------------------- */

/* The whole of a gzip stream, inflated by zlib (windowBits 15 + 16: gzip only, so a zlib or raw
 * stream fails), into a malloc'd buffer; its length in *out_len. Fails the test when the stream is
 * not one complete gzip member: a bad CRC or length in the trailer is Z_DATA_ERROR. */
static unsigned char *gunzip(const unsigned char *gz, size_t n, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	size_t cap = 1 << 16, len = 0;
	unsigned char *out = malloc(cap);
	assert_non_null(out);
	z.next_in = (unsigned char *)(uintptr_t)gz;
	z.avail_in = (uInt)n;
	int zr;
	do {
		if (len == cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		z.next_out = out + len;
		z.avail_out = (uInt)(cap - len);
		zr = inflate(&z, Z_NO_FLUSH);
		assert_true(zr == Z_OK || zr == Z_STREAM_END);
		len = cap - z.avail_out;
	} while (zr != Z_STREAM_END);
	assert_int_equal(z.avail_in, 0); /* nothing after the member */
	assert_int_equal(inflateEnd(&z), Z_OK);
	*out_len = len;
	return out;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* n bytes gzip'd through gt_gzw into memory, in writes of every size (1 byte, a few, more than the
 * 64 KiB output buffer, one larger than all the rest): a malloc'd buffer, its length in *len. */
static unsigned char *gzip_in_memory(const unsigned char *data, size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	struct gt_gzw *g = gt_gzw_open(f);
	assert_non_null(g);
	size_t pos = 0, steps[] = { 1, 3, 70000, 100, 2u << 20 };
	for (size_t i = 0; pos < n; i++) {
		size_t k = steps[i % 5] < n - pos ? steps[i % 5] : n - pos;
		assert_int_equal(gt_gzw_write(g, data + pos, k), 0);
		pos += k;
	}
	assert_int_equal(gt_gzw_close(g), 0);
	assert_int_equal(fclose(f), 0);
	return (unsigned char *)buf;
}

/* Any writes give one gzip member holding exactly those bytes, compressed (JSON-like text shrinks
 * several times), with the CRC-32 and length gzip's trailer requires. */
static void test_gzip_round_trip(void **state)
{
	(void)state;
	size_t n = 3u << 20;
	unsigned char *data = malloc(n);
	assert_non_null(data);
	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)"{\"ph\":\"X\",\"ts\":0123456789}\n"[(i * 7 + i / 4096) % 27];
	size_t len;
	unsigned char *b = gzip_in_memory(data, n, &len);
	assert_true(len > 18);
	assert_int_equal(b[0], 0x1f);
	assert_int_equal(b[1], 0x8b);
	assert_int_equal(b[2], 8); /* deflate */
	assert_true(len < n / 4);
	assert_int_equal(le32(b + len - 8), (uint32_t)crc32(0, data, (uInt)n));
	assert_int_equal(le32(b + len - 4), (uint32_t)n);
	size_t m;
	unsigned char *back = gunzip(b, len, &m);
	assert_int_equal(m, n);
	assert_memory_equal(back, data, n);
	free(back);
	free(b);
	free(data);
}

/* Nothing written: still a valid, empty member. */
static void test_gzip_empty(void **state)
{
	(void)state;
	size_t len, m;
	unsigned char *b = gzip_in_memory(NULL, 0, &len);
	unsigned char *back = gunzip(b, len, &m);
	assert_int_equal(m, 0);
	free(back);
	free(b);
	assert_int_equal(gt_gzw_close(NULL), 0);
}

/* A file that refuses the bytes (/dev/full, unbuffered): GT_ERR_IO from the write that fills the
 * output buffer or from close, and again from every later call. */
static void test_gzip_write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	assert_int_equal(setvbuf(f, NULL, _IONBF, 0), 0);
	struct gt_gzw *g = gt_gzw_open(f);
	assert_non_null(g);
	/* Bytes that do not compress: the 64 KiB output buffer fills within a few hundred KiB. */
	size_t n = 1u << 20;
	unsigned char *data = malloc(n);
	assert_non_null(data);
	uint32_t v = 12345;
	for (size_t i = 0; i < n; i++) {
		v = v * 1103515245u + 12345u;
		data[i] = (unsigned char)(v >> 24);
	}
	assert_int_equal(gt_gzw_write(g, data, n), GT_ERR_IO);
	assert_int_equal(gt_gzw_write(g, data, 10), GT_ERR_IO);
	assert_int_equal(gt_gzw_close(g), GT_ERR_IO);
	fclose(f);
	free(data);
}

/* ---- the export ------------------------------------------------------------------------------ */

static void kernel(struct gt_writer *w, const char *name, uint32_t stream, uint32_t corr, uint64_t s, uint64_t e,
                   uint16_t flags)
{
	struct gt_kernel k;
	memset(&k, 0, sizeof k);
	k.start = s;
	k.end = e;
	k.name_id = gt_writer_intern(w, name);
	k.correlation_id = corr;
	k.stream_id = stream;
	k.grid_x = 80, k.grid_y = 45, k.grid_z = 1;
	k.block_x = 16, k.block_y = 16, k.block_z = 1;
	k.registers = 46;
	k.flags = flags;
	assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &k), 0);
}

static void api(struct gt_writer *w, const char *name, uint32_t corr, uint64_t s, uint64_t e)
{
	struct gt_api a;
	memset(&a, 0, sizeof a);
	a.start = s;
	a.end = e;
	a.thread_id = 77;
	a.name_id = gt_writer_intern(w, name);
	a.correlation_id = corr;
	a.process_id = 4242;
	a.domain = GT_API_RUNTIME;
	assert_int_equal(gt_writer_add(w, GT_REC_API, &a), 0);
}

static void nvtx(struct gt_writer *w, const char *name, uint64_t s, uint64_t e, int kind)
{
	struct gt_nvtx n;
	memset(&n, 0, sizeof n);
	n.start = s;
	n.end = e;
	n.name_id = gt_writer_intern(w, name);
	n.thread_id = 77;
	n.kind = (uint8_t)kind;
	assert_int_equal(gt_writer_add(w, GT_REC_NVTX, &n), 0);
}

static void memory(struct gt_writer *w, int op, uint64_t bytes, uint64_t ts)
{
	struct gt_memory m;
	memset(&m, 0, sizeof m);
	m.timestamp = ts;
	m.bytes = bytes;
	m.op = (uint8_t)op;
	m.mem_kind = GT_MEM_DEVICE;
	assert_int_equal(gt_writer_add(w, GT_REC_MEMORY, &m), 0);
}

/* The trace every export test reads:
 *   stream 7: k1 [T0+1000, T0+5000], k2 [T0+4000, T0+9000] (overlaps k1: an overlap track),
 *             k3 [T0+9000, T0+9500] (touches k2's end: stays), kbad (bad times: left out);
 *   thread 77: NVTX "frame" [T0, T0+20000]; cudaLaunchKernel x3 strictly inside it, one of them
 *             (corr 3) starting exactly with the range (T0): an overlap track;
 *             an NVTX range never closed (left out), a mark;
 *   memory: a free before any alloc (stays 0), alloc 100, alloc 50, free 100, written out of order. */
static char *fixture(void)
{
	char *p = temp("ex");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	api(w, "cudaLaunchKernel", 1, T0 + 200, T0 + 900);
	api(w, "cudaLaunchKernel", 2, T0 + 1000, T0 + 1900);
	api(w, "cudaLaunchKernel", 3, T0, T0 + 150);
	kernel(w, "_Z2k1v", 7, 1, T0 + 1000, T0 + 5000, 0);
	kernel(w, "_Z2k2v", 7, 2, T0 + 4000, T0 + 9000, 0);
	kernel(w, "_Z2k3v", 7, 3, T0 + 9000, T0 + 9500, 0);
	kernel(w, "_Z4kbadv", 7, 9, T0 + 9600, T0 + 9500, GT_KERNEL_BAD_TIMES);
	nvtx(w, "frame", T0, T0 + 20000, GT_NVTX_PUSH_POP);
	nvtx(w, "open", T0 + 100, 0, GT_NVTX_PUSH_POP);
	nvtx(w, "here", T0 + 300, T0 + 300, GT_NVTX_MARK);
	memory(w, GT_MEMORY_ALLOC, 50, T0 + 3000);
	memory(w, GT_MEMORY_FREE, 30, T0 + 500);
	memory(w, GT_MEMORY_ALLOC, 100, T0 + 2000);
	memory(w, GT_MEMORY_FREE, 100, T0 + 4000);
	assert_int_equal(gt_writer_close(w), 0);
	return p;
}

static char *export_to_string(const char *trace, int format, int gz, struct gt_export_result *res, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	struct gt_export_options o = { .format = format, .gzip = gz };
	assert_int_equal(gt_export_run(trace, f, &o, res), 0);
	assert_int_equal(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
}

/* A window keeps what overlaps it and the memory in use as it stood at its start; --kernel keeps
 * only the kernels it names, and their launches' arrows, no other. */
static void test_window_and_kernel(void **state)
{
	(void)state;
	char *p = fixture();
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	/* [2.5 us, 3.5 us]: k1 (1-5 us) overlaps, k2 (4-9 us) and k3 do not; the call at 1.0-1.9 us neither. */
	struct gt_export_options o = { .format = GT_EXPORT_CHROME, .has_start = 1, .start_ns = 2500,
		                       .has_end = 1, .end_ns = 3500 };
	struct gt_export_result res;
	assert_int_equal(gt_export_run(p, f, &o, &res), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\"name\":\"k1()\""));
	assert_null(strstr(buf, "\"name\":\"k2()\""));
	assert_null(strstr(buf, "\"name\":\"k3()\""));
	assert_non_null(strstr(buf, "\"dur\":20.000,\"name\":\"frame\"")); /* encloses the window */
	/* k1's call lies before the window: no arrow with one end (the checker would catch it too). */
	assert_int_equal(res.flows, 0);
	assert_null(strstr(buf, "\"ph\":\"s\""));
	assert_null(strstr(buf, "\"ph\":\"f\""));
	/* Memory: 100 in use at the window's start (free 30 from 0, alloc 100 at 2 us), 150 at 3 us; the
	 * free at 4 us is after it. */
	const char *m0 = strstr(buf, "\"ts\":2.500,\"name\":\"device memory in use (bytes)\",\"args\":{\"bytes\":100}");
	const char *m1 = strstr(buf, "\"ts\":3.000,\"name\":\"device memory in use (bytes)\",\"args\":{\"bytes\":150}");
	assert_true(m0 && m1 && m0 < m1);
	assert_null(strstr(buf, "\"ts\":4.000,\"name\":\"device memory"));
	assert_null(strstr(buf, "\"ts\":0.500,\"name\":\"device memory"));
	assert_non_null(strstr(buf, "\"window\":{\"start_us\":2.500,\"end_us\":3.500,\"range\":null}"));
	free(buf);
	/* --kernel k[13]: k1 and k3 and their arrows; k2 and its launch's arrow gone, the launch stays. */
	struct gt_name_filter kf = { 0 };
	assert_int_equal(gt_name_filter_set(&kf, "k[13]", NULL, 0), 0);
	struct gt_export_options ko = { .format = GT_EXPORT_CHROME, .kernels = &kf };
	f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(gt_export_run(p, f, &ko, &res), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\"name\":\"k1()\""));
	assert_non_null(strstr(buf, "\"name\":\"k3()\""));
	assert_null(strstr(buf, "\"name\":\"k2()\""));
	assert_int_equal(res.flows, 2);
	assert_int_equal(res.slices, 6); /* 3 calls, frame, k1, k3 */
	assert_non_null(strstr(buf, "\"kernel_filter\":\"k[13]\""));
	free(buf);
	gt_name_filter_release(&kf);
}

static void test_chrome(void **state)
{
	(void)state;
	char *p = fixture();
	struct gt_export_result res;
	char *s = export_to_string(p, GT_EXPORT_CHROME, 0, &res, NULL);
	/* The origin is the earliest timestamp: T0 (the NVTX range and the third call). */
	assert_int_equal(res.origin, T0);
	/* Times in microseconds from it, exact: k1 starts at 1.000 us and lasts 4.000 us. */
	assert_non_null(strstr(s, "\"ts\":1.000,\"dur\":4.000,\"name\":\"k1()\",\"cat\":\"kernel\""));
	assert_non_null(strstr(s, "\"grid\":\"80x45x1\",\"block\":\"16x16x1\",\"registers\":46"));
	/* k2 overlaps k1: the stream has an overlap track, and k2 is the one slice on it. */
	assert_int_equal(res.subtracks, 2); /* stream 7 and thread 77 have one each */
	assert_int_equal(res.overlapped, 2);
	assert_non_null(strstr(s, "\"name\":\"thread_name\",\"args\":{\"name\":\"stream 7 (overlap 1)\"}"));
	assert_non_null(strstr(s, "\"name\":\"thread_name\",\"args\":{\"name\":\"thread 77 (overlap 1)\"}"));
	/* stream 7 is tid 1 and its overlap track tid 2 on GPU 0's process. */
	assert_non_null(strstr(s, "{\"ph\":\"X\",\"pid\":1000000,\"tid\":2,\"ts\":4.000,\"dur\":5.000,\"name\":\"k2()\""));
	assert_non_null(strstr(s, "{\"ph\":\"X\",\"pid\":1000000,\"tid\":1,\"ts\":9.000,\"dur\":0.500,\"name\":\"k3()\""));
	/* The host process has the API records' pid; the call starting with "frame" is on tid 2. */
	assert_non_null(strstr(s, "{\"ph\":\"X\",\"pid\":4242,\"tid\":2,\"ts\":0.000,\"dur\":0.150,\"name\":\"cudaLaunchKernel\""));
	assert_non_null(strstr(s, "{\"ph\":\"X\",\"pid\":4242,\"tid\":1,\"ts\":0.200,\"dur\":0.700,\"name\":\"cudaLaunchKernel\""));
	assert_non_null(strstr(s, "{\"ph\":\"X\",\"pid\":4242,\"tid\":1,\"ts\":0.000,\"dur\":20.000,\"name\":\"frame\""));
	/* Flows: three launches, three arrows, each end at its slice's midpoint. */
	assert_int_equal(res.flows, 3);
	assert_non_null(strstr(s, "{\"ph\":\"s\",\"id\":128,\"pid\":4242,\"tid\":1,\"ts\":0.550,"));
	assert_non_null(strstr(s, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":128,\"pid\":1000000,\"tid\":1,\"ts\":3.000,"));
	/* Left out and counted. */
	assert_int_equal(res.bad_times, 1);
	assert_int_equal(res.unclosed, 1);
	assert_null(strstr(s, "kbad"));
	assert_null(strstr(s, "\"open\""));
	assert_non_null(strstr(s, "\"bad_times_left_out\":1,\"nvtx_unclosed_left_out\":1"));
	/* The mark, on its thread. */
	assert_non_null(strstr(s, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":4242,\"tid\":1,\"ts\":0.300,\"name\":\"here\""));
	/* Memory in time order: free 30 first (stays 0), 100, 150, 50. */
	const char *m0 = strstr(s, "\"ts\":0.500,\"name\":\"device memory in use (bytes)\",\"args\":{\"bytes\":0}");
	const char *m1 = strstr(s, "\"ts\":2.000,\"name\":\"device memory in use (bytes)\",\"args\":{\"bytes\":100}");
	const char *m2 = strstr(s, "\"ts\":3.000,\"name\":\"device memory in use (bytes)\",\"args\":{\"bytes\":150}");
	const char *m3 = strstr(s, "\"ts\":4.000,\"name\":\"device memory in use (bytes)\",\"args\":{\"bytes\":50}");
	assert_true(m0 && m1 && m2 && m3);
	assert_true(m0 < m1 && m1 < m2 && m2 < m3);
	/* The document's frame. */
	/* One trace: Kineto's header keys first, then the events. */
	assert_true(strncmp(s, "{\"schemaVersion\":1,\n\"deviceProperties\":[", 40) == 0);
	assert_non_null(strstr(s, "],\n\"traceEvents\":[\n{\"ph\":\"M\""));
	assert_non_null(strstr(s, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"gpuanalyze export "));
	assert_non_null(strstr(s, "\"synthetic\":\"1\""));
	size_t n = strlen(s);
	assert_true(n > 3 && strcmp(s + n - 3, "}}\n") == 0);
	free(s);
}

/* Correlation ids scattered over the 32-bit range (a damaged or hostile trace: CUPTI hands them out
 * in order) must not take a 64 KiB page each without bound: 400 launch/kernel pairs, each id on its
 * own page, get at most 64 + 800 / 256 pages; the pairs beyond get no arrow and are counted, the
 * slices themselves all stay. The same pairs with ids in order all get their arrow. */
static void scattered_ids_case(int scatter, uint64_t *flows, uint64_t *unmapped, uint64_t *slices)
{
	char *p = temp(scatter ? "scatter" : "dense");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	for (uint32_t i = 0; i < 400; i++) {
		uint32_t corr = scatter ? (i * 163u + 1u) << 16 | 5u : i + 1;
		api(w, "cudaLaunchKernel", corr, T0 + i * 1000, T0 + i * 1000 + 100);
		kernel(w, "_Z2k1v", 7, corr, T0 + i * 1000 + 200, T0 + i * 1000 + 700, 0);
	}
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_export_result res;
	char *s = export_to_string(p, GT_EXPORT_CHROME, 0, &res, NULL);
	*flows = res.flows;
	*unmapped = res.flows_unmapped;
	*slices = res.slices;
	assert_non_null(strstr(s, "\"flows_unmapped\":"));
	free(s);
}

static void test_scattered_correlation_ids(void **state)
{
	(void)state;
	uint64_t flows, unmapped, slices;
	scattered_ids_case(0, &flows, &unmapped, &slices);
	assert_int_equal(flows, 400); /* one arrow per pair */
	assert_int_equal(unmapped, 0);
	assert_int_equal(slices, 800);
	scattered_ids_case(1, &flows, &unmapped, &slices);
	assert_int_equal(slices, 800);
	assert_true(flows > 0 && flows <= 64 + 800 / 256);
	assert_true(unmapped >= 400 - flows && flows + unmapped <= 400);
}

static void test_gzip_and_csv(void **state)
{
	(void)state;
	char *p = fixture();
	struct gt_export_result r1, r2;
	size_t n1, n2;
	char *plain = export_to_string(p, GT_EXPORT_CHROME, 0, &r1, &n1);
	char *gz = export_to_string(p, GT_EXPORT_CHROME, 1, &r2, &n2);
	/* The gzip member holds the plain export, compressed. */
	size_t nb;
	unsigned char *back = gunzip((const unsigned char *)gz, n2, &nb);
	assert_int_equal(nb, n1);
	assert_memory_equal(back, plain, n1);
	assert_true(n2 < n1);
	free(back);
	free(plain);
	free(gz);

	struct gt_export_result rc;
	char *csv = export_to_string(p, GT_EXPORT_CSV, 0, &rc, NULL);
	assert_true(strncmp(csv, "type,start_ns,end_ns,duration_ns,ts_us,process,track,lane,name,correlation_id,bytes,detail\n",
	                    89) == 0);
	/* Every event is a row, the left-out ones too, saying why. */
	assert_int_equal(rc.written, 14); /* 3 API calls, 4 kernels, 3 NVTX records, 4 memory records */
	assert_non_null(strstr(csv, "\nkernel,5000004000,5000009000,5000,4.000,GPU 0,stream 7,1,k2(),2,,grid 80x45x1"));
	assert_non_null(strstr(csv, "\nkernel,5000009600,5000009500,,9.600,GPU 0,,,kbad(),9,,grid 80x45x1 block 16x16x1 "
	                            "registers 46 smem 0+0; bad timestamps: not on the timeline\n"));
	assert_non_null(strstr(csv, "\nnvtx,5000000100,,,0.100,host,,,open,,,push-pop depth 0 thread 77; never closed: "
	                            "not on the timeline\n"));
	assert_non_null(strstr(csv, "\nmemory,5000000500,,,0.500,GPU 0,,,free device,0,30,address 0x0\n"));
	free(csv);
}

static void test_command(void **state)
{
	(void)state;
	char *p = fixture(), *out = temp("out");
	free(run_capture(cmd_export, 0, (char *[]){ "export", "-o", out, p, NULL }));
	char *s = synth_read_file(out, NULL);
	assert_non_null(s);
	assert_true(strncmp(s, "{\"schemaVersion\":1,", 19) == 0);
	assert_non_null(strstr(s, "\"traceEvents\":["));
	free(s);
	free(run_capture(cmd_export, 0, (char *[]){ "export", "-z", "--format", "csv", "-o", out, p, NULL }));
	size_t n;
	s = synth_read_file(out, &n);
	assert_true(n > 18 && (unsigned char)s[0] == 0x1f && (unsigned char)s[1] == 0x8b);
	size_t m;
	unsigned char *csv = gunzip((unsigned char *)s, n, &m);
	assert_true(m > 14 && memcmp(csv, "type,start_ns,", 14) == 0);
	free(csv);
	free(s);
	/* --gzip is -z. */
	free(run_capture(cmd_export, 0, (char *[]){ "export", "--gzip", "-o", out, p, NULL }));
	s = synth_read_file(out, &n);
	assert_true(n > 18 && (unsigned char)s[0] == 0x1f && (unsigned char)s[1] == 0x8b);
	free(s);
	char *err = run_capture(cmd_export, GT_EXIT_USAGE, (char *[]){ "export", "--format", "perfetto", p, NULL });
	assert_string_equal(err, "gpuanalyze: export: option '--format' wants one of chrome|csv|sqlite, not 'perfetto' (see "
	                         "'gpuanalyze export --help')\n");
	free(err);
	err = run_capture(cmd_export, GT_EXIT_USAGE, (char *[]){ "export", "/nonexistent.gtrace", NULL });
	assert_non_null(strstr(err, "gpuanalyze: cannot open trace '/nonexistent.gtrace'"));
	free(err);
	err = run_capture(cmd_export, GT_EXIT_USAGE, (char *[]){ "export", "-o", "/nonexistent/dir/x.json", p, NULL });
	assert_non_null(strstr(err, "gpuanalyze: cannot write '/nonexistent/dir/x.json'"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gzip_round_trip),
		cmocka_unit_test(test_gzip_empty),
		cmocka_unit_test(test_gzip_write_error),
		cmocka_unit_test_teardown(test_chrome, temp_teardown),
		cmocka_unit_test_teardown(test_gzip_and_csv, temp_teardown),
		cmocka_unit_test_teardown(test_window_and_kernel, temp_teardown),
		cmocka_unit_test_teardown(test_scattered_correlation_ids, temp_teardown),
		cmocka_unit_test_teardown(test_command, temp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
