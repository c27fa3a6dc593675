/* fuzz_analyze_dump.c: `gpuanalyze dump` on hostile traces: every event's fields (schema.h) as
 * text, through the subcommand in one of its formats or with a type selection (fa_pick).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "traces/schema.h"
#include "analyze/support/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fa_quiet();
	const char *path = fa_trace(0, data, size);
	struct gt_reader *r;
	if (gt_load_open(&r, path) == 0) {
		size_t sum = 0;
		gt_load_stream(r, fa_all_fields, &sum);
		gt_reader_close(r);
		__asm__ volatile("" : : "r"(sum));
	}
	switch (fa_pick(data, size, 3)) {
	case 0: fa_cmd(cmd_dump, (const char *const[]){ "dump", path, NULL }); break;
	case 1: fa_cmd(cmd_dump, (const char *const[]){ "dump", "--format", "json", path, NULL }); break;
	default:
		fa_cmd(cmd_dump, (const char *const[]){ "dump", "--type", "kernel,memcpy,dropped,process",
		                                        path, NULL });
		break;
	}
	return 0;
}
