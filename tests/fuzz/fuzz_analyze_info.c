/* fuzz_analyze_info.c: `gpuanalyze info` on hostile traces: the engine (info.h) through the loader
 * (load.h), then the subcommand in one of its formats (fa_pick).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/engines/info.h"
#include "analyze/support/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fa_quiet();
	const char *path = fa_trace(0, data, size);
	struct gt_reader *r;
	if (gt_load_open(&r, path) == 0) {
		struct gt_info in;
		gt_info_init(&in);
		int rc = gt_load_stream(r, gt_info_record, &in);
		if (rc != 0 && !(rc < 0 && gt_failed())) /* a failure comes with its words held */
			abort();
		gt_reader_close(r);
	}
	if (fa_pick(data, size, 2) == 0)
		fa_cmd(cmd_info, (const char *const[]){ "info", path, NULL });
	else
		fa_cmd(cmd_info, (const char *const[]){ "info", "--format", "json", path, NULL });
	return 0;
}
