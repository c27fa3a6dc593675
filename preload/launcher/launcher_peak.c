/* launcher_peak.c: `gputrace peak`: measure the copy bandwidths and the ceilings this machine reaches.
 *
 * Runs the bandwidth probe from kernels/ (bwprobe: pinned and pageable H2D and D2H, D2D, large
 * copies; then device-memory and L2 bandwidth, FP32/FP64 FMA and FP16/BF16 tensor throughput from
 * kernels of its own; median of several timed repetitions) and stores its "peak ..." lines where gpuanalyze looks
 * for measured peaks (common/peaks_path.h: $GPUTRACE_PEAKS, else $XDG_CACHE_HOME/gputrace/peaks,
 * else ~/.cache/gputrace/peaks). Each stored line carries the device's name and UUID so a trace is
 * matched to the peaks of its own GPU. The file is rewritten through a temporary copy renamed over
 * it (store), so that a failed write leaves it as it was.
 */
#include "preload/launcher/launcher.h"
#include "preload/log.h"
#include "common/peaks_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* mkdir -p of the folder that holds path: the cache folders (~/.cache, its gputrace/) need not
 * exist yet. 0, or -1 with errno. */
static int make_parent_folders(const char *path)
{
	char dir[4096];
	int w = snprintf(dir, sizeof dir, "%s", path);
	if (w < 0 || (size_t)w >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	char *last = strrchr(dir, '/');
	if (!last || last == dir)
		return 0;
	*last = '\0';
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = c;
		if (!c)
			return 0;
	}
}

/* Where the peaks go: the file itself (a FIFO, /dev/stdout, a name that cannot be looked at), or
 * a copy beside target renamed over it, with the mode a new file or the old one had. */
static int in_place(const char *path, char *target, size_t tn, mode_t *mode)
{
	struct stat lst, st;
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT)
			return 1; /* opening it says why */
		mode_t u = umask(0);
		umask(u);
		*mode = 0666 & ~u;
		return snprintf(target, tn, "%s", path) >= (int)tn;
	}
	if (S_ISLNK(lst.st_mode) && (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6)))
		return 1; /* names of open files */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 1;
	char *real = realpath(path, NULL);
	int direct = !real || snprintf(target, tn, "%s", real) >= (int)tn;
	free(real);
	*mode = st.st_mode & 07777;
	return direct;
}

/* Appends the lines to the peaks file at path. A regular file (or none) is copied with them to a
 * temporary file beside it that is renamed over it: a failure (a full disk) leaves the old file as
 * it was, and gpuanalyze never reads half of it. 0, or -1 with errno. */
