/* fuzz_analyze_report.c: `gpuanalyze report` on hostile traces: the engine (report.h) and its
 * writer (report_doc.h) filling the Markdown report on /dev/null, alone or against a baseline (the input split at "GTSECOND": the
 * trace, then the baseline), without a shadow library (no code is loaded), with figures into a
 * scratch folder; then the subcommand (fa_pick chooses per input).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/commands/report_doc.h"
#include "analyze/engines/report.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	static char figs[64];
	fa_quiet();
	if (!null) {
		if (!(null = fopen("/dev/null", "w")))
			fa_die("/dev/null");
		snprintf(figs, sizeof figs, "/tmp/gt_fuzz_report_XXXXXX");
		if (!mkdtemp(figs))
			fa_die("mkdtemp");
		strcat(figs, "/R");
	}
	const uint8_t *second = memmem(data, size, FA_SECOND_MARKER, FA_MARKER_LEN);
	const char *path, *base = NULL;
	if (second) {
		path = fa_trace(0, data, (size_t)(second - data));
		second += FA_MARKER_LEN;
		base = fa_trace(1, second, (size_t)(data + size - second));
	} else {
		path = fa_trace(0, data, size);
	}
	unsigned v = fa_pick(data, size, 3);
	struct gt_report_options o;
	gt_report_options_default(&o);
	o.baseline = base;
	o.diff.resamples = 20;
	o.warmup = v;
	struct gt_report_figure_options fo = { v == 2 ? figs : NULL, v == 2 ? "R" : NULL, NULL };
	struct gt_report_result res;
	memset(&res, 0, sizeof res);
	struct gt_doc *d = gt_doc_open(GT_FMT_MD, null);
	if (!d)
		fa_die("gt_doc_open");
	gt_report_doc(d, path, &o, &fo, &res);
	gt_doc_close(d);
	fflush(null);
	if (base)
		fa_cmd(cmd_report, (const char *const[]){ "report", "--baseline", base, "--seed", "3", path, NULL });
	else
		fa_cmd(cmd_report, (const char *const[]){ "report", "--top", "3", path, NULL });
	return 0;
}
