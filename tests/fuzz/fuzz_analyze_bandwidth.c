/* fuzz_analyze_bandwidth.c: `gpuanalyze bandwidth` on hostile input: the trace, and the measured
 * peaks file it reads beside it (peaks.h). The input is a trace in either form of fuzz_analyze.h;
 * where it holds "GTSECOND", what follows is the peaks file, also hostile. The engine
 * (bandwidth.h) runs with that peaks file, or without one (GPUTRACE_PEAKS pointing nowhere), then
 * the subcommand in one of its formats (fa_pick chooses per input).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/engines/bandwidth.h"

static void engine(const char *path, const char *peaks)
{
	struct gt_bandwidth b;
	memset(&b, 0, sizeof b);
	int rc = gt_bandwidth_run(&b, path, peaks);
	if (rc == 0) {
		double sum = 0;
		for (size_t i = 0; i < b.ngroups; i++)
			sum += b.groups[i].median + b.groups[i].pct_theory + (double)strlen(b.groups[i].memory);
		for (size_t i = 0; i < b.ndevices; i++)
			sum += (double)strlen(b.devices[i].name);
		__asm__ volatile("" : : "r"(sum));
	}
	gt_bandwidth_release(&b);
}

/* The peaks file: a second memfd, written as it is. */
static const char *peaks_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("gt_fuzz_peaks", MFD_CLOEXEC);
		if (fd < 0)
			fa_die("memfd_create");
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		fa_die("peaks file");
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fa_quiet();
	setenv("GPUTRACE_PEAKS", "/nonexistent/gputrace-fuzz-peaks", 1);
	const uint8_t *second = memmem(data, size, FA_SECOND_MARKER, FA_MARKER_LEN);
	size_t first = second ? (size_t)(second - data) : size;
	const char *path = fa_trace(0, data, first);
	const char *peaks = NULL;
	if (second) {
		second += FA_MARKER_LEN;
		peaks = peaks_file(second, (size_t)(data + size - second));
	}
	engine(path, peaks);
	const char *p = peaks ? peaks : "/nonexistent/gputrace-fuzz-peaks";
	switch (fa_pick(data, size, 4)) {
	case 0: fa_cmd(cmd_bandwidth, (const char *const[]){ "bandwidth", path, NULL }); break;
	case 1:
		fa_cmd(cmd_bandwidth, (const char *const[]){ "bandwidth", "--peaks", p, "--format", "json",
		                                             path, NULL });
		break;
	case 2:
		fa_cmd(cmd_bandwidth, (const char *const[]){ "bandwidth", "--peaks", p, "--format", "csv",
		                                             path, NULL });
		break;
	default:
		fa_cmd(cmd_bandwidth, (const char *const[]){ "bandwidth", "--format", "md", path, NULL });
		break;
	}
	return 0;
}
