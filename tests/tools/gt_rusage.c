/* gt_rusage.c: runs a command and says what it cost: its CPU seconds (user + system) and its
 * largest resident set, for tests/cli/test_scaling.sh, which must not depend on GNU time being
 * installed.
 *
 *   gt_rusage [-t SECONDS] OUT -- COMMAND [ARG...]
 *
 * Runs COMMAND with its standard streams as given (and, with -t, a CPU-time limit of SECONDS through
 * RLIMIT_CPU), then writes "CPU_SECONDS MAX_RSS_KB" on one line to the file OUT, and exits with the
 * command's status (128 + N when a signal N ended it; 127 when it could not be run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long limit = 0;
	int i = 1;
	if (i + 1 < argc && !strcmp(argv[i], "-t")) {
		char *e;
		limit = strtol(argv[i + 1], &e, 10);
		if (*e || limit <= 0) {
			fprintf(stderr, "gt_rusage: -t: '%s' is not a number of seconds\n", argv[i + 1]);
			return 2;
		}
		i += 2;
	}
	if (i + 2 >= argc || strcmp(argv[i + 1], "--")) {
		fprintf(stderr, "usage: gt_rusage [-t SECONDS] OUT -- COMMAND [ARG...]\n");
		return 2;
	}
	const char *out = argv[i];
	char **cmd = argv + i + 2;
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "gt_rusage: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		if (limit) {
			struct rlimit rl = { (rlim_t)limit, (rlim_t)limit + 1 };
			if (setrlimit(RLIMIT_CPU, &rl) != 0) {
				fprintf(stderr, "gt_rusage: setrlimit: %s\n", strerror(errno));
				_exit(127);
			}
		}
		execvp(cmd[0], cmd);
		fprintf(stderr, "gt_rusage: cannot run '%s': %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	pid_t w;
	while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
		;
	if (w < 0) {
		fprintf(stderr, "gt_rusage: wait4: %s\n", strerror(errno));
		return 127;
	}
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	             (double)ru.ru_stime.tv_usec / 1e6;
	FILE *f = fopen(out, "w");
	int bad = !f || fprintf(f, "%.3f %ld\n", cpu, ru.ru_maxrss) < 0;
	if ((f && fclose(f) != 0) || bad) {
		fprintf(stderr, "gt_rusage: cannot write '%s': %s\n", out, strerror(errno));
		return 127;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}
