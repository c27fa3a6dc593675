/* launcher_replay.c: `gputrace replay`: re-run captured launches alone on the GPU, check them
 * against the run, time them, and set the isolated durations beside the run's.
 *
 * The work is split over two processes so that the timings are CUPTI's, as in any recording:
 * gputrace-replay (replay_main.c, a plain driver-API program) does the replays, and this command
 * runs it through `gputrace record`, so the recorder preloaded into it writes the replay's own
 * trace (kernels, the copies that restore inputs, the driver's launch calls, one NVTX range per
 * capture with its verdict as a mark, clocks, device metadata). Afterwards the worker's
 * results file says how many launches each capture made, in order; the replay trace's kernels,
 * sorted by start, are cut into each capture's, and set beside the same kernel's launches in the
 * original trace (launch_times.c). With --metrics, the values the worker measured under CUPTI's
 * Range Profiler are then written into the replay trace (launcher_replay_metrics.c). `--list` and
 * `--extract` need no GPU.
 */
#include "preload/launcher/launcher.h"
#include "preload/launcher/launcher_extract.h"
#include "preload/launcher/launcher_replay.h"
#include "preload/replay/replay_args.h"

#include "common/demangler.h"
#include "common/text_escape.h"

#include <errno.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The command line: the launcher's own options, and the worker's as they will be passed on
 * (pointers into argv, in the order given). */
struct replay_cmd {
	const char *trace;
	const char *output;
	const char *lib;
	char **worker_opts;
	int nworker;
	int force, list, metrics;
	uint64_t extract;
	unsigned timeout_s;
};

static struct replay_cmd cmd;
static size_t worker_cap;
static int with_structs;

/* Passes the option on to the worker as it will get it: .data is its name there. */
static int add_opt(const char *name, const char *value)
{
	if ((size_t)cmd.nworker + 2 >= worker_cap) {
		size_t cap = worker_cap ? 2 * worker_cap : 16;
		char **w = realloc(cmd.worker_opts, cap * sizeof *w);
		if (!w) {
			fprintf(stderr, "gputrace: replay: out of memory\n");
			return -1;
		}
		cmd.worker_opts = w;
		worker_cap = cap;
	}
	cmd.worker_opts[cmd.nworker++] = (char *)name;
	if (value)
		cmd.worker_opts[cmd.nworker++] = (char *)value;
	return 0;
}

static int worker_opt(const struct gt_option *o, const char *value, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return add_opt(o->data, value);
}

/* --metrics goes to the worker, which measures; the launcher then writes the values it measured. */
static int metrics_opt(const struct gt_option *o, const char *value, char *err, size_t errlen)
{
	cmd.metrics = 1;
	return worker_opt(o, value, err, errlen);
}

/* A decimal count from 1 to max into *v; 0, or -1 for anything else. */
static int count(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || end == s || s[0] == '-' || *v == 0 || *v > max ? -1 : 0;
}

static int timeout_opt(const struct gt_option *o, const char *value, char *err, size_t errlen)
{
	(void)o;
	unsigned long long v;
	if (count(value, 86400, &v) != 0) {
		snprintf(err, errlen, "wants a number of seconds from 1 to 86400, not '%s'", value);
		return 1;
	}
	cmd.timeout_s = (unsigned)v;
	return 0;
}

static int extract_opt(const struct gt_option *o, const char *value, char *err, size_t errlen)
{
	(void)o;
	unsigned long long v;
	if (count(value, UINT64_MAX, &v) != 0) {
		snprintf(err, errlen, "wants a capture id (1, 2, ...), not '%s'", value);
		return 1;
	}
	cmd.extract = v;
	return 0;
}

