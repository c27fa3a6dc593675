/* launcher_record.c: `gputrace record`: preload the recorder into a program and report the trace. */
#include "preload/config.h"
#include "preload/launcher/launcher.h"
#include "preload/log.h"
#include "cupti/metric_sets.h" /* CUPTI-free */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int set(const char *var, const char *val)
{
	if (setenv(var, val, 1) != 0) {
		fprintf(stderr, "gputrace: cannot set %s: %s\n", var, strerror(errno));
		return -1;
	}
	return 0;
}

/* "1234567" -> "1.23 MB" (decimal, as bandwidth figures are). */
static void human_bytes(unsigned long long b, char *out, size_t n)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB" };
	double v = (double)b;
	int u = 0;
	while (v >= 1000.0 && u < 4) {
		v /= 1000.0;
		u++;
	}
	snprintf(out, n, u ? "%.2f %s" : "%.0f %s", v, unit[u]);
}

/* Reads the lines the recorder of each traced process appended and prints the tally. Returns how
 * many recorders reported, with a trace or without one: a recorder that could not write its file
 * ("no-file", "write-failed") has said so in its own line, and the launcher adds nothing, least of
 * all "the program never initialised CUDA". Paths arrive escaped (one line each). */
static int report(const char *report_path, int quiet, int *unused)
{
	FILE *f = fopen(report_path, "r");
	if (!f)
		return 0;
	char line[2048];
	int traces = 0;
	while (fgets(line, sizeof line, f)) {
		int pid;
		unsigned long long k, m, s, b, d, refused;
		char status[32], path[1536];
		if (sscanf(line, "pid=%d kernels=%llu memcpy=%llu memset=%llu bytes=%llu dropped=%llu "
		           "refused=%llu status=%31s path=%1535[^\n]", &pid, &k, &m, &s, &b, &d, &refused, status,
		           path) != 9)
			continue;
		char hb[32];
		human_bytes(b, hb, sizeof hb);
		if (!strcmp(status, "unused")) {
			(*unused)++; /* created no CUDA context: its recorder removed the empty trace */
			continue;
		}
		if (!strcmp(status, "off")) {
			fprintf(stderr, "gputrace: %s: empty (pid %d): it says why\n", path, pid);
			traces++;
			continue;
		}
		traces++;
		if (!strcmp(status, "no-file") || !strcmp(status, "write-failed"))
			continue; /* the recorder's own line said what happened, and its counts are not on disk */
		if (strcmp(status, "ok") != 0 && strcmp(status, "collision") != 0)
			continue;
		if (!quiet || d || refused || strcmp(status, "ok") != 0)
			fprintf(stderr, "gputrace: %s: %llu kernels, %llu copies, %llu memsets, %s copied, "
			        "%llu dropped%s%s%s\n", path, k, m, s, hb, d,
			        refused ? ", and more lost (CUPTI's buffer requests refused: the number is unknown)" : "",
			        strcmp(status, "ok") ? "; " : "", strcmp(status, "ok") ? status : "");
	}
	fclose(f);
	return traces;
}

/* -o FILE that exists: only a regular file is ever removed (with --force). A character device
 * (/dev/null) or a FIFO is left in place and the recorder writes into it; a directory gets the
 * default name inside; a symbolic link (never followed, never removed: /dev/stdout is one), a block
 * device or a socket is refused. 0 to go on, -1 after one line. */
static int check_output(const char *output, int force)
{
	char shown[1024];
	gtp_escape(output, shown, sizeof shown);
	struct stat st;
	if (lstat(output, &st) != 0)
		return 0; /* nothing there (or nothing we can see): the recorder says why if it fails */
	if (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		fprintf(stderr, "gputrace: '%s' is a symbolic link; gputrace neither follows nor removes "
		        "one (--force included): name a file\n", shown);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "gputrace: '%s' is a %s; a trace goes only to a regular file, a character "
		        "device or a FIFO\n", shown, S_ISBLK(st.st_mode) ? "block device" : "socket");
		return -1;
	}
	if (!force) {
		fprintf(stderr, "gputrace: '%s' exists; use --force to replace it\n", shown);
		return -1;
	}
	/* A regular file, as lstat said: Linux has no unlink-if-regular, so the window between the
	 * two calls stays open; the folder is the user's own. */
	if (unlink(output) != 0) {
		fprintf(stderr, "gputrace: cannot replace '%s': %s\n", shown, strerror(errno));
		return -1;
	}
	return 0;
}

static const char *output, *lib;
static int force, quiet;

/* An option that sets the environment variable .data names, for the program and all it starts. */
static int set_var(const struct gt_option *o, const char *value, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return set(o->data, value) ? -1 : 0;
}

static const struct gt_option options[] = {
	{ .kind = GT_OPT_STRING, .short_name = 'o', .long_name = "output", .arg = "FILE", .value = &output,
	  .help = "trace path or pattern (%p pid, %h host, %r rank, %n program)" },
	{ .kind = GT_OPT_FLAG, .long_name = "force", .value = &force,
	  .help = "replace FILE if it exists (otherwise it is an error)" },
	{ .kind = GT_OPT_CALL, .short_name = 'a', .long_name = "activities", .arg = "LIST", .call = set_var,
	  .data = "GPUTRACE_ACTIVITIES", .help = "activity kinds (GPUTRACE_ACTIVITIES)" },
	{ .kind = GT_OPT_CALL, .short_name = 'k', .long_name = "kernel", .alias = "kernels", .arg = "REGEX",
	  .call = set_var, .data = "GPUTRACE_KERNELS", .help = "record only matching kernels (GPUTRACE_KERNELS)" },
	{ .kind = GT_OPT_CALL, .long_name = "flush-ms", .arg = "N", .call = set_var, .data = "GPUTRACE_FLUSH_MS",
	  .help = "write period (GPUTRACE_FLUSH_MS)" },
	{ .kind = GT_OPT_CALL, .long_name = "shadow", .arg = "PATTERN", .call = set_var, .data = "GPUTRACE_SHADOW",
	  .help = "capture launches for shadow replay (GPUTRACE_SHADOW)" },
	{ .kind = GT_OPT_CALL, .long_name = "shadow-max", .arg = "N", .call = set_var,
	  .data = "GPUTRACE_SHADOW_MAX", .help = "launches captured per kernel (GPUTRACE_SHADOW_MAX)" },
	{ .kind = GT_OPT_STRING, .long_name = "lib", .arg = "PATH", .value = &lib,
	  .help = "libgputrace.so to preload (default: found beside gputrace)" },
	{ .kind = GT_OPT_FLAG, .short_name = 'q', .long_name = "quiet", .value = &quiet,
	  .help = "no tally at the end" },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	output = lib = NULL;
	force = quiet = 0;
}

