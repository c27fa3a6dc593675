/* fuzz_analyze_export.c: `gpuanalyze export` on hostile traces: the engine (export.h) writing
 * Chrome Trace Event JSON or CSV, gzipped or not, to /dev/null; then the subcommand with a window, a
 * kernel filter, a range, or the trace twice as two ranks (fa_pick chooses the variant per input).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -lsqlite3 -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/export/export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	fa_quiet();
	if (!null && !(null = fopen("/dev/null", "w")))
		fa_die("/dev/null");
	const char *path = fa_trace(0, data, size);
	unsigned v = fa_pick(data, size, 4);
	struct gt_export_options o = { .format = v & 1 ? GT_EXPORT_CSV : GT_EXPORT_CHROME, .gzip = (v >> 1) & 1 };
	struct gt_export_result res;
	memset(&res, 0, sizeof res);
	gt_export_run(path, null, &o, &res);
	fflush(null);
	switch (v) {
	case 0: fa_cmd(cmd_export, (const char *const[]){ "export", "--start", "1us", "--end", "2ms", path, NULL }); break;
	case 1: fa_cmd(cmd_export, (const char *const[]){ "export", "--format", "csv", "--kernel", "k", path, path, NULL }); break;
	case 2: fa_cmd(cmd_export, (const char *const[]){ "export", "--range", "step#2", path, NULL }); break;
	default: fa_cmd(cmd_export, (const char *const[]){ "export", "-z", path, path, NULL }); break;
	}
	return 0;
}
