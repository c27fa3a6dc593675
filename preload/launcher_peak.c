/* launcher_peak.c: `gputrace peak`: measure the copy bandwidths this machine reaches.
 *
 * Runs the bandwidth probe from kernels/ (bwprobe: pinned and pageable H2D and D2H, D2D, large
 * copies, median of several timed repetitions) and stores its "peak ..." lines where gpuanalyze looks
 * for measured peaks (traces/peaks_path.h: $GPUTRACE_PEAKS, else $XDG_CACHE_HOME/gputrace/peaks,
 * else ~/.cache/gputrace/peaks). Each stored line carries the device's name and UUID so a trace is
 * matched to the peaks of its own GPU.
 */
#include "launcher.h"
#include "log.h"
#include "peaks_path.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const struct launcher_help launcher_peak_help = {
	.synopsis = "gputrace peak [-o FILE] [--reps N] [--bytes N]",
	.description =
	"Measures the copy bandwidths this machine reaches, with the probe bwprobe: pinned and\n"
	"pageable host-to-device and device-to-host copies and device-to-device copies, the median\n"
	"of N timed copies of each kind. Prints the probe's lines and appends one line per kind,\n"
	"tagged with the GPU's name and UUID, to the peaks file that gpuanalyze bandwidth reads.\n"
	"Needs a GPU. The probe is looked for beside gputrace: BIN/bwprobe,\n"
	"BIN/../lib/bwprobe, BIN/../libexec/gputrace/bwprobe (where make install puts it),\n"
	"BIN/kernels/bwprobe.",
	.options =
	"  -o, --output FILE      where to store the measured peaks (default: the file gpuanalyze\n"
	"                         reads: $GPUTRACE_PEAKS, else $XDG_CACHE_HOME/gputrace/peaks,\n"
	"                         else ~/.cache/gputrace/peaks)\n"
	"      --reps N           timed repetitions per copy kind (default 7)\n"
	"      --bytes N          bytes per copy (default 268435456)\n",
	.exit_status =
	"Exit status of peak: 0 when the peaks were stored; 1 when the probe failed; 2 for a usage\n"
	"error, a probe that cannot be found or run, or a peaks file that cannot be written; 3 when\n"
	"the probe found no CUDA device.\n",
	.environment = 0,
};

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

int launcher_peak(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "reps", required_argument, NULL, 'r' },
		{ "bytes", required_argument, NULL, 'b' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *reps = "7", *bytes = "268435456";
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'r': reps = optarg; break;
		case 'b': bytes = optarg; break;
		case 'h':
			launcher_print_help(&launcher_peak_help, stdout);
			return fflush(stdout) == 0 ? 0 : 2;
		default:
			return launcher_bad_option("peak", c, argv);
		}
	}
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
	FILE *f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "gputrace: cannot write '%s': %s\n", shown, strerror(errno));
		return 2;
	}
	for (int i = 0; i < n; i++)
		fprintf(f, "%s %s\n", device, lines[i]);
	if (fclose(f) != 0) {
		fprintf(stderr, "gputrace: cannot write '%s': %s\n", shown, strerror(errno));
		return 2;
	}
	fprintf(stderr, "gputrace: %d measured peaks stored in '%s'\n", n, shown);
	return 0;
}
