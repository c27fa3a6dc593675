/* launcher.c: `gputrace`, the command people and CI jobs run: main, help, and process plumbing.
 *
 *   gputrace record [-o FILE] [options] -- PROGRAM [ARGS...]
 *   gputrace peak [-o FILE] [--reps N] [--bytes N]
 *   gputrace replay [options] TRACE
 *   gputrace -h | --help | -V | --version;  gputrace COMMAND --help
 *
 * `record` sets LD_PRELOAD to libgputrace.so (found beside this binary), runs the program, passes its
 * exit status through (or dies of the same signal), and prints where each trace went with a one-line
 * tally. The library does the recording; this program only arranges it and reports.
 */
#include "preload/config.h"
#include "preload/launcher/launcher.h"
#include "preload/launcher/launcher_replay.h"
#include "preload/log.h"
#include "gputrace.h"

#include "common/text_escape.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: %s\n"
	        "       %s\n"
	        "       %s\n"
	        "       gputrace -h | --help | -V | --version\n"
	        "       gputrace COMMAND --help\n"
	        "\n"
	        "Records what an unmodified CUDA program does on the GPU into a trace file, through\n"
	        "CUPTI, for gpuanalyze(1). See gputrace(1).\n"
	        "\n"
	        "record options:\n%s\n"
	        "peak options:\n%s\n"
	        "replay options:\n%s\n"
	        "%s%s%s\n",
	        launcher_record_help.synopsis, launcher_peak_help.synopsis, launcher_replay_help.synopsis,
	        launcher_record_help.options, launcher_peak_help.options, launcher_replay_help.options,
	        launcher_record_help.exit_status, launcher_peak_help.exit_status, launcher_replay_help.exit_status);
	config_help(out);
}

void launcher_print_help(const struct launcher_help *h, FILE *out)
{
	fprintf(out, "usage: %s\n\n%s\n\noptions:\n%s  %-20s   show this help and exit\n\n%s", h->synopsis,
	        h->description, h->options, "-h, --help", h->exit_status);
	if (h->environment) {
		fputs("\n", out);
		config_help(out);
	}
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

int launcher_bad_option(const char *cmd, int c, char **argv)
{
	/* getopt's own message would name the subcommand as the program ("record: invalid option")
	 * and come on top of ours: one line instead, naming the option as the user wrote it. */
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	char opt[128];
	if (optopt && strncmp(arg, "--", 2) != 0)
		snprintf(opt, sizeof opt, "-%c", optopt);
	else
		snprintf(opt, sizeof opt, "%.*s", (int)strcspn(arg, "="), arg);
	gt_esc_line(stderr, "gputrace: %s: %s '%s' (try gputrace %s --help)", cmd,
	            c == ':' ? "missing value for option" : "unknown option", opt, cmd);
	return 2;
}

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t child_group; /* 1: the child leads a process group of its own */

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_group ? -(pid_t)child_pid : (pid_t)child_pid, sig);
}

/* Runs argv, forwarding SIGINT/SIGTERM/SIGHUP/SIGQUIT. own_group: the child leads a process group
 * of its own (signals go to the whole group); timeout_s > 0: the group is killed after that long
 * and -2 returned. */
static int run_child(char **argv, int own_group, unsigned timeout_s)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (own_group)
			setpgid(0, 0);
		execvp(argv[0], argv);
		int err = errno;
		char shown[1024];
		fprintf(stderr, "gputrace: cannot run '%s': %s\n", gtp_escape(argv[0], shown, sizeof shown),
		        strerror(err));
		_exit(127);
	}
	if (own_group)
		setpgid(pid, pid); /* also here: the group exists before a signal is forwarded to it */
	child_pid = pid;
	child_group = own_group;
	/* The child gets terminal signals itself (same process group); forwarding covers a kill
	 * aimed at us alone, as a CI runner's timeout does. */
	struct sigaction sa, old[4];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	const int sigs[4] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &sa, &old[i]);
	struct timespec t0, now, nap = { 0, 20 * 1000 * 1000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, timeout_s ? WNOHANG : 0);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = -1;
			break;
		}
		if (!timeout_s)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= (time_t)timeout_s) {
			kill(own_group ? -pid : pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			status = -2;
			break;
		}
		nanosleep(&nap, NULL);
	}
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	child_pid = 0;
	child_group = 0;
	return status;
}

int launcher_run(char **argv) { return run_child(argv, 0, 0); }

int launcher_run_bounded(char **argv, unsigned timeout_s) { return run_child(argv, 1, timeout_s); }

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
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("gputrace %s (trace format %d.%d)\n", GT_TOOL_VERSION, GT_FORMAT_MAJOR,
		       GT_FORMAT_MINOR);
		return 0;
	}
	if (!strcmp(cmd, "record"))
		return launcher_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "peak"))
		return launcher_peak(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return launcher_replay(argc - 1, argv + 1);
	char shown[512];
	fprintf(stderr, "gputrace: unknown command '%s' (try gputrace --help)\n",
	        gtp_escape(cmd, shown, sizeof shown));
	return 2;
}
