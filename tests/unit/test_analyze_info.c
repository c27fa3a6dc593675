/* test_analyze_info.c: `gpuanalyze info` and its engine (analyze/engines/info.c) on traces built through
 * the writer API: records by type, drops summed by reason ("0 dropped" said), the synthetic
 * banner only when the metadata says so, device peaks, truncation, and a bad file among good ones.
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
#include "analyze/engines/info.h"
#include "analyze/support/load.h"
#include "traces/gputrace.h"
#include "helpers/cmd_test.h"
#include "helpers/synth_trace.h"

static char *diag_buf;
static size_t diag_len;
static FILE *diag_f;

static int setup(void **state)
{
	(void)state;
	diag_f = open_memstream(&diag_buf, &diag_len);
	gt_diag_set_stream(diag_f);
	return diag_f ? 0 : -1;
}

static int teardown(void **state)
{
	temp_teardown(state);
	fclose(diag_f);
	free(diag_buf);
	diag_buf = NULL;
	return 0;
}

/* Runs `gpuanalyze info ARGS -o out` and returns the output (to free) and the status. */
static char *run_info(int *status, const char *a, const char *b, const char *fmt)
{
	char *out = temp("out");
	char *argv[10];
	int argc = 0;
	argv[argc++] = "info";
	if (fmt) {
		argv[argc++] = "--format";
		argv[argc++] = (char *)fmt;
	}
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc++] = (char *)a;
	if (b)
		argv[argc++] = (char *)b;
	argv[argc] = NULL;
	*status = cmd_info(argc, argv);
	char *text = synth_read_file(out, NULL);
	assert_non_null(text);
	return text;
}

static void test_counts_and_drops_by_reason(void **state)
{
	(void)state;
	char *p = temp("cnt");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(synth_kernel(w, "k", 1000 + (uint64_t)i * 100, 1050 + (uint64_t)i * 100, 0), 0);
	assert_int_equal(synth_memcpy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 8, 900, 950), 0);
	assert_int_equal(synth_memcpy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 8, 1500, 1600), 0);
	assert_int_equal(synth_dropped(w, GT_DROP_CUPTI, 5), 0);
	assert_int_equal(synth_dropped(w, GT_DROP_CUPTI, 2), 0);
	assert_int_equal(synth_dropped(w, GT_DROP_FILTERED, 4), 0);
	assert_int_equal(synth_dropped(w, 99, 1), 0);
	assert_int_equal(gt_writer_close(w), 0);

	struct gt_info in;
	gt_info_init(&in);
	assert_int_equal(gt_load_trace(p, gt_info_record, &in), 0);
	assert_int_equal(in.by_type[GT_REC_KERNEL], 3);
	assert_int_equal(in.by_type[GT_REC_MEMCPY], 2);
	assert_int_equal(in.by_type[GT_REC_DROPPED], 4);
	assert_int_equal(in.by_type[GT_REC_META], 4);
	assert_int_equal(in.by_type[GT_REC_END], 1);
	assert_int_equal(in.dropped[GT_DROP_CUPTI], 7);
	assert_int_equal(in.dropped[GT_DROP_FILTERED], 4);
	assert_int_equal(in.dropped_other, 1);
	assert_int_equal(in.dropped_total, 12);
	assert_int_equal(in.first_ns, 900);
	assert_int_equal(in.last_ns, 1600);

	int status;
	char *text = run_info(&status, p, NULL, NULL);
	assert_int_equal(status, 0);
	assert_non_null(strstr(text, "\n  dropped:  12 dropped: 7 dropped by CUPTI, 4 filtered out, 1 for "
	                             "reasons this analyzer does not know\n"));
	assert_non_null(strstr(text, "\n    kernel         3\n"));
	free(text);
	text = run_info(&status, p, NULL, "json");
	assert_int_equal(status, 0);
	assert_non_null(strstr(text, "\"dropped\": {\n        \"total\": 12,\n        \"cupti\": 7,"));
	assert_non_null(strstr(text, "\"other\": 1,\n        \"uncounted_losses\": 0\n"));
	assert_non_null(strstr(text, "\"records_by_type\": {"));
	free(text);
}

/* A DROPPED record of count 0 (refused buffer requests: CUPTI does not say how many records they
 * cost) is a loss of unknown size: said on its own LOST line, never left as "0 dropped". */
