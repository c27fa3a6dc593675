/* test_analyze_export.c: `gpuanalyze export` (analyze/export.c, analyze/gzwrite.c) on traces built
 * through the writer API.
 *
 * gzip: CRC-32 check values, a member's header, stored blocks of at most 65535 bytes and its trailer.
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

#include "analyze/commands.h"
#include "analyze/diag.h"
#include "analyze/export.h"
#include "analyze/gzwrite.h"
#include "gputrace.h"
#include "helpers/cmd_test.h"
#include "helpers/synth_trace.h"

#define T0 5000000000ull

/* ---- gzip ----------------------------------------------------------------------------------- */

static void test_crc32(void **state)
{
	(void)state;
	/* The CRC-32 check value (ISO 3309 / ITU-T V.42, as zlib.crc32(b"123456789") = 0xcbf43926). */
	assert_int_equal(gt_crc32(0, "123456789", 9), 0xcbf43926u);
	assert_int_equal(gt_crc32(0, "", 0), 0);
	/* Continuing a CRC equals computing it at once (zlib.crc32(b"The quick brown fox jumps over the
	 * lazy dog") = 0x414fa339). */
	const char *s = "The quick brown fox jumps over the lazy dog";
	assert_int_equal(gt_crc32(gt_crc32(0, s, 10), s + 10, strlen(s) - 10), 0x414fa339u);
	assert_int_equal(gt_crc32(0, s, strlen(s)), 0x414fa339u);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_gzip_stored_blocks(void **state)
{
	(void)state;
	size_t n = 150000; /* three blocks: 65535, 65535, 18930 */
	unsigned char *data = malloc(n);
	assert_non_null(data);
	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)(i * 7 + i / 1000);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct gt_gzw *g = gt_gzw_open(f);
	assert_non_null(g);
	assert_int_equal(gt_gzw_write(g, data, 1000), 0);
	assert_int_equal(gt_gzw_write(g, data + 1000, n - 1000), 0);
	assert_int_equal(gt_gzw_close(g), 0);
	fclose(f);
	const unsigned char *b = (const unsigned char *)buf;
	assert_int_equal(len, 10 + 3 * 5 + n + 8);
	assert_int_equal(b[0], 0x1f);
	assert_int_equal(b[1], 0x8b);
	assert_int_equal(b[2], 8);
	/* Walk the blocks: BFINAL only on the last, LEN and NLEN complementary, the bytes as they were. */
	size_t pos = 10, got = 0;
	int last = 0;
	while (!last) {
		last = b[pos] & 1;
		assert_int_equal(b[pos] >> 1, 0); /* BTYPE 00: stored */
		unsigned bl = b[pos + 1] | (unsigned)b[pos + 2] << 8, nl = b[pos + 3] | (unsigned)b[pos + 4] << 8;
		assert_int_equal(bl ^ nl, 0xffff);
		assert_true(bl <= 65535);
		assert_memory_equal(b + pos + 5, data + got, bl);
		got += bl;
		pos += 5 + bl;
	}
	assert_int_equal(got, n);
	assert_int_equal(le32(b + pos), gt_crc32(0, data, n));
	assert_int_equal(le32(b + pos + 4), (uint32_t)n);
	free(buf);
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
	struct gt_export_options o = { format, gz };
	assert_int_equal(gt_export_run(trace, f, &o, res), 0);
	assert_int_equal(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
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
	assert_true(strncmp(s, "{\"traceEvents\":[\n{\"ph\":\"M\"", 26) == 0);
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
	/* One block: header, 5-byte block header, the JSON itself, trailer. */
	assert_true(n1 < 65535);
	assert_int_equal(n2, 10 + 5 + n1 + 8);
	assert_memory_equal(gz + 15, plain, n1);
	assert_int_equal(le32((const unsigned char *)gz + 15 + n1), gt_crc32(0, plain, n1));
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
	assert_true(strncmp(s, "{\"traceEvents\":[", 16) == 0);
	free(s);
	free(run_capture(cmd_export, 0, (char *[]){ "export", "-z", "--format", "csv", "-o", out, p, NULL }));
	size_t n;
	s = synth_read_file(out, &n);
	assert_true(n > 18 && (unsigned char)s[0] == 0x1f && (unsigned char)s[1] == 0x8b);
	assert_true(strncmp(s + 15, "type,start_ns,", 14) == 0);
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
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_gzip_stored_blocks),
		cmocka_unit_test_teardown(test_chrome, temp_teardown),
		cmocka_unit_test_teardown(test_gzip_and_csv, temp_teardown),
		cmocka_unit_test_teardown(test_scattered_correlation_ids, temp_teardown),
		cmocka_unit_test_teardown(test_command, temp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
