/* test_analyze_peaks.c: the measured-peaks file's ceiling lines (analyze/blocks/peaks.c) and their
 * place in `gpuanalyze info`.
 *
 * A file of the old form (copy kinds only) reads as before and has no ceilings; a file of the new
 * form gives each ceiling with its value, theoretical figure ("unknown" kept as unknown), amount,
 * reps, clocks and method, the last line of a kind winning; malformed ceiling lines (no value, the
 * wrong value key, a bad theory, clocks, reps or amount) are counted and ignored, one by one; other
 * UUIDs and unknown kinds of a later probe are skipped. `info` shows the ceilings of the trace's
 * device (text and JSON), says nothing of a device without them, and fails on an unreadable
 * --peaks. The theoretical ceilings come from the device record: SMs x per-SM rate x clock for the
 * architectures whose rates are published, nothing for the others or for L2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/commands/commands.h"
#include "analyze/blocks/peaks.h"
#include "traces/gputrace.h"
#include "helpers/cmd_test.h"
#include "helpers/synth_trace.h"

#define UUID "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f" /* synth_device's bytes 0x10.. */
#define DEV "name=\"NVIDIA H200\" uuid=" UUID " cc=9.0 sms=132 clock_khz=1980000 mem_clock_khz=2619000 "

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int teardown(void **state) { return temp_teardown(state); }

/* The file as bwprobe wrote it before the ceilings: copies only, read as before. */
static void test_old_file_has_no_ceilings(void **state)
{
	(void)state;
	const char *f = temp("pk");
	write_text(f, DEV "kind=htod_pinned gbps=55.41 bytes=268435456 reps=7\n"
	              DEV "kind=dtod gbps=2040.00 bytes=268435456 reps=7\n");
	struct gt_peaks pk;
	char err[128];
	assert_int_equal(gt_peaks_load(&pk, f, UUID, err, sizeof err), 0);
	assert_int_equal(pk.lines, 2);
	assert_int_equal(pk.malformed, 0);
	assert_true(pk.have[GT_PEAK_HTOD_PINNED] && pk.have[GT_PEAK_DTOD]);
	assert_true(pk.p[GT_PEAK_DTOD].gbps == 2040.0);
	for (int k = 0; k < GT_CEIL_NKINDS; k++)
		assert_false(pk.have_ceiling[k]);
	gt_peaks_release(&pk);
}

static const char new_file[] =
	DEV "kind=htod_pinned gbps=55.41 bytes=268435456 reps=7\n"
	DEV "kind=dram_read gbps=4000.00 theory_gbps=4800.00 bytes=1073741824 reps=7 sm_mhz=1980 mem_mhz=2619 "
	"clocks=nvml method=\"kernel XOR-reduces one array\"\n"
	DEV "kind=dram_read gbps=4403.10 theory_gbps=4800.00 bytes=1073741824 reps=7 sm_mhz=1980 mem_mhz=2619 "
	"clocks=nvml method=\"kernel XOR-reduces one array; again\"\n"
	DEV "kind=l2_read gbps=9800.50 theory_gbps=unknown bytes=8589934592 reps=7 sm_mhz=1980 mem_mhz=2619 "
	"clocks=nvml method=\"a quarter of L2\"\n"
	DEV "kind=fp32_fma gflops=60123.40 theory_gflops=66908.16 flops=142807662592 reps=9 sm_mhz=1755 "
	"mem_mhz=2619 clocks=attribute method=\"fmaf chains\"\n"
	DEV "kind=bf16_mma gflops=650000.00 theory_gflops=1070530.56 flops=2267742732288 reps=7\n"
	"name=\"NVIDIA H200\" uuid=GPU-00000000-0000-0000-0000-000000000001 kind=fp64_fma gflops=30000 "
	"theory_gflops=unknown\n"
	DEV "kind=fp8_mma gflops=1900000 theory_gflops=unknown\n";

