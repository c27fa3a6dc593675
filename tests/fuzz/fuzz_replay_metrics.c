/* fuzz_replay_metrics.c: the worker's measured values written into a hostile replay trace
 * (launcher_replay_metrics.c, fuzz_replay.h): the trace copied record by record beside itself with
 * LAUNCH_METRIC records placed on its kernels, then renamed over it. The replay trace is a real file
 * in a private folder (the rename needs one); the values file names metrics, captures, ordinals and
 * values taken from the input, a NaN and an infinity among them, and an unavailable and a dropped
 * line on some inputs.
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_replay.h"

#include "preload/launcher/launcher_replay_launched.c"
#include "preload/launcher/launcher_replay_metrics.c"

/* The values file; *some: whether it holds anything (a file of nothing leaves the trace alone). */
static const char *values_of(const uint8_t *data, size_t size, int *some)
{
	static const char *const metric[] = { "dram__bytes_read.sum", "sm__ops_path_tensor_src_fp16.sum",
		                              "gpu__time_duration.sum", "no__such_metric.sum" };
	static const char *const value[] = { "1e6", "0", "nan", "inf", "-3", "1.5e300" };
	char text[2048];
	size_t n = 0;
	unsigned nv = fr_byte(data, size, 17) % 12;
	for (unsigned i = 0; i < nv; i++) {
		unsigned b = fr_byte(data, size, 18 + i);
		n += (size_t)snprintf(text + n, sizeof text - n, "V %u %u %u %s %s\n", b % 4, (b >> 2) % 40,
		                      1 + b % 12, metric[(b >> 3) % 4], value[(b >> 4) % 6]);
	}
	if (fr_byte(data, size, 30) & 1)
		n += (size_t)snprintf(text + n, sizeof text - n, "U the fuzzer's reason \033[31m\n");
	if (fr_byte(data, size, 30) & 2)
		n += (size_t)snprintf(text + n, sizeof text - n, "D sm__sass_thread_inst_executed_op_ffma_pred_on.sum\n");
	*some = nv > 0 || (fr_byte(data, size, 30) & 1);
	return fr_text(1, text);
}

static char dir[64], path[96];

/* The private folder goes with the process (libFuzzer exits through exit()). */
static void remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fa_quiet();
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/gt_fuzz_replay_XXXXXX");
		if (!mkdtemp(dir))
			fa_die("mkdtemp");
		snprintf(path, sizeof path, "%s/replay.gtrace", dir);
		atexit(remove_dir);
	}
	const char *run, *replay;
	fr_traces(data, size, &run, &replay);
	/* The replay trace as a file of its own, copied from the scratch trace. */
	size_t len;
	int in = open(replay, O_RDONLY | O_CLOEXEC), outfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (in < 0 || outfd < 0)
		fa_die("copying the replay trace");
	char buf[65536];
	ssize_t k;
	while ((k = read(in, buf, sizeof buf)) > 0)
		for (len = 0; len < (size_t)k;) {
			ssize_t w = write(outfd, buf + len, (size_t)k - len);
			if (w <= 0)
				fa_die("write");
			len += (size_t)w;
		}
	close(in);
	close(outfd);
	FILE *out = fopen("/dev/null", "w");
	if (!out)
		fa_die("/dev/null");
	int some;
	const char *values = values_of(data, size, &some);
	int rc = launcher_replay_metrics(path, values, fr_results(data, size), out);
	fclose(out);
	if (rc != 0 && rc != -1)
		abort();
	if (rc == 0 && some && fuzz_read_trace(path) < 0) /* what it rewrote must read back */
		abort();
	(void)run;
	return 0;
}
