/* launcher_peak.c: `gputrace peak`: measure the copy bandwidths this machine reaches.
 *
 * Runs the bandwidth probe from kernels/ (bwprobe: pinned and pageable H2D and D2H, D2D, large
 * copies, median of several timed repetitions) and stores its "peak ..." lines where gpuanalyze looks
 * for measured peaks: $GPUTRACE_PEAKS, else ~/.cache/gputrace/peaks. Each stored line carries the
 * device's name and UUID so a trace is matched to the peaks of its own GPU.
 */
#include "launcher.h"
#include "log.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int default_peaks_path(char *out, size_t n)
{
	const char *env = getenv("GPUTRACE_PEAKS");
	if (env && *env) {
		snprintf(out, n, "%s", env);
		return 0;
	}
	const char *home = getenv("HOME");
	if (!home || !*home)
		return -1;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/.cache", home);
	mkdir(dir, 0755);
	snprintf(dir, sizeof dir, "%s/.cache/gputrace", home);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -1;
	int w = snprintf(out, n, "%s/peaks", dir);
	return w < 0 || (size_t)w >= n ? -1 : 0;
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
			printf("usage: gputrace peak [-o FILE] [--reps N] [--bytes N]\n");
			return 0;
		default:
			return launcher_bad_option("peak", c, argv);
		}
	}
	char probe[4096], path[4096];
	if (launcher_find("bwprobe", probe, sizeof probe) != 0) {
		fprintf(stderr, "gputrace: cannot find the bandwidth probe 'bwprobe' beside this program\n");
		return 2;
	}
	if (output)
		snprintf(path, sizeof path, "%s", output);
	else if (default_peaks_path(path, sizeof path) != 0) {
		fprintf(stderr, "gputrace: no place for the peaks file: set GPUTRACE_PEAKS or use -o\n");
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
