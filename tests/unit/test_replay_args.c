/* test_replay_args.c: the replay worker's options and picks (preload/replay/replay_args.c), which
 * `gputrace replay` runs before it looks for a driver so that input errors are 2, never 77.
 *
 * Pins the defaults, each refusal's words, the 256th --capture accepted and the 257th refused,
 * a second parse starting from a clean getopt state (the launcher parses its own options first),
 * picking by id and by pattern with the counts the check reports, and count_only keeping nothing.
 * Also gt_esc_line (common/text_escape.c), through which every such line is written: one line,
 * controls, C1, bidi and invalid bytes shown as gpuanalyze's text rule shows them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text_escape.h"
#include "preload/replay/replay_args.h"
#include "preload/replay/replay_compare.h"

/* Parses the words of line (space-separated, at most 600) as the worker's argv. */
static const char *parse_line(struct replay_args *a, const char *line)
{
	static char buf[8192];
	static char *argv[600];
	int argc = 0;
	snprintf(buf, sizeof buf, "gputrace-replay %s", line);
	for (char *t = strtok(buf, " "); t && argc < 599; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	return replay_args_parse(a, argc, argv);
}

static void test_defaults(void **state)
{
	(void)state;
	struct replay_args a;
	assert_null(parse_line(&a, "run.gtrace"));
	assert_string_equal(a.trace, "run.gtrace");
	assert_int_equal(a.reps, 50);
	assert_int_equal(a.check_reps, 10);
	assert_int_equal(a.dtype, RD_F32);
	assert_int_equal(a.device, 0);
	assert_int_equal(a.nids, 0);
	assert_false(a.have_re);
	assert_null(a.results);
	replay_args_release(&a);
}

static void test_values(void **state)
{
	(void)state;
	struct replay_args a;
	assert_null(parse_line(&a, "--reps 0 --check-reps 1000000 --dtype u8 --device 3 --with-structs --results r t"));
	assert_int_equal(a.reps, 0);
	assert_int_equal(a.check_reps, 1000000);
	assert_int_equal(a.dtype, RD_U8);
	assert_int_equal(a.device, 3);
	assert_true(a.with_structs);
	assert_string_equal(a.results, "r");
	replay_args_release(&a);
}

/* --metrics: sets expand in order, each metric once, raw names marked raw; --metric-values kept. */
static void test_metrics(void **state)
{
	(void)state;
	struct replay_args a;
	assert_null(parse_line(&a, "t"));
	assert_int_equal(a.metrics.n, 0);
	assert_null(a.metric_values);
	replay_args_release(&a);
	assert_null(parse_line(&a, "--metrics memory --metric-values v t"));
	assert_int_equal(a.metrics.n, 6);
	assert_string_equal(a.metrics.names[0], "dram__bytes_read.sum");
	assert_string_equal(a.metrics.names[1], "dram__bytes_write.sum");
	assert_false(a.metrics.raw[0]);
	assert_string_equal(a.metric_values, "v");
	replay_args_release(&a);
	assert_null(parse_line(&a, "--metrics memory,compute,dram__bytes_read.sum,sm__cycles_active.avg t"));
	size_t n = a.metrics.n;
	assert_string_equal(a.metrics.names[n - 1], "sm__cycles_active.avg");
	assert_true(a.metrics.raw[n - 1]);
	assert_true(a.metrics.raw[0]); /* in the memory set and named: a GPU without it is an error */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(a.metrics.names[i], a.metrics.names[j]);
	/* No SASS-patched counts: the Range Profiler returned 0 for them on the H200. */
	for (size_t i = 0; i < n; i++)
		assert_null(strstr(a.metrics.names[i], "__sass_"));
	replay_args_release(&a);
	/* Named by hand they are refused, saying why, rather than measured as zeros. */
	char why[512] = "";
	struct replay_metric_list l = { 0 };
	assert_int_equal(replay_metric_sets_parse("memory,sm__sass_thread_inst_executed_op_ffma_pred_on.sum", &l, why,
	                                          sizeof why), -1);
	assert_non_null(strstr(why, "patching SASS"));
}

static void test_refusals(void **state)
{
	(void)state;
	static const struct { const char *line, *why; } cases[] = {
		{ "--reps x t", "--reps takes 0..1000000" },
		{ "--reps -1 t", "--reps takes 0..1000000" },
		{ "--reps 1000001 t", "--reps takes 0..1000000" },
		{ "--check-reps 1x t", "--check-reps takes 0..1000000" },
		{ "--dtype f16 t", "--dtype takes f32, f64, i32, u32 or u8" },
		{ "--device 1025 t", "--device takes a device ordinal (0..1024)" },
		{ "--capture 0 t", "--capture takes a capture id (1, 2, ...)" },
		{ "--capture -3 t", "--capture takes a capture id (1, 2, ...)" },
		{ "--kernel ( t", "--kernel takes an extended regular expression (this one does not compile)" },
		{ "--bogus t", "unknown option" },
		{ "--metrics bogus t", "--metrics: 'bogus' is neither a metric set (memory, compute) nor a CUPTI metric name" },
		{ "--metrics memory,DRAM t", "--metrics: 'DRAM' is neither a metric set (memory, compute) nor a CUPTI metric name" },
		{ "--metrics memory, t", "--metrics: the list ends with a comma" },
		/* the form GPUTRACE_METRICS takes too: a unit holds no '_' */
		{ "--metrics dram_x__bytes.sum t",
		  "--metrics: 'dram_x__bytes.sum' is neither a metric set (memory, compute) nor a CUPTI metric name" },
		{ "t --reps", "an option lacks its value" },
		{ "", "one trace file is needed" },
		{ "a b", "one trace file is needed" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct replay_args a;
		const char *why = parse_line(&a, cases[i].line);
		replay_args_release(&a);
		assert_non_null(why);
		assert_string_equal(why, cases[i].why);
	}
}

static void test_256_captures(void **state)
{
	(void)state;
	static char line[8192];
	size_t len = 0;
	for (int i = 1; i <= 256; i++)
		len += (size_t)snprintf(line + len, sizeof line - len, "--capture %d ", i);
	snprintf(line + len, sizeof line - len, "t");
	struct replay_args a;
	assert_null(parse_line(&a, line));
	assert_int_equal(a.nids, 256);
	assert_int_equal(a.ids[255], 256);
	replay_args_release(&a);
	snprintf(line + len, sizeof line - len, "--capture 257 t");
	assert_string_equal(parse_line(&a, line), "--capture: at most 256 of them");
	replay_args_release(&a);
}

static struct gt_capture cap(uint64_t id)
{
	struct gt_capture c;
	memset(&c, 0, sizeof c);
	c.capture_id = id;
	return c;
}

static void test_pick(void **state)
{
	(void)state;
	struct replay_args a;
	assert_null(parse_line(&a, "--capture 3 --capture 9 --kernel ^_Z5saxpy t"));
	struct gt_capture c1 = cap(1), c3 = cap(3), c4 = cap(4);
	assert_int_equal(replay_args_pick(&a, &c1, "_Z5saxpyifPKfPf"), 0); /* not listed */
	assert_int_equal(replay_args_pick(&a, &c3, "_Z5saxpyifPKfPf"), 1);
	assert_int_equal(replay_args_pick(&a, &c4, "_Z5saxpyifPKfPf"), 0);
	assert_int_equal(a.seen, 3);
	assert_int_equal(a.picked, 1);
	assert_int_equal(a.lo, 1);
	assert_int_equal(a.hi, 4);
	assert_true(a.found[0]);
	assert_false(a.found[1]); /* 9: absent, which the check reports */
	replay_args_release(&a);

	assert_null(parse_line(&a, "--kernel reduce t"));
	a.count_only = 1;
	assert_int_equal(replay_args_pick(&a, &c1, "_Z10reduce_sumPKfPfi"), 0); /* counted, not kept */
	assert_int_equal(replay_args_pick(&a, &c3, "_Z5saxpyifPKfPf"), 0);
	assert_int_equal(a.picked, 1);
	replay_args_release(&a);
}

static void test_check_missing_trace(void **state)
{
	(void)state;
	struct replay_args a;
	char why[1024];
	assert_null(parse_line(&a, "/nonexistent/dir/x.gtrace"));
	assert_int_equal(replay_args_check(&a, why, sizeof why), -1);
	assert_non_null(strstr(why, "cannot read trace '/nonexistent/dir/x.gtrace'"));
	replay_args_release(&a);
}

static void test_esc_line(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(gt_esc_line(f, "id %d: %s", 7, "a\nb\033[1m\xc2\x9b\xe2\x80\xae\xff\\ \xc2\xb5s"), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "id 7: a\\nb\\x1b[1m\\u009b\\u202e\xef\xbf\xbd\\ \xc2\xb5s\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_256_captures),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_check_missing_trace),
		cmocka_unit_test(test_esc_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