/* Each ceiling with its fields; the last dram_read wins; unknown stays unknown; missing fields are 0. */
static void test_new_file_ceilings(void **state)
{
	(void)state;
	const char *f = temp("pk");
	write_text(f, new_file);
	struct gt_peaks pk;
	char err[128];
	assert_int_equal(gt_peaks_load(&pk, f, UUID, err, sizeof err), 0);
	assert_int_equal(pk.lines, 8);
	assert_int_equal(pk.malformed, 0);
	assert_int_equal(pk.other_devices, 1);
	assert_true(pk.have[GT_PEAK_HTOD_PINNED]);
	assert_true(pk.p[GT_PEAK_HTOD_PINNED].gbps == 55.41);

	assert_true(pk.have_ceiling[GT_CEIL_DRAM_READ]);
	const struct gt_ceiling *c = &pk.c[GT_CEIL_DRAM_READ];
	assert_true(c->value == 4403.10);
	assert_true(c->theory == 4800.0);
	assert_true(c->amount == 1073741824.0);
	assert_int_equal(c->reps, 7);
	assert_int_equal(c->sm_mhz, 1980);
	assert_int_equal(c->mem_mhz, 2619);
	assert_string_equal(c->clocks, "nvml");
	assert_string_equal(c->method, "kernel XOR-reduces one array; again");
	assert_int_equal(c->line, 3);

	c = &pk.c[GT_CEIL_L2_READ];
	assert_true(pk.have_ceiling[GT_CEIL_L2_READ]);
	assert_true(c->theory == 0); /* "unknown" */
	assert_true(c->value == 9800.50);

	c = &pk.c[GT_CEIL_FP32_FMA];
	assert_true(pk.have_ceiling[GT_CEIL_FP32_FMA]);
	assert_true(c->value == 60123.40);
	assert_true(c->theory == 66908.16);
	assert_true(c->amount == 142807662592.0);
	assert_int_equal(c->reps, 9);
	assert_int_equal(c->sm_mhz, 1755);
	assert_string_equal(c->clocks, "attribute");

	c = &pk.c[GT_CEIL_BF16_MMA];
	assert_true(pk.have_ceiling[GT_CEIL_BF16_MMA]);
	assert_int_equal(c->sm_mhz, 0);
	assert_string_equal(c->clocks, "");
	assert_string_equal(c->method, "");

	/* Another device's fp64 line, a kind of a later probe: neither is this device's ceiling. */
	assert_false(pk.have_ceiling[GT_CEIL_FP64_FMA]);
	assert_false(pk.have_ceiling[GT_CEIL_DRAM_COPY]);
	assert_false(pk.have_ceiling[GT_CEIL_FP16_MMA]);
	gt_peaks_release(&pk);

	assert_string_equal(gt_ceiling_kind_name(GT_CEIL_L2_READ), "l2_read");
	assert_string_equal(gt_ceiling_kind_name(GT_CEIL_NKINDS), "?");
	assert_false(gt_ceiling_is_flops(GT_CEIL_DRAM_TRIAD));
	assert_true(gt_ceiling_is_flops(GT_CEIL_FP16_MMA));
}

/* Every malformed line on its own: counted, and the well-formed ceiling after it still read. */
static void test_malformed_ceiling_lines(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"kind=dram_copy theory_gbps=4800\n",                       /* no value */
		"kind=dram_copy gbps=0 theory_gbps=4800\n",                /* not positive */
		"kind=fp32_fma gbps=60000 theory_gflops=66908\n",          /* the wrong value key */
		"kind=dram_copy gflops=4000\n",                            /* the wrong value key */
		"kind=dram_copy gbps=4000 theory_gbps=fast\n",             /* theory neither number nor unknown */
		"kind=dram_copy gbps=4000 theory_gbps=-1\n",
		"kind=fp64_fma gflops=30000 theory_gflops=\n",
		"kind=dram_copy gbps=4000 sm_mhz=high\n",
		"kind=dram_copy gbps=4000 mem_mhz=-5\n",
		"kind=dram_copy gbps=4000 reps=7x\n",
		"kind=dram_copy gbps=4000 bytes=0\n",
		"kind=fp16_mma gflops=9e5 flops=many\n",
		"kind=dram_copy gbps=4000 clocks=guessed\n",
		"kind=dram_copy gbps=4000 sm_mhz=99999999999\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *f = temp("pk");
		char text[1024];
		snprintf(text, sizeof text, "%s%s%s", DEV, bad[i],
		         DEV "kind=dram_triad gbps=4300 theory_gbps=4800 bytes=3221225472 reps=7\n");
		write_text(f, text);
		struct gt_peaks pk;
		char err[128];
		assert_int_equal(gt_peaks_load(&pk, f, UUID, err, sizeof err), 0);
		if (pk.malformed != 1)
			fail_msg("line %zu (%s) not counted as malformed", i, bad[i]);
		for (int k = 0; k < GT_CEIL_NKINDS; k++)
			assert_int_equal(pk.have_ceiling[k], k == GT_CEIL_DRAM_TRIAD);
		assert_true(pk.c[GT_CEIL_DRAM_TRIAD].value == 4300);
		gt_peaks_release(&pk);
	}
}