static const struct gt_option options[] = {
	{ .kind = GT_OPT_CALL, .long_name = "capture", .arg = "ID", .call = worker_opt, .data = "--capture",
	  .help = "replay this capture (repeatable; default: every one)" },
	{ .kind = GT_OPT_CALL, .short_name = 'k', .long_name = "kernel", .alias = "kernels", .arg = "REGEX",
	  .call = worker_opt, .data = "--kernel", .help = "replay captures of kernels whose name matches" },
	{ .kind = GT_OPT_CALL, .short_name = 'n', .long_name = "reps", .arg = "N", .call = worker_opt,
	  .data = "--reps", .help = "timed replays per capture after the self-check (default 50)" },
	{ .kind = GT_OPT_CALL, .long_name = "check-reps", .arg = "N", .call = worker_opt, .data = "--check-reps",
	  .help = "of those, how many are compared with the first (default 10)" },
	{ .kind = GT_OPT_CALL, .long_name = "dtype", .arg = "T", .call = worker_opt, .data = "--dtype",
	  .help = "element type when reporting differences: f32 (default), f64,\ni32, u32, u8" },
	{ .kind = GT_OPT_CALL, .long_name = "device", .arg = "N", .call = worker_opt, .data = "--device",
	  .help = "CUDA device ordinal (default 0)" },
	{ .kind = GT_OPT_CALL, .long_name = "metrics", .arg = "SET[,SET]", .call = metrics_opt, .data = "--metrics",
	  .help = "measure each launch under CUPTI's Range Profiler (one replay\n"
	          "per pass, inputs restored before each) and write its values\n"
	          "into the replay trace: sets memory (DRAM bytes read and\n"
	          "written, L2 traffic), compute (tensor FLOPs and pipes, FMA and\n"
	          "FP64 pipes, SM throughput), or CUPTI metric names (not\n"
	          "SASS-patched ones: no FP32/FP64 FLOP counts)" },
	{ .kind = GT_OPT_FLAG, .long_name = "with-structs", .value = &with_structs,
	  .help = "replay launches with by-value structs whose words the recorder\n"
	          "did not look up (older traces), with the run's bytes" },
	{ .kind = GT_OPT_CALL, .long_name = "timeout", .arg = "S", .call = timeout_opt,
	  .help = "stop a replay that runs longer than S seconds (default 300)" },
	{ .kind = GT_OPT_STRING, .short_name = 'o', .long_name = "output", .arg = "FILE", .value = &cmd.output,
	  .help = "the replay's trace (default: TRACE's name + .replay.gtrace,\n"
	          "in the current folder); with --extract, the folder to write" },
	{ .kind = GT_OPT_FLAG, .long_name = "force", .value = &cmd.force,
	  .help = "replace FILE (or files in the --extract folder)" },
	{ .kind = GT_OPT_FLAG, .long_name = "list", .value = &cmd.list,
	  .help = "list TRACE's captures and exit (no GPU needed)" },
	{ .kind = GT_OPT_CALL, .long_name = "extract", .arg = "ID", .call = extract_opt,
	  .help = "write capture ID as a standalone reproducer into -o DIR:\n"
	          "module image, inputs, expected outputs, a C launcher, a\n"
	          "README (no GPU needed)" },
	{ .kind = GT_OPT_STRING, .long_name = "lib", .arg = "PATH", .value = &cmd.lib,
	  .help = "libgputrace.so to record with (default: beside gputrace)" },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	free(cmd.worker_opts);
	memset(&cmd, 0, sizeof cmd);
	cmd.timeout_s = 300;
	worker_cap = 0;
	with_structs = 0;
}

/* TRACE's file name without .gtrace, plus .replay.gtrace, in the current folder. */
static void default_output(const char *trace, char *out, size_t n)
{
	const char *base = strrchr(trace, '/');
	base = base ? base + 1 : trace;
	size_t len = strlen(base);
	if (len > 7 && strcmp(base + len - 7, ".gtrace") == 0)
		len -= 7;
	snprintf(out, n, "%.*s.replay.gtrace", (int)(len > 200 ? 200 : len), base);
}

static int self_path(char *out, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", out, n - 1);
	if (k <= 0)
		return -1;
	out[k] = '\0';
	return 0;
}

/* The worker's own parser, run here on the options it will get, and the trace's capture records
 * read with its own pick: every input error is found, in the worker's words, before the driver is
 * looked for. 0, or 2 after one line. */
static int check_inputs(struct replay_cmd *a)
{
	int n = 0;
	char **wargv = calloc((size_t)a->nworker + 3, sizeof *wargv);
	if (!wargv) {
		fprintf(stderr, "gputrace: replay: out of memory\n");
		return 2;
	}
	wargv[n++] = "gputrace-replay";
	for (int i = 0; i < a->nworker; i++)
		wargv[n++] = a->worker_opts[i];
	wargv[n++] = (char *)a->trace;
	struct replay_args w;
	const char *bad = replay_args_parse(&w, n, wargv);
	int rc = 0;
	char why[8192];
	if (bad) {
		gt_esc_line(stderr, "gputrace: replay: %s", bad);
		rc = 2;
	} else {
		w.demangle = gt_demangler_find(GT_DEMANGLER_MAY_LOAD);
		if (replay_args_check(&w, why, sizeof why) != 0) {
			gt_esc_line(stderr, "gputrace: replay: %s", why);
			rc = 2;
		}
	}
	replay_args_release(&w);
	free(wargv);
	return rc;
}