static int store(const char *path, const char *device, char lines[][1024], int n)
{
	char target[4096], tmp[4096 + 32];
	mode_t mode;
	if (in_place(path, target, sizeof target, &mode)) {
		FILE *f = fopen(path, "a");
		if (!f)
			return -1;
		for (int i = 0; i < n; i++)
			fprintf(f, "%s %s\n", device, lines[i]);
		return fclose(f);
	}
	if (access(target, F_OK) == 0 && access(target, W_OK) != 0)
		return -1; /* a file the user may not write is not replaced either */
	const char *slash = strrchr(target, '/');
	int dir = slash ? (int)(slash - target) + 1 : 0;
	snprintf(tmp, sizeof tmp, "%.*s.gputrace-XXXXXX", dir, target);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	FILE *out = fchmod(fd, mode) == 0 ? fdopen(fd, "w") : NULL;
	int ok = out != NULL;
	if (!out)
		close(fd);
	FILE *in = ok ? fopen(target, "r") : NULL;
	if (!in && errno != ENOENT)
		ok = 0;
	char buf[8192];
	size_t k;
	while (ok && in && (k = fread(buf, 1, sizeof buf, in)) > 0)
		ok = fwrite(buf, 1, k, out) == k;
	if (in) {
		ok = ok && !ferror(in);
		fclose(in);
	}
	for (int i = 0; ok && i < n; i++)
		ok = fprintf(out, "%s %s\n", device, lines[i]) > 0;
	int err = errno;
	if (out && fclose(out) != 0 && ok) {
		ok = 0;
		err = errno;
	}
	if (ok && rename(tmp, target) != 0) {
		ok = 0;
		err = errno;
	}
	if (!ok) {
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

static const char *output, *reps, *bytes;

static const struct gt_option options[] = {
	{ .kind = GT_OPT_STRING, .short_name = 'o', .long_name = "output", .arg = "FILE", .value = &output,
	  .help = "where to store the measured peaks (default: the file gpuanalyze\n"
	          "reads: $GPUTRACE_PEAKS, else $XDG_CACHE_HOME/gputrace/peaks,\n"
	          "else ~/.cache/gputrace/peaks)" },
	{ .kind = GT_OPT_STRING, .long_name = "reps", .arg = "N", .value = &reps,
	  .help = "timed repetitions per copy kind and per ceiling (default 7)" },
	{ .kind = GT_OPT_STRING, .long_name = "bytes", .arg = "N", .value = &bytes,
	  .help = "bytes per copy (default 268435456)" },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	output = NULL;
	reps = "7";
	bytes = "268435456";
}

static int peak(char **ops, int nops)
{
	(void)ops;
	(void)nops;
	char probe[4096], path[4096];
	if (launcher_find("bwprobe", probe, sizeof probe) != 0) {
		fprintf(stderr, "gputrace: cannot find the bandwidth probe 'bwprobe' beside this program\n");
		return 2;
	}
	int in_cache = 0;
	if (output)
		snprintf(path, sizeof path, "%s", output);
	else if (!gt_peaks_default_path(path, sizeof path, &in_cache)) {
		fprintf(stderr, "gputrace: no place for the peaks file ($GPUTRACE_PEAKS, $XDG_CACHE_HOME and "
		        "$HOME unset): set one or use -o\n");
		return 2;
	}
	if (in_cache && make_parent_folders(path) != 0) {
		char shown[1024];
		fprintf(stderr, "gputrace: cannot create the folder of '%s': %s\n",
		        gtp_escape(path, shown, sizeof shown), strerror(errno));
		return 2;
	}
	struct stat ps, os;
	if (stat(probe, &ps) == 0 && stat(path, &os) == 0 && ps.st_dev == os.st_dev && ps.st_ino == os.st_ino) {
		char shown[1024];
		fprintf(stderr, "gputrace: cannot write '%s': it is the probe, and an output never replaces "
		        "an input\n", gtp_escape(path, shown, sizeof shown));
		return 2;
	}
	char cmd[9000];
	snprintf(cmd, sizeof cmd, "'%s' --reps '%s' --bytes '%s'", probe, reps, bytes);
	if (strchr(reps, '\'') || strchr(bytes, '\'') || strchr(probe, '\'')) {
		fprintf(stderr, "gputrace: peak: invalid argument\n");
		return 2;
	}
	FILE *p = popen(cmd, "r");
	if (!p) {
		fprintf(stderr, "gputrace: cannot run the probe: %s\n", strerror(errno));
		return 2;
	}
	char line[1024], device[1024] = "";
	char lines[64][1024];
	int n = 0;
	while (fgets(line, sizeof line, p)) {
		fputs(line, stdout);
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "device ", 7))
			snprintf(device, sizeof device, "%s", line + 7);
		else if (!strncmp(line, "peak ", 5) && n < 64)
			snprintf(lines[n++], sizeof lines[0], "%s", line + 5);
	}
	int st = pclose(p);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || n == 0) {
		fprintf(stderr, "gputrace: the bandwidth probe failed (status %d); nothing stored\n",
		        st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return WIFEXITED(st) && WEXITSTATUS(st) == 3 ? 3 : 1;
	}
	char shown[1024];
	gtp_escape(path, shown, sizeof shown);
	if (store(path, device, lines, n) != 0) {
		fprintf(stderr, "gputrace: cannot write '%s': %s\n", shown, strerror(errno));
		return 2;
	}
	fprintf(stderr, "gputrace: %d measured peaks stored in '%s'\n", n, shown);
	return 0;
}

const struct launcher_command launcher_cmd_peak = {
	.usage = {
		.tool = &launcher_tool,
		.name = "peak",
		.synopsis = "gputrace peak [-o FILE] [--reps N] [--bytes N]",
		.max_operands = 0,
		.description =
		"Measures the copy bandwidths this machine reaches, with the probe bwprobe: pinned and\n"
		"pageable host-to-device and device-to-host copies and device-to-device copies, the median\n"
		"of N timed copies of each kind. Then the ceilings of the GPU, each the median of N timed\n"
		"launches of the probe's own kernels after 2 untimed ones: device-memory bandwidth\n"
		"(dram_read, dram_copy, dram_triad: arrays of at least 2 GiB and 4x L2, bytes read plus\n"
		"written), L2 bandwidth (l2_read: a quarter of L2 read repeatedly), FP32 and FP64 FMA\n"
		"throughput (fp32_fma, fp64_fma: 2 flops per FMA), tensor-core throughput (fp16_mma,\n"
		"bf16_mma: mma.sync m16n8k16 with FP32 accumulation on register fragments) and, where\n"
		"cuBLAS can be opened, a library GEMM's (fp16_gemm, bf16_gemm: cublasGemmEx, 8192^3, FP32\n"
		"compute; wgmma on sm_90, which mma.sync does not reach; else a skip line). Each ceiling\n"
		"line carries its method, the SM and memory clocks read through NVML while it ran, and the\n"
		"theoretical figure from the device's attributes (or \"unknown\"). Prints the probe's\n"
		"lines and appends one line per kind, tagged with the GPU's name and UUID, to the peaks\n"
		"file that gpuanalyze bandwidth and info read.\n"
		"Needs a GPU. The probe is looked for beside gputrace: BIN/bwprobe,\n"
		"BIN/../lib/bwprobe, BIN/../libexec/gputrace/bwprobe (where make install puts it),\n"
		"BIN/kernels/bwprobe.",
		.options = options,
		.epilogue =
		"Exit status of peak: 0 when the peaks were stored; 1 when the probe failed; 2 for a usage\n"
		"error, a probe that cannot be found or run, or a peaks file that cannot be written; 3 when\n"
		"the probe found no CUDA device.\n",
	},
	.reset = reset,
	.run = peak,
};