/* A trace of the synthetic device (UUID above) and a peaks file. */
static const char *trace_file(void)
{
	const char *p = temp("tr");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(synth_kernel(w, "k", 1000, 2000, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	return p;
}

static char *run_info(int expect, const char *peaks, const char *trace, const char *fmt)
{
	char *out = temp("out");
	char *argv[12];
	int argc = 0;
	argv[argc++] = "info";
	if (peaks) {
		argv[argc++] = "--peaks";
		argv[argc++] = (char *)peaks;
	}
	argv[argc++] = "--format";
	argv[argc++] = (char *)fmt;
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc++] = (char *)trace;
	argv[argc] = NULL;
	char *err = run_capture(cmd_info, expect, argv);
	free(err);
	char *text = synth_read_file(out, NULL);
	return text ? text : strdup("");
}

static void test_info_shows_ceilings(void **state)
{
	(void)state;
	const char *tr = trace_file();
	const char *f = temp("pk");
	write_text(f, new_file);
	char *text = run_info(0, f, tr, "text");
	char want[512];
	snprintf(want, sizeof want, "      measured ceilings (gputrace peak, %s):\n", f);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "\n        dram_read      4403.1 GB/s  91.7% of theoretical 4800.0 GB/s; SM "
	                             "1980 MHz, memory 2619 MHz (read by NVML during the run); 7 reps; line 3\n"
	                             "          method: kernel XOR-reduces one array; again\n"));
	assert_non_null(strstr(text, "\n        l2_read        9800.5 GB/s  theoretical unknown;"));
	assert_non_null(strstr(text, "\n        fp32_fma     60.12 TFLOP/s  89.9% of theoretical 66.91 TFLOP/s; SM "
	                             "1755 MHz, memory 2619 MHz (the device's maximum clocks, not read); 9 reps; line 5\n"));
	assert_non_null(strstr(text, "\n        bf16_mma    650.00 TFLOP/s  60.7% of theoretical 1070.53 TFLOP/s; "
	                             "clocks not given; 7 reps; line 6\n"));
	assert_null(strstr(text, "fp64_fma")); /* another device's */
	free(text);

	text = run_info(0, f, tr, "json");
	assert_non_null(strstr(text, "\"ceilings\": ["));
	assert_non_null(strstr(text, "\"kind\": \"dram_read\", \"unit\": \"bytes/s\", \"measured\": 4403100000000.0, "
	                             "\"theoretical\": 4800000000000.0"));
	assert_non_null(strstr(text, "\"kind\": \"l2_read\", \"unit\": \"bytes/s\", \"measured\": 9800500000000.0, "
	                             "\"theoretical\": null, \"measured_pct_of_theoretical\": null"));
	assert_non_null(strstr(text, "\"kind\": \"fp32_fma\", \"unit\": \"flops/s\""));
	assert_non_null(strstr(text, "\"clocks\": \"attribute\""));
	free(text);

	/* Old file: no ceilings, and info says exactly what it said before the ceilings existed. */
	const char *old = temp("pk");
	write_text(old, DEV "kind=htod_pinned gbps=55.41 bytes=268435456 reps=7\n");
	const char *none = "/nonexistent/gputrace-peaks";
	setenv("GPUTRACE_PEAKS", none, 1);
	char *base = run_info(0, NULL, tr, "text");
	char *with_old = run_info(0, old, tr, "text");
	assert_string_equal(base, with_old);
	assert_null(strstr(base, "ceilings"));
	free(base);
	free(with_old);
	base = run_info(0, NULL, tr, "json");
	with_old = run_info(0, old, tr, "json");
	assert_string_equal(base, with_old);
	assert_null(strstr(base, "ceilings"));
	free(base);
	free(with_old);

	/* The default place, through $GPUTRACE_PEAKS. */
	setenv("GPUTRACE_PEAKS", f, 1);
	text = run_info(0, NULL, tr, "text");
	assert_non_null(strstr(text, "        dram_read      4403.1 GB/s"));
	free(text);
	unsetenv("GPUTRACE_PEAKS");

	/* An unreadable --peaks is an input error. */
	free(run_info(2, none, tr, "text"));
}

/* The tensor ceiling tensor FLOPs are held to: the highest tensor kind measured, a library GEMM's
 * over mma.sync's where it is higher (wgmma on sm_90), mma.sync's where the GEMM is lower or absent,
 * none without tensor lines; the GEMM kinds read like the others and are tensor and flops kinds. */
