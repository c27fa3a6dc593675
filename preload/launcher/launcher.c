/* launcher.c: `gputrace`, the command people and CI jobs run: main, help, and process plumbing.
 *
 *   gputrace record [-o FILE] [options] -- PROGRAM [ARGS...]
 *   gputrace peak [-o FILE] [--reps N] [--bytes N]
 *   gputrace replay [options] TRACE
 *   gputrace -h | --help | -V | --version;  gputrace COMMAND --help;  gputrace help COMMAND
 *
 * Each subcommand is a descriptor (launcher.h) parsed by the command-line library gpuanalyze uses
 * too (common/cli.h), so both tools share one grammar and one wording of usage errors.
 *
 * `record` sets LD_PRELOAD to libgputrace.so (found beside this binary), runs the program, passes its
 * exit status through (or dies of the same signal), and prints where each trace went with a one-line
 * tally. The library does the recording; this program only arranges it and reports.
 */
#include "preload/config.h"
#include "preload/launcher/launcher.h"
#include "preload/log.h"
#include "traces/gputrace.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct launcher_command *const commands[] = { &launcher_cmd_record, &launcher_cmd_peak,
	                                                    &launcher_cmd_replay, NULL };

/* The recorder's voice (log.h): the launcher's lines escape as the recorder's do. */
static void say(const char *text) { gtp_error("%s", text); }

const struct gt_cli_tool launcher_tool = {
	.name = "gputrace",
	.version = GT_CLI_VERSION("gputrace", GT_TOOL_VERSION, GT_FORMAT_MAJOR, GT_FORMAT_MINOR),
	.say = say,
};

/* Every command's synopsis, options (the lines of its own --help) and exit statuses. */
static void usage(FILE *out)
{
	for (const struct launcher_command *const *c = commands; *c; c++)
		fprintf(out, "%s%s\n", c == commands ? "usage: " : "       ", (*c)->usage.synopsis);
	fputs("       gputrace -h | --help | -V | --version\n"
	      "       gputrace COMMAND --help\n"
	      "\n"
	      "Records what an unmodified CUDA program does on the GPU into a trace file, through\n"
	      "CUPTI, for gpuanalyze(1). See gputrace(1).\n"
	      "\n",
	      out);
	for (const struct launcher_command *const *c = commands; *c; c++) {
		fprintf(out, "%s options:\n", (*c)->usage.name);
		gt_cli_option_lines(&(*c)->usage, out);
		fputs("\n", out);
	}
	for (const struct launcher_command *const *c = commands; *c; c++)
		fputs((*c)->usage.epilogue, out);
	fputs("\n", out);
	config_help(out);
}

static const struct launcher_command *find(const char *name)
{
	for (const struct launcher_command *const *c = commands; *c; c++)
		if (strcmp((*c)->usage.name, name) == 0)
			return *c;
	return NULL;
}

int launcher_command_run(const struct launcher_command *c, int argc, char **argv)
{
	if (c->reset)
		c->reset();
	char **ops;
	int nops, status;
	if (!gt_cli_parse(&c->usage, argc, argv, &ops, &nops, &status, NULL))
		return status;
	return c->run(ops, nops);
}

int launcher_find(const char *name, char *out, size_t n)
{
	char exe[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (k <= 0)
		return -1;
	exe[k] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	static const char *const rel[] = { "%s/%s", "%s/../lib/%s", "%s/../libexec/gputrace/%s",
		"%s/kernels/%s" };
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char cand[PATH_MAX];
		int w = snprintf(cand, sizeof cand, rel[i], exe, name);
		if (w < 0 || (size_t)w >= sizeof cand)
			continue;
		if (access(cand, R_OK) == 0 && realpath(cand, out) && strlen(out) < n)
			return 0;
	}
	return -1;
}

int launcher_temp_file(char *tmpl, const char *who)
{
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot create a temporary file: %s\n", who, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

int launcher_run(char **argv) { return gt_cli_run(&launcher_tool, argv, 0, 0); }

int launcher_run_bounded(char **argv, unsigned timeout_s) { return gt_cli_run(&launcher_tool, argv, 1, timeout_s); }

void launcher_exit_like(int wstatus)
{
	fflush(NULL);
	if (wstatus >= 0 && WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		/* Die of the same signal so that our parent sees what it would have seen without us;
		 * no core file of ours. */
		signal(sig, SIG_DFL);
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		raise(sig);
		_exit(128 + sig);
	}
	if (wstatus >= 0 && WIFEXITED(wstatus))
		exit(WEXITSTATUS(wstatus));
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return GT_CLI_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		if (!strcmp(cmd, "help") && argc > 2) {
			/* `gputrace help CMD` is `gputrace CMD --help`. */
			const struct launcher_command *c = find(argv[2]);
			if (!c)
				return gt_cli_usage_error(&launcher_tool, NULL, "unknown command '%s'", argv[2]);
			char *av[] = { argv[2], "--help", NULL };
			return launcher_command_run(c, 2, av);
		}
		usage(stdout);
		return fflush(stdout) == 0 ? 0 : GT_CLI_USAGE;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("%s\n", launcher_tool.version);
		return fflush(stdout) == 0 ? 0 : GT_CLI_USAGE;
	}
	const struct launcher_command *c = find(cmd);
	if (c)
		return launcher_command_run(c, argc - 1, argv + 1);
	if (cmd[0] == '-')
		return gt_cli_usage_error(&launcher_tool, NULL, "unknown option '%s'", cmd);
	return gt_cli_usage_error(&launcher_tool, NULL, "unknown command '%s'", cmd);
}
