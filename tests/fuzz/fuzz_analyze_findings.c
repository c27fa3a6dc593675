/* fuzz_analyze_findings.c: `gpuanalyze findings` on hostile traces: the engine (findings.h) with
 * its default thresholds and the subcommand in text, or with tight thresholds (every rule fires more
 * often) and the subcommand in JSON (fa_pick chooses per input).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/engines/findings.h"

static void engine(const char *path, const struct gt_findings_options *o)
{
	struct gt_findings F;
	memset(&F, 0, sizeof F);
	if (gt_findings_run(&F, path, o) == 0) {
		size_t sum = 0;
		for (size_t i = 0; i < F.n; i++)
			sum += strlen(F.f[i].what) + (F.f[i].where ? strlen(F.f[i].where) : 0) +
			       (F.f[i].todo ? strlen(F.f[i].todo) : 0);
		gt_findings_max_severity(&F);
		__asm__ volatile("" : : "r"(sum));
	}
	gt_findings_release(&F);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fa_quiet();
	setenv("GPUTRACE_PEAKS", "/nonexistent/gputrace-fuzz-peaks", 1);
	const char *path = fa_trace(0, data, size);
	if (fa_pick(data, size, 2) == 0) {
		engine(path, NULL);
		fa_cmd(cmd_findings, (const char *const[]){ "findings", path, NULL });
		return 0;
	}
	struct gt_findings_options o;
	gt_findings_defaults(&o);
	o.gap_ns = 1;
	o.slices = 1000;
	o.util_pct = 99;
	o.first_ratio = 1.01;
	o.bimodal_min = 3;
	o.bimodal_ratio = 1.01;
	o.bimodal_share = 0.01;
	o.warn_pct = 0.001;
	engine(path, &o);
	fa_cmd(cmd_findings, (const char *const[]){ "findings", "--format", "json", path, NULL });
	return 0;
}