static int replay(struct replay_cmd *a)
{
	char out[512];
	if (!a->output) {
		default_output(a->trace, out, sizeof out);
		a->output = out;
	}
	int rc = check_inputs(a);
	if (rc)
		return rc;
	/* The recorder refuses it too, but only after the driver is found: said here, it is 2 on
	 * any machine. */
	struct stat st;
	if (!a->force && lstat(a->output, &st) == 0 && S_ISREG(st.st_mode)) {
		gt_esc_line(stderr, "gputrace: '%s' exists; use --force to replace it", a->output);
		return 2;
	}
	/* Unavailable, said once and up front: the worker and the recorder would each say it too. */
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!cuda) {
		const char *e = dlerror();
		gt_esc_line(stdout, "gputrace replay: unavailable: no CUDA driver on this machine (%s)",
		            e ? e : "libcuda.so.1 not found");
		return 77;
	}
	dlclose(cuda);
	char self[PATH_MAX], worker[PATH_MAX];
	if (self_path(self, sizeof self) != 0 || launcher_find("gputrace-replay", worker, sizeof worker) != 0) {
		fprintf(stderr, "gputrace: replay: gputrace-replay not found beside gputrace (built where cuda.h is)\n");
		return 2;
	}
	char results[] = "/tmp/gputrace-replay-XXXXXX", values[] = "/tmp/gputrace-metrics-XXXXXX";
	if (launcher_temp_file(results, "gputrace: replay") != 0)
		return 2;
	if (a->metrics && launcher_temp_file(values, "gputrace: replay") != 0) {
		unlink(results);
		return 2;
	}
	/* The recording must see every launch: nothing of the caller's filters or windows. */
	static const char *const unset[] = { "GPUTRACE_SHADOW", "GPUTRACE_KERNELS", "GPUTRACE_WINDOW", "GPUTRACE_DISABLE" };
	for (size_t i = 0; i < sizeof unset / sizeof unset[0]; i++)
		unsetenv(unset[i]);
	char **argv = calloc((size_t)a->nworker + 20, sizeof *argv);
	if (!argv) {
		unlink(results);
		fprintf(stderr, "gputrace: replay: out of memory\n");
		return 2;
	}
	int n = 0;
	argv[n++] = self;
	argv[n++] = "record";
	argv[n++] = "-q";
	if (a->force)
		argv[n++] = "--force";
	argv[n++] = "-o";
	argv[n++] = (char *)a->output;
	argv[n++] = "-a";
	argv[n++] = "kernel,memcpy,memset,nvtx,driver";
	if (a->lib) {
		argv[n++] = "--lib";
		argv[n++] = (char *)a->lib;
	}
	argv[n++] = "--";
	argv[n++] = worker;
	argv[n++] = (char *)a->trace;
	for (int i = 0; i < a->nworker; i++)
		argv[n++] = a->worker_opts[i];
	argv[n++] = "--results";
	argv[n++] = results;
	if (a->metrics) {
		argv[n++] = "--metric-values";
		argv[n++] = values;
	}
	argv[n] = NULL;
	fflush(stdout);
	int status = launcher_run_bounded(argv, a->timeout_s);
	free(argv);
	if (status == -2) {
		fprintf(stderr, "gputrace: replay: stopped after %u s (--timeout): a kernel that waits for something "
		        "the run provided and the replay does not?\n", a->timeout_s);
		rc = 1;
	} else if (status < 0 || !WIFEXITED(status)) {
		fprintf(stderr, "gputrace: replay: the replay process %s\n",
		        status < 0 ? "could not be started" : "was killed by a signal");
		rc = 1;
	} else {
		rc = WEXITSTATUS(status);
		if (rc == 0 || rc == 1)
			rc = launcher_replay_times(a->trace, a->output, results, stdout) ? 1 : rc;
		if ((rc == 0 || rc == 1) && a->metrics)
			rc = launcher_replay_metrics(a->output, values, results, stdout) ? 1 : rc;
	}
	unlink(results);
	if (a->metrics)
		unlink(values);
	return rc;
}

static int run(char **ops, int nops)
{
	(void)nops;
	struct replay_cmd *a = &cmd;
	a->trace = ops[0];
	if (a->extract && !a->output)
		return gt_cli_usage_error(&launcher_tool, "replay", "--extract needs -o DIR, the folder to write");
	if (with_structs && add_opt("--with-structs", NULL) != 0)
		return 2;
	int rc;
	if (a->list)
		rc = launcher_replay_list(a->trace, stdout);
	else if (a->extract)
		rc = launcher_extract(a->trace, a->extract, a->output, a->force);
	else
		rc = replay(a);
	reset();
	return rc;
}

const struct launcher_command launcher_cmd_replay = {
	.usage = {
		.tool = &launcher_tool,
		.name = "replay",
		.synopsis = "gputrace replay [options] TRACE",
		.operands = "TRACE",
		.min_operands = 1,
		.max_operands = 1,
		.description =
		"Replays launches that `gputrace record --shadow PATTERN` captured in TRACE, each alone\n"
		"on this machine's GPU: recreates its buffers from the captured inputs, launches it from\n"
		"the captured module image with the captured configuration, checks the first replay\n"
		"against the run's outputs bit for bit, tells deterministic kernels from nondeterministic\n"
		"ones by comparing further replays, and times the replays through CUPTI (the replay runs\n"
		"under the recorder and writes a trace of its own, which gpuanalyze reads like any other).\n"
		"The isolated durations are set beside the same kernel's durations in TRACE.",
		.options = options,
		.epilogue =
		"Exit status of replay: 0 every replayed launch reproduced the run (bit for bit, or\n"
		"nondeterministic within the spread of its own replays); 1 a launch differed, failed or\n"
		"could not be replayed (the reason is printed); 2 a usage or input error; 77 no GPU or\n"
		"no CUDA driver on this machine (unavailable, with the reason).\n",
	},
	.reset = reset,
	.run = run,
};
