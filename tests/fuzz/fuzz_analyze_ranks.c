/* fuzz_analyze_ranks.c: `gpuanalyze ranks` on hostile traces, one per rank: the input split at
 * "GTSECOND" into two traces (without the marker, the same trace twice), each in either form of
 * fuzz_analyze.h; the engine (ranks.h) with and without a step range and warm-up; then the
 * subcommand (fa_pick chooses per input).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/engines/ranks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fa_quiet();
	const uint8_t *second = memmem(data, size, FA_SECOND_MARKER, FA_MARKER_LEN);
	const char *a, *b;
	if (second) {
		a = fa_trace(0, data, (size_t)(second - data));
		second += FA_MARKER_LEN;
		b = fa_trace(1, second, (size_t)(data + size - second));
	} else {
		a = b = fa_trace(0, data, size);
	}
	unsigned v = fa_pick(data, size, 3);
	char *paths[2] = { (char *)a, (char *)b };
	struct gt_ranks g;
	memset(&g, 0, sizeof g);
	struct gt_ranks_options o = { .range = v == 1 ? "step" : NULL, .warmup = v };
	if (gt_ranks_run(&g, paths, 2, &o) == 0)
		gt_ranks_release(&g);
	switch (v) {
	case 0: fa_cmd(cmd_ranks, (const char *const[]){ "ranks", a, b, NULL }); break;
	case 1: fa_cmd(cmd_ranks, (const char *const[]){ "ranks", "--format", "json", "--warmup", "1", a, b, NULL }); break;
	default: fa_cmd(cmd_ranks, (const char *const[]){ "ranks", "--format", "csv", "--steps", "0", a, b, NULL }); break;
	}
	return 0;
}
