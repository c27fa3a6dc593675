/* fuzz_analyze_summary.c: `gpuanalyze summary` on hostile traces: the engine (summary.h) with and
 * without warm-up and a kernel filter, the same trace given twice (merged by name across files),
 * every sort order; then the subcommand in one of its formats with options (fa_pick chooses the
 * variant per input).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/engines/summary.h"

static void engine(const char *path, uint64_t warmup, const struct gt_name_filter *filter, int twice)
{
	struct gt_summary s;
	if (gt_summary_init(&s, warmup) != 0)
		abort();
	int rc = gt_summary_add_trace(&s, path);
	if (!rc && twice)
		rc = gt_summary_add_trace(&s, path);
	if (!rc && gt_summary_finish(&s, filter) == 0) {
		for (int k = GT_SORT_TOTAL; k <= GT_SORT_NAME; k++)
			gt_summary_sort(&s, (enum gt_summary_sort)k);
		/* Read every row, as the printers do. */
		size_t sum = 0;
		for (size_t i = 0; i < s.nkernels; i++)
			sum += strlen(s.kernels[i].display) + strlen(s.kernels[i].files);
		for (size_t i = 0; i < s.ncopies; i++)
			sum += strlen(s.copies[i].name);
		__asm__ volatile("" : : "r"(sum));
	}
	gt_summary_release(&s);
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
	const char *path = fa_trace(0, data, size);
	switch (fa_pick(data, size, 4)) {
	case 0:
		engine(path, 0, NULL, 0);
		fa_cmd(cmd_summary, (const char *const[]){ "summary", path, NULL });
		break;
	case 1:
		engine(path, 2, &filter, 1);
		fa_cmd(cmd_summary, (const char *const[]){ "summary", "--format", "json", "--warmup", "1",
		                                           path, NULL });
		break;
	case 2:
		engine(path, 1, NULL, 1);
		fa_cmd(cmd_summary, (const char *const[]){ "summary", "--format", "csv", "--sort", "name",
		                                           path, path, NULL });
		break;
	default:
		engine(path, 0, &filter, 0);
		fa_cmd(cmd_summary, (const char *const[]){ "summary", "--format", "md", "--top", "2",
		                                           "--kernel", "k", path, NULL });
		break;
	}
	return 0;
}