static void test_loss_of_unknown_size(void **state)
{
	(void)state;
	char *p = temp("lost");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_kernel(w, "k", 1000, 1050, 0), 0);
	assert_int_equal(synth_dropped(w, GT_DROP_BUFFER_LOST, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_info in;
	gt_info_init(&in);
	assert_int_equal(gt_load_trace(p, gt_info_record, &in), 0);
	assert_int_equal(in.dropped_total, 0);
	assert_int_equal(in.uncounted_total, 1);
	assert_int_equal(in.uncounted[GT_DROP_BUFFER_LOST], 1);
	int status;
	char *text = run_info(&status, p, NULL, NULL);
	assert_int_equal(status, 0);
	assert_non_null(strstr(text, "\n  LOST:     records lost in 1 place(s), how many unknown: buffer lost\n"));
	free(text);
	text = run_info(&status, p, NULL, "json");
	assert_non_null(strstr(text, "\"uncounted_losses\": 1\n"));
	free(text);
}

/* No drops: said explicitly. No trace.synthetic: no banner. A device: its peaks. */
static void test_text_report(void **state)
{
	(void)state;
	char *p = temp("plain");
	struct gt_writer *w;
	assert_int_equal(gt_writer_open(&w, p, 0, NULL), 0);
	assert_int_equal(gt_writer_meta(w, "tool.version", "0.1.0"), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(synth_kernel(w, "k", 1000, 2000, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	int status;
	char *text = run_info(&status, p, NULL, NULL);
	assert_int_equal(status, 0);
	assert_null(strstr(text, "SYNTHETIC"));
	assert_non_null(strstr(text, "\n  dropped:  0 dropped\n"));
	assert_non_null(strstr(text, "\n  end:      complete (END record read)\n"));
	assert_non_null(strstr(text, "\n    tool.version = 0.1.0\n"));
	assert_non_null(strstr(text, "\n    device 0: NVIDIA H200 (GPU-10111213-1415-1617-1819-1a1b1c1d1e1f)\n"));
	/* 2 x 2619 MHz x 6144 bits / 8 = 4022.8 GB/s; PCIe 5 x16: 32 GT/s x 128/130 / 8 x 16 = 63.0 GB/s */
	assert_non_null(strstr(text, "theoretical peak 4022.8 GB/s\n"));
	assert_non_null(strstr(text, "theoretical peak 63.0 GB/s per direction\n"));
	free(text);
	text = run_info(&status, p, NULL, "json");
	assert_non_null(strstr(text, "\"synthetic\": false"));
	assert_non_null(strstr(text, "\"peak_mem_bw_bytes_per_s\": 4022784000000"));
	free(text);
}

/* The synthetic banner comes right after the file name, before anything else. */
static void test_synthetic_banner_first(void **state)
{
	(void)state;
	char *p = temp("syn");
	assert_int_equal(synth_fixture_small(p), 0);
	int status;
	char *text = run_info(&status, p, NULL, NULL);
	assert_int_equal(status, 0);
	const char *nl = strchr(text, '\n');
	assert_non_null(nl);
	assert_true(strncmp(nl + 1, "  *** SYNTHETIC TRACE (META trace.synthetic = \"1\")", 50) == 0);
	free(text);
}

/* Truncated: reported in the output and as a warning, exit 0. A missing file among good ones:
 * reported, exit 2, and the -o file left as it was (here the empty scratch file): a failed
 * command's output is never renamed over its target. */
static void test_truncated_and_missing(void **state)
{
	(void)state;
	char *p = temp("trunc");
	assert_int_equal(synth_fixture_truncated(p), 0);
	int status;
	char *text = run_info(&status, p, NULL, NULL);
	assert_int_equal(status, 0);
	assert_non_null(strstr(text, "\n  end:      INCOMPLETE: 39 bytes of an incomplete chunk lost; the "
	                             "recording process did not close the trace, so what it had not written yet is "
	                             "lost too: an unknown number of records\n"));
	assert_non_null(strstr(text, "\n  file:     937 bytes, 2 chunks\n"));
	free(text);
	text = run_info(&status, "/nonexistent/none.gtrace", p, NULL);
	assert_int_equal(status, GT_EXIT_USAGE);
	assert_string_equal(text, "");
	free(text);
	fflush(diag_f);
	char want[512];
	snprintf(want, sizeof want, "gpuanalyze: warning: %s ends early: 39 bytes", p);
	assert_non_null(strstr(diag_buf, want));
	assert_non_null(strstr(diag_buf, "gpuanalyze: cannot open trace '/nonexistent/none.gtrace': "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_loss_of_unknown_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts_and_drops_by_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_synthetic_banner_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_and_missing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
