/* plain.c: a plain C program (no CUDA) for the preload and launcher tests.
 *
 *   plain [HOW [STATUS]]     HOW: return (default), exit, _exit, abort, segv, raise-segv, sigterm,
 *                            sigkill, sigint, fork, exec, threads
 *
 * Prints lines to stdout and stderr, then ends as HOW says with STATUS (default 3). "fork" forks a
 * child that prints and exits 5, and returns STATUS; "exec" replaces itself with "plain return
 * STATUS"; "threads" prints from 8 threads, then returns STATUS. Whatever a preloaded library does,
 * its output and ending must be the same as without it.
 */
#include "tests/cli/progs/endings.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char lines[8][32];

/* Each thread writes its own line; main prints them in order, so the output is deterministic. */
static void *thread_main(void *arg)
{
	long i = (long)arg;
	snprintf(lines[i], sizeof lines[i], "thread %ld\n", i);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "return";
	int status = argc > 2 ? atoi(argv[2]) : 3;
	printf("plain: stdout line 1\nplain: stdout line 2 (%s)\n", how);
	fprintf(stderr, "plain: stderr line\n");
	if (!strcmp(how, "return"))
		return status;
	if (!strcmp(how, "fork")) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0)
			return 98;
		if (pid == 0) {
			printf("plain: child\n");
			exit(5);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			return 97;
		printf("plain: child exited %d\n", WEXITSTATUS(st));
		return status;
	}
	if (!strcmp(how, "exec")) {
		char st[16];
		snprintf(st, sizeof st, "%d", status);
		fflush(NULL);
		execl("/proc/self/exe", argv[0], "return", st, (char *)NULL);
		return 96;
	}
	if (!strcmp(how, "threads")) {
		pthread_t t[8];
		for (long i = 0; i < 8; i++)
			if (pthread_create(&t[i], NULL, thread_main, (void *)i) != 0)
				return 95;
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		for (int i = 0; i < 8; i++)
			fputs(lines[i], stdout);
		return status;
	}
	endings_end(how, status);
	return 99;
}