static void environment(FILE *f)
{
	fputs("\n", f);
	config_help(f);
}

static int record(char **program, int nprogram)
{
	(void)nprogram;
	/* An unknown counter set or name is the caller's mistake, said before the program runs (the
	 * recorder alone would only leave the counters out). */
	const char *metrics = getenv("GPUTRACE_METRICS");
	if (metrics && *metrics) {
		struct metric_list ml = { 0 };
		char why[160];
		if (metric_sets_parse(metrics, &ml, why, sizeof why)) {
			char shown[256];
			fprintf(stderr, "gputrace: record: GPUTRACE_METRICS: %s\n", gtp_escape(why, shown, sizeof shown));
			return 2;
		}
	}
	char libpath[4096];
	if (lib) {
		if (!realpath(lib, libpath)) {
			char shown[1024];
			fprintf(stderr, "gputrace: --lib %s: %s\n", gtp_escape(lib, shown, sizeof shown),
			        strerror(errno));
			return 2;
		}
	} else if (launcher_find("libgputrace.so", libpath, sizeof libpath) != 0) {
		fprintf(stderr, "gputrace: cannot find libgputrace.so beside this program; use --lib\n");
		return 2;
	}
	if (output) {
		if (strchr(output, '%') == NULL && check_output(output, force) != 0)
			return 2;
		if (set("GPUTRACE_OUTPUT", output))
			return 2;
	}
	/* The recorder of every traced process appends a tally line here. */
	char report_path[] = "/tmp/gputrace-report-XXXXXX";
	if (launcher_temp_file(report_path, "gputrace") != 0)
		return 2;
	if (set("GPUTRACE_REPORT", report_path))
		return 2;
	/* Prepend ours to any LD_PRELOAD the caller set. */
	const char *pre = getenv("LD_PRELOAD");
	char *newpre = malloc(strlen(libpath) + (pre ? strlen(pre) : 0) + 2);
	if (!newpre)
		return 2;
	sprintf(newpre, "%s%s%s", libpath, pre && *pre ? ":" : "", pre && *pre ? pre : "");
	if (set("LD_PRELOAD", newpre))
		return 2;
	free(newpre);

	/* Say plainly up front when there is nothing to record on; the program runs anyway. */
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	char nodrv[512] = "";
	if (!cuda) {
		const char *e = dlerror();
		snprintf(nodrv, sizeof nodrv, "%s", e ? e : "libcuda.so.1 not found");
	} else {
		dlclose(cuda);
	}

	int status = launcher_run(program);
	if (status < 0) {
		char shown[1024];
		fprintf(stderr, "gputrace: cannot run '%s': %s\n",
		        gtp_escape(program[0], shown, sizeof shown), strerror(errno));
		unlink(report_path);
		return 2;
	}
	int unused = 0;
	int traces = report(report_path, quiet, &unused);
	unlink(report_path);
	if (!traces) {
		if (nodrv[0])
			fprintf(stderr, "gputrace: no trace written: no CUDA driver on this machine (%s)\n",
			        nodrv);
		else if (unused)
			fprintf(stderr, "gputrace: no trace written: the program initialised CUDA but never "
			        "used a GPU (it created no CUDA context)\n");
		else
			fprintf(stderr, "gputrace: no trace written: the program never initialised CUDA "
			        "(no GPU, or not a CUDA program)\n");
	}
	launcher_exit_like(status);
}

const struct launcher_command launcher_cmd_record = {
	.usage = {
		.tool = &launcher_tool,
		.name = "record",
		.synopsis = "gputrace record [-o FILE] [options] -- PROGRAM [ARGS...]",
		.operands = "PROGRAM [ARGS...]",
		.min_operands = 1,
		.max_operands = -1,
		.stop_at_operand = 1,
		.description =
		"Runs PROGRAM with libgputrace.so preloaded (in front of any LD_PRELOAD already set), so\n"
		"that it and every process it starts record into their own trace files, then prints one\n"
		"line per trace written (kernels, copies, memsets, bytes, dropped records) and ends the\n"
		"way PROGRAM ended. Options end at the first argument that is not one (or at --), so\n"
		"PROGRAM's own options are left alone. Each option sets the environment variable named\n"
		"with it, for PROGRAM and everything it starts.",
		.options = options,
		/* What launcher_run and launcher_exit_like do: execvp failing in the child is 127. */
		.epilogue =
		"Exit status of record: the program's own (killed by a signal: gputrace dies of the same\n"
		"signal); 127 when the program cannot be run (not found, not executable); 2 for a usage\n"
		"error (an unknown option, no program, an existing -o FILE without --force, no\n"
		"libgputrace.so found).\n",
		.help_end = environment,
	},
	.reset = reset,
	.run = record,
};
