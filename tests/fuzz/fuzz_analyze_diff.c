/* fuzz_analyze_diff.c: `gpuanalyze diff BASE NEW` on two hostile traces. The input is split at
 * "GTSECOND": BASE before it, NEW after it (each in either form of fuzz_analyze.h; without the
 * marker both sides are the same trace). The engine (diff.h) runs with few bootstrap resamples (the
 * statistics are not what is fuzzed here, the input path is), with or without warm-up and a kernel
 * filter; then the subcommand in one of its formats (fa_pick chooses per input).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/engines/diff.h"

static void engine(const char *a, const char *b, uint64_t warmup, const struct gt_name_filter *f)
{
	struct gt_diff d;
	memset(&d, 0, sizeof d);
	struct gt_diff_options o;
	gt_diff_options_default(&o);
	o.resamples = 20;
	o.min_samples = 2;
	o.warmup = warmup;
	o.filter = f;
	if (gt_diff_run(&d, a, b, &o) == 0) {
		size_t sum = 0;
		for (size_t i = 0; i < d.nrows; i++)
			sum += strlen(d.rows[i].why) + (d.rows[i].display ? strlen(d.rows[i].display) : 0);
		gt_diff_failed(&d, 1);
		__asm__ volatile("" : : "r"(sum));
	}
	gt_diff_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gt_name_filter filter;
	fa_quiet();
	if (!filter.active) {
		char err[256];
		if (gt_name_filter_set(&filter, "k[0-9]|step|^_Z", err, sizeof err) != 0)
			abort();
	}
	const uint8_t *second = memmem(data, size, FA_SECOND_MARKER, FA_MARKER_LEN);
	const char *a, *b;
	if (second) {
		a = fa_trace(0, data, (size_t)(second - data));
		second += FA_MARKER_LEN;
		b = fa_trace(1, second, (size_t)(data + size - second));
	} else {
		a = b = fa_trace(0, data, size);
	}
	switch (fa_pick(data, size, 4)) {
	case 0:
		engine(a, b, 0, NULL);
		fa_cmd(cmd_diff, (const char *const[]){ "diff", "--bootstrap", "20", a, b, NULL });
		break;
	case 1:
		engine(a, b, 1, &filter);
		fa_cmd(cmd_diff, (const char *const[]){ "diff", "--bootstrap", "20", "--format", "json",
		                                        "--min-samples", "1", a, b, NULL });
		break;
	case 2:
		engine(a, b, 2, NULL);
		fa_cmd(cmd_diff, (const char *const[]){ "diff", "--bootstrap", "10", "--format", "junit",
		                                        "--strict", "--warmup", "1", a, b, NULL });
		break;
	default:
		engine(a, b, 0, &filter);
		fa_cmd(cmd_diff, (const char *const[]){ "diff", "--bootstrap", "10", "--format", "csv", "--format",
		                                        "md", a, b, NULL });
		break;
	}
	return 0;
}