static void test_tensor_kind_highest(void **state)
{
	(void)state;
	const char *f = temp("pk");
	write_text(f, DEV "kind=fp16_mma gflops=635600 theory_gflops=1070530.56 reps=7\n"
	              DEV "kind=bf16_mma gflops=636000 theory_gflops=1070530.56 reps=7\n"
	              DEV "kind=fp16_gemm gflops=781200 theory_gflops=1070530.56 flops=1099511627776 reps=7 "
	                  "sm_mhz=1980 mem_mhz=2619 clocks=nvml method=\"cuBLAS cublasGemmEx\"\n"
	              DEV "kind=fp32_fma gflops=65200 theory_gflops=66908.16\n");
	struct gt_peaks pk;
	char err[128];
	assert_int_equal(gt_peaks_load(&pk, f, UUID, err, sizeof err), 0);
	assert_int_equal(pk.malformed, 0);
	assert_true(pk.have_ceiling[GT_CEIL_FP16_GEMM] && pk.c[GT_CEIL_FP16_GEMM].value == 781200);
	assert_string_equal(pk.c[GT_CEIL_FP16_GEMM].method, "cuBLAS cublasGemmEx");
	assert_false(pk.have_ceiling[GT_CEIL_BF16_GEMM]);
	assert_int_equal(gt_peaks_tensor_kind(&pk), GT_CEIL_FP16_GEMM);
	gt_peaks_release(&pk);

	write_text(f, DEV "kind=fp16_mma gflops=635600\n" DEV "kind=bf16_gemm gflops=600000\n");
	assert_int_equal(gt_peaks_load(&pk, f, UUID, err, sizeof err), 0);
	assert_int_equal(gt_peaks_tensor_kind(&pk), GT_CEIL_FP16_MMA);
	gt_peaks_release(&pk);

	write_text(f, DEV "kind=fp32_fma gflops=65200\n");
	assert_int_equal(gt_peaks_load(&pk, f, UUID, err, sizeof err), 0);
	assert_int_equal(gt_peaks_tensor_kind(&pk), -1);
	gt_peaks_release(&pk);
	assert_int_equal(gt_peaks_tensor_kind(NULL), -1);

	assert_string_equal(gt_ceiling_kind_name(GT_CEIL_BF16_GEMM), "bf16_gemm");
	assert_true(gt_ceiling_is_flops(GT_CEIL_FP16_GEMM) && gt_ceiling_is_tensor(GT_CEIL_BF16_GEMM));
	assert_false(gt_ceiling_is_tensor(GT_CEIL_FP32_FMA));
}

/* The theoretical figures: sm_90 and sm_80 rates per SM per clock, the memory peak for every DRAM
 * kind, unknown for L2, for another architecture and without a device. */
static void test_theory_from_device(void **state)
{
	(void)state;
	struct gt_device d = { .sm_count = 132, .cc_major = 9, .cc_minor = 0, .sm_clock_khz = 1980000,
		.mem_clock_khz = 2619000, .mem_bus_width_bits = 5120 };
	/* 132 SMs x 1.98 GHz: x 256 (128 FMA lanes), x 128 (64), x 4096 (dense FP16 tensor) flops. */
	assert_true(fabs(gt_ceiling_theory(&d, GT_CEIL_FP32_FMA) - 66908.16) < 1e-6);
	assert_true(fabs(gt_ceiling_theory(&d, GT_CEIL_FP64_FMA) - 33454.08) < 1e-6);
	assert_true(fabs(gt_ceiling_theory(&d, GT_CEIL_FP16_MMA) - 1070530.56) < 1e-6);
	assert_true(gt_ceiling_theory(&d, GT_CEIL_BF16_MMA) == gt_ceiling_theory(&d, GT_CEIL_FP16_MMA));
	assert_true(gt_ceiling_theory(&d, GT_CEIL_FP16_GEMM) == gt_ceiling_theory(&d, GT_CEIL_FP16_MMA));
	assert_true(gt_ceiling_theory(&d, GT_CEIL_BF16_GEMM) == gt_ceiling_theory(&d, GT_CEIL_FP16_MMA));
	for (int k = GT_CEIL_DRAM_READ; k <= GT_CEIL_DRAM_TRIAD; k++)
		assert_true(gt_ceiling_theory(&d, (enum gt_ceiling_kind)k) == gt_device_peak_mem_bw(&d) / 1e9);
	assert_true(gt_ceiling_theory(&d, GT_CEIL_L2_READ) == 0);
	assert_true(gt_ceiling_theory(&d, GT_CEIL_NKINDS) == 0);
	struct gt_device a100 = d;
	a100.cc_major = 8;
	a100.sm_count = 108;
	a100.sm_clock_khz = 1410000;
	assert_true(fabs(gt_ceiling_theory(&a100, GT_CEIL_FP16_MMA) - 108 * 2048 * 1.41e9 / 1e9) < 1e-6);
	struct gt_device other = d;
	other.cc_major = 8;
	other.cc_minor = 9; /* sm_89: rates not in the table, not guessed */
	assert_true(gt_ceiling_theory(&other, GT_CEIL_FP32_FMA) == 0);
	assert_true(gt_ceiling_theory(&other, GT_CEIL_DRAM_READ) > 0);
	assert_true(gt_ceiling_theory(NULL, GT_CEIL_FP32_FMA) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_old_file_has_no_ceilings, teardown),
		cmocka_unit_test_teardown(test_new_file_ceilings, teardown),
		cmocka_unit_test_teardown(test_malformed_ceiling_lines, teardown),
		cmocka_unit_test_teardown(test_info_shows_ceilings, teardown),
		cmocka_unit_test(test_theory_from_device),
		cmocka_unit_test_teardown(test_tensor_kind_highest, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
