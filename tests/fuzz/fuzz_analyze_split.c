/* fuzz_analyze_split.c: `gpuanalyze split` on hostile traces: the engine (split.h) choosing its
 * units itself, then told an NVTX range name, with warm-up; then the subcommand in one of its formats (fa_pick chooses per input).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/engines/split.h"

static void engine(const char *path, const char *range, uint64_t warmup)
{
	struct gt_split s;
	memset(&s, 0, sizeof s);
	struct gt_split_options o = { .range = range, .warmup = warmup };
	int rc = gt_split_run(&s, path, &o);
	if (rc == 0) {
		double sum = 0;
		for (size_t i = 0; i < s.nunits; i++)
			for (int m = 0; m < GT_M_COUNT; m++)
				sum += s.units[i].v[m];
		for (size_t i = 0; i < s.nnames; i++)
			sum += (double)strlen(s.names[i].name);
		__asm__ volatile("" : : "r"(sum));
	}
	gt_split_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fa_quiet();
	const char *path = fa_trace(0, data, size);
	switch (fa_pick(data, size, 4)) {
	case 0:
		engine(path, NULL, 0);
		fa_cmd(cmd_split, (const char *const[]){ "split", path, NULL });
		break;
	case 1:
		engine(path, "render_frame", 1);
		fa_cmd(cmd_split, (const char *const[]){ "split", "--format", "json", "--warmup", "2", path,
		                                         NULL });
		break;
	case 2:
		engine(path, "upload", 0);
		fa_cmd(cmd_split, (const char *const[]){ "split", "--format", "csv", "--range", "upload", path,
		                                         NULL });
		break;
	default:
		engine(path, NULL, 3);
		fa_cmd(cmd_split, (const char *const[]){ "split", "--format", "md", "--units", "0", path,
		                                         NULL });
		break;
	}
	return 0;
}
